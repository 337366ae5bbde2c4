//! CSV as every export writes it (attribution results, explorer sweeps, batch sweeps,
//! sensitivity): the `csv` crate's RFC 4180 quoting (a field with a comma, quote or line
//! break is quoted, quotes doubled), one record per line, LF line ends.

/// Records written one by one, then taken as text.
pub struct CsvText(csv::Writer<Vec<u8>>);

impl Default for CsvText {
    fn default() -> CsvText {
        CsvText::new()
    }
}

impl CsvText {
    pub fn new() -> CsvText {
        CsvText(
            csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .flexible(true)
                .from_writer(Vec::new()),
        )
    }

    /// Appends one record.
    pub fn row<I, T>(&mut self, fields: I)
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        // Writing into memory cannot fail.
        let _ = self.0.write_record(fields);
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        match self.0.into_inner() {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        let mut w = super::CsvText::new();
        w.row(["a", "b,c", "say \"hi\"", "two\nlines", ""]);
        w.row(["1"]);
        assert_eq!(
            w.finish(),
            "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\",\n1\n"
        );
    }
}

//! CSV exports, read exactly as stormlog 0.4.3's TUI reads them
//! (`tui/distributed_diagnostics.py`: `_load_csv_sessions`, `_normalize_csv_record`).
//!
//! - [`CsvParser`] is Python's `csv.reader` with the default (excel) dialect on text
//!   opened with `newline=""`: `,` delimiter, `"` quotes with doubled quotes inside,
//!   non-strict (a quote inside an unquoted field is literal, text after a closing
//!   quote is appended), records end at `\r`, `\n` or `\r\n` outside quotes, quoted
//!   fields keep their line breaks, an unterminated quote at the end of the file
//!   keeps what it holds, and a field over 131072 characters is an error that stops
//!   the file. The byte order mark is not stripped (`encoding="utf-8"`).
//! - [`DictRows`] is `csv.DictReader` on top: the first record is the header,
//!   records with no field at all are skipped, short records give `None` for the
//!   missing keys, long ones put the surplus under the key `None`, a repeated
//!   header name keeps its first position and its last value.
//! - Each row is normalized (`_normalize_csv_record`) into a JSON object and goes
//!   through the same record conversion as JSON files, with the TUI's defaults
//!   (collector "legacy.csv", sampling interval 0, the file's legacy session id).
//!   A row that fails becomes the TUI's warning `CSV parse error {path}:{row}:
//!   {message}`, where `row` counts data records from 2 (`enumerate(reader, start=2)`),
//!   not physical lines.
//!
//! Known gaps (documented, not reproduced): a header that names a column "None" and
//! rows with surplus fields make Python report "Unknown telemetry fields: None, None"
//! where this reader reports "None" once; metadata cells nested deeper than 255
//! levels are read as `{}` (Python parses them up to its recursion limit).

use super::error::{LoadError, LoadErrorKind, LoadWarning};
use super::event::{Event, Sources, Strings};
use super::phase_boundary::PhaseBoundary;
use super::pynum::{float_from_str, int_digits_from_float, PyError};
use super::reader::Input;
use super::record::{convert_record, InternCache, RecordExtras, RecordSink};
use crate::json::{py_strip, skip_ws, Node, Tape};

/// `csv.field_size_limit()`'s default.
pub const FIELD_SIZE_LIMIT: usize = 131_072;

/// The TUI's default collector for CSV rows.
pub const CSV_DEFAULT_COLLECTOR: &str = "legacy.csv";

/// `_CSV_INT_FIELDS`: converted with `int(float(value))`.
const INT_FIELDS: [&str; 20] = [
    "schema_version",
    "timestamp_ns",
    "sampling_interval_ms",
    "pid",
    "rank",
    "local_rank",
    "world_size",
    "device_id",
    "allocator_allocated_bytes",
    "allocator_reserved_bytes",
    "allocator_active_bytes",
    "allocator_inactive_bytes",
    "allocator_change_bytes",
    "device_used_bytes",
    "device_free_bytes",
    "device_total_bytes",
    "memory_allocated",
    "memory_reserved",
    "memory_change",
    "total_memory",
];

/// `_CSV_FLOAT_FIELDS`: converted with `float(value)`.
const FLOAT_FIELDS: [&str; 1] = ["timestamp"];

/// A `csv.Error`: it ends the reading of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvError {
    pub message: String,
    /// 1-based physical line where it happened.
    pub line: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StartRecord,
    StartField,
    InField,
    InQuotedField,
    QuoteInQuotedField,
    EatCrnl,
}

/// Python's `csv.reader` state machine (`Modules/_csv.c`, excel dialect), fed bytes
/// of valid UTF-8 (every byte it acts on is ASCII, so it never splits a character).
///
/// Python reads the file line by line (a line ends after `\n`, after `\r\n`, or after
/// a `\r` not followed by `\n`) and feeds an end-of-line after each; this parser
/// finds the same line ends in a byte stream that may be cut anywhere.
#[derive(Debug)]
pub struct CsvParser {
    state: State,
    /// The current record's fields, concatenated.
    buf: Vec<u8>,
    /// End offsets of the saved fields in `buf`.
    ends: Vec<usize>,
    /// Characters in the field being read (the size limit counts characters).
    field_chars: usize,
    /// A `\r` was the last byte seen: the line ends unless `\n` follows.
    pending_cr: bool,
    /// The current line holds at least one character.
    line_has_chars: bool,
    /// 1-based physical line being read.
    line: u64,
}

impl Default for CsvParser {
    fn default() -> CsvParser {
        CsvParser {
            state: State::StartRecord,
            buf: Vec::new(),
            ends: Vec::new(),
            field_chars: 0,
            pending_cr: false,
            line_has_chars: false,
            line: 1,
        }
    }
}

/// Receives each record: the concatenated fields and their end offsets.
pub type RowSink<'a> = dyn FnMut(&[u8], &[usize]) + 'a;

impl CsvParser {
    /// Feeds `data`; `eof` says no more bytes will follow. Each complete record
    /// (also the empty ones, `[]` in Python) goes to `row`.
    pub fn feed(&mut self, data: &[u8], eof: bool, row: &mut RowSink<'_>) -> Result<(), CsvError> {
        for &b in data {
            if self.pending_cr {
                self.pending_cr = false;
                if b == b'\n' {
                    self.char(b)?;
                    self.end_of_line(row);
                    continue;
                }
                self.end_of_line(row);
            }
            self.char(b)?;
            match b {
                b'\n' => self.end_of_line(row),
                b'\r' => self.pending_cr = true,
                _ => {}
            }
        }
        if eof {
            if self.pending_cr || self.line_has_chars {
                self.pending_cr = false;
                self.end_of_line(row);
            }
            // End of input inside a quoted field: the field is kept (non-strict).
            if self.state == State::InQuotedField {
                self.save_field();
                self.emit(row);
            }
        }
        Ok(())
    }

    /// 1-based physical line being read.
    pub fn line(&self) -> u64 {
        self.line
    }

    fn add(&mut self, b: u8) -> Result<(), CsvError> {
        // Count characters, not bytes: continuation bytes are 10xxxxxx.
        if (b as i8) >= -0x40 {
            if self.field_chars >= FIELD_SIZE_LIMIT {
                return Err(CsvError {
                    message: format!("field larger than field limit ({FIELD_SIZE_LIMIT})"),
                    line: self.line,
                });
            }
            self.field_chars += 1;
        }
        self.buf.push(b);
        Ok(())
    }

    fn save_field(&mut self) {
        self.ends.push(self.buf.len());
        self.field_chars = 0;
    }

    fn emit(&mut self, row: &mut RowSink<'_>) {
        row(&self.buf, &self.ends);
        self.buf.clear();
        self.ends.clear();
        self.field_chars = 0;
    }

    fn char(&mut self, c: u8) -> Result<(), CsvError> {
        self.line_has_chars = true;
        let newline = c == b'\n' || c == b'\r';
        match self.state {
            State::StartRecord if newline => self.state = State::EatCrnl,
            State::StartRecord | State::StartField => {
                if newline {
                    self.save_field();
                    self.state = State::EatCrnl;
                } else if c == b'"' {
                    self.state = State::InQuotedField;
                } else if c == b',' {
                    self.save_field();
                    self.state = State::StartField;
                } else {
                    self.add(c)?;
                    self.state = State::InField;
                }
            }
            State::InField => {
                if newline {
                    self.save_field();
                    self.state = State::EatCrnl;
                } else if c == b',' {
                    self.save_field();
                    self.state = State::StartField;
                } else {
                    self.add(c)?;
                }
            }
            State::InQuotedField => {
                if c == b'"' {
                    self.state = State::QuoteInQuotedField;
                } else {
                    self.add(c)?;
                }
            }
            State::QuoteInQuotedField => {
                if c == b'"' {
                    self.add(c)?;
                    self.state = State::InQuotedField;
                } else if c == b',' {
                    self.save_field();
                    self.state = State::StartField;
                } else if newline {
                    self.save_field();
                    self.state = State::EatCrnl;
                } else {
                    self.add(c)?;
                    self.state = State::InField;
                }
            }
            State::EatCrnl => {
                if !newline {
                    // Unreachable with Python's line splitting; kept for its text.
                    return Err(CsvError {
                        message: "new-line character seen in unquoted field - do you need to open the file with newline=''?".to_string(),
                        line: self.line,
                    });
                }
            }
        }
        Ok(())
    }

    fn end_of_line(&mut self, row: &mut RowSink<'_>) {
        self.line += 1;
        self.line_has_chars = false;
        match self.state {
            State::StartRecord => self.emit(row),
            State::StartField | State::InField | State::QuoteInQuotedField => {
                self.save_field();
                self.state = State::StartRecord;
                self.emit(row);
            }
            State::EatCrnl => {
                self.state = State::StartRecord;
                self.emit(row);
            }
            State::InQuotedField => {}
        }
    }
}

/// The fields of one record as text.
fn fields<'b>(buf: &'b [u8], ends: &[usize]) -> Vec<std::borrow::Cow<'b, str>> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let bytes = &buf[start..end];
            start = end;
            String::from_utf8_lossy(bytes)
        })
        .collect()
}

/// One value of a `DictReader` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell<'r> {
    /// The field's text.
    Text(&'r str),
    /// `restval`: the row had fewer fields than the header.
    Missing,
}

/// `csv.DictReader` over the records of a [`CsvParser`].
#[derive(Debug, Default)]
pub struct DictRows {
    header: Option<Vec<String>>,
    /// Distinct header names, in order of first appearance (the dict's key order).
    keys: Vec<String>,
    /// For each header position, its index in `keys`.
    key_of: Vec<usize>,
    /// Data rows yielded so far.
    yielded: u64,
}

/// A row as `DictReader` yields it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictRow<'r> {
    /// The TUI's row number: data rows counted from 2.
    pub number: u64,
    /// (key, value) in the dict's order.
    pub cells: Vec<(&'r str, Cell<'r>)>,
    /// Fields beyond the header (`row[None]`), when there are any.
    pub extras: Option<Vec<&'r str>>,
}

impl DictRows {
    /// Takes one record from the parser; returns the row it yields, if any (the header
    /// and records without fields yield none).
    pub fn accept<'r>(
        &'r mut self,
        record: &'r [std::borrow::Cow<'r, str>],
    ) -> Option<DictRow<'r>> {
        let Some(header) = &self.header else {
            let header: Vec<String> = record.iter().map(|f| f.to_string()).collect();
            for name in &header {
                let index = match self.keys.iter().position(|k| k == name) {
                    Some(i) => i,
                    None => {
                        self.keys.push(name.clone());
                        self.keys.len() - 1
                    }
                };
                self.key_of.push(index);
            }
            self.header = Some(header);
            return None;
        };
        if record.is_empty() {
            return None;
        }
        self.yielded += 1;
        let (lf, lr) = (header.len(), record.len());
        let mut values: Vec<Cell<'r>> = vec![Cell::Missing; self.keys.len()];
        for (pos, field) in record.iter().enumerate().take(lf) {
            values[self.key_of[pos]] = Cell::Text(field);
        }
        // Then `d[key] = restval` for every header position past the record's end.
        for &key in self.key_of.iter().skip(lr) {
            values[key] = Cell::Missing;
        }
        let cells = self.keys.iter().map(String::as_str).zip(values).collect();
        let extras = (lr > lf).then(|| record[lf..].iter().map(|f| f.as_ref()).collect());
        Some(DictRow {
            number: self.yielded + 1,
            cells,
            extras,
        })
    }
}

/// Appends `s` as a JSON string literal.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as a JSON literal the tape reads back to the same value (Python's json
/// spellings for the non-finite ones).
pub fn push_json_float(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        // Debug prints the shortest text that reads back to the same float.
        out.push_str(&format!("{x:?}"));
    }
}

const NONE_TYPE_FLOAT: &str = "float() argument must be a string or a real number, not 'NoneType'";

/// `_normalize_csv_record` into JSON text. `metadata_text` receives the cell that
/// parsed as a JSON object (embedded verbatim) so the caller can retry without it.
fn normalize_row(
    row: &DictRow<'_>,
    scratch: &mut Tape,
    out: &mut String,
    metadata_as_written: bool,
) -> Result<(), String> {
    out.clear();
    out.push('{');
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !first {
            out.push_str(", ");
        }
        first = false;
    };
    for (key, cell) in &row.cells {
        sep(out);
        push_json_str(out, key);
        out.push_str(": ");
        let value = match cell {
            Cell::Text(raw) => {
                let v = py_strip(raw);
                if v.is_empty() {
                    out.push_str("null");
                    continue;
                }
                Some(v)
            }
            Cell::Missing => None,
        };
        if *key == "metadata" {
            match value {
                Some(text) if metadata_as_written && is_json_object(scratch, text) => {
                    out.push_str(text)
                }
                _ => out.push_str("{}"),
            }
        } else if INT_FIELDS.contains(key) {
            let Some(text) = value else {
                return Err(NONE_TYPE_FLOAT.to_string());
            };
            let digits = float_from_str(text)
                .and_then(int_digits_from_float)
                .map_err(|e| e.message().to_string())?;
            out.push_str(&digits);
        } else if FLOAT_FIELDS.contains(key) {
            let Some(text) = value else {
                return Err(NONE_TYPE_FLOAT.to_string());
            };
            let x = float_from_str(text).map_err(|e: PyError| e.message().to_string())?;
            push_json_float(out, x);
        } else {
            match value {
                Some(text) => push_json_str(out, text),
                None => out.push_str("null"),
            }
        }
    }
    if let Some(extras) = &row.extras {
        // `row[None]`: stormlog sees a field named "None" (`str(None)`).
        sep(out);
        out.push_str("\"None\": [");
        for (i, field) in extras.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_json_str(out, field);
        }
        out.push(']');
    }
    out.push('}');
    Ok(())
}

/// `json.loads(text)` gives a dict.
fn is_json_object(tape: &mut Tape, text: &str) -> bool {
    let bytes = text.as_bytes();
    match tape.parse_value(bytes, 0, true) {
        Ok(n) => skip_ws(bytes, n) == bytes.len() && matches!(tape.nodes[0], Node::Object { .. }),
        Err(_) => false,
    }
}

/// What a CSV file gave: its events (in file order) and the TUI's warnings.
#[derive(Debug, Default)]
pub struct CsvLoad {
    pub events: Vec<(Event, RecordExtras)>,
    pub warnings: Vec<LoadWarning>,
}

/// Where converted rows go: the load's strings and phase boundaries.
pub struct CsvTarget<'a> {
    pub strings: &'a mut Strings,
    pub sources: &'a mut Sources,
    pub phases: &'a mut Vec<PhaseBoundary>,
    /// `stable_legacy_session_id(resolved path, "csv")`.
    pub default_session_id: &'a str,
    /// The resolved path, as the TUI prints it in its warnings.
    pub resolved: &'a str,
}

/// Reads a CSV export from `input` (`_load_csv_sessions` up to grouping).
pub fn load_csv(input: &mut Input<'_>, target: &mut CsvTarget<'_>) -> Result<CsvLoad, LoadError> {
    let result = load_csv_inner(input, target);
    if result.is_err() {
        // Read on only to find an outranking UTF-8 error.
        let _ = input.drain();
    }
    if let Some(e) = input.take_utf8_error() {
        return Err(e);
    }
    result
}

fn load_csv_inner(input: &mut Input<'_>, target: &mut CsvTarget<'_>) -> Result<CsvLoad, LoadError> {
    let mut parser = CsvParser::default();
    let mut dict = DictRows::default();
    let mut out = CsvLoad::default();
    let mut tape = Tape::default();
    let mut scratch = Tape::default();
    let mut text = String::new();
    let mut cache = InternCache::default();
    let name = input.name().to_string();
    loop {
        let more = input.fill()?;
        let eof = !more || input.at_eof();
        let data = input.data();
        let consumed = data.len();
        let mut on_record = |buf: &[u8], ends: &[usize]| {
            let record = fields(buf, ends);
            let Some(row) = dict.accept(&record) else {
                return;
            };
            let number = row.number;
            let converted = convert_row(
                &row,
                &mut tape,
                &mut scratch,
                &mut text,
                &mut RecordSink {
                    strings: target.strings,
                    sources: target.sources,
                    phases: target.phases,
                    default_session_id: target.default_session_id,
                    default_collector: CSV_DEFAULT_COLLECTOR,
                    default_sampling_interval_ms: 0,
                    cache: &mut cache,
                },
            );
            match converted {
                Ok(pair) => out.events.push(pair),
                Err(message) => out.warnings.push(LoadWarning::new(
                    Some(&name),
                    Some(number),
                    format!("CSV parse error {}:{number}: {message}", target.resolved),
                )),
            }
        };
        let fed = parser.feed(data, eof, &mut on_record);
        input.consume(consumed);
        if let Err(e) = fed {
            let mut err = LoadError::new(LoadErrorKind::Syntax, &name, e.message);
            err.line = Some(e.line);
            return Err(err);
        }
        if eof {
            return Ok(out);
        }
    }
}

/// Normalizes one row and converts it; `Err` is the text the TUI's warning prints.
fn convert_row(
    row: &DictRow<'_>,
    tape: &mut Tape,
    scratch: &mut Tape,
    text: &mut String,
    sink: &mut RecordSink<'_>,
) -> Result<(Event, RecordExtras), String> {
    normalize_row(row, scratch, text, true)?;
    if tape.parse_value(text.as_bytes(), 0, true).is_err() {
        // Only nesting deeper than the tape takes can fail here: read the metadata as {}.
        normalize_row(row, scratch, text, false)?;
        if tape.parse_value(text.as_bytes(), 0, true).is_err() {
            return Err("the row cannot be represented".to_string());
        }
    }
    convert_record(tape, sink).map_err(|e| e.python_message().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `list(csv.reader(io.StringIO(text, newline="")))`.
    fn records(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
        records_in_chunks(text, usize::MAX)
    }

    fn records_in_chunks(text: &str, chunk: usize) -> Result<Vec<Vec<String>>, CsvError> {
        let mut parser = CsvParser::default();
        let mut rows = Vec::new();
        let bytes = text.as_bytes();
        let mut pos: usize = 0;
        loop {
            let end = pos.saturating_add(chunk).min(bytes.len());
            let eof = end == bytes.len();
            parser.feed(&bytes[pos..end], eof, &mut |buf, ends| {
                rows.push(
                    fields(buf, ends)
                        .into_iter()
                        .map(|f| f.into_owned())
                        .collect(),
                );
            })?;
            pos = end;
            if eof {
                return Ok(rows);
            }
        }
    }

    /// One `DictReader` row: (key, value) in order.
    type Cells = Vec<(String, Option<String>)>;

    /// Python's `[dict(r) for r in csv.DictReader(...)]` with the row numbers.
    fn dict_rows(text: &str) -> Vec<(u64, Cells)> {
        let mut dict = DictRows::default();
        let mut out = Vec::new();
        for record in records(text).unwrap_or_else(|e| panic!("{e:?}")) {
            let record: Vec<std::borrow::Cow<'_, str>> =
                record.into_iter().map(Into::into).collect();
            if let Some(row) = dict.accept(&record) {
                let mut cells: Cells = row
                    .cells
                    .iter()
                    .map(|(k, v)| {
                        let v = match v {
                            Cell::Text(t) => Some(t.to_string()),
                            Cell::Missing => None,
                        };
                        (k.to_string(), v)
                    })
                    .collect();
                if let Some(extras) = &row.extras {
                    cells.push(("<None>".to_string(), Some(extras.join("|"))));
                }
                out.push((row.number, cells));
            }
        }
        out
    }

    fn row(cells: &[(&str, Option<&str>)]) -> Cells {
        cells
            .iter()
            .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
            .collect()
    }

    fn strs(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    // Expected values were printed by CPython 3.11's csv module.
    #[test]
    fn reader_quirks_match_python() {
        assert_eq!(records("a,b\n1,2\n"), Ok(strs(&[&["a", "b"], &["1", "2"]])));
        assert_eq!(
            records("a,b\r\n1,2\r\n\r\n3\n"),
            Ok(strs(&[&["a", "b"], &["1", "2"], &[], &["3"]]))
        );
        // A lone \r ends a record; quoted fields keep \r\n.
        assert_eq!(
            records("a,b\r1,\"x\r\ny\"\r"),
            Ok(strs(&[&["a", "b"], &["1", "x\r\ny"]]))
        );
        // Non-strict quotes.
        assert_eq!(records("1,x\"y\"z\n"), Ok(strs(&[&["1", "x\"y\"z"]])));
        assert_eq!(records("\"ab\"cd,2\n"), Ok(strs(&[&["abcd", "2"]])));
        assert_eq!(records(" \"\"  ,2\n"), Ok(strs(&[&[" \"\"  ", "2"]])));
        assert_eq!(records("\"a\"\"b\",2\n"), Ok(strs(&[&["a\"b", "2"]])));
        // Empty fields, a last line without terminator, NUL as a plain character.
        assert_eq!(
            records(",\n1,\u{0}2"),
            Ok(strs(&[&["", ""], &["1", "\u{0}2"]]))
        );
        // An unterminated quote keeps everything up to the end.
        assert_eq!(
            records("a\n\"unterminated\nmore"),
            Ok(strs(&[&["a"], &["unterminated\nmore"]]))
        );
        assert_eq!(records(""), Ok(Vec::new()));
        assert_eq!(records("\n"), Ok(strs(&[&[]])));
        assert_eq!(records("\"\""), Ok(strs(&[&[""]])));
    }

    #[test]
    fn chunk_boundaries_do_not_change_records() {
        let text = "a,b\r\n1,\"x\r\ny\"\r\r\n\"q\"\"\",é\r2,3\n\"open";
        let whole = records(text);
        for chunk in 1..8 {
            assert_eq!(records_in_chunks(text, chunk), whole, "chunk {chunk}");
        }
    }

    #[test]
    fn the_field_size_limit_counts_characters() {
        let ok = format!("a\n\"{}\"\n", "é".repeat(FIELD_SIZE_LIMIT));
        assert!(records(&ok).is_ok());
        let too_long = format!("a\n{}\n", "x".repeat(FIELD_SIZE_LIMIT + 1));
        assert_eq!(
            records(&too_long),
            Err(CsvError {
                message: "field larger than field limit (131072)".to_string(),
                line: 2
            })
        );
    }

    #[test]
    fn dict_reader_rules_match_python() {
        assert_eq!(
            dict_rows("a,b\n1,2\n\n\n3\n"),
            vec![
                (2, row(&[("a", Some("1")), ("b", Some("2"))])),
                (3, row(&[("a", Some("3")), ("b", None)])),
            ]
        );
        // A repeated name: first position, last value; a short row sets it to None.
        assert_eq!(
            dict_rows("a,b,a\n1,2,3\n1,2\n"),
            vec![
                (2, row(&[("a", Some("3")), ("b", Some("2"))])),
                (3, row(&[("a", None), ("b", Some("2"))])),
            ]
        );
        assert_eq!(
            dict_rows("a,b\n1,2,3,4\n"),
            vec![(
                2,
                row(&[("a", Some("1")), ("b", Some("2")), ("<None>", Some("3|4"))])
            )]
        );
        // An empty first line is an empty header: every field is surplus.
        assert_eq!(
            dict_rows("\na,b\n"),
            vec![(2, row(&[("<None>", Some("a|b"))]))]
        );
        // The BOM stays in the first name.
        assert_eq!(
            dict_rows("\u{feff}a,b\n1,2\n"),
            vec![(2, row(&[("\u{feff}a", Some("1")), ("b", Some("2"))]))]
        );
    }

    fn normalized(header: &str, line: &str) -> Result<String, String> {
        let text = format!("{header}\n{line}\n");
        let recs = records(&text).unwrap_or_else(|e| panic!("{e:?}"));
        let mut dict = DictRows::default();
        let mut out = Err("no row".to_string());
        for record in recs {
            let record: Vec<std::borrow::Cow<'_, str>> =
                record.into_iter().map(Into::into).collect();
            if let Some(row) = dict.accept(&record) {
                let mut s = String::new();
                out = normalize_row(&row, &mut Tape::default(), &mut s, true).map(|()| s);
            }
        }
        out
    }

    #[test]
    fn rows_are_normalized_like_the_tui() {
        assert_eq!(
            normalized(
                "rank,timestamp,host,metadata",
                " 4.0 ,1.5, h ,{'backend': 'cuda'}"
            ),
            Ok(r#"{"rank": 4, "timestamp": 1.5, "host": "h", "metadata": {}}"#.to_string())
        );
        assert_eq!(
            normalized("timestamp_ns,metadata,x", "1.7e+18,\"{\"\"a\"\": [1]}\","),
            Ok(
                r#"{"timestamp_ns": 1700000000000000000, "metadata": {"a": [1]}, "x": null}"#
                    .to_string()
            )
        );
        assert_eq!(
            normalized("timestamp_ns,metadata", "1700000001525000000,[1]"),
            Ok(r#"{"timestamp_ns": 1700000001524999936, "metadata": {}}"#.to_string())
        );
        assert_eq!(
            normalized("timestamp,rank", "nan,1"),
            Ok(r#"{"timestamp": NaN, "rank": 1}"#.to_string())
        );
        assert_eq!(
            normalized("rank,pid", "x,1"),
            Err("could not convert string to float: 'x'".to_string())
        );
        assert_eq!(
            normalized("rank,pid", "nan,1"),
            Err("cannot convert float NaN to integer".to_string())
        );
        assert_eq!(
            normalized("rank,pid", "-inf,1"),
            Err("cannot convert float infinity to integer".to_string())
        );
        // A short row: the missing int field fails on float(None); metadata becomes {}.
        assert_eq!(
            normalized("host,metadata,pid", "h"),
            Err(NONE_TYPE_FLOAT.to_string())
        );
        assert_eq!(
            normalized("host,metadata", "h"),
            Ok(r#"{"host": "h", "metadata": {}}"#.to_string())
        );
        assert_eq!(
            normalized("a", "1,2"),
            Ok(r#"{"a": "1", "None": ["2"]}"#.to_string())
        );
    }
}

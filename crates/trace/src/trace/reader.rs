//! Streaming input: reads any `std::io::Read` in 1 MiB chunks, decompresses gzip
//! (sniffed by its magic bytes), checks UTF-8 as Python's decoder would, and keeps
//! enough accounting to report line and column of an error in a file it no longer
//! holds. Only the unconsumed tail (usually < 1 record) is kept between chunks.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use super::error::{LoadError, LoadErrorKind};

/// Bytes read from the source per chunk.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Counts bytes read from the raw (possibly compressed) source, for progress.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Progress callback: raw bytes read so far.
pub type ProgressFn<'a> = Box<dyn FnMut(u64) + 'a>;

/// A chunked, UTF-8-checked view of one input file.
pub struct Input<'a> {
    name: String,
    inner: Box<dyn Read + 'a>,
    raw_count: Rc<Cell<u64>>,
    progress: Option<ProgressFn<'a>>,
    buf: Vec<u8>,
    /// First unconsumed byte.
    start: usize,
    /// End of the UTF-8-checked bytes handed to parsers.
    end: usize,
    /// End of the bytes read (`end..raw_end` is an incomplete UTF-8 sequence).
    raw_end: usize,
    /// No more bytes will come (source exhausted, or a UTF-8 error stopped reading).
    eof: bool,
    utf8_error: Option<LoadError>,
    // Accounting for the bytes discarded before buf[0].
    base_offset: u64,
    base_lines: u64,
    base_chars: u64,
    base_col_chars: u64,
}

fn is_char_start(b: u8) -> bool {
    (b as i8) >= -0x40 // not a continuation byte 0x80..=0xBF
}

/// Counts of a slice of valid UTF-8: newlines, characters, and the characters
/// after the last newline (`None` without a newline). Eight bytes at a time.
fn line_stats(bytes: &[u8]) -> (u64, u64, Option<u64>) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut lines = 0u64;
    let mut continuation = 0u64;
    let mut last_newline: Option<usize> = None;
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder();
    for (i, chunk) in chunks.enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // Continuation bytes are 10xxxxxx: bit 7 set, bit 6 clear.
        continuation += u64::from((x & !(x << 1) & HIGH).count_ones());
        // Exact zero-byte detection on x ^ '\n'.
        let y = x ^ NEWLINES;
        let zero = !(((y & LOW7) + LOW7) | y | LOW7);
        if zero != 0 {
            lines += u64::from(zero.count_ones());
            last_newline = Some(i * 8 + 7 - (zero.leading_zeros() as usize) / 8);
        }
    }
    let base = bytes.len() - tail.len();
    for (j, &b) in tail.iter().enumerate() {
        if b == b'\n' {
            lines += 1;
            last_newline = Some(base + j);
        }
        continuation += u64::from(!is_char_start(b));
    }
    let chars = bytes.len() as u64 - continuation;
    let after = last_newline.map(|nl| count_chars(&bytes[nl + 1..]));
    (lines, chars, after)
}

/// Characters in valid UTF-8: bytes that are not continuation bytes.
fn count_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| is_char_start(b)).count() as u64
}

impl<'a> Input<'a> {
    /// Wraps `source`. Gzip is detected from the first two bytes.
    pub fn new(
        name: &str,
        source: Box<dyn Read + 'a>,
        progress: Option<ProgressFn<'a>>,
    ) -> Result<Input<'a>, LoadError> {
        let raw_count = Rc::new(Cell::new(0));
        let mut counted = Counting {
            inner: source,
            count: raw_count.clone(),
        };
        let mut head = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            match counted.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(LoadError::new(
                        LoadErrorKind::Io,
                        name,
                        format!("cannot read: {e}"),
                    ))
                }
            }
        }
        let head_reader = io::Cursor::new(head[..got].to_vec());
        let chained = head_reader.chain(counted);
        let inner: Box<dyn Read + 'a> = if got == 2 && head == [0x1f, 0x8b] {
            Box::new(flate2::read::MultiGzDecoder::new(chained))
        } else {
            Box::new(chained)
        };
        Ok(Input {
            name: name.to_string(),
            inner,
            raw_count,
            progress,
            buf: vec![0; CHUNK_BYTES],
            start: 0,
            end: 0,
            raw_end: 0,
            eof: false,
            utf8_error: None,
            base_offset: 0,
            base_lines: 0,
            base_chars: 0,
            base_col_chars: 0,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The unconsumed, UTF-8-checked bytes.
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Marks `n` bytes of [`Input::data`] as consumed.
    #[inline]
    pub fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// True once no more bytes will arrive: [`Input::data`] is all there is.
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// Absolute offset (in decompressed bytes) of `data()[0]`.
    pub fn offset(&self) -> u64 {
        self.base_offset + self.start as u64
    }

    /// Reads at least one more chunk. Returns `Ok(false)` at end of input.
    /// A UTF-8 error ends the input (the error is kept for [`Input::take_utf8_error`]).
    pub fn fill(&mut self) -> Result<bool, LoadError> {
        if self.eof {
            return Ok(false);
        }
        self.compact();
        loop {
            if self.buf.len() - self.raw_end < CHUNK_BYTES / 2 {
                let new_len = (self.buf.len() * 2).max(self.raw_end + CHUNK_BYTES);
                self.buf.resize(new_len, 0);
            }
            let read = loop {
                match self.inner.read(&mut self.buf[self.raw_end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let kind = if e.kind() == io::ErrorKind::InvalidInput
                            || e.kind() == io::ErrorKind::InvalidData
                        {
                            LoadErrorKind::Gzip
                        } else {
                            LoadErrorKind::Io
                        };
                        let message = match kind {
                            LoadErrorKind::Gzip => format!("not a valid gzip stream: {e}"),
                            _ => format!("cannot read: {e}"),
                        };
                        return Err(LoadError::new(kind, &self.name, message));
                    }
                }
            };
            if let Some(progress) = self.progress.as_mut() {
                progress(self.raw_count.get());
            }
            if read == 0 {
                self.eof = true;
                if self.raw_end > self.end {
                    let offset = self.base_offset + self.end as u64;
                    self.utf8_error = Some(self.utf8_error_at(offset, "unexpected end of data"));
                }
                return Ok(false);
            }
            self.raw_end += read;
            // The fast check first; std's tells where a bad sequence starts.
            let fresh = &self.buf[self.end..self.raw_end];
            let checked = match simdutf8::basic::from_utf8(fresh) {
                Ok(_) => Ok(()),
                Err(_) => std::str::from_utf8(fresh).map(|_| ()),
            };
            match checked {
                Ok(_) => {
                    self.end = self.raw_end;
                    return Ok(true);
                }
                Err(e) => {
                    let valid_end = self.end + e.valid_up_to();
                    if e.error_len().is_some() {
                        let offset = self.base_offset + valid_end as u64;
                        let byte = self.buf[valid_end];
                        self.utf8_error =
                            Some(self.utf8_error_at(offset, &format!("invalid byte 0x{byte:02x}")));
                        self.end = valid_end;
                        self.eof = true;
                        return Ok(true);
                    }
                    let progressed = valid_end > self.end;
                    self.end = valid_end;
                    if progressed {
                        return Ok(true);
                    }
                    // Only part of one character arrived: read again.
                }
            }
        }
    }

    fn utf8_error_at(&self, offset: u64, what: &str) -> LoadError {
        let mut err = LoadError::new(
            LoadErrorKind::Utf8,
            &self.name,
            format!("the file is not valid UTF-8: {what} at byte {offset}"),
        );
        err.line = self.line_of(offset);
        err
    }

    /// A UTF-8 error found while reading, if any. Python decodes the whole file
    /// before parsing, so this error outranks every other.
    pub fn take_utf8_error(&mut self) -> Option<LoadError> {
        self.utf8_error.take()
    }

    /// Reads the rest of the input only to find a UTF-8 error.
    pub fn drain(&mut self) -> Result<(), LoadError> {
        loop {
            let n = self.end - self.start;
            self.consume(n);
            if !self.fill()? {
                return Ok(());
            }
        }
    }

    fn compact(&mut self) {
        if self.start == 0 {
            return;
        }
        let (lines, chars, after_newline) = line_stats(&self.buf[..self.start]);
        self.base_chars += chars;
        match after_newline {
            Some(col) => self.base_col_chars = col,
            None => self.base_col_chars += chars,
        }
        self.base_lines += lines;
        self.base_offset += self.start as u64;
        self.buf.copy_within(self.start..self.raw_end, 0);
        self.end -= self.start;
        self.raw_end -= self.start;
        self.start = 0;
    }

    /// (1-based line, 1-based column in characters, 0-based character index) of an
    /// absolute offset still held in the buffer.
    pub fn position(&self, offset: u64) -> Option<(u64, u64, u64)> {
        if offset < self.base_offset {
            return None;
        }
        let rel = usize::try_from(offset - self.base_offset)
            .ok()?
            .min(self.raw_end);
        let held = &self.buf[..rel];
        let mut lines = self.base_lines;
        let mut col = self.base_col_chars;
        let mut chars = self.base_chars;
        for &b in held {
            if b == b'\n' {
                lines += 1;
                col = 0;
            } else if is_char_start(b) {
                col += 1;
            }
            chars += u64::from(is_char_start(b));
        }
        Some((lines + 1, col + 1, chars))
    }

    /// 1-based line of an absolute offset still held in the buffer.
    pub fn line_of(&self, offset: u64) -> Option<u64> {
        self.position(offset).map(|(line, _, _)| line)
    }

    /// A syntax error at absolute `offset`, worded like Python's `JSONDecodeError`
    /// ("Expecting value: line 1 column 1 (char 0)").
    pub fn syntax_error(&self, offset: u64, message: &str) -> LoadError {
        let mut err = LoadError::new(LoadErrorKind::Syntax, &self.name, message);
        if let Some((line, column, chars)) = self.position(offset) {
            err.message = format!("{message}: line {line} column {column} (char {chars})");
            err.line = Some(line);
            err.column = Some(u32::try_from(column).unwrap_or(u32::MAX));
        }
        err
    }
}

#[cfg(test)]
mod tests {
    use super::line_stats;

    #[test]
    fn line_stats_count_lines_chars_and_the_last_column() {
        let naive = |b: &[u8]| {
            let text = std::str::from_utf8(b).unwrap_or_default();
            let lines = text.matches('\n').count() as u64;
            let chars = text.chars().count() as u64;
            let after = text
                .rfind('\n')
                .map(|i| text[i + 1..].chars().count() as u64);
            (lines, chars, after)
        };
        for text in [
            "",
            "abc",
            "a\nb",
            "héllo\nwörld\n",
            "0123456789\n0123456789é\nxyz",
            "\n\n\n\n\n\n\n\n\n",
        ] {
            assert_eq!(
                line_stats(text.as_bytes()),
                naive(text.as_bytes()),
                "{text:?}"
            );
        }
        let long = "ab\u{e9}c\nde\u{1F600}\n".repeat(37);
        assert_eq!(line_stats(long.as_bytes()), naive(long.as_bytes()));
    }
}

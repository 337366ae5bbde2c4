//! The recursive-descent parser that writes one JSON value into a [`Tape`], with
//! Python's `json` rules and error wording.

use super::*;

pub(super) struct Parser<'s, 't> {
    pub(super) src: &'s [u8],
    pub(super) tape: &'t mut Tape,
    pub(super) eof: bool,
    /// Offset of the value's first byte: string nodes are relative to it.
    pub(super) base: usize,
}

pub(super) fn syntax(offset: usize, message: &'static str) -> ParseError {
    ParseError::Syntax { offset, message }
}

impl Parser<'_, '_> {
    /// The input ended at `offset`: ask for more, or (at end of file) fail with `message`.
    #[inline]
    pub(super) fn ended(&self, offset: usize, message: &'static str) -> ParseError {
        if self.eof {
            syntax(offset, message)
        } else {
            ParseError::Incomplete
        }
    }

    /// Parses a value at `pos` (whitespace already skipped).
    pub(super) fn value(&mut self, pos: usize, depth: usize) -> Result<usize, ParseError> {
        let src = self.src;
        let Some(&b) = src.get(pos) else {
            return Err(self.ended(pos, "Expecting value"));
        };
        match b {
            b'{' => self.object(pos, depth),
            b'[' => self.array(pos, depth),
            b'"' => {
                let (start, len, next) = self.string(pos)?;
                self.tape.nodes.push(Node::Str { start, len });
                Ok(next)
            }
            b'n' => self.literal(pos, b"null", Node::Null),
            b't' => self.literal(pos, b"true", Node::Bool(true)),
            b'f' => self.literal(pos, b"false", Node::Bool(false)),
            b'N' => self.literal(pos, b"NaN", Node::Float(f64::NAN)),
            b'I' => self.literal(pos, b"Infinity", Node::Float(f64::INFINITY)),
            b'-' if src.get(pos + 1) == Some(&b'I') => {
                self.literal(pos, b"-Infinity", Node::Float(f64::NEG_INFINITY))
            }
            b'-' | b'0'..=b'9' => self.number(pos),
            _ => Err(syntax(pos, "Expecting value")),
        }
    }

    pub(super) fn literal(
        &mut self,
        pos: usize,
        word: &[u8],
        node: Node,
    ) -> Result<usize, ParseError> {
        let avail = &self.src[pos..];
        if avail.len() < word.len() {
            if word.starts_with(avail) {
                return Err(self.ended(pos, "Expecting value"));
            }
            return Err(syntax(pos, "Expecting value"));
        }
        if &avail[..word.len()] != word {
            return Err(syntax(pos, "Expecting value"));
        }
        self.tape.nodes.push(node);
        Ok(pos + word.len())
    }

    pub(super) fn number(&mut self, pos: usize) -> Result<usize, ParseError> {
        let src = self.src;
        let mut i = pos;
        let negative = src[i] == b'-';
        if negative {
            i += 1;
        }
        // Integer part: 0 | [1-9][0-9]*, accumulated while scanning. Up to 18
        // digits cannot overflow; longer literals take the checked path below.
        let mut small: Option<u64> = Some(0);
        match src.get(i) {
            None => return Err(self.ended(pos, "Expecting value")),
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                let first = i;
                let mut v: u64 = 0;
                // Eight digits at a time while they last (timestamps have 19,
                // byte counts 10 to 12); wrapping is harmless, see `small`.
                while let Some(eight) = src.get(i..i + 8).and_then(eight_digits) {
                    v = v.wrapping_mul(100_000_000).wrapping_add(eight);
                    i += 8;
                }
                while let Some(&b) = src.get(i) {
                    let d = b.wrapping_sub(b'0');
                    if d > 9 {
                        break;
                    }
                    v = v.wrapping_mul(10).wrapping_add(u64::from(d));
                    i += 1;
                }
                // Up to 19 digits the u64 is exact (10^19 - 1 < 2^64).
                small = (i - first <= 19).then_some(v);
            }
            Some(_) => return Err(syntax(pos, "Expecting value")),
        }
        let int_end = i;
        let mut is_float = false;
        // Fraction: '.' digits+ (Python's regex backs off to the integer when no digit follows).
        if i < src.len() && src[i] == b'.' {
            match src.get(i + 1) {
                None if !self.eof => return Err(ParseError::Incomplete),
                Some(d) if d.is_ascii_digit() => {
                    i += 2;
                    while i < src.len() && src[i].is_ascii_digit() {
                        i += 1;
                    }
                    is_float = true;
                }
                _ => {}
            }
        }
        // Exponent: [eE][-+]?digits+ (likewise optional as a whole).
        if i < src.len() && (src[i] == b'e' || src[i] == b'E') {
            let mut j = i + 1;
            if j < src.len() && (src[j] == b'+' || src[j] == b'-') {
                j += 1;
            }
            match src.get(j) {
                None if !self.eof => return Err(ParseError::Incomplete),
                Some(d) if d.is_ascii_digit() => {
                    while j < src.len() && src[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                    is_float = true;
                }
                _ => {}
            }
        }
        // A number touching the end of the slice may continue in the next chunk.
        if i >= src.len() && !self.eof {
            return Err(ParseError::Incomplete);
        }
        if is_float {
            // Digits, sign, '.', 'e' only: always ASCII, and Rust's parse is correctly rounded.
            let text = &src[pos..i];
            let v: f64 = std::str::from_utf8(text)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| syntax(pos, "Expecting value"))?;
            self.tape.nodes.push(Node::Float(v));
        } else if let Some(v) = small.filter(|&v| v <= i64::MAX as u64) {
            let v = v as i64;
            self.tape
                .nodes
                .push(Node::Int(if negative { -v } else { v }));
        } else {
            let digits = &src[if negative { pos + 1 } else { pos }..int_end];
            let node = match parse_int(digits, negative) {
                Some(v) => Node::Int(v),
                None => Node::BigInt {
                    start: (pos - self.base) as u32,
                    len: (int_end - pos) as u32,
                },
            };
            self.tape.nodes.push(node);
        }
        Ok(i)
    }

    /// Parses a string starting at the opening quote; returns (start, len, next offset)
    /// for its node: source-relative, or flagged [`ESCAPED`] when it had escapes.
    pub(super) fn string(&mut self, pos: usize) -> Result<(u32, u32, usize), ParseError> {
        let src = self.src;
        let mut i = string_stop(src, pos + 1);
        match src.get(i) {
            Some(b'"') => {
                let start = (pos + 1 - self.base) as u32;
                return Ok((start, (i - pos - 1) as u32, i + 1));
            }
            Some(b'\\') => {}
            Some(_) => return Err(syntax(i, "Invalid control character at")),
            None => return Err(self.ended(pos, "Unterminated string starting at")),
        }
        // Slow path: decode escapes into the escaped area.
        let start = self.tape.escaped.len();
        self.tape.escaped.extend_from_slice(&src[pos + 1..i]);
        loop {
            let Some(&b) = src.get(i) else {
                return Err(self.ended(pos, "Unterminated string starting at"));
            };
            match b {
                b'"' => {
                    let len = (self.tape.escaped.len() - start) as u32;
                    return Ok((start as u32 | ESCAPED, len, i + 1));
                }
                b'\\' => {
                    i = self.escape(pos, i)?;
                }
                _ if b < 0x20 => return Err(syntax(i, "Invalid control character at")),
                _ => {
                    let run_start = i;
                    i = string_stop(src, i);
                    self.tape.escaped.extend_from_slice(&src[run_start..i]);
                }
            }
        }
    }

    /// Decodes one escape at `pos` (the backslash) of the string opened at `open`;
    /// returns the offset after it.
    pub(super) fn escape(&mut self, open: usize, pos: usize) -> Result<usize, ParseError> {
        let src = self.src;
        let Some(&c) = src.get(pos + 1) else {
            return Err(self.ended(open, "Unterminated string starting at"));
        };
        let simple = match c {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return Err(syntax(pos, "Invalid \\escape")),
        };
        if let Some(byte) = simple {
            self.tape.escaped.push(byte);
            return Ok(pos + 2);
        }
        let first = match hex4(src, pos + 2) {
            Hex::Value(v) => v,
            Hex::Short if !self.eof => return Err(ParseError::Incomplete),
            _ => return Err(syntax(pos + 1, "Invalid \\uXXXX escape")),
        };
        let mut next = pos + 6;
        let mut code = first;
        if (0xD800..0xDC00).contains(&first) && src.get(next) == Some(&b'\\') {
            match src.get(next + 1) {
                None if !self.eof => return Err(ParseError::Incomplete),
                Some(b'u') => match hex4(src, next + 2) {
                    Hex::Value(second) => {
                        if (0xDC00..0xE000).contains(&second) {
                            code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                            next += 6;
                        }
                    }
                    Hex::Short if !self.eof => return Err(ParseError::Incomplete),
                    _ => return Err(syntax(next + 1, "Invalid \\uXXXX escape")),
                },
                _ => {}
            }
        }
        // Lone surrogates are legal in Python strings but not in Rust ones.
        let ch = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
        let mut buf = [0u8; 4];
        self.tape
            .escaped
            .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(next)
    }

    pub(super) fn array(&mut self, pos: usize, depth: usize) -> Result<usize, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(syntax(pos, "Nesting too deep"));
        }
        let src = self.src;
        let me = self.tape.nodes.len();
        self.tape.nodes.push(Node::Array { end: 0 });
        let mut i = skip_ws(src, pos + 1);
        match src.get(i) {
            None => return Err(self.ended(i, "Expecting value")),
            Some(b']') => {
                self.close(me);
                return Ok(i + 1);
            }
            Some(_) => {}
        }
        loop {
            i = self.value(i, depth + 1)?;
            i = skip_ws(src, i);
            match src.get(i) {
                None => return Err(self.ended(i, "Expecting ',' delimiter")),
                Some(b']') => {
                    self.close(me);
                    return Ok(i + 1);
                }
                Some(b',') => i = skip_ws(src, i + 1),
                Some(_) => return Err(syntax(i, "Expecting ',' delimiter")),
            }
        }
    }

    pub(super) fn object(&mut self, pos: usize, depth: usize) -> Result<usize, ParseError> {
        const NAME: &str = "Expecting property name enclosed in double quotes";
        if depth >= MAX_DEPTH {
            return Err(syntax(pos, "Nesting too deep"));
        }
        let src = self.src;
        let me = self.tape.nodes.len();
        self.tape.nodes.push(Node::Object { end: 0 });
        let mut i = skip_ws(src, pos + 1);
        match src.get(i) {
            None => return Err(self.ended(i, NAME)),
            Some(b'}') => {
                self.close(me);
                return Ok(i + 1);
            }
            Some(b'"') => {}
            Some(_) => return Err(syntax(i, NAME)),
        }
        loop {
            let (start, len, next) = self.string(i)?;
            self.tape.nodes.push(Node::Key { start, len });
            i = skip_ws(src, next);
            match src.get(i) {
                None => return Err(self.ended(i, "Expecting ':' delimiter")),
                Some(b':') => {}
                Some(_) => return Err(syntax(i, "Expecting ':' delimiter")),
            }
            i = skip_ws(src, i + 1);
            i = self.value(i, depth + 1)?;
            i = skip_ws(src, i);
            match src.get(i) {
                None => return Err(self.ended(i, "Expecting ',' delimiter")),
                Some(b'}') => {
                    self.close(me);
                    return Ok(i + 1);
                }
                Some(b',') => {
                    i = skip_ws(src, i + 1);
                    match src.get(i) {
                        None => return Err(self.ended(i, NAME)),
                        Some(b'"') => {}
                        Some(_) => return Err(syntax(i, NAME)),
                    }
                }
                Some(_) => return Err(syntax(i, "Expecting ',' delimiter")),
            }
        }
    }

    pub(super) fn close(&mut self, idx: usize) {
        let end = self.tape.nodes.len() as u32;
        if let Node::Array { end: e } | Node::Object { end: e } = &mut self.tape.nodes[idx] {
            *e = end;
        }
    }
}

pub(super) enum Hex {
    Value(u32),
    /// The input ends before four digits (all present ones were hex digits).
    Short,
    Invalid,
}

/// Reads four hex digits at `pos`.
pub(super) fn hex4(src: &[u8], pos: usize) -> Hex {
    let avail = &src[pos.min(src.len())..];
    let mut v = 0u32;
    for i in 0..4 {
        let Some(&b) = avail.get(i) else {
            return Hex::Short;
        };
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Hex::Invalid,
        };
        v = v * 16 + d as u32;
    }
    Hex::Value(v)
}

/// Integer literal digits (no sign) to an `i64`, or `None` when out of range.
pub(super) fn parse_int(digits: &[u8], negative: bool) -> Option<i64> {
    let mut v: i64 = 0;
    for &d in digits {
        let digit = (d - b'0') as i64;
        let next = v.checked_mul(10).and_then(|x| {
            if negative {
                x.checked_sub(digit)
            } else {
                x.checked_add(digit)
            }
        });
        v = next?;
    }
    Some(v)
}

//! A small, fast JSON parser with Python's `json` module semantics.
//!
//! Why not serde_json: stormlog writes its files with Python's `json.dump`, which
//! emits `NaN`/`Infinity`/`-Infinity`, keeps integers and floats apart (`1` vs `1.0`),
//! lets a repeated key overwrite the earlier one, and reports errors with its own
//! wording. This parser reproduces those rules and writes one record into a flat,
//! reusable [`Tape`] (no allocation per record once warmed up), which the record
//! converter reads by node index.
//!
//! The parser works on an in-memory slice that may end in the middle of a value:
//! it then answers [`ParseError::Incomplete`] and the caller reads more input and
//! tries again from the same start (records are small, so a retry is cheap).
//!
//! A tape remembers the layouts of the last objects it parsed ([`shape`]) and parses
//! an object laid out like one of them by checking its bytes against that layout.

mod parser;
mod shape;

use parser::*;

use shape::Shapes;

/// One node of a parsed value. Containers are followed by their children and
/// store the index one past their last descendant, so siblings can be skipped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// An integer literal that fits in `i64`.
    Int(i64),
    /// An integer literal outside the `i64` range (Python keeps it exactly). Its
    /// text, sign included, is `text[start..start + len]`; see [`Tape::big_int`].
    BigInt {
        start: u32,
        len: u32,
    },
    /// A literal with a fraction or exponent, or `NaN`/`Infinity`/`-Infinity`.
    Float(f64),
    /// A string value; bytes are `text[start..start + len]` of the tape.
    Str {
        start: u32,
        len: u32,
    },
    /// An object key; bytes as for `Str`. Always followed by its value.
    Key {
        start: u32,
        len: u32,
    },
    /// An array whose elements follow; `end` is the index after its last descendant.
    Array {
        end: u32,
    },
    /// An object whose key/value pairs follow; `end` as for arrays.
    Object {
        end: u32,
    },
}

/// A parsed value: nodes plus the text of its strings and keys. `text` is a copy
/// of the parsed source bytes (one copy per value, not one per string); strings
/// with escapes are decoded into `escaped`, and their node's `start` carries
/// [`ESCAPED`].
#[derive(Debug, Default, Clone)]
pub struct Tape {
    pub nodes: Vec<Node>,
    pub text: Vec<u8>,
    pub escaped: Vec<u8>,
    /// The layouts of the last objects parsed.
    shapes: Shapes,
    /// The id of the layout the current nodes have (0: none); see [`Tape::shape_id`].
    shape_id: u64,
}

/// Flag in a string node's `start`: the bytes live in [`Tape::escaped`].
pub const ESCAPED: u32 = 1 << 31;

/// Why a parse stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseError {
    /// The slice ended before the value did: read more input and try again.
    Incomplete,
    /// A syntax error at byte `offset` of the slice, with Python's message text
    /// (`Expecting ',' delimiter`, `Expecting value`, ...).
    Syntax {
        offset: usize,
        message: &'static str,
    },
}

/// Nesting deeper than this is rejected instead of risking the stack.
pub const MAX_DEPTH: usize = 256;

const WS: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

/// Bytes that end the fast path of a string scan: quote, backslash, control chars.
const STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// High bit set in each byte of `y` that is zero (exact, no false positives).
#[inline(always)]
fn zero_bytes(y: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((y & LOW7) + LOW7) | y | LOW7)
}

/// Index of the first byte at or after `i` that ends the fast path of a string:
/// `"`, `\\` or a control character. Eight bytes at a time.
#[inline]
fn string_stop(src: &[u8], mut i: usize) -> usize {
    const QUOTES: u64 = 0x2222_2222_2222_2222;
    const BACKSLASHES: u64 = 0x5c5c_5c5c_5c5c_5c5c;
    const CONTROL: u64 = 0xe0e0_e0e0_e0e0_e0e0;
    while let Some(chunk) = src.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let hits = zero_bytes(x ^ QUOTES) | zero_bytes(x ^ BACKSLASHES) | zero_bytes(x & CONTROL);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < src.len() && !STRING_STOP[src[i] as usize] {
        i += 1;
    }
    i
}

/// The value of eight ASCII digits, or `None` when one of the bytes is not a digit
/// (the SWAR method: each step combines neighbouring lanes).
#[inline(always)]
fn eight_digits(bytes: &[u8]) -> Option<u64> {
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes.get(..8)?);
    let x = u64::from_le_bytes(word);
    // Every byte is 0x30..=0x39: high nibble 3, and adding 6 does not carry out of it.
    let digits = (x & 0xf0f0_f0f0_f0f0_f0f0)
        | (((x.wrapping_add(0x0606_0606_0606_0606)) & 0xf0f0_f0f0_f0f0_f0f0) >> 4);
    if digits != 0x3333_3333_3333_3333 {
        return None;
    }
    let x = (x & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(2561) >> 8;
    let x = (x & 0x00ff_00ff_00ff_00ff).wrapping_mul(6_553_601) >> 16;
    Some((x & 0x0000_ffff_0000_ffff).wrapping_mul(42_949_672_960_001) >> 32)
}

/// Index of the first byte at or after `pos` that is not JSON whitespace.
#[inline(always)]
pub fn skip_ws(src: &[u8], mut pos: usize) -> usize {
    // Python's json.dumps writes at most one space between tokens.
    match src.get(pos) {
        Some(&b) if !WS[b as usize] => return pos,
        None => return pos,
        _ => pos += 1,
    }
    while pos < src.len() && WS[src[pos] as usize] {
        pos += 1;
    }
    pos
}

impl Tape {
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.text.clear();
        self.escaped.clear();
        self.shape_id = 0;
    }

    /// The layout of the value just parsed, when it is an object with one: two
    /// tapes of the same non-zero id have the same nodes, keys and literals, and
    /// differ at most in the values of numbers and strings. 0 for no layout (and
    /// after any change made to the tape by hand).
    pub fn shape_id(&self) -> u64 {
        self.shape_id
    }

    /// Parses exactly one value starting at `start` (leading whitespace allowed) and
    /// returns the offset just after it. The tape is cleared first; the value is node 0.
    ///
    /// With `eof == false` a value cut by the end of `src` yields [`ParseError::Incomplete`];
    /// with `eof == true` the end is final and yields Python's syntax error instead.
    pub fn parse_value(
        &mut self,
        src: &[u8],
        start: usize,
        eof: bool,
    ) -> Result<usize, ParseError> {
        self.clear();
        let base = skip_ws(src, start);
        let mut shapes = std::mem::take(&mut self.shapes);
        let parsed = self.parse_shaped(&mut shapes, src, base, eof);
        self.shapes = shapes;
        parsed
    }

    /// [`Tape::parse_value`] without the layout of earlier objects: always the
    /// ordinary parse (what the layouts are checked against).
    pub fn parse_value_unshaped(
        &mut self,
        src: &[u8],
        start: usize,
        eof: bool,
    ) -> Result<usize, ParseError> {
        self.clear();
        let base = skip_ws(src, start);
        self.parse_ordinary(src, base, eof)
    }

    fn parse_shaped(
        &mut self,
        shapes: &mut Shapes,
        src: &[u8],
        base: usize,
        eof: bool,
    ) -> Result<usize, ParseError> {
        if src.get(base) == Some(&b'{') {
            let mut p = Parser {
                src,
                tape: self,
                eof,
                base,
            };
            if let Some((end, id)) = shapes.parse(&mut p, base) {
                self.text.extend_from_slice(&src[base..end]);
                self.shape_id = id;
                return Ok(end);
            }
        }
        let end = self.parse_ordinary(src, base, eof)?;
        if matches!(self.nodes.first(), Some(Node::Object { .. })) {
            self.shape_id = shapes.learn(self);
        }
        Ok(end)
    }

    fn parse_ordinary(&mut self, src: &[u8], base: usize, eof: bool) -> Result<usize, ParseError> {
        let mut p = Parser {
            src,
            tape: self,
            eof,
            base,
        };
        let end = p.value(base, 0)?;
        self.text.extend_from_slice(&src[base..end]);
        Ok(end)
    }

    /// Bytes of a `Str` or `Key` node (empty for other nodes).
    #[inline]
    pub fn bytes(&self, node: Node) -> &[u8] {
        match node {
            Node::Str { start, len } | Node::Key { start, len } | Node::BigInt { start, len } => {
                let (buf, at) = if start & ESCAPED != 0 {
                    (&self.escaped, (start & !ESCAPED) as usize)
                } else {
                    (&self.text, start as usize)
                };
                buf.get(at..at + len as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The exact value of an integer node, when it fits in `i128`.
    pub fn big_int(&self, node: Node) -> Option<i128> {
        match node {
            Node::Int(v) => Some(i128::from(v)),
            Node::BigInt { .. } => std::str::from_utf8(self.bytes(node)).ok()?.parse().ok(),
            _ => None,
        }
    }

    /// Text of a `Str` or `Key` node. The input was checked to be UTF-8 and escapes
    /// decode to UTF-8, so the lossy path never changes anything in practice.
    pub fn text_of(&self, node: Node) -> std::borrow::Cow<'_, str> {
        let bytes = self.bytes(node);
        match std::str::from_utf8(bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        }
    }

    /// Index one past the subtree rooted at `idx`.
    #[inline]
    pub fn subtree_end(&self, idx: usize) -> usize {
        match self.nodes[idx] {
            Node::Array { end } | Node::Object { end } => end as usize,
            _ => idx + 1,
        }
    }

    /// One past the last descendant of the node at `idx` if it is an object (`object`)
    /// or an array (`!object`); `idx + 1` (no children) for anything else.
    fn children_end(&self, idx: usize, object: bool) -> usize {
        match (self.nodes.get(idx), object) {
            (Some(Node::Object { end }), true) | (Some(Node::Array { end }), false) => {
                *end as usize
            }
            _ => idx + 1,
        }
    }

    /// Iterates the (key node index, value node index) pairs of the object at `idx`.
    pub fn entries(&self, idx: usize) -> Entries<'_> {
        Entries {
            tape: self,
            pos: idx + 1,
            end: self.children_end(idx, true),
        }
    }

    /// Iterates the element node indices of the array at `idx`.
    pub fn elements(&self, idx: usize) -> Elements<'_> {
        Elements {
            tape: self,
            pos: idx + 1,
            end: self.children_end(idx, false),
        }
    }

    /// The value of the LAST occurrence of `key` in the object at `idx` (Python's
    /// dict keeps the last value of a repeated key).
    pub fn get(&self, idx: usize, key: &[u8]) -> Option<usize> {
        let mut found = None;
        for (k, v) in self.entries(idx) {
            if self.bytes(self.nodes[k]) == key {
                found = Some(v);
            }
        }
        found
    }

    /// Starts an object node to be filled with [`Tape::push_key`] and appended values;
    /// returns its index for [`Tape::end_container`].
    pub fn begin_object(&mut self) -> usize {
        self.shape_id = 0;
        self.nodes.push(Node::Object { end: 0 });
        self.nodes.len() - 1
    }

    /// Appends an object key.
    pub fn push_key(&mut self, bytes: &[u8]) {
        self.shape_id = 0;
        let start = self.push_escaped(bytes);
        self.nodes.push(Node::Key {
            start,
            len: bytes.len() as u32,
        });
    }

    /// Closes the container at `idx` after its last appended descendant.
    pub fn end_container(&mut self, idx: usize) {
        self.shape_id = 0;
        let end = self.nodes.len() as u32;
        if let Node::Array { end: e } | Node::Object { end: e } = &mut self.nodes[idx] {
            *e = end;
        }
    }

    /// Appends the subtree rooted at `idx` of `other` to this tape, returning its new root index.
    pub fn append_subtree(&mut self, other: &Tape, idx: usize) -> usize {
        self.shape_id = 0;
        let base = self.nodes.len();
        let end = other.subtree_end(idx);
        for &node in &other.nodes[idx..end] {
            let moved = match node {
                Node::Str { len, .. } => Node::Str {
                    start: self.push_escaped(other.bytes(node)),
                    len,
                },
                Node::Key { len, .. } => Node::Key {
                    start: self.push_escaped(other.bytes(node)),
                    len,
                },
                Node::BigInt { len, .. } => Node::BigInt {
                    start: self.push_escaped(other.bytes(node)),
                    len,
                },
                Node::Array { end: e } => Node::Array {
                    end: (e as usize - idx + base) as u32,
                },
                Node::Object { end: e } => Node::Object {
                    end: (e as usize - idx + base) as u32,
                },
                other_node => other_node,
            };
            self.nodes.push(moved);
        }
        base
    }

    /// Stores bytes in the escaped area; returns the flagged start.
    fn push_escaped(&mut self, bytes: &[u8]) -> u32 {
        let start = self.escaped.len() as u32 | ESCAPED;
        self.escaped.extend_from_slice(bytes);
        start
    }
}

pub struct Entries<'a> {
    tape: &'a Tape,
    pos: usize,
    end: usize,
}

impl Iterator for Entries<'_> {
    type Item = (usize, usize);
    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.pos >= self.end {
            return None;
        }
        let key = self.pos;
        let value = key + 1;
        self.pos = self.tape.subtree_end(value);
        Some((key, value))
    }
}

pub struct Elements<'a> {
    tape: &'a Tape,
    pos: usize,
    end: usize,
}

impl Iterator for Elements<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.pos >= self.end {
            return None;
        }
        let idx = self.pos;
        self.pos = self.tape.subtree_end(idx);
        Some(idx)
    }
}

/// Python's `str.isspace()` for one character: Unicode white space plus the
/// information separators U+001C..U+001F.
pub fn py_is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    let b = s.as_bytes();
    // Fast path: printable ASCII at both ends needs no stripping.
    if let (Some(&first), Some(&last)) = (b.first(), b.last()) {
        if (0x21..0x7f).contains(&first) && (0x21..0x7f).contains(&last) {
            return s;
        }
    }
    s.trim_matches(py_is_space)
}

#[cfg(test)]
mod tests {
    #[test]
    fn eight_digits_at_a_time() {
        use super::eight_digits;
        assert_eq!(eight_digits(b"12345678"), Some(12_345_678));
        assert_eq!(eight_digits(b"00000000"), Some(0));
        assert_eq!(eight_digits(b"99999999x"), Some(99_999_999));
        for bad in [
            &b"1234567"[..],
            b"1234567a",
            b"/2345678",
            b":2345678",
            b"1234 678",
        ] {
            assert_eq!(eight_digits(bad), None, "{bad:?}");
        }
        // Every digit position, against the plain parse.
        for n in [1_700_000_000u64, 25_583_157_248, 1_700_000_000_000_379_411] {
            let text = n.to_string();
            let mut t = super::Tape::default();
            t.parse_value(text.as_bytes(), 0, true).ok();
            assert_eq!(t.nodes[0], super::Node::Int(n as i64));
        }
        // The i64 edges and beyond.
        let node = |text: &str| {
            let mut t = super::Tape::default();
            t.parse_value(text.as_bytes(), 0, true).ok();
            (t.nodes[0], t.big_int(t.nodes[0]))
        };
        assert_eq!(node("9223372036854775807").0, super::Node::Int(i64::MAX));
        assert_eq!(node("-9223372036854775808").0, super::Node::Int(i64::MIN));
        assert_eq!(node("-9223372036854775807").0, super::Node::Int(-i64::MAX));
        let (n, v) = node("9223372036854775808");
        assert!(matches!(n, super::Node::BigInt { .. }));
        assert_eq!(v, Some(9_223_372_036_854_775_808));
        let (n, v) = node("18446744073709551615");
        assert!(matches!(n, super::Node::BigInt { .. }));
        assert_eq!(v, Some(18_446_744_073_709_551_615));
        assert_eq!(
            node("-99999999999999999999").1,
            Some(-99_999_999_999_999_999_999)
        );
    }

    use super::*;

    fn parse(s: &str) -> Result<(Tape, usize), ParseError> {
        let mut t = Tape::default();
        let n = t.parse_value(s.as_bytes(), 0, false)?;
        Ok((t, n))
    }

    #[test]
    fn parses_python_json_values() {
        let (t, n) =
            parse(r#"{"a": [1, -2, 3.5, NaN, -Infinity, Infinity], "b": "x\u00e9\n", "a": null} "#)
                .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(n, 74);
        let a = t.get(0, b"a").unwrap_or(0);
        assert_eq!(t.nodes[a], Node::Null, "last duplicate key wins");
        let b = t.get(0, b"b").unwrap_or(0);
        assert_eq!(t.text_of(t.nodes[b]), "xé\n");
        let arr = 2;
        let els: Vec<Node> = t.elements(arr).map(|i| t.nodes[i]).collect();
        assert_eq!(els[0], Node::Int(1));
        assert_eq!(els[1], Node::Int(-2));
        assert_eq!(els[2], Node::Float(3.5));
        assert!(matches!(els[3], Node::Float(f) if f.is_nan()));
        assert_eq!(els[4], Node::Float(f64::NEG_INFINITY));
        assert_eq!(els[5], Node::Float(f64::INFINITY));
    }

    #[test]
    fn every_escape_decodes_to_its_character() {
        // Each of JSON's two-character escapes, a \u escape and a surrogate pair (U+1F600,
        // whose halves are D83D DE00: any other arithmetic on them gives another char).
        let (t, _) =
            parse(r#"["\"\\\/\b\f\n\r\t", "\u00e9\u0041", "\ud83d\ude00", "\ud800\udc00"] "#)
                .unwrap_or_else(|e| panic!("{e:?}"));
        let texts: Vec<String> = t
            .elements(0)
            .map(|i| t.text_of(t.nodes[i]).into_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "\"\\/\u{8}\u{c}\n\r\t".to_string(),
                "éA".to_string(),
                "\u{1F600}".to_string(),
                "\u{10000}".to_string()
            ]
        );
        for bad in [r#""\x""#, r#""\a""#, r#""\u12g4""#] {
            assert!(
                matches!(parse(&format!("{bad} ")), Err(ParseError::Syntax { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn integers_keep_64_bits_and_flag_bigger_ones() {
        let (t, _) = parse("[9223372036854775807, -9223372036854775808, 9223372036854775808, 1700000000000000001 ]")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(t.nodes[1], Node::Int(i64::MAX));
        assert_eq!(t.nodes[2], Node::Int(i64::MIN));
        assert!(matches!(t.nodes[3], Node::BigInt { .. }));
        assert_eq!(t.big_int(t.nodes[3]), Some(9_223_372_036_854_775_808));
        assert_eq!(t.nodes[4], Node::Int(1_700_000_000_000_000_001));
    }

    #[test]
    fn incomplete_input_asks_for_more() {
        for cut in [
            r#"{"a": 1"#,
            r#"{"a": "xy"#,
            "[1, 2",
            "[tr",
            "{\"a\": 12",
            "[1.5e",
        ] {
            assert_eq!(parse(cut).err(), Some(ParseError::Incomplete), "{cut}");
        }
    }

    #[test]
    fn syntax_errors_use_python_wording_and_offsets() {
        let cases = [
            ("{\"a\": 1 \"b\": 2}", 8, "Expecting ',' delimiter"),
            ("{\"a\" 1}", 5, "Expecting ':' delimiter"),
            (
                "{a: 1}",
                1,
                "Expecting property name enclosed in double quotes",
            ),
            ("[1, ]", 4, "Expecting value"),
            ("[\"a\u{1}\"]", 3, "Invalid control character at"),
            ("[\"\\x\"]", 2, "Invalid \\escape"),
            ("[01]", 2, "Expecting ',' delimiter"),
            ("[-]", 1, "Expecting value"),
        ];
        for (src, offset, message) in cases {
            assert_eq!(
                parse(src).err(),
                Some(ParseError::Syntax { offset, message }),
                "{src}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = "[".repeat(100_000);
        assert!(matches!(parse(&src), Err(ParseError::Syntax { .. })));
    }

    #[test]
    fn string_scan_stops_at_quotes_backslashes_and_control_bytes() {
        for (src, expected) in [
            ("abcdefghijklmnop\"", 16),
            ("abcdefgh\\ijk", 8),
            ("abcdefghijklm\u{1}", 13),
            ("abc\"", 3),
            ("héllo wörld, ünïcode \"", 25),
            ("abcdefghijklmnopqrstuvwxyz", 26),
        ] {
            assert_eq!(string_stop(src.as_bytes(), 0), expected, "{src:?}");
        }
    }

    #[test]
    fn surrogate_pairs_decode() {
        let (t, _) = parse(r#"["\ud83d\ude00", "\ud800x"]"#).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(t.text_of(t.nodes[1]), "😀");
        assert_eq!(t.text_of(t.nodes[2]), "\u{FFFD}x");
    }

    #[test]
    fn python_strip_includes_information_separators() {
        assert_eq!(py_strip("\u{1c} x \u{a0}"), "x");
        assert_eq!(py_strip("\u{3000}"), "");
    }

    /// Every token kind the parser knows, in one record: numbers in every form, every
    /// escape, literals, Python's NaN and infinities, nesting.
    const EVERY_TOKEN: &str = r#"{"a": 1.5, "b": -2e+3, "c": 4E-2, "d": 0, "z": -0.25e1, "e": 123456789012345678901234, "s": "x y\n\"\\\/\b\f\r\t\u00e9\ud83d\ude00y", "t": true, "f": false, "n": null, "nan": NaN, "inf": Infinity, "ninf": -Infinity, "arr": [1, [2, {}]], "o": {"k": "v"}}"#;

    #[test]
    fn a_value_cut_anywhere_is_incomplete_until_the_input_ends() {
        use super::{ParseError, Tape};
        let text = EVERY_TOKEN.as_bytes();
        let mut tape = Tape::default();
        assert_eq!(tape.parse_value_unshaped(text, 0, true), Ok(text.len()));
        assert_eq!(tape.parse_value_unshaped(text, 0, false), Ok(text.len()));
        // Learn the record's layout, so the shaped parse below tries it on every prefix.
        assert_eq!(tape.parse_value(text, 0, true), Ok(text.len()));
        // Nothing at all, or only whitespace, is cut before the value's first byte.
        for blank in [&b""[..], b" \n\t "] {
            assert_eq!(
                tape.parse_value_unshaped(blank, 0, false),
                Err(ParseError::Incomplete)
            );
            assert!(matches!(
                tape.parse_value(blank, 0, true),
                Err(ParseError::Syntax {
                    message: "Expecting value",
                    ..
                })
            ));
        }
        for cut in 1..text.len() {
            let prefix = &text[..cut];
            // More may come: never a value, never an error.
            assert_eq!(
                tape.parse_value_unshaped(prefix, 0, false),
                Err(ParseError::Incomplete),
                "cut after {:?}",
                String::from_utf8_lossy(prefix)
            );
            // The input ended there: Python's syntax error, never "incomplete" (callers
            // that pass `eof == true` rely on it), with or without a learned layout.
            for at_end in [
                tape.parse_value_unshaped(prefix, 0, true),
                tape.parse_value(prefix, 0, true),
            ] {
                assert!(
                    matches!(at_end, Err(ParseError::Syntax { .. })),
                    "cut after {:?} at the end of the input: {at_end:?}",
                    String::from_utf8_lossy(prefix)
                );
            }
        }
    }

    #[test]
    fn every_token_reads_back_as_python_reads_it() {
        use super::{Node, Tape};
        let text = EVERY_TOKEN.as_bytes();
        let mut tape = Tape::default();
        assert_eq!(tape.parse_value_unshaped(text, 0, true), Ok(text.len()));
        let floats: Vec<f64> = tape
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Float(v) => Some(*v),
                _ => None,
            })
            .collect();
        assert_eq!(floats.len(), 7, "{floats:?}");
        assert_eq!(&floats[..4], &[1.5, -2000.0, 0.04, -2.5]);
        assert!(floats[4].is_nan());
        assert_eq!(&floats[5..], &[f64::INFINITY, f64::NEG_INFINITY]);
        assert!(tape.nodes.contains(&Node::Int(0)));
        assert!(tape.nodes.contains(&Node::Int(1)) && tape.nodes.contains(&Node::Int(2)));
        let big = tape
            .nodes
            .iter()
            .find(|n| matches!(n, Node::BigInt { .. }))
            .and_then(|&n| tape.big_int(n));
        assert_eq!(big, Some(123_456_789_012_345_678_901_234));
        let strings: Vec<String> = tape
            .nodes
            .iter()
            .filter(|n| matches!(n, Node::Str { .. }))
            .map(|&n| tape.text_of(n).into_owned())
            .collect();
        assert_eq!(strings, ["x y\n\"\\/\u{8}\u{c}\r\té\u{1f600}y", "v"]);
    }

    /// `src` parsed to its end (`eof`), as Python's `json.loads` reads it or fails.
    fn parse_all(src: &[u8]) -> Result<Tape, ParseError> {
        let mut t = Tape::default();
        let end = t.parse_value(src, 0, true)?;
        assert_eq!(end, src.len(), "{:?}", String::from_utf8_lossy(src));
        Ok(t)
    }

    /// The error of `src`, at its end or with more input to come.
    fn error(src: &[u8], eof: bool) -> Option<ParseError> {
        Tape::default().parse_value(src, 0, eof).err()
    }

    #[test]
    fn a_dot_or_an_e_without_digits_ends_the_number_before_it() {
        // Python's number regex backs off to the integer, and the next token is then
        // wrong (offsets and messages from `json.loads`).
        for (src, offset) in [
            ("[1.]", 2),
            ("[1.x]", 2),
            ("[1e]", 2),
            ("[1e+]", 2),
            ("[1ex]", 2),
            ("[1E5x]", 4),
            ("[1.5e-x]", 4),
        ] {
            assert_eq!(
                error(src.as_bytes(), true),
                Some(ParseError::Syntax {
                    offset,
                    message: "Expecting ',' delimiter"
                }),
                "{src}"
            );
        }
        // A fraction or exponent that ends the input is read to its last digit.
        for (src, value) in [
            ("2.5", 2.5),
            ("-0.125", -0.125),
            ("1e5", 1e5),
            ("7E-1", 0.7),
        ] {
            let t = parse_all(src.as_bytes()).unwrap_or_else(|e| panic!("{src}: {e:?}"));
            assert_eq!(t.nodes, [Node::Float(value)], "{src}");
        }
        // Cut after the dot, the `e` or its sign: more may come; at the end, Python's error.
        for src in ["[1.", "[1e", "[1e-", "[12E+"] {
            assert_eq!(
                error(src.as_bytes(), false),
                Some(ParseError::Incomplete),
                "{src}"
            );
            assert!(
                matches!(error(src.as_bytes(), true), Some(ParseError::Syntax { .. })),
                "{src}"
            );
        }
    }

    #[test]
    fn a_big_integer_after_leading_space_keeps_its_digits() {
        // String and big-integer nodes point into the value's own text, which starts
        // after the whitespace (and after `start`).
        let src = b"x   [18446744073709551616, \"ab\", -99999999999999999999]";
        let mut t = Tape::default();
        assert_eq!(t.parse_value(src, 1, true), Ok(src.len()));
        let values: Vec<Option<i128>> = t.elements(0).map(|i| t.big_int(t.nodes[i])).collect();
        assert_eq!(
            values,
            [
                Some(18_446_744_073_709_551_616),
                None,
                Some(-99_999_999_999_999_999_999)
            ]
        );
        assert_eq!(t.text_of(t.nodes[2]), "ab");
    }

    #[test]
    fn unicode_escapes_take_upper_case_digits_and_report_python_offsets() {
        let t =
            parse_all(br#""\u00C9\u004A\u00e9\uABCD\uFfFf""#).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(t.text_of(t.nodes[0]), "\u{c9}J\u{e9}\u{abcd}\u{ffff}");
        // The offset is the `u` of the bad escape (the first or the second of a pair).
        for (src, offset) in [
            (r#"["\u12g4"]"#, 3),
            (r#"["\uG000"]"#, 3),
            (r#"["ab\u12"]"#, 5),
            (r#"["\ud800\u12g4"]"#, 9),
            (r#"["\ud800\uDC0x"]"#, 9),
        ] {
            assert_eq!(
                error(src.as_bytes(), true),
                Some(ParseError::Syntax {
                    offset,
                    message: "Invalid \\uXXXX escape"
                }),
                "{src}"
            );
        }
    }

    #[test]
    fn only_a_high_surrogate_followed_by_an_escaped_low_one_makes_a_pair() {
        // A lone surrogate stays one character (U+FFFD here; Python keeps the surrogate).
        for (src, text) in [
            (r#""\u0041\udc00""#, "A\u{fffd}"),
            (r#""\u0041\n""#, "A\n"),
            (r#""\ud800xudc00""#, "\u{fffd}xudc00"),
            (r#""\ud800\u0041""#, "\u{fffd}A"),
            (r#""\udbff\udfff""#, "\u{10ffff}"),
        ] {
            let t = parse_all(src.as_bytes()).unwrap_or_else(|e| panic!("{src}: {e:?}"));
            assert_eq!(t.text_of(t.nodes[0]), text, "{src}");
        }
        // Cut inside the pair: more may come; at the end, Python's error at Python's offset.
        for (src, offset, message) in [
            (r#"["\ud800\"#, 1, "Unterminated string starting at"),
            (r#"["\ud800\u12"#, 9, "Invalid \\uXXXX escape"),
            (r#"["\ud800\u"#, 9, "Invalid \\uXXXX escape"),
            (r#"["\u12"#, 3, "Invalid \\uXXXX escape"),
        ] {
            assert_eq!(
                error(src.as_bytes(), false),
                Some(ParseError::Incomplete),
                "{src}"
            );
            assert_eq!(
                error(src.as_bytes(), true),
                Some(ParseError::Syntax { offset, message }),
                "{src}"
            );
        }
    }

    #[test]
    fn a_raw_control_character_after_an_escape_is_an_error() {
        for (src, offset) in [
            ("[\"a\\nb\u{1}c\"]", 6),
            ("[\"\\t\u{1f}\"]", 4),
            ("[\"\\u0041\n\"]", 8),
        ] {
            assert_eq!(
                error(src.as_bytes(), true),
                Some(ParseError::Syntax {
                    offset,
                    message: "Invalid control character at"
                }),
                "{src:?}"
            );
        }
        // A space (0x20) is no control character.
        let t = parse_all(b"\"\\n \"").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(t.text_of(t.nodes[0]), "\n ");
    }

    #[test]
    fn nesting_is_limited_in_objects_as_in_arrays() {
        for (open, close) in [(r#"{"k": "#, "}"), ("[", "]")] {
            let nested = |depth: usize| format!("{}0{}", open.repeat(depth), close.repeat(depth));
            let t = parse_all(nested(MAX_DEPTH).as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
            // Every level is there: a container per level (and a key in an object), the 0.
            let per_level = if open == "[" { 1 } else { 2 };
            assert_eq!(t.nodes.len(), per_level * MAX_DEPTH + 1, "{open}");
            assert_eq!(t.subtree_end(0), t.nodes.len());
            assert_eq!(
                error(nested(MAX_DEPTH + 1).as_bytes(), true),
                Some(ParseError::Syntax {
                    offset: open.len() * MAX_DEPTH,
                    message: "Nesting too deep"
                }),
                "{open}"
            );
        }
    }

    #[test]
    fn a_scalar_has_no_entries_and_no_elements() {
        let t = parse_all(br#"{"a": [1]}"#).unwrap_or_else(|e| panic!("{e:?}"));
        // An object has no elements and an array no entries, wherever they are.
        assert_eq!(t.elements(0).count(), 0);
        assert_eq!(t.entries(2).count(), 0);
        assert_eq!(t.entries(0).collect::<Vec<_>>(), [(1, 2)]);
        assert_eq!(t.elements(2).collect::<Vec<_>>(), [3]);
        for src in [&b"7"[..], b"\"s\"", b"null"] {
            let t = parse_all(src).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(t.entries(0).count(), 0);
            assert_eq!(t.elements(0).count(), 0);
            assert_eq!(t.get(0, b"a"), None);
        }
    }

    #[test]
    fn a_subtree_copied_from_inside_a_tape_keeps_its_shape() {
        let from = parse_all(br#"[1, [2, {"a": [3, "x"], "b": {}}, 4], 5]"#)
            .unwrap_or_else(|e| panic!("{e:?}"));
        // Node 2 is the inner array, [2, {"a": [3, "x"], "b": {}}, 4]: nodes 2 to 11.
        let mut to = parse_all(br#"{"k": "v", "n": null}"#).unwrap_or_else(|e| panic!("{e:?}"));
        let at = to.append_subtree(&from, 2);
        assert_eq!(at, 5);
        let flagged = |start: u32| start | ESCAPED;
        assert_eq!(
            to.nodes[at..],
            [
                Node::Array { end: 15 },
                Node::Int(2),
                Node::Object { end: 14 },
                Node::Key {
                    start: flagged(0),
                    len: 1
                },
                Node::Array { end: 12 },
                Node::Int(3),
                Node::Str {
                    start: flagged(1),
                    len: 1
                },
                Node::Key {
                    start: flagged(2),
                    len: 1
                },
                Node::Object { end: 14 },
                Node::Int(4),
            ]
        );
        assert_eq!(to.escaped, b"axb");
        // And it reads as the original.
        assert_eq!(to.elements(at).collect::<Vec<_>>(), [6, 7, 14]);
        assert_eq!(to.get(7, b"b"), Some(13));
        assert_eq!(to.text_of(to.nodes[11]), "x");
    }
}

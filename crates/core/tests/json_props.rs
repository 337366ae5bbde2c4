//! The JSON parser against values it must read back exactly: any value (deep, with every
//! escape form, surrogate pairs, big integers, floats, Python's `NaN`/`Infinity`),
//! written with random whitespace and random escaping, parses to itself — through the
//! ordinary parser and through a tape's record layouts, which must agree node for node
//! on any sequence of records laid out alike; a value cut short is `Incomplete` (more
//! input may come) or a syntax error (the input ended); a raw control character in a
//! string is an error, as in Python's strict `json`. Written for the mutation testing of
//! `json/` (`make mutants MUTANTS_GROUPS=json`): each property checks values, not only
//! the absence of a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

use proptest::prelude::*;
use shardscope_core::json::{Node, ParseError, Tape};

/// A JSON value as Python's `json` reads it.
#[derive(Debug, Clone)]
enum V {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<V>),
    Obj(Vec<(String, V)>),
}

impl PartialEq for V {
    fn eq(&self, other: &V) -> bool {
        match (self, other) {
            (V::Null, V::Null) => true,
            (V::Bool(a), V::Bool(b)) => a == b,
            (V::Int(a), V::Int(b)) => a == b,
            (V::Float(a), V::Float(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (V::Str(a), V::Str(b)) => a == b,
            (V::Arr(a), V::Arr(b)) => a == b,
            (V::Obj(a), V::Obj(b)) => a == b,
            _ => false,
        }
    }
}

/// Text with the characters that exercise a string scanner: quotes, backslashes,
/// control characters, slashes, multi-byte and astral characters.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            1 => Just('"'),
            1 => Just('\\'),
            1 => Just('/'),
            1 => prop::char::range('\u{0}', '\u{1f}'),
            1 => Just('\u{7f}'),
            1 => prop::char::range('\u{80}', '\u{7ff}'),
            1 => prop::char::range('\u{e000}', '\u{fffd}'),
            1 => prop::char::range('\u{10000}', '\u{10ffff}'),
        ],
        0..24,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

fn int() -> impl Strategy<Value = i128> {
    prop_oneof![
        -1000i128..1000,
        any::<i64>().prop_map(i128::from),
        Just(i128::from(i64::MAX)),
        Just(i128::from(i64::MIN)),
        Just(i128::from(i64::MAX) + 1),
        Just(i128::from(i64::MIN) - 1),
        any::<i128>(),
    ]
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        (-1e6f64..1e6),
        Just(0.0),
        Just(-0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
    ]
}

fn leaf() -> impl Strategy<Value = V> {
    prop_oneof![
        Just(V::Null),
        any::<bool>().prop_map(V::Bool),
        int().prop_map(V::Int),
        float().prop_map(V::Float),
        text().prop_map(V::Str),
    ]
}

fn value() -> impl Strategy<Value = V> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(V::Arr),
            prop::collection::vec((text(), inner), 0..6).prop_map(V::Obj),
        ]
    })
}

fn object() -> impl Strategy<Value = V> {
    prop::collection::vec((text(), value()), 0..6).prop_map(V::Obj)
}

/// A deterministic stream of choices (how to escape, where to put whitespace).
struct Choices(u64);

impl Choices {
    fn next(&mut self, n: u64) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }

    fn ws(&mut self, out: &mut String) {
        for _ in 0..self.next(4).saturating_sub(1) {
            out.push([' ', '\n', '\t', '\r'][self.next(4) as usize]);
        }
    }
}

fn write_str(s: &str, c: &mut Choices, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        let u16s = |ch: char| {
            let mut buf = [0u16; 2];
            ch.encode_utf16(&mut buf)
                .iter()
                .map(|u| format!("\\u{u:04x}"))
                .collect::<String>()
        };
        match ch {
            '"' => out.push_str(if c.next(2) == 0 { "\\\"" } else { "\\u0022" }),
            '\\' => out.push_str(if c.next(2) == 0 { "\\\\" } else { "\\u005C" }),
            '\n' if c.next(2) == 0 => out.push_str("\\n"),
            '\t' if c.next(2) == 0 => out.push_str("\\t"),
            '\r' if c.next(2) == 0 => out.push_str("\\r"),
            '\u{8}' if c.next(2) == 0 => out.push_str("\\b"),
            '\u{c}' if c.next(2) == 0 => out.push_str("\\f"),
            '/' if c.next(2) == 0 => out.push_str("\\/"),
            ch if (ch as u32) < 0x20 => out.push_str(&u16s(ch)),
            ch if c.next(4) == 0 => out.push_str(&u16s(ch)),
            ch => out.push(ch),
        }
    }
    out.push('"');
}

fn write(v: &V, c: &mut Choices, out: &mut String) {
    match v {
        V::Null => out.push_str("null"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Int(i) => out.push_str(&i.to_string()),
        V::Float(f) if f.is_nan() => out.push_str("NaN"),
        V::Float(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" })
        }
        V::Float(f) => match c.next(3) {
            // Python's repr, and an exponent form of the same value.
            0 | 1 => out.push_str(&format!("{f:?}")),
            _ => out.push_str(
                &format!("{f:E}")
                    .replace("E", if c.next(2) == 0 { "e" } else { "E+" })
                    .replace("E+-", "E-"),
            ),
        },
        V::Str(s) => write_str(s, c, out),
        V::Arr(items) => {
            out.push('[');
            c.ws(out);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    c.ws(out);
                }
                write(item, c, out);
                c.ws(out);
            }
            out.push(']');
        }
        V::Obj(entries) => {
            out.push('{');
            c.ws(out);
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    c.ws(out);
                }
                write_str(k, c, out);
                c.ws(out);
                out.push(':');
                c.ws(out);
                write(item, c, out);
                c.ws(out);
            }
            out.push('}');
        }
    }
}

/// The value at node `idx` of `tape`.
fn read(tape: &Tape, idx: usize) -> V {
    let node = tape.nodes[idx];
    match node {
        Node::Null => V::Null,
        Node::Bool(b) => V::Bool(b),
        Node::Int(_) | Node::BigInt { .. } => V::Int(tape.big_int(node).expect("an integer")),
        Node::Float(f) => V::Float(f),
        Node::Str { .. } | Node::Key { .. } => V::Str(tape.text_of(node).into_owned()),
        Node::Array { .. } => V::Arr(tape.elements(idx).map(|i| read(tape, i)).collect()),
        Node::Object { .. } => V::Obj(
            tape.entries(idx)
                .map(|(k, v)| (tape.text_of(tape.nodes[k]).into_owned(), read(tape, v)))
                .collect(),
        ),
    }
}

/// An integer outside `i64` must be a `BigInt` node, one inside an `Int`.
fn ints_stored_by_size(tape: &Tape) {
    for &node in &tape.nodes {
        if let Node::BigInt { .. } = node {
            let v = tape.big_int(node).expect("a big integer");
            assert!(i64::try_from(v).is_err(), "{v} fits in i64");
        }
    }
}

fn show(tape: &Tape) -> String {
    format!("{:?} {:?} {:?}", tape.nodes, tape.text, tape.escaped)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn any_value_written_any_way_reads_back_as_itself(v in value(), seed in any::<u64>()) {
        let mut c = Choices(seed | 1);
        let mut json = String::new();
        c.ws(&mut json);
        write(&v, &mut c, &mut json);
        let mut tape = Tape::default();
        let end = tape.parse_value(json.as_bytes(), 0, true);
        prop_assert_eq!(end, Ok(json.len()), "{}", json);
        prop_assert_eq!(read(&tape, 0), v.clone(), "{}", json);
        ints_stored_by_size(&tape);
        let mut plain = Tape::default();
        prop_assert_eq!(plain.parse_value_unshaped(json.as_bytes(), 0, true), Ok(json.len()));
        prop_assert_eq!(read(&plain, 0), v.clone());
        // A copy of the subtree into another tape reads the same.
        let mut copy = Tape::default();
        copy.nodes.push(Node::Null);
        let at = copy.append_subtree(&tape, 0);
        prop_assert_eq!(at, 1);
        prop_assert_eq!(read(&copy, 1), v);
    }

    #[test]
    fn records_laid_out_alike_parse_as_the_ordinary_parser_does(
        template in object(),
        fills in prop::collection::vec((any::<u64>(), prop::collection::vec((leaf(), any::<u8>()), 0..12)), 1..8),
    ) {
        // Records of the template's layout with their numbers and strings replaced
        // (the layouts parse those without the ordinary parser), sometimes a literal
        // changed or one cut short.
        let mut shaped = Tape::default();
        let mut plain = Tape::default();
        for (seed, replacements) in fills {
            let mut record = template.clone();
            let mut r = replacements.into_iter();
            replace_leaves(&mut record, &mut r);
            let mut c = Choices(seed | 1);
            let mut json = String::new();
            write(&record, &mut c, &mut json);
            let bytes = json.as_bytes();
            for (slice, eof) in [(bytes, true), (bytes, false), (&bytes[..bytes.len() / 2], false), (&bytes[..bytes.len() / 2], true)] {
                let a = shaped.parse_value(slice, 0, eof);
                let b = plain.parse_value_unshaped(slice, 0, eof);
                prop_assert_eq!(&a, &b, "{:?} eof {}", String::from_utf8_lossy(slice), eof);
                if a.is_ok() {
                    prop_assert_eq!(show(&shaped), show(&plain), "{}", json);
                    prop_assert_eq!(read(&shaped, 0), record.clone());
                }
            }
        }
    }

    #[test]
    fn an_object_cut_short_is_incomplete_until_the_input_ends(v in object(), seed in any::<u64>(), cut in any::<prop::sample::Index>()) {
        let mut json = String::new();
        write(&v, &mut Choices(seed | 1), &mut json);
        let bytes = json.as_bytes();
        let at = cut.index(bytes.len() - 1) + 1;
        if at < bytes.len() {
            let mut tape = Tape::default();
            prop_assert_eq!(tape.parse_value(&bytes[..at], 0, false), Err(ParseError::Incomplete));
            let ended = matches!(tape.parse_value(&bytes[..at], 0, true), Err(ParseError::Syntax { .. }));
            prop_assert!(ended, "{}", json);
            let ended = matches!(tape.parse_value_unshaped(&bytes[..at], 0, true), Err(ParseError::Syntax { .. }));
            prop_assert!(ended, "{}", json);
        }
    }

    #[test]
    fn a_raw_control_character_in_a_string_is_an_error(s in text(), at in any::<prop::sample::Index>(), control in 0u8..0x20) {
        let mut json = String::new();
        write_str(&s, &mut Choices(7), &mut json);
        // Inside the quotes, at a character boundary.
        let bounds: Vec<usize> = (1..json.len()).filter(|&i| json.is_char_boundary(i)).collect();
        let i = bounds[at.index(bounds.len())];
        let mut bytes = json.into_bytes();
        bytes.insert(i, control);
        let wrapped = [b"{\"k\": ".as_slice(), &bytes, b"}"].concat();
        let mut tape = Tape::default();
        let parsed = tape.parse_value(&wrapped, 0, true);
        // Also inside an escape (`\` then a control): an error either way.
        let refused = matches!(parsed, Err(ParseError::Syntax { .. }));
        prop_assert!(refused, "{:?} {:?}", String::from_utf8_lossy(&wrapped), parsed);
    }
}

/// Replace the template's leaves with the given ones, in order, where the kinds agree
/// (so the layout stays) — or, when the byte says so, with a leaf of another kind.
fn replace_leaves(v: &mut V, with: &mut impl Iterator<Item = (V, u8)>) {
    match v {
        V::Arr(items) => items.iter_mut().for_each(|i| replace_leaves(i, with)),
        V::Obj(entries) => entries
            .iter_mut()
            .for_each(|(_, i)| replace_leaves(i, with)),
        leaf => {
            if let Some((new, how)) = with.next() {
                let same_kind = matches!(
                    (&*leaf, &new),
                    (V::Int(_) | V::Float(_), V::Int(_) | V::Float(_)) | (V::Str(_), V::Str(_))
                );
                if same_kind || how < 32 {
                    *leaf = new;
                }
            }
        }
    }
}

#[test]
fn escapes_decode_to_their_characters_and_bad_ones_are_refused() {
    let mut tape = Tape::default();
    let read_str = |tape: &mut Tape, json: &str| -> Result<String, ParseError> {
        tape.parse_value(json.as_bytes(), 0, true)?;
        Ok(tape.text_of(tape.nodes[0]).into_owned())
    };
    assert_eq!(
        read_str(
            &mut tape,
            r#""a\"b\\c\/d\be\ff\ng\rh\ti\u00e9\ud83d\ude00""#
        ),
        Ok("a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti\u{e9}\u{1f600}".to_string())
    );
    for bad in [r#""\x""#, r#""\u12G4""#, r#""\u12""#, "\"\\", "\"abc"] {
        assert!(
            matches!(read_str(&mut tape, bad), Err(ParseError::Syntax { .. })),
            "{bad}"
        );
    }
    // A lone surrogate is kept as Python keeps it (not an error).
    assert!(read_str(&mut tape, r#""\ud800""#).is_ok());
}

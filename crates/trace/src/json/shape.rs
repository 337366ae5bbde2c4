//! Parsing a record that is laid out like the one before it.
//!
//! A trace's records nearly always share one layout: the same keys in the same order,
//! the same punctuation and spacing, the same nulls and nested objects; only numbers
//! and string values change. After an object is parsed the ordinary way, its text is
//! cut into *runs* (everything but its numbers and string values: brackets, keys,
//! separators, literals) and the *slots* between them. The next object is first
//! checked against the runs byte for byte while only its slots are parsed, by the
//! ordinary number and string routines.
//!
//! Why the tape is then exactly the one the ordinary parser would write: the parser's
//! every decision depends only on the bytes at its position. Inside the runs the bytes
//! are the template's, so it would decide as it did for the template; at a slot it
//! would call the same number or string routine on the same bytes (a slot only
//! accepts what that routine accepts where [`Parser::value`] would call it). So the
//! nodes are the template's with the slots' values, and containers close at the same
//! indices. Anything else (one byte off, a number where a null was, a longer array,
//! the end of the input) and the ordinary parser runs instead, which also reports
//! errors and [`ParseError::Incomplete`](super::ParseError::Incomplete).
//!
//! Every layout gets an id, unique in the process ([`Tape::shape_id`]): two tapes
//! with the same id have the same nodes apart from the slots' values, so what
//! depends only on keys and structure (which key is at which node) can be kept.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{skip_ws, string_stop, Node, Parser, Tape, ESCAPED};

/// Objects of more nodes or bytes than this get no shape (records are small).
const MAX_NODES: usize = 512;
const MAX_BYTES: usize = 16 << 10;

/// After this many misses in a row, stop building shapes for a while: the input
/// has no repeating layout, and building costs about one more parse.
const MISSES_BEFORE_REST: u32 = 8;
const REST_PARSES: u32 = 256;

/// Layouts kept per tape (a trace's samples, its markers, and a few more).
const MAX_SHAPES: usize = 4;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The layouts a tape knows, the most used first.
#[derive(Debug, Clone, Default)]
pub struct Shapes {
    list: Vec<Shape>,
    /// Misses in a row, and parses left to skip building.
    misses: u32,
    resting: u32,
}

/// One layout: runs of literal bytes, each followed by a slot.
#[derive(Debug, Clone, Default)]
struct Shape {
    id: u64,
    /// The runs' bytes, back to back.
    runs: Vec<u8>,
    steps: Vec<Step>,
    /// The nodes whose token lies inside a run (containers, keys, literals), with
    /// the token's offset in its run (a key's node points inside the record).
    fixed: Vec<(Node, u32)>,
    /// Values parsed with this layout (orders the list).
    hits: u64,
}

#[derive(Debug, Clone, Copy)]
struct Step {
    run_end: u32,
    fixed_end: u32,
    slot: Slot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Number,
    String,
    /// The last run (closing brackets) has no slot after it.
    End,
}

impl Shapes {
    /// Parses the object at `base` with one of the known layouts: the offset just
    /// after it and the layout's id, or `None` (the tape is then left cleared).
    pub(super) fn parse(
        &mut self,
        parser: &mut Parser<'_, '_>,
        base: usize,
    ) -> Option<(usize, u64)> {
        for i in 0..self.list.len() {
            if let Some(end) = self.list[i].parse(parser, base) {
                self.misses = 0;
                self.list[i].hits += 1;
                if i > 0 && self.list[i].hits > self.list[i - 1].hits {
                    self.list.swap(i, i - 1);
                    return Some((end, self.list[i - 1].id));
                }
                return Some((end, self.list[i].id));
            }
            parser.tape.clear();
        }
        None
    }

    /// The tape was just parsed the ordinary way: learn its layout (in place of
    /// the least used one). Returns the layout's id, 0 for none.
    pub(super) fn learn(&mut self, tape: &Tape) -> u64 {
        if self.resting > 0 {
            self.resting -= 1;
            return 0;
        }
        self.misses += 1;
        if self.misses > MISSES_BEFORE_REST {
            self.misses = 0;
            self.resting = REST_PARSES;
            return 0;
        }
        let mut shape = Shape::default();
        if shape.build(tape).is_none() || !shape.verify(tape) {
            return 0;
        }
        shape.id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let id = shape.id;
        if self.list.len() >= MAX_SHAPES {
            self.list.pop();
        }
        self.list.push(shape);
        id
    }
}

impl Shape {
    /// Parses the value at `base` into `parser`'s tape if it has this layout;
    /// returns the offset just after it. `None`: not this layout (the tape then
    /// holds a partial result and must be cleared).
    fn parse(&self, parser: &mut Parser<'_, '_>, base: usize) -> Option<usize> {
        let src = parser.src;
        let mut pos = base;
        let mut run_start = 0usize;
        let mut fixed_start = 0usize;
        for step in &self.steps {
            let run = self.runs.get(run_start..step.run_end as usize)?;
            if !same_bytes(src.get(pos..pos + run.len())?, run) {
                return None;
            }
            let fixed = self.fixed.get(fixed_start..step.fixed_end as usize)?;
            parser
                .tape
                .nodes
                .extend(fixed.iter().map(|&(node, offset)| match node {
                    Node::Key { len, .. } => Node::Key {
                        start: (pos + offset as usize + 1 - base) as u32,
                        len,
                    },
                    other => other,
                }));
            pos += run.len();
            run_start = step.run_end as usize;
            fixed_start = step.fixed_end as usize;
            match step.slot {
                Slot::Number => match src.get(pos) {
                    Some(b'-' | b'0'..=b'9') => pos = parser.number(pos).ok()?,
                    _ => return None,
                },
                Slot::String => {
                    if src.get(pos) != Some(&b'"') {
                        return None;
                    }
                    let (start, len, next) = parser.string(pos).ok()?;
                    parser.tape.nodes.push(Node::Str { start, len });
                    pos = next;
                }
                Slot::End => {}
            }
        }
        Some(pos)
    }

    /// Cuts the tape's text into runs and slots (of an empty shape).
    fn build(&mut self, tape: &Tape) -> Option<()> {
        let text = tape.text.as_slice();
        if !matches!(tape.nodes.first(), Some(Node::Object { .. }))
            || tape.nodes.len() > MAX_NODES
            || text.len() > MAX_BYTES
        {
            return None;
        }
        let mut run_start = 0usize;
        let mut pos = 0usize;
        for &node in &tape.nodes {
            pos = skip_gap(text, pos);
            let token = pos;
            let (end, slot) = match node {
                Node::Object { .. } | Node::Array { .. } => (token + 1, None),
                Node::Key { start, len } => {
                    // A key with escapes would need its raw length: no shape.
                    if start & ESCAPED != 0 || start as usize != token + 1 {
                        return None;
                    }
                    (token + len as usize + 2, None)
                }
                Node::Str { .. } => (string_end(text, token)?, Some(Slot::String)),
                Node::Null => (token + 4, None),
                Node::Bool(true) => (token + 4, None),
                Node::Bool(false) => (token + 5, None),
                Node::Float(_) | Node::Int(_) | Node::BigInt { .. } => {
                    match text.get(token..token + 2)? {
                        [b'N', _] => (token + 3, None),
                        [b'I', _] => (token + 8, None),
                        [b'-', b'I'] => (token + 9, None),
                        _ => (number_end(text, token), Some(Slot::Number)),
                    }
                }
            };
            if end > text.len() {
                return None;
            }
            match slot {
                None => {
                    let offset = (token - run_start) as u32;
                    self.fixed.push((node, offset));
                }
                Some(slot) => {
                    self.close_run(&text[run_start..token], slot);
                    run_start = end;
                }
            }
            pos = end;
        }
        self.close_run(&text[run_start..], Slot::End);
        Some(())
    }

    fn close_run(&mut self, run: &[u8], slot: Slot) {
        self.runs.extend_from_slice(run);
        self.steps.push(Step {
            run_end: self.runs.len() as u32,
            fixed_end: self.fixed.len() as u32,
            slot,
        });
    }

    /// Does the new layout read its own template back exactly?
    fn verify(&self, tape: &Tape) -> bool {
        let mut check = Tape::default();
        let mut parser = Parser {
            src: &tape.text,
            tape: &mut check,
            eof: true,
            base: 0,
        };
        self.parse(&mut parser, 0) == Some(tape.text.len())
            && check.nodes == tape.nodes
            && check.escaped == tape.escaped
    }
}

/// `a == b`, eight bytes at a time. Runs are short, and in WebAssembly a `memcmp`
/// compares byte by byte (it was a tenth of the worker's parse).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a == b;
    }
    let word = |s: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// Past the whitespace and separators before a token (`,` `:` `]` `}`).
fn skip_gap(text: &[u8], mut pos: usize) -> usize {
    loop {
        pos = skip_ws(text, pos);
        match text.get(pos) {
            Some(b',' | b':' | b']' | b'}') => pos += 1,
            _ => return pos,
        }
    }
}

/// One past the closing quote of the string token at `pos` (escapes skipped).
fn string_end(text: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos + 1;
    loop {
        i = string_stop(text, i);
        match text.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// One past a number token at `pos`.
fn number_end(text: &[u8], pos: usize) -> usize {
    let mut i = pos + 1;
    while matches!(
        text.get(i),
        Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
    ) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::super::{ParseError, Tape};

    const SAMPLE: &[u8] =
        br#"{"t": 17, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#;
    const SAMPLE2: &[u8] = br#"{"t": -1234567890123, "host": "n\"1\u00e9", "free": null, "m": {"backend": "rocm"}, "xs": [3e5, 4]}"#;
    const MARKER: &[u8] = br#"{"t": 18, "host": "node0", "op": "all_reduce", "m": {}}"#;

    /// Parses `src` with `tape` and checks the result against the ordinary parser.
    fn parse(tape: &mut Tape, src: &[u8], eof: bool) -> Result<u64, ParseError> {
        let shaped = tape.parse_value(src, 0, eof);
        let mut plain = Tape::default();
        assert_eq!(shaped, plain.parse_value_unshaped(src, 0, eof));
        if shaped.is_ok() {
            assert_eq!(format!("{:?}", tape.nodes), format!("{:?}", plain.nodes));
            assert_eq!(tape.text, plain.text);
            assert_eq!(tape.escaped, plain.escaped);
        }
        shaped.map(|_| tape.shape_id())
    }

    #[test]
    fn records_laid_out_alike_share_a_layout() -> Result<(), ParseError> {
        let mut tape = Tape::default();
        let first = parse(&mut tape, SAMPLE, true)?;
        assert_ne!(first, 0, "the first record's layout is learned");
        assert_eq!(parse(&mut tape, SAMPLE2, true), Ok(first));
        assert_eq!(parse(&mut tape, SAMPLE, false), Ok(first));
        assert_eq!(tape.nodes[2], super::Node::Int(17));
        Ok(())
    }

    #[test]
    fn another_layout_is_parsed_the_ordinary_way_and_learned_too() -> Result<(), ParseError> {
        let mut tape = Tape::default();
        let sample = parse(&mut tape, SAMPLE, true)?;
        let marker = parse(&mut tape, MARKER, true)?;
        assert!(marker != 0 && marker != sample);
        // Both layouts stay known while they alternate.
        for _ in 0..3 {
            assert_eq!(parse(&mut tape, SAMPLE2, true), Ok(sample));
            assert_eq!(parse(&mut tape, MARKER, true), Ok(marker));
        }
        // A value of another kind, another key, an extra element, other spacing.
        for other in [
            br#"{"t": 17, "host": "node0", "free": 5, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#.as_slice(),
            br#"{"t": 17, "host": 3, "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#,
            br#"{"t": 17, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5, 3]}"#,
            br#"{"t": 17, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1,2.5]}"#,
            br#"{"t": NaN, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#,
            br#"{"t": -Infinity, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#,
        ] {
            let id = parse(&mut tape, other, true)?;
            assert!(id != sample && id != marker);
        }
        // A layout learned from an infinite number is used again (Infinity and -Infinity
        // end where their word does, not where a number would; a NaN record gets no
        // layout, as NaN never verifies equal to itself).
        for word in ["Infinity", "-Infinity"] {
            let mut tape = Tape::default();
            let text = format!(
                r#"{{"t": {word}, "host": "node0", "free": null, "m": {{"backend": "cuda"}}, "xs": [1, 2.5]}}"#
            );
            let learned = parse(&mut tape, text.as_bytes(), true)?;
            assert_eq!(
                parse(&mut tape, text.as_bytes(), true),
                Ok(learned),
                "{word}"
            );
            let hits = tape
                .shapes
                .list
                .iter()
                .find(|l| l.id == learned)
                .map(|l| l.hits);
            assert_eq!(hits, Some(1), "{word}: the second record took the layout");
        }
        Ok(())
    }

    #[test]
    fn cut_and_broken_records_fail_as_the_ordinary_parser_fails() -> Result<(), ParseError> {
        let mut tape = Tape::default();
        parse(&mut tape, SAMPLE, true)?;
        for cut in [3, 8, 20, 40, SAMPLE.len() - 1] {
            assert_eq!(
                parse(&mut tape, &SAMPLE[..cut], false),
                Err(ParseError::Incomplete)
            );
            assert!(matches!(
                parse(&mut tape, &SAMPLE[..cut], true),
                Err(ParseError::Syntax { .. })
            ));
        }
        for broken in [
            br#"{"t": 17, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]]"#.as_slice(),
            br#"{"t": 1x, "host": "node0", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#,
            b"{\"t\": 17, \"host\": \"no\x01de0\", \"free\": null, \"m\": {\"backend\": \"cuda\"}, \"xs\": [1, 2.5]}",
            br#"{"t": 17, "host": "node0\x", "free": null, "m": {"backend": "cuda"}, "xs": [1, 2.5]}"#,
        ] {
            assert!(matches!(parse(&mut tape, broken, true), Err(ParseError::Syntax { .. })));
        }
        Ok(())
    }

    #[test]
    fn runs_compare_equal_exactly_when_every_byte_does() {
        let a: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for n in 0..a.len() {
            assert!(super::same_bytes(&a[..n], &a[..n]));
            assert!(!super::same_bytes(&a[..n], &a[..n + 1]));
            for at in 0..n {
                let mut b = a[..n].to_vec();
                b[at] ^= 0x20;
                assert!(!super::same_bytes(&a[..n], &b), "length {n}, byte {at}");
            }
        }
    }

    #[test]
    fn a_tape_changed_by_hand_has_no_layout() -> Result<(), ParseError> {
        let mut tape = Tape::default();
        parse(&mut tape, SAMPLE, true)?;
        assert_ne!(tape.shape_id(), 0);
        let root = 0;
        tape.end_container(root);
        assert_eq!(tape.shape_id(), 0);
        Ok(())
    }

    /// A record with an integer `t` in place of the `{}`: the same layout for every `t`.
    fn record(template: &str, t: u64) -> Vec<u8> {
        template.replace("{}", &t.to_string()).into_bytes()
    }

    #[test]
    fn literals_in_a_layout_are_its_own_bytes() -> Result<(), ParseError> {
        // true, false and null are part of the runs: a record with them is learned and
        // the next one like it takes the layout.
        let template = r#"{"t": {}, "ok": true, "late": false, "free": null}"#;
        let mut tape = Tape::default();
        let id = parse(&mut tape, &record(template, 1), true)?;
        assert_ne!(id, 0);
        assert_eq!(parse(&mut tape, &record(template, 22), true), Ok(id));
        assert_eq!(tape.shapes.list[0].hits, 1);
        // The literal changed: another layout.
        let flipped = r#"{"t": 3, "ok": false, "late": false, "free": null}"#;
        assert_ne!(parse(&mut tape, flipped.as_bytes(), true), Ok(id));
        Ok(())
    }

    #[test]
    fn a_nan_record_gets_no_layout() -> Result<(), ParseError> {
        // NaN never equals itself, so the layout never reads its own template back.
        let text = br#"{"t": 1, "ratio": NaN}"#;
        let mut tape = Tape::default();
        assert_eq!(parse(&mut tape, text, true), Ok(0));
        assert_eq!(parse(&mut tape, text, true), Ok(0));
        assert!(tape.shapes.list.is_empty());
        Ok(())
    }

    #[test]
    fn records_past_the_limits_get_no_layout() -> Result<(), ParseError> {
        // An object of n nodes: itself, a key and a value per member, and for an even n
        // a member of three (a key, an array, its element).
        let of_nodes = |n: usize| {
            let mut members: Vec<String> = (0..(n - 1) / 2 - (n + 1) % 2)
                .map(|i| format!(r#""k{i}": {i}"#))
                .collect();
            if n.is_multiple_of(2) {
                members.push(r#""a": [0]"#.to_string());
            }
            format!("{{{}}}", members.join(", "))
        };
        for (nodes, learned) in [(super::MAX_NODES, true), (super::MAX_NODES + 1, false)] {
            let text = of_nodes(nodes);
            let mut tape = Tape::default();
            let id = parse(&mut tape, text.as_bytes(), true)?;
            assert_eq!(tape.nodes.len(), nodes);
            assert_eq!(id != 0, learned, "{nodes} nodes");
        }
        // An object of exactly so many bytes (a long string value).
        let of_bytes = |n: usize| format!(r#"{{"s": "{}"}}"#, "x".repeat(n - 9));
        for (bytes, learned) in [(super::MAX_BYTES, true), (super::MAX_BYTES + 1, false)] {
            let text = of_bytes(bytes);
            assert_eq!(text.len(), bytes);
            let mut tape = Tape::default();
            assert_eq!(
                parse(&mut tape, text.as_bytes(), true)? != 0,
                learned,
                "{bytes} bytes"
            );
        }
        Ok(())
    }

    #[test]
    fn escapes_inside_a_string_value_keep_the_layout() -> Result<(), ParseError> {
        let first = br#"{"host": "a\"b\\", "t": 1}"#;
        let second = br#"{"host": "node7", "t": 2}"#;
        let mut tape = Tape::default();
        let id = parse(&mut tape, first, true)?;
        assert_ne!(id, 0, "learned from a value with escaped quotes");
        assert_eq!(parse(&mut tape, second, true), Ok(id));
        Ok(())
    }

    /// A tape that learned as many layouts as it keeps, each from one record, with the
    /// templates of those and of one more, and the learned ids.
    fn full_of_layouts() -> Result<(Tape, Vec<String>, Vec<u64>), ParseError> {
        let templates: Vec<String> = (0..=super::MAX_SHAPES)
            .map(|k| format!(r#"{{"t": {{}}, "kind{k}": 1}}"#))
            .collect();
        let mut tape = Tape::default();
        let mut ids = Vec::new();
        for t in &templates[..super::MAX_SHAPES] {
            ids.push(parse(&mut tape, &record(t, 0), true)?);
        }
        Ok((tape, templates, ids))
    }

    #[test]
    fn the_least_used_layout_is_forgotten_first() -> Result<(), ParseError> {
        // Five layouts, four kept: the one used most stays, wherever it was learned.
        let (mut tape, templates, ids) = full_of_layouts()?;
        // The last learned is the most used.
        let busy = super::MAX_SHAPES - 1;
        for n in 1..10 {
            assert_eq!(
                parse(&mut tape, &record(&templates[busy], n), true),
                Ok(ids[busy])
            );
        }
        // A fifth layout takes the place of a little-used one, not of the busy one.
        let fifth = parse(&mut tape, &record(&templates[super::MAX_SHAPES], 0), true)?;
        assert!(fifth != 0 && !ids.contains(&fifth));
        assert_eq!(
            parse(&mut tape, &record(&templates[busy], 99), true),
            Ok(ids[busy])
        );
        Ok(())
    }

    #[test]
    fn of_two_layouts_used_alike_the_one_that_got_there_first_stays() -> Result<(), ParseError> {
        // A use moves a layout ahead only past one used less: used once each, the last
        // two keep their order, and the last of them is the one forgotten.
        let (mut tape, templates, ids) = full_of_layouts()?;
        let (third, fourth) = (super::MAX_SHAPES - 2, super::MAX_SHAPES - 1);
        // The fourth passes the unused third; the third, used as often, does not pass it back.
        assert_eq!(
            parse(&mut tape, &record(&templates[fourth], 1), true),
            Ok(ids[fourth])
        );
        assert_eq!(
            parse(&mut tape, &record(&templates[third], 1), true),
            Ok(ids[third])
        );
        let order: Vec<u64> = tape.shapes.list.iter().map(|l| l.id).collect();
        assert_eq!(&order[2..], &[ids[fourth], ids[third]]);
        // A fifth layout takes the last place: the third is forgotten, the fourth kept.
        parse(&mut tape, &record(&templates[super::MAX_SHAPES], 0), true)?;
        assert_eq!(
            parse(&mut tape, &record(&templates[fourth], 2), true),
            Ok(ids[fourth])
        );
        Ok(())
    }

    #[test]
    fn learning_rests_after_nine_misses_in_a_row_then_resumes() -> Result<(), ParseError> {
        let distinct = |k: usize| format!(r#"{{"x{k}": 1}}"#);
        let repeated = br#"{"t": 1, "again": 2}"#;
        // Eight misses: the ninth record is still learned, the tenth takes its layout.
        let mut tape = Tape::default();
        for k in 0..super::MISSES_BEFORE_REST as usize - 1 {
            parse(&mut tape, distinct(k).as_bytes(), true)?;
        }
        let id = parse(&mut tape, repeated, true)?;
        assert_ne!(id, 0, "the eighth miss still learns");
        assert_eq!(parse(&mut tape, repeated, true), Ok(id));
        // Nine misses in a row: no layout is learned for the next REST_PARSES records …
        let mut tape = Tape::default();
        for k in 0..super::MISSES_BEFORE_REST as usize {
            parse(&mut tape, distinct(k).as_bytes(), true)?;
        }
        for _ in 0..super::REST_PARSES + 1 {
            assert_eq!(parse(&mut tape, repeated, true), Ok(0), "resting");
        }
        // … then learning resumes.
        let id = parse(&mut tape, repeated, true)?;
        assert_ne!(id, 0, "learned again after the rest");
        assert_eq!(parse(&mut tape, repeated, true), Ok(id));
        Ok(())
    }
}

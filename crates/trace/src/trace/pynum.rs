//! Python's `float()`, `int()` and `round()` on the values stormlog's TUI converts
//! (CSV cells, timeline elements, identity hints), with Python's results and its
//! exception texts.
//!
//! Python ints are unbounded; here they are `i128`. A value beyond that is not a
//! Python error: it is reported as [`PyError::Beyond`] (the event store holds 64-bit
//! values anyway, so such a value could never load).

use crate::json::{py_is_space, Node, Tape};
use crate::py::py_repr_str;

/// Why a conversion failed: the exception Python raises, or our own limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PyError {
    /// `ValueError`, `TypeError` or `OverflowError`, with Python's `str(exc)`.
    Python(String),
    /// Python would hold the value; it does not fit in 128 bits.
    Beyond(String),
}

impl PyError {
    pub fn message(&self) -> &str {
        match self {
            PyError::Python(m) | PyError::Beyond(m) => m,
        }
    }
}

fn python<T>(message: impl Into<String>) -> Result<T, PyError> {
    Err(PyError::Python(message.into()))
}

/// The first code point of each run of ten Unicode decimal digits (category Nd,
/// Unicode 14.0 as in CPython 3.11; `unicodedata.decimal(c) == 0` for each).
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
    0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650,
    0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0, 0x16b50,
    0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
];

/// `unicodedata.decimal(c)`: the value of a Unicode decimal digit.
pub fn decimal_value(c: char) -> Option<u8> {
    let u = c as u32;
    let i = DECIMAL_ZEROS.partition_point(|&z| z <= u);
    let zero = *DECIMAL_ZEROS.get(i.checked_sub(1)?)?;
    (u - zero < 10).then_some((u - zero) as u8)
}

/// `_PyUnicode_TransformDecimalAndSpaceToASCII`: Unicode digits become ASCII digits
/// and Unicode spaces a blank; `None` at the first other non-ASCII character
/// (the conversion then fails, as Python's does).
fn to_ascii(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if py_is_space(c) {
            out.push(' ');
        } else {
            out.push(char::from(b'0' + decimal_value(c)?));
        }
    }
    Some(out)
}

/// `Py_ISSPACE`: the ASCII white space that `float()`/`int()` strip after the transform.
fn ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn trim_ascii_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii() && ascii_space(c as u8))
}

/// Removes `_` separators, which Python allows only between two digits.
fn without_underscores(s: &str) -> Option<String> {
    if !s.contains('_') {
        return Some(s.to_string());
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let before = i > 0 && b[i - 1].is_ascii_digit();
            let after = b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !(before && after) {
                return None;
            }
        } else {
            out.push(char::from(c));
        }
    }
    Some(out)
}

/// Is `s` (ASCII, no underscores, no spaces) a literal `PyOS_string_to_double`
/// reads in full: sign, then `inf`/`infinity`/`nan` in any case, or digits with an
/// optional fraction and exponent?
fn is_float_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    let b = body.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == b.len()
}

/// Python's `float(s)` for a string: surrounding white space, `_` between digits,
/// Unicode digits, `inf`/`infinity`/`nan` with a sign in any case; overflow gives
/// an infinity. The error is Python's `ValueError` text.
pub fn float_from_str(s: &str) -> Result<f64, PyError> {
    let fail = || {
        python(format!(
            "could not convert string to float: {}",
            py_repr_str(s)
        ))
    };
    let Some(ascii) = to_ascii(s) else {
        return fail();
    };
    let Some(clean) = without_underscores(trim_ascii_space(&ascii)) else {
        return fail();
    };
    if !is_float_literal(&clean) {
        return fail();
    }
    // The literal is in the grammar Rust's parser reads (correctly rounded).
    match clean.parse::<f64>() {
        Ok(v) => Ok(v),
        Err(_) => fail(),
    }
}

/// Python's `int(s)` for a string (base 10): surrounding white space, a sign,
/// digits with `_` between them, Unicode digits, leading zeros.
pub fn int_from_str(s: &str) -> Result<i128, PyError> {
    let fail = || {
        python(format!(
            "invalid literal for int() with base 10: {}",
            py_repr_str(s)
        ))
    };
    let Some(ascii) = to_ascii(s) else {
        return fail();
    };
    let t = trim_ascii_space(&ascii);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let Some(digits) = without_underscores(digits) else {
        return fail();
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return fail();
    }
    let signed = if negative {
        format!("-{digits}")
    } else {
        digits
    };
    signed.parse::<i128>().map_err(|_| {
        PyError::Beyond(format!(
            "integer {} is outside the supported 128-bit range",
            py_repr_str(s)
        ))
    })
}

/// Python's `int(x)` for a float: truncation toward zero; NaN and infinities fail
/// with Python's texts.
pub fn int_from_float(x: f64) -> Result<i128, PyError> {
    if x.is_nan() {
        return python("cannot convert float NaN to integer");
    }
    if x.is_infinite() {
        return python("cannot convert float infinity to integer");
    }
    let t = x.trunc();
    // 2^127: the first value an i128 cannot hold.
    if t.abs() >= 1.701_411_834_604_692_3e38 {
        return Err(PyError::Beyond(format!(
            "integer {t:.0} is outside the supported 128-bit range"
        )));
    }
    Ok(t as i128)
}

/// The exact decimal digits of `int(x)` for a float, however large (Python's ints are
/// unbounded); NaN and infinities fail with Python's texts.
pub fn int_digits_from_float(x: f64) -> Result<String, PyError> {
    match int_from_float(x) {
        Ok(v) => Ok(v.to_string()),
        // Rust prints the exact value of a float with a fixed precision.
        Err(PyError::Beyond(_)) => Ok(format!("{:.0}", x.trunc())),
        Err(e) => Err(e),
    }
}

/// Python's `round(x)` (no digits: an int, ties to even).
pub fn round_to_int(x: f64) -> Result<i128, PyError> {
    int_from_float(x.round_ties_even())
}

/// Python's name of a JSON value's type, as `TypeError` texts print it.
fn type_name(node: Node) -> &'static str {
    match node {
        Node::Null => "NoneType",
        Node::Bool(_) => "bool",
        Node::Int(_) | Node::BigInt { .. } => "int",
        Node::Float(_) => "float",
        Node::Str { .. } | Node::Key { .. } => "str",
        Node::Array { .. } => "list",
        Node::Object { .. } => "dict",
    }
}

/// Python's `float(v)` for a JSON value.
pub fn float_from_node(tape: &Tape, idx: usize) -> Result<f64, PyError> {
    let node = tape.nodes[idx];
    match node {
        Node::Int(v) => Ok(v as f64),
        Node::BigInt { .. } => {
            // The literal's digits, correctly rounded like Python's int-to-float.
            let text = String::from_utf8_lossy(tape.bytes(node)).into_owned();
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => python("int too large to convert to float"),
            }
        }
        Node::Float(f) => Ok(f),
        Node::Bool(b) => Ok(if b { 1.0 } else { 0.0 }),
        Node::Str { .. } => float_from_str(&tape.text_of(node)),
        other => python(format!(
            "float() argument must be a string or a real number, not '{}'",
            type_name(other)
        )),
    }
}

/// Python's `int(v)` for a JSON value.
pub fn int_from_node(tape: &Tape, idx: usize) -> Result<i128, PyError> {
    let node = tape.nodes[idx];
    match node {
        Node::Int(v) => Ok(i128::from(v)),
        Node::BigInt { .. } => tape.big_int(node).ok_or_else(|| {
            PyError::Beyond("integer is outside the supported 128-bit range".to_string())
        }),
        Node::Bool(b) => Ok(i128::from(b)),
        Node::Float(f) => int_from_float(f),
        Node::Str { .. } => int_from_str(&tape.text_of(node)),
        other => python(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            type_name(other)
        )),
    }
}

/// The TUI's `_coerce_optional_int(value, minimum=...)`: `None` for null, booleans,
/// values `int()` rejects with `TypeError`/`ValueError`, non-integral floats and values
/// below `minimum`. `int(inf)` raises `OverflowError`, which the TUI does not catch.
pub fn optional_int_hint(
    tape: &Tape,
    idx: Option<usize>,
    minimum: i128,
) -> Result<Option<i128>, PyError> {
    let Some(idx) = idx else {
        return Ok(None);
    };
    let node = tape.nodes[idx];
    let parsed = match node {
        Node::Null | Node::Bool(_) => return Ok(None),
        Node::Float(f) if f.is_infinite() => return int_from_float(f).map(Some),
        Node::Float(f) if f.is_nan() || f.fract() != 0.0 => return Ok(None),
        _ => match int_from_node(tape, idx) {
            Ok(v) => v,
            Err(PyError::Python(_)) => return Ok(None),
            Err(e) => return Err(e),
        },
    };
    Ok((parsed >= minimum).then_some(parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float_ok(s: &str) -> f64 {
        float_from_str(s).unwrap_or_else(|e| panic!("{s:?}: {e:?}"))
    }

    fn float_err(s: &str) -> String {
        match float_from_str(s) {
            Ok(v) => panic!("{s:?} parsed as {v}"),
            Err(e) => e.message().to_string(),
        }
    }

    // Every expectation below was printed by CPython 3.11.
    #[test]
    fn float_accepts_what_python_accepts() {
        assert_eq!(float_ok("1"), 1.0);
        assert_eq!(float_ok("4.0"), 4.0);
        assert_eq!(float_ok("1.7e+18"), 1.7e18);
        assert_eq!(float_ok(" 1_000 "), 1000.0);
        assert_eq!(float_ok("1."), 1.0);
        assert_eq!(float_ok(".5"), 0.5);
        assert_eq!(float_ok("1e1_0"), 1e10);
        assert_eq!(float_ok("\u{661}\u{662}"), 12.0);
        assert_eq!(float_ok("\u{2000}1"), 1.0);
        assert_eq!(float_ok("-Infinity"), f64::NEG_INFINITY);
        assert_eq!(float_ok("iNf"), f64::INFINITY);
        assert_eq!(float_ok("1e400"), f64::INFINITY);
        assert!(float_ok("-nan").is_nan());
        assert_eq!(float_ok("1700000001525000000"), 1.700000001525e18);
    }

    #[test]
    fn float_rejects_what_python_rejects_with_its_text() {
        assert_eq!(float_err("x"), "could not convert string to float: 'x'");
        assert_eq!(float_err(""), "could not convert string to float: ''");
        for s in [
            "1__0", "_1", "1_", "1e", "0x10", "1._5", ".", "e5", "infinit", "nan(1)",
        ] {
            assert!(
                float_err(s).starts_with("could not convert string to float: "),
                "{s}"
            );
        }
        assert_eq!(
            float_err("1\u{1c}"),
            "could not convert string to float: '1\\x1c'"
        );
        assert_eq!(
            float_err("{'a': 1}"),
            "could not convert string to float: \"{'a': 1}\""
        );
    }

    #[test]
    fn int_of_float_truncates_and_fails_like_python() {
        assert_eq!(int_from_float(1.7e18), Ok(1_700_000_000_000_000_000));
        assert_eq!(int_from_float(-2.9), Ok(-2));
        assert_eq!(
            int_from_float(1.700000001525e18),
            Ok(1_700_000_001_524_999_936)
        );
        assert_eq!(
            int_from_float(f64::NAN),
            Err(PyError::Python(
                "cannot convert float NaN to integer".into()
            ))
        );
        assert_eq!(
            int_from_float(f64::NEG_INFINITY),
            Err(PyError::Python(
                "cannot convert float infinity to integer".into()
            ))
        );
        assert!(matches!(int_from_float(1e300), Err(PyError::Beyond(_))));
        assert_eq!(
            int_digits_from_float(1e20).as_deref(),
            Ok("100000000000000000000")
        );
        assert!(int_digits_from_float(1e300).is_ok_and(|d| d.len() == 301));
    }

    #[test]
    fn int_of_strings_follows_python() {
        assert_eq!(int_from_str(" 7 "), Ok(7));
        assert_eq!(int_from_str("1_0"), Ok(10));
        assert_eq!(int_from_str("-007"), Ok(-7));
        assert_eq!(int_from_str("\u{663}"), Ok(3));
        assert_eq!(
            int_from_str("1.5"),
            Err(PyError::Python(
                "invalid literal for int() with base 10: '1.5'".into()
            ))
        );
        assert!(int_from_str("_1").is_err());
        assert!(int_from_str("").is_err());
        assert!(int_from_str("+").is_err());
    }

    #[test]
    fn round_is_half_even() {
        assert_eq!(round_to_int(0.5), Ok(0));
        assert_eq!(round_to_int(1.5), Ok(2));
        assert_eq!(round_to_int(2.5), Ok(2));
        assert_eq!(round_to_int(-0.5), Ok(0));
        assert_eq!(round_to_int(99.99999), Ok(100));
        assert!(round_to_int(f64::NAN).is_err());
    }

    #[test]
    fn json_values_convert_like_python() {
        let mut tape = Tape::default();
        let src =
            br#"[1, 2.5, true, "12", null, [], {}, "x", 1e999, 3.0, 20000000000000000000000]"#;
        assert!(tape.parse_value(src, 0, true).is_ok());
        let el: Vec<usize> = tape.elements(0).collect();
        assert_eq!(float_from_node(&tape, el[0]), Ok(1.0));
        assert_eq!(int_from_node(&tape, el[1]), Ok(2));
        assert_eq!(int_from_node(&tape, el[2]), Ok(1));
        assert_eq!(float_from_node(&tape, el[3]), Ok(12.0));
        assert_eq!(
            int_from_node(&tape, el[4]),
            Err(PyError::Python("int() argument must be a string, a bytes-like object or a real number, not 'NoneType'".into()))
        );
        assert_eq!(
            float_from_node(&tape, el[5]),
            Err(PyError::Python(
                "float() argument must be a string or a real number, not 'list'".into()
            ))
        );
        assert_eq!(optional_int_hint(&tape, Some(el[1]), 0), Ok(None));
        assert_eq!(optional_int_hint(&tape, Some(el[2]), 0), Ok(None));
        assert_eq!(optional_int_hint(&tape, Some(el[3]), 0), Ok(Some(12)));
        assert_eq!(optional_int_hint(&tape, Some(el[3]), 13), Ok(None));
        assert_eq!(optional_int_hint(&tape, Some(el[6]), 0), Ok(None));
        assert_eq!(optional_int_hint(&tape, Some(el[7]), 0), Ok(None));
        assert!(optional_int_hint(&tape, Some(el[8]), 0).is_err());
        assert_eq!(optional_int_hint(&tape, Some(el[9]), 0), Ok(Some(3)));
        assert_eq!(float_from_node(&tape, el[10]), Ok(2e22));
        assert_eq!(decimal_value('\u{1fbf9}'), Some(9));
        assert_eq!(decimal_value('a'), None);
        assert_eq!(decimal_value('\u{1fbfa}'), None);
    }
}

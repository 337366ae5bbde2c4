//! The rank filter of stormlog's TUI (`parse_rank_filter`): `all`, `*`, `0,2,4-7`.
//! Same rules and messages; the result is the selected ranks among those present.

use crate::json::py_strip;
use crate::py::py_repr_str;

/// Why a rank filter could not be read (stormlog's `ValueError` text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RankFilterError {
    pub message: String,
}

/// Python's `int(text)` for base 10: surrounding whitespace, one sign, digits with
/// single underscores between them.
fn py_int(text: &str) -> Result<i64, RankFilterError> {
    let invalid = || RankFilterError {
        message: format!(
            "invalid literal for int() with base 10: {}",
            py_repr_str(text)
        ),
    };
    let t = py_strip(text);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let bytes = digits.as_bytes();
    let well_formed = !bytes.is_empty()
        && bytes.first().is_some_and(u8::is_ascii_digit)
        && bytes.last().is_some_and(u8::is_ascii_digit)
        && bytes.iter().all(|b| b.is_ascii_digit() || *b == b'_')
        && !digits.contains("__");
    if !well_formed {
        return Err(invalid());
    }
    let mut value: i64 = 0;
    for b in bytes.iter().filter(|b| b.is_ascii_digit()) {
        // Ranks beyond i64 select nothing; saturate rather than fail.
        value = value.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    Ok(if negative { -value } else { value })
}

/// One comma-separated token: a rank or an inclusive range.
fn parse_token(chunk: &str) -> Result<(i64, i64), RankFilterError> {
    match chunk.split_once('-') {
        Some((a, b)) => {
            if a.is_empty() || b.is_empty() {
                return Err(RankFilterError {
                    message: format!("Invalid rank range: {}", py_repr_str(chunk)),
                });
            }
            let (start, end) = (py_int(a)?, py_int(b)?);
            if start > end {
                return Err(RankFilterError {
                    message: format!("Invalid rank range (start>end): {}", py_repr_str(chunk)),
                });
            }
            Ok((start, end))
        }
        None => {
            let r = py_int(chunk)?;
            Ok((r, r))
        }
    }
}

/// The ranks of `available` that `expr` selects, ascending. With nothing available
/// the answer is empty whatever the text (stormlog checks nothing then).
pub fn parse_rank_filter(expr: &str, available: &[i64]) -> Result<Vec<i64>, RankFilterError> {
    let mut ranks: Vec<i64> = available.to_vec();
    ranks.sort_unstable();
    ranks.dedup();
    if ranks.is_empty() {
        return Ok(ranks);
    }
    let text = py_strip(expr).to_lowercase();
    if text.is_empty() || text == "all" || text == "*" {
        return Ok(ranks);
    }
    let mut wanted: Vec<(i64, i64)> = Vec::new();
    for token in text.split(',') {
        let chunk = py_strip(token);
        if !chunk.is_empty() {
            wanted.push(parse_token(chunk)?);
        }
    }
    Ok(ranks
        .into_iter()
        .filter(|r| wanted.iter().any(|(a, b)| (a..=b).contains(&r)))
        .collect())
}

/// Whether `expr` is readable at all (checked before any rank is known, e.g. in a link).
pub fn check_rank_filter(expr: &str) -> Result<(), RankFilterError> {
    parse_rank_filter(expr, &[0]).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EIGHT: [i64; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

    #[test]
    fn stormlog_syntax() {
        assert_eq!(parse_rank_filter("all", &EIGHT), Ok(EIGHT.to_vec()));
        assert_eq!(parse_rank_filter("  ALL ", &EIGHT), Ok(EIGHT.to_vec()));
        assert_eq!(parse_rank_filter("*", &EIGHT), Ok(EIGHT.to_vec()));
        assert_eq!(parse_rank_filter("", &EIGHT), Ok(EIGHT.to_vec()));
        assert_eq!(
            parse_rank_filter("0,2,4-6", &EIGHT),
            Ok(vec![0, 2, 4, 5, 6])
        );
        assert_eq!(
            parse_rank_filter(" 7 , 1 - 2 ,, ", &EIGHT),
            Ok(vec![1, 2, 7])
        );
        assert_eq!(parse_rank_filter("+3,1_0", &[3, 10]), Ok(vec![3, 10]));
        assert_eq!(parse_rank_filter("9-12", &EIGHT), Ok(vec![]));
        assert_eq!(parse_rank_filter("nonsense", &[]), Ok(vec![]));
    }

    #[test]
    fn stormlog_messages() {
        let err = |s: &str| parse_rank_filter(s, &EIGHT).map_err(|e| e.message);
        assert_eq!(
            err("5-3"),
            Err("Invalid rank range (start>end): '5-3'".into())
        );
        assert_eq!(err("3-"), Err("Invalid rank range: '3-'".into()));
        assert_eq!(err("-1"), Err("Invalid rank range: '-1'".into()));
        assert_eq!(
            err("a"),
            Err("invalid literal for int() with base 10: 'a'".into())
        );
        assert_eq!(
            err("1-2-3"),
            Err("invalid literal for int() with base 10: '2-3'".into())
        );
        assert_eq!(
            err("1__0"),
            Err("invalid literal for int() with base 10: '1__0'".into())
        );
        assert!(check_rank_filter("0,2,4-7").is_ok());
    }
}

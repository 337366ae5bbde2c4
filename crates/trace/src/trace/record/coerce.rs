//! Python's coercions of a record's values, with stormlog's messages.

use super::*;

/// `_coerce_int`: ints only (booleans and floats are not ints). Python ints are
/// unbounded; values are kept exactly up to `i128` while validating, and must fit
/// in `i64` only once stormlog would accept the record (see [`fit`]).
pub(super) fn coerce_int(tape: &Tape, node: Option<Node>, field: &str) -> Result<i128> {
    match node {
        Some(Node::Int(v)) => Ok(i128::from(v)),
        Some(n @ Node::BigInt { .. }) => match tape.big_int(n) {
            Some(v) => Ok(v),
            None => fail(field, out_of_range(field)),
        },
        _ => fail(field, format!("{field} must be an integer")),
    }
}

pub(super) fn out_of_range(field: &str) -> String {
    format!("{field} is outside the supported 64-bit integer range")
}

/// A validated value that the compact event stores as `i64`.
pub(super) fn fit(value: i128, field: &str) -> Result<i64> {
    i64::try_from(value).map_err(|_| RecordError {
        field: Some(field.to_string()),
        message: out_of_range(field),
        beyond_stormlog: true,
        python_text: None,
    })
}

pub(super) fn fit_opt(value: Option<i128>, field: &str) -> Result<Option<i64>> {
    value.map(|v| fit(v, field)).transpose()
}

/// `_coerce_optional_int`: `None`/null allowed.
pub(super) fn coerce_optional_int(
    tape: &Tape,
    node: Option<Node>,
    field: &str,
) -> Result<Option<i128>> {
    match node {
        None | Some(Node::Null) => Ok(None),
        other => coerce_int(tape, other, field).map(Some),
    }
}

/// `_coerce_string(value, field, allow_none=...)`: the string's text, or `None`.
pub(super) fn coerce_string<'t>(
    tape: &'t Tape,
    node: Option<Node>,
    field: &str,
    allow_none: bool,
) -> Result<Option<Cow<'t, str>>> {
    match node {
        None | Some(Node::Null) => {
            if allow_none {
                Ok(None)
            } else {
                fail(field, format!("{field} must be a non-empty string"))
            }
        }
        Some(n @ Node::Str { .. }) => {
            let text = tape.text_of(n);
            if !allow_none && py_strip(&text).is_empty() {
                return fail(field, format!("{field} must be a non-empty string"));
            }
            Ok(Some(text))
        }
        Some(_) => fail(field, format!("{field} must be a string")),
    }
}

pub(super) fn coerce_required_string<'t>(
    tape: &'t Tape,
    node: Option<Node>,
    field: &str,
) -> Result<Cow<'t, str>> {
    match coerce_string(tape, node, field, false)? {
        Some(text) => Ok(text),
        None => fail(field, format!("{field} must be a non-empty string")),
    }
}

/// `_coerce_optional_non_empty_string`.
pub(super) fn coerce_optional_non_empty_string<'t>(
    tape: &'t Tape,
    node: Option<Node>,
    field: &str,
) -> Result<Option<Cow<'t, str>>> {
    match node {
        None | Some(Node::Null) => Ok(None),
        other => coerce_required_string(tape, other, field).map(Some),
    }
}

pub(super) fn non_negative(value: i128, field: &str) -> Result<i128> {
    if value < 0 {
        return fail(field, format!("{field} must be >= 0"));
    }
    Ok(value)
}

pub(super) fn positive(value: i128, field: &str) -> Result<i128> {
    if value <= 0 {
        return fail(field, format!("{field} must be >= 1"));
    }
    Ok(value)
}

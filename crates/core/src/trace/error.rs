//! Typed loading errors: what went wrong, with file, line/column or record, and field.

use serde::Serialize;

/// What kind of failure a [`LoadError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadErrorKind {
    /// The file could not be opened or read.
    Io,
    /// A gzip stream is corrupt.
    Gzip,
    /// The bytes are not UTF-8 (Python's `UnicodeDecodeError`).
    Utf8,
    /// JSON syntax (Python's `JSONDecodeError`), or a malformed JSONL line.
    Syntax,
    /// Valid JSON of the wrong shape (no events list, an event that is not an object).
    Shape,
    /// A record that stormlog's validation rejects (its `ValueError` text).
    Record,
    /// A session problem (`--session-id` not found, a tracker summary mismatch).
    Session,
    /// A path that does not exist or holds nothing to load.
    NotFound,
}

/// A failure to load one input, located as precisely as possible.
///
/// `message` is stormlog's own text where stormlog has one (e.g. `rank must be >= 0`);
/// `Display` appends where it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}", self.describe())]
pub struct LoadError {
    pub kind: LoadErrorKind,
    pub message: String,
    /// The file's name (not its full path).
    pub file: String,
    /// 1-based line in the file, when known.
    pub line: Option<u64>,
    /// 1-based column (in characters), for syntax errors.
    pub column: Option<u32>,
    /// 0-based index of the record in its events list (JSON) — JSONL uses `line`.
    pub record: Option<u64>,
    /// The record field at fault, when there is one.
    pub field: Option<String>,
}

impl LoadError {
    pub fn new(kind: LoadErrorKind, file: &str, message: impl Into<String>) -> LoadError {
        LoadError {
            kind,
            message: message.into(),
            file: file.to_string(),
            line: None,
            column: None,
            record: None,
            field: None,
        }
    }

    /// "message (in file, line L, column C, record R, field `f`)".
    pub fn describe(&self) -> String {
        let mut at = vec![format!("in {}", self.file)];
        if let Some(line) = self.line {
            at.push(format!("line {line}"));
        }
        if let Some(column) = self.column {
            at.push(format!("column {column}"));
        }
        if let Some(record) = self.record {
            at.push(format!("record {record}"));
        }
        if let Some(field) = &self.field {
            at.push(format!("field `{field}`"));
        }
        format!("{} ({})", self.message, at.join(", "))
    }
}

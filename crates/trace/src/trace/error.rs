//! Typed loading errors: what went wrong, with file, line/column or record, and field.

use serde::Serialize;

/// What kind of failure a [`LoadError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
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
    /// An archive (zip, tar, tar.gz) that cannot be read, or unpacks to more than the
    /// limit (beyond stormlog, which reads no archive).
    Archive,
}

impl LoadErrorKind {
    /// The kind's serialised name (`io`, `gzip`, ..., `not_found`, `archive`).
    pub fn name(self) -> &'static str {
        match self {
            LoadErrorKind::Io => "io",
            LoadErrorKind::Gzip => "gzip",
            LoadErrorKind::Utf8 => "utf8",
            LoadErrorKind::Syntax => "syntax",
            LoadErrorKind::Shape => "shape",
            LoadErrorKind::Record => "record",
            LoadErrorKind::Session => "session",
            LoadErrorKind::NotFound => "not_found",
            LoadErrorKind::Archive => "archive",
        }
    }
}

/// A failure to load one input, located as precisely as possible.
///
/// `message` is stormlog's own text where stormlog has one (e.g. `rank must be >= 0`);
/// `Display` appends where it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, thiserror::Error)]
#[error("{}", self.describe())]
pub struct LoadError {
    pub kind: LoadErrorKind,
    pub message: String,
    /// The file's name (not its full path); `None` when no single file is at fault
    /// (e.g. a requested session that no file holds).
    pub file: Option<String>,
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
    /// An error in `file`.
    pub fn new(kind: LoadErrorKind, file: &str, message: impl Into<String>) -> LoadError {
        LoadError {
            file: Some(file.to_string()),
            ..LoadError::general(kind, message)
        }
    }

    /// An error that concerns no single file.
    pub fn general(kind: LoadErrorKind, message: impl Into<String>) -> LoadError {
        LoadError {
            kind,
            message: message.into(),
            file: None,
            line: None,
            column: None,
            record: None,
            field: None,
        }
    }

    /// "message (in file, line L, column C, record R, field `f`)"; just the message
    /// when nothing locates it.
    pub fn describe(&self) -> String {
        let mut at: Vec<String> = self.file.iter().map(|f| format!("in {f}")).collect();
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
        if at.is_empty() {
            return self.message.clone();
        }
        format!("{} ({})", self.message, at.join(", "))
    }
}

/// Something stormlog's TUI reports but loads anyway (a CSV row it skipped, a
/// timeline it synthesized events from). `message` is the TUI's own text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LoadWarning {
    pub message: String,
    /// The file's name, when the warning concerns one file.
    pub file: Option<String>,
    /// 1-based line (for CSV: the TUI's row number, header = 1).
    pub line: Option<u64>,
}

impl LoadWarning {
    pub fn new(file: Option<&str>, line: Option<u64>, message: impl Into<String>) -> LoadWarning {
        LoadWarning {
            message: message.into(),
            file: file.map(str::to_string),
            line,
        }
    }
}

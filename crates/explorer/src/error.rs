//! Typed errors of the explorer: every error names the offending field and says why.

use thiserror::Error;

/// Everything that can go wrong while building or running an exploration.
///
/// `field()` returns the dotted name of the setting at fault (`model.h_q`, `s_kv`,
/// `baseline.cp`, ...) so front ends can highlight it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ExplorerError {
    /// A value is out of its domain. `message` is complete, e.g.
    /// `model.h_q (60) must be a multiple of model.h_kv (8)`.
    #[error("{message}")]
    Invalid {
        /// Dotted field name, e.g. `model.h_q`.
        field: String,
        /// Full human message, starting with the field name.
        message: String,
    },
    /// A custom model or machine document is not valid JSON for its schema.
    #[error("{what} JSON: {message}")]
    Json {
        /// `model` or `machine`.
        what: &'static str,
        /// serde_json's message (it includes the line and column).
        message: String,
        /// 1-based line of the problem, when known.
        line: Option<usize>,
    },
    /// An unknown preset name.
    #[error("unknown {what} preset `{name}` (known: {known})")]
    UnknownPreset {
        /// `model` or `machine`.
        what: &'static str,
        /// The name that was asked for.
        name: String,
        /// Comma-separated list of known presets.
        known: String,
    },
}

impl ExplorerError {
    /// Build an [`ExplorerError::Invalid`].
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ExplorerError::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The dotted name of the field at fault, when there is one.
    pub fn field(&self) -> Option<&str> {
        match self {
            ExplorerError::Invalid { field, .. } => Some(field),
            ExplorerError::Json { .. } => None,
            ExplorerError::UnknownPreset { what, .. } => Some(what),
        }
    }
}

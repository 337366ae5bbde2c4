//! The command line's one error type and its one error object (docs/contracts.md section 1):
//! a one-line message on stderr, and with `--format json` the object
//! `{"error", "file", "line", "record", "field"}` on stdout (`null` where unknown;
//! `"file": null` when no file is at fault). Exit status 2.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use shardscope_attribution::analysis::AnalyzeError;
use shardscope_explorer::ExplorerError;
use shardscope_trace::trace::LoadError;

use crate::Format;

#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct CliError {
    #[serde(rename = "error")]
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub record: Option<u64>,
    pub field: Option<String>,
}

impl CliError {
    /// A bad value of one option or field.
    pub fn field(field: &str, message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            field: Some(field.to_string()),
            ..CliError::default()
        }
    }

    /// An explorer error; `file` is the custom model or machine file it came from.
    pub fn explorer(e: ExplorerError, file: Option<&str>) -> CliError {
        let line = match &e {
            ExplorerError::Json { line, .. } => line.map(|l| l as u64),
            _ => None,
        };
        CliError {
            field: e.field().map(str::to_string),
            message: e.to_string(),
            file: file.map(str::to_string),
            line,
            record: None,
        }
    }

    /// Prints the error as docs/contracts.md says; exit status 2.
    pub fn report(&self, command: &str, format: Format) -> ExitCode {
        let who = if command.is_empty() {
            "shardscope".to_string()
        } else {
            format!("shardscope {command}")
        };
        eprintln!("{who}: {}", self.message.replace('\n', " "));
        if format == Format::Json {
            if let Ok(text) = serde_json::to_string(self) {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{text}");
            }
        }
        ExitCode::from(2)
    }
}

impl From<LoadError> for CliError {
    fn from(e: LoadError) -> CliError {
        CliError {
            message: e.describe(),
            file: e.file,
            line: e.line,
            record: e.record,
            field: e.field,
        }
    }
}

impl From<AnalyzeError> for CliError {
    fn from(e: AnalyzeError) -> CliError {
        match e {
            AnalyzeError::Load(e) => e.into(),
            AnalyzeError::Settings(e) => CliError {
                message: e.message,
                field: e.field,
                ..CliError::default()
            },
            AnalyzeError::Clocks(e) => CliError::field("align_clocks", e.to_string()),
        }
    }
}

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error of ours.
pub fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    ExitCode::SUCCESS
}

//! The core's typed errors as Python exceptions, raised once, here.
//!
//! stormlog raises `ValueError` for bad input and bad settings; ours is `TraceError`, a
//! subclass, that also carries where: `file`, `line`, `column`, `record`, `field` (each
//! `None` where unknown) and `kind` (the core's `LoadErrorKind`, snake case). Where
//! Python itself would raise `TypeError` (a string compared with a number), so do we,
//! with Python's message.

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use shardscope_attribution::analysis::AnalyzeError;
use shardscope_attribution::attribution::SettingsError;
use shardscope_cli::CliError;
use shardscope_trace::trace::LoadError;

create_exception!(
    shardscope,
    TraceError,
    PyValueError,
    "A trace or a setting Shardscope cannot use: stormlog's ValueError, located.\n\n\
     Attributes: message (the text without where), file, line, column, record, field,\n\
     kind (None where unknown)."
);

/// Which message a load error carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Located {
    /// stormlog's own text, exactly (the drop-in); where is in the attributes.
    Stormlog,
    /// The command line's: stormlog's text, then where in parentheses.
    Described,
}

struct Where<'a> {
    file: Option<&'a str>,
    line: Option<u64>,
    column: Option<u32>,
    record: Option<u64>,
    field: Option<&'a str>,
    kind: Option<&'a str>,
}

const NOWHERE: Where<'static> = Where {
    file: None,
    line: None,
    column: None,
    record: None,
    field: None,
    kind: None,
};

/// A `TraceError` that reads `shown` (`str(err)`) and holds the bare `message` (the CLI
/// JSON error object's `error`) and where.
fn located_error(shown: String, message: String, at: Where<'_>) -> PyErr {
    let err = TraceError::new_err(shown);
    Python::attach(|py| {
        let value = err.value(py);
        let set = || -> PyResult<()> {
            value.setattr("message", message)?;
            value.setattr("file", at.file)?;
            value.setattr("line", at.line)?;
            value.setattr("column", at.column)?;
            value.setattr("record", at.record)?;
            value.setattr("field", at.field)?;
            value.setattr("kind", at.kind)?;
            Ok(())
        };
        // Attributes that cannot be set leave the exception as it is: still the error.
        let _ = set();
    });
    err
}

fn trace_error(message: String, at: Where<'_>) -> PyErr {
    located_error(message.clone(), message, at)
}

pub fn load_error(e: &LoadError, located: Located) -> PyErr {
    let shown = match located {
        Located::Stormlog => e.message.clone(),
        Located::Described => e.describe(),
    };
    located_error(
        shown,
        e.message.clone(),
        Where {
            file: e.file.as_deref(),
            line: e.line,
            column: e.column,
            record: e.record,
            field: e.field.as_deref(),
            kind: Some(e.kind.name()),
        },
    )
}

pub fn settings_error(e: &SettingsError) -> PyErr {
    if let Some(python) = e.python_type_error() {
        return PyTypeError::new_err(python.to_string());
    }
    trace_error(
        e.message.clone(),
        Where {
            field: e.field.as_deref(),
            ..NOWHERE
        },
    )
}

pub fn analyze_error(e: &AnalyzeError, located: Located) -> PyErr {
    match e {
        AnalyzeError::Load(e) => load_error(e, located),
        AnalyzeError::Settings(e) => settings_error(e),
        AnalyzeError::Clocks(e) => trace_error(
            e.to_string(),
            Where {
                field: Some("align_clocks"),
                ..NOWHERE
            },
        ),
    }
}

pub fn cli_error(e: &CliError) -> PyErr {
    trace_error(
        e.message.clone(),
        Where {
            file: e.file.as_deref(),
            line: e.line,
            record: e.record,
            field: e.field.as_deref(),
            ..NOWHERE
        },
    )
}

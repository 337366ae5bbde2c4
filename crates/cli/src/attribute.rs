//! `shardscope attribute`: load traces, run stormlog's collective attribution, print.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use shardscope_core::analysis::{analyze, export, AnalyzeError, AnalyzeSettings};
use shardscope_core::attribution::{AttributionResult, OverrideValue};
use shardscope_core::trace::{LoadError, StdFs};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Table,
    Csv,
}

struct Args {
    paths: Vec<String>,
    preset: String,
    overrides: Vec<(String, OverrideValue)>,
    session_id: Option<String>,
    phases: bool,
    format: Format,
}

/// The error object of CONTRACTS.md, printed on stdout with `--format json`.
#[derive(Serialize)]
struct ErrorObject<'a> {
    error: &'a str,
    file: Option<&'a str>,
    line: Option<u64>,
    record: Option<u64>,
    field: Option<&'a str>,
}

struct Failure {
    message: String,
    file: Option<String>,
    line: Option<u64>,
    record: Option<u64>,
    field: Option<String>,
}

impl From<AnalyzeError> for Failure {
    fn from(e: AnalyzeError) -> Failure {
        match e {
            AnalyzeError::Load(e) => e.into(),
            AnalyzeError::Settings(e) => Failure {
                message: e.message,
                file: None,
                line: None,
                record: None,
                field: e.field,
            },
        }
    }
}

impl From<LoadError> for Failure {
    fn from(e: LoadError) -> Failure {
        Failure {
            message: e.describe(),
            file: e.file,
            line: e.line,
            record: e.record,
            field: e.field,
        }
    }
}

fn usage_failure(message: String) -> Failure {
    Failure {
        message,
        file: None,
        line: None,
        record: None,
        field: None,
    }
}

fn parse_args(args: &[String]) -> Result<Args, (Failure, Format)> {
    let mut out = Args {
        paths: Vec::new(),
        preset: "medium".to_string(),
        overrides: Vec::new(),
        session_id: None,
        phases: false,
        format: Format::Json,
    };
    // The format is needed to report argument errors in the right shape.
    let mut i = 0;
    let mut pending_error: Option<String> = None;
    while i < args.len() {
        let arg = &args[i];
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let value = |i: &mut usize| -> Option<String> {
            if let Some(v) = inline.clone() {
                return Some(v);
            }
            *i += 1;
            args.get(*i).cloned()
        };
        match flag.as_str() {
            "--preset" => match value(&mut i) {
                Some(v) => out.preset = v,
                None => pending_error = pending_error.or(Some("--preset needs a value".into())),
            },
            "--override" => match value(&mut i) {
                Some(v) => match v.split_once('=') {
                    Some((k, val)) => out
                        .overrides
                        .push((k.trim().to_string(), OverrideValue::parse_cli(val))),
                    None => {
                        pending_error = pending_error
                            .or(Some(format!("--override expects KEY=VALUE, got `{v}`")));
                    }
                },
                None => pending_error = pending_error.or(Some("--override needs KEY=VALUE".into())),
            },
            "--session-id" => match value(&mut i) {
                Some(v) => out.session_id = Some(v),
                None => pending_error = pending_error.or(Some("--session-id needs a value".into())),
            },
            "--phases" => out.phases = true,
            "--format" => match value(&mut i).as_deref() {
                Some("json") => out.format = Format::Json,
                Some("table") => out.format = Format::Table,
                Some("csv") => out.format = Format::Csv,
                other => {
                    pending_error = pending_error.or(Some(format!(
                        "--format must be json, table or csv, got `{}`",
                        other.unwrap_or("")
                    )))
                }
            },
            f if f.starts_with("--") => {
                pending_error = pending_error.or(Some(format!("unknown option `{f}`")));
            }
            _ => out.paths.push(arg.clone()),
        }
        i += 1;
    }
    if out.paths.is_empty() {
        pending_error = pending_error.or(Some("attribute needs at least one PATH".into()));
    }
    match pending_error {
        Some(m) => Err((usage_failure(m), out.format)),
        None => Ok(out),
    }
}

pub fn run(args: &[String]) -> ExitCode {
    let parsed = match parse_args(args) {
        Ok(a) => a,
        Err((failure, format)) => return fail(&failure, format),
    };
    match execute(&parsed) {
        Ok(results) => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let text = match parsed.format {
                Format::Json => export::to_json(&results),
                Format::Table => export::to_table(&results),
                Format::Csv => export::to_csv(&results),
            };
            if out
                .write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(failure) => fail(&failure, parsed.format),
    }
}

fn execute(args: &Args) -> Result<Vec<AttributionResult>, Failure> {
    let settings = AnalyzeSettings {
        preset: args.preset.clone(),
        overrides: args.overrides.clone(),
        session_id: args.session_id.clone(),
        phases: args.phases,
    };
    let analysis = analyze(&StdFs, &args.paths, &settings, true, &mut |_| {});
    for warning in &analysis.dataset.warnings {
        eprintln!("shardscope attribute: warning: {}", warning.message);
    }
    if let Some(e) = analysis.first_error() {
        return Err(e.into());
    }
    Ok(analysis.attribution.map(|a| a.results).unwrap_or_default())
}

fn fail(failure: &Failure, format: Format) -> ExitCode {
    eprintln!("shardscope attribute: {}", failure.message);
    if format == Format::Json {
        let obj = ErrorObject {
            error: &failure.message,
            file: failure.file.as_deref(),
            line: failure.line,
            record: failure.record,
            field: failure.field.as_deref(),
        };
        if let Ok(text) = serde_json::to_string(&obj) {
            println!("{text}");
        }
    }
    ExitCode::from(2)
}

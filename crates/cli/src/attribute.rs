//! `shardscope attribute`: load traces, run stormlog's collective attribution, print.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use shardscope_core::attribution::{
    attribute, AttributionConfig, AttributionResult, OverrideValue,
};
use shardscope_core::phases::PhaseReplayIndex;
use shardscope_core::trace::{load, LoadError, LoadOptions, StdFs};

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
    file: &'a str,
    line: Option<u64>,
    record: Option<u64>,
    field: Option<&'a str>,
}

struct Failure {
    message: String,
    file: String,
    line: Option<u64>,
    record: Option<u64>,
    field: Option<String>,
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
        file: String::new(),
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
            let written = match parsed.format {
                Format::Json => write_json(&mut out, &results),
                Format::Table => write_table(&mut out, &results),
                Format::Csv => write_csv(&mut out, &results),
            };
            if written.and_then(|_| out.flush()).is_err() {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(failure) => fail(&failure, parsed.format),
    }
}

fn execute(args: &Args) -> Result<Vec<AttributionResult>, Failure> {
    // Loading comes first, as in stormlog (the settings are resolved when attributing).
    let options = LoadOptions {
        session_id: args.session_id.clone(),
        ..LoadOptions::default()
    };
    let outcome = load(&StdFs, &args.paths, &options, &mut |_| {});
    if let Some(e) = outcome.errors.into_iter().next() {
        return Err(e.into());
    }
    let config =
        AttributionConfig::resolve(&args.preset, &args.overrides).map_err(|e| Failure {
            message: e.message,
            file: String::new(),
            line: None,
            record: None,
            field: e.field,
        })?;
    let dataset = outcome.dataset;
    let events = dataset.selected_events();
    let index = args
        .phases
        .then(|| PhaseReplayIndex::from_events(events, &dataset.phases));
    Ok(attribute(events, &config, index.as_ref()))
}

fn fail(failure: &Failure, format: Format) -> ExitCode {
    eprintln!("shardscope attribute: {}", failure.message);
    if format == Format::Json {
        let obj = ErrorObject {
            error: &failure.message,
            file: &failure.file,
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

fn write_json(out: &mut impl Write, results: &[AttributionResult]) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(results).map_err(std::io::Error::other)?;
    writeln!(out, "{text}")
}

fn gib(bytes: i64) -> String {
    format!("{:.2}", bytes as f64 / (1u64 << 30) as f64)
}

fn phase_label(r: &AttributionResult) -> String {
    match &r.phase_attribution {
        Some(Some(p)) => match (&p.phase_path, p.phase_resolution.as_str()) {
            (Some(path), _) => path.clone(),
            (None, "ambiguous") => format!("(ambiguous) {}", p.phase_paths.join(" | ")),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

fn write_table(out: &mut impl Write, results: &[AttributionResult]) -> std::io::Result<()> {
    if results.is_empty() {
        return writeln!(out, "No collective-attributed intervals.");
    }
    let with_phases = results.iter().any(|r| r.phase_attribution.is_some());
    let mut rows: Vec<Vec<String>> = vec![vec![
        "rank".into(),
        "start_ns".into(),
        "end_ns".into(),
        "dur_ms".into(),
        "classification".into(),
        "conf".into(),
        "markers".into(),
        "sync".into(),
        "gap_GiB".into(),
        "gap_ratio".into(),
        "z".into(),
        "reasons".into(),
    ]];
    if with_phases {
        rows[0].push("phase".into());
    }
    for r in results {
        let e = &r.evidence;
        let mut row = vec![
            r.rank.to_string(),
            r.interval_start_ns.to_string(),
            r.interval_end_ns.to_string(),
            format!(
                "{:.1}",
                (r.interval_end_ns - r.interval_start_ns) as f64 / 1e6
            ),
            r.classification.as_str().to_string(),
            format!("{:.3}", r.confidence),
            e.marker_hits.to_string(),
            format!("{}/{}", e.synchronized_ranks, e.expected_world_size),
            gib(e.peak_gap_bytes),
            e.peak_gap_ratio
                .map(|x| format!("{x:.4}"))
                .unwrap_or_else(|| "-".into()),
            format!("{:.1}", e.robust_zscore),
            r.reason_codes.join(","),
        ];
        if with_phases {
            row.push(phase_label(r));
        }
        rows.push(row);
    }
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let numeric = |c: usize| matches!(c, 0..=3 | 5..=10);
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c == columns - 1 {
                    cell.clone()
                } else if numeric(c) {
                    format!("{cell:>w$}", w = widths[c])
                } else {
                    format!("{cell:<w$}", w = widths[c])
                }
            })
            .collect();
        writeln!(out, "{}", cells.join("  ").trim_end())?;
    }
    writeln!(out, "{} interval(s)", results.len())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_csv(out: &mut impl Write, results: &[AttributionResult]) -> std::io::Result<()> {
    writeln!(
        out,
        "rank,interval_start_ns,interval_end_ns,classification,confidence,marker_hits,synchronized_ranks,expected_world_size,synchrony_ratio,peak_gap_bytes,peak_gap_ratio,robust_zscore,reason_codes,phase_path"
    )?;
    for r in results {
        let e = &r.evidence;
        let fields = [
            r.rank.to_string(),
            r.interval_start_ns.to_string(),
            r.interval_end_ns.to_string(),
            r.classification.as_str().to_string(),
            r.confidence.to_string(),
            e.marker_hits.to_string(),
            e.synchronized_ranks.to_string(),
            e.expected_world_size.to_string(),
            e.synchrony_ratio.to_string(),
            e.peak_gap_bytes.to_string(),
            e.peak_gap_ratio.map(|x| x.to_string()).unwrap_or_default(),
            e.robust_zscore.to_string(),
            r.reason_codes.join(";"),
            phase_label(r),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}

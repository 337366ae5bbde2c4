//! `shardscope attribute`: load traces, run stormlog's collective attribution, print.

use clap::Args;
use shardscope_attribution::analysis::perfetto::to_perfetto;
use shardscope_attribution::analysis::{
    analyze_on, export, Analysis, AnalyzeSettings, Attribution,
};
use shardscope_attribution::attribution::{OverrideValue, Preset};
use shardscope_trace::trace::Dataset;
use shardscope_trace::trace::StdFs;

use crate::error::CliError;
use crate::Format;

#[derive(Args)]
pub struct AttributeArgs {
    /// Trace files (.json, .jsonl, .gz, .csv, telemetry_timeline.json), a telemetry-sink
    /// folder or its manifest.json, or a folder of per-rank exports. Several paths are
    /// combined like stormlog's TUI (per-rank files sharing a job_id become one session).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<String>,
    #[command(flatten)]
    pub options: AttributeOptions,
    /// Output format (json is stormlog's result list).
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Json)]
    pub format: Format,
    /// Beyond stormlog: also write the run as Chrome trace-event JSON to FILE, to open in
    /// Perfetto beside kernel traces (per-rank counters of the hidden-memory gap, used and
    /// reserved memory; intervals as slices; markers as instants).
    #[arg(long, value_name = "FILE")]
    pub perfetto: Option<String>,
}

/// How a run is attributed: stormlog's options and ours (`attribute`, `compare`).
#[derive(Args)]
pub struct AttributeOptions {
    /// stormlog's sensitivity preset: low, medium or high (trimmed, any case).
    #[arg(long, value_name = "PRESET", default_value = "medium")]
    pub preset: String,
    /// Override one of stormlog's preset fields (repeatable; the last one of a key wins).
    #[arg(long = "override", value_name = "KEY=VALUE", value_parser = parse_override)]
    pub overrides: Vec<(String, OverrideValue)>,
    /// Analyse this session instead of stormlog's default one.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// Attach the phase each interval happened in.
    #[arg(long)]
    pub phases: bool,
    /// Beyond stormlog: estimate each rank's clock from the session's collective markers
    /// (as `shardscope align` does) and attribute on the reference rank's clock.
    #[arg(long)]
    pub align_clocks: bool,
    /// Parse big files with N threads (default: one per core; 1: on one thread). The
    /// results are the same for every N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

fn parse_override(text: &str) -> Result<(String, OverrideValue), String> {
    match text.split_once('=') {
        Some((key, value)) => Ok((key.trim().to_string(), OverrideValue::parse_cli(value))),
        None => Err(format!("expected KEY=VALUE, got `{text}`")),
    }
}

/// A run loaded and attributed with `options`, the warnings printed as `who`'s (e.g.
/// `shardscope compare: run A`), or the first error in the order stormlog would raise it.
pub fn attribute_run(
    who: &str,
    paths: &[String],
    options: &AttributeOptions,
) -> Result<(Dataset, Attribution), CliError> {
    let preset = Preset::parse(&options.preset);
    let settings = AnalyzeSettings {
        preset: preset.clone().unwrap_or_default(),
        overrides: options.overrides.clone(),
        session_id: options.session_id.clone(),
        phases: options.phases,
        align_clocks: options.align_clocks,
    };
    let threads = options.threads.map_or(0, usize::from);
    let analysis = analyze_on(&StdFs, paths, &settings, threads, &mut |_| {});
    for warning in &analysis.dataset.warnings {
        eprintln!("{who}: warning: {}", warning.message);
    }
    if let Some(e) = analysis.first_error_with_preset(&preset) {
        return Err(e.into());
    }
    let Analysis {
        dataset,
        attribution,
        ..
    } = analysis;
    let attribution = attribution?;
    if let Some(alignment) = &attribution.alignment {
        let aligned = alignment.aligned().len();
        eprintln!(
            "{who}: beyond stormlog: {aligned} of {} ranks mapped onto rank {}'s clock",
            alignment.ranks.len(),
            alignment.reference_rank
        );
    }
    Ok((dataset, attribution))
}

pub fn run(args: &AttributeArgs) -> Result<String, CliError> {
    let (dataset, attribution) = attribute_run("shardscope attribute", &args.paths, &args.options)?;
    if let Some(file) = &args.perfetto {
        std::fs::write(file, to_perfetto(&dataset, &attribution)).map_err(|e| CliError {
            message: format!("cannot write {file}: {e}"),
            file: Some(file.clone()),
            ..CliError::default()
        })?;
    }
    let results = attribution.results;
    Ok(match args.format {
        Format::Json => export::to_json(&results),
        Format::Table => export::to_table(&results),
        Format::Csv => export::to_csv(&results),
    })
}

//! `shardscope align`: each rank's clock against a reference rank, estimated from the
//! session's collective markers (beyond stormlog; docs/contracts.md §1 "align").

use clap::Args;
use shardscope_attribution::analysis::{
    clock_alignment, export, load_traces, AnalyzeError, AnalyzeSettings,
};
use shardscope_attribution::clocks::ClockError;
use shardscope_trace::trace::StdFs;

use crate::error::CliError;
use crate::Format;

#[derive(Args)]
pub struct AlignArgs {
    /// Trace files, sink folders or folders of per-rank exports, as for `attribute`.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<String>,
    /// Align this session instead of stormlog's default one.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// The rank whose clock the others are measured against (default: the lowest rank
    /// with collective markers).
    #[arg(long, value_name = "RANK")]
    pub reference: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Json)]
    pub format: Format,
}

pub fn run(args: &AlignArgs) -> Result<String, CliError> {
    let settings = AnalyzeSettings {
        session_id: args.session_id.clone(),
        ..AnalyzeSettings::default()
    };
    let loaded = load_traces(&StdFs, &args.paths, &settings, true, &mut |_| {});
    for warning in &loaded.dataset.warnings {
        eprintln!("shardscope align: warning: {}", warning.message);
    }
    if let Some(e) = loaded.load_errors.into_iter().next() {
        return Err(e.into());
    }
    let alignment = clock_alignment(&loaded.dataset, args.session_id.as_deref(), args.reference)
        .map_err(|e| match e {
            AnalyzeError::Clocks(c @ ClockError::ReferenceWithoutMarkers(..)) => {
                CliError::field("reference", c.to_string())
            }
            AnalyzeError::Clocks(c) => CliError {
                message: c.to_string(),
                ..CliError::default()
            },
            other => other.into(),
        })?;
    Ok(match args.format {
        Format::Json => export::alignment_to_json(&alignment),
        Format::Table => export::alignment_to_table(&alignment),
        Format::Csv => export::alignment_to_csv(&alignment),
    })
}

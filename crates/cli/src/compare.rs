//! `shardscope compare`: two runs attributed with the same options, compared rank by
//! rank (beyond stormlog; the page's comparison table shows the same numbers).

use clap::Args;
use shardscope_attribution::analysis::compare::{self, compare_attributions};

use crate::attribute::{attribute_run, AttributeOptions};
use crate::error::CliError;
use crate::Format;

#[derive(Args)]
pub struct CompareArgs {
    /// Run A: trace files or folders, as for `attribute`.
    #[arg(long = "a", required = true, num_args = 1.., value_name = "PATH")]
    pub a: Vec<String>,
    /// Run B, compared against run A (every change is B − A).
    #[arg(long = "b", required = true, num_args = 1.., value_name = "PATH")]
    pub b: Vec<String>,
    #[command(flatten)]
    pub options: AttributeOptions,
    /// Output format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Json)]
    pub format: Format,
}

pub fn run(args: &CompareArgs) -> Result<String, CliError> {
    fn in_run(which: &'static str) -> impl Fn(CliError) -> CliError {
        move |mut e| {
            e.message = format!("run {which}: {}", e.message);
            e
        }
    }
    let a =
        attribute_run("shardscope compare: run A", &args.a, &args.options).map_err(in_run("A"))?;
    let b =
        attribute_run("shardscope compare: run B", &args.b, &args.options).map_err(in_run("B"))?;
    let comparison = compare_attributions((&a.0, &a.1), (&b.0, &b.1));
    Ok(match args.format {
        Format::Json => compare::to_json(&comparison),
        Format::Table => compare::to_table(&comparison),
        Format::Csv => compare::to_csv(&comparison),
    })
}

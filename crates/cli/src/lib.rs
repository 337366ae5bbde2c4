//! `shardscope`: the native command line over the core crates.
//! Thin adapter: parse arguments (clap), call the core, print, map errors to exit codes.
//! A library too, so that the Python package runs `explore` and `sensitivity` through the
//! very same options ([`run_to_text`]); `src/main.rs` is [`main`].

mod align;
mod attribute;
mod compare;
pub mod error;
mod explore;
mod explore_text;
mod report;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

pub use error::CliError;

/// Attribute memory spikes of distributed runs to collective communication (stormlog
/// 0.4.3's rules and numbers), and explore how to split a model over a machine.
#[derive(Parser)]
#[command(name = "shardscope", version = shardscope_attribution::VERSION, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load stormlog traces and attribute their hidden-memory spikes to collectives.
    Attribute(attribute::AttributeArgs),
    /// Estimate each rank's clock from the session's collective markers (beyond stormlog).
    Align(align::AlignArgs),
    /// Compare two runs rank by rank: spikes by class, peak and total gap (beyond stormlog).
    Compare(compare::CompareArgs),
    /// Publish a run as a static folder (the page, the traces, an index) and print the
    /// link that opens it with these settings (beyond stormlog).
    Report(report::ReportArgs),
    /// Sweep every parallelism configuration and print the Pareto frontier.
    Explore(explore::ExploreArgs),
    /// Vary one knob at a time around a baseline configuration.
    Sensitivity(explore::SensitivityArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The output format of every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Table,
    Csv,
}

impl Command {
    fn name(&self) -> &'static str {
        match self {
            Command::Attribute(_) => "attribute",
            Command::Align(_) => "align",
            Command::Compare(_) => "compare",
            Command::Report(_) => "report",
            Command::Explore(_) => "explore",
            Command::Sensitivity(_) => "sensitivity",
            Command::Completions { .. } => "completions",
        }
    }
}

/// The command line: `args` (the program's name first) run, printed, exit status.
pub fn main(args: &[OsString]) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return argument_error(&e, args),
    };
    if let Command::Completions { shell } = cli.command {
        let mut command = Cli::command();
        clap_complete::generate(shell, &mut command, "shardscope", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    let name = cli.command.name();
    let (result, format) = execute(cli.command);
    match result {
        Ok(text) => error::emit(&text),
        Err(e) => e.report(name, format),
    }
}

/// `args` (the program's name first) run as the command line runs them, the output as
/// text, or the error the command line would report (clap's errors as its one error
/// object). Help, version and completions print nothing here: they are errors.
pub fn run_to_text(args: &[OsString]) -> Result<String, CliError> {
    let cli = Cli::try_parse_from(args).map_err(|e| argument_cli_error(&e))?;
    if let Command::Completions { .. } = cli.command {
        return Err(CliError::field(
            "command",
            "completions print a script: run the command line",
        ));
    }
    execute(cli.command).0
}

/// The command's output (or error) and the format it was asked for.
fn execute(command: Command) -> (Result<String, CliError>, Format) {
    match command {
        Command::Attribute(a) => {
            let format = a.format;
            (attribute::run(&a), format)
        }
        Command::Align(a) => {
            let format = a.format;
            (align::run(&a), format)
        }
        Command::Compare(a) => {
            let format = a.format;
            (compare::run(&a), format)
        }
        Command::Report(a) => {
            let format = a.format;
            (report::run(&a), format)
        }
        Command::Explore(a) => {
            let format = a.settings.format;
            (explore::run_explore(&a), format)
        }
        Command::Sensitivity(a) => {
            let format = a.settings.format;
            (explore::run_sensitivity(&a), format)
        }
        Command::Completions { .. } => (Ok(String::new()), Format::Table),
    }
}

/// clap's own errors (unknown or repeated options, bad values, missing arguments) as the
/// one error line and, with `--format json` anywhere on the line, the error object.
fn argument_error(e: &clap::Error, args: &[OsString]) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        _ => {}
    }
    let command = args
        .get(1)
        .and_then(|a| a.to_str())
        .filter(|a| {
            matches!(
                *a,
                "attribute"
                    | "align"
                    | "compare"
                    | "report"
                    | "explore"
                    | "sensitivity"
                    | "completions"
            )
        })
        .unwrap_or("");
    let format = if wants_json(args) {
        Format::Json
    } else {
        Format::Table
    };
    argument_cli_error(e).report(command, format)
}

/// clap's error `e` as the command line's one error object.
fn argument_cli_error(e: &clap::Error) -> CliError {
    let rendered = e.to_string();
    let first = rendered.lines().next().unwrap_or("bad arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let message = match (e.kind(), e.get(ContextKind::InvalidArg)) {
        // Our own value checks say exactly what is wrong (the same words as the page).
        (ErrorKind::ValueValidation, _) => match std::error::Error::source(e) {
            Some(source) => source.to_string(),
            None => first.to_string(),
        },
        (ErrorKind::MissingRequiredArgument, Some(ContextValue::Strings(missing))) => {
            format!("missing {}", missing.join(", "))
        }
        _ => first.to_string(),
    };
    // A conflict names the option that came second on the line.
    let culprit = match e.kind() {
        ErrorKind::ArgumentConflict => e
            .get(ContextKind::PriorArg)
            .or_else(|| e.get(ContextKind::InvalidArg)),
        _ => e.get(ContextKind::InvalidArg),
    };
    let field = match culprit {
        Some(ContextValue::String(arg)) => Some(field_of(arg)),
        Some(ContextValue::Strings(args)) => args.first().map(|a| field_of(a)),
        _ => None,
    };
    CliError {
        message,
        field,
        ..CliError::default()
    }
}

/// The field an argument names: `--batch-sweep <N,...>` is `batch_sweep`; a stray
/// positional argument is `arguments`.
fn field_of(arg: &str) -> String {
    let name = arg.split_whitespace().next().unwrap_or(arg);
    match name.strip_prefix("--") {
        Some(flag) => flag.split('=').next().unwrap_or(flag).replace('-', "_"),
        None if name.starts_with('-') => name.trim_start_matches('-').to_string(),
        None => "arguments".to_string(),
    }
}

/// `--format json` (or `--format=json`, any case) anywhere on the line.
fn wants_json(args: &[OsString]) -> bool {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    args.iter().enumerate().any(|(i, a)| {
        let value = match a.strip_prefix("--format=") {
            Some(v) => Some(v),
            None if a == "--format" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        value.is_some_and(|v| v.trim().eq_ignore_ascii_case("json"))
    })
}

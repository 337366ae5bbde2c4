//! `shardscope`: the native command line over shardscope-core.
//! Thin adapter: parse arguments, call the core, print, map errors to exit codes.

mod attribute;
mod explore;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{}", USAGE);
        return ExitCode::from(2);
    };
    match command.as_str() {
        "attribute" => attribute::run(rest),
        "explore" => explore::run_explore(rest),
        "sensitivity" => explore::run_sensitivity(rest),
        "--version" | "-V" => {
            println!("shardscope {}", shardscope_core::VERSION);
            ExitCode::SUCCESS
        }
        "--help" | "-h" | "help" => {
            println!("{}", USAGE);
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("shardscope: unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "\
usage:
  shardscope attribute PATH... [--preset low|medium|high] [--override KEY=VALUE]...
                               [--session-id ID] [--phases] [--format json|table|csv]
  shardscope explore [--model PRESET] [--machine PRESET] [--s-kv N] [--mode decode|prefill]
                     [--batch N] [--ep N] [--scope all|attention|ffn] [--efficiency seed|corrected]
                     [--model-json FILE] [--machine-json FILE] [--all] [--format json|table|csv]
  shardscope sensitivity (same settings as explore) --baseline \"cp=2,tp=4,pp=2,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml\"";

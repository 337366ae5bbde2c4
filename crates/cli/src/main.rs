//! `shardscope`: the native command line (everything is in the library, `lib.rs`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    shardscope_cli::main(&args)
}

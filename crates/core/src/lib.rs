//! Shardscope's computing core. No web dependencies: everything here runs natively
//! (CLI, tests, benchmarks) and in WebAssembly (the page's worker) unchanged.
//!
//! - [`analysis`]: the attribution pipeline (load, settings, phases, attribute, flatten).
//! - [`trace`]: stormlog telemetry loading (streamed, validated, compact).
//! - [`attribution`]: stormlog 0.4.3's collective-memory attribution, exactly.
//! - [`phases`]: phase replay for attribution's `--phases`.
//! - [`explorer`]: the parallelism explorer (analytical model, sweep, Pareto).
//! - [`format`]: numbers as people read them (a leaf: imports nothing of the crate).
//! - [`view`]: what the page shows, computed natively (uses the rest; nothing uses it).

/// The crate version, reported by the CLI and by the worker's ready handshake.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod analysis;
pub mod attribution;
pub mod clocks;
pub mod csv_text;
pub mod explorer;
pub mod format;
pub mod json;
pub mod pack;
pub mod phases;
pub mod py;
pub mod trace;
pub mod view;

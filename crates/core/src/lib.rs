//! Shardscope's computing core, one name over the layers below it, and the view: what the
//! page shows, computed natively. No web dependencies: everything here runs natively (CLI,
//! tests, benchmarks) and in WebAssembly (the page's worker) unchanged.
//!
//! The layers, each a crate that can only see the ones below it:
//! - `shardscope-text`: [`py`], [`format`], [`csv_text`].
//! - `shardscope-trace`: [`json`], [`pack`], [`trace`].
//! - `shardscope-attribution`: [`attribution`], [`phases`], [`clocks`], [`analysis`].
//! - `shardscope-explorer`: [`explorer`] (sees only `shardscope-text`).
//! - this crate: [`view`] (sees them all; only the adapters see it).

/// The crate version, reported by the CLI and by the worker's ready handshake.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use shardscope_attribution::{analysis, attribution, clocks, phases};
pub use shardscope_explorer as explorer;
pub use shardscope_text::{csv_text, format, py};
pub use shardscope_trace::{json, pack, trace};

pub mod view;

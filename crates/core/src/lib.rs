//! Shardscope's computing core under one name: every layer re-exported. No web
//! dependencies: everything here runs natively (CLI, tests, benchmarks) and in
//! WebAssembly (the page's worker) unchanged.
//!
//! The layers, each a crate that can only see the ones below it:
//! - `shardscope-text`: [`py`], [`format`], [`csv_text`].
//! - `shardscope-trace`: [`json`], [`pack`], [`trace`].
//! - `shardscope-attribution`: [`attribution`], [`phases`], [`clocks`], [`analysis`].
//! - `shardscope-explorer`: [`explorer`] (sees only `shardscope-text`).
//! - `shardscope-session`: [`session`] (settings, scenarios, permalinks, sources).
//! - `shardscope-view`: [`view`] (scenes, LOD, charts, tables, theme; sees the session).
//!
//! The adapters (CLI, worker, page, Python binding) depend on the layer crates they use;
//! this crate is for what spans them all: the cross-layer tests and benchmarks.

/// The crate version, reported by the CLI and by the worker's ready handshake.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use shardscope_attribution::{analysis, attribution, clocks, phases};
pub use shardscope_explorer as explorer;
pub use shardscope_text::{csv_text, format, py};
pub use shardscope_trace::{json, pack, trace};

pub use shardscope_session as session;
pub use shardscope_view as view;

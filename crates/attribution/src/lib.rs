//! What a loaded trace means. Sees `shardscope-trace` and `shardscope-text` only.
//!
//! - [`attribution`]: stormlog 0.4.3's collective-memory attribution, exactly.
//! - [`phases`]: phase replay for attribution's `--phases`.
//! - [`clocks`]: per-rank clock alignment from shared markers.
//! - [`analysis`]: the pipeline (load, settings, phases, attribute, flatten), run
//!   comparison and the exports (CSV, JSON, Perfetto).

pub use shardscope_trace::{csv_text, format, json, pack, py, trace};

/// The version reported in exports (the same as every Shardscope crate's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod analysis;
pub mod attribution;
pub mod clocks;
pub mod phases;

//! Trace reading: bytes in, validated compact events out. Sees only `shardscope-text`.
//!
//! - [`json`]: the JSON scanner and Python-exact value handling stormlog's files need.
//! - [`pack`]: packed columns (the compact, transferable form of loaded events).
//! - [`trace`]: stormlog telemetry loading: files, sink folders, archives, CSV, streamed
//!   and validated.

pub use shardscope_text::{csv_text, format, py};

pub mod json;
pub mod pack;
pub mod trace;

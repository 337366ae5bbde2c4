//! The app's session model: what a person has set, shared by the page and the CLI and
//! carried by permalinks. Sees the layers below it (text, trace, attribution, explorer),
//! never the view: nothing here knows how anything is drawn.
//!
//! - [`explore_settings`]: the explorer's inputs as typed, resolved into a sweep request;
//!   short keys, knobs, measurements. [`custom`]: edits to a model or machine preset.
//! - [`trace_settings`]: the attribution settings as typed, resolved into a config.
//! - [`scenarios`]: named explore settings swept side by side; [`scenario_list`]: the
//!   page's list of them and which show.
//! - [`permalink`]: every setting in the URL fragment. [`source`]: where a trace comes
//!   from (a link's `src=`, a report folder). [`recent`]: traces opened before.
//! - [`rank_filter`]: the TUI's rank filter. [`window`]: the visible time range.

pub use shardscope_attribution::{analysis, attribution, clocks, phases};
pub use shardscope_explorer as explorer;
pub use shardscope_text::{csv_text, format, py};
pub use shardscope_trace::{json, pack, trace};

/// The version every Shardscope crate reports (the CLI, the worker, the Python module).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod custom;
pub mod explore_settings;
pub mod permalink;
pub mod rank_filter;
pub mod recent;
pub mod scenario_list;
pub mod scenarios;
pub mod source;
pub mod trace_settings;
pub mod window;

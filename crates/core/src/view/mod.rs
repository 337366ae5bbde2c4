//! What the page shows, computed natively: level-of-detail queries over a session's
//! samples ([`lod`]), the timeline's geometry ([`timeline`]), the TUI's rank filter
//! ([`rank_filter`]), permalinks ([`permalink`]), explanations of reason codes and
//! evidence ([`explain`]); number formatting is the leaf module [`crate::format`],
//! re-exported here as `view::format` for the page. No web dependencies:
//! the page's canvas and DOM code only paints and wires what these return.

pub mod all_configs;
pub mod charts;
pub mod clocks;
pub mod compare;
pub mod config_detail;
pub mod custom;
pub mod explain;
pub mod explore;
pub use crate::format;
pub mod lod;
pub mod permalink;
pub mod rank_filter;
pub mod recent;
pub mod scatter;
pub mod scatter_keys;
pub mod scenarios;
pub mod scene;
pub mod source;
pub mod table;
pub mod theme;
pub mod timeline;
pub mod timeline_input;
pub mod timeline_scene;
pub mod trace_settings;
pub mod trace_status;

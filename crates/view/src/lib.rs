//! What the page shows, computed natively: scenes (shapes and text the page's canvases
//! paint), level-of-detail queries over a trace's samples ([`lod`]), the timeline's
//! geometry ([`timeline`]), the explorer's points, frontier rows and charts, tables,
//! explanations of reason codes ([`explain`]), the theme. No web dependencies: the
//! page's canvas and DOM code only paints and wires what these return. Sees the session
//! model ([`shardscope_session`]) and the layers below it.

pub use shardscope_attribution::{analysis, attribution, clocks, phases};
pub use shardscope_explorer as explorer;
pub use shardscope_text::{csv_text, format, py};
pub use shardscope_trace::{json, pack, trace};
// The session's modules, under the names the view's modules use.
use shardscope_session::permalink;

pub mod all_configs;
pub mod charts;
pub mod clocks_panel;
pub mod compare;
pub mod config_detail;
pub mod explain;
pub mod explore;
pub mod lod;
pub mod scatter;
pub mod scatter_keys;
pub mod scenario_view;
pub mod scene;
pub mod table;
pub mod theme;
pub mod timeline;
pub mod timeline_input;
pub mod timeline_scene;
pub mod trace_status;

//! Trace loading: stormlog telemetry files (JSON, JSONL, sink folders, gzip) to
//! compact per-session event lists, with stormlog 0.4.3's validation; and the other
//! artifacts stormlog's TUI reads (CSV exports, `telemetry_timeline.json`).

pub mod archive;
pub mod csv;
pub mod error;
pub mod event;
pub mod external;
pub mod fs;
pub mod iso_time;
pub mod load;
pub mod marker;
/// Native threads: not compiled into WebAssembly (the page splits work between workers).
#[cfg(not(target_arch = "wasm32"))]
pub mod parallel;
pub mod parse;
pub mod phase_boundary;
pub mod pynum;
pub mod ranges;
pub mod reader;
pub mod record;
pub mod session;
pub mod split;
pub mod synthetic;
pub mod timeline;

pub use error::{LoadError, LoadErrorKind, LoadWarning};
pub use event::{Event, Events, Source, SourceId, Sources, StrId, Strings, NO_STR};
pub use fs::{MemFs, PathKind, StdFs, TraceFs};
pub use load::{load, Dataset, LoadMode, LoadOptions, LoadOutcome, LoadProgress, Session};
pub use phase_boundary::PhaseBoundary;
pub use session::{SessionStatus, SessionSummary};

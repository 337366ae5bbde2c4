//! The page ↔ worker message protocol.
//!
//! Every message is a serde value converted with serde-wasm-bindgen, so JavaScript objects
//! that cannot be serialized (a `File`, a `Blob`) travel inside messages as themselves
//! (see [`NamedBlob`]); `postMessage` structured-clones them without copying their bytes.
//!
//! The handshake: the worker posts [`ResponseBody::Ready`] with id [`READY_ID`] as soon as its
//! wasm has started, unsolicited. Messages posted to a worker before that are lost, so the
//! page queues its requests until it has seen `Ready`. `Ready` carries the worker's
//! [`BUILD_ID`]; a page whose own differs (a worker cached from another deploy) refuses the
//! worker before any request reaches it, so a stale worker never gives an answer.
//!
//! Every request gets exactly one final response with the request's id
//! ([`ResponseBody::is_final`]), optionally preceded by [`ResponseBody::Progress`] messages
//! with the same id. A request the worker cannot decode is answered with
//! [`ResponseBody::Error`] (with the request's id when it can be read, else [`READY_ID`]).

use serde::{Deserialize, Serialize};
use shardscope_attribution::analysis::compare::RunFacts;
use shardscope_attribution::analysis::{AnalyzeSettings, IntervalRow};
use shardscope_attribution::attribution::{AttributionConfig, SettingsError};
use shardscope_attribution::clocks::Alignment;
use shardscope_explorer::{Evaluation, ExploreReport, SensitivityReport};
use shardscope_session::explore_settings::{ExploreRequest, FieldError};
use shardscope_session::scenarios::{Scenario, ScenarioReport};
use shardscope_trace::trace::ranges::RangeTask;
use shardscope_trace::trace::{LoadError, LoadWarning, SessionStatus};
use shardscope_view::charts::BatchPlane;
use shardscope_view::lod::{RankSummary, WindowQuery};
pub use shardscope_view::trace_status::Stage;
use wasm_bindgen::{JsCast, JsValue};

use crate::web_error::WebError;

/// The id of unsolicited worker messages (the `Ready` handshake, crash reports).
/// Requests use ids from 1 up.
pub const READY_ID: u32 = 0;

/// This build's identity: a hash of the page's, worker's and core's sources (`build.rs`).
/// The page and its worker agree on it exactly when they come from the same build.
pub const BUILD_ID: &str = env!("SHARDSCOPE_BUILD_ID");

/// Default slice size for reading a `Blob` in the worker (2 MiB: large enough that the
/// per-slice overhead vanishes, small enough that memory stays flat and progress is smooth).
pub const DEFAULT_CHUNK_BYTES: u32 = 2 * 1024 * 1024;

/// Largest accepted slice size (16 MiB).
pub const MAX_CHUNK_BYTES: u32 = 16 * 1024 * 1024;

/// Slice size for loading traces. Each `FileReaderSync` read costs about 15 ms in
/// Chromium whatever its size, so trace loading reads 16 MiB at a time: 120 MB are read
/// in ~0.5 s instead of ~1.3 s with 2 MiB slices, for 16 MiB of memory.
pub const TRACE_CHUNK_BYTES: u32 = MAX_CHUNK_BYTES;

/// A message from the page to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerRequest {
    /// Chosen by the page, echoed by every response to this request. Never [`READY_ID`].
    pub id: u32,
    pub body: RequestBody,
}

/// What the page asks the worker to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RequestBody {
    /// Answered by [`ResponseBody::Pong`].
    Ping,
    /// Read every blob from start to end in slices of `chunk_bytes` (default
    /// [`DEFAULT_CHUNK_BYTES`]) and report what was read ([`ResponseBody::BlobInfo`]),
    /// with [`ResponseBody::Progress`] after every slice (the plumbing trace loading uses).
    ReadBlobInfo {
        files: Vec<NamedBlob>,
        #[serde(default)]
        chunk_bytes: Option<u32>,
    },
    /// Load the traces (streamed from the blobs) and attribute the selected session;
    /// answered by [`ResponseBody::Analyzed`] after [`ResponseBody::Progress`] messages.
    /// The worker keeps the loaded dataset for the requests below, replacing any
    /// earlier one.
    Load {
        files: Vec<NamedBlob>,
        settings: AnalyzeSettings,
        /// Draw the lanes on the reference rank's clock.
        #[serde(default)]
        lanes_aligned: bool,
        /// Big JSON files already parsed in ranges by [`RequestBody::ParseRanges`]
        /// (the worker stitches them instead of parsing; any mismatch: it parses).
        #[serde(default)]
        parsed: Vec<ParsedFile>,
    },
    /// Run the hot paths once on a small synthetic trace ([`crate::trace_job::warm_up`]),
    /// answered by [`ResponseBody::WarmedUp`].
    WarmUp,
    /// Parse these ranges of a JSON file ([`shardscope_trace::trace::ranges`]): one
    /// [`ResponseBody::RangeParsed`] per range, then [`ResponseBody::RangesParsed`].
    /// Two workers parsing half of a big file's ranges each halve its load time.
    ParseRanges {
        file: NamedBlob,
        tasks: Vec<RangeTask>,
        default_session_id: String,
    },
    /// Attribute the kept dataset again with other settings (no file is read);
    /// answered by [`ResponseBody::Analyzed`].
    Reattribute {
        settings: AnalyzeSettings,
        #[serde(default)]
        lanes_aligned: bool,
    },
    /// Timeline data for a window of the analysed session ([`ResponseBody::Window`]).
    Window { query: WindowQuery },
    /// The overview strip: the largest gap over `ranks` per column of the whole trace
    /// ([`ResponseBody::Overview`]).
    Overview {
        columns: u32,
        #[serde(default)]
        ranks: Option<Vec<i64>>,
    },
    /// The current results as `shardscope attribute` prints them ([`ResponseBody::Exported`]).
    Export { format: ExportFormat },
    /// The loaded run as Chrome trace-event JSON, as `shardscope attribute --perfetto`
    /// writes it ([`ResponseBody::Exported`]).
    ExportPerfetto,
    /// Sweep every configuration ([`ResponseBody::Explored`]); the worker keeps the
    /// request for `Evaluate` and `ExportExplore`.
    Explore { request: Box<ExploreRequest> },
    /// The full breakdown of one configuration of the last sweep, by short key
    /// ([`ResponseBody::Evaluated`]).
    Evaluate { key: String },
    /// `shardscope explore --format json|csv [--all]` for the last sweep's settings.
    ExportExplore { format: ExportFormat, all: bool },
    /// The one-knob sensitivity around a configuration of the last sweep (short key)
    /// ([`ResponseBody::Sensitivity`]).
    Sensitivity { key: String },
    /// These settings at each batch size ([`ResponseBody::BatchSwept`]); stateless, so
    /// it can run in a worker of its own and be cancelled by terminating it.
    BatchSweep {
        request: Box<ExploreRequest>,
        batches: Vec<u32>,
    },
    /// Sweep each scenario and compare their frontiers ([`ResponseBody::ScenariosCompared`]);
    /// stateless.
    CompareScenarios { scenarios: Vec<Scenario> },
}

/// A text export of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExportFormat {
    Json,
    Csv,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Csv => "csv",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            ExportFormat::Json => "application/json",
            ExportFormat::Csv => "text/csv",
        }
    }
}

/// A session found in the loaded files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub session_id: String,
    pub status: SessionStatus,
    pub events: u64,
    /// Synthesized from per-rank files.
    pub distributed: bool,
}

/// A sweep's answer: the report as the CLI has it (the frontier as records) and every
/// configuration as packed columns (`Points::to_bytes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreAnswer {
    pub report: ExploreReport,
    #[serde(with = "serde_bytes")]
    pub points: Vec<u8>,
    pub elapsed_ms: f64,
}

/// What a load or re-attribution found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceReport {
    /// Files given, with their sizes.
    pub files: Vec<(String, u64)>,
    /// Events of the analysed session.
    pub events: u64,
    /// Reading and parsing (0 for a re-attribution).
    pub parse_ms: f64,
    /// The part of `parse_ms` spent waiting for `FileReaderSync` slices.
    pub read_ms: f64,
    /// Files that arrived parsed in ranges by two workers and were stitched.
    pub stitched_files: u64,
    pub attribute_ms: f64,
    /// Building the timeline's level-of-detail index (0 when it was kept).
    pub index_ms: f64,
    /// The worker's wasm memory after the run (it never shrinks: the peak so far).
    pub wasm_memory_bytes: u64,
    pub sessions: Vec<SessionInfo>,
    /// stormlog's default session.
    pub default_session: Option<String>,
    /// The analysed session.
    pub selected_session: Option<String>,
    /// Time span of the analysed session's events, in ns.
    pub trace_start_ns: Option<i64>,
    pub trace_end_ns: Option<i64>,
    /// Per rank of the analysed session: samples, markers, peak gap, intervals.
    pub ranks: Vec<RankSummary>,
    /// Sent packed: 8,000 rows as JavaScript objects took the page 50 ms to decode
    /// (and as JSON 60 ms), packed a few milliseconds.
    #[serde(with = "rows_packed")]
    pub rows: Vec<IntervalRow>,
    /// What comparing this run with another needs besides the rows (ranks, start,
    /// first collectives), on the clock the rows are on.
    pub facts: RunFacts,
    /// The settings the rows were made with (`None` when the settings were rejected).
    pub config: Option<AttributionConfig>,
    pub phases: bool,
    /// Beyond stormlog: the rows were attributed on the reference rank's clock.
    pub align_clocks: bool,
    /// The lanes (timeline windows, overview) are on the reference rank's clock.
    pub lanes_aligned: bool,
    /// Every rank's clock estimated from the session's collective markers, or why not.
    pub clocks: Option<Alignment>,
    pub clocks_problem: Option<String>,
    /// One per file that failed to load (the others are analysed), or a session
    /// that was asked for and not found.
    pub problems: Vec<LoadError>,
    /// Rejected settings (stormlog's message, naming the field): nothing was attributed.
    pub settings_problem: Option<SettingsError>,
    /// What stormlog's TUI warns about (skipped CSV rows, synthesized timelines).
    pub warnings: Vec<LoadWarning>,
}

/// [`TraceReport::rows`] through serde as packed bytes ([`pack_rows`]).
///
/// [`pack_rows`]: shardscope_attribution::analysis::row::pack_rows
mod rows_packed {
    use serde::{Deserialize, Deserializer, Serializer};
    use shardscope_attribution::analysis::row::{pack_rows, unpack_rows};
    use shardscope_attribution::analysis::IntervalRow;

    pub fn serialize<S: Serializer>(rows: &[IntervalRow], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&pack_rows(rows))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IntervalRow>, D::Error> {
        let bytes = serde_bytes::ByteBuf::deserialize(d)?;
        unpack_rows(&bytes).ok_or_else(|| serde::de::Error::custom("malformed result rows"))
    }
}

/// A timeline window as bytes ([`shardscope_view::lod::WindowData::to_bytes`], a typed array in JavaScript):
/// one copy across the worker boundary instead of one value per number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowPayload {
    #[serde(with = "serde_bytes")]
    pub window: Vec<u8>,
    /// How long the worker took to answer (the level-of-detail query and packing).
    #[serde(default)]
    pub query_ms: f64,
}

/// A file parsed in ranges by [`RequestBody::ParseRanges`], handed on with `Load`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedFile {
    /// The file's name in `Load`'s `files`.
    pub name: String,
    pub default_session_id: String,
    pub file_bytes: u64,
    pub range_bytes: u64,
    /// One `Uint8Array` per range ([`ParsedRange::to_bytes`]), in any order.
    ///
    /// [`ParsedRange::to_bytes`]: shardscope_trace::trace::ranges::ParsedRange::to_bytes
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub ranges: js_sys::Array,
}

impl RequestBody {
    /// The buffers this request moves to the worker instead of copying.
    pub fn transferables(&self) -> js_sys::Array {
        let out = js_sys::Array::new();
        if let RequestBody::Load { parsed, .. } = self {
            for file in parsed {
                for range in file.ranges.iter() {
                    if let Ok(bytes) = range.dyn_into::<js_sys::Uint8Array>() {
                        out.push(&bytes.buffer());
                    }
                }
            }
        }
        out
    }
}

impl ResponseBody {
    /// The buffers this response moves to the page instead of copying.
    pub fn transferables(&self) -> js_sys::Array {
        let out = js_sys::Array::new();
        if let ResponseBody::RangeParsed { packed, .. } = self {
            if let Some(bytes) = packed.dyn_ref::<js_sys::Uint8Array>() {
                out.push(&bytes.buffer());
            }
        }
        out
    }
}

/// A file (or any blob) handed to the worker, with the name to show in messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedBlob {
    /// The file name, or its relative path inside a dropped folder.
    pub name: String,
    /// Passed through serde untouched: the JavaScript `Blob`/`File` object itself.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub blob: web_sys::Blob,
}

/// A message from the worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerResponse {
    /// The id of the request this answers, or [`READY_ID`] for unsolicited messages.
    pub id: u32,
    pub body: ResponseBody,
}

/// What the worker reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ResponseBody {
    /// Posted once, first, unsolicited, with id [`READY_ID`]: the worker can take requests.
    Ready {
        core_version: String,
        /// The worker's [`BUILD_ID`] (empty from a worker older than the field).
        #[serde(default)]
        build: String,
    },
    /// The answer to [`RequestBody::Ping`].
    Pong {
        core_version: String,
        #[serde(default)]
        build: String,
    },
    /// Work in progress on the request with this id (not final).
    Progress {
        done_bytes: u64,
        total_bytes: u64,
        stage: Stage,
    },
    /// The answer to [`RequestBody::ReadBlobInfo`], one entry per blob, in request order.
    BlobInfo {
        files: Vec<BlobSummary>,
    },
    /// The answer to [`RequestBody::Load`] and [`RequestBody::Reattribute`] (also when
    /// some files failed or the settings were rejected: see [`TraceReport::problems`]).
    Analyzed(Box<TraceReport>),
    /// The answer to [`RequestBody::WarmUp`].
    WarmedUp {
        ms: f64,
    },
    /// One range of a [`RequestBody::ParseRanges`] request, packed.
    RangeParsed {
        index: usize,
        /// A `Uint8Array` ([`ParsedRange::to_bytes`]).
        ///
        /// [`ParsedRange::to_bytes`]: shardscope_trace::trace::ranges::ParsedRange::to_bytes
        #[serde(with = "serde_wasm_bindgen::preserve")]
        packed: JsValue,
    },
    /// The end of a [`RequestBody::ParseRanges`] request: `complete` when every range
    /// parsed (otherwise the file is left to the loading worker's own parse).
    RangesParsed {
        complete: bool,
    },
    /// A sweep ([`RequestBody::Explore`]).
    Explored(Box<ExploreAnswer>),
    /// One configuration's breakdown ([`RequestBody::Evaluate`]).
    Evaluated(Box<Evaluation>),
    Sensitivity(Box<SensitivityReport>),
    /// The batch view's points ([`RequestBody::BatchSweep`]).
    BatchSwept(Box<BatchPlane>),
    /// `shardscope explore --scenario …` ([`RequestBody::CompareScenarios`]).
    ScenariosCompared(Box<ScenarioReport>),
    /// The answer to [`RequestBody::Window`].
    Window(WindowPayload),
    /// The answer to [`RequestBody::Overview`]: `f32` per column, little-endian.
    Overview {
        #[serde(with = "serde_bytes")]
        gap_max: Vec<u8>,
    },
    /// The answer to [`RequestBody::Export`].
    Exported {
        text: String,
    },
    /// An explorer request failed: the field at fault and why.
    ExploreFailed(FieldError),
    /// The request failed (or could not be decoded). `message` says what and where,
    /// in words meant for the user.
    Error {
        message: String,
    },
}

impl ResponseBody {
    /// Whether this is the last message for its request (everything except progress).
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            ResponseBody::Progress { .. } | ResponseBody::RangeParsed { .. }
        )
    }
}

/// What reading one blob found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobSummary {
    pub name: String,
    /// `Blob.size` as reported by the browser.
    pub size_bytes: u64,
    /// Bytes actually read (equals `size_bytes` on success).
    pub bytes_read: u64,
    /// Number of slices read.
    pub chunks: u64,
    /// Number of `\n` bytes.
    pub lines: u64,
    /// FNV-1a (32-bit) of the content, to check that slices were joined in order.
    pub fnv1a32: u32,
}

/// FNV-1a, 32-bit: offset basis.
pub const FNV1A32_INIT: u32 = 0x811c_9dc5;

/// Continue an FNV-1a (32-bit) hash over `bytes`.
pub fn fnv1a32_update(mut hash: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// The serializer for every protocol message. 64-bit integers always become `BigInt`s,
/// so nanosecond timestamps (beyond 2^53) survive exactly.
const SERIALIZER: serde_wasm_bindgen::Serializer =
    serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);

/// Convert a protocol value to the JavaScript value to post.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, WebError> {
    value.serialize(&SERIALIZER).map_err(|e| WebError::Message {
        action: "encode",
        detail: e.to_string(),
    })
}

/// Convert a received JavaScript value back to a protocol value.
pub fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, WebError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| WebError::Message {
        action: "decode",
        detail: e.to_string(),
    })
}

/// Read the `id` of a message that may not decode as a whole, so that an error about it
/// can still be addressed to its sender. [`READY_ID`] when there is no usable id.
pub fn peek_id(value: &JsValue) -> u32 {
    js_sys::Reflect::get(value, &JsValue::from_str("id"))
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|v| v.fract() == 0.0 && *v >= 0.0 && *v <= f64::from(u32::MAX))
        .map_or(READY_ID, |v| v as u32)
}

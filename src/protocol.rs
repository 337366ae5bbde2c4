//! The page ↔ worker message protocol.
//!
//! Every message is a serde value converted with serde-wasm-bindgen, so JavaScript objects
//! that cannot be serialized (a `File`, a `Blob`) travel inside messages as themselves
//! (see [`NamedBlob`]); `postMessage` structured-clones them without copying their bytes.
//!
//! The handshake: the worker posts [`ResponseBody::Ready`] with id [`READY_ID`] as soon as its
//! wasm has started, unsolicited. Messages posted to a worker before that are lost, so the
//! page queues its requests until it has seen `Ready`.
//!
//! Every request gets exactly one final response with the request's id
//! ([`ResponseBody::is_final`]), optionally preceded by [`ResponseBody::Progress`] messages
//! with the same id. A request the worker cannot decode is answered with
//! [`ResponseBody::Error`] (with the request's id when it can be read, else [`READY_ID`]).

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// The id of unsolicited worker messages (the `Ready` handshake, crash reports).
/// Requests use ids from 1 up.
pub const READY_ID: u32 = 0;

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
    /// with [`ResponseBody::Progress`] after every slice. This is the plumbing that trace
    /// loading builds on: files reach the worker as handles and are read there, not in the page.
    ReadBlobInfo {
        files: Vec<NamedBlob>,
        #[serde(default)]
        chunk_bytes: Option<u32>,
    },
    /// Load the traces (streamed from the blobs) and run stormlog's collective
    /// attribution on the selected session; answered by [`ResponseBody::Attributed`],
    /// after [`ResponseBody::Progress`] while reading.
    Attribute {
        files: Vec<NamedBlob>,
        settings: AttributeSettings,
    },
}

/// Attribution settings, as on the command line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeSettings {
    /// `low`, `medium` or `high` (trimmed, any case).
    pub preset: String,
    /// stormlog override fields and their values.
    #[serde(default)]
    pub overrides: Vec<(String, shardscope_core::attribution::OverrideValue)>,
    /// Analyse this session instead of the default one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Attach each interval's phase.
    #[serde(default)]
    pub phases: bool,
}

impl Default for AttributeSettings {
    fn default() -> Self {
        AttributeSettings {
            preset: "medium".to_string(),
            overrides: Vec::new(),
            session_id: None,
            phases: false,
        }
    }
}

/// One attributed interval, flattened for the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRow {
    pub rank: i64,
    pub interval_start_ns: i64,
    pub interval_end_ns: i64,
    /// `collective_confident`, `collective_likely` or `collective_suspect`.
    pub classification: String,
    pub confidence: f64,
    pub reason_codes: Vec<String>,
    pub marker_hits: u64,
    pub synchronized_ranks: u64,
    pub expected_world_size: i64,
    pub synchrony_ratio: f64,
    pub peak_gap_bytes: i64,
    pub peak_gap_ratio: Option<f64>,
    pub robust_zscore: f64,
    /// The phase path (or the ambiguous candidates), with `phases`.
    pub phase: Option<String>,
}

/// A session found in the loaded files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub session_id: String,
    pub status: String,
    pub events: u64,
    /// Synthesized from per-rank files.
    pub distributed: bool,
}

/// A file that could not be loaded (the others still are).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileProblem {
    /// The file's name ("" when the problem concerns no single file).
    pub file: String,
    pub message: String,
}

/// What attribution found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributionReport {
    /// Files given, with their sizes.
    pub files: Vec<(String, u64)>,
    /// Events of the analysed session.
    pub events: u64,
    pub parse_ms: f64,
    pub attribute_ms: f64,
    pub sessions: Vec<SessionInfo>,
    pub selected_session: Option<String>,
    /// Time span of the analysed session's events, in ns.
    pub trace_start_ns: Option<i64>,
    pub trace_end_ns: Option<i64>,
    pub rows: Vec<IntervalRow>,
    /// One per file that failed to load, or a settings problem.
    pub problems: Vec<FileProblem>,
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
    Ready { core_version: String },
    /// The answer to [`RequestBody::Ping`].
    Pong { core_version: String },
    /// Work in progress on the request with this id (not final).
    Progress {
        done_bytes: u64,
        total_bytes: u64,
        stage: String,
    },
    /// The answer to [`RequestBody::ReadBlobInfo`], one entry per blob, in request order.
    BlobInfo { files: Vec<BlobSummary> },
    /// The answer to [`RequestBody::Attribute`] (also when some files failed: see
    /// [`AttributionReport::problems`]).
    Attributed(AttributionReport),
    /// The request failed (or could not be decoded). `message` says what and where,
    /// in words meant for the user.
    Error { message: String },
}

impl ResponseBody {
    /// Whether this is the last message for its request (everything except progress).
    pub fn is_final(&self) -> bool {
        !matches!(self, ResponseBody::Progress { .. })
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
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    value
        .serialize(&SERIALIZER)
        .map_err(|e| format!("could not encode message: {e}"))
}

/// Convert a received JavaScript value back to a protocol value.
pub fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| format!("could not decode message: {e}"))
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

//! One telemetry record (a parsed JSON object) to one [`Event`], with stormlog
//! 0.4.3's validation and conversion rules (`telemetry_event_from_record`).
//!
//! The order of the checks is stormlog's, so the first error reported is the one
//! stormlog reports, with its message text. Records with a `schema_version` follow
//! the v2/v3/v4 rules; records without one are legacy and are converted field by
//! field. Either way the result is then validated as a v4 event, as stormlog's
//! `TelemetryEventV4.__post_init__` does.

use std::borrow::Cow;

use super::event::{
    flags, Counters, Event, Identity, Source, SourceCache, Sources, StrId, Strings, NO_STR,
};
use super::marker::{contains_collective_token, TokenMemo};
use super::phase_boundary::PhaseBoundary;
use crate::json::{py_strip, Node, Tape};
use crate::py::py_repr_str;

/// A record rejected by stormlog's rules: its message and the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub field: Option<String>,
    pub message: String,
    /// stormlog accepts the record; only our 64-bit storage cannot hold a value.
    /// Such an error ranks below every error stormlog itself would raise.
    pub beyond_stormlog: bool,
    /// Python's `str(exc)` where it differs from `message` (stormlog raises a
    /// `KeyError` there, whose text is just the quoted key). The TUI's CSV
    /// warnings print this text.
    pub python_text: Option<String>,
}

impl RecordError {
    /// What Python prints for this error (`str(exc)`).
    pub fn python_message(&self) -> &str {
        self.python_text.as_deref().unwrap_or(&self.message)
    }
}

type Result<T> = std::result::Result<T, RecordError>;

fn fail<T>(field: &str, message: impl Into<String>) -> Result<T> {
    Err(RecordError {
        field: Some(field.to_string()),
        message: message.into(),
        beyond_stormlog: false,
        python_text: None,
    })
}

/// Everything a record conversion writes into besides the event.
pub struct RecordSink<'a> {
    pub strings: &'a mut Strings,
    pub sources: &'a mut Sources,
    pub phases: &'a mut Vec<PhaseBoundary>,
    /// Session id for records that carry none (stormlog's per-file legacy id).
    pub default_session_id: &'a str,
    /// Collector of legacy records that name none and whose keys imply none
    /// (`telemetry_event_from_record(default_collector=...)`): "legacy.unknown"
    /// for JSON, "legacy.csv" for the TUI's CSV rows.
    pub default_collector: &'a str,
    /// `sampling_interval_ms` of legacy records without that key (0 everywhere).
    pub default_sampling_interval_ms: i128,
    pub cache: &'a mut InternCache,
}

impl<'a> RecordSink<'a> {
    /// A sink for JSON/JSONL records (stormlog's JSON loader defaults).
    pub fn json(
        strings: &'a mut Strings,
        sources: &'a mut Sources,
        phases: &'a mut Vec<PhaseBoundary>,
        default_session_id: &'a str,
        cache: &'a mut InternCache,
    ) -> RecordSink<'a> {
        RecordSink {
            strings,
            sources,
            phases,
            default_session_id,
            default_collector: DEFAULT_COLLECTOR,
            default_sampling_interval_ms: 0,
            cache,
        }
    }
}

/// stormlog's default collector for legacy records.
pub const DEFAULT_COLLECTOR: &str = "legacy.unknown";

/// The last id interned per field: consecutive records usually repeat them.
#[derive(Debug, Default, Clone, Copy)]
pub struct InternCache {
    session: StrId,
    event_type: StrId,
    context: StrId,
    host: StrId,
    job_id: StrId,
    source: SourceCache,
    slots: SlotCache,
    tokens: TokenMemo,
}

/// The slots of the last record layout seen ([`Tape::shape_id`]): records laid out
/// alike have their keys at the same nodes. Only layouts without unknown keys.
#[derive(Debug, Clone, Copy)]
struct SlotCache {
    shape_id: u64,
    values: [Option<usize>; SLOT_COUNT],
}

impl Default for SlotCache {
    fn default() -> SlotCache {
        SlotCache {
            shape_id: 0,
            values: [None; SLOT_COUNT],
        }
    }
}

/// Identity details of the record that only session summaries need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordExtras {
    pub host: StrId,
    pub pid: i128,
    pub job_id: StrId,
}

// ── Field slots ─────────────────────────────────────────────────────────────

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(usize)]
enum K {
    SchemaVersion,
    SessionId,
    TimestampNs,
    EventType,
    Collector,
    SamplingIntervalMs,
    Pid,
    Host,
    DeviceId,
    AllocatorAllocated,
    AllocatorReserved,
    AllocatorActive,
    AllocatorInactive,
    AllocatorChange,
    DeviceUsed,
    DeviceFree,
    DeviceTotal,
    Context,
    Metadata,
    JobId,
    Rank,
    LocalRank,
    WorldSize,
    // Legacy-only keys.
    Timestamp,
    Device,
    MemoryMb,
    MemoryAllocated,
    MemoryReserved,
    MemoryChange,
    TotalMemory,
    DeviceTotalLegacy,
    TotalBytes,
    Type,
    Message,
    Backend,
}

const SLOT_COUNT: usize = K::Backend as usize + 1;

/// The v3/v4 required fields, in stormlog's order (v2: the same without session_id).
const REQUIRED_V3: [K; 19] = [
    K::SchemaVersion,
    K::SessionId,
    K::TimestampNs,
    K::EventType,
    K::Collector,
    K::SamplingIntervalMs,
    K::Pid,
    K::Host,
    K::DeviceId,
    K::AllocatorAllocated,
    K::AllocatorReserved,
    K::AllocatorActive,
    K::AllocatorInactive,
    K::AllocatorChange,
    K::DeviceUsed,
    K::DeviceFree,
    K::DeviceTotal,
    K::Context,
    K::Metadata,
];

/// `key == name` for keys already known to have `name`'s length, by whole words
/// (first, middle and last eight bytes, overlapping) instead of a `memcmp` call.
#[inline(always)]
fn same_key(key: &[u8], name: &[u8]) -> bool {
    let n = name.len();
    if key.len() != n || n < 8 {
        return key == name;
    }
    let word = |b: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let mid = (n - 8) / 2;
    word(key, 0) == word(name, 0)
        && word(key, mid) == word(name, mid)
        && word(key, n - 8) == word(name, n - 8)
        && (n <= 24 || key[8..n - 8] == name[8..n - 8])
}

/// Every record key stormlog reads, by slot: the one list the parser matches keys
/// against ([`key_slot`]) and names fields from ([`field_name`]).
const KEY_NAMES: [(K, &str); SLOT_COUNT] = [
    (K::SchemaVersion, "schema_version"),
    (K::SessionId, "session_id"),
    (K::TimestampNs, "timestamp_ns"),
    (K::EventType, "event_type"),
    (K::Collector, "collector"),
    (K::SamplingIntervalMs, "sampling_interval_ms"),
    (K::Pid, "pid"),
    (K::Host, "host"),
    (K::DeviceId, "device_id"),
    (K::AllocatorAllocated, "allocator_allocated_bytes"),
    (K::AllocatorReserved, "allocator_reserved_bytes"),
    (K::AllocatorActive, "allocator_active_bytes"),
    (K::AllocatorInactive, "allocator_inactive_bytes"),
    (K::AllocatorChange, "allocator_change_bytes"),
    (K::DeviceUsed, "device_used_bytes"),
    (K::DeviceFree, "device_free_bytes"),
    (K::DeviceTotal, "device_total_bytes"),
    (K::Context, "context"),
    (K::Metadata, "metadata"),
    (K::JobId, "job_id"),
    (K::Rank, "rank"),
    (K::LocalRank, "local_rank"),
    (K::WorldSize, "world_size"),
    (K::Timestamp, "timestamp"),
    (K::Device, "device"),
    (K::MemoryMb, "memory_mb"),
    (K::MemoryAllocated, "memory_allocated"),
    (K::MemoryReserved, "memory_reserved"),
    (K::MemoryChange, "memory_change"),
    (K::TotalMemory, "total_memory"),
    (K::DeviceTotalLegacy, "device_total"),
    (K::TotalBytes, "total_bytes"),
    (K::Type, "type"),
    (K::Message, "message"),
    (K::Backend, "backend"),
];

const _: () = {
    // The table is in slot order, so `field_name` is an index.
    let mut i = 0;
    while i < SLOT_COUNT {
        assert!(KEY_NAMES[i].0 as usize == i);
        i += 1;
    }
};

/// The longest key, and the most keys of one length.
const LONGEST_KEY: usize = 25;
const MOST_OF_ONE_LENGTH: usize = 4;
const NO_SLOT: u8 = u8::MAX;

/// Slots by key length (unused places [`NO_SLOT`]), built from [`KEY_NAMES`] at
/// compile time: a key costs one length lookup and at most a few word comparisons.
const SLOTS_BY_LENGTH: [[u8; MOST_OF_ONE_LENGTH]; LONGEST_KEY + 1] = {
    let mut by_length = [[NO_SLOT; MOST_OF_ONE_LENGTH]; LONGEST_KEY + 1];
    let mut i = 0;
    while i < SLOT_COUNT {
        let len = KEY_NAMES[i].1.len();
        assert!(len <= LONGEST_KEY);
        let mut j = 0;
        while by_length[len][j] != NO_SLOT {
            j += 1; // out of bounds (a compile error) past MOST_OF_ONE_LENGTH
        }
        by_length[len][j] = i as u8;
        i += 1;
    }
    by_length
};

/// The slot of a record key ([`SLOTS_BY_LENGTH`], then [`same_key`]).
#[inline]
fn key_slot(key: &[u8]) -> Option<K> {
    for &slot in SLOTS_BY_LENGTH.get(key.len())? {
        if slot == NO_SLOT {
            return None;
        }
        let (k, name) = KEY_NAMES[slot as usize];
        if same_key(key, name.as_bytes()) {
            return Some(k);
        }
    }
    None
}

fn field_name(k: K) -> &'static str {
    KEY_NAMES[k as usize].1
}

/// A record's top-level keys sorted into slots (the last occurrence of a key wins).
struct Slots<'t> {
    tape: &'t Tape,
    values: [Option<usize>; SLOT_COUNT],
    /// Key node indices of keys that are not slots (for "Unknown telemetry fields"
    /// and the legacy `metadata_*` keys), in record order.
    others: Vec<usize>,
}

impl<'t> Slots<'t> {
    /// The slots of the tape's top object, from `cache` when the tape is laid out like
    /// the one that filled it.
    fn new_cached(tape: &'t Tape, cache: &mut SlotCache) -> Slots<'t> {
        let shape_id = tape.shape_id();
        if shape_id != 0 && cache.shape_id == shape_id {
            return Slots {
                tape,
                values: cache.values,
                others: Vec::new(),
            };
        }
        let slots = Slots::new(tape, 0);
        if shape_id != 0 && slots.others.is_empty() {
            *cache = SlotCache {
                shape_id,
                values: slots.values,
            };
        }
        slots
    }

    fn new(tape: &'t Tape, root: usize) -> Slots<'t> {
        let mut values = [None; SLOT_COUNT];
        let mut others = Vec::new();
        for (k, v) in tape.entries(root) {
            match key_slot(tape.bytes(tape.nodes[k])) {
                Some(slot) => values[slot as usize] = Some(v),
                None => others.push(k),
            }
        }
        Slots {
            tape,
            values,
            others,
        }
    }

    fn has(&self, k: K) -> bool {
        self.values[k as usize].is_some()
    }

    /// `record.get(key)`: the node, or `None` when absent.
    fn get(&self, k: K) -> Option<Node> {
        self.values[k as usize].map(|i| self.tape.nodes[i])
    }

    /// `_coerce_optional_int(record.get(key), key)`: absent and null are `None`.
    fn optional_int(&self, k: K) -> Result<Option<i128>> {
        coerce_optional_int(self.tape, self.get(k), field_name(k))
    }

    /// `record.get(key)` treating JSON `null` like an absent key.
    fn get_non_null(&self, k: K) -> Option<Node> {
        self.get(k).filter(|n| *n != Node::Null)
    }
}

// ── Python coercions ────────────────────────────────────────────────────────

/// `_coerce_int`: ints only (booleans and floats are not ints). Python ints are
/// unbounded; values are kept exactly up to `i128` while validating, and must fit
/// in `i64` only once stormlog would accept the record (see [`fit`]).
fn coerce_int(tape: &Tape, node: Option<Node>, field: &str) -> Result<i128> {
    match node {
        Some(Node::Int(v)) => Ok(i128::from(v)),
        Some(n @ Node::BigInt { .. }) => match tape.big_int(n) {
            Some(v) => Ok(v),
            None => fail(field, out_of_range(field)),
        },
        _ => fail(field, format!("{field} must be an integer")),
    }
}

fn out_of_range(field: &str) -> String {
    format!("{field} is outside the supported 64-bit integer range")
}

/// A validated value that the compact event stores as `i64`.
fn fit(value: i128, field: &str) -> Result<i64> {
    i64::try_from(value).map_err(|_| RecordError {
        field: Some(field.to_string()),
        message: out_of_range(field),
        beyond_stormlog: true,
        python_text: None,
    })
}

fn fit_opt(value: Option<i128>, field: &str) -> Result<Option<i64>> {
    value.map(|v| fit(v, field)).transpose()
}

/// `_coerce_optional_int`: `None`/null allowed.
fn coerce_optional_int(tape: &Tape, node: Option<Node>, field: &str) -> Result<Option<i128>> {
    match node {
        None | Some(Node::Null) => Ok(None),
        other => coerce_int(tape, other, field).map(Some),
    }
}

/// `_coerce_string(value, field, allow_none=...)`: the string's text, or `None`.
fn coerce_string<'t>(
    tape: &'t Tape,
    node: Option<Node>,
    field: &str,
    allow_none: bool,
) -> Result<Option<Cow<'t, str>>> {
    match node {
        None | Some(Node::Null) => {
            if allow_none {
                Ok(None)
            } else {
                fail(field, format!("{field} must be a non-empty string"))
            }
        }
        Some(n @ Node::Str { .. }) => {
            let text = tape.text_of(n);
            if !allow_none && py_strip(&text).is_empty() {
                return fail(field, format!("{field} must be a non-empty string"));
            }
            Ok(Some(text))
        }
        Some(_) => fail(field, format!("{field} must be a string")),
    }
}

fn coerce_required_string<'t>(
    tape: &'t Tape,
    node: Option<Node>,
    field: &str,
) -> Result<Cow<'t, str>> {
    match coerce_string(tape, node, field, false)? {
        Some(text) => Ok(text),
        None => fail(field, format!("{field} must be a non-empty string")),
    }
}

/// `_coerce_optional_non_empty_string`.
fn coerce_optional_non_empty_string<'t>(
    tape: &'t Tape,
    node: Option<Node>,
    field: &str,
) -> Result<Option<Cow<'t, str>>> {
    match node {
        None | Some(Node::Null) => Ok(None),
        other => coerce_required_string(tape, other, field).map(Some),
    }
}

fn non_negative(value: i128, field: &str) -> Result<i128> {
    if value < 0 {
        return fail(field, format!("{field} must be >= 0"));
    }
    Ok(value)
}

fn positive(value: i128, field: &str) -> Result<i128> {
    if value <= 0 {
        return fail(field, format!("{field} must be >= 1"));
    }
    Ok(value)
}

/// Normalized distributed identity.
struct DistIdentity<'t> {
    job_id: Option<Cow<'t, str>>,
    rank: i128,
    local_rank: i128,
    world_size: i128,
}

/// `resolve_distributed_identity` without environment (loaders never pass one).
fn resolve_identity<'t>(
    tape: &'t Tape,
    job_id: Option<Node>,
    rank: Option<Node>,
    local_rank: Option<Node>,
    world_size: Option<Node>,
) -> Result<DistIdentity<'t>> {
    let not_null = |n: Option<Node>| n.filter(|v| *v != Node::Null);
    let job_id = not_null(job_id);
    let rank_raw = not_null(rank);
    let local_rank_raw = not_null(local_rank).or(rank_raw);
    let world_size_raw = not_null(world_size);

    let job_id = coerce_optional_non_empty_string(tape, job_id, "job_id")?;
    let rank = match rank_raw {
        None => 0,
        some => non_negative(coerce_int(tape, some, "rank")?, "rank")?,
    };
    let local_rank = match local_rank_raw {
        None => rank,
        some => non_negative(coerce_int(tape, some, "local_rank")?, "local_rank")?,
    };
    let world_size = match world_size_raw {
        None => 1,
        some => positive(coerce_int(tape, some, "world_size")?, "world_size")?,
    };
    if rank >= world_size {
        return fail("rank", "rank must be < world_size");
    }
    if local_rank >= world_size {
        return fail("local_rank", "local_rank must be < world_size");
    }
    Ok(DistIdentity {
        job_id,
        rank,
        local_rank,
        world_size,
    })
}

// ── The event as validated ──────────────────────────────────────────────────

/// The fields of a would-be v4 event, validated together by [`validate_v4_values`].
struct Draft<'x> {
    timestamp_ns: i128,
    event_type: Cow<'x, str>,
    collector: Cow<'x, str>,
    sampling_interval_ms: i128,
    pid: i128,
    host: Cow<'x, str>,
    allocated: Option<i128>,
    reserved: Option<i128>,
    active: Option<i128>,
    inactive: Option<i128>,
    change: Option<i128>,
    used: Option<i128>,
    free: Option<i128>,
    total: Option<i128>,
    context: Option<Cow<'x, str>>,
    identity: DistIdentity<'x>,
    session_id: Cow<'x, str>,
}

fn range(value: Option<i128>, field: &str, message: &str) -> Result<()> {
    match value {
        Some(v) if v < 0 => fail(field, message),
        _ => Ok(()),
    }
}

/// The value checks of `validate_telemetry_record` for a v4 event, after its shape:
/// process fields, counters, then (by the caller) metadata capabilities.
fn validate_v4_values(d: &Draft) -> Result<()> {
    if d.timestamp_ns < 0 {
        return fail("timestamp_ns", "timestamp_ns must be >= 0");
    }
    if py_strip(&d.event_type).is_empty() {
        return fail("event_type", "event_type must be a non-empty string");
    }
    if py_strip(&d.collector).is_empty() {
        return fail("collector", "collector must be a non-empty string");
    }
    if d.sampling_interval_ms < 0 {
        return fail("sampling_interval_ms", "sampling_interval_ms must be >= 0");
    }
    if d.pid < -1 {
        return fail("pid", "pid must be >= -1");
    }
    if py_strip(&d.host).is_empty() {
        return fail("host", "host must be a non-empty string");
    }
    range(
        d.allocated,
        "allocator_allocated_bytes",
        "allocator_allocated_bytes must be >= 0",
    )?;
    range(
        d.reserved,
        "allocator_reserved_bytes",
        "allocator_reserved_bytes must be >= 0",
    )?;
    range(
        d.active,
        "allocator_active_bytes",
        "allocator_active_bytes must be >= 0 when provided",
    )?;
    range(
        d.inactive,
        "allocator_inactive_bytes",
        "allocator_inactive_bytes must be >= 0 when provided",
    )?;
    validate_device_counters(d.used, d.free, d.total)
}

/// `_validate_device_counters` after coercion: ranges, then used/free against total.
fn validate_device_counters(
    used: Option<i128>,
    free: Option<i128>,
    total: Option<i128>,
) -> Result<()> {
    range(used, "device_used_bytes", "device_used_bytes must be >= 0")?;
    range(
        free,
        "device_free_bytes",
        "device_free_bytes must be >= 0 when provided",
    )?;
    range(
        total,
        "device_total_bytes",
        "device_total_bytes must be >= 0 when provided",
    )?;
    if let Some(total) = total {
        if matches!(used, Some(used) if used > total) {
            return fail(
                "device_used_bytes",
                "device_used_bytes cannot exceed device_total_bytes",
            );
        }
        if matches!(free, Some(free) if free > total) {
            return fail(
                "device_free_bytes",
                "device_free_bytes cannot exceed device_total_bytes",
            );
        }
    }
    Ok(())
}

const CAPABILITY_STRINGS: [&str; 3] = ["backend", "telemetry_collector", "sampling_source"];
const CAPABILITY_BOOLS: [&str; 11] = [
    "supports_allocator_allocated",
    "supports_allocator_reserved",
    "supports_allocator_active",
    "supports_allocator_inactive",
    "supports_device_used",
    "supports_device_free",
    "supports_device_total",
    "supports_native_allocator_history",
    "supports_fragmentation_analysis",
    "supports_allocator_attribution",
    "supports_bounded_profiling",
];

const CHANGE_WITHOUT_ALLOCATED: &str =
    "allocator_change_bytes must be null when allocator allocated memory is unsupported";

/// `_validate_memory_capabilities` + `_validate_capability_counter_consistency`
/// for a `memory_capabilities` value given in the record's metadata.
fn validate_capabilities(tape: &Tape, caps: usize, d: &Draft) -> Result<()> {
    const FIELD: &str = "metadata.memory_capabilities";
    if !matches!(tape.nodes[caps], Node::Object { .. }) {
        return fail(FIELD, "metadata.memory_capabilities must be an object");
    }
    let lookup = |name: &str| tape.get(caps, name.as_bytes()).map(|i| tape.nodes[i]);
    let missing: Vec<&str> = CAPABILITY_STRINGS
        .iter()
        .chain(CAPABILITY_BOOLS.iter())
        .copied()
        .filter(|name| lookup(name).is_none())
        .collect();
    if !missing.is_empty() {
        return fail(
            FIELD,
            format!("Missing memory capability fields: {}", missing.join(", ")),
        );
    }
    let mut unknown: Vec<String> = tape
        .entries(caps)
        .map(|(k, _)| tape.text_of(tape.nodes[k]).into_owned())
        .filter(|name| {
            !CAPABILITY_STRINGS.contains(&name.as_str())
                && !CAPABILITY_BOOLS.contains(&name.as_str())
        })
        .collect();
    unknown.sort();
    unknown.dedup();
    if !unknown.is_empty() {
        return fail(
            FIELD,
            format!("Unknown memory capability fields: {}", unknown.join(", ")),
        );
    }
    for name in CAPABILITY_STRINGS {
        let field = format!("{FIELD}.{name}");
        coerce_required_string(tape, lookup(name), &field)?;
    }
    let mut supports = [false; 11];
    for (i, name) in CAPABILITY_BOOLS.iter().enumerate() {
        match lookup(name) {
            Some(Node::Bool(b)) => supports[i] = b,
            _ => {
                let field = format!("{FIELD}.{name}");
                return fail(&field, format!("{field} must be a boolean"));
            }
        }
    }
    let counters = [
        ("allocator_allocated_bytes", d.allocated, 0),
        ("allocator_reserved_bytes", d.reserved, 1),
        ("allocator_active_bytes", d.active, 2),
        ("allocator_inactive_bytes", d.inactive, 3),
        ("device_used_bytes", d.used, 4),
        ("device_free_bytes", d.free, 5),
        ("device_total_bytes", d.total, 6),
    ];
    for (counter, value, cap) in counters {
        if value.is_some() && !supports[cap] {
            return fail(
                counter,
                format!(
                    "{counter} must be null when {FIELD}.{} is false",
                    CAPABILITY_BOOLS[cap]
                ),
            );
        }
    }
    if d.change.is_some() && !supports[0] {
        return fail("allocator_change_bytes", CHANGE_WITHOUT_ALLOCATED);
    }
    Ok(())
}

// ── Marker scan ─────────────────────────────────────────────────────────────

/// Does any string value (not key) in the subtree at `idx` carry a collective token?
fn subtree_has_token(tape: &Tape, idx: usize, memo: &mut TokenMemo) -> bool {
    let end = tape.subtree_end(idx);
    tape.nodes[idx..end]
        .iter()
        .any(|n| matches!(n, Node::Str { .. }) && memo.contains(tape.bytes(*n)))
}

/// stormlog's inferred `memory_capabilities` (added when the metadata has none)
/// contributes `telemetry_collector` = the collector and `sampling_source` =
/// `str(metadata.get("sampling_source", "legacy"))` to the strings scanned for
/// markers. A non-string `sampling_source` is scanned as Python's `repr` of it.
fn inferred_capabilities_have_token(
    tape: &Tape,
    collector: &str,
    sampling_source: Option<usize>,
    memo: &mut TokenMemo,
) -> bool {
    if memo.contains(collector.as_bytes()) {
        return true;
    }
    match sampling_source {
        Some(i) if !matches!(tape.nodes[i], Node::Str { .. }) => {
            let mut repr = Vec::new();
            py_repr(tape, i, &mut repr);
            contains_collective_token(&repr)
        }
        _ => false, // a string value is scanned with the rest of the metadata
    }
}

/// A Python `repr()` rendering of a JSON value, faithful where it matters for
/// token detection (keys, strings and their escapes).
fn py_repr(tape: &Tape, idx: usize, out: &mut Vec<u8>) {
    match tape.nodes[idx] {
        Node::Null => out.extend_from_slice(b"None"),
        Node::Bool(true) => out.extend_from_slice(b"True"),
        Node::Bool(false) => out.extend_from_slice(b"False"),
        Node::Int(v) => out.extend_from_slice(v.to_string().as_bytes()),
        Node::BigInt { .. } => out.extend_from_slice(b"0"),
        Node::Float(f) => out.extend_from_slice(if f.is_nan() {
            b"nan".as_slice()
        } else if f.is_infinite() {
            b"inf".as_slice()
        } else {
            b"0.0".as_slice()
        }),
        n @ (Node::Str { .. } | Node::Key { .. }) => {
            out.extend_from_slice(py_repr_str(&tape.text_of(n)).as_bytes())
        }
        Node::Array { .. } => {
            out.push(b'[');
            for (i, e) in tape.elements(idx).enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                py_repr(tape, e, out);
            }
            out.push(b']');
        }
        Node::Object { .. } => {
            out.push(b'{');
            for (i, (k, v)) in tape.entries(idx).enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                py_repr(tape, k, out);
                out.extend_from_slice(b": ");
                py_repr(tape, v, out);
            }
            out.push(b'}');
        }
    }
}

// ── Conversion ──────────────────────────────────────────────────────────────

/// Converts the record object at the top of `tape` (node 0) into an event.
pub fn convert_record(tape: &Tape, sink: &mut RecordSink<'_>) -> Result<(Event, RecordExtras)> {
    let slots = Slots::new_cached(tape, &mut sink.cache.slots);
    if slots.has(K::SchemaVersion) {
        convert_schema_record(&slots, sink)
    } else {
        convert_legacy_record(&slots, sink)
    }
}

/// What both paths hand to [`finish`].
struct Converted<'t> {
    draft: Draft<'t>,
    /// The metadata object the event keeps (node index), if any.
    metadata: Option<usize>,
    /// Legacy `metadata_*` top-level keys merged into the metadata (value nodes).
    metadata_extra: Vec<usize>,
    /// Metadata keys stormlog strips from legacy metadata.
    strip_identity_keys: bool,
    tape: &'t Tape,
}

fn convert_schema_record(
    slots: &Slots<'_>,
    sink: &mut RecordSink<'_>,
) -> Result<(Event, RecordExtras)> {
    let tape = slots.tape;
    let schema_version = coerce_int(tape, slots.get(K::SchemaVersion), "schema_version")?;
    if !(2..=4).contains(&schema_version) {
        return fail(
            "schema_version",
            format!("Unsupported schema_version: {schema_version}"),
        );
    }
    // raw_metadata = record.get("metadata", {}) must be a dict.
    let metadata = slots.values[K::Metadata as usize];
    if let Some(m) = metadata {
        if !matches!(tape.nodes[m], Node::Object { .. }) {
            return fail("metadata", "metadata must be an object");
        }
    }
    let identity = resolve_identity(
        tape,
        slots.get(K::JobId),
        slots.get(K::Rank),
        slots.get(K::LocalRank),
        slots.get(K::WorldSize),
    )?;
    let session_id = resolve_session_id(
        tape,
        slots.get(K::SessionId),
        metadata,
        sink.default_session_id,
    );
    // stormlog then reads record["metadata"] directly: a KeyError when it is absent.
    let Some(metadata) = metadata else {
        return Err(RecordError {
            field: Some("metadata".to_string()),
            message: "Missing required telemetry fields: metadata".to_string(),
            beyond_stormlog: false,
            python_text: Some("'metadata'".to_string()),
        });
    };

    // validate_telemetry_record(normalized): shape first.
    let missing: Vec<&str> = REQUIRED_V3
        .iter()
        .filter(|k| **k != K::SessionId && **k != K::Metadata && !slots.has(**k))
        .map(|k| field_name(*k))
        .collect();
    if !missing.is_empty() {
        let field = missing[0];
        return fail(
            field,
            format!("Missing required telemetry fields: {}", missing.join(", ")),
        );
    }
    let mut unknown: Vec<String> = slots
        .others
        .iter()
        .map(|&k| tape.text_of(tape.nodes[k]).into_owned())
        .collect();
    for legacy in [
        K::Timestamp,
        K::Device,
        K::MemoryMb,
        K::MemoryAllocated,
        K::MemoryReserved,
        K::MemoryChange,
        K::TotalMemory,
        K::DeviceTotalLegacy,
        K::TotalBytes,
        K::Type,
        K::Message,
        K::Backend,
    ] {
        if slots.has(legacy) {
            unknown.push(field_name(legacy).to_string());
        }
    }
    if schema_version == 2 && slots.has(K::SessionId) {
        unknown.push("session_id".to_string());
    }
    if !unknown.is_empty() {
        unknown.sort();
        unknown.dedup();
        let field = unknown[0].clone();
        return fail(
            &field,
            format!("Unknown telemetry fields: {}", unknown.join(", ")),
        );
    }

    // _validate_telemetry_process
    let timestamp_ns = coerce_int(tape, slots.get(K::TimestampNs), "timestamp_ns")?;
    if timestamp_ns < 0 {
        return fail("timestamp_ns", "timestamp_ns must be >= 0");
    }
    let event_type = coerce_required_string(tape, slots.get(K::EventType), "event_type")?;
    let collector = coerce_required_string(tape, slots.get(K::Collector), "collector")?;
    let sampling_interval_ms = coerce_int(
        tape,
        slots.get(K::SamplingIntervalMs),
        "sampling_interval_ms",
    )?;
    if sampling_interval_ms < 0 {
        return fail("sampling_interval_ms", "sampling_interval_ms must be >= 0");
    }
    let pid = coerce_int(tape, slots.get(K::Pid), "pid")?;
    if pid < -1 {
        return fail("pid", "pid must be >= -1");
    }
    let host = coerce_required_string(tape, slots.get(K::Host), "host")?;
    // _validate_telemetry_identity_fields: resolve_identity above enforced the values,
    // but it reads a null rank, local rank or world size as absent, and this does not.
    for k in [K::Rank, K::LocalRank, K::WorldSize] {
        if slots.get(k) == Some(Node::Null) {
            let field = field_name(k);
            return fail(field, format!("{field} must be an integer"));
        }
    }
    coerce_int(tape, slots.get(K::DeviceId), "device_id")?;

    let nullable = schema_version == 4;
    let core = |k: K| -> Result<Option<i128>> {
        if nullable {
            coerce_optional_int(tape, slots.get(k), field_name(k))
        } else {
            coerce_int(tape, slots.get(k), field_name(k)).map(Some)
        }
    };
    let allocated = core(K::AllocatorAllocated)?;
    let reserved = core(K::AllocatorReserved)?;
    let active = slots.optional_int(K::AllocatorActive)?;
    let inactive = slots.optional_int(K::AllocatorInactive)?;
    let change = core(K::AllocatorChange)?;
    range(
        allocated,
        "allocator_allocated_bytes",
        "allocator_allocated_bytes must be >= 0",
    )?;
    range(
        reserved,
        "allocator_reserved_bytes",
        "allocator_reserved_bytes must be >= 0",
    )?;
    range(
        active,
        "allocator_active_bytes",
        "allocator_active_bytes must be >= 0 when provided",
    )?;
    range(
        inactive,
        "allocator_inactive_bytes",
        "allocator_inactive_bytes must be >= 0 when provided",
    )?;
    let used = core(K::DeviceUsed)?;
    let free = coerce_optional_int(tape, slots.get(K::DeviceFree), "device_free_bytes")?;
    let total = coerce_optional_int(tape, slots.get(K::DeviceTotal), "device_total_bytes")?;
    validate_device_counters(used, free, total)?;
    let context = coerce_string(tape, slots.get(K::Context), "context", true)?;

    let draft = Draft {
        timestamp_ns,
        event_type,
        collector,
        sampling_interval_ms,
        pid,
        host,
        allocated,
        reserved,
        active,
        inactive,
        change,
        used,
        free,
        total,
        context,
        identity,
        session_id,
    };
    finish(
        Converted {
            draft,
            metadata: Some(metadata),
            metadata_extra: Vec::new(),
            strip_identity_keys: false,
            tape,
        },
        sink,
    )
}

/// `_resolve_session_id`: the record's id, else the metadata's, else the default.
fn resolve_session_id<'x>(
    tape: &'x Tape,
    record_id: Option<Node>,
    metadata: Option<usize>,
    default: &'x str,
) -> Cow<'x, str> {
    let mut raw = record_id.filter(|n| *n != Node::Null);
    if raw.is_none() {
        if let Some(m) = metadata {
            if matches!(tape.nodes[m], Node::Object { .. }) {
                raw = tape.get(m, b"session_id").map(|i| tape.nodes[i]);
            }
        }
    }
    match raw {
        Some(n @ Node::Str { .. }) if !py_strip(&tape.text_of(n)).is_empty() => tape.text_of(n),
        _ => Cow::Borrowed(default),
    }
}

/// Python `int(float(x) * scale)` for a number node (legacy timestamps, memory_mb).
fn float_scaled_to_int(tape: &Tape, node: Node, scale: f64, field: &str) -> Result<i128> {
    let x = match node {
        Node::Int(v) => v as f64,
        Node::Float(f) => f,
        n @ Node::BigInt { .. } => match tape.big_int(n) {
            Some(v) => v as f64,
            None => return fail(field, "int too large to convert to float"),
        },
        _ => return fail(field, format!("{field} must be a number")),
    };
    let scaled = x * scale;
    if scaled.is_nan() {
        return fail(field, "cannot convert float NaN to integer");
    }
    if scaled.is_infinite() {
        return fail(field, "cannot convert float infinity to integer");
    }
    let truncated = scaled.trunc();
    if truncated.abs() >= 1.7e38 {
        return fail(field, out_of_range(field));
    }
    Ok(truncated as i128)
}

fn is_number(node: Option<Node>) -> bool {
    matches!(
        node,
        Some(Node::Int(_) | Node::Float(_) | Node::BigInt { .. })
    )
}

/// A key of legacy metadata: `record["metadata"]` (an object or absent/null)
/// overlaid with the top-level `metadata_<key>` fields.
fn legacy_metadata_lookup(
    tape: &Tape,
    metadata: Option<usize>,
    extra: &[(String, usize)],
    key: &str,
) -> Option<Node> {
    // Later sources overwrite earlier ones: metadata_<key> fields come after the dict.
    if let Some((_, v)) = extra.iter().rev().find(|(k, _)| k == key) {
        return Some(tape.nodes[*v]);
    }
    metadata
        .and_then(|m| tape.get(m, key.as_bytes()))
        .map(|i| tape.nodes[i])
}

fn convert_legacy_record(
    slots: &Slots<'_>,
    sink: &mut RecordSink<'_>,
) -> Result<(Event, RecordExtras)> {
    let tape = slots.tape;
    // _extract_metadata
    let metadata = match slots.values[K::Metadata as usize] {
        None => None,
        Some(m) => match tape.nodes[m] {
            Node::Null => None,
            Node::Object { .. } => Some(m),
            _ => return fail("metadata", "metadata must be an object when provided"),
        },
    };
    let mut extra: Vec<(String, usize)> = Vec::new();
    for &k in &slots.others {
        let name = tape.text_of(tape.nodes[k]);
        if let Some(rest) = name.strip_prefix("metadata_") {
            extra.push((rest.to_string(), k + 1));
        }
    }
    let meta = |key: &str| legacy_metadata_lookup(tape, metadata, &extra, key);

    // _legacy_timestamp_ns
    let timestamp_ns = if slots.has(K::TimestampNs) {
        coerce_int(tape, slots.get(K::TimestampNs), "timestamp_ns")?
    } else {
        match slots.get(K::Timestamp) {
            Some(n) if is_number(Some(n)) => {
                float_scaled_to_int(tape, n, 1_000_000_000.0, "timestamp")?
            }
            _ => return fail("timestamp", "Legacy record is missing a valid timestamp"),
        }
    };
    // _legacy_device_id
    let device_id = if slots.has(K::DeviceId) {
        coerce_int(tape, slots.get(K::DeviceId), "device_id")?
    } else {
        legacy_device_id(tape, slots)
    };
    // counters
    let allocated = if slots.has(K::AllocatorAllocated) {
        coerce_int(
            tape,
            slots.get(K::AllocatorAllocated),
            "allocator_allocated_bytes",
        )?
    } else if slots.has(K::MemoryAllocated) {
        coerce_int(tape, slots.get(K::MemoryAllocated), "memory_allocated")?
    } else if let Some(mb) = slots.get(K::MemoryMb).filter(|n| is_number(Some(*n))) {
        float_scaled_to_int(tape, mb, 1024.0 * 1024.0, "memory_mb")?
    } else if slots.has(K::DeviceUsed) {
        coerce_int(tape, slots.get(K::DeviceUsed), "device_used_bytes")?
    } else {
        0
    };
    let reserved = if slots.has(K::AllocatorReserved) {
        coerce_int(
            tape,
            slots.get(K::AllocatorReserved),
            "allocator_reserved_bytes",
        )?
    } else if slots.has(K::MemoryReserved) {
        coerce_int(tape, slots.get(K::MemoryReserved), "memory_reserved")?
    } else {
        allocated
    };
    let change = if slots.has(K::AllocatorChange) {
        coerce_int(
            tape,
            slots.get(K::AllocatorChange),
            "allocator_change_bytes",
        )?
    } else if slots.has(K::MemoryChange) {
        coerce_int(tape, slots.get(K::MemoryChange), "memory_change")?
    } else {
        0
    };
    let active = slots.optional_int(K::AllocatorActive)?;
    let inactive = slots.optional_int(K::AllocatorInactive)?;
    let used = if slots.has(K::DeviceUsed) {
        coerce_int(tape, slots.get(K::DeviceUsed), "device_used_bytes")?
    } else {
        allocated
    };
    // _legacy_total_memory_bytes
    let total = if slots.has(K::DeviceTotal) {
        coerce_optional_int(tape, slots.get(K::DeviceTotal), "device_total_bytes")?
    } else if let Some(k) = [K::TotalMemory, K::DeviceTotalLegacy, K::TotalBytes]
        .into_iter()
        .find(|k| slots.has(*k))
    {
        coerce_optional_int(tape, slots.get(k), field_name(k))?
    } else if let Some(key) = ["total_memory", "device_total", "total_bytes"]
        .into_iter()
        .find(|key| meta(key).is_some())
    {
        coerce_optional_int(tape, meta(key), key)?
    } else {
        None
    };
    // _legacy_device_free_bytes
    let free = if slots.has(K::DeviceFree) {
        coerce_optional_int(tape, slots.get(K::DeviceFree), "device_free_bytes")?
    } else {
        total.map(|t| (t - used).max(0))
    };
    // event_type = record.get("event_type", record.get("type", "sample"))
    let event_type = if slots.has(K::EventType) {
        coerce_required_string(tape, slots.get(K::EventType), "event_type")?
    } else if slots.has(K::Type) {
        coerce_required_string(tape, slots.get(K::Type), "event_type")?
    } else {
        Cow::Borrowed("sample")
    };
    let sampling_interval_ms = match slots.values[K::SamplingIntervalMs as usize] {
        Some(_) => coerce_int(
            tape,
            slots.get(K::SamplingIntervalMs),
            "sampling_interval_ms",
        )?,
        None => sink.default_sampling_interval_ms,
    };
    // _legacy_pid / _legacy_host
    let pid = if slots.has(K::Pid) {
        coerce_int(tape, slots.get(K::Pid), "pid")?
    } else if let Some(p) = meta("pid") {
        coerce_int(tape, Some(p), "pid")?
    } else {
        -1
    };
    let host = if slots.has(K::Host) {
        coerce_required_string(tape, slots.get(K::Host), "host")?
    } else if let Some(h) = meta("host") {
        coerce_required_string(tape, Some(h), "host")?
    } else {
        Cow::Borrowed("unknown")
    };
    let default_collector: &str = sink.default_collector;
    let collector = legacy_collector(tape, slots, device_id, &meta, default_collector);
    let identity = resolve_identity(
        tape,
        slots.get_non_null(K::JobId).or_else(|| meta("job_id")),
        slots.get_non_null(K::Rank).or_else(|| meta("rank")),
        slots
            .get_non_null(K::LocalRank)
            .or_else(|| meta("local_rank")),
        slots
            .get_non_null(K::WorldSize)
            .or_else(|| meta("world_size")),
    )?;
    // Session id: the record's, else the metadata's (before stripping it).
    let record_session = slots
        .get_non_null(K::SessionId)
        .or_else(|| meta("session_id"));
    let session_id = match record_session {
        Some(n @ Node::Str { .. }) if !py_strip(&tape.text_of(n)).is_empty() => tape.text_of(n),
        _ => Cow::Borrowed(sink.default_session_id),
    };
    // context = record.get("context", record.get("message"))
    let context_node = if slots.has(K::Context) {
        slots.get(K::Context)
    } else {
        slots.get(K::Message)
    };
    let context = coerce_string(tape, context_node, "context", true)?;

    let draft = Draft {
        timestamp_ns,
        event_type,
        collector,
        sampling_interval_ms,
        pid,
        host,
        allocated: Some(allocated),
        reserved: Some(reserved),
        active,
        inactive,
        change: Some(change),
        used: Some(used),
        free,
        total,
        context,
        identity,
        session_id,
    };
    finish(
        Converted {
            draft,
            metadata,
            metadata_extra: extra.iter().map(|(_, v)| *v).collect(),
            strip_identity_keys: true,
            tape,
        },
        sink,
    )
}

fn legacy_device_id(tape: &Tape, slots: &Slots<'_>) -> i128 {
    if let Some(n @ Node::Str { .. }) = slots.get(K::Device) {
        let device = tape.text_of(n);
        let lowered = device.to_lowercase();
        if lowered.contains("cpu") {
            return -1;
        }
        if let Some((_, tail)) = device.rsplit_once(':') {
            // Python's str.isdigit() also accepts other Unicode digits; ASCII covers real traces.
            if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                return tail.parse().unwrap_or(-1);
            }
        }
        if lowered.starts_with("/gpu") {
            return 0;
        }
    }
    if slots.has(K::MemoryMb) {
        return 0;
    }
    -1
}

fn legacy_collector<'x>(
    tape: &'x Tape,
    slots: &Slots<'_>,
    device_id: i128,
    meta: &dyn Fn(&str) -> Option<Node>,
    default: &'x str,
) -> Cow<'x, str> {
    if let Some(n @ Node::Str { .. }) = slots.get(K::Collector) {
        let text = tape.text_of(n);
        if !py_strip(&text).is_empty() {
            return text;
        }
    }
    let backend = if slots.has(K::Backend) {
        slots.get(K::Backend)
    } else {
        meta("backend")
    };
    if let Some(n @ Node::Str { .. }) = backend {
        let b = py_strip(&tape.text_of(n)).to_lowercase();
        let mapped = match b.as_str() {
            "mps" => Some("stormlog.mps_tracker"),
            "rocm" => Some("stormlog.rocm_tracker"),
            "cuda" => Some("stormlog.cuda_tracker"),
            "cpu" => Some("stormlog.cpu_tracker"),
            _ => None,
        };
        if let Some(m) = mapped {
            return Cow::Borrowed(m);
        }
    }
    if slots.has(K::MemoryMb) {
        return Cow::Borrowed("stormlog.tensorflow.memory_tracker");
    }
    if slots.has(K::MemoryAllocated) {
        return Cow::Borrowed(if device_id == -1 {
            "stormlog.cpu_tracker"
        } else {
            "stormlog.cuda_tracker"
        });
    }
    Cow::Borrowed(default)
}

/// What the event's metadata contributes: the keys attribution reads, and whether
/// any string value carries a collective token.
#[derive(Default)]
struct MetaView {
    capabilities: Option<usize>,
    sampling_source: Option<usize>,
    phase_scope: Option<usize>,
    token: bool,
}

impl MetaView {
    fn visit(&mut self, tape: &Tape, key: &[u8], value: usize, memo: &mut TokenMemo) {
        match key {
            b"memory_capabilities" => self.capabilities = Some(value),
            b"sampling_source" => self.sampling_source = Some(value),
            b"phase_scope" => self.phase_scope = Some(value),
            _ => {}
        }
        if !self.token && subtree_has_token(tape, value, memo) {
            self.token = true;
        }
    }
}

/// Reads the metadata as the event keeps it: the record's dict (the last of a
/// repeated key) overlaid by legacy `metadata_<key>` fields, without the keys
/// stormlog strips from legacy metadata.
fn scan_metadata(c: &Converted<'_>, memo: &mut TokenMemo) -> MetaView {
    let tape = c.tape;
    let mut view = MetaView::default();
    let later_duplicate = |m: usize, k: usize| {
        let key = tape.bytes(tape.nodes[k]);
        tape.entries(m)
            .any(|(k2, _)| k2 > k && tape.bytes(tape.nodes[k2]) == key)
    };
    if c.metadata_extra.is_empty() && !c.strip_identity_keys {
        // Schema records: the dict alone.
        if let Some(m) = c.metadata {
            for (k, v) in tape.entries(m) {
                if !later_duplicate(m, k) {
                    view.visit(tape, tape.bytes(tape.nodes[k]), v, memo);
                }
            }
        }
        return view;
    }
    let stripped = |key: &[u8]| {
        c.strip_identity_keys
            && matches!(
                key,
                b"job_id" | b"rank" | b"local_rank" | b"world_size" | b"session_id"
            )
    };
    let extra_name = |v: usize| -> Vec<u8> {
        let key = tape.bytes(tape.nodes[v - 1]);
        key.strip_prefix(b"metadata_".as_slice())
            .unwrap_or(key)
            .to_vec()
    };
    let extras: Vec<(Vec<u8>, usize)> = c
        .metadata_extra
        .iter()
        .map(|&v| (extra_name(v), v))
        .collect();
    if let Some(m) = c.metadata {
        for (k, v) in tape.entries(m) {
            let key = tape.bytes(tape.nodes[k]);
            if stripped(key)
                || later_duplicate(m, k)
                || extras.iter().any(|(name, _)| name.as_slice() == key)
            {
                continue;
            }
            view.visit(tape, key, v, memo);
        }
    }
    for (i, (name, v)) in extras.iter().enumerate() {
        if stripped(name) || extras[i + 1..].iter().any(|(n, _)| n == name) {
            continue;
        }
        view.visit(tape, name, *v, memo);
    }
    view
}

/// Shared tail of both paths: the v4 event validation, the marker scan, phase
/// boundary extraction, and interning.
fn finish(c: Converted<'_>, sink: &mut RecordSink<'_>) -> Result<(Event, RecordExtras)> {
    let tape = c.tape;
    let d = &c.draft;
    validate_v4_values(d)?;
    let memo = &mut sink.cache.tokens;
    let meta = scan_metadata(&c, memo);
    match meta.capabilities {
        Some(caps) => validate_capabilities(tape, caps, d)?,
        // The capabilities stormlog infers support exactly the counters present, so
        // only the change rule can fail: a change without an allocated counter.
        None if d.allocated.is_none() && d.change.is_some() => {
            return fail("allocator_change_bytes", CHANGE_WITHOUT_ALLOCATED);
        }
        None => {}
    }

    // Marker: event_type, context, every string value of the metadata, and the
    // strings of the capabilities stormlog infers when the metadata has none.
    let marker = meta.token
        || memo.contains(d.event_type.as_bytes())
        || d.context
            .as_deref()
            .is_some_and(|c| memo.contains(c.as_bytes()))
        || (meta.capabilities.is_none()
            && inferred_capabilities_have_token(tape, &d.collector, meta.sampling_source, memo));

    let timestamp_ns = fit(d.timestamp_ns, "timestamp_ns")?;
    let rank = fit(d.identity.rank, "rank")?;
    let local_rank = fit(d.identity.local_rank, "local_rank")?;
    let world_size = fit(d.identity.world_size, "world_size")?;
    let counters = Counters {
        allocator_allocated_bytes: fit_opt(d.allocated, "allocator_allocated_bytes")?,
        allocator_reserved_bytes: fit_opt(d.reserved, "allocator_reserved_bytes")?,
        device_used_bytes: fit_opt(d.used, "device_used_bytes")?,
        device_total_bytes: fit_opt(d.total, "device_total_bytes")?,
    };
    let pid = d.pid;

    let strings = &mut *sink.strings;
    let cache = &mut *sink.cache;
    let session = strings.intern_cached(&d.session_id, &mut cache.session);
    let event_type = strings.intern_cached(&d.event_type, &mut cache.event_type);
    let context = match &d.context {
        Some(text) => strings.intern_cached(text, &mut cache.context),
        None => NO_STR,
    };
    let host = strings.intern_cached(&d.host, &mut cache.host);
    let job_id = match &d.identity.job_id {
        Some(text) => strings.intern_cached(text, &mut cache.job_id),
        None => NO_STR,
    };
    let mut event_flags = 0;
    if py_strip(&d.event_type).eq_ignore_ascii_case("sample") {
        event_flags |= flags::SAMPLE;
    }
    if marker {
        event_flags |= flags::MARKER;
    }
    if d.event_type == "stop" {
        event_flags |= flags::STOP;
    }
    let mut phase = 0;
    let enter = d.event_type == "phase_enter";
    if enter || d.event_type == "phase_exit" {
        if let Some(boundary) = meta
            .phase_scope
            .and_then(|scope| PhaseBoundary::parse(tape, scope, enter))
        {
            sink.phases.push(boundary);
            phase = sink.phases.len() as u32;
        }
    }
    let source = Source {
        rank,
        local_rank,
        world_size,
        event_type,
        flags: event_flags,
    };
    let source = sink.sources.intern_cached(source, &mut sink.cache.source);
    let event = Event::new(
        Identity {
            timestamp_ns,
            session,
            source,
            context,
        },
        counters,
        phase,
    );
    Ok((event, RecordExtras { host, pid, job_id }))
}

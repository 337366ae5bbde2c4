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

mod coerce;
mod keys;
mod legacy;
mod schema;

use coerce::*;
use keys::*;
use legacy::convert_legacy_record;
use schema::convert_schema_record;

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
    // Both paths end alike: the draft validated as a v4 event, then interned.
    let converted = if slots.has(K::SchemaVersion) {
        convert_schema_record(&slots, sink)?
    } else {
        convert_legacy_record(&slots, sink)?
    };
    finish(converted, sink)
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

//! Records with a `schema_version` (v2, v3, v4): stormlog's shape checks, then each
//! field's rule, in stormlog's order.

use super::*;

pub(super) fn convert_schema_record<'t, 'a: 't>(
    slots: &Slots<'t>,
    sink: &RecordSink<'a>,
) -> Result<Converted<'t>> {
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

    check_fields(slots, schema_version)?;

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

    let Memory {
        allocated,
        reserved,
        active,
        inactive,
        change,
        used,
        free,
        total,
    } = memory(slots, schema_version == 4)?;
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
    Ok(Converted {
        draft,
        metadata: Some(metadata),
        metadata_extra: Vec::new(),
        strip_identity_keys: false,
        tape,
    })
}

/// `_resolve_session_id`: the record's id, else the metadata's, else the default.
pub(super) fn resolve_session_id<'x>(
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

/// `validate_telemetry_record`'s shape checks: every required field present, then no
/// field the schema does not know (legacy names, and `session_id` in v2).
fn check_fields(slots: &Slots<'_>, schema_version: i128) -> Result<()> {
    let tape = slots.tape;
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

    Ok(())
}

/// A record's memory counters, as the schema gives them (`None`: null in v4).
struct Memory {
    allocated: Option<i128>,
    reserved: Option<i128>,
    active: Option<i128>,
    inactive: Option<i128>,
    change: Option<i128>,
    used: Option<i128>,
    free: Option<i128>,
    total: Option<i128>,
}

/// The counters' rules in stormlog's order; v4 (`nullable`) lets the core ones be null.
fn memory(slots: &Slots<'_>, nullable: bool) -> Result<Memory> {
    let tape = slots.tape;
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
    Ok(Memory {
        allocated,
        reserved,
        active,
        inactive,
        change,
        used,
        free,
        total,
    })
}

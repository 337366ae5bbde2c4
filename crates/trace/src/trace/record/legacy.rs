//! Records without a `schema_version`: stormlog's legacy conversion, field by field
//! (`_legacy_*` helpers), with `metadata_*` top-level keys read as metadata.

use super::*;

/// Python `int(float(x) * scale)` for a number node (legacy timestamps, memory_mb).
pub(super) fn float_scaled_to_int(
    tape: &Tape,
    node: Node,
    scale: f64,
    field: &str,
) -> Result<i128> {
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

pub(super) fn is_number(node: Option<Node>) -> bool {
    matches!(
        node,
        Some(Node::Int(_) | Node::Float(_) | Node::BigInt { .. })
    )
}

/// A key of legacy metadata: `record["metadata"]` (an object or absent/null)
/// overlaid with the top-level `metadata_<key>` fields.
pub(super) fn legacy_metadata_lookup(
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

pub(super) fn convert_legacy_record<'t, 'a: 't>(
    slots: &Slots<'t>,
    sink: &RecordSink<'a>,
) -> Result<Converted<'t>> {
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
    let LegacyMemory {
        allocated,
        reserved,
        change,
        used,
        active,
        inactive,
        total,
        free,
    } = legacy_memory(slots, &meta)?;
    let event_type = legacy_event_type(slots)?;
    let sampling_interval_ms = match slots.values[K::SamplingIntervalMs as usize] {
        Some(_) => coerce_int(
            tape,
            slots.get(K::SamplingIntervalMs),
            "sampling_interval_ms",
        )?,
        None => sink.default_sampling_interval_ms,
    };
    let (pid, host) = legacy_pid_host(slots, &meta)?;
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
    Ok(Converted {
        draft,
        metadata,
        metadata_extra: extra.iter().map(|(_, v)| *v).collect(),
        strip_identity_keys: true,
        tape,
    })
}

pub(super) fn legacy_device_id(tape: &Tape, slots: &Slots<'_>) -> i128 {
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

pub(super) fn legacy_collector<'x>(
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

/// A legacy record's memory counters, each from the first of its names present.
struct LegacyMemory {
    allocated: i128,
    reserved: i128,
    change: i128,
    active: Option<i128>,
    inactive: Option<i128>,
    used: i128,
    total: Option<i128>,
    free: Option<i128>,
}

/// `_legacy_*` for the counters: the v4 name, else the legacy names, else stormlog's
/// default (allocated 0; reserved and used as allocated; free as total − used).
fn legacy_memory<'t>(
    slots: &Slots<'t>,
    meta: &dyn Fn(&str) -> Option<Node>,
) -> Result<LegacyMemory> {
    let tape = slots.tape;
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
    Ok(LegacyMemory {
        allocated,
        reserved,
        change,
        active,
        inactive,
        used,
        total,
        free,
    })
}

/// `record.get("event_type", record.get("type", "sample"))`.
fn legacy_event_type<'t>(slots: &Slots<'t>) -> Result<Cow<'t, str>> {
    let tape = slots.tape;
    Ok(if slots.has(K::EventType) {
        coerce_required_string(tape, slots.get(K::EventType), "event_type")?
    } else if slots.has(K::Type) {
        coerce_required_string(tape, slots.get(K::Type), "event_type")?
    } else {
        Cow::Borrowed("sample")
    })
}

/// `_legacy_pid` and `_legacy_host`: the record's, else the metadata's, else -1 and
/// `unknown`.
fn legacy_pid_host<'t>(
    slots: &Slots<'t>,
    meta: &dyn Fn(&str) -> Option<Node>,
) -> Result<(i128, Cow<'t, str>)> {
    let tape = slots.tape;
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
    Ok((pid, host))
}

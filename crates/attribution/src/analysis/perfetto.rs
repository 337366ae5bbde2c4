//! The loaded run as Chrome trace-event JSON (the "JSON Object Format" Perfetto and
//! `chrome://tracing` open), so the memory picture can be laid beside kernel traces:
//! per rank a process (`pid` = rank) with three counter tracks — the hidden-memory gap
//! (`device_used − allocator_reserved`), device memory in use and allocator-reserved
//! memory, one point per sample — the attributed intervals as complete slices (`ph: X`,
//! thread 1) with the classification, confidence and evidence in `args`, and the
//! collective markers as instant events (`ph: i`, thread 2).
//!
//! Times are microseconds since the epoch (the trace-event unit), written as exact
//! decimals of the nanosecond timestamps; `args` repeat the exact nanoseconds as strings
//! (JSON readers keep only ~16 digits of a number).

use std::fmt::Write as _;

use crate::trace::event::{Event, Events};
use crate::trace::Dataset;

use super::row::IntervalRow;
use super::{on_reference_clock, Attribution};

/// A trace with no events (nothing attributed).
pub const EMPTY: &str = "{\"traceEvents\":[]}\n";

/// Thread ids within each rank's process.
pub const INTERVAL_TID: u8 = 1;
pub const MARKER_TID: u8 = 2;

/// The counter tracks' names, with their one `args` key each.
pub const GAP_COUNTER: (&str, &str) = ("hidden-memory gap (bytes)", "gap_bytes");
pub const USED_COUNTER: (&str, &str) = ("device used (bytes)", "used_bytes");
pub const RESERVED_COUNTER: (&str, &str) = ("allocator reserved (bytes)", "reserved_bytes");

/// Nanoseconds as exact microseconds (`1733000000000074.358`).
fn micros(ns: i64) -> String {
    let v = i128::from(ns);
    let sign = if v < 0 { "-" } else { "" };
    let a = v.abs();
    format!("{sign}{}.{:03}", a / 1000, a % 1000)
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// A finite number as JSON (`null` otherwise, which JSON has no number for).
fn number(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".to_string()
    }
}

fn counter(out: &mut Vec<String>, (name, key): (&str, &str), rank: i64, ts_ns: i64, value: i64) {
    out.push(format!(
        "{{\"ph\":\"C\",\"name\":{},\"pid\":{rank},\"tid\":0,\"ts\":{},\"args\":{{\"{key}\":{value}}}}}",
        quoted(name),
        micros(ts_ns)
    ));
}

fn interval(out: &mut Vec<String>, r: &IntervalRow) {
    let dur_ns = r.interval_end_ns.saturating_sub(r.interval_start_ns).max(0);
    let mut args = String::new();
    let _ = write!(
        args,
        "\"classification\":{},\"confidence\":{},\"reason_codes\":{},\"marker_hits\":{},\
         \"synchronized_ranks\":{},\"expected_world_size\":{},\"synchrony_ratio\":{},\
         \"peak_gap_bytes\":{},\"peak_gap_ratio\":{},\"robust_zscore\":{},\
         \"interval_start_ns\":\"{}\",\"interval_end_ns\":\"{}\"",
        quoted(r.classification.as_str()),
        number(r.confidence),
        serde_json::to_string(&r.reason_codes).unwrap_or_else(|_| "[]".to_string()),
        r.evidence.marker_hits,
        r.evidence.synchronized_ranks,
        r.evidence.expected_world_size,
        number(r.evidence.synchrony_ratio),
        r.evidence.peak_gap_bytes,
        r.evidence
            .peak_gap_ratio
            .map_or_else(|| "null".to_string(), number),
        number(r.evidence.robust_zscore),
        r.interval_start_ns,
        r.interval_end_ns,
    );
    if let Some(phase) = &r.phase {
        let _ = write!(args, ",\"phase\":{}", quoted(&phase.label()));
    }
    out.push(format!(
        "{{\"ph\":\"X\",\"cat\":\"shardscope.interval\",\"name\":{},\"pid\":{},\"tid\":{INTERVAL_TID},\"ts\":{},\"dur\":{},\"args\":{{{args}}}}}",
        quoted(&format!("{} spike", r.classification.short())),
        r.rank,
        micros(r.interval_start_ns),
        micros(dur_ns),
    ));
}

fn metadata(out: &mut Vec<String>, what: &str, rank: i64, tid: Option<u8>, args: &str) {
    let tid = tid.map_or(String::new(), |t| format!(",\"tid\":{t}"));
    out.push(format!(
        "{{\"ph\":\"M\",\"name\":\"{what}\",\"pid\":{rank}{tid},\"args\":{{{args}}}}}"
    ));
}

/// `attribution`'s session of `dataset` as trace-event JSON (on the reference clock
/// when it was attributed on aligned clocks, so intervals and samples agree).
pub fn to_perfetto(dataset: &Dataset, attribution: &Attribution) -> String {
    let raw = dataset.session_events(attribution.session);
    let mapped: Vec<Event>;
    let events = match &attribution.alignment {
        Some(alignment) => {
            mapped = on_reference_clock(raw, alignment);
            Events::new(&mapped, &dataset.sources)
        }
        None => raw,
    };
    let rows = attribution.rows();
    let mut out: Vec<String> = Vec::with_capacity(events.len() * 3 + rows.len());
    let mut ranks: Vec<i64> = Vec::new();
    for (e, source) in events.iter() {
        let rank = source.rank;
        if !ranks.contains(&rank) {
            ranks.push(rank);
        }
        if source.is_sample() {
            let (used, reserved) = (e.device_used_bytes(), e.allocator_reserved_bytes());
            if let (Some(u), Some(r)) = (used, reserved) {
                counter(
                    &mut out,
                    GAP_COUNTER,
                    rank,
                    e.timestamp_ns,
                    u.saturating_sub(r),
                );
            }
            if let Some(u) = used {
                counter(&mut out, USED_COUNTER, rank, e.timestamp_ns, u);
            }
            if let Some(r) = reserved {
                counter(&mut out, RESERVED_COUNTER, rank, e.timestamp_ns, r);
            }
        }
        if source.is_marker() {
            let kind = dataset.strings.get(source.event_type).unwrap_or("marker");
            let name = dataset
                .strings
                .get(e.context)
                .filter(|c| !c.is_empty())
                .unwrap_or(kind);
            out.push(format!(
                "{{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"shardscope.marker\",\"name\":{},\"pid\":{rank},\"tid\":{MARKER_TID},\"ts\":{},\"args\":{{\"event_type\":{},\"timestamp_ns\":\"{}\"}}}}",
                quoted(name),
                micros(e.timestamp_ns),
                quoted(kind),
                e.timestamp_ns
            ));
        }
    }
    for r in &rows {
        if !ranks.contains(&r.rank) {
            ranks.push(r.rank);
        }
        interval(&mut out, r);
    }
    ranks.sort_unstable();
    for &rank in &ranks {
        metadata(
            &mut out,
            "process_name",
            rank,
            None,
            &format!("\"name\":\"rank {rank}\""),
        );
        metadata(
            &mut out,
            "process_sort_index",
            rank,
            None,
            &format!("\"sort_index\":{rank}"),
        );
        metadata(
            &mut out,
            "thread_name",
            rank,
            Some(INTERVAL_TID),
            "\"name\":\"collective-memory intervals (shardscope)\"",
        );
        metadata(
            &mut out,
            "thread_name",
            rank,
            Some(MARKER_TID),
            "\"name\":\"collective markers\"",
        );
    }
    let session = attribution
        .session
        .and_then(|i| dataset.sessions.get(i))
        .map(|s| s.summary.session_id.as_str())
        .unwrap_or("");
    let mut text = String::with_capacity(out.iter().map(|l| l.len() + 2).sum::<usize>() + 256);
    let _ = writeln!(
        text,
        "{{\"displayTimeUnit\":\"ms\",\"otherData\":{{\"generator\":\"shardscope {}\",\"session_id\":{},\"aligned_clocks\":{}}},\"traceEvents\":[",
        crate::VERSION,
        quoted(session),
        attribution.alignment.is_some()
    );
    for (i, line) in out.iter().enumerate() {
        text.push_str(line);
        text.push_str(if i + 1 < out.len() { ",\n" } else { "\n" });
    }
    text.push_str("]}\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_are_exact_decimals() {
        assert_eq!(micros(1_733_000_000_000_074_358), "1733000000000074.358");
        assert_eq!(micros(5), "0.005");
        assert_eq!(micros(-1500), "-1.500");
        assert_eq!(micros(i64::MIN), "-9223372036854775.808");
        assert_eq!(number(f64::NAN), "null");
    }
}

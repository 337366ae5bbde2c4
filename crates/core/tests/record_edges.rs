//! Record conversion at the edges of stormlog 0.4.3's rules, against the real stormlog.
//!
//! `tests/fixtures/record_edges/`: 1,410 traces, nearly all of one record, (`make_cases.py`) and what
//! stormlog's `load_telemetry_sessions` made of each (`expected_from_stormlog.py`): the
//! exception it raised, or its sessions with their summaries and events. Every case must
//! load here to the same sessions and events, or fail with the same message.

mod common;

use serde_json::{json, Value};
use shardscope_core::trace::load::json_default_session_id;
use shardscope_core::trace::{load, LoadOptions, LoadOutcome, MemFs, TraceFs, NO_STR};

const CASES: &str = include_str!("../../../tests/fixtures/record_edges/cases.json");
const EXPECTED: &str = include_str!("../../../tests/fixtures/record_edges/expected.json");

/// Our message for a value stormlog (Python ints are unbounded) accepts and a 64-bit
/// event cannot hold: the one place we knowingly differ (README, "Beyond stormlog").
const OUT_OF_RANGE: &str = "is outside the supported 64-bit integer range";

/// The cases whose values stormlog keeps as Python ints past `i64` (legacy seconds and
/// megabytes scaled up), which we refuse with [`OUT_OF_RANGE`].
const BEYOND_64_BITS: [&str; 5] = [
    "legacy.timestamp.big",
    "legacy.timestamp.i64",
    "legacy.timestamp.bigint",
    "legacy.memory_mb.bigint",
    "legacy.memory_mb.huge",
];

fn load_case(file: &str, text: &str) -> (LoadOutcome, String) {
    let mut fs = MemFs::new();
    fs.insert(file, text.as_bytes().to_vec());
    let default = json_default_session_id(&fs.resolve(file));
    let outcome = load(
        &fs,
        &[file.to_string()],
        &LoadOptions::default(),
        &mut |_| {},
    );
    (outcome, default)
}

/// What we loaded, in the fixture's shape.
fn rendered(outcome: &LoadOutcome, default: &str) -> Value {
    let dataset = &outcome.dataset;
    let sid = |s: &str| {
        if s == default {
            "<default>".to_string()
        } else {
            s.to_string()
        }
    };
    let sessions: Vec<Value> = dataset
        .sessions
        .iter()
        .enumerate()
        .map(|(i, session)| {
            let s = &session.summary;
            let events: Vec<Value> = dataset
                .session_events(Some(i))
                .iter()
                .map(|(e, source)| {
                    let context = (e.context != NO_STR).then(|| dataset.strings.str(e.context));
                    json!({
                        "timestamp_ns": e.timestamp_ns,
                        "event_type": dataset.strings.str(source.event_type),
                        "allocator_allocated_bytes": e.allocator_allocated_bytes(),
                        "allocator_reserved_bytes": e.allocator_reserved_bytes(),
                        "device_used_bytes": e.device_used_bytes(),
                        "device_total_bytes": e.device_total_bytes(),
                        "context": context,
                        "rank": source.rank,
                        "local_rank": source.local_rank,
                        "world_size": source.world_size,
                        "session_id": sid(dataset.strings.str(e.session)),
                        "marker": source.is_marker(),
                        "sample": source.is_sample(),
                        "stop": source.is_stop(),
                    })
                })
                .collect();
            json!({
                "summary": common::summary_json(
                    s,
                    json!(sid(&s.session_id)),
                    json!(s.started_at_ns as i64),
                ),
                "events": events,
            })
        })
        .collect();
    Value::Array(sessions)
}

/// Does any number in `v` lie outside `i64`?
fn holds_a_number_beyond_i64(v: &Value) -> bool {
    match v {
        Value::Number(n) => !n.is_i64(),
        Value::Array(a) => a.iter().any(holds_a_number_beyond_i64),
        Value::Object(o) => o.values().any(holds_a_number_beyond_i64),
        _ => false,
    }
}

/// stormlog's text for the error, or (KeyError, whose text is the quoted key) the
/// message we give instead.
fn same_error(ours: &str, theirs: &Value) -> bool {
    let message = theirs["message"].as_str().unwrap_or_default();
    if theirs["type"] == "KeyError" {
        let key = message.trim_matches('\'');
        return ours == format!("Missing required telemetry fields: {key}");
    }
    ours == message
}

#[test]
fn every_record_edge_loads_or_fails_as_stormlog_does() {
    let cases: Vec<Value> = serde_json::from_str(CASES).unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<Value> = serde_json::from_str(EXPECTED).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cases.len(), expected.len(), "regenerate expected.json");
    assert!(cases.len() > 1000, "{} cases", cases.len());
    let mut failures = Vec::new();
    let (mut loaded, mut raised) = (0, 0);
    let mut beyond = Vec::new();
    for (case, want) in cases.iter().zip(&expected) {
        let name = case["name"].as_str().unwrap_or_default();
        assert_eq!(
            want["name"], name,
            "cases.json and expected.json out of step"
        );
        let (outcome, default) = load_case(
            case["file"].as_str().unwrap_or("case.json"),
            case["text"].as_str().unwrap_or_default(),
        );
        let ours_error = outcome.errors.first().map(|e| e.message.clone());
        match (&want.get("error"), ours_error) {
            (Some(theirs), Some(ours)) => {
                raised += 1;
                if !same_error(&ours, theirs) {
                    failures.push(format!("{name}: we say {ours:?}, stormlog {theirs}"));
                }
            }
            (Some(theirs), None) => failures.push(format!(
                "{name}: we load it, stormlog raises {theirs}; we load {}",
                rendered(&outcome, &default)
            )),
            (None, Some(ours)) => {
                if ours.ends_with(OUT_OF_RANGE) && holds_a_number_beyond_i64(&want["sessions"]) {
                    beyond.push(name);
                } else {
                    failures.push(format!("{name}: we say {ours:?}, stormlog loads it"));
                }
            }
            (None, None) => {
                loaded += 1;
                let ours = rendered(&outcome, &default);
                if ours != want["sessions"] {
                    failures.push(format!(
                        "{name}:\n  ours     {ours}\n  stormlog {}",
                        want["sessions"]
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        loaded > 300 && raised > 900,
        "{loaded} loaded, {raised} raised"
    );
    assert_eq!(
        beyond, BEYOND_64_BITS,
        "the cases stormlog loads beyond 64 bits"
    );
}

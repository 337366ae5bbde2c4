//! `analysis::perfetto`: the bundled 16-rank example as trace-event JSON, checked
//! against the trace-event format's required fields (ph, name, pid, tid, ts; dur for
//! complete events; s for instant ones; args for counters and metadata) and against the
//! run itself: every interval a slice with its evidence, every marker an instant, every
//! sample a counter point.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;
use shardscope_core::analysis::perfetto::{to_perfetto, GAP_COUNTER, INTERVAL_TID, MARKER_TID};
use shardscope_core::analysis::{analyze, AnalyzeSettings};
use shardscope_core::trace::StdFs;

fn example() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../public/examples/example-16-ranks.json.gz")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn the_example_run_is_valid_trace_event_json_with_every_interval_marker_and_sample() {
    let settings = AnalyzeSettings {
        phases: true,
        ..AnalyzeSettings::default()
    };
    let analysis = analyze(&StdFs, &[example()], &settings, false, &mut |_| {});
    let attribution = analysis.attribution.as_ref().unwrap();
    let rows = attribution.rows();
    assert!(rows.len() > 100, "{} intervals", rows.len());
    let text = to_perfetto(&analysis.dataset, attribution);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["displayTimeUnit"], "ms");
    assert_eq!(v["otherData"]["session_id"], "example-run-16");
    let events = v["traceEvents"].as_array().unwrap();
    let (mut slices, mut instants, mut gap_points) = (Vec::new(), 0usize, 0usize);
    let mut named_processes = BTreeSet::new();
    for e in events {
        let ph = e["ph"].as_str().unwrap();
        assert!(e["name"].is_string(), "{e}");
        assert!(e["pid"].is_i64(), "{e}");
        match ph {
            "X" => {
                assert_eq!(e["tid"], i64::from(INTERVAL_TID));
                assert!(e["ts"].is_f64() && e["dur"].as_f64().unwrap() >= 0.0, "{e}");
                let args = &e["args"];
                for key in [
                    "classification",
                    "confidence",
                    "reason_codes",
                    "marker_hits",
                    "synchrony_ratio",
                    "peak_gap_bytes",
                ] {
                    assert!(!args[key].is_null(), "{key} in {e}");
                }
                slices.push(e);
            }
            "i" => {
                assert_eq!(e["tid"], i64::from(MARKER_TID));
                assert_eq!(e["s"], "t");
                assert!(e["ts"].is_f64());
                instants += 1;
            }
            "C" => {
                assert!(e["ts"].is_f64() && e["args"].is_object(), "{e}");
                let (name, key) = GAP_COUNTER;
                if e["name"] == name {
                    assert!(e["args"][key].is_i64());
                    gap_points += 1;
                }
            }
            "M" => {
                assert!(e["args"].is_object());
                if e["name"] == "process_name" {
                    named_processes.insert(e["pid"].as_i64().unwrap());
                }
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    // Every interval, with its exact times, class and confidence.
    assert_eq!(slices.len(), rows.len());
    let exported: BTreeSet<(i64, String, String)> = slices
        .iter()
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["args"]["interval_start_ns"].as_str().unwrap().to_string(),
                e["args"]["classification"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for r in &rows {
        assert!(exported.contains(&(
            r.rank,
            r.interval_start_ns.to_string(),
            r.classification.as_str().to_string()
        )));
    }
    assert!(
        slices.iter().any(|e| e["args"]["phase"].is_string()),
        "phases travel too"
    );
    let first = slices[0];
    let r = &rows[0];
    assert_eq!(first["args"]["confidence"].as_f64().unwrap(), r.confidence);
    let ts_text = format!(
        "{}.{:03}",
        r.interval_start_ns / 1000,
        r.interval_start_ns % 1000
    );
    assert!(
        text.contains(&format!("\"ts\":{ts_text},")),
        "exact microseconds"
    );
    // Every marker and every sample of the session (16 ranks; 205 markers, 7,680 samples
    // in the example).
    let events_in = analysis.dataset.selected_events();
    let markers = events_in.iter().filter(|(_, s)| s.is_marker()).count();
    let samples = events_in
        .iter()
        .filter(|(e, s)| {
            s.is_sample()
                && e.device_used_bytes().is_some()
                && e.allocator_reserved_bytes().is_some()
        })
        .count();
    assert_eq!((instants, gap_points), (markers, samples));
    assert_eq!(named_processes, (0..16).collect());
}

//! Parity with stormlog 0.4.3's TUI loader on its own artifacts: CSV exports and
//! `telemetry_timeline.json` files, alone and beside JSON traces
//! (tests/fixtures/tui_artifacts; the expected files are the real stormlog's output,
//! made by expected_from_stormlog.py). For every case and preset: the result list
//! exactly, the TUI's warnings (message, file, line) in its order, which session was
//! selected with how many events, and every session's summary and sources.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use shardscope_core::analysis::{analyze, Analysis, AnalyzeSettings};
use shardscope_core::attribution::Preset;
use shardscope_core::trace::session::stable_legacy_session_id;
use shardscope_core::trace::StdFs;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tui_artifacts")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Expands the expected files' placeholders: `{traces}` is the resolved traces
/// folder, `{sid:TEXT}` is `stable_legacy_session_id(TEXT)` (see the README).
fn expand(text: &str, traces: &str) -> String {
    let mut rest = text.replace("{traces}", traces);
    let mut out = String::new();
    while let Some(start) = rest.find("{sid:") {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&stable_legacy_session_id(&[&rest[start + 5..start + len]]));
        rest = rest[start + len + 1..].to_string();
    }
    out.push_str(&rest);
    out
}

fn expand_value(v: &Value, traces: &str) -> Value {
    match v {
        Value::String(s) => Value::String(expand(s, traces)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| expand_value(i, traces)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), expand_value(v, traces)))
                .collect(),
        ),
        other => other.clone(),
    }
}

struct Case {
    name: String,
    paths: Vec<String>,
}

fn cases() -> Vec<Case> {
    let root = fixtures();
    let cases = read_json(&root.join("cases.json"));
    cases
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap_or_default().to_string(),
            paths: c["paths"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|p| {
                    root.join("traces")
                        .join(p.as_str().unwrap_or_default())
                        .to_string_lossy()
                        .into_owned()
                })
                .collect(),
        })
        .collect()
}

fn traces_dir() -> String {
    let dir = fixtures().join("traces");
    std::fs::canonicalize(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .to_string_lossy()
        .into_owned()
}

fn run(case: &Case, preset: Preset) -> Analysis {
    let settings = AnalyzeSettings {
        preset,
        ..AnalyzeSettings::default()
    };
    analyze(&StdFs, &case.paths, &settings, true, &mut |_| {})
}

fn results_json(analysis: &Analysis) -> Result<Value, String> {
    if let Some(e) = analysis.first_error() {
        return Err(e.to_string());
    }
    let results = match &analysis.attribution {
        Ok(a) => &a.results,
        Err(e) => return Err(e.to_string()),
    };
    serde_json::to_value(results).map_err(|e| e.to_string())
}

fn warnings_json(analysis: &Analysis) -> Value {
    Value::Array(
        analysis
            .dataset
            .warnings
            .iter()
            .map(|w| json!({"message": w.message, "file": w.file, "line": w.line}))
            .collect(),
    )
}

/// A summary's `started_at_ns` that stormlog took from the clock is `"{now}"` in the
/// expected files; ours must be within a day of this test's clock.
const CLOCK_SLACK_NS: i128 = 86_400_000_000_000;

fn load_json(analysis: &Analysis, now_ns: i128) -> Value {
    let sessions = &analysis.dataset.sessions;
    let selected = analysis.dataset.selected.and_then(|i| sessions.get(i));
    let session_json = |s: &shardscope_core::trace::Session| {
        let sum = &s.summary;
        let started = if (sum.started_at_ns - now_ns).abs() <= CLOCK_SLACK_NS {
            json!("{now}")
        } else {
            json!(sum.started_at_ns as i64)
        };
        let mut sources = s.sources.clone();
        sources.sort();
        json!({
            "summary": common::summary_json(sum, json!(sum.session_id), started),
            "sources": sources,
        })
    };
    json!({
        "session_ids": sessions.iter().map(|s| s.summary.session_id.clone()).collect::<Vec<_>>(),
        "selected_session_id": selected.map(|s| s.summary.session_id.clone()),
        "selected_events": analysis.dataset.selected_events().len(),
        "sessions": sessions.iter().map(session_json).collect::<Vec<_>>(),
    })
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

#[test]
fn every_tui_artifact_case_matches_stormlog_exactly() {
    let root = fixtures();
    let traces = traces_dir();
    let cases = cases();
    assert_eq!(cases.len(), 18, "cases.json lists the eighteen cases");
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in &cases {
        let expected_dir = root.join("expected");
        for preset in Preset::ALL {
            let analysis = run(case, preset);
            let preset = preset.as_str();
            let expected = read_json(&expected_dir.join(format!("{}.{preset}.json", case.name)));
            match results_json(&analysis) {
                Ok(v) if v == expected => {}
                other => failures.push(format!("{}.{preset}: results {other:?}", case.name)),
            }
            let warnings = expand_value(
                &read_json(&expected_dir.join(format!("{}.warnings.json", case.name))),
                &traces,
            );
            let got = warnings_json(&analysis);
            if got != warnings {
                failures.push(format!(
                    "{}.{preset}: warnings\n  got      {got}\n  expected {warnings}",
                    case.name
                ));
            }
            let load = expand_value(
                &read_json(&expected_dir.join(format!("{}.load.json", case.name))),
                &traces,
            );
            let got = load_json(&analysis, now_ns());
            if got != load {
                failures.push(format!(
                    "{}.{preset}: sessions\n  got      {got}\n  expected {load}",
                    case.name
                ));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(checked, 54, "every case and preset is checked");
}

#[test]
fn the_fixtures_cover_what_they_promise() {
    let root = fixtures().join("expected");
    let count = |name: &str, preset: &str, class: &str| {
        read_json(&root.join(format!("{name}.{preset}.json")))
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter(|r| r["classification"] == class)
            .count()
    };
    // (d): confident and likely intervals over several ranks.
    assert!(count("csv_many_ranks", "medium", "collective_confident") > 0);
    assert!(count("csv_many_ranks", "medium", "collective_likely") > 0);
    // (e): row-level warnings, each with its file and TUI row number.
    let warnings = read_json(&root.join("csv_malformed_rows.warnings.json"));
    let warnings = warnings.as_array().cloned().unwrap_or_default();
    assert!(warnings.len() >= 10);
    assert!(warnings
        .iter()
        .all(|w| w["file"] == "csv_malformed_rows.csv"
            && w["line"].as_u64().is_some()
            && w["message"].as_str().is_some_and(
                |m| m.starts_with("CSV parse error {traces}/csv_malformed_rows.csv:")
            )));
    // (f): synthesized timelines that attribute something.
    assert!(count("timeline_ranks", "high", "collective_suspect") > 0);
}

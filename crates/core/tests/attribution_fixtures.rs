//! Parity with stormlog 0.4.3 on every fixture case (tests/fixtures/attribution,
//! copied from the shared fixtures: traces plus the real stormlog's output).
//! Values are compared exactly: 64-bit integers, strings, lists in order, floats bit for bit.

use std::path::{Path, PathBuf};

use serde_json::Value;
use shardscope_core::analysis::{analyze, AnalyzeSettings};
use shardscope_core::attribution::{attribute, AttributionConfig, OverrideValue};
use shardscope_core::trace::{load, LoadOptions, StdFs};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/attribution")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn to_override(v: &Value) -> OverrideValue {
    match v {
        Value::Number(n) if n.is_i64() => OverrideValue::Int(n.as_i64().unwrap_or_default()),
        Value::Number(n) => OverrideValue::Float(n.as_f64().unwrap_or_default()),
        Value::String(s) => OverrideValue::Text(s.clone()),
        Value::Bool(b) => OverrideValue::Bool(*b),
        _ => OverrideValue::Null,
    }
}

/// What the core answers for one run: the result list, or an error message.
fn run(
    path: &Path,
    preset: &str,
    overrides: &[(String, OverrideValue)],
    session_id: Option<&str>,
    phases: bool,
) -> Result<Value, String> {
    let settings = AnalyzeSettings {
        preset: preset.to_string(),
        overrides: overrides.to_vec(),
        session_id: session_id.map(str::to_string),
        phases,
    };
    let paths = [path.to_string_lossy().into_owned()];
    let analysis = analyze(&StdFs, &paths, &settings, true, &mut |_| {});
    if let Some(e) = analysis.first_error() {
        return Err(e.to_string());
    }
    let results = analysis.attribution.map_err(|e| e.to_string())?.results;
    serde_json::to_value(&results).map_err(|e| e.to_string())
}

#[test]
fn every_fixture_case_matches_stormlog_exactly() {
    let root = fixtures();
    let cases = read_json(&root.join("cases.json"));
    let cases = cases.as_array().cloned().unwrap_or_default();
    assert!(cases.len() >= 30, "cases.json has {} cases", cases.len());
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or_default();
        let path = root
            .join("traces")
            .join(case["file"].as_str().unwrap_or_default());
        if case["kind"] == "invalid" {
            let expected = read_json(&root.join("expected").join(format!("{name}.error.json")));
            match run(&path, "medium", &[], None, false) {
                Ok(v) => failures.push(format!("{name}: expected an error, got {v}")),
                Err(message) => {
                    let text = expected["error"].as_str().unwrap_or_default();
                    if expected["error_type"] == "ValueError" && !message.contains(text) {
                        failures.push(format!(
                            "{name}: error `{message}` lacks stormlog's `{text}`"
                        ));
                    }
                }
            }
            checked += 1;
            continue;
        }
        for preset in ["low", "medium", "high"] {
            let expected = read_json(&root.join("expected").join(format!("{name}.{preset}.json")));
            match run(&path, preset, &[], None, false) {
                Ok(v) if v == expected => {}
                other => failures.push(format!("{name}.{preset}: {other:?}")),
            }
            checked += 1;
        }
        for extra in case["extra_runs"].as_array().cloned().unwrap_or_default() {
            let preset = extra["preset"].as_str().unwrap_or("medium");
            let label = extra["label"].as_str().unwrap_or_default();
            let overrides: Vec<(String, OverrideValue)> = extra["overrides"]
                .as_object()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), to_override(v))).collect())
                .unwrap_or_default();
            let session = extra["session_id"].as_str();
            let phases = extra["with_phases"].as_bool().unwrap_or(false);
            let file = format!("{name}.{}.{label}.json", preset.trim().to_lowercase());
            let expected = read_json(&root.join("expected").join(file));
            let got = run(&path, preset, &overrides, session, phases);
            let ok = match (&got, expected.get("error")) {
                (Err(message), Some(text)) => {
                    expected["error_type"] != "ValueError"
                        || message.contains(text.as_str().unwrap_or_default())
                }
                (Ok(v), None) => *v == expected,
                _ => false,
            };
            if !ok {
                failures.push(format!("{name}.{label}: {got:?}"));
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
    assert_eq!(checked, 88, "every case, preset and extra run is checked");
}

#[test]
fn a_folder_of_per_rank_exports_equals_passing_its_files() {
    let dir = fixtures().join("traces/tui_per_rank_files");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    assert_eq!(files.len(), 4);
    let config = AttributionConfig::resolve("medium", &[]).unwrap_or_else(|e| panic!("{e}"));
    let by_folder = load(
        &StdFs,
        &[dir.to_string_lossy().into_owned()],
        &LoadOptions::default(),
        &mut |_| {},
    );
    let by_files = load(&StdFs, &files, &LoadOptions::default(), &mut |_| {});
    assert!(by_folder.errors.is_empty() && by_files.errors.is_empty());
    let a = attribute(by_folder.dataset.selected_events(), &config, None);
    let b = attribute(by_files.dataset.selected_events(), &config, None);
    assert_eq!(a.len(), 8, "4 ranks x 2 confident intervals");
    assert_eq!(a, b);
    let selected = by_files
        .dataset
        .selected
        .and_then(|i| by_files.dataset.sessions.get(i));
    assert!(
        selected.is_some_and(|s| s.synthetic),
        "the merged distributed session is selected"
    );
}

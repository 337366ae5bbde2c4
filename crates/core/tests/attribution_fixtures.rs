//! Parity with stormlog 0.4.3 on every fixture case (tests/fixtures/attribution,
//! copied from the shared fixtures: traces plus the real stormlog's output).
//! Values are compared exactly: 64-bit integers, strings, lists in order, floats bit for bit.

mod common;

use std::path::{Path, PathBuf};

use common::{read_json, run, text, to_override};
use serde_json::Value;
use shardscope_core::analysis::{analyze, AnalyzeSettings};
use shardscope_core::attribution::{attribute, AttributionConfig, OverrideValue, Preset};
use shardscope_core::trace::{load, LoadError, LoadErrorKind, LoadOptions, StdFs};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/attribution")
}

/// stormlog's message is ours exactly, or ours adds detail in parentheses after it;
/// for Python's own `TypeError`s (not stormlog's wording) ours says what was wrong and
/// quotes Python's message in parentheses at the end.
fn same_message(ours: &str, stormlog: &str, class: &str) -> bool {
    match class {
        "TypeError" => ours.ends_with(&format!(" ({stormlog})")),
        _ => ours == stormlog || ours.starts_with(&format!("{stormlog} (")),
    }
}

/// Where each error case must be reported: kind, line, column, record, field.
type Located = (
    LoadErrorKind,
    Option<u64>,
    Option<u32>,
    Option<u64>,
    Option<&'static str>,
);

fn expected_location(name: &str) -> Located {
    use LoadErrorKind::{Record, Shape, Syntax};
    match name {
        "inv_bool_rank" => (Record, Some(1), None, Some(0), Some("rank")),
        "inv_empty_file" => (Syntax, Some(1), Some(1), None, None),
        "inv_jsonl_bad_middle_line" => (Syntax, Some(4), Some(41), None, None),
        "inv_malformed_json" => (Syntax, Some(4), Some(3), None, None),
        "inv_missing_timestamp_v4" => (Record, Some(1), None, Some(4), Some("timestamp_ns")),
        "inv_negative_rank" => (Record, Some(1), None, Some(5), Some("rank")),
        "inv_no_events_object" => (Shape, None, None, None, None),
        "inv_schema_version_5" => (Record, Some(1), None, Some(3), Some("schema_version")),
        "inv_unknown_field" => (Record, Some(1), None, Some(7), Some("gpu_temp_c")),
        "inv_used_gt_total" => (Record, Some(1), None, Some(0), Some("device_used_bytes")),
        other => panic!("error case {other} has no expected location here: add it"),
    }
}

/// The first load error for `path` (the error cases load one file each).
fn load_error(path: &Path) -> Option<LoadError> {
    let paths = [path.to_string_lossy().into_owned()];
    analyze(
        &StdFs,
        &paths,
        &AnalyzeSettings::default(),
        true,
        &mut |_| {},
    )
    .load_errors
    .into_iter()
    .next()
}

#[test]
fn every_fixture_case_matches_stormlog_exactly() {
    let root = fixtures();
    let cases = read_json(&root.join("cases.json"));
    let cases = cases
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("cases.json is not a list"));
    assert!(cases.len() >= 30, "cases.json has {} cases", cases.len());
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let name = text(case, "name");
        let path = root.join("traces").join(text(case, "file"));
        match text(case, "kind") {
            "valid" => {}
            "invalid" => {
                let expected = read_json(&root.join("expected").join(format!("{name}.error.json")));
                let stormlog = text(&expected, "error");
                // Python's exception class decides our kind; the location is checked too.
                let (kind, line, column, record, field) = expected_location(name);
                let class_kind = match text(&expected, "error_type") {
                    "JSONDecodeError" => LoadErrorKind::Syntax,
                    "ValueError" => kind,
                    other => panic!("{name}: unexpected stormlog error type {other}"),
                };
                assert_eq!(
                    kind, class_kind,
                    "{name}: the table disagrees with stormlog's class"
                );
                match load_error(&path) {
                    None => failures.push(format!("{name}: expected an error, got none")),
                    Some(e) => {
                        let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
                        let got = (e.kind, e.line, e.column, e.record, e.field.as_deref());
                        if !same_message(&e.message, stormlog, "ValueError") {
                            failures.push(format!(
                                "{name}: `{}` is not stormlog's `{stormlog}`",
                                e.message
                            ));
                        }
                        if got != (kind, line, column, record, field) || e.file != file {
                            failures.push(format!("{name}: reported at {got:?} in {:?}", e.file));
                        }
                    }
                }
                checked += 1;
                continue;
            }
            other => panic!("{name}: unknown kind {other}"),
        }
        for preset in ["low", "medium", "high"] {
            let expected = read_json(&root.join("expected").join(format!("{name}.{preset}.json")));
            match run(&path, preset, &[], None, false) {
                Ok(v) if v == expected => {}
                other => failures.push(format!("{name}.{preset}: {other:?}")),
            }
            checked += 1;
        }
        let extra_runs = match &case["extra_runs"] {
            Value::Null => Vec::new(),
            Value::Array(runs) => runs.clone(),
            other => panic!("{name}: extra_runs is {other}"),
        };
        for extra in extra_runs {
            // The fixture format: a missing preset means stormlog's default, medium.
            let preset = match &extra["preset"] {
                Value::Null => "medium",
                _ => text(&extra, "preset"),
            };
            let label = text(&extra, "label");
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
                // Settings errors: stormlog's message, in full.
                (Err(message), Some(_)) => same_message(
                    message,
                    text(&expected, "error"),
                    text(&expected, "error_type"),
                ),
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
    let config = AttributionConfig::resolve(Preset::Medium, &[]).unwrap_or_else(|e| panic!("{e}"));
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

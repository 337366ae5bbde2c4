//! Parity with stormlog 0.4.3 on the rules the other fixtures leave untested (found by
//! mutation testing): the z-score's zero-MAD fallback, equal gaps, the minimum sample
//! count, thresholds met with equality, lone spikes, ratio-only spikes, the synchrony
//! window's edge, intervals that touch, phases replayed around spikes. The traces and stormlog's outputs
//! are in tests/fixtures/attribution_edges (made by its scripts from the real stormlog).

mod common;

use std::path::PathBuf;

use common::{read_json, run, text, to_override};
use serde_json::Value;
use shardscope_core::attribution::OverrideValue;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/attribution_edges")
}

#[test]
fn every_edge_case_matches_stormlog_exactly() {
    let root = fixtures();
    let cases = read_json(&root.join("cases.json"));
    let cases = cases.as_array().cloned().unwrap_or_default();
    let mut checked = 0;
    let mut results = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let name = text(case, "name");
        let path = root.join("traces").join(text(case, "file"));
        let phases = case["with_phases"].as_bool().unwrap_or(false);
        let mut check = |file: String, got: Result<Value, String>| {
            let expected = read_json(&root.join("expected").join(&file));
            results += expected.as_array().map_or(0, Vec::len);
            if got.as_ref() != Ok(&expected) {
                failures.push(format!("{file}: {got:?}"));
            }
            checked += 1;
        };
        for preset in ["low", "medium", "high"] {
            check(
                format!("{name}.{preset}.json"),
                run(&path, preset, &[], None, phases),
            );
        }
        for extra in case["extra_runs"].as_array().cloned().unwrap_or_default() {
            let overrides: Vec<(String, OverrideValue)> = extra["overrides"]
                .as_object()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), to_override(v))).collect())
                .unwrap_or_default();
            check(
                format!("{name}.medium.{}.json", text(&extra, "label")),
                run(&path, "medium", &overrides, None, phases),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(checked, 54, "every case, preset and extra run is checked");
    assert_eq!(results, 240, "stormlog's results, in all");
}

/// A number as Python compares it (`True` is 1, and the config keeps the bool).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        v => v.as_f64(),
    }
}

/// Presets and overrides at the edge of every rule of stormlog's
/// `_validate_collective_config`, values of other types, several bad fields at once and
/// unknown names, each resolved by the real stormlog (expected/config_cases.json, made by
/// config_from_stormlog.py): the same config, or the same error. A value of the wrong type
/// is a Python TypeError there; the core names the field and quotes Python's message.
#[test]
fn presets_and_overrides_resolve_as_stormlog_resolves_them() {
    use shardscope_core::attribution::{AttributionConfig, Preset};
    let cases = read_json(&fixtures().join("expected/config_cases.json"));
    let cases = cases.as_array().cloned().unwrap_or_default();
    assert_eq!(cases.len(), 80, "config_cases.json has every case");
    let mut failures = Vec::new();
    for case in &cases {
        let overrides: Vec<(String, OverrideValue)> = case["overrides"]
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), to_override(v))).collect())
            .unwrap_or_default();
        let got = Preset::parse(text(case, "preset"))
            .and_then(|p| AttributionConfig::resolve(p, &overrides));
        let ok = match (&got, case.get("config"), case.get("error")) {
            (Ok(config), Some(want), None) => {
                let config = serde_json::to_value(config).unwrap_or_default();
                let fields = want.as_object().cloned().unwrap_or_default();
                fields.len() == 10
                    && fields
                        .iter()
                        .all(|(k, w)| match (number(w), number(&config[k])) {
                            (Some(w), Some(g)) => w == g,
                            _ => *w == config[k],
                        })
            }
            (Err(e), None, Some(want)) => {
                let message = text(want, "message");
                match text(want, "type") {
                    "ValueError" => e.message == message,
                    _ => e.message.ends_with(&format!("({message})")),
                }
            }
            _ => false,
        };
        if !ok {
            failures.push(format!("{case}\n  got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Beyond stormlog: the same run recorded with skewed clocks (0, +180, -250, +40 ms),
/// attributed with `align_clocks`, gives exactly what the real stormlog gives for the run
/// recorded with perfect clocks, for every preset (stormlog on the skewed run itself
/// finds the spikes unsynchronised: likely and suspect instead of confident).
#[test]
fn aligned_clocks_attribute_as_stormlog_does_on_perfect_clocks() {
    use shardscope_core::analysis::AnalyzeSettings;
    use shardscope_core::attribution::Preset;
    let root = fixtures();
    let skewed = root.join("traces/clocks_skewed.json");
    for preset in Preset::ALL {
        let settings = AnalyzeSettings {
            preset,
            align_clocks: true,
            ..AnalyzeSettings::default()
        };
        let got = common::run_settings(&skewed, &Ok(preset), &settings);
        let name = format!("clocks_perfect.{}.json", preset.as_str());
        let want = read_json(&root.join("expected").join(&name));
        assert_eq!(got.as_ref(), Ok(&want), "{name}");
        let raw = read_json(&root.join(format!("expected/clocks_skewed.{}.json", preset.as_str())));
        assert_ne!(want, raw, "{name}: the skew changes stormlog's answer");
    }
}

//! What the stormlog parity tests share: reading the fixtures and one analysis run as
//! `shardscope attribute` makes it, its results as JSON.

#![allow(dead_code)] // each test binary uses its own part

use std::path::Path;

use serde_json::Value;
use shardscope_core::analysis::{analyze, AnalyzeSettings};
use shardscope_core::attribution::{OverrideValue, Preset};
use shardscope_core::trace::StdFs;

/// `default` cases, or `PROPTEST_CASES` when set (`make mutants` runs the property tests
/// once per mutant and lowers it; `ProptestConfig::with_cases` alone ignores the variable).
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A string field of a case (a broken cases.json fails here, not silently later).
pub fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("cases.json: `{key}` missing or not a string in {v}"))
}

pub fn to_override(v: &Value) -> OverrideValue {
    match v {
        Value::Number(n) if n.is_i64() => OverrideValue::Int(n.as_i64().unwrap_or_default()),
        Value::Number(n) => OverrideValue::Float(n.as_f64().unwrap_or_default()),
        Value::String(s) => OverrideValue::Text(s.clone()),
        Value::Bool(b) => OverrideValue::Bool(*b),
        _ => OverrideValue::Null,
    }
}

/// What the core answers for one run: the result list, or an error message.
pub fn run(
    path: &Path,
    preset: &str,
    overrides: &[(String, OverrideValue)],
    session_id: Option<&str>,
    phases: bool,
) -> Result<Value, String> {
    let preset = Preset::parse(preset);
    let settings = AnalyzeSettings {
        preset: preset.clone().unwrap_or_default(),
        overrides: overrides.to_vec(),
        session_id: session_id.map(str::to_string),
        phases,
        align_clocks: false,
    };
    run_settings(path, &preset, &settings)
}

/// [`run`] with the settings given whole (`align_clocks` and the rest); `preset` is how
/// the preset's name read, for the order of errors.
pub fn run_settings(
    path: &Path,
    preset: &Result<Preset, shardscope_core::attribution::SettingsError>,
    settings: &AnalyzeSettings,
) -> Result<Value, String> {
    let paths = [path.to_string_lossy().into_owned()];
    let analysis = analyze(&StdFs, &paths, settings, true, &mut |_| {});
    if let Some(e) = analysis.first_error_with_preset(preset) {
        return Err(e.to_string());
    }
    let results = analysis.attribution.map_err(|e| e.to_string())?.results;
    serde_json::to_value(&results).map_err(|e| e.to_string())
}

/// A session summary in the shape of stormlog's `dataclasses.asdict(SessionSummary)`,
/// with the session id and start time as the fixture writes them.
pub fn summary_json(
    s: &shardscope_core::trace::SessionSummary,
    session_id: Value,
    started_at_ns: Value,
) -> Value {
    serde_json::json!({
        "session_id": session_id,
        "status": s.status.as_str(),
        "started_at_ns": started_at_ns,
        "ended_at_ns": s.ended_at_ns.map(|v| v as i64),
        "host": s.host,
        "pid": s.pid as i64,
        "job_id": s.job_id,
        "rank": s.rank as i64,
        "local_rank": s.local_rank as i64,
        "world_size": s.world_size as i64,
        "source": s.source,
    })
}

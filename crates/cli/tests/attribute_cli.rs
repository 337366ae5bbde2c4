//! `shardscope attribute` per docs/contracts.md section 1, driven as a process over
//! every fixture case (tests/fixtures/attribution: stormlog 0.4.3's own outputs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/attribution")
}

fn shardscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shardscope"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run shardscope: {e}"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn json_output_matches_stormlog_for_every_case() {
    let root = fixtures();
    let cases = read_json(&root.join("cases.json"));
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases.as_array().cloned().unwrap_or_default() {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let path = root
            .join("traces")
            .join(case["file"].as_str().unwrap_or_default());
        let path = path.to_string_lossy().into_owned();
        if case["kind"] == "invalid" {
            let expected = read_json(&root.join("expected").join(format!("{name}.error.json")));
            let out = shardscope(&["attribute", &path]);
            let got = stdout_json(&out);
            let message = got["error"].as_str().unwrap_or_default();
            let ok = out.status.code() == Some(2)
                && got["file"].is_string()
                && (expected["error_type"] != "ValueError"
                    || message.contains(expected["error"].as_str().unwrap_or("?")));
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !ok || stderr.trim().lines().count() != 1 {
                failures.push(format!(
                    "{name}: exit {:?}, stdout {got}, stderr {stderr}",
                    out.status.code()
                ));
            }
            checked += 1;
            continue;
        }
        for preset in ["low", "medium", "high"] {
            let out = shardscope(&["attribute", &path, "--preset", preset]);
            let expected = read_json(&root.join("expected").join(format!("{name}.{preset}.json")));
            if out.status.code() != Some(0) || stdout_json(&out) != expected {
                failures.push(format!("{name}.{preset}"));
            }
            checked += 1;
        }
        for extra in case["extra_runs"].as_array().cloned().unwrap_or_default() {
            let preset = extra["preset"].as_str().unwrap_or("medium").to_string();
            let label = extra["label"].as_str().unwrap_or_default();
            let mut args: Vec<String> = vec![
                "attribute".into(),
                path.clone(),
                "--preset".into(),
                preset.clone(),
            ];
            for (k, v) in extra["overrides"].as_object().cloned().unwrap_or_default() {
                args.push("--override".into());
                args.push(format!("{k}={v}"));
            }
            if let Some(s) = extra["session_id"].as_str() {
                args.push("--session-id".into());
                args.push(s.into());
            }
            if extra["with_phases"].as_bool() == Some(true) {
                args.push("--phases".into());
            }
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = shardscope(&argv);
            let expected = read_json(&root.join("expected").join(format!(
                "{name}.{}.{label}.json",
                preset.trim().to_lowercase()
            )));
            let got = stdout_json(&out);
            let ok = match expected.get("error") {
                Some(text) => {
                    out.status.code() == Some(2)
                        && (expected["error_type"] != "ValueError"
                            || got["error"]
                                .as_str()
                                .unwrap_or_default()
                                .contains(text.as_str().unwrap_or("?")))
                }
                None => out.status.code() == Some(0) && got == expected,
            };
            if !ok {
                failures.push(format!("{name}.{label}: {got}"));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(checked, 88);
}

#[test]
fn timestamps_above_2_pow_53_are_printed_exactly() {
    let path = fixtures().join("traces/sync_markers_type.json");
    let out = shardscope(&["attribute", &path.to_string_lossy(), "--preset", "high"]);
    let text = String::from_utf8_lossy(&out.stdout);
    // 1700000001880000000 is not representable as a double; it must appear verbatim.
    assert!(text.contains("\"interval_start_ns\": 1700000001"), "{text}");
    assert!(!text.contains("e+18") && !text.contains("E18"));
}

#[test]
fn table_and_csv_formats_carry_the_same_intervals() {
    let path = fixtures().join("traces/sync_markers_type.json");
    let path = path.to_string_lossy();
    let json = stdout_json(&shardscope(&["attribute", &path, "--format", "json"]));
    let rows = json.as_array().map(Vec::len).unwrap_or(0);
    assert!(rows > 0);

    let csv = shardscope(&["attribute", &path, "--format", "csv"]);
    assert_eq!(csv.status.code(), Some(0));
    let csv = String::from_utf8_lossy(&csv.stdout);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("rank,interval_start_ns,interval_end_ns,classification,confidence,marker_hits,synchronized_ranks,expected_world_size,synchrony_ratio,peak_gap_bytes,peak_gap_ratio,robust_zscore,reason_codes,phase_path")
    );
    let body: Vec<&str> = lines.collect();
    assert_eq!(body.len(), rows);
    let first: Vec<&str> = body[0].split(',').collect();
    assert_eq!(first[0], json[0]["rank"].to_string());
    assert_eq!(first[1], json[0]["interval_start_ns"].to_string());
    assert_eq!(
        first[3],
        json[0]["classification"].as_str().unwrap_or_default()
    );

    let table = shardscope(&["attribute", &path, "--format", "table"]);
    assert_eq!(table.status.code(), Some(0));
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.starts_with("rank"), "{table}");
    assert!(table.contains(&format!("{rows} interval(s)")));
    assert!(table.contains(&json[0]["interval_start_ns"].to_string()));
}

#[test]
fn bad_settings_and_bad_paths_exit_2_with_the_error_object() {
    let path = fixtures().join("traces/sync_no_markers.json");
    let path = path.to_string_lossy();
    let out = shardscope(&["attribute", &path, "--override", "min_confidence=2"]);
    assert_eq!(out.status.code(), Some(2));
    let got = stdout_json(&out);
    assert_eq!(got["error"], "min_confidence must be in [0, 1]");
    assert_eq!(got["field"], "min_confidence");
    assert!(got["line"].is_null() && got["record"].is_null());

    let out = shardscope(&["attribute", "/nonexistent/trace.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout_json(&out)["error"]
        .as_str()
        .unwrap_or_default()
        .contains("does not exist"));

    let out = shardscope(&["attribute", &path, "--session-id", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout_json(&out)["error"]
        .as_str()
        .unwrap_or_default()
        .contains("Requested session_id not found: nope"));

    // Non-JSON formats print nothing on stdout for errors, and one line on stderr.
    let out = shardscope(&[
        "attribute",
        &path,
        "--preset",
        "extreme",
        "--format",
        "table",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1);
    assert!(stderr.contains("Unknown collective attribution preset: 'extreme'"));
}

#[test]
fn empty_results_exit_0() {
    let path = fixtures().join("traces/empty_array.json");
    let out = shardscope(&["attribute", &path.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_json(&out), Value::Array(Vec::new()));
}

/// `--perfetto FILE`: the run as trace-event JSON beside the usual output, one slice per
/// interval the JSON lists; an unwritable file exits 2 naming it.
#[test]
fn perfetto_writes_the_run_beside_the_results() {
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../public/examples/example-16-ranks.json.gz");
    let example = example.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("shardscope-perfetto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("run.perfetto.json");
    let out = shardscope(&["attribute", example, "--perfetto", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = stdout_json(&out);
    let plain = stdout_json(&shardscope(&["attribute", example]));
    assert_eq!(results, plain, "the usual output is unchanged");
    let trace = read_json(&file);
    let slices: Vec<&Value> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .collect();
    assert_eq!(slices.len(), results.as_array().unwrap().len());
    assert!(slices
        .iter()
        .all(|e| e["args"]["classification"].is_string()));
    let bad = dir.join("missing-folder/run.json");
    let out = shardscope(&["attribute", example, "--perfetto", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--threads N`: the same bytes for every N (the parse threads only split the work);
/// 0 or a word is refused with the option named.
#[test]
fn every_thread_count_prints_the_same_and_zero_is_refused() {
    let trace = fixtures().join("traces/sync_markers_type.json");
    let trace = trace.to_string_lossy();
    let plain = shardscope(&["attribute", &trace, "--format", "csv"]);
    assert!(plain.status.success());
    for n in ["1", "2", "3", "8"] {
        let out = shardscope(&["attribute", &trace, "--format", "csv", "--threads", n]);
        assert!(out.status.success(), "--threads {n}");
        assert_eq!(out.stdout, plain.stdout, "--threads {n}");
    }
    for bad in ["0", "many"] {
        let out = shardscope(&["attribute", &trace, "--format", "json", "--threads", bad]);
        assert_eq!(out.status.code(), Some(2), "--threads {bad}");
        assert_eq!(stdout_json(&out)["field"], "threads", "--threads {bad}");
    }
}

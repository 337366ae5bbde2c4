//! `shardscope attribute` on a TUI CSV export with malformed rows
//! (tests/fixtures/tui_artifacts: the real stormlog 0.4.3's outputs): the result list
//! on stdout, exactly stormlog's, and the TUI's row-level warnings on stderr only.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tui_artifacts")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_csv_with_malformed_rows_prints_stormlogs_results_and_warns_on_stderr() {
    let root = fixtures();
    let csv = root.join("traces/csv_malformed_rows.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_shardscope"))
        .args(["attribute", &csv.to_string_lossy(), "--format", "json"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run shardscope: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");

    let stdout: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let expected = read_json(&root.join("expected/csv_malformed_rows.medium.json"));
    assert_eq!(stdout, expected);
    assert!(
        expected.as_array().is_some_and(|a| !a.is_empty()),
        "the case attributes something"
    );

    let traces = std::fs::canonicalize(root.join("traces"))
        .unwrap_or_else(|e| panic!("traces: {e}"))
        .to_string_lossy()
        .into_owned();
    let warnings = read_json(&root.join("expected/csv_malformed_rows.warnings.json"));
    let expected_lines: Vec<String> = warnings
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|w| {
            let message = w["message"].as_str().unwrap_or_default();
            format!(
                "shardscope attribute: warning: {}",
                message.replace("{traces}", &traces)
            )
        })
        .collect();
    assert!(expected_lines.len() >= 10);
    let got_lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        got_lines, expected_lines,
        "one stderr line per TUI warning, in order"
    );
    let stdout_text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout_text.contains("CSV parse error"),
        "warnings stay off stdout"
    );
}

//! The command line's table and CSV outputs, byte for byte, against checked-in files in
//! tests/snapshots/ (JSON is compared with stormlog's own output elsewhere). A change to
//! any of them must be deliberate: rerun with `UPDATE_SNAPSHOTS=1` and review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (snapshot name, arguments); paths are relative to the repository root.
const CASES: &[(&str, &[&str])] = &[
    (
        "attribute-sync-markers-table",
        &[
            "attribute",
            "tests/fixtures/attribution/traces/sync_markers_type.json",
            "--format",
            "table",
        ],
    ),
    (
        "attribute-sync-markers-csv",
        &[
            "attribute",
            "tests/fixtures/attribution/traces/sync_markers_type.json",
            "--format",
            "csv",
        ],
    ),
    (
        "attribute-phases-high-csv",
        &[
            "attribute",
            "tests/fixtures/attribution/traces/phases_markers.json",
            "--preset",
            "high",
            "--phases",
            "--format",
            "csv",
        ],
    ),
    (
        "attribute-per-rank-folder-table",
        &[
            "attribute",
            "tests/fixtures/attribution/traces/tui_per_rank_files",
            "--format",
            "table",
        ],
    ),
    ("explore-default-table", &["explore", "--format", "table"]),
    (
        "explore-prefill-csv",
        &[
            "explore",
            "--model",
            "llama3.1-8b",
            "--mode",
            "prefill",
            "--batch",
            "4",
            "--format",
            "csv",
        ],
    ),
    (
        "explore-batch-sweep-table",
        &[
            "explore",
            "--batch-sweep",
            "1,8,64",
            "--sla-tpot-ms",
            "20",
            "--format",
            "table",
        ],
    ),
    (
        "explore-scenarios-table",
        &[
            "explore",
            "--model",
            "llama3.1-405b",
            "--scenario",
            "machine=h200-hgx",
            "--scenario",
            "machine=h100-hgx,name=h100",
            "--scenario",
            "machine=tile-wafer,efficiency=corrected",
            "--format",
            "table",
        ],
    ),
    (
        "explore-scenarios-csv",
        &[
            "explore",
            "--scenario",
            "batch=1",
            "--scenario",
            "batch=16,sla_tpot_ms=40",
            "--format",
            "csv",
        ],
    ),
    (
        "sensitivity-table",
        &[
            "sensitivity",
            "--baseline",
            "cp=2,tp=4,pp=2,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml",
            "--format",
            "table",
        ],
    ),
    (
        "sensitivity-csv",
        &[
            "sensitivity",
            "--baseline",
            "cp=2,tp=4,pp=2,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml",
            "--format",
            "csv",
        ],
    ),
];

#[test]
fn table_and_csv_outputs_equal_their_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut differ = Vec::new();
    for (name, args) in CASES {
        let out = Command::new(env!("CARGO_BIN_EXE_shardscope"))
            .args(*args)
            .current_dir(root())
            .output()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            out.status.success(),
            "{name}: exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        let path = dir.join(format!("{name}.txt"));
        if update {
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&path, &out.stdout).unwrap_or_else(|e| panic!("{e}"));
            continue;
        }
        let want = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SNAPSHOTS=1 writes it)", path.display()));
        if want != out.stdout {
            differ.push(format!(
                "{name}:\n--- snapshot\n{}\n--- now\n{}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&out.stdout)
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "outputs differ from tests/snapshots:\n{}",
        differ.join("\n")
    );
}

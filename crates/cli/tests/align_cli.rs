//! `shardscope align` and `attribute --align-clocks` per docs/contracts.md §1 ("align"),
//! driven as a process over the clock fixtures of tests/fixtures/attribution_edges (one
//! run recorded with perfect clocks, the same run with rank clocks 0, +180, -250 and
//! +40 ms off).

mod common;

use common::run;
use serde_json::{json, Value};

fn trace(name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/attribution_edges/traces/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn align_recovers_the_skew_in_the_contract_json() {
    let r = run(&["align", &trace("clocks_skewed.json")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json_of(&r.stdout);
    assert_eq!(v["reference_rank"], 0);
    assert_eq!(v["epoch_ns"], json!(1_700_000_000_050_000_000_i64));
    let ranks = v["ranks"].as_array().cloned().unwrap_or_default();
    let want = [
        (0, "reference", 0),
        (1, "aligned", 180_000_000),
        (2, "aligned", -250_000_000),
        (3, "aligned", 40_000_000),
    ];
    assert_eq!(ranks.len(), want.len());
    for (got, (rank, status, offset)) in ranks.iter().zip(want) {
        assert_eq!(
            got,
            &json!({"rank": rank, "status": status, "offset_ns": offset, "drift_ppm": 0.0,
                    "matched": 18, "residual_ns": 0})
        );
    }
    // Another reference: every offset relative to it.
    let r = run(&[
        "align",
        &trace("clocks_skewed.json"),
        "--reference",
        "2",
        "--format",
        "csv",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "rank,status,offset_ns,drift_ppm,matched,residual_ns,reference_rank,epoch_ns"
    );
    assert_eq!(
        lines[1],
        "0,aligned,250000000,0.0,18,0,2,1699999999800000000"
    );
    assert_eq!(lines[3], "2,reference,0,0.0,18,0,2,1699999999800000000");
    let r = run(&["align", &trace("clocks_skewed.json"), "--format", "table"]);
    assert!(
        r.stdout.contains("-250.000") && r.stdout.contains("reference"),
        "{}",
        r.stdout
    );
}

#[test]
fn too_few_markers_and_no_reference_are_said_plainly() {
    // One collective in the whole run: nothing to match.
    let r = run(&["align", &trace("modest_zscores.json")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json_of(&r.stdout);
    assert_eq!(v["ranks"][1]["status"], "too_few_markers");
    assert!(v["ranks"][1]["offset_ns"].is_null() && v["ranks"][1]["residual_ns"].is_null());
    // A reference rank without markers, and a trace without any: exit 2, the error object.
    let r = run(&["align", &trace("lone_rank_spikes.json"), "--format", "json"]);
    assert_eq!(r.code, 2);
    let v = json_of(&r.stdout);
    assert!(v["field"].is_null() && v["file"].is_null(), "{v}");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("no rank has collective markers")),
        "{v}"
    );
    let r = run(&[
        "align",
        &trace("clocks_skewed.json"),
        "--reference",
        "9",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 2);
    let v = json_of(&r.stdout);
    assert_eq!(v["field"], "reference");
    assert_eq!(
        v["error"],
        "reference rank 9 has no collective markers (ranks with markers: 0, 1, 2, 3)"
    );
}

#[test]
fn attribute_on_aligned_clocks_says_so_and_changes_the_answer() {
    let skewed = trace("clocks_skewed.json");
    let raw = run(&["attribute", &skewed]);
    let aligned = run(&["attribute", &skewed, "--align-clocks"]);
    assert_eq!((raw.code, aligned.code), (0, 0), "{}", aligned.stderr);
    assert!(raw.stderr.is_empty(), "{}", raw.stderr);
    assert!(
        aligned
            .stderr
            .contains("beyond stormlog: 3 of 4 ranks mapped onto rank 0's clock"),
        "{}",
        aligned.stderr
    );
    let classes = |text: &str| -> Vec<String> {
        json_of(text)
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| r["classification"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert!(classes(&aligned.stdout)
        .iter()
        .all(|c| c == "collective_confident"));
    assert!(!classes(&raw.stdout)
        .iter()
        .any(|c| c == "collective_confident"));
}

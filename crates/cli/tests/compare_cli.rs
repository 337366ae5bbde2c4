//! `shardscope compare` driven as a process: its numbers are recomputed here from what
//! `shardscope attribute` prints for each run (the attribution itself is checked
//! against stormlog 0.4.3 elsewhere), on fixture pairs from tests/fixtures.

mod common;

use std::collections::BTreeMap;

use common::run;
use serde_json::Value;

fn trace(dir: &str, name: &str) -> String {
    format!(
        "{}/../../tests/fixtures/{dir}/traces/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Per rank: (intervals, confident, likely, suspect, peak gap, total gap), from the
/// result list `attribute --format json` prints.
fn per_rank(results: &Value) -> BTreeMap<i64, [i64; 6]> {
    let mut out: BTreeMap<i64, [i64; 6]> = BTreeMap::new();
    for r in results.as_array().cloned().unwrap_or_default() {
        let rank = r["rank"].as_i64().unwrap_or(-1);
        let gap = r["evidence"]["peak_gap_bytes"].as_i64().unwrap_or(-1);
        let s = out.entry(rank).or_default();
        s[0] += 1;
        match r["classification"].as_str() {
            Some("collective_confident") => s[1] += 1,
            Some("collective_likely") => s[2] += 1,
            Some("collective_suspect") => s[3] += 1,
            other => panic!("class {other:?}"),
        }
        s[4] = s[4].max(gap);
        s[5] += gap;
    }
    out
}

fn stats(v: &Value) -> [i64; 6] {
    [
        "intervals",
        "confident",
        "likely",
        "suspect",
        "peak_gap_bytes",
        "total_gap_bytes",
    ]
    .map(|k| v[k].as_i64().unwrap_or(-1))
}

fn check_pair(a: &str, b: &str, options: &[&str]) -> Value {
    let attribute = |path: &str| {
        let mut args = vec!["attribute", path];
        args.extend_from_slice(options);
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        per_rank(&json_of(&r.stdout))
    };
    let (want_a, want_b) = (attribute(a), attribute(b));
    let mut args = vec!["compare", "--a", a, "--b", b];
    args.extend_from_slice(options);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json_of(&r.stdout);
    let rows = v["ranks"].as_array().cloned().unwrap_or_default();
    assert!(!rows.is_empty(), "{v}");
    for row in &rows {
        let rank = row["rank"].as_i64().unwrap_or(-1);
        for (side, want) in [("a", &want_a), ("b", &want_b)] {
            if row[side].is_null() {
                // Not in that run at all: it has no interval there either.
                assert!(!want.contains_key(&rank), "rank {rank} run {side}: {row}");
                continue;
            }
            let expected = want.get(&rank).copied().unwrap_or_default();
            assert_eq!(stats(&row[side]), expected, "rank {rank} run {side}: {row}");
        }
    }
    let total = |want: &BTreeMap<i64, [i64; 6]>, i: usize| want.values().map(|s| s[i]).sum::<i64>();
    assert_eq!(v["a"]["confident"].as_i64(), Some(total(&want_a, 1)));
    assert_eq!(v["b"]["intervals"].as_i64(), Some(total(&want_b, 0)));
    v
}

#[test]
fn compare_counts_what_attribute_prints_for_each_run() {
    let edges = |n| trace("attribution_edges", n);
    let plain = |n| trace("attribution", n);
    let v = check_pair(
        &edges("clocks_perfect.json"),
        &edges("clocks_skewed.json"),
        &[],
    );
    // Skewed clocks turn every confident spike less sure (stormlog compares raw time).
    assert_eq!(
        (v["a"]["confident"].as_i64(), v["b"]["confident"].as_i64()),
        (Some(12), Some(0))
    );
    assert_eq!(
        v["verdict"],
        "B has 100 % fewer confident spikes (12 → 0); peak gaps unchanged"
    );
    check_pair(
        &plain("sync_markers_type.json"),
        &plain("sync_no_markers.json"),
        &["--preset", "high"],
    );
    check_pair(
        &plain("overlap_merge.json"),
        &plain("markers_some_ranks.json"),
        &[],
    );
}

#[test]
fn on_aligned_clocks_the_skewed_run_equals_the_perfect_one() {
    let edges = |n| trace("attribution_edges", n);
    let v = check_pair(
        &edges("clocks_perfect.json"),
        &edges("clocks_skewed.json"),
        &["--align-clocks"],
    );
    let rows = v["ranks"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(row["change"], "same", "{row}");
        assert_eq!(
            row["a"], row["b"],
            "peak times too are on the reference clock"
        );
    }
    assert_eq!(v["b"]["aligned_clocks"], true);
    assert_eq!(
        v["verdict"],
        "B has as many confident spikes as A (12); peak gaps unchanged"
    );
}

#[test]
fn csv_and_table_carry_the_same_rows_and_verdict() {
    let (a, b) = (
        trace("attribution", "overlap_merge.json"),
        trace("attribution", "markers_some_ranks.json"),
    );
    let json = json_of(&run(&["compare", "--a", &a, "--b", &b]).stdout);
    let ranks = json["ranks"].as_array().map_or(0, Vec::len);
    let csv = run(&["compare", "--a", &a, "--b", &b, "--format", "csv"]);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    let lines: Vec<&str> = csv.stdout.lines().collect();
    assert_eq!(lines.len(), ranks + 1);
    assert!(lines[0].starts_with("rank,change,a_intervals,b_intervals,delta_intervals,"));
    let table = run(&["compare", "--a", &a, "--b", &b, "--format", "table"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert_eq!(table.stdout.lines().last(), json["verdict"].as_str());
    assert_eq!(table.stdout.lines().count(), ranks + 3);
}

#[test]
fn errors_name_the_run_they_come_from() {
    let good = trace("attribution", "overlap_merge.json");
    let r = run(&[
        "compare",
        "--a",
        &good,
        "--b",
        "missing.json",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 2);
    let v = json_of(&r.stdout);
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("run B: ")),
        "{v}"
    );
    assert_eq!(v["file"], "missing.json");
    let r = run(&["compare", "--a", "missing.json", "--b", &good]);
    assert!(
        r.stderr.starts_with("shardscope compare: run A: "),
        "{}",
        r.stderr
    );
    let r = run(&["compare", "--a", &good]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--b"), "{}", r.stderr);
    let r = run(&[
        "compare",
        "--a",
        &good,
        "--b",
        &good,
        "--override",
        "nope=1",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("run A: "), "{}", r.stderr);
}

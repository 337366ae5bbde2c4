//! `shardscope report OUT_DIR PATH...`: the folder it writes (the page, the traces
//! gzip-compressed under their own names, `traces/index.json`), the link it prints, and
//! that the published traces attribute exactly as the originals did. The page opening
//! the printed link is tested in tests/e2e/publish.test.mjs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

mod common;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use common::run;

const TRACES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/attribution/traces"
);

/// A fresh, empty temporary folder for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shardscope-report-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A stand-in for dist/: an index.html and an asset in a subfolder.
fn fake_page(root: &Path) -> PathBuf {
    let page = root.join("page");
    fs::create_dir_all(page.join("assets")).unwrap();
    fs::write(
        page.join("index.html"),
        "<!doctype html><title>page</title>",
    )
    .unwrap();
    fs::write(page.join("assets/app.wasm"), [0u8, 97, 115, 109]).unwrap();
    page
}

fn gunzip(path: &Path) -> Vec<u8> {
    let bytes = fs::read(path).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "{} is gzip", path.display());
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn a_report_holds_the_page_the_traces_and_their_index_and_prints_the_link() {
    let root = temp_dir("full");
    let page = fake_page(&root);
    let out = root.join("site");
    let sink = format!("{TRACES}/sink_dir/");
    let file = format!("{TRACES}/two_sessions.json");
    let r = run(&[
        "report",
        out.to_str().unwrap(),
        &file,
        &sink,
        "--page",
        page.to_str().unwrap(),
        "--preset",
        "high",
        "--override",
        "min_confidence=0.6",
        "--phases",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "index.html#v=1&view=trace&preset=high&o.min_confidence=0.6&phases=1&src=traces/\n"
    );
    assert!(
        r.stderr.contains("the page and 5 trace files"),
        "{}",
        r.stderr
    );
    // The page, as built.
    assert_eq!(
        fs::read(out.join("assets/app.wasm")).unwrap(),
        [0u8, 97, 115, 109]
    );
    assert!(out.join("index.html").is_file());
    // The index lists each input under its own name, in the order given.
    let index: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("traces/index.json")).unwrap()).unwrap();
    assert_eq!(
        index,
        serde_json::json!({"files": [
            "two_sessions.json",
            "sink_dir/manifest.json",
            "sink_dir/segment-000001.jsonl",
            "sink_dir/segment-000002.jsonl",
            "sink_dir/segment-000003.jsonl",
        ]})
    );
    // Every file gzip-compressed under its own name, its bytes unchanged.
    assert_eq!(
        gunzip(&out.join("traces/two_sessions.json")),
        fs::read(&file).unwrap()
    );
    assert_eq!(
        gunzip(&out.join("traces/sink_dir/segment-000002.jsonl")),
        fs::read(format!("{sink}segment-000002.jsonl")).unwrap()
    );
    // The published traces attribute as the originals do.
    for (original, published) in [
        (file.clone(), out.join("traces/two_sessions.json")),
        (sink.clone(), out.join("traces/sink_dir")),
    ] {
        let args = |p: &str| {
            run(&[
                "attribute",
                p,
                "--preset",
                "high",
                "--override",
                "min_confidence=0.6",
                "--phases",
            ])
        };
        let a = args(&original);
        let b = args(published.to_str().unwrap());
        assert_eq!((a.code, &a.stdout), (0, &b.stdout), "{original}");
        assert!(a.stdout.len() > 2, "{original} has results");
    }
    // The json face: the link and each file with its sizes.
    let out2 = root.join("site2");
    let j = run(&[
        "report",
        out2.to_str().unwrap(),
        &file,
        "--page",
        page.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(j.code, 0, "{}", j.stderr);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["link"], "index.html#v=1&view=trace&src=traces/");
    assert_eq!(v["files"][0]["name"], "two_sessions.json");
    assert_eq!(v["files"][0]["bytes"], fs::metadata(&file).unwrap().len());
    assert_eq!(
        v["files"][0]["stored_bytes"],
        fs::metadata(out2.join("traces/two_sessions.json"))
            .unwrap()
            .len()
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_report_is_refused_before_anything_is_written() {
    let root = temp_dir("refused");
    let page = fake_page(&root);
    let file = format!("{TRACES}/two_sessions.json");
    let out = root.join("site");
    let report = |out: &Path, paths: &[&str], extra: &[&str]| {
        let mut args = vec!["report", out.to_str().unwrap()];
        args.extend_from_slice(paths);
        args.extend_from_slice(&["--page", page.to_str().unwrap(), "--format", "json"]);
        args.extend_from_slice(extra);
        run(&args)
    };
    let field = |r: &common::Run| {
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        (r.code, v["field"].as_str().map(str::to_string))
    };
    // Traces that do not load: the load's own error, nothing written.
    let bad = format!("{TRACES}/inv_malformed_json.json");
    let r = report(&out, &[&bad], &[]);
    assert_eq!(r.code, 2);
    assert!(!out.exists());
    // A bad override: its field.
    let r = report(&out, &[&file], &["--override", "min_confidence=7"]);
    assert_eq!(field(&r), (2, Some("min_confidence".to_string())));
    assert!(!out.exists());
    // Two inputs of one name.
    let other = root.join("other");
    fs::create_dir_all(&other).unwrap();
    fs::copy(&file, other.join("two_sessions.json")).unwrap();
    let twin = other.join("two_sessions.json");
    let r = report(&out, &[&file, twin.to_str().unwrap()], &[]);
    assert_eq!(field(&r), (2, Some("paths".to_string())));
    assert!(
        r.stderr.contains("both called `two_sessions.json`"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
    // A folder that already holds something is never written into.
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("keep.txt"), "mine").unwrap();
    let r = report(&out, &[&file], &[]);
    assert_eq!(field(&r), (2, Some("out_dir".to_string())));
    assert_eq!(fs::read_to_string(out.join("keep.txt")).unwrap(), "mine");
    assert!(!out.join("traces").exists());
    // No page where it was said to be.
    let r = run(&[
        "report",
        root.join("site3").to_str().unwrap(),
        &file,
        "--page",
        root.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(field(&r), (2, Some("page".to_string())));
    fs::remove_dir_all(&root).unwrap();
}

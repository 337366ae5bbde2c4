//! Trace loading beyond the fixture cases: formats, Python-json quirks, gzip,
//! sessions, streaming across chunk boundaries, and robustness on garbage.

use std::io::Write;

mod common;

use proptest::prelude::*;
use shardscope_core::attribution::{attribute, AttributionConfig};
use shardscope_core::trace::load::json_default_session_id;
use shardscope_core::trace::ranges::{parse_range, plan, ParsedRange, Preparsed};
use shardscope_core::trace::split::Layout;
use shardscope_core::trace::{
    load, Dataset, LoadErrorKind, LoadOptions, LoadOutcome, MemFs, PathKind, TraceFs,
};

const FIXTURE: &[u8] =
    include_bytes!("../../../tests/fixtures/attribution/traces/sync_markers_type.json");
const JSONL_FIXTURE: &[u8] =
    include_bytes!("../../../tests/fixtures/attribution/traces/jsonl_segment.jsonl");

fn load_one(path: &str, bytes: &[u8]) -> LoadOutcome {
    let mut fs = MemFs::new();
    fs.insert(path, bytes.to_vec());
    load(
        &fs,
        &[path.to_string()],
        &LoadOptions::default(),
        &mut |_| {},
    )
}

fn ok(outcome: LoadOutcome) -> Dataset {
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    outcome.dataset
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
    enc.finish().unwrap_or_else(|e| panic!("{e}"))
}

fn medium(dataset: &Dataset) -> usize {
    let config = AttributionConfig::resolve(shardscope_core::attribution::Preset::Medium, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    attribute(dataset.selected_events(), &config, None).len()
}

fn record(ts: &str, extra_metadata: &str) -> String {
    format!(
        r#"{{"schema_version": 4, "session_id": "s", "timestamp_ns": {ts}, "event_type": "sample", "collector": "c", "sampling_interval_ms": 1, "pid": 1, "host": "h", "device_id": 0, "allocator_allocated_bytes": 1, "allocator_reserved_bytes": 1, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": 0, "device_used_bytes": 2, "device_free_bytes": null, "device_total_bytes": 10, "context": null, "metadata": {{"backend": "cuda"{extra_metadata}}}}}"#
    )
}

#[test]
fn gzip_is_sniffed_and_gives_the_same_events() {
    let plain = ok(load_one("t.json", FIXTURE));
    let zipped = ok(load_one("t.json.gz", &gzip(FIXTURE)));
    assert_eq!(plain.selected_events(), zipped.selected_events());
    assert!(medium(&plain) > 0);
    assert_eq!(medium(&plain), medium(&zipped));
    let jsonl = ok(load_one("seg.jsonl.gz", &gzip(JSONL_FIXTURE)));
    assert!(!jsonl.selected_events().is_empty());
}

#[test]
fn jsonl_content_in_a_json_file_is_accepted() {
    let from_jsonl = ok(load_one("a.jsonl", JSONL_FIXTURE));
    let from_json = ok(load_one("a.json", JSONL_FIXTURE));
    assert_eq!(
        from_jsonl.selected_events().len(),
        from_json.selected_events().len()
    );
    assert_eq!(medium(&from_jsonl), medium(&from_json));
}

#[test]
fn a_cut_last_jsonl_line_is_dropped_but_a_bad_middle_line_is_an_error() {
    let full = ok(load_one("a.jsonl", JSONL_FIXTURE));
    let cut = &JSONL_FIXTURE[..JSONL_FIXTURE.len() - 40];
    let dropped = ok(load_one("a.jsonl", cut));
    assert_eq!(
        dropped.selected_events().len() + 1,
        full.selected_events().len()
    );

    let mut broken = b"{\"bad\": \n".to_vec();
    broken.extend_from_slice(JSONL_FIXTURE);
    let outcome = load_one("a.jsonl", &broken);
    let err = &outcome.errors[0];
    assert_eq!(err.kind, LoadErrorKind::Syntax);
    assert_eq!(err.line, Some(1));
    assert!(err
        .message
        .starts_with("Malformed telemetry JSONL record in a.jsonl at line 1"));
}

#[test]
fn python_nan_and_infinity_tokens_are_accepted_in_metadata() {
    let text = format!(
        "[{}]",
        record("5", r#", "loss": NaN, "lr": -Infinity, "x": [Infinity]"#)
    );
    let dataset = ok(load_one("t.json", text.as_bytes()));
    assert_eq!(dataset.selected_events().len(), 1);
    // ...but NaN is not an integer.
    let text = format!("[{}]", record("NaN", ""));
    let outcome = load_one("t.json", text.as_bytes());
    assert_eq!(outcome.errors[0].message, "timestamp_ns must be an integer");
}

#[test]
fn timestamps_keep_all_64_bits() {
    let text = format!("[{}]", record("9007199254740993", ""));
    let dataset = ok(load_one("t.json", text.as_bytes()));
    assert_eq!(
        dataset.selected_events().list[0].timestamp_ns,
        9_007_199_254_740_993
    );
}

#[test]
fn syntax_errors_report_line_and_column_across_chunks() {
    // 3 MiB of valid records, then a missing comma: the error is far past the first chunk.
    let mut text = String::from("[\n");
    let one = record("5", "");
    while text.len() < 3 << 20 {
        text.push_str(&one);
        text.push_str(",\n");
    }
    let lines_before = text.matches('\n').count();
    text.push_str(&one);
    text.push_str("\n  ");
    text.push_str(&one);
    text.push_str("]\n");
    let outcome = load_one("big.json", text.as_bytes());
    let err = &outcome.errors[0];
    assert_eq!(err.kind, LoadErrorKind::Syntax);
    assert_eq!(err.line, Some(lines_before as u64 + 2));
    assert_eq!(err.column, Some(3));
    assert!(
        err.message.starts_with("Expecting ',' delimiter: line "),
        "{}",
        err.message
    );
}

#[test]
fn a_syntax_error_outranks_an_earlier_bad_record_like_python() {
    let text = format!("[{}, {} 1]", record("-5", ""), record("5", ""));
    let outcome = load_one("t.json", text.as_bytes());
    assert_eq!(outcome.errors[0].kind, LoadErrorKind::Syntax);
    let text = format!("[{}, {}]", record("-5", ""), record("5", ""));
    let outcome = load_one("t.json", text.as_bytes());
    assert_eq!(outcome.errors[0].message, "timestamp_ns must be >= 0");
    assert_eq!(outcome.errors[0].record, Some(0));
    assert_eq!(outcome.errors[0].field.as_deref(), Some("timestamp_ns"));
}

#[test]
fn invalid_utf8_is_reported_as_such() {
    let mut bytes = format!("[{}]", record("5", "")).into_bytes();
    let at = bytes.len() - 10;
    bytes[at] = 0xff;
    let outcome = load_one("t.json", &bytes);
    assert_eq!(outcome.errors[0].kind, LoadErrorKind::Utf8);
}

#[test]
fn wrapper_objects_choose_events_like_stormlog() {
    let r = record("5", "");
    // "events" wins over "telemetry_events"; other keys may come first and be big.
    let text =
        format!(r#"{{"note": {{"a": [1, 2, 3]}}, "telemetry_events": [], "events": [{r}, {r}]}}"#);
    assert_eq!(
        ok(load_one("t.json", text.as_bytes()))
            .selected_events()
            .len(),
        2
    );
    // A non-list "events" falls through to "telemetry_events".
    let text = format!(r#"{{"events": 3, "telemetry_events": [{r}]}}"#);
    assert_eq!(
        ok(load_one("t.json", text.as_bytes()))
            .selected_events()
            .len(),
        1
    );
    // A tracker summary must match the events' session.
    let text = format!(
        r#"{{"telemetry_events": [{r}], "session_summary": {{"session_id": "other", "status": "completed", "started_at_ns": 1, "host": "h", "source": "x"}}}}"#
    );
    let outcome = load_one("t.json", text.as_bytes());
    assert_eq!(
        outcome.errors[0].message,
        "Tracker session summary does not match telemetry event identity"
    );
}

#[test]
fn sink_folders_and_manifests_load_their_segments() {
    let mut fs = MemFs::new();
    fs.insert("run/sink/segment-000001.jsonl", JSONL_FIXTURE.to_vec());
    fs.insert(
        "run/sink/manifest.json",
        br#"{"schema_version": 2, "sessions": [], "segments": [{"filename": "segment-000001.jsonl"}]}"#.to_vec(),
    );
    let by_dir = load(
        &fs,
        &["run/sink".to_string()],
        &LoadOptions::default(),
        &mut |_| {},
    );
    let by_manifest = load(
        &fs,
        &["run/sink/manifest.json".to_string()],
        &LoadOptions::default(),
        &mut |_| {},
    );
    assert!(by_dir.errors.is_empty() && by_manifest.errors.is_empty());
    assert!(!by_dir.dataset.selected_events().is_empty());
    assert_eq!(
        by_dir.dataset.selected_events(),
        by_manifest.dataset.selected_events()
    );
}

#[test]
fn progress_reports_every_chunk() {
    let mut big = Vec::new();
    while big.len() < 3 << 20 {
        big.extend_from_slice(JSONL_FIXTURE);
    }
    let mut fs = MemFs::new();
    fs.insert("big.jsonl", big.clone());
    let mut reports = Vec::new();
    let outcome = load(
        &fs,
        &["big.jsonl".to_string()],
        &LoadOptions::default(),
        &mut |p| reports.push((p.file_done_bytes, p.file_total_bytes)),
    );
    assert!(outcome.errors.is_empty());
    assert!(reports.len() >= 3, "{reports:?}");
    assert!(reports.windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(reports.last().map(|r| r.0), Some(big.len() as u64));
}

#[test]
fn bad_files_do_not_discard_good_files_loaded_beside_them() {
    let mut fs = MemFs::new();
    fs.insert("a.json", FIXTURE.to_vec());
    fs.insert("b.json", b"[1, 2".to_vec());
    let outcome = load(
        &fs,
        &["a.json".to_string(), "b.json".to_string()],
        &LoadOptions::default(),
        &mut |_| {},
    );
    assert_eq!(outcome.errors.len(), 1);
    assert_eq!(outcome.errors[0].file.as_deref(), Some("b.json"));
    assert!(!outcome.dataset.selected_events().is_empty());
}

/// A gzipped file loads exactly as the same bytes uncompressed: the same events, the same
/// errors (file, record, message).
fn assert_same_outcome(plain: &LoadOutcome, zipped: &LoadOutcome) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        plain.dataset.selected_events(),
        zipped.dataset.selected_events()
    );
    let errors = |o: &LoadOutcome| o.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>();
    prop_assert_eq!(errors(plain), errors(zipped));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(400)))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600), jsonl in any::<bool>()) {
        let name = if jsonl { "x.jsonl" } else { "x.json" };
        prop_assume!(!bytes.starts_with(&[0x1f, 0x8b]));
        let plain = load_one(name, &bytes);
        let zipped = load_one(name, &gzip(&bytes));
        assert_same_outcome(&plain, &zipped)?;
    }

    #[test]
    fn corrupted_traces_never_panic(edits in prop::collection::vec((0usize..FIXTURE.len(), any::<u8>()), 1..8), cut in 0usize..FIXTURE.len()) {
        let mut bytes = FIXTURE.to_vec();
        for (at, byte) in edits {
            bytes[at] = byte;
        }
        for bytes in [&bytes[..], &bytes[..cut]] {
            prop_assume!(!bytes.starts_with(&[0x1f, 0x8b]));
            let plain = load_one("x.json", bytes);
            let zipped = load_one("x.json", &gzip(bytes));
            assert_same_outcome(&plain, &zipped)?;
        }
        let _ = load_one("x.jsonl", &bytes[..cut]);
    }
}

fn load_with(fs: &MemFs, path: &str, parallel: bool) -> LoadOutcome {
    let options = LoadOptions {
        parallel,
        ..LoadOptions::default()
    };
    load(fs, &[path.to_string()], &options, &mut |_| {})
}

/// The parallel path on any input size, with `range_bytes` per range.
fn load_in_ranges(fs: &MemFs, path: &str, range_bytes: u64) -> LoadOutcome {
    let options = LoadOptions {
        parallel: true,
        parallel_min_bytes: 0,
        range_bytes,
        ..LoadOptions::default()
    };
    load(fs, &[path.to_string()], &options, &mut |_| {})
}

/// Everything a load gave, with string ids replaced by what they name.
fn described(outcome: &LoadOutcome) -> String {
    let d = &outcome.dataset;
    let mut out = format!("errors {:?}\n", outcome.errors);
    for s in &d.sessions {
        out += &format!("session {:?}\n", s.summary);
        for e in &s.events {
            let source = d.sources.of(e);
            out += &format!(
                "{} {} {:?} {:?} {:?} {:?} {} {}\n",
                e.timestamp_ns,
                source.rank,
                e.counters(),
                d.strings.get(e.session),
                d.strings.get(source.event_type),
                d.strings.get(e.context),
                source.flags,
                e.phase
            );
        }
    }
    out
}

#[test]
fn ranges_of_any_size_give_the_sequential_result_or_give_up() {
    // Records whose strings hold what the range guesses look for: `}, {`, escaped
    // newlines, a multi-byte character on every side of a cut; pretty-printed too.
    let record = |i: usize, context: &str, tricky: bool| {
        format!(
            r#"{{"schema_version": 4, "session_id": "s", "timestamp_ns": {}, "event_type": "sample", "collector": "c", "sampling_interval_ms": 100, "pid": 1, "host": "h", "rank": {}, "world_size": 4, "device_id": 0, "allocator_allocated_bytes": {}, "allocator_reserved_bytes": 2000, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": 0, "device_used_bytes": 3000, "device_free_bytes": 1000, "device_total_bytes": 4000, "context": {}, "metadata": {{"note": "{}"}}}}"#,
            1_000 + (i * 7919) % 50,
            i % 4,
            1000 + i,
            context,
            if tricky && i % 13 == 5 {
                "ü}, {é"
            } else {
                "é"
            }
        )
    };
    let contexts = [
        "null",
        r#""}, {\"x\": 1}""#,
        r#""a\nb π nccl:all_reduce""#,
        r#""ÿ""#,
    ];
    let records: Vec<String> = (0..40)
        .map(|i| record(i, contexts[(i % 2) * 2], false))
        .collect();
    let tricky: Vec<String> = (0..40).map(|i| record(i, contexts[i % 4], true)).collect();
    let mut fs = MemFs::new();
    fs.insert("f.json", format!("[{}]", tricky.join(", ")));
    fs.insert("g.jsonl", tricky.join("\n") + "\n");
    fs.insert("a.json", format!("[{}]", records.join(", ")));
    fs.insert("b.json", format!("[\n  {}\n]\n", records.join(",\n  ")));
    fs.insert("c.jsonl", records.join("\n") + "\n");
    fs.insert("d.json", "[]".to_string());
    fs.insert("e.json", format!("[{}] x", records.join(", ")));
    let sizes: Vec<u64> = [1, 2, 3, 5, 8, 13]
        .into_iter()
        .chain((20..=600).step_by(7))
        .chain([997, 4096, 1 << 20])
        .collect();
    let all = sizes.len();
    for path in [
        "a.json", "b.json", "c.jsonl", "d.json", "e.json", "f.json", "g.jsonl",
    ] {
        let want = described(&load_with(&fs, path, false));
        let mut used = 0;
        for &range_bytes in &sizes {
            let got = load_in_ranges(&fs, path, range_bytes);
            if got.parallel_files == 1 {
                used += 1;
                assert_eq!(
                    described(&got),
                    want,
                    "{path} in ranges of {range_bytes} bytes"
                );
            } else {
                assert_eq!(described(&got), want, "{path}: the sequential fallback");
            }
        }
        // The guesses hit, except after the error of e.json; the strings of f.json
        // hold `}, {`, so its small ranges guess wrong and give up.
        let expect_used = match path {
            "e.json" => 0..1,
            "f.json" => 1..all,
            _ => all..all + 1,
        };
        assert!(
            expect_used.contains(&used),
            "{path}: the range path was used {used} times"
        );
    }
}

/// A JSON array of ~9 MiB: big enough for the parallel path.
fn big_array() -> Vec<u8> {
    let open = FIXTURE.iter().position(|&b| b == b'[').unwrap_or(0);
    let close = FIXTURE
        .iter()
        .rposition(|&b| b == b']')
        .unwrap_or(FIXTURE.len());
    let body = &FIXTURE[open + 1..close]; // the fixture's records without [ ]
    let mut out = b"[".to_vec();
    while out.len() < 9 << 20 {
        if out.len() > 1 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(body);
    }
    out.push(b']');
    out
}

/// Every parse-thread count gives the sequential result, for both parallel paths (ranges
/// of a plain file, batches of a gzip stream): the counts the CLI's `--threads` takes.
#[test]
fn every_thread_count_gives_the_sequential_result() {
    let mut fs = MemFs::new();
    let array = big_array();
    fs.insert("big.json", array.clone());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &array).unwrap_or_default();
    fs.insert("big.json.gz", gz.finish().unwrap_or_default());
    for path in ["big.json", "big.json.gz"] {
        let seq = described(&load_with(&fs, path, false));
        for threads in 1..=8 {
            let options = LoadOptions {
                threads,
                // The gzip stream is small compressed: the parallel path whatever the size.
                parallel_min_bytes: 0,
                ..LoadOptions::default()
            };
            let got = load(&fs, &[path.to_string()], &options, &mut |_| {});
            assert_eq!(
                got.parallel_files,
                usize::from(threads > 1),
                "{path} {threads}"
            );
            assert_eq!(described(&got), seq, "{path} with {threads} threads");
        }
    }
}

#[test]
fn parallel_parsing_gives_exactly_the_sequential_result() {
    let mut fs = MemFs::new();
    fs.insert("big.json", big_array());
    let mut lines = Vec::new();
    while lines.len() < 9 << 20 {
        lines.extend_from_slice(JSONL_FIXTURE);
    }
    fs.insert("big.jsonl", lines);
    for path in ["big.json", "big.jsonl"] {
        let seq = load_with(&fs, path, false);
        let par = load_with(&fs, path, true);
        assert_eq!((seq.parallel_files, par.parallel_files), (0, 1), "{path}");
        let (seq, par) = (ok(seq), ok(par));
        assert!(seq.selected_events().len() > 5_000, "{path}");
        assert_eq!(seq.sessions.len(), par.sessions.len());
        for (a, b) in seq.sessions.iter().zip(&par.sessions) {
            assert_eq!(a.summary, b.summary, "{path}");
            assert_eq!(a.events.len(), b.events.len());
            for (x, y) in a.events.iter().zip(&b.events) {
                // String ids may differ between the two loads: compare what they name.
                assert_eq!(x.timestamp_ns, y.timestamp_ns);
                assert_eq!(x.counters(), y.counters());
                let (sx, sy) = (seq.sources.of(x), par.sources.of(y));
                assert_eq!(
                    (sx.rank, sx.local_rank, sx.world_size, sx.flags, x.phase > 0),
                    (sy.rank, sy.local_rank, sy.world_size, sy.flags, y.phase > 0)
                );
                assert_eq!(
                    seq.strings.get(sx.event_type),
                    par.strings.get(sy.event_type)
                );
                assert_eq!(seq.strings.get(x.context), par.strings.get(y.context));
            }
        }
        assert_eq!(medium(&seq), medium(&par), "{path}");
    }
}

/// A JSON array of ~9 MiB whose records carry a metadata note of `note_bytes`.
fn array_of_long_records(note_bytes: usize) -> Vec<u8> {
    let note = "n".repeat(note_bytes);
    let mut out = b"[".to_vec();
    let mut i = 0u64;
    while out.len() < 9 << 20 {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        let record = format!(
            r#"{{"schema_version": 4, "session_id": "s", "timestamp_ns": {}, "event_type": "sample", "collector": "c", "sampling_interval_ms": 100, "pid": 1, "host": "h", "rank": {}, "world_size": 2, "device_id": 0, "allocator_allocated_bytes": {}, "allocator_reserved_bytes": {}, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": 0, "device_used_bytes": {}, "device_free_bytes": null, "device_total_bytes": 100000000000, "context": null, "metadata": {{"backend": "cuda", "note": "{note}"}}}}"#,
            1_000_000_000 + i * 1_000_000,
            i % 2,
            1_000_000 + i,
            2_000_000 + i,
            3_000_000 + i
        );
        out.extend_from_slice(record.as_bytes());
        i += 1;
    }
    out.push(b']');
    out
}

#[test]
fn records_longer_than_the_first_slack_are_read_again_not_given_up() {
    // 100 kB records cross the range ends by more than the 64 kB first read; 3 MB
    // ones by more than the widest read, so that file falls back to the sequential parse.
    for (note_bytes, parallel) in [(100_000, 1), (3_000_000, 0)] {
        let mut fs = MemFs::new();
        fs.insert("long.json", array_of_long_records(note_bytes));
        let seq = load_with(&fs, "long.json", false);
        let par = load_with(&fs, "long.json", true);
        assert_eq!(
            par.parallel_files, parallel,
            "records of {note_bytes} bytes"
        );
        assert!(seq.errors.is_empty() && par.errors.is_empty());
        assert_eq!(
            described(&seq),
            described(&par),
            "records of {note_bytes} bytes"
        );
    }
}

#[test]
fn parallel_parsing_falls_back_to_report_errors_exactly() {
    let mut bytes = big_array();
    // Corrupt one record in the middle: "rank": 0 -> "rank": -1.
    let middle = bytes.len() / 2;
    let at = middle
        + bytes[middle..]
            .windows(9)
            .position(|w| w == b"\"rank\": 0" || w == b"\"rank\":0,")
            .unwrap_or_else(|| panic!("no rank field"));
    let replacement: &[u8] = if &bytes[at..at + 9] == b"\"rank\": 0" {
        b"\"rank\": -1"
    } else {
        b"\"rank\":-1,"
    };
    bytes.splice(at..at + 9, replacement.iter().copied());
    let mut fs = MemFs::new();
    fs.insert("big.json", bytes);
    let seq = load_with(&fs, "big.json", false);
    let par = load_with(&fs, "big.json", true);
    assert_eq!(par.parallel_files, 0, "the fast path gave up");
    assert_eq!(seq.errors.len(), 1);
    assert_eq!(seq.errors, par.errors);
    assert_eq!(par.errors[0].message, "rank must be >= 0");
}

/// A file tree whose big JSON files arrive already parsed in ranges, as the browser's
/// helper workers hand them over: packed, in reverse order, optionally one missing.
struct Preparsing {
    fs: MemFs,
    range_bytes: u64,
    drop_one: bool,
    taken: std::cell::Cell<u32>,
}

impl TraceFs for Preparsing {
    fn kind(&self, path: &str) -> PathKind {
        self.fs.kind(path)
    }
    fn list_dir(&self, path: &str) -> Vec<String> {
        self.fs.list_dir(path)
    }
    fn open(&self, path: &str) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        self.fs.open(path)
    }
    fn size(&self, path: &str) -> Option<u64> {
        self.fs.size(path)
    }
    fn resolve(&self, path: &str) -> String {
        self.fs.resolve(path)
    }
    fn take_parsed(&self, path: &str) -> Option<Preparsed<'_>> {
        let file_bytes = self.fs.size(path)?;
        let tasks = plan(file_bytes, self.range_bytes, 4096.max(self.range_bytes));
        let default_session_id = json_default_session_id(&self.fs.resolve(path));
        let mut tape = Default::default();
        let mut packed = Vec::new();
        for task in &tasks {
            let (offset, len) = task.read_span();
            let mut buf = Vec::new();
            self.fs
                .read_at(path, offset, len as usize, &mut buf)?
                .ok()?;
            let range = parse_range(
                task,
                Layout::JsonArray,
                &buf,
                &default_session_id,
                &mut tape,
            )
            .ok()?;
            let bytes = range.to_bytes();
            let back = ParsedRange::from_bytes(&bytes).ok()?;
            assert_eq!(back.to_bytes(), bytes, "packing round trip");
            packed.push(bytes);
        }
        packed.reverse();
        if self.drop_one {
            packed.pop();
        }
        self.taken.set(self.taken.get() + 1);
        Some(Preparsed {
            default_session_id,
            file_bytes,
            range_bytes: self.range_bytes,
            ranges: Box::new(packed.into_iter()),
        })
    }
}

#[test]
fn ranges_parsed_elsewhere_and_packed_give_the_sequential_result() {
    // A pretty-printed stormlog export (indent 2) of 250 kB.
    let mut fs = MemFs::new();
    fs.insert("big.json", FIXTURE.to_vec());
    let want = described(&load_with(&fs, "big.json", false));
    for (range_bytes, drop_one) in [
        (16_411, false),
        (65_536, false),
        (100_003, false),
        (65_536, true),
    ] {
        let pre = Preparsing {
            fs: fs.clone(),
            range_bytes,
            drop_one,
            taken: Default::default(),
        };
        let options = LoadOptions {
            parallel: false,
            ..LoadOptions::default()
        };
        let got = load(&pre, &["big.json".to_string()], &options, &mut |_| {});
        assert_eq!(pre.taken.get(), 1);
        assert_eq!(
            got.parallel_files,
            u32::from(!drop_one) as usize,
            "{range_bytes} {drop_one}"
        );
        assert_eq!(described(&got), want, "{range_bytes} {drop_one}");
    }
}

/// One record for the parallel-parse property: any rank, counters that may be null,
/// strings that hold what a range's start guess looks for (`}, {`, line breaks).
fn any_record() -> impl Strategy<Value = String> {
    (
        0i64..3_000,
        0i64..4,
        prop::option::of(0i64..5_000),
        prop_oneof![
            Just("null".to_string()),
            Just(r#""}, {\"x\": 1}""#.to_string()),
            Just(r#""a\nb nccl:all_reduce""#.to_string()),
            "[ -!#-\\[\\]-~éü]{0,12}".prop_map(|s| format!("\"{s}\"")),
        ],
        prop_oneof![Just("sample"), Just("collective"), Just("stop"), Just("Sample ")],
    )
        .prop_map(|(ts, rank, used, context, kind)| {
            let used = used.map_or("null".to_string(), |u| (u + 2_000).to_string());
            format!(
                r#"{{"schema_version": 4, "session_id": "s{}", "timestamp_ns": {ts}, "event_type": "{kind}", "collector": "c", "sampling_interval_ms": 100, "pid": 1, "host": "h", "rank": {rank}, "world_size": 4, "device_id": 0, "allocator_allocated_bytes": 1000, "allocator_reserved_bytes": 2000, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": 0, "device_used_bytes": {used}, "device_free_bytes": null, "device_total_bytes": 8000, "context": {context}, "metadata": {{"backend": "cuda", "note": {context}}}}}"#,
                rank % 2
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(200)))]

    /// Above the (lowered) threshold, the parallel byte-range parse gives exactly the
    /// sequential parse's result, in every layout and for any range size.
    #[test]
    fn the_parallel_parse_equals_the_sequential_one(
        records in prop::collection::vec(any_record(), 0..60),
        layout in 0u8..4,
        range_bytes in prop_oneof![1u64..64, 64u64..2048, 2048u64..65536],
    ) {
        let (name, text) = match layout {
            0 => ("t.json", format!("[{}]", records.join(", "))),
            1 => ("t.json", format!("[\n  {}\n]\n", records.join(",\n  "))),
            2 => ("t.jsonl", records.iter().map(|r| format!("{r}\n")).collect::<String>()),
            _ => ("t.json", format!("{{\"events\": [{}]}}", records.join(","))),
        };
        let mut fs = MemFs::new();
        fs.insert(name, text.into_bytes());
        let sequential = load_with(&fs, name, false);
        let parallel = load_in_ranges(&fs, name, range_bytes);
        prop_assert_eq!(described(&sequential), described(&parallel));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(300)))]

    /// Mutated fixtures (cut, bytes flipped or overwritten, a slice repeated) load to an
    /// error or a dataset, in any format: never a panic.
    #[test]
    fn mutated_fixtures_load_or_fail_but_never_panic(
        which in 0usize..4,
        cut in prop::option::of(any::<prop::sample::Index>()),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        repeat in prop::option::of((any::<prop::sample::Index>(), 1usize..200)),
    ) {
        const CSV: &[u8] = include_bytes!("../../../tests/fixtures/attribution/traces/tui_csv_export.csv");
        let (name, base): (&str, &[u8]) = match which {
            0 => ("t.json", FIXTURE),
            1 => ("t.jsonl", JSONL_FIXTURE),
            2 => ("rank0.csv", CSV),
            _ => ("t.json.gz", FIXTURE),
        };
        let mut bytes = base.to_vec();
        if let Some((at, len)) = repeat {
            let from = at.index(bytes.len());
            let slice = bytes[from..(from + len).min(bytes.len())].to_vec();
            bytes.splice(from..from, slice);
        }
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len()));
        }
        if which == 3 {
            bytes = gzip(&bytes);
        }
        let outcome = load_one(name, &bytes);
        // Either way the outcome is coherent: an error names the file.
        for e in &outcome.errors {
            prop_assert_eq!(e.file.as_deref(), Some(name), "{:?}", e);
        }
    }
}

//! wasm-bindgen tests run inside a dedicated Web Worker in headless Chromium, where
//! `FileReaderSync` exists: slice-by-slice blob reading and the worker's request handling.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions
#![cfg(target_arch = "wasm32")]
// Tests may panic on the unexpected: that is how they fail.

use std::io::Read;

use js_sys::{Array, Uint8Array};
use shardscope_attribution::analysis::{AnalyzeSettings, IntervalRow};
use shardscope_attribution::attribution::{Classification, Preset};
use shardscope_view::lod::{WindowData, WindowQuery};
use shardscope_web::blob::{read_blob_info, BlobReader};
use shardscope_web::protocol::{
    fnv1a32_update, to_js, NamedBlob, RequestBody, ResponseBody, WorkerRequest, WorkerResponse,
    FNV1A32_INIT, READY_ID,
};
use shardscope_web::protocol::{ExportFormat, TraceReport};
use shardscope_web::worker::handle_message;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::Blob;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn blob(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("blob")
}

/// Deterministic test content with newlines.
fn content(len: usize) -> Vec<u8> {
    let mut x: u32 = 12345;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            if x.is_multiple_of(17) {
                b'\n'
            } else {
                b'a' + (x >> 16) as u8 % 26
            }
        })
        .collect()
}

fn handle(data: JsValue) -> Vec<WorkerResponse> {
    let mut out = Vec::new();
    handle_message(data, &mut |r| out.push(r.clone()));
    out
}

#[wasm_bindgen_test]
fn blob_reader_returns_every_byte_in_order_for_any_slice_size() {
    let bytes = content(1000);
    for chunk in [1u32, 3, 7, 64, 999, 1000, 1001, 4 << 20] {
        let mut reader = BlobReader::new(blob(&bytes), chunk).expect("reader");
        let mut out = Vec::new();
        reader.read_to_end(&mut out).expect("read");
        assert_eq!(out, bytes, "chunk {chunk}");
        assert_eq!(reader.position(), 1000);
        assert_eq!(reader.size(), 1000);
        assert_eq!(
            reader.chunks(),
            1000u64.div_ceil(u64::from(chunk)),
            "chunk {chunk}"
        );
    }
}

#[wasm_bindgen_test]
fn blob_reader_small_reads_cross_slice_boundaries() {
    let bytes = content(257);
    let mut reader = BlobReader::new(blob(&bytes), 10).expect("reader");
    let mut out = Vec::new();
    let mut buf = [0u8; 3];
    loop {
        let n = reader.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    assert_eq!(out, bytes);
    assert_eq!(reader.chunks(), 26);
}

#[wasm_bindgen_test]
fn empty_blob_reads_nothing() {
    let mut reader = BlobReader::new(blob(b""), 8).expect("reader");
    let mut out = Vec::new();
    assert_eq!(reader.read_to_end(&mut out).expect("read"), 0);
    assert_eq!(reader.chunks(), 0);
}

#[wasm_bindgen_test]
fn read_blob_info_summarizes_each_file_and_reports_progress() {
    let a = content(100);
    let b = content(33);
    let files = vec![
        NamedBlob {
            name: "rank0.json".into(),
            blob: blob(&a),
        },
        NamedBlob {
            name: "rank1.json".into(),
            blob: blob(&b),
        },
    ];
    let mut progress = Vec::new();
    let summaries = read_blob_info(&files, Some(16), &mut |done, total, stage| {
        progress.push((done, total, stage.to_string()))
    })
    .expect("read");
    assert_eq!(summaries.len(), 2);
    for (summary, bytes) in summaries.iter().zip([&a, &b]) {
        assert_eq!(summary.size_bytes, bytes.len() as u64);
        assert_eq!(summary.bytes_read, bytes.len() as u64);
        assert_eq!(
            summary.lines,
            bytes.iter().filter(|&&c| c == b'\n').count() as u64
        );
        assert_eq!(summary.fnv1a32, fnv1a32_update(FNV1A32_INIT, bytes));
        assert_eq!(summary.chunks, (bytes.len() as u64).div_ceil(16));
    }
    assert_eq!(summaries[0].name, "rank0.json");
    // One progress report per slice, increasing, ending at the total.
    assert_eq!(progress.len(), 7 + 3);
    assert!(progress.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(progress.last().map(|p| (p.0, p.1)), Some((133, 133)));
    assert_eq!(progress[0].2, "rank0.json");
    assert_eq!(progress[9].2, "rank1.json");
}

#[wasm_bindgen_test]
fn ping_is_answered_with_the_core_version() {
    let request = WorkerRequest {
        id: 42,
        body: RequestBody::Ping,
    };
    let responses = handle(to_js(&request).expect("encodes"));
    assert_eq!(
        responses,
        vec![WorkerResponse {
            id: 42,
            body: ResponseBody::Pong {
                core_version: shardscope_attribution::VERSION.to_string(),
                build: shardscope_web::protocol::BUILD_ID.to_string(),
            }
        }]
    );
}

#[wasm_bindgen_test]
fn read_blob_info_request_gets_progress_then_one_final_answer() {
    let bytes = content(50);
    let request = WorkerRequest {
        id: 7,
        body: RequestBody::ReadBlobInfo {
            files: vec![NamedBlob {
                name: "x.jsonl".into(),
                blob: blob(&bytes),
            }],
            chunk_bytes: Some(20),
        },
    };
    let responses = handle(to_js(&request).expect("encodes"));
    assert!(responses.iter().all(|r| r.id == 7));
    assert_eq!(responses.len(), 4, "{responses:?}");
    assert!(responses[..3].iter().all(|r| !r.body.is_final()));
    match &responses[3].body {
        ResponseBody::BlobInfo { files } => {
            assert_eq!(files.len(), 1);
            assert_eq!(files[0].bytes_read, 50);
            assert_eq!(files[0].chunks, 3);
        }
        other => panic!("expected BlobInfo, got {other:?}"),
    }
}

#[wasm_bindgen_test]
fn bad_requests_are_answered_with_errors() {
    let unknown = js_sys::JSON::parse(r#"{"id": 9, "body": {"Explode": 1}}"#).expect("json");
    let responses = handle(unknown);
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].id, 9);
    assert!(
        matches!(&responses[0].body, ResponseBody::Error { message } if message.contains("Explode")),
        "{responses:?}"
    );

    let responses = handle(JsValue::from_str("garbage"));
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].id, READY_ID);
    assert!(matches!(responses[0].body, ResponseBody::Error { .. }));

    let zero_chunk = WorkerRequest {
        id: 10,
        body: RequestBody::ReadBlobInfo {
            files: vec![NamedBlob {
                name: "x".into(),
                blob: blob(b"abc"),
            }],
            chunk_bytes: Some(0),
        },
    };
    let responses = handle(to_js(&zero_chunk).expect("encodes"));
    assert_eq!(responses.len(), 1);
    assert!(
        matches!(&responses[0].body, ResponseBody::Error { message } if message.contains("chunk_bytes")),
        "{responses:?}"
    );

    let not_a_blob = js_sys::JSON::parse(
        r#"{"id": 11, "body": {"ReadBlobInfo": {"files": [{"name": "n", "blob": "not a blob"}]}}}"#,
    )
    .expect("json");
    let responses = handle(not_a_blob);
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].id, 11);
    assert!(
        matches!(responses[0].body, ResponseBody::Error { .. }),
        "{responses:?}"
    );
}

fn named(name: &str, bytes: &[u8]) -> NamedBlob {
    NamedBlob {
        name: name.into(),
        blob: blob(bytes),
    }
}

/// Send `body`; the final answer must be a report.
fn analyzed(id: u32, body: RequestBody) -> (TraceReport, Vec<WorkerResponse>) {
    let responses = handle(to_js(&WorkerRequest { id, body }).unwrap());
    let last = responses.last().expect("a final answer");
    assert_eq!(last.id, id);
    let ResponseBody::Analyzed(report) = &last.body else {
        panic!("unexpected answer {:?}", last.body);
    };
    ((**report).clone(), responses)
}

/// Every row equals stormlog's result, field by field (`expected`: its JSON output).
fn assert_rows_are_stormlogs(rows: &[IntervalRow], expected: &str, what: &str) {
    let want: Vec<serde_json::Value> = serde_json::from_str(expected).unwrap();
    assert_eq!(rows.len(), want.len(), "{what}: row count");
    for (i, (row, w)) in rows.iter().zip(&want).enumerate() {
        let e = &w["evidence"];
        let at = format!("{what}, row {i}");
        assert_eq!(row.rank, w["rank"].as_i64().unwrap(), "{at}");
        assert_eq!(
            i128::from(row.interval_start_ns),
            w["interval_start_ns"].as_i64().unwrap().into(),
            "{at}"
        );
        assert_eq!(
            i128::from(row.interval_end_ns),
            w["interval_end_ns"].as_i64().unwrap().into(),
            "{at}"
        );
        assert_eq!(
            serde_json::to_value(row.classification).unwrap(),
            w["classification"],
            "{at}"
        );
        assert_eq!(
            row.confidence.to_bits(),
            w["confidence"].as_f64().unwrap().to_bits(),
            "{at}"
        );
        let reasons: Vec<&str> = w["reason_codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let codes: Vec<&str> = row.reason_codes.iter().map(|c| c.as_str()).collect();
        assert_eq!(codes, reasons, "{at}");
        assert_eq!(
            row.evidence.marker_hits,
            e["marker_hits"].as_u64().unwrap(),
            "{at}"
        );
        assert_eq!(
            row.evidence.synchronized_ranks,
            e["synchronized_ranks"].as_u64().unwrap(),
            "{at}"
        );
        assert_eq!(
            row.evidence.expected_world_size,
            e["expected_world_size"].as_i64().unwrap(),
            "{at}"
        );
        assert_eq!(
            row.evidence.synchrony_ratio.to_bits(),
            e["synchrony_ratio"].as_f64().unwrap().to_bits(),
            "{at}"
        );
        assert_eq!(
            row.evidence.peak_gap_bytes,
            e["peak_gap_bytes"].as_i64().unwrap(),
            "{at}"
        );
        assert_eq!(
            row.evidence.peak_gap_ratio.map(f64::to_bits),
            e["peak_gap_ratio"].as_f64().map(f64::to_bits),
            "{at}"
        );
        assert_eq!(
            row.evidence.robust_zscore.to_bits(),
            e["robust_zscore"].as_f64().unwrap().to_bits(),
            "{at}"
        );
    }
}

fn settings(preset: Preset) -> AnalyzeSettings {
    AnalyzeSettings {
        preset,
        ..AnalyzeSettings::default()
    }
}

/// The core runs in the worker on blobs streamed slice by slice, with stormlog's answer.
#[wasm_bindgen_test]
fn load_request_matches_stormlog_on_a_fixture() {
    let trace = include_bytes!("fixtures/attribution/traces/sync_markers_type.json");
    let (report, responses) = analyzed(
        11,
        RequestBody::Load {
            lanes_aligned: false,
            files: vec![named("sync_markers_type.json", trace)],
            settings: settings(Preset::Medium),
            parsed: Vec::new(),
        },
    );
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // stormlog 0.4.3's answer, every row and field.
    assert_rows_are_stormlogs(
        &report.rows,
        include_str!("fixtures/attribution/expected/sync_markers_type.medium.json"),
        "sync_markers_type medium",
    );
    assert_eq!(report.rows.len(), 4);
    let first = &report.rows[0];
    assert_eq!(first.rank, 0);
    assert_eq!(first.interval_start_ns, 1_700_000_001_880_000_000);
    assert_eq!(first.interval_end_ns, 1_700_000_002_130_000_000);
    assert_eq!(first.classification, Classification::CollectiveConfident);
    assert_eq!(first.confidence, 1.0);
    assert_eq!(first.evidence.peak_gap_bytes, 1_610_612_736);
    assert_eq!(first.evidence.peak_gap_ratio, Some(0.09375));
    assert_eq!(first.evidence.robust_zscore, 683.0136);
    assert_eq!(
        report.files,
        vec![("sync_markers_type.json".to_string(), trace.len() as u64)]
    );
    assert_eq!(report.ranks.len(), 4);
    assert!(report.trace_start_ns < report.trace_end_ns);
    assert!(responses[..responses.len() - 1]
        .iter()
        .all(|r| matches!(r.body, ResponseBody::Progress { .. })));
    assert!(
        responses.iter().any(
            |r| matches!(&r.body, ResponseBody::Progress { done_bytes, total_bytes, .. }
                if *done_bytes == trace.len() as u64 && *total_bytes == trace.len() as u64)
        ),
        "progress reaches the total"
    );
}

/// After a load the worker keeps the events: other settings re-attribute them, the
/// timeline and the exports are answered from them.
#[wasm_bindgen_test]
fn kept_dataset_answers_reattribution_windows_and_exports() {
    let trace = include_bytes!("fixtures/attribution/traces/preset_gap_thresholds.json");
    let expected = |preset: &str| -> &'static str {
        match preset {
            "low" => include_str!("fixtures/attribution/expected/preset_gap_thresholds.low.json"),
            "high" => include_str!("fixtures/attribution/expected/preset_gap_thresholds.high.json"),
            _ => include_str!("fixtures/attribution/expected/preset_gap_thresholds.medium.json"),
        }
    };
    let (loaded, _) = analyzed(
        20,
        RequestBody::Load {
            lanes_aligned: false,
            files: vec![named("preset_gap_thresholds.json", trace)],
            settings: settings(Preset::Medium),
            parsed: Vec::new(),
        },
    );
    assert_rows_are_stormlogs(&loaded.rows, expected("medium"), "load, medium");
    for preset in [Preset::Low, Preset::High] {
        let (again, responses) = analyzed(
            21,
            RequestBody::Reattribute {
                lanes_aligned: false,
                settings: settings(preset),
            },
        );
        let name = preset.as_str();
        assert_rows_are_stormlogs(&again.rows, expected(name), name);
        assert_eq!(again.parse_ms, 0.0, "nothing is read again");
        assert!(responses.iter().all(|r| !matches!(
            r.body,
            ResponseBody::Progress {
                stage: shardscope_web::protocol::Stage::Reading { .. },
                ..
            }
        )));
    }
    // A rejected override: the settings problem, no rows.
    let (rejected, _) = analyzed(
        22,
        RequestBody::Reattribute {
            lanes_aligned: false,
            settings: AnalyzeSettings {
                overrides: vec![(
                    "min_confidence".into(),
                    shardscope_attribution::attribution::OverrideValue::Float(1.5),
                )],
                ..settings(Preset::Medium)
            },
        },
    );
    assert!(rejected.settings_problem.is_some());

    let (start, end) = (loaded.trace_start_ns.unwrap(), loaded.trace_end_ns.unwrap());
    let query = WindowQuery {
        start_ns: start,
        end_ns: end + 1,
        columns: 64,
        ranks: None,
    };
    let responses = handle(
        to_js(&WorkerRequest {
            id: 23,
            body: RequestBody::Window { query },
        })
        .unwrap(),
    );
    let ResponseBody::Window(payload) = &responses.last().unwrap().body else {
        panic!("unexpected answer {:?}", responses.last());
    };
    let data = WindowData::from_bytes(&payload.window).expect("the worker packs whole windows");
    assert_eq!(data.columns, 64);
    assert_eq!(data.lanes.len(), loaded.ranks.len());
    for lane in &data.lanes {
        assert_eq!(lane.gap_max.len(), 64);
        let peak = lane.gap_max.iter().copied().fold(f32::MIN, f32::max);
        assert_eq!(peak as i64, lane.gap_peak_bytes, "rank {}", lane.rank);
    }

    let responses = handle(
        to_js(&WorkerRequest {
            id: 24,
            body: RequestBody::Export {
                format: ExportFormat::Json,
            },
        })
        .unwrap(),
    );
    let ResponseBody::Exported { text } = &responses.last().unwrap().body else {
        panic!("unexpected answer {:?}", responses.last());
    };
    // The last successful run (high) is what is exported: stormlog's result list.
    let exported: serde_json::Value = serde_json::from_str(text).unwrap();
    let want: serde_json::Value = serde_json::from_str(expected("high")).unwrap();
    assert_eq!(exported, want);
}

/// A bad file beside a good one: its error is reported, the good one is analysed.
#[wasm_bindgen_test]
fn load_request_keeps_good_files_beside_a_bad_one() {
    let good = include_bytes!("fixtures/attribution/traces/tui_per_rank_files/rank0_events.json");
    let (report, _) = analyzed(
        12,
        RequestBody::Load {
            lanes_aligned: false,
            files: vec![
                named("rank0_events.json", good),
                named("broken.json", b"[1, 2"),
            ],
            settings: settings(Preset::Medium),
            parsed: Vec::new(),
        },
    );
    assert_eq!(report.problems.len(), 1);
    assert_eq!(report.problems[0].file.as_deref(), Some("broken.json"));
    assert!(
        report.problems[0]
            .describe()
            .contains("Expecting ',' delimiter"),
        "{}",
        report.problems[0].describe()
    );
    assert!(report.events > 0, "the good file was loaded");
}

//! wasm-bindgen tests run in headless Chromium's main thread (see the Makefile):
//! the protocol's JavaScript shape and round trips, a core call, and the mounted app.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions
#![cfg(target_arch = "wasm32")]
// Tests may panic on the unexpected: that is how they fail.

use js_sys::{Array, Reflect, Uint8Array};
use shardscope_session::permalink::{Link, View};
use shardscope_web::protocol::{
    from_js, peek_id, to_js, BlobSummary, NamedBlob, RequestBody, ResponseBody, Stage,
    WorkerRequest, WorkerResponse, READY_ID,
};
use shardscope_web::web_error::WebError;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Blob, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

fn blob(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("blob")
}

fn get(value: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(value.clone(), |v, key| {
        Reflect::get(&v, &JsValue::from_str(key)).expect("property")
    })
}

/// What `postMessage` does to a message: the structured clone algorithm.
fn structured_clone(value: &JsValue) -> JsValue {
    let global = js_sys::global();
    let clone: js_sys::Function = Reflect::get(&global, &"structuredClone".into())
        .expect("structuredClone")
        .dyn_into()
        .expect("function");
    clone.call1(&global, value).expect("clonable")
}

#[wasm_bindgen_test]
fn requests_round_trip_through_structured_clone() {
    let file = blob(b"line one\nline two\n");
    let requests = [
        WorkerRequest {
            id: 1,
            body: RequestBody::Ping,
        },
        WorkerRequest {
            id: u32::MAX,
            body: RequestBody::ReadBlobInfo {
                files: vec![NamedBlob {
                    name: "rank0.json".into(),
                    blob: file.clone(),
                }],
                chunk_bytes: Some(7),
            },
        },
        WorkerRequest {
            id: 3,
            body: RequestBody::ReadBlobInfo {
                files: vec![],
                chunk_bytes: None,
            },
        },
    ];
    for request in requests {
        let js = to_js(&request).expect("encodes");
        assert_eq!(peek_id(&js), request.id);
        let cloned = structured_clone(&js);
        let back: WorkerRequest = from_js(cloned).expect("decodes");
        match (&request.body, &back.body) {
            (
                RequestBody::ReadBlobInfo {
                    files: a,
                    chunk_bytes: ca,
                },
                RequestBody::ReadBlobInfo {
                    files: b,
                    chunk_bytes: cb,
                },
            ) => {
                assert_eq!(ca, cb);
                assert_eq!(a.len(), b.len());
                for (a, b) in a.iter().zip(b) {
                    assert_eq!(a.name, b.name);
                    // A clone is a different object with the same content.
                    assert_eq!(a.blob.size(), b.blob.size());
                }
            }
            _ => assert_eq!(request, back),
        }
    }
}

#[wasm_bindgen_test]
fn blobs_pass_through_unchanged_without_clone() {
    let file = blob(b"abc");
    let request = WorkerRequest {
        id: 5,
        body: RequestBody::ReadBlobInfo {
            files: vec![NamedBlob {
                name: "a".into(),
                blob: file.clone(),
            }],
            chunk_bytes: None,
        },
    };
    let js = to_js(&request).expect("encodes");
    let inner = get(&js, &["body", "ReadBlobInfo", "files"]);
    let first = Reflect::get_u32(&inner, 0).expect("first file");
    assert!(
        JsValue::from(file.clone()) == get(&first, &["blob"]),
        "the Blob object itself is sent"
    );
    let back: WorkerRequest = from_js(js).expect("decodes");
    assert_eq!(request, back);
}

#[wasm_bindgen_test]
fn responses_round_trip_and_keep_64_bit_integers_exact() {
    let big = (1u64 << 60) + 3; // beyond 2^53: must not pass through a JS number
    let responses = [
        WorkerResponse {
            id: READY_ID,
            body: ResponseBody::Ready {
                core_version: "9.8.7".into(),
                build: "0123456789abcdef".into(),
            },
        },
        WorkerResponse {
            id: 2,
            body: ResponseBody::Pong {
                core_version: shardscope_attribution::VERSION.into(),
                build: shardscope_web::protocol::BUILD_ID.into(),
            },
        },
        WorkerResponse {
            id: 2,
            body: ResponseBody::Progress {
                done_bytes: big,
                total_bytes: u64::MAX,
                stage: Stage::Reading {
                    file: "r.json".into(),
                },
            },
        },
        WorkerResponse {
            id: 4,
            body: ResponseBody::BlobInfo {
                files: vec![BlobSummary {
                    name: "r.json".into(),
                    size_bytes: big,
                    bytes_read: big,
                    chunks: 2,
                    lines: 0,
                    fnv1a32: u32::MAX,
                }],
            },
        },
        WorkerResponse {
            id: 4,
            body: ResponseBody::Error {
                message: "r.json: line 3: bad".into(),
            },
        },
    ];
    for response in responses {
        let js = structured_clone(&to_js(&response).expect("encodes"));
        let back: WorkerResponse = from_js(js).expect("decodes");
        assert_eq!(response, back);
    }
    let js = to_js(&WorkerResponse {
        id: 1,
        body: ResponseBody::Progress {
            done_bytes: big,
            total_bytes: 1,
            stage: Stage::Attributing,
        },
    })
    .expect("encodes");
    let done = get(&js, &["body", "Progress", "done_bytes"]);
    assert!(done.is_bigint(), "u64 travels as BigInt");
    assert_eq!(
        js_sys::BigInt::from(done).to_string(10).expect("decimal"),
        big.to_string()
    );
}

#[wasm_bindgen_test]
fn messages_written_in_javascript_decode() {
    let ping = js_sys::JSON::parse(r#"{"id": 3, "body": "Ping"}"#).expect("json");
    assert_eq!(
        from_js::<WorkerRequest>(ping),
        Ok(WorkerRequest {
            id: 3,
            body: RequestBody::Ping
        })
    );
    let unknown = js_sys::JSON::parse(r#"{"id": 4, "body": "Explode"}"#).expect("json");
    assert_eq!(peek_id(&unknown), 4);
    let err = from_js::<WorkerRequest>(unknown).expect_err("unknown request");
    assert!(
        matches!(&err, WebError::Message { action: "decode", detail } if detail.contains("Explode")),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("could not decode message: "),
        "{err}"
    );
    for bad in [r#""hello""#, r#"{"id": -1}"#, r#"{"id": 1.5}"#, "null"] {
        let value = js_sys::JSON::parse(bad).expect("json");
        assert_eq!(peek_id(&value), READY_ID, "{bad}");
        assert!(from_js::<WorkerRequest>(value).is_err(), "{bad}");
    }
}

#[wasm_bindgen_test]
fn only_progress_is_not_final() {
    assert!(!ResponseBody::Progress {
        done_bytes: 0,
        total_bytes: 0,
        stage: Stage::Indexing
    }
    .is_final());
    assert!(ResponseBody::Error {
        message: String::new()
    }
    .is_final());
    assert!(ResponseBody::BlobInfo { files: vec![] }.is_final());
}

#[wasm_bindgen_test]
fn core_arithmetic_runs_in_wasm() {
    // Python's round() on the exact binary value: 2.675 is 2.67499999... in binary.
    assert_eq!(shardscope_text::py::py_round(2.675, 2), 2.67);
    assert_eq!(shardscope_text::py::py_round(0.5, 0), 0.0);
    assert_eq!(shardscope_text::py::py_round(2.5, 0), 2.0);
    assert_eq!(shardscope_text::py::py_round(0.09375, 6), 0.09375);
    assert!(!shardscope_attribution::VERSION.is_empty());
}

#[wasm_bindgen_test]
fn blob_reader_needs_a_worker() {
    let err = shardscope_web::blob::BlobReader::new(blob(b"x"), 4)
        .err()
        .expect("FileReaderSync does not exist on the main thread");
    assert!(err.to_string().contains("worker"), "{err}");
}

#[wasm_bindgen_test]
fn permalinks_round_trip() {
    assert_eq!(Link::parse("").0.view, View::Trace);
    assert_eq!(Link::parse("#v=1&view=explore").0.view, View::Explore);
    let (link, dropped) = Link::parse("#v=1&x=1&view=explore");
    assert_eq!(link.view, View::Explore);
    assert_eq!(dropped.len(), 1, "the unknown key is reported");
    for view in View::ALL {
        let link = Link {
            view,
            ..Link::default()
        };
        assert_eq!(Link::parse(&link.fragment()).0, link);
    }
}

#[wasm_bindgen_test]
fn hidpi_canvas_is_scaled_by_device_pixel_ratio() {
    let document = web_sys::window()
        .expect("window")
        .document()
        .expect("document");
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .expect("canvas")
        .dyn_into()
        .expect("canvas element");
    canvas
        .set_attribute("style", "width: 300px; height: 120px; display: block")
        .expect("style");
    document
        .body()
        .expect("body")
        .append_child(&canvas)
        .expect("attached");
    let prepared = shardscope_web::app::canvas::prepare_hidpi(&canvas).expect("2d canvas");
    let dpr = web_sys::window().expect("window").device_pixel_ratio();
    assert_eq!(prepared.width, 300.0);
    assert_eq!(prepared.height, 120.0);
    assert_eq!(prepared.scale, dpr);
    assert_eq!(canvas.width(), (300.0 * dpr).round() as u32);
    assert_eq!(canvas.height(), (120.0 * dpr).round() as u32);
    canvas.remove();
}

fn by_testid(testid: &str) -> Option<HtmlElement> {
    web_sys::window()?
        .document()?
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .ok()??
        .dyn_into()
        .ok()
}

/// Let the reactive system and event loop run.
async fn tick() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 10)
            .expect("timer");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("timer fired");
}

async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    for _ in 0..300 {
        if condition() {
            return;
        }
        tick().await;
    }
    panic!("timed out waiting for {what}");
}

#[wasm_bindgen_test]
async fn app_mounts_switches_views_and_reports_a_missing_worker() {
    // The test server has no worker_loader.js: the page must say so, not hang.
    shardscope_web::app::start();
    let attr = |id: &str, name: &str| by_testid(id).and_then(|e| e.get_attribute(name));

    for id in [
        "view-trace",
        "view-explore",
        "trace-drop-zone",
        "trace-file-input",
        "trace-folder-input",
        "load-example",
        "preset-select",
        "phases-toggle",
        "rank-filter-input",
        "override-min_confidence",
        "export-json",
        "trace-status",
        "trace-progress",
        "explore-status",
        "worker-status",
        "permalink",
    ] {
        // The views are built in parts, a task each (`app::tasks::Later`).
        wait_for(&format!("data-testid={id}"), || by_testid(id).is_some()).await;
    }
    assert_eq!(attr("view-trace", "aria-selected").as_deref(), Some("true"));
    assert_eq!(attr("trace-status", "data-state").as_deref(), Some("idle"));
    assert_eq!(
        attr("explore-status", "data-state").as_deref(),
        Some("idle")
    );
    let input = by_testid("trace-file-input").expect("input");
    assert_eq!(input.get_attribute("type").as_deref(), Some("file"));
    assert!(input.has_attribute("multiple"));
    assert!(by_testid("trace-drop-zone")
        .expect("zone")
        .contains(Some(&input)));
    let folder = by_testid("trace-folder-input").expect("folder input");
    wait_for("the folder picker to take folders", || {
        folder.has_attribute("webkitdirectory")
    })
    .await;
    assert!(by_testid("trace-drop-zone")
        .expect("zone")
        .contains(Some(&folder)));
    // Progress and Cancel live in a row that is hidden while nothing runs.
    let progress = by_testid("trace-progress").expect("progress");
    assert!(progress
        .parent_element()
        .and_then(|p| p.dyn_into::<HtmlElement>().ok())
        .expect("row")
        .hidden());
    assert_eq!(
        attr("override-min_confidence", "placeholder").as_deref(),
        Some("0.5"),
        "the medium preset's value"
    );

    by_testid("view-explore").expect("tab").click();
    wait_for("the explore view", || {
        attr("view-explore", "aria-selected").as_deref() == Some("true")
    })
    .await;
    let document = web_sys::window()
        .expect("window")
        .document()
        .expect("document");
    let panel = |id: &str| -> HtmlElement {
        document
            .get_element_by_id(id)
            .expect("panel")
            .dyn_into()
            .expect("html")
    };
    assert!(!panel("panel-explore").hidden());
    assert!(panel("panel-trace").hidden());
    wait_for("the permalink to follow the view", || {
        attr("permalink", "href")
            .unwrap_or_default()
            .contains("view=explore")
    })
    .await;

    wait_for("the worker failure to be shown", || {
        attr("worker-status", "data-state").as_deref() == Some("error")
    })
    .await;
    let text = by_testid("worker-status")
        .and_then(|e| e.text_content())
        .unwrap_or_default();
    assert!(text.contains("worker"), "{text}");
}

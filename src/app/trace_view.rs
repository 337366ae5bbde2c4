//! The trace view: drop or pick stormlog traces (or load the bundled example); the worker
//! reads them. Attribution results, the timeline and exports come with the next issues.

use leptos::ev::{DragEvent, Event};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, FileList, HtmlInputElement};

use super::state::{AppState, Phase, Problem, TraceState};
use super::worker_client::WorkerClient;
use super::{format_bytes, now_ms};
use crate::protocol::{NamedBlob, RequestBody, ResponseBody};

/// The bundled example, copied into `dist/examples/` by Trunk.
pub const EXAMPLE_URL: &str = "./examples/example-8-ranks.json";
const EXAMPLE_NAME: &str = "example-8-ranks.json";

/// Send `files` to the worker and track the load in `state.trace`.
pub fn load_files(
    state: AppState,
    client: StoredValue<WorkerClient, LocalStorage>,
    files: Vec<NamedBlob>,
) {
    let trace = state.trace;
    if files.is_empty() {
        trace.fail(vec![Problem {
            file: None,
            message: "No files were selected. Drop stormlog trace files (.json, .jsonl, .gz) or choose them with the button.".into(),
        }]);
        return;
    }
    let total: u64 = files.iter().map(|f| f.blob.size().max(0.0) as u64).sum();
    let generation = trace.begin(total, "sending files to the worker");
    run_read(trace, client, files, generation);
}

fn run_read(
    trace: TraceState,
    client: StoredValue<WorkerClient, LocalStorage>,
    files: Vec<NamedBlob>,
    generation: u64,
) {
    let started = now_ms();
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let body = RequestBody::ReadBlobInfo {
        files,
        chunk_bytes: None,
    };
    client.with_value(|client| {
        client.request(body, move |response| {
            if !trace.is_current(generation) {
                return;
            }
            match response {
                ResponseBody::Progress {
                    done_bytes,
                    total_bytes,
                    stage,
                } => trace.progress.set(super::state::Progress {
                    done_bytes,
                    total_bytes,
                    stage,
                }),
                ResponseBody::BlobInfo { files } => {
                    trace.elapsed_ms.set(now_ms() - started);
                    trace.files.set(files);
                    trace.phase.set(Phase::Done);
                }
                ResponseBody::Error { message } => {
                    let file = names
                        .iter()
                        .find(|n| message.starts_with(n.as_str()))
                        .cloned();
                    trace.fail(vec![Problem { file, message }]);
                }
                other => trace.fail(vec![Problem {
                    file: None,
                    message: format!("The worker gave an unexpected answer: {other:?}"),
                }]),
            }
        });
    });
}

/// Every file of a `FileList`, as worker-ready blobs.
fn named_blobs(list: Option<FileList>) -> Vec<NamedBlob> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|file| NamedBlob {
            name: file.name(),
            blob: file.into(),
        })
        .collect()
}

/// Fetch the bundled example and load it.
async fn load_example(state: AppState, client: StoredValue<WorkerClient, LocalStorage>) {
    let trace = state.trace;
    let generation = trace.begin(0, "downloading the example");
    match fetch_blob(EXAMPLE_URL).await {
        Ok(blob) if trace.is_current(generation) => {
            trace
                .progress
                .update(|p| p.total_bytes = blob.size().max(0.0) as u64);
            let files = vec![NamedBlob {
                name: EXAMPLE_NAME.to_string(),
                blob,
            }];
            run_read(trace, client, files, generation);
        }
        Ok(_) => {}
        Err(message) => {
            if trace.is_current(generation) {
                trace.fail(vec![Problem {
                    file: Some(EXAMPLE_NAME.to_string()),
                    message: format!("{EXAMPLE_NAME}: the example could not be loaded: {message}"),
                }]);
            }
        }
    }
}

async fn fetch_blob(url: &str) -> Result<Blob, String> {
    let window = web_sys::window().ok_or("no window")?;
    let text = |e: wasm_bindgen::JsValue| crate::worker::js_error_text(&e);
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(text)?
        .dyn_into()
        .map_err(|_| "unexpected fetch result".to_string())?;
    if !response.ok() {
        return Err(format!("HTTP {} for {url}", response.status()));
    }
    let blob = JsFuture::from(response.blob().map_err(text)?)
        .await
        .map_err(text)?;
    blob.dyn_into::<Blob>()
        .map_err(|_| "unexpected response body".to_string())
}

#[component]
pub fn TraceView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let client = expect_context::<StoredValue<WorkerClient, LocalStorage>>();
    let trace = state.trace;
    let dragging = RwSignal::new(false);

    let on_pick = move |ev: Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
        else {
            return;
        };
        let files = named_blobs(input.files());
        // Let the same file be picked again later.
        input.set_value("");
        if !files.is_empty() {
            load_files(state, client, files);
        }
    };
    let on_drag_over = move |ev: DragEvent| {
        ev.prevent_default();
        if let Some(dt) = ev.data_transfer() {
            dt.set_drop_effect("copy");
        }
        dragging.set(true);
    };
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let files = named_blobs(ev.data_transfer().and_then(|dt| dt.files()));
        load_files(state, client, files);
    };
    let on_example = move |_| {
        leptos::task::spawn_local(load_example(state, client));
    };

    let loading = move || trace.phase.get() == Phase::Loading;
    let bytes_read = move || {
        let total: u64 = trace.files.get().iter().map(|f| f.bytes_read).sum();
        total.to_string()
    };
    let status_text = move || match trace.phase.get() {
        Phase::Idle => "No trace loaded yet.".to_string(),
        Phase::Loading => {
            let p = trace.progress.get();
            format!(
                "Working: {} ({} of {}).",
                p.stage,
                format_bytes(p.done_bytes),
                format_bytes(p.total_bytes)
            )
        }
        Phase::Done => {
            let files = trace.files.get();
            let bytes: u64 = files.iter().map(|f| f.bytes_read).sum();
            format!(
                "Read {} file{} ({}) in the worker in {:.0} ms. Attribution arrives with the next version.",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                format_bytes(bytes),
                trace.elapsed_ms.get()
            )
        }
        Phase::Error => "The trace could not be loaded; see below.".to_string(),
    };

    view! {
        <section class="panel-intro">
            <h2>"Which memory spikes were caused by collective communication?"</h2>
            <p>
                "Drop the telemetry traces that stormlog recorded for each rank. They are read and "
                "analysed in a background worker, in this browser: nothing is uploaded."
            </p>
        </section>
        <div class="trace-inputs">
            <div
                class="drop-zone"
                class:dragging=move || dragging.get()
                data-testid="trace-drop-zone"
                on:dragenter=on_drag_over
                on:dragover=on_drag_over
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <p class="drop-title">"Drop trace files here"</p>
                <p class="hint">"stormlog .json, .jsonl or .gz exports, one per rank or a telemetry-sink folder's files"</p>
                <label class="button primary file-button">
                    "Choose files…"
                    <input
                        type="file"
                        multiple
                        class="visually-hidden"
                        data-testid="trace-file-input"
                        aria-label="Choose trace files"
                        on:change=on_pick
                    />
                </label>
            </div>
            <div class="example">
                <p>"No trace at hand?"</p>
                <button type="button" class="button" data-testid="load-example" on:click=on_example>
                    "Load the example (8 ranks)"
                </button>
            </div>
        </div>
        <div
            class="status"
            data-testid="trace-status"
            role="status"
            aria-live="polite"
            data-state=move || trace.phase.get().as_str()
            data-files=move || trace.files.get().len().to_string()
            data-bytes=bytes_read
        >
            {status_text}
        </div>
        <progress
            data-testid="trace-progress"
            aria-label="Trace loading progress"
            hidden=move || !loading()
            max=move || trace.progress.get().total_bytes.max(1).to_string()
            value=move || trace.progress.get().done_bytes.to_string()
        ></progress>
        <ul class="problems">
            <For
                each=move || trace.problems.get().into_iter().enumerate()
                key=|(i, p)| (*i, p.message.clone())
                let((_, problem))
            >
                <li class="problem" role="alert" data-testid="trace-error" data-file=problem.file.clone().unwrap_or_default()>
                    {problem.message.clone()}
                </li>
            </For>
        </ul>
        <Show when=move || !trace.files.get().is_empty()>
            <table class="file-table">
                <caption>"Files read by the worker"</caption>
                <thead>
                    <tr>
                        <th scope="col">"File"</th>
                        <th scope="col" class="num">"Size"</th>
                        <th scope="col" class="num">"Lines"</th>
                        <th scope="col" class="num">"Slices"</th>
                    </tr>
                </thead>
                <tbody>
                    <For each=move || trace.files.get().into_iter().enumerate() key=|(i, f)| (*i, f.name.clone()) let((_, file))>
                        <tr>
                            <td>{file.name.clone()}</td>
                            <td class="num">{format_bytes(file.bytes_read)}</td>
                            <td class="num">{file.lines}</td>
                            <td class="num">{file.chunks}</td>
                        </tr>
                    </For>
                </tbody>
            </table>
        </Show>
    }
}

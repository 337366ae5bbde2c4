//! The trace view: drop or pick stormlog traces (or load the bundled example); the worker
//! loads them and runs stormlog's collective attribution, and the intervals are listed.
//! The timeline, settings and exports come with the next issues.

use leptos::ev::{DragEvent, Event};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, FileList, HtmlInputElement};

use super::state::{AppState, Phase, Problem, TraceState};
use super::worker_client::WorkerClient;
use super::{format_bytes, now_ms};
use crate::protocol::{AttributeSettings, FileProblem, NamedBlob, RequestBody, ResponseBody};

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
    run_attribution(trace, client, files, generation);
}

/// The problems of a report, as shown under the drop zone.
fn problems_of(list: &[FileProblem]) -> Vec<Problem> {
    list.iter()
        .map(|p| Problem {
            file: (!p.file.is_empty()).then(|| p.file.clone()),
            message: p.message.clone(),
        })
        .collect()
}

fn run_attribution(
    trace: TraceState,
    client: StoredValue<WorkerClient, LocalStorage>,
    files: Vec<NamedBlob>,
    generation: u64,
) {
    let started = now_ms();
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let body = RequestBody::Attribute {
        files,
        settings: AttributeSettings::default(),
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
                ResponseBody::Attributed(report) => {
                    trace.elapsed_ms.set(now_ms() - started);
                    let problems = problems_of(&report.problems);
                    // Nothing loaded at all: an error; otherwise results, with any
                    // problems of single files listed beside them.
                    let nothing = report.sessions.is_empty() && !problems.is_empty();
                    trace.problems.set(problems);
                    trace.report.set(Some(report));
                    trace
                        .phase
                        .set(if nothing { Phase::Error } else { Phase::Done });
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
            run_attribution(trace, client, files, generation);
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
    let report_attr = move |f: fn(&crate::protocol::AttributionReport) -> String| {
        move || trace.report.get().as_ref().map(f)
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
        Phase::Done => match trace.report.get() {
            Some(r) => {
                let bytes: u64 = r.files.iter().map(|(_, size)| size).sum();
                format!(
                    "Analysed {} events from {} file{} ({}): parsed in {:.0} ms, attributed in {:.0} ms{}.",
                    r.events,
                    r.files.len(),
                    if r.files.len() == 1 { "" } else { "s" },
                    format_bytes(bytes),
                    r.parse_ms,
                    r.attribute_ms,
                    match &r.selected_session {
                        Some(id) if r.sessions.len() > 1 => format!(" (session {id} of {})", r.sessions.len()),
                        _ => String::new(),
                    }
                )
            }
            None => "Done.".to_string(),
        },
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
            data-files=report_attr(|r| r.files.len().to_string())
            data-bytes=report_attr(|r| r.files.iter().map(|(_, s)| s).sum::<u64>().to_string())
            data-events=report_attr(|r| r.events.to_string())
            data-parse-ms=report_attr(|r| format!("{:.1}", r.parse_ms))
            data-attribute-ms=report_attr(|r| format!("{:.1}", r.attribute_ms))
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
        <Show when=move || trace.report.get().is_some()>
            <Results />
        </Show>
    }
}

/// The attributed intervals of the last load, one row each.
#[component]
fn Results() -> impl IntoView {
    let trace = expect_context::<AppState>().trace;
    let rows = move || trace.report.get().map(|r| r.rows).unwrap_or_default();
    let count = move || rows().len();
    view! {
        <section class="results" aria-labelledby="results-title">
            <h3 id="results-title">
                <span data-testid="attribution-count">{count}</span>
                {move || if count() == 1 { " interval attributed to collective communication" } else { " intervals attributed to collective communication" }}
            </h3>
            <Show
                when=move || { count() > 0 }
                fallback=|| view! { <p class="hint">"No memory spike in this trace is attributed to collective communication with these settings."</p> }
            >
                <div class="table-scroll">
                    <table class="results-table">
                        <thead>
                            <tr>
                                <th scope="col" class="num">"Rank"</th>
                                <th scope="col" class="num">"Start (s)"</th>
                                <th scope="col" class="num">"Duration (ms)"</th>
                                <th scope="col">"Classification"</th>
                                <th scope="col" class="num">"Confidence"</th>
                                <th scope="col" class="num">"Peak gap"</th>
                                <th scope="col" class="num">"Ranks in sync"</th>
                                <th scope="col" class="num">"Markers"</th>
                                <th scope="col">"Reasons"</th>
                            </tr>
                        </thead>
                        // Thousands of intervals are normal for long runs: the rows are
                        // written as one HTML string (values are numbers and the core's
                        // fixed names, escaped anyway) instead of one reactive node each.
                        <tbody inner_html=move || rows_html(&trace)></tbody>
                    </table>
                </div>
            </Show>
        </section>
    }
}

/// Minimal HTML escaping for text and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The `<tr>`s of the results table (with the `attribution-row` test hooks).
fn rows_html(trace: &TraceState) -> String {
    use std::fmt::Write;
    let Some(report) = trace.report.get() else {
        return String::new();
    };
    let t0 = report.trace_start_ns.unwrap_or(0);
    let mut html = String::with_capacity(report.rows.len() * 600);
    for r in &report.rows {
        let start_s = (r.interval_start_ns - t0) as f64 / 1e9;
        let duration_ms = (r.interval_end_ns - r.interval_start_ns) as f64 / 1e6;
        let class = escape(&r.classification);
        let label = escape(r.classification.trim_start_matches("collective_"));
        let _ = write!(
            html,
            "<tr data-testid=\"attribution-row\" data-rank=\"{rank}\" data-start-ns=\"{start}\" \
             data-end-ns=\"{end}\" data-classification=\"{class}\" data-confidence=\"{conf}\">\
             <td class=\"num\">{rank}</td><td class=\"num\">{start_s:.3}</td>\
             <td class=\"num\">{duration_ms:.0}</td>\
             <td><span class=\"badge {class}\">{label}</span></td>\
             <td class=\"num\">{conf_text:.3}</td><td class=\"num\">{gap}</td>\
             <td class=\"num\">{sync}/{world}</td><td class=\"num\">{markers}</td>\
             <td class=\"reasons\">{reasons}</td></tr>",
            rank = r.rank,
            start = r.interval_start_ns,
            end = r.interval_end_ns,
            conf = r.confidence,
            conf_text = r.confidence,
            gap = escape(&format_bytes(r.peak_gap_bytes.max(0) as u64)),
            sync = r.synchronized_ranks,
            world = r.expected_world_size,
            markers = r.marker_hits,
            reasons = escape(&r.reason_codes.join(", ")),
        );
    }
    html
}

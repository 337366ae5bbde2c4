//! The trace view's left column, but for its settings card
//! ([`super::attribution_settings`]): where the traces come from (drop zone, pickers,
//! example), the run's status and problems, and the exports.

use leptos::ev::Event;
use leptos::html;
use leptos::prelude::*;
use shardscope_trace::trace::LoadWarning;
use shardscope_view::format::format_file_size;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::super::download::save_page_canvas_png;
use super::super::state::{AppState, Phase, Problem, RunSlot, TraceState};
use super::super::workers::WorkersHandle;
use super::input::{fetch_example, named_blobs};
use super::jobs::{cancel, export, export_perfetto, load_files};
use super::EXAMPLE_NAME;
use crate::protocol::{ExportFormat, NamedBlob, TraceReport};
use shardscope_view::trace_status::{progress_fraction, progress_text, warnings_title, RunSummary};

/// The input element an event came from.
fn event_input(ev: &Event) -> Option<HtmlInputElement> {
    ev.target()?.dyn_into::<HtmlInputElement>().ok()
}

/// The files of a picker, then the picker emptied (so picking the same files again is
/// a change too).
pub(super) fn take_picked(ev: &Event) -> Vec<NamedBlob> {
    let Some(input) = event_input(ev) else {
        return Vec::new();
    };
    let files = named_blobs(input.files());
    input.set_value("");
    files
}

/// Where the traces come from: the drop target with the pickers and the example.
#[component]
pub fn TraceInput(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let file_ref = NodeRef::<html::Input>::new();
    let folder_ref = NodeRef::<html::Input>::new();

    let on_files = move |ev: Event| load_files(state, workers, take_picked(&ev));
    let on_example = move |_| {
        leptos::task::spawn_local(async move {
            match fetch_example().await {
                Ok(blob) => load_files(
                    state,
                    workers,
                    vec![NamedBlob {
                        name: EXAMPLE_NAME.to_string(),
                        blob,
                    }],
                ),
                Err(e) => {
                    trace.run.problems.set(vec![Problem {
                        file: Some(EXAMPLE_NAME.to_string()),
                        message: format!("The bundled example could not be fetched: {e}"),
                        hint: Some(
                            "Serve the built dist/ folder over HTTP (make serve).".to_string(),
                        ),
                    }]);
                    trace.run.phase.set(Phase::Error);
                }
            }
        });
    };
    let open = move |node: NodeRef<html::Input>| {
        move |_| {
            if let Some(input) = node.get() {
                input.click();
            }
        }
    };
    let files = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().map(|r| r.files.clone()))
            .unwrap_or_default()
    };
    let wanted = move || trace.run.wanted_files.get();
    // Not an attribute Leptos knows by name.
    Effect::new(move |_| {
        if let Some(input) = folder_ref.get() {
            // Setting an attribute on a live element cannot fail.
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });

    view! {
        <section class="card drop-card" data-testid="trace-drop-zone" aria-labelledby="input-title">
            <h2 id="input-title">"Traces"</h2>
            <p class="muted small">
                "Drop stormlog files or folders anywhere on this page: per-rank JSON/JSONL/CSV \
                 exports, gzip, a telemetry sink folder, telemetry_timeline.json, or a zip, tar \
                 or tar.gz of them. They are read here, never uploaded."
            </p>
            <div class="button-row">
                <button type="button" class="button primary" on:click=open(file_ref)>
                    "Choose files…"
                </button>
                <button type="button" class="button" on:click=open(folder_ref)>
                    "Choose folder…"
                </button>
                <button type="button" class="button" data-testid="load-example" on:click=on_example>
                    "Load example"
                </button>
            </div>
            <label class="visually-hidden" for="trace-file-input">"Trace files"</label>
            <input
                id="trace-file-input"
                class="visually-hidden"
                type="file"
                multiple
                accept=".json,.jsonl,.csv,.gz,.zip,.tar,.tgz,application/json,text/csv,application/zip,application/x-tar,application/gzip"
                data-testid="trace-file-input"
                aria-label="Choose trace files"
                tabindex="-1"
                node_ref=file_ref
                on:change=on_files
            />
            <label class="visually-hidden" for="trace-folder-input">"Trace folder"</label>
            <input
                id="trace-folder-input"
                class="visually-hidden"
                type="file"
                multiple
                data-testid="trace-folder-input"
                aria-label="Choose a trace folder"
                tabindex="-1"
                node_ref=folder_ref
                on:change=on_files
            />
            <Show when=move || !wanted().is_empty() && files().is_empty()>
                <p class="notice small" role="note">
                    "This link was made for "
                    <strong>{move || wanted().join(", ")}</strong>
                    ". Drop those files to see the same view: the settings are already set."
                </p>
                <super::recent::RecentOffer state wanted=Signal::derive(wanted) />
            </Show>
            <LoadedFiles files=Signal::derive(files) />
        </section>
    }
}

/// The loaded files (name and size), folded under their count and total size.
#[component]
fn LoadedFiles(files: Signal<Vec<(String, u64)>>) -> impl IntoView {
    view! {
        <Show when=move || !files.with(Vec::is_empty)>
            <details class="file-list">
                <summary>
                    {move || {
                        let f = files.get();
                        let bytes: u64 = f.iter().map(|(_, b)| *b).sum();
                        format!(
                            "{} file{} loaded · {}",
                            f.len(),
                            if f.len() == 1 { "" } else { "s" },
                            format_file_size(bytes),
                        )
                    }}
                </summary>
                <ul>
                    {move || {
                        files
                            .get()
                            .into_iter()
                            .map(|(name, bytes)| {
                                view! {
                                    <li>
                                        <span class="file-name">{name}</span>
                                        <span class="muted">{format_file_size(bytes)}</span>
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </details>
        </Show>
    }
}

/// `trace-status`, the progress bar, Cancel, and the problems and warnings.
#[component]
pub fn TraceStatus(state: AppState) -> impl IntoView {
    let trace = state.trace;
    view! {
        <section class="card status-card" aria-label="Status">
            <StatusLine trace />
            <ProgressRow state />
            <ProblemList problems=trace.run.problems />
            <WarningList warnings=Signal::derive(move || trace.warnings()) />
        </section>
    }
}

/// The one-line status (`trace-status`) with the finished run's figures as attributes.
#[component]
fn StatusLine(trace: TraceState) -> impl IntoView {
    let report = trace.run.report;
    let attr = move |f: fn(&TraceReport) -> String| {
        move || {
            (trace.run.phase.get() == Phase::Done)
                .then(|| report.with(|r| r.as_ref().map(|r| f(r))))
                .flatten()
        }
    };
    let text = move || match trace.run.phase.get() {
        Phase::Idle => "No traces loaded yet.".to_string(),
        Phase::Loading => {
            let p = trace.run.progress.get();
            progress_text(&p.stage, p.done_bytes, p.total_bytes)
        }
        Phase::Done => report.with(|r| match r {
            Some(r) => RunSummary {
                events: r.events,
                files: r.files.len(),
                intervals: r.rows.len(),
                parse_ms: r.parse_ms,
                attribute_ms: r.attribute_ms,
                aligned: r.align_clocks,
            }
            .text(),
            None => "Done.".to_string(),
        }),
        Phase::Error if report.with(Option::is_some) => {
            "The last run failed; the previous results are still shown.".to_string()
        }
        Phase::Error => "Nothing could be analysed.".to_string(),
    };
    view! {
        <p
            class="trace-status"
            data-testid="trace-status"
            role="status"
            aria-live="polite"
            data-state=move || trace.run.phase.get().as_str()
            data-events=attr(|r| r.events.to_string())
            data-parse-ms=attr(|r| format!("{:.1}", r.parse_ms))
            data-read-ms=attr(|r| format!("{:.1}", r.read_ms))
            data-parse-path=attr(|r| if r.stitched_files > 0 { "ranges" } else { "stream" }.to_string())
            data-attribute-ms=attr(|r| format!("{:.1}", r.attribute_ms))
            data-index-ms=attr(|r| format!("{:.1}", r.index_ms))
            data-wasm-bytes=attr(|r| r.wasm_memory_bytes.to_string())
            data-files=attr(|r| r.files.len().to_string())
            data-bytes=attr(|r| r.files.iter().map(|(_, b)| *b).sum::<u64>().to_string())
            data-runs=move || trace.run.runs.get().to_string()
            data-elapsed-ms=move || format!("{:.1}", trace.run.elapsed_ms.get())
            data-preparse-ms=move || format!("{:.1}", trace.run.preparse_ms.get())
            data-parse-workers=move || trace.run.parse_workers.get().to_string()
        >
            {text}
        </p>
    }
}

/// The progress bar and Cancel, while a job runs.
#[component]
fn ProgressRow(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let value = move || {
        let p = trace.run.progress.get();
        progress_fraction(&p.stage, p.done_bytes, p.total_bytes).map(|f| f.to_string())
    };
    view! {
        <div class="progress-row" hidden=move || trace.run.phase.get() != Phase::Loading>
            <progress data-testid="trace-progress" max="1" value=value aria-label="Progress"></progress>
            <button
                type="button"
                class="button small"
                data-testid="trace-cancel"
                on:click=move |_| cancel(state, workers, RunSlot::A)
            >
                "Cancel"
            </button>
        </div>
    }
}

/// What went wrong, one `trace-error` per problem, naming its file.
#[component]
pub(super) fn ProblemList(
    #[prop(into)] problems: Signal<Vec<Problem>>,
    /// The items' `data-testid` (run B's are `compare-error`).
    #[prop(default = "trace-error")]
    testid: &'static str,
) -> impl IntoView {
    let item = move |p: Problem| {
        let file_attr = p.file.clone().unwrap_or_default();
        view! {
            <li class="problem" data-testid=testid data-file=file_attr>
                {p.file.map(|f| view! { <strong class="file-name">{f}</strong> })}
                <span class="message">{p.message}</span>
                {p.hint.map(|h| view! { <span class="hint">{h}</span> })}
            </li>
        }
    };
    view! {
        <Show when=move || !problems.with(Vec::is_empty)>
            <ul class="problems" aria-label="Problems">
                {move || problems.get().into_iter().map(item).collect_view()}
            </ul>
        </Show>
    }
}

/// The loader's warnings, open when there are few.
#[component]
fn WarningList(#[prop(into)] warnings: Signal<Vec<LoadWarning>>) -> impl IntoView {
    let item = |w: LoadWarning| {
        view! {
            <li
                data-testid="trace-warning"
                data-file=w.file.clone().unwrap_or_default()
                data-line=w.line.map(|l| l.to_string()).unwrap_or_default()
            >
                {w.message}
            </li>
        }
    };
    view! {
        <Show when=move || !warnings.with(Vec::is_empty)>
            <details class="warnings" open=move || warnings.with(Vec::len) <= 3>
                <summary>{move || warnings_title(warnings.with(Vec::len))}</summary>
                <ul>{move || warnings.get().into_iter().map(item).collect_view()}</ul>
            </details>
        </Show>
    }
}

/// The downloads: results as the CLI writes them, the timeline as a picture.
#[component]
pub fn TraceExports(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let none = move || trace.run.report.with(Option::is_none);
    let on_png = move |_| {
        let preset = trace.run.settings.preset.get_untracked();
        let name = format!("shardscope-timeline-{}.png", preset.as_str());
        if let Err(e) = save_page_canvas_png(
            "timeline-canvas",
            "the timeline",
            &name,
            state.theme.repaint_for_export(),
        ) {
            trace.run.problems.update(|p| {
                p.push(Problem::general(format!(
                    "The picture could not be saved: {e}"
                )))
            });
        }
    };
    let button = move |testid: &'static str, label: &'static str, title: &'static str, format| {
        view! {
            <button
                type="button"
                class="button"
                data-testid=testid
                disabled=none
                title=title
                on:click=move |_| export(state, workers, format)
            >
                {label}
            </button>
        }
    };
    view! {
        <section class="card exports" aria-labelledby="exports-title">
            <h2 id="exports-title">"Export"</h2>
            <div class="button-row">
                {button("export-json", "JSON", "Exactly what `shardscope attribute --format json` prints", ExportFormat::Json)}
                {button("export-csv", "CSV", "Exactly what `shardscope attribute --format csv` prints", ExportFormat::Csv)}
                <button
                    type="button"
                    class="button"
                    data-testid="export-perfetto"
                    disabled=none
                    title="The run as Chrome trace-event JSON (shardscope attribute --perfetto FILE): open it in ui.perfetto.dev beside your kernel traces"
                    on:click=move |_| export_perfetto(state, workers)
                >
                    "Perfetto"
                </button>
                <button
                    type="button"
                    class="button"
                    data-testid="export-png"
                    disabled=none
                    title="The timeline at its full (HiDPI) resolution"
                    on:click=on_png
                >
                    "PNG"
                </button>
            </div>
        </section>
    }
}

//! The trace view's settings column: where the traces come from (drop zone, pickers,
//! example), the run's status and problems, the attribution settings, and the exports.
//!
//! Every setting lives in [`TraceSettings`](super::super::state::TraceSettings); a change
//! of preset, override, phases or session re-attributes the parsed events in the worker
//! ([`rerun`]). The rank filter only filters what is shown, as in stormlog's TUI, which
//! attributes every rank and then shows the selected ones.

use leptos::ev::Event;
use leptos::html;
use leptos::prelude::*;
use shardscope_core::attribution::{AttributionConfig, Preset, OVERRIDE_FIELDS};
use shardscope_core::view::explain::override_help;
use shardscope_core::view::format::format_file_size;
use shardscope_core::view::rank_filter::parse_rank_filter;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::super::canvas::canvas_by_testid;
use super::super::download::save_canvas_png;
use super::super::state::{AppState, Phase, Problem};
use super::super::workers::WorkersHandle;
use super::input::{fetch_example, named_blobs, EXAMPLE_NAME};
use super::jobs::{cancel, export, load_files, rerun};
use crate::protocol::{ExportFormat, NamedBlob, Stage};

/// The input element an event came from.
fn event_input(ev: &Event) -> Option<HtmlInputElement> {
    ev.target()?.dyn_into::<HtmlInputElement>().ok()
}

/// The files of a picker, then the picker emptied (so picking the same files again is
/// a change too).
fn take_picked(ev: &Event) -> Vec<NamedBlob> {
    let Some(input) = event_input(ev) else {
        return Vec::new();
    };
    let files = named_blobs(input.files());
    input.set_value("");
    files
}

/// Where the traces come from: the drop target with the pickers and the example.
#[component]
pub fn TraceInput() -> impl IntoView {
    let state = expect_context::<AppState>();
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
                    trace.problems.set(vec![Problem {
                        file: Some(EXAMPLE_NAME.to_string()),
                        message: format!("The bundled example could not be fetched: {e}"),
                        hint: Some(
                            "Serve the built dist/ folder over HTTP (make serve).".to_string(),
                        ),
                    }]);
                    trace.phase.set(Phase::Error);
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
            .report
            .with(|r| r.as_ref().map(|r| r.files.clone()))
            .unwrap_or_default()
    };
    let wanted = move || trace.wanted_files.get();
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
                 exports, gzip, a telemetry sink folder, telemetry_timeline.json. They are read \
                 here, never uploaded."
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
                accept=".json,.jsonl,.csv,.gz,application/json,text/csv"
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
            </Show>
            <Show when=move || !files().is_empty()>
                <details class="file-list">
                    <summary>
                        {move || {
                            let f = files();
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
                            files()
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
        </section>
    }
}

/// What the progress bar and status line say about the running job.
fn progress_text(stage: &Stage, done: u64, total: u64) -> String {
    match stage {
        Stage::Reading { file } if total > 0 => format!(
            "Reading {file} · {} of {} ({:.0} %)",
            format_file_size(done),
            format_file_size(total),
            done as f64 * 100.0 / total as f64
        ),
        other => format!("{other}…"),
    }
}

/// `trace-status`, the progress bar, Cancel, and the problems and warnings.
#[component]
pub fn TraceStatus() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let report = trace.report;
    let attr = move |f: fn(&crate::protocol::TraceReport) -> String| {
        move || {
            (trace.phase.get() == Phase::Done)
                .then(|| report.with(|r| r.as_ref().map(|r| f(r))))
                .flatten()
        }
    };
    let text = move || {
        match trace.phase.get() {
        Phase::Idle => "No traces loaded yet.".to_string(),
        Phase::Loading => {
            let p = trace.progress.get();
            progress_text(&p.stage, p.done_bytes, p.total_bytes)
        }
        Phase::Done => report.with(|r| match r {
            Some(r) => format!(
                "{} events from {} file{} · {} interval{} · parsed in {:.0} ms · attributed in {:.0} ms",
                r.events,
                r.files.len(),
                if r.files.len() == 1 { "" } else { "s" },
                r.rows.len(),
                if r.rows.len() == 1 { "" } else { "s" },
                r.parse_ms,
                r.attribute_ms
            ),
            None => "Done.".to_string(),
        }),
        Phase::Error => {
            if report.with(Option::is_some) {
                "The last run failed; the previous results are still shown.".to_string()
            } else {
                "Nothing could be analysed.".to_string()
            }
        }
    }
    };
    let progress_value = move || {
        let p = trace.progress.get();
        match p.stage {
            Stage::Reading { .. } if p.total_bytes > 0 => Some(
                (p.done_bytes as f64 / p.total_bytes as f64)
                    .min(1.0)
                    .to_string(),
            ),
            // Attributing and indexing: an indeterminate bar.
            _ => None,
        }
    };
    let warnings = move || trace.warnings();

    view! {
        <section class="card status-card" aria-label="Status">
            <p
                class="trace-status"
                data-testid="trace-status"
                role="status"
                aria-live="polite"
                data-state=move || trace.phase.get().as_str()
                data-events=attr(|r| r.events.to_string())
                data-parse-ms=attr(|r| format!("{:.1}", r.parse_ms))
                data-read-ms=attr(|r| format!("{:.1}", r.read_ms))
                data-parse-path=attr(|r| if r.stitched_files > 0 { "ranges" } else { "stream" }.to_string())
                data-attribute-ms=attr(|r| format!("{:.1}", r.attribute_ms))
                data-index-ms=attr(|r| format!("{:.1}", r.index_ms))
                data-wasm-bytes=attr(|r| r.wasm_memory_bytes.to_string())
                data-files=attr(|r| r.files.len().to_string())
                data-bytes=attr(|r| r.files.iter().map(|(_, b)| *b).sum::<u64>().to_string())
                data-runs=move || trace.runs.get().to_string()
                data-elapsed-ms=move || format!("{:.1}", trace.elapsed_ms.get())
                data-preparse-ms=move || format!("{:.1}", trace.preparse_ms.get())
            >
                {text}
            </p>
            <div class="progress-row" hidden=move || trace.phase.get() != Phase::Loading>
                <progress
                    data-testid="trace-progress"
                    max="1"
                    value=progress_value
                    aria-label="Progress"
                ></progress>
                <button
                    type="button"
                    class="button small"
                    data-testid="trace-cancel"
                    on:click=move |_| cancel(state, workers)
                >
                    "Cancel"
                </button>
            </div>
            <Show when=move || !trace.problems.with(Vec::is_empty)>
                <ul class="problems" aria-label="Problems">
                    {move || {
                        trace
                            .problems
                            .get()
                            .into_iter()
                            .map(|p| {
                                let file = p.file.clone();
                                let file_attr = file.clone().unwrap_or_default();
                                view! {
                                    <li
                                        class="problem"
                                        data-testid="trace-error"
                                        data-file=file_attr
                                    >
                                        {file.map(|f| view! { <strong class="file-name">{f}</strong> })}
                                        <span class="message">{p.message}</span>
                                        {p.hint.map(|h| view! { <span class="hint">{h}</span> })}
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </Show>
            <Show when=move || !warnings().is_empty()>
                <details class="warnings" open=move || warnings().len() <= 3>
                    <summary>
                        {move || {
                            let n = warnings().len();
                            format!("{n} warning{} from stormlog's loader", if n == 1 { "" } else { "s" })
                        }}
                    </summary>
                    <ul>
                        {move || {
                            warnings()
                                .into_iter()
                                .map(|w| {
                                    view! {
                                        <li
                                            data-testid="trace-warning"
                                            data-file=w.file.clone().unwrap_or_default()
                                            data-line=w.line.map(|l| l.to_string()).unwrap_or_default()
                                        >
                                            {w.message}
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ul>
                </details>
            </Show>
        </section>
    }
}

/// Preset, overrides, phases, session and rank filter.
#[component]
pub fn TraceSettingsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let settings = trace.settings;
    let run = move || rerun(state, workers);
    let errors = Memo::new(move |_| settings.override_errors());
    let preset_config = Memo::new(move |_| AttributionConfig::preset(settings.preset.get()));

    let on_preset = move |ev: Event| {
        if let Ok(p) = Preset::parse(&event_target_value(&ev)) {
            settings.preset.set(p);
            run();
        }
    };
    let on_phases = move |ev: Event| {
        settings.phases.set(event_target_checked(&ev));
        run();
    };
    let on_session = move |ev: Event| {
        settings.session.set(Some(event_target_value(&ev)));
        run();
    };
    let sessions = move || {
        trace
            .report
            .with(|r| r.as_ref().map(|r| r.sessions.clone()))
            .unwrap_or_default()
    };
    let selected_session = move || {
        settings
            .session
            .get()
            .or_else(|| {
                trace
                    .report
                    .with(|r| r.as_ref().and_then(|r| r.selected_session.clone()))
            })
            .unwrap_or_default()
    };
    let rank_error = move || {
        let text = settings.ranks.get();
        let all: Vec<i64> = trace
            .report
            .with(|r| r.as_ref().map(|r| r.ranks.iter().map(|s| s.rank).collect()))
            .unwrap_or_default();
        parse_rank_filter(&text, &all).err().map(|e| e.message)
    };
    let rank_hint = move || {
        let shown = trace.visible_ranks().len();
        let total = trace
            .report
            .with(|r| r.as_ref().map_or(0, |r| r.ranks.len()));
        (total > 0).then(|| format!("{shown} of {total} ranks shown"))
    };

    let override_input = move |field: &'static str| {
        let help = override_help(field);
        let label = help.map_or(field, |h| h.label);
        let unit = help.map_or("", |h| h.unit);
        let step = help.map_or("any", |h| h.step);
        let id = format!("override-{field}");
        let error_id = format!("override-{field}-error");
        let error = move || errors.with(|e| e.get(field).map(|e| e.message.clone()));
        let value = move || {
            settings
                .overrides
                .with(|m| m.get(field).cloned().unwrap_or_default())
        };
        let on_change = move |ev: Event| {
            let text = event_target_value(&ev);
            settings.overrides.update(|m| {
                if text.trim().is_empty() {
                    m.remove(field);
                } else {
                    m.insert(field.to_string(), text);
                }
            });
            // A bad value is explained beside the field and never starts a run.
            if errors.with_untracked(|e| e.is_empty()) {
                run();
            }
        };
        view! {
            <div class="override" class:invalid=move || error().is_some()>
                <label for=id.clone() title=help.map_or("", |h| h.help)>
                    <span class="override-label">{label}</span>
                    <code class="override-field">{field}</code>
                </label>
                <div class="override-input">
                    <input
                        id=id
                        type="number"
                        step=step
                        inputmode="decimal"
                        data-testid=format!("override-{field}")
                        placeholder=move || preset_config.with(|c| c.field_text(field).unwrap_or_default())
                        prop:value=value
                        aria-invalid=move || if error().is_some() { "true" } else { "false" }
                        aria-describedby=error_id.clone()
                        on:change=on_change
                    />
                    <span class="unit">{unit}</span>
                </div>
                <p class="field-error" id=error_id role="alert">{error}</p>
            </div>
        }
    };
    let any_override = move || {
        settings
            .overrides
            .with(|m| m.values().any(|v| !v.trim().is_empty()))
    };
    let reset_overrides = move |_| {
        settings.overrides.set(Default::default());
        run();
    };

    view! {
        <section class="card settings-card" aria-labelledby="settings-title">
            <h2 id="settings-title">"Attribution"</h2>
            <div class="field">
                <label for="preset-select">"Sensitivity preset"</label>
                <select
                    id="preset-select"
                    data-testid="preset-select"
                    on:change=on_preset
                    prop:value=move || settings.preset.get().as_str()
                >
                    {Preset::ALL
                        .iter()
                        .map(|p| {
                            let p = *p;
                            view! {
                                <option value=p.as_str() selected=move || settings.preset.get() == p>
                                    {p.as_str()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <div class="field checkbox">
                <input
                    id="phases-toggle"
                    type="checkbox"
                    data-testid="phases-toggle"
                    prop:checked=move || settings.phases.get()
                    on:change=on_phases
                />
                <label for="phases-toggle">"Attribute intervals to phases"</label>
            </div>
            <Show when=move || { sessions().len() > 1 }>
                <div class="field">
                    <label for="session-select">"Session"</label>
                    <select
                        id="session-select"
                        data-testid="session-select"
                        on:change=on_session
                        prop:value=selected_session
                    >
                        {move || {
                            let chosen = selected_session();
                            sessions()
                                .into_iter()
                                .map(|s| {
                                    let selected = s.session_id == chosen;
                                    let label = format!(
                                        "{} · {} · {} events",
                                        s.session_id, s.status.as_str(), s.events
                                    );
                                    view! {
                                        <option value=s.session_id selected=selected>{label}</option>
                                    }
                                })
                                .collect_view()
                        }}
                    </select>
                </div>
            </Show>
            <div class="field" class:invalid=move || rank_error().is_some()>
                <label for="rank-filter-input">"Ranks shown"</label>
                <input
                    id="rank-filter-input"
                    type="text"
                    data-testid="rank-filter-input"
                    placeholder="all, or e.g. 0,2,4-7"
                    spellcheck="false"
                    autocomplete="off"
                    prop:value=move || settings.ranks.get()
                    aria-invalid=move || if rank_error().is_some() { "true" } else { "false" }
                    aria-describedby="rank-filter-error"
                    on:input=move |ev| settings.ranks.set(event_target_value(&ev))
                />
                <p class="field-error" id="rank-filter-error" role="alert">
                    {move || rank_error().map(|m| format!("{m}. Showing every rank."))}
                </p>
                <p class="muted small">{rank_hint}</p>
            </div>
            <fieldset class="overrides">
                <legend>
                    "Overrides "
                    <span class="muted small">"(empty = preset value)"</span>
                </legend>
                {OVERRIDE_FIELDS.iter().map(|f| override_input(f)).collect_view()}
                <Show when=any_override>
                    <button type="button" class="button small" on:click=reset_overrides>
                        "Clear overrides"
                    </button>
                </Show>
            </fieldset>
        </section>
    }
}

/// The downloads: results as the CLI writes them, the timeline as a picture.
#[component]
pub fn TraceExports() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let none = move || trace.report.with(Option::is_none);
    let on_png = move |_| {
        let preset = trace.settings.preset.get_untracked();
        let name = format!("shardscope-timeline-{}.png", preset.as_str());
        let saved = canvas_by_testid("timeline-canvas")
            .ok_or_else(|| "the timeline is not on the page".to_string())
            .and_then(|c| save_canvas_png(&name, &c));
        if let Err(e) = saved {
            trace.problems.update(|p| {
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

//! The trace view: traces in (anywhere on the window, pickers, example), settings and
//! status in the left column, the timeline, the selected interval and the results on
//! the right.
//!
//! Module map: [`input`] (drops, folders, pickers, example), [`jobs`] (requests to the
//! workers), [`settings`] (the left column's input, status and exports), [`attribution_settings`] (its settings card), [`timeline`] (canvases and navigation),
//! [`detail`] (the selected interval), [`table`] (results and per-rank summary).

pub mod attribution_settings;
pub mod clocks;
pub mod compare;
pub mod detail;
pub mod input;
pub mod jobs;
pub mod recent;
pub mod settings;
pub mod source;
pub mod table;
pub mod timeline;

use leptos::ev::DragEvent;
use leptos::prelude::*;
use shardscope_attribution::attribution::Classification;
use shardscope_view::scene::palette;
use shardscope_view::timeline_scene::class_color;

/// The bundled example (copied into `dist/examples/` by Trunk), relative to the page.
pub const EXAMPLE_URL: &str = "./examples/example-16-ranks.json.gz";
pub const EXAMPLE_NAME: &str = "example-16-ranks.json.gz";

use super::drawer::SettingsDrawer;
use super::state::{AppState, Phase, Problem, RunSlot, TraceState, View};
use super::tasks::Later;
use super::workers::WorkersHandle;
use attribution_settings::TraceSettingsPanel;
use clocks::ClocksPanel;
use compare::{CompareInput, CompareTable, DROP_RUN_B};
use detail::IntervalDetail;
use input::{take_drop, walk_entries, Dropped};
use jobs::load_run;
use settings::{TraceExports, TraceInput, TraceStatus};
use table::{RankSummary, ResultsTable};
use timeline::Timeline;

/// Whether a drag carries files (not text or a link being dragged around the page).
fn carries_files(ev: &DragEvent) -> bool {
    ev.data_transfer().is_some_and(|dt| {
        let types = dt.types();
        (0..types.length()).any(|i| types.get(i).as_string().as_deref() == Some("Files"))
    })
}

/// Which run a drop loads: run B when it lands on run B's card (with run A loaded).
fn drop_slot(ev: &DragEvent) -> RunSlot {
    use wasm_bindgen::JsCast;
    let on_b = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.closest(&format!("[{DROP_RUN_B}]")).ok().flatten())
        .is_some();
    if on_b {
        RunSlot::B
    } else {
        RunSlot::A
    }
}

/// The whole window accepts dropped files and folders while the trace view is shown.
fn accept_drops(state: AppState, workers: WorkersHandle, dragging: RwSignal<bool>) {
    let active = move || state.view.get_untracked() == View::Trace;
    let over = window_event_listener(leptos::ev::dragover, move |ev: DragEvent| {
        if active() && carries_files(&ev) {
            ev.prevent_default();
            if let Some(dt) = ev.data_transfer() {
                dt.set_drop_effect("copy");
            }
            if !dragging.get_untracked() {
                dragging.set(true);
            }
        }
    });
    let leave = window_event_listener(leptos::ev::dragleave, move |ev: DragEvent| {
        // Leaving the window (not moving between children): no related target.
        if ev.related_target().is_none() {
            dragging.set(false);
        }
    });
    let drop = window_event_listener(leptos::ev::drop, move |ev: DragEvent| {
        dragging.set(false);
        if !active() {
            return;
        }
        ev.prevent_default();
        let Some(dt) = ev.data_transfer() else {
            return;
        };
        let slot = drop_slot(&ev);
        let run = state.run(slot);
        match take_drop(&dt) {
            Dropped::Files(files) => load_run(state, workers, slot, files),
            Dropped::Entries(entries) => {
                run.phase.set(Phase::Loading);
                leptos::task::spawn_local(async move {
                    let (files, problems) = walk_entries(entries).await;
                    load_run(state, workers, slot, files);
                    if !problems.is_empty() {
                        run.problems
                            .update(|p| p.extend(problems.into_iter().map(Problem::general)));
                    }
                });
            }
        }
    });
    on_cleanup(move || {
        over.remove();
        leave.remove();
        drop.remove();
    });
}

/// The legend: what each mark on the timeline means. Clicking a class hides it.
#[component]
fn Legend(trace: TraceState) -> impl IntoView {
    let class_entry = move |i: usize, class: Classification| {
        let color = class_color(class).css();
        let shown = move || trace.shown_classes.with(|s| s[i]);
        let label = match class {
            Classification::CollectiveConfident => "confident",
            Classification::CollectiveLikely => "likely",
            Classification::CollectiveSuspect => "suspect",
        };
        view! {
            <button
                type="button"
                class=format!("legend-item legend-{}", class.short())
                class:off=move || !shown()
                aria-pressed=move || if shown() { "true" } else { "false" }
                title="Show or hide this classification (timeline and table)"
                on:click=move |_| trace.shown_classes.update(|s| s[i] = !s[i])
            >
                <span class="swatch" style=("--swatch", color.to_string())></span>
                {label}
            </button>
        }
    };
    view! {
        <div class="legend" role="group" aria-label="Legend">
            {Classification::ALL
                .iter()
                .enumerate()
                .map(|(i, c)| class_entry(i, *c))
                .collect_view()}
            <span class="legend-item static">
                <span class="swatch gap" style=("--swatch", palette::GAP.css())></span>
                "hidden-memory gap (device used − allocator reserved), scaled per lane"
            </span>
            <span class="legend-item static">
                <span class="swatch marker"></span>
                "collective marker"
            </span>
        </div>
    }
}

/// What the main area shows before anything is loaded.
#[component]
fn EmptyState(state: AppState) -> impl IntoView {
    view! {
        <div class="empty-state">
            <h2>"Which memory spikes were the collectives?"</h2>
            <ol>
                <li>
                    "Drop a run's stormlog traces anywhere on this page: one file per rank, a \
                     telemetry-sink folder, CSV exports or telemetry_timeline.json (gzip too)."
                </li>
                <li>
                    "Shardscope runs stormlog 0.4.3's collective-memory attribution on them, in \
                     this browser (nothing is uploaded), and draws every rank's hidden-memory gap \
                     with the intervals it attributes to collective communication."
                </li>
                <li>"Click an interval to see why: its evidence, its reasons, its phase."</li>
            </ol>
            <p class="muted">"No traces at hand? Use “Load example” on the left (16 ranks)."</p>
            <recent::RecentTraces state />
        </div>
    }
}

#[component]
pub fn TraceView(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let dragging = RwSignal::new(false);
    accept_drops(state, workers, dragging);
    let loaded = move || trace.run.report.with(Option::is_some);
    let busy = move || trace.run.phase.get() == Phase::Loading;

    view! {
        <div class="trace-view" class:dragging=move || dragging.get()>
            // Built in parts, a task each (see `tasks::Later`): the page's first task
            // (wasm start, this view) took 55–100 ms on a cold page in one piece, and the
            // first results 40 ms.
            <aside class="sidebar" aria-label="Trace settings">
                <TraceInput state />
                <TraceStatus state />
                <SettingsDrawer id="trace-drawer" label="Settings, compare, exports">
                    <Show when=loaded>
                        <CompareInput state />
                    </Show>
                    <Later>
                        <TraceSettingsPanel state />
                        <Show when=loaded>
                            <ClocksPanel state />
                        </Show>
                        <TraceExports state />
                    </Later>
                </SettingsDrawer>
            </aside>
            <div class="main-column" aria-busy=move || if busy() { "true" } else { "false" }>
                <Show when=loaded fallback=move || view! { <Later><EmptyState state /></Later> }>
                    <section class="card timeline-card" aria-label="Timeline">
                        <div class="timeline-toolbar">
                            <Legend trace />
                            <div class="toolbar-actions">
                                <span class="muted small keys">
                                    "W/S or wheel: zoom · A/D or drag: pan · arrows: intervals · double-click: zoom to interval · Esc: reset"
                                </span>
                                <button
                                    type="button"
                                    class="button small"
                                    data-testid="timeline-keys"
                                    aria-expanded=move || if trace.key_help.get() { "true" } else { "false" }
                                    title="The timeline's keys (or ? on the timeline)"
                                    on:click=move |_| trace.key_help.update(|on| *on = !*on)
                                >
                                    "Keys"
                                </button>
                                <button
                                    type="button"
                                    class="button small"
                                    disabled=move || trace.window.with(Option::is_none)
                                    on:click=move |_| trace.window.set(None)
                                >
                                    "Reset zoom"
                                </button>
                            </div>
                        </div>
                        <Timeline state />
                    </section>
                    <Show when=move || state.compare.run.report.with(Option::is_some)>
                        // A task of its own: run B's report redraws the timeline too.
                        <Later>
                            <CompareTable a=trace.run compare=state.compare />
                        </Later>
                    </Show>
                    <Later>
                        <div class="below-timeline">
                            <IntervalDetail trace />
                            <RankSummary trace />
                        </div>
                        <ResultsTable trace />
                    </Later>
                </Show>
            </div>
            <div class="drop-overlay" aria-hidden="true">
                <p>"Drop traces or folders to analyse them"</p>
            </div>
        </div>
    }
}

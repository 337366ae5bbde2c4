//! The timeline: the overview strip and the per-rank lanes on canvases, with hover
//! details and click selection.
//!
//! Pieces: [`model`] (the shared signals and the window changes), [`lanes`] (the lanes
//! canvas and its input), [`overview`] (the strip), [`tooltip`], [`painter`]
//! (repainting on change). Geometry, hit testing, input mapping and the pictures come
//! from the core (`view::timeline`, `view::timeline_input`, `view::timeline_scene`).

mod lanes;
mod model;
mod overview;
mod painter;
mod tooltip;

use leptos::html;
use leptos::prelude::*;
use shardscope_view::lod::{WindowQuery, MAX_COLUMNS};
use shardscope_view::timeline_input::{cursor_phrase, KEY_HELP};

use super::super::canvas::{device_pixel_ratio, tracked_width};
use super::super::state::AppState;
use super::super::workers::WorkersHandle;
use super::jobs::{request_overview, request_window, request_window_b};
use lanes::Lanes;
use model::TimelineModel;
use overview::Overview;
use tooltip::Tooltip;

#[component]
pub fn Timeline(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let lanes_ref = NodeRef::<html::Canvas>::new();
    let overview_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();

    // Keep the canvas width in step with the page (tab switches, window resizes).
    let width = tracked_width(
        move || wrap_ref.try_get_untracked().flatten().map(Into::into),
        move || {
            state.view.track();
            trace.run.report.track();
        },
    );
    let model = TimelineModel::new(trace, state.compare, width);
    request_on_change(state, workers, model);
    painter::paint_on_change(model, lanes_ref, overview_ref);
    reveal_selection(model);

    view! {
        <div class="timeline" node_ref=wrap_ref>
            <Overview model canvas=overview_ref />
            <div class="timeline-main">
                <Lanes model canvas=lanes_ref />
                <Tooltip model />
                <KeyHelp open=trace.key_help />
            </div>
            // The keyboard cursor, read out as it moves.
            <p class="visually-hidden" aria-live="polite" data-testid="timeline-cursor">
                {move || {
                    model.cursor.track();
                    let origin = model.origin_ns.get();
                    model.cursor_row().and_then(|i| {
                        model.rows.with(|rows| rows.get(i).map(|r| cursor_phrase(r, origin)))
                    })
                }}
            </p>
        </div>
    }
}

/// The timeline's keys (`?` on the timeline, or the toolbar's Keys button).
#[component]
fn KeyHelp(open: RwSignal<bool>) -> impl IntoView {
    view! {
        <Show when=move || open.get()>
            <div
                class="key-help"
                role="dialog"
                aria-label="Timeline keys"
                data-testid="timeline-key-help"
            >
                <div class="key-help-head">
                    <strong>"Timeline keys"</strong>
                    <button type="button" class="button small" on:click=move |_| open.set(false)>
                        "Close"
                    </button>
                </div>
                <table>
                    <tbody>
                        {KEY_HELP
                            .iter()
                            .map(|(keys, what)| view! {
                                <tr>
                                    <th scope="row"><kbd>{*keys}</kbd></th>
                                    <td>{*what}</td>
                                </tr>
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
        </Show>
    }
}

/// Ask the worker for the visible window's columns and the overview strip whenever
/// the window, the layout or the ranks change (coalesced in the job module).
fn request_on_change(state: AppState, workers: WorkersHandle, model: TimelineModel) {
    let trace = state.trace;
    Effect::new(move |_| {
        let (Some(window), l) = (model.window.get(), model.layout.get()) else {
            return;
        };
        if l.width <= 1.0 || trace.run.report.with(Option::is_none) {
            return;
        }
        let columns = (l.plot_width() * device_pixel_ratio())
            .round()
            .clamp(1.0, f64::from(MAX_COLUMNS)) as u32;
        let query = WindowQuery {
            start_ns: window.start_ns,
            end_ns: window.end_ns.saturating_add(1),
            columns,
            ranks: Some(model.ranks.get()),
        };
        request_window(state, workers, query);
    });
    // Run B's lanes: the same window on B's clock, from B's worker.
    Effect::new(move |_| {
        let (Some(window), Some(shift), l) = (
            model.window.get(),
            model.b_shift_ns.get(),
            model.layout.get(),
        ) else {
            return;
        };
        if l.width <= 1.0 {
            return;
        }
        let columns = (l.plot_width() * device_pixel_ratio())
            .round()
            .clamp(1.0, f64::from(MAX_COLUMNS)) as u32;
        let query = WindowQuery {
            start_ns: window.start_ns.saturating_sub(shift),
            end_ns: window.end_ns.saturating_add(1).saturating_sub(shift),
            columns,
            ranks: Some(model.ranks.get()),
        };
        request_window_b(state, workers, query);
    });
    Effect::new(move |_| {
        let l = model.layout.get();
        let ranks = model.ranks.get();
        if l.width <= 1.0 || trace.run.report.with(Option::is_none) {
            return;
        }
        let columns = l.plot_width().round().max(1.0) as u32;
        request_overview(state, workers, columns, ranks);
    });
}

/// A selection made elsewhere (the table) is brought into view.
fn reveal_selection(model: TimelineModel) {
    let trace = model.trace;
    Effect::new(move |previous: Option<Option<(i64, i64)>>| {
        let selected = trace.selected.get();
        let changed = previous.is_some_and(|p| p != selected);
        if let (true, Some(i), Some(window)) =
            (changed, model.selected_row(), model.window.get_untracked())
        {
            let span = model.rows.with_untracked(|rows| {
                rows.get(i)
                    .map(|r| (r.interval_start_ns, r.interval_end_ns))
            });
            if let Some(w) = span.and_then(|(s, e)| window.revealing(s, e)) {
                model.set_window(w);
            }
        }
        selected
    });
}

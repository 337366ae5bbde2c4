//! The timeline: the overview strip and the per-rank lanes on canvases, with Perfetto's
//! navigation (W/S and wheel zoom at the cursor, A/D and drag pan, double-click an
//! interval to zoom to it, Esc to reset), hover details and click selection.
//!
//! Geometry, hit testing and the pictures themselves come from the core
//! (`view::timeline`, `view::timeline_scene`); this module wires events to them, asks
//! the worker for the visible window's columns and paints once per animation frame.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use crate::protocol::TraceReport;

use leptos::ev::{KeyboardEvent, MouseEvent, WheelEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_core::analysis::IntervalRow;
use shardscope_core::view::lod::{WindowQuery, MAX_COLUMNS};
use shardscope_core::view::timeline::{interval_at, trace_bounds, TimeWindow};
use shardscope_core::view::timeline_input::{
    drag_pan_ns, interval_line, is_drag, tooltip_lines, Action, HoverPoint, Wheel,
    DOUBLE_CLICK_ZOOM, INTERVAL_ZOOM_FILL,
};
use shardscope_core::view::timeline_scene::{
    class_color, overview_scene, timeline_scene, TimelineLayout, TimelineSpec, OVERVIEW_HEIGHT,
};

use super::super::canvas::{device_pixel_ratio, tracked_width};
use super::super::now_ms;
use super::super::paint::{mark_paint_ms, paint, paint_sliced};
use super::super::state::AppState;
use super::super::workers::WorkersHandle;
use super::jobs::{request_overview, request_window};

/// What the pointer is over.
#[derive(Debug, Clone, PartialEq)]
struct Hover {
    /// CSS px within the canvas.
    x: f64,
    y: f64,
    rank: Option<i64>,
    ts_ns: i64,
    interval: Option<usize>,
}

/// An ongoing drag: where it started and the window then.
#[derive(Debug, Clone, Copy)]
struct Drag {
    x0: f64,
    window: TimeWindow,
    moved: bool,
}

/// The longest a timeline picture paints in one frame.
const SLICE_MS: f64 = 12.0;

#[component]
pub fn Timeline() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let overview_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let hover = RwSignal::new(None::<Hover>);
    let drag = StoredValue::new(None::<Drag>);
    let overview_drag = StoredValue::new(false);

    let ranks = Memo::new(move |_| trace.visible_ranks());
    let rows = Memo::new(move |_| Rows(trace.report.get()));
    let bounds = Memo::new(move |_| {
        trace.report.with(|r| {
            r.as_ref()
                .and_then(|r| match (r.trace_start_ns, r.trace_end_ns) {
                    (Some(a), Some(b)) => Some(trace_bounds(a, b, &r.rows)),
                    _ => None,
                })
        })
    });
    let origin = Memo::new(move |_| {
        trace
            .report
            .with(|r| r.as_ref().and_then(|r| r.trace_start_ns))
            .unwrap_or(0)
    });
    let view_window = Memo::new(move |_| {
        let bounds = bounds.get()?;
        Some(match trace.window.get() {
            Some(w) => w.clamp_to(bounds),
            None => bounds,
        })
    });

    // Keep the canvas width in step with the page (tab switches, window resizes).
    let width = tracked_width(
        move || wrap_ref.try_get_untracked().flatten().map(Into::into),
        move || {
            state.view.track();
            trace.report.track();
        },
    );
    let layout = Memo::new(move |_| TimelineLayout::new(width.get(), ranks.with(Vec::len)));

    // Ask the worker for the visible window (coalesced in the job module).
    Effect::new(move |_| {
        let (Some(window), l) = (view_window.get(), layout.get()) else {
            return;
        };
        if l.width <= 1.0 || trace.report.with(Option::is_none) {
            return;
        }
        let columns = (l.plot_width() * device_pixel_ratio())
            .round()
            .clamp(1.0, f64::from(MAX_COLUMNS)) as u32;
        let query = WindowQuery {
            start_ns: window.start_ns,
            end_ns: window.end_ns.saturating_add(1),
            columns,
            ranks: Some(ranks.get()),
        };
        request_window(state, workers, query);
    });
    Effect::new(move |_| {
        let l = layout.get();
        let ranks = ranks.get();
        if l.width <= 1.0 || trace.report.with(Option::is_none) {
            return;
        }
        request_overview(
            state,
            workers,
            l.plot_width().round().max(1.0) as u32,
            ranks,
        );
    });

    // Paint once per animation frame, whatever changed.
    let scheduled = Rc::new(Cell::new(false));
    let slice_token = StoredValue::new_local(Rc::new(Cell::new(0u64)));
    let draw = move || {
        let (Some(window), Some(bounds)) = (view_window.get_untracked(), bounds.get_untracked())
        else {
            return;
        };
        let l = layout.get_untracked();
        let scale = device_pixel_ratio();
        let rows = rows.get_untracked();
        let selected = trace.selected.get_untracked().and_then(|(rank, start)| {
            rows.iter()
                .position(|r| r.rank == rank && r.interval_start_ns == start)
        });
        let h = hover.get_untracked();
        let shown = trace.shown_classes.get_untracked();
        let ranks = ranks.get_untracked();
        if let Some(canvas) = canvas_ref.get_untracked() {
            let frame = trace.frame.get_untracked();
            let spec = TimelineSpec {
                layout: l,
                scale,
                window,
                origin_ns: origin.get_untracked(),
                ranks: &ranks,
                frame: frame.as_deref(),
                rows: &rows,
                shown,
                selected,
                hovered: h.as_ref().and_then(|h| h.interval),
                hover_x: h.as_ref().map(|h| h.x),
            };
            let started = now_ms();
            let scene = timeline_scene(&spec);
            let _ = canvas.set_attribute("data-shapes", &scene.shapes.len().to_string());
            // A newer picture abandons an unfinished sliced one.
            let token = slice_token.get_value();
            token.set(token.get() + 1);
            // In 12 ms slices, one per frame: a picture painted warm within that (up to
            // some 20,000 shapes) still appears at once, and a slower one (a whole big
            // trace; the first picture after a load, painted by code the browser has
            // not optimised yet) never makes a long task.
            let target = canvas.clone();
            let done: Rc<dyn Fn()> = Rc::new(move || {
                mark_paint_ms(&target, started);
            });
            paint_sliced(canvas.clone(), Rc::new(scene), SLICE_MS, token, done);
            let _ = canvas.set_attribute(
                "data-query-ms",
                &format!("{:.1}", trace.frame_query_ms.get_untracked()),
            );
        }
        // The overview in a task of its own: after a big load the first full picture of
        // both would be one long task.
        set_timeout(
            move || {
                if let Some(canvas) = overview_ref.get_untracked() {
                    let overview = trace.overview.get_untracked().unwrap_or_default();
                    let scene =
                        overview_scene(&l, scale, bounds, window, &overview, &rows[..], shown);
                    let started = now_ms();
                    if let Err(e) = paint(&canvas, &scene) {
                        web_sys::console::warn_1(&e.into());
                    }
                    mark_paint_ms(&canvas, started);
                }
            },
            std::time::Duration::ZERO,
        );
    };
    let schedule = {
        let scheduled = Rc::clone(&scheduled);
        move || {
            if scheduled.replace(true) {
                return;
            }
            let scheduled = Rc::clone(&scheduled);
            let run = move || {
                scheduled.set(false);
                draw();
            };
            // The picture before the worker's first window of a new report (intervals
            // only) in a task of its own: the frame that shows a new report is busy
            // laying out the page, and its first picture is painted by code the browser
            // has not optimised yet.
            if trace.frame.with_untracked(Option::is_none) {
                set_timeout(run, std::time::Duration::ZERO);
            } else {
                request_animation_frame(run);
            }
        }
    };
    {
        let schedule = schedule.clone();
        Effect::new(move |_| {
            trace.frame.track();
            trace.overview.track();
            trace.selected.track();
            trace.shown_classes.track();
            view_window.track();
            layout.track();
            hover.track();
            rows.track();
            schedule();
        });
    }

    // ── Interaction ────────────────────────────────────────────────────────
    let set_window = move |w: TimeWindow| {
        let Some(b) = bounds.get_untracked() else {
            return;
        };
        let w = w.clamp_to(b);
        trace.window.set(if w == b { None } else { Some(w) });
    };
    let local_xy = move |ev: &MouseEvent| -> Option<(f64, f64)> {
        let canvas = canvas_ref.get_untracked()?;
        let rect = canvas.get_bounding_client_rect();
        Some((
            f64::from(ev.client_x()) - rect.left(),
            f64::from(ev.client_y()) - rect.top(),
        ))
    };
    let hit = move |x: f64, y: f64| -> Option<Hover> {
        let window = view_window.get_untracked()?;
        let l = layout.get_untracked();
        let map = l.xmap(window);
        let ts_ns = map.ns(x.clamp(l.plot_x0, l.plot_x1));
        let rank = l
            .lanes
            .lane_at(y)
            .and_then(|i| ranks.with_untracked(|r| r.get(i).copied()));
        let tolerance = (window.span_ns() as f64 / l.plot_width() * 3.0) as i64;
        let interval = rank.and_then(|rank| {
            rows.with_untracked(|rows| {
                interval_at(rows, rank, ts_ns, tolerance)
                    .filter(|&i| trace.class_shown(rows[i].classification))
            })
        });
        Some(Hover {
            x,
            y,
            rank,
            ts_ns,
            interval,
        })
    };
    let anchor_ns = move || -> Option<i64> {
        let window = view_window.get_untracked()?;
        Some(match hover.get_untracked() {
            Some(h) if layout.get_untracked().in_plot(h.x) => h.ts_ns,
            _ => window.start_ns + window.span_ns() / 2,
        })
    };
    let zoom = move |factor: f64, anchor: Option<i64>| {
        let (Some(window), Some(b)) = (view_window.get_untracked(), bounds.get_untracked()) else {
            return;
        };
        let anchor = anchor.unwrap_or(window.start_ns + window.span_ns() / 2);
        set_window(window.zoom_at(anchor, factor, b));
    };
    let pan = move |fraction: f64| {
        let (Some(window), Some(b)) = (view_window.get_untracked(), bounds.get_untracked()) else {
            return;
        };
        set_window(window.pan_by((window.span_ns() as f64 * fraction).round() as i64, b));
    };
    let select_row = move |index: Option<usize>| {
        trace.selected.set(index.and_then(|i| {
            rows.with_untracked(|rows| rows.get(i).map(|r| (r.rank, r.interval_start_ns)))
        }));
    };
    let zoom_to_row = move |i: usize| {
        let Some(b) = bounds.get_untracked() else {
            return;
        };
        if let Some((start, end)) = rows.with_untracked(|rows| {
            rows.get(i)
                .map(|r| (r.interval_start_ns, r.interval_end_ns))
        }) {
            set_window(TimeWindow::around(start, end, INTERVAL_ZOOM_FILL, b));
        }
    };

    let on_key = move |ev: KeyboardEvent| {
        let modifier = ev.ctrl_key() || ev.meta_key() || ev.alt_key();
        let Some(action) = Action::from_key(&ev.key(), modifier) else {
            return;
        };
        ev.prevent_default();
        match action {
            Action::Zoom(factor) => zoom(factor, anchor_ns()),
            Action::Pan(fraction) => pan(fraction),
            Action::Reset => trace.window.set(None),
            Action::ZoomToSelected => {
                if let Some(i) = trace.selected.get_untracked().and_then(|(rank, start)| {
                    rows.with_untracked(|r| {
                        r.iter()
                            .position(|x| x.rank == rank && x.interval_start_ns == start)
                    })
                }) {
                    zoom_to_row(i);
                }
            }
        }
    };
    let on_wheel = move |ev: WheelEvent| {
        if view_window.get_untracked().is_none() {
            return;
        }
        ev.prevent_default();
        let wheel = Wheel {
            dx: ev.delta_x(),
            dy: ev.delta_y(),
            delta_mode: ev.delta_mode(),
            shift: ev.shift_key(),
        };
        match wheel.action(layout.get_untracked().plot_width()) {
            Action::Pan(fraction) => pan(fraction),
            Action::Zoom(factor) => {
                let anchor = local_xy(&ev).and_then(|(x, y)| hit(x, y)).map(|h| h.ts_ns);
                zoom(factor, anchor);
            }
            Action::Reset | Action::ZoomToSelected => {}
        }
    };
    let on_down = move |ev: MouseEvent| {
        if ev.button() != 0 {
            return;
        }
        let (Some((x, _)), Some(window)) = (local_xy(&ev), view_window.get_untracked()) else {
            return;
        };
        drag.set_value(Some(Drag {
            x0: x,
            window,
            moved: false,
        }));
    };
    let on_move = move |ev: MouseEvent| {
        let Some((x, y)) = local_xy(&ev) else {
            return;
        };
        if let Some(mut d) = drag.get_value() {
            if ev.buttons() & 1 == 0 {
                drag.set_value(None);
            } else {
                let dx = x - d.x0;
                if is_drag(dx) {
                    d.moved = true;
                    drag.set_value(Some(d));
                }
                if d.moved {
                    if let Some(b) = bounds.get_untracked() {
                        let plot_width = layout.get_untracked().plot_width();
                        let ns = drag_pan_ns(dx, plot_width, d.window.span_ns());
                        set_window(d.window.pan_by(ns, b));
                    }
                }
            }
        }
        hover.set(hit(x, y));
    };
    let on_up = move |ev: MouseEvent| {
        let Some(d) = drag.get_value() else {
            return;
        };
        drag.set_value(None);
        if !d.moved {
            if let Some((x, y)) = local_xy(&ev) {
                select_row(hit(x, y).and_then(|h| h.interval));
            }
        }
    };
    let on_dblclick = move |ev: MouseEvent| {
        let Some((x, y)) = local_xy(&ev) else {
            return;
        };
        match hit(x, y).and_then(|h| h.interval.map(|i| (i, h))) {
            Some((i, _)) => {
                select_row(Some(i));
                zoom_to_row(i);
            }
            None => zoom(DOUBLE_CLICK_ZOOM, hit(x, y).map(|h| h.ts_ns)),
        }
    };
    // The overview: press or drag to centre the window there.
    let overview_jump = move |ev: &MouseEvent| {
        let (Some(canvas), Some(b), Some(window)) = (
            overview_ref.get_untracked(),
            bounds.get_untracked(),
            view_window.get_untracked(),
        ) else {
            return;
        };
        let rect = canvas.get_bounding_client_rect();
        let x = f64::from(ev.client_x()) - rect.left();
        let ts = layout.get_untracked().xmap(b).ns(x);
        let half = window.span_ns() / 2;
        set_window(TimeWindow::new(ts - half, ts - half + window.span_ns()));
    };

    // Selection made elsewhere (the table): bring it into view.
    Effect::new(move |previous: Option<Option<(i64, i64)>>| {
        let selected = trace.selected.get();
        if previous.is_some() && selected != previous.flatten() {
            if let (Some((rank, start)), Some(window)) = (selected, view_window.get_untracked()) {
                let target = rows.with_untracked(|r| {
                    r.iter()
                        .find(|x| x.rank == rank && x.interval_start_ns == start)
                        .map(|x| (x.interval_start_ns, x.interval_end_ns))
                });
                if let Some((s, e)) = target {
                    if e < window.start_ns || s > window.end_ns {
                        let span = window.span_ns().max(e - s);
                        let mid = s + (e - s) / 2;
                        set_window(TimeWindow::new(mid - span / 2, mid - span / 2 + span));
                    }
                }
            }
        }
        selected
    });

    let tooltip = move || {
        let h = hover.get()?;
        let origin = origin.get();
        let window = view_window.get()?;
        let l = layout.get();
        if !l.in_plot(h.x) {
            return None;
        }
        let ns_per_px = window.span_ns() as f64 / l.plot_width();
        let hover_point = HoverPoint {
            rank: h.rank,
            ts_ns: h.ts_ns,
        };
        let lines = trace
            .frame
            .with(|frame| tooltip_lines(hover_point, origin, ns_per_px, frame.as_deref()));
        let interval = h.interval.and_then(|i| rows.with(|r| r.get(i).cloned()));
        let (left, top) = (h.x + 14.0, h.y + 14.0);
        let flip = h.x > l.width - 260.0;
        Some(view! {
            <div
                class="timeline-tooltip"
                role="status"
                style:left=(!flip).then(|| format!("{left}px"))
                style:right=flip.then(|| format!("{}px", l.width - h.x + 14.0))
                style:top=format!("{top}px")
            >
                {lines.into_iter().map(|t| view! { <div>{t}</div> }).collect_view()}
                {interval.map(|r: IntervalRow| {
                    let c = class_color(r.classification);
                    view! {
                        <div class="tooltip-interval">
                            <span class="swatch" style:background=c.css()></span>
                            {interval_line(&r)}
                        </div>
                    }
                })}
            </div>
        })
    };

    view! {
        <div class="timeline" node_ref=wrap_ref>
            <canvas
                class="timeline-overview"
                data-testid="timeline-overview"
                node_ref=overview_ref
                aria-label="Overview of the whole trace; click or drag to move the visible window"
                style:height=format!("{OVERVIEW_HEIGHT}px")
                on:mousedown=move |ev| {
                    if ev.button() == 0 {
                        overview_drag.set_value(true);
                        overview_jump(&ev);
                    }
                }
                on:mousemove=move |ev| {
                    if overview_drag.get_value() {
                        if ev.buttons() & 1 == 0 {
                            overview_drag.set_value(false);
                        } else {
                            overview_jump(&ev);
                        }
                    }
                }
                on:mouseup=move |_| overview_drag.set_value(false)
            ></canvas>
            <div class="timeline-main">
                <canvas
                    class="timeline-canvas"
                    data-testid="timeline-canvas"
                    node_ref=canvas_ref
                    tabindex="0"
                    role="img"
                    aria-label="Per-rank timeline of the hidden-memory gap with attributed intervals. W and S zoom, A and D pan, Escape resets, Enter zooms to the selected interval."
                    aria-keyshortcuts="W S A D Escape Enter"
                    data-view-start-ns=move || view_window.get().map(|w| w.start_ns.to_string())
                    data-view-end-ns=move || view_window.get().map(|w| w.end_ns.to_string())
                    data-lanes=move || ranks.with(Vec::len).to_string()
                    style:height=move || format!("{}px", layout.get().height)
                    on:keydown=on_key
                    on:wheel=on_wheel
                    on:mousedown=on_down
                    on:mousemove=on_move
                    on:mouseup=on_up
                    on:dblclick=on_dblclick
                    on:mouseleave=move |_| hover.set(None)
                ></canvas>
                {tooltip}
            </div>
        </div>
    }
}

/// The report's rows, shared with the report (cloning it clones a pointer: the painter
/// reads them every frame).
#[derive(Clone, Default)]
struct Rows(Option<Arc<TraceReport>>);

impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl std::ops::Deref for Rows {
    type Target = [IntervalRow];
    fn deref(&self) -> &[IntervalRow] {
        self.0.as_ref().map_or(&[], |r| &r.rows)
    }
}

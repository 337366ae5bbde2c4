//! The latency-versus-PEs scatter on `scatter-canvas`: the core draws it
//! (`view::scatter`); this module sizes the canvas, paints once per animation frame,
//! and handles hover (the config in one line), click (select), drag (zoom to a region)
//! and double-click (reset); on the keyboard, arrows walk the frontier (the cursor shows
//! as a hover), Enter selects, +/− zoom and Esc resets (core `ScatterKey`).

use std::cell::Cell;
use std::rc::Rc;

use leptos::ev::{KeyboardEvent, MouseEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_session::explore_settings::{parse_short_key, short_key, ColorBy, Knob};
use shardscope_session::scenario_list::ScenarioList;
use shardscope_view::scatter::{
    feasible_efficiency_max, hover_text, nearest_point, scatter_scene, Band, Overlay, ScatterMap,
    ScatterRange, ScatterSpec, HOVER_RADIUS_PX, TOOLTIP_FLIP_PX,
};
use shardscope_view::scatter_keys::{frontier_step, scatter_label, ScatterKey};
use shardscope_view::scenario_view::overlays;
use shardscope_view::scene::Scene;

use super::super::canvas::{device_pixel_ratio, tracked_width};
use super::super::now_ms;
use super::super::paint::{mark_paint_ms, paint_sliced};
use super::super::state::{ExploreState, Explored, View};
use super::super::theme::ThemeState;
use super::super::workers::WorkersHandle;
use super::jobs::evaluate;

/// How soon the scatter is painted again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Redraw {
    None,
    /// In the next frame (a hover, a selection: the picture is ready in a few ms).
    Now,
    /// Built after the next frame, painted in the one after (new sweep, new size).
    AfterLayout,
}

/// CSS height of the scatter.
const HEIGHT: f64 = 440.0;

#[component]
pub fn Scatter(explore: ExploreState, page_view: RwSignal<View>) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let zoom = RwSignal::new(None::<ScatterRange>);
    let hover = RwSignal::new(None::<(f64, f64, usize)>);
    let drag = StoredValue::new(None::<(f64, f64)>);
    let band = RwSignal::new(None::<Band>);

    let width = tracked_width(
        move || wrap_ref.try_get_untracked().flatten().map(Into::into),
        move || {
            page_view.track();
            explore.answer.track();
        },
    );
    // A new sweep shows its whole range.
    Effect::new(move |_| {
        explore.runs.track();
        zoom.set(None);
    });

    let map = scatter_map(explore, width, zoom);
    let schedule = paint_scheduler(explore, canvas_ref, map, hover);
    repaint_on_change(explore, page_view, map, hover, schedule);

    let local = move |ev: &MouseEvent| -> Option<(f64, f64)> {
        let rect = canvas_ref.get_untracked()?.get_bounding_client_rect();
        Some((
            f64::from(ev.client_x()) - rect.left(),
            f64::from(ev.client_y()) - rect.top(),
        ))
    };
    let hit = move |x: f64, y: f64| -> Option<usize> {
        let m = map.get_untracked()?;
        explore.answer.with_untracked(|a| {
            let a = a.as_ref()?;
            nearest_point(
                &a.points,
                &m,
                explore.infeasible.get_untracked(),
                x,
                y,
                HOVER_RADIUS_PX,
            )
        })
    };
    let on_move = move |ev: MouseEvent| {
        let Some((x, y)) = local(&ev) else {
            return;
        };
        if let Some(dragged) = drag
            .get_value()
            .and_then(|from| Band::dragged(from, (x, y)))
        {
            band.set(Some(dragged));
        }
        let h = hit(x, y).map(|i| (x, y, i));
        if h != hover.get_untracked() {
            hover.set(h);
        }
    };
    let on_down = move |ev: MouseEvent| {
        if ev.button() == 0 {
            drag.set_value(local(&ev));
        }
    };
    let select = move |i: usize| select_point(explore, workers, i);
    let on_up = move |ev: MouseEvent| {
        let start = drag.get_value();
        drag.set_value(None);
        if let Some(b) = band.get_untracked() {
            band.set(None);
            if let Some(range) = map.get_untracked().and_then(|m| m.zoom_to_band(b)) {
                zoom.set(Some(range));
            }
            return;
        }
        if start.is_none() {
            return;
        }
        let Some((x, y)) = local(&ev) else {
            return;
        };
        if let Some(i) = hit(x, y) {
            select(i);
        }
    };
    let on_key = scatter_keys(explore, workers, zoom, hover, map);
    follow_the_picture(explore, map, hover);

    view! {
        <ScatterToolbar explore=explore zoom=zoom />
        <div class="scatter-wrap" node_ref=wrap_ref>
            <canvas
                class="scatter-canvas"
                data-testid="scatter-canvas"
                node_ref=canvas_ref
                role="img"
                tabindex="0"
                aria-label=move || scatter_aria_label(explore)
                aria-keyshortcuts="ArrowLeft ArrowRight ArrowUp ArrowDown Home End Enter + - Escape"
                style:height=format!("{HEIGHT}px")
                on:keydown=on_key
                on:mousemove=on_move
                on:mousedown=on_down
                on:mouseup=on_up
                on:mouseleave=move |_| hover.set(None)
                on:dblclick=move |_| zoom.set(None)
            ></canvas>
            <ZoomBand band=band />
            <ScatterTooltip explore=explore hover=hover map=map />
            {move || explore.answer.with(Option::is_none).then(|| view! {
                <p class="scatter-empty" role="status">
                    {move || explore.problem.get().unwrap_or_else(|| "Sweeping every configuration…".to_string())}
                </p>
            })}
        </div>
    }
}

/// Where the points go: the zoomed range, else the whole sweep's with the shown
/// scenarios, over the canvas's CSS width (`None` before the first sweep or layout).
fn scatter_map(
    explore: ExploreState,
    width: RwSignal<f64>,
    zoom: RwSignal<Option<ScatterRange>>,
) -> Memo<Option<ScatterMap>> {
    Memo::new(move |_| {
        let w = width.get();
        let infeasible = explore.infeasible.get();
        let range = zoom.get().or_else(|| {
            explore.answer.with(|a| {
                a.as_ref().and_then(|a| {
                    ScatterRange::fit_with(&a.points, infeasible, &shown_overlays(explore))
                })
            })
        })?;
        (w > 1.0).then_some(ScatterMap {
            width: w,
            height: HEIGHT,
            range,
        })
    })
}

/// What a screen reader hears for the scatter: the sweep, and the selected point.
fn scatter_aria_label(explore: ExploreState) -> Option<String> {
    let selected = explore.selected.get();
    explore.answer.with(|a| {
        a.as_ref().map(|a| {
            let i = selected.as_deref().and_then(|key| point_of_key(a, key));
            scatter_label(&a.points, &a.request.sweep, i)
        })
    })
}

/// Select point `i` of the answer: its key, and its breakdown from the worker.
fn select_point(explore: ExploreState, workers: WorkersHandle, i: usize) {
    let picked = explore.answer.with_untracked(|a| {
        let a = a.as_ref()?;
        a.points
            .topology(i, &a.request.sweep)
            .map(|t| short_key(&t))
    });
    if let Some(key) = picked {
        explore.selected.set(Some(key.clone()));
        evaluate(explore, workers, key);
    }
}

/// The scatter's keys ([`ScatterKey`]): walk the frontier, choose, zoom, reset.
fn scatter_keys(
    explore: ExploreState,
    workers: WorkersHandle,
    zoom: RwSignal<Option<ScatterRange>>,
    hover: RwSignal<Option<(f64, f64, usize)>>,
    map: Memo<Option<ScatterMap>>,
) -> impl Fn(KeyboardEvent) + Copy + 'static {
    move |ev: KeyboardEvent| {
        let modifier = ev.ctrl_key() || ev.meta_key() || ev.alt_key();
        let Some(key) = ScatterKey::from_key(&ev.key(), modifier) else {
            return;
        };
        ev.prevent_default();
        let cursor = hover.get_untracked().map(|(_, _, i)| i);
        match key {
            ScatterKey::Walk(step) => {
                let to = explore.answer.with_untracked(|a| {
                    let a = a.as_ref()?;
                    let i = frontier_step(&a.points, cursor, step)?;
                    Some((i, f64::from(a.points.pes[i]), a.points.latency_ns[i]))
                });
                let Some((i, pes, latency_ns)) = to else {
                    return;
                };
                // A cursor outside a zoomed range brings the whole range back.
                if zoom
                    .get_untracked()
                    .is_some_and(|r| !r.contains(pes, latency_ns))
                {
                    zoom.set(None);
                }
                if let Some(m) = map.get_untracked() {
                    hover.set(Some((m.x(pes), m.y(latency_ns), i)));
                }
            }
            ScatterKey::Choose => {
                if let Some(i) = cursor {
                    select_point(explore, workers, i);
                }
            }
            ScatterKey::Zoom(factor) => {
                let Some(m) = map.get_untracked() else {
                    return;
                };
                let (x, y) = hover.get_untracked().map_or(
                    ((m.x0() + m.x1()) / 2.0, (m.y0() + m.y1()) / 2.0),
                    |(x, y, _)| (x, y),
                );
                zoom.set(Some(m.range.zoomed(factor, m.pes_at(x), m.latency_at(y))));
            }
            ScatterKey::Reset => zoom.set(None),
        }
    }
}

/// The cursor follows the picture when the range changes (a zoom keeps it in place only
/// for the point it zoomed around).
fn follow_the_picture(
    explore: ExploreState,
    map: Memo<Option<ScatterMap>>,
    hover: RwSignal<Option<(f64, f64, usize)>>,
) {
    Effect::new(move |_| {
        let Some(m) = map.get() else {
            return;
        };
        let Some((x, y, i)) = hover.get_untracked() else {
            return;
        };
        let at = explore.answer.with_untracked(|a| {
            let a = a.as_ref()?;
            (i < a.points.len())
                .then(|| (m.x(f64::from(a.points.pes[i])), m.y(a.points.latency_ns[i])))
        });
        match at {
            Some(at) if (at.0 - x).abs() > 0.5 || (at.1 - y).abs() > 0.5 => {
                hover.set(Some((at.0, at.1, i)))
            }
            Some(_) => {}
            None => hover.set(None),
        }
    });
}

/// The point of the configuration with this short key (`cp2.tp4.…`) in a sweep's answer.
fn point_of_key(a: &Explored, key: &str) -> Option<usize> {
    let topo = parse_short_key(key, &a.request.sweep.base_topology()).ok()?;
    (0..a.points.len()).find(|&i| a.points.topology(i, &a.request.sweep) == Some(topo))
}

/// The shown scenarios' frontiers (see `scenarios`), tracked.
fn shown_overlays(explore: ExploreState) -> Vec<Overlay> {
    let shown = explore.scenarios.with(ScenarioList::shown);
    explore
        .scenario_report
        .with(|r| r.as_ref().map(|r| overlays(r, &shown)))
        .unwrap_or_default()
}

/// Repaint whenever what the scatter shows changes: a new picture after layout for new
/// points or ranges, at once for a new selection, pins or hover.
fn repaint_on_change(
    explore: ExploreState,
    page_view: RwSignal<View>,
    map: Memo<Option<ScatterMap>>,
    hover: RwSignal<Option<(f64, f64, usize)>>,
    schedule: Rc<dyn Fn(Redraw)>,
) {
    let theme = expect_context::<ThemeState>();
    {
        let schedule = Rc::clone(&schedule);
        Effect::new(move |_| {
            map.track();
            explore.answer.track();
            explore.infeasible.track();
            explore.color_by.track();
            explore.scenario_report.track();
            explore.scenarios.track();
            theme.choice.track();
            theme.system_dark.track();
            if page_view.get() == View::Explore {
                schedule(Redraw::AfterLayout);
            }
        });
    }
    Effect::new(move |_| {
        explore.selected.track();
        explore.pinned.track();
        hover.track();
        if page_view.get() == View::Explore {
            schedule(Redraw::Now);
        }
    });
}

/// What paints the scatter: `schedule(kind)` asks for a picture of the current state,
/// at most one per frame (see [`Redraw`]).
fn paint_scheduler(
    explore: ExploreState,
    canvas_ref: NodeRef<html::Canvas>,
    map: Memo<Option<ScatterMap>>,
    hover: RwSignal<Option<(f64, f64, usize)>>,
) -> Rc<dyn Fn(Redraw)> {
    let theme = expect_context::<ThemeState>();
    let index_of = move |key: &str| -> Option<usize> {
        explore
            .answer
            .with_untracked(|a| point_of_key(a.as_ref()?, key))
    };

    let paint_token = Rc::new(Cell::new(0u64));
    // The picture of the current state, built in the core; `None` before the first sweep.
    let scene = move || -> Option<(Scene, f64)> {
        let m = map.get_untracked()?;
        let selected = explore.selected.get_untracked().and_then(|k| index_of(&k));
        let pinned: Vec<usize> = explore
            .pinned
            .get_untracked()
            .iter()
            .filter_map(|k| index_of(k))
            .collect();
        let started = now_ms();
        let overlays = untrack(|| shown_overlays(explore));
        explore.answer.with_untracked(|a| {
            let a = a.as_ref()?;
            let scene = scatter_scene(&ScatterSpec {
                map: m,
                scale: device_pixel_ratio(),
                points: &a.points,
                infeasible: explore.infeasible.get_untracked(),
                selected,
                hovered: hover.get_untracked().map(|(_, _, i)| i),
                pinned: &pinned,
                efficiency_max: feasible_efficiency_max(&a.points),
                color_by: explore.color_by.get_untracked(),
                overlays: &overlays,
            });
            Some((scene, started))
        })
    };
    let paint = move |scene: Scene, started: f64| {
        let Some(canvas) = canvas_ref.get_untracked() else {
            return;
        };
        paint_token.set(paint_token.get() + 1);
        let target = canvas.clone();
        let done: Rc<dyn Fn()> = Rc::new(move || {
            // Wall time to the last slice (frames in between included).
            mark_paint_ms(&target, started);
        });
        paint_sliced(
            canvas,
            Rc::new(scene),
            untrack(|| theme.shown()),
            12.0,
            Rc::clone(&paint_token),
            done,
        );
    };
    let paint = Rc::new(paint);
    // One picture per frame. A new sweep's picture is built in a task of its own between
    // two frames and painted in the second: the first frame lays out the new results
    // (tens of milliseconds on a cold page), which the picture must not join.
    let pending = Rc::new(Cell::new(Redraw::None));
    let schedule = move |kind: Redraw| {
        let before = pending.get();
        pending.set(before.max(kind));
        if before != Redraw::None {
            return;
        }
        let pending = Rc::clone(&pending);
        let paint = Rc::clone(&paint);
        request_animation_frame(move || match pending.replace(Redraw::None) {
            Redraw::None => {}
            Redraw::Now => {
                if let Some((picture, started)) = scene() {
                    paint(picture, started);
                }
            }
            Redraw::AfterLayout => set_timeout(
                move || {
                    if let Some((picture, started)) = scene() {
                        request_animation_frame(move || paint(picture, started));
                    }
                },
                std::time::Duration::ZERO,
            ),
        });
    };
    Rc::new(schedule)
}

/// Colour-by, the one-line help and Reset zoom.
#[component]
fn ScatterToolbar(explore: ExploreState, zoom: RwSignal<Option<ScatterRange>>) -> impl IntoView {
    let color_options = std::iter::once("efficiency")
        .chain(Knob::ALL.map(Knob::name))
        .collect::<Vec<_>>();
    view! {
        <div class="scatter-toolbar">
            <label class="color-by small">
                "Colour by "
                <select
                    data-testid="color-select"
                    prop:value=move || explore.color_by.get().name()
                    on:change=move |ev| {
                        if let Some(c) = ColorBy::parse(&event_target_value(&ev)) {
                            explore.color_by.set(c);
                        }
                    }
                >
                    {color_options
                        .into_iter()
                        .map(|o| view! { <option value=o selected=move || explore.color_by.get().name() == o>{o}</option> })
                        .collect_view()}
                </select>
            </label>
            <span class="muted small">
                {move || format!(
                    "Each square is a configuration that fits, coloured by {}; ringed circles are the frontier{}. \
                     Hover for details, click to select, drag to zoom, double-click to reset.",
                    explore.color_by.get().name(),
                    if explore.scenarios.with(ScenarioList::is_empty) {
                        ""
                    } else {
                        "; coloured shapes joined by lines are the scenarios' frontiers"
                    },
                )}
            </span>
            <button
                type="button"
                class="button small"
                data-testid="scatter-reset-zoom"
                disabled=move || zoom.with(Option::is_none)
                on:click=move |_| zoom.set(None)
            >
                "Reset zoom"
            </button>
        </div>
    }
}

/// The rectangle being dragged to zoom.
#[component]
fn ZoomBand(band: RwSignal<Option<Band>>) -> impl IntoView {
    move || {
        band.get().map(|b| {
            view! {
                <div
                    class="zoom-band"
                    style:left=format!("{}px", b.x0)
                    style:top=format!("{}px", b.y0)
                    style:width=format!("{}px", b.x1 - b.x0)
                    style:height=format!("{}px", b.y1 - b.y0)
                ></div>
            }
        })
    }
}

/// The hovered configuration in one line, beside the pointer.
#[component]
fn ScatterTooltip(
    explore: ExploreState,
    hover: RwSignal<Option<(f64, f64, usize)>>,
    map: Memo<Option<ScatterMap>>,
) -> impl IntoView {
    move || {
        let (x, y, i) = hover.get()?;
        let m = map.get()?;
        let text = explore.answer.with(|a| {
            let a = a.as_ref()?;
            hover_text(&a.points, &a.request.sweep, i)
        })?;
        let flip = x > m.width - TOOLTIP_FLIP_PX;
        Some(view! {
            <div
                class="timeline-tooltip"
                role="status"
                style:left=(!flip).then(|| format!("{}px", x + 14.0))
                style:right=flip.then(|| format!("{}px", m.width - x + 14.0))
                style:top=format!("{}px", y + 14.0)
            >
                {text}
            </div>
        })
    }
}

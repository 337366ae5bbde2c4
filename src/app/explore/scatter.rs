//! The latency-versus-PEs scatter on `scatter-canvas`: the core draws it
//! (`view::scatter`); this module sizes the canvas, paints once per animation frame,
//! and handles hover (the config in one line), click (select), drag (zoom to a region)
//! and double-click (reset).

use std::cell::Cell;
use std::rc::Rc;

use leptos::ev::MouseEvent;
use leptos::html;
use leptos::prelude::*;
use shardscope_core::view::explore::{
    knobs_text, latency_text, parse_short_key, short_key, why_not, ColorBy, Knob, FEASIBLE,
};
use shardscope_core::view::scatter::{
    nearest_point, scatter_scene, ScatterMap, ScatterRange, ScatterSpec,
};
use shardscope_core::view::scene::Scene;

use super::super::canvas::{device_pixel_ratio, tracked_width};
use super::super::now_ms;
use super::super::paint::{mark_paint_ms, paint_sliced};
use super::super::state::{AppState, View};
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
pub fn Scatter() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let explore = state.explore;
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let wrap_ref = NodeRef::<html::Div>::new();
    let zoom = RwSignal::new(None::<ScatterRange>);
    let hover = RwSignal::new(None::<(f64, f64, usize)>);
    let drag = StoredValue::new(None::<(f64, f64)>);
    let band = RwSignal::new(None::<(f64, f64, f64, f64)>);

    let width = tracked_width(
        move || wrap_ref.try_get_untracked().flatten().map(Into::into),
        move || {
            state.view.track();
            explore.answer.track();
        },
    );
    // A new sweep shows its whole range.
    Effect::new(move |_| {
        explore.runs.track();
        zoom.set(None);
    });

    let map = Memo::new(move |_| {
        let w = width.get();
        let infeasible = explore.infeasible.get();
        let range = zoom.get().or_else(|| {
            explore.answer.with(|a| {
                a.as_ref()
                    .and_then(|a| ScatterRange::fit(&a.points, infeasible))
            })
        })?;
        (w > 1.0).then_some(ScatterMap {
            width: w,
            height: HEIGHT,
            range,
        })
    });
    let index_of = move |key: &str| -> Option<usize> {
        explore.answer.with_untracked(|a| {
            let a = a.as_ref()?;
            let base = a.request.sweep.base_topology();
            let topo = parse_short_key(key, &base).ok()?;
            (0..a.points.len()).find(|&i| a.points.topology(i, &a.request.sweep) == Some(topo))
        })
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
        explore.answer.with_untracked(|a| {
            let a = a.as_ref()?;
            let emax = a
                .points
                .efficiency
                .iter()
                .zip(&a.points.flags)
                .filter(|(_, f)| *f & FEASIBLE != 0)
                .map(|(e, _)| f64::from(*e))
                .fold(0.0, f64::max);
            let scene = scatter_scene(&ScatterSpec {
                map: m,
                scale: device_pixel_ratio(),
                points: &a.points,
                infeasible: explore.infeasible.get_untracked(),
                selected,
                hovered: hover.get_untracked().map(|(_, _, i)| i),
                pinned: &pinned,
                efficiency_max: emax,
                color_by: explore.color_by.get_untracked(),
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
        paint_sliced(canvas, Rc::new(scene), 12.0, Rc::clone(&paint_token), done);
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
    let schedule = Rc::new(schedule);
    {
        let schedule = Rc::clone(&schedule);
        Effect::new(move |_| {
            map.track();
            explore.answer.track();
            explore.infeasible.track();
            explore.color_by.track();
            if state.view.get() == View::Explore {
                schedule(Redraw::AfterLayout);
            }
        });
    }
    Effect::new(move |_| {
        explore.selected.track();
        explore.pinned.track();
        hover.track();
        if state.view.get() == View::Explore {
            schedule(Redraw::Now);
        }
    });

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
            nearest_point(&a.points, &m, explore.infeasible.get_untracked(), x, y, 8.0)
        })
    };
    let on_move = move |ev: MouseEvent| {
        let Some((x, y)) = local(&ev) else {
            return;
        };
        if let Some((x0, y0)) = drag.get_value() {
            if (x - x0).abs() > 4.0 || (y - y0).abs() > 4.0 {
                band.set(Some((x0.min(x), y0.min(y), x0.max(x), y0.max(y))));
            }
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
    let on_up = move |ev: MouseEvent| {
        let start = drag.get_value();
        drag.set_value(None);
        if let Some((x0, y0, x1, y1)) = band.get_untracked() {
            band.set(None);
            if let Some(m) = map.get_untracked() {
                if x1 - x0 > 8.0 && y1 - y0 > 8.0 {
                    zoom.set(Some(ScatterRange {
                        pes_min: m.pes_at(x0),
                        pes_max: m.pes_at(x1),
                        latency_min_ns: m.latency_at(y1),
                        latency_max_ns: m.latency_at(y0),
                    }));
                }
            }
            return;
        }
        if start.is_none() {
            return;
        }
        let Some((x, y)) = local(&ev) else {
            return;
        };
        let picked = hit(x, y).and_then(|i| {
            explore.answer.with_untracked(|a| {
                let a = a.as_ref()?;
                a.points
                    .topology(i, &a.request.sweep)
                    .map(|t| short_key(&t))
            })
        });
        if let Some(key) = picked {
            explore.selected.set(Some(key.clone()));
            evaluate(state, workers, key);
        }
    };

    let tooltip = move || {
        let (x, y, i) = hover.get()?;
        let m = map.get()?;
        let text = explore.answer.with(|a| {
            let a = a.as_ref()?;
            let t = a.points.topology(i, &a.request.sweep)?;
            let p = &a.points;
            let fits = why_not(p.flags[i])
                .map(|w| format!(" · infeasible: {w} (select it for the numbers)"))
                .unwrap_or_default();
            Some(format!(
                "{} — {}, {} PEs, eff {:.3}{fits}",
                knobs_text(&t),
                latency_text(p.latency_ns[i]),
                p.pes[i],
                p.efficiency[i]
            ))
        })?;
        let flip = x > m.width - 320.0;
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
    };
    let band_view = move || {
        band.get().map(|(x0, y0, x1, y1)| {
            view! {
                <div
                    class="zoom-band"
                    style:left=format!("{x0}px")
                    style:top=format!("{y0}px")
                    style:width=format!("{}px", x1 - x0)
                    style:height=format!("{}px", y1 - y0)
                ></div>
            }
        })
    };

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
                    "Each square is a configuration that fits, coloured by {}; black-ringed circles are the frontier. \
                     Hover for details, click to select, drag to zoom, double-click to reset.",
                    explore.color_by.get().name()
                )}
            </span>
            <button
                type="button"
                class="button small"
                disabled=move || zoom.with(Option::is_none)
                on:click=move |_| zoom.set(None)
            >
                "Reset zoom"
            </button>
        </div>
        <div class="scatter-wrap" node_ref=wrap_ref>
            <canvas
                class="scatter-canvas"
                data-testid="scatter-canvas"
                node_ref=canvas_ref
                role="img"
                tabindex="0"
                aria-label="Latency against PEs used for every configuration; the Pareto frontier is joined by a line"
                style:height=format!("{HEIGHT}px")
                on:mousemove=on_move
                on:mousedown=on_down
                on:mouseup=on_up
                on:mouseleave=move |_| hover.set(None)
                on:dblclick=move |_| zoom.set(None)
            ></canvas>
            {band_view}
            {tooltip}
            {move || explore.answer.with(Option::is_none).then(|| view! {
                <p class="scatter-empty" role="status">
                    {move || explore.problem.get().unwrap_or_else(|| "Sweeping every configuration…".to_string())}
                </p>
            })}
        </div>
    }
}

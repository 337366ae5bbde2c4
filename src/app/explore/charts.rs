//! The explorer's small charts: the selected configuration's sensitivity and the batch
//! view, each a core scene (`view::charts`) painted on a HiDPI canvas whenever its data
//! or the canvas width changes.

use std::cell::Cell;
use std::rc::Rc;

use leptos::ev::MouseEvent;
use leptos::html;
use leptos::prelude::*;
use shardscope_view::charts::{batch_hit, batch_scene, sensitivity_scene, BatchAxes};
use shardscope_view::scene::Scene;

use super::super::canvas::{canvas_by_testid, device_pixel_ratio, tracked_width};
use super::super::paint::paint_sliced;
use super::super::state::{ExploreState, View};
use super::super::theme::ThemeState;
use super::super::workers::WorkersHandle;
use super::jobs::{cancel_batch, run_batch, schedule_sweep, BATCHES};

/// A canvas `testid` of `height` CSS px showing `scene(width, scale)`, painted in slices
/// of at most 12 ms from the next frame on (a batch view's first paint took ~12 ms of
/// the task that received it before the browser had optimised the page). `painted` runs
/// with the CSS width once the whole picture is on the canvas.
#[component]
fn ChartCanvas(
    page_view: RwSignal<View>,
    testid: &'static str,
    label: &'static str,
    height: f64,
    scene: impl Fn(f64, f64) -> Option<Scene> + Send + Sync + 'static,
    #[prop(optional, into)] painted: Option<Callback<f64>>,
) -> impl IntoView {
    let theme = expect_context::<ThemeState>();
    let canvas_ref = NodeRef::<html::Canvas>::new();
    // Inside views that are rebuilt (the selected config's panel): see `tracked_width`.
    let width = tracked_width(
        move || canvas_ref.try_get_untracked().flatten().map(Into::into),
        move || page_view.track(),
    );
    let token = Rc::new(Cell::new(0u64));
    Effect::new(move |_| {
        let w = width.get();
        let theme = theme.shown();
        if w <= 1.0 || page_view.get() != View::Explore {
            return;
        }
        let (Some(canvas), Some(picture)) = (canvas_ref.get(), scene(w, device_pixel_ratio()))
        else {
            return;
        };
        token.set(token.get() + 1);
        let token = Rc::clone(&token);
        request_animation_frame(move || {
            let target = canvas.clone();
            let done: Rc<dyn Fn()> = Rc::new(move || {
                let _ = target.set_attribute("data-drawn", "true");
                if let Some(painted) = painted {
                    painted.run(w);
                }
            });
            paint_sliced(canvas, Rc::new(picture), theme, 12.0, token, done);
        });
    });
    view! {
        <canvas
            class="chart-canvas"
            data-testid=testid
            node_ref=canvas_ref
            role="img"
            aria-label=label
            style:height=format!("{height}px")
        ></canvas>
    }
}

/// Latency as each of CP, TP, PP, DP and EP varies around the selected configuration.
#[component]
pub fn SensitivityChart(explore: ExploreState, page_view: RwSignal<View>) -> impl IntoView {
    view! {
        <h4>"One knob at a time"</h4>
        <ChartCanvas page_view=page_view
            testid="sensitivity-canvas"
            label="Latency as one knob varies around the selected configuration; crosses do not fit"
            height=170.0
            scene=move |w, s| explore.sensitivity.with(|r| r.as_ref().map(|r| sensitivity_scene(r, w, 170.0, s)))
        />
        <p class="small muted">"Dots fit, crosses do not fit or place; the ring is the selected configuration."</p>
    }
}

/// CSS height of the batch view.
const BATCH_HEIGHT: f64 = 300.0;

/// Throughput per PE against throughput per user, one frontier per batch size. Hover
/// names a point's configuration; a click switches the batch to its size and selects it.
#[component]
pub fn BatchView(explore: ExploreState, page_view: RwSignal<View>) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let pending = StoredValue::new(0u64);
    // (series, point, x, y) under the pointer.
    let hover = RwSignal::new(None::<(usize, usize, f64, f64)>);
    let hit = move |ev: &MouseEvent| -> Option<(usize, usize, f64, f64)> {
        let canvas = canvas_by_testid("batch-canvas")?;
        let rect = canvas.get_bounding_client_rect();
        let (x, y) = (
            f64::from(ev.client_x()) - rect.left(),
            f64::from(ev.client_y()) - rect.top(),
        );
        explore.batch.with_untracked(|p| {
            let p = p.as_ref()?;
            batch_hit(p, rect.width(), BATCH_HEIGHT, x, y, 7.0).map(|(b, k)| (b, k, x, y))
        })
    };
    let pick = move |b: usize, k: usize| {
        let found = explore.batch.with_untracked(|p| {
            let s = p.as_ref()?.series.get(b)?;
            Some((s.batch, s.keys.get(k)?.clone()))
        });
        if let Some((batch, key)) = found {
            explore.settings.update(|s| s.batch = batch.to_string());
            explore.selected.set(Some(key));
            schedule_sweep(explore, workers, pending);
        }
    };
    // Where one point is drawn (CSS px), for tests and tools: `data-probe="x,y"` on the
    // canvas, set once its picture is painted.
    let mark_probe = move |width: f64| {
        let probe = explore.batch.with_untracked(|p| {
            let p = p.as_ref()?;
            let axes = BatchAxes::fit(p, width, BATCH_HEIGHT)?;
            let series = p.series.iter().find(|s| !s.points.is_empty())?;
            let (x, y) = axes.pos(series.points[0]);
            Some(format!("{x:.1},{y:.1}"))
        });
        if let (Some(text), Some(canvas)) = (probe, canvas_by_testid("batch-canvas")) {
            let _ = canvas.set_attribute("data-probe", &text);
        }
    };
    view! {
        <section
            class="card batch-card"
            aria-labelledby="batch-title"
            data-testid="batch-view"
            data-elapsed-ms=move || format!("{:.1}", explore.batch_ms.get())
            data-runs=move || explore.batch_runs.get().to_string()
            data-envelope=move || explore.batch.with(|p| p.as_ref().map(|p| p.envelope_text()))
            data-state=move || {
                if explore.batch_running.get() {
                    "running"
                } else if explore.batch.with(Option::is_some) {
                    "done"
                } else {
                    "idle"
                }
            }
        >
            <BatchToolbar explore />
            <div
                class="scatter-wrap"
                on:mousemove=move |ev: MouseEvent| hover.set(hit(&ev))
                on:mouseleave=move |_| hover.set(None)
                on:click=move |ev: MouseEvent| {
                    if let Some((b, k, _, _)) = hit(&ev) {
                        pick(b, k);
                    }
                }
            >
                <ChartCanvas page_view=page_view
                    testid="batch-canvas"
                    label="Throughput per PE against throughput per user for each batch size's frontier"
                    height=BATCH_HEIGHT
                    scene=move |w, s| explore.batch.with(|r| r.as_ref().map(|r| batch_scene(r, w, BATCH_HEIGHT, s)))
                    painted=mark_probe
                />
                <BatchTooltip explore hover />
            </div>
            <p class="small muted">
                "Up and right is better. Each batch size's frontier configurations are its dots; its step line "
                "joins those no other of its configurations beats on both axes. The bold line is the best "
                "over every batch size, labelled with the batch at each corner. A time-per-output-token "
                "objective is the vertical line (users left of it are too slow)."
            </p>
        </section>
    }
}

/// The batch view's title, its state while sweeping, Cancel and Run again.
#[component]
fn BatchToolbar(explore: ExploreState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    view! {
        <div class="scatter-toolbar">
            <h3 id="batch-title">
                "Serving: tokens/s per PE against tokens/s per user"
                <span class="muted small">{format!(" · B = {}…{}", BATCHES[0], BATCHES[BATCHES.len() - 1])}</span>
            </h3>
            <div class="button-row">
                <span class="muted small" role="status" aria-live="polite">
                    {move || explore.batch_running.get().then_some("Sweeping every batch size…")}
                </span>
                <button
                    type="button"
                    class="button small"
                    data-testid="batch-cancel"
                    hidden=move || !explore.batch_running.get()
                    on:click=move |_| cancel_batch(explore, workers)
                >
                    "Cancel"
                </button>
                <button
                    type="button"
                    class="button small"
                    data-testid="batch-run"
                    hidden=move || explore.batch_running.get()
                    disabled=move || explore.answer.with(Option::is_none)
                    on:click=move |_| run_batch(explore, workers)
                >
                    "Run again"
                </button>
            </div>
        </div>
    }
}

/// The configuration under the pointer (`hover`: series, point, x, y), beside it.
#[component]
fn BatchTooltip(
    explore: ExploreState,
    hover: RwSignal<Option<(usize, usize, f64, f64)>>,
) -> impl IntoView {
    move || {
        let (b, k, x, y) = hover.get()?;
        let text = explore.batch.with(|p| {
            let s = p.as_ref()?.series.get(b)?;
            let (u, pe) = *s.points.get(k)?;
            Some(format!(
                "B = {} · {} — {:.1} tokens/s per user, {:.2} per PE (click to select)",
                s.batch,
                s.keys.get(k)?,
                u,
                pe
            ))
        })?;
        Some(view! {
            <div
                class="timeline-tooltip"
                role="status"
                style:left=format!("{}px", x + 14.0)
                style:top=format!("{}px", y + 14.0)
            >
                {text}
            </div>
        })
    }
}

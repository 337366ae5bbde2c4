//! Painting the timeline: once per animation frame whatever changed, the lanes in
//! slices (never a long task), the overview strip in a task of its own. The pictures
//! come from the core (`view::timeline_scene`).

use std::cell::Cell;
use std::rc::Rc;

use leptos::html;
use leptos::prelude::*;
use shardscope_view::timeline_scene::{overview_scene, timeline_scene, CompareLanes, TimelineSpec};

use super::super::super::canvas::device_pixel_ratio;
use super::super::super::now_ms;
use super::super::super::paint::{mark_paint_ms, paint, paint_sliced};
use super::super::super::theme::ThemeState;
use super::model::TimelineModel;
use shardscope_view::theme::Theme;

/// The longest a timeline picture paints in one frame: the frame also lays out, paints
/// and commits the page and the canvas (20–35 ms for two runs' 128 lanes beside run A's
/// 8,384-row table).
const SLICE_MS: f64 = 6.0;

/// Repaint both canvases whenever what they show changes.
pub fn paint_on_change(
    model: TimelineModel,
    lanes: NodeRef<html::Canvas>,
    overview: NodeRef<html::Canvas>,
) {
    let trace = model.trace;
    let theme = expect_context::<ThemeState>();
    let slice_token = Rc::new(Cell::new(0u64));
    let draw = move |paint_now: bool| {
        let shown = untrack(|| theme.shown());
        paint_lanes(model, lanes, &slice_token, shown, paint_now);
        // The overview in a task of its own: after a big load the first full picture of
        // both would be one long task.
        set_timeout(
            move || paint_overview(model, overview, shown),
            std::time::Duration::ZERO,
        );
    };
    let draw = Rc::new(draw);
    let scheduled = Rc::new(Cell::new(false));
    let schedule = move || {
        if scheduled.replace(true) {
            return;
        }
        let (scheduled, draw) = (Rc::clone(&scheduled), Rc::clone(&draw));
        // Built in a task of its own, painted from the next frame on: the picture of
        // two runs' 128 lanes takes 5–7 ms to build, which the frame that paints (and
        // lays out and commits a big canvas) cannot spare. The picture before the
        // worker's first window of a new report (intervals only) is also painted in that
        // task: the frame that shows a new report is busy laying out the page, and its
        // first picture is painted by code the browser has not optimised yet.
        let paint_now = trace.frame.with_untracked(Option::is_none);
        set_timeout(
            move || {
                scheduled.set(false);
                draw(paint_now);
            },
            std::time::Duration::ZERO,
        );
    };
    Effect::new(move |_| {
        trace.frame.track();
        model.compare.frame.track();
        model.b_shift_ns.track();
        model.b_rows.track();
        trace.overview.track();
        trace.selected.track();
        trace.shown_classes.track();
        model.window.track();
        model.layout.track();
        model.hover.track();
        model.cursor.track();
        model.rows.track();
        theme.choice.track();
        theme.system_dark.track();
        schedule();
    });
}

/// The lanes, in 12 ms slices, one per frame: a picture painted warm within that (up
/// to some 20,000 shapes) still appears at once, and a slower one (a whole big trace;
/// the first picture after a load) never makes a long task. A newer picture abandons
/// an unfinished one (`slice_token`).
fn paint_lanes(
    model: TimelineModel,
    lanes: NodeRef<html::Canvas>,
    slice_token: &Rc<Cell<u64>>,
    theme: Theme,
    paint_now: bool,
) {
    let (Some(window), Some(canvas)) = (model.window.get_untracked(), lanes.get_untracked()) else {
        return;
    };
    let trace = model.trace;
    let rows = model.rows.get_untracked();
    let ranks = model.ranks.get_untracked();
    let frame = trace.frame.get_untracked();
    let hover = model.hover.get_untracked();
    let b_rows = model.b_rows.get_untracked();
    let b_frame = model.compare.frame.get_untracked();
    let compare = model
        .b_shift_ns
        .get_untracked()
        .map(|shift_ns| CompareLanes {
            frame: b_frame.as_deref(),
            rows: &b_rows,
            shift_ns,
        });
    let spec = TimelineSpec {
        layout: model.layout.get_untracked(),
        scale: device_pixel_ratio(),
        window,
        origin_ns: model.origin_ns.get_untracked(),
        ranks: &ranks,
        frame: frame.as_deref(),
        rows: &rows,
        shown: trace.shown_classes.get_untracked(),
        selected: model.selected_row(),
        hovered: hover
            .as_ref()
            .and_then(|h| h.interval)
            .or_else(|| model.cursor_row()),
        hover_x: hover.as_ref().map(|h| h.x),
        compare,
    };
    let started = now_ms();
    let scene = timeline_scene(&spec);
    let _ = canvas.set_attribute("data-shapes", &scene.shapes.len().to_string());
    let _ = canvas.set_attribute("data-scene-ms", &format!("{:.1}", now_ms() - started));
    let mine = slice_token.get() + 1;
    slice_token.set(mine);
    let target = canvas.clone();
    let done: Rc<dyn Fn()> = Rc::new(move || mark_paint_ms(&target, started));
    let token = Rc::clone(slice_token);
    let target = canvas.clone();
    let paint = move || {
        // A newer picture was built meanwhile: it paints instead.
        if token.get() == mine {
            paint_sliced(target, Rc::new(scene), theme, SLICE_MS, token, done);
        }
    };
    if paint_now {
        paint();
    } else {
        request_animation_frame(paint);
    }
    let _ = canvas.set_attribute(
        "data-query-ms",
        &format!("{:.1}", trace.frame_query_ms.get_untracked()),
    );
}

/// The overview strip: the whole trace, the visible window marked.
fn paint_overview(model: TimelineModel, overview: NodeRef<html::Canvas>, theme: Theme) {
    let (Some(canvas), Some(window), Some(bounds)) = (
        overview.get_untracked(),
        model.window.get_untracked(),
        model.bounds.get_untracked(),
    ) else {
        return;
    };
    let trace = model.trace;
    let gap_max = trace.overview.get_untracked().unwrap_or_default();
    let rows = model.rows.get_untracked();
    let scene = overview_scene(
        &model.layout.get_untracked(),
        device_pixel_ratio(),
        bounds,
        window,
        &gap_max,
        &rows[..],
        trace.shown_classes.get_untracked(),
    );
    let started = now_ms();
    if let Err(e) = paint(&canvas, &scene, theme) {
        web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&e.to_string()));
    }
    mark_paint_ms(&canvas, started);
}

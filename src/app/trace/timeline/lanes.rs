//! The per-rank lanes canvas and its input: Perfetto's W/S and wheel zoom at the
//! cursor, A/D and drag pan, Esc to reset, arrows to move a keyboard cursor between
//! intervals and Enter to select it (again, or Z, or a double click: zoom to it), `?`
//! for the key list, hover and click selection. Which event does what is the core's
//! (`view::timeline_input`); the handlers read the event and apply the answer.

use leptos::ev::{KeyboardEvent, MouseEvent, WheelEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_view::timeline_input::{timeline_label, Action, Press, Wheel, DOUBLE_CLICK_ZOOM};

use super::model::TimelineModel;

/// The pointer's position in `canvas`, CSS px.
pub fn local_xy(canvas: NodeRef<html::Canvas>, ev: &MouseEvent) -> Option<(f64, f64)> {
    let rect = canvas.get_untracked()?.get_bounding_client_rect();
    Some((
        f64::from(ev.client_x()) - rect.left(),
        f64::from(ev.client_y()) - rect.top(),
    ))
}

/// Apply a key's action.
fn apply(model: TimelineModel, action: Action, anchor_ns: Option<i64>) {
    let zoom_to_selected = || {
        if let Some(i) = model.selected_row() {
            model.zoom_to_row(i);
        }
    };
    match action {
        Action::Zoom(factor) => model.zoom(factor, anchor_ns),
        Action::Pan(fraction) => model.pan(fraction),
        // Esc closes the key list first.
        Action::Reset if model.trace.key_help.get_untracked() => model.trace.key_help.set(false),
        Action::Reset => model.trace.window.set(None),
        Action::ZoomToSelected => zoom_to_selected(),
        Action::Step(step) => model.step(step),
        Action::Choose => match model.cursor_row() {
            Some(i) if model.selected_row() != Some(i) => model.select_row(Some(i)),
            _ => zoom_to_selected(),
        },
        Action::Help => model.trace.key_help.update(|on| *on = !*on),
    }
}

#[component]
pub fn Lanes(model: TimelineModel, canvas: NodeRef<html::Canvas>) -> impl IntoView {
    let press = StoredValue::new(None::<Press>);
    let hover = model.hover;
    let hit_at = move |ev: &MouseEvent| {
        let (x, y) = local_xy(canvas, ev)?;
        model.hit(x, y)
    };

    let on_key = move |ev: KeyboardEvent| {
        let modifier = ev.ctrl_key() || ev.meta_key() || ev.alt_key();
        if let Some(action) = Action::from_key(&ev.key(), modifier) {
            ev.prevent_default();
            apply(model, action, model.anchor_ns());
        }
    };
    let on_wheel = move |ev: WheelEvent| {
        if model.window.get_untracked().is_none() {
            return;
        }
        ev.prevent_default();
        let wheel = Wheel {
            dx: ev.delta_x(),
            dy: ev.delta_y(),
            delta_mode: ev.delta_mode(),
            shift: ev.shift_key(),
        };
        match wheel.action(model.layout.get_untracked().plot_width()) {
            // Only a zoom needs the pointer's time (reading it forces a layout).
            Action::Zoom(factor) => model.zoom(factor, hit_at(&ev).map(|h| h.ts_ns)),
            Action::Pan(fraction) => model.pan(fraction),
            _ => {}
        }
    };
    let on_down = move |ev: MouseEvent| {
        if ev.button() != 0 {
            return;
        }
        if let (Some((x, _)), Some(window)) = (local_xy(canvas, &ev), model.window.get_untracked())
        {
            press.set_value(Some(Press::new(x, window)));
        }
    };
    let on_move = move |ev: MouseEvent| {
        let Some((x, y)) = local_xy(canvas, &ev) else {
            return;
        };
        if let Some(mut p) = press.get_value() {
            if ev.buttons() & 1 == 0 {
                // Released outside the canvas.
                press.set_value(None);
            } else {
                let panned = p.move_to(x, model.layout.get_untracked().plot_width());
                press.set_value(Some(p));
                if let Some(w) = panned {
                    model.set_window(w);
                }
            }
        }
        hover.set(model.hit(x, y));
    };
    let on_up = move |ev: MouseEvent| {
        if let Some(p) = press.get_value() {
            press.set_value(None);
            if p.is_click() {
                model.select_row(hit_at(&ev).and_then(|h| h.interval));
            }
        }
    };
    let on_dblclick = move |ev: MouseEvent| {
        let Some(h) = hit_at(&ev) else {
            return;
        };
        match h.interval {
            Some(i) => {
                model.select_row(Some(i));
                model.zoom_to_row(i);
            }
            None => model.zoom(DOUBLE_CLICK_ZOOM, Some(h.ts_ns)),
        }
    };

    view! {
        <canvas
            class="timeline-canvas"
            data-testid="timeline-canvas"
            node_ref=canvas
            tabindex="0"
            role="img"
            aria-label=move || {
                let selected = model.trace.selected.get().and_then(|_| model.selected_row());
                model.rows.with(|rows| {
                    timeline_label(
                        model.ranks.with(Vec::len),
                        rows.len(),
                        model.bounds.get(),
                        model.window.get(),
                        model.origin_ns.get(),
                        selected.and_then(|i| rows.get(i)),
                    )
                })
            }
            aria-keyshortcuts="W S A D ArrowLeft ArrowRight ArrowUp ArrowDown Enter Z Escape ?"
            data-view-start-ns=move || model.window.get().map(|w| w.start_ns.to_string())
            data-view-end-ns=move || model.window.get().map(|w| w.end_ns.to_string())
            data-lanes=move || model.ranks.with(Vec::len).to_string()
            data-lanes-per-rank=move || model.per_rank.get().to_string()
            data-b-shift-ns=move || model.b_shift_ns.get().map(|s| s.to_string())
            style:height=move || format!("{}px", model.layout.get().height)
            on:keydown=on_key
            on:wheel=on_wheel
            on:mousedown=on_down
            on:mousemove=on_move
            on:mouseup=on_up
            on:dblclick=on_dblclick
            on:mouseleave=move |_| hover.set(None)
        ></canvas>
    }
}

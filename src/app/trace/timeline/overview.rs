//! The overview strip above the lanes: the whole trace's gap, the visible window
//! marked; press or drag on it to move the window there.

use leptos::ev::MouseEvent;
use leptos::html;
use leptos::prelude::*;
use shardscope_view::timeline::TimeWindow;
use shardscope_view::timeline_scene::OVERVIEW_HEIGHT;

use super::lanes::local_xy;
use super::model::TimelineModel;

#[component]
pub fn Overview(model: TimelineModel, canvas: NodeRef<html::Canvas>) -> impl IntoView {
    let dragging = StoredValue::new(false);
    // Centre the window on the time under the pointer.
    let jump = move |ev: &MouseEvent| {
        let (Some((x, _)), Some(b), Some(window)) = (
            local_xy(canvas, ev),
            model.bounds.get_untracked(),
            model.window.get_untracked(),
        ) else {
            return;
        };
        let ts_ns = model.layout.get_untracked().xmap(b).ns(x);
        model.set_window(TimeWindow::centred_at(ts_ns, window.span_ns()));
    };
    view! {
        <canvas
            class="timeline-overview"
            data-testid="timeline-overview"
            node_ref=canvas
            aria-label="Overview of the whole trace; click or drag to move the visible window"
            style:height=format!("{OVERVIEW_HEIGHT}px")
            on:mousedown=move |ev| {
                if ev.button() == 0 {
                    dragging.set_value(true);
                    jump(&ev);
                }
            }
            on:mousemove=move |ev| {
                if dragging.get_value() {
                    if ev.buttons() & 1 == 0 {
                        dragging.set_value(false);
                    } else {
                        jump(&ev);
                    }
                }
            }
            on:mouseup=move |_| dragging.set_value(false)
        ></canvas>
    }
}

//! The hover tooltip: the time, rank and gap under the pointer and the interval there.
//! Its lines are the core's (`view::timeline_input::tooltip_lines`, `interval_line`).

use leptos::prelude::*;
use shardscope_view::timeline_input::{interval_line, tooltip_lines, HoverPoint};
use shardscope_view::timeline_scene::class_color;

use super::model::TimelineModel;

/// Past this many CSS px from the right edge the tooltip opens to the left.
const FLIP_FROM_RIGHT_PX: f64 = 260.0;
/// Offset from the pointer.
const OFFSET_PX: f64 = 14.0;

#[component]
pub fn Tooltip(model: TimelineModel) -> impl IntoView {
    move || {
        let h = model.hover.get()?;
        let window = model.window.get()?;
        let l = model.layout.get();
        if !l.in_plot(h.x) {
            return None;
        }
        let ns_per_px = window.span_ns() as f64 / l.plot_width();
        let origin_ns = model.origin_ns.get();
        // On run B's lanes: B's own time and gap, the offset on run A's axis.
        let (lines, interval) = match (h.b_ts_ns, model.b_shift_ns.get()) {
            (Some(b_ts), Some(shift)) => {
                let point = HoverPoint {
                    rank: h.rank,
                    ts_ns: b_ts,
                };
                let mut lines = vec!["run B".to_string()];
                lines.extend(model.compare.frame.with(|frame| {
                    tooltip_lines(
                        point,
                        origin_ns.saturating_sub(shift),
                        ns_per_px,
                        frame.as_deref(),
                    )
                }));
                let interval = h
                    .b_interval
                    .and_then(|i| model.b_rows.with(|r| r.get(i).cloned()));
                (lines, interval)
            }
            _ => {
                let point = HoverPoint {
                    rank: h.rank,
                    ts_ns: h.ts_ns,
                };
                let lines = model
                    .trace
                    .frame
                    .with(|frame| tooltip_lines(point, origin_ns, ns_per_px, frame.as_deref()));
                let interval = h
                    .interval
                    .and_then(|i| model.rows.with(|r| r.get(i).cloned()));
                (lines, interval)
            }
        };
        let flip = h.x > l.width - FLIP_FROM_RIGHT_PX;
        Some(view! {
            <div
                class="timeline-tooltip"
                role="status"
                style:left=(!flip).then(|| format!("{}px", h.x + OFFSET_PX))
                style:right=flip.then(|| format!("{}px", l.width - h.x + OFFSET_PX))
                style:top=format!("{}px", h.y + OFFSET_PX)
            >
                {lines.into_iter().map(|t| view! { <div>{t}</div> }).collect_view()}
                {interval.map(|r| {
                    view! {
                        <div class="tooltip-interval">
                            <span class="swatch" style:background=class_color(r.classification).css()></span>
                            {interval_line(&r)}
                        </div>
                    }
                })}
            </div>
        })
    }
}

//! The selected interval, explained: classification and confidence with the thresholds
//! it passed, every evidence field with its unit, every reason code in a sentence, the
//! phase.

use leptos::prelude::*;
use shardscope_attribution::analysis::{IntervalRow, PhaseLabel};
use shardscope_attribution::attribution::AttributionConfig;
use shardscope_view::explain::{confidence_text, evidence_lines, reason_sentence};
use shardscope_view::format::format_duration;
use shardscope_view::timeline::{format_offset, trace_bounds, TimeWindow};
use shardscope_view::timeline_scene::class_color;

use super::super::state::TraceState;

#[component]
pub fn IntervalDetail(trace: TraceState) -> impl IntoView {
    let selected = Memo::new(move |_| {
        let (rank, start) = trace.selected.get()?;
        trace.run.report.with(|r| {
            let r = r.as_ref()?;
            let i = r
                .rows
                .iter()
                .position(|x| x.rank == rank && x.interval_start_ns == start)?;
            Some((i, r.rows[i].clone()))
        })
    });
    let config = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().and_then(|r| r.config.clone()))
    };
    let origin = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().and_then(|r| r.trace_start_ns))
            .unwrap_or(0)
    };
    let phases_on = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().is_some_and(|r| r.phases))
    };

    let step = move |delta: isize| {
        trace.run.report.with_untracked(|r| {
            let Some(r) = r.as_ref() else {
                return;
            };
            let current = selected.get_untracked().map(|(i, _)| i);
            let next = match current {
                Some(i) => i as isize + delta,
                None => 0,
            };
            if let Some(row) = usize::try_from(next).ok().and_then(|n| r.rows.get(n)) {
                trace.selected.set(Some((row.rank, row.interval_start_ns)));
            }
        });
    };
    let zoom_to = move |row: &IntervalRow| {
        let bounds = trace.run.report.with_untracked(|r| {
            r.as_ref()
                .and_then(|r| match (r.trace_start_ns, r.trace_end_ns) {
                    (Some(a), Some(b)) => Some(trace_bounds(a, b, &r.rows)),
                    _ => None,
                })
        });
        if let Some(b) = bounds {
            trace.window.set(Some(TimeWindow::around(
                row.interval_start_ns,
                row.interval_end_ns,
                0.6,
                b,
            )));
        }
    };

    move || match selected.get() {
        None => view! {
            <aside class="detail card empty" aria-live="polite">
                <h3>"Selected interval"</h3>
                <p class="hint">
                    "Click a band on the timeline or a row of the table to see why it was "
                    "attributed to collective communication."
                </p>
            </aside>
        }
        .into_any(),
        Some((_, row)) => {
            let config = config();
            let color = class_color(row.classification);
            let for_zoom = row.clone();
            view! {
                <aside
                    class="detail card"
                    data-testid="interval-detail"
                    data-rank=row.rank.to_string()
                    data-start-ns=row.interval_start_ns.to_string()
                    data-end-ns=row.interval_end_ns.to_string()
                    data-classification=row.classification.as_str()
                    aria-live="polite"
                >
                    <h3>
                        <span class="swatch" style:background=color.css()></span>
                        {format!("Rank {} · {}", row.rank, row.classification.short())}
                    </h3>
                    <p class="when">
                        {format!(
                            "{} for {}",
                            format_offset(row.interval_start_ns - origin(), 1_000_000),
                            format_duration(row.duration_ns())
                        )}
                    </p>
                    <p class="confidence">
                        <strong>{format!("Confidence {:.3}", row.confidence)}</strong>
                        {format!(": {}", confidence_text(&row, config.as_ref()))}
                    </p>
                    <Explanation row=row.clone() config=config.clone() phases_on=Signal::derive(phases_on) />
                    <div class="detail-actions">
                        <button type="button" class="button" on:click=move |_| step(-1) title="Previous interval">"◀ Previous"</button>
                        <button type="button" class="button" on:click=move |_| zoom_to(&for_zoom)>"Zoom to it"</button>
                        <button type="button" class="button" on:click=move |_| step(1) title="Next interval">"Next ▶"</button>
                    </div>
                </aside>
            }
            .into_any()
        }
    }
}

/// Why the interval was attributed: its evidence with units, each reason code in a
/// sentence, and its phase.
#[component]
fn Explanation(
    row: IntervalRow,
    config: Option<AttributionConfig>,
    #[prop(into)] phases_on: Signal<bool>,
) -> impl IntoView {
    let evidence = config
        .as_ref()
        .map(|c| evidence_lines(&row, c))
        .unwrap_or_default();
    let phase = match &row.phase {
        Some(PhaseLabel::Unique(p)) => p.clone(),
        Some(PhaseLabel::Ambiguous(paths)) => format!("ambiguous: {}", paths.join(" | ")),
        None => "no phase was active".to_string(),
    };
    view! {
        <h4>"Evidence"</h4>
        <dl class="evidence">
            {evidence
                .into_iter()
                .map(|e| view! {
                    <dt>{e.label}</dt>
                    <dd data-field=e.field>
                        <span class="value">{e.value}</span>
                        <span class="meaning">{e.meaning}</span>
                    </dd>
                })
                .collect_view()}
        </dl>
        <h4>"Why"</h4>
        <ul class="reasons">
            {row
                .reason_codes
                .iter()
                .map(|code| view! {
                    <li>
                        <code>{code.as_str()}</code>
                        <span>{reason_sentence(*code)}</span>
                    </li>
                })
                .collect_view()}
        </ul>
        <Show when=move || phases_on.get()>
            <h4>"Phase"</h4>
            <p class="phase">{phase.clone()}</p>
        </Show>
    }
}

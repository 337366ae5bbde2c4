//! The clocks panel (`clock-panel`): every rank's clock against the reference rank, as
//! the worker estimated it from the session's collective markers (core `clocks`), and
//! the two toggles that use it: lanes drawn on aligned time (`align-toggle`) and
//! attribution on aligned clocks (`align-attribute-toggle`, beyond stormlog). Rows and
//! words come from `view::clocks`.

use leptos::ev::Event;
use leptos::prelude::*;
use shardscope_view::clocks_panel::{clock_rows, clocks_summary, ClockRow};

use super::super::state::AppState;
use super::super::workers::WorkersHandle;
use super::jobs::rerun;

#[component]
pub fn ClocksPanel(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let trace = state.trace;
    let settings = trace.run.settings;
    let clocks = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().and_then(|r| r.clocks.clone()))
    };
    let problem = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().and_then(|r| r.clocks_problem.clone()))
    };
    let rows = move || clocks().map(|a| clock_rows(&a)).unwrap_or_default();
    let summary = move || clocks().map(|a| clocks_summary(&a));
    let on_lanes = move |ev: Event| {
        settings.align_lanes.set(event_target_checked(&ev));
        rerun(state, workers);
    };
    let on_attribute = move |ev: Event| {
        settings.align_clocks.set(event_target_checked(&ev));
        rerun(state, workers);
    };
    let usable = move || clocks().is_some_and(|a| a.ranks.len() > 1);
    view! {
        <section class="card clocks-card" data-testid="clock-panel" aria-labelledby="clocks-title">
            <h2 id="clocks-title">
                "Clocks "
                <span class="badge beyond" title="stormlog compares raw timestamps">"beyond stormlog"</span>
            </h2>
            <p class="small muted">
                "Each rank's clock against the reference, estimated from the run's own collectives \
                 (they end at nearly the same instant on every rank): t_rank = t_ref + offset + drift."
            </p>
            <p class="small" role="status">{move || problem().or_else(summary)}</p>
            <div class="field checkbox">
                <input
                    id="align-toggle"
                    type="checkbox"
                    data-testid="align-toggle"
                    disabled=move || !usable() || settings.align_clocks.get()
                    prop:checked=move || settings.align_lanes.get() || settings.align_clocks.get()
                    on:change=on_lanes
                />
                <label for="align-toggle">"Draw lanes on aligned clocks"</label>
            </div>
            <div class="field checkbox">
                <input
                    id="align-attribute-toggle"
                    type="checkbox"
                    data-testid="align-attribute-toggle"
                    disabled=move || !usable()
                    prop:checked=move || settings.align_clocks.get()
                    on:change=on_attribute
                />
                <label for="align-attribute-toggle">"Attribute on aligned clocks (beyond stormlog)"</label>
            </div>
            <Show when=move || !rows().is_empty()>
                // Focusable, so that its rows scroll by keyboard too.
                <div class="table-scroll clocks-scroll" tabindex="0" role="region" aria-label="Each rank's clock">
                    <table class="clocks-table">
                        <thead>
                            <tr>
                                <th scope="col" class="num">"Rank"</th>
                                <th scope="col" class="num" title="t_rank − t_ref at the epoch, milliseconds">"Offset ms"</th>
                                <th scope="col" class="num" title="parts per million">"Drift ppm"</th>
                                <th scope="col" title="markers matched to the reference's · median absolute misfit">"Status"</th>
                            </tr>
                        </thead>
                        <tbody>
                            <For each=rows key=|r: &ClockRow| (r.rank, r.offset_ns.clone(), r.status) children=clock_row />
                        </tbody>
                    </table>
                </div>
            </Show>
        </section>
    }
}

fn clock_row(r: ClockRow) -> impl IntoView {
    view! {
        <tr
            data-testid="clock-row"
            data-rank=r.rank.to_string()
            data-status=r.status
            data-offset-ns=r.offset_ns
            class=format!("clock-{}", r.status)
        >
            <td class="num">{r.rank}</td>
            <td class="num">{r.offset}</td>
            <td class="num">{r.drift}</td>
            <td>
                {r.words}
                <span class="clock-fit">{r.fit}</span>
            </td>
        </tr>
    }
}

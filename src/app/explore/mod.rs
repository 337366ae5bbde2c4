//! The explore view: every configuration of the 9-knob space for a model on a machine,
//! the Pareto frontier of latency and PEs, the selected configuration explained.
//!
//! Module map: [`jobs`] (sweeps, breakdowns, exports), [`settings`] (the settings
//! column), [`scatter`] (the canvas), [`detail`] (the selected and pinned
//! configurations), [`scenarios`] (kept settings compared on the scatter), [`calibration`] (the model fitted
//! to measurements), this module (layout, summary, frontier table). What is computed or decided lives in the core
//! (`view::explore`, `view::scatter`).

pub mod all;
pub mod calibration;
pub mod charts;
pub mod custom;
pub mod detail;
pub mod jobs;
pub mod scatter;
pub mod scenarios;
pub mod settings;

use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;
use shardscope_explorer::{ConfigScore, Mode};
use shardscope_session::explore_settings::short_key;
use shardscope_view::explore::{
    calibration_stat, calibration_text, latency_text, objective_stat, pareto_rows_html,
};
use wasm_bindgen::JsCast;

use super::sort_header::sort_header;
use super::state::{ExploreState, ParetoSort, Phase, TraceReportSignal, View};
use super::tasks::Later;
use super::workers::WorkersHandle;
use all::AllConfigs;
use calibration::CalibrationSummary;
use charts::BatchView;
use detail::{ConfigDetail, PinnedCompare};
use jobs::evaluate;
use scatter::Scatter;
use scenarios::ScenarioPanel;
use settings::ExploreSettingsPanel;

/// The explorer's `data-state` names (`explore-status`).
pub fn explore_state_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Idle => "idle",
        Phase::Loading => "running",
        Phase::Done => "done",
        Phase::Error => "error",
    }
}

/// The counts of the last sweep.
#[component]
fn Summary(explore: ExploreState) -> impl IntoView {
    let attr = move |f: fn(&super::state::Explored) -> String| {
        move || explore.answer.with(|a| a.as_ref().map(|a| f(a)))
    };
    let stat = move |label: &'static str, f: fn(&super::state::Explored) -> String| {
        view! {
            <div class="stat">
                <span class="stat-value">{move || explore.answer.with(|a| a.as_ref().map(|a| f(a))).unwrap_or_else(|| "–".into())}</span>
                <span class="stat-label">{label}</span>
            </div>
        }
    };
    let objective = move || {
        objective_stat(
            explore
                .answer
                .with(|a| a.as_ref().and_then(|a| a.report.total_within_sla)),
        )
    };
    view! {
        <section
            class="card summary"
            data-testid="explore-summary"
            aria-label="Sweep summary"
            data-enumerated=attr(|a| a.report.total_enumerated.to_string())
            data-feasible=attr(|a| a.report.total_feasible.to_string())
            data-pareto=attr(|a| a.report.pareto.len().to_string())
            data-elapsed-ms=attr(|a| format!("{:.1}", a.elapsed_ms))
            data-calibrated=attr(|a| a.report.calibration.is_some().to_string())
        >
            {stat("configurations", |a| a.report.total_enumerated.to_string())}
            {stat("fit and place", |a| a.report.total_feasible.to_string())}
            <div class="stat">
                <span class="stat-value">{move || objective().0}</span>
                <span class="stat-label">{move || objective().1}</span>
            </div>
            {stat("on the frontier", |a| a.report.pareto.len().to_string())}
            {stat("best latency", |a| {
                a.report.pareto.first().map_or_else(|| "–".to_string(), |c| latency_text(c.total_latency_ns))
            })}
            {stat("sweep time", |a| format!("{:.0} ms", a.elapsed_ms))}
            {move || explore.answer.with(|a| {
                a.as_ref().and_then(|a| a.report.calibration.as_ref()).map(|c| view! {
                    <div class="stat calibrated" title=calibration_text(c)>
                        <span class="stat-value">{calibration_stat(c)}</span>
                        <span class="stat-label">"calibrated"</span>
                    </div>
                })
            })}
        </section>
    }
}

/// The frontier, one `pareto-row` per configuration; click selects.
#[component]
fn ParetoTable(explore: ExploreState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let rows = Memo::new(move |_| {
        let (sort, ascending) = explore.sort.get();
        let mut rows: Vec<ConfigScore> = explore
            .answer
            .with(|a| a.as_ref().map(|a| a.report.pareto.clone()))
            .unwrap_or_default();
        // Stable: ties keep the CLI's (latency) order.
        rows.sort_by(|a, b| {
            let o = match sort {
                ParetoSort::Latency => a.total_latency_ns.total_cmp(&b.total_latency_ns),
                ParetoSort::Pes => a.pes_used.cmp(&b.pes_used),
                ParetoSort::Efficiency => a.efficiency_score.total_cmp(&b.efficiency_score),
            };
            if ascending {
                o
            } else {
                o.reverse()
            }
        });
        rows
    });
    let header = move |key: ParetoSort, label: &'static str| {
        sort_header(explore.sort, key, label, true, None, |k| {
            k != ParetoSort::Efficiency
        })
    };
    // The rows, as `<tbody>` chunks after the `<thead>` (see `pareto_rows_html`).
    let table_ref = NodeRef::<html::Table>::new();
    Effect::new(move |_| {
        let selected = explore.selected.get();
        let html = rows.with(|r| pareto_rows_html(r, selected.as_deref()));
        let Some(table) = table_ref.get() else {
            return;
        };
        while let Ok(Some(old)) = table.query_selector("tbody") {
            old.remove();
        }
        let _ = table.insert_adjacent_html("beforeend", &html);
    });
    let key_of = |target: Option<web_sys::EventTarget>| -> Option<String> {
        let element = target?.dyn_into::<web_sys::Element>().ok()?;
        element
            .closest("tr[data-key]")
            .ok()??
            .get_attribute("data-key")
    };
    let select = move |key: Option<String>| {
        if let Some(key) = key {
            explore.selected.set(Some(key.clone()));
            evaluate(explore, workers, key);
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        let step: isize = match ev.key().as_str() {
            "ArrowDown" | "j" => 1,
            "ArrowUp" | "k" => -1,
            _ => return,
        };
        ev.prevent_default();
        let keys: Vec<String> = rows.with_untracked(|r| {
            r.iter()
                .map(|c| short_key(&c.as_topology(0, Mode::Decode)))
                .collect()
        });
        let here = explore
            .selected
            .get_untracked()
            .and_then(|s| keys.iter().position(|k| *k == s));
        let next = match here {
            Some(p) => (p as isize + step).clamp(0, keys.len() as isize - 1) as usize,
            None => 0,
        };
        select(keys.get(next).cloned());
    };
    view! {
        <section class="card pareto" aria-labelledby="pareto-title">
            <h3 id="pareto-title">
                {move || rows.with(Vec::len)} " configurations on the frontier"
                <span class="muted small">" (no other config is both faster and smaller)"</span>
            </h3>
            <div class="table-scroll">
                <table
                    class="pareto-table frontier-table"
                    node_ref=table_ref
                    tabindex="0"
                    aria-label="Frontier configurations: arrow keys move the selection"
                    on:click=move |ev| select(key_of(ev.target()))
                    on:keydown=on_key
                >
                    <thead>
                        <tr>
                            <th scope="col">"cp"</th>
                            <th scope="col">"tp"</th>
                            <th scope="col">"pp"</th>
                            <th scope="col">"dp"</th>
                            <th scope="col">"kv"</th>
                            <th scope="col">"ffn"</th>
                            <th scope="col">"tp / cp placement"</th>
                            <th scope="col">"ring"</th>
                            {header(ParetoSort::Latency, "Latency")}
                            {header(ParetoSort::Pes, "PEs")}
                            {header(ParetoSort::Efficiency, "Efficiency")}
                            <th scope="col" class="num">"HBM"</th>
                        </tr>
                    </thead>
                </table>
            </div>
        </section>
    }
}

#[component]
pub fn ExploreView(
    explore: ExploreState,
    page_view: RwSignal<View>,
    trace: TraceReportSignal,
) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let pending = StoredValue::new(0u64);
    // The first sweep runs when the view is first shown (the page opens on the trace
    // view without paying for it).
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) {
            return true;
        }
        if page_view.get() == View::Explore {
            // Its answer also evaluates a selection that came with a link.
            jobs::run_sweep(explore, workers);
            true
        } else {
            false
        }
    });
    // Pinning asks the worker for the new pin's breakdown.
    Effect::new(move |_| {
        explore.pinned.track();
        jobs::evaluate_pinned(explore, workers);
    });
    // Built in three tasks (see `tasks::Later`): in one, the view took 60–100 ms to build
    // on a cold page.
    view! {
        <div class="explore-view">
            <ExploreSettingsPanel explore=explore pending=pending />
            <div class="main-column">
                <Later>
                    <Summary explore=explore />
                    <section class="card scatter-card" aria-label="Latency against PEs">
                        <Scatter explore=explore page_view=page_view />
                    </section>
                    <CalibrationSummary explore=explore />
                    <ScenarioPanel explore=explore view=page_view />
                    <Later>
                        <div class="below-timeline">
                            <ConfigDetail explore=explore page_view=page_view trace=trace />
                            <PinnedCompare explore=explore />
                        </div>
                        <ParetoTable explore=explore />
                        <AllConfigs explore=explore />
                        <BatchView explore=explore page_view=page_view />
                    </Later>
                </Later>
            </div>
        </div>
    }
}

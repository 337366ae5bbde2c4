//! Scenarios: "Add scenario" keeps the current settings; up to four are swept in the
//! worker and their frontiers drawn on the scatter (this list is the legend: each
//! row's box shows or hides its frontier) and compared in a table and in words. The
//! list is the session's `ScenarioList`; sweeps, names and sentences are the core's,
//! styles and cells the view's (`scenario_view`).

use std::sync::Arc;

use leptos::prelude::*;
use shardscope_explorer::MAX_SCENARIOS;
use shardscope_session::scenario_list::ScenarioList;
use shardscope_session::scenarios::{Scenario, ScenarioReport};
use shardscope_view::scenario_view::{style, table_cells, table_header};

use super::super::state::{ExploreState, View};
use super::super::workers::WorkersHandle;
use super::jobs::run_scenarios;

#[component]
pub fn ScenarioPanel(explore: ExploreState, #[prop(into)] view: Signal<View>) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let list = explore.scenarios;
    // Compare again whenever the scenarios change while the view shows (a link's
    // scenarios wait for the view); showing or hiding one is not a change.
    let compared = StoredValue::new(None::<Vec<Scenario>>);
    Effect::new(move |_| {
        let scenarios = list.with(ScenarioList::scenarios);
        if view.get() != View::Explore {
            return;
        }
        if compared.with_value(|c| c.as_ref() == Some(&scenarios)) {
            return;
        }
        compared.set_value(Some(scenarios));
        run_scenarios(explore, workers);
    });
    let full = move || list.with(ScenarioList::is_full);
    let invalid = move || explore.errors.with(|e| !e.is_empty());
    let add = move |_| {
        if !invalid() {
            let settings = explore.settings.get_untracked();
            list.update(|l| {
                l.add(&settings);
            });
        }
    };
    view! {
        <section class="card scenarios" aria-labelledby="scenarios-title">
            <div class="card-head">
                <h3 id="scenarios-title">"Scenarios"</h3>
                <button
                    type="button"
                    class="button small"
                    data-testid="scenario-add"
                    disabled=move || full() || invalid()
                    title=move || if full() {
                        format!("At most {MAX_SCENARIOS} scenarios: remove one first")
                    } else {
                        "Keep the current settings as a scenario".to_string()
                    }
                    on:click=add
                >
                    "Add scenario"
                </button>
            </div>
            {move || list.with(ScenarioList::is_empty).then(|| view! {
                <p class="muted small">
                    "Keep the current settings as a scenario, change the machine, model or batch, \
                     and add another: up to four frontiers are drawn on the scatter, each in its \
                     own colour and shape, and compared at every PE budget."
                </p>
            })}
            <ScenarioRows list=list report=explore.scenario_report />
            {move || explore.scenario_problem.get().map(|p| view! {
                <p class="field-error" role="alert">{p}</p>
            })}
            {move || {
                let report = explore.scenario_report.get()?;
                (!list.with(ScenarioList::is_empty))
                    .then(|| view! { <ScenarioSummary report=report /> })
            }}
        </section>
    }
}

/// The kept scenarios, one row each: the scatter's legend.
#[component]
fn ScenarioRows(
    list: RwSignal<ScenarioList>,
    report: RwSignal<Option<Arc<ScenarioReport>>>,
) -> impl IntoView {
    let names = Memo::new(move |_| list.with(ScenarioList::names));
    let rows = move || {
        let shown = list.with(ScenarioList::shown);
        let scenarios = list.with(ScenarioList::scenarios);
        let current = names.get();
        scenarios
            .into_iter()
            .zip(shown)
            .enumerate()
            .map(|(i, (scenario, on))| {
                let name = current.get(i).cloned().unwrap_or_default();
                let frontier = Signal::derive(move || {
                    report.with(|r| {
                        let r = r.as_ref()?;
                        list.with(|l| l.frontier_size(i, r))
                    })
                });
                view! {
                    <ScenarioRow list=list i=i name=name scenario=scenario on=on frontier=frontier />
                }
            })
            .collect_view()
    };
    view! {
        <ul class="scenario-list" aria-label="Kept scenarios (the scatter's legend)">{rows}</ul>
    }
}

/// Scenario `i`: shown or not, its marker, its name (editable), its settings, its
/// frontier size once compared, and a button to remove it.
#[component]
fn ScenarioRow(
    list: RwSignal<ScenarioList>,
    i: usize,
    name: String,
    scenario: Scenario,
    on: bool,
    frontier: Signal<Option<usize>>,
) -> impl IntoView {
    let (color, marker) = style(i);
    let text = scenario.text('=');
    let settings = if text.is_empty() {
        "the default settings".to_string()
    } else {
        text
    };
    let remove_label = format!("Remove scenario {name}");
    let name_label = format!("Name of scenario {}", i + 1);
    let toggle_label = format!("Show {name} on the scatter");
    view! {
        <li
            class="scenario-row"
            class:off=!on
            data-testid="scenario-row"
            data-name=name.clone()
            data-shown=on.to_string()
            data-frontier=move || frontier.get().map(|n| n.to_string())
        >
            <input
                type="checkbox"
                class="scenario-toggle"
                aria-label=toggle_label
                prop:checked=on
                on:change=move |ev| list.update(|l| l.set_shown(i, event_target_checked(&ev)))
            />
            <span class="scenario-marker" style:color=color.css() aria-hidden="true">
                {marker.glyph()}
            </span>
            <input
                type="text"
                class="scenario-name"
                aria-label=name_label
                placeholder=name.clone()
                prop:value=scenario.name
                maxlength="40"
                on:change=move |ev| list.update(|l| l.rename(i, &event_target_value(&ev)))
            />
            <span class="muted small scenario-settings" title=settings.clone()>
                {settings.clone()}
            </span>
            <span class="small scenario-frontier">
                {move || frontier.get().map_or_else(
                    || "sweeping…".to_string(),
                    |n| format!("{n} on the frontier"),
                )}
            </span>
            <button
                type="button"
                class="button small"
                aria-label=remove_label
                on:click=move |_| list.update(|l| l.remove(i))
            >
                "Remove"
            </button>
        </li>
    }
}

/// The comparison: best latency of each scenario overall and within each PE budget,
/// then the comparison's sentences.
#[component]
fn ScenarioSummary(report: Arc<ScenarioReport>) -> impl IntoView {
    let header = table_header()
        .into_iter()
        .enumerate()
        .map(|(k, h)| {
            let class = if k == 0 { "" } else { "num" };
            view! { <th scope="col" class=class>{h}</th> }
        })
        .collect_view();
    let body = table_cells(&report.comparison)
        .into_iter()
        .enumerate()
        .map(|(i, cells)| view! { <ScenarioTableRow i=i cells=cells /> })
        .collect_view();
    let sentences = report
        .comparison
        .summary
        .iter()
        .map(|line| view! { <li>{line.clone()}</li> })
        .collect_view();
    view! {
        <div
            class="scenario-summary"
            data-testid="scenario-summary"
            data-scenarios=report.scenarios.len().to_string()
        >
            <div class="table-scroll">
                <table class="compare-table scenario-table">
                    <caption class="visually-hidden">"Best latency of each scenario, overall and within each PE budget"</caption>
                    <thead>
                        <tr>{header}</tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <ul class="scenario-sentences">{sentences}</ul>
        </div>
    }
}

/// One scenario's row of the comparison table: its marker and name, then its figures.
#[component]
fn ScenarioTableRow(i: usize, cells: Vec<String>) -> impl IntoView {
    let (color, marker) = style(i);
    let mut cells = cells.into_iter();
    let name = cells.next().unwrap_or_default();
    view! {
        <tr>
            <th scope="row">
                <span class="scenario-marker" style:color=color.css() aria-hidden="true">{marker.glyph()}</span>
                " " {name}
            </th>
            {cells.map(|cell| view! { <td class="num">{cell}</td> }).collect_view()}
        </tr>
    }
}

//! Scenarios: "Add scenario" keeps the current settings; up to four are swept in the
//! worker and their frontiers drawn on the scatter (this list is the legend: each
//! row's box shows or hides its frontier) and compared in a table and in words. The
//! sweeps, names, styles and sentences are the core's (`view::scenarios`).

use leptos::prelude::*;
use shardscope_core::explorer::MAX_SCENARIOS;
use shardscope_core::view::explore::ExploreSettings;
use shardscope_core::view::scenarios::{
    clean_name, names, style, table_cells, table_header, Scenario,
};

use super::super::state::{AppState, View};
use super::super::workers::WorkersHandle;
use super::jobs::run_scenarios;

#[component]
pub fn ScenarioPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let explore = state.explore;
    // Compare again whenever the list changes while the view shows (a link's scenarios
    // wait for the view).
    let compared = StoredValue::new(None::<Vec<Scenario>>);
    Effect::new(move |_| {
        let list = explore.scenarios.get();
        if state.view.get() != View::Explore {
            return;
        }
        if compared.with_value(|c| c.as_ref() == Some(&list)) {
            return;
        }
        compared.set_value(Some(list));
        run_scenarios(state, workers);
    });
    let names = Memo::new(move |_| explore.scenarios.with(|l| names(l)));
    let full = move || explore.scenarios.with(Vec::len) >= MAX_SCENARIOS;
    let invalid = move || explore.errors.with(|e| !e.is_empty());
    let add = move |_| {
        if full() || invalid() {
            return;
        }
        // A scenario is the uncalibrated model (its text, its link and `--scenario`
        // carry no measurements).
        let settings = ExploreSettings {
            calibration: Vec::new(),
            ..explore.settings.get_untracked()
        };
        explore.scenarios.update(|l| {
            l.push(Scenario {
                name: String::new(),
                settings,
            })
        });
        explore.scenarios_shown.update(|v| v.push(true));
    };
    let remove = move |i: usize| {
        explore.scenarios.update(|l| {
            if i < l.len() {
                l.remove(i);
            }
        });
        explore.scenarios_shown.update(|v| {
            if i < v.len() {
                v.remove(i);
            }
        });
    };
    let rename = move |i: usize, text: String| {
        explore.scenarios.update(|l| {
            if let Some(s) = l.get_mut(i) {
                s.name = clean_name(&text);
            }
        });
    };
    let toggle = move |i: usize, on: bool| {
        explore.scenarios_shown.update(|v| {
            if let Some(s) = v.get_mut(i) {
                *s = on;
            }
        });
    };
    // The frontier size of row `i`, once the comparison of this very list is in.
    let frontier = move |i: usize| -> Option<usize> {
        let current = names.get();
        explore.scenario_report.with(|r| {
            let r = r.as_ref()?;
            let same = r.scenarios.len() == current.len()
                && r.scenarios.iter().zip(&current).all(|(s, n)| s.name == *n);
            same.then(|| r.comparison.rows.get(i).map(|row| row.frontier_size))
                .flatten()
        })
    };
    let rows = move || {
        let list = explore.scenarios.get();
        let shown = explore.scenarios_shown.get();
        let current = names.get();
        list.iter()
            .enumerate()
            .map(|(i, s)| {
                let name = current.get(i).cloned().unwrap_or_default();
                let (color, marker) = style(i);
                let on = shown.get(i).copied().unwrap_or(true);
                let text = s.text('=');
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
                        data-frontier=move || frontier(i).map(|n| n.to_string())
                    >
                        <input
                            type="checkbox"
                            class="scenario-toggle"
                            aria-label=toggle_label
                            prop:checked=on
                            on:change=move |ev| toggle(i, event_target_checked(&ev))
                        />
                        <span class="scenario-marker" style:color=color.css() aria-hidden="true">
                            {marker.glyph()}
                        </span>
                        <input
                            type="text"
                            class="scenario-name"
                            aria-label=name_label
                            placeholder=name.clone()
                            prop:value=s.name.clone()
                            maxlength="40"
                            on:change=move |ev| rename(i, event_target_value(&ev))
                        />
                        <span class="muted small scenario-settings" title=settings.clone()>
                            {settings.clone()}
                        </span>
                        <span class="small scenario-frontier">
                            {move || frontier(i).map_or_else(
                                || "sweeping…".to_string(),
                                |n| format!("{n} on the frontier"),
                            )}
                        </span>
                        <button
                            type="button"
                            class="button small"
                            aria-label=remove_label
                            on:click=move |_| remove(i)
                        >
                            "Remove"
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    let summary = move || {
        let report = explore.scenario_report.get()?;
        if explore.scenarios.with(Vec::is_empty) {
            return None;
        }
        let header = table_header();
        let cells = table_cells(&report.comparison);
        Some(view! {
            <div
                class="scenario-summary"
                data-testid="scenario-summary"
                data-scenarios=report.scenarios.len().to_string()
            >
                <div class="table-scroll">
                    <table class="compare-table scenario-table">
                        <caption class="visually-hidden">"Best latency of each scenario, overall and within each PE budget"</caption>
                        <thead>
                            <tr>
                                {header
                                    .into_iter()
                                    .enumerate()
                                    .map(|(k, h)| {
                                        let class = if k == 0 { "" } else { "num" };
                                        view! { <th scope="col" class=class>{h}</th> }
                                    })
                                    .collect_view()}
                            </tr>
                        </thead>
                        <tbody>
                            {cells
                                .into_iter()
                                .enumerate()
                                .map(|(i, row)| {
                                    let (color, marker) = style(i);
                                    view! {
                                        <tr>
                                            {row
                                                .into_iter()
                                                .enumerate()
                                                .map(|(k, cell)| {
                                                    if k == 0 {
                                                        view! {
                                                            <th scope="row">
                                                                <span class="scenario-marker" style:color=color.css() aria-hidden="true">{marker.glyph()}</span>
                                                                " " {cell}
                                                            </th>
                                                        }
                                                        .into_any()
                                                    } else {
                                                        view! { <td class="num">{cell}</td> }.into_any()
                                                    }
                                                })
                                                .collect_view()}
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                </div>
                <ul class="scenario-sentences">
                    {report
                        .comparison
                        .summary
                        .iter()
                        .map(|line| view! { <li>{line.clone()}</li> })
                        .collect_view()}
                </ul>
            </div>
        })
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
            {move || explore.scenarios.with(Vec::is_empty).then(|| view! {
                <p class="muted small">
                    "Keep the current settings as a scenario, change the machine, model or batch, \
                     and add another: up to four frontiers are drawn on the scatter, each in its \
                     own colour and shape, and compared at every PE budget."
                </p>
            })}
            <ul class="scenario-list" aria-label="Kept scenarios (the scatter's legend)">{rows}</ul>
            {move || explore.scenario_problem.get().map(|p| view! {
                <p class="field-error" role="alert">{p}</p>
            })}
            {summary}
        </section>
    }
}

//! The explore view: every configuration of the 9-knob space for a model on a machine,
//! the Pareto frontier of latency and PEs, the selected configuration explained.
//!
//! Module map: [`jobs`] (sweeps, breakdowns, exports), [`scatter`] (the canvas),
//! [`detail`] (the selected and pinned configurations), this module (layout, inputs,
//! summary, frontier table). What is computed or decided lives in the core
//! (`view::explore`, `view::scatter`).

pub mod all;
pub mod charts;
pub mod custom;
pub mod detail;
pub mod jobs;
pub mod scatter;

use leptos::ev::{Event, KeyboardEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_core::explorer::{
    ConfigScore, EfficiencyMode, Mode, Scope, MACHINE_PRESETS, MODEL_PRESETS,
};
use shardscope_core::view::explore::{latency_text, pareto_rows_html, short_key, ExploreSettings};
use wasm_bindgen::JsCast;

use super::canvas::canvas_by_testid;
use super::download::save_canvas_png;
use super::sort_header::sort_header;
use super::state::{AppState, ParetoSort, Phase, View};
use super::tasks::Later;
use super::workers::WorkersHandle;
use crate::protocol::ExportFormat;
use all::AllConfigs;
use charts::BatchView;
use custom::CustomEditor;
use detail::{ConfigDetail, PinnedCompare};
use jobs::{evaluate, export, schedule_sweep};
use scatter::Scatter;
use shardscope_core::view::custom::Subject;

/// The explorer's `data-state` names (`explore-status`).
pub fn explore_state_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Idle => "idle",
        Phase::Loading => "running",
        Phase::Done => "done",
        Phase::Error => "error",
    }
}

/// The settings column: model, machine, workload, SLAs, display, exports.
#[component]
fn ExploreSettingsPanel(pending: StoredValue<u64>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let explore = state.explore;
    let settings = explore.settings;
    let changed = move |update: Box<dyn FnOnce(&mut ExploreSettings)>| {
        settings.update(|s| update(s));
        schedule_sweep(state, workers, pending);
    };
    let error = move |field: &'static str| {
        move || {
            explore.errors.with(|e| {
                e.iter()
                    .find(|e| e.field == field)
                    .map(|e| e.message.clone())
            })
        }
    };
    let select = move |testid: &'static str,
                       label: &'static str,
                       options: Vec<&'static str>,
                       current: fn(&ExploreSettings) -> String,
                       set: fn(&mut ExploreSettings, &str)| {
        let on_change = move |ev: Event| {
            let v = event_target_value(&ev);
            changed(Box::new(move |s| set(s, &v)));
        };
        view! {
            <div class="field">
                <label for=testid>{label}</label>
                <select id=testid data-testid=testid on:change=on_change prop:value=move || settings.with(current)>
                    {options
                        .into_iter()
                        .map(|o| view! { <option value=o selected=move || settings.with(current) == o>{o}</option> })
                        .collect_view()}
                </select>
            </div>
        }
    };
    // Model and machine: the presets, plus "custom…" (the editor below the select).
    let (model_open, machine_open) = (RwSignal::new(false), RwSignal::new(false));
    let preset_select = move |kind: Subject, label: &'static str, open: RwSignal<bool>| {
        let testid = format!("{}-select", kind.name());
        let presets = match kind {
            Subject::Model => MODEL_PRESETS,
            Subject::Machine => MACHINE_PRESETS,
        };
        let custom = move || {
            settings.with(|s| match kind {
                Subject::Model => !s.model_edits.is_empty(),
                Subject::Machine => !s.machine_edits.is_empty(),
            })
        };
        let preset = move || {
            settings.with(|s| match kind {
                Subject::Model => s.model.clone(),
                Subject::Machine => s.machine.clone(),
            })
        };
        let value = move || {
            if custom() {
                "custom".to_string()
            } else {
                preset()
            }
        };
        let on_change = move |ev: Event| {
            let v = event_target_value(&ev);
            if v == "custom" {
                open.set(true);
                return;
            }
            changed(Box::new(move |s| match kind {
                Subject::Model => {
                    s.model = v;
                    s.model_edits.clear();
                }
                Subject::Machine => {
                    s.machine = v;
                    s.machine_edits.clear();
                }
            }));
        };
        view! {
            <div class="field">
                <label for=testid.clone()>{label}</label>
                <select id=testid.clone() data-testid=testid on:change=on_change prop:value=value>
                    {presets
                        .iter()
                        .map(|o| view! { <option value=*o selected=move || value() == *o>{*o}</option> })
                        .collect_view()}
                    <option value="custom" selected=custom>
                        {move || if custom() { format!("custom (from {})", preset()) } else { "custom…".to_string() }}
                    </option>
                </select>
            </div>
        }
    };
    let number = move |testid: &'static str,
                       field: &'static str,
                       label: &'static str,
                       unit: &'static str,
                       placeholder: &'static str,
                       current: fn(&ExploreSettings) -> String,
                       set: fn(&mut ExploreSettings, String)| {
        let error_id = format!("{testid}-error");
        let err = error(field);
        let on_change = move |ev: Event| {
            let v = event_target_value(&ev);
            changed(Box::new(move |s| set(s, v)));
        };
        view! {
            <div class="field" class:invalid=move || err().is_some()>
                <label for=testid>{label}" "<span class="muted small">{unit}</span></label>
                <input
                    id=testid
                    type="number"
                    min="1"
                    step="any"
                    data-testid=testid
                    placeholder=placeholder
                    prop:value=move || settings.with(current)
                    aria-invalid=move || if err().is_some() { "true" } else { "false" }
                    aria-describedby=error_id.clone()
                    on:change=on_change
                />
                <p class="field-error" id=error_id role="alert">{err}</p>
            </div>
        }
    };
    let status_text = move || match explore.phase.get() {
        Phase::Idle => "Starting the first sweep…".to_string(),
        Phase::Loading => "Sweeping…".to_string(),
        Phase::Done => explore
            .answer
            .with(|a| {
                a.as_ref().map(|a| {
                    format!(
                        "{} configurations scored in {:.0} ms",
                        a.report.total_enumerated, a.elapsed_ms
                    )
                })
            })
            .unwrap_or_default(),
        Phase::Error => explore
            .problem
            .get()
            .unwrap_or_else(|| "The sweep failed.".to_string()),
    };
    let none = move || explore.answer.with(Option::is_none);
    let on_png = move |_| {
        let name = explore.answer.with_untracked(|a| {
            a.as_ref().map_or_else(
                || "shardscope-explore.png".to_string(),
                |a| {
                    format!(
                        "shardscope-explore-{}-{}.png",
                        a.report.model, a.report.machine
                    )
                },
            )
        });
        let saved = canvas_by_testid("scatter-canvas")
            .ok_or_else(|| "the scatter is not on the page".to_string())
            .and_then(|c| save_canvas_png(&name, &c));
        if let Err(e) = saved {
            explore
                .problem
                .set(Some(format!("The picture could not be saved: {e}")));
        }
    };
    let export_button = move |testid: &'static str, label: &'static str, format: ExportFormat| {
        view! {
            <button
                type="button"
                class="button"
                data-testid=testid
                disabled=none
                title="What `shardscope explore` prints for these settings (--all when infeasible configs are shown)"
                on:click=move |_| export(state, workers, format)
            >
                {label}
            </button>
        }
    };

    view! {
        <aside class="sidebar" aria-label="Explore settings">
            <section class="card" aria-labelledby="workload-title">
                <h2 id="workload-title">"Model and machine"</h2>
                {preset_select(Subject::Model, "Model", model_open)}
                <p class="field-error" role="alert">{error("model")}</p>
                <CustomEditor kind=Subject::Model pending=pending open=model_open />
                {preset_select(Subject::Machine, "Machine", machine_open)}
                <p class="field-error" role="alert">{error("machine")}</p>
                <CustomEditor kind=Subject::Machine pending=pending open=machine_open />
                <Later>
                {select(
                    "mode-select",
                    "Mode",
                    Mode::ALL.iter().map(|m| m.as_str()).collect(),
                    |s| s.mode.as_str().to_string(),
                    |s, v| if let Ok(m) = v.parse() { s.mode = m },
                )}
                {number("s-kv-input", "s_kv", "Sequence length", "tokens", "32768", |s| s.s_kv.clone(), |s, v| s.s_kv = v)}
                {number("batch-input", "batch", "Batch", "requests", "1", |s| s.batch.clone(), |s, v| s.batch = v)}
                {number("ep-input", "ep", "Expert parallelism", "EP degree", "1", |s| s.ep.clone(), |s, v| s.ep = v)}
                {select(
                    "scope-select",
                    "Scope",
                    Scope::ALL.iter().map(|m| m.as_str()).collect(),
                    |s| s.scope.as_str().to_string(),
                    |s, v| if let Ok(m) = v.parse() { s.scope = m },
                )}
                {select(
                    "efficiency-select",
                    "Efficiency model",
                    EfficiencyMode::ALL.iter().map(|m| m.as_str()).collect(),
                    |s| s.efficiency.as_str().to_string(),
                    |s, v| if let Ok(m) = v.parse() { s.efficiency = m },
                )}
                </Later>
            </section>
            <Later>
            <section class="card" aria-labelledby="sla-title">
                <h2 id="sla-title">"Serving objectives"</h2>
                {number("sla-ttft-input", "sla_ttft_ms", "Time to first token ≤", "ms", "none", |s| s.sla_ttft_ms.clone(), |s, v| s.sla_ttft_ms = v)}
                {number("sla-tpot-input", "sla_tpot_ms", "Time per output token ≤", "ms", "none", |s| s.sla_tpot_ms.clone(), |s, v| s.sla_tpot_ms = v)}
                <p class="muted small">"Configs that miss an objective are drawn faded and leave the frontier."</p>
            </section>
            </Later>
            // Not deferred: `explore-status` is there as soon as the view is.
            <section class="card status-card" aria-label="Sweep status">
                <p
                    class="trace-status"
                    data-testid="explore-status"
                    role="status"
                    aria-live="polite"
                    data-state=move || explore_state_name(explore.phase.get())
                    data-runs=move || explore.runs.get().to_string()
                >
                    {status_text}
                </p>
                <div class="field checkbox">
                    <input
                        id="infeasible-toggle"
                        type="checkbox"
                        data-testid="infeasible-toggle"
                        prop:checked=move || explore.infeasible.get()
                        on:change=move |ev| explore.infeasible.set(event_target_checked(&ev))
                    />
                    <label for="infeasible-toggle">"Show configs that do not fit"</label>
                </div>
            </section>
            <Later>
            <section class="card exports" aria-labelledby="explore-exports-title">
                <h2 id="explore-exports-title">"Export"</h2>
                <div class="button-row">
                    {export_button("explore-export-json", "JSON", ExportFormat::Json)}
                    {export_button("explore-export-csv", "CSV", ExportFormat::Csv)}
                    <button
                        type="button"
                        class="button"
                        data-testid="explore-export-png"
                        disabled=none
                        title="The scatter at its full (HiDPI) resolution"
                        on:click=on_png
                    >
                        "PNG"
                    </button>
                </div>
            </section>
            </Later>
        </aside>
    }
}

/// The counts of the last sweep.
#[component]
fn Summary() -> impl IntoView {
    let state = expect_context::<AppState>();
    let explore = state.explore;
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
    view! {
        <section
            class="card summary"
            data-testid="explore-summary"
            aria-label="Sweep summary"
            data-enumerated=attr(|a| a.report.total_enumerated.to_string())
            data-feasible=attr(|a| a.report.total_feasible.to_string())
            data-pareto=attr(|a| a.report.pareto.len().to_string())
            data-elapsed-ms=attr(|a| format!("{:.1}", a.elapsed_ms))
        >
            {stat("configurations", |a| a.report.total_enumerated.to_string())}
            {stat("fit and place", |a| a.report.total_feasible.to_string())}
            {stat("within the objectives", |a| {
                a.report.total_within_sla.map_or_else(|| "no objective".to_string(), |n| n.to_string())
            })}
            {stat("on the frontier", |a| a.report.pareto.len().to_string())}
            {stat("best latency", |a| {
                a.report.pareto.first().map_or_else(|| "–".to_string(), |c| latency_text(c.total_latency_ns))
            })}
            {stat("sweep time", |a| format!("{:.0} ms", a.elapsed_ms))}
        </section>
    }
}

/// The frontier, one `pareto-row` per configuration; click selects.
#[component]
fn ParetoTable() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let explore = state.explore;
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
            evaluate(state, workers, key);
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
pub fn ExploreView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let pending = StoredValue::new(0u64);
    // The first sweep runs when the view is first shown (the page opens on the trace
    // view without paying for it).
    Effect::new(move |started: Option<bool>| {
        if started == Some(true) {
            return true;
        }
        if state.view.get() == View::Explore {
            // Its answer also evaluates a selection that came with a link.
            jobs::run_sweep(state, workers);
            true
        } else {
            false
        }
    });
    // Pinning asks the worker for the new pin's breakdown.
    Effect::new(move |_| {
        state.explore.pinned.track();
        jobs::evaluate_pinned(state, workers);
    });
    // Built in three tasks (see `tasks::Later`): in one, the view took 60–100 ms to build
    // on a cold page.
    view! {
        <div class="explore-view">
            <ExploreSettingsPanel pending=pending />
            <div class="main-column">
                <Later>
                    <Summary />
                    <section class="card scatter-card" aria-label="Latency against PEs">
                        <Scatter />
                    </section>
                    <Later>
                        <div class="below-timeline">
                            <ConfigDetail />
                            <PinnedCompare />
                        </div>
                        <ParetoTable />
                        <AllConfigs />
                        <BatchView />
                    </Later>
                </Later>
            </div>
        </div>
    }
}

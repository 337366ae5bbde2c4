//! Calibration to measurements (beyond every explorer): the selected configuration's
//! measured latency or throughput is added to the settings (`calibrate-input`,
//! `calibrate-apply`), the sweep re-runs with the fitted time scales, and
//! `calibration-summary` shows predicted against measured before and after. The fit,
//! its checks and every figure are the core's (`view::explore`, `explorer::calibrate`).

use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use shardscope_explorer::TopologyConfig;
use shardscope_session::explore_settings::MeasuredUnit;
use shardscope_view::explore::{calibration_cells, calibration_text, latency_text};

use super::super::state::ExploreState;
use super::super::workers::WorkersHandle;
use super::jobs::run_sweep;

/// The errors of the calibration's field, in one sentence (none: `None`).
fn calibration_problem(explore: ExploreState) -> Option<String> {
    explore.errors.with(|errors| {
        let list: Vec<&str> = errors
            .iter()
            .filter(|e| e.field == "calibrate")
            .map(|e| e.message.as_str())
            .collect();
        (!list.is_empty()).then(|| list.join("; "))
    })
}

/// "Calibrate to a measurement" for the configuration shown in the detail card.
#[component]
pub fn CalibrateForm(
    explore: ExploreState,
    topology: TopologyConfig,
    predicted_ns: f64,
) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let value = RwSignal::new(String::new());
    let unit = RwSignal::new(MeasuredUnit::LatencyMs);
    let problem = RwSignal::new(None::<String>);
    let apply = move |ev: SubmitEvent| {
        ev.prevent_default();
        let text = value.get_untracked();
        let mut outcome = Ok(());
        explore.settings.update(|s| {
            outcome = s.add_measurement(&topology, unit.get_untracked(), &text);
        });
        match outcome {
            Ok(()) => {
                problem.set(None);
                value.set(String::new());
                run_sweep(explore, workers);
            }
            Err(e) => problem.set(Some(e.message)),
        }
    };
    let placeholder = format!("predicted {}", latency_text(predicted_ns));
    view! {
        <form class="calibrate-form" on:submit=apply aria-describedby="calibrate-help">
            <h4>"Calibrate to a measurement"</h4>
            <p class="small muted" id="calibrate-help">
                "Measured this configuration? Enter its step latency or throughput: the model's "
                "compute, memory and network times are fitted to it (one factor for one or two "
                "measurements, three from three on different bounds) and everything is swept again."
            </p>
            <div class="calibrate-row">
                <label class="small" for="calibrate-value">"Measured"</label>
                <input
                    id="calibrate-value"
                    type="text"
                    inputmode="decimal"
                    data-testid="calibrate-input"
                    placeholder=move || match unit.get() {
                        MeasuredUnit::LatencyMs => placeholder.clone(),
                        MeasuredUnit::TokS => "tokens/s".to_string(),
                    }
                    prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev))
                    aria-invalid=move || problem.with(Option::is_some).to_string()
                />
                <select
                    aria-label="Unit of the measurement"
                    data-testid="calibrate-unit"
                    on:change=move |ev| {
                        unit.set(if event_target_value(&ev) == "tok_s" {
                            MeasuredUnit::TokS
                        } else {
                            MeasuredUnit::LatencyMs
                        })
                    }
                >
                    <option value="latency_ms" selected=true>"ms per step"</option>
                    <option value="tok_s">"tokens/s"</option>
                </select>
                <button type="submit" class="button small" data-testid="calibrate-apply">
                    "Calibrate"
                </button>
            </div>
            {move || problem.get().map(|p| view! { <p class="problem small" role="alert">{p}</p> })}
        </form>
    }
}

/// The fitted calibration: what it changed, predicted against measured before and after,
/// each measurement removable. Shown while the settings hold measurements.
#[component]
pub fn CalibrationSummary(explore: ExploreState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let measurements = move || explore.settings.with(|s| s.calibration.len());
    let fit = move || {
        explore
            .answer
            .with(|a| a.as_ref().and_then(|a| a.report.calibration.clone()))
    };
    let remove = move |i: Option<usize>| {
        explore.settings.update(|s| match i {
            Some(i) if i < s.calibration.len() => {
                s.calibration.remove(i);
            }
            _ => s.calibration.clear(),
        });
        run_sweep(explore, workers);
    };
    move || {
        (measurements() > 0).then(|| {
            let fit = fit();
            let rows = fit
                .as_ref()
                .map(|f| {
                    f.rows
                        .iter()
                        .enumerate()
                        .map(|(i, row)| {
                            let [config, measured, before, before_pct, after, after_pct] =
                                calibration_cells(row);
                            view! {
                                <tr>
                                    <td class="small calibration-config">{config}</td>
                                    <td class="num">{measured}</td>
                                    <td class="num">{before}</td>
                                    <td class="num">{before_pct}</td>
                                    <td class="num">{after}</td>
                                    <td class="num">{after_pct}</td>
                                    <td>
                                        <button
                                            type="button"
                                            class="button small"
                                            aria-label=format!("Remove measurement {}", i + 1)
                                            on:click=move |_| remove(Some(i))
                                        >
                                            "Remove"
                                        </button>
                                    </td>
                                </tr>
                            }
                        })
                        .collect_view()
                })
                .unwrap_or_default();
            view! {
                <section
                    class="card calibration-summary"
                    data-testid="calibration-summary"
                    aria-labelledby="calibration-title"
                    data-measurements=measurements().to_string()
                    data-error-before-pct=fit.as_ref().map(|f| f.error_before_pct.to_string())
                    data-error-after-pct=fit.as_ref().map(|f| f.error_after_pct.to_string())
                    data-scale-compute=fit.as_ref().map(|f| f.scales.compute.to_string())
                    data-scale-memory=fit.as_ref().map(|f| f.scales.memory.to_string())
                    data-scale-network=fit.as_ref().map(|f| f.scales.network.to_string())
                >
                    <div class="card-head">
                        <h3 id="calibration-title">
                            "Calibrated model " <span class="badge beyond">"beyond the seed model"</span>
                        </h3>
                        <button
                            type="button"
                            class="button small"
                            data-testid="calibrate-clear"
                            on:click=move |_| remove(None)
                        >
                            "Clear calibration"
                        </button>
                    </div>
                    {move || calibration_problem(explore).map(|p| view! {
                        <p class="problem" role="alert">{format!("Not calibrated: {p}")}</p>
                    })}
                    {fit.as_ref().map(|f| view! { <p>{calibration_text(f)}</p> })}
                    <div class="table-scroll">
                        <table class="calibration-table">
                            <thead>
                                <tr>
                                    <th scope="col">"Configuration"</th>
                                    <th scope="col" class="num">"Measured"</th>
                                    <th scope="col" class="num">"Predicted before"</th>
                                    <th scope="col" class="num">"Error"</th>
                                    <th scope="col" class="num">"Predicted after"</th>
                                    <th scope="col" class="num">"Error"</th>
                                    <th scope="col"><span class="visually-hidden">"Remove"</span></th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                    <p class="small muted">
                        "Every latency, frontier and export on this view uses the calibrated model; "
                        "scenarios keep the uncalibrated one."
                    </p>
                </section>
            }
        })
    }
}

//! The explorer's settings column: model and machine (with their custom editors), the
//! workload, the serving objectives, the sweep's status and the exports. Every change
//! goes through one [`Edit`], which updates the settings and schedules a sweep; the
//! core checks the values (`view::explore::resolve`) and names the field at fault.

use leptos::ev::Event;
use leptos::prelude::*;
use shardscope_explorer::{EfficiencyMode, Mode, Scope, MACHINE_PRESETS, MODEL_PRESETS};
use shardscope_session::custom::Subject;
use shardscope_session::explore_settings::ExploreSettings;
use shardscope_view::explore::export_stem;

use super::super::download::save_page_canvas_png;
use super::super::drawer::SettingsDrawer;
use super::super::state::{ExploreState, Phase};
use super::super::tasks::Later;
use super::super::theme::ThemeState;
use super::super::workers::WorkersHandle;
use super::custom::CustomEditor;
use super::explore_state_name;
use super::jobs::{export, schedule_sweep};
use crate::protocol::ExportFormat;

/// How a control changes the settings: update them, then schedule a sweep.
#[derive(Clone, Copy)]
struct Edit {
    explore: ExploreState,
    workers: WorkersHandle,
    pending: StoredValue<u64>,
}

impl Edit {
    fn apply(self, update: impl FnOnce(&mut ExploreSettings)) {
        self.explore.settings.update(update);
        schedule_sweep(self.explore, self.workers, self.pending);
    }

    /// The message of the field's problem, if it has one.
    fn error(self, field: &'static str) -> impl Fn() -> Option<String> + Copy {
        let errors = self.explore.errors;
        move || {
            errors.with(|e| {
                e.iter()
                    .find(|e| e.field == field)
                    .map(|e| e.message.clone())
            })
        }
    }
}

/// The settings column: model, machine, workload, SLAs, display, exports.
#[component]
pub fn ExploreSettingsPanel(explore: ExploreState, pending: StoredValue<u64>) -> impl IntoView {
    let edit = Edit {
        explore,
        workers: expect_context::<WorkersHandle>(),
        pending,
    };
    let (model_open, machine_open) = (RwSignal::new(false), RwSignal::new(false));
    view! {
        <aside class="sidebar" aria-label="Explore settings">
            <SettingsDrawer id="explore-drawer" label="Model, machine, objectives">
            <section class="card" aria-labelledby="workload-title">
                <h2 id="workload-title">"Model and machine"</h2>
                <PresetSelect edit=edit kind=Subject::Model label="Model" open=model_open />
                <p class="field-error" role="alert">{edit.error("model")}</p>
                <CustomEditor explore=explore kind=Subject::Model pending=pending open=model_open />
                <PresetSelect edit=edit kind=Subject::Machine label="Machine" open=machine_open />
                <p class="field-error" role="alert">{edit.error("machine")}</p>
                <CustomEditor explore=explore kind=Subject::Machine pending=pending open=machine_open />
                <Later>
                    <Workload edit=edit />
                </Later>
            </section>
            <Later>
                <section class="card" aria-labelledby="sla-title">
                    <h2 id="sla-title">"Serving objectives"</h2>
                    <NumberField
                        edit=edit
                        testid="sla-ttft-input"
                        field="sla_ttft_ms"
                        label="Time to first token ≤"
                        unit="ms"
                        placeholder="none"
                        current=|s| s.sla_ttft_ms.clone()
                        set=|s, v| s.sla_ttft_ms = v
                    />
                    <NumberField
                        edit=edit
                        testid="sla-tpot-input"
                        field="sla_tpot_ms"
                        label="Time per output token ≤"
                        unit="ms"
                        placeholder="none"
                        current=|s| s.sla_tpot_ms.clone()
                        set=|s, v| s.sla_tpot_ms = v
                    />
                    <p class="muted small">"Configs that miss an objective are drawn faded and leave the frontier."</p>
                </section>
            </Later>
            </SettingsDrawer>
            // Not deferred: `explore-status` is there as soon as the view is.
            <SweepStatus explore=explore />
            <Later>
                <ExploreExports explore=explore />
            </Later>
        </aside>
    }
}

/// Mode, sequence length, batch, EP, scope and efficiency model.
#[component]
fn Workload(edit: Edit) -> impl IntoView {
    view! {
        <ChoiceSelect
            edit=edit
            testid="mode-select"
            label="Mode"
            options=Mode::ALL.iter().map(|m| m.as_str()).collect()
            current=|s| s.mode.as_str().to_string()
            set=|s, v| if let Ok(m) = v.parse() { s.mode = m }
        />
        <NumberField
            edit=edit
            testid="s-kv-input"
            field="s_kv"
            label="Sequence length"
            unit="tokens"
            placeholder="32768"
            current=|s| s.s_kv.clone()
            set=|s, v| s.s_kv = v
        />
        <NumberField
            edit=edit
            testid="batch-input"
            field="batch"
            label="Batch"
            unit="requests"
            placeholder="1"
            current=|s| s.batch.clone()
            set=|s, v| s.batch = v
        />
        <NumberField
            edit=edit
            testid="ep-input"
            field="ep"
            label="Expert parallelism"
            unit="EP degree"
            placeholder="1"
            current=|s| s.ep.clone()
            set=|s, v| s.ep = v
        />
        <ChoiceSelect
            edit=edit
            testid="scope-select"
            label="Scope"
            options=Scope::ALL.iter().map(|m| m.as_str()).collect()
            current=|s| s.scope.as_str().to_string()
            set=|s, v| if let Ok(m) = v.parse() { s.scope = m }
        />
        <ChoiceSelect
            edit=edit
            testid="efficiency-select"
            label="Efficiency model"
            options=EfficiencyMode::ALL.iter().map(|m| m.as_str()).collect()
            current=|s| s.efficiency.as_str().to_string()
            set=|s, v| if let Ok(m) = v.parse() { s.efficiency = m }
        />
    }
}

/// A select of fixed options for one setting.
#[component]
fn ChoiceSelect(
    edit: Edit,
    testid: &'static str,
    label: &'static str,
    options: Vec<&'static str>,
    current: fn(&ExploreSettings) -> String,
    set: fn(&mut ExploreSettings, &str),
) -> impl IntoView {
    let settings = edit.explore.settings;
    let on_change = move |ev: Event| {
        let v = event_target_value(&ev);
        edit.apply(move |s| set(s, &v));
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
}

/// The model or machine presets, plus "custom…" (which opens the editor below).
#[component]
fn PresetSelect(
    edit: Edit,
    kind: Subject,
    label: &'static str,
    open: RwSignal<bool>,
) -> impl IntoView {
    let settings = edit.explore.settings;
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
        edit.apply(move |s| match kind {
            Subject::Model => {
                s.model = v;
                s.model_edits.clear();
            }
            Subject::Machine => {
                s.machine = v;
                s.machine_edits.clear();
            }
        });
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
}

/// A number typed as text (the core reads it as the CLI does), with its problem.
#[component]
fn NumberField(
    edit: Edit,
    testid: &'static str,
    field: &'static str,
    label: &'static str,
    unit: &'static str,
    placeholder: &'static str,
    current: fn(&ExploreSettings) -> String,
    set: fn(&mut ExploreSettings, String),
) -> impl IntoView {
    let settings = edit.explore.settings;
    let error_id = format!("{testid}-error");
    let err = edit.error(field);
    let on_change = move |ev: Event| {
        let v = event_target_value(&ev);
        edit.apply(move |s| set(s, v));
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
}

/// `explore-status` and the infeasible toggle.
#[component]
fn SweepStatus(explore: ExploreState) -> impl IntoView {
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
    view! {
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
    }
}

/// JSON and CSV as `shardscope explore` prints them, and the scatter as a picture.
#[component]
fn ExploreExports(explore: ExploreState) -> impl IntoView {
    let theme = expect_context::<ThemeState>();
    let workers = expect_context::<WorkersHandle>();
    let none = move || explore.answer.with(Option::is_none);
    let on_png = move |_| {
        let name = explore
            .answer
            .with_untracked(|a| format!("{}.png", export_stem(a.as_ref().map(|a| &a.report))));
        if let Err(e) = save_page_canvas_png(
            "scatter-canvas",
            "the scatter",
            &name,
            theme.repaint_for_export(),
        ) {
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
                on:click=move |_| export(explore, workers, format)
            >
                {label}
            </button>
        }
    };
    view! {
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
    }
}

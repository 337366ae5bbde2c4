//! The attribution settings card: preset, phases, session, the rank filter and the
//! overrides. Each setting lives in [`TraceSettings`](super::super::state::TraceSettings)
//! and resolves in the core (`view::trace_settings`); a change of preset, override,
//! phases or session re-attributes the parsed events in the worker ([`rerun`]). The rank
//! filter only filters what is shown, as in stormlog's TUI.

use std::collections::BTreeMap;

use leptos::ev::Event;
use leptos::prelude::*;
use shardscope_attribution::attribution::{AttributionConfig, OverrideId, Preset, SettingsError};
use shardscope_session::rank_filter::parse_rank_filter;
use shardscope_view::explain::override_help;

use super::super::state::{AppState, RunSlot, TraceSettings, TraceState};
use super::super::workers::WorkersHandle;
use super::compare::RunSwitch;
use super::jobs::rerun_run;

/// Re-attribute one run with its current settings.
#[derive(Clone, Copy)]
struct Rerun {
    state: AppState,
    workers: WorkersHandle,
    slot: RunSlot,
}

impl Rerun {
    fn run(self) {
        rerun_run(self.state, self.workers, self.slot);
    }
}

/// Preset, overrides, phases, session and rank filter; with run B loaded, of the run
/// the switch at the top picks (the rank filter is the view's, shared).
#[component]
pub fn TraceSettingsPanel(state: AppState) -> impl IntoView {
    let editing = state.compare.editing;
    view! {
        <section class="card settings-card" aria-labelledby="settings-title">
            <h2 id="settings-title">"Attribution"</h2>
            <RunSwitch compare=state.compare />
            {move || {
                let run = editing.get();
                view! { <RunSettings state run /> }
            }}
            <RankFilterField trace=state.trace />
        </section>
    }
}

/// One run's attribution settings.
#[component]
fn RunSettings(state: AppState, run: RunSlot) -> impl IntoView {
    let slot = run;
    let workers = expect_context::<WorkersHandle>();
    let rerun = Rerun {
        state,
        workers,
        slot,
    };
    let settings = state.run(slot).settings;
    let on_phases = move |ev: Event| {
        settings.phases.set(event_target_checked(&ev));
        rerun.run();
    };
    let on_align = move |ev: Event| {
        settings.align_clocks.set(event_target_checked(&ev));
        rerun.run();
    };
    view! {
        <div class="run-settings" data-run=slot.name()>
            <PresetField settings rerun />
            <div class="field checkbox">
                <input
                    id="phases-toggle"
                    type="checkbox"
                    data-testid="phases-toggle"
                    prop:checked=move || settings.phases.get()
                    on:change=on_phases
                />
                <label for="phases-toggle">"Attribute intervals to phases"</label>
            </div>
            <Show when=move || slot == RunSlot::B>
                <div class="field checkbox">
                    <input
                        id="b-align-toggle"
                        type="checkbox"
                        data-testid="compare-align-attribute-toggle"
                        prop:checked=move || settings.align_clocks.get()
                        on:change=on_align
                    />
                    <label for="b-align-toggle">
                        "Attribute run B on aligned clocks (beyond stormlog)"
                    </label>
                </div>
            </Show>
            <SessionField rerun />
            <Overrides settings rerun />
        </div>
    }
}

#[component]
fn PresetField(settings: TraceSettings, rerun: Rerun) -> impl IntoView {
    let on_preset = move |ev: Event| {
        if let Ok(p) = Preset::parse(&event_target_value(&ev)) {
            settings.preset.set(p);
            rerun.run();
        }
    };
    view! {
        <div class="field">
            <label for="preset-select">"Sensitivity preset"</label>
            <select
                id="preset-select"
                data-testid="preset-select"
                on:change=on_preset
                prop:value=move || settings.preset.get().as_str()
            >
                {Preset::ALL
                    .iter()
                    .map(|p| {
                        let p = *p;
                        view! {
                            <option value=p.as_str() selected=move || settings.preset.get() == p>
                                {p.as_str()}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}

/// The session picker, when the trace holds more than one.
#[component]
fn SessionField(rerun: Rerun) -> impl IntoView {
    let trace = rerun.state.run(rerun.slot);
    let settings = trace.settings;
    let on_session = move |ev: Event| {
        settings.session.set(Some(event_target_value(&ev)));
        rerun.run();
    };
    let sessions = move || {
        trace
            .report
            .with(|r| r.as_ref().map(|r| r.sessions.clone()))
            .unwrap_or_default()
    };
    let selected_session = move || {
        settings
            .session
            .get()
            .or_else(|| {
                trace
                    .report
                    .with(|r| r.as_ref().and_then(|r| r.selected_session.clone()))
            })
            .unwrap_or_default()
    };
    view! {
        <Show when=move || { sessions().len() > 1 }>
            <div class="field">
                <label for="session-select">"Session"</label>
                <select
                    id="session-select"
                    data-testid="session-select"
                    on:change=on_session
                    prop:value=selected_session
                >
                    {move || {
                        let chosen = selected_session();
                        sessions()
                            .into_iter()
                            .map(|s| {
                                let selected = s.session_id == chosen;
                                let label = format!(
                                    "{} · {} · {} events",
                                    s.session_id, s.status.as_str(), s.events
                                );
                                view! { <option value=s.session_id selected=selected>{label}</option> }
                            })
                            .collect_view()
                    }}
                </select>
            </div>
        </Show>
    }
}

/// Which ranks the timeline and tables show (`all`, `0,2,4-7`).
#[component]
fn RankFilterField(trace: TraceState) -> impl IntoView {
    let settings = trace.run.settings;
    let rank_error = move || {
        let text = settings.ranks.get();
        let all: Vec<i64> = trace
            .run
            .report
            .with(|r| r.as_ref().map(|r| r.ranks.iter().map(|s| s.rank).collect()))
            .unwrap_or_default();
        parse_rank_filter(&text, &all).err().map(|e| e.message)
    };
    let rank_hint = move || {
        let shown = trace.visible_ranks().len();
        let total = trace
            .run
            .report
            .with(|r| r.as_ref().map_or(0, |r| r.ranks.len()));
        (total > 0).then(|| format!("{shown} of {total} ranks shown"))
    };
    view! {
        <div class="field" class:invalid=move || rank_error().is_some()>
            <label for="rank-filter-input">"Ranks shown"</label>
            <input
                id="rank-filter-input"
                type="text"
                data-testid="rank-filter-input"
                placeholder="all, or e.g. 0,2,4-7"
                spellcheck="false"
                autocomplete="off"
                prop:value=move || settings.ranks.get()
                aria-invalid=move || if rank_error().is_some() { "true" } else { "false" }
                aria-describedby="rank-filter-error"
                on:input=move |ev| settings.ranks.set(event_target_value(&ev))
            />
            <p class="field-error" id="rank-filter-error" role="alert">
                {move || rank_error().map(|m| format!("{m}. Showing every rank."))}
            </p>
            <p class="muted small">{rank_hint}</p>
        </div>
    }
}

/// The nine overrides of the preset's values, each checked beside its input.
#[component]
fn Overrides(settings: TraceSettings, rerun: Rerun) -> impl IntoView {
    let errors = Memo::new(move |_| settings.override_errors());
    let preset_config = Memo::new(move |_| AttributionConfig::preset(settings.preset.get()));
    let any_override = move || {
        settings
            .overrides
            .with(|m| m.values().any(|v| !v.trim().is_empty()))
    };
    let reset_overrides = move |_| {
        settings.overrides.set(Default::default());
        rerun.run();
    };
    view! {
        <fieldset class="overrides">
            <legend>"Overrides " <span class="muted small">"(empty = preset value)"</span></legend>
            {OverrideId::ALL
                .into_iter()
                .map(|field| view! { <OverrideInput field settings errors preset_config rerun /> })
                .collect_view()}
            <Show when=any_override>
                <button type="button" class="button small" on:click=reset_overrides>
                    "Clear overrides"
                </button>
            </Show>
        </fieldset>
    }
}

#[component]
fn OverrideInput(
    field: OverrideId,
    settings: TraceSettings,
    errors: Memo<BTreeMap<OverrideId, SettingsError>>,
    preset_config: Memo<AttributionConfig>,
    rerun: Rerun,
) -> impl IntoView {
    let help = override_help(field);
    let name = field.name();
    let id = format!("override-{name}");
    let error_id = format!("override-{name}-error");
    let error = move || errors.with(|e| e.get(&field).map(|e| e.message.clone()));
    let value = move || {
        settings
            .overrides
            .with(|m| m.get(&field).cloned().unwrap_or_default())
    };
    let on_change = move |ev: Event| {
        let text = event_target_value(&ev);
        settings.overrides.update(|m| {
            if text.trim().is_empty() {
                m.remove(&field);
            } else {
                m.insert(field, text);
            }
        });
        // A bad value is explained beside the field and never starts a run.
        if errors.with_untracked(|e| e.is_empty()) {
            rerun.run();
        }
    };
    view! {
        <div class="override" class:invalid=move || error().is_some()>
            <label for=id.clone() title=help.help>
                <span class="override-label">{help.label}</span>
                <code class="override-field">{name}</code>
            </label>
            <div class="override-input">
                <input
                    id=id
                    type="number"
                    step=help.step
                    inputmode="decimal"
                    data-testid=format!("override-{name}")
                    placeholder=move || preset_config.with(|c| c.field_text(name).unwrap_or_default())
                    prop:value=value
                    aria-invalid=move || if error().is_some() { "true" } else { "false" }
                    aria-describedby=error_id.clone()
                    on:change=on_change
                />
                <span class="unit">{help.unit}</span>
            </div>
            <p class="field-error" id=error_id role="alert">{error}</p>
        </div>
    }
}

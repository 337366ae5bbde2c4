//! The explorer view: the 9-knob parallelism explorer (Pareto frontier, latency-versus-PE
//! scatter) arrives with its own issue; this is its place in the page.

use leptos::prelude::*;

use super::state::{AppState, Phase};

/// The explorer's `data-state` names (`explore-status`).
pub fn explore_state_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Idle => "idle",
        Phase::Loading => "running",
        Phase::Done => "done",
        Phase::Error => "error",
    }
}

#[component]
pub fn ExploreView() -> impl IntoView {
    let state = expect_context::<AppState>();
    let phase = state.explore.phase;
    view! {
        <section class="panel-intro">
            <h2>"How should I split this model over this machine?"</h2>
            <p>
                "Pick a model and a machine; the explorer scores every way of combining context, "
                "tensor, pipeline and data parallelism and shows the ones worth considering."
            </p>
        </section>
        <div
            class="status"
            data-testid="explore-status"
            role="status"
            aria-live="polite"
            data-state=move || explore_state_name(phase.get())
        >
            "The explorer is not available in this version yet."
        </div>
    }
}

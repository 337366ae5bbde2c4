//! The explore view's requests: a sweep for every settings change (debounced; only the
//! newest answer is shown), a selected config's breakdown, exports.

use std::sync::Arc;

use leptos::prelude::*;
use shardscope_session::explore_settings::{resolve, FieldError};
use shardscope_session::scenario_list::ScenarioList;
use shardscope_view::explore::{export_stem, Points};

use super::super::download::save_text;
use super::super::state::{ExploreState, Explored, Phase};
use super::super::tasks::next_task;
use super::super::workers::WorkersHandle;
use crate::protocol::{ExportFormat, RequestBody, ResponseBody};

/// How long settings must stay unchanged before a sweep starts.
pub const DEBOUNCE_MS: u64 = 100;

/// Sweep with the current settings, unless an input is invalid (then its message shows
/// beside it and the last results stay).
pub fn run_sweep(explore: ExploreState, workers: WorkersHandle) {
    let request = match resolve(&explore.settings.get_untracked()) {
        Ok(r) => r,
        Err(errors) => {
            // Shown beside each input; the status says why nothing new is shown.
            let first = errors
                .first()
                .map(|e| e.message.clone())
                .unwrap_or_default();
            explore.problem.set(Some(format!(
                "Not swept: fix the highlighted input{} ({first}).",
                if errors.len() == 1 { "" } else { "s" }
            )));
            explore.errors.set(errors);
            explore.phase.set(Phase::Error);
            return;
        }
    };
    explore.errors.set(Vec::new());
    explore.problem.set(None);
    let generation = workers.with_value(|w| {
        let g = w.explore_generation.get() + 1;
        w.explore_generation.set(g);
        g
    });
    explore.phase.set(Phase::Loading);
    let client = workers.with_value(|w| w.explore_worker());
    let kept = request.clone();
    client.request(
        RequestBody::Explore {
            request: Box::new(request),
        },
        move |response| {
            // A newer sweep supersedes this one.
            if workers.with_value(|w| w.explore_generation.get()) != generation {
                return;
            }
            match response {
                ResponseBody::Explored(answer) => {
                    let Some(points) = Points::from_bytes(&answer.points) else {
                        explore
                            .problem
                            .set(Some("The worker's answer was damaged.".to_string()));
                        explore.phase.set(Phase::Error);
                        return;
                    };
                    let answer = *answer;
                    let explored = Arc::new(Explored {
                        report: answer.report,
                        points,
                        elapsed_ms: answer.elapsed_ms,
                        request: kept.clone(),
                    });
                    // Shown in the next task, and what follows from it in the one after
                    // (see `tasks`): decoding (this task) and showing each cost up to
                    // ~20–40 ms on a page the browser has not optimised yet.
                    let current =
                        move || workers.with_value(|w| w.explore_generation.get()) == generation;
                    next_task(move || {
                        if !current() {
                            return;
                        }
                        explore.problem.set(None);
                        explore.answer.set(Some(explored));
                        explore.runs.update(|n| *n += 1);
                        explore.phase.set(Phase::Done);
                        next_task(move || {
                            if !current() {
                                return;
                            }
                            // The selection's breakdown belongs to the new settings.
                            if let Some(key) = explore.selected.get_untracked() {
                                evaluate(explore, workers, key);
                            }
                            // So do the pinned ones' and the batch view.
                            explore.pinned_evaluations.set(Vec::new());
                            evaluate_pinned(explore, workers);
                            run_batch(explore, workers);
                        });
                    });
                }
                ResponseBody::Error { message }
                | ResponseBody::ExploreFailed(FieldError { message, .. }) => {
                    explore.problem.set(Some(message));
                    explore.phase.set(Phase::Error);
                }
                _ => {}
            }
        },
    );
}

/// Settings changed: sweep once they have been still for [`DEBOUNCE_MS`].
pub fn schedule_sweep(explore: ExploreState, workers: WorkersHandle, pending: StoredValue<u64>) {
    let ticket = pending.get_value() + 1;
    pending.set_value(ticket);
    set_timeout(
        move || {
            if pending.get_value() == ticket {
                run_sweep(explore, workers);
            }
        },
        std::time::Duration::from_millis(DEBOUNCE_MS),
    );
}

/// The batch sizes of the batch view.
pub const BATCHES: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/// Sweep the current settings at every batch size of [`BATCHES`] in the batch worker;
/// a newer call or [`cancel_batch`] supersedes it.
pub fn run_batch(explore: ExploreState, workers: WorkersHandle) {
    let Some(request) = explore
        .answer
        .with_untracked(|a| a.as_ref().map(|a| a.request.clone()))
    else {
        return;
    };
    let generation = workers.with_value(|w| {
        w.cancel_batch();
        w.batch_generation.get()
    });
    explore.batch_running.set(true);
    let started = crate::app::now_ms();
    let client = workers.with_value(|w| w.batch_worker());
    client.request(
        RequestBody::BatchSweep {
            request: Box::new(request),
            batches: BATCHES.to_vec(),
        },
        move |response| {
            if workers.with_value(|w| w.batch_generation.get()) != generation {
                return;
            }
            match response {
                ResponseBody::BatchSwept(plane) => {
                    let elapsed_ms = crate::app::now_ms() - started;
                    let plane = Arc::new(*plane);
                    // Shown in a task of its own (see `tasks`), still "running" until then.
                    next_task(move || {
                        if workers.with_value(|w| w.batch_generation.get()) == generation {
                            explore.batch_ms.set(elapsed_ms);
                            explore.batch.set(Some(plane));
                            explore.batch_runs.update(|n| *n += 1);
                            explore.batch_running.set(false);
                        }
                    });
                }
                ResponseBody::Error { message }
                | ResponseBody::ExploreFailed(FieldError { message, .. }) => {
                    explore.batch_running.set(false);
                    explore.problem.set(Some(message));
                }
                _ => {}
            }
        },
    );
}

/// Sweep and compare the kept scenarios (none: the comparison is cleared). Answers
/// for an older list are dropped.
pub fn run_scenarios(explore: ExploreState, workers: WorkersHandle) {
    let scenarios = explore.scenarios.with_untracked(ScenarioList::scenarios);
    if scenarios.is_empty() {
        explore.scenario_report.set(None);
        explore.scenario_problem.set(None);
        return;
    }
    let wanted = scenarios.clone();
    let client = workers.with_value(|w| w.explore_worker());
    client.request(
        RequestBody::CompareScenarios { scenarios },
        move |response| {
            if explore
                .scenarios
                .with_untracked(|now| now.scenarios() != wanted)
            {
                return;
            }
            match response {
                ResponseBody::ScenariosCompared(report) => {
                    let report = Arc::new(*report);
                    next_task(move || {
                        explore.scenario_problem.set(None);
                        explore.scenario_report.set(Some(report));
                    });
                }
                ResponseBody::Error { message }
                | ResponseBody::ExploreFailed(FieldError { message, .. }) => {
                    explore.scenario_problem.set(Some(message));
                }
                _ => {}
            }
        },
    );
}

/// Stop the running batch sweep; the last batch view stays.
pub fn cancel_batch(explore: ExploreState, workers: WorkersHandle) {
    workers.with_value(|w| w.cancel_batch());
    explore.batch_running.set(false);
}

/// Select a configuration (by short key) and fetch its breakdown and sensitivity.
pub fn evaluate(explore: ExploreState, workers: WorkersHandle, key: String) {
    let client = workers.with_value(|w| w.explore_worker());
    let for_sensitivity = key.clone();
    let wanted = key.clone();
    client.request(RequestBody::Evaluate { key }, move |response| {
        if explore.selected.get_untracked().as_deref() != Some(wanted.as_str()) {
            return;
        }
        match response {
            ResponseBody::Evaluated(e) => {
                let e = Arc::new(*e);
                let wanted = wanted.clone();
                next_task(move || {
                    if explore.selected.get_untracked().as_deref() == Some(wanted.as_str()) {
                        explore.evaluation.set(Some(e));
                    }
                });
            }
            ResponseBody::Error { message }
            | ResponseBody::ExploreFailed(FieldError { message, .. }) => {
                explore.evaluation.set(None);
                explore.problem.set(Some(message));
            }
            _ => {}
        }
    });
    let wanted = for_sensitivity.clone();
    client.request(
        RequestBody::Sensitivity {
            key: for_sensitivity,
        },
        move |response| {
            if explore.selected.get_untracked().as_deref() != Some(wanted.as_str()) {
                return;
            }
            if let ResponseBody::Sensitivity(report) = response {
                let report = Arc::new(*report);
                let wanted = wanted.clone();
                next_task(move || {
                    if explore.selected.get_untracked().as_deref() == Some(wanted.as_str()) {
                        explore.sensitivity.set(Some(report));
                    }
                });
            }
        },
    );
}

/// Fetch the breakdown of every pinned configuration not fetched yet.
pub fn evaluate_pinned(explore: ExploreState, workers: WorkersHandle) {
    if explore.answer.with_untracked(Option::is_none) {
        return;
    }
    let missing: Vec<String> = explore.pinned.with_untracked(|keys| {
        explore.pinned_evaluations.with_untracked(|have| {
            keys.iter()
                .filter(|k| !have.iter().any(|(h, _)| h == *k))
                .cloned()
                .collect()
        })
    });
    let client = workers.with_value(|w| w.explore_worker());
    for key in missing {
        let wanted = key.clone();
        let runs = explore.runs.get_untracked();
        client.request(RequestBody::Evaluate { key }, move |response| {
            // An answer for older settings is dropped (the newer sweep asks again).
            if explore.runs.get_untracked() != runs {
                return;
            }
            if let ResponseBody::Evaluated(e) = response {
                explore.pinned_evaluations.update(|v| {
                    v.retain(|(k, _)| *k != wanted);
                    v.push((wanted.clone(), Arc::new(*e)));
                });
            }
        });
    }
}

/// Download `shardscope explore --format json|csv` (with `--all` when infeasible
/// configurations are shown) for the current settings.
pub fn export(explore: ExploreState, workers: WorkersHandle, format: ExportFormat) {
    let all = explore.infeasible.get_untracked();
    let name = explore
        .answer
        .with_untracked(|a| export_stem(a.as_ref().map(|a| &a.report)));
    let name = format!(
        "{name}{}.{}",
        if all { "-all" } else { "" },
        format.extension()
    );
    let client = workers.with_value(|w| w.explore_worker());
    client.request(
        RequestBody::ExportExplore { format, all },
        move |response| match response {
            ResponseBody::Exported { text } => {
                if let Err(e) = save_text(&name, &text, format.mime()) {
                    explore
                        .problem
                        .set(Some(format!("The download failed: {e}")));
                }
            }
            ResponseBody::Error { message }
            | ResponseBody::ExploreFailed(FieldError { message, .. }) => {
                explore.problem.set(Some(message))
            }
            _ => {}
        },
    );
}

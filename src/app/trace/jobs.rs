//! The trace view's requests to the workers: load, re-attribute, cancel, timeline
//! windows, the overview strip and exports. Each answer lands in [`TraceState`]; answers
//! to superseded requests are dropped (generation counters).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use shardscope_view::clocks_panel::export_file_name;
use shardscope_view::lod::{overview_from_bytes, WindowData, WindowQuery};

use super::super::download::save_text;
use super::super::now_ms;
use super::super::state::{AppState, Phase, Problem, Progress, RunSlot, TraceState};
use super::super::worker_client::WorkerClient;
use super::super::workers::WorkersHandle;
use crate::blob::blob_size;
use crate::protocol::{
    ExportFormat, NamedBlob, ParsedFile, RequestBody, ResponseBody, Stage, TraceReport,
};
use shardscope_attribution::analysis::{page_input_refusal, AnalyzeSettings};
use shardscope_trace::trace::ranges::share::{
    assign, plan_files, Assignment, FilePlan, Gather, LoadedFile, BROWSER_RANGE_BYTES,
};
use wasm_bindgen::JsValue;

/// Load `files` as the trace view's run in a fresh worker; the trace on screen stays
/// until something loaded.
pub fn load_files(state: AppState, workers: WorkersHandle, files: Vec<NamedBlob>) {
    // Files the user gave: the run is no longer the link's source.
    state.trace.run.source.set(None);
    load_run(state, workers, RunSlot::A, files);
}

/// Load `files` as run `slot` (A: the trace view's, B: the one compared with it) in a
/// fresh worker; what that run showed stays until something loaded.
pub fn load_run(state: AppState, workers: WorkersHandle, slot: RunSlot, files: Vec<NamedBlob>) {
    let trace = state.run(slot);
    if files.is_empty() {
        trace.problems.set(vec![Problem {
            file: None,
            message: "Nothing to load: the drop or the folder held no files.".to_string(),
            hint: Some(
                "Drop stormlog traces (.json, .jsonl, .csv, .gz), a telemetry-sink folder or a \
                 folder of per-rank exports."
                    .to_string(),
            ),
        }]);
        trace.phase.set(Phase::Error);
        return;
    }
    let settings = match trace.settings.analyze_settings() {
        Ok(s) => s,
        Err(e) => {
            trace.problems.set(vec![Problem {
                file: None,
                message: format!("Settings: {}", e.message),
                hint: Some("Fix the highlighted override, then load again.".to_string()),
            }]);
            trace.phase.set(Phase::Error);
            return;
        }
    };
    let total: u64 = files.iter().map(|f| blob_size(&f.blob)).sum();
    // Refused up front, before any worker reads a byte: what is on screen stays.
    if let Some(message) = page_input_refusal(total) {
        trace.problems.set(vec![Problem {
            file: (files.len() == 1).then(|| files[0].name.clone()),
            message,
            hint: Some(
                "Or load fewer files at a time (one rank's export, one sink folder).".to_string(),
            ),
        }]);
        trace.phase.set(Phase::Error);
        return;
    }
    let first = files.first().map(|f| f.name.clone()).unwrap_or_default();
    let generation = workers.with_value(|w| {
        let generation = w.load_generation(slot);
        let g = generation.get() + 1;
        generation.set(g);
        // A newer load replaces a running one.
        w.stop_helping();
        if let Some(old) = w.loading(slot).borrow_mut().take() {
            old.terminate();
        }
        g
    });
    trace.loading_files.set(true);
    trace.phase.set(Phase::Loading);
    trace.problems.set(Vec::new());
    trace.progress.set(Progress {
        done_bytes: 0,
        total_bytes: total,
        stage: Stage::Reading { file: first },
    });
    let client = workers.with_value(|w| w.take_spare());
    workers.with_value(|w| *w.loading(slot).borrow_mut() = Some(client.clone()));
    let sizes: Vec<LoadedFile<'_>> = files
        .iter()
        .map(|f| LoadedFile {
            name: &f.name,
            bytes: blob_size(&f.blob),
        })
        .collect();
    let plans = plan_files(&sizes, BROWSER_RANGE_BYTES);
    trace.preparse_ms.set(0.0);
    trace.parse_workers.set(0);
    let job = LoadJob {
        state,
        workers,
        slot,
        client,
        files,
        settings,
        generation,
        started: now_ms(),
    };
    if plans.is_empty() {
        job.send(Vec::new());
    } else {
        let helpers = workers.with_value(|w| w.take_helpers());
        job.preparse(helpers, plans);
    }
}

/// One load on its way: what each of its steps needs.
struct LoadJob {
    state: AppState,
    workers: WorkersHandle,
    slot: RunSlot,
    /// The worker that loads (and keeps the trace if it loads).
    client: WorkerClient,
    files: Vec<NamedBlob>,
    settings: AnalyzeSettings,
    /// Answers to an older load are dropped.
    generation: u64,
    started: f64,
}

impl LoadJob {
    fn current(&self) -> bool {
        self.workers
            .with_value(|w| w.load_generation(self.slot).get() == self.generation)
    }

    /// Parse the planned files' ranges on the loading worker and the helpers (range i
    /// on worker i mod n, [`assign`]), then load with the parsed ranges attached.
    fn preparse(self, helpers: Vec<WorkerClient>, plans: Vec<FilePlan>) {
        let trace = self.state.run(self.slot);
        let total_bytes: u64 = self.files.iter().map(|f| blob_size(&f.blob)).sum();
        let mut clients = vec![self.client.clone()];
        clients.extend(helpers);
        trace.parse_workers.set(clients.len());
        let requests = assign(&plans, clients.len());
        let gather = Rc::new(RefCell::new(Gather::<JsValue>::new(plans, requests.len())));
        let requests: Vec<(Assignment, NamedBlob, String)> = requests
            .into_iter()
            .filter_map(|a| {
                let plan = gather.borrow().plan(a.plan)?.clone();
                let file = self.files.get(plan.file)?.clone();
                Some((a, file, plan.default_session_id))
            })
            .collect();
        let job = Rc::new(RefCell::new(Some(self)));
        for (assignment, file, default_session_id) in requests {
            let Some(worker) = clients.get(assignment.worker) else {
                continue;
            };
            let (gather, job) = (Rc::clone(&gather), Rc::clone(&job));
            let p = assignment.plan;
            let name = file.name.clone();
            let request = RequestBody::ParseRanges {
                file,
                tasks: assignment.tasks,
                default_session_id,
            };
            worker.request(request, move |response| {
                if !job.borrow().as_ref().is_some_and(LoadJob::current) {
                    return;
                }
                let all_ended = match response {
                    ResponseBody::RangeParsed { index, packed } => {
                        let done_bytes = gather.borrow_mut().range(p, index, packed);
                        trace.progress.set(Progress {
                            done_bytes,
                            total_bytes,
                            stage: Stage::Reading { file: name.clone() },
                        });
                        return;
                    }
                    ResponseBody::RangesParsed { complete } => {
                        gather.borrow_mut().request_ended(p, complete)
                    }
                    // Any problem: the loading worker parses this file itself.
                    _ => gather.borrow_mut().request_ended(p, false),
                };
                if !all_ended {
                    return;
                }
                let Some(job) = job.borrow_mut().take() else {
                    return;
                };
                let parsed: Vec<ParsedFile> = gather
                    .borrow_mut()
                    .take_complete()
                    .into_iter()
                    .filter_map(|g| {
                        Some(ParsedFile {
                            name: job.files.get(g.plan.file)?.name.clone(),
                            default_session_id: g.plan.default_session_id,
                            file_bytes: g.plan.file_bytes,
                            range_bytes: g.plan.range_bytes,
                            ranges: g.ranges.into_iter().collect(),
                        })
                    })
                    .collect();
                trace.preparse_ms.set(now_ms() - job.started);
                job.workers.with_value(|w| w.stop_helping());
                job.send(parsed);
            });
        }
    }

    /// Send the load itself and take its answer.
    fn send(self, parsed: Vec<ParsedFile>) {
        let LoadJob {
            state,
            workers,
            slot,
            client,
            files,
            settings,
            generation,
            started,
        } = self;
        // Run A's files are kept in the browser once they loaded (`recent`).
        let kept = (slot == RunSlot::A).then(|| files.clone());
        let request = RequestBody::Load {
            files,
            settings,
            lanes_aligned: state.run(slot).settings.lanes_aligned(),
            parsed,
        };
        client.request(request, move |response| {
            let current = workers.with_value(|w| w.load_generation(slot).get() == generation);
            if !current {
                return;
            }
            let loaded = matches!(&response, ResponseBody::Analyzed(r) if !r.sessions.is_empty());
            on_load_answer(state, workers, slot, started, response);
            if let (true, Some(files), Some(remember)) =
                (loaded, kept.clone(), state.recent.remember.get_value())
            {
                remember(state, files);
            }
        });
    }
}

/// What the loading worker answered.
fn on_load_answer(
    state: AppState,
    workers: WorkersHandle,
    slot: RunSlot,
    started: f64,
    response: ResponseBody,
) {
    let trace = state.run(slot);
    match response {
        ResponseBody::Progress {
            done_bytes,
            total_bytes,
            stage,
        } => trace.progress.set(Progress {
            done_bytes,
            total_bytes,
            stage,
        }),
        ResponseBody::Analyzed(report) => {
            trace.elapsed_ms.set(now_ms() - started);
            let loaded = !report.sessions.is_empty();
            workers.with_value(|w| {
                let loading = w.loading(slot).borrow_mut().take();
                if loaded {
                    if let Some(old) = w.holder(slot).replace(loading) {
                        old.terminate();
                    }
                    // The old worker's windows will never be answered.
                    if slot == RunSlot::A {
                        w.window_in_flight.set(false);
                    }
                } else if let Some(failed) = loading {
                    failed.terminate();
                }
            });
            // New workers start once the results are on screen: starting two takes
            // the page ~10 ms, which would lengthen the task that shows them.
            set_timeout(
                move || workers.with_value(|w| w.refill_spare()),
                std::time::Duration::from_millis(400),
            );
            if loaded {
                // Shown in a task of its own: decoding a big answer and building the
                // view from it would make one long task together.
                set_timeout(
                    move || apply_report(state, slot, *report, true),
                    std::time::Duration::ZERO,
                );
            } else {
                let mut problems: Vec<Problem> = report
                    .problems
                    .iter()
                    .map(Problem::from_load_error)
                    .collect();
                if problems.is_empty() {
                    problems.push(Problem::general(
                        "These files hold no telemetry events stormlog can read.",
                    ));
                }
                trace.problems.set(problems);
                trace.phase.set(Phase::Error);
                trace.loading_files.set(false);
            }
        }
        ResponseBody::Error { message } => {
            workers.with_value(|w| {
                if let Some(failed) = w.loading(slot).borrow_mut().take() {
                    failed.terminate();
                }
                w.refill_spare();
            });
            trace.problems.set(vec![Problem::general(message)]);
            trace.phase.set(Phase::Error);
            trace.loading_files.set(false);
        }
        other => {
            trace.problems.set(vec![Problem::general(format!(
                "The worker gave an unexpected answer: {other:?}"
            ))]);
            trace.phase.set(Phase::Error);
            trace.loading_files.set(false);
        }
    }
}

/// Show a new report of run `slot`. `fresh`: it comes from a load (files changed), so
/// run A's window and selection are kept only if they still make sense.
fn apply_report(state: AppState, slot: RunSlot, report: TraceReport, fresh: bool) {
    let run = state.run(slot);
    let mut problems: Vec<Problem> = report
        .problems
        .iter()
        .map(Problem::from_load_error)
        .collect();
    if let Some(e) = &report.settings_problem {
        problems.push(Problem {
            file: None,
            message: format!("Settings: {}", e.message),
            hint: None,
        });
    }
    if slot == RunSlot::A {
        keep_view_if_it_fits(state.trace, &report, fresh);
    }
    if fresh {
        run.wanted_files.set(Vec::new());
    }
    // A session the user picked that is the default is simply "the default".
    if run.settings.session.get_untracked().is_some()
        && run.settings.session.get_untracked() == report.default_session
    {
        run.settings.session.set(None);
    }
    run.problems.set(problems);
    run.report.set(Some(Arc::new(report)));
    run.runs.update(|n| *n += 1);
    run.phase.set(Phase::Done);
    run.loading_files.set(false);
}

/// Run A's window and selection after a new report: kept where they still make sense.
fn keep_view_if_it_fits(trace: TraceState, report: &TraceReport, fresh: bool) {
    let bounds_ok = |w: &shardscope_view::timeline::TimeWindow| match (
        report.trace_start_ns,
        report.trace_end_ns,
    ) {
        (Some(a), Some(b)) => w.end_ns > a && w.start_ns < b,
        _ => false,
    };
    if fresh {
        if trace.window.get_untracked().is_some_and(|w| !bounds_ok(&w)) {
            trace.window.set(None);
        }
        trace.frame.set(None);
        trace.overview.set(None);
    }
    if let Some((rank, start)) = trace.selected.get_untracked() {
        let exists = report
            .rows
            .iter()
            .any(|r| r.rank == rank && r.interval_start_ns == start);
        if !exists {
            trace.selected.set(None);
        }
    }
}

/// Attribute the kept trace of run A again with the current settings (no file is read).
pub fn rerun(state: AppState, workers: WorkersHandle) {
    rerun_run(state, workers, RunSlot::A);
}

/// Attribute the kept trace of run `slot` again with its current settings.
pub fn rerun_run(state: AppState, workers: WorkersHandle, slot: RunSlot) {
    let trace = state.run(slot);
    let Some(client) = workers.with_value(|w| w.holder(slot).borrow().clone()) else {
        return;
    };
    // Inline messages explain bad overrides; a bad value never starts a run.
    let Ok(settings) = trace.settings.analyze_settings() else {
        return;
    };
    let generation = workers.with_value(|w| {
        let generation = w.run_generation(slot);
        let g = generation.get() + 1;
        generation.set(g);
        g
    });
    trace.loading_files.set(false);
    trace.phase.set(Phase::Loading);
    trace.progress.set(Progress::default());
    let started = now_ms();
    let lanes_aligned = trace.settings.lanes_aligned();
    let request = RequestBody::Reattribute {
        settings,
        lanes_aligned,
    };
    client.request(request, move |response| {
        if !workers.with_value(|w| w.run_generation(slot).get() == generation) {
            return;
        }
        match response {
            ResponseBody::Progress { .. } => {}
            ResponseBody::Analyzed(report) => {
                trace.elapsed_ms.set(now_ms() - started);
                apply_report(state, slot, *report, false);
                // The session may have changed: the timeline asks again.
                state.trace.frame.set(None);
                state.trace.overview.set(None);
            }
            ResponseBody::Error { message } => {
                trace.problems.set(vec![Problem::general(message)]);
                trace.phase.set(Phase::Error);
            }
            other => {
                trace.problems.set(vec![Problem::general(format!(
                    "The worker gave an unexpected answer: {other:?}"
                ))]);
                trace.phase.set(Phase::Error);
            }
        }
    });
}

/// Stop run `slot`'s running load (its worker is terminated at once) or forget its
/// running re-attribution; what was on screen stays.
pub fn cancel(state: AppState, workers: WorkersHandle, slot: RunSlot) {
    let trace = state.run(slot);
    workers.with_value(|w| {
        w.stop_helping();
        // Also stops a link's traces being fetched (`source::load_from_source`).
        let generation = w.load_generation(slot);
        generation.set(generation.get() + 1);
        if let Some(loading) = w.loading(slot).borrow_mut().take() {
            loading.terminate();
            w.refill_spare();
        }
        let generation = w.run_generation(slot);
        generation.set(generation.get() + 1);
    });
    trace.loading_files.set(false);
    let has_report = trace.report.with_untracked(Option::is_some);
    trace
        .phase
        .set(if has_report { Phase::Done } else { Phase::Idle });
    trace.problems.set(vec![Problem {
        file: None,
        message: "Cancelled.".to_string(),
        hint: Some(if has_report {
            "The previous results are still shown.".to_string()
        } else {
            "Nothing was loaded.".to_string()
        }),
    }]);
}

/// Ask for timeline data; while one request is in flight only the newest waits.
pub fn request_window(state: AppState, workers: WorkersHandle, query: WindowQuery) {
    let Some(client) = workers.with_value(|w| w.trace_worker()) else {
        return;
    };
    let busy = workers.with_value(|w| {
        if w.window_in_flight.get() {
            let mut pending = w.window_pending.borrow_mut();
            pending.clear();
            pending.push_back(query.clone());
            true
        } else {
            w.window_in_flight.set(true);
            false
        }
    });
    if busy {
        return;
    }
    let trace = state.trace;
    client.request(RequestBody::Window { query }, move |response| {
        if let ResponseBody::Window(payload) = response {
            trace.frame_query_ms.set(payload.query_ms);
            if let Some(frame) = WindowData::from_bytes(&payload.window) {
                trace.frame.set(Some(Arc::new(frame)));
            }
        }
        let next = workers.with_value(|w| {
            w.window_in_flight.set(false);
            w.window_pending.borrow_mut().pop_front()
        });
        if let Some(next) = next {
            request_window(state, workers, next);
        }
    });
}

/// Ask run B's worker for timeline data; the newest request's answer wins (an older one
/// arriving later is dropped).
pub fn request_window_b(state: AppState, workers: WorkersHandle, query: WindowQuery) {
    let Some(client) = workers.with_value(|w| w.holder(RunSlot::B).borrow().clone()) else {
        return;
    };
    let generation = workers.with_value(|w| {
        let g = w.compare_window_generation.get() + 1;
        w.compare_window_generation.set(g);
        g
    });
    let frame = state.compare.frame;
    client.request(RequestBody::Window { query }, move |response| {
        let newest = workers.with_value(|w| w.compare_window_generation.get() == generation);
        if let (true, ResponseBody::Window(payload)) = (newest, response) {
            if let Some(data) = WindowData::from_bytes(&payload.window) {
                frame.set(Some(Arc::new(data)));
            }
        }
    });
}

/// Ask for the overview strip of the visible ranks.
pub fn request_overview(state: AppState, workers: WorkersHandle, columns: u32, ranks: Vec<i64>) {
    let Some(client) = workers.with_value(|w| w.trace_worker()) else {
        return;
    };
    let trace = state.trace;
    client.request(
        RequestBody::Overview {
            columns,
            ranks: Some(ranks),
        },
        move |response| {
            if let ResponseBody::Overview { gap_max } = response {
                if let Some(gap_max) = overview_from_bytes(&gap_max) {
                    trace.overview.set(Some(Arc::new(gap_max)));
                }
            }
        },
    );
}

/// Download the results as `shardscope attribute --format json|csv` prints them.
pub fn export(state: AppState, workers: WorkersHandle, format: ExportFormat) {
    download(
        state,
        workers,
        RequestBody::Export { format },
        format.extension(),
        format.mime(),
    );
}

/// Download the run as Chrome trace-event JSON (`shardscope attribute --perfetto`).
pub fn export_perfetto(state: AppState, workers: WorkersHandle) {
    download(
        state,
        workers,
        RequestBody::ExportPerfetto,
        "perfetto.json",
        "application/json",
    );
}

/// Ask the trace worker for an export and save its text as `shardscope-attribution-…`.
fn download(
    state: AppState,
    workers: WorkersHandle,
    request: RequestBody,
    extension: &'static str,
    mime: &'static str,
) {
    let Some(client) = workers.with_value(|w| w.trace_worker()) else {
        return;
    };
    let trace = state.trace;
    let preset = trace.run.settings.preset.get_untracked();
    let aligned = trace
        .run
        .report
        .with_untracked(|r| r.as_ref().is_some_and(|r| r.align_clocks));
    let name = export_file_name(preset.as_str(), aligned, extension);
    client.request(request, move |response| match response {
        ResponseBody::Exported { text } => {
            if let Err(e) = save_text(&name, &text, mime) {
                trace
                    .run
                    .problems
                    .update(|p| p.push(Problem::general(format!("The download failed: {e}"))));
            }
        }
        ResponseBody::Error { message } => {
            trace
                .run
                .problems
                .update(|p| p.push(Problem::general(message)));
        }
        _ => {}
    });
}

//! The page's workers. A load runs in a fresh worker, so that cancelling it is
//! `terminate()` (immediate, whatever the worker is doing) and the worker holding the
//! trace on screen keeps answering until the new one has succeeded:
//!
//! - `trace`: holds the loaded dataset; answers re-attribution, timeline windows, exports;
//! - `loading`: runs a load; becomes `trace` when something loaded, else is dropped;
//! - `spare`: started with the page (and pinged for the header badge), so a load does
//!   not wait for a worker to boot; warmed up once the page has settled;
//! - `helpers`: the other parse workers (one per core but one, 2 to 8 in all with the
//!   loading worker: `shardscope_trace::trace::ranges::share::page_workers`; `?workers=N`
//!   forces N), started after the warm-up; while a big JSON file loads, each parses its
//!   share of the ranges and the loading worker the rest ([`super::trace::jobs`]), then
//!   they are dropped.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use leptos::prelude::*;
use shardscope_view::lod::WindowQuery;

use super::now_ms;
use super::state::{AppState, RunSlot, WorkerStatus};
use super::worker_client::{WorkerClient, WorkerEvent};
use crate::protocol::{RequestBody, ResponseBody};

/// The workers and the bookkeeping of the requests in flight.
pub struct Workers {
    state: AppState,
    pub trace: RefCell<Option<WorkerClient>>,
    pub loading: RefCell<Option<WorkerClient>>,
    /// Run B of a comparison: the worker holding it and the one loading it.
    compare: RefCell<Option<WorkerClient>>,
    compare_loading: RefCell<Option<WorkerClient>>,
    spare: RefCell<Option<WorkerClient>>,
    helpers: RefCell<Vec<WorkerClient>>,
    /// The helpers parsing ranges for the running load.
    pub helping: RefCell<Vec<WorkerClient>>,
    /// Workers that parse a big file, the loading one included.
    pub parse_workers: usize,
    /// Incremented by every load / re-attribution; answers of older ones are ignored.
    load_generation: Cell<u64>,
    run_generation: Cell<u64>,
    compare_load_generation: Cell<u64>,
    compare_run_generation: Cell<u64>,
    /// Run B's timeline windows: only the newest answer is shown.
    pub compare_window_generation: Cell<u64>,
    /// Timeline windows: one request in flight, the newest one waiting.
    pub window_in_flight: Cell<bool>,
    pub window_pending: RefCell<VecDeque<WindowQuery>>,
    /// The explorer's own worker (started when the explore view is first shown), so a
    /// trace load never delays a sweep; and the newest sweep's number.
    explore: RefCell<Option<WorkerClient>>,
    pub explore_generation: Cell<u64>,
    /// Batch sweeps run in a worker of their own: cancelling one is `terminate()`.
    batch: RefCell<Option<WorkerClient>>,
    pub batch_generation: Cell<u64>,
}

/// The page's handle on its workers (context value).
pub type WorkersHandle = StoredValue<Workers, LocalStorage>;

impl Workers {
    pub fn new(state: AppState) -> Workers {
        let workers = Workers {
            state,
            trace: RefCell::new(None),
            loading: RefCell::new(None),
            compare: RefCell::new(None),
            compare_loading: RefCell::new(None),
            spare: RefCell::new(None),
            helpers: RefCell::new(Vec::new()),
            helping: RefCell::new(Vec::new()),
            parse_workers: parse_workers(),
            load_generation: Cell::new(0),
            run_generation: Cell::new(0),
            compare_load_generation: Cell::new(0),
            compare_run_generation: Cell::new(0),
            compare_window_generation: Cell::new(0),
            window_in_flight: Cell::new(false),
            window_pending: RefCell::new(VecDeque::new()),
            explore: RefCell::new(None),
            explore_generation: Cell::new(0),
            batch: RefCell::new(None),
            batch_generation: Cell::new(0),
        };
        // The spare only: the helper and the warm-up wait until the page has settled
        // (see `warm_up_when_settled`).
        *workers.spare.borrow_mut() = Some(start_pinged(state));
        workers
    }

    /// Once the page has settled ([`SETTLE`] after it started), warm the spare up (the
    /// browser compiles the load's hot paths with its optimizing tier) and then start
    /// the helper. Both at once with the page's start made the machine's two cores three
    /// or four busy threads' worth: the page's own first tasks, a few milliseconds of
    /// work each, then ran 50–130 ms on the clock. A file dropped before that is loaded
    /// at once; its worker warms up on the file itself.
    pub fn warm_up_when_settled(handle: WorkersHandle) {
        set_timeout(
            move || {
                let spare = handle
                    .try_with_value(|w| w.spare.borrow().clone())
                    .flatten();
                if let Some(spare) = spare {
                    spare.request(RequestBody::WarmUp, move |response| {
                        if let ResponseBody::WarmedUp { .. } = response {
                            handle.try_with_value(|w| w.refill_spare());
                        }
                    });
                }
            },
            SETTLE,
        );
    }

    /// Started helpers for the new load's range parsing, `parse_workers - 1` of them
    /// (terminating any earlier ones).
    pub fn take_helpers(&self) -> Vec<WorkerClient> {
        self.stop_helping();
        let mut helpers = std::mem::take(&mut *self.helpers.borrow_mut());
        let wanted = self.parse_workers.saturating_sub(1);
        while helpers.len() < wanted {
            helpers.push(start_worker(self.state));
        }
        for extra in helpers.drain(wanted..) {
            extra.terminate();
        }
        *self.helping.borrow_mut() = helpers.clone();
        helpers
    }

    /// Terminate the helpers of the running load, if any.
    pub fn stop_helping(&self) {
        for helper in self.helping.borrow_mut().drain(..) {
            helper.terminate();
        }
    }

    /// A started worker for a new load (the spare, or a new one).
    pub fn take_spare(&self) -> WorkerClient {
        self.spare
            .borrow_mut()
            .take()
            .unwrap_or_else(|| start_worker(self.state))
    }

    /// Start the next spare (after a load, when the machine is idle again).
    pub fn refill_spare(&self) {
        if self.spare.borrow().is_none() {
            *self.spare.borrow_mut() = Some(start_worker(self.state));
        }
        let mut helpers = self.helpers.borrow_mut();
        while helpers.len() < self.parse_workers.saturating_sub(1) {
            helpers.push(start_worker(self.state));
        }
    }

    /// The explorer's worker (started on first use).
    pub fn explore_worker(&self) -> WorkerClient {
        self.explore
            .borrow_mut()
            .get_or_insert_with(|| start_worker(self.state))
            .clone()
    }

    /// The batch-sweep worker (started on first use).
    pub fn batch_worker(&self) -> WorkerClient {
        self.batch
            .borrow_mut()
            .get_or_insert_with(|| start_worker(self.state))
            .clone()
    }

    /// Stop the running batch sweep at once (its worker is terminated).
    pub fn cancel_batch(&self) {
        if let Some(worker) = self.batch.borrow_mut().take() {
            worker.terminate();
        }
        self.batch_generation.set(self.batch_generation.get() + 1);
    }

    /// The worker that holds the trace, if any.
    pub fn trace_worker(&self) -> Option<WorkerClient> {
        self.trace.borrow().clone()
    }

    /// The worker holding run `slot`.
    pub fn holder(&self, slot: RunSlot) -> &RefCell<Option<WorkerClient>> {
        match slot {
            RunSlot::A => &self.trace,
            RunSlot::B => &self.compare,
        }
    }

    /// The worker loading run `slot`.
    pub fn loading(&self, slot: RunSlot) -> &RefCell<Option<WorkerClient>> {
        match slot {
            RunSlot::A => &self.loading,
            RunSlot::B => &self.compare_loading,
        }
    }

    /// Incremented by every load of run `slot`; answers of older ones are ignored.
    pub fn load_generation(&self, slot: RunSlot) -> &Cell<u64> {
        match slot {
            RunSlot::A => &self.load_generation,
            RunSlot::B => &self.compare_load_generation,
        }
    }

    /// Incremented by every re-attribution of run `slot`.
    pub fn run_generation(&self, slot: RunSlot) -> &Cell<u64> {
        match slot {
            RunSlot::A => &self.run_generation,
            RunSlot::B => &self.compare_run_generation,
        }
    }

    /// Forget run B: its worker is terminated, its answers in flight are dropped.
    pub fn drop_compare(&self) {
        for cell in [&self.compare, &self.compare_loading] {
            if let Some(worker) = cell.borrow_mut().take() {
                worker.terminate();
            }
        }
        for generation in [&self.compare_load_generation, &self.compare_run_generation] {
            generation.set(generation.get() + 1);
        }
    }
}

/// How many workers parse a big file here: the core's rule over the browser's core count
/// and the page's query string.
fn parse_workers() -> usize {
    let window = web_sys::window();
    let cores = window
        .as_ref()
        .map(|w| w.navigator().hardware_concurrency());
    let query = window
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    shardscope_trace::trace::ranges::share::page_workers(cores, &query)
}

/// Start a worker whose crashes are reported in the header badge.
fn start_worker(state: AppState) -> WorkerClient {
    let worker = state.worker;
    WorkerClient::start_shared(move |event| match event {
        WorkerEvent::Ready => {}
        WorkerEvent::Stale { worker_build } => worker.set(WorkerStatus::Stale { worker_build }),
        WorkerEvent::Failed { message } => worker.set(WorkerStatus::Failed { message }),
    })
}

/// Start a worker and ping it; its answer sets the header badge.
fn start_pinged(state: AppState) -> WorkerClient {
    let worker = state.worker;
    let client = start_worker(state);
    let sent = now_ms();
    client.request(RequestBody::Ping, move |response| match response {
        ResponseBody::Pong { core_version, .. } => {
            if worker.get_untracked() == WorkerStatus::Starting {
                worker.set(WorkerStatus::Ready {
                    core_version,
                    ping_ms: now_ms() - sent,
                });
            }
        }
        ResponseBody::Error { message } => worker.set(WorkerStatus::Failed { message }),
        other => worker.set(WorkerStatus::Failed {
            message: format!("The worker answered a ping with {other:?}"),
        }),
    });
    client
}

/// How long after the page's start its workers' background work begins.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(1000);

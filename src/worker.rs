//! The worker side: what `src/bin/worker.rs` runs inside the Web Worker.
//!
//! [`run`] installs a panic hook that reports crashes to the page, starts listening for
//! requests and posts the `Ready` handshake. [`handle_message`] answers one request; it is
//! separate from the worker's global scope so tests can drive it directly.
//!
//! The worker keeps what it loaded ([`TraceJob`]): re-attribution, timeline windows and
//! exports use the parsed events without reading any file again. Files are read here,
//! never in the page ([`crate::blob`]).

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::blob::{parse_ranges, read_blob_info};
use shardscope_view::charts::BatchPlane;

use crate::explore_job::ExploreJob;
use crate::protocol::{
    from_js, peek_id, to_js, RequestBody, ResponseBody, Stage, WorkerRequest, WorkerResponse,
    READY_ID,
};
use crate::trace_job::TraceJob;

thread_local! {
    /// The id of the request being handled, so a panic can be reported to its sender.
    static CURRENT_REQUEST: Cell<u32> = const { Cell::new(READY_ID) };
}

/// Start the worker: panic hook, message listener, then the `Ready` handshake.
pub fn run() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        post(&WorkerResponse {
            id: CURRENT_REQUEST.with(Cell::get),
            body: ResponseBody::Error {
                message: format!(
                    "The worker crashed ({info}). This is a bug in Shardscope; \
                     reload the page to start a new worker."
                ),
            },
        });
    }));

    let Some(scope) = scope() else {
        web_sys::console::error_1(&JsValue::from_str(
            "shardscope worker: not running in a dedicated worker",
        ));
        return;
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        handle_message(event.data(), &mut |response| post(response));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The listener lives as long as the worker.
    on_message.forget();

    post(&WorkerResponse {
        id: READY_ID,
        body: ResponseBody::Ready {
            core_version: crate::CORE_VERSION.to_string(),
            build: crate::protocol::BUILD_ID.to_string(),
        },
    });
}

fn scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .ok()
}

/// Post a response to the page. A response that cannot be encoded is replaced by an
/// `Error` response saying so; a failure to post at all is logged.
fn post(response: &WorkerResponse) {
    let Some(scope) = scope() else {
        return;
    };
    let value = match to_js(response) {
        Ok(value) => value,
        Err(e) => match to_js(&WorkerResponse {
            id: response.id,
            body: ResponseBody::Error {
                message: e.to_string(),
            },
        }) {
            Ok(value) => value,
            Err(e) => {
                web_sys::console::error_1(&JsValue::from_str(&e.to_string()));
                return;
            }
        },
    };
    if let Err(err) = scope.post_message_with_transfer(&value, &response.body.transferables()) {
        web_sys::console::error_2(
            &JsValue::from_str("shardscope worker: postMessage failed"),
            &err,
        );
    }
}

/// Answer one message from the page: decode it, do the work, and hand every response
/// (progress, then exactly one final response) to `post`.
pub fn handle_message(data: JsValue, post: &mut dyn FnMut(&WorkerResponse)) {
    let id = peek_id(&data);
    CURRENT_REQUEST.with(|c| c.set(id));
    let body = match from_js::<WorkerRequest>(data) {
        Ok(WorkerRequest {
            body:
                RequestBody::ParseRanges {
                    file,
                    tasks,
                    default_session_id,
                },
            ..
        }) => {
            parse_ranges_async(id, file, tasks, default_session_id);
            CURRENT_REQUEST.with(|c| c.set(READY_ID));
            return;
        }
        Ok(request) => answer(id, request.body, post),
        Err(message) => ResponseBody::Error {
            message: format!("The worker received a request it does not understand: {message}"),
        },
    };
    post(&WorkerResponse { id, body });
    CURRENT_REQUEST.with(|c| c.set(READY_ID));
}

/// [`RequestBody::ParseRanges`], asynchronously (its reads overlap its parsing): the
/// task posts its ranges and its final answer itself.
fn parse_ranges_async(
    id: u32,
    file: crate::protocol::NamedBlob,
    tasks: Vec<shardscope_trace::trace::ranges::RangeTask>,
    default_session_id: String,
) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut send = |index, packed: Vec<u8>| {
            post(&WorkerResponse {
                id,
                body: ResponseBody::RangeParsed {
                    index,
                    packed: js_sys::Uint8Array::from(packed.as_slice()).into(),
                },
            })
        };
        let complete = parse_ranges(&file, &tasks, &default_session_id, &mut send).await;
        post(&WorkerResponse {
            id,
            body: ResponseBody::RangesParsed { complete },
        });
    });
}

/// What one worker keeps between requests: the trace it loaded last (replaced by every
/// `Load`) and the last sweep's settings (replaced by every `Explore`).
#[derive(Default)]
pub struct WorkerState {
    trace: Option<TraceJob>,
    explore: Option<ExploreJob>,
}

thread_local! {
    /// This worker's state: one per worker, so one per thread.
    static STATE: RefCell<WorkerState> = RefCell::new(WorkerState::default());
}

fn no_sweep() -> ResponseBody {
    ResponseBody::Error {
        message: "No sweep has run in this worker yet.".to_string(),
    }
}

fn no_trace() -> ResponseBody {
    ResponseBody::Error {
        message: "No trace is loaded in this worker yet.".to_string(),
    }
}

/// Do what `body` asks with this worker's state; progress goes to `post`.
fn answer(id: u32, body: RequestBody, post: &mut dyn FnMut(&WorkerResponse)) -> ResponseBody {
    STATE.with(|state| state.borrow_mut().handle(id, body, post))
}

impl WorkerState {
    /// Do what `body` asks; progress goes to `post`, the final answer is returned.
    pub fn handle(
        &mut self,
        id: u32,
        body: RequestBody,
        post: &mut dyn FnMut(&WorkerResponse),
    ) -> ResponseBody {
        let mut progress = |done_bytes, total_bytes, stage: Stage| {
            post(&WorkerResponse {
                id,
                body: ResponseBody::Progress {
                    done_bytes,
                    total_bytes,
                    stage,
                },
            });
        };
        match body {
            RequestBody::Ping => ResponseBody::Pong {
                core_version: crate::CORE_VERSION.to_string(),
                build: crate::protocol::BUILD_ID.to_string(),
            },
            RequestBody::ReadBlobInfo { files, chunk_bytes } => {
                let mut report = |done, total, file: &str| {
                    let file = file.to_string();
                    progress(done, total, Stage::Reading { file })
                };
                match read_blob_info(&files, chunk_bytes, &mut report) {
                    Ok(files) => ResponseBody::BlobInfo { files },
                    Err(e) => ResponseBody::Error {
                        message: e.to_string(),
                    },
                }
            }
            RequestBody::Load {
                files,
                settings,
                lanes_aligned,
                parsed,
            } => self.load(&files, parsed, &settings, lanes_aligned, &mut progress),
            RequestBody::WarmUp => ResponseBody::WarmedUp {
                ms: crate::trace_job::warm_up(),
            },
            // Answered by `parse_ranges_async` (see `handle_message`).
            RequestBody::ParseRanges { .. } => ResponseBody::RangesParsed { complete: false },
            RequestBody::Reattribute {
                settings,
                lanes_aligned,
            } => match self.trace.as_mut() {
                Some(job) => ResponseBody::Analyzed(Box::new(job.reattribute(
                    &settings,
                    lanes_aligned,
                    &mut progress,
                ))),
                None => no_trace(),
            },
            RequestBody::Window { query } => {
                self.with_trace(|job| ResponseBody::Window(job.window(&query)))
            }
            RequestBody::Overview { columns, ranks } => {
                self.with_trace(|job| ResponseBody::Overview {
                    gap_max: job.overview(columns, ranks.as_deref()),
                })
            }
            RequestBody::Export { format } => self.with_trace(|job| ResponseBody::Exported {
                text: job.export(format),
            }),
            RequestBody::ExportPerfetto => self.with_trace(|job| ResponseBody::Exported {
                text: job.perfetto(),
            }),
            RequestBody::Explore { request } => match ExploreJob::run(*request) {
                Ok((job, answer)) => {
                    self.explore = Some(job);
                    ResponseBody::Explored(Box::new(answer))
                }
                Err(e) => ResponseBody::ExploreFailed(e),
            },
            RequestBody::Evaluate { key } => self.with_sweep(|job| {
                job.evaluate(&key)
                    .map(|evaluation| ResponseBody::Evaluated(Box::new(evaluation)))
            }),
            RequestBody::Sensitivity { key } => self.with_sweep(|job| {
                job.sensitivity(&key)
                    .map(|report| ResponseBody::Sensitivity(Box::new(report)))
            }),
            RequestBody::ExportExplore { format, all } => self.with_sweep(|job| {
                job.export(format, all)
                    .map(|text| ResponseBody::Exported { text })
            }),
            RequestBody::BatchSweep { request, batches } => {
                match ExploreJob::batch_sweep(&request, &batches) {
                    Ok(report) => {
                        ResponseBody::BatchSwept(Box::new(BatchPlane::from_report(&report)))
                    }
                    Err(e) => ResponseBody::ExploreFailed(e),
                }
            }
            RequestBody::CompareScenarios { scenarios } => {
                match ExploreJob::scenarios(&scenarios) {
                    Ok(report) => ResponseBody::ScenariosCompared(Box::new(report)),
                    Err(e) => ResponseBody::ExploreFailed(e),
                }
            }
        }
    }

    /// A new trace: the old dataset is dropped first, so two big ones need not coexist.
    fn load(
        &mut self,
        files: &[crate::protocol::NamedBlob],
        parsed: Vec<crate::protocol::ParsedFile>,
        settings: &shardscope_attribution::analysis::AnalyzeSettings,
        lanes_aligned: bool,
        progress: &mut dyn FnMut(u64, u64, Stage),
    ) -> ResponseBody {
        if files.is_empty() {
            return ResponseBody::Error {
                message: "No files to analyse.".to_string(),
            };
        }
        self.trace = None;
        let (job, report) = TraceJob::load(files, parsed, settings, lanes_aligned, progress);
        self.trace = Some(job);
        ResponseBody::Analyzed(Box::new(report))
    }

    /// `answer` of the loaded trace, or the error saying none is loaded.
    fn with_trace(&self, answer: impl FnOnce(&TraceJob) -> ResponseBody) -> ResponseBody {
        self.trace.as_ref().map_or_else(no_trace, answer)
    }

    /// `answer` of the last sweep (its explorer error as `ExploreFailed`), or the error
    /// saying none has run.
    fn with_sweep(
        &self,
        answer: impl FnOnce(
            &ExploreJob,
        )
            -> Result<ResponseBody, shardscope_session::explore_settings::FieldError>,
    ) -> ResponseBody {
        match self.explore.as_ref() {
            Some(job) => answer(job).unwrap_or_else(ResponseBody::ExploreFailed),
            None => no_sweep(),
        }
    }
}

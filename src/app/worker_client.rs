//! The page's handle on the worker: starts it, queues requests until its `Ready`
//! handshake, routes every response to the callback of the request it answers.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker, WorkerOptions};

use crate::protocol::{
    from_js, to_js, RequestBody, ResponseBody, WorkerRequest, WorkerResponse, BUILD_ID, READY_ID,
};

pub use super::worker_module::WORKER_URL;

/// Things that concern the worker as a whole rather than one request.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerEvent {
    /// The handshake arrived; queued requests have been sent.
    Ready,
    /// The worker comes from another build than the page (a cached worker after a deploy):
    /// it was stopped before any request reached it, and every request fails.
    Stale { worker_build: String },
    /// The worker could not start, crashed, or sent something unreadable.
    Failed { message: String },
}

type ResponseHandler = Box<dyn FnMut(ResponseBody)>;

struct Inner {
    worker: Option<Worker>,
    ready: bool,
    /// Set when the worker failed: later requests fail at once with this message.
    failed: Option<String>,
    /// Requests made before the handshake: a worker drops messages posted before its wasm runs.
    /// Requests waiting for the handshake, with the buffers each transfers.
    queue: Vec<(JsValue, js_sys::Array)>,
    next_id: u32,
    handlers: HashMap<u32, ResponseHandler>,
    on_event: Rc<dyn Fn(WorkerEvent)>,
    /// What a shared worker is posted first: the compiled module (`worker_module::prepare`).
    first_message: Option<JsValue>,
    /// Started from the page's `blob:` script (retried from [`WORKER_URL`] if refused).
    from_blob: bool,
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    _on_error: Option<Closure<dyn FnMut(Event)>>,
    _on_message_error: Option<Closure<dyn FnMut(MessageEvent)>>,
}

/// A cheap-to-clone handle on the page's worker.
#[derive(Clone)]
pub struct WorkerClient {
    inner: Rc<RefCell<Inner>>,
}

impl WorkerClient {
    /// Start the worker at `url`. `on_event` hears about the handshake and about failures
    /// (also a failure to start, reported asynchronously).
    pub fn start(url: &str, on_event: impl Fn(WorkerEvent) + 'static) -> WorkerClient {
        let client = Self::new_client(on_event);
        client.spawn(url, false);
        client
    }

    /// Start a page worker that runs the module the page compiled once
    /// ([`super::worker_module::prepare`]): from the page's `blob:` script (the glue and the
    /// loader, fetched once for every worker) as soon as the module is ready, else (a
    /// policy refusing `blob:` workers) from [`WORKER_URL`]; the module is its first message.
    pub fn start_shared(on_event: impl Fn(WorkerEvent) + 'static) -> WorkerClient {
        let client = Self::new_client(on_event);
        let starting = client.clone();
        let prepared = wasm_bindgen_futures::JsFuture::from(super::worker_module::prepare());
        wasm_bindgen_futures::spawn_local(async move {
            // `prepare` never rejects; `{}` (load yourself) covers the impossible case too.
            let message = prepared
                .await
                .unwrap_or_else(|_| js_sys::Object::new().into());
            if starting.inner.borrow().failed.is_some() {
                return; // stopped before it started
            }
            let script = js_sys::Reflect::get(&message, &JsValue::from_str("worker"))
                .ok()
                .and_then(|url| url.as_string());
            starting.inner.borrow_mut().first_message = Some(message);
            match script {
                Some(url) => starting.spawn(&url, true),
                None => starting.spawn(WORKER_URL, false),
            }
        });
        client
    }

    fn new_client(on_event: impl Fn(WorkerEvent) + 'static) -> WorkerClient {
        WorkerClient {
            inner: Rc::new(RefCell::new(Inner {
                worker: None,
                ready: false,
                failed: None,
                queue: Vec::new(),
                next_id: 1,
                handlers: HashMap::new(),
                on_event: Rc::new(on_event),
                first_message: None,
                from_blob: false,
                _on_message: None,
                _on_error: None,
                _on_message_error: None,
            })),
        }
    }

    /// Start the worker's thread from `url` (a `blob:` script when `from_blob`), handing it
    /// the first message the page prepared, if any.
    fn spawn(&self, url: &str, from_blob: bool) {
        let first = self.inner.borrow().first_message.clone();
        let started = match &first {
            // The loader waits for the module when it has this name (public/worker_loader.js).
            Some(_) => {
                let options = WorkerOptions::new();
                options.set_name(SHARED_NAME);
                Worker::new_with_options(url, &options)
            }
            None => Worker::new(url),
        };
        match (started, first) {
            (Ok(worker), first) => {
                if let Some(message) = first {
                    if let Err(err) = worker.post_message(&message) {
                        web_sys::console::warn_1(&err);
                        let _ = worker.post_message(&js_sys::Object::new());
                    }
                }
                self.inner.borrow_mut().from_blob = from_blob;
                self.attach(worker);
            }
            // Refused at once (a policy without `blob:` workers): the loader's own file.
            (Err(_), Some(_)) if from_blob => self.spawn(WORKER_URL, false),
            (Err(err), _) => self.fail(format!(
                "The background worker could not be started: {}",
                crate::web_error::js_error_text(&err)
            )),
        }
    }

    /// A `blob:` worker that failed before its handshake is started again from
    /// [`WORKER_URL`] (a policy refusing `blob:` workers reports it this way); true if so.
    fn retry_from_file(&self) -> bool {
        let old = {
            let mut inner = self.inner.borrow_mut();
            if !inner.from_blob || inner.ready || inner.failed.is_some() {
                return false;
            }
            inner.from_blob = false;
            inner.worker.take()
        };
        if let Some(worker) = old {
            worker.set_onmessage(None);
            worker.set_onerror(None);
            worker.set_onmessageerror(None);
            worker.terminate();
        }
        self.spawn(WORKER_URL, false);
        true
    }

    fn attach(&self, worker: Worker) {
        let weak = Rc::downgrade(&self.inner);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(client) = upgrade(&weak) {
                client.receive(event.data());
            }
        });
        let weak = Rc::downgrade(&self.inner);
        // A script that fails to load fires a plain `Event`; an uncaught exception in the
        // worker fires an `ErrorEvent` with a message.
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            event.prevent_default();
            if let Some(client) = upgrade(&weak) {
                if client.retry_from_file() {
                    return;
                }
                let detail = event
                    .dyn_ref::<ErrorEvent>()
                    .map(ErrorEvent::message)
                    .unwrap_or_default();
                client.fail(if detail.is_empty() {
                    format!(
                        "The background worker failed to load ({WORKER_URL}). \
                         Check that the page is served over http(s) with all its files, then reload."
                    )
                } else {
                    format!("The background worker failed: {detail}. Reload the page to restart it.")
                });
            }
        });
        let weak = Rc::downgrade(&self.inner);
        let on_message_error =
            Closure::<dyn FnMut(MessageEvent)>::new(move |_event: MessageEvent| {
                if let Some(client) = upgrade(&weak) {
                    client.fail(
                        "A message from the background worker could not be received.".to_string(),
                    );
                }
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        worker.set_onmessageerror(Some(on_message_error.as_ref().unchecked_ref()));
        let mut inner = self.inner.borrow_mut();
        inner.worker = Some(worker);
        inner._on_message = Some(on_message);
        inner._on_error = Some(on_error);
        inner._on_message_error = Some(on_message_error);
    }

    /// Stop the worker at once (whatever it is doing) and forget its pending requests:
    /// their callbacks are never called. Used to cancel a load within a frame.
    pub fn terminate(&self) {
        let worker = {
            let mut inner = self.inner.borrow_mut();
            inner.failed = Some("it was stopped".to_string());
            inner.queue.clear();
            inner.handlers.clear();
            inner.worker.take()
        };
        if let Some(worker) = worker {
            worker.set_onmessage(None);
            worker.set_onerror(None);
            worker.set_onmessageerror(None);
            worker.terminate();
        }
    }

    /// Send a request. `on_response` gets its progress messages and then its one final
    /// response (an encoding failure is delivered to it as an `Error` response, too).
    /// Returns the request id.
    pub fn request(
        &self,
        body: RequestBody,
        mut on_response: impl FnMut(ResponseBody) + 'static,
    ) -> u32 {
        let id = {
            let mut inner = self.inner.borrow_mut();
            let id = inner.next_id;
            inner.next_id = inner.next_id.checked_add(1).unwrap_or(1);
            id
        };
        let transfer = body.transferables();
        let message = match to_js(&WorkerRequest { id, body }) {
            Ok(message) => message,
            Err(e) => {
                on_response(ResponseBody::Error {
                    message: e.to_string(),
                });
                return id;
            }
        };
        let failed = self.inner.borrow().failed.clone();
        if let Some(reason) = failed {
            on_response(ResponseBody::Error {
                message: format!("The background worker is not running ({reason})"),
            });
            return id;
        }
        let worker = {
            let mut inner = self.inner.borrow_mut();
            inner.handlers.insert(id, Box::new(on_response));
            if !inner.ready {
                inner.queue.push((message, transfer));
                return id;
            }
            inner.worker.clone()
        };
        if let Some(worker) = worker {
            self.post(&worker, id, &message, &transfer);
        }
        id
    }

    /// Post `message`, moving (not copying) the buffers in `transfer` to the worker.
    fn post(&self, worker: &Worker, id: u32, message: &JsValue, transfer: &js_sys::Array) {
        if let Err(err) = worker.post_message_with_transfer(message, transfer) {
            self.deliver(
                id,
                ResponseBody::Error {
                    message: format!(
                        "Could not send the request to the worker: {}",
                        crate::web_error::js_error_text(&err)
                    ),
                },
            );
        }
    }

    fn receive(&self, data: JsValue) {
        let response: WorkerResponse = match from_js(data) {
            Ok(response) => response,
            Err(message) => {
                self.fail(format!("The worker sent an unreadable message: {message}"));
                return;
            }
        };
        match (response.id, response.body) {
            (READY_ID, ResponseBody::Ready { build, .. }) if build != BUILD_ID => {
                self.refuse_stale(build);
            }
            (READY_ID, ResponseBody::Ready { .. }) => {
                let (worker, queue) = {
                    let mut inner = self.inner.borrow_mut();
                    inner.ready = true;
                    (inner.worker.clone(), std::mem::take(&mut inner.queue))
                };
                self.emit(WorkerEvent::Ready);
                if let Some(worker) = worker {
                    for (message, transfer) in queue {
                        let id = crate::protocol::peek_id(&message);
                        self.post(&worker, id, &message, &transfer);
                    }
                }
            }
            (READY_ID, ResponseBody::Error { message }) => self.fail(message),
            (READY_ID, other) => {
                self.fail(format!("The worker sent an unexpected message: {other:?}"))
            }
            (id, body) => self.deliver(id, body),
        }
    }

    /// Hand a response to its request's callback (removing it after the final one).
    fn deliver(&self, id: u32, body: ResponseBody) {
        let handler = self.inner.borrow_mut().handlers.remove(&id);
        let Some(mut handler) = handler else {
            self.emit(WorkerEvent::Failed {
                message: format!("The worker answered request {id}, which is not pending."),
            });
            return;
        };
        let is_final = body.is_final();
        // The callback runs with no borrow held: it may make new requests.
        handler(body);
        if !is_final {
            self.inner
                .borrow_mut()
                .handlers
                .entry(id)
                .or_insert(handler);
        }
    }

    /// Report a worker-wide failure, and fail every pending and future request with it.
    fn fail(&self, message: String) {
        self.fail_pending(&message);
        self.emit(WorkerEvent::Failed { message });
    }

    /// Stop a worker of another build before it sees a request; fail every request.
    fn refuse_stale(&self, worker_build: String) {
        const STALE: &str = "the page was updated: reload it";
        self.fail_pending(STALE);
        self.terminate();
        self.inner.borrow_mut().failed = Some(STALE.to_string());
        self.emit(WorkerEvent::Stale { worker_build });
    }

    fn fail_pending(&self, message: &str) {
        let pending: Vec<(u32, ResponseHandler)> = {
            let mut inner = self.inner.borrow_mut();
            inner.failed = Some(message.to_string());
            inner.queue.clear();
            inner.handlers.drain().collect()
        };
        for (_, mut handler) in pending {
            handler(ResponseBody::Error {
                message: message.to_string(),
            });
        }
    }

    fn emit(&self, event: WorkerEvent) {
        // Called with no borrow held: the callback may make new requests.
        let on_event = Rc::clone(&self.inner.borrow().on_event);
        on_event(event);
    }
}

/// The name of a worker that waits for the page's module (`public/worker_loader.js`).
const SHARED_NAME: &str = "shardscope-shared";

fn upgrade(weak: &Weak<RefCell<Inner>>) -> Option<WorkerClient> {
    weak.upgrade().map(|inner| WorkerClient { inner })
}

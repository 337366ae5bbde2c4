//! Opening a link's traces from this site (`#…&src=traces/`): the file, or every file a
//! folder's `index.json` lists, fetched same-origin and loaded as dropped files are.
//! Which URLs are taken and what an index says are the core's (`view::source`); here
//! the bytes are fetched, with progress, and given way to any newer load or a Cancel.

use js_sys::{Array, Reflect, Uint8Array};
use leptos::prelude::*;
use shardscope_session::source::{parse_index, Source};
use shardscope_view::trace_status::Stage;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ReadableStreamDefaultReader, RequestInit, RequestMode, Response};

use super::super::state::{AppState, Phase, Problem, Progress, RunSlot};
use super::super::workers::WorkersHandle;
use super::jobs::load_run;
use crate::protocol::NamedBlob;
use crate::web_error::WebError;

/// Progress is shown at most this often while a body streams in (bytes).
const PROGRESS_STEP_BYTES: u64 = 1 << 20;

/// Fetch `url` from this site only (the browser refuses another origin too).
async fn fetch_same_origin(url: &str) -> Result<Response, WebError> {
    let window = web_sys::window().ok_or(WebError::Missing("window"))?;
    let init = RequestInit::new();
    init.set_mode(RequestMode::SameOrigin);
    let response: Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await?
        .dyn_into()
        .map_err(|_| WebError::Unexpected("fetch result"))?;
    if !response.ok() {
        return Err(WebError::Http {
            status: response.status(),
            status_text: response.status_text(),
        });
    }
    Ok(response)
}

async fn fetch_text(url: &str) -> Result<String, WebError> {
    let response = fetch_same_origin(url).await?;
    let text = JsFuture::from(response.text()?).await?;
    text.as_string()
        .ok_or(WebError::Unexpected("non-text body"))
}

/// The body of `url` from this site as a Blob, read chunk by chunk: `on_progress(read,
/// announced)` after each MiB (announced = Content-Length, 0 when unknown); `keep_going()`
/// false stops the read (`Ok(None)`).
pub async fn fetch_blob(
    url: &str,
    on_progress: impl Fn(u64, u64),
    keep_going: impl Fn() -> bool,
) -> Result<Option<Blob>, WebError> {
    let response = fetch_same_origin(url).await?;
    let announced: u64 = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let Some(body) = response.body() else {
        // No body to stream (an empty file): the whole response at once.
        let blob = JsFuture::from(response.blob()?).await?;
        return blob
            .dyn_into::<Blob>()
            .map(Some)
            .map_err(|_| WebError::Unexpected("response body"));
    };
    let reader: ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|_| WebError::Unexpected("body reader"))?;
    let chunks = Array::new();
    let mut read: u64 = 0;
    let mut shown: u64 = 0;
    loop {
        if !keep_going() {
            // Stops the download; the answer does not matter.
            let _ = reader.cancel();
            return Ok(None);
        }
        let step = JsFuture::from(reader.read()).await?;
        let done = Reflect::get(&step, &JsValue::from_str("done"))
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        let chunk: Uint8Array = Reflect::get(&step, &JsValue::from_str("value"))?
            .dyn_into()
            .map_err(|_| WebError::Unexpected("body chunk"))?;
        read += u64::from(chunk.length());
        chunks.push(&chunk);
        if read - shown >= PROGRESS_STEP_BYTES {
            shown = read;
            on_progress(read, announced);
        }
    }
    on_progress(read, announced);
    Ok(Some(Blob::new_with_u8_array_sequence(&chunks)?))
}

/// Fetch the link's traces and load them as run A, with progress and Cancel as for a
/// drop; a failure names the URL and keeps what was shown.
pub fn load_from_source(state: AppState, workers: WorkersHandle, source: Source) {
    let run = state.trace.run;
    let slot = RunSlot::A;
    run.source.set(Some(source.clone()));
    run.problems.set(Vec::new());
    run.phase.set(Phase::Loading);
    run.loading_files.set(true);
    // A newer load (a drop, the example) or Cancel moves the generation on: this one
    // then gives way.
    let generation = workers.with_value(|w| {
        let g = w.load_generation(slot);
        g.set(g.get() + 1);
        g.get()
    });
    let current = move || workers.with_value(|w| w.load_generation(slot).get()) == generation;
    let fail = move |url: String, message: String, hint: &str| {
        if !current() {
            return;
        }
        run.problems.set(vec![Problem {
            file: Some(url.clone()),
            message,
            hint: Some(hint.to_string()),
        }]);
        run.loading_files.set(false);
        run.phase.set(Phase::Error);
    };
    let show = move |stage: Stage, done_bytes: u64, total_bytes: u64| {
        if current() {
            run.progress.set(Progress {
                done_bytes,
                total_bytes,
                stage,
            });
        }
    };
    leptos::task::spawn_local(async move {
        let index =
            match source.index_url() {
                None => Vec::new(),
                Some(url) => {
                    show(Stage::fetching(&url, 0, 1), 0, 0);
                    let listed = match fetch_text(&url).await {
                        Ok(text) => parse_index(&text).map_err(|e| e.to_string()),
                        Err(e) => Err(format!("Could not be fetched ({e})")),
                    };
                    match listed {
                        Ok(names) => names,
                        Err(e) => return fail(
                            url,
                            e,
                            "A folder link reads the folder's index.json (as shardscope report \
                             writes it) from this site: is the folder published beside the page?",
                        ),
                    }
                }
            };
        let files = source.files(&index);
        let count = files.len();
        let mut blobs = Vec::with_capacity(count);
        for (i, (url, name)) in files.iter().enumerate() {
            if !current() {
                return;
            }
            let stage = Stage::fetching(url, i, count);
            show(stage.clone(), 0, 0);
            let progress = |done: u64, total: u64| show(stage.clone(), done, total);
            match fetch_blob(url, progress, current).await {
                Ok(Some(blob)) => blobs.push(NamedBlob {
                    name: name.clone(),
                    blob,
                }),
                Ok(None) => return,
                Err(e) => {
                    return fail(
                        url.clone(),
                        format!("Could not be fetched ({e})"),
                        "The link's traces are read from this site: is the file published \
                         beside the page?",
                    )
                }
            }
        }
        if current() {
            load_run(state, workers, slot, blobs);
        }
    });
}

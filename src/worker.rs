//! The worker side: what `src/bin/worker.rs` runs inside the Web Worker.
//!
//! [`run`] installs a panic hook that reports crashes to the page, starts listening for
//! requests and posts the `Ready` handshake. [`handle_message`] answers one request; it is
//! separate from the worker's global scope so tests can drive it directly.
//!
//! Files are read here, never in the page, with [`BlobReader`]: synchronous
//! `FileReaderSync` reads (only allowed in workers) of slices of a `Blob`, exposed as
//! [`std::io::BufRead`], so a parser that reads from `std::io::Read` streams a file of any
//! size with one slice in memory at a time.

use std::cell::Cell;
use std::io::{self, BufRead, Read};

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, DedicatedWorkerGlobalScope, FileReaderSync, MessageEvent};

use crate::protocol::{
    fnv1a32_update, from_js, peek_id, to_js, BlobSummary, NamedBlob, RequestBody, ResponseBody,
    WorkerRequest, WorkerResponse, DEFAULT_CHUNK_BYTES, FNV1A32_INIT, MAX_CHUNK_BYTES, READY_ID,
};

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
        Err(message) => match to_js(&WorkerResponse {
            id: response.id,
            body: ResponseBody::Error { message },
        }) {
            Ok(value) => value,
            Err(message) => {
                web_sys::console::error_1(&JsValue::from_str(&message));
                return;
            }
        },
    };
    if let Err(err) = scope.post_message(&value) {
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
        Ok(request) => answer(id, request.body, post),
        Err(message) => ResponseBody::Error {
            message: format!("The worker received a request it does not understand: {message}"),
        },
    };
    post(&WorkerResponse { id, body });
    CURRENT_REQUEST.with(|c| c.set(READY_ID));
}

/// Do what `body` asks; progress goes to `post`, the final answer is returned.
fn answer(id: u32, body: RequestBody, post: &mut dyn FnMut(&WorkerResponse)) -> ResponseBody {
    match body {
        RequestBody::Ping => ResponseBody::Pong {
            core_version: crate::CORE_VERSION.to_string(),
        },
        RequestBody::ReadBlobInfo { files, chunk_bytes } => {
            let mut progress = |done_bytes, total_bytes, stage: &str| {
                post(&WorkerResponse {
                    id,
                    body: ResponseBody::Progress {
                        done_bytes,
                        total_bytes,
                        stage: stage.to_string(),
                    },
                });
            };
            match read_blob_info(&files, chunk_bytes, &mut progress) {
                Ok(files) => ResponseBody::BlobInfo { files },
                Err(message) => ResponseBody::Error { message },
            }
        }
        RequestBody::Attribute { files, settings } => {
            let mut progress = |done_bytes, total_bytes, stage: &str| {
                post(&WorkerResponse {
                    id,
                    body: ResponseBody::Progress {
                        done_bytes,
                        total_bytes,
                        stage: stage.to_string(),
                    },
                });
            };
            if files.is_empty() {
                return ResponseBody::Error {
                    message: "No files to analyse.".to_string(),
                };
            }
            ResponseBody::Attributed(crate::trace_job::run(&files, &settings, &mut progress))
        }
    }
}

/// Check a requested slice size: `None` means [`DEFAULT_CHUNK_BYTES`].
pub fn chunk_size(chunk_bytes: Option<u32>) -> Result<u32, String> {
    match chunk_bytes {
        None => Ok(DEFAULT_CHUNK_BYTES),
        Some(n) if (1..=MAX_CHUNK_BYTES).contains(&n) => Ok(n),
        Some(n) => Err(format!(
            "chunk_bytes must be between 1 and {MAX_CHUNK_BYTES}, got {n}"
        )),
    }
}

/// Read every blob through a [`BlobReader`], calling `progress(done, total, stage)` after
/// every slice, and summarize what was read.
pub fn read_blob_info(
    files: &[NamedBlob],
    chunk_bytes: Option<u32>,
    progress: &mut dyn FnMut(u64, u64, &str),
) -> Result<Vec<BlobSummary>, String> {
    let chunk = chunk_size(chunk_bytes)?;
    let total: u64 = files.iter().map(|f| blob_size(&f.blob)).sum();
    let mut done_before = 0;
    let mut summaries = Vec::with_capacity(files.len());
    for file in files {
        let stage = format!("reading {}", file.name);
        let mut reader = BlobReader::new(file.blob.clone(), chunk)
            .map_err(|e| format!("{}: cannot be read: {e}", file.name))?;
        let (mut lines, mut hash, mut chunks_seen) = (0u64, FNV1A32_INIT, 0);
        loop {
            let data = reader
                .fill_buf()
                .map_err(|e| format!("{}: could not be read: {e}", file.name))?;
            if data.is_empty() {
                break;
            }
            lines += data.iter().filter(|&&b| b == b'\n').count() as u64;
            hash = fnv1a32_update(hash, data);
            let n = data.len();
            reader.consume(n);
            if reader.chunks() != chunks_seen {
                chunks_seen = reader.chunks();
                progress(done_before + reader.position(), total, &stage);
            }
        }
        done_before += reader.position();
        summaries.push(BlobSummary {
            name: file.name.clone(),
            size_bytes: reader.size(),
            bytes_read: reader.position(),
            chunks: reader.chunks(),
            lines,
            fnv1a32: hash,
        });
    }
    Ok(summaries)
}

fn blob_size(blob: &Blob) -> u64 {
    // `Blob.size` is a non-negative integer below 2^53.
    blob.size().max(0.0) as u64
}

/// A JavaScript error value as one line of text (`NotReadableError: ...`).
pub fn js_error_text(err: &JsValue) -> String {
    let field = |name: &str| {
        js_sys::Reflect::get(err, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    match (field("name"), field("message")) {
        (Some(name), Some(message)) => format!("{name}: {message}"),
        (None, Some(message)) => message,
        (Some(name), None) => name,
        (None, None) => err.as_string().unwrap_or_else(|| format!("{err:?}")),
    }
}

/// Streams a `Blob` in slices with `FileReaderSync` (workers only), as [`BufRead`].
///
/// Only the current slice is held in memory. A blob that shrinks or becomes unreadable
/// while being read (the file changed on disk) is an `io::Error`, not a silent truncation.
pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    size: u64,
    /// Bytes fetched from the blob so far.
    fetched: u64,
    /// Bytes handed to the caller so far.
    position: u64,
    chunk_bytes: u32,
    chunks: u64,
    buf: Vec<u8>,
    buf_pos: usize,
}

impl BlobReader {
    /// A reader over `blob`, fetching `chunk_bytes` per slice. Fails outside a worker.
    pub fn new(blob: Blob, chunk_bytes: u32) -> Result<Self, String> {
        let reader = FileReaderSync::new().map_err(|e| {
            format!(
                "FileReaderSync is unavailable (files are read in the worker only): {}",
                js_error_text(&e)
            )
        })?;
        let size = blob_size(&blob);
        Ok(BlobReader {
            blob,
            reader,
            size,
            fetched: 0,
            position: 0,
            chunk_bytes: chunk_bytes.max(1),
            chunks: 0,
            buf: Vec::new(),
            buf_pos: 0,
        })
    }

    /// The blob's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes consumed by the caller so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Slices fetched so far.
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    fn fetch_next(&mut self) -> io::Result<()> {
        let end = self
            .fetched
            .saturating_add(u64::from(self.chunk_bytes))
            .min(self.size);
        let slice = self
            .blob
            .slice_with_f64_and_f64(self.fetched as f64, end as f64)
            .map_err(|e| io::Error::other(js_error_text(&e)))?;
        let buffer = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(|e| io::Error::other(js_error_text(&e)))?;
        let bytes = Uint8Array::new(&buffer);
        let len = bytes.length() as usize;
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the file ended after {} of {} bytes (was it changed while being read?)",
                    self.fetched, self.size
                ),
            ));
        }
        self.buf.resize(len, 0);
        bytes.copy_to(&mut self.buf);
        self.buf_pos = 0;
        self.fetched += len as u64;
        self.chunks += 1;
        Ok(())
    }
}

impl BufRead for BlobReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.buf_pos >= self.buf.len() && self.fetched < self.size {
            self.fetch_next()?;
        }
        Ok(self.buf.get(self.buf_pos..).unwrap_or_default())
    }

    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.buf.len().saturating_sub(self.buf_pos));
        self.buf_pos += amount;
        self.position += amount as u64;
    }
}

impl Read for BlobReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

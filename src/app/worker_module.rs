//! The workers' WebAssembly, fetched and compiled once for the whole page.
//!
//! [`prepare`] starts with the page: it picks the worker build (SIMD where the browser
//! validates it: [`shardscope_trace::trace::ranges::share::worker_build`]), fetches its
//! JavaScript glue and the loader (`public/worker_loader.js`) once, joined into one `blob:`
//! script, and compiles its module once with streaming compilation, while it downloads.
//! Every worker the page starts ([`super::worker_client::WorkerClient::start_shared`])
//! runs that script and is handed that module as its first message, so a worker neither
//! fetches nor compiles anything; posting a `WebAssembly.Module` shares its compiled code.
//! Where `blob:` workers are refused, a worker starts from the loader's file and imports
//! the glue from its own `blob:` address (or, refused too, from the glue's file).
//!
//! Where that fails (the SIMD build missing from a debug build, a host serving `.wasm`
//! with the wrong type is still compiled, from its bytes), the scalar build is tried; if
//! that fails too each worker is told to load itself, and reports its own error.

use std::cell::RefCell;

use js_sys::{Object, Promise, Reflect, Uint8Array, WebAssembly};
use shardscope_trace::trace::ranges::share::{worker_build, WorkerBuild};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{Blob, BlobPropertyBag, Response, Url};

use crate::web_error::WebError;

/// Where Trunk puts the worker's loader script, relative to the page.
pub const WORKER_URL: &str = "./worker_loader.js";

/// The smallest module using a SIMD instruction (`i8x16.splat` of `i32.const 0`,
/// `i8x16.popcnt`): it validates only where the browser runs wasm SIMD.
const SIMD_PROBE: [u8; 31] = [
    0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253,
    15, 253, 98, 11,
];

thread_local! {
    /// The preparation under way or done: resolves to the message for a new worker.
    static PREPARED: RefCell<Option<Promise>> = const { RefCell::new(None) };
    /// The build the page chose, once [`prepare`] has run.
    static CHOSEN: RefCell<Option<WorkerBuild>> = const { RefCell::new(None) };
}

/// Whether this browser validates WebAssembly SIMD.
pub fn simd_supported() -> bool {
    WebAssembly::validate(&Uint8Array::from(&SIMD_PROBE[..])).unwrap_or(false)
}

/// The build the page's workers run (chosen on first use).
pub fn chosen_build() -> WorkerBuild {
    CHOSEN.with(|chosen| {
        *chosen.borrow_mut().get_or_insert_with(|| {
            let query = web_sys::window()
                .and_then(|w| w.location().search().ok())
                .unwrap_or_default();
            worker_build(simd_supported(), &query)
        })
    })
}

/// Start fetching and compiling the workers' module (once; later calls return the same
/// promise). It resolves to the first message for each new worker: `{module, glue}`, or
/// `{}` when neither build could be prepared (each worker then loads itself).
pub fn prepare() -> Promise {
    PREPARED.with(|prepared| {
        prepared
            .borrow_mut()
            .get_or_insert_with(|| {
                future_to_promise(async {
                    let first = chosen_build();
                    let mut result = prepare_build(first).await;
                    if result.is_err() && first != WorkerBuild::Scalar {
                        result = prepare_build(WorkerBuild::Scalar).await;
                        if result.is_ok() {
                            CHOSEN.with(|c| *c.borrow_mut() = Some(WorkerBuild::Scalar));
                        }
                    }
                    Ok(result.unwrap_or_else(|message| {
                        web_sys::console::warn_1(&JsValue::from_str(&format!(
                            "Shardscope: the workers load their own code ({message})"
                        )));
                        Object::new().into()
                    }))
                })
            })
            .clone()
    })
}

/// Fetch `build`'s glue, the loader and the module at once, compile the module as it
/// arrives; the glue and the loader become one `blob:` script every worker starts from.
async fn prepare_build(build: WorkerBuild) -> Result<JsValue, WebError> {
    let window = web_sys::window().ok_or(WebError::Missing("window"))?;
    let (glue_url, wasm_url) = build.files();
    let glue = window.fetch_with_str(glue_url);
    let loader = window.fetch_with_str(WORKER_URL);
    let wasm = window.fetch_with_str(wasm_url);
    let module = compile(wasm, wasm_url).await?;
    let glue = response_text(glue, glue_url).await?;
    let loader = response_text(loader, WORKER_URL).await?;
    let glue_only = script_url(&[&glue])?;
    let worker = script_url(&[&glue, ";\n", &loader])?;
    let message = Object::new();
    for (key, value) in [
        ("module", module),
        ("glue", JsValue::from_str(&glue_only)),
        ("source", JsValue::from_str(glue_url)),
        ("worker", JsValue::from_str(&worker)),
        ("build", JsValue::from_str(build.name())),
    ] {
        Reflect::set(&message, &JsValue::from_str(key), &value)?;
    }
    Ok(message.into())
}

async fn response_text(fetched: Promise, url: &str) -> Result<String, WebError> {
    let response = ok_response(JsFuture::from(fetched).await, url)?;
    let text = response.text()?;
    JsFuture::from(text)
        .await
        .map_err(|e| WebError::from(e).at(url))?
        .as_string()
        .ok_or_else(|| WebError::Unexpected("non-text body").at(url))
}

/// A `blob:` address of the script made of `parts`, in order.
fn script_url(parts: &[&str]) -> Result<String, WebError> {
    let array = js_sys::Array::new();
    for part in parts {
        array.push(&JsValue::from_str(part));
    }
    let options = BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = Blob::new_with_str_sequence_and_options(&array, &options)?;
    Ok(Url::create_object_url_with_blob(&blob)?)
}

/// The compiled module of the response `fetched`: streamed where it is served as
/// `application/wasm` (compiled while it downloads), else compiled from its bytes.
async fn compile(fetched: Promise, url: &str) -> Result<JsValue, WebError> {
    let response = ok_response(JsFuture::from(fetched).await, url)?;
    let wasm_type = response
        .headers()
        .get("content-type")
        .ok()
        .flatten()
        .is_some_and(|t| t.starts_with("application/wasm"));
    let compiled = if wasm_type {
        WebAssembly::compile_streaming(&Promise::resolve(&JsValue::from(response)))
    } else {
        let bytes = JsFuture::from(response.array_buffer()?).await?;
        WebAssembly::compile(&bytes)
    };
    JsFuture::from(compiled)
        .await
        .map_err(|e| WebError::from(e).at(url))
}

fn ok_response(fetched: Result<JsValue, JsValue>, url: &str) -> Result<Response, WebError> {
    let response: Response = fetched
        .map_err(|e| WebError::from(e).at(url))?
        .dyn_into()
        .map_err(|_| WebError::Unexpected("fetch result").at(url))?;
    if response.ok() {
        Ok(response)
    } else {
        Err(WebError::Http {
            status: response.status(),
            status_text: String::new(),
        }
        .at(url))
    }
}

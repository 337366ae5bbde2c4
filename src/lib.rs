//! Shardscope's web app: the page (a Leptos client-side app, [`app`]) and its Web Worker
//! ([`worker`]), plus the message protocol they share ([`protocol`]).
//!
//! The page stays responsive because every slow computation runs in the worker, a second
//! wasm binary (`src/bin/worker.rs`) that Trunk builds next to the page. The two talk only
//! through [`protocol::WorkerRequest`] / [`protocol::WorkerResponse`] values, converted to and
//! from JavaScript with serde-wasm-bindgen ([`protocol::to_js`], [`protocol::from_js`]).
//!
//! Everything here is for `wasm32-unknown-unknown` (built by Trunk). A native build of this
//! crate is an empty stub, so that plain `cargo build` / `cargo test` stay cheap.

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod blob;
#[cfg(target_arch = "wasm32")]
pub mod clock;
#[cfg(target_arch = "wasm32")]
pub mod explore_job;
#[cfg(target_arch = "wasm32")]
pub mod protocol;
#[cfg(target_arch = "wasm32")]
pub mod trace_job;
#[cfg(target_arch = "wasm32")]
pub mod web_error;
#[cfg(target_arch = "wasm32")]
pub mod worker;

#[cfg(target_arch = "wasm32")]
pub use protocol::{NamedBlob, RequestBody, ResponseBody, WorkerRequest, WorkerResponse};

/// The version of the computing core this page was built with.
pub const CORE_VERSION: &str = shardscope_attribution::VERSION;

/// What the native stubs of the page and worker binaries say.
pub const NATIVE_STUB_MESSAGE: &str =
    "shardscope-web runs in the browser: build and serve it with \
     `make serve` (Trunk, wasm32). The native command line is `shardscope` (crates/cli).";

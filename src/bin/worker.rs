//! The Web Worker binary. Trunk builds it next to the page (see `index.html`) and writes
//! `worker_loader.js`, which the page starts with `new Worker("./worker_loader.js")`.

#[cfg(target_arch = "wasm32")]
fn main() {
    shardscope_web::worker::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("{}", shardscope_web::NATIVE_STUB_MESSAGE);
    std::process::exit(2);
}

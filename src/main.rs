//! The page's entry point (Trunk builds it from `index.html`).

#[cfg(target_arch = "wasm32")]
fn main() {
    shardscope_web::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("{}", shardscope_web::NATIVE_STUB_MESSAGE);
    std::process::exit(2);
}

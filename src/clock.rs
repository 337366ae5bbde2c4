//! One clock for the page and its workers (`performance.now()` of whatever global runs
//! us), and the wasm memory gauge.

use wasm_bindgen::JsCast;

/// Milliseconds from the global's `performance` clock (`Date.now()` without one).
pub fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Bytes of this module's linear memory (it only grows: after a load, the peak).
pub fn wasm_memory_bytes() -> u64 {
    core::arch::wasm32::memory_size::<0>() as u64 * 65_536
}

//! Canvas helpers: the device pixel ratio (canvases are sized to CSS size × ratio and
//! drawn in backing pixels, so they stay sharp on HiDPI screens), the CSS width a
//! canvas should be drawn at, and finding a canvas.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Backing-store pixels per CSS pixel (1 when unknown).
pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// The CSS width (whole pixels) of `element()`, kept current across window resizes and
/// re-measured after every change of what `retrack` reads (view switches, new data).
/// Every access is a `try_`: the owner may be a panel that is rebuilt while a frame or
/// a resize is still on its way.
pub fn tracked_width(
    element: impl Fn() -> Option<web_sys::Element> + Copy + 'static,
    retrack: impl Fn() + 'static,
) -> RwSignal<f64> {
    let width = RwSignal::new(0.0f64);
    let measure = move || {
        if let Some(el) = element() {
            let w = el.get_bounding_client_rect().width().floor();
            if w > 0.0
                && width
                    .try_get_untracked()
                    .is_some_and(|old| (w - old).abs() > 0.5)
            {
                width.try_set(w);
            }
        }
    };
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());
    Effect::new(move |_| {
        retrack();
        request_animation_frame(measure);
    });
    width
}

/// The canvas with this `data-testid`, if it is on the page.
pub fn canvas_by_testid(testid: &str) -> Option<HtmlCanvasElement> {
    web_sys::window()?
        .document()?
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .ok()??
        .dyn_into()
        .ok()
}

/// A canvas prepared for drawing in CSS pixels.
pub struct HidpiCanvas {
    pub context: CanvasRenderingContext2d,
    /// Drawing size in CSS pixels.
    pub width: f64,
    pub height: f64,
    /// Backing-store pixels per CSS pixel.
    pub scale: f64,
}

/// Size `canvas`'s backing store to its displayed size times `devicePixelRatio`, and scale
/// its 2D context so that drawing code works in CSS pixels and stays sharp on HiDPI screens.
pub fn prepare_hidpi(canvas: &HtmlCanvasElement) -> Result<HidpiCanvas, String> {
    let scale = device_pixel_ratio();
    let rect = canvas.get_bounding_client_rect();
    let (width, height) = (rect.width().max(1.0), rect.height().max(1.0));
    canvas.set_width((width * scale).round() as u32);
    canvas.set_height((height * scale).round() as u32);
    let context = canvas
        .get_context("2d")
        .map_err(|e| crate::js_error::js_error_text(&e))?
        .ok_or("this browser cannot draw on a canvas")?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(|_| "unexpected canvas context type".to_string())?;
    context
        .set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0)
        .map_err(|e| crate::js_error::js_error_text(&e))?;
    Ok(HidpiCanvas {
        context,
        width,
        height,
        scale,
    })
}

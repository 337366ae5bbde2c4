//! Canvas helpers: the device pixel ratio (canvases are sized to CSS size × ratio and
//! drawn in backing pixels, so they stay sharp on HiDPI screens), the CSS width a
//! canvas should be drawn at, and finding a canvas.

use leptos::prelude::*;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::web_error::WebError;

/// Backing-store pixels per CSS pixel (1 when unknown).
pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// The CSS width (whole pixels) of `element()`, kept current by a `ResizeObserver`: the
/// browser reports the size after its own layout, so reading it never forces one (a
/// `getBoundingClientRect` right after new results forced a layout of them, 25–50 ms, into
/// the frame that also paints). `retrack` names what may replace the element (a panel
/// that is rebuilt): the observer moves to the new element. Hidden elements (width 0)
/// keep the last width. Every access is a `try_`: the owner may be gone by the time the
/// browser reports.
pub fn tracked_width(
    element: impl Fn() -> Option<web_sys::Element> + Copy + 'static,
    retrack: impl Fn() + 'static,
) -> RwSignal<f64> {
    let width = RwSignal::new(0.0f64);
    let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let Some(entry) = entries
            .get(0)
            .dyn_into::<web_sys::ResizeObserverEntry>()
            .ok()
        else {
            return;
        };
        // The border box, as `getBoundingClientRect` measured it.
        let w = entry
            .border_box_size()
            .get(0)
            .dyn_into::<web_sys::ResizeObserverSize>()
            .map_or_else(|_| entry.content_rect().width(), |s| s.inline_size())
            .floor();
        if w > 0.0
            && width
                .try_get_untracked()
                .is_some_and(|old| (w - old).abs() > 0.5)
        {
            width.try_set(w);
        }
    });
    let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok();
    let observed = StoredValue::new_local(None::<web_sys::Element>);
    if let Some(observer) = observer.clone() {
        Effect::new(move |_| {
            retrack();
            let now = element();
            if observed.try_with_value(|o| *o == now) != Some(false) {
                return;
            }
            if let Some(old) = observed.try_get_value().flatten() {
                observer.unobserve(&old);
            }
            let options = web_sys::ResizeObserverOptions::new();
            options.set_box(web_sys::ResizeObserverBoxOptions::BorderBox);
            if let Some(el) = &now {
                observer.observe_with_options(el, &options);
            }
            observed.try_set_value(now);
        });
    }
    // Kept until the owner goes; dropping it disconnects the observer.
    StoredValue::new_local(Observing {
        observer,
        _on_resize: on_resize,
    });
    width
}

/// A `ResizeObserver` and its callback, disconnected when dropped.
struct Observing {
    observer: Option<web_sys::ResizeObserver>,
    _on_resize: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for Observing {
    fn drop(&mut self) {
        if let Some(observer) = &self.observer {
            observer.disconnect();
        }
    }
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
pub fn prepare_hidpi(canvas: &HtmlCanvasElement) -> Result<HidpiCanvas, WebError> {
    let scale = device_pixel_ratio();
    let rect = canvas.get_bounding_client_rect();
    let (width, height) = (rect.width().max(1.0), rect.height().max(1.0));
    canvas.set_width((width * scale).round() as u32);
    canvas.set_height((height * scale).round() as u32);
    let context = canvas
        .get_context("2d")?
        .ok_or(WebError::Unsupported(
            "this browser cannot draw on a canvas",
        ))?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(|_| WebError::Unexpected("canvas context type"))?;
    context.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0)?;
    Ok(HidpiCanvas {
        context,
        width,
        height,
        scale,
    })
}

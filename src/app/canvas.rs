//! Drawing helpers shared by the charts: the colour-blind-safe palette and sharp
//! (devicePixelRatio-scaled) canvases.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Okabe–Ito: eight colours distinguishable with the common colour-vision deficiencies.
pub const OKABE_ITO: [&str; 8] = [
    "#E69F00", // orange
    "#56B4E9", // sky blue
    "#009E73", // bluish green
    "#F0E442", // yellow
    "#0072B2", // blue
    "#D55E00", // vermillion
    "#CC79A7", // reddish purple
    "#000000", // black
];

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
    let scale = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0);
    let rect = canvas.get_bounding_client_rect();
    let (width, height) = (rect.width().max(1.0), rect.height().max(1.0));
    canvas.set_width((width * scale).round() as u32);
    canvas.set_height((height * scale).round() as u32);
    let context = canvas
        .get_context("2d")
        .map_err(|e| crate::worker::js_error_text(&e))?
        .ok_or("this browser cannot draw on a canvas")?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(|_| "unexpected canvas context type".to_string())?;
    context
        .set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0)
        .map_err(|e| crate::worker::js_error_text(&e))?;
    Ok(HidpiCanvas {
        context,
        width,
        height,
        scale,
    })
}

//! Downloads made in the page: text (exports) and canvases (PNG at backing resolution).

use gloo_file::ObjectUrl;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, HtmlAnchorElement, HtmlCanvasElement};

use crate::web_error::WebError;

/// Offer `blob` as a download named `name`.
pub fn save_blob(name: &str, blob: &Blob) -> Result<(), WebError> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or(WebError::Missing("document"))?;
    // gloo-file's ObjectUrl revokes the URL when dropped.
    let url = ObjectUrl::from(gloo_file::Blob::from(blob.clone()));
    let anchor: HtmlAnchorElement = document
        .create_element("a")?
        .dyn_into()
        .map_err(|_| WebError::Unexpected("element for a link"))?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    // Drop (revoke) it later: the download reads the URL after this returns.
    let revoke = Closure::once_into_js(move || drop(url));
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    Ok(())
}

/// Offer `text` as a download.
pub fn save_text(name: &str, text: &str, mime: &str) -> Result<(), WebError> {
    let blob = gloo_file::Blob::new_with_options(text, Some(mime));
    save_blob(name, blob.as_ref())
}

/// Offer the canvas's picture (its backing store, so HiDPI pixels) as a PNG.
pub fn save_canvas_png(name: &str, canvas: &HtmlCanvasElement) -> Result<(), WebError> {
    let name = name.to_string();
    let callback = Closure::once_into_js(move |blob: JsValue| {
        if let Ok(blob) = blob.dyn_into::<Blob>() {
            let _ = save_blob(&name, &blob);
        }
    });
    Ok(canvas.to_blob(callback.unchecked_ref())?)
}

/// Save the page's canvas with this `data-testid` as a PNG: the canvas itself, or with
/// `repaint` its last picture painted again in that theme on a canvas of its own. `what`
/// names it in the error when it is not on the page ("the scatter").
pub fn save_page_canvas_png(
    testid: &str,
    what: &str,
    name: &str,
    repaint: Option<shardscope_view::theme::Theme>,
) -> Result<(), WebError> {
    let canvas = super::canvas::canvas_by_testid(testid)
        .ok_or_else(|| WebError::Invalid(format!("{what} is not on the page")))?;
    match repaint.zip(super::paint::last_picture(testid)) {
        Some((theme, scene)) => {
            let copy = canvas
                .owner_document()
                .and_then(|d| d.create_element("canvas").ok())
                .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
                .ok_or(WebError::Unsupported(
                    "this browser cannot draw on a canvas",
                ))?;
            super::paint::paint(&copy, &scene, theme)?;
            save_canvas_png(name, &copy)
        }
        _ => save_canvas_png(name, &canvas),
    }
}

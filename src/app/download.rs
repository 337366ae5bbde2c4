//! Downloads made in the page: text (exports) and canvases (PNG at backing resolution).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, Url};

use crate::js_error::js_error_text;

/// Offer `blob` as a download named `name`.
pub fn save_blob(name: &str, blob: &Blob) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let url = Url::create_object_url_with_blob(blob).map_err(|e| js_error_text(&e))?;
    let anchor: HtmlAnchorElement = document
        .create_element("a")
        .map_err(|e| js_error_text(&e))?
        .dyn_into()
        .map_err(|_| "could not create a link".to_string())?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    // Revoke later: the download reads the URL after this returns.
    let revoke = Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    Ok(())
}

/// Offer `text` as a download.
pub fn save_text(name: &str, text: &str, mime: &str) -> Result<(), String> {
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let blob =
        Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|e| js_error_text(&e))?;
    save_blob(name, &blob)
}

/// Offer the canvas's picture (its backing store, so HiDPI pixels) as a PNG.
pub fn save_canvas_png(name: &str, canvas: &HtmlCanvasElement) -> Result<(), String> {
    let name = name.to_string();
    let callback = Closure::once_into_js(move |blob: JsValue| {
        if let Ok(blob) = blob.dyn_into::<Blob>() {
            let _ = save_blob(&name, &blob);
        }
    });
    canvas
        .to_blob(callback.unchecked_ref())
        .map_err(|e| js_error_text(&e))
}

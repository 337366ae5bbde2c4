//! JavaScript errors as text, for messages meant for people (page and worker alike).

use wasm_bindgen::JsValue;

/// A JavaScript error value as one line of text (`NotReadableError: ...`).
pub fn js_error_text(err: &JsValue) -> String {
    let field = |name: &str| {
        js_sys::Reflect::get(err, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    match (field("name"), field("message")) {
        (Some(name), Some(message)) => format!("{name}: {message}"),
        (None, Some(message)) => message,
        (Some(name), None) => name,
        (None, None) => err.as_string().unwrap_or_else(|| format!("{err:?}")),
    }
}

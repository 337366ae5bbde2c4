//! What can go wrong in the browser, as one type for the web crate's fallible calls (page
//! and worker alike), and JavaScript errors as text. Each is made where it happens and
//! shown once, at the edge, as its `Display` (a sentence a person can act on).

use wasm_bindgen::JsValue;

/// A failure in a browser API, a fetch, a drawing or a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebError {
    /// A browser API threw or rejected: its `name: message`.
    #[error("{0}")]
    Js(String),
    /// Something every page has is missing (`no window`, `no document`).
    #[error("no {0}")]
    Missing(&'static str),
    /// This browser lacks what the page needs here, in words.
    #[error("{0}")]
    Unsupported(&'static str),
    /// An API answered with a value of another kind than it documents.
    #[error("unexpected {0}")]
    Unexpected(&'static str),
    /// The server answered with an error status.
    #[error("HTTP {status}{text}", text = if status_text.is_empty() { String::new() } else { format!(" {status_text}") })]
    Http { status: u16, status_text: String },
    /// A fetch of `url` failed as `error` says.
    #[error("{url}: {error}")]
    Fetch { url: String, error: Box<WebError> },
    /// plotters could not draw on a canvas.
    #[error("drawing failed: {0}")]
    Drawing(String),
    /// A page ↔ worker message could not be encoded or decoded.
    #[error("could not {action} message: {detail}")]
    Message {
        action: &'static str,
        detail: String,
    },
    /// A problem in words that name what it is about: a file that could not be read, a
    /// part of a message that is not usable, an element not on the page.
    #[error("{0}")]
    Invalid(String),
}

impl From<JsValue> for WebError {
    fn from(e: JsValue) -> WebError {
        WebError::Js(js_error_text(&e))
    }
}

impl WebError {
    /// This error, as met fetching `url`.
    pub fn at(self, url: &str) -> WebError {
        WebError::Fetch {
            url: url.to_string(),
            error: Box::new(self),
        }
    }
}

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

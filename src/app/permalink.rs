//! The permalink glue: the address bar's fragment in and out. The encoding itself
//! (keys, versions, what is dropped) is the core's ([`shardscope_session::permalink`]).
//! The fragment never reaches a server.

use shardscope_session::permalink::{dropped_notice, Link};

/// The current page's fragment.
pub fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The link the page was opened with, and a notice about what it could not use.
pub fn opened_with() -> (Link, Option<String>) {
    let (link, dropped) = Link::parse(&current_fragment());
    (link, dropped_notice(&dropped))
}

/// The page URL without its fragment.
pub fn base_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|href| href.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// The full permalink of `link`.
pub fn href(link: &Link) -> String {
    format!("{}{}", base_url(), link.fragment())
}

/// Put `link` in the address bar without adding a history entry.
pub fn replace_current(link: &Link) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Ok(history) = window.history() {
        // Failing to update the address bar loses nothing the page needs.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&href(link)));
    }
}

//! The page's settings in its URL fragment (`#view=explore&...`), so a link reproduces
//! what the user sees. Only the view exists so far; the views' settings join it later.
//! The fragment never reaches a server.

use super::state::View;

/// Settings carried by a permalink.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Permalink {
    pub view: View,
}

impl Permalink {
    /// Read a fragment (with or without its `#`). Unknown keys and bad values are ignored,
    /// so old links keep working.
    pub fn parse(fragment: &str) -> Permalink {
        let mut link = Permalink::default();
        for pair in fragment.trim_start_matches('#').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if key == "view" {
                if let Some(view) = View::parse(value) {
                    link.view = view;
                }
            }
        }
        link
    }

    /// The fragment, with its `#`.
    pub fn fragment(&self) -> String {
        format!("#view={}", self.view.as_str())
    }
}

/// The current page's fragment.
pub fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The page URL without its fragment.
pub fn base_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|href| href.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// Put `link` in the address bar without adding a history entry.
pub fn replace_current(link: &Permalink) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Ok(history) = window.history() {
        let url = format!("{}{}", base_url(), link.fragment());
        // Failing to update the address bar loses nothing the page needs.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

//! Light and dark on the page: the user's choice (kept in `localStorage`), the system's
//! `prefers-color-scheme` (followed live), `data-theme` on the root element (the
//! stylesheet's `color-scheme`), and the header's picker. What each theme looks like is
//! core's `view::theme`; the canvases are painted in [`ThemeState::shown`].

use leptos::prelude::*;
use shardscope_view::theme::{Theme, ThemeChoice, DARK_EXPORTS_SETTING, THEME_SETTING};
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::JsCast;

use super::local_storage;

/// The theme signals.
#[derive(Debug, Clone, Copy)]
pub struct ThemeState {
    pub choice: RwSignal<ThemeChoice>,
    /// Whether the system prefers dark (`prefers-color-scheme: dark`).
    pub system_dark: RwSignal<bool>,
    /// Whether PNG exports are painted in the dark theme when it is shown (else light).
    pub dark_exports: RwSignal<bool>,
}

const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

fn stored(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok().flatten()
}

impl ThemeState {
    /// From what this browser keeps and what its system prefers.
    pub fn new() -> ThemeState {
        let system_dark = web_sys::window()
            .and_then(|w| w.match_media(DARK_QUERY).ok().flatten())
            .is_some_and(|m| m.matches());
        ThemeState {
            choice: RwSignal::new(ThemeChoice::parse(
                stored(THEME_SETTING).as_deref().unwrap_or(""),
            )),
            system_dark: RwSignal::new(system_dark),
            dark_exports: RwSignal::new(stored(DARK_EXPORTS_SETTING).as_deref() == Some("on")),
        }
    }

    /// The theme shown (tracked).
    pub fn shown(&self) -> Theme {
        self.choice.get().resolve(self.system_dark.get())
    }

    /// The theme a PNG export is painted in when it is not the one shown (light, on a
    /// dark page, unless dark PNGs are asked for); `None`: the canvas as it is.
    pub fn repaint_for_export(&self) -> Option<Theme> {
        let shown = untrack(|| self.shown());
        (shown == Theme::Dark && !self.dark_exports.get_untracked()).then_some(Theme::Light)
    }

    /// Keep the choice (without storage it lasts until the page closes).
    pub fn choose(&self, choice: ThemeChoice) {
        self.choice.set(choice);
        if let Some(storage) = local_storage() {
            let _ = match choice {
                ThemeChoice::System => storage.remove_item(THEME_SETTING),
                other => storage.set_item(THEME_SETTING, other.as_str()),
            };
        }
    }

    /// Keep whether PNGs follow a dark page.
    pub fn set_dark_exports(&self, on: bool) {
        self.dark_exports.set(on);
        if let Some(storage) = local_storage() {
            let _ = if on {
                storage.set_item(DARK_EXPORTS_SETTING, "on")
            } else {
                storage.remove_item(DARK_EXPORTS_SETTING)
            };
        }
    }
}

impl Default for ThemeState {
    fn default() -> Self {
        ThemeState::new()
    }
}

/// Follow the system's preference as it changes, and keep `data-theme` on the root
/// element in step with the theme shown.
pub fn apply(theme: ThemeState) {
    if let Some(query) = web_sys::window().and_then(|w| w.match_media(DARK_QUERY).ok().flatten()) {
        let on_change = Closure::<dyn FnMut(web_sys::MediaQueryListEvent)>::new(
            move |e: web_sys::MediaQueryListEvent| {
                theme.system_dark.try_set(e.matches());
            },
        );
        let _ =
            query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        // For the page's lifetime.
        on_change.forget();
    }
    Effect::new(move |_| {
        let shown = theme.shown();
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("data-theme", shown.as_str());
        }
    });
}

/// The header's theme picker, and (when the page is dark) whether PNGs are too.
#[component]
pub fn ThemePicker(theme: ThemeState) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        theme.choose(ThemeChoice::parse(&event_target_value(&ev)));
    };
    let options = ThemeChoice::ALL.map(|choice| {
        view! {
            <option value=choice.as_str() selected=move || theme.choice.get() == choice>
                {choice.label()}
            </option>
        }
    });
    view! {
        <div class="theme-picker">
            <label>
                "Theme "
                <select data-testid="theme-select" on:change=on_change>
                    {options}
                </select>
            </label>
            <Show when=move || theme.shown() == Theme::Dark>
                <label
                    class="dark-exports"
                    title="PNG exports are light unless this is on"
                >
                    <input
                        type="checkbox"
                        data-testid="dark-exports"
                        prop:checked=move || theme.dark_exports.get()
                        on:change=move |ev| theme.set_dark_exports(event_target_checked(&ev))
                    />
                    " dark PNGs"
                </label>
            </Show>
        </div>
    }
}

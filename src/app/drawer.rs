//! Settings that sit in the sidebar on wide screens and in a drawer on narrow ones (below
//! 57rem, 912 px at the default text size: the stylesheet decides). On a phone the
//! results then come right after the inputs and the status instead of below a screen of
//! settings; a button opens the drawer over the page, Esc or Close shuts it and gives the
//! focus back.

use leptos::html;
use leptos::prelude::*;

#[component]
pub fn SettingsDrawer(
    /// The drawer's element id (one per view).
    id: &'static str,
    /// What it holds, as its heading and the button's words.
    label: &'static str,
    children: Children,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let toggle_ref = NodeRef::<html::Button>::new();
    let close_ref = NodeRef::<html::Button>::new();
    let close = move || {
        open.set(false);
        if let Some(button) = toggle_ref.get_untracked() {
            let _ = button.focus();
        }
    };
    // Opening moves the focus into the drawer.
    Effect::new(move |_| {
        if open.get() {
            if let Some(button) = close_ref.get_untracked() {
                let _ = button.focus();
            }
        }
    });
    view! {
        <button
            type="button"
            class="button drawer-toggle"
            data-testid="settings-drawer-toggle"
            node_ref=toggle_ref
            aria-expanded=move || if open.get() { "true" } else { "false" }
            aria-controls=id
            on:click=move |_| open.update(|o| *o = !*o)
        >
            {label}
        </button>
        <div
            class="drawer"
            class:open=move || open.get()
            id=id
            role="group"
            aria-label=label
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Escape" && open.get_untracked() {
                    ev.stop_propagation();
                    close();
                }
            }
        >
            <div class="drawer-head">
                <strong>{label}</strong>
                <button type="button" class="button small" node_ref=close_ref on:click=move |_| close()>
                    "Close"
                </button>
            </div>
            {children()}
        </div>
    }
}

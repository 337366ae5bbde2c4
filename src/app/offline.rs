//! Offline use: register the service worker the build writes (`sw.js`, from
//! scripts/build/offline.py), which precaches this build so the page, its workers and the
//! example work without a network after one visit. When a newer build takes over while
//! this page is open, `update_ready` turns on and the page offers a reload.

use js_sys::Reflect;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The service worker's script, next to index.html (its scope is the page's folder).
const SERVICE_WORKER: &str = "./sw.js";
/// How long after the page's start the service worker is registered.
const REGISTER_AFTER: std::time::Duration = std::time::Duration::from_millis(1500);

/// Register the service worker (where the browser has them: secure contexts only).
pub fn register(update_ready: RwSignal<bool>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator = window.navigator();
    if !Reflect::has(&navigator, &JsValue::from_str("serviceWorker")).unwrap_or(false) {
        return;
    }
    let container = navigator.service_worker();
    // A page that was already controlled sees a change of controller only when a newer
    // build has taken over (the first visit's first controller is this build's).
    let was_controlled = container.controller().is_some();
    let on_change = Closure::<dyn Fn()>::new(move || {
        if was_controlled {
            update_ready.set(true);
        }
    });
    container.set_oncontrollerchange(Some(on_change.as_ref().unchecked_ref()));
    on_change.forget();
    // Once the page has settled: precaching fetches the whole build (a few MB), which
    // should not compete with the page's own start.
    set_timeout(
        move || {
            leptos::task::spawn_local(async move {
                // Without it the page still works, online: nothing to tell the user.
                if let Err(e) = JsFuture::from(container.register(SERVICE_WORKER)).await {
                    web_sys::console::warn_1(&e);
                }
            })
        },
        REGISTER_AFTER,
    );
}

/// The notice that a newer build is installed, with a reload.
#[component]
pub fn UpdateNotice(update_ready: RwSignal<bool>) -> impl IntoView {
    let reload = move |_| {
        if let Some(w) = web_sys::window() {
            // Reloading cannot fail in a way the page could act on.
            let _ = w.location().reload();
        }
    };
    view! {
        <Show when=move || update_ready.get()>
            <div class="notice update-notice" data-testid="update-notice" role="status">
                <span>"A new version of Shardscope is installed: reload to use it."</span>
                <button type="button" class="button small" on:click=reload>
                    "Reload"
                </button>
            </div>
        </Show>
    }
}

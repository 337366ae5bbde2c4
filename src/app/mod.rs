//! The page: a Leptos client-side app. [`App`] lays out the header, the view switch and
//! the views, owns the [`AppState`](state::AppState) and the [`Workers`](workers::Workers).
//!
//! Module map: [`state`] (all signals), [`workers`] and [`worker_client`] (talking to the
//! workers), [`trace`] and [`explore`] (one module per view), [`permalink`] (settings
//! in the URL), [`canvas`] and [`paint`] (HiDPI canvases, core scenes painted with
//! plotters), [`download`] (saving exports).

pub mod canvas;
pub mod download;
pub mod drawer;
pub mod explore;
pub mod offline;
pub mod open_api;
pub mod paint;
pub mod permalink;
pub mod sort_header;
pub mod state;
pub mod tasks;
pub mod theme;
pub mod trace;
pub mod worker_client;
pub mod worker_module;
pub mod workers;

use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::CORE_VERSION;
use explore::ExploreView;
use state::{AppState, View, WorkerStatus};
use trace::TraceView;
use workers::{Workers, WorkersHandle};

/// Mount the app on the page's `<body>`, in a task after the one that started the wasm
/// (which, on a cold page, compiles as it goes: see `tasks`).
pub fn start() {
    console_error_panic_hook::set_once();
    // The workers' module downloads and compiles (off this thread) while the page mounts.
    let _ = worker_module::prepare();
    tasks::next_task(|| {
        leptos::mount::mount_to_body(App);
        // In a task of its own, once the page is up.
        tasks::next_task(paint::warm_up_text);
    });
}

pub use crate::clock::now_ms;

/// This browser's `localStorage` for the page's settings (`None` where it is off).
pub fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Keep the address bar's fragment in step with the settings, at most every 300 ms
/// (browsers throttle history updates; panning changes the window every frame).
fn sync_address_bar(state: AppState) {
    let pending = StoredValue::new(0u64);
    Effect::new(move |_| {
        let link = state.link();
        let generation = pending.get_value() + 1;
        pending.set_value(generation);
        set_timeout(
            move || {
                if pending.get_value() == generation {
                    permalink::replace_current(&link);
                }
            },
            std::time::Duration::from_millis(300),
        );
    });
}

#[component]
pub fn App() -> impl IntoView {
    let (link, notice) = permalink::opened_with();
    let state = AppState::new(&link, notice);
    // Context holds only the theme and the workers; every view gets its state as props.
    provide_context(state.theme);
    let workers: WorkersHandle = StoredValue::new_local(Workers::new(state));
    Workers::warm_up_when_settled(workers);
    provide_context(workers);
    sync_address_bar(state);
    // A link to traces on this site opens with them.
    if let Some(source) = link.trace.src.clone() {
        trace::source::load_from_source(state, workers, source);
    }
    // The trace sets kept in this browser, listed on the empty trace view.
    trace::recent::load_list(state.recent);
    state
        .recent
        .remember
        .set_value(Some(trace::recent::remember));
    // The page that opened or embeds this one may send traces (PING/PONG, then files).
    open_api::listen(state, workers);
    // Offline after one visit (sw.js precaches this build).
    let update_ready = RwSignal::new(false);
    offline::register(update_ready);
    theme::apply(state.theme);

    view! {
        <div class="app">
            <header class="app-header">
                <div class="brand">
                    <h1>"Shardscope"</h1>
                    <p class="tagline">"Collective-memory spikes and parallelism plans, computed in your browser."</p>
                </div>
                <ViewTabs view=state.view />
                <div class="header-end">
                    <theme::ThemePicker theme=state.theme />
                    <WorkerBadge status=state.worker />
                    <ShareLink state />
                </div>
            </header>
            <LinkNotice notice=state.link_notice />
            <offline::UpdateNotice update_ready=update_ready />
            <main>
                <ViewPanel view=View::Trace shown=state.view>
                    <TraceView state />
                </ViewPanel>
                <ViewPanel view=View::Explore shown=state.view>
                    <ExploreView explore=state.explore page_view=state.view trace=state.trace.run.report />
                </ViewPanel>
            </main>
            <footer class="app-footer">
                <span>{format!("core {CORE_VERSION} · build {}", &crate::protocol::BUILD_ID[..8])}</span>
                <span>"Nothing you load leaves this browser."</span>
            </footer>
        </div>
    }
}

/// `permalink` and a button that copies it.
#[component]
fn ShareLink(state: AppState) -> impl IntoView {
    let copied = RwSignal::new(None::<bool>);
    let href = Memo::new(move |_| permalink::href(&state.link()));
    let copy = move |_| {
        let text = href.get_untracked();
        leptos::task::spawn_local(async move {
            let ok = match web_sys::window() {
                Some(w) => JsFuture::from(w.navigator().clipboard().write_text(&text))
                    .await
                    .is_ok(),
                None => false,
            };
            copied.set(Some(ok));
            set_timeout(move || copied.set(None), std::time::Duration::from_secs(2));
        });
    };
    view! {
        <div class="share">
            <a
                class="permalink"
                data-testid="permalink"
                href=move || href.get()
                title="A link to this view and its settings (never the data)"
            >
                "Link"
            </a>
            <button type="button" class="button small" on:click=copy>
                {move || match copied.get() {
                    Some(true) => "Copied",
                    Some(false) => "Copy failed: use the Link",
                    None => "Copy link",
                }}
            </button>
            <span class="visually-hidden" role="status" aria-live="polite">
                {move || (copied.get() == Some(true)).then_some("Link copied to the clipboard")}
            </span>
        </div>
    }
}

/// The one notice about the parts of an opened link that could not be used.
#[component]
fn LinkNotice(notice: RwSignal<Option<String>>) -> impl IntoView {
    view! {
        <Show when=move || notice.with(Option::is_some)>
            <div class="link-notice" data-testid="link-notice" role="status">
                <span>{move || notice.get().unwrap_or_default()}</span>
                <button type="button" class="button small" on:click=move |_| notice.set(None)>
                    "Dismiss"
                </button>
            </div>
        </Show>
    }
}

/// The worker's state, as a small badge in the header.
#[component]
fn WorkerBadge(status: RwSignal<WorkerStatus>) -> impl IntoView {
    let text = move || match status.get() {
        WorkerStatus::Starting => "Starting the worker…".to_string(),
        WorkerStatus::Ready { core_version, .. } => format!("Worker ready · core {core_version}"),
        WorkerStatus::Failed { message } => format!("Worker problem: {message}"),
        WorkerStatus::Stale { .. } => {
            "Shardscope was updated since this page was opened: reload to use the new version."
                .to_string()
        }
    };
    let stale = move || matches!(status.get(), WorkerStatus::Stale { .. });
    view! {
        <p
            class="worker-status"
            data-testid="worker-status"
            role="status"
            aria-live="polite"
            data-state=move || status.get().state_name()
            title=move || match status.get() {
                WorkerStatus::Ready { ping_ms, .. } => format!(
                    "The background worker ({} build) answered its first ping after {ping_ms:.0} ms",
                    worker_module::chosen_build().name(),
                ),
                WorkerStatus::Stale { worker_build } => format!(
                    "This page is build {}; its cached worker is build {}",
                    crate::protocol::BUILD_ID,
                    if worker_build.is_empty() { "unknown" } else { &worker_build },
                ),
                _ => String::new(),
            }
            data-build=crate::protocol::BUILD_ID
            // The workers' WebAssembly build, once they run it: "simd128" or "scalar".
            data-wasm=move || match status.get() {
                WorkerStatus::Ready { .. } => worker_module::chosen_build().name(),
                _ => "",
            }
            data-core-version=move || match status.get() {
                WorkerStatus::Ready { core_version, .. } => core_version,
                _ => String::new(),
            }
        >
            {text}
            <Show when=stale>
                <button
                    type="button"
                    class="button small"
                    data-testid="reload-page"
                    on:click=|_| {
                        if let Some(w) = web_sys::window() {
                            let _ = w.location().reload();
                        }
                    }
                >
                    "Reload"
                </button>
            </Show>
        </p>
    }
}

/// The view switch: a WAI-ARIA tab list. Tab reaches the selected tab; the arrow keys,
/// Home and End move between tabs and select them.
#[component]
fn ViewTabs(view: RwSignal<View>) -> impl IntoView {
    let refs: [NodeRef<html::Button>; 2] = [NodeRef::new(), NodeRef::new()];
    let select_and_focus = move |target: View| {
        view.set(target);
        let index = View::ALL.iter().position(|v| *v == target).unwrap_or(0);
        if let Some(button) = refs.get(index).and_then(|r| r.get()) {
            // Focus can fail only for detached elements; nothing to report then.
            let _ = button.focus();
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        let current = View::ALL
            .iter()
            .position(|v| *v == view.get_untracked())
            .unwrap_or(0);
        let last = View::ALL.len() - 1;
        let next = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => Some(if current == last { 0 } else { current + 1 }),
            "ArrowLeft" | "ArrowUp" => Some(if current == 0 { last } else { current - 1 }),
            "Home" => Some(0),
            "End" => Some(last),
            _ => None,
        };
        if let Some(next) = next {
            ev.prevent_default();
            select_and_focus(View::ALL[next]);
        }
    };
    let tab = move |v: View, node_ref: NodeRef<html::Button>| {
        let selected = move || view.get() == v;
        view! {
            <button
                type="button"
                role="tab"
                class="tab"
                node_ref=node_ref
                id=format!("tab-{}", v.as_str())
                data-testid=format!("view-{}", v.as_str())
                aria-controls=format!("panel-{}", v.as_str())
                aria-selected=move || if selected() { "true" } else { "false" }
                tabindex=move || if selected() { "0" } else { "-1" }
                on:click=move |_| view.set(v)
                on:keydown=on_key
            >
                {v.label()}
            </button>
        }
    };
    view! {
        <nav class="view-tabs" aria-label="Views">
            <div role="tablist" aria-label="Views">
                {tab(View::Trace, refs[0])}
                {tab(View::Explore, refs[1])}
            </div>
        </nav>
    }
}

/// One view's panel; hidden (but kept, with its state) while another view is selected.
///
/// Neither view is built in the page's first task (which starts the wasm), and each is
/// built in parts (`tasks::Later`): building both in that first task took 55–80 ms before
/// the browser had compiled the page's code, a long task on every cold start.
#[component]
fn ViewPanel(view: View, shown: RwSignal<View>, children: ChildrenFn) -> impl IntoView {
    let built = RwSignal::new(false);
    // Once: setting it again would build the view anew, losing what its elements hold.
    let build = move || {
        if built.try_get_untracked() == Some(false) {
            built.set(true);
        }
    };
    // The selected view in the task after the page's first (wasm start, header), the
    // other one a task after that (or as soon as it is selected): both are on the page,
    // hooks and all, long before the workers have started.
    Effect::new(move |_| {
        if shown.get() == view {
            tasks::next_task(build);
        }
    });
    if shown.get_untracked() != view {
        tasks::next_task(move || tasks::next_task(build));
    }
    view! {
        <section
            class="view-panel"
            role="tabpanel"
            id=format!("panel-{}", view.as_str())
            aria-labelledby=format!("tab-{}", view.as_str())
            hidden=move || shown.get() != view
        >
            {move || built.get().then(|| children())}
        </section>
    }
}

//! The page: a Leptos client-side app. [`App`] lays out the header, the view switch and
//! the views, owns the [`AppState`](state::AppState) and starts the worker.
//!
//! Module map: [`state`] (all signals), [`worker_client`] (talking to the worker),
//! [`trace_view`] and [`explore_view`] (one module per view), [`permalink`] (settings in
//! the URL), [`canvas`] (palette and HiDPI canvases for the charts).

pub mod canvas;
pub mod explore_view;
pub mod permalink;
pub mod state;
pub mod trace_view;
pub mod worker_client;

use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;

use crate::protocol::{RequestBody, ResponseBody};
use crate::CORE_VERSION;
use explore_view::ExploreView;
use permalink::Permalink;
use state::{AppState, View, WorkerStatus};
use trace_view::TraceView;
use worker_client::{WorkerClient, WorkerEvent, WORKER_URL};

/// Mount the app on the page's `<body>`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Milliseconds since the page started (high resolution).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// `1234567` → `"1.2 MB"` (decimal units, as file managers show).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Start the worker and ping it; its status lands in `state.worker`.
fn start_worker(state: AppState) -> WorkerClient {
    let worker = state.worker;
    let client = WorkerClient::start(WORKER_URL, move |event| match event {
        WorkerEvent::Ready { core_version } if core_version != CORE_VERSION => {
            worker.set(WorkerStatus::Failed {
                message: format!(
                    "The page (core {CORE_VERSION}) and its worker (core {core_version}) come from \
                     different versions. Reload the page, bypassing the cache (Shift+Reload)."
                ),
            });
        }
        WorkerEvent::Ready { .. } => {}
        WorkerEvent::Failed { message } => worker.set(WorkerStatus::Failed { message }),
    });
    let sent = now_ms();
    client.request(RequestBody::Ping, move |response| match response {
        ResponseBody::Pong { core_version } => {
            if worker.get_untracked() == WorkerStatus::Starting {
                worker.set(WorkerStatus::Ready {
                    core_version,
                    ping_ms: now_ms() - sent,
                });
            }
        }
        ResponseBody::Error { message } => worker.set(WorkerStatus::Failed { message }),
        other => worker.set(WorkerStatus::Failed {
            message: format!("The worker answered a ping with {other:?}"),
        }),
    });
    client
}

#[component]
pub fn App() -> impl IntoView {
    let initial = Permalink::parse(&permalink::current_fragment());
    let state = AppState::new(initial.view);
    provide_context(state);
    let client = StoredValue::new_local(start_worker(state));
    provide_context(client);

    // Keep the address bar's fragment in step with the view.
    Effect::new(move |_| {
        permalink::replace_current(&Permalink {
            view: state.view.get(),
        });
    });

    view! {
        <div class="app">
            <header class="app-header">
                <div class="brand">
                    <h1>"Shardscope"</h1>
                    <p class="tagline">"Collective-memory spikes and parallelism plans, computed in your browser."</p>
                </div>
                <WorkerBadge />
            </header>
            <ViewTabs />
            <main>
                <ViewPanel view=View::Trace>
                    <TraceView />
                </ViewPanel>
                <ViewPanel view=View::Explore>
                    <ExploreView />
                </ViewPanel>
            </main>
            <footer class="app-footer">
                <a
                    data-testid="permalink"
                    href=move || format!("{}{}", permalink::base_url(), Permalink { view: state.view.get() }.fragment())
                >
                    "Link to this view"
                </a>
                <span>{format!("core {CORE_VERSION}")}</span>
                <span>"Nothing you load leaves this browser."</span>
            </footer>
        </div>
    }
}

/// The worker's state, as a small badge in the header.
#[component]
fn WorkerBadge() -> impl IntoView {
    let state = expect_context::<AppState>();
    let status = state.worker;
    let text = move || match status.get() {
        WorkerStatus::Starting => "Starting the worker…".to_string(),
        WorkerStatus::Ready {
            core_version,
            ping_ms,
        } => {
            format!("Worker ready · core {core_version} · started in {ping_ms:.0} ms")
        }
        WorkerStatus::Failed { message } => format!("Worker problem: {message}"),
    };
    view! {
        <p
            class="worker-status"
            data-testid="worker-status"
            role="status"
            aria-live="polite"
            data-state=move || status.get().state_name()
            data-core-version=move || match status.get() {
                WorkerStatus::Ready { core_version, .. } => core_version,
                _ => String::new(),
            }
        >
            {text}
        </p>
    }
}

/// The view switch: a WAI-ARIA tab list. Tab reaches the selected tab; the arrow keys,
/// Home and End move between tabs and select them.
#[component]
fn ViewTabs() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view = state.view;
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
#[component]
fn ViewPanel(view: View, children: Children) -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <section
            class="view-panel"
            role="tabpanel"
            id=format!("panel-{}", view.as_str())
            aria-labelledby=format!("tab-{}", view.as_str())
            hidden=move || state.view.get() != view
        >
            {children()}
        </section>
    }
}

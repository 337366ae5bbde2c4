//! Every configuration of the sweep in one table (fastest first, as
//! `shardscope explore --all`), virtualised: only the rows in view are in the DOM, so
//! 28,800 rows scroll smoothly. A search box takes the CLI's baseline syntax.

use leptos::ev::{Event, KeyboardEvent, MouseEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_view::all_configs::{locate_config, row_window, scroll_top_to_show, VIEW_PX};
use shardscope_view::explore::{all_rows_html, find_config};
use wasm_bindgen::JsCast;

use super::super::state::ExploreState;
use super::super::workers::WorkersHandle;
use super::jobs::evaluate;

#[component]
pub fn AllConfigs(explore: ExploreState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let open = RwSignal::new(false);
    let scroll_top = RwSignal::new(0.0f64);
    let search_error = RwSignal::new(None::<String>);
    let scroller = NodeRef::<html::Div>::new();
    let total = Signal::derive(move || {
        explore
            .answer
            .with(|a| a.as_ref().map_or(0, |a| a.points.len()))
    });
    let select = move |key: String| {
        explore.selected.set(Some(key.clone()));
        evaluate(explore, workers, key);
    };
    let search = move |text: String| {
        if text.trim().is_empty() {
            search_error.set(None);
            return;
        }
        let found = explore.answer.with_untracked(|a| match a {
            Some(a) => locate_config(&a.points, &a.request.sweep, &text).map_err(|e| e.message),
            None => Err("no sweep yet".to_string()),
        });
        match found {
            Ok(found) => {
                search_error.set(None);
                open.set(true);
                select(found.key);
                let top = scroll_top_to_show(found.position);
                request_animation_frame(move || {
                    if let Some(el) = scroller.get_untracked() {
                        el.set_scroll_top(top as i32);
                    }
                    scroll_top.set(top);
                });
            }
            Err(e) => search_error.set(Some(e)),
        }
    };
    view! {
        <section class="card all-configs" aria-labelledby="all-title">
            <div class="scatter-toolbar">
                <h3 id="all-title">"All configurations"</h3>
                <div class="button-row">
                    <label class="visually-hidden" for="config-search">"Find a configuration"</label>
                    <input
                        id="config-search"
                        type="search"
                        data-testid="config-search"
                        placeholder="cp=2,tp=4,pp=1,dp=1,kv=split,…"
                        spellcheck="false"
                        aria-describedby="config-search-error"
                        on:change=move |ev: Event| search(event_target_value(&ev))
                        on:keydown=move |ev: KeyboardEvent| {
                            if ev.key() == "Enter" {
                                search(event_target_value(&ev));
                            }
                        }
                    />
                    <button
                        type="button"
                        class="button small"
                        data-testid="show-all-configs"
                        disabled=move || total.get() == 0
                        on:click=move |_| open.update(|o| *o = !*o)
                    >
                        {move || if open.get() { "Hide".to_string() } else { format!("Show all {}", total.get()) }}
                    </button>
                </div>
            </div>
            <p class="field-error" id="config-search-error" role="alert">{move || search_error.get()}</p>
            <ConfigRows explore=explore open scroll_top scroller total on_select=Callback::new(select) />
        </section>
    }
}

/// The virtualised table body: only the rows [`row_window`] names are in the DOM, between
/// two spacers; a click on a row selects it.
#[component]
fn ConfigRows(
    explore: ExploreState,
    open: RwSignal<bool>,
    scroll_top: RwSignal<f64>,
    scroller: NodeRef<html::Div>,
    total: Signal<usize>,
    on_select: Callback<String>,
) -> impl IntoView {
    let window = move || row_window(scroll_top.get(), total.get());
    let selected_index = move || {
        let key = explore.selected.get()?;
        explore.answer.with(|a| {
            let a = a.as_ref()?;
            find_config(&a.points, &a.request.sweep, &key).ok()
        })
    };
    let html = move || {
        if !open.get() {
            return String::new();
        }
        let w = window();
        let sel = selected_index();
        explore.answer.with(|a| {
            a.as_ref()
                .map(|a| {
                    all_rows_html(
                        &a.points,
                        &a.points.order,
                        w.first,
                        w.count,
                        &a.request.sweep,
                        sel,
                    )
                })
                .unwrap_or_default()
        })
    };
    // Spacer heights go through the CSSOM (`style:`), never a `style` attribute: the
    // page's Content-Security-Policy allows no inline styles.
    let spacer = move |after: bool| {
        let px = if !open.get() {
            0.0
        } else if after {
            window().after_px
        } else {
            window().before_px
        };
        format!("{px}px")
    };
    let on_click = move |ev: MouseEvent| {
        let key = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("tr[data-key]").ok().flatten())
            .and_then(|tr| tr.get_attribute("data-key"));
        if let Some(key) = key {
            on_select.run(key);
        }
    };
    view! {
        <div
            class="table-scroll all-scroll"
            // Focusable, so that the rows scroll by keyboard too.
            tabindex="0"
            role="region"
            aria-label="Every configuration"
            node_ref=scroller
            hidden=move || !open.get()
            style:max-height=format!("{VIEW_PX}px")
            on:scroll=move |_| {
                if let Some(el) = scroller.get_untracked() {
                    scroll_top.set(f64::from(el.scroll_top()));
                }
            }
        >
            <table class="pareto-table all-table">
                <thead>
                    <tr>
                        <th scope="col" class="num">"#"</th>
                        <th scope="col">"Configuration"</th>
                        <th scope="col" class="num">"Latency"</th>
                        <th scope="col" class="num">"PEs"</th>
                        <th scope="col" class="num">"Efficiency"</th>
                        <th scope="col">"Status"</th>
                    </tr>
                </thead>
                <tbody aria-hidden="true">
                    <tr class="spacer">
                        <td colspan="6" style:height=move || spacer(false)></td>
                    </tr>
                </tbody>
                <tbody on:click=on_click inner_html=html></tbody>
                <tbody aria-hidden="true">
                    <tr class="spacer">
                        <td colspan="6" style:height=move || spacer(true)></td>
                    </tr>
                </tbody>
            </table>
        </div>
    }
}

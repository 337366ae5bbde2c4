//! Every configuration of the sweep in one table (fastest first, as
//! `shardscope explore --all`), virtualised: only the rows in view are in the DOM, so
//! 28,800 rows scroll smoothly. A search box takes the CLI's baseline syntax.

use leptos::ev::{Event, KeyboardEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_core::view::explore::{all_rows_html, find_config, short_key};
use wasm_bindgen::JsCast;

use super::super::state::AppState;
use super::super::workers::WorkersHandle;
use super::jobs::evaluate;

/// Row height and visible height of the table body, CSS px (kept in step with the CSS).
const ROW_PX: f64 = 28.0;
const VIEW_PX: f64 = 420.0;
/// Rows rendered above and below the visible ones.
const SPARE_ROWS: usize = 8;

#[component]
pub fn AllConfigs() -> impl IntoView {
    let state = expect_context::<AppState>();
    let workers = expect_context::<WorkersHandle>();
    let explore = state.explore;
    let open = RwSignal::new(false);
    let scroll_top = RwSignal::new(0.0f64);
    let search_error = RwSignal::new(None::<String>);
    let scroller = NodeRef::<html::Div>::new();
    let total = move || {
        explore
            .answer
            .with(|a| a.as_ref().map_or(0, |a| a.points.len()))
    };
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
        let first = ((scroll_top.get() / ROW_PX) as usize).saturating_sub(SPARE_ROWS);
        let count = (VIEW_PX / ROW_PX) as usize + 2 * SPARE_ROWS;
        let sel = selected_index();
        explore.answer.with(|a| {
            a.as_ref()
                .map(|a| {
                    all_rows_html(
                        &a.points,
                        &a.points.order,
                        first,
                        count,
                        &a.request.sweep,
                        sel,
                    )
                })
                .unwrap_or_default()
        })
    };
    // Spacers above and below the rendered rows keep the scrollbar true to every row.
    // Their heights go through the CSSOM (`style:`), never a `style` attribute: the
    // page's Content-Security-Policy allows no inline styles.
    let spacers = move || {
        if !open.get() {
            return (0.0, 0.0);
        }
        let first = ((scroll_top.get() / ROW_PX) as usize).saturating_sub(SPARE_ROWS);
        let count = (VIEW_PX / ROW_PX) as usize + 2 * SPARE_ROWS;
        let after = total().saturating_sub(first + count) as f64 * ROW_PX;
        (first as f64 * ROW_PX, after)
    };
    let select = move |key: String| {
        explore.selected.set(Some(key.clone()));
        evaluate(state, workers, key);
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let key = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("tr[data-key]").ok().flatten())
            .and_then(|tr| tr.get_attribute("data-key"));
        if let Some(key) = key {
            select(key);
        }
    };
    let search = move |text: String| {
        if text.trim().is_empty() {
            search_error.set(None);
            return;
        }
        let found = explore.answer.with_untracked(|a| {
            let a = a.as_ref().ok_or("no sweep yet".to_string())?;
            let i = find_config(&a.points, &a.request.sweep, &text).map_err(|e| e.message)?;
            let key = a
                .points
                .topology(i, &a.request.sweep)
                .map(|t| short_key(&t))
                .ok_or("not found")?;
            Ok::<_, String>((i, key))
        });
        match found {
            Ok((i, key)) => {
                search_error.set(None);
                open.set(true);
                select(key);
                let position = explore
                    .answer
                    .with_untracked(|a| {
                        a.as_ref()
                            .and_then(|a| a.points.order.iter().position(|&x| x as usize == i))
                    })
                    .unwrap_or(0);
                let top = (position as f64 * ROW_PX - VIEW_PX / 2.0).max(0.0);
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
                        disabled=move || total() == 0
                        on:click=move |_| open.update(|o| *o = !*o)
                    >
                        {move || if open.get() { "Hide".to_string() } else { format!("Show all {}", total()) }}
                    </button>
                </div>
            </div>
            <p class="field-error" id="config-search-error" role="alert">{move || search_error.get()}</p>
            <div
                class="table-scroll all-scroll"
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
                            <td colspan="6" style:height=move || format!("{}px", spacers().0)></td>
                        </tr>
                    </tbody>
                    <tbody on:click=on_click inner_html=html></tbody>
                    <tbody aria-hidden="true">
                        <tr class="spacer">
                            <td colspan="6" style:height=move || format!("{}px", spacers().1)></td>
                        </tr>
                    </tbody>
                </table>
            </div>
        </section>
    }
}

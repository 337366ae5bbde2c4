//! The results table (sortable, filterable by classification, synchronised with the
//! timeline's selection) and the per-rank summary.

use leptos::ev::{KeyboardEvent, MouseEvent};
use leptos::html;
use leptos::prelude::*;
use shardscope_attribution::attribution::Classification;
use shardscope_view::clocks_panel::BEYOND_STORMLOG;
use shardscope_view::format::format_bytes;
use shardscope_view::table::{
    count_caption, rows_html, step_selection, table_order, SortKey, TableQuery,
};
use shardscope_view::timeline_scene::class_color;
use wasm_bindgen::JsCast;

use super::super::sort_header::sort_header;
use super::super::state::TraceState;

/// The row index (`data-index`) of the table row an event happened in.
fn row_index(target: Option<web_sys::EventTarget>) -> Option<usize> {
    let element = target?.dyn_into::<web_sys::Element>().ok()?;
    let row = element.closest("tr[data-index]").ok()??;
    row.get_attribute("data-index")?.parse().ok()
}

/// Scroll the table (never the page) so that `row` is in view: selecting a band on the
/// timeline must not move the timeline away.
fn scroll_row_into_view(row: &web_sys::Element) {
    let (Some(row), Ok(Some(scroller))) = (
        row.dyn_ref::<web_sys::HtmlElement>(),
        row.closest(".table-scroll"),
    ) else {
        return;
    };
    let top = f64::from(row.offset_top());
    let height = f64::from(row.offset_height());
    let view_top = f64::from(scroller.scroll_top());
    let view_height = f64::from(scroller.client_height());
    // The sticky header covers the first ~2 rows of the viewport.
    let header = 2.0 * height;
    if top < view_top + header || top + height > view_top + view_height {
        scroller.set_scroll_top((top - view_height / 2.0).max(0.0) as i32);
    }
}

/// The results card: the count and the classification filters above the table.
#[component]
pub fn ResultsTable(trace: TraceState) -> impl IntoView {
    let ranks = Memo::new(move |_| trace.visible_ranks());
    let order = Memo::new(move |_| {
        let (sort, ascending) = trace.sort.get();
        let shown = trace.shown_classes.get();
        let ranks = ranks.get();
        trace
            .run
            .report
            .with(|r| {
                r.as_ref().map(|r| {
                    table_order(
                        &r.rows,
                        &TableQuery {
                            sort,
                            ascending,
                            shown,
                            ranks: &ranks,
                        },
                    )
                })
            })
            .unwrap_or_default()
    });
    let total = Signal::derive(move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().map_or(0, |r| r.rows.len()))
    });
    let aligned = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().is_some_and(|r| r.align_clocks))
    };
    view! {
        <section class="results card" aria-labelledby="results-title">
            <div class="results-head">
                <h3 id="results-title">
                    <span data-testid="attribution-count">{move || order.with(Vec::len)}</span>
                    {move || count_caption(order.with(Vec::len), total.get())}
                    <Show when=aligned>
                        " "
                        <span class="badge beyond" data-testid="aligned-results-mark">{BEYOND_STORMLOG}</span>
                    </Show>
                </h3>
                <fieldset class="chips">
                    <legend class="visually-hidden">"Show classifications"</legend>
                    {Classification::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, &class)| view! { <ClassFilter trace index=i class=class /> })
                        .collect_view()}
                </fieldset>
            </div>
            <Show
                when=move || { total.get() > 0 }
                fallback=|| view! {
                    <p class="hint">
                        "No memory spike in this trace is attributed to collective communication with these settings. "
                        "Try the high preset, or lower min_gap_bytes or min_confidence."
                    </p>
                }
            >
                <IntervalTable trace order=order />
            </Show>
        </section>
    }
}

/// One classification's show/hide chip, with its count.
#[component]
fn ClassFilter(trace: TraceState, index: usize, class: Classification) -> impl IntoView {
    let count = move || {
        trace.run.report.with(|r| {
            r.as_ref().map_or(0, |r| {
                r.rows.iter().filter(|x| x.classification == class).count()
            })
        })
    };
    view! {
        <label class="chip" style=("--chip", class_color(class).css())>
            <input
                type="checkbox"
                data-testid=format!("class-filter-{}", class.short())
                prop:checked=move || trace.shown_classes.get()[index]
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    trace.shown_classes.update(|s| s[index] = on);
                }
            />
            <span class="swatch" aria-hidden="true"></span>
            {class.short()}
            <span class="count">{count}</span>
        </label>
    }
}

/// The table of the rows in `order` (indices into the report's rows): filled in chunks,
/// the selection kept in step with the timeline's, arrow keys to move it.
#[component]
fn IntervalTable(trace: TraceState, order: Memo<Vec<usize>>) -> impl IntoView {
    let table_ref = NodeRef::<html::Table>::new();
    let selected_index = Memo::new(move |_| {
        let (rank, start) = trace.selected.get()?;
        trace.run.report.with(|r| {
            r.as_ref()?
                .rows
                .iter()
                .position(|x| x.rank == rank && x.interval_start_ns == start)
        })
    });
    let with_phases = move || {
        trace
            .run
            .report
            .with(|r| r.as_ref().is_some_and(|r| r.phases))
    };
    fill_in_chunks(trace, table_ref, order, selected_index);
    show_selection(table_ref, order, selected_index);

    let select = move |index: Option<usize>| {
        trace.selected.set(index.and_then(|i| {
            trace.run.report.with_untracked(|r| {
                r.as_ref()?
                    .rows
                    .get(i)
                    .map(|x| (x.rank, x.interval_start_ns))
            })
        }));
    };
    let on_click = move |ev: MouseEvent| select(row_index(ev.target()));
    let on_key = move |ev: KeyboardEvent| {
        let next = order.with_untracked(|order| {
            step_selection(order, selected_index.get_untracked(), &ev.key())
        });
        if let Some(next) = next {
            ev.prevent_default();
            select(next);
        }
    };

    let header = move |key: SortKey, label: &'static str, numeric: bool| {
        sort_header(trace.sort, key, label, numeric, Some(key.as_str()), |k| {
            !matches!(
                k,
                SortKey::Confidence | SortKey::PeakGap | SortKey::Duration
            )
        })
    };

    view! {
                <div class="table-scroll">
                    <table
                        class="results-table"
                        class:with-phases=with_phases
                        role="table"
                        node_ref=table_ref
                        tabindex="0"
                        aria-label="Attributed intervals: arrow keys move the selection"
                        on:click=on_click
                        on:keydown=on_key
                    >
                        <thead role="rowgroup">
                            <tr role="row">
                                {header(SortKey::Rank, "Rank", true)}
                                {header(SortKey::Start, "Start", true)}
                                {header(SortKey::Duration, "Duration", true)}
                                <th scope="col">"Class"</th>
                                {header(SortKey::Confidence, "Confidence", true)}
                                {header(SortKey::PeakGap, "Peak gap", true)}
                                <th scope="col" class="num">"In sync"</th>
                                <th scope="col" class="num">"Markers"</th>
                                <Show when=with_phases>
                                    <th scope="col">"Phase"</th>
                                </Show>
                                <th scope="col">"Reasons"</th>
                            </tr>
                        </thead>
                    </table>
                </div>
    }
}

/// Fill the table with the rows of `order`, in chunks, whenever the order or the report
/// changes.
fn fill_in_chunks(
    trace: TraceState,
    table_ref: NodeRef<html::Table>,
    order: Memo<Vec<usize>>,
    selected_index: Memo<Option<usize>>,
) {
    // Rows go into the table in chunks, each its own `<tbody>`, one per frame after the
    // first, so that thousands of intervals never block the page for long (every row
    // still ends up in the DOM). Chunks out of view skip layout and paint
    // (`content-visibility` per chunk, not per row: the browser then watches a hundred
    // elements instead of thousands on every frame). A newer order abandons an
    // unfinished fill.
    let fill_generation = StoredValue::new(0u64);
    // A render effect: it runs with the rest of the render (as the count does), so the
    // count and the first rows on screen always come from the same report.
    let fill = RenderEffect::new(move |_| {
        let order = order.get();
        // A new report with the same number of rows has an equal order: refill anyway.
        trace.run.report.track();
        // Re-run when the table is (re)created.
        let Some(table) = table_ref.get() else {
            return;
        };
        let generation = fill_generation.get_value() + 1;
        fill_generation.set_value(generation);
        let total = order.len();
        // Rows `from..to` as `<tbody>` chunks of at most CHUNK_ROWS rows.
        let chunks = move |from: usize, to: usize| -> String {
            let selected = selected_index.get_untracked();
            trace
                .run
                .report
                .with_untracked(|r| {
                    r.as_ref().map(|r| {
                        let mut html = String::new();
                        for at in (from..to).step_by(CHUNK_ROWS) {
                            html.push_str(r#"<tbody class="chunk" role="rowgroup">"#);
                            html.push_str(&rows_html(
                                &r.rows,
                                &order[at..(at + CHUNK_ROWS).min(to)],
                                r.trace_start_ns.unwrap_or(0),
                                r.phases,
                                selected,
                            ));
                            html.push_str("</tbody>");
                        }
                        html
                    })
                })
                .unwrap_or_default()
        };
        while let Ok(Some(old)) = table.query_selector("tbody") {
            old.remove();
        }
        let first = total.min(FIRST_ROWS);
        let _ = table.insert_adjacent_html("beforeend", &chunks(0, first));
        let _ = table.set_attribute("data-rows", &first.to_string());
        let chunks = std::rc::Rc::new(chunks);
        fill_rest(
            table.into(),
            first,
            total,
            generation,
            fill_generation,
            chunks,
        );
    });
    // Kept as long as the table (a dropped render effect stops).
    StoredValue::new_local(fill);
}

/// Selection changes restyle two rows in place (no re-render) and scroll to the row.
fn show_selection(
    table_ref: NodeRef<html::Table>,
    order: Memo<Vec<usize>>,
    selected_index: Memo<Option<usize>>,
) {
    Effect::new(move |previous: Option<Option<usize>>| {
        let current = selected_index.get();
        order.track();
        if let Some(table) = table_ref.get() {
            let set = |index: usize, on: bool| {
                if let Ok(Some(row)) = table.query_selector(&format!("tr[data-index=\"{index}\"]"))
                {
                    let _ = row.class_list().toggle_with_force("selected", on);
                    let _ = row.set_attribute("aria-selected", if on { "true" } else { "false" });
                    if on {
                        scroll_row_into_view(&row);
                    }
                }
            };
            if let Some(Some(old)) = previous {
                set(old, false);
            }
            if let Some(new) = current {
                set(new, true);
            }
        }
        current
    });
}

/// Rows rendered at once; the rest follow in chunks of [`CHUNK_ROWS`], a task each.
const FIRST_ROWS: usize = 80;
/// Rows per `<tbody>` chunk (`.chunk`'s estimated height in main.css assumes it).
const CHUNK_ROWS: usize = 80;

/// Append rows `from..total` to `table`, a chunk per task, while `generation`
/// is still the newest fill. `data-rows` on the table counts the rows in the DOM.
fn fill_rest(
    table: web_sys::HtmlElement,
    from: usize,
    total: usize,
    generation: u64,
    current: StoredValue<u64>,
    chunk: std::rc::Rc<dyn Fn(usize, usize) -> String>,
) {
    if from >= total {
        return;
    }
    // A task of its own per chunk (not an animation frame): a frame that paints the
    // timeline as well would make one long task of both.
    set_timeout(
        move || {
            if current.try_get_value() != Some(generation) {
                return;
            }
            let to = (from + CHUNK_ROWS).min(total);
            let _ = table.insert_adjacent_html("beforeend", &chunk(from, to));
            let _ = table.set_attribute("data-rows", &to.to_string());
            fill_rest(table, to, total, generation, current, chunk);
        },
        std::time::Duration::from_millis(4),
    );
}

/// Per rank: samples, markers, peak gap and intervals; a click filters to that rank.
#[component]
pub fn RankSummary(trace: TraceState) -> impl IntoView {
    let ranks = Memo::new(move |_| trace.visible_ranks());
    let rows = move || {
        let shown = ranks.get();
        trace
            .run
            .report
            .with(|r| {
                r.as_ref().map(|r| {
                    r.ranks
                        .iter()
                        .filter(|s| shown.contains(&s.rank))
                        .cloned()
                        .collect::<Vec<_>>()
                })
            })
            .unwrap_or_default()
    };
    view! {
        <details class="rank-summary card" data-testid="rank-summary">
            <summary>"Per-rank summary"</summary>
            <div class="table-scroll short">
                <table>
                    <thead>
                        <tr>
                            <th scope="col" class="num">"Rank"</th>
                            <th scope="col" class="num">"Samples"</th>
                            <th scope="col" class="num">"Markers"</th>
                            <th scope="col" class="num">"Peak gap"</th>
                            <th scope="col" class="num">"Intervals"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <For each=rows key=|s| (s.rank, s.intervals, s.samples) let(s)>
                            <tr data-rank=s.rank.to_string()>
                                <td class="num">
                                    <button
                                        type="button"
                                        class="link"
                                        title="Show only this rank"
                                        on:click=move |_| trace.run.settings.ranks.set(s.rank.to_string())
                                    >
                                        {s.rank}
                                    </button>
                                </td>
                                <td class="num">{s.samples}</td>
                                <td class="num">{s.markers}</td>
                                <td class="num">{s.peak_gap_bytes.map(format_bytes).unwrap_or_else(|| "–".into())}</td>
                                <td class="num">{s.intervals}</td>
                            </tr>
                        </For>
                    </tbody>
                </table>
            </div>
        </details>
    }
}

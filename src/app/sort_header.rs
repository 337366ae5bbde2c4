//! The sortable column header both tables use (results, frontier): a button in a `<th>`
//! with `aria-sort`, a ▲/▼ mark, and the rule that a click on the active column flips
//! the direction while a click on another picks that column in its natural direction.

use leptos::prelude::*;

/// A header cell sorting `sort` by `key`. `ascending_first(key)` is the direction a
/// column starts in; `data_sort` names it for tests and styles.
pub fn sort_header<K>(
    sort: RwSignal<(K, bool)>,
    key: K,
    label: &'static str,
    numeric: bool,
    data_sort: Option<&'static str>,
    ascending_first: fn(K) -> bool,
) -> impl IntoView
where
    K: Copy + PartialEq + Send + Sync + 'static,
{
    let aria = move || match sort.get() {
        (k, true) if k == key => "ascending",
        (k, false) if k == key => "descending",
        _ => "none",
    };
    view! {
        <th scope="col" class:num=numeric aria-sort=aria>
            <button
                type="button"
                class="sort"
                class:active=move || sort.get().0 == key
                data-sort=data_sort
                on:click=move |_| {
                    sort.update(|(k, asc)| {
                        if *k == key {
                            *asc = !*asc;
                        } else {
                            *k = key;
                            *asc = ascending_first(key);
                        }
                    })
                }
            >
                {label}
                <span class="sort-mark" aria-hidden="true">
                    {move || match sort.get() {
                        (k, true) if k == key => "▲",
                        (k, false) if k == key => "▼",
                        _ => "",
                    }}
                </span>
            </button>
        </th>
    }
}

//! Recent traces: the last trace sets loaded in the trace view, their bytes kept in the
//! browser's Cache Storage (`shardscope-recent`, one entry a file under
//! `__recent__/<set>/<n>`, the list as JSON beside them), listed on the empty trace view
//! to reopen with one click, offered again when a link asks for their files. What is
//! kept and for how long is the core's (`view::recent`); here the bytes move. Keeping
//! can be turned off (kept in localStorage); turning it off forgets what was kept.

use js_sys::{Array, Date};
use leptos::prelude::*;
use shardscope_session::permalink::{Link, TraceLink, View as LinkView};
use shardscope_session::recent::{new_id, KeptFile, KeptList, KeptSet};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, Cache, Request, Response};

use super::super::local_storage;
use super::super::state::{AppState, Problem, RecentState, KEEP_SETTING};
use super::super::workers::WorkersHandle;
use super::jobs::load_files;
use super::EXAMPLE_NAME;
use crate::blob::blob_size;
use crate::protocol::NamedBlob;
use crate::web_error::WebError;

const CACHE_NAME: &str = "shardscope-recent";
/// Where the files and the list sit in the cache (relative to the page).
const PREFIX: &str = "__recent__/";
const LIST_KEY: &str = "__recent__/list.json";
/// The page's Cache Storage, where this browser keeps one.
fn caches() -> Result<web_sys::CacheStorage, WebError> {
    web_sys::window()
        .ok_or(WebError::Missing("window"))?
        .caches()
        .map_err(|_| WebError::Unsupported("this browser keeps no Cache Storage here"))
}

async fn open_cache() -> Result<Cache, WebError> {
    JsFuture::from(caches()?.open(CACHE_NAME))
        .await?
        .dyn_into::<Cache>()
        .map_err(|_| WebError::Unexpected("cache"))
}

fn file_key(set: &str, index: usize) -> String {
    format!("{PREFIX}{set}/{index}")
}

async fn put(cache: &Cache, key: &str, response: &Response) -> Result<(), WebError> {
    JsFuture::from(cache.put_with_str(key, response)).await?;
    Ok(())
}

async fn delete(cache: &Cache, key: &str) {
    // A missing entry is already what is wanted.
    let _ = JsFuture::from(cache.delete_with_str(key)).await;
}

async fn delete_set(cache: &Cache, set: &str, files: usize) {
    for i in 0..files {
        delete(cache, &file_key(set, i)).await;
    }
}

async fn write_list(cache: &Cache, list: &KeptList) -> Result<(), WebError> {
    let response = Response::new_with_opt_str(Some(&list.to_json()))?;
    put(cache, LIST_KEY, &response).await
}

/// Every file entry in the cache: its set id and its URL (to find ones the list lost).
async fn stored_entries(cache: &Cache) -> Vec<(String, String)> {
    let Ok(keys) = JsFuture::from(cache.keys()).await else {
        return Vec::new();
    };
    Array::from(&keys)
        .iter()
        .filter_map(|r| r.dyn_into::<Request>().ok())
        .filter_map(|r| {
            let url = r.url();
            let rest = &url[url.find(PREFIX)? + PREFIX.len()..];
            let (id, _) = rest.split_once('/')?;
            Some((id.to_string(), url.clone()))
        })
        .collect()
}

/// Whether the recent cache exists (without creating it, as opening it would).
async fn cache_exists() -> Result<bool, WebError> {
    Ok(JsFuture::from(caches()?.has(CACHE_NAME))
        .await?
        .as_bool()
        .unwrap_or(false))
}

/// Read the kept list (at start); entries it does not name are deleted.
pub fn load_list(recent: RecentState) {
    leptos::task::spawn_local(async move {
        match cache_exists().await {
            Err(_) => return,
            Ok(false) => {
                recent.available.set(true);
                return;
            }
            Ok(true) => recent.available.set(true),
        }
        let Ok(cache) = open_cache().await else {
            return;
        };
        let text = match JsFuture::from(cache.match_with_str(LIST_KEY)).await {
            Ok(hit) => match hit.dyn_into::<Response>() {
                Ok(response) => match response.text() {
                    Ok(p) => JsFuture::from(p).await.ok().and_then(|t| t.as_string()),
                    Err(_) => None,
                },
                Err(_) => None,
            },
            Err(_) => None,
        };
        let list = KeptList::parse(&text.unwrap_or_default());
        let entries = stored_entries(&cache).await;
        let ids: Vec<String> = entries.iter().map(|(id, _)| id.clone()).collect();
        let orphans = list.orphans(&ids);
        for (id, url) in &entries {
            if orphans.contains(&id) {
                delete(&cache, url).await;
            }
        }
        recent.list.set(list);
    });
}

/// The trace view's settings, to reopen a set with.
fn settings_fragment(state: AppState) -> String {
    let t = state.trace.run.settings;
    Link {
        view: LinkView::Trace,
        trace: TraceLink {
            preset: t.preset.get_untracked(),
            overrides: t.overrides.get_untracked().into_iter().collect(),
            phases: t.phases.get_untracked(),
            align_clocks: t.align_clocks.get_untracked(),
            align_lanes: t.align_lanes.get_untracked(),
            session: t.session.get_untracked(),
            ranks: t.ranks.get_untracked(),
            ..TraceLink::default()
        },
        ..Link::default()
    }
    .fragment()
}

/// Keep `files` (just loaded as run A) first in the list, unless keeping is off or they
/// are the bundled example. A failure (the browser's quota) is shown beside the results,
/// which stay.
pub fn remember(state: AppState, files: Vec<NamedBlob>) {
    let recent = state.recent;
    if !recent.keep.get_untracked() || !recent.available.get_untracked() {
        return;
    }
    if files.len() == 1 && files[0].name == EXAMPLE_NAME {
        return;
    }
    let kept_files: Vec<KeptFile> = files
        .iter()
        .map(|f| KeptFile {
            name: f.name.clone(),
            bytes: blob_size(&f.blob),
        })
        .collect();
    let now = Date::now();
    let fragment = settings_fragment(state);
    let mut list = recent.list.get_untracked();
    // Reopened (or loaded again): the kept copy moves up with today's date and settings.
    if list.refresh(&kept_files, now, &fragment) {
        recent.list.set(list.clone());
        leptos::task::spawn_local(async move {
            if let Ok(cache) = open_cache().await {
                let _ = write_list(&cache, &list).await;
            }
        });
        return;
    }
    let set = KeptSet {
        id: new_id(now, &list),
        files: kept_files,
        saved_ms: now,
        fragment,
    };
    let before = list.clone();
    let gone = match list.keep(set.clone()) {
        Ok(gone) => gone,
        Err(e) => {
            recent.problem.set(Some(format!("This trace set is {e}.")));
            return;
        }
    };
    leptos::task::spawn_local(async move {
        let result = async {
            let cache = open_cache().await?;
            for (i, file) in files.iter().enumerate() {
                let response = Response::new_with_opt_blob(Some(&file.blob))?;
                if let Err(e) = put(&cache, &file_key(&set.id, i), &response).await {
                    delete_set(&cache, &set.id, i + 1).await;
                    return Err(e);
                }
            }
            write_list(&cache, &list).await?;
            for id in &gone {
                if let Some(old) = before.sets.iter().find(|s| &s.id == id) {
                    delete_set(&cache, id, old.files.len()).await;
                }
            }
            Ok::<(), WebError>(())
        }
        .await;
        match result {
            Ok(()) => {
                recent.list.set(list);
                recent.problem.set(None);
            }
            Err(e) => {
                let message = format!(
                    "Could not keep this trace set in the browser ({e}). It is still shown; \
                     delete kept traces or turn keeping off."
                );
                recent.problem.set(Some(message.clone()));
                state.trace.run.problems.update(|p| {
                    p.push(Problem {
                        file: None,
                        message,
                        hint: Some(
                            "The browser's storage for this site is full or not allowed."
                                .to_string(),
                        ),
                    })
                });
            }
        }
    });
}

/// Reopen a kept set with the settings it was shown with.
pub fn reopen(state: AppState, workers: WorkersHandle, set: KeptSet) {
    let recent = state.recent;
    leptos::task::spawn_local(async move {
        let result = async {
            let cache = open_cache().await?;
            let mut files = Vec::with_capacity(set.files.len());
            for (i, file) in set.files.iter().enumerate() {
                let hit = JsFuture::from(cache.match_with_str(&file_key(&set.id, i))).await?;
                let response: Response = hit
                    .dyn_into()
                    .map_err(|_| WebError::Invalid(format!("{} is no longer kept", file.name)))?;
                let blob: Blob = JsFuture::from(response.blob()?)
                    .await?
                    .dyn_into()
                    .map_err(|_| WebError::Unexpected("entry"))?;
                files.push(NamedBlob {
                    name: file.name.clone(),
                    blob,
                });
            }
            Ok::<Vec<NamedBlob>, WebError>(files)
        }
        .await;
        match result {
            Ok(files) => {
                let (link, _) = Link::parse(&set.fragment);
                state.trace.run.settings.apply(&link.trace);
                load_files(state, workers, files);
            }
            Err(e) => recent.problem.set(Some(format!(
                "{} could not be reopened ({e}): delete it and load the files again.",
                set.name()
            ))),
        }
    });
}

/// Forget a kept set and its files.
pub fn forget(state: AppState, id: String) {
    let recent = state.recent;
    let mut list = recent.list.get_untracked();
    let Some(set) = list.sets.iter().find(|s| s.id == id).cloned() else {
        return;
    };
    list.remove(&id);
    recent.list.set(list.clone());
    leptos::task::spawn_local(async move {
        if let Ok(cache) = open_cache().await {
            let _ = write_list(&cache, &list).await;
            delete_set(&cache, &set.id, set.files.len()).await;
        }
    });
}

/// Turn keeping on or off (off forgets every kept set).
pub fn set_keep(state: AppState, keep: bool) {
    let recent = state.recent;
    recent.keep.set(keep);
    if let Some(storage) = local_storage() {
        // Without storage the choice lasts until the page closes.
        let _ = if keep {
            storage.remove_item(KEEP_SETTING)
        } else {
            storage.set_item(KEEP_SETTING, "off")
        };
    }
    if !keep {
        recent.list.set(KeptList::default());
        recent.problem.set(None);
        leptos::task::spawn_local(async move {
            if let Some(caches) = web_sys::window().and_then(|w| w.caches().ok()) {
                let _ = JsFuture::from(caches.delete(CACHE_NAME)).await;
            }
        });
    }
}

/// The minutes the viewer's clock is ahead of UTC.
fn utc_offset_minutes() -> i64 {
    -(Date::new_0().get_timezone_offset() as i64)
}

/// The list on the empty trace view: each kept set (reopen, delete) and the setting.
#[component]
pub fn RecentTraces(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let recent = state.recent;
    let row = move |set: KeptSet| {
        let name = set.name();
        let name_attr = name.clone();
        let summary = set.summary(utc_offset_minutes());
        let id = set.id.clone();
        let label = format!("Reopen {name}");
        let delete_label = format!("Delete the kept copy of {name}");
        view! {
            <li class="recent-trace" data-testid="recent-trace" data-name=name_attr>
                <button
                    type="button"
                    class="recent-open"
                    aria-label=label
                    on:click=move |_| reopen(state, workers, set.clone())
                >
                    <span class="recent-name">{name}</span>
                    <span class="muted small">{summary}</span>
                </button>
                <button
                    type="button"
                    class="button small"
                    data-testid="recent-delete"
                    aria-label=delete_label
                    on:click=move |_| forget(state, id.clone())
                >
                    "Delete"
                </button>
            </li>
        }
    };
    view! {
        <Show when=move || recent.available.get()>
            <section class="recent-traces" data-testid="recent-traces" aria-labelledby="recent-title">
                <h3 id="recent-title">"Recent traces"</h3>
                <Show
                    when=move || !recent.list.with(|l| l.sets.is_empty())
                    fallback=move || {
                        view! {
                            <p class="muted small">
                                {move || {
                                    if recent.keep.get() {
                                        "Traces you load are kept here, in this browser only, to reopen with one click."
                                    } else {
                                        "Keeping is off: nothing you load is kept."
                                    }
                                }}
                            </p>
                        }
                    }
                >
                    <ul class="recent-list">
                        {move || recent.list.get().sets.into_iter().map(row).collect_view()}
                    </ul>
                </Show>
                {move || recent.problem.get().map(|p| view! { <p class="recent-problem" role="alert">{p}</p> })}
                <label class="check">
                    <input
                        type="checkbox"
                        data-testid="recent-keep-toggle"
                        prop:checked=move || recent.keep.get()
                        on:change=move |ev| set_keep(state, event_target_checked(&ev))
                    />
                    " Keep the last 5 trace sets (up to 1 GiB) in this browser; off forgets them"
                </label>
            </section>
        </Show>
    }
}

/// The offer to reopen a kept copy of the files a link asks for.
#[component]
pub fn RecentOffer(state: AppState, #[prop(into)] wanted: Signal<Vec<String>>) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let kept = move || wanted.with(|w| state.recent.list.with(|l| l.matching(w).cloned()));
    move || {
        kept().map(|set| {
            let date = set.summary(utc_offset_minutes());
            view! {
                <p class="recent-offer">
                    <button
                        type="button"
                        class="button small"
                        data-testid="recent-offer"
                        on:click=move |_| reopen(state, workers, set.clone())
                    >
                        "Reopen the kept copy"
                    </button>
                    <span class="muted small">{format!(" ({date})")}</span>
                </p>
            }
        })
    }
}

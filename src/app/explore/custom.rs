//! The custom model and machine editors: every field of the chosen preset as an input
//! (a changed field is an edit; links carry the edits), import and export as the CLI's
//! `--model-json` / `--machine-json` files, reset to the preset.

use leptos::ev::Event;
use leptos::html;
use leptos::prelude::*;
use shardscope_session::custom::{Field, Subject};
use wasm_bindgen::JsCast;

use super::super::download::save_text;
use super::super::state::ExploreState;
use super::super::workers::WorkersHandle;
use super::jobs::schedule_sweep;

#[component]
pub fn CustomEditor(
    explore: ExploreState,
    kind: Subject,
    pending: StoredValue<u64>,
    open: RwSignal<bool>,
) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let settings = explore.settings;
    let file_ref = NodeRef::<html::Input>::new();
    let message = RwSignal::new(None::<String>);
    let count = move || settings.with(|s| s.edits(kind).len());
    let reset = move |_| {
        settings.update(|s| s.clear_edits(kind));
        message.set(None);
        schedule_sweep(explore, workers, pending);
    };
    let export = move |_| {
        let result = settings.with_untracked(|s| s.export(kind));
        match result {
            Ok((file, text)) => {
                if let Err(e) = save_text(&file, &text, "application/json") {
                    message.set(Some(format!("The download failed: {e}")));
                }
            }
            Err(e) => message.set(Some(format!("Fix the fields first: {e}"))),
        }
    };
    let on_file = move |ev: Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        let file = gloo_file::File::from(file);
        let name = file.name();
        leptos::task::spawn_local(async move {
            let text = match gloo_file::futures::read_as_text(&file).await {
                Ok(text) => text,
                Err(e) => {
                    message.set(Some(format!("{name} could not be read: {e}")));
                    return;
                }
            };
            let mut next = settings.get_untracked();
            match next.import(kind, &text) {
                Ok(()) => {
                    settings.set(next);
                    message.set(Some(format!("Imported {name}.")));
                    schedule_sweep(explore, workers, pending);
                }
                Err(e) => message.set(Some(format!("{name}: {e}"))),
            }
        });
    };
    let prefix = kind.name();
    view! {
        <details
            class="custom-editor"
            data-testid=format!("{prefix}-editor")
            prop:open=move || open.get()
            on:toggle=move |ev| {
                let is_open = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
                    .is_some_and(|d| d.open());
                if is_open != open.get_untracked() {
                    open.set(is_open);
                }
            }
        >
            <summary>
                {move || match count() {
                    0 => format!("Custom {prefix}…"),
                    n => format!("Custom {prefix}: {n} field{} changed", if n == 1 { "" } else { "s" }),
                }}
            </summary>
            <div class="button-row">
                <button type="button" class="button small" on:click=move |_| {
                    if let Some(i) = file_ref.get() {
                        i.click();
                    }
                }>
                    "Import JSON…"
                </button>
                <button type="button" class="button small" data-testid=format!("{prefix}-export") on:click=export>
                    "Export JSON"
                </button>
                <button type="button" class="button small" disabled=move || count() == 0 on:click=reset>
                    "Reset to preset"
                </button>
            </div>
            <input
                type="file"
                accept=".json,application/json"
                class="visually-hidden"
                tabindex="-1"
                aria-label=format!("Import a {prefix} JSON file")
                data-testid=format!("{prefix}-import")
                node_ref=file_ref
                on:change=on_file
            />
            <p class="small muted" role="status">{move || message.get()}</p>
            // Built only while open (two editors' fields were a fifth of the view, and
            // every settings change listed them again).
            <Show when=move || open.get()>
                <CustomFields explore=explore kind pending />
            </Show>
        </details>
    }
}

/// One input per field of the preset, the changed ones marked, each with its error.
#[component]
fn CustomFields(explore: ExploreState, kind: Subject, pending: StoredValue<u64>) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let settings = explore.settings;
    let prefix = kind.name();
    let fields = move || settings.with(|s| kind.fields(s.preset(kind), s.edits(kind)));
    let set_field = move |path: String, text: String, preset: String| {
        settings.update(|s| s.set_edit(kind, &path, &text, &preset));
        schedule_sweep(explore, workers, pending);
    };
    view! {
        <div class="custom-fields">
            // Keyed by field and value: typing in one field keeps the others (and
            // the focus) in place; a reset re-renders the fields it changes.
            <For
                each=fields
                key=|f: &Field| (f.path.clone(), f.value.clone())
                children=move |Field { path, value, preset }| {
                    let id = format!("{prefix}-field-{}", path.replace('.', "-"));
                    let error_field = StoredValue::new(format!("{prefix}.{path}"));
                    let err = move || {
                        explore.errors.with(|e| {
                            error_field.with_value(|f| {
                                e.iter().find(|e| e.field == *f).map(|e| e.message.clone())
                            })
                        })
                    };
                    let changed = value != preset;
                    let (p, pr) = (path.clone(), preset.clone());
                    view! {
                        <div class="custom-field" class:changed=changed class:invalid=move || err().is_some()>
                            <label for=id.clone() title=format!("preset: {preset}")><code>{path.clone()}</code></label>
                            <input
                                id=id.clone()
                                type="text"
                                spellcheck="false"
                                data-testid=id
                                prop:value=value
                                on:change=move |ev| set_field(p.clone(), event_target_value(&ev), pr.clone())
                            />
                            <p class="field-error" role="alert">{err}</p>
                        </div>
                    }
                }
            />
        </div>
    }
}

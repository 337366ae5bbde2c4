//! Opening traces from another page, as Perfetto's `postMessage` API does: the page that
//! opened this one (`window.opener`) or embeds it (`window.parent`) posts `'PING'` until
//! it gets `'PONG'`, then posts
//! `{shardscope: {files: [{name, buffer}], settings?: {preset: 'high', …}}}`: the files
//! load as a drop does, the settings (a link's keys) apply first. Messages from any
//! other window are ignored. What the settings mean is the core's
//! ([`Link::from_pairs`]); here the message is taken apart.

use js_sys::{Array, ArrayBuffer, Object, Reflect};
use leptos::prelude::*;
use shardscope_session::permalink::{dropped_notice, Link};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, MessageEvent, Window};

use super::state::{AppState, Phase, Problem, View};
use super::trace::jobs::load_files;
use super::workers::WorkersHandle;
use crate::protocol::NamedBlob;
use crate::web_error::WebError;

/// The handshake's question and answer.
const PING: &str = "PING";
const PONG: &str = "PONG";

/// Whether `event` comes from the window that opened this page or the one embedding it.
fn from_opener_or_parent(window: &Window, event: &MessageEvent) -> bool {
    let Some(source) = event.source() else {
        return false;
    };
    let source: JsValue = source.into();
    let opener = window.opener().unwrap_or(JsValue::NULL);
    let parent: JsValue = window
        .parent()
        .ok()
        .flatten()
        .map_or(JsValue::NULL, Into::into);
    let own: &JsValue = window.as_ref();
    let is =
        |other: &JsValue| !other.is_null() && !other.is_undefined() && Object::is(&source, other);
    is(&opener) || (is(&parent) && !Object::is(&parent, own))
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A file's bytes as sent: an ArrayBuffer, a typed array or a Blob (a File too).
fn blob_of(buffer: &JsValue) -> Option<Blob> {
    if let Some(blob) = buffer.dyn_ref::<Blob>() {
        return Some(blob.clone());
    }
    if buffer.is_instance_of::<ArrayBuffer>() || ArrayBuffer::is_view(buffer) {
        return Blob::new_with_buffer_source_sequence(&Array::of1(buffer)).ok();
    }
    None
}

/// The files of a message, or what is wrong with it.
fn files_of(message: &JsValue) -> Result<Vec<NamedBlob>, WebError> {
    let files = get(message, "files");
    if !Array::is_array(&files) {
        return Err(WebError::Invalid(
            "`files` is not a list of {name, buffer}".to_string(),
        ));
    }
    let mut out = Vec::new();
    for (i, file) in Array::from(&files).iter().enumerate() {
        let name = get(&file, "name").as_string().unwrap_or_default();
        if name.trim().is_empty() {
            return Err(WebError::Invalid(format!("file {} has no `name`", i + 1)));
        }
        let blob = blob_of(&get(&file, "buffer")).ok_or_else(|| {
            WebError::Invalid(format!(
                "`{name}`: `buffer` is not an ArrayBuffer, typed array or Blob"
            ))
        })?;
        out.push(NamedBlob { name, blob });
    }
    if out.is_empty() {
        return Err(WebError::Invalid("`files` is empty".to_string()));
    }
    Ok(out)
}

/// The settings of a message as a link's key/value pairs (numbers and booleans as text).
fn settings_of(message: &JsValue) -> Vec<(String, String)> {
    let settings = get(message, "settings");
    if !settings.is_object() {
        return Vec::new();
    }
    Object::entries(settings.unchecked_ref())
        .iter()
        .filter_map(|pair| {
            let pair = Array::from(&pair);
            let key = pair.get(0).as_string()?;
            let value = pair.get(1);
            let text = match (value.as_string(), value.as_f64(), value.as_bool()) {
                (Some(s), _, _) => s,
                (_, Some(n), _) => n.to_string(),
                (_, _, Some(b)) => if b { "1" } else { "0" }.to_string(),
                _ => return None,
            };
            Some((key, text))
        })
        .collect()
}

/// Apply a message's settings and load its files in the trace view.
fn open(state: AppState, workers: WorkersHandle, message: &JsValue) {
    state.view.set(View::Trace);
    let files = match files_of(message) {
        Ok(files) => files,
        Err(e) => {
            let run = state.trace.run;
            run.problems.set(vec![Problem {
                file: None,
                message: format!("The page that opened Shardscope sent files it cannot read: {e}."),
                hint: Some(
                    "Send {shardscope: {files: [{name, buffer}]}} after the PING/PONG handshake \
                     (see the README)."
                        .to_string(),
                ),
            }]);
            run.phase.set(Phase::Error);
            return;
        }
    };
    let (link, dropped) = Link::from_pairs(&settings_of(message));
    state.trace.run.settings.apply(&link.trace);
    state.link_notice.set(dropped_notice(&dropped));
    load_files(state, workers, files);
}

/// Listen for the opener's or parent's messages for as long as the page lives.
pub fn listen(state: AppState, workers: WorkersHandle) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let own = window.clone();
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        if !from_opener_or_parent(&own, &event) {
            return;
        }
        let data = event.data();
        if data.as_string().as_deref() == Some(PING) {
            if let Some(source) = event.source() {
                // Another site's window is no `instanceof Window` here (another realm),
                // but it takes postMessage. The answer carries nothing: any origin may
                // read it.
                let source: Window = source.unchecked_into();
                let _ = source.post_message(&JsValue::from_str(PONG), "*");
            }
            return;
        }
        let message = get(&data, "shardscope");
        if message.is_object() {
            open(state, workers, &message);
        }
    });
    // Listening cannot fail on a window; the handler lives as long as the page.
    let _ = window.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref());
    handler.forget();
}

//! Getting traces into the page: files and folders dropped anywhere on the window
//! (folders walked recursively through `webkitGetAsEntry`), the file and folder
//! pickers, and the bundled example. Files are handed to the worker as handles; the
//! page never reads their bytes.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DataTransfer, File, FileList, FileSystemDirectoryEntry, FileSystemEntry,
    FileSystemFileEntry,
};

use super::EXAMPLE_URL;
use crate::protocol::NamedBlob;
use crate::web_error::WebError;

/// A file's path inside a picked folder (`webkitRelativePath`), else its name.
fn relative_name(file: &File) -> String {
    js_sys::Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// Every file of a `FileList` (a picker's or a drop's), named by relative path.
pub fn named_blobs(list: Option<FileList>) -> Vec<NamedBlob> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|file| NamedBlob {
            name: relative_name(&file),
            blob: file.into(),
        })
        .collect()
}

/// What a drop holds: entries to walk when a folder is among them, else plain files.
/// Must be called during the drop event: its `DataTransfer` is emptied afterwards.
pub enum Dropped {
    Files(Vec<NamedBlob>),
    Entries(Vec<FileSystemEntry>),
}

pub fn take_drop(dt: &DataTransfer) -> Dropped {
    let items = dt.items();
    let entries: Vec<FileSystemEntry> = (0..items.length())
        .filter_map(|i| items.get(i))
        .filter(|item| item.kind() == "file")
        .filter_map(|item| item.webkit_get_as_entry().ok().flatten())
        .collect();
    if entries.iter().any(FileSystemEntry::is_directory) {
        Dropped::Entries(entries)
    } else {
        Dropped::Files(named_blobs(dt.files()))
    }
}

/// A promise of a callback API's single answer.
fn callback_promise(
    start: impl FnOnce(&js_sys::Function, &js_sys::Function) -> Result<(), JsValue>,
) -> Promise {
    let mut start = Some(start);
    Promise::new(&mut |resolve, reject| {
        if let Some(start) = start.take() {
            if let Err(e) = start(&resolve, &reject) {
                // Rejecting can only fail if the promise is gone; nothing to do then.
                let _ = reject.call1(&JsValue::NULL, &e);
            }
        }
    })
}

async fn entry_file(entry: &FileSystemFileEntry) -> Result<File, WebError> {
    let promise = callback_promise(|ok, err| {
        entry.file_with_callback_and_callback(ok, err);
        Ok(())
    });
    JsFuture::from(promise)
        .await?
        .dyn_into::<File>()
        .map_err(|_| WebError::Unexpected("entry: not a file"))
}

async fn directory_children(
    dir: &FileSystemDirectoryEntry,
) -> Result<Vec<FileSystemEntry>, WebError> {
    let reader = dir.create_reader();
    let mut all = Vec::new();
    // readEntries answers in batches (100 in Chromium) until an empty one.
    loop {
        let promise =
            callback_promise(|ok, err| reader.read_entries_with_callback_and_callback(ok, err));
        let batch: Array = JsFuture::from(promise)
            .await?
            .dyn_into()
            .map_err(|_| WebError::Unexpected("directory listing"))?;
        if batch.length() == 0 {
            break;
        }
        all.extend(
            batch
                .iter()
                .filter_map(|v| v.dyn_into::<FileSystemEntry>().ok()),
        );
    }
    Ok(all)
}

/// Walk dropped entries recursively; files are named by their path inside the drop
/// (`run/rank0_events.json`). Unreadable entries are listed in the second result.
pub async fn walk_entries(entries: Vec<FileSystemEntry>) -> (Vec<NamedBlob>, Vec<String>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut stack: Vec<FileSystemEntry> = entries;
    while let Some(entry) = stack.pop() {
        let path = entry.full_path().trim_start_matches('/').to_string();
        if entry.is_directory() {
            match directory_children(entry.unchecked_ref()).await {
                Ok(children) => stack.extend(children),
                Err(e) => problems.push(format!("{path}: the folder could not be read ({e})")),
            }
        } else if entry.is_file() {
            match entry_file(entry.unchecked_ref()).await {
                Ok(file) => files.push(NamedBlob {
                    name: path,
                    blob: file.into(),
                }),
                Err(e) => problems.push(format!("{path}: the file could not be read ({e})")),
            }
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    (files, problems)
}

/// Fetch the bundled example as a blob.
pub async fn fetch_example() -> Result<Blob, WebError> {
    super::source::fetch_blob(EXAMPLE_URL, |_, _| {}, || true)
        .await
        .map_err(|e| e.at(EXAMPLE_URL))?
        .ok_or_else(|| WebError::Invalid(format!("{EXAMPLE_URL} was not read")))
}

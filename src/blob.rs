//! Reading dropped files in the worker: [`BlobReader`] streams a `Blob` through
//! synchronous `FileReaderSync` slices (workers only) as `std::io::BufRead`, so the
//! core's streaming parser reads a file of any size with one slice in memory;
//! [`BlobFs`] presents dropped files (and folders, by relative path) as a [`TraceFs`].

use std::cell::{Cell, RefCell};
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use js_sys::Uint8Array;
use shardscope_trace::json::Tape;
use shardscope_trace::trace::fs::{children_among, kind_among, resolve_dropped};
use shardscope_trace::trace::ranges::{parse_range, Preparsed, RangeTask};
use shardscope_trace::trace::split::Layout;
use shardscope_trace::trace::{PathKind, TraceFs};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, FileReaderSync};

use crate::protocol::{
    fnv1a32_update, BlobSummary, NamedBlob, ParsedFile, DEFAULT_CHUNK_BYTES, FNV1A32_INIT,
    MAX_CHUNK_BYTES, TRACE_CHUNK_BYTES,
};
use crate::web_error::{js_error_text, WebError};

/// `Blob.size` as an integer (a non-negative integer below 2^53).
pub fn blob_size(blob: &Blob) -> u64 {
    blob.size().max(0.0) as u64
}

/// Check a requested slice size: `None` means [`DEFAULT_CHUNK_BYTES`].
pub fn chunk_size(chunk_bytes: Option<u32>) -> Result<u32, WebError> {
    match chunk_bytes {
        None => Ok(DEFAULT_CHUNK_BYTES),
        Some(n) if (1..=MAX_CHUNK_BYTES).contains(&n) => Ok(n),
        Some(n) => Err(WebError::Invalid(format!(
            "chunk_bytes must be between 1 and {MAX_CHUNK_BYTES}, got {n}"
        ))),
    }
}

/// Read every blob through a [`BlobReader`], calling `progress(done, total, stage)` after
/// every slice, and summarize what was read.
pub fn read_blob_info(
    files: &[NamedBlob],
    chunk_bytes: Option<u32>,
    progress: &mut dyn FnMut(u64, u64, &str),
) -> Result<Vec<BlobSummary>, WebError> {
    let chunk = chunk_size(chunk_bytes)?;
    let total: u64 = files.iter().map(|f| blob_size(&f.blob)).sum();
    let mut done_before = 0;
    let mut summaries = Vec::with_capacity(files.len());
    for file in files {
        let stage = file.name.as_str();
        let mut reader = BlobReader::new(file.blob.clone(), chunk)
            .map_err(|e| WebError::Invalid(format!("{}: cannot be read: {e}", file.name)))?;
        let (mut lines, mut hash, mut chunks_seen) = (0u64, FNV1A32_INIT, 0);
        loop {
            let data = reader
                .fill_buf()
                .map_err(|e| WebError::Invalid(format!("{}: could not be read: {e}", file.name)))?;
            if data.is_empty() {
                break;
            }
            lines += data.iter().filter(|&&b| b == b'\n').count() as u64;
            hash = fnv1a32_update(hash, data);
            let n = data.len();
            reader.consume(n);
            if reader.chunks() != chunks_seen {
                chunks_seen = reader.chunks();
                progress(done_before + reader.position(), total, stage);
            }
        }
        done_before += reader.position();
        summaries.push(BlobSummary {
            name: file.name.clone(),
            size_bytes: reader.size(),
            bytes_read: reader.position(),
            chunks: reader.chunks(),
            lines,
            fnv1a32: hash,
        });
    }
    Ok(summaries)
}

/// Streams a `Blob` in slices with `FileReaderSync` (workers only), as [`BufRead`].
///
/// Only the current slice is held in memory. A blob that shrinks or becomes unreadable
/// while being read (the file changed on disk) is an `io::Error`, not a silent truncation.
pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    size: u64,
    /// Bytes fetched from the blob so far.
    fetched: u64,
    /// Bytes handed to the caller so far.
    position: u64,
    chunk_bytes: u32,
    chunks: u64,
    buf: Vec<u8>,
    buf_pos: usize,
    /// Milliseconds spent fetching slices, added to a counter shared with the caller.
    read_ms: Option<Rc<Cell<f64>>>,
}

impl BlobReader {
    /// A reader over `blob`, fetching `chunk_bytes` per slice. Fails outside a worker.
    pub fn new(blob: Blob, chunk_bytes: u32) -> Result<Self, WebError> {
        let reader = FileReaderSync::new().map_err(|e| {
            WebError::Invalid(format!(
                "FileReaderSync is unavailable (files are read in the worker only): {}",
                js_error_text(&e)
            ))
        })?;
        let size = blob_size(&blob);
        Ok(BlobReader {
            blob,
            reader,
            size,
            fetched: 0,
            position: 0,
            chunk_bytes: chunk_bytes.max(1),
            chunks: 0,
            buf: Vec::new(),
            buf_pos: 0,
            read_ms: None,
        })
    }

    /// Adds the time spent fetching slices to `counter` (milliseconds).
    pub fn timed(mut self, counter: Rc<Cell<f64>>) -> Self {
        self.read_ms = Some(counter);
        self
    }

    /// The blob's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes consumed by the caller so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Slices fetched so far.
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    fn fetch_next(&mut self) -> io::Result<()> {
        let started = self.read_ms.as_ref().map(|_| crate::clock::now_ms());
        let end = self
            .fetched
            .saturating_add(u64::from(self.chunk_bytes))
            .min(self.size);
        let len = read_slice(&self.reader, &self.blob, self.fetched, end, &mut self.buf)?;
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the file ended after {} of {} bytes (was it changed while being read?)",
                    self.fetched, self.size
                ),
            ));
        }
        self.buf_pos = 0;
        self.fetched += len as u64;
        self.chunks += 1;
        if let (Some(counter), Some(started)) = (&self.read_ms, started) {
            counter.set(counter.get() + crate::clock::now_ms() - started);
        }
        Ok(())
    }
}

/// Reads bytes `start..end` of `blob` into `buf` (replacing its contents) with one
/// `FileReaderSync` call; returns how many arrived (fewer: the file changed).
pub fn read_slice(
    reader: &FileReaderSync,
    blob: &Blob,
    start: u64,
    end: u64,
    buf: &mut Vec<u8>,
) -> io::Result<usize> {
    let slice = blob
        .slice_with_f64_and_f64(start as f64, end as f64)
        .map_err(|e| io::Error::other(js_error_text(&e)))?;
    let buffer = reader
        .read_as_array_buffer(&slice)
        .map_err(|e| io::Error::other(js_error_text(&e)))?;
    let bytes = Uint8Array::new(&buffer);
    let len = bytes.length() as usize;
    buf.resize(len, 0);
    bytes.copy_to(buf);
    Ok(len)
}

impl BufRead for BlobReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.buf_pos >= self.buf.len() && self.fetched < self.size {
            self.fetch_next()?;
        }
        Ok(self.buf.get(self.buf_pos..).unwrap_or_default())
    }

    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.buf.len().saturating_sub(self.buf_pos));
        self.buf_pos += amount;
        self.position += amount as u64;
    }
}

impl Read for BlobReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Reads and parses `tasks` (ranges of the JSON array file `file`), handing each
/// packed range to `send`. Reads are asynchronous and one range ahead, so the browser
/// reads the next range while this one parses. `false` at the first range that cannot
/// be read or parsed: the loading worker then parses the file itself.
pub async fn parse_ranges(
    file: &NamedBlob,
    tasks: &[RangeTask],
    default_session_id: &str,
    send: &mut dyn FnMut(usize, Vec<u8>),
) -> bool {
    let read = |task: &RangeTask| {
        let (offset, len) = task.read_span();
        let slice = file
            .blob
            .slice_with_f64_and_f64(offset as f64, (offset + len) as f64)
            .ok()?;
        Some((JsFuture::from(slice.array_buffer()), len))
    };
    let mut tape = Tape::default();
    let mut buf = Vec::new();
    let mut next = tasks.first().and_then(read);
    for (i, task) in tasks.iter().enumerate() {
        if !fill(next.take(), &mut buf).await {
            return false;
        }
        next = tasks.get(i + 1).and_then(read);
        let mut parsed = parse_range(task, Layout::JsonArray, &buf, default_session_id, &mut tape);
        // Once more with more slack: the range's last record may be longer than it.
        if let (Err(_), Some(wide)) = (&parsed, task.widened()) {
            if !fill(read(&wide), &mut buf).await {
                return false;
            }
            parsed = parse_range(
                &wide,
                Layout::JsonArray,
                &buf,
                default_session_id,
                &mut tape,
            );
        }
        match parsed {
            Ok(range) => send(task.index, range.to_bytes()),
            Err(_) => return false,
        }
    }
    true
}

/// Waits for a read started by `parse_ranges` and copies its bytes into `buf`: `false`
/// when it could not start or failed, or the file changed while being read.
async fn fill(read: Option<(JsFuture, u64)>, buf: &mut Vec<u8>) -> bool {
    let Some((pending, len)) = read else {
        return false;
    };
    let Ok(buffer) = pending.await else {
        return false;
    };
    let bytes = Uint8Array::new(&buffer);
    if u64::from(bytes.length()) != len {
        return false;
    }
    buf.resize(len as usize, 0);
    bytes.copy_to(buf);
    true
}

/// Dropped files (names may be relative paths inside a dropped folder) as a file tree.
pub struct BlobFs {
    files: Vec<(String, Blob)>,
    /// Files parsed in ranges by other workers, taken once by the loader.
    parsed: RefCell<Vec<ParsedFile>>,
    /// Milliseconds spent in `FileReaderSync` reads by every reader opened so far.
    pub read_ms: Rc<Cell<f64>>,
}

impl BlobFs {
    pub fn new(files: &[NamedBlob]) -> BlobFs {
        BlobFs::with_parsed(files, Vec::new())
    }

    /// Dropped files, some of them already parsed in ranges ([`ParsedFile`]).
    pub fn with_parsed(files: &[NamedBlob], parsed: Vec<ParsedFile>) -> BlobFs {
        BlobFs {
            parsed: RefCell::new(parsed),
            files: files
                .iter()
                .map(|f| (f.name.trim_matches('/').to_string(), f.blob.clone()))
                .collect(),
            read_ms: Rc::default(),
        }
    }

    /// The paths to load: each top-level file, and each top-level folder once.
    pub fn roots(&self) -> Vec<String> {
        let mut roots: Vec<String> = Vec::new();
        for (name, _) in &self.files {
            let root = name.split('/').next().unwrap_or(name).to_string();
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        roots
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(n, _)| n.as_str())
    }

    fn blob(&self, path: &str) -> Option<&Blob> {
        let path = path.trim_matches('/');
        self.files.iter().find(|(n, _)| n == path).map(|(_, b)| b)
    }
}

impl TraceFs for BlobFs {
    fn kind(&self, path: &str) -> PathKind {
        kind_among(self.names(), path.trim_start_matches('/'))
    }

    fn list_dir(&self, path: &str) -> Vec<String> {
        children_among(self.names(), path.trim_start_matches('/'))
    }

    fn open(&self, path: &str) -> std::io::Result<Box<dyn Read + '_>> {
        let blob = self.blob(path).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such dropped file")
        })?;
        let reader = BlobReader::new(blob.clone(), TRACE_CHUNK_BYTES)
            .map_err(std::io::Error::other)?
            .timed(self.read_ms.clone());
        Ok(Box::new(reader))
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.blob(path).map(blob_size)
    }

    fn resolve(&self, path: &str) -> String {
        resolve_dropped(path)
    }

    fn take_parsed(&self, path: &str) -> Option<Preparsed<'_>> {
        let path = path.trim_matches('/');
        let mut parsed = self.parsed.borrow_mut();
        let i = parsed
            .iter()
            .position(|p| p.name.trim_matches('/') == path)?;
        let file = parsed.swap_remove(i);
        Some(Preparsed {
            default_session_id: file.default_session_id,
            file_bytes: file.file_bytes,
            range_bytes: file.range_bytes,
            // One range at a time into wasm memory.
            ranges: Box::new(file.ranges.into_iter().map(|v| {
                v.dyn_into::<Uint8Array>()
                    .map(|a| a.to_vec())
                    .unwrap_or_default()
            })),
        })
    }
}

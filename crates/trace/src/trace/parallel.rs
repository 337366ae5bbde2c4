//! The parallel fast paths for big files on native builds (the CLI, `make bench`).
//!
//! - [`parse_ranges_parallel`], for files that can be read at any offset (not gzip):
//!   the calling thread reads [`ranges`](super::ranges) of the file and merges the
//!   parsed ranges in order; worker threads (one per core by default) parse them. No byte is scanned twice.
//! - [`parse_parallel`], for streams (gzip): the calling thread reads, UTF-8-checks
//!   and cuts the input into batches of whole records (a top-level JSON array's
//!   elements, or JSONL lines), and the worker threads parse the batches.
//!
//! Either way results are merged in input order, so the events are exactly those of
//! the sequential parse. The fast paths only handle the clean case: at the first sign
//! of anything else (a syntax or validation error, an element that is not an object,
//! a line that does not parse) they give up and the caller re-reads the file
//! sequentially, which reports errors exactly as stormlog would.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

use super::event::{Event, Sources, Strings};
use super::parse::{LoadCtx, SessionGrouper};
use super::phase_boundary::PhaseBoundary;
use super::ranges::RangeTask;
use super::reader::Input;
use super::record::{convert_record, InternCache, RecordExtras, RecordSink};
use super::split::merge_events;
pub use super::split::{GaveUp, Layout, MIN_PARALLEL_BYTES};
use crate::json::{skip_ws, Node, Tape};

/// Bytes of records per batch.
const BATCH_BYTES: usize = 1 << 20;

/// The parse threads `threads` asks for: that many, or with 0 one per core the machine
/// has (at least one; the calling thread reads and merges beside them).
pub fn parse_workers(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(2, usize::from),
        n => n,
    }
}

/// A batch of whole records: their bytes, back to back, and where each ends.
struct Batch {
    index: usize,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// What a worker made of a batch, with string and phase ids local to the batch.
struct Converted {
    index: usize,
    events: Vec<(Event, RecordExtras)>,
    strings: Strings,
    sources: Sources,
    phases: Vec<PhaseBoundary>,
}

/// Parses `input` in parallel into `grouper`. `Err(GaveUp)` means: start again
/// sequentially from a fresh reader; `grouper` may then hold a partial result and
/// must be discarded (strings and phases added to `ctx` are harmless leftovers).
pub fn parse_parallel(
    input: &mut Input<'_>,
    workers: usize,
    layout: Layout,
    ctx: &mut LoadCtx,
    default_session_id: &str,
    grouper: &mut SessionGrouper,
) -> Result<(), GaveUp> {
    let workers = workers.max(1);
    let (batch_tx, batch_rx) = sync_channel::<Batch>(workers * 2);
    let batch_rx = Mutex::new(batch_rx);
    let (result_tx, result_rx) = sync_channel::<Option<Converted>>(workers * 4);
    let mut merger = Merger {
        ctx,
        grouper,
        pending: Vec::new(),
        next: 0,
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let rx = &batch_rx;
            let tx = result_tx.clone();
            scope.spawn(move || worker(rx, tx, default_session_id));
        }
        drop(result_tx);
        let split = split_batches(input, layout, batch_tx, &result_rx, &mut merger);
        // The batch sender is gone: workers finish their batches and stop.
        for result in result_rx.iter() {
            merger.take(result)?;
        }
        split
    })?;
    if input.take_utf8_error().is_some() || !merger.pending.is_empty() {
        return Err(GaveUp);
    }
    Ok(())
}

/// What [`parse_ranges_parallel`] parses: the ranges ([`ranges::plan`](super::ranges::plan)),
/// the file's layout, and how many threads parse them.
#[derive(Debug, Clone, Copy)]
pub struct RangeWork<'t> {
    pub tasks: &'t [RangeTask],
    pub layout: Layout,
    pub workers: usize,
}

/// Parses a file that `read_at` can read at any offset, in the ranges `tasks`
/// ([`ranges::plan`](super::ranges::plan)) on `workers` threads: the calling thread only reads
/// each range's bytes and merges finished ranges in order, so no byte is scanned
/// twice. `progress` gets the bytes merged so far. `Err(GaveUp)`: as for
/// [`parse_parallel`].
pub fn parse_ranges_parallel(
    read_at: &mut dyn FnMut(u64, usize, &mut Vec<u8>) -> bool,
    work: RangeWork<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
    grouper: &mut SessionGrouper,
    progress: &mut dyn FnMut(u64),
) -> Result<(), GaveUp> {
    use super::ranges::{parse_range, ParsedRange, RangeMerger};
    use std::sync::mpsc::channel;
    let RangeWork {
        tasks,
        layout,
        workers,
    } = work;
    let workers = workers.max(1);
    // Ranges read but not yet merged (bounds memory to this many buffers).
    let in_flight_max = workers * 2;
    type Done = (RangeTask, Result<ParsedRange, GaveUp>, Vec<u8>);
    let (task_tx, task_rx) = sync_channel::<(RangeTask, Vec<u8>)>(in_flight_max);
    let task_rx = Mutex::new(task_rx);
    let (done_tx, done_rx) = channel::<Done>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let rx = &task_rx;
            let tx = done_tx.clone();
            scope.spawn(move || {
                let mut tape = Tape::default();
                loop {
                    let next = match rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((task, buf)) = next else { return };
                    let parsed = parse_range(&task, layout, &buf, default_session_id, &mut tape);
                    if tx.send((task, parsed, buf)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let mut merger = RangeMerger::new(tasks);
        let mut spare: Vec<Vec<u8>> = Vec::new();
        let mut in_flight = 0usize;
        let mut retry_tape = Tape::default();
        // Merges the next parsed range; one that failed is read again with more slack
        // and parsed here (its last record may have been longer than the slack).
        let mut take =
            |merger: &mut RangeMerger<'_>,
             spare: &mut Vec<Vec<u8>>,
             read_at: &mut dyn FnMut(u64, usize, &mut Vec<u8>) -> bool| {
                let (task, parsed, mut buf) = done_rx.recv().map_err(|_| GaveUp)?;
                let parsed = match (parsed, task.widened()) {
                    (Err(GaveUp), Some(wide)) => {
                        let (offset, len) = wide.read_span();
                        if !read_at(offset, len as usize, &mut buf) {
                            return Err(GaveUp);
                        }
                        parse_range(&wide, layout, &buf, default_session_id, &mut retry_tape)
                    }
                    (parsed, _) => parsed,
                };
                spare.push(buf);
                merger.take(parsed?, ctx, grouper)?;
                progress(merger.merged_bytes());
                Ok::<(), GaveUp>(())
            };
        let mut run = || -> Result<(), GaveUp> {
            for task in tasks {
                while in_flight >= in_flight_max {
                    in_flight -= 1;
                    take(&mut merger, &mut spare, read_at)?;
                }
                let (offset, len) = task.read_span();
                let mut buf = spare.pop().unwrap_or_default();
                if !read_at(offset, len as usize, &mut buf) {
                    return Err(GaveUp);
                }
                task_tx.send((*task, buf)).map_err(|_| GaveUp)?;
                in_flight += 1;
            }
            while in_flight > 0 {
                in_flight -= 1;
                take(&mut merger, &mut spare, read_at)?;
            }
            merger.finish()
        };
        let result = run();
        drop(task_tx);
        result
    })
}

/// Merges converted batches into the grouper in input order, as they arrive,
/// re-interning strings and renumbering phase boundaries.
struct Merger<'c> {
    ctx: &'c mut LoadCtx,
    grouper: &'c mut SessionGrouper,
    /// Batches that arrived before their predecessors.
    pending: Vec<Converted>,
    next: usize,
}

impl Merger<'_> {
    fn take(&mut self, result: Option<Converted>) -> Result<(), GaveUp> {
        let batch = result.ok_or(GaveUp)?;
        self.pending.push(batch);
        while let Some(i) = self.pending.iter().position(|b| b.index == self.next) {
            let batch = self.pending.swap_remove(i);
            self.merge(batch);
            self.next += 1;
        }
        Ok(())
    }

    fn merge(&mut self, batch: Converted) {
        merge_events(
            self.ctx,
            self.grouper,
            batch.events,
            (&batch.strings, &batch.sources),
            batch.phases,
        );
    }
}

fn worker(
    batches: &Mutex<Receiver<Batch>>,
    results: SyncSender<Option<Converted>>,
    default_session_id: &str,
) {
    let mut tape = Tape::default();
    loop {
        let next = match batches.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(batch) = next else {
            return; // no more batches
        };
        let converted = convert_batch(&batch, &mut tape, default_session_id);
        let failed = converted.is_none();
        if results.send(converted).is_err() || failed {
            return;
        }
    }
}

fn convert_batch(batch: &Batch, tape: &mut Tape, default_session_id: &str) -> Option<Converted> {
    let mut strings = Strings::default();
    let mut sources = Sources::default();
    let mut phases = Vec::new();
    let mut cache = InternCache::default();
    let mut events = Vec::with_capacity(batch.ends.len());
    let mut start = 0;
    for &end in &batch.ends {
        let record = &batch.bytes[start..end];
        start = end;
        let n = tape.parse_value(record, 0, true).ok()?;
        if skip_ws(record, n) != record.len()
            || !matches!(tape.nodes.first(), Some(Node::Object { .. }))
        {
            return None;
        }
        let mut sink = RecordSink::json(
            &mut strings,
            &mut sources,
            &mut phases,
            default_session_id,
            &mut cache,
        );
        events.push(convert_record(tape, &mut sink).ok()?);
    }
    Some(Converted {
        index: batch.index,
        events,
        strings,
        sources,
        phases,
    })
}

/// Cuts the input into batches and hands them to the workers, collecting results
/// that are ready meanwhile.
fn split_batches(
    input: &mut Input<'_>,
    layout: Layout,
    batches: SyncSender<Batch>,
    results: &Receiver<Option<Converted>>,
    merger: &mut Merger<'_>,
) -> Result<(), GaveUp> {
    let mut batcher = Batcher {
        batches,
        results,
        merger,
        batch: Batch::empty(0),
    };
    if layout == Layout::JsonArray {
        // The caller checked that '[' comes first.
        let data = input.data();
        let i = skip_ws(data, 0);
        if data.get(i) != Some(&b'[') {
            return Err(GaveUp);
        }
        input.consume(i + 1);
    }
    let mut expect_value = true; // JSON: after '[' or ','
    loop {
        let data = input.data();
        let (pos, finished) = match layout {
            Layout::JsonArray => cut_array_elements(data, &mut expect_value, &mut batcher)?,
            Layout::Jsonl => (cut_lines(data, input.at_eof(), &mut batcher)?, false),
        };
        input.consume(pos);
        if finished {
            check_after_array(input)?;
            break;
        }
        if !read_more(input, layout)? {
            break;
        }
    }
    batcher.finish()
}

impl Batch {
    /// A batch with nothing in it yet, with room for a full one.
    fn empty(index: usize) -> Batch {
        Batch {
            index,
            bytes: Vec::with_capacity(BATCH_BYTES + (64 << 10)),
            ends: Vec::new(),
        }
    }
}

/// Fills batches with records and sends each full one to the workers, merging the
/// results that are ready meanwhile.
struct Batcher<'a, 'c> {
    batches: SyncSender<Batch>,
    results: &'a Receiver<Option<Converted>>,
    merger: &'a mut Merger<'c>,
    /// The batch being filled.
    batch: Batch,
}

impl Batcher<'_, '_> {
    /// Appends one record's bytes to the batch being filled.
    #[inline]
    fn push(&mut self, record: &[u8]) {
        self.batch.bytes.extend_from_slice(record);
        self.batch.ends.push(self.batch.bytes.len());
    }

    /// Sends the batch being filled once it holds [`BATCH_BYTES`] or more, and starts
    /// the next one.
    #[inline]
    fn send_if_full(&mut self) -> Result<(), GaveUp> {
        if self.batch.bytes.len() >= BATCH_BYTES {
            let next = Batch::empty(self.batch.index + 1);
            let full = std::mem::replace(&mut self.batch, next);
            send_batch(&self.batches, self.results, self.merger, full)?;
        }
        Ok(())
    }

    /// Sends the last batch, unless it is empty.
    fn finish(self) -> Result<(), GaveUp> {
        if self.batch.ends.is_empty() {
            return Ok(());
        }
        send_batch(&self.batches, self.results, self.merger, self.batch)
    }
}

/// Merges the results that are ready, then sends `batch` to the workers (waiting while
/// their queue is full).
fn send_batch(
    batches: &SyncSender<Batch>,
    results: &Receiver<Option<Converted>>,
    merger: &mut Merger<'_>,
    batch: Batch,
) -> Result<(), GaveUp> {
    while let Ok(result) = results.try_recv() {
        merger.take(result)?;
    }
    batches.send(batch).map_err(|_| GaveUp)
}

/// Batches the whole elements of a JSON array at the start of `data` (after its `[`,
/// or where the previous call stopped; `expect_value` carries over). Returns the bytes
/// used and whether the array's `]` came.
fn cut_array_elements(
    data: &[u8],
    expect_value: &mut bool,
    batcher: &mut Batcher<'_, '_>,
) -> Result<(usize, bool), GaveUp> {
    let mut pos = 0;
    loop {
        pos = skip_ws(data, pos);
        let Some(&b) = data.get(pos) else {
            return Ok((pos, false));
        };
        if *expect_value {
            if b != b'{' {
                return Err(GaveUp);
            }
            let Some(len) = object_len(&data[pos..]) else {
                return Ok((pos, false)); // incomplete: read more
            };
            batcher.push(&data[pos..pos + len]);
            pos += len;
            *expect_value = false;
        } else {
            match b {
                b',' => {
                    pos += 1;
                    *expect_value = true;
                }
                b']' => return Ok((pos + 1, true)),
                _ => return Err(GaveUp),
            }
        }
        batcher.send_if_full()?;
    }
}

/// Batches the whole JSONL lines at the start of `data` (blank lines skipped).
/// Returns the bytes used.
fn cut_lines(data: &[u8], eof: bool, batcher: &mut Batcher<'_, '_>) -> Result<usize, GaveUp> {
    let mut pos = 0;
    loop {
        let Some(nl) = data[pos..].iter().position(|&b| b == b'\n') else {
            if eof && pos < data.len() {
                // A last line without newline: only the sequential parse
                // knows whether to drop it.
                return Err(GaveUp);
            }
            return Ok(pos);
        };
        let line = &data[pos..pos + nl];
        if super::split::has_other_line_breaks(line) {
            return Err(GaveUp);
        }
        if line.iter().any(|&b| !matches!(b, b' ' | b'\t')) {
            batcher.push(line);
        }
        pos += nl + 1;
        batcher.send_if_full()?;
    }
}

/// After the array's `]`: only whitespace may follow, to the end of the input
/// ("Extra data" otherwise).
fn check_after_array(input: &mut Input<'_>) -> Result<(), GaveUp> {
    let rest = input.data();
    if skip_ws(rest, 0) != rest.len()
        || (input.fill().map_err(|_| GaveUp)? && !input.data().is_empty())
    {
        return Err(GaveUp); // "Extra data"
    }
    Ok(())
}

/// Reads more of the input: `Ok(false)` when it has ended with only whitespace left
/// (JSONL); a JSON array that ends before its `]` gives up.
fn read_more(input: &mut Input<'_>, layout: Layout) -> Result<bool, GaveUp> {
    let more = input.fill().map_err(|_| GaveUp)?;
    if !more && input.at_eof() {
        let rest = input.data();
        if layout == Layout::JsonArray || skip_ws(rest, 0) != rest.len() {
            return Err(GaveUp);
        }
        return Ok(false);
    }
    Ok(true)
}

/// Length of the JSON object at the start of `data` (which starts with `{`), found
/// by tracking strings and nesting; `None` when it does not end within `data`.
fn object_len(data: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'"' => {
                i += 1;
                loop {
                    match data.get(i)? {
                        b'"' => break,
                        b'\\' => i += 2,
                        _ => i += 1,
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::object_len;

    #[test]
    fn object_boundaries_skip_strings_and_nesting() {
        assert_eq!(
            object_len(br#"{"a": "}", "b": [1, {"c": "\"}"}]}, {"#),
            Some(34)
        );
        assert_eq!(object_len(br#"{"a": 1"#), None);
        assert_eq!(object_len(br#"{"a": "x\"#), None);
    }
}

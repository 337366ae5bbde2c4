//! Parsing one big file as independent byte ranges, so that several threads (natively)
//! or several Web Workers (in the browser) can each read and parse their own part.
//!
//! A file is cut into [`RANGE_BYTES`] ranges ([`plan`]). Each range is parsed on its
//! own ([`parse_range`]) from a buffer holding the range plus [`SLACK_BYTES`] after
//! it, so that the record crossing its end can be finished (a range that fails is
//! read and parsed once more with [`MAX_SLACK_BYTES`], for a longer record). A range
//! other than the first does not know where its first record starts: it *guesses* (the first
//! `}` `,` `{` between records of a JSON array, the first line start of JSONL) and
//! parses from there until the first record starting at or after its end.
//!
//! [`Stitcher`] then accepts the ranges in order only if each one started exactly
//! where its predecessor stopped. Parsing resumes identically at a true record start,
//! so stitched ranges give exactly the events of one sequential parse; a wrong guess
//! (the pattern inside a string) cannot match a true boundary, and any other
//! irregularity (an error, a non-object element, a record longer than the slack)
//! gives up, and the caller parses the file sequentially, which reports errors as
//! stormlog would.

pub mod share;

use super::event::{Event, Sources, Strings};
use super::phase_boundary::PhaseBoundary;
use super::record::{convert_record, InternCache, RecordExtras, RecordSink};
pub use super::split::{has_other_line_breaks, GaveUp};
use super::split::{merge_events, Layout};
use crate::json::{skip_ws, Node, Tape};
use crate::pack::{Reader, Writer};

/// Bytes per range.
pub const RANGE_BYTES: u64 = 4 << 20;

/// Bytes first read past a range's end for the record that crosses it (records are
/// about 0.6 kB; 1.6 % of a range).
pub const SLACK_BYTES: u64 = 64 << 10;

/// The slack of a range read again because it failed with less ([`RangeTask::widened`]):
/// its last record may just have been longer than [`SLACK_BYTES`].
pub const MAX_SLACK_BYTES: u64 = 1 << 20;

/// Bytes read before a range's start, to see whether a record starts right at it
/// (`}, {` or a newline just before).
const LOOKBACK_BYTES: u64 = 64;

/// One range of a file: parse the records that *start* in `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RangeTask {
    pub index: usize,
    pub start: u64,
    pub end: u64,
    pub file_bytes: u64,
    /// Bytes read past `end` (see [`SLACK_BYTES`]).
    pub slack_bytes: u64,
}

impl RangeTask {
    /// The bytes to read for this range: `(offset, length)`, from a little before
    /// `start` (does a record start right at it?) to `slack_bytes` after `end`.
    pub fn read_span(&self) -> (u64, u64) {
        let from = self.start - self.start.min(LOOKBACK_BYTES);
        let to = self
            .end
            .saturating_add(self.slack_bytes)
            .min(self.file_bytes);
        (from, to - from)
    }

    /// This range with [`MAX_SLACK_BYTES`] of slack, when it has less and its read
    /// stopped short of the end of the file: what to try once more when it fails.
    pub fn widened(&self) -> Option<RangeTask> {
        let (from, len) = self.read_span();
        (self.slack_bytes < MAX_SLACK_BYTES && from + len < self.file_bytes).then_some(RangeTask {
            slack_bytes: MAX_SLACK_BYTES,
            ..*self
        })
    }
}

/// The ranges of a file of `file_bytes` bytes ([`RANGE_BYTES`] and [`SLACK_BYTES`]
/// outside tests).
pub fn plan(file_bytes: u64, range_bytes: u64, slack_bytes: u64) -> Vec<RangeTask> {
    let range_bytes = range_bytes.max(1);
    let mut tasks = Vec::new();
    let mut start = 0;
    while start < file_bytes || tasks.is_empty() {
        let end = start.saturating_add(range_bytes).min(file_bytes);
        tasks.push(RangeTask {
            index: tasks.len(),
            start,
            end,
            file_bytes,
            slack_bytes,
        });
        start = end;
    }
    tasks
}

/// What one range gave, with string and phase ids local to the range.
#[derive(Debug, Default)]
pub struct ParsedRange {
    pub index: usize,
    /// Offset of the first record parsed, `None` when no record starts in the range.
    pub first_record: Option<u64>,
    /// Offset where the next range must start: the first record starting at or after
    /// the range's end, or the file's size once the input is complete.
    pub next: u64,
    /// The input ended in this range (`]` of the array and only whitespace after it,
    /// or the last line of JSONL).
    pub finished: bool,
    pub events: Vec<(Event, RecordExtras)>,
    pub strings: Strings,
    pub sources: Sources,
    pub phases: Vec<PhaseBoundary>,
}

/// Parses the records of `task` from `buf`, the bytes at [`RangeTask::read_span`].
pub fn parse_range(
    task: &RangeTask,
    layout: Layout,
    buf: &[u8],
    default_session_id: &str,
    tape: &mut Tape,
) -> Result<ParsedRange, GaveUp> {
    let (from, len) = task.read_span();
    if buf.len() as u64 != len {
        return Err(GaveUp);
    }
    let span = RangeBuf {
        task,
        buf,
        from,
        at_eof: from + len == task.file_bytes,
        start_rel: (task.start - from) as usize,
        end_rel: (task.end - from) as usize,
    };
    let out = ParsedRange {
        index: task.index,
        ..ParsedRange::default()
    };
    let mut records = RecordConverter {
        default_session_id,
        cache: InternCache::default(),
    };
    match layout {
        Layout::JsonArray => parse_array_range(&span, out, &mut records, tape),
        Layout::Jsonl => parse_jsonl_range(&span, out, &mut records, tape),
    }
}

/// The bytes read for a range ([`RangeTask::read_span`]) and where the range lies in
/// them.
struct RangeBuf<'b> {
    task: &'b RangeTask,
    buf: &'b [u8],
    /// File offset of `buf[0]`, in bytes.
    from: u64,
    /// `buf` reaches the end of the file.
    at_eof: bool,
    /// Index in `buf` of the range's first byte.
    start_rel: usize,
    /// Index in `buf` of the byte just past the range.
    end_rel: usize,
}

/// Converts the records of one range into its events, with the range's intern cache.
struct RecordConverter<'s> {
    default_session_id: &'s str,
    cache: InternCache,
}

impl RecordConverter<'_> {
    /// Converts the record just parsed into `tape` (an object, or give up) into an
    /// event of `out`.
    #[inline]
    fn convert(&mut self, out: &mut ParsedRange, tape: &Tape) -> Result<(), GaveUp> {
        if !matches!(tape.nodes.first(), Some(Node::Object { .. })) {
            return Err(GaveUp);
        }
        let mut sink = RecordSink::json(
            &mut out.strings,
            &mut out.sources,
            &mut out.phases,
            self.default_session_id,
            &mut self.cache,
        );
        out.events
            .push(convert_record(tape, &mut sink).map_err(|_| GaveUp)?);
        Ok(())
    }
}

/// The elements of a JSON array that start in the range: from the array's first
/// element (first range) or the first guessed element start, up to the first element
/// at or after the range's end, or to the array's `]`.
fn parse_array_range(
    span: &RangeBuf<'_>,
    mut out: ParsedRange,
    records: &mut RecordConverter<'_>,
    tape: &mut Tape,
) -> Result<ParsedRange, GaveUp> {
    let RangeBuf {
        task,
        buf,
        from,
        at_eof,
        start_rel,
        end_rel,
    } = *span;
    let first = if task.start == 0 {
        let i = skip_ws(buf, 0);
        if buf.get(i) != Some(&b'[') {
            return Err(GaveUp);
        }
        let j = skip_ws(buf, i + 1);
        if buf.get(j) == Some(&b']') {
            check_utf8(&buf[..j])?;
            // An empty array: only whitespace may follow.
            return finish_array(out, buf, j, at_eof, task.file_bytes);
        }
        Some(j)
    } else {
        guess_object_start(buf, start_rel, end_rel)
    };
    let Some(first) = first else {
        out.next = task.end;
        return Ok(out);
    };
    out.first_record = Some(from + first as u64);
    let mut pos = first;
    // The file's first record belongs to the first range even when whitespace
    // pushes it past the range's end (no `}, {` precedes it for a guess).
    while pos < end_rel || (task.start == 0 && out.events.is_empty()) {
        if buf.get(pos) != Some(&b'{') {
            return Err(GaveUp);
        }
        let n = tape.parse_value(buf, pos, at_eof).map_err(|_| GaveUp)?;
        records.convert(&mut out, tape)?;
        let sep = skip_ws(buf, n);
        match buf.get(sep) {
            Some(b',') => pos = skip_ws(buf, sep + 1),
            Some(b']') => {
                check_utf8(&buf[first..sep])?;
                check_head(buf, first, task)?;
                return finish_array(out, buf, sep, at_eof, task.file_bytes);
            }
            _ => return Err(GaveUp),
        }
    }
    stop_at(span, out, first, pos)
}

/// The JSONL lines that start in the range: from the first line start at or after
/// its start up to the first one at or after its end.
fn parse_jsonl_range(
    span: &RangeBuf<'_>,
    mut out: ParsedRange,
    records: &mut RecordConverter<'_>,
    tape: &mut Tape,
) -> Result<ParsedRange, GaveUp> {
    let RangeBuf {
        task,
        buf,
        from,
        at_eof,
        start_rel,
        end_rel,
    } = *span;
    let first = if task.start == 0 {
        Some(0)
    } else {
        // A record starts after a newline (the byte before `start` included).
        buf[start_rel - 1..end_rel]
            .iter()
            .position(|&b| b == b'\n')
            .map(|nl| start_rel + nl)
            .filter(|&p| p < end_rel)
    };
    let Some(first) = first else {
        out.next = task.end;
        return Ok(out);
    };
    out.first_record = Some(from + first as u64);
    let mut pos = first;
    while pos < end_rel {
        let Some(nl) = buf[pos..].iter().position(|&b| b == b'\n') else {
            // A last line without newline: only the sequential parse knows
            // whether to drop it. A line longer than the slack: give up too.
            return Err(GaveUp);
        };
        let line = &buf[pos..pos + nl];
        if has_other_line_breaks(line) {
            return Err(GaveUp);
        }
        if line.iter().any(|&b| !matches!(b, b' ' | b'\t')) {
            let n = tape.parse_value(line, 0, true).map_err(|_| GaveUp)?;
            if skip_ws(line, n) != line.len() {
                return Err(GaveUp);
            }
            records.convert(&mut out, tape)?;
        }
        pos += nl + 1;
    }
    out.finished = at_eof && pos == buf.len();
    stop_at(span, out, first, pos)
}

/// A range whose records, from `first`, stopped at `stop` (the first record at or
/// after its end): their bytes (and the file's head) are UTF-8; the next range starts
/// at `stop`.
fn stop_at(
    span: &RangeBuf<'_>,
    mut out: ParsedRange,
    first: usize,
    stop: usize,
) -> Result<ParsedRange, GaveUp> {
    check_utf8(&span.buf[first..stop])?;
    check_head(span.buf, first, span.task)?;
    out.next = span.from + stop as u64;
    Ok(out)
}

/// The bytes before the file's first record (`[` and whitespace) are UTF-8 too.
fn check_head(buf: &[u8], first: usize, task: &RangeTask) -> Result<(), GaveUp> {
    if task.start == 0 {
        check_utf8(&buf[..first])?;
    }
    Ok(())
}

/// `]` at `close`: the array ends; only whitespace may follow, to the end of the file.
fn finish_array(
    mut out: ParsedRange,
    buf: &[u8],
    close: usize,
    at_eof: bool,
    file_bytes: u64,
) -> Result<ParsedRange, GaveUp> {
    if !at_eof || skip_ws_all(&buf[close + 1..]) {
        return Err(GaveUp); // "Extra data", or whitespace beyond the slack
    }
    out.finished = true;
    out.next = file_bytes;
    Ok(out)
}

/// True when `bytes` hold anything but JSON whitespace.
fn skip_ws_all(bytes: &[u8]) -> bool {
    skip_ws(bytes, 0) != bytes.len()
}

fn check_utf8(bytes: &[u8]) -> Result<(), GaveUp> {
    simdutf8::basic::from_utf8(bytes)
        .map(|_| ())
        .map_err(|_| GaveUp)
}

/// The first `{` in `buf[start..end]` that follows `}` `,` (whitespace between): where
/// an array element would start. Only a guess: the pattern may sit inside a string.
fn guess_object_start(buf: &[u8], start: usize, end: usize) -> Option<usize> {
    let is_ws = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let before = |i: usize| buf[..i].iter().rposition(|&b| !is_ws(b));
    (start..end).find(|&i| {
        buf[i] == b'{'
            && before(i)
                .is_some_and(|c| buf[c] == b',' && before(c).is_some_and(|b| buf[b] == b'}'))
    })
}

/// Accepts parsed ranges in order and checks that they join up.
#[derive(Debug, Default)]
pub struct Stitcher {
    /// Where the next range must start its first record.
    expected: u64,
    finished: bool,
    /// Index of the next range to accept.
    pub next_index: usize,
}

impl Stitcher {
    /// Checks that `range` (the next in order) continues where the last one stopped.
    pub fn accept(&mut self, range: &ParsedRange, task: &RangeTask) -> Result<(), GaveUp> {
        if range.index != self.next_index || task.index != range.index {
            return Err(GaveUp);
        }
        self.next_index += 1;
        match range.first_record {
            // No record starts here: the previous range must already reach past it.
            None => {
                if self.expected < task.end && !(task.start == 0 && range.finished) {
                    return Err(GaveUp);
                }
            }
            Some(first) => {
                if self.finished || (task.start > 0 && first != self.expected) {
                    return Err(GaveUp);
                }
                self.expected = range.next;
            }
        }
        if range.finished {
            self.finished = true;
            self.expected = task.file_bytes;
        }
        Ok(())
    }

    /// After the last range: did the input end properly?
    pub fn complete(&self, file_bytes: u64) -> Result<(), GaveUp> {
        if self.finished && self.expected == file_bytes {
            Ok(())
        } else {
            Err(GaveUp)
        }
    }
}

/// A file parsed elsewhere in ranges (the browser's helper workers), handed to the
/// loader by [`TraceFs::take_parsed`](super::TraceFs::take_parsed): the loader stitches
/// it if it matches what it would parse itself, else reads the file as usual.
pub struct Preparsed<'a> {
    /// The session id the ranges gave records without one.
    pub default_session_id: String,
    pub file_bytes: u64,
    /// The range size of the [`plan`] used.
    pub range_bytes: u64,
    /// Each range as [`ParsedRange::to_bytes`], in any order, produced one at a time.
    pub ranges: Box<dyn Iterator<Item = Vec<u8>> + 'a>,
}

/// Merges parsed ranges, in any arrival order, into a session grouper in file order,
/// checking that they join up ([`Stitcher`]). Natively the ranges come from worker
/// threads; in the browser from other Web Workers ([`ParsedRange::to_bytes`]).
pub struct RangeMerger<'t> {
    tasks: &'t [RangeTask],
    stitcher: Stitcher,
    waiting: Vec<ParsedRange>,
    merged_bytes: u64,
}

impl<'t> RangeMerger<'t> {
    pub fn new(tasks: &'t [RangeTask]) -> RangeMerger<'t> {
        RangeMerger {
            tasks,
            stitcher: Stitcher::default(),
            waiting: Vec::new(),
            merged_bytes: 0,
        }
    }

    /// Takes one parsed range and merges every range that is now next in order.
    pub fn take(
        &mut self,
        range: ParsedRange,
        ctx: &mut super::parse::LoadCtx,
        grouper: &mut super::parse::SessionGrouper,
    ) -> Result<(), GaveUp> {
        self.waiting.push(range);
        let next = |m: &Self| {
            m.waiting
                .iter()
                .position(|r| r.index == m.stitcher.next_index)
        };
        while let Some(i) = next(self) {
            let range = self.waiting.swap_remove(i);
            let task = self.tasks.get(range.index).ok_or(GaveUp)?;
            self.stitcher.accept(&range, task)?;
            self.merged_bytes = task.end;
            merge_events(
                ctx,
                grouper,
                range.events,
                (&range.strings, &range.sources),
                range.phases,
            );
        }
        Ok(())
    }

    /// Bytes of the file merged so far (for progress).
    pub fn merged_bytes(&self) -> u64 {
        self.merged_bytes
    }

    /// After every range: all merged, and the input ended properly?
    pub fn finish(&self) -> Result<(), GaveUp> {
        if !self.waiting.is_empty() || self.stitcher.next_index != self.tasks.len() {
            return Err(GaveUp);
        }
        self.stitcher
            .complete(self.tasks.first().map_or(0, |t| t.file_bytes))
    }
}

// ── Packing a parsed range for postMessage ──────────────────────────────────

const PACK_VERSION: u32 = 1;

/// Bytes of one packed event.
const EVENT_BYTES: usize = 8 * 8 + 4 * 4 + 1 + 4 + 16 + 4;

impl ParsedRange {
    /// The range as bytes (little-endian), to travel between Web Workers.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(64 + self.events.len() * EVENT_BYTES);
        w.u32(PACK_VERSION);
        w.u64(self.index as u64);
        w.u64(self.first_record.unwrap_or(u64::MAX));
        w.u64(self.next);
        w.u8(u8::from(self.finished));
        w.u32(self.strings.len() as u32);
        for id in 0..self.strings.len() as u32 {
            w.str(self.strings.str(id));
        }
        w.u32(self.phases.len() as u32);
        for p in &self.phases {
            w.u8(u8::from(p.enter));
            w.u32(p.path.len() as u32);
            for part in &p.path {
                w.str(part);
            }
            w.str(&p.scope_id);
            w.i64(p.thread_id);
            w.str(&p.thread_name);
            w.i64(p.sequence);
        }
        w.u32(self.events.len() as u32);
        let raw = |v: Option<i64>| v.unwrap_or(-1);
        for (e, x) in &self.events {
            let c = e.counters();
            let source = self.sources.of(e);
            for v in [
                e.timestamp_ns,
                source.rank,
                source.local_rank,
                source.world_size,
                raw(c.allocator_allocated_bytes),
                raw(c.allocator_reserved_bytes),
                raw(c.device_used_bytes),
                raw(c.device_total_bytes),
            ] {
                w.i64(v);
            }
            for v in [e.session, source.event_type, e.context, e.phase] {
                w.u32(v);
            }
            w.u8(source.flags);
            w.u32(x.host);
            w.i128(x.pid);
            w.u32(x.job_id);
        }
        w.into_bytes()
    }

    /// The inverse of [`ParsedRange::to_bytes`]; anything malformed gives up.
    pub fn from_bytes(bytes: &[u8]) -> Result<ParsedRange, GaveUp> {
        use super::event::{Counters, Identity, Source, NO_STR};
        let mut r = Reader::new(bytes);
        if r.u32()? != PACK_VERSION {
            return Err(GaveUp);
        }
        let index = usize::try_from(r.u64()?).map_err(|_| GaveUp)?;
        let first_record = Some(r.u64()?).filter(|&f| f != u64::MAX);
        let next = r.u64()?;
        let finished = r.u8()? != 0;
        let mut strings = Strings::default();
        for expected in 0..r.count(4)? as u32 {
            if strings.intern(&r.str()?) != expected {
                return Err(GaveUp); // a repeated string: not what to_bytes writes
            }
        }
        let mut phases = Vec::new();
        for _ in 0..r.count(1 + 4 + 4 + 8 + 4 + 8)? {
            let enter = r.u8()? != 0;
            let path = (0..r.count(4)?)
                .map(|_| r.str())
                .collect::<Result<Vec<_>, _>>()?;
            phases.push(PhaseBoundary {
                enter,
                path,
                scope_id: r.str()?,
                thread_id: r.i64()?,
                thread_name: r.str()?,
                sequence: r.i64()?,
            });
        }
        let known = |id: u32| id == NO_STR || (id as usize) < strings.len();
        let mut sources = Sources::default();
        let mut events = Vec::new();
        for _ in 0..r.count(EVENT_BYTES)? {
            let mut v = [0i64; 8];
            for slot in &mut v {
                *slot = r.i64()?;
            }
            let counter = |raw: i64| match raw {
                -1 => Ok(None),
                v if v >= 0 => Ok(Some(v)),
                _ => Err(GaveUp),
            };
            let counters = Counters {
                allocator_allocated_bytes: counter(v[4])?,
                allocator_reserved_bytes: counter(v[5])?,
                device_used_bytes: counter(v[6])?,
                device_total_bytes: counter(v[7])?,
            };
            let (session, event_type, context, phase) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
            let flags = r.u8()?;
            let extras = RecordExtras {
                host: r.u32()?,
                pid: r.i128()?,
                job_id: r.u32()?,
            };
            let ids_ok = [session, event_type, context, extras.host, extras.job_id]
                .into_iter()
                .all(known);
            if !ids_ok || phase as usize > phases.len() {
                return Err(GaveUp);
            }
            let source = sources.intern(Source {
                rank: v[1],
                local_rank: v[2],
                world_size: v[3],
                event_type,
                flags,
            });
            let identity = Identity {
                timestamp_ns: v[0],
                session,
                source,
                context,
            };
            events.push((Event::new(identity, counters, phase), extras));
        }
        if !r.is_empty() {
            return Err(GaveUp);
        }
        Ok(ParsedRange {
            index,
            first_record,
            next,
            finished,
            events,
            strings,
            sources,
            phases,
        })
    }
}

//! `telemetry_timeline.json` (a `stormlog diagnose` artifact), turned into telemetry
//! events exactly as stormlog 0.4.3's TUI does (`_synthesize_sessions_from_timeline`).
//!
//! The payload holds parallel `timestamps` / `allocated` / `reserved` lists. The TUI
//! gives the samples a rank (a hint in the payload, else `rank<N>` in the path, else
//! the lowest rank no earlier input used), a session (the bundle's `manifest.json`
//! beside it, else a synthesized one), and converts each sample as a legacy record.
//! Payload problems are the TUI's warnings; what the TUI does not catch (a Python
//! exception inside the synthesis, such as `int("1.5")` of an element) is a
//! [`LoadError`] for the file.

use std::collections::BTreeSet;
use std::io::Read;

use super::csv::push_json_float;
use super::error::{LoadError, LoadErrorKind, LoadWarning};
use super::event::{Event, Events, Sources, Strings};
use super::fs::{file_name, join, parent, PathKind, TraceFs};
use super::iso_time::{created_iso_to_ns, now_ns};
use super::phase_boundary::PhaseBoundary;
use super::pynum::{
    float_from_node, int_from_float, int_from_node, optional_int_hint, round_to_int, PyError,
};
use super::reader::Input;
use super::record::{convert_record, InternCache, RecordExtras, RecordSink};
use super::session::{
    stable_legacy_session_id, summary_from_json_any_job, SessionStatus, SessionSummary,
};
use crate::json::{py_strip, skip_ws, Node, ParseError, Tape};
use crate::py::py_repr_str;

/// The file name the TUI synthesizes sessions from.
pub const TIMELINE_FILE: &str = "telemetry_timeline.json";

/// The collector of synthesized samples.
const TIMELINE_COLLECTOR: &str = "stormlog.diagnose.timeline";

/// `_TimelineRankAllocator`: the ranks (and the largest world size) seen so far in one
/// load, shared by every input, so timelines without hints get the next free rank.
#[derive(Debug, Clone)]
pub struct RankAllocator {
    used: BTreeSet<i128>,
    max_world_size: i128,
}

impl Default for RankAllocator {
    fn default() -> RankAllocator {
        RankAllocator {
            used: BTreeSet::new(),
            max_world_size: 1,
        }
    }
}

impl RankAllocator {
    /// `register_events`: every event's (rank, world size).
    pub fn register_events(&mut self, events: Events<'_>) {
        for (_, source) in events.iter() {
            self.register_rank(i128::from(source.rank), i128::from(source.world_size));
        }
    }

    pub fn register_rank(&mut self, rank: i128, world_size: i128) {
        self.used.insert(rank);
        self.max_world_size = self.max_world_size.max(world_size);
    }

    /// The smallest rank >= 0 not used yet.
    pub fn next_available_rank(&self) -> i128 {
        let mut rank = 0;
        while self.used.contains(&rank) {
            rank += 1;
        }
        rank
    }
}

/// `_TimelineRankContext`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankContext {
    pub rank: i128,
    pub local_rank: i128,
    pub world_size: i128,
    /// "payload", "path" or "allocator".
    pub source: &'static str,
}

/// The samples of a timeline and the session they belong to.
#[derive(Debug)]
pub struct Synthesized {
    pub events: Vec<(Event, RecordExtras)>,
    pub summary: SessionSummary,
    /// The TUI's "Synthesized telemetry events ..." note.
    pub warning: LoadWarning,
}

/// What a timeline produced: nothing usable (only a warning), or its samples.
#[derive(Debug)]
pub enum Timeline {
    Skipped(LoadWarning),
    Synthesized(Box<Synthesized>),
}

/// Where synthesized events go.
pub struct TimelineTarget<'a> {
    pub strings: &'a mut Strings,
    pub sources: &'a mut Sources,
    pub phases: &'a mut Vec<PhaseBoundary>,
    pub allocator: &'a mut RankAllocator,
}

/// A Python exception the synthesis does not catch: an error for the file.
fn crash(name: &str, field: &str, index: Option<u64>, e: &PyError) -> LoadError {
    let mut err = LoadError::new(LoadErrorKind::Record, name, e.message());
    err.field = Some(field.to_string());
    err.record = index;
    err
}

/// `_synthesize_sessions_from_timeline(path)`. `input` is the opened file (or why it
/// could not be opened); `fs` finds the `manifest.json` beside it.
pub fn synthesize(
    fs: &dyn TraceFs,
    path: &str,
    input: Result<Input<'_>, LoadError>,
    target: &mut TimelineTarget<'_>,
) -> Result<Timeline, LoadError> {
    let name = file_name(path).to_string();
    let resolved = fs.resolve(path);
    let warn = |message: String| {
        Ok(Timeline::Skipped(LoadWarning::new(
            Some(&name),
            None,
            message,
        )))
    };

    if fs.kind(path) == PathKind::Dir {
        // open() of a folder raises IsADirectoryError (an OSError: a warning).
        return warn(format!(
            "Failed to read timeline payload {resolved}: [Errno 21] Is a directory: {}",
            py_repr_str(&resolved)
        ));
    }
    let tape = match read_payload(input)? {
        Payload::Parsed(tape) => tape,
        Payload::Unreadable(detail) => {
            return warn(format!(
                "Failed to read timeline payload {resolved}: {detail}"
            ))
        }
    };
    let columns = match sample_columns(&tape, &resolved) {
        Ok(columns) => columns,
        Err(message) => return warn(message),
    };

    let context = rank_context(&tape, &resolved, target.allocator)
        .map_err(|e| crash(&name, "rank", None, &e))?;
    let summary = session_summary(fs, path, &resolved, &context, &tape, columns.timestamps[0])
        .map_err(|e| crash(&name, "timestamps", Some(0), &e))?;
    let events = timeline_events(&tape, columns.aligned(), &summary, target, &name)?;
    let warning = synthesized_warning(&name, &context, &summary.session);
    Ok(Timeline::Synthesized(Box::new(Synthesized {
        events,
        summary: summary.session,
        warning,
    })))
}

// ── Payload ─────────────────────────────────────────────────────────────────

/// A timeline file read whole: its parsed payload, or why it could not be read (the
/// detail of the TUI's "Failed to read timeline payload" warning).
enum Payload {
    Parsed(Tape),
    Unreadable(String),
}

/// `json.load(open(path, encoding="utf-8"))`: an OSError or a JSONDecodeError is an
/// unreadable payload (a warning); a UnicodeDecodeError stops the TUI (an error here).
fn read_payload(input: Result<Input<'_>, LoadError>) -> Result<Payload, LoadError> {
    let mut input = match input {
        Ok(input) => input,
        Err(e) if e.kind == LoadErrorKind::Io => return Ok(Payload::Unreadable(e.message)),
        Err(e) => return Err(e),
    };
    loop {
        match input.fill() {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) if e.kind == LoadErrorKind::Io => return Ok(Payload::Unreadable(e.message)),
            Err(e) => return Err(e),
        }
    }
    if let Some(e) = input.take_utf8_error() {
        return Err(e);
    }
    let data = input.data();
    let mut tape = Tape::default();
    if data.starts_with("\u{feff}".as_bytes()) {
        let e = input.syntax_error(
            input.offset(),
            "Unexpected UTF-8 BOM (decode using utf-8-sig)",
        );
        return Ok(Payload::Unreadable(e.message));
    }
    match tape.parse_value(data, 0, true) {
        Ok(n) => {
            let end = skip_ws(data, n);
            if end != data.len() {
                let e = input.syntax_error(input.offset() + end as u64, "Extra data");
                return Ok(Payload::Unreadable(e.message));
            }
        }
        Err(ParseError::Syntax { offset, message }) => {
            let e = input.syntax_error(input.offset() + offset as u64, message);
            if message == "Nesting too deep" {
                // Python parses deeper payloads (up to its recursion limit); we cannot.
                return Err(e);
            }
            return Ok(Payload::Unreadable(e.message));
        }
        Err(ParseError::Incomplete) => {
            let e = input.syntax_error(input.offset() + data.len() as u64, "Expecting value");
            return Ok(Payload::Unreadable(e.message));
        }
    }
    Ok(Payload::Parsed(tape))
}

/// The payload's sample lists (node indices into its tape) and how many samples all
/// three hold.
struct SampleColumns {
    timestamps: Vec<usize>,
    allocated: Vec<usize>,
    reserved: Vec<usize>,
    /// Samples present in every list (at least 1).
    count: usize,
}

impl SampleColumns {
    /// The `timestamps`, `allocated` and `reserved` lists cut to their common length.
    fn aligned(&self) -> [&[usize]; 3] {
        [
            &self.timestamps[..self.count],
            &self.allocated[..self.count],
            &self.reserved[..self.count],
        ]
    }
}

/// The payload's `timestamps`, `allocated` and `reserved` lists (`reserved` defaults
/// to `allocated`), or the TUI's warning when the payload has no usable samples.
fn sample_columns(tape: &Tape, resolved: &str) -> Result<SampleColumns, String> {
    if !matches!(tape.nodes[0], Node::Object { .. }) {
        return Err(format!("Timeline payload is not a JSON object: {resolved}"));
    }
    let list = |key: &str| {
        tape.get(0, key.as_bytes())
            .filter(|&i| matches!(tape.nodes[i], Node::Array { .. }))
    };
    let (Some(timestamps), Some(allocated)) = (list("timestamps"), list("allocated")) else {
        return Err(format!("Invalid timeline payload shape in {resolved}"));
    };
    let timestamps: Vec<usize> = tape.elements(timestamps).collect();
    let allocated: Vec<usize> = tape.elements(allocated).collect();
    if timestamps.is_empty() || allocated.is_empty() {
        return Err(format!("Timeline payload has no samples in {resolved}"));
    }
    let reserved: Vec<usize> = match list("reserved") {
        Some(r) => tape.elements(r).collect(),
        None => allocated.clone(),
    };
    let count = timestamps.len().min(allocated.len()).min(reserved.len());
    if count == 0 {
        return Err(format!(
            "Timeline payload has no aligned samples in {resolved}"
        ));
    }
    Ok(SampleColumns {
        timestamps,
        allocated,
        reserved,
        count,
    })
}

/// The TUI's "Synthesized telemetry events ..." note: the rank it assigned and the
/// session the samples joined.
fn synthesized_warning(name: &str, context: &RankContext, session: &SessionSummary) -> LoadWarning {
    LoadWarning::new(
        Some(name),
        None,
        format!(
            "Synthesized telemetry events from telemetry_timeline.json; assigned rank={} world_size={} (source={}, session_id={}, status={}).",
            context.rank,
            context.world_size,
            context.source,
            session.session_id,
            session.status.as_str()
        ),
    )
}

// ── Rank context ────────────────────────────────────────────────────────────

/// `_first_int(*values, minimum=...)`.
fn first_int(
    tape: &Tape,
    values: &[Option<usize>],
    minimum: i128,
) -> Result<Option<i128>, PyError> {
    for &v in values {
        if let Some(parsed) = optional_int_hint(tape, v, minimum)? {
            return Ok(Some(parsed));
        }
    }
    Ok(None)
}

/// `_timeline_identity_hints`: (rank, local rank, world size) from the payload, its
/// `metadata`, then its `distributed_identity`.
fn identity_hints(tape: &Tape) -> Result<[Option<i128>; 3], PyError> {
    let object = |idx: Option<usize>| idx.filter(|&i| matches!(tape.nodes[i], Node::Object { .. }));
    let metadata = object(tape.get(0, b"metadata"));
    let identity = object(tape.get(0, b"distributed_identity"));
    let sources = |key: &[u8]| {
        [
            tape.get(0, key),
            metadata.and_then(|m| tape.get(m, key)),
            identity.and_then(|m| tape.get(m, key)),
        ]
    };
    Ok([
        first_int(tape, &sources(b"rank"), 0)?,
        first_int(tape, &sources(b"local_rank"), 0)?,
        first_int(tape, &sources(b"world_size"), 1)?,
    ])
}

/// Characters that `[a-z0-9]` matches under Python's `re.IGNORECASE` (ASCII letters
/// and digits, plus the four non-ASCII letters whose simple case mapping is ASCII).
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '\u{130}' | '\u{131}' | '\u{17f}' | '\u{212a}')
}

/// `re.compile("rank", re.I)` one character at a time (the Kelvin sign is a `k`).
fn matches_rank_at(chars: &[char], at: usize) -> bool {
    let want = ['r', 'a', 'n', 'k'];
    want.iter().enumerate().all(|(i, &w)| {
        chars
            .get(at + i)
            .is_some_and(|&c| c.to_ascii_lowercase() == w || (w == 'k' && c == '\u{212a}'))
    })
}

/// `(?<!local[_-])` before position `at`.
fn preceded_by_local(chars: &[char], at: usize) -> bool {
    if at < 6 {
        return false;
    }
    let before = &chars[at - 6..at];
    let word: String = before[..5].iter().map(|c| c.to_ascii_lowercase()).collect();
    word == "local" && matches!(before[5], '_' | '-')
}

/// `_RANK_CONTEXT_PATTERN.search(segment)`:
/// `(?:^|[^a-z0-9])(?<!local[_-])rank[_-]?(?P<rank>\d+)(?:[^0-9]|$)`, case-insensitive;
/// the value of the digits (`\d` is any Unicode decimal digit).
fn rank_in_segment(segment: &str) -> Option<Result<i128, PyError>> {
    let chars: Vec<char> = segment.chars().collect();
    for start in 0..chars.len() {
        if start > 0 && is_word_char(chars[start - 1]) {
            continue;
        }
        if preceded_by_local(&chars, start) || !matches_rank_at(&chars, start) {
            continue;
        }
        let mut pos = start + 4;
        let digits_at = |p: usize| chars.get(p).and_then(|&c| super::pynum::decimal_value(c));
        if digits_at(pos).is_none() && matches!(chars.get(pos), Some('_' | '-')) {
            pos += 1;
        }
        let digits: String = chars[pos.min(chars.len())..]
            .iter()
            .map_while(|&c| super::pynum::decimal_value(c))
            .map(|d| char::from(b'0' + d))
            .collect();
        if digits.is_empty() {
            continue;
        }
        // The greedy digit run is always followed by a non-digit or the end.
        return Some(digits.parse::<i128>().map_err(|_| {
            PyError::Beyond(format!("rank {digits} is outside the supported range"))
        }));
    }
    None
}

/// `_infer_rank_from_path`: the file name, then each parent folder's name.
fn rank_from_path(resolved: &str) -> Option<Result<i128, PyError>> {
    let trimmed = resolved.trim_end_matches('/');
    trimmed
        .rsplit('/')
        .filter(|s| !s.is_empty())
        .find_map(rank_in_segment)
}

/// `_resolve_timeline_rank_context`; registers the chosen rank with the allocator.
fn rank_context(
    tape: &Tape,
    resolved: &str,
    allocator: &mut RankAllocator,
) -> Result<RankContext, PyError> {
    let [hinted_rank, hinted_local, hinted_world] = identity_hints(tape)?;
    let path_rank = rank_from_path(resolved).transpose()?;
    let (rank, source) = match (hinted_rank, path_rank) {
        (Some(r), _) => (r, "payload"),
        (None, Some(r)) => (r, "path"),
        (None, None) => (allocator.next_available_rank(), "allocator"),
    };
    let local_rank = hinted_local.unwrap_or(rank);
    let distinct = allocator.used.len() as i128 + i128::from(!allocator.used.contains(&rank));
    let minimum = (rank + 1)
        .max(local_rank + 1)
        .max(allocator.max_world_size)
        .max(distinct);
    let world_size = hinted_world.unwrap_or(minimum).max(minimum);
    allocator.register_rank(rank, world_size);
    Ok(RankContext {
        rank,
        local_rank,
        world_size,
        source,
    })
}

// ── Session summary ─────────────────────────────────────────────────────────

/// `job_id` of the summary as Python holds it: any JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum JobId {
    None,
    Text(String),
    /// Not a string: the first event conversion fails on it ("job_id must be a string").
    NotAString,
}

struct TimelineSummary {
    session: SessionSummary,
    job_id: JobId,
}

/// `_timeline_session_summary`: the bundle manifest's session, else a synthesized one.
fn session_summary(
    fs: &dyn TraceFs,
    path: &str,
    resolved: &str,
    context: &RankContext,
    tape: &Tape,
    first_timestamp: usize,
) -> Result<TimelineSummary, PyError> {
    if let Some(summary) = diagnose_session_summary(fs, path, context) {
        return Ok(summary);
    }
    let started = float_from_node(tape, first_timestamp)?;
    let started_at_ns = int_from_float(started * 1_000_000_000.0)?;
    Ok(TimelineSummary {
        session: SessionSummary {
            session_id: stable_legacy_session_id(&[resolved, "diagnose.timeline"]),
            status: SessionStatus::Incomplete,
            started_at_ns,
            ended_at_ns: None,
            host: "unknown".to_string(),
            pid: -1,
            job_id: None,
            rank: context.rank,
            local_rank: context.local_rank,
            world_size: context.world_size.max(1),
            source: "stormlog.diagnose.timeline".to_string(),
        },
        job_id: JobId::None,
    })
}

/// `_load_diagnose_session_summary`: `manifest.json` beside the timeline, read
/// tolerantly (anything unreadable means "no summary").
fn diagnose_session_summary(
    fs: &dyn TraceFs,
    path: &str,
    context: &RankContext,
) -> Option<TimelineSummary> {
    let manifest = join(parent(path), "manifest.json");
    if fs.kind(&manifest) != PathKind::File {
        return None;
    }
    let mut bytes = Vec::new();
    fs.open(&manifest).ok()?.read_to_end(&mut bytes).ok()?;
    std::str::from_utf8(&bytes).ok()?;
    let mut tape = Tape::default();
    let n = tape.parse_value(&bytes, 0, true).ok()?;
    if skip_ws(&bytes, n) != bytes.len() || !matches!(tape.nodes[0], Node::Object { .. }) {
        return None;
    }
    if let Some(session) = tape
        .get(0, b"session")
        .filter(|&i| matches!(tape.nodes[i], Node::Object { .. }))
    {
        if let Ok((mut summary, job)) = summary_from_json_any_job(&tape, session) {
            // _summary_with_rank_context
            summary.rank = context.rank;
            summary.local_rank = context.local_rank;
            summary.world_size = context.world_size;
            let job_id = match job.map(|i| tape.nodes[i]) {
                None | Some(Node::Null) => JobId::None,
                Some(n @ Node::Str { .. }) => JobId::Text(tape.text_of(n).into_owned()),
                Some(_) => JobId::NotAString,
            };
            summary.job_id = match &job_id {
                JobId::Text(t) => Some(t.clone()),
                _ => None,
            };
            return Some(TimelineSummary {
                session: summary,
                job_id,
            });
        }
    }
    let session_id = match tape.get(0, b"session_id").map(|i| tape.nodes[i]) {
        Some(n @ Node::Str { .. }) if !py_strip(&tape.text_of(n)).is_empty() => {
            tape.text_of(n).into_owned()
        }
        _ => return None,
    };
    let status = match tape.get(0, b"session_status").map(|i| tape.nodes[i]) {
        None => SessionStatus::Incomplete,
        Some(n @ Node::Str { .. }) => {
            SessionStatus::parse(&tape.text_of(n)).unwrap_or(SessionStatus::Incomplete)
        }
        Some(_) => SessionStatus::Incomplete,
    };
    let created = match tape.get(0, b"created_iso").map(|i| tape.nodes[i]) {
        Some(n @ Node::Str { .. }) => created_iso_to_ns(&tape.text_of(n)),
        _ => None,
    };
    let ended = if status == SessionStatus::Running {
        None
    } else {
        created
    };
    Some(TimelineSummary {
        session: SessionSummary {
            session_id,
            status,
            // create_session_summary: started_at_ns=None means "now".
            started_at_ns: created.unwrap_or_else(now_ns),
            ended_at_ns: ended,
            host: "unknown".to_string(),
            pid: -1,
            job_id: None,
            rank: context.rank,
            local_rank: context.local_rank,
            world_size: context.world_size.max(1),
            source: "stormlog.diagnose.bundle".to_string(),
        },
        job_id: JobId::None,
    })
}

fn push_str(out: &mut String, key: &str, value: &str) {
    out.push_str(&format!("\"{key}\": "));
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("\", ");
}

fn push_int(out: &mut String, key: &str, value: i128) {
    out.push_str(&format!("\"{key}\": {value}, "));
}

/// `_timeline_events`: one legacy record per sample, converted like any other.
fn timeline_events(
    tape: &Tape,
    [timestamps, allocated, reserved]: [&[usize]; 3],
    summary: &TimelineSummary,
    target: &mut TimelineTarget<'_>,
    name: &str,
) -> Result<Vec<(Event, RecordExtras)>, LoadError> {
    let s = &summary.session;
    let mut events = Vec::with_capacity(timestamps.len());
    let mut record_tape = Tape::default();
    let mut cache = InternCache::default();
    let mut text = String::new();
    let mut previous_allocated: i128 = 0;
    let mut previous_timestamp =
        float_from_node(tape, timestamps[0]).map_err(|e| crash(name, "timestamps", Some(0), &e))?;
    for i in 0..timestamps.len() {
        let at = Some(i as u64);
        let timestamp =
            float_from_node(tape, timestamps[i]).map_err(|e| crash(name, "timestamps", at, &e))?;
        let allocated_bytes =
            int_from_node(tape, allocated[i]).map_err(|e| crash(name, "allocated", at, &e))?;
        let reserved_bytes =
            int_from_node(tape, reserved[i]).map_err(|e| crash(name, "reserved", at, &e))?;
        let interval_ms = if i > 0 {
            round_to_int((timestamp - previous_timestamp) * 1000.0)
                .map_err(|e| crash(name, "timestamps", at, &e))?
        } else {
            0
        };
        let interval_ms = interval_ms.max(0);
        let change = allocated_bytes
            .checked_sub(previous_allocated)
            .ok_or_else(|| {
                crash(
                    name,
                    "allocated",
                    at,
                    &PyError::Beyond("memory change is outside the supported range".to_string()),
                )
            })?;

        text.clear();
        text.push('{');
        push_str(&mut text, "session_id", &s.session_id);
        text.push_str("\"timestamp\": ");
        push_json_float(&mut text, timestamp);
        text.push_str(", ");
        push_str(&mut text, "event_type", "sample");
        push_str(&mut text, "collector", TIMELINE_COLLECTOR);
        push_int(&mut text, "sampling_interval_ms", interval_ms);
        push_int(&mut text, "pid", s.pid);
        push_str(&mut text, "host", &s.host);
        push_int(&mut text, "device_id", 0);
        push_int(&mut text, "memory_allocated", allocated_bytes);
        push_int(&mut text, "memory_reserved", reserved_bytes);
        push_int(&mut text, "memory_change", change);
        push_int(
            &mut text,
            "device_used_bytes",
            allocated_bytes.max(reserved_bytes),
        );
        text.push_str("\"device_total_bytes\": null, ");
        push_str(&mut text, "context", "diagnose timeline sample");
        match &summary.job_id {
            JobId::None => text.push_str("\"job_id\": null, "),
            JobId::Text(t) => push_str(&mut text, "job_id", t),
            // Any non-string fails the same way in the conversion.
            JobId::NotAString => text.push_str("\"job_id\": true, "),
        }
        push_int(&mut text, "rank", s.rank);
        push_int(&mut text, "local_rank", s.local_rank);
        push_int(&mut text, "world_size", s.world_size);
        text.push_str("\"metadata\": {\"source\": \"diagnose.telemetry_timeline\"}}");

        if record_tape.parse_value(text.as_bytes(), 0, true).is_err() {
            let mut e = LoadError::new(
                LoadErrorKind::Record,
                name,
                "cannot build the sample record",
            );
            e.record = at;
            return Err(e);
        }
        let mut sink = RecordSink {
            strings: target.strings,
            sources: target.sources,
            phases: target.phases,
            default_session_id: &s.session_id,
            default_collector: TIMELINE_COLLECTOR,
            default_sampling_interval_ms: interval_ms,
            cache: &mut cache,
        };
        match convert_record(&record_tape, &mut sink) {
            Ok(pair) => events.push(pair),
            Err(e) => {
                let mut err = LoadError::new(LoadErrorKind::Record, name, e.python_message());
                err.field = e.field;
                err.record = at;
                return Err(err);
            }
        }
        previous_allocated = allocated_bytes;
        previous_timestamp = timestamp;
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_str_escapes_quotes_backslashes_and_control_chars_only() {
        let mut out = String::new();
        push_str(&mut out, "k", "a\"b\\c\u{1}\n\u{1f} ~\u{7f}é");
        assert_eq!(
            out,
            "\"k\": \"a\\\"b\\\\c\\u0001\\u000a\\u001f ~\u{7f}é\", "
        );
    }

    /// Reads `ok` bytes, then fails with `kind`.
    struct FailingReader {
        ok: &'static [u8],
        kind: std::io::ErrorKind,
    }

    impl Read for FailingReader {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.ok.is_empty() {
                return Err(std::io::Error::new(self.kind, "device gone"));
            }
            let n = self.ok.len().min(buf.len());
            buf[..n].copy_from_slice(&self.ok[..n]);
            self.ok = &self.ok[n..];
            Ok(n)
        }
    }

    /// `synthesize` of `/t/telemetry_timeline.json` opened as `input`.
    fn synthesize_alone(input: Result<Input<'_>, LoadError>) -> Result<Timeline, LoadError> {
        let fs = crate::trace::MemFs::new();
        let (mut strings, mut sources, mut phases) = Default::default();
        let mut allocator = RankAllocator::default();
        let mut target = TimelineTarget {
            strings: &mut strings,
            sources: &mut sources,
            phases: &mut phases,
            allocator: &mut allocator,
        };
        synthesize(&fs, "/t/telemetry_timeline.json", input, &mut target)
    }

    /// The warning's text when the timeline is skipped, the error's kind when it fails.
    fn synthesize_input(input: Result<Input<'_>, LoadError>) -> Result<String, LoadErrorKind> {
        match synthesize_alone(input) {
            Ok(Timeline::Skipped(w)) => Ok(w.message),
            Ok(Timeline::Synthesized(_)) => Ok("synthesized".to_string()),
            Err(e) => Err(e.kind),
        }
    }

    #[test]
    fn an_os_error_skips_the_timeline_and_anything_else_fails_it() {
        // json.load(open(...)) catches OSError (and JSONDecodeError) only.
        let open_failed = LoadError::new(LoadErrorKind::Io, "t", "cannot open: denied");
        assert_eq!(
            synthesize_input(Err(open_failed)),
            Ok(
                "Failed to read timeline payload /t/telemetry_timeline.json: cannot open: denied"
                    .to_string()
            )
        );
        let not_utf8 = LoadError::new(LoadErrorKind::Utf8, "t", "invalid utf-8");
        assert_eq!(synthesize_input(Err(not_utf8)), Err(LoadErrorKind::Utf8));

        let reader = |kind| {
            Input::new(
                "t",
                Box::new(FailingReader {
                    ok: b"{\"timestamps\": [1",
                    kind,
                }),
                None,
            )
        };
        let skipped = synthesize_input(reader(std::io::ErrorKind::Other));
        assert_eq!(
            skipped,
            Ok("Failed to read timeline payload /t/telemetry_timeline.json: cannot read: device gone"
                .to_string())
        );
        // A broken gzip stream is not an OSError: the file fails.
        let broken = synthesize_input(reader(std::io::ErrorKind::InvalidData));
        assert_eq!(broken, Err(LoadErrorKind::Gzip));
    }

    #[test]
    fn a_nan_timestamp_fails_in_the_sampling_interval_first() {
        // stormlog 0.4.3: `int(round((timestamp - previous_timestamp) * 1000))` raises
        // "ValueError: cannot convert float NaN to integer" for the second sample,
        // before that sample's record is converted.
        let payload =
            r#"{"timestamps": [1700000000.0, NaN, 1700000000.2], "allocated": [1, 2, 3]}"#;
        let input = Input::new("t", Box::new(payload.as_bytes()), None);
        let Err(e) = synthesize_alone(input) else {
            panic!("a NaN timestamp must fail the file");
        };
        assert_eq!(e.message, "cannot convert float NaN to integer");
        assert_eq!(e.field.as_deref(), Some("timestamps"));
        assert_eq!(e.record, Some(1));
    }

    #[test]
    fn iso_dates_convert_like_python_3_11() {
        // Each value was printed by CPython 3.11 (TZ=UTC) as
        // int(datetime.fromisoformat(s).timestamp() * 1_000_000_000).
        let cases: [(&str, Option<i128>); 24] = [
            ("2024-01-02T03:04:05", Some(1_704_164_645_000_000_000)),
            (
                "2024-01-02T03:04:05.123456+00:00",
                Some(1_704_164_645_123_456_000),
            ),
            ("2024-01-02 03:04:05+02:00", Some(1_704_157_445_000_000_000)),
            ("2024-01-02", Some(1_704_153_600_000_000_000)),
            ("20240102", Some(1_704_153_600_000_000_000)),
            ("2024-01-02T03", Some(1_704_164_400_000_000_000)),
            ("2024-01-02T0304", Some(1_704_164_640_000_000_000)),
            ("2024-01-02T03:04:05.1", Some(1_704_164_645_100_000_000)),
            ("2024-01-02T03:04:05,5", Some(1_704_164_645_500_000_000)),
            (
                "2024-01-02T03:04:05.1234567",
                Some(1_704_164_645_123_456_000),
            ),
            ("2024-01-02T03:04:05+0530", Some(1_704_144_845_000_000_000)),
            ("2024-01-02T03:04:05+05", Some(1_704_146_645_000_000_000)),
            (
                "2024-01-02T03:04:05-05:30:15",
                Some(1_704_184_460_000_000_000),
            ),
            (
                "2024-01-02T03:04:05+05:30:15.5",
                Some(1_704_144_829_500_000_000),
            ),
            ("2024-01-02x03:04", Some(1_704_164_640_000_000_000)),
            ("2024-W01-1", Some(1_704_067_200_000_000_000)),
            ("1969-12-31T23:59:59.5+00:00", Some(-500_000_000)),
            ("2024-01-02T03:04:05.123Z", Some(1_704_164_645_122_999_808)),
            (
                "2024-01-02T03:04:05.000001Z",
                Some(1_704_164_645_000_001_024),
            ),
            ("2024-02-30", None),
            ("2024-01-02T24:00", None),
            ("2024-01-02T03:04:05+24:00", None),
            ("2024-01-02T03:04:05.", None),
            ("2024-01-02T03:0405", None),
        ];
        for (text, expected) in cases {
            assert_eq!(created_iso_to_ns(text), expected, "{text}");
        }
        // CPython 3.11's C parser quirks, reproduced.
        let quirks: [(&str, Option<i128>); 12] = [
            ("2024-01-02T030+05:00", Some(1_704_146_400_000_000_000)),
            ("2024-01-02T03:04:05:123", Some(1_704_164_645_122_999_808)),
            ("2024-01-02T03040512", Some(1_704_164_645_120_000_000)),
            ("2024-01-02T0304051", None),
            ("2024-W011", None),
            ("2024-W01T10:00", Some(1_704_103_200_000_000_000)),
            ("2024W011", Some(1_704_067_200_000_000_000)),
            ("2024W0110:00", None),
            ("2024-01-02T03:04:05+05:99", Some(1_704_140_705_000_000_000)),
            ("2024-01-02T03:04:05.5+01", Some(1_704_161_045_500_000_000)),
            ("2024-W53-1", None),
            ("2020-W53-7", Some(1_609_632_000_000_000_000)),
        ];
        for (text, expected) in quirks {
            assert_eq!(created_iso_to_ns(text), expected, "{text}");
        }
        assert_eq!(created_iso_to_ns("2024-01-02T03:04:05-0"), None);
        assert_eq!(created_iso_to_ns("2024-01-02T3"), None);
        assert_eq!(created_iso_to_ns("2024-1-02"), None);
        assert_eq!(created_iso_to_ns("2024-01-02T03:04:60"), None);
        assert_eq!(
            created_iso_to_ns("0001-01-01T00:00:00+00:00"),
            Some(-62_135_596_800_000_000_000)
        );
    }

    #[test]
    fn ranks_in_paths_follow_the_tui_pattern() {
        let rank = |s: &str| rank_in_segment(s).and_then(Result::ok);
        assert_eq!(rank("rank3"), Some(3));
        assert_eq!(rank("job-RANK_12.json"), Some(12));
        assert_eq!(rank("rank-7x"), Some(7));
        assert_eq!(rank("local_rank3"), None);
        assert_eq!(rank("local-rank3_rank4"), Some(4));
        assert_eq!(rank("frank3"), None);
        assert_eq!(rank("rank"), None);
        assert_eq!(rank("ran\u{212a}5"), Some(5));
        assert_eq!(rank("rank\u{661}\u{662}"), Some(12));
        assert_eq!(rank("\u{17f}rank1"), None);
        assert_eq!(rank("x.rank__1"), None);
        // The Kelvin sign stands for a `k` only, and only `_`/`-` may sit before the digits.
        assert_eq!(rank("\u{212a}ank5"), None);
        assert_eq!(rank("ranx5"), None);
        assert_eq!(rank("rankx3"), None);
        assert_eq!(
            rank_from_path("/data/rank2/bundle/telemetry_timeline.json").and_then(Result::ok),
            Some(2)
        );
        assert_eq!(
            rank_from_path("/data/bundle/telemetry_timeline.json").map(|_| ()),
            None
        );
    }

    #[test]
    fn the_allocator_hands_out_the_lowest_free_rank() {
        let mut a = RankAllocator::default();
        assert_eq!(a.next_available_rank(), 0);
        a.register_rank(0, 4);
        a.register_rank(2, 4);
        assert_eq!(a.next_available_rank(), 1);
        a.register_rank(1, 2);
        assert_eq!(a.next_available_rank(), 3);
        assert_eq!(a.max_world_size, 4);
    }
}

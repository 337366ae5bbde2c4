//! Parsing one file's records, streamed: a JSON document (array, `{"events": [...]}`,
//! `{"telemetry_events": [...], "session_summary": {...}}`, or one record object)
//! or JSONL (one record per line, a cut last line tolerated).
//!
//! Errors are reported in the order Python would meet them: stormlog decodes the
//! whole file, then parses all of it, then checks its shape, then converts records.
//! So the parse keeps going after a record fails, to find any error that outranks it.

use super::error::{LoadError, LoadErrorKind};
use super::event::{Event, Sources, StrId, Strings};
use super::phase_boundary::PhaseBoundary;
use super::reader::Input;
use super::record::{convert_record, InternCache, RecordError, RecordExtras, RecordSink};
use super::session::{summary_from_json, SessionSummary};
use crate::json::{py_strip, skip_ws, Node, ParseError, Tape};

/// Shared, growing state of one load: interned strings and sources, phase boundaries and scratch tapes.
#[derive(Default)]
pub struct LoadCtx {
    pub strings: Strings,
    pub sources: Sources,
    pub phases: Vec<PhaseBoundary>,
    cache: InternCache,
    tape: Tape,
    top: Tape,
}

/// Events of one session in file order, with what its summary inference needs.
#[derive(Debug, Clone)]
pub struct SessionEvents {
    pub session: StrId,
    pub events: Vec<Event>,
    /// The first event in timestamp order (ties: file order) and its extras.
    pub first: Option<(Event, RecordExtras)>,
    /// Timestamp of the last `stop` event in timestamp order.
    pub last_stop_ns: Option<i64>,
}

/// Groups events by session in order of first appearance (stormlog's dict order).
#[derive(Debug, Default)]
pub struct SessionGrouper {
    pub sessions: Vec<SessionEvents>,
    last: usize,
}

impl SessionGrouper {
    /// Adds `event`; `sources` holds its source (is it a `stop`?).
    pub fn push(&mut self, event: Event, extras: RecordExtras, sources: &Sources) {
        let idx = if self
            .sessions
            .get(self.last)
            .is_some_and(|s| s.session == event.session)
        {
            self.last
        } else {
            match self
                .sessions
                .iter()
                .position(|s| s.session == event.session)
            {
                Some(i) => i,
                None => {
                    self.sessions.push(SessionEvents {
                        session: event.session,
                        events: Vec::new(),
                        first: None,
                        last_stop_ns: None,
                    });
                    self.sessions.len() - 1
                }
            }
        };
        self.last = idx;
        let s = &mut self.sessions[idx];
        if s.first
            .as_ref()
            .is_none_or(|(f, _)| event.timestamp_ns < f.timestamp_ns)
        {
            s.first = Some((event, extras));
        }
        if sources.of(&event).is_stop() && s.last_stop_ns.is_none_or(|t| event.timestamp_ns >= t) {
            s.last_stop_ns = Some(event.timestamp_ns);
        }
        s.events.push(event);
    }
}

impl SessionGrouper {
    /// Appends all of `other`'s events after this grouper's (as if pushed in order).
    pub fn append(&mut self, other: SessionGrouper) {
        for s in other.sessions {
            match self.sessions.iter_mut().find(|t| t.session == s.session) {
                Some(t) => {
                    let earlier = match (&t.first, &s.first) {
                        (Some((a, _)), Some((b, _))) => b.timestamp_ns < a.timestamp_ns,
                        (None, Some(_)) => true,
                        _ => false,
                    };
                    if earlier {
                        t.first = s.first;
                    }
                    t.last_stop_ns = match (t.last_stop_ns, s.last_stop_ns) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    };
                    t.events.extend(s.events);
                }
                None => self.sessions.push(s),
            }
        }
    }
}

/// What a file parse produces.
#[derive(Debug, Default)]
pub struct ParsedFile {
    pub grouper: SessionGrouper,
    /// The tracker export's `session_summary`, when its records came from `telemetry_events`.
    pub summaries: Option<Vec<SessionSummary>>,
}

fn record_error(
    input: &Input<'_>,
    err: RecordError,
    record: Option<u64>,
    line: Option<u64>,
) -> LoadError {
    let mut e = LoadError::new(LoadErrorKind::Record, input.name(), err.message);
    e.field = err.field;
    e.record = record;
    e.line = line;
    e
}

/// Parses one value at the input's position into `tape`; returns the bytes it spans.
fn parse_value(input: &mut Input<'_>, tape: &mut Tape) -> Result<usize, LoadError> {
    loop {
        match tape.parse_value(input.data(), 0, input.at_eof()) {
            Ok(n) => return Ok(n),
            Err(ParseError::Incomplete) => {
                input.fill()?;
            }
            Err(ParseError::Syntax { offset, message }) => {
                return Err(input.syntax_error(input.offset() + offset as u64, message));
            }
        }
    }
}

/// Skips JSON whitespace; returns the next byte without consuming it (None at end).
fn peek_non_ws(input: &mut Input<'_>) -> Result<Option<u8>, LoadError> {
    loop {
        let data = input.data();
        let i = skip_ws(data, 0);
        if i < data.len() {
            let b = data[i];
            input.consume(i);
            return Ok(Some(b));
        }
        input.consume(i);
        if !input.fill()? && input.data().is_empty() {
            return Ok(None);
        }
    }
}

fn syntax_here(input: &Input<'_>, message: &str) -> LoadError {
    input.syntax_error(input.offset(), message)
}

/// Deferred problems of one list of records, ranked as Python meets them.
#[derive(Default)]
struct ListOutcome {
    grouper: SessionGrouper,
    non_object: Option<LoadError>,
    record: Option<LoadError>,
    /// A record stormlog accepts but whose values exceed our 64-bit storage: reported
    /// only when stormlog would report nothing else.
    beyond: Option<LoadError>,
    /// Distinct raw `session_id` values of the records (for the tracker summary check).
    raw_session_ids: Vec<Option<String>>,
}

/// Streams the elements of an array whose `[` is next in the input. With
/// `track_session_ids`, the records' raw `session_id` values are collected too.
fn stream_records(
    input: &mut Input<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
    track_session_ids: bool,
) -> Result<ListOutcome, LoadError> {
    let mut out = ListOutcome::default();
    input.consume(1); // '['
    match peek_non_ws(input)? {
        Some(b']') => {
            input.consume(1);
            return Ok(out);
        }
        None => return Err(syntax_here(input, "Expecting value")),
        Some(_) => {}
    }
    let mut index: u64 = 0;
    loop {
        let record_offset = input.offset();
        let n = parse_value(input, &mut ctx.tape)?;
        let tape = &ctx.tape;
        if matches!(tape.nodes[0], Node::Object { .. }) {
            if track_session_ids {
                let raw_sid = match tape.get(0, b"session_id").map(|i| tape.nodes[i]) {
                    None | Some(Node::Null) => None,
                    Some(n @ Node::Str { .. }) => Some(tape.text_of(n).into_owned()),
                    Some(_) => Some("\u{0}not-a-string".to_string()),
                };
                if !out.raw_session_ids.contains(&raw_sid) {
                    out.raw_session_ids.push(raw_sid);
                }
            }
            if out.record.is_none() && out.non_object.is_none() {
                let mut sink = RecordSink::json(
                    &mut ctx.strings,
                    &mut ctx.sources,
                    &mut ctx.phases,
                    default_session_id,
                    &mut ctx.cache,
                );
                match convert_record(&ctx.tape, &mut sink) {
                    Ok((event, extras)) => {
                        if out.beyond.is_none() {
                            out.grouper.push(event, extras, &ctx.sources);
                        }
                    }
                    Err(e) => {
                        let line = input.line_of(record_offset);
                        let beyond = e.beyond_stormlog;
                        let error = Some(record_error(input, e, Some(index), line));
                        if !beyond {
                            out.record = error;
                        } else if out.beyond.is_none() {
                            out.beyond = error;
                        }
                        out.grouper = SessionGrouper::default(); // no longer needed
                    }
                }
            }
        } else if out.non_object.is_none() {
            let mut e = LoadError::new(
                LoadErrorKind::Shape,
                input.name(),
                format!("Event at index {index} must be an object"),
            );
            e.record = Some(index);
            e.line = input.line_of(record_offset);
            out.non_object = Some(e);
            out.grouper = SessionGrouper::default();
        }
        input.consume(n);
        index += 1;
        match peek_non_ws(input)? {
            Some(b']') => {
                input.consume(1);
                return Ok(out);
            }
            Some(b',') => {
                input.consume(1);
                if peek_non_ws(input)?.is_none() {
                    return Err(syntax_here(input, "Expecting value"));
                }
            }
            _ => return Err(syntax_here(input, "Expecting ',' delimiter")),
        }
    }
}

/// `_looks_like_event_record`.
fn looks_like_record(tape: &Tape, root: usize) -> bool {
    tape.entries(root).any(|(k, _)| {
        matches!(
            tape.bytes(tape.nodes[k]),
            b"schema_version"
                | b"event_type"
                | b"type"
                | b"memory_allocated"
                | b"memory_mb"
                | b"timestamp"
                | b"timestamp_ns"
        )
    })
}

/// Parses a JSON document (or sniffed JSONL) from `input`.
pub fn parse_json(
    input: &mut Input<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
) -> Result<ParsedFile, LoadError> {
    let result = parse_json_inner(input, ctx, default_session_id);
    finish(input, result)
}

/// Python decodes the whole file before parsing: a UTF-8 error anywhere wins.
fn finish<T>(input: &mut Input<'_>, result: Result<T, LoadError>) -> Result<T, LoadError> {
    if result.is_err() {
        // Read the rest only to look for an outranking UTF-8 error.
        let _ = input.drain();
    }
    if let Some(e) = input.take_utf8_error() {
        return Err(e);
    }
    result
}

fn parse_json_inner(
    input: &mut Input<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
) -> Result<ParsedFile, LoadError> {
    input.fill()?;
    if input.data().starts_with(b"\xEF\xBB\xBF") {
        return Err(input.syntax_error(
            input.offset(),
            "Unexpected UTF-8 BOM (decode using utf-8-sig)",
        ));
    }
    let Some(first) = peek_non_ws(input)? else {
        return Err(syntax_here(input, "Expecting value"));
    };
    match first {
        b'[' => {
            let list = stream_records(input, ctx, default_session_id, false)?;
            expect_end(input)?;
            let list = take_list(list)?;
            Ok(ParsedFile {
                grouper: list.grouper,
                summaries: None,
            })
        }
        b'{' => {
            if sniff_jsonl(input)? {
                let mut grouper = SessionGrouper::default();
                parse_jsonl_inner(input, ctx, default_session_id, &mut grouper)?;
                return Ok(ParsedFile {
                    grouper,
                    summaries: None,
                });
            }
            parse_object_document(input, ctx, default_session_id)
        }
        _ => {
            parse_value(input, &mut ctx.tape).map(|n| input.consume(n))?;
            expect_end(input)?;
            Err(LoadError::new(
                LoadErrorKind::Shape,
                input.name(),
                "Telemetry payload must be a JSON object or array",
            ))
        }
    }
}

/// After the top-level value only whitespace may follow ("Extra data").
fn expect_end(input: &mut Input<'_>) -> Result<(), LoadError> {
    match peek_non_ws(input)? {
        None => Ok(()),
        Some(_) => Err(syntax_here(input, "Extra data")),
    }
}

/// A list's deferred errors in Python's order: non-object elements, then records,
/// then (beyond stormlog) values too big for us.
fn take_list(mut list: ListOutcome) -> Result<ListOutcome, LoadError> {
    if let Some(e) = list
        .non_object
        .take()
        .or(list.record.take())
        .or(list.beyond.take())
    {
        return Err(e);
    }
    Ok(list)
}

/// Is this `.json` file really JSONL? Yes when its first line is one complete JSON
/// object and the next non-blank content starts another object.
fn sniff_jsonl(input: &mut Input<'_>) -> Result<bool, LoadError> {
    const MAX_FIRST_LINE: usize = 8 << 20;
    loop {
        let data = input.data();
        if let Some(nl) = data.iter().position(|&b| b == b'\n') {
            let mut tape = Tape::default();
            let Ok(n) = tape.parse_value(&data[..nl], 0, true) else {
                return Ok(false);
            };
            if skip_ws(&data[..nl], n) != nl {
                return Ok(false);
            }
            // Look past the newline for the next non-blank byte.
            let mut from = nl + 1;
            loop {
                let data = input.data();
                let i = skip_ws(data, from);
                if i < data.len() {
                    return Ok(data[i] == b'{');
                }
                from = i;
                if !input.fill()? {
                    return Ok(false);
                }
            }
        }
        if data.len() > MAX_FIRST_LINE || !input.fill()? {
            return Ok(false);
        }
    }
}

/// The candidates for the events list: the last value of each key wins.
enum Candidate {
    List(Box<ListOutcome>),
    NotAList,
}

fn parse_object_document(
    input: &mut Input<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
) -> Result<ParsedFile, LoadError> {
    const NAME: &str = "Expecting property name enclosed in double quotes";
    input.consume(1); // '{'
    let mut top = std::mem::take(&mut ctx.top);
    top.clear();
    let root = top.begin_object();
    let mut events: Option<Candidate> = None;
    let mut telemetry_events: Option<Candidate> = None;
    let mut first = true;
    loop {
        match peek_non_ws(input)? {
            Some(b'}') if first => {
                input.consume(1);
                break;
            }
            Some(b'"') => {}
            _ => return Err(syntax_here(input, NAME)),
        }
        first = false;
        let n = parse_value(input, &mut ctx.tape)?;
        let key = ctx.tape.bytes(ctx.tape.nodes[0]).to_vec();
        input.consume(n);
        if peek_non_ws(input)? != Some(b':') {
            return Err(syntax_here(input, "Expecting ':' delimiter"));
        }
        input.consume(1);
        let next = peek_non_ws(input)?;
        let tracked = key.as_slice() == b"telemetry_events";
        let slot = match key.as_slice() {
            b"events" => Some(&mut events),
            b"telemetry_events" => Some(&mut telemetry_events),
            _ => None,
        };
        match (slot, next) {
            (Some(slot), Some(b'[')) => {
                let list = stream_records(input, ctx, default_session_id, tracked)?;
                *slot = Some(Candidate::List(Box::new(list)));
            }
            (slot, _) => {
                let n = parse_value(input, &mut ctx.tape)?;
                input.consume(n);
                if let Some(slot) = slot {
                    *slot = Some(Candidate::NotAList);
                }
                top.push_key(&key);
                top.append_subtree(&ctx.tape, 0);
            }
        }
        match peek_non_ws(input)? {
            Some(b'}') => {
                input.consume(1);
                break;
            }
            Some(b',') => {
                input.consume(1);
                if peek_non_ws(input)? != Some(b'"') {
                    return Err(syntax_here(input, NAME));
                }
            }
            _ => return Err(syntax_here(input, "Expecting ',' delimiter")),
        }
    }
    top.end_container(root);
    expect_end(input)?;
    let result = choose_records(
        input,
        ctx,
        &top,
        events,
        telemetry_events,
        default_session_id,
    );
    ctx.top = top;
    result
}

fn choose_records(
    input: &Input<'_>,
    ctx: &mut LoadCtx,
    top: &Tape,
    events: Option<Candidate>,
    telemetry_events: Option<Candidate>,
    default_session_id: &str,
) -> Result<ParsedFile, LoadError> {
    if let Some(Candidate::List(list)) = events {
        let list = take_list(*list)?;
        return Ok(ParsedFile {
            grouper: list.grouper,
            summaries: None,
        });
    }
    if let Some(Candidate::List(list)) = telemetry_events {
        if let Some(e) = list.non_object {
            return Err(e);
        }
        let summaries = match top.get(0, b"session_summary") {
            Some(idx) if matches!(top.nodes[idx], Node::Object { .. }) => {
                let summary = summary_from_json(top, idx).map_err(|m| {
                    let mut e = LoadError::new(LoadErrorKind::Session, input.name(), m);
                    e.field = Some("session_summary".to_string());
                    e
                })?;
                let matches = list
                    .raw_session_ids
                    .iter()
                    .all(|sid| sid.as_deref() == Some(summary.session_id.as_str()));
                if !matches {
                    let mut e = LoadError::new(
                        LoadErrorKind::Session,
                        input.name(),
                        "Tracker session summary does not match telemetry event identity",
                    );
                    e.field = Some("session_id".to_string());
                    return Err(e);
                }
                Some(vec![summary])
            }
            _ => None,
        };
        let list = take_list(*list)?;
        return Ok(ParsedFile {
            grouper: list.grouper,
            summaries,
        });
    }
    if looks_like_record(top, 0) {
        let mut sink = RecordSink::json(
            &mut ctx.strings,
            &mut ctx.sources,
            &mut ctx.phases,
            default_session_id,
            &mut ctx.cache,
        );
        let mut grouper = SessionGrouper::default();
        match convert_record(top, &mut sink) {
            Ok((event, extras)) => grouper.push(event, extras, &ctx.sources),
            Err(e) => return Err(record_error(input, e, Some(0), Some(1))),
        }
        return Ok(ParsedFile {
            grouper,
            summaries: None,
        });
    }
    Err(LoadError::new(
        LoadErrorKind::Shape,
        input.name(),
        "JSON payload does not contain telemetry events",
    ))
}

// ── JSONL ───────────────────────────────────────────────────────────────────

/// Bytes that may start one of Python's `str.splitlines()` line breaks:
/// \n \r \v \f \x1c \x1d \x1e, U+0085 (C2 85), U+2028/U+2029 (E2 80 A8/A9).
const LINE_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t[0x0b] = true;
    t[0x0c] = true;
    t[0x1c] = true;
    t[0x1d] = true;
    t[0x1e] = true;
    t[0xc2] = true;
    t[0xe2] = true;
    t
};

/// Finds the end of the first line of `data` (terminator included), or `None`
/// when more input is needed to know.
fn line_end(data: &[u8], eof: bool) -> Option<usize> {
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if !LINE_STOP[b as usize] {
            i += 1;
            continue;
        }
        match b {
            b'\r' => {
                return match data.get(i + 1) {
                    Some(b'\n') => Some(i + 2),
                    Some(_) => Some(i + 1),
                    None if eof => Some(i + 1),
                    None => None,
                };
            }
            0xc2 => {
                if data.get(i + 1) == Some(&0x85) {
                    return Some(i + 2);
                }
            }
            0xe2 => {
                if data.get(i + 1) == Some(&0x80) && matches!(data.get(i + 2), Some(0xa8 | 0xa9)) {
                    return Some(i + 3);
                }
            }
            _ => return Some(i + 1),
        }
        i += 1;
    }
    if eof {
        Some(data.len())
    } else {
        None
    }
}

/// Parses JSONL records from `input` into `grouper` (stormlog's `_load_jsonl_events`).
pub fn parse_jsonl(
    input: &mut Input<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
    grouper: &mut SessionGrouper,
) -> Result<(), LoadError> {
    let result = parse_jsonl_inner(input, ctx, default_session_id, grouper);
    finish(input, result)
}

fn parse_jsonl_inner(
    input: &mut Input<'_>,
    ctx: &mut LoadCtx,
    default_session_id: &str,
    grouper: &mut SessionGrouper,
) -> Result<(), LoadError> {
    let mut line_no: u64 = 0;
    let mut pending: Option<LoadError> = None;
    let mut beyond: Option<LoadError> = None;
    loop {
        let end = loop {
            if let Some(end) = line_end(input.data(), input.at_eof()) {
                break end;
            }
            input.fill()?;
        };
        if end == 0 {
            break; // end of input
        }
        line_no += 1;
        if let Some(e) = pending.take() {
            return Err(e); // the malformed line was not the last one
        }
        let line = &input.data()[..end];
        let blank = std::str::from_utf8(line)
            .map(|s| py_strip(s).is_empty())
            .unwrap_or(false);
        if !blank {
            match ctx.tape.parse_value(line, 0, true) {
                Ok(n) if skip_ws(line, n) == line.len() => {
                    if !matches!(ctx.tape.nodes[0], Node::Object { .. }) {
                        let mut e = LoadError::new(
                            LoadErrorKind::Shape,
                            input.name(),
                            format!(
                                "Telemetry record in {} at line {line_no} must be an object",
                                input.name()
                            ),
                        );
                        e.line = Some(line_no);
                        return Err(e);
                    }
                    let mut sink = RecordSink::json(
                        &mut ctx.strings,
                        &mut ctx.sources,
                        &mut ctx.phases,
                        default_session_id,
                        &mut ctx.cache,
                    );
                    match convert_record(&ctx.tape, &mut sink) {
                        Ok((event, extras)) => grouper.push(event, extras, &ctx.sources),
                        Err(e) if e.beyond_stormlog => {
                            // stormlog reads on: only its own errors outrank this one.
                            if beyond.is_none() {
                                beyond = Some(record_error(input, e, None, Some(line_no)));
                            }
                        }
                        Err(e) => return Err(record_error(input, e, None, Some(line_no))),
                    }
                }
                other => {
                    let (offset, detail) = match other {
                        Ok(n) => (skip_ws(line, n), "Extra data"),
                        Err(ParseError::Syntax { offset, message }) => (offset, message),
                        Err(ParseError::Incomplete) => (line.len(), "Expecting value"),
                    };
                    let column = std::str::from_utf8(&line[..offset.min(line.len())])
                        .map(|s| s.chars().count() as u64 + 1)
                        .unwrap_or(1);
                    let mut e = LoadError::new(
                        LoadErrorKind::Syntax,
                        input.name(),
                        format!(
                            "Malformed telemetry JSONL record in {} at line {line_no} ({} column {column})",
                            input.name(),
                            if detail.ends_with(" at") { detail.to_string() } else { format!("{detail} at") }
                        ),
                    );
                    e.line = Some(line_no);
                    e.column = Some(u32::try_from(column).unwrap_or(u32::MAX));
                    if line.ends_with(b"\n") {
                        return Err(e);
                    }
                    // Tolerated only if this turns out to be the last line (a cut write).
                    pending = Some(e);
                }
            }
        }
        input.consume(end);
    }
    match beyond {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

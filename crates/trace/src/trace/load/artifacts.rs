//! What only the TUI reads: CSV exports and `telemetry_timeline.json` files, their
//! sessions and warnings, and the rank allocator their events register with.

use super::*;

impl Loader<'_> {
    /// `_load_artifact_file`: a CSV as the TUI reads it; JSON as telemetry, and a
    /// `telemetry_timeline.json` that is not telemetry as a timeline. The events of
    /// what loaded register their ranks with the timeline allocator.
    pub(super) fn load_artifact_file(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let name = file_name(path).to_string();
        let is_file = self.fs.kind(path) == PathKind::File;
        if is_file && is_csv_name(&name) {
            let sessions = self.load_csv_file(path)?;
            self.register(&sessions);
            return Ok(sessions);
        }
        match self.load_sessions(path) {
            Ok(sessions) => {
                self.register(&sessions);
                Ok(sessions)
            }
            Err(_) if is_file && is_timeline_name(&name) => self.load_timeline(path),
            Err(e) => Err(e),
        }
    }

    pub(super) fn register(&mut self, sessions: &[Session]) {
        for s in sessions {
            let events = Events::new(&s.events, &self.ctx.sources);
            self.allocator.register_events(events);
        }
    }

    /// `_load_csv_sessions`.
    pub(super) fn load_csv_file(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let fs = self.fs;
        let resolved = fs.resolve(path);
        let default_id = stable_legacy_session_id(&[&resolved, "csv"]);
        let mut input = open_input(
            fs,
            path,
            &mut *self.progress,
            &mut self.file_index,
            self.file_count,
        )?;
        let mut target = CsvTarget {
            strings: &mut self.ctx.strings,
            sources: &mut self.ctx.sources,
            phases: &mut self.ctx.phases,
            default_session_id: &default_id,
            resolved: &resolved,
        };
        let loaded = load_csv(&mut input, &mut target)?;
        drop(input);
        self.warnings.extend(loaded.warnings);
        Ok(tui_sessions_from_events(
            loaded.events,
            &mut self.ctx.strings,
            &self.ctx.sources,
            &resolved,
            None,
        ))
    }

    /// `_synthesize_sessions_from_timeline`.
    pub(super) fn load_timeline(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let fs = self.fs;
        let input = open_input(
            fs,
            path,
            &mut *self.progress,
            &mut self.file_index,
            self.file_count,
        );
        let mut target = TimelineTarget {
            strings: &mut self.ctx.strings,
            sources: &mut self.ctx.sources,
            phases: &mut self.ctx.phases,
            allocator: &mut self.allocator,
        };
        match synthesize(fs, path, input, &mut target)? {
            Timeline::Skipped(warning) => {
                self.warnings.push(warning);
                Ok(Vec::new())
            }
            Timeline::Synthesized(synthesized) => {
                let Synthesized {
                    events,
                    summary,
                    warning,
                } = *synthesized;
                self.warnings.push(warning);
                Ok(tui_sessions_from_events(
                    events,
                    &mut self.ctx.strings,
                    &self.ctx.sources,
                    &fs.resolve(path),
                    Some(summary),
                ))
            }
        }
    }
}

/// `_load_sessions_from_events`: events grouped by session in first-seen order,
/// each group deduplicated and stably sorted by time; its summary is `summary` when
/// the ids match, else built from the first event (completed only when the LAST
/// event is a `stop`; unlike `infer_summary`, an earlier `stop` does not count).
fn tui_sessions_from_events(
    events: Vec<(Event, RecordExtras)>,
    strings: &mut Strings,
    sources: &Sources,
    source_path: &str,
    summary: Option<SessionSummary>,
) -> Vec<Session> {
    let mut groups: Vec<(StrId, Vec<(Event, RecordExtras)>)> = Vec::new();
    for pair in events {
        match groups.iter_mut().find(|(id, _)| *id == pair.0.session) {
            Some((_, list)) => list.push(pair),
            None => groups.push((pair.0.session, vec![pair])),
        }
    }
    let empty = strings.intern("");
    let name = file_name(source_path).to_string();
    let mut sessions = Vec::with_capacity(groups.len());
    for (id, list) in groups {
        let mut seen = HashSet::with_capacity(list.len());
        let mut list: Vec<(Event, RecordExtras)> = list
            .into_iter()
            .filter(|(e, _)| seen.insert(dedupe_key(e, sources, empty)))
            .collect();
        list.sort_by_key(|(e, _)| e.timestamp_ns); // stable
        let session_id = strings.str(id).to_string();
        let summary = match summary.as_ref().filter(|s| s.session_id == session_id) {
            Some(s) => s.clone(),
            None => {
                let Some((first, extras)) = list.first() else {
                    continue;
                };
                let source = sources.of(first);
                let last_stop = list
                    .last()
                    .filter(|(e, _)| sources.of(e).is_stop())
                    .map(|(e, _)| e.timestamp_ns);
                SessionSummary {
                    session_id,
                    status: if last_stop.is_some() {
                        SessionStatus::Completed
                    } else {
                        SessionStatus::Incomplete
                    },
                    started_at_ns: i128::from(first.timestamp_ns),
                    ended_at_ns: last_stop.map(i128::from),
                    host: strings.str(extras.host).to_string(),
                    pid: extras.pid,
                    job_id: strings.get(extras.job_id).map(str::to_string),
                    rank: i128::from(source.rank),
                    local_rank: i128::from(source.local_rank),
                    world_size: i128::from(source.world_size.max(1)),
                    source: format!("artifact:{name}"),
                }
            }
        };
        sessions.push(Session {
            summary,
            events: list.into_iter().map(|(e, _)| e).collect(),
            sources: vec![source_path.to_string()],
            synthetic: false,
        });
    }
    sessions
}

/// `_accumulate_loaded_sessions`: same-id sessions merge (the better summary wins).
pub(super) fn accumulate(accumulated: &mut Vec<Session>, sessions: Vec<Session>) {
    for s in sessions {
        match accumulated
            .iter_mut()
            .find(|a| a.summary.session_id == s.summary.session_id)
        {
            Some(a) => {
                if s.summary.selection_key() < a.summary.selection_key() {
                    a.summary = s.summary;
                }
                a.events.extend(s.events);
                a.sources.extend(s.sources);
            }
            None => accumulated.push(s),
        }
    }
}

/// Events stably sorted by timestamp, in place: sorts (time, position) keys, then
/// follows the permutation's cycles, so each event moves once and no second copy of
/// the events is ever held (16 bytes of key per event instead).
pub(super) fn sort_by_time(mut events: Vec<Event>) -> Vec<Event> {
    if events
        .windows(2)
        .all(|w| w[0].timestamp_ns <= w[1].timestamp_ns)
    {
        return events;
    }
    let mut keys: Vec<(i64, u32)> = events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.timestamp_ns, i as u32))
        .collect();
    // The position breaks ties, so an unstable sort keeps equal times in input order.
    keys.sort_unstable();
    // keys[i].1 is where position i's event comes from; DONE marks filled positions.
    const DONE: u32 = u32::MAX;
    for start in 0..keys.len() {
        if keys[start].1 == DONE || keys[start].1 as usize == start {
            continue;
        }
        let held = events[start];
        let mut at = start;
        loop {
            let from = keys[at].1 as usize;
            keys[at].1 = DONE;
            if from == start {
                events[at] = held;
                break;
            }
            events[at] = events[from];
            at = from;
        }
    }
    events
}

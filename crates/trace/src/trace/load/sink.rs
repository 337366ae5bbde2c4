//! One telemetry input the way `load_telemetry_sessions` reads it: a JSON or JSONL file,
//! a telemetry-sink folder (its segments and `manifest.json`), the sessions assembled
//! and summarised as stormlog does.

use super::*;

/// A sink manifest (`read_telemetry_sink_manifest`); `None` when unreadable.
pub(super) fn read_manifest(fs: &dyn TraceFs, path: &str) -> Option<Manifest> {
    let mut reader = fs.open(path).ok()?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).ok()?;
    let mut tape = Tape::default();
    let n = tape.parse_value(&bytes, 0, true).ok()?;
    if crate::json::skip_ws(&bytes, n) != bytes.len()
        || !matches!(tape.nodes[0], Node::Object { .. })
    {
        return None;
    }
    // schema_version: int(x) with default 1; below 1 counts as 1.
    let schema_version = match tape.get(0, b"schema_version") {
        Some(i) => super::super::session::py_int(&tape, i)
            .filter(|v| *v >= 1)
            .unwrap_or(1),
        None => 1,
    };
    let mut manifest = Manifest::default();
    if schema_version >= 2 {
        if let Some(list) = tape
            .get(0, b"sessions")
            .filter(|&i| matches!(tape.nodes[i], Node::Array { .. }))
        {
            for entry in tape.elements(list) {
                if let Ok(summary) = summary_from_json(&tape, entry) {
                    manifest.sessions.push(summary);
                }
            }
        }
    }
    if let Some(list) = tape
        .get(0, b"segments")
        .filter(|&i| matches!(tape.nodes[i], Node::Array { .. }))
    {
        for entry in tape.elements(list) {
            if !matches!(tape.nodes[entry], Node::Object { .. }) {
                continue;
            }
            let Some(filename) = tape
                .get(entry, b"filename")
                .map(|i| tape.nodes[i])
                .filter(|n| matches!(n, Node::Str { .. }))
            else {
                continue;
            };
            let session = match tape.get(entry, b"session_id").map(|i| tape.nodes[i]) {
                Some(n @ Node::Str { .. }) => Some(tape.text_of(n).into_owned()),
                _ => None,
            };
            manifest
                .segments
                .push((tape.text_of(filename).into_owned(), session));
        }
    }
    Some(manifest)
}

/// Manifest segments that exist plus discovered `segment-*.jsonl`, by name.
pub(super) fn segment_paths(
    fs: &dyn TraceFs,
    dir: &str,
    manifest: Option<&Manifest>,
) -> Vec<String> {
    let mut by_name: Vec<(String, String)> = fs
        .list_dir(dir)
        .into_iter()
        .filter(|p| is_segment_name(file_name(p)) && fs.kind(p) == PathKind::File)
        .map(|p| (file_name(&p).to_string(), p))
        .collect();
    if let Some(m) = manifest {
        for (filename, _) in &m.segments {
            let p = join(dir, filename);
            if fs.kind(&p) == PathKind::File && !by_name.iter().any(|(n, _)| n == filename) {
                by_name.push((filename.clone(), p));
            }
        }
    }
    by_name.sort();
    by_name.into_iter().map(|(_, p)| p).collect()
}

impl Loader<'_> {
    pub(super) fn load_sink(
        &mut self,
        resolved_input: &str,
        segments: &[String],
        manifest: Option<Manifest>,
    ) -> Result<Vec<Session>, LoadError> {
        let manifest = manifest.unwrap_or_default();
        let fallback = stable_legacy_session_id(&[resolved_input, "sink"]);
        let mut grouper = SessionGrouper::default();
        let mut sources: HashMap<StrId, Vec<String>> = HashMap::new();
        for segment in segments {
            let name = file_name(segment).to_string();
            let hint = manifest
                .segments
                .iter()
                .find(|(f, _)| *f == name)
                .and_then(|(_, s)| s.clone())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| fallback.clone());
            let before: Vec<usize> = grouper.sessions.iter().map(|s| s.events.len()).collect();
            if !self.try_parallel(segment, Layout::Jsonl, &hint, &mut grouper) {
                let mut input = open_input(
                    self.fs,
                    segment,
                    &mut *self.progress,
                    &mut self.file_index,
                    self.file_count,
                )?;
                parse_jsonl(&mut input, &mut self.ctx, &hint, &mut grouper)?;
                drop(input);
            }
            let resolved_segment = self.fs.resolve(segment);
            for (i, s) in grouper.sessions.iter().enumerate() {
                if s.events.len() > before.get(i).copied().unwrap_or(0) {
                    sources
                        .entry(s.session)
                        .or_default()
                        .push(resolved_segment.clone());
                }
            }
        }
        let name = file_name(resolved_input).to_string();
        let mut sessions = self.assemble(grouper, manifest.sessions, &name, &[]);
        for s in &mut sessions {
            let id = self.ctx.strings.intern(&s.summary.session_id);
            if let Some(list) = sources.remove(&id) {
                let mut list = list;
                list.sort();
                list.dedup();
                s.sources = list;
            }
        }
        Ok(sessions)
    }
}

impl Loader<'_> {
    /// `_assemble_loaded_sessions`: grouped events plus manifest/tracker summaries,
    /// each session sorted by time, all sessions in selection order.
    pub(super) fn assemble(
        &mut self,
        grouper: SessionGrouper,
        summaries: Vec<SessionSummary>,
        name: &str,
        sources: &[String],
    ) -> Vec<Session> {
        let mut sessions: Vec<Session> = Vec::new();
        for group in grouper.sessions {
            let id = self.ctx.strings.str(group.session).to_string();
            let summary = match summaries.iter().find(|s| s.session_id == id) {
                Some(s) => s.clone(),
                None => self.infer_summary(&group, name),
            };
            let events = sort_by_time(group.events);
            sessions.push(Session {
                summary,
                events,
                sources: sources.to_vec(),
                synthetic: false,
            });
        }
        for summary in summaries {
            if !sessions
                .iter()
                .any(|s| s.summary.session_id == summary.session_id)
            {
                sessions.push(Session {
                    summary,
                    events: Vec::new(),
                    sources: sources.to_vec(),
                    synthetic: false,
                });
            }
        }
        sort_by_selection(&mut sessions, |s| &s.summary);
        sessions
    }

    /// `infer_session_summary_from_events` (fallback status: incomplete).
    pub(super) fn infer_summary(&self, group: &SessionEvents, name: &str) -> SessionSummary {
        let strings = &self.ctx.strings;
        let Some((first, extras)) = group.first else {
            // A group always holds at least one event; keep a harmless default anyway.
            return SessionSummary {
                session_id: strings.str(group.session).to_string(),
                status: SessionStatus::Incomplete,
                started_at_ns: 0,
                ended_at_ns: None,
                host: "unknown".to_string(),
                pid: -1,
                job_id: None,
                rank: 0,
                local_rank: 0,
                world_size: 1,
                source: format!("artifact:{name}"),
            };
        };
        let source = self.ctx.sources.of(&first);
        let (status, ended) = match group.last_stop_ns {
            Some(t) => (SessionStatus::Completed, Some(i128::from(t))),
            None => (SessionStatus::Incomplete, None),
        };
        SessionSummary {
            session_id: strings.str(group.session).to_string(),
            status,
            started_at_ns: i128::from(first.timestamp_ns),
            ended_at_ns: ended,
            host: strings.str(extras.host).to_string(),
            pid: extras.pid,
            job_id: strings.get(extras.job_id).map(str::to_string),
            rank: i128::from(source.rank),
            local_rank: i128::from(source.local_rank),
            world_size: i128::from(source.world_size.max(1)),
            source: format!("artifact:{name}"),
        }
    }
}

/// Opens `path` as a streamed [`Input`] reporting progress.
pub(super) fn open_input<'p>(
    fs: &'p dyn TraceFs,
    path: &str,
    progress: &'p mut dyn FnMut(&LoadProgress),
    file_index: &mut usize,
    file_count: usize,
) -> Result<Input<'p>, LoadError> {
    let name = file_name(path).to_string();
    let source = fs.open(path).map_err(|e| {
        LoadError::new(LoadErrorKind::Io, &name, format!("cannot open {path}: {e}"))
    })?;
    let report = LoadProgress {
        file: name.clone(),
        file_index: *file_index,
        file_count: file_count.max(*file_index + 1),
        file_done_bytes: 0,
        file_total_bytes: fs.size(path).unwrap_or(0),
    };
    *file_index += 1;
    progress(&report);
    let callback = Box::new(move |done: u64| {
        let mut r = report.clone();
        r.file_done_bytes = done;
        progress(&r);
    });
    Input::new(&name, source, Some(callback))
}

//! Several inputs: the TUI's distributed loader (`load_distributed_artifacts`):
//! per-rank files sharing a `job_id` merged into one synthetic session, duplicates
//! dropped as `_dedupe_events` does.

use super::*;

// ── Several inputs: the TUI's distributed loader ───────────────────────────

/// What `_dedupe_events` compares: (session, time, rank, local rank, world size,
/// type, allocated, reserved, used, context-or-""); `empty` is the id of "".
type DedupeKey = (
    StrId,
    i64,
    i64,
    i64,
    i64,
    StrId,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    StrId,
);

pub(super) fn dedupe_key(e: &Event, sources: &Sources, empty: StrId) -> DedupeKey {
    let context = if e.context == NO_STR {
        empty
    } else {
        e.context
    };
    let source = sources.of(e);
    (
        e.session,
        e.timestamp_ns,
        source.rank,
        source.local_rank,
        source.world_size,
        source.event_type,
        e.allocator_allocated_bytes(),
        e.allocator_reserved_bytes(),
        e.device_used_bytes(),
        context,
    )
}

/// `_dedupe_events`: drop repeats, keeping the first.
fn dedupe(events: Vec<Event>, strings: &mut Strings, sources: &Sources) -> Vec<Event> {
    let empty = strings.intern("");
    let mut seen = HashSet::with_capacity(events.len());
    events
        .into_iter()
        .filter(|e| seen.insert(dedupe_key(e, sources, empty)))
        .collect()
}

/// The lifecycle of merged summaries (`_create_merged_session_summary`).
fn merged_summary(summaries: &[&SessionSummary], session_id: &str, source: &str) -> SessionSummary {
    let all_completed = summaries
        .iter()
        .all(|s| s.status == SessionStatus::Completed);
    let ended = if all_completed {
        summaries.iter().filter_map(|s| s.ended_at_ns).max()
    } else {
        None
    };
    let common = |values: Vec<Option<&str>>| -> Option<String> {
        let mut distinct: Vec<&str> = values.into_iter().flatten().collect();
        distinct.sort();
        distinct.dedup();
        (distinct.len() == 1).then(|| distinct[0].to_string())
    };
    let pids: HashSet<i128> = summaries.iter().map(|s| s.pid).collect();
    SessionSummary {
        session_id: session_id.to_string(),
        status: if all_completed {
            SessionStatus::Completed
        } else {
            SessionStatus::Incomplete
        },
        started_at_ns: summaries.iter().map(|s| s.started_at_ns).min().unwrap_or(0),
        ended_at_ns: ended,
        host: common(summaries.iter().map(|s| Some(s.host.as_str())).collect())
            .unwrap_or_else(|| "multiple".to_string()),
        pid: if pids.len() == 1 {
            summaries.first().map(|s| s.pid).unwrap_or(-1)
        } else {
            -1
        },
        job_id: common(summaries.iter().map(|s| s.job_id.as_deref()).collect()),
        rank: summaries.iter().map(|s| s.rank).min().unwrap_or(0),
        local_rank: summaries.iter().map(|s| s.local_rank).min().unwrap_or(0),
        world_size: summaries
            .iter()
            .map(|s| s.world_size)
            .max()
            .unwrap_or(1)
            .max(1),
        source: source.to_string(),
    }
}

/// `_merge_loaded_session_group`: one session from several, under a new id.
fn merge_group(
    group: &[&Session],
    session_id: &str,
    source: &str,
    strings: &mut Strings,
    sources: &Sources,
) -> Session {
    let id = strings.intern(session_id);
    let events: Vec<Event> = group
        .iter()
        .flat_map(|s| s.events.iter())
        .map(|e| {
            let mut e = *e;
            e.session = id;
            e
        })
        .collect();
    let events = sort_by_time(dedupe(events, strings, sources));
    let mut sources: Vec<String> = group
        .iter()
        .flat_map(|s| s.sources.iter().cloned())
        .collect();
    sources.sort();
    sources.dedup();
    let summaries: Vec<&SessionSummary> = group.iter().map(|s| &s.summary).collect();
    Session {
        summary: merged_summary(&summaries, session_id, source),
        events,
        sources,
        synthetic: true,
    }
}

/// What the inputs of a distributed load gave, before their sessions are finalized.
#[derive(Default)]
struct GatheredInputs {
    /// Sessions by id, merged as they came, in first-seen order.
    accumulated: Vec<Session>,
    /// The sessions of legacy flat files (`_is_legacy_sessionless_flat_file`), merged
    /// into one session afterwards.
    legacy_flat: Vec<Session>,
    /// Ids of the sessions that were alone in their input (the only candidates for a
    /// rank group).
    single_session_ids: HashSet<String>,
}

/// `(job id, world size)` of a rank group, and its members' positions in the sessions.
type RankGroup = ((String, i128), Vec<usize>);

impl Loader<'_> {
    /// The sessions of several inputs, and stormlog's default among them (a
    /// synthesized distributed session first). Failed inputs land in `errors`.
    pub(super) fn load_distributed(
        &mut self,
        inputs: &[ArtifactInput],
        errors: &mut Vec<LoadError>,
    ) -> (Vec<Session>, Option<usize>) {
        let GatheredInputs {
            mut accumulated,
            legacy_flat,
            single_session_ids,
        } = self.gather_inputs(inputs, errors);
        if !legacy_flat.is_empty() {
            let merged = self.merge_legacy_flat(&legacy_flat);
            accumulate(&mut accumulated, vec![merged]);
        }
        let mut sessions = self.finalize_sessions(accumulated);

        // _synthesize_distributed_sessions
        let groups = rank_groups(&sessions, &single_session_ids);
        let synthetic = self.synthesize_rank_groups(&sessions, &groups);
        let synthetic_ids: HashSet<String> = synthetic
            .iter()
            .map(|s| s.summary.session_id.clone())
            .collect();
        if !synthetic.is_empty() {
            sessions.extend(synthetic);
            sort_by_selection(&mut sessions, |s| &s.summary);
        }
        let default = if synthetic_ids.is_empty() {
            select_default(&sessions, |_| true)
        } else {
            select_default(&sessions, |s| synthetic_ids.contains(&s.summary.session_id))
        };
        (sessions, default)
    }

    /// Loads every input in order: legacy flat files' sessions apart, the others
    /// accumulated by id. A folder's legacy flat files are merged into one session
    /// when its files end (`_load_artifact_directory`), apart from the legacy flat
    /// files given as paths, which are merged at the end. Failed inputs land in
    /// `errors`.
    fn gather_inputs(
        &mut self,
        inputs: &[ArtifactInput],
        errors: &mut Vec<LoadError>,
    ) -> GatheredInputs {
        let mut gathered = GatheredInputs::default();
        let mut folder: Option<usize> = None;
        let mut folder_legacy: Vec<Session> = Vec::new();
        for input in inputs {
            if input.folder != folder {
                self.flush_folder_legacy(&mut gathered, &mut folder_legacy);
                folder = input.folder;
            }
            let path = &input.path;
            let loaded = if input.timeline {
                self.load_timeline(path)
            } else {
                self.load_artifact_file(path)
            };
            let sessions = match loaded {
                Ok(s) => s,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            if self.is_legacy_flat_file(input, &sessions) {
                if input.folder.is_some() {
                    folder_legacy.extend(sessions);
                } else {
                    gathered.legacy_flat.extend(sessions);
                }
                continue;
            }
            if sessions.len() == 1 {
                gathered
                    .single_session_ids
                    .insert(sessions[0].summary.session_id.clone());
            }
            accumulate(&mut gathered.accumulated, sessions);
        }
        self.flush_folder_legacy(&mut gathered, &mut folder_legacy);
        gathered
    }

    /// The legacy flat files of the folder whose files just ended, merged into one
    /// session and accumulated (as the folder's own sessions are).
    fn flush_folder_legacy(&mut self, gathered: &mut GatheredInputs, legacy: &mut Vec<Session>) {
        if !legacy.is_empty() {
            let merged = self.merge_legacy_flat(legacy);
            legacy.clear();
            accumulate(&mut gathered.accumulated, vec![merged]);
        }
    }

    /// `_is_legacy_sessionless_flat_file`: a JSON/JSONL/CSV file whose sessions all
    /// have its legacy id (not for a folder's timelines, which the TUI accumulates
    /// directly).
    fn is_legacy_flat_file(&self, input: &ArtifactInput, sessions: &[Session]) -> bool {
        let path = &input.path;
        let name = logical_name(file_name(path)).to_ascii_lowercase();
        let kind = if name.ends_with(".csv") {
            "csv"
        } else {
            "json"
        };
        let legacy_id = stable_legacy_session_id(&[&self.fs.resolve(path), kind]);
        !input.timeline
            && self.fs.kind(path) == PathKind::File
            && (name.ends_with(".json") || name.ends_with(".jsonl") || name.ends_with(".csv"))
            && !sessions.is_empty()
            && sessions.iter().all(|s| s.summary.session_id == legacy_id)
    }

    /// The legacy flat files' sessions merged into one (not synthetic), under an id
    /// made from their sources.
    fn merge_legacy_flat(&mut self, legacy_flat: &[Session]) -> Session {
        let mut sources: Vec<String> = legacy_flat
            .iter()
            .flat_map(|s| s.sources.iter().cloned())
            .collect();
        sources.sort();
        sources.dedup();
        let mut parts: Vec<&str> = vec!["distributed.legacy"];
        parts.extend(sources.iter().map(String::as_str));
        let id = stable_legacy_session_id(&parts);
        let refs: Vec<&Session> = legacy_flat.iter().collect();
        let mut merged = merge_group(
            &refs,
            &id,
            "stormlog.diagnostics.legacy",
            &mut self.ctx.strings,
            &self.ctx.sources,
        );
        merged.synthetic = false;
        merged
    }

    /// `_finalize_loaded_sessions`: each session's events deduplicated and sorted by
    /// time, its sources sorted and unique; the sessions in selection order.
    fn finalize_sessions(&mut self, accumulated: Vec<Session>) -> Vec<Session> {
        let mut sessions: Vec<Session> = accumulated
            .into_iter()
            .map(|mut s| {
                let events = std::mem::take(&mut s.events);
                let events = sort_by_time(dedupe(events, &mut self.ctx.strings, &self.ctx.sources));
                s.events = events;
                s.sources.sort();
                s.sources.dedup();
                s
            })
            .collect();
        sort_by_selection(&mut sessions, |s| &s.summary);
        sessions
    }

    /// One synthetic session per rank group of more than one member, no more members
    /// than its world size and distinct ranks, under an id made from its members'.
    fn synthesize_rank_groups(
        &mut self,
        sessions: &[Session],
        groups: &[RankGroup],
    ) -> Vec<Session> {
        let mut synthetic: Vec<Session> = Vec::new();
        for ((job_id, world_size), members) in groups {
            if members.len() <= 1 || members.len() as i128 > *world_size {
                continue;
            }
            let ranks: HashSet<i128> = members.iter().map(|&i| sessions[i].summary.rank).collect();
            if ranks.len() != members.len() {
                continue;
            }
            let mut ids: Vec<&str> = members
                .iter()
                .map(|&i| sessions[i].summary.session_id.as_str())
                .collect();
            ids.sort();
            let ws = world_size.to_string();
            let mut parts: Vec<&str> = vec!["distributed.rank_group", job_id, &ws];
            parts.extend(ids);
            let id = stable_legacy_session_id(&parts);
            let refs: Vec<&Session> = members.iter().map(|&i| &sessions[i]).collect();
            synthetic.push(merge_group(
                &refs,
                &id,
                "stormlog.diagnostics.distributed",
                &mut self.ctx.strings,
                &self.ctx.sources,
            ));
        }
        synthetic
    }
}

/// The candidates of `_synthesize_distributed_sessions`, grouped by (job id, world
/// size) in first-seen order: sessions alone in their input, with a job id, a world
/// size above 1 and events.
fn rank_groups(sessions: &[Session], single_session_ids: &HashSet<String>) -> Vec<RankGroup> {
    let mut groups: Vec<RankGroup> = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        let sum = &s.summary;
        let Some(job_id) = &sum.job_id else { continue };
        if !single_session_ids.contains(&sum.session_id)
            || sum.world_size <= 1
            || s.events.is_empty()
        {
            continue;
        }
        let key = (job_id.clone(), sum.world_size);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups
}

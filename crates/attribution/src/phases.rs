//! Phase replay, as stormlog's `phases.replay.PhaseReplayIndex` and
//! `phases.policy.attribute_active_spans`: `phase_enter`/`phase_exit` events
//! become spans per (session, rank), and a timestamp resolves to the phase path
//! active there (or an honest "ambiguous").

use serde::Serialize;

use crate::trace::event::{Event, Events, StrId};
pub use crate::trace::phase_boundary::PhaseBoundary;

/// A reconstructed phase interval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseSpan {
    pub thread_id: i64,
    pub thread_name: String,
    pub scope_id: String,
    pub path: Vec<String>,
    pub start_ns: i64,
    pub end_ns: i64,
    pub sequence: i64,
}

impl PhaseSpan {
    fn label(&self) -> String {
        format_phase_path(&self.path)
    }
}

/// `format_phase_path`: parts joined by " / ".
pub fn format_phase_path(path: &[String]) -> String {
    path.iter()
        .filter(|p| !p.is_empty())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" / ")
}

/// A heuristic winner shown when the attribution stays ambiguous.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhaseSummary {
    pub phase_path: String,
    pub source: String,
}

/// stormlog's `PhaseAttribution`, serialized like `phase_attribution_to_payload`
/// (optional fields are left out when absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhaseAttribution {
    pub phase_resolution: String,
    pub phase_paths: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_summary: Option<PhaseSummary>,
}

impl PhaseAttribution {
    fn ambiguous(
        phase_paths: Vec<String>,
        phase_summary: Option<PhaseSummary>,
    ) -> PhaseAttribution {
        PhaseAttribution {
            phase_resolution: "ambiguous".to_string(),
            phase_paths,
            phase_source: None,
            phase_path: None,
            scope_id: None,
            thread_id: None,
            thread_name: None,
            phase_summary,
        }
    }

    fn unique(span: &PhaseSpan, source: &str) -> PhaseAttribution {
        let path = span.label();
        PhaseAttribution {
            phase_resolution: "unique".to_string(),
            phase_paths: vec![path.clone()],
            phase_source: Some(source.to_string()),
            phase_path: Some(path),
            scope_id: Some(span.scope_id.clone()),
            thread_id: Some(span.thread_id),
            thread_name: Some(span.thread_name.clone()),
            phase_summary: None,
        }
    }

    fn paths(&self) -> Vec<String> {
        if !self.phase_paths.is_empty() {
            return self
                .phase_paths
                .iter()
                .filter(|p| !p.is_empty())
                .cloned()
                .collect();
        }
        self.phase_path
            .iter()
            .filter(|p| !p.is_empty())
            .cloned()
            .collect()
    }
}

/// `merge_phase_attributions`: combine two candidates without inventing a unique path.
pub fn merge_phase_attributions(
    first: Option<PhaseAttribution>,
    second: Option<PhaseAttribution>,
) -> Option<PhaseAttribution> {
    let (first, second) = match (first, second) {
        (None, s) => return s,
        (f, None) => return f,
        (Some(f), Some(s)) => (f, s),
    };
    let first_paths = first.paths();
    let second_paths = second.paths();
    if first_paths.is_empty() {
        return Some(second);
    }
    if second_paths.is_empty() {
        return Some(first);
    }
    let mut merged: Vec<String> = first_paths.into_iter().chain(second_paths).collect();
    merged.sort();
    merged.dedup();
    if merged.len() == 1 {
        let same_scope = first.phase_resolution == "unique"
            && second.phase_resolution == "unique"
            && first.phase_path == second.phase_path
            && first.scope_id == second.scope_id
            && first.thread_id == second.thread_id;
        if same_scope {
            return Some(first);
        }
    }
    Some(PhaseAttribution::ambiguous(merged, None))
}

/// Spans per (session, rank), sorted by (start, end) like stormlog's index.
#[derive(Debug, Default, Clone)]
pub struct PhaseReplayIndex {
    groups: Vec<((StrId, i64), Vec<PhaseSpan>)>,
}

impl PhaseReplayIndex {
    /// `PhaseReplayIndex.from_events` over one session's events.
    pub fn from_events(events: Events<'_>, boundaries: &[PhaseBoundary]) -> PhaseReplayIndex {
        // Session end per (session, rank): the latest timestamp of any event.
        let mut session_end: Vec<((StrId, i64), i64)> = Vec::new();
        let mut records: Vec<(&Event, i64, &PhaseBoundary)> = Vec::new();
        for (event, source) in events.iter() {
            let key = (event.session, source.rank);
            match session_end.iter_mut().find(|(k, _)| *k == key) {
                Some((_, end)) => *end = (*end).max(event.timestamp_ns),
                None => session_end.push((key, event.timestamp_ns)),
            }
            if event.phase > 0 {
                if let Some(b) = boundaries.get(event.phase as usize - 1) {
                    records.push((event, source.rank, b));
                }
            }
        }
        // Sort by (session_id, rank, timestamp, sequence, scope_id); stable. Session
        // ids are compared as interned ids here: one index serves one session.
        records.sort_by(|(ea, ra, ba), (eb, rb, bb)| {
            (ea.session, ra, ea.timestamp_ns, ba.sequence)
                .cmp(&(eb.session, rb, eb.timestamp_ns, bb.sequence))
                .then_with(|| ba.scope_id.cmp(&bb.scope_id))
        });

        type ThreadKey = (StrId, i64, i64);
        // Open scopes per thread, in dict insertion order (a key emptied and
        // opened again moves to the end, as in Python).
        let mut active: Vec<(ThreadKey, Vec<(&Event, &PhaseBoundary)>)> = Vec::new();
        let mut groups: Vec<((StrId, i64), Vec<PhaseSpan>)> = Vec::new();
        let push_span = |groups: &mut Vec<((StrId, i64), Vec<PhaseSpan>)>,
                         key: (StrId, i64),
                         span: PhaseSpan| {
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, spans)) => spans.push(span),
                None => groups.push((key, vec![span])),
            }
        };
        for (event, rank, scope) in records {
            let thread_key = (event.session, rank, scope.thread_id);
            let pos = match active.iter().position(|(k, _)| *k == thread_key) {
                Some(p) => p,
                None => {
                    active.push((thread_key, Vec::new()));
                    active.len() - 1
                }
            };
            if scope.enter {
                active[pos].1.push((event, scope));
                continue;
            }
            let matches_top = active[pos]
                .1
                .last()
                .is_some_and(|(_, top)| top.scope_id == scope.scope_id);
            if !matches_top {
                continue;
            }
            let Some((opened_event, opened)) = active[pos].1.pop() else {
                continue;
            };
            if active[pos].1.is_empty() {
                active.remove(pos);
            }
            push_span(
                &mut groups,
                (event.session, rank),
                PhaseSpan {
                    thread_id: scope.thread_id,
                    thread_name: scope.thread_name.clone(),
                    scope_id: scope.scope_id.clone(),
                    path: opened.path.clone(),
                    start_ns: opened_event.timestamp_ns,
                    end_ns: event.timestamp_ns,
                    sequence: opened.sequence,
                },
            );
        }
        for ((session, rank, _thread), stack) in &active {
            let Some(&(_, end_ns)) = session_end.iter().find(|(k, _)| *k == (*session, *rank))
            else {
                continue;
            };
            for (opened_event, opened) in stack {
                push_span(
                    &mut groups,
                    (*session, *rank),
                    PhaseSpan {
                        thread_id: opened.thread_id,
                        thread_name: opened.thread_name.clone(),
                        scope_id: opened.scope_id.clone(),
                        path: opened.path.clone(),
                        start_ns: opened_event.timestamp_ns,
                        end_ns,
                        sequence: opened.sequence,
                    },
                );
            }
        }
        for (_, spans) in &mut groups {
            spans.sort_by_key(|s| (s.start_ns, s.end_ns));
        }
        PhaseReplayIndex { groups }
    }

    /// Every span of one (session, rank), in index order.
    pub fn spans(&self, session: StrId, rank: i64) -> &[PhaseSpan] {
        self.groups
            .iter()
            .find(|(k, _)| *k == (session, rank))
            .map(|(_, spans)| spans.as_slice())
            .unwrap_or(&[])
    }

    /// `resolve(timestamp_ns, session_id, rank)` with no origin hints.
    pub fn resolve(
        &self,
        timestamp_ns: i64,
        session: StrId,
        rank: i64,
    ) -> Option<PhaseAttribution> {
        let active: Vec<&PhaseSpan> = self
            .spans(session, rank)
            .iter()
            .filter(|s| s.start_ns <= timestamp_ns && timestamp_ns <= s.end_ns)
            .collect();
        attribute_active_spans(&active)
    }
}

/// `max(spans, key=(sequence, scope_id))`: the first of the maxima.
fn most_recent<'a>(spans: &[&'a PhaseSpan]) -> Option<&'a PhaseSpan> {
    let mut best: Option<&PhaseSpan> = None;
    for &s in spans {
        match best {
            Some(b) if (s.sequence, &s.scope_id) <= (b.sequence, &b.scope_id) => {}
            _ => best = Some(s),
        }
    }
    best
}

/// `attribute_active_spans` with the `deepest_per_thread` strategy and no origin.
fn attribute_active_spans(spans: &[&PhaseSpan]) -> Option<PhaseAttribution> {
    if spans.is_empty() {
        return None;
    }
    // Group by thread in order of first appearance.
    let mut by_thread: Vec<(i64, Vec<&PhaseSpan>)> = Vec::new();
    for &s in spans {
        match by_thread.iter_mut().find(|(t, _)| *t == s.thread_id) {
            Some((_, v)) => v.push(s),
            None => by_thread.push((s.thread_id, vec![s])),
        }
    }
    let mut matches: Vec<&PhaseSpan> = Vec::new();
    let mut ambiguous: Vec<String> = Vec::new();
    for (_, thread_spans) in &by_thread {
        let max_depth = thread_spans.iter().map(|s| s.path.len()).max().unwrap_or(0);
        let deepest: Vec<&PhaseSpan> = thread_spans
            .iter()
            .copied()
            .filter(|s| s.path.len() == max_depth)
            .collect();
        let mut labels: Vec<String> = deepest.iter().map(|s| s.label()).collect();
        labels.sort();
        labels.dedup();
        if labels.len() != 1 {
            ambiguous.extend(labels);
            continue;
        }
        if let Some(winner) = most_recent(&deepest) {
            matches.push(winner);
        }
    }
    if matches.is_empty() && ambiguous.is_empty() {
        return None;
    }
    if !ambiguous.is_empty() || matches.len() != 1 {
        let mut paths: Vec<String> = ambiguous
            .into_iter()
            .chain(matches.iter().map(|s| s.label()))
            .collect();
        paths.sort();
        paths.dedup();
        let summary = phase_summary(spans, &paths);
        return Some(PhaseAttribution::ambiguous(paths, summary));
    }
    Some(PhaseAttribution::unique(matches[0], "heuristic"))
}

fn phase_summary(spans: &[&PhaseSpan], paths: &[String]) -> Option<PhaseSummary> {
    let distinct = paths.iter().filter(|p| !p.is_empty()).count();
    if distinct <= 1 {
        return None;
    }
    let winner = most_recent(spans)?;
    let path = winner.label();
    if path.is_empty() {
        return None;
    }
    Some(PhaseSummary {
        phase_path: path,
        source: "heuristic".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(thread_id: i64, path: &[&str], sequence: i64, scope: &str) -> PhaseSpan {
        PhaseSpan {
            thread_id,
            thread_name: format!("thread-{thread_id}"),
            scope_id: scope.to_string(),
            path: path.iter().map(|p| p.to_string()).collect(),
            start_ns: 0,
            end_ns: 100,
            sequence,
        }
    }

    #[test]
    fn one_deepest_span_on_one_thread_is_unique() {
        let (outer, inner) = (
            span(1, &["train"], 1, "a"),
            span(1, &["train", "fwd"], 2, "b"),
        );
        let got = attribute_active_spans(&[&outer, &inner]).map(|a| a.phase_resolution);
        assert_eq!(got.as_deref(), Some("unique"));
        let got = attribute_active_spans(&[&outer, &inner]).and_then(|a| a.phase_path);
        assert_eq!(got.as_deref(), Some("train / fwd"));
    }

    #[test]
    fn threads_in_different_phases_are_ambiguous_with_the_most_recent_as_summary() {
        // Two threads, each in one deepest phase: no single answer.
        let fwd = span(1, &["train", "fwd"], 7, "s1");
        let bwd = span(2, &["train", "bwd"], 9, "s2");
        let got = attribute_active_spans(&[&fwd, &bwd]);
        assert_eq!(
            got,
            Some(PhaseAttribution::ambiguous(
                vec!["train / bwd".to_string(), "train / fwd".to_string()],
                Some(PhaseSummary {
                    phase_path: "train / bwd".to_string(),
                    source: "heuristic".to_string(),
                }),
            ))
        );
    }

    #[test]
    fn two_deepest_labels_on_one_thread_are_ambiguous() {
        // The same thread, two different deepest phases open: stormlog keeps both labels.
        let a = span(1, &["eval", "x"], 3, "s3");
        let b = span(1, &["eval", "y"], 2, "s4");
        let got = attribute_active_spans(&[&a, &b]);
        let got = got.map(|g| (g.phase_resolution, g.phase_paths, g.phase_summary));
        assert_eq!(
            got,
            Some((
                "ambiguous".to_string(),
                vec!["eval / x".to_string(), "eval / y".to_string()],
                Some(PhaseSummary {
                    phase_path: "eval / x".to_string(),
                    source: "heuristic".to_string(),
                }),
            ))
        );
        assert_eq!(attribute_active_spans(&[]), None);
    }

    #[test]
    fn merging_two_different_unique_phases_is_ambiguous_without_a_summary() {
        let a = PhaseAttribution::unique(&span(1, &["train", "fwd"], 1, "s1"), "heuristic");
        let b = PhaseAttribution::unique(&span(1, &["train", "bwd"], 2, "s2"), "heuristic");
        assert_eq!(
            merge_phase_attributions(Some(a.clone()), Some(b)),
            Some(PhaseAttribution::ambiguous(
                vec!["train / bwd".to_string(), "train / fwd".to_string()],
                None,
            ))
        );
        // The same scope twice stays unique; one side missing keeps the other.
        assert_eq!(
            merge_phase_attributions(Some(a.clone()), Some(a.clone())),
            Some(a.clone())
        );
        assert_eq!(merge_phase_attributions(None, Some(a.clone())), Some(a));
    }
}

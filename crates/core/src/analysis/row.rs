//! One attributed interval flattened for display: plain 64-bit times, reason codes as
//! strings and the phase as a [`PhaseLabel`]. This is what the page's table, detail
//! panel and timeline bands show, and what the worker sends it.

use serde::{Deserialize, Serialize};

use crate::attribution::{AttributionResult, Classification};
use crate::phases::PhaseAttribution;

/// Where an interval happened, as far as phase attribution can tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PhaseLabel {
    /// One phase path (`train / forward`).
    Unique(String),
    /// Several candidate paths; stormlog would not choose.
    Ambiguous(Vec<String>),
}

impl PhaseLabel {
    /// The label of a phase attribution: its path, its candidates when ambiguous, or
    /// `None` when no phase was active.
    pub fn of(attribution: &PhaseAttribution) -> Option<PhaseLabel> {
        match (
            &attribution.phase_path,
            attribution.phase_resolution.as_str(),
        ) {
            (Some(path), _) => Some(PhaseLabel::Unique(path.clone())),
            (None, "ambiguous") => Some(PhaseLabel::Ambiguous(attribution.phase_paths.clone())),
            _ => None,
        }
    }

    /// The one text every output uses: the path, or `(ambiguous) a | b`.
    pub fn label(&self) -> String {
        match self {
            PhaseLabel::Unique(path) => path.clone(),
            PhaseLabel::Ambiguous(paths) => format!("(ambiguous) {}", paths.join(" | ")),
        }
    }
}

/// The phase label of a result (`None` without phases or outside any phase).
pub fn phase_label(result: &AttributionResult) -> Option<PhaseLabel> {
    result
        .phase_attribution
        .as_ref()
        .and_then(Option::as_ref)
        .and_then(PhaseLabel::of)
}

/// One interval, flattened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRow {
    pub rank: i64,
    pub interval_start_ns: i64,
    pub interval_end_ns: i64,
    pub classification: Classification,
    /// Rounded to 3 places, as stormlog reports it.
    pub confidence: f64,
    pub reason_codes: Vec<String>,
    pub marker_hits: u64,
    pub synchronized_ranks: u64,
    pub expected_world_size: i64,
    pub synchrony_ratio: f64,
    pub peak_gap_bytes: i64,
    pub peak_gap_ratio: Option<f64>,
    pub robust_zscore: f64,
    /// With phases on: the phase the spike happened in.
    pub phase: Option<PhaseLabel>,
}

/// An `i128` time as `i64`, saturating (padding cannot push real times past `i64`).
fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

impl IntervalRow {
    pub fn from_result(result: &AttributionResult) -> IntervalRow {
        let e = &result.evidence;
        IntervalRow {
            rank: result.rank,
            interval_start_ns: saturate(result.interval_start_ns),
            interval_end_ns: saturate(result.interval_end_ns),
            classification: result.classification,
            confidence: result.confidence,
            reason_codes: result.reason_codes.iter().map(|r| r.to_string()).collect(),
            marker_hits: e.marker_hits,
            synchronized_ranks: e.synchronized_ranks,
            expected_world_size: e.expected_world_size,
            synchrony_ratio: e.synchrony_ratio,
            peak_gap_bytes: e.peak_gap_bytes,
            peak_gap_ratio: e.peak_gap_ratio,
            robust_zscore: e.robust_zscore,
            phase: phase_label(result),
        }
    }

    pub fn duration_ns(&self) -> i64 {
        self.interval_end_ns.saturating_sub(self.interval_start_ns)
    }
}

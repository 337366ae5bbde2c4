//! Collective-memory attribution: a faithful port of stormlog 0.4.3's
//! `collective_attribution.attribute_collective_memory`.
//!
//! Per rank, samples whose device-vs-allocator gap is both significant (bytes or
//! ratio) and a robust statistical outlier become spikes; markers near a spike
//! (collective tokens in event type, context or metadata) and spikes on other
//! ranks at the same time raise its confidence; confident spikes become padded
//! intervals, merged per rank.
//!
//! Parity notes (each one is a place where a naive port drifts):
//! - per-rank median/MAD (and the std fallback) are computed once per rank,
//!   exactly as numpy computes them (pairwise sums), not once per candidate;
//! - `robust_zscore` is rounded to 4 places *before* it feeds the score;
//! - the classification uses the unrounded confidence, while `min_confidence` is
//!   compared with the confidence rounded to 3 places;
//! - Python ints are exact: byte ratios use correctly rounded int division.

pub mod config;
mod reason;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use config::{
    AttributionConfig, FieldKind, FloatRule, OverrideField, OverrideId, OverrideValue, Preset,
    SettingsError, OVERRIDES, OVERRIDE_FIELDS,
};
pub use reason::ReasonCode;

use crate::clocks::EventClock;
use crate::phases::{merge_phase_attributions, PhaseAttribution, PhaseReplayIndex};
use crate::py::{int_true_div, numpy_mean, numpy_median_sorted, numpy_std_ddof1, py_round};
use crate::trace::event::{Event, Events, StrId};

/// How confident an interval is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    CollectiveSuspect,
    CollectiveLikely,
    CollectiveConfident,
}

impl Classification {
    /// From the most to the least confident.
    pub const ALL: [Classification; 3] = [
        Classification::CollectiveConfident,
        Classification::CollectiveLikely,
        Classification::CollectiveSuspect,
    ];

    /// The lowest confidence of each class (stormlog's fixed cut-offs); `min_confidence`
    /// of the settings decides what is reported at all.
    pub fn lower_bound(self) -> f64 {
        match self {
            Classification::CollectiveConfident => 0.8,
            Classification::CollectiveLikely => 0.6,
            Classification::CollectiveSuspect => 0.0,
        }
    }

    /// The name without its `collective_` prefix (`confident`, `likely`, `suspect`).
    pub fn short(self) -> &'static str {
        match self {
            Classification::CollectiveSuspect => "suspect",
            Classification::CollectiveLikely => "likely",
            Classification::CollectiveConfident => "confident",
        }
    }

    pub fn parse(name: &str) -> Option<Classification> {
        Classification::ALL
            .into_iter()
            .find(|c| c.as_str() == name || c.short() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Classification::CollectiveSuspect => "collective_suspect",
            Classification::CollectiveLikely => "collective_likely",
            Classification::CollectiveConfident => "collective_confident",
        }
    }

    /// stormlog's `>= 0.8` confident, `>= 0.6` likely, else suspect.
    fn from_confidence(confidence: f64) -> Classification {
        Classification::ALL
            .into_iter()
            .find(|c| confidence >= c.lower_bound())
            .unwrap_or(Classification::CollectiveSuspect)
    }
}

/// The evidence behind one interval (stormlog's field names and rounding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub marker_hits: u64,
    pub synchronized_ranks: u64,
    pub expected_world_size: i64,
    pub synchrony_ratio: f64,
    pub peak_gap_bytes: i64,
    pub peak_gap_ratio: Option<f64>,
    pub robust_zscore: f64,
}

/// One communication-attributed hidden-memory interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributionResult {
    pub rank: i64,
    pub interval_start_ns: i128,
    pub interval_end_ns: i128,
    pub classification: Classification,
    pub confidence: f64,
    pub reason_codes: Vec<ReasonCode>,
    pub evidence: Evidence,
    /// Present only when phase attribution was requested (`Some(None)` = no phase).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_attribution: Option<Option<PhaseAttribution>>,
}

/// A significant, outlying gap sample on one rank.
#[derive(Debug, Clone, PartialEq)]
struct Spike {
    rank: i64,
    session: StrId,
    timestamp_ns: i64,
    peak_gap_bytes: i64,
    peak_gap_ratio: Option<f64>,
    /// Already rounded to 4 places, as stormlog stores it.
    robust_zscore: f64,
    /// Marker timestamps within the marker window: (count, first, last).
    markers: Option<(u64, i64, i64)>,
}

/// Per-rank gap statistics, computed once.
struct GapStats {
    median: f64,
    mad: f64,
    /// (mean, std) for the fallback when MAD is 0; computed only then.
    fallback: Option<(f64, f64)>,
    count: usize,
}

impl GapStats {
    fn new(gaps: &[f64]) -> GapStats {
        let mut sorted = gaps.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = numpy_median_sorted(&sorted);
        let mut deviations: Vec<f64> = gaps.iter().map(|g| (g - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let mad = numpy_median_sorted(&deviations);
        let fallback = if mad > 0.0 {
            None
        } else {
            let std = if gaps.len() > 1 {
                numpy_std_ddof1(gaps)
            } else {
                0.0
            };
            Some((numpy_mean(gaps), std))
        };
        GapStats {
            median,
            mad,
            fallback,
            count: gaps.len(),
        }
    }

    /// `_robust_zscore(values, value)`.
    fn robust_zscore(&self, value: f64) -> f64 {
        if self.count < 3 {
            return 0.0;
        }
        if self.mad > 0.0 {
            return py_max0(0.6745 * (value - self.median) / self.mad);
        }
        match self.fallback {
            Some((mean, std)) if std > 0.0 => py_max0((value - mean) / std),
            _ => 0.0,
        }
    }
}

/// Python's `max(0.0, x)` (0.0 wins ties and NaN comparisons fail toward 0.0... as
/// `max` keeps the first argument unless a later one is strictly greater).
fn py_max0(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// Python's `min(1.0, x)`.
fn py_min1(x: f64) -> f64 {
    if x < 1.0 {
        x
    } else {
        1.0
    }
}

/// Attributes hidden-memory spikes in `events` (one session) to collectives.
/// With `phases`, each interval also carries its phase attribution.
pub fn attribute(
    session: Events<'_>,
    config: &AttributionConfig,
    phases: Option<&PhaseReplayIndex>,
) -> Vec<AttributionResult> {
    attribute_on_clock(session, config, phases, &EventClock::recorded())
}

/// [`attribute`] with every event's time read through `clock` (beyond stormlog: on
/// aligned clocks, without copying the events). The same as attributing the events
/// with their times replaced by `clock`'s.
pub fn attribute_on_clock(
    session: Events<'_>,
    config: &AttributionConfig,
    phases: Option<&PhaseReplayIndex>,
    clock: &EventClock<'_>,
) -> Vec<AttributionResult> {
    let events = session.list;
    if events.is_empty() {
        return Vec::new();
    }
    // stormlog takes sorted(events, key=timestamp_ns), stably, then each rank's events.
    // A stable sort keeps the order of any subset, so each rank's events of the sorted
    // list are that rank's events stably sorted: sorting per rank is the same (and
    // traces arrive sorted; events mapped onto aligned clocks are sorted per rank). The
    // ranks' order of first appearance differs, but no result depends on it (spikes
    // are counted across ranks by time, and results end sorted by rank and start).
    let (mut ranks, mut markers) = samples_by_rank(&session, events.iter(), clock);
    if ranks.is_empty() {
        return Vec::new();
    }
    for (_, samples) in &mut ranks {
        if !samples.windows(2).all(|w| clock.ts(w[0]) <= clock.ts(w[1])) {
            samples.sort_by_key(|e| clock.ts(e));
        }
    }
    for times in markers.values_mut() {
        if !times.is_sorted() {
            times.sort_unstable();
        }
    }

    let spikes_by_rank = detect_spikes(&ranks, &markers, config, clock);
    if spikes_by_rank.is_empty() {
        return Vec::new();
    }

    let expected_world_size = session
        .iter()
        .map(|(_, s)| s.world_size)
        .filter(|&w| w > 0)
        .max()
        .unwrap_or_else(|| {
            let mut distinct: Vec<i64> = session.iter().map(|(_, s)| s.rank).collect();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.len().max(1) as i64
        });
    let trace_start_ns = events.iter().map(|e| clock.ts(e)).min().unwrap_or(0).max(0);
    let synchrony = synchrony_counts(&spikes_by_rank, config.synchrony_window_ns);

    let mut results = Vec::new();
    for (spike, &synchronized) in spikes_by_rank.iter().flatten().zip(&synchrony) {
        if let Some(result) = score_spike(
            spike,
            synchronized,
            expected_world_size,
            trace_start_ns,
            config,
            phases,
        ) {
            if result.confidence >= config.min_confidence {
                results.push(result);
            }
        }
    }
    merge_rank_intervals(results)
}

/// Ranks with their samples, ranks in order of first appearance.
type RankSamples<'e> = Vec<(i64, Vec<&'e Event>)>;

/// Per rank, in order of first appearance, the samples with both counters; and per
/// rank the marker timestamps, both in the order of `ordered`.
fn samples_by_rank<'e>(
    session: &Events<'e>,
    ordered: impl Iterator<Item = &'e Event>,
    clock: &EventClock<'_>,
) -> (RankSamples<'e>, HashMap<i64, Vec<i64>>) {
    let mut markers: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut ranks: RankSamples<'e> = Vec::new();
    let mut rank_slot: HashMap<i64, usize> = HashMap::new();
    // The slot of each source's rank, once looked up (sources are few, events many).
    let mut source_slot: Vec<Option<usize>> = vec![None; session.sources.len()];
    for event in ordered {
        let source = session.source(event);
        if source.is_marker() {
            markers
                .entry(source.rank)
                .or_default()
                .push(clock.ts(event));
        }
        if !source.is_sample()
            || event.device_used_bytes().is_none()
            || event.allocator_reserved_bytes().is_none()
        {
            continue;
        }
        let cached = source_slot.get_mut(event.source as usize);
        let slot = match cached.as_deref() {
            Some(Some(slot)) => *slot,
            _ => {
                let slot = *rank_slot.entry(source.rank).or_insert_with(|| {
                    ranks.push((source.rank, Vec::new()));
                    ranks.len() - 1
                });
                if let Some(cached) = cached {
                    *cached = Some(slot);
                }
                slot
            }
        };
        ranks[slot].1.push(event);
    }
    (ranks, markers)
}

/// Sessions with fewer samples are searched for spikes on one thread.
#[cfg(not(target_arch = "wasm32"))]
const TWO_THREADS_FROM_SAMPLES: usize = 20_000;

/// Every rank's spikes, in the order of `ranks`, leaving out ranks without any. Natively,
/// a big session's ranks are shared between two threads (each rank's gap statistics
/// are independent of the others'; the result is the same).
fn detect_spikes(
    ranks: &[(i64, Vec<&Event>)],
    markers: &HashMap<i64, Vec<i64>>,
    config: &AttributionConfig,
    clock: &EventClock<'_>,
) -> Vec<Vec<Spike>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        detect_spikes_from(ranks, markers, config, clock, TWO_THREADS_FROM_SAMPLES)
    }
    #[cfg(target_arch = "wasm32")]
    {
        detect_on_one_thread(ranks, markers, config, clock)
    }
}

fn detect_on_one_thread(
    ranks: &[(i64, Vec<&Event>)],
    markers: &HashMap<i64, Vec<i64>>,
    config: &AttributionConfig,
    clock: &EventClock<'_>,
) -> Vec<Vec<Spike>> {
    ranks
        .iter()
        .map(|(rank, samples)| {
            let rank_markers = markers.get(rank).map(Vec::as_slice).unwrap_or(&[]);
            detect_rank_spikes(*rank, samples, rank_markers, config, clock)
        })
        .filter(|spikes| !spikes.is_empty())
        .collect()
}

/// [`detect_spikes`] on two threads once there are `two_threads_from` samples.
#[cfg(not(target_arch = "wasm32"))]
fn detect_spikes_from(
    ranks: &[(i64, Vec<&Event>)],
    markers: &HashMap<i64, Vec<i64>>,
    config: &AttributionConfig,
    clock: &EventClock<'_>,
    two_threads_from: usize,
) -> Vec<Vec<Spike>> {
    let total: usize = ranks.iter().map(|(_, samples)| samples.len()).sum();
    if ranks.len() < 2 || total < two_threads_from {
        return detect_on_one_thread(ranks, markers, config, clock);
    }
    // Cut where half the samples are done.
    let mut done = 0;
    let cut = ranks
        .iter()
        .position(|(_, samples)| {
            done += samples.len();
            done * 2 >= total
        })
        .map_or(1, |i| i + 1)
        .clamp(1, ranks.len() - 1);
    let (first, second) = ranks.split_at(cut);
    let (mut spikes, rest) = std::thread::scope(|scope| {
        let rest = scope.spawn(|| detect_on_one_thread(second, markers, config, clock));
        (
            detect_on_one_thread(first, markers, config, clock),
            rest.join(),
        )
    });
    match rest {
        Ok(rest) => spikes.extend(rest),
        Err(panic) => std::panic::resume_unwind(panic),
    }
    spikes
}

fn detect_rank_spikes(
    rank: i64,
    samples: &[&Event],
    markers: &[i64],
    config: &AttributionConfig,
    clock: &EventClock<'_>,
) -> Vec<Spike> {
    let n = samples.len() as i64;
    if n < config.min_samples_per_rank {
        return Vec::new();
    }
    let gaps: Vec<i64> = samples
        .iter()
        .map(|e| {
            let used = e.device_used_bytes().unwrap_or(0);
            let reserved = e.allocator_reserved_bytes().unwrap_or(0);
            (used - reserved).max(0)
        })
        .collect();
    let gap_values: Vec<f64> = gaps.iter().map(|&g| g as f64).collect();
    let mut stats: Option<GapStats> = None;

    let mut spikes = Vec::new();
    for (event, &gap_bytes) in samples.iter().zip(&gaps) {
        let gap_ratio = match event.device_total_bytes() {
            Some(total) if total > 0 => Some(int_true_div(gap_bytes as u64, total as u64)),
            _ => None,
        };
        let ratio_significant = gap_ratio.is_some_and(|r| r >= config.min_gap_ratio);
        let bytes_significant = gap_bytes >= config.min_gap_bytes;
        if !(ratio_significant || bytes_significant) {
            continue;
        }
        let stats = stats.get_or_insert_with(|| GapStats::new(&gap_values));
        let z = stats.robust_zscore(gap_bytes as f64);
        if z < config.robust_zscore_threshold {
            continue;
        }
        let ts = clock.ts(event);
        let window = i128::from(config.marker_window_ns);
        let lo = markers.partition_point(|&m| i128::from(m) < i128::from(ts) - window);
        let hi = markers.partition_point(|&m| i128::from(m) <= i128::from(ts) + window);
        let nearby = (hi > lo).then(|| ((hi - lo) as u64, markers[lo], markers[hi - 1]));
        spikes.push(Spike {
            rank,
            session: event.session,
            timestamp_ns: ts,
            peak_gap_bytes: gap_bytes,
            peak_gap_ratio: gap_ratio,
            robust_zscore: py_round(z, 4),
            markers: nearby,
        });
    }
    spikes
}

/// For every spike (in rank-then-time order), how many distinct ranks have a
/// spike within `window_ns` of it (itself included).
fn synchrony_counts(spikes_by_rank: &[Vec<Spike>], window_ns: i64) -> Vec<u64> {
    let all: Vec<&Spike> = spikes_by_rank.iter().flatten().collect();
    let mut by_time: Vec<usize> = (0..all.len()).collect();
    by_time.sort_by_key(|&i| all[i].timestamp_ns);
    let w = i128::from(window_ns);
    let mut counts = vec![0u64; all.len()];
    let mut in_window: HashMap<i64, u64> = HashMap::new();
    let (mut lo, mut hi) = (0usize, 0usize);
    for &i in &by_time {
        let ts = i128::from(all[i].timestamp_ns);
        while hi < by_time.len() && i128::from(all[by_time[hi]].timestamp_ns) <= ts + w {
            *in_window.entry(all[by_time[hi]].rank).or_insert(0) += 1;
            hi += 1;
        }
        while lo < hi && i128::from(all[by_time[lo]].timestamp_ns) < ts - w {
            let rank = all[by_time[lo]].rank;
            if let Some(c) = in_window.get_mut(&rank) {
                *c -= 1;
                if *c == 0 {
                    in_window.remove(&rank);
                }
            }
            lo += 1;
        }
        counts[i] = (in_window.len() as u64).max(1);
    }
    counts
}

fn score_spike(
    spike: &Spike,
    synchronized: u64,
    expected_world_size: i64,
    trace_start_ns: i64,
    config: &AttributionConfig,
    phases: Option<&PhaseReplayIndex>,
) -> Option<AttributionResult> {
    let synchronized = synchronized.max(1);
    let synchrony_ratio = if expected_world_size <= 1 {
        0.0
    } else {
        py_min1(int_true_div(
            synchronized - 1,
            (expected_world_size - 1) as u64,
        ))
    };

    // _spike_confidence
    let marker_overlap = spike.markers.is_some();
    let zscore_strength = py_min1(spike.robust_zscore / config.robust_zscore_threshold);
    let bytes_strength = if config.min_gap_bytes > 0 {
        py_min1(int_true_div(
            spike.peak_gap_bytes as u64,
            config.min_gap_bytes as u64,
        ))
    } else {
        1.0
    };
    let ratio_strength = if config.min_gap_ratio > 0.0 {
        py_min1(spike.peak_gap_ratio.unwrap_or(0.0) / config.min_gap_ratio)
    } else {
        1.0
    };
    let divergence_strength = if ratio_strength > bytes_strength {
        ratio_strength
    } else {
        bytes_strength
    };

    let mut confidence = 0.0;
    confidence += if marker_overlap { 0.34 } else { 0.0 };
    confidence += 0.34 * synchrony_ratio;
    confidence += 0.16 * zscore_strength;
    confidence += 0.16 * divergence_strength;

    let mut reasons = vec![ReasonCode::GapSpikeStatisticalOutlier];
    if marker_overlap {
        reasons.extend([
            ReasonCode::MarkerCollectiveToken,
            ReasonCode::MarkerSpikeOverlap,
        ]);
    } else {
        confidence -= 0.15;
        reasons.push(ReasonCode::WeakMarkerSignal);
    }
    if synchrony_ratio >= config.min_synchrony_ratio {
        reasons.push(ReasonCode::CrossRankSynchrony);
    }
    if divergence_strength >= 0.5 {
        reasons.push(ReasonCode::AllocatorDeviceDivergence);
    }
    if expected_world_size <= 1 || synchronized <= 1 {
        confidence -= 0.15;
        reasons.push(ReasonCode::SingleRankOnly);
    }
    if spike.peak_gap_ratio.is_none() {
        confidence -= 0.05;
    }
    let confidence = py_max0(py_min1(confidence));
    if confidence <= 0.0 {
        return None;
    }
    reasons.sort_unstable();
    reasons.dedup();

    let ts = i128::from(spike.timestamp_ns);
    let (marker_start, marker_end) = match spike.markers {
        Some((_, first, last)) => (i128::from(first), i128::from(last)),
        None => (ts, ts),
    };
    let padding = i128::from(config.interval_padding_ns);
    let interval_start = (marker_start.min(ts) - padding)
        .max(i128::from(trace_start_ns))
        .max(0);
    let interval_end = marker_end.max(ts) + padding;

    let phase_attribution =
        phases.map(|index| index.resolve(spike.timestamp_ns, spike.session, spike.rank));
    Some(AttributionResult {
        rank: spike.rank,
        interval_start_ns: interval_start,
        interval_end_ns: interval_end,
        classification: Classification::from_confidence(confidence),
        confidence: py_round(confidence, 3),
        reason_codes: reasons,
        evidence: Evidence {
            marker_hits: spike.markers.map(|(n, _, _)| n).unwrap_or(0),
            synchronized_ranks: synchronized,
            expected_world_size,
            synchrony_ratio: py_round(synchrony_ratio, 4),
            peak_gap_bytes: spike.peak_gap_bytes,
            peak_gap_ratio: spike.peak_gap_ratio.map(|r| py_round(r, 6)),
            robust_zscore: py_round(spike.robust_zscore, 4),
        },
        phase_attribution,
    })
}

fn max_f(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `_merge_rank_intervals`: per rank, overlapping intervals become one.
fn merge_rank_intervals(mut results: Vec<AttributionResult>) -> Vec<AttributionResult> {
    results.sort_by_key(|r| (r.rank, r.interval_start_ns));
    let mut merged: Vec<AttributionResult> = Vec::with_capacity(results.len());
    for result in results {
        let Some(prev) = merged.last_mut() else {
            merged.push(result);
            continue;
        };
        if prev.rank != result.rank || result.interval_start_ns > prev.interval_end_ns {
            merged.push(result);
            continue;
        }
        let (a, b) = (&prev.evidence, &result.evidence);
        let evidence = Evidence {
            marker_hits: a.marker_hits.max(b.marker_hits),
            synchronized_ranks: a.synchronized_ranks.max(b.synchronized_ranks),
            expected_world_size: a.expected_world_size.max(b.expected_world_size),
            synchrony_ratio: max_f(a.synchrony_ratio, b.synchrony_ratio),
            peak_gap_bytes: a.peak_gap_bytes.max(b.peak_gap_bytes),
            peak_gap_ratio: match (a.peak_gap_ratio, b.peak_gap_ratio) {
                (None, r) | (r, None) => r,
                (Some(x), Some(y)) => Some(max_f(x, y)),
            },
            robust_zscore: max_f(a.robust_zscore, b.robust_zscore),
        };
        let mut reasons = prev.reason_codes.clone();
        reasons.extend(result.reason_codes.iter().copied());
        reasons.sort_unstable();
        reasons.dedup();
        let phase_attribution = match (prev.phase_attribution.take(), result.phase_attribution) {
            (None, None) => None,
            (p, r) => Some(merge_phase_attributions(p.flatten(), r.flatten())),
        };
        *prev = AttributionResult {
            rank: prev.rank,
            interval_start_ns: prev.interval_start_ns.min(result.interval_start_ns),
            interval_end_ns: prev.interval_end_ns.max(result.interval_end_ns),
            classification: prev.classification.max(result.classification),
            confidence: max_f(prev.confidence, result.confidence),
            reason_codes: reasons,
            evidence,
            phase_attribution,
        };
    }
    merged
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::trace::{load, LoadOptions, MemFs};

    /// A synthetic trace of `ranks` × `samples`, loaded, and the high preset.
    fn synthetic(ranks: u64, samples: u64) -> (crate::trace::Dataset, AttributionConfig) {
        let mut bytes = Vec::new();
        assert!(crate::trace::synthetic::write_trace(&mut bytes, ranks, samples).is_ok());
        let mut fs = MemFs::new();
        fs.insert("t.json", bytes);
        let loaded = load(
            &fs,
            &["t.json".to_string()],
            &LoadOptions::default(),
            &mut |_| {},
        );
        let Ok(config) = AttributionConfig::resolve(Preset::High, &[]) else {
            panic!("the high preset resolves");
        };
        (loaded.dataset, config)
    }

    /// The divergence strength is the larger of the gap's bytes and ratio against their
    /// thresholds, each capped at 1: a spike at half the ratio threshold and a quarter of
    /// the bytes one scores 0.5 there (and reports the divergence), not 1.
    #[test]
    fn a_gap_ratio_under_its_threshold_scores_its_fraction() {
        let Ok(config) = AttributionConfig::resolve(Preset::High, &[]) else {
            panic!("the high preset resolves");
        };
        assert!(config.min_gap_ratio > 0.0 && config.min_gap_bytes > 0);
        let spike = Spike {
            rank: 1,
            session: 0,
            timestamp_ns: 5_000,
            peak_gap_bytes: config.min_gap_bytes / 4,
            peak_gap_ratio: Some(config.min_gap_ratio / 2.0),
            robust_zscore: config.robust_zscore_threshold,
            markers: Some((1, 4_000, 4_500)),
        };
        let Some(result) = score_spike(&spike, 4, 4, 0, &config, None) else {
            panic!("a marked, synchronized spike is kept");
        };
        // 0.34 marker + 0.34 synchrony + 0.16 z-score + 0.16 × 0.5 divergence.
        assert_eq!(result.confidence, 0.92);
        assert!(result
            .reason_codes
            .contains(&ReasonCode::AllocatorDeviceDivergence));
        // A ratio at its threshold is full strength.
        let full = Spike {
            peak_gap_ratio: Some(config.min_gap_ratio),
            ..spike
        };
        let full = score_spike(&full, 4, 4, 0, &config, None).map(|r| r.confidence);
        assert_eq!(full, Some(1.0));
    }

    #[test]
    fn two_threads_find_exactly_the_spikes_one_finds() {
        let (dataset, config) = synthetic(6, 900);
        let events = dataset.selected_events();
        let clock = EventClock::recorded();
        let (ranks, markers) = samples_by_rank(&events, events.list.iter(), &clock);
        let one = detect_spikes_from(&ranks, &markers, &config, &clock, usize::MAX);
        let two = detect_spikes_from(&ranks, &markers, &config, &clock, 0);
        assert!(one.len() >= 3, "spikes on several ranks: {}", one.len());
        assert_eq!(one, two);
    }

    #[test]
    fn unsorted_events_are_attributed_as_sorted_ones() {
        let (dataset, config) = synthetic(4, 400);
        let events = dataset.selected_events();
        let sorted = attribute(events, &config, None);
        assert!(!sorted.is_empty(), "the synthetic trace has spikes");
        let mut reversed = events.list.to_vec();
        reversed.reverse();
        let unsorted = Events {
            list: &reversed,
            sources: events.sources,
        };
        assert_eq!(attribute(unsorted, &config, None), sorted);
    }

    #[test]
    fn classifications_read_by_either_name() {
        for c in Classification::ALL {
            assert_eq!(Classification::parse(c.as_str()), Some(c));
            assert_eq!(Classification::parse(c.short()), Some(c));
            assert_eq!(c.as_str(), format!("collective_{}", c.short()));
        }
        assert_eq!(
            Classification::ALL.map(Classification::short),
            ["confident", "likely", "suspect"]
        );
        assert_eq!(Classification::parse("collective_"), None);
        assert_eq!(Classification::parse("Likely"), None);
        assert_eq!(Classification::parse(""), None);
    }
}

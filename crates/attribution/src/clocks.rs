//! Rank clocks from the run's own collectives (beyond stormlog, which compares raw
//! timestamps). A collective ends at nearly the same instant on every rank, so the
//! collective markers of a session (stormlog's marker rule) are shared events: matched
//! across ranks, the differences between their timestamps are the clocks' offsets.
//!
//! Each rank's clock is modelled against a reference rank as
//! `t_rank = t_ref + offset_ns + drift_ppm * 1e-6 * (t_ref - epoch_ns)`, where `epoch_ns` is
//! the reference's first marker.
//!
//! Markers are matched by their timing pattern, not their index, so a dropped, an extra
//! or a late marker on one rank does not break the match:
//! 1. **Candidates**: every difference between one of the rank's first
//!    [`CANDIDATE_MARKERS`] markers and a reference marker at most [`MAX_OFFSET_NS`]
//!    away whose next gaps agree with its own ([`SIGNATURE_GAPS`]) votes for its bin (bins of the matching tolerance). The most voted bin and the
//!    bins with at least half its votes, nearest zero first, are the candidate offsets.
//! 2. **Tracking**: from each candidate, the rank's markers are walked in time order and
//!    each is matched to the nearest unused reference marker within the tolerance of
//!    the current offset, which follows the median of the latest [`TRACK_WINDOW`] matches
//!    (the start offset filling the window until they are that many) (so a drift
//!    is followed over a long run). A candidate's score is the number of matches.
//! 3. **Decision**: fewer than [`MIN_MATCHES`] matches is `too_few_markers`. When
//!    another candidate matches nearly as many markers (periodic markers fit every
//!    offset a period apart), the data cannot tell them apart unless the best is also
//!    the one nearest zero (clocks are set to the same time, roughly): otherwise the
//!    rank is `ambiguous`, never aligned on a guess.
//! 4. **Fit**: the winner's matches give the drift (Theil–Sen slope, kept only when the
//!    run is long enough and the slope explains the misfit) and the offset (median
//!    intercept); the residual is the median absolute misfit.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::trace::event::{Event, Events, SourceId};

/// Fewer matched markers than this: `too_few_markers`.
pub const MIN_MATCHES: usize = 3;
/// The rank's first markers whose differences to the reference vote for an offset.
pub const CANDIDATE_MARKERS: usize = 32;
/// Gaps after a marker that must agree for a pair of markers to vote.
pub const SIGNATURE_GAPS: usize = 3;
/// Candidate offsets tracked through the whole run.
pub const CANDIDATES: usize = 8;
/// The largest offset considered: a minute.
pub const MAX_OFFSET_NS: i64 = 60_000_000_000;
/// The matching tolerance: an eighth of the reference's median marker spacing, at
/// least this and at most [`MAX_TOLERANCE_NS`].
pub const MIN_TOLERANCE_NS: i64 = 10_000;
pub const MAX_TOLERANCE_NS: i64 = 20_000_000;
/// Matches whose median the tracked offset follows.
pub const TRACK_WINDOW: usize = 9;
/// A runner-up that matches at least the best count less this (or less 2 %) fits
/// nearly as well.
pub const NEAR_TIE_MATCHES: usize = 2;
/// Drift is estimated only over at least this span of matched markers (10 s)...
pub const MIN_DRIFT_SPAN_NS: i64 = 10_000_000_000;
/// ...and kept only when it shrinks the residual to below this share of the residual
/// of a constant offset.
pub const DRIFT_RESIDUAL_SHARE: f64 = 0.67;
/// Matched pairs the Theil–Sen slope is computed from (evenly spaced, at most).
pub const SLOPE_POINTS: usize = 256;

/// What the estimate says about one rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockStatus {
    Reference,
    Aligned,
    TooFewMarkers,
    Ambiguous,
}

impl ClockStatus {
    /// The status in words, for people.
    pub fn words(self) -> &'static str {
        match self {
            ClockStatus::Reference => "reference",
            ClockStatus::Aligned => "aligned",
            ClockStatus::TooFewMarkers => "too few markers",
            ClockStatus::Ambiguous => "ambiguous",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ClockStatus::Reference => "reference",
            ClockStatus::Aligned => "aligned",
            ClockStatus::TooFewMarkers => "too_few_markers",
            ClockStatus::Ambiguous => "ambiguous",
        }
    }
}

/// One rank's clock against the reference (docs/contracts.md §1 "align").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankClock {
    pub rank: i64,
    pub status: ClockStatus,
    /// `None` unless `reference` or `aligned`.
    pub offset_ns: Option<i64>,
    pub drift_ppm: Option<f64>,
    /// Markers matched to the reference's (the reference: its own markers).
    pub matched: usize,
    /// Median absolute misfit of the matched markers.
    pub residual_ns: Option<i64>,
}

/// Every rank's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alignment {
    pub reference_rank: i64,
    pub epoch_ns: i64,
    pub ranks: Vec<RankClock>,
}

/// Why no alignment could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("no rank has collective markers: clocks cannot be aligned")]
    NoMarkers,
    #[error("reference rank {0} has no collective markers (ranks with markers: {1})")]
    ReferenceWithoutMarkers(i64, String),
}

/// Per rank (ascending), its collective markers' timestamps (ascending), by stormlog's
/// marker rule; ranks without markers are listed with none.
pub fn markers_by_rank(session: &Events<'_>) -> Vec<(i64, Vec<i64>)> {
    let mut by_rank: HashMap<i64, Vec<i64>> = HashMap::new();
    // Every rank of the session is listed, markers or not. Sources are few and events
    // many: per event only its source's flags are read.
    let sources = session.sources;
    let is_marker: Vec<bool> = (0..sources.len())
        .map(|id| sources.get(id as SourceId).is_some_and(|s| s.is_marker()))
        .collect();
    let mut seen = vec![false; sources.len()];
    for event in session.list {
        let id = event.source as usize;
        if let Some(flag) = seen.get_mut(id) {
            *flag = true;
        }
        if is_marker.get(id).copied().unwrap_or(false) {
            let rank = sources.of(event).rank;
            by_rank.entry(rank).or_default().push(event.timestamp_ns);
        }
    }
    for (id, _) in seen.iter().enumerate().filter(|(_, &seen)| seen) {
        if let Some(source) = sources.get(id as SourceId) {
            by_rank.entry(source.rank).or_default();
        }
    }
    let mut out: Vec<(i64, Vec<i64>)> = by_rank.into_iter().collect();
    out.sort_by_key(|(rank, _)| *rank);
    for (_, markers) in &mut out {
        markers.sort_unstable();
    }
    out
}

/// The clocks of every rank of `markers` (as [`markers_by_rank`] gives them) against
/// `reference` (default: the lowest rank with markers).
pub fn estimate(
    markers: &[(i64, Vec<i64>)],
    reference: Option<i64>,
) -> Result<Alignment, ClockError> {
    let with_markers = || {
        markers
            .iter()
            .filter(|(_, m)| !m.is_empty())
            .map(|(r, _)| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let reference_rank = match reference {
        Some(r) => r,
        None => markers
            .iter()
            .find(|(_, m)| !m.is_empty())
            .map(|(r, _)| *r)
            .ok_or(ClockError::NoMarkers)?,
    };
    let reference_markers = markers
        .iter()
        .find(|(r, _)| *r == reference_rank)
        .map(|(_, m)| m.as_slice())
        .filter(|m| !m.is_empty())
        .ok_or_else(|| {
            if markers.iter().all(|(_, m)| m.is_empty()) {
                ClockError::NoMarkers
            } else {
                ClockError::ReferenceWithoutMarkers(reference_rank, with_markers())
            }
        })?;
    let epoch_ns = reference_markers[0];
    let tolerance_ns = tolerance(reference_markers);
    let ranks = markers
        .iter()
        .map(|(rank, own)| {
            if *rank == reference_rank {
                RankClock {
                    rank: *rank,
                    status: ClockStatus::Reference,
                    offset_ns: Some(0),
                    drift_ppm: Some(0.0),
                    matched: own.len(),
                    residual_ns: Some(0),
                }
            } else {
                rank_clock(*rank, own, reference_markers, epoch_ns, tolerance_ns)
            }
        })
        .collect();
    Ok(Alignment {
        reference_rank,
        epoch_ns,
        ranks,
    })
}

impl Alignment {
    /// The clock of `rank`, if it is `aligned` (the reference and every other status
    /// keep their own clock).
    fn model(&self, rank: i64) -> Option<(i64, f64)> {
        let c = self.ranks.iter().find(|c| c.rank == rank)?;
        match (c.status, c.offset_ns, c.drift_ppm) {
            (ClockStatus::Aligned, Some(offset), Some(drift)) => Some((offset, drift)),
            _ => None,
        }
    }

    /// `t_ns` of `rank`'s clock on the reference clock (unchanged for a rank that is not
    /// `aligned`): the inverse of `t_rank = t_ref + offset + drift * 1e-6 * (t_ref - epoch)`.
    pub fn to_reference(&self, rank: i64, t_ns: i64) -> i64 {
        match self.model(rank) {
            Some((offset, drift_ppm)) => self.map(t_ns, offset, drift_ppm),
            None => t_ns,
        }
    }

    fn map(&self, t_ns: i64, offset_ns: i64, drift_ppm: f64) -> i64 {
        if drift_ppm == 0.0 {
            // epoch + (t - epoch - offset), exactly, clamped.
            return t_ns.saturating_sub(offset_ns);
        }
        let since_epoch = i128::from(t_ns) - i128::from(self.epoch_ns) - i128::from(offset_ns);
        let scaled = (since_epoch as f64 / (1.0 + drift_ppm * 1e-6)).round();
        clamp_i64(i128::from(self.epoch_ns) + scaled as i128)
    }

    /// Every rank's mapping, looked up once: `(rank, offset_ns, drift_ppm)` of the
    /// aligned ranks.
    pub fn aligned(&self) -> Vec<(i64, i64, f64)> {
        self.ranks
            .iter()
            .filter_map(|c| self.model(c.rank).map(|(o, d)| (c.rank, o, d)))
            .collect()
    }

    /// `t_ns` on the reference clock given a rank's `(offset_ns, drift_ppm)`.
    pub fn map_with(&self, t_ns: i64, model: (i64, f64)) -> i64 {
        self.map(t_ns, model.0, model.1)
    }
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Each event's time on one clock: as recorded, or on the reference rank's clock through
/// an [`Alignment`] (its rank's model looked up once per source, not per event).
#[derive(Debug, Clone, Default)]
pub struct EventClock<'a> {
    alignment: Option<&'a Alignment>,
    /// Per source id: the `(offset_ns, drift_ppm)` of its rank, when aligned.
    by_source: Vec<Option<(i64, f64)>>,
}

impl<'a> EventClock<'a> {
    /// The recorded times (stormlog's).
    pub fn recorded() -> EventClock<'static> {
        EventClock::default()
    }

    /// Every `aligned` rank's events on the reference clock; the others as recorded.
    pub fn on_reference(events: &Events<'_>, alignment: &'a Alignment) -> EventClock<'a> {
        let models: HashMap<i64, (i64, f64)> = alignment
            .aligned()
            .into_iter()
            .map(|(rank, offset, drift)| (rank, (offset, drift)))
            .collect();
        let by_source = (0..events.sources.len())
            .map(|id| {
                let source = events.sources.get(id as SourceId)?;
                models.get(&source.rank).copied()
            })
            .collect();
        EventClock {
            alignment: Some(alignment),
            by_source,
        }
    }

    /// `event`'s time on this clock.
    #[inline]
    pub fn ts(&self, event: &Event) -> i64 {
        match (self.alignment, self.by_source.get(event.source as usize)) {
            (Some(alignment), Some(Some(model))) => alignment.map_with(event.timestamp_ns, *model),
            _ => event.timestamp_ns,
        }
    }
}

/// An eighth of the median spacing of the reference's markers, within bounds.
fn tolerance(reference: &[i64]) -> i64 {
    let mut gaps: Vec<i64> = reference
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .filter(|&g| g > 0)
        .collect();
    if gaps.is_empty() {
        return MAX_TOLERANCE_NS;
    }
    let mid = gaps.len() / 2;
    let (_, median, _) = gaps.select_nth_unstable(mid);
    (*median / 8).clamp(MIN_TOLERANCE_NS, MAX_TOLERANCE_NS)
}

/// A candidate tracked through the run: its matches `(t_ref, t_rank - t_ref)`.
struct Track {
    pairs: Vec<(i64, i64)>,
    /// The median difference of its matches: where the candidate ended up.
    centre_ns: i64,
}

fn rank_clock(
    rank: i64,
    own: &[i64],
    reference: &[i64],
    epoch_ns: i64,
    tolerance_ns: i64,
) -> RankClock {
    let unaligned = |status, matched| RankClock {
        rank,
        status,
        offset_ns: None,
        drift_ppm: None,
        matched,
        residual_ns: None,
    };
    if own.len() < MIN_MATCHES || reference.len() < MIN_MATCHES {
        return unaligned(ClockStatus::TooFewMarkers, own.len().min(reference.len()));
    }
    let mut tracks: Vec<Track> = candidates(own, reference, tolerance_ns)
        .into_iter()
        .map(|c| track(own, reference, c, tolerance_ns))
        .collect();
    // Candidates that ended at the same offset are one.
    tracks.sort_by(|a, b| {
        b.pairs
            .len()
            .cmp(&a.pairs.len())
            .then(a.centre_ns.unsigned_abs().cmp(&b.centre_ns.unsigned_abs()))
    });
    let mut distinct: Vec<Track> = Vec::new();
    for t in tracks {
        if distinct
            .iter()
            .all(|d| d.centre_ns.abs_diff(t.centre_ns) > 2 * tolerance_ns.unsigned_abs())
        {
            distinct.push(t);
        }
    }
    let Some(best) = distinct.first() else {
        return unaligned(ClockStatus::TooFewMarkers, 0);
    };
    let matched = best.pairs.len();
    if matched < MIN_MATCHES {
        return unaligned(ClockStatus::TooFewMarkers, matched);
    }
    let slack = NEAR_TIE_MATCHES.max(matched / 50);
    let rivals: Vec<&Track> = distinct[1..]
        .iter()
        .filter(|t| t.pairs.len() + slack >= matched)
        .collect();
    let unique_best = rivals.iter().all(|t| t.pairs.len() < matched);
    let nearest_zero = rivals
        .iter()
        .all(|t| best.centre_ns.unsigned_abs() < t.centre_ns.unsigned_abs());
    // (No rival: both hold.)
    if !(unique_best && nearest_zero) {
        return unaligned(ClockStatus::Ambiguous, matched);
    }
    let (offset_ns, drift_ppm, residual_ns) = fit(&best.pairs, epoch_ns);
    RankClock {
        rank,
        status: ClockStatus::Aligned,
        offset_ns: Some(offset_ns),
        drift_ppm: Some(drift_ppm),
        matched,
        residual_ns: Some(residual_ns),
    }
}

/// The candidate offsets: bin centres of the most voted bins.
fn candidates(own: &[i64], reference: &[i64], tolerance_ns: i64) -> Vec<i64> {
    let bin_ns = tolerance_ns.max(1);
    let gap_tolerance_ns = (tolerance_ns / 4).max(MIN_TOLERANCE_NS);
    // Two markers whose next SIGNATURE_GAPS gaps agree (each within a quarter of the
    // tolerance) may be the same collectives: only such pairs vote, so markers far apart
    // in a dense run do not drown the true offset. Without any such pair (signatures cut
    // by dropped markers everywhere), every pair within reach votes.
    let mut votes: HashMap<i64, u32> = HashMap::new();
    for pass in [true, false] {
        for (j, &t) in own.iter().enumerate().take(CANDIDATE_MARKERS) {
            let from = reference.partition_point(|&r| r < t.saturating_sub(MAX_OFFSET_NS));
            for (i, &r) in reference
                .iter()
                .enumerate()
                .skip(from)
                .take_while(|(_, &r)| r <= t.saturating_add(MAX_OFFSET_NS))
            {
                if pass && !same_gaps(own, j, reference, i, gap_tolerance_ns) {
                    continue;
                }
                *votes.entry((t - r).div_euclid(bin_ns)).or_default() += 1;
            }
        }
        if !votes.is_empty() {
            break;
        }
    }
    // A bin's vote counts its neighbours too: a true offset near a bin edge splits.
    let mut scored: Vec<(u32, i64)> = votes
        .iter()
        .map(|(&bin, &v)| {
            let around = votes.get(&(bin - 1)).copied().unwrap_or(0)
                + votes.get(&(bin + 1)).copied().unwrap_or(0);
            (v + around, bin)
        })
        .collect();
    // The most voted bin, then every bin with at least half its votes, nearest zero
    // first: periodic markers give many bins the same votes, and the ones near zero are
    // those the decision weighs.
    let centre = |bin: i64| bin * bin_ns + bin_ns / 2;
    let most = scored.iter().map(|s| s.0).max().unwrap_or(0);
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(centre(a.1).unsigned_abs().cmp(&centre(b.1).unsigned_abs()))
            .then(a.1.cmp(&b.1))
    });
    let top = scored.first().map(|s| s.1);
    let mut strong: Vec<i64> = scored
        .iter()
        .filter(|s| 2 * s.0 >= most)
        .map(|s| s.1)
        .collect();
    strong.sort_by_key(|&bin| (centre(bin).unsigned_abs(), bin));
    let mut out: Vec<i64> = Vec::new();
    for bin in top.into_iter().chain(strong) {
        let c = centre(bin);
        if out.iter().all(|&o| (o - c).abs() > bin_ns) {
            out.push(c);
        }
        if out.len() == CANDIDATES {
            break;
        }
    }
    out
}

/// Whether the SIGNATURE_GAPS gaps after `a[i]` and after `b[j]` agree within `within_ns`.
fn same_gaps(a: &[i64], i: usize, b: &[i64], j: usize, within_ns: i64) -> bool {
    if i + SIGNATURE_GAPS >= a.len() || j + SIGNATURE_GAPS >= b.len() {
        return false;
    }
    (0..SIGNATURE_GAPS).all(|k| {
        let ga = a[i + k + 1].saturating_sub(a[i + k]);
        let gb = b[j + k + 1].saturating_sub(b[j + k]);
        ga.abs_diff(gb) <= within_ns.unsigned_abs()
    })
}

/// Walks the rank's markers from offset `start_ns`, matching each to the nearest unused
/// reference marker within the tolerance of the offset the latest matches give.
fn track(own: &[i64], reference: &[i64], start_ns: i64, tolerance_ns: i64) -> Track {
    // Matches as (reference index, rank time, miss); a later rank marker closer to the
    // reference marker just matched (a stray came first) takes it over.
    let mut matches: Vec<(usize, i64, u64)> = Vec::new();
    let mut recent: Vec<i64> = Vec::with_capacity(TRACK_WINDOW);
    let mut current = start_ns;
    for &t in own {
        // Saturating: arbitrary (hostile) timestamps must not overflow.
        let expected = t.saturating_sub(current);
        let first = match matches.last() {
            Some(&(i, _, _)) => i,
            None => 0,
        };
        let from = first
            + reference[first..].partition_point(|&r| r < expected.saturating_sub(tolerance_ns));
        let mut best: Option<(usize, u64)> = None;
        for (i, &r) in reference.iter().enumerate().skip(from) {
            if r > expected.saturating_add(tolerance_ns) {
                break;
            }
            let miss = r.abs_diff(expected);
            if best.is_none_or(|(_, m)| miss < m) {
                best = Some((i, miss));
            }
        }
        let Some((i, miss)) = best else {
            continue;
        };
        match matches.last_mut() {
            Some(last) if last.0 == i => {
                if miss < last.2 {
                    *last = (i, t, miss);
                    recent.pop();
                } else {
                    continue;
                }
            }
            _ => matches.push((i, t, miss)),
        }
        if recent.len() == TRACK_WINDOW {
            recent.remove(0);
        }
        recent.push(t.saturating_sub(reference[i]));
        // Until the window is full, the start offset fills it: a stray matched first
        // cannot pull the track away.
        let mut window = [start_ns; TRACK_WINDOW];
        for (slot, &offset) in window.iter_mut().zip(&recent) {
            *slot = offset;
        }
        current = median_i64_in(&mut window);
    }
    let pairs: Vec<(i64, i64)> = matches
        .iter()
        .map(|&(i, t, _)| (reference[i], t.saturating_sub(reference[i])))
        .collect();
    let diffs: Vec<i64> = pairs.iter().map(|p| p.1).collect();
    Track {
        centre_ns: if diffs.is_empty() {
            start_ns
        } else {
            median_i64(&diffs)
        },
        pairs,
    }
}

fn median_i64(values: &[i64]) -> i64 {
    median_i64_in(&mut values.to_vec())
}

/// The median of `v` (reordered): selected in linear time, not sorted.
fn median_i64_in(v: &mut [i64]) -> i64 {
    let n = v.len();
    if n == 0 {
        return 0;
    }
    let (below, &mut upper, _) = v.select_nth_unstable(n / 2);
    if n % 2 == 1 {
        upper
    } else {
        let lower = below.iter().copied().max().unwrap_or(upper);
        // The mean of the middle two, rounded down, without overflow.
        ((i128::from(lower) + i128::from(upper)).div_euclid(2)) as i64
    }
}

fn median_f64(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return 0.0;
    }
    let (below, &mut upper, _) = values.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        let lower = below
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .unwrap_or(upper);
        (lower + upper) / 2.0
    }
}

/// `(offset_ns, drift_ppm, residual_ns)` of matched pairs `(t_ref, t_rank - t_ref)`.
fn fit(pairs: &[(i64, i64)], epoch_ns: i64) -> (i64, f64, i64) {
    let xs: Vec<f64> = pairs
        .iter()
        .map(|p| (i128::from(p.0) - i128::from(epoch_ns)) as f64)
        .collect();
    let ys: Vec<f64> = pairs.iter().map(|p| p.1 as f64).collect();
    let constant = median_i64(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let residual_of = |offset: f64, slope: f64| {
        let mut misfit: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| (y - offset - slope * x).abs())
            .collect();
        median_f64(&mut misfit)
    };
    let constant_residual = residual_of(constant as f64, 0.0);
    let span =
        i128::from(pairs.last().map_or(0, |p| p.0)) - i128::from(pairs.first().map_or(0, |p| p.0));
    if span >= i128::from(MIN_DRIFT_SPAN_NS) {
        let slope = theil_sen(&xs, &ys);
        let mut intercepts: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| y - slope * x).collect();
        let offset = median_f64(&mut intercepts);
        let residual = residual_of(offset, slope);
        if residual < DRIFT_RESIDUAL_SHARE * constant_residual {
            let drift_ppm = (slope * 1e9).round() / 1e3; // ppm to 0.001
            return (
                offset.round() as i64,
                if drift_ppm == 0.0 { 0.0 } else { drift_ppm },
                residual.round() as i64,
            );
        }
    }
    (constant, 0.0, constant_residual.round() as i64)
}

/// The median slope over pairs of at most [`SLOPE_POINTS`] evenly spaced points.
fn theil_sen(xs: &[f64], ys: &[f64]) -> f64 {
    let step = xs.len().div_ceil(SLOPE_POINTS).max(1);
    let points: Vec<(f64, f64)> = xs
        .iter()
        .zip(ys)
        .step_by(step)
        .map(|(&x, &y)| (x, y))
        .collect();
    let mut slopes = Vec::with_capacity(points.len() * points.len() / 2);
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            if b.0 != a.0 {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    median_f64(&mut slopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_000_000_000_000;

    /// A deterministic generator (xorshift64*), so every case is the same each run.
    pub(super) struct Rng(pub(super) u64);
    impl Rng {
        pub(super) fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// Uniform in `lo..hi`.
        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + (self.next() % (hi - lo) as u64) as i64
        }
    }

    /// True collective end times: irregular spacing of `mean_ns` ± 40 %.
    pub(super) fn collectives(rng: &mut Rng, n: usize, mean_ns: i64) -> Vec<i64> {
        let mut t = T0;
        (0..n)
            .map(|_| {
                t += rng.range(mean_ns * 6 / 10, mean_ns * 14 / 10);
                t
            })
            .collect()
    }

    /// The markers a rank records for `truth` with its clock (offset, drift) and a
    /// jitter of up to `jitter_ns`.
    pub(super) fn recorded(
        rng: &mut Rng,
        truth: &[i64],
        offset_ns: i64,
        drift_ppm: f64,
        jitter_ns: i64,
    ) -> Vec<i64> {
        let epoch = truth[0];
        truth
            .iter()
            .map(|&t| {
                let drift = (drift_ppm * 1e-6 * (t - epoch) as f64).round() as i64;
                t + offset_ns + drift + rng.range(-jitter_ns, jitter_ns + 1)
            })
            .collect()
    }

    fn rank(a: &Alignment, rank: i64) -> &RankClock {
        a.ranks.iter().find(|c| c.rank == rank).unwrap()
    }

    fn assert_offset(a: &Alignment, r: i64, want_ns: i64, within_ns: i64) {
        let c = rank(a, r);
        assert_eq!(c.status, ClockStatus::Aligned, "rank {r}: {c:?}");
        let got = c.offset_ns.unwrap();
        assert!(
            (got - want_ns).abs() <= within_ns,
            "rank {r}: offset {got} vs {want_ns}"
        );
    }

    #[test]
    fn offsets_of_half_a_second_either_way_are_recovered_within_a_millisecond() {
        let mut rng = Rng(7);
        let truth = collectives(&mut rng, 400, 150_000_000);
        let offsets = [0, 500_000_000, -500_000_000, 212_340_000, -3_000_000];
        let markers: Vec<(i64, Vec<i64>)> = offsets
            .iter()
            .enumerate()
            .map(|(r, &o)| (r as i64, recorded(&mut rng, &truth, o, 0.0, 200_000)))
            .collect();
        let a = estimate(&markers, None).unwrap();
        assert_eq!(a.reference_rank, 0);
        assert_eq!(a.epoch_ns, markers[0].1[0]);
        assert_eq!(rank(&a, 0).status, ClockStatus::Reference);
        for (r, &o) in offsets.iter().enumerate().skip(1) {
            assert_offset(&a, r as i64, o, 1_000_000);
            let c = rank(&a, r as i64);
            assert_eq!(c.matched, 400);
            assert_eq!(
                c.drift_ppm,
                Some(0.0),
                "a minute is too short to tell a drift"
            );
            assert!(c.residual_ns.unwrap() <= 200_000);
        }
    }

    #[test]
    fn drift_over_an_hour_is_estimated_and_the_offset_kept_within_two_milliseconds() {
        let mut rng = Rng(11);
        let truth = collectives(&mut rng, 1800, 2_000_000_000); // an hour
        let markers = vec![
            (0, recorded(&mut rng, &truth, 0, 0.0, 100_000)),
            (1, recorded(&mut rng, &truth, 150_000_000, 50.0, 100_000)),
            (2, recorded(&mut rng, &truth, -40_000_000, -50.0, 100_000)),
        ];
        let a = estimate(&markers, None).unwrap();
        for (r, o, d) in [(1, 150_000_000, 50.0), (2, -40_000_000, -50.0)] {
            assert_offset(&a, r, o, 2_000_000);
            let drift = rank(&a, r).drift_ppm.unwrap();
            assert!((drift - d).abs() < 0.5, "rank {r}: drift {drift} vs {d}");
        }
        // Mapped back, rank 1's last marker lands on the reference's within 2 ms.
        let last = *markers[1].1.last().unwrap();
        let mapped = a.to_reference(1, last);
        assert!((mapped - markers[0].1[1799]).abs() < 2_000_000, "{mapped}");
    }

    #[test]
    fn dropped_stray_and_late_markers_do_not_break_the_match() {
        let mut rng = Rng(3);
        let truth = collectives(&mut rng, 300, 120_000_000);
        let mut one = recorded(&mut rng, &truth, -250_000_000, 0.0, 150_000);
        // Drop every 7th marker and the first five, add 30 strays, delay one by 8 ms.
        one = one
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 7 != 3 && *i >= 5)
            .map(|(_, t)| t)
            .collect();
        one[40] += 8_000_000;
        for _ in 0..30 {
            one.push(rng.range(truth[0], truth[299]));
        }
        one.sort_unstable();
        let markers = vec![(0, recorded(&mut rng, &truth, 0, 0.0, 150_000)), (1, one)];
        let a = estimate(&markers, None).unwrap();
        assert_offset(&a, 1, -250_000_000, 1_000_000);
        let c = rank(&a, 1);
        assert!(c.matched >= 240 && c.matched <= 300, "{c:?}");
    }

    #[test]
    fn few_markers_no_markers_and_perfect_clocks() {
        let mut rng = Rng(5);
        let truth = collectives(&mut rng, 50, 100_000_000);
        let markers = vec![
            (0, truth.clone()),
            (1, truth.clone()),
            (2, vec![truth[10]]),
            (3, Vec::new()),
        ];
        let a = estimate(&markers, None).unwrap();
        let perfect = rank(&a, 1);
        assert_eq!(
            (
                perfect.status,
                perfect.offset_ns,
                perfect.drift_ppm,
                perfect.residual_ns,
                perfect.matched
            ),
            (ClockStatus::Aligned, Some(0), Some(0.0), Some(0), 50)
        );
        let one = rank(&a, 2);
        assert_eq!(
            (one.status, one.matched, one.offset_ns),
            (ClockStatus::TooFewMarkers, 1, None)
        );
        assert_eq!(rank(&a, 3).status, ClockStatus::TooFewMarkers);
        assert_eq!(
            a.to_reference(2, 123),
            123,
            "a rank not aligned keeps its clock"
        );
        // The reference defaults to the lowest rank with markers; a chosen one must have some.
        let later = vec![(0, Vec::new()), (1, truth.clone()), (2, truth.clone())];
        assert_eq!(estimate(&later, None).unwrap().reference_rank, 1);
        assert_eq!(
            estimate(&later, Some(0)),
            Err(ClockError::ReferenceWithoutMarkers(0, "1, 2".to_string()))
        );
        assert_eq!(
            estimate(&[(0, Vec::new())], None),
            Err(ClockError::NoMarkers)
        );
    }

    #[test]
    fn strictly_periodic_markers_are_ambiguous_beyond_half_a_period() {
        let period = 100_000_000;
        let truth: Vec<i64> = (0..200).map(|i| T0 + i * period).collect();
        let shifted = |by: i64| truth.iter().map(|t| t + by).collect::<Vec<_>>();
        let markers = vec![
            (0, truth.clone()),
            (1, shifted(60_000_000)), // more than half a period: which collective?
            (2, shifted(-70_000_000)), // likewise, the other way
            (3, shifted(10_000_000)), // a tenth: the nearest fit is also the best
        ];
        let a = estimate(&markers, None).unwrap();
        for r in [1, 2] {
            let c = rank(&a, r);
            assert_eq!(
                (c.status, c.offset_ns),
                (ClockStatus::Ambiguous, None),
                "rank {r}"
            );
        }
        assert_offset(&a, 3, 10_000_000, 0);
    }

    #[test]
    fn mapping_inverts_the_clock_model() {
        let a = Alignment {
            reference_rank: 0,
            epoch_ns: T0,
            ranks: vec![RankClock {
                rank: 1,
                status: ClockStatus::Aligned,
                offset_ns: Some(-5_000),
                drift_ppm: Some(20.0),
                matched: 10,
                residual_ns: Some(0),
            }],
        };
        for t_ref in [T0, T0 + 3_600_000_000_000, T0 - 1_000_000_000] {
            let t_rank = t_ref - 5_000 + (20e-6 * (t_ref - T0) as f64).round() as i64;
            assert!((a.to_reference(1, t_rank) - t_ref).abs() <= 1, "{t_ref}");
        }
        assert_eq!(a.aligned(), vec![(1, -5_000, 20.0)]);
    }

    #[test]
    fn sixty_four_ranks_of_ten_thousand_markers_align() {
        // The scale of the issue (its speed is measured by `make bench`).
        let mut rng = Rng(99);
        let truth = collectives(&mut rng, 10_000, 50_000_000);
        let markers: Vec<(i64, Vec<i64>)> = (0..64)
            .map(|r| {
                (
                    r,
                    recorded(&mut rng, &truth, (r - 32) * 7_000_000, 0.0, 100_000),
                )
            })
            .collect();
        let a = estimate(&markers, None).unwrap();
        for r in 1..64 {
            assert_offset(&a, r, (r - 32) * 7_000_000 + 32 * 7_000_000, 1_000_000);
        }
    }
}

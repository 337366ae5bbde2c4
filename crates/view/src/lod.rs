//! Level of detail for the timeline: the worker keeps one [`TimelineIndex`] per analysed
//! session and answers "this window, this many pixel columns, these ranks" with, per
//! rank and column, the range of the hidden-memory gap and the marker count, so the
//! page never holds the samples and a redraw costs O(columns × ranks × log n).
//!
//! The gap is `device_used − allocator_reserved` of each sample that has both counters
//! (the samples attribution reads). Between two samples the gap is held (a step
//! function), so a column's range is exact for the step curve: the value held at the
//! column's start plus every sample inside it.

use serde::{Deserialize, Serialize};

use crate::analysis::IntervalRow;
use crate::trace::Events;

/// Samples per block of the min/max pyramid.
const BLOCK: usize = 16;

/// The first index `i >= from` with `sorted[i] >= x` (`from + partition_point(< x)`),
/// galloping from `from`: consecutive pixel columns look for nearby boundaries, so this
/// costs O(log distance) instead of O(log n).
fn first_at_or_after(sorted: &[i64], from: usize, x: i64) -> usize {
    let rest = &sorted[from.min(sorted.len())..];
    let mut bound = 1;
    while bound < rest.len() && rest[bound - 1] < x {
        bound *= 2;
    }
    let lo = bound / 2;
    let hi = bound.min(rest.len());
    from.min(sorted.len()) + lo + rest[lo..hi].partition_point(|&t| t < x)
}

/// The most pixel columns a query may ask for (a 4K screen at devicePixelRatio 2).
pub const MAX_COLUMNS: u32 = 8192;

/// Per-block (min, max) levels over a series, for range queries in O(BLOCK × levels).
#[derive(Debug, Clone, Default)]
struct MinMaxPyramid {
    /// `levels[k][i]` is the (min, max) of block `i` at level `k + 1`
    /// (level 0 is the series itself).
    levels: Vec<Vec<(i64, i64)>>,
}

impl MinMaxPyramid {
    fn build(values: &[i64]) -> MinMaxPyramid {
        let mut levels: Vec<Vec<(i64, i64)>> = Vec::new();
        let mut current: Vec<(i64, i64)> = values
            .chunks(BLOCK)
            .map(|c| {
                c.iter()
                    .fold((i64::MAX, i64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)))
            })
            .collect();
        while current.len() > 1 {
            let next: Vec<(i64, i64)> = current
                .chunks(BLOCK)
                .map(|c| {
                    c.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &(a, b)| {
                        (lo.min(a), hi.max(b))
                    })
                })
                .collect();
            levels.push(current);
            current = next;
        }
        levels.push(current);
        MinMaxPyramid { levels }
    }

    /// (min, max) of `values[lo..hi]`; `None` for an empty range.
    fn range(&self, values: &[i64], lo: usize, hi: usize) -> Option<(i64, i64)> {
        let hi = hi.min(values.len());
        if lo >= hi {
            return None;
        }
        let (mut min, mut max) = (i64::MAX, i64::MIN);
        let mut add = |(a, b): (i64, i64)| {
            min = min.min(a);
            max = max.max(b);
        };
        let (mut l, mut h) = (lo, hi);
        // Level 0: the raw values, until the rest is made of whole blocks.
        if h - l < 2 * BLOCK {
            let raw = &values[l..h];
            let lo = raw.iter().copied().min().unwrap_or(i64::MAX);
            let hi = raw.iter().copied().max().unwrap_or(i64::MIN);
            return Some((lo, hi));
        }
        while l % BLOCK != 0 {
            add((values[l], values[l]));
            l += 1;
        }
        while h % BLOCK != 0 {
            h -= 1;
            add((values[h], values[h]));
        }
        l /= BLOCK;
        h /= BLOCK;
        for (k, level) in self.levels.iter().enumerate() {
            if h - l < 2 * BLOCK || k + 1 == self.levels.len() {
                level[l..h.min(level.len())].iter().for_each(|&p| add(p));
                return Some((min, max));
            }
            while l % BLOCK != 0 {
                add(level[l]);
                l += 1;
            }
            while h % BLOCK != 0 {
                h -= 1;
                add(level[h]);
            }
            l /= BLOCK;
            h /= BLOCK;
        }
        Some((min, max))
    }
}

/// One rank's series, sorted by time.
#[derive(Debug, Clone, Default)]
pub struct RankSeries {
    pub rank: i64,
    /// Sample times, ascending (stable for equal times).
    pub ts_ns: Vec<i64>,
    /// `device_used − allocator_reserved` of each sample, in bytes.
    pub gap_bytes: Vec<i64>,
    /// Collective marker times, ascending.
    pub marker_ts_ns: Vec<i64>,
    /// The largest `device_used_bytes` of any sample (`None`: no sample has it).
    pub peak_used_bytes: Option<i64>,
    pyramid: MinMaxPyramid,
}

impl RankSeries {
    /// A rank's samples and markers (any order; [`TimelineIndex::from_series`] sorts
    /// them and builds the pyramid).
    pub fn new(rank: i64, ts_ns: Vec<i64>, gap_bytes: Vec<i64>, marker_ts_ns: Vec<i64>) -> Self {
        RankSeries {
            rank,
            ts_ns,
            gap_bytes,
            marker_ts_ns,
            peak_used_bytes: None,
            pyramid: MinMaxPyramid::default(),
        }
    }

    /// The smallest and largest gap of the whole series.
    pub fn gap_range(&self) -> Option<(i64, i64)> {
        self.pyramid.range(&self.gap_bytes, 0, self.gap_bytes.len())
    }

    /// The range of the step curve over `[start_ns, end_ns)`: the value held at
    /// `start_ns` (if a sample precedes it and a later one exists) and every sample inside.
    fn step_range(&self, start_ns: i64, end_ns: i64, from: usize) -> (Option<(i64, i64)>, usize) {
        let ts = &self.ts_ns;
        let lo = first_at_or_after(ts, from, start_ns);
        let hi = first_at_or_after(ts, lo, end_ns);
        let mut range = self.pyramid.range(&self.gap_bytes, lo, hi);
        if lo > 0 && lo < ts.len() && ts[lo] > start_ns {
            let held = self.gap_bytes[lo - 1];
            range = Some(match range {
                Some((a, b)) => (a.min(held), b.max(held)),
                None => (held, held),
            });
        }
        (range, lo)
    }

    /// Markers in `[start_ns, end_ns)`, searching from index `from`.
    fn markers_in(&self, start_ns: i64, end_ns: i64, from: usize) -> (usize, usize) {
        let m = &self.marker_ts_ns;
        let lo = first_at_or_after(m, from, start_ns);
        let hi = first_at_or_after(m, lo, end_ns);
        (hi - lo, lo)
    }
}

/// The samples and markers of one session, per rank, ready for window queries.
#[derive(Debug, Clone, Default)]
pub struct TimelineIndex {
    /// Sorted by rank.
    pub ranks: Vec<RankSeries>,
    /// The session's first and last event times (every event, not only samples).
    pub start_ns: i64,
    pub end_ns: i64,
}

/// A window query: which part of the trace, at which resolution, for which ranks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowQuery {
    pub start_ns: i64,
    pub end_ns: i64,
    /// Pixel columns across the window (clamped to 1..=[`MAX_COLUMNS`]).
    pub columns: u32,
    /// The ranks to answer for (in this order); `None` = every rank.
    pub ranks: Option<Vec<i64>>,
}

/// One rank's part of a [`WindowData`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneWindow {
    pub rank: i64,
    /// Per column: the smallest and largest gap, NaN where the rank has no value.
    pub gap_min: Vec<f32>,
    pub gap_max: Vec<f32>,
    /// Per column: collective markers (saturating at `u16::MAX`).
    pub markers: Vec<u16>,
    /// The lane's scale: the smallest and largest gap of the whole trace, so a lane
    /// keeps its scale while zooming.
    pub gap_floor_bytes: i64,
    pub gap_peak_bytes: i64,
    /// Samples inside the window.
    pub window_samples: u64,
}

/// The answer to a [`WindowQuery`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowData {
    pub start_ns: i64,
    pub end_ns: i64,
    pub columns: u32,
    pub lanes: Vec<LaneWindow>,
}

/// Bytes of a lane's head in [`WindowData::to_bytes`]: rank, floor, peak, samples.
const LANE_HEAD_BYTES: usize = 4 * 8;
/// Bytes per lane and column: `gap_min`, `gap_max` (`f32`), markers (`u16`).
const LANE_COLUMN_BYTES: usize = 4 + 4 + 2;

impl WindowData {
    /// The window as bytes ([`crate::pack`]) for `postMessage`: every lane's columns
    /// as flat arrays, one copy instead of one JavaScript value per number. Lanes
    /// hold exactly `columns` values each (shorter ones padded with NaN / 0).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.columns as usize;
        let mut w = crate::pack::Writer::with_capacity(
            24 + self.lanes.len() * (LANE_HEAD_BYTES + n * LANE_COLUMN_BYTES),
        );
        w.i64(self.start_ns);
        w.i64(self.end_ns);
        w.u32(self.columns);
        w.u32(self.lanes.len() as u32);
        fn column(v: &[f32], n: usize) -> impl Iterator<Item = f32> + '_ {
            (0..n).map(move |c| v.get(c).copied().unwrap_or(f32::NAN))
        }
        for lane in &self.lanes {
            w.i64(lane.rank);
            w.i64(lane.gap_floor_bytes);
            w.i64(lane.gap_peak_bytes);
            w.u64(lane.window_samples);
            column(&lane.gap_min, n).for_each(|v| w.f32(v));
            column(&lane.gap_max, n).for_each(|v| w.f32(v));
            (0..n).for_each(|c| w.u16(lane.markers.get(c).copied().unwrap_or(0)));
        }
        w.into_bytes()
    }

    /// Back from [`WindowData::to_bytes`]; `None` for bytes it did not write.
    pub fn from_bytes(bytes: &[u8]) -> Option<WindowData> {
        use crate::pack::{Malformed, Reader};
        let read = |r: &mut Reader<'_>| -> Result<WindowData, Malformed> {
            let (start_ns, end_ns) = (r.i64()?, r.i64()?);
            let columns = r.u32()?;
            let n = columns as usize;
            let lane_bytes = n
                .checked_mul(LANE_COLUMN_BYTES)
                .and_then(|b| b.checked_add(LANE_HEAD_BYTES))
                .ok_or(Malformed)?;
            let lanes = (0..r.count(lane_bytes)?)
                .map(|_| {
                    let (rank, gap_floor_bytes, gap_peak_bytes) = (r.i64()?, r.i64()?, r.i64()?);
                    Ok(LaneWindow {
                        rank,
                        gap_floor_bytes,
                        gap_peak_bytes,
                        window_samples: r.u64()?,
                        gap_min: r.f32s(n)?,
                        gap_max: r.f32s(n)?,
                        markers: r.u16s(n)?,
                    })
                })
                .collect::<Result<Vec<_>, Malformed>>()?;
            Ok(WindowData {
                start_ns,
                end_ns,
                columns,
                lanes,
            })
        };
        let mut r = Reader::new(bytes);
        let data = read(&mut r).ok()?;
        r.is_empty().then_some(data)
    }
}

/// The overview strip ([`TimelineIndex::overview`]) as bytes: `f32` per column.
pub fn overview_to_bytes(gap_max: &[f32]) -> Vec<u8> {
    let mut w = crate::pack::Writer::with_capacity(gap_max.len() * 4);
    w.f32s(gap_max);
    w.into_bytes()
}

/// Back from [`overview_to_bytes`]; `None` for a length that is not whole `f32`s.
pub fn overview_from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    crate::pack::Reader::new(bytes).f32s(bytes.len() / 4).ok()
}

/// One rank's totals for the per-rank summary table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankSummary {
    pub rank: i64,
    pub samples: u64,
    pub markers: u64,
    /// The largest gap (bytes), `None` without samples.
    pub peak_gap_bytes: Option<i64>,
    pub peak_gap_ts_ns: Option<i64>,
    /// The largest device memory in use (`device_used_bytes`) of any sample.
    #[serde(default)]
    pub peak_used_bytes: Option<i64>,
    /// Attributed intervals on this rank.
    pub intervals: u64,
}

fn column_edges(start_ns: i64, end_ns: i64, columns: u32) -> impl Iterator<Item = (i64, i64)> {
    let span = (i128::from(end_ns) - i128::from(start_ns)).max(1);
    let columns_i = i128::from(columns.max(1));
    let edge = move |c: i128| (i128::from(start_ns) + span * c / columns_i) as i64;
    (0..columns_i).map(move |c| (edge(c), edge(c + 1)))
}

impl TimelineIndex {
    /// Index one session's events (in time order, as the loader delivers them).
    pub fn build(events: Events<'_>) -> TimelineIndex {
        let mut ranks: Vec<RankSeries> = Vec::new();
        let mut slot_of = std::collections::HashMap::<i64, usize>::new();
        let (mut start_ns, mut end_ns) = (i64::MAX, i64::MIN);
        for (e, source) in events.iter() {
            start_ns = start_ns.min(e.timestamp_ns);
            end_ns = end_ns.max(e.timestamp_ns);
            let slot = *slot_of.entry(source.rank).or_insert_with(|| {
                ranks.push(RankSeries {
                    rank: source.rank,
                    ..RankSeries::default()
                });
                ranks.len() - 1
            });
            let series = &mut ranks[slot];
            if source.is_marker() {
                series.marker_ts_ns.push(e.timestamp_ns);
            }
            if source.is_sample() {
                if let Some(used) = e.device_used_bytes() {
                    series.peak_used_bytes =
                        Some(series.peak_used_bytes.map_or(used, |p| p.max(used)));
                }
                if let (Some(used), Some(reserved)) =
                    (e.device_used_bytes(), e.allocator_reserved_bytes())
                {
                    series.ts_ns.push(e.timestamp_ns);
                    series.gap_bytes.push(used.saturating_sub(reserved));
                }
            }
        }
        if events.is_empty() {
            (start_ns, end_ns) = (0, 0);
        }
        TimelineIndex::from_series(ranks, start_ns, end_ns)
    }

    /// Index per-rank arrays directly (samples and markers in any order; the time span
    /// of the events they came from). `build` uses it; so do benchmarks.
    pub fn from_series(mut ranks: Vec<RankSeries>, start_ns: i64, end_ns: i64) -> TimelineIndex {
        for series in &mut ranks {
            sort_paired(&mut series.ts_ns, &mut series.gap_bytes);
            series.marker_ts_ns.sort_unstable();
            series.pyramid = MinMaxPyramid::build(&series.gap_bytes);
        }
        ranks.sort_by_key(|r| r.rank);
        TimelineIndex {
            ranks,
            start_ns,
            end_ns,
        }
    }

    pub fn series(&self, rank: i64) -> Option<&RankSeries> {
        self.ranks
            .binary_search_by_key(&rank, |r| r.rank)
            .ok()
            .map(|i| &self.ranks[i])
    }

    /// Answer a window query. An empty or inverted window answers with the whole trace.
    pub fn query(&self, q: &WindowQuery) -> WindowData {
        let (start_ns, end_ns) = if q.end_ns > q.start_ns {
            (q.start_ns, q.end_ns)
        } else {
            (
                self.start_ns,
                self.end_ns.max(self.start_ns.saturating_add(1)),
            )
        };
        let columns = q.columns.clamp(1, MAX_COLUMNS);
        let wanted: Vec<&RankSeries> = match &q.ranks {
            None => self.ranks.iter().collect(),
            Some(list) => list.iter().filter_map(|&r| self.series(r)).collect(),
        };
        let lanes = wanted
            .into_iter()
            .map(|series| self.lane(series, start_ns, end_ns, columns))
            .collect();
        WindowData {
            start_ns,
            end_ns,
            columns,
            lanes,
        }
    }

    fn lane(&self, series: &RankSeries, start_ns: i64, end_ns: i64, columns: u32) -> LaneWindow {
        let n = columns as usize;
        let (mut gap_min, mut gap_max) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut markers = Vec::with_capacity(n);
        let (mut from, mut marker_from) = (0, 0);
        for (c0, c1) in column_edges(start_ns, end_ns, columns) {
            let (range, lo) = series.step_range(c0, c1, from);
            from = lo;
            match range {
                Some((a, b)) => {
                    gap_min.push(a as f32);
                    gap_max.push(b as f32);
                }
                None => {
                    gap_min.push(f32::NAN);
                    gap_max.push(f32::NAN);
                }
            }
            let (count, lo) = series.markers_in(c0, c1, marker_from);
            marker_from = lo;
            markers.push(u16::try_from(count).unwrap_or(u16::MAX));
        }
        let ts = &series.ts_ns;
        let inside = ts.partition_point(|&t| t < end_ns) - ts.partition_point(|&t| t < start_ns);
        let (floor, peak) = series.gap_range().unwrap_or((0, 0));
        LaneWindow {
            rank: series.rank,
            gap_min,
            gap_max,
            markers,
            gap_floor_bytes: floor,
            gap_peak_bytes: peak,
            window_samples: inside as u64,
        }
    }

    /// The largest gap over `ranks` (`None`: all) per column of the whole trace: the
    /// overview strip above the lanes. NaN where no rank has a value.
    pub fn overview(&self, columns: u32, ranks: Option<&[i64]>) -> Vec<f32> {
        // The window's end is exclusive: reach one past the last event.
        let q = WindowQuery {
            start_ns: self.start_ns,
            end_ns: self
                .end_ns
                .saturating_add(1)
                .max(self.start_ns.saturating_add(1)),
            columns,
            ranks: ranks.map(<[i64]>::to_vec),
        };
        let data = self.query(&q);
        let mut out = vec![f32::NAN; data.columns as usize];
        for lane in &data.lanes {
            for (o, &v) in out.iter_mut().zip(&lane.gap_max) {
                if !v.is_nan() && (o.is_nan() || v > *o) {
                    *o = v;
                }
            }
        }
        out
    }

    /// Per-rank totals, with the intervals of `rows` counted per rank.
    pub fn rank_summaries(&self, rows: &[IntervalRow]) -> Vec<RankSummary> {
        self.ranks
            .iter()
            .map(|s| {
                let peak = s
                    .gap_bytes
                    .iter()
                    .enumerate()
                    .max_by_key(|&(i, g)| (*g, std::cmp::Reverse(i)));
                RankSummary {
                    rank: s.rank,
                    samples: s.ts_ns.len() as u64,
                    markers: s.marker_ts_ns.len() as u64,
                    peak_gap_bytes: peak.map(|(_, &g)| g),
                    peak_gap_ts_ns: peak.map(|(i, _)| s.ts_ns[i]),
                    peak_used_bytes: s.peak_used_bytes,
                    intervals: rows.iter().filter(|r| r.rank == s.rank).count() as u64,
                }
            })
            .collect()
    }
}

/// Sort two parallel vectors by the first (stable), if they are not sorted already.
fn sort_paired(keys: &mut Vec<i64>, values: &mut Vec<i64>) {
    if keys.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| (keys[i], i));
    *keys = order.iter().map(|&i| keys[i]).collect();
    *values = order.iter().map(|&i| values[i]).collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn galloping_search_equals_partition_point() {
        let sorted: Vec<i64> = (0..300).map(|i| (i / 3) * 10).collect();
        for from in [0, 1, 7, 150, 299, 300, 400] {
            for x in [-5, 0, 5, 10, 11, 495, 990, 1000, 5000] {
                let f = from.min(sorted.len());
                let want = f + sorted[f..].partition_point(|&t| t < x);
                assert_eq!(
                    first_at_or_after(&sorted, from, x),
                    want,
                    "from {from}, x {x}"
                );
            }
        }
        assert_eq!(first_at_or_after(&[], 0, 3), 0);
    }

    fn brute(values: &[i64], lo: usize, hi: usize) -> Option<(i64, i64)> {
        let s = values.get(lo..hi.min(values.len()))?;
        if s.is_empty() {
            return None;
        }
        Some((
            s.iter().copied().min().unwrap_or(0),
            s.iter().copied().max().unwrap_or(0),
        ))
    }

    #[test]
    fn pyramid_ranges_equal_brute_force() {
        let mut x: u64 = 7;
        for n in [0usize, 1, 5, 16, 17, 31, 32, 33, 255, 256, 257, 1000, 5003] {
            let values: Vec<i64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 33) as i64 - (1 << 30)
                })
                .collect();
            let p = MinMaxPyramid::build(&values);
            let mut y: u64 = 3;
            for _ in 0..300 {
                y = y.wrapping_mul(6364136223846793005).wrapping_add(1);
                let a = (y >> 40) as usize % (n + 2);
                let b = (y >> 20) as usize % (n + 2);
                let (lo, hi) = (a.min(b), a.max(b));
                assert_eq!(
                    p.range(&values, lo, hi),
                    brute(&values, lo, hi),
                    "n={n} {lo}..{hi}"
                );
            }
        }
    }

    fn series(points: &[(i64, i64)], markers: &[i64]) -> RankSeries {
        let ts: Vec<i64> = points.iter().map(|p| p.0).collect();
        let gap: Vec<i64> = points.iter().map(|p| p.1).collect();
        RankSeries {
            rank: 0,
            pyramid: MinMaxPyramid::build(&gap),
            ts_ns: ts,
            gap_bytes: gap,
            marker_ts_ns: markers.to_vec(),
            peak_used_bytes: None,
        }
    }

    #[test]
    fn columns_hold_the_step_value_between_samples() {
        let s = series(&[(0, 10), (100, 50), (200, 20)], &[150, 151, 400]);
        let index = TimelineIndex {
            ranks: vec![s],
            start_ns: 0,
            end_ns: 200,
        };
        let data = index.query(&WindowQuery {
            start_ns: 0,
            end_ns: 400,
            columns: 8,
            ranks: None,
        });
        let lane = &data.lanes[0];
        // Columns of 50 ns: [0,50) holds 10; [50,100) still 10; [100,150) 50; [150,200) 50;
        // [200,250) 20 (last sample, nothing after it to hold towards); later: none.
        assert_eq!(&lane.gap_min[..5], &[10.0, 10.0, 50.0, 50.0, 20.0]);
        assert!(lane.gap_min[5..].iter().all(|v| v.is_nan()));
        assert_eq!(lane.markers, vec![0, 0, 0, 2, 0, 0, 0, 0]);
        assert_eq!((lane.gap_floor_bytes, lane.gap_peak_bytes), (10, 50));
        assert_eq!(lane.window_samples, 3);
    }

    #[test]
    fn a_wide_column_spans_every_sample_inside_it() {
        let points: Vec<(i64, i64)> = (0..10_000).map(|i| (i * 10, (i * 37) % 1000)).collect();
        let index = TimelineIndex {
            ranks: vec![series(&points, &[])],
            start_ns: 0,
            end_ns: 99_990,
        };
        let data = index.query(&WindowQuery {
            start_ns: 0,
            end_ns: 100_000,
            columns: 10,
            ranks: Some(vec![0, 5]),
        });
        assert_eq!(data.lanes.len(), 1, "unknown ranks are skipped");
        for c in 0..10 {
            let slice = &points[c * 1000..(c + 1) * 1000];
            let lo = slice.iter().map(|p| p.1).min().unwrap_or(0);
            let hi = slice.iter().map(|p| p.1).max().unwrap_or(0);
            // A sample sits exactly on each column's start: nothing is held into it.
            assert_eq!(data.lanes[0].gap_min[c], lo as f32);
            assert_eq!(data.lanes[0].gap_max[c], hi as f32);
        }
    }

    #[test]
    fn overview_takes_the_largest_gap_over_ranks() {
        let mut a = series(&[(0, 5), (100, 9)], &[]);
        let mut b = series(&[(0, 7), (100, 1)], &[]);
        a.rank = 0;
        b.rank = 1;
        let index = TimelineIndex {
            ranks: vec![a, b],
            start_ns: 0,
            end_ns: 100,
        };
        assert_eq!(index.overview(2, None), vec![7.0, 9.0]);
        // Rank 1 holds 7 until its sample of 1 at the very end.
        assert_eq!(index.overview(2, Some(&[1])), vec![7.0, 7.0]);
    }
}

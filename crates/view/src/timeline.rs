//! The timeline's geometry as plain values: the visible window and how it pans and
//! zooms, the ns ↔ pixel mapping, time-axis ticks, lane layout and hit testing. The
//! page's canvas code only paints what these return; everything here is tested natively.

use crate::analysis::IntervalRow;

pub use shardscope_session::window::{TimeWindow, MIN_SPAN_NS};

/// The trace's extent with a little room on both sides, so intervals padded past the
/// last sample stay visible: the bounds every pan and zoom respects.
pub fn trace_bounds(start_ns: i64, end_ns: i64, rows: &[IntervalRow]) -> TimeWindow {
    let first = rows
        .iter()
        .map(|r| r.interval_start_ns)
        .min()
        .map_or(start_ns, |s| s.min(start_ns));
    let last = rows
        .iter()
        .map(|r| r.interval_end_ns)
        .max()
        .map_or(end_ns, |e| e.max(end_ns));
    TimeWindow::new(first, last)
}

/// Maps the window onto `[x0_px, x0_px + width_px]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XMap {
    pub window: TimeWindow,
    pub x0_px: f64,
    pub width_px: f64,
}

impl XMap {
    pub fn x(&self, ts_ns: i64) -> f64 {
        self.x0_px
            + (ts_ns - self.window.start_ns) as f64 / self.window.span_ns() as f64 * self.width_px
    }

    pub fn ns(&self, x_px: f64) -> i64 {
        let fraction = (x_px - self.x0_px) / self.width_px.max(1e-9);
        (self.window.start_ns as f64 + fraction * self.window.span_ns() as f64).round() as i64
    }
}

/// One labelled tick of the time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub ts_ns: i64,
    /// Relative to the trace start, e.g. `+12.40 s`.
    pub label: String,
}

/// The step between ticks: the smallest 1, 2 or 5 × 10^k ns that leaves at least
/// `min_spacing_px` between labels.
pub fn tick_step_ns(span_ns: i64, width_px: f64, min_spacing_px: f64) -> i64 {
    let max_ticks = (width_px / min_spacing_px.max(1.0)).floor().max(1.0);
    let raw = span_ns.max(1) as f64 / max_ticks;
    let mut magnitude: i64 = 1;
    loop {
        for m in [1, 2, 5] {
            let step = magnitude.saturating_mul(m);
            if step as f64 >= raw {
                return step;
            }
        }
        if magnitude > i64::MAX / 10 {
            return i64::MAX;
        }
        magnitude *= 10;
    }
}

/// `+12.40 s`: an offset from the trace start in seconds, with as many decimals as the
/// tick step needs (never in exponent form).
pub fn format_offset(offset_ns: i64, step_ns: i64) -> String {
    let decimals = {
        let mut d = 0usize;
        let mut unit: i64 = 1_000_000_000;
        while unit > step_ns.max(1) && d < 9 {
            unit /= 10;
            d += 1;
        }
        d
    };
    let sign = if offset_ns < 0 { "−" } else { "+" };
    let seconds = offset_ns.unsigned_abs() as f64 / 1e9;
    format!("{sign}{seconds:.decimals$} s")
}

/// The ticks inside `window`, labelled relative to `origin_ns` (the trace start).
pub fn time_ticks(
    window: TimeWindow,
    origin_ns: i64,
    width_px: f64,
    min_spacing_px: f64,
) -> Vec<Tick> {
    let step = tick_step_ns(window.span_ns(), width_px, min_spacing_px);
    // Ticks fall on multiples of the step counted from the origin.
    let rel_start = window.start_ns.saturating_sub(origin_ns);
    let first = rel_start
        .div_euclid(step)
        .saturating_add(i64::from(rel_start.rem_euclid(step) != 0));
    let mut ticks = Vec::new();
    let mut k = first;
    while ticks.len() < 1000 {
        let rel = k.saturating_mul(step);
        let ts = origin_ns.saturating_add(rel);
        if ts > window.end_ns || rel == i64::MAX {
            break;
        }
        ticks.push(Tick {
            ts_ns: ts,
            label: format_offset(rel, step),
        });
        k += 1;
    }
    ticks
}

/// Lanes stacked from `top_px`, one per rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneLayout {
    pub top_px: f64,
    pub lane_height_px: f64,
    pub count: usize,
}

/// Lane heights: generous for a few ranks, down to 12 px so 64 ranks fit.
pub const LANE_MAX_PX: f64 = 44.0;
pub const LANE_MIN_PX: f64 = 12.0;

impl LaneLayout {
    /// Lanes for `count` ranks, filling `available_px` within the height limits.
    pub fn fit(count: usize, top_px: f64, available_px: f64) -> LaneLayout {
        let per = if count == 0 {
            LANE_MAX_PX
        } else {
            (available_px / count as f64).clamp(LANE_MIN_PX, LANE_MAX_PX)
        };
        LaneLayout {
            top_px,
            lane_height_px: per.floor(),
            count,
        }
    }

    /// The total height the lanes take.
    pub fn height_px(&self) -> f64 {
        self.lane_height_px * self.count as f64
    }

    /// Top and bottom of lane `i`.
    pub fn lane_y(&self, i: usize) -> (f64, f64) {
        let top = self.top_px + self.lane_height_px * i as f64;
        (top, top + self.lane_height_px)
    }

    /// The lane under `y_px`.
    pub fn lane_at(&self, y_px: f64) -> Option<usize> {
        if y_px < self.top_px || self.lane_height_px <= 0.0 {
            return None;
        }
        let i = ((y_px - self.top_px) / self.lane_height_px).floor() as usize;
        (i < self.count).then_some(i)
    }

    /// Label every n-th lane so labels never overlap (a label needs ~11 px).
    pub fn label_stride(&self) -> usize {
        (11.0 / self.lane_height_px.max(1.0)).ceil().max(1.0) as usize
    }
}

/// The interval on `rank` under `ts_ns`, allowing `tolerance_ns` either side (so thin
/// bands stay clickable); the nearest one wins, then the most confident.
pub fn interval_at(
    rows: &[IntervalRow],
    rank: i64,
    ts_ns: i64,
    tolerance_ns: i64,
) -> Option<usize> {
    let distance = |r: &IntervalRow| {
        if ts_ns < r.interval_start_ns {
            r.interval_start_ns - ts_ns
        } else if ts_ns > r.interval_end_ns {
            ts_ns - r.interval_end_ns
        } else {
            0
        }
    };
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.rank == rank && distance(r) <= tolerance_ns.max(0))
        .min_by(|(_, a), (_, b)| {
            distance(a)
                .cmp(&distance(b))
                .then(b.confidence.total_cmp(&a.confidence))
        })
        .map(|(i, _)| i)
}

/// The row of the interval `(rank, interval_start_ns)` (how a selection is kept across
/// reports).
pub fn row_of(rows: &[IntervalRow], (rank, start_ns): (i64, i64)) -> Option<usize> {
    rows.iter()
        .position(|r| r.rank == rank && r.interval_start_ns == start_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: TimeWindow = TimeWindow {
        start_ns: 0,
        end_ns: 10_000_000_000,
    };

    #[test]
    fn zoom_keeps_the_anchor_in_place() {
        let w = TimeWindow::new(2_000_000_000, 6_000_000_000);
        let z = w.zoom_at(3_000_000_000, 0.5, BOUNDS);
        assert_eq!(z, TimeWindow::new(2_500_000_000, 4_500_000_000));
        let before = XMap {
            window: w,
            x0_px: 0.0,
            width_px: 800.0,
        }
        .x(3_000_000_000);
        let after = XMap {
            window: z,
            x0_px: 0.0,
            width_px: 800.0,
        }
        .x(3_000_000_000);
        assert!((before - after).abs() < 1e-6);
    }

    #[test]
    fn x_mapping_round_trips() {
        let m = XMap {
            window: TimeWindow::new(1_700_000_000_000_000_000, 1_700_000_004_000_000_000),
            x0_px: 80.0,
            width_px: 1000.0,
        };
        assert_eq!(m.x(1_700_000_002_000_000_000), 580.0);
        assert_eq!(m.ns(580.0), 1_700_000_002_000_000_000);
    }

    #[test]
    fn ticks_are_round_offsets_from_the_trace_start() {
        let origin = 1_700_000_000_123_000_000;
        let w = TimeWindow::new(origin, origin + 4_200_000_000);
        let ticks = time_ticks(w, origin, 800.0, 90.0);
        let labels: Vec<&str> = ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["+0 s", "+1 s", "+2 s", "+3 s", "+4 s"]);
        let w = TimeWindow::new(origin + 12_395_000_000, origin + 12_412_000_000);
        let ticks = time_ticks(w, origin, 800.0, 90.0);
        assert_eq!(ticks[0].label, "+12.395 s");
        assert_eq!(ticks[1].label, "+12.400 s");
        assert_eq!(tick_step_ns(17_000_000, 800.0, 90.0), 5_000_000);
        assert_eq!(format_offset(-1_500_000, 1_000_000), "−0.002 s");
        assert_eq!(format_offset(12_400_000_000, 100_000_000), "+12.4 s");
    }

    #[test]
    fn sixty_four_lanes_fit_and_labels_thin_out() {
        let l = LaneLayout::fit(64, 20.0, 600.0);
        assert_eq!(l.lane_height_px, 12.0);
        assert_eq!(l.label_stride(), 1);
        let l = LaneLayout::fit(4, 20.0, 600.0);
        assert_eq!(l.lane_height_px, LANE_MAX_PX);
        assert_eq!(l.lane_at(20.0 + 44.0 * 2.5), Some(2));
        assert_eq!(l.lane_at(10.0), None);
        assert_eq!(l.lane_at(20.0 + 44.0 * 4.0), None);
        let tight = LaneLayout {
            top_px: 0.0,
            lane_height_px: 5.0,
            count: 100,
        };
        assert_eq!(tight.label_stride(), 3);
    }
}

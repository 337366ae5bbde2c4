//! The visible time range of the timeline and how it pans and zooms: what a permalink's
//! `t=START-END` holds and what the view maps to pixels.

use serde::{Deserialize, Serialize};

/// The narrowest window the timeline zooms to (1 µs).
pub const MIN_SPAN_NS: i64 = 1_000;

/// A visible time range `[start_ns, end_ns]` on the trace's own clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeWindow {
    pub start_ns: i64,
    pub end_ns: i64,
}

impl TimeWindow {
    /// A window; an empty or inverted range becomes one nanosecond wide.
    pub fn new(start_ns: i64, end_ns: i64) -> TimeWindow {
        TimeWindow {
            start_ns,
            end_ns: end_ns.max(start_ns.saturating_add(1)),
        }
    }

    pub fn span_ns(&self) -> i64 {
        self.end_ns.saturating_sub(self.start_ns).max(1)
    }

    pub fn contains(&self, ts_ns: i64) -> bool {
        (self.start_ns..=self.end_ns).contains(&ts_ns)
    }

    /// The window moved inside `bounds` (shifted, never shrunk unless wider than them).
    pub fn clamp_to(self, bounds: TimeWindow) -> TimeWindow {
        let span = self.span_ns();
        if span >= bounds.span_ns() {
            return bounds;
        }
        let start = self
            .start_ns
            .clamp(bounds.start_ns, bounds.end_ns.saturating_sub(span));
        TimeWindow::new(start, start.saturating_add(span))
    }

    /// Zoom by `factor` (below 1 zooms in) keeping `anchor_ns` where it is on screen.
    pub fn zoom_at(self, anchor_ns: i64, factor: f64, bounds: TimeWindow) -> TimeWindow {
        let factor = if factor.is_finite() && factor > 0.0 {
            factor
        } else {
            1.0
        };
        let anchor = anchor_ns.clamp(self.start_ns, self.end_ns) as f64;
        let min_span = MIN_SPAN_NS.min(bounds.span_ns()) as f64;
        let span = (self.span_ns() as f64 * factor).clamp(min_span, bounds.span_ns() as f64);
        // Keep the anchor's fraction of the window.
        let fraction = (anchor - self.start_ns as f64) / self.span_ns() as f64;
        let start = anchor - fraction * span;
        TimeWindow::new(start.round() as i64, (start + span).round() as i64).clamp_to(bounds)
    }

    /// Move by `delta_ns` (positive: later), staying inside `bounds`.
    pub fn pan_by(self, delta_ns: i64, bounds: TimeWindow) -> TimeWindow {
        TimeWindow::new(
            self.start_ns.saturating_add(delta_ns),
            self.end_ns.saturating_add(delta_ns),
        )
        .clamp_to(bounds)
    }

    /// A window showing `[start_ns, end_ns]` with `margin` of its span on each side
    /// (double-clicking an interval zooms to it).
    pub fn around(start_ns: i64, end_ns: i64, margin: f64, bounds: TimeWindow) -> TimeWindow {
        let span = end_ns.saturating_sub(start_ns).max(MIN_SPAN_NS) as f64;
        let pad = (span * margin.max(0.0)).round() as i64;
        TimeWindow::new(start_ns.saturating_sub(pad), end_ns.saturating_add(pad)).clamp_to(bounds)
    }

    /// A window of `span_ns` centred on `ts_ns` (pressing the overview strip moves the
    /// window there; the caller clamps it to the bounds).
    pub fn centred_at(ts_ns: i64, span_ns: i64) -> TimeWindow {
        let start = ts_ns.saturating_sub(span_ns / 2);
        TimeWindow::new(start, start.saturating_add(span_ns))
    }

    /// The window to move to so that `[start_ns, end_ns]` (an interval selected
    /// elsewhere) is in view: `None` when part of it already shows; otherwise centred on
    /// it, as wide as now or as the interval, whichever is wider.
    pub fn revealing(self, start_ns: i64, end_ns: i64) -> Option<TimeWindow> {
        if end_ns >= self.start_ns && start_ns <= self.end_ns {
            return None;
        }
        let span = self.span_ns().max(end_ns.saturating_sub(start_ns));
        let mid = start_ns.saturating_add(end_ns.saturating_sub(start_ns) / 2);
        Some(TimeWindow::centred_at(mid, span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: TimeWindow = TimeWindow {
        start_ns: 0,
        end_ns: 10_000_000_000,
    };

    #[test]
    fn centred_and_revealing_windows() {
        assert_eq!(
            TimeWindow::centred_at(5_000, 2_000),
            TimeWindow::new(4_000, 6_000)
        );
        // An odd span keeps its width.
        assert_eq!(TimeWindow::centred_at(10, 5).span_ns(), 5);
        let w = TimeWindow::new(1_000, 2_000);
        // Overlapping at either edge, or inside: already in view.
        assert_eq!(w.revealing(500, 1_000), None);
        assert_eq!(w.revealing(2_000, 2_500), None);
        assert_eq!(w.revealing(1_200, 1_300), None);
        // Out of view: centred on it, the same width.
        assert_eq!(
            w.revealing(5_000, 5_200),
            Some(TimeWindow::new(4_600, 5_600))
        );
        assert_eq!(w.revealing(0, 999), Some(TimeWindow::new(-1, 999)));
        // Wider than the window: the interval's width.
        assert_eq!(
            w.revealing(10_000, 13_000),
            Some(TimeWindow::new(10_000, 13_000))
        );
    }

    #[test]
    fn zoom_stops_at_one_microsecond_and_at_the_whole_trace() {
        let w = TimeWindow::new(1_000, 3_000);
        assert_eq!(w.zoom_at(2_000, 0.01, BOUNDS).span_ns(), MIN_SPAN_NS);
        assert_eq!(TimeWindow::new(1, 9).zoom_at(5, 1e12, BOUNDS), BOUNDS);
        assert_eq!(w.zoom_at(2_000, f64::NAN, BOUNDS), w);
    }

    #[test]
    fn pan_stays_inside_the_trace() {
        let w = TimeWindow::new(1_000_000_000, 2_000_000_000);
        assert_eq!(
            w.pan_by(-5_000_000_000, BOUNDS),
            TimeWindow::new(0, 1_000_000_000)
        );
        assert_eq!(
            w.pan_by(50_000_000_000, BOUNDS),
            TimeWindow::new(9_000_000_000, 10_000_000_000)
        );
        assert_eq!(
            w.pan_by(250, BOUNDS),
            TimeWindow::new(1_000_000_250, 2_000_000_250)
        );
    }
}

//! What every piece of the timeline shares: the rows and ranks it shows, the visible
//! window, the layout and the hover, and the window changes (zoom, pan, select). Each
//! change is a core function (`view::timeline`, `view::timeline_input`); this only
//! reads the signals and writes the result back.

use std::sync::Arc;

use leptos::prelude::*;
use shardscope_attribution::analysis::IntervalRow;
use shardscope_view::compare::{joined_bounds, lane_shift_ns};
use shardscope_view::timeline::{interval_at, row_of, trace_bounds, TimeWindow};
use shardscope_view::timeline_input::{hit_tolerance_ns, step_interval, Step, INTERVAL_ZOOM_FILL};
use shardscope_view::timeline_scene::{lane_rank, lanes_per_rank, TimelineLayout};

use crate::protocol::TraceReport;

use super::super::super::state::{CompareState, TraceState};

/// What the pointer is over.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    /// CSS px within the lanes canvas.
    pub x: f64,
    pub y: f64,
    pub rank: Option<i64>,
    pub ts_ns: i64,
    /// Index into the report's rows (run A's lanes).
    pub interval: Option<usize>,
    /// On run B's lanes: the time on run B's clock and the index into its rows (shown,
    /// never selected: selecting is run A's).
    pub b_ts_ns: Option<i64>,
    pub b_interval: Option<usize>,
}

/// The timeline's shared state, handed to each piece as a prop (all handles: `Copy`).
#[derive(Clone, Copy)]
pub struct TimelineModel {
    pub trace: TraceState,
    /// Run B of a comparison (its lanes under run A's).
    pub compare: CompareState,
    /// Run B's rows, and the shift that puts its times on run A's axis (`None`: no run
    /// B, or no way to line it up).
    pub b_rows: Memo<Rows>,
    pub b_shift_ns: Memo<Option<i64>>,
    /// Lanes per rank (2 while comparing).
    pub per_rank: Memo<usize>,
    pub ranks: Memo<Vec<i64>>,
    pub rows: Memo<Rows>,
    /// The trace's extent; `None` before a report.
    pub bounds: Memo<Option<TimeWindow>>,
    /// The trace's first timestamp: times on screen are offsets from it.
    pub origin_ns: Memo<i64>,
    /// The window shown (the user's, clamped to the bounds, or the whole trace).
    pub window: Memo<Option<TimeWindow>>,
    pub layout: Memo<TimelineLayout>,
    pub hover: RwSignal<Option<Hover>>,
    /// The keyboard cursor: an interval (rank, start) the arrows moved to.
    pub cursor: RwSignal<Option<(i64, i64)>>,
}

impl TimelineModel {
    /// The model of `trace`, laid out `width` CSS px wide.
    pub fn new(trace: TraceState, compare: CompareState, width: RwSignal<f64>) -> TimelineModel {
        let ranks = Memo::new(move |_| trace.visible_ranks());
        let rows = Memo::new(move |_| Rows(trace.run.report.get()));
        let b_rows = Memo::new(move |_| Rows(compare.run.report.get()));
        let b_shift_ns = Memo::new(move |_| {
            let axis = compare.axis.get();
            let a = trace.run.report.get()?;
            let b = compare.run.report.get()?;
            lane_shift_ns(
                (&a.facts, a.trace_start_ns),
                (&b.facts, b.trace_start_ns),
                axis,
            )
        });
        let per_rank = Memo::new(move |_| lanes_per_rank(b_shift_ns.get().is_some()));
        let bounds = Memo::new(move |_| {
            let bounds_of =
                |r: &TraceReport| Some(trace_bounds(r.trace_start_ns?, r.trace_end_ns?, &r.rows));
            let a = trace.run.report.with(|r| bounds_of(r.as_ref()?))?;
            let b = compare.run.report.with(|r| bounds_of(r.as_ref()?));
            Some(match b_shift_ns.get() {
                Some(shift) => joined_bounds(a, b, shift),
                None => a,
            })
        });
        let origin_ns = Memo::new(move |_| {
            trace
                .run
                .report
                .with(|r| r.as_ref().and_then(|r| r.trace_start_ns))
                .unwrap_or(0)
        });
        let window = Memo::new(move |_| {
            let bounds = bounds.get()?;
            Some(trace.window.get().map_or(bounds, |w| w.clamp_to(bounds)))
        });
        let layout = Memo::new(move |_| {
            TimelineLayout::new(width.get(), ranks.with(Vec::len) * per_rank.get())
        });
        TimelineModel {
            trace,
            compare,
            b_rows,
            b_shift_ns,
            per_rank,
            ranks,
            rows,
            bounds,
            origin_ns,
            window,
            layout,
            hover: RwSignal::new(None),
            cursor: RwSignal::new(None),
        }
    }

    /// Show `w` (clamped to the trace; the whole trace is stored as "no window").
    pub fn set_window(&self, w: TimeWindow) {
        let Some(b) = self.bounds.get_untracked() else {
            return;
        };
        let w = w.clamp_to(b);
        self.trace.window.set((w != b).then_some(w));
    }

    /// What is under `(x, y)` (CSS px in the lanes canvas).
    pub fn hit(&self, x: f64, y: f64) -> Option<Hover> {
        let window = self.window.get_untracked()?;
        let l = self.layout.get_untracked();
        let ts_ns = l.xmap(window).ns(x.clamp(l.plot_x0, l.plot_x1));
        let per_rank = self.per_rank.get_untracked();
        let lane = l
            .lanes
            .lane_at(y)
            .and_then(|i| self.ranks.with_untracked(|r| lane_rank(r, i, per_rank)));
        let rank = lane.map(|(rank, _)| rank);
        // Run B's lanes show; hovering and selecting are run A's.
        let on_a = lane.is_some_and(|(_, run)| run == 0);
        let tolerance = hit_tolerance_ns(window.span_ns(), l.plot_width());
        let trace = self.trace;
        let interval = rank.filter(|_| on_a).and_then(|rank| {
            self.rows.with_untracked(|rows| {
                interval_at(rows, rank, ts_ns, tolerance)
                    .filter(|&i| trace.class_shown(rows[i].classification))
            })
        });
        let b_ts_ns = self
            .b_shift_ns
            .get_untracked()
            .filter(|_| lane.is_some() && !on_a)
            .map(|shift| ts_ns.saturating_sub(shift));
        let b_interval = rank.zip(b_ts_ns).and_then(|(rank, ts)| {
            self.b_rows.with_untracked(|rows| {
                interval_at(rows, rank, ts, tolerance)
                    .filter(|&i| trace.class_shown(rows[i].classification))
            })
        });
        Some(Hover {
            x,
            y,
            rank,
            ts_ns,
            interval,
            b_ts_ns,
            b_interval,
        })
    }

    /// Where keyboard zoom anchors: the hovered time, else the window's middle.
    pub fn anchor_ns(&self) -> Option<i64> {
        let window = self.window.get_untracked()?;
        Some(match self.hover.get_untracked() {
            Some(h) if self.layout.get_untracked().in_plot(h.x) => h.ts_ns,
            _ => window.start_ns + window.span_ns() / 2,
        })
    }

    /// Zoom by `factor` around `anchor_ns` (the middle when `None`).
    pub fn zoom(&self, factor: f64, anchor_ns: Option<i64>) {
        let (Some(window), Some(b)) = (self.window.get_untracked(), self.bounds.get_untracked())
        else {
            return;
        };
        let anchor = anchor_ns.unwrap_or(window.start_ns + window.span_ns() / 2);
        self.set_window(window.zoom_at(anchor, factor, b));
    }

    /// Pan by `fraction` of the window (negative: earlier).
    pub fn pan(&self, fraction: f64) {
        let (Some(window), Some(b)) = (self.window.get_untracked(), self.bounds.get_untracked())
        else {
            return;
        };
        self.set_window(window.pan_by((window.span_ns() as f64 * fraction).round() as i64, b));
    }

    /// Select row `index` (`None`: clear the selection).
    pub fn select_row(&self, index: Option<usize>) {
        let key = index.and_then(|i| {
            self.rows
                .with_untracked(|rows| rows.get(i).map(|r| (r.rank, r.interval_start_ns)))
        });
        self.trace.selected.set(key);
    }

    /// The selected interval's row, if it is in this report.
    pub fn selected_row(&self) -> Option<usize> {
        let key = self.trace.selected.get_untracked()?;
        self.rows.with_untracked(|rows| row_of(rows, key))
    }

    /// The keyboard cursor's row, if it is in this report.
    pub fn cursor_row(&self) -> Option<usize> {
        let key = self.cursor.get_untracked()?;
        self.rows.with_untracked(|rows| row_of(rows, key))
    }

    /// Move the keyboard cursor by `step` among the drawn intervals, and the window so
    /// that it shows.
    pub fn step(&self, step: Step) {
        let trace = self.trace;
        let from = self.cursor_row();
        let window = self.window.get_untracked();
        let to = self.rows.with_untracked(|rows| {
            let i = self.ranks.with_untracked(|lanes| {
                step_interval(
                    rows,
                    lanes,
                    |row| trace.class_shown(row.classification),
                    from,
                    step,
                    window,
                )
            })?;
            rows.get(i)
                .map(|r| (r.rank, r.interval_start_ns, r.interval_end_ns))
        });
        let Some((rank, start, end)) = to else {
            return;
        };
        self.cursor.set(Some((rank, start)));
        if let Some(w) = window.and_then(|w| w.revealing(start, end)) {
            self.set_window(w);
        }
    }

    /// Zoom to row `i`'s interval.
    pub fn zoom_to_row(&self, i: usize) {
        let Some(b) = self.bounds.get_untracked() else {
            return;
        };
        let span = self.rows.with_untracked(|rows| {
            rows.get(i)
                .map(|r| (r.interval_start_ns, r.interval_end_ns))
        });
        if let Some((start, end)) = span {
            self.set_window(TimeWindow::around(start, end, INTERVAL_ZOOM_FILL, b));
        }
    }
}

/// The report's rows, shared with the report (cloning it clones a pointer: the painter
/// reads them every frame).
#[derive(Clone, Default)]
pub struct Rows(pub Option<Arc<TraceReport>>);

impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl std::ops::Deref for Rows {
    type Target = [IntervalRow];
    fn deref(&self) -> &[IntervalRow] {
        self.0.as_ref().map_or(&[], |r| &r.rows)
    }
}

//! The timeline's input mapping and tooltip text, platform-free: which key does what,
//! how a wheel turn or a drag moves the window, and the hover tooltip's lines. The page
//! reads the event's fields, calls these, and applies the result to its window.

use crate::analysis::IntervalRow;
use crate::format::{format_bytes, format_duration};

use super::lod::WindowData;
use super::timeline::{format_offset, TimeWindow};

/// Zoom per W/S press (the window's span is multiplied by it, or divided).
pub const KEY_ZOOM: f64 = 0.7;
/// Pan per A/D press, as a fraction of the window.
pub const KEY_PAN: f64 = 0.2;
/// A wheel turn of `dy` pixels zooms by `exp(dy × WHEEL_ZOOM_PER_PX)` (100 px ≈ ×1.28).
pub const WHEEL_ZOOM_PER_PX: f64 = 0.0025;
/// Wheel deltas in lines and pages count as this many pixels.
pub const WHEEL_LINE_PX: f64 = 40.0;
pub const WHEEL_PAGE_PX: f64 = 800.0;
/// A press that moves farther than this is a drag (a pan), not a click (a selection).
pub const DRAG_THRESHOLD_PX: f64 = 3.0;
/// A double click on empty lanes zooms in by this factor.
pub const DOUBLE_CLICK_ZOOM: f64 = 0.5;
/// Zooming to an interval leaves it this fraction of the window.
pub const INTERVAL_ZOOM_FILL: f64 = 0.6;
/// A pointer this close to an interval (either side) hovers or picks it, so thin bands
/// stay clickable.
pub const HIT_TOLERANCE_PX: f64 = 3.0;
/// A gap range narrower than this shows as one value in the tooltip.
const ONE_GAP_BELOW_BYTES: i64 = 1024 * 1024;

/// What a key does on the focused timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Multiply the window's span by this factor around the anchor.
    Zoom(f64),
    /// Move the window by this fraction of its span (negative: earlier).
    Pan(f64),
    /// Show the whole trace (and close the key help).
    Reset,
    /// Zoom to the selected interval.
    ZoomToSelected,
    /// Move the keyboard cursor to another interval ([`step_interval`]).
    Step(Step),
    /// Select the cursor's interval; when it is selected already, zoom to it.
    Choose,
    /// Show or hide the list of keys.
    Help,
}

/// A move of the keyboard cursor between intervals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The interval before, in time (←).
    Previous,
    /// The interval after, in time (→).
    Next,
    /// The nearest in time on the closest lane above with one (↑).
    LaneUp,
    /// The nearest in time on the closest lane below with one (↓).
    LaneDown,
}

/// The timeline's keys and what they do, as the key help lists them.
pub const KEY_HELP: [(&str, &str); 8] = [
    (
        "W / S (+ / −)",
        "zoom in / out around the cursor or the middle",
    ),
    ("A / D", "pan earlier / later"),
    ("← / →", "the interval before / after"),
    ("↑ / ↓", "the nearest interval on the lane above / below"),
    ("Enter", "select that interval; again: zoom to it"),
    ("Z", "zoom to the selected interval"),
    ("Esc", "show the whole trace (closes this list)"),
    ("?", "show or hide this list"),
];

impl Action {
    /// The action of `key` (a `KeyboardEvent.key`); `None` for other keys and for any
    /// key with Ctrl, Meta or Alt held (those belong to the browser).
    pub fn from_key(key: &str, with_modifier: bool) -> Option<Action> {
        if with_modifier {
            return None;
        }
        Some(match key {
            "w" | "W" | "+" | "=" => Action::Zoom(KEY_ZOOM),
            "s" | "S" | "-" => Action::Zoom(1.0 / KEY_ZOOM),
            "a" | "A" => Action::Pan(-KEY_PAN),
            "d" | "D" => Action::Pan(KEY_PAN),
            "ArrowLeft" => Action::Step(Step::Previous),
            "ArrowRight" => Action::Step(Step::Next),
            "ArrowUp" => Action::Step(Step::LaneUp),
            "ArrowDown" => Action::Step(Step::LaneDown),
            "Escape" => Action::Reset,
            "Enter" => Action::Choose,
            "z" | "Z" => Action::ZoomToSelected,
            "?" => Action::Help,
            _ => return None,
        })
    }
}

/// Where the keyboard cursor goes from interval `from` (an index into `rows`) by `step`,
/// among the intervals on `lanes` (ranks, top to bottom) whose class `shown(row)` allows.
/// Without a cursor (or one on an interval no longer drawn) it starts at the first
/// interval reaching into `window` (the last one for [`Step::Previous`]), or the first
/// (last) of all. At either end, or with no lane above or below, it stays; `None` only
/// when no interval is drawn.
pub fn step_interval(
    rows: &[IntervalRow],
    lanes: &[i64],
    shown: impl Fn(&IntervalRow) -> bool,
    from: Option<usize>,
    step: Step,
    window: Option<TimeWindow>,
) -> Option<usize> {
    let lane_of = |row: &IntervalRow| lanes.iter().position(|&r| r == row.rank);
    // Drawn intervals in time order (ties: top lane first).
    let mut order: Vec<(i64, usize, i64, usize)> = rows
        .iter()
        .enumerate()
        .filter(|(_, row)| shown(row))
        .filter_map(|(i, row)| Some((row.interval_start_ns, lane_of(row)?, row.interval_end_ns, i)))
        .collect();
    order.sort_unstable();
    let at = from.and_then(|f| order.iter().position(|o| o.3 == f));
    let Some(at) = at else {
        let in_window = |o: &&(i64, usize, i64, usize)| {
            window.is_none_or(|w| o.2 >= w.start_ns && o.0 <= w.end_ns)
        };
        let pick = if step == Step::Previous {
            order.iter().rev().find(in_window).or(order.last())
        } else {
            order.iter().find(in_window).or(order.first())
        };
        return pick.map(|o| o.3);
    };
    let current = order[at];
    let mid = |o: &(i64, usize, i64, usize)| o.0 / 2 + o.2 / 2;
    let pick = match step {
        Step::Previous => order.get(at.saturating_sub(1)),
        Step::Next => order.get(at + 1).or(Some(&order[at])),
        Step::LaneUp | Step::LaneDown => {
            // The closest lane in that direction with an interval, then the nearest in time.
            let lane = order
                .iter()
                .map(|o| o.1)
                .filter(|&l| {
                    if step == Step::LaneUp {
                        l < current.1
                    } else {
                        l > current.1
                    }
                })
                .min_by_key(|&l| l.abs_diff(current.1));
            match lane {
                Some(lane) => order
                    .iter()
                    .filter(|o| o.1 == lane)
                    .min_by_key(|o| (mid(o).abs_diff(mid(&current)), o.0)),
                None => Some(&order[at]),
            }
        }
    };
    pick.map(|o| o.3)
}

/// A wheel event's fields (`WheelEvent.deltaX/Y/deltaMode/shiftKey`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wheel {
    pub dx: f64,
    pub dy: f64,
    /// 0 pixels, 1 lines, 2 pages.
    pub delta_mode: u32,
    pub shift: bool,
}

impl Wheel {
    /// What the wheel does over a plot `plot_width_px` wide: a mostly horizontal turn, or
    /// any turn with Shift, pans (by the turn's share of the plot's width); a vertical
    /// one zooms around the pointer.
    pub fn action(&self, plot_width_px: f64) -> Action {
        let unit = match self.delta_mode {
            1 => WHEEL_LINE_PX,
            2 => WHEEL_PAGE_PX,
            _ => 1.0,
        };
        let horizontal = self.dx.abs() > self.dy.abs();
        if self.shift || horizontal {
            let delta = if horizontal { self.dx } else { self.dy };
            Action::Pan(delta * unit / plot_width_px.max(1.0))
        } else {
            Action::Zoom((self.dy * unit * WHEEL_ZOOM_PER_PX).exp())
        }
    }
}

/// Whether a press that has moved `dx_px` has become a drag.
pub fn is_drag(dx_px: f64) -> bool {
    dx_px.abs() > DRAG_THRESHOLD_PX
}

/// How far (ns) dragging by `dx_px` moves a window of `span_ns` over a plot
/// `plot_width_px` wide: the content follows the pointer, so the window moves against it.
pub fn drag_pan_ns(dx_px: f64, plot_width_px: f64, span_ns: i64) -> i64 {
    (-(dx_px / plot_width_px.max(1.0) * span_ns as f64)).round() as i64
}

/// [`HIT_TOLERANCE_PX`] in nanoseconds for a window of `span_ns` over a plot
/// `plot_width_px` wide.
pub fn hit_tolerance_ns(span_ns: i64, plot_width_px: f64) -> i64 {
    (span_ns as f64 / plot_width_px.max(1.0) * HIT_TOLERANCE_PX) as i64
}

/// A press on the lanes, from the press to the release: a click selects, a drag pans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Press {
    x0_px: f64,
    window: TimeWindow,
    moved: bool,
}

impl Press {
    /// Pressed at `x_px` with `window` showing.
    pub fn new(x_px: f64, window: TimeWindow) -> Press {
        Press {
            x0_px: x_px,
            window,
            moved: false,
        }
    }

    /// The pointer moved to `x_px`: the window to show (the one at the press, panned by
    /// the drag; the caller clamps it), or `None` while the press is still a click.
    /// Once a drag, always a drag, even back at the start.
    pub fn move_to(&mut self, x_px: f64, plot_width_px: f64) -> Option<TimeWindow> {
        let dx = x_px - self.x0_px;
        self.moved |= is_drag(dx);
        self.moved.then(|| {
            let ns = drag_pan_ns(dx, plot_width_px, self.window.span_ns());
            TimeWindow::new(
                self.window.start_ns.saturating_add(ns),
                self.window.end_ns.saturating_add(ns),
            )
        })
    }

    /// Whether releasing now is a click (select what is under the pointer).
    pub fn is_click(&self) -> bool {
        !self.moved
    }
}

/// The UTC wall time of a trace timestamp (ns since the epoch), to the microsecond:
/// `2026-12-02 05:06:40.123456 UTC`.
pub fn wall_time(ts_ns: i64) -> String {
    let secs = ts_ns.div_euclid(1_000_000_000);
    let micros = ts_ns.rem_euclid(1_000_000_000) / 1_000;
    let (days, day_secs) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = crate::format::civil_from_days(days);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else {
        format!(
            "{}{:06}",
            if year < 0 { '-' } else { '+' },
            year.unsigned_abs()
        )
    };
    format!(
        "{year}-{month:02}-{day:02} {:02}:{:02}:{:02}.{micros:06} UTC",
        day_secs / 3600,
        day_secs / 60 % 60,
        day_secs % 60
    )
}

/// Where the pointer is, for the tooltip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoverPoint {
    pub rank: Option<i64>,
    pub ts_ns: i64,
}

/// The tooltip's lines: rank and offset from `origin_ns` (with the decimals a pixel of
/// `ns_per_px` needs), wall time, then what the shown window holds in that pixel column
/// of the rank's lane (gap range, collective markers).
pub fn tooltip_lines(
    hover: HoverPoint,
    origin_ns: i64,
    ns_per_px: f64,
    frame: Option<&WindowData>,
) -> Vec<String> {
    let step = ns_per_px.max(1.0) as i64;
    let mut lines = vec![format!(
        "{}{}",
        hover
            .rank
            .map(|r| format!("rank {r} · "))
            .unwrap_or_default(),
        format_offset(hover.ts_ns - origin_ns, step)
    )];
    lines.push(wall_time(hover.ts_ns));
    let (Some(rank), Some(frame)) = (hover.rank, frame) else {
        return lines;
    };
    let Some(lane) = frame.lanes.iter().find(|l| l.rank == rank) else {
        return lines;
    };
    let span = (frame.end_ns - frame.start_ns).max(1) as f64;
    let column = ((hover.ts_ns - frame.start_ns) as f64 / span * f64::from(frame.columns)).floor();
    if column < 0.0 {
        return lines;
    }
    let column = column as usize;
    if let (Some(&lo), Some(&hi)) = (lane.gap_min.get(column), lane.gap_max.get(column)) {
        if !hi.is_nan() {
            let (lo, hi) = (lo as i64, hi as i64);
            lines.push(if (hi - lo).abs() < ONE_GAP_BELOW_BYTES {
                format!("gap {}", format_bytes(hi))
            } else {
                format!("gap {} – {}", format_bytes(lo), format_bytes(hi))
            });
        }
    }
    if let Some(&m) = lane.markers.get(column).filter(|&&m| m > 0) {
        lines.push(format!(
            "{m} collective marker{}",
            if m == 1 { "" } else { "s" }
        ));
    }
    lines
}

/// The tooltip's line for the interval under the pointer.
pub fn interval_line(row: &IntervalRow) -> String {
    format!(
        "{} · {:.3} · {} · peak gap {} · {}/{} ranks in sync",
        row.classification.short(),
        row.confidence,
        format_duration(row.duration_ns()),
        format_bytes(row.evidence.peak_gap_bytes),
        row.evidence.synchronized_ranks,
        row.evidence.expected_world_size
    )
}

/// One interval in words: "rank 4 likely 9.60–9.80 s" (seconds from `origin_ns`).
pub fn interval_phrase(row: &IntervalRow, origin_ns: i64) -> String {
    let s = |ns: i64| format!("{:.2}", (ns - origin_ns) as f64 / 1e9);
    format!(
        "rank {} {} {}–{} s",
        row.rank,
        row.classification.short(),
        s(row.interval_start_ns),
        s(row.interval_end_ns)
    )
}

/// Where the keyboard cursor is, for a screen reader (announced as it moves): the
/// interval, its peak gap and how many ranks spiked with it.
pub fn cursor_phrase(row: &IntervalRow, origin_ns: i64) -> String {
    format!(
        "{}, peak gap {}, {} of {} ranks in sync. Enter selects it",
        interval_phrase(row, origin_ns),
        format_bytes(row.evidence.peak_gap_bytes),
        row.evidence.synchronized_ranks,
        row.evidence.expected_world_size,
    )
}

/// What the timeline shows, in words, for a screen reader (the canvas's label): the
/// ranks, the intervals, the span and the visible part of it (seconds from `origin_ns`),
/// the selection, then the keys.
pub fn timeline_label(
    ranks: usize,
    intervals: usize,
    bounds: Option<TimeWindow>,
    window: Option<TimeWindow>,
    origin_ns: i64,
    selected: Option<&IntervalRow>,
) -> String {
    let s = |ns: i64| format!("{:.2}", (ns - origin_ns) as f64 / 1e9);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut text = format!(
        "Timeline of {ranks} rank{}, {intervals} interval{}",
        plural(ranks),
        plural(intervals)
    );
    if let Some(b) = bounds {
        text.push_str(&format!(", {}–{} s", s(b.start_ns), s(b.end_ns)));
        if let Some(w) = window.filter(|w| *w != b) {
            text.push_str(&format!(" (showing {}–{} s)", s(w.start_ns), s(w.end_ns)));
        }
    }
    if let Some(row) = selected {
        text.push_str("; selected: ");
        text.push_str(&interval_phrase(row, origin_ns));
    }
    text.push_str(
        ". W and S zoom, A and D pan, arrows move between intervals, Enter selects (again: \
         zooms to it), Escape resets, question mark lists the keys.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::{Classification, Evidence};
    use crate::lod::LaneWindow;

    #[test]
    fn a_press_is_a_click_until_it_moves_past_the_threshold() {
        let w = TimeWindow::new(1_000_000, 2_000_000);
        let mut p = Press::new(100.0, w);
        assert_eq!(p.move_to(100.0 + DRAG_THRESHOLD_PX, 1000.0), None);
        assert!(p.is_click());
        // 10 px right over 1000 px of a 1 ms window: 10 µs earlier.
        assert_eq!(
            p.move_to(110.0, 1000.0),
            Some(TimeWindow::new(990_000, 1_990_000))
        );
        assert!(!p.is_click());
        // Back at the start it stays a drag, showing the window of the press.
        assert_eq!(p.move_to(100.0, 1000.0), Some(w));
        assert!(!p.is_click());
    }

    #[test]
    fn hit_tolerance_is_three_pixels_of_time() {
        assert_eq!(hit_tolerance_ns(1_000_000, 1000.0), 3_000);
        assert_eq!(hit_tolerance_ns(1_000, 0.0), 3_000);
    }

    #[test]
    fn keys_map_to_actions_and_modifiers_belong_to_the_browser() {
        assert_eq!(Action::from_key("w", false), Some(Action::Zoom(KEY_ZOOM)));
        assert_eq!(Action::from_key("=", false), Some(Action::Zoom(KEY_ZOOM)));
        assert_eq!(
            Action::from_key("S", false),
            Some(Action::Zoom(1.0 / KEY_ZOOM))
        );
        assert_eq!(Action::from_key("A", false), Some(Action::Pan(-KEY_PAN)));
        assert_eq!(Action::from_key("d", false), Some(Action::Pan(KEY_PAN)));
        assert_eq!(Action::from_key("Escape", false), Some(Action::Reset));
        assert_eq!(Action::from_key("Enter", false), Some(Action::Choose));
        assert_eq!(Action::from_key("z", false), Some(Action::ZoomToSelected));
        assert_eq!(Action::from_key("?", false), Some(Action::Help));
        for (key, step) in [
            ("ArrowLeft", Step::Previous),
            ("ArrowRight", Step::Next),
            ("ArrowUp", Step::LaneUp),
            ("ArrowDown", Step::LaneDown),
        ] {
            assert_eq!(Action::from_key(key, false), Some(Action::Step(step)));
        }
        assert_eq!(Action::from_key("ArrowLeft", true), None);
        assert_eq!(Action::from_key("w", true), None);
        assert_eq!(Action::from_key("x", false), None);
    }

    #[test]
    fn the_wheel_zooms_vertically_and_pans_sideways_or_with_shift() {
        let turn = |dx, dy, delta_mode, shift| Wheel {
            dx,
            dy,
            delta_mode,
            shift,
        };
        assert_eq!(
            turn(0.0, 100.0, 0, false).action(1000.0),
            Action::Zoom((0.25f64).exp())
        );
        assert_eq!(
            turn(0.0, -3.0, 1, false).action(1000.0),
            Action::Zoom((-120.0 * WHEEL_ZOOM_PER_PX).exp())
        );
        assert_eq!(turn(50.0, 10.0, 0, false).action(1000.0), Action::Pan(0.05));
        assert_eq!(turn(0.0, 100.0, 0, true).action(1000.0), Action::Pan(0.1));
        assert_eq!(turn(1.0, 0.0, 2, false).action(1600.0), Action::Pan(0.5));
    }

    #[test]
    fn a_drag_starts_past_the_threshold_and_moves_the_window_against_the_pointer() {
        assert!(!is_drag(3.0));
        assert!(is_drag(-3.5));
        assert_eq!(drag_pan_ns(100.0, 1000.0, 1_000_000), -100_000);
        assert_eq!(drag_pan_ns(-250.0, 1000.0, 1_000), 250);
    }

    #[test]
    fn wall_time_is_utc_to_the_microsecond() {
        assert_eq!(wall_time(0), "1970-01-01 00:00:00.000000 UTC");
        assert_eq!(
            wall_time(1_764_651_999_123_456_789),
            "2025-12-02 05:06:39.123456 UTC"
        );
        assert_eq!(wall_time(-1_000), "1969-12-31 23:59:59.999999 UTC");
        assert_eq!(
            wall_time(951_782_400_000_000_000),
            "2000-02-29 00:00:00.000000 UTC"
        );
    }

    #[test]
    fn the_tooltip_names_rank_time_gap_and_markers_of_the_column() {
        let frame = WindowData {
            start_ns: 1_000,
            end_ns: 1_400,
            columns: 4,
            lanes: vec![LaneWindow {
                rank: 2,
                gap_min: vec![f32::NAN, 1024.0, 0.0, 0.0],
                gap_max: vec![f32::NAN, 2048.0, 3.0 * 1024.0 * 1024.0, 0.0],
                markers: vec![0, 1, 3, 0],
                gap_floor_bytes: 0,
                gap_peak_bytes: 0,
                window_samples: 0,
            }],
        };
        let at = |ts_ns| {
            tooltip_lines(
                HoverPoint {
                    rank: Some(2),
                    ts_ns,
                },
                1_000,
                1_000_000.0,
                Some(&frame),
            )
        };
        let lines = at(1_150);
        assert_eq!(
            lines[0],
            format!("rank 2 · {}", format_offset(150, 1_000_000))
        );
        assert_eq!(lines[1], wall_time(1_150));
        assert_eq!(&lines[2..], ["gap 2.00 KiB", "1 collective marker"]);
        assert_eq!(
            &at(1_250)[2..],
            ["gap 0 B – 3.00 MiB", "3 collective markers"]
        );
        assert_eq!(at(1_050).len(), 2, "no value, no marker");
        assert_eq!(at(900).len(), 2, "left of the window");
        let no_rank = tooltip_lines(
            HoverPoint {
                rank: None,
                ts_ns: 1_150,
            },
            1_000,
            1.0,
            Some(&frame),
        );
        assert_eq!(no_rank.len(), 2);
        assert!(!no_rank[0].starts_with("rank"));
    }

    /// Rank `rank`'s interval from `start_s` to `end_s` seconds, 2 of 4 ranks in sync,
    /// a 1 GiB gap.
    fn interval(rank: i64, start_s: f64, end_s: f64, class: Classification) -> IntervalRow {
        let ns = |s: f64| (s * 1e9) as i64;
        let base = IntervalRow::for_test(rank, ns(start_s), ns(end_s), class);
        IntervalRow {
            evidence: Evidence {
                expected_world_size: 4,
                peak_gap_bytes: 1 << 30,
                ..base.evidence
            },
            ..base
        }
    }

    #[test]
    fn arrows_walk_the_drawn_intervals_in_time_and_between_lanes() {
        use Classification::{
            CollectiveConfident as C, CollectiveLikely as L, CollectiveSuspect as S,
        };
        // Rows in the order attribution gives them (by rank), lanes drawn 2, 0, 1.
        let rows = [
            interval(0, 1.0, 1.2, C), // 0
            interval(0, 5.0, 5.2, L), // 1
            interval(1, 1.0, 1.2, C), // 2
            interval(1, 3.0, 3.2, S), // 3
            interval(2, 4.9, 5.0, C), // 4
            interval(3, 2.0, 2.2, C), // 5: rank 3 is filtered out
        ];
        let lanes = [2, 0, 1];
        let all = |_: &IntervalRow| true;
        let go = |from, step| step_interval(&rows, &lanes, all, from, step, None);
        // Time order, ties by lane (rank 0 is above rank 1): 0, 2, 3, 4, 1.
        assert_eq!(go(None, Step::Next), Some(0));
        assert_eq!(go(Some(0), Step::Next), Some(2));
        assert_eq!(go(Some(2), Step::Next), Some(3));
        assert_eq!(go(Some(3), Step::Next), Some(4));
        assert_eq!(go(Some(4), Step::Next), Some(1));
        assert_eq!(go(Some(1), Step::Next), Some(1), "stays at the end");
        assert_eq!(go(Some(2), Step::Previous), Some(0));
        assert_eq!(go(Some(0), Step::Previous), Some(0), "stays at the start");
        assert_eq!(go(None, Step::Previous), Some(1), "from the end");
        // Lanes: rank 1 (bottom) up to rank 0, nearest in time; rank 0 up to rank 2.
        assert_eq!(
            go(Some(3), Step::LaneUp),
            Some(0),
            "3.1 s: 1.1 s is nearer than 5.1 s"
        );
        assert_eq!(go(Some(1), Step::LaneUp), Some(4));
        assert_eq!(
            go(Some(4), Step::LaneUp),
            Some(4),
            "no lane above the top one"
        );
        assert_eq!(go(Some(4), Step::LaneDown), Some(1));
        assert_eq!(go(Some(0), Step::LaneDown), Some(2));
        assert_eq!(
            go(Some(2), Step::LaneDown),
            Some(2),
            "no lane below the bottom one"
        );
        // Hidden classes are skipped, also by lane moves (rank 0's likely one is hidden:
        // up from rank 1 lands on its confident one).
        let no_likely = |r: &IntervalRow| r.classification != L;
        let go = |from, step| step_interval(&rows, &lanes, no_likely, from, step, None);
        assert_eq!(
            go(Some(4), Step::Next),
            Some(4),
            "the likely one after it is hidden"
        );
        assert_eq!(go(Some(4), Step::LaneDown), Some(0));
        // A cursor on an interval no longer drawn starts again, in the window.
        let window = Some(TimeWindow::new(2_500_000_000, 6_000_000_000));
        assert_eq!(
            step_interval(&rows, &lanes, all, Some(5), Step::Next, window),
            Some(3)
        );
        assert_eq!(
            step_interval(&rows, &lanes, all, None, Step::Previous, window),
            Some(1)
        );
        // Nothing drawn: no cursor.
        assert_eq!(
            step_interval(&rows, &[7], all, Some(0), Step::Next, None),
            None
        );
        assert_eq!(
            step_interval(&[], &lanes, all, None, Step::LaneUp, None),
            None
        );
    }

    #[test]
    fn the_cursor_is_read_out_with_its_gap_and_synchrony() {
        let row = interval(4, 10.6, 10.8, Classification::CollectiveLikely);
        assert_eq!(
            cursor_phrase(&row, 1_000_000_000),
            format!(
                "rank 4 {} 9.60–9.80 s, peak gap 1.00 GiB, 2 of 4 ranks in sync. Enter selects it",
                Classification::CollectiveLikely.short()
            )
        );
    }

    #[test]
    fn the_label_says_what_the_timeline_shows() {
        let all = TimeWindow::new(1_000_000_000, 49_000_000_000);
        assert_eq!(
            timeline_label(16, 221, Some(all), Some(all), 1_000_000_000, None),
            "Timeline of 16 ranks, 221 intervals, 0.00–48.00 s. W and S zoom, A and D pan, \
             arrows move between intervals, Enter selects (again: zooms to it), Escape \
             resets, question mark lists the keys."
        );
        let row = interval(4, 10.6, 10.8, Classification::CollectiveLikely);
        let zoomed = TimeWindow::new(10_000_000_000, 12_000_000_000);
        assert_eq!(
            timeline_label(1, 1, Some(all), Some(zoomed), 1_000_000_000, Some(&row)),
            format!(
                "Timeline of 1 rank, 1 interval, 0.00–48.00 s (showing 9.00–11.00 s); selected: \
                 rank 4 {} 9.60–9.80 s. W and S zoom, A and D pan, arrows move between \
                 intervals, Enter selects (again: zooms to it), Escape resets, question mark \
                 lists the keys.",
                crate::attribution::Classification::CollectiveLikely.short()
            )
        );
        assert!(timeline_label(0, 0, None, None, 0, None)
            .starts_with("Timeline of 0 ranks, 0 intervals."));
    }
}

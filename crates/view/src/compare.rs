//! The comparison as the page shows it: the table's cells (A, B and B − A per measure,
//! each change marked better or worse), its columns and the exports' file names. The
//! numbers are [`crate::analysis::compare`]'s, the CLI's.

use super::timeline::TimeWindow;
use crate::analysis::compare::{
    b_shift_ns, Change, CompareAxis, Measure, RankComparison, RankStats, RunFacts,
};
use crate::format::format_bytes;

/// The measures the table shows, in its column order.
pub const TABLE_MEASURES: [Measure; 6] = [
    Measure::Confident,
    Measure::Likely,
    Measure::Suspect,
    Measure::PeakGap,
    Measure::TotalGap,
    Measure::PeakAt,
];

/// A column's header.
pub fn measure_label(m: Measure) -> &'static str {
    match m {
        Measure::Intervals => "Intervals",
        Measure::Confident => "Confident",
        Measure::Likely => "Likely",
        Measure::Suspect => "Suspect",
        Measure::PeakGap => "Peak gap",
        Measure::TotalGap => "Total gap",
        Measure::PeakAt => "Peak at",
    }
}

/// How a change reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Better,
    Worse,
    /// No change, or a change that is neither (the peak's time).
    Neutral,
}

impl Tone {
    /// The CSS class (and `data-tone`).
    pub fn as_str(self) -> &'static str {
        match self {
            Tone::Better => "better",
            Tone::Worse => "worse",
            Tone::Neutral => "neutral",
        }
    }
}

/// One measure of one rank: A → B and the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareCell {
    pub measure: Measure,
    pub a: String,
    pub b: String,
    /// `+2`, `−1.20 GiB`, `0`; empty when a run lacks the rank.
    pub delta: String,
    pub tone: Tone,
}

fn value_text(m: Measure, s: &RankStats) -> String {
    match (m, m.of(s)) {
        (_, None) => "–".to_string(),
        (Measure::PeakGap | Measure::TotalGap, Some(v)) => format_bytes(v),
        (Measure::PeakAt, Some(ns)) => format!("{:.3} s", ns as f64 / 1e9),
        (_, Some(v)) => v.to_string(),
    }
}

fn delta_text(m: Measure, d: i64) -> String {
    let sign = if d > 0 { "+" } else { "" };
    match m {
        Measure::PeakGap | Measure::TotalGap if d == 0 => "0".to_string(),
        Measure::PeakGap | Measure::TotalGap => format!("{sign}{}", format_bytes(d)),
        // Below a millisecond the change reads as none rather than "−0.000 s".
        Measure::PeakAt if d.abs() < 500_000 => "0.000 s".to_string(),
        Measure::PeakAt => format!("{sign}{:.3} s", d as f64 / 1e9).replace('-', "−"),
        _ => format!("{sign}{d}").replace('-', "−"),
    }
}

/// The table's cells of one rank, in [`TABLE_MEASURES`] order.
pub fn cells(row: &RankComparison) -> Vec<CompareCell> {
    let side = |m: Measure, s: &Option<RankStats>| {
        s.as_ref().map_or("–".to_string(), |s| value_text(m, s))
    };
    TABLE_MEASURES
        .iter()
        .map(|&m| {
            let delta = row.delta(m);
            let tone = match (delta, m.lower_is_better()) {
                (Some(d), Some(true)) if d < 0 => Tone::Better,
                (Some(d), Some(true)) if d > 0 => Tone::Worse,
                _ => Tone::Neutral,
            };
            CompareCell {
                measure: m,
                a: side(m, &row.a),
                b: side(m, &row.b),
                delta: delta.map_or(String::new(), |d| delta_text(m, d)),
                tone,
            }
        })
        .collect()
}

/// The tone of a rank's overall change.
pub fn change_tone(change: Change) -> Tone {
    match change {
        Change::Better => Tone::Better,
        Change::Worse => Tone::Worse,
        _ => Tone::Neutral,
    }
}

/// What to add to run B's lane times to draw them on run A's axis: the difference of
/// the lanes' first times (`FromStart`; the lanes may be on aligned clocks, so their own
/// starts are passed), or of the chosen collective of the runs' first rank with markers
/// (the clocks' reference, the same on raw and aligned clocks).
pub fn lane_shift_ns(
    a: (&RunFacts, Option<i64>),
    b: (&RunFacts, Option<i64>),
    axis: CompareAxis,
) -> Option<i64> {
    let on_lanes = |(facts, start_ns): (&RunFacts, Option<i64>)| RunFacts {
        start_ns,
        ranks: Default::default(),
        anchor_markers_ns: facts.anchor_markers_ns.clone(),
    };
    b_shift_ns(&on_lanes(a), &on_lanes(b), axis)
}

/// The time span both runs' lanes cover on run A's axis: A's bounds joined with B's
/// shifted by `shift_ns`.
pub fn joined_bounds(a: TimeWindow, b: Option<TimeWindow>, shift_ns: i64) -> TimeWindow {
    match b {
        Some(b) => TimeWindow::new(
            a.start_ns.min(b.start_ns.saturating_add(shift_ns)),
            a.end_ns.max(b.end_ns.saturating_add(shift_ns)),
        ),
        None => a,
    }
}

/// The comparison exports' file name: `shardscope-compare.csv`, with
/// `-aligned-clocks` when either run was attributed on aligned clocks.
pub fn export_file_name(aligned: bool, extension: &str) -> String {
    let suffix = if aligned { "-aligned-clocks" } else { "" };
    format!("shardscope-compare{suffix}.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(confident: u64, peak: i64, at: Option<i64>) -> RankStats {
        RankStats {
            intervals: confident,
            confident,
            peak_gap_bytes: peak,
            total_gap_bytes: peak,
            peak_at_ns: at,
            ..RankStats::default()
        }
    }

    #[test]
    fn cells_read_a_to_b_with_the_change_toned() {
        let row = RankComparison {
            rank: 3,
            a: Some(stats(3, 2 << 30, Some(1_500_000_000))),
            b: Some(stats(1, 3 << 30, Some(1_250_000_000))),
            change: Change::Better,
        };
        let cells = cells(&row);
        assert_eq!(cells.len(), TABLE_MEASURES.len());
        let c = &cells[0];
        assert_eq!(
            (c.a.as_str(), c.b.as_str(), c.delta.as_str(), c.tone),
            ("3", "1", "−2", Tone::Better)
        );
        let likely = &cells[1];
        assert_eq!((likely.delta.as_str(), likely.tone), ("0", Tone::Neutral));
        let peak = &cells[3];
        assert_eq!(
            (
                peak.a.as_str(),
                peak.b.as_str(),
                peak.delta.as_str(),
                peak.tone
            ),
            ("2.00 GiB", "3.00 GiB", "+1.00 GiB", Tone::Worse)
        );
        let at = &cells[5];
        assert_eq!(
            (at.a.as_str(), at.delta.as_str(), at.tone),
            ("1.500 s", "−0.250 s", Tone::Neutral)
        );
        assert_eq!(change_tone(row.change), Tone::Better);
        assert_eq!(delta_text(Measure::PeakAt, -200_000), "0.000 s");
        assert_eq!(delta_text(Measure::PeakAt, 290_000_000), "+0.290 s");
    }

    #[test]
    fn a_rank_missing_from_one_run_has_no_change() {
        let row = RankComparison {
            rank: 9,
            a: None,
            b: Some(stats(0, 0, None)),
            change: Change::OnlyB,
        };
        let cells = cells(&row);
        assert!(cells
            .iter()
            .all(|c| c.a == "–" && c.delta.is_empty() && c.tone == Tone::Neutral));
        assert_eq!(cells[5].b, "–", "no interval: no peak time");
        assert_eq!(change_tone(Change::OnlyB), Tone::Neutral);
        assert_eq!(
            export_file_name(true, "csv"),
            "shardscope-compare-aligned-clocks.csv"
        );
        assert_eq!(export_file_name(false, "json"), "shardscope-compare.json");
    }

    #[test]
    fn lanes_line_up_at_their_starts_or_at_a_collective_and_bounds_join() {
        let facts = |markers: Vec<i64>| RunFacts {
            start_ns: Some(-1),
            anchor_markers_ns: markers,
            ..RunFacts::default()
        };
        let (a, b) = (facts(vec![1_000, 2_000]), facts(vec![10_500]));
        // The lanes' own starts count, not the facts' (lanes may be on aligned clocks).
        assert_eq!(
            lane_shift_ns((&a, Some(100)), (&b, Some(9_000)), CompareAxis::FromStart),
            Some(-8_900)
        );
        assert_eq!(
            lane_shift_ns(
                (&a, Some(100)),
                (&b, Some(9_000)),
                CompareAxis::AtCollective(0)
            ),
            Some(-9_500)
        );
        assert_eq!(
            lane_shift_ns((&a, Some(100)), (&b, None), CompareAxis::FromStart),
            None
        );
        let w = TimeWindow::new(0, 100);
        assert_eq!(
            joined_bounds(w, Some(TimeWindow::new(50, 300)), -100),
            TimeWindow::new(-50, 200)
        );
        assert_eq!(joined_bounds(w, None, 5), w);
    }
}

//! The results table: which rows, in which order, and their HTML. Long runs have
//! thousands of intervals, so the page writes the rows as one HTML string (numbers
//! and fixed names, escaped anyway) instead of one reactive node per cell.

use std::fmt::Write;

use crate::analysis::IntervalRow;
use crate::attribution::{Classification, ReasonCode};

use super::format::{format_bytes, format_duration};
use super::timeline::format_offset;

/// Columns the table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Rank,
    Start,
    Duration,
    Confidence,
    PeakGap,
}

impl SortKey {
    pub const ALL: [SortKey; 5] = [
        SortKey::Rank,
        SortKey::Start,
        SortKey::Duration,
        SortKey::Confidence,
        SortKey::PeakGap,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Rank => "rank",
            SortKey::Start => "start",
            SortKey::Duration => "duration",
            SortKey::Confidence => "confidence",
            SortKey::PeakGap => "peak_gap",
        }
    }
}

/// Which rows to show and how to order them.
#[derive(Debug, Clone, PartialEq)]
pub struct TableQuery<'a> {
    pub sort: SortKey,
    pub ascending: bool,
    /// Shown classifications, in [`Classification::ALL`] order.
    pub shown: [bool; 3],
    /// Ranks shown (the rank filter's result).
    pub ranks: &'a [i64],
}

fn shown(q: &TableQuery<'_>, class: Classification) -> bool {
    Classification::ALL
        .iter()
        .position(|c| *c == class)
        .is_some_and(|i| q.shown[i])
}

/// Indices of the rows to show, in display order (ties: rank, then start).
pub fn table_order(rows: &[IntervalRow], q: &TableQuery<'_>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len())
        .filter(|&i| shown(q, rows[i].classification) && q.ranks.contains(&rows[i].rank))
        .collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&rows[a], &rows[b]);
        let primary = match q.sort {
            SortKey::Rank => x.rank.cmp(&y.rank),
            SortKey::Start => x.interval_start_ns.cmp(&y.interval_start_ns),
            SortKey::Duration => x.duration_ns().cmp(&y.duration_ns()),
            SortKey::Confidence => x.confidence.total_cmp(&y.confidence),
            SortKey::PeakGap => x.evidence.peak_gap_bytes.cmp(&y.evidence.peak_gap_bytes),
        };
        let primary = if q.ascending {
            primary
        } else {
            primary.reverse()
        };
        primary
            .then(x.rank.cmp(&y.rank))
            .then(x.interval_start_ns.cmp(&y.interval_start_ns))
    });
    order
}

/// Minimal HTML escaping for text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The `<tr>`s of `order`, with the `attribution-row` test hooks. `origin_ns` is the
/// trace start (times are offsets from it); `selected` gets `aria-selected`.
pub fn rows_html(
    rows: &[IntervalRow],
    order: &[usize],
    origin_ns: i64,
    with_phases: bool,
    selected: Option<usize>,
) -> String {
    let mut html = String::with_capacity(order.len() * 700);
    for &i in order {
        let r = &rows[i];
        let class = r.classification.as_str();
        let phase = if with_phases {
            format!(
                "<td class=\"phase\">{}</td>",
                escape(&r.phase.as_ref().map(|p| p.label()).unwrap_or_default())
            )
        } else {
            String::new()
        };
        let is_selected = selected == Some(i);
        let _ = write!(
            html,
            "<tr data-testid=\"attribution-row\" data-index=\"{i}\" data-rank=\"{rank}\" \
             data-start-ns=\"{start}\" data-end-ns=\"{end}\" data-classification=\"{class}\" \
             data-confidence=\"{conf}\" class=\"{class}{sel}\" aria-selected=\"{is_selected}\" \
             role=\"row\" tabindex=\"-1\">\
             <td class=\"num\">{rank}</td><td class=\"num\">{offset}</td>\
             <td class=\"num\">{duration}</td>\
             <td><span class=\"badge {class}\">{label}</span></td>\
             <td class=\"num\">{conf:.3}</td><td class=\"num\">{gap}</td>\
             <td class=\"num\">{sync}/{world}</td><td class=\"num\">{markers}</td>{phase}\
             <td class=\"reasons\" title=\"{reasons}\">{reasons}</td></tr>",
            rank = r.rank,
            start = r.interval_start_ns,
            end = r.interval_end_ns,
            sel = if is_selected { " selected" } else { "" },
            conf = r.confidence,
            offset = escape(&format_offset(r.interval_start_ns - origin_ns, 1_000_000)),
            duration = escape(&format_duration(r.duration_ns())),
            label = r.classification.short(),
            gap = escape(&format_bytes(r.evidence.peak_gap_bytes)),
            sync = r.evidence.synchronized_ranks,
            world = r.evidence.expected_world_size,
            markers = r.evidence.marker_hits,
            reasons = escape(&ReasonCode::join(&r.reason_codes, ", ")),
        );
    }
    html
}

/// The row a key moves the table's selection to: `ArrowDown`/`j` the next in `order`,
/// `ArrowUp`/`k` the previous (staying at the ends), the first when nothing is selected
/// (or the selection is filtered out), nothing when no row is shown. `None` for any
/// other key (the page lets it be).
pub fn step_selection(
    order: &[usize],
    selected: Option<usize>,
    key: &str,
) -> Option<Option<usize>> {
    let step: isize = match key {
        "ArrowDown" | "j" => 1,
        "ArrowUp" | "k" => -1,
        _ => return None,
    };
    let here = selected.and_then(|s| order.iter().position(|&i| i == s));
    let next = match here {
        Some(p) => (p as isize + step).clamp(0, order.len() as isize - 1) as usize,
        None => 0,
    };
    Some(order.get(next).copied())
}

/// The words after the table's count: `3` + ` intervals attributed to collective
/// communication`, or `2` + ` of 3 intervals shown (filtered)`.
pub fn count_caption(shown: usize, all: usize) -> String {
    let noun = if all == 1 { " interval" } else { " intervals" };
    if shown == all {
        format!("{noun} attributed to collective communication")
    } else {
        format!(" of {all}{noun} shown (filtered)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::Evidence;

    fn row(rank: i64, start: i64, confidence: f64, class: Classification) -> IntervalRow {
        let base = IntervalRow::for_test(rank, start, start + 10, class);
        IntervalRow {
            confidence,
            reason_codes: vec![ReasonCode::CrossRankSynchrony],
            evidence: Evidence {
                marker_hits: 0,
                synchronized_ranks: 1,
                synchrony_ratio: 0.5,
                peak_gap_bytes: 1 << 30,
                robust_zscore: 3.0,
                ..base.evidence
            },
            ..base
        }
    }

    #[test]
    fn sorts_filters_and_writes_hooks() {
        use Classification::*;
        let rows = vec![
            row(1, 50, 0.9, CollectiveConfident),
            row(0, 70, 0.5, CollectiveSuspect),
            row(0, 20, 0.7, CollectiveLikely),
        ];
        let mut q = TableQuery {
            sort: SortKey::Rank,
            ascending: true,
            shown: [true; 3],
            ranks: &[0, 1],
        };
        assert_eq!(table_order(&rows, &q), vec![2, 1, 0]);
        q.sort = SortKey::Confidence;
        q.ascending = false;
        assert_eq!(table_order(&rows, &q), vec![0, 2, 1]);
        q.shown = [true, false, true];
        assert_eq!(table_order(&rows, &q), vec![0, 1]);
        q.ranks = &[0];
        assert_eq!(table_order(&rows, &q), vec![1]);
        let html = rows_html(&rows, &[1], 0, false, Some(1));
        assert!(html.contains("data-testid=\"attribution-row\" data-index=\"1\" data-rank=\"0\" data-start-ns=\"70\" data-end-ns=\"80\" data-classification=\"collective_suspect\" data-confidence=\"0.5\""), "{html}");
        assert!(html.contains("aria-selected=\"true\""));
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn keys_step_the_selection_through_the_shown_order() {
        let order = [4, 1, 7];
        assert_eq!(step_selection(&order, None, "ArrowDown"), Some(Some(4)));
        assert_eq!(step_selection(&order, Some(4), "j"), Some(Some(1)));
        assert_eq!(step_selection(&order, Some(7), "ArrowDown"), Some(Some(7)));
        assert_eq!(step_selection(&order, Some(1), "k"), Some(Some(4)));
        assert_eq!(step_selection(&order, Some(4), "ArrowUp"), Some(Some(4)));
        // A selection filtered out of the table starts again at the top.
        assert_eq!(step_selection(&order, Some(9), "ArrowUp"), Some(Some(4)));
        assert_eq!(step_selection(&order, Some(4), "Enter"), None);
        // Nothing shown: the selection is cleared.
        assert_eq!(step_selection(&[], Some(3), "j"), Some(None));
    }

    #[test]
    fn the_count_caption_says_when_rows_are_filtered() {
        assert_eq!(
            count_caption(1, 1),
            " interval attributed to collective communication"
        );
        assert_eq!(
            count_caption(3, 3),
            " intervals attributed to collective communication"
        );
        assert_eq!(count_caption(2, 3), " of 3 intervals shown (filtered)");
        assert_eq!(count_caption(0, 1), " of 1 interval shown (filtered)");
    }
}

//! The trace view's clocks panel, computed: one row of words and numbers per rank of an
//! [`Alignment`], its one-line summary, and the names the exports take when the results
//! were attributed on aligned clocks (beyond stormlog).

use crate::clocks::{Alignment, ClockStatus};
use crate::format::plain_decimal;

/// One rank's row.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockRow {
    pub rank: i64,
    /// The contract's status (`reference`, `aligned`, `too_few_markers`, `ambiguous`):
    /// the row's `data-status`.
    pub status: &'static str,
    /// The status in words.
    pub words: &'static str,
    /// `+180.000` (milliseconds; the unit is in the column head), or `–` when the
    /// offset cannot be told.
    pub offset: String,
    /// The offset in ns as a plain decimal (`data-offset-ns`), empty when unknown.
    pub offset_ns: String,
    /// `12.5` (ppm), or `–`.
    pub drift: String,
    pub matched: usize,
    /// `0.830` (milliseconds), or `–`.
    pub residual: String,
    /// `39 matched · ±0.830 ms`, or `1 matched` when no fit was made.
    pub fit: String,
}

const UNKNOWN: &str = "–";

fn ms(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// Every rank's row, in rank order.
pub fn clock_rows(a: &Alignment) -> Vec<ClockRow> {
    a.ranks
        .iter()
        .map(|c| ClockRow {
            rank: c.rank,
            status: c.status.as_str(),
            words: c.status.words(),
            offset: c.offset_ns.map_or(UNKNOWN.to_string(), |ns| {
                if ns > 0 {
                    format!("+{}", ms(ns))
                } else {
                    ms(ns)
                }
            }),
            offset_ns: c.offset_ns.map(|ns| ns.to_string()).unwrap_or_default(),
            drift: c.drift_ppm.map_or(UNKNOWN.to_string(), plain_decimal),
            matched: c.matched,
            residual: c.residual_ns.map_or(UNKNOWN.to_string(), ms),
            fit: match c.residual_ns {
                Some(ns) => format!("{} matched · ±{} ms", c.matched, ms(ns)),
                None => format!("{} matched", c.matched),
            },
        })
        .collect()
}

/// `3 of 4 ranks aligned to rank 0 · largest offset 250.000 ms · 1 ambiguous`.
pub fn clocks_summary(a: &Alignment) -> String {
    let count = |s: ClockStatus| a.ranks.iter().filter(|c| c.status == s).count();
    let aligned = count(ClockStatus::Aligned);
    let mut text = format!(
        "{aligned} of {} rank{} aligned to rank {}",
        a.ranks.len().saturating_sub(1),
        if a.ranks.len() == 2 { "" } else { "s" },
        a.reference_rank
    );
    let largest = a
        .ranks
        .iter()
        .filter(|c| c.status == ClockStatus::Aligned)
        .filter_map(|c| c.offset_ns)
        .map(i64::unsigned_abs)
        .max();
    if let Some(ns) = largest {
        text.push_str(&format!(" · largest offset {} ms", ms(ns as i64)));
    }
    for (status, n) in [
        (
            ClockStatus::TooFewMarkers,
            count(ClockStatus::TooFewMarkers),
        ),
        (ClockStatus::Ambiguous, count(ClockStatus::Ambiguous)),
    ] {
        if n > 0 {
            text.push_str(&format!(" · {n} {}", status.words()));
        }
    }
    text
}

/// The exports' file name: `shardscope-attribution-medium.json`, and with results on
/// aligned clocks `shardscope-attribution-medium-aligned-clocks.json`.
pub fn export_file_name(preset: &str, aligned: bool, extension: &str) -> String {
    let suffix = if aligned { "-aligned-clocks" } else { "" };
    format!("shardscope-attribution-{preset}{suffix}.{extension}")
}

/// What marks results attributed on aligned clocks wherever they show.
pub const BEYOND_STORMLOG: &str = "on aligned clocks (beyond stormlog)";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clocks::RankClock;

    fn alignment() -> Alignment {
        let clock = |rank, status, offset_ns: Option<i64>| RankClock {
            rank,
            status,
            offset_ns,
            drift_ppm: offset_ns.map(|_| 12.5),
            matched: 39,
            residual_ns: offset_ns.map(|_| 830_000),
        };
        Alignment {
            reference_rank: 0,
            epoch_ns: 1,
            ranks: vec![
                clock(0, ClockStatus::Reference, Some(0)),
                clock(1, ClockStatus::Aligned, Some(-212_340_000)),
                clock(2, ClockStatus::Aligned, Some(250_000_000)),
                clock(3, ClockStatus::TooFewMarkers, None),
            ],
        }
    }

    #[test]
    fn rows_say_each_clock_in_words_and_numbers() {
        let rows = clock_rows(&alignment());
        assert_eq!(rows[1].offset, "-212.340");
        assert_eq!(rows[2].offset, "+250.000");
        assert_eq!(rows[1].offset_ns, "-212340000");
        assert_eq!(rows[1].drift, "12.5");
        assert_eq!(rows[1].residual, "0.830");
        assert_eq!(rows[1].fit, "39 matched · ±0.830 ms");
        assert_eq!(rows[3].fit, "39 matched");
        assert_eq!(
            (
                rows[3].status,
                rows[3].words,
                rows[3].offset.as_str(),
                rows[3].offset_ns.as_str()
            ),
            ("too_few_markers", "too few markers", "–", "")
        );
    }

    #[test]
    fn the_summary_counts_and_names_the_largest_offset() {
        assert_eq!(
            clocks_summary(&alignment()),
            "2 of 3 ranks aligned to rank 0 · largest offset 250.000 ms · 1 too few markers"
        );
        assert_eq!(
            export_file_name("high", true, "csv"),
            "shardscope-attribution-high-aligned-clocks.csv"
        );
        assert_eq!(
            export_file_name("low", false, "json"),
            "shardscope-attribution-low.json"
        );
    }
}

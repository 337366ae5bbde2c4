//! The trace view's status line as plain values: what the worker is doing for a long
//! request ([`Stage`], sent through the protocol), the progress line and bar, and the
//! summary of a finished run.

use serde::{Deserialize, Serialize};

use crate::format::format_file_size;

/// What the worker is doing for a long request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// Fetching file `number` (from 1) of `count` from the page's site (a link's `src=`).
    Fetching {
        url: String,
        number: usize,
        count: usize,
    },
    /// Reading and parsing this file.
    Reading { file: String },
    /// Running the attribution.
    Attributing,
    /// Building the timeline index.
    Indexing,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::Fetching { url, number, count } if *count > 1 => {
                write!(f, "Fetching {url} ({number} of {count})")
            }
            Stage::Fetching { url, .. } => write!(f, "Fetching {url}"),
            Stage::Reading { file } => write!(f, "Reading {file}"),
            Stage::Attributing => f.write_str("Attributing"),
            Stage::Indexing => f.write_str("Indexing the timeline"),
        }
    }
}

impl Stage {
    /// Fetching the file at `index` (from 0) of `count`.
    pub fn fetching(url: &str, index: usize, count: usize) -> Stage {
        Stage::Fetching {
            url: url.to_string(),
            number: index + 1,
            count,
        }
    }
}

/// The status line while `stage` runs, `done_bytes` of `total_bytes` read.
pub fn progress_text(stage: &Stage, done_bytes: u64, total_bytes: u64) -> String {
    match stage {
        Stage::Reading { .. } | Stage::Fetching { .. } if total_bytes > 0 => format!(
            "{stage} · {} of {} ({:.0} %)",
            format_file_size(done_bytes),
            format_file_size(total_bytes),
            (done_bytes as f64 * 100.0 / total_bytes as f64).min(100.0)
        ),
        Stage::Fetching { .. } if done_bytes > 0 => {
            format!("{stage} · {}", format_file_size(done_bytes))
        }
        other => format!("{other}…"),
    }
}

/// The progress bar's value in 0…1 while reading; `None` (an indeterminate bar) while
/// attributing and indexing, whose length is not known. While fetching, the files
/// already fetched plus the part of this one (when its length is announced).
pub fn progress_fraction(stage: &Stage, done_bytes: u64, total_bytes: u64) -> Option<f64> {
    match stage {
        Stage::Reading { .. } if total_bytes > 0 => {
            Some((done_bytes as f64 / total_bytes as f64).min(1.0))
        }
        Stage::Fetching { number, count, .. } if *count > 0 => {
            let part = if total_bytes > 0 {
                (done_bytes as f64 / total_bytes as f64).min(1.0)
            } else {
                0.0
            };
            Some(((number.saturating_sub(1)) as f64 + part) / *count as f64)
        }
        _ => None,
    }
}

/// What a finished run holds, for its summary line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSummary {
    pub events: u64,
    pub files: usize,
    pub intervals: usize,
    pub parse_ms: f64,
    pub attribute_ms: f64,
    /// Attributed on aligned clocks (beyond stormlog).
    pub aligned: bool,
}

impl RunSummary {
    /// `1,204 events from 2 files · 3 intervals · parsed in 12 ms · attributed in 1 ms`,
    /// then ` · on aligned clocks (beyond stormlog)` when it was.
    pub fn text(&self) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        format!(
            "{} events from {} file{} · {} interval{} · parsed in {:.0} ms · attributed in {:.0} ms",
            self.events,
            self.files,
            plural(self.files),
            self.intervals,
            plural(self.intervals),
            self.parse_ms,
            self.attribute_ms
        ) + &self.aligned_note()
    }

    fn aligned_note(&self) -> String {
        if self.aligned {
            format!(" · {}", super::clocks_panel::BEYOND_STORMLOG)
        } else {
            String::new()
        }
    }
}

/// `3 warnings from stormlog's loader`.
pub fn warnings_title(count: usize) -> String {
    format!(
        "{count} warning{} from stormlog's loader",
        if count == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_in_bytes_and_percent_then_names_the_stage() {
        let reading = Stage::Reading {
            file: "rank0.json".to_string(),
        };
        assert_eq!(
            progress_text(&reading, 512 << 10, 2 << 20),
            format!(
                "Reading rank0.json · {} of {} (25 %)",
                format_file_size(512 << 10),
                format_file_size(2 << 20)
            )
        );
        assert_eq!(progress_text(&reading, 0, 0), "Reading rank0.json…");
        assert_eq!(progress_text(&Stage::Attributing, 5, 5), "Attributing…");
        assert_eq!(
            progress_text(&Stage::Indexing, 5, 5),
            "Indexing the timeline…"
        );
        assert_eq!(progress_fraction(&reading, 1, 4), Some(0.25));
        // More read than announced (a file that grew) stays a full bar.
        assert_eq!(progress_fraction(&reading, 9, 4), Some(1.0));
        assert_eq!(progress_fraction(&reading, 1, 0), None);
        assert_eq!(progress_fraction(&Stage::Attributing, 1, 4), None);
    }

    #[test]
    fn fetching_counts_files_and_bytes_when_announced() {
        let third = Stage::fetching("traces/rank2.json", 2, 4);
        assert_eq!(
            progress_text(&third, 0, 0),
            "Fetching traces/rank2.json (3 of 4)…"
        );
        assert_eq!(
            progress_text(&third, 1 << 20, 4 << 20),
            format!(
                "Fetching traces/rank2.json (3 of 4) · {} of {} (25 %)",
                format_file_size(1 << 20),
                format_file_size(4 << 20)
            )
        );
        assert_eq!(
            progress_text(&third, 3 << 20, 0),
            format!(
                "Fetching traces/rank2.json (3 of 4) · {}",
                format_file_size(3 << 20)
            )
        );
        let one = Stage::fetching("run.json.gz", 0, 1);
        assert_eq!(progress_text(&one, 0, 0), "Fetching run.json.gz…");
        assert_eq!(progress_fraction(&third, 0, 0), Some(0.5));
        assert_eq!(progress_fraction(&third, 2, 4), Some(0.625));
        // More than announced (a compressed transfer) stays within this file's share.
        assert_eq!(progress_fraction(&third, 9, 4), Some(0.75));
        assert_eq!(progress_fraction(&one, 0, 0), Some(0.0));
    }

    #[test]
    fn summaries_count_in_words_with_plurals() {
        let one = RunSummary {
            events: 7,
            files: 1,
            intervals: 1,
            parse_ms: 12.4,
            attribute_ms: 0.6,
            aligned: false,
        };
        assert_eq!(
            one.text(),
            "7 events from 1 file · 1 interval · parsed in 12 ms · attributed in 1 ms"
        );
        let aligned = RunSummary {
            aligned: true,
            ..one
        };
        assert!(aligned
            .text()
            .ends_with(" · attributed in 1 ms · on aligned clocks (beyond stormlog)"));
        let many = RunSummary {
            files: 2,
            intervals: 0,
            ..one
        };
        assert_eq!(
            many.text(),
            "7 events from 2 files · 0 intervals · parsed in 12 ms · attributed in 1 ms"
        );
        assert_eq!(warnings_title(1), "1 warning from stormlog's loader");
        assert_eq!(warnings_title(3), "3 warnings from stormlog's loader");
    }
}

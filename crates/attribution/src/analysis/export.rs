//! Attribution results as text, exactly as `shardscope attribute --format json|csv|table`
//! prints them. The page's downloads call the same functions, so they are byte for
//! byte the CLI's output for the same files and settings.

use std::fmt::Write;

use super::row::phase_label;
use crate::attribution::{AttributionResult, ReasonCode};
use crate::clocks::Alignment;
use crate::csv_text::CsvText;

/// `--format json`: stormlog's result list, pretty-printed, with a final newline.
pub fn to_json(results: &[AttributionResult]) -> String {
    // Serializing plain data (strings, integers, finite floats) cannot fail; an empty
    // list is the honest fallback should it ever.
    let mut text = serde_json::to_string_pretty(results).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}

/// The CSV header of [`to_csv`].
pub const CSV_HEADER: &str = "rank,interval_start_ns,interval_end_ns,classification,confidence,\
marker_hits,synchronized_ranks,expected_world_size,synchrony_ratio,peak_gap_bytes,\
peak_gap_ratio,robust_zscore,reason_codes,phase_path";

fn phase_text(r: &AttributionResult) -> String {
    phase_label(r).map(|p| p.label()).unwrap_or_default()
}

/// `--format csv`: one line per interval after the header; reason codes joined by `;`.
pub fn to_csv(results: &[AttributionResult]) -> String {
    let mut out = CsvText::new();
    out.row(CSV_HEADER.split(','));
    for r in results {
        let e = &r.evidence;
        out.row([
            r.rank.to_string(),
            r.interval_start_ns.to_string(),
            r.interval_end_ns.to_string(),
            r.classification.as_str().to_string(),
            r.confidence.to_string(),
            e.marker_hits.to_string(),
            e.synchronized_ranks.to_string(),
            e.expected_world_size.to_string(),
            e.synchrony_ratio.to_string(),
            e.peak_gap_bytes.to_string(),
            e.peak_gap_ratio.map(|x| x.to_string()).unwrap_or_default(),
            e.robust_zscore.to_string(),
            ReasonCode::join(&r.reason_codes, ";"),
            phase_text(r),
        ]);
    }
    out.finish()
}

/// The results column by column, one entry per interval, under [`CSV_HEADER`]'s names
/// (the Python package's `to_arrow()`): the CSV's values, typed; `peak_gap_ratio` and
/// `phase_path` are `None` where the CSV cell is empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultColumns {
    pub rank: Vec<i64>,
    pub interval_start_ns: Vec<i128>,
    pub interval_end_ns: Vec<i128>,
    pub classification: Vec<&'static str>,
    pub confidence: Vec<f64>,
    pub marker_hits: Vec<u64>,
    pub synchronized_ranks: Vec<u64>,
    pub expected_world_size: Vec<i64>,
    pub synchrony_ratio: Vec<f64>,
    pub peak_gap_bytes: Vec<i64>,
    pub peak_gap_ratio: Vec<Option<f64>>,
    pub robust_zscore: Vec<f64>,
    /// Joined by `;`, as in the CSV.
    pub reason_codes: Vec<String>,
    pub phase_path: Vec<Option<String>>,
}

/// [`ResultColumns`] of `results`.
pub fn to_columns(results: &[AttributionResult]) -> ResultColumns {
    let mut c = ResultColumns::default();
    for r in results {
        let e = &r.evidence;
        c.rank.push(r.rank);
        c.interval_start_ns.push(r.interval_start_ns);
        c.interval_end_ns.push(r.interval_end_ns);
        c.classification.push(r.classification.as_str());
        c.confidence.push(r.confidence);
        c.marker_hits.push(e.marker_hits);
        c.synchronized_ranks.push(e.synchronized_ranks);
        c.expected_world_size.push(e.expected_world_size);
        c.synchrony_ratio.push(e.synchrony_ratio);
        c.peak_gap_bytes.push(e.peak_gap_bytes);
        c.peak_gap_ratio.push(e.peak_gap_ratio);
        c.robust_zscore.push(e.robust_zscore);
        c.reason_codes.push(ReasonCode::join(&r.reason_codes, ";"));
        c.phase_path.push(phase_label(r).map(|p| p.label()));
    }
    c
}

fn gib(bytes: i64) -> String {
    format!("{:.2}", bytes as f64 / (1u64 << 30) as f64)
}

/// `--format table`: aligned columns for a terminal, then the interval count.
pub fn to_table(results: &[AttributionResult]) -> String {
    if results.is_empty() {
        return "No collective-attributed intervals.\n".to_string();
    }
    let with_phases = results.iter().any(|r| r.phase_attribution.is_some());
    let mut header: Vec<String> = [
        "rank",
        "start_ns",
        "end_ns",
        "dur_ms",
        "classification",
        "conf",
        "markers",
        "sync",
        "gap_GiB",
        "gap_ratio",
        "z",
        "reasons",
    ]
    .map(String::from)
    .to_vec();
    if with_phases {
        header.push("phase".into());
    }
    let mut rows: Vec<Vec<String>> = vec![header];
    for r in results {
        let e = &r.evidence;
        let mut row = vec![
            r.rank.to_string(),
            r.interval_start_ns.to_string(),
            r.interval_end_ns.to_string(),
            format!(
                "{:.1}",
                (r.interval_end_ns - r.interval_start_ns) as f64 / 1e6
            ),
            r.classification.as_str().to_string(),
            format!("{:.3}", r.confidence),
            e.marker_hits.to_string(),
            format!("{}/{}", e.synchronized_ranks, e.expected_world_size),
            gib(e.peak_gap_bytes),
            e.peak_gap_ratio
                .map(|x| format!("{x:.4}"))
                .unwrap_or_else(|| "-".into()),
            format!("{:.1}", e.robust_zscore),
            ReasonCode::join(&r.reason_codes, ","),
        ];
        if with_phases {
            row.push(phase_text(r));
        }
        rows.push(row);
    }
    let mut out = columns(&rows, |c| matches!(c, 0..=3 | 5..=10));
    let _ = writeln!(out, "{} interval(s)", results.len());
    out
}

/// Rows as aligned columns two spaces apart (the `numeric` ones right-aligned, the last
/// one left as it is), one line each.
pub(crate) fn columns(rows: &[Vec<String>], numeric: impl Fn(usize) -> bool) -> String {
    let count = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..count)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c + 1 == count {
                    cell.clone()
                } else if numeric(c) {
                    format!("{cell:>w$}", w = widths[c])
                } else {
                    format!("{cell:<w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// `shardscope align --format json`: the alignment as docs/contracts.md §1 ("align") shows
/// it, pretty-printed, with a final newline.
pub fn alignment_to_json(a: &Alignment) -> String {
    let mut text = serde_json::to_string_pretty(a).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

/// The CSV header of [`alignment_to_csv`].
pub const ALIGNMENT_CSV_HEADER: &str =
    "rank,status,offset_ns,drift_ppm,matched,residual_ns,reference_rank,epoch_ns";

/// `--format csv`: one line per rank; empty cells where the contract has `null`.
pub fn alignment_to_csv(a: &Alignment) -> String {
    let mut out = CsvText::new();
    out.row(ALIGNMENT_CSV_HEADER.split(','));
    let text = |v: Option<String>| v.unwrap_or_default();
    for c in &a.ranks {
        out.row([
            c.rank.to_string(),
            c.status.as_str().to_string(),
            text(c.offset_ns.map(|v| v.to_string())),
            text(c.drift_ppm.map(|v| format!("{v:?}"))),
            c.matched.to_string(),
            text(c.residual_ns.map(|v| v.to_string())),
            a.reference_rank.to_string(),
            a.epoch_ns.to_string(),
        ]);
    }
    out.finish()
}

/// `--format table`: one line per rank (offsets and residuals in milliseconds).
pub fn alignment_to_table(a: &Alignment) -> String {
    let ms = |ns: Option<i64>| ns.map_or("-".to_string(), |v| format!("{:.3}", v as f64 / 1e6));
    let mut rows: Vec<Vec<String>> = vec![[
        "rank",
        "offset_ms",
        "drift_ppm",
        "matched",
        "residual_ms",
        "status",
    ]
    .map(String::from)
    .to_vec()];
    for c in &a.ranks {
        rows.push(vec![
            c.rank.to_string(),
            ms(c.offset_ns),
            c.drift_ppm.map_or("-".to_string(), |v| format!("{v:.3}")),
            c.matched.to_string(),
            ms(c.residual_ns),
            c.status.words().to_string(),
        ]);
    }
    let mut out = format!(
        "Clocks against rank {} (epoch {} ns; t_rank = t_ref + offset + drift * (t_ref - epoch))\n",
        a.reference_rank, a.epoch_ns
    );
    out.push_str(&columns(&rows, |c| c < 5));
    out
}

//! Two runs side by side (beyond stormlog, which looks at one run at a time): per rank,
//! how many intervals of each class each run has, the peak and the summed hidden-memory
//! gap of its intervals and when its biggest spike happened, with the change from run A
//! to run B and a one-line verdict. The CLI's `shardscope compare` and the page's
//! comparison table are both [`compare`].
//!
//! Conventions, so that the numbers read the same everywhere:
//! - "B − A": every change is run B's value minus run A's. Fewer or smaller is better.
//! - A rank's *peak gap* is the largest `peak_gap_bytes` of its intervals (0 when it has
//!   none); its *total gap* is their sum (one spike's excess memory counted once per
//!   interval). *Peak at* is the start of the interval with the peak gap (the first of
//!   equal ones), in nanoseconds from the run's first event.
//! - A rank present in only one run is listed with the other side empty and is never
//!   called better or worse.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::{Attribution, IntervalRow};
use crate::attribution::{AttributionResult, Classification};
use crate::clocks::{markers_by_rank, Alignment};
use crate::csv_text::CsvText;
use crate::format::format_bytes;
use crate::trace::event::Events;
use crate::trace::Dataset;

/// What a comparison needs to know of a run besides its results: its ranks (those with
/// no interval count too), the time of its first event and the first collectives of
/// its first rank with markers (to line two runs up at one of them).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunFacts {
    pub ranks: BTreeSet<i64>,
    /// The first event's timestamp on the run's own clock (`None`: no events).
    pub start_ns: Option<i64>,
    /// The first [`ANCHOR_MARKERS`] collective markers of the lowest rank with markers
    /// (that rank is the clocks' reference: its times are the same on aligned clocks).
    pub anchor_markers_ns: Vec<i64>,
}

/// How many of a run's first collectives [`CompareAxis::AtCollective`] can choose from.
pub const ANCHOR_MARKERS: usize = 256;

impl RunFacts {
    /// The ranks and the start of a session's events.
    pub fn of(events: &Events<'_>) -> RunFacts {
        RunFacts::on_clocks(events, None)
    }

    /// [`RunFacts::of`] with the start on the reference clock of `alignment` (each
    /// `aligned` rank's first event mapped through its clock, as the attribution on
    /// aligned clocks sees it).
    pub fn on_clocks(events: &Events<'_>, alignment: Option<&Alignment>) -> RunFacts {
        let mut first: BTreeMap<i64, i64> = BTreeMap::new();
        for (event, source) in events.iter() {
            let ts = event.timestamp_ns;
            first
                .entry(source.rank)
                .and_modify(|t| *t = (*t).min(ts))
                .or_insert(ts);
        }
        if let Some(alignment) = alignment {
            for (rank, offset, drift) in alignment.aligned() {
                if let Some(t) = first.get_mut(&rank) {
                    *t = alignment.map_with(*t, (offset, drift));
                }
            }
        }
        let mut anchor_markers_ns = markers_by_rank(events)
            .into_iter()
            .find(|(_, m)| !m.is_empty())
            .map(|(_, m)| m)
            .unwrap_or_default();
        anchor_markers_ns.truncate(ANCHOR_MARKERS);
        RunFacts {
            start_ns: first.values().copied().min(),
            ranks: first.into_keys().collect(),
            anchor_markers_ns,
        }
    }
}

/// One run's intervals on one rank.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RankStats {
    pub intervals: u64,
    pub confident: u64,
    pub likely: u64,
    pub suspect: u64,
    /// The largest interval peak gap (0: no interval).
    pub peak_gap_bytes: i64,
    /// The sum of the intervals' peak gaps.
    pub total_gap_bytes: i64,
    /// When the interval with the peak gap starts, from the run's first event.
    pub peak_at_ns: Option<i64>,
}

impl RankStats {
    fn add(&mut self, r: &impl Interval, start_ns: i64) {
        self.intervals += 1;
        match r.class() {
            Classification::CollectiveConfident => self.confident += 1,
            Classification::CollectiveLikely => self.likely += 1,
            Classification::CollectiveSuspect => self.suspect += 1,
        }
        let gap = r.peak_gap_bytes();
        self.total_gap_bytes = self.total_gap_bytes.saturating_add(gap);
        if self.peak_at_ns.is_none() || gap > self.peak_gap_bytes {
            self.peak_gap_bytes = gap;
            let from_start = r.start_ns().saturating_sub(i128::from(start_ns));
            self.peak_at_ns = Some(from_start.clamp(i64::MIN.into(), i64::MAX.into()) as i64);
        }
    }

    /// The class counts, most confident first (as [`Classification::ALL`]).
    pub fn by_class(&self) -> [u64; 3] {
        [self.confident, self.likely, self.suspect]
    }
}

/// Whether run B is better on a rank (or in all): fewer confident intervals, then fewer
/// likely ones, then a smaller peak gap, then a smaller total gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Better,
    Worse,
    Same,
    /// The rank is only in run A.
    OnlyA,
    /// The rank is only in run B.
    OnlyB,
}

impl Change {
    fn of(a: &RankStats, b: &RankStats) -> Change {
        let key = |s: &RankStats| (s.confident, s.likely, s.peak_gap_bytes, s.total_gap_bytes);
        match key(b).cmp(&key(a)) {
            Ordering::Less => Change::Better,
            Ordering::Greater => Change::Worse,
            Ordering::Equal => Change::Same,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Change::Better => "better",
            Change::Worse => "worse",
            Change::Same => "same",
            Change::OnlyA => "only_a",
            Change::OnlyB => "only_b",
        }
    }

    /// The words the table shows.
    pub fn words(self) -> &'static str {
        match self {
            Change::Better => "better",
            Change::Worse => "worse",
            Change::Same => "same",
            Change::OnlyA => "only in A",
            Change::OnlyB => "only in B",
        }
    }
}

/// One rank in both runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankComparison {
    pub rank: i64,
    /// `None`: the rank is not in that run.
    pub a: Option<RankStats>,
    pub b: Option<RankStats>,
    pub change: Change,
}

impl RankComparison {
    /// B − A of one measure (`None` when the rank is missing from a run).
    pub fn delta(&self, measure: Measure) -> Option<i64> {
        let b = measure.of(self.b.as_ref()?)?;
        let a = measure.of(self.a.as_ref()?)?;
        Some(b.saturating_sub(a))
    }
}

/// A measure of [`RankStats`] the table shows and sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    Intervals,
    Confident,
    Likely,
    Suspect,
    PeakGap,
    TotalGap,
    PeakAt,
}

impl Measure {
    pub const ALL: [Measure; 7] = [
        Measure::Intervals,
        Measure::Confident,
        Measure::Likely,
        Measure::Suspect,
        Measure::PeakGap,
        Measure::TotalGap,
        Measure::PeakAt,
    ];

    /// The measure of one run on one rank (`None`: the peak's time of a rank without
    /// intervals).
    pub fn of(self, s: &RankStats) -> Option<i64> {
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        Some(match self {
            Measure::Intervals => count(s.intervals),
            Measure::Confident => count(s.confident),
            Measure::Likely => count(s.likely),
            Measure::Suspect => count(s.suspect),
            Measure::PeakGap => s.peak_gap_bytes,
            Measure::TotalGap => s.total_gap_bytes,
            Measure::PeakAt => return s.peak_at_ns,
        })
    }

    /// The column name in the CSV and the table.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Intervals => "intervals",
            Measure::Confident => "confident",
            Measure::Likely => "likely",
            Measure::Suspect => "suspect",
            Measure::PeakGap => "peak_gap_bytes",
            Measure::TotalGap => "total_gap_bytes",
            Measure::PeakAt => "peak_at_ns",
        }
    }

    /// The measure a column name (as [`Measure::name`]) stands for.
    pub fn parse(name: &str) -> Option<Measure> {
        Measure::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether a smaller value is better (when it is a quantity of spikes at all; the
    /// peak's time is neither).
    pub fn lower_is_better(self) -> Option<bool> {
        (self != Measure::PeakAt).then_some(true)
    }
}

/// One run's totals over its ranks.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunTotals {
    pub ranks: usize,
    #[serde(flatten)]
    pub stats: RankStats,
    /// Attributed on the reference rank's clock (`--align-clocks`).
    pub aligned_clocks: bool,
}

/// Run A against run B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    pub a: RunTotals,
    pub b: RunTotals,
    /// Every rank of either run, lowest first.
    pub ranks: Vec<RankComparison>,
    /// The comparison in one line.
    pub verdict: String,
}

/// What a comparison reads of one interval: the same of stormlog's results (the CLI)
/// and of the rows the page holds ([`IntervalRow`]).
pub trait Interval {
    fn rank(&self) -> i64;
    fn start_ns(&self) -> i128;
    fn class(&self) -> Classification;
    fn peak_gap_bytes(&self) -> i64;
}

impl Interval for AttributionResult {
    fn rank(&self) -> i64 {
        self.rank
    }
    fn start_ns(&self) -> i128 {
        self.interval_start_ns
    }
    fn class(&self) -> Classification {
        self.classification
    }
    fn peak_gap_bytes(&self) -> i64 {
        self.evidence.peak_gap_bytes
    }
}

impl Interval for IntervalRow {
    fn rank(&self) -> i64 {
        self.rank
    }
    fn start_ns(&self) -> i128 {
        self.interval_start_ns.into()
    }
    fn class(&self) -> Classification {
        self.classification
    }
    fn peak_gap_bytes(&self) -> i64 {
        self.evidence.peak_gap_bytes
    }
}

/// One run to compare: its facts, its intervals and whether its clocks were aligned.
#[derive(Debug)]
pub struct RunInput<'a, R> {
    pub facts: &'a RunFacts,
    pub results: &'a [R],
    pub aligned_clocks: bool,
}

impl<'a> RunInput<'a, AttributionResult> {
    /// An attribution's results on a run with `facts`.
    pub fn of(facts: &'a RunFacts, attribution: &'a Attribution) -> Self {
        RunInput {
            facts,
            results: &attribution.results,
            aligned_clocks: attribution.alignment.is_some(),
        }
    }
}

fn per_rank<R: Interval>(run: &RunInput<'_, R>) -> BTreeMap<i64, RankStats> {
    let start_ns = run.facts.start_ns.unwrap_or(0);
    let mut by_rank: BTreeMap<i64, RankStats> = run
        .facts
        .ranks
        .iter()
        .map(|&r| (r, RankStats::default()))
        .collect();
    for r in run.results {
        by_rank.entry(r.rank()).or_default().add(r, start_ns);
    }
    by_rank
}

fn totals(by_rank: &BTreeMap<i64, RankStats>, aligned_clocks: bool) -> RunTotals {
    let mut stats = RankStats::default();
    let mut peak: Option<(i64, Option<i64>)> = None;
    for s in by_rank.values() {
        stats.intervals += s.intervals;
        stats.confident += s.confident;
        stats.likely += s.likely;
        stats.suspect += s.suspect;
        stats.total_gap_bytes = stats.total_gap_bytes.saturating_add(s.total_gap_bytes);
        if s.intervals > 0 && peak.is_none_or(|(gap, _)| s.peak_gap_bytes > gap) {
            peak = Some((s.peak_gap_bytes, s.peak_at_ns));
        }
    }
    if let Some((gap, at)) = peak {
        stats.peak_gap_bytes = gap;
        stats.peak_at_ns = at;
    }
    RunTotals {
        ranks: by_rank.len(),
        stats,
        aligned_clocks,
    }
}

/// Two attributed datasets compared (each run's facts from the session it attributed).
pub fn compare_attributions(
    a: (&Dataset, &Attribution),
    b: (&Dataset, &Attribution),
) -> Comparison {
    let facts = |(dataset, attribution): (&Dataset, &Attribution)| {
        RunFacts::on_clocks(
            &dataset.session_events(attribution.session),
            attribution.alignment.as_ref(),
        )
    };
    let (a_facts, b_facts) = (facts(a), facts(b));
    compare(RunInput::of(&a_facts, a.1), RunInput::of(&b_facts, b.1))
}

/// Where run B's lanes sit against run A's on one time axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareAxis {
    /// Each run from its own first event.
    #[default]
    FromStart,
    /// The `n`-th collective marker (from 0) of each run's lowest rank with markers at
    /// the same time.
    AtCollective(usize),
}

/// What to add to run B's timestamps to draw them on run A's axis (`None`: a run has
/// no events, or fewer than `n + 1` anchor markers).
pub fn b_shift_ns(a: &RunFacts, b: &RunFacts, axis: CompareAxis) -> Option<i64> {
    let anchor = |facts: &RunFacts| match axis {
        CompareAxis::FromStart => facts.start_ns,
        CompareAxis::AtCollective(n) => facts.anchor_markers_ns.get(n).copied(),
    };
    Some(anchor(a)?.saturating_sub(anchor(b)?))
}

/// Run A against run B, rank by rank.
pub fn compare<R: Interval>(a: RunInput<'_, R>, b: RunInput<'_, R>) -> Comparison {
    let (mut a_ranks, mut b_ranks) = (per_rank(&a), per_rank(&b));
    let all: BTreeSet<i64> = a_ranks.keys().chain(b_ranks.keys()).copied().collect();
    let (a_totals, b_totals) = (
        totals(&a_ranks, a.aligned_clocks),
        totals(&b_ranks, b.aligned_clocks),
    );
    let ranks: Vec<RankComparison> = all
        .into_iter()
        .map(|rank| {
            let (a, b) = (a_ranks.remove(&rank), b_ranks.remove(&rank));
            let change = match (&a, &b) {
                (Some(a), Some(b)) => Change::of(a, b),
                (Some(_), None) => Change::OnlyA,
                _ => Change::OnlyB,
            };
            RankComparison { rank, a, b, change }
        })
        .collect();
    let verdict = verdict(&a_totals, &b_totals, &ranks);
    Comparison {
        a: a_totals,
        b: b_totals,
        ranks,
        verdict,
    }
}

/// Ranks as short ranges: `4–7`, `0, 2, 5–6`.
pub fn rank_ranges(ranks: &[i64]) -> String {
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            sorted[i].to_string()
        } else {
            format!("{}–{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// The share of the largest peak-gap change that still counts a rank into the group the
/// verdict names ("peak gap −1.2 GiB on ranks 4–7").
pub const PEAK_GROUP_SHARE: f64 = 0.9;

fn confident_words(a: u64, b: u64) -> String {
    let spikes = |n: u64| if n == 1 { "spike" } else { "spikes" };
    match a.cmp(&b) {
        Ordering::Equal if a == 0 => "Neither run has a confident spike".to_string(),
        Ordering::Equal => format!("B has as many confident {} as A ({a})", spikes(a)),
        _ if a == 0 => format!("B has {b} confident {} where A has none", spikes(b)),
        Ordering::Greater => {
            let pct = ((a - b) as f64 / a as f64 * 100.0).round();
            format!("B has {pct:.0} % fewer confident spikes ({a} → {b})")
        }
        Ordering::Less => {
            let pct = ((b - a) as f64 / a as f64 * 100.0).round();
            format!("B has {pct:.0} % more confident spikes ({a} → {b})")
        }
    }
}

fn peak_words(ranks: &[RankComparison]) -> String {
    let deltas: Vec<(i64, i64)> = ranks
        .iter()
        .filter_map(|r| Some((r.rank, r.delta(Measure::PeakGap)?)))
        .filter(|&(_, d)| d != 0)
        .collect();
    let Some(&(_, largest)) = deltas.iter().max_by_key(|(_, d)| d.unsigned_abs()) else {
        return "peak gaps unchanged".to_string();
    };
    let group: Vec<i64> = deltas
        .iter()
        .filter(|&&(_, d)| {
            d.signum() == largest.signum()
                && d.unsigned_abs() as f64 >= PEAK_GROUP_SHARE * largest.unsigned_abs() as f64
        })
        .map(|&(rank, _)| rank)
        .collect();
    let sign = if largest > 0 { "+" } else { "" };
    let noun = if group.len() == 1 { "rank" } else { "ranks" };
    format!(
        "peak gap {sign}{} on {noun} {}",
        format_bytes(largest),
        rank_ranges(&group)
    )
}

fn verdict(a: &RunTotals, b: &RunTotals, ranks: &[RankComparison]) -> String {
    let mut parts = vec![
        confident_words(a.stats.confident, b.stats.confident),
        peak_words(ranks),
    ];
    for (which, side) in [("A", Change::OnlyA), ("B", Change::OnlyB)] {
        let only: Vec<i64> = ranks
            .iter()
            .filter(|r| r.change == side)
            .map(|r| r.rank)
            .collect();
        if !only.is_empty() {
            let noun = if only.len() == 1 { "rank" } else { "ranks" };
            parts.push(format!("{noun} {} only in {which}", rank_ranges(&only)));
        }
    }
    parts.join("; ")
}

/// Sort the table's rows by one column: `measure` `None` sorts by rank; `Some(m)` by
/// B − A of `m` (ranks missing from a run last). Ties keep rank order.
pub fn sort_rows(rows: &mut [RankComparison], measure: Option<Measure>, descending: bool) {
    rows.sort_by(|x, y| {
        let order = match measure {
            None => x.rank.cmp(&y.rank),
            Some(m) => match (x.delta(m), y.delta(m)) {
                (Some(dx), Some(dy)) if descending => dy.cmp(&dx),
                (Some(dx), Some(dy)) => dx.cmp(&dy),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
        };
        let order = if measure.is_none() && descending {
            order.reverse()
        } else {
            order
        };
        order.then(x.rank.cmp(&y.rank))
    });
}

/// `shardscope compare --format json`: the comparison pretty-printed, with a final
/// newline.
pub fn to_json(c: &Comparison) -> String {
    let mut text = serde_json::to_string_pretty(c).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

/// The CSV header of [`to_csv`]: per measure A, B and B − A.
pub fn csv_header() -> String {
    let mut cells = vec!["rank".to_string(), "change".to_string()];
    for m in Measure::ALL {
        for side in ["a", "b", "delta"] {
            cells.push(format!("{side}_{}", m.name()));
        }
    }
    cells.join(",")
}

/// `--format csv`: one line per rank; empty cells where a run lacks the rank.
pub fn to_csv(c: &Comparison) -> String {
    let mut out = CsvText::new();
    out.row(csv_header().split(',').map(str::to_string));
    for r in &c.ranks {
        let mut cells = vec![r.rank.to_string(), r.change.as_str().to_string()];
        for m in Measure::ALL {
            let value = |s: &Option<RankStats>| {
                s.as_ref()
                    .and_then(|s| m.of(s))
                    .map_or(String::new(), |v| v.to_string())
            };
            cells.push(value(&r.a));
            cells.push(value(&r.b));
            cells.push(r.delta(m).map_or(String::new(), |d| d.to_string()));
        }
        out.row(cells);
    }
    out.finish()
}

/// `--format table`: one line per rank, A → B per measure, the verdict last.
pub fn to_table(c: &Comparison) -> String {
    let gib = |b: i64| format!("{:.3}", b as f64 / (1u64 << 30) as f64);
    let pair = |r: &RankComparison, f: &dyn Fn(&RankStats) -> String| {
        let side = |s: &Option<RankStats>| s.as_ref().map_or("-".to_string(), f);
        format!("{} → {}", side(&r.a), side(&r.b))
    };
    let mut rows: Vec<Vec<String>> = vec![[
        "rank",
        "confident",
        "likely",
        "suspect",
        "peak_gap_gib",
        "total_gap_gib",
        "peak_at_s",
        "change",
    ]
    .map(String::from)
    .to_vec()];
    for r in &c.ranks {
        rows.push(vec![
            r.rank.to_string(),
            pair(r, &|s| s.confident.to_string()),
            pair(r, &|s| s.likely.to_string()),
            pair(r, &|s| s.suspect.to_string()),
            pair(r, &|s| gib(s.peak_gap_bytes)),
            pair(r, &|s| gib(s.total_gap_bytes)),
            pair(r, &|s| {
                s.peak_at_ns
                    .map_or("-".to_string(), |ns| format!("{:.3}", ns as f64 / 1e9))
            }),
            r.change.words().to_string(),
        ]);
    }
    let mut out =
        format!(
        "A: {} ranks, {} intervals ({} confident){}; B: {} ranks, {} intervals ({} confident){}\n",
        c.a.ranks,
        c.a.stats.intervals,
        c.a.stats.confident,
        if c.a.aligned_clocks { ", aligned clocks" } else { "" },
        c.b.ranks,
        c.b.stats.intervals,
        c.b.stats.confident,
        if c.b.aligned_clocks { ", aligned clocks" } else { "" },
    );
    out.push_str(&crate::analysis::export::columns(&rows, |c| c < 7));
    let _ = writeln!(out, "{}", c.verdict);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::Evidence;

    fn result(rank: i64, start_ns: i128, class: Classification, gap: i64) -> AttributionResult {
        AttributionResult {
            rank,
            interval_start_ns: start_ns,
            interval_end_ns: start_ns + 1_000_000,
            classification: class,
            confidence: 0.9,
            reason_codes: Vec::new(),
            evidence: Evidence {
                marker_hits: 1,
                synchronized_ranks: 2,
                expected_world_size: 2,
                synchrony_ratio: 1.0,
                peak_gap_bytes: gap,
                peak_gap_ratio: None,
                robust_zscore: 5.0,
            },
            phase_attribution: None,
        }
    }

    fn facts(ranks: &[i64], start_ns: i64) -> RunFacts {
        RunFacts {
            ranks: ranks.iter().copied().collect(),
            start_ns: Some(start_ns),
            anchor_markers_ns: Vec::new(),
        }
    }

    #[test]
    fn the_page_rows_compare_as_the_results_they_come_from() {
        let (fa, fb) = (facts(&[0, 1], 100), facts(&[0, 1, 2], 0));
        let a = [result(0, 300, C, GIB), result(1, 400, L, 2 * GIB)];
        let b = [result(1, 900, S, GIB), result(2, 50, C, 3 * GIB)];
        let rows =
            |r: &[AttributionResult]| r.iter().map(IntervalRow::from_result).collect::<Vec<_>>();
        let (ra, rb) = (rows(&a), rows(&b));
        let from_rows = compare(
            RunInput {
                facts: &fa,
                results: &ra,
                aligned_clocks: true,
            },
            RunInput {
                facts: &fb,
                results: &rb,
                aligned_clocks: false,
            },
        );
        let from_results = compare(
            RunInput {
                facts: &fa,
                results: &a,
                aligned_clocks: true,
            },
            RunInput {
                facts: &fb,
                results: &b,
                aligned_clocks: false,
            },
        );
        assert_eq!(from_rows, from_results);
        assert_eq!(to_csv(&from_rows), to_csv(&from_results));
    }

    #[test]
    fn b_shifts_onto_a_by_the_starts_or_by_a_chosen_collective() {
        let mut a = facts(&[0], 1_000);
        let mut b = facts(&[0], 5_000);
        a.anchor_markers_ns = vec![2_000, 3_000];
        b.anchor_markers_ns = vec![7_500];
        assert_eq!(b_shift_ns(&a, &b, CompareAxis::FromStart), Some(-4_000));
        assert_eq!(
            b_shift_ns(&a, &b, CompareAxis::AtCollective(0)),
            Some(-5_500)
        );
        assert_eq!(b_shift_ns(&a, &b, CompareAxis::AtCollective(1)), None);
        b.start_ns = None;
        assert_eq!(b_shift_ns(&a, &b, CompareAxis::FromStart), None);
    }

    const GIB: i64 = 1 << 30;
    use Classification::{CollectiveConfident as C, CollectiveLikely as L, CollectiveSuspect as S};

    fn run<'a>(
        facts: &'a RunFacts,
        results: &'a [AttributionResult],
    ) -> RunInput<'a, AttributionResult> {
        RunInput {
            facts,
            results,
            aligned_clocks: false,
        }
    }

    #[test]
    fn per_rank_counts_peaks_and_totals_with_b_minus_a() {
        let (fa, fb) = (facts(&[0, 1, 2], 1_000), facts(&[0, 1, 2], 5_000));
        let a = [
            result(0, 3_000, C, 2 * GIB),
            result(0, 9_000, L, 3 * GIB),
            result(1, 4_000, C, GIB),
            result(1, 6_000, S, GIB),
        ];
        let b = [result(0, 8_000, C, GIB), result(1, 7_000, C, GIB)];
        let c = compare(run(&fa, &a), run(&fb, &b));
        assert_eq!(c.ranks.len(), 3);
        let r0 = &c.ranks[0];
        let a0 = r0.a.clone().unwrap_or_default();
        assert_eq!(
            (
                a0.intervals,
                a0.by_class(),
                a0.peak_gap_bytes,
                a0.total_gap_bytes
            ),
            (2, [1, 1, 0], 3 * GIB, 5 * GIB)
        );
        assert_eq!(a0.peak_at_ns, Some(8_000), "from the run's first event");
        assert_eq!(r0.b.as_ref().and_then(|s| s.peak_at_ns), Some(3_000));
        assert_eq!(r0.delta(Measure::PeakGap), Some(-2 * GIB));
        assert_eq!(r0.delta(Measure::Likely), Some(-1));
        assert_eq!(r0.change, Change::Better);
        // Rank 1: the same confident count and peak; a smaller total.
        assert_eq!(c.ranks[1].change, Change::Better);
        assert_eq!(c.ranks[1].delta(Measure::TotalGap), Some(-GIB));
        // Rank 2 has no interval in either run.
        assert_eq!(c.ranks[2].change, Change::Same);
        assert_eq!(c.ranks[2].a.as_ref().map(|s| s.peak_at_ns), Some(None));
        assert_eq!((c.a.stats.confident, c.b.stats.confident), (2, 2));
        assert_eq!(
            (c.a.stats.peak_gap_bytes, c.b.stats.peak_gap_bytes),
            (3 * GIB, GIB)
        );
        assert_eq!(
            c.verdict,
            "B has as many confident spikes as A (2); peak gap −2.00 GiB on rank 0"
        );
    }

    #[test]
    fn the_verdict_names_the_change_in_confident_spikes_and_the_ranks_of_the_peak_change() {
        let f = facts(&[0, 1, 2, 3, 4, 5, 6, 7], 0);
        let a: Vec<AttributionResult> = (0..8)
            .flat_map(|rank| [result(rank, 10, C, 2 * GIB), result(rank, 20, C, GIB)])
            .collect();
        // B: one confident spike per rank; ranks 4–7 lose 1.2 GiB of peak, rank 1 a bit.
        let b: Vec<AttributionResult> = (0..8)
            .map(|rank| {
                let gap = match rank {
                    4..=7 => 2 * GIB - GIB * 6 / 5,
                    1 => 2 * GIB - GIB / 2,
                    _ => 2 * GIB,
                };
                result(rank, 10, C, gap)
            })
            .collect();
        let c = compare(run(&f, &a), run(&f, &b));
        assert_eq!(
            c.verdict,
            "B has 50 % fewer confident spikes (16 → 8); peak gap −1.20 GiB on ranks 4–7"
        );
        let worse = compare(run(&f, &b), run(&f, &a));
        assert!(
            worse.verdict.starts_with(
                "B has 100 % more confident spikes (8 → 16); peak gap +1.20 GiB on ranks 4–7"
            ),
            "{}",
            worse.verdict
        );
        assert!(worse.ranks.iter().all(|r| r.change == Change::Worse));
    }

    #[test]
    fn ranks_in_one_run_only_are_listed_and_never_better_or_worse() {
        let (fa, fb) = (facts(&[0, 1], 0), facts(&[0, 1, 2, 3], 0));
        let c = compare(run(&fa, &[]), run(&fb, &[result(3, 5, C, GIB)]));
        let changes: Vec<Change> = c.ranks.iter().map(|r| r.change).collect();
        assert_eq!(
            changes,
            [Change::Same, Change::Same, Change::OnlyB, Change::OnlyB]
        );
        assert_eq!(c.ranks[3].delta(Measure::Confident), None);
        assert_eq!(
            c.verdict,
            "B has 1 confident spike where A has none; peak gaps unchanged; ranks 2–3 only in B"
        );
        let none = compare(run(&fa, &[]), run(&fa, &[]));
        assert_eq!(
            none.verdict,
            "Neither run has a confident spike; peak gaps unchanged"
        );
    }

    #[test]
    fn rank_ranges_join_runs_of_consecutive_ranks() {
        assert_eq!(rank_ranges(&[7, 4, 5, 6]), "4–7");
        assert_eq!(rank_ranges(&[0, 2, 5, 6, 6]), "0, 2, 5–6");
        assert_eq!(rank_ranges(&[]), "");
    }

    #[test]
    fn rows_sort_by_a_change_with_missing_ranks_last_and_ties_in_rank_order() {
        let (fa, fb) = (facts(&[0, 1, 2, 3], 0), facts(&[0, 1, 2], 0));
        let a = [
            result(0, 1, C, GIB),
            result(1, 1, C, GIB),
            result(2, 1, C, GIB),
        ];
        let b = [result(0, 1, C, 3 * GIB), result(1, 1, C, GIB)];
        let mut rows = compare(run(&fa, &a), run(&fb, &b)).ranks;
        let order = |rows: &[RankComparison]| rows.iter().map(|r| r.rank).collect::<Vec<_>>();
        sort_rows(&mut rows, Some(Measure::PeakGap), false);
        assert_eq!(order(&rows), [2, 1, 0, 3]);
        sort_rows(&mut rows, Some(Measure::PeakGap), true);
        assert_eq!(order(&rows), [0, 1, 2, 3]);
        sort_rows(&mut rows, None, true);
        assert_eq!(order(&rows), [3, 2, 1, 0]);
        sort_rows(&mut rows, None, false);
        assert_eq!(order(&rows), [0, 1, 2, 3]);
        assert_eq!(Measure::parse("peak_gap_bytes"), Some(Measure::PeakGap));
        assert_eq!(Measure::parse("peak"), None);
    }

    #[test]
    fn exports_carry_every_rank_and_measure() {
        let (fa, fb) = (facts(&[0], 0), facts(&[0, 1], 0));
        let c = compare(run(&fa, &[result(0, 1_500_000_000, C, GIB)]), run(&fb, &[]));
        let csv = to_csv(&c);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].split(',').count(), 2 + 3 * Measure::ALL.len());
        assert_eq!(
            lines[1],
            "0,better,1,0,-1,1,0,-1,0,0,0,0,0,0,1073741824,0,-1073741824,1073741824,0,-1073741824,1500000000,,"
        );
        assert_eq!(lines[2], "1,only_b,,0,,,0,,,0,,,0,,,0,,,0,,,,");
        let json: serde_json::Value = serde_json::from_str(&to_json(&c)).unwrap_or_default();
        assert_eq!(json["ranks"][0]["change"], "better");
        assert_eq!(json["a"]["confident"], 1);
        assert_eq!(json["b"]["ranks"], 2);
        assert_eq!(json["ranks"][1]["a"], serde_json::Value::Null);
        let table = to_table(&c);
        assert!(table.contains("1 → 0"), "{table}");
        assert!(table.contains("1.500 → -"), "{table}");
        assert!(table.ends_with(&format!("{}\n", c.verdict)), "{table}");
    }
}

//! Beyond every explorer: several scenarios' frontiers compared — the best latency at
//! each PE budget, who is faster where, said in words.
//!
//! A frontier answers "how fast can I go with at most P PEs?": the fastest frontier
//! config using ≤ P PEs (the fastest of *all* feasible configs with ≤ P PEs is always on
//! the frontier, since anything dominating it would use ≤ P PEs too). That step function
//! is what two scenarios are compared on, at every PE count either frontier uses (the
//! function only changes there).

use serde::{Deserialize, Serialize};

use super::ConfigScore;

/// The PE budgets the comparison table reports.
pub const PE_BUDGETS: [u64; 4] = [8, 64, 512, 4096];

/// Most scenarios compared at once (the page's colours and markers).
pub const MAX_SCENARIOS: usize = 4;

/// Two latencies closer than this (relative) are equal: identical settings give
/// bit-identical frontiers, and the physics has no meaning at 1e-9.
const TIE_REL: f64 = 1e-9;

/// One scenario's frontier as (PEs, latency) pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontierLine {
    pub name: String,
    /// (PEs used, latency ns), in any order.
    pub points: Vec<(u64, f64)>,
}

impl FrontierLine {
    pub fn from_configs(name: &str, frontier: &[ConfigScore]) -> FrontierLine {
        FrontierLine {
            name: name.to_string(),
            points: frontier
                .iter()
                .map(|c| (c.pes_used, c.total_latency_ns))
                .collect(),
        }
    }

    /// The fastest latency using at most `budget_pes` PEs.
    pub fn best_within(&self, budget_pes: u64) -> Option<f64> {
        self.points
            .iter()
            .filter(|(p, l)| *p <= budget_pes && l.is_finite())
            .map(|&(_, l)| l)
            .min_by(f64::total_cmp)
    }
}

/// One row of the comparison table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRow {
    pub name: String,
    pub frontier_size: usize,
    /// The frontier's fastest latency, ms (`null`: nothing fits).
    pub best_latency_ms: Option<f64>,
    /// The fewest PEs any frontier config uses.
    pub min_pes: Option<u64>,
    /// The best latency within each of [`PE_BUDGETS`], ms (`null`: nothing fits).
    pub best_latency_ms_within: Vec<Option<f64>>,
}

/// Who is faster over one run of consecutive PE budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    FirstFaster,
    SecondFaster,
    Equal,
    OnlyFirst,
    OnlySecond,
}

/// PE budgets `from_pes..below_pes` (`below_pes` `None`: and every larger budget) over
/// which one verdict holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Band {
    pub verdict: Verdict,
    pub from_pes: u64,
    pub below_pes: Option<u64>,
    /// The largest ratio slower / faster within the band (1 for equal or only-one).
    pub max_ratio: f64,
    /// The budget where that ratio is reached.
    pub at_pes: u64,
}

/// Two scenarios side by side (indices into the rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub first: usize,
    pub second: usize,
    pub bands: Vec<Band>,
    pub sentence: String,
}

/// Every scenario against every other, and who is fastest at each budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub budgets_pes: Vec<u64>,
    pub rows: Vec<ScenarioRow>,
    pub pairs: Vec<Pair>,
    /// The summary in words: who is fastest where (three or more scenarios), then one
    /// sentence per pair.
    pub summary: Vec<String>,
}

/// Compare the frontiers (in the order given; names as given).
pub fn compare_frontiers(lines: &[FrontierLine]) -> Comparison {
    let rows = lines
        .iter()
        .map(|l| ScenarioRow {
            name: l.name.clone(),
            frontier_size: l.points.len(),
            best_latency_ms: l.best_within(u64::MAX).map(|ns| ns / 1e6),
            min_pes: l.points.iter().map(|p| p.0).min(),
            best_latency_ms_within: PE_BUDGETS
                .iter()
                .map(|&b| l.best_within(b).map(|ns| ns / 1e6))
                .collect(),
        })
        .collect();
    let mut pairs = Vec::new();
    for first in 0..lines.len() {
        for second in first + 1..lines.len() {
            let (a, b) = (&lines[first], &lines[second]);
            let bands = bands(a, b);
            let sentence = pair_sentence(&a.name, &b.name, &bands);
            pairs.push(Pair {
                first,
                second,
                bands,
                sentence,
            });
        }
    }
    let mut summary = Vec::new();
    if lines.len() >= 3 {
        if let Some(s) = fastest_sentence(lines) {
            summary.push(s);
        }
    }
    summary.extend(pairs.iter().map(|p| p.sentence.clone()));
    Comparison {
        budgets_pes: PE_BUDGETS.to_vec(),
        rows,
        pairs,
        summary,
    }
}

/// Every PE count either frontier uses, ascending: where the step functions change.
fn breakpoints(lines: &[&FrontierLine]) -> Vec<u64> {
    let mut pes: Vec<u64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .collect();
    pes.sort_unstable();
    pes.dedup();
    pes
}

fn verdict(a: Option<f64>, b: Option<f64>) -> Option<(Verdict, f64)> {
    Some(match (a, b) {
        (None, None) => return None,
        (Some(_), None) => (Verdict::OnlyFirst, 1.0),
        (None, Some(_)) => (Verdict::OnlySecond, 1.0),
        (Some(a), Some(b)) if (a - b).abs() <= TIE_REL * a.abs().max(b.abs()) => {
            (Verdict::Equal, 1.0)
        }
        (Some(a), Some(b)) if a < b => (Verdict::FirstFaster, b / a),
        (Some(a), Some(b)) => (Verdict::SecondFaster, a / b),
    })
}

/// The runs of equal verdicts over the budgets, in budget order.
fn bands(a: &FrontierLine, b: &FrontierLine) -> Vec<Band> {
    let mut out: Vec<Band> = Vec::new();
    for p in breakpoints(&[a, b]) {
        let Some((v, ratio)) = verdict(a.best_within(p), b.best_within(p)) else {
            continue;
        };
        match out.last_mut() {
            Some(last) if last.verdict == v => {
                if ratio > last.max_ratio {
                    last.max_ratio = ratio;
                    last.at_pes = p;
                }
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.below_pes = Some(p);
                }
                out.push(Band {
                    verdict: v,
                    from_pes: p,
                    below_pes: None,
                    max_ratio: ratio,
                    at_pes: p,
                });
            }
        }
    }
    out
}

/// "for budgets below 16 PEs", "of 16–511 PEs", "of 512 PEs or more", "at every budget".
fn range_text(band: &Band, first: bool) -> String {
    match (first, band.below_pes) {
        (true, None) => "at every PE budget".to_string(),
        (true, Some(below)) => format!("below {below} PEs"),
        (false, None) => format!("at {} PEs or more", band.from_pes),
        (false, Some(below)) if below == band.from_pes + 1 => format!("at {} PEs", band.from_pes),
        (false, Some(below)) => format!("at {}–{} PEs", band.from_pes, below - 1),
    }
}

fn ratio_text(band: &Band) -> String {
    format!(" (up to {:.2}× at {} PEs)", band.max_ratio, band.at_pes)
}

fn pair_sentence(a: &str, b: &str, bands: &[Band]) -> String {
    if bands.is_empty() {
        return format!("Neither {a} nor {b} has a configuration on its frontier.");
    }
    let phrases: Vec<String> = bands
        .iter()
        .enumerate()
        .map(|(i, band)| {
            let range = range_text(band, i == 0);
            match band.verdict {
                Verdict::FirstFaster => format!("{a} is faster {range}{}", ratio_text(band)),
                Verdict::SecondFaster => format!("{b} is faster {range}{}", ratio_text(band)),
                Verdict::Equal => format!("they are equal {range}"),
                Verdict::OnlyFirst => format!("only {a} fits {range}"),
                Verdict::OnlySecond => format!("only {b} fits {range}"),
            }
        })
        .collect();
    let has = |vs: &[Verdict]| bands.iter().any(|band| vs.contains(&band.verdict));
    let first_wins = has(&[Verdict::FirstFaster, Verdict::OnlyFirst]);
    let second_wins = has(&[Verdict::SecondFaster, Verdict::OnlySecond]);
    let lead = match (first_wins, second_wins) {
        (true, false) => format!("{a} dominates {b} (never slower at any PE budget): "),
        (false, true) => format!("{b} dominates {a} (never slower at any PE budget): "),
        (false, false) => format!("{a} and {b} have the same best latency at every PE budget"),
        (true, true) => format!("{a} vs {b}: "),
    };
    if !first_wins && !second_wins {
        return format!("{lead}.");
    }
    let mut text = lead;
    text.push_str(&phrases.join("; "));
    text.push('.');
    text
}

/// "Fastest at each PE budget: A below 16 PEs, B at 16–511 PEs, C at 512 PEs or more."
fn fastest_sentence(lines: &[FrontierLine]) -> Option<String> {
    let all: Vec<&FrontierLine> = lines.iter().collect();
    // (budget, names of the fastest), merged over equal winners.
    let mut runs: Vec<(u64, Option<u64>, Vec<usize>)> = Vec::new();
    for p in breakpoints(&all) {
        let best: Vec<Option<f64>> = lines.iter().map(|l| l.best_within(p)).collect();
        let Some(min) = best.iter().flatten().copied().min_by(f64::total_cmp) else {
            continue;
        };
        let winners: Vec<usize> = best
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_some_and(|l| (l - min).abs() <= TIE_REL * min.abs()))
            .map(|(i, _)| i)
            .collect();
        match runs.last_mut() {
            Some(last) if last.2 == winners => {}
            _ => {
                if let Some(last) = runs.last_mut() {
                    last.1 = Some(p);
                }
                runs.push((p, None, winners));
            }
        }
    }
    if runs.is_empty() {
        return None;
    }
    let parts: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(i, (from, below, who))| {
            let names: Vec<&str> = who.iter().map(|&w| lines[w].name.as_str()).collect();
            let band = Band {
                verdict: Verdict::Equal,
                from_pes: *from,
                below_pes: *below,
                max_ratio: 1.0,
                at_pes: *from,
            };
            format!("{} {}", names.join(" = "), range_text(&band, i == 0))
        })
        .collect();
    Some(format!("Fastest at each PE budget: {}.", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, points: &[(u64, f64)]) -> FrontierLine {
        FrontierLine {
            name: name.to_string(),
            points: points.to_vec(),
        }
    }

    #[test]
    fn best_within_a_budget_is_the_step_function() {
        let l = line("a", &[(8, 50.0), (1, 400.0), (64, 10.0)]);
        assert_eq!(l.best_within(0), None);
        assert_eq!(l.best_within(1), Some(400.0));
        assert_eq!(l.best_within(7), Some(400.0));
        assert_eq!(l.best_within(8), Some(50.0));
        assert_eq!(l.best_within(4096), Some(10.0));
    }

    #[test]
    fn a_crossing_is_two_bands_in_words() {
        // b200 is slower on few PEs and faster from 16 on.
        let h200 = line("h200-hgx", &[(1, 100.0), (8, 20.0), (64, 8.0)]);
        let b200 = line("b200-hgx", &[(2, 150.0), (16, 10.0), (64, 4.0)]);
        let c = compare_frontiers(&[b200, h200]);
        let p = &c.pairs[0];
        let verdicts: Vec<(Verdict, u64, Option<u64>)> = p
            .bands
            .iter()
            .map(|b| (b.verdict, b.from_pes, b.below_pes))
            .collect();
        assert_eq!(
            verdicts,
            vec![
                (Verdict::OnlySecond, 1, Some(2)),
                (Verdict::SecondFaster, 2, Some(16)),
                (Verdict::FirstFaster, 16, None),
            ]
        );
        // At 16 PEs: h200 20 vs b200 10 → 2×, at 64: 8 vs 4 → 2× (the first kept).
        assert_eq!(p.bands[2].max_ratio, 2.0);
        assert_eq!(p.bands[2].at_pes, 16);
        // At 2 PEs: 150 vs 100; at 8: 150 vs 20 → 7.5×.
        assert_eq!(p.bands[1].max_ratio, 7.5);
        assert_eq!(p.bands[1].at_pes, 8);
        assert_eq!(
            p.sentence,
            "b200-hgx vs h200-hgx: only h200-hgx fits below 2 PEs; h200-hgx is faster at \
             2–15 PEs (up to 7.50× at 8 PEs); b200-hgx is faster at 16 PEs or more (up to \
             2.00× at 16 PEs)."
        );
        assert_eq!(c.summary, vec![p.sentence.clone()]);
        assert_eq!(
            c.rows[0].best_latency_ms_within,
            vec![Some(1.5e-4), Some(4e-6), Some(4e-6), Some(4e-6)]
        );
        assert_eq!(c.rows[1].min_pes, Some(1));
        assert_eq!(c.rows[1].best_latency_ms, Some(8e-6));
    }

    #[test]
    fn dominance_and_equality_are_named() {
        let fast = line("fast", &[(1, 10.0), (4, 5.0)]);
        let slow = line("slow", &[(1, 30.0), (8, 6.0)]);
        let c = compare_frontiers(&[slow.clone(), fast.clone()]);
        assert_eq!(
            c.pairs[0].sentence,
            "fast dominates slow (never slower at any PE budget): fast is faster at every \
             PE budget (up to 6.00× at 4 PEs)."
        );
        let same = compare_frontiers(&[fast.clone(), line("again", &fast.points)]);
        assert_eq!(
            same.pairs[0].sentence,
            "fast and again have the same best latency at every PE budget."
        );
        let none = compare_frontiers(&[line("x", &[]), line("y", &[])]);
        assert_eq!(
            none.pairs[0].sentence,
            "Neither x nor y has a configuration on its frontier."
        );
        assert_eq!(none.rows[0].best_latency_ms, None);
    }

    #[test]
    fn three_scenarios_name_the_fastest_per_band() {
        let a = line("a", &[(1, 10.0), (64, 9.0)]);
        let b = line("b", &[(2, 12.0), (16, 2.0)]);
        let c = line("c", &[(16, 2.0), (512, 0.5)]);
        let cmp = compare_frontiers(&[a, b, c]);
        assert_eq!(cmp.pairs.len(), 3);
        assert_eq!(
            cmp.summary[0],
            "Fastest at each PE budget: a below 16 PEs, b = c at 16–511 PEs, c at 512 PEs or more."
        );
        assert_eq!(cmp.summary.len(), 4);
        assert_eq!(cmp.budgets_pes, PE_BUDGETS.to_vec());
    }

    #[test]
    fn band_ranges_in_words() {
        let band = |from_pes: u64, below_pes: Option<u64>| Band {
            verdict: Verdict::Equal,
            from_pes,
            below_pes,
            max_ratio: 1.0,
            at_pes: from_pes,
        };
        assert_eq!(range_text(&band(1, None), true), "at every PE budget");
        assert_eq!(range_text(&band(1, Some(16)), true), "below 16 PEs");
        assert_eq!(range_text(&band(16, None), false), "at 16 PEs or more");
        assert_eq!(range_text(&band(16, Some(17)), false), "at 16 PEs");
        assert_eq!(range_text(&band(16, Some(18)), false), "at 16–17 PEs");
    }

    #[test]
    fn latencies_within_a_relative_billionth_are_equal() {
        let v = |a: f64, b: f64| verdict(Some(a), Some(b)).unwrap();
        assert_eq!(v(1000.0, 1000.0 + 5e-7), (Verdict::Equal, 1.0));
        assert_eq!(v(1000.0, 1000.0 + 2e-6).0, Verdict::FirstFaster);
        assert_eq!(v(2e-3, 1e-3), (Verdict::SecondFaster, 2.0));
        assert_eq!(v(1e-3, 4e-3), (Verdict::FirstFaster, 4.0));
        assert_eq!(verdict(None, Some(1.0)), Some((Verdict::OnlySecond, 1.0)));
        assert_eq!(verdict(Some(1.0), None), Some((Verdict::OnlyFirst, 1.0)));
        assert_eq!(verdict(None, None), None);
    }

    #[test]
    fn the_fastest_within_a_relative_billionth_share_the_band() {
        let a = line("a", &[(1, 1000.0)]);
        let b = line("b", &[(1, 1000.0 + 5e-7)]);
        let c = line("c", &[(1, 1000.0 + 5e-6)]);
        assert_eq!(
            fastest_sentence(&[a, b, c]).unwrap(),
            "Fastest at each PE budget: a = b at every PE budget."
        );
    }
}

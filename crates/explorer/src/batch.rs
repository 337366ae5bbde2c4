//! Batch sweep (beyond the seed): every configuration at each batch size, with the frontier
//! and the serving metrics per batch — system throughput (tokens/s across the deployment,
//! `dp·B·(decode ? 1 : S)/latency_s`) and throughput per PE.

use serde::{Deserialize, Serialize};

use super::error::ExplorerError;
use super::header::ReportHeader;
use super::machine::MachineParams;
use super::model::ModelConfig;
use super::scales::TimeScales;
use super::score::{ConfigScore, Score};
use super::sweep::{sweep, validate_batches, Sla, SweepRequest};

/// A configuration with its serving metrics (the `ConfigScore` fields, flattened, plus two).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServingScore {
    /// The seed's record.
    #[serde(flatten)]
    pub config: ConfigScore,
    /// Tokens/s across the deployment.
    pub system_throughput_tok_s: f64,
    /// `system_throughput_tok_s / pes_used`.
    pub throughput_per_pe_tok_s: f64,
}

impl ServingScore {
    fn new(s: &Score, model: &ModelConfig, machine: &MachineParams) -> ServingScore {
        ServingScore {
            config: s.to_config_score(model, machine),
            system_throughput_tok_s: s.system_throughput_tok_s(),
            throughput_per_pe_tok_s: s.throughput_per_pe_tok_s(),
        }
    }
}

/// The result at one batch size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchResult {
    /// Batch B.
    pub batch: u32,
    /// Configurations enumerated.
    pub total_enumerated: usize,
    /// Feasible configurations (memory fills up as B grows).
    pub total_feasible: usize,
    /// Feasible configurations within the SLA, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_within_sla: Option<usize>,
    /// The (latency, PEs, efficiency) frontier, by latency, with serving metrics.
    pub pareto: Vec<ServingScore>,
    /// The candidate with the highest system throughput (first in latency order on ties).
    pub best_system_throughput: Option<ServingScore>,
    /// The candidate with the highest throughput per PE (first in latency order on ties).
    pub best_throughput_per_pe: Option<ServingScore>,
}

/// The `explore --batch-sweep` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSweepReport {
    /// The settings (no batch: each result has its own).
    #[serde(flatten)]
    pub header: ReportHeader,
    /// The SLA, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sla: Option<Sla>,
    /// The calibration's time scales the scores were made with (only when calibrated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_scales: Option<TimeScales>,
    /// One result per batch size, in the order asked.
    pub batches: Vec<BatchResult>,
}

/// The candidate with the largest finite metric; ties go to the lower latency, then to the
/// earlier configuration in the seed's order (the first in the sorted `all` list).
fn best_by(sw: &super::sweep::Sweep, metric: impl Fn(&Score) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64, f64)> = None;
    for (i, s) in sw.scores.iter().enumerate() {
        if !sw.candidate(i) {
            continue;
        }
        let v = metric(s);
        if !v.is_finite() {
            continue;
        }
        let better = match best {
            None => true,
            Some((_, bv, blat)) => {
                v > bv || (v == bv && s.total_latency_ns.total_cmp(&blat).is_lt())
            }
        };
        if better {
            best = Some((i, v, s.total_latency_ns));
        }
    }
    best.map(|(i, _, _)| i)
}

/// Sweep every configuration at each batch size (`req.batch` is ignored).
pub fn batch_sweep(
    model: &ModelConfig,
    machine: &MachineParams,
    req: &SweepRequest,
    batches: &[u32],
) -> Result<BatchSweepReport, ExplorerError> {
    validate_batches(batches)?;
    let mut out = Vec::with_capacity(batches.len());
    for &b in batches {
        let r = SweepRequest { batch: b, ..*req };
        let sw = sweep(model, machine, &r)?;
        let pick = |i: Option<usize>| {
            i.and_then(|i| sw.scores.get(i))
                .map(|s| ServingScore::new(s, model, machine))
        };
        out.push(BatchResult {
            batch: b,
            total_enumerated: sw.total_enumerated,
            total_feasible: sw.total_feasible,
            total_within_sla: sw.total_within_sla,
            pareto: sw
                .frontier_scores()
                .map(|s| ServingScore::new(s, model, machine))
                .collect(),
            best_system_throughput: pick(best_by(&sw, Score::system_throughput_tok_s)),
            best_throughput_per_pe: pick(best_by(&sw, Score::throughput_per_pe_tok_s)),
        });
    }
    Ok(BatchSweepReport {
        // Each result has its own batch.
        header: ReportHeader {
            batch: None,
            ..ReportHeader::new(model, machine, &req.base_topology(), req.options)
        },
        sla: req.sla.filter(|s| !s.is_empty()),
        time_scales: (!req.options.scales.is_identity()).then_some(req.options.scales),
        batches: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, ScoreOptions, Scorer, TopologyConfig};

    /// Ties on the metric go to the lower latency, then to the earlier configuration.
    #[test]
    fn ties_go_to_the_lower_latency_then_the_earlier() {
        let model = ModelConfig::preset("llama3.1-8b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let scorer = Scorer::new(&model, &machine, Mode::Decode, ScoreOptions::default()).unwrap();
        let one = scorer.score(&TopologyConfig {
            cp: 1,
            tp: 1,
            pp: 1,
            ..TopologyConfig::default()
        });
        assert!(one.feasible());
        let with_latency = |ns: f64| Score {
            total_latency_ns: ns,
            ..one
        };
        let sw = |latencies: &[f64]| super::super::sweep::Sweep {
            total_enumerated: latencies.len(),
            total_feasible: latencies.len(),
            total_within_sla: None,
            scores: latencies.iter().map(|&ns| with_latency(ns)).collect(),
            sla: Vec::new(),
            frontier: Vec::new(),
        };
        let same = |_: &Score| 1.0;
        assert_eq!(best_by(&sw(&[5.0, 3.0, 3.0, 4.0]), same), Some(1));
        assert_eq!(best_by(&sw(&[2.0, 2.0]), same), Some(0));
        // A larger metric wins over a lower latency; non-finite metrics never win.
        let by_latency = |s: &Score| s.total_latency_ns;
        assert_eq!(best_by(&sw(&[5.0, 3.0, 7.0]), by_latency), Some(2));
        assert_eq!(best_by(&sw(&[1.0]), |_: &Score| f64::NAN), None);
    }
}

//! The seed's one-knob parallelism sensitivity: vary CP, TP, PP, DP or EP over fixed sweep
//! tuples with every other knob at the baseline; report latency and fit per value.

use serde::{Deserialize, Serialize};

use super::error::ExplorerError;
use super::header::ReportHeader;
use super::json::{f64_nan_as_null, vec_f64_nan_as_null};
use super::machine::MachineParams;
use super::model::ModelConfig;
use super::score::{ConfigScore, ScoreOptions, Scorer};
use super::topology::TopologyConfig;

/// A parallelism knob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Knob {
    /// Context parallelism.
    Cp,
    /// Tensor parallelism.
    Tp,
    /// Pipeline parallelism.
    Pp,
    /// Data parallelism.
    Dp,
    /// Expert parallelism.
    Ep,
}

impl Knob {
    /// The knob's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Knob::Cp => "cp",
            Knob::Tp => "tp",
            Knob::Pp => "pp",
            Knob::Dp => "dp",
            Knob::Ep => "ep",
        }
    }

    fn get(self, t: &TopologyConfig) -> u32 {
        match self {
            Knob::Cp => t.cp,
            Knob::Tp => t.tp,
            Knob::Pp => t.pp,
            Knob::Dp => t.dp,
            Knob::Ep => t.ep,
        }
    }

    fn set(self, t: &TopologyConfig, v: u32) -> TopologyConfig {
        let mut out = *t;
        match self {
            Knob::Cp => out.cp = v,
            Knob::Tp => out.tp = v,
            Knob::Pp => out.pp = v,
            Knob::Dp => out.dp = v,
            Knob::Ep => out.ep = v,
        }
        out
    }
}

/// The seed's sweep tuples, in its knob order.
pub const SENSITIVITY_SWEEP: [(Knob, &[u32]); 5] = [
    (
        Knob::Cp,
        &[
            1, 2, 4, 6, 8, 10, 12, 14, 16, 24, 32, 48, 64, 96, 128, 192, 256,
        ],
    ),
    (Knob::Tp, &[1, 2, 4, 6, 8, 10, 12, 14, 16, 24, 32, 48, 64]),
    (Knob::Pp, &[1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32]),
    (Knob::Dp, &[1, 2, 4, 6, 8, 12, 16]),
    (Knob::Ep, &[1, 2, 4, 6, 8, 12, 16, 32]),
];

/// One knob's sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensitivityRow {
    /// The knob varied.
    pub knob: Knob,
    /// Values tried.
    pub values: Vec<u32>,
    /// Latency per value, ns; NaN (JSON `null`) where the value is out of bounds
    /// (pp > L or tp > 4·h_q). Infeasible values still get their latency.
    #[serde(with = "vec_f64_nan_as_null")]
    pub latencies_ns: Vec<f64>,
    /// Per value: fits in memory and places validly.
    pub fits: Vec<bool>,
    /// The baseline's value of this knob.
    pub baseline_value: u32,
    /// The baseline's latency, ns.
    #[serde(with = "f64_nan_as_null")]
    pub baseline_latency_ns: f64,
}

/// The `sensitivity --format json` document:
///
/// ```json
/// {"model": "llama3.1-70b", "machine": "h200-hgx", "s_kv": 32768, "mode": "decode",
///  "batch": 1, "ep": 1, "scope": "all", "efficiency": "seed",
///  "baseline": ConfigScore,
///  "rows": [{"knob": "cp", "values": [1, 2, ...], "latencies_ns": [1.2e6, null, ...],
///            "fits": [true, false, ...], "baseline_value": 2, "baseline_latency_ns": 5.8e6},
///           ... one row each for cp, tp, pp, dp, ep]}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensitivityReport {
    /// The settings (the baseline's s_kv, mode, batch and ep).
    #[serde(flatten)]
    pub header: ReportHeader,
    /// The baseline's score.
    pub baseline: ConfigScore,
    /// One row per knob: cp, tp, pp, dp, ep.
    pub rows: Vec<SensitivityRow>,
}

/// Sweep each knob around `baseline` (validated; its `mode` and `s_kv` are used).
pub fn sensitivity(
    model: &ModelConfig,
    machine: &MachineParams,
    baseline: &TopologyConfig,
    options: ScoreOptions,
) -> Result<SensitivityReport, ExplorerError> {
    baseline.validate()?;
    let scorer = Scorer::new(model, machine, baseline.mode, options)?;
    let base_score = scorer.score(baseline);
    let tp_cap = model.h_q.saturating_mul(4);
    let rows = SENSITIVITY_SWEEP
        .iter()
        .map(|&(knob, values)| {
            let (latencies_ns, fits): (Vec<f64>, Vec<bool>) = values
                .iter()
                .map(|&v| {
                    let out_of_bounds = (knob == Knob::Pp && u64::from(v) > model.layers)
                        || (knob == Knob::Tp && u64::from(v) > tp_cap);
                    if out_of_bounds {
                        return (f64::NAN, false);
                    }
                    let s = scorer.score(&knob.set(baseline, v));
                    (s.total_latency_ns, s.feasible())
                })
                .unzip();
            SensitivityRow {
                knob,
                values: values.to_vec(),
                latencies_ns,
                fits,
                baseline_value: knob.get(baseline),
                baseline_latency_ns: base_score.total_latency_ns,
            }
        })
        .collect();
    Ok(SensitivityReport {
        header: ReportHeader::new(model, machine, baseline, options),
        baseline: base_score.to_config_score(model, machine),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_knobs_name_is_the_one_its_json_carries() {
        for (knob, name) in [
            (Knob::Cp, "cp"),
            (Knob::Tp, "tp"),
            (Knob::Pp, "pp"),
            (Knob::Dp, "dp"),
            (Knob::Ep, "ep"),
        ] {
            assert_eq!(knob.as_str(), name);
            assert_eq!(
                serde_json::to_string(&knob).ok(),
                Some(format!("\"{name}\""))
            );
        }
    }
}

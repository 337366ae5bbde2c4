//! The seed's enumeration (§11), the full sweep with its latency ordering and frontier, and
//! SLA filters (TTFT / TPOT) applied before the Pareto step.

use serde::{Deserialize, Serialize};

use super::calibrate::Calibration;
use super::error::ExplorerError;
use super::header::ReportHeader;
use super::machine::MachineParams;
use super::model::ModelConfig;
use super::pareto::{pareto_front, total_order_key, ParetoPoint};
use super::score::{ConfigScore, Score, ScoreOptions, Scorer};
use super::topology::{
    FfnShardScope, KvShardMode, Mode, PlacementKind, RingVariant, TopologyConfig, MAX_BATCH,
    MAX_S_KV,
};

/// CP options of the seed.
pub const CP_OPTIONS: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 96];
/// TP options of the seed.
pub const TP_OPTIONS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// PP options of the seed.
pub const PP_OPTIONS: [u32; 5] = [1, 2, 4, 8, 16];
/// DP options of the seed.
pub const DP_OPTIONS: [u32; 3] = [1, 2, 4];
/// KV modes in the seed's order.
pub const KV_SHARD_MODES: [KvShardMode; 2] = [KvShardMode::Split, KvShardMode::Replicate];
/// FFN scopes in the seed's order.
pub const FFN_SHARD_SCOPES: [FfnShardScope; 3] = [
    FfnShardScope::Tp,
    FfnShardScope::TpCp,
    FfnShardScope::TpCpDp,
];
/// TP placements in the seed's order.
pub const TP_PLACEMENTS: [PlacementKind; 2] = [PlacementKind::Pe, PlacementKind::Cube];
/// CP placements in the seed's order (cube first).
pub const CP_PLACEMENTS: [PlacementKind; 2] = [PlacementKind::Cube, PlacementKind::Pe];
/// Ring variants in the seed's order.
pub const CP_RING_VARIANTS: [RingVariant; 2] = [RingVariant::Kv, RingVariant::Qoml];

/// Call `f` on every domain-valid configuration, in the seed's nested-loop order
/// (cp → tp → pp → dp → kv → scope → tp placement → cp placement → ring). `base` supplies
/// `ep`, `batch`, `s_kv` and `mode`. Pruning: tp ≤ 4·h_q, pp ≤ L, no DP scope when dp = 1,
/// no qoml when cp = 1.
#[inline]
pub fn for_each_config(
    model: &ModelConfig,
    base: &TopologyConfig,
    mut f: impl FnMut(&TopologyConfig),
) {
    let tp_cap = model.h_q.saturating_mul(4);
    for cp in CP_OPTIONS {
        for tp in TP_OPTIONS {
            if u64::from(tp) > tp_cap {
                continue;
            }
            for pp in PP_OPTIONS {
                if u64::from(pp) > model.layers {
                    continue;
                }
                for dp in DP_OPTIONS {
                    for kv in KV_SHARD_MODES {
                        for scope in FFN_SHARD_SCOPES {
                            if scope == FfnShardScope::TpCpDp && dp == 1 {
                                continue;
                            }
                            for tpp in TP_PLACEMENTS {
                                for cpp in CP_PLACEMENTS {
                                    for ring in CP_RING_VARIANTS {
                                        if cp == 1 && ring == RingVariant::Qoml {
                                            continue;
                                        }
                                        f(&TopologyConfig {
                                            cp,
                                            tp,
                                            pp,
                                            dp,
                                            kv_shard_mode: kv,
                                            ffn_shard_scope: scope,
                                            tp_placement: tpp,
                                            cp_placement: cpp,
                                            cp_ring_variant: ring,
                                            ..*base
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every domain-valid configuration in the seed's order.
pub fn enumerate_configs(model: &ModelConfig, base: &TopologyConfig) -> Vec<TopologyConfig> {
    let mut out = Vec::with_capacity(28_800);
    for_each_config(model, base, |t| out.push(*t));
    out
}

/// Serving-level objectives that filter configurations before the Pareto step.
///
/// TPOT is the decode latency at `s_kv` (the context length); TTFT is the prefill latency of
/// `prompt_len` tokens (default: `s_kv`), both for the same configuration and batch. A
/// sweep's own mode supplies one of them directly; the other is scored on the side.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Sla {
    /// Upper bound on the time per output token, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_max_ms: Option<f64>,
    /// Upper bound on the time to first token, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_max_ms: Option<f64>,
    /// Prompt length for TTFT (default `s_kv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_len: Option<u64>,
}

impl Sla {
    /// True when no bound is set.
    pub fn is_empty(&self) -> bool {
        self.tpot_max_ms.is_none() && self.ttft_max_ms.is_none()
    }

    fn validate(&self) -> Result<(), ExplorerError> {
        for (field, v) in [
            ("sla_tpot_ms", self.tpot_max_ms),
            ("sla_ttft_ms", self.ttft_max_ms),
        ] {
            if let Some(v) = v {
                if !(v.is_finite() && v > 0.0) {
                    return Err(ExplorerError::invalid(
                        field,
                        format!("{field} ({v}) must be a positive number of milliseconds"),
                    ));
                }
            }
        }
        if let Some(p) = self.prompt_len {
            if p == 0 || p > MAX_S_KV {
                return Err(ExplorerError::invalid(
                    "prompt_len",
                    format!("prompt_len ({p}) must be between 1 and {MAX_S_KV}"),
                ));
            }
        }
        Ok(())
    }
}

/// What to sweep: the run request (the knobs the sweep does not enumerate).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepRequest {
    /// Sequence length S.
    pub s_kv: u64,
    /// Decode or prefill.
    pub mode: Mode,
    /// Batch B.
    pub batch: u32,
    /// EP degree.
    pub ep: u32,
    /// Scope, efficiency mode, overheads.
    pub options: ScoreOptions,
    /// Optional serving objectives.
    #[serde(default)]
    pub sla: Option<Sla>,
}

impl Default for SweepRequest {
    fn default() -> Self {
        SweepRequest {
            s_kv: 32768,
            mode: Mode::Decode,
            batch: 1,
            ep: 1,
            options: ScoreOptions::default(),
            sla: None,
        }
    }
}

impl SweepRequest {
    /// The defaults' knobs with this request's ep, batch, s_kv and mode.
    pub fn base_topology(&self) -> TopologyConfig {
        TopologyConfig {
            ep: self.ep,
            batch: self.batch,
            s_kv: self.s_kv,
            mode: self.mode,
            ..TopologyConfig::default()
        }
    }

    /// Check the request's values.
    pub fn validate(&self) -> Result<(), ExplorerError> {
        self.base_topology().validate()?;
        if let Some(sla) = &self.sla {
            sla.validate()?;
        }
        Ok(())
    }
}

/// TTFT / TPOT of one configuration, when an SLA asks for them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SlaOutcome {
    /// Decode latency at `s_kv`, ns (when a TPOT bound is set).
    pub tpot_ns: Option<f64>,
    /// Prefill latency of the prompt, ns (when a TTFT bound is set).
    pub ttft_ns: Option<f64>,
    /// Every bound holds.
    pub ok: bool,
}

/// The result of one sweep.
///
/// `scores` holds every configuration in the seed's enumeration order; `frontier` lists the
/// frontier's indices by latency (ascending, stable over the enumeration order, as the
/// seed's `pareto_scores`). [`Sweep::latency_order`] gives the seed's sorted `all_scores`
/// order on demand (it is only needed to list every configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// Configurations enumerated (after domain pruning).
    pub total_enumerated: usize,
    /// Configurations that fit in memory and place validly.
    pub total_feasible: usize,
    /// Feasible configurations that also meet the SLA (when one is set).
    pub total_within_sla: Option<usize>,
    /// Every score, in enumeration order.
    pub scores: Vec<Score>,
    /// Parallel to `scores` when an SLA is set; empty otherwise.
    pub sla: Vec<SlaOutcome>,
    /// Indices into `scores` of the frontier, by latency ascending (stable).
    pub frontier: Vec<u32>,
}

impl Sweep {
    /// Indices into `scores` by latency ascending, stable over the enumeration order
    /// (`f64::total_cmp`): the order of the seed's `all_scores`.
    pub fn latency_order(&self) -> Vec<u32> {
        latency_order(&self.scores)
    }

    /// Every score by latency ascending (the seed's `all_scores`).
    pub fn sorted_scores(&self) -> Vec<&Score> {
        self.latency_order()
            .into_iter()
            .filter_map(|i| self.scores.get(i as usize))
            .collect()
    }

    /// The frontier scores, by latency ascending (the seed's `pareto_scores`).
    pub fn frontier_scores(&self) -> impl Iterator<Item = &Score> + '_ {
        self.frontier
            .iter()
            .filter_map(|&i| self.scores.get(i as usize))
    }

    /// Whether score `i` is a frontier candidate (feasible and within the SLA).
    pub fn candidate(&self, i: usize) -> bool {
        let feasible = self.scores.get(i).is_some_and(Score::feasible);
        feasible && self.sla.get(i).is_none_or(|o| o.ok)
    }
}

/// Indices sorted by latency with `f64::total_cmp`, stable (equal latencies keep the
/// enumeration order).
fn latency_order(scores: &[Score]) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = scores
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                total_order_key(s.total_latency_ns),
                u32::try_from(i).unwrap_or(u32::MAX),
            )
        })
        .collect();
    keyed.sort_by_key(|k| k.0);
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Run one sweep: score every enumerated configuration (infeasible ones too), sort by
/// latency (stable, `f64::total_cmp`), and extract the frontier of the feasible configs
/// that meet the SLA.
pub fn sweep(
    model: &ModelConfig,
    machine: &MachineParams,
    req: &SweepRequest,
) -> Result<Sweep, ExplorerError> {
    req.validate()?;
    let scorer = Scorer::new(model, machine, req.mode, req.options)?;
    let base = req.base_topology();

    let sla_req = req.sla.filter(|s| !s.is_empty());
    let side = match sla_req {
        Some(sla) => Some(SlaScorers::new(model, machine, req, sla)?),
        None => None,
    };

    // One pass: score, check the SLA, and collect the frontier candidates.
    let mut scores: Vec<Score> = Vec::with_capacity(28_800);
    let mut sla: Vec<SlaOutcome> = Vec::new();
    let mut total_feasible = 0;
    let mut cand_idx: Vec<u32> = Vec::with_capacity(28_800);
    let mut points: Vec<ParetoPoint> = Vec::with_capacity(28_800);
    for_each_config(model, &base, |t| {
        let s = scorer.score(t);
        let ok = match &side {
            Some(side) => {
                let o = side.outcome(req, &s);
                sla.push(o);
                o.ok
            }
            None => true,
        };
        if s.feasible() {
            total_feasible += 1;
            if ok {
                cand_idx.push(u32::try_from(scores.len()).unwrap_or(u32::MAX));
                points.push(ParetoPoint {
                    latency: s.total_latency_ns,
                    pes: s.pes_used,
                    efficiency: s.efficiency_score,
                });
            }
        }
        scores.push(s);
    });

    // Frontier members by (latency, enumeration index): their order in the sorted `all`.
    let mut frontier: Vec<(u64, u32)> = pareto_front(&points)
        .into_iter()
        .filter_map(|k| {
            let i = *cand_idx.get(k)?;
            let s = scores.get(i as usize)?;
            Some((total_order_key(s.total_latency_ns), i))
        })
        .collect();
    frontier.sort_unstable();
    Ok(Sweep {
        total_enumerated: scores.len(),
        total_feasible,
        total_within_sla: side.is_some().then_some(cand_idx.len()),
        frontier: frontier.into_iter().map(|(_, i)| i).collect(),
        scores,
        sla,
    })
}

/// The side scorers an SLA needs (decode for TPOT, prefill for TTFT).
struct SlaScorers<'a> {
    sla: Sla,
    prompt_len: u64,
    decode: Scorer<'a>,
    prefill: Scorer<'a>,
}

impl<'a> SlaScorers<'a> {
    fn new(
        model: &'a ModelConfig,
        machine: &'a MachineParams,
        req: &SweepRequest,
        sla: Sla,
    ) -> Result<SlaScorers<'a>, ExplorerError> {
        Ok(SlaScorers {
            sla,
            prompt_len: sla.prompt_len.unwrap_or(req.s_kv),
            decode: Scorer::new(model, machine, Mode::Decode, req.options)?,
            prefill: Scorer::new(model, machine, Mode::Prefill, req.options)?,
        })
    }

    fn outcome(&self, req: &SweepRequest, s: &Score) -> SlaOutcome {
        let tpot_ns = self.sla.tpot_max_ms.map(|_| {
            if req.mode == Mode::Decode {
                s.total_latency_ns
            } else {
                self.decode
                    .score(&TopologyConfig {
                        s_kv: req.s_kv,
                        ..s.topo
                    })
                    .total_latency_ns
            }
        });
        let ttft_ns = self.sla.ttft_max_ms.map(|_| {
            if req.mode == Mode::Prefill && self.prompt_len == req.s_kv {
                s.total_latency_ns
            } else {
                self.prefill
                    .score(&TopologyConfig {
                        s_kv: self.prompt_len,
                        ..s.topo
                    })
                    .total_latency_ns
            }
        });
        let within = |v: Option<f64>, max_ms: Option<f64>| match (v, max_ms) {
            (Some(v), Some(m)) => v <= m * 1e6,
            _ => true,
        };
        SlaOutcome {
            tpot_ns,
            ttft_ns,
            ok: within(tpot_ns, self.sla.tpot_max_ms) && within(ttft_ns, self.sla.ttft_max_ms),
        }
    }
}

/// The `explore --format json` document (docs/contracts.md §1). `sla` and `total_within_sla`
/// appear only when an SLA is set; `all` only when asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreReport {
    /// The settings (model, machine, s_kv, mode, batch, ep, scope, efficiency).
    #[serde(flatten)]
    pub header: ReportHeader,
    /// Configurations enumerated.
    pub total_enumerated: usize,
    /// Feasible configurations.
    pub total_feasible: usize,
    /// The SLA, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sla: Option<Sla>,
    /// Feasible configurations within the SLA, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_within_sla: Option<usize>,
    /// The frontier, by latency.
    pub pareto: Vec<ConfigScore>,
    /// Every configuration, by latency (only on request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<Vec<ConfigScore>>,
    /// The calibration the scores were made with (beyond the seed; only when calibrated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// Run a sweep and build the report; `include_all` adds every configuration.
pub fn explore(
    model: &ModelConfig,
    machine: &MachineParams,
    req: &SweepRequest,
    include_all: bool,
) -> Result<(ExploreReport, Sweep), ExplorerError> {
    let sw = sweep(model, machine, req)?;
    let pareto = sw
        .frontier_scores()
        .map(|s| s.to_config_score(model, machine))
        .collect();
    let all = include_all.then(|| {
        sw.sorted_scores()
            .into_iter()
            .map(|s| s.to_config_score(model, machine))
            .collect()
    });
    let report = ExploreReport {
        header: ReportHeader::new(model, machine, &req.base_topology(), req.options),
        total_enumerated: sw.total_enumerated,
        total_feasible: sw.total_feasible,
        sla: req.sla.filter(|s| !s.is_empty()),
        total_within_sla: sw.total_within_sla,
        pareto,
        all,
        calibration: None,
    };
    Ok((report, sw))
}

/// Checks a list of batch sizes (non-empty, each in range, no repeats, at most 64).
pub fn validate_batches(batches: &[u32]) -> Result<(), ExplorerError> {
    if batches.is_empty() || batches.len() > 64 {
        return Err(ExplorerError::invalid(
            "batch_sweep",
            format!(
                "batch_sweep must list 1 to 64 batch sizes (got {})",
                batches.len()
            ),
        ));
    }
    for (i, &b) in batches.iter().enumerate() {
        if b == 0 || b > MAX_BATCH {
            return Err(ExplorerError::invalid(
                "batch_sweep",
                format!("batch_sweep value ({b}) must be between 1 and {MAX_BATCH}"),
            ));
        }
        if batches[..i].contains(&b) {
            return Err(ExplorerError::invalid(
                "batch_sweep",
                format!("batch_sweep value ({b}) is listed twice"),
            ));
        }
    }
    Ok(())
}

//! Scoring one configuration (§7): latency, throughput, efficiency, memory, feasibility.
//!
//! [`Score`] is the compact, allocation-free result the sweep produces for every config;
//! [`ConfigScore`] is the seed's record (with `ep`, `batch` and the `reason` text) that the
//! command line and the page show. [`evaluate`] returns the full breakdown (placement,
//! tokens, every stage, every memory term) from the same formulas.

use serde::{Deserialize, Serialize};

use super::emit::emit_stages;
use super::error::ExplorerError;
use super::machine::MachineParams;
use super::memory::{compute_memory, MemoryLayout};
use super::model::ModelConfig;
use super::placement::{ceil_div, Placement};
use super::scales::TimeScales;
use super::stages::{Ctx, Emit, MachineConsts, ModelConsts, Stage, StageGroup, Tokens, Totals};
use super::topology::{
    EfficiencyMode, FfnShardScope, KvShardMode, Mode, PlacementKind, RingVariant, Scope,
    TopologyConfig,
};

/// What a score counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreOptions {
    /// Stages counted in latency and efficiency (memory is always the whole model).
    pub scope: Scope,
    /// Layers counted by the efficiency score.
    pub efficiency: EfficiencyMode,
    /// Count the per-request LM head and PP hops (only with scope `all`).
    pub include_overheads: bool,
    /// A calibration's corrections of compute, memory and network times (1, 1, 1: the
    /// model as specified; see `calibrate`).
    #[serde(default, skip_serializing_if = "TimeScales::is_identity")]
    pub scales: TimeScales,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions {
            scope: Scope::All,
            efficiency: EfficiencyMode::Seed,
            include_overheads: true,
            scales: TimeScales::default(),
        }
    }
}

impl ScoreOptions {
    pub(crate) fn emit(&self) -> Emit {
        Emit {
            attention: self.scope.includes_attention(),
            ffn: self.scope.includes_ffn(),
            overheads: self.scope == Scope::All && self.include_overheads,
        }
    }
}

/// The compact score of one configuration (no heap data). Bytes are per PE.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The configuration.
    pub topo: TopologyConfig,
    /// One step (one decode token or one prefill) of one request, s.
    pub latency_s: f64,
    /// `latency_s·1e9`.
    pub total_latency_ns: f64,
    /// `sqrt(compute_util·bw_util)`.
    pub efficiency_score: f64,
    /// `cp·tp·pp·dp`.
    pub pes_used: u64,
    /// SIPs used.
    pub sips_used: u64,
    /// Weight bytes per PE.
    pub weights_bytes: f64,
    /// KV bytes per PE.
    pub kv_bytes: f64,
    /// Transient bytes per PE.
    pub transient_bytes: f64,
    /// Total bytes per PE.
    pub used_bytes: f64,
    /// `!over_budget`.
    pub fits_memory: bool,
    /// Placement checks hold.
    pub placement_valid: bool,
}

impl Score {
    /// Memory fits and the placement is valid.
    pub fn feasible(&self) -> bool {
        self.fits_memory && self.placement_valid
    }

    /// `1/latency_s`, the seed's single-request throughput (0 unless latency > 0).
    pub fn throughput_tok_s(&self) -> f64 {
        if self.latency_s > 0.0 {
            1.0 / self.latency_s
        } else {
            0.0
        }
    }

    /// Tokens/s across the deployment: `dp·B·(decode ? 1 : S)/latency_s` (0 unless
    /// latency > 0).
    pub fn system_throughput_tok_s(&self) -> f64 {
        if self.latency_s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return 0.0;
        }
        let per_step = match self.topo.mode {
            Mode::Decode => 1.0,
            Mode::Prefill => self.topo.s_kv as f64,
        };
        f64::from(self.topo.dp) * f64::from(self.topo.batch) * per_step / self.latency_s
    }

    /// `system_throughput_tok_s / pes_used` (0 when no PEs).
    pub fn throughput_per_pe_tok_s(&self) -> f64 {
        if self.pes_used == 0 {
            0.0
        } else {
            self.system_throughput_tok_s() / self.pes_used as f64
        }
    }

    /// `used/budget` for a budget (0 when the budget is 0).
    pub fn hbm_utilization(&self, budget_bytes: f64) -> f64 {
        if budget_bytes > 0.0 {
            self.used_bytes / budget_bytes
        } else {
            0.0
        }
    }

    /// The seed's record, with the reason text (recomputed from the placement).
    pub fn to_config_score(&self, model: &ModelConfig, machine: &MachineParams) -> ConfigScore {
        let budget = machine.budget_bytes();
        let reason = if !self.fits_memory {
            memory_reason(self.used_bytes, budget)
        } else if !self.placement_valid {
            Placement::new(&self.topo, machine, model).check.reason()
        } else {
            String::new()
        };
        let t = &self.topo;
        ConfigScore {
            cp: t.cp,
            tp: t.tp,
            pp: t.pp,
            dp: t.dp,
            ep: t.ep,
            batch: t.batch,
            kv_shard_mode: t.kv_shard_mode,
            ffn_shard_scope: t.ffn_shard_scope,
            tp_placement: t.tp_placement,
            cp_placement: t.cp_placement,
            cp_ring_variant: t.cp_ring_variant,
            total_latency_ns: self.total_latency_ns,
            throughput_tok_s: self.throughput_tok_s(),
            efficiency_score: self.efficiency_score,
            pes_used: self.pes_used,
            hbm_utilization: self.hbm_utilization(budget),
            weights_gb: self.weights_bytes / 1e9,
            kv_gb: self.kv_bytes / 1e9,
            transient_gb: self.transient_bytes / 1e9,
            sips_used: self.sips_used,
            fits_memory: self.fits_memory,
            placement_valid: self.placement_valid,
            reason,
        }
    }
}

/// The seed's over-budget text.
pub fn memory_reason(used_bytes: f64, budget_bytes: f64) -> String {
    format!(
        "weights+KV+transient ({:.2} GB) exceeds per-PE budget ({:.2} GB)",
        used_bytes / 1e9,
        budget_bytes / 1e9
    )
}

/// The seed's `ConfigScore`, plus `ep` and `batch`. Field names and order are the
/// `explore --format json` contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigScore {
    /// CP degree.
    pub cp: u32,
    /// TP degree.
    pub tp: u32,
    /// PP degree.
    pub pp: u32,
    /// DP degree.
    pub dp: u32,
    /// EP degree.
    pub ep: u32,
    /// Batch B.
    pub batch: u32,
    /// KV layout.
    pub kv_shard_mode: KvShardMode,
    /// FFN sharding scope.
    pub ffn_shard_scope: FfnShardScope,
    /// TP placement.
    pub tp_placement: PlacementKind,
    /// CP placement.
    pub cp_placement: PlacementKind,
    /// CP ring variant.
    pub cp_ring_variant: RingVariant,
    /// Latency of one step, ns.
    pub total_latency_ns: f64,
    /// `1/latency_s`.
    pub throughput_tok_s: f64,
    /// Geo-mean of compute and bandwidth utilisation.
    pub efficiency_score: f64,
    /// PEs used.
    pub pes_used: u64,
    /// `used/budget`.
    pub hbm_utilization: f64,
    /// Weights per PE, GB (1e9 bytes).
    pub weights_gb: f64,
    /// KV cache per PE, GB.
    pub kv_gb: f64,
    /// Transient buffers per PE, GB.
    pub transient_gb: f64,
    /// SIPs used.
    pub sips_used: u64,
    /// Not over budget.
    pub fits_memory: bool,
    /// Placement checks hold.
    pub placement_valid: bool,
    /// Empty exactly when feasible; otherwise why not (memory first, then placement).
    pub reason: String,
}

impl ConfigScore {
    /// Latency in µs.
    pub fn latency_us(&self) -> f64 {
        self.total_latency_ns / 1e3
    }
    /// Latency in ms.
    pub fn latency_ms(&self) -> f64 {
        self.total_latency_ns / 1e6
    }
    /// Memory fits and the placement is valid.
    pub fn feasible(&self) -> bool {
        self.fits_memory && self.placement_valid
    }
    /// Rebuild the configuration this score was computed for (round-trips `ep` and `batch`).
    pub fn as_topology(&self, s_kv: u64, mode: Mode) -> TopologyConfig {
        TopologyConfig {
            cp: self.cp,
            tp: self.tp,
            pp: self.pp,
            dp: self.dp,
            ep: self.ep,
            batch: self.batch,
            s_kv,
            mode,
            kv_shard_mode: self.kv_shard_mode,
            ffn_shard_scope: self.ffn_shard_scope,
            tp_placement: self.tp_placement,
            cp_placement: self.cp_placement,
            cp_ring_variant: self.cp_ring_variant,
        }
    }
}

/// Model and machine constants, prepared once for many configurations of one mode.
#[derive(Debug, Clone)]
pub struct Scorer<'a> {
    model: &'a ModelConfig,
    machine: &'a MachineParams,
    mc: ModelConsts,
    hw: MachineConsts,
    options: ScoreOptions,
}

/// Efficiency terms (§7).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EfficiencyBreakdown {
    /// Layers counted: `ceil(L/pp)` (seed) or L (corrected).
    pub layers: u64,
    /// `layers·Σ stage.flops`.
    pub total_flops: f64,
    /// `layers·Σ stage.mem_bytes`.
    pub total_bytes: f64,
    /// Clamped compute utilisation.
    pub compute_util: f64,
    /// Clamped bandwidth utilisation.
    pub bw_util: f64,
    /// `sqrt(compute_util·bw_util)`.
    pub score: f64,
}

/// The seed's `min(1, max(0, x))`: NaN maps to 0 (unlike `f64::clamp`).
#[allow(clippy::manual_clamp)]
fn clamp01(x: f64) -> f64 {
    f64::min(1.0, f64::max(0.0, x))
}

impl<'a> Scorer<'a> {
    /// Validate the model and machine and prepare constants for `mode`.
    pub fn new(
        model: &'a ModelConfig,
        machine: &'a MachineParams,
        mode: Mode,
        options: ScoreOptions,
    ) -> Result<Scorer<'a>, ExplorerError> {
        model.validate()?;
        machine.validate()?;
        Ok(Scorer {
            model,
            machine,
            mc: ModelConsts::new(model, mode),
            hw: MachineConsts::new(machine, options.scales),
            options,
        })
    }

    /// The model.
    pub fn model(&self) -> &ModelConfig {
        self.model
    }
    /// The machine.
    pub fn machine(&self) -> &MachineParams {
        self.machine
    }
    /// The options.
    pub fn options(&self) -> ScoreOptions {
        self.options
    }
    /// The mode the constants were prepared for.
    pub fn mode(&self) -> Mode {
        self.mc.mode
    }

    fn efficiency(
        &self,
        topo: &TopologyConfig,
        totals: &Totals,
        latency_s: f64,
    ) -> EfficiencyBreakdown {
        let layers = match self.options.efficiency {
            EfficiencyMode::Seed => ceil_div(self.mc.layers_u, u64::from(topo.pp)),
            EfficiencyMode::Corrected => self.mc.layers_u,
        };
        let lf = layers as f64;
        let total_flops = lf * totals.flops;
        let total_bytes = lf * totals.mem_bytes;
        if latency_s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return EfficiencyBreakdown {
                layers,
                total_flops,
                total_bytes,
                compute_util: 0.0,
                bw_util: 0.0,
                score: 0.0,
            };
        }
        let pes = topo.total_pes() as f64;
        let peak_flops = self.hw.peak_flops * pes;
        let peak_bw = self.hw.bw_hbm * pes;
        let cu = if peak_flops > 0.0 {
            total_flops / (peak_flops * latency_s)
        } else {
            0.0
        };
        let bu = if peak_bw > 0.0 {
            total_bytes / (peak_bw * latency_s)
        } else {
            0.0
        };
        let cu = clamp01(cu);
        let bu = clamp01(bu);
        EfficiencyBreakdown {
            layers,
            total_flops,
            total_bytes,
            compute_util: cu,
            bw_util: bu,
            score: (cu * bu).sqrt(),
        }
    }

    fn finish(
        &self,
        topo: &TopologyConfig,
        placement: &Placement,
        totals: &Totals,
        mem: &MemoryLayout,
    ) -> (Score, f64, EfficiencyBreakdown) {
        let per_layer = totals.attn_visible_s + totals.ffn_visible_s;
        let latency_s = per_layer * self.mc.l + totals.overhead_visible_s;
        let eff = self.efficiency(topo, totals, latency_s);
        let score = Score {
            topo: *topo,
            latency_s,
            total_latency_ns: latency_s * 1e9,
            efficiency_score: eff.score,
            pes_used: topo.total_pes(),
            sips_used: placement.sips_used,
            weights_bytes: mem.weights_bytes,
            kv_bytes: mem.kv_cache_bytes,
            transient_bytes: mem.transient_bytes,
            used_bytes: mem.used_bytes,
            fits_memory: !mem.over_budget,
            placement_valid: placement.valid(),
        };
        (score, per_layer, eff)
    }

    /// Score one configuration without allocating. `topo.mode` is ignored: the scorer's
    /// mode is used. The topology is not validated here (see [`TopologyConfig::validate`]);
    /// any input gives a value, never a panic.
    #[inline]
    pub fn score(&self, topo: &TopologyConfig) -> Score {
        let mut topo = *topo;
        topo.mode = self.mc.mode;
        let placement = Placement::new(&topo, self.machine, self.model);
        let ctx = Ctx::new(&self.mc, &self.hw, &topo, &placement);
        let mut totals = Totals::default();
        emit_stages(&ctx, self.options.emit(), &mut totals);
        let mem = compute_memory(&ctx);
        self.finish(&topo, &placement, &totals, &mem).0
    }

    /// The full breakdown of one configuration, from the same formulas as [`Self::score`].
    pub fn evaluate(&self, topo: &TopologyConfig) -> Evaluation {
        let mut topo = *topo;
        topo.mode = self.mc.mode;
        let placement = Placement::new(&topo, self.machine, self.model);
        let ctx = Ctx::new(&self.mc, &self.hw, &topo, &placement);
        let mut stages: Vec<Stage> = Vec::with_capacity(16);
        emit_stages(&ctx, self.options.emit(), &mut stages);
        let mut totals = Totals::default();
        for s in &stages {
            crate::stages::StageSink::stage(&mut totals, s);
        }
        let mem = compute_memory(&ctx);
        let (score, per_layer_s, efficiency) = self.finish(&topo, &placement, &totals, &mem);
        Evaluation {
            topology: topo,
            placement,
            tokens: ctx.tok,
            attention_s: totals.attn_visible_s,
            ffn_s: totals.ffn_visible_s,
            overhead_s: totals.overhead_visible_s,
            per_layer_s,
            stages,
            memory: mem,
            efficiency,
            config: score.to_config_score(self.model, self.machine),
            score,
        }
    }
}

/// Everything about one configuration: the UI's per-stage bars and "why infeasible".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The configuration (with the scorer's mode).
    pub topology: TopologyConfig,
    /// Placement and fabric levels.
    pub placement: Placement,
    /// Token bookkeeping.
    pub tokens: Tokens,
    /// Every stage, in order: attention, FFN, overheads (only the scope's groups).
    pub stages: Vec<Stage>,
    /// Σ attention visible_s, one layer.
    pub attention_s: f64,
    /// Σ FFN visible_s, one layer.
    pub ffn_s: f64,
    /// Σ overhead visible_s, one request.
    pub overhead_s: f64,
    /// attention_s + ffn_s.
    pub per_layer_s: f64,
    /// Memory terms.
    pub memory: MemoryLayout,
    /// Efficiency terms.
    pub efficiency: EfficiencyBreakdown,
    /// The compact score.
    pub score: Score,
    /// The seed's record.
    pub config: ConfigScore,
}

impl Evaluation {
    /// The stages of one group.
    pub fn stages_in(&self, group: StageGroup) -> impl Iterator<Item = &Stage> {
        self.stages.iter().filter(move |s| s.group == group)
    }
}

/// Score one configuration (validates the model, machine and topology).
pub fn score_config(
    model: &ModelConfig,
    machine: &MachineParams,
    topo: &TopologyConfig,
    options: ScoreOptions,
) -> Result<ConfigScore, ExplorerError> {
    topo.validate()?;
    let scorer = Scorer::new(model, machine, topo.mode, options)?;
    Ok(scorer.score(topo).to_config_score(model, machine))
}

/// The full breakdown of one configuration (validates every input).
pub fn evaluate(
    model: &ModelConfig,
    machine: &MachineParams,
    topo: &TopologyConfig,
    options: ScoreOptions,
) -> Result<Evaluation, ExplorerError> {
    topo.validate()?;
    let scorer = Scorer::new(model, machine, topo.mode, options)?;
    Ok(scorer.evaluate(topo))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's record carries the memory terms in GB and the share of the budget.
    #[test]
    fn the_record_reports_memory_in_gb_and_as_a_share_of_the_budget() {
        let model = ModelConfig::preset("deepseek-v3").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let topo = TopologyConfig {
            cp: 2,
            tp: 8,
            ep: 8,
            batch: 16,
            ..TopologyConfig::default()
        };
        let ev = evaluate(&model, &machine, &topo, ScoreOptions::default()).unwrap();
        let m = &ev.memory;
        let c = &ev.config;
        assert_eq!(c.weights_gb, m.weights_bytes / 1e9);
        assert_eq!(c.kv_gb, m.kv_cache_bytes / 1e9);
        assert_eq!(c.transient_gb, m.transient_bytes / 1e9);
        assert!(c.kv_gb > 0.0 && c.transient_gb > 0.0 && c.weights_gb > 1.0);
        assert_eq!(c.hbm_utilization, m.used_bytes / machine.budget_bytes());
        assert_eq!(c.latency_us(), c.total_latency_ns / 1e3);
        assert_eq!(c.latency_ms(), c.total_latency_ns / 1e6);
        assert!(c.latency_us() > 1.0);
        assert_eq!(ev.score.hbm_utilization(0.0), 0.0);
        assert_eq!(ev.score.hbm_utilization(2.0 * m.used_bytes), 0.5);
    }

    /// The scorer takes unvalidated topologies (the fuzz tests feed it any): one with no
    /// PEs has no peak to be a share of, so its efficiency is 0, not NaN.
    #[test]
    fn a_topology_without_pes_has_zero_efficiency() {
        let model = ModelConfig::preset("llama3.1-8b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let scorer = Scorer::new(&model, &machine, Mode::Decode, ScoreOptions::default()).unwrap();
        let topo = TopologyConfig {
            tp: 0,
            ..TopologyConfig::default()
        };
        let ev = scorer.evaluate(&topo);
        assert_eq!(ev.score.pes_used, 0);
        assert_eq!(
            (
                ev.efficiency.compute_util,
                ev.efficiency.bw_util,
                ev.efficiency.score
            ),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(scorer.score(&topo).efficiency_score, 0.0);
    }

    #[test]
    fn throughput_is_zero_without_a_positive_latency_and_options_are_kept() {
        let model = ModelConfig::preset("llama3.1-8b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let options = ScoreOptions {
            scope: Scope::Ffn,
            efficiency: EfficiencyMode::Corrected,
            include_overheads: false,
            scales: TimeScales::uniform(3.0),
        };
        let scorer = Scorer::new(&model, &machine, Mode::Prefill, options).unwrap();
        assert_eq!(scorer.options(), options);
        assert_eq!(scorer.mode(), Mode::Prefill);
        let mut s = scorer.score(&TopologyConfig {
            mode: Mode::Prefill,
            ..TopologyConfig::default()
        });
        assert_eq!(s.throughput_tok_s(), 1.0 / s.latency_s);
        s.latency_s = 0.0;
        assert_eq!(s.throughput_tok_s(), 0.0);
        assert_eq!(s.system_throughput_tok_s(), 0.0);
        s.latency_s = f64::NAN;
        assert_eq!(s.system_throughput_tok_s(), 0.0);
    }

    #[test]
    fn stages_by_group_and_default_scales_left_out_of_json() {
        let model = ModelConfig::preset("llama3.1-70b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let ev = evaluate(
            &model,
            &machine,
            &TopologyConfig::default(),
            ScoreOptions::default(),
        )
        .unwrap();
        let names =
            |g: StageGroup| -> Vec<&str> { ev.stages_in(g).map(|s| s.name.as_str()).collect() };
        assert_eq!(
            names(StageGroup::Attention),
            [
                "attn_qkv",
                "cp_kv_allgather",
                "attn_core",
                "cp_post",
                "attn_o",
                "attn_tp_allreduce"
            ]
            .iter()
            .copied()
            .filter(|n| ev.stages.iter().any(|s| s.name.as_str() == *n))
            .collect::<Vec<_>>()
        );
        assert!(ev
            .stages_in(StageGroup::Ffn)
            .all(|s| s.group == StageGroup::Ffn));
        assert_eq!(
            ev.stages_in(StageGroup::Attention).count()
                + ev.stages_in(StageGroup::Ffn).count()
                + ev.stages_in(StageGroup::Overhead).count(),
            ev.stages.len()
        );
        let plain = serde_json::to_value(ScoreOptions::default()).unwrap();
        assert!(plain.get("scales").is_none(), "{plain}");
        let scaled = ScoreOptions {
            scales: TimeScales::uniform(2.0),
            ..ScoreOptions::default()
        };
        assert_eq!(
            serde_json::to_value(scaled).unwrap()["scales"]["memory"],
            2.0
        );
    }
}

//! Token bookkeeping (§5), collective primitives (§4) and every stage (§6) of one
//! configuration.
//!
//! There is exactly one implementation of the stage formulas: `emit::emit_stages`, which hands
//! each [`Stage`] to a [`StageSink`]. The sweep's hot path uses a sink that only adds the
//! totals (no allocation; the compiler inlines it); the UI and the worked-example test use a
//! sink that collects the full per-stage breakdown.

use serde::{Deserialize, Serialize};

use super::machine::{FabricLevel, Level, MachineParams};
use super::model::ModelConfig;
use super::placement::{ceil_div, Placement};
use super::scales::TimeScales;
use super::topology::{FfnShardScope, Mode, TopologyConfig};

/// Name of a stage, serialized as in the model document (`attn_qkv`, `moe_dispatch`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageName {
    /// A1: norm, Q/K/V projection, RoPE, KV append.
    AttnQkv,
    /// A2b (prefill, replicate): KV all-gather before the core.
    CpKvAllgather,
    /// A2: local flash attention plus the CP ring.
    AttnCore,
    /// A2b (decode, split+kv or replicate): output re-replication / partial merge.
    CpPost,
    /// A3: output projection.
    AttnO,
    /// A4: TP all-reduce of the attention output.
    AttnTpAllreduce,
    /// MoE router.
    MoeRouter,
    /// MoE dispatch all-to-all (ep > 1).
    MoeDispatch,
    /// Routed and shared experts.
    MoeExperts,
    /// MoE combine all-to-all (ep > 1).
    MoeCombine,
    /// ETP all-reduce plus TP all-gather after the combine (ep > 1).
    MoeReduceRestore,
    /// Dense gate and up projections.
    FfnGateUp,
    /// Dense down projection.
    FfnDown,
    /// FFN group all-reduce.
    FfnAllreduce,
    /// LM head (per request).
    LmHead,
    /// Pipeline hand-offs (per request).
    PpP2p,
}

impl StageName {
    /// The document's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            StageName::AttnQkv => "attn_qkv",
            StageName::CpKvAllgather => "cp_kv_allgather",
            StageName::AttnCore => "attn_core",
            StageName::CpPost => "cp_post",
            StageName::AttnO => "attn_o",
            StageName::AttnTpAllreduce => "attn_tp_allreduce",
            StageName::MoeRouter => "moe_router",
            StageName::MoeDispatch => "moe_dispatch",
            StageName::MoeExperts => "moe_experts",
            StageName::MoeCombine => "moe_combine",
            StageName::MoeReduceRestore => "moe_reduce_restore",
            StageName::FfnGateUp => "ffn_gate_up",
            StageName::FfnDown => "ffn_down",
            StageName::FfnAllreduce => "ffn_allreduce",
            StageName::LmHead => "lm_head",
            StageName::PpP2p => "pp_p2p",
        }
    }
}

/// Which sum a stage belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageGroup {
    /// Per-layer attention stages (`all_stages`).
    Attention,
    /// Per-layer FFN / MoE stages (`all_ffn_stages`).
    Ffn,
    /// Per-request overheads (LM head, PP hops).
    Overhead,
}

/// One stage of one layer (or one request, for overheads). Per-PE quantities end in `_pe`;
/// `flops` and `mem_bytes` aggregate over the `n_s` PEs of one PP stage and the weight.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    /// Stage name.
    pub name: StageName,
    /// Attention, FFN or overhead.
    pub group: StageGroup,
    /// FLOP per PE.
    pub flops_pe: f64,
    /// HBM bytes per PE.
    pub bytes_pe: f64,
    /// Network bytes sent per PE.
    pub comm_bytes_pe: f64,
    /// Fabric level of the collective, if any.
    pub level: Option<FabricLevel>,
    /// Compute time, s.
    pub t_comp_s: f64,
    /// HBM time, s.
    pub t_mem_s: f64,
    /// Communication time, s.
    pub t_comm_s: f64,
    /// Time the stage adds to the critical path (weight applied), s.
    pub visible_s: f64,
    /// Layer-mix weight (1 except for MoE models with dense layers).
    pub weight: f64,
    /// `flops_pe·n_s·weight`.
    pub flops: f64,
    /// `bytes_pe·n_s·weight`.
    pub mem_bytes: f64,
}

/// Token bookkeeping of one configuration (§5) and the quantities derived with it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    /// T: tokens per DP replica per layer.
    pub t: f64,
    /// T_lin: tokens through the linear layers of one PE.
    pub t_lin: f64,
    /// T_g: tokens one FFN group processes.
    pub t_g: f64,
    /// h_q/tp.
    pub hq_pe: f64,
    /// Fraction of the KV heads a PE stores.
    pub f_kv: f64,
    /// kv_el·f_kv.
    pub kv_el_pe: f64,
    /// Attention q·k width.
    pub d_qk: f64,
    /// Attention value width.
    pub d_v: f64,
    /// PEs per PP stage, tp·cp·dp.
    pub n_s: f64,
    /// FFN group size g.
    pub g: f64,
    /// EP degree the physics uses (1 for dense models).
    pub ep: f64,
    /// g/ep.
    pub etp: f64,
}

/// Model quantities that do not depend on the topology, as f64 (computed once per sweep).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModelConsts {
    pub mode: Mode,
    pub l: f64,
    pub d: f64,
    pub hq: f64,
    pub hkv: f64,
    pub dh: f64,
    pub dff: f64,
    pub v: f64,
    pub e: f64,
    pub k: f64,
    pub de: f64,
    pub es: f64,
    pub ld: f64,
    pub kv_el: f64,
    pub d_qk: f64,
    pub d_v: f64,
    pub b_w: f64,
    pub b_kv: f64,
    pub b_a: f64,
    pub is_moe: bool,
    pub tied: bool,
    /// (r_q, r_kv, d_nope, d_rope, d_vh) when MLA.
    pub mla: Option<(f64, f64, f64, f64, f64)>,
    pub layers_u: u64,
}

impl ModelConsts {
    pub(crate) fn new(m: &ModelConfig, mode: Mode) -> ModelConsts {
        let (d_qk, d_v) = m.dot_widths(mode);
        ModelConsts {
            mode,
            l: m.layers as f64,
            d: m.d_model as f64,
            hq: m.h_q as f64,
            hkv: m.h_kv as f64,
            dh: m.d_head as f64,
            dff: m.d_ff as f64,
            v: m.vocab as f64,
            e: m.n_experts as f64,
            k: m.top_k as f64,
            de: m.d_ff_expert as f64,
            es: m.n_shared as f64,
            ld: if m.is_moe() {
                m.n_dense_layers as f64
            } else {
                0.0
            },
            kv_el: m.kv_el(),
            d_qk,
            d_v,
            b_w: m.b_w,
            b_kv: m.b_kv,
            b_a: m.b_a,
            is_moe: m.is_moe(),
            tied: m.tied_embeddings,
            mla: m.mla.map(|x| {
                (
                    x.r_q as f64,
                    x.r_kv as f64,
                    x.d_nope as f64,
                    x.d_rope as f64,
                    x.d_vh as f64,
                )
            }),
            layers_u: m.layers,
        }
    }
}

/// Machine quantities used by the formulas.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MachineConsts {
    pub flops_eff: f64,
    pub bw_eff: f64,
    pub peak_flops: f64,
    pub bw_hbm: f64,
    pub overhead_s: f64,
    pub levels: [Level; 3],
    pub budget_bytes: f64,
}

impl MachineConsts {
    /// The machine's quantities, with a calibration's time scales applied: compute time
    /// (and the per-stage overhead, a kernel launch) × `compute`, HBM time × `memory`,
    /// every fabric level's α × `network` and β ÷ `network`. The peaks the efficiency
    /// score divides by stay the machine's.
    pub(crate) fn new(m: &MachineParams, scales: TimeScales) -> MachineConsts {
        let level = |l: Level| Level {
            bw_bytes_per_s: l.bw_bytes_per_s / scales.network,
            alpha_s: l.alpha_s * scales.network,
        };
        MachineConsts {
            flops_eff: m.peak_flops_per_s * m.eta_flops / scales.compute,
            bw_eff: m.bw_hbm_bytes_per_s * m.eta_bw / scales.memory,
            peak_flops: m.peak_flops_per_s,
            bw_hbm: m.bw_hbm_bytes_per_s,
            overhead_s: m.stage_overhead_s * scales.compute,
            levels: [level(m.l0), level(m.l1), level(m.l2)],
            budget_bytes: m.budget_bytes(),
        }
    }
}

/// Which stage groups to emit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Emit {
    pub attention: bool,
    pub ffn: bool,
    pub overheads: bool,
}

/// Everything one configuration's formulas need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub mc: &'a ModelConsts,
    pub hw: &'a MachineConsts,
    pub topo: TopologyConfig,
    pub b: f64,
    pub s: f64,
    pub cp: f64,
    pub tp: f64,
    pub tok: Tokens,
    pub lv_tp: Level,
    pub lv_cp: Level,
    pub lv_ffn: Level,
    pub l_tp: FabricLevel,
    pub l_cp: FabricLevel,
    pub l_ffn: FabricLevel,
    pub lv_pp_cross: Level,
    pub l_pp_cross: FabricLevel,
    pub n_cross: f64,
    pub n_intra: f64,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(
        mc: &'a ModelConsts,
        hw: &'a MachineConsts,
        topo: &TopologyConfig,
        pl: &Placement,
    ) -> Ctx<'a> {
        let b = f64::from(topo.batch);
        let s = topo.s_kv as f64;
        let cp = f64::from(topo.cp);
        let tp = f64::from(topo.tp);
        let dp = f64::from(topo.dp);
        let (t, t_lin) = match mc.mode {
            Mode::Decode => (b, b),
            Mode::Prefill => {
                let t = b * s;
                (t, t / cp)
            }
        };
        let t_g = match topo.ffn_shard_scope {
            FfnShardScope::Tp => t_lin,
            FfnShardScope::TpCp => t,
            FfnShardScope::TpCpDp => dp * t,
        };
        let hq_pe = mc.hq / tp;
        let f_kv = if mc.mla.is_some() {
            1.0
        } else {
            (1.0 / tp) * f64::max(1.0, tp.min(mc.hq) / mc.hkv)
        };
        let g = pl.ffn_group as f64;
        let ep = if mc.is_moe { f64::from(topo.ep) } else { 1.0 };
        let tok = Tokens {
            t,
            t_lin,
            t_g,
            hq_pe,
            f_kv,
            kv_el_pe: mc.kv_el * f_kv,
            d_qk: mc.d_qk,
            d_v: mc.d_v,
            n_s: tp * cp * dp,
            g,
            ep,
            etp: g / ep,
        };
        let lv = |l: FabricLevel| hw.levels[l.index()];
        Ctx {
            mc,
            hw,
            topo: *topo,
            b,
            s,
            cp,
            tp,
            tok,
            lv_tp: lv(pl.level_tp),
            lv_cp: lv(pl.level_cp),
            lv_ffn: lv(pl.level_ffn),
            l_tp: pl.level_tp,
            l_cp: pl.level_cp,
            l_ffn: pl.level_ffn,
            lv_pp_cross: lv(pl.pp_cross_level),
            l_pp_cross: pl.pp_cross_level,
            n_cross: pl.pp_cross_hops as f64,
            n_intra: pl.pp_intra_hops as f64,
        }
    }
}

// ── Collective primitives (§4): 0 when n ≤ 1 ───────────────────────────────────────────

/// All-reduce of an M-byte buffer over n ranks: `2(n−1)α + 2(n−1)/n · M/β`.
pub fn all_reduce_s(m_bytes: f64, n: f64, lv: Level) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    2.0 * (n - 1.0) * lv.alpha_s + 2.0 * (n - 1.0) / n * m_bytes / lv.bw_bytes_per_s
}

/// All-gather (or reduce-scatter) of M gathered bytes: `(n−1)α + (n−1)/n · M/β`.
pub fn all_gather_s(m_bytes: f64, n: f64, lv: Level) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    (n - 1.0) * lv.alpha_s + (n - 1.0) / n * m_bytes / lv.bw_bytes_per_s
}

/// All-to-all with V bytes sent per PE: `(n−1)α + V/β`.
pub fn all_to_all_s(v_bytes: f64, n: f64, lv: Level) -> f64 {
    if n <= 1.0 {
        return 0.0;
    }
    (n - 1.0) * lv.alpha_s + v_bytes / lv.bw_bytes_per_s
}

/// Point-to-point message: `α + M/β`.
pub fn p2p_s(m_bytes: f64, lv: Level) -> f64 {
    lv.alpha_s + m_bytes / lv.bw_bytes_per_s
}

pub(crate) fn ar_bytes(m: f64, n: f64) -> f64 {
    if n <= 1.0 {
        0.0
    } else {
        2.0 * (n - 1.0) / n * m
    }
}

pub(crate) fn ag_bytes(m: f64, n: f64) -> f64 {
    if n <= 1.0 {
        0.0
    } else {
        (n - 1.0) / n * m
    }
}

// ── Shared pieces (stages and memory use the same functions) ───────────────────────────

/// Per-PE attention parameters `(P_qkv, P_o)` for a mode (§6.1 A1).
pub(crate) fn attn_params_pe(c: &Ctx<'_>, mode: Mode) -> (f64, f64) {
    let mc = c.mc;
    let tp = c.tp;
    let d = mc.d;
    match mc.mla {
        None => {
            let p_qkv = d * mc.hq * mc.dh / tp + 2.0 * d * mc.hkv * mc.dh * c.tok.f_kv;
            let p_o = mc.hq * mc.dh * d / tp;
            (p_qkv, p_o)
        }
        Some((r_q, r_kv, d_nope, d_rope, d_vh)) => {
            let p_rep = d * r_q + d * (r_kv + d_rope);
            let p_qb = r_q * mc.hq * (d_nope + d_rope) / tp;
            let p_uk = r_kv * mc.hq * d_nope / tp;
            let p_uv = r_kv * mc.hq * d_vh / tp;
            let p_o_prime = mc.hq * d_vh * d / tp;
            match mode {
                Mode::Decode => (p_rep + p_qb + p_uk, p_o_prime + p_uv),
                Mode::Prefill => (p_rep + p_qb + p_uk + p_uv, p_o_prime),
            }
        }
    }
}

/// CP ring payloads `(T_r, P_kv, P_q, P_o)` in bytes (§6.1).
pub(crate) fn ring_payloads(c: &Ctx<'_>) -> (f64, f64, f64, f64) {
    let mc = c.mc;
    let tok = &c.tok;
    let (t_r, p_kv) = match mc.mode {
        Mode::Decode => {
            let t_r = ceil_div(u64::from(c.topo.batch), u64::from(c.topo.cp)) as f64;
            (t_r, c.b * (c.s / c.cp) * tok.kv_el_pe * mc.b_kv)
        }
        Mode::Prefill => {
            let t_r = c.b * c.s / c.cp;
            (t_r, t_r * tok.kv_el_pe * mc.b_kv)
        }
    };
    let p_q = t_r * tok.hq_pe * ((tok.d_qk + tok.d_v) * mc.b_a + 8.0);
    let p_o = t_r * tok.hq_pe * tok.d_v * mc.b_a;
    (t_r, p_kv, p_q, p_o)
}

/// MoE quantities `(p_t, V, a_pe, W_e, rows, T_part)` (§6.2).
pub(crate) fn moe_terms(c: &Ctx<'_>) -> (f64, f64, f64, f64, f64, f64) {
    let mc = c.mc;
    let tok = &c.tok;
    let ep = tok.ep;
    let spread = 1.0 - (1.0 - 1.0 / ep).powf(mc.k);
    let p_t = ep * spread;
    let v = (tok.t_g / tok.g) * p_t * mc.d * mc.b_a * (ep - 1.0) / ep;
    let a_pe = (mc.e / ep) * (1.0 - (1.0 - mc.k / mc.e).powf(tok.t_g));
    let w_e = 3.0 * mc.d * mc.de;
    let rows = tok.t_g * mc.k / ep + if mc.es > 0.0 { tok.t_g / ep } else { 0.0 };
    let t_part = tok.t_g * spread;
    (p_t, v, a_pe, w_e, rows, t_part)
}

// ── Stage emission ──────────────────────────────────────────────────────────────────────

/// Receives the stages of one configuration, in order.
pub(crate) trait StageSink {
    fn stage(&mut self, s: &Stage);
}

/// Collects the full breakdown.
impl StageSink for Vec<Stage> {
    fn stage(&mut self, s: &Stage) {
        self.push(*s);
    }
}

/// Adds only what scoring needs, in the seed's summation order: the attention and FFN
/// visible times separately, FLOP and bytes over attention then FFN, overheads apart.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub attn_visible_s: f64,
    pub ffn_visible_s: f64,
    pub overhead_visible_s: f64,
    pub flops: f64,
    pub mem_bytes: f64,
}

impl StageSink for Totals {
    #[inline(always)]
    fn stage(&mut self, s: &Stage) {
        match s.group {
            StageGroup::Attention => {
                self.attn_visible_s += s.visible_s;
                self.flops += s.flops;
                self.mem_bytes += s.mem_bytes;
            }
            StageGroup::Ffn => {
                self.ffn_visible_s += s.visible_s;
                self.flops += s.flops;
                self.mem_bytes += s.mem_bytes;
            }
            StageGroup::Overhead => self.overhead_visible_s += s.visible_s,
        }
    }
}

#[inline(always)]
pub(crate) fn compute_stage(
    c: &Ctx<'_>,
    name: StageName,
    group: StageGroup,
    flops_pe: f64,
    bytes_pe: f64,
    weight: f64,
) -> Stage {
    let t_comp_s = flops_pe / c.hw.flops_eff;
    let t_mem_s = bytes_pe / c.hw.bw_eff;
    Stage {
        name,
        group,
        flops_pe,
        bytes_pe,
        comm_bytes_pe: 0.0,
        level: None,
        t_comp_s,
        t_mem_s,
        t_comm_s: 0.0,
        visible_s: (f64::max(t_comp_s, t_mem_s) + c.hw.overhead_s) * weight,
        weight,
        flops: flops_pe * c.tok.n_s * weight,
        mem_bytes: bytes_pe * c.tok.n_s * weight,
    }
}

#[inline(always)]
pub(crate) fn comm_stage(
    name: StageName,
    group: StageGroup,
    t_comm_s: f64,
    comm_bytes_pe: f64,
    level: FabricLevel,
    weight: f64,
) -> Stage {
    Stage {
        name,
        group,
        flops_pe: 0.0,
        bytes_pe: 0.0,
        comm_bytes_pe,
        level: Some(level),
        t_comp_s: 0.0,
        t_mem_s: 0.0,
        t_comm_s,
        visible_s: t_comm_s * weight,
        weight,
        flops: 0.0,
        mem_bytes: 0.0,
    }
}

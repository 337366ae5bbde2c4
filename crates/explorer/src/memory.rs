//! Per-PE HBM use of one configuration (docs/explorer-model.md §8).

use serde::{Deserialize, Serialize};

use super::placement::ceil_div;
use super::stages::{attn_params_pe, moe_terms, ring_payloads, Ctx};
use super::topology::{KvShardMode, Mode, RingVariant};

/// Every term of `compute_memory`. Parameter counts are per PE; bytes are per PE.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryLayout {
    /// `ceil(L/pp)`.
    pub layers_pe: u64,
    /// Attention params per layer per PE (`P_qkv + P_o + 2d`).
    pub attn_w_params: f64,
    /// FFN params per layer per PE (worst layer type).
    pub ffn_w_params: f64,
    /// Embedding / LM-head params per PE.
    pub emb_params: f64,
    /// Weight bytes.
    pub weights_bytes: f64,
    /// KV-cache bytes.
    pub kv_cache_bytes: f64,
    /// Attention working set, bytes.
    pub attn_ws_bytes: f64,
    /// FFN working set, bytes.
    pub ffn_ws_bytes: f64,
    /// CP ring double buffer, bytes.
    pub ring_ws_bytes: f64,
    /// fp32 logits, bytes.
    pub logits_bytes: f64,
    /// `max(attn_ws, ffn_ws) + ring_ws + logits`.
    pub transient_bytes: f64,
    /// `weights + kv + transient`.
    pub used_bytes: f64,
    /// `hbm_bytes·hbm_usable_frac`.
    pub budget_bytes: f64,
    /// `used > budget`.
    pub over_budget: bool,
    /// `used/budget` (0 when the budget is 0).
    pub hbm_utilization: f64,
}

/// Compute the memory layout of `c`.
#[inline(always)]
pub(crate) fn compute_memory(c: &Ctx<'_>) -> MemoryLayout {
    let mc = c.mc;
    let tok = &c.tok;
    let d = mc.d;
    let g = tok.g;
    let etp = tok.etp;
    let ep = tok.ep;
    let split = c.topo.kv_shard_mode == KvShardMode::Split;

    let layers_pe = ceil_div(mc.layers_u, u64::from(c.topo.pp));
    let lp = layers_pe as f64;

    // Attention weights: for MLA the prefill split (same total, all params stored).
    let (p_qkv, p_o) = attn_params_pe(c, Mode::Prefill);
    let attn_w = p_qkv + p_o + 2.0 * d;

    let dense_w = 3.0 * d * mc.dff / g;
    let (moe_w, moe_rows) = if mc.is_moe {
        let (_, _, _, w_e, rows, _) = moe_terms(c);
        ((mc.e / ep) * w_e / etp + mc.es * w_e / etp + d * mc.e, rows)
    } else {
        (0.0, 0.0)
    };
    let ffn_w = if !mc.is_moe {
        dense_w
    } else if mc.ld > 0.0 {
        f64::max(moe_w, dense_w)
    } else {
        moe_w
    };
    let tables = if c.topo.pp == 1 && !mc.tied { 2.0 } else { 1.0 };
    let emb = mc.v * d / c.tp * tables;
    let weights = (lp * (attn_w + ffn_w) + emb) * mc.b_w;

    let tokens_stored = if split {
        ceil_div(c.topo.s_kv, u64::from(c.topo.cp)) as f64
    } else {
        c.s
    };
    let kv = c.b * tokens_stored * lp * tok.kv_el_pe * mc.b_kv;

    let attn_ws = tok.t_lin * (2.0 * d + tok.hq_pe * (tok.d_qk + tok.d_v) + tok.kv_el_pe) * mc.b_a;
    let dense_ws = tok.t_g * (2.0 * d + 2.0 * mc.dff / g) * mc.b_a;
    let ffn_ws = if !mc.is_moe {
        dense_ws
    } else {
        let moe_ws = (2.0 * tok.t_g * d + moe_rows * (2.0 * d + 2.0 * mc.de / etp)) * mc.b_a;
        if mc.ld > 0.0 {
            f64::max(moe_ws, dense_ws)
        } else {
            moe_ws
        }
    };
    let ring_ws = if split && c.topo.cp > 1 {
        let (_, p_kv, p_q, _) = ring_payloads(c);
        2.0 * match c.topo.cp_ring_variant {
            RingVariant::Kv => p_kv,
            RingVariant::Qoml => p_q,
        }
    } else {
        0.0
    };
    let logits = c.b * (mc.v / c.tp) * 4.0;
    let transient = f64::max(attn_ws, ffn_ws) + ring_ws + logits;
    let used = weights + kv + transient;
    let budget = c.hw.budget_bytes;
    MemoryLayout {
        layers_pe,
        attn_w_params: attn_w,
        ffn_w_params: ffn_w,
        emb_params: emb,
        weights_bytes: weights,
        kv_cache_bytes: kv,
        attn_ws_bytes: attn_ws,
        ffn_ws_bytes: ffn_ws,
        ring_ws_bytes: ring_ws,
        logits_bytes: logits,
        transient_bytes: transient,
        used_bytes: used,
        budget_bytes: budget,
        over_budget: used > budget,
        hbm_utilization: if budget > 0.0 { used / budget } else { 0.0 },
    }
}

#[cfg(test)]
mod tests {
    use crate::{evaluate, MachineParams, ModelConfig, ScoreOptions, TopologyConfig};

    /// An MoE model stores, per layer, its heavier FFN: the dense one when it has dense
    /// layers and they outweigh the expert shard, the experts' otherwise.
    #[test]
    fn dense_layers_weigh_in_when_heavier_than_the_experts() {
        let mut model = ModelConfig::preset("deepseek-v3").unwrap();
        model.d_ff_expert = 64; // tiny experts: the dense FFN is the heavier
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let topo = TopologyConfig {
            cp: 1,
            tp: 8,
            pp: 1,
            ep: 8,
            ..TopologyConfig::default()
        };
        let layout = |dense_layers: u64| {
            let m = ModelConfig {
                n_dense_layers: dense_layers,
                ..model.clone()
            };
            evaluate(&m, &machine, &topo, ScoreOptions::default()).unwrap()
        };
        let with = layout(3);
        let without = layout(0);
        let dense_w = 3.0 * 7168.0 * 18432.0 / with.tokens.g;
        assert_eq!(with.memory.ffn_w_params, dense_w);
        assert!(
            without.memory.ffn_w_params < dense_w,
            "{}",
            without.memory.ffn_w_params
        );
        assert!(with.memory.weights_bytes > without.memory.weights_bytes);
        // The same for the working set: a dense FFN far wider than the experts' sets it.
        let wide = |dense_layers: u64| {
            let m = ModelConfig {
                n_dense_layers: dense_layers,
                d_ff: 1 << 20,
                ..model.clone()
            };
            evaluate(&m, &machine, &topo, ScoreOptions::default()).unwrap()
        };
        let (with_ws, without_ws) = (wide(3), wide(0));
        let t = with_ws.tokens;
        let dense_ws = t.t_g * (2.0 * 7168.0 + 2.0 * f64::from(1u32 << 20) / t.g) * 2.0;
        assert_eq!(with_ws.memory.ffn_ws_bytes, dense_ws);
        assert!(without_ws.memory.ffn_ws_bytes < dense_ws);
        // No ring buffer without a ring (cp = 1), a double buffer of one payload with one.
        assert_eq!(with.topology.cp, 1);
        assert_eq!(with.memory.ring_ws_bytes, 0.0);
        let ring = evaluate(
            &model,
            &machine,
            &TopologyConfig { cp: 2, ..topo },
            ScoreOptions::default(),
        )
        .unwrap();
        assert!(ring.memory.ring_ws_bytes > 0.0);
    }

    /// A configuration that fills the budget to the byte still fits.
    #[test]
    fn filling_the_budget_exactly_fits() {
        let model = ModelConfig::preset("llama3.1-70b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let topo = TopologyConfig::default();
        let used = evaluate(&model, &machine, &topo, ScoreOptions::default())
            .unwrap()
            .memory
            .used_bytes;
        let exact = MachineParams {
            hbm_bytes: used,
            hbm_usable_frac: 1.0,
            ..machine.clone()
        };
        let ev = evaluate(&model, &exact, &topo, ScoreOptions::default()).unwrap();
        assert_eq!(ev.memory.budget_bytes, ev.memory.used_bytes);
        assert!(!ev.memory.over_budget && ev.score.fits_memory);
        assert_eq!(ev.memory.hbm_utilization, 1.0);
        let short = MachineParams {
            hbm_bytes: used - 1.0,
            ..exact
        };
        let ev = evaluate(&model, &short, &topo, ScoreOptions::default()).unwrap();
        assert!(ev.memory.over_budget && !ev.score.fits_memory);
    }
}

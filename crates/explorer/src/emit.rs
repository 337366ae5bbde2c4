//! Which stages one layer of one configuration runs, in order: attention, the dense or
//! expert FFN, the overheads (docs/explorer-model.md §6), each handed to a
//! [`StageSink`] (the breakdown keeps them, the sweep only sums them).

use crate::machine::FabricLevel;
use crate::placement::ceil_div;
use crate::stages::*;
use crate::topology::{KvShardMode, Mode, RingVariant};

/// Emit every stage of `c` that `which` asks for: attention (§6.1), then FFN (§6.2), then
/// the per-request overheads (§6.3).
#[inline(always)]
pub(crate) fn emit_stages<S: StageSink>(c: &Ctx<'_>, which: Emit, sink: &mut S) {
    if which.attention {
        emit_attention(c, sink);
    }
    if which.ffn {
        emit_ffn(c, sink);
    }
    if which.overheads {
        emit_overheads(c, sink);
    }
}

#[inline(always)]
fn emit_attention<S: StageSink>(c: &Ctx<'_>, sink: &mut S) {
    let mc = c.mc;
    let tok = &c.tok;
    let g = StageGroup::Attention;
    let d = mc.d;
    let cp_u = u64::from(c.topo.cp);
    let decode = mc.mode == Mode::Decode;
    let split = c.topo.kv_shard_mode == KvShardMode::Split;

    // A1 attn_qkv
    let (p_qkv, p_o) = attn_params_pe(c, mc.mode);
    let flops = 2.0 * tok.t_lin * p_qkv;
    let bytes = (p_qkv + d) * mc.b_w
        + tok.t_lin * (d + tok.hq_pe * tok.d_qk) * mc.b_a
        + tok.t_lin * tok.kv_el_pe * mc.b_kv;
    sink.stage(&compute_stage(c, StageName::AttnQkv, g, flops, bytes, 1.0));

    // A2b before the core: prefill, replicate
    if !decode && !split && cp_u > 1 {
        let m = c.b * c.s * tok.kv_el_pe * mc.b_kv;
        sink.stage(&comm_stage(
            StageName::CpKvAllgather,
            g,
            all_gather_s(m, c.cp, c.lv_cp),
            ag_bytes(m, c.cp),
            c.l_cp,
            1.0,
        ));
    }

    // A2 attn_core
    let (pairs, kv_tok, q_vis) = if decode {
        if cp_u == 1 {
            (c.b * c.s, c.b * c.s, c.b)
        } else if split && c.topo.cp_ring_variant == RingVariant::Kv {
            let owned = ceil_div(u64::from(c.topo.batch), cp_u) as f64;
            (owned * c.s, owned * c.s, owned)
        } else {
            (c.b * c.s / c.cp, c.b * c.s / c.cp, c.b)
        }
    } else {
        (c.b * c.s * (c.s + 1.0) / (2.0 * c.cp), c.b * c.s, c.b * c.s)
    };
    let flops = 2.0 * pairs * tok.hq_pe * (tok.d_qk + tok.d_v);
    let bytes = kv_tok * tok.kv_el_pe * mc.b_kv + q_vis * tok.hq_pe * (tok.d_qk + tok.d_v) * mc.b_a;
    let mut core = compute_stage(c, StageName::AttnCore, g, flops, bytes, 1.0);
    if cp_u > 1 && split {
        let t_loc = f64::max(core.t_comp_s, core.t_mem_s) + c.hw.overhead_s;
        let t_s = t_loc / c.cp;
        let (_, p_kv, p_q, p_o_ring) = ring_payloads(c);
        let hop = |p: f64| p2p_s(p, c.lv_cp);
        let steps = c.cp - 1.0;
        let (visible, t_comm, comm_bytes) = match c.topo.cp_ring_variant {
            RingVariant::Kv => {
                let h = hop(p_kv);
                (t_s + steps * f64::max(t_s, h), steps * h, steps * p_kv)
            }
            RingVariant::Qoml => {
                let hq = hop(p_q);
                let ho = hop(p_o_ring);
                let visible = if decode {
                    t_loc + steps * hq + ho
                } else {
                    t_s + steps * f64::max(t_s, hq) + ho
                };
                (visible, steps * hq + ho, steps * p_q + p_o_ring)
            }
        };
        core.visible_s = visible;
        core.t_comm_s = t_comm;
        core.comm_bytes_pe = comm_bytes;
        core.level = Some(c.l_cp);
    }
    sink.stage(&core);

    // A2b after the core: decode, split+kv or replicate
    if decode && cp_u > 1 {
        if split && c.topo.cp_ring_variant == RingVariant::Kv {
            let m = c.b * tok.hq_pe * tok.d_v * mc.b_a;
            sink.stage(&comm_stage(
                StageName::CpPost,
                g,
                all_gather_s(m, c.cp, c.lv_cp),
                ag_bytes(m, c.cp),
                c.l_cp,
                1.0,
            ));
        } else if !split {
            let m = c.b * tok.hq_pe * (tok.d_v * mc.b_a + 8.0);
            sink.stage(&comm_stage(
                StageName::CpPost,
                g,
                all_reduce_s(m, c.cp, c.lv_cp),
                ar_bytes(m, c.cp),
                c.l_cp,
                1.0,
            ));
        }
    }

    // A3 attn_o
    let flops = 2.0 * tok.t_lin * p_o;
    let bytes = p_o * mc.b_w + tok.t_lin * (tok.hq_pe * tok.d_v + d) * mc.b_a;
    sink.stage(&compute_stage(c, StageName::AttnO, g, flops, bytes, 1.0));

    // A4 attn_tp_allreduce
    let m = tok.t_lin * d * mc.b_a;
    sink.stage(&comm_stage(
        StageName::AttnTpAllreduce,
        g,
        all_reduce_s(m, c.tp, c.lv_tp),
        ar_bytes(m, c.tp),
        c.l_tp,
        1.0,
    ));
}

#[inline(always)]
fn emit_dense_ffn<S: StageSink>(c: &Ctx<'_>, weight: f64, sink: &mut S) {
    let mc = c.mc;
    let tok = &c.tok;
    let grp = StageGroup::Ffn;
    let d = mc.d;
    let g = tok.g;

    let p = 2.0 * d * mc.dff / g;
    let flops = 2.0 * tok.t_g * p;
    let bytes = (p + d) * mc.b_w + tok.t_g * (d + mc.dff / g) * mc.b_a;
    sink.stage(&compute_stage(
        c,
        StageName::FfnGateUp,
        grp,
        flops,
        bytes,
        weight,
    ));

    let p = mc.dff * d / g;
    let flops = 2.0 * tok.t_g * p;
    let bytes = p * mc.b_w + tok.t_g * (mc.dff / g + d) * mc.b_a;
    sink.stage(&compute_stage(
        c,
        StageName::FfnDown,
        grp,
        flops,
        bytes,
        weight,
    ));

    let m = tok.t_g * d * mc.b_a;
    sink.stage(&comm_stage(
        StageName::FfnAllreduce,
        grp,
        all_reduce_s(m, g, c.lv_ffn),
        ar_bytes(m, g),
        c.l_ffn,
        weight,
    ));
}

#[inline(always)]
fn emit_ffn<S: StageSink>(c: &Ctx<'_>, sink: &mut S) {
    let mc = c.mc;
    if !mc.is_moe {
        emit_dense_ffn(c, 1.0, sink);
        return;
    }
    let tok = &c.tok;
    let grp = StageGroup::Ffn;
    let d = mc.d;
    let ep = tok.ep;
    let etp = tok.etp;
    let w_dense = mc.ld / mc.l;
    let w = 1.0 - w_dense;
    let (_, v, a_pe, w_e, rows, t_part) = moe_terms(c);

    let flops = 2.0 * tok.t_lin * d * mc.e;
    let bytes = (d * mc.e + d) * mc.b_w + tok.t_lin * (d + mc.e) * mc.b_a;
    sink.stage(&compute_stage(
        c,
        StageName::MoeRouter,
        grp,
        flops,
        bytes,
        w,
    ));

    if ep > 1.0 {
        sink.stage(&comm_stage(
            StageName::MoeDispatch,
            grp,
            all_to_all_s(v, ep, c.lv_ffn),
            v,
            c.l_ffn,
            w,
        ));
    }

    let flops = 2.0 * (tok.t_g * mc.k / ep) * w_e / etp + 2.0 * (tok.t_g / ep) * mc.es * w_e / etp;
    let bytes = (a_pe + mc.es) * w_e * mc.b_w / etp + rows * (2.0 * d + 3.0 * mc.de / etp) * mc.b_a;
    sink.stage(&compute_stage(
        c,
        StageName::MoeExperts,
        grp,
        flops,
        bytes,
        w,
    ));

    if ep > 1.0 {
        sink.stage(&comm_stage(
            StageName::MoeCombine,
            grp,
            all_to_all_s(v, ep, c.lv_ffn),
            v,
            c.l_ffn,
            w,
        ));
        let m_part = t_part * d * mc.b_a;
        let m_lin = tok.t_lin * d * mc.b_a;
        let t = all_reduce_s(m_part, etp, c.lv_ffn) + all_gather_s(m_lin, c.tp, c.lv_tp);
        sink.stage(&comm_stage(
            StageName::MoeReduceRestore,
            grp,
            t,
            ar_bytes(m_part, etp) + ag_bytes(m_lin, c.tp),
            c.l_ffn,
            w,
        ));
    } else {
        let m = tok.t_g * d * mc.b_a;
        sink.stage(&comm_stage(
            StageName::FfnAllreduce,
            grp,
            all_reduce_s(m, tok.g, c.lv_ffn),
            ar_bytes(m, tok.g),
            c.l_ffn,
            w,
        ));
    }

    if mc.ld > 0.0 {
        emit_dense_ffn(c, w_dense, sink);
    }
}

#[inline(always)]
fn emit_overheads<S: StageSink>(c: &Ctx<'_>, sink: &mut S) {
    let mc = c.mc;
    let grp = StageGroup::Overhead;
    let d = mc.d;

    let p = mc.v * d / c.tp;
    let flops = 2.0 * c.b * p;
    let bytes = p * mc.b_w + c.b * (d + mc.v / c.tp) * mc.b_a;
    sink.stage(&compute_stage(c, StageName::LmHead, grp, flops, bytes, 1.0));

    let m = c.tok.t_lin * d * mc.b_a;
    let l0 = c.hw.levels[0];
    let t = c.n_intra * p2p_s(m, l0) + c.n_cross * p2p_s(m, c.lv_pp_cross);
    let level = if c.n_cross > 0.0 {
        c.l_pp_cross
    } else {
        FabricLevel::L0
    };
    sink.stage(&comm_stage(
        StageName::PpP2p,
        grp,
        t,
        (c.n_intra + c.n_cross) * m,
        level,
        1.0,
    ));
}

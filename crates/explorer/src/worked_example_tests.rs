//! docs/explorer-model.md §9: the worked example, every intermediate value of its table.
//! Table values are printed to 6 decimals in µs; integer quantities are asserted exactly.

use super::*;

fn us(s: f64) -> f64 {
    s * 1e6
}

/// Equal to the printed precision (6 decimals).
fn close6(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 5e-7 + 1e-12 * want.abs(),
        "{what}: {got} vs {want}"
    );
}

fn example() -> Evaluation {
    let model = ModelConfig::preset("llama3.1-70b").unwrap();
    let machine = MachineParams::preset("h200-hgx").unwrap();
    let topo = TopologyConfig::default(); // cp 2, tp 4, pp 2, dp 1, ep 1; split/TP+CP/pe/pe/qoml
    assert_eq!(
        topo.baseline_string(),
        "cp=2,tp=4,pp=2,dp=1,ep=1,batch=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml"
    );
    evaluate(&model, &machine, &topo, ScoreOptions::default()).unwrap()
}

#[test]
fn placement_and_tokens() {
    let ev = example();
    let p = &ev.placement;
    assert_eq!((p.intra_cube_dims, p.cubes_per_block, p.pack), (8, 1, 1));
    assert_eq!((p.cubes_used, p.sips_used), (2, 2));
    assert_eq!(
        (p.level_tp, p.level_cp, p.level_ffn),
        (FabricLevel::L0, FabricLevel::L0, FabricLevel::L0)
    );
    assert_eq!((p.ffn_group, p.pp_cross_hops, p.pp_intra_hops), (8, 1, 0));
    assert_eq!(p.pp_cross_level, FabricLevel::L2);
    assert!(p.valid());

    let t = &ev.tokens;
    assert_eq!((t.t, t.t_lin, t.t_g), (1.0, 1.0, 1.0));
    assert_eq!((t.hq_pe, t.f_kv, t.kv_el_pe), (16.0, 0.25, 512.0));
    assert_eq!((t.d_qk, t.d_v, t.n_s), (128.0, 128.0, 8.0));
    assert_eq!((t.g, t.ep, t.etp), (8.0, 1.0, 8.0));
}

#[test]
fn every_stage_of_the_table() {
    let ev = example();
    // name, flops_pe, bytes_pe, t_comp µs, t_mem µs, t_comm µs, visible µs (NaN = "–")
    let n = f64::NAN;
    #[rustfmt::skip]
    let want: [(StageName, f64, f64, f64, f64, f64, f64); 9] = [
        (StageName::AttnQkv, 41_943_040.0, 41_980_928.0, 0.042410, 8.746027, n, 8.746027),
        (StageName::AttnCore, 134_217_728.0, 16_785_408.0, 0.135711, 3.496960, 1.427591, 4.924551),
        (StageName::AttnO, 33_554_432.0, 33_574_912.0, 0.033928, 6.994773, n, 6.994773),
        (StageName::AttnTpAllreduce, n, n, n, n, 4.254613, 4.254613),
        (StageName::FfnGateUp, 117_440_512.0, 117_480_448.0, 0.118747, 24.475093, n, 24.475093),
        (StageName::FfnDown, 58_720_256.0, 58_743_808.0, 0.059373, 12.238293, n, 12.238293),
        (StageName::FfnAllreduce, n, n, n, n, 9.863716, 9.863716),
        (StageName::LmHead, 525_336_576.0, 525_417_088.0, 0.531180, 109.461893, n, 109.461893),
        (StageName::PpP2p, n, n, n, n, 3.327680, 3.327680),
    ];
    assert_eq!(ev.stages.len(), want.len());
    for (s, w) in ev.stages.iter().zip(want.iter()) {
        let (name, flops, bytes, tc, tm, tcomm, vis) = *w;
        assert_eq!(s.name, name);
        let what = s.name.as_str();
        if flops.is_nan() {
            assert_eq!((s.flops_pe, s.bytes_pe), (0.0, 0.0), "{what}");
            assert_eq!(s.t_comp_s, 0.0, "{what}");
        } else {
            assert_eq!(s.flops_pe, flops, "{what} flops");
            assert_eq!(s.bytes_pe, bytes, "{what} bytes");
            close6(us(s.t_comp_s), tc, what);
            close6(us(s.t_mem_s), tm, what);
            assert_eq!(s.flops, flops * 8.0, "{what} aggregate flops");
        }
        if tcomm.is_nan() {
            assert_eq!(s.t_comm_s, 0.0, "{what}");
        } else {
            close6(us(s.t_comm_s), tcomm, what);
        }
        close6(us(s.visible_s), vis, what);
        assert_eq!(s.weight, 1.0);
    }
    let groups: Vec<StageGroup> = ev.stages.iter().map(|s| s.group).collect();
    assert_eq!(groups[..4], [StageGroup::Attention; 4]);
    assert_eq!(groups[4..7], [StageGroup::Ffn; 3]);
    assert_eq!(groups[7..], [StageGroup::Overhead; 2]);
}

#[test]
fn stage_checks() {
    let ev = example();
    let l0 = MachineParams::preset("h200-hgx").unwrap().l0;
    // QKV params: 8192·8192/4 + 2·8192·1024·0.25; attention weights add P_o and 2d.
    assert_eq!(
        ev.memory.attn_w_params,
        20_971_520.0 + 16_777_216.0 + 16_384.0
    );
    // Core: pairs = 16384 → flops 2·16384·16·256.
    assert_eq!(2.0 * 16384.0 * 16.0 * 256.0, ev.stages[1].flops_pe);
    // Payloads P_q = 8320 B and P_o = 4096 B: the ring total and the double buffer.
    assert_eq!(ev.stages[1].comm_bytes_pe, 8320.0 + 4096.0);
    assert_eq!(ev.memory.ring_ws_bytes, 2.0 * 8320.0);
    close6(us(p2p_s(8320.0, l0)), 0.718489, "t_h(P_q)");
    close6(us(p2p_s(4096.0, l0)), 0.709102, "t_h(P_o)");
    close6(
        us(ev.stages[1].visible_s),
        3.496960 + 0.718489 + 0.709102,
        "core visible",
    );
    // TP AR: 6·0.7 µs + 1.5·16384/450e9. FFN AR: 14·0.7 µs + 1.75·16384/450e9.
    assert!((ev.stages[3].t_comm_s - (6.0 * 0.7e-6 + 1.5 * 16384.0 / 450e9)).abs() < 1e-18);
    assert!((ev.stages[6].t_comm_s - (14.0 * 0.7e-6 + 1.75 * 16384.0 / 450e9)).abs() < 1e-18);
    // PP: 3 µs + 16384/50e9.
    assert!((ev.stages[8].t_comm_s - (3e-6 + 16384.0 / 50e9)).abs() < 1e-18);
}

#[test]
fn latency_and_efficiency() {
    let ev = example();
    close6(us(ev.per_layer_s), 71.497067, "per_layer");
    close6(us(ev.per_layer_s * 80.0), 5719.765333, "L·per_layer");
    assert!((ev.score.total_latency_ns - 5_832_554.9).abs() < 0.05);
    assert!((ev.score.throughput_tok_s() - 171.4515).abs() < 5e-5);
    assert!((ev.score.system_throughput_tok_s() - 171.4515).abs() < 5e-5);

    let e = &ev.efficiency;
    assert_eq!(e.layers, 40);
    let sum_flops_pe: f64 = ev
        .stages
        .iter()
        .filter(|s| s.group != StageGroup::Overhead)
        .map(|s| s.flops_pe)
        .sum();
    assert_eq!(sum_flops_pe, 385_875_968.0);
    assert_eq!(e.total_flops, 40.0 * 8.0 * 385_875_968.0);
    assert_eq!(e.total_bytes, 85_940_961_280.0);
    assert!((e.compute_util - 0.00133790).abs() < 5e-9);
    assert!((e.bw_util - 0.19185811).abs() < 5e-9);
    assert!((e.score - 0.0160214).abs() < 5e-8);

    let model = ModelConfig::preset("llama3.1-70b").unwrap();
    let machine = MachineParams::preset("h200-hgx").unwrap();
    let corrected = ScoreOptions {
        efficiency: EfficiencyMode::Corrected,
        ..ScoreOptions::default()
    };
    let c = evaluate(&model, &machine, &TopologyConfig::default(), corrected).unwrap();
    assert_eq!(c.efficiency.layers, 80);
    assert!((c.efficiency.score - 0.0320429).abs() < 5e-8);
    assert_eq!(c.score.total_latency_ns, ev.score.total_latency_ns);
}

#[test]
fn memory_terms() {
    let ev = example();
    let m = &ev.memory;
    assert_eq!(m.layers_pe, 40);
    assert_eq!(m.attn_w_params + m.ffn_w_params, 125_845_504.0);
    assert_eq!(m.ffn_w_params, 88_080_384.0);
    assert_eq!(m.emb_params, 262_668_288.0);
    assert_eq!(m.weights_bytes, 10_592_976_896.0);
    assert_eq!(m.kv_cache_bytes, 671_088_640.0);
    assert_eq!((m.attn_ws_bytes, m.ffn_ws_bytes), (41_984.0, 47_104.0));
    assert_eq!((m.ring_ws_bytes, m.logits_bytes), (16_640.0, 128_256.0));
    assert_eq!(m.transient_bytes, 192_000.0);
    assert_eq!(m.used_bytes, 11_264_257_536.0);
    assert!((m.budget_bytes - 126.9e9).abs() < 1e-3);
    assert!((m.hbm_utilization - 0.0887648).abs() < 5e-8);
    assert!(!m.over_budget);
    assert_eq!(ev.config.reason, "");
    assert!(ev.config.fits_memory && ev.config.placement_valid);
    assert_eq!(ev.config.weights_gb, 10.592976896);
}

#[test]
fn fast_path_equals_breakdown() {
    let model = ModelConfig::preset("deepseek-v3").unwrap();
    let machine = MachineParams::preset("tile-wafer").unwrap();
    for mode in [Mode::Decode, Mode::Prefill] {
        for scope in Scope::ALL {
            let opts = ScoreOptions {
                scope: *scope,
                ..ScoreOptions::default()
            };
            let scorer = Scorer::new(&model, &machine, mode, opts).unwrap();
            let base = TopologyConfig {
                s_kv: 4096,
                batch: 8,
                ep: 4,
                mode,
                ..TopologyConfig::default()
            };
            for_each_config(&model, &base, |t| {
                let fast = scorer.score(t);
                let full = scorer.evaluate(t);
                assert_eq!(fast, full.score, "{t:?}");
            });
        }
    }
}

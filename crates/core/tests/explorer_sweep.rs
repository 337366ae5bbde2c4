//! Enumeration, ordering, reasons, SLA filters, batch sweep, sensitivity, and robustness.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

mod common;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use shardscope_core::explorer::*;

fn m(name: &str) -> ModelConfig {
    ModelConfig::preset(name).unwrap()
}
fn h(name: &str) -> MachineParams {
    MachineParams::preset(name).unwrap()
}

#[test]
fn enumeration_follows_the_seed() {
    let model = m("llama3.1-70b");
    let all = enumerate_configs(&model, &TopologyConfig::default());
    assert_eq!(all.len(), 28_800);
    // The first configs: cp 1, tp 1, pp 1, dp 1, split, TP, pe, cube, kv (no qoml at cp 1).
    let first = all[0];
    assert_eq!((first.cp, first.tp, first.pp, first.dp), (1, 1, 1, 1));
    assert_eq!(
        (
            first.kv_shard_mode,
            first.ffn_shard_scope,
            first.tp_placement,
            first.cp_placement,
            first.cp_ring_variant
        ),
        (
            KvShardMode::Split,
            FfnShardScope::Tp,
            PlacementKind::Pe,
            PlacementKind::Cube,
            RingVariant::Kv
        )
    );
    assert_eq!(all[1].cp_placement, PlacementKind::Pe);
    assert_eq!(all[2].tp_placement, PlacementKind::Cube);
    assert_eq!(all[4].ffn_shard_scope, FfnShardScope::TpCp);
    assert_eq!(all[8].kv_shard_mode, KvShardMode::Replicate);
    assert_eq!(all[16].dp, 2);
    // Pruning rules.
    assert!(all
        .iter()
        .all(|t| !(t.cp == 1 && t.cp_ring_variant == RingVariant::Qoml)));
    assert!(all
        .iter()
        .all(|t| !(t.dp == 1 && t.ffn_shard_scope == FfnShardScope::TpCpDp)));
    let last = all[all.len() - 1];
    assert_eq!((last.cp, last.tp, last.pp, last.dp), (96, 32, 16, 4));
    assert_eq!(last.cp_ring_variant, RingVariant::Qoml);
    // Nested-loop order: the key tuple is strictly increasing.
    let rank = |t: &TopologyConfig| {
        let pos = |v: u32, opts: &[u32]| opts.iter().position(|&o| o == v).unwrap();
        (
            pos(t.cp, &CP_OPTIONS),
            pos(t.tp, &TP_OPTIONS),
            pos(t.pp, &PP_OPTIONS),
            pos(t.dp, &DP_OPTIONS),
            t.kv_shard_mode as u8,
            t.ffn_shard_scope as u8,
            t.tp_placement as u8,
            1 - t.cp_placement as u8, // cube before pe
            t.cp_ring_variant as u8,
        )
    };
    assert!(all.windows(2).all(|w| rank(&w[0]) < rank(&w[1])));

    // tp ≤ 4·h_q and pp ≤ L prune a tiny model.
    let tiny = ModelConfig::from_json(
        r#"{"layers": 3, "d_model": 64, "h_q": 2, "h_kv": 1, "d_head": 32, "d_ff": 128, "vocab": 100}"#,
    )
    .unwrap();
    let t = enumerate_configs(&tiny, &TopologyConfig::default());
    assert!(t.iter().all(|c| c.tp <= 8 && c.pp <= 2));
    assert_eq!(t.len(), 28_800 / 6 * 4 / 5 * 2);
}

#[test]
fn all_scores_sorted_stably_with_reasons() {
    let model = m("llama3.1-405b");
    let machine = h("h100-hgx");
    let req = SweepRequest {
        s_kv: 131072,
        mode: Mode::Prefill,
        ..SweepRequest::default()
    };
    let (rep, sw) = explore(&model, &machine, &req, true).unwrap();
    let all = rep.all.unwrap();
    let order = sw.latency_order();
    // Stable: equal latencies keep enumeration order.
    for w in order.windows(2) {
        let (a, b) = (&sw.scores[w[0] as usize], &sw.scores[w[1] as usize]);
        assert!(a.total_latency_ns.total_cmp(&b.total_latency_ns).is_le());
        if a.total_latency_ns == b.total_latency_ns {
            assert!(w[0] < w[1]);
        }
    }
    // Reason strings: memory first (two decimals), then placement.
    let mem = all.iter().find(|c| !c.fits_memory).unwrap();
    assert!(
        mem.reason.starts_with("weights+KV+transient (") && mem.reason.ends_with(" GB)"),
        "{}",
        mem.reason
    );
    assert!(mem.reason.contains(" GB) exceeds per-PE budget (72.00 GB)"));
    let place = all
        .iter()
        .find(|c| c.fits_memory && !c.placement_valid)
        .unwrap();
    assert!(
        place.reason.starts_with("intra-cube demand (")
            && place.reason.contains("exceeds PEs/cube (8)"),
        "{}",
        place.reason
    );
    assert_eq!(rep.pareto.len(), sw.frontier.len());
    assert!(rep
        .pareto
        .iter()
        .all(|c| c.feasible() && c.reason.is_empty()));
}

#[test]
fn ep_reasons_are_appended() {
    let model = m("mixtral-8x7b");
    let machine = h("h200-hgx");
    let req = SweepRequest {
        ep: 4,
        s_kv: 4096,
        ..SweepRequest::default()
    };
    let (rep, _) = explore(&model, &machine, &req, true).unwrap();
    let all = rep.all.unwrap();
    assert!(all.iter().all(|c| c.ep == 4));
    let r = all
        .iter()
        .find(|c| c.fits_memory && c.tp == 2 && c.ffn_shard_scope == FfnShardScope::Tp)
        .unwrap();
    assert_eq!(r.reason, "FFN group size (2) is not a multiple of ep (4)");
    let both = all
        .iter()
        .find(|c| {
            c.fits_memory
                && c.tp == 16
                && c.cp == 1
                && c.tp_placement == PlacementKind::Pe
                && c.ffn_shard_scope == FfnShardScope::Tp
        })
        .unwrap();
    assert_eq!(both.reason, "intra-cube demand (16) exceeds PEs/cube (8)");
    let both = all
        .iter()
        .find(|c| {
            c.fits_memory
                && c.tp == 16
                && c.cp == 2
                && c.tp_placement == PlacementKind::Pe
                && c.cp_placement == PlacementKind::Pe
        })
        .unwrap();
    assert_eq!(both.reason, "intra-cube demand (32) exceeds PEs/cube (8)");
    // A dense model with ep > 1: every config is placement-invalid.
    let dense = explore(
        &m("llama3.1-8b"),
        &machine,
        &SweepRequest {
            ep: 2,
            ..SweepRequest::default()
        },
        false,
    )
    .unwrap()
    .0;
    assert_eq!(dense.total_feasible, 0);
    assert!(dense.pareto.is_empty());
}

#[test]
fn sla_filters_before_the_frontier() {
    let model = m("llama3.1-70b");
    let machine = h("h200-hgx");
    let base = SweepRequest::default();
    let plain = sweep(&model, &machine, &base).unwrap();
    let tpot = SweepRequest {
        sla: Some(Sla {
            tpot_max_ms: Some(6.5),
            ..Sla::default()
        }),
        ..base
    };
    let f = sweep(&model, &machine, &tpot).unwrap();
    assert_eq!(f.total_feasible, plain.total_feasible);
    let within = f.total_within_sla.unwrap();
    let expect = plain
        .scores
        .iter()
        .filter(|s| s.feasible() && s.total_latency_ns <= 6.5e6)
        .count();
    assert_eq!(within, expect);
    assert!(f.frontier_scores().all(|s| s.total_latency_ns <= 6.5e6));
    // The filtered frontier is the frontier of the filtered set.
    let pts: Vec<(usize, ParetoPoint)> = plain
        .scores
        .iter()
        .enumerate()
        .filter(|(_, s)| s.feasible() && s.total_latency_ns <= 6.5e6)
        .map(|(i, s)| {
            (
                i,
                ParetoPoint {
                    latency: s.total_latency_ns,
                    pes: s.pes_used,
                    efficiency: s.efficiency_score,
                },
            )
        })
        .collect();
    let only: Vec<ParetoPoint> = pts.iter().map(|p| p.1).collect();
    let mut want: Vec<u32> = pareto_front_naive(&only)
        .into_iter()
        .map(|k| pts[k].0 as u32)
        .collect();
    want.sort_by(|a, b| {
        plain.scores[*a as usize]
            .total_latency_ns
            .total_cmp(&plain.scores[*b as usize].total_latency_ns)
            .then(a.cmp(b))
    });
    assert_eq!(f.frontier, want);

    // TTFT in a decode run scores prefill of the prompt on the side.
    let ttft = SweepRequest {
        sla: Some(Sla {
            ttft_max_ms: Some(1500.0),
            prompt_len: Some(8192),
            ..Sla::default()
        }),
        ..base
    };
    let t = sweep(&model, &machine, &ttft).unwrap();
    let prefill_scorer =
        Scorer::new(&model, &machine, Mode::Prefill, ScoreOptions::default()).unwrap();
    for (i, s) in t.scores.iter().enumerate().step_by(97) {
        let o = t.sla[i];
        let p = prefill_scorer.score(&TopologyConfig {
            s_kv: 8192,
            ..s.topo
        });
        assert_eq!(o.ttft_ns, Some(p.total_latency_ns));
        assert_eq!(o.ok, p.total_latency_ns <= 1500.0 * 1e6);
        assert_eq!(o.tpot_ns, None);
    }
    assert!(t.total_within_sla.unwrap() > 0);
    assert!(t.total_within_sla.unwrap() < t.total_feasible);
    // In a decode run whose prompt is its own sequence, TTFT is still a prefill.
    let own = SweepRequest {
        sla: Some(Sla {
            ttft_max_ms: Some(1500.0),
            ..Sla::default()
        }),
        ..base
    };
    let t = sweep(&model, &machine, &own).unwrap();
    for (i, s) in t.scores.iter().enumerate().step_by(101) {
        let p = prefill_scorer.score(&TopologyConfig {
            s_kv: base.s_kv,
            ..s.topo
        });
        assert_eq!(t.sla[i].ttft_ns, Some(p.total_latency_ns));
    }
    // In a prefill run, TTFT is the run's own latency when the prompt is its sequence,
    // and the prompt's prefill otherwise; TPOT is decode at the run's sequence.
    let decode_scorer =
        Scorer::new(&model, &machine, Mode::Decode, ScoreOptions::default()).unwrap();
    for prompt_len in [None, Some(4096), Some(16384)] {
        let pre = SweepRequest {
            mode: Mode::Prefill,
            s_kv: 4096,
            sla: Some(Sla {
                ttft_max_ms: Some(400.0),
                tpot_max_ms: Some(30.0),
                prompt_len,
            }),
            ..base
        };
        let r = sweep(&model, &machine, &pre).unwrap();
        let prompt = prompt_len.unwrap_or(4096);
        for (i, s) in r.scores.iter().enumerate().step_by(89) {
            let o = r.sla[i];
            let ttft = if prompt == 4096 {
                s.total_latency_ns
            } else {
                prefill_scorer
                    .score(&TopologyConfig {
                        s_kv: prompt,
                        ..s.topo
                    })
                    .total_latency_ns
            };
            let tpot = decode_scorer
                .score(&TopologyConfig {
                    s_kv: 4096,
                    ..s.topo
                })
                .total_latency_ns;
            assert_eq!(o.ttft_ns, Some(ttft), "{prompt_len:?}");
            assert_eq!(o.tpot_ns, Some(tpot), "{prompt_len:?}");
            assert_eq!(o.ok, ttft <= 400.0 * 1e6 && tpot <= 30.0 * 1e6);
        }
    }
    // Bad SLA values are typed errors.
    let bad = SweepRequest {
        sla: Some(Sla {
            tpot_max_ms: Some(f64::NAN),
            ..Sla::default()
        }),
        ..base
    };
    assert_eq!(
        sweep(&model, &machine, &bad).unwrap_err().field(),
        Some("sla_tpot_ms")
    );
}

#[test]
fn batch_sweep_reports_serving_metrics() {
    let model = m("llama3.1-70b");
    let machine = h("h200-hgx");
    let batches = [1, 8, 64];
    let rep = batch_sweep(&model, &machine, &SweepRequest::default(), &batches).unwrap();
    assert_eq!(rep.batches.len(), 3);
    assert_eq!(rep.batches[0].total_feasible, 16_352);
    assert_eq!(rep.batches[0].pareto.len(), 54);
    for b in &rep.batches {
        let single = sweep(
            &model,
            &machine,
            &SweepRequest {
                batch: b.batch,
                ..SweepRequest::default()
            },
        )
        .unwrap();
        assert_eq!(b.total_feasible, single.total_feasible);
        assert_eq!(b.pareto.len(), single.frontier.len());
        for p in &b.pareto {
            let c = &p.config;
            assert_eq!(c.batch, b.batch);
            let sys = f64::from(c.dp) * f64::from(c.batch) / (c.total_latency_ns / 1e9);
            assert!((p.system_throughput_tok_s - sys).abs() <= 1e-9 * sys);
            assert!((p.throughput_per_pe_tok_s - sys / c.pes_used as f64).abs() <= 1e-9 * sys);
        }
        let best = b.best_throughput_per_pe.as_ref().unwrap();
        let max = single
            .scores
            .iter()
            .filter(|s| s.feasible())
            .map(Score::throughput_per_pe_tok_s)
            .fold(0.0, f64::max);
        assert_eq!(best.throughput_per_pe_tok_s, max);
    }
    // Memory limits the batch: fewer configs fit at B = 64 than at B = 1.
    assert!(rep.batches[2].total_feasible < rep.batches[0].total_feasible);
    // Prefill system throughput counts S tokens per request.
    let pre = batch_sweep(
        &model,
        &machine,
        &SweepRequest {
            mode: Mode::Prefill,
            s_kv: 4096,
            ..SweepRequest::default()
        },
        &[2],
    )
    .unwrap();
    let p = &pre.batches[0].pareto[0];
    let want = f64::from(p.config.dp) * 2.0 * 4096.0 / (p.config.total_latency_ns / 1e9);
    assert!((p.system_throughput_tok_s - want).abs() <= 1e-9 * want);
    // The report names calibrated time scales, and only those.
    assert_eq!(rep.time_scales, None);
    let scaled = TimeScales::uniform(2.0);
    let cal = batch_sweep(
        &model,
        &machine,
        &SweepRequest {
            options: ScoreOptions {
                scales: scaled,
                ..ScoreOptions::default()
            },
            ..SweepRequest::default()
        },
        &[1],
    )
    .unwrap();
    assert_eq!(cal.time_scales, Some(scaled));
    assert_eq!(
        cal.batches[0].pareto[0].config.total_latency_ns,
        2.0 * rep.batches[0].pareto[0].config.total_latency_ns
    );
    // Bad lists.
    assert!(batch_sweep(&model, &machine, &SweepRequest::default(), &[]).is_err());
    assert!(batch_sweep(&model, &machine, &SweepRequest::default(), &[4, 4]).is_err());
    assert!(batch_sweep(&model, &machine, &SweepRequest::default(), &[0]).is_err());
    // JSON: the ConfigScore fields flattened, plus the two serving fields.
    let j = serde_json::to_value(&rep).unwrap();
    let first = &j["batches"][0]["pareto"][0];
    assert!(first["cp"].is_u64() && first["system_throughput_tok_s"].is_f64());
    assert!(first["throughput_per_pe_tok_s"].is_f64() && first["reason"].is_string());
}

#[test]
fn sensitivity_g3_over_tp() {
    let model = m("llama3.1-70b");
    let machine = h("h200-hgx");
    let g3 = TopologyConfig {
        cp: 1,
        tp: 8,
        pp: 1,
        dp: 1,
        s_kv: 4096,
        ffn_shard_scope: FfnShardScope::Tp,
        cp_placement: PlacementKind::Cube,
        cp_ring_variant: RingVariant::Kv,
        ..TopologyConfig::default()
    };
    let rep = sensitivity(&model, &machine, &g3, ScoreOptions::default()).unwrap();
    let knobs: Vec<Knob> = rep.rows.iter().map(|r| r.knob).collect();
    assert_eq!(knobs, [Knob::Cp, Knob::Tp, Knob::Pp, Knob::Dp, Knob::Ep]);
    assert!((rep.baseline.total_latency_ns - 5235060.475555556).abs() < 1e-3);
    let tp = &rep.rows[1];
    assert_eq!(tp.values, [1, 2, 4, 6, 8, 10, 12, 14, 16, 24, 32, 48, 64]);
    assert_eq!(tp.baseline_value, 8);
    let at = |v: u32| tp.values.iter().position(|&x| x == v).unwrap();
    assert!(!tp.fits[at(1)]); // over budget
    assert!(!tp.fits[at(16)]); // placement-invalid on an 8-PE cube
    let fastest_feasible = tp
        .values
        .iter()
        .enumerate()
        .filter(|(i, _)| tp.fits[*i])
        .min_by(|a, b| tp.latencies_ns[a.0].total_cmp(&tp.latencies_ns[b.0]))
        .unwrap();
    assert_eq!(*fastest_feasible.1, 8);
    assert!((tp.latencies_ns[at(8)] / 1e6 - 5.235).abs() < 5e-4);
    for v in [10, 12, 14] {
        assert!(tp.latencies_ns[at(v)] < tp.latencies_ns[at(8)], "tp {v}");
        assert!(!tp.fits[at(v)]);
    }
    assert!(tp.latencies_ns.iter().all(|x| x.is_finite()));
    // PP beyond L = 80 never happens for these values; for an 8-layer model it is NaN.
    let pp = &rep.rows[2];
    assert!(pp.latencies_ns.iter().all(|x| x.is_finite()));
    // EP on a dense model is infeasible (placement) but still has a latency.
    let ep = &rep.rows[4];
    assert!(ep.fits[0] && ep.fits[1..].iter().all(|f| !f));
    assert!(ep.latencies_ns.iter().all(|x| x.is_finite()));

    let small = ModelConfig::from_json(
        r#"{"layers": 8, "d_model": 512, "h_q": 4, "h_kv": 2, "d_head": 128, "d_ff": 1024, "vocab": 1000}"#,
    )
    .unwrap();
    let r = sensitivity(
        &small,
        &machine,
        &TopologyConfig::default(),
        ScoreOptions::default(),
    )
    .unwrap();
    let pp = &r.rows[2];
    for (v, lat) in pp.values.iter().zip(&pp.latencies_ns) {
        assert_eq!(lat.is_nan(), *v > 8, "pp {v}");
    }
    let tp = &r.rows[1];
    for (i, v) in tp.values.iter().enumerate() {
        assert_eq!(tp.latencies_ns[i].is_nan(), *v > 16, "tp {v}");
        if *v > 16 {
            assert!(!tp.fits[i]);
        }
    }
    // JSON: NaN as null, and back.
    let j = serde_json::to_string(&r).unwrap();
    assert!(j.contains("null"));
    let back: SensitivityReport = serde_json::from_str(&j).unwrap();
    assert!(back.rows[2].latencies_ns.last().unwrap().is_nan());
    // serde_json parses floats to within an ulp (no `float_roundtrip` feature).
    for (a, b) in back.rows.iter().zip(&r.rows) {
        assert_eq!((a.knob, &a.values, &a.fits), (b.knob, &b.values, &b.fits));
        for (x, y) in a.latencies_ns.iter().zip(&b.latencies_ns) {
            assert!(x.is_nan() && y.is_nan() || ((x - y) / y).abs() < 1e-15);
        }
    }
    // ep and batch are stored and round-trip.
    let moe = TopologyConfig {
        ep: 2,
        batch: 4,
        s_kv: 4096,
        ..TopologyConfig::default()
    };
    let r = sensitivity(&m("mixtral-8x7b"), &machine, &moe, ScoreOptions::default()).unwrap();
    assert_eq!((r.baseline.ep, r.baseline.batch), (2, 4));
    assert_eq!(r.baseline.as_topology(4096, Mode::Decode), moe);
    assert_eq!(r.rows[4].baseline_value, 2);
}

#[test]
fn explore_json_shape() {
    let (rep, _) = explore(
        &m("llama3.1-70b"),
        &h("h200-hgx"),
        &SweepRequest::default(),
        false,
    )
    .unwrap();
    let j = serde_json::to_value(&rep).unwrap();
    let keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = vec![
        "model",
        "machine",
        "s_kv",
        "mode",
        "batch",
        "ep",
        "scope",
        "efficiency",
        "total_enumerated",
        "total_feasible",
        "pareto",
    ];
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    want.sort_unstable();
    assert_eq!(sorted, want);
    let c = &j["pareto"][0];
    let mut fields: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    fields.sort_unstable();
    let mut want = vec![
        "cp",
        "tp",
        "pp",
        "dp",
        "ep",
        "batch",
        "kv_shard_mode",
        "ffn_shard_scope",
        "tp_placement",
        "cp_placement",
        "cp_ring_variant",
        "total_latency_ns",
        "throughput_tok_s",
        "efficiency_score",
        "pes_used",
        "hbm_utilization",
        "weights_gb",
        "kv_gb",
        "transient_gb",
        "sips_used",
        "fits_memory",
        "placement_valid",
        "reason",
    ];
    want.sort_unstable();
    assert_eq!(fields, want);
    assert_eq!(c["total_latency_ns"].as_f64(), Some(5479728.208888889));
    assert_eq!(c["ffn_shard_scope"], "TP");
    assert_eq!(j["mode"], "decode");
    let back: ExploreReport = serde_json::from_value(j).unwrap();
    assert_eq!(back.pareto.len(), rep.pareto.len());
    for (a, b) in back.pareto.iter().zip(&rep.pareto) {
        assert_eq!(
            a.as_topology(1, Mode::Decode),
            b.as_topology(1, Mode::Decode)
        );
        assert!(((a.total_latency_ns - b.total_latency_ns) / b.total_latency_ns).abs() < 1e-15);
        assert_eq!(a.reason, b.reason);
    }
}

static VALID_CASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn arb_model() -> impl Strategy<Value = ModelConfig> {
    // Mostly valid shapes (so the formulas run), with zeros, huge and NaN values mixed in.
    let dim = prop_oneof![
        1 => Just(0u64),
        60 => 1u64..64,
        1 => Just(1u64 << 32),
        1 => Just(u64::MAX),
    ];
    let width = prop_oneof![
        1 => Just(0.0),
        1 => Just(f64::NAN),
        1 => Just(1e300),
        60 => 0.5f64..4.0,
    ];
    (
        (
            dim.clone(),
            dim.clone(),
            1u64..9,
            1u64..9,
            dim.clone(),
            prop::bool::weighted(0.05),
        ),
        (dim.clone(), dim.clone(), 0u64..9, 0u64..4, dim),
        (0u64..3, 0u64..4, any::<bool>(), any::<bool>()),
        (width, 0.5f64..4.0),
    )
        .prop_map(
            |(
                (layers, d, hkv, mult, dh, odd),
                (dff, vocab, e, k, de),
                (es, ld, tied, mla),
                (bw, ba),
            )| {
                ModelConfig {
                    name: "fuzz".into(),
                    layers,
                    d_model: d,
                    h_q: if odd { hkv * mult + 1 } else { hkv * mult },
                    h_kv: hkv,
                    d_head: dh,
                    d_ff: dff,
                    vocab,
                    n_experts: e,
                    top_k: k.min(e),
                    d_ff_expert: de,
                    n_shared: es,
                    n_dense_layers: ld,
                    tied_embeddings: tied,
                    mla: mla.then_some(Mla {
                        r_q: 16,
                        r_kv: 8,
                        d_nope: 4,
                        d_rope: 2,
                        d_vh: 4,
                    }),
                    b_w: bw,
                    b_kv: ba,
                    b_a: ba,
                }
            },
        )
}

fn arb_machine() -> impl Strategy<Value = MachineParams> {
    let pos = prop_oneof![
        1 => Just(0.0),
        1 => Just(-1.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(1e300),
        60 => 1e-3f64..1e15,
    ];
    (
        (pos.clone(), pos.clone(), pos.clone()),
        (
            prop_oneof![1 => Just(0.0), 1 => Just(1.5), 30 => 0.01f64..1.0],
            prop_oneof![1 => Just(0u64), 30 => 1u64..20],
            prop_oneof![1 => Just(0u64), 30 => 1u64..5],
        ),
        (
            pos.clone(),
            pos,
            prop_oneof![Just(None), (0u64..4).prop_map(Some)],
        ),
    )
        .prop_map(|((f, bw, hbm), (frac, pc, cs), (lbw, alpha, cap))| {
            let l = Level {
                bw_bytes_per_s: lbw,
                alpha_s: alpha.abs(),
            };
            MachineParams {
                name: "fuzz".into(),
                peak_flops_per_s: f,
                bw_hbm_bytes_per_s: bw,
                hbm_bytes: hbm,
                hbm_usable_frac: frac,
                pes_per_cube: pc,
                cubes_per_sip: cs,
                l0: l,
                l1: l,
                l2: l,
                eta_flops: 1.0,
                eta_bw: 1.0,
                stage_overhead_s: 0.0,
                max_sips: cap,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(300)))]

    /// Any model, machine and topology: a typed error or a value, never a panic.
    #[test]
    fn never_panics(
        model in arb_model(),
        machine in arb_machine(),
        knobs in (0u32..200, 0u32..200, 0u32..40, 0u32..9, 0u32..20, 0u32..600),
        s_kv in prop_oneof![Just(0u64), 1u64..200_000, Just(u64::MAX)],
        prefill in any::<bool>(),
    ) {
        let mode = if prefill { Mode::Prefill } else { Mode::Decode };
        let topo = TopologyConfig {
            cp: knobs.0, tp: knobs.1, pp: knobs.2, dp: knobs.3, ep: knobs.4, batch: knobs.5,
            s_kv, mode, ..TopologyConfig::default()
        };
        let _ = score_config(&model, &machine, &topo, ScoreOptions::default());
        let _ = evaluate(&model, &machine, &topo, ScoreOptions::default());
        let _ = sensitivity(&model, &machine, &topo, ScoreOptions::default());
        // Unvalidated inputs straight into the scorer's formulas: values, never panics.
        if let (Ok(()), Ok(())) = (model.validate(), machine.validate()) {
            VALID_CASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let scorer = Scorer::new(&model, &machine, mode, ScoreOptions::default()).unwrap();
            let s = scorer.score(&topo);
            let c = s.to_config_score(&model, &machine);
            prop_assert_eq!(c.reason.is_empty(), c.feasible());
            let req = SweepRequest { s_kv: s_kv.clamp(1, 1 << 20), mode, ..SweepRequest::default() };
            let sw = sweep(&model, &machine, &req).unwrap();
            prop_assert!(sw.frontier.len() <= sw.total_feasible);
        }
    }
}

#[test]
fn fuzz_reaches_the_formulas() {
    // Run the property body on a fixed valid/invalid mix and check valid inputs occur.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut valid = 0;
    for _ in 0..200 {
        let m = arb_model().new_tree(&mut runner).unwrap().current();
        let h = arb_machine().new_tree(&mut runner).unwrap().current();
        if m.validate().is_ok() && h.validate().is_ok() {
            valid += 1;
        }
    }
    assert!(valid >= 50, "only {valid} of 200 fuzz inputs are valid");
    let _ = VALID_CASES.load(std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn pruning_bounds_are_inclusive() {
    // tp ≤ 4·h_q and pp ≤ L hold with equality: h_q = 2 allows tp 8, L = 4 allows pp 4.
    let model = ModelConfig::from_json(
        r#"{"layers": 4, "d_model": 64, "h_q": 2, "h_kv": 1, "d_head": 32, "d_ff": 128,
            "vocab": 100}"#,
    )
    .unwrap();
    let (mut max_tp, mut max_pp, mut n) = (0, 0, 0);
    for_each_config(&model, &TopologyConfig::default(), |t| {
        max_tp = max_tp.max(t.tp);
        max_pp = max_pp.max(t.pp);
        n += 1;
    });
    assert_eq!((max_tp, max_pp), (8, 4));
    // cp 8 options × tp 4 × pp 3 × (dp 1: 2 scopes, dp 2 and 4: 3) × kv 2 × placements 4,
    // rings: 1 for cp = 1, 2 otherwise.
    assert_eq!(n, (1 + 7 * 2) * 4 * 3 * (2 + 3 + 3) * 2 * 4);
}

#[test]
fn sla_prompt_lengths_are_bounded_on_both_sides() {
    let model = m("llama3.1-8b");
    let machine = h("h200-hgx");
    let with = |prompt_len: u64| SweepRequest {
        sla: Some(Sla {
            ttft_max_ms: Some(100.0),
            prompt_len: Some(prompt_len),
            ..Sla::default()
        }),
        ..SweepRequest::default()
    };
    for bad in [0, MAX_S_KV + 1] {
        let e = with(bad).validate().unwrap_err();
        assert_eq!(e.field(), Some("prompt_len"), "{bad}");
    }
    // Bounds must be positive, finite numbers of milliseconds.
    let bound = |tpot: f64, ttft: f64| SweepRequest {
        sla: Some(Sla {
            tpot_max_ms: Some(tpot),
            ttft_max_ms: Some(ttft),
            prompt_len: None,
        }),
        ..SweepRequest::default()
    };
    assert_eq!(bound(1e-9, 1e9).validate(), Ok(()));
    for (tpot, ttft, field) in [
        (0.0, 1.0, "sla_tpot_ms"),
        (-1.0, 1.0, "sla_tpot_ms"),
        (f64::INFINITY, 1.0, "sla_tpot_ms"),
        (1.0, 0.0, "sla_ttft_ms"),
        (1.0, f64::INFINITY, "sla_ttft_ms"),
    ] {
        let e = bound(tpot, ttft).validate().unwrap_err();
        assert_eq!(e.field(), Some(field), "{tpot} {ttft}");
    }
    for ok in [1, MAX_S_KV] {
        assert_eq!(with(ok).validate(), Ok(()), "{ok}");
    }
    assert!(sweep(&model, &machine, &with(0)).is_err());
}

#[test]
fn batch_lists_are_bounded_and_empty_slas_are_left_out() {
    let sizes: Vec<u32> = (1..=64).collect();
    assert_eq!(validate_batches(&sizes), Ok(()));
    let too_many: Vec<u32> = (1..=65).collect();
    assert_eq!(
        validate_batches(&too_many).unwrap_err().field(),
        Some("batch_sweep")
    );
    assert_eq!(validate_batches(&[MAX_BATCH]), Ok(()));
    assert!(validate_batches(&[MAX_BATCH + 1]).is_err());
    assert!(validate_batches(&[2, 0]).is_err());
    // An SLA without a bound is no SLA: not reported, nothing filtered.
    let model = m("llama3.1-8b");
    let machine = h("h200-hgx");
    let empty = SweepRequest {
        sla: Some(Sla {
            prompt_len: Some(128),
            ..Sla::default()
        }),
        ..SweepRequest::default()
    };
    assert!(empty.sla.unwrap().is_empty());
    let (report, sw) = explore(&model, &machine, &empty, false).unwrap();
    assert_eq!((report.sla, report.total_within_sla), (None, None));
    assert!(sw.sla.is_empty());
    let batches = batch_sweep(&model, &machine, &empty, &[1]).unwrap();
    assert_eq!(batches.sla, None);
    assert!(!Sla {
        ttft_max_ms: Some(1.0),
        ..Sla::default()
    }
    .is_empty());
}

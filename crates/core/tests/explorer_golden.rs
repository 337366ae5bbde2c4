//! Golden regression values of docs/explorer-model.md §10 (G1–G14 at full precision) and the
//! full-sweep check. The numbers are copied here; nothing is read from outside the repo.

use shardscope_core::explorer::*;

struct Golden {
    id: &'static str,
    model: &'static str,
    machine: &'static str,
    mode: Mode,
    s_kv: u64,
    batch: u32,
    knobs: [u32; 5], // cp tp pp dp ep
    kv: KvShardMode,
    scope: FfnShardScope,
    tpp: PlacementKind,
    cpp: PlacementKind,
    ring: RingVariant,
    stage_scope: Scope,
    eff_mode: EfficiencyMode,
    latency_ns: f64,
    efficiency: f64,
    used_bytes: f64,
    fits: bool,
    valid: bool,
    sips: u64,
}

use EfficiencyMode::{Corrected, Seed};
use FfnShardScope::{Tp as STp, TpCp as STpCp, TpCpDp as STpCpDp};
use KvShardMode::{Replicate, Split};
use Mode::{Decode, Prefill};
use PlacementKind::{Cube, Pe};
use RingVariant::{Kv, Qoml};

#[rustfmt::skip]
const GOLDEN: &[Golden] = &[
    Golden { id: "G1", model: "llama3.1-70b", machine: "h200-hgx", mode: Decode, s_kv: 32768, batch: 1, knobs: [2, 4, 2, 1, 1], kv: Split, scope: STpCp, tpp: Pe, cpp: Pe, ring: Qoml, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 5832554.906666666, efficiency: 0.01602143365449399, used_bytes: 11264257536.0, fits: true, valid: true, sips: 2 },
    Golden { id: "G2", model: "llama3.1-8b", machine: "h200-hgx", mode: Decode, s_kv: 4096, batch: 1, knobs: [1, 1, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 3239799.9999999995, efficiency: 0.06846114048414349, used_bytes: 16597971968.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G3", model: "llama3.1-70b", machine: "h200-hgx", mode: Decode, s_kv: 4096, batch: 1, knobs: [1, 8, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 5235060.475555556, efficiency: 0.04952407057704054, used_bytes: 17808601728.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G4", model: "llama3.1-405b", machine: "h100-hgx", mode: Prefill, s_kv: 131072, batch: 1, knobs: [16, 8, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 1657735877.5473375, efficiency: 0.2507814676191317, used_bytes: 102762478208.0, fits: false, valid: true, sips: 16 },
    Golden { id: "G5", model: "llama3.1-405b", machine: "h200-hgx", mode: Decode, s_kv: 131072, batch: 1, knobs: [4, 8, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Qoml, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 25562188.866666663, efficiency: 0.0666185907923649, used_bytes: 103584670592.0, fits: true, valid: true, sips: 4 },
    Golden { id: "G6", model: "mixtral-8x7b", machine: "h200-hgx", mode: Decode, s_kv: 4096, batch: 1, knobs: [1, 2, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 2804059.5377777773, efficiency: 0.06877082782743882, used_bytes: 46972705280.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G7", model: "deepseek-v3", machine: "h200-hgx", mode: Decode, s_kv: 4096, batch: 64, knobs: [1, 8, 1, 1, 8], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 21787235.106494684, efficiency: 0.22907421351236462, used_bytes: 109662107648.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G8", model: "qwen2.5-72b", machine: "tile-wafer", mode: Prefill, s_kv: 8192, batch: 1, knobs: [4, 8, 2, 2, 1], kv: Replicate, scope: STpCpDp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 609319008.2451199, efficiency: 0.031091154539998854, used_bytes: 3466012928.0, fits: true, valid: true, sips: 4 },
    Golden { id: "G9", model: "deepseek-v3", machine: "h200-hgx", mode: Prefill, s_kv: 8192, batch: 1, knobs: [2, 8, 1, 1, 4], kv: Split, scope: STpCp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 322553378.64572424, efficiency: 0.10386308374047773, used_bytes: 47332480128.0, fits: true, valid: true, sips: 2 },
    Golden { id: "G10", model: "mixtral-8x7b", machine: "h200-hgx", mode: Prefill, s_kv: 4096, batch: 4, knobs: [1, 4, 1, 2, 2], kv: Split, scope: STpCpDp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 156771991.62993464, efficiency: 0.2541880308045963, used_bytes: 14159574016.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G11", model: "llama3.1-70b", machine: "h200-hgx", mode: Decode, s_kv: 131072, batch: 1, knobs: [4, 8, 1, 1, 1], kv: Replicate, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Seed, latency_ns: 6924797.008888889, efficiency: 0.04752899846741329, used_bytes: 23009538688.0, fits: true, valid: true, sips: 4 },
    Golden { id: "G12", model: "llama3.1-70b", machine: "h200-hgx", mode: Decode, s_kv: 4096, batch: 1, knobs: [1, 8, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::Attention, eff_mode: Seed, latency_ns: 1454159.6444444442, efficiency: 0.03724496630863531, used_bytes: 17808601728.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G13", model: "llama3.1-70b", machine: "h200-hgx", mode: Decode, s_kv: 4096, batch: 1, knobs: [1, 8, 1, 1, 1], kv: Split, scope: STp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::Ffn, eff_mode: Seed, latency_ns: 3726168.177777778, efficiency: 0.05490301701118675, used_bytes: 17808601728.0, fits: true, valid: true, sips: 1 },
    Golden { id: "G14", model: "qwen2.5-72b", machine: "tile-wafer", mode: Prefill, s_kv: 8192, batch: 1, knobs: [4, 8, 2, 2, 1], kv: Replicate, scope: STpCpDp, tpp: Pe, cpp: Cube, ring: Kv, stage_scope: Scope::All, eff_mode: Corrected, latency_ns: 609319008.2451199, efficiency: 0.06218230907999771, used_bytes: 3466012928.0, fits: true, valid: true, sips: 4 },
];

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

fn topo_of(g: &Golden) -> TopologyConfig {
    TopologyConfig {
        cp: g.knobs[0],
        tp: g.knobs[1],
        pp: g.knobs[2],
        dp: g.knobs[3],
        ep: g.knobs[4],
        batch: g.batch,
        s_kv: g.s_kv,
        mode: g.mode,
        kv_shard_mode: g.kv,
        ffn_shard_scope: g.scope,
        tp_placement: g.tpp,
        cp_placement: g.cpp,
        cp_ring_variant: g.ring,
    }
}

#[test]
fn golden_g1_to_g14() {
    for g in GOLDEN {
        let model = ModelConfig::preset(g.model).unwrap();
        let machine = MachineParams::preset(g.machine).unwrap();
        let opts = ScoreOptions {
            scope: g.stage_scope,
            efficiency: g.eff_mode,
            include_overheads: true,
            scales: Default::default(),
        };
        let topo = topo_of(g);
        let s = score_config(&model, &machine, &topo, opts).unwrap();
        let ev = evaluate(&model, &machine, &topo, opts).unwrap();
        assert!(
            rel(s.total_latency_ns, g.latency_ns) <= 1e-9,
            "{} latency {} vs {}",
            g.id,
            s.total_latency_ns,
            g.latency_ns
        );
        assert!(
            rel(s.efficiency_score, g.efficiency) <= 1e-9,
            "{} efficiency {} vs {}",
            g.id,
            s.efficiency_score,
            g.efficiency
        );
        assert_eq!(ev.memory.used_bytes, g.used_bytes, "{} used bytes", g.id);
        assert_eq!(s.fits_memory, g.fits, "{} fits", g.id);
        assert_eq!(s.placement_valid, g.valid, "{} valid", g.id);
        assert_eq!(s.sips_used, g.sips, "{} sips", g.id);
        assert_eq!(s.reason.is_empty(), g.fits && g.valid, "{} reason", g.id);
        // The breakdown and the fast path agree bit for bit.
        assert_eq!(ev.config, s, "{}", g.id);
        // Round trip of the knobs.
        assert_eq!(s.as_topology(g.s_kv, g.mode), topo, "{}", g.id);
    }
}

#[test]
fn golden_first_table_levels_and_reason() {
    // The last column of the first table: fabric level of TP/CP/FFN.
    let want: [(&str, [FabricLevel; 3]); 8] = [
        ("G1", [FabricLevel::L0; 3]),
        ("G2", [FabricLevel::L0; 3]),
        ("G3", [FabricLevel::L0; 3]),
        ("G4", [FabricLevel::L0, FabricLevel::L2, FabricLevel::L0]),
        ("G5", [FabricLevel::L0, FabricLevel::L2, FabricLevel::L0]),
        ("G6", [FabricLevel::L0; 3]),
        ("G7", [FabricLevel::L0; 3]),
        ("G8", [FabricLevel::L0, FabricLevel::L1, FabricLevel::L2]),
    ];
    for (id, lv) in want {
        let g = GOLDEN.iter().find(|g| g.id == id).unwrap();
        let model = ModelConfig::preset(g.model).unwrap();
        let machine = MachineParams::preset(g.machine).unwrap();
        let p = Placement::new(&topo_of(g), &machine, &model);
        assert_eq!([p.level_tp, p.level_cp, p.level_ffn], lv, "{id}");
    }
    // G4 does not fit in 80 GB: the seed's reason text, two decimals.
    let g = &GOLDEN[3];
    let s = score_config(
        &ModelConfig::preset(g.model).unwrap(),
        &MachineParams::preset(g.machine).unwrap(),
        &topo_of(g),
        ScoreOptions::default(),
    )
    .unwrap();
    assert_eq!(
        s.reason,
        "weights+KV+transient (102.76 GB) exceeds per-PE budget (72.00 GB)"
    );
}

#[test]
fn ring_variant_ordering_anchors() {
    // G4: pass-KV 1.66 s against qoml 3.80 s; G5: qoml 25.6 ms against kv 153 ms.
    let m405 = ModelConfig::preset("llama3.1-405b").unwrap();
    let h100 = MachineParams::preset("h100-hgx").unwrap();
    let h200 = MachineParams::preset("h200-hgx").unwrap();
    let g4 = topo_of(&GOLDEN[3]);
    let g4q = TopologyConfig {
        cp_ring_variant: Qoml,
        ..g4
    };
    let o = ScoreOptions::default();
    let kv = score_config(&m405, &h100, &g4, o).unwrap().latency_ms();
    let q = score_config(&m405, &h100, &g4q, o).unwrap().latency_ms();
    assert!(
        (kv / 1e3 - 1.66).abs() < 0.005 && (q / 1e3 - 3.80).abs() < 0.005,
        "{kv} {q}"
    );
    let g5 = topo_of(&GOLDEN[4]);
    let g5k = TopologyConfig {
        cp_ring_variant: Kv,
        ..g5
    };
    let q = score_config(&m405, &h200, &g5, o).unwrap().latency_ms();
    let kv = score_config(&m405, &h200, &g5k, o).unwrap().latency_ms();
    assert!(
        (q - 25.6).abs() < 0.05 && (kv - 153.0).abs() < 0.5,
        "{q} {kv}"
    );
    // 1M-token prefill on 128 H100s: 44.6 s.
    let long = TopologyConfig {
        s_kv: 1 << 20,
        ..g4
    };
    let s = score_config(&m405, &h100, &long, o).unwrap().latency_ms() / 1e3;
    assert!((s - 44.6).abs() < 0.05, "{s}");
}

#[test]
fn full_sweep_check() {
    let model = ModelConfig::preset("llama3.1-70b").unwrap();
    let machine = MachineParams::preset("h200-hgx").unwrap();
    let req = SweepRequest::default();
    let (report, sw) = explore(&model, &machine, &req, true).unwrap();
    assert_eq!(report.total_enumerated, 28_800);
    assert_eq!(report.total_feasible, 16_352);
    assert_eq!(report.pareto.len(), 54);
    let mut triples: Vec<(u64, u64, u64)> = report
        .pareto
        .iter()
        .map(|c| {
            (
                c.total_latency_ns.to_bits(),
                c.pes_used,
                c.efficiency_score.to_bits(),
            )
        })
        .collect();
    triples.sort_unstable();
    triples.dedup();
    assert_eq!(triples.len(), 9);
    let first = &report.pareto[0];
    assert_eq!(
        (first.cp, first.tp, first.pp, first.dp),
        (1, 8, 1, 1),
        "{first:?}"
    );
    assert_eq!(
        (
            first.kv_shard_mode,
            first.ffn_shard_scope,
            first.tp_placement,
            first.cp_placement,
            first.cp_ring_variant
        ),
        (Split, STp, Pe, Cube, Kv)
    );
    assert!(rel(first.total_latency_ns, 5479728.208888889) <= 1e-9);
    // 23 other configs tie with it bit for bit.
    let ties = report
        .all
        .as_ref()
        .unwrap()
        .iter()
        .filter(|c| c.total_latency_ns == first.total_latency_ns)
        .count();
    assert_eq!(ties, 24);
    // `all` is sorted by latency, infeasible ones included, reasons empty exactly when feasible.
    let all = report.all.as_ref().unwrap();
    assert_eq!(all.len(), 28_800);
    assert!(all
        .windows(2)
        .all(|w| w[0].total_latency_ns <= w[1].total_latency_ns));
    assert!(all.iter().all(|c| c.reason.is_empty() == c.feasible()));
    assert_eq!(sw.frontier.len(), 54);
}

//! The O(N log N) frontier equals the seed's O(N²) `_dominates` definition: on full sweeps
//! of several presets, and on random point sets with ties and duplicates (proptest).
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

mod common;

use proptest::prelude::*;
use shardscope_core::explorer::*;

/// The seed's `pareto_frontier` verbatim: feasible filter, then O(N²) dominance, in the order
/// of the (latency-sorted) `all_scores`.
fn seed_frontier(sorted: &[&Score]) -> Vec<Score> {
    let feasible: Vec<&Score> = sorted.iter().copied().filter(|s| s.feasible()).collect();
    let pt = |s: &Score| ParetoPoint {
        latency: s.total_latency_ns,
        pes: s.pes_used,
        efficiency: s.efficiency_score,
    };
    let mut out = Vec::new();
    for (i, a) in feasible.iter().enumerate() {
        let dominated = feasible
            .iter()
            .enumerate()
            .any(|(j, b)| i != j && dominates(&pt(b), &pt(a)));
        if !dominated {
            out.push(**a);
        }
    }
    out
}

fn check_sweep(model: &str, machine: &str, req: SweepRequest) -> usize {
    let m = ModelConfig::preset(model).unwrap();
    let h = MachineParams::preset(machine).unwrap();
    let sw = sweep(&m, &h, &req).unwrap();
    let sorted = sw.sorted_scores();
    let want = seed_frontier(&sorted);
    let got: Vec<Score> = sw.frontier_scores().copied().collect();
    assert_eq!(got, want, "{model} on {machine}: {req:?}");
    got.len()
}

#[test]
fn full_sweeps_match_the_seed_definition() {
    let dec = |s_kv, batch, ep| SweepRequest {
        s_kv,
        batch,
        ep,
        ..SweepRequest::default()
    };
    let pre = |s_kv, batch, ep| SweepRequest {
        mode: Mode::Prefill,
        ..dec(s_kv, batch, ep)
    };
    assert_eq!(
        check_sweep("llama3.1-70b", "h200-hgx", SweepRequest::default()),
        54
    );
    check_sweep("llama3.1-8b", "h100-hgx", dec(4096, 16, 1));
    check_sweep("llama3.1-405b", "h100-hgx", pre(131072, 1, 1));
    check_sweep("mixtral-8x7b", "h200-hgx", pre(4096, 4, 2));
    check_sweep("qwen2.5-72b", "tile-wafer", pre(8192, 1, 1));
    check_sweep("deepseek-v3", "h200-hgx", dec(4096, 64, 8));
    check_sweep(
        "llama3.1-70b",
        "tile-wafer",
        SweepRequest {
            options: ScoreOptions {
                scope: Scope::Attention,
                efficiency: EfficiencyMode::Corrected,
                include_overheads: true,
                scales: Default::default(),
            },
            ..dec(65536, 4, 1)
        },
    );
}

fn point() -> impl Strategy<Value = ParetoPoint> {
    // Small value sets make ties and duplicates common; ±0 and non-finite values included.
    let lat = prop_oneof![
        8 => (0u32..6).prop_map(|x| f64::from(x) * 0.5),
        1 => Just(-0.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        2 => any::<f64>(),
    ];
    let pes = prop_oneof![4 => 1u64..6, 1 => any::<u64>()];
    let eff = prop_oneof![
        8 => (0u32..5).prop_map(|x| f64::from(x) * 0.25),
        1 => Just(-0.0),
        1 => Just(f64::NAN),
        2 => any::<f64>(),
    ];
    (lat, pes, eff).prop_map(|(latency, pes, efficiency)| ParetoPoint {
        latency,
        pes,
        efficiency,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(2000)))]

    #[test]
    fn fast_frontier_equals_naive(points in prop::collection::vec(point(), 0..80)) {
        prop_assert_eq!(pareto_front(&points), pareto_front_naive(&points));
    }

    #[test]
    fn frontier_is_non_dominated_and_complete(points in prop::collection::vec(point(), 0..60)) {
        let front = pareto_front(&points);
        for (i, p) in points.iter().enumerate() {
            if !(p.latency.is_finite() && p.efficiency.is_finite()) {
                prop_assert!(!front.contains(&i));
                continue;
            }
            let dominated = points.iter().any(|q| {
                q.latency.is_finite() && q.efficiency.is_finite() && dominates(q, p)
            });
            prop_assert_eq!(front.contains(&i), !dominated);
        }
    }
}

#[test]
fn large_random_sets_with_many_ties() {
    // Deterministic LCG: 5,000 points over a coarse grid (heavy ties).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let points: Vec<ParetoPoint> = (0..5000)
        .map(|_| ParetoPoint {
            latency: (next() % 40) as f64,
            pes: 1 + next() % 30,
            efficiency: (next() % 25) as f64 / 24.0,
        })
        .collect();
    assert_eq!(pareto_front(&points), pareto_front_naive(&points));
}

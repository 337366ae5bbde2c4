//! `cargo bench -p shardscope-core --bench explore`: the explorer's speed.
//!
//! Prints, as the median (and the minimum) of repeated runs:
//! - one full sweep: 28,800 configs of llama3.1-70b on h200-hgx, decode, s_kv 32768, every
//!   config scored and the frontier extracted and materialized (`explore` without `--all`);
//! - the same plus the latency order of all 28,800 configs (what `--all` lists);
//! - the frontier alone, on the sweep's 16,352 feasible points;
//! - a 10-batch sweep (B = 1, 2, 4, ..., 512), frontier and serving metrics per batch;
//! - the scoring rate.
//!
//! Target (issue 3): the full sweep in ≤ 15 ms natively.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

use std::hint::black_box;
use std::time::Instant;

use shardscope_core::explorer::*;

/// (median, min) wall-clock ms over `runs` runs after one warm-up.
fn time_ms(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0])
}

fn main() {
    let model = ModelConfig::preset("llama3.1-70b").unwrap();
    let machine = MachineParams::preset("h200-hgx").unwrap();
    let req = SweepRequest::default();

    let (report, sw) = explore(&model, &machine, &req, false).unwrap();
    assert_eq!(report.total_enumerated, 28_800);
    assert_eq!(report.total_feasible, 16_352);
    assert_eq!(report.pareto.len(), 54);

    let full = time_ms(41, || {
        black_box(explore(black_box(&model), &machine, &req, false).unwrap());
    });
    let full_sorted = time_ms(41, || {
        let (r, s) = explore(black_box(&model), &machine, &req, false).unwrap();
        black_box((r, s.latency_order()));
    });

    let points: Vec<ParetoPoint> = sw
        .scores
        .iter()
        .filter(|s| s.feasible())
        .map(|s| ParetoPoint {
            latency: s.total_latency_ns,
            pes: s.pes_used,
            efficiency: s.efficiency_score,
        })
        .collect();
    let frontier = time_ms(41, || {
        black_box(pareto_front(black_box(&points)));
    });

    let batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
    let batch = time_ms(21, || {
        black_box(batch_sweep(black_box(&model), &machine, &req, &batches).unwrap());
    });

    println!("explorer bench: llama3.1-70b, h200-hgx, decode, s_kv 32768 (median / min ms)");
    println!(
        "  full sweep incl. frontier      : {:8.3} / {:8.3} ms  (28,800 configs, 41 runs)",
        full.0, full.1
    );
    println!(
        "  + latency order of all configs : {:8.3} / {:8.3} ms",
        full_sorted.0, full_sorted.1
    );
    println!(
        "  frontier only                  : {:8.3} / {:8.3} ms  ({} feasible points)",
        frontier.0,
        frontier.1,
        points.len()
    );
    println!(
        "  10-batch sweep                 : {:8.3} / {:8.3} ms  (B = 1..512, 21 runs)",
        batch.0, batch.1
    );
    println!(
        "  configs/s                      : {:8.2} M (median full sweep)",
        28_800.0 / (full.0 / 1e3) / 1e6
    );
}

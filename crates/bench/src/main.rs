//! `shardscope-bench`: the trace benchmark behind `make bench`.
//!
//! - `gen-trace FILE [--ranks N] [--samples N]` writes a deterministic stormlog-shaped
//!   v4 trace (default 16 ranks x 12,500 samples, ~110 MB, synchronized spikes with
//!   collective markers), formatted like Python's `json.dump` output.
//! - `trace FILE [--runs N] [--sequential]` loads and attributes it N times (medium
//!   preset) and prints parse and attribution times (median), throughput, results and
//!   the process's peak RSS (Linux `VmHWM`). Big files are parsed by two worker
//!   threads unless `--sequential`.
//!
//! - `stages FILE [--runs N]` times each stage of one load apart (medians): reading the
//!   file into memory, parsing it (parse, convert, stitch, sort, on every core), the
//!   attribution, the timeline index and the JSON output; one Markdown table row.
//! - `lod` times one timeline redraw query; `clocks [--ranks N] [--markers N]` times the
//!   clock estimator on generated markers (irregular collectives, each rank skewed,
//!   jittered, with drift; default 64 ranks x 10,000 markers).
//!
//! Timing lives here, in a benchmark binary, never in unit tests.

use std::io::BufWriter;
use std::process::ExitCode;
use std::time::Instant;

use shardscope_attribution::analysis::{analyze, reattribute, AnalyzeSettings};
use shardscope_trace::trace::synthetic::{write_trace, Rng};
use shardscope_trace::trace::StdFs;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("gen-trace"), Some(path)) => {
            match gen_trace(path, flag("--ranks", 16), flag("--samples", 12_500)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("gen-trace: {e}");
                    ExitCode::from(1)
                }
            }
        }
        (Some("lod"), _) => bench_lod(flag("--ranks", 64), flag("--samples", 100_000)),
        (Some("clocks"), _) => bench_clocks(flag("--ranks", 64), flag("--markers", 10_000)),
        (Some("trace"), Some(path)) => bench_trace(
            path,
            flag("--runs", 5) as usize,
            !args.iter().any(|a| a == "--sequential"),
        ),
        (Some("stages"), Some(path)) => bench_stages(path, flag("--runs", 5) as usize),
        _ => {
            eprintln!("usage: shardscope-bench gen-trace FILE [--ranks N] [--samples N] | trace FILE [--runs N] [--sequential] | stages FILE [--runs N] | lod [--ranks N] [--samples N] | clocks [--ranks N] [--markers N]");
            ExitCode::from(2)
        }
    }
}

fn gen_trace(path: &str, ranks: u64, samples: u64) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let count = write_trace(&mut out, ranks, samples)?;
    drop(out);
    let size = std::fs::metadata(path)?.len();
    println!("wrote {path}: {count} records, {:.1} MB", size as f64 / 1e6);
    Ok(())
}

/// The timeline's level-of-detail query (what the worker answers per redraw) on
/// `ranks` × `samples` synthetic samples: index build time, then the median time of a
/// 1,200-column query of all ranks for the whole trace and for windows down to 0.1 %.
fn bench_clocks(ranks: u64, markers: u64) -> ExitCode {
    use shardscope_attribution::clocks::{estimate, ClockStatus};
    let mut rng = Rng(0xc10c_c10c);
    let mut t = 1_700_000_000_000_000_000_i64;
    let truth: Vec<i64> = (0..markers)
        .map(|_| {
            t += 30_000_000 + rng.below(40_000_000) as i64;
            t
        })
        .collect();
    let epoch = truth[0];
    let sets: Vec<(i64, Vec<i64>)> = (0..ranks as i64)
        .map(|rank| {
            let offset = (rank - ranks as i64 / 2) * 7_000_000;
            let drift_ppm = (rank % 5) as f64 * 10.0 - 20.0;
            let own = truth
                .iter()
                .map(|&t| {
                    let drift = (drift_ppm * 1e-6 * (t - epoch) as f64) as i64;
                    t + offset + drift + rng.below(200_000) as i64 - 100_000
                })
                .collect();
            (rank, own)
        })
        .collect();
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let t0 = Instant::now();
            let a = estimate(&sets, None);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if let Ok(a) = &a {
                std::hint::black_box(a.ranks.len());
            }
            ms
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let aligned = estimate(&sets, None).map_or(0, |a| {
        a.ranks
            .iter()
            .filter(|c| c.status == ClockStatus::Aligned)
            .count()
    });
    println!(
        "clocks: {ranks} ranks × {markers} markers: estimated in {:.0} ms (median of 5; {:.0}–{:.0}); {aligned} of {} ranks aligned",
        times[2],
        times[0],
        times[4],
        ranks.saturating_sub(1)
    );
    ExitCode::SUCCESS
}

fn bench_lod(ranks: u64, samples: u64) -> ExitCode {
    use shardscope_view::lod::{RankSeries, TimelineIndex, WindowQuery};
    const STEP_NS: i64 = 100_000_000;
    let mut rng = Rng(0x10d_10d_10d);
    let series: Vec<RankSeries> = (0..ranks as i64)
        .map(|rank| {
            RankSeries::new(
                rank,
                (0..samples as i64)
                    .map(|i| i * STEP_NS + rank * 1_000)
                    .collect(),
                (0..samples)
                    .map(|i| {
                        let spike = i % 120 == 60;
                        (if spike { 1_500 << 20 } else { 8 << 20 }) + rng.below(64 << 20) as i64
                    })
                    .collect(),
                (0..samples as i64)
                    .filter(|i| i % 120 == 60)
                    .map(|i| i * STEP_NS - 3_000_000)
                    .collect(),
            )
        })
        .collect();
    let end_ns = samples as i64 * STEP_NS;
    let t0 = std::time::Instant::now();
    let index = TimelineIndex::from_series(series, 0, end_ns);
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    println!(
        "lod: {ranks} ranks × {samples} samples ({:.1} M samples): index built in {build_ms:.0} ms",
        (ranks * samples) as f64 / 1e6
    );
    for fraction in [1.0, 0.1, 0.01, 0.001] {
        let span = (end_ns as f64 * fraction) as i64;
        let start = (end_ns - span) / 2;
        let mut times: Vec<f64> = (0..21)
            .map(|k| {
                let q = WindowQuery {
                    start_ns: start + k * span / 100,
                    end_ns: start + k * span / 100 + span,
                    columns: 1200,
                    ranks: None,
                };
                let t = std::time::Instant::now();
                let data = index.query(&q);
                std::hint::black_box(&data);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!(
            "lod: window {:>6.2} % of the trace, 1200 columns × {ranks} ranks: {:.2} ms (median of 21)",
            fraction * 100.0,
            median(&mut times)
        );
    }
    ExitCode::SUCCESS
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn bench_trace(path: &str, runs: usize, parallel: bool) -> ExitCode {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let settings = AnalyzeSettings::default();
    let aligned_settings = AnalyzeSettings {
        align_clocks: true,
        ..AnalyzeSettings::default()
    };
    let (mut parse_s, mut attribute_s, mut aligned_s) = (Vec::new(), Vec::new(), Vec::new());
    let mut aligned_summary = String::new();
    let mut summary = String::new();
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let analysis = analyze(
            &StdFs,
            &[path.to_string()],
            &settings,
            parallel,
            &mut |_| {},
        );
        let total = t0.elapsed().as_secs_f64();
        if let Some(e) = analysis.first_error() {
            eprintln!("load failed: {e}");
            return ExitCode::from(1);
        }
        // Attribution alone: the same run again on the kept dataset.
        let t1 = Instant::now();
        let results = match reattribute(&analysis.dataset, &settings) {
            Ok(a) => a.results,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
        let attribution = t1.elapsed().as_secs_f64();
        parse_s.push((total - attribution).max(0.0));
        attribute_s.push(attribution);
        // Beyond stormlog: the same on aligned clocks (estimate, map every event, attribute).
        let t2 = Instant::now();
        match reattribute(&analysis.dataset, &aligned_settings) {
            Ok(a) => {
                aligned_s.push(t2.elapsed().as_secs_f64());
                let aligned = a.alignment.as_ref().map_or(0, |al| al.aligned().len());
                aligned_summary = format!("{} intervals, {aligned} ranks mapped", a.results.len());
            }
            Err(e) => aligned_summary = format!("not aligned: {e}"),
        }
        summary = format!(
            "{} events, {} intervals, {}",
            analysis.dataset.selected_events().len(),
            results.len(),
            if analysis.parallel_files > 0 {
                "parallel parse"
            } else {
                "sequential parse"
            }
        );
    }
    let parse = median(&mut parse_s);
    let attr = median(&mut attribute_s);
    println!("trace: {path} ({:.1} MB), {summary}", size as f64 / 1e6);
    println!(
        "parse+validate: {:.3} s median of {runs} ({:.0} MB/s)",
        parse,
        size as f64 / 1e6 / parse
    );
    println!("attribution:    {:.3} s median of {runs}", attr);
    if !aligned_s.is_empty() {
        let aligned = median(&mut aligned_s);
        println!(
            "aligned clocks: {aligned:.3} s median of {runs} ({:.2}x plain attribution; {aligned_summary})",
            aligned / attr.max(1e-9)
        );
    }
    println!("end to end:     {:.3} s", parse + attr);
    match peak_rss_mb() {
        Some(mb) => println!("peak RSS:       {mb:.1} MB"),
        None => println!("peak RSS:       unavailable (no /proc/self/status)"),
    }
    ExitCode::SUCCESS
}

/// Each stage of a load apart, on the file read into memory first (so this process's RSS
/// holds the whole file: `trace` is the one that measures memory).
fn bench_stages(path: &str, runs: usize) -> ExitCode {
    use shardscope_attribution::analysis::{export, load_traces_on};
    use shardscope_trace::trace::MemFs;
    use shardscope_view::lod::TimelineIndex;
    let settings = AnalyzeSettings::default();
    let mut times: [Vec<f64>; 5] = Default::default();
    let mut size = 0usize;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(1);
            }
        };
        times[0].push(t.elapsed().as_secs_f64());
        size = bytes.len();
        let mut fs = MemFs::new();
        fs.insert("trace.json", bytes);
        let t = Instant::now();
        let loaded = load_traces_on(&fs, &["trace.json".to_string()], &settings, 0, &mut |_| {});
        times[1].push(t.elapsed().as_secs_f64());
        if let Some(e) = loaded.load_errors.first() {
            eprintln!("load failed: {e}");
            return ExitCode::from(1);
        }
        let t = Instant::now();
        let results = match reattribute(&loaded.dataset, &settings) {
            Ok(a) => a.results,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
        times[2].push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let index = TimelineIndex::build(loaded.dataset.selected_events());
        times[3].push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let json = export::to_json(&results);
        times[4].push(t.elapsed().as_secs_f64());
        std::hint::black_box((index, json));
    }
    let [read, parse, attribute, index, output] = times.map(|mut t| median(&mut t) * 1e3);
    println!(
        "| {} ({:.0} MB) | {} | {read:.0} ms | {parse:.0} ms ({:.0} MB/s) | {attribute:.0} ms | {index:.0} ms | {output:.0} ms | {:.0} ms |",
        path.rsplit('/').next().unwrap_or(path),
        size as f64 / 1e6,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        size as f64 / 1e3 / parse.max(1e-9),
        read + parse + attribute + index + output
    );
    ExitCode::SUCCESS
}

//! Attribution does not depend on how a run's records are packaged: one file holding every
//! rank, the same records as one file per rank (stormlog's per-rank exports, combined
//! into a distributed session through their `job_id`), and those files in any order all
//! give the same intervals.

use proptest::prelude::*;
use shardscope_core::analysis::{analyze, AnalyzeSettings};
use shardscope_core::attribution::AttributionResult;
use shardscope_core::trace::MemFs;

const GIB: i64 = 1 << 30;
const MIB: i64 = 1 << 20;

#[derive(Debug, Clone)]
struct Sample {
    step: i64,
    gap_mib: i64,
    marker: bool,
}

/// One record as stormlog writes it; `session` differs per file when split.
fn record(session: &str, rank: i64, world: i64, ts: i64, gap: Option<i64>) -> String {
    let (event_type, counters, context) = match gap {
        Some(gap) => (
            "sample",
            format!(
                r#""allocator_allocated_bytes": {a}, "allocator_reserved_bytes": {r}, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": 0, "device_used_bytes": {u}, "device_free_bytes": null, "device_total_bytes": {t}"#,
                a = 2 * GIB,
                r = 2 * GIB,
                u = 2 * GIB + gap,
                t = 80 * GIB,
            ),
            "null".to_string(),
        ),
        None => (
            "collective",
            r#""allocator_allocated_bytes": null, "allocator_reserved_bytes": null, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": null, "device_used_bytes": null, "device_free_bytes": null, "device_total_bytes": null"#.to_string(),
            r#""nccl:all_reduce""#.to_string(),
        ),
    };
    format!(
        r#"{{"schema_version": 4, "session_id": "{session}", "timestamp_ns": {ts}, "event_type": "{event_type}", "collector": "stormlog.cuda_tracker", "sampling_interval_ms": 100, "pid": {pid}, "host": "node0", "job_id": "job-7", "rank": {rank}, "local_rank": {rank}, "world_size": {world}, "device_id": {rank}, {counters}, "context": {context}, "metadata": {{"backend": "cuda"}}}}"#,
        pid = 1000 + rank,
    )
}

/// Records of one rank, in time order.
fn rank_records(session: &str, rank: i64, world: i64, samples: &[Sample]) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    for s in samples {
        let ts = 1_700_000_000_000_000_000 + s.step * 100_000_000 + rank * 1_000;
        if s.marker {
            out.push((
                ts - 3_000_000,
                record(session, rank, world, ts - 3_000_000, None),
            ));
        }
        out.push((ts, record(session, rank, world, ts, Some(s.gap_mib * MIB))));
    }
    out
}

fn results(files: &[(String, String)]) -> Vec<AttributionResult> {
    let mut fs = MemFs::new();
    for (name, text) in files {
        fs.insert(name, text.as_bytes().to_vec());
    }
    let paths: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    let analysis = analyze(&fs, &paths, &AnalyzeSettings::default(), false, &mut |_| {});
    assert!(
        analysis.load_errors.is_empty(),
        "{:?}",
        analysis.load_errors
    );
    match analysis.attribution {
        Ok(a) => a.results,
        Err(e) => panic!("{e}"),
    }
}

fn array(records: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", records.into_iter().collect::<Vec<_>>().join(", "))
}

fn trace() -> impl Strategy<Value = Vec<Vec<Sample>>> {
    (2usize..5).prop_flat_map(|ranks| {
        let sample = (
            prop_oneof![8 => 0i64..40, 2 => 200i64..2000],
            prop::bool::weighted(0.15),
        );
        prop::collection::vec(prop::collection::vec(sample, 12..40), ranks).prop_map(|per_rank| {
            per_rank
                .into_iter()
                .map(|samples| {
                    samples
                        .into_iter()
                        .enumerate()
                        .map(|(step, (gap_mib, marker))| Sample {
                            step: step as i64,
                            gap_mib,
                            marker,
                        })
                        .collect()
                })
                .collect()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn one_file_or_one_file_per_rank_give_the_same_intervals(per_rank in trace(), rotate in 0usize..4) {
        let world = per_rank.len() as i64;
        // One file, every rank, in time order (as a single tracker would write it).
        let mut all: Vec<(i64, String)> = per_rank
            .iter()
            .enumerate()
            .flat_map(|(rank, samples)| rank_records("run", rank as i64, world, samples))
            .collect();
        all.sort_by_key(|(ts, _)| *ts);
        let whole = results(&[("run.json".to_string(), array(all.into_iter().map(|(_, r)| r)))]);

        // One file per rank, each its own tracker session, given in any order.
        let mut files: Vec<(String, String)> = per_rank
            .iter()
            .enumerate()
            .map(|(rank, samples)| {
                let session = format!("run-rank{rank}");
                let records = rank_records(&session, rank as i64, world, samples);
                (format!("rank{rank}_events.json"), array(records.into_iter().map(|(_, r)| r)))
            })
            .collect();
        let n = files.len();
        files.rotate_left(rotate % n);
        let split = results(&files);
        prop_assert_eq!(&split, &whole);
    }
}

#[test]
fn the_generator_finds_intervals() {
    // A synchronized spike with markers on every rank: the property above is not vacuous.
    let per_rank: Vec<Vec<Sample>> = (0..4)
        .map(|_| {
            (0..20)
                .map(|step| Sample {
                    step,
                    gap_mib: if step == 10 { 1536 } else { step % 5 },
                    marker: step == 10,
                })
                .collect()
        })
        .collect();
    let files: Vec<(String, String)> = per_rank
        .iter()
        .enumerate()
        .map(|(rank, samples)| {
            let records = rank_records(&format!("r{rank}"), rank as i64, 4, samples);
            (
                format!("rank{rank}.json"),
                array(records.into_iter().map(|(_, r)| r)),
            )
        })
        .collect();
    assert_eq!(results(&files).len(), 4);
}

//! Sharing the ranges of the big files of one load between parsing workers, and gathering
//! what they send back: which files to parse in ranges ([`plan_files`]), which worker
//! parses which ranges ([`assign`]), and the bookkeeping of the answers ([`Gather`]).
//!
//! The browser's loading worker and its helper each parse every other range; the page
//! only moves the requests and answers. Natively, `trace::parallel` does the same with
//! threads and needs none of this.

use super::{plan, RangeTask, SLACK_BYTES};
use crate::trace::fs::resolve_dropped;
use crate::trace::load::json_default_session_id;
use crate::trace::split::MIN_PARALLEL_BYTES;

/// Bytes per range in the browser: each `FileReaderSync` read has a fixed cost of
/// several milliseconds, so ranges are bigger than natively ([`super::RANGE_BYTES`]).
pub const BROWSER_RANGE_BYTES: u64 = 16 << 20;

/// The most workers a page load parses with.
pub const MAX_PAGE_WORKERS: usize = 8;

/// How many workers parse a big dropped file: the `workers=N` flag of the page's query
/// string (1..=[`MAX_PAGE_WORKERS`]) where there is one, else one per core but one (the
/// page's own thread), at least 2 and at most [`MAX_PAGE_WORKERS`]
/// (`navigator.hardwareConcurrency`; unknown: 2). Every count gives the same result.
pub fn page_workers(hardware_concurrency: Option<f64>, query: &str) -> usize {
    if let Some(forced) = workers_flag(query) {
        return forced;
    }
    let cores = hardware_concurrency
        .filter(|c| c.is_finite() && *c >= 1.0)
        .map_or(3, |c| c.min(64.0) as usize);
    (cores - 1).clamp(2, MAX_PAGE_WORKERS)
}

/// Which build of the worker's WebAssembly the page runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerBuild {
    /// Built with `simd128` (the structure scan, the UTF-8 check and the layout compare in
    /// 128-bit lanes): every current browser runs it.
    Simd,
    /// The same code without SIMD instructions, for a browser that cannot validate them.
    Scalar,
}

impl WorkerBuild {
    /// The build's files in the page's folder: `(JavaScript glue, WebAssembly)`.
    pub fn files(self) -> (&'static str, &'static str) {
        match self {
            WorkerBuild::Simd => ("./worker_simd.js", "./worker_simd_bg.wasm"),
            WorkerBuild::Scalar => ("./worker.js", "./worker_bg.wasm"),
        }
    }

    /// The name `make bench-web` and the trace status show.
    pub fn name(self) -> &'static str {
        match self {
            WorkerBuild::Simd => "simd128",
            WorkerBuild::Scalar => "scalar",
        }
    }
}

/// The worker build for a browser that can (`simd_supported`) or cannot validate SIMD
/// instructions: SIMD where it can, unless the query string says `simd=0` (to measure
/// the scalar build beside it).
pub fn worker_build(simd_supported: bool, query: &str) -> WorkerBuild {
    let scalar_forced = query
        .trim_start_matches('?')
        .split('&')
        .any(|pair| pair == "simd=0");
    if simd_supported && !scalar_forced {
        WorkerBuild::Simd
    } else {
        WorkerBuild::Scalar
    }
}

/// `workers=N` in a query string (`?a=b&workers=4`), when N is 1..=[`MAX_PAGE_WORKERS`].
fn workers_flag(query: &str) -> Option<usize> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.strip_prefix("workers="))
        .filter_map(|n| n.parse::<usize>().ok())
        .rfind(|n| (1..=MAX_PAGE_WORKERS).contains(n))
}

/// One file of a load, as the planner sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadedFile<'a> {
    /// The name as dropped (a relative path inside a dropped folder).
    pub name: &'a str,
    pub bytes: u64,
}

/// A file to parse in ranges before the load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePlan {
    /// Its position in the load's files.
    pub file: usize,
    pub file_bytes: u64,
    pub range_bytes: u64,
    pub tasks: Vec<RangeTask>,
    /// The session id of its records without one (stormlog's, from the file's path).
    pub default_session_id: String,
}

/// The files worth parsing in ranges: JSON files of [`MIN_PARALLEL_BYTES`] and more (a
/// file that turns out not to be a JSON array makes its ranges give up, and the loading
/// worker parses it as usual).
pub fn plan_files(files: &[LoadedFile<'_>], range_bytes: u64) -> Vec<FilePlan> {
    files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name.to_ascii_lowercase().ends_with(".json"))
        .filter(|(_, f)| f.bytes >= MIN_PARALLEL_BYTES)
        .map(|(file, f)| FilePlan {
            file,
            file_bytes: f.bytes,
            range_bytes,
            tasks: plan(f.bytes, range_bytes, SLACK_BYTES),
            default_session_id: json_default_session_id(&resolve_dropped(f.name)),
        })
        .collect()
}

/// The ranges one worker parses of one planned file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// Index into the plans.
    pub plan: usize,
    /// Which of the `workers`.
    pub worker: usize,
    pub tasks: Vec<RangeTask>,
}

/// Range `i` of every file goes to worker `i % workers` (neighbouring ranges on different
/// workers, so both finish together); a worker with no range of a file gets no request.
pub fn assign(plans: &[FilePlan], workers: usize) -> Vec<Assignment> {
    let workers = workers.max(1);
    plans
        .iter()
        .enumerate()
        .flat_map(|(p, plan)| {
            (0..workers).map(move |worker| Assignment {
                plan: p,
                worker,
                tasks: plan
                    .tasks
                    .iter()
                    .filter(|t| t.index % workers == worker)
                    .copied()
                    .collect(),
            })
        })
        .filter(|a| !a.tasks.is_empty())
        .collect()
}

/// The answers to the [`assign`]ed requests so far. `T` is one parsed range as the
/// adapter holds it (bytes natively in tests, a `Uint8Array` in the browser).
#[derive(Debug)]
pub struct Gather<T> {
    files: Vec<GatheredFile<T>>,
    outstanding: usize,
    done_bytes: u64,
}

#[derive(Debug)]
struct GatheredFile<T> {
    plan: FilePlan,
    ranges: Vec<Option<T>>,
    failed: bool,
}

/// A file whose every range arrived, ready to hand to the load.
#[derive(Debug, PartialEq)]
pub struct Gathered<T> {
    pub plan: FilePlan,
    /// In range order.
    pub ranges: Vec<T>,
}

impl<T> Gather<T> {
    /// Waiting for `requests` answers ([`assign`]'s length) about `plans`.
    pub fn new(plans: Vec<FilePlan>, requests: usize) -> Gather<T> {
        Gather {
            files: plans
                .into_iter()
                .map(|plan| GatheredFile {
                    ranges: std::iter::repeat_with(|| None)
                        .take(plan.tasks.len())
                        .collect(),
                    plan,
                    failed: false,
                })
                .collect(),
            outstanding: requests,
            done_bytes: 0,
        }
    }

    /// Range `index` of plan `plan` arrived. Returns the bytes of ranges parsed so far,
    /// over all files. An answer about no such range is ignored.
    pub fn range(&mut self, plan: usize, index: usize, parsed: T) -> u64 {
        if let Some(file) = self.files.get_mut(plan) {
            if let (Some(slot), Some(task)) =
                (file.ranges.get_mut(index), file.plan.tasks.get(index))
            {
                if slot.is_none() {
                    self.done_bytes += task.end - task.start;
                }
                *slot = Some(parsed);
            }
        }
        self.done_bytes
    }

    /// One request about plan `plan` ended: `complete` when its worker parsed every
    /// range it was given, `false` on any problem (the loading worker then parses that
    /// file itself). Returns whether every request has now ended.
    pub fn request_ended(&mut self, plan: usize, complete: bool) -> bool {
        if !complete {
            if let Some(file) = self.files.get_mut(plan) {
                file.failed = true;
            }
        }
        self.outstanding = self.outstanding.saturating_sub(1);
        self.outstanding == 0
    }

    /// Bytes of ranges parsed so far.
    pub fn done_bytes(&self) -> u64 {
        self.done_bytes
    }

    /// The plan of `plan`, while the gathering lasts.
    pub fn plan(&self, plan: usize) -> Option<&FilePlan> {
        self.files.get(plan).map(|f| &f.plan)
    }

    /// The files that arrived whole and without a problem; the others are left out (the
    /// loading worker parses them). Empties the gathering.
    pub fn take_complete(&mut self) -> Vec<Gathered<T>> {
        std::mem::take(&mut self.files)
            .into_iter()
            .filter(|f| !f.failed && f.ranges.iter().all(Option::is_some))
            .map(|f| Gathered {
                plan: f.plan,
                ranges: f.ranges.into_iter().flatten().collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn files() -> Vec<LoadedFile<'static>> {
        vec![
            LoadedFile {
                name: "run/rank0.JSON",
                bytes: 40 * MIB,
            },
            LoadedFile {
                name: "run/rank1.jsonl",
                bytes: 40 * MIB,
            },
            LoadedFile {
                name: "small.json",
                bytes: MIN_PARALLEL_BYTES - 1,
            },
            LoadedFile {
                name: "/edge.json",
                bytes: MIN_PARALLEL_BYTES,
            },
        ]
    }

    #[test]
    fn the_simd_build_runs_where_it_validates_unless_the_flag_says_scalar() {
        use WorkerBuild::{Scalar, Simd};
        assert_eq!(worker_build(true, ""), Simd);
        assert_eq!(worker_build(true, "?workers=2"), Simd);
        assert_eq!(worker_build(true, "?simd=1"), Simd);
        assert_eq!(worker_build(true, "?workers=2&simd=0"), Scalar);
        assert_eq!(worker_build(true, "?simd=00"), Simd);
        assert_eq!(worker_build(false, ""), Scalar);
        assert_eq!(worker_build(false, "?simd=1"), Scalar);
        assert_eq!(Simd.files(), ("./worker_simd.js", "./worker_simd_bg.wasm"));
        assert_eq!(Scalar.files(), ("./worker.js", "./worker_bg.wasm"));
        assert_ne!(Simd.name(), Scalar.name());
    }

    #[test]
    fn page_workers_follow_the_cores_within_bounds_or_the_flag() {
        use super::page_workers;
        assert_eq!(page_workers(Some(2.0), ""), 2);
        assert_eq!(page_workers(Some(4.0), ""), 3);
        assert_eq!(page_workers(Some(8.0), ""), 7);
        assert_eq!(page_workers(Some(16.0), ""), 8);
        assert_eq!(page_workers(Some(1.0), ""), 2);
        assert_eq!(page_workers(None, ""), 2);
        assert_eq!(page_workers(Some(f64::NAN), ""), 2);
        assert_eq!(page_workers(Some(16.0), "?workers=1"), 1);
        assert_eq!(page_workers(Some(2.0), "?theme=dark&workers=5"), 5);
        for bad in [
            "?workers=0",
            "?workers=9",
            "?workers=x",
            "?workers=",
            "?xworkers=3",
        ] {
            assert_eq!(page_workers(Some(4.0), bad), 3, "{bad}");
        }
    }

    #[test]
    fn only_big_json_files_are_planned() {
        let plans = plan_files(&files(), BROWSER_RANGE_BYTES);
        let planned: Vec<usize> = plans.iter().map(|p| p.file).collect();
        assert_eq!(planned, vec![0, 3]);
        // 40 MiB in 16 MiB ranges: 16 + 16 + 8.
        let spans: Vec<(u64, u64)> = plans[0].tasks.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(
            spans,
            vec![(0, 16 * MIB), (16 * MIB, 32 * MIB), (32 * MIB, 40 * MIB)]
        );
        assert!(plans[0].tasks.iter().all(|t| t.slack_bytes == SLACK_BYTES));
        assert_eq!(plans[1].tasks.len(), 1);
        assert_eq!(plans[0].range_bytes, BROWSER_RANGE_BYTES);
        assert_eq!(plans[0].file_bytes, 40 * MIB);
        // The session id is the loader's for the resolved path.
        assert_eq!(
            plans[0].default_session_id,
            json_default_session_id("/run/rank0.JSON")
        );
        assert_eq!(
            plans[1].default_session_id,
            json_default_session_id("/edge.json")
        );
        assert_ne!(plans[0].default_session_id, plans[1].default_session_id);
    }

    #[test]
    fn dropped_names_resolve_to_absolute_paths() {
        assert_eq!(resolve_dropped("a/b.json"), "/a/b.json");
        assert_eq!(resolve_dropped("/a/b.json/"), "/a/b.json");
        assert_eq!(resolve_dropped(""), "/");
    }

    #[test]
    fn ranges_alternate_between_workers() {
        let plans = plan_files(&files(), BROWSER_RANGE_BYTES);
        let a = assign(&plans, 2);
        let got: Vec<(usize, usize, Vec<usize>)> = a
            .iter()
            .map(|a| (a.plan, a.worker, a.tasks.iter().map(|t| t.index).collect()))
            .collect();
        // The one-range file gives worker 1 nothing, so it gets no request.
        assert_eq!(
            got,
            vec![(0, 0, vec![0, 2]), (0, 1, vec![1]), (1, 0, vec![0])]
        );
        // Zero workers means one.
        assert_eq!(assign(&plans, 0).len(), 2);
    }

    #[test]
    fn gather_hands_on_whole_files_only() {
        let plans = plan_files(&files(), BROWSER_RANGE_BYTES);
        let requests = assign(&plans, 2);
        let mut g: Gather<&str> = Gather::new(plans, requests.len());
        assert_eq!(g.range(0, 2, "r2"), 8 * MIB);
        assert_eq!(g.range(0, 0, "r0"), 24 * MIB);
        // The same range twice counts once; unknown ranges and plans are ignored.
        assert_eq!(g.range(0, 0, "r0 again"), 24 * MIB);
        assert_eq!(g.range(0, 9, "x"), 24 * MIB);
        assert_eq!(g.range(7, 0, "x"), 24 * MIB);
        assert!(!g.request_ended(0, true));
        assert_eq!(g.range(0, 1, "r1"), 40 * MIB);
        assert!(!g.request_ended(0, true));
        // The second file's worker had a problem.
        assert!(g.request_ended(1, false));
        assert_eq!(g.done_bytes(), 40 * MIB);
        assert_eq!(g.plan(1).map(|p| p.file), Some(3));
        let done = g.take_complete();
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].plan.file, 0);
        assert_eq!(done[0].ranges, vec!["r0 again", "r1", "r2"]);
        assert!(g.take_complete().is_empty());
        assert_eq!(g.plan(0), None);
    }

    #[test]
    fn a_file_with_a_missing_range_is_left_out() {
        let plans = plan_files(&files()[..1], BROWSER_RANGE_BYTES);
        let mut g: Gather<u8> = Gather::new(plans, 2);
        g.range(0, 0, 0);
        g.range(0, 1, 1);
        assert!(!g.request_ended(0, true));
        // Worker 0 said complete but range 2 never came.
        assert!(g.request_ended(0, true));
        assert!(g.take_complete().is_empty());
        // More endings than requests do not wrap around.
        assert!(g.request_ended(0, true));
    }
}

//! From paths to sessions, the way stormlog 0.4.3 does it.
//!
//! - One path behaves like `gpumemprof analyze PATH`: `load_telemetry_sessions`
//!   (a JSON file, a `.jsonl` segment, a telemetry-sink folder or its
//!   `manifest.json`), then the first session in selection order, or `--session-id`.
//! - Several paths (or a folder of per-rank exports) behave like the TUI's
//!   `load_distributed_artifacts`: per-rank files that share a `job_id` become one
//!   synthetic distributed session, which is selected by default. Unlike the TUI,
//!   every event is kept (see docs/contracts.md).
//!
//! - CSV exports and `telemetry_timeline.json` are read only by the TUI, so one
//!   such path alone also takes the TUI's way. A CSV is read as the TUI reads it
//!   ([`super::csv`]); a timeline becomes synthesized samples ([`super::timeline`]).
//!   Their warnings (skipped rows, synthesized timelines) land in
//!   [`Dataset::warnings`], in the TUI's order, without repeats.
//!
//! Beyond stormlog: gzip anywhere (sniffed), JSONL content in a `.json` file, a
//! folder of exports whose names the TUI's globs would miss, and per-file errors
//! that do not discard the other files (where the TUI warns about a file it cannot
//! read, or stops altogether, the file is an error here).

mod artifacts;
mod distributed;
mod fast;
mod sink;

use artifacts::{accumulate, sort_by_time};
use distributed::dedupe_key;
use sink::{open_input, read_manifest, segment_paths};

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::archive::{ArchiveFs, MAX_ARCHIVE_BYTES};
use super::csv::{load_csv, CsvTarget};
use super::error::{LoadError, LoadErrorKind, LoadWarning};
use super::event::{Event, Events, Sources, StrId, Strings, NO_STR};
use super::fs::{file_name, join, parent, PathKind, TraceFs};
#[cfg(not(target_arch = "wasm32"))]
use super::parallel::{parse_parallel, parse_ranges_parallel, parse_workers, RangeWork};
use super::parse::{parse_json, parse_jsonl, LoadCtx, SessionEvents, SessionGrouper};
use super::phase_boundary::PhaseBoundary;
use super::ranges::{plan, GaveUp, ParsedRange, Preparsed, RangeMerger, RANGE_BYTES, SLACK_BYTES};
use super::reader::Input;
use super::record::RecordExtras;
use super::session::{
    sort_by_selection, stable_legacy_session_id, summary_from_json, SessionStatus, SessionSummary,
};
use super::split::{Layout, MIN_PARALLEL_BYTES};
use super::timeline::{
    synthesize, RankAllocator, Synthesized, Timeline, TimelineTarget, TIMELINE_FILE,
};
use crate::json::{Node, Tape};

const MANIFEST: &str = "manifest.json";

/// Loading settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LoadOptions {
    /// Analyse this session instead of the default one.
    pub session_id: Option<String>,
    /// Parse big files (8 MiB and more) with worker threads on native builds.
    /// The result is identical either way; errors always come from the sequential parse.
    #[serde(default = "parallel_default")]
    pub parallel: bool,
    /// Files at least this big take the parallel path ([`MIN_PARALLEL_BYTES`]; tests
    /// lower it to reach that path with small inputs).
    #[serde(default = "parallel_min_bytes_default")]
    pub parallel_min_bytes: u64,
    /// Bytes per range of the parallel path ([`RANGE_BYTES`]).
    #[serde(default = "range_bytes_default")]
    pub range_bytes: u64,
    /// Parse threads of the parallel path: 0 (the default) one per core; 1 parses on
    /// the calling thread only (as `parallel: false`). The result is identical.
    #[serde(default)]
    pub threads: usize,
}

fn parallel_default() -> bool {
    true
}

fn parallel_min_bytes_default() -> u64 {
    MIN_PARALLEL_BYTES
}

fn range_bytes_default() -> u64 {
    RANGE_BYTES
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            session_id: None,
            parallel: true,
            parallel_min_bytes: MIN_PARALLEL_BYTES,
            range_bytes: RANGE_BYTES,
            threads: 0,
        }
    }
}

/// Progress of a load, reported after every chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadProgress {
    pub file: String,
    pub file_index: usize,
    pub file_count: usize,
    /// Bytes read of this file (compressed bytes for gzip).
    pub file_done_bytes: u64,
    pub file_total_bytes: u64,
}

/// One loaded session.
#[derive(Debug, Clone)]
pub struct Session {
    pub summary: SessionSummary,
    /// Sorted by timestamp (stable).
    pub events: Vec<Event>,
    pub sources: Vec<String>,
    /// A distributed session synthesized from per-rank files.
    pub synthetic: bool,
}

/// How the inputs were combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadMode {
    /// One path, as `gpumemprof analyze`.
    Single,
    /// Several paths combined, as the TUI's distributed loader.
    Distributed,
}

/// Everything loaded, ready for attribution.
#[derive(Debug, Default)]
pub struct Dataset {
    pub strings: Strings,
    pub sources: Sources,
    pub phases: Vec<PhaseBoundary>,
    /// In stormlog's order (selection priority).
    pub sessions: Vec<Session>,
    /// The session analysed: the requested one, else stormlog's default.
    pub selected: Option<usize>,
    /// stormlog's default session, whatever was requested.
    pub default_selected: Option<usize>,
    pub mode: Option<LoadMode>,
    /// What stormlog's TUI warns about while loading (skipped CSV rows, synthesized
    /// timelines), in its order, without repeats.
    pub warnings: Vec<LoadWarning>,
}

impl Dataset {
    /// Events of the selected session (empty when there is none).
    pub fn selected_events(&self) -> Events<'_> {
        self.session_events(self.selected)
    }

    /// Events of session `index` (empty for `None` or an index out of range).
    pub fn session_events(&self, index: Option<usize>) -> Events<'_> {
        let list = index
            .and_then(|i| self.sessions.get(i))
            .map(|s| s.events.as_slice())
            .unwrap_or(&[]);
        Events::new(list, &self.sources)
    }

    /// The session to analyse for a request: `id`'s session, or stormlog's default
    /// when `id` is `None` or blank.
    pub fn session_index(&self, id: Option<&str>) -> Result<Option<usize>, LoadError> {
        match id.filter(|id| !id.trim().is_empty()) {
            None => Ok(self.default_selected),
            Some(id) => self
                .sessions
                .iter()
                .position(|s| s.summary.session_id == id)
                .map(Some)
                .ok_or_else(|| session_not_found(id)),
        }
    }
}

/// The result of a load: what could be loaded, and one error per input that could not.
#[derive(Debug, Default)]
pub struct LoadOutcome {
    pub dataset: Dataset,
    pub errors: Vec<LoadError>,
    /// How many files the parallel fast path parsed (the rest were sequential).
    pub parallel_files: usize,
}

/// Loads `paths` from `fs`.
pub fn load(
    fs: &dyn TraceFs,
    paths: &[String],
    options: &LoadOptions,
    progress: &mut dyn FnMut(&LoadProgress),
) -> LoadOutcome {
    // Archives among the paths are read as folders of their members.
    let mut archive_errors = Vec::new();
    let archives = ArchiveFs::open(fs, paths, MAX_ARCHIVE_BYTES, &mut archive_errors);
    let fs: &dyn TraceFs = if archives.is_empty() { fs } else { &archives };
    let loadable = archives.loadable(paths);
    let paths = loadable.as_slice();
    let mut loader = Loader {
        fs,
        parallel: options.parallel && options.threads != 1,
        threads: options.threads,
        parallel_min_bytes: options.parallel_min_bytes,
        range_bytes: options.range_bytes,
        parallel_files: 0,
        ctx: LoadCtx::default(),
        progress,
        file_index: 0,
        file_count: 0,
        allocator: RankAllocator::default(),
        warnings: Vec::new(),
    };
    let mut outcome = LoadOutcome::default();
    outcome.errors.extend(archive_errors);
    let single = paths.len() == 1 && is_single_input(fs, &paths[0]);
    let (sessions, default_selected, mode) = if single {
        let path = &paths[0];
        loader.file_count = count_files(fs, path);
        match loader.load_sessions(path) {
            // `gpumemprof analyze`: the first session in selection order.
            Ok(sessions) => {
                let first = (!sessions.is_empty()).then_some(0);
                (sessions, first, LoadMode::Single)
            }
            Err(e) => {
                outcome.errors.push(e);
                (Vec::new(), None, LoadMode::Single)
            }
        }
    } else {
        let inputs = expand_inputs(fs, paths, &mut outcome.errors);
        loader.file_count = inputs.iter().map(|p| count_files(fs, &p.path)).sum();
        let (sessions, default) = loader.load_distributed(&inputs, &mut outcome.errors);
        (sessions, default, LoadMode::Distributed)
    };
    outcome.parallel_files = loader.parallel_files;
    let mut dataset = Dataset {
        strings: loader.ctx.strings,
        sources: loader.ctx.sources,
        phases: loader.ctx.phases,
        sessions,
        selected: default_selected,
        default_selected,
        mode: Some(mode),
        warnings: unique_warnings(std::mem::take(&mut loader.warnings)),
    };
    // A requested session that is missing is an error, but only where something
    // loaded at all (a file that failed already explains the absence).
    match dataset.session_index(options.session_id.as_deref()) {
        Ok(selected) => dataset.selected = selected,
        Err(e) => {
            if !single || outcome.errors.is_empty() {
                outcome.errors.push(e);
            }
            dataset.selected = None;
        }
    }
    outcome.dataset = dataset;
    outcome
}

/// Strips a `.gz` suffix (any case) for suffix decisions.
fn logical_name(name: &str) -> &str {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".gz") {
        &name[..name.len() - 3]
    } else {
        name
    }
}

fn is_segment_name(name: &str) -> bool {
    let logical = logical_name(name);
    logical.starts_with("segment-") && logical.ends_with(".jsonl")
}

/// Does `dir` hold telemetry-sink segments (`resolve_telemetry_sink_segment_paths`:
/// the manifest's segments that exist, plus `segment-*.jsonl`)?
fn has_sink_segments(fs: &dyn TraceFs, dir: &str) -> bool {
    let manifest = read_manifest(fs, &join(dir, MANIFEST));
    !segment_paths(fs, dir, manifest.as_ref()).is_empty()
}

/// A CSV export (any case, gzip allowed).
fn is_csv_name(name: &str) -> bool {
    logical_name(name).to_ascii_lowercase().ends_with(".csv")
}

fn is_timeline_name(name: &str) -> bool {
    logical_name(name) == TIMELINE_FILE
}

/// One path alone is analysed as `gpumemprof analyze` would, except what only the
/// TUI reads: a CSV export, a `telemetry_timeline.json`, and a folder that is not a
/// sink (a folder of per-rank exports, a diagnose bundle). A folder with a sink
/// manifest but no segments and nothing else to read stays `analyze`'s (its error).
fn is_single_input(fs: &dyn TraceFs, path: &str) -> bool {
    match fs.kind(path) {
        PathKind::Dir => {
            if has_sink_segments(fs, path) {
                return true;
            }
            fs.kind(&join(path, MANIFEST)) == PathKind::File && {
                let (files, timelines) = discover_tui_files(fs, path);
                files.is_empty() && timelines.is_empty()
            }
        }
        _ => {
            let name = file_name(path);
            !(is_csv_name(name) || is_timeline_name(name))
        }
    }
}

fn count_files(fs: &dyn TraceFs, path: &str) -> usize {
    match fs.kind(path) {
        PathKind::Dir => fs
            .list_dir(path)
            .iter()
            .filter(|p| is_segment_name(file_name(p)))
            .count()
            .max(1),
        _ => 1,
    }
}

/// One input of the TUI's loader.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ArtifactInput {
    path: String,
    /// A `telemetry_timeline.json` found in a folder: synthesized directly, without
    /// first trying it as telemetry (`_load_artifact_directory`).
    timeline: bool,
    /// The position among the paths of the folder this file was found in (`None`
    /// for a path given itself): a folder's legacy flat files are merged apart from
    /// those given as paths, as `_load_artifact_directory` merges its own.
    folder: Option<usize>,
}

impl ArtifactInput {
    fn file(path: &str) -> ArtifactInput {
        ArtifactInput {
            path: path.to_string(),
            timeline: false,
            folder: None,
        }
    }
}

/// `Path` ordering: component by component (not the joined string).
fn sort_like_paths(paths: &mut [String]) {
    paths.sort_by(|a, b| a.split('/').cmp(b.split('/')));
}

/// What an export folder holds for the TUI (`_discover_candidate_files`, recursively):
/// its candidate files (`events.json`, `*events*.json`, `*track*.json`,
/// `*events*.csv`, `*track*.csv`, except `telemetry_timeline.json`), then every
/// `telemetry_timeline.json`, each group in path order. When the globs match nothing,
/// every JSON/JSONL/CSV file directly in the folder (beyond stormlog).
fn discover_export_files(fs: &dyn TraceFs, dir: &str) -> Vec<ArtifactInput> {
    let (mut files, timelines) = discover_tui_files(fs, dir);
    if files.is_empty() && timelines.is_empty() {
        files = fs
            .list_dir(dir)
            .into_iter()
            .filter(|p| {
                let lower = logical_name(file_name(p)).to_ascii_lowercase();
                fs.kind(p) == PathKind::File
                    && (lower.ends_with(".json")
                        || lower.ends_with(".jsonl")
                        || lower.ends_with(".csv"))
            })
            .collect();
        sort_like_paths(&mut files);
    }
    let mut out: Vec<ArtifactInput> = files.iter().map(|p| ArtifactInput::file(p)).collect();
    out.extend(timelines.into_iter().map(|path| ArtifactInput {
        path,
        timeline: true,
        folder: None,
    }));
    out
}

/// The TUI's globs over a folder, recursively: (candidate files, timelines), each
/// in path order.
fn discover_tui_files(fs: &dyn TraceFs, dir: &str) -> (Vec<String>, Vec<String>) {
    fn walk(fs: &dyn TraceFs, dir: &str, files: &mut Vec<String>, timelines: &mut Vec<String>) {
        for p in fs.list_dir(dir) {
            match fs.kind(&p) {
                PathKind::Dir => {
                    // rglob matches a folder of that name too (open() then fails).
                    if file_name(&p) == TIMELINE_FILE {
                        timelines.push(p.clone());
                    }
                    walk(fs, &p, files, timelines)
                }
                PathKind::File => {
                    let name = logical_name(file_name(&p));
                    let stem_matches = name.contains("events") || name.contains("track");
                    if name == TIMELINE_FILE {
                        timelines.push(p);
                    } else if (name.ends_with(".json") || name.ends_with(".csv")) && stem_matches {
                        files.push(p);
                    }
                }
                PathKind::Missing => {}
            }
        }
    }
    let (mut files, mut timelines) = (Vec::new(), Vec::new());
    walk(fs, dir, &mut files, &mut timelines);
    sort_like_paths(&mut files);
    sort_like_paths(&mut timelines);
    (files, timelines)
}

/// Several inputs: folders of exports become their files; sink folders stay whole.
fn expand_inputs(
    fs: &dyn TraceFs,
    paths: &[String],
    errors: &mut Vec<LoadError>,
) -> Vec<ArtifactInput> {
    let mut out = Vec::new();
    for (position, path) in paths.iter().enumerate() {
        match fs.kind(path) {
            PathKind::Dir if !has_sink_segments(fs, path) => {
                let mut files = discover_export_files(fs, path);
                for file in &mut files {
                    file.folder = Some(position);
                }
                if files.is_empty() {
                    errors.push(LoadError::new(
                        LoadErrorKind::NotFound,
                        file_name(path),
                        format!("No telemetry event payloads found in directory: {path}"),
                    ));
                }
                out.extend(files);
            }
            _ => out.push(ArtifactInput::file(path)),
        }
    }
    out
}

/// `_unique_strings` over the warnings' texts: the first of each, in order.
fn unique_warnings(warnings: Vec<LoadWarning>) -> Vec<LoadWarning> {
    let mut seen = HashSet::new();
    warnings
        .into_iter()
        .filter(|w| seen.insert(w.message.clone()))
        .collect()
}

fn session_not_found(id: &str) -> LoadError {
    let mut e = LoadError::general(
        LoadErrorKind::Session,
        format!("Requested session_id not found: {id}"),
    );
    e.field = Some("session_id".to_string());
    e
}

/// `select_default_loaded_session`: prefer sessions with events, then selection order.
fn select_default(sessions: &[Session], among: impl Fn(&Session) -> bool) -> Option<usize> {
    let candidates: Vec<usize> = (0..sessions.len())
        .filter(|&i| among(&sessions[i]))
        .collect();
    let non_empty: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| !sessions[i].events.is_empty())
        .collect();
    let pool = if non_empty.is_empty() {
        candidates
    } else {
        non_empty
    };
    pool.into_iter().min_by(|&a, &b| {
        sessions[a]
            .summary
            .selection_key()
            .cmp(&sessions[b].summary.selection_key())
    })
}

struct Loader<'a> {
    fs: &'a dyn TraceFs,
    /// Whether big files may be parsed by several threads.
    parallel: bool,
    /// How many ([`LoadOptions::threads`]).
    threads: usize,
    parallel_min_bytes: u64,
    range_bytes: u64,
    parallel_files: usize,
    ctx: LoadCtx,
    progress: &'a mut dyn FnMut(&LoadProgress),
    file_index: usize,
    file_count: usize,
    /// The TUI's rank allocator for timelines, shared by every input of the load.
    allocator: RankAllocator,
    /// The TUI's warnings, in order (repeats are removed at the end).
    warnings: Vec<LoadWarning>,
}

/// A sink manifest, read tolerantly (anything unreadable is ignored, as stormlog does).
#[derive(Default)]
struct Manifest {
    sessions: Vec<SessionSummary>,
    /// (segment file name, session id hint)
    segments: Vec<(String, Option<String>)>,
}

impl Loader<'_> {
    /// `load_telemetry_sessions(path)`: sessions in selection order.
    fn load_sessions(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let fs = self.fs;
        let name = file_name(path).to_string();
        let resolved = fs.resolve(path);
        match fs.kind(path) {
            PathKind::Missing => Err(LoadError::new(
                LoadErrorKind::NotFound,
                &name,
                format!("Path does not exist: {path}"),
            )),
            PathKind::Dir => {
                let manifest = read_manifest(fs, &join(path, MANIFEST));
                let segments = segment_paths(fs, path, manifest.as_ref());
                if segments.is_empty() {
                    let what = if manifest.is_some() {
                        format!("Telemetry sink {path} retained no segments")
                    } else {
                        format!("No telemetry event payloads found in directory: {path}")
                    };
                    return Err(LoadError::new(LoadErrorKind::NotFound, &name, what));
                }
                self.load_sink(&resolved, &segments, manifest)
            }
            PathKind::File if name == MANIFEST => {
                let manifest = read_manifest(fs, path);
                let segments = segment_paths(fs, parent(path), manifest.as_ref());
                if segments.is_empty() {
                    return Err(LoadError::new(
                        LoadErrorKind::NotFound,
                        &name,
                        format!("Telemetry sink {path} retained no segments"),
                    ));
                }
                self.load_sink(&resolved, &segments, manifest)
            }
            PathKind::File if logical_name(&name).ends_with(".jsonl") => {
                let manifest_path = join(parent(path), MANIFEST);
                let manifest = if fs.kind(&manifest_path) == PathKind::File {
                    read_manifest(fs, &manifest_path)
                } else {
                    None
                };
                self.load_sink(&resolved, &[path.to_string()], manifest)
            }
            PathKind::File => {
                let default_id = json_default_session_id(&resolved);
                let mut grouper = SessionGrouper::default();
                if self.try_parallel(path, Layout::JsonArray, &default_id, &mut grouper) {
                    return Ok(self.assemble(grouper, Vec::new(), &name, &[resolved]));
                }
                let mut input = open_input(
                    fs,
                    path,
                    &mut *self.progress,
                    &mut self.file_index,
                    self.file_count,
                )?;
                let parsed = parse_json(&mut input, &mut self.ctx, &default_id)?;
                drop(input);
                Ok(self.assemble(
                    parsed.grouper,
                    parsed.summaries.unwrap_or_default(),
                    &name,
                    &[resolved],
                ))
            }
        }
    }
}

/// The session id stormlog gives the records without one of the JSON file at
/// `resolved` (its absolute path): what helpers parsing ranges of it must use too.
pub fn json_default_session_id(resolved: &str) -> String {
    stable_legacy_session_id(&[resolved, "json"])
}

//! From paths to sessions, the way stormlog 0.4.3 does it.
//!
//! - One path behaves like `gpumemprof analyze PATH`: `load_telemetry_sessions`
//!   (a JSON file, a `.jsonl` segment, a telemetry-sink folder or its
//!   `manifest.json`), then the first session in selection order, or `--session-id`.
//! - Several paths (or a folder of per-rank exports) behave like the TUI's
//!   `load_distributed_artifacts`: per-rank files that share a `job_id` become one
//!   synthetic distributed session, which is selected by default. Unlike the TUI,
//!   every event is kept (see CONTRACTS.md).
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

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::csv::{load_csv, CsvTarget};
use super::error::{LoadError, LoadErrorKind, LoadWarning};
use super::event::{Event, Events, Sources, StrId, Strings, NO_STR};
use super::fs::{file_name, join, parent, PathKind, TraceFs};
#[cfg(not(target_arch = "wasm32"))]
#[cfg(not(target_arch = "wasm32"))]
use super::parallel::{parse_parallel, parse_ranges_parallel};
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
    let mut loader = Loader {
        fs,
        parallel: options.parallel,
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
}

impl ArtifactInput {
    fn file(path: &str) -> ArtifactInput {
        ArtifactInput {
            path: path.to_string(),
            timeline: false,
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
    }));
    out
}

/// The TUI's globs over a folder, recursively: (candidate files, timelines), each
/// in path order.
fn discover_tui_files(fs: &dyn TraceFs, dir: &str) -> (Vec<String>, Vec<String>) {
    fn walk(fs: &dyn TraceFs, dir: &str, files: &mut Vec<String>, timelines: &mut Vec<String>) {
        for p in fs.list_dir(dir) {
            match fs.kind(&p) {
                PathKind::Dir => walk(fs, &p, files, timelines),
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
    for path in paths {
        match fs.kind(path) {
            PathKind::Dir if !has_sink_segments(fs, path) => {
                let files = discover_export_files(fs, path);
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

/// A sink manifest (`read_telemetry_sink_manifest`); `None` when unreadable.
fn read_manifest(fs: &dyn TraceFs, path: &str) -> Option<Manifest> {
    let mut reader = fs.open(path).ok()?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).ok()?;
    let mut tape = Tape::default();
    let n = tape.parse_value(&bytes, 0, true).ok()?;
    if crate::json::skip_ws(&bytes, n) != bytes.len()
        || !matches!(tape.nodes[0], Node::Object { .. })
    {
        return None;
    }
    // schema_version: int(x) with default 1; below 1 counts as 1.
    let schema_version = match tape.get(0, b"schema_version") {
        Some(i) => super::session::py_int(&tape, i)
            .filter(|v| *v >= 1)
            .unwrap_or(1),
        None => 1,
    };
    let mut manifest = Manifest::default();
    if schema_version >= 2 {
        if let Some(list) = tape
            .get(0, b"sessions")
            .filter(|&i| matches!(tape.nodes[i], Node::Array { .. }))
        {
            for entry in tape.elements(list) {
                if let Ok(summary) = summary_from_json(&tape, entry) {
                    manifest.sessions.push(summary);
                }
            }
        }
    }
    if let Some(list) = tape
        .get(0, b"segments")
        .filter(|&i| matches!(tape.nodes[i], Node::Array { .. }))
    {
        for entry in tape.elements(list) {
            if !matches!(tape.nodes[entry], Node::Object { .. }) {
                continue;
            }
            let Some(filename) = tape
                .get(entry, b"filename")
                .map(|i| tape.nodes[i])
                .filter(|n| matches!(n, Node::Str { .. }))
            else {
                continue;
            };
            let session = match tape.get(entry, b"session_id").map(|i| tape.nodes[i]) {
                Some(n @ Node::Str { .. }) => Some(tape.text_of(n).into_owned()),
                _ => None,
            };
            manifest
                .segments
                .push((tape.text_of(filename).into_owned(), session));
        }
    }
    Some(manifest)
}

/// Manifest segments that exist plus discovered `segment-*.jsonl`, by name.
fn segment_paths(fs: &dyn TraceFs, dir: &str, manifest: Option<&Manifest>) -> Vec<String> {
    let mut by_name: Vec<(String, String)> = fs
        .list_dir(dir)
        .into_iter()
        .filter(|p| is_segment_name(file_name(p)) && fs.kind(p) == PathKind::File)
        .map(|p| (file_name(&p).to_string(), p))
        .collect();
    if let Some(m) = manifest {
        for (filename, _) in &m.segments {
            let p = join(dir, filename);
            if fs.kind(&p) == PathKind::File && !by_name.iter().any(|(n, _)| n == filename) {
                by_name.push((filename.clone(), p));
            }
        }
    }
    by_name.sort();
    by_name.into_iter().map(|(_, p)| p).collect()
}

impl Loader<'_> {
    fn load_sink(
        &mut self,
        resolved_input: &str,
        segments: &[String],
        manifest: Option<Manifest>,
    ) -> Result<Vec<Session>, LoadError> {
        let manifest = manifest.unwrap_or_default();
        let fallback = stable_legacy_session_id(&[resolved_input, "sink"]);
        let mut grouper = SessionGrouper::default();
        let mut sources: HashMap<StrId, Vec<String>> = HashMap::new();
        for segment in segments {
            let name = file_name(segment).to_string();
            let hint = manifest
                .segments
                .iter()
                .find(|(f, _)| *f == name)
                .and_then(|(_, s)| s.clone())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| fallback.clone());
            let before: Vec<usize> = grouper.sessions.iter().map(|s| s.events.len()).collect();
            if !self.try_parallel(segment, Layout::Jsonl, &hint, &mut grouper) {
                let mut input = open_input(
                    self.fs,
                    segment,
                    &mut *self.progress,
                    &mut self.file_index,
                    self.file_count,
                )?;
                parse_jsonl(&mut input, &mut self.ctx, &hint, &mut grouper)?;
                drop(input);
            }
            let resolved_segment = self.fs.resolve(segment);
            for (i, s) in grouper.sessions.iter().enumerate() {
                if s.events.len() > before.get(i).copied().unwrap_or(0) {
                    sources
                        .entry(s.session)
                        .or_default()
                        .push(resolved_segment.clone());
                }
            }
        }
        let name = file_name(resolved_input).to_string();
        let mut sessions = self.assemble(grouper, manifest.sessions, &name, &[]);
        for s in &mut sessions {
            let id = self.ctx.strings.intern(&s.summary.session_id);
            if let Some(list) = sources.remove(&id) {
                let mut list = list;
                list.sort();
                list.dedup();
                s.sources = list;
            }
        }
        Ok(sessions)
    }

    /// The fast paths for a big file (ranges parsed by the browser's helper workers,
    /// else threads on native builds): `true` when one parsed the whole file into
    /// `grouper`; `false` leaves the file to the sequential parse, which also reports
    /// any error exactly.
    fn try_parallel(
        &mut self,
        path: &str,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> bool {
        if let Some(pre) = self.fs.take_parsed(path) {
            if self.merge_preparsed(path, pre, layout, default_id, grouper) {
                return true;
            }
        }
        self.try_threads(path, layout, default_id, grouper)
    }

    /// Ranges parsed elsewhere (the browser's helper workers) for this file: `true`
    /// when they stitch into the whole file; `false` leaves the file to the other paths.
    fn merge_preparsed(
        &mut self,
        path: &str,
        pre: Preparsed<'_>,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> bool {
        if pre.default_session_id != default_id || layout != Layout::JsonArray {
            return false;
        }
        let slack = SLACK_BYTES.min(pre.range_bytes.max(4096));
        let tasks = plan(pre.file_bytes, pre.range_bytes, slack);
        let mut merger = RangeMerger::new(&tasks);
        let mut parsed = SessionGrouper::default();
        let merge = || -> Result<(), GaveUp> {
            for bytes in pre.ranges {
                merger.take(ParsedRange::from_bytes(&bytes)?, &mut self.ctx, &mut parsed)?;
            }
            merger.finish()
        };
        if merge().is_err() {
            return false;
        }
        let report = LoadProgress {
            file: file_name(path).to_string(),
            file_index: self.file_index,
            file_count: self.file_count.max(self.file_index + 1),
            file_done_bytes: pre.file_bytes,
            file_total_bytes: pre.file_bytes,
        };
        (self.progress)(&report);
        self.file_index += 1;
        grouper.append(parsed);
        self.parallel_files += 1;
        true
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn try_threads(
        &mut self,
        path: &str,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> bool {
        if !self.parallel || self.fs.size(path).unwrap_or(0) < self.parallel_min_bytes {
            return false;
        }
        if let Some(done) = self.try_ranges(path, layout, default_id, grouper) {
            return done;
        }
        let index = self.file_index;
        let Ok(mut input) = open_input(
            self.fs,
            path,
            &mut *self.progress,
            &mut self.file_index,
            self.file_count,
        ) else {
            self.file_index = index;
            return false;
        };
        let starts_right = match layout {
            Layout::JsonArray => {
                matches!(input.fill(), Ok(true)) && {
                    let data = input.data();
                    data.get(crate::json::skip_ws(data, 0)) == Some(&b'[')
                }
            }
            Layout::Jsonl => true,
        };
        let mut parsed = SessionGrouper::default();
        let done = starts_right
            && parse_parallel(&mut input, layout, &mut self.ctx, default_id, &mut parsed).is_ok();
        if done {
            grouper.append(parsed);
            self.parallel_files += 1;
        } else {
            self.file_index = index; // the sequential parse reports this file again
        }
        done
    }

    /// The range-parallel path ([`parse_ranges_parallel`]) for files the tree can read
    /// at any offset and that are not gzip. `None`: not applicable, try the streaming
    /// parallel path; `Some(done)` as for [`Loader::try_parallel`].
    #[cfg(not(target_arch = "wasm32"))]
    fn try_ranges(
        &mut self,
        path: &str,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> Option<bool> {
        let fs = self.fs;
        let file_bytes = fs.size(path)?;
        let mut head = Vec::new();
        if fs.read_at(path, 0, 2, &mut head)?.is_err() || head == [0x1f, 0x8b] {
            return None;
        }
        let name = file_name(path).to_string();
        let report = LoadProgress {
            file: name,
            file_index: self.file_index,
            file_count: self.file_count.max(self.file_index + 1),
            file_done_bytes: 0,
            file_total_bytes: file_bytes,
        };
        let progress = &mut *self.progress;
        progress(&report);
        let mut parsed = SessionGrouper::default();
        let mut read_at = |offset: u64, len: usize, buf: &mut Vec<u8>| {
            matches!(fs.read_at(path, offset, len, buf), Some(Ok(())))
        };
        // Small ranges (tests) read less slack first: a longer record means a second try.
        let slack = SLACK_BYTES.min(self.range_bytes.max(4096));
        let done = parse_ranges_parallel(
            &mut read_at,
            &plan(file_bytes, self.range_bytes, slack),
            layout,
            &mut self.ctx,
            default_id,
            &mut parsed,
            &mut |bytes| {
                let mut r = report.clone();
                r.file_done_bytes = bytes;
                progress(&r);
            },
        )
        .is_ok();
        if done {
            self.file_index += 1;
            grouper.append(parsed);
            self.parallel_files += 1;
        }
        Some(done)
    }

    /// wasm32 has no threads: always the sequential parse.
    #[cfg(target_arch = "wasm32")]
    fn try_threads(
        &mut self,
        _path: &str,
        _layout: Layout,
        _default_id: &str,
        _grouper: &mut SessionGrouper,
    ) -> bool {
        let _requested = (self.parallel, self.parallel_min_bytes, self.range_bytes);
        false
    }

    /// `_assemble_loaded_sessions`: grouped events plus manifest/tracker summaries,
    /// each session sorted by time, all sessions in selection order.
    fn assemble(
        &mut self,
        grouper: SessionGrouper,
        summaries: Vec<SessionSummary>,
        name: &str,
        sources: &[String],
    ) -> Vec<Session> {
        let mut sessions: Vec<Session> = Vec::new();
        for group in grouper.sessions {
            let id = self.ctx.strings.str(group.session).to_string();
            let summary = match summaries.iter().find(|s| s.session_id == id) {
                Some(s) => s.clone(),
                None => self.infer_summary(&group, name),
            };
            let events = sort_by_time(group.events);
            sessions.push(Session {
                summary,
                events,
                sources: sources.to_vec(),
                synthetic: false,
            });
        }
        for summary in summaries {
            if !sessions
                .iter()
                .any(|s| s.summary.session_id == summary.session_id)
            {
                sessions.push(Session {
                    summary,
                    events: Vec::new(),
                    sources: sources.to_vec(),
                    synthetic: false,
                });
            }
        }
        sort_by_selection(&mut sessions, |s| &s.summary);
        sessions
    }

    /// `infer_session_summary_from_events` (fallback status: incomplete).
    fn infer_summary(&self, group: &SessionEvents, name: &str) -> SessionSummary {
        let strings = &self.ctx.strings;
        let Some((first, extras)) = group.first else {
            // A group always holds at least one event; keep a harmless default anyway.
            return SessionSummary {
                session_id: strings.str(group.session).to_string(),
                status: SessionStatus::Incomplete,
                started_at_ns: 0,
                ended_at_ns: None,
                host: "unknown".to_string(),
                pid: -1,
                job_id: None,
                rank: 0,
                local_rank: 0,
                world_size: 1,
                source: format!("artifact:{name}"),
            };
        };
        let source = self.ctx.sources.of(&first);
        let (status, ended) = match group.last_stop_ns {
            Some(t) => (SessionStatus::Completed, Some(i128::from(t))),
            None => (SessionStatus::Incomplete, None),
        };
        SessionSummary {
            session_id: strings.str(group.session).to_string(),
            status,
            started_at_ns: i128::from(first.timestamp_ns),
            ended_at_ns: ended,
            host: strings.str(extras.host).to_string(),
            pid: extras.pid,
            job_id: strings.get(extras.job_id).map(str::to_string),
            rank: i128::from(source.rank),
            local_rank: i128::from(source.local_rank),
            world_size: i128::from(source.world_size.max(1)),
            source: format!("artifact:{name}"),
        }
    }
}

/// Opens `path` as a streamed [`Input`] reporting progress.
fn open_input<'p>(
    fs: &'p dyn TraceFs,
    path: &str,
    progress: &'p mut dyn FnMut(&LoadProgress),
    file_index: &mut usize,
    file_count: usize,
) -> Result<Input<'p>, LoadError> {
    let name = file_name(path).to_string();
    let source = fs.open(path).map_err(|e| {
        LoadError::new(LoadErrorKind::Io, &name, format!("cannot open {path}: {e}"))
    })?;
    let report = LoadProgress {
        file: name.clone(),
        file_index: *file_index,
        file_count: file_count.max(*file_index + 1),
        file_done_bytes: 0,
        file_total_bytes: fs.size(path).unwrap_or(0),
    };
    *file_index += 1;
    progress(&report);
    let callback = Box::new(move |done: u64| {
        let mut r = report.clone();
        r.file_done_bytes = done;
        progress(&r);
    });
    Input::new(&name, source, Some(callback))
}

// ── Several inputs: the TUI's distributed loader ───────────────────────────

/// What `_dedupe_events` compares: (session, time, rank, local rank, world size,
/// type, allocated, reserved, used, context-or-""); `empty` is the id of "".
type DedupeKey = (
    StrId,
    i64,
    i64,
    i64,
    i64,
    StrId,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    StrId,
);

fn dedupe_key(e: &Event, sources: &Sources, empty: StrId) -> DedupeKey {
    let context = if e.context == NO_STR {
        empty
    } else {
        e.context
    };
    let source = sources.of(e);
    (
        e.session,
        e.timestamp_ns,
        source.rank,
        source.local_rank,
        source.world_size,
        source.event_type,
        e.allocator_allocated_bytes(),
        e.allocator_reserved_bytes(),
        e.device_used_bytes(),
        context,
    )
}

/// `_dedupe_events`: drop repeats, keeping the first.
fn dedupe(events: Vec<Event>, strings: &mut Strings, sources: &Sources) -> Vec<Event> {
    let empty = strings.intern("");
    let mut seen = HashSet::with_capacity(events.len());
    events
        .into_iter()
        .filter(|e| seen.insert(dedupe_key(e, sources, empty)))
        .collect()
}

/// The lifecycle of merged summaries (`_create_merged_session_summary`).
fn merged_summary(summaries: &[&SessionSummary], session_id: &str, source: &str) -> SessionSummary {
    let all_completed = summaries
        .iter()
        .all(|s| s.status == SessionStatus::Completed);
    let ended = if all_completed {
        summaries.iter().filter_map(|s| s.ended_at_ns).max()
    } else {
        None
    };
    let common = |values: Vec<Option<&str>>| -> Option<String> {
        let mut distinct: Vec<&str> = values.into_iter().flatten().collect();
        distinct.sort();
        distinct.dedup();
        (distinct.len() == 1).then(|| distinct[0].to_string())
    };
    let pids: HashSet<i128> = summaries.iter().map(|s| s.pid).collect();
    SessionSummary {
        session_id: session_id.to_string(),
        status: if all_completed {
            SessionStatus::Completed
        } else {
            SessionStatus::Incomplete
        },
        started_at_ns: summaries.iter().map(|s| s.started_at_ns).min().unwrap_or(0),
        ended_at_ns: ended,
        host: common(summaries.iter().map(|s| Some(s.host.as_str())).collect())
            .unwrap_or_else(|| "multiple".to_string()),
        pid: if pids.len() == 1 {
            summaries.first().map(|s| s.pid).unwrap_or(-1)
        } else {
            -1
        },
        job_id: common(summaries.iter().map(|s| s.job_id.as_deref()).collect()),
        rank: summaries.iter().map(|s| s.rank).min().unwrap_or(0),
        local_rank: summaries.iter().map(|s| s.local_rank).min().unwrap_or(0),
        world_size: summaries
            .iter()
            .map(|s| s.world_size)
            .max()
            .unwrap_or(1)
            .max(1),
        source: source.to_string(),
    }
}

/// `_merge_loaded_session_group`: one session from several, under a new id.
fn merge_group(
    group: &[&Session],
    session_id: &str,
    source: &str,
    strings: &mut Strings,
    sources: &Sources,
) -> Session {
    let id = strings.intern(session_id);
    let events: Vec<Event> = group
        .iter()
        .flat_map(|s| s.events.iter())
        .map(|e| {
            let mut e = *e;
            e.session = id;
            e
        })
        .collect();
    let events = sort_by_time(dedupe(events, strings, sources));
    let mut sources: Vec<String> = group
        .iter()
        .flat_map(|s| s.sources.iter().cloned())
        .collect();
    sources.sort();
    sources.dedup();
    let summaries: Vec<&SessionSummary> = group.iter().map(|s| &s.summary).collect();
    Session {
        summary: merged_summary(&summaries, session_id, source),
        events,
        sources,
        synthetic: true,
    }
}

impl Loader<'_> {
    /// The sessions of several inputs, and stormlog's default among them (a
    /// synthesized distributed session first). Failed inputs land in `errors`.
    fn load_distributed(
        &mut self,
        inputs: &[ArtifactInput],
        errors: &mut Vec<LoadError>,
    ) -> (Vec<Session>, Option<usize>) {
        // Accumulated sessions by id, in first-seen order.
        let mut accumulated: Vec<Session> = Vec::new();
        let mut legacy_flat: Vec<Session> = Vec::new();
        let mut single_session_ids: HashSet<String> = HashSet::new();
        for input in inputs {
            let path = &input.path;
            let loaded = if input.timeline {
                self.load_timeline(path)
            } else {
                self.load_artifact_file(path)
            };
            let sessions = match loaded {
                Ok(s) => s,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            // _is_legacy_sessionless_flat_file (not for a folder's timelines, which
            // the TUI accumulates directly).
            let name = logical_name(file_name(path)).to_ascii_lowercase();
            let kind = if name.ends_with(".csv") {
                "csv"
            } else {
                "json"
            };
            let legacy_id = stable_legacy_session_id(&[&self.fs.resolve(path), kind]);
            let is_legacy = !input.timeline
                && self.fs.kind(path) == PathKind::File
                && (name.ends_with(".json") || name.ends_with(".jsonl") || name.ends_with(".csv"))
                && !sessions.is_empty()
                && sessions.iter().all(|s| s.summary.session_id == legacy_id);
            if is_legacy {
                legacy_flat.extend(sessions);
                continue;
            }
            if sessions.len() == 1 {
                single_session_ids.insert(sessions[0].summary.session_id.clone());
            }
            accumulate(&mut accumulated, sessions);
        }
        if !legacy_flat.is_empty() {
            let mut sources: Vec<String> = legacy_flat
                .iter()
                .flat_map(|s| s.sources.iter().cloned())
                .collect();
            sources.sort();
            sources.dedup();
            let mut parts: Vec<&str> = vec!["distributed.legacy"];
            parts.extend(sources.iter().map(String::as_str));
            let id = stable_legacy_session_id(&parts);
            let refs: Vec<&Session> = legacy_flat.iter().collect();
            let mut merged = merge_group(
                &refs,
                &id,
                "stormlog.diagnostics.legacy",
                &mut self.ctx.strings,
                &self.ctx.sources,
            );
            merged.synthetic = false;
            accumulate(&mut accumulated, vec![merged]);
        }
        // _finalize_loaded_sessions
        let mut sessions: Vec<Session> = accumulated
            .into_iter()
            .map(|mut s| {
                let events = std::mem::take(&mut s.events);
                let events = sort_by_time(dedupe(events, &mut self.ctx.strings, &self.ctx.sources));
                s.events = events;
                s.sources.sort();
                s.sources.dedup();
                s
            })
            .collect();
        sort_by_selection(&mut sessions, |s| &s.summary);

        // _synthesize_distributed_sessions
        let mut groups: Vec<((String, i128), Vec<usize>)> = Vec::new();
        for (i, s) in sessions.iter().enumerate() {
            let sum = &s.summary;
            let Some(job_id) = &sum.job_id else { continue };
            if !single_session_ids.contains(&sum.session_id)
                || sum.world_size <= 1
                || s.events.is_empty()
            {
                continue;
            }
            let key = (job_id.clone(), sum.world_size);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(i),
                None => groups.push((key, vec![i])),
            }
        }
        let mut synthetic: Vec<Session> = Vec::new();
        for ((job_id, world_size), members) in &groups {
            if members.len() <= 1 || members.len() as i128 > *world_size {
                continue;
            }
            let ranks: HashSet<i128> = members.iter().map(|&i| sessions[i].summary.rank).collect();
            if ranks.len() != members.len() {
                continue;
            }
            let mut ids: Vec<&str> = members
                .iter()
                .map(|&i| sessions[i].summary.session_id.as_str())
                .collect();
            ids.sort();
            let ws = world_size.to_string();
            let mut parts: Vec<&str> = vec!["distributed.rank_group", job_id, &ws];
            parts.extend(ids);
            let id = stable_legacy_session_id(&parts);
            let refs: Vec<&Session> = members.iter().map(|&i| &sessions[i]).collect();
            synthetic.push(merge_group(
                &refs,
                &id,
                "stormlog.diagnostics.distributed",
                &mut self.ctx.strings,
                &self.ctx.sources,
            ));
        }
        let synthetic_ids: HashSet<String> = synthetic
            .iter()
            .map(|s| s.summary.session_id.clone())
            .collect();
        if !synthetic.is_empty() {
            sessions.extend(synthetic);
            sort_by_selection(&mut sessions, |s| &s.summary);
        }
        let default = if synthetic_ids.is_empty() {
            select_default(&sessions, |_| true)
        } else {
            select_default(&sessions, |s| synthetic_ids.contains(&s.summary.session_id))
        };
        (sessions, default)
    }
}

impl Loader<'_> {
    /// `_load_artifact_file`: a CSV as the TUI reads it; JSON as telemetry, and a
    /// `telemetry_timeline.json` that is not telemetry as a timeline. The events of
    /// what loaded register their ranks with the timeline allocator.
    fn load_artifact_file(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let name = file_name(path).to_string();
        let is_file = self.fs.kind(path) == PathKind::File;
        if is_file && is_csv_name(&name) {
            let sessions = self.load_csv_file(path)?;
            self.register(&sessions);
            return Ok(sessions);
        }
        match self.load_sessions(path) {
            Ok(sessions) => {
                self.register(&sessions);
                Ok(sessions)
            }
            Err(_) if is_file && is_timeline_name(&name) => self.load_timeline(path),
            Err(e) => Err(e),
        }
    }

    fn register(&mut self, sessions: &[Session]) {
        for s in sessions {
            let events = Events::new(&s.events, &self.ctx.sources);
            self.allocator.register_events(events);
        }
    }

    /// `_load_csv_sessions`.
    fn load_csv_file(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let fs = self.fs;
        let resolved = fs.resolve(path);
        let default_id = stable_legacy_session_id(&[&resolved, "csv"]);
        let mut input = open_input(
            fs,
            path,
            &mut *self.progress,
            &mut self.file_index,
            self.file_count,
        )?;
        let mut target = CsvTarget {
            strings: &mut self.ctx.strings,
            sources: &mut self.ctx.sources,
            phases: &mut self.ctx.phases,
            default_session_id: &default_id,
            resolved: &resolved,
        };
        let loaded = load_csv(&mut input, &mut target)?;
        drop(input);
        self.warnings.extend(loaded.warnings);
        Ok(tui_sessions_from_events(
            loaded.events,
            &mut self.ctx.strings,
            &self.ctx.sources,
            &resolved,
            None,
        ))
    }

    /// `_synthesize_sessions_from_timeline`.
    fn load_timeline(&mut self, path: &str) -> Result<Vec<Session>, LoadError> {
        let fs = self.fs;
        let input = open_input(
            fs,
            path,
            &mut *self.progress,
            &mut self.file_index,
            self.file_count,
        );
        let mut target = TimelineTarget {
            strings: &mut self.ctx.strings,
            sources: &mut self.ctx.sources,
            phases: &mut self.ctx.phases,
            allocator: &mut self.allocator,
        };
        match synthesize(fs, path, input, &mut target)? {
            Timeline::Skipped(warning) => {
                self.warnings.push(warning);
                Ok(Vec::new())
            }
            Timeline::Synthesized(synthesized) => {
                let Synthesized {
                    events,
                    summary,
                    warning,
                } = *synthesized;
                self.warnings.push(warning);
                Ok(tui_sessions_from_events(
                    events,
                    &mut self.ctx.strings,
                    &self.ctx.sources,
                    &fs.resolve(path),
                    Some(summary),
                ))
            }
        }
    }
}

/// `_load_sessions_from_events`: events grouped by session in first-seen order,
/// each group deduplicated and stably sorted by time; its summary is `summary` when
/// the ids match, else built from the first event (completed only when the LAST
/// event is a `stop`; unlike `infer_summary`, an earlier `stop` does not count).
fn tui_sessions_from_events(
    events: Vec<(Event, RecordExtras)>,
    strings: &mut Strings,
    sources: &Sources,
    source_path: &str,
    summary: Option<SessionSummary>,
) -> Vec<Session> {
    let mut groups: Vec<(StrId, Vec<(Event, RecordExtras)>)> = Vec::new();
    for pair in events {
        match groups.iter_mut().find(|(id, _)| *id == pair.0.session) {
            Some((_, list)) => list.push(pair),
            None => groups.push((pair.0.session, vec![pair])),
        }
    }
    let empty = strings.intern("");
    let name = file_name(source_path).to_string();
    let mut sessions = Vec::with_capacity(groups.len());
    for (id, list) in groups {
        let mut seen = HashSet::with_capacity(list.len());
        let mut list: Vec<(Event, RecordExtras)> = list
            .into_iter()
            .filter(|(e, _)| seen.insert(dedupe_key(e, sources, empty)))
            .collect();
        list.sort_by_key(|(e, _)| e.timestamp_ns); // stable
        let session_id = strings.str(id).to_string();
        let summary = match summary.as_ref().filter(|s| s.session_id == session_id) {
            Some(s) => s.clone(),
            None => {
                let Some((first, extras)) = list.first() else {
                    continue;
                };
                let source = sources.of(first);
                let last_stop = list
                    .last()
                    .filter(|(e, _)| sources.of(e).is_stop())
                    .map(|(e, _)| e.timestamp_ns);
                SessionSummary {
                    session_id,
                    status: if last_stop.is_some() {
                        SessionStatus::Completed
                    } else {
                        SessionStatus::Incomplete
                    },
                    started_at_ns: i128::from(first.timestamp_ns),
                    ended_at_ns: last_stop.map(i128::from),
                    host: strings.str(extras.host).to_string(),
                    pid: extras.pid,
                    job_id: strings.get(extras.job_id).map(str::to_string),
                    rank: i128::from(source.rank),
                    local_rank: i128::from(source.local_rank),
                    world_size: i128::from(source.world_size.max(1)),
                    source: format!("artifact:{name}"),
                }
            }
        };
        sessions.push(Session {
            summary,
            events: list.into_iter().map(|(e, _)| e).collect(),
            sources: vec![source_path.to_string()],
            synthetic: false,
        });
    }
    sessions
}

/// `_accumulate_loaded_sessions`: same-id sessions merge (the better summary wins).
fn accumulate(accumulated: &mut Vec<Session>, sessions: Vec<Session>) {
    for s in sessions {
        match accumulated
            .iter_mut()
            .find(|a| a.summary.session_id == s.summary.session_id)
        {
            Some(a) => {
                if s.summary.selection_key() < a.summary.selection_key() {
                    a.summary = s.summary;
                }
                a.events.extend(s.events);
                a.sources.extend(s.sources);
            }
            None => accumulated.push(s),
        }
    }
}

/// Events stably sorted by timestamp, in place: sorts (time, position) keys, then
/// follows the permutation's cycles, so each event moves once and no second copy of
/// the events is ever held (16 bytes of key per event instead).
fn sort_by_time(mut events: Vec<Event>) -> Vec<Event> {
    if events
        .windows(2)
        .all(|w| w[0].timestamp_ns <= w[1].timestamp_ns)
    {
        return events;
    }
    let mut keys: Vec<(i64, u32)> = events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.timestamp_ns, i as u32))
        .collect();
    // The position breaks ties, so an unstable sort keeps equal times in input order.
    keys.sort_unstable();
    // keys[i].1 is where position i's event comes from; DONE marks filled positions.
    const DONE: u32 = u32::MAX;
    for start in 0..keys.len() {
        if keys[start].1 == DONE || keys[start].1 as usize == start {
            continue;
        }
        let held = events[start];
        let mut at = start;
        loop {
            let from = keys[at].1 as usize;
            keys[at].1 = DONE;
            if from == start {
                events[at] = held;
                break;
            }
            events[at] = events[from];
            at = from;
        }
    }
    events
}

//! The worker's attribution job: dropped files become a [`TraceFs`] read through
//! [`BlobReader`]s, and the core loads and attributes them exactly as the CLI does.

use std::io::Read;

use shardscope_core::attribution::{attribute, AttributionConfig, AttributionResult};
use shardscope_core::phases::PhaseReplayIndex;
use shardscope_core::trace::fs::{children_among, kind_among};
use shardscope_core::trace::{load, LoadOptions, LoadProgress, PathKind, TraceFs};
use wasm_bindgen::JsCast;
use web_sys::Blob;

use crate::protocol::{
    AttributeSettings, AttributionReport, FileProblem, IntervalRow, NamedBlob, SessionInfo,
    TRACE_CHUNK_BYTES,
};
use crate::worker::BlobReader;

/// Dropped files (names may be relative paths inside a dropped folder) as a file tree.
pub struct BlobFs {
    files: Vec<(String, Blob)>,
}

impl BlobFs {
    pub fn new(files: &[NamedBlob]) -> BlobFs {
        BlobFs {
            files: files
                .iter()
                .map(|f| (f.name.trim_matches('/').to_string(), f.blob.clone()))
                .collect(),
        }
    }

    /// The paths to load: each top-level file, and each top-level folder once.
    pub fn roots(&self) -> Vec<String> {
        let mut roots: Vec<String> = Vec::new();
        for (name, _) in &self.files {
            let root = name.split('/').next().unwrap_or(name).to_string();
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        roots
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(n, _)| n.as_str())
    }

    fn blob(&self, path: &str) -> Option<&Blob> {
        let path = path.trim_matches('/');
        self.files.iter().find(|(n, _)| n == path).map(|(_, b)| b)
    }
}

fn blob_size(blob: &Blob) -> u64 {
    blob.size().max(0.0) as u64
}

impl TraceFs for BlobFs {
    fn kind(&self, path: &str) -> PathKind {
        kind_among(self.names(), path.trim_start_matches('/'))
    }

    fn list_dir(&self, path: &str) -> Vec<String> {
        children_among(self.names(), path.trim_start_matches('/'))
    }

    fn open(&self, path: &str) -> std::io::Result<Box<dyn Read + '_>> {
        let blob = self.blob(path).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such dropped file")
        })?;
        let reader =
            BlobReader::new(blob.clone(), TRACE_CHUNK_BYTES).map_err(std::io::Error::other)?;
        Ok(Box::new(reader))
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.blob(path).map(blob_size)
    }

    fn resolve(&self, path: &str) -> String {
        format!("/{}", path.trim_matches('/'))
    }
}

/// Milliseconds from the worker's clock.
fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

fn row(result: &AttributionResult) -> IntervalRow {
    let clamp = |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
    let e = &result.evidence;
    IntervalRow {
        rank: result.rank,
        interval_start_ns: clamp(result.interval_start_ns),
        interval_end_ns: clamp(result.interval_end_ns),
        classification: result.classification.as_str().to_string(),
        confidence: result.confidence,
        reason_codes: result.reason_codes.iter().map(|r| r.to_string()).collect(),
        marker_hits: e.marker_hits,
        synchronized_ranks: e.synchronized_ranks,
        expected_world_size: e.expected_world_size,
        synchrony_ratio: e.synchrony_ratio,
        peak_gap_bytes: e.peak_gap_bytes,
        peak_gap_ratio: e.peak_gap_ratio,
        robust_zscore: e.robust_zscore,
        phase: match &result.phase_attribution {
            Some(Some(p)) => p.phase_path.clone().or_else(|| {
                (!p.phase_paths.is_empty())
                    .then(|| format!("(ambiguous) {}", p.phase_paths.join(" | ")))
            }),
            _ => None,
        },
    }
}

/// Load `files` and attribute the selected session. `progress(done, total, stage)`
/// is called as bytes are read. Problems with single files are reported in the
/// result, next to what the other files gave.
pub fn run(
    files: &[NamedBlob],
    settings: &AttributeSettings,
    progress: &mut dyn FnMut(u64, u64, &str),
) -> AttributionReport {
    let fs = BlobFs::new(files);
    let sizes: Vec<(String, u64)> = files
        .iter()
        .map(|f| (f.name.clone(), blob_size(&f.blob)))
        .collect();
    let total: u64 = sizes.iter().map(|(_, s)| s).sum();
    let mut done_before = 0u64;
    let mut current = String::new();
    let mut current_bytes = 0u64;
    let options = LoadOptions {
        session_id: settings.session_id.clone().filter(|s| !s.trim().is_empty()),
        parallel: false,
    };
    let started = now_ms();
    let outcome = load(&fs, &fs.roots(), &options, &mut |p: &LoadProgress| {
        if p.file != current {
            done_before += current_bytes;
            current = p.file.clone();
        }
        current_bytes = p.file_done_bytes;
        progress(
            (done_before + current_bytes).min(total),
            total,
            &format!("reading {}", p.file),
        );
    });
    let parsed = now_ms();
    let mut problems: Vec<FileProblem> = outcome
        .errors
        .iter()
        .map(|e| FileProblem {
            file: e.file.clone(),
            message: if e.file.is_empty() {
                e.message.clone()
            } else {
                e.describe()
            },
        })
        .collect();
    let dataset = outcome.dataset;
    let events = dataset.selected_events();
    let rows = match AttributionConfig::resolve(&settings.preset, &settings.overrides) {
        Ok(config) => {
            let index = settings
                .phases
                .then(|| PhaseReplayIndex::from_events(events, &dataset.phases));
            attribute(events, &config, index.as_ref())
                .iter()
                .map(row)
                .collect()
        }
        Err(e) => {
            problems.push(FileProblem {
                file: String::new(),
                message: format!("Settings: {}", e.message),
            });
            Vec::new()
        }
    };
    let finished = now_ms();
    AttributionReport {
        files: sizes,
        events: events.len() as u64,
        parse_ms: parsed - started,
        attribute_ms: finished - parsed,
        sessions: dataset
            .sessions
            .iter()
            .map(|s| SessionInfo {
                session_id: s.summary.session_id.clone(),
                status: s.summary.status.as_str().to_string(),
                events: s.events.len() as u64,
                distributed: s.synthetic,
            })
            .collect(),
        selected_session: dataset
            .selected
            .and_then(|i| dataset.sessions.get(i))
            .map(|s| s.summary.session_id.clone()),
        trace_start_ns: events.iter().map(|e| e.timestamp_ns).min(),
        trace_end_ns: events.iter().map(|e| e.timestamp_ns).max(),
        rows,
        problems,
    }
}

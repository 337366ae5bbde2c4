//! The worker's trace state: dropped files loaded once through the core's pipeline
//! ([`shardscope_core::analysis`]), then kept, so that new settings re-attribute the
//! parsed events, the timeline asks for windows and exports are made without reading
//! any file again.

use shardscope_core::analysis::{
    export, load_traces, reattribute, AnalyzeError, AnalyzeSettings, Attribution,
};
use shardscope_core::trace::Dataset;
use shardscope_core::view::lod::{TimelineIndex, WindowQuery};
use wasm_bindgen::JsCast;

use crate::blob::{blob_size, BlobFs};
use crate::protocol::{ExportFormat, NamedBlob, SessionInfo, Stage, TraceReport, WindowPayload};

/// Milliseconds from the worker's clock.
fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// What one load left in the worker.
pub struct TraceJob {
    files: Vec<(String, u64)>,
    dataset: Dataset,
    load_errors: Vec<shardscope_core::trace::LoadError>,
    parse_ms: f64,
    /// The last successful attribution and the session it analysed.
    attribution: Option<Attribution>,
    /// The timeline index of `attribution`'s session.
    index: TimelineIndex,
    indexed_session: Option<usize>,
}

impl TraceJob {
    /// Load `files` and attribute with `settings`. Problems with single files are
    /// reported in the report, next to what the other files gave.
    pub fn load(
        files: &[NamedBlob],
        settings: &AnalyzeSettings,
        progress: &mut dyn FnMut(u64, u64, Stage),
    ) -> (TraceJob, TraceReport) {
        let fs = BlobFs::new(files);
        let sizes: Vec<(String, u64)> = files
            .iter()
            .map(|f| (f.name.clone(), blob_size(&f.blob)))
            .collect();
        let total: u64 = sizes.iter().map(|(_, s)| s).sum();
        let (mut done_before, mut current, mut current_bytes) = (0u64, String::new(), 0u64);
        let started = now_ms();
        let loaded = load_traces(&fs, &fs.roots(), settings, false, &mut |p| {
            if p.file != current {
                done_before += current_bytes;
                current = p.file.clone();
            }
            current_bytes = p.file_done_bytes;
            progress(
                (done_before + current_bytes).min(total),
                total,
                Stage::Reading {
                    file: p.file.clone(),
                },
            );
        });
        let parse_ms = now_ms() - started;
        progress(total, total, Stage::Attributing);
        let attribution_started = now_ms();
        let attribution = reattribute(&loaded.dataset, settings);
        let attribute_ms = now_ms() - attribution_started;
        progress(total, total, Stage::Indexing);
        let mut job = TraceJob {
            files: sizes,
            dataset: loaded.dataset,
            load_errors: loaded.load_errors,
            parse_ms,
            attribution: None,
            index: TimelineIndex::default(),
            indexed_session: None,
        };
        let report = job.finish(settings, attribution, attribute_ms);
        (job, report)
    }

    /// Attribute the kept dataset with other settings.
    pub fn reattribute(
        &mut self,
        settings: &AnalyzeSettings,
        progress: &mut dyn FnMut(u64, u64, Stage),
    ) -> TraceReport {
        progress(0, 0, Stage::Attributing);
        let started = now_ms();
        let attribution = reattribute(&self.dataset, settings);
        let ms = now_ms() - started;
        self.parse_ms = 0.0;
        self.finish(settings, attribution, ms)
    }

    /// Keep a new attribution (a rejected one keeps the last good one) and report.
    fn finish(
        &mut self,
        settings: &AnalyzeSettings,
        attribution: Result<Attribution, AnalyzeError>,
        attribute_ms: f64,
    ) -> TraceReport {
        let mut problems = self.load_errors.clone();
        let mut settings_problem = None;
        match attribution {
            Ok(a) => self.attribution = Some(a),
            Err(AnalyzeError::Settings(e)) => settings_problem = Some(e),
            // A missing session is already among the load errors after a load.
            Err(AnalyzeError::Load(e)) if problems.contains(&e) => {}
            Err(AnalyzeError::Load(e)) => problems.push(e),
        }
        let session = self.attribution.as_ref().and_then(|a| a.session);
        if self.indexed_session != session || self.index.ranks.is_empty() {
            self.index = TimelineIndex::build(self.dataset.session_events(session));
            self.indexed_session = session;
        }
        let rows = self
            .attribution
            .as_ref()
            .map(Attribution::rows)
            .unwrap_or_default();
        let events = self.dataset.session_events(session);
        let name_of = |i: Option<usize>| {
            i.and_then(|i| self.dataset.sessions.get(i))
                .map(|s| s.summary.session_id.clone())
        };
        TraceReport {
            files: self.files.clone(),
            events: events.len() as u64,
            parse_ms: self.parse_ms,
            attribute_ms,
            sessions: self
                .dataset
                .sessions
                .iter()
                .map(|s| SessionInfo {
                    session_id: s.summary.session_id.clone(),
                    status: s.summary.status.as_str().to_string(),
                    events: s.events.len() as u64,
                    distributed: s.synthetic,
                })
                .collect(),
            default_session: name_of(self.dataset.default_selected),
            selected_session: name_of(session),
            trace_start_ns: (!events.is_empty()).then_some(self.index.start_ns),
            trace_end_ns: (!events.is_empty()).then_some(self.index.end_ns),
            ranks: self.index.rank_summaries(&rows),
            config: settings_problem
                .is_none()
                .then(|| self.attribution.as_ref().map(|a| a.config.clone()))
                .flatten(),
            phases: settings.phases,
            rows,
            problems,
            settings_problem,
            warnings: self.dataset.warnings.clone(),
        }
    }

    pub fn window(&self, query: &WindowQuery) -> WindowPayload {
        let started = now_ms();
        let mut payload = WindowPayload::pack(&self.index.query(query));
        payload.query_ms = now_ms() - started;
        payload
    }

    /// The overview strip, `f32` little-endian per column.
    pub fn overview(&self, columns: u32, ranks: Option<&[i64]>) -> Vec<u8> {
        self.index
            .overview(columns, ranks)
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    }

    /// The current results exactly as `shardscope attribute --format …` prints them.
    pub fn export(&self, format: ExportFormat) -> String {
        let results = self
            .attribution
            .as_ref()
            .map(|a| a.results.as_slice())
            .unwrap_or_default();
        match format {
            ExportFormat::Json => export::to_json(results),
            ExportFormat::Csv => export::to_csv(results),
        }
    }
}

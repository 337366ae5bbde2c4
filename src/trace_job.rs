//! The worker's trace state: dropped files loaded once through the core's pipeline
//! ([`shardscope_attribution::analysis`]), then kept, so that new settings re-attribute the
//! parsed events, the timeline asks for windows and exports are made without reading
//! any file again.

use shardscope_attribution::analysis::compare::RunFacts;
use shardscope_attribution::analysis::perfetto::{self, to_perfetto};
use shardscope_attribution::analysis::{
    export, load_traces, on_reference_clock, reattribute, session_clocks, AnalyzeError,
    AnalyzeSettings, Attribution,
};
use shardscope_trace::trace::event::Events;
use shardscope_trace::trace::Dataset;
use shardscope_view::lod::{overview_to_bytes, TimelineIndex, WindowQuery};

use crate::blob::{blob_size, BlobFs};
use crate::clock::{now_ms, wasm_memory_bytes};
use crate::protocol::{
    ExportFormat, NamedBlob, ParsedFile, SessionInfo, Stage, TraceReport, WindowPayload,
};

/// Run every hot path of a load once on a small synthetic trace (parse, ranges,
/// attribution, timeline index), so that the browser compiles them with its optimizing
/// tier before a real file arrives: a cold first load parses about 2× slower. The
/// compiled code is shared by the page's later workers. Returns the milliseconds spent.
pub fn warm_up() -> f64 {
    use shardscope_trace::json::Tape;
    use shardscope_trace::trace::ranges::{parse_range, plan};
    use shardscope_trace::trace::split::Layout;
    use shardscope_trace::trace::MemFs;
    let started = now_ms();
    let mut bytes = Vec::new();
    if shardscope_trace::trace::synthetic::write_trace(&mut bytes, 8, 600).is_err() {
        return 0.0;
    }
    let size = bytes.len() as u64;
    let mut tape = Tape::default();
    for task in plan(size, size.div_ceil(2).max(1), size) {
        let (offset, len) = task.read_span();
        let span = &bytes[offset as usize..(offset + len) as usize];
        let _ = parse_range(&task, Layout::JsonArray, span, "warm-up", &mut tape);
    }
    let mut fs = MemFs::new();
    fs.insert("warm-up.json", bytes);
    let settings = AnalyzeSettings::default();
    let loaded = load_traces(
        &fs,
        &["warm-up.json".to_string()],
        &settings,
        false,
        &mut |_| {},
    );
    if let Ok(attribution) = reattribute(&loaded.dataset, &settings) {
        let index = TimelineIndex::build(loaded.dataset.session_events(attribution.session));
        let _ = index.query(&WindowQuery {
            start_ns: index.start_ns,
            end_ns: index.end_ns,
            columns: 1000,
            ranks: None,
        });
    }
    now_ms() - started
}

/// What one load left in the worker.
pub struct TraceJob {
    files: Vec<(String, u64)>,
    dataset: Dataset,
    load_errors: Vec<shardscope_trace::trace::LoadError>,
    parse_ms: f64,
    read_ms: f64,
    stitched_files: u64,
    /// The last successful attribution and the session it analysed.
    attribution: Option<Attribution>,
    /// The timeline index of `attribution`'s session.
    index: TimelineIndex,
    indexed_session: Option<usize>,
    /// Whether `index` holds the lanes on the reference rank's clock.
    indexed_aligned: bool,
}

impl TraceJob {
    /// Load `files` and attribute with `settings`. Problems with single files are
    /// reported in the report, next to what the other files gave.
    pub fn load(
        files: &[NamedBlob],
        parsed: Vec<ParsedFile>,
        settings: &AnalyzeSettings,
        lanes_aligned: bool,
        progress: &mut dyn FnMut(u64, u64, Stage),
    ) -> (TraceJob, TraceReport) {
        let fs = BlobFs::with_parsed(files, parsed);
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
        let read_ms = fs.read_ms.get();
        let stitched_files = loaded.parallel_files as u64;
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
            read_ms,
            stitched_files,
            attribution: None,
            index: TimelineIndex::default(),
            indexed_session: None,
            indexed_aligned: false,
        };
        let report = job.finish(settings, attribution, attribute_ms, lanes_aligned);
        (job, report)
    }

    /// Attribute the kept dataset with other settings.
    pub fn reattribute(
        &mut self,
        settings: &AnalyzeSettings,
        lanes_aligned: bool,
        progress: &mut dyn FnMut(u64, u64, Stage),
    ) -> TraceReport {
        progress(0, 0, Stage::Attributing);
        let started = now_ms();
        let attribution = reattribute(&self.dataset, settings);
        let ms = now_ms() - started;
        self.parse_ms = 0.0;
        self.read_ms = 0.0;
        self.stitched_files = 0;
        self.finish(settings, attribution, ms, lanes_aligned)
    }

    /// Keep a new attribution (a rejected one keeps the last good one) and report.
    fn finish(
        &mut self,
        settings: &AnalyzeSettings,
        attribution: Result<Attribution, AnalyzeError>,
        attribute_ms: f64,
        lanes_aligned: bool,
    ) -> TraceReport {
        let mut problems = self.load_errors.clone();
        let mut settings_problem = None;
        match attribution {
            Ok(a) => self.attribution = Some(a),
            Err(AnalyzeError::Settings(e)) => settings_problem = Some(e),
            // A missing session is already among the load errors after a load.
            Err(AnalyzeError::Load(e)) if problems.contains(&e) => {}
            Err(AnalyzeError::Load(e)) => problems.push(e),
            // Clocks that cannot be aligned: a problem of that setting.
            Err(AnalyzeError::Clocks(e)) => {
                settings_problem = Some(shardscope_attribution::attribution::SettingsError {
                    field: Some("align_clocks".to_string()),
                    message: e.to_string(),
                })
            }
        }
        let session = self.attribution.as_ref().and_then(|a| a.session);
        // The session's clocks, from its collective markers (cheap: markers only); an
        // attribution on aligned clocks has estimated them already.
        let clocks = match self.attribution.as_ref().and_then(|a| a.alignment.clone()) {
            Some(alignment)
                if self
                    .attribution
                    .as_ref()
                    .is_some_and(|a| a.session == session) =>
            {
                Ok(alignment)
            }
            _ => session_clocks(&self.dataset.session_events(session)),
        };
        let lanes_aligned = lanes_aligned && clocks.is_ok();
        let mut index_ms = 0.0;
        if self.indexed_session != session
            || self.index.ranks.is_empty()
            || self.indexed_aligned != lanes_aligned
        {
            let started = now_ms();
            let events = self.dataset.session_events(session);
            self.index = match (&clocks, lanes_aligned) {
                (Ok(alignment), true) => {
                    let mapped = on_reference_clock(events, alignment);
                    TimelineIndex::build(Events::new(&mapped, events.sources))
                }
                _ => TimelineIndex::build(events),
            };
            self.indexed_session = session;
            self.indexed_aligned = lanes_aligned;
            index_ms = now_ms() - started;
        }
        let align_clocks = settings_problem.is_none()
            && self
                .attribution
                .as_ref()
                .is_some_and(|a| a.alignment.is_some());
        let rows = self
            .attribution
            .as_ref()
            .map(Attribution::rows)
            .unwrap_or_default();
        let events = self.dataset.session_events(session);
        let facts = RunFacts::on_clocks(
            &events,
            self.attribution.as_ref().and_then(|a| a.alignment.as_ref()),
        );
        let name_of = |i: Option<usize>| {
            i.and_then(|i| self.dataset.sessions.get(i))
                .map(|s| s.summary.session_id.clone())
        };
        TraceReport {
            files: self.files.clone(),
            events: events.len() as u64,
            parse_ms: self.parse_ms,
            read_ms: self.read_ms,
            stitched_files: self.stitched_files,
            attribute_ms,
            index_ms,
            sessions: self
                .dataset
                .sessions
                .iter()
                .map(|s| SessionInfo {
                    session_id: s.summary.session_id.clone(),
                    status: s.summary.status,
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
            align_clocks,
            lanes_aligned,
            clocks_problem: clocks.as_ref().err().map(|e| e.to_string()),
            clocks: clocks.ok(),
            rows,
            facts,
            problems,
            settings_problem,
            warnings: self.dataset.warnings.clone(),
            wasm_memory_bytes: wasm_memory_bytes(),
        }
    }

    pub fn window(&self, query: &WindowQuery) -> WindowPayload {
        let started = now_ms();
        let window = self.index.query(query).to_bytes();
        WindowPayload {
            window,
            query_ms: now_ms() - started,
        }
    }

    /// The overview strip, `f32` little-endian per column.
    pub fn overview(&self, columns: u32, ranks: Option<&[i64]>) -> Vec<u8> {
        overview_to_bytes(&self.index.overview(columns, ranks))
    }

    /// The current results exactly as `shardscope attribute --format …` prints them.
    /// The run as `shardscope attribute --perfetto FILE` writes it.
    pub fn perfetto(&self) -> String {
        match &self.attribution {
            Some(a) => to_perfetto(&self.dataset, a),
            None => perfetto::EMPTY.to_string(),
        }
    }

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

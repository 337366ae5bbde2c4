//! The attribution pipeline, written once: load the traces, resolve the settings,
//! build the phase index, attribute, flatten. The CLI, the worker, the bench and the
//! fixture tests all run it through [`analyze`] (files to results) and
//! [`reattribute`] (new settings on an already-loaded [`Dataset`], no re-reading).
//!
//! - [`export`]: the results as the CLI prints them (JSON, CSV, table), so the page's
//!   downloads are byte for byte the CLI's output.
//! - [`row`]: one interval flattened for display ([`IntervalRow`]), with its phase as a
//!   typed [`PhaseLabel`].

pub mod compare;
pub mod export;
pub mod perfetto;
pub mod row;

use serde::{Deserialize, Serialize};

pub use row::{IntervalRow, PhaseLabel};

use crate::attribution::{
    attribute_on_clock, AttributionConfig, AttributionResult, OverrideValue, Preset, SettingsError,
};
use crate::clocks::{estimate, markers_by_rank, Alignment, ClockError, EventClock};
use crate::phases::PhaseReplayIndex;
use crate::trace::event::{Event, Events};
use crate::trace::{load, Dataset, LoadError, LoadOptions, LoadProgress, TraceFs};

/// Everything that decides an attribution run, as on the command line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalyzeSettings {
    /// stormlog's preset ([`Preset::parse`] reads the name as stormlog does).
    #[serde(default)]
    pub preset: Preset,
    /// stormlog override fields and their values, in the order given (last wins).
    #[serde(default)]
    pub overrides: Vec<(String, OverrideValue)>,
    /// Analyse this session instead of stormlog's default one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Attach each interval's phase (`--phases`).
    #[serde(default)]
    pub phases: bool,
    /// Attribute on the reference rank's clock (`--align-clocks`, beyond stormlog):
    /// every event of an `aligned` rank is mapped through its estimated clock first.
    #[serde(default)]
    pub align_clocks: bool,
}

impl Default for AnalyzeSettings {
    fn default() -> Self {
        AnalyzeSettings {
            preset: Preset::Medium,
            overrides: Vec::new(),
            session_id: None,
            phases: false,
            align_clocks: false,
        }
    }
}

/// Why an attribution run could not be made on a loaded dataset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalyzeError {
    /// A bad preset or override (stormlog's message, naming the field).
    #[error("{0}")]
    Settings(#[from] SettingsError),
    /// A file that could not be loaded, or a requested session no file holds.
    #[error("{0}")]
    Load(LoadError),
    /// Clocks asked to be aligned that cannot be (no markers; a reference without any).
    #[error("{0}")]
    Clocks(#[from] ClockError),
}

/// One attribution run on one session.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// The resolved settings (preset values with the overrides applied).
    pub config: AttributionConfig,
    /// The analysed session's index in [`Dataset::sessions`] (`None`: nothing loaded).
    pub session: Option<usize>,
    /// stormlog's result list, in its order (rank, then interval start).
    pub results: Vec<AttributionResult>,
    /// The clocks the events were mapped through (`align_clocks` only).
    pub alignment: Option<Alignment>,
}

/// What [`analyze`] found: the dataset (kept for re-attribution and timelines), one
/// error per input that could not be loaded, and the attribution of the selected
/// session (or why there is none).
#[derive(Debug)]
pub struct Analysis {
    pub dataset: Dataset,
    /// Files that failed; the others are in `dataset`.
    pub load_errors: Vec<LoadError>,
    pub attribution: Result<Attribution, AnalyzeError>,
    /// How many files the native parallel parse handled (the rest were sequential).
    pub parallel_files: usize,
}

impl Analysis {
    /// The first problem, in the order stormlog would raise it: loading errors come
    /// before settings errors (stormlog resolves settings only after loading).
    pub fn first_error(&self) -> Option<AnalyzeError> {
        self.load_errors
            .first()
            .cloned()
            .map(AnalyzeError::Load)
            .or_else(|| self.attribution.as_ref().err().cloned())
    }

    /// [`Analysis::first_error`] for a run whose preset was given by name and read
    /// with [`Preset::parse`] (run with the default when it failed): stormlog reports a
    /// bad preset after the loading errors and before the overrides'.
    pub fn first_error_with_preset(
        &self,
        preset: &Result<Preset, SettingsError>,
    ) -> Option<AnalyzeError> {
        match (self.load_errors.first(), preset) {
            (Some(e), _) => Some(AnalyzeError::Load(e.clone())),
            (None, Err(e)) => Some(AnalyzeError::Settings(e.clone())),
            (None, Ok(_)) => self.first_error(),
        }
    }
}

/// The first half of [`analyze`]: the loaded dataset and the files that failed.
#[derive(Debug, Default)]
pub struct Loaded {
    pub dataset: Dataset,
    pub load_errors: Vec<LoadError>,
    pub parallel_files: usize,
}

/// Load `paths` from `fs`, selecting the session `settings` asks for (else stormlog's
/// default). `parallel` lets big files be parsed by several threads (native builds
/// only; the result is identical). A requested session that no file holds is reported
/// in `load_errors`, as the loader reports it.
pub fn load_traces(
    fs: &dyn TraceFs,
    paths: &[String],
    settings: &AnalyzeSettings,
    parallel: bool,
    progress: &mut dyn FnMut(&LoadProgress),
) -> Loaded {
    load_traces_on(fs, paths, settings, threads_of(parallel), progress)
}

/// `parallel` as a thread count: every core, or the calling thread only.
fn threads_of(parallel: bool) -> usize {
    if parallel {
        0
    } else {
        1
    }
}

/// [`load_traces`] with big files parsed by `threads` threads ([`LoadOptions::threads`]:
/// 0 one per core, 1 the calling thread only). The result is the same for every count.
pub fn load_traces_on(
    fs: &dyn TraceFs,
    paths: &[String],
    settings: &AnalyzeSettings,
    threads: usize,
    progress: &mut dyn FnMut(&LoadProgress),
) -> Loaded {
    let options = LoadOptions {
        session_id: settings.session_id.clone().filter(|s| !s.trim().is_empty()),
        threads,
        ..LoadOptions::default()
    };
    let outcome = load(fs, paths, &options, progress);
    Loaded {
        dataset: outcome.dataset,
        load_errors: outcome.errors,
        parallel_files: outcome.parallel_files,
    }
}

/// Load `paths` from `fs` and attribute the selected session with `settings`:
/// [`load_traces`], then the attribution of the session it selected.
pub fn analyze(
    fs: &dyn TraceFs,
    paths: &[String],
    settings: &AnalyzeSettings,
    parallel: bool,
    progress: &mut dyn FnMut(&LoadProgress),
) -> Analysis {
    analyze_on(fs, paths, settings, threads_of(parallel), progress)
}

/// [`analyze`] with big files parsed by `threads` threads (0: one per core; 1: the
/// calling thread only). The result is the same for every count.
pub fn analyze_on(
    fs: &dyn TraceFs,
    paths: &[String],
    settings: &AnalyzeSettings,
    threads: usize,
    progress: &mut dyn FnMut(&LoadProgress),
) -> Analysis {
    let loaded = load_traces_on(fs, paths, settings, threads, progress);
    let attribution = attribute_session(&loaded.dataset, loaded.dataset.selected, settings);
    Analysis {
        dataset: loaded.dataset,
        load_errors: loaded.load_errors,
        attribution,
        parallel_files: loaded.parallel_files,
    }
}

/// Attribute an already-loaded dataset again with other settings (preset, overrides,
/// phases or session), without reading any file.
pub fn reattribute(
    dataset: &Dataset,
    settings: &AnalyzeSettings,
) -> Result<Attribution, AnalyzeError> {
    let session = dataset
        .session_index(settings.session_id.as_deref())
        .map_err(AnalyzeError::Load)?;
    attribute_session(dataset, session, settings)
}

fn attribute_session(
    dataset: &Dataset,
    session: Option<usize>,
    settings: &AnalyzeSettings,
) -> Result<Attribution, AnalyzeError> {
    let config = AttributionConfig::resolve(settings.preset, &settings.overrides)?;
    let events = dataset.session_events(session);
    let alignment = if settings.align_clocks {
        Some(estimate(&markers_by_rank(&events), None)?)
    } else {
        None
    };
    // On aligned clocks the attribution reads each event's time through the clock; only
    // the phase replay needs the events themselves mapped.
    let mapped = match (&alignment, settings.phases) {
        (Some(alignment), true) => Some(on_reference_clock(events, alignment)),
        _ => None,
    };
    let (events, clock) = match (&mapped, &alignment) {
        (Some(list), _) => (Events::new(list, events.sources), EventClock::recorded()),
        (None, Some(alignment)) => (events, EventClock::on_reference(&events, alignment)),
        (None, None) => (events, EventClock::recorded()),
    };
    let index = settings
        .phases
        .then(|| PhaseReplayIndex::from_events(events, &dataset.phases));
    let results = attribute_on_clock(events, &config, index.as_ref(), &clock);
    Ok(Attribution {
        config,
        session,
        results,
        alignment,
    })
}

/// The session's events with every `aligned` rank's timestamps on the reference clock
/// (the others as recorded), in their original order.
pub fn on_reference_clock(events: Events<'_>, alignment: &Alignment) -> Vec<Event> {
    let clock = EventClock::on_reference(&events, alignment);
    events
        .list
        .iter()
        .map(|event| {
            let mut e = *event;
            e.timestamp_ns = clock.ts(event);
            e
        })
        .collect()
}

/// The clocks of a session's ranks against the lowest rank with markers.
pub fn session_clocks(events: &Events<'_>) -> Result<Alignment, ClockError> {
    estimate(&markers_by_rank(events), None)
}

/// The clocks of the session `session_id` selects (else stormlog's default) against
/// `reference` (else the lowest rank with markers): what `shardscope align` prints.
pub fn clock_alignment(
    dataset: &Dataset,
    session_id: Option<&str>,
    reference: Option<i64>,
) -> Result<Alignment, AnalyzeError> {
    let session = dataset
        .session_index(session_id)
        .map_err(AnalyzeError::Load)?;
    Ok(estimate(
        &markers_by_rank(&dataset.session_events(session)),
        reference,
    )?)
}

impl Attribution {
    /// The results flattened for display.
    pub fn rows(&self) -> Vec<IntervalRow> {
        self.results.iter().map(IntervalRow::from_result).collect()
    }
}

/// The most input one page load takes (the sum of the file sizes; gzip counts as its
/// compressed size). The worker's WebAssembly memory is at most 4 GiB; a load holds the
/// events (56 bytes each, ~1/10 of their JSON) plus read and parse buffers, and a 2 GB
/// trace peaks at ~0.7 GB. Beyond this the command line, which streams, is the tool.
pub const MAX_PAGE_INPUT_BYTES: u64 = 4 << 30;

/// Why the page refuses `total_bytes` of input up front, or `None` when it takes it.
pub fn page_input_refusal(total_bytes: u64) -> Option<String> {
    use crate::format::format_bytes;
    (total_bytes > MAX_PAGE_INPUT_BYTES).then(|| {
        format!(
            "These files are {} in all; the page holds at most {} (its WebAssembly memory is \
             limited). Run the command line instead, which streams files of any size: \
             shardscope attribute FILE...",
            format_bytes(total_bytes.min(i64::MAX as u64) as i64),
            format_bytes(MAX_PAGE_INPUT_BYTES as i64)
        )
    })
}

#[cfg(test)]
mod page_limit_tests {
    #[test]
    fn the_page_refuses_more_than_its_limit_with_the_size_and_the_cli() {
        assert_eq!(super::page_input_refusal(super::MAX_PAGE_INPUT_BYTES), None);
        let text = super::page_input_refusal(5 << 30).unwrap_or_default();
        assert!(
            text.contains("5.00 GiB") && text.contains("4.00 GiB"),
            "{text}"
        );
        assert!(text.contains("shardscope attribute"), "{text}");
    }
}

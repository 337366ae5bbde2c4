//! The page's state: plain signals grouped per view, created once by [`AppState::new`]
//! and handed down as props (a component gets the part it shows; one that starts a job
//! gets `AppState`, since a load touches both runs, the recent traces and the link
//! notice). Views read and write them; the job modules turn changes into worker
//! requests. Nothing else holds state.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use shardscope_attribution::analysis::compare::{CompareAxis, Measure};
use shardscope_attribution::analysis::AnalyzeSettings;
use shardscope_attribution::attribution::{Classification, OverrideId, Preset, SettingsError};
use shardscope_explorer::{Evaluation, ExploreReport, SensitivityReport};
use shardscope_session::explore_settings::{ColorBy, ExploreRequest, ExploreSettings, FieldError};
use shardscope_session::permalink::{CompareLink, ExploreLink, Link, TraceLink};
use shardscope_session::rank_filter::parse_rank_filter;
use shardscope_session::recent::KeptList;
use shardscope_session::scenario_list::ScenarioList;
use shardscope_session::scenarios::ScenarioReport;
use shardscope_session::source::Source;
use shardscope_session::trace_settings::{self, ResolvedTraceSettings, TraceSettingsInput};
use shardscope_trace::trace::{LoadError, LoadWarning};
use shardscope_view::charts::BatchPlane;
use shardscope_view::explore::Points;
use shardscope_view::lod::WindowData;
pub use shardscope_view::table::SortKey;
use shardscope_view::timeline::TimeWindow;

pub use shardscope_session::permalink::View;

use crate::protocol::{NamedBlob, Stage, TraceReport};

/// localStorage: `off` when the user turned keeping off (the recent traces' switch).
pub const KEEP_SETTING: &str = "shardscope.keep-recent";

/// Keeps a set of loaded files (`trace::recent::remember`).
pub type Remember = fn(AppState, Vec<NamedBlob>);

/// The recent traces as the page shows them.
#[derive(Debug, Clone, Copy)]
pub struct RecentState {
    pub list: RwSignal<KeptList>,
    /// Whether loaded traces are kept.
    pub keep: RwSignal<bool>,
    /// The last thing that went wrong keeping or reopening (quota, a missing entry).
    pub problem: RwSignal<Option<String>>,
    /// Whether this browser offers Cache Storage here (secure contexts only).
    pub available: RwSignal<bool>,
    /// What keeps a set of run A's files once they loaded (`trace::recent::remember`,
    /// set at start): the loader calls it without knowing about keeping.
    pub remember: StoredValue<Option<Remember>>,
}

impl RecentState {
    pub fn new() -> RecentState {
        let keep = super::local_storage()
            .and_then(|s| s.get_item(KEEP_SETTING).ok().flatten())
            .is_none_or(|v| v != "off");
        RecentState {
            list: RwSignal::new(KeptList::default()),
            keep: RwSignal::new(keep),
            problem: RwSignal::new(None),
            available: RwSignal::new(false),
            remember: StoredValue::new(None),
        }
    }
}

impl Default for RecentState {
    fn default() -> Self {
        RecentState::new()
    }
}

/// The worker as the page sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum WorkerStatus {
    /// Loading, or handshake done and waiting for the first ping's answer.
    #[default]
    Starting,
    /// Answered a ping with this core version.
    Ready { core_version: String, ping_ms: f64 },
    /// Failed to start, crashed, or sent something unreadable.
    Failed { message: String },
    /// Comes from another build than the page (cached from an earlier deploy): stopped.
    Stale { worker_build: String },
}

impl WorkerStatus {
    /// The `data-state` of `worker-status`.
    pub fn state_name(&self) -> &'static str {
        match self {
            WorkerStatus::Starting => "starting",
            WorkerStatus::Ready { .. } => "ready",
            WorkerStatus::Failed { .. } => "error",
            WorkerStatus::Stale { .. } => "stale",
        }
    }
}

/// Where a job is (the `data-state` of `trace-status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    #[default]
    Idle,
    Loading,
    Done,
    Error,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Loading => "loading",
            Phase::Done => "done",
            Phase::Error => "error",
        }
    }
}

/// Progress of the running job.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub stage: Stage,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            done_bytes: 0,
            total_bytes: 0,
            stage: Stage::Attributing,
        }
    }
}

/// One problem to show (`trace-error`): a file that failed, or a job that did.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The file it concerns, when known.
    pub file: Option<String>,
    /// What happened, located (line, column, record, field).
    pub message: String,
    /// What the user can do about it.
    pub hint: Option<String>,
}

impl Problem {
    pub fn general(message: impl Into<String>) -> Problem {
        Problem {
            file: None,
            message: message.into(),
            hint: None,
        }
    }

    /// A loading error as shown: stormlog's text, where it happened, and a hint.
    pub fn from_load_error(e: &LoadError) -> Problem {
        use shardscope_trace::trace::LoadErrorKind as K;
        let hint = match e.kind {
            K::Utf8 | K::Gzip => {
                Some("Is this a stormlog export? It is not UTF-8 JSON, JSONL or CSV text.")
            }
            K::Syntax if e.message.starts_with("Nesting too deep") => Some(
                "Nested more than 256 levels deep: telemetry records are flat objects, so this \
                 is not a stormlog export.",
            ),
            K::Syntax => Some("The file is not valid JSON: was it cut short while being written?"),
            K::Shape => Some(
                "This JSON is not a list of telemetry events, an events wrapper or a sink segment.",
            ),
            K::Record => {
                Some("stormlog rejects this record; fix or drop the file, or export it again.")
            }
            K::Session => Some("Pick another session from the list."),
            K::Io => {
                Some("The file could not be read: it may have been moved or changed while loading.")
            }
            K::NotFound => {
                Some("Drop the folder's trace files, or a telemetry-sink folder with its manifest.")
            }
            K::Archive => Some(
                "Zip, tar and tar.gz archives are read here: this one is damaged or unpacks to \
                 too much. Unpack it and drop its files, or use the command line.",
            ),
        };
        Problem {
            file: e.file.clone(),
            message: e.describe(),
            hint: hint.map(str::to_string),
        }
    }
}

/// Settings inputs of the trace view, as typed.
#[derive(Debug, Clone, Copy)]
pub struct TraceSettings {
    pub preset: RwSignal<Preset>,
    /// Override field → the text in its input (empty: the preset's value).
    pub overrides: RwSignal<BTreeMap<OverrideId, String>>,
    pub phases: RwSignal<bool>,
    /// Beyond stormlog: attribute on the reference rank's clock.
    pub align_clocks: RwSignal<bool>,
    /// Draw the lanes on the reference rank's clock.
    pub align_lanes: RwSignal<bool>,
    /// `None`: stormlog's default session.
    pub session: RwSignal<Option<String>>,
    /// The rank filter as typed (`all`, `0,2,4-7`).
    pub ranks: RwSignal<String>,
}

impl TraceSettings {
    fn new(link: &TraceLink) -> Self {
        TraceSettings {
            preset: RwSignal::new(link.preset),
            overrides: RwSignal::new(link.overrides.iter().cloned().collect()),
            phases: RwSignal::new(link.phases),
            align_clocks: RwSignal::new(link.align_clocks),
            align_lanes: RwSignal::new(link.align_lanes),
            session: RwSignal::new(link.session.clone()),
            ranks: RwSignal::new(link.ranks.clone()),
        }
    }

    /// Take a link's attribution settings and rank filter (another page's message, a
    /// reopened recent trace).
    pub fn apply(&self, link: &TraceLink) {
        self.preset.set(link.preset);
        self.overrides.set(link.overrides.iter().cloned().collect());
        self.phases.set(link.phases);
        self.align_clocks.set(link.align_clocks);
        self.align_lanes.set(link.align_lanes);
        self.session.set(link.session.clone());
        self.ranks.set(link.ranks.clone());
    }

    /// The inputs as typed, resolved by the core (`view::trace_settings`).
    pub fn resolved(&self) -> ResolvedTraceSettings {
        trace_settings::resolve(&TraceSettingsInput {
            preset: self.preset.get(),
            overrides: self.overrides.get(),
            phases: self.phases.get(),
            session: self.session.get(),
            align_clocks: self.align_clocks.get(),
            align_lanes: self.align_lanes.get(),
        })
    }

    /// Whether the worker should draw the lanes on the reference clock.
    pub fn lanes_aligned(&self) -> bool {
        self.resolved().lanes_aligned
    }

    /// stormlog's message for each override that it would reject.
    pub fn override_errors(&self) -> BTreeMap<OverrideId, SettingsError> {
        self.resolved().field_errors
    }

    /// The settings to run, or the first problem (a bad override never starts a run).
    pub fn analyze_settings(&self) -> Result<AnalyzeSettings, SettingsError> {
        self.resolved().settings
    }
}

/// Which of two compared runs: A is the run the trace view shows, B the one it is
/// compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunSlot {
    #[default]
    A,
    B,
}

impl RunSlot {
    pub fn name(self) -> &'static str {
        match self {
            RunSlot::A => "A",
            RunSlot::B => "B",
        }
    }
}

/// A run's report, as the explorer's memory panel reads the trace view's.
pub type TraceReportSignal = RwSignal<Option<Arc<TraceReport>>>;

/// What loading and attributing one run touches: run A's signals are the trace
/// view's, run B's the comparison's ([`AppState::run`]).
#[derive(Debug, Clone, Copy)]
pub struct RunSignals {
    pub slot: RunSlot,
    pub settings: TraceSettings,
    pub phase: RwSignal<Phase>,
    pub progress: RwSignal<Progress>,
    pub loading_files: RwSignal<bool>,
    pub problems: RwSignal<Vec<Problem>>,
    pub report: TraceReportSignal,
    pub elapsed_ms: RwSignal<f64>,
    pub preparse_ms: RwSignal<f64>,
    /// Workers that parsed the last load's ranges (0: it had none to parse).
    pub parse_workers: RwSignal<usize>,
    pub runs: RwSignal<u64>,
    pub wanted_files: RwSignal<Vec<String>>,
    /// Where on this site the run was opened from (`src=`), kept in its links.
    pub source: RwSignal<Option<Source>>,
}

impl RunSignals {
    /// A run before anything is loaded: `link`'s settings and the files it asks for.
    fn new(slot: RunSlot, link: &TraceLink) -> Self {
        RunSignals {
            slot,
            settings: TraceSettings::new(link),
            phase: RwSignal::new(Phase::Idle),
            progress: RwSignal::new(Progress::default()),
            loading_files: RwSignal::new(false),
            problems: RwSignal::new(Vec::new()),
            report: RwSignal::new(None),
            elapsed_ms: RwSignal::new(0.0),
            preparse_ms: RwSignal::new(0.0),
            parse_workers: RwSignal::new(0),
            runs: RwSignal::new(0),
            wanted_files: RwSignal::new(link.files.clone()),
            source: RwSignal::new(link.src.clone()),
        }
    }

    /// The run's part of a permalink: its settings as typed and the names of its files
    /// (those loaded, else those a link asked for).
    pub fn link(&self) -> TraceLink {
        let s = &self.settings;
        TraceLink {
            preset: s.preset.get(),
            overrides: s
                .overrides
                .get()
                .into_iter()
                .filter(|(_, v)| !v.trim().is_empty())
                .collect(),
            phases: s.phases.get(),
            align_clocks: s.align_clocks.get(),
            align_lanes: s.align_lanes.get(),
            session: s.session.get(),
            ranks: s.ranks.get(),
            window: None,
            selected: None,
            files: self.report.with(|r| match r {
                Some(r) => r.files.iter().map(|(n, _)| n.clone()).collect(),
                None => self.wanted_files.get(),
            }),
            src: self.source.get(),
        }
    }
}

/// Run B, compared with the trace view's run (A): its own settings, load state and
/// results, and how the comparison is shown.
#[derive(Debug, Clone, Copy)]
pub struct CompareState {
    pub run: RunSignals,
    /// Whose settings the settings card edits.
    pub editing: RwSignal<RunSlot>,
    /// The comparison table's sort: `None` by rank, else by B − A of a measure; and
    /// ascending.
    pub sort: RwSignal<(Option<Measure>, bool)>,
    /// Where run B's lanes sit against run A's.
    pub axis: RwSignal<CompareAxis>,
    /// The latest timeline data of run B (for run A's window, shifted onto B's clock).
    pub frame: RwSignal<Option<Arc<WindowData>>>,
}

impl CompareState {
    fn new(b: &CompareLink) -> Self {
        CompareState {
            run: RunSignals::new(RunSlot::B, &b.settings),
            editing: RwSignal::new(RunSlot::A),
            sort: RwSignal::new((None, true)),
            axis: RwSignal::new(b.axis),
            frame: RwSignal::new(None),
        }
    }

    /// Run B's part of a permalink: its attribution settings and files, and the axis.
    pub fn link(&self) -> CompareLink {
        CompareLink {
            settings: self.run.link(),
            axis: self.axis.get(),
        }
    }

    /// Whether run B is loaded (or asked for by a permalink).
    pub fn active(&self) -> bool {
        self.run.report.with(Option::is_some) || self.run.wanted_files.with(|f| !f.is_empty())
    }
}

/// The trace view's state.
#[derive(Debug, Clone, Copy)]
pub struct TraceState {
    /// What loading and attributing the run touches (shared with run B's jobs):
    /// settings, phase, progress, problems, the report, timings, files asked for.
    pub run: RunSignals,
    /// The selected interval: (rank, interval start).
    pub selected: RwSignal<Option<(i64, i64)>>,
    /// The visible window; `None` = the whole trace.
    pub window: RwSignal<Option<TimeWindow>>,
    /// Whether the timeline's key list shows.
    pub key_help: RwSignal<bool>,
    /// The latest timeline data from the worker.
    pub frame: RwSignal<Option<Arc<WindowData>>>,
    /// How long the worker took for it (shown as `data-query-ms` on the canvas).
    pub frame_query_ms: RwSignal<f64>,
    /// The overview strip: largest gap per column of the whole trace.
    pub overview: RwSignal<Option<Arc<Vec<f32>>>>,
    pub sort: RwSignal<(SortKey, bool)>,
    /// Classifications shown in the table and timeline.
    pub shown_classes: RwSignal<[bool; 3]>,
}

impl TraceState {
    fn new(link: &TraceLink) -> Self {
        TraceState {
            run: RunSignals::new(RunSlot::A, link),
            selected: RwSignal::new(link.selected),
            window: RwSignal::new(link.window),
            key_help: RwSignal::new(false),
            frame: RwSignal::new(None),
            frame_query_ms: RwSignal::new(0.0),
            overview: RwSignal::new(None),
            sort: RwSignal::new((SortKey::Rank, true)),
            shown_classes: RwSignal::new([true; 3]),
        }
    }

    /// The ranks shown: the rank filter applied to the analysed ranks (all of them
    /// while the filter text is unreadable; the field says why).
    pub fn visible_ranks(&self) -> Vec<i64> {
        let all: Vec<i64> = self
            .run
            .report
            .with(|r| r.as_ref().map(|r| r.ranks.iter().map(|s| s.rank).collect()))
            .unwrap_or_default();
        let text = self.run.settings.ranks.get();
        parse_rank_filter(&text, &all).unwrap_or(all)
    }

    /// Whether `class` is shown.
    pub fn class_shown(&self, class: Classification) -> bool {
        let i = Classification::ALL
            .iter()
            .position(|c| *c == class)
            .unwrap_or(0);
        self.shown_classes.with(|s| s[i])
    }

    /// The trace view's part of a permalink: the run's settings and files, the window
    /// and the selection.
    pub fn link(&self) -> TraceLink {
        TraceLink {
            window: self.window.get(),
            selected: self.selected.get(),
            ..self.run.link()
        }
    }

    /// Problems to show, and the warnings of the loaded files.
    pub fn warnings(&self) -> Vec<LoadWarning> {
        self.run
            .report
            .with(|r| r.as_ref().map(|r| r.warnings.clone()))
            .unwrap_or_default()
    }
}

/// What the page keeps of a sweep: the CLI's report (frontier records and counts) and
/// every configuration's columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Explored {
    pub report: ExploreReport,
    pub points: Points,
    pub elapsed_ms: f64,
    /// The request it answered (for keys, exports and re-evaluation).
    pub request: ExploreRequest,
}

/// The explorer view's state.
#[derive(Debug, Clone, Copy)]
pub struct ExploreState {
    pub settings: RwSignal<ExploreSettings>,
    pub phase: RwSignal<Phase>,
    /// Input problems, each naming its field (a bad input never starts a sweep).
    pub errors: RwSignal<Vec<FieldError>>,
    /// A failed sweep (the worker's message).
    pub problem: RwSignal<Option<String>>,
    /// The newest answer (kept while a newer sweep runs or after one failed).
    pub answer: RwSignal<Option<Arc<Explored>>>,
    /// The selected configuration's short key, and its full breakdown.
    pub selected: RwSignal<Option<String>>,
    pub evaluation: RwSignal<Option<Arc<Evaluation>>>,
    /// Up to three configurations compared side by side, and their breakdowns.
    pub pinned: RwSignal<Vec<String>>,
    pub pinned_evaluations: RwSignal<Vec<(String, Arc<Evaluation>)>>,
    /// Draw infeasible configurations too.
    pub infeasible: RwSignal<bool>,
    /// What the scatter's colours mean.
    pub color_by: RwSignal<ColorBy>,
    /// Sort of the frontier table: column and ascending.
    pub sort: RwSignal<(ParetoSort, bool)>,
    /// Sweeps answered so far (tells one answer from the next).
    pub runs: RwSignal<u64>,
    /// The selected configuration's one-knob sensitivity.
    pub sensitivity: RwSignal<Option<Arc<SensitivityReport>>>,
    /// The batch view (B = 1…512) of the current settings, and whether one is running.
    pub batch: RwSignal<Option<Arc<BatchPlane>>>,
    pub batch_running: RwSignal<bool>,
    /// Round trip of the last batch sweep (request to answer), for `data-elapsed-ms`.
    pub batch_ms: RwSignal<f64>,
    /// Batch sweeps shown so far (`data-runs` of `batch-view`).
    pub batch_runs: RwSignal<u64>,
    /// Kept scenarios (at most four), whether each is drawn, and their comparison.
    pub scenarios: RwSignal<ScenarioList>,
    pub scenario_report: RwSignal<Option<Arc<ScenarioReport>>>,
    /// Why the scenarios could not be compared.
    pub scenario_problem: RwSignal<Option<String>>,
}

/// The frontier table's sortable columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParetoSort {
    Latency,
    Pes,
    Efficiency,
}

impl ExploreState {
    fn new(link: &ExploreLink) -> Self {
        ExploreState {
            settings: RwSignal::new(link.settings.clone()),
            phase: RwSignal::new(Phase::Idle),
            errors: RwSignal::new(Vec::new()),
            problem: RwSignal::new(None),
            answer: RwSignal::new(None),
            selected: RwSignal::new(link.selected.clone()),
            evaluation: RwSignal::new(None),
            pinned: RwSignal::new(link.pinned.clone()),
            pinned_evaluations: RwSignal::new(Vec::new()),
            infeasible: RwSignal::new(link.infeasible),
            color_by: RwSignal::new(link.color),
            sort: RwSignal::new((ParetoSort::Latency, true)),
            runs: RwSignal::new(0),
            sensitivity: RwSignal::new(None),
            batch: RwSignal::new(None),
            batch_running: RwSignal::new(false),
            batch_ms: RwSignal::new(0.0),
            batch_runs: RwSignal::new(0),
            scenarios: RwSignal::new(ScenarioList::new(link.scenarios.clone())),
            scenario_report: RwSignal::new(None),
            scenario_problem: RwSignal::new(None),
        }
    }

    /// The explore view's part of a permalink.
    pub fn link(&self) -> ExploreLink {
        ExploreLink {
            settings: self.settings.get(),
            selected: self.selected.get(),
            pinned: self.pinned.get(),
            infeasible: self.infeasible.get(),
            color: self.color_by.get(),
            scenarios: self.scenarios.with(ScenarioList::scenarios),
        }
    }
}

/// Everything the page shows: made by the app, handed to the views as props.
#[derive(Debug, Clone, Copy)]
pub struct AppState {
    pub view: RwSignal<View>,
    pub worker: RwSignal<WorkerStatus>,
    pub trace: TraceState,
    pub explore: ExploreState,
    /// Run B, compared with the trace view's run.
    pub compare: CompareState,
    /// One notice about a permalink's unusable parts.
    pub link_notice: RwSignal<Option<String>>,
    /// The trace sets kept in this browser.
    pub recent: RecentState,
    /// Light or dark.
    pub theme: super::theme::ThemeState,
}

impl AppState {
    pub fn new(link: &Link, notice: Option<String>) -> Self {
        AppState {
            view: RwSignal::new(link.view),
            worker: RwSignal::new(WorkerStatus::Starting),
            trace: TraceState::new(&link.trace),
            explore: ExploreState::new(&link.explore),
            compare: CompareState::new(&link.compare),
            link_notice: RwSignal::new(notice),
            recent: RecentState::new(),
            theme: super::theme::ThemeState::new(),
        }
    }

    /// The signals of one run.
    pub fn run(&self, slot: RunSlot) -> RunSignals {
        match slot {
            RunSlot::A => self.trace.run,
            RunSlot::B => self.compare.run,
        }
    }

    /// The permalink for what is on screen.
    pub fn link(&self) -> Link {
        Link {
            view: self.view.get(),
            trace: self.trace.link(),
            compare: self.compare.link(),
            explore: self.explore.link(),
        }
    }
}

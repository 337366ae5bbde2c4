//! The page's state: plain signals grouped per view, created once by [`AppState::new`]
//! and shared through Leptos context. Views read and write them; nothing else holds state.

use leptos::prelude::*;

use crate::protocol::AttributionReport;

/// The two top-level views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// "Which memory spikes were caused by collective communication?"
    #[default]
    Trace,
    /// "How should I split this model over this machine?"
    Explore,
}

impl View {
    pub const ALL: [View; 2] = [View::Trace, View::Explore];

    /// The name used in permalinks and element ids.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Trace => "trace",
            View::Explore => "explore",
        }
    }

    pub fn parse(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.as_str() == name.trim())
    }

    pub fn label(self) -> &'static str {
        match self {
            View::Trace => "Collective memory spikes",
            View::Explore => "Parallelism explorer",
        }
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
    /// Failed to start, crashed, or disagrees with the page.
    Failed { message: String },
}

impl WorkerStatus {
    /// The `data-state` of `worker-status`.
    pub fn state_name(&self) -> &'static str {
        match self {
            WorkerStatus::Starting => "starting",
            WorkerStatus::Ready { .. } => "ready",
            WorkerStatus::Failed { .. } => "error",
        }
    }
}

/// Where a trace load is (the `data-state` of `trace-status`).
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

/// Progress of the running job, in bytes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Progress {
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub stage: String,
}

/// One problem to show (`trace-error`).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The file it concerns, when known.
    pub file: Option<String>,
    pub message: String,
}

/// The trace view's state.
#[derive(Debug, Clone, Copy)]
pub struct TraceState {
    pub phase: RwSignal<Phase>,
    pub progress: RwSignal<Progress>,
    pub problems: RwSignal<Vec<Problem>>,
    /// What attribution found, after a load (also when some files failed).
    pub report: RwSignal<Option<AttributionReport>>,
    pub elapsed_ms: RwSignal<f64>,
    /// Incremented by every new load; responses of older loads are ignored.
    pub generation: RwSignal<u64>,
}

impl TraceState {
    fn new() -> Self {
        TraceState {
            phase: RwSignal::new(Phase::Idle),
            progress: RwSignal::new(Progress::default()),
            problems: RwSignal::new(Vec::new()),
            report: RwSignal::new(None),
            elapsed_ms: RwSignal::new(0.0),
            generation: RwSignal::new(0),
        }
    }

    /// Start a new load of `total_bytes` and return its generation.
    pub fn begin(&self, total_bytes: u64, stage: &str) -> u64 {
        self.generation.update(|g| *g += 1);
        self.phase.set(Phase::Loading);
        self.problems.set(Vec::new());
        self.report.set(None);
        self.progress.set(Progress {
            done_bytes: 0,
            total_bytes,
            stage: stage.to_string(),
        });
        self.generation.get_untracked()
    }

    /// Whether `generation` is still the current load.
    pub fn is_current(&self, generation: u64) -> bool {
        self.generation.get_untracked() == generation
    }

    pub fn fail(&self, problems: Vec<Problem>) {
        self.problems.set(problems);
        self.phase.set(Phase::Error);
    }
}

/// The explorer view's state (its inputs and results come with the explorer).
#[derive(Debug, Clone, Copy)]
pub struct ExploreState {
    pub phase: RwSignal<Phase>,
}

impl ExploreState {
    fn new() -> Self {
        ExploreState {
            phase: RwSignal::new(Phase::Idle),
        }
    }
}

/// Everything the page shows, provided as context by the app.
#[derive(Debug, Clone, Copy)]
pub struct AppState {
    pub view: RwSignal<View>,
    pub worker: RwSignal<WorkerStatus>,
    pub trace: TraceState,
    pub explore: ExploreState,
}

impl AppState {
    pub fn new(view: View) -> Self {
        AppState {
            view: RwSignal::new(view),
            worker: RwSignal::new(WorkerStatus::Starting),
            trace: TraceState::new(),
            explore: ExploreState::new(),
        }
    }
}

//! Comparing the trace view's run (A) with a second one (B), beyond stormlog: the card
//! that takes run B (pickers, or a drop onto it), and the per-rank table A vs B with
//! its verdict and exports. The numbers are the core's
//! ([`shardscope_attribution::analysis::compare`]), the same as `shardscope compare`'s.

use std::sync::Arc;

use leptos::ev::Event;
use leptos::html;
use leptos::prelude::*;
use shardscope_attribution::analysis::compare::{
    self, compare as compare_runs, sort_rows, CompareAxis, Comparison, RunInput, ANCHOR_MARKERS,
};
use shardscope_attribution::analysis::IntervalRow;
use shardscope_view::compare::{
    cells, change_tone, export_file_name, measure_label, TABLE_MEASURES,
};
use shardscope_view::format::format_file_size;
use shardscope_view::trace_status::{progress_fraction, progress_text};

use super::super::download::save_text;
use super::super::sort_header::sort_header;
use super::super::state::{AppState, CompareState, Phase, Problem, RunSignals, RunSlot};
use super::super::workers::WorkersHandle;
use super::jobs::{cancel, load_run};
use super::settings::{take_picked, ProblemList};
use crate::protocol::{ExportFormat, TraceReport};

/// The attribute that sends a drop inside an element to run B.
pub const DROP_RUN_B: &str = "data-drop-run";

/// Run A against run B, when both are loaded.
pub fn comparison(a: &TraceReport, b: &TraceReport) -> Comparison {
    fn input(r: &TraceReport) -> RunInput<'_, IntervalRow> {
        RunInput {
            facts: &r.facts,
            results: &r.rows,
            aligned_clocks: r.align_clocks,
        }
    }
    compare_runs(input(a), input(b))
}

/// The card that takes run B: pickers, its status, and removing it.
#[component]
pub fn CompareInput(state: AppState) -> impl IntoView {
    let b = state.compare.run;
    let loaded = move || b.report.with(Option::is_some);
    let wanted = move || b.wanted_files.get();
    view! {
        <section
            class="card compare-card"
            data-testid="compare-card"
            data-drop-run="b"
            data-state=move || b.phase.get().as_str()
            data-runs=move || b.runs.get()
            aria-labelledby="compare-title"
        >
            <h2 id="compare-title">"Compare with another run"</h2>
            <p class="muted small">
                {move || {
                    if loaded() {
                        "Every change in the table below is B − A; fewer and smaller is better."
                    } else {
                        "Load run B (the same job after a change, say) with the buttons or by \
                         dropping it onto this card: the table below then compares it with \
                         this run rank by rank."
                    }
                }}
            </p>
            <Show when=move || !wanted().is_empty() && !loaded()>
                <p class="notice small" role="note">
                    "This link compared with "
                    <strong>{move || wanted().join(", ")}</strong>
                    ". Choose those files as run B: its settings are already set."
                </p>
            </Show>
            <RunBPickers state />
            <RunBStatus state />
            <Show when=loaded>
                <AxisField axis=state.compare.axis />
            </Show>
            <ProblemList problems=b.problems testid="compare-error" />
        </section>
    }
}

/// Run B's file and folder pickers, and removing it.
#[component]
fn RunBPickers(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let compare = state.compare;
    let b = compare.run;
    let file_ref = NodeRef::<html::Input>::new();
    let folder_ref = NodeRef::<html::Input>::new();
    let on_files = move |ev: Event| load_run(state, workers, RunSlot::B, take_picked(&ev));
    let open = move |node: NodeRef<html::Input>| {
        move |_| {
            if let Some(input) = node.get() {
                input.click();
            }
        }
    };
    Effect::new(move |_| {
        if let Some(input) = folder_ref.get() {
            // Setting an attribute on a live element cannot fail.
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let remove = move |_| {
        workers.with_value(|w| w.drop_compare());
        b.report.set(None);
        b.wanted_files.set(Vec::new());
        b.problems.set(Vec::new());
        b.phase.set(Phase::Idle);
        compare.frame.set(None);
        compare.editing.set(RunSlot::A);
    };
    let loaded = move || b.report.with(Option::is_some);
    view! {
        <div class="button-row">
            <button type="button" class="button" on:click=open(file_ref)>
                {move || if loaded() { "Replace run B…" } else { "Compare with…" }}
            </button>
            <button type="button" class="button" on:click=open(folder_ref)>
                "Folder…"
            </button>
            <Show when=loaded>
                <button
                    type="button"
                    class="button"
                    data-testid="compare-remove"
                    on:click=remove
                >
                    "Remove run B"
                </button>
            </Show>
        </div>
        <input
            id="compare-b-input"
            class="visually-hidden"
            type="file"
            multiple
            accept=".json,.jsonl,.csv,.gz,.zip,.tar,.tgz,application/json,text/csv,application/zip,application/x-tar,application/gzip"
            data-testid="compare-b-input"
            aria-label="Choose run B's trace files"
            tabindex="-1"
            node_ref=file_ref
            on:change=on_files
        />
        <input
            id="compare-b-folder-input"
            class="visually-hidden"
            type="file"
            multiple
            data-testid="compare-b-folder-input"
            aria-label="Choose run B's trace folder"
            tabindex="-1"
            node_ref=folder_ref
            on:change=on_files
        />
    }
}

/// What run B is: its files and size once loaded, its progress (and cancelling) while
/// it loads.
#[component]
fn RunBStatus(state: AppState) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    let b = state.compare.run;
    let summary = move || {
        b.report.with(|r| {
            r.as_ref().map(|r| {
                let bytes: u64 = r.files.iter().map(|(_, s)| s).sum();
                format!(
                    "Run B: {} file{} · {} · {} ranks · {} intervals",
                    r.files.len(),
                    if r.files.len() == 1 { "" } else { "s" },
                    format_file_size(bytes),
                    r.facts.ranks.len(),
                    r.rows.len()
                )
            })
        })
    };
    let progress = move || {
        let p = b.progress.get();
        progress_fraction(&p.stage, p.done_bytes, p.total_bytes).map(|f| f.to_string())
    };
    view! {
        <p class="small" data-testid="compare-status" role="status">
            {move || match b.phase.get() {
                Phase::Loading => {
                    let p = b.progress.get();
                    format!("Run B: {}", progress_text(&p.stage, p.done_bytes, p.total_bytes))
                }
                _ => summary().unwrap_or_default(),
            }}
        </p>
        <div class="progress-row" hidden=move || b.phase.get() != Phase::Loading>
            <progress max="1" value=progress aria-label="Run B's progress"></progress>
            <button
                type="button"
                class="button small"
                on:click=move |_| cancel(state, workers, RunSlot::B)
            >
                "Cancel"
            </button>
        </div>
    }
}

/// Where run B's lanes sit on the timeline: from its own start, or at the n-th
/// collective of both runs.
#[component]
fn AxisField(axis: RwSignal<CompareAxis>) -> impl IntoView {
    let at_collective = move || matches!(axis.get(), CompareAxis::AtCollective(_));
    let on_kind = move |ev: Event| {
        axis.set(match event_target_value(&ev).as_str() {
            "collective" => CompareAxis::AtCollective(0),
            _ => CompareAxis::FromStart,
        })
    };
    // Shown from 1 (the first collective), kept from 0.
    let on_number = move |ev: Event| {
        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
            let n = n.clamp(1, ANCHOR_MARKERS);
            axis.set(CompareAxis::AtCollective(n - 1));
        }
    };
    let number = move || match axis.get() {
        CompareAxis::AtCollective(n) => (n + 1).to_string(),
        CompareAxis::FromStart => "1".to_string(),
    };
    view! {
        <div class="field compare-axis">
            <label for="compare-axis">"Run B's lanes start"</label>
            <select
                id="compare-axis"
                data-testid="compare-axis"
                on:change=on_kind
                prop:value=move || if at_collective() { "collective" } else { "start" }
            >
                <option value="start">"with run A's start"</option>
                <option value="collective">"at a collective of run A"</option>
            </select>
            <Show when=at_collective>
                <label for="compare-axis-collective" class="small">
                    "Collective (1 = the first of the lowest rank with markers)"
                </label>
                <input
                    id="compare-axis-collective"
                    type="number"
                    min="1"
                    max=ANCHOR_MARKERS.to_string()
                    data-testid="compare-axis-collective"
                    prop:value=number
                    on:change=on_number
                />
            </Show>
        </div>
    }
}

/// Download the comparison as `shardscope compare --format json|csv` prints it.
fn export(problems: RwSignal<Vec<Problem>>, c: &Comparison, format: ExportFormat) {
    let aligned = c.a.aligned_clocks || c.b.aligned_clocks;
    let text = match format {
        ExportFormat::Json => compare::to_json(c),
        ExportFormat::Csv => compare::to_csv(c),
    };
    let name = export_file_name(aligned, format.extension());
    if let Err(e) = save_text(&name, &text, format.mime()) {
        problems.update(|p| p.push(Problem::general(format!("The download failed: {e}"))));
    }
}

/// The table A vs B, its verdict and its exports (shown while run B is loaded); an
/// export's failure is shown among run A's problems.
#[component]
pub fn CompareTable(a: RunSignals, compare: CompareState) -> impl IntoView {
    let problems = a.problems;
    let (a, b) = (a.report, compare.run.report);
    let sort = compare.sort;
    let comparison = Memo::new(move |_| {
        let a = a.get()?;
        let b = b.get()?;
        Some(Arc::new(comparison(&a, &b)))
    });
    let verdict = move || comparison.with(|c| c.as_ref().map(|c| c.verdict.clone()));
    let rows = move || {
        let mut rows = comparison.with(|c| c.as_ref().map(|c| c.ranks.clone()))?;
        let (measure, ascending) = sort.get();
        sort_rows(&mut rows, measure, !ascending);
        Some(rows)
    };
    let on_export = move |format| {
        move |_| {
            if let Some(c) = comparison.get_untracked() {
                export(problems, &c, format);
            }
        }
    };
    let row = |r: compare::RankComparison| {
        let tone = change_tone(r.change).as_str();
        view! {
            <tr data-testid="compare-row" data-rank=r.rank data-change=r.change.as_str()>
                <th scope="row" class="num">{r.rank}</th>
                {cells(&r)
                    .into_iter()
                    .map(|c| {
                        view! {
                            <td class="num compare-cell" data-measure=c.measure.name()>
                                <span class="ab">{format!("{} → {}", c.a, c.b)}</span>
                                <span class=format!("delta {}", c.tone.as_str())>{c.delta}</span>
                            </td>
                        }
                    })
                    .collect_view()}
                <td class=format!("change {tone}")>{r.change.words()}</td>
            </tr>
        }
    };
    view! {
        <section class="card compare-table-card" aria-labelledby="compare-table-title">
            <div class="card-head">
                <h2 id="compare-table-title">"Run A vs run B"</h2>
                <div class="button-row">
                    <button
                        type="button"
                        class="button small"
                        data-testid="compare-export-json"
                        on:click=on_export(ExportFormat::Json)
                    >
                        "Export JSON"
                    </button>
                    <button
                        type="button"
                        class="button small"
                        data-testid="compare-export-csv"
                        on:click=on_export(ExportFormat::Csv)
                    >
                        "Export CSV"
                    </button>
                </div>
            </div>
            <p class="compare-verdict" data-testid="compare-verdict" role="status">
                {verdict}
            </p>
            <div class="table-scroll">
                <table class="data-table compare-table" data-testid="compare-table">
                    <thead>
                        <tr>
                            {sort_header(sort, None, "Rank", true, Some("rank"), |_| true)}
                            {TABLE_MEASURES
                                .iter()
                                .map(|&m| {
                                    sort_header(
                                        sort,
                                        Some(m),
                                        measure_label(m),
                                        true,
                                        Some(m.name()),
                                        |_| true,
                                    )
                                })
                                .collect_view()}
                            <th scope="col">"B vs A"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || rows().unwrap_or_default().into_iter().map(row).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}

/// Whose settings the settings card edits, while run B is loaded.
#[component]
pub fn RunSwitch(compare: CompareState) -> impl IntoView {
    let editing = compare.editing;
    let button = move |slot: RunSlot| {
        view! {
            <button
                type="button"
                class="segment"
                data-testid="settings-run"
                data-run=slot.name()
                aria-pressed=move || if editing.get() == slot { "true" } else { "false" }
                on:click=move |_| editing.set(slot)
            >
                {format!("Run {}", slot.name())}
            </button>
        }
    };
    view! {
        <Show when=move || compare.run.report.with(Option::is_some)>
            <div class="segmented" role="group" aria-label="Settings of">
                {button(RunSlot::A)}
                {button(RunSlot::B)}
            </div>
        </Show>
    }
}

//! The selected configuration explained (`config-detail`): knobs, latency, throughput,
//! efficiency, PEs and SIPs; where the time goes, stage by stage, with the bottleneck
//! named; memory per PE against the budget; why it does not fit. And up to three
//! pinned configurations side by side.

use std::sync::Arc;

use leptos::prelude::*;
use shardscope_explorer::{ConfigScore, Evaluation, StageGroup};
use shardscope_session::explore_settings::short_key;
use shardscope_view::config_detail::{
    bottleneck_sentence, fabric_levels, group_bar, latency_split, memory_versus, pinned_lines,
    toggle_pin, MeasuredMemory, MemoryBar,
};
use shardscope_view::explore::{config_attributes, latency_text, layer_multiplier, tied_keys};

use super::super::state::{ExploreState, TraceReportSignal, View};
use super::super::workers::WorkersHandle;
use super::calibration::CalibrateForm;
use super::charts::SensitivityChart;
use super::jobs::evaluate;

fn attr(e: &Evaluation, name: &str) -> String {
    config_attributes(&e.config)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// One group's stacked bar: a segment per stage, width ∝ visible time.
fn stage_group(e: &Evaluation, group: StageGroup, title: String) -> impl IntoView {
    group_bar(e, group).map(|bar| {
        let segments = bar
            .segments
            .into_iter()
            .map(|s| {
                view! {
                    <span
                        class=format!("segment bound-{}", s.bound)
                        style:width=format!("{:.2}%", s.width_pct)
                        title=s.label.clone()
                        aria-label=s.label
                    >
                        {s.named.then_some(s.name)}
                    </span>
                }
            })
            .collect_view();
        view! {
            <div class="stage-group">
                <div class="stage-head">
                    <span>{title}</span>
                    <span class="muted">{latency_text(bar.total_s * 1e9)}</span>
                </div>
                <div class="stage-bar">{segments}</div>
            </div>
        }
    })
}

/// Memory per PE: the bar, and beside it the loaded trace's measured peak per rank
/// (`memory-measured`), which follows the trace view's run as it loads or changes.
#[component]
fn MemoryPanel(trace: TraceReportSignal, c: ConfigScore, budget_gb: f64) -> impl IntoView {
    move || {
        let measured = trace.with(|r| r.as_ref().and_then(|r| MeasuredMemory::of(&r.ranks)));
        let loaded = trace.with(Option::is_some);
        let bar = MemoryBar::beside(&c, budget_gb, measured.as_ref());
        let versus = measured.as_ref().map(|m| memory_versus(&c, &bar, m));
        let measured_view = match versus {
            Some(v) => view! {
                <div
                    class="memory-measured"
                    data-testid="memory-measured"
                    data-ranks=v.measured.ranks.to_string()
                    data-min-bytes=v.measured.min_bytes.to_string()
                    data-median-bytes=v.measured.median_bytes.to_string()
                    data-max-bytes=v.measured.max_bytes.to_string()
                    data-predicted-bytes=v.predicted_bytes.to_string()
                    data-diff-pct=v.diff_pct.to_string()
                >
                    <p class="small muted measured-key">"Measured peak per rank in the loaded trace, on the same scale (band: smallest to largest rank; bar: median)"</p>
                    <div class="stage-bar measured-bar" title="measured peak per rank: min to max, median marked">
                        <span
                            class="measured-range"
                            style:left=format!("{:.2}%", v.marks.0)
                            style:width=format!("{:.2}%", (v.marks.2 - v.marks.0).max(0.4))
                        ></span>
                        <span class="measured-median" style:left=format!("{:.2}%", v.marks.1)></span>
                    </div>
                    <p class="small">{v.sentence}</p>
                    {v.world_note.map(|n| view! { <p class="small muted">{n}</p> })}
                </div>
            }
            .into_any(),
            None if loaded => view! {
                <p class="small muted">"The loaded trace has no device_used_bytes samples to compare with."</p>
            }
            .into_any(),
            None => view! {
                <p class="small muted">"Load a trace in the trace view to compare with its measured peak memory per rank."</p>
            }
            .into_any(),
        };
        view! {
            {memory_bar(bar)}
            {measured_view}
        }
    }
}

/// Weights, KV cache and transient buffers per PE against the budget mark.
fn memory_bar(bar: MemoryBar) -> impl IntoView {
    let segments = bar
        .segments
        .map(|(class, label, gb, pct)| {
            view! {
                <span
                    class=format!("segment {class}")
                    style:width=format!("{pct:.2}%")
                    title=format!("{label}: {gb:.2} GB")
                ></span>
            }
        })
        .collect_view();
    view! {
        <div class="stage-bar memory-bar" class:over=bar.over>
            {segments}
            <span class="budget-mark" style:left=format!("{:.2}%", bar.budget_pct)></span>
        </div>
        <p class="small muted">{bar.caption}</p>
    }
}

#[component]
pub fn ConfigDetail(
    explore: ExploreState,
    page_view: RwSignal<View>,
    trace: TraceReportSignal,
) -> impl IntoView {
    let budget_gb = move || {
        explore
            .answer
            .with(|a| a.as_ref().map(|a| a.request.machine.budget_bytes() / 1e9))
            .unwrap_or(0.0)
    };
    move || {
        match explore.evaluation.get() {
        None => view! {
            <aside class="detail card empty">
                <h3>"Selected configuration"</h3>
                <p class="hint">
                    "Click a point of the scatter or a row of the frontier to see where its time goes, "
                    "what it stores per PE, and why it wins or does not fit."
                </p>
            </aside>
        }
        .into_any(),
        Some(e) => view! { <EvaluationCard explore=explore page_view=page_view trace=trace e budget_gb=budget_gb() /> }.into_any(),
    }
    }
}

/// The card of one scored configuration.
#[component]
fn EvaluationCard(
    explore: ExploreState,
    page_view: RwSignal<View>,
    trace: TraceReportSignal,
    e: Arc<Evaluation>,
    budget_gb: f64,
) -> impl IntoView {
    let c = e.config.clone();
    let key = short_key(&e.topology);
    let key_for_label = key.clone();
    let pinned = move || explore.pinned.with(|p| p.contains(&key_for_label));
    let layers = layer_multiplier(&e);
    let key_for_pin = key.clone();
    let key_for_ties = key.clone();
    let calibrated = move || {
        explore
            .answer
            .with(|a| a.as_ref().is_some_and(|a| a.report.calibration.is_some()))
    };
    view! {
        <aside
            class="detail card"
            data-testid="config-detail"
            data-cp=attr(&e, "data-cp")
            data-tp=attr(&e, "data-tp")
            data-pp=attr(&e, "data-pp")
            data-dp=attr(&e, "data-dp")
            data-kv=attr(&e, "data-kv")
            data-ffn=attr(&e, "data-ffn")
            data-tpp=attr(&e, "data-tpp")
            data-cpp=attr(&e, "data-cpp")
            data-ring=attr(&e, "data-ring")
            data-latency-ns=attr(&e, "data-latency-ns")
            data-pes=attr(&e, "data-pes")
            data-efficiency=attr(&e, "data-efficiency")
            data-key=key
            aria-live="polite"
        >
            <h3>
                {format!("cp{} tp{} pp{} dp{} ep{}", c.cp, c.tp, c.pp, c.dp, c.ep)}
                <span class="muted small">
                    {format!(" · kv {} · ffn {} · tp {} / cp {} · ring {}", c.kv_shard_mode, c.ffn_shard_scope, c.tp_placement, c.cp_placement, c.cp_ring_variant)}
                </span>
            </h3>
            <dl class="evidence">
                <dt>"Latency"</dt>
                <dd><span class="value">{latency_text(c.total_latency_ns)}</span><span class="meaning">{move || if calibrated() { "one step of one request, calibrated model" } else { "one step of one request" }}</span></dd>
                <dt>"Throughput"</dt>
                <dd><span class="value">{format!("{:.1} tokens/s", c.throughput_tok_s)}</span><span class="meaning">"1 / latency"</span></dd>
                <dt>"Efficiency"</dt>
                <dd><span class="value">{format!("{:.3}", c.efficiency_score)}</span><span class="meaning">"geo-mean of compute and bandwidth utilisation"</span></dd>
                <dt>"PEs · SIPs"</dt>
                <dd><span class="value">{format!("{} PEs · {} SIPs", c.pes_used, c.sips_used)}</span></dd>
                <dt>"Fabric levels"</dt>
                <dd><span class="value">{fabric_levels(&e)}</span></dd>
            </dl>
            <ConfigTies explore=explore key=key_for_ties />
            {(!c.reason.is_empty()).then(|| view! {
                <p class="problem">{format!("Infeasible: {}", c.reason)}</p>
            })}
            <h4>"Where the time goes"</h4>
            {bottleneck_sentence(&e).map(|(name, rest)| view! {
                <p class="small">"Bottleneck: " <code>{name}</code>{rest}</p>
            })}
            {stage_group(&e, StageGroup::Attention, format!("Attention, per layer (× {layers:.0})"))}
            {stage_group(&e, StageGroup::Ffn, format!("FFN, per layer (× {layers:.0})"))}
            {stage_group(&e, StageGroup::Overhead, "Once per request".to_string())}
            <div class="stage-legend small">
                <span class="segment-key bound-compute"></span>"compute"
                <span class="segment-key bound-memory"></span>"memory"
                <span class="segment-key bound-network"></span>"network"
            </div>
            <h4>"Memory per PE"</h4>
            <MemoryPanel trace=trace c=c.clone() budget_gb=budget_gb />
            <SensitivityChart explore=explore page_view=page_view />
            <CalibrateForm explore=explore topology=e.topology predicted_ns=c.total_latency_ns />
            <div class="detail-actions">
                <button
                    type="button"
                    class="button small"
                    data-testid="pin-config"
                    on:click=move |_| explore.pinned.update(|p| toggle_pin(p, &key_for_pin))
                >
                    {move || if pinned() { "Unpin" } else { "Pin to compare" }}
                </button>
            </div>
        </aside>
    }
}

/// The frontier configurations that tie with `key` on latency, PEs and efficiency, each a
/// button that selects it.
#[component]
fn ConfigTies(explore: ExploreState, key: String) -> impl IntoView {
    let workers = expect_context::<WorkersHandle>();
    move || {
        let tied = explore
            .answer
            .with(|a| a.as_ref().map(|a| tied_keys(&a.report.pareto, &key)))
            .unwrap_or_default();
        (!tied.is_empty()).then(|| {
            let n = tied.len();
            let items = tied
                .into_iter()
                .map(|k| {
                    let select_key = k.clone();
                    view! {
                        <li>
                            <button
                                type="button"
                                class="link-button"
                                on:click=move |_| {
                                    explore.selected.set(Some(select_key.clone()));
                                    evaluate(explore, workers, select_key.clone());
                                }
                            >
                                <code>{k}</code>
                            </button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <details class="config-ties small" data-testid="config-ties" data-ties=(n + 1).to_string()>
                    <summary>
                        {format!("×{} — ties with {n} other frontier configuration{} on latency, PEs and efficiency", n + 1, if n == 1 { "" } else { "s" })}
                    </summary>
                    <p class="muted">"They differ only in KV layout, FFN scope or placement; any of them is as good."</p>
                    <ul>{items}</ul>
                </details>
            }
        })
    }
}

/// One pinned configuration's bar: its latency split into attention, FFN and
/// per-request time (each segment's share of the latency).
fn latency_split_bar(e: &Evaluation) -> impl IntoView {
    let segments = latency_split(e)
        .map(|(label, class, pct)| {
            view! {
                <span class=format!("segment {class}") style:width=format!("{pct:.2}%") title=format!("{label}: {pct:.0} %")></span>
            }
        })
        .collect_view();
    view! { <div class="stage-bar mini">{segments}</div> }
}

/// Pinned configurations side by side: knobs, latency, throughput, PEs, memory per PE
/// and where the time goes.
#[component]
pub fn PinnedCompare(explore: ExploreState) -> impl IntoView {
    let rows = move || {
        let keys = explore.pinned.get();
        explore.pinned_evaluations.with(|evals| {
            keys.iter()
                .map(|k| {
                    (
                        k.clone(),
                        evals
                            .iter()
                            .find(|(key, _)| key == k)
                            .map(|(_, e)| Arc::clone(e)),
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section class="card pinned" data-testid="pinned-compare" aria-labelledby="pinned-title">
            <h3 id="pinned-title">"Pinned"</h3>
            <Show
                when=move || !explore.pinned.with(Vec::is_empty)
                fallback=|| view! { <p class="hint">"Pin up to three configurations to compare them here."</p> }
            >
                <div class="compare-list">
                    {move || rows()
                        .into_iter()
                        .enumerate()
                        .map(|(n, (key, e))| {
                            let unpin = key.clone();
                            let attr_key = key.clone();
                            view! {
                                <div class="compare-item" data-key=attr_key>
                                    <div class="compare-head">
                                        <strong>{format!("{}", n + 1)}</strong>
                                        <code>{key}</code>
                                        <button
                                            type="button"
                                            class="button small"
                                            on:click=move |_| explore.pinned.update(|p| p.retain(|k| *k != unpin))
                                        >
                                            "Unpin"
                                        </button>
                                    </div>
                                    {match e {
                                        None => view! { <p class="small muted">"Scoring…"</p> }.into_any(),
                                        Some(e) => {
                                            let (numbers, memory) = pinned_lines(&e.config);
                                            view! {
                                                <p class="small">{numbers}</p>
                                                <p class="small muted">{memory}</p>
                                                {latency_split_bar(&e)}
                                            }
                                            .into_any()
                                        }
                                    }}
                                </div>
                            }
                        })
                        .collect_view()}
                    <div class="stage-legend small">
                        <span class="segment-key split-attention"></span>"attention"
                        <span class="segment-key split-ffn"></span>"FFN"
                        <span class="segment-key split-overhead"></span>"per request"
                    </div>
                </div>
            </Show>
        </section>
    }
}

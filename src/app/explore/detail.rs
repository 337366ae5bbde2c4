//! The selected configuration explained (`config-detail`): knobs, latency, throughput,
//! efficiency, PEs and SIPs; where the time goes, stage by stage, with the bottleneck
//! named; memory per PE against the budget; why it does not fit. And up to three
//! pinned configurations side by side.

use std::sync::Arc;

use leptos::prelude::*;
use shardscope_core::explorer::{Evaluation, StageGroup};
use shardscope_core::view::explore::{
    bottleneck, config_attributes, latency_text, layer_multiplier, short_key, stage_bars,
};
use shardscope_core::view::permalink::MAX_PINNED;

use super::super::state::AppState;
use super::charts::SensitivityChart;

fn attr(e: &Evaluation, name: &str) -> String {
    config_attributes(&e.config)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// One group's stacked bar: a segment per stage, width ∝ visible time.
fn stage_group(e: &Evaluation, group: StageGroup, title: String) -> impl IntoView {
    let bars: Vec<_> = stage_bars(e)
        .into_iter()
        .filter(|b| b.group == group)
        .collect();
    let total: f64 = bars.iter().map(|b| b.visible_s).sum();
    (total > 0.0).then(|| {
        let segments = bars
            .into_iter()
            .filter(|b| b.visible_s > 0.0)
            .map(|b| {
                let share = b.visible_s / total * 100.0;
                let label = format!(
                    "{} · {} · {}",
                    b.name,
                    latency_text(b.visible_s * 1e9),
                    b.bound
                );
                view! {
                    <span
                        class=format!("segment bound-{}", b.bound)
                        style:width=format!("{share:.2}%")
                        title=label.clone()
                        aria-label=label
                    >
                        {(share > 14.0).then_some(b.name)}
                    </span>
                }
            })
            .collect_view();
        view! {
            <div class="stage-group">
                <div class="stage-head">
                    <span>{title}</span>
                    <span class="muted">{latency_text(total * 1e9)}</span>
                </div>
                <div class="stage-bar">{segments}</div>
            </div>
        }
    })
}

#[component]
pub fn ConfigDetail() -> impl IntoView {
    let state = expect_context::<AppState>();
    let explore = state.explore;
    let pin = move |key: String| {
        explore.pinned.update(|p| {
            if let Some(i) = p.iter().position(|k| *k == key) {
                p.remove(i);
            } else {
                if p.len() >= MAX_PINNED {
                    p.remove(0);
                }
                p.push(key);
            }
        })
    };
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
        Some(e) => {
            let c = e.config.clone();
            let key = short_key(&e.topology);
            let pinned = explore.pinned.with(|p| p.contains(&key));
            let bars = stage_bars(&e);
            let top = bottleneck(&bars).map(|b| (b.name, b.bound, b.latency_s));
            let layers = layer_multiplier(&e);
            let budget = budget_gb();
            let used = c.weights_gb + c.kv_gb + c.transient_gb;
            let scale = used.max(budget).max(1e-9);
            let over = used > budget;
            let mem = |gb: f64, class: &'static str, label: &'static str| {
                view! {
                    <span
                        class=format!("segment {class}")
                        style:width=format!("{:.2}%", gb / scale * 100.0)
                        title=format!("{label}: {gb:.2} GB")
                    ></span>
                }
            };
            let levels: Vec<String> = {
                let mut l: Vec<String> = e
                    .stages
                    .iter()
                    .filter_map(|s| s.level.map(|lv| format!("{lv:?}")))
                    .collect();
                l.sort();
                l.dedup();
                l
            };
            let key_for_pin = key.clone();
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
                    data-key=key.clone()
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
                        <dd><span class="value">{latency_text(c.total_latency_ns)}</span><span class="meaning">"one step of one request"</span></dd>
                        <dt>"Throughput"</dt>
                        <dd><span class="value">{format!("{:.1} tokens/s", c.throughput_tok_s)}</span><span class="meaning">"1 / latency"</span></dd>
                        <dt>"Efficiency"</dt>
                        <dd><span class="value">{format!("{:.3}", c.efficiency_score)}</span><span class="meaning">"geo-mean of compute and bandwidth utilisation"</span></dd>
                        <dt>"PEs · SIPs"</dt>
                        <dd><span class="value">{format!("{} PEs · {} SIPs", c.pes_used, c.sips_used)}</span></dd>
                        <dt>"Fabric levels"</dt>
                        <dd><span class="value">{if levels.is_empty() { "none (no collective)".to_string() } else { levels.join(", ") }}</span></dd>
                    </dl>
                    {(!c.reason.is_empty()).then(|| view! {
                        <p class="problem">{format!("Infeasible: {}", c.reason)}</p>
                    })}
                    <h4>"Where the time goes"</h4>
                    {top.map(|(name, bound, s)| view! {
                        <p class="small">
                            "Bottleneck: " <code>{name}</code>
                            {format!(
                                " — {} of {} ({:.0} %), {} bound",
                                latency_text(s * 1e9),
                                latency_text(c.total_latency_ns),
                                s / (c.total_latency_ns / 1e9) * 100.0,
                                bound
                            )}
                        </p>
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
                    <div class="stage-bar memory-bar" class:over=over>
                        {mem(c.weights_gb, "mem-weights", "weights")}
                        {mem(c.kv_gb, "mem-kv", "KV cache")}
                        {mem(c.transient_gb, "mem-transient", "transient")}
                        <span class="budget-mark" style:left=format!("{:.2}%", budget / scale * 100.0)></span>
                    </div>
                    <p class="small muted">
                        {format!(
                            "weights {:.2} GB + KV {:.2} GB + transient {:.2} GB = {:.2} GB of {:.1} GB usable ({:.0} %)",
                            c.weights_gb, c.kv_gb, c.transient_gb, used, budget, c.hbm_utilization * 100.0
                        )}
                    </p>
                    <SensitivityChart />
                    <div class="detail-actions">
                        <button
                            type="button"
                            class="button small"
                            data-testid="pin-config"
                            on:click=move |_| pin(key_for_pin.clone())
                        >
                            {if pinned { "Unpin" } else { "Pin to compare" }}
                        </button>
                    </div>
                </aside>
            }
            .into_any()
        }
    }
    }
}

/// One pinned configuration's bar: its latency split into attention, FFN and
/// per-request time (each segment's share of the latency).
fn latency_split(e: &Evaluation) -> impl IntoView {
    let bars = stage_bars(e);
    let total: f64 = bars.iter().map(|b| b.latency_s).sum::<f64>().max(1e-30);
    let share = |g: StageGroup| {
        bars.iter()
            .filter(|b| b.group == g)
            .map(|b| b.latency_s)
            .sum::<f64>()
            / total
            * 100.0
    };
    let segments = [
        (StageGroup::Attention, "attention", "split-attention"),
        (StageGroup::Ffn, "FFN", "split-ffn"),
        (StageGroup::Overhead, "per request", "split-overhead"),
    ]
    .into_iter()
    .map(|(g, label, class)| {
        let pct = share(g);
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
pub fn PinnedCompare() -> impl IntoView {
    let state = expect_context::<AppState>();
    let explore = state.explore;
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
                                            let c = &e.config;
                                            view! {
                                                <p class="small">
                                                    {format!(
                                                        "{} · {:.1} tokens/s · {} PEs · eff {:.3}",
                                                        latency_text(c.total_latency_ns),
                                                        c.throughput_tok_s,
                                                        c.pes_used,
                                                        c.efficiency_score
                                                    )}
                                                </p>
                                                <p class="small muted">
                                                    {format!(
                                                        "memory per PE: weights {:.1} + KV {:.1} + transient {:.1} GB ({:.0} % of usable){}",
                                                        c.weights_gb,
                                                        c.kv_gb,
                                                        c.transient_gb,
                                                        c.hbm_utilization * 100.0,
                                                        if c.reason.is_empty() { String::new() } else { format!(" · infeasible: {}", c.reason) }
                                                    )}
                                                </p>
                                                {latency_split(&e)}
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

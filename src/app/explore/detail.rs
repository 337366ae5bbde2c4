//! The selected configuration explained (`config-detail`): knobs, latency, throughput,
//! efficiency, PEs and SIPs; where the time goes, stage by stage, with the bottleneck
//! named; memory per PE against the budget; why it does not fit. And up to three
//! pinned configurations side by side.

use leptos::prelude::*;
use shardscope_core::explorer::{Evaluation, StageGroup};
use shardscope_core::view::explore::{
    bottleneck, config_attributes, latency_text, layer_multiplier, parse_short_key, short_key,
    stage_bars,
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
                        style=format!("width: {share:.2}%")
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
                        style=format!("width: {:.2}%", gb / scale * 100.0)
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
                        <span class="budget-mark" style=format!("left: {:.2}%", budget / scale * 100.0)></span>
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

/// Pinned configurations side by side.
#[component]
pub fn PinnedCompare() -> impl IntoView {
    let state = expect_context::<AppState>();
    let explore = state.explore;
    let rows = move || {
        let keys = explore.pinned.get();
        explore
            .answer
            .with(|a| {
                let a = a.as_ref()?;
                let base = a.request.sweep.base_topology();
                Some(
                    keys.iter()
                        .map(|k| {
                            let found = parse_short_key(k, &base).ok().and_then(|t| {
                                (0..a.points.len())
                                    .find(|&i| a.points.topology(i, &a.request.sweep) == Some(t))
                            });
                            (
                                k.clone(),
                                found.map(|i| {
                                    (
                                        a.points.latency_ns[i],
                                        a.points.pes[i],
                                        a.points.efficiency[i],
                                    )
                                }),
                            )
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .unwrap_or_default()
    };
    view! {
        <section class="card pinned" data-testid="pinned-compare" aria-labelledby="pinned-title">
            <h3 id="pinned-title">"Pinned"</h3>
            <Show
                when=move || !explore.pinned.with(Vec::is_empty)
                fallback=|| view! { <p class="hint">"Pin up to three configurations to compare them here."</p> }
            >
                <table class="compare">
                    <thead>
                        <tr>
                            <th scope="col">"#"</th>
                            <th scope="col">"Configuration"</th>
                            <th scope="col" class="num">"Latency"</th>
                            <th scope="col" class="num">"PEs"</th>
                            <th scope="col" class="num">"Eff."</th>
                            <th scope="col"></th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || rows()
                            .into_iter()
                            .enumerate()
                            .map(|(n, (key, values))| {
                                let unpin = key.clone();
                                view! {
                                    <tr>
                                        <td>{n + 1}</td>
                                        <td><code>{key}</code></td>
                                        <td class="num">{values.map(|v| latency_text(v.0)).unwrap_or_else(|| "–".into())}</td>
                                        <td class="num">{values.map(|v| v.1.to_string()).unwrap_or_else(|| "–".into())}</td>
                                        <td class="num">{values.map(|v| format!("{:.3}", v.2)).unwrap_or_else(|| "–".into())}</td>
                                        <td>
                                            <button
                                                type="button"
                                                class="button small"
                                                on:click=move |_| explore.pinned.update(|p| p.retain(|k| *k != unpin))
                                            >
                                                "Unpin"
                                            </button>
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </Show>
        </section>
    }
}

//! What the selected-configuration card and the pinned comparison show, computed: the
//! stage bars' segment widths, the bottleneck's sentence, the memory bar against the
//! budget, the fabric levels used, each pinned configuration's latency split, and the
//! pin list's rule (at most [`MAX_PINNED`], the oldest dropped). The page writes these.

use crate::explorer::{ConfigScore, Evaluation, StageGroup};

use super::explore::{bottleneck, latency_text, stage_bars};
use super::permalink::MAX_PINNED;

/// Pins `key`, or unpins it when it is pinned; a fourth pin drops the oldest.
pub fn toggle_pin(pinned: &mut Vec<String>, key: &str) {
    if let Some(i) = pinned.iter().position(|k| k == key) {
        pinned.remove(i);
        return;
    }
    if pinned.len() >= MAX_PINNED {
        pinned.remove(0);
    }
    pinned.push(key.to_string());
}

/// Segments narrower than this share of their bar (percent) carry no name.
pub const NAMED_SEGMENT_MIN_PCT: f64 = 14.0;

/// One stage of a group's stacked bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub name: &'static str,
    /// `compute`, `memory` or `network` (the CSS class `bound-…`).
    pub bound: &'static str,
    /// Width: share of the group's visible time, percent.
    pub width_pct: f64,
    /// `name · time · bound`, the tooltip and accessible label.
    pub label: String,
    /// Wide enough to print its name.
    pub named: bool,
}

/// One group's bar (attention or FFN per layer, or the per-request overheads).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupBar {
    pub total_s: f64,
    pub segments: Vec<Segment>,
}

/// The bar of `group`, or `None` when its stages take no time.
pub fn group_bar(e: &Evaluation, group: StageGroup) -> Option<GroupBar> {
    let bars: Vec<_> = stage_bars(e)
        .into_iter()
        .filter(|b| b.group == group)
        .collect();
    let total_s: f64 = bars.iter().map(|b| b.visible_s).sum();
    if total_s <= 0.0 {
        return None;
    }
    let segments = bars
        .into_iter()
        .filter(|b| b.visible_s > 0.0)
        .map(|b| {
            let width_pct = b.visible_s / total_s * 100.0;
            Segment {
                name: b.name,
                bound: b.bound,
                width_pct,
                label: format!(
                    "{} · {} · {}",
                    b.name,
                    latency_text(b.visible_s * 1e9),
                    b.bound
                ),
                named: width_pct > NAMED_SEGMENT_MIN_PCT,
            }
        })
        .collect();
    Some(GroupBar { total_s, segments })
}

/// The bottleneck stage's name and the rest of its sentence:
/// `" — 1.2 ms of 3.4 ms (35 %), memory bound"`.
pub fn bottleneck_sentence(e: &Evaluation) -> Option<(&'static str, String)> {
    let bars = stage_bars(e);
    let top = bottleneck(&bars)?;
    let total_ns = e.config.total_latency_ns;
    Some((
        top.name,
        format!(
            " — {} of {} ({:.0} %), {} bound",
            latency_text(top.latency_s * 1e9),
            latency_text(total_ns),
            top.latency_s / (total_ns / 1e9) * 100.0,
            top.bound
        ),
    ))
}

/// The fabric levels the configuration's collectives use, sorted, or a word for none.
pub fn fabric_levels(e: &Evaluation) -> String {
    let mut levels: Vec<String> = e
        .stages
        .iter()
        .filter_map(|s| s.level.map(|lv| format!("{lv:?}")))
        .collect();
    levels.sort();
    levels.dedup();
    if levels.is_empty() {
        "none (no collective)".to_string()
    } else {
        levels.join(", ")
    }
}

/// The memory-per-PE bar: weights, KV cache and transient buffers against the budget,
/// on one scale (the larger of the two, so an overflow shows past the mark).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryBar {
    /// (CSS class, label, GB, width percent), in stacking order.
    pub segments: [(&'static str, &'static str, f64, f64); 3],
    /// Where the budget mark sits, percent.
    pub budget_pct: f64,
    /// More stored than the budget allows.
    pub over: bool,
    /// `weights 1.00 GB + KV … = 9.00 GB of 10.0 GB usable (90 %)`.
    pub caption: String,
}

impl MemoryBar {
    pub fn of(c: &ConfigScore, budget_gb: f64) -> MemoryBar {
        let used_gb = c.weights_gb + c.kv_gb + c.transient_gb;
        let scale = used_gb.max(budget_gb).max(1e-9);
        let pct = |gb: f64| gb / scale * 100.0;
        MemoryBar {
            segments: [
                ("mem-weights", "weights", c.weights_gb, pct(c.weights_gb)),
                ("mem-kv", "KV cache", c.kv_gb, pct(c.kv_gb)),
                ("mem-transient", "transient", c.transient_gb, pct(c.transient_gb)),
            ],
            budget_pct: pct(budget_gb),
            over: used_gb > budget_gb,
            caption: format!(
                "weights {:.2} GB + KV {:.2} GB + transient {:.2} GB = {:.2} GB of {:.1} GB usable ({:.0} %)",
                c.weights_gb,
                c.kv_gb,
                c.transient_gb,
                used_gb,
                budget_gb,
                c.hbm_utilization * 100.0
            ),
        }
    }
}

/// A pinned configuration's latency split: (label, CSS class, share percent) for
/// attention, FFN and per-request time.
pub fn latency_split(e: &Evaluation) -> [(&'static str, &'static str, f64); 3] {
    let bars = stage_bars(e);
    let total_s: f64 = bars.iter().map(|b| b.latency_s).sum::<f64>().max(1e-30);
    let share = |g: StageGroup| {
        bars.iter()
            .filter(|b| b.group == g)
            .map(|b| b.latency_s)
            .sum::<f64>()
            / total_s
            * 100.0
    };
    [
        ("attention", "split-attention", share(StageGroup::Attention)),
        ("FFN", "split-ffn", share(StageGroup::Ffn)),
        ("per request", "split-overhead", share(StageGroup::Overhead)),
    ]
}

/// The pinned card's two lines: latency, throughput, PEs, efficiency; memory per PE
/// (and why it does not fit).
pub fn pinned_lines(c: &ConfigScore) -> (String, String) {
    (
        format!(
            "{} · {:.1} tokens/s · {} PEs · eff {:.3}",
            latency_text(c.total_latency_ns),
            c.throughput_tok_s,
            c.pes_used,
            c.efficiency_score
        ),
        format!(
            "memory per PE: weights {:.1} + KV {:.1} + transient {:.1} GB ({:.0} % of usable){}",
            c.weights_gb,
            c.kv_gb,
            c.transient_gb,
            c.hbm_utilization * 100.0,
            if c.reason.is_empty() {
                String::new()
            } else {
                format!(" · infeasible: {}", c.reason)
            }
        ),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::explore::{parse_short_key, resolve, ExploreSettings};
    use super::*;

    fn evaluation(key: &str) -> Evaluation {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let topo = parse_short_key(key, &req.sweep.base_topology()).unwrap();
        crate::explorer::evaluate(&req.model, &req.machine, &topo, req.sweep.options).unwrap()
    }

    #[test]
    fn pins_toggle_and_keep_the_newest_three() {
        let mut p = Vec::new();
        for k in ["a", "b", "c", "d"] {
            toggle_pin(&mut p, k);
        }
        assert_eq!(p, ["b", "c", "d"]);
        toggle_pin(&mut p, "c");
        assert_eq!(p, ["b", "d"]);
        toggle_pin(&mut p, "c");
        assert_eq!(p, ["b", "d", "c"]);
    }

    #[test]
    fn group_bars_fill_their_width_and_name_wide_segments() {
        let e = evaluation("cp1.tp8.pp1.dp1.split.TP.pe.pe.kv");
        let bar = group_bar(&e, StageGroup::Attention).unwrap();
        let width: f64 = bar.segments.iter().map(|s| s.width_pct).sum();
        assert!((width - 100.0).abs() < 1e-9, "{width}");
        assert!((bar.total_s - e.attention_s).abs() <= 1e-9 * e.attention_s.max(1.0));
        for s in &bar.segments {
            assert_eq!(s.named, s.width_pct > NAMED_SEGMENT_MIN_PCT);
            assert!(s.label.starts_with(s.name) && s.label.ends_with(s.bound));
        }
        let (name, rest) = bottleneck_sentence(&e).unwrap();
        assert!(stage_bars(&e).iter().any(|b| b.name == name));
        assert!(
            rest.starts_with(" — ") && rest.ends_with(" bound"),
            "{rest}"
        );
        let split = latency_split(&e);
        assert!((split.iter().map(|s| s.2).sum::<f64>() - 100.0).abs() < 1e-6);
    }

    #[test]
    fn the_memory_bar_scales_to_the_larger_of_use_and_budget() {
        let e = evaluation("cp1.tp8.pp1.dp1.split.TP.pe.pe.kv");
        let mut c = e.config.clone();
        (c.weights_gb, c.kv_gb, c.transient_gb, c.hbm_utilization) = (6.0, 3.0, 1.0, 0.5);
        let fits = MemoryBar::of(&c, 20.0);
        assert!(!fits.over);
        assert_eq!(fits.budget_pct, 100.0);
        assert_eq!(fits.segments.map(|s| s.3), [30.0, 15.0, 5.0]);
        assert_eq!(
            fits.caption,
            "weights 6.00 GB + KV 3.00 GB + transient 1.00 GB = 10.00 GB of 20.0 GB usable (50 %)"
        );
        let over = MemoryBar::of(&c, 5.0);
        assert!(over.over);
        assert_eq!(over.budget_pct, 50.0);
        assert_eq!(over.segments.map(|s| s.3), [60.0, 30.0, 10.0]);
        c.reason = "memory".into();
        assert!(pinned_lines(&c).1.ends_with(" · infeasible: memory"));
    }

    #[test]
    fn levels_are_listed_once_each() {
        let e = evaluation("cp1.tp8.pp1.dp1.split.TP.pe.pe.kv");
        let text = fabric_levels(&e);
        let parts: Vec<&str> = text.split(", ").collect();
        let mut unique = parts.clone();
        unique.dedup();
        assert_eq!(parts, unique);
        let mut none = e.clone();
        none.stages.iter_mut().for_each(|s| s.level = None);
        assert_eq!(fabric_levels(&none), "none (no collective)");
    }
}

//! What the selected-configuration card and the pinned comparison show, computed: the
//! stage bars' segment widths, the bottleneck's sentence, the memory bar against the
//! budget, the fabric levels used, each pinned configuration's latency split, and the
//! pin list's rule (at most [`MAX_PINNED`], the oldest dropped). The page writes these.

use serde::{Deserialize, Serialize};

use crate::explorer::{ConfigScore, Evaluation, StageGroup};

use super::explore::{bottleneck, latency_text, stage_bars};
use super::lod::RankSummary;
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
    /// The bar's full width, GB (the larger of use, budget and a measured peak).
    pub scale_gb: f64,
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
        MemoryBar::beside(c, budget_gb, None)
    }

    /// The bar on a scale that also holds a trace's measured peak (see
    /// [`MemoryVersus::marks`]).
    pub fn beside(c: &ConfigScore, budget_gb: f64, measured: Option<&MeasuredMemory>) -> MemoryBar {
        let used_gb = c.weights_gb + c.kv_gb + c.transient_gb;
        let measured_gb = measured.map_or(0.0, |m| m.max_bytes as f64 / 1e9);
        let scale = used_gb.max(budget_gb).max(measured_gb).max(1e-9);
        let pct = |gb: f64| gb / scale * 100.0;
        MemoryBar {
            scale_gb: scale,
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

/// The peak device memory a loaded trace measured, over its ranks: each rank's largest
/// `device_used_bytes`, then the smallest, median and largest of those.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeasuredMemory {
    /// Ranks with a `device_used_bytes` sample (and ranks in the trace).
    pub ranks: usize,
    pub ranks_in_trace: usize,
    pub min_bytes: i64,
    /// The middle rank's peak (the mean of the two middle ones for an even count).
    pub median_bytes: f64,
    pub max_bytes: i64,
}

impl MeasuredMemory {
    /// `None` when no rank has a sample with device memory in use.
    pub fn of(ranks: &[RankSummary]) -> Option<MeasuredMemory> {
        let mut peaks: Vec<i64> = ranks.iter().filter_map(|r| r.peak_used_bytes).collect();
        peaks.sort_unstable();
        let (&min_bytes, &max_bytes) = (peaks.first()?, peaks.last()?);
        let n = peaks.len();
        let median_bytes = if n % 2 == 1 {
            peaks[n / 2] as f64
        } else {
            (peaks[n / 2 - 1] as f64 + peaks[n / 2] as f64) / 2.0
        };
        Some(MeasuredMemory {
            ranks: n,
            ranks_in_trace: ranks.len(),
            min_bytes,
            median_bytes,
            max_bytes,
        })
    }
}

/// Bytes per GiB (measured memory is told in GiB, as allocators and `nvidia-smi` do).
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// A configuration's predicted memory per PE against a trace's measured peak per rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryVersus {
    pub measured: MeasuredMemory,
    /// Weights + KV + transient per PE, bytes.
    pub predicted_bytes: f64,
    /// Median measured − predicted, bytes and per cent of predicted.
    pub diff_bytes: f64,
    pub diff_pct: f64,
    /// "Measured in the loaded trace: 61.20 GiB per rank (median; 58.00–63.10 GiB over 16
    /// ranks) against 55.30 GiB predicted: +5.90 GiB (+10.7 %)."
    pub sentence: String,
    /// Said when the trace's world size is not the configuration's PE count.
    pub world_note: Option<String>,
    /// Where the measured min, median and max sit on the memory bar, percent.
    pub marks: (f64, f64, f64),
}

/// Compare `c`'s predicted memory per PE with `measured`, on `bar`'s scale.
pub fn memory_versus(c: &ConfigScore, bar: &MemoryBar, measured: &MeasuredMemory) -> MemoryVersus {
    let predicted_bytes = (c.weights_gb + c.kv_gb + c.transient_gb) * 1e9;
    let diff_bytes = measured.median_bytes - predicted_bytes;
    let diff_pct = if predicted_bytes > 0.0 {
        diff_bytes / predicted_bytes * 100.0
    } else {
        0.0
    };
    let gib = |b: f64| format!("{:.2} GiB", b / GIB);
    let sign = if diff_bytes >= 0.0 { "+" } else { "−" };
    let range = if measured.ranks == 1 {
        "one rank".to_string()
    } else {
        format!(
            "{:.2}–{} over {} ranks",
            measured.min_bytes as f64 / GIB,
            gib(measured.max_bytes as f64),
            measured.ranks
        )
    };
    let sentence = format!(
        "Measured in the loaded trace: {} per rank ({}{range}) against {} predicted \
         (weights + KV + transient): {sign}{} ({sign}{:.1} %).",
        gib(measured.median_bytes),
        if measured.ranks == 1 { "" } else { "median; " },
        gib(predicted_bytes),
        gib(diff_bytes.abs()),
        diff_pct.abs()
    );
    let world = measured.ranks_in_trace;
    let world_note = (u64::try_from(world).ok() != Some(c.pes_used)).then(|| {
        format!(
            "The trace has {world} rank{} and this configuration uses {} PEs: the comparison \
             holds only if each rank ran one PE's share of this configuration.",
            if world == 1 { "" } else { "s" },
            c.pes_used
        )
    });
    let pct = |b: f64| b / 1e9 / bar.scale_gb.max(1e-9) * 100.0;
    MemoryVersus {
        measured: *measured,
        predicted_bytes,
        diff_bytes,
        diff_pct,
        sentence,
        world_note,
        marks: (
            pct(measured.min_bytes as f64),
            pct(measured.median_bytes),
            pct(measured.max_bytes as f64),
        ),
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

    fn rank(rank: i64, peak: Option<i64>) -> RankSummary {
        RankSummary {
            rank,
            samples: 10,
            markers: 0,
            peak_gap_bytes: None,
            peak_gap_ts_ns: None,
            peak_used_bytes: peak,
            intervals: 0,
        }
    }

    #[test]
    fn measured_memory_is_compared_with_the_prediction_in_gib() {
        assert_eq!(MeasuredMemory::of(&[]), None);
        assert_eq!(MeasuredMemory::of(&[rank(0, None)]), None);
        let g = GIB as i64;
        let ranks: Vec<RankSummary> =
            [Some(12 * g), Some(10 * g), None, Some(11 * g), Some(16 * g)]
                .into_iter()
                .enumerate()
                .map(|(i, p)| rank(i as i64, p))
                .collect();
        let m = MeasuredMemory::of(&ranks).unwrap();
        assert_eq!((m.ranks, m.ranks_in_trace), (4, 5));
        assert_eq!((m.min_bytes, m.max_bytes), (10 * g, 16 * g));
        assert_eq!(m.median_bytes, 11.5 * GIB);
        let e = evaluation("cp1.tp8.pp1.dp1.split.TP.pe.pe.kv");
        let mut c = e.config.clone();
        // 10 GiB predicted: 10.737… GB.
        (c.weights_gb, c.kv_gb, c.transient_gb) = (10.0 * GIB / 1e9, 0.0, 0.0);
        c.pes_used = 8;
        let bar = MemoryBar::beside(&c, 12.0, Some(&m));
        assert!(
            (bar.scale_gb - 16.0 * GIB / 1e9).abs() < 1e-9,
            "the measured max fits the bar"
        );
        let v = memory_versus(&c, &bar, &m);
        assert!((v.diff_bytes - 1.5 * GIB).abs() < 1e-3);
        assert!((v.diff_pct - 15.0).abs() < 1e-9);
        assert_eq!(
            v.sentence,
            "Measured in the loaded trace: 11.50 GiB per rank (median; 10.00–16.00 GiB over 4 ranks) \
             against 10.00 GiB predicted (weights + KV + transient): +1.50 GiB (+15.0 %)."
        );
        assert!(v
            .world_note
            .as_deref()
            .unwrap()
            .starts_with("The trace has 5 ranks and this configuration uses 8 PEs"));
        assert!((v.marks.2 - 100.0).abs() < 1e-9 && (v.marks.0 - 62.5).abs() < 1e-9);
        // Fewer measured than predicted, on a trace of as many ranks as PEs.
        let eight: Vec<RankSummary> = (0..8).map(|i| rank(i, Some(5 * g))).collect();
        let m = MeasuredMemory::of(&eight).unwrap();
        let v = memory_versus(&c, &MemoryBar::beside(&c, 12.0, Some(&m)), &m);
        assert!(
            v.sentence.ends_with(": −5.00 GiB (−50.0 %)."),
            "{}",
            v.sentence
        );
        assert_eq!(v.world_note, None);
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

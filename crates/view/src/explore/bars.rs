//! The selected configuration's stage bars, its bottleneck, and the efficiency ramp.

use super::*;

/// One segment of the selected config's stage bar.
#[derive(Debug, Clone, PartialEq)]
pub struct StageBar {
    pub name: &'static str,
    pub group: StageGroup,
    /// Visible time of the stage (per layer for attention and FFN, per request for
    /// overheads), seconds, weighted by the layer mix.
    pub visible_s: f64,
    /// What bounds it: `compute`, `memory` or `network`.
    pub bound: &'static str,
    /// Its share of the whole latency: `visible_s` times the layers it runs for
    /// (per-layer stages) or once (per-request overheads).
    pub latency_s: f64,
}

/// How many layers' worth of per-layer time the latency holds:
/// `(latency − overheads) / per-layer time` (0 when nothing runs per layer).
pub fn layer_multiplier(e: &Evaluation) -> f64 {
    if e.per_layer_s > 0.0 {
        ((e.config.total_latency_ns / 1e9 - e.overhead_s) / e.per_layer_s).max(0.0)
    } else {
        0.0
    }
}

/// The stages of `e` with their visible time and what bounds each, in model order.
pub fn stage_bars(e: &Evaluation) -> Vec<StageBar> {
    let layers = layer_multiplier(e);
    e.stages
        .iter()
        .map(|st| {
            let bound =
                if st.t_comm_s >= st.t_comp_s && st.t_comm_s >= st.t_mem_s && st.t_comm_s > 0.0 {
                    "network"
                } else if st.t_mem_s > st.t_comp_s {
                    "memory"
                } else {
                    "compute"
                };
            let visible_s = st.visible_s * st.weight;
            StageBar {
                name: st.name.as_str(),
                group: st.group,
                visible_s,
                bound,
                latency_s: if st.group == StageGroup::Overhead {
                    visible_s
                } else {
                    visible_s * layers
                },
            }
        })
        .collect()
}

/// The stage that adds the most to the latency (the bottleneck), if any costs time.
pub fn bottleneck(bars: &[StageBar]) -> Option<&StageBar> {
    bars.iter()
        .filter(|b| b.latency_s > 0.0)
        .max_by(|a, b| a.latency_s.total_cmp(&b.latency_s))
}

/// A viridis-like sequential ramp (dark purple → blue → green → yellow) for `t` in 0..=1:
/// ordered in lightness, so it reads in greyscale and for every colour-vision type.
pub fn efficiency_color(t: f64) -> Rgba {
    const STOPS: [(f64, u32); 5] = [
        (0.0, 0x440154),
        (0.25, 0x3b528b),
        (0.5, 0x21918c),
        (0.75, 0x5ec962),
        (1.0, 0xfde725),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut k = 0;
    while k + 2 < STOPS.len() && t > STOPS[k + 1].0 {
        k += 1;
    }
    let (t0, c0) = STOPS[k];
    let (t1, c1) = STOPS[k + 1];
    let f = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
    let (a, b) = (Rgba::hex(c0), Rgba::hex(c1));
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    Rgba {
        r: mix(a.r, b.r),
        g: mix(a.g, b.g),
        b: mix(a.b, b.b),
        a: 1.0,
    }
}

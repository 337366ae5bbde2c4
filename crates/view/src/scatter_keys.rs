//! The scatter's keys: what a key press means (walk the frontier, choose, zoom, reset)
//! and the zoom it asks for; the canvas's label, which names where the frontier starts
//! and ends.

use super::explore::{latency_text, Points, FEASIBLE, FRONTIER};
use super::scatter::{hover_text, ScatterRange};
use crate::explorer::SweepRequest;

/// Zoom per +/− press on the scatter: both axes' spans (in logarithms) are multiplied by
/// this, or divided.
pub const SCATTER_KEY_ZOOM: f64 = 0.6;

/// What a key does on the focused scatter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScatterKey {
    /// Move the keyboard cursor along the frontier.
    Walk(FrontierStep),
    /// Select the cursor's configuration.
    Choose,
    /// Multiply both axes' spans by this factor around the cursor (or the middle).
    Zoom(f64),
    /// Show the whole range.
    Reset,
}

/// A move along the frontier (ordered by PEs, then latency).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontierStep {
    Previous,
    Next,
    First,
    Last,
}

impl ScatterKey {
    /// The action of `key` (a `KeyboardEvent.key`); `None` for other keys and with Ctrl,
    /// Meta or Alt held. ←/↓ walk to fewer PEs, →/↑ to more (up: faster is not promised).
    pub fn from_key(key: &str, with_modifier: bool) -> Option<ScatterKey> {
        if with_modifier {
            return None;
        }
        Some(match key {
            "ArrowLeft" | "ArrowDown" => ScatterKey::Walk(FrontierStep::Previous),
            "ArrowRight" | "ArrowUp" => ScatterKey::Walk(FrontierStep::Next),
            "Home" => ScatterKey::Walk(FrontierStep::First),
            "End" => ScatterKey::Walk(FrontierStep::Last),
            "Enter" | " " => ScatterKey::Choose,
            "+" | "=" => ScatterKey::Zoom(SCATTER_KEY_ZOOM),
            "-" | "_" => ScatterKey::Zoom(1.0 / SCATTER_KEY_ZOOM),
            "Escape" | "0" => ScatterKey::Reset,
            _ => return None,
        })
    }
}

/// The frontier configuration `step` from `from` (fewest PEs first, then fastest); from
/// none, or from a configuration off the frontier, the walk starts at the first (or, for
/// [`FrontierStep::Previous`] and [`FrontierStep::Last`], the last). At either end it
/// stays. `None`: no frontier.
pub fn frontier_step(points: &Points, from: Option<usize>, step: FrontierStep) -> Option<usize> {
    let mut frontier: Vec<usize> = (0..points.len())
        .filter(|&i| points.flags[i] & FRONTIER != 0 && points.flags[i] & FEASIBLE != 0)
        .collect();
    frontier.sort_by(|&a, &b| {
        points.pes[a]
            .cmp(&points.pes[b])
            .then(points.latency_ns[a].total_cmp(&points.latency_ns[b]))
            .then(a.cmp(&b))
    });
    let last = frontier.len().checked_sub(1)?;
    let at = from.and_then(|f| frontier.iter().position(|&i| i == f));
    let to = match (step, at) {
        (FrontierStep::First, _) | (FrontierStep::Next, None) => 0,
        (FrontierStep::Last, _) | (FrontierStep::Previous, None) => last,
        (FrontierStep::Previous, Some(at)) => at.saturating_sub(1),
        (FrontierStep::Next, Some(at)) => (at + 1).min(last),
    };
    frontier.get(to).copied()
}

impl ScatterRange {
    /// This range zoomed by `factor` (< 1 in) on both axes' logarithms, keeping the point
    /// (`pes`, `latency_ns`) where it is on the canvas.
    pub fn zoomed(self, factor: f64, pes: f64, latency_ns: f64) -> ScatterRange {
        let around = |lo: f64, hi: f64, at: f64| {
            let at = at.clamp(lo, hi);
            (at - (at - lo) * factor, at + (hi - at) * factor)
        };
        let (p0, p1) = around(
            self.pes_min.log2(),
            self.pes_max.log2(),
            pes.max(1e-9).log2(),
        );
        let (l0, l1) = around(
            self.latency_min_ns.log10(),
            self.latency_max_ns.log10(),
            latency_ns.max(1e-9).log10(),
        );
        ScatterRange {
            pes_min: 2f64.powf(p0),
            pes_max: 2f64.powf(p1),
            latency_min_ns: 10f64.powf(l0),
            latency_max_ns: 10f64.powf(l1),
        }
    }

    /// Whether (`pes`, `latency_ns`) lies inside.
    pub fn contains(&self, pes: f64, latency_ns: f64) -> bool {
        (self.pes_min..=self.pes_max).contains(&pes)
            && (self.latency_min_ns..=self.latency_max_ns).contains(&latency_ns)
    }
}

/// What the scatter shows, in words, for a screen reader (the canvas's label): how many
/// configurations and how many fit, the frontier's extent (fewest PEs and fastest), the
/// selected configuration, then the keys. The frontier table holds the same points.
pub fn scatter_label(points: &Points, req: &SweepRequest, selected: Option<usize>) -> String {
    let fit = points.flags.iter().filter(|f| *f & FEASIBLE != 0).count();
    let mut text = format!(
        "Latency against PEs used for {} configurations, {} of which fit",
        points.len(),
        fit
    );
    let first = frontier_step(points, None, FrontierStep::First);
    let last = frontier_step(points, None, FrontierStep::Last);
    if let (Some(a), Some(b)) = (first, last) {
        let n = points.flags.iter().filter(|f| *f & FRONTIER != 0).count();
        text.push_str(&format!(
            "; the frontier's {n} run from {} at {} PEs to {} at {} PEs",
            latency_text(points.latency_ns[a]),
            points.pes[a],
            latency_text(points.latency_ns[b]),
            points.pes[b]
        ));
    }
    if let Some(line) = selected.and_then(|i| hover_text(points, req, i)) {
        text.push_str("; selected: ");
        text.push_str(&line);
    }
    text.push_str(
        ". Arrows walk the frontier, Enter selects, plus and minus zoom, Escape resets the zoom.",
    );
    text
}

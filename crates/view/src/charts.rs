//! The explorer's two small charts as [`Scene`]s: the one-knob sensitivity of the
//! selected configuration (small multiples for CP, TP, PP, DP, EP on one latency scale)
//! and the batch view (throughput per PE against throughput per user, one frontier per
//! batch size, the TPOT objective as a guide line).

use serde::{Deserialize, Serialize};

use crate::explorer::{BatchSweepReport, Mode, SensitivityReport, ServingScore};

use super::explore::{efficiency_color, short_key};
use super::format::format_duration;
use super::scene::{palette, HAlign, Rgba, Scene, VAlign};

/// 1, 2, 5 × powers of ten inside `[lo, hi]` (only powers when there is little room).
pub fn log_ticks(lo: f64, hi: f64, room_px: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let steps: &[f64] = if room_px / (hi / lo).log10().max(0.1) > 90.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut out = Vec::new();
    let mut p = 10f64.powf(lo.log10().floor());
    while p <= hi * 1.0001 {
        for &m in steps {
            let t = p * m;
            if t >= lo && t <= hi {
                out.push(t);
            }
        }
        p *= 10.0;
    }
    out
}

fn log_pos(v: f64, lo: f64, hi: f64, a: f64, b: f64) -> f64 {
    a + (v.log10() - lo.log10()) / (hi.log10() - lo.log10()).max(1e-9) * (b - a)
}

/// `12.3k`, `450`, `3.2M`: tokens per second on an axis.
fn rate_label(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.3}k", v / 1e3)
    } else {
        format!("{v:.3}")
    }
    .trim_end_matches('0')
    .trim_end_matches('.')
    .to_string()
}

/// The sensitivity small multiples on a `width` × `height` CSS px canvas.
pub fn sensitivity_scene(report: &SensitivityReport, width: f64, height: f64, scale: f64) -> Scene {
    let s = scale;
    let mut scene = Scene::new(
        (width * s).round().max(1.0) as u32,
        (height * s).round().max(1.0) as u32,
    );
    scene.background = Some(palette::WHITE);
    let font = 10.5 * s;
    let finite = report
        .rows
        .iter()
        .flat_map(|r| r.latencies_ns.iter().copied())
        .filter(|l| l.is_finite() && *l > 0.0);
    let (lo, hi) = finite.fold((f64::MAX, f64::MIN), |(a, b), l| (a.min(l), b.max(l)));
    if lo > hi {
        scene.text(
            width / 2.0 * s,
            height / 2.0 * s,
            "no latency to show",
            font,
            palette::MUTED,
            (HAlign::Center, VAlign::Middle),
        );
        return scene;
    }
    let (lo, hi) = (lo / 1.25, hi * 1.25);
    let left = 58.0;
    let (top, bottom) = (18.0, height - 22.0);
    let n = report.rows.len().max(1) as f64;
    let panel = (width - left - 6.0) / n;
    for t in log_ticks(lo, hi, bottom - top) {
        let y = log_pos(t, lo, hi, bottom, top);
        scene.line(
            vec![(left * s, y * s), ((width - 6.0) * s, y * s)],
            palette::GRID,
            s,
        );
        scene.text(
            (left - 4.0) * s,
            y * s,
            format_duration(t.round() as i64),
            font,
            palette::MUTED,
            (HAlign::Right, VAlign::Middle),
        );
    }
    for (k, row) in report.rows.iter().enumerate() {
        let x0 = left + panel * k as f64 + 8.0;
        let x1 = left + panel * (k + 1) as f64 - 8.0;
        scene.outline(x0 * s, top * s, x1 * s, bottom * s, palette::GRID, s);
        scene.text(
            (x0 + x1) / 2.0 * s,
            2.0 * s,
            row.knob.as_str().to_ascii_uppercase(),
            font,
            palette::INK,
            (HAlign::Center, VAlign::Top),
        );
        let m = row.values.len().max(1) as f64;
        let x_of = |i: usize| x0 + (x1 - x0) * (i as f64 + 0.5) / m;
        // Value labels 22 px apart at least (and always the baseline's).
        let stride = ((22.0 * m / (x1 - x0).max(1.0)).ceil() as usize).max(1);
        let mut line = Vec::new();
        for (i, (&v, &l)) in row.values.iter().zip(&row.latencies_ns).enumerate() {
            let x = x_of(i);
            let base_at = row.values.iter().position(|&b| b == row.baseline_value);
            let near_base = base_at.is_some_and(|b| b != i && b.abs_diff(i) < stride);
            if (i % stride == 0 && !near_base) || v == row.baseline_value {
                scene.text(
                    x * s,
                    (bottom + 4.0) * s,
                    v.to_string(),
                    font * 0.92,
                    if v == row.baseline_value {
                        palette::INK
                    } else {
                        palette::MUTED
                    },
                    (HAlign::Center, VAlign::Top),
                );
            }
            if !(l.is_finite() && l > 0.0) {
                continue;
            }
            let y = log_pos(l, lo, hi, bottom, top);
            let fits = row.fits.get(i).copied().unwrap_or(false);
            if fits {
                line.push((x * s, y * s));
                scene.circle(x * s, y * s, 3.2 * s, palette::BLUE, true);
            } else {
                // Does not fit or place: a cross.
                let r = 3.2 * s;
                let c = palette::VERMILLION;
                scene.line(
                    vec![(x * s - r, y * s - r), (x * s + r, y * s + r)],
                    c,
                    1.5 * s,
                );
                scene.line(
                    vec![(x * s - r, y * s + r), (x * s + r, y * s - r)],
                    c,
                    1.5 * s,
                );
            }
            if v == row.baseline_value {
                scene.circle(x * s, y * s, 6.5 * s, palette::INK, false);
            }
        }
        scene.line(line, palette::BLUE.alpha(0.6), 1.5 * s);
    }
    scene
}

/// Tokens per second per user: decode steps make one token per step; a prefill step
/// serves the whole prompt.
fn per_user(c: &ServingScore, mode: Mode, s_kv: u64) -> f64 {
    let per_step = match mode {
        Mode::Decode => 1.0,
        Mode::Prefill => s_kv as f64,
    };
    if c.config.total_latency_ns > 0.0 {
        per_step * 1e9 / c.config.total_latency_ns
    } else {
        0.0
    }
}

/// What the batch view draws, small enough to send to the page: per batch size, its
/// frontier configurations as (tokens/s per user, tokens/s per PE).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchPlane {
    pub mode: Mode,
    /// The objective drawn as a guide line: its label and the tokens/s per user it needs
    /// (decode: TPOT ≤ X ms needs 1000 / X; prefill: TTFT ≤ X ms needs prompt · 1000 / X).
    pub guide: Option<(String, f64)>,
    pub series: Vec<BatchSeries>,
    /// The frontier of every batch size's points together in this plane, as (series,
    /// point) by tokens/s per user ascending: the best a deployment can do at any batch.
    pub envelope: Vec<(usize, usize)>,
}

/// One batch size's points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSeries {
    pub batch: u32,
    pub points: Vec<(f64, f64)>,
    /// Each point's configuration (short key).
    pub keys: Vec<String>,
    /// The points no other point of this batch size beats on both axes (indices, by
    /// tokens/s per user ascending): the series' 2-D frontier in this plane.
    pub frontier: Vec<usize>,
}

/// Whether a plane point can be drawn on log axes.
fn drawable((x, y): (f64, f64)) -> bool {
    x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite()
}

/// The points (more is better on both axes) that no other point matches on one axis and
/// beats on the other, by the first coordinate ascending (so the second descends); equal
/// points are all kept, points that cannot be drawn are left out.
pub fn frontier_2d(points: &[(f64, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).filter(|&i| drawable(points[i])).collect();
    // Right to left, the higher first: every point that could dominate one comes before it.
    order.sort_by(|&a, &b| {
        points[b]
            .0
            .total_cmp(&points[a].0)
            .then(points[b].1.total_cmp(&points[a].1))
    });
    let mut kept = Vec::new();
    // The highest point so far (among equals, the rightmost: the first seen).
    let mut best: Option<(f64, f64)> = None;
    for i in order {
        let (x, y) = points[i];
        let dominated = best.is_some_and(|(bx, by)| by > y || (by == y && bx > x));
        if !dominated {
            if best.is_none_or(|(_, by)| y > by) {
                best = Some((x, y));
            }
            kept.push(i);
        }
    }
    kept.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[b].1.total_cmp(&points[a].1))
            .then(a.cmp(&b))
    });
    kept
}

impl BatchPlane {
    pub fn from_report(report: &BatchSweepReport) -> BatchPlane {
        BatchPlane {
            mode: report.header.mode,
            guide: match (report.header.mode, report.sla) {
                (Mode::Decode, Some(sla)) => sla
                    .tpot_max_ms
                    .filter(|ms| *ms > 0.0)
                    .map(|ms| (format!("TPOT ≤ {ms} ms"), 1000.0 / ms)),
                (Mode::Prefill, Some(sla)) => sla.ttft_max_ms.filter(|ms| *ms > 0.0).map(|ms| {
                    let prompt = sla.prompt_len.unwrap_or(report.header.s_kv) as f64;
                    (format!("TTFT ≤ {ms} ms"), prompt * 1000.0 / ms)
                }),
                _ => None,
            },
            series: report
                .batches
                .iter()
                .map(|r| BatchSeries {
                    batch: r.batch,
                    points: r
                        .pareto
                        .iter()
                        .map(|c| {
                            (
                                per_user(c, report.header.mode, report.header.s_kv),
                                c.throughput_per_pe_tok_s,
                            )
                        })
                        .collect(),
                    keys: r
                        .pareto
                        .iter()
                        .map(|c| {
                            short_key(&c.config.as_topology(report.header.s_kv, report.header.mode))
                        })
                        .collect(),
                    frontier: Vec::new(),
                })
                .collect(),
            envelope: Vec::new(),
        }
        .with_frontiers()
    }

    /// Each series' 2-D frontier and the envelope over all of them.
    fn with_frontiers(mut self) -> BatchPlane {
        for series in &mut self.series {
            series.frontier = frontier_2d(&series.points);
        }
        // Only a series' own frontier can be on the envelope.
        let candidates: Vec<(usize, usize)> = self
            .series
            .iter()
            .enumerate()
            .flat_map(|(b, s)| s.frontier.iter().map(move |&k| (b, k)))
            .collect();
        let points: Vec<(f64, f64)> = candidates
            .iter()
            .map(|&(b, k)| self.series[b].points[k])
            .collect();
        self.envelope = frontier_2d(&points)
            .into_iter()
            .map(|i| candidates[i])
            .collect();
        self
    }

    /// The envelope as `B:KEY` words (`data-envelope` of `batch-view`).
    pub fn envelope_text(&self) -> String {
        self.envelope
            .iter()
            .filter_map(|&(b, k)| {
                let s = self.series.get(b)?;
                Some(format!("{}:{}", s.batch, s.keys.get(k)?))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A monotone step line through frontier corners sorted by x ascending (y descending),
/// in CSS px: each corner, then straight down to the next one's height and across to it
/// (the edge of what the corners dominate).
fn step_line(corners: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut line = Vec::with_capacity(corners.len() * 2);
    for (i, &(x, y)) in corners.iter().enumerate() {
        if i > 0 {
            let (px, _) = corners[i - 1];
            line.push((px, y));
        }
        line.push((x, y));
    }
    line
}

/// Where the batch view's plot is and what its log axes span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchAxes {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
    /// Tokens/s per user across the plot, and per PE up it.
    pub user: (f64, f64),
    pub per_pe: (f64, f64),
    /// The per-user rate the objective needs (see [`BatchPlane::guide`]).
    pub guide: Option<f64>,
}

impl BatchAxes {
    pub fn fit(plane: &BatchPlane, width: f64, height: f64) -> Option<BatchAxes> {
        let (x0, x1, y0, y1) = (64.0, width - 90.0, 14.0, height - 38.0);
        let finite = |(x, y): &(f64, f64)| *x > 0.0 && *y > 0.0 && x.is_finite() && y.is_finite();
        let all: Vec<(f64, f64)> = plane
            .series
            .iter()
            .flat_map(|r| r.points.iter().copied())
            .filter(finite)
            .collect();
        if all.is_empty() || x1 <= x0 {
            return None;
        }
        let range = |f: fn(&(f64, f64)) -> f64| {
            let (lo, hi) = all
                .iter()
                .map(f)
                .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
            (lo / 1.3, hi * 1.3)
        };
        // The objective's line is shown even when every point is on one side of it.
        let guide = plane.guide.as_ref().map(|(_, need)| *need);
        let mut user = range(|p| p.0);
        if let Some(need) = guide {
            user = (user.0.min(need / 1.3), user.1.max(need * 1.3));
        }
        Some(BatchAxes {
            x0,
            x1,
            y0,
            y1,
            user,
            per_pe: range(|p| p.1),
            guide,
        })
    }

    /// CSS px of a (per user, per PE) point.
    pub fn pos(&self, (u, p): (f64, f64)) -> (f64, f64) {
        (
            log_pos(u, self.user.0, self.user.1, self.x0, self.x1),
            log_pos(p, self.per_pe.0, self.per_pe.1, self.y1, self.y0),
        )
    }
}

/// The batch view's point nearest to (`x`, `y`) CSS px within `radius`: (series, point).
pub fn batch_hit(
    plane: &BatchPlane,
    width: f64,
    height: f64,
    x: f64,
    y: f64,
    radius: f64,
) -> Option<(usize, usize)> {
    let axes = BatchAxes::fit(plane, width, height)?;
    let mut best: Option<(f64, usize, usize)> = None;
    for (b, series) in plane.series.iter().enumerate() {
        for (k, &p) in series.points.iter().enumerate() {
            if !(p.0 > 0.0 && p.1 > 0.0 && p.0.is_finite() && p.1.is_finite()) {
                continue;
            }
            let (px, py) = axes.pos(p);
            let d = (px - x).hypot(py - y);
            if d <= radius && best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, b, k));
            }
        }
    }
    best.map(|(_, b, k)| (b, k))
}

/// The batch view on a `width` × `height` CSS px canvas.
pub fn batch_scene(plane: &BatchPlane, width: f64, height: f64, scale: f64) -> Scene {
    let s = scale;
    let mut scene = Scene::new(
        (width * s).round().max(1.0) as u32,
        (height * s).round().max(1.0) as u32,
    );
    scene.background = Some(palette::WHITE);
    let font = 10.5 * s;
    let Some(axes) = BatchAxes::fit(plane, width, height) else {
        scene.text(
            width / 2.0 * s,
            height / 2.0 * s,
            "no configuration fits at these batch sizes",
            font,
            palette::MUTED,
            (HAlign::Center, VAlign::Middle),
        );
        return scene;
    };
    draw_batch_axes(&mut scene, plane, &axes, height, s);
    let BatchAxes { x1, y0, y1, .. } = axes;
    let n = plane.series.len().max(2) as f64 - 1.0;
    let color_of = |b: usize| -> Rgba { efficiency_color(0.1 + 0.8 * b as f64 / n) };
    let at = |p: (f64, f64)| {
        let (x, y) = axes.pos(p);
        (x * s, y * s)
    };
    for (b, r) in plane.series.iter().enumerate() {
        let c = color_of(b);
        // Every frontier config of this batch size, faint; its 2-D frontier as a step line.
        for &p in r.points.iter().filter(|p| drawable(**p)) {
            let (x, y) = at(p);
            scene.circle(x, y, 2.2 * s, c.alpha(0.35), true);
        }
        let corners: Vec<(f64, f64)> = r.frontier.iter().map(|&k| at(r.points[k])).collect();
        scene.line(step_line(&corners), c.alpha(0.8), 1.5 * s);
        for &(x, y) in &corners {
            scene.circle(x, y, 3.4 * s, c, true);
        }
        // Legend, right of the plot.
        let ly = y0 + 4.0 + 15.0 * b as f64;
        if ly < y1 {
            scene.circle((x1 + 14.0) * s, ly * s, 4.0 * s, c, true);
            scene.text(
                (x1 + 22.0) * s,
                ly * s,
                format!("B = {}", r.batch),
                font,
                palette::INK,
                (HAlign::Left, VAlign::Middle),
            );
        }
    }
    // The envelope over every batch size, bold, each corner labelled with its batch
    // (a label that would overlap the last one drawn is left out).
    let corners: Vec<(f64, f64, u32)> = plane
        .envelope
        .iter()
        .filter_map(|&(b, k)| {
            let series = plane.series.get(b)?;
            let (x, y) = at(*series.points.get(k)?);
            Some((x, y, series.batch))
        })
        .collect();
    let xy: Vec<(f64, f64)> = corners.iter().map(|&(x, y, _)| (x, y)).collect();
    scene.line(step_line(&xy), palette::INK, 2.5 * s);
    let mut last_label: Option<(f64, f64)> = None;
    for &(x, y, batch) in &corners {
        scene.circle(x, y, 4.6 * s, palette::INK, false);
        let clear = last_label
            .is_none_or(|(lx, ly)| (x - lx).abs() > 38.0 * s || (y - ly).abs() > 13.0 * s);
        if clear {
            scene.text(
                x + 5.0 * s,
                y - 4.0 * s,
                format!("B={batch}"),
                font,
                palette::INK,
                (HAlign::Left, VAlign::Bottom),
            );
            last_label = Some((x, y));
        }
    }
    scene
}

/// The batch view's grid, axes, labels and the SLA guide line.
fn draw_batch_axes(scene: &mut Scene, plane: &BatchPlane, axes: &BatchAxes, height: f64, s: f64) {
    let font = 10.5 * s;
    let &BatchAxes { x0, x1, y0, y1, .. } = axes;
    let ((xl, xh), (yl, yh)) = (axes.user, axes.per_pe);
    for t in log_ticks(xl, xh, x1 - x0) {
        let x = log_pos(t, xl, xh, x0, x1);
        scene.line(vec![(x * s, y0 * s), (x * s, y1 * s)], palette::GRID, s);
        scene.text(
            x * s,
            (y1 + 5.0) * s,
            rate_label(t),
            font,
            palette::MUTED,
            (HAlign::Center, VAlign::Top),
        );
    }
    for t in log_ticks(yl, yh, y1 - y0) {
        let y = log_pos(t, yl, yh, y1, y0);
        scene.line(vec![(x0 * s, y * s), (x1 * s, y * s)], palette::GRID, s);
        scene.text(
            (x0 - 5.0) * s,
            y * s,
            rate_label(t),
            font,
            palette::MUTED,
            (HAlign::Right, VAlign::Middle),
        );
    }
    scene.outline(x0 * s, y0 * s, x1 * s, y1 * s, palette::MUTED, s);
    scene.text(
        (x0 + x1) / 2.0 * s,
        (height - 4.0) * s,
        "tokens/s per user (log)",
        font,
        palette::INK,
        (HAlign::Center, VAlign::Bottom),
    );
    scene.text(
        4.0 * s,
        2.0 * s,
        "tokens/s per PE",
        font,
        palette::INK,
        (HAlign::Left, VAlign::Top),
    );
    if let Some((label, need)) = &plane.guide {
        let x = log_pos(*need, xl, xh, x0, x1);
        scene.line(
            vec![(x * s, y0 * s), (x * s, y1 * s)],
            palette::VERMILLION,
            1.5 * s,
        );
        scene.text(
            (x + 4.0) * s,
            (y0 + 4.0) * s,
            label.clone(),
            font,
            palette::VERMILLION,
            (HAlign::Left, VAlign::Top),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{parse_short_key, resolve, ExploreSettings};
    use crate::explorer::{batch_sweep, sensitivity, Sla};
    use crate::scene::Shape;

    #[test]
    fn sensitivity_has_a_panel_per_knob_and_marks_what_does_not_fit() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let base = parse_short_key(
            "cp1.tp8.pp1.dp1.split.TP.pe.pe.kv",
            &req.sweep.base_topology(),
        )
        .unwrap();
        let rep = sensitivity(&req.model, &req.machine, &base, req.sweep.options).unwrap();
        let scene = sensitivity_scene(&rep, 600.0, 180.0, 2.0);
        for knob in ["CP", "TP", "PP", "DP", "EP"] {
            assert!(scene.texts().contains(&knob), "{knob}");
        }
        let dots = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Circle { fill: true, .. }))
            .count();
        let fits: usize = rep
            .rows
            .iter()
            .map(|r| {
                r.fits
                    .iter()
                    .zip(&r.latencies_ns)
                    .filter(|(f, l)| **f && l.is_finite())
                    .count()
            })
            .sum();
        assert_eq!(dots, fits);
        let rings = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Circle { fill: false, .. }))
            .count();
        assert_eq!(
            rings,
            rep.rows.len(),
            "the baseline is ringed in every panel"
        );
    }

    #[test]
    fn the_batch_view_draws_each_batch_and_the_tpot_line() {
        let mut req = resolve(&ExploreSettings::default()).unwrap();
        req.sweep.sla = Some(Sla {
            tpot_max_ms: Some(50.0),
            ttft_max_ms: None,
            prompt_len: None,
        });
        let rep = batch_sweep(&req.model, &req.machine, &req.sweep, &[1, 8, 64]).unwrap();
        let plane = BatchPlane::from_report(&rep);
        assert_eq!(plane.series.len(), 3);
        assert_eq!(plane.series[1].points.len(), rep.batches[1].pareto.len());
        let scene = batch_scene(&plane, 700.0, 320.0, 1.0);
        for b in ["B = 1", "B = 8", "B = 64"] {
            assert!(scene.texts().contains(&b), "{b}");
        }
        req.sweep.mode = Mode::Prefill;
        req.sweep.s_kv = 4096;
        req.sweep.sla = Some(Sla {
            tpot_max_ms: None,
            ttft_max_ms: Some(400.0),
            prompt_len: None,
        });
        let prefill = BatchPlane::from_report(
            &batch_sweep(&req.model, &req.machine, &req.sweep, &[1, 4]).unwrap(),
        );
        assert_eq!(
            prefill.guide,
            Some(("TTFT ≤ 400 ms".to_string(), 4096.0 * 1000.0 / 400.0))
        );
        assert!(
            scene.texts().iter().any(|t| t.starts_with("TPOT ≤ 50")),
            "{:?}",
            scene.texts()
        );
        assert_eq!(rate_label(12_345.0), "12.345k");
        let axes = BatchAxes::fit(&plane, 700.0, 320.0).unwrap();
        let target = plane.series[2].points[0];
        let (x, y) = axes.pos(target);
        let (b, k) = batch_hit(&plane, 700.0, 320.0, x + 1.0, y, 6.0).unwrap();
        assert_eq!(plane.series[b].points[k], target);
        assert_eq!(plane.series[2].keys.len(), plane.series[2].points.len());
        assert_eq!(rate_label(450.0), "450");
    }

    /// Whether `q` beats `p` in the plane (as good on both axes, better on one).
    fn beats(q: (f64, f64), p: (f64, f64)) -> bool {
        q.0 >= p.0 && q.1 >= p.1 && (q.0 > p.0 || q.1 > p.1)
    }

    #[test]
    fn a_2d_frontier_keeps_exactly_the_unbeaten_points_in_order() {
        let pts = [
            (1.0, 5.0),
            (2.0, 4.0),
            (2.0, 3.0), // beaten by (2, 4)
            (3.0, 4.0), // beats (2, 4)
            (4.0, 1.0),
            (4.0, 1.0), // equal: both kept
            (0.5, 5.0), // beaten by (1, 5)
            (f64::NAN, 9.0),
            (-1.0, 9.0),
        ];
        assert_eq!(frontier_2d(&pts), vec![0, 3, 4, 5]);
        assert_eq!(frontier_2d(&[]), Vec::<usize>::new());
        assert_eq!(
            step_line(&[(0.0, 0.0), (10.0, 5.0), (20.0, 9.0)]),
            vec![
                (0.0, 0.0),
                (0.0, 5.0),
                (10.0, 5.0),
                (10.0, 9.0),
                (20.0, 9.0)
            ]
        );
        // Against the definition on scattered points.
        let cloud: Vec<(f64, f64)> = (0..200u32)
            .map(|i| (f64::from((i * 37) % 101), f64::from((i * 53) % 89)))
            .collect();
        let kept = frontier_2d(&cloud);
        for (i, &p) in cloud.iter().enumerate() {
            let unbeaten = !cloud.iter().any(|&q| beats(q, p));
            assert_eq!(kept.contains(&i), unbeaten, "{p:?}");
        }
        assert!(kept.windows(2).all(|w| cloud[w[0]].0 <= cloud[w[1]].0));
    }

    #[test]
    fn the_envelope_is_the_frontier_of_every_batch_together() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let rep = batch_sweep(&req.model, &req.machine, &req.sweep, &[1, 4, 16, 64, 256]).unwrap();
        let plane = BatchPlane::from_report(&rep);
        let all: Vec<(usize, usize)> = plane
            .series
            .iter()
            .enumerate()
            .flat_map(|(b, s)| (0..s.points.len()).map(move |k| (b, k)))
            .collect();
        let point = |(b, k): (usize, usize)| plane.series[b].points[k];
        assert!(!plane.envelope.is_empty());
        for &(b, k) in &all {
            let unbeaten = !all.iter().any(|&q| beats(point(q), point((b, k))));
            assert_eq!(plane.envelope.contains(&(b, k)), unbeaten);
            let own = !plane.series[b]
                .points
                .iter()
                .any(|&q| beats(q, point((b, k))));
            assert_eq!(plane.series[b].frontier.contains(&k), own);
        }
        // More than one batch size is on the envelope, each corner labelled.
        let batches: std::collections::BTreeSet<u32> = plane
            .envelope
            .iter()
            .map(|&(b, _)| plane.series[b].batch)
            .collect();
        assert!(batches.len() > 1, "{batches:?}");
        let scene = batch_scene(&plane, 900.0, 320.0, 1.0);
        let first = plane.series[plane.envelope[0].0].batch;
        assert!(scene.texts().contains(&format!("B={first}").as_str()));
        let text = plane.envelope_text();
        assert_eq!(text.split(' ').count(), plane.envelope.len());
        assert!(text.starts_with(&format!("{first}:cp")), "{text}");
    }
}

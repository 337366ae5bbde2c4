//! The explorer's latency-versus-PEs scatter as a [`Scene`]: x = PEs used on a log₂ axis,
//! y = latency on a log axis, every feasible configuration a point coloured by
//! efficiency, the frontier larger, outlined and joined by a step line, infeasible
//! configurations (optionally) as faded grey crosses. Points that land on the same
//! pixel are drawn once, so 28,800 configurations cost a few thousand shapes.

use serde::{Deserialize, Serialize};

use super::charts::log_ticks;
use super::explore::{
    category_color, efficiency_color, knobs_text, latency_text, why_not, ColorBy, Points, FEASIBLE,
    FRONTIER, WITHIN_SLA,
};
use super::format::format_duration;
use super::scene::{palette, HAlign, Rgba, Scene, VAlign};
use crate::explorer::SweepRequest;

/// CSS px around the plot.
pub const MARGIN_LEFT: f64 = 64.0;
pub const MARGIN_RIGHT: f64 = 84.0;
pub const MARGIN_TOP: f64 = 24.0;
pub const MARGIN_BOTTOM: f64 = 40.0;

/// The visible ranges: PEs (log₂) and latency in ns (log₁₀).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScatterRange {
    pub pes_min: f64,
    pub pes_max: f64,
    pub latency_min_ns: f64,
    pub latency_max_ns: f64,
}

impl ScatterRange {
    /// Everything worth showing: the feasible points (or all, with `infeasible`), PEs
    /// out to the next power of two, latency padded by 10 % on the log scale.
    pub fn fit(points: &Points, infeasible: bool) -> Option<ScatterRange> {
        ScatterRange::fit_with(points, infeasible, &[])
    }

    /// [`fit`](Self::fit) widened to show every overlay's points too.
    pub fn fit_with(
        points: &Points,
        infeasible: bool,
        overlays: &[Overlay],
    ) -> Option<ScatterRange> {
        let mut pes = (f64::MAX, f64::MIN);
        let mut lat = (f64::MAX, f64::MIN);
        let shown = (0..points.len())
            .filter(|&i| infeasible || points.flags[i] & FEASIBLE != 0)
            .map(|i| (f64::from(points.pes[i]), points.latency_ns[i]));
        let over = overlays.iter().flat_map(|o| o.points.iter().copied());
        for (p, l) in shown.chain(over) {
            if !(l.is_finite() && l > 0.0) {
                continue;
            }
            let p = p.max(1.0);
            pes = (pes.0.min(p), pes.1.max(p));
            lat = (lat.0.min(l), lat.1.max(l));
        }
        if pes.0 > pes.1 {
            return None;
        }
        let pad = ((lat.1 / lat.0).log10() * 0.08).max(0.05);
        Some(ScatterRange {
            pes_min: 2f64.powf(pes.0.log2().floor()),
            pes_max: 2f64
                .powf(pes.1.log2().ceil())
                .max(2.0 * 2f64.powf(pes.0.log2().floor())),
            latency_min_ns: lat.0 / 10f64.powf(pad),
            latency_max_ns: lat.1 * 10f64.powf(pad),
        })
    }
}

/// Where the plot is on a canvas of `width` × `height` CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScatterMap {
    pub width: f64,
    pub height: f64,
    pub range: ScatterRange,
}

impl ScatterMap {
    pub fn x0(&self) -> f64 {
        MARGIN_LEFT
    }
    pub fn x1(&self) -> f64 {
        (self.width - MARGIN_RIGHT).max(MARGIN_LEFT + 1.0)
    }
    pub fn y0(&self) -> f64 {
        MARGIN_TOP
    }
    pub fn y1(&self) -> f64 {
        (self.height - MARGIN_BOTTOM).max(MARGIN_TOP + 1.0)
    }
    pub fn x(&self, pes: f64) -> f64 {
        let (a, b) = (self.range.pes_min.log2(), self.range.pes_max.log2());
        self.x0() + (pes.max(1e-9).log2() - a) / (b - a).max(1e-9) * (self.x1() - self.x0())
    }
    pub fn y(&self, latency_ns: f64) -> f64 {
        let (a, b) = (
            self.range.latency_min_ns.log10(),
            self.range.latency_max_ns.log10(),
        );
        self.y1() - (latency_ns.max(1e-9).log10() - a) / (b - a).max(1e-9) * (self.y1() - self.y0())
    }
    /// [`Self::x`] and [`Self::y`] for many points: from the points' own logarithms
    /// ([`Points::lg_pes`], [`Points::lg_latency`]), with this map's logarithms taken once.
    pub fn projection(&self) -> Projection {
        let (ax, bx) = (self.range.pes_min.log2(), self.range.pes_max.log2());
        let (ay, by) = (
            self.range.latency_min_ns.log10(),
            self.range.latency_max_ns.log10(),
        );
        let kx = (self.x1() - self.x0()) / (bx - ax).max(1e-9);
        let ky = (self.y1() - self.y0()) / (by - ay).max(1e-9);
        Projection {
            x_at_0: self.x0() - ax * kx,
            kx,
            y_at_0: self.y1() + ay * ky,
            ky,
        }
    }
    /// The inverse of [`Self::x`].
    pub fn pes_at(&self, x: f64) -> f64 {
        let (a, b) = (self.range.pes_min.log2(), self.range.pes_max.log2());
        2f64.powf(a + (x - self.x0()) / (self.x1() - self.x0()) * (b - a))
    }
    /// The inverse of [`Self::y`].
    pub fn latency_at(&self, y: f64) -> f64 {
        let (a, b) = (
            self.range.latency_min_ns.log10(),
            self.range.latency_max_ns.log10(),
        );
        10f64.powf(a + (self.y1() - y) / (self.y1() - self.y0()) * (b - a))
    }
    pub fn in_plot(&self, x: f64, y: f64) -> bool {
        (self.x0()..=self.x1()).contains(&x) && (self.y0()..=self.y1()).contains(&y)
    }

    /// The range a dragged band (CSS px, corners in any order) zooms to; `None` for a
    /// band under [`MIN_ZOOM_BAND_PX`] either way (a click that wobbled).
    pub fn zoom_to_band(&self, band: Band) -> Option<ScatterRange> {
        (band.x1 - band.x0 > MIN_ZOOM_BAND_PX && band.y1 - band.y0 > MIN_ZOOM_BAND_PX).then(|| {
            ScatterRange {
                pes_min: self.pes_at(band.x0),
                pes_max: self.pes_at(band.x1),
                latency_min_ns: self.latency_at(band.y1),
                latency_max_ns: self.latency_at(band.y0),
            }
        })
    }
}

/// A mouse press must move this far (CSS px, either axis) before it draws a zoom band.
pub const DRAG_THRESHOLD_PX: f64 = 4.0;
/// A band smaller than this (CSS px, either side) zooms nowhere.
pub const MIN_ZOOM_BAND_PX: f64 = 8.0;
/// How far (CSS px) from a point the pointer still hovers it.
pub const HOVER_RADIUS_PX: f64 = 8.0;
/// The tooltip opens to the left of the pointer when closer than this to the right edge.
pub const TOOLTIP_FLIP_PX: f64 = 320.0;

/// A dragged rectangle in CSS px, `x0 <= x1`, `y0 <= y1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Band {
    /// The band from a press at `from` to the pointer at `to`, once it has moved past
    /// [`DRAG_THRESHOLD_PX`].
    pub fn dragged(from: (f64, f64), to: (f64, f64)) -> Option<Band> {
        let ((x0, y0), (x, y)) = (from, to);
        ((x - x0).abs() > DRAG_THRESHOLD_PX || (y - y0).abs() > DRAG_THRESHOLD_PX).then(|| Band {
            x0: x0.min(x),
            y0: y0.min(y),
            x1: x0.max(x),
            y1: y0.max(y),
        })
    }
}

/// The hovered configuration in one line: knobs, latency, PEs, efficiency and, when it
/// does not fit, why.
pub fn hover_text(points: &Points, req: &SweepRequest, i: usize) -> Option<String> {
    let t = points.topology(i, req)?;
    let fits = why_not(*points.flags.get(i)?)
        .map(|w| format!(" · infeasible: {w} (select it for the numbers)"))
        .unwrap_or_default();
    Some(format!(
        "{} — {}, {} PEs, eff {:.3}{fits}",
        knobs_text(&t),
        latency_text(points.latency_ns[i]),
        points.pes[i],
        points.efficiency[i]
    ))
}

/// The largest efficiency of a configuration that fits (the colour ramp's top), 0 when
/// none does.
pub fn feasible_efficiency_max(points: &Points) -> f64 {
    points
        .efficiency
        .iter()
        .zip(&points.flags)
        .filter(|(_, f)| *f & FEASIBLE != 0)
        .map(|(e, _)| f64::from(*e))
        .fold(0.0, f64::max)
}

/// A [`ScatterMap`]'s axes as two linear maps of logarithms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    x_at_0: f64,
    kx: f64,
    y_at_0: f64,
    ky: f64,
}

impl Projection {
    /// CSS px of point `i`.
    pub fn xy(&self, points: &Points, i: usize) -> (f64, f64) {
        (
            self.x_at_0 + f64::from(points.lg_pes[i]) * self.kx,
            self.y_at_0 - f64::from(points.lg_latency[i]) * self.ky,
        )
    }
}

/// What to draw.
#[derive(Debug, Clone)]
pub struct ScatterSpec<'a> {
    pub map: ScatterMap,
    /// Device pixels per CSS px.
    pub scale: f64,
    pub points: &'a Points,
    pub infeasible: bool,
    pub selected: Option<usize>,
    pub hovered: Option<usize>,
    /// Pinned configurations (drawn with a ring and their number).
    pub pinned: &'a [usize],
    /// The efficiency that maps to the top of the colour ramp.
    pub efficiency_max: f64,
    /// Colour by efficiency or by one knob.
    pub color_by: ColorBy,
    /// Scenarios' frontiers drawn over the sweep (the sweep's points fade behind them).
    pub overlays: &'a [Overlay],
}

/// How a frontier is marked on the scatter (each scenario its own shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
}

impl Marker {
    /// The same shape as text, for the legend.
    pub fn glyph(self) -> &'static str {
        match self {
            Marker::Circle => "●",
            Marker::Square => "■",
            Marker::Triangle => "▲",
            Marker::Diamond => "◆",
        }
    }
}

/// A scenario's frontier on the scatter.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    /// For the legend in the plot's corner.
    pub name: String,
    pub color: Rgba,
    pub marker: Marker,
    /// (PEs used, latency ns) of each frontier config.
    pub points: Vec<(f64, f64)>,
}

/// Marker `m` of radius `r` device px at (`x`, `y`).
fn marker(scene: &mut Scene, m: Marker, x: f64, y: f64, r: f64, color: Rgba) {
    match m {
        Marker::Circle => scene.circle(x, y, r, color, true),
        Marker::Square => {
            let h = r * 0.85;
            scene.rect(x - h, y - h, x + h, y + h, color);
        }
        Marker::Triangle => scene.polygon(
            vec![(x, y - r * 1.1), (x + r, y + r * 0.7), (x - r, y + r * 0.7)],
            color,
        ),
        Marker::Diamond => scene.polygon(
            vec![(x, y - r * 1.15), (x + r, y), (x, y + r * 1.15), (x - r, y)],
            color,
        ),
    }
}

/// A frontier as a step line through CSS px positions (ascending PEs; a point is only
/// beaten by fewer PEs and less latency), clamped to the plot, in device px.
fn step_line(mut xy: Vec<(f64, f64)>, m: &ScatterMap, s: f64) -> Vec<(f64, f64)> {
    xy.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut steps: Vec<(f64, f64)> = Vec::new();
    for (x, y) in xy {
        let (x, y) = (x.clamp(m.x0(), m.x1()), y.clamp(m.y0(), m.y1()));
        if let Some(&(_, py)) = steps.last() {
            steps.push((x * s, py));
        }
        steps.push((x * s, y * s));
    }
    steps
}

/// Every overlay's step line and markers (white-edged, so they read over the squares).
fn draw_overlays(scene: &mut Scene, spec: &ScatterSpec<'_>) {
    let (m, s) = (spec.map, spec.scale);
    for o in spec.overlays {
        let xy: Vec<(f64, f64)> = o
            .points
            .iter()
            .filter(|(_, l)| l.is_finite() && *l > 0.0)
            .map(|&(p, l)| (m.x(p.max(1.0)), m.y(l)))
            .collect();
        scene.line(step_line(xy.clone(), &m, s), o.color, 2.0 * s);
        for (x, y) in xy.into_iter().filter(|&(x, y)| m.in_plot(x, y)) {
            marker(scene, o.marker, x * s, y * s, 6.0 * s, palette::WHITE);
            marker(scene, o.marker, x * s, y * s, 4.5 * s, o.color);
        }
    }
    // The legend, in the plot's top right corner (so an exported PNG says which is which).
    if spec.overlays.is_empty() {
        return;
    }
    let longest = spec
        .overlays
        .iter()
        .map(|o| o.name.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let (w, row) = (28.0 + 6.2 * longest, 17.0);
    let (lx1, ly0) = (m.x1() - 6.0, m.y0() + 6.0);
    let lx0 = (lx1 - w).max(m.x0());
    let ly1 = ly0 + 6.0 + row * spec.overlays.len() as f64;
    scene.rect(
        lx0 * s,
        ly0 * s,
        lx1 * s,
        ly1 * s,
        palette::WHITE.alpha(0.9),
    );
    scene.outline(lx0 * s, ly0 * s, lx1 * s, ly1 * s, palette::GRID, s);
    for (k, o) in spec.overlays.iter().enumerate() {
        let y = ly0 + 3.0 + row * (k as f64 + 0.5);
        marker(scene, o.marker, (lx0 + 11.0) * s, y * s, 4.5 * s, o.color);
        scene.text(
            (lx0 + 21.0) * s,
            y * s,
            o.name.clone(),
            11.0 * s,
            palette::INK,
            (HAlign::Left, VAlign::Middle),
        );
    }
}

fn shown(points: &Points, i: usize, infeasible: bool) -> bool {
    let l = points.latency_ns[i];
    l.is_finite() && l > 0.0 && (infeasible || points.flags[i] & FEASIBLE != 0)
}

/// `1024` → `1k`, `262144` → `256k`: PE counts that fit under a tick.
fn pes_label(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}k", n >> 10)
    } else {
        n.to_string()
    }
}

/// The scatter, in device pixels.
pub fn scatter_scene(spec: &ScatterSpec<'_>) -> Scene {
    let (s, m) = (spec.scale, spec.map);
    let mut scene = Scene::new(
        (m.width * s).round().max(1.0) as u32,
        (m.height * s).round().max(1.0) as u32,
    );
    scene.background = Some(palette::WHITE);
    draw_axes(&mut scene, spec);
    let xy = positions(spec);
    draw_points(&mut scene, spec, &xy);
    draw_frontier(&mut scene, spec, &xy);
    draw_overlays(&mut scene, spec);
    draw_marks(&mut scene, spec, &xy);
    draw_legend(&mut scene, spec);
    scene
}

/// A point's colour step: one of 48 efficiency steps, or its category of the knob.
fn color_step(spec: &ScatterSpec<'_>, i: usize) -> u32 {
    let points = spec.points;
    match spec.color_by {
        ColorBy::Efficiency => {
            let emax = spec.efficiency_max.max(1e-9);
            ((f64::from(points.efficiency[i]) / emax).clamp(0.0, 1.0) * 47.0).round() as u32
        }
        ColorBy::Knob(k) => u32::from(points.knobs[i][k.index()]),
    }
}

/// The colour of a [`color_step`].
fn step_color(spec: &ScatterSpec<'_>, q: u32) -> Rgba {
    match spec.color_by {
        ColorBy::Efficiency => efficiency_color(f64::from(q) / 47.0),
        ColorBy::Knob(_) => category_color(q as usize),
    }
}

/// Grid, axes and their labels.
fn draw_axes(scene: &mut Scene, spec: &ScatterSpec<'_>) {
    let s = spec.scale;
    let m = spec.map;
    let (x0, x1, y0, y1) = (m.x0(), m.x1(), m.y0(), m.y1());
    let font = 11.0 * s;
    // Grid and axes.
    let mut pes = m.range.pes_min.max(1.0);
    let doublings = (m.range.pes_max / pes).log2().max(1.0);
    // Label every k-th power of two so labels keep 44 px apart.
    let every = ((44.0 * doublings / (x1 - x0)).ceil() as u32).max(1);
    let mut k = 0u32;
    while pes <= m.range.pes_max * 1.0001 {
        let x = m.x(pes);
        scene.line(vec![(x * s, y0 * s), (x * s, y1 * s)], palette::GRID, s);
        if k.is_multiple_of(every) {
            scene.text(
                x * s,
                (y1 + 6.0) * s,
                pes_label(pes.round() as u64),
                font,
                palette::MUTED,
                (HAlign::Center, VAlign::Top),
            );
        }
        pes *= 2.0;
        k += 1;
    }
    for t in log_ticks(m.range.latency_min_ns, m.range.latency_max_ns, y1 - y0) {
        let y = m.y(t);
        scene.line(vec![(x0 * s, y * s), (x1 * s, y * s)], palette::GRID, s);
        scene.text(
            (x0 - 6.0) * s,
            y * s,
            format_duration(t.round() as i64),
            font,
            palette::MUTED,
            (HAlign::Right, VAlign::Middle),
        );
    }
    scene.outline(x0 * s, y0 * s, x1 * s, y1 * s, palette::MUTED, s);
    scene.text(
        (x0 + x1) / 2.0 * s,
        (m.height - 6.0) * s,
        "PEs used (log₂)",
        font,
        palette::INK,
        (HAlign::Center, VAlign::Bottom),
    );
    scene.text(
        4.0 * s,
        2.0 * s,
        "latency (log)",
        font,
        palette::INK,
        (HAlign::Left, VAlign::Top),
    );
}

/// Every point's position once (CSS px); points not shown or outside the plot are NaN.
fn positions(spec: &ScatterSpec<'_>) -> Vec<(f64, f64)> {
    let m = spec.map;
    let points = spec.points;
    let at = m.projection();
    // Positions once; points outside the plot are left out (NaN).
    (0..points.len())
        .map(|i| {
            let (x, y) = at.xy(points, i);
            if shown(points, i, spec.infeasible) && m.in_plot(x, y) {
                (x, y)
            } else {
                (f64::NAN, f64::NAN)
            }
        })
        .collect()
}

/// The configurations: infeasible ones as faded crosses, feasible ones as squares, one
/// per 2 px bucket.
fn draw_points(scene: &mut Scene, spec: &ScatterSpec<'_>, xy: &[(f64, f64)]) {
    let s = spec.scale;
    let m = spec.map;
    let points = spec.points;
    let visible = |i: usize| !xy[i].0.is_nan();
    // Buckets of 2 × 2 CSS px (squares are 4.4 px wide, so one per bucket loses nothing
    // visible): a flat grid, not a hash map — this runs for every config on every paint.
    let cols = (m.width / 2.0).ceil() as usize + 2;
    let rows = (m.height / 2.0).ceil() as usize + 2;
    let cell = |i: usize| {
        let (x, y) = xy[i];
        (y / 2.0).round() as usize * cols + (x / 2.0).round() as usize
    };
    // Infeasible: faded grey crosses, one per bucket.
    if spec.infeasible {
        let mut seen = vec![false; cols * rows];
        let grey = palette::DOMINATED.alpha(0.45);
        for i in (0..points.len()).filter(|&i| points.flags[i] & FEASIBLE == 0 && visible(i)) {
            let c = cell(i);
            if seen.get(c).copied().unwrap_or(true) {
                continue;
            }
            seen[c] = true;
            let (x, y) = (xy[i].0 * s, xy[i].1 * s);
            let r = 2.5 * s;
            scene.line(vec![(x - r, y - r), (x + r, y + r)], grey, s);
            scene.line(vec![(x - r, y + r), (x + r, y - r)], grey, s);
        }
    }
    // Feasible: one square per bucket, the most efficient configuration's colour.
    let mut best = vec![u32::MAX; cols * rows];
    for i in (0..points.len()).filter(|&i| points.flags[i] & FEASIBLE != 0 && visible(i)) {
        let Some(slot) = best.get_mut(cell(i)) else {
            continue;
        };
        if *slot == u32::MAX || points.efficiency[*slot as usize] < points.efficiency[i] {
            *slot = i as u32;
        }
    }
    let best: Vec<usize> = best
        .into_iter()
        .filter(|&i| i != u32::MAX)
        .map(|i| i as usize)
        .collect();
    // Drawn colour by colour: the painter batches equal colours.
    let step = |i: usize| color_step(spec, i);
    let color_of = |q: u32| step_color(spec, q);
    let mut cells: Vec<(u32, bool, usize)> = best
        .iter()
        .map(|&i| (step(i), points.flags[i] & WITHIN_SLA != 0, i))
        .collect();
    cells.sort_unstable();
    for (q, within, i) in cells {
        let mut c = color_of(q);
        if !within {
            c = c.alpha(0.25);
        }
        if !spec.overlays.is_empty() {
            c = c.alpha(0.35);
        }
        let r = 2.2 * s;
        let (x, y) = (xy[i].0 * s, xy[i].1 * s);
        scene.rect(x - r, y - r, x + r, y + r, c);
    }
}

/// The frontier: its step line and its points.
fn draw_frontier(scene: &mut Scene, spec: &ScatterSpec<'_>, xy: &[(f64, f64)]) {
    let s = spec.scale;
    let m = spec.map;
    let points = spec.points;
    let at = m.projection();
    let visible = |i: usize| !xy[i].0.is_nan();
    // The frontier: a step line (a config is beaten only by fewer PEs AND less latency).
    let mut frontier: Vec<usize> = (0..points.len())
        .filter(|&i| points.flags[i] & FRONTIER != 0 && shown(points, i, true))
        .collect();
    frontier.sort_by(|&a, &b| {
        points.pes[a]
            .cmp(&points.pes[b])
            .then(points.latency_ns[b].total_cmp(&points.latency_ns[a]))
    });
    let xy_frontier: Vec<(f64, f64)> = frontier.iter().map(|&i| at.xy(points, i)).collect();
    scene.line(step_line(xy_frontier, &m, s), palette::INK, 1.5 * s);
    let mut drawn = std::collections::HashSet::new();
    for &i in frontier.iter().filter(|&&i| visible(i)) {
        let (x, y) = at.xy(points, i);
        if !drawn.insert((x.round() as i32, y.round() as i32)) {
            continue;
        }
        let c = step_color(spec, color_step(spec, i));
        scene.circle(x * s, y * s, 5.0 * s, palette::INK, true);
        scene.circle(x * s, y * s, 3.6 * s, c, true);
    }
}

/// Pinned configurations (numbered), then the hovered and the selected one.
fn draw_marks(scene: &mut Scene, spec: &ScatterSpec<'_>, xy: &[(f64, f64)]) {
    let s = spec.scale;
    let m = spec.map;
    let font = 11.0 * s;
    let points = spec.points;
    let at = m.projection();
    let visible = |i: usize| !xy[i].0.is_nan();
    for (n, &i) in spec.pinned.iter().enumerate() {
        if i < points.len() && visible(i) {
            let (x, y) = at.xy(points, i);
            scene.circle(x * s, y * s, 8.0 * s, palette::VERMILLION, false);
            scene.text(
                (x + 9.0) * s,
                (y - 9.0) * s,
                format!("{}", n + 1),
                font,
                palette::VERMILLION,
                (HAlign::Left, VAlign::Bottom),
            );
        }
    }
    for (i, color, r) in [
        (spec.hovered, palette::MUTED, 7.0),
        (spec.selected, palette::INK, 9.0),
    ] {
        if let Some(i) = i.filter(|&i| i < points.len() && visible(i)) {
            let (x, y) = at.xy(points, i);
            scene.circle(x * s, y * s, r * s, color, false);
            scene.circle(x * s, y * s, (r + 1.5) * s, palette::WHITE, false);
        }
    }
}

/// The legend, right of the plot: the efficiency ramp, or the knob's values.
fn draw_legend(scene: &mut Scene, spec: &ScatterSpec<'_>) {
    let s = spec.scale;
    let m = spec.map;
    let x1 = m.x1();
    let y0 = m.y0();
    let y1 = m.y1();
    let font = 11.0 * s;
    // The legend, right of the plot: the efficiency ramp, or the knob's values.
    let emax = spec.efficiency_max.max(1e-9);
    let (bx0, bx1) = ((x1 + 16.0) * s, (x1 + 26.0) * s);
    match spec.color_by {
        ColorBy::Efficiency => {
            let steps_n = 32;
            for k in 0..steps_n {
                let t0 = k as f64 / steps_n as f64;
                let ya = y1 - (y1 - y0) * t0;
                let yb = y1 - (y1 - y0) * (k + 1) as f64 / steps_n as f64;
                scene.rect(
                    bx0,
                    yb * s,
                    bx1,
                    ya * s,
                    efficiency_color(t0 + 0.5 / steps_n as f64),
                );
            }
            for (t, label) in [(0.0, "0".to_string()), (1.0, format!("{emax:.2}"))] {
                scene.text(
                    bx1 + 4.0 * s,
                    (y1 - (y1 - y0) * t) * s,
                    label,
                    font,
                    palette::MUTED,
                    (HAlign::Left, VAlign::Middle),
                );
            }
        }
        ColorBy::Knob(_) => {
            for (k, label) in spec.color_by.labels().into_iter().enumerate() {
                let y = y0 + 8.0 + 16.0 * k as f64;
                scene.rect(bx0, (y - 5.0) * s, bx1, (y + 5.0) * s, category_color(k));
                scene.text(
                    bx1 + 4.0 * s,
                    y * s,
                    label,
                    font,
                    palette::INK,
                    (HAlign::Left, VAlign::Middle),
                );
            }
        }
    }
    scene.text(
        bx0,
        2.0 * s,
        spec.color_by.name(),
        font,
        palette::MUTED,
        (HAlign::Left, VAlign::Top),
    );
}

/// The configuration drawn nearest to (`x`, `y`) CSS px, within `radius`; frontier
/// points win ties (they are drawn on top).
pub fn nearest_point(
    points: &Points,
    map: &ScatterMap,
    infeasible: bool,
    x: f64,
    y: f64,
    radius: f64,
) -> Option<usize> {
    let mut best: Option<(f64, bool, usize)> = None;
    let at = map.projection();
    for i in 0..points.len() {
        if !shown(points, i, infeasible) {
            continue;
        }
        let (px, py) = at.xy(points, i);
        let d = (px - x).hypot(py - y);
        if d > radius {
            continue;
        }
        let frontier = points.flags[i] & FRONTIER != 0;
        let better = match best {
            None => true,
            Some((bd, bf, _)) => (frontier && !bf) || (frontier == bf && d < bd - 1e-9),
        };
        if better {
            best = Some((d, frontier, i));
        }
    }
    best.map(|(_, _, i)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{resolve, ExploreSettings};
    use crate::explorer::sweep;
    use crate::scatter_keys::*;
    use crate::scene::Shape;

    fn points() -> Points {
        let req = resolve(&ExploreSettings::default()).unwrap();
        Points::from_sweep(&sweep(&req.model, &req.machine, &req.sweep).unwrap())
    }

    #[test]
    fn the_label_says_what_the_scatter_shows() {
        let p = points();
        let req = resolve(&ExploreSettings::default()).unwrap();
        let fit = p.flags.iter().filter(|f| *f & FEASIBLE != 0).count();
        let n = p.flags.iter().filter(|f| *f & FRONTIER != 0).count();
        let a = frontier_step(&p, None, FrontierStep::First).unwrap();
        let label = scatter_label(&p, &req.sweep, None);
        assert!(
            label.starts_with(&format!(
                "Latency against PEs used for {} configurations, {fit} of which fit; the \
                 frontier's {n} run from {} at {} PEs to ",
                p.len(),
                latency_text(p.latency_ns[a]),
                p.pes[a]
            )),
            "{label}"
        );
        assert!(label.ends_with("Escape resets the zoom."), "{label}");
        let selected = scatter_label(&p, &req.sweep, Some(a));
        assert!(selected.contains(&format!(
            "; selected: {}",
            hover_text(&p, &req.sweep, a).unwrap()
        )));
        assert_eq!(
            scatter_label(&Points::default(), &req.sweep, None),
            "Latency against PEs used for 0 configurations, 0 of which fit. Arrows walk the \
             frontier, Enter selects, plus and minus zoom, Escape resets the zoom."
        );
    }

    #[test]
    fn keys_walk_the_frontier_in_pes_order_and_zoom_around_the_cursor() {
        let p = points();
        let first = frontier_step(&p, None, FrontierStep::Next).unwrap();
        let mut walked = vec![first];
        while let Some(next) = frontier_step(&p, walked.last().copied(), FrontierStep::Next) {
            if Some(&next) == walked.last() {
                break;
            }
            walked.push(next);
        }
        let frontier: Vec<usize> = (0..p.len())
            .filter(|&i| p.flags[i] & FRONTIER != 0)
            .collect();
        assert_eq!(walked.len(), frontier.len(), "every frontier config once");
        for pair in walked.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(
                (p.pes[a], p.latency_ns[a]) <= (p.pes[b], p.latency_ns[b]),
                "in PEs order, then latency"
            );
        }
        let last = *walked.last().unwrap();
        assert_eq!(frontier_step(&p, None, FrontierStep::Previous), Some(last));
        assert_eq!(
            frontier_step(&p, Some(first), FrontierStep::Last),
            Some(last)
        );
        assert_eq!(
            frontier_step(&p, Some(last), FrontierStep::First),
            Some(first)
        );
        assert_eq!(
            frontier_step(&p, Some(first), FrontierStep::Previous),
            Some(first)
        );
        assert_eq!(
            frontier_step(&p, Some(walked[1]), FrontierStep::Previous),
            Some(first)
        );
        let off = (0..p.len()).find(|&i| p.flags[i] & FRONTIER == 0).unwrap();
        assert_eq!(
            frontier_step(&p, Some(off), FrontierStep::Next),
            Some(first)
        );
        assert_eq!(
            frontier_step(&Points::default(), None, FrontierStep::Next),
            None
        );

        assert_eq!(
            ScatterKey::from_key("ArrowRight", false),
            Some(ScatterKey::Walk(FrontierStep::Next))
        );
        assert_eq!(
            ScatterKey::from_key("ArrowDown", false),
            Some(ScatterKey::Walk(FrontierStep::Previous))
        );
        assert_eq!(
            ScatterKey::from_key("End", false),
            Some(ScatterKey::Walk(FrontierStep::Last))
        );
        assert_eq!(
            ScatterKey::from_key("Enter", false),
            Some(ScatterKey::Choose)
        );
        assert_eq!(
            ScatterKey::from_key("+", false),
            Some(ScatterKey::Zoom(SCATTER_KEY_ZOOM))
        );
        assert_eq!(
            ScatterKey::from_key("-", false),
            Some(ScatterKey::Zoom(1.0 / SCATTER_KEY_ZOOM))
        );
        assert_eq!(
            ScatterKey::from_key("Escape", false),
            Some(ScatterKey::Reset)
        );
        assert_eq!(ScatterKey::from_key("+", true), None);
        assert_eq!(ScatterKey::from_key("q", false), None);

        // Zooming keeps the anchor where it was on the canvas and narrows both axes.
        let range = ScatterRange::fit(&p, false).unwrap();
        let (pes, lat) = (f64::from(p.pes[first]), p.latency_ns[first]);
        let before = ScatterMap {
            width: 800.0,
            height: 440.0,
            range,
        };
        let after = ScatterMap {
            range: range.zoomed(SCATTER_KEY_ZOOM, pes, lat),
            ..before
        };
        assert!((before.x(pes) - after.x(pes)).abs() < 1e-6);
        assert!((before.y(lat) - after.y(lat)).abs() < 1e-6);
        let span = |r: ScatterRange| (r.pes_max / r.pes_min).log2();
        assert!((span(after.range) - SCATTER_KEY_ZOOM * span(range)).abs() < 1e-9);
        assert!(after.range.contains(pes, lat));
        let back = after.range.zoomed(1.0 / SCATTER_KEY_ZOOM, pes, lat);
        assert!((back.pes_min / range.pes_min - 1.0).abs() < 1e-9);
        assert!((back.latency_max_ns / range.latency_max_ns - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_scene_draws_axes_points_and_the_frontier_compactly() {
        let p = points();
        let range = ScatterRange::fit(&p, false).unwrap();
        let map = ScatterMap {
            width: 800.0,
            height: 480.0,
            range,
        };
        let scene = scatter_scene(&ScatterSpec {
            map,
            scale: 2.0,
            points: &p,
            infeasible: true,
            selected: Some(0),
            hovered: None,
            pinned: &[],
            efficiency_max: 1.0,
            color_by: ColorBy::Efficiency,
            overlays: &[],
        });
        assert_eq!((scene.width, scene.height), (1600, 960));
        assert!(scene.texts().contains(&"PEs used (log₂)"));
        let rects = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Rect { fill: true, .. }))
            .count();
        assert!(rects > 50, "{rects} points");
        assert!(
            scene.shapes.len() < p.len() / 2,
            "{} shapes for {} configs",
            scene.shapes.len(),
            p.len()
        );
        let frontier_circles = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Circle { fill: true, .. }))
            .count();
        assert!(frontier_circles >= 2);
    }

    #[test]
    fn scenario_frontiers_are_drawn_in_their_styles_within_the_range() {
        use crate::scenario_view::{overlays, style};
        use shardscope_session::scenarios::{parse_scenario, run_scenarios};
        let base = ExploreSettings::default();
        let list: Vec<_> = ["", "machine=tile-wafer", "model=llama3.1-8b"]
            .iter()
            .map(|t| parse_scenario(t, &base).unwrap())
            .collect();
        let rep = run_scenarios(&list).unwrap();
        let over = overlays(&rep, &[true, false, true]);
        assert_eq!(over.len(), 2);
        assert_eq!((over[0].color, over[1].color), (style(0).0, style(2).0));
        assert_eq!(over[1].points.len(), rep.scenarios[2].report.pareto.len());
        let p = points();
        let range = ScatterRange::fit_with(&p, false, &over).unwrap();
        let alone = ScatterRange::fit(&p, false).unwrap();
        // The 8B model is faster than anything of the 70B sweep: the range widens.
        assert!(range.latency_min_ns < alone.latency_min_ns);
        let map = ScatterMap {
            width: 800.0,
            height: 480.0,
            range,
        };
        let scene = scatter_scene(&ScatterSpec {
            map,
            scale: 1.0,
            points: &p,
            infeasible: false,
            selected: None,
            hovered: None,
            pinned: &[],
            efficiency_max: 1.0,
            color_by: ColorBy::Efficiency,
            overlays: &over,
        });
        let circles = scene
            .shapes
            .iter()
            .filter(
                |s| matches!(s, Shape::Circle { color, fill: true, .. } if *color == style(0).0),
            )
            .count();
        let triangles = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Polygon { color, points } if *color == style(2).0 && points.len() == 3))
            .count();
        // Every frontier config, and one more in the legend.
        assert_eq!(circles, rep.scenarios[0].report.pareto.len() + 1);
        assert_eq!(triangles, rep.scenarios[2].report.pareto.len() + 1);
        let lines = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Line { color, .. } if *color == style(2).0))
            .count();
        assert_eq!(lines, 1);
        let texts = scene.texts();
        assert!(texts.contains(&rep.scenarios[2].name.as_str()), "{texts:?}");
    }

    #[test]
    fn hit_testing_finds_the_point_under_the_cursor() {
        let p = points();
        let map = ScatterMap {
            width: 800.0,
            height: 480.0,
            range: ScatterRange::fit(&p, false).unwrap(),
        };
        let f = (0..p.len()).find(|&i| p.flags[i] & FRONTIER != 0).unwrap();
        let (x, y) = (map.x(f64::from(p.pes[f])), map.y(p.latency_ns[f]));
        let hit = nearest_point(&p, &map, false, x + 1.0, y - 1.0, 6.0).unwrap();
        assert_eq!(p.flags[hit] & FRONTIER, FRONTIER);
        assert_eq!((p.pes[hit], p.latency_ns[hit]), (p.pes[f], p.latency_ns[f]));
        assert_eq!(nearest_point(&p, &map, false, -50.0, -50.0, 6.0), None);
        assert!((map.pes_at(map.x(64.0)) - 64.0).abs() < 1e-6);
        assert!((map.latency_at(map.y(3.5e6)) / 3.5e6 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_projection_of_the_points_logarithms_is_the_map_within_a_thousandth_of_a_pixel() {
        let p = points();
        let map = ScatterMap {
            width: 1000.0,
            height: 440.0,
            range: ScatterRange::fit(&p, true).unwrap(),
        };
        let at = map.projection();
        let mut worst = 0.0f64;
        for i in (0..p.len()).filter(|&i| p.latency_ns[i] > 0.0) {
            let (x, y) = at.xy(&p, i);
            worst = worst
                .max((x - map.x(f64::from(p.pes[i]))).abs())
                .max((y - map.y(p.latency_ns[i])).abs());
        }
        assert!(worst < 1e-3, "{worst} px");
    }

    #[test]
    fn drags_become_bands_and_bands_zoom_into_the_map() {
        assert_eq!(Band::dragged((10.0, 10.0), (13.0, 12.0)), None, "a wobble");
        let band = Band::dragged((200.0, 300.0), (100.0, 150.0)).unwrap();
        assert_eq!(
            band,
            Band {
                x0: 100.0,
                y0: 150.0,
                x1: 200.0,
                y1: 300.0
            }
        );
        let p = points();
        let map = ScatterMap {
            width: 800.0,
            height: 480.0,
            range: ScatterRange::fit(&p, false).unwrap(),
        };
        let zoom = map.zoom_to_band(band).unwrap();
        assert!((zoom.pes_min - map.pes_at(100.0)).abs() < 1e-9);
        assert!((zoom.pes_max - map.pes_at(200.0)).abs() < 1e-9);
        // Screen y grows downwards: the band's bottom is the smaller latency.
        assert!(zoom.latency_min_ns < zoom.latency_max_ns);
        assert!((zoom.latency_min_ns - map.latency_at(300.0)).abs() < 1e-3);
        let thin = Band { x1: 105.0, ..band };
        assert_eq!(map.zoom_to_band(thin), None);
    }

    #[test]
    fn hover_text_names_the_config_and_why_it_does_not_fit() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let p = points();
        let fits = (0..p.len()).find(|&i| p.flags[i] & FEASIBLE != 0).unwrap();
        let text = hover_text(&p, &req.sweep, fits).unwrap();
        assert!(text.contains(&format!("{} PEs", p.pes[fits])), "{text}");
        assert!(!text.contains("infeasible"), "{text}");
        if let Some(no) = (0..p.len()).find(|&i| p.flags[i] & FEASIBLE == 0) {
            assert!(hover_text(&p, &req.sweep, no)
                .unwrap()
                .contains(" · infeasible: "));
        }
        assert_eq!(hover_text(&p, &req.sweep, p.len()), None);
        let top = feasible_efficiency_max(&p);
        assert!(top > 0.0 && top <= 1.0 + 1e-6, "{top}");
    }
}

//! The timeline and its overview strip as [`Scene`]s: lanes per rank with the
//! hidden-memory gap as a filled step curve, collective markers as ticks, attributed
//! intervals as bands in their classification's colour (and shape, so they differ in
//! greyscale too), a time axis relative to the trace start.
//!
//! Layout is in CSS pixels ([`TimelineLayout`], also used for hit testing); the scene is
//! in canvas pixels (CSS × devicePixelRatio), so it is crisp on HiDPI screens.

use crate::analysis::IntervalRow;
use crate::attribution::Classification;

use super::format::format_bytes;
use super::lod::WindowData;
use super::scene::{palette, HAlign, Rgba, Scene, VAlign};
use super::timeline::{time_ticks, LaneLayout, TimeWindow, XMap};

/// Left gutter (lane labels), right gutter (lane scale), axis band, in CSS px.
pub const GUTTER_LEFT: f64 = 64.0;
pub const GUTTER_RIGHT: f64 = 62.0;
pub const AXIS_TOP: f64 = 22.0;
pub const BOTTOM_PAD: f64 = 6.0;
/// Height the lanes share before they shrink to their minimum.
pub const LANES_AVAILABLE: f64 = 540.0;

/// Where things are on the timeline canvas, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimelineLayout {
    pub width: f64,
    pub height: f64,
    pub plot_x0: f64,
    pub plot_x1: f64,
    pub lanes: LaneLayout,
}

impl TimelineLayout {
    pub fn new(width_css: f64, lane_count: usize) -> TimelineLayout {
        let lanes = LaneLayout::fit(lane_count, AXIS_TOP, LANES_AVAILABLE);
        let width = width_css.max(GUTTER_LEFT + GUTTER_RIGHT + 50.0);
        TimelineLayout {
            width,
            height: (AXIS_TOP + lanes.height_px() + BOTTOM_PAD).max(AXIS_TOP + 60.0),
            plot_x0: GUTTER_LEFT,
            plot_x1: width - GUTTER_RIGHT,
            lanes,
        }
    }

    pub fn plot_width(&self) -> f64 {
        (self.plot_x1 - self.plot_x0).max(1.0)
    }

    pub fn xmap(&self, window: TimeWindow) -> XMap {
        XMap {
            window,
            x0_px: self.plot_x0,
            width_px: self.plot_width(),
        }
    }

    /// Whether a CSS-pixel x lies over the plotted time range.
    pub fn in_plot(&self, x: f64) -> bool {
        (self.plot_x0..=self.plot_x1).contains(&x)
    }
}

/// The colour of a classification.
pub fn class_color(class: Classification) -> Rgba {
    match class {
        Classification::CollectiveConfident => palette::BLUE,
        Classification::CollectiveLikely => palette::ORANGE,
        Classification::CollectiveSuspect => palette::REDDISH_PURPLE,
    }
}

fn class_index(class: Classification) -> usize {
    Classification::ALL
        .iter()
        .position(|c| *c == class)
        .unwrap_or(0)
}

/// What the timeline shows.
#[derive(Debug, Clone, Copy)]
pub struct TimelineSpec<'a> {
    pub layout: TimelineLayout,
    /// Canvas pixels per CSS pixel.
    pub scale: f64,
    pub window: TimeWindow,
    /// The trace start: axis labels are offsets from it.
    pub origin_ns: i64,
    /// The lanes, in order.
    pub ranks: &'a [i64],
    /// The latest data from the worker (may be for an older window while panning).
    pub frame: Option<&'a WindowData>,
    pub rows: &'a [IntervalRow],
    /// Shown classifications, in [`Classification::ALL`] order.
    pub shown: [bool; 3],
    pub selected: Option<usize>,
    pub hovered: Option<usize>,
    /// The pointer's x (CSS px) for the crosshair.
    pub hover_x: Option<f64>,
    /// A second run drawn under each of this run's lanes (beyond stormlog): the layout
    /// then has two lanes per rank, A above B ([`lanes_per_rank`]).
    pub compare: Option<CompareLanes<'a>>,
}

/// Run B of a comparison, as the timeline draws it.
#[derive(Debug, Clone, Copy)]
pub struct CompareLanes<'a> {
    pub frame: Option<&'a WindowData>,
    pub rows: &'a [IntervalRow],
    /// Added to run B's times to place them on run A's axis.
    pub shift_ns: i64,
}

/// Lanes per rank: 2 while a second run is compared (A's lane, then B's), else 1.
pub fn lanes_per_rank(comparing: bool) -> usize {
    if comparing {
        2
    } else {
        1
    }
}

/// The rank and the run (0: A, 1: B) of lane `lane` of `ranks`.
pub fn lane_rank(ranks: &[i64], lane: usize, per_rank: usize) -> Option<(i64, usize)> {
    let per_rank = per_rank.max(1);
    Some((*ranks.get(lane / per_rank)?, lane % per_rank))
}

/// One run's layer of the picture: its data, its lanes (`run` of every pair) and where
/// its times sit on the axis.
struct Layer<'a> {
    frame: Option<&'a WindowData>,
    rows: &'a [IntervalRow],
    shift_ns: i64,
    run: usize,
}

/// A band's painted x-range (CSS px), clamped to the plot; at least `min_width` wide.
fn band_x(
    map: &XMap,
    layout: &TimelineLayout,
    start_ns: i64,
    end_ns: i64,
    min_width: f64,
) -> Option<(f64, f64)> {
    let (mut x0, mut x1) = (map.x(start_ns), map.x(end_ns));
    if x1 < layout.plot_x0 || x0 > layout.plot_x1 {
        return None;
    }
    if x1 - x0 < min_width {
        let mid = (x0 + x1) / 2.0;
        x0 = mid - min_width / 2.0;
        x1 = mid + min_width / 2.0;
    }
    Some((x0.max(layout.plot_x0), x1.min(layout.plot_x1)))
}

/// The area under a lane's step curve, as polygons (one per run of columns with
/// data), with equal neighbours merged so flat stretches cost two points.
/// `x_of(c)` is the left edge of column `c` (CSS px), `y_of(v)` a value's height.
pub fn step_area(
    values: &[f32],
    x_of: &dyn Fn(usize) -> f64,
    y_of: &dyn Fn(f32) -> f64,
    base_y: f64,
) -> Vec<Vec<(f64, f64)>> {
    let mut polygons = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    let mut last_y: Option<f64> = None;
    for (c, &v) in values.iter().enumerate() {
        if v.is_nan() {
            if let Some(y) = last_y.take() {
                let x = x_of(c);
                current.push((x, y));
                current.push((x, base_y));
                polygons.push(std::mem::take(&mut current));
            }
            continue;
        }
        let (x, y) = (x_of(c), y_of(v));
        match last_y {
            None => {
                current.push((x, base_y));
                current.push((x, y));
                last_y = Some(y);
            }
            // A step: leave the old height at this column's edge.
            Some(prev) if (prev - y).abs() >= 0.25 => {
                current.push((x, prev));
                current.push((x, y));
                last_y = Some(y);
            }
            // Flat (within a quarter pixel): nothing to add.
            Some(_) => {}
        }
    }
    if let Some(y) = last_y {
        let x = x_of(values.len());
        current.push((x, y));
        current.push((x, base_y));
        polygons.push(current);
    }
    polygons
}

/// The main timeline, drawn layer by layer: lanes, axis, interval bands, each run's gap
/// curves and markers, then the selection, hover and crosshair on top.
pub fn timeline_scene(spec: &TimelineSpec<'_>) -> Scene {
    let p = Painting::new(spec);
    let mut scene = Scene::new(
        p.px(p.l.width).round() as u32,
        p.px(p.l.height).round() as u32,
    );
    draw_lanes(&mut scene, &p);
    let lanes_bottom = draw_axis(&mut scene, &p);
    draw_bands(&mut scene, &p);
    for layer in &p.layers {
        if let Some(frame) = layer.frame {
            draw_curves(&mut scene, &p, frame, layer.shift_ns, layer.run);
        }
    }
    draw_highlights(&mut scene, &p, lanes_bottom);
    scene
}

/// What every layer of the main timeline reads: the spec, its runs (A, and B when
/// compared), the canvas scale, the x map and the two font sizes.
struct Painting<'a, 'b> {
    spec: &'a TimelineSpec<'b>,
    l: TimelineLayout,
    s: f64,
    map: XMap,
    font: f64,
    small: f64,
    layers: Vec<Layer<'b>>,
    per_rank: usize,
}

impl<'a, 'b> Painting<'a, 'b> {
    fn new(spec: &'a TimelineSpec<'b>) -> Self {
        let l = spec.layout;
        let s = spec.scale.max(0.5);
        let mut layers = vec![Layer {
            frame: spec.frame,
            rows: spec.rows,
            shift_ns: 0,
            run: 0,
        }];
        if let Some(b) = spec.compare {
            layers.push(Layer {
                frame: b.frame,
                rows: b.rows,
                shift_ns: b.shift_ns,
                run: 1,
            });
        }
        Painting {
            spec,
            l,
            s,
            map: l.xmap(spec.window),
            font: 11.0 * s,
            small: 10.0 * s,
            per_rank: layers.len(),
            layers,
        }
    }

    fn px(&self, v: f64) -> f64 {
        v * self.s
    }

    /// The lane of `rank`'s run `run` (0 = A, 1 = B), if the rank is shown.
    fn lane_of(&self, rank: i64, run: usize) -> Option<usize> {
        self.spec
            .ranks
            .iter()
            .position(|&r| r == rank)
            .map(|i| i * self.per_rank + run)
    }
}

/// Lane backgrounds and labels (compared: a shade per rank's pair, "A"/"B" marks).
fn draw_lanes(scene: &mut Scene, p: &Painting<'_, '_>) {
    let (spec, l, s, font, small) = (p.spec, p.l, p.s, p.font, p.small);
    let px = |v: f64| v * s;
    let per_rank = p.per_rank;
    let stride = l.lanes.label_stride();
    for i in 0..spec.ranks.len() * per_rank {
        let Some((rank, run)) = lane_rank(spec.ranks, i, per_rank) else {
            continue;
        };
        let (top, bottom) = l.lanes.lane_y(i);
        if (i / per_rank) % 2 == 1 {
            scene.rect(
                px(0.0),
                px(top),
                px(l.width),
                px(bottom),
                palette::LANE_SHADE,
            );
        }
        if per_rank > 1 && run == 0 && i > 0 {
            scene.rect(
                px(0.0),
                px(top) - 0.5 * s,
                px(l.width),
                px(top) + 0.5 * s,
                palette::GRID,
            );
        }
        if i % stride == 0 {
            let label = match (per_rank, run) {
                (1, _) => format!("rank {rank}"),
                (_, 0) => format!("rank {rank} A"),
                _ => "B".to_string(),
            };
            scene.text(
                px(l.plot_x0 - 8.0),
                px((top + bottom) / 2.0),
                label,
                if l.lanes.lane_height_px < 16.0 {
                    small
                } else {
                    font
                },
                palette::INK,
                (HAlign::Right, VAlign::Middle),
            );
        }
    }
}

/// Grid lines and the time axis; returns the lanes' bottom (CSS px).
fn draw_axis(scene: &mut Scene, p: &Painting<'_, '_>) -> f64 {
    let (spec, l, s, map, small) = (p.spec, p.l, p.s, p.map, p.small);
    let px = |v: f64| v * s;
    let ticks = time_ticks(spec.window, spec.origin_ns, l.plot_width(), 96.0);
    let lanes_bottom = l.lanes.top_px + l.lanes.height_px();
    for t in &ticks {
        let x = map.x(t.ts_ns);
        scene.rect(
            px(x) - 0.5 * s,
            px(AXIS_TOP - 4.0),
            px(x) + 0.5 * s,
            px(lanes_bottom),
            palette::GRID,
        );
        scene.text(
            px(x),
            px(AXIS_TOP - 7.0),
            t.label.clone(),
            small,
            palette::MUTED,
            (HAlign::Center, VAlign::Bottom),
        );
    }
    scene.rect(
        px(l.plot_x0),
        px(AXIS_TOP - 1.0),
        px(l.plot_x1),
        px(AXIS_TOP),
        palette::GRID,
    );
    lanes_bottom
}

/// Interval bands under the curves, by kind (see [`merged_bands`]).
fn draw_bands(scene: &mut Scene, p: &Painting<'_, '_>) {
    let (spec, l, s, map) = (p.spec, p.l, p.s, p.map);
    let px = |v: f64| v * s;
    let lane_of = |rank: i64, run: usize| p.lane_of(rank, run);
    let layers = &p.layers;
    // Interval bands under the curves, drawn by kind so that consecutive shapes share
    // a colour (the painter then sets the canvas colour once per run, not per band:
    // thousands of bands alternating colours cost ~30 ms a picture).
    let bands = merged_bands(
        layers
            .iter()
            .flat_map(|layer| {
                layer
                    .rows
                    .iter()
                    .filter(|row| spec.shown[class_index(row.classification)])
                    .filter_map(|row| {
                        let lane = lane_of(row.rank, layer.run)?;
                        let (start, end) = (
                            row.interval_start_ns.saturating_add(layer.shift_ns),
                            row.interval_end_ns.saturating_add(layer.shift_ns),
                        );
                        let (x0, x1) = band_x(&map, &l, start, end, 2.0)?;
                        let (top, bottom) = l.lanes.lane_y(lane);
                        Some((row.classification, x0, x1, top + 1.0, bottom - 1.0))
                    })
            })
            .collect(),
    );
    // Room for every band's shapes and the curves up front: growing a vector of
    // thousands of shapes step by step costs a big picture milliseconds of copying.
    let lanes: usize = layers
        .iter()
        .map(|layer| layer.frame.map_or(0, |f| f.lanes.len()))
        .sum();
    scene.shapes.reserve(bands.len() * 3 + lanes * 8 + 256);
    let of = |class: Classification| bands.iter().filter(move |b| b.0 == class);
    let filled = [
        Classification::CollectiveConfident,
        Classification::CollectiveLikely,
    ];
    for class in filled {
        let color = class_color(class).alpha(0.30);
        for &(_, x0, x1, top, bottom) in of(class) {
            scene.rect(px(x0), px(top), px(x1), px(bottom), color);
        }
    }
    for &(_, x0, x1, top, _) in of(Classification::CollectiveConfident) {
        let color = class_color(Classification::CollectiveConfident);
        scene.rect(px(x0), px(top), px(x1), px(top) + 3.0 * s, color);
    }
    for &(_, x0, x1, top, _) in of(Classification::CollectiveLikely) {
        // Dashed top edge: likely differs from confident by shape as well.
        let color = class_color(Classification::CollectiveLikely);
        let mut x = x0;
        while x < x1 {
            let end = (x + 5.0).min(x1);
            scene.rect(px(x), px(top), px(end), px(top) + 3.0 * s, color);
            x += 8.0;
        }
    }
    for &(_, x0, x1, top, bottom) in of(Classification::CollectiveSuspect) {
        // Hatched: no fill, diagonal strokes.
        let color = class_color(Classification::CollectiveSuspect);
        scene.outline(px(x0), px(top), px(x1), px(bottom), color.alpha(0.9), s);
        let h = bottom - top;
        let mut k = x0 - h;
        while k < x1 {
            let (ax, ay) = (k.max(x0), bottom - (k.max(x0) - k));
            let (bx, by) = ((k + h).min(x1), top + ((k + h) - (k + h).min(x1)));
            scene.line(
                vec![(px(ax), px(ay)), (px(bx), px(by))],
                color.alpha(0.75),
                s,
            );
            k += 7.0;
        }
    }
}

/// One run's gap curves and marker ticks from a worker's columns.
fn draw_curves(
    scene: &mut Scene,
    p: &Painting<'_, '_>,
    frame: &WindowData,
    shift_ns: i64,
    run: usize,
) {
    let (l, s, map, small) = (p.l, p.s, p.map, p.small);
    let px = |v: f64| v * s;
    let lane_of = |rank: i64, run: usize| p.lane_of(rank, run);
    let columns = frame.columns.max(1) as usize;
    let span = (frame.end_ns - frame.start_ns).max(1) as f64;
    let frame_start = frame.start_ns.saturating_add(shift_ns) as f64;
    // Column c of the frame, placed in the current window (the frame may be older).
    let x_of = |c: usize| {
        let ts = frame_start + span * c as f64 / columns as f64;
        map.x(ts.round() as i64)
    };
    for lane in &frame.lanes {
        let Some(i) = lane_of(lane.rank, run) else {
            continue;
        };
        let (top, bottom) = l.lanes.lane_y(i);
        let floor = lane.gap_floor_bytes.min(0) as f64;
        let peak = (lane.gap_peak_bytes as f64).max(floor + 1.0);
        let usable = (bottom - top - 4.0).max(2.0);
        let base = bottom - 1.0 - (0.0 - floor) / (peak - floor) * usable;
        let y_of = |v: f32| bottom - 1.0 - (f64::from(v) - floor) / (peak - floor) * usable;
        let clip = |x: f64| x.clamp(l.plot_x0, l.plot_x1);
        for polygon in step_area(&lane.gap_max, &|c| clip(x_of(c)), &y_of, base) {
            let outline: Vec<(f64, f64)> = polygon[1..polygon.len().saturating_sub(1)]
                .iter()
                .map(|&(x, y)| (px(x), px(y)))
                .collect();
            scene.polygon(
                polygon.iter().map(|&(x, y)| (px(x), px(y))).collect(),
                palette::GAP.alpha(0.32),
            );
            scene.line(outline, palette::GAP, s);
        }
        // Markers: merged runs of columns, a tick of 45 % of the lane from its bottom.
        let tick_top = bottom - (bottom - top) * 0.45;
        let mut c = 0;
        while c < lane.markers.len() {
            if lane.markers[c] == 0 {
                c += 1;
                continue;
            }
            let start = c;
            while c < lane.markers.len() && lane.markers[c] > 0 {
                c += 1;
            }
            let (x0, x1) = (x_of(start), x_of(c));
            if x1 < l.plot_x0 || x0 > l.plot_x1 {
                continue;
            }
            let x1 = x1.max(x0 + 1.5);
            scene.rect(
                px(clip(x0)),
                px(tick_top),
                px(clip(x1)),
                px(bottom - 1.0),
                palette::BLACK,
            );
        }
        if l.lanes.lane_height_px >= 16.0 && lane.gap_peak_bytes > 0 {
            scene.text(
                px(l.plot_x1 + 6.0),
                px(top + 3.0),
                format_bytes(lane.gap_peak_bytes),
                small,
                palette::MUTED,
                (HAlign::Left, VAlign::Top),
            );
        }
    }
}

/// Selection and hover outlines, the crosshair, and the empty-filter message on top.
fn draw_highlights(scene: &mut Scene, p: &Painting<'_, '_>, lanes_bottom: f64) {
    let (spec, l, s, map, font) = (p.spec, p.l, p.s, p.map, p.font);
    let px = |v: f64| v * s;
    let lane_of = |rank: i64, run: usize| p.lane_of(rank, run);
    for (index, width, color) in [
        (spec.hovered, 1.0, palette::INK.alpha(0.7)),
        (spec.selected, 2.0, palette::BLACK),
    ] {
        let Some(row) = index.and_then(|i| spec.rows.get(i)) else {
            continue;
        };
        let Some(lane) = lane_of(row.rank, 0) else {
            continue;
        };
        if let Some((x0, x1)) = band_x(&map, &l, row.interval_start_ns, row.interval_end_ns, 4.0) {
            let (top, bottom) = l.lanes.lane_y(lane);
            scene.outline(
                px(x0),
                px(top + 0.5),
                px(x1),
                px(bottom - 0.5),
                color,
                width * s,
            );
        }
    }
    if let Some(x) = spec.hover_x.filter(|x| l.in_plot(*x)) {
        scene.rect(
            px(x) - 0.5 * s,
            px(AXIS_TOP),
            px(x) + 0.5 * s,
            px(lanes_bottom),
            palette::INK.alpha(0.45),
        );
    }
    if spec.ranks.is_empty() {
        scene.text(
            px(l.width / 2.0),
            px(AXIS_TOP + 30.0),
            "No rank matches the rank filter.",
            font,
            palette::MUTED,
            (HAlign::Center, VAlign::Middle),
        );
    }
}

/// A band to paint: classification, x0, x1, top, bottom (CSS px).
type Band = (Classification, f64, f64, f64, f64);

/// Bands of one kind in one lane that overlap or touch on screen become one: zoomed
/// out, thousands of intervals share a few hundred pixels, and each would otherwise
/// be its own rectangle (and a darker one where translucent fills overlap).
fn merged_bands(mut bands: Vec<Band>) -> Vec<Band> {
    bands.sort_by(|a, b| {
        (class_index(a.0), a.3, a.1)
            .partial_cmp(&(class_index(b.0), b.3, b.1))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut out: Vec<Band> = Vec::with_capacity(bands.len());
    for band in bands {
        match out.last_mut() {
            Some(last) if last.0 == band.0 && last.3 == band.3 && band.1 <= last.2 + 0.5 => {
                last.2 = last.2.max(band.2);
            }
            _ => out.push(band),
        }
    }
    out
}

/// Height of the overview strip, CSS px.
pub const OVERVIEW_HEIGHT: f64 = 46.0;

/// The overview strip: the whole trace's largest gap per column, interval ticks, and
/// the visible window. Same horizontal layout as the timeline.
pub fn overview_scene(
    layout: &TimelineLayout,
    scale: f64,
    bounds: TimeWindow,
    window: TimeWindow,
    gap_max: &[f32],
    rows: &[IntervalRow],
    shown: [bool; 3],
) -> Scene {
    let s = scale.max(0.5);
    let px = |v: f64| v * s;
    let h = OVERVIEW_HEIGHT;
    let mut scene = Scene::new(px(layout.width).round() as u32, px(h).round() as u32);
    let map = layout.xmap(bounds);
    scene.rect(
        px(layout.plot_x0),
        px(2.0),
        px(layout.plot_x1),
        px(h - 2.0),
        palette::LANE_SHADE,
    );
    let peak = gap_max
        .iter()
        .filter(|v| !v.is_nan())
        .fold(0.0f32, |a, &b| a.max(b))
        .max(1.0);
    let (top, bottom) = (6.0, h - 10.0);
    let n = gap_max.len().max(1);
    let x_of = |c: usize| layout.plot_x0 + layout.plot_width() * c as f64 / n as f64;
    let y_of = |v: f32| bottom - (f64::from(v.max(0.0)) / f64::from(peak)) * (bottom - top);
    for polygon in step_area(gap_max, &x_of, &y_of, bottom) {
        scene.polygon(
            polygon.iter().map(|&(x, y)| (px(x), px(y))).collect(),
            palette::GAP.alpha(0.55),
        );
    }
    for row in rows {
        if !shown[class_index(row.classification)] {
            continue;
        }
        let x0 = map.x(row.interval_start_ns);
        let x1 = map.x(row.interval_end_ns).max(x0 + 1.0);
        scene.rect(
            px(x0),
            px(h - 8.0),
            px(x1),
            px(h - 3.0),
            class_color(row.classification),
        );
    }
    // Dim what is outside the window, outline the window.
    let (wx0, wx1) = (
        map.x(window.start_ns).clamp(layout.plot_x0, layout.plot_x1),
        map.x(window.end_ns).clamp(layout.plot_x0, layout.plot_x1),
    );
    let dim = palette::WHITE.alpha(0.55);
    scene.rect(px(layout.plot_x0), px(2.0), px(wx0), px(h - 2.0), dim);
    scene.rect(px(wx1), px(2.0), px(layout.plot_x1), px(h - 2.0), dim);
    scene.outline(
        px(wx0),
        px(2.0),
        px(wx1.max(wx0 + 2.0)),
        px(h - 2.0),
        palette::INK,
        1.5 * s,
    );
    scene.text(
        px(layout.plot_x0 - 8.0),
        px(h / 2.0),
        "whole trace",
        9.5 * s,
        palette::MUTED,
        (HAlign::Right, VAlign::Middle),
    );
    scene
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lod::LaneWindow;
    use crate::scene::Shape;

    fn row(rank: i64, start: i64, end: i64, class: Classification) -> IntervalRow {
        IntervalRow::for_test(rank, start, end, class)
    }

    #[test]
    fn touching_bands_of_a_kind_in_a_lane_merge() {
        use Classification::{CollectiveConfident as C, CollectiveLikely as L};
        let merged = super::merged_bands(vec![
            (C, 10.0, 12.0, 0.0, 9.0),
            (L, 11.0, 14.0, 0.0, 9.0),   // another kind: kept apart
            (C, 30.0, 31.0, 0.0, 9.0),   // a gap: kept apart
            (C, 12.4, 15.0, 0.0, 9.0),   // touches the first (within half a pixel)
            (C, 11.0, 13.0, 20.0, 29.0), // another lane
            (C, 11.0, 11.5, 0.0, 9.0),   // inside the first
        ]);
        assert_eq!(
            merged,
            vec![
                (C, 10.0, 15.0, 0.0, 9.0),
                (C, 30.0, 31.0, 0.0, 9.0),
                (C, 11.0, 13.0, 20.0, 29.0),
                (L, 11.0, 14.0, 0.0, 9.0),
            ]
        );
    }

    #[test]
    fn flat_stretches_cost_two_points() {
        let values = [1.0f32, 1.0, 1.0, 5.0, 5.0, f32::NAN, 2.0];
        let polys = step_area(
            &values,
            &|c| c as f64 * 10.0,
            &|v| 100.0 - f64::from(v),
            100.0,
        );
        assert_eq!(polys.len(), 2);
        assert_eq!(
            polys[0],
            vec![
                (0.0, 100.0),
                (0.0, 99.0),
                (30.0, 99.0),
                (30.0, 95.0),
                (50.0, 95.0),
                (50.0, 100.0)
            ]
        );
        assert_eq!(
            polys[1],
            vec![(60.0, 100.0), (60.0, 98.0), (70.0, 98.0), (70.0, 100.0)]
        );
    }

    #[test]
    fn scene_has_lanes_axis_bands_curves_and_markers() {
        let layout = TimelineLayout::new(800.0, 2);
        let frame = WindowData {
            start_ns: 0,
            end_ns: 1_000_000_000,
            columns: 4,
            lanes: vec![LaneWindow {
                rank: 1,
                gap_min: vec![0.0, 10.0, 10.0, 0.0],
                gap_max: vec![0.0, 10.0, 10.0, 0.0],
                markers: vec![0, 2, 0, 0],
                gap_floor_bytes: 0,
                gap_peak_bytes: 10,
                window_samples: 4,
            }],
        };
        let rows = [
            row(
                0,
                100_000_000,
                300_000_000,
                Classification::CollectiveConfident,
            ),
            row(
                1,
                400_000_000,
                500_000_000,
                Classification::CollectiveSuspect,
            ),
        ];
        let spec = TimelineSpec {
            layout,
            scale: 2.0,
            window: TimeWindow::new(0, 1_000_000_000),
            origin_ns: 0,
            ranks: &[0, 1],
            frame: Some(&frame),
            rows: &rows,
            shown: [true; 3],
            selected: Some(1),
            hovered: None,
            hover_x: Some(300.0),
            compare: None,
        };
        let scene = timeline_scene(&spec);
        assert_eq!(scene.width, 1600);
        let texts = scene.texts();
        assert!(texts.contains(&"rank 0") && texts.contains(&"rank 1"));
        assert!(
            texts.contains(&"+0.0 s") && texts.contains(&"+0.4 s"),
            "{texts:?}"
        );
        assert!(
            texts.contains(&"10 B"),
            "the lane's scale at its right edge"
        );
        let polygons = scene
            .shapes
            .iter()
            .filter(|s| matches!(s, Shape::Polygon { .. }))
            .count();
        assert_eq!(polygons, 1, "one area for the one lane with data");
        // The confident band's x-range in canvas pixels: plot starts at 64 css px.
        let plot = layout.plot_width();
        let x0 = ((64.0 + plot * 0.1) * 2.0_f64).round() as i32;
        assert!(scene
            .shapes
            .iter()
            .any(|s| matches!(s, Shape::Rect { x0: a, fill: true, color, .. }
            if *a == x0 && *color == palette::BLUE.alpha(0.30))));
        // A hidden class draws nothing.
        let hidden = TimelineSpec {
            shown: [false, true, false],
            selected: None,
            ..spec
        };
        let confident = |sc: &Scene| {
            sc.shapes
                .iter()
                .filter(|s| {
                    matches!(s, Shape::Rect { color, .. }
            if color.r == palette::BLUE.r && color.g == palette::BLUE.g)
                })
                .count()
        };
        assert!(confident(&scene) > 0);
        assert_eq!(confident(&timeline_scene(&hidden)), 0);
    }

    /// Classes differ in form, not only in colour, so they read in greyscale too: confident
    /// a filled band under a solid edge, likely a filled band under a dashed edge, suspect
    /// an unfilled, hatched band.
    #[test]
    fn each_class_has_its_own_form() {
        let layout = TimelineLayout::new(800.0, 3);
        let rows = [
            row(
                0,
                100_000_000,
                400_000_000,
                Classification::CollectiveConfident,
            ),
            row(
                1,
                100_000_000,
                400_000_000,
                Classification::CollectiveLikely,
            ),
            row(
                2,
                100_000_000,
                400_000_000,
                Classification::CollectiveSuspect,
            ),
        ];
        let spec = TimelineSpec {
            layout,
            scale: 1.0,
            window: TimeWindow::new(0, 1_000_000_000),
            origin_ns: 0,
            ranks: &[0, 1, 2],
            frame: None,
            rows: &rows,
            shown: [true; 3],
            selected: None,
            hovered: None,
            hover_x: None,
            compare: None,
        };
        let scene = timeline_scene(&spec);
        let of = |class: Classification| {
            let c = class_color(class);
            let same = |color: &Rgba| (color.r, color.g, color.b) == (c.r, c.g, c.b);
            let (mut fills, mut edges, mut outlines, mut strokes) = (0, 0, 0, 0);
            for shape in &scene.shapes {
                match shape {
                    Shape::Rect {
                        fill: true, color, ..
                    } if same(color) && color.a < 0.5 => fills += 1,
                    Shape::Rect {
                        fill: true, color, ..
                    } if same(color) => edges += 1,
                    Shape::Rect {
                        fill: false, color, ..
                    } if same(color) => outlines += 1,
                    Shape::Line { color, .. } if same(color) => strokes += 1,
                    _ => {}
                }
            }
            (fills, edges, outlines, strokes)
        };
        assert_eq!(of(Classification::CollectiveConfident), (1, 1, 0, 0));
        let (fills, dashes, outlines, strokes) = of(Classification::CollectiveLikely);
        assert_eq!((fills, outlines, strokes), (1, 0, 0));
        assert!(dashes > 10, "a dashed edge: {dashes} dashes");
        let (fills, edges, outlines, hatches) = of(Classification::CollectiveSuspect);
        assert_eq!((fills, edges, outlines), (0, 0, 1));
        assert!(hatches > 10, "hatched: {hatches} strokes");
    }

    #[test]
    fn a_compared_run_gets_the_lane_under_each_rank_with_its_times_shifted() {
        let layout = TimelineLayout::new(800.0, 2 * lanes_per_rank(true));
        let a_rows = [row(
            0,
            100_000_000,
            200_000_000,
            Classification::CollectiveConfident,
        )];
        let b_rows = [row(
            1,
            50_000_000,
            150_000_000,
            Classification::CollectiveConfident,
        )];
        let b_frame = WindowData {
            start_ns: -250_000_000,
            end_ns: 750_000_000,
            columns: 2,
            lanes: vec![LaneWindow {
                rank: 0,
                gap_min: vec![1.0, 4.0],
                gap_max: vec![1.0, 4.0],
                markers: vec![0, 0],
                gap_floor_bytes: 0,
                gap_peak_bytes: 4,
                window_samples: 2,
            }],
        };
        let spec = TimelineSpec {
            layout,
            scale: 1.0,
            window: TimeWindow::new(0, 1_000_000_000),
            origin_ns: 0,
            ranks: &[0, 1],
            frame: None,
            rows: &a_rows,
            shown: [true; 3],
            selected: Some(0),
            hovered: None,
            hover_x: None,
            compare: Some(CompareLanes {
                frame: Some(&b_frame),
                rows: &b_rows,
                shift_ns: 250_000_000,
            }),
        };
        let scene = timeline_scene(&spec);
        let texts = scene.texts();
        assert!(
            ["rank 0 A", "B", "rank 1 A"]
                .iter()
                .all(|t| texts.contains(t)),
            "{texts:?}"
        );
        let fills: Vec<(i32, i32, i32)> = scene
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Rect {
                    x0,
                    y0,
                    y1,
                    fill: true,
                    color,
                    ..
                } if *color == palette::BLUE.alpha(0.30) => Some((*x0, *y0, *y1)),
                _ => None,
            })
            .collect();
        assert_eq!(fills.len(), 2, "{fills:?}");
        let plot = layout.plot_width();
        let x = |ns: f64| (64.0 + plot * ns / 1e9).round() as i32;
        // A's band in lane 0 (rank 0, A); B's in lane 3 (rank 1, B), 250 ms later.
        let (top0, _) = layout.lanes.lane_y(0);
        let (top3, _) = layout.lanes.lane_y(3);
        assert!(
            fills
                .iter()
                .any(|f| f.0 == x(1e8) && f.1 == (top0 + 1.0).round() as i32),
            "{fills:?}"
        );
        assert!(
            fills
                .iter()
                .any(|f| f.0 == x(3e8) && f.1 == (top3 + 1.0).round() as i32),
            "{fills:?}"
        );
        // B's curve in lane 1 (rank 0, B), starting at B's frame start shifted to 0.
        let (top1, bottom1) = layout.lanes.lane_y(1);
        let polygon = scene.shapes.iter().find_map(|s| match s {
            Shape::Polygon { points, .. } => Some(points.clone()),
            _ => None,
        });
        let points = polygon.unwrap_or_default();
        assert_eq!(points.first().map(|p| p.0), Some(64), "{points:?}");
        assert!(
            points
                .iter()
                .all(|p| f64::from(p.1) >= top1.floor() && f64::from(p.1) <= bottom1.ceil()),
            "{points:?}"
        );
        assert_eq!(lane_rank(&[0, 1], 3, 2), Some((1, 1)));
        assert_eq!(lane_rank(&[0, 1], 4, 2), None);
        assert_eq!(lane_rank(&[0, 1], 1, 1), Some((1, 0)));
    }
}

//! Painting a [`Scene`] on a canvas with plotters (plotters-canvas backend). The scene
//! is already in canvas pixels; this only sizes the backing store and issues one
//! plotters draw call per shape — except runs of filled rectangles (the scatter's
//! thousands of points, the timeline's columns), long paths and text, which go straight
//! to the 2D context: a plotters call per point costs ~10 µs, which would make a
//! 28,800-config scatter a long task, and plotters sets the font anew for every text.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use shardscope_view::scene::{HAlign, Rgba, Scene, Shape, VAlign};
use shardscope_view::theme::{Theme, ThemePainter};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::web_error::WebError;

const FONT: &str = "system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif";

fn color(c: Rgba) -> RGBAColor {
    RGBAColor(c.r, c.g, c.b, c.a)
}

/// A filled shape, or its outline `stroke` backing pixels wide.
fn style(c: Rgba, fill: bool, stroke: u32) -> ShapeStyle {
    if fill {
        color(c).filled()
    } else {
        color(c).stroke_width(stroke)
    }
}

/// Paint `scene` on `canvas` in `theme`, resizing its backing store to the scene's size.
pub fn paint(canvas: &HtmlCanvasElement, scene: &Scene, theme: Theme) -> Result<(), WebError> {
    let mut colors = ThemePainter::new(theme);
    clear(canvas, scene, &mut colors)?;
    paint_shapes(canvas, &scene.shapes, &mut colors, &mut || false).map(|_| ())
}

/// Size the backing store and fill the background; whether the size changed.
fn clear(
    canvas: &HtmlCanvasElement,
    scene: &Scene,
    colors: &mut ThemePainter,
) -> Result<bool, WebError> {
    let resized = canvas.width() != scene.width || canvas.height() != scene.height;
    if canvas.width() != scene.width {
        canvas.set_width(scene.width);
    }
    if canvas.height() != scene.height {
        canvas.set_height(scene.height);
    }
    if let Some(bg) = scene.background {
        let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or(
            WebError::Unsupported("this browser cannot draw on a canvas"),
        )?;
        backend
            .into_drawing_area()
            .fill(&color(colors.paint(bg)))
            .map_err(|e| WebError::Drawing(e.to_string()))?;
    }
    Ok(resized)
}

/// Draws the pictures' text once on a canvas that is never shown. A page's first text on
/// a canvas costs it 15–20 ms (the browser resolves the font), which would otherwise land
/// in the task that shows the first results of a load, with the rest of that picture.
pub fn warm_up_text() {
    let canvas = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<HtmlCanvasElement>(e).ok());
    let Some(canvas) = canvas else {
        return;
    };
    let mut scene = Scene::new(96, 48);
    for (i, size) in [10.0, 11.0, 12.0, 13.0].into_iter().enumerate() {
        scene.text(
            2.0,
            2.0 + 11.0 * i as f64,
            "rank 0 · 1.5 GiB",
            size,
            shardscope_view::scene::palette::INK,
            (HAlign::Left, VAlign::Top),
        );
    }
    if let Err(e) = paint(&canvas, &scene, Theme::Light) {
        web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&e.to_string()));
    }
}

/// Records on `canvas` how long its picture took since `started_ms` (`data-paint-ms`, for
/// people and the browser tests: an attribute, not text).
pub fn mark_paint_ms(canvas: &HtmlCanvasElement, started_ms: f64) {
    let _ = canvas.set_attribute(
        "data-paint-ms",
        &format!("{:.1}", super::now_ms() - started_ms),
    );
}

thread_local! {
    /// The last picture sliced onto each canvas (by `data-testid`), for exports painted in
    /// another theme than the page's.
    static PICTURES: std::cell::RefCell<Vec<(String, std::rc::Rc<Scene>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The last picture painted with [`paint_sliced`] on the canvas with this `data-testid`.
pub fn last_picture(testid: &str) -> Option<std::rc::Rc<Scene>> {
    PICTURES.with_borrow(|p| {
        p.iter()
            .find(|(id, _)| id == testid)
            .map(|(_, scene)| std::rc::Rc::clone(scene))
    })
}

/// Paint `scene` in `theme` a slice per animation frame, each slice at most `budget_ms`
/// long, so that no picture, however many shapes it has, blocks the page. A newer call
/// for the same `token` (incremented by the caller) abandons an unfinished one. `done`
/// runs after the last shape.
pub fn paint_sliced(
    canvas: HtmlCanvasElement,
    scene: std::rc::Rc<Scene>,
    theme: Theme,
    budget_ms: f64,
    token: std::rc::Rc<std::cell::Cell<u64>>,
    done: std::rc::Rc<dyn Fn()>,
) {
    if let Some(testid) = canvas.get_attribute("data-testid") {
        PICTURES.with_borrow_mut(|p| {
            p.retain(|(id, _)| *id != testid);
            p.push((testid, std::rc::Rc::clone(&scene)));
        });
    }
    let mut job = Slicing {
        mine: token.get(),
        canvas,
        scene,
        colors: ThemePainter::new(theme),
        budget_ms,
        token,
        done,
    };
    match clear(&job.canvas, &job.scene, &mut job.colors) {
        // A new backing store (a taller timeline: 8 MB for two runs' 128 lanes) is
        // allocated and laid out in this frame; the picture starts in the next.
        Ok(true) => leptos::prelude::request_animation_frame(move || job.slice(0)),
        Ok(false) => job.slice(0),
        Err(e) => web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&e.to_string())),
    }
}

/// A picture being painted a slice per frame.
struct Slicing {
    canvas: HtmlCanvasElement,
    scene: std::rc::Rc<Scene>,
    /// One memory of colours for every slice.
    colors: ThemePainter,
    budget_ms: f64,
    token: std::rc::Rc<std::cell::Cell<u64>>,
    /// The token's value when this picture started; another means a newer one did.
    mine: u64,
    done: std::rc::Rc<dyn Fn()>,
}

impl Slicing {
    /// Paint from shape `from` for one slice, the rest from the next frame.
    fn slice(mut self, from: usize) {
        if self.token.get() != self.mine {
            return;
        }
        let deadline = super::now_ms() + self.budget_ms;
        let mut late = || super::now_ms() > deadline;
        let shapes = &self.scene.shapes[from.min(self.scene.shapes.len())..];
        match paint_shapes(&self.canvas, shapes, &mut self.colors, &mut late) {
            Ok(n) if from + n < self.scene.shapes.len() => {
                leptos::prelude::request_animation_frame(move || self.slice(from + n));
            }
            Ok(_) => (self.done)(),
            Err(e) => web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&e.to_string())),
        }
    }
}

/// A long polyline or polygon as one `Path2D`, filled or stroked with one call (a
/// timeline's 32 gap curves have ~40,000 points). Built point by point: cheaper than
/// formatting path text for the browser to parse again. `None` for short ones, which
/// plotters draws as before.
fn path2d(points: &[(i32, i32)], close: bool) -> Option<web_sys::Path2d> {
    if points.len() < 16 {
        return None;
    }
    let path = web_sys::Path2d::new().ok()?;
    let mut points = points.iter();
    if let Some(&(x, y)) = points.next() {
        path.move_to(f64::from(x), f64::from(y));
    }
    for &(x, y) in points {
        path.line_to(f64::from(x), f64::from(y));
    }
    if close {
        path.close_path();
    }
    Some(path)
}

/// How much painting happens between two readings of the clock: 32 shapes (the first
/// shapes a page paints run unoptimised, at up to ~0.1 ms each), a path counting as many
/// shapes as it has [`POINTS_PER_WORK`]s of points — a 128-lane timeline's gap curves
/// are thousands of points each, and 32 of them between two readings overran a 12 ms
/// slice by 20 ms.
const CHECK_EVERY_WORK: usize = 32;
const POINTS_PER_WORK: usize = 64;

/// Paint `shapes` until `stop()` says so (read every [`CHECK_EVERY_WORK`]); how many
/// were painted.
fn paint_shapes(
    canvas: &HtmlCanvasElement,
    shapes: &[Shape],
    colors: &mut ThemePainter,
    stop: &mut dyn FnMut() -> bool,
) -> Result<usize, WebError> {
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or(
        WebError::Unsupported("this browser cannot draw on a canvas"),
    )?;
    let root = backend.into_drawing_area();
    let fail = |e: DrawingAreaErrorKind<_>| WebError::Drawing(e.to_string());
    let context = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| wasm_bindgen::JsCast::dyn_into::<CanvasRenderingContext2d>(c).ok());
    // Consecutive filled rectangles of one colour become one `Path2D`, filled at once
    // (thousands of `fillRect` calls cost ~20 ms a picture).
    let mut run = RectRun::default();
    let mut text = TextState::default();
    // Work since the clock was last read: a shape counts 1, a path its points.
    let mut work = 0usize;
    for (n, shape) in shapes.iter().enumerate() {
        if work >= CHECK_EVERY_WORK {
            work = 0;
            if stop() {
                run.flush(context.as_ref());
                root.present().map_err(fail)?;
                return Ok(n);
            }
        }
        work += match shape {
            Shape::Polygon { points, .. } | Shape::Line { points, .. } => {
                1 + points.len() / POINTS_PER_WORK
            }
            _ => 1,
        };
        if let Some(ctx) = &context {
            if paint_direct(ctx, shape, colors, &mut run, &mut text) {
                continue;
            }
        }
        run.flush(context.as_ref());
        match shape {
            Shape::Rect {
                x0,
                y0,
                x1,
                y1,
                color: c,
                fill,
                stroke,
            } => {
                root.draw(&Rectangle::new(
                    [(*x0, *y0), (*x1, *y1)],
                    style(colors.paint(*c), *fill, *stroke),
                ))
                .map_err(fail)?;
            }
            Shape::Polygon { points, color: c } => {
                root.draw(&Polygon::new(
                    points.clone(),
                    color(colors.paint(*c)).filled(),
                ))
                .map_err(fail)?;
            }
            Shape::Line {
                points,
                color: c,
                stroke,
            } => {
                root.draw(&PathElement::new(
                    points.clone(),
                    color(colors.paint(*c)).stroke_width(*stroke),
                ))
                .map_err(fail)?;
            }
            Shape::Circle {
                x,
                y,
                radius,
                color: c,
                fill,
                stroke,
            } => {
                root.draw(&Circle::new(
                    (*x, *y),
                    *radius,
                    style(colors.paint(*c), *fill, *stroke),
                ))
                .map_err(fail)?;
            }
            // Painted by `paint_direct`; without a 2D context nothing can be.
            Shape::Text { .. } => {}
        }
    }
    run.flush(context.as_ref());
    root.present().map_err(fail)?;
    Ok(shapes.len())
}

/// The shapes painted straight on the 2D context, not through plotters: filled
/// rectangles (collected into `run` while their colour repeats), long polygons and
/// polylines (one `Path2D` each) and text (the context's font and anchors set only
/// when they change: plotters sets them and the colour per text, and parsing the same font
/// string again for each of a 128-lane timeline's labels cost 15–20 ms a picture).
/// `false`: plotters paints this one (after the caller flushes `run`, to keep the order).
fn paint_direct(
    ctx: &CanvasRenderingContext2d,
    shape: &Shape,
    colors: &mut ThemePainter,
    run: &mut RectRun,
    text_state: &mut TextState,
) -> bool {
    match shape {
        Shape::Text {
            x,
            y,
            text,
            size,
            color,
            h,
            v,
            bold,
        } => {
            run.flush(Some(ctx));
            text_state.set(ctx, *size, *bold, colors.paint(*color), *h, *v);
            let _ = ctx.fill_text(text, f64::from(*x), f64::from(*y));
            true
        }
        Shape::Rect {
            x0,
            y0,
            x1,
            y1,
            color,
            fill: true,
            ..
        } => {
            let color = colors.paint(*color);
            if run.color != Some(color) {
                run.flush(Some(ctx));
                run.color = Some(color);
            }
            run.add(*x0, *y0, *x1, *y1);
            true
        }
        Shape::Polygon { points, color } => match path2d(points, true) {
            Some(path) => {
                run.flush(Some(ctx));
                ctx.set_fill_style_str(&colors.paint(*color).css());
                ctx.fill_with_path_2d(&path);
                true
            }
            None => false,
        },
        Shape::Line {
            points,
            color,
            stroke,
        } => match path2d(points, false) {
            Some(path) => {
                run.flush(Some(ctx));
                ctx.set_stroke_style_str(&colors.paint(*color).css());
                ctx.set_line_width(f64::from(*stroke));
                ctx.stroke_with_path(&path);
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// What the context was last told about text, so that each setting is made only when it
/// changes (the strings are plotters-canvas's: `"<style> <size>px <family>"`, anchors
/// `start`/`center`/`end` and `top`/`middle`/`bottom`).
#[derive(Default)]
struct TextState {
    font: Option<(u64, bool)>,
    anchor: Option<(HAlign, VAlign)>,
}

impl TextState {
    fn set(
        &mut self,
        ctx: &CanvasRenderingContext2d,
        size: f64,
        bold: bool,
        color: Rgba,
        h: HAlign,
        v: VAlign,
    ) {
        // The colour is the fill style, which rectangles set too: set every time.
        ctx.set_fill_style_str(&color.css());
        if self.font != Some((size.to_bits(), bold)) {
            let style = if bold { "bold" } else { "normal" };
            ctx.set_font(&format!("{style} {size}px {FONT}"));
            self.font = Some((size.to_bits(), bold));
        }
        if self.anchor != Some((h, v)) {
            ctx.set_text_align(match h {
                HAlign::Left => "start",
                HAlign::Center => "center",
                HAlign::Right => "end",
            });
            ctx.set_text_baseline(match v {
                VAlign::Top => "top",
                VAlign::Middle => "middle",
                VAlign::Bottom => "bottom",
            });
            self.anchor = Some((h, v));
        }
    }
}

/// Filled rectangles of one colour collected into one `Path2D` (a lone rectangle is
/// filled with `fillRect`).
#[derive(Default)]
struct RectRun {
    color: Option<Rgba>,
    path: Option<web_sys::Path2d>,
    count: usize,
    first: (i32, i32, i32, i32),
}

/// Adds a rectangle as a subpath: `rect` always winds the same way, so overlaps stay
/// filled (nonzero rule).
fn add_rect(path: &web_sys::Path2d, (x0, y0, x1, y1): (i32, i32, i32, i32)) {
    path.rect(
        f64::from(x0),
        f64::from(y0),
        f64::from(x1 - x0),
        f64::from(y1 - y0),
    );
}

impl RectRun {
    fn add(&mut self, x0: i32, y0: i32, x1: i32, y1: i32) {
        let rect = (x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1));
        match self.count {
            0 => self.first = rect,
            1 => {
                self.path = web_sys::Path2d::new().ok();
                if let Some(path) = &self.path {
                    add_rect(path, self.first);
                    add_rect(path, rect);
                }
            }
            _ => {
                if let Some(path) = &self.path {
                    add_rect(path, rect);
                }
            }
        }
        self.count += 1;
    }

    /// Fill what was collected.
    fn flush(&mut self, ctx: Option<&CanvasRenderingContext2d>) {
        if let (Some(ctx), Some(color), true) = (ctx, self.color, self.count > 0) {
            ctx.set_fill_style_str(&color.css());
            match &self.path {
                Some(path) if self.count > 1 => ctx.fill_with_path_2d(path),
                _ => {
                    let (x0, y0, x1, y1) = self.first;
                    ctx.fill_rect(
                        f64::from(x0),
                        f64::from(y0),
                        f64::from(x1 - x0),
                        f64::from(y1 - y0),
                    );
                }
            }
        }
        self.path = None;
        self.count = 0;
        self.color = None;
    }
}

//! Painting a [`Scene`] on a canvas with plotters (plotters-canvas backend). The scene
//! is already in canvas pixels; this only sizes the backing store and issues one
//! plotters draw call per shape.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use shardscope_core::view::scene::{HAlign, Rgba, Scene, Shape, VAlign};
use web_sys::HtmlCanvasElement;

const FONT: &str = "system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif";

fn color(c: Rgba) -> RGBAColor {
    RGBAColor(c.r, c.g, c.b, c.a)
}

/// Paint `scene` on `canvas`, resizing its backing store to the scene's size.
pub fn paint(canvas: &HtmlCanvasElement, scene: &Scene) -> Result<(), String> {
    if canvas.width() != scene.width {
        canvas.set_width(scene.width);
    }
    if canvas.height() != scene.height {
        canvas.set_height(scene.height);
    }
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("this browser cannot draw on a canvas")?;
    let root = backend.into_drawing_area();
    let fail = |e: DrawingAreaErrorKind<_>| format!("drawing failed: {e}");
    if let Some(bg) = scene.background {
        root.fill(&color(bg)).map_err(fail)?;
    }
    for shape in &scene.shapes {
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
                let style = if *fill {
                    color(*c).filled()
                } else {
                    color(*c).stroke_width(*stroke)
                };
                root.draw(&Rectangle::new([(*x0, *y0), (*x1, *y1)], style))
                    .map_err(fail)?;
            }
            Shape::Polygon { points, color: c } => {
                root.draw(&Polygon::new(points.clone(), color(*c).filled()))
                    .map_err(fail)?;
            }
            Shape::Line {
                points,
                color: c,
                stroke,
            } => {
                root.draw(&PathElement::new(
                    points.clone(),
                    color(*c).stroke_width(*stroke),
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
                let style = if *fill {
                    color(*c).filled()
                } else {
                    color(*c).stroke_width(*stroke)
                };
                root.draw(&Circle::new((*x, *y), *radius, style))
                    .map_err(fail)?;
            }
            Shape::Text {
                x,
                y,
                text,
                size,
                color: c,
                h,
                v,
                bold,
            } => {
                let pos = Pos::new(
                    match h {
                        HAlign::Left => HPos::Left,
                        HAlign::Center => HPos::Center,
                        HAlign::Right => HPos::Right,
                    },
                    match v {
                        VAlign::Top => VPos::Top,
                        VAlign::Middle => VPos::Center,
                        VAlign::Bottom => VPos::Bottom,
                    },
                );
                let font = FontDesc::new(
                    FontFamily::Name(FONT),
                    *size,
                    if *bold {
                        FontStyle::Bold
                    } else {
                        FontStyle::Normal
                    },
                );
                let rgba = color(*c);
                let style = font.color(&rgba).pos(pos);
                root.draw(&Text::new(text.as_str(), (*x, *y), style))
                    .map_err(fail)?;
            }
        }
    }
    root.present().map_err(fail)?;
    Ok(())
}

//! A chart as a list of plain shapes in canvas (backing-store) pixels. Chart builders
//! (e.g. [`super::timeline_scene`]) compute every coordinate, colour and label natively
//! and testably; the page only hands the shapes to plotters, one call per shape.

/// An sRGB colour with opacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub a: f64,
}

impl Rgba {
    /// `#RRGGBB` (anything unreadable is black).
    pub const fn hex(hex: u32) -> Rgba {
        Rgba {
            r: ((hex >> 16) & 0xff) as u8,
            g: ((hex >> 8) & 0xff) as u8,
            b: (hex & 0xff) as u8,
            a: 1.0,
        }
    }

    pub const fn alpha(self, a: f64) -> Rgba {
        Rgba { a, ..self }
    }

    /// `rgba(r,g,b,a)` for CSS.
    pub fn css(&self) -> String {
        format!("rgba({},{},{},{})", self.r, self.g, self.b, self.a)
    }
}

/// Okabe–Ito, distinguishable with the common colour-vision deficiencies.
pub mod palette {
    use super::Rgba;
    pub const ORANGE: Rgba = Rgba::hex(0xE69F00);
    pub const SKY_BLUE: Rgba = Rgba::hex(0x56B4E9);
    pub const BLUISH_GREEN: Rgba = Rgba::hex(0x009E73);
    pub const YELLOW: Rgba = Rgba::hex(0xF0E442);
    pub const BLUE: Rgba = Rgba::hex(0x0072B2);
    pub const VERMILLION: Rgba = Rgba::hex(0xD55E00);
    pub const REDDISH_PURPLE: Rgba = Rgba::hex(0xCC79A7);
    pub const BLACK: Rgba = Rgba::hex(0x000000);
    /// Chart furniture.
    pub const INK: Rgba = Rgba::hex(0x1d232a);
    pub const MUTED: Rgba = Rgba::hex(0x5b6670);
    pub const GRID: Rgba = Rgba::hex(0xdde2e7);
    pub const LANE_SHADE: Rgba = Rgba::hex(0xf3f5f7);
    pub const WHITE: Rgba = Rgba::hex(0xffffff);
    /// The hidden-memory gap: a neutral slate, apart from every classification colour.
    pub const GAP: Rgba = Rgba::hex(0x6b7a88);
    /// Configurations off the frontier or out of memory: a light grey.
    pub const DOMINATED: Rgba = Rgba::hex(0x8a939b);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HAlign {
    Left,
    Center,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VAlign {
    Top,
    Middle,
    Bottom,
}

/// One thing to paint.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A rectangle `[x0, x1) × [y0, y1)`, filled or outlined (`stroke` px wide).
    Rect {
        x0: i32,
        y0: i32,
        x1: i32,
        y1: i32,
        color: Rgba,
        fill: bool,
        stroke: u32,
    },
    /// A filled polygon.
    Polygon {
        points: Vec<(i32, i32)>,
        color: Rgba,
    },
    /// A polyline.
    Line {
        points: Vec<(i32, i32)>,
        color: Rgba,
        stroke: u32,
    },
    /// A circle (filled or outlined).
    Circle {
        x: i32,
        y: i32,
        radius: u32,
        color: Rgba,
        fill: bool,
        stroke: u32,
    },
    Text {
        x: i32,
        y: i32,
        text: String,
        /// In canvas pixels.
        size: f64,
        color: Rgba,
        h: HAlign,
        v: VAlign,
        bold: bool,
    },
}

/// Shapes in painting order, with the canvas size they were made for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    pub width: u32,
    pub height: u32,
    pub background: Option<Rgba>,
    pub shapes: Vec<Shape>,
}

impl Scene {
    pub fn new(width: u32, height: u32) -> Scene {
        Scene {
            width,
            height,
            background: Some(palette::WHITE),
            shapes: Vec::new(),
        }
    }

    pub fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, color: Rgba) {
        self.shapes.push(Shape::Rect {
            x0: x0.round() as i32,
            y0: y0.round() as i32,
            x1: x1.round() as i32,
            y1: y1.round() as i32,
            color,
            fill: true,
            stroke: 0,
        });
    }

    pub fn outline(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, color: Rgba, stroke: f64) {
        self.shapes.push(Shape::Rect {
            x0: x0.round() as i32,
            y0: y0.round() as i32,
            x1: x1.round() as i32,
            y1: y1.round() as i32,
            color,
            fill: false,
            stroke: stroke.round().max(1.0) as u32,
        });
    }

    pub fn line(&mut self, points: Vec<(f64, f64)>, color: Rgba, stroke: f64) {
        if points.len() < 2 {
            return;
        }
        self.shapes.push(Shape::Line {
            points: points
                .into_iter()
                .map(|(x, y)| (x.round() as i32, y.round() as i32))
                .collect(),
            color,
            stroke: stroke.round().max(1.0) as u32,
        });
    }

    /// A circle, filled or a 1.5-device-px ring.
    pub fn circle(&mut self, x: f64, y: f64, radius: f64, color: Rgba, fill: bool) {
        self.shapes.push(Shape::Circle {
            x: x.round() as i32,
            y: y.round() as i32,
            radius: radius.round().max(1.0) as u32,
            color,
            fill,
            stroke: if fill { 1 } else { 2 },
        });
    }

    pub fn polygon(&mut self, points: Vec<(f64, f64)>, color: Rgba) {
        if points.len() < 3 {
            return;
        }
        self.shapes.push(Shape::Polygon {
            points: points
                .into_iter()
                .map(|(x, y)| (x.round() as i32, y.round() as i32))
                .collect(),
            color,
        });
    }

    /// A text whose `anchor` (which of its sides or middles) sits at `(x, y)`.
    pub fn text(
        &mut self,
        x: f64,
        y: f64,
        text: impl Into<String>,
        size: f64,
        color: Rgba,
        (h, v): (HAlign, VAlign),
    ) {
        self.shapes.push(Shape::Text {
            x: x.round() as i32,
            y: y.round() as i32,
            text: text.into(),
            size,
            color,
            h,
            v,
            bold: false,
        });
    }

    /// Texts in the scene, in order (for tests).
    pub fn texts(&self) -> Vec<&str> {
        self.shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

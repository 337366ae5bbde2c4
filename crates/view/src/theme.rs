//! Light and dark: which theme the page shows (the user's choice, else the system's
//! `prefers-color-scheme`) and how a [`Scene`](super::scene::Scene)'s colours are painted
//! in it.
//!
//! Chart builders keep drawing in the light theme's colours; [`Theme::paint`] maps each
//! colour as it is painted: the chart furniture (ink, grid, lane shades, the background)
//! by a fixed table of dark counterparts, every other colour (Okabe–Ito, the efficiency
//! ramp) unchanged unless it would fade into the dark background, in which case it is
//! lightened (mixed with white, hue kept) to [`MIN_GRAPHIC_CONTRAST`] — WCAG's contrast
//! for graphical objects. The stylesheet's `--surface` in each theme is
//! [`Theme::surface`].

use super::scene::{palette, Rgba};

/// WCAG 2.x's minimum contrast for graphical objects and large text (1.4.11).
pub const MIN_GRAPHIC_CONTRAST: f64 = 3.0;
/// WCAG 2.x's minimum contrast for text (1.4.3, AA).
pub const MIN_TEXT_CONTRAST: f64 = 4.5;

/// Where the browser keeps the user's choice (`localStorage`).
pub const THEME_SETTING: &str = "shardscope.theme";
/// Where the browser keeps "export PNGs in the dark theme too".
pub const DARK_EXPORTS_SETTING: &str = "shardscope.dark-exports";

/// What the user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeChoice {
    /// Follow the system (`prefers-color-scheme`).
    #[default]
    System,
    Light,
    Dark,
}

impl ThemeChoice {
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark];

    /// The stored and `<select>` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ThemeChoice::System => "system",
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
        }
    }

    /// What a stored value means (anything else is the default).
    pub fn parse(text: &str) -> ThemeChoice {
        match text.trim() {
            "light" => ThemeChoice::Light,
            "dark" => ThemeChoice::Dark,
            _ => ThemeChoice::System,
        }
    }

    /// The option's words.
    pub fn label(self) -> &'static str {
        match self {
            ThemeChoice::System => "System",
            ThemeChoice::Light => "Light",
            ThemeChoice::Dark => "Dark",
        }
    }

    /// The theme shown, given whether the system prefers dark.
    pub fn resolve(self, system_prefers_dark: bool) -> Theme {
        match self {
            ThemeChoice::Light => Theme::Light,
            ThemeChoice::Dark => Theme::Dark,
            ThemeChoice::System if system_prefers_dark => Theme::Dark,
            ThemeChoice::System => Theme::Light,
        }
    }
}

/// The theme a picture is painted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Light,
    Dark,
}

/// The dark theme's counterparts of the chart furniture (light colour → dark colour).
const DARK_FURNITURE: [(Rgba, Rgba); 8] = [
    (palette::WHITE, DARK_SURFACE),
    (palette::INK, Rgba::hex(0xe3e7eb)),
    (palette::BLACK, Rgba::hex(0xf4f6f8)),
    (palette::MUTED, Rgba::hex(0xa6b0b9)),
    (palette::GRID, Rgba::hex(0x3a434c)),
    (palette::LANE_SHADE, Rgba::hex(0x232a31)),
    (palette::GAP, Rgba::hex(0x97a4b0)),
    (palette::DOMINATED, Rgba::hex(0x737d86)),
];

/// The dark theme's surface (the stylesheet's `--surface` there).
const DARK_SURFACE: Rgba = Rgba::hex(0x1b2127);

impl Theme {
    /// `data-theme` on the page's root element.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The background the charts sit on.
    pub fn surface(self) -> Rgba {
        match self {
            Theme::Light => palette::WHITE,
            Theme::Dark => DARK_SURFACE,
        }
    }

    /// `color` as painted in this theme (opacity kept).
    pub fn paint(self, color: Rgba) -> Rgba {
        if self == Theme::Light {
            return color;
        }
        let opaque = color.alpha(1.0);
        if let Some((_, dark)) = DARK_FURNITURE.iter().find(|(light, _)| *light == opaque) {
            return dark.alpha(color.a);
        }
        lift_to_contrast(opaque, self.surface(), MIN_GRAPHIC_CONTRAST).alpha(color.a)
    }
}

/// [`Theme::paint`] with a memory, for painting a picture: a scatter's thousands of points
/// share a few hundred colours, each worked out once.
#[derive(Debug, Default)]
pub struct ThemePainter {
    theme: Theme,
    memo: std::collections::HashMap<(u8, u8, u8), Rgba>,
}

impl ThemePainter {
    pub fn new(theme: Theme) -> ThemePainter {
        ThemePainter {
            theme,
            memo: std::collections::HashMap::new(),
        }
    }

    /// `color` as painted in the theme.
    pub fn paint(&mut self, color: Rgba) -> Rgba {
        if self.theme == Theme::Light {
            return color;
        }
        let theme = self.theme;
        self.memo
            .entry((color.r, color.g, color.b))
            .or_insert_with(|| theme.paint(color.alpha(1.0)))
            .alpha(color.a)
    }
}

/// An sRGB channel (0–255) in linear light (0–1).
fn linear_channel(v: u8) -> f64 {
    let s = f64::from(v) / 255.0;
    if s <= 0.04045 {
        s / 12.92
    } else {
        ((s + 0.055) / 1.055).powf(2.4)
    }
}

/// WCAG 2.x relative luminance of an sRGB colour (opacity ignored).
pub fn relative_luminance(c: Rgba) -> f64 {
    0.2126 * linear_channel(c.r) + 0.7152 * linear_channel(c.g) + 0.0722 * linear_channel(c.b)
}

/// WCAG 2.x contrast ratio of two colours (1 to 21).
pub fn contrast_ratio(a: Rgba, b: Rgba) -> f64 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// `color` mixed with white just enough to reach `min_ratio` against a dark `background`
/// (unchanged when it already does). The mix is found by bisection, so colours below the
/// bar all land on it and keep their order of lightness.
fn lift_to_contrast(color: Rgba, background: Rgba, min_ratio: f64) -> Rgba {
    if contrast_ratio(color, background) >= min_ratio {
        return color;
    }
    let mix = |f: f64| {
        let m = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * f).round() as u8;
        Rgba {
            r: m(color.r),
            g: m(color.g),
            b: m(color.b),
            a: 1.0,
        }
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..24 {
        let mid = (lo + hi) / 2.0;
        if contrast_ratio(mix(mid), background) >= min_ratio {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    mix(hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::Classification;
    use crate::explore::{category_color, efficiency_color};
    use crate::timeline_scene::class_color;

    const CLASSES: [Classification; 3] = [
        Classification::CollectiveConfident,
        Classification::CollectiveLikely,
        Classification::CollectiveSuspect,
    ];

    #[test]
    fn the_choice_resolves_against_the_system() {
        assert_eq!(ThemeChoice::System.resolve(true), Theme::Dark);
        assert_eq!(ThemeChoice::System.resolve(false), Theme::Light);
        assert_eq!(ThemeChoice::Light.resolve(true), Theme::Light);
        assert_eq!(ThemeChoice::Dark.resolve(false), Theme::Dark);
        for choice in ThemeChoice::ALL {
            assert_eq!(ThemeChoice::parse(choice.as_str()), choice);
        }
        assert_eq!(ThemeChoice::parse("purple"), ThemeChoice::System);
        assert_eq!(ThemeChoice::parse(""), ThemeChoice::System);
    }

    #[test]
    fn light_paints_every_colour_as_drawn() {
        for c in [
            palette::INK,
            palette::GRID,
            palette::BLUE.alpha(0.3),
            Rgba::hex(0x440154),
        ] {
            assert_eq!(Theme::Light.paint(c), c);
        }
    }

    #[test]
    fn the_painter_remembers_without_mixing_opacities() {
        let mut painter = ThemePainter::new(Theme::Dark);
        for c in [
            palette::INK,
            palette::INK.alpha(0.3),
            Rgba::hex(0x440154),
            palette::BLUE,
        ] {
            assert_eq!(painter.paint(c), Theme::Dark.paint(c));
            assert_eq!(painter.paint(c), Theme::Dark.paint(c), "from memory");
        }
        let mut light = ThemePainter::new(Theme::Light);
        assert_eq!(
            light.paint(palette::GRID.alpha(0.2)),
            palette::GRID.alpha(0.2)
        );
    }

    #[test]
    fn contrast_follows_wcag() {
        assert!((contrast_ratio(palette::WHITE, palette::BLACK) - 21.0).abs() < 1e-9);
        assert!((contrast_ratio(palette::INK, palette::INK) - 1.0).abs() < 1e-12);
        // #767676 on white is the classic 4.54:1.
        let grey = contrast_ratio(Rgba::hex(0x767676), palette::WHITE);
        assert!((grey - 4.54).abs() < 0.01, "{grey}");
    }

    #[test]
    fn dark_text_and_furniture_read_on_the_dark_surface() {
        let bg = Theme::Dark.surface();
        for text in [palette::INK, palette::MUTED, palette::BLACK] {
            let ratio = contrast_ratio(Theme::Dark.paint(text), bg);
            assert!(ratio >= MIN_TEXT_CONTRAST, "{text:?} at {ratio:.2}:1");
        }
        // The furniture keeps its light-theme order: ink over muted over the gap outline,
        // the grid and the lane shade faint but there.
        let l = |c| relative_luminance(Theme::Dark.paint(c));
        assert!(l(palette::INK) > l(palette::MUTED));
        assert!(l(palette::MUTED) > l(palette::GRID));
        assert!(l(palette::GRID) > l(palette::LANE_SHADE));
        assert!(l(palette::LANE_SHADE) > l(palette::WHITE));
        assert!(contrast_ratio(Theme::Dark.paint(palette::GAP), bg) >= MIN_GRAPHIC_CONTRAST);
        // Opacity is kept.
        assert_eq!(Theme::Dark.paint(palette::INK.alpha(0.45)).a, 0.45);
        assert_eq!(Theme::Dark.paint(palette::WHITE), bg);
    }

    #[test]
    fn every_drawn_colour_stands_out_on_the_dark_surface() {
        let bg = Theme::Dark.surface();
        let mut colours: Vec<Rgba> = (0..8).map(category_color).collect();
        colours.extend((0..=20).map(|i| efficiency_color(f64::from(i) / 20.0)));
        colours.extend(CLASSES.map(class_color));
        for c in colours {
            let painted = Theme::Dark.paint(c);
            let ratio = contrast_ratio(painted, bg);
            assert!(
                ratio >= MIN_GRAPHIC_CONTRAST - 1e-9,
                "{c:?} → {painted:?} at {ratio:.2}:1"
            );
            // Colours that already stood out are left alone.
            if contrast_ratio(c, bg) >= MIN_GRAPHIC_CONTRAST {
                assert_eq!(painted, c);
            }
        }
        // The efficiency ramp still reads from dark to light (lifted colours meet at the bar).
        let ramp: Vec<f64> = (0..=20)
            .map(|i| relative_luminance(Theme::Dark.paint(efficiency_color(f64::from(i) / 20.0))))
            .collect();
        for pair in ramp.windows(2) {
            assert!(pair[1] >= pair[0] - 0.004, "{ramp:?}");
        }
        // Lifting keeps the hue: the deep purple stays more blue and red than green.
        let purple = Theme::Dark.paint(efficiency_color(0.0));
        assert!(purple.b > purple.g && purple.r > purple.g, "{purple:?}");
    }

    /// Linear-light RGB of an sRGB colour.
    fn linear(c: Rgba) -> [f64; 3] {
        [c.r, c.g, c.b].map(linear_channel)
    }

    /// CIE L*a*b* (D65) of linear RGB.
    fn lab(rgb: [f64; 3]) -> [f64; 3] {
        let [r, g, b] = rgb.map(|v| v.clamp(0.0, 1.0));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 216.0 / 24389.0 {
                t.cbrt()
            } else {
                (24389.0 / 27.0 * t + 16.0) / 116.0
            }
        };
        let (fx, fy, fz) = (f(x), f(y), f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
    }

    fn delta_e(a: [f64; 3], b: [f64; 3]) -> f64 {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    }

    /// Machado, Oliveira & Fernandes (2009), severity 1: protanopia, deuteranopia,
    /// tritanopia, on linear RGB; and greyscale (luminance only).
    fn seen_by(vision: usize, rgb: [f64; 3]) -> [f64; 3] {
        const MACHADO: [[[f64; 3]; 3]; 3] = [
            [
                [0.152286, 1.052583, -0.204868],
                [0.114503, 0.786281, 0.099216],
                [-0.003882, -0.048116, 1.051998],
            ],
            [
                [0.367322, 0.860646, -0.227968],
                [0.280085, 0.672501, 0.047413],
                [-0.011820, 0.042940, 0.968881],
            ],
            [
                [1.255528, -0.076749, -0.178779],
                [-0.078411, 0.930809, 0.147602],
                [0.004733, 0.691367, 0.303900],
            ],
        ];
        if vision == 3 {
            let y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
            return [y, y, y];
        }
        let m = MACHADO[vision];
        [0, 1, 2].map(|i| m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2])
    }

    #[test]
    fn interval_classes_stay_apart_for_every_vision_in_both_themes() {
        // CIE76 ΔE of 10 is a clearly visible difference. In greyscale only lightness is
        // left: orange and reddish purple are 9.6 apart there, so the bar is 5 and the
        // classes' forms (solid, dashed, hatched: timeline_scene's
        // `each_class_has_its_own_form`) carry the rest.
        for theme in [Theme::Light, Theme::Dark] {
            for vision in 0..4 {
                let min_delta_e = if vision == 3 { 5.0 } else { 10.0 };
                let seen: Vec<[f64; 3]> = CLASSES
                    .iter()
                    .map(|&c| lab(seen_by(vision, linear(theme.paint(class_color(c))))))
                    .collect();
                let surface = lab(seen_by(vision, linear(theme.surface())));
                for i in 0..seen.len() {
                    assert!(
                        delta_e(seen[i], surface) >= min_delta_e,
                        "{theme:?}, vision {vision}: {:?} vs the surface",
                        CLASSES[i]
                    );
                    for j in i + 1..seen.len() {
                        let d = delta_e(seen[i], seen[j]);
                        assert!(
                            d >= min_delta_e,
                            "{theme:?}, vision {vision}: {:?} vs {:?} ΔE {d:.1}",
                            CLASSES[i],
                            CLASSES[j]
                        );
                    }
                }
            }
        }
    }
}

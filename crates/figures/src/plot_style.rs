//! The report's one figure style: the print rule for type (every figure
//! keeps its smallest text at [`MIN_PRINT_PT`] when printed [`PRINT_WIDTH_CM`]
//! wide), titles wrapped to the figure's width, a marker and a shade per
//! round, the axes and their captions. The legend and the labels are
//! [`crate::plot_legend`]'s.

use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

use plotters::coord::ranged1d::ValueFormatter;

use crate::plot_scale::{tick, tick_label, Scale};
use netlab_compare::sweep::SweepAxis;

/// Every figure's width, px (SVG user units).
pub const WIDTH: u32 = 600;
/// The width a figure is printed at: one column of a paper.
pub const PRINT_WIDTH_CM: f64 = 8.5;
/// The smallest type a printed figure may have, pt.
pub const MIN_PRINT_PT: f64 = 8.0;
/// Type of ticks, legends, labels and axis descriptions, px.
pub const TEXT_PX: f64 = 20.0;
/// Type of titles, px.
pub const TITLE_PX: f64 = 22.0;

/// [`PRINT_WIDTH_CM`] in pt (1 in = 2.54 cm = 72 pt): 240.9.
pub fn print_width_pt() -> f64 {
    PRINT_WIDTH_CM / 2.54 * 72.0
}

/// The size in pt of type `font_px` px in a figure `width_px` wide, printed
/// [`PRINT_WIDTH_CM`] wide: `font_px × 240.9 / width_px`.
pub fn printed_pt(font_px: f64, width_px: f64) -> f64 {
    font_px * print_width_pt() / width_px
}

/// The smallest font, px, a figure `width_px` wide may use.
#[cfg(test)]
pub fn min_font_px(width_px: f64) -> f64 {
    MIN_PRINT_PT * width_px / print_width_pt()
}

/// Checks the print rule on an SVG: reads its `width` and every
/// `font-size` and returns each font that would print below
/// [`MIN_PRINT_PT`] at [`PRINT_WIDTH_CM`] (as `(font px, pt)`), or an error
/// when the SVG has no width.
pub fn fonts_below_print_rule(svg: &str) -> Result<Vec<(f64, f64)>, String> {
    let attr = |s: &str, name: &str| -> Option<f64> {
        let i = s.find(&format!("{name}=\""))? + name.len() + 2;
        let end = s[i..].find('"')? + i;
        s[i..end].trim_end_matches("px").parse().ok()
    };
    let root = svg.find("<svg").ok_or("no <svg> element")?;
    let width = attr(&svg[root..], "width").ok_or("the <svg> has no width")?;
    let mut small = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("font-size=\"") {
        let f = attr(&rest[i..], "font-size").ok_or("an unreadable font-size")?;
        let pt = printed_pt(f, width);
        // a hair of slack for the SVG's decimal rounding
        if pt < MIN_PRINT_PT - 1e-9 {
            small.push((f, pt));
        }
        rest = &rest[i + 10..];
    }
    Ok(small)
}

/// A text style of `px` px. plotters' SVG backend writes a font's size
/// divided by 1.24 as the SVG `font-size`, so the size asked for is `px × 1.24`.
/// (A size given as a tuple's number would be cut to whole pixels first.)
pub fn font(px: f64) -> TextStyle<'static> {
    TextStyle::from(FontDesc::new(
        FontFamily::Name(FONT),
        px * 1.24,
        FontStyle::Normal,
    ))
}

/// A text style of `px` px in colour `c`.
pub fn font_c(px: f64, c: RGBColor) -> TextStyle<'static> {
    let mut t = font(px);
    t.color = c.to_backend_color();
    t
}

/// Estimated width of `text` set at `px` px in a sans-serif face: 0.6 em a
/// character (DejaVu Sans' lower case averages about 0.55 em), so an
/// estimate errs wide.
pub fn text_width(text: &str, px: f64) -> f64 {
    text.chars().count() as f64 * 0.6 * px
}

/// Line height for type of `px` px.
pub fn line_h(px: f64) -> i32 {
    (px * 1.25).ceil() as i32
}

/// Greedy word wrap of `text` into lines no wider than `width` px at `px` px.
pub fn wrap(text: &str, px: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let cand = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if text_width(&cand, px) > width && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        } else {
            cur = cand;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Height of a title of `text` wrapped to `width`, px (with its margin).
pub fn title_height(text: &str, width: u32) -> u32 {
    let n = wrap(text, TITLE_PX, f64::from(width) - 20.0).len() as i32;
    (n * line_h(TITLE_PX) + 10) as u32
}

/// Draws `text` as the figure's title, wrapped and centred at the top of
/// `root`, and returns the area below it.
pub fn title<'a>(root: &Area<'a>, text: &str) -> Result<Area<'a>, String> {
    let (w, _) = root.dim_in_pixel();
    let h = title_height(text, w);
    let (top, rest) = root.split_vertically(h);
    let style = font(TITLE_PX).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Top,
    ));
    for (i, line) in wrap(text, TITLE_PX, f64::from(w) - 20.0).iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 6 + i as i32 * line_h(TITLE_PX)),
            style.clone(),
        ))
        .map_err(e)?;
    }
    Ok(rest)
}

/// A marker's shape: one per round (`r1` a circle, `r2` a square, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle pointing up.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// A filled triangle pointing down.
    TriangleDown,
    /// An ×.
    Cross,
    /// A +.
    Plus,
    /// An open circle.
    Ring,
    /// A filled triangle pointing right: "≥", a value on the censored mass
    /// drawn at its bound, on an axis whose values grow to the right.
    AtLeast,
    /// An arrow pointing up: "≥" on an axis whose values grow upward (a
    /// sweep figure's y), so the marker points the way its bound goes.
    AtLeastUp,
    /// A thick upright bar: a figure pooled over rounds (never a round's
    /// own glyph).
    Bar,
    /// A thin upright bar with end caps: a pooled tail quantile.
    ThinBar,
}

impl Shape {
    /// Shapes by round, in order.
    pub const BY_ROUND: [Shape; 8] = [
        Shape::Circle,
        Shape::Square,
        Shape::Triangle,
        Shape::Diamond,
        Shape::TriangleDown,
        Shape::Cross,
        Shape::Plus,
        Shape::Ring,
    ];

    /// The shape of round `round` (1-based).
    pub fn of_round(round: u32) -> Shape {
        Shape::BY_ROUND[(round.max(1) as usize - 1) % Shape::BY_ROUND.len()]
    }
}

/// A marker of `shape`, radius `r` px, colour `c`, at `at` (any
/// coordinate): an element of its own, so every shape is one type.
#[derive(Debug, Clone)]
pub struct Marker<C> {
    at: C,
    shape: Shape,
    r: i32,
    c: RGBColor,
}

/// A marker of `shape`, radius `r` px, colour `c`, at `at`.
pub fn marker<C>(shape: Shape, at: C, r: i32, c: RGBColor) -> Marker<C> {
    Marker { at, shape, r, c }
}

impl<'a, C> PointCollection<'a, C> for &'a Marker<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Marker<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = pos.next() else {
            return Ok(());
        };
        let (r, fill, line) = (self.r, self.c.filled(), self.c.stroke_width(2));
        let h = (f64::from(r) * 0.85).round() as i32;
        let poly = |b: &mut DB, v: &[(i32, i32)]| {
            b.fill_polygon(v.iter().map(|&(dx, dy)| (x + dx, y + dy)), &fill)
        };
        match self.shape {
            Shape::Circle => backend.draw_circle((x, y), r as u32, &fill, true),
            Shape::Ring => backend.draw_circle((x, y), r as u32, &line, false),
            Shape::Square => backend.draw_rect((x - h, y - h), (x + h, y + h), &fill, true),
            Shape::Triangle => poly(backend, &[(0, -r), (r, h), (-r, h)]),
            Shape::TriangleDown => poly(backend, &[(0, r), (r, -h), (-r, -h)]),
            Shape::AtLeast => poly(backend, &[(r, 0), (-h, -r), (-h, r)]),
            Shape::Bar => backend.draw_rect((x - 3, y - r), (x + 3, y + r), &fill, true),
            Shape::ThinBar => {
                backend.draw_line((x, y - r), (x, y + r), &line)?;
                backend.draw_line((x - h / 2, y - r), (x + h / 2, y - r), &line)?;
                backend.draw_line((x - h / 2, y + r), (x + h / 2, y + r), &line)
            }
            Shape::AtLeastUp => {
                backend.draw_line((x, y + r), (x, y - h / 2), &line)?;
                poly(backend, &[(0, -r - 2), (h, -r + h), (-h, -r + h)])
            }
            Shape::Diamond => poly(backend, &[(0, -r), (r, 0), (0, r), (-r, 0)]),
            Shape::Cross => {
                backend.draw_line((x - h, y - h), (x + h, y + h), &line)?;
                backend.draw_line((x - h, y + h), (x + h, y - h), &line)
            }
            Shape::Plus => {
                backend.draw_line((x - r, y), (x + r, y), &line)?;
                backend.draw_line((x, y - r), (x, y + r), &line)
            }
        }
    }
}

/// The shade of round number `k` (0-based) of `n` in an arm of colour `c`:
/// the first darkest, the last lightest, all recognisably the arm's hue.
pub fn round_shade(c: RGBColor, k: usize, n: usize) -> RGBColor {
    let t = if n > 1 {
        k as f64 / (n - 1) as f64
    } else {
        0.5
    };
    // from 30 % darker to 35 % towards white
    let f = |v: u8| -> u8 {
        let v = f64::from(v);
        let dark = v * 0.7;
        let light = v + (255.0 - v) * 0.35;
        (dark + (light - dark) * t).round().clamp(0.0, 255.0) as u8
    };
    RGBColor(f(c.0), f(c.1), f(c.2))
}

/// [`builder`]'s left and right margins and its y label area, px.
const MARGIN_LEFT: u32 = 4;
const MARGIN_RIGHT: u32 = 18;
const Y_LABEL_AREA: u32 = 90;
/// The height under a plot for its x tick labels and description, px.
pub const X_LABEL_AREA: u32 = 64;

/// A chart builder on `area` with the report's margins and room for
/// [`TEXT_PX`] tick labels and axis descriptions.
pub fn builder<'a, 'b>(area: &'a Area<'b>) -> ChartBuilder<'a, 'a, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(area);
    b.margin_top(10)
        .margin_right(MARGIN_RIGHT)
        .margin_left(MARGIN_LEFT)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA);
    b
}

/// The width, px, of the plotting area [`builder`] leaves in an area
/// `width` px wide.
pub fn plot_width(width: u32) -> f64 {
    f64::from(width.saturating_sub(MARGIN_LEFT + MARGIN_RIGHT + Y_LABEL_AREA))
}

/// How a chart's axes read: their descriptions (none when empty), the
/// text of their tick labels, how many labels each may have, and the
/// colour of the major grid. Every figure's axes are drawn from one of
/// these by [`draw_axes`], at [`TEXT_PX`] with no minor grid.
pub struct Axes<'a> {
    /// The x axis' description.
    pub x_desc: &'a str,
    /// The y axis' description.
    pub y_desc: &'a str,
    /// The x tick labels' text.
    pub x_label: &'a dyn Fn(&f64) -> String,
    /// The y tick labels' text.
    pub y_label: &'a dyn Fn(&f64) -> String,
    /// At most this many labels on (x, y); plotters' choice when None.
    pub labels: Option<(usize, usize)>,
    /// The major grid's colour; plotters' when None.
    pub grid: Option<RGBColor>,
}

impl<'a> Axes<'a> {
    /// Axes ticked with [`tick`]'s numbers, at most `n` labels per axis.
    pub fn ticks(x_desc: &'a str, y_desc: &'a str, n: (usize, usize)) -> Axes<'a> {
        Axes {
            x_desc,
            y_desc,
            x_label: &tick,
            y_label: &tick,
            labels: Some(n),
            grid: None,
        }
    }
}

/// Draws a chart's axes in the report's one style ([`Axes`]).
pub fn draw_axes<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    axes: &Axes<'_>,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut m = chart.configure_mesh();
    m.label_style(font(TEXT_PX))
        .axis_desc_style(font(TEXT_PX))
        .x_label_formatter(axes.x_label)
        .y_label_formatter(axes.y_label)
        .light_line_style(WHITE.mix(0.0))
        // The x labels a little lower than plotters puts them, so the
        // lowest y label (centred on the x axis) never touches the first.
        .set_tick_mark_size(plotters::chart::LabelAreaPosition::Bottom, 7);
    if let Some((x, y)) = axes.labels {
        m.x_labels(x).y_labels(y);
    }
    if let Some(c) = axes.grid {
        m.bold_line_style(c);
    }
    if !axes.x_desc.is_empty() {
        m.x_desc(axes.x_desc);
    }
    if !axes.y_desc.is_empty() {
        m.y_desc(axes.y_desc);
    }
    m.draw().map_err(|err| format!("{err:?}"))
}

/// Draws a chart's axes in the report's one style with [`tick`]'s numbers
/// and at most `n` labels per axis ([`Axes::ticks`]).
pub fn mesh<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
    n: (usize, usize),
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    draw_axes(chart, &Axes::ticks(x_desc, y_desc, n))
}

/// How many lines the longest of `names` takes when each is wrapped to
/// a category `band_px` wide ([`draw_categories`]).
pub fn category_lines(names: &[String], band_px: f64) -> i32 {
    names
        .iter()
        .map(|n| wrap(n, TEXT_PX, band_px - 8.0).len().max(1) as i32)
        .max()
        .unwrap_or(1)
}

/// Names a categorical x axis: `names[i]` centred under x = i (the chart
/// spans −0.5 to n − 0.5), each wrapped to its category's width, its
/// lines under the plot area.
pub fn draw_categories<DB: DrawingBackend, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    area: &Area<'_>,
    names: &[String],
) -> Result<(), String>
where
    Y: Ranged,
{
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let base = area.get_base_pixel();
    let band = f64::from(xr.end - xr.start) / names.len().max(1) as f64;
    let style = font(TEXT_PX).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Top,
    ));
    for (i, name) in names.iter().enumerate() {
        let x = xr.start - base.0 + (band * (i as f64 + 0.5)).round() as i32;
        for (k, line) in wrap(name, TEXT_PX, band - 8.0).iter().enumerate() {
            let y = yr.end - base.1 + 8 + k as i32 * line_h(TEXT_PX);
            area.draw(&Text::new(line.clone(), (x, y), style.clone()))
                .map_err(e)?;
        }
    }
    Ok(())
}

/// The height, px, of the "at …" caption above a sweep panel.
pub const CAPTION_H: u32 = 30;

/// A sweep panel's area below its caption ("at rate=5mbit", the values
/// held), or all of `area` without one.
pub fn captioned<'b>(area: &Area<'b>, held: Option<&[String]>) -> Result<Area<'b>, String> {
    let Some(held) = held else {
        return Ok(area.clone());
    };
    let (cap, rest) = area.split_vertically(CAPTION_H);
    cap.draw(&Text::new(
        format!("at {}", held.join(", ")),
        (90, 4),
        font(TEXT_PX),
    ))
    .map_err(|err| format!("{err:?}"))?;
    Ok(rest)
}

/// A swept axis as its x axis names it, with its unit: a rate, duration
/// or size in its own (`rate (Mbit/s)`), a plain number in what it
/// counts (`flows (count)`, `buffer_bdp (BDPs)`, `mtu (bytes)`); words
/// need none.
pub fn axis_desc(axis: &SweepAxis) -> String {
    if axis.kind != netlab_compare::sweep::AxisKind::Number {
        return axis.title();
    }
    let n = axis.name.as_str();
    let unit = if n == "flows" || n.ends_with("_flows") {
        "count"
    } else if n == "buffer_bdp" {
        "BDPs"
    } else if n == "mtu" || n.ends_with("_size") || n.ends_with(".quantum") {
        "bytes"
    } else if n.ends_with(".limit") {
        "packets"
    } else {
        "a plain number"
    };
    format!("{n} ({unit})")
}

/// The axes of a sweep panel: the swept axis along x (its values' own
/// words when they are not numbers), `y_desc` up the side, both marked
/// ", log" when logarithmic, on a light grid.
pub fn draw_sweep_axes<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Scale, Scale>>,
    axis: &SweepAxis,
    (xs, ys): (&Scale, &Scale),
    y_desc: &str,
) -> Result<(), String> {
    let x_desc = format!("{}{}", axis_desc(axis), if xs.log { ", log" } else { "" });
    let y_desc = if ys.log {
        format!("{y_desc}, log")
    } else {
        y_desc.to_string()
    };
    let x_label = |t: &f64| {
        if axis.values.iter().all(|v| v.x.is_some()) {
            tick(&xs.from(*t))
        } else {
            let i = t.round().max(0.0) as usize;
            axis.values
                .get(i)
                .map_or_else(String::new, |v| v.text.clone())
        }
    };
    draw_axes(
        chart,
        &Axes {
            x_desc: &x_desc,
            y_desc: &y_desc,
            x_label: &x_label,
            y_label: &|t| tick_label(ys, *t),
            labels: None,
            grid: Some(RGBColor(235, 235, 235)),
        },
    )
}

/// A figure's drawing area: an SVG canvas, or a part of one.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The figures' face.
pub const FONT: &str = "sans-serif";
/// The band behind a timeout's region.
pub const TIMEOUT_FILL: RGBColor = RGBColor(235, 235, 235);

/// Maps a drawing error to text.
pub fn e<E: std::fmt::Debug>(err: E) -> String {
    format!("{err:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_print_rule_is_the_arithmetic_of_the_issue() {
        // 8.5 cm = 240.9 pt; 12 px in a 900 px figure is 3.2 pt
        assert!((print_width_pt() - 240.94).abs() < 0.01);
        assert!((printed_pt(12.1, 900.0) - 3.24).abs() < 0.01);
        // 900 px needs 30 px; 600 px needs 20 px
        assert!((min_font_px(900.0) - 29.88).abs() < 0.01);
        assert!(TEXT_PX >= min_font_px(f64::from(WIDTH)));
        assert!(printed_pt(TEXT_PX, f64::from(WIDTH)) >= MIN_PRINT_PT);
    }

    #[test]
    fn the_print_rule_check_reads_width_and_every_font() {
        let ok = r#"<svg width="600" height="400"><text font-size="20">a</text></svg>"#;
        assert_eq!(fonts_below_print_rule(ok).unwrap(), vec![]);
        let small = r#"<svg width="900" height="400"><text font-size="12.1">a</text><text font-size="30">b</text></svg>"#;
        let bad = fonts_below_print_rule(small).unwrap();
        assert_eq!(bad.len(), 1);
        assert!((bad[0].1 - 3.24).abs() < 0.01);
        assert!(fonts_below_print_rule("<svg><text/></svg>").is_err());
    }

    #[test]
    fn wrapped_lines_fit_their_width() {
        let t = "fq_codel: pooled (thick), 3 rounds (thin); n=88, timeouts 10, reaches 0.89, p95 ≥ 1000 ms";
        let lines = wrap(t, TEXT_PX, 400.0);
        assert!(lines.len() >= 2);
        assert!(lines.iter().all(|l| text_width(l, TEXT_PX) <= 400.0));
        assert_eq!(lines.join(" "), t);
    }

    #[test]
    fn rounds_get_distinct_shapes_and_shades() {
        let shapes: Vec<Shape> = (1..=6).map(Shape::of_round).collect();
        for i in 0..6 {
            for j in 0..i {
                assert_ne!(shapes[i], shapes[j]);
            }
        }
        let c = RGBColor(200, 60, 40);
        let a = round_shade(c, 0, 3);
        let b = round_shade(c, 2, 3);
        assert_ne!(a, b);
        assert!(a.0 < b.0);
    }
}

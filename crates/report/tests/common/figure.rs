//! A figure as a reader sees it: the SVG parsed and laid out by usvg (the
//! tree resvg renders), its text set in DejaVu Sans, the face the figures
//! are measured for (`plot_style::text_width`), so each text has the box it
//! covers on the canvas. From that tree: every text box, the plot areas
//! (each panel's two axis lines) and the legend's area (its frame,
//! `plot_legend::LEGEND_FRAME`), for the checks a journal's reviewer makes
//! (docs/report.md, "One figure style").

use std::path::Path;
use std::sync::OnceLock;

use resvg::usvg;

/// The face every figure is laid out in (Debian's fonts-dejavu-core).
pub const FONT_FILE: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// A box on the canvas, px: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Box2 {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Box2 {
    fn of(r: usvg::Rect) -> Box2 {
        Box2 {
            x0: f64::from(r.left()),
            y0: f64::from(r.top()),
            x1: f64::from(r.right()),
            y1: f64::from(r.bottom()),
        }
    }

    pub fn area(&self) -> f64 {
        (self.x1 - self.x0).max(0.0) * (self.y1 - self.y0).max(0.0)
    }

    /// Whether two boxes share more than `slack` px in both directions.
    pub fn overlaps(&self, o: &Box2, slack: f64) -> bool {
        self.x0 + slack < o.x1
            && o.x0 + slack < self.x1
            && self.y0 + slack < o.y1
            && o.y0 + slack < self.y1
    }

    /// Whether the box lies inside `0..w` × `0..h`.
    pub fn inside(&self, w: f64, h: f64) -> bool {
        self.x0 >= -0.5 && self.y0 >= -0.5 && self.x1 <= w + 0.5 && self.y1 <= h + 0.5
    }
}

/// What a figure draws, read from its rendered tree.
#[derive(Debug, Clone)]
pub struct Figure {
    pub width: f64,
    pub height: f64,
    /// Every text: its words and its box.
    pub texts: Vec<(String, Box2)>,
    /// Each panel's plot area, between its y axis and its x axis.
    pub panels: Vec<Box2>,
    /// The legend's frame, when the figure has a legend.
    pub legend: Option<Box2>,
}

/// The face's bytes, or None when it is not installed.
pub fn font() -> Option<&'static [u8]> {
    static FONT: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    FONT.get_or_init(|| std::fs::read(Path::new(FONT_FILE)).ok())
        .as_deref()
}

/// usvg's options with DejaVu Sans as every family the figures name.
fn options() -> usvg::Options<'static> {
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_font_data(font().expect("DejaVu Sans is installed").to_vec());
    db.set_sans_serif_family("DejaVu Sans");
    db.set_serif_family("DejaVu Sans");
    opt.font_family = "DejaVu Sans".into();
    opt
}

fn shared_options() -> &'static usvg::Options<'static> {
    static OPT: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPT.get_or_init(options)
}

/// The legend frame's colour (`plot_legend::LEGEND_FRAME`).
const FRAME: (u8, u8, u8) = (160, 160, 160);

/// Parses and lays out `svg`.
pub fn read(svg: &str) -> Result<Figure, String> {
    let tree = usvg::Tree::from_str(svg, shared_options()).map_err(|e| e.to_string())?;
    let mut f = Figure {
        width: f64::from(tree.size().width()),
        height: f64::from(tree.size().height()),
        texts: Vec::new(),
        panels: Vec::new(),
        legend: None,
    };
    let mut lines: Vec<(Box2, bool)> = Vec::new();
    walk(tree.root(), &mut f, &mut lines);
    f.panels = panels(&lines);
    Ok(f)
}

fn walk(g: &usvg::Group, f: &mut Figure, lines: &mut Vec<(Box2, bool)>) {
    for n in g.children() {
        match n {
            usvg::Node::Group(g) => walk(g, f, lines),
            usvg::Node::Text(t) => {
                let words: Vec<String> = t.chunks().iter().map(|c| c.text().to_string()).collect();
                f.texts
                    .push((words.join(" "), Box2::of(t.abs_bounding_box())));
            }
            usvg::Node::Path(p) => {
                let Some(stroke) = p.stroke() else { continue };
                let usvg::Paint::Color(c) = stroke.paint() else {
                    continue;
                };
                let b = Box2::of(p.abs_bounding_box());
                if (c.red, c.green, c.blue) == FRAME && p.fill().is_none() {
                    f.legend = Some(b);
                } else if (c.red, c.green, c.blue) == (0, 0, 0) {
                    let (w, h) = (b.x1 - b.x0, b.y1 - b.y0);
                    // An axis line: one pixel across, longer than a tick.
                    if w <= 1.0 && h > 20.0 {
                        lines.push((b, true));
                    } else if h <= 1.0 && w > 20.0 {
                        lines.push((b, false));
                    }
                }
            }
            usvg::Node::Image(_) => {}
        }
    }
}

/// Each panel: a vertical axis line and the horizontal one starting at its
/// foot (plotters draws them a pixel apart).
fn panels(lines: &[(Box2, bool)]) -> Vec<Box2> {
    let mut out = Vec::new();
    for (y, _) in lines.iter().filter(|l| l.1) {
        let foot = lines
            .iter()
            .filter(|l| !l.1)
            .find(|(x, _)| (x.y0 - y.y1).abs() <= 2.0 && (x.x0 - y.x0).abs() <= 2.0);
        if let Some((x, _)) = foot {
            let b = Box2 {
                x0: y.x0,
                y0: y.y0,
                x1: x.x1,
                y1: y.y1,
            };
            // A panel found twice (a mesh line a pixel beside its axis).
            let near = |o: &Box2| {
                (o.x0 - b.x0).abs() <= 2.0
                    && (o.y0 - b.y0).abs() <= 2.0
                    && (o.x1 - b.x1).abs() <= 2.0
                    && (o.y1 - b.y1).abs() <= 2.0
            };
            if !out.iter().any(near) {
                out.push(b);
            }
        }
    }
    out
}

/// What a reviewer would send back: texts leaving the canvas, texts
/// overprinting each other, a legend larger than the plot. Empty when the
/// figure passes.
pub fn faults(f: &Figure) -> Vec<String> {
    let mut out = Vec::new();
    for (t, b) in &f.texts {
        if !b.inside(f.width, f.height) {
            out.push(format!(
                "{t:?} leaves the {}×{} canvas: {b:?}",
                f.width, f.height
            ));
        }
    }
    for (i, (a, ba)) in f.texts.iter().enumerate() {
        for (b, bb) in &f.texts[i + 1..] {
            if ba.overlaps(bb, 1.0) {
                out.push(format!("{a:?} {ba:?} overprints {b:?} {bb:?}"));
            }
        }
    }
    let plot: f64 = f.panels.iter().map(Box2::area).sum();
    if let Some(l) = f.legend {
        if l.area() > plot {
            out.push(format!(
                "the legend ({:.0} px²) is larger than the plot ({plot:.0} px² in {} panel(s))",
                l.area(),
                f.panels.len()
            ));
        }
    }
    out
}

//! The report's legends and labels: one legend drawn outside the plot
//! area (below it, over no data) with each entry's mark, and labels placed
//! so they never overprint each other or a marker.

use plotters::prelude::*;

use crate::plot_style::{
    e, font, font_c, line_h, marker, text_width, wrap, Area, Shape, TEXT_PX, TIMEOUT_FILL,
};

/// What a legend entry shows beside its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mark {
    /// A filled box (a shaded band).
    Band(RGBColor),
    /// The grey "no reply within the timeout" band.
    TimeoutBand,
    /// A line of the given width.
    Line(RGBColor, u32),
    /// A dashed line.
    Dashed(RGBColor),
    /// A dotted line.
    Dotted(RGBColor),
    /// A marker.
    Marker(Shape, RGBColor),
    /// No mark: a note that qualifies the figure.
    Note,
}

/// A figure's one legend: entries flowed into rows below the plot area,
/// over no data.
#[derive(Debug, Clone, Default)]
pub struct Legend {
    entries: Vec<(String, Mark)>,
}

/// The colour of the legend's frame: a thin grey box around its entries,
/// so it reads as the key and not as data (the figure tests find the
/// legend by it).
pub const LEGEND_FRAME: RGBColor = RGBColor(160, 160, 160);

/// Width of an entry's mark and the gap after it, px.
const MARK_W: i32 = 30;
/// Gap between entries on a row, px.
const ENTRY_GAP: i32 = 18;

impl Legend {
    /// An empty legend.
    pub fn new() -> Legend {
        Legend::default()
    }

    /// Adds an entry.
    pub fn push(&mut self, label: impl Into<String>, mark: Mark) {
        self.entries.push((label.into(), mark));
    }

    /// Where each entry goes in an area `width` px wide: (x, y of its
    /// first line, its lines), and the height used.
    fn layout(&self, width: u32) -> (Vec<(i32, i32, Vec<String>)>, u32) {
        let w = width as i32 - 16;
        let lh = line_h(TEXT_PX);
        let (mut x, mut y, mut row_h) = (8i32, 6i32, 0i32);
        let mut out = Vec::new();
        for (label, _) in &self.entries {
            let lines = wrap(label, TEXT_PX, f64::from(w - MARK_W));
            let tw = lines
                .iter()
                .map(|l| text_width(l, TEXT_PX).ceil() as i32)
                .max()
                .unwrap_or(0);
            let ew = MARK_W + tw;
            if x > 8 && x + ew > w + 8 {
                x = 8;
                y += row_h;
                row_h = 0;
            }
            let h = lh * lines.len() as i32 + 4;
            out.push((x, y, lines));
            row_h = row_h.max(h);
            x += ew + ENTRY_GAP;
        }
        let height = if self.entries.is_empty() {
            0
        } else {
            (y + row_h + 6) as u32
        };
        (out, height)
    }

    /// The height the legend needs in an area `width` px wide.
    pub fn height(&self, width: u32) -> u32 {
        self.layout(width).1
    }

    /// Splits `root` into the plot area and, below it, the legend's area.
    pub fn split<'a>(&self, root: &Area<'a>) -> (Area<'a>, Area<'a>) {
        // Every figure's height counts its legend's in full, so the legend
        // is never cut; the plot keeps at least a third of the area.
        let (w, h) = root.dim_in_pixel();
        root.split_vertically(h - self.height(w).min(h * 2 / 3))
    }

    /// Draws the legend in `area` (from [`Legend::split`]).
    pub fn draw(&self, area: &Area<'_>) -> Result<(), String> {
        let (w, _) = area.dim_in_pixel();
        let (places, height) = self.layout(w);
        if height > 0 {
            area.draw(&Rectangle::new(
                [(2, 1), (w as i32 - 3, height as i32 - 2)],
                LEGEND_FRAME.stroke_width(1),
            ))
            .map_err(e)?;
        }
        let lh = line_h(TEXT_PX);
        for ((_, mark), (x, y, lines)) in self.entries.iter().zip(places) {
            let my = y + lh / 2;
            draw_mark(area, *mark, x, my).map_err(e)?;
            for (i, l) in lines.iter().enumerate() {
                area.draw(&Text::new(
                    l.clone(),
                    (x + MARK_W, y + i as i32 * lh),
                    font(TEXT_PX).pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Top,
                    )),
                ))
                .map_err(e)?;
            }
        }
        Ok(())
    }
}

fn draw_mark(
    area: &Area<'_>,
    mark: Mark,
    x: i32,
    y: i32,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    match mark {
        Mark::Band(c) => area.draw(&Rectangle::new([(x, y - 8), (x + 22, y + 8)], c.filled())),
        Mark::TimeoutBand => area.draw(&Rectangle::new(
            [(x, y - 8), (x + 22, y + 8)],
            TIMEOUT_FILL.filled(),
        )),
        Mark::Line(c, w) => area.draw(&PathElement::new(
            vec![(x, y), (x + 22, y)],
            c.stroke_width(w),
        )),
        Mark::Dashed(c) => {
            area.draw(&PathElement::new(
                vec![(x, y), (x + 8, y)],
                c.stroke_width(2),
            ))?;
            area.draw(&PathElement::new(
                vec![(x + 14, y), (x + 22, y)],
                c.stroke_width(2),
            ))
        }
        Mark::Dotted(c) => {
            for k in 0..4 {
                area.draw(&Circle::new((x + 2 + 6 * k, y), 2, c.filled()))?;
            }
            Ok(())
        }
        Mark::Marker(s, c) => area.draw(&marker(s, (x + 11, y), 7, c)),
        Mark::Note => Ok(()),
    }
}

/// A label to place beside a point: its text, colour and the point, px.
#[derive(Debug, Clone)]
pub struct Label {
    /// The text.
    pub text: String,
    /// Its colour.
    pub color: RGBColor,
    /// The point it names, in the area's pixels.
    pub at: (i32, i32),
}

/// Boxes overlap (x0, y0, x1, y1).
fn overlaps(a: (i32, i32, i32, i32), b: (i32, i32, i32, i32)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Places `labels` beside their points so that no two overprint and none
/// covers a point of `avoid` (markers, px) or leaves `bounds` (x0, y0, x1,
/// y1): right, left, above, below, then further out; returns each label's
/// top-left corner.
#[cfg(test)]
pub fn place_labels(
    labels: &[Label],
    avoid: &[(i32, i32)],
    bounds: (i32, i32, i32, i32),
) -> Vec<(i32, i32)> {
    place_labels_within(labels, avoid, bounds, bounds)
}

/// [`place_labels`], with `outer` (the drawing area) as the room a label
/// may take when no place inside `bounds` is free: a label beside its
/// curve's end outside the band is read; one over another is not.
pub fn place_labels_within(
    labels: &[Label],
    avoid: &[(i32, i32)],
    bounds: (i32, i32, i32, i32),
    outer: (i32, i32, i32, i32),
) -> Vec<(i32, i32)> {
    let lh = line_h(TEXT_PX);
    let mut taken: Vec<(i32, i32, i32, i32)> = avoid
        .iter()
        .map(|&(x, y)| (x - 7, y - 7, x + 7, y + 7))
        .collect();
    let mut out = Vec::with_capacity(labels.len());
    for l in labels {
        let w = text_width(&l.text, TEXT_PX).ceil() as i32;
        let (px, py) = l.at;
        let mut cands = Vec::new();
        for k in 0..16 {
            let d = 10 + k * lh;
            cands.extend([
                // A column right of the point, for a narrow band.
                (px + 10, py - lh / 2 - k * lh),
                (px + 10, py - lh / 2 + k * lh),
                (px + 10 + k * 6, py - lh / 2 - k * lh),
                (px + 10 + k * 6, py - lh / 2 + k * lh),
                (px - 10 - w - k * 6, py - lh / 2 - k * lh),
                (px - 10 - w - k * 6, py - lh / 2 + k * lh),
                (px - w / 2, py - d - lh),
                (px - w / 2, py + d),
            ]);
        }
        let fits = |bounds: (i32, i32, i32, i32)| {
            let taken = &taken;
            move |&(x, y): &(i32, i32)| {
                let b = (x, y, x + w, y + lh);
                b.0 >= bounds.0
                    && b.1 >= bounds.1
                    && b.2 <= bounds.2
                    && b.3 <= bounds.3
                    && !taken.iter().any(|t| overlaps(*t, b))
            }
        };
        let pos = cands
            .iter()
            .copied()
            .find(fits(bounds))
            .or_else(|| cands.iter().copied().find(fits(outer)))
            .unwrap_or((px + 10, py - lh / 2));
        taken.push((pos.0, pos.1, pos.0 + w, pos.1 + lh));
        out.push(pos);
    }
    out
}

/// Labels of one colour naming (nearly) the same point said once
/// (`r1 r2 r4`): rounds whose curves end together would otherwise need
/// more room around that point than there is.
pub fn merge_labels(labels: &[Label]) -> Vec<Label> {
    let mut out: Vec<Label> = Vec::with_capacity(labels.len());
    for l in labels {
        let same = out.iter_mut().find(|o| {
            o.color == l.color && (o.at.0 - l.at.0).abs() <= 4 && (o.at.1 - l.at.1).abs() <= 4
        });
        match same {
            Some(o) if !o.text.split(' ').any(|w| w == l.text) => {
                o.text = format!("{} {}", o.text, l.text);
            }
            Some(_) => {}
            None => out.push(l.clone()),
        }
    }
    out
}

/// Points every 8 px along the segment `a`–`b` (px), for
/// [`place_labels`] to keep labels off a line.
pub fn along(a: (i32, i32), b: (i32, i32)) -> Vec<(i32, i32)> {
    let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
    let n = ((dx * dx + dy * dy).sqrt() / 8.0).ceil().max(1.0) as i32;
    (0..=n)
        .map(|k| {
            let t = f64::from(k) / f64::from(n);
            (a.0 + (dx * t).round() as i32, a.1 + (dy * t).round() as i32)
        })
        .collect()
}

/// Draws `labels` at the places [`place_labels`] found, on `area`.
pub fn draw_labels(
    area: &Area<'_>,
    labels: &[Label],
    avoid: &[(i32, i32)],
    bounds: (i32, i32, i32, i32),
) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    // Outside the plot only to its right, above or below: left of it
    // are the axis' own labels.
    draw_labels_in(
        area,
        labels,
        avoid,
        bounds,
        (bounds.0, 2, w as i32 - 2, h as i32 - 2),
    )
}

/// [`draw_labels`] with `outer` the room a label may take when `bounds`
/// has none free ([`place_labels_within`]).
pub fn draw_labels_in(
    area: &Area<'_>,
    labels: &[Label],
    avoid: &[(i32, i32)],
    bounds: (i32, i32, i32, i32),
    outer: (i32, i32, i32, i32),
) -> Result<(), String> {
    let labels = merge_labels(labels);
    let at = place_labels_within(&labels, avoid, bounds, outer);
    for (l, (x, y)) in labels.iter().zip(at) {
        area.draw(&Text::new(
            l.text.clone(),
            (x, y),
            font_c(TEXT_PX, l.color).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Top,
            )),
        ))
        .map_err(e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot_style::WIDTH;

    #[test]
    fn labels_at_one_point_never_overprint() {
        let labels: Vec<Label> = (1..=4)
            .map(|r| Label {
                text: format!("r{r}"),
                color: BLACK,
                at: (300, 200),
            })
            .collect();
        let at = place_labels(&labels, &[(300, 200)], (0, 0, 600, 400));
        let lh = line_h(TEXT_PX);
        for i in 0..at.len() {
            let w = text_width(&labels[i].text, TEXT_PX).ceil() as i32;
            let a = (at[i].0, at[i].1, at[i].0 + w, at[i].1 + lh);
            assert!(
                !overlaps(a, (293, 193, 307, 207)),
                "label {i} covers the point"
            );
            for j in 0..i {
                let w2 = text_width(&labels[j].text, TEXT_PX).ceil() as i32;
                let b = (at[j].0, at[j].1, at[j].0 + w2, at[j].1 + lh);
                assert!(!overlaps(a, b), "labels {i} and {j} overprint: {at:?}");
            }
        }
    }

    #[test]
    fn a_legend_flows_into_rows_within_its_width() {
        let mut l = Legend::new();
        for k in 0..6 {
            l.push(format!("entry number {k}"), Mark::Line(BLACK, 2));
        }
        let (places, h) = l.layout(WIDTH);
        assert!(h > 2 * line_h(TEXT_PX) as u32);
        for ((x, _, lines), (label, _)) in places.iter().zip(&l.entries) {
            let w = text_width(&lines[0], TEXT_PX) as i32;
            assert!(x + MARK_W + w <= WIDTH as i32, "{label} runs off");
        }
    }
}

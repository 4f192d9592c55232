//! Reads back what an SVG the report wrote draws: plotters writes one
//! element a line (a text's words on the line after its tag), so plain
//! line parsing gives each element's coordinates without an XML crate.

/// One drawn element: its tag, its attributes and, for a text, its words.
#[derive(Debug, Clone)]
pub struct El {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub text: Option<String>,
}

impl El {
    /// An attribute's value, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A numeric attribute (panics naming it when absent or not a number).
    pub fn num(&self, name: &str) -> f64 {
        let v = self
            .attr(name)
            .unwrap_or_else(|| panic!("{self:?} has no {name}"));
        v.parse()
            .unwrap_or_else(|_| panic!("{self:?}: {name}={v:?} is not a number"))
    }

    /// A polyline's or polygon's points.
    pub fn points(&self) -> Vec<(f64, f64)> {
        self.attr("points")
            .unwrap_or_else(|| panic!("{self:?} has no points"))
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').expect("x,y");
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    /// Whether this is a text reading exactly `words`.
    pub fn is_text(&self, words: &str) -> bool {
        self.tag == "text" && self.text.as_deref() == Some(words)
    }
}

/// Every element of `svg`, in document order (the root `svg` left out).
pub fn elements(svg: &str) -> Vec<El> {
    let mut out: Vec<El> = Vec::new();
    let mut in_text = false;
    for line in svg.lines() {
        let line = line.trim();
        if line == "</text>" {
            in_text = false;
            continue;
        }
        if in_text {
            let last = out.last_mut().expect("a text element");
            last.text = Some(line.to_string());
            continue;
        }
        let Some(rest) = line.strip_prefix('<') else {
            continue;
        };
        if rest.starts_with('/') || rest.starts_with("svg") {
            continue;
        }
        let tag: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        let mut attrs = Vec::new();
        let mut s = &rest[tag.len()..];
        while let Some(eq) = s.find("=\"") {
            let key = s[..eq].trim().to_string();
            let after = &s[eq + 2..];
            let end = after.find('"').expect("a closing quote");
            attrs.push((key, after[..end].to_string()));
            s = &after[end + 1..];
        }
        in_text = tag == "text";
        out.push(El {
            tag,
            attrs,
            text: None,
        });
    }
    out
}

/// A drawn axis: pixel = a + b·t, t the value (its log10 on a log axis).
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    pub a: f64,
    pub b: f64,
    pub log: bool,
}

impl Axis {
    /// The least-squares line through the (pixel, value) of the tick
    /// labels; each label within a pixel of it (plotters rounds to whole
    /// pixels).
    pub fn fit(ticks: &[(f64, f64)], log: bool) -> Axis {
        assert!(ticks.len() >= 2, "an axis needs two tick labels: {ticks:?}");
        let t = |v: f64| if log { v.log10() } else { v };
        let n = ticks.len() as f64;
        let mt = ticks.iter().map(|p| t(p.1)).sum::<f64>() / n;
        let mp = ticks.iter().map(|p| p.0).sum::<f64>() / n;
        let cov: f64 = ticks.iter().map(|p| (t(p.1) - mt) * (p.0 - mp)).sum();
        let var: f64 = ticks.iter().map(|p| (t(p.1) - mt).powi(2)).sum();
        let b = cov / var;
        let axis = Axis {
            a: mp - b * mt,
            b,
            log,
        };
        for &(px, v) in ticks {
            assert!(
                (axis.px(v) - px).abs() <= 1.0,
                "tick {v} at {px} is off the fitted axis {axis:?}"
            );
        }
        axis
    }

    /// Where the value `v` is drawn.
    pub fn px(&self, v: f64) -> f64 {
        self.a + self.b * if self.log { v.log10() } else { v }
    }
}

/// The tick labels among `els` whose text-anchor is `anchor`, as (the
/// attribute `coord`, the number they print).
pub fn ticks(els: &[El], anchor: &str, coord: &str) -> Vec<(f64, f64)> {
    els.iter()
        .filter(|e| e.tag == "text" && e.attr("text-anchor") == Some(anchor))
        .filter_map(|e| Some((e.num(coord), e.text.as_deref()?.parse().ok()?)))
        .collect()
}

/// Asserts `got` is within 1.5 px of `want`.
#[track_caller]
pub fn near(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1.5,
        "{what}: drawn at {got}, the data puts it at {want:.2}"
    );
}

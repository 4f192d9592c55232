//! Shared helpers of the report's integration tests.
#![allow(dead_code)]

pub mod figure;
pub mod svg;

use std::io::Read as _;
use std::path::Path;

/// The committed results of a real short guest run (3 rounds, pfifo and
/// fq_codel; see fixtures/report/README.md).
pub fn fixture_json() -> Vec<u8> {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/report/run-uml-3rounds/results.json.gz");
    let f = std::fs::File::open(&gz).unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(f)
        .read_to_end(&mut out)
        .expect("gunzip fixture");
    out
}

/// The gunzipped results.json of `fixtures/report/<run>/`.
pub fn fixture_json_of(run: &str) -> Vec<u8> {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/report")
        .join(run)
        .join("results.json.gz");
    let f = std::fs::File::open(&gz).unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(f)
        .read_to_end(&mut out)
        .expect("gunzip fixture");
    out
}

/// A fresh, empty folder for this test, `<temp>/netlab-<tag>-<random>`,
/// removed on drop (`tempfile`, through netlab-os' test scratch folder).
pub type TempDir = netlab_os::testing::Scratch;

/// The text of file `name` among a report's rendered files: its path in
/// the results folder, or its own name when one file alone has it
/// (`km-cdf-loaded.svg` for `figures/km-cdf-loaded.svg`); a missing file
/// fails the test naming `what` (the run or fixture).
pub fn rendered_text(files: &[netlab_report::Rendered], name: &str, what: &str) -> String {
    let f = files.iter().find(|f| f.name == name).or_else(|| {
        let mut own = files
            .iter()
            .filter(|f| netlab_figures::layout::base_name(&f.name) == name);
        let f = own.next();
        assert!(own.next().is_none(), "{what}: more than one file is {name}");
        f
    });
    let f = f.unwrap_or_else(|| panic!("{what} renders no {name}"));
    String::from_utf8(f.bytes.clone()).unwrap()
}

/// A results folder holding the fixture's results.json.
pub fn fixture_folder(tag: &str) -> TempDir {
    let d = TempDir::new(tag);
    std::fs::write(d.path().join("results.json"), fixture_json()).unwrap();
    d
}

/// Whether the privileged/tool-dependent tests must fail instead of skip.
pub fn required() -> bool {
    std::env::var("NETLAB_REQUIRE_PRIVILEGED").is_ok_and(|v| v == "1")
}

/// Skips `test` because `program` (Debian's `package`) is not installed:
/// fails instead under NETLAB_REQUIRE_PRIVILEGED=1, and otherwise says so
/// and counts the skip in the run's ledger.
pub fn skip_for_missing(test: &str, program: &str, package: &str) {
    assert!(
        !required(),
        "{program} is missing and NETLAB_REQUIRE_PRIVILEGED=1: install Debian's {package} package"
    );
    eprintln!("skipping {test}: {program} is not installed");
    netlab_os::testing::record_skip(
        netlab_os::testing::Skip::Tool,
        test,
        &format!("{program} is not installed"),
    );
}

/// Share of pixels that are not (near) white in an RGBA buffer.
pub fn ink_share(rgba: &[u8]) -> f64 {
    let px = rgba.len() / 4;
    let ink = rgba
        .chunks_exact(4)
        .filter(|p| p[3] > 0 && (p[0] < 235 || p[1] < 235 || p[2] < 235))
        .count();
    ink as f64 / px.max(1) as f64
}

/// Parses an SVG and renders it; returns the share of inked pixels.
pub fn rasterize(svg: &[u8]) -> Result<f64, String> {
    let tree = resvg::usvg::Tree::from_data(svg, &resvg::usvg::Options::default())
        .map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("zero-sized SVG")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    Ok(ink_share(pixmap.data()))
}

/// A minimal CSV reader for the files we write (quoted fields with
/// doubled quotes; no line breaks inside fields).
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| {
            let mut out = Vec::new();
            let mut cur = String::new();
            let mut quoted = false;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, quoted) {
                    ('"', true) if chars.peek() == Some(&'"') => {
                        cur.push('"');
                        chars.next();
                    }
                    ('"', _) => quoted = !quoted,
                    (',', false) => out.push(std::mem::take(&mut cur)),
                    _ => cur.push(c),
                }
            }
            out.push(cur);
            out
        })
        .collect()
}

/// An SVG's text, its `<text>` elements joined by spaces (a legend wraps
/// an entry over several), with XML's escapes undone.
pub fn svg_words(svg: &str) -> String {
    let mut out = String::new();
    for part in svg.split("<text").skip(1) {
        let body = part.split_once('>').map_or("", |x| x.1);
        out.push_str(body.split("</text>").next().unwrap_or("").trim());
        out.push(' ');
    }
    out.replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&")
}

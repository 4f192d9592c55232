//! The report page in headless Chromium (Debian's `chromium`), on the
//! committed fixture of a real run: a screenshot of the top of the page has
//! drawn content; a copy of the page with a checking script appended (the
//! page itself has no script) is loaded with `--dump-dom` and reports what
//! the browser computed: the headline exists and names each arm's figures,
//! the first screen (1280×800) holds the headline and, beside it, the
//! headline figure whole, every SVG has drawn content, every text's computed font size is at least
//! 12 px, and no console error appears in Chromium's log. The same checks
//! run on one scenario's own page (`scenarios/sNN.html`): its four plots
//! drawn, its type readable, its link back to index.html resolving to the
//! page itself.
//! Skips when /usr/bin/chromium is missing, fails under
//! NETLAB_REQUIRE_PRIVILEGED=1 (CI installs it).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture_folder, ink_share, skip_for_missing, TempDir};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs Chromium headless on `url` with extra `args`; returns its stdout and
/// its log (stderr), after checking it exited 0 within 120 s.
fn chromium(url: &str, args: &[String], dir: &Path) -> (String, String) {
    let profile = TempDir::new("chromium-profile");
    let out = dir.join(format!("chromium-{}.out", args.len()));
    let log = dir.join(format!("chromium-{}.log", args.len()));
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .env("HOME", profile.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("spawn chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait chromium") {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium ran past 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "chromium failed: {text}");
    for bad in [
        "Uncaught",
        "CONSOLE",
        "net::ERR_",
        "Failed to load resource",
    ] {
        assert!(!text.contains(bad), "chromium log has {bad:?}: {text}");
    }
    (stdout, text)
}

/// Appended to a copy of the page: opens every collapsed section, then
/// writes what the browser computed into `<pre id=netlab-check>`.
const CHECK_SCRIPT: &str = r#"<script>
const out = {headline: '', svgs: [], small: [], texts: 0, first: null, back: []};
for (const a of document.querySelectorAll('a')) {
  if (a.getAttribute('href') === '../../index.html') out.back.push(a.href);
}
const h = document.getElementById('headline');
out.headline = h ? h.innerText : '';
// Where the headline and the first figure lie as the page opens (before
// any section is opened), in page pixels.
const f = document.querySelector('figure');
if (h && f) {
  const hb = h.getBoundingClientRect(), fb = f.getBoundingClientRect();
  const svg = f.querySelector('svg').getBoundingClientRect();
  out.first = {headline_top: hb.top + scrollY, headline_left: hb.left, figure: f.id,
    figure_top: fb.top + scrollY, figure_left: fb.left, svg_bottom: svg.bottom + scrollY,
    svg_right: svg.right, svg_w: svg.width};
}
for (const d of document.querySelectorAll('details')) d.open = true;
for (const svg of document.querySelectorAll('svg')) {
  const shapes = svg.querySelectorAll('path,line,polyline,polygon,rect,circle,text').length;
  const b = svg.getBoundingClientRect();
  out.svgs.push({id: svg.closest('figure') ? svg.closest('figure').id : '', shapes, w: b.width, h: b.height});
}
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const n = walker.currentNode;
  if (!n.textContent.trim() || !n.parentElement) continue;
  const el = n.parentElement;
  if (el.closest('script,style,title')) continue;
  out.texts++;
  const px = parseFloat(getComputedStyle(el).fontSize);
  if (!(px >= 12)) out.small.push({tag: el.tagName, px, text: n.textContent.trim().slice(0, 40)});
}
const pre = document.createElement('pre');
pre.id = 'netlab-check';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"#;

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn the_page_renders_in_headless_chromium_with_its_headline_and_readable_type() {
    if !Path::new(CHROMIUM).exists() {
        skip_for_missing(
            "the_page_renders_in_headless_chromium_with_its_headline_and_readable_type",
            CHROMIUM,
            "chromium",
        );
        return;
    }
    let dir = fixture_folder("browser");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();

    // 1. The page as a reader opens it: the top 2000 px (headline, tables)
    // have drawn content.
    let shot = dir.path().join("screenshot.png");
    chromium(
        &format!("file://{}", files.html.display()),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000".into(),
        ],
        dir.path(),
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).expect("screenshot is a PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (1280, 2000));
    let ink = ink_share(pixmap.data());
    assert!(ink > 0.02, "the top of the page is nearly blank ({ink:.4})");

    // 2. What the browser computed, through a checking copy of the page.
    let v = computed(&files.html, dir.path());
    let headline = v["headline"].as_str().unwrap();
    // A table first: its heading names each figure, a row per arm holds
    // them all (docs/report.md, "The headline").
    let heading = headline
        .lines()
        .find(|l| l.starts_with("arm\t"))
        .unwrap_or_else(|| panic!("no table in the headline: {headline}"));
    for figure in [
        "p50",
        "p95",
        "goodput, Mbit/s",
        "drops in window",
        "marks in window",
    ] {
        assert!(
            heading.contains(figure),
            "the table lacks {figure:?}: {heading}"
        );
    }
    for arm in ["pfifo", "fq_codel"] {
        let row = headline
            .lines()
            .find(|l| l.split('\t').next().map(|c| c.trim_end_matches(" ⚠")) == Some(arm))
            .unwrap_or_else(|| panic!("no row for {arm}: {headline}"));
        assert_eq!(row.split('\t').count(), 7, "{arm}'s row: {row}");
    }
    assert!(headline.contains("Verdict: fq_codel"), "{headline}");
    assert!(
        headline.contains("pfifo: rounds in different states, so no pooled delay"),
        "{headline}"
    );

    // 3. The first screen (1280×800) holds the headline and a figure: the
    // headline figure, drawn whole, beside the headline.
    let first = &v["first"];
    assert_eq!(first["figure"], "headline-delay-loss.svg", "{first}");
    let px = |k: &str| first[k].as_f64().unwrap_or(f64::NAN);
    assert!(px("headline_top") < 300.0, "the headline starts at {first}");
    assert!(
        px("figure_top") < 300.0,
        "the first figure starts at {first}"
    );
    assert!(
        px("svg_bottom") <= 800.0 && px("svg_right") <= 1280.0,
        "the headline figure does not fit the first screen: {first}"
    );
    assert!(
        px("svg_w") >= 500.0,
        "the headline figure is shrunk: {first}"
    );
    assert!(
        px("figure_left") > px("headline_left"),
        "the figure is not beside the headline: {first}"
    );

    // Every plot of the run is on index.html once; each scenario's own
    // four are on its page, not here.
    let own = |p: &&std::path::PathBuf| p.starts_with(dir.path().join("scenarios"));
    let run_plots = files.svgs.iter().filter(|p| !own(p)).count();
    assert_eq!(files.svgs.len() - run_plots, 4 * input.scenarios.len());
    drawn_and_readable(&v, run_plots, 100);

    // 4. One scenario's own page: its four plots drawn, readable, and its
    // link back resolving to index.html.
    assert_eq!(files.pages.len(), input.scenarios.len());
    let s = &input.scenarios[1];
    let detail = dir
        .path()
        .join(netlab_figures::layout::scenario_page(s.index));
    assert!(files.pages.contains(&detail), "{:?}", files.pages);
    let index = std::fs::read_to_string(&files.html).unwrap();
    assert!(
        index.contains(&format!(
            "<a href=\"scenarios/s{:02}/index.html\">{}</a>",
            s.index, s.index
        )),
        "index.html does not link scenario {}'s page",
        s.index
    );
    let v = computed(&detail, dir.path());
    drawn_and_readable(&v, 4, 30);
    let back = v["back"].as_array().unwrap();
    assert!(!back.is_empty(), "no link back to index.html");
    for b in back {
        assert_eq!(
            b.as_str().unwrap(),
            format!("file://{}", files.html.display()),
            "the link back does not lead to index.html"
        );
    }
}

/// What the browser computed for `page`, through a checking copy of it
/// in the same folder (so its relative links resolve as the page's do).
fn computed(page: &Path, dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(page).unwrap();
    let check = page.with_file_name("check.html");
    std::fs::write(
        &check,
        text.replace("</body>", &format!("{CHECK_SCRIPT}</body>")),
    )
    .unwrap();
    let (dom, _) = chromium(
        &format!("file://{}", check.display()),
        &["--dump-dom".into(), "--window-size=1280,2000".into()],
        dir,
    );
    std::fs::remove_file(&check).unwrap();
    let start = dom
        .find("<pre id=\"netlab-check\">")
        .unwrap_or_else(|| panic!("the checking script did not run: {dom:.2000}"));
    let body = &dom[start + "<pre id=\"netlab-check\">".len()..];
    let json = unescape(&body[..body.find("</pre>").unwrap()]);
    serde_json::from_str(&json).unwrap()
}

/// `plots` SVGs on the page, each with drawn content and a size, more than
/// `texts` texts, none below 12 px.
fn drawn_and_readable(v: &serde_json::Value, plots: usize, texts: u64) {
    let svgs = v["svgs"].as_array().unwrap();
    assert_eq!(svgs.len(), plots, "every plot is on the page once");
    for s in svgs {
        assert!(
            s["shapes"].as_u64().unwrap() > 10
                && s["w"].as_f64().unwrap() > 100.0
                && s["h"].as_f64().unwrap() > 100.0,
            "a blank or collapsed SVG: {s}"
        );
    }
    assert!(v["texts"].as_u64().unwrap() > texts);
    let small = v["small"].as_array().unwrap();
    assert!(
        small.is_empty(),
        "{} texts below 12 px, e.g. {:?}",
        small.len(),
        &small[..small.len().min(8)]
    );
}

//! The report page in headless Chromium (Debian's `chromium`): it renders
//! (a 1280×16000 screenshot with drawn content in every 2000 px band) with
//! no console error and no network request.
//! Skips when /usr/bin/chromium is missing, fails under
//! NETLAB_REQUIRE_PRIVILEGED=1 (CI installs it).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture_folder, ink_share, required, TempDir};

const CHROMIUM: &str = "/usr/bin/chromium";

#[test]
fn the_page_renders_in_headless_chromium_without_console_errors() {
    if !Path::new(CHROMIUM).exists() {
        assert!(
            !required(),
            "{CHROMIUM} is missing and NETLAB_REQUIRE_PRIVILEGED=1: install Debian's chromium package"
        );
        eprintln!("skipping: {CHROMIUM} is not installed");
        return;
    }
    let dir = fixture_folder("browser");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    let profile = TempDir::new("chromium-profile");
    let shot = dir.path().join("screenshot.png");
    let url = format!("file://{}", files.html.display());
    let log = dir.path().join("chromium.log");
    let log_file = std::fs::File::create(&log).unwrap();
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
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1280,16000")
        .arg(&url)
        .env("HOME", profile.path())
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().unwrap())
        .stderr(log_file)
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
    let png = std::fs::read(&shot).expect("screenshot written");
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).expect("screenshot is a PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (1280, 16000));
    // The page is taller than the window: every 2000 px band of it (the
    // tables at the top, then the plots) has drawn content, not a blank
    // area where a plot failed to render.
    let band = 1280 * 2000 * 4;
    for (i, chunk) in pixmap.data().chunks(band).enumerate() {
        let ink = ink_share(chunk);
        eprintln!("band {i}: ink {ink:.4}");
        // Text-only bands (tables, notes) ink a few %; plot bands, with their
        // shaded phases, far more.
        let min = if i < 2 { 0.02 } else { 0.1 };
        assert!(
            ink > min,
            "band {i} of the screenshot is nearly blank ({ink:.4})"
        );
    }
}

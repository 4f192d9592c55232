//! The report page in headless Chromium (Debian's `chromium`): it renders
//! (screenshot not blank) with no console error and no network request.
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
        .arg("--window-size=1280,2000")
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
    assert_eq!((pixmap.width(), pixmap.height()), (1280, 2000));
    let ink = ink_share(pixmap.data());
    assert!(ink > 0.03, "screenshot nearly blank ({ink:.4})");
}

//! The matrix page in a real browser: headless Chromium renders it to a PNG, which must have the window's
//! size, not be blank, and show the verdict colours. Runs when `/usr/bin/chromium` exists (`.ci/run`
//! installs it); otherwise it says why it skipped.
#![cfg(feature = "checker")]

mod report_fixture;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wirecheck::report::{self, MatrixFormat};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs Chromium headless on `page`, writing `png`; gives up after two minutes.
fn screenshot(page: &Path, png: &Path, profile: &Path) -> std::process::ExitStatus {
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
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,800")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether `pixel` is within a small distance of `rgb` (anti-aliasing, colour management).
fn near(pixel: &[u8], rgb: [u8; 3]) -> bool {
    pixel
        .iter()
        .zip(rgb)
        .all(|(a, b)| (i16::from(*a) - i16::from(b)).abs() <= 6)
}

#[test]
fn chromium_renders_the_matrix_page() {
    if !Path::new(CHROMIUM).exists() {
        println!("skipped: {CHROMIUM} is not installed (apt-get install chromium; .ci/run does)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("matrix.html");
    let png = dir.path().join("matrix.png");
    let html = report::render_matrix(&report_fixture::matrix(), MatrixFormat::Html);
    std::fs::write(&page, &html).unwrap();
    let status = screenshot(&page, &png, &dir.path().join("profile"));
    assert!(status.success(), "chromium exited with {status}");
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert!(
        bytes.len() > 10_000,
        "a real page, not a blank image: {} bytes",
        bytes.len()
    );

    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buffer).expect("a frame");
    assert_eq!((info.width, info.height), (1200, 800), "the window's size");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "colour image, got {:?}", info.color_type);
    let pixels: Vec<&[u8]> = buffer[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| &p[..3])
        .collect();
    let distinct: std::collections::BTreeSet<&[u8]> = pixels.iter().copied().collect();
    assert!(
        distinct.len() > 20,
        "text and colours, not one flat colour: {} colours",
        distinct.len()
    );
    // The verdict colours of the stylesheet: compatible (#c9f0d1), breaking (#ffc9c4), allowed (#fff1b8).
    for (name, rgb) in [
        ("compatible", [0xc9, 0xf0, 0xd1]),
        ("breaking", [0xff, 0xc9, 0xc4]),
        ("allowed", [0xff, 0xf1, 0xb8]),
    ] {
        let count = pixels.iter().filter(|p| near(p, rgb)).count();
        assert!(count > 500, "{name} cells are painted: {count} pixels");
    }
    if let Ok(keep) = std::env::var("WIRECHECK_KEEP_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}

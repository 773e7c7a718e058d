//! Every output format, snapshot-tested on the same report (`tests/report_fixture`; SARIF in
//! `tests/report_sarif.rs`), and the matrix formats on the same matrix.
#![cfg(feature = "checker")]

mod report_fixture;

use wirecheck::report::{self, MatrixFormat, OutputFormat, RenderOptions};

fn render(format: OutputFormat) -> String {
    let text = report::render(&report_fixture::report(), format);
    assert_eq!(
        text,
        report::render(&report_fixture::report(), format),
        "deterministic"
    );
    text
}

#[test]
fn human() {
    insta::assert_snapshot!(render(OutputFormat::Human));
}

#[test]
fn human_colours_only_when_asked() {
    let plain = render(OutputFormat::Human);
    assert!(!plain.contains('\x1b'), "no escape codes without colour");
    let styled = report::render_with(
        &report_fixture::report(),
        OutputFormat::Human,
        &RenderOptions { color: true },
    );
    assert!(styled.contains("\x1b["), "colours when asked");
}

#[test]
fn human_without_sources_falls_back_to_paths() {
    let mut r = report_fixture::report();
    r.sources.clear();
    let text = report::render(&r, OutputFormat::Human);
    assert!(text.contains("--> v0.87.0:src/sched.rs:12:9"), "{text}");
    assert!(
        !text.contains("pub t_submit"),
        "no snippet without the text"
    );
}

#[test]
fn json() {
    let text = render(OutputFormat::Json);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        value.get("sources").is_none(),
        "the sources stay out of JSON"
    );
    assert_eq!(value["allow_notes"][0]["kind"], "unused");
    insta::assert_snapshot!(text);
}

#[test]
fn github() {
    insta::assert_snapshot!(render(OutputFormat::Github));
}

#[test]
fn junit() {
    insta::assert_snapshot!(render(OutputFormat::Junit));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render(OutputFormat::Markdown));
}

#[test]
fn matrix_markdown() {
    insta::assert_snapshot!(report::render_matrix(
        &report_fixture::matrix(),
        MatrixFormat::Markdown
    ));
}

#[test]
fn matrix_json() {
    insta::assert_snapshot!(report::render_matrix(
        &report_fixture::matrix(),
        MatrixFormat::Json
    ));
}

#[test]
fn matrix_html() {
    let html = report::render_matrix(&report_fixture::matrix(), MatrixFormat::Html);
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("<script"),
        "self-contained: no network, no script"
    );
    insta::assert_snapshot!(html);
}

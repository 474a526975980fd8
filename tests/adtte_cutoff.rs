//! ADTTE is used as given; at a cut-off, a record dated after it becomes censored at the
//! cut-off with AVAL recomputed from STARTDT (SPEC §4), in the file's own day-count convention.

use std::path::PathBuf;

use assert_cmd::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `readout build CONFIG --out OUT ARGS...`, run from the repository root.
fn build(config: &str, out: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("readout")
        .expect("binary")
        .args(["build", config])
        .args(args)
        .arg("--out")
        .arg(out)
        .current_dir(root())
        .output()
        .expect("run")
}

fn derived(out: &std::path::Path, cutoff: &str) -> Vec<String> {
    std::fs::read_to_string(out.join("ADTTE-CUT").join(cutoff).join("derived/all.csv"))
        .expect("derived")
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
        .collect()
}

#[test]
fn records_after_the_cutoff_are_censored_at_it() {
    let out = tempfile::tempdir().expect("temp");
    let run = build(
        "tests/fixtures/adtte-cut/study.yaml",
        out.path(),
        &["--quiet", "--cutoff", "2021-06-30"],
    );
    assert!(run.status.success(), "{run:?}");
    // A1: event on day 100, before the cut-off: kept. A2 (event 2021-10-27) and A3 (censored
    // 2021-07-19) are after it: censored at 2021-06-30, day 180 + 1 = 181 as the file counts
    // (AVAL = ADT − STARTDT + 1).
    assert_eq!(
        derived(out.path(), "2021-06-30"),
        ["A1,,100,0", "A2,,181,1", "A3,,181,1"]
    );

    let run = build(
        "tests/fixtures/adtte-cut/study.yaml",
        out.path(),
        &["--quiet"],
    );
    assert!(run.status.success(), "{run:?}");
    assert_eq!(
        derived(out.path(), "no-cutoff"),
        ["A1,,100,0", "A2,,300,0", "A3,,200,1"]
    );
}

#[test]
fn a_cutoff_without_adtte_dates_is_an_error() {
    let out = tempfile::tempdir().expect("temp");
    let output = build(
        "tests/fixtures/adtte-cut/no-dates.yaml",
        out.path(),
        &["--cutoff", "2021-06-30"],
    );
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(err.contains("STARTDT") && err.contains("A1"), "{err}");
    assert!(
        !out.path().join("ADTTE-NODATES").exists(),
        "nothing written"
    );
}

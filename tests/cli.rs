//! The command line on bad input: one clear message (file, line/column or key, value,
//! expectation), exit code 2, nothing written. Messages are snapshotted.

use crate::common::{readout_command, root, Run};

/// Runs `readout check` on a fixture and returns its stderr, after checking the exit code.
fn check_fails(fixture: &str) -> String {
    let output = readout_command()
        .args([
            "check",
            &format!("tests/fixtures/invalid/{fixture}/study.yaml"),
        ])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2), "{fixture}: exit code");
    assert!(
        output.stdout.is_empty(),
        "{fixture}: nothing reported as buildable"
    );
    String::from_utf8(output.stderr).expect("utf-8")
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let err = check_fails("unknown-key");
    assert!(err.contains("unknown-key/study.yaml"), "{err}");
    assert!(err.contains("line 7"), "{err}");
    assert!(err.contains("km_cl"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn missing_file_names_the_path() {
    let err = check_fails("missing-file");
    assert!(err.contains("no-such-file.csv"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn missing_column_names_the_column_and_the_header() {
    let err = check_fails("missing-column");
    assert!(err.contains("`USUBJID`"), "{err}");
    assert!(err.contains("SUBJID, TRTSDT"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn bad_date_names_line_column_and_value() {
    let err = check_fails("bad-date");
    assert!(err.contains("line 3, column `TRTSDT`"), "{err}");
    assert!(err.contains("04/01/2021"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn duplicate_cohort_ids_are_refused() {
    let err = check_fails("duplicate-cohort");
    assert!(err.contains("cohorts[1].id"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn check_reports_what_build_would_write_and_writes_nothing() {
    let output = readout_command()
        .args(["check", "config/altn-ak105-ii-01.yaml"])
        .current_dir(root())
        .output()
        .expect("run");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("cohort-1         38 subjects"), "{text}");
    assert!(text.contains("2022-10-20"), "{text}");
}

#[test]
fn init_writes_a_starter_study_that_checks() {
    let dir = tempfile::tempdir().expect("temp");
    let study = dir.path().join("new-study");
    readout_command().arg("init").arg(&study).assert().success();
    assert!(study.join("study.yaml").is_file());
    assert!(study.join("data/adsl.csv").is_file());
    // The starter config parses; its empty ADSL is reported as such.
    let output = readout_command()
        .arg("check")
        .arg(study.join("study.yaml"))
        .output()
        .expect("run");
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        err.contains("adsl.csv") && err.contains("no data rows"),
        "{err}"
    );
    // The starter shows the comparison keys and a randomised cohort (commented), which parse
    // when uncommented; ADTTE has its header.
    let starter = std::fs::read_to_string(study.join("study.yaml")).expect("starter");
    for key in [
        "cox_ties:",
        "diff_ci:",
        "response_test:",
        "#   arms:",
        "#     labels:",
        "  adex:",
        "  disposition:",
        "    title:",
        "#   strata:",
        "#   subgroups:",
    ] {
        assert!(starter.contains(key), "{key} not in the starter");
    }
    let adtte = std::fs::read_to_string(study.join("data/adtte.csv")).expect("ADTTE header");
    assert!(
        adtte.starts_with("USUBJID,PARAMCD,PARAM,AVAL,AVALU,CNSR,"),
        "{adtte}"
    );
    let uncommented: String = starter
        .lines()
        .map(|l| match l.strip_prefix("  # ") {
            Some(rest) if rest.starts_with("- ") || rest.starts_with("  ") => format!("  {rest}"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(uncommented.contains("  - id: itt"), "{uncommented}");
    let parsed = readout::config::parse(std::path::Path::new("study.yaml"), uncommented.as_bytes())
        .expect("the uncommented randomised cohort parses");
    let itt = parsed.cohorts.iter().find(|c| c.id == "itt").expect("itt");
    assert_eq!(itt.strata[0].label.as_deref(), Some("region"));
    let arms = itt.arms.as_ref().expect("arms");
    assert_eq!(
        arms.labels.get("Drug X").map(|l| l.names()),
        Some(("Drug X plus dexamethasone", "Xd"))
    );
    // A second init does not overwrite.
    readout_command().arg("init").arg(&study).assert().code(2);
}

#[test]
fn help_explains_every_option() {
    for cmd in ["build", "check", "init"] {
        let output = readout_command()
            .args([cmd, "--help"])
            .output()
            .expect("run");
        assert!(output.status.success());
        let text = String::from_utf8(output.stdout).expect("utf-8");
        assert!(text.contains("Usage: readout"), "{text}");
        if cmd != "init" {
            assert!(text.contains("--cutoff"), "{text}");
        }
    }
    // diff names every file it writes, the Word redline too.
    let output = readout_command()
        .args(["diff", "--help"])
        .output()
        .expect("run");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        text.contains(".md and .html")
            && text.contains(".docx")
            && text.contains("tracked changes"),
        "{text}"
    );
}

/// The binary keeps the memory a small build frees (mimalloc's purge delay set to never, by
/// its option number in main.rs): the example study purged about 60 MiB with
/// mimalloc's default. Read from mimalloc's own statistics, so a mimalloc whose option
/// numbers moved fails here.
#[test]
fn a_small_build_keeps_the_memory_it_frees() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let run = crate::common::readout_with(
        &[
            "build".as_ref(),
            root().join("config/altn-ak105-ii-01.yaml").as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
        ],
        &[("MIMALLOC_SHOW_STATS", "1")],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let purged: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("purged"))
        .collect();
    assert_eq!(purged.len(), 1, "{}", run.stderr);
    assert_eq!(
        purged[0].split(':').nth(1).map(str::trim),
        Some("0"),
        "{}",
        purged[0]
    );
}

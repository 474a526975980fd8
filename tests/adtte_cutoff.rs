//! ADTTE is used as given; at a cut-off, a record dated after it becomes censored at the
//! cut-off with AVAL recomputed from STARTDT (SPEC §4), in the file's own day-count convention.

use crate::common::{readout_command, root};

/// `readout build CONFIG --out OUT ARGS...`, run from the repository root.
fn build(config: &str, out: &std::path::Path, args: &[&str]) -> std::process::Output {
    readout_command()
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

/// A cohort whose derived CSV is over the file writer's piece (60,000 subjects, over 2 MB,
/// given to the file 1 MiB at a time): every subject once, in ADSL order, with its ADTTE time
/// and CNSR; the manifest's SHA-256 is that of the file as written, and `--strict` (built in
/// memory) writes the same.
#[test]
fn a_large_derived_csv_is_written_whole_in_pieces() {
    let dir = tempfile::tempdir().expect("temp");
    let n = 60_000;
    let mut adsl = String::from("USUBJID,TRTSDT\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
    for i in 0..n {
        adsl += &format!("LARGE-STUDY-SUBJECT-{i:06},2020-01-01\n");
        adtte += &format!("LARGE-STUDY-SUBJECT-{i:06},OS,{},{}\n", 1 + i % 997, i % 3);
    }
    std::fs::write(dir.path().join("adsl.csv"), adsl).expect("write");
    std::fs::write(dir.path().join("adtte.csv"), adtte).expect("write");
    let config = dir.path().join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: LARGE }\ndata: { adsl: adsl.csv, adtte: adtte.csv }\n\
         analysis: { tte_params: { OS: OS }, time_unit: days }\n\
         output: { formats: [md], conference: asco }\ncohorts:\n  - { id: all }\n",
    )
    .expect("write");
    let mut written = Vec::new();
    for strict in [false, true] {
        let out = dir.path().join(format!("out-{strict}"));
        let mut args = vec!["--quiet"];
        if strict {
            args.push("--strict");
        }
        let run = build(config.to_str().expect("utf-8"), &out, &args);
        assert!(run.status.success(), "{run:?}");
        let folder = out.join("LARGE/no-cutoff");
        let bytes = std::fs::read(folder.join("derived/all.csv")).expect("derived");
        assert!(bytes.len() > 2 << 20, "several pieces: {}", bytes.len());
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(rows.len(), n);
        for (i, row) in rows.iter().enumerate() {
            let cells: Vec<&str> = row.split(',').collect();
            assert_eq!(
                cells[..4],
                [
                    format!("LARGE-STUDY-SUBJECT-{i:06}").as_str(),
                    "",
                    (1 + i % 997).to_string().as_str(),
                    if i % 3 == 0 { "0" } else { "1" }
                ],
                "row {i}"
            );
        }
        let manifest = std::fs::read_to_string(folder.join("manifest.json")).expect("manifest");
        let sha = readout::load::sha256_hex(&bytes);
        assert!(manifest.contains(&sha), "manifest names the file's SHA-256");
        written.push(bytes);
    }
    assert_eq!(
        written[0], written[1],
        "streamed and in-memory builds agree"
    );
}

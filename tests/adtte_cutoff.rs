//! ADTTE is used as given; at a cut-off, a record dated after it becomes censored at the
//! cut-off with AVAL recomputed from STARTDT (SPEC §4), in the file's own day-count convention.

use std::path::Path;

use crate::common::build;

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
        Path::new("tests/fixtures/adtte-cut/study.yaml"),
        out.path(),
        &["--quiet", "--cutoff", "2021-06-30"],
    );
    assert!(run.code == Some(0), "{}", run.stderr);
    // A1: event on day 100, before the cut-off: kept. A2 (event 2021-10-27) and A3 (censored
    // 2021-07-19) are after it: censored at 2021-06-30, day 180 + 1 = 181 as the file counts
    // (AVAL = ADT − STARTDT + 1).
    assert_eq!(
        derived(out.path(), "2021-06-30"),
        ["A1,,100,0", "A2,,181,1", "A3,,181,1"]
    );

    let run = build(
        Path::new("tests/fixtures/adtte-cut/study.yaml"),
        out.path(),
        &["--quiet"],
    );
    assert!(run.code == Some(0), "{}", run.stderr);
    assert_eq!(
        derived(out.path(), "no-cutoff"),
        ["A1,,100,0", "A2,,300,0", "A3,,200,1"]
    );
}

#[test]
fn a_cutoff_without_adtte_dates_is_an_error() {
    let out = tempfile::tempdir().expect("temp");
    let output = build(
        Path::new("tests/fixtures/adtte-cut/no-dates.yaml"),
        out.path(),
        &["--cutoff", "2021-06-30"],
    );
    assert_eq!(output.code, Some(2));
    let err = output.stderr;
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
         output: { formats: [md], conference: asco }\ncohorts:\n  - { id: all, background: Synthetic. }\n",
    )
    .expect("write");
    let mut written = Vec::new();
    for strict in [false, true] {
        let out = dir.path().join(format!("out-{strict}"));
        let mut args = vec!["--quiet"];
        if strict {
            args.push("--strict");
        }
        let run = build(Path::new(config.to_str().expect("utf-8")), &out, &args);
        assert!(run.code == Some(0), "{}", run.stderr);
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

/// One trial as two sponsors' snapshots would hold it (issue 40): each subject's true course
/// (visits every 56 days with a jitter, a progression and a death on some), written as ADSL,
/// ADRS and ADTTE as known at a data cut-off: PFS and DoR censored at the last adequate
/// assessment on or before it, OS at the cut-off (the sponsor's survival sweep finds everyone
/// alive then), AVAL = ADT − STARTDT + 1.
pub(crate) struct Trial {
    subjects: Vec<Course>,
}

struct Course {
    id: String,
    arm: &'static str,
    start: chrono::NaiveDate,
    /// (date, response) of every scheduled assessment, ever.
    visits: Vec<(chrono::NaiveDate, &'static str)>,
    death: Option<chrono::NaiveDate>,
}

impl Trial {
    pub(crate) fn new(n: usize) -> Trial {
        let day = |d: i64| {
            chrono::NaiveDate::from_ymd_opt(2021, 1, 4).expect("date") + chrono::Duration::days(d)
        };
        // A fixed linear congruential sequence: the same trial every run.
        let mut seed: u64 = 40;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let subjects = (0..n)
            .map(|i| {
                let arm = if i % 2 == 0 { "Drug" } else { "Placebo" };
                let start = day(next(300) as i64);
                // Progression after 2 to 12 visits for most; a responder (two PRs) on some.
                let pd_visit = if next(10) < 8 {
                    Some(2 + next(if arm == "Drug" { 14 } else { 8 }))
                } else {
                    None
                };
                let responds = next(10) < if arm == "Drug" { 5 } else { 3 };
                let mut visits = Vec::new();
                for v in 1..=30u64 {
                    let date = start + chrono::Duration::days((56 * v + next(9)) as i64 - 4);
                    let response = match pd_visit {
                        Some(p) if v == p => "PD",
                        Some(p) if v > p => break,
                        _ if responds && v >= 2 => "PR",
                        _ if next(20) == 0 => "NE",
                        _ => "SD",
                    };
                    visits.push((date, response));
                }
                // Deaths: some after progression, a few before any (no visit missed by more
                // than the 91-day window, so PFS is never censored by it).
                let death = match pd_visit {
                    Some(_) if next(3) == 0 => visits
                        .last()
                        .map(|(d, _)| *d + chrono::Duration::days(20 + next(200) as i64)),
                    None if next(10) == 0 => {
                        Some(start + chrono::Duration::days(30 + next(20) as i64))
                    }
                    _ => None,
                };
                if let (Some(died), None) = (death, pd_visit) {
                    visits.retain(|(d, _)| *d < died);
                }
                Course {
                    id: format!("S{i:04}"),
                    arm,
                    start,
                    visits,
                    death,
                }
            })
            .collect();
        Trial { subjects }
    }

    /// ADSL, ADRS and ADTTE as known at `dco`, into `dir`.
    pub(crate) fn snapshot(&self, dir: &std::path::Path, dco: chrono::NaiveDate) {
        let mut adsl = String::from("USUBJID,ARM,TRTSDT,DTHDT,LSTALVDT\n");
        let mut adrs = String::from("USUBJID,PARAMCD,ADT,AVALC\n");
        let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR,STARTDT,ADT\n");
        let aval = |from: chrono::NaiveDate, to: chrono::NaiveDate| (to - from).num_days() + 1;
        for s in self.subjects.iter().filter(|s| s.start <= dco) {
            let died = s.death.filter(|d| *d <= dco);
            let alive = died.unwrap_or(dco);
            let text = |d: Option<chrono::NaiveDate>| d.map(|d| d.to_string()).unwrap_or_default();
            adsl += &format!("{},{},{},{},{}\n", s.id, s.arm, s.start, text(died), alive);
            let seen: Vec<&(chrono::NaiveDate, &str)> =
                s.visits.iter().filter(|(d, _)| *d <= dco).collect();
            for (d, r) in &seen {
                adrs += &format!("{},OVR,{d},{r}\n", s.id);
            }
            let adequate = |from: chrono::NaiveDate| {
                seen.iter()
                    .filter(|(d, r)| *r != "PD" && *r != "NE" && *d >= from)
                    .map(|(d, _)| *d)
                    .max()
                    .unwrap_or(from)
            };
            let pd = seen.iter().find(|(_, r)| *r == "PD").map(|(d, _)| *d);
            let event = match (pd, died) {
                (Some(p), Some(d)) => Some(p.min(d)),
                (p, d) => p.or(d),
            };
            let mut record =
                |param: &str, from: chrono::NaiveDate, event: Option<chrono::NaiveDate>| {
                    let (date, cnsr) = match event {
                        Some(e) => (e, 0),
                        None => (adequate(from), 1),
                    };
                    adtte += &format!(
                        "{},{param},{},{cnsr},{from},{date}\n",
                        s.id,
                        aval(from, date)
                    );
                };
            record("PFS", s.start, event);
            // Responders: two PRs at least 28 days apart, by the cut-off.
            let prs: Vec<chrono::NaiveDate> = seen
                .iter()
                .filter(|(_, r)| *r == "PR")
                .map(|(d, _)| *d)
                .collect();
            if prs.len() >= 2 && (prs[prs.len() - 1] - prs[0]).num_days() >= 28 {
                record("DOR", prs[0], event);
            }
            let (date, cnsr) = match died {
                Some(d) => (d, 0),
                None => (dco, 1),
            };
            adtte += &format!(
                "{},OS,{},{cnsr},{},{date}\n",
                s.id,
                aval(s.start, date),
                s.start
            );
        }
        std::fs::create_dir_all(dir).expect("dir");
        std::fs::write(dir.join("adsl.csv"), adsl).expect("adsl");
        std::fs::write(dir.join("adrs.csv"), adrs).expect("adrs");
        std::fs::write(dir.join("adtte.csv"), adtte).expect("adtte");
        std::fs::write(
            dir.join("study.yaml"),
            "study: { id: SNAP }\ndata: { adsl: adsl.csv, adrs: adrs.csv, adtte: adtte.csv }\n\
             analysis: { time_unit: months }\noutput: { formats: [md] }\n\
             cohorts:\n  - { id: itt, arms: { column: ARM, reference: Placebo } }\n",
        )
        .expect("config");
    }
}

/// The time-to-event numbers of each arm in a results.json: (arm, endpoint, n, events, median
/// and its limits).
fn arm_tte(results: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for arm in results["cohorts"][0]["arms"].as_array().expect("arms") {
        for (endpoint, t) in arm["tte"].as_object().expect("tte") {
            out.push(format!(
                "{} {endpoint}: n {} events {} median {} ({}, {})",
                arm["arm"],
                t["n"],
                t["events"],
                t["median"]["estimate"],
                t["median"]["lower"],
                t["median"]["upper"]
            ));
        }
    }
    out
}

/// Cutting a later snapshot at an earlier cut-off gives what the earlier snapshot gives (SPEC
/// §4, corrected in issue 40): the same PFS, DoR and OS times per subject, the same events and
/// medians per arm. PFS and DoR records after the cut-off are censored at the last adequate
/// assessment before it (it censored them at the cut-off: every censored PFS grew).
#[test]
fn a_later_snapshot_cut_at_an_earlier_date_is_the_earlier_snapshot() {
    let tmp = tempfile::tempdir().expect("temp");
    let trial = Trial::new(400);
    let dco1 = chrono::NaiveDate::from_ymd_opt(2022, 3, 31).expect("date");
    let dco2 = chrono::NaiveDate::from_ymd_opt(2023, 6, 30).expect("date");
    trial.snapshot(&tmp.path().join("dco1"), dco1);
    trial.snapshot(&tmp.path().join("dco2"), dco2);
    let run = |snapshot: &str, cutoff: &str| {
        let out = tmp.path().join(format!("out-{snapshot}"));
        let config = tmp.path().join(snapshot).join("study.yaml");
        let ran = build(
            Path::new(config.to_str().expect("utf-8")),
            &out,
            &["--quiet", "--cutoff", cutoff],
        );
        assert!(ran.code == Some(0), "{}", ran.stderr);
        let folder = out.join("SNAP").join(cutoff);
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("results.json")).expect("results"),
        )
        .expect("json");
        let derived = std::fs::read_to_string(folder.join("derived/itt.csv")).expect("derived");
        (arm_tte(&results), derived)
    };
    let (earlier, earlier_rows) = run("dco1", "2022-03-31");
    let (cut, cut_rows) = run("dco2", "2022-03-31");
    assert_eq!(cut, earlier);
    assert_eq!(cut_rows, earlier_rows);
    // The later snapshot itself differs: more events.
    let (later, _) = run("dco2", "2023-06-30");
    assert_ne!(later, earlier);
    assert!(earlier.iter().any(|l| l.contains("DOR")), "{earlier:?}");

    // Without ADRS, a PFS record after the cut-off cannot be censored at the last adequate
    // assessment: an error naming the key, and the way out.
    let config = tmp.path().join("dco2/no-adrs.yaml");
    std::fs::write(
        &config,
        "study: { id: SNAP }\ndata: { adsl: adsl.csv, adtte: adtte.csv }\n\
         analysis: { tte_params: { PFS: PFS, OS: OS } }\noutput: { formats: [md] }\n\
         cohorts:\n  - { id: itt }\n",
    )
    .expect("config");
    let ran = build(
        Path::new(config.to_str().expect("utf-8")),
        &tmp.path().join("out-x"),
        &["--cutoff", "2022-03-31"],
    );
    assert_eq!(ran.code, Some(2));
    let said = &ran.stderr;
    assert!(
        said.contains("key `analysis.tte_params.PFS`")
            && said.contains("censor: cutoff")
            && said.contains("no ADRS"),
        "{said}"
    );
    // Saying so censors PFS at the cut-off.
    std::fs::write(
        &config,
        "study: { id: SNAP }\ndata: { adsl: adsl.csv, adtte: adtte.csv }\n\
         analysis: { tte_params: { PFS: { paramcd: PFS, censor: cutoff }, OS: OS } }\noutput: { formats: [md] }\n\
         cohorts:\n  - { id: itt }\n",
    )
    .expect("config");
    let ran = build(
        Path::new(config.to_str().expect("utf-8")),
        &tmp.path().join("out-y"),
        &["--quiet", "--cutoff", "2022-03-31"],
    );
    assert!(ran.code == Some(0), "{}", ran.stderr);
}

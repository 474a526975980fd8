//! A randomised trial read as its SAP reads it (issue 67; docs/CONFIG.md `analysis.origin`,
//! `assessment_schedule`, `rmst_tau_beyond`, "Data cut-off"): time from randomisation with
//! every randomised subject kept, rules that see only what was known at the cut-off, the
//! schedule's missed assessments, one spelling per term, bounds and dates as printed in
//! tables.xlsx, the reader column named when ADRS holds two readers, and the starter config.
//! The expected values are computed here from the data files, not by readout's code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use readout::derive::schedule::{Schedule, Stretch};
use readout::derive::{progression_free_survival, PfsOptions, TteRule};
use readout::model::{Assessment, Date, Response, Subject};

use crate::common::{build, read_json, readout, readout_command, root, Run};

type Row = BTreeMap<String, String>;

fn rows(text: &str) -> Vec<Row> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.expect("row").iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn write_rows(path: &Path, header: &[String], rows: &[Row]) {
    let mut out = csv::Writer::from_path(path).expect("csv");
    out.write_record(header).expect("header");
    for r in rows {
        out.write_record(header.iter().map(|h| r.get(h).map_or("", String::as_str)))
            .expect("row");
    }
    out.flush().expect("flush");
}

fn header_of(text: &str) -> Vec<String> {
    text.lines()
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::to_string)
        .collect()
}

fn example(file: &str) -> String {
    std::fs::read_to_string(root().join("data/rand-example").join(file)).expect("example data")
}

/// The randomised example's ADSL, ADRS and ADAE (no ADTTE: PFS and OS derived) in `dir`,
/// ADSL through `adsl`, and a config with `analysis` and `output` lines added.
fn derived_study(
    dir: &Path,
    adsl: &dyn Fn(Vec<Row>) -> Vec<Row>,
    analysis: &str,
    output: &str,
) -> PathBuf {
    let text = example("adsl.csv");
    let mut header = header_of(&text);
    let edited = adsl(rows(&text));
    for r in &edited {
        for k in r.keys() {
            if !header.contains(k) {
                header.push(k.clone());
            }
        }
    }
    write_rows(&dir.join("adsl.csv"), &header, &edited);
    for file in ["adrs.csv", "adae.csv"] {
        std::fs::write(dir.join(file), example(file)).expect("write");
    }
    let config = format!(
        "study: {{ id: SAP }}\ndata: {{ adsl: adsl.csv, adrs: adrs.csv, adae: adae.csv, efficacy_flag: ITTFL }}\n\
         analysis:\n  tte_params: {{ PFS: PFS, OS: OS }}\n{analysis}\
         cohorts:\n  - id: itt\n    arms: {{ column: ARM, reference: \"Placebo + chemo\" }}\n\
         output: {{ formats: [md, html{output}] }}\n"
    );
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

fn date(text: &str) -> Option<Date> {
    (!text.is_empty()).then(|| text.parse().expect("date"))
}

const MONTH: f64 = 30.4375;

/// OS and PFS start at randomisation in a randomised cohort, and every randomised subject is
/// in them, the never-treated included: OS recomputed here from ADSL (randomisation to death,
/// else to the last date known alive, moved later by a later assessment or adverse event).
#[test]
fn a_randomised_cohort_is_analysed_from_randomisation_with_every_itt_subject() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = derived_study(tmp.path(), &|r| r, "", "");
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let adsl = rows(&example("adsl.csv"));
    let untreated: Vec<&Row> = adsl.iter().filter(|r| r["TRTSDT"].is_empty()).collect();
    assert_eq!(untreated.len(), 2);
    assert!(adsl
        .iter()
        .any(|r| r["RANDDT"] != r["TRTSDT"] && !r["TRTSDT"].is_empty()));
    // The latest date each subject is seen: assessments and adverse events.
    let mut seen: BTreeMap<String, Date> = BTreeMap::new();
    for (file, column) in [("adrs.csv", "ADT"), ("adae.csv", "ASTDT")] {
        for r in rows(&example(file)) {
            if let Some(d) = date(&r[column]) {
                let e = seen.entry(r["USUBJID"].clone()).or_insert(d);
                *e = (*e).max(d);
            }
        }
    }
    let folder = out.join("SAP/no-cutoff");
    let derived = rows(&std::fs::read_to_string(folder.join("derived/itt.csv")).expect("derived"));
    assert_eq!(derived.len(), adsl.len());
    let by_id: BTreeMap<&str, &Row> = derived.iter().map(|r| (r["USUBJID"].as_str(), r)).collect();
    let mut deaths = 0;
    for s in &adsl {
        let origin = date(&s["RANDDT"]).expect("RANDDT");
        let (end, cnsr) = match date(&s["DTHDT"]) {
            Some(d) => {
                deaths += 1;
                (d, "0")
            }
            None => {
                let alive = date(&s["LSTALVDT"]).expect("LSTALVDT");
                let later = seen.get(&s["USUBJID"]).copied().filter(|d| *d > alive);
                (later.unwrap_or(alive).max(origin), "1")
            }
        };
        let expected = ((end - origin).num_days() + 1) as f64 / MONTH;
        let d = by_id[s["USUBJID"].as_str()];
        let got: f64 = d["OS_AVAL"].parse().expect("OS_AVAL");
        assert!(
            (got - expected).abs() < 1e-9,
            "{}: {got} vs {expected}",
            s["USUBJID"]
        );
        assert_eq!(d["OS_CNSR"], cnsr, "{}", s["USUBJID"]);
    }
    let results = read_json(&folder.join("results.json"));
    let c = &results["cohorts"][0];
    assert_eq!(c["tte"]["OS"]["n"].as_u64(), Some(adsl.len() as u64));
    assert_eq!(c["tte"]["OS"]["events"].as_u64(), Some(deaths));
    assert_eq!(c["tte"]["PFS"]["n"].as_u64(), Some(adsl.len() as u64));
    assert_eq!(c["n"]["efficacy_untreated"].as_u64(), Some(2));
    // The never-treated without an assessment: PFS censored at randomisation, day 1; NE.
    let assessed: BTreeSet<String> = rows(&example("adrs.csv"))
        .into_iter()
        .map(|r| r["USUBJID"].clone())
        .collect();
    for s in untreated
        .iter()
        .filter(|s| !assessed.contains(&s["USUBJID"]))
    {
        let d = by_id[s["USUBJID"].as_str()];
        assert_eq!(d["PFS_CNSR"], "1");
        let days: f64 = d["PFS_AVAL"].parse::<f64>().expect("PFS") * MONTH;
        assert!((days - 1.0).abs() < 1e-9, "{days}");
    }
    assert!(
        run.stderr
            .contains("never treated (no TRTSDT) are analysed in PFS and OS from randomisation"),
        "{}",
        run.stderr
    );
    let report = std::fs::read_to_string(folder.join("itt/report.html")).expect("report");
    assert!(
        report.contains(
            "Progression-free survival and overall survival were measured from randomisation (RANDDT)."
        ),
        "Methods do not say the origin"
    );
    // Without RANDDT: from the first dose, with a warning naming the fallback.
    let tmp = tempfile::tempdir().expect("temp dir");
    let without = |rows: Vec<Row>| -> Vec<Row> {
        rows.into_iter()
            .map(|mut r| {
                r.remove("RANDDT");
                r
            })
            .collect()
    };
    let text = example("adsl.csv");
    let header: Vec<String> = header_of(&text)
        .into_iter()
        .filter(|h| h != "RANDDT")
        .collect();
    let path = derived_study(tmp.path(), &without, "", "");
    write_rows(&tmp.path().join("adsl.csv"), &header, &without(rows(&text)));
    let run = build(&path, &tmp.path().join("out"), &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("ADSL has no RANDDT, so PFS and OS derived from ADRS and ADSL start at the first dose (TRTSDT)"), "{}", run.stderr);
}

/// A later snapshot cut at an earlier date gives what that date's snapshot gives: a start of
/// new anticancer therapy after the cut-off did not exist then.
#[test]
fn a_later_snapshot_cut_back_gives_the_earlier_new_therapy_labels() {
    let cutoff = "2022-09-30";
    // New therapy 60 days after each subject's first assessment (many after the cut-off).
    let first: BTreeMap<String, Date> = {
        let mut m = BTreeMap::new();
        for r in rows(&example("adrs.csv")) {
            let d = date(&r["ADT"]).expect("ADT");
            let e = m.entry(r["USUBJID"].clone()).or_insert(d);
            *e = (*e).min(d);
        }
        m
    };
    let with_nact = |blank_after: bool| {
        let first = first.clone();
        move |rows: Vec<Row>| -> Vec<Row> {
            rows.into_iter()
                .map(|mut r| {
                    let started = first
                        .get(&r["USUBJID"])
                        .map(|d| *d + chrono::Duration::days(60));
                    let cut: Date = cutoff.parse().expect("date");
                    let text = match started {
                        Some(d) if !(blank_after && d > cut) => d.to_string(),
                        _ => String::new(),
                    };
                    r.insert("NACTDT".to_string(), text);
                    r
                })
                .collect()
        }
    };
    let later = with_nact(false);
    let known = with_nact(true);
    let analysis = "  censor_at_new_therapy: { column: NACTDT }\n";
    let derived_at = |edit: &dyn Fn(Vec<Row>) -> Vec<Row>| {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = derived_study(tmp.path(), edit, analysis, "");
        let out = tmp.path().join("out");
        let run = build(&path, &out, &["--cutoff", cutoff]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let folder = out.join("SAP").join(cutoff);
        let derived = std::fs::read_to_string(folder.join("derived/itt.csv")).expect("derived");
        let results = read_json(&folder.join("results.json"));
        (
            derived,
            results["cohorts"][0]["tte"]["PFS"]["censored_new_therapy"].clone(),
        )
    };
    let (from_later, count_later) = derived_at(&later);
    let (from_known, count_known) = derived_at(&known);
    assert_eq!(count_later, count_known);
    assert_eq!(from_later, from_known);
    // Not vacuous: subjects enrolled by the cut-off started new therapy after it.
    let cut: Date = cutoff.parse().expect("date");
    let after = first
        .values()
        .filter(|d| **d <= cut && **d + chrono::Duration::days(60) > cut)
        .count();
    assert!(after >= 5, "{after}");
    assert!(count_known.as_u64().expect("count") > 0);
}

fn subject(start: &str) -> Subject {
    Subject {
        trt_start: Some(start.parse().expect("date")),
        ..Subject::placeholder()
    }
}

fn at(s: &Subject, day: i64, response: Response) -> Assessment {
    Assessment {
        usubjid: s.usubjid.to_string(),
        date: s.trt_start.expect("start") + chrono::Duration::days(day),
        response,
        code: response.vocabulary_code(),
        visit: None,
    }
}

/// "Two or more missed assessments" judged against a q6w→q12w schedule: the events counted
/// by hand against the protocol's scan days (42, 84, … 336, then 420, 504, …; windows 7 and
/// 14 days), where one 91-day window censors both.
#[test]
fn missed_assessments_are_judged_against_the_schedule() {
    let schedule = Schedule::new(vec![
        Stretch {
            every: 42,
            until: Some(336),
            window: 7,
        },
        Stretch {
            every: 84,
            until: None,
            window: 14,
        },
    ])
    .expect("schedule");
    let by_schedule = PfsOptions {
        schedule: Some(schedule),
        ..PfsOptions::default()
    };
    let fixed = PfsOptions::default();
    let s = subject("2021-01-01");
    // Week 48 SD, PD 164 days later: the q12w scans on 420 and 504 (+14) had not both passed.
    let late_phase = [
        at(&s, 336, Response::StableDisease),
        at(&s, 500, Response::ProgressiveDisease),
    ];
    let t = progression_free_survival(&s, &late_phase, &by_schedule)
        .unwrap()
        .unwrap();
    assert_eq!((t.rule, t.days), (TteRule::Progression, 501.0));
    let t = progression_free_survival(&s, &late_phase, &fixed)
        .unwrap()
        .unwrap();
    assert_eq!((t.rule, t.days), (TteRule::MissedAssessments, 337.0));
    // Day 126 SD, PD on day 260: scans 168 and 210 (+7 = 217) missed either way.
    let early = [
        at(&s, 126, Response::StableDisease),
        at(&s, 260, Response::ProgressiveDisease),
    ];
    let t = progression_free_survival(&s, &early, &by_schedule)
        .unwrap()
        .unwrap();
    assert_eq!((t.rule, t.days), (TteRule::MissedAssessments, 127.0));
    assert!(t.reason.contains("day 217"), "{}", t.reason);
    // Day 294 SD (week 42), PD on day 430: the schedule's next scans are 336 and 420 (+14).
    let switch = [
        at(&s, 294, Response::StableDisease),
        at(&s, 430, Response::ProgressiveDisease),
    ];
    let t = progression_free_survival(&s, &switch, &by_schedule)
        .unwrap()
        .unwrap();
    assert_eq!(t.rule, TteRule::Progression);
    // The key is read from a config and a schedule that cannot be followed is refused.
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = derived_study(
        tmp.path(),
        &|r| r,
        "  assessment_schedule: [{ every: 6 weeks, until: 48 weeks }, { every: 12 weeks }]\n",
        "",
    );
    let run = build(&path, &tmp.path().join("out"), &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = derived_study(
        tmp.path(),
        &|r| r,
        "  assessment_schedule: [{ every: 12 weeks }, { every: 6 weeks }]\n",
        "",
    );
    let run = readout(&["check", path.to_str().expect("path")]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("key `analysis.assessment_schedule`"),
        "{}",
        run.stderr
    );
}

/// `Nausea`, `NAUSEA` and `nausea` are one term in every arm, spelled as most records spell
/// it, counted as the subjects with any of them.
#[test]
fn one_spelling_per_term_across_arms() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let drug: BTreeSet<String> = rows(&example("adsl.csv"))
        .into_iter()
        .filter(|r| r["ARM"] == "Drug X + chemo")
        .map(|r| r["USUBJID"].clone())
        .collect();
    let adae_text = example("adae.csv");
    let mut ae = rows(&adae_text);
    let mut k = 0;
    for r in ae.iter_mut().filter(|r| r["AEDECOD"] == "Nausea") {
        // Drug X's records upper case, every fifth of the others lower case.
        if drug.contains(&r["USUBJID"]) {
            r.insert("AEDECOD".into(), "NAUSEA".into());
        } else {
            k += 1;
            if k % 5 == 0 {
                r.insert("AEDECOD".into(), "nausea".into());
            }
        }
    }
    let path = derived_study(tmp.path(), &|r| r, "", ", ard");
    write_rows(&tmp.path().join("adae.csv"), &header_of(&adae_text), &ae);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The most frequent spelling, and each arm's subjects with any spelling (TEAE, safety).
    let mut spellings: BTreeMap<&str, usize> = BTreeMap::new();
    for r in ae
        .iter()
        .filter(|r| r["AEDECOD"].eq_ignore_ascii_case("nausea"))
    {
        *spellings.entry(r["AEDECOD"].as_str()).or_default() += 1;
    }
    let best = spellings
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(s, _)| *s)
        .expect("spelling");
    let safety: BTreeSet<String> = rows(&example("adsl.csv"))
        .into_iter()
        .filter(|r| r["SAFFL"] == "Y")
        .map(|r| r["USUBJID"].clone())
        .collect();
    let results = read_json(&out.join("SAP/no-cutoff/results.json"));
    let c = &results["cohorts"][0];
    for arm in c["arms"].as_array().expect("arms") {
        let in_arm = |id: &str| (arm["arm"] == "Drug X + chemo") == drug.contains(id);
        let expected: BTreeSet<&str> = ae
            .iter()
            .filter(|r| r["AEDECOD"].eq_ignore_ascii_case("nausea") && r["TRTEMFL"] == "Y")
            .map(|r| r["USUBJID"].as_str())
            .filter(|id| in_arm(id) && safety.contains(*id))
            .collect();
        let terms: Vec<&serde_json::Value> = arm["safety"]["by_term"]
            .as_array()
            .expect("terms")
            .iter()
            .filter(|t| {
                t["term"]
                    .as_str()
                    .expect("term")
                    .eq_ignore_ascii_case("nausea")
            })
            .collect();
        assert_eq!(terms.len(), 1, "{}", arm["arm"]);
        assert_eq!(terms[0]["term"], best);
        assert_eq!(terms[0]["teae_any"].as_u64(), Some(expected.len() as u64));
    }
    // Each arm's classes in the cohort's order.
    let order = |s: &serde_json::Value| -> Vec<String> {
        s["by_soc"]
            .as_array()
            .expect("socs")
            .iter()
            .map(|x| x["soc"].as_str().expect("soc").to_string())
            .collect()
    };
    let whole = order(&c["safety"]);
    for arm in c["arms"].as_array().expect("arms") {
        let own = order(&arm["safety"]);
        let expected: Vec<&String> = whole.iter().filter(|s| own.contains(s)).collect();
        assert_eq!(own.iter().collect::<Vec<_>>(), expected);
    }
    let ard = std::fs::read_to_string(out.join("SAP/no-cutoff/itt/ard.csv")).expect("ard");
    let spelled: BTreeSet<&str> = ard
        .lines()
        .flat_map(|l| l.split(','))
        .filter(|cell| cell.eq_ignore_ascii_case("nausea"))
        .collect();
    assert_eq!(
        spelled,
        BTreeSet::from([best]),
        "ard.csv spells the term more than one way"
    );
    assert!(
        run.stderr
            .contains("counted as one, in their most frequent spelling"),
        "{}",
        run.stderr
    );
}

/// A p-value below what is printed stays text in tables.xlsx, and the enrolment period is one
/// cell, not seven.
#[test]
fn tables_xlsx_stores_bounds_and_dates_as_printed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let config = root().join("config/rand-example.yaml");
    let run = build(&config, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let path = out.join("RAND-EXAMPLE/2023-09-29/itt/tables.xlsx");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&path).expect("xlsx")).expect("zip");
    let mut strings = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("xl/sharedStrings.xml").expect("strings"),
        &mut strings,
    )
    .expect("read");
    assert!(strings.contains("&lt; 0.001"), "no bound kept as text");
    // No sheet stores 0.001 as a number, and the dates are whole.
    let mut numbers = 0;
    for i in 0..zip.len() {
        let mut part = zip.by_index(i).expect("part");
        if part
            .name()
            .is_ok_and(|n| n.starts_with("xl/worksheets/sheet"))
        {
            let mut xml = String::new();
            std::io::Read::read_to_string(&mut part, &mut xml).expect("sheet");
            numbers += xml.matches("<v>0.001</v>").count();
        }
    }
    assert_eq!(numbers, 0);
    assert!(
        strings.contains("to August 31, 2022") || strings.contains(", 2021 to "),
        "the enrolment period is not one text"
    );
}

/// An ADRS with the investigator's and the independent review's rows under one PARAMCD: the
/// error names the column that tells them apart and the filter that keeps one.
#[test]
fn two_readers_in_adrs_name_the_column_and_the_filter() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = derived_study(tmp.path(), &|r| r, "", "");
    let text = example("adrs.csv");
    let mut header = header_of(&text);
    header.push("RSEVAL".into());
    let both: Vec<Row> = rows(&text)
        .into_iter()
        .flat_map(|r| {
            ["INVESTIGATOR", "INDEPENDENT ASSESSOR"].map(|who| {
                let mut r = r.clone();
                r.insert("RSEVAL".into(), who.into());
                r
            })
        })
        .collect();
    write_rows(&tmp.path().join("adrs.csv"), &header, &both);
    let run = build(&path, &tmp.path().join("out"), &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("they differ in RSEVAL (\"INVESTIGATOR\", \"INDEPENDENT ASSESSOR\")")
            && run
                .stderr
                .contains("`data.where: { adrs: { RSEVAL: \"INVESTIGATOR\" } }`"),
        "{}",
        run.stderr
    );
}

/// `readout init`'s starter names the keys a sponsor's statistician starts from, commented,
/// and stays a config that checks.
#[test]
fn the_starter_config_shows_the_sap_keys() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let study = tmp.path().join("new-study");
    readout_command().arg("init").arg(&study).assert().success();
    let text = std::fs::read_to_string(study.join("study.yaml")).expect("starter");
    for key in [
        "xlsx",
        "ard",
        "poster:",
        "rmst_tau:",
        "rmst_tau_beyond:",
        "km_table: at-risk",
        "kmunicate",
        "competing:",
        "labels:",
        "where:",
        "origin: randomisation",
        "assessment_schedule:",
    ] {
        assert!(text.contains(key), "the starter does not show {key}");
    }
}

/// New anticancer therapy at each boundary, end to end (docs/CONFIG.md,
/// `censor_at_new_therapy`): an assessment on the day therapy starts counts, a progression on
/// that day stays an event, a responder's DoR ends at its last assessment before it, and
/// therapy before any assessment censors at day 1. Expected days counted by hand from TRTSDT
/// (day 1) and from the first response.
#[test]
fn new_therapy_boundaries_end_to_end() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let start: Date = "2022-01-03".parse().expect("date");
    let day = |n: i64| (start + chrono::Duration::days(n)).to_string();
    // (subject, new therapy day, assessments as (day, response))
    type Case<'a> = (&'a str, Option<i64>, &'a [(i64, &'a str)]);
    let subjects: [Case<'_>; 5] = [
        (
            "S1",
            Some(84),
            &[(42, "SD"), (84, "PR"), (126, "PR"), (200, "PD")],
        ),
        ("S2", Some(126), &[(42, "SD"), (84, "SD"), (126, "PD")]),
        ("S3", Some(100), &[(42, "PR"), (84, "PR"), (150, "PD")]),
        ("S4", Some(20), &[(42, "SD"), (84, "PD")]),
        ("S5", None, &[(42, "PR"), (84, "PR"), (126, "PD")]),
    ];
    let mut adsl = "USUBJID,TRTSDT,TRTEDT,LSTALVDT,NACTDT\n".to_string();
    let mut adrs = "USUBJID,PARAMCD,ADT,AVALC\n".to_string();
    for (id, nact, record) in &subjects {
        adsl.push_str(&format!(
            "{id},{},{},{},{}\n",
            day(0),
            day(300),
            day(400),
            nact.map(day).unwrap_or_default()
        ));
        for (d, r) in record.iter() {
            adrs.push_str(&format!("{id},OVR,{},{r}\n", day(*d)));
        }
    }
    std::fs::write(tmp.path().join("adsl.csv"), adsl).expect("adsl");
    std::fs::write(tmp.path().join("adrs.csv"), adrs).expect("adrs");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: NACT }\ndata: { adsl: adsl.csv, adrs: adrs.csv }\nanalysis:\n  \
         time_unit: days\n  censor_at_new_therapy: { column: NACTDT }\ncohorts:\n  - id: all\n",
    )
    .expect("config");
    let out = tmp.path().join("out");
    let run = build(&config, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let derived =
        rows(&std::fs::read_to_string(out.join("NACT/no-cutoff/derived/all.csv")).expect("csv"));
    let of = |id: &str| {
        derived
            .iter()
            .find(|r| r["USUBJID"] == id)
            .expect("subject")
    };
    let time = |r: &Row, e: &str| -> (f64, String) {
        (
            r[&format!("{e}_AVAL")].parse().expect("AVAL"),
            r[&format!("{e}_CNSR")].clone(),
        )
    };
    // S1: the PR on the day therapy starts counts: censored there (day 85); DoR from that PR,
    // censored on its own day (day 1).
    assert_eq!(time(of("S1"), "PFS"), (85.0, "1".to_string()));
    assert_eq!(of("S1")["PFS_EVNTDESC"], "censored: new anticancer therapy");
    assert_eq!(time(of("S1"), "DOR"), (1.0, "1".to_string()));
    // S2: a PD on the day therapy starts is an event (day 127).
    assert_eq!(time(of("S2"), "PFS"), (127.0, "0".to_string()));
    // S3: a confirmed responder: PFS censored at day 84's PR (day 85); DoR from day 42 to
    // day 84 (43 days), censored.
    assert_eq!(time(of("S3"), "PFS"), (85.0, "1".to_string()));
    assert_eq!(time(of("S3"), "DOR"), (43.0, "1".to_string()));
    // S4: therapy before any assessment: censored at the origin, day 1.
    assert_eq!(time(of("S4"), "PFS"), (1.0, "1".to_string()));
    // S5, no new therapy: PD on day 126 (day 127), DoR from day 42 (85 days), events.
    assert_eq!(time(of("S5"), "PFS"), (127.0, "0".to_string()));
    assert_eq!(time(of("S5"), "DOR"), (85.0, "0".to_string()));
    let results = read_json(&out.join("NACT/no-cutoff/results.json"));
    assert_eq!(
        results["cohorts"][0]["tte"]["PFS"]["censored_new_therapy"],
        3
    );
}

/// An ADEX of a combination (one row per subject, parameter and drug in PARCAT1), unfiltered:
/// each drug's cumulative dose summarised in each arm, named with its unit; the medians
/// recomputed here from the file over each arm's safety subjects. Subjects the treatment
/// disposition says are ONGOING count as on treatment, whatever TRTEDT holds.
#[test]
fn a_combinations_exposure_is_summarised_per_drug() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = root().join("data/myeloma-example");
    let original =
        std::fs::read_to_string(root().join("config/myeloma-example.yaml")).expect("config");
    let config = original
        .replace("../data/myeloma-example", data.to_str().expect("path"))
        .lines()
        .filter(|l| !l.trim_start().starts_with("adex: { PARCAT1"))
        .collect::<Vec<_>>()
        .join("\n");
    let path = tmp.path().join("study.yaml");
    std::fs::write(&path, config).expect("config");
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let adsl = rows(&std::fs::read_to_string(data.join("adsl.csv")).expect("adsl"));
    let adex = rows(&std::fs::read_to_string(data.join("adex.csv")).expect("adex"));
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let results = read_json(
        &out.join("MM-EXAMPLE")
            .join(
                std::fs::read_dir(out.join("MM-EXAMPLE"))
                    .expect("study")
                    .flatten()
                    .map(|e| e.file_name())
                    .find(|n| !n.to_string_lossy().starts_with('.'))
                    .expect("cut-off folder"),
            )
            .join("results.json"),
    );
    let c = &results["cohorts"][0];
    let mut drugs_seen = 0;
    for arm in c["arms"].as_array().expect("arms") {
        let members: BTreeSet<&str> = adsl
            .iter()
            .filter(|r| r["ARM"] == arm["arm"].as_str().expect("arm") && r["SAFFL"] == "Y")
            .map(|r| r["USUBJID"].as_str())
            .collect();
        let drugs: BTreeSet<&str> = adex
            .iter()
            .filter(|r| members.contains(r["USUBJID"].as_str()) && r["PARAMCD"] == "CUMDOSE")
            .map(|r| r["PARCAT1"].as_str())
            .collect();
        for drug in drugs {
            drugs_seen += 1;
            let values: Vec<f64> = adex
                .iter()
                .filter(|r| {
                    members.contains(r["USUBJID"].as_str())
                        && r["PARAMCD"] == "CUMDOSE"
                        && r["PARCAT1"] == drug
                })
                .map(|r| r["AVAL"].parse().expect("AVAL"))
                .collect();
            let key = format!("CUMDOSE, {drug}");
            let got = arm["exposure"]["dose"][&key]["median"]
                .as_f64()
                .expect("median");
            assert!((got - median(values)).abs() < 1e-9, "{key}: {got}");
            assert_eq!(arm["exposure"]["dose_units"][&key], "mg");
        }
        // Ongoing as the treatment disposition says.
        let ongoing = adsl
            .iter()
            .filter(|r| members.contains(r["USUBJID"].as_str()) && r["EOTSTT"] == "ONGOING")
            .count() as u64;
        assert_eq!(arm["exposure"]["ongoing"].as_u64(), Some(ongoing));
    }
    assert!(drugs_seen >= 3, "{drugs_seen}");
    let report = std::fs::read_to_string(
        out.join("MM-EXAMPLE")
            .join(
                std::fs::read_dir(out.join("MM-EXAMPLE"))
                    .expect("study")
                    .flatten()
                    .map(|e| e.file_name())
                    .find(|n| !n.to_string_lossy().starts_with('.'))
                    .expect("folder"),
            )
            .join("itt/report.html"),
    )
    .expect("report");
    assert!(report.contains("Cumulative dose, DEXAMETHASONE (mg), median (range)"));
}

//! Response criteria other than RECIST 1.1 (issue 31, docs/CRITERIA.md): each set's rules on
//! the cases its publication describes (Seymour 2017 for iRECIST, Cheson 2014 for Lugano,
//! Kumar 2016 for IMWG, Wen 2010 for RANO), then a study whose cohorts use them end to end.

use std::fmt::Write as _;
use std::path::Path;

use readout::criteria::{Criteria, Vocabulary};
use readout::derive::criteria::Reading;
use readout::derive::{derive_subject_by, DeriveOptions, DerivedSubject};
use readout::model::{Assessment, Date, Response, Status, Subject};
use serde_json::Value;

use crate::common::{build_quietly, read_json, readout_command, Run};

fn day(n: i64) -> Date {
    "2021-01-01".parse::<Date>().unwrap() + chrono::TimeDelta::days(n)
}

fn subject() -> Subject {
    Subject {
        trt_start: Some(day(0)),
        last_alive: Some(day(400)),
        ..Subject::placeholder()
    }
}

/// Derives one subject's BOR, PFS and DoR by `criteria` from `(day, value)` assessments.
fn derive(criteria: &str, visits: &[(i64, &str)]) -> (String, DerivedSubject) {
    let criteria = Criteria::built_in(criteria).unwrap();
    derive_by(&criteria, visits).unwrap()
}

fn derive_by(
    criteria: &Criteria,
    visits: &[(i64, &str)],
) -> Result<(String, DerivedSubject), readout::derive::DeriveError> {
    derive_in(criteria, &Vocabulary::new([criteria]).unwrap(), visits)
}

/// [`derive_by`] in a study whose vocabulary is `vocabulary`.
fn derive_in(
    criteria: &Criteria,
    vocabulary: &Vocabulary,
    visits: &[(i64, &str)],
) -> Result<(String, DerivedSubject), readout::derive::DeriveError> {
    let lookup = vocabulary.lookup(criteria);
    let s = subject();
    let assessments: Vec<Assessment> = visits
        .iter()
        .map(|&(n, v)| {
            let code = vocabulary.code(v).expect("a value of the vocabulary");
            Assessment {
                code,
                ..Assessment::recist(
                    &*s.usubjid,
                    day(n),
                    Response::from_avalc(v).unwrap_or(Response::NotEvaluable),
                )
            }
        })
        .collect();
    let reading = Reading {
        criteria,
        lookup: &lookup,
        vocabulary,
        given: None,
    };
    let d = derive_subject_by(&s, &assessments, &DeriveOptions::default(), reading)?;
    Ok((criteria.code_of(d.category).to_string(), d))
}

fn pfs(d: &DerivedSubject) -> (Status, Date) {
    let t = d.pfs.as_ref().unwrap();
    (t.status, t.date)
}

#[test]
fn irecist_pseudo_progression_is_reset_and_not_a_pfs_event() {
    let (bor, d) = derive("irecist", &[(42, "iUPD"), (84, "iPR"), (126, "iPR")]);
    assert_eq!(bor, "iPR", "{}", d.bor.reason);
    assert!(d.bor.reason.contains("iUPD on 2021-02-12 reset by iPR"));
    assert_eq!(d.bor.first_response_date, Some(day(84)));
    assert_eq!(pfs(&d), (Status::Censored, day(126)));
}

#[test]
fn irecist_unconfirmed_iupd_stays_iupd_and_is_censored() {
    // The iSD comes before the 42-day window: nothing outranks the iUPD, never confirmed.
    let (bor, d) = derive("irecist", &[(20, "iSD"), (60, "iUPD")]);
    assert_eq!(bor, "iUPD", "{}", d.bor.reason);
    assert!(d.bor.reason.contains("neither confirmed nor reset"));
    assert_eq!(pfs(&d), (Status::Censored, day(20)));
}

#[test]
fn irecist_confirmed_progression_is_dated_at_the_first_iupd_of_its_run() {
    let (bor, d) = derive("irecist", &[(42, "iSD"), (84, "iUPD"), (126, "iCPD")]);
    assert_eq!(bor, "iSD", "{}", d.bor.reason);
    assert_eq!(pfs(&d), (Status::Event, day(84)));

    // NE and a second iUPD between: still the first iUPD of the run.
    let (bor, d) = derive(
        "irecist",
        &[(42, "iUPD"), (84, "NE"), (126, "iUPD"), (168, "iCPD")],
    );
    assert_eq!(bor, "iCPD", "{}", d.bor.reason);
    assert_eq!(d.bor.date, Some(day(42)));
    assert_eq!(pfs(&d), (Status::Event, day(42)));
    assert!(d.bor.warnings.is_empty(), "{:?}", d.bor.warnings);

    // An iCPD 12 weeks after the iUPD is outside iRECIST's 4 to 8 weeks: counted, and said.
    let (bor, d) = derive("irecist", &[(42, "iUPD"), (126, "iCPD")]);
    assert_eq!(bor, "iCPD");
    assert_eq!(pfs(&d), (Status::Event, day(42)));
    assert_eq!(
        d.bor
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "iCPD on 2021-05-07 is 84 days after the iUPD on 2021-02-12, outside the 28 to 56 \
          days iRECIST allows for confirmation; counted as recorded"
        ]
    );

    // A reset run, then a confirmed one: the second run's first iUPD.
    let (bor, d) = derive(
        "irecist",
        &[(42, "iUPD"), (84, "iSD"), (126, "iUPD"), (168, "iCPD")],
    );
    assert_eq!(bor, "iSD");
    assert_eq!(pfs(&d), (Status::Event, day(126)));
}

#[test]
fn irecist_confirms_responses_as_recist_and_ends_at_icpd() {
    let (bor, d) = derive(
        "irecist",
        &[
            (42, "iCR"),
            (84, "iCR"),
            (126, "iUPD"),
            (168, "iCPD"),
            (210, "iCR"),
        ],
    );
    assert_eq!(bor, "iCR", "{}", d.bor.reason);
    let dor = d.dor.as_ref().unwrap();
    assert_eq!((dor.status, dor.date), (Status::Event, day(126)));
    // One iPR, then confirmed progression: not confirmed, so stable disease.
    let (bor, _) = derive("irecist", &[(56, "iPR"), (98, "iUPD"), (140, "iCPD")]);
    assert_eq!(bor, "iSD");
}

#[test]
fn a_value_outside_the_criteria_names_the_value_subject_and_set() {
    let irecist = Criteria::built_in("irecist").unwrap();
    let lugano = Criteria::built_in("lugano").unwrap();
    let both = Vocabulary::new([&irecist, &lugano]).unwrap();
    let err = derive_in(&irecist, &both, &[(42, "CMR")])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"CMR\" on 2021-02-12 is not a category of iRECIST"),
        "{err}"
    );
    assert!(
        err.contains("iCR, iPR, iSD, NON-iCR/NON-iUPD, iUPD, iCPD, NE or ND"),
        "{err}"
    );
    // RECIST 1.1 cohorts of such a study refuse the other sets' values too.
    let err = derive_in(&Criteria::recist(), &both, &[(42, "iCR")])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"iCR\" on 2021-02-12 is not a category of RECIST 1.1"),
        "{err}"
    );
}

#[test]
fn imwg_a_category_holds_on_two_consecutive_assessments() {
    // CR not confirmed, VGPR confirmed (Kumar 2016: every category needs two assessments).
    let (bor, d) = derive("imwg", &[(28, "VGPR"), (56, "CR"), (84, "VGPR")]);
    assert_eq!(bor, "VGPR", "{}", d.bor.reason);
    assert_eq!(d.bor.first_response_date, Some(day(28)));
    assert_eq!(derive("imwg", &[(28, "sCR"), (56, "sCR")]).0, "sCR");
    assert_eq!(derive("imwg", &[(28, "sCR"), (56, "CR")]).0, "CR");
    assert_eq!(
        derive("imwg", &[(28, "PR"), (56, "NE"), (84, "PR")]).0,
        "PR"
    );
    // One PR, then PD: stable disease; MR twice: MR, not a response.
    assert_eq!(derive("imwg", &[(28, "PR"), (56, "PD")]).0, "SD");
    let (bor, d) = derive("imwg", &[(28, "MR"), (56, "MR")]);
    assert_eq!(bor, "MR");
    assert!(d.dor.is_none());
}

#[test]
fn lugano_needs_no_confirmation_and_ranks_pet_with_ct() {
    let (bor, d) = derive("lugano", &[(56, "CMR")]);
    assert_eq!(bor, "CMR");
    assert_eq!(d.bor.first_response_date, Some(day(56)));
    assert_eq!(derive("lugano", &[(56, "PR"), (112, "CMR")]).0, "CMR");
    let (bor, d) = derive("lugano", &[(56, "NMR"), (112, "PMD"), (168, "CMR")]);
    assert_eq!(bor, "NMR", "the record ends at PMD");
    assert_eq!(pfs(&d), (Status::Event, day(112)));
    assert_eq!(derive("lugano", &[(56, "PMD")]).0, "PMD");
    assert_eq!(derive("lugano", &[]).0, "NE");
}

#[test]
fn rano_confirms_after_confirmation_days() {
    assert_eq!(derive("rano", &[(56, "PR"), (84, "PR")]).0, "PR");
    let (bor, d) = derive("rano", &[(56, "PR"), (70, "PR")]);
    assert_eq!(bor, "SD", "14 days is too early: {}", d.bor.reason);
    // A CR followed by a PR four weeks later holds as PR.
    assert_eq!(derive("rano", &[(56, "CR"), (84, "PR")]).0, "PR");
    assert_eq!(derive("rano", &[(56, "MR"), (84, "MR")]).0, "MR");
    // Stable disease before the 42-day window is not evaluable.
    assert_eq!(derive("rano", &[(21, "SD"), (70, "PD")]).0, "PD");
}

/// One subject of the end-to-end study: its cohort's criteria and its assessments.
const STUDY: &[(&str, &[(i64, &str)])] = &[
    ("irecist", &[(42, "iUPD"), (84, "iPR"), (126, "iPR")]),
    ("irecist", &[(20, "iSD"), (60, "iUPD")]),
    ("irecist", &[(42, "iSD"), (84, "iUPD"), (126, "iCPD")]),
    (
        "irecist",
        &[(42, "iUPD"), (84, "NE"), (126, "iUPD"), (168, "iCPD")],
    ),
    (
        "irecist",
        &[(42, "iUPD"), (84, "iSD"), (126, "iUPD"), (168, "iCPD")],
    ),
    (
        "irecist",
        &[(42, "iCR"), (84, "iCR"), (126, "iUPD"), (168, "iCPD")],
    ),
    ("imwg", &[(28, "VGPR"), (56, "CR"), (84, "VGPR")]),
    ("imwg", &[(28, "sCR"), (56, "sCR")]),
    ("imwg", &[(28, "PR"), (56, "PD")]),
    ("imwg", &[(28, "PR"), (56, "NE"), (84, "PR")]),
    ("imwg", &[(28, "MR"), (56, "MR")]),
    ("lugano", &[(56, "CMR")]),
    ("lugano", &[(56, "PR"), (112, "CMR")]),
    ("lugano", &[(56, "NMR"), (112, "PMD")]),
    ("lugano", &[(56, "PMD")]),
    ("rano", &[(56, "PR"), (84, "PR")]),
    ("rano", &[(56, "PR"), (70, "PR")]),
    ("rano", &[(56, "CR"), (84, "PR")]),
    ("rano", &[(56, "MR"), (84, "MR")]),
];

fn write_study(dir: &Path, recist_cohort: bool) -> std::path::PathBuf {
    let mut adsl = String::from("USUBJID,CRIT,TRTSDT,LSTALVDT\n");
    let mut adrs = String::from("USUBJID,PARAMCD,ADT,AVALC\n");
    for (i, (criteria, visits)) in STUDY.iter().enumerate() {
        let id = format!("S{i:02}");
        let _ = writeln!(adsl, "{id},{criteria},{},{}", day(0), day(400));
        for (n, v) in *visits {
            let _ = writeln!(adrs, "{id},OVR,{},{v}", day(*n));
        }
    }
    std::fs::write(dir.join("adsl.csv"), adsl).unwrap();
    std::fs::write(dir.join("adrs.csv"), adrs).unwrap();
    let mut config = String::from(
        "study: { id: CRIT }\n\
         data: { adsl: adsl.csv, adrs: adrs.csv }\n\
         analysis: { tte_params: { PFS: PFS, DOR: DOR }, followup: PFS }\n\
         cohorts:\n",
    );
    for criteria in ["irecist", "imwg", "lugano", "rano"] {
        let _ = writeln!(
            config,
            "  - {{ id: {criteria}, where: {{ CRIT: {criteria} }}, analysis: {{ response_criteria: {criteria} }} }}"
        );
    }
    if recist_cohort {
        config.push_str("  - { id: all }\n");
    }
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).unwrap();
    path
}

fn rate(r: &Value) -> (u64, u64) {
    (r["n"].as_u64().unwrap(), r["N"].as_u64().unwrap())
}

#[test]
fn a_study_of_four_criteria_reports_each_in_its_own_terms() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_study(dir.path(), false);
    let out = dir.path().join("out");
    build_quietly(&out, &config).success();
    let folder = out.join("CRIT/no-cutoff");
    let results: Value = read_json(&folder.join("results.json"));
    let cohort = |id: &str| {
        results["cohorts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()["response"]
            .clone()
    };
    let irecist = cohort("irecist");
    assert_eq!(irecist["criteria"]["name"], "iRECIST");
    let counts: Vec<(String, u64)> = irecist["bor"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    let want = [
        ("iCR", 1),
        ("iPR", 1),
        ("iSD", 2),
        ("NON-iCR/NON-iUPD", 0),
        ("iUPD", 1),
        ("iCPD", 1),
        ("NE", 0),
    ];
    assert_eq!(
        counts,
        want.iter()
            .map(|(k, n)| (k.to_string(), *n))
            .collect::<Vec<_>>()
    );
    assert_eq!(rate(&irecist["orr"]), (2, 6));
    assert_eq!(rate(&irecist["dcr"]), (4, 6));

    let imwg = cohort("imwg");
    assert_eq!(rate(&imwg["orr"]), (3, 5));
    assert_eq!(rate(&imwg["rates"]["VGPR or better"]), (2, 5));
    assert_eq!(rate(&imwg["rates"]["CR or better"]), (1, 5));
    assert_eq!(rate(&imwg["dcr"]), (5, 5));
    let lugano = cohort("lugano");
    assert_eq!(rate(&lugano["orr"]), (2, 4));
    assert_eq!(rate(&lugano["rates"]["CMR"]), (2, 4));
    assert_eq!(rate(&lugano["dcr"]), (3, 4));
    let rano = cohort("rano");
    assert_eq!(rate(&rano["orr"]), (2, 4));
    assert_eq!(rate(&rano["rates"]["CR, PR or MR"]), (3, 4));

    let csv = std::fs::read_to_string(folder.join("derived/irecist.csv")).unwrap();
    let bors: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(bors, ["iPR", "iUPD", "iSD", "iCPD", "iSD", "iCR"]);

    let text = |id: &str, file: &str| std::fs::read_to_string(folder.join(id).join(file)).unwrap();
    let abstract_text = text("irecist", "abstract.txt");
    assert!(
        abstract_text.contains("ORR per iRECIST was 33.3% (2/6;"),
        "{abstract_text}"
    );
    assert!(abstract_text.contains("1 pt achieved confirmed complete response (iCR)"));
    assert!(abstract_text.contains("Response was assessed per iRECIST;"));
    assert!(abstract_text.contains("iUPD was confirmed by iCPD"));
    let imwg_text = text("imwg", "abstract.txt");
    assert!(
        imwg_text.contains("The rate of VGPR or better was 40.0% (2/5;"),
        "{imwg_text}"
    );
    assert!(imwg_text.contains("two consecutive assessments"));
    // Haematology: "overall response rate", no DCR; the other categories still said.
    assert!(imwg_text.contains(
        "Best response was minimal response (MR) in 1 pt and stable disease (SD) in 1 pt."
    ));
    assert!(imwg_text.contains("The primary endpoint was overall response rate (ORR) per IMWG."));
    assert!(
        imwg_text.contains("The overall response rate counted sCR, CR, VGPR and PR."),
        "{imwg_text}"
    );
    assert!(imwg_text.contains("The rate of CR or better was 20.0% (1/5;"));
    for t in [&imwg_text, &text("lugano", "abstract.txt")] {
        assert!(!t.contains("DCR") && !t.contains("disease control"), "{t}");
    }
    assert!(
        abstract_text.contains("The DCR was 66.7% (4/6;"),
        "{abstract_text}"
    );
    assert!(abstract_text.contains("objective response rate (ORR) per iRECIST"));
    let lugano_text = text("lugano", "abstract.txt");
    assert!(
        lugano_text.contains("The CMR rate was 50.0% (2/4;"),
        "{lugano_text}"
    );
    assert!(lugano_text.contains("did not require confirmation"));
    let report = text("lugano", "report.html");
    assert!(report.contains("Best overall response (Lugano 2014)"));
    assert!(lugano_text.contains("2 pts achieved complete metabolic response (CMR)"));
    assert!(report.contains("Complete metabolic response (CMR)"));
    assert!(report.contains("Overall response rate (CMR + CR + PMR + PR)"));
    assert!(!report.contains("Disease control rate"));
    assert!(text("irecist", "report.html").contains("Disease control rate"));
}

#[test]
fn a_recist_cohort_beside_them_refuses_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_study(dir.path(), true);
    let run = readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cohort `all`: subject S00"), "{stderr}");
    assert!(
        stderr.contains("\"iUPD\" on 2021-02-12 is not a category of RECIST 1.1"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_or_malformed_criteria_set_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_study(dir.path(), false);
    let text = std::fs::read_to_string(&config).unwrap();
    for (from, to, expect) in [
        ("response_criteria: rano }", "response_criteria: recist }", "`recist` is not a response criteria set"),
        (
            "response_criteria: rano }",
            "response_criteria: { name: X, categories: [SD, PD, CR], responders: [CR], progression: [PD] } }",
            "responder `CR` is listed after progression `PD`",
        ),
    ] {
        std::fs::write(&config, text.replace(from, to)).unwrap();
        let run = readout_command().args(["check"]).arg(&config).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("response_criteria"), "{stderr}");
        assert!(stderr.contains(expect), "{stderr}");
    }
    std::fs::write(
        &config,
        text.replace(
            "response_criteria: rano }",
            "response_criteria: irecist, iupd_confirmation_days: [60, 30] }",
        ),
    )
    .unwrap();
    let stderr = readout_command()
        .arg("check")
        .arg(&config)
        .assert()
        .code(2)
        .stderr();
    assert!(
        stderr.contains("iupd_confirmation_days`: [60, 30]; expected [min, max]"),
        "{stderr}"
    );
}

#[test]
fn an_own_set_is_derived_by_its_own_rules() {
    let own = readout::config::CriteriaConfig::Own(readout::config::OwnCriteria {
        name: "GCIG CA-125".into(),
        categories: vec!["CR".into(), "PR".into(), "SD".into(), "PD".into()],
        responders: vec!["CR".into(), "PR".into()],
        progression: vec!["PD".into()],
        disease_control: None,
        not_evaluable: None,
        confirmation: Some(readout::config::OwnConfirmation::Consecutive),
        response_rate: None,
        report_dcr: None,
    })
    .resolve()
    .unwrap();
    let (bor, _) = derive_by(&own, &[(28, "PR"), (56, "CR"), (84, "PD")]).unwrap();
    assert_eq!(bor, "PR");
    // An unconfirmed PR in the 42-day window counts as SD; before it, it does not count.
    let (bor, _) = derive_by(&own, &[(56, "PR"), (84, "PD")]).unwrap();
    assert_eq!(bor, "SD");
    let (bor, _) = derive_by(&own, &[(28, "PR"), (56, "PD")]).unwrap();
    assert_eq!(bor, "PD");
    assert_eq!(own.name, "GCIG CA-125");
}

#[test]
fn as_given_tabulates_the_sponsors_bor_without_deriving_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut adsl = String::from("USUBJID,TRTSDT,LSTALVDT\n");
    let mut adrs = String::from("USUBJID,PARAMCD,ADT,AVALC\n");
    // (subject, its BOR record) and one OVR row each that RECIST would read otherwise.
    let given = [
        ("S1", Some((56, "CR"))),
        ("S2", Some((56, "VGPR"))),
        ("S3", Some((300, "PR"))),
        ("S4", None),
    ];
    for (id, bor) in given {
        let _ = writeln!(adsl, "{id},{},{}", day(0), day(400));
        let _ = writeln!(adrs, "{id},OVR,{},PD", day(50));
        if let Some((n, v)) = bor {
            let _ = writeln!(adrs, "{id},CBOR,{},{v}", day(n));
        }
    }
    std::fs::write(d.join("adsl.csv"), &adsl).unwrap();
    std::fs::write(d.join("adrs.csv"), &adrs).unwrap();
    let config = d.join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study: {{ id: GIVEN }}\n\
             data: {{ adsl: adsl.csv, adrs: adrs.csv }}\n\
             analysis: {{ tte_params: {{ PFS: PFS }}, followup: PFS, response_criteria: as-given }}\n\
             cutoffs: [{}]\n\
             cohorts: [{{ id: all }}]\n",
            day(200)
        ),
    )
    .unwrap();
    let out = d.join("out");
    build_quietly(&out, &config).success();
    let folder = out.join(format!("GIVEN/{}", day(200)));
    let results: Value = read_json(&folder.join("results.json"));
    let r = &results["cohorts"][0]["response"];
    assert_eq!(r["criteria"]["id"], "as-given");
    // Only the categories used, and NE: S3's BOR is dated after the cut-off, S4 has none.
    assert_eq!(r["bor"], serde_json::json!({"CR": 1, "VGPR": 1, "NE": 2}));
    assert_eq!(rate(&r["orr"]), (2, 4));
    assert_eq!(r["confirmed"], false);
    let warnings = results["warnings"].to_string();
    assert!(
        warnings.contains("dated after the cut-off") && warnings.contains("S3"),
        "{warnings}"
    );
    let abstract_text = std::fs::read_to_string(folder.join("all/abstract.txt")).unwrap();
    assert!(
        abstract_text.contains("taken as recorded in ADRS by the sponsor"),
        "{abstract_text}"
    );

    // Two BOR rows of one subject are an error naming it.
    std::fs::write(
        d.join("adrs.csv"),
        format!("{adrs}S1,CBOR,{},PR\n", day(60)),
    )
    .unwrap();
    let stderr = readout_command()
        .arg("check")
        .arg(&config)
        .assert()
        .code(2)
        .stderr();
    assert!(
        stderr.contains("subject `S1` has two CBOR rows"),
        "{stderr}"
    );
}

#[path = "../examples/make_criteria_example.rs"]
mod generator;

#[test]
fn the_criteria_example_data_are_what_the_generator_makes() {
    for (name, text) in generator::files() {
        let committed = std::fs::read_to_string(
            crate::common::root()
                .join("data/criteria-example")
                .join(name),
        )
        .unwrap();
        assert!(
            committed == text,
            "data/criteria-example/{name} differs from the generator's"
        );
    }
}

#[test]
fn the_criteria_example_reads_each_cohort_by_its_criteria() {
    let out = tempfile::tempdir().unwrap();
    let run = readout_command()
        .args(["build", "--out"])
        .arg(out.path())
        .arg(crate::common::root().join("config/criteria-example.yaml"))
        .output()
        .unwrap();
    // No warnings but the missed-visit rule's count (one iRECIST progression after a long
    // gap); the summary names each cohort's criteria.
    assert!(run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr
            .lines()
            .filter(|l| l.contains("warning:"))
            .all(|l| l.contains("missed-visit rule")),
        "{stderr}"
    );
    let summary = String::from_utf8_lossy(&run.stdout);
    let line = summary.lines().find(|l| l.contains("dlbcl")).unwrap();
    assert!(
        line.contains("Lugano 2014") && line.contains("58.3%"),
        "{summary}"
    );
    let folder = out.path().join("CRIT-EXAMPLE/2024-06-28");
    let results: Value = read_json(&folder.join("results.json"));
    // Recorded from this build (the rules are checked case by case above): BOR counts per
    // cohort, in each set's order.
    let recorded = [
        (
            "melanoma-io",
            "iRECIST",
            vec![("iCR", 4), ("iPR", 7), ("iSD", 24), ("iCPD", 5)],
        ),
        (
            "dlbcl",
            "Lugano 2014",
            vec![("CMR", 17), ("PMR", 4), ("NMR", 10), ("PMD", 5)],
        ),
        (
            "myeloma",
            "IMWG",
            vec![
                ("sCR", 3),
                ("CR", 6),
                ("VGPR", 10),
                ("PR", 4),
                ("MR", 2),
                ("SD", 12),
                ("PD", 3),
            ],
        ),
        (
            "glioma",
            "RANO",
            vec![("CR", 3), ("PR", 5), ("MR", 4), ("SD", 18), ("PD", 2)],
        ),
    ];
    for (id, name, counts) in recorded {
        let cohort = results["cohorts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        let r = &cohort["response"];
        assert_eq!(r["criteria"]["name"], name);
        let got: Vec<(String, u64)> = r["bor"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, n)| n.as_u64() != Some(0))
            .map(|(k, n)| (k.clone(), n.as_u64().unwrap()))
            .collect();
        let want: Vec<(String, u64)> = counts.iter().map(|(k, n)| (k.to_string(), *n)).collect();
        assert_eq!(got, want, "{id}");
        // ORR and DCR are the set's responder and control categories, over everyone.
        let n = cohort["n"]["efficacy"].as_u64().unwrap();
        assert_eq!(got.iter().map(|(_, k)| k).sum::<u64>(), n, "{id}");
        let sum = |flag: &str| -> u64 {
            r["criteria"]["categories"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|k| k[flag] == true)
                .map(|k| r["bor"][k["code"].as_str().unwrap()].as_u64().unwrap())
                .sum()
        };
        assert_eq!(rate(&r["orr"]), (sum("responder"), n), "{id}");
        assert_eq!(rate(&r["dcr"]), (sum("control"), n), "{id}");
        // Every subject's BOR in the derived CSV is one of the set's categories.
        let csv = std::fs::read_to_string(folder.join(format!("derived/{id}.csv"))).unwrap();
        for line in csv.lines().skip(1) {
            let bor = line.split(',').nth(1).unwrap();
            assert!(r["bor"].get(bor).is_some(), "{id}: {bor}");
        }
        let text = std::fs::read_to_string(folder.join(id).join("abstract.md")).unwrap();
        assert!(
            text.contains(&format!("ORR per {name} was")),
            "{id}: {text}"
        );
    }
}

/// Category names of any characters (issue 39): non-ASCII ones panicked in Tera, quotes
/// failed the render, and `A[0]` and `A.0` were confused (the abstract printed one count for
/// both, the numbers sheet pointed both at `/bor/A.0`). Each category's own count is printed
/// and traced to its own key.
#[test]
fn category_names_of_any_characters_are_counted_apart() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "完全缓解",
        "CR✓",
        "Ä",
        "Rémission",
        "A'B",
        "X\"Y",
        "A[0]",
        "A.0",
    ];
    let mut adsl = String::from("USUBJID,TRTSDT,LSTALVDT\n");
    let mut adrs = String::from("USUBJID,PARAMCD,ADT,AVALC\n");
    let mut n = 0;
    for (i, name) in names.iter().enumerate() {
        // Category i is the best response of i + 1 subjects.
        for _ in 0..=i {
            n += 1;
            let _ = writeln!(adsl, "S{n:03},{},{}", day(0), day(300));
            let quoted = format!("\"{}\"", name.replace('"', "\"\""));
            let _ = writeln!(adrs, "S{n:03},OVR,{},{quoted}", day(56));
            let _ = writeln!(adrs, "S{n:03},OVR,{},PD", day(112));
        }
    }
    std::fs::write(dir.path().join("adsl.csv"), adsl).unwrap();
    std::fs::write(dir.path().join("adrs.csv"), adrs).unwrap();
    let yaml_list = names
        .iter()
        .map(|n| format!("'{}'", n.replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(", ");
    let config = format!(
        "study: {{ id: NAMES }}\ndata: {{ adsl: adsl.csv, adrs: adrs.csv }}\n\
         analysis:\n  tte_params: {{ PFS: PFS }}\n  followup: PFS\n  response_criteria:\n    \
         name: Own\n    categories: [{yaml_list}, PD]\n    responders: [{yaml_list}]\n    \
         progression: [PD]\n    confirmation: none\n\
         cohorts:\n  - id: all\noutput:\n  formats: [md, html, docx, pptx]\n"
    );
    let path = dir.path().join("study.yaml");
    std::fs::write(&path, config).unwrap();
    let out = dir.path().join("out");
    build_quietly(&out, &path).success();
    let folder = out.join("NAMES/no-cutoff");
    let results = read_json(&folder.join("results.json"));
    let bor = &results["cohorts"][0]["response"]["bor"];
    let text = std::fs::read_to_string(folder.join("all/abstract.txt")).unwrap();
    let sheet = std::fs::read_to_string(folder.join("all/abstract-numbers.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(sheet.as_bytes());
    let rows: Vec<csv::StringRecord> = rows.records().map(|r| r.unwrap()).collect();
    for (i, name) in names.iter().enumerate() {
        assert_eq!(bor[name], i + 1, "{name}: {bor}");
        let said = format!("{} pts achieved {name}", i + 1);
        let said = said.replace("1 pts", "1 pt");
        assert!(text.contains(&said), "{said} missing from:\n{text}");
        let pointer = format!(
            "/cohorts/0/response/bor/{}",
            name.replace('~', "~0").replace('/', "~1")
        );
        assert!(
            rows.iter().any(|r| r.iter().any(|f| f == pointer)),
            "no row points at {pointer}:\n{sheet}"
        );
    }
    // A user template that indexes `bor` by such a name made Tera panic (exit 101): now an
    // error naming the template, with the way round it.
    std::fs::create_dir(dir.path().join("t")).unwrap();
    std::fs::write(
        dir.path().join("t/abstract.md"),
        "{% for k in cohort.response.criteria.categories %}{{ cohort.response.bor[k.code] }}{% endfor %}\n",
    )
    .unwrap();
    let config = std::fs::read_to_string(&path).unwrap() + "  templates: t\n";
    std::fs::write(&path, config).unwrap();
    for command in ["check", "build"] {
        let ran = readout_command()
            .arg(command)
            .arg(&path)
            .current_dir(dir.path())
            .assert()
            .code(2);
        let said = ran.stderr();
        assert!(
            said.contains("abstract.md")
                && said.contains("Tera, the template engine, failed")
                && said.contains("use `categories`")
                && !said.contains("panicked"),
            "{said}"
        );
    }
}

/// The criteria sets of a study's cohorts hold at most 256 distinct categories together (one
/// byte per assessment): more are refused at the key, not dropped.
#[test]
fn more_categories_than_a_study_holds_are_refused_at_the_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("adsl.csv"), "USUBJID,G\nS1,1\n").unwrap();
    let mut config = String::from("study: { id: MANY }\ndata: { adsl: adsl.csv }\ncohorts:\n");
    for g in 0..7 {
        let categories: Vec<String> = (0..39).map(|k| format!("C{g}x{k}")).collect();
        let _ = writeln!(
            config,
            "  - {{ id: g{g}, where: {{ G: '1' }}, analysis: {{ response_criteria: {{ name: S{g}, \
             categories: [{}], responders: [C{g}x0], progression: [C{g}x38] }} }} }}",
            categories.join(", ")
        );
    }
    let path = dir.path().join("study.yaml");
    std::fs::write(&path, config).unwrap();
    let ran = readout_command().arg("check").arg(&path).assert().code(2);
    let said = ran.stderr();
    assert!(
        said.contains("key `analysis.response_criteria`")
            && said.contains("hold 280 distinct categories")
            && said.contains("at most 256"),
        "{said}"
    );
}

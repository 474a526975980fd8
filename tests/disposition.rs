//! Disposition and exposure from ADSL (issue 34): status from EOSSTT (else the reason), reasons,
//! discontinuation because of adverse events, treatment duration to the cut-off for subjects
//! still treated; what the data cannot give is absent or `null`, never a zero.

use std::path::Path;

use serde_json::Value;

use crate::common::{build_quietly, read_json, readout_command, Ran, Run};

const ADSL: &str = "\
USUBJID,ARM,TRTSDT,TRTEDT,EOSSTT,DCSREAS,SAFFL
S1,A,2021-01-01,2021-01-10,COMPLETED,,Y
S2,A,2021-01-01,2021-01-31,DISCONTINUED,ADVERSE EVENT,Y
S3,A,2021-01-01,,,,Y
S4,B,2021-01-01,2021-03-01,DISCONTINUED,Withdrawal by Subject,Y
S5,B,2021-01-01,2021-01-01,DISCONTINUED,adverse event,Y
S6,B,,,DISCONTINUED,,N
";

fn disposition_of(dir: &Path, adsl: &str, extra: &str) -> Ran {
    std::fs::write(dir.join("adsl.csv"), adsl).unwrap();
    let config = format!(
        "study: {{ id: DISP }}\n\
         data: {{ adsl: adsl.csv{extra} }}\n\
         analysis: {{ time_unit: days, tte_params: {{}} }}\n\
         cutoff: 2021-04-10\n\
         cohorts:\n  - {{ id: all, arms: {{ column: ARM, reference: A }} }}\n"
    );
    std::fs::write(dir.join("study.yaml"), config).unwrap();
    readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(dir.join("out"))
        .arg(dir.join("study.yaml"))
        .assert()
}

fn results(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("out/DISP/2021-04-10/results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn disposition_and_exposure_per_arm_and_in_total() {
    let dir = tempfile::tempdir().unwrap();
    disposition_of(dir.path(), ADSL, "").success();
    let r = results(dir.path());
    let c = &r["cohorts"][0];
    let d = &c["disposition"];
    assert_eq!(
        (&d["N"], &d["completed"], &d["discontinued"], &d["ongoing"]),
        (&6.into(), &1.into(), &4.into(), &1.into())
    );
    assert_eq!(d["status_column"], "EOSSTT");
    assert_eq!(d["reason_column"], "DCSREAS");
    // No DSRAEFL: the reason, whatever its case.
    assert_eq!(d["discontinued_ae"], 2);
    assert_eq!(d["discontinued_ae_source"], "DCSREAS");
    let reasons: Vec<(String, u64)> = d["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["reason"].as_str().unwrap().to_string(),
                x["n"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("ADVERSE EVENT".to_string(), 1),
            ("Withdrawal by Subject".to_string(), 1),
            ("adverse event".to_string(), 1),
            ("not given".to_string(), 1)
        ]
    );
    // Safety population: S3 still treated counts to the cut-off (2021-04-10: 100 days); S6 is
    // not in it. Durations 10, 31, 100, 60, 1.
    let e = &c["exposure"];
    assert_eq!(
        (&e["n"], &e["ongoing"], &e["missing"]),
        (&5.into(), &1.into(), &0.into())
    );
    assert_eq!(e["duration"]["median"], 31.0);
    assert_eq!(e["duration"]["min"], 1.0);
    assert_eq!(e["duration"]["max"], 100.0);
    assert!((e["patient_years"].as_f64().unwrap() - 202.0 / 365.25).abs() < 1e-12);
    // Per arm.
    let arm = |name: &str| {
        c["arms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["arm"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(arm("A")["disposition"]["discontinued_ae"], 1);
    assert_eq!(arm("B")["disposition"]["discontinued_ae"], 1);
    assert_eq!(arm("B")["exposure"]["duration"]["median"], 30.5);
    let report =
        std::fs::read_to_string(dir.path().join("out/DISP/2021-04-10/all/report.html")).unwrap();
    assert!(report.contains("Disposition and exposure"));
    assert!(report.contains(
        "1 subject(s) still on treatment, counted to the data cut-off (or by the ADSL duration)"
    ));
}

#[test]
fn without_the_columns_nothing_is_made_up() {
    let dir = tempfile::tempdir().unwrap();
    // No status, no reason, no treatment dates: neither disposition nor exposure.
    let adsl = "USUBJID,ARM,TRTSDT\nS1,A,\nS2,B,\n";
    disposition_of(dir.path(), adsl, "").success();
    let c = &results(dir.path())["cohorts"][0];
    assert!(
        c.get("disposition").is_none() && c.get("exposure").is_none(),
        "{c}"
    );

    // A status only: no reasons, and discontinuation because of adverse events not available.
    let adsl = "USUBJID,ARM,TRTSDT,EOSSTT\nS1,A,,COMPLETED\nS2,B,,DISCONTINUED\n";
    disposition_of(dir.path(), adsl, "").success();
    let d = &results(dir.path())["cohorts"][0]["disposition"];
    assert_eq!(d["discontinued"], 1);
    assert!(
        d["discontinued_ae"].is_null() && d["reasons"] == serde_json::json!([]),
        "{d}"
    );
    let report =
        std::fs::read_to_string(dir.path().join("out/DISP/2021-04-10/all/report.html")).unwrap();
    assert!(report.contains("not available"));

    // A column named in the config that ADSL lacks is an error naming the key.
    let stderr = disposition_of(dir.path(), adsl, ", disposition_reason: DCDECOD")
        .code(2)
        .stderr();
    assert!(
        stderr.contains("key `data.disposition_reason`: column `DCDECOD` is not in ADSL"),
        "{stderr}"
    );
}

#[test]
fn ae_actions_are_counted_once_per_subject_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("adsl.csv"),
        "USUBJID,TRTSDT,TRTEDT,EOSSTT,SAFFL\n\
         S1,2021-01-01,2021-02-01,DISCONTINUED,Y\n\
         S2,2021-01-01,2021-03-01,COMPLETED,Y\n\
         S3,2021-01-01,2021-03-01,COMPLETED,Y\n\
         S4,2021-01-01,2021-03-01,DISCONTINUED,Y\n",
    )
    .unwrap();
    std::fs::write(
        d.join("adae.csv"),
        "USUBJID,AEDECOD,ATOXGR,AEREL,TRTEMFL,AEACN,AESDTH\n\
         S1,RASH,3,Y,Y,DRUG WITHDRAWN,N\n\
         S1,NAUSEA,1,Y,Y,drug withdrawn,N\n\
         S2,RASH,2,Y,Y,DOSE REDUCED,N\n\
         S2,FATIGUE,1,N,Y,DRUG INTERRUPTED,N\n\
         S3,FATIGUE,1,N,Y,DOSE NOT CHANGED,N\n\
         S4,SEPSIS,4,N,Y,DRUG WITHDRAWN,Y\n",
    )
    .unwrap();
    std::fs::write(
        d.join("study.yaml"),
        "study: { id: ACT }\n\
         data: { adsl: adsl.csv, adae: adae.csv }\n\
         analysis: { tte_params: {} }\n\
         cohorts: [{ id: all }]\n",
    )
    .unwrap();
    build_quietly(&d.join("out"), &d.join("study.yaml")).success();
    let folder = d.join("out/ACT/no-cutoff");
    let r: Value = read_json(&folder.join("results.json"));
    let s = &r["cohorts"][0]["safety"];
    // S1's two withdrawn TRAEs count once; S4's fatal sepsis is unrelated (AESDTH = Y).
    assert_eq!(s["trae"]["discontinued"], 1);
    assert_eq!(s["trae"]["reduced"], 1);
    assert_eq!(s["trae"]["interrupted"], 0);
    assert_eq!(s["teae"]["discontinued"], 2);
    assert_eq!(s["teae"]["interrupted"], 1);
    assert_eq!(
        (&s["teae"]["fatal"], &s["trae"]["fatal"]),
        (&1.into(), &0.into())
    );
    // EOSSTT without a reason or DSRAEFL: discontinuation because of AEs from AEACN.
    let disp = &r["cohorts"][0]["disposition"];
    assert_eq!(disp["discontinued_ae"], 2);
    assert_eq!(disp["discontinued_ae_source"], "AEACN");
    let text = std::fs::read_to_string(folder.join("all/abstract.txt")).unwrap();
    assert!(
        text.contains("TRAEs led to treatment discontinuation in 1 pt (25.0%)."),
        "{text}"
    );
    let report = std::fs::read_to_string(folder.join("all/report.html")).unwrap();
    assert!(report.contains("Leading to dose reduction"));

    // Without AEACN the counts are absent, not zero, and nothing is said.
    let adae = std::fs::read_to_string(d.join("adae.csv")).unwrap();
    let without: String = adae
        .lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            format!("{},{}\n", cells[..5].join(","), cells[6])
        })
        .collect();
    std::fs::write(d.join("adae.csv"), without).unwrap();
    build_quietly(&d.join("out2"), &d.join("study.yaml")).success();
    let folder = d.join("out2/ACT/no-cutoff");
    let r: Value = read_json(&folder.join("results.json"));
    assert!(r["cohorts"][0]["safety"]["trae"]
        .get("discontinued")
        .is_none());
    assert!(r["cohorts"][0]["disposition"]["discontinued_ae"].is_null());
    let text = std::fs::read_to_string(folder.join("all/abstract.txt")).unwrap();
    assert!(!text.contains("discontinuation"), "{text}");
}

#[test]
fn adex_gives_the_dose_and_two_rows_of_a_subject_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("adex.csv"),
        "USUBJID,PARAMCD,AVAL\n\
         S1,TDOSE,1000\nS2,TDOSE,3000\nS4,TDOSE,2000\n\
         S1,PDOSINT,100\nS2,PDOSINT,80\nS4,PDOSINT,95.5\n\
         S1,DOSE,50\n",
    )
    .unwrap();
    disposition_of(d, ADSL, ", adex: adex.csv").success();
    let c = &results(d)["cohorts"][0];
    let dose = &c["exposure"]["dose"];
    // Over the safety subjects with a value (S1, S2, S4); no average daily dose in ADEX.
    assert_eq!(dose["CUMDOSE"]["median"], 2000.0);
    assert_eq!(dose["RDI"]["min"], 80.0);
    assert!(dose.get("AVGDD").is_none(), "{dose}");
    let report = std::fs::read_to_string(d.join("out/DISP/2021-04-10/all/report.html")).unwrap();
    assert!(report.contains("Relative dose intensity (%), median (range)"));

    std::fs::write(
        d.join("adex.csv"),
        "USUBJID,PARAMCD,AVAL\nS1,TDOSE,1\nS1,TDOSE,2\n",
    )
    .unwrap();
    let stderr = disposition_of(d, ADSL, ", adex: adex.csv").code(2).stderr();
    assert!(
        stderr.contains("adex.csv: line 3") && stderr.contains("subject `S1` has two TDOSE rows"),
        "{stderr}"
    );
}

#[test]
fn a_fatal_trae_below_grade_4_is_a_death_not_no_grade_4_or_5() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("adsl.csv"),
        "USUBJID,TRTSDT\nS1,2021-01-01\nS2,2021-01-01\n",
    )
    .unwrap();
    // A grade 3 related event with a fatal outcome (AEOUT), and one with AESDTH = Y.
    std::fs::write(
        d.join("adae.csv"),
        "USUBJID,AEDECOD,ATOXGR,AEREL,AEOUT,AESDTH\n\
         S1,PNEUMONITIS,3,Y,FATAL,N\n\
         S2,RASH,3,Y,RECOVERED/RESOLVED,N\n",
    )
    .unwrap();
    std::fs::write(
        d.join("study.yaml"),
        "study: { id: DTH }\ndata: { adsl: adsl.csv, adae: adae.csv }\n\
         analysis: { tte_params: {} }\ncohorts: [{ id: all }]\n",
    )
    .unwrap();
    build_quietly(&d.join("out"), &d.join("study.yaml")).success();
    let text = std::fs::read_to_string(d.join("out/DTH/no-cutoff/all/abstract.txt")).unwrap();
    assert!(
        text.contains("One treatment-related death was reported."),
        "{text}"
    );
    assert!(!text.contains("No grade 4 or 5 TRAE"), "{text}");
}

#[test]
fn at_an_earlier_cut_off_durations_stop_there_and_disposition_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    // TRTDUR of 200 days, but the cut-off 2021-04-10 is day 100.
    let adsl = "USUBJID,ARM,TRTSDT,TRTEDT,TRTDUR,EOSSTT\n\
                S1,A,2021-01-01,2021-07-19,200,COMPLETED\n\
                S2,B,2021-01-01,2021-01-20,20,DISCONTINUED\n";
    disposition_of(dir.path(), adsl, "").success();
    let c = &results(dir.path())["cohorts"][0];
    assert_eq!(c["exposure"]["duration"]["max"], 100.0);
    assert_eq!(c["exposure"]["duration"]["min"], 20.0);
    let warnings = c["warnings"].to_string();
    assert!(
        warnings.contains("end of study status is as ADSL records it, not cut at 2021-04-10"),
        "{warnings}"
    );
}

/// Two levels, each by its own rules (issue 40): end of treatment (EOTSTT, reasons DCTREAS:
/// never-treated subjects a row of their own, a treatment ending after the cut-off ongoing at
/// it) and end of study (EOSSTT, reasons DCSREAS, cut by EOSDT); synonyms of a status read as
/// it, an unknown one counted apart with a warning naming it and the subject; a subject
/// without TRTEDT whose treatment is recorded as ended has no duration (warned), one still
/// treated runs to the cut-off.
#[test]
fn treatment_and_study_levels_are_reported_each_by_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let adsl = "\
USUBJID,ARM,TRTSDT,TRTEDT,EOTSTT,DCTREAS,EOSSTT,EOSDT,DCSREAS,SAFFL
T1,A,2021-01-01,2021-02-01,COMPLETED,,COMPLETED,2021-03-01,,Y
T2,A,2021-01-01,2021-01-20,DISCONTINUED,ADVERSE EVENT,DISCONTINUED,2021-02-01,WITHDRAWAL BY SUBJECT,Y
T3,A,,,NOT TREATED,,DISCONTINUED,2021-01-05,WITHDRAWAL BY SUBJECT,N
T4,A,2021-01-01,,ONGOING,,ONGOING,,,Y
T5,B,2021-01-01,2021-05-01,DISCONTINUED,PROGRESSIVE DISEASE,ONGOING,,,Y
T6,B,2021-01-01,,DISCONTINUED,ADVERSE EVENT,ONGOING,,,Y
T7,B,2021-01-01,2021-01-30,EARLY TERMINATION,LOST TO FOLLOW-UP,DISCONTINUATION,2021-02-15,LOST TO FOLLOW-UP,Y
T8,B,2021-01-01,2021-02-10,COMPLETD,,COMPLETED,2021-06-01,,Y
";
    disposition_of(dir.path(), adsl, "").success();
    let c = &results(dir.path())["cohorts"][0];
    let t = &c["disposition"];
    assert_eq!(t["level"], "treatment");
    assert_eq!(t["label"], "End of treatment");
    // T1 completed; T2, T6, T7 discontinued; T4 ongoing and T5 ongoing at the cut-off
    // (treatment ended on 2021-05-01); T3 never treated; T8's COMPLETD apart.
    let counts = |d: &Value| {
        [&d["N"], &d["completed"], &d["discontinued"], &d["ongoing"]].map(|v| v.as_u64().unwrap())
    };
    assert_eq!(counts(t), [8, 1, 3, 2]);
    assert_eq!(t["not_treated"], 1);
    assert_eq!(
        t["other"],
        serde_json::json!([{"reason": "COMPLETD", "n": 1}])
    );
    assert_eq!(t["reason_column"], "DCTREAS");
    assert_eq!(
        (&t["discontinued_ae"], &t["discontinued_ae_source"]),
        (&2.into(), &"DCTREAS".into())
    );
    let s = &c["study_disposition"];
    assert_eq!(s["level"], "study");
    // T1 completed; T2, T3, T7 (DISCONTINUATION) discontinued; T4, T5, T6 ongoing, and T8,
    // whose study ended (EOSDT 2021-06-01) after the cut-off.
    assert_eq!(counts(s), [8, 1, 3, 4]);
    assert!(s.get("not_treated").is_none());
    assert_eq!(
        (&s["discontinued_ae"], &s["discontinued_ae_source"]),
        (&0.into(), &"DCSREAS".into())
    );
    // Exposure over the safety population (T3 is not in it): T1 32, T2 20, T4 and T5 to the
    // cut-off 2021-04-10 (100 days, ongoing), T7 30, T8 41; T6 has no TRTEDT but ended.
    let e = &c["exposure"];
    assert_eq!(
        (&e["n"], &e["ongoing"], &e["missing"]),
        (&6.into(), &2.into(), &1.into())
    );
    assert_eq!(e["duration"]["max"], 100.0);
    let warnings = c["warnings"].to_string();
    assert!(
        warnings.contains("status `COMPLETD` (ADSL EOTSTT) is not one readout reads")
            && warnings.contains("T8"),
        "{warnings}"
    );
    assert!(
        warnings.contains("have no TRTEDT although their treatment is recorded as ended")
            && warnings.contains("T6"),
        "{warnings}"
    );
    assert!(
        !warnings.contains("not cut at"),
        "EOSDT cuts the study level: {warnings}"
    );
    // Per arm, the same levels.
    let arm_b = c["arms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["arm"] == "B")
        .unwrap();
    assert_eq!(counts(&arm_b["disposition"]), [4, 0, 2, 1]);
    assert_eq!(counts(&arm_b["study_disposition"]), [4, 0, 1, 3]);
    let report =
        std::fs::read_to_string(dir.path().join("out/DISP/2021-04-10/all/report.html")).unwrap();
    for text in [
        "End of treatment",
        "End of study",
        "Never treated",
        "Status \"COMPLETD\" (not recognised)",
    ] {
        assert!(
            report.contains(&text.replace('"', "&quot;")) || report.contains(text),
            "{text}"
        );
    }

    // Without a cut-off: T5's treatment ended (discontinued), T8's study completed. T4, still
    // treated, has ADSL's TRTDURD (150 days): ongoing, with that duration.
    let no_cut: String = adsl
        .lines()
        .enumerate()
        .map(|(i, l)| match i {
            0 => format!("{l},TRTDURD\n"),
            _ if l.starts_with("T4,") => format!("{l},150\n"),
            _ => format!("{l},\n"),
        })
        .collect();
    std::fs::write(dir.path().join("adsl.csv"), &no_cut).unwrap();
    std::fs::write(
        dir.path().join("study.yaml"),
        "study: { id: DISP }\ndata: { adsl: adsl.csv }\nanalysis: { time_unit: days, tte_params: {} }\n\
         cohorts:\n  - { id: all }\n",
    )
    .unwrap();
    build_quietly(&dir.path().join("out2"), &dir.path().join("study.yaml")).success();
    let r = read_json(&dir.path().join("out2/DISP/no-cutoff/results.json"));
    let c = &r["cohorts"][0];
    assert_eq!(counts(&c["disposition"]), [8, 1, 4, 1]);
    assert_eq!(counts(&c["study_disposition"]), [8, 2, 3, 3]);
    let e = &c["exposure"];
    assert_eq!((&e["ongoing"], &e["missing"]), (&1.into(), &1.into()));
    assert_eq!(e["duration"]["max"], 150.0);
}

/// A Y/N completion flag as the status (COMP24FL: Y completed, N did not), with reasons
/// counted among those who did not complete (issue 43, as the CDISC pilot's table 14-1.02);
/// `data.disposition` and the one-level keys together are refused; so is a named column ADSL
/// lacks.
#[test]
fn a_completion_flag_is_a_status() {
    let dir = tempfile::tempdir().unwrap();
    let adsl = "\
USUBJID,ARM,TRTSDT,COMP24FL,DCREASCD
F1,A,2021-01-01,Y,Completed
F2,A,2021-01-01,N,Adverse Event
F3,B,2021-01-01,N,Withdrew Consent
F4,B,2021-01-01,Y,Adverse Event
";
    disposition_of(
        dir.path(),
        adsl,
        ", disposition: { study: { status: COMP24FL, reason: DCREASCD, label: Completion of week 24 } }",
    )
    .success();
    let d = &results(dir.path())["cohorts"][0]["disposition"];
    assert_eq!(
        (&d["completed"], &d["discontinued"], &d["ongoing"]),
        (&2.into(), &2.into(), &0.into())
    );
    assert_eq!(d["label"], "Completion of week 24");
    // F4 completed week 24 and stopped later for an AE: not among the reasons.
    assert_eq!(
        d["reasons"],
        serde_json::json!([{"reason": "Adverse Event", "n": 1}, {"reason": "Withdrew Consent", "n": 1}])
    );
    assert_eq!(d["discontinued_ae"], 1);
    let stderr = disposition_of(
        dir.path(),
        adsl,
        ", disposition: { study: COMP24FL }, disposition_reason: DCREASCD",
    )
    .code(2)
    .stderr();
    assert!(
        stderr.contains("key `data.disposition`: give the levels here"),
        "{stderr}"
    );
    let stderr = disposition_of(dir.path(), adsl, ", disposition: { treatment: EOTSTT }")
        .code(2)
        .stderr();
    assert!(
        stderr.contains("key `data.disposition.treatment`: column `EOTSTT` is not in ADSL"),
        "{stderr}"
    );
}

/// DSRAEFL present but empty on every row gives no count (`null`, not 0); with a DSRAEFL value
/// the randomised abstract says how many stopped because of adverse events in each arm.
#[test]
fn dsraefl_empty_is_not_available_and_given_is_said_per_arm() {
    let dir = tempfile::tempdir().unwrap();
    let adsl = "USUBJID,ARM,TRTSDT,EOSSTT,DSRAEFL\n\
                S1,A,2021-01-01,DISCONTINUED,\nS2,A,2021-01-01,COMPLETED,\n\
                S3,B,2021-01-01,DISCONTINUED,\nS4,B,2021-01-01,COMPLETED,\n";
    disposition_of(dir.path(), adsl, "").success();
    let c = &results(dir.path())["cohorts"][0];
    assert!(
        c["disposition"]["discontinued_ae"].is_null(),
        "{}",
        c["disposition"]
    );
    let text =
        std::fs::read_to_string(dir.path().join("out/DISP/2021-04-10/all/abstract.txt")).unwrap();
    assert!(!text.contains("led to discontinuation"), "{text}");

    let adsl = adsl
        .replace(
            "S1,A,2021-01-01,DISCONTINUED,",
            "S1,A,2021-01-01,DISCONTINUED,Y",
        )
        .replace(
            "S3,B,2021-01-01,DISCONTINUED,",
            "S3,B,2021-01-01,DISCONTINUED,N",
        );
    disposition_of(dir.path(), &adsl, "").success();
    let c = &results(dir.path())["cohorts"][0];
    assert_eq!(c["disposition"]["discontinued_ae"], 1);
    assert_eq!(c["disposition"]["discontinued_ae_source"], "DSRAEFL");
    let text =
        std::fs::read_to_string(dir.path().join("out/DISP/2021-04-10/all/abstract.txt")).unwrap();
    assert!(
        text.contains("Adverse events were the reason for ending the study in 0/2 (0.0%) with B and 1/2 (50.0%) with A."),
        "{text}"
    );
}

//! Adverse-event counts as results.json, the abstract and the report give them (docs/OUTPUTS.md,
//! `safety`): a count whose ADAE column is absent, or empty on every row, is `null` ("not
//! available"), never 0, and no sentence is written about it.

use std::path::Path;

use serde_json::Value;

use crate::common::{build_quietly, read_json};

/// A single-arm study of three subjects and `adae` as ADAE; returns results.json's cohort, the
/// abstract's text and the report.
fn safety_of(dir: &Path, adae: &str, arms: bool) -> (Value, String, String) {
    std::fs::write(
        dir.join("adsl.csv"),
        "USUBJID,ARM,TRTSDT,TRTEDT,SAFFL\n\
         S1,A,2021-01-01,2021-03-01,Y\nS2,A,2021-01-01,2021-03-01,Y\n\
         S3,B,2021-01-01,2021-03-01,Y\nS4,B,2021-01-01,2021-03-01,Y\n",
    )
    .unwrap();
    std::fs::write(dir.join("adae.csv"), adae).unwrap();
    let cohort = if arms {
        "{ id: all, arms: { column: ARM, reference: B } }"
    } else {
        "{ id: all }"
    };
    std::fs::write(
        dir.join("study.yaml"),
        format!(
            "study: {{ id: AE }}\ndata: {{ adsl: adsl.csv, adae: adae.csv }}\n\
             analysis: {{ tte_params: {{}} }}\ncohorts: [{cohort}]\n"
        ),
    )
    .unwrap();
    let out = dir.join(format!("out-{arms}-{}", adae.len()));
    build_quietly(&out, &dir.join("study.yaml")).success();
    let folder = out.join("AE/no-cutoff");
    let results = read_json(&folder.join("results.json"));
    let text = std::fs::read_to_string(folder.join("all/abstract.txt")).unwrap();
    let report = std::fs::read_to_string(folder.join("all/report.html")).unwrap();
    (results["cohorts"][0].clone(), text, report)
}

/// Without AESER, AETOXGR (or a severity) and AEACN, or with those columns empty on every row
/// (the CDISC pilot's AEACN), serious, grade ≥3/≥4, fatal and action counts are `null`; the
/// abstract says nothing of them; the report prints "–".
#[test]
fn counts_from_absent_or_empty_columns_are_not_available() {
    let dir = tempfile::tempdir().unwrap();
    for adae in [
        "USUBJID,AEDECOD,AEREL\nS1,RASH,Y\nS2,NAUSEA,N\nS3,RASH,Y\n",
        "USUBJID,AEDECOD,AEREL,AETOXGR,AESER,AEACN,AEOUT,AESDTH\n\
         S1,RASH,Y,,,,,\nS2,NAUSEA,N,,,,,\nS3,RASH,Y,,,,,\n",
    ] {
        for arms in [false, true] {
            let (c, text, report) = safety_of(dir.path(), adae, arms);
            let teae = &c["safety"]["teae"];
            assert_eq!(teae["any"], 3, "{teae}");
            for key in ["grade3plus", "grade4plus", "serious", "fatal"] {
                assert!(
                    teae[key].is_null() && c["safety"]["trae"][key].is_null(),
                    "{key}: {teae}"
                );
            }
            assert!(teae.get("discontinued").is_none(), "{teae}");
            assert!(c["safety"]["by_term"][0]["trae_grade3plus"].is_null());
            for said in ["grade ≥3", "death", "serious", "discontinuation", "grade 4"] {
                assert!(!text.contains(said), "{said} in {text}");
            }
            assert!(
                text.contains("Treatment-related adverse events (TRAEs) occurred in"),
                "{text}"
            );
            assert!(
                report.contains("<td class=\"num\">–</td>"),
                "the report prints – for them"
            );
            if arms {
                // Only the kinds the data give are compared.
                let kinds: Vec<&str> = c["comparisons"][0]["safety"]["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["term"].is_null())
                    .map(|r| r["kind"].as_str().unwrap())
                    .collect();
                assert_eq!(kinds, ["any TEAE", "any TRAE"]);
            }
        }
    }
}

/// Exposure-adjusted incidence rates with an event that has no start date (issue 40): the
/// subject counts the event, and its whole exposure as time at risk (a documented rule, with a
/// warning saying how many subjects); a dated event counts the time to it. By hand: arm A,
/// S1 exposure 100 days with RASH on day 10 (10 days at risk), S2 exposure 200 days with an
/// undated RASH (200 days): 2 subjects over 210 days = 347.86 per 100 patient-years; arm B,
/// S3 no event (60 days), S4 RASH on day 20 (20 days): 1 over 80 days = 456.56.
#[test]
fn an_undated_event_counts_the_whole_exposure_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("adsl.csv"),
        "USUBJID,ARM,TRTSDT,TRTEDT,SAFFL\n\
         S1,A,2021-01-01,2021-04-10,Y\nS2,A,2021-01-01,2021-07-19,Y\n\
         S3,B,2021-01-01,2021-03-01,Y\nS4,B,2021-01-01,2021-03-21,Y\n",
    )
    .unwrap();
    std::fs::write(
        d.join("adae.csv"),
        "USUBJID,AEDECOD,AEREL,ASTDT,TRTEMFL\n\
         S1,RASH,Y,2021-01-10,Y\nS2,RASH,Y,,Y\nS4,RASH,Y,2021-01-20,Y\n",
    )
    .unwrap();
    std::fs::write(
        d.join("study.yaml"),
        "study: { id: EAIR }\ndata: { adsl: adsl.csv, adae: adae.csv }\n\
         analysis: { tte_params: {} }\ncohorts: [{ id: all, arms: { column: ARM, reference: B } }]\n",
    )
    .unwrap();
    build_quietly(&d.join("out"), &d.join("study.yaml")).success();
    let r = read_json(&d.join("out/EAIR/no-cutoff/results.json"));
    let c = &r["cohorts"][0];
    let rash = c["comparisons"][0]["safety"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["term"] == "RASH")
        .unwrap()
        .clone();
    let per_100py = |n: f64, days: f64| 100.0 * n / (days / 365.25);
    let close = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-9 * x;
    assert!(
        close(&rash["eair"]["estimate"], per_100py(2.0, 210.0)),
        "{rash}"
    );
    assert!(
        close(&rash["eair_reference"]["estimate"], per_100py(1.0, 80.0)),
        "{rash}"
    );
    let warnings = c["warnings"].to_string();
    assert!(
        warnings.contains("1 safety subject(s) have an event without a start date (ASTDT)"),
        "{warnings}"
    );
}

/// `analysis.safety_view: teae` and `ae_special_interest` (issue 42): grade ≥3, serious and
/// fatal TEAEs and each group of special interest, counted by subject (worst event), per arm in
/// a randomised abstract and for the cohort in a single-arm one.
#[test]
fn the_teae_view_and_events_of_special_interest_are_counted_by_subject() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("adsl.csv"),
        "USUBJID,ARM,TRTSDT,TRTEDT,SAFFL\n\
         S1,A,2021-01-01,2021-03-01,Y\nS2,A,2021-01-01,2021-03-01,Y\n\
         S3,B,2021-01-01,2021-03-01,Y\nS4,B,2021-01-01,2021-03-01,Y\n",
    )
    .unwrap();
    // S1: grade 3 pneumonia (serious) and grade 1 sepsis; S2: grade 5 sepsis (serious, fatal);
    // S3: grade 2 rash; S4: no TEAE (its event is not treatment-emergent).
    std::fs::write(
        dir.path().join("adae.csv"),
        "USUBJID,AEDECOD,AEBODSYS,AETOXGR,AESER,AEREL,TRTEMFL\n\
         S1,PNEUMONIA,Infections and infestations,3,Y,N,Y\n\
         S1,SEPSIS,Infections and infestations,1,N,N,Y\n\
         S2,SEPSIS,INFECTIONS AND INFESTATIONS,5,Y,N,Y\n\
         S3,RASH,Skin and subcutaneous tissue disorders,2,N,Y,Y\n\
         S4,RASH,Skin and subcutaneous tissue disorders,3,N,Y,N\n",
    )
    .unwrap();
    for arms in [true, false] {
        let cohort = if arms {
            "{ id: all, arms: { column: ARM, reference: B } }"
        } else {
            "{ id: all }"
        };
        std::fs::write(
            dir.path().join("study.yaml"),
            format!(
                "study: {{ id: AE }}\ndata: {{ adsl: adsl.csv, adae: adae.csv }}\n\
                 analysis:\n  tte_params: {{}}\n  safety_view: teae\n  ae_special_interest:\n    \
                 - {{ label: infections, body_system: Infections and infestations }}\n    \
                 - {{ label: rash, terms: [rash] }}\ncohorts: [{cohort}]\n"
            ),
        )
        .unwrap();
        let out = dir.path().join(format!("out-{arms}"));
        build_quietly(&out, &dir.path().join("study.yaml")).success();
        let folder = out.join("AE/no-cutoff");
        let results = read_json(&folder.join("results.json"));
        let c = &results["cohorts"][0];
        let text = std::fs::read_to_string(folder.join("all/abstract.txt")).unwrap();
        let groups = &c["safety"]["special_interest"];
        assert_eq!(groups[0]["label"], "infections");
        assert_eq!(
            (
                &groups[0]["n"],
                &groups[0]["grade3plus"],
                &groups[0]["serious"]
            ),
            (&Value::from(2), &Value::from(2), &Value::from(2)),
            "{groups}"
        );
        assert_eq!(
            (&groups[1]["n"], &groups[1]["grade3plus"]),
            (&Value::from(1), &Value::from(0))
        );
        assert!(!text.contains("TRAE"), "{text}");
        if arms {
            assert!(
                text.contains(
                    "Grade ≥3 TEAEs occurred in 2/2 pts (100.0%) with A and 0/2 (0.0%) with B; \
                     serious TEAEs in 2/2 (100.0%) with A and 0/2 (0.0%) with B; \
                     fatal TEAEs in 1/2 (50.0%) with A and 0/2 (0.0%) with B."
                ),
                "{text}"
            );
            assert!(
                text.contains("Infections (any grade) occurred in 2/2 (100.0%) with A and 0/2 (0.0%) with B. Rash (any grade) occurred in 0/2 (0.0%) with A and 1/2 (50.0%) with B."),
                "{text}"
            );
        } else {
            assert!(
                text.contains(
                    "Treatment-emergent adverse events (TEAEs) occurred in 3 pts (75.0%): \
                     grade ≥3 in 2 (50.0%), serious in 2 (50.0%) and fatal in 1 (25.0%)."
                ),
                "{text}"
            );
            assert!(
                text.contains("Infections (any grade) occurred in 2 pts (50.0%); grade ≥3 in 2 (50.0%). Rash (any grade) occurred in 1 pt (25.0%); grade ≥3 in 0 (0.0%)."),
                "{text}"
            );
        }
    }
}

/// The CSR tables on a hand-made ADAE (issue 43): an arm without any AE gets "0 (0.0%)" in every
/// row and no class of its own; a subject with two records of one term counts once and twice;
/// the classes follow `analysis.ae_sort`; serious, discontinuation and fatal tables only with
/// their columns; the tables are numbered; the common-TEAE table keeps the terms in at least
/// `ae_common_pct`% of an arm.
#[test]
fn tables_by_class_and_term_per_arm_and_in_total() {
    let dir = tempfile::tempdir().unwrap();
    let adae = "USUBJID,AEBODSYS,AEDECOD,AEREL,AETOXGR,AESER\n\
                S1,Skin disorders,RASH,Y,1,N\nS1,SKIN DISORDERS,Rash,Y,3,Y\n\
                S2,Skin disorders,PRURITUS,N,2,N\nS2,Gastrointestinal disorders,NAUSEA,N,1,N\n\
                S2,Gastrointestinal disorders,VOMITING,N,1,N\nS1,,ODD TERM,N,1,N\n";
    // Arms A (S1, S2) and B (S3, S4): B has no AE.
    let (c, _, report) = safety_of(dir.path(), adae, true);
    let total = &c["safety"];
    let socs: Vec<(&str, u64, u64)> = total["by_soc"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["soc"].as_str().unwrap(),
                s["subjects"].as_u64().unwrap(),
                s["events"].as_u64().unwrap(),
            )
        })
        .collect();
    // Frequency: Skin (2 subjects) first, then by name.
    assert_eq!(
        socs,
        [
            ("Skin disorders", 2, 3),
            ("Gastrointestinal disorders", 1, 2),
            ("Not coded", 1, 1)
        ]
    );
    // Ties by name: PRURITUS, then RASH (S1's two records, one subject).
    let rash = &total["by_soc"][0]["terms"][1];
    assert_eq!(
        (&rash["term"], &rash["subjects"], &rash["events"]),
        (&"RASH".into(), &1.into(), &2.into())
    );
    assert_eq!(total["events"]["any"], 6);
    assert_eq!(
        total["by_soc_grade"][0]["grades"],
        serde_json::json!([0, 1, 1, 0, 0])
    );
    assert_eq!(total["serious_by_soc"][0]["terms"][0]["term"], "RASH");
    assert!(total["discontinuation_by_soc"].is_null(), "no AEACN");
    // A CTCAE grade can say fatal (grade 5): known, none.
    assert_eq!(total["fatal_by_soc"], serde_json::json!([]));
    let b = c["arms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["arm"] == "B")
        .unwrap();
    assert_eq!(b["safety"]["by_soc"], serde_json::json!([]));
    // The report: numbered tables, B's cells 0, the total column.
    // Every table numbered in order; the CSR tables by their titles.
    let numbers: Vec<usize> = report
        .match_indices("Table ")
        .filter_map(|(at, _)| report[at + 6..].split_once(". ")?.0.parse().ok())
        .collect();
    assert!(numbers.len() > 3, "{numbers:?}");
    assert_eq!(numbers, (1..=numbers.len()).collect::<Vec<_>>());
    let teae = report
        .find(". Treatment-emergent adverse events by system organ class")
        .expect("TEAE table");
    let serious = report
        .find(". Serious treatment-emergent adverse events")
        .expect("serious TEAE table");
    assert!(teae < serious);
    assert!(!report.contains("leading to treatment discontinuation by system organ class"));
    let table = &report[teae..];
    let row = |label: &str| {
        let at = table
            .find(&format!(">{label}</th>"))
            .unwrap_or_else(|| panic!("{label}"));
        table[at..].split("</tr>").next().unwrap().to_string()
    };
    let skin = row("Skin disorders");
    assert!(
        skin.contains(">2 (100.0%)</td>")
            && skin.contains(">0 (0.0%)</td>")
            && skin.contains(">2 (50.0%)</td>"),
        "{skin}"
    );
    assert!(report.contains("in at least 10% of subjects in any arm"));

    // Alphabetically, and a threshold no term reaches in any arm.
    let yaml = std::fs::read_to_string(dir.path().join("study.yaml"))
        .unwrap()
        .replace(
            "tte_params: {} }",
            "tte_params: {}, ae_sort: alphabetical, ae_common_pct: 60 }",
        );
    std::fs::write(dir.path().join("study.yaml"), yaml).unwrap();
    let out = dir.path().join("alpha");
    build_quietly(&out, &dir.path().join("study.yaml")).success();
    let folder = out.join("AE/no-cutoff");
    let results = read_json(&folder.join("results.json"));
    let names: Vec<&str> = results["cohorts"][0]["safety"]["by_soc"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["soc"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Gastrointestinal disorders", "Not coded", "Skin disorders"]
    );
    let report = std::fs::read_to_string(folder.join("all/report.html")).unwrap();
    assert!(
        !report.contains("in at least 60% of subjects"),
        "no term in 60% of an arm"
    );
}

/// The slide keys `[ae-soc]` and `[ae-common]` show the report's CSR tables (issue 43).
#[test]
fn slides_show_the_csr_tables_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let adae = "USUBJID,AEBODSYS,AEDECOD,AEREL,AETOXGR\n\
                S1,Skin disorders,RASH,Y,1\nS2,Skin disorders,PRURITUS,N,2\n";
    let _ = safety_of(dir.path(), adae, true);
    std::fs::create_dir(dir.path().join("t")).unwrap();
    std::fs::write(
        dir.path().join("t/slides.txt"),
        "[ae-soc]\nBy class\n[ae-common]\nCommon\n",
    )
    .unwrap();
    let yaml = std::fs::read_to_string(dir.path().join("study.yaml")).unwrap()
        + "output: { formats: [html, pptx], templates: t }\n";
    std::fs::write(dir.path().join("study.yaml"), yaml).unwrap();
    let out = dir.path().join("deck");
    build_quietly(&out, &dir.path().join("study.yaml")).success();
    let words = crate::comparisons_edge::slide_text(&out.join("AE/no-cutoff/all/slides.pptx"));
    for text in [
        "By class",
        "Any TEAE",
        "Skin disorders",
        "Common",
        "PRURITUS",
        "Total (N = 4)",
    ] {
        assert!(
            words.contains(&format!("<a:t>{text}")),
            "{text} not on a slide"
        );
    }
}

//! Arm comparisons against R (`tests/reference/comparative`, made by R's survival 3.5-3 on
//! three of its datasets written as ADaM studies): the Cox model with Efron and Breslow ties,
//! stratified or not, the log-rank test, and per-subgroup hazard ratios, each arm against the
//! reference on those two arms' subjects, to 1e-6 relative.

use std::collections::BTreeMap;

use readout::stats::{cox_fit, ArmSubject, ArmTimes, CoxFit, Ties};
use serde_json::Value;

use crate::common::root;

/// One subject of a reference study.
struct Row {
    arm: String,
    stratum: String,
    subgroup: String,
    time: f64,
    event: bool,
}

fn folder(dataset: &str) -> std::path::PathBuf {
    root().join("tests/reference/comparative").join(dataset)
}

fn records(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("reference CSV");
    let header = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            header
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn rows(dataset: &str) -> Vec<Row> {
    let tte: BTreeMap<String, (f64, bool)> = records(&folder(dataset).join("adtte.csv"))
        .into_iter()
        .filter(|r| r["PARAMCD"] == "OS")
        .map(|r| {
            let time: f64 = r["AVAL"].parse().expect("AVAL");
            (r["USUBJID"].clone(), (time, r["CNSR"] == "0"))
        })
        .collect();
    records(&folder(dataset).join("adsl.csv"))
        .into_iter()
        .map(|r| {
            let (time, event) = tte[&r["USUBJID"]];
            Row {
                arm: r["ARM"].clone(),
                stratum: r["STRAT"].clone(),
                subgroup: r["SUBGRP"].clone(),
                time,
                event,
            }
        })
        .collect()
}

fn expected(dataset: &str) -> Value {
    let text = std::fs::read_to_string(folder(dataset).join("expected.json")).expect("expected");
    serde_json::from_str(&text).expect("JSON")
}

#[track_caller]
fn close(what: &str, expected: &Value, actual: Option<f64>) {
    let e = expected
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: no expected number"));
    let a = actual.unwrap_or_else(|| panic!("{what}: readout has none, R {e}"));
    let rel = ((a - e) / e.abs().max(1e-300)).abs();
    // R's coxph stops when the log-likelihood changes by under 1e-9 relative, so its
    // coefficients agree to ~4e-9 and its Wald p-values to ~4e-8 (measured): 1e-6, not 1e-9.
    assert!(
        rel <= 1e-6,
        "{what}: readout {a}, R {e} (relative error {rel:.2e})"
    );
}

/// The subjects of `arm` and the reference as two-arm subjects, strata numbered when
/// `stratified`.
fn cox_subjects<'a>(
    rows: impl Iterator<Item = &'a Row>,
    arm: &str,
    stratified: bool,
) -> Vec<ArmSubject> {
    let mut strata: BTreeMap<&str, u32> = BTreeMap::new();
    rows.map(|r| {
        let next = strata.len() as u32;
        let stratum = stratified.then(|| *strata.entry(r.stratum.as_str()).or_insert(next));
        ArmSubject {
            time: r.time,
            event: r.event,
            in_arm: r.arm == arm,
            stratum,
        }
    })
    .collect()
}

fn check_cox(what: &str, expected: &Value, fit: &CoxFit) {
    close(&format!("{what} coef"), &expected["coef"], fit.coef);
    close(&format!("{what} se"), &expected["se"], fit.se);
    let hr = fit.hr.as_ref();
    close(
        &format!("{what} HR"),
        &expected["hr"]["estimate"],
        hr.map(|h| h.estimate),
    );
    close(
        &format!("{what} HR lower"),
        &expected["hr"]["lower"],
        hr.map(|h| h.lower),
    );
    close(
        &format!("{what} HR upper"),
        &expected["hr"]["upper"],
        hr.map(|h| h.upper),
    );
    close(&format!("{what} p Wald"), &expected["p_wald"], fit.p_wald);
    close(&format!("{what} p LR"), &expected["p_lr"], fit.p_lr);
    close(
        &format!("{what} p score"),
        &expected["p_score"],
        fit.p_score,
    );
}

#[test]
fn cox_logrank_and_subgroups_match_r() {
    let mut checked = 0;
    for dataset in ["veteran", "lung", "ovarian"] {
        let all = rows(dataset);
        let expect = expected(dataset);
        let reference = expect["reference"].as_str().expect("reference arm");
        for comparison in expect["comparisons"].as_array().expect("comparisons") {
            let arm = comparison["arm"].as_str().expect("arm");
            let two: Vec<&Row> = all
                .iter()
                .filter(|r| r.arm == arm || r.arm == reference)
                .collect();
            let os = &comparison["tte"]["OS"];
            for (stratified, expected) in [(false, os), (true, &os["stratified"])] {
                let subjects = cox_subjects(two.iter().copied(), arm, stratified);
                for (ties, key) in [(Ties::Efron, "efron"), (Ties::Breslow, "breslow")] {
                    let fit = cox_fit(&subjects, ties, 0.95).expect("fit");
                    let what = format!("{dataset} {arm} {key} stratified={stratified}");
                    check_cox(&what, &expected[key], &fit);
                    checked += 8;
                }
                let test = ArmTimes::new(&subjects)
                    .expect("times")
                    .model(stratified)
                    .logrank()
                    .expect("log-rank");
                let what = format!("{dataset} {arm} log-rank stratified={stratified}");
                close(
                    &format!("{what} chisq"),
                    &expected["logrank"]["chisq"],
                    test.chisq,
                );
                close(&format!("{what} p"), &expected["logrank"]["p"], test.p);
                assert_eq!(expected["logrank"]["df"], test.df, "{what} df");
                checked += 3;
            }
            for subgroup in os["subgroups"].as_array().expect("subgroups") {
                let level = subgroup["level"].as_str().expect("level");
                let within: Vec<&Row> = two
                    .iter()
                    .copied()
                    .filter(|r| r.subgroup == level)
                    .collect();
                let count = |of_arm: bool, events: bool| {
                    within
                        .iter()
                        .filter(|r| (r.arm == arm) == of_arm && (!events || r.event))
                        .count()
                };
                assert_eq!(subgroup["n"], count(true, false), "{dataset} {level} n");
                assert_eq!(
                    subgroup["n_reference"],
                    count(false, false),
                    "{dataset} {level}"
                );
                assert_eq!(
                    subgroup["events"],
                    count(true, true),
                    "{dataset} {level} events"
                );
                assert_eq!(
                    subgroup["events_reference"],
                    count(false, true),
                    "{dataset} {level}"
                );
                let fit = cox_fit(
                    &cox_subjects(within.iter().copied(), arm, false),
                    Ties::Efron,
                    0.95,
                )
                .expect("fit");
                let what = format!("{dataset} {arm} subgroup {level}");
                if subgroup["hr"].is_null() {
                    assert!(
                        fit.hr.is_none(),
                        "{what}: R has no HR, readout {:?}",
                        fit.hr
                    );
                    assert!(fit.not_estimable.is_some(), "{what}");
                } else {
                    let hr = fit.hr.as_ref();
                    close(&what, &subgroup["hr"]["estimate"], hr.map(|h| h.estimate));
                    close(
                        &format!("{what} lower"),
                        &subgroup["hr"]["lower"],
                        hr.map(|h| h.lower),
                    );
                    close(
                        &format!("{what} upper"),
                        &subgroup["hr"]["upper"],
                        hr.map(|h| h.upper),
                    );
                    checked += 3;
                }
            }
        }
    }
    assert!(checked > 100, "{checked} values checked");
}

/// Builds a reference study through the whole pipeline (ADSL, ADTTE, ADRS → BOR → results.json)
/// with the given analysis settings, and returns its one cohort.
fn build_reference(dataset: &str, expected: &Value, analysis: &str) -> (tempfile::TempDir, Value) {
    build_reference_as(dataset, expected, analysis, "[md]")
}

/// [`build_reference`] with the given `output.formats`.
fn build_reference_as(
    dataset: &str,
    expected: &Value,
    analysis: &str,
    formats: &str,
) -> (tempfile::TempDir, Value) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = tmp.path().join("study.yaml");
    let text = format!(
        "study: {{ id: {id} }}\n\
         data: {{ dir: {dir}, adsl: adsl.csv, adtte: adtte.csv, adrs: adrs.csv }}\n\
         analysis: {{ tte_params: {{ OS: OS }}, followup: OS{analysis} }}\n\
         cohorts:\n\
         \x20 - id: all\n\
         \x20   arms: {{ column: ARM, reference: {reference:?} }}\n\
         \x20   strata: [STRAT]\n\
         \x20   subgroups: [SUBGRP]\n\
         output: {{ formats: {formats} }}\n",
        id = dataset.to_uppercase(),
        dir = folder(dataset).display(),
        reference = expected["reference"].as_str().expect("reference"),
        formats = formats,
    );
    std::fs::write(&config, text).expect("config");
    let out = tmp.path().join("out");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_readout"))
        .args(["build", "--quiet", "--out"])
        .arg(&out)
        .arg(&config)
        .output()
        .expect("readout runs");
    assert!(
        run.status.success(),
        "{dataset}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let results = out
        .join(dataset.to_uppercase())
        .join("no-cutoff/results.json");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(results).expect("results")).expect("JSON");
    (tmp, results["cohorts"][0].clone())
}

/// The stratified case `dataset` of tests/reference/mn/expected.json (its make_mn.R): the ORR
/// difference over STRAT with its stratified Miettinen–Nurminen interval.
fn mn_stratified(dataset: &str) -> Value {
    let path = root().join("tests/reference/mn/expected.json");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("expected")).expect("JSON");
    expected["stratified"]
        .as_array()
        .expect("stratified")
        .iter()
        .find(|c| c["name"] == dataset)
        .unwrap_or_else(|| panic!("no stratified case {dataset}"))
        .clone()
}

/// The whole pipeline on the reference studies: per-arm counts, and every comparison R made
/// (Cox with either ties, stratified or not, log-rank, subgroups; the ORR difference over the
/// strata, odds ratio, chi-square, Fisher and CMH p) in results.json, to 1e-6.
#[test]
fn results_json_comparisons_match_r() {
    let text = std::fs::read_to_string(root().join("tests/reference/interaction/expected.json"))
        .expect("interaction values");
    let interactions: Value = serde_json::from_str(&text).expect("JSON");
    for dataset in ["veteran", "lung", "ovarian"] {
        let expect = expected(dataset);
        for (ties, diff) in [("efron", "newcombe"), ("breslow", "wald")] {
            let settings = format!(", time_unit: days, cox_ties: {ties}, diff_ci: {diff}");
            let (_tmp, cohort) = build_reference(dataset, &expect, &settings);
            for arm in cohort["arms"].as_array().expect("arms") {
                let name = arm["arm"].as_str().expect("arm");
                let e = &expect["arms"][name];
                assert_eq!(arm["n"]["enrolled"], e["n"], "{dataset} {name} n");
                assert_eq!(
                    arm["tte"]["OS"]["events"], e["events"],
                    "{dataset} {name} events"
                );
                assert_eq!(
                    arm["response"]["orr"]["n"], e["responders"],
                    "{dataset} {name}"
                );
            }
            let comparisons = cohort["comparisons"].as_array().expect("comparisons");
            let expected_comparisons = expect["comparisons"].as_array().expect("comparisons");
            assert_eq!(comparisons.len(), expected_comparisons.len());
            for (k, (c, e)) in comparisons.iter().zip(expected_comparisons).enumerate() {
                assert_eq!(c["arm"], e["arm"]);
                assert_eq!(c["reference"], e["reference"]);
                let what = format!("{dataset} {} {ties}", c["arm"]);
                let (os, eos) = (&c["tte"]["OS"], &e["tte"]["OS"]);
                for key in ["coef", "se", "p_wald", "p_lr", "p_score"] {
                    close(&format!("{what} {key}"), &eos[ties][key], os[key].as_f64());
                    close(
                        &format!("{what} stratified {key}"),
                        &eos["stratified"][ties][key],
                        os["stratified"][key].as_f64(),
                    );
                }
                for key in ["estimate", "lower", "upper"] {
                    close(
                        &format!("{what} HR {key}"),
                        &eos[ties]["hr"][key],
                        os["hr"][key].as_f64(),
                    );
                }
                for key in ["chisq", "p"] {
                    close(
                        &format!("{what} log-rank {key}"),
                        &eos["logrank"][key],
                        os["logrank"][key].as_f64(),
                    );
                    close(
                        &format!("{what} stratified log-rank {key}"),
                        &eos["stratified"]["logrank"][key],
                        os["stratified"]["logrank"][key].as_f64(),
                    );
                }
                let subgroups = os["subgroups"].as_array().expect("subgroups");
                let expected_subgroups = eos["subgroups"].as_array().expect("subgroups");
                assert_eq!(subgroups.len(), expected_subgroups.len(), "{what}");
                for (s, es) in subgroups.iter().zip(expected_subgroups) {
                    assert_eq!(s["column"], "SUBGRP");
                    for key in ["level", "n", "n_reference", "events", "events_reference"] {
                        assert_eq!(s[key], es[key], "{what} subgroup {key}");
                    }
                    if ties == "efron" {
                        if es["hr"].is_null() {
                            assert!(s["hr"].is_null(), "{what} {}: {}", es["level"], s["hr"]);
                        } else {
                            close(
                                &format!("{what} {}", es["level"]),
                                &es["hr"]["estimate"],
                                s["hr"]["estimate"].as_f64(),
                            );
                        }
                    }
                }
                // The interaction test of SUBGRP within the strata STRAT
                // (tests/reference/interaction, made by its make_interaction.R).
                let got = &os["interactions"][0];
                let want = &interactions["comparative"][dataset]["comparisons"][k];
                assert_eq!(want["arm"], c["arm"]);
                let want = &want["stratified"][ties];
                assert_eq!(got["column"], "SUBGRP");
                assert_eq!(got["df"], want["df"], "{what} interaction df");
                for key in ["chisq", "p"] {
                    close(
                        &format!("{what} interaction {key}"),
                        &want[key],
                        got[key].as_f64(),
                    );
                }
                let (orr, eorr) = (&c["response"]["orr"], &e["orr"]);
                for key in ["n", "N", "n_reference", "N_reference"] {
                    assert_eq!(orr[key], eorr[key], "{what} ORR {key}");
                }
                // With strata the difference is the stratified one whatever `diff_ci` says:
                // tests/reference/mn (make_mn.R) over the same STRAT levels.
                let stratified = mn_stratified(dataset);
                for key in ["estimate", "lower", "upper"] {
                    close(
                        &format!("{what} ORR stratified difference {key} (diff_ci: {diff})"),
                        &stratified[key],
                        orr["difference"][key].as_f64(),
                    );
                }
                assert_eq!(orr["difference"]["method"], "mn-stratified");
                for key in ["lower", "upper"] {
                    close(
                        &format!("{what} OR {key}"),
                        &eorr["odds_ratio"][key],
                        orr["odds_ratio"][key].as_f64(),
                    );
                }
                close(
                    &format!("{what} OR"),
                    &eorr["odds_ratio"]["estimate"],
                    orr["odds_ratio"]["estimate"].as_f64(),
                );
                for key in ["p_chisq", "p_fisher", "p_cmh"] {
                    close(&format!("{what} ORR {key}"), &eorr[key], orr[key].as_f64());
                }
            }
        }
    }
}

/// A randomised cohort's documents word the comparison as randomised-trial abstracts do, with
/// R's numbers (lung: stratified HR 0.57, stratified ORR difference 13.1% (1.3%, 25.3%) from
/// tests/reference/mn, CMH p 0.029), and the report (HTML and Word) has the comparison tables;
/// the derived CSV names each subject's arm.
#[test]
fn randomised_documents_read_the_comparisons() {
    let expect = expected("lung");
    let (tmp, _) = build_reference_as("lung", &expect, ", time_unit: months", "[md, html, docx]");
    let folder = tmp.path().join("out/LUNG/no-cutoff");
    let text = std::fs::read_to_string(folder.join("all/abstract.txt")).expect("abstract");
    for sentence in [
        // No enrolment dates: the count opens the sentence; over 99, recast, not spelled.
        "A total of 227 pts were randomized: 90 to Arm B and 137 to Arm A.",
        // Each arm's median with its CI and unit, the events per arm, the HR and named test.
        "Median overall survival was 14.0 months (95% CI: 11.3, 17.2) with Arm B vs 8.9 months (95% CI: 7.0, 10.2) with Arm A (53 vs 111 events; stratified HR 0.57, 95% CI: 0.41, 0.80; stratified log-rank p < 0.001).",
        "The confirmed ORR was 34.4% (31/90; 95% CI: 24.7%, 45.2%) with Arm B vs 21.9% (30/137; 95% CI: 15.3%, 29.8%) with Arm A (stratified difference 13.1%, 95% CI: 1.3%, 25.3%; CMH p = 0.029).",
        "Cox proportional hazards model stratified by STRAT (Efron method for ties)",
        "stratified Miettinen–Nurminen 95% CIs with Cochran–Mantel–Haenszel weights and tested with the Cochran–Mantel–Haenszel test stratified by STRAT, without continuity correction",
    ] {
        assert!(text.contains(sentence), "`{sentence}` missing from:\n{text}");
    }
    let report = std::fs::read_to_string(folder.join("all/report.html")).expect("report");
    for cell in [
        "<section id=\"comparisons\">",
        "<td class=\"num\">0.59 (0.43–0.82)</td>",
        "<td class=\"num\">0.57 (0.41–0.80)</td>",
        "<td class=\"num\">1.87 (1.03–3.39)</td>",
        "<th scope=\"row\" class=\"level\">SUBGRP: &lt;65</th>",
        "<td class=\"num\">0.66 (0.42–1.03)</td>",
    ] {
        assert!(report.contains(cell), "`{cell}` missing from report.html");
    }
    let docx = std::fs::File::open(folder.join("all/report.docx")).expect("docx");
    let mut archive = zip::ZipArchive::new(docx).expect("zip");
    let mut xml = String::new();
    std::io::Read::read_to_string(
        &mut archive.by_name("word/document.xml").expect("document"),
        &mut xml,
    )
    .expect("utf-8");
    // A number cell does not break in Word: a no-break space, a word joiner after the dash.
    assert!(xml.contains("Comparison of arms") && xml.contains("0.57\u{a0}(0.41–\u{2060}0.80)"));
    // The KM figure by arm: a curve per arm, the stratified HR and log-rank p under the legend.
    let km = std::fs::read_to_string(folder.join("all/figures/km-os.svg")).expect("KM figure");
    for text in [
        "Arm B \u{2013} median 14.0",
        "Arm A \u{2013} median 8.9",
        "Stratified HR 0.57 (95% CI 0.41\u{2013}0.80)",
        "Stratified log-rank p &lt; 0.001",
    ] {
        assert!(km.contains(text), "`{text}` missing from km-os.svg");
    }
    let derived = std::fs::read_to_string(folder.join("derived/all.csv")).expect("derived");
    let mut lines = derived.lines();
    assert!(lines.next().expect("header").ends_with(",EFFFL,ARM"));
    let arms: BTreeMap<&str, usize> = lines.fold(BTreeMap::new(), |mut counts, line| {
        *counts
            .entry(line.rsplit(',').next().unwrap_or(""))
            .or_default() += 1;
        counts
    });
    assert_eq!(arms, BTreeMap::from([("Arm A", 137), ("Arm B", 90)]));
}

//! The interaction test of the arm with a subgroup factor against R (issue 29): the
//! likelihood-ratio test `anova(coxph(~ arm + level), coxph(~ arm + level + arm:level))`, with
//! Efron and Breslow ties, stratified or not, to 1e-6 relative
//! (`tests/reference/interaction`, made by its make_interaction.R).

use std::collections::BTreeMap;

use readout::stats::{ArmSubject, ArmTimes, Interaction, Ties};
use serde_json::Value;

use crate::common::root;

fn folder() -> std::path::PathBuf {
    root().join("tests/reference/interaction")
}

fn expected() -> Value {
    let text = std::fs::read_to_string(folder().join("expected.json")).expect("expected");
    serde_json::from_str(&text).expect("JSON")
}

/// A CSV as rows of column → value.
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

/// One subject: time, event, whether in the arm, stratum and level as text.
struct Subject {
    time: f64,
    event: bool,
    in_arm: bool,
    stratum: String,
    level: String,
}

/// The test of `subjects`' levels, within their strata when `stratified` (strata and levels
/// numbered in their sorted order).
fn interaction(subjects: &[Subject], stratified: bool, ties: Ties) -> Interaction {
    let number = |values: Vec<&str>| -> BTreeMap<String, u32> {
        let mut sorted = values;
        sorted.sort_unstable();
        sorted.dedup();
        sorted.into_iter().map(str::to_string).zip(0..).collect()
    };
    let strata = number(subjects.iter().map(|s| s.stratum.as_str()).collect());
    let levels = number(subjects.iter().map(|s| s.level.as_str()).collect());
    let two: Vec<ArmSubject> = subjects
        .iter()
        .map(|s| ArmSubject {
            time: s.time,
            event: s.event,
            in_arm: s.in_arm,
            stratum: stratified.then(|| strata[&s.stratum]),
        })
        .collect();
    let level_of: Vec<u32> = subjects.iter().map(|s| levels[&s.level]).collect();
    ArmTimes::new(&two)
        .expect("times")
        .interaction(|i| level_of.get(i).copied(), stratified, ties)
        .expect("test")
}

#[track_caller]
fn close(what: &str, want: &Value, got: Option<f64>) {
    let w = want
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: no R value"));
    let g = got.unwrap_or_else(|| panic!("{what}: readout has none, R {w}"));
    // The interaction test is two Cox fits: R's coxph stops when the log-likelihood changes by under 1e-9 relative, so its
    // coefficients agree to ~4e-9 and its Wald p-values to ~4e-8 (measured): 1e-6, not 1e-9.
    assert!(
        (g - w).abs() <= 1e-6 * w.abs(),
        "{what}: readout {g}, R {w}"
    );
}

/// chisq, df, p and both log likelihoods against R's, and whether R warned of an infinite
/// coefficient where readout finds the likelihood monotone.
fn check(what: &str, want: &Value, got: &Interaction) {
    assert_eq!(got.not_estimable, None, "{what}");
    assert_eq!(want["df"], got.df, "{what} df");
    assert_eq!(want["n"], got.n, "{what} n");
    close(&format!("{what} chisq"), &want["chisq"], got.chisq);
    close(&format!("{what} p"), &want["p"], got.p);
    let loglik = got.loglik.expect("log likelihoods");
    for (k, model) in ["without", "with"].iter().enumerate() {
        close(
            &format!("{what} loglik {model}"),
            &want["loglik"][k],
            Some(loglik[k]),
        );
    }
    // One warning is written as a string, several as a list.
    let warned = match &want["warnings"] {
        Value::String(w) => w.contains("infinite"),
        Value::Array(w) => w
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.contains("infinite"))),
        _ => false,
    };
    assert_eq!(got.monotone, warned, "{what} monotone: {got:?}");
}

const TIES: [(Ties, &str); 2] = [(Ties::Efron, "efron"), (Ties::Breslow, "breslow")];

/// Data written by the R script: every level with events in both arms; a level with events in
/// the arm only (monotone likelihood: R stops with a large coefficient, readout takes the
/// supremum; same statistic, df 2); a level without events; a level of one arm (its
/// interaction column aliased: df 1); strata that are the levels (the level columns aliased).
#[test]
fn edge_cases_match_r() {
    let expected = expected();
    let cases = expected["edge"].as_object().expect("edge cases");
    assert_eq!(cases.len(), 5);
    for (name, want) in cases {
        let subjects: Vec<Subject> = records(&folder().join(format!("{name}.csv")))
            .into_iter()
            .map(|r| Subject {
                time: r["time"].parse().expect("time"),
                event: r["event"] == "1",
                in_arm: r["arm"] == "1",
                stratum: r["stratum"].clone(),
                level: r["level"].clone(),
            })
            .collect();
        for (stratified, key) in [(true, "stratified"), (false, "unstratified")] {
            for (ties, tie) in TIES {
                let got = interaction(&subjects, stratified, ties);
                check(&format!("{name} {key} {tie}"), &want[key][tie], &got);
            }
        }
    }
}

/// The three comparative studies (`tests/reference/comparative`): SUBGRP within the strata
/// STRAT, and without them.
#[test]
fn comparative_studies_match_r() {
    let expected = expected();
    for dataset in ["veteran", "lung", "ovarian"] {
        let dir = root().join("tests/reference/comparative").join(dataset);
        let times: BTreeMap<String, (f64, bool)> = records(&dir.join("adtte.csv"))
            .into_iter()
            .filter(|r| r["PARAMCD"] == "OS")
            .map(|r| {
                let time = r["AVAL"].parse().expect("AVAL");
                (r["USUBJID"].clone(), (time, r["CNSR"] == "0"))
            })
            .collect();
        let adsl = records(&dir.join("adsl.csv"));
        let want = &expected["comparative"][dataset];
        let reference = want["reference"].as_str().expect("reference");
        for comparison in want["comparisons"].as_array().expect("comparisons") {
            let arm = comparison["arm"].as_str().expect("arm");
            let subjects: Vec<Subject> = adsl
                .iter()
                .filter(|r| r["ARM"] == arm || r["ARM"] == reference)
                .map(|r| {
                    let (time, event) = times[&r["USUBJID"]];
                    Subject {
                        time,
                        event,
                        in_arm: r["ARM"] == arm,
                        stratum: r["STRAT"].clone(),
                        level: r["SUBGRP"].clone(),
                    }
                })
                .collect();
            for (stratified, key) in [(true, "stratified"), (false, "unstratified")] {
                for (ties, tie) in TIES {
                    let got = interaction(&subjects, stratified, ties);
                    check(
                        &format!("{dataset} {arm} {key} {tie}"),
                        &comparison[key][tie],
                        &got,
                    );
                }
            }
        }
    }
}

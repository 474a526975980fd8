//! The randomised myeloma example (`config/myeloma-example.yaml`, SYNTHETIC data from
//! `examples/make_myeloma_example.rs`), a sponsor's ADaM read without recoding (issue 42):
//! investigator and IRC rows under one PARAMCD and a per-drug ADEX chosen by `data.where`, arms
//! named by `arms.labels`, IMWG's wording and rates, coded baseline values decoded and ordered.
//! Numbers are checked against the data files read here.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{read_json, readout_command, root, Run};

#[allow(dead_code)]
#[path = "../examples/make_myeloma_example.rs"]
mod generator;

/// The committed data are what the generator makes.
#[test]
fn the_committed_data_are_the_generators() {
    for (name, text) in generator::files() {
        let committed = std::fs::read_to_string(root().join("data/myeloma-example").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            committed == text,
            "data/myeloma-example/{name} differs from the generator's"
        );
    }
}

/// Builds the example into a temporary folder; returns it and the cut-off folder.
fn build() -> (tempfile::TempDir, PathBuf) {
    let out = tempfile::tempdir().expect("temp dir");
    readout_command()
        .args(["build", "--quiet", "config/myeloma-example.yaml", "--out"])
        .arg(out.path())
        .current_dir(root())
        .assert()
        .success();
    let folder = out.path().join("MM-EXAMPLE/2024-06-28");
    (out, folder)
}

/// The rows of a data file of the example, as header → value maps.
fn rows(name: &str) -> Vec<Row> {
    crate::common::csv_rows(&root().join("data/myeloma-example").join(name))
}

type Row = std::collections::BTreeMap<String, String>;

/// Subjects of `arm` with a treatment-emergent `term`.
fn adsl_ids_with(adae: &[Row], term: &str, adsl: &[Row], arm: &str) -> usize {
    let in_arm: std::collections::HashSet<&str> = adsl
        .iter()
        .filter(|r| r["ARM"] == arm && r["SAFFL"] == "Y")
        .map(|r| r["USUBJID"].as_str())
        .collect();
    adae.iter()
        .filter(|r| r["AEDECOD"] == term && r["TRTEMFL"] == "Y")
        .map(|r| r["USUBJID"].as_str())
        .filter(|id| in_arm.contains(id))
        .collect::<std::collections::HashSet<_>>()
        .len()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn pct(p: &Value) -> String {
    format!("{:.1}%", 100.0 * p["rate"].as_f64().expect("rate"))
}

#[test]
fn a_sponsors_trial_builds_as_configured_without_recoding() {
    let (_out, folder) = build();
    let results = read_json(&folder.join("results.json"));
    let itt = &results["cohorts"][0];
    let arms = itt["arms"].as_array().expect("arms");
    let text = std::fs::read_to_string(folder.join("itt/abstract.txt")).expect("abstract");

    // data.where: the investigator's half of ADRS, the study drug's rows of ADEX.
    let adrs = rows("adrs.csv");
    let investigator = adrs
        .iter()
        .filter(|r| r["RSEVAL"] == "INVESTIGATOR")
        .count();
    assert_eq!(
        itt["row_filters"][0]["kept"].as_u64(),
        Some(investigator as u64)
    );
    assert_eq!(
        itt["row_filters"][0]["dropped"].as_u64(),
        Some((adrs.len() - investigator) as u64)
    );
    let adex = rows("adex.csv");
    let adsl = rows("adsl.csv");
    for (arm, drug) in [(&arms[0], "VELATAMAB"), (&arms[1], "POMALIDOMIDE")] {
        let doses: Vec<f64> = adex
            .iter()
            .filter(|r| r["PARCAT1"] == drug)
            .map(|r| r["AVAL"].parse().expect("dose"))
            .collect();
        let got = arm["exposure"]["dose"]["CUMDOSE"]["median"]
            .as_f64()
            .expect("median dose");
        assert!((got - median(doses)).abs() < 1e-9, "{drug}: {got}");
    }

    // arms.labels: in full once, then short.
    assert_eq!(arms[0]["arm_short"], "Vd");
    let (n_vd, n_pd) = (&arms[0]["n"]["enrolled"], &arms[1]["n"]["enrolled"]);
    let randomised = |arm: &str| adsl.iter().filter(|r| r["ARM"] == arm).count();
    assert_eq!(n_vd.as_u64(), Some(randomised("VLT+DEX") as u64));
    assert!(
        text.contains(&format!(
            "{n_vd} to Velatamab plus dexamethasone (Vd) and {n_pd} to Pomalidomide plus dexamethasone (Pd)."
        )),
        "{text}"
    );
    let results_paragraph = text
        .split("\n\n")
        .find(|p| p.starts_with("Results:"))
        .expect("Results");
    assert_eq!(
        results_paragraph
            .matches("Velatamab plus dexamethasone")
            .count(),
        1
    );
    assert!(text.contains(") with Vd vs ") && text.contains(") with Pd"));
    let km = std::fs::read_to_string(folder.join("itt/figures/km-pfs.svg")).expect("km");
    assert!(
        km.contains("\nVd\n") && km.contains("\nPd\n"),
        "at-risk rows"
    );
    let report = std::fs::read_to_string(folder.join("itt/report.html")).expect("report");
    assert!(report.contains(&format!("<th class=\"num\">Vd (N = {n_vd})</th>")));

    // IMWG: overall response rate, its rates per arm, no DCR.
    assert!(text.contains("The overall response rate counted sCR, CR, VGPR and PR."));
    for rate in ["VGPR or better", "CR or better"] {
        let (a, b) = (
            &arms[0]["response"]["rates"][rate],
            &arms[1]["response"]["rates"][rate],
        );
        let sentence = format!(
            "The rate of confirmed {rate} was {} ({}/{}) with Vd vs {} ({}/{}) with Pd.",
            pct(a),
            a["n"],
            a["N"],
            pct(b),
            b["n"],
            b["N"]
        );
        assert!(text.contains(&sentence), "{sentence} not in {text}");
    }
    assert!(!text.contains("DCR") && !report.contains("Disease control rate"));
    assert!(report.contains("Overall response rate (sCR + CR + VGPR + PR)"));

    // Baseline: coded values kept, in their order, Y/N decoded; one decimal rule.
    assert!(text.contains("ISS stage I/II/III: "), "{text}");
    assert!(text.contains("ECOG performance status 0/1/2: "));
    assert!(text.contains("prior lines of therapy 1/2/3/4: "));
    let high_risk = adsl.iter().filter(|r| r["HRCYTO"] == "Y").count();
    assert!(text.contains(&format!("high-risk cytogenetics {high_risk}/240 [")));
    let ecog = |level: &str| {
        report
            .find(&format!("<td class=\"level\">{level}</td>"))
            .unwrap_or_else(|| panic!("ECOG {level} row"))
    };
    assert!(ecog("0") < ecog("1") && ecog("1") < ecog("2"));
    assert!(report.contains("<td class=\"level\">Yes</td>"));
    assert!(!report.contains("<td class=\"level\">Y</td>"));

    // safety_view: teae, and events of special interest, per arm.
    let teae = |arm: &Value, kind: &str| {
        let s = &arm["safety"];
        (
            s["teae"][kind].as_u64().expect("count"),
            s["N"].as_u64().expect("N"),
        )
    };
    let ((g_vd, n_vd_safety), (g_pd, n_pd_safety)) =
        (teae(&arms[0], "grade3plus"), teae(&arms[1], "grade3plus"));
    assert!(
        text.contains(&format!(
            "Grade ≥3 TEAEs occurred in {g_vd}/{n_vd_safety} pts ({}) with Vd and {g_pd}/{n_pd_safety} (",
            format_args!("{:.1}%", 100.0 * g_vd as f64 / n_vd_safety as f64)
        )),
        "{text}"
    );
    let keratopathy = adsl_ids_with(&rows("adae.csv"), "Keratopathy", &adsl, "VLT+DEX");
    assert_eq!(
        arms[0]["safety"]["special_interest"][1]["n"].as_u64(),
        Some(keratopathy as u64)
    );
    assert!(text.contains(&format!(
        "Keratopathy (any grade) occurred in {keratopathy}/{n_vd_safety} ("
    )));

    // The deck: disposition and safety-overview slides, the AE slide in the TEAE view.
    let words = crate::comparisons_edge::slide_text(&folder.join("itt/slides.pptx"));
    for said in [
        "Patient disposition",
        "Safety overview",
        "Treatment-emergent adverse events",
        "Any TEAE",
        "Vd: ORR ",
        "; VGPR or better ",
    ] {
        assert!(words.contains(said), "{said} not on a slide");
    }
    assert!(!words.contains("Any TRAE") && !words.contains("DCR"));

    // Treatment discontinued because of AEs: over those treated (the safety population).
    let stopped = arms[0]["disposition"]["discontinued_ae"]
        .as_u64()
        .expect("count");
    assert!(
        text.contains(&format!(
            "Adverse events led to discontinuation of treatment in {stopped}/{n_vd_safety} ("
        )),
        "{text}"
    );

    // The swimmer by arm, never pooled.
    let swimmer = std::fs::read_to_string(folder.join("itt/figures/swimmer.svg")).expect("swimmer");
    assert!(swimmer.contains("\nVd (n = ") && swimmer.contains("\nPd (n = "));

    // Both disposition levels, counted per arm.
    for arm in arms {
        assert_eq!(arm["disposition"]["level"], "treatment");
        assert_eq!(arm["study_disposition"]["level"], "study");
    }
}

/// The same trial by the independent review: `data.where` swapped, the IRC's worse readings
/// give fewer responders.
#[test]
fn the_independent_review_is_read_by_swapping_the_filter() {
    let tmp = tempfile::tempdir().expect("temp");
    let config = std::fs::read_to_string(root().join("config/myeloma-example.yaml"))
        .expect("config")
        .replace(
            "adrs: { RSEVAL: INVESTIGATOR }",
            "adrs: { RSEVAL: \"INDEPENDENT ASSESSOR\" }",
        )
        .replace(
            "dir: ../data/myeloma-example",
            &format!("dir: {}", data_dir().display()),
        );
    let path = tmp.path().join("irc.yaml");
    std::fs::write(&path, config).expect("config");
    readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(tmp.path().join("out"))
        .arg(&path)
        .assert()
        .success();
    let irc = read_json(&tmp.path().join("out/MM-EXAMPLE/2024-06-28/results.json"));
    let (_out, folder) = build();
    let inv = read_json(&folder.join("results.json"));
    let orr = |r: &Value, arm: usize| r["cohorts"][0]["arms"][arm]["response"]["orr"]["n"].as_u64();
    for arm in 0..2 {
        assert!(orr(&irc, arm) <= orr(&inv, arm), "arm {arm}");
    }
    let total = |r: &Value| (0..2).filter_map(|a| orr(r, a)).sum::<u64>();
    assert!(
        total(&irc) < total(&inv),
        "the IRC's readings are another set of data"
    );
    assert_eq!(
        irc["cohorts"][0]["row_filters"][0]["columns"]["RSEVAL"][0],
        "INDEPENDENT ASSESSOR"
    );
}

fn data_dir() -> PathBuf {
    root().join("data/myeloma-example")
}

/// Congress presets (issue 42): each carries only the rule its call can be cited for
/// (docs/CONFERENCES.md); over the limit, the abstract's Methods give the statistics in one
/// sentence and the report keeps them in full.
#[test]
fn congress_presets_measure_what_their_calls_say() {
    let tmp = tempfile::tempdir().expect("temp");
    let base = std::fs::read_to_string(root().join("config/myeloma-example.yaml"))
        .expect("config")
        .replace(
            "dir: ../data/myeloma-example",
            &format!("dir: {}", data_dir().display()),
        )
        .replace(
            "formats: [md, html, docx, pptx, png]",
            "formats: [md, html]",
        );
    let build = |conference: &str| {
        let path = tmp.path().join(format!("{conference}.yaml"));
        std::fs::write(&path, format!("{base}  conference: {conference}\n")).expect("config");
        let out = tmp.path().join(conference);
        readout_command()
            .args(["build", "--quiet", "--out"])
            .arg(&out)
            .arg(&path)
            .assert()
            .success();
        let folder = out.join("MM-EXAMPLE/2024-06-28");
        let results = read_json(&folder.join("results.json"));
        let text = std::fs::read_to_string(folder.join("itt/abstract.txt")).expect("abstract");
        let report = std::fs::read_to_string(folder.join("itt/report.html")).expect("report");
        (results["cohorts"][0].clone(), text, report)
    };
    let full =
        "Hazard ratios (HRs) with 95% CIs were estimated with a Cox proportional hazards model";
    let short =
        "stratified Cox HRs and stratified log-rank tests; response rates compared by the CMH test";

    let (asco, text, report) = build("asco");
    let length = &asco["abstract_length"];
    assert_eq!(
        (&length["limit"], &length["unit"]),
        (&Value::from(2600), &Value::from("chars_no_spaces"))
    );
    assert_eq!(length["within_limit"], true, "{length}");
    let counted = text.chars().filter(|c| !c.is_whitespace()).count();
    assert_eq!(length["count"].as_u64(), Some(counted as u64));
    assert!(text.contains(short) && !text.contains(full), "{text}");
    assert!(report.contains(full), "the report keeps the full Methods");
    assert!(asco["warnings"]
        .to_string()
        .contains("its Methods give the statistics in one sentence"));

    let (eha, text, _) = build("eha");
    let length = &eha["abstract_length"];
    assert_eq!(
        (&length["limit"], &length["unit"], &length["title_counted"]),
        (
            &Value::from(3665),
            &Value::from("chars"),
            &Value::from(false)
        )
    );
    assert!(
        text.contains(full),
        "within EHA's limit the full Methods stay"
    );

    let (esmo, _, _) = build("esmo");
    assert_eq!(esmo["abstract_length"]["limit"], 2000);

    let (ash, text, _) = build("ash");
    assert!(
        ash["abstract_length"].is_null(),
        "ASH's limit is not cited: not measured"
    );
    assert!(ash["warnings"]
        .to_string()
        .contains("`ash` has no length limit readout can cite"));
    assert!(text.contains(full));
}

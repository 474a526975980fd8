//! The randomised example study (`config/rand-example.yaml`, SYNTHETIC data from
//! `examples/make_randomised_example.rs`) built end to end with the real binary: the committed
//! data are what the generator makes; each arm's counts, the stratified Cox model and the
//! log-rank test agree with a fit of the data files read here; the abstract, the forest plot and
//! `diff` say what results.json holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{readout_command, root, Run};

#[allow(dead_code)]
#[path = "../examples/make_randomised_example.rs"]
mod generator;

const CUTOFF: &str = "2023-09-29";
const DRUG: &str = "Drug X + chemo";
const PLACEBO: &str = "Placebo + chemo";

/// Builds the study at the given cut-offs into a temporary folder; returns it, the study folder
/// and what the build printed on stderr.
fn build_rand(cutoffs: &[&str]) -> (tempfile::TempDir, PathBuf, String) {
    let out = tempfile::tempdir().expect("temp dir");
    let mut cmd = readout_command();
    cmd.args(["build", "config/rand-example.yaml", "--out"])
        .arg(out.path());
    for c in cutoffs {
        cmd.args(["--cutoff", c]);
    }
    let done = cmd.current_dir(root()).assert().success();
    let stderr = String::from_utf8_lossy(&done.get_output().stderr).into_owned();
    let study = out.path().join("RAND-EXAMPLE");
    (out, study, stderr)
}

fn itt(study: &Path, cutoff: &str) -> Value {
    let text = std::fs::read_to_string(study.join(cutoff).join("results.json")).expect("results");
    let results: Value = serde_json::from_str(&text).expect("json");
    results["cohorts"][0].clone()
}

/// A CSV of the example data (no quoted fields) as rows of column → value.
fn csv(name: &str) -> Vec<BTreeMap<String, String>> {
    crate::common::csv_rows(&root().join("data/rand-example").join(name))
}

#[test]
fn data_are_what_the_generator_makes() {
    let dir = tempfile::tempdir().expect("temp dir");
    generator::generate(dir.path());
    let committed = root().join("data/rand-example");
    let mut names: Vec<String> = std::fs::read_dir(&committed)
        .expect("data folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "README.md",
            "SHA256SUMS",
            "adae.csv",
            "adrs.csv",
            "adsl.csv",
            "adtte.csv"
        ]
    );
    for name in names {
        let made = std::fs::read(dir.path().join(&name)).expect("generated file");
        let kept = std::fs::read(committed.join(&name)).expect("committed file");
        assert!(
            made == kept,
            "data/rand-example/{name} differs from the generator's"
        );
    }
}

/// The pipeline's per-arm counts, and for PFS and OS its Cox models (unstratified, and
/// stratified by ECOG × REGION), log-rank tests and subgroup hazard ratios, against R's
/// (tests/reference/rand-example, made by its make_rand_example.R from the same data) to a
/// relative error of 1e-9: every ITT subject, the data's own cut-off (ADTTE as it is).
#[test]
fn arms_and_comparisons_match_r() {
    let (_out, study, stderr) = build_rand(&[]);
    assert!(!stderr.contains("warning:"), "{stderr}");
    let c = itt(&study, CUTOFF);
    let adsl = csv("adsl.csv");
    let arms: Vec<(&str, u64)> = c["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .map(|a| {
            (
                a["arm"].as_str().unwrap(),
                a["n"]["enrolled"].as_u64().unwrap(),
            )
        })
        .collect();
    let count = |arm: &str| adsl.iter().filter(|r| r["ARM"] == arm).count() as u64;
    assert_eq!(arms, [(DRUG, count(DRUG)), (PLACEBO, count(PLACEBO))]);
    assert_eq!(count(DRUG) + count(PLACEBO), adsl.len() as u64);

    let comparison = &c["comparisons"][0];
    assert_eq!(
        (comparison["arm"].as_str(), comparison["reference"].as_str()),
        (Some(DRUG), Some(PLACEBO))
    );
    let path = root().join("tests/reference/rand-example/expected.json");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("R values")).expect("JSON");
    let path = root().join("tests/reference/interaction/expected.json");
    let interactions: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("R values")).expect("JSON");
    let cox = |what: &str, got: &Value, want: &Value| {
        for key in ["coef", "se", "p_wald", "p_lr", "p_score"] {
            close(&format!("{what} {key}"), &got[key], &want[key]);
        }
        for key in ["estimate", "lower", "upper"] {
            close(
                &format!("{what} HR {key}"),
                &got["hr"][key],
                &want["hr"][key],
            );
        }
    };
    for endpoint in ["PFS", "OS"] {
        let (t, e) = (&comparison["tte"][endpoint], &r[endpoint]);
        for key in ["n", "n_reference", "events", "events_reference"] {
            assert_eq!(t[key], e[key], "{endpoint} {key}");
        }
        cox(endpoint, t, &e["cox"]);
        cox(
            &format!("{endpoint} stratified"),
            &t["stratified"],
            &e["stratified"]["cox"],
        );
        for (what, got, want) in [
            ("log-rank", &t["logrank"], &e["logrank"]),
            (
                "stratified log-rank",
                &t["stratified"]["logrank"],
                &e["stratified"]["logrank"],
            ),
        ] {
            close(
                &format!("{endpoint} {what} chisq"),
                &got["chisq"],
                &want["chisq"],
            );
            close(&format!("{endpoint} {what} p"), &got["p"], &want["p"]);
        }
        assert_eq!(
            t["stratified"]["strata"],
            serde_json::json!(["ECOG", "REGION"])
        );
        let subgroups = t["subgroups"].as_array().expect("subgroups");
        let expected = e["subgroups"].as_array().expect("R subgroups");
        assert_eq!(subgroups.len(), expected.len(), "{endpoint} subgroups");
        for want in expected {
            let got = subgroups
                .iter()
                .find(|s| s["column"] == want["column"] && s["level"] == want["level"])
                .unwrap_or_else(|| panic!("{endpoint}: no subgroup {want}"));
            for key in ["estimate", "lower", "upper"] {
                close(
                    &format!("{endpoint} {} HR {key}", want["level"]),
                    &got["hr"][key],
                    &want["hr"][key],
                );
            }
        }
        // The interaction test of each subgroup column, within the strata, Efron ties
        // (tests/reference/interaction, made by its make_interaction.R).
        let tests = t["interactions"].as_array().expect("interactions");
        let columns: Vec<&str> = tests.iter().filter_map(|i| i["column"].as_str()).collect();
        assert_eq!(columns, ["SEX", "AGEGR1"], "{endpoint}");
        for got in tests {
            let column = got["column"].as_str().expect("column");
            let want = &interactions["rand-example"][endpoint][column]["efron"];
            assert_eq!(got["df"], want["df"], "{endpoint} {column} df");
            for key in ["chisq", "p"] {
                close(
                    &format!("{endpoint} {column} interaction {key}"),
                    &got[key],
                    &want[key],
                );
            }
        }
        rmst_and_risk_tables_equal_r(&c, t, e, endpoint);
    }
    // The design's effect is there: Drug X lowers the hazard of progression.
    assert!(comparison["tte"]["PFS"]["stratified"]["hr"]["upper"].as_f64() < Some(1.0));
}

/// `got` within a relative 1e-9 of R's `want`.
fn close(what: &str, got: &Value, want: &Value) {
    let (g, w) = (got.as_f64(), want.as_f64().expect(what));
    let g = g.unwrap_or_else(|| panic!("{what}: readout has none, R {w}"));
    assert!(
        (g - w).abs() <= 1e-9 * w.abs(),
        "{what}: readout {g}, R {w}"
    );
}

/// Each arm's RMST of `endpoint` up to the shorter arm's last time and its risk table at
/// every six months as R gives them (`e`), and the difference of the two (`t`: the comparison).
fn rmst_and_risk_tables_equal_r(c: &Value, t: &Value, e: &Value, endpoint: &str) {
    // Each arm's RMST up to the shorter arm's last time, and its risk table at every six
    // months, as R gives them; the difference from the two.
    for (k, code) in [(0, "1"), (1, "0")] {
        let arm = &c["arms"][k]["tte"][endpoint];
        for key in ["tau", "estimate", "se"] {
            close(
                &format!("{endpoint} arm {code} RMST {key}"),
                &arm["rmst"][key],
                &e["rmst"][code][key],
            );
        }
        let rows = arm["risk_table"].as_array().expect("risk table");
        for key in ["at_risk", "events", "censored"] {
            let want: Vec<&Value> = e["risk_table"][code][key]
                .as_array()
                .expect("R table")
                .iter()
                .collect();
            // R's times are 0 to 30 months; readout's go on to the last time's step.
            let got: Vec<&Value> = rows.iter().take(want.len()).map(|r| &r[key]).collect();
            assert_eq!(rows[want.len() - 1]["time"], 30.0, "{endpoint}");
            assert_eq!(got, want, "{endpoint} arm {code} risk table {key}");
        }
    }
    let diff = t["rmst"]["difference"]["estimate"]
        .as_f64()
        .expect("RMST difference");
    let want =
        e["rmst"]["1"]["estimate"].as_f64().unwrap() - e["rmst"]["0"]["estimate"].as_f64().unwrap();
    assert!(
        (diff - want).abs() <= 1e-9 * want.abs(),
        "{endpoint} RMST difference"
    );
}

/// The abstract's comparison sentence, the forest plot's rows and the derived CSV's arm say what
/// results.json holds.
#[test]
fn documents_and_figures_say_what_the_results_hold() {
    let (_out, study, _) = build_rand(&[]);
    let c = itt(&study, CUTOFF);
    let t = &c["comparisons"][0]["tte"]["PFS"];
    let hr = &t["stratified"]["hr"];
    let f2 = |v: &Value| format!("{:.2}", v.as_f64().unwrap());
    let abstract_md =
        std::fs::read_to_string(study.join(CUTOFF).join("itt/abstract.md")).expect("abstract");
    let sentence = format!(
        "({} vs {} events; stratified HR {}, 95% CI: {}, {}; stratified log-rank p",
        t["events"],
        t["events_reference"],
        f2(&hr["estimate"]),
        f2(&hr["lower"]),
        f2(&hr["upper"])
    );
    assert!(
        abstract_md.contains(&sentence),
        "{sentence} not in\n{abstract_md}"
    );
    assert!(abstract_md.contains(&format!("150 to {DRUG} and 150 to {PLACEBO}")));

    let forest = std::fs::read_to_string(study.join(CUTOFF).join("itt/figures/forest-pfs.svg"))
        .expect("forest plot");
    let subgroups = t["subgroups"].as_array().expect("subgroups");
    assert_eq!(subgroups.len(), 4, "SEX F/M and AGEGR1 <65/>=65");
    for s in subgroups {
        for (events, n) in [("events", "n"), ("events_reference", "n_reference")] {
            let cell = format!("{}/{}", s[events], s[n]);
            assert!(forest.contains(&cell), "{cell} not in the forest plot");
        }
        let h = &s["hr"];
        let estimate = format!(
            "{} ({}–{})",
            f2(&h["estimate"]),
            f2(&h["lower"]),
            f2(&h["upper"])
        );
        assert!(
            forest.contains(&estimate),
            "{estimate} not in the forest plot"
        );
    }
    assert!(forest.contains("Sex") && forest.contains("Age group, years"));
    // Each column's interaction p beside its heading, as results.json has it.
    for i in t["interactions"].as_array().expect("interactions") {
        let p = format!("Interaction p = {:.2}", i["p"].as_f64().unwrap());
        assert!(forest.contains(&p), "{p} not in the forest plot");
    }

    let derived =
        std::fs::read_to_string(study.join(CUTOFF).join("derived/itt.csv")).expect("derived");
    // ARM is the last column (BOR_REASON before it is quoted and holds commas).
    assert!(derived.lines().next().unwrap().ends_with(",ARM"));
    let drug = derived
        .lines()
        .skip(1)
        .filter(|l| l.rsplit(',').next() == Some(DRUG))
        .count();
    assert_eq!(drug as u64, c["arms"][0]["n"]["enrolled"].as_u64().unwrap());
}

/// Two cut-offs: `diff` gives each comparison's hazard ratio and log-rank p at both, marked as
/// changed, and the ORR difference.
#[test]
fn diff_reports_changed_hazard_ratios() {
    let early = "2022-12-31";
    let (_out, study, _) = build_rand(&[early, CUTOFF]);
    let done = readout_command()
        .arg("diff")
        .arg(study.join(early))
        .arg(study.join(CUTOFF))
        .assert()
        .success();
    let md = String::from_utf8_lossy(&done.get_output().stdout).into_owned();
    let hr_text = |c: &Value| {
        let h = &c["comparisons"][0]["tte"]["PFS"]["stratified"]["hr"];
        let g = |k: &str| h[k].as_f64().unwrap();
        (g("estimate"), g("lower"), g("upper"))
    };
    let (a, b) = (hr_text(&itt(&study, early)), hr_text(&itt(&study, CUTOFF)));
    assert_ne!(a, b);
    let line = md
        .lines()
        .find(|l| l.contains(&format!("{DRUG} vs {PLACEBO}: PFS HR (CI)")))
        .unwrap_or_else(|| panic!("no PFS HR row in\n{md}"));
    assert!(line.contains("**changed**"), "{line}");
    for (estimate, lower, upper) in [a, b] {
        for v in [estimate, lower, upper] {
            let shown = format!("{v:.2}");
            assert!(line.contains(&shown), "{shown} not in {line}");
        }
    }
    assert!(md.contains(&format!("{DRUG} vs {PLACEBO}: PFS log-rank")));
    assert!(md.contains(&format!("{DRUG} vs {PLACEBO}: ORR difference (CI)")));
    // Each subgroup column's interaction p and each kind of adverse event, both cut-offs.
    let later = itt(&study, CUTOFF);
    let test = &later["comparisons"][0]["tte"]["PFS"]["interactions"][0];
    let column = test["column"].as_str().unwrap();
    let line = md
        .lines()
        .find(|l| {
            l.contains(&format!(
                "{DRUG} vs {PLACEBO}: PFS interaction with {column}"
            ))
        })
        .unwrap_or_else(|| panic!("no interaction row in\n{md}"));
    let p = readout::format::fmt_p(test["p"].as_f64());
    assert!(line.contains(&p), "{p} not in {line}");
    let ae = &later["comparisons"][0]["safety"];
    let any = &ae["rows"][0];
    assert_eq!(any["kind"], "any TEAE");
    let line = md
        .lines()
        .find(|l| l.contains(&format!("{DRUG} vs {PLACEBO}: any TEAE (difference, CI)")))
        .unwrap_or_else(|| panic!("no AE row in\n{md}"));
    let counts = format!(
        "{}/{} vs {}/{}",
        any["n"], ae["N"], any["n_reference"], ae["N_reference"]
    );
    assert!(line.contains(&counts), "{counts} not in {line}");
    // Each arm's own numbers (issue 42): N, ORR, events and the median with its CI, both
    // cut-offs, never pooled only.
    let earlier = itt(&study, early);
    for (i, arm) in [DRUG, PLACEBO].iter().enumerate() {
        let n = |c: &Value| c["arms"][i]["n"]["enrolled"].to_string();
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {arm}: N enrolled |")))
            .unwrap_or_else(|| panic!("no {arm} N row in\n{md}"));
        assert!(
            line.contains(&n(&earlier)) && line.contains(&n(&later)),
            "{line}"
        );
        let orr = |c: &Value| {
            let o = &c["arms"][i]["response"]["orr"];
            format!("{}/{}", o["n"], o["N"])
        };
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {arm}: ORR |")))
            .unwrap_or_else(|| panic!("no {arm} ORR row in\n{md}"));
        assert!(
            line.contains(&orr(&earlier)) && line.contains(&orr(&later)),
            "{line}"
        );
        assert!(md.contains(&format!("| {arm}: PFS median (CI) |")));
    }
}

/// "80 (53.3%)", as the report prints a count and its share.
fn count_pct(n: &Value, total: &Value) -> String {
    let (n, total) = (n.as_u64().unwrap(), total.as_u64().unwrap());
    format!("{n} ({:.1}%)", 100.0 * n as f64 / total as f64)
}

/// The report has one column per arm in every table, each cell from that arm's own results in
/// results.json (baseline with a total column, response, time to event with the stratified HR,
/// adverse events), and report.docx has the same tables.
#[test]
fn report_has_a_column_per_arm() {
    let (_out, study, _) = build_rand(&[]);
    let c = itt(&study, CUTOFF);
    let folder = study.join(CUTOFF).join("itt");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report");
    let tables = crate::documents::html_tables(&html);
    let (xml, _) = crate::documents::docx_parts(&folder.join("report.docx"));
    assert_eq!(crate::documents::docx_tables(&xml), tables);
    let rows: Vec<&Vec<String>> = tables.iter().flatten().collect();
    let has_row = |want: &[String]| rows.iter().any(|r| r.as_slice() == want);
    let arms = c["arms"].as_array().expect("arms");

    // Baseline: every level of every categorical item, per arm and in total.
    let mut checked = 0;
    for item in c["baseline"].as_array().expect("baseline") {
        for level in item["levels"].as_array().expect("levels") {
            let value = level["value"].as_str().unwrap();
            // Tables show the decoded value ("Male"), capitalised.
            let label = level["label"].as_str().unwrap();
            let mut label_chars = label.chars();
            let shown: String = label_chars
                .next()
                .map(|c| c.to_uppercase().chain(label_chars).collect())
                .unwrap_or_default();
            let mut want = vec![shown];
            for a in arms {
                let b = a["baseline"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|b| b["column"] == item["column"])
                    .expect("the arm's item");
                let l = b["levels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|l| l["value"] == value)
                    .expect("the arm's level");
                want.push(count_pct(&l["n"], &l["N"]));
            }
            want.push(count_pct(&level["n"], &level["N"]));
            assert!(has_row(&want), "no baseline row {want:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9, "sex 2, age group 2, ECOG 2 and region 3 levels");

    // Response: each BOR category per arm.
    for (code, label) in [
        ("PR", "Partial response (PR)"),
        ("SD", "Stable disease (SD)"),
    ] {
        let mut want = vec![label.to_string()];
        for a in arms {
            want.push(count_pct(
                &a["response"]["bor"][code],
                &a["response"]["orr"]["N"],
            ));
        }
        assert!(has_row(&want), "no response row {want:?}");
    }

    // Time to event: events per arm, the stratified HR in the arm's column.
    let events: Vec<String> = std::iter::once("Events, n (%)".to_string())
        .chain(
            arms.iter()
                .map(|a| count_pct(&a["tte"]["PFS"]["events"], &a["tte"]["PFS"]["n"])),
        )
        .collect();
    assert!(has_row(&events), "no PFS events row {events:?}");
    let hr = &c["comparisons"][0]["tte"]["PFS"]["stratified"]["hr"];
    let f2 = |k: &str| format!("{:.2}", hr[k].as_f64().unwrap());
    let want = [
        "Stratified HR (95% CI)".to_string(),
        format!("{} ({}–{})", f2("estimate"), f2("lower"), f2("upper")),
        "Reference".to_string(),
    ];
    assert!(has_row(&want), "no stratified HR row {want:?}");

    // Subgroups: a factor's first level carries its interaction p (spanning its levels).
    let pfs = &c["comparisons"][0]["tte"]["PFS"];
    let first = &pfs["subgroups"][0];
    let h = &first["hr"];
    let f2 = |v: &Value| format!("{:.2}", v.as_f64().unwrap());
    // Subgroup levels decoded and in their natural order, as the baseline table has them:
    // SEX's CDISC order (M, F), "Male" not "M".
    assert_eq!(
        (&first["level"], &first["level_label"]),
        (&Value::from("M"), &Value::from("male"))
    );
    assert_eq!(pfs["subgroups"][1]["level"], "F");
    let want = [
        "Sex: Male".to_string(),
        format!("{}/{}", first["events"], first["n"]),
        format!("{}/{}", first["events_reference"], first["n_reference"]),
        format!(
            "{} ({}–{})",
            f2(&h["estimate"]),
            f2(&h["lower"]),
            f2(&h["upper"])
        ),
        f2(&pfs["interactions"][0]["p"]),
    ];
    assert!(has_row(&want), "no subgroup row {want:?}");

    // Adverse events: grade ≥3 TEAE and TRAE per arm and in total, over each safety population.
    let mut want = vec!["Grade ≥3".to_string()];
    for s in arms.iter().map(|a| &a["safety"]).chain([&c["safety"]]) {
        want.push(count_pct(&s["teae"]["grade3plus"], &s["N"]));
        want.push(count_pct(&s["trae"]["grade3plus"], &s["N"]));
    }
    assert!(has_row(&want), "no grade ≥3 row {want:?}");
    assert_eq!(
        (&arms[0]["safety"]["N"], &arms[1]["safety"]["N"]),
        (&serde_json::json!(148), &serde_json::json!(150)),
        "two subjects randomised to Drug X were never treated"
    );
}

/// The SHA-256 of every file the randomised example writes with every format (Word, PNG,
/// Dataset-JSON, forest plots, the manifest), against `tests/reference/rand-outputs.sha256`
/// ([`crate::common::assert_golden`]).
#[test]
fn outputs_match_the_recorded_hashes() {
    // The config and its data sit as in the repository, so that the config's bytes (hashed
    // into the manifest) do not depend on where the clone is.
    let out = tempfile::tempdir().expect("temp dir");
    let data = out.path().join("data/rand-example");
    std::fs::create_dir_all(&data).expect("data folder");
    for entry in std::fs::read_dir(root().join("data/rand-example")).expect("data") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), data.join(entry.file_name())).expect("copy");
    }
    let config = std::fs::read_to_string(root().join("config/rand-example.yaml"))
        .expect("config")
        .replace(
            "formats: [md, html, docx, pptx, png, xlsx, ard, poster]",
            "formats: [md, html, docx, pptx, png, xlsx, ard, poster, dataset-json]",
        );
    assert!(config.contains("dataset-json"), "the formats line moved");
    std::fs::create_dir(out.path().join("config")).expect("config folder");
    let path = out.path().join("config/rand-example.yaml");
    std::fs::write(&path, config).expect("config");
    crate::common::build_quietly(&out.path().join("out"), &path).success();
    crate::common::assert_golden(&out.path().join("out/RAND-EXAMPLE"), "rand-outputs.sha256");
}

/// The build's summary gives a randomised cohort a line per arm (N, ORR, median PFS, the PFS
/// hazard ratio against the reference) and no pooled ORR or median; warnings go to standard
/// error.
#[test]
fn the_summary_has_a_line_per_arm() {
    let out = tempfile::tempdir().expect("temp dir");
    let done = readout_command()
        .args(["build", "config/rand-example.yaml", "--out"])
        .arg(out.path())
        .current_dir(root())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&done.get_output().stdout).into_owned();
    let header = stdout
        .lines()
        .find(|l| l.starts_with("study"))
        .expect("table");
    assert!(header.contains("HR PFS (CI)"), "{header}");
    let cohort = stdout
        .lines()
        .find(|l| l.starts_with("RAND-EXAMPLE"))
        .expect("row");
    assert!(!cohort.contains('%'), "no pooled ORR: {cohort}");
    let drug = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(DRUG))
        .unwrap_or_else(|| panic!("{stdout}"));
    for cell in [" 150 ", "39.3%", "8.3 months", "0.59 (0.45, 0.76)"] {
        assert!(drug.contains(cell), "{cell} not in {drug}");
    }
    let placebo = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(PLACEBO))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(placebo.ends_with("reference"), "{placebo}");
    assert!(!stdout.contains("warning:"), "{stdout}");
}

/// Adverse events compared (issue 34): every kind and term's counts, Newcombe risk difference
/// and exposure-adjusted incidence rates with exact Poisson intervals equal R's
/// (`tests/reference/ae-compare`, from `make_ae_compare.R`), to 1e-9 relative.
#[test]
fn adverse_events_compared_equal_r() {
    let (_out, study, _) = build_rand(&["2023-09-29"]);
    let itt = itt(&study, "2023-09-29");
    let safety = &itt["comparisons"][0]["safety"];
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/reference/ae-compare/expected.json"))
            .expect("expected"),
    )
    .expect("JSON");
    let rows = safety["rows"].as_array().expect("rows");
    let expected = expected.as_array().expect("rows");
    assert_eq!(rows.len(), expected.len());
    let close = |a: &Value, b: &Value, what: &str| {
        let (a, b) = (a.as_f64().expect(what), b.as_f64().expect(what));
        assert!(
            (a - b).abs() <= 1e-9 * b.abs().max(1e-3),
            "{what}: {a} vs R {b}"
        );
    };
    for want in expected {
        let kind = want["kind"].as_str().unwrap().replace(">=", "≥");
        let got = rows
            .iter()
            .find(|r| r["kind"] == kind && (kind != "term" || r["term"] == want["term"]))
            .unwrap_or_else(|| panic!("no row {kind} {}", want["term"]));
        let what = format!("{kind} {}", want["term"]);
        assert_eq!(got["n"], want["n"], "{what}");
        assert_eq!(got["n_reference"], want["n_reference"], "{what}");
        for part in ["difference", "eair", "eair_reference"] {
            for key in ["estimate", "lower", "upper"] {
                close(
                    &got[part][key],
                    &want[part][key],
                    &format!("{what} {part}.{key}"),
                );
            }
        }
    }
    // Kinds first, then terms by total incidence.
    let totals: Vec<u64> = rows
        .iter()
        .skip(4)
        .map(|r| r["n"].as_u64().unwrap() + r["n_reference"].as_u64().unwrap())
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
}

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
fn build_myeloma() -> (tempfile::TempDir, PathBuf) {
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
    let (_out, folder) = build_myeloma();
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
        let got = arm["exposure"]["dose"][format!("CUMDOSE, {drug}").as_str()]["median"]
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
    assert!(report.contains(&format!(
        "<th scope=\"col\" class=\"num\">Vd (N = {n_vd})</th>"
    )));

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
            .find(&format!("<th scope=\"row\" class=\"level\">{level}</th>"))
            .unwrap_or_else(|| panic!("ECOG {level} row"))
    };
    assert!(ecog("0") < ecog("1") && ecog("1") < ecog("2"));
    assert!(report.contains("<th scope=\"row\" class=\"level\">Yes</th>"));
    assert!(!report.contains("<th scope=\"row\" class=\"level\">Y</th>"));

    safety_and_deck_per_arm(&text, arms, &folder, &adsl);
}

/// `safety_view` and the deck: TEAEs and events of special interest per arm, the disposition
/// and safety slides, discontinuations over the treated, the swimmer by arm and both
/// disposition levels.
fn safety_and_deck_per_arm(text: &str, arms: &[Value], folder: &std::path::Path, adsl: &[Row]) {
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
    let keratopathy = adsl_ids_with(&rows("adae.csv"), "Keratopathy", adsl, "VLT+DEX");
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
            "Adverse events were the reason for ending treatment in {stopped}/{n_vd_safety} ("
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
    let (_out, folder) = build_myeloma();
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
    let build_as = |name: &str, conference: &str| {
        let path = tmp.path().join(format!("{name}.yaml"));
        std::fs::write(&path, format!("{base}  conference: {conference}\n")).expect("config");
        let out = tmp.path().join(name);
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
    let build = |conference: &str| build_as(conference, conference);
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
        .contains("to fit it left out: the Methods' statistics in full (one sentence kept)"));

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

    // A call's own section names, without a limit: the abstract is headed by them and not
    // measured; a name that is not one is an error at its key.
    let (own, text, report) = build_as(
        "own",
        "{ sections: { methods: Patients and methods, conclusions: Summary } }",
    );
    assert!(own["abstract_length"].is_null());
    assert!(
        text.contains("\n\nPatients and methods: ")
            && text.contains("\n\nSummary: In this synthetic"),
        "{text}"
    );
    assert!(
        !text.contains("\n\nMethods: ") && !text.contains("Conclusions:"),
        "{text}"
    );
    assert!(text.contains("\n\nResults: "), "{text}");
    assert!(report.contains(full));
    let path = tmp.path().join("bad.yaml");
    std::fs::write(
        &path,
        format!("{base}  conference: {{ sections: {{ results: \"Results: \" }} }}\n"),
    )
    .expect("config");
    let ran = readout_command().arg("check").arg(&path).assert().code(2);
    let stderr = ran.stderr();
    assert!(
        stderr.contains("output.conference.sections.results")
            && stderr.contains("expected 1 to 30 letters and spaces"),
        "{stderr}"
    );
}

/// `readout diff` of two cut-offs of the trial whose later snapshot corrected an earlier
/// response and re-graded an AE, entered one AE late and deleted another (issue 42): the
/// corrections are listed apart from the new data, the re-grading is not a new AE, new
/// assessments, AEs and deaths are counted per arm from the data, and rates and medians are
/// printed to the abstract's decimals.
#[test]
fn diff_tells_corrected_records_from_new_data_per_arm() {
    let tmp = tempfile::tempdir().expect("temp");
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).expect("data dir");
    for (name, text) in generator::files() {
        std::fs::write(data.join(name), text).expect("write data");
    }
    let config = tmp.path().join("mm.yaml");
    let text = std::fs::read_to_string(root().join("config/myeloma-example.yaml"))
        .expect("config")
        .replace("dir: ../data/myeloma-example", "dir: data");
    std::fs::write(&config, text).expect("config");
    let out = tmp.path().join("out");
    let build = |cutoff: &str| {
        readout_command()
            .args(["build", "--quiet", "--cutoff", cutoff, "--out"])
            .arg(&out)
            .arg(&config)
            .assert()
            .success();
    };
    build("2023-12-31");

    // The later snapshot: subject 1001's MR of 2023-05-17 corrected to PR, its anaemia
    // (grade 1, 2023-04-25) re-graded 3, a nausea of 2023-06-01 entered late, and the first
    // other treatment-emergent AE before the earlier cut-off deleted.
    let edit =
        |name: &str, change: &dyn Fn(&mut Vec<Vec<String>>)| edit_csv(&data.join(name), change);
    let subject = "MM-EXAMPLE-101-1001";
    edit("adrs.csv", &|rows| {
        for r in rows.iter_mut() {
            if r[1] == subject && r[5] == "2023-05-17" && r[7] == "INVESTIGATOR" {
                assert_eq!(r[6], "MR");
                r[6] = "PR".into();
            }
        }
    });
    let deleted = std::cell::RefCell::new(String::new());
    edit("adae.csv", &|rows| {
        for r in rows.iter_mut() {
            if r[1] == subject && r[2] == "Anaemia" {
                assert_eq!((r[4].as_str(), r[10].as_str()), ("1", "2023-04-25"));
                r[4] = "3".into();
            }
        }
        let mut late = rows[0].clone();
        late[1] = subject.into();
        late[2] = "Nausea".into();
        late[4] = "1".into();
        late[5] = "N".into();
        late[10] = "2023-06-01".into();
        rows.push(late);
        let gone = rows
            .iter()
            .position(|r| r[1] != subject && r[7] == "Y" && r[10].as_str() <= "2023-12-31")
            .expect("an earlier AE");
        *deleted.borrow_mut() = format!("{} {}", rows[gone][1], rows[gone][2]);
        rows.remove(gone);
    });
    build("2024-06-28");
    let ran = readout_command()
        .arg("diff")
        .arg(out.join("MM-EXAMPLE/2023-12-31"))
        .arg(out.join("MM-EXAMPLE/2024-06-28"))
        .assert()
        .success();
    let md = String::from_utf8_lossy(&ran.get_output().stdout).to_string();

    assert!(
        md.contains("- MM-EXAMPLE-101-1001: MR → PR (earlier records corrected)"),
        "{md}"
    );
    assert!(
        md.contains("MM-EXAMPLE-101-1001 (Vd): response on 2023-05-17 MR → PR"),
        "{md}"
    );
    assert!(
        md.contains("MM-EXAMPLE-101-1001 (Vd): Anaemia (started 2023-04-25) grade 1 → grade 3"),
        "{md}"
    );
    // Subject 1001 and the deleted AE's subject have corrected records.
    assert!(
        md.contains("(dated on or before 2023-12-31; 2 subjects)"),
        "{md}"
    );

    new_data_per_arm(&md, &data, &deleted.borrow());
    decimals_as_the_abstracts(&md, &out);
}

/// Rewrites a CSV file's rows with `change`, its header kept.
fn edit_csv(path: &std::path::Path, change: &dyn Fn(&mut Vec<Vec<String>>)) {
    let mut reader = csv::Reader::from_path(path).expect("read");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("row").iter().map(String::from).collect())
        .collect();
    change(&mut rows);
    let mut writer = csv::Writer::from_path(path).expect("write");
    writer.write_record(&header).expect("header");
    for row in rows {
        writer.write_record(&row).expect("row");
    }
    writer.flush().expect("flush");
}

/// The diff's counts per arm of what is new in the snapshot (`data`): assessments and AEs
/// after the earlier cut-off, the late and re-graded AEs of subject 1001, the deleted AE
/// (`deleted`: its subject and term) and the deaths.
fn new_data_per_arm(md: &str, data: &std::path::Path, deleted: &str) {
    // Per arm, from the snapshot: assessments and AEs after the earlier cut-off, deaths.
    let adsl = crate::common::csv_rows(&data.join("adsl.csv"));
    let adrs = crate::common::csv_rows(&data.join("adrs.csv"));
    let adae = crate::common::csv_rows(&data.join("adae.csv"));
    let window = |d: &str| d > "2023-12-31" && d <= "2024-06-28";
    let arm_of: std::collections::HashMap<&str, &str> = adsl
        .iter()
        .map(|r| (r["USUBJID"].as_str(), r["ARM"].as_str()))
        .collect();
    for (arm, short) in [("VLT+DEX", "Vd"), ("POM+DEX", "Pd")] {
        let in_arm = |id: &str| arm_of.get(id) == Some(&arm);
        let assessed: Vec<&Row> = adrs
            .iter()
            .filter(|r| r["RSEVAL"] == "INVESTIGATOR" && window(&r["ADT"]) && in_arm(&r["USUBJID"]))
            .collect();
        let subjects: std::collections::HashSet<&str> =
            assessed.iter().map(|r| r["USUBJID"].as_str()).collect();
        let new_aes = adae
            .iter()
            .filter(|r| r["TRTEMFL"] == "Y" && window(&r["ASTDT"]) && in_arm(&r["USUBJID"]))
            .count();
        // The late nausea and the re-grading are subject 1001's, in Vd.
        let (late, regraded) = if short == "Vd" { (1, 1) } else { (0, 0) };
        let deleted_subject = deleted.split(' ').next().unwrap_or("").to_string();
        let removed = usize::from(arm_of.get(deleted_subject.as_str()) == Some(&arm));
        let line = format!(
            "| {short} | {} ({}) | {new_aes} | {late} | {regraded} | 0 | {removed} |",
            assessed.len(),
            subjects.len()
        );
        assert!(md.contains(&line), "{line} not in\n{md}");
    }
    let deaths = adsl.iter().filter(|r| window(&r["DTHDT"])).count();
    assert!(deaths > 0);
    assert_eq!(md.matches("- Death: ").count(), deaths, "{md}");
}

/// The diff prints rates and medians with one decimal and HRs with two, as the abstracts.
fn decimals_as_the_abstracts(md: &str, out: &std::path::Path) {
    // The abstract's decimals: one for rates and medians, two for HRs, from results.json.
    let results = |date: &str| read_json(&out.join("MM-EXAMPLE").join(date).join("results.json"));
    let (a, b) = (results("2023-12-31"), results("2024-06-28"));
    let vd = |r: &Value| r["cohorts"][0]["arms"][0].clone();
    let orr = |r: &Value| {
        let o = &vd(r)["response"]["orr"];
        format!(
            "{}/{} ({:.1}%)",
            o["n"],
            o["N"],
            o["rate"].as_f64().expect("rate") * 100.0
        )
    };
    let line = format!(
        "| Vd: Overall response rate | {} | {} | **changed** |",
        orr(&a),
        orr(&b)
    );
    assert!(md.contains(&line), "{line} not in\n{md}");
    let median = |r: &Value| {
        vd(r)["tte"]["PFS"]["median"]["estimate"]
            .as_f64()
            .expect("median")
    };
    let line = format!("| Vd: PFS median (CI) | {:.1} (", median(&a));
    assert!(md.contains(&line), "{line} not in\n{md}");
    let hr = |r: &Value| {
        r["cohorts"][0]["comparisons"][0]["tte"]["PFS"]["stratified"]["hr"]["estimate"]
            .as_f64()
            .expect("hr")
    };
    let line = format!("| Vd vs Pd: PFS HR (CI) | {:.2} (", hr(&a));
    assert!(md.contains(&line), "{line} not in\n{md}");
    let line = format!(" | {:.2} (", hr(&b));
    assert!(md.contains(&line), "{line} not in\n{md}");
    assert!(
        md.contains("- Vd: Anaemia: subjects with any grade"),
        "{md}"
    );
}

/// Every figure says what it shows (issue 44): each SVG has `role="img"`, a title and a
/// description; every picture of report.docx and slides.pptx has the description as its alt
/// text, with the figure's key numbers (the KM figure's medians and hazard ratio from
/// results.json).
#[test]
fn every_picture_has_alt_text_with_its_numbers() {
    let (_out, folder) = build_myeloma();
    let results = read_json(&folder.join("results.json"));
    let itt = &results["cohorts"][0];
    let time = |v: &Value| format!("{:.1} months", v.as_f64().expect("a median"));
    let hr = &itt["comparisons"][0]["tte"]["PFS"]["stratified"]["hr"];
    let expected = format!(
        "Kaplan–Meier curves of progression-free survival by arm: median {} with Vd and {} with Pd; stratified HR {:.2} (95% CI {:.2}–{:.2}).",
        time(&itt["arms"][0]["tte"]["PFS"]["median"]["estimate"]),
        time(&itt["arms"][1]["tte"]["PFS"]["median"]["estimate"]),
        hr["estimate"].as_f64().unwrap(),
        hr["lower"].as_f64().unwrap(),
        hr["upper"].as_f64().unwrap()
    );
    let figures = folder.join("itt/figures");
    let mut svgs = 0;
    for entry in std::fs::read_dir(&figures).expect("figures") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).expect("svg");
            let head = &svg[..svg.find("<rect").unwrap_or(svg.len())];
            assert!(
                head.contains(" role=\"img\"><title>") && head.contains("</title><desc>"),
                "{}",
                path.display()
            );
            assert!(!head.contains("<desc></desc>"), "{}", path.display());
            svgs += 1;
        }
    }
    assert!(svgs >= 6, "{svgs} figures");
    let km = std::fs::read_to_string(figures.join("km-pfs.svg")).expect("km");
    assert!(
        km.contains(&format!("<desc>{expected}</desc>")),
        "{expected}"
    );
    for (file, part, attribute) in [
        ("itt/report.docx", "word/document.xml", "<wp:docPr "),
        (
            "itt/slides.pptx",
            "ppt/slides/",
            "<p:pic><p:nvPicPr><p:cNvPr ",
        ),
    ] {
        let bytes = std::fs::read(folder.join(file)).expect("document");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
        let mut xml = String::new();
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).expect("part");
            if entry.name().expect("name").starts_with(part) {
                std::io::Read::read_to_string(&mut entry, &mut xml).expect("xml");
            }
        }
        let pictures: Vec<&str> = xml.split(attribute).skip(1).collect();
        assert!(!pictures.is_empty(), "{file}");
        for p in &pictures {
            let descr = p
                .split("descr=\"")
                .nth(1)
                .and_then(|d| d.split('"').next())
                .unwrap_or("");
            assert!(descr.len() > 20, "{file}: a picture without alt text");
        }
        assert!(xml.contains(&format!("descr=\"{expected}\"")), "{file}");
    }
}

/// report.docx has a running header (study, cut-off, population) and a footer "Page X of Y"
/// as Word fields, referenced from the section, and every table a `w:tblCaption` (issue 44);
/// abstract.docx has neither header nor footer.
#[test]
fn the_word_report_has_a_running_header_page_numbers_and_table_captions() {
    let (_out, folder) = build_myeloma();
    let part = |file: &str, name: &str| -> Option<String> {
        let bytes = std::fs::read(folder.join(file)).expect("document");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
        let mut xml = String::new();
        let mut entry = archive.by_name(name).ok()?;
        std::io::Read::read_to_string(&mut entry, &mut xml).expect("xml");
        Some(xml)
    };
    let header = part("itt/report.docx", "word/header1.xml").expect("a header");
    assert!(
        header.contains("MM-EXAMPLE · data cut-off 2024-06-28 · Intention-to-treat population"),
        "{header}"
    );
    let footer = part("itt/report.docx", "word/footer1.xml").expect("a footer");
    assert!(footer.contains("w:instr=\" PAGE \"") && footer.contains("w:instr=\" NUMPAGES \""));
    let document = part("itt/report.docx", "word/document.xml").expect("document");
    assert!(document.contains(
        "<w:sectPr><w:headerReference w:type=\"default\" r:id=\"rIdHeader1\" /><w:footerReference"
    ));
    // Every table named for screen readers: by its caption, else the heading above it.
    let tables = document.matches("<w:tbl>").count();
    assert!(tables > 5);
    assert_eq!(document.matches("<w:tblCaption w:val=\"").count(), tables);
    // Every table captioned "Table N. ..." in order, the CSR tables among them.
    let captions: Vec<&str> = document
        .split("<w:tblCaption w:val=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap_or(0)])
        .collect();
    for (i, caption) in captions.iter().enumerate() {
        assert!(
            caption.starts_with(&format!("Table {}. ", i + 1)),
            "{caption}"
        );
    }
    assert!(captions
        .iter()
        .any(|c| c.contains(". Treatment-emergent adverse events by system organ class")));
    // A table of contents field, its entries linked to the headings' bookmarks.
    assert!(document.contains("TOC \\o \"1-1\" \\h \\z \\u"));
    assert!(
        document.contains("<w:hyperlink w:anchor=\"_Toc1\"")
            && document.contains("w:name=\"_Toc1\"")
    );
    let types = part("itt/report.docx", "[Content_Types].xml").expect("types");
    assert!(types.contains("/word/header1.xml") && types.contains("/word/footer1.xml"));
    assert!(part("itt/abstract.docx", "word/header1.xml").is_none());
}

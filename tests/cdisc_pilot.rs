//! Real ADaM data as delivered: the CDISC SDTM/ADaM Pilot 01 study built end to end from its
//! original SAS transport files (`tests/fixtures/cdiscpilot01/study.yaml`, three cohorts by
//! arm), and the pharmaverse data loaded with a config that maps nothing.
//!
//! Every expected number is computed here, independently of readout, from the CSV conversions
//! that sit beside the `.xpt` files: treatment-emergent adverse events per arm (subjects,
//! severity SEVERE as grade 3, relatedness NONE/REMOTE/POSSIBLE/PROBABLE), and the Kaplan–Meier
//! estimate of time to first dermatologic event (ADTTE `PARAMCD = TTDE`) by arm: subjects,
//! events, median, survival and number at risk at landmarks, and the number-at-risk row under
//! the figure. The data live in `../shared/reference/adam/` beside the repository and are never
//! committed: the tests are ignored unless run with `--include-ignored` (`.ci/run` does).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{build_quietly, readout_command, root};

fn reference(folder: &str) -> PathBuf {
    crate::common::shared_reference(&format!("adam/{folder}"))
}

type Rows = Vec<HashMap<String, String>>;

/// A CSV conversion as rows of column → trimmed text.
fn read_csv(path: &Path) -> Rows {
    let mut reader = csv::Reader::from_path(path).expect("csv");
    let headers = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("record");
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.trim().to_string()))
                .collect()
        })
        .collect()
}

/// The pilot's folder, with its `.xpt` files.
fn pilot_xpt() -> PathBuf {
    let dir = reference("cdiscpilot01");
    assert!(
        dir.join("adsl.xpt").exists(),
        "the .xpt files are absent from {}",
        dir.display()
    );
    dir
}

fn pilot_results(config: &Path) -> (tempfile::TempDir, Value) {
    let out = tempfile::tempdir().expect("temp dir");
    build_quietly(out.path(), config).success();
    let study = std::fs::read_dir(out.path())
        .expect("output")
        .next()
        .expect("a study folder")
        .expect("entry")
        .path();
    let text = std::fs::read_to_string(study.join("no-cutoff/results.json")).expect("results");
    (out, serde_json::from_str(&text).expect("json"))
}

fn cohort<'a>(results: &'a Value, id: &str) -> &'a Value {
    results["cohorts"]
        .as_array()
        .expect("cohorts")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("cohort {id} missing"))
}

const ARMS: [(&str, &str); 3] = [
    ("placebo", "Placebo"),
    ("xanomeline-low", "Xanomeline Low Dose"),
    ("xanomeline-high", "Xanomeline High Dose"),
];

/// A Kaplan–Meier estimate computed the textbook way: at each distinct event time t,
/// S ← S × (1 − d(t) / n(t)), with n(t) the subjects whose time is ≥ t.
struct Km {
    /// (event time, S just after it).
    steps: Vec<(f64, f64)>,
}

impl Km {
    fn new(data: &[(f64, bool)]) -> Km {
        let times: BTreeSet<u64> = data
            .iter()
            .filter(|(_, e)| *e)
            .map(|(t, _)| t.to_bits())
            .collect();
        let mut times: Vec<f64> = times.into_iter().map(f64::from_bits).collect();
        times.sort_by(f64::total_cmp);
        let mut s = 1.0;
        let mut steps = Vec::new();
        for t in times {
            let at_risk = data.iter().filter(|(x, _)| *x >= t).count() as f64;
            let died = data.iter().filter(|(x, e)| *e && *x == t).count() as f64;
            s *= 1.0 - died / at_risk;
            steps.push((t, s));
        }
        Km { steps }
    }

    fn surv(&self, t: f64) -> f64 {
        self.steps
            .iter()
            .take_while(|(x, _)| *x <= t)
            .last()
            .map_or(1.0, |(_, s)| *s)
    }

    /// The smallest time with S ≤ 0.5; where S is exactly 0.5 up to the next event, the
    /// midpoint of the two (R's `quantile.survfit`).
    fn median(&self) -> Option<f64> {
        let i = self.steps.iter().position(|(_, s)| *s <= 0.5 + 1e-12)?;
        let (t, s) = self.steps[i];
        if (s - 0.5).abs() < 1e-12 {
            if let Some((next, _)) = self.steps.get(i + 1) {
                return Some((t + next) / 2.0);
            }
        }
        Some(t)
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn pilot_builds_from_xpt_with_teae_counts_and_km_by_arm() {
    let dir = pilot_xpt();
    let (out, results) = pilot_results(Path::new("tests/fixtures/cdiscpilot01/study.yaml"));
    assert_eq!(results["time_unit"], "days");

    let adsl = read_csv(&dir.join("adsl.csv"));
    let adae = read_csv(&dir.join("adae.csv"));
    let adtte = read_csv(&dir.join("adtte.csv"));
    let arm_of: HashMap<&str, &str> = adsl
        .iter()
        .map(|r| (r["USUBJID"].as_str(), r["TRT01A"].as_str()))
        .collect();
    let safety: BTreeSet<&str> = adsl
        .iter()
        .filter(|r| r["SAFFL"] == "Y")
        .map(|r| r["USUBJID"].as_str())
        .collect();

    let mut teae_any = BTreeMap::new();
    for (id, arm) in ARMS {
        let c = cohort(&results, id);
        let n_arm = adsl.iter().filter(|r| r["TRT01A"] == arm).count();
        let n_safety = safety.iter().filter(|s| arm_of[*s] == arm).count();
        assert_eq!(c["n"]["enrolled"], n_arm, "{id}");
        assert_eq!(c["n"]["safety"], n_safety, "{id}");
        // `efficacy_flag: SAFFL`: the time-to-event population is the safety population.
        assert_eq!(c["n"]["efficacy"], n_safety, "{id}");

        // Treatment-emergent AEs: subjects of the arm's safety population with TRTEMFL = Y.
        let teae: Vec<&HashMap<String, String>> = adae
            .iter()
            .filter(|r| r["TRTEMFL"] == "Y")
            .filter(|r| safety.contains(r["USUBJID"].as_str()))
            .filter(|r| arm_of[r["USUBJID"].as_str()] == arm)
            .collect();
        let subjects = |keep: &dyn Fn(&HashMap<String, String>) -> bool| {
            teae.iter()
                .filter(|r| keep(r))
                .map(|r| r["USUBJID"].as_str())
                .collect::<BTreeSet<_>>()
                .len()
        };
        let related = |r: &HashMap<String, String>| {
            matches!(
                r["AEREL"].as_str(),
                "Y" | "RELATED" | "PROBABLE" | "POSSIBLE"
            )
        };
        let safety_json = &c["safety"];
        assert_eq!(safety_json["N"], n_safety, "{id}");
        assert_eq!(safety_json["teae"]["any"], subjects(&|_| true), "{id}");
        assert_eq!(
            safety_json["teae"]["grade3plus"],
            subjects(&|r| r["AESEV"] == "SEVERE"),
            "{id}"
        );
        assert_eq!(
            safety_json["teae"]["serious"],
            subjects(&|r| r["AESER"] == "Y"),
            "{id}"
        );
        assert_eq!(safety_json["trae"]["any"], subjects(&related), "{id}");
        assert_eq!(
            safety_json["trae"]["grade3plus"],
            subjects(&|r| related(r) && r["AESEV"] == "SEVERE"),
            "{id}"
        );
        // Per term: the most frequent TEAE of the arm.
        let mut per_term: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for r in &teae {
            per_term
                .entry(r["AEDECOD"].as_str())
                .or_default()
                .insert(r["USUBJID"].as_str());
        }
        for term in safety_json["by_term"].as_array().expect("by_term") {
            let name = term["term"].as_str().expect("term");
            assert_eq!(term["teae_any"], per_term[name].len(), "{id}: {name}");
        }
        assert_eq!(
            safety_json["by_term"].as_array().unwrap().len(),
            per_term.len()
        );
        teae_any.insert(id, subjects(&|_| true));

        // Time to first dermatologic event, in days (ADTTE AVAL is in days).
        let data: Vec<(f64, bool)> = adtte
            .iter()
            .filter(|r| r["PARAMCD"] == "TTDE" && arm_of[r["USUBJID"].as_str()] == arm)
            .map(|r| (r["AVAL"].parse().unwrap(), r["CNSR"] == "0"))
            .collect();
        let km = Km::new(&data);
        let tte = &c["tte"]["TTDE"];
        assert_eq!(tte["source"], "ADTTE");
        assert_eq!(tte["n"], data.len(), "{id}");
        assert_eq!(
            tte["events"],
            data.iter().filter(|(_, e)| *e).count(),
            "{id}"
        );
        match km.median() {
            Some(m) => assert!(
                close(tte["median"]["estimate"].as_f64().expect("median"), m),
                "{id}: median {} vs {m}",
                tte["median"]["estimate"]
            ),
            None => assert!(tte["median"]["estimate"].is_null(), "{id}"),
        }
        let landmarks = tte["landmarks"].as_array().expect("landmarks");
        assert_eq!(landmarks.len(), 6);
        for l in landmarks {
            let t = l["time"].as_f64().unwrap();
            let at_risk = data.iter().filter(|(x, _)| *x >= t).count();
            assert_eq!(l["n_risk"], at_risk, "{id}: at risk at day {t}");
            assert!(
                close(l["surv"].as_f64().unwrap(), km.surv(t)),
                "{id}: S({t}) {} vs {}",
                l["surv"],
                km.surv(t)
            );
        }

        // The figure's number-at-risk row: each count under a tick is ADTTE's AVAL ≥ tick.
        let svg = std::fs::read_to_string(
            out.path()
                .join("CDISCPILOT01/no-cutoff")
                .join(id)
                .join("figures/km-ttde.svg"),
        )
        .expect("km figure");
        let (ticks, counts) = at_risk_row(&svg, arm);
        assert!(ticks.len() >= 4, "{id}: ticks {ticks:?}");
        assert_eq!(ticks.len(), counts.len(), "{id}: {ticks:?} {counts:?}");
        for (t, n) in ticks.iter().zip(&counts) {
            let expected = data.iter().filter(|(x, _)| *x >= *t).count();
            assert_eq!(*n, expected, "{id}: figure's number at risk at day {t}");
        }
    }
    // The same counts by hand from ADAE (TRTEMFL = Y, SAFFL = Y), pinned: a change in the
    // data or the loader shows here first.
    assert_eq!(
        teae_any.into_iter().collect::<Vec<_>>(),
        [
            ("placebo", 65),
            ("xanomeline-high", 76),
            ("xanomeline-low", 77)
        ]
    );
}

/// The x-axis tick labels and the number-at-risk row of a one-arm KM figure: the numbers just
/// before the "Time (...)" axis title, and the numbers after the arm's label under "Number at
/// risk".
fn at_risk_row(svg: &str, label: &str) -> (Vec<f64>, Vec<usize>) {
    let doc = roxmltree::Document::parse(svg).expect("svg");
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect();
    let axis = texts
        .iter()
        .position(|t| t.starts_with("Time ("))
        .expect("time axis title");
    let mut ticks: Vec<f64> = texts[..axis]
        .iter()
        .rev()
        .map_while(|t| t.parse().ok())
        .collect();
    ticks.reverse();
    let table = texts
        .iter()
        .position(|t| t == "Number at risk")
        .expect("number-at-risk table");
    // The row starts with the arm's label, shortened with "…" when long.
    let row = table + 1;
    let shown = texts.get(row).expect("the arm's row").trim_end_matches('…');
    assert!(
        label.starts_with(shown),
        "row label {shown:?} for {label:?}"
    );
    let counts = texts[row + 1..]
        .iter()
        .map_while(|t| t.parse().ok())
        .collect();
    (ticks, counts)
}

#[test]
#[ignore = "needs ../shared/reference/adam/pharmaverse"]
fn pharmaverse_loads_with_the_default_config() {
    let dir = reference("pharmaverse");
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study: {{ id: PHARMAVERSE }}\n\
             data:\n  dir: {}\n  adsl: adsl.csv\n  adrs: adrs_onco.csv\n  adtte: adtte_onco.csv\n  adae: adae.csv\n  adtr: adtr_onco.csv\n\
             cohorts:\n  - {{ id: all }}\n",
            dir.display()
        ),
    )
    .unwrap();
    let (_out, results) = pilot_results(&config);
    let c = cohort(&results, "all");

    let adsl = read_csv(&dir.join("adsl.csv"));
    let adae = read_csv(&dir.join("adae.csv"));
    let adtte = read_csv(&dir.join("adtte_onco.csv"));
    let safety: BTreeSet<&str> = adsl
        .iter()
        .filter(|r| r["SAFFL"] == "Y")
        .map(|r| r["USUBJID"].as_str())
        .collect();
    assert_eq!(c["n"]["enrolled"], adsl.len());
    assert_eq!(c["safety"]["N"], safety.len());
    // TRTEMFL is Y or empty here; severity in AESEV.
    let teae: BTreeSet<&str> = adae
        .iter()
        .filter(|r| r["TRTEMFL"] == "Y" && safety.contains(r["USUBJID"].as_str()))
        .map(|r| r["USUBJID"].as_str())
        .collect();
    assert_eq!(c["safety"]["teae"]["any"], teae.len());
    let severe: BTreeSet<&str> = adae
        .iter()
        .filter(|r| r["TRTEMFL"] == "Y" && safety.contains(r["USUBJID"].as_str()))
        .filter(|r| r["AESEV"] == "SEVERE")
        .map(|r| r["USUBJID"].as_str())
        .collect();
    assert_eq!(c["safety"]["teae"]["grade3plus"], severe.len());
    for param in ["PFS", "OS"] {
        let rows: Vec<_> = adtte.iter().filter(|r| r["PARAMCD"] == param).collect();
        let tte = &c["tte"][param];
        assert_eq!(tte["source"], "ADTTE");
        assert_eq!(tte["n"], rows.len(), "{param}");
        assert_eq!(
            tte["events"],
            rows.iter().filter(|r| r["CNSR"] == "0").count(),
            "{param}"
        );
    }
}

/// The pilot's documents say what its data are (issue 19): severity-only adverse events read
/// "severe", Methods speaks of no RECIST (no response data), the custom endpoint is named by its
/// label, every count agrees with its percentage; and a filter in the wrong case is an error
/// listing the arms ADSL has.
#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn pilot_documents_follow_its_data() {
    let _ = pilot_xpt();
    let (out, _) = pilot_results(Path::new("tests/fixtures/cdiscpilot01/study.yaml"));
    let folder = out.path().join("CDISCPILOT01/no-cutoff/placebo");
    let text = std::fs::read_to_string(folder.join("abstract.txt")).expect("abstract");
    for present in [
        "severe TRAEs in",
        "Adverse events were graded by severity (mild, moderate, severe), not per CTCAE.",
        "For time to first dermatologic event, ",
    ] {
        assert!(text.contains(present), "`{present}` missing: {text}");
    }
    for absent in [
        "grade ≥3",
        "RECIST",
        "ORR",
        "ttde",
        "TTDE",
        "1 pts",
        "0 pts",
    ] {
        assert!(!text.contains(absent), "`{absent}` in: {text}");
    }
    assert!(readout::documents::lint::check_proportions(&text).is_empty());
    let report = std::fs::read_to_string(folder.join("report.html")).expect("report");
    assert!(
        report.contains("<th scope=\"row\">Severe</th>") && !report.contains("Fatal (grade 5)")
    );

    let tmp = tempfile::tempdir().expect("temp dir");
    let config = tmp.path().join("study.yaml");
    let text = std::fs::read_to_string(root().join("tests/fixtures/cdiscpilot01/study.yaml"))
        .expect("config")
        .replace(
            "where: { TRT01A: \"Placebo\" }",
            "where: { TRT01A: \"placebo\" }",
        )
        .replace(
            "../../../../shared",
            &root().join("../shared").display().to_string(),
        );
    std::fs::write(&config, text).expect("write");
    let output = readout_command()
        .arg("check")
        .arg(&config)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        err.contains(
            "cohort `placebo`: key `cohorts[0].where`: no subject matches TRT01A = \"placebo\" \
             (ADSL has: \"Placebo\", \"Xanomeline High Dose\", \"Xanomeline Low Dose\")"
        ),
        "{err}"
    );
}

/// The pilot's published disposition and exposure (CSR tables 14-1.02 and 14-4.01):
/// discontinued because of adverse events 8/86, 44/84, 40/84; completed 58, 25, 27; median
/// treatment duration 182, 82.5, 76.5 days (mean 149.1, 99.0, 99.4).
#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn pilot_disposition_and_exposure_are_the_published_ones() {
    let _dir = pilot_xpt();
    let (_out, results) = pilot_results(Path::new("tests/fixtures/cdiscpilot01/study.yaml"));
    let published = [
        ("placebo", 86, 58, 8, 182.0, 149.1),
        ("xanomeline-low", 84, 25, 44, 82.5, 99.0),
        ("xanomeline-high", 84, 27, 40, 76.5, 99.4),
    ];
    for (id, n, completed, by_ae, median, mean) in published {
        let c = cohort(&results, id);
        let d = &c["disposition"];
        assert_eq!(d["N"], n, "{id}");
        assert_eq!(d["completed"], completed, "{id}");
        assert_eq!(d["discontinued"], n - completed, "{id}");
        assert_eq!(d["discontinued_ae"], by_ae, "{id}");
        // The reason column gives the count (DSRAEFL, which ADSL has too, says the same).
        assert_eq!(d["discontinued_ae_source"], "DCDECOD", "{id}");
        assert_eq!(d["reason_column"], "DCDECOD", "{id}");
        let reasons: i64 = d["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["n"].as_i64().unwrap())
            .sum();
        assert_eq!(reasons, n - completed, "{id}");
        let e = &c["exposure"];
        assert_eq!(e["n"], n, "{id}");
        assert_eq!(e["duration"]["median"].as_f64(), Some(median), "{id}");
        let got = e["duration"]["mean"].as_f64().unwrap();
        assert!((got - mean).abs() < 0.05, "{id}: mean {got}");
    }
    // Dose from ADSL CUMDOSE and AVGDD (medians of the pilot's ADSL).
    for (id, cumulative, daily) in [
        ("placebo", 0.0, 0.0),
        ("xanomeline-low", 4455.0, 54.0),
        ("xanomeline-high", 5778.0, 75.1),
    ] {
        let dose = &cohort(&results, id)["exposure"]["dose"];
        assert_eq!(dose["CUMDOSE"]["median"].as_f64(), Some(cumulative), "{id}");
        assert_eq!(dose["AVGDD"]["median"].as_f64(), Some(daily), "{id}");
    }
}

/// Adverse events of the pilot's high dose against placebo: counts, Newcombe risk differences
/// and exposure-adjusted incidence rates (per 100 patient-years, exposure TRTDUR) equal R's:
/// base R 4.2.2 `prop.test` Wilson limits combined by hand (Newcombe method 10) and
/// `poisson.test`, on the pilot's ADSL and ADAE (`tests/reference/ae-compare/pilot_ae.R`,
/// exposure TRTDUR).
#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
#[allow(clippy::excessive_precision)] // R's digits, as printed
fn pilot_adverse_events_compared_equal_r() {
    let _dir = pilot_xpt();
    let (_out, results) = pilot_results(Path::new("tests/fixtures/cdiscpilot01/arms.yaml"));
    let c = cohort(&results, "all");
    let high = c["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["arm"] == "Xanomeline High Dose")
        .expect("high dose vs placebo");
    let s = &high["safety"];
    assert_eq!((&s["N"], &s["N_reference"]), (&84.into(), &86.into()));
    // (row, n, EAIR, lower, upper, n reference, EAIR, lower, upper, difference, lower, upper)
    let r: [(&str, [f64; 11]); 4] = [
        (
            "any TEAE",
            [
                76.0,
                1390.03505257887,
                1095.18952097520,
                1739.83614746404,
                65.0,
                447.104519774011,
                345.065829154479,
                569.871413027252,
                0.148947951273533,
                0.0356813504914046,
                0.259500720289694,
            ],
        ),
        (
            "APPLICATION SITE PRURITUS",
            [
                22.0,
                123.49008759797141,
                77.390580437711165,
                186.96547667732582,
                6.0,
                18.247293921731888,
                6.6964352713366644,
                39.716676825353453,
                0.1921373200442968,
                0.0814646712928909,
                0.3016658757787011,
            ],
        ),
        (
            "ERYTHEMA",
            [
                14.0,
                74.280941313189999,
                40.610081833509497,
                124.63079771572406,
                8.0,
                23.532254167673351,
                10.159557079466781,
                46.367921902839719,
                0.0736434108527132,
                -0.0291999438991853,
                0.1777933247011907,
            ],
        ),
        (
            "DIZZINESS",
            [
                11.0,
                54.031065088757394,
                26.972113019543510,
                96.676500362877078,
                2.0,
                5.804068012076911,
                0.702899562912627,
                20.966289294741586,
                0.107696566998893,
                0.027183242824323,
                0.197795484618370,
            ],
        ),
    ];
    for (name, want) in r {
        let row = s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["kind"] == name || x["term"] == name)
            .unwrap_or_else(|| panic!("{name}"));
        let got = [
            row["n"].as_f64().unwrap(),
            row["eair"]["estimate"].as_f64().unwrap(),
            row["eair"]["lower"].as_f64().unwrap(),
            row["eair"]["upper"].as_f64().unwrap(),
            row["n_reference"].as_f64().unwrap(),
            row["eair_reference"]["estimate"].as_f64().unwrap(),
            row["eair_reference"]["lower"].as_f64().unwrap(),
            row["eair_reference"]["upper"].as_f64().unwrap(),
            row["difference"]["estimate"].as_f64().unwrap(),
            row["difference"]["lower"].as_f64().unwrap(),
            row["difference"]["upper"].as_f64().unwrap(),
        ];
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1e-3),
                "{name}: {got:?} vs R {want:?}"
            );
        }
    }
}

/// Table 14-1.02 "Summary of End of Study Data" of the pilot (intent-to-treat, per arm and in
/// total), as the R replication prints it (atorus-research/CDISC_pilot_replication,
/// outputs/14-1.02.docx): completed week 24 (COMP24FL) 60/28/30 (118), early termination
/// 26/56/54 (136), and the reasons (DCREASCD) among those who did not complete.
#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn pilot_end_of_study_table_is_the_published_one() {
    let dir = reference("cdiscpilot01");
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study: {{ id: PILOT-14-1-02 }}\n\
             data:\n  dir: {}\n  adsl: adsl.xpt\n  \
             disposition: {{ study: {{ status: COMP24FL, reason: DCREASCD, label: Completion of week 24 }} }}\n\
             analysis: {{ tte_params: {{}} }}\n\
             cohorts:\n  - {{ id: itt, where: {{ ITTFL: Y }}, arms: {{ column: TRT01P, reference: Placebo }} }}\n\
             output: {{ formats: [html, docx] }}\n",
            dir.display()
        ),
    )
    .unwrap();
    let (out, results) = pilot_results(&config);
    let c = cohort(&results, "itt");
    // (arm, N, completed, early termination, reasons in the table's order)
    let reasons = [
        "Adverse Event",
        "Death",
        "Lack of Efficacy",
        "Lost to Follow-up",
        "Withdrew Consent",
        "Physician Decision",
        "I/E Not Met",
        "Protocol Violation",
        "Sponsor Decision",
    ];
    let published: [(&str, u64, u64, u64, [u64; 9]); 4] = [
        ("Placebo", 86, 60, 26, [8, 1, 3, 1, 9, 1, 1, 1, 1]),
        (
            "Xanomeline Low Dose",
            84,
            28,
            56,
            [44, 1, 0, 0, 8, 0, 0, 1, 2],
        ),
        (
            "Xanomeline High Dose",
            84,
            30,
            54,
            [39, 0, 1, 0, 8, 2, 2, 1, 1],
        ),
        ("Total", 254, 118, 136, [91, 2, 4, 1, 25, 3, 3, 3, 4]),
    ];
    for (arm, n, completed, early, by_reason) in published {
        let d = if arm == "Total" {
            &c["disposition"]
        } else {
            &c["arms"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["arm"] == arm)
                .unwrap_or_else(|| panic!("{arm}"))["disposition"]
        };
        assert_eq!(d["N"], n, "{arm}");
        assert_eq!(d["completed"], completed, "{arm}");
        assert_eq!(d["discontinued"], early, "{arm}");
        assert_eq!(d["ongoing"], 0, "{arm}");
        for (reason, expected) in reasons.iter().zip(by_reason) {
            let got = d["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["reason"] == *reason)
                .map_or(0, |r| r["n"].as_u64().unwrap());
            assert_eq!(got, expected, "{arm}: {reason}");
        }
        assert_eq!(d["discontinued_ae"], by_reason[0], "{arm}");
    }
    // The same counts in report.html and report.docx: each row's arms in the cohort's order,
    // then the total, as "n (x.x%)".
    let folder = out.path().join("PILOT-14-1-02/no-cutoff/itt");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let docx = document_xml(&folder.join("report.docx"));
    let order: Vec<usize> = c["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .map(|a| {
            published
                .iter()
                .position(|p| a["arm"] == p.0)
                .expect("a published arm")
        })
        .chain([3])
        .collect();
    let mut rows: Vec<(&str, Vec<u64>)> = vec![
        ("Completed", published.iter().map(|p| p.2).collect()),
        ("Discontinued", published.iter().map(|p| p.3).collect()),
    ];
    for (k, reason) in reasons.iter().enumerate() {
        rows.push((reason, published.iter().map(|p| p.4[k]).collect()));
    }
    for (what, found) in [
        (
            "report.html",
            table_rows(&row_headers_as_cells(&html), "tr", "td"),
        ),
        ("report.docx", table_rows(&docx, "w:tr", "w:tc")),
    ] {
        for (label, counts) in &rows {
            let mut cells = vec![label.to_string()];
            cells.extend(order.iter().map(|&k| {
                let n = counts[k];
                format!("{n} ({}%)", crate::common::percent_text(n, published[k].1))
            }));
            assert!(found.contains(&cells), "{what}: no row {cells:?}");
        }
    }
}

/// The pharmaverse ADSL's end-of-study status (EOSSTT; no reason column): per value as its
/// CSV holds it, the 52 screen failures (no status) ongoing; no treatment level (no EOTSTT).
/// ADAE's AEACN is empty on every row: discontinuation because of adverse events is not
/// available (it was 0), and so are the TEAE action counts.
#[test]
#[ignore = "needs ../shared/reference/adam/pharmaverse"]
fn pharmaverse_disposition_is_its_eosstt_and_no_aeacn_is_not_zero() {
    let dir = reference("pharmaverse");
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study: {{ id: PHARMAVERSE }}\n\
             data:\n  dir: {}\n  adsl: adsl.csv\n  adae: adae.csv\n\
             analysis: {{ tte_params: {{}} }}\ncohorts:\n  - {{ id: all }}\n",
            dir.display()
        ),
    )
    .unwrap();
    let (_out, results) = pilot_results(&config);
    let c = cohort(&results, "all");
    let adsl = read_csv(&dir.join("adsl.csv"));
    let count = |status: &str| adsl.iter().filter(|r| r["EOSSTT"] == status).count();
    let d = &c["disposition"];
    assert_eq!(d["level"], "study");
    assert_eq!(d["completed"], count("COMPLETED"));
    assert_eq!(d["discontinued"], count("DISCONTINUED"));
    assert_eq!(d["ongoing"], count(""));
    assert!(d["discontinued_ae"].is_null(), "{d}");
    assert!(c.get("study_disposition").is_none());
    assert!(
        c["safety"]["teae"].get("discontinued").is_none(),
        "{}",
        c["safety"]["teae"]
    );
}

/// One row of a transcribed CSR table: class, term (`(any)`, `(SOC total)` or the term), and
/// per arm (Placebo, low, high) `(subjects, events)`.
type CsrRow = (String, String, [(u64, u64); 3]);

/// Reads `tests/fixtures/cdiscpilot01/<name>`: "n (pct%) [events]" or "0" per arm.
fn csr_rows(name: &str) -> Vec<CsrRow> {
    let text = std::fs::read_to_string(root().join("tests/fixtures/cdiscpilot01").join(name))
        .expect("table");
    let cell = |c: &str| -> (u64, u64) {
        let c = c.trim();
        if c == "0" {
            return (0, 0);
        }
        let n = c.split(' ').next().expect("n").parse().expect("n");
        let events = c
            .rsplit('[')
            .next()
            .and_then(|e| e.strip_suffix(']'))
            .expect("events")
            .parse()
            .expect("events");
        (n, events)
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(" | ").collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                [cell(f[2]), cell(f[3]), cell(f[4])],
            )
        })
        .collect()
}

/// A Word file's `word/document.xml`.
fn document_xml(path: &Path) -> String {
    let file = std::fs::File::open(path).expect("a .docx");
    let mut archive = zip::ZipArchive::new(file).expect("zip");
    let mut xml = String::new();
    std::io::Read::read_to_string(
        &mut archive.by_name("word/document.xml").expect("document"),
        &mut xml,
    )
    .expect("xml");
    xml
}

/// The rows of every table of a report.html or a report.docx's document.xml, as cell texts.
/// report.html with its header cells (`<th scope="row">` first in each row) read as cells.
fn row_headers_as_cells(html: &str) -> String {
    html.replace("<th>", "<td>")
        .replace("<th ", "<td ")
        .replace("</th>", "</td>")
}

fn table_rows(markup: &str, row: &str, cell: &str) -> Vec<Vec<String>> {
    let text_of = |fragment: &str| {
        let mut out = String::new();
        let mut inside = false;
        for ch in fragment.chars() {
            match ch {
                '<' => inside = true,
                '>' => inside = false,
                c if !inside => out.push(c),
                _ => {}
            }
        }
        // Word's cells keep numbers on one line with no-break characters.
        out.replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#x2F;", "/")
            .replace("&#x27;", "'")
            .replace("&#39;", "'")
            .replace("&quot;", "\"")
            .replace('\u{a0}', " ")
            .replace('\u{2060}', "")
            .replace('\u{2011}', "-")
    };
    markup
        .split(&format!("<{row}"))
        .skip(1)
        .map(|r| {
            let r = r.split(&format!("</{row}>")).next().unwrap_or("");
            r.split(&format!("<{cell}"))
                .skip(1)
                .map(|c| text_of(&format!("<{cell}{c}")).trim().to_string())
                .collect()
        })
        .collect()
}

/// Tables 14-5.01 and 14-5.02 of the pilot (TEAEs and serious TEAEs by system organ class and
/// preferred term, subjects and events per arm), reproduced from its ADaM in results.json, in
/// report.html and in report.docx, every row; the total column is the arms' sum.
#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn pilot_adverse_event_tables_are_the_published_ones() {
    let _dir = pilot_xpt();
    let tmp = tempfile::tempdir().expect("temp");
    let config = tmp.path().join("arms.yaml");
    let text = std::fs::read_to_string(root().join("tests/fixtures/cdiscpilot01/arms.yaml"))
        .expect("config")
        .replace(
            "../../../../shared",
            &root().join("../shared").display().to_string(),
        )
        .replace(
            "  followup: TTDE\n",
            "  followup: TTDE\n  ae_events: true\n",
        )
        + "output:\n  formats: [html, docx]\n";
    std::fs::write(&config, text).expect("config");
    let (out, results) = pilot_results(&config);
    let c = cohort(&results, "all");
    let arm = |name: &str| {
        c["arms"]
            .as_array()
            .expect("arms")
            .iter()
            .find(|a| a["arm"] == name)
            .unwrap_or_else(|| panic!("{name}"))["safety"]
            .clone()
    };
    let arms = [
        arm("Placebo"),
        arm("Xanomeline Low Dose"),
        arm("Xanomeline High Dose"),
    ];
    let folder = std::fs::read_dir(out.path())
        .expect("out")
        .next()
        .expect("study")
        .expect("entry")
        .path()
        .join("no-cutoff/all");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let html_rows = table_rows(&row_headers_as_cells(&html), "tr", "td");
    let docx = document_xml(&folder.join("report.docx"));
    let docx_rows = table_rows(&docx, "w:tr", "w:tc");
    let totals = [86u64, 84, 84];
    // The report's columns: the arms in the cohort's order, as indexes of `arms`.
    let names = ["Placebo", "Xanomeline Low Dose", "Xanomeline High Dose"];
    let order: Vec<usize> = c["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .map(|a| {
            names
                .iter()
                .position(|n| a["arm"] == *n)
                .expect("a pilot arm")
        })
        .collect();
    let shown = |(n, e): (u64, u64), total: u64| {
        let pct = crate::common::percent_text(n, total);
        if n == 0 {
            format!("0 ({pct}%)")
        } else {
            format!("{n} ({pct}%) [{e}]")
        }
    };
    for (file, table, any) in [
        ("t-14-5-01.txt", "by_soc", "Any TEAE"),
        ("t-14-5-02.txt", "serious_by_soc", "Any serious TEAE"),
    ] {
        let rows = csr_rows(file);
        assert!(rows.len() >= 4, "{file}");
        for (soc, term, expected) in &rows {
            for (k, safety) in arms.iter().enumerate() {
                let found = if term == "(any)" {
                    let key = if table == "by_soc" { "any" } else { "serious" };
                    let n = &safety["teae"][key];
                    (
                        n.as_u64().unwrap_or(0),
                        safety["events"][key].as_u64().unwrap_or(0),
                    )
                } else {
                    let class = safety[table].as_array().expect("classes").iter().find(|s| {
                        s["soc"]
                            .as_str()
                            .is_some_and(|x| x.eq_ignore_ascii_case(soc))
                    });
                    let row = match (class, term.as_str()) {
                        (None, _) => None,
                        (Some(s), "(SOC total)") => Some(s.clone()),
                        (Some(s), t) => s["terms"]
                            .as_array()
                            .expect("terms")
                            .iter()
                            .find(|x| {
                                x["term"]
                                    .as_str()
                                    .is_some_and(|y| y.eq_ignore_ascii_case(t))
                            })
                            .cloned(),
                    };
                    row.map_or((0, 0), |r| {
                        (
                            r["subjects"].as_u64().unwrap(),
                            r["events"].as_u64().unwrap(),
                        )
                    })
                };
                assert_eq!(found, expected[k], "{file} {soc} / {term}, arm {k}");
            }
            // The same row in both documents: label, each arm, the total (the arms' sum).
            let label = match term.as_str() {
                "(any)" => any.to_string(),
                "(SOC total)" => soc.clone(),
                t => t.to_string(),
            };
            let sum = expected.iter().fold((0, 0), |a, x| (a.0 + x.0, a.1 + x.1));
            let mut cells = vec![label.to_uppercase()];
            // In the cohort's order of arms.
            cells.extend(order.iter().map(|&k| shown(expected[k], totals[k])));
            cells.push(shown(sum, totals.iter().sum()));
            for (what, found) in [("report.html", &html_rows), ("report.docx", &docx_rows)] {
                let hit = found.iter().any(|r| {
                    r.len() == cells.len()
                        && r[0].to_uppercase() == cells[0]
                        && r[1..] == cells[1..]
                });
                assert!(hit, "{what}: no row {cells:?} ({file})");
            }
        }
    }
}

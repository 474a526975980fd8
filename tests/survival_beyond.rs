//! Survival beyond the median against R (`tests/reference/survival-beyond/`, made by its
//! `make.R`: R 4.2.2, survival 3.5-3, cmprsk 2.2-11): restricted mean survival times with
//! their SE and interval per group, the two arms' difference and ratio (survRM2's formulas),
//! and risk tables (at risk, cumulative events and censored), on real data of the survival
//! package and synthetic sets with ties, plateaus and an arm without events.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use readout::stats::{kaplan_meier, rmst_contrast, KaplanMeier, Rmst};
use serde_json::Value;

/// R and readout agree to about 1e-13 here; 1e-9 leaves room for summation order only.
const REL_TOL: f64 = 1e-9;

pub(crate) fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/survival-beyond")
}

/// A data set's rows by group: (time, status), status 0 censored, 1 event, 2 competing.
pub(crate) fn read_set(name: &str) -> BTreeMap<String, Vec<(f64, u8)>> {
    let own = reference().join("datasets").join(format!("{name}.csv"));
    let path = if own.exists() {
        own
    } else {
        reference()
            .join("../survival/datasets")
            .join(format!("{name}.csv"))
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &[&str]| header.iter().position(|h| n.contains(h)).unwrap();
    let (g, t, s) = (col(&["group"]), col(&["time"]), col(&["status", "event"]));
    let mut groups: BTreeMap<String, Vec<(f64, u8)>> = BTreeMap::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let cells: Vec<&str> = line.split(',').collect();
        groups
            .entry(cells[g].to_string())
            .or_default()
            .push((cells[t].parse().unwrap(), cells[s].parse().unwrap()));
    }
    groups
}

pub(crate) fn close(what: &str, expected: &Value, actual: f64, errors: &mut Vec<String>) {
    let e = expected.as_f64().unwrap_or(f64::NAN);
    let ok = if e == 0.0 {
        actual.abs() < 1e-12
    } else {
        ((actual - e) / e).abs() <= REL_TOL
    };
    if !ok {
        errors.push(format!("{what}: R {expected}, readout {actual}"));
    }
}

fn fit(rows: &[(f64, u8)]) -> KaplanMeier {
    let time: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let event: Vec<bool> = rows.iter().map(|r| r.1 == 1).collect();
    kaplan_meier(&time, &event).unwrap()
}

const SURVIVAL_SETS: [&str; 8] = [
    "lung",
    "veteran",
    "ovarian",
    "aml",
    "colon_os",
    "synthetic_ties",
    "synthetic_plateau",
    "synthetic_no_events",
];

#[test]
fn rmst_and_risk_tables_equal_r() {
    let mut errors = Vec::new();
    let mut compared = 0;
    for name in SURVIVAL_SETS {
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(reference().join(format!("expected/{name}.json"))).unwrap(),
        )
        .unwrap();
        let mut groups = read_set(name);
        groups.insert("all".into(), groups.values().flatten().copied().collect());
        let ticks: Vec<f64> = expected["ticks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        let mut by_group: BTreeMap<(String, &str), Rmst> = BTreeMap::new();
        for (group, rows) in &groups {
            let km = fit(rows);
            let want = &expected["groups"][group.as_str()];
            assert!(want.is_object(), "{name}: group {group} not in R's values");
            for horizon in ["default", "short"] {
                let tau = expected[format!("tau_{horizon}")].as_f64().unwrap();
                let r = km.rmst(tau).unwrap();
                let (lower, upper) = r.interval(0.95).unwrap();
                let w = &want["rmst"][horizon];
                let at = format!("{name} {group} rmst({tau})");
                close(
                    &format!("{at} estimate"),
                    &w["estimate"],
                    r.estimate,
                    &mut errors,
                );
                close(&format!("{at} se"), &w["se"], r.se, &mut errors);
                close(&format!("{at} lower"), &w["lower"], lower, &mut errors);
                close(&format!("{at} upper"), &w["upper"], upper, &mut errors);
                compared += 4;
                by_group.insert((group.clone(), horizon), r);
            }
            let rows = km.risk_table(&ticks);
            let want_rows = want["risk_table"].as_array().unwrap();
            assert_eq!(rows.len(), want_rows.len());
            for (row, w) in rows.iter().zip(want_rows) {
                let got = [row.at_risk, row.events, row.censored];
                let r = ["at_risk", "events", "censored"].map(|k| w[k].as_u64().unwrap() as usize);
                if got != r {
                    errors.push(format!(
                        "{name} {group} risk table at {}: R {r:?}, readout {got:?}",
                        row.time
                    ));
                }
                compared += 3;
            }
        }
        let (arm, reference) = (
            expected["arm"].as_str().unwrap(),
            expected["reference"].as_str().unwrap(),
        );
        for horizon in ["default", "short"] {
            let c = rmst_contrast(
                &by_group[&(arm.to_string(), horizon)],
                &by_group[&(reference.to_string(), horizon)],
                0.95,
            )
            .unwrap();
            let w = &expected["comparison"][horizon];
            let at = format!("{name} {arm} vs {reference} ({horizon})");
            for (part, got) in [("difference", Some(c.difference)), ("ratio", c.ratio)] {
                let got = got.unwrap();
                for (k, v) in [
                    ("estimate", got.estimate),
                    ("lower", got.lower),
                    ("upper", got.upper),
                ] {
                    close(&format!("{at} {part} {k}"), &w[part][k], v, &mut errors);
                }
                close(
                    &format!("{at} {part} p"),
                    &w[part]["p"],
                    got.p.unwrap(),
                    &mut errors,
                );
                compared += 4;
            }
        }
    }
    assert!(
        errors.is_empty(),
        "{} of {compared}:\n{}",
        errors.len(),
        errors.join("\n")
    );
    assert!(compared > 500, "only {compared} values compared");
}

/// The randomised example's config with `extra` keys under `analysis:`, its data by absolute
/// path, in a folder of its own.
fn randomised_with(extra: &str) -> (tempfile::TempDir, PathBuf) {
    let root = crate::common::root();
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root.join("config/rand-example.yaml"))
        .unwrap()
        .replace(
            "dir: ../data/rand-example",
            &format!("dir: {}", root.join("data/rand-example").display()),
        )
        .replace("analysis:\n", &format!("analysis:\n{extra}"));
    // Endpoints given in `extra` replace the config's own.
    let text = if extra.contains("tte_params:") {
        text.replace("  tte_params: { PFS: PFS, OS: OS }\n", "")
    } else {
        text
    };
    let config = dir.path().join("study.yaml");
    std::fs::write(&config, text).unwrap();
    (dir, config)
}

/// A horizon past an arm's last time (a SAP's τ at an interim) makes that RMST not estimable
/// with a warning naming τ, the arm and its follow-up as documents round them, and everything
/// else is built; `rmst_tau_beyond: error` refuses it at its key instead. A per-endpoint
/// horizon leaves the other endpoints at their default.
#[test]
fn rmst_horizon_beyond_follow_up_is_not_estimable_or_refused() {
    let (dir, config) = randomised_with("  rmst_tau: 25\n");
    let out = dir.path().join("out");
    let ran = crate::common::readout_command()
        .args(["build", "--out"])
        .arg(&out)
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "endpoint `PFS`: the restricted mean up to τ = 25.0 months is not estimable: \
             `Placebo + chemo` is followed up to 22.2 months (`analysis.rmst_tau`)"
        ),
        "{stderr}"
    );
    let results = crate::common::read_json(&out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let itt = &results["cohorts"][0];
    assert!(itt["tte"]["PFS"]["rmst"].is_null());
    assert!(itt["comparisons"][0]["tte"]["PFS"]["rmst"].is_null());
    assert!(itt["tte"]["PFS"]["median"]["estimate"].is_number());

    let (dir, config) = randomised_with("  rmst_tau: 25\n  rmst_tau_beyond: error\n");
    let out = dir.path().join("out");
    let ran = crate::common::readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(&out)
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(!ran.status.success(), "{stderr}");
    assert!(
        stderr.contains("key `analysis.rmst_tau`")
            && stderr.contains(
                "25 months is beyond the follow-up of `Placebo + chemo` for endpoint `PFS`"
            )
            && stderr.contains("expected at most 22.2,"),
        "{stderr}"
    );

    let (dir, config) = randomised_with("  rmst_tau: { PFS: 12 }\n  km_table: kmunicate\n");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config);
    let study = out.join("RAND-EXAMPLE/2023-09-29");
    let results = crate::common::read_json(&study.join("results.json"));
    let itt = &results["cohorts"][0];
    assert_eq!(itt["tte"]["PFS"]["rmst"]["tau"], 12.0);
    let os_tau = itt["tte"]["OS"]["rmst"]["tau"].as_f64().unwrap();
    let last = |k: usize| {
        itt["arms"][k]["tte"]["OS"]["risk_table"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["time"].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    assert!(os_tau > 20.0 && os_tau < last(0).min(last(1)), "{os_tau}");
    assert_eq!(
        itt["comparisons"][0]["tte"]["PFS"]["rmst"]["tau"], 12.0,
        "the comparison's horizon"
    );

    // The KMunicate table under the plot prints results.json's numbers, each arm's rows at
    // risk, censored and events at every time.
    let svg = std::fs::read_to_string(study.join("itt/figures/km-pfs.svg")).unwrap();
    assert!(
        svg.contains(">\nNumber of patients\n<") && svg.contains(">\nCensored\n<"),
        "no KMunicate table"
    );
    for arm in itt["arms"].as_array().unwrap() {
        let rows = arm["tte"]["PFS"]["risk_table"].as_array().unwrap();
        for key in ["at_risk", "censored", "events"] {
            let printed: Vec<String> = rows.iter().map(|r| r[key].to_string()).collect();
            // Each row's numbers are drawn one after another at the table's y.
            let joined: Vec<String> = printed.iter().map(|n| format!(">\n{n}\n<")).collect();
            let mut at = 0;
            for n in &joined {
                at = svg[at..]
                    .find(n.as_str())
                    .map(|i| at + i + n.len())
                    .unwrap_or_else(|| panic!("{}: {key} {n} not drawn in order", arm["arm"]));
            }
        }
    }
}

/// Table times and horizons that are not times are config errors at their keys.
#[test]
fn bad_table_times_and_horizons_are_config_errors() {
    for (extra, key, says) in [
        (
            "  km_table_times: [0, 12, 6]\n",
            "analysis.km_table_times",
            "not in increasing order",
        ),
        (
            "  km_table_times: [0, -6]\n",
            "analysis.km_table_times",
            "-6 is not a time",
        ),
        (
            "  rmst_tau: 0\n",
            "analysis.rmst_tau",
            "expected a time above 0",
        ),
        (
            "  rmst_tau: { OS: -1 }\n",
            "analysis.rmst_tau.OS",
            "expected a time above 0",
        ),
        ("  km_table: kmunicat\n", "analysis.km_table", "kmunicate"),
        (
            "  tte_params: { TTP: { paramcd: PFS, competing: { column: EVNTDESC, values: [] } } }\n",
            "analysis.tte_params.TTP",
            "at least one value that marks a competing event",
        ),
    ] {
        let (dir, config) = randomised_with(extra);
        let ran = crate::common::readout_command()
            .args(["check"])
            .arg(&config)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert!(!ran.status.success(), "{extra}: {stderr}");
        assert!(
            stderr.contains(&format!("key `{key}`")) && stderr.contains(says),
            "{extra}: {stderr}"
        );
    }
}

const COMPETING_SETS: [&str; 6] = [
    "mgus2",
    "pbc_cr",
    "colon_cr",
    "transplant_cr",
    "synthetic_cr_ties",
    "synthetic_cr_competing_only",
];

/// Aalen–Johansen incidences with their infinitesimal-jackknife SE and log interval at the
/// landmarks and at every step, Gray's test and the Fine–Gray model equal R's.
#[test]
fn competing_risks_equal_r() {
    use readout::stats::{aalen_johansen, fine_gray, gray_test};
    let mut errors = Vec::new();
    let mut compared = 0;
    for name in COMPETING_SETS {
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(reference().join(format!("expected/{name}.json"))).unwrap(),
        )
        .unwrap();
        let mut groups = read_set(name);
        let (arm, reference) = (
            expected["arm"].as_str().unwrap(),
            expected["reference"].as_str().unwrap(),
        );
        let two: Vec<(f64, u8, bool)> = [reference, arm]
            .iter()
            .flat_map(|g| groups[*g].iter().map(move |r| (r.0, r.1, *g == arm)))
            .collect();
        groups.insert("all".into(), groups.values().flatten().copied().collect());
        for (group, rows) in &groups {
            let time: Vec<f64> = rows.iter().map(|r| r.0).collect();
            let status: Vec<u8> = rows.iter().map(|r| r.1).collect();
            let fit = aalen_johansen(&time, &status).unwrap();
            let want = &expected["groups"][group.as_str()];
            for w in want["landmarks"].as_array().unwrap() {
                let t = w["time"].as_f64().unwrap();
                let got = fit.at(t, 0.95).unwrap();
                let at = format!("{name} {group} CIF({t})");
                close(
                    &format!("{at} estimate"),
                    &w["estimate"],
                    got.estimate,
                    &mut errors,
                );
                close(
                    &format!("{at} std_err"),
                    &w["std_err"],
                    got.std_err,
                    &mut errors,
                );
                for (key, v) in [("lower", got.lower), ("upper", got.upper)] {
                    match v {
                        Some(v) => close(&format!("{at} {key}"), &w[key], v, &mut errors),
                        None if w[key].is_null() => {}
                        None => errors.push(format!("{at} {key}: R {}, readout none", w[key])),
                    }
                }
                if w["n_risk"].as_u64() != Some(got.n_risk as u64) {
                    errors.push(format!(
                        "{at} n_risk: R {}, readout {}",
                        w["n_risk"], got.n_risk
                    ));
                }
                compared += 5;
            }
            let steps = &want["steps"];
            let times = steps["time"].as_array().unwrap();
            assert_eq!(times.len(), fit.steps().len(), "{name} {group} steps");
            for (k, s) in fit.steps().iter().enumerate() {
                let at = format!("{name} {group} step {}", s.time);
                close(
                    &format!("{at} estimate"),
                    &steps["estimate"][k],
                    s.estimate,
                    &mut errors,
                );
                close(
                    &format!("{at} std_err"),
                    &steps["std_err"][k],
                    fit.std_err_at(k),
                    &mut errors,
                );
                compared += 2;
            }
        }
        let time: Vec<f64> = two.iter().map(|r| r.0).collect();
        let status: Vec<u8> = two.iter().map(|r| r.1).collect();
        let arms: Vec<bool> = two.iter().map(|r| r.2).collect();
        let gray = gray_test(&time, &status, &arms).unwrap().unwrap();
        close(
            &format!("{name} Gray chisq"),
            &expected["gray"]["chisq"],
            gray.chisq,
            &mut errors,
        );
        // p-values to 1e-6 (SPEC §5): R's chi-square tail and readout's differ by 1e-8 at p ~1e-9.
        let p = expected["gray"]["p"].as_f64().unwrap();
        if ((gray.p - p) / p).abs() > 1e-6 {
            errors.push(format!("{name} Gray p: R {p}, readout {}", gray.p));
        }
        compared += 2;
        let fg = fine_gray(&time, &status, &arms, 0.95).unwrap();
        match (fg, name) {
            (None, "synthetic_cr_competing_only") => {}
            (Some(fg), _) => {
                let w = &expected["fine_gray"];
                for (key, v) in [("coef", fg.coef), ("se", fg.se)] {
                    close(&format!("{name} Fine–Gray {key}"), &w[key], v, &mut errors);
                }
                for (key, v) in [
                    ("estimate", fg.hr.estimate),
                    ("lower", fg.hr.lower),
                    ("upper", fg.hr.upper),
                ] {
                    close(
                        &format!("{name} Fine–Gray HR {key}"),
                        &w["hr"][key],
                        v,
                        &mut errors,
                    );
                }
                let p = w["p"].as_f64().unwrap();
                if ((fg.p - p) / p).abs() > 1e-6 {
                    errors.push(format!("{name} Fine–Gray p: R {p}, readout {}", fg.p));
                }
                compared += 6;
            }
            (None, _) => errors.push(format!("{name}: no Fine–Gray model")),
        }
    }
    assert!(
        errors.is_empty(),
        "{} of {compared}:\n{}",
        errors.len(),
        errors
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(compared > 2000, "only {compared} values compared");
}

/// An endpoint with competing events end to end: time to progression from the randomised
/// example's PFS records, deaths (EVNTDESC DEATH) competing. Each arm's cumulative incidence
/// at the landmarks, Gray's test and the Fine–Gray model equal R's
/// (tests/reference/rand-example/make_rand_example.R); PFS itself, the same PARAMCD, still
/// counts deaths as events.
#[test]
fn a_competing_endpoint_equals_r_end_to_end() {
    let (dir, config) = randomised_with("");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "tte_params: { PFS: PFS, OS: OS }",
        "tte_params: { PFS: PFS, OS: OS, TTP: { paramcd: PFS, label: \"time to progression\", \
         competing: { column: EVNTDESC, values: [death] } } }",
    );
    assert!(text.contains("competing"), "the config's tte_params moved");
    std::fs::write(&config, text).unwrap();
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config);
    let results = crate::common::read_json(&out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let itt = &results["cohorts"][0];
    let r = crate::common::read_json(
        &crate::common::root().join("tests/reference/rand-example/expected.json"),
    );
    competing_values_equal_r(itt, &r);
    assert!(
        itt["tte"]["PFS"]["cif"].is_null() && itt["comparisons"][0]["tte"]["PFS"]["gray"].is_null()
    );
    assert!(itt["comparisons"][0]["tte"]["PFS"]["subgroups"][0]
        .get("fine_gray")
        .is_none());
    competing_outputs_say_so(&out, itt);
}

/// TTP's incidences, Gray's test and the Fine–Gray models, overall and by subgroup level,
/// against R's (`tests/reference/rand-example/expected.json`).
fn competing_values_equal_r(itt: &Value, r: &Value) {
    let mut errors = Vec::new();
    for (k, code) in [(0, "1"), (1, "0")] {
        let ttp = &itt["arms"][k]["tte"]["TTP"];
        let want = &r["TTP"]["cif"][code];
        assert_eq!(ttp["events"], want["events"], "events of interest");
        assert_eq!(ttp["cif"]["competing"], want["competing"]);
        for (i, l) in ttp["cif"]["landmarks"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            for key in ["estimate", "std_err", "lower", "upper"] {
                let got = l[key].as_f64().unwrap();
                close(
                    &format!("arm {code} CIF {i} {key}"),
                    &want[key][i],
                    got,
                    &mut errors,
                );
            }
        }
        // PFS keeps deaths as events: its events are TTP's events and competing events.
        let pfs = &itt["arms"][k]["tte"]["PFS"]["events"];
        assert_eq!(
            pfs.as_u64(),
            Some(want["events"].as_u64().unwrap() + want["competing"].as_u64().unwrap())
        );
    }
    let c = &itt["comparisons"][0]["tte"]["TTP"];
    close(
        "Gray chisq",
        &r["TTP"]["gray"]["chisq"],
        c["gray"]["chisq"].as_f64().unwrap(),
        &mut errors,
    );
    close(
        "Fine–Gray coef",
        &r["TTP"]["fine_gray"]["coef"],
        c["fine_gray"]["coef"].as_f64().unwrap(),
        &mut errors,
    );
    close(
        "Fine–Gray se",
        &r["TTP"]["fine_gray"]["se"],
        c["fine_gray"]["se"].as_f64().unwrap(),
        &mut errors,
    );
    // Within each subgroup level, the Fine–Gray model of that level's subjects.
    let levels = r["TTP"]["subgroups"].as_array().unwrap();
    assert_eq!(c["subgroups"].as_array().unwrap().len(), levels.len());
    for want in levels {
        let got = c["subgroups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["column"] == want["column"] && s["level"] == want["level"])
            .unwrap_or_else(|| panic!("no subgroup {want}"));
        for key in ["coef", "se"] {
            close(
                &format!("Fine–Gray {} = {} {key}", want["column"], want["level"]),
                &want[key],
                got["fine_gray"][key].as_f64().unwrap(),
                &mut errors,
            );
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// TTP's figures, abstract, slides, poster and report: the incidence with Fine–Gray's SHR
/// and Gray's p, never 1 − KM.
fn competing_outputs_say_so(out: &std::path::Path, itt: &Value) {
    let c = &itt["comparisons"][0]["tte"]["TTP"];
    // No RMST of 1 − KM for it; its figure is the incidence by arm, described with its
    // numbers; the report gives the incidences, Fine–Gray HR and Gray's p, and Methods say so.
    assert!(itt["tte"]["TTP"]["rmst"].is_null() && c["rmst"].is_null());
    let cohort = out.join("RAND-EXAMPLE/2023-09-29/itt");
    assert!(!cohort.join("figures/km-ttp.svg").exists());
    let svg = std::fs::read_to_string(cohort.join("figures/cif-ttp.svg")).unwrap();
    let hr = &c["fine_gray"]["hr"];
    let printed = ratio_text(hr);
    assert!(
        svg.contains(&format!(
            "Fine–Gray HR {}",
            printed.replacen(" (", " (95% CI ", 1)
        )),
        "{printed} not in the figure's description"
    );
    assert!(svg.contains("Cumulative incidence"));
    // The forest of the endpoint draws each level's subdistribution HR, and says so.
    let forest = std::fs::read_to_string(cohort.join("figures/forest-ttp.svg")).unwrap();
    assert!(forest.contains(">\nSHR (95% CI)\n<"), "no SHR heading");
    assert!(forest.contains("Subdistribution hazard ratio (95% CI)"));
    for s in c["subgroups"].as_array().unwrap() {
        let drawn = format!(">\n{}\n<", ratio_text(&s["fine_gray"]["hr"]));
        assert!(
            forest.contains(&drawn),
            "{drawn} not drawn for {}",
            s["level"]
        );
    }
    // The abstract: each arm's 12-month incidence, the competing events, the SHR and Gray's
    // p; no median of 1 − KM.
    let abstract_md = std::fs::read_to_string(cohort.join("abstract.md")).unwrap();
    let pct = |x: &Value| format!("{:.1}%", x.as_f64().unwrap() * 100.0);
    let arm = |k: usize| &itt["arms"][k]["tte"]["TTP"];
    let incidence = format!(
        "The 12-month cumulative incidence of progression was {} (95% CI: {}, {}) with Drug X + chemo vs {} (95% CI: {}, {}) with Placebo + chemo, with {} vs {} events and {} vs {} competing events (subdistribution HR {:.2}, 95% CI: {:.2}, {:.2}; Gray's test p",
        pct(&arm(0)["cif"]["landmarks"][1]["estimate"]),
        pct(&arm(0)["cif"]["landmarks"][1]["lower"]),
        pct(&arm(0)["cif"]["landmarks"][1]["upper"]),
        pct(&arm(1)["cif"]["landmarks"][1]["estimate"]),
        pct(&arm(1)["cif"]["landmarks"][1]["lower"]),
        pct(&arm(1)["cif"]["landmarks"][1]["upper"]),
        arm(0)["events"],
        arm(1)["events"],
        arm(0)["cif"]["competing"],
        arm(1)["cif"]["competing"],
        hr["estimate"].as_f64().unwrap(),
        hr["lower"].as_f64().unwrap(),
        hr["upper"].as_f64().unwrap(),
    );
    assert!(
        abstract_md.contains(&incidence),
        "{incidence}\n{abstract_md}"
    );
    assert!(!abstract_md.contains("Median time to progression"));
    // The slides and the poster show the incidence figure, the slide its numbers.
    for deck in ["slides.pptx", "poster.pptx"] {
        let parts = crate::slides::parts(&std::fs::read(cohort.join(deck)).unwrap());
        assert!(
            parts.contains_key("ppt/media/readout-cif-ttp.png"),
            "{deck}: no incidence figure"
        );
        assert!(!parts.contains_key("ppt/media/readout-km-ttp.png"));
    }
    let slides = crate::slides::parts(&std::fs::read(cohort.join("slides.pptx")).unwrap());
    let shr = format!(
        "SHR {:.2} (95% CI: {:.2}, {:.2})",
        hr["estimate"].as_f64().unwrap(),
        hr["lower"].as_f64().unwrap(),
        hr["upper"].as_f64().unwrap()
    );
    assert!(
        slides
            .iter()
            .any(|(name, xml)| name.starts_with("ppt/slides/slide")
                && String::from_utf8_lossy(xml).contains(&shr)),
        "no slide says {shr}"
    );
    let report = std::fs::read_to_string(cohort.join("report.html")).unwrap();
    for text in [
        "Competing events, n (%)",
        "Cumulative incidence at 12 months (95% CI)",
        &format!("<td class=\"num\">{printed}</td>"),
        "Gray&#x27;s test p",
        "cumulative incidence was estimated by the Aalen–Johansen method",
        "Time to progression: SHR (Fine–Gray)",
        "SHR: subdistribution hazard ratio (Fine–Gray model",
    ] {
        assert!(report.contains(text), "report lacks {text}");
    }
}

/// Cut at a data cut-off, an endpoint with competing events follows the cut-off rule: a
/// death after the cut-off is no competing event (its record is censored), and the counts
/// are those of the records dated on or before it, among the cohort's subjects then.
#[test]
fn a_competing_endpoint_cut_at_a_cutoff_counts_what_was_known_then() {
    let (dir, config) = randomised_with("");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "tte_params: { PFS: PFS, OS: OS }",
        "tte_params: { PFS: PFS, OS: OS, TTP: { paramcd: PFS, competing: { column: EVNTDESC, values: [DEATH] } } }",
    );
    std::fs::write(&config, text).unwrap();
    let out = dir.path().join("out");
    let cutoff = "2022-09-30";
    let ran = crate::common::readout_command()
        .args(["build", "--quiet", "--cutoff", cutoff, "--out"])
        .arg(&out)
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let folder = out.join("RAND-EXAMPLE").join(cutoff);
    let results = crate::common::read_json(&folder.join("results.json"));
    let ttp = &results["cohorts"][0]["tte"]["TTP"];
    let members: std::collections::BTreeSet<String> =
        crate::common::csv_rows(&folder.join("derived/itt.csv"))
            .into_iter()
            .map(|r| r["USUBJID"].clone())
            .collect();
    let adtte = crate::common::csv_rows(&crate::common::root().join("data/rand-example/adtte.csv"));
    let (mut events, mut competing) = (0, 0);
    for r in adtte
        .iter()
        .filter(|r| r["PARAMCD"] == "PFS" && members.contains(&r["USUBJID"]))
    {
        if r["CNSR"] == "0" && r["ADT"].as_str() <= cutoff {
            if r["EVNTDESC"] == "DEATH" {
                competing += 1;
            } else {
                events += 1;
            }
        }
    }
    assert!(
        competing > 0 && competing < 37,
        "{competing} deaths before the cut-off"
    );
    assert_eq!(ttp["events"], events);
    assert_eq!(ttp["cif"]["competing"], competing);
    assert_eq!(
        results["cohorts"][0]["tte"]["PFS"]["events"],
        events + competing
    );
}

/// Time to response among responders: from treatment start (day 1) to the first CR or PR,
/// median and range, recomputed from ADSL and ADRS for the responders the derived CSV names.
#[test]
fn time_to_response_is_the_responders_first_response() {
    let (dir, config) = randomised_with("");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config);
    let folder = out.join("RAND-EXAMPLE/2023-09-29");
    let results = crate::common::read_json(&folder.join("results.json"));
    let data = crate::common::root().join("data/rand-example");
    let adsl = crate::common::csv_rows(&data.join("adsl.csv"));
    let start: BTreeMap<String, String> = adsl
        .iter()
        .map(|r| (r["USUBJID"].clone(), r["TRTSDT"].clone()))
        .collect();
    let arm_of: BTreeMap<String, String> = adsl
        .iter()
        .map(|r| (r["USUBJID"].clone(), r["ARM"].clone()))
        .collect();
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    for r in crate::common::csv_rows(&data.join("adrs.csv")) {
        if r["PARAMCD"] == "OVR" && (r["AVALC"] == "CR" || r["AVALC"] == "PR") {
            let d = first
                .entry(r["USUBJID"].clone())
                .or_insert(r["ADT"].clone());
            if r["ADT"] < *d {
                *d = r["ADT"].clone();
            }
        }
    }
    let day = civil_day;
    let derived = crate::common::csv_rows(&folder.join("derived/itt.csv"));
    let check = |arm: Option<&str>, got: &Value| {
        let mut times: Vec<f64> = derived
            .iter()
            .filter(|r| {
                (r["BOR"] == "CR" || r["BOR"] == "PR")
                    && arm.is_none_or(|a| arm_of[&r["USUBJID"]] == a)
            })
            .map(|r| {
                let u = &r["USUBJID"];
                (day(&first[u]) - day(&start[u]) + 1) as f64 / 30.4375
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let n = times.len();
        let median = if n % 2 == 1 {
            times[n / 2]
        } else {
            (times[n / 2 - 1] + times[n / 2]) / 2.0
        };
        assert_eq!(got["n"].as_u64(), Some(n as u64), "{arm:?}");
        for (key, want) in [("median", median), ("min", times[0]), ("max", times[n - 1])] {
            let g = got[key].as_f64().unwrap();
            assert!((g - want).abs() < 1e-12, "{arm:?} {key}: {g} vs {want}");
        }
    };
    let itt = &results["cohorts"][0];
    check(None, &itt["response"]["time_to_response"]);
    for a in itt["arms"].as_array().unwrap() {
        check(a["arm"].as_str(), &a["response"]["time_to_response"]);
    }
    let report = std::fs::read_to_string(folder.join("itt/report.html")).unwrap();
    assert!(report.contains("Time to response in responders, median (range), months"));
}

/// Without arms, an endpoint with competing events is reported by its cumulative incidence
/// (its own table), not by a Kaplan–Meier median of 1 − KM.
#[test]
fn a_single_arm_competing_endpoint_is_reported_by_its_incidence() {
    let (dir, config) = randomised_with("");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace(
            "tte_params: { PFS: PFS, OS: OS }",
            "tte_params: { PFS: PFS, OS: OS, TTP: { paramcd: PFS, competing: { column: EVNTDESC, values: [DEATH] } } }",
        )
        .replace(
            "    arms:\n      column: ARM\n      reference: \"Placebo + chemo\"\n      order: [\"Drug X + chemo\", \"Placebo + chemo\"]\n    strata: [ECOG, REGION]\n    subgroups: [SEX, AGEGR1]\n",
            "",
        );
    assert!(!text.contains("    arms:"), "the arms block moved");
    std::fs::write(&config, text).unwrap();
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config);
    let folder = out.join("RAND-EXAMPLE/2023-09-29");
    let results = crate::common::read_json(&folder.join("results.json"));
    let ttp = &results["cohorts"][0]["tte"]["TTP"];
    let twelve = &ttp["cif"]["landmarks"][1];
    assert_eq!(twelve["time"], 12.0);
    let report = std::fs::read_to_string(folder.join("itt/report.html")).unwrap();
    let pct = |x: &Value| format!("{:.1}%", x.as_f64().unwrap() * 100.0);
    assert!(report.contains("Cumulative incidence with competing events (Aalen–Johansen)"));
    assert!(
        report.contains(&format!(
            "<td class=\"num\">{}</td>",
            pct(&twelve["estimate"])
        )),
        "the 12-month incidence is not in the report"
    );
    // No median row for it in the Kaplan–Meier table.
    assert!(!report.contains("<tr><td>TTP</td><td class=\"num\">300</td>"));
    // The abstract gives its incidence at one year (`cif_landmark`'s default, still
    // followed), no median.
    let landmarks = ttp["cif"]["landmarks"].as_array().unwrap();
    let at = landmarks
        .iter()
        .position(|l| l["time"].as_f64() == Some(12.0) && l["n_risk"].as_u64() > Some(0))
        .unwrap();
    let l = &landmarks[at];
    let sentence = format!(
        "For TTP, {} events and {} competing events occurred; the {}-month cumulative incidence was {} (95% CI: {}, {}).",
        ttp["events"],
        ttp["cif"]["competing"],
        l["time"].as_f64().unwrap(),
        pct(&l["estimate"]),
        pct(&l["lower"]),
        pct(&l["upper"])
    );
    let abstract_md = std::fs::read_to_string(folder.join("itt/abstract.md")).unwrap();
    assert!(abstract_md.contains(&sentence), "{sentence}\n{abstract_md}");
    assert!(folder.join("itt/figures/cif-ttp.svg").exists());
}

/// A ratio with its interval as figures and tables print it: `0.60 (0.46–0.79)`.
fn ratio_text(hr: &Value) -> String {
    let x = |key: &str| hr[key].as_f64().unwrap();
    format!("{:.2} ({:.2}–{:.2})", x("estimate"), x("lower"), x("upper"))
}

/// Days of an ISO date from a fixed origin (civil calendar), for differences.
fn civil_day(s: &str) -> i64 {
    let p: Vec<i64> = s.split('-').map(|x| x.parse().unwrap()).collect();
    let (y, m, d) = if p[1] <= 2 {
        (p[0] - 1, p[1] + 9, p[2])
    } else {
        (p[0], p[1] - 3, p[2])
    };
    365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d
}

/// The ISO date `days` (positive or negative) after `s`, found among the dates of the years
/// around it by [`civil_day`].
fn plus_days(s: &str, days: i64) -> String {
    let target = civil_day(s) + days;
    let year: i64 = s[..4].parse().unwrap();
    (year - 2..=year + 2)
        .flat_map(|y| (1..=12).flat_map(move |m| (1..=31).map(move |d| (y, m, d))))
        .map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
        .find(|text| civil_day(text) == target && chrono_free_valid(text))
        .unwrap_or_else(|| panic!("{s} + {days}"))
}

/// Whether `YYYY-MM-DD` names a day of its month.
fn chrono_free_valid(text: &str) -> bool {
    let p: Vec<i64> = text.split('-').map(|x| x.parse().unwrap()).collect();
    let leap = p[0] % 4 == 0 && (p[0] % 100 != 0 || p[0] % 400 == 0);
    let month_days = [
        31,
        28 + i64::from(leap),
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    p[2] <= month_days[(p[1] - 1) as usize]
}

/// The single-arm example's config and data in a folder of their own, ADSL with a `NACTDT`
/// column (`nactdt`: USUBJID → date), `extra` keys under `analysis:`.
fn altn_with_new_therapy(
    nactdt: &BTreeMap<String, String>,
    extra: &str,
) -> (tempfile::TempDir, PathBuf) {
    let root = crate::common::root();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    for f in ["adrs.csv", "adae.csv", "adtr.csv"] {
        std::fs::copy(root.join("data/altn-ak105-ii-01").join(f), data.join(f)).unwrap();
    }
    let mut reader = csv::Reader::from_path(root.join("data/altn-ak105-ii-01/adsl.csv")).unwrap();
    let mut writer = csv::Writer::from_path(data.join("adsl.csv")).unwrap();
    let mut header = reader.headers().unwrap().clone();
    header.push_field("NACTDT");
    writer.write_record(&header).unwrap();
    for row in reader.records() {
        let mut row = row.unwrap();
        let date = nactdt.get(&row[1]).map_or("", String::as_str);
        row.push_field(date);
        writer.write_record(&row).unwrap();
    }
    writer.flush().unwrap();
    let text = std::fs::read_to_string(root.join("config/altn-ak105-ii-01.yaml"))
        .unwrap()
        .replace(
            "dir: ../data/altn-ak105-ii-01",
            &format!("dir: {}", data.display()),
        )
        .replacen("\nanalysis:\n", &format!("\nanalysis:\n{extra}"), 1);
    let config = dir.path().join("study.yaml");
    std::fs::write(&config, text).unwrap();
    (dir, config)
}

/// `analysis.censor_at_new_therapy`: PFS derived from ADRS is censored at the last adequate
/// assessment on or before the start of new therapy, whatever came after; subjects without
/// new therapy keep their times; the derived CSV names the rule, results.json counts it and
/// the Methods say it. Bad columns and dates are errors at their key or cell.
#[test]
fn pfs_is_censored_at_new_anticancer_therapy() {
    let root = crate::common::root();
    let adsl = crate::common::csv_rows(&root.join("data/altn-ak105-ii-01/adsl.csv"));
    let mut record: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for r in crate::common::csv_rows(&root.join("data/altn-ak105-ii-01/adrs.csv")) {
        if r["PARAMCD"] == "OVR" {
            record
                .entry(r["USUBJID"].clone())
                .or_default()
                .push((r["ADT"].clone(), r["AVALC"].clone()));
        }
    }
    // Every second cohort-1 subject whose first assessment is adequate and who is alive 10
    // days later starts new therapy then.
    let mut nactdt = BTreeMap::new();
    let mut expected = BTreeMap::new();
    let mut candidates = 0;
    for s in adsl.iter().filter(|s| s["COHORT"] == "1") {
        let id = &s["USUBJID"];
        let mut own: Vec<&(String, String)> = record
            .get(id)
            .into_iter()
            .flatten()
            .filter(|(d, _)| *d >= s["TRTSDT"])
            .collect();
        own.sort();
        let Some((first, response)) = own.first() else {
            continue;
        };
        let started = plus_days(first, 10);
        let adequate = ["CR", "PR", "SD", "NON-CR/NON-PD"].contains(&response.as_str());
        if !adequate || own.len() < 2 || (!s["DTHDT"].is_empty() && s["DTHDT"] <= started) {
            continue;
        }
        candidates += 1;
        if candidates % 2 == 1 {
            let days = civil_day(first) - civil_day(&s["TRTSDT"]) + 1;
            expected.insert(id.clone(), (days as f64 / 30.4375, s["EFFFL"] == "Y"));
            nactdt.insert(id.clone(), started);
        }
    }
    assert!(expected.len() >= 5, "{} subjects", expected.len());

    let (dir, config) =
        altn_with_new_therapy(&nactdt, "  censor_at_new_therapy: { column: NACTDT }\n");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config).success();
    let (_plain_dir, plain_config) = altn_with_new_therapy(&nactdt, "");
    let plain_out = dir.path().join("plain");
    crate::common::build_quietly(&plain_out, &plain_config).success();
    let folder = out.join("ALTN-AK105-II-01/2022-01-06");
    let rows = crate::common::csv_rows(&folder.join("derived/cohort-1.csv"));
    let plain = crate::common::csv_rows(
        &plain_out.join("ALTN-AK105-II-01/2022-01-06/derived/cohort-1.csv"),
    );
    assert_eq!(rows.len(), plain.len());
    let mut were_events = 0;
    for (row, before) in rows.iter().zip(&plain) {
        assert_eq!(row["USUBJID"], before["USUBJID"]);
        for key in ["OS_AVAL", "OS_CNSR", "BOR"] {
            assert_eq!(row[key], before[key], "{} {key}", row["USUBJID"]);
        }
        match expected.get(&row["USUBJID"]) {
            Some((months, _)) => {
                let got: f64 = row["PFS_AVAL"].parse().unwrap();
                assert!(
                    (got - months).abs() < 1e-12,
                    "{}: {got} vs {months}",
                    row["USUBJID"]
                );
                assert_eq!(row["PFS_CNSR"], "1");
                assert_eq!(row["PFS_EVNTDESC"], "censored: new anticancer therapy");
                were_events += usize::from(before["PFS_CNSR"] == "0");
            }
            None => {
                for key in [
                    "PFS_AVAL",
                    "PFS_CNSR",
                    "PFS_EVNTDESC",
                    "DOR_AVAL",
                    "DOR_CNSR",
                ] {
                    assert_eq!(row[key], before[key], "{} {key}", row["USUBJID"]);
                }
                assert_ne!(row["PFS_EVNTDESC"], "censored: new anticancer therapy");
            }
        }
    }
    assert!(
        were_events >= 2,
        "only {were_events} events became censorings"
    );
    let results = crate::common::read_json(&folder.join("results.json"));
    let pfs = &results["cohorts"][0]["tte"]["PFS"];
    let efficacy = expected.values().filter(|(_, e)| *e).count();
    assert_eq!(pfs["censored_new_therapy"].as_u64(), Some(efficacy as u64));
    assert!(results["cohorts"][0]["tte"]["OS"]
        .get("censored_new_therapy")
        .is_none());
    let report = std::fs::read_to_string(folder.join("cohort-1/report.html")).unwrap();
    assert!(
        report.contains("who started new anticancer therapy before progression or death were censored at their last adequate assessment on or before its start"),
        "no Methods sentence"
    );

    // A date that is not one, and one before the first dose, are errors at their cell; a
    // column ADSL lacks is an error at its key.
    let id = nactdt.keys().next().unwrap().clone();
    let line = adsl.iter().position(|s| s["USUBJID"] == id).unwrap() + 2;
    let trtsdt = adsl[line - 2]["TRTSDT"].clone();
    for (value, says) in [
        ("2021-13-01".to_string(), "is not a date".to_string()),
        (
            plus_days(&trtsdt, -1),
            format!("is before the first dose (TRTSDT {trtsdt})"),
        ),
    ] {
        let bad = BTreeMap::from([(id.clone(), value)]);
        let (dir, config) =
            altn_with_new_therapy(&bad, "  censor_at_new_therapy: { column: NACTDT }\n");
        let stderr = crate::common::build_quietly(&dir.path().join("out"), &config)
            .code(2)
            .stderr();
        assert!(
            stderr.contains(&format!("adsl.csv: line {line}, column `NACTDT`"))
                && stderr.contains(&says),
            "{stderr}"
        );
    }
    let (dir, config) =
        altn_with_new_therapy(&nactdt, "  censor_at_new_therapy: { column: NACT }\n");
    let stderr = crate::common::build_quietly(&dir.path().join("out"), &config)
        .code(2)
        .stderr();
    assert!(
        stderr.contains("key `analysis.censor_at_new_therapy.column`")
            && stderr.contains("column `NACT` is not in ADSL"),
        "{stderr}"
    );

    // With ADTTE the times are ADTTE's: the key changes nothing, and says so.
    let (dir, config) = randomised_with("  censor_at_new_therapy: { column: TRTEDT }\n");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config).success();
    let results = crate::common::read_json(&out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let warnings = results["cohorts"][0]["warnings"].to_string();
    assert!(warnings.contains("changes nothing"), "{warnings}");
}

/// `analysis.rmst_in_abstract`: the abstract gives each arm's restricted mean time and the
/// difference with its CI and p (with arms), or the cohort's with its CI (without); not
/// without the key.
#[test]
fn the_abstract_gives_the_rmst_when_asked() {
    let one = |x: &Value| format!("{:.1}", x.as_f64().unwrap());
    let (dir, config) = randomised_with("  rmst_in_abstract: true\n");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config).success();
    let folder = out.join("RAND-EXAMPLE/2023-09-29");
    let itt = &crate::common::read_json(&folder.join("results.json"))["cohorts"][0];
    let r = &itt["comparisons"][0]["tte"]["PFS"]["rmst"];
    let arm = |k: usize| &itt["arms"][k]["tte"]["PFS"]["rmst"]["estimate"];
    let sentence = format!(
        "The restricted mean progression-free survival time up to {} months was {} months with Drug X + chemo vs {} months with Placebo + chemo (difference {} months, 95% CI: {}, {};",
        one(&r["tau"]),
        one(arm(0)),
        one(arm(1)),
        one(&r["difference"]["estimate"]),
        one(&r["difference"]["lower"]),
        one(&r["difference"]["upper"]),
    );
    let abstract_md = std::fs::read_to_string(folder.join("itt/abstract.md")).unwrap();
    assert!(abstract_md.contains(&sentence), "{sentence}\n{abstract_md}");
    let numbers = std::fs::read_to_string(folder.join("itt/abstract-numbers.csv")).unwrap();
    assert!(numbers.contains("/cohorts/0/comparisons/0/tte/PFS/rmst/difference/estimate"));

    let (dir, config) = altn_with_new_therapy(&BTreeMap::new(), "  rmst_in_abstract: true\n");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config).success();
    let folder = out.join("ALTN-AK105-II-01/2022-01-06");
    let cohort = &crate::common::read_json(&folder.join("results.json"))["cohorts"][0];
    let (pfs, d) = (
        &cohort["tte"]["PFS"],
        cohort["decimals"]["time"].as_u64().unwrap(),
    );
    let one = |x: &Value| format!("{:.*}", d as usize, x.as_f64().unwrap());
    let rmst = &pfs["rmst"];
    let sentence = format!(
        "The restricted mean {} time up to {} months was {} months (95% CI: {}, {}).",
        pfs["label"].as_str().unwrap(),
        one(&rmst["tau"]),
        one(&rmst["estimate"]),
        one(&rmst["lower"]),
        one(&rmst["upper"]),
    );
    let abstract_md = std::fs::read_to_string(folder.join("cohort-1/abstract.md")).unwrap();
    assert!(abstract_md.contains(&sentence), "{sentence}\n{abstract_md}");

    let (dir, config) = randomised_with("");
    let out = dir.path().join("out");
    crate::common::build_quietly(&out, &config).success();
    let abstract_md =
        std::fs::read_to_string(out.join("RAND-EXAMPLE/2023-09-29/itt/abstract.md")).unwrap();
    assert!(!abstract_md.contains("restricted mean"));
}

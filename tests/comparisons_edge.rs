//! Arm comparisons on data that carry little or no information (issue 28): a test without
//! information is `null` with a warning, never a "p > 0.99"; the documents name the test that
//! gave the p-value they print (`analysis.response_test`).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::common::{readout_command, Run};

/// One subject of a made-up two-arm study.
struct Subject {
    arm: &'static str,
    stratum: String,
    /// OS time in days and whether it is an event.
    os: (u32, bool),
    responder: bool,
}

/// Writes the study (ADSL, ADTTE with OS, ADRS with one unconfirmed response per subject)
/// and its config with `extra` cohort keys into `dir`; returns the config path.
fn write_study(dir: &Path, subjects: &[Subject], extra: &str) -> std::path::PathBuf {
    let mut adsl = String::from("USUBJID,ARM,STRAT,TRTSDT,EFFFL,SAFFL\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
    let mut adrs = String::from("USUBJID,PARAMCD,ADT,AVALC\n");
    for (i, s) in subjects.iter().enumerate() {
        let id = format!("S{i:03}");
        let _ = writeln!(adsl, "{id},{},{},2021-01-01,Y,Y", s.arm, s.stratum);
        let _ = writeln!(adtte, "{id},OS,{},{}", s.os.0, u8::from(!s.os.1));
        let bor = if s.responder { "PR" } else { "PD" };
        let _ = writeln!(adrs, "{id},OVR,2021-02-26,{bor}");
    }
    for (name, text) in [("adsl.csv", adsl), ("adtte.csv", adtte), ("adrs.csv", adrs)] {
        std::fs::write(dir.join(name), text).expect("write data");
    }
    let config = format!(
        "study: {{ id: EDGE }}\n\
         data: {{ adsl: adsl.csv, adtte: adtte.csv, adrs: adrs.csv }}\n\
         analysis: {{ tte_params: {{ OS: OS }}, followup: OS, time_unit: days, confirmed: false }}\n\
         cohorts:\n\
         \x20 - id: itt\n\
         \x20   arms: {{ column: ARM, reference: Placebo }}\n{extra}"
    );
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("write config");
    path
}

/// Builds the study; returns its cohort from results.json and its abstract.txt.
fn edge_results(dir: &Path, config: &Path) -> (Value, String) {
    let out = dir.join("out");
    readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(&out)
        .arg(config)
        .assert()
        .success();
    let folder = out.join("EDGE/no-cutoff");
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("results.json")).expect("results"),
    )
    .expect("JSON");
    let text = std::fs::read_to_string(folder.join("itt/abstract.txt")).expect("abstract");
    (results["cohorts"][0].clone(), text)
}

fn warnings(cohort: &Value) -> Vec<String> {
    cohort["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str().map(str::to_string))
        .collect()
}

/// Twenty subjects, ten per arm, times 10, 20, ... days, every third censored.
fn twenty(stratum: impl Fn(usize, &'static str) -> String) -> Vec<Subject> {
    (0..20)
        .map(|i| {
            let arm = if i % 2 == 0 { "Drug" } else { "Placebo" };
            Subject {
                arm,
                stratum: stratum(i, arm),
                os: (10 * (i as u32 + 1), i % 3 != 0),
                responder: i % 4 == 0 || i == 3,
            }
        })
        .collect()
}

/// Strata of one subject each carry no information: the stratified log-rank test and the
/// CMH test are `null` with a warning, and the abstract says the log-rank test was not
/// estimable instead of printing "stratified log-rank p > 0.99".
#[test]
fn strata_of_one_subject_each_give_no_test_and_say_so() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(
        tmp.path(),
        &twenty(|i, _| format!("K{i}")),
        "    strata: [STRAT]\n",
    );
    let (cohort, text) = edge_results(tmp.path(), &config);
    let os = &cohort["comparisons"][0]["tte"]["OS"];
    assert!(os["logrank"]["p"].as_f64().is_some(), "unstratified: {os}");
    let stratified = &os["stratified"]["logrank"];
    assert_eq!(stratified["p"], Value::Null, "{stratified}");
    assert_eq!(stratified["chisq"], Value::Null, "{stratified}");
    let orr = &cohort["comparisons"][0]["response"]["orr"];
    assert_eq!(orr["test"], "cmh");
    assert_eq!(orr["p_cmh"], Value::Null);
    assert_eq!(orr["p"], Value::Null);
    let w = warnings(&cohort);
    assert!(
        w.iter()
            .any(|w| w.contains("OS stratified log-rank test not estimable")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|w| w.contains("ORR CMH test not estimable")),
        "{w:?}"
    );
    // The strata left out are named (ten of them, then how many more), and the stratified
    // difference is not given.
    assert!(
        w.iter().any(|w| w.starts_with(
            "Drug vs Placebo: 20 strata with subjects of one arm only left out of the stratified difference and the CMH test of ORR and DCR: STRAT = K0; STRAT = K1;"
        ) && w.ends_with("; 10 more")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains("ORR stratified difference not estimable")),
        "{w:?}"
    );
    assert_eq!(orr["difference"], Value::Null);
    assert!(
        text.contains("stratified log-rank test not estimable"),
        "{text}"
    );
    assert!(!text.contains("p > 0.99"), "{text}");
    // The p printed beside the ORR difference is no other test's: there is none.
    assert!(
        !text.contains("chi-square p") && !text.contains("CMH p"),
        "{text}"
    );
}

/// `strata: [ARM]` puts each arm in a stratum of its own: CMH has no information and no p
/// is printed, where the unstratified chi-square's p used to appear under Methods' "CMH".
#[test]
fn strata_that_are_the_arms_give_no_cmh_p() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(
        tmp.path(),
        &twenty(|_, arm| arm.to_string()),
        "    strata: [ARM]\n",
    );
    let (cohort, text) = edge_results(tmp.path(), &config);
    let orr = &cohort["comparisons"][0]["response"]["orr"];
    assert_eq!(orr["test"], "cmh");
    assert_eq!(orr["p"], Value::Null);
    assert!(orr["p_chisq"].as_f64().is_some());
    assert!(
        !text.contains("; chi-square p") && !text.contains("; CMH p"),
        "{text}"
    );
    assert!(text.contains("Cochran–Mantel–Haenszel"), "{text}");
    // The stratified time-to-event models are told too: each stratum holds one arm.
    let w = warnings(&cohort);
    assert!(
        w.iter().any(|w| w.contains(
            "OS: 2 strata hold one arm only and add nothing to the stratified Cox model and log-rank test: ARM = Drug; ARM = Placebo"
        )),
        "{w:?}"
    );
}

/// A stratum with fewer than 5 events is named: the stratified hazard ratio rests on few
/// events there.
#[test]
fn strata_with_few_events_are_named() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Stratum B: four subjects, two events.
    let subjects: Vec<Subject> = twenty(|i, _| if i < 16 { "A" } else { "B" }.to_string())
        .into_iter()
        .enumerate()
        .map(|(i, s)| Subject {
            os: (s.os.0, if i < 16 { true } else { i % 2 == 0 }),
            ..s
        })
        .collect();
    let config = write_study(tmp.path(), &subjects, "    strata: [STRAT]\n");
    let (cohort, _) = edge_results(tmp.path(), &config);
    let w = warnings(&cohort);
    assert!(
        w.iter()
            .any(|w| w.contains("OS: 1 stratum with fewer than 5 events")
                && w.ends_with("STRAT = B")),
        "{w:?}"
    );
    assert!(!w
        .iter()
        .any(|w| w.contains("STRAT = A") && w.contains("fewer than 5 events")));
}

/// Without strata, `response_test: auto` takes Fisher's exact test when an expected count
/// is below 5 (4/11 vs 1/12: R's fisher.test gives 0.1550; prop.test without correction
/// 0.1035) and names it; `chisq` and `fisher` force their test; Methods name what was used.
#[test]
fn the_response_test_is_chosen_and_named() {
    let subjects: Vec<Subject> = (0..23)
        .map(|i| {
            let drug = i < 11;
            Subject {
                arm: if drug { "Drug" } else { "Placebo" },
                stratum: "A".into(),
                os: (30 + 7 * i as u32, true),
                responder: if drug { i < 4 } else { i == 11 },
            }
        })
        .collect();
    for (setting, test, printed, methods) in [
        (
            "",
            "fisher",
            "Fisher's exact p = 0.15",
            "tested with Fisher's exact test",
        ),
        (
            "    analysis: { response_test: chisq }\n",
            "chisq",
            "chi-square p = 0.10",
            "tested with the chi-square test",
        ),
        (
            "    analysis: { response_test: fisher }\n",
            "fisher",
            "Fisher's exact p = 0.15",
            "tested with Fisher's exact test",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let config = write_study(tmp.path(), &subjects, setting);
        let (cohort, text) = edge_results(tmp.path(), &config);
        let orr = &cohort["comparisons"][0]["response"]["orr"];
        assert_eq!((orr["n"].clone(), orr["N"].clone()), (4.into(), 11.into()));
        assert_eq!(orr["test"], test, "{setting}");
        let p = orr["p"].as_f64().expect("p");
        let expected = if test == "fisher" {
            0.154_952_598_888_5
        } else {
            0.103_522_484_375_5
        };
        assert!((p - expected).abs() < 1e-6, "{setting}: {p}");
        assert!(text.contains(printed), "{setting}: {text}");
        assert!(text.contains(methods), "{setting}: {text}");
    }
    // CMH without strata is refused at the key.
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(
        tmp.path(),
        &subjects,
        "    analysis: { response_test: cmh }\n",
    );
    let ran = readout_command()
        .arg("check")
        .arg(&config)
        .output()
        .expect("runs");
    assert_eq!(ran.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        stderr.contains("key `cohorts[0]`: `response_test: cmh` tests over strata"),
        "{stderr}"
    );
}

/// Two subjects dying on the same day, one per arm: the log-rank variance is 0, so there is
/// no test (R's survdiff refuses), not "chi-square 0, p = 1".
#[test]
fn a_log_rank_test_without_variance_is_null_with_a_warning() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let subjects = vec![
        Subject {
            arm: "Drug",
            stratum: "A".into(),
            os: (100, true),
            responder: true,
        },
        Subject {
            arm: "Placebo",
            stratum: "A".into(),
            os: (100, true),
            responder: false,
        },
    ];
    let config = write_study(tmp.path(), &subjects, "");
    let (cohort, text) = edge_results(tmp.path(), &config);
    let logrank = &cohort["comparisons"][0]["tte"]["OS"]["logrank"];
    assert_eq!(logrank["p"], Value::Null, "{logrank}");
    assert_eq!(logrank["chisq"], Value::Null, "{logrank}");
    assert!(
        warnings(&cohort)
            .iter()
            .any(|w| w.contains("OS log-rank test not estimable")),
        "{:?}",
        warnings(&cohort)
    );
    assert!(text.contains("log-rank test not estimable"), "{text}");
}

/// A cohort with `arms` whose subjects are all in the reference arm has nothing to compare:
/// a warning says so and the abstract is the single-arm one (it had Results without ORR or
/// median, and no warning).
#[test]
fn a_cohort_whose_data_hold_one_arm_gets_the_single_arm_abstract() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let subjects: Vec<Subject> = twenty(|_, _| "A".into())
        .into_iter()
        .map(|s| Subject {
            arm: "Placebo",
            ..s
        })
        .collect();
    let config = write_study(tmp.path(), &subjects, "");
    let (cohort, text) = edge_results(tmp.path(), &config);
    assert!(cohort["comparisons"].as_array().is_none_or(Vec::is_empty));
    assert!(
        warnings(&cohort)
            .iter()
            .any(|w| w.contains("all in one arm (ARM = \"Placebo\")")),
        "{:?}",
        warnings(&cohort)
    );
    assert!(text.contains("the ORR was 30.0% (6/20;"), "{text}");
    assert!(text.contains("median OS"), "{text}");
    assert!(!text.contains("randomized"), "{text}");
}

/// "not reached" never takes the unit: with the reference arm's median not reached the
/// sentence read "59.0 with Drug vs not reached days with Placebo".
#[test]
fn a_median_not_reached_takes_no_unit() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let subjects: Vec<Subject> = (0..20)
        .map(|i| {
            let drug = i % 2 == 0;
            Subject {
                arm: if drug { "Drug" } else { "Placebo" },
                stratum: "A".into(),
                // Every Drug subject dies; every Placebo subject is censored.
                os: (10 * (i as u32 + 1), drug),
                responder: false,
            }
        })
        .collect();
    let config = write_study(tmp.path(), &subjects, "");
    let (_, text) = edge_results(tmp.path(), &config);
    assert!(
        text.contains(
            "Median overall survival was 100.0 days (95% CI: 10.0, 150.0) with Drug vs not reached (95% CI: NE, NE) with Placebo (10 vs 0 events"
        ),
        "{text}"
    );
    assert!(!text.contains("not reached days"), "{text}");
}

/// Subjects of a CSV of tests/reference/cox-edge (`time,event,arm,stratum`).
fn edge_subjects(file: &str, stratified: bool) -> Vec<readout::stats::ArmSubject> {
    let path = crate::common::root()
        .join("tests/reference/cox-edge")
        .join(file);
    let mut reader = csv::Reader::from_path(&path).expect("reference data");
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            let number = |i: usize| r[i].parse::<f64>().expect("number");
            readout::stats::ArmSubject {
                time: number(0),
                event: number(1) == 1.0,
                in_arm: number(2) == 1.0,
                stratum: stratified.then(|| number(3) as u32),
            }
        })
        .collect()
}

fn edge_expected() -> Value {
    let path = crate::common::root().join("tests/reference/cox-edge/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("expected")).expect("JSON")
}

/// |got − want| within 1e-6 of want (or of 1e-300 when R's value is 0).
fn near(what: &str, got: Option<f64>, want: &Value) {
    let want = want
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: no R value"));
    let got = got.unwrap_or_else(|| panic!("{what}: readout has none, R {want}"));
    // R's coxph stops when the log-likelihood changes by under 1e-9 relative, so its
    // coefficients agree to ~4e-9 and its Wald p-values to ~4e-8 (measured): 1e-6, not 1e-9.
    assert!(
        (got - want).abs() <= 1e-6 * want.abs().max(1e-300),
        "{what}: readout {got}, R {want}"
    );
}

/// Cox fits that R's default start gets wrong, monotone likelihood and a stratum of one arm
/// (R values: tests/reference/cox-edge, made by its make_cox_edge.R).
/// - 11 vs 1,000 subjects, HR in the thousands: coxph from β = 0 runs out of iterations at
///   24.1; readout converges from 0 to what R finds started near the answer (7.94, se 1.07);
///   it used to call the HR "not estimable" after an intermediate step past |β| = 30.
/// - every arm event before every reference event: not estimable, decided at the end of the
///   fit; the likelihood-ratio p (from the likelihood's supremum) and the score p are given.
/// - a stratum holding one arm: it adds nothing; Efron and Breslow, and the log-rank test.
#[test]
fn cox_fits_match_r_where_its_default_start_fails() {
    use readout::stats::{cox_fit, ArmTimes, Ties};
    let expected = edge_expected();
    let far = &expected["finite-far"];
    assert!(far["default_start_coef"].as_f64().expect("coef") > 20.0);
    for (ties, key) in [(Ties::Efron, "efron"), (Ties::Breslow, "breslow")] {
        let fit = cox_fit(&edge_subjects("finite-far.csv", false), ties, 0.95).expect("fit");
        assert_eq!(fit.not_estimable, None);
        for (name, got) in [
            ("coef", fit.coef),
            ("se", fit.se),
            ("p_wald", fit.p_wald),
            ("p_lr", fit.p_lr),
            ("p_score", fit.p_score),
        ] {
            near(&format!("finite-far {key} {name}"), got, &far[key][name]);
        }
        let fit = cox_fit(&edge_subjects("one-arm-stratum.csv", true), ties, 0.95).expect("fit");
        let one = &expected["one-arm-stratum"][key];
        for (name, got) in [
            ("coef", fit.coef),
            ("se", fit.se),
            ("p_wald", fit.p_wald),
            ("p_lr", fit.p_lr),
            ("p_score", fit.p_score),
        ] {
            near(&format!("one-arm-stratum {key} {name}"), got, &one[name]);
        }
    }
    let monotone = cox_fit(&edge_subjects("monotone.csv", false), Ties::Efron, 0.95).expect("fit");
    assert_eq!(
        (monotone.hr, monotone.coef, monotone.p_wald),
        (None, None, None)
    );
    assert!(monotone
        .not_estimable
        .is_some_and(|w| w.contains("no maximum")));
    near(
        "monotone p_lr",
        monotone.p_lr,
        &expected["monotone"]["p_lr"],
    );
    near(
        "monotone p_score",
        monotone.p_score,
        &expected["monotone"]["p_score"],
    );
    let data = ArmTimes::new(&edge_subjects("one-arm-stratum.csv", true)).expect("data");
    let test = data.model(true).logrank().expect("log-rank");
    let logrank = &expected["one-arm-stratum"]["logrank"];
    near("stratified log-rank chisq", test.chisq, &logrank["chisq"]);
    near("stratified log-rank p", test.p, &logrank["p"]);
    let test = ArmTimes::new(&edge_subjects("finite-far.csv", false))
        .expect("data")
        .model(false)
        .logrank()
        .expect("log-rank");
    near("log-rank chisq", test.chisq, &far["logrank"]["chisq"]);
    // R's survdiff refuses two subjects dying together (no variance); readout has no test.
    assert!(expected["no-variance"]["survdiff"]
        .as_str()
        .is_some_and(|e| e.contains("singular")));
}

/// Three arms read as one sentence of medians (each with its CI and unit), the events per
/// arm, then the hazard ratios against the reference; the reference's median is said once
/// (it was repeated in a sentence per comparison), and the ORRs likewise.
#[test]
fn three_arms_read_as_one_sentence_of_medians_then_the_hazard_ratios() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let subjects: Vec<Subject> = (0..30)
        .map(|i| {
            let arm = ["High", "Low", "Placebo"][i % 3];
            Subject {
                arm,
                stratum: "A".into(),
                os: (10 * (i as u32 + 1) + [0, 5, 40][i % 3], i % 4 != 0),
                responder: i % 3 == 0 && i % 2 == 0,
            }
        })
        .collect();
    let config = write_study(tmp.path(), &subjects, "");
    let (cohort, text) = edge_results(tmp.path(), &config);
    assert_eq!(cohort["comparisons"].as_array().map(Vec::len), Some(2));
    let sentence = text
        .split(". ")
        .find(|s| s.starts_with("Median overall survival"))
        .expect("the survival sentence");
    assert_eq!(sentence.matches("with Placebo").count(), 1, "{sentence}");
    assert!(sentence.contains(" days (95% CI: "), "{sentence}");
    assert!(
        sentence.contains("HRs vs Placebo were ") && sentence.contains(" for High and "),
        "{sentence}"
    );
    assert!(sentence.contains("log-rank p"), "{sentence}");
    let events: Vec<String> = cohort["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .map(|a| a["tte"]["OS"]["events"].to_string())
        .collect();
    assert!(
        sentence.contains(&format!(
            "({}, {} and {} events)",
            events[0], events[1], events[2]
        )),
        "{sentence}"
    );
    assert!(text.contains("differences vs Placebo were "), "{text}");
    assert!(
        text.contains("Thirty pts were randomized: 10 to High, 10 to Low and 10 to Placebo."),
        "{text}"
    );
}

/// Subjects per (stratum, arm, subjects, responders), OS times 10 to 970 days shuffled.
fn by_stratum(cells: &[(&str, &'static str, usize, usize)]) -> Vec<Subject> {
    let mut subjects = Vec::new();
    for &(stratum, arm, n, responders) in cells {
        for k in 0..n {
            let i = subjects.len() as u32;
            subjects.push(Subject {
                arm,
                stratum: stratum.into(),
                os: (10 * ((i * 37) % 97 + 1), !i.is_multiple_of(3)),
                responder: k < responders,
            });
        }
    }
    subjects
}

/// Arms unbalanced across two strata (issue 29): A holds 30/40 Drug vs 3/4 Placebo
/// responders, B 1/4 vs 10/40. Pooled, Drug responds 70.5% vs 29.5%; within each stratum the
/// rates are equal.
const UNBALANCED: [(&str, &str, usize, usize); 4] = [
    ("A", "Drug", 40, 30),
    ("A", "Placebo", 4, 3),
    ("B", "Drug", 4, 1),
    ("B", "Placebo", 40, 10),
];

/// tests/reference/mn/expected.json (made by its make_mn.R).
fn mn_expected() -> Value {
    let path = crate::common::root().join("tests/reference/mn/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("expected")).expect("JSON")
}

/// The stratified case `name` of tests/reference/mn/expected.json.
fn mn_case(name: &str) -> Value {
    mn_expected()["stratified"]
        .as_array()
        .expect("stratified")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
        .clone()
}

/// With strata the difference is the stratified one with its stratified Miettinen–Nurminen
/// interval, whatever `diff_ci` says: 0.0% here, where the pooled difference is 40.9% and the
/// abstract printed "difference 40.9%, 95% CI: 20.2%, 57.0%; CMH p > 0.99" (issue 29).
#[test]
fn with_strata_the_difference_is_the_stratified_one() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(
        tmp.path(),
        &by_stratum(&UNBALANCED),
        "    strata: [STRAT]\n    analysis: { diff_ci: wald }\n",
    );
    let (cohort, text) = edge_results(tmp.path(), &config);
    let orr = &cohort["comparisons"][0]["response"]["orr"];
    assert_eq!((orr["n"].clone(), orr["N"].clone()), (31.into(), 44.into()));
    let difference = &orr["difference"];
    assert_eq!(difference["method"], "mn-stratified");
    let expected = mn_case("edge unbalanced");
    for key in ["estimate", "lower", "upper"] {
        near(
            &format!("stratified {key}"),
            difference[key].as_f64(),
            &expected[key],
        );
    }
    assert_eq!(difference["estimate"].as_f64(), Some(0.0));
    assert!(
        text.contains("(stratified difference 0.0%, 95% CI: \u{2212}21.6%, 35.8%; CMH p > 0.99)"),
        "{text}"
    );
    assert!(!text.contains("40.9%"), "{text}");
    assert!(
        text.contains(
            "Differences in response rates are given with stratified Miettinen–Nurminen 95% CIs with Cochran–Mantel–Haenszel weights and tested with the Cochran–Mantel–Haenszel test stratified by STRAT, without continuity correction."
        ),
        "{text}"
    );
    assert!(
        !warnings(&cohort).iter().any(|w| w.contains("stratum")),
        "{:?}",
        warnings(&cohort)
    );
    // The report's table says the difference is the stratified one.
    let report = std::fs::read_to_string(tmp.path().join("out/EDGE/no-cutoff/itt/report.html"))
        .expect("report");
    assert!(
        report.contains("Stratified difference (95% CI)"),
        "report header"
    );
    assert!(!report.contains(">Difference (95% CI)<"), "report header");
}

/// A stratum holding one arm is left out of the stratified difference and the CMH test, as is
/// a subject without a stratum value, and a stratum with fewer than 5 responders is named, in
/// warnings.
#[test]
fn strata_left_out_or_with_few_responders_are_named() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut cells = UNBALANCED.to_vec();
    cells.extend([
        ("C", "Drug", 3, 2),
        ("D", "Drug", 2, 1),
        ("D", "Placebo", 3, 1),
        ("", "Placebo", 1, 1),
    ]);
    let config = write_study(tmp.path(), &by_stratum(&cells), "    strata: [STRAT]\n");
    let (cohort, _) = edge_results(tmp.path(), &config);
    let difference = &cohort["comparisons"][0]["response"]["orr"]["difference"];
    let expected = mn_case("edge with C and D");
    assert_eq!(expected["dropped"], 1);
    for key in ["estimate", "lower", "upper"] {
        near(
            &format!("stratified {key}"),
            difference[key].as_f64(),
            &expected[key],
        );
    }
    let w = warnings(&cohort);
    assert!(
        w.iter().any(|w| w
            == "Drug vs Placebo: 1 stratum with subjects of one arm only left out of the stratified difference and the CMH test of ORR and DCR: STRAT = C"),
        "{w:?}"
    );
    assert!(
        w.iter().any(|w| w
            == "Drug vs Placebo: ORR and DCR: 1 efficacy subject(s) without a value of STRAT left out of the stratified difference and the CMH test"),
        "{w:?}"
    );
    for what in ["ORR", "DCR"] {
        assert!(
            w.iter().any(|w| w.starts_with(&format!(
                "Drug vs Placebo: {what}: 1 stratum with fewer than 5 responders"
            )) && w.ends_with(": STRAT = D")),
            "{w:?}"
        );
    }
}

/// Without strata `diff_ci` chooses the interval (newcombe by default, wald, mn), and
/// Methods name it; R's values from tests/reference/mn (31/44 vs 13/44).
#[test]
fn without_strata_diff_ci_chooses_the_interval() {
    let pooled = mn_expected()["edge_pooled"].clone();
    for (setting, method, named) in [
        ("", "newcombe", "Newcombe hybrid score 95% CIs"),
        ("wald", "wald", "Wald 95% CIs"),
        ("mn", "mn", "Miettinen–Nurminen 95% CIs"),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let extra = if setting.is_empty() {
            String::new()
        } else {
            format!("    analysis: {{ diff_ci: {setting} }}\n")
        };
        let config = write_study(tmp.path(), &by_stratum(&UNBALANCED), &extra);
        let (cohort, text) = edge_results(tmp.path(), &config);
        let difference = &cohort["comparisons"][0]["response"]["orr"]["difference"];
        assert_eq!(difference["method"], method);
        near(
            &format!("{method} estimate"),
            difference["estimate"].as_f64(),
            &pooled["estimate"],
        );
        for key in ["lower", "upper"] {
            near(
                &format!("{method} {key}"),
                difference[key].as_f64(),
                &pooled[method][key],
            );
        }
        assert!(text.contains("(difference 40.9%, 95% CI: "), "{text}");
        assert!(
            text.contains(&format!(
                "Differences in response rates are given with {named} and tested with"
            )),
            "{method}: {text}"
        );
    }
}

/// The interaction test through the pipeline (issue 29): a level whose reference subjects are
/// all censored leaves the interaction's likelihood without a maximum; the test is still given
/// (from the likelihood's supremum, as R's) with a warning. One level only is no test: `null`,
/// a warning, and "Interaction p = NE" on the forest plot.
#[test]
fn interaction_tests_are_given_or_said_to_be_missing() {
    let levels = |i: usize| ["A", "B", "C"][i % 3].to_string();
    let mut subjects = twenty(|i, _| levels(i));
    subjects.extend((20..30).map(|i| Subject {
        arm: if i % 2 == 0 { "Drug" } else { "Placebo" },
        stratum: levels(i),
        os: (5 * i as u32 + 3, i % 4 != 0),
        responder: false,
    }));
    for s in subjects
        .iter_mut()
        .filter(|s| s.stratum == "C" && s.arm == "Placebo")
    {
        s.os.1 = false;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(tmp.path(), &subjects, "    subgroups: [STRAT]\n");
    let (cohort, _) = edge_results(tmp.path(), &config);
    let test = &cohort["comparisons"][0]["tte"]["OS"]["interactions"][0];
    assert_eq!(test["column"], "STRAT");
    assert_eq!(test["df"], 2, "{test}");
    assert!(
        test["p"].as_f64().is_some_and(|p| p > 0.0 && p < 1.0),
        "{test}"
    );
    let w = warnings(&cohort);
    assert!(
        w.iter()
            .any(|w| w.contains("interaction of the arm with STRAT") && w.contains("supremum")),
        "{w:?}"
    );

    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(
        tmp.path(),
        &twenty(|_, _| "A".into()),
        "    subgroups: [STRAT]\n",
    );
    let (cohort, _) = edge_results(tmp.path(), &config);
    let test = &cohort["comparisons"][0]["tte"]["OS"]["interactions"][0];
    assert_eq!((&test["p"], &test["chisq"]), (&Value::Null, &Value::Null));
    assert!(
        warnings(&cohort).iter().any(|w| w
            .contains("interaction of the arm with STRAT not estimable (fewer than two levels)")),
        "{:?}",
        warnings(&cohort)
    );
    let forest = std::fs::read_to_string(
        tmp.path()
            .join("out/EDGE/no-cutoff/itt/figures/forest-os.svg"),
    )
    .expect("forest plot");
    assert!(forest.contains("Interaction p = NE"), "{forest}");
}

/// Strata and subgroups written as `{column, label}` are named by their label in Methods,
/// results.json and the forest plot ("stratified by STRAT" before).
#[test]
fn strata_and_subgroups_are_named_by_their_labels() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = write_study(
        tmp.path(),
        &twenty(|i, _| ["North", "South"][i / 10].to_string()),
        "    strata: [{ column: STRAT, label: \"Region of enrolment\" }]\n    \
         subgroups: [{ column: STRAT, label: \"Another label\" }]\n",
    );
    let (cohort, text) = edge_results(tmp.path(), &config);
    assert!(
        text.contains("Cox proportional hazards model stratified by region of enrolment"),
        "{text}"
    );
    assert_eq!(cohort["factor_labels"]["STRAT"], "Region of enrolment");
    let forest = std::fs::read_to_string(
        tmp.path()
            .join("out/EDGE/no-cutoff/itt/figures/forest-os.svg"),
    )
    .expect("forest plot");
    // A column both a stratum and a subgroup takes the first label given.
    assert!(
        forest.contains("Region of enrolment"),
        "the forest plot names the factor"
    );
    assert!(!forest.contains("Another label"));
}

/// Exposure-adjusted incidence rates count only subjects whose exposure is known: two Drug
/// subjects without TRTEDT are left out of the rate (numerator and time) with a warning, and
/// stay in the risk difference.
#[test]
fn subjects_without_exposure_are_left_out_of_the_rates_and_said_to_be() {
    let tmp = tempfile::tempdir().expect("temp");
    let config = write_study(tmp.path(), &twenty(|_, _| "A".to_string()), "");
    // Every subject treated for 100 days (TRTEDT 2021-04-10), but S000 and S002 (Drug)
    // without an end date; rash in S000, S002 (no exposure) and S004, S006 (exposed).
    let mut adsl = String::from("USUBJID,ARM,STRAT,TRTSDT,TRTEDT,EFFFL,SAFFL\n");
    for i in 0..20 {
        let arm = if i % 2 == 0 { "Drug" } else { "Placebo" };
        let end = if i == 0 || i == 2 { "" } else { "2021-04-10" };
        let _ = writeln!(adsl, "S{i:03},{arm},A,2021-01-01,{end},Y,Y");
    }
    std::fs::write(tmp.path().join("adsl.csv"), adsl).expect("adsl");
    let mut adae = String::from("USUBJID,AEDECOD,ATOXGR,AEREL,TRTEMFL,ASTDT\n");
    for id in ["S000", "S002", "S004", "S006"] {
        let _ = writeln!(adae, "{id},Rash,1,Y,Y,2021-01-10");
    }
    std::fs::write(tmp.path().join("adae.csv"), adae).expect("adae");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace("adrs: adrs.csv }", "adrs: adrs.csv, adae: adae.csv }"),
    )
    .expect("config");
    let (cohort, _) = edge_results(tmp.path(), &config);
    let said = warnings(&cohort).join("\n");
    assert!(
        said.contains("2 safety subject(s) without a known exposure"),
        "{said}"
    );
    let rash = cohort["comparisons"][0]["safety"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["term"] == "Rash")
        .expect("rash")
        .clone();
    // The risk difference counts all four Drug subjects with rash out of ten.
    assert_eq!(rash["n"], 4);
    assert!((rash["difference"]["estimate"].as_f64().expect("d") - 0.4).abs() < 1e-12);
    // The rate: two exposed subjects with rash, each at risk 10 days (to the event), and six
    // exposed subjects without it at risk 100 days (TRTEDT − TRTSDT + 1): 620 days.
    let years = 620.0 / 365.25;
    let eair = rash["eair"]["estimate"].as_f64().expect("eair");
    assert!((eair - 100.0 * 2.0 / years).abs() < 1e-9, "{eair}");
}

/// Duration of response is measured among responders, so arms are not compared on it by
/// default (issue 40): each arm's median with its CI and range, no HR, no test, no forest plot,
/// and Methods say so; `analysis.compare_dor: true` compares it, labelled "among responders;
/// not a randomised comparison" in Methods, the abstract, the report and the slides.
#[test]
fn duration_of_response_is_described_per_arm_unless_asked_for() {
    let (tmp, dir) = trial_at_cutoff(400);
    let run = |analysis: &str| {
        let config = dir.join("study.yaml");
        std::fs::write(
            &config,
            format!(
                "study: {{ id: DOR }}\ndata: {{ adsl: adsl.csv, adrs: adrs.csv, adtte: adtte.csv }}\n\
                 analysis: {{ time_unit: months{analysis} }}\noutput: {{ formats: [md, html, pptx] }}\n\
                 cohorts:\n  - {{ id: itt, arms: {{ column: ARM, reference: Placebo }} }}\n"
            ),
        )
        .expect("config");
        let out = tmp.path().join(format!("out{}", analysis.len()));
        let ran = readout_command()
            .args(["build", "--quiet", "--out"])
            .arg(&out)
            .arg(&config)
            .assert()
            .success();
        drop(ran);
        let folder = out.join("DOR/no-cutoff");
        let results: Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("results.json")).expect("results"),
        )
        .expect("json");
        let read = |name: &str| std::fs::read_to_string(folder.join("itt").join(name)).expect(name);
        let figures: Vec<String> = std::fs::read_dir(folder.join("itt/figures"))
            .expect("figures")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        (
            results,
            read("abstract.txt"),
            read("report.html"),
            figures,
            folder,
        )
    };

    let (results, text, report, figures, _) = run("");
    let c = &results["cohorts"][0];
    let compared: Vec<&String> = c["comparisons"][0]["tte"]
        .as_object()
        .expect("tte")
        .keys()
        .collect();
    assert_eq!(compared, ["PFS", "OS"], "DoR is not compared");
    let mut medians = Vec::new();
    for arm in c["arms"].as_array().expect("arms") {
        let dor = &arm["tte"]["DOR"];
        let range = &dor["range"];
        assert!(range["min"].as_f64().expect("min") <= range["max"].as_f64().expect("max"));
        medians.push((
            dor["median"]["estimate"].clone(),
            dor["n"].clone(),
            dor["events"].clone(),
        ));
    }
    let [(_, n_drug, e_drug), (_, n_placebo, e_placebo)] = &medians[..] else {
        panic!("two arms")
    };
    let sentence =
        format!("({e_drug} vs {e_placebo} events among {n_drug} vs {n_placebo} responders).");
    assert!(text.contains("Median duration of response was "), "{text}");
    assert!(text.contains(&sentence), "{sentence} not in {text}");
    assert!(
        text.contains("Duration of response is described per arm among responders and was not compared between arms."),
        "{text}"
    );
    assert!(!text.contains("not a randomised comparison"), "{text}");
    assert!(
        !figures.iter().any(|f| f.contains("forest-dor")),
        "{figures:?}"
    );
    assert!(!report.contains("among responders; not a randomised comparison"));
    assert!(
        report.contains("Range, months (+ censored)"),
        "DoR's range per arm"
    );

    let (results, text, report, _, folder) = run(", compare_dor: true");
    let dor = &results["cohorts"][0]["comparisons"][0]["tte"]["DOR"];
    assert_eq!(dor["among_responders"], true);
    let hr = dor["hr"]["estimate"].as_f64().expect("an HR");
    assert!(
        text.contains(&format!("HR {hr:.2}"))
            && text.contains("; among responders, not a randomised comparison)."),
        "{text}"
    );
    assert!(
        text.contains("Duration of response was compared between arms among responders, which is not a randomised comparison."),
        "{text}"
    );
    assert!(report.contains("Duration of response (among responders; not a randomised comparison)"));
    let words = slide_text(&folder.join("itt/slides.pptx"));
    assert!(
        words.contains("(among responders; not a randomised comparison)"),
        "slides"
    );
}

/// Reads the text of every slide of a deck.
pub(crate) fn slide_text(deck: &Path) -> String {
    let deck = std::fs::read(deck).expect("deck");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(deck)).expect("zip");
    let mut words = String::new();
    for i in 0..archive.len() {
        let mut part = archive.by_index(i).expect("part");
        if part.name().expect("name").starts_with("ppt/slides/slide") {
            std::io::Read::read_to_string(&mut part, &mut words).expect("xml");
        }
    }
    words
}

/// `arms.labels` (issue 42): the label names the arm at its first mention in the abstract, and
/// in the report's prose; the short name after it, in legends, table headers and slides. A
/// label for a value no subject has is refused at its key.
#[test]
fn arm_labels_name_the_arms_long_once_then_short() {
    let (tmp, dir) = trial_at_cutoff(200);
    let write = |labels: &str| {
        let config = dir.join("study.yaml");
        std::fs::write(
            &config,
            format!(
                "study: {{ id: LAB }}\ndata: {{ adsl: adsl.csv, adrs: adrs.csv, adtte: adtte.csv }}\n\
                 analysis: {{ time_unit: months }}\noutput: {{ formats: [md, html, pptx] }}\n\
                 cohorts:\n  - id: itt\n    arms:\n      column: ARM\n      reference: Placebo\n      labels:\n{labels}"
            ),
        )
        .expect("config");
        config
    };
    let config = write(
        "        Drug: { label: Velatamab plus dexamethasone, short: Vd }\n        \
         Placebo: Pomalidomide plus dexamethasone\n",
    );
    let out = tmp.path().join("out");
    readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(&out)
        .arg(&config)
        .assert()
        .success();
    let folder = out.join("LAB/no-cutoff");
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("results.json")).expect("results"),
    )
    .expect("json");
    let arms = results["cohorts"][0]["arms"].as_array().expect("arms");
    let names: Vec<(&str, &str, &str)> = arms
        .iter()
        .map(|a| {
            (
                a["arm"].as_str().expect("arm"),
                a["arm_label"].as_str().expect("label"),
                a["arm_short"].as_str().expect("short"),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("Drug", "Velatamab plus dexamethasone", "Vd"),
            (
                "Placebo",
                "Pomalidomide plus dexamethasone",
                "Pomalidomide plus dexamethasone"
            )
        ]
    );
    let text = std::fs::read_to_string(folder.join("itt/abstract.txt")).expect("abstract");
    let (n_drug, n_placebo) = (&arms[0]["n"]["enrolled"], &arms[1]["n"]["enrolled"]);
    assert!(
        text.contains(&format!(
            ": {n_drug} to Velatamab plus dexamethasone (Vd) and {n_placebo} to Pomalidomide plus dexamethasone."
        )),
        "{text}"
    );
    assert_eq!(text.matches("Velatamab").count(), 1, "{text}");
    assert!(text.contains(") with Vd vs "), "{text}");
    assert!(!text.contains("Drug"), "{text}");
    let km = std::fs::read_to_string(folder.join("itt/figures/km-os.svg")).expect("km");
    assert!(
        km.contains("\nVd\n"),
        "the at-risk row takes the short name: {km}"
    );
    assert!(!km.contains("Velatamab") && !km.contains("\nDrug\n"));
    let report = std::fs::read_to_string(folder.join("itt/report.html")).expect("report");
    assert!(
        report.contains("<th scope=\"col\" class=\"num\">Vd (N = "),
        "report headers take the short name: {report}"
    );
    assert!(
        report.contains(
            "<dd>Velatamab plus dexamethasone (Vd); Pomalidomide plus dexamethasone</dd>"
        ),
        "the report names the arms in full once"
    );
    assert!(!report.contains(">Drug<"), "the value itself is not shown");
    let words = slide_text(&folder.join("itt/slides.pptx"));
    assert!(
        words.contains("Vd vs Pomalidomide plus dexamethasone: "),
        "slides"
    );
    assert!(!words.contains("Drug"), "slides");

    let config = write("        Drgu: { label: Velatamab, short: V }\n");
    let stderr = readout_command()
        .arg("check")
        .arg(&config)
        .assert()
        .code(2)
        .stderr();
    assert!(
        stderr.contains("arms.labels") && stderr.contains("\"Drgu\"") && stderr.contains("Drug"),
        "{stderr}"
    );
}

/// What a cohort's arms name that the data do not have is reported together: a reference, a
/// label and a strata column, each at its key, in one run.
#[test]
fn every_arms_problem_is_reported_together() {
    let (_tmp, dir) = trial_at_cutoff(60);
    let config = dir.join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: ALL }\ndata: { adsl: adsl.csv, adrs: adrs.csv, adtte: adtte.csv }\n\
         output: { formats: [md] }\n\
         cohorts:\n  - id: itt\n    strata: [NOSUCHCOL]\n    arms:\n      column: ARM\n      \
         reference: Placebx\n      labels:\n        Drgu: Velatamab\n",
    )
    .expect("config");
    let stderr = crate::common::refused_by_check(&config);
    for (key, value) in [
        ("arms.reference", "\"Placebx\""),
        ("arms.labels", "\"Drgu\""),
        ("strata", "`NOSUCHCOL`"),
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(&format!("cohorts[0].{key}`")) && l.contains(value)),
            "{key}: {stderr}"
        );
    }
}

/// A synthetic randomised trial of `n` subjects (`adtte_cutoff::Trial`) as its data stand at
/// 2023-06-30, in the `trial` folder of a new temporary folder.
fn trial_at_cutoff(n: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().expect("temp");
    let trial = crate::adtte_cutoff::Trial::new(n);
    let dco = chrono::NaiveDate::from_ymd_opt(2023, 6, 30).expect("date");
    let dir = tmp.path().join("trial");
    trial.snapshot(&dir, dco);
    (tmp, dir)
}

/// A name the data do not have in two cohorts' arms, built at two cut-offs: each problem is
/// reported once for the config, both cohorts together, before anything is written.
#[test]
fn arms_problems_are_refused_once_per_config_not_per_cutoff() {
    let (tmp, dir) = trial_at_cutoff(60);
    let config = dir.join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: ONCE }\ndata: { adsl: adsl.csv, adrs: adrs.csv, adtte: adtte.csv }\n\
         output: { formats: [md] }\ncohorts:\n  \
         - { id: a, arms: { column: ARM, reference: Placebx } }\n  \
         - { id: b, arms: { column: ARM, reference: Placebo, labels: { Drgu: Velatamab } } }\n",
    )
    .expect("config");
    let out = tmp.path().join("out");
    let ran = crate::common::build(
        &config,
        &out,
        &["--cutoff", "2023-03-31", "--cutoff", "2023-06-30"],
    );
    ran.assert_no_panic();
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let stderr = ran.stderr;
    assert_eq!(
        stderr.matches("cohorts[0].arms.reference`").count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("cohorts[1].arms.labels`").count(),
        1,
        "{stderr}"
    );
    assert!(!out.join("ONCE").exists(), "nothing written");
}

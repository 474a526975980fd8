//! Every value in `tests/reference/survival/expected/` (R 4.2.2, survival 3.5-3, `binom.test`)
//! recomputed with `readout::stats` and compared with a relative tolerance of 1e-9 (`null` must
//! be `None`). All mismatches are collected and reported together, each named by data set,
//! group, method/transform and quantity.
//!
//! Not compared: `median_summary_table` (R's `summary(fit)$table`, which readout deliberately
//! does not follow; see the README's pitfalls 3 and 4) and `lifelines_crosscheck.json` (a
//! different implementation; its R values duplicate the ones checked here).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use readout::stats::{
    clopper_pearson, kaplan_meier, reverse_km_followup, CiTransform, KaplanMeier, Quantile,
};
use serde_json::Value;

const REL_TOL: f64 = 1e-9;
const LEVEL: f64 = 0.95;

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/survival")
}

/// Collects every disagreement instead of stopping at the first.
#[derive(Default)]
struct Checker {
    mismatches: Vec<String>,
    compared: usize,
    worst_relative_error: f64,
}

impl Checker {
    fn close(expected: f64, actual: f64) -> bool {
        (actual - expected).abs() <= REL_TOL * expected.abs()
    }

    /// `expected` is a JSON number or null.
    fn value(&mut self, what: &str, expected: &Value, actual: Option<f64>) {
        self.compared += 1;
        let ok = match (expected.as_f64(), actual) {
            (None, None) => expected.is_null(),
            (Some(e), Some(a)) => {
                if e != 0.0 {
                    self.worst_relative_error = self.worst_relative_error.max(((a - e) / e).abs());
                }
                Self::close(e, a)
            }
            _ => false,
        };
        if !ok {
            self.mismatches
                .push(format!("{what}: expected {expected}, got {actual:?}"));
        }
    }

    fn count(&mut self, what: &str, expected: &Value, actual: usize) {
        self.compared += 1;
        if expected.as_u64() != Some(actual as u64) {
            self.mismatches
                .push(format!("{what}: expected {expected}, got {actual}"));
        }
    }

    fn flag(&mut self, what: &str, expected: &Value, actual: bool) {
        self.compared += 1;
        if expected.as_bool() != Some(actual) {
            self.mismatches
                .push(format!("{what}: expected {expected}, got {actual}"));
        }
    }

    fn quantile(&mut self, what: &str, expected: &Value, actual: Quantile) {
        self.value(
            &format!("{what} estimate"),
            &expected["estimate"],
            actual.estimate,
        );
        self.value(&format!("{what} lower"), &expected["lower"], actual.lower);
        self.value(&format!("{what} upper"), &expected["upper"], actual.upper);
    }

    fn finish(self, min_compared: usize) {
        eprintln!(
            "{} reference values compared, {} mismatches, worst relative error {:e}",
            self.compared,
            self.mismatches.len(),
            self.worst_relative_error
        );
        let mut report = String::new();
        for m in &self.mismatches {
            let _ = writeln!(report, "  {m}");
        }
        assert!(
            self.mismatches.is_empty(),
            "{} of {} reference values disagree:\n{report}",
            self.mismatches.len(),
            self.compared
        );
        assert!(
            self.compared >= min_compared,
            "only {} values compared; expected at least {min_compared}",
            self.compared
        );
    }
}

/// `id,group,time,event` rows, split into (group, time, event).
fn read_dataset(path: &Path) -> Vec<(String, f64, bool)> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("id,group,time,event"),
        "{}",
        path.display()
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 4, "{}: {line}", path.display());
            let time: f64 = fields[2].parse().expect("time");
            let event = match fields[3] {
                "1" => true,
                "0" => false,
                other => panic!("event {other} in {}", path.display()),
            };
            (fields[1].to_owned(), time, event)
        })
        .collect()
}

fn transform(name: &str) -> CiTransform {
    name.parse()
        .unwrap_or_else(|e| panic!("reference uses an unknown transform: {e}"))
}

fn check_group(
    c: &mut Checker,
    dataset: &str,
    group: &str,
    g: &Value,
    times: &[f64],
    events: &[bool],
) {
    let at = |what: &str| format!("{dataset} / {group} / {what}");
    let km: KaplanMeier = kaplan_meier(times, events).expect("valid reference data");

    c.count(&at("n"), &g["n"], km.n());
    c.count(&at("events"), &g["events"], km.n_events());
    c.value(&at("max_time"), &g["max_time"], km.max_time());

    for (ct, expected) in g["median"].as_object().expect("median") {
        let q = km.quantile(0.5, LEVEL, transform(ct)).expect("quantile");
        c.quantile(&at(&format!("median {ct}")), expected, q);
    }
    for (p, by_transform) in g["quantiles"].as_object().expect("quantiles") {
        let prob: f64 = p.parse().expect("probability key");
        for (ct, expected) in by_transform.as_object().expect("transforms") {
            let q = km.quantile(prob, LEVEL, transform(ct)).expect("quantile");
            c.quantile(&at(&format!("quantile p={p} {ct}")), expected, q);
        }
    }

    for lm in g["landmarks"].as_array().expect("landmarks") {
        let t = lm["time"].as_f64().expect("landmark time");
        for (ct, ci) in lm["ci"].as_object().expect("landmark ci") {
            let l = km.landmark(t, LEVEL, transform(ct)).expect("landmark");
            let what = |q: &str| at(&format!("landmark t={t} {ct} {q}"));
            c.count(&what("n_risk"), &lm["n_risk"], l.n_risk);
            c.value(&what("surv"), &lm["surv"], Some(l.surv));
            c.value(&what("std_err"), &lm["std_err"], l.std_err);
            c.value(&what("std_err_log"), &lm["std_err_log"], l.std_err_log);
            c.flag(
                &what("beyond_last_followup"),
                &lm["beyond_last_followup"],
                l.beyond_last_followup,
            );
            c.value(&what("lower"), &ci["lower"], l.lower);
            c.value(&what("upper"), &ci["upper"], l.upper);
        }
    }

    let fu = &g["followup_reverse_km"];
    let fu_transform = transform(fu["conf_type"].as_str().expect("conf_type"));
    let q = reverse_km_followup(times, events, LEVEL, fu_transform).expect("reverse KM");
    c.quantile(&at(&format!("followup_reverse_km {fu_transform}")), fu, q);

    if let Some(steps) = g.get("steps") {
        let steps = steps.as_array().expect("steps");
        // The README: steps carry the log-log band.
        let band = km.band(LEVEL, CiTransform::LogLog).expect("band");
        if steps.len() != km.steps().len() {
            c.mismatches.push(format!(
                "{}: expected {} rows, got {}",
                at("steps"),
                steps.len(),
                km.steps().len()
            ));
        }
        for ((expected, step), b) in steps.iter().zip(km.steps()).zip(&band) {
            let what = |q: &str| at(&format!("step t={} {q}", expected["time"]));
            c.value(&what("time"), &expected["time"], Some(step.time));
            c.count(&what("n_risk"), &expected["n_risk"], step.n_risk);
            c.count(&what("n_event"), &expected["n_event"], step.n_event);
            c.count(&what("n_censor"), &expected["n_censor"], step.n_censor);
            c.value(&what("surv"), &expected["surv"], Some(step.surv));
            c.value(&what("std_err"), &expected["std_err"], step.std_err);
            c.value(
                &what("std_err_log"),
                &expected["std_err_log"],
                step.std_err_log,
            );
            c.value(&what("log-log lower"), &expected["lower"], b.lower);
            c.value(&what("log-log upper"), &expected["upper"], b.upper);
        }
    }
}

#[test]
fn survfit_reference_values() {
    let dir = reference_dir();
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join("expected"))
        .expect("expected/ directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".json")
                && name != "binom_exact.json"
                && name != "lifelines_crosscheck.json"
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 9, "nine survfit reference files: {files:?}");

    let mut c = Checker::default();
    let mut groups_seen = 0;
    for file in &files {
        let doc: Value =
            serde_json::from_str(&fs::read_to_string(file).expect("read")).expect("valid JSON");
        let dataset = doc["dataset"].as_str().expect("dataset");
        assert_eq!(doc["source"], "R 4.2.2 survival 3.5-3 survfit");
        let rows = read_dataset(&dir.join(doc["csv"].as_str().expect("csv path")));
        for (group, g) in doc["groups"].as_object().expect("groups") {
            // "all" pools every row; a data set whose only group is called "all" agrees.
            let (times, events): (Vec<f64>, Vec<bool>) = rows
                .iter()
                .filter(|(label, _, _)| group == "all" || label == group)
                .map(|(_, t, e)| (*t, *e))
                .unzip();
            assert!(!times.is_empty(), "{dataset} / {group}: no rows");
            check_group(&mut c, dataset, group, g, &times, &events);
            groups_seen += 1;
        }
    }
    assert_eq!(groups_seen, 27, "every group of every data set");
    c.finish(4000);
}

#[test]
fn binom_exact_reference_values() {
    let path = reference_dir().join("expected/binom_exact.json");
    let rows: Value = serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("JSON");
    let rows = rows.as_array().expect("array of rows");
    assert_eq!(rows.len(), 305);
    let mut c = Checker::default();
    for row in rows {
        let x = row["x"].as_u64().expect("x") as usize;
        let n = row["n"].as_u64().expect("n") as usize;
        let level = row["level"].as_f64().expect("level");
        let ci = clopper_pearson(x, n, level).expect("valid counts");
        let what = |q: &str| format!("binom.test x={x} n={n} level={level} {q}");
        c.value(&what("lower"), &row["lower"], Some(ci.lower));
        c.value(&what("upper"), &row["upper"], Some(ci.upper));
    }
    let worst = c.worst_relative_error;
    c.finish(610);
    // The bisection is far tighter than the contract (the README suggests ~1e-12 for the
    // floating-point noise in R's own values); keep it that way.
    assert!(worst < 1e-11, "worst relative error {worst:e}");
}

/// Collett's interval on a hand-computed example, in the form the seed abstract prints for
/// cohort 2 ("10.6 (0.0, 22.4)"): a lower limit truncated at 0.
#[test]
fn collett_median_hand_computed_and_truncated_at_zero() {
    // Six deaths at 1, 2, 10, 11, 30, 31 (no censoring). S = 5/6, 4/6, 1/2, 2/6, 1/6, 0.
    // Median: S = 0.5 exactly on [10, 11), so t̂ = (10 + 11)/2 = 10.5.
    // û = 2 (last event time with S ≥ 0.55, S = 4/6); l̂ = 11 (first with S ≤ 0.45, S = 2/6).
    // f̂ = (4/6 − 2/6)/(11 − 2) = 1/27.
    // Greenwood at t̂: Var S = S²·(1/30 + 1/20 + 1/12) = 0.25/6 = 1/24, SE = 0.2041241.
    // SE(t̂) = 27/√24 = 5.5113519; z·SE = 1.959964 × 5.5113519 = 10.802052.
    // CI = (10.5 − 10.80, 10.5 + 10.80) → (0, 21.302052) after truncation.
    let km = kaplan_meier(&[1.0, 2.0, 10.0, 11.0, 30.0, 31.0], &[true; 6]).unwrap();
    let q = km.median_collett(0.95).unwrap();
    let half = 1.959963984540054 * 27.0 / 24f64.sqrt();
    assert_eq!(q.estimate, Some(10.5));
    assert_eq!(q.lower, Some(0.0));
    let upper = q.upper.unwrap();
    assert!((upper - (10.5 + half)).abs() < 1e-9, "{upper}");
    assert!((upper - 21.302052).abs() < 1e-6);
    let shown = format!("{:.1} ({:.1}, {:.1})", 10.5, q.lower.unwrap(), upper);
    assert_eq!(shown, "10.5 (0.0, 21.3)");
}

/// The reverse Kaplan–Meier of the reference is the plain Kaplan–Meier of the flipped flags.
#[test]
fn reverse_km_equals_km_of_flipped_flags() {
    let rows = read_dataset(&reference_dir().join("datasets/lung.csv"));
    let times: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let events: Vec<bool> = rows.iter().map(|r| r.2).collect();
    let flipped: Vec<bool> = events.iter().map(|e| !e).collect();
    let direct = kaplan_meier(&times, &flipped)
        .unwrap()
        .quantile(0.5, 0.9, CiTransform::Log)
        .unwrap();
    let reverse = reverse_km_followup(&times, &events, 0.9, CiTransform::Log).unwrap();
    assert_eq!(direct, reverse);
}

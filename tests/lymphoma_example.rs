//! The single-arm lymphoma example (`config/lymphoma-example.yaml`, SYNTHETIC data from
//! `examples/make_lymphoma_example.rs`): responses per Lugano 2014 by PET-CT at weeks 12 and
//! 24, then every 24 weeks, and no ADTTE, so PFS, DoR and OS are derived (issue 42). Numbers
//! are checked against the data files read here.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::{read_json, root};

#[allow(dead_code)]
#[path = "../examples/make_lymphoma_example.rs"]
mod generator;

type Row = BTreeMap<String, String>;

fn rows(name: &str) -> Vec<Row> {
    crate::common::csv_rows(&root().join("data/lymphoma-example").join(name))
}

/// The committed data are what the generator makes.
#[test]
fn the_committed_data_are_the_generators() {
    for (name, text) in generator::files() {
        let committed = std::fs::read_to_string(root().join("data/lymphoma-example").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            committed == text,
            "data/lymphoma-example/{name} differs from the generator's"
        );
    }
}

/// Days between two ISO dates.
fn days(from: &str, to: &str) -> i64 {
    let d = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a date");
    (d(to) - d(from)).num_days()
}

/// PFS events by the FDA rule with the missed-visit window `window`: the first PMD, or a
/// death without one, counted when it came at most `window` days after the last adequate
/// scan before it (the first dose without one); (events, those censored by the window).
fn pfs_events(window: i64) -> (usize, usize) {
    let adsl = rows("adsl.csv");
    let adrs = rows("adrs.csv");
    let (mut events, mut censored) = (0, 0);
    for subject in &adsl {
        let mut scans: Vec<&Row> = adrs
            .iter()
            .filter(|r| r["USUBJID"] == subject["USUBJID"])
            .collect();
        scans.sort_by(|a, b| a["ADT"].cmp(&b["ADT"]));
        let event = scans
            .iter()
            .find(|r| r["AVALC"] == "PMD")
            .map(|r| r["ADT"].clone())
            .or_else(|| Some(subject["DTHDT"].clone()).filter(|d| !d.is_empty()));
        let Some(event) = event else { continue };
        let last = scans
            .iter()
            .filter(|r| r["ADT"] < event && r["AVALC"] != "NE")
            .map(|r| r["ADT"].clone())
            .next_back()
            .unwrap_or_else(|| subject["TRTSDT"].clone());
        if days(&last, &event) <= window {
            events += 1;
        } else {
            censored += 1;
        }
    }
    (events, censored)
}

fn lymphoma_results(config: &std::path::Path, out: &std::path::Path) -> Value {
    crate::common::build_quietly(out, config).success();
    read_json(&out.join("LY-EXAMPLE/2024-09-30/results.json"))
}

/// A Lugano cohort scanned at weeks 12 and 24, then every 24 weeks, built as configured: best
/// responses and rates as the data give them, the overall response rate under Lugano's name
/// with its CMR rate and no DCR, and the PFS events of the FDA rule with the protocol's
/// missed-visit window; the default 91-day window would censor events that came on schedule,
/// and says how many.
#[test]
fn a_lugano_cohort_on_12_and_24_weekly_scans_builds_as_configured() {
    let tmp = tempfile::tempdir().expect("temp");
    let results = lymphoma_results(
        &root().join("config/lymphoma-example.yaml"),
        &tmp.path().join("out"),
    );
    let cohort = &results["cohorts"][0];
    let adsl = rows("adsl.csv");
    let adrs = rows("adrs.csv");
    assert_eq!(cohort["n"]["enrolled"].as_u64(), Some(adsl.len() as u64));

    // Best response per subject: the best of its scans, in Lugano's order; none is NE.
    let order = ["CMR", "PMR", "NMR", "PMD"];
    let mut best: BTreeMap<&str, usize> = BTreeMap::new();
    for subject in &adsl {
        let level = adrs
            .iter()
            .filter(|r| r["USUBJID"] == subject["USUBJID"])
            .filter_map(|r| order.iter().position(|o| *o == r["AVALC"]))
            .min();
        *best.entry(level.map_or("NE", |l| order[l])).or_default() += 1;
    }
    for (code, n) in &best {
        assert_eq!(
            cohort["response"]["bor"][code].as_u64(),
            Some(*n as u64),
            "{code}"
        );
    }
    let responders = best.get("CMR").copied().unwrap_or(0) + best.get("PMR").copied().unwrap_or(0);
    let response = &cohort["response"];
    assert_eq!(response["orr"]["n"].as_u64(), Some(responders as u64));
    assert_eq!(response["orr_name"], "overall response rate");
    assert_eq!(response["dcr_reported"], false);
    assert_eq!(
        response["rates"]["CMR"]["n"].as_u64(),
        best.get("CMR").map(|n| *n as u64)
    );
    let text = std::fs::read_to_string(
        tmp.path()
            .join("out/LY-EXAMPLE/2024-09-30/lbcl/abstract.txt"),
    )
    .expect("abstract");
    assert!(text.contains("The CMR rate was "), "{text}");
    assert!(
        !text.contains("DCR") && !text.contains("disease control"),
        "{text}"
    );

    // PFS with the protocol's window (350 days): every event on schedule counted.
    let (events, censored) = pfs_events(350);
    assert_eq!(censored, 0);
    assert_eq!(cohort["tte"]["PFS"]["events"].as_u64(), Some(events as u64));
    assert_eq!(
        cohort["tte"]["PFS"]["censored_missed_visits"].as_u64(),
        Some(0)
    );

    // The default window censors the events a 24-week interval puts past 91 days, and warns.
    let config = tmp.path().join("default-window.yaml");
    let text = std::fs::read_to_string(root().join("config/lymphoma-example.yaml"))
        .expect("config")
        .replace("  missed_visit_days: 350\n", "")
        .replace(
            "dir: ../data/lymphoma-example",
            &format!("dir: {}", root().join("data/lymphoma-example").display()),
        );
    std::fs::write(&config, text).expect("config");
    let results = lymphoma_results(&config, &tmp.path().join("default"));
    let cohort = &results["cohorts"][0];
    let (events, censored) = pfs_events(91);
    assert!(censored > 0);
    assert_eq!(cohort["tte"]["PFS"]["events"].as_u64(), Some(events as u64));
    assert_eq!(
        cohort["tte"]["PFS"]["censored_missed_visits"].as_u64(),
        Some(censored as u64)
    );
    assert!(cohort["warnings"].to_string().contains(&format!(
        "endpoint `PFS`: {censored} progression(s) or death(s) came more than 91 days"
    )));
}

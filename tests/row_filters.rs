//! `data.where` (issue 42): a sponsor's ADRS holds the investigator's and the independent
//! review's responses under one PARAMCD, and ADEX one row per drug; the rows to read are chosen
//! by column values as each file is read, and the report says which.

use std::path::Path;

use serde_json::Value;

use crate::common::{build_quietly, read_json, readout_command, Run};

/// Four subjects; per visit one investigator (INV) and one independent-review (IRC) response,
/// the IRC's a step worse; ADEX with a CUMDOSE row per drug.
fn write_study(dir: &Path, filters: &str) -> std::path::PathBuf {
    let adsl = "USUBJID,TRTSDT,TRTEDT,SAFFL,EFFFL\n\
                S1,2021-01-01,2021-06-01,Y,Y\nS2,2021-01-01,2021-06-01,Y,Y\n\
                S3,2021-01-01,2021-06-01,Y,Y\nS4,2021-01-01,2021-06-01,Y,Y\n";
    let mut adrs = String::from("USUBJID,PARAMCD,ADT,AVALC,RSEVAL\n");
    for (id, inv, irc) in [
        ("S1", "CR", "PR"),
        ("S2", "PR", "SD"),
        ("S3", "PR", "PR"),
        ("S4", "SD", "PD"),
    ] {
        for date in ["2021-03-01", "2021-04-15"] {
            adrs.push_str(&format!("{id},OVR,{date},{inv},INVESTIGATOR\n"));
            adrs.push_str(&format!("{id},OVR,{date},{irc},INDEPENDENT ASSESSOR\n"));
        }
    }
    let mut adex = String::from("USUBJID,PARAMCD,PARCAT1,AVAL\n");
    for (i, id) in ["S1", "S2", "S3", "S4"].iter().enumerate() {
        adex.push_str(&format!("{id},CUMDOSE,VELATAMAB,{}\n", 100 * (i + 1)));
        adex.push_str(&format!("{id},CUMDOSE,DEXAMETHASONE,{}\n", 40 * (i + 1)));
    }
    for (name, text) in [("adsl.csv", adsl), ("adrs.csv", &adrs), ("adex.csv", &adex)] {
        std::fs::write(dir.join(name), text).expect("write data");
    }
    let config = dir.join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study: {{ id: RF }}\n\
             data:\n  adsl: adsl.csv\n  adrs: adrs.csv\n  adex: adex.csv\n{filters}\
             analysis: {{ tte_params: {{}}, confirmed: false, sd_min_days: 30 }}\n\
             cohorts: [{{ id: all }}]\n"
        ),
    )
    .expect("write config");
    config
}

/// Builds; returns the cohort of results.json, the report and the study's warnings.
fn built(dir: &Path, filters: &str) -> (Value, String, String) {
    let config = write_study(dir, filters);
    let out = dir.join(format!("out-{}", filters.len()));
    build_quietly(&out, &config).success();
    let folder = out.join("RF/no-cutoff");
    let results = read_json(&folder.join("results.json"));
    let report = std::fs::read_to_string(folder.join("all/report.html")).expect("report");
    (
        results["cohorts"][0].clone(),
        report,
        results["warnings"].to_string(),
    )
}

fn bor_counts(cohort: &Value) -> Vec<(String, u64)> {
    cohort["response"]["bor"]
        .as_object()
        .expect("bor counts")
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

#[test]
fn without_a_filter_the_two_evaluators_clash_and_the_error_says_where() {
    let dir = tempfile::tempdir().expect("temp");
    let config = write_study(dir.path(), "");
    let stderr = readout_command()
        .arg("check")
        .arg(&config)
        .assert()
        .code(2)
        .stderr();
    assert!(stderr.contains("adrs.csv"), "{stderr}");
}

#[test]
fn each_evaluator_and_drug_is_read_by_its_filter() {
    let dir = tempfile::tempdir().expect("temp");
    let (inv, report, _) = built(
        dir.path(),
        "  where:\n    adrs: { RSEVAL: INVESTIGATOR }\n    adex: { PARCAT1: VELATAMAB }\n",
    );
    assert_eq!(
        bor_counts(&inv),
        [
            ("CR".to_string(), 1),
            ("PR".to_string(), 2),
            ("SD".to_string(), 1)
        ],
        "{}",
        inv["response"]
    );
    assert_eq!(inv["response"]["orr"]["n"], 3);
    // Velatamab's cumulative doses 100..400: median 250, named by its drug.
    let dose = &inv["exposure"]["dose"]["CUMDOSE, VELATAMAB"];
    assert_eq!(dose["median"].as_f64(), Some(250.0), "{dose}");
    let filters = inv["row_filters"].as_array().expect("row_filters");
    assert_eq!(filters.len(), 2, "{filters:?}");
    assert_eq!(filters[0]["dataset"], "adrs");
    assert_eq!(filters[0]["columns"]["RSEVAL"][0], "INVESTIGATOR");
    assert_eq!(
        (filters[0]["kept"].as_u64(), filters[0]["dropped"].as_u64()),
        (Some(8), Some(8))
    );
    assert_eq!(filters[1]["dataset"], "adex");
    assert!(
        report.contains("<dt>Records of ADRS</dt><dd>RSEVAL = INVESTIGATOR (8 of 16 rows)</dd>"),
        "{report}"
    );
    assert!(report.contains("<dt>Records of ADEX</dt><dd>PARCAT1 = VELATAMAB (4 of 8 rows)</dd>"));

    let (irc, _, _) = built(
        dir.path(),
        "  where:\n    adrs: { RSEVAL: \"INDEPENDENT ASSESSOR\" }\n    adex: { PARCAT1: [DEXAMETHASONE] }\n",
    );
    assert_eq!(
        bor_counts(&irc),
        [
            ("PR".to_string(), 2),
            ("SD".to_string(), 1),
            ("PD".to_string(), 1)
        ],
        "{}",
        irc["response"]
    );
    assert_eq!(
        irc["exposure"]["dose"]["CUMDOSE, DEXAMETHASONE"]["median"].as_f64(),
        Some(100.0)
    );
}

#[test]
fn a_filter_that_keeps_nothing_or_names_a_missing_column_is_an_error() {
    let dir = tempfile::tempdir().expect("temp");
    for (filters, said) in [
        (
            "  where: { adrs: { RSEVAL: Investigator } }\n",
            "`data.where.adrs` keeps no row: no row has RSEVAL in [\"Investigator\"] (its values: \"INDEPENDENT ASSESSOR\", \"INVESTIGATOR\")",
        ),
        (
            "  where: { adrs: { EVALUATOR: INVESTIGATOR } }\n",
            "column `EVALUATOR` named in `data.where.adrs` is not in the file",
        ),
        (
            "  where: { adtte: { PARCAT1: X } }\n",
            "`data.adtte` is not given",
        ),
        ("  where: { adxx: { A: B } }\n", "`adxx` is not a dataset"),
    ] {
        let config = write_study(dir.path(), filters);
        let stderr = readout_command()
            .arg("check")
            .arg(&config)
            .assert()
            .code(2)
            .stderr();
        assert!(stderr.contains(said), "{filters}: {stderr}");
    }
}

#[test]
fn a_listed_value_no_row_holds_is_a_warning() {
    let dir = tempfile::tempdir().expect("temp");
    let (c, _, warnings) = built(
        dir.path(),
        "  where:\n    adrs: { RSEVAL: [INVESTIGATOR, INVESTIGATR] }\n    adex: { PARCAT1: VELATAMAB }\n",
    );
    assert_eq!(c["response"]["orr"]["n"], 3);
    assert!(
        warnings.contains("no row has RSEVAL = \\\"INVESTIGATR\\\" (`data.where.adrs`)"),
        "{warnings}"
    );
}

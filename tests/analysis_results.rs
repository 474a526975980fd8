//! `ard.csv`: analysis results data, one row per statistic, each resolving to the value it
//! names in results.json, and every number of the cohort's entry a row.

use crate::common::{build_quietly, read_json, root};

/// Every number (or null) of a JSON value with its pointer, leaving out printing settings.
fn leaves(v: &serde_json::Value, pointer: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                // Not statistics: print settings, the abstract's length, warnings' places.
                if pointer.is_empty()
                    && (k == "decimals" || k == "abstract_length" || k == "diagnostics")
                {
                    continue;
                }
                leaves(
                    x,
                    format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        serde_json::Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                leaves(x, format!("{pointer}/{i}"), out);
            }
        }
        serde_json::Value::Number(_) | serde_json::Value::Null => out.push(pointer),
        _ => {}
    }
}

#[test]
fn every_ard_row_resolves_to_results_json_and_every_number_is_a_row() {
    let out = tempfile::tempdir().expect("tmp");
    build_quietly(out.path(), &root().join("config/rand-example.yaml")).success();
    let folder = out.path().join("RAND-EXAMPLE/2023-09-29");
    let results = read_json(&folder.join("results.json"));
    // Read by a real CSV reader: terms and classes hold commas and quotes.
    let rows: Vec<std::collections::BTreeMap<String, String>> =
        csv::Reader::from_path(folder.join("itt/ard.csv"))
            .expect("ard.csv")
            .deserialize()
            .map(|r| r.expect("a row"))
            .collect();
    assert!(rows.len() > 1000, "{}", rows.len());
    let mut sources = std::collections::BTreeSet::new();
    for row in &rows {
        let cohort = results["cohorts"]
            .as_array()
            .expect("cohorts")
            .iter()
            .find(|c| c["id"] == row["cohort"].as_str())
            .expect("the row's cohort");
        let value = cohort
            .pointer(&row["source"])
            .unwrap_or_else(|| panic!("{row:?} does not resolve"));
        match value {
            serde_json::Value::Null => assert_eq!(row["stat"], "", "{row:?}"),
            serde_json::Value::Number(n) => {
                // The unrounded value, as results.json writes it.
                assert_eq!(row["stat"], n.to_string(), "{row:?}");
            }
            other => panic!("{row:?} names {other}"),
        }
        sources.insert(row["source"].clone());
    }
    // Every number of the cohort's entry is a row, each once.
    let mut all = Vec::new();
    leaves(&results["cohorts"][0], String::new(), &mut all);
    assert_eq!(sources.len(), rows.len(), "a statistic twice");
    // A landmark's or risk table's time is the level of its rows (variable_level), not a
    // statistic.
    let missing: Vec<&String> = all
        .iter()
        .filter(|p| {
            let landmark_time =
                (p.contains("/landmarks/") || p.contains("/risk_table/")) && p.ends_with("/time");
            !sources.contains(*p) && !landmark_time
        })
        .collect();
    assert!(missing.is_empty(), "{missing:?}");

    // The ORR table rebuilt from the ARD alone, as a reader in R or Python would: per arm n,
    // N, the rate and its interval, and the difference between the arms with its method.
    let stat = |group: &str, variable: &str, name: &str| -> f64 {
        rows.iter()
            .find(|r| {
                r["context"] == "response"
                    && r["variable"] == variable
                    && r["stat_name"] == name
                    && r["group1_level"] == group
                    && r["group2"].is_empty()
            })
            .unwrap_or_else(|| panic!("{group} {variable} {name}"))["stat"]
            .parse()
            .expect("a number")
    };
    for (i, arm) in results["cohorts"][0]["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .enumerate()
    {
        let name = arm["arm"].as_str().expect("arm");
        let orr = &results["cohorts"][0]["arms"][i]["response"]["orr"];
        assert_eq!(stat(name, "orr", "n"), orr["n"].as_f64().expect("n"));
        assert_eq!(stat(name, "orr", "N"), orr["N"].as_f64().expect("N"));
        assert_eq!(stat(name, "orr", "p"), orr["rate"].as_f64().expect("rate"));
        assert_eq!(
            stat(name, "orr", "conf.low"),
            orr["lower"].as_f64().expect("lower")
        );
    }
    let difference = rows
        .iter()
        .find(|r| r["variable"] == "orr" && r["stat_name"] == "difference")
        .expect("the difference");
    let comparison = &results["cohorts"][0]["comparisons"][0];
    assert_eq!(
        difference["group1_level"],
        comparison["arm"].as_str().expect("arm")
    );
    assert_eq!(
        difference["group2_level"],
        comparison["reference"].as_str().expect("ref")
    );
    assert_eq!(
        difference["method"],
        comparison["response"]["orr"]["difference"]["method"]
            .as_str()
            .expect("method")
    );
    // Survival: a landmark's probability under its time, the population efficacy.
    let landmark = rows
        .iter()
        .find(|r| r["variable"] == "PFS" && r["stat_name"] == "p" && r["group1"].is_empty())
        .expect("a PFS landmark");
    assert_eq!(landmark["variable_level"], "6.0");
    assert_eq!(landmark["population"], "efficacy");
    assert_eq!(landmark["stat_label"], "Survival probability");
}

#[test]
fn with_dataset_json_the_ard_is_also_a_dataset_json_file_readout_reads_back_as_the_csv() {
    let out = tempfile::tempdir().expect("tmp");
    let config = std::fs::read_to_string(root().join("config/rand-example.yaml"))
        .expect("config")
        .replace(
            "formats: [md, html, docx, pptx, png, xlsx, ard, poster]",
            "formats: [md, ard, dataset-json]",
        )
        .replace(
            "dir: ../data/rand-example",
            &format!("dir: {}", root().join("data/rand-example").display()),
        );
    assert!(config.contains("dataset-json"));
    let path = out.path().join("study.yaml");
    std::fs::write(&path, config).expect("config");
    build_quietly(&out.path().join("built"), &path).success();
    let cohort = out.path().join("built/RAND-EXAMPLE/2023-09-29/itt");
    let csv: Vec<csv::StringRecord> = csv::Reader::from_path(cohort.join("ard.csv"))
        .expect("ard.csv")
        .records()
        .map(|r| r.expect("row"))
        .collect();
    // readout's own Dataset-JSON reader takes the file: the same columns, rows and values.
    let table = readout::load::dataset_json::read(&cohort.join("ard.json")).expect("ard.json");
    assert_eq!(table.headers()[0], "cohort");
    assert_eq!(table.headers().len(), 16);
    assert_eq!(table.len(), csv.len());
    for (i, row) in csv.iter().enumerate() {
        for (j, cell) in row.iter().enumerate() {
            assert_eq!(
                table.cell_text(i, j).expect("cell"),
                cell,
                "row {i} column {j}"
            );
        }
    }
    let json = read_json(&cohort.join("ard.json"));
    assert_eq!(json["datasetJSONCreationDateTime"], "2023-09-29T00:00:00");
    assert_eq!(json["columns"][12]["name"], "stat");
    assert_eq!(json["columns"][12]["dataType"], "decimal");
}

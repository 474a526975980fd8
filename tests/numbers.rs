//! `<cohort>/abstract-numbers.csv` and the sources in `abstract.html` (docs/OUTPUTS.md): every
//! pointer resolves to its value in the cut-off's results.json, every number of the Results
//! paragraph has a row, the HTML marks the same numbers, and a template the traced render
//! cannot follow gives no sources (with a warning) but the same documents.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{build_quietly, files_under, read_json, readout_command, Run};

type Row = BTreeMap<String, String>;

/// Builds a config of the repository into a temporary folder.
fn build(config: &str) -> tempfile::TempDir {
    let out = tempfile::tempdir().expect("temp dir");
    build_quietly(out.path(), Path::new(config)).success();
    out
}

fn sheets(out: &Path) -> Vec<PathBuf> {
    files_under(out)
        .into_iter()
        .filter(|p| p.ends_with("abstract-numbers.csv"))
        .collect()
}

fn rows(path: &Path) -> Vec<Row> {
    let mut reader = csv::Reader::from_path(path).expect("csv");
    assert_eq!(
        reader.headers().expect("header").iter().collect::<Vec<_>>(),
        [
            "section",
            "sentence",
            "text",
            "value",
            "source",
            "denominator",
            "format"
        ]
    );
    reader.deserialize().map(|r| r.expect("row")).collect()
}

/// The cut-off folder's results.json for a cohort's sheet.
fn results_of(sheet: &Path) -> Value {
    let folder = sheet.parent().and_then(Path::parent).expect("folder");
    read_json(&folder.join("results.json"))
}

/// A printed number (documents print the minus sign, U+2212).
fn number(text: &str) -> f64 {
    text.replace('\u{2212}', "-")
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {text}"))
}

/// Every row's source (and denominator) resolves in results.json to the value the row gives,
/// and the printed text rounds from it.
fn check_sheet(sheet: &Path) -> usize {
    let results = results_of(sheet);
    let rows = rows(sheet);
    assert!(!rows.is_empty(), "{} is empty", sheet.display());
    for row in &rows {
        let at = |key: &str| {
            results
                .pointer(&row[key])
                .unwrap_or_else(|| panic!("{}: {} does not resolve", sheet.display(), row[key]))
        };
        let source = at("source");
        let value = &row["value"];
        if row["denominator"].is_empty() {
            match source {
                Value::Null => assert_eq!(value, "", "{row:?}"),
                Value::String(s) => assert_eq!(value, s, "{row:?}"),
                Value::Number(n) => assert_eq!(number(value), n.as_f64().expect("f64"), "{row:?}"),
                other => panic!("{row:?} points at {other}"),
            }
        } else {
            let ratio = source.as_f64().expect("count") / at("denominator").as_f64().expect("N");
            assert_eq!(number(value), ratio, "{row:?}");
        }
        let text = &row["text"];
        if let Some(pct) = text.strip_suffix('%') {
            let decimals = pct.split_once('.').map_or(0, |(_, f)| f.len());
            let half = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9;
            assert!(
                (number(pct) - 100.0 * number(value)).abs() <= half,
                "{row:?}: the text does not round from the value"
            );
        } else if row["format"] == "count" {
            assert_eq!(number(text), number(value), "{row:?}");
        }
    }
    rows.len()
}

#[test]
fn every_source_resolves_to_its_value() {
    for config in [
        "config/altn-ak105-ii-01.yaml",
        "config/rand-example.yaml",
        "config/criteria-example.yaml",
    ] {
        let out = build(config);
        let sheets = sheets(out.path());
        assert!(!sheets.is_empty(), "{config}: no sheet");
        let total: usize = sheets.iter().map(|s| check_sheet(s)).sum();
        assert!(total > 50, "{config}: only {total} rows");
    }
}

/// The Results paragraph of abstract.txt.
fn results_paragraph(text: &str) -> &str {
    text.split("\n\n")
        .find_map(|p| p.strip_prefix("Results: "))
        .expect("Results paragraph")
}

/// The first `printed` in `text` from `from` that stands as a number of its own (not the
/// "3" of "≥3" or of "13").
fn find_token(text: &str, printed: &str, from: usize) -> Option<usize> {
    let joins = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit() || "≥≤<>.".contains(c));
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(printed) {
        let start = at + i;
        let end = start + printed.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        let after_digit = after.is_some_and(|c| c.is_ascii_digit());
        if !joins(before) && !after_digit {
            return Some(start);
        }
        at = start + printed.len().max(1);
    }
    None
}

/// Digits of the Results paragraph that no row of the sheet accounts for, after the words that
/// are not results (the CI level, the grade thresholds) and the data's own labels (baseline
/// levels such as ECOG "0/1", arm names, the criteria's name, the config's country text).
fn unaccounted(text: &str, rows: &[&Row], cohort: &Value, country: &str) -> String {
    let mut rest = text.to_string();
    let mut from = 0;
    for row in rows {
        let printed = &row["text"];
        let at = find_token(&rest, printed, from)
            .unwrap_or_else(|| panic!("{printed:?} not found in order in {text}"));
        rest.replace_range(at..at + printed.len(), &"_".repeat(printed.len()));
        from = at + printed.len();
    }
    let mut labels: Vec<String> = vec![
        "95% CI".into(),
        "grade ≥3".into(),
        "grade 4 or 5".into(),
        country.to_string(),
    ];
    for item in cohort["baseline"].as_array().into_iter().flatten() {
        for level in item["levels"].as_array().into_iter().flatten() {
            labels.push(level["label"].as_str().unwrap_or("").to_lowercase());
        }
        labels.push(item["label"].as_str().unwrap_or("").to_lowercase());
    }
    if let Some(name) = cohort["response"]["criteria"]["name"].as_str() {
        labels.push(name.to_lowercase());
    }
    for arm in cohort["arms"].as_array().into_iter().flatten() {
        labels.push(arm["arm"].as_str().unwrap_or("").to_lowercase());
    }
    labels.retain(|l| l.chars().any(|c| c.is_ascii_digit()));
    labels.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let mut rest = rest.to_lowercase();
    for label in labels.iter().filter(|l| !l.is_empty()) {
        rest = rest.replace(&label.to_lowercase(), " ");
    }
    if rest.chars().any(|c| c.is_ascii_digit()) {
        rest
    } else {
        String::new()
    }
}

#[test]
fn every_number_of_the_results_paragraph_has_a_row() {
    let spelled = |rows: &[&Row]| rows.iter().filter(|r| r["format"] == "spell").count();
    let mut spelled_seen = 0;
    for (config, country) in [
        ("config/altn-ak105-ii-01.yaml", "China"),
        (
            "config/rand-example.yaml",
            "10 countries in Asia, Europe and North America",
        ),
        ("config/criteria-example.yaml", ""),
    ] {
        let out = build(config);
        for sheet in sheets(out.path()) {
            let folder = sheet.parent().expect("cohort folder");
            let id = folder.file_name().and_then(|n| n.to_str()).expect("id");
            let results = results_of(&sheet);
            let cohort = results["cohorts"]
                .as_array()
                .and_then(|c| c.iter().find(|c| c["id"] == id))
                .expect("cohort");
            let text = std::fs::read_to_string(folder.join("abstract.txt")).expect("abstract");
            let all = rows(&sheet);
            let results_rows: Vec<&Row> =
                all.iter().filter(|r| r["section"] == "Results").collect();
            let left = unaccounted(results_paragraph(&text), &results_rows, cohort, country);
            assert!(
                left.is_empty(),
                "{}: digits without a row: {left}",
                sheet.display()
            );
            spelled_seen += spelled(&results_rows);
            // Sentences count from 1 within the section and never go back.
            let numbers: Vec<usize> = results_rows
                .iter()
                .map(|r| number(&r["sentence"]) as usize)
                .collect();
            assert!(numbers.windows(2).all(|w| w[0] <= w[1]), "{numbers:?}");
            assert_eq!(numbers.first(), Some(&1));
        }
    }
    assert!(
        spelled_seen >= 5,
        "spelled-out counts (\"Nine PFS events\") have rows"
    );
}

/// The `data-source` of each span of a document, with its text, in order.
fn spans(html: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<span data-source=\"") {
        rest = &rest[i + 19..];
        let end = rest.find('"').expect("attribute end");
        let source = rest[..end].to_string();
        let open = rest.find('>').expect("tag end");
        let close = rest.find("</span>").expect("span end");
        found.push((source, rest[open + 1..close].to_string()));
        rest = &rest[close..];
    }
    found
}

#[test]
fn abstract_html_marks_the_numbers_of_the_sheet() {
    let out = build("config/rand-example.yaml");
    for sheet in sheets(out.path()) {
        let folder = sheet.parent().expect("cohort folder");
        let html = std::fs::read_to_string(folder.join("abstract.html")).expect("html");
        let marked: Vec<(String, String)> = spans(&html)
            .into_iter()
            .map(|(s, t)| {
                (
                    s,
                    t.replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&amp;", "&"),
                )
            })
            .collect();
        let listed: Vec<(String, String)> = rows(&sheet)
            .into_iter()
            .map(|r| (r["source"].clone(), r["text"].clone()))
            .collect();
        assert_eq!(marked, listed, "{}", folder.display());
        assert!(marked.len() > 40);
        // Hover text names the pointer and value; the page loads nothing.
        assert!(html.contains(
            "title=\"results.json /cohorts/0/comparisons/0/tte/PFS/stratified/hr/estimate = "
        ));
        assert!(html.contains("data-denominator=\"/cohorts/0/arms/0/safety/N\""));
        assert!(!html.contains("<script") && !html.contains("src=\"http"));
    }
}

/// A config over the tiny fixture in `dir`, with `cohorts` and `output` as given.
fn tiny_config(dir: &Path, cohorts: &str, output: &str) -> PathBuf {
    let data = Path::new("tests/fixtures/tiny")
        .canonicalize()
        .expect("fixture");
    let config = format!(
        "study:\n  id: TRACE\ndata:\n  dir: {}\n  adsl: adsl.csv\n  adrs: adrs.csv\n\
         cutoff: 2021-04-30\ncohorts:\n{cohorts}output:\n  formats: [md, html]\n{output}",
        data.display()
    );
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

#[test]
fn pointers_name_the_cohort_by_its_place_after_a_failed_cohort() {
    // The first cohort fails (no subject), so the second is cohorts[0] of results.json.
    let tmp = tempfile::tempdir().expect("temp");
    let config = tiny_config(
        tmp.path(),
        "  - id: nobody\n    where: { COHORT: Z }\n  - id: all\n",
        "",
    );
    let out = tmp.path().join("out");
    readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(&out)
        .arg(&config)
        .output()
        .expect("run");
    let sheet = sheets(&out).into_iter().next().expect("a sheet");
    let results = results_of(&sheet);
    assert_eq!(results["failures"][0]["cohort"], "nobody");
    assert_eq!(results["cohorts"][0]["id"], "all");
    assert!(rows(&sheet)
        .iter()
        .all(|r| r["source"].starts_with("/cohorts/0/")));
    check_sheet(&sheet);
    let html = std::fs::read_to_string(sheet.with_file_name("abstract.html")).expect("html");
    assert!(spans(&html)
        .iter()
        .all(|(s, _)| s.starts_with("/cohorts/0/")));
}

#[test]
fn a_template_the_trace_cannot_follow_gives_no_sources_and_the_same_documents() {
    let tmp = tempfile::tempdir().expect("temp");
    std::fs::create_dir(tmp.path().join("t")).expect("templates");
    // Compares a filter's output: marks would change the comparison, so no sources.
    std::fs::write(
        tmp.path().join("t/abstract-results.txt"),
        "{% if cohort.response.orr.rate | pct == \"33.3%\" %}ORR {{ cohort.response.orr.rate | pct }} \
         of {{ cohort.n.enrolled }}{% else %}other{% endif %}.",
    )
    .expect("template");
    let config = tiny_config(tmp.path(), "  - id: all\n", "  templates: t\n");
    let out = tmp.path().join("out");
    let ran = readout_command()
        .args(["build", "--out"])
        .arg(&out)
        .arg(&config)
        .assert()
        .success();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.get_output().stdout),
        ran.stderr()
    );
    assert!(
        said.contains("abstract-numbers.csv lists no numbers"),
        "{said}"
    );
    assert!(said.contains("abstract.html names no sources"), "{said}");
    let sheet = sheets(&out).into_iter().next().expect("a sheet");
    assert!(rows(&sheet).is_empty());
    let text = std::fs::read_to_string(sheet.with_file_name("abstract.txt")).expect("txt");
    assert!(text.contains("Results: ORR "), "{text}");
    let html = std::fs::read_to_string(sheet.with_file_name("abstract.html")).expect("html");
    assert!(
        html.contains("ORR ") && !html.contains("data-source"),
        "{html}"
    );
}

#[test]
fn verify_checks_the_sheet() {
    let tmp = tempfile::tempdir().expect("temp");
    let config = tiny_config(tmp.path(), "  - id: all\n", "");
    let out = tmp.path().join("out");
    build_quietly(&out, &config).success();
    let sheet = sheets(&out).into_iter().next().expect("a sheet");
    let folder = sheet.parent().and_then(Path::parent).expect("folder");
    let manifest = read_json(&folder.join("manifest.json"));
    assert!(manifest["outputs"]
        .as_array()
        .expect("outputs")
        .iter()
        .any(|o| o["path"] == "all/abstract-numbers.csv"));
    readout_command()
        .arg("verify")
        .arg(folder)
        .assert()
        .success();
    let text = std::fs::read_to_string(&sheet).expect("sheet");
    std::fs::write(&sheet, text.replace("/cohorts/0/", "/cohorts/1/")).expect("edit");
    let output = readout_command()
        .arg("verify")
        .arg(folder)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("all/abstract-numbers.csv changed"), "{said}");
}

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
fn built(config: &str) -> tempfile::TempDir {
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
    parse_number(text).unwrap_or_else(|| panic!("not a number: {text}"))
}

fn parse_number(text: &str) -> Option<f64> {
    text.replace('\u{2212}', "-").parse().ok()
}

/// Half a unit of the last printed decimal of `digits` (0.005 for "8.41").
fn half_unit(digits: &str) -> f64 {
    let decimals = digits.split_once('.').map_or(0, |(_, f)| f.len());
    0.5 * 10f64.powi(-(decimals as i32)) + 1e-12
}

/// The numbers spelled out as the documents spell counts ("Nine", "Twenty-nine").
const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// The value of a spelled-out number below 100, or `None` if `text` is not one.
fn spelled_value(text: &str) -> Option<f64> {
    let lower = text.to_lowercase();
    if let Some(i) = UNITS.iter().position(|u| *u == lower) {
        return Some(i as f64);
    }
    let (tens, unit) = lower.split_once('-').unwrap_or((&lower, ""));
    let t = TENS.iter().position(|w| *w == tens)?;
    let u = match unit {
        "" => 0,
        u => UNITS[1..10].iter().position(|w| *w == u)? + 1,
    };
    Some((20 + 10 * t + u) as f64)
}

/// The ISO date of a printed date ("June 1, 2020" → "2020-06-01").
fn iso_date(text: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let (month_day, year) = text.split_once(", ")?;
    let (month, day) = month_day.split_once(' ')?;
    let m = MONTHS.iter().position(|name| *name == month)? + 1;
    let d: u32 = day.parse().ok()?;
    let y: u32 = year.parse().ok()?;
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

/// What is wrong with a row whose pointers resolved to `source` (and the ratio to its
/// denominator, `ratio`), if anything: its value is the results' value, and its printed text
/// says that value (rounds from it, spells it, dates it or calls it not estimable).
fn row_problem(row: &Row, source: &Value, ratio: Option<f64>) -> Option<String> {
    let value = &row["value"];
    let agrees = match (ratio, source) {
        (Some(ratio), _) => parse_number(value) == Some(ratio),
        (None, Value::Null) => value.is_empty(),
        (None, Value::String(s)) => value == s,
        (None, Value::Number(n)) => parse_number(value) == n.as_f64(),
        (None, other) => return Some(format!("points at {other}")),
    };
    if !agrees {
        return Some(format!("value {value:?} is not the results' {source}"));
    }
    let text = row["text"].as_str();
    let says = if value.is_empty() {
        ["NE", "not reached", "NR"].contains(&text)
    } else if let Some(iso) = iso_date(text) {
        &iso == value
    } else if let Some(n) = spelled_value(text) {
        Some(n) == parse_number(value)
    } else if let Some(bound) = text.strip_prefix("p < ") {
        parse_number(value)
            .zip(parse_number(bound))
            .is_some_and(|(v, b)| v < b)
    } else {
        let digits = text.strip_prefix("p = ").unwrap_or(text);
        let (digits, scale) = match digits.strip_suffix('%') {
            Some(pct) => (pct, 100.0),
            None => (digits, 1.0),
        };
        parse_number(digits)
            .zip(parse_number(value))
            .is_some_and(|(printed, v)| (printed - scale * v).abs() <= half_unit(digits))
    };
    (!says).then(|| format!("the text {text:?} does not say the value {value}"))
}

/// What is wrong with each row of a sheet: every source (and denominator) resolves in
/// results.json to the value the row gives, and the printed text says it.
fn sheet_problems(rows: &[Row], results: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for row in rows {
        let at = |key: &str| results.pointer(&row[key]);
        let Some(source) = at("source") else {
            problems.push(format!("{row:?}: the source does not resolve"));
            continue;
        };
        let ratio = match row["denominator"].as_str() {
            "" => None,
            _ => match (source.as_f64(), at("denominator").and_then(Value::as_f64)) {
                (Some(n), Some(total)) => Some(n / total),
                _ => {
                    problems.push(format!("{row:?}: no count and denominator"));
                    continue;
                }
            },
        };
        if let Some(problem) = row_problem(row, source, ratio) {
            problems.push(format!("{row:?}: {problem}"));
        }
    }
    problems
}

fn check_sheet(sheet: &Path) -> usize {
    let rows = rows(sheet);
    assert!(!rows.is_empty(), "{} is empty", sheet.display());
    let problems = sheet_problems(&rows, &results_of(sheet));
    assert!(problems.is_empty(), "{}: {problems:#?}", sheet.display());
    rows.len()
}

#[test]
fn every_source_resolves_to_its_value() {
    for config in [
        "config/altn-ak105-ii-01.yaml",
        "config/rand-example.yaml",
        "config/criteria-example.yaml",
    ] {
        let out = built(config);
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

/// The first `printed` in `text` from `from` that stands as a number of its own: not the "3"
/// of "≥3" or of "13", the "0" of "10.0" or "0.5", the "5" of "5%".
fn find_token(text: &str, printed: &str, from: usize) -> Option<usize> {
    let joins_before =
        |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit() || "≥≤<>.".contains(c));
    let joins_after = |rest: &str| {
        let mut chars = rest.chars();
        match chars.next() {
            Some(c) if c.is_ascii_digit() || c == '%' => true,
            Some('.') => chars.next().is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        }
    };
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(printed) {
        let start = at + i;
        let end = start + printed.len();
        let before = text[..start].chars().next_back();
        if !joins_before(before) && !joins_after(&text[end..]) {
            return Some(start);
        }
        at = start + printed.len().max(1);
    }
    None
}

/// `text` with `printed` at byte `at` blanked out.
fn blank(text: &mut String, at: usize, printed: &str) {
    text.replace_range(at..at + printed.len(), &"_".repeat(printed.len()));
}

/// The numbers of the Results paragraph that no row of the sheet accounts for, in digits or
/// spelled out, after the words that are not results (the CI level, the grade thresholds) and
/// the data's own labels (baseline levels such as ECOG "0"/"1", arm names, the criteria's name,
/// the config's country text), each blanked only where it stands as a token of its own.
fn unaccounted(text: &str, rows: &[&Row], cohort: &Value, country: &str) -> Vec<String> {
    let mut rest = text.to_string();
    let mut from = 0;
    for row in rows {
        let printed = &row["text"];
        let at = find_token(&rest, printed, from)
            .unwrap_or_else(|| panic!("{printed:?} not found in order in {text}"));
        blank(&mut rest, at, printed);
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
            let label = level["label"].as_str().unwrap_or("");
            // Printed with the comparison symbols (">=65" as "≥65").
            labels.push(label.replace(">=", "≥").replace("<=", "≤"));
        }
        labels.push(item["label"].as_str().unwrap_or("").to_string());
    }
    if let Some(name) = cohort["response"]["criteria"]["name"].as_str() {
        labels.push(name.to_string());
    }
    for arm in cohort["arms"].as_array().into_iter().flatten() {
        labels.push(arm["arm"].as_str().unwrap_or("").to_string());
    }
    let mut labels: Vec<String> = labels.iter().map(|l| l.to_lowercase()).collect();
    labels.retain(|l| l.chars().any(|c| c.is_ascii_digit()));
    labels.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let mut rest = rest.to_lowercase();
    for label in &labels {
        while let Some(at) = find_token(&rest, label, 0) {
            blank(&mut rest, at, label);
        }
    }
    let mut left = Vec::new();
    for word in rest.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.')) {
        let word = word.trim_matches(|c| c == '.' || c == '-');
        let spelled = spelled_value(word).is_some() || ["hundred", "thousand"].contains(&word);
        if spelled || word.chars().any(|c| c.is_ascii_digit()) {
            left.push(word.to_string());
        }
    }
    left
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
        let out = built(config);
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
                "{}: numbers without a row: {left:?}",
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

/// The checks above fail on what they are there to catch (a mutation check): untraced numbers
/// made only of the digits of the baseline labels "0" and "1", an untraced spelled-out number,
/// and rows whose text or value does not say the results' value.
#[test]
fn the_checks_fail_on_untraced_or_misprinted_numbers() {
    let out = built("config/altn-ak105-ii-01.yaml");
    let sheet = sheets(out.path())
        .into_iter()
        .find(|s| s.parent().is_some_and(|f| f.ends_with("cohort-4")))
        .expect("cohort 4's sheet");
    let results = results_of(&sheet);
    let cohort = &results["cohorts"][0];
    let labels: Vec<&str> = cohort["baseline"]
        .as_array()
        .expect("baseline")
        .iter()
        .flat_map(|item| item["levels"].as_array().into_iter().flatten())
        .filter_map(|level| level["label"].as_str())
        .collect();
    assert!(labels.contains(&"0") && labels.contains(&"1"), "{labels:?}");
    let text = std::fs::read_to_string(sheet.with_file_name("abstract.txt")).expect("abstract");
    let paragraph = results_paragraph(&text);
    let all = rows(&sheet);
    let results_rows: Vec<&Row> = all.iter().filter(|r| r["section"] == "Results").collect();
    let left = |paragraph: &str| unaccounted(paragraph, &results_rows, cohort, "China");
    assert_eq!(left(paragraph), Vec::<String>::new());

    let added = format!("{paragraph} Of these, 110 pts (10.0%) were excluded after 11.1 months.");
    assert_eq!(left(&added), ["110", "10.0", "11.1"]);
    let spelled = format!("{paragraph} Twelve pts withdrew and twenty-one were lost.");
    assert_eq!(left(&spelled), ["twelve", "twenty-one"]);

    assert_eq!(sheet_problems(&all, &results), Vec::<String>::new());
    let mutated = |column: &str, from: &str, to: &str| {
        let mut rows = all.clone();
        let row = rows
            .iter_mut()
            .find(|r| r[column] == from)
            .unwrap_or_else(|| panic!("no row with {column} {from}"));
        row.insert(column.to_string(), to.to_string());
        sheet_problems(&rows, &results).len()
    };
    // The follow-up, a time, printed one digit off; a spelled count one off; a date a day off;
    // a p-value's bound and a value that is not the results'.
    let follow_up = cohort["followup"]["estimate"].as_f64().expect("follow-up");
    let printed = format!("{follow_up:.1}");
    assert_eq!(
        mutated("text", &printed, &format!("{:.1}", follow_up + 0.1)),
        1
    );
    assert_eq!(mutated("text", "Nine", "Eight"), 1);
    assert_eq!(mutated("text", "January 25, 2021", "January 26, 2021"), 1);
    assert_eq!(mutated("text", "NE", "4.2"), 1);
    assert_eq!(mutated("value", "20", "21"), 1);
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
    let out = built("config/rand-example.yaml");
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
fn a_cohort_whose_documents_fail_keeps_its_entry_and_the_next_its_place() {
    // The first cohort's abstract does not render; its analysis did, so it is cohorts[0] of
    // results.json (and a failure), and the second cohort's numbers point to cohorts[1].
    let tmp = tempfile::tempdir().expect("temp");
    std::fs::create_dir(tmp.path().join("t")).expect("templates");
    std::fs::write(
        tmp.path().join("t/abstract-results.txt"),
        "{% if cohort.id == \"first\" %}{{ nothing.here }}{% endif %}ORR {{ cohort.response.orr.rate | pct }} \
         of {{ cohort.n.enrolled }}.",
    )
    .expect("template");
    let config = tiny_config(
        tmp.path(),
        "  - id: first\n  - id: second\n",
        "  templates: t\n",
    );
    let out = tmp.path().join("out");
    let run = readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(&out)
        .arg(&config)
        .output()
        .expect("run");
    assert!(!run.status.success(), "a failed cohort fails the build");
    let sheets = sheets(&out);
    assert_eq!(sheets.len(), 1, "{sheets:?}");
    let sheet = &sheets[0];
    assert!(sheet.parent().expect("folder").ends_with("second"));
    let results = results_of(sheet);
    assert_eq!(results["cohorts"][0]["id"], "first");
    assert_eq!(results["cohorts"][1]["id"], "second");
    assert_eq!(results["failures"][0]["cohort"], "first");
    assert!(results["failures"][0]["error"]
        .as_str()
        .is_some_and(|e| e.contains("nothing")));
    // The entry is the analysis' numbers: no abstract was measured.
    assert!(results["cohorts"][0]["response"]["orr"]["rate"].is_number());
    assert!(results["cohorts"][0]["abstract_length"].is_null());
    let folder = sheet
        .parent()
        .and_then(Path::parent)
        .expect("cut-off folder");
    assert!(!folder.join("first").exists());
    let sources: Vec<String> = rows(sheet)
        .into_iter()
        .map(|r| r["source"].clone())
        .collect();
    assert!(!sources.is_empty());
    assert!(
        sources.iter().all(|s| s.starts_with("/cohorts/1/")),
        "{sources:?}"
    );
    check_sheet(sheet);
    let html = std::fs::read_to_string(sheet.with_file_name("abstract.html")).expect("html");
    assert!(spans(&html)
        .iter()
        .all(|(s, _)| s.starts_with("/cohorts/1/")));
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

//! `tables.xlsx`: the report's tables as sheets whose numbers are numbers (read here from the
//! workbook's XML as Calc or Excel reads it), agreeing with results.json.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use crate::common::{build_quietly, read_json, root};

/// A cell as a spreadsheet holds it.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Number(f64),
    Text(String),
}

/// Each sheet by name: its rows, each a map from column letters to the cell.
fn read_workbook(path: &Path) -> BTreeMap<String, Vec<BTreeMap<String, Value>>> {
    let mut archive =
        zip::ZipArchive::new(std::fs::File::open(path).expect("xlsx")).expect("a zip archive");
    let mut part = |name: &str| {
        let mut text = String::new();
        archive
            .by_name(name)
            .unwrap_or_else(|_| panic!("{name}"))
            .read_to_string(&mut text)
            .expect("xml");
        text
    };
    let strings_xml = part("xl/sharedStrings.xml");
    let strings: Vec<String> = roxmltree::Document::parse(&strings_xml)
        .expect("strings")
        .descendants()
        .filter(|n| n.has_tag_name("si"))
        .map(|si| {
            si.descendants()
                .filter(|n| n.has_tag_name("t"))
                .filter_map(|t| t.text())
                .collect()
        })
        .collect();
    let workbook_xml = part("xl/workbook.xml");
    let names: Vec<String> = roxmltree::Document::parse(&workbook_xml)
        .expect("workbook")
        .descendants()
        .filter(|n| n.has_tag_name("sheet"))
        .map(|n| n.attribute("name").expect("name").to_string())
        .collect();
    let mut sheets = BTreeMap::new();
    for (i, name) in names.into_iter().enumerate() {
        let xml = part(&format!("xl/worksheets/sheet{}.xml", i + 1));
        let doc = roxmltree::Document::parse(&xml).expect("sheet");
        assert!(
            doc.descendants()
                .any(|n| n.has_tag_name("pane") && n.attribute("state") == Some("frozen")),
            "{name}: the header is frozen"
        );
        let rows = doc
            .descendants()
            .filter(|n| n.has_tag_name("row"))
            .map(|row| {
                row.children()
                    .filter(|c| c.has_tag_name("c"))
                    .filter_map(|c| {
                        let at = c.attribute("r").expect("r");
                        let column: String =
                            at.chars().take_while(char::is_ascii_uppercase).collect();
                        let v = c.children().find(|v| v.has_tag_name("v"))?.text()?;
                        let value = match c.attribute("t") {
                            Some("s") => {
                                Value::Text(strings[v.parse::<usize>().expect("index")].clone())
                            }
                            Some(other) => panic!("cell type {other}"),
                            None => Value::Number(v.parse().expect("a number")),
                        };
                        Some((column, value))
                    })
                    .collect()
            })
            .collect();
        sheets.insert(name, rows);
    }
    sheets
}

fn text(row: &BTreeMap<String, Value>, column: &str) -> String {
    match row.get(column) {
        Some(Value::Text(t)) => t.clone(),
        other => panic!("{column}: {other:?}"),
    }
}

fn number(row: &BTreeMap<String, Value>, column: &str) -> f64 {
    match row.get(column) {
        Some(Value::Number(x)) => *x,
        other => panic!("{column}: {other:?}"),
    }
}

#[test]
fn the_report_tables_are_sheets_of_numbers_that_sum_and_agree_with_results() {
    let out = tempfile::tempdir().expect("tmp");
    build_quietly(out.path(), &root().join("config/rand-example.yaml")).success();
    let folder = out.path().join("RAND-EXAMPLE/2023-09-29");
    let results = read_json(&folder.join("results.json"));
    let cohort = &results["cohorts"][0];
    let sheets = read_workbook(&folder.join("itt/tables.xlsx"));
    // One sheet per numbered table of the report.
    let report = std::fs::read_to_string(folder.join("itt/report.html")).expect("report");
    let tables = report.matches("<caption>Table ").count();
    assert_eq!(sheets.len(), tables);
    assert!(tables > 10, "{tables}");

    // Best overall response: the categories' counts are numbers that sum to each arm's N, and
    // each percentage is its count over N as the document rounds it.
    let (_, bor) = sheets
        .iter()
        .find(|(_, rows)| text(&rows[0], "A").contains("Best overall response"))
        .expect("the response sheet");
    // Each arm's columns start where its header is (a cell split into more parts in some row,
    // the time to response's median and range, widens them all).
    let starts: Vec<String> = bor[1]
        .iter()
        .filter(|(column, v)| *column != "A" && matches!(v, Value::Text(_)))
        .map(|(column, _)| column.clone())
        .collect();
    assert_eq!(starts.len(), 2, "{:?}", bor[1]);
    let next = |c: &str| ((c.as_bytes()[0] + 1) as char).to_string();
    for (i, (n, pct)) in starts.iter().map(|c| (c.clone(), next(c))).enumerate() {
        let (n, pct) = (n.as_str(), pct.as_str());
        let arm = &cohort["arms"][i];
        let categories = ["CR", "PR", "SD", "NON-CR/NON-PD", "PD", "NE"];
        let rows = &bor[2..2 + categories.len()];
        let sum: f64 = rows.iter().map(|r| number(r, n)).sum();
        assert_eq!(sum, arm["n"]["efficacy"].as_f64().expect("N"));
        for (row, category) in rows.iter().zip(categories) {
            let count = arm["response"]["bor"][category].as_f64().expect("count");
            assert_eq!(number(row, n), count, "{category}");
            let expected = (count / sum * 1000.0).round() / 1000.0;
            assert!((number(row, pct) - expected).abs() < 1e-12, "{category}");
        }
    }

    // The CSR table: every class and term row's subjects per arm and in total from results.json.
    let (_, csr) = sheets
        .iter()
        .find(|(_, rows)| {
            text(&rows[0], "A").contains("Treatment-emergent adverse events by system organ class")
        })
        .expect("the CSR sheet");
    let mut checked = 0;
    for (i, column) in ["B", "D"].into_iter().enumerate() {
        let safety = &cohort["arms"][i]["safety"];
        for class in safety["by_soc"].as_array().expect("classes") {
            let soc = class["soc"].as_str().expect("soc");
            let row = csr
                .iter()
                .find(|r| r.get("A") == Some(&Value::Text(soc.to_string())))
                .unwrap_or_else(|| panic!("{soc}"));
            assert_eq!(number(row, column), class["subjects"].as_f64().expect("n"));
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked}");
}

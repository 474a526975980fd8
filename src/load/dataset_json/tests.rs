//! The reader against itself: every part size gives the cells and the error of the whole
//! reading; rows the quick scanner leaves to serde_json give the cells it would give.

use super::*;

const META: &str = r#"{"datasetJSONVersion":"1.1","records":5,"columns":[{"itemOID":"A","name":"ID","label":"","dataType":"string"},{"itemOID":"B","name":"N","label":"","dataType":"integer"},{"itemOID":"C","name":"X","label":"","dataType":"double"},{"itemOID":"D","name":"D","label":"","dataType":"date","targetDataType":"integer"},{"itemOID":"E","name":"S","label":"","dataType":"integer","displayFormat":"DATE9."}]}"#;

/// Rows with escapes, non-ASCII text, exponents, `-0`, trailing zeros, a blank line, CRLF.
const ROWS: &str = "[\"a\\\"b\", 1, 2.50, \"2020-01-01\", 0]\r\n\
    [\"\u{e9}t\u{e9}\", -7, 1e3, null, -1]\n\
    \n\
    [\"x\\u0041y\",0,-0,\"\",19724]\n\
    [ \"plain\" , 12345678901234567890 , 0.1 , \"2024-02-29\" , null ]\n\
    [\"\", null, -0.0, \"2000-12-31\", 1.0]\n";

/// The error of reading `text` as `name`.
fn error(name: &str, text: &str) -> Error {
    match from_bytes(Path::new(name), text.as_bytes()) {
        Ok(_) => panic!("{name} was read"),
        Err(e) => e,
    }
}

fn cells(table: &CsvTable) -> Vec<Vec<String>> {
    (0..table.len())
        .map(|r| {
            (0..table.headers().len())
                .map(|c| table.cell_text(r, c).unwrap().to_string())
                .collect()
        })
        .collect()
}

fn expected() -> Vec<Vec<&'static str>> {
    vec![
        vec!["a\"b", "1", "2.5", "2020-01-01", "1960-01-01"],
        vec!["\u{e9}t\u{e9}", "-7", "1000", "", "1959-12-31"],
        vec!["xAy", "0", "0", "", "2014-01-01"],
        vec!["plain", "12345678901234567890", "0.1", "2024-02-29", ""],
        vec!["", "", "0", "2000-12-31", "1960-01-02"],
    ]
}

#[test]
fn odd_rows_give_the_cells_serde_json_gives() {
    let text = format!("{META}\n{ROWS}");
    let table = from_bytes(Path::new("t.ndjson"), text.as_bytes()).unwrap();
    assert_eq!(cells(&table), expected());
    assert_eq!(table.line(3), 4); // row numbers, blank lines not counted
    let rows: Vec<&str> = ROWS.lines().filter(|l| !l.trim().is_empty()).collect();
    let json = format!(
        "{},\"rows\":[{}]}}",
        META.trim_end_matches('}'),
        rows.join(",")
    );
    let table = from_bytes(Path::new("t.json"), json.as_bytes()).unwrap();
    assert_eq!(cells(&table), expected());
}

/// Every part size reads the same cells, and the same first error, as the whole file.
#[test]
fn every_part_size_reads_as_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let good = format!("{META}\n{ROWS}");
    let bad_type = good.replace("-7", "\"-7\"");
    let bad_count = good.replace(", 0.1 ,", ",");
    let bad_json = good.replace("19724]", "19724");
    for (name, text) in [
        ("good", &good),
        ("type", &bad_type),
        ("count", &bad_count),
        ("json", &bad_json),
    ] {
        let path = dir.path().join(format!("{name}.ndjson"));
        std::fs::write(&path, text).unwrap();
        let whole = read(&path).map(|t| cells(&t)).map_err(|e| e.to_string());
        for part in 1..=60 {
            let mut rows = Vec::new();
            let parts = read_parts(&path, part, |table, first, _| {
                assert_eq!(first, rows.len());
                rows.extend(cells(table));
                Ok(true)
            });
            let parts = parts.map(|_| rows).map_err(|e| e.to_string());
            assert_eq!(parts, whole, "{name} in parts of {part}");
        }
        if name != "good" {
            assert!(whole.is_err(), "{name}");
        }
    }
}

#[test]
fn rows_before_columns_are_read_once_the_columns_come() {
    let json = format!(
        "{{\"rows\":[[\"a\",1,2,\"2020-01-01\",0]],{}",
        META.trim_start_matches('{')
            .replace("\"records\":5", "\"records\":1")
    );
    let table = from_bytes(Path::new("t.json"), json.as_bytes()).unwrap();
    assert_eq!(cells(&table), [["a", "1", "2", "2020-01-01", "1960-01-01"]]);
}

#[test]
fn a_row_object_or_a_nested_array_is_refused() {
    let text = format!("{META}\n{{\"ID\": \"a\"}}\n");
    let e = error("t.ndjson", &text);
    assert!(
        e.to_string()
            .contains("row 1 (line 2): the row is an object; expected an array of 5 values"),
        "{e}"
    );
    let text = format!("{META}\n[\"a\", [1], 2, null, null]\n");
    let e = error("t.ndjson", &text);
    assert!(
        e.to_string()
            .contains("row 1 (line 2), column `N`: `[…]` is an array; expected an integer"),
        "{e}"
    );
}

#[test]
fn metadata_problems_are_named() {
    let e = |text: &str| error("t.ndjson", text).to_string();
    assert!(e("[1]\n").contains("line 1: `[1]` is not an object"));
    assert!(e("{\"columns\": []}\n").contains("no `datasetJSONVersion`"));
    let two = META.replace("\"name\":\"N\"", "\"name\":\"ID\"");
    assert!(e(&format!("{two}\n")).contains("column `ID` appears twice"));
    let rows = META.replace("\"records\":5", "\"records\":5,\"rows\":[]");
    assert!(e(&format!("{rows}\n")).contains("the metadata holds `rows`"));
    let no_records = META.replace("\"records\":5,", "");
    assert!(e(&format!("{no_records}\n")).contains("missing field `records`"));
    // A number past a double's range is named as such, never read as infinity.
    let huge = META.replace("\"records\":5", "\"records\":1e400");
    let message = e(&format!("{huge}\n"));
    assert!(
        message.contains("number out of range (past a double's range"),
        "{message}"
    );
    assert!(!message.contains("`inf`"), "{message}");
    let whole = format!(
        "{}\"rows\":[]}}",
        huge.trim_end_matches('}').to_string() + ","
    );
    let message = error("t.json", &whole).to_string();
    assert!(message.contains("line 1, column"), "{message}");
    assert!(message.contains("number out of range (past"), "{message}");
}

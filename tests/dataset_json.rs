//! CDISC Dataset-JSON v1.1 input and output (issue 21). A converter written here, independent of
//! the reader, turns the example study's CSVs and the CDISC pilot's CSV conversions into
//! `.json`, `.ndjson` and `.dsjc` (gzip and zlib), and one `.json` variant with ADaM dates as
//! SAS numbers (`integer` with a `DATE9.` display format); each builds to a `results.json`
//! byte-identical to the CSV build's. The published examples of the specification
//! (`../shared/reference/datasetjson`, never copied here) are read in all three forms. Bad files
//! give one error naming the file, the row, the column and the value. With `dataset-json` in
//! `output.formats` the derived datasets are written as Dataset-JSON, read back and checked
//! against the schema's required keys. Tests that read a reference folder are ignored unless
//! run with `--include-ignored` (`.ci/run` does).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use readout::load::CsvTable;

use crate::common::{build_quietly, files_under, root};

fn datasetjson_reference() -> PathBuf {
    crate::common::shared_reference("datasetjson")
}

fn pilot_reference() -> PathBuf {
    crate::common::shared_reference("adam/cdiscpilot01")
}

// ---------------------------------------------------------------------------------------------
// A converter from CSV, independent of the reader.

/// A column's type, decided from its cells so that every cell reads back as the same text.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Text,
    Integer,
    Double,
    Date,
}

fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.len() <= 15
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && text != "-0"
}

fn is_date(text: &str) -> bool {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok() && text.len() == 10
}

/// A double only when its text is the shortest form of the number (what a reader writes).
fn is_double(text: &str) -> bool {
    text.parse::<f64>()
        .is_ok_and(|x| x.is_finite() && x.to_string() == text && !text.contains('e'))
}

fn kind_of(cells: &[&str]) -> Kind {
    let filled: Vec<&str> = cells.iter().copied().filter(|c| !c.is_empty()).collect();
    if filled.is_empty() {
        Kind::Text
    } else if filled.iter().all(|c| is_integer(c)) {
        Kind::Integer
    } else if filled.iter().all(|c| is_date(c)) {
        Kind::Date
    } else if filled.iter().all(|c| is_double(c)) {
        Kind::Double
    } else {
        Kind::Text
    }
}

struct Dataset {
    name: String,
    columns: Vec<(String, Kind)>,
    rows: Vec<Vec<String>>,
}

fn read_csv(path: &Path) -> Dataset {
    let mut reader = csv::Reader::from_path(path).expect("csv");
    let headers: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("record").iter().map(String::from).collect())
        .collect();
    let columns = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let cells: Vec<&str> = rows.iter().map(|r| r[i].as_str()).collect();
            (h.clone(), kind_of(&cells))
        })
        .collect();
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("X")
        .to_uppercase();
    Dataset {
        name,
        columns,
        rows,
    }
}

/// How dates are written: ISO text with `targetDataType: integer` (the specification's ADaM
/// case), or SAS day numbers with a `DATE9.` display format.
#[derive(Clone, Copy, PartialEq)]
enum Dates {
    Iso,
    SasNumbers,
}

fn metadata(d: &Dataset, dates: Dates) -> Map<String, Value> {
    let columns: Vec<Value> = d
        .columns
        .iter()
        .map(|(name, kind)| {
            let mut c = json!({
                "itemOID": format!("IT.{}.{name}", d.name),
                "name": name,
                "label": format!("{name} label"),
            });
            let (data_type, extra) = match (kind, dates) {
                (Kind::Text, _) => ("string", json!({})),
                (Kind::Integer, _) => ("integer", json!({})),
                (Kind::Double, _) => ("double", json!({})),
                (Kind::Date, Dates::Iso) => (
                    "date",
                    json!({"targetDataType": "integer", "displayFormat": "E8601DA."}),
                ),
                (Kind::Date, Dates::SasNumbers) => ("integer", json!({"displayFormat": "DATE9."})),
            };
            c["dataType"] = json!(data_type);
            for (k, v) in extra.as_object().unwrap() {
                c[k] = v.clone();
            }
            c
        })
        .collect();
    let v = json!({
        "datasetJSONCreationDateTime": "2025-01-02T03:04:05",
        "datasetJSONVersion": "1.1.0",
        "fileOID": format!("test.{}", d.name),
        "itemGroupOID": format!("IG.{}", d.name),
        "records": d.rows.len(),
        "name": d.name,
        "label": format!("{} converted for a test", d.name),
        "columns": columns,
    });
    v.as_object().unwrap().clone()
}

fn row_values(d: &Dataset, row: usize, dates: Dates) -> Vec<Value> {
    d.columns
        .iter()
        .zip(&d.rows[row])
        .map(|((_, kind), cell)| {
            if cell.is_empty() {
                // Missing: null, or an empty string for text (both are empty cells).
                return if *kind == Kind::Text && row % 2 == 1 {
                    json!("")
                } else {
                    Value::Null
                };
            }
            match (kind, dates) {
                (Kind::Integer, _) => json!(cell.parse::<i64>().unwrap()),
                (Kind::Double, _) => json!(cell.parse::<f64>().unwrap()),
                (Kind::Date, Dates::SasNumbers) => {
                    let epoch = chrono::NaiveDate::from_ymd_opt(1960, 1, 1).unwrap();
                    let date = chrono::NaiveDate::parse_from_str(cell, "%Y-%m-%d").unwrap();
                    json!((date - epoch).num_days())
                }
                _ => json!(cell),
            }
        })
        .collect()
}

fn to_json(d: &Dataset, dates: Dates) -> Vec<u8> {
    let mut object = metadata(d, dates);
    let rows: Vec<Value> = (0..d.rows.len())
        .map(|r| Value::Array(row_values(d, r, dates)))
        .collect();
    object.insert("rows".into(), Value::Array(rows));
    serde_json::to_vec_pretty(&Value::Object(object)).unwrap()
}

fn to_ndjson(d: &Dataset) -> Vec<u8> {
    let mut out = serde_json::to_vec(&Value::Object(metadata(d, Dates::Iso))).unwrap();
    out.push(b'\n');
    for r in 0..d.rows.len() {
        // Both spellings NDJSON writers use: compact, and with a space after each comma.
        let values = Value::Array(row_values(d, r, Dates::Iso));
        let line = if r % 3 == 0 {
            serde_json::to_string(&values)
                .unwrap()
                .replace("\",\"", "\", \"")
        } else {
            serde_json::to_string(&values).unwrap()
        };
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(if r % 5 == 0 { b"\r\n" } else { b"\n" });
    }
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// The forms a CSV is converted to: (folder, extension, bytes of a dataset).
type Form = (&'static str, &'static str, fn(&Dataset) -> Vec<u8>);

const FORMS: [Form; 5] = [
    ("json", "json", |d| to_json(d, Dates::Iso)),
    ("json-sas-dates", "json", |d| to_json(d, Dates::SasNumbers)),
    ("ndjson", "ndjson", to_ndjson),
    ("dsjc-gzip", "dsjc", |d| gzip(&to_ndjson(d))),
    ("dsjc-zlib", "dsjc", |d| zlib(&to_ndjson(d))),
];

/// Converts the named CSVs of `csv_dir` to every form, each in `out/<form>/`.
fn convert(csv_dir: &Path, tables: &[&str], out: &Path) {
    for table in tables {
        let d = read_csv(&csv_dir.join(format!("{table}.csv")));
        for (folder, extension, write) in FORMS {
            let dir = out.join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{table}.{extension}")), write(&d)).unwrap();
        }
    }
}

/// `config` with its data folder set to `data_dir` and its files' extension to `extension`.
fn config_for(config: &str, old_dir: &str, data_dir: &Path, from: &str, extension: &str) -> String {
    assert!(config.contains(old_dir), "the config names {old_dir}");
    config
        .replace(old_dir, &data_dir.display().to_string())
        .replace(&format!(".{from}\n"), &format!(".{extension}\n"))
}

/// Builds `config` into a temporary folder; every `results.json` by its path in the folder.
fn results_files(config: &Path) -> (tempfile::TempDir, Vec<(PathBuf, Vec<u8>)>) {
    let out = tempfile::tempdir().expect("temp dir");
    build_quietly(out.path(), config).success();
    let mut results: Vec<(PathBuf, Vec<u8>)> = files_under(out.path())
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "results.json"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p.strip_prefix(out.path()).unwrap().to_path_buf(), bytes)
        })
        .collect();
    results.sort();
    (out, results)
}

/// The CSV build and the build of every form give byte-identical `results.json`.
fn same_results(config: &str, old_dir: &str, csv_dir: &Path, from: &str, tables: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    convert(csv_dir, tables, tmp.path());
    let csv_config = tmp.path().join("csv.yaml");
    std::fs::write(
        &csv_config,
        config_for(config, old_dir, csv_dir, from, "csv"),
    )
    .unwrap();
    let (_csv_out, expected) = results_files(&csv_config);
    assert!(!expected.is_empty());
    for (folder, extension, _) in FORMS {
        let yaml = tmp.path().join(format!("{folder}.yaml"));
        let dir = tmp.path().join(folder);
        std::fs::write(&yaml, config_for(config, old_dir, &dir, from, extension)).unwrap();
        let (_out, actual) = results_files(&yaml);
        assert_eq!(actual.len(), expected.len(), "{folder}");
        for ((path, a), (_, e)) in actual.iter().zip(&expected) {
            assert!(
                a == e,
                "{folder}: {} differs from the CSV build's",
                path.display()
            );
        }
    }
}

#[test]
fn the_example_study_in_every_form_gives_the_results_of_its_csv() {
    let config = std::fs::read_to_string(root().join("config/altn-ak105-ii-01.yaml")).unwrap();
    // PNG figures are not what is compared here: left out to keep the test quick.
    let config = config.replace("formats: [md, html, pptx, png]", "formats: [md]");
    let data = root().join("data/altn-ak105-ii-01");
    same_results(
        &config,
        "../data/altn-ak105-ii-01",
        &data,
        "csv",
        &["adsl", "adrs", "adae", "adtr"],
    );
}

#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn the_cdisc_pilot_in_every_form_gives_the_results_of_its_csv() {
    let dir = pilot_reference();
    let config =
        std::fs::read_to_string(root().join("tests/fixtures/cdiscpilot01/study.yaml")).unwrap();
    same_results(
        &config,
        "../../../../shared/reference/adam/cdiscpilot01",
        &dir,
        "xpt",
        &["adsl", "adtte", "adae"],
    );
}

// ---------------------------------------------------------------------------------------------
// The published examples.

fn cells(table: &CsvTable) -> Vec<Vec<String>> {
    (0..table.len())
        .map(|r| {
            (0..table.headers().len())
                .map(|c| table.cell_text(r, c).unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
#[ignore = "needs ../shared/reference/datasetjson"]
fn the_published_examples_read_in_all_three_forms() {
    let dir = datasetjson_reference();
    let examples = dir.join("examples");
    let json = CsvTable::read(&examples.join("ae.json")).unwrap();
    assert_eq!(json.len(), 74);
    assert_eq!(json.headers().len(), 37);
    assert_eq!(
        &json.headers()[..4],
        ["STUDYID", "DOMAIN", "USUBJID", "AESEQ"]
    );
    let at = |name: &str| json.column(name).unwrap();
    assert_eq!(json.cell_text(0, at("USUBJID")).unwrap(), "CDISC001");
    assert_eq!(json.cell_text(0, at("AESEQ")).unwrap(), "1");
    assert_eq!(
        json.cell_text(0, at("AETERM")).unwrap(),
        "INJECTION SITE REACTION"
    );
    assert_eq!(json.cell_text(0, at("AESTDTC")).unwrap(), "2012-12-02");
    // `""` and `null` are both empty cells.
    assert_eq!(json.cell_text(0, at("AEENDTC")).unwrap(), "");
    assert_eq!(json.cell_text(0, at("AEENDY")).unwrap(), "");
    assert_eq!(json.cell_text(0, at("AESTDY")).unwrap(), "3");
    assert_eq!(json.cell_text(73, at("USUBJID")).unwrap(), "CDISC018");
    assert_eq!(json.cell_text(73, at("AESEQ")).unwrap(), "10");
    assert_eq!(json.cell_text(73, at("AETERM")).unwrap(), "NAUSEA");
    assert_eq!(json.cell_text(73, at("AEENDY")).unwrap(), "71");
    let expected = cells(&json);
    for file in ["ae.ndjson", "ae.dsjc"] {
        let table = CsvTable::read(&examples.join(file)).unwrap();
        assert_eq!(table.headers(), json.headers(), "{file}");
        assert_eq!(cells(&table), expected, "{file}");
    }
    // The published .dsjc is gzip; the same text as a zlib stream (the specification's).
    let tmp = tempfile::tempdir().unwrap();
    let ndjson = std::fs::read(examples.join("ae.ndjson")).unwrap();
    let zlib_file = tmp.path().join("ae.dsjc");
    std::fs::write(&zlib_file, zlib(&ndjson)).unwrap();
    assert_eq!(cells(&CsvTable::read(&zlib_file).unwrap()), expected);
    // Read in parts of every size the same.
    for file in ["ae.json", "ae.ndjson", "ae.dsjc"] {
        for part in [1, 100, 4096] {
            let mut rows = Vec::new();
            let mut firsts = Vec::new();
            CsvTable::read_parts(&examples.join(file), part, |table, first, expected| {
                assert_eq!(expected, 74);
                firsts.push(first);
                rows.extend(cells(table));
                Ok(true)
            })
            .unwrap();
            assert_eq!(rows, expected, "{file} in parts of {part}");
            assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{file}: {firsts:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input.

const META: &str = r#"{"datasetJSONCreationDateTime":"2025-01-01T00:00:00","datasetJSONVersion":"1.1.0","itemGroupOID":"IG.ADSL","records":3,"name":"ADSL","label":"Subjects","columns":[{"itemOID":"IT.USUBJID","name":"USUBJID","label":"Subject","dataType":"string"},{"itemOID":"IT.AGE","name":"AGE","label":"Age","dataType":"integer"},{"itemOID":"IT.TRTSDT","name":"TRTSDT","label":"Start","dataType":"date","targetDataType":"integer"}]}"#;

const ROWS: [&str; 3] = [
    r#"["S1", 61, "2021-01-04"]"#,
    r#"["S2", 70, "2021-02-01"]"#,
    r#"["S3", null, "2021-03-01"]"#,
];

/// The error of reading `bytes` as `name` (written to a temporary folder), with the folder's
/// path shown as `[DIR]`.
fn error_of(name: &str, bytes: &[u8]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let whole = CsvTable::read(&path).err().map(|e| e.to_string());
    let parts = CsvTable::read_parts(&path, 16, |_, _, _| Ok(true))
        .err()
        .map(|e| e.to_string());
    let whole = whole.unwrap_or_else(|| panic!("{name} was read"));
    // Read in parts, the same error.
    assert_eq!(parts.as_deref(), Some(whole.as_str()), "{name}");
    whole.replace(&tmp.path().display().to_string(), "[DIR]")
}

fn ndjson(meta: &str, rows: &[&str]) -> Vec<u8> {
    let mut text = format!("{meta}\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    text.into_bytes()
}

fn json_file(meta: &str, rows: &[&str]) -> Vec<u8> {
    let body = meta.trim_end_matches('}');
    format!("{body},\"rows\":[\n{}\n]}}", rows.join(",\n")).into_bytes()
}

#[test]
fn the_three_forms_read_the_same_small_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let text = ndjson(META, &ROWS);
    let files = [
        ("a.ndjson", text.clone()),
        ("a.json", json_file(META, &ROWS)),
        ("a.dsjc", zlib(&text)),
        ("b.dsjc", gzip(&text)),
    ];
    for (name, bytes) in files {
        let path = tmp.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let table = CsvTable::read(&path).unwrap();
        assert_eq!(
            cells(&table),
            [
                ["S1", "61", "2021-01-04"],
                ["S2", "70", "2021-02-01"],
                ["S3", "", "2021-03-01"]
            ],
            "{name}"
        );
        // The manifest's hash is of the file as it is on disk.
        let input = CsvTable::read_parts(&path, 8, |_, _, _| Ok(true)).unwrap();
        assert_eq!(input.sha256, readout::load::sha256_hex(&bytes), "{name}");
    }
}

#[test]
fn a_version_other_than_1_1_is_refused() {
    let meta = META.replace("\"1.1.0\"", "\"1.0.0\"");
    let e = error_of("adsl.ndjson", &ndjson(&meta, &ROWS));
    assert_eq!(
        e,
        "[DIR]/adsl.ndjson: `datasetJSONVersion`: `\"1.0.0\"` is not a version readout reads; \
         expected \"1.1\" or \"1.1.x\" (Dataset-JSON v1.1)"
    );
    let e = error_of("adsl.json", &json_file(&meta, &ROWS));
    assert!(
        e.contains("`\"1.0.0\"` is not a version readout reads"),
        "{e}"
    );
}

#[test]
fn a_row_with_too_few_values_names_the_row_and_the_counts() {
    let rows = [ROWS[0], r#"["S2", 70]"#, ROWS[2]];
    let e = error_of("adsl.ndjson", &ndjson(META, &rows));
    assert_eq!(
        e,
        "[DIR]/adsl.ndjson: row 2 (line 3): the row has 2 values; expected 3, one per column"
    );
    let e = error_of("adsl.json", &json_file(META, &rows));
    assert_eq!(
        e,
        "[DIR]/adsl.json: row 2: the row has 2 values; expected 3, one per column"
    );
}

#[test]
fn a_value_of_the_wrong_type_names_row_column_and_value() {
    let rows = [ROWS[0], ROWS[1], r#"["S3", "63", "2021-03-01"]"#];
    let e = error_of("adsl.ndjson", &ndjson(META, &rows));
    assert_eq!(
        e,
        "[DIR]/adsl.ndjson: row 3 (line 4), column `AGE`: `\"63\"` is a string; expected an \
         integer (dataType integer)"
    );
    let e = error_of("adsl.json", &json_file(META, &rows));
    assert!(
        e.starts_with("[DIR]/adsl.json: row 3, column `AGE`: `\"63\"` is a string"),
        "{e}"
    );
    let e = error_of("adsl.dsjc", &gzip(&ndjson(META, &rows)));
    assert!(
        e.starts_with(
            "[DIR]/adsl.dsjc: row 3 (line 4 of the decompressed text), column `AGE`: `\"63\"`"
        ),
        "{e}"
    );
    // A date that is no day, a fraction in an integer column.
    let rows = [ROWS[0], r#"["S2", 70, "2021-02-30"]"#];
    let e = error_of("adsl.ndjson", &ndjson(META, &rows));
    assert!(
        e.contains("row 2 (line 3), column `TRTSDT`: `\"2021-02-30\"` is not a date"),
        "{e}"
    );
    let rows = [r#"["S1", 61.5, "2021-01-04"]"#];
    let e = error_of("adsl.ndjson", &ndjson(META, &rows));
    assert!(
        e.contains("row 1 (line 2), column `AGE`: `61.5` is not a whole number"),
        "{e}"
    );
}

#[test]
fn an_unknown_data_type_names_the_column_and_the_type() {
    let meta = META.replace(r#""dataType":"integer""#, r#""dataType":"int""#);
    let e = error_of("adsl.ndjson", &ndjson(&meta, &ROWS));
    assert!(
        e.starts_with("[DIR]/adsl.ndjson: `columns[1].dataType` (`AGE`): unknown variant `int`"),
        "{e}"
    );
    assert!(e.contains("expected one of"), "{e}");
}

#[test]
fn a_truncated_gzip_or_zlib_file_is_an_error_not_fewer_rows() {
    let text = ndjson(META, &ROWS);
    for (name, bytes) in [("adsl.dsjc", gzip(&text)), ("adsl.dsjc", zlib(&text))] {
        for cut in [bytes.len() / 2, bytes.len() - 4, bytes.len() - 1] {
            let e = error_of(name, &bytes[..cut]);
            assert!(
                e.contains("data are corrupt or cut short")
                    || e.contains("is the file cut short")
                    || e.contains("not valid JSON"),
                "{cut}: {e}"
            );
        }
    }
    let e = error_of("adsl.dsjc", &gzip(&text)[..20]);
    assert!(e.starts_with("[DIR]/adsl.dsjc: "), "{e}");
    let e = error_of("adsl.dsjc", b"not compressed at all\n");
    assert!(
        e.contains("expected compressed Dataset-NDJSON (DSJC)"),
        "{e}"
    );
}

#[test]
fn invalid_json_names_the_row_and_line() {
    let rows = [ROWS[0], r#"["S2", 70, "2021-02-01""#, ROWS[2]];
    let e = error_of("adsl.ndjson", &ndjson(META, &rows));
    assert!(
        e.starts_with("[DIR]/adsl.ndjson: row 2 (line 3): not valid JSON: "),
        "{e}"
    );
    // In one object the next row reads as a fourth value of row 2.
    let e = error_of("adsl.json", &json_file(META, &rows));
    assert!(e.starts_with("[DIR]/adsl.json: row 2: "), "{e}");
    let e = error_of(
        "adsl.json",
        &json_file(META, &[r#"["S1" 61, "2021-01-04"]"#]),
    );
    assert!(
        e.starts_with(
            "[DIR]/adsl.json: row 1: line 2, column 7: not valid JSON: expected `,` or `]`"
        ),
        "{e}"
    );
    let e = error_of("adsl.ndjson", b"{\"datasetJSONVersion\": \n");
    assert!(
        e.starts_with("[DIR]/adsl.ndjson: line 1: not valid JSON"),
        "{e}"
    );
}

#[test]
fn records_must_count_the_rows() {
    let e = error_of("adsl.ndjson", &ndjson(META, &ROWS[..2]));
    assert_eq!(
        e,
        "[DIR]/adsl.ndjson: `records` is 3 but the file has 2 rows; expected one row per \
         record (is the file cut short?)"
    );
    let meta = META.replace("\"records\":3", "\"records\":0");
    let e = error_of("adsl.json", &json_file(&meta, &[]));
    assert!(e.contains("no rows"), "{e}");
}

#[test]
fn a_bad_file_stops_the_build_with_its_error() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = [ROWS[0], r#"["S2", "70", "2021-02-01"]"#, ROWS[2]];
    std::fs::write(tmp.path().join("adsl.ndjson"), ndjson(META, &rows)).unwrap();
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: BAD }\ndata: { adsl: adsl.ndjson }\ncohorts:\n  - { id: all }\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let assert = build_quietly(&out, &config).code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert!(
        stderr.contains("adsl.ndjson: row 2 (line 3), column `AGE`: `\"70\"` is a string"),
        "{stderr}"
    );
    assert!(!out.join("BAD").exists());
}

// ---------------------------------------------------------------------------------------------
// The derived datasets written as Dataset-JSON.

/// The keys a schema object requires, and whether it allows others.
fn required(schema: &Value) -> (Vec<String>, Vec<String>) {
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let properties = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    (list(&schema["required"]), properties)
}

#[test]
fn derived_datasets_are_written_as_dataset_json_and_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let config = std::fs::read_to_string(root().join("config/altn-ak105-ii-01.yaml")).unwrap();
    let config = config
        .replace(
            "formats: [md, html, pptx, png]",
            "formats: [md, dataset-json]",
        )
        .replace(
            "../data/altn-ak105-ii-01",
            &root().join("data/altn-ak105-ii-01").display().to_string(),
        );
    let yaml = tmp.path().join("study.yaml");
    std::fs::write(&yaml, config).unwrap();
    let out = tmp.path().join("out");
    build_quietly(&out, &yaml).success();
    let folder = out.join("ALTN-AK105-II-01/2022-01-06");
    let json_path = folder.join("derived/cohort-1.json");
    let csv = CsvTable::read(&folder.join("derived/cohort-1.csv")).unwrap();
    let json = CsvTable::read(&json_path).unwrap();
    // The same columns and cells as the derived CSV.
    assert_eq!(json.headers(), csv.headers());
    assert_eq!(cells(&json), cells(&csv));
    assert_eq!(json.len(), 38);

    let text = std::fs::read_to_string(&json_path).unwrap();
    let dataset: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(dataset["datasetJSONVersion"], "1.1.0");
    assert_eq!(
        dataset["datasetJSONCreationDateTime"],
        "2022-01-06T00:00:00"
    );
    assert_eq!(dataset["studyOID"], "ALTN-AK105-II-01");
    assert_eq!(dataset["name"], "COHORT_1");
    assert_eq!(dataset["records"], 38);
    let columns = dataset["columns"].as_array().unwrap();
    let column = |name: &str| columns.iter().find(|c| c["name"] == name).unwrap();
    assert_eq!(column("USUBJID")["dataType"], "string");
    assert_eq!(column("USUBJID")["keySequence"], 1);
    assert_eq!(column("PFS_AVAL")["dataType"], "double");
    assert!(column("PFS_AVAL")["label"]
        .as_str()
        .unwrap()
        .contains("(months)"));
    assert_eq!(column("PFS_CNSR")["dataType"], "integer");
    assert_eq!(column("BOR_DATE")["dataType"], "date");
    assert_eq!(column("BOR_DATE")["targetDataType"], "integer");
    // Every row has one value per column, each of its column's JSON type.
    for row in dataset["rows"].as_array().unwrap() {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), columns.len());
        for (value, column) in row.iter().zip(columns) {
            let ok = match column["dataType"].as_str().unwrap() {
                _ if value.is_null() => true,
                "string" | "date" => value.is_string(),
                "integer" => value.is_i64() || value.is_u64(),
                "double" => value.is_number(),
                other => panic!("unexpected dataType {other}"),
            };
            assert!(ok, "{value} in {}", column["name"]);
        }
    }
}

/// The derived dataset has the schema's required keys, and no others, at the top and in each
/// column.
#[test]
#[ignore = "needs ../shared/reference/datasetjson"]
fn derived_dataset_json_has_the_keys_of_the_published_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let config = std::fs::read_to_string(root().join("config/altn-ak105-ii-01.yaml")).unwrap();
    let config = config
        .replace(
            "formats: [md, html, pptx, png]",
            "formats: [md, dataset-json]",
        )
        .replace(
            "../data/altn-ak105-ii-01",
            &root().join("data/altn-ak105-ii-01").display().to_string(),
        );
    let yaml = tmp.path().join("study.yaml");
    std::fs::write(&yaml, config).unwrap();
    let out = tmp.path().join("out");
    build_quietly(&out, &yaml).success();
    let folder = out.join("ALTN-AK105-II-01/2022-01-06");
    let json_path = folder.join("derived/cohort-1.json");
    let csv = CsvTable::read(&folder.join("derived/cohort-1.csv")).unwrap();
    let json = CsvTable::read(&json_path).unwrap();
    // The same columns and cells as the derived CSV.
    assert_eq!(json.headers(), csv.headers());
    assert_eq!(cells(&json), cells(&csv));
    assert_eq!(json.len(), 38);

    let text = std::fs::read_to_string(&json_path).unwrap();
    let dataset: Value = serde_json::from_str(&text).unwrap();
    let columns = dataset["columns"].as_array().unwrap();
    // The schema's required keys, and no others, at the top and in each column.
    let reference = datasetjson_reference();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(reference.join("spec/dataset.schema.json")).unwrap(),
    )
    .unwrap();
    let (top, allowed) = required(&schema);
    let object = dataset.as_object().unwrap();
    for key in &top {
        assert!(object.contains_key(key), "missing required `{key}`");
    }
    for key in object.keys() {
        assert!(allowed.contains(key), "`{key}` is not in the schema");
    }
    let (column_keys, column_allowed) = required(&schema["$defs"]["Column"]);
    let types: Vec<&str> = schema["$defs"]["DataTypesEnum"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for c in columns {
        for key in &column_keys {
            assert!(c.get(key).is_some(), "column {c} lacks `{key}`");
        }
        for key in c.as_object().unwrap().keys() {
            assert!(
                column_allowed.contains(key),
                "`{key}` is not a column attribute"
            );
        }
        assert!(types.contains(&c["dataType"].as_str().unwrap()));
    }
    let (source_keys, _) = required(&schema["$defs"]["SourceSystem"]);
    for key in source_keys {
        assert!(dataset["sourceSystem"].get(&key).is_some());
    }
}

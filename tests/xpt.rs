//! SAS transport (XPORT v5) input: files written here by a small writer that follows SAS
//! technical note TS-140 (IBM floating point, 80-byte records, namestrs), read through the same
//! loaders as the CSV of the same data, which must give the same cells and the same typed
//! tables. Edge cases: missing values `.`, `.A`–`.Z`, `._`; character columns up to 200 bytes;
//! 8-byte and short (2–7 byte) numerics; negative dates; datetimes and times; padding of the
//! last record; malformed files (never a panic, always the byte offset). The real CDISC pilot
//! `.xpt` files are compared with their CSV conversions cell by cell when they are present.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{NaiveDate, NaiveDateTime};
use proptest::prelude::*;
use readout::load::{read_adae, read_adsl, read_adtte, CsvTable};

// ---------------------------------------------------------------------------------------------
// A transport writer, independent of the reader (TS-140).

/// How a test column is stored and what its cells mean.
#[derive(Clone, Copy)]
enum Kind {
    /// Character, this many bytes.
    Char(usize),
    /// Numeric of this many bytes (2–8), with this display format (`""`, `DATE`, ...).
    Num(usize, &'static str),
}

struct Column {
    name: &'static str,
    kind: Kind,
}

/// A cell as the CSV conversion writes it; numeric cells are parsed by the format: a plain
/// number, `YYYY-MM-DD` for date formats, `YYYY-MM-DDTHH:MM:SS` for datetimes, `HH:MM:SS` for
/// times. `Missing(code)` is a SAS special missing value, an empty cell in CSV.
#[derive(Clone)]
enum Cell {
    Text(&'static str),
    Missing(u8),
    /// Raw bytes for a character column (e.g. Latin-1), with the CSV text they stand for.
    Bytes(&'static [u8], &'static str),
}

use Cell::{Bytes, Missing, Text};

fn epoch() -> NaiveDate {
    NaiveDate::from_ymd_opt(1960, 1, 1).unwrap()
}

/// The SAS value of a numeric cell under a display format.
fn sas_number(text: &str, format: &str) -> f64 {
    match format {
        "DATE" | "YYMMDD" | "E8601DA" => {
            let d = NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test date");
            (d - epoch()).num_days() as f64
        }
        "DATETIME" | "E8601DT" => {
            let t = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").expect("datetime");
            (t - epoch().and_hms_opt(0, 0, 0).unwrap()).num_seconds() as f64
        }
        "TIME" => {
            let parts: Vec<f64> = text.split(':').map(|p| p.parse().unwrap()).collect();
            parts[0] * 3600.0 + parts[1] * 60.0 + parts[2]
        }
        _ => text.parse().expect("test number"),
    }
}

/// IEEE double → IBM System/360 double (8 bytes). Exact for every double in IBM's range: the
/// 53-bit significand fits the 56-bit fraction whatever the base-16 normalisation shift.
fn ibm(x: f64) -> [u8; 8] {
    if x == 0.0 {
        return [0; 8];
    }
    let sign: u8 = if x < 0.0 { 0x80 } else { 0 };
    let mut m = x.abs();
    let mut exponent: i32 = 64;
    while m >= 1.0 {
        m /= 16.0;
        exponent += 1;
    }
    while m < 1.0 / 16.0 {
        m *= 16.0;
        exponent -= 1;
    }
    assert!((0..128).contains(&exponent), "{x} is outside IBM's range");
    let fraction = m * 2f64.powi(56);
    assert_eq!(fraction.fract(), 0.0, "{x} is not exact");
    let fraction = fraction as u64;
    let mut out = [0u8; 8];
    out[0] = sign | exponent as u8;
    out[1..].copy_from_slice(&fraction.to_be_bytes()[1..]);
    out
}

fn pad(text: &[u8], len: usize) -> Vec<u8> {
    let mut v = text.to_vec();
    assert!(
        v.len() <= len,
        "{:?} is longer than {len}",
        String::from_utf8_lossy(text)
    );
    v.resize(len, b' ');
    v
}

fn pad_record(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(80) {
        out.push(b' ');
    }
}

/// One member (dataset): member header, descriptor, namestrs, observations.
fn write_member(out: &mut Vec<u8>, dataset: &str, columns: &[Column], rows: &[Vec<Cell>]) {
    let stamp = b"15OCT12:22:56:22";
    out.extend(pad(
        b"HEADER RECORD*******MEMBER  HEADER RECORD!!!!!!!000000000000000001600000000140",
        80,
    ));
    out.extend(pad(
        b"HEADER RECORD*******DSCRPTR HEADER RECORD!!!!!!!000000000000000000000000000000",
        80,
    ));
    let mut rec = b"SAS     ".to_vec();
    rec.extend(pad(dataset.as_bytes(), 8));
    rec.extend(b"SASDATA 9.4     X64_7PRO");
    rec.extend(pad(b"", 24));
    rec.extend(stamp);
    out.extend(rec);
    let mut rec = stamp.to_vec();
    rec.extend(pad(b"", 16));
    rec.extend(pad(b"A test dataset", 40));
    rec.extend(pad(b"", 8));
    out.extend(rec);
    out.extend(pad(
        format!(
            "HEADER RECORD*******NAMESTR HEADER RECORD!!!!!!!000000{:04}00000000000000000000",
            columns.len()
        )
        .as_bytes(),
        80,
    ));
    let mut position = 0u32;
    for (i, c) in columns.iter().enumerate() {
        let (ntype, len, format): (u16, usize, &str) = match c.kind {
            Kind::Char(n) => (2, n, ""),
            Kind::Num(n, f) => (1, n, f),
        };
        let mut ns = Vec::with_capacity(140);
        ns.extend(ntype.to_be_bytes());
        ns.extend(0u16.to_be_bytes());
        ns.extend((len as u16).to_be_bytes());
        ns.extend((i as u16 + 1).to_be_bytes());
        ns.extend(pad(c.name.as_bytes(), 8));
        ns.extend(pad(format!("Label of {}", c.name).as_bytes(), 40));
        ns.extend(pad(format.as_bytes(), 8));
        let width: u16 = if format.is_empty() { 0 } else { 10 };
        ns.extend(width.to_be_bytes()); // nfl
        ns.extend(0u16.to_be_bytes()); // nfd
        ns.extend(0u16.to_be_bytes()); // nfj
        ns.extend([0u8; 2]); // nfill
        ns.extend(pad(b"", 8)); // niform
        ns.extend(0u16.to_be_bytes());
        ns.extend(0u16.to_be_bytes());
        ns.extend(position.to_be_bytes());
        ns.extend([0u8; 52]);
        assert_eq!(ns.len(), 140);
        out.extend(ns);
        position += len as u32;
    }
    pad_record(out);
    out.extend(pad(
        b"HEADER RECORD*******OBS     HEADER RECORD!!!!!!!000000000000000000000000000000",
        80,
    ));
    for row in rows {
        assert_eq!(row.len(), columns.len());
        for (c, cell) in columns.iter().zip(row) {
            match (c.kind, cell) {
                (Kind::Char(n), Text(t)) => out.extend(pad(t.as_bytes(), n)),
                (Kind::Char(n), Bytes(b, _)) => out.extend(pad(b, n)),
                (Kind::Char(n), Missing(_)) => out.extend(pad(b"", n)),
                (Kind::Num(n, f), Text(t)) => out.extend(&ibm(sas_number(t, f))[..n]),
                (Kind::Num(n, _), Missing(code)) => {
                    let mut v = vec![0u8; n];
                    v[0] = *code;
                    out.extend(v);
                }
                (Kind::Num(..), Bytes(..)) => panic!("bytes in a numeric column"),
            }
        }
    }
    pad_record(out);
}

fn library_header() -> Vec<u8> {
    let mut out = pad(
        b"HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!000000000000000000000000000000",
        80,
    );
    let mut rec = b"SAS     SAS     SASLIB  9.4     X64_7PRO".to_vec();
    rec.extend(pad(b"", 24));
    rec.extend(b"15OCT12:22:56:22");
    out.extend(rec);
    out.extend(pad(b"15OCT12:22:56:22", 80));
    out
}

fn write_xpt(dataset: &str, columns: &[Column], rows: &[Vec<Cell>]) -> Vec<u8> {
    let mut out = library_header();
    write_member(&mut out, dataset, columns, rows);
    out
}

/// The CSV conversion of the same data: quoted strings, empty cells for missing values.
fn write_csv(columns: &[Column], rows: &[Vec<Cell>]) -> String {
    let mut out = columns
        .iter()
        .map(|c| format!("\"{}\"", c.name))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in rows {
        let cells: Vec<String> = columns
            .iter()
            .zip(row)
            .map(|(c, cell)| match (c.kind, cell) {
                (Kind::Char(_), Text(t)) => format!("\"{}\"", t.replace('"', "\"\"")),
                (Kind::Char(_), Bytes(_, t)) => format!("\"{t}\""),
                (Kind::Num(..), Text(t)) => t.to_string(),
                (_, Missing(_)) => String::new(),
                (Kind::Num(..), Bytes(..)) => unreachable!(),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// Writes `name.xpt` and `name.csv` into `dir` and reads both.
fn both(dir: &Path, name: &str, columns: &[Column], rows: &[Vec<Cell>]) -> (CsvTable, CsvTable) {
    let xpt = dir.join(format!("{name}.xpt"));
    let csv = dir.join(format!("{name}.csv"));
    std::fs::write(&xpt, write_xpt(&name.to_uppercase(), columns, rows)).unwrap();
    std::fs::write(&csv, write_csv(columns, rows)).unwrap();
    (
        CsvTable::read(&xpt).expect("xpt reads"),
        CsvTable::read(&csv).expect("csv reads"),
    )
}

/// Every cell of two tables, with the header.
fn cells(table: &CsvTable) -> Vec<Vec<String>> {
    let mut out = vec![table.headers().to_vec()];
    for r in 0..table.len() {
        out.push(
            (0..table.headers().len())
                .map(|i| table.cell_text(r, i).unwrap().to_string())
                .collect(),
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Test data: an ADSL, an ADTTE and an ADAE with the awkward cases.

fn adsl_columns() -> Vec<Column> {
    vec![
        Column {
            name: "STUDYID",
            kind: Kind::Char(12),
        },
        Column {
            name: "USUBJID",
            kind: Kind::Char(11),
        },
        Column {
            name: "AGE",
            kind: Kind::Num(8, ""),
        },
        Column {
            name: "SEX",
            kind: Kind::Char(1),
        },
        Column {
            name: "TRT01A",
            kind: Kind::Char(20),
        },
        Column {
            name: "TRTSDT",
            kind: Kind::Num(4, "DATE"),
        },
        Column {
            name: "TRTEDT",
            kind: Kind::Num(8, "YYMMDD"),
        },
        Column {
            name: "DTHDT",
            kind: Kind::Num(8, "E8601DA"),
        },
        Column {
            name: "BRTHDT",
            kind: Kind::Num(8, "DATE"),
        },
        Column {
            name: "RANDDTM",
            kind: Kind::Num(8, "DATETIME"),
        },
        Column {
            name: "RANDTM",
            kind: Kind::Num(8, "TIME"),
        },
        Column {
            name: "SAFFL",
            kind: Kind::Char(1),
        },
        Column {
            name: "EFFFL",
            kind: Kind::Char(1),
        },
        Column {
            name: "WEIGHTBL",
            kind: Kind::Num(8, ""),
        },
        Column {
            name: "SCORE2",
            kind: Kind::Num(2, ""),
        },
        Column {
            name: "SCORE3",
            kind: Kind::Num(3, ""),
        },
        Column {
            name: "SCORE5",
            kind: Kind::Num(5, ""),
        },
        Column {
            name: "SCORE7",
            kind: Kind::Num(7, ""),
        },
        Column {
            name: "COMMENT",
            kind: Kind::Char(200),
        },
        Column {
            name: "SITENAME",
            kind: Kind::Char(16),
        },
    ]
}

fn long_text() -> &'static str {
    // 200 bytes exactly, ending in a non-blank, with inner runs of blanks.
    "Subject   withdrew consent after the second cycle; investigator notes that the patient moved abroad. Follow-up by telephone   continued. Last contact recorded in the eCRF; no further data expected...E"
}

fn adsl_rows() -> Vec<Vec<Cell>> {
    assert_eq!(long_text().len(), 200);
    vec![
        vec![
            Text("CDISCPILOT01"),
            Text("01-701-1015"),
            Text("63"),
            Text("F"),
            Text("Placebo"),
            Text("2014-01-02"),
            Text("2014-07-02"),
            Missing(b'.'),
            Text("1950-06-30"),
            Text("2014-01-02T09:30:00"),
            Text("09:30:00"),
            Text("Y"),
            Text("Y"),
            Text("54.4"),
            Text("3"),
            Text("255"),
            Text("1048575"),
            Text("123456789"),
            Text(long_text()),
            Bytes(b"H\xf4pital Nord", "Hôpital Nord"),
        ],
        vec![
            Text("CDISCPILOT01"),
            Text("01-701-1023"),
            Text("64"),
            Text("M"),
            Text("Xanomeline High Dose"),
            Text("2012-08-05"),
            Text("2012-09-01"),
            Text("2012-09-15"),
            Text("1901-01-01"),
            Text("1959-12-31T23:59:59"),
            Text("00:00:00"),
            Text("Y"),
            Text("N"),
            Missing(b'A'),
            Text("0.5"),
            Text("-1"),
            Text("0.0999908447265625"),
            Text("-0.125"),
            Text("short"),
            Text("Clínica Ñ"),
        ],
        vec![
            Text("CDISCPILOT01"),
            Text("01-701-1028"),
            Text("71"),
            Text("M"),
            Text("Xanomeline Low Dose"),
            Text("1959-12-31"),
            Missing(b'Z'),
            Missing(b'_'),
            Text("1582-10-15"),
            Text("2099-12-31T23:59:59"),
            Missing(b'.'),
            Text("Y"),
            Missing(b'.'),
            Text("-0.000001"),
            Missing(b'.'),
            Missing(b'B'),
            Missing(b'.'),
            Missing(b'_'),
            Missing(b'.'),
            Missing(b'.'),
        ],
    ]
}

fn adtte_columns() -> Vec<Column> {
    vec![
        Column {
            name: "USUBJID",
            kind: Kind::Char(11),
        },
        Column {
            name: "PARAMCD",
            kind: Kind::Char(8),
        },
        Column {
            name: "PARAM",
            kind: Kind::Char(200),
        },
        Column {
            name: "AVAL",
            kind: Kind::Num(8, ""),
        },
        Column {
            name: "AVALU",
            kind: Kind::Char(4),
        },
        Column {
            name: "CNSR",
            kind: Kind::Num(3, ""),
        },
        Column {
            name: "STARTDT",
            kind: Kind::Num(4, "DATE"),
        },
        Column {
            name: "ADT",
            kind: Kind::Num(8, "E8601DA"),
        },
    ]
}

fn adtte_rows() -> Vec<Vec<Cell>> {
    vec![
        vec![
            Text("01-701-1015"),
            Text("TTDE"),
            Text("Time to First Dermatologic Event"),
            Text("2"),
            Text("DAYS"),
            Text("0"),
            Text("2014-01-02"),
            Text("2014-01-03"),
        ],
        vec![
            Text("01-701-1023"),
            Text("TTDE"),
            Text("Time to First Dermatologic Event"),
            Text("28.5"),
            Text("DAYS"),
            Text("1"),
            Text("2012-08-05"),
            Text("2012-09-01"),
        ],
        vec![
            Text("01-701-1028"),
            Text("TTDE"),
            Text("Time to First Dermatologic Event"),
            Text("1"),
            Text("DAYS"),
            Text("2"),
            Text("1959-12-31"),
            Text("1959-12-31"),
        ],
    ]
}

fn adae_columns() -> Vec<Column> {
    vec![
        Column {
            name: "USUBJID",
            kind: Kind::Char(11),
        },
        Column {
            name: "TRTA",
            kind: Kind::Char(20),
        },
        Column {
            name: "AEDECOD",
            kind: Kind::Char(200),
        },
        Column {
            name: "AEBODSYS",
            kind: Kind::Char(67),
        },
        Column {
            name: "AESEV",
            kind: Kind::Char(8),
        },
        Column {
            name: "AEREL",
            kind: Kind::Char(8),
        },
        Column {
            name: "AESER",
            kind: Kind::Char(1),
        },
        Column {
            name: "ASTDT",
            kind: Kind::Num(8, "DATE"),
        },
        Column {
            name: "ASTDY",
            kind: Kind::Num(8, ""),
        },
        Column {
            name: "TRTEMFL",
            kind: Kind::Char(1),
        },
    ]
}

fn adae_rows() -> Vec<Vec<Cell>> {
    vec![
        vec![
            Text("01-701-1015"),
            Text("Placebo"),
            Text("APPLICATION SITE ERYTHEMA"),
            Text("GENERAL DISORDERS AND ADMINISTRATION SITE CONDITIONS"),
            Text("MILD"),
            Text("PROBABLE"),
            Text("N"),
            Text("2014-01-03"),
            Text("2"),
            Text("Y"),
        ],
        vec![
            Text("01-701-1023"),
            Text("Xanomeline High Dose"),
            Text(long_text()),
            Text("SKIN AND SUBCUTANEOUS TISSUE DISORDERS"),
            Text("SEVERE"),
            Text("NONE"),
            Text("Y"),
            Missing(b'.'),
            Missing(b'.'),
            Text("Y"),
        ],
        vec![
            Text("01-701-1028"),
            Text("Xanomeline Low Dose"),
            Text("ERYTHEMA"),
            Text("SKIN AND SUBCUTANEOUS TISSUE DISORDERS"),
            Text("MODERATE"),
            Missing(b'.'),
            Text("N"),
            Text("1959-12-31"),
            Text("-3"),
            Text("N"),
        ],
    ]
}

// ---------------------------------------------------------------------------------------------

#[test]
fn xpt_cells_equal_the_csv_of_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    for (name, columns, rows) in [
        ("adsl", adsl_columns(), adsl_rows()),
        ("adtte", adtte_columns(), adtte_rows()),
        ("adae", adae_columns(), adae_rows()),
    ] {
        let (xpt, csv) = both(dir.path(), name, &columns, &rows);
        assert_eq!(cells(&xpt), cells(&csv), "{name}");
    }
}

#[test]
fn xpt_cells_spell_out_the_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    let (xpt, _) = both(dir.path(), "adsl", &adsl_columns(), &adsl_rows());
    let c = cells(&xpt);
    let col = |name: &str| c[0].iter().position(|h| h == name).unwrap();
    // Missing numerics of every kind are empty; a 4-byte date reads as the date.
    assert_eq!(c[1][col("DTHDT")], "");
    assert_eq!(c[2][col("WEIGHTBL")], "");
    assert_eq!(c[3][col("TRTEDT")], "");
    assert_eq!(c[3][col("DTHDT")], "");
    assert_eq!(c[1][col("TRTSDT")], "2014-01-02");
    // Negative dates (before 1960), down to the Gregorian calendar's first day.
    assert_eq!(c[2][col("BRTHDT")], "1901-01-01");
    assert_eq!(c[3][col("TRTSDT")], "1959-12-31");
    assert_eq!(c[3][col("BRTHDT")], "1582-10-15");
    assert_eq!(c[2][col("RANDDTM")], "1959-12-31T23:59:59");
    assert_eq!(c[1][col("RANDTM")], "09:30:00");
    // Short numerics.
    assert_eq!(c[1][col("SCORE2")], "3");
    assert_eq!(c[2][col("SCORE2")], "0.5");
    assert_eq!(c[1][col("SCORE5")], "1048575");
    assert_eq!(c[2][col("SCORE7")], "-0.125");
    // A 200-byte value keeps its inner blanks; Latin-1 text becomes UTF-8.
    assert_eq!(c[1][col("COMMENT")], long_text());
    assert_eq!(c[2][col("COMMENT")], "short");
    assert_eq!(c[1][col("SITENAME")], "Hôpital Nord");
}

#[test]
fn xpt_and_csv_give_the_same_typed_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (adsl_x, adsl_c) = both(dir.path(), "adsl", &adsl_columns(), &adsl_rows());
    let subjects_x = read_adsl(&adsl_x, None).unwrap();
    let subjects_c = read_adsl(&adsl_c, None).unwrap();
    assert_eq!(subjects_x, subjects_c);
    assert_eq!(subjects_x.len(), 3);
    assert_eq!(subjects_x[0].trt_start, NaiveDate::from_ymd_opt(2014, 1, 2));
    assert_eq!(
        subjects_x[2].trt_start,
        NaiveDate::from_ymd_opt(1959, 12, 31)
    );
    assert_eq!(subjects_x[0].death, None);
    assert!(!subjects_x[1].efficacy && !subjects_x[2].efficacy);
    // `data.efficacy_flag` picks another column.
    let by_saf = read_adsl(&adsl_x, Some("SAFFL")).unwrap();
    assert!(by_saf.iter().all(|s| s.efficacy));
    let err = read_adsl(&adsl_x, Some("FASFL")).unwrap_err().to_string();
    assert!(
        err.contains("`FASFL`") && err.contains("data.efficacy_flag"),
        "{err}"
    );

    // The loaders' set type (its hasher) is theirs to choose: infer it.
    let known: readout::load::KnownSubjects<'_> =
        subjects_x.iter().map(|s| s.usubjid.as_ref()).collect();
    let (tte_x, tte_c) = both(dir.path(), "adtte", &adtte_columns(), &adtte_rows());
    let tte = read_adtte(&tte_x, &known).unwrap();
    let tte_csv = read_adtte(&tte_c, &known).unwrap();
    // Records keep where they came from: observation numbers in XPT, lines in CSV.
    assert_eq!(tte.params, tte_csv.params);
    assert_eq!(
        tte.records.iter().map(|r| r.line).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(
        tte_csv.records.iter().map(|r| r.line).collect::<Vec<_>>(),
        [2, 3, 4]
    );
    let without_line = |records: &[readout::model::TteRecord]| {
        records
            .iter()
            .cloned()
            .map(|mut r| {
                r.line = 0;
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(without_line(&tte.records), without_line(&tte_csv.records));
    assert_eq!(tte.records[1].days, 28.5);
    assert_eq!(tte.records[2].cnsr, 2);

    let related: HashSet<String, _> = ["Y", "RELATED", "PROBABLE", "POSSIBLE"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (ae_x, ae_c) = both(dir.path(), "adae", &adae_columns(), &adae_rows());
    let (mut w1, mut w2) = (Vec::new(), Vec::new());
    let (events, _) = read_adae(&ae_x, &known, &related, &mut w1).unwrap();
    assert_eq!(
        events,
        read_adae(&ae_c, &known, &related, &mut w2).unwrap().0
    );
    assert_eq!(
        events.iter().map(|e| e.grade).collect::<Vec<_>>(),
        [Some(1), Some(3), Some(2)]
    );
    assert_eq!(
        events.iter().map(|e| e.emergent).collect::<Vec<_>>(),
        [true, true, false]
    );
    assert_eq!(events[1].term, long_text());
    assert_eq!(events[1].start, None);
}

#[test]
fn short_observations_and_the_blank_padding_of_the_last_record() {
    // 8-byte observations: 3 of them leave 56 blank bytes, which are not 7 more observations;
    // an empty value in the middle is a real (blank) observation.
    let columns = [Column {
        name: "X",
        kind: Kind::Char(8),
    }];
    let rows = vec![vec![Text("A")], vec![Text("")], vec![Text("B")]];
    let bytes = write_xpt("T", &columns, &rows);
    assert_eq!(bytes.len() % 80, 0);
    let t = readout::load::xpt::parse(&bytes).unwrap();
    assert_eq!(
        (0..t.len()).map(|r| t.row(r)).collect::<Vec<_>>(),
        [["A"], [""], ["B"]]
    );
    // Exactly 80 bytes of data: no padding at all.
    let rows: Vec<Vec<Cell>> = (0..10).map(|_| vec![Text("Z")]).collect();
    let t = readout::load::xpt::parse(&write_xpt("T", &columns, &rows)).unwrap();
    assert_eq!(t.len(), 10);
    // A numeric observation of 3 bytes: 26 observations fill 78 bytes of the first record.
    let columns = [Column {
        name: "N",
        kind: Kind::Num(3, ""),
    }];
    let rows: Vec<Vec<Cell>> = (0..26).map(|_| vec![Missing(b'.')]).collect();
    let t = readout::load::xpt::parse(&write_xpt("T", &columns, &rows)).unwrap();
    assert_eq!(t.len(), 26);
    assert!((0..t.len()).all(|r| t.row(r)[0].is_empty()));
    // Long observations (200 + 8 bytes) across record boundaries.
    let columns = [
        Column {
            name: "C",
            kind: Kind::Char(200),
        },
        Column {
            name: "N",
            kind: Kind::Num(8, ""),
        },
    ];
    let rows: Vec<Vec<Cell>> = (0..5)
        .map(|_| vec![Text(long_text()), Text("1.5")])
        .collect();
    let t = readout::load::xpt::parse(&write_xpt("T", &columns, &rows)).unwrap();
    assert_eq!(t.len(), 5);
    assert_eq!(t.row(4), [long_text(), "1.5"]);
}

#[test]
fn variables_carry_name_label_type_length_and_format() {
    let t = readout::load::xpt::parse(&write_xpt("ADSL", &adsl_columns(), &adsl_rows())).unwrap();
    assert_eq!(t.dataset, "ADSL");
    assert_eq!(t.label, "A test dataset");
    let v = &t.variables[5];
    assert_eq!(v.name, "TRTSDT");
    assert_eq!(v.label, "Label of TRTSDT");
    assert_eq!(v.length, 4);
    assert_eq!(v.format, "DATE");
    assert_eq!(v.meaning, readout::load::xpt::NumericMeaning::Date);
    assert_eq!(
        t.variables[9].meaning,
        readout::load::xpt::NumericMeaning::DateTime
    );
    assert_eq!(
        t.variables[2].meaning,
        readout::load::xpt::NumericMeaning::Number
    );
}

/// A path with the temp folder replaced, for snapshots.
fn message(err: readout::Error, dir: &Path) -> String {
    err.to_string().replace(&dir.display().to_string(), "<dir>")
}

#[test]
fn malformed_files_name_the_byte_and_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let read = |name: &str, bytes: &[u8]| -> String {
        let path: PathBuf = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        message(CsvTable::read(&path).map(|_| ()).unwrap_err(), dir.path())
    };
    // A CSV file saved with the wrong extension.
    let err = read("csv.xpt", b"USUBJID,AGE\n01-701-1015,63\n");
    insta::assert_snapshot!("xpt_not_transport", err);

    let good = write_xpt("ADSL", &adsl_columns(), &adsl_rows());
    // Cut inside the namestrs.
    let err = read("cut.xpt", &good[..720]);
    assert!(err.contains("byte 640 (record 9)"), "{err}");
    insta::assert_snapshot!("xpt_truncated_namestr", err);
    // Cut inside an observation (not on blank padding).
    let obs_start = good.len() - 80 * 5;
    let err = read("cut2.xpt", &good[..obs_start + 80]);
    assert!(err.contains("cut short"), "{err}");
    // Cut anywhere else than at a record boundary.
    let err = read("cut3.xpt", &good[..good.len() - 7]);
    assert!(
        err.contains("not a whole number of 80-byte records"),
        "{err}"
    );

    // A variable of type 3.
    let mut bad = good.clone();
    let first_namestr = 80 * 8;
    bad[first_namestr + 1] = 3;
    let err = read("type.xpt", &bad);
    insta::assert_snapshot!("xpt_bad_type", err);

    // A date far outside what SAS can show.
    let columns = [Column {
        name: "ADT",
        kind: Kind::Num(8, "DATE"),
    }];
    let mut bytes = write_xpt("T", &columns, &[vec![Text("2014-01-01")]]);
    let at = bytes.len() - 80;
    bytes[at..at + 8].copy_from_slice(&ibm(1e12));
    let err = read("date.xpt", &bytes);
    assert!(err.contains("observation 1, variable `ADT`"), "{err}");
    assert!(err.contains(&format!("byte {at} ")), "{err}");

    // No observations at all: like a CSV with a header only.
    let err = read("empty.xpt", &write_xpt("T", &columns, &[]));
    assert!(err.contains("no observations"), "{err}");

    // Two datasets in one file.
    let mut two = write_xpt("ADSL", &adsl_columns(), &adsl_rows());
    write_member(&mut two, "ADAE", &adae_columns(), &adae_rows());
    let err = read("two.xpt", &two);
    assert!(err.contains("2 datasets (ADSL, ADAE)"), "{err}");

    // Transport v8.
    let mut v8 = b"HEADER RECORD*******LIBV8   HEADER RECORD!!!!!!!".to_vec();
    v8.resize(240, b' ');
    let err = read("v8.xpt", &v8);
    assert!(err.contains("version 8"), "{err}");
}

/// A file of one-byte observations (issue 28: a 50 MB one was held at 70 times its size, one
/// `String` per cell) is held as one text with a start and end per cell: every cell's text
/// once, nothing else per cell.
#[test]
fn short_observations_are_held_as_one_text() {
    let columns = [Column {
        name: "X",
        kind: Kind::Char(1),
    }];
    let n = 100_000;
    let rows: Vec<Vec<Cell>> = (0..n)
        // The last observation is not blank: blank ones at the end read as the padding.
        .map(|i| vec![if i % 2 == 1 { Text("A") } else { Text("") }])
        .collect();
    let t = readout::load::xpt::parse(&write_xpt("T", &columns, &rows)).unwrap();
    assert_eq!(t.len(), n);
    assert_eq!(t.spans.len(), n);
    assert_eq!(t.text.len(), n / 2);
    assert_eq!(
        (t.row(0), t.row(1), t.row(n - 1)),
        (vec![""], vec!["A"], vec!["A"])
    );
}

#[test]
fn every_truncation_is_an_error_never_a_panic_or_fewer_rows() {
    let good = write_xpt("ADAE", &adae_columns(), &adae_rows());
    for len in 0..good.len() {
        if let Ok(t) = readout::load::xpt::parse(&good[..len]) {
            // Cut right after the observation header, it is an empty dataset (which the loader
            // refuses); a cut in the data is an error, not fewer rows.
            assert!(t.is_empty(), "cut at {len}");
        }
    }
}

#[test]
#[ignore = "needs ../shared/reference/adam/cdiscpilot01"]
fn the_pilot_xpt_files_equal_their_csv_conversions_cell_by_cell() {
    let dir = crate::common::shared_reference("adam/cdiscpilot01");
    for name in ["adsl", "adae", "adtte"] {
        let xpt = CsvTable::read(&dir.join(format!("{name}.xpt"))).unwrap();
        let csv = CsvTable::read(&dir.join(format!("{name}.csv"))).unwrap();
        let (x, c) = (cells(&xpt), cells(&csv));
        assert_eq!(x.len(), c.len(), "{name}: rows");
        for (i, (rx, rc)) in x.iter().zip(&c).enumerate() {
            assert_eq!(rx, rc, "{name}: row {i}");
        }
    }
}

proptest! {
    #[test]
    fn any_double_in_ibm_range_reads_back_exactly(
        mantissa in 1u64..(1u64 << 53),
        exponent in -250i32..240,
        negative in any::<bool>(),
    ) {
        let x = (mantissa as f64) * 2f64.powi(exponent - 52) * if negative { -1.0 } else { 1.0 };
        // A short mantissa with the lowest exponents falls below IBM's smallest, 16^-65.
        prop_assume!(x.abs() >= 2f64.powi(-260));
        prop_assert_eq!(readout::load::xpt::ibm_to_f64(&ibm(x)), Some(x));
    }

    #[test]
    fn corrupted_files_never_panic(flips in prop::collection::vec((0usize..2000, any::<u8>()), 1..8)) {
        let mut bytes = write_xpt("ADAE", &adae_columns(), &adae_rows());
        for (at, value) in flips {
            let n = bytes.len();
            bytes[at % n] = value;
        }
        let _ = readout::load::xpt::parse(&bytes);
    }
}

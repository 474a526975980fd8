//! SAS datasets (`.sas7bdat`) through the `sas7bdat` crate: fixtures written by ReadStat
//! (`tests/fixtures/sas7bdat/make_fixtures.c`, which also writes the expected cells as CSV),
//! uncompressed and with SAS's run-length row compression, read through the same loaders as
//! the CSV.

use std::path::{Path, PathBuf};

use readout::load::{read_adsl, CsvTable};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sas7bdat")
        .join(name)
}

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

#[test]
fn sas7bdat_plain_and_compressed_equal_the_csv_cell_by_cell() {
    let csv = CsvTable::read(&fixture("adsl.csv")).unwrap();
    for name in ["adsl_plain.sas7bdat", "adsl_rle.sas7bdat"] {
        let sas = CsvTable::read(&fixture(name)).unwrap();
        assert_eq!(cells(&sas), cells(&csv), "{name}");
        assert_eq!(
            read_adsl(&sas, None).unwrap(),
            read_adsl(&csv, None).unwrap()
        );
    }
    let c = cells(&csv);
    assert_eq!(c.len(), 41);
    // What the fixture covers: missing numbers, negative dates, datetimes, long text.
    assert!(c.iter().any(|r| r[1].is_empty()));
    assert!(c.iter().skip(1).any(|r| r[5].as_str() < "1960-01-01"));
    assert_eq!(c[1][7], "2011-12-31T00:00:00");
    assert_eq!(c[1][10].len(), 187);
}

#[test]
fn the_compressed_fixture_is_compressed() {
    let bytes = std::fs::read(fixture("adsl_rle.sas7bdat")).unwrap();
    let dataset = sas7bdat::Dataset::from_bytes(bytes).unwrap();
    assert_eq!(
        dataset.metadata().compression,
        sas7bdat::CompressionKind::Row
    );
}

#[test]
fn a_broken_sas7bdat_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(fixture("adsl_rle.sas7bdat")).unwrap();
    for (name, bytes) in [
        ("csv.sas7bdat", b"USUBJID,AGE\n1,2\n".to_vec()),
        ("cut.sas7bdat", good[..good.len() / 3].to_vec()),
        ("empty.sas7bdat", Vec::new()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let err = CsvTable::read(&path).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(name), "{err}");
        assert!(err.contains("not a"), "{err}");
    }
}

/// Regression: the `sas7bdat` crate (0.9.3) panics with "capacity overflow" on a file whose
/// header declares -1 rows; readout turns that into an error naming the file.
#[test]
fn a_file_declaring_minus_one_rows_is_an_error_not_a_crash() {
    match CsvTable::read(&fixture("rows_undeclared.sas7bdat")) {
        Err(e) => assert!(e.to_string().contains("rows_undeclared.sas7bdat"), "{e}"),
        // A later version of the crate may read it: then it must read all of it.
        Ok(table) => assert_eq!(table.len(), 3),
    }
}

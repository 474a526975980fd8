//! SAS datasets (`.sas7bdat`), read with the `sas7bdat` crate (uncompressed, and compressed with
//! `COMPRESS=CHAR` (RLE) or `COMPRESS=BINARY` (RDC)) into the same table of text cells as
//! [`crate::load::xpt`]: dates `YYYY-MM-DD`, datetimes `YYYY-MM-DDTHH:MM:SS`, times `HH:MM:SS`,
//! missing numbers empty, other numbers the shortest decimal that reads back the same, text
//! right-trimmed.
//!
//! Which numbers are dates is decided from the format, as for transport files: the crate's own
//! reading of the format first, then readout's list ([`crate::load::xpt::numeric_meaning`]), so that a
//! column reads the same from `.xpt` and `.sas7bdat`.
//!
//! Not here: reading the file (`load` does), value labels from `.sas7bcat` catalogs.

use std::panic::AssertUnwindSafe;

use sas7bdat::{Dataset, LogicalType, OwnedCellValue};

use crate::load::xpt::{
    decode_text, format_numeric, numeric_meaning, trim_padding, NumericMeaning,
};

/// One SAS dataset as text cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SasTable {
    /// Variable names in file order.
    pub headers: Vec<String>,
    /// One row per observation, one cell per variable; missing values are empty.
    pub rows: Vec<Vec<String>>,
}

/// Reads a whole `.sas7bdat` file. The error says what is wrong, for the caller to prefix with
/// the file name.
pub fn parse(bytes: Vec<u8>) -> Result<SasTable, String> {
    // The crate is fuzzed and returns errors for the files we know of; a panic on some other
    // malformed file still becomes an error message, not a crash of the whole build.
    std::panic::catch_unwind(AssertUnwindSafe(|| parse_dataset(bytes))).unwrap_or_else(|_| {
        Err("the sas7bdat reader stopped on this file; expected a SAS dataset it can decode (export it as a transport file, .xpt, instead)".to_string())
    })
}

/// The 32 bytes every SAS dataset starts with.
const MAGIC: [u8; 32] = [
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc2, 0xea, 0x81, 0x60,
    0xb3, 0x14, 0x11, 0xcf, 0xbd, 0x92, 0x08, 0x00, 0x09, 0xc7, 0x31, 0x8c, 0x18, 0x1f, 0x10, 0x11,
];

fn parse_dataset(bytes: Vec<u8>) -> Result<SasTable, String> {
    if !bytes.starts_with(&MAGIC) {
        return Err("not a SAS dataset: the file does not start with the sas7bdat signature; expected a file written by SAS (is it a CSV or transport file with the wrong extension?)".to_string());
    }
    let dataset = Dataset::from_bytes(bytes).map_err(|e| {
        format!("not a readable SAS dataset: {e}; expected a complete .sas7bdat file (is it truncated?)")
    })?;
    let columns = dataset.columns();
    let meanings: Vec<NumericMeaning> = columns
        .iter()
        .map(|c| match c.logical_type {
            LogicalType::Date => NumericMeaning::Date,
            LogicalType::DateTime => NumericMeaning::DateTime,
            LogicalType::Time => NumericMeaning::Time,
            _ => c
                .format
                .as_deref()
                .map_or(NumericMeaning::Number, numeric_meaning),
        })
        .collect();
    let headers: Vec<String> = columns.iter().map(|c| c.name.trim().to_string()).collect();
    let rows = dataset
        .collect_rows()
        .map_err(|e| format!("cannot decode the observations: {e}"))?;
    let mut out = Vec::with_capacity(rows.len());
    for (n, row) in rows.iter().enumerate() {
        let mut cells = Vec::with_capacity(headers.len());
        for (i, cell) in row.cells.iter().enumerate() {
            let meaning = meanings.get(i).copied().unwrap_or(NumericMeaning::Number);
            let text = match cell {
                OwnedCellValue::Null => Ok(String::new()),
                OwnedCellValue::Int32(v) => format_numeric(f64::from(*v), meaning),
                OwnedCellValue::Int64(v) => format_numeric(*v as f64, meaning),
                OwnedCellValue::Float64(x) if x.is_nan() => Ok(String::new()),
                OwnedCellValue::Float64(x) => format_numeric(*x, meaning),
                OwnedCellValue::String(s) => Ok(s.trim_end_matches([' ', '\0']).to_string()),
                OwnedCellValue::Bytes(b) => Ok(decode_text(trim_padding(b))),
                OwnedCellValue::Date(d) => {
                    format_numeric(f64::from(d.days_since_sas_epoch), NumericMeaning::Date)
                }
                OwnedCellValue::DateTime(t) => {
                    format_numeric(t.seconds_since_sas_epoch as f64, NumericMeaning::DateTime)
                }
                OwnedCellValue::Time(t) => {
                    format_numeric(f64::from(t.seconds_since_midnight), NumericMeaning::Time)
                }
            };
            cells.push(text.map_err(|why| {
                format!(
                    "observation {}, variable `{}`: {why}",
                    n + 1,
                    headers.get(i).map_or("?", String::as_str)
                )
            })?);
        }
        out.push(cells);
    }
    Ok(SasTable { headers, rows: out })
}

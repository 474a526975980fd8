//! CDISC Dataset-JSON v1.1 (`.json`, `.ndjson`, `.dsjc`), read into the same table of text cells
//! as a CSV file ([`CsvTable`]), so the same loaders, checks and messages apply.
//!
//! - `.json`: one object, the metadata, `columns`, then `rows` (arrays of values), read as a
//!   stream through serde_json (rows typed as they arrive; never a `Value` tree of the rows).
//! - `.ndjson`: the metadata object on line 1, then one row (an array) per line, read in parts
//!   whose lines are parsed in parallel; a string cell points into the text read.
//! - `.dsjc`: NDJSON compressed. The specification says a zlib stream; the published examples
//!   are gzip: both are read, told apart by their first bytes.
//!
//! Checked: `datasetJSONVersion` is 1.1 or 1.1.x; `records` is the number of rows; every column
//! has a known `dataType`; every row has one value per column and every value its column's
//! type (`cells`). Errors name the file, the row (and line), the column and the value. Rows
//! are numbered from 1, as SAS numbers observations; the loaders' messages say `line N` for row
//! N, as for `.xpt` files.
//!
//! Not here: the writer of derived datasets (`outputs`, with the [`Metadata`] types).

mod cells;
mod header;
mod metadata;
mod scan;
mod stream;

use std::io::Read;

pub use metadata::{Column, DataType, Metadata, SourceSystem, TargetDataType, VERSION};

use super::*;

/// The three forms of Dataset-JSON, by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `.json`: one JSON object.
    Json,
    /// `.ndjson`: newline-delimited JSON.
    Ndjson,
    /// `.dsjc`: compressed NDJSON (zlib, or gzip).
    Compressed,
}

impl Form {
    /// The form a path names by its extension (case-insensitive), `None` for other files.
    pub fn of(path: &Path) -> Option<Form> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "json" => Some(Form::Json),
            "ndjson" => Some(Form::Ndjson),
            "dsjc" => Some(Form::Compressed),
            _ => None,
        }
    }
}

/// Reads a whole Dataset-JSON file into one table; the file's text is not kept beside its
/// cells (`.ndjson` cells point into it, `.json` cells are copied as the text streams by).
pub fn read(path: &Path) -> Result<CsvTable> {
    let (sha256, last) = stream::file(path, usize::MAX, &mut |_, _, _| Ok(true))?;
    let mut table = last.ok_or_else(|| no_rows(path))?;
    table.sha256 = sha256;
    Ok(table)
}

/// As [`read`], from bytes in memory (`path` names them in errors and gives the form).
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<CsvTable> {
    let form = Form::of(path).unwrap_or(Form::Json);
    let last = stream::bytes(path, form, bytes, usize::MAX, &mut |_, _, _| Ok(true))?;
    let mut table = last.ok_or_else(|| no_rows(path))?;
    table.sha256 = sha256_hex(bytes);
    Ok(table)
}

/// Reads a Dataset-JSON file in parts of about `part_bytes` bytes of text, each a table given to
/// `each` as it is typed, as [`CsvTable::read_parts`] does for a CSV file: `each` gets the
/// part, the rows before it and the rows expected in all; it returns `false` to stop (it met a
/// bad row). The next part is read and parsed while `each` converts one.
pub fn read_parts(
    path: &Path,
    part_bytes: usize,
    mut each: impl FnMut(&CsvTable, usize, usize) -> Result<bool> + Send,
) -> Result<InputFile> {
    let (sha256, _) = stream::file(path, part_bytes.max(1), &mut each)?;
    Ok(InputFile {
        path: path.display().to_string(),
        sha256,
    })
}

/// [`read_parts`], each part's rows first passed through `filter` (`data.where`): `each` sees
/// only the rows kept, numbered among themselves.
pub fn read_parts_where(
    path: &Path,
    part_bytes: usize,
    filter: &mut RowFilter,
    mut each: impl FnMut(&CsvTable, usize, usize) -> Result<bool> + Send,
) -> Result<InputFile> {
    if filter.is_empty() {
        return read_parts(path, part_bytes, each);
    }
    let mut given = 0usize;
    read_parts(path, part_bytes, |table, first, expected| {
        if first == 0 {
            given = 0;
            filter.restart();
        }
        let mut table = table.clone();
        filter.apply(&mut table)?;
        let go_on = each(&table, given, expected)?;
        given += table.len();
        Ok(go_on)
    })
}

fn no_rows(path: &Path) -> Error {
    Error::data_file(
        path,
        "the dataset has columns but no rows; expected one row per record",
    )
}

/// A table of one part: its cells in `cells` at `spans`, its rows numbered from
/// `rows_before + 1`.
fn part_table(
    path: &Path,
    header: &header::Header,
    cells: Cells,
    spans: Vec<[u32; 2]>,
    rows_before: usize,
    rows: usize,
) -> CsvTable {
    CsvTable {
        path: path.to_path_buf(),
        sha256: String::new(),
        headers: header.headers.clone(),
        index: header.index.clone(),
        cells,
        layout: table::Layout::Cells(spans),
        lines: Lines::From {
            first: rows_before as u64 + 1,
            rows,
        },
    }
}

/// The rows to expect in all, for the readers' reservations: `records`, but no more than the
/// text could hold (each row takes at least `[`, a value per column and the line end).
fn expected_rows(header: &header::Header, rows_so_far: usize) -> usize {
    let most = (MAX_DATA_FILE_BYTES as usize) / (2 * header.headers.len() + 1).max(1);
    header
        .records
        .map_or(rows_so_far, |r| usize::try_from(r).unwrap_or(usize::MAX))
        .min(most)
        .max(rows_so_far)
}

/// A [`Read`] that hashes what it reads (a file read as a stream: its SHA-256 for the
/// manifest without a second pass).
struct Hashing<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests;

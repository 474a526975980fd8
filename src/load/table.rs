//! The CSV engine: a data file read into one buffer (whole or in parts), its header
//! indexed, rows found without copying, cells split when a row is read; the limits of
//! `docs/BAD-INPUT.md` and the errors naming file, line and column.

use super::*;

/// A data file read whole, with its header indexed. Cells are read as UTF-8 text.
///
/// The cells of all rows live in one byte buffer (for a CSV file without quotes, the file
/// itself), so a table of millions of rows costs a few allocations, not a few per row. A file
/// without quotes keeps only where each row starts and ends: its cells are split at the commas
/// when the row is read (keeping every cell's offsets cost 8 bytes per cell, twice the file).
#[derive(Clone)]
pub struct CsvTable {
    pub(super) path: PathBuf,
    pub(super) sha256: String,
    pub(super) headers: Vec<String>,
    pub(super) index: HashMap<String, usize>,
    /// The bytes the cells are in.
    pub(super) cells: Cells,
    /// Where the cells or rows are in `cells`.
    pub(super) layout: Layout,
    /// The line number of each row.
    pub(super) lines: Lines,
}

/// Where the cells of a table are.
#[derive(Clone)]
pub(super) enum Layout {
    /// Start and end of each cell: row `r`, column `c` is entry `r * width + c` (a file with
    /// quotes, whose cells were unquoted into a new buffer; a SAS file).
    Cells(Vec<[u32; 2]>),
    /// Start and end of each row (without its line end), whose cells are separated by commas
    /// (a CSV file without quotes, checked to have as many fields on every row as the header).
    Rows(Vec<[u32; 2]>),
}

/// The line numbers (1 = the header's line) of a table's rows.
#[derive(Clone)]
pub(super) enum Lines {
    /// Row `r` is on line `first + r` (no blank lines between rows).
    From { first: u64, rows: usize },
    /// Each row's line.
    Each(Vec<u64>),
}

impl Lines {
    pub(super) fn len(&self) -> usize {
        match self {
            Lines::From { rows, .. } => *rows,
            Lines::Each(lines) => lines.len(),
        }
    }

    /// The line of row `row` (0 when out of range).
    pub(super) fn get(&self, row: usize) -> u64 {
        match self {
            Lines::From { first, rows } if row < *rows => first + row as u64,
            Lines::From { .. } => 0,
            Lines::Each(lines) => lines.get(row).copied().unwrap_or(0),
        }
    }
}

/// The bytes the cells of a table are in: text when the whole buffer is valid UTF-8 (checked
/// once rather than cell by cell: docs/PERFORMANCE.md), else bytes checked
/// cell by cell, so that a bad cell is named by its line and column.
#[derive(Clone)]
pub(super) enum Cells {
    Text(String),
    Bytes(Vec<u8>),
}

impl Cells {
    pub(super) fn new(bytes: Vec<u8>) -> Cells {
        match String::from_utf8(bytes) {
            Ok(text) => Cells::Text(text),
            Err(e) => Cells::Bytes(e.into_bytes()),
        }
    }

    /// All the bytes.
    pub(super) fn all(&self) -> &[u8] {
        match self {
            Cells::Text(text) => text.as_bytes(),
            Cells::Bytes(bytes) => bytes,
        }
    }

    /// The text `start..end`, `None` when it is not valid UTF-8.
    #[inline]
    pub(super) fn text(&self, start: usize, end: usize) -> Option<&str> {
        match self {
            Cells::Text(text) => text.get(start..end),
            Cells::Bytes(bytes) => std::str::from_utf8(bytes.get(start..end)?).ok(),
        }
    }
}

/// One data row of a [`CsvTable`], with its line number for error messages. Its cells are
/// text of the table (`'t`); the offsets of its commas are in a buffer of the reader's (`'s`),
/// reused from row to row (kept in the row, an array for 64 commas made every row 300 bytes
/// to set up and copy).
pub struct Row<'t, 's> {
    pub(super) table: &'t CsvTable,
    pub(super) line: u64,
    pub(super) cells: RowCells<'t, 's>,
}

/// Where the cells of one row are.
pub(super) enum RowCells<'t, 's> {
    /// The row's entries of [`Layout::Cells`].
    Spans(&'t [[u32; 2]]),
    /// A row of [`Layout::Rows`]: it starts at `start` in the table's bytes, `bytes` are its
    /// cells and commas, `commas` the offsets in `bytes` of all its commas.
    Split {
        start: usize,
        bytes: &'t [u8],
        commas: &'s [u32],
    },
}

impl<'t, 's> RowCells<'t, 's> {
    /// Splits a row of a table without quotes, its commas' offsets into `commas`.
    pub(super) fn split(
        start: usize,
        bytes: &'t [u8],
        commas: &'s mut Vec<u32>,
    ) -> RowCells<'t, 's> {
        commas.clear();
        // Eight bytes at a time (rows are short: calling memchr for every comma cost more).
        const LOW7: u64 = u64::from_ne_bytes([0x7f; 8]);
        const COMMA: u64 = u64::from_ne_bytes([b','; 8]);
        let words = bytes.chunks_exact(8);
        let tail = words.remainder();
        // Offsets fit: a row's place in the table is `u32` already.
        for (w, word) in words.enumerate() {
            let mut le = [0u8; 8];
            le.copy_from_slice(word);
            let x = u64::from_le_bytes(le) ^ COMMA;
            // The high bit of each byte that was a comma (exact: no borrow between bytes).
            let mut hits = !(((x & LOW7) + LOW7) | x | LOW7);
            while hits != 0 {
                commas.push((w * 8) as u32 + hits.trailing_zeros() / 8);
                hits &= hits - 1;
            }
        }
        let base = bytes.len() - tail.len();
        for (i, &b) in tail.iter().enumerate() {
            if b == b',' {
                commas.push((base + i) as u32);
            }
        }
        RowCells::Split {
            start,
            bytes,
            commas,
        }
    }

    /// Start and end (in the table's bytes) of cell `column`; empty when out of range.
    #[inline]
    pub(super) fn span(&self, column: usize) -> (usize, usize) {
        match self {
            RowCells::Spans(spans) => match spans.get(column) {
                Some(&[start, end]) => (start as usize, end as usize),
                None => (0, 0),
            },
            RowCells::Split {
                start,
                bytes,
                commas,
            } => {
                // The cell starts after comma `column - 1` and ends at comma `column` (the
                // row's end for the last cell).
                let from = match column.checked_sub(1) {
                    None => 0,
                    Some(before) => match commas.get(before) {
                        Some(&c) => c as usize + 1,
                        None => return (0, 0), // past the last cell
                    },
                };
                let to = commas.get(column).map_or(bytes.len(), |&c| c as usize);
                (start + from, start + to)
            }
        }
    }
}

/// The column index of a SAS dataset's variable names, each name once.
fn unique_names(path: &Path, headers: &[String]) -> Result<HashMap<String, usize>> {
    let mut index = HashMap::new();
    for (i, name) in headers.iter().enumerate() {
        if index.insert(name.clone(), i).is_some() {
            return Err(Error::data_file(
                path,
                format!("variable `{name}` appears twice; expected unique variable names"),
            ));
        }
    }
    Ok(index)
}

impl CsvTable {
    /// Reads and checks a data file, chosen by its extension: `.xpt` is a SAS transport v5
    /// file ([`crate::load::xpt`]) and `.sas7bdat` a SAS dataset ([`crate::load::sas7bdat`]), both read
    /// into text cells (dates and datetimes as ISO text, missing numbers as empty cells; the
    /// "line" of an error is the observation number); `.json`, `.ndjson` and `.dsjc` are
    /// Dataset-JSON ([`crate::load::dataset_json`], the "line" the row number); anything else is CSV: UTF-8 (a
    /// BOM is skipped), a header with unique names, at least one data row, the same number of
    /// fields on every row. CRLF is accepted.
    pub fn read(path: &Path) -> Result<CsvTable> {
        if dataset_json::Form::of(path).is_some() {
            return dataset_json::read(path);
        }
        check_file_size(path)?;
        let bytes = crate::files::read(path, MAX_DATA_FILE_BYTES)
            .map_err(|e| Error::io(path, "cannot read data file", e))?
            .ok_or_else(|| too_large(path))?;
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("xpt") => {
                let table = crate::load::xpt::parse(&bytes).map_err(|e| Error::Data {
                    file: path.to_path_buf(),
                    location: format!("{}: ", e.location()),
                    message: e.message,
                })?;
                let headers = table.variables.into_iter().map(|v| v.name).collect();
                CsvTable::from_text_cells(
                    path,
                    sha256_hex(&bytes),
                    headers,
                    table.text,
                    table.spans,
                )
            }
            Some("sas7bdat") => {
                let sha256 = sha256_hex(&bytes);
                let table = crate::load::sas7bdat::parse(bytes).map_err(|message| Error::Data {
                    file: path.to_path_buf(),
                    location: String::new(),
                    message,
                })?;
                CsvTable::from_text_rows(path, sha256, table.headers, table.rows)
            }
            _ => CsvTable::from_vec(path, bytes),
        }
    }

    /// A table from cells already decoded (a SAS file), with the checks of [`CsvTable::read`]:
    /// unique column names and at least one row. Row `i` (from 0) gets line number `i + 1`,
    /// the observation number SAS shows.
    pub fn from_text_rows(
        path: &Path,
        sha256: String,
        headers: Vec<String>,
        rows: Vec<Vec<String>>,
    ) -> Result<CsvTable> {
        let index = unique_names(path, &headers)?;
        if rows.is_empty() {
            return Err(Error::data_file(
                path,
                "the dataset has variables but no observations; expected one observation per record",
            ));
        }
        let row_count = rows.len();
        let mut cells = String::new();
        let mut spans = Vec::with_capacity(rows.len() * headers.len());
        for (i, row) in rows.into_iter().enumerate() {
            if row.len() != headers.len() {
                return Err(Error::data_file(
                    path,
                    format!(
                        "observation {} has {} values; expected {} like the variable list",
                        i + 1,
                        row.len(),
                        headers.len()
                    ),
                ));
            }
            for cell in &row {
                let start = cells.len();
                cells.push_str(cell);
                spans.push(span(path, start, cells.len())?);
            }
        }
        Ok(CsvTable {
            path: path.to_path_buf(),
            sha256,
            headers,
            index,
            // Text already: no second UTF-8 check.
            cells: Cells::Text(cells),
            layout: Layout::Cells(spans),
            lines: Lines::From {
                first: 1,
                rows: row_count,
            },
        })
    }

    /// A table from cells already decoded into one text (a SAS transport file), with the
    /// checks of [`CsvTable::read`]; `spans` holds each cell's start and end in `text`, row
    /// after row. Row `i` (from 0) gets line number `i + 1`, the observation number.
    pub fn from_text_cells(
        path: &Path,
        sha256: String,
        headers: Vec<String>,
        text: String,
        spans: Vec<[u32; 2]>,
    ) -> Result<CsvTable> {
        let index = unique_names(path, &headers)?;
        let width = headers.len().max(1);
        if spans.is_empty() {
            return Err(Error::data_file(
                path,
                "the dataset has variables but no observations; expected one observation per record",
            ));
        }
        if !spans.len().is_multiple_of(width)
            || spans.iter().any(|&[s, e]| s > e || e as usize > text.len())
        {
            return Err(Error::data_file(
                path,
                format!("the cells do not make whole rows of {width} values"),
            ));
        }
        let rows = spans.len() / width;
        Ok(CsvTable {
            path: path.to_path_buf(),
            sha256,
            headers,
            index,
            cells: Cells::Text(text),
            layout: Layout::Cells(spans),
            lines: Lines::From { first: 1, rows },
        })
    }

    /// As [`CsvTable::read`], from bytes already in memory (`path` names them in errors).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<CsvTable> {
        CsvTable::from_vec(path, bytes.to_vec())
    }

    /// As [`CsvTable::from_bytes`], keeping the bytes: a file without quotes is split in place,
    /// in parallel chunks (see [`split_plain`]); any other goes through the `csv` crate. Both
    /// give the same cells, line numbers and errors. The SHA-256 is computed alongside.
    pub(super) fn from_vec(path: &Path, bytes: Vec<u8>) -> Result<CsvTable> {
        CsvTable::from_vec_as(path, bytes, true)
    }

    /// [`CsvTable::from_vec`], with the in-place splitter allowed or not (tests compare the two
    /// readings).
    pub(super) fn from_vec_as(
        path: &Path,
        bytes: Vec<u8>,
        split_in_place: bool,
    ) -> Result<CsvTable> {
        if u32::try_from(bytes.len()).is_err() {
            return Err(Error::data_file(
                path,
                format!("the file is {} bytes; readout reads data files of at most {MAX_DATA_FILE_BYTES} bytes (1 GiB)", bytes.len()),
            ));
        }
        let (sha256, parsed) = rayon::join(
            || sha256_hex(&bytes),
            || parse_csv(path, &bytes, split_in_place, 0, true, false),
        );
        Ok(CsvTable::from_parsed(path, sha256, bytes, parsed?))
    }

    pub(super) fn from_parsed(
        path: &Path,
        sha256: String,
        bytes: Vec<u8>,
        parsed: Parsed,
    ) -> CsvTable {
        CsvTable {
            path: path.to_path_buf(),
            sha256,
            headers: parsed.headers,
            index: parsed.index,
            cells: Cells::new(parsed.cells.unwrap_or(bytes)),
            layout: parsed.layout,
            lines: parsed.lines,
        }
    }

    /// Reads a data file in parts of whole rows and gives each to `each` in file order, with
    /// the number of rows before it and an estimate of the file's rows: a large CSV file is
    /// never held whole (at 10^7 subjects ADSL and ADTTE were 630 MB, the file bytes and row
    /// offsets a third of the build's memory). Each part is a table of its own with the
    /// file's header and line numbers; its cells, errors and line numbers are those of
    /// [`CsvTable::read`]. One difference: a file read whole has its rows' field counts
    /// checked before any cell is typed, so a ragged row far down is reported before a bad
    /// cell above it; read in parts, the first error in file order (part by part) is. A file
    /// `parts_length` does not read in parts, and a file with quotes or old Mac line ends
    /// (whose rows may not end at a line feed) are read whole and given as one part; so is
    /// any file whose first part does not parse, for the whole file's error.
    /// A part given with 0 rows before it restarts the reading: `each` drops what it kept.
    /// `each` returns `false` to stop (it met a bad row). The file's SHA-256 is computed
    /// alongside. A Dataset-JSON file is always read in parts ([`dataset_json::read_parts`]).
    pub fn read_parts(
        path: &Path,
        part_bytes: usize,
        each: impl FnMut(&CsvTable, usize, usize) -> Result<bool> + Send,
    ) -> Result<InputFile> {
        CsvTable::read_parts_where(path, part_bytes, &mut RowFilter::default(), each)
    }

    /// [`CsvTable::read_parts`], each part's rows first passed through `filter`
    /// (`data.where`): `each` sees only the rows kept, numbered among themselves.
    pub fn read_parts_where(
        path: &Path,
        part_bytes: usize,
        filter: &mut RowFilter,
        mut each: impl FnMut(&CsvTable, usize, usize) -> Result<bool> + Send,
    ) -> Result<InputFile> {
        let whole = |each: &mut dyn FnMut(&CsvTable, usize, usize) -> Result<bool>,
                     filter: &mut RowFilter| {
            filter.restart();
            let mut table = CsvTable::read(path)?;
            filter.apply(&mut table)?;
            each(&table, 0, table.len())?;
            Ok(table.input_file())
        };
        if dataset_json::Form::of(path).is_some() {
            return dataset_json::read_parts_where(path, part_bytes, filter, each);
        }
        let part_bytes = part_bytes.max(1);
        let Some(file_len) = parts_length(path, part_bytes) else {
            return whole(&mut each, filter);
        };
        let io = |e| Error::io(path, "cannot read data file", e);
        let mut file = crate::files::open(path).map_err(io)?;
        let mut hasher = Sha256::new();
        let mut carry: Vec<u8> = Vec::new();
        let mut part = read_part(
            &mut file,
            &[],
            &mut carry,
            Vec::new(),
            part_bytes,
            &mut hasher,
        )
        .map_err(io)?;
        // The header line given to every part after the first.
        let mut header: Option<Vec<u8>> = None;
        let (mut rows_before, mut read, mut next_line) = (0usize, 0u64, 1u64);
        let mut spare = Vec::new();
        loop {
            if !part.plain {
                // Rows may span lines: the whole file (`each` drops any parts it was given).
                return whole(&mut each, filter);
            }
            read += part.read;
            let first = header.is_none();
            // Line 2 of a later part (its first data line) is line `next_line` of the file.
            let shift = if first { 0 } else { next_line - 2 };
            next_line += part.line_feeds;
            let require_rows = first && part.at_end;
            let parsed = match parse_csv(path, &part.bytes, true, shift, require_rows, !first) {
                Ok(parsed) => parsed,
                // The whole file's error (an empty file, say, or one whose header is late).
                Err(_) if first && !part.at_end => return whole(&mut each, filter),
                Err(e) => return Err(e),
            };
            let at_end = part.at_end;
            // The header line as written (its names trimmed could make a blank line).
            let header = header.get_or_insert_with(|| {
                let mut line = header_line(&part.bytes, bom_len(&part.bytes)).0.to_vec();
                line.push(b'\n');
                line
            });
            let mut table = CsvTable::from_parsed(path, String::new(), part.bytes, parsed);
            filter.apply(&mut table)?;
            let rows = table.len();
            // The rows of the whole file, estimated from the bytes read so far.
            let expected = if at_end {
                rows_before + rows
            } else {
                ((rows_before + rows) as f64 * file_len as f64 / read.max(1) as f64).ceil() as usize
            };
            // The next part is read (and hashed) while this one's rows are converted.
            let (go_on, next) = rayon::join(
                || each(&table, rows_before, expected),
                || {
                    (!at_end).then(|| {
                        let buf = std::mem::take(&mut spare);
                        read_part(&mut file, header, &mut carry, buf, part_bytes, &mut hasher)
                    })
                },
            );
            rows_before += rows;
            spare = table.into_bytes();
            let go_on = go_on?;
            match next {
                Some(next) if go_on => part = next.map_err(io)?,
                Some(_) => break,
                None if rows_before == 0 => return whole(&mut each, filter), // no data rows
                None => break,
            }
        }
        Ok(InputFile {
            path: path.display().to_string(),
            sha256: digest_hex(hasher.finalize()),
        })
    }

    /// The table's byte buffer, for reuse.
    pub(super) fn into_bytes(self) -> Vec<u8> {
        let mut bytes = match self.cells {
            Cells::Text(text) => text.into_bytes(),
            Cells::Bytes(bytes) => bytes,
        };
        bytes.clear();
        bytes
    }

    /// Keeps the rows whose entry in `keep` is true (a row filter, `data.where`); their line
    /// numbers stay those of the file.
    pub(super) fn retain_rows(&mut self, keep: &[bool]) {
        if keep.iter().all(|&k| k) {
            return;
        }
        let kept = |row: usize| keep.get(row).copied().unwrap_or(false);
        match &mut self.layout {
            Layout::Cells(spans) => {
                let width = self.headers.len().max(1);
                let mut out = Vec::new();
                for (row, chunk) in spans.chunks_exact(width).enumerate() {
                    if kept(row) {
                        out.extend_from_slice(chunk);
                    }
                }
                *spans = out;
            }
            Layout::Rows(rows) => {
                let mut row = 0;
                rows.retain(|_| {
                    let k = kept(row);
                    row += 1;
                    k
                });
            }
        }
        let lines = (0..self.lines.len())
            .filter(|&r| kept(r))
            .map(|r| self.lines.get(r))
            .collect();
        self.lines = Lines::Each(lines);
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the table has no data rows (never true for a table that loaded).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The line number of data row `row` (from 0).
    pub(super) fn line(&self, row: usize) -> u64 {
        self.lines.get(row)
    }

    /// The raw bytes of a cell (empty when out of range).
    #[cfg(test)]
    pub(super) fn cell(&self, row: usize, column: usize) -> &[u8] {
        let (start, end) = self.row(row, &mut Vec::new()).cells.span(column);
        self.cells.all().get(start..end).unwrap_or_default()
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The column names in file order.
    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    pub(super) fn input_file(&self) -> InputFile {
        InputFile {
            path: self.path.display().to_string(),
            sha256: self.sha256.clone(),
        }
    }

    /// Index of a column, if present.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The first of several alternative columns that is present.
    pub fn first_column(&self, names: &[&str]) -> Option<(usize, String)> {
        names
            .iter()
            .find_map(|n| self.column(n).map(|i| (i, n.to_string())))
    }

    /// Index of a column that must be present.
    pub fn require(&self, name: &str) -> Result<usize> {
        self.column(name).ok_or_else(|| Error::Data {
            file: self.path.clone(),
            location: "line 1: ".to_string(),
            message: format!(
                "required column `{name}` is missing; the header has: {}",
                self.headers.join(", ")
            ),
        })
    }

    /// The trimmed text of a cell (`""` out of range), as the readers see it; for reading a
    /// cell here and there (the readers reuse one buffer per row).
    pub fn cell_text(&self, row: usize, column: usize) -> Result<&str> {
        self.row(row, &mut Vec::new()).text(Some(column))
    }

    /// Data row `row` (from 0), its commas found into `commas`.
    pub(super) fn row<'s>(&self, row: usize, commas: &'s mut Vec<u32>) -> Row<'_, 's> {
        let cells = match &self.layout {
            Layout::Cells(spans) => {
                let width = self.headers.len();
                RowCells::Spans(
                    spans
                        .get(row * width..(row + 1) * width)
                        .unwrap_or_default(),
                )
            }
            Layout::Rows(rows) => {
                let [start, end] = rows.get(row).copied().unwrap_or_default();
                let (start, end) = (start as usize, end as usize);
                RowCells::split(
                    start,
                    self.cells.all().get(start..end).unwrap_or_default(),
                    commas,
                )
            }
        };
        Row {
            table: self,
            line: self.lines.get(row),
            cells,
        }
    }
}

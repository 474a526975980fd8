//! Loading ADaM CSV files into typed tables (SPEC §2). One of the two stages that touch the
//! file system. Every error names the file, the line, the column and the bad value; problems
//! that do not make a number wrong (an adverse event without a grade) become warnings.
//!
//! Not here: cut-off handling (`cut`), derivations (`derive`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::LoadedConfig;
use crate::error::{Error, Result};
use crate::model::{
    AdverseEvent, Assessment, ColumnValue, Columns, Date, LesionSum, Response, Subject, SubjectId,
    TteRecord, TteTable,
};

/// Largest data file read (1 GiB). Files are read whole into memory; an ADaM table of a trial
/// is far smaller, so a larger file is a wrong path or a broken export, refused before reading.
pub const MAX_DATA_FILE_BYTES: u64 = 1 << 30;

/// Bytes read per part of a large ADSL or ADTTE file ([`CsvTable::read_parts`]).
const PART_BYTES: usize = 16 << 20;

/// The length of a data file that is read in parts of `part_bytes`: a CSV file of more than
/// four parts (below that, reading whole, in parallel with the other files, is faster and
/// the memory small) and within [`MAX_DATA_FILE_BYTES`]. `None`: read it whole (a SAS file,
/// a small file, one too large or unreadable, whose error the whole reading gives).
fn parts_length(path: &Path, part_bytes: usize) -> Option<u64> {
    let sas = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("xpt") || e.eq_ignore_ascii_case("sas7bdat"));
    let len = std::fs::metadata(path).ok()?.len();
    (!sas && len > 4 * part_bytes as u64 && len <= MAX_DATA_FILE_BYTES).then_some(len)
}

/// Longest CSV record (1 MiB): no ADaM row comes near it, so a longer one is a file without
/// line ends or an unclosed quote, named by its line rather than parsed on.
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// Longest time to event accepted (1,000 years, in days): a longer AVAL is a wrong unit or a
/// broken export, and would overflow the Kaplan–Meier and figure arithmetic downstream.
pub const MAX_TIME_DAYS: f64 = 365_250.0;

/// Every input table of a study, typed.
#[derive(Debug, Clone, Default)]
pub struct StudyData {
    /// ADSL rows, in file order.
    pub subjects: Vec<Subject>,
    /// The ADSL flag of the efficacy population (`EFFFL`, ...; `None`: every subject).
    pub efficacy_flag: Option<String>,
    /// `SAFFL` when ADSL has it (`None`: every subject is in the safety population).
    pub safety_flag: Option<String>,
    /// ADRS per-visit overall responses (`PARAMCD = OVR`).
    pub assessments: Vec<Assessment>,
    /// ADTTE rows.
    pub tte: TteTable,
    /// Whether an ADTTE file was given (its endpoints are then used as they are).
    pub has_adtte: bool,
    /// The ADTTE file, for error messages.
    pub adtte_file: Option<PathBuf>,
    /// Whether an ADTR file was given.
    pub has_adtr: bool,
    /// ADAE rows.
    pub adverse_events: Vec<AdverseEvent>,
    /// ADTR sum-of-diameters rows.
    pub lesions: Vec<LesionSum>,
    /// The files read, with their SHA-256, for the manifest.
    pub inputs: Vec<InputFile>,
    /// Non-fatal data problems.
    pub warnings: Vec<String>,
}

/// A file read by the build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputFile {
    /// The path as resolved from the config.
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    digest_hex(Sha256::digest(bytes))
}

/// A SHA-256 digest in lower-case hex.
pub(crate) fn digest_hex(digest: impl IntoIterator<Item = u8>) -> String {
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Loads every table the config names. The files are read and parsed in parallel; errors
/// are reported in the order of the config (ADSL first), so the message does not depend on
/// thread timing.
pub fn load_study(cfg: &LoadedConfig) -> Result<StudyData> {
    use rayon::prelude::*;
    let analysis = cfg.analysis_for_study();
    let data = &cfg.config.data;
    let mut study = StudyData::default();

    let adsl_path = cfg.data_path(&data.adsl);
    let adtte_path = data.adtte.as_ref().map(|f| cfg.data_path(f));
    // A large ADTTE is read in parts once ADSL is typed; a small one whole, with the others.
    let adtte_in_parts = adtte_path
        .as_deref()
        .is_some_and(|path| parts_length(path, PART_BYTES).is_some());
    // A file that cannot be opened is named by its config key as well as its path.
    for (key, file) in [
        ("adsl", Some(&data.adsl)),
        ("adrs", data.adrs.as_ref()),
        ("adtte", data.adtte.as_ref()),
        ("adae", data.adae.as_ref()),
        ("adtr", data.adtr.as_ref()),
    ] {
        let Some(file) = file else { continue };
        let path = cfg.data_path(file);
        if let Err(e) = std::fs::metadata(&path) {
            return Err(Error::Config {
                file: cfg.path.clone(),
                location: format!("key `data.{key}`: "),
                message: format!("cannot read {}: {e}", path.display()),
            });
        }
    }
    let files: Vec<Option<PathBuf>> = [
        data.adrs.as_ref(),
        data.adtte.as_ref().filter(|_| !adtte_in_parts),
        data.adae.as_ref(),
        data.adtr.as_ref(),
    ]
    .into_iter()
    .map(|f| f.map(|f| cfg.data_path(f)))
    .collect();
    // Only the columns the config filters on or summarises are kept per subject.
    let keep: FxHashSet<String> = cfg
        .config
        .cohorts
        .iter()
        .flat_map(|c| {
            c.filter
                .keys()
                .cloned()
                .chain(c.baseline.iter().map(|b| b.column.clone()))
        })
        .collect();
    // ADSL is typed as it is read (part by part when large: it is never held whole), while
    // the other tables are read whole (but a large ADTTE). Their errors are collected whole,
    // then the first in config order: rayon's collect into a `Result` returns whichever error
    // a thread met first.
    let needs_trtsdt = data.adrs.is_some() || data.adtte.is_none();
    let mut adsl = AdslReader::new(data.efficacy_flag.as_deref(), Some(&keep), needs_trtsdt);
    let (adsl_input, tables) = rayon::join(
        || {
            crate::timing::stage("  typed adsl", || {
                CsvTable::read_parts(&adsl_path, PART_BYTES, |table, first_row, expected| {
                    adsl.part(table, first_row, expected)
                })
            })
        },
        || {
            crate::timing::stage("  read files", || {
                files
                    .par_iter()
                    .map(|path| path.as_deref().map(CsvTable::read).transpose())
                    .collect::<Vec<Result<Option<CsvTable>>>>()
            })
        },
    );
    let adsl_input = adsl_input?;
    study.subjects = std::mem::take(&mut adsl.subjects);
    study.efficacy_flag = adsl.efficacy_column.take();
    study.safety_flag = adsl.has_saffl.then(|| "SAFFL".to_string());
    // The other tables find subjects through `known`, which holds the subjects' own ids.
    let known = adsl.check(&adsl_path, &study.subjects)?;
    study.inputs.push(adsl_input);
    let mut tables = tables.into_iter().collect::<Result<Vec<_>>>()?;
    let mut take = |i: usize| tables.get_mut(i).and_then(Option::take);
    let (adrs, adtte, adae, adtr) = (take(0), take(1), take(2), take(3));

    // The other tables only need ADSL's subjects: convert them in parallel.
    let related: HashSet<String> = analysis
        .related_values
        .iter()
        .map(|v| v.trim().to_ascii_uppercase())
        .collect();
    let paramcd = data.adtr_paramcd.as_deref().unwrap_or("SDIAM");
    let adrs_paramcds: Vec<&str> = match &data.adrs_paramcd {
        Some(list) => list.iter().map(String::as_str).collect(),
        None => crate::config::DEFAULT_ADRS_PARAMCDS.to_vec(),
    };
    let ((assessments, tte), (adverse_events, lesions)) =
        crate::timing::stage("  typed others", || {
            rayon::join(
                || {
                    rayon::join(
                        || {
                            adrs.as_ref()
                                .map(|t| read_adrs(t, &known, &adrs_paramcds))
                                .transpose()
                        },
                        || match (&adtte, adtte_path.as_deref()) {
                            (Some(table), _) => read_adtte(table, &known)
                                .map(|rows| Some((rows, table.input_file()))),
                            (None, Some(path)) if adtte_in_parts => {
                                read_adtte_file(path, &known).map(Some)
                            }
                            _ => Ok(None),
                        },
                    )
                },
                || {
                    rayon::join(
                        || {
                            adae.as_ref()
                                .map(|t| {
                                    let mut warnings = Vec::new();
                                    read_adae(t, &known, &related, &mut warnings)
                                        .map(|e| (e, warnings))
                                })
                                .transpose()
                        },
                        || {
                            adtr.as_ref()
                                .map(|t| read_adtr(t, &known, paramcd))
                                .transpose()
                        },
                    )
                },
            )
        });
    if let (Some(table), Some(rows)) = (&adrs, assessments?) {
        study.assessments = rows;
        study.warnings.extend(drop_pre_treatment_responses(
            table.path(),
            &study.subjects,
            &mut study.assessments,
        ));
        study.inputs.push(table.input_file());
    }
    if let (Some(path), Some((rows, input))) = (adtte_path, tte?) {
        study.tte = rows;
        study.has_adtte = true;
        study.adtte_file = Some(path);
        study.inputs.push(input);
    }
    if let (Some(table), Some((rows, warnings))) = (&adae, adverse_events?) {
        study.adverse_events = rows;
        study.warnings.extend(warnings);
        study.inputs.push(table.input_file());
    }
    if let (Some(table), Some(rows)) = (&adtr, lesions?) {
        study.lesions = rows;
        study.has_adtr = true;
        study.inputs.push(table.input_file());
    }
    if !study.has_adtte {
        if let Some(warning) = last_seen_alive(&mut study) {
            study.warnings.push(warning);
        }
    }
    Ok(study)
}

/// How many subjects a warning names.
const SUBJECTS_LISTED: usize = 10;

/// Overall survival is censored at the last date a subject is known alive: a response
/// assessment or an adverse event after `LSTALVDT` shows the subject alive then, so the
/// subject's last-alive date is moved to the latest of them (derived OS and follow-up would
/// otherwise come out short). Returns the warning naming the subjects moved. Subjects who died
/// or have no `LSTALVDT` are left as they are (the OS derivation has its own rule then).
fn last_seen_alive(study: &mut StudyData) -> Option<String> {
    let mut seen: rustc_hash::FxHashMap<&str, Date> = rustc_hash::FxHashMap::default();
    let dates = study
        .assessments
        .iter()
        .map(|a| (a.usubjid.as_str(), Some(a.date)))
        .chain(
            study
                .adverse_events
                .iter()
                .map(|e| (e.usubjid.as_str(), e.start)),
        );
    for (id, date) in dates {
        if let Some(date) = date {
            let latest = seen.entry(id).or_insert(date);
            *latest = (*latest).max(date);
        }
    }
    if seen.is_empty() {
        return None;
    }
    let mut moved: Vec<String> = Vec::new();
    let mut count = 0usize;
    for s in &mut study.subjects {
        let (Some(alive), None) = (s.last_alive, s.death) else {
            continue;
        };
        if let Some(&later) = seen.get(&*s.usubjid).filter(|&&d| d > alive) {
            count += 1;
            if moved.len() < SUBJECTS_LISTED {
                moved.push(format!("{} (LSTALVDT {alive}, seen {later})", s.usubjid));
            }
            s.last_alive = Some(later);
        }
    }
    (count > 0).then(|| {
        let more = count - moved.len();
        format!(
            "{count} subject(s) have an assessment or adverse event after their LSTALVDT; \
             overall survival is censored at that later date: {}{}",
            moved.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    })
}

impl LoadedConfig {
    /// Study-level analysis settings (used where data are read once for all cohorts).
    pub fn analysis_for_study(&self) -> crate::config::Analysis {
        self.config
            .analysis
            .resolve(&crate::config::AnalysisConfig::default())
    }
}

/// A data file read whole, with its header indexed. Cells are read as UTF-8 text.
///
/// The cells of all rows live in one byte buffer (for a CSV file without quotes, the file
/// itself), so a table of millions of rows costs a few allocations, not a few per row. A file
/// without quotes keeps only where each row starts and ends: its cells are split at the commas
/// when the row is read (keeping every cell's offsets cost 8 bytes per cell, twice the file).
pub struct CsvTable {
    path: PathBuf,
    sha256: String,
    headers: Vec<String>,
    index: HashMap<String, usize>,
    /// The bytes the cells are in.
    cells: Cells,
    /// Where the cells or rows are in `cells`.
    layout: Layout,
    /// The line number of each row.
    lines: Lines,
}

/// Where the cells of a table are.
enum Layout {
    /// Start and end of each cell: row `r`, column `c` is entry `r * width + c` (a file with
    /// quotes, whose cells were unquoted into a new buffer; a SAS file).
    Cells(Vec<[u32; 2]>),
    /// Start and end of each row (without its line end), whose cells are separated by commas
    /// (a CSV file without quotes, checked to have as many fields on every row as the header).
    Rows(Vec<[u32; 2]>),
}

/// The line numbers (1 = the header's line) of a table's rows.
#[derive(Clone)]
enum Lines {
    /// Row `r` is on line `first + r` (no blank lines between rows).
    From { first: u64, rows: usize },
    /// Each row's line.
    Each(Vec<u64>),
}

impl Lines {
    fn len(&self) -> usize {
        match self {
            Lines::From { rows, .. } => *rows,
            Lines::Each(lines) => lines.len(),
        }
    }

    /// The line of row `row` (0 when out of range).
    fn get(&self, row: usize) -> u64 {
        match self {
            Lines::From { first, rows } if row < *rows => first + row as u64,
            Lines::From { .. } => 0,
            Lines::Each(lines) => lines.get(row).copied().unwrap_or(0),
        }
    }
}

/// The bytes the cells of a table are in: text when the whole buffer is valid UTF-8 (checked
/// once: checking each of 10 million cells was a tenth of a large build), else bytes checked
/// cell by cell, so that a bad cell is named by its line and column.
enum Cells {
    Text(String),
    Bytes(Vec<u8>),
}

impl Cells {
    fn new(bytes: Vec<u8>) -> Cells {
        match String::from_utf8(bytes) {
            Ok(text) => Cells::Text(text),
            Err(e) => Cells::Bytes(e.into_bytes()),
        }
    }

    /// All the bytes.
    fn all(&self) -> &[u8] {
        match self {
            Cells::Text(text) => text.as_bytes(),
            Cells::Bytes(bytes) => bytes,
        }
    }

    /// The text `start..end`, `None` when it is not valid UTF-8.
    #[inline]
    fn text(&self, start: usize, end: usize) -> Option<&str> {
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
    table: &'t CsvTable,
    line: u64,
    cells: RowCells<'t, 's>,
}

/// Where the cells of one row are.
enum RowCells<'t, 's> {
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
    fn split(start: usize, bytes: &'t [u8], commas: &'s mut Vec<u32>) -> RowCells<'t, 's> {
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
    fn span(&self, column: usize) -> (usize, usize) {
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

impl CsvTable {
    /// Reads and checks a data file, chosen by its extension: `.xpt` is a SAS transport v5
    /// file ([`crate::xpt`]) and `.sas7bdat` a SAS dataset ([`crate::sas7bdat`]), both read
    /// into text cells (dates and datetimes as ISO text, missing numbers as empty cells; the
    /// "line" of an error is the observation number); anything else is CSV: UTF-8 (a
    /// BOM is skipped), a header with unique names, at least one data row, the same number of
    /// fields on every row. CRLF is accepted.
    pub fn read(path: &Path) -> Result<CsvTable> {
        check_file_size(path)?;
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, "cannot read data file", e))?;
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("xpt") => {
                let table = crate::xpt::parse(&bytes).map_err(|e| Error::Data {
                    file: path.to_path_buf(),
                    location: format!("{}: ", e.location()),
                    message: e.message,
                })?;
                let headers = table.variables.into_iter().map(|v| v.name).collect();
                CsvTable::from_text_rows(path, sha256_hex(&bytes), headers, table.rows)
            }
            Some("sas7bdat") => {
                let sha256 = sha256_hex(&bytes);
                let table = crate::sas7bdat::parse(bytes).map_err(|message| Error::Data {
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
        let mut index = HashMap::new();
        for (i, name) in headers.iter().enumerate() {
            if index.insert(name.clone(), i).is_some() {
                return Err(Error::data_file(
                    path,
                    format!("variable `{name}` appears twice; expected unique variable names"),
                ));
            }
        }
        if rows.is_empty() {
            return Err(Error::data_file(
                path,
                "the dataset has variables but no observations; expected one observation per record",
            ));
        }
        let mut cells = String::new();
        let mut spans = Vec::with_capacity(rows.len() * headers.len());
        let mut lines = Vec::with_capacity(rows.len());
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
            lines.push(i as u64 + 1);
        }
        Ok(CsvTable {
            path: path.to_path_buf(),
            sha256,
            headers,
            index,
            // Text already: no second UTF-8 check.
            cells: Cells::Text(cells),
            layout: Layout::Cells(spans),
            lines: Lines::Each(lines),
        })
    }

    /// As [`CsvTable::read`], from bytes already in memory (`path` names them in errors).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<CsvTable> {
        CsvTable::from_vec(path, bytes.to_vec())
    }

    /// As [`CsvTable::from_bytes`], keeping the bytes: a file without quotes is split in place,
    /// in parallel chunks (see [`split_plain`]); any other goes through the `csv` crate. Both
    /// give the same cells, line numbers and errors. The SHA-256 is computed alongside.
    fn from_vec(path: &Path, bytes: Vec<u8>) -> Result<CsvTable> {
        CsvTable::from_vec_as(path, bytes, true)
    }

    /// [`CsvTable::from_vec`], with the in-place splitter allowed or not (tests compare the two
    /// readings).
    fn from_vec_as(path: &Path, bytes: Vec<u8>, split_in_place: bool) -> Result<CsvTable> {
        if u32::try_from(bytes.len()).is_err() {
            return Err(Error::data_file(
                path,
                format!("the file is {} bytes; readout reads data files of at most {MAX_DATA_FILE_BYTES} bytes (1 GiB)", bytes.len()),
            ));
        }
        let (sha256, parsed) = rayon::join(
            || sha256_hex(&bytes),
            || parse_csv(path, &bytes, split_in_place, 0, true),
        );
        Ok(CsvTable::from_parsed(path, sha256, bytes, parsed?))
    }

    fn from_parsed(path: &Path, sha256: String, bytes: Vec<u8>, parsed: Parsed) -> CsvTable {
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
    /// alongside.
    pub fn read_parts(
        path: &Path,
        part_bytes: usize,
        mut each: impl FnMut(&CsvTable, usize, usize) -> Result<bool> + Send,
    ) -> Result<InputFile> {
        let whole = |each: &mut dyn FnMut(&CsvTable, usize, usize) -> Result<bool>| {
            let table = CsvTable::read(path)?;
            each(&table, 0, table.len())?;
            Ok(table.input_file())
        };
        let part_bytes = part_bytes.max(1);
        let Some(file_len) = parts_length(path, part_bytes) else {
            return whole(&mut each);
        };
        let io = |e| Error::io(path, "cannot read data file", e);
        let mut file = std::fs::File::open(path).map_err(io)?;
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
                return whole(&mut each);
            }
            read += part.read;
            let first = header.is_none();
            // Line 2 of a later part (its first data line) is line `next_line` of the file.
            let shift = if first { 0 } else { next_line - 2 };
            next_line += part.line_feeds;
            let parsed = match parse_csv(path, &part.bytes, true, shift, first && part.at_end) {
                Ok(parsed) => parsed,
                // The whole file's error (an empty file, say, or one whose header is late).
                Err(_) if first && !part.at_end => return whole(&mut each),
                Err(e) => return Err(e),
            };
            let at_end = part.at_end;
            // The header line as written (its names trimmed could make a blank line).
            let header = header.get_or_insert_with(|| {
                let mut line = header_line(&part.bytes, bom_len(&part.bytes)).0.to_vec();
                line.push(b'\n');
                line
            });
            let table = CsvTable::from_parsed(path, String::new(), part.bytes, parsed);
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
                None if rows_before == 0 => return whole(&mut each), // no data rows
                None => break,
            }
        }
        Ok(InputFile {
            path: path.display().to_string(),
            sha256: digest_hex(hasher.finalize()),
        })
    }

    /// The table's byte buffer, for reuse.
    fn into_bytes(self) -> Vec<u8> {
        let mut bytes = match self.cells {
            Cells::Text(text) => text.into_bytes(),
            Cells::Bytes(bytes) => bytes,
        };
        bytes.clear();
        bytes
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
    #[cfg(test)]
    fn line(&self, row: usize) -> u64 {
        self.lines.get(row)
    }

    /// The raw bytes of a cell (empty when out of range).
    #[cfg(test)]
    fn cell(&self, row: usize, column: usize) -> &[u8] {
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

    fn input_file(&self) -> InputFile {
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
    fn row<'s>(&self, row: usize, commas: &'s mut Vec<u32>) -> Row<'_, 's> {
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

/// Refuses a file over [`MAX_DATA_FILE_BYTES`] before reading it.
fn check_file_size(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read data file", e))?;
    if meta.is_file() && meta.len() > MAX_DATA_FILE_BYTES {
        return Err(Error::data_file(
            path,
            format!(
                "the file is {} bytes; readout reads data files of at most {MAX_DATA_FILE_BYTES} bytes (1 GiB)",
                meta.len()
            ),
        ));
    }
    Ok(())
}

/// A cell's span as `u32` offsets (tables are at most 4 GiB of cell text).
fn span(path: &Path, start: usize, end: usize) -> Result<[u32; 2]> {
    match (u32::try_from(start), u32::try_from(end)) {
        (Ok(s), Ok(e)) => Ok([s, e]),
        _ => Err(Error::data_file(
            path,
            "the table holds over 4 GiB of text; readout reads smaller tables",
        )),
    }
}

/// The next part of a file read in parts ([`CsvTable::read_parts`]).
struct RawPart {
    /// The header line (none for the first part), then whole lines of the file.
    bytes: Vec<u8>,
    /// Bytes read from the file for this part.
    read: u64,
    /// Line feeds after the header line (in the first part, all of them).
    line_feeds: u64,
    /// Whether the file ended.
    at_end: bool,
    /// No `"` and no `\r` but before a `\n`: rows are lines.
    plain: bool,
}

/// Reads the next part into `buf`: `header`, the `carry` left by the last part, then the
/// file's next bytes up to their last line feed (all of them at the end of the file); the
/// bytes after that line feed are the new `carry`. The bytes read are hashed in file order.
fn read_part(
    file: &mut std::fs::File,
    header: &[u8],
    carry: &mut Vec<u8>,
    mut buf: Vec<u8>,
    part_bytes: usize,
    hasher: &mut Sha256,
) -> std::io::Result<RawPart> {
    use std::io::Read;
    buf.clear();
    buf.extend_from_slice(header);
    let prefix = buf.len();
    buf.append(carry);
    let mut read = 0u64;
    let at_end = loop {
        let fresh = buf.len();
        let n = file
            .by_ref()
            .take(part_bytes as u64)
            .read_to_end(&mut buf)?;
        read += n as u64;
        let new = buf.get(fresh..).unwrap_or_default();
        hasher.update(new);
        if n < part_bytes {
            break true;
        }
        if let Some(p) = memchr::memrchr(b'\n', new) {
            carry.extend_from_slice(new.get(p + 1..).unwrap_or_default());
            buf.truncate(fresh + p + 1);
            break false;
        }
        // A line longer than a part: read on.
    };
    let data = buf.get(prefix..).unwrap_or_default();
    let plain = memchr::memchr(b'"', data).is_none()
        && memchr::memchr_iter(b'\r', data).all(|p| data.get(p + 1) == Some(&b'\n'));
    Ok(RawPart {
        line_feeds: memchr::memchr_iter(b'\n', data).count() as u64,
        bytes: buf,
        read,
        at_end,
        plain,
    })
}

/// A parsed CSV file.
struct Parsed {
    headers: Vec<String>,
    index: HashMap<String, usize>,
    layout: Layout,
    lines: Lines,
    /// The buffer the spans point into, when it is not the file's own bytes.
    cells: Option<Vec<u8>>,
}

/// Parses a CSV file: the header, then every row; a file without quotes is split in place
/// when `split_in_place`, any other through the `csv` crate.
///
/// `shift` is added to every line number (a part of a file read in parts starts further
/// down); a file without data rows is refused when `require_rows`.
fn parse_csv(
    path: &Path,
    bytes: &[u8],
    split_in_place: bool,
    shift: u64,
    require_rows: bool,
) -> Result<Parsed> {
    let bom = bom_len(bytes);
    let body = bytes.get(bom..).unwrap_or_default();
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(Error::data_file(
            path,
            "the file is empty; expected a header row and one row per record",
        ));
    }
    let plain = split_in_place && memchr::memchr(b'"', body).is_none();
    let parsed = if plain {
        split_plain(path, bytes, bom, shift)?
    } else {
        None
    };
    let parsed = match parsed {
        Some(parsed) => parsed,
        None => parse_quoted(path, body)?,
    };
    if require_rows && parsed.lines.len() == 0 {
        return Err(Error::data_file(
            path,
            "the file has a header but no data rows; expected one row per record",
        ));
    }
    Ok(parsed)
}

/// Header names from raw header fields: UTF-8, trimmed, unique.
fn header_names<'b>(
    path: &Path,
    fields: impl Iterator<Item = &'b [u8]>,
) -> Result<(Vec<String>, HashMap<String, usize>)> {
    let mut headers = Vec::new();
    let mut index = HashMap::new();
    for (i, raw) in fields.enumerate() {
        let name = std::str::from_utf8(raw)
            .map_err(|_| Error::Data {
                file: path.to_path_buf(),
                location: "line 1: ".to_string(),
                message: format!(
                    "header field {} is not valid UTF-8; save the file as UTF-8 (it looks like Latin-1 or Windows-1252)",
                    i + 1
                ),
            })?
            .trim()
            .to_string();
        if let Some((_, c)) = crate::error::find_refused_control(&name) {
            return Err(Error::Data {
                file: path.to_path_buf(),
                location: "line 1: ".to_string(),
                message: format!(
                    "header field {} (`{}`) holds the control character U+{:04X}; expected a \
                     column name without control characters",
                    i + 1,
                    crate::error::escape_controls(&name, false),
                    c as u32
                ),
            });
        }
        if index.insert(name.clone(), i).is_some() {
            return Err(Error::Data {
                file: path.to_path_buf(),
                location: "line 1: ".to_string(),
                message: format!("column `{name}` appears twice; expected unique column names"),
            });
        }
        headers.push(name);
    }
    Ok((headers, index))
}

/// The `csv` crate's reading, for files with quotes: cells are unquoted into a new buffer.
fn parse_quoted(path: &Path, body: &[u8]) -> Result<Parsed> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(body);
    let header = match reader.byte_headers() {
        Ok(header) => header.clone(),
        Err(e) => {
            let line = e
                .position()
                .map(|p| LineCounter::default().line_at(body, p.byte() as usize));
            return Err(csv_error(path, e, line));
        }
    };
    let (headers, index) = header_names(path, header.iter())?;
    let mut cells = Vec::with_capacity(body.len());
    let mut spans = Vec::new();
    let mut lines = Vec::new();
    let mut record = csv::ByteRecord::new();
    let mut counter = LineCounter::default();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {
                let byte = record.position().map_or(0, |p| p.byte() as usize);
                let line = counter.line_at(body, byte);
                if record.len() == 1 && record.get(0).is_some_and(|f| f.is_empty()) {
                    continue; // a blank line
                }
                if record.as_slice().len() > MAX_RECORD_BYTES {
                    return Err(record_too_long(path, line, record.as_slice().len()));
                }
                for field in record.iter() {
                    let start = cells.len();
                    cells.extend_from_slice(field);
                    spans.push(span(path, start, cells.len())?);
                }
                lines.push(line);
            }
            Ok(false) => break,
            Err(e) => {
                let line = e
                    .position()
                    .map(|p| counter.line_at(body, p.byte() as usize));
                return Err(csv_error(path, e, line));
            }
        }
    }
    Ok(Parsed {
        headers,
        index,
        layout: Layout::Cells(spans),
        lines: Lines::Each(lines),
        cells: Some(cells),
    })
}

/// What went wrong on a line of a plain file (line numbers relative to a chunk until fixed).
enum PlainError {
    /// The row has this many fields.
    Fields(usize),
    /// The row holds this many bytes of cell text.
    TooLong(usize),
}

/// One chunk of a plain file: its rows, the line numbers of its rows relative to the chunk's
/// first line when it holds blank lines, the number of lines it holds, and its first error.
struct PlainChunk {
    rows: Vec<[u32; 2]>,
    /// Set at the first blank line (until then, row `i` is on line `i`).
    lines: Option<Vec<u64>>,
    line_count: u64,
    error: Option<(u64, PlainError)>,
    /// A lone carriage return: the chunk cannot be split on line feeds alone.
    lone_cr: bool,
}

/// The length of the UTF-8 byte order mark `bytes` start with (0 or 3).
fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// The header line of a file without quotes (after `bom` bytes): the first line that is not
/// blank, as the `csv` crate skips blank lines. Returns the line (without its line end), the
/// offset of its line feed (or the end of `bytes`) and its line number.
fn header_line(bytes: &[u8], bom: usize) -> (&[u8], usize, u64) {
    let mut start = bom;
    let mut number = 1u64;
    loop {
        let rest = bytes.get(start..).unwrap_or_default();
        let end = start + memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let line = bytes.get(start..end).unwrap_or_default();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.is_empty() || end >= bytes.len() {
            return (line, end, number);
        }
        start = end + 1;
        number += 1;
    }
}

/// Splits a CSV file without any `"`: rows end at `\n` (a `\r` before it is dropped), cells at
/// `,`, blank lines are skipped, as the `csv` crate does. The rows are found in parallel
/// chunks cut at line ends, and each is checked to have as many fields as the header; only
/// where each row starts and ends is kept. `None` when a lone `\r` (an old Mac line end) means
/// the file needs the `csv` crate after all.
fn split_plain(path: &Path, bytes: &[u8], bom: usize, shift: u64) -> Result<Option<Parsed>> {
    use rayon::prelude::*;
    let (header_line, header_end, header_number) = header_line(bytes, bom);
    if memchr::memchr(b'\r', header_line).is_some() {
        return Ok(None);
    }
    let (headers, index) = header_names(path, header_line.split(|&b| b == b','))?;
    let width = headers.len();
    // Data rows start after the header's line end (offsets are into `bytes`).
    let data_start = (header_end + 1).min(bytes.len());
    let data = bytes.get(data_start..).unwrap_or_default();
    // Chunks of at least 1 MiB, cut just after a line feed.
    let pieces = (data.len() / (1 << 20)).clamp(1, 4 * rayon::current_num_threads());
    let mut bounds = vec![0usize];
    for k in 1..pieces {
        let guess = data.len() * k / pieces;
        let cut = match memchr::memchr(b'\n', data.get(guess..).unwrap_or_default()) {
            Some(p) => guess + p + 1,
            None => data.len(),
        };
        if cut > *bounds.last().unwrap_or(&0) && cut < data.len() {
            bounds.push(cut);
        }
    }
    bounds.push(data.len());
    let chunks: Vec<PlainChunk> = bounds
        .par_windows(2)
        .map(|w| {
            let (from, to) = (
                w.first().copied().unwrap_or(0),
                w.get(1).copied().unwrap_or(0),
            );
            split_chunk(
                data.get(from..to).unwrap_or_default(),
                data_start + from,
                width,
            )
        })
        .collect();
    if chunks.iter().any(|c| c.lone_cr) {
        return Ok(None);
    }
    let count: usize = chunks.iter().map(|c| c.rows.len()).sum();
    let blank_lines = chunks.iter().any(|c| c.lines.is_some());
    let mut rows = Vec::with_capacity(count);
    let mut lines = Vec::with_capacity(if blank_lines { count } else { 0 });
    let first = header_number + 1 + shift;
    let mut first_line = first;
    for chunk in chunks {
        if let Some((rel, error)) = chunk.error {
            let line = first_line + rel;
            return Err(match error {
                PlainError::Fields(n) => Error::Data {
                    file: path.to_path_buf(),
                    location: format!("line {line}: "),
                    message: wrong_field_count(n, width),
                },
                PlainError::TooLong(len) => record_too_long(path, line, len),
            });
        }
        if blank_lines {
            match &chunk.lines {
                Some(rel) => lines.extend(rel.iter().map(|rel| first_line + rel)),
                None => lines.extend((0..chunk.rows.len() as u64).map(|rel| first_line + rel)),
            }
        }
        rows.extend_from_slice(&chunk.rows);
        first_line += chunk.line_count;
    }
    Ok(Some(Parsed {
        headers,
        index,
        layout: Layout::Rows(rows),
        lines: if blank_lines {
            Lines::Each(lines)
        } else {
            Lines::From { first, rows: count }
        },
        cells: None,
    }))
}

/// Finds and checks the rows of one chunk (`offset`: where the chunk starts in the file's
/// bytes), in one pass over its commas and line feeds.
fn split_chunk(chunk: &[u8], offset: usize, width: usize) -> PlainChunk {
    let mut out = PlainChunk {
        rows: Vec::with_capacity(chunk.len() / (8 * width.max(1))),
        lines: None,
        line_count: 0,
        error: None,
        lone_cr: false,
    };
    // A carriage return must end a line (CRLF); any other is an old Mac line end.
    if memchr::memchr_iter(b'\r', chunk).any(|p| chunk.get(p + 1) != Some(&b'\n')) {
        out.lone_cr = true;
        return out;
    }
    // Line by line: a line feed found with memchr, the commas before it counted in a loop the
    // compiler vectorises (faster than stopping at every comma).
    let mut start = 0;
    while start < chunk.len() {
        let rest = chunk.get(start..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).map_or(chunk.len(), |p| start + p);
        let commas = count_commas(chunk.get(start..end).unwrap_or_default());
        if !finish_line(&mut out, chunk, offset, start..end, commas, width) {
            break;
        }
        start = end + 1;
    }
    out
}

/// The number of commas in `bytes`.
fn count_commas(bytes: &[u8]) -> usize {
    bytes.iter().fold(0, |n, &b| n + usize::from(b == b','))
}

/// Ends the line `line` (up to its line feed, or the chunk's end) holding `commas` commas: a
/// row, or a blank line, or an error. `false` when the chunk stops here.
fn finish_line(
    out: &mut PlainChunk,
    chunk: &[u8],
    offset: usize,
    line: std::ops::Range<usize>,
    commas: usize,
    width: usize,
) -> bool {
    let rel = out.line_count;
    out.line_count += 1;
    let end = if line.end > line.start && chunk.get(line.end - 1) == Some(&b'\r') {
        line.end - 1
    } else {
        line.end
    };
    let fields = commas + 1;
    if fields == 1 && end == line.start {
        // A blank line: from here on, rows are not on consecutive lines.
        if out.lines.is_none() {
            out.lines = Some((0..out.rows.len() as u64).collect());
        }
        return true;
    }
    if fields != width {
        out.error = Some((rel, PlainError::Fields(fields)));
        return false;
    }
    let text = end - line.start - (fields - 1);
    if text > MAX_RECORD_BYTES {
        out.error = Some((rel, PlainError::TooLong(text)));
        return false;
    }
    // Offsets fit in `u32`: the caller refuses files of 4 GiB or more.
    out.rows
        .push([(offset + line.start) as u32, (offset + end) as u32]);
    if let Some(lines) = &mut out.lines {
        lines.push(rel);
    }
    true
}

/// The message for a row whose field count differs from the header's (both readings).
fn wrong_field_count(fields: usize, width: usize) -> String {
    let plural = if fields == 1 { "" } else { "s" };
    format!("the row has {fields} field{plural}; expected {width} like the header")
}

fn record_too_long(path: &Path, line: u64, len: usize) -> Error {
    Error::Data {
        file: path.to_path_buf(),
        location: format!("line {line}: "),
        message: format!(
            "the row holds {len} bytes; expected at most {MAX_RECORD_BYTES} (1 MiB) per row: are the line ends or the quotes broken?"
        ),
    }
}

/// Line numbers as an editor shows them, from the byte offsets the `csv` crate gives (its own
/// line count is off after CRLF line ends and blank lines). A record's offset may point at the
/// line end before it, so line ends there are skipped first; a line ends at `\n`, `\r\n` or a
/// lone `\r`.
#[derive(Default)]
struct LineCounter {
    /// Bytes counted so far.
    upto: usize,
    /// Line ends before `upto`.
    ends: u64,
}

impl LineCounter {
    /// The line of the record whose offset is `byte` (offsets only grow).
    fn line_at(&mut self, body: &[u8], byte: usize) -> u64 {
        let mut start = byte.min(body.len());
        while matches!(body.get(start), Some(b'\r' | b'\n')) {
            start += 1;
        }
        if start > self.upto {
            let part = body.get(self.upto..start).unwrap_or_default();
            let lf = memchr::memchr_iter(b'\n', part).count();
            let lone_cr = memchr::memchr_iter(b'\r', part)
                .filter(|&i| {
                    // A `\r` followed by `\n` (possibly just past this part) is one line end.
                    body.get(self.upto + i + 1) != Some(&b'\n')
                })
                .count();
            self.ends += (lf + lone_cr) as u64;
            self.upto = start;
        }
        self.ends + 1
    }
}

fn csv_error(path: &Path, e: csv::Error, line: Option<u64>) -> Error {
    let location = match line {
        Some(line) => format!("line {line}: "),
        None => String::new(),
    };
    let message = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => wrong_field_count(*len as usize, *expected_len as usize),
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => format!("not valid CSV: {e}"),
    };
    Error::Data {
        file: path.to_path_buf(),
        location,
        message,
    }
}

impl<'t> Row<'t, '_> {
    /// Line number in the file (1 is the header).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// A cell as trimmed text; `""` when the column is absent. Inlined into the readers (it
    /// runs for every cell read: ten million times for 10^6 subjects).
    #[inline]
    pub fn text(&self, column: Option<usize>) -> Result<&'t str> {
        let Some(i) = column else { return Ok("") };
        let (start, end) = self.cells.span(i);
        match self.table.cells.text(start, end) {
            Some(text) => {
                let text = trim_cell(text);
                match crate::error::find_refused_control(text) {
                    None => Ok(text),
                    Some((_, c)) => Err(self.control_character(i, text, c)),
                }
            }
            None => Err(self.not_utf8(i)),
        }
    }

    /// Control characters are refused in data, not replaced: they corrupt SVG and Word files
    /// and drive terminals, and a value that holds one is not what the data meant to say.
    #[cold]
    fn control_character(&self, column: usize, text: &str, c: char) -> Error {
        self.error(
            column,
            format!(
                "`{}` holds the control character U+{:04X}; expected text without control \
                 characters (tab and line breaks are allowed)",
                crate::error::escape_controls(text, false),
                c as u32
            ),
        )
    }

    #[cold]
    fn not_utf8(&self, column: usize) -> Error {
        self.error(
            column,
            "the cell is not valid UTF-8; save the file as UTF-8 (it looks like Latin-1 or Windows-1252)",
        )
    }

    /// A cell as text, `None` when empty or absent.
    pub fn opt_text(&self, column: Option<usize>) -> Result<Option<&'t str>> {
        let t = self.text(column)?;
        Ok(if t.is_empty() { None } else { Some(t) })
    }

    /// A date cell (`YYYY-MM-DD`, or an ISO datetime whose date part is taken).
    pub fn date(&self, column: Option<usize>) -> Result<Option<Date>> {
        let Some(text) = self.opt_text(column)? else {
            return Ok(None);
        };
        match parse_iso_date(text) {
            Some(d) if is_plausible_date(d) => Ok(Some(d)),
            Some(_) => Err(self.error(
                column.unwrap_or(0),
                format!(
                    "`{text}` is outside the dates a trial can have; expected {} to {}",
                    PLAUSIBLE_DATES.0, PLAUSIBLE_DATES.1
                ),
            )),
            _ => Err(self.error(
                column.unwrap_or(0),
                format!(
                    "`{text}` is not a date; expected YYYY-MM-DD or an ISO 8601 datetime \
                     (YYYY-MM-DDThh:mm:ss)"
                ),
            )),
        }
    }

    /// A numeric cell; `None` when empty. NaN and infinities are errors.
    pub fn number(&self, column: Option<usize>) -> Result<Option<f64>> {
        let Some(text) = self.opt_text(column)? else {
            return Ok(None);
        };
        if let Some(x) = small_integer(text) {
            return Ok(Some(x));
        }
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(self.error(
                column.unwrap_or(0),
                format!("`{text}` is not a number; expected a finite decimal number"),
            )),
        }
    }

    /// A data error at this row and column.
    pub fn error(&self, column: usize, message: impl Into<String>) -> Error {
        let name = self
            .table
            .headers
            .get(column)
            .map(String::as_str)
            .unwrap_or("?");
        Error::cell(&self.table.path, self.line, name, message)
    }
}

/// A whole number of up to 15 digits (times in days usually are), exactly as `str::parse`
/// reads it (such a number is exact in an `f64`), at a third of the cost; `None` for any
/// other text, which goes to the full parser.
#[inline]
fn small_integer(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    if b.is_empty() || b.len() > 15 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = b.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Some(n as f64)
}

/// A cell without the white space around it. Most cells start and end with a visible ASCII
/// character and are returned as they are (Unicode trimming was a tenth of reading a row).
fn trim_cell(text: &str) -> &str {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// Whether `b` is the time part of an ISO 8601 datetime after its date: `T` (or a space)
/// and `hh`, `hh:mm` or `hh:mm:ss` (with a fraction), optionally `Z` or an offset `±hh:mm`.
fn is_iso_time(b: &[u8]) -> bool {
    let two = |at: usize, max: u8| -> bool {
        matches!(b.get(at..at + 2), Some([h, l]) if h.is_ascii_digit() && l.is_ascii_digit()
            && (h - b'0') * 10 + (l - b'0') <= max)
    };
    if !matches!(b.first(), Some(b'T' | b' ')) || !two(1, 23) {
        return false;
    }
    let mut i = 3;
    for max in [59, 60] {
        if b.get(i) == Some(&b':') && two(i + 1, max) {
            i += 3;
        } else {
            break;
        }
    }
    if i == 9 && matches!(b.get(i), Some(b'.' | b',')) {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &b[i..] {
        [] | [b'Z'] => true,
        [b'+' | b'-', rest @ ..] => {
            let zone = |r: &[u8]| matches!(r, [a, b2] if a.is_ascii_digit() && b2.is_ascii_digit());
            match rest {
                [h @ .., b':', m1, m2] => zone(h) && zone(&[*m1, *m2]),
                [h1, h2, m1, m2] => zone(&[*h1, *h2]) && zone(&[*m1, *m2]),
                h => zone(h),
            }
        }
        _ => false,
    }
}

/// The earliest and latest dates a trial's data may hold: anything outside is a typing error
/// or a placeholder (`0000-01-01`, `9999-12-31`) that would make times of centuries.
pub const PLAUSIBLE_DATES: (&str, &str) = ("1900-01-01", "2100-12-31");

/// Whether `date` lies in [`PLAUSIBLE_DATES`].
pub fn is_plausible_date(date: Date) -> bool {
    use chrono::Datelike;
    (1900..=2100).contains(&date.year())
}

/// `YYYY-MM-DD`, optionally followed by an ISO 8601 time ([`is_iso_time`]; a datetime whose
/// date is taken). Hand-written because it runs once per date cell: chrono's format parser is
/// ten times slower.
pub fn parse_iso_date(text: &str) -> Option<Date> {
    let b = text.as_bytes();
    if b.len() < 10 || (b.len() > 10 && !is_iso_time(&b[10..])) {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(range)?;
        if part.iter().all(u8::is_ascii_digit) {
            Some(part.iter().fold(0, |acc, d| acc * 10 + u32::from(d - b'0')))
        } else {
            None
        }
    };
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if month > 12 || day > 31 {
        return None;
    }
    // A thread's recent dates, by (year, month, day): a study's dates fall on a few thousand
    // days, and chrono's calendar arithmetic was most of the time spent on a date cell.
    let key = (year << 9) | (month << 5) | day;
    let slot = (key as usize) % DATE_CACHE_SLOTS;
    if let Some(date) = DATE_CACHE.with(|cache| {
        cache
            .get(slot)
            .map(std::cell::Cell::get)
            .and_then(|(k, date)| (k == key + 1).then_some(date))
    }) {
        return Some(date);
    }
    let date = Date::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    DATE_CACHE.with(|cache| {
        if let Some(cell) = cache.get(slot) {
            cell.set((key + 1, date));
        }
    });
    Some(date)
}

/// Slots of [`DATE_CACHE`]: eight years of days without two sharing a slot.
const DATE_CACHE_SLOTS: usize = 4096;

thread_local! {
    /// Valid dates parsed on this thread, as (key + 1, date); key 0 is an empty slot.
    static DATE_CACHE: [std::cell::Cell<(u32, Date)>; DATE_CACHE_SLOTS] =
        const { [const { std::cell::Cell::new((0, Date::MIN)) }; DATE_CACHE_SLOTS] };
}

/// The subject ids of ADSL in file order, for checking that other tables name only known
/// subjects and for finding a record's subject. ADSL is usually sorted by `USUBJID`; then
/// the ids are found by binary search and cannot repeat, and no hash table is built.
#[derive(Debug, Default)]
pub struct KnownSubjects<'a> {
    ids: Ids<'a>,
    /// Positions by id, when the ids are not strictly increasing.
    index: Option<FxHashMap<&'a str, usize>>,
}

/// Where [`KnownSubjects`] reads its ids: the subjects themselves (no copy: 16 bytes a subject
/// at 10^7 subjects was 160 MB), or a list.
#[derive(Debug)]
enum Ids<'a> {
    Subjects(&'a [Subject]),
    Listed(Vec<&'a str>),
}

impl Default for Ids<'_> {
    fn default() -> Self {
        Ids::Listed(Vec::new())
    }
}

impl<'a> Ids<'a> {
    fn len(&self) -> usize {
        match self {
            Ids::Subjects(subjects) => subjects.len(),
            Ids::Listed(ids) => ids.len(),
        }
    }

    #[inline]
    fn get(&self, position: usize) -> Option<&'a str> {
        match self {
            Ids::Subjects(subjects) => subjects.get(position).map(|s| s.usubjid.as_str()),
            Ids::Listed(ids) => ids.get(position).copied(),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    fn binary_search(&self, id: &str) -> Option<usize> {
        match self {
            Ids::Subjects(subjects) => subjects.binary_search_by(|s| (*s.usubjid).cmp(id)),
            Ids::Listed(ids) => ids.binary_search(&id),
        }
        .ok()
    }
}

impl<'a> FromIterator<&'a str> for KnownSubjects<'a> {
    /// The ids in order; an id given twice is found at its last position.
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let ids = Ids::Listed(iter.into_iter().collect());
        KnownSubjects::of(ids).unwrap_or_else(|(ids, _)| {
            let mut index = FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
            index.extend(ids.iter().enumerate().map(|(i, id)| (id, i)));
            KnownSubjects {
                ids,
                index: Some(index),
            }
        })
    }
}

/// The positions of an id that appears twice: its first and its second.
pub type Repeat = (usize, usize);

impl<'a> KnownSubjects<'a> {
    /// The ids of `subjects` (in ADSL order), or the positions of the first id that appears
    /// twice.
    pub fn of_subjects(subjects: &'a [Subject]) -> std::result::Result<Self, Repeat> {
        KnownSubjects::of(Ids::Subjects(subjects)).map_err(|(_, repeat)| repeat)
    }

    /// The subjects of `ids` (in ADSL order), or the positions of the first id that appears
    /// twice.
    pub fn new(ids: Vec<&'a str>) -> std::result::Result<Self, Repeat> {
        KnownSubjects::of(Ids::Listed(ids)).map_err(|(_, repeat)| repeat)
    }

    fn of(ids: Ids<'a>) -> std::result::Result<Self, (Ids<'a>, Repeat)> {
        // Strictly increasing: sorted, and no id twice.
        if ids.iter().is_sorted_by(|a, b| a < b) {
            return Ok(KnownSubjects { ids, index: None });
        }
        let mut index = FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
        let repeat = ids
            .iter()
            .enumerate()
            .find_map(|(i, id)| index.insert(id, i).map(|first| (first, i)));
        if let Some(repeat) = repeat {
            return Err((ids, repeat));
        }
        Ok(KnownSubjects {
            ids,
            index: Some(index),
        })
    }

    /// Number of subjects.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no subjects.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of the subject at `position` (empty when out of range).
    pub fn id(&self, position: usize) -> &'a str {
        self.ids.get(position).unwrap_or_default()
    }

    /// Whether the subject is in ADSL.
    pub fn contains(&self, id: &str) -> bool {
        self.find(id, &mut 0).is_some()
    }

    /// The subject's position in ADSL. Tables are usually sorted like ADSL, so the subject
    /// of the previous row (`hint`) and the next one are tried before the look-up.
    pub fn find(&self, id: &str, hint: &mut usize) -> Option<usize> {
        for candidate in [*hint, *hint + 1] {
            if self.ids.get(candidate) == Some(id) {
                *hint = candidate;
                return Some(candidate);
            }
        }
        let found = match &self.index {
            Some(index) => index.get(id).copied()?,
            None => self.ids.binary_search(id)?,
        };
        *hint = found;
        Some(found)
    }
}

/// The ADSL position of a row's subject, or an error naming the row.
fn require_subject(
    row: &Row<'_, '_>,
    col: usize,
    usubjid: &str,
    known: &KnownSubjects<'_>,
    hint: &mut usize,
) -> Result<usize> {
    if usubjid.is_empty() {
        return Err(row.error(col, "USUBJID is empty; expected a subject id"));
    }
    known.find(usubjid, hint).ok_or_else(|| {
        row.error(
            col,
            format!(
                "subject `{usubjid}` is not in ADSL; expected every subject to have an ADSL row"
            ),
        )
    })
}

/// An ADaM flag: `Y` is yes, `N` or empty no (either case), `absent` when the file has no
/// such column. Any other value (`Yes`, `1`) is an error: read as "no", it would drop the
/// subject or the event without a word.
fn flag(row: &Row<'_, '_>, column: Option<usize>, absent: bool) -> Result<bool> {
    let Some(c) = column else {
        return Ok(absent);
    };
    match row.text(column)? {
        t if t.eq_ignore_ascii_case("Y") => Ok(true),
        t if t.is_empty() || t.eq_ignore_ascii_case("N") => Ok(false),
        t => Err(row.error(c, format!("`{t}` is not a flag; expected Y, N or empty"))),
    }
}

/// The ADSL flags of the efficacy population, the first present is used when the config
/// names none.
pub const EFFICACY_FLAGS: [&str; 3] = ["EFFFL", "FASFL", "ITTFL"];

/// ADSL: one row per subject. The efficacy population is the `efficacy_flag` column when
/// given (it must exist), else the first of `EFFFL`, `FASFL`, `ITTFL` present.
pub fn read_adsl(table: &CsvTable, efficacy_flag: Option<&str>) -> Result<Vec<Subject>> {
    read_adsl_columns(table, efficacy_flag, None)
}

/// [`read_adsl`], keeping in [`Subject::columns`] only the named columns (`None`: all of them).
pub fn read_adsl_columns(
    table: &CsvTable,
    efficacy_flag: Option<&str>,
    keep: Option<&FxHashSet<String>>,
) -> Result<Vec<Subject>> {
    let mut reader = AdslReader::new(efficacy_flag, keep, false);
    reader.part(table, 0, table.len())?;
    let subjects = std::mem::take(&mut reader.subjects);
    reader.check(table.path(), &subjects)?;
    Ok(subjects)
}

/// ADSL read part by part ([`CsvTable::read_parts`]): the subjects of the rows read so far (a
/// placeholder for a row that failed), the first row that failed, and what its errors need.
struct AdslReader<'c> {
    efficacy_flag: Option<&'c str>,
    /// Whether ADSL must have `TRTSDT` (responses and derived times start from it).
    needs_trtsdt: bool,
    keep: Option<&'c FxHashSet<String>>,
    subjects: Vec<Subject>,
    /// The ADSL column the efficacy population was read from (`None`: every subject).
    efficacy_column: Option<String>,
    /// Whether ADSL has `SAFFL` (without it every subject is in the safety population).
    has_saffl: bool,
    /// The line numbers of the parts' rows, by first row.
    lines: Vec<(usize, Lines)>,
    /// The first row that failed, its error, and its `USUBJID` (when not empty).
    row_error: Option<(usize, Error, Option<SubjectId>)>,
}

impl<'c> AdslReader<'c> {
    fn new(
        efficacy_flag: Option<&'c str>,
        keep: Option<&'c FxHashSet<String>>,
        needs_trtsdt: bool,
    ) -> Self {
        AdslReader {
            efficacy_flag,
            needs_trtsdt,
            keep,
            subjects: Vec::new(),
            efficacy_column: None,
            has_saffl: false,
            lines: Vec::new(),
            row_error: None,
        }
    }

    /// Converts a part whose first row is row `first_row` of the file (`expected`: the rows
    /// the file is thought to hold); `false` once a row failed.
    fn part(&mut self, table: &CsvTable, first_row: usize, expected: usize) -> Result<bool> {
        self.subjects.truncate(first_row);
        self.lines.retain(|(row, _)| *row < first_row);
        reserve_rows(&mut self.subjects, expected);
        if self.needs_trtsdt && table.column("TRTSDT").is_none() {
            return Err(Error::Data {
                file: table.path.clone(),
                location: "line 1: ".to_string(),
                message: format!(
                    "column `TRTSDT` is missing; responses (`data.adrs`) and times to event \
                     derived without an ADTTE are placed from the first dose, so ADSL needs it; \
                     the header has: {}",
                    table.headers.join(", ")
                ),
            });
        }
        let (c_id, row_error) =
            convert_adsl(table, self.efficacy_flag, self.keep, &mut self.subjects)?;
        self.efficacy_column = match self.efficacy_flag {
            Some(name) => Some(name.to_string()),
            None => table.first_column(&EFFICACY_FLAGS).map(|(_, name)| name),
        };
        self.has_saffl = table.column("SAFFL").is_some();
        self.lines.push((first_row, table.lines.clone()));
        let Some((row, error)) = row_error else {
            return Ok(true);
        };
        let id = table
            .row(row, &mut Vec::new())
            .text(Some(c_id))
            .ok()
            .filter(|id| !id.is_empty())
            .map(SubjectId::from);
        self.row_error = Some((first_row + row, error, id));
        Ok(false)
    }

    /// The line of row `row` of the file.
    fn line(&self, row: usize) -> u64 {
        let part = self.lines.partition_point(|(first, _)| *first <= row);
        self.lines
            .get(part.wrapping_sub(1))
            .map_or(0, |(first, lines)| lines.get(row - first))
    }

    /// The subjects' ids for reading the other tables, checked for repeats among the rows
    /// before the first row that failed (with that row's own id); the first error in file
    /// order. `subjects` are this reader's subjects, moved out.
    fn check<'s>(&mut self, path: &Path, subjects: &'s [Subject]) -> Result<KnownSubjects<'s>> {
        let row_error = self.row_error.take();
        let id_of = |row: usize| subjects.get(row).map_or("", |s| s.usubjid.as_str());
        // The id is named from its first row, which is always a converted subject's.
        let repeated = |(first, again): Repeat| {
            let message = format!(
                "subject `{}` appears again (first on line {}); expected one row per subject",
                id_of(first),
                self.line(first)
            );
            Error::cell(path, self.line(again), "USUBJID", message)
        };
        match row_error {
            None => KnownSubjects::of_subjects(subjects).map_err(repeated),
            Some((row, e, id)) => {
                // The failed row's own id counts too: a row's id is read first, so a repeat
                // is its error rather than a bad cell further along.
                let mut ids: Vec<&str> = (0..row).map(id_of).collect();
                ids.extend(id.as_deref());
                match KnownSubjects::new(ids) {
                    Err(repeat) => Err(repeated(repeat)),
                    Ok(_) => Err(e),
                }
            }
        }
    }
}

/// ADSL's rows converted to subjects in parallel, added to `out` in place (a placeholder for a
/// row that failed); the `USUBJID` column and the first row that failed, or an error for a
/// missing column.
fn convert_adsl(
    table: &CsvTable,
    efficacy_flag: Option<&str>,
    keep: Option<&FxHashSet<String>>,
    out: &mut Vec<Subject>,
) -> Result<(usize, Option<(usize, Error)>)> {
    let kept: Vec<usize> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, name)| keep.is_none_or(|k| k.contains(name.as_str())))
        .map(|(i, _)| i)
        .collect();
    let c_id = table.require("USUBJID")?;
    let columns = AdslColumns {
        site: table.column("SITEID"),
        trts: table.column("TRTSDT"),
        trte: table.column("TRTEDT"),
        enrl: table.first_column(&["ENRLDT", "RANDDT"]).map(|c| c.0),
        dth: table.column("DTHDT"),
        alive: table.column("LSTALVDT"),
        saf: table.column("SAFFL"),
        eff: match efficacy_flag {
            Some(name) => Some(table.column(name).ok_or_else(|| Error::Data {
                file: table.path.clone(),
                location: "line 1: ".to_string(),
                message: format!(
                    "column `{name}` (named by `data.efficacy_flag` in the config) is missing; the header has: {}",
                    table.headers.join(", ")
                ),
            })?),
            None => table.first_column(&EFFICACY_FLAGS).map(|c| c.0),
        },
        kept,
    };
    let row_error = convert_rows(
        table,
        Default::default,
        |shared, row| columns.subject(table, c_id, row, shared),
        Subject::placeholder,
        out,
    );
    Ok((c_id, row_error))
}

/// The ADSL columns a subject is read from.
struct AdslColumns {
    site: Option<usize>,
    trts: Option<usize>,
    trte: Option<usize>,
    enrl: Option<usize>,
    dth: Option<usize>,
    alive: Option<usize>,
    saf: Option<usize>,
    eff: Option<usize>,
    /// The columns kept in [`Subject::columns`].
    kept: Vec<usize>,
}

impl AdslColumns {
    /// The subject of row `r`. Text values (site, kept columns and their names) are shared
    /// through `entries`, and the lists of kept columns through `sets`: one allocation per
    /// distinct value (or list) and parallel job.
    fn subject<'t>(
        &self,
        table: &'t CsvTable,
        c_id: usize,
        row: &Row<'t, '_>,
        (sets, entries): &mut (ColumnSets, Shared<'t, Arc<ColumnValue>>),
    ) -> Result<Subject> {
        let usubjid = row.text(Some(c_id))?;
        if usubjid.is_empty() {
            return Err(row.error(c_id, "USUBJID is empty; expected a subject id"));
        }
        sets.start();
        for i in &self.kept {
            let v = row.text(Some(*i))?;
            if !v.is_empty() {
                // Entries are shared per parallel job: one `Arc` shared by every subject of
                // both threads made each clone a contended atomic.
                let name = table.headers.get(*i).map_or("", String::as_str);
                sets.push(entries.get_or(*i, v, |v| ColumnValue::new(Arc::from(name), v)));
            }
        }
        let columns = sets.columns();
        let trt_start = row.date(self.trts)?;
        let death = row.date(self.dth)?;
        if let (Some(died), Some(first_dose), Some(c_dth)) = (death, trt_start, self.dth) {
            if died < first_dose {
                return Err(row.error(
                    c_dth,
                    format!("death on {died} is before the first dose (TRTSDT {first_dose}); expected DTHDT on or after TRTSDT"),
                ));
            }
        }
        Ok(Subject {
            usubjid: usubjid.into(),
            site: row
                .opt_text(self.site)?
                .map(|v| entries.get_or(usize::MAX, v, Subject::site_entry)),
            trt_start,
            trt_end: row.date(self.trte)?,
            enrolled: row.date(self.enrl)?.or(trt_start),
            death,
            last_alive: row.date(self.alive)?,
            safety: flag(row, self.saf, true)?,
            efficacy: flag(row, self.eff, true)?,
            columns,
        })
    }
}

/// The lists of kept ADSL columns of one parallel job, each shared by the subjects with the
/// same values: found by the addresses of their entries (entries are shared per job too).
#[derive(Default)]
struct ColumnSets {
    entries: Vec<Arc<ColumnValue>>,
    key: Vec<usize>,
    sets: FxHashMap<Box<[usize]>, Columns>,
}

impl ColumnSets {
    /// Starts the list of a new subject.
    fn start(&mut self) {
        self.entries.clear();
    }

    /// Adds an entry to the subject's list.
    fn push(&mut self, entry: Arc<ColumnValue>) {
        self.entries.push(entry);
    }

    /// The subject's columns: the shared list with these entries.
    fn columns(&mut self) -> Columns {
        self.key.clear();
        self.key
            .extend(self.entries.iter().map(|e| Arc::as_ptr(e) as usize));
        if let Some(columns) = self.sets.get(self.key.as_slice()) {
            return columns.clone();
        }
        let columns = Columns::from_entries(self.entries.clone());
        self.sets
            .insert(self.key.clone().into_boxed_slice(), columns.clone());
        columns
    }
}

/// Values shared by the rows of one parallel job, by (column, text): the first few distinct
/// ones in a short list (a cohort column has a handful of values, found faster by comparison
/// than by hashing), the others in a hash map. `T` is the shared form of a text (an ADSL
/// column entry, a parameter's number).
struct Shared<'t, T> {
    recent: Vec<(usize, &'t str, T)>,
    others: FxHashMap<(usize, &'t str), T>,
}

impl<T> Default for Shared<'_, T> {
    fn default() -> Self {
        Shared {
            recent: Vec::new(),
            others: FxHashMap::default(),
        }
    }
}

impl<'t, T: Clone> Shared<'t, T> {
    /// The shared form of `value` in `column`, made by `make` the first time.
    fn get_or(&mut self, column: usize, value: &'t str, make: impl FnOnce(&str) -> T) -> T {
        if let Some((_, _, shared)) = self
            .recent
            .iter()
            .find(|(c, v, _)| *c == column && *v == value)
        {
            return shared.clone();
        }
        if self.recent.len() < 32 {
            let shared = make(value);
            self.recent.push((column, value, shared.clone()));
            return shared;
        }
        self.others
            .entry((column, value))
            .or_insert_with(|| make(value))
            .clone()
    }
}

/// Converts the rows of `table` in parallel, straight onto the end of `out` (no per-chunk
/// copies). `convert` is given each row and a cache of its own per parallel job. A row that
/// fails gets `placeholder`; the error returned is the first in row order, with its row.
fn convert_rows<'t, T: Send, C>(
    table: &'t CsvTable,
    cache: impl Fn() -> C + Sync + Send,
    convert: impl Fn(&mut C, &Row<'t, '_>) -> Result<T> + Sync + Send,
    placeholder: impl Fn() -> T + Sync + Send,
    out: &mut Vec<T>,
) -> Option<(usize, Error)> {
    use rayon::prelude::*;
    let first_error: std::sync::Mutex<Option<(usize, Error)>> = std::sync::Mutex::new(None);
    out.par_extend(
        (0..table.len())
            .into_par_iter()
            .with_min_len(4096)
            .map_init(
                || (cache(), Vec::new()),
                |(cache, commas), r| match convert(cache, &table.row(r, commas)) {
                    Ok(value) => value,
                    Err(e) => {
                        if let Ok(mut first) = first_error.lock() {
                            if first.as_ref().is_none_or(|(row, _)| r < *row) {
                                *first = Some((r, e));
                            }
                        }
                        placeholder()
                    }
                },
            ),
    );
    first_error.into_inner().ok().flatten()
}

/// ADRS: the per-visit overall responses, the rows of the first of `paramcds` (`OVR`,
/// `OVRLRESP` unless the config says otherwise) that the file has; other parameters are
/// skipped. A file with rows but none of `paramcds` is an error listing the ones it has.
pub fn read_adrs(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    paramcds: &[&str],
) -> Result<Vec<Assessment>> {
    let c_id = table.require("USUBJID")?;
    let c_param = table.require("PARAMCD")?;
    let c_adt = table.require("ADT")?;
    let c_avalc = table.require("AVALC")?;
    let c_visit = table.column("AVISIT");
    let mut commas = Vec::new();
    let mut present: HashSet<String> = HashSet::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let paramcd = row.text(Some(c_param))?;
        if !present.contains(paramcd) {
            present.insert(paramcd.to_string());
        }
    }
    let Some(&chosen) = paramcds.iter().find(|p| present.contains(**p)) else {
        if table.is_empty() {
            return Ok(Vec::new());
        }
        return Err(Error::data_file(
            table.path(),
            format!(
                "no row has PARAMCD {} (the per-visit overall response; `data.adrs_paramcd` names                  it); the file has: {}",
                paramcds.join(" or "),
                crate::fits::listing(present.iter().map(String::as_str))
            ),
        ));
    };
    let mut out = Vec::new();
    let mut per_date: HashSet<(String, Date)> = HashSet::new();
    let mut hint = 0usize;
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        if row.text(Some(c_param))? != chosen {
            continue;
        }
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let Some(date) = row.date(Some(c_adt))? else {
            return Err(row.error(c_adt, "ADT is empty; expected the assessment date"));
        };
        let avalc = row.text(Some(c_avalc))?;
        let response = Response::from_avalc(avalc).ok_or_else(|| {
            row.error(
                c_avalc,
                format!("`{avalc}` is not a RECIST response; expected CR, PR, SD, NON-CR/NON-PD, PD, NE or ND"),
            )
        })?;
        if !per_date.insert((usubjid.to_string(), date)) {
            return Err(row.error(
                c_adt,
                format!("subject `{usubjid}` has two overall responses on {date}; expected one per assessment date"),
            ));
        }
        out.push(Assessment {
            usubjid: usubjid.to_string(),
            date,
            response,
            visit: row.opt_text(c_visit)?.map(str::to_string),
        });
    }
    Ok(out)
}

/// ADTTE: one row per subject and parameter. `AVAL` is converted to days using `AVALU`. A
/// record names its subject by position in ADSL (`known`). Rows are converted in parallel
/// chunks; the error reported is the first in file order.
pub fn read_adtte(table: &CsvTable, known: &KnownSubjects<'_>) -> Result<TteTable> {
    let mut reader = TteReader::default();
    reader.part(table, known, 0, table.len())?;
    reader.finish(table.path(), known)
}

/// [`read_adtte`] of a file read in parts ([`CsvTable::read_parts`]), with the file's SHA-256.
pub fn read_adtte_file(path: &Path, known: &KnownSubjects<'_>) -> Result<(TteTable, InputFile)> {
    let mut reader = TteReader::default();
    let input = CsvTable::read_parts(path, PART_BYTES, |table, first_row, expected| {
        reader.part(table, known, first_row, expected)
    })?;
    Ok((reader.finish(path, known)?, input))
}

/// Room for the `expected` rows of a file read in parts, and an eighth more (the estimate
/// comes from the parts read so far; room never used costs no memory). The estimate can be
/// far off for a file whose rows change length: a reservation the system refuses is dropped,
/// and the vector grows as usual.
fn reserve_rows<T>(rows: &mut Vec<T>, expected: usize) {
    if rows.capacity() < expected {
        let room = expected
            .saturating_add(expected / 8)
            .saturating_sub(rows.len());
        let _ = rows.try_reserve_exact(room);
    }
}

/// ADTTE read part by part: the records of the rows read so far (a placeholder for a row that
/// failed), the parameter codes they name by number and the first row that failed.
#[derive(Default)]
struct TteReader {
    out: Vec<TteRecord>,
    params: ParamCodes,
    row_error: Option<(usize, Error)>,
}

/// The `PARAMCD`s of an ADTTE file, numbered as the parallel jobs first meet them (each job
/// remembers the numbers it has seen: the lock is taken once per job and parameter).
#[derive(Default)]
struct ParamCodes(std::sync::Mutex<Vec<Arc<str>>>);

impl ParamCodes {
    /// The number of `paramcd`, given one if it is new.
    fn number(&self, paramcd: &str) -> u32 {
        let mut params = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let i = match params.iter().position(|p| **p == *paramcd) {
            Some(i) => i,
            None => {
                params.push(Arc::from(paramcd));
                params.len() - 1
            }
        };
        // A parameter per row of a file of at most 1 GiB: fewer than 2^32.
        u32::try_from(i).unwrap_or(u32::MAX)
    }

    fn into_inner(self) -> Vec<Arc<str>> {
        self.0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TteReader {
    /// Converts a part whose first row is row `first_row` of the file (`expected`: the rows
    /// the file is thought to hold); `false` once a row failed.
    fn part(
        &mut self,
        table: &CsvTable,
        known: &KnownSubjects<'_>,
        first_row: usize,
        expected: usize,
    ) -> Result<bool> {
        self.out.truncate(first_row);
        if first_row == 0 {
            // The file read again from the start (read whole after parts): numbered afresh.
            self.params = ParamCodes::default();
        }
        reserve_rows(&mut self.out, expected);
        let columns = AdtteColumns {
            id: table.require("USUBJID")?,
            param: table.require("PARAMCD")?,
            aval: table.require("AVAL")?,
            cnsr: table.require("CNSR")?,
            unit: table.column("AVALU"),
            start: table.column("STARTDT"),
            adt: table.column("ADT"),
        };
        let codes = &self.params;
        let row_error = convert_rows(
            table,
            || (Shared::default(), 0usize),
            |(params, hint), row| columns.record(known, row, (params, codes), hint),
            TteRecord::placeholder,
            &mut self.out,
        );
        self.row_error = row_error.map(|(row, e)| (first_row + row, e));
        Ok(self.row_error.is_none())
    }

    /// The records, checked for a repeated (subject, parameter) among the rows before the
    /// first that failed; the first error in file order.
    fn finish(self, path: &Path, known: &KnownSubjects<'_>) -> Result<TteTable> {
        let mut table = TteTable {
            params: self.params.into_inner(),
            records: self.out,
        };
        // Only the rows before a failed one count.
        let checked = self
            .row_error
            .as_ref()
            .map_or(table.records.len(), |(row, _)| *row);
        // The parallel jobs numbered the parameters as they met them: renumbered here in order
        // of first appearance in the file, so that the table does not depend on the schedule.
        let mut renumber: Vec<u32> = vec![u32::MAX; table.params.len()];
        let mut numbered = 0u32;
        // One bit per subject and parameter (10^7 subjects with one parameter: 1.25 MB);
        // parameters past the 64th use a set.
        let width = table.params.len().clamp(1, 64);
        let mut seen_bits: Vec<u64> = vec![0; (known.len() * width).div_ceil(64)];
        let mut seen_many: FxHashSet<(usize, u32)> = FxHashSet::default();
        for r in table.records.iter().take(checked) {
            let Some(param) = renumber.get_mut(r.param as usize) else {
                continue;
            };
            if *param == u32::MAX {
                *param = numbered;
                numbered += 1;
            }
            let param = *param;
            let bit = r.position() * width + param as usize;
            let first_time = match seen_bits.get_mut(bit / 64) {
                Some(word) if (param as usize) < width => {
                    let mask = 1u64 << (bit % 64);
                    let fresh = *word & mask == 0;
                    *word |= mask;
                    fresh
                }
                _ => seen_many.insert((r.position(), param)),
            };
            if !first_time {
                return Err(Error::cell(
                    path,
                    u64::from(r.line),
                    "PARAMCD",
                    format!(
                        "subject `{}` has two `{}` records; expected one per subject and parameter",
                        known.id(r.position()),
                        table.paramcd(r)
                    ),
                ));
            }
        }
        if let Some((_, e)) = self.row_error {
            return Err(e);
        }
        if renumber.iter().enumerate().any(|(i, &n)| n as usize != i) {
            let mut params: Vec<Arc<str>> = vec![Arc::from(""); table.params.len()];
            for (old, &new) in renumber.iter().enumerate() {
                if let (Some(slot), Some(name)) =
                    (params.get_mut(new as usize), table.params.get(old))
                {
                    slot.clone_from(name);
                }
            }
            for r in &mut table.records {
                if let Some(&new) = renumber.get(r.param as usize) {
                    r.param = new;
                }
            }
            table.params = params;
        }
        Ok(table)
    }
}

/// The ADTTE columns a record is read from.
struct AdtteColumns {
    id: usize,
    param: usize,
    aval: usize,
    cnsr: usize,
    unit: Option<usize>,
    start: Option<usize>,
    adt: Option<usize>,
}

impl AdtteColumns {
    /// The record of row `r`. `params` holds the numbers this job has seen of the `codes`;
    /// `hint` is the subject of the previous row this job converted.
    fn record<'t>(
        &self,
        known: &KnownSubjects<'_>,
        row: &Row<'t, '_>,
        (params, codes): (&mut Shared<'t, u32>, &ParamCodes),
        hint: &mut usize,
    ) -> Result<TteRecord> {
        let usubjid = row.text(Some(self.id))?;
        let subject = require_subject(row, self.id, usubjid, known, hint)?;
        let (Ok(subject), Ok(line)) = (u32::try_from(subject), u32::try_from(row.line())) else {
            return Err(row.error(
                self.id,
                "over 4 billion subjects or lines; readout reads smaller files",
            ));
        };
        let paramcd = row.text(Some(self.param))?;
        if paramcd.is_empty() {
            return Err(row.error(self.param, "PARAMCD is empty; expected a parameter code"));
        }
        let param = params.get_or(self.param, paramcd, |p| codes.number(p));
        let aval = row.number(Some(self.aval))?.ok_or_else(|| {
            row.error(
                self.aval,
                "AVAL is empty; expected the time to event or censoring",
            )
        })?;
        if aval < 0.0 {
            return Err(row.error(
                self.aval,
                format!("`{aval}` is negative; expected a time ≥ 0"),
            ));
        }
        let unit = row.text(self.unit)?;
        let unit_days = if unit.is_empty() {
            1.0
        } else {
            match crate::config::TimeUnit::from_avalu(unit) {
                Some(unit) => unit.days(),
                None => {
                    return Err(row.error(
                        self.unit.unwrap_or(0),
                        format!(
                            "`{}` is not a time unit; expected DAYS, WEEKS, MONTHS or YEARS",
                            unit.to_ascii_uppercase()
                        ),
                    ))
                }
            }
        };
        if aval * unit_days > MAX_TIME_DAYS {
            return Err(row.error(
                self.aval,
                format!(
                    "`{}` in {} is over 1,000 years; expected the time to event or censoring in AVALU",
                    row.text(Some(self.aval))?,
                    if unit_days == 1.0 { "days" } else { "the AVALU unit" }
                ),
            ));
        }
        let cnsr_text = row.text(Some(self.cnsr))?;
        let cnsr = parse_cnsr(cnsr_text).ok_or_else(|| {
            row.error(
                self.cnsr,
                format!("`{cnsr_text}` is not a censoring code; expected 0 (event) or a positive integer (censored)"),
            )
        })?;
        Ok(TteRecord {
            subject,
            param,
            days: aval * unit_days,
            cnsr,
            start: row.date(self.start)?,
            date: row.date(self.adt)?,
            line,
        })
    }
}

/// `CNSR` is a non-negative integer; SAS exports write it as `1` or `1.0`.
fn parse_cnsr(text: &str) -> Option<u32> {
    if let Ok(v) = text.parse::<u32>() {
        return Some(v);
    }
    let x: f64 = text.parse().ok()?;
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX) {
        Some(x as u32)
    } else {
        None
    }
}

/// ADAE: one row per event. The grade is CTCAE (`ATOXGR`/`AETOXGR`) or, failing that, mapped
/// from severity (`ASEV`/`AESEV`: MILD 1, MODERATE 2, SEVERE 3).
pub fn read_adae(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    related_values: &HashSet<String>,
    warnings: &mut Vec<String>,
) -> Result<Vec<AdverseEvent>> {
    let c_id = table.require("USUBJID")?;
    let c_term = table.require("AEDECOD")?;
    let c_soc = table.column("AEBODSYS");
    let c_grade = table.first_column(&["ATOXGR", "AETOXGR"]);
    let c_sev = table.first_column(&["ASEV", "AESEV"]).map(|c| c.0);
    let c_rel = table.first_column(&["AREL", "AEREL"]).map(|c| c.0);
    let c_start = table.column("ASTDT");
    let c_emergent = table.column("TRTEMFL");
    let c_ser = table.column("AESER");
    let c_out = table.column("AEOUT");
    let mut out = Vec::with_capacity(table.len());
    let mut ungraded = 0usize;
    let mut hint = 0usize;
    let mut commas = Vec::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let term = row.text(Some(c_term))?;
        if term.is_empty() {
            return Err(row.error(c_term, "AEDECOD is empty; expected the preferred term"));
        }
        let grade = match &c_grade {
            Some((i, _)) => parse_grade(&row, *i)?,
            None => None,
        };
        let by_severity = grade.is_none();
        let grade = match grade {
            Some(g) => Some(g),
            None => match row.text(c_sev)?.to_ascii_uppercase().as_str() {
                "MILD" => Some(1),
                "MODERATE" => Some(2),
                "SEVERE" => Some(3),
                _ => None,
            },
        };
        let by_severity = by_severity && grade.is_some();
        if grade.is_none() {
            ungraded += 1;
        }
        let outcome = row.text(c_out)?;
        out.push(AdverseEvent {
            usubjid: usubjid.to_string(),
            term: term.to_string(),
            soc: row.opt_text(c_soc)?.map(str::to_string),
            grade,
            by_severity,
            related: related_values.contains(&row.text(c_rel)?.to_ascii_uppercase()),
            start: row.date(c_start)?,
            emergent: flag(&row, c_emergent, true)?,
            serious: flag(&row, c_ser, false)?,
            fatal: grade == Some(5) || outcome.eq_ignore_ascii_case("FATAL"),
        });
    }
    let by_severity = out.iter().filter(|e| e.by_severity).count();
    if c_grade.is_some() && by_severity > 0 {
        warnings.push(format!(
            "{}: {by_severity} adverse event(s) have no CTCAE grade; their severity was used (MILD 1, MODERATE 2, SEVERE 3)",
            table.path.display()
        ));
    }
    if ungraded > 0 {
        warnings.push(format!(
            "{}: {ungraded} adverse event(s) have no grade or severity; they count for any grade, not for grade ≥3",
            table.path.display()
        ));
    }
    Ok(out)
}

/// A CTCAE grade: `3`, `3.0` or `GRADE 3`; empty is `None`.
fn parse_grade(row: &Row<'_, '_>, column: usize) -> Result<Option<u8>> {
    let text = row.text(Some(column))?;
    if text.is_empty() {
        return Ok(None);
    }
    let digits = text
        .trim_start_matches(|c: char| c.is_ascii_alphabetic() || c == ' ')
        .trim();
    let value = digits.parse::<f64>().ok().filter(|g| g.fract() == 0.0);
    match value {
        Some(g) if (1.0..=5.0).contains(&g) => Ok(Some(g as u8)),
        _ => Err(row.error(
            column,
            format!("`{text}` is not a CTCAE grade; expected 1 to 5"),
        )),
    }
}

/// ADTR: the sum-of-diameters parameter (`PARAMCD`, when the column exists).
pub fn read_adtr(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    paramcd: &str,
) -> Result<Vec<LesionSum>> {
    let c_id = table.require("USUBJID")?;
    let c_adt = table.require("ADT")?;
    let c_aval = table.require("AVAL")?;
    let c_param = table.column("PARAMCD");
    let c_base = table.column("BASE");
    let c_pchg = table.column("PCHG");
    let mut out = Vec::new();
    let mut hint = 0usize;
    let mut commas = Vec::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        if c_param.is_some() && row.text(c_param)? != paramcd {
            continue;
        }
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let Some(date) = row.date(Some(c_adt))? else {
            continue; // a measurement without a date cannot be placed in time
        };
        let Some(sum) = row.number(Some(c_aval))? else {
            continue;
        };
        if sum < 0.0 {
            return Err(row.error(
                c_aval,
                format!("`{sum}` is negative; expected a sum of diameters ≥ 0"),
            ));
        }
        out.push(LesionSum {
            usubjid: usubjid.to_string(),
            date,
            sum,
            base: row.number(c_base)?,
            pchg: row.number(c_pchg)?,
        });
    }
    Ok(out)
}

/// The distinct subjects of a list of ids (helper for summaries).
pub fn distinct<'a>(ids: impl Iterator<Item = &'a str>) -> BTreeSet<&'a str> {
    ids.collect()
}

/// Drops the overall responses dated before the subject's treatment start and says which.
/// RECIST 1.1 assesses response against a baseline taken before treatment, so an OVR record
/// before TRTSDT is not a response: it is a wrong ADT or TRTSDT, or a screening record in the
/// wrong parameter. Counting it could confirm a later PR (a responder that is not one), so it
/// is left out of every derivation and figure, and listed as a warning.
pub fn drop_pre_treatment_responses(
    path: &Path,
    subjects: &[Subject],
    assessments: &mut Vec<Assessment>,
) -> Option<String> {
    let starts: FxHashMap<&str, Date> = subjects
        .iter()
        .filter_map(|s| Some((&*s.usubjid, s.trt_start?)))
        .collect();
    let mut dropped = Vec::new();
    assessments.retain(|a| match starts.get(a.usubjid.as_str()) {
        Some(&start) if a.date < start => {
            dropped.push(format!(
                "{} {} on {} (TRTSDT {start})",
                a.usubjid,
                a.response.code(),
                a.date
            ));
            false
        }
        _ => true,
    });
    if dropped.is_empty() {
        return None;
    }
    const SHOWN: usize = 10;
    let more = dropped.len().saturating_sub(SHOWN);
    let total = dropped.len();
    dropped.truncate(SHOWN);
    let mut list = dropped.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    Some(format!(
        "{}: {total} overall response(s) dated before treatment start left out of BOR, PFS, DoR and the figures (RECIST 1.1: assessments before treatment are baseline, not responses): {list}",
        path.display()
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Headers, rows as text and line numbers of a table.
    type Reading = (Vec<String>, Vec<Vec<String>>, Vec<u64>);

    /// The rows of a table as text, or the error message.
    fn via(parsed: Result<CsvTable>) -> std::result::Result<Reading, String> {
        let table = parsed.map_err(|e| e.to_string())?;
        let width = table.headers().len();
        let rows = (0..table.len())
            .map(|r| {
                (0..width)
                    .map(|c| String::from_utf8_lossy(table.cell(r, c)).into_owned())
                    .collect()
            })
            .collect();
        let lines = (0..table.len()).map(|r| table.line(r)).collect();
        Ok((table.headers().to_vec(), rows, lines))
    }

    /// The `csv` crate's reading of the same bytes (the quoted path), as a table.
    fn quoted(bytes: &[u8]) -> Result<CsvTable> {
        CsvTable::from_vec_as(Path::new("t.csv"), bytes.to_vec(), false)
    }

    proptest! {
        /// A file without quotes reads the same through the in-place splitter as through the
        /// `csv` crate: cells, line numbers and errors.
        #[test]
        fn plain_splitter_agrees_with_the_csv_crate(
            text in proptest::collection::vec(
                prop_oneof![Just("a"), Just("bc"), Just(","), Just("\n"), Just("\r\n"), Just(" "), Just("\r"), Just("-"), Just("é"), Just(",,,,,,,,,")],
                0..60,
            ),
            bom in any::<bool>(),
        ) {
            let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
            bytes.extend(text.concat().bytes());
            let plain = via(CsvTable::from_bytes(Path::new("t.csv"), &bytes));
            let csv = via(quoted(&bytes));
            prop_assert_eq!(plain, csv);
        }
    }

    /// A file read in parts of `part_bytes`, put back together: headers, rows, lines (or the
    /// error), and the SHA-256 given for the file.
    fn via_parts(path: &Path, part_bytes: usize) -> (std::result::Result<Reading, String>, String) {
        let mut reading: Reading = Default::default();
        let input = CsvTable::read_parts(path, part_bytes, |table, first_row, _| {
            reading.1.truncate(first_row);
            reading.2.truncate(first_row);
            let (headers, rows, lines) = via(Ok(clone_table(table))).unwrap();
            if first_row > 0 {
                assert_eq!(headers, reading.0, "every part has the file's header");
            }
            reading.0 = headers;
            reading.1.extend(rows);
            reading.2.extend(lines);
            Ok(true)
        });
        match input {
            Ok(input) => (Ok(reading), input.sha256),
            Err(e) => (Err(e.to_string()), String::new()),
        }
    }

    /// A copy of a table (tests only).
    fn clone_table(table: &CsvTable) -> CsvTable {
        CsvTable {
            path: table.path.clone(),
            sha256: table.sha256.clone(),
            headers: table.headers.clone(),
            index: table.index.clone(),
            cells: Cells::new(table.cells.all().to_vec()),
            layout: match &table.layout {
                Layout::Cells(spans) => Layout::Cells(spans.clone()),
                Layout::Rows(rows) => Layout::Rows(rows.clone()),
            },
            lines: table.lines.clone(),
        }
    }

    proptest! {
        /// A file read in parts gives the cells, line numbers, errors and SHA-256 of the file
        /// read whole, whatever the part size (parts of a few bytes cut every line).
        #[test]
        fn a_file_read_in_parts_reads_as_the_whole_file(
            text in proptest::collection::vec(
                prop_oneof![Just("a"), Just("bc"), Just(","), Just("\n"), Just("\n"), Just("\r\n"), Just(" "), Just("-"), Just("é"), Just("1,2\n"), Just("\""), Just("\r")],
                0..80,
            ),
            header in prop_oneof![Just("A,B\n"), Just("A\n"), Just("\n\nA,B\r\n"), Just("")],
            part_bytes in 1usize..24,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.csv");
            let bytes = format!("{header}{}", text.concat()).into_bytes();
            std::fs::write(&path, &bytes).unwrap();
            let whole = via(CsvTable::read(&path));
            let (parts, sha256) = via_parts(&path, part_bytes);
            prop_assert_eq!(&parts, &whole);
            if whole.is_ok() {
                prop_assert_eq!(sha256, sha256_hex(&bytes));
            }
        }
    }

    /// A date, or an ISO 8601 datetime whose date is taken; anything else after the date is not.
    #[test]
    fn dates_and_datetimes() {
        let d = |y, m, day| Date::from_ymd_opt(y, m, day);
        for text in [
            "2021-01-04",
            "2021-01-04T09",
            "2021-01-04T09:30",
            "2021-01-04 09:30:59",
            "2021-01-04T23:59:60",
            "2021-01-04T09:30:00.25",
            "2021-01-04T09:30:00,5Z",
            "2021-01-04T09:30:00+02:00",
            "2021-01-04T09:30-0500",
            "2021-01-04T09:30:00+02",
        ] {
            assert_eq!(parse_iso_date(text), d(2021, 1, 4), "{text}");
        }
        for text in [
            "2021-01-04T",
            "2021-01-04Tgarbage",
            "2021-01-04T24:00",
            "2021-01-04T09:60",
            "2021-01-04T09:30:00.",
            "2021-01-04T09:30:00+2",
            "2021-01-04T09:30 UTC",
            "2021-01-04x",
            "2021-02-30",
        ] {
            assert_eq!(parse_iso_date(text), None, "{text}");
        }
        assert!(!is_plausible_date(d(1899, 12, 31).unwrap()));
        assert!(is_plausible_date(d(1900, 1, 1).unwrap()));
        assert!(is_plausible_date(d(2100, 12, 31).unwrap()));
        assert!(!is_plausible_date(d(2101, 1, 1).unwrap()));
    }

    /// An estimate of a file's rows far beyond what memory holds (a file whose first part has
    /// short rows and the rest long ones) reserves nothing rather than aborting.
    #[test]
    fn a_wild_row_estimate_reserves_nothing() {
        let mut rows: Vec<Subject> = Vec::new();
        reserve_rows(&mut rows, usize::MAX);
        reserve_rows(&mut rows, 1 << 40);
        assert!(rows.capacity() < 1 << 40);
        reserve_rows(&mut rows, 800);
        assert!(rows.capacity() >= 900);
    }

    /// ADSL and ADTTE read in parts give the subjects, records and errors of the files read
    /// whole: a repeated subject whose first row is parts earlier, a bad cell in a later
    /// part, a repeated ADTTE record across parts.
    #[test]
    fn adsl_and_adtte_read_in_parts_agree_with_the_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let adsl_text = |edit: &dyn Fn(usize, String) -> String| {
            let mut t = String::from("USUBJID,COHORT,TRTSDT,SAFFL\n");
            for i in 0..3000 {
                t += &edit(
                    i,
                    format!("S{i:05},{},2020-01-{:02},Y\n", i % 3, 1 + i % 28),
                );
                if i % 700 == 0 {
                    t += "\n"; // blank lines shift the line numbers
                }
            }
            t
        };
        // The file with row `k` replaced by `text`.
        let with_row =
            |k: usize, text: &str| adsl_text(&|i, row| if i == k { text.to_string() } else { row });
        let adsl_cases: Vec<(&str, String)> = vec![
            ("clean", adsl_text(&|_, row| row)),
            ("repeat", with_row(2500, "S00042,1,2020-01-01,Y\n")),
            ("bad date", with_row(2200, "S02200,1,2020-13-01,Y\n")),
            ("unsorted", with_row(10, "S99999,1,2020-01-01,Y\n")),
            ("ragged", with_row(2900, "S02900,1\n")),
        ];
        let read_parts = |path: &Path| -> std::result::Result<Vec<Subject>, String> {
            let mut reader = AdslReader::new(None, None, false);
            CsvTable::read_parts(path, 4096, |t, first, expected| {
                reader.part(t, first, expected)
            })
            .map_err(|e| e.to_string())?;
            let subjects = std::mem::take(&mut reader.subjects);
            reader.check(path, &subjects).map_err(|e| e.to_string())?;
            Ok(subjects)
        };
        for (case, text) in &adsl_cases {
            let path = dir.path().join(format!("adsl-{case}.csv"));
            std::fs::write(&path, text).unwrap();
            let whole = CsvTable::read(&path)
                .and_then(|t| read_adsl(&t, None))
                .map_err(|e| e.to_string());
            let parts = read_parts(&path);
            assert_eq!(parts, whole, "{case}");
            match *case {
                "clean" | "unsorted" => assert_eq!(parts.map(|s| s.len()), Ok(3000), "{case}"),
                _ => assert!(parts.is_err(), "{case}"),
            }
        }
        let whole_err = read_parts(&dir.path().join("adsl-repeat.csv")).unwrap_err();
        assert!(
            whole_err.contains("line 2506,") && whole_err.contains("first on line 45)"),
            "{whole_err}"
        );

        let subjects = read_parts(&dir.path().join("adsl-clean.csv")).unwrap();
        let known = KnownSubjects::of_subjects(&subjects).unwrap();
        let adtte_text = |repeat: bool| {
            let mut t = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
            for i in 0..3000 {
                t += &format!("S{i:05},OS,{},{}\n", 10 + i, i % 2);
            }
            if repeat {
                t += "S00007,OS,1,0\n";
            }
            t
        };
        for repeat in [false, true] {
            let path = dir.path().join(format!("adtte-{repeat}.csv"));
            std::fs::write(&path, adtte_text(repeat)).unwrap();
            let table = CsvTable::read(&path).unwrap();
            let whole = read_adtte(&table, &known).map_err(|e| e.to_string());
            let mut reader = TteReader::default();
            let parts = CsvTable::read_parts(&path, 4096, |t, first, expected| {
                reader.part(t, &known, first, expected)
            })
            .and_then(|input| {
                assert_eq!(input.sha256, table.sha256);
                reader.finish(&path, &known)
            })
            .map_err(|e| e.to_string());
            assert_eq!(parts, whole, "repeat {repeat}");
            assert_eq!(parts.is_err(), repeat);
        }
    }

    /// The whole-number shortcut reads what the full parser reads, and leaves the rest to it.
    #[test]
    fn small_integers_read_as_the_full_parser_reads_them() {
        for text in [
            "0",
            "7",
            "0042",
            "581",
            "999999999999999",
            "123456789012345",
        ] {
            assert_eq!(small_integer(text), text.parse::<f64>().ok(), "{text}");
        }
        for text in [
            "",
            "-3",
            "+3",
            "1.5",
            "1e3",
            "1234567890123456",
            "12a",
            " 1",
            "٣",
        ] {
            assert_eq!(small_integer(text), None, "{text}");
        }
    }

    proptest! {
        #[test]
        fn any_digit_string_reads_as_the_full_parser_reads_it(
            digits in 1u32..=18,
            n in any::<u64>(),
            zeros in 0usize..3,
        ) {
            // As many cases of each length, 1 to 18 digits (the shortcut takes up to 15).
            let text = format!("{}{}", "0".repeat(zeros), n % 10u64.pow(digits));
            if let Some(x) = small_integer(&text) {
                prop_assert_eq!(x.to_bits(), text.parse::<f64>().unwrap().to_bits());
            } else {
                prop_assert!(text.len() > 15);
            }
        }
    }

    /// Subjects `S0`, `S1`, ... with no data.
    fn numbered_subjects(n: usize) -> Vec<Subject> {
        (0..n)
            .map(|i| Subject {
                usubjid: format!("S{i}").into(),
                ..Subject::placeholder()
            })
            .collect()
    }

    /// Parallel jobs number the parameters as they meet them; the table numbers them in order
    /// of first appearance in the file, whatever the jobs did.
    #[test]
    fn adtte_parameters_are_numbered_in_file_order() {
        let subjects = numbered_subjects(6000);
        let known = KnownSubjects::of_subjects(&subjects).unwrap();
        let mut text = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
        for (param, cnsr) in [("PFS", 1), ("OS", 0)] {
            for i in 0..6000 {
                text += &format!("S{i},{param},{},{cnsr}\n", i + 1);
            }
        }
        let table = CsvTable::from_bytes(Path::new("adtte.csv"), text.as_bytes()).unwrap();
        // A job that met OS first (as the second half of the rows would) numbered it 0.
        let mut reader = TteReader::default();
        assert_eq!(reader.params.number("OS"), 0);
        reader.part(&table, &known, 0, table.len()).unwrap();
        let tte = reader.finish(Path::new("adtte.csv"), &known).unwrap();
        let whole = read_adtte(&table, &known).unwrap();
        for t in [&tte, &whole] {
            assert_eq!(t.params, [Arc::from("PFS"), Arc::from("OS")]);
            assert_eq!(t.param("OS"), Some(1));
            let first = &t.records[0];
            let last = &t.records[11_999];
            assert_eq!((t.paramcd(first), first.param, first.cnsr), ("PFS", 0, 1));
            assert_eq!((t.paramcd(last), last.param, last.cnsr), ("OS", 1, 0));
            assert_eq!(last.status(), crate::model::Status::Event);
            assert_eq!(last.days, 6000.0);
            assert!(t.records[..6000].iter().all(|r| r.param == 0));
            assert!(t.records[6000..].iter().all(|r| r.param == 1));
        }
        assert_eq!(tte, whole);
    }

    /// A repeated (subject, parameter) is found with one parameter, a few, and past the 64
    /// kept as bits; the same subject under different parameters is not a repeat.
    #[test]
    fn a_repeated_adtte_record_is_found_whatever_the_number_of_parameters() {
        let subjects = numbered_subjects(5);
        let known = KnownSubjects::of_subjects(&subjects).unwrap();
        let read = |params: usize, repeat: Option<(usize, usize)>| {
            let mut text = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
            for p in 0..params {
                for i in 0..5 {
                    text += &format!("S{i},P{p},{},0\n", p + i);
                }
            }
            if let Some((i, p)) = repeat {
                text += &format!("S{i},P{p},1,1\n");
            }
            let table = CsvTable::from_bytes(Path::new("adtte.csv"), text.as_bytes()).unwrap();
            read_adtte(&table, &known).map_err(|e| e.to_string())
        };
        for params in [1, 3, 64, 70] {
            let table = read(params, None).unwrap();
            assert_eq!(table.records.len(), 5 * params);
            assert_eq!(table.params.len(), params);
            for p in [0, params / 2, params - 1] {
                let e = read(params, Some((4, p))).unwrap_err();
                let line = 5 * params + 2;
                assert!(
                    e.contains(&format!("line {line},"))
                        && e.contains(&format!("`S4` has two `P{p}`")),
                    "{params} parameters, repeat of P{p}: {e}"
                );
            }
        }
    }

    #[test]
    fn a_large_plain_file_is_split_in_chunks_with_the_right_line_numbers() {
        let mut text = String::from("A,B\r\n");
        for i in 0..300_000 {
            text.push_str(&format!("id{i},{}\r\n", i % 7));
            if i % 1000 == 0 {
                text.push_str("\r\n"); // a blank line now and then
            }
        }
        let bytes = text.into_bytes();
        assert!(bytes.len() > 3 << 20, "several chunks");
        let plain = via(CsvTable::from_bytes(Path::new("t.csv"), &bytes));
        let csv = via(quoted(&bytes));
        assert!(plain == csv, "the two readings differ");
        let (_, rows, lines) = plain.unwrap();
        assert_eq!(rows.len(), 300_000);
        assert_eq!(rows[299_999], ["id299999", "0"]);
        // 300,000 rows, 300 blank lines, the header: the last row is on line 300,301.
        assert_eq!(lines.last(), Some(&300_301));
    }

    /// Rows of any width (one reader's buffer of commas reused from narrow rows to wide ones
    /// and back): cells agree with the `csv` crate's reading; a column past the last is empty.
    #[test]
    fn cells_of_rows_of_any_width_are_found() {
        let mut commas = Vec::new();
        for width in [1, 8, 9, 64, 65, 192, 3] {
            let header: Vec<String> = (0..width).map(|c| format!("C{c}")).collect();
            let mut text = header.join(",") + "\n";
            for r in 0..3 {
                let cells: Vec<String> = (0..width)
                    .map(|c| {
                        if c % 5 == 4 {
                            String::new()
                        } else {
                            format!("r{r}c{c}")
                        }
                    })
                    .collect();
                text += &(cells.join(",") + "\r\n");
            }
            let bytes = text.into_bytes();
            let plain = via(CsvTable::from_bytes(Path::new("t.csv"), &bytes));
            assert!(
                plain == via(quoted(&bytes)),
                "width {width}: the readings differ"
            );
            let table = CsvTable::from_bytes(Path::new("t.csv"), &bytes).unwrap();
            let last = width - 1;
            let expected = if last % 5 == 4 {
                String::new()
            } else {
                format!("r2c{last}")
            };
            assert_eq!(table.cell(2, last), expected.as_bytes(), "width {width}");
            assert_eq!(
                table.cell(2, width),
                b"",
                "width {width}: past the last column"
            );
            let row = table.row(1, &mut commas);
            for c in 0..width {
                let expected = if c % 5 == 4 {
                    String::new()
                } else {
                    format!("r1c{c}")
                };
                assert_eq!(row.text(Some(c)).unwrap(), expected, "width {width}");
            }
            assert_eq!(row.text(Some(width)).unwrap(), "");
        }
    }

    /// Regression: the `csv` crate counts lines wrongly after CRLF line ends and blank lines,
    /// so an error in a Windows file named the wrong line. Both readings now name line 4.
    #[test]
    fn errors_name_the_line_an_editor_shows_after_crlf_and_blank_lines() {
        for text in [
            "A,B\r\n\"x\",1\r\n\r\ny,2,3\r\n",
            "A,B\r\nx,1\r\n\r\ny,2,3\r\n",
            "A,B\nx,1\n\ny,2,3\n",
        ] {
            let err = CsvTable::from_bytes(Path::new("t.csv"), text.as_bytes())
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert_eq!(
                err, "t.csv: line 4: the row has 3 fields; expected 2 like the header",
                "{text:?}"
            );
        }
    }

    /// Rows are converted in parallel; of several bad rows, the error is the first in the file.
    #[test]
    fn the_first_bad_row_in_the_file_is_reported_when_rows_convert_in_parallel() {
        // 50,000 subjects; `id` and `date` give row i's cells.
        let adsl_of = |id: &dyn Fn(usize) -> String, date: &dyn Fn(usize) -> &'static str| {
            let mut t = String::from("USUBJID,TRTSDT\n");
            for i in 0..50_000 {
                t.push_str(&format!("{},{}\n", id(i), date(i)));
            }
            CsvTable::from_bytes(Path::new("adsl.csv"), t.as_bytes()).unwrap()
        };
        let bad_date = |at: usize, text: &'static str| {
            move |i: usize| if i == at { text } else { "2020-01-01" }
        };
        // ADSL with the id of row `at` replaced by `id_there` and a bad date at another.
        let adsl_with = |at: usize, id_there: &str, bad_date_at: usize, date: &'static str| {
            let id = |i: usize| {
                if i == at {
                    id_there.to_string()
                } else {
                    format!("S{i:06}")
                }
            };
            adsl_of(&id, &bad_date(bad_date_at, date))
        };
        let adsl = |dup_at: usize, bad_date_at: usize| {
            adsl_with(dup_at, "S000007", bad_date_at, "2020-13-01")
        };
        let err = |t: &CsvTable| read_adsl(t, None).map(|_| ()).unwrap_err().to_string();
        let with_empty_id = |empty_at: usize, bad_date_at: usize| {
            adsl_with(empty_at, "", bad_date_at, "2020-02-30")
        };
        // (table, what its error names): the first error in file order.
        let cases = [
            (adsl(20_000, 30_000), ["line 20002,", "appears again"]),
            (adsl(40_000, 30_000), ["line 30002,", "2020-13-01"]),
            // Both on one row: the id is read first, so the repeat is the row's error.
            (adsl(20_000, 20_000), ["line 20002,", "appears again"]),
            // An empty id is an error on its row, reported in file order with the others.
            (
                with_empty_id(25_000, 45_000),
                ["line 25002, column `USUBJID`", "USUBJID is empty"],
            ),
            (with_empty_id(45_000, 25_000), ["line 25002,", "2020-02-30"]),
        ];
        for (table, named) in &cases {
            let e = err(table);
            assert!(named.iter().all(|n| e.contains(n)), "{e}");
        }

        let table = adsl(usize::MAX, usize::MAX);
        let subjects = read_adsl(&table, None).unwrap();
        let known: KnownSubjects<'_> = subjects.iter().map(|s| &*s.usubjid).collect();
        let adtte = |dup_at: usize, bad_at: usize| {
            let mut t = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
            for i in 0..50_000 {
                let id = if i == dup_at { i - 1 } else { i };
                let aval = if i == bad_at { "x" } else { "10" };
                t.push_str(&format!("S{id:06},OS,{aval},0\n"));
            }
            CsvTable::from_bytes(Path::new("adtte.csv"), t.as_bytes()).unwrap()
        };
        let err = |t: &CsvTable| read_adtte(t, &known).map(|_| ()).unwrap_err().to_string();
        let e = err(&adtte(10_000, 30_000));
        assert!(
            e.contains("line 10002,") && e.contains("subject `S009999` has two `OS` records"),
            "{e}"
        );
        let e = err(&adtte(40_000, 30_000));
        assert!(e.contains("line 30002,") && e.contains("`x`"), "{e}");
    }

    /// AVALU converts AVAL to days in any case, singular or plural; another unit is an error.
    #[test]
    fn avalu_units_convert_to_days() {
        let adsl =
            CsvTable::from_bytes(Path::new("adsl.csv"), b"USUBJID\nS1\nS2\nS3\nS4\nS5\n").unwrap();
        let subjects = read_adsl(&adsl, None).unwrap();
        let known: KnownSubjects<'_> = subjects.iter().map(|s| &*s.usubjid).collect();
        let adtte = CsvTable::from_bytes(
            Path::new("adtte.csv"),
            b"USUBJID,PARAMCD,AVAL,AVALU,CNSR\nS1,OS,2,days,0\nS2,OS,2,Week,0\nS3,OS,2,MONTHS,0\nS4,OS,2,year,0\nS5,OS,2,,0\n",
        )
        .unwrap();
        let days: Vec<f64> = read_adtte(&adtte, &known)
            .unwrap()
            .records
            .iter()
            .map(|r| r.days)
            .collect();
        assert_eq!(days, [2.0, 14.0, 60.875, 730.5, 2.0]);
        let bad = CsvTable::from_bytes(
            Path::new("adtte.csv"),
            b"USUBJID,PARAMCD,AVAL,AVALU,CNSR\nS1,OS,2,fortnight,0\n",
        )
        .unwrap();
        let err = read_adtte(&bad, &known)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("`FORTNIGHT` is not a time unit"), "{err}");
    }
}

//! The three forms read as streams: the text (of the file, or decompressed) read in parts, a
//! part's rows typed into a table and given on while the next part is read.

use std::io::{BufRead, BufReader, Read};

use serde::de::{self, DeserializeSeed, Visitor};
use serde_json::{Map, Value};

use super::cells::{Failure, RowSeed, Typer, OWN, STOPPED};
use super::header::{check_metadata, header_of, Header};
use super::metadata::{columns_of, shown, version_error};
use super::scan::Quick;
use super::*;

/// What is given each part: the table, the rows before it, the rows expected in all; `false`
/// stops the reading.
pub(super) type Each<'a> = dyn FnMut(&CsvTable, usize, usize) -> Result<bool> + Send + 'a;

/// The longest metadata line of an `.ndjson` file (a dataset of thousands of columns has a few
/// hundred kilobytes of metadata).
const MAX_METADATA_BYTES: usize = 16 << 20;

/// The text of a part is parsed in pieces of about this size, in parallel.
const PIECE_BYTES: usize = 1 << 20;

/// Where the text comes from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    File,
    Memory,
    Gzip,
    Zlib,
}

impl Source {
    fn compressed(self) -> Option<&'static str> {
        match self {
            Source::Gzip => Some("gzip"),
            Source::Zlib => Some("zlib"),
            Source::File | Source::Memory => None,
        }
    }

    /// A read that failed (where, in rows, depends on the size of the parts: not said).
    fn read_error(self, path: &Path, e: std::io::Error) -> Error {
        match self.compressed() {
            None => Error::io(path, "cannot read data file", e),
            Some(name) => Error::Data {
                file: path.to_path_buf(),
                location: String::new(),
                message: format!(
                    "the {name} data are corrupt or cut short ({e}); expected a complete {name} \
                     stream (is the file truncated?)"
                ),
            },
        }
    }

    /// Line `line` of the text.
    fn line(self, line: u64) -> String {
        match self.compressed() {
            None => format!("line {line}"),
            Some(_) => format!("line {line} of the decompressed text"),
        }
    }
}

/// Reads the file at `path`, its form by its extension; returns its SHA-256, and gives the
/// last part's table back when the file was read to its end.
pub(super) fn file(
    path: &Path,
    part_bytes: usize,
    each: &mut Each<'_>,
) -> Result<(String, Option<CsvTable>)> {
    let form = Form::of(path).unwrap_or(Form::Json);
    check_file_size(path)?;
    let io = |e| Error::io(path, "cannot read data file", e);
    match form {
        Form::Compressed => {
            // The compressed bytes are held (a tenth of the text or less); the text never is.
            let bytes = crate::files::read(path, MAX_DATA_FILE_BYTES)
                .map_err(io)?
                .ok_or_else(|| too_large(path))?;
            let (sha256, last) = rayon::join(
                || sha256_hex(&bytes),
                || compressed(path, &bytes, part_bytes, each),
            );
            Ok((sha256, last?))
        }
        Form::Json => {
            let file = crate::files::open(path).map_err(io)?;
            let mut src = Hashing {
                inner: file,
                hasher: Sha256::new(),
            };
            let last = json(path, Source::File, &mut src, part_bytes, each)?;
            Ok((digest_hex(src.hasher.finalize()), last))
        }
        Form::Ndjson => {
            // Each part is hashed while its rows are parsed.
            let mut file = crate::files::open(path).map_err(io)?;
            let mut hasher = Sha256::new();
            let last = ndjson(
                path,
                Source::File,
                &mut file,
                Some(&mut hasher),
                part_bytes,
                each,
            )?;
            Ok((digest_hex(hasher.finalize()), last))
        }
    }
}

/// As [`file`], from bytes in memory.
pub(super) fn bytes(
    path: &Path,
    form: Form,
    bytes: &[u8],
    part_bytes: usize,
    each: &mut Each<'_>,
) -> Result<Option<CsvTable>> {
    match form {
        Form::Compressed => compressed(path, bytes, part_bytes, each),
        Form::Json | Form::Ndjson => {
            text(path, form, Source::Memory, &mut &*bytes, part_bytes, each)
        }
    }
}

fn text(
    path: &Path,
    form: Form,
    source: Source,
    src: &mut (dyn Read + Send),
    part_bytes: usize,
    each: &mut Each<'_>,
) -> Result<Option<CsvTable>> {
    match form {
        Form::Json => json(path, source, src, part_bytes, each),
        Form::Ndjson | Form::Compressed => ndjson(path, source, src, None, part_bytes, each),
    }
}

/// DSJC: a zlib stream (the specification) or a gzip one (the published examples), told apart
/// by their first bytes, decompressed as they are read.
fn compressed(
    path: &Path,
    bytes: &[u8],
    part_bytes: usize,
    each: &mut Each<'_>,
) -> Result<Option<CsvTable>> {
    match bytes {
        [0x1f, 0x8b, ..] => {
            let mut gzip = flate2::bufread::MultiGzDecoder::new(bytes);
            ndjson(path, Source::Gzip, &mut gzip, None, part_bytes, each)
        }
        // A zlib header: deflate (method 8), its two bytes a multiple of 31.
        [cmf, flg, ..] if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0 => {
            let mut zlib = flate2::bufread::ZlibDecoder::new(bytes);
            let last = ndjson(path, Source::Zlib, &mut zlib, None, part_bytes, each)?;
            let rest = zlib.get_ref().len();
            if last.is_some() && rest > 0 {
                return Err(Error::data_file(
                    path,
                    format!(
                        "{rest} bytes follow the end of the zlib stream; expected the file to \
                         end with the stream"
                    ),
                ));
            }
            Ok(last)
        }
        _ => Err(Error::data_file(
            path,
            format!(
                "the file starts with {}; expected compressed Dataset-NDJSON (DSJC): a zlib \
                 stream (78 01, 78 9c, 78 da ...) or a gzip one (1f 8b)",
                match bytes.get(..2).unwrap_or(bytes) {
                    [] => "nothing (it is empty)".to_string(),
                    start => start
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                }
            ),
        )),
    }
}

/// The message of a JSON syntax error, without serde_json's "at line L column C" (the caller
/// says where).
fn syntax(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let what = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(w, _)| w);
    let hint = if what.starts_with("trailing characters") {
        " (one object per line is NDJSON: name the file .ndjson)"
    } else if what.starts_with("number out of range") {
        " (past a double's range of about ±1.8e308; no number is read as infinity)"
    } else {
        ""
    };
    format!("not valid JSON: {what}{hint}")
}

/// The error of a row that failed (`row` from 1, `line` in the text when known).
fn row_error(
    path: &Path,
    source: Source,
    header: &Header,
    row: usize,
    line: Option<u64>,
    failure: &Failure,
) -> Error {
    let line = line
        .map(|l| format!(" ({})", source.line(l)))
        .unwrap_or_default();
    let location = match failure.column {
        Some(c) => format!(
            "row {row}{line}, column `{}`: ",
            header.headers.get(c).map_or("?", String::as_str)
        ),
        None => format!("row {row}{line}: "),
    };
    Error::Data {
        file: path.to_path_buf(),
        location,
        message: failure.message.clone(),
    }
}

/// After the last row: `records` says how many there are, and there is at least one.
fn check_count(path: &Path, records: Option<u64>, rows: usize) -> Result<()> {
    if let Some(records) = records.filter(|&r| r != rows as u64) {
        return Err(Error::data_file(
            path,
            format!(
                "`records` is {records} but the file has {rows} row{}; expected one row per \
                 record (is the file cut short?)",
                if rows == 1 { "" } else { "s" }
            ),
        ));
    }
    if rows == 0 {
        return Err(no_rows(path));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// NDJSON (and DSJC once decompressed).

/// A part of the text, typed.
struct Part {
    /// The text read, then the cells that are not in it.
    text: String,
    spans: Vec<[u32; 2]>,
    rows: usize,
    /// Lines of the text (rows, and blank lines).
    lines: u64,
}

/// An NDJSON text (`hash`: the file's hasher, given each part's bytes in order).
fn ndjson(
    path: &Path,
    source: Source,
    src: &mut (dyn Read + Send),
    mut hash: Option<&mut Sha256>,
    part_bytes: usize,
    each: &mut Each<'_>,
) -> Result<Option<CsvTable>> {
    let mut reader = Chunks {
        path,
        source,
        src,
        carry: Vec::new(),
        total: 0,
    };
    let (first, mut at_end) = reader.next(Vec::new(), part_bytes, MAX_METADATA_BYTES, true)?;
    let bom = bom_len(&first);
    let line_end = memchr::memchr(b'\n', first.get(bom..).unwrap_or_default())
        .map_or(first.len(), |p| bom + p);
    let header = metadata_line(path, first.get(bom..line_end).unwrap_or_default())?;
    let data_start = (line_end + 1).min(first.len());
    let mut part = parse(
        path,
        source,
        &header,
        (first, data_start),
        (2, 0),
        hash.as_deref_mut(),
    )?;
    let mut next_line = 2 + part.lines;
    let mut rows_before = 0usize;
    let mut spare = Vec::new();
    loop {
        let rows = part.rows;
        let expected = expected_rows(&header, rows_before + rows);
        let table = part_table(
            path,
            &header,
            Cells::Text(part.text),
            part.spans,
            rows_before,
            rows,
        );
        // The next part is read and parsed while this one is converted.
        let (go_on, next) = rayon::join(
            || {
                if rows > 0 {
                    each(&table, rows_before, expected)
                } else {
                    Ok(true) // blank lines only
                }
            },
            || {
                (!at_end).then(|| {
                    let buf = std::mem::take(&mut spare);
                    let (bytes, end) = reader.next(buf, part_bytes, MAX_RECORD_BYTES, false)?;
                    let part = parse(
                        path,
                        source,
                        &header,
                        (bytes, 0),
                        (next_line, rows_before + rows),
                        hash.as_deref_mut(),
                    )?;
                    Ok::<_, Error>((part, end))
                })
            },
        );
        rows_before += rows;
        if !go_on? {
            return Ok(None);
        }
        match next {
            Some(next) => {
                let (next, end) = next?;
                next_line += next.lines;
                part = next;
                at_end = end;
                spare = table.into_bytes();
            }
            None => {
                check_count(path, header.records, rows_before)?;
                return Ok(Some(table));
            }
        }
    }
}

/// The metadata line of an NDJSON text.
fn metadata_line(path: &Path, line: &[u8]) -> Result<Header> {
    let at_line_1 = |message: String| Error::Data {
        file: path.to_path_buf(),
        location: "line 1: ".to_string(),
        message,
    };
    let map = match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return Err(at_line_1(format!(
                "{} is not an object; expected the dataset's metadata (datasetJSONVersion, \
                 records, columns, ...) on the first line",
                shown(&other.to_string())
            )))
        }
        Err(e) => {
            return Err(at_line_1(format!(
                "{} at column {}; expected the dataset's metadata as one JSON object on the \
                 first line",
                syntax(&e),
                e.column()
            )))
        }
    };
    if map.contains_key("rows") {
        return Err(at_line_1(
            "the metadata holds `rows`; expected the rows on the lines after it, one per line \
             (a dataset in one object is a .json file)"
                .to_string(),
        ));
    }
    Ok(check_metadata(path, map)?.1)
}

/// Reads the text in parts that end at a line end.
struct Chunks<'a, 'r> {
    path: &'a Path,
    source: Source,
    src: &'r mut (dyn Read + Send),
    /// The bytes after the last line end read.
    carry: Vec<u8>,
    /// Bytes of text read so far.
    total: u64,
}

impl Chunks<'_, '_> {
    /// The next part into `buf`: what was carried over, then about `part_bytes` more bytes up
    /// to their last line end (all of them at the end of the text); whether the text ended.
    /// A line may be longer than a part: past `max_line` bytes the part ends inside it (and
    /// the row is refused as too long where it is parsed), or, for the first line (`first`),
    /// the metadata is refused.
    fn next(
        &mut self,
        mut buf: Vec<u8>,
        part_bytes: usize,
        max_line: usize,
        first: bool,
    ) -> Result<(Vec<u8>, bool)> {
        buf.clear();
        buf.append(&mut self.carry);
        loop {
            let fresh = buf.len();
            // One byte past the limit is read, to know the text passes it.
            let room = (MAX_DATA_FILE_BYTES + 1).saturating_sub(self.total);
            let want = (part_bytes as u64).min(room);
            let n = (&mut *self.src)
                .take(want)
                .read_to_end(&mut buf)
                .map_err(|e| self.source.read_error(self.path, e))? as u64;
            self.total += n;
            if self.total > MAX_DATA_FILE_BYTES {
                return Err(Error::data_file(
                    self.path,
                    format!(
                        "the text is over {MAX_DATA_FILE_BYTES} bytes (1 GiB){}; readout reads \
                         data of at most 1 GiB",
                        if self.source.compressed().is_some() {
                            " once decompressed"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            if n < want {
                return Ok((buf, true));
            }
            let new = buf.get(fresh..).unwrap_or_default();
            if let Some(p) = memchr::memrchr(b'\n', new) {
                self.carry
                    .extend_from_slice(new.get(p + 1..).unwrap_or_default());
                buf.truncate(fresh + p + 1);
                return Ok((buf, false));
            }
            // No line end yet: a long line, read on (within its limit).
            let line = buf.len() - memchr::memrchr(b'\n', &buf).map_or(0, |p| p + 1);
            if line > max_line {
                if first {
                    return Err(Error::Data {
                        file: self.path.to_path_buf(),
                        location: "line 1: ".to_string(),
                        message: format!(
                            "the line runs on for over {max_line} bytes; expected the \
                             dataset's metadata on the first line"
                        ),
                    });
                }
                return Ok((buf, false));
            }
        }
    }
}

/// Types the rows of a part (from `data_start` in `bytes`; its first line is line
/// `first_line`, its first row row `rows_before + 1`), in pieces in parallel, while `hash`
/// (when given) hashes its bytes.
fn parse(
    path: &Path,
    source: Source,
    header: &Header,
    (bytes, data_start): (Vec<u8>, usize),
    (first_line, rows_before): (u64, usize),
    hash: Option<&mut Sha256>,
) -> Result<Part> {
    use rayon::prelude::*;
    // UTF-8 is checked once for the part; its cells are then slices of it.
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = e.as_bytes().get(data_start..at).unwrap_or_default();
        let line = first_line + memchr::memchr_iter(b'\n', before).count() as u64;
        Error::Data {
            file: path.to_path_buf(),
            location: format!("{}: ", source.line(line)),
            message: "the text is not valid UTF-8; expected UTF-8, as JSON is".to_string(),
        }
    })?;
    let data_len = text.len().saturating_sub(data_start);
    let pieces = (data_len / PIECE_BYTES).clamp(1, 4 * rayon::current_num_threads());
    let mut bounds = vec![data_start];
    for k in 1..pieces {
        let guess = data_start + data_len / pieces * k;
        let cut = memchr::memchr(b'\n', text.as_bytes().get(guess..).unwrap_or_default())
            .map_or(text.len(), |p| guess + p + 1);
        if bounds.last().is_some_and(|&last| cut > last) && cut < text.len() {
            bounds.push(cut);
        }
    }
    bounds.push(text.len().max(data_start));
    let ((), pieces) = rayon::join(
        || {
            if let Some(hash) = hash {
                hash.update(text.as_bytes());
            }
        },
        || {
            bounds
                .par_windows(2)
                .map(|w| match w {
                    &[from, to] => piece(header, &text, from, to),
                    _ => Piece::default(),
                })
                .collect::<Vec<Piece>>()
        },
    );
    let (mut rows, mut lines) = (0usize, 0u64);
    for p in &pieces {
        if let Some((row, line, failure)) = &p.failure {
            let row = rows_before + rows + row + 1;
            let line = first_line + lines + line;
            return Err(row_error(path, source, header, row, Some(line), failure));
        }
        rows += p.rows;
        lines += p.lines;
    }
    // The pieces' own cells go after the text, and their spans there.
    let own: usize = pieces.iter().map(|p| p.text.len()).sum();
    let cells: usize = pieces.iter().map(|p| p.spans.len()).sum();
    let mut text = text;
    text.reserve_exact(own);
    let mut spans = Vec::with_capacity(cells);
    for p in pieces {
        if p.text.is_empty() {
            spans.extend_from_slice(&p.spans);
            continue;
        }
        let base = text.len();
        // Made of the part's strings and of digits: UTF-8 (checked again, it is short).
        let own = std::str::from_utf8(&p.text)
            .map_err(|_| Error::data_file(path, "readout made cells that are not UTF-8 (a bug)"))?;
        text.push_str(own);
        let moved = |offset: u32| u32::try_from(base + (offset & !OWN) as usize);
        for [start, end] in p.spans {
            if start & OWN == 0 {
                spans.push([start, end]);
            } else {
                match (moved(start), moved(end)) {
                    (Ok(start), Ok(end)) => spans.push([start, end]),
                    _ => {
                        return Err(Error::data_file(
                            path,
                            "a part holds over 4 GiB of text; readout reads smaller tables",
                        ))
                    }
                }
            }
        }
    }
    Ok(Part {
        text,
        spans,
        rows,
        lines,
    })
}

/// The rows of one piece of a part.
#[derive(Default)]
struct Piece {
    text: Vec<u8>,
    spans: Vec<[u32; 2]>,
    rows: usize,
    lines: u64,
    /// The row (from 0 in the piece), line (from 0) and failure that stopped it.
    failure: Option<(usize, u64, Failure)>,
}

/// Types the lines of `text[from..to]`, one row each (blank lines skipped): most with the
/// quick scanner, the others through serde_json.
fn piece(header: &Header, text: &str, from: usize, to: usize) -> Piece {
    let mut typer = Typer::new(&header.rules, text, (to - from) / 4);
    let mut lines = 0u64;
    let mut failure = None;
    let mut pos = from;
    while pos < to {
        let rest = text.as_bytes().get(pos..to).unwrap_or_default();
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let line = text.get(pos..pos + len).unwrap_or_default();
        let this = lines;
        lines += 1;
        pos += len + 1;
        if !line.starts_with('[') && line.trim_ascii().is_empty() {
            continue;
        }
        if line.len() > MAX_RECORD_BYTES {
            let message = format!(
                "the row holds over {MAX_RECORD_BYTES} bytes (1 MiB); expected at most that \
                 per row"
            );
            failure = Some((
                typer.rows,
                this,
                Failure {
                    column: None,
                    message,
                },
            ));
            break;
        }
        match typer.quick_row(line) {
            Quick::Row => continue,
            Quick::Failed => {
                if let Some(f) = typer.failure.take() {
                    failure = Some((typer.rows, this, f));
                }
                break;
            }
            Quick::Serde => {}
        }
        let mut de = serde_json::Deserializer::from_str(line);
        let outcome = RowSeed { typer: &mut typer }
            .deserialize(&mut de)
            .and_then(|()| de.end());
        if let Err(e) = outcome {
            let failure_of_row = typer.failure.take().unwrap_or_else(|| Failure {
                column: None,
                message: format!("{} at column {}", syntax(&e), e.column()),
            });
            failure = Some((typer.rows, this, failure_of_row));
            break;
        }
    }
    Piece {
        text: typer.text,
        spans: typer.spans,
        rows: typer.rows,
        lines,
        failure,
    }
}

// ---------------------------------------------------------------------------------------------
// JSON: one object, streamed.

/// The reading of a `.json` dataset: the metadata seen so far, the rows given on so far.
struct Json<'a, 'e> {
    path: &'a Path,
    source: Source,
    part_bytes: usize,
    each: &'a mut Each<'e>,
    rows_before: usize,
    /// The attributes read, but `rows`.
    map: Map<String, Value>,
    rows_seen: bool,
    /// Rows that came before `columns`, kept as their JSON text (not as values, which took
    /// 17 times the text) and typed once the columns are known.
    early_rows: Option<Box<serde_json::value::RawValue>>,
    /// The row being read when the text broke off.
    row_at_error: Option<usize>,
    /// The first error met: serde is stopped with a placeholder, this is the real one.
    error: Option<Error>,
    /// `each` asked to stop.
    stopped: bool,
    /// The last part given on.
    last: Option<CsvTable>,
}

fn json(
    path: &Path,
    source: Source,
    src: &mut (dyn Read + Send),
    part_bytes: usize,
    each: &mut Each<'_>,
) -> Result<Option<CsvTable>> {
    let mut reader = BufReader::with_capacity(1 << 16, src);
    let starts_with_bom = reader
        .fill_buf()
        .map_err(|e| source.read_error(path, e))?
        .starts_with(b"\xEF\xBB\xBF");
    if starts_with_bom {
        reader.consume(3);
    }
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut state = Json {
        path,
        source,
        part_bytes,
        each,
        rows_before: 0,
        map: Map::new(),
        rows_seen: false,
        early_rows: None,
        row_at_error: None,
        error: None,
        stopped: false,
        last: None,
    };
    let outcome = DatasetSeed { state: &mut state }
        .deserialize(&mut de)
        .and_then(|()| de.end());
    if let Some(e) = state.error.take() {
        return Err(e);
    }
    if state.stopped {
        return Ok(None);
    }
    if let Err(e) = outcome {
        if e.is_io() {
            return Err(source.read_error(path, std::io::Error::other(e.to_string())));
        }
        let row = state
            .row_at_error
            .map(|r| format!("row {r}: "))
            .unwrap_or_default();
        return Err(Error::Data {
            file: path.to_path_buf(),
            location: format!("{row}line {}, column {}: ", e.line(), e.column()),
            message: syntax(&e),
        });
    }
    let (_, header) = check_metadata(path, std::mem::take(&mut state.map))?;
    if let Some(rows) = state.early_rows.take() {
        let mut de = serde_json::Deserializer::from_str(rows.get());
        let outcome = RowsSeed {
            state: &mut state,
            header: &header,
        }
        .deserialize(&mut de)
        .and_then(|()| de.end());
        if let Some(e) = state.error.take() {
            return Err(e);
        }
        if state.stopped {
            return Ok(None);
        }
        if let Err(e) = outcome {
            return Err(Error::data_file(path, format!("`rows`: {e}")));
        }
    }
    check_count(path, header.records, state.rows_before)?;
    Ok(state.last.take())
}

impl Json<'_, '_> {
    /// Gives the typed rows on as a table.
    fn flush(&mut self, header: &Header, typer: &mut Typer<'_, '_>) -> Result<bool> {
        let rows = std::mem::replace(&mut typer.rows, 0);
        if rows == 0 {
            return Ok(true);
        }
        let cells = Cells::new(std::mem::take(&mut typer.text));
        // All cells are the reader's own here: no text is kept to point into.
        let spans = typer
            .spans
            .drain(..)
            .map(|[start, end]| [start & !OWN, end & !OWN])
            .collect();
        let table = part_table(self.path, header, cells, spans, self.rows_before, rows);
        let expected = expected_rows(header, self.rows_before + rows);
        let go_on = (self.each)(&table, self.rows_before, expected)?;
        self.rows_before += rows;
        if let Some(previous) = self.last.replace(table) {
            typer.text = previous.into_bytes();
        }
        Ok(go_on)
    }

    /// Stops serde with the real error kept.
    fn fail<E: de::Error>(&mut self, error: Error) -> E {
        if self.error.is_none() {
            self.error = Some(error);
        }
        E::custom(STOPPED)
    }
}

/// The top-level object.
struct DatasetSeed<'s, 'a, 'e> {
    state: &'s mut Json<'a, 'e>,
}

impl<'de> DeserializeSeed<'de> for DatasetSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DatasetSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a Dataset-JSON object (the metadata, `columns` and `rows`)"
        )
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let state = self.state;
        let path = state.path;
        while let Some(key) = map.next_key::<String>()? {
            let repeated = if key == "rows" {
                state.rows_seen
            } else {
                state.map.contains_key(&key)
            };
            if repeated {
                let e = Error::data_file(
                    path,
                    format!("`{key}` appears twice; expected each attribute once"),
                );
                return Err(state.fail(e));
            }
            if key != "rows" {
                let value: Value = map.next_value()?;
                state.map.insert(key, value);
                continue;
            }
            state.rows_seen = true;
            let Some(columns) = state.map.get("columns") else {
                // Rows before their columns: kept until the columns come.
                state.early_rows = Some(map.next_value()?);
                continue;
            };
            if let Some(version) = state.map.get("datasetJSONVersion") {
                if !version
                    .as_str()
                    .is_some_and(super::metadata::is_supported_version)
                {
                    return Err(state.fail(version_error(path, version)));
                }
            }
            let header = columns_of(path, columns).and_then(|c| header_of(path, &c));
            let mut header = match header {
                Ok(header) => header,
                Err(e) => return Err(state.fail(e)),
            };
            header.records = state.map.get("records").and_then(Value::as_u64);
            map.next_value_seed(RowsSeed {
                state: &mut *state,
                header: &header,
            })?;
        }
        Ok(())
    }
}

/// The `rows` array, typed row by row and given on in parts.
struct RowsSeed<'s, 'h, 'a, 'e> {
    state: &'s mut Json<'a, 'e>,
    header: &'h Header,
}

impl RowsSeed<'_, '_, '_, '_> {
    /// Reads one row with `read`, then gives the part on when it is full; `Ok(false)` at the
    /// end of the rows.
    fn row<E: de::Error>(
        &mut self,
        typer: &mut Typer<'_, '_>,
        read: impl FnOnce(&mut Typer<'_, '_>) -> std::result::Result<bool, E>,
    ) -> std::result::Result<bool, E> {
        let text_before = typer.text.len();
        let row = self.state.rows_before + typer.rows + 1;
        match read(typer) {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            Err(e) => {
                return Err(match typer.failure.take() {
                    Some(f) => {
                        let e = row_error(
                            self.state.path,
                            self.state.source,
                            self.header,
                            row,
                            None,
                            &f,
                        );
                        self.state.fail(e)
                    }
                    None => {
                        self.state.row_at_error = Some(row);
                        e
                    }
                });
            }
        }
        let len = typer.text.len() - text_before;
        if len > MAX_RECORD_BYTES {
            let e = Error::Data {
                file: self.state.path.to_path_buf(),
                location: format!("row {row}: "),
                message: format!(
                    "the row holds {len} bytes of text; expected at most {MAX_RECORD_BYTES} \
                     (1 MiB) per row"
                ),
            };
            return Err(self.state.fail(e));
        }
        if typer.text.len() >= self.state.part_bytes {
            self.flush(typer)?;
        }
        Ok(true)
    }

    fn flush<E: de::Error>(&mut self, typer: &mut Typer<'_, '_>) -> std::result::Result<(), E> {
        match self.state.flush(self.header, typer) {
            Ok(true) => Ok(()),
            Ok(false) => {
                self.state.stopped = true;
                Err(E::custom(STOPPED))
            }
            Err(e) => Err(self.state.fail(e)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for RowsSeed<'_, '_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowsSeed<'_, '_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`rows`: an array of rows")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(mut self, mut seq: A) -> std::result::Result<(), A::Error> {
        let header = self.header;
        let mut typer = Typer::new(&header.rules, "", 0);
        while self.row(&mut typer, |typer| {
            seq.next_element_seed(RowSeed { typer })
                .map(|row| row.is_some())
        })? {}
        self.flush(&mut typer)
    }
}

//! CSV bytes split into rows and cells: the header, a file without quotes split in place in
//! parallel chunks, any other through the `csv` crate, parts of a file read in pieces; line
//! numbers as an editor shows them, and the errors that name them.

use super::*;

/// Refuses a file over [`MAX_DATA_FILE_BYTES`] before reading it.
pub(super) fn check_file_size(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read data file", e))?;
    if meta.is_file() && meta.len() > MAX_DATA_FILE_BYTES {
        return Err(too_large(path));
    }
    Ok(())
}

/// The error of a data file over [`MAX_DATA_FILE_BYTES`] (also one that grew while read).
pub(super) fn too_large(path: &Path) -> Error {
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    Error::data_file(
        path,
        format!(
            "the file is {len} bytes; readout reads data files of at most {MAX_DATA_FILE_BYTES} bytes (1 GiB)"
        ),
    )
}

/// A cell's span as `u32` offsets (tables are at most 4 GiB of cell text).
pub(super) fn span(path: &Path, start: usize, end: usize) -> Result<[u32; 2]> {
    match (u32::try_from(start), u32::try_from(end)) {
        (Ok(s), Ok(e)) => Ok([s, e]),
        _ => Err(Error::data_file(
            path,
            "the table holds over 4 GiB of text; readout reads smaller tables",
        )),
    }
}

/// The next part of a file read in parts ([`CsvTable::read_parts`]).
pub(super) struct RawPart {
    /// The header line (none for the first part), then whole lines of the file.
    pub(super) bytes: Vec<u8>,
    /// Bytes read from the file for this part.
    pub(super) read: u64,
    /// Line feeds after the header line (in the first part, all of them).
    pub(super) line_feeds: u64,
    /// Whether the file ended.
    pub(super) at_end: bool,
    /// No `"` and no `\r` but before a `\n`: rows are lines.
    pub(super) plain: bool,
}

/// Reads the next part into `buf`: `header`, the `carry` left by the last part, then the
/// file's next bytes up to their last line feed (all of them at the end of the file); the
/// bytes after that line feed are the new `carry`. The bytes read are hashed in file order.
pub(super) fn read_part(
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
pub(super) struct Parsed {
    pub(super) headers: Vec<String>,
    pub(super) index: HashMap<String, usize>,
    pub(super) layout: Layout,
    pub(super) lines: Lines,
    /// The buffer the spans point into, when it is not the file's own bytes.
    pub(super) cells: Option<Vec<u8>>,
}

/// Parses a CSV file: the header, then every row; a file without quotes is split in place
/// when `split_in_place`, any other through the `csv` crate.
///
/// `shift` is added to every line number (a part of a file read in parts starts further
/// down); a file without data rows is refused when `require_rows`. A later part of a file
/// read in parts (`later_part`: the header line copied in front of its rows) may hold only
/// blank lines, and a header of blank names is one empty column: it is not an empty file.
pub(super) fn parse_csv(
    path: &Path,
    bytes: &[u8],
    split_in_place: bool,
    shift: u64,
    require_rows: bool,
    later_part: bool,
) -> Result<Parsed> {
    let bom = bom_len(bytes);
    let body = bytes.get(bom..).unwrap_or_default();
    if !later_part && body.iter().all(|b| b.is_ascii_whitespace()) {
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
pub(super) fn header_names<'b>(
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
                    "header field {} (`{}`) holds {}; expected a column name without \
                     control characters",
                    i + 1,
                    crate::error::escape_controls(&name, false),
                    crate::error::refused_character(c)
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
pub(super) fn parse_quoted(path: &Path, body: &[u8]) -> Result<Parsed> {
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
pub(super) enum PlainError {
    /// The row has this many fields.
    Fields(usize),
    /// The row holds this many bytes of cell text.
    TooLong(usize),
}

/// One chunk of a plain file: its rows, the line numbers of its rows relative to the chunk's
/// first line when it holds blank lines, the number of lines it holds, and its first error.
pub(super) struct PlainChunk {
    pub(super) rows: Vec<[u32; 2]>,
    /// Set at the first blank line (until then, row `i` is on line `i`).
    pub(super) lines: Option<Vec<u64>>,
    pub(super) line_count: u64,
    pub(super) error: Option<(u64, PlainError)>,
    /// A lone carriage return: the chunk cannot be split on line feeds alone.
    pub(super) lone_cr: bool,
}

/// The length of the UTF-8 byte order mark `bytes` start with (0 or 3).
pub(super) fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// The header line of a file without quotes (after `bom` bytes): the first line that is not
/// blank, as the `csv` crate skips blank lines. Returns the line (without its line end), the
/// offset of its line feed (or the end of `bytes`) and its line number.
pub(super) fn header_line(bytes: &[u8], bom: usize) -> (&[u8], usize, u64) {
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
pub(super) fn split_plain(
    path: &Path,
    bytes: &[u8],
    bom: usize,
    shift: u64,
) -> Result<Option<Parsed>> {
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
pub(super) fn split_chunk(chunk: &[u8], offset: usize, width: usize) -> PlainChunk {
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
pub(super) fn count_commas(bytes: &[u8]) -> usize {
    bytes.iter().fold(0, |n, &b| n + usize::from(b == b','))
}

/// Ends the line `line` (up to its line feed, or the chunk's end) holding `commas` commas: a
/// row, or a blank line, or an error. `false` when the chunk stops here.
pub(super) fn finish_line(
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
pub(super) fn wrong_field_count(fields: usize, width: usize) -> String {
    let plural = if fields == 1 { "" } else { "s" };
    format!("the row has {fields} field{plural}; expected {width} like the header")
}

pub(super) fn record_too_long(path: &Path, line: u64, len: usize) -> Error {
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
pub(super) struct LineCounter {
    /// Bytes counted so far.
    pub(super) upto: usize,
    /// Line ends before `upto`.
    pub(super) ends: u64,
}

impl LineCounter {
    /// The line of the record whose offset is `byte` (offsets only grow).
    pub(super) fn line_at(&mut self, body: &[u8], byte: usize) -> u64 {
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

pub(super) fn csv_error(path: &Path, e: csv::Error, line: Option<u64>) -> Error {
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

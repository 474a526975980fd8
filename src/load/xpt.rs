//! SAS transport files, version 5 (`.xpt`, the XPORT engine; SAS technical note TS-140), read
//! into a table of text cells that [`crate::load`] treats exactly like a CSV file.
//!
//! The layout: 80-byte records; a library header, then per dataset (member) a member header,
//! a descriptor, one 140-byte *namestr* per variable, and the observations packed back to back,
//! the last record padded with blanks. Numbers are IBM System/360 hexadecimal floating point,
//! 2 to 8 bytes (a short numeric keeps the leading bytes). Missing values are `.`, `.A`–`.Z`
//! and `._`: the code byte followed by zeros.
//!
//! Cells are written the way the CSV conversions of ADaM data are: a number whose display
//! format is a SAS date format becomes `YYYY-MM-DD` (days since 1960-01-01), a datetime format
//! `YYYY-MM-DDTHH:MM:SS` (seconds since 1960-01-01T00:00:00), a time format `HH:MM:SS`; any
//! other number is the shortest decimal that reads back to the same double; missing numbers are
//! empty cells; character values are right-trimmed (blanks and NULs) and decoded as UTF-8, or
//! as Windows-1252 when they are not valid UTF-8 (SAS's default `wlatin1` session encoding).
//!
//! Not here: reading the file (`load` does, and keeps its SHA-256), transport version 8/9
//! (`LIBV8`, long names) and CPORT files, which are refused with a message saying so. Nothing
//! in this module panics on malformed input: every slice is bounds-checked and every problem is
//! an [`XptError`] naming the byte offset, the 80-byte record and what was expected.

use std::fmt;

/// Bytes per transport record.
const RECORD: usize = 80;
const LIBRARY_HEADER: &[u8] = b"HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!";
const LIBV8_HEADER: &[u8] = b"HEADER RECORD*******LIBV8   HEADER RECORD!!!!!!!";
const MEMBER_HEADER: &[u8] = b"HEADER RECORD*******MEMBER  HEADER RECORD!!!!!!!";
const MEMBV8_HEADER: &[u8] = b"HEADER RECORD*******MEMBV8  HEADER RECORD!!!!!!!";
const DESCRIPTOR_HEADER: &[u8] = b"HEADER RECORD*******DSCRPTR HEADER RECORD!!!!!!!";
const NAMESTR_HEADER: &[u8] = b"HEADER RECORD*******NAMESTR HEADER RECORD!!!!!!!";
const OBS_HEADER: &[u8] = b"HEADER RECORD*******OBS     HEADER RECORD!!!!!!!";
/// Seconds in a day.
const DAY_SECONDS: i64 = 86_400;

/// A malformed or unsupported transport file: where, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XptError {
    /// Byte offset in the file where the problem is.
    pub offset: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl XptError {
    fn at(offset: usize, message: impl Into<String>) -> XptError {
        XptError {
            offset,
            message: message.into(),
        }
    }

    /// "byte 560 (record 8)": the 80-byte record is what SAS's documentation counts in.
    pub fn location(&self) -> String {
        format!("byte {} (record {})", self.offset, self.offset / RECORD + 1)
    }
}

impl fmt::Display for XptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.message)
    }
}

impl std::error::Error for XptError {}

/// Whether a variable holds text or numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariableType {
    /// `ntype = 1`: IBM floating point, 2–8 bytes.
    Numeric,
    /// `ntype = 2`: blank-padded text.
    Character,
}

/// What a numeric value means, decided by its display format (`nform`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericMeaning {
    /// A plain number.
    Number,
    /// Days since 1960-01-01 (`DATE9.`, `YYMMDD10.`, `E8601DA.`, ...).
    Date,
    /// Seconds since 1960-01-01T00:00:00 (`DATETIME20.`, `E8601DT.`, ...).
    DateTime,
    /// Seconds since midnight (`TIME8.`, `E8601TM.`, ...).
    Time,
}

/// One variable, from its namestr record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// `nname`, trimmed.
    pub name: String,
    /// `nlabel`, trimmed.
    pub label: String,
    /// `ntype`.
    pub kind: VariableType,
    /// `nlng`: bytes per value.
    pub length: usize,
    /// `npos`: offset of the value in an observation.
    pub position: usize,
    /// `nform` as written, trimmed and upper-cased (empty when none), e.g. `DATE`.
    pub format: String,
    /// What the numbers mean (always [`NumericMeaning::Number`] for character variables).
    pub meaning: NumericMeaning,
}

/// One dataset read from a transport file, every value as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XptTable {
    /// The member (dataset) name, e.g. `ADSL`.
    pub dataset: String,
    /// The dataset label.
    pub label: String,
    /// The variables in file order.
    pub variables: Vec<Variable>,
    /// Every cell's text, row after row (missing values are empty).
    pub text: String,
    /// Start and end of each cell in `text`: row `r`, variable `v` is entry
    /// `r * variables.len() + v`. Held compact, not as a `String` per cell: a file of short
    /// observations held as strings took 70 times its size.
    pub spans: Vec<[u32; 2]>,
}

impl XptTable {
    /// Number of observations.
    pub fn len(&self) -> usize {
        self.spans.len() / self.variables.len().max(1)
    }

    /// Whether the table has no observation.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Observation `row`'s cells, one per variable (empty when out of range).
    pub fn row(&self, row: usize) -> Vec<&str> {
        let width = self.variables.len();
        self.spans
            .get(row * width..(row + 1) * width)
            .unwrap_or_default()
            .iter()
            .map(|&[start, end]| self.text.get(start as usize..end as usize).unwrap_or(""))
            .collect()
    }
}

/// The fixed 80-byte record at `offset`, or an error saying what should have been there.
fn record<'a>(bytes: &'a [u8], offset: usize, expected: &str) -> Result<&'a [u8], XptError> {
    bytes.get(offset..offset + RECORD).ok_or_else(|| {
        XptError::at(
            offset.min(bytes.len()),
            format!(
                "the file ends after {} bytes; expected {expected} (80 bytes) here",
                bytes.len()
            ),
        )
    })
}

fn expect_header(bytes: &[u8], offset: usize, header: &[u8], name: &str) -> Result<(), XptError> {
    let rec = record(bytes, offset, name)?;
    if rec.starts_with(header) {
        Ok(())
    } else {
        Err(XptError::at(
            offset,
            format!(
                "found `{}`; expected the {name} `{}`",
                printable(rec.get(..header.len()).unwrap_or(rec)),
                printable(header)
            ),
        ))
    }
}

/// Bytes shown in a message: ASCII as is, anything else as `\xNN`.
fn printable(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect()
}

/// A blank-padded ASCII field, trimmed.
fn field(bytes: &[u8], start: usize, len: usize) -> String {
    let raw = bytes.get(start..start + len).unwrap_or(&[]);
    decode_text(raw).trim().to_string()
}

fn be_u16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]))
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Digits of a header record field (`0140`) as a number.
fn header_number(rec: &[u8], start: usize, len: usize) -> Option<usize> {
    let text = std::str::from_utf8(rec.get(start..start + len)?).ok()?;
    text.trim().parse().ok()
}

/// Parses a whole transport file holding one dataset, as every ADaM `.xpt` does.
pub fn parse(bytes: &[u8]) -> Result<XptTable, XptError> {
    let first = bytes.get(..RECORD.min(bytes.len())).unwrap_or(&[]);
    if bytes.is_empty() {
        return Err(XptError::at(
            0,
            "the file is empty; expected a SAS transport (XPORT v5) file",
        ));
    }
    if first.starts_with(LIBV8_HEADER) {
        return Err(XptError::at(
            0,
            "this is a SAS transport version 8/9 file (LIBV8 header); expected version 5, as written by the XPORT engine or %loc2xpt with FORMAT=V5 (the version FDA accepts)",
        ));
    }
    if bytes.windows(14).take(4096).any(|w| w == b"**COMPRESSED**") {
        return Err(XptError::at(
            0,
            "this is a CPORT file (PROC CPORT), not a transport file; expected SAS XPORT v5: write it with the XPORT engine (libname x xport \"file.xpt\") or %loc2xpt",
        ));
    }
    if !first.starts_with(LIBRARY_HEADER) {
        return Err(XptError::at(
            0,
            format!(
                "found `{}`; expected a SAS transport (XPORT v5) file starting with `{}`",
                printable(first.get(..LIBRARY_HEADER.len()).unwrap_or(first)),
                printable(LIBRARY_HEADER)
            ),
        ));
    }
    if !bytes.len().is_multiple_of(RECORD) {
        return Err(XptError::at(
            bytes.len() - bytes.len() % RECORD,
            format!(
                "the file is {} bytes, not a whole number of 80-byte records; expected a complete transport file (is it truncated?)",
                bytes.len()
            ),
        ));
    }
    // Library header, then two records of SAS version, OS and dates.
    record(bytes, RECORD, "the first library real header record")?;
    record(bytes, 2 * RECORD, "the second library real header record")?;

    let member_offset = 3 * RECORD;
    let (table, end) = parse_member(bytes, member_offset)?;
    if end < bytes.len() {
        // `end` is the start of another member header: say which datasets there are.
        let mut names = vec![table.dataset.clone()];
        let mut offset = end;
        while offset < bytes.len() {
            match parse_member(bytes, offset) {
                Ok((other, next)) => {
                    names.push(other.dataset);
                    offset = next;
                }
                Err(_) => break,
            }
        }
        return Err(XptError::at(
            end,
            format!(
                "the file holds {} datasets ({}); expected one dataset per file, as in a submission's ADaM folder",
                names.len(),
                names.join(", ")
            ),
        ));
    }
    Ok(table)
}

/// One member starting at `offset` (its member header record); returns the table and the
/// offset just past its data (the next member header, or the end of the file).
fn parse_member(bytes: &[u8], offset: usize) -> Result<(XptTable, usize), XptError> {
    let rec = record(bytes, offset, "the member header record")?;
    if rec.starts_with(MEMBV8_HEADER) {
        return Err(XptError::at(
            offset,
            "this is a SAS transport version 8/9 member (MEMBV8 header); expected version 5",
        ));
    }
    expect_header(bytes, offset, MEMBER_HEADER, "member header record")?;
    // Columns 75-78 hold the namestr length: 0140, or 0136 on VAX/VMS.
    let namestr_len = header_number(rec, 74, 4).unwrap_or(140);
    if !(88..=140).contains(&namestr_len) {
        return Err(XptError::at(
            offset + 74,
            format!("namestr length {namestr_len}; expected 140 (or 136 from VAX/VMS)"),
        ));
    }
    let mut at = offset + RECORD;
    expect_header(bytes, at, DESCRIPTOR_HEADER, "descriptor header record")?;
    at += RECORD;
    let descriptor = record(bytes, at, "the member descriptor record")?;
    let dataset = field(descriptor, 8, 8);
    at += RECORD;
    let descriptor2 = record(bytes, at, "the second member descriptor record")?;
    let label = field(descriptor2, 32, 40);
    at += RECORD;

    let (variables, at) = variables_of(bytes, at, namestr_len, &dataset)?;
    expect_header(bytes, at, OBS_HEADER, "observation header record")?;
    let data_start = at + RECORD;
    let (data, count, data_end) = observations(bytes, data_start, &variables)?;
    let (text, spans) = cells(data, count, data_start, &variables)?;
    Ok((
        XptTable {
            dataset,
            label,
            variables,
            text,
            spans,
        },
        data_end,
    ))
}

/// The namestr header at `at` and the variables it describes (unique names, each inside the
/// observation); returns them with the offset after their records.
fn variables_of(
    bytes: &[u8],
    mut at: usize,
    namestr_len: usize,
    dataset: &str,
) -> Result<(Vec<Variable>, usize), XptError> {
    expect_header(bytes, at, NAMESTR_HEADER, "namestr header record")?;
    let count_at = at + 54;
    let nvars = header_number(record(bytes, at, "")?, 54, 4).ok_or_else(|| {
        XptError::at(
            count_at,
            "the variable count (columns 55-58 of the namestr header) is not a number; expected 4 digits",
        )
    })?;
    if nvars == 0 {
        return Err(XptError::at(
            count_at,
            format!("dataset `{dataset}` has no variables; expected at least one"),
        ));
    }
    at += RECORD;
    let mut variables = Vec::with_capacity(nvars);
    for i in 0..nvars {
        let start = at + i * namestr_len;
        let ns = bytes.get(start..start + namestr_len).ok_or_else(|| {
            XptError::at(
                start.min(bytes.len()),
                format!(
                    "the file ends inside the description of variable {} of {nvars}; expected {namestr_len} bytes per variable",
                    i + 1
                ),
            )
        })?;
        variables.push(parse_namestr(ns, start, i + 1)?);
    }
    at += (nvars * namestr_len).div_ceil(RECORD) * RECORD;

    let mut names = std::collections::HashSet::new();
    for v in &variables {
        if !names.insert(v.name.to_ascii_uppercase()) {
            return Err(XptError::at(
                at,
                format!(
                    "variable `{}` is described twice; expected unique names",
                    v.name
                ),
            ));
        }
    }
    let obs_len = observation_length(&variables);
    for v in &variables {
        if v.position + v.length > obs_len {
            return Err(XptError::at(
                at,
                format!(
                    "variable `{}` lies at bytes {}..{} of an observation of {obs_len} bytes; expected it inside the observation",
                    v.name,
                    v.position,
                    v.position + v.length
                ),
            ));
        }
    }
    Ok((variables, at))
}

/// Bytes of one observation: every variable's length, back to back.
fn observation_length(variables: &[Variable]) -> usize {
    variables.iter().map(|v| v.length).sum()
}

/// The observations from `data_start`: their bytes, how many there are (trailing blank padding
/// dropped) and where they end (the next member header or the end of the file).
fn observations<'a>(
    bytes: &'a [u8],
    data_start: usize,
    variables: &[Variable],
) -> Result<(&'a [u8], usize, usize), XptError> {
    let obs_len = observation_length(variables);
    // The data run to the next member header (at a record boundary) or the end of the file.
    let data_end = (data_start..bytes.len())
        .step_by(RECORD)
        .find(|&o| {
            bytes
                .get(o..o + MEMBER_HEADER.len())
                .is_some_and(|r| r == MEMBER_HEADER || r == MEMBV8_HEADER)
        })
        .unwrap_or(bytes.len());
    let data = bytes.get(data_start..data_end).unwrap_or(&[]);
    let mut count = data.len() / obs_len;
    let tail = data.get(count * obs_len..).unwrap_or(&[]);
    if !tail.iter().all(|&b| b == b' ') {
        return Err(XptError::at(
            data_start + count * obs_len,
            format!(
                "observation {} is cut short ({} of {obs_len} bytes); expected whole observations, then blank padding to the end of an 80-byte record (is the file truncated?)",
                count + 1,
                tail.len()
            ),
        ));
    }
    // Blank padding shorter than 80 bytes can hold whole "observations" when they are short:
    // an all-blank observation that starts inside the last record's padding is padding.
    while count > 0 {
        let start = (count - 1) * obs_len;
        let obs = data.get(start..start + obs_len).unwrap_or(&[]);
        if data_start + start + RECORD > data_end && obs.iter().all(|&b| b == b' ') {
            count -= 1;
        } else {
            break;
        }
    }
    Ok((data, count, data_end))
}

/// Every cell of `count` observations as text, row by row: characters decoded (UTF-8, else
/// Windows-1252), numbers formatted by their SAS format; missing numbers are empty.
fn cells(
    data: &[u8],
    count: usize,
    data_start: usize,
    variables: &[Variable],
) -> Result<(String, Vec<[u32; 2]>), XptError> {
    let obs_len = observation_length(variables);
    let mut text = String::new();
    let mut spans: Vec<[u32; 2]> = Vec::with_capacity(count.saturating_mul(variables.len()));
    let too_large = |n: usize| {
        XptError::at(
            data_start,
            format!("observation {n}: the dataset's text passes 4 GiB; expected a smaller dataset"),
        )
    };
    for n in 0..count {
        let obs_start = n * obs_len;
        let obs = data.get(obs_start..obs_start + obs_len).unwrap_or(&[]);
        for v in variables {
            let raw = obs.get(v.position..v.position + v.length).unwrap_or(&[]);
            let start = u32::try_from(text.len()).map_err(|_| too_large(n + 1))?;
            match v.kind {
                VariableType::Character => {
                    let raw = trim_padding(raw);
                    match std::str::from_utf8(raw) {
                        Ok(cell) => text.push_str(cell),
                        Err(_) => text.extend(raw.iter().map(|&b| windows_1252(b))),
                    }
                }
                VariableType::Numeric => {
                    if let Some(x) = ibm_to_f64(raw) {
                        let cell = format_numeric(x, v.meaning).map_err(|why| {
                            XptError::at(
                                data_start + obs_start + v.position,
                                format!(
                                    "observation {}, variable `{}` (format {}): {why}",
                                    n + 1,
                                    v.name,
                                    v.format
                                ),
                            )
                        })?;
                        text.push_str(&cell);
                    }
                }
            }
            let end = u32::try_from(text.len()).map_err(|_| too_large(n + 1))?;
            spans.push([start, end]);
        }
    }
    Ok((text, spans))
}

/// One namestr record (140 bytes; 136 from VAX/VMS), starting at `offset` in the file.
fn parse_namestr(ns: &[u8], offset: usize, number: usize) -> Result<Variable, XptError> {
    let bad = |at: usize, message: String| XptError::at(offset + at, message);
    let ntype = be_u16(ns, 0).unwrap_or(0);
    let length = usize::from(be_u16(ns, 4).unwrap_or(0));
    let name = field(ns, 8, 8);
    let label = field(ns, 16, 40);
    let format = field(ns, 56, 8).to_ascii_uppercase();
    let position = be_u32(ns, 84).unwrap_or(0) as usize;
    let shown = if name.is_empty() {
        format!("variable {number}")
    } else {
        format!("variable {number} (`{name}`)")
    };
    if name.is_empty() {
        return Err(bad(
            8,
            format!("{shown} has an empty name; expected 1 to 8 characters"),
        ));
    }
    let kind = match ntype {
        1 => VariableType::Numeric,
        2 => VariableType::Character,
        other => {
            return Err(bad(
                0,
                format!("{shown} has type {other}; expected 1 (numeric) or 2 (character)"),
            ))
        }
    };
    match kind {
        VariableType::Numeric if !(2..=8).contains(&length) => {
            return Err(bad(
                4,
                format!("{shown} is numeric with length {length}; expected 2 to 8 bytes"),
            ))
        }
        VariableType::Character if length == 0 => {
            return Err(bad(
                4,
                format!("{shown} is character with length 0; expected 1 or more bytes"),
            ))
        }
        _ => {}
    }
    let meaning = match kind {
        VariableType::Numeric => numeric_meaning(&format),
        VariableType::Character => NumericMeaning::Number,
    };
    Ok(Variable {
        name,
        label,
        kind,
        length,
        position,
        format,
        meaning,
    })
}

/// Trailing blanks and NULs are padding.
pub(crate) fn trim_padding(raw: &[u8]) -> &[u8] {
    let end = raw
        .iter()
        .rposition(|&b| b != b' ' && b != 0)
        .map_or(0, |i| i + 1);
    raw.get(..end).unwrap_or(&[])
}

/// UTF-8 when valid, else Windows-1252 (a superset of Latin-1 for printable text).
pub(crate) fn decode_text(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        Err(_) => raw.iter().map(|&b| windows_1252(b)).collect(),
    }
}

fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// An IBM System/360 floating-point number of 2 to 8 bytes (the leading bytes of the 8-byte
/// form), or `None` for a SAS missing value (`.`, `.A`–`.Z`, `._`: the code byte, then zeros).
///
/// The value is `(-1)^sign × 0.fraction × 16^(exponent − 64)` with a 7-bit exponent and a
/// 56-bit fraction; the fraction is rounded to the nearest double, so every number SAS wrote
/// from a double reads back as that double.
pub fn ibm_to_f64(raw: &[u8]) -> Option<f64> {
    let (&first, rest) = raw.split_first()?;
    let rest_zero = rest.iter().all(|&b| b == 0);
    if rest_zero && (first == b'.' || first == b'_' || first.is_ascii_uppercase()) {
        return None;
    }
    let mut fraction: u64 = 0;
    for i in 0..7 {
        fraction = (fraction << 8) | u64::from(rest.get(i).copied().unwrap_or(0));
    }
    if fraction == 0 {
        return Some(0.0);
    }
    let sign = if first & 0x80 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from(first & 0x7f) - 64;
    // fraction × 2^(4·exponent − 56); the power of two is exact (−312 ≤ it ≤ 196), and the
    // u64 → f64 conversion rounds to nearest, ties to even.
    let power = 4 * exponent - 56;
    let scale = f64::from_bits(((power + 1023) as u64) << 52);
    Some(sign * (fraction as f64) * scale)
}

/// A number as its cell text.
pub(crate) fn format_numeric(x: f64, meaning: NumericMeaning) -> Result<String, String> {
    match meaning {
        NumericMeaning::Number => Ok(shortest_decimal(x)),
        NumericMeaning::Date => {
            let days = x.floor();
            date_from_days(days)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .ok_or_else(|| format!("{x} days from 1960-01-01 is not a calendar date; expected a SAS date between years 1582 and 9999"))
        }
        NumericMeaning::DateTime => {
            let whole = x.floor();
            let days = (whole / DAY_SECONDS as f64).floor();
            let date = date_from_days(days).ok_or_else(|| {
                format!("{x} seconds from 1960-01-01 is not a date and time; expected a SAS datetime between years 1582 and 9999")
            })?;
            let seconds = (whole - days * DAY_SECONDS as f64) as i64;
            Ok(format!(
                "{}T{}{}",
                date.format("%Y-%m-%d"),
                clock(seconds),
                fraction_of_second(x - whole)
            ))
        }
        NumericMeaning::Time => {
            if !(0.0..(DAY_SECONDS as f64)).contains(&x) {
                // A duration of a day or more, or negative: keep the number itself.
                return Ok(shortest_decimal(x));
            }
            let whole = x.floor();
            Ok(format!(
                "{}{}",
                clock(whole as i64),
                fraction_of_second(x - whole)
            ))
        }
    }
}

fn clock(seconds: i64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// `.25` for a quarter second, to microseconds; empty for whole seconds.
fn fraction_of_second(f: f64) -> String {
    let micros = (f * 1e6).round() as u32;
    if micros == 0 || micros >= 1_000_000 {
        return String::new();
    }
    let digits = format!("{micros:06}");
    format!(".{}", digits.trim_end_matches('0'))
}

/// Rust's `Display` for `f64` is the shortest decimal that parses back to the same value,
/// without an exponent; `-0` is written `0`.
fn shortest_decimal(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else {
        x.to_string()
    }
}

/// SAS dates count days from 1960-01-01 (negative before it). Years outside 1582–9999 are
/// outside what SAS itself displays, and are refused.
fn date_from_days(days: f64) -> Option<chrono::NaiveDate> {
    // 1582-10-15 is day −137774; 9999-12-31 is day 2936549.
    if !(-137_774.0..=2_936_549.0).contains(&days) {
        return None;
    }
    let epoch = chrono::NaiveDate::from_ymd_opt(1960, 1, 1)?;
    epoch.checked_add_signed(chrono::Duration::days(days as i64))
}

/// The meaning of a numeric variable from its format name (`nform`; the width and decimals
/// are in other fields, but some writers leave `DATE9.` in the name, so digits and the dot
/// are dropped).
pub fn numeric_meaning(format: &str) -> NumericMeaning {
    let name = format
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .to_ascii_uppercase();
    let name = name.as_str();
    if name.is_empty() {
        return NumericMeaning::Number;
    }
    const DATETIME: &[&str] = &[
        "DATETIME",
        "DATEAMPM",
        "E8601DT",
        "B8601DT",
        "IS8601DT",
        "E8601DX",
        "B8601DX",
        "E8601DZ",
        "B8601DZ",
        "E8601LX",
        "B8601LX",
        "NLDATM",
        "NLDATMAP",
        "NLDATMDT",
        "NLDATML",
        "NLDATMM",
        "NLDATMMD",
        "NLDATMMDL",
        "NLDATMMDM",
        "NLDATMMDS",
        "NLDATMMN",
        "NLDATMS",
        "NLDATMW",
        "NLDATMWN",
        "NLDATMWZ",
        "NLDATMYM",
        "NLDATMYML",
        "NLDATMYMM",
        "NLDATMYMS",
        "NLDATMYQ",
        "NLDATMYQL",
        "NLDATMYQM",
        "NLDATMYQS",
        "NLDATMYR",
        "NLDATMYW",
        "NLDATMZ",
        "MDYAMPM",
        "DTDATE",
        "DTMONYY",
        "DTWKDATX",
        "DTYEAR",
        "DTYYQC",
        "ANYDTDTM",
    ];
    const TIME: &[&str] = &[
        "TIME", "TOD", "HHMM", "HOUR", "MMSS", "TIMEAMPM", "E8601TM", "B8601TM", "IS8601TM",
        "E8601TX", "B8601TX", "E8601TZ", "B8601TZ", "E8601LZ", "B8601LZ", "NLTIME", "NLTIMAP",
        "ANYDTTME",
    ];
    const DATE: &[&str] = &[
        "DATE",
        "DAY",
        "DOWNAME",
        "E8601DA",
        "B8601DA",
        "IS8601DA",
        "E8601DN",
        "B8601DN",
        "JULDAY",
        "JULIAN",
        "MINGUO",
        "MONNAME",
        "MONTH",
        "MONYY",
        "NENGO",
        "PDJULG",
        "PDJULI",
        "QTR",
        "QTRR",
        "WEEKDATE",
        "WEEKDATX",
        "WEEKDAY",
        "WEEKU",
        "WEEKV",
        "WEEKW",
        "WORDDATE",
        "WORDDATX",
        "YEAR",
        "YYMON",
        "YYQR",
        "EURDFDD",
        "EURDFDE",
        "EURDFDN",
        "EURDFDT",
        "EURDFDWN",
        "EURDFMN",
        "EURDFMY",
        "EURDFWDX",
        "EURDFWKX",
        "NLDATE",
        "NLDATEL",
        "NLDATEM",
        "NLDATEMD",
        "NLDATEMDL",
        "NLDATEMDM",
        "NLDATEMDS",
        "NLDATEMN",
        "NLDATES",
        "NLDATEW",
        "NLDATEWN",
        "NLDATEYM",
        "NLDATEYML",
        "NLDATEYMM",
        "NLDATEYMS",
        "NLDATEYQ",
        "NLDATEYQL",
        "NLDATEYQM",
        "NLDATEYQS",
        "NLDATEYR",
        "NLDATEYW",
        "ANYDTDTE",
        "YYWEEKU",
        "YYWEEKV",
        "YYWEEKW",
    ];
    // Families written with an optional separator letter: B(lank) C(olon) D(ash) N(one)
    // P(eriod) S(lash), e.g. YYMMDDN8., DDMMYYS10.
    const SEPARATED: &[&str] = &["DDMMYY", "MMDDYY", "YYMMDD", "MMYY", "YYMM", "YYQ", "YYQR"];
    if DATETIME.contains(&name) {
        return NumericMeaning::DateTime;
    }
    if TIME.contains(&name) {
        return NumericMeaning::Time;
    }
    if DATE.contains(&name) {
        return NumericMeaning::Date;
    }
    for family in SEPARATED {
        if let Some(rest) = name.strip_prefix(family) {
            if rest.is_empty() || (rest.len() == 1 && "BCDNPS".contains(rest)) {
                return NumericMeaning::Date;
            }
        }
    }
    NumericMeaning::Number
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibm_examples_from_the_ibm_principles_of_operation() {
        assert_eq!(ibm_to_f64(&[0x41, 0x10, 0, 0, 0, 0, 0, 0]), Some(1.0));
        assert_eq!(
            ibm_to_f64(&[0xC2, 0x76, 0xA0, 0, 0, 0, 0, 0]),
            Some(-118.625)
        );
        assert_eq!(ibm_to_f64(&[0x40, 0x80, 0, 0, 0, 0, 0, 0]), Some(0.5));
        assert_eq!(ibm_to_f64(&[0; 8]), Some(0.0));
        // A short numeric: the leading three bytes of 1.0.
        assert_eq!(ibm_to_f64(&[0x41, 0x10, 0x00]), Some(1.0));
        // Largest and smallest magnitudes stay finite and non-zero.
        let max = ibm_to_f64(&[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]).unwrap();
        assert!(max.is_finite() && max > 7.2e75 && max < 7.3e75);
        let min = ibm_to_f64(&[0x00, 0x10, 0, 0, 0, 0, 0, 0]).unwrap();
        assert!(min > 0.0 && (min - 16f64.powi(-65)).abs() < 1e-90);
    }

    #[test]
    fn missing_values_are_none_and_only_with_zero_tails() {
        for code in [b'.', b'A', b'Z', b'_'] {
            assert_eq!(ibm_to_f64(&[code, 0, 0, 0, 0, 0, 0, 0]), None);
            assert_eq!(ibm_to_f64(&[code, 0, 0]), None);
        }
        // 0x41 with a non-zero fraction is a number (1/16 × 16 = 1).
        assert_eq!(ibm_to_f64(&[0x41, 0x10, 0, 0, 0, 0, 0, 0]), Some(1.0));
        assert_eq!(ibm_to_f64(&[]), None);
    }

    #[test]
    fn formats_decide_dates_datetimes_times_and_numbers() {
        for f in [
            "DATE", "DATE9.", "YYMMDD", "YYMMDDN", "E8601DA", "MMDDYYS", "MONYY",
        ] {
            assert_eq!(numeric_meaning(f), NumericMeaning::Date, "{f}");
        }
        for f in ["DATETIME", "DATETIME20.", "E8601DT", "DTDATE", "IS8601DT"] {
            assert_eq!(numeric_meaning(f), NumericMeaning::DateTime, "{f}");
        }
        for f in ["TIME", "E8601TM", "TOD", "HHMM"] {
            assert_eq!(numeric_meaning(f), NumericMeaning::Time, "{f}");
        }
        for f in ["", "BEST", "8.", "Z", "COMMA", "YYMMDDX", "DAYS", "PERCENT"] {
            assert_eq!(numeric_meaning(f), NumericMeaning::Number, "{f}");
        }
    }

    #[test]
    fn cells_are_iso_dates_times_and_shortest_decimals() {
        let f = |x, m| format_numeric(x, m).unwrap();
        assert_eq!(f(0.0, NumericMeaning::Date), "1960-01-01");
        assert_eq!(f(-1.0, NumericMeaning::Date), "1959-12-31");
        assert_eq!(f(-21914.0, NumericMeaning::Date), "1900-01-01");
        assert_eq!(f(19_724.0, NumericMeaning::Date), "2014-01-01");
        assert_eq!(f(-0.5, NumericMeaning::Date), "1959-12-31");
        assert_eq!(f(0.0, NumericMeaning::DateTime), "1960-01-01T00:00:00");
        assert_eq!(f(-1.0, NumericMeaning::DateTime), "1959-12-31T23:59:59");
        assert_eq!(
            f(1_704_067_200.0 + 3723.25, NumericMeaning::DateTime),
            "2013-12-31T01:02:03.25"
        );
        assert_eq!(f(3723.0, NumericMeaning::Time), "01:02:03");
        assert_eq!(f(25.1, NumericMeaning::Number), "25.1");
        assert_eq!(f(182.0, NumericMeaning::Number), "182");
        assert_eq!(f(-0.0, NumericMeaning::Number), "0");
        assert_eq!(f(1e-7, NumericMeaning::Number), "0.0000001");
        assert!(format_numeric(1e12, NumericMeaning::Date).is_err());
        assert!(format_numeric(-1e15, NumericMeaning::DateTime).is_err());
    }

    #[test]
    fn not_a_transport_file_says_so() {
        let err = parse(b"USUBJID,AGE\n1,2\n").unwrap_err();
        assert_eq!(err.offset, 0);
        assert!(err.message.contains("expected a SAS transport"), "{err}");
        let err = parse(b"").unwrap_err();
        assert!(err.message.contains("empty"), "{err}");
        let mut v8 = LIBV8_HEADER.to_vec();
        v8.resize(240, b' ');
        assert!(parse(&v8).unwrap_err().message.contains("version 8"));
    }

    #[test]
    fn windows_1252_fallback() {
        assert_eq!(decode_text(b"caf\xe9"), "café");
        assert_eq!(decode_text(b"\x93q\x94"), "“q”");
        assert_eq!(decode_text("café".as_bytes()), "café");
    }
}

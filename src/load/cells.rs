//! A row's cells typed: text, numbers, ISO 8601 dates (with their plausible range).

use super::*;

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
    pub(super) fn control_character(&self, column: usize, text: &str, c: char) -> Error {
        self.error(
            column,
            format!(
                "`{}` holds {}; expected text without control characters (tab and line \
                 breaks are allowed)",
                crate::error::escape_controls(text, false),
                crate::error::refused_character(c)
            ),
        )
    }

    #[cold]
    pub(super) fn not_utf8(&self, column: usize) -> Error {
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
pub(super) fn small_integer(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    if b.is_empty() || b.len() > 15 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = b.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Some(n as f64)
}

/// A cell without the white space around it. Most cells start and end with a visible ASCII
/// character and are returned as they are, without Unicode trimming (docs/PERFORMANCE.md).
pub(super) fn trim_cell(text: &str) -> &str {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// Whether `b` is the time part of an ISO 8601 datetime after its date: `T` (or a space)
/// and `hh`, `hh:mm` or `hh:mm:ss` (with a fraction), optionally `Z` or an offset `±hh:mm`.
pub(super) fn is_iso_time(b: &[u8]) -> bool {
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

/// `YYYY-MM-DD`, optionally followed by an ISO 8601 time (`is_iso_time`; a datetime whose
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
pub(super) const DATE_CACHE_SLOTS: usize = 4096;

thread_local! {
    /// Valid dates parsed on this thread, as (key + 1, date); key 0 is an empty slot.
    static DATE_CACHE: [std::cell::Cell<(u32, Date)>; DATE_CACHE_SLOTS] =
        const { [const { std::cell::Cell::new((0, Date::MIN)) }; DATE_CACHE_SLOTS] };
}

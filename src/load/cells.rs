//! A row's cells typed: text, numbers, ISO 8601 dates (with their plausible range; the
//! parser is `model::parse_iso_date`).

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
        match crate::model::parse_iso_date(text) {
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

/// The earliest and latest dates a trial's data may hold: anything outside is a typing error
/// or a placeholder (`0000-01-01`, `9999-12-31`) that would make times of centuries.
pub const PLAUSIBLE_DATES: (&str, &str) = ("1900-01-01", "2100-12-31");

/// Whether `date` lies in [`PLAUSIBLE_DATES`].
pub fn is_plausible_date(date: Date) -> bool {
    use chrono::Datelike;
    (1900..=2100).contains(&date.year())
}

//! The usual NDJSON row read without serde: an array of strings without escapes, numbers,
//! `true`, `false` and `null`, each cell placed where it is in the text read; any other row is
//! left to serde_json (`cells::RowSeed`), which reads it or says what is wrong. Rows of a
//! large file are mostly strings and short numbers, and this is four times faster on them.

use super::cells::{iso_date, Iso, Json, Kind, Typer, OWN};
use crate::load::xpt::NumericMeaning;

/// How [`Typer::quick_row`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quick {
    /// The row is typed.
    Row,
    /// A value failed its check (recorded).
    Failed,
    /// Something the scanner leaves to serde_json: an escape, a long number, a syntax error,
    /// the wrong number of values. Nothing of the row was kept.
    Serde,
}

impl Typer<'_, '_> {
    /// Types a row written the usual way, an array of strings without escapes, numbers,
    /// `true`, `false` and `null`, without serde (four times faster on the rows of a large
    /// NDJSON file); anything else is left to serde_json, which reads it or says what is wrong.
    /// The values reach [`Typer::cell`] as serde_json gives them (an integer of up to 18
    /// digits as an integer, `-0` and any other number as a float, parsed exactly).
    pub(super) fn quick_row(&mut self, line: &str) -> Quick {
        let (spans, text) = (self.spans.len(), self.text.len());
        match self.scan(line) {
            Some(true) => {
                self.rows += 1;
                Quick::Row
            }
            Some(false) => Quick::Failed,
            None => {
                self.spans.truncate(spans);
                self.text.truncate(text);
                Quick::Serde
            }
        }
    }

    /// A cell at `start..end` of `base`.
    #[inline]
    fn raw(&mut self, start: usize, end: usize) -> Option<()> {
        // `base` is a part of at most 1 GiB: always below `OWN`.
        if end >= OWN as usize {
            return None;
        }
        self.spans.push([start as u32, end as u32]);
        Some(())
    }

    /// `Some(true)`: typed; `Some(false)`: a value failed; `None`: for serde. The usual
    /// cells (a string of a string or date column, a number that is already its cell) are
    /// placed here; any other value goes through [`Typer::cell`].
    fn scan(&mut self, line: &str) -> Option<bool> {
        // Where the line is in `base` (it is a slice of it; else nothing is placed in `base`).
        let off = (line.as_ptr() as usize).wrapping_sub(self.base.as_ptr() as usize);
        if off.checked_add(line.len())? > self.base.len() {
            return None;
        }
        let b = line.as_bytes();
        let mut i = skip_space(b, 0);
        if b.get(i) != Some(&b'[') {
            return None;
        }
        i = skip_space(b, i + 1);
        let width = self.rules.len();
        let mut column = 0;
        loop {
            let kind = self.rules.get(column)?.kind;
            let start = i;
            match *b.get(i)? {
                b'"' => {
                    let from = i + 1;
                    let len = string_length(b.get(from..)?)?;
                    let to = from + len;
                    if b.get(to) != Some(&b'"') {
                        return None; // an escape or a control character: serde's
                    }
                    i = to + 1;
                    let as_is = match kind {
                        Kind::Text => true,
                        Kind::Iso {
                            what: Iso::Date,
                            complete,
                        } => len == 0 || iso_date(b.get(from..to)?, complete),
                        _ => false,
                    };
                    if as_is {
                        self.raw(off + from, off + to)?;
                    } else if !self.cell(column, Json::Str(line.get(from..to)?)) {
                        return Some(false);
                    }
                }
                b'-' | b'0'..=b'9' => {
                    i = number_end(b, i)?;
                    let literal = line.get(start..i)?;
                    let as_is = match kind {
                        Kind::Integer(NumericMeaning::Number) => integer_literal(literal),
                        Kind::Number(NumericMeaning::Number) => shortest_literal(literal),
                        _ => false,
                    };
                    if as_is {
                        self.raw(off + start, off + i)?;
                    } else if !self.cell(column, parsed(literal)) {
                        return Some(false);
                    }
                }
                b'n' if b.get(i..i + 4) == Some(b"null") => {
                    i += 4;
                    self.empty();
                }
                b't' if b.get(i..i + 4) == Some(b"true") => {
                    i += 4;
                    if !self.cell(column, Json::Bool(true)) {
                        return Some(false);
                    }
                }
                b'f' if b.get(i..i + 5) == Some(b"false") => {
                    i += 5;
                    if !self.cell(column, Json::Bool(false)) {
                        return Some(false);
                    }
                }
                _ => return None,
            }
            column += 1;
            i = skip_space(b, i);
            match b.get(i)? {
                b',' if column < width => i = skip_space(b, i + 1),
                b']' => break,
                _ => return None,
            }
        }
        (column == width && skip_space(b, i + 1) == b.len()).then_some(true)
    }
}

/// The length of a string's text up to the first `"`, `\\` or control character (eight
/// bytes at a time: strings are most of a row's bytes).
#[inline]
fn string_length(b: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let words = b.chunks_exact(8);
    let tail = words.remainder();
    for (w, word) in words.enumerate() {
        let mut le = [0u8; 8];
        le.copy_from_slice(word);
        let x = u64::from_le_bytes(le);
        // The lowest flagged byte is exact (a borrow only runs upwards).
        let hits = zero_byte(x ^ (ONES * u64::from(b'"')))
            | zero_byte(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
        if hits != 0 {
            return Some(w * 8 + hits.trailing_zeros() as usize / 8);
        }
    }
    let base = b.len() - tail.len();
    tail.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| base + p)
}

/// The first position from `i` that is not JSON white space.
#[inline]
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// Where the JSON number at `start` ends: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`;
/// `None` when there is none.
#[inline]
fn number_end(b: &[u8], start: usize) -> Option<usize> {
    let digits_from = |i: usize| {
        i + b
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let int_start = start + usize::from(b.get(start) == Some(&b'-'));
    let mut end = match b.get(int_start)? {
        b'0' => int_start + 1,
        b'1'..=b'9' => digits_from(int_start),
        _ => return None,
    };
    if b.get(end) == Some(&b'.') {
        let after = digits_from(end + 1);
        if after == end + 1 {
            return None;
        }
        end = after;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(b.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let after = digits_from(e);
        if after == e {
            return None;
        }
        end = after;
    }
    Some(end)
}

/// A number literal (checked by [`number_end`]) as serde_json gives it: an integer that fits
/// as an integer, `-0` and any other number as a float (parsed exactly, as the CSV reader
/// parses its text).
fn parsed(literal: &str) -> Json<'static> {
    let negative = literal.starts_with('-');
    let digits = literal.trim_start_matches('-');
    if digits.bytes().all(|c| c.is_ascii_digit()) {
        if let Ok(n) = digits.parse::<u64>() {
            return match (negative, n) {
                (false, n) => Json::Unsigned(n),
                (true, 0) => Json::Float(-0.0),
                (true, n) => i64::try_from(n)
                    .map(|n| Json::Signed(-n))
                    .unwrap_or(Json::Float(-(n as f64))),
            };
        }
    }
    Json::Float(literal.parse().unwrap_or(f64::NAN))
}

/// Whether a number literal is the cell of an integer column as it is: an integer that
/// serde_json reads as one (up to 18 digits), not `-0`.
#[inline]
fn integer_literal(literal: &str) -> bool {
    let digits = literal.trim_start_matches('-');
    (1..=18).contains(&digits.len())
        && digits.bytes().all(|c| c.is_ascii_digit())
        && !(literal.starts_with('-') && digits == "0")
}

/// Whether a number literal is already the shortest decimal of the number it reads as: an
/// integer as above, or a decimal without an exponent or trailing zeros and with at most 15
/// significant digits (every such decimal reads back as itself; a double holds 15.9 digits).
#[inline]
fn shortest_literal(literal: &str) -> bool {
    if integer_literal(literal) {
        return true;
    }
    let b = literal.as_bytes();
    if b.iter().any(|&c| c == b'e' || c == b'E') || b.last() == Some(&b'0') {
        return false;
    }
    let significant = b
        .iter()
        .filter(|c| c.is_ascii_digit())
        .skip_while(|&&c| c == b'0')
        .count();
    // Past 32 characters a decimal could reach the subnormal numbers, with fewer digits.
    b.contains(&b'.') && significant <= 15 && b.len() <= 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_length_stops_at_a_quote_a_backslash_or_a_control() {
        for (text, expected) in [
            (&b"abc\"rest"[..], Some(3)),
            (b"S00000001\",1", Some(9)),
            (b"0123456789abcdef\"", Some(16)),
            (b"01234567\\n\"", Some(8)),
            (b"ab\x01cd\"", Some(2)),
            (b"\xc3\xa9t\xc3\xa9 \xe2\x80\x9d\"", Some(9)),
            (b"no end", None),
            (b"", None),
        ] {
            assert_eq!(
                string_length(text),
                expected,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        // Every position of every special byte, against the plain search.
        for len in 0..24 {
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    let mut text = vec![b'x'; len];
                    text[at] = special;
                    assert_eq!(string_length(&text), Some(at));
                }
            }
        }
    }
}

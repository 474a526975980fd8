//! A row's JSON values checked against their columns' data types and written as the text cells
//! every reader in `load` takes, the cells a CSV conversion of the same data has: strings as
//! they are, numbers as the shortest decimal that reads back the same (as from `.xpt`), SAS
//! dates (a number with a date display format) as `YYYY-MM-DD`, `null` as an empty cell.
//!
//! A string without escapes is not copied: its cell points into the text the row was read
//! from; other cells are written into the part's own text (`Typer::text`).

use std::io::Write as _;

use serde::de::{self, DeserializeSeed, IgnoredAny, SeqAccess, Visitor};

use super::metadata::{Column, DataType, TargetDataType};
use crate::load::xpt::{format_numeric, numeric_meaning, NumericMeaning};

/// The high bit of a span that lies in the part's own text rather than in the text read; the
/// spans are moved to their place when the part's pieces are joined.
pub(super) const OWN: u32 = 1 << 31;

/// What serde is told when a value or row failed a check (the `Typer` keeps the real error).
pub(super) const STOPPED: &str = "readout stopped at a value that failed its check";

/// How the values of a column become cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rule {
    data_type: DataType,
    pub(super) kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    /// `string`, `URI`: a string, as it is.
    Text,
    /// A decimal as a string; thousands separators (`,`) are dropped.
    Decimal,
    /// An ISO 8601 date, datetime or time as a string; `complete` for ADaM's
    /// `targetDataType: integer` (a partial date cannot become a number).
    Iso { what: Iso, complete: bool },
    /// An integer; a SAS date, datetime or time by its display format.
    Integer(NumericMeaning),
    /// `float`, `double`: any number; a SAS date, datetime or time by its display format.
    Number(NumericMeaning),
    /// `true` or `false`, written as such.
    Boolean,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Iso {
    Date,
    Datetime,
    Time,
}

impl Rule {
    /// The rule of a column, from its data types and display format.
    pub(super) fn of(column: &Column) -> Rule {
        let meaning = column
            .display_format
            .as_deref()
            .map_or(NumericMeaning::Number, numeric_meaning);
        let complete = column.target_data_type == Some(TargetDataType::Integer);
        let kind = match column.data_type {
            DataType::String | DataType::Uri => Kind::Text,
            DataType::Decimal => Kind::Decimal,
            DataType::Integer => Kind::Integer(meaning),
            DataType::Float | DataType::Double => Kind::Number(meaning),
            DataType::Boolean => Kind::Boolean,
            DataType::Date => Kind::Iso {
                what: Iso::Date,
                complete,
            },
            DataType::Datetime => Kind::Iso {
                what: Iso::Datetime,
                complete,
            },
            DataType::Time => Kind::Iso {
                what: Iso::Time,
                complete,
            },
        };
        Rule {
            data_type: column.data_type,
            kind,
        }
    }

    /// What a value of this column must be, for messages.
    fn expected(&self) -> String {
        let dt = self.data_type.name();
        let sas = |what: &str| format!("{what} (dataType {dt} with a SAS {what} displayFormat)");
        match self.kind {
            Kind::Text => format!("a string (dataType {dt})"),
            Kind::Decimal => {
                format!("a decimal number as a string, such as \"30.9\" (dataType {dt})")
            }
            Kind::Iso {
                what: Iso::Date,
                complete: true,
            } => format!(
                "an ISO 8601 date as a string, YYYY-MM-DD (dataType {dt}, targetDataType integer)"
            ),
            Kind::Iso {
                what: Iso::Date,
                complete: false,
            } => format!(
                "an ISO 8601 date as a string: YYYY-MM-DD, or YYYY-MM or YYYY when partial \
                 (dataType {dt})"
            ),
            Kind::Iso {
                what: Iso::Datetime,
                complete,
            } => format!(
                "an ISO 8601 datetime as a string, YYYY-MM-DDThh:mm:ss{} (dataType {dt}{})",
                if complete { "" } else { " or partial" },
                if complete {
                    ", targetDataType integer"
                } else {
                    ""
                }
            ),
            Kind::Iso {
                what: Iso::Time,
                complete,
            } => format!(
                "an ISO 8601 time as a string, hh:mm:ss{} (dataType {dt}{})",
                if complete { "" } else { " or partial" },
                if complete {
                    ", targetDataType integer"
                } else {
                    ""
                }
            ),
            Kind::Integer(NumericMeaning::Number) => format!("an integer (dataType {dt})"),
            Kind::Number(NumericMeaning::Number) => format!("a number (dataType {dt})"),
            Kind::Integer(meaning) | Kind::Number(meaning) => match meaning {
                NumericMeaning::Date => sas("date: days since 1960-01-01"),
                NumericMeaning::DateTime => sas("datetime: seconds since 1960-01-01T00:00:00"),
                NumericMeaning::Time | NumericMeaning::Number => {
                    sas("time: seconds since midnight")
                }
            },
            Kind::Boolean => format!("true or false (dataType {dt})"),
        }
    }
}

/// One JSON value of a row.
#[derive(Debug, Clone, Copy)]
pub(super) enum Json<'a> {
    Null,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Str(&'a str),
    Array,
    Object,
}

impl Json<'_> {
    /// The value as JSON text, for messages.
    fn text(&self) -> String {
        match self {
            Json::Null => "null".to_string(),
            Json::Bool(b) => b.to_string(),
            Json::Unsigned(n) => n.to_string(),
            Json::Signed(n) => n.to_string(),
            Json::Float(x) => x.to_string(),
            Json::Str(s) => serde_json::to_string(s).unwrap_or_default(),
            Json::Array => "[…]".to_string(),
            Json::Object => "{…}".to_string(),
        }
    }

    /// What kind of JSON value it is, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Unsigned(_) | Json::Signed(_) => "an integer",
            Json::Float(_) => "a number",
            Json::Str(_) => "a string",
            Json::Array => "an array",
            Json::Object => "an object",
        }
    }
}

/// A value or row that failed its check: the column (`None`: the row as a whole) and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Failure {
    pub(super) column: Option<usize>,
    pub(super) message: String,
}

/// Types the rows of one piece of text into cells.
pub(super) struct Typer<'r, 'b> {
    pub(super) rules: &'r [Rule],
    /// The text the rows are read from (empty when the reader owns no text: `.json`).
    pub(super) base: &'b str,
    /// Cells that are not in `base`.
    pub(super) text: Vec<u8>,
    /// Each cell's start and end: in `base`, or in `text` with [`OWN`] set.
    pub(super) spans: Vec<[u32; 2]>,
    /// Rows typed.
    pub(super) rows: usize,
    /// The first failure; typing stops there.
    pub(super) failure: Option<Failure>,
}

impl<'r, 'b> Typer<'r, 'b> {
    /// A typer of rows read from `base` (`bytes`: about how many bytes of it, for room).
    pub(super) fn new(rules: &'r [Rule], base: &'b str, bytes: usize) -> Self {
        Typer {
            rules,
            base,
            text: Vec::new(),
            // A cell takes at least two bytes of text (a value and a comma).
            spans: Vec::with_capacity(bytes / 2),
            rows: 0,
            failure: None,
        }
    }

    /// The columns of a row.
    pub(super) fn width(&self) -> usize {
        self.rules.len()
    }

    /// Records a failure (the first is kept) and gives serde the error that stops it.
    pub(super) fn fail<E: de::Error>(&mut self, column: Option<usize>, message: String) -> E {
        if self.failure.is_none() {
            self.failure = Some(Failure { column, message });
        }
        E::custom(STOPPED)
    }

    /// A cell written into the own text by `write`.
    fn own(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.text.len();
        write(&mut self.text);
        // The own text of one piece stays far below 2 GiB: a piece is at most a part of the
        // file (16 MiB, or 1 GiB read whole) and a cell at most ten times its JSON text.
        let (start, end) = (start as u32, self.text.len() as u32);
        self.spans.push([start | OWN, end | OWN]);
    }

    /// A string cell: where it is in `base` when it is there (a string without escapes read
    /// from a slice), else copied.
    fn string(&mut self, s: &str) {
        let offset = (s.as_ptr() as usize).wrapping_sub(self.base.as_ptr() as usize);
        match offset.checked_add(s.len()) {
            Some(end)
                if offset <= self.base.len() && end <= self.base.len() && end < OWN as usize =>
            {
                self.spans.push([offset as u32, end as u32]);
            }
            _ => self.own(|text| text.extend_from_slice(s.as_bytes())),
        }
    }

    #[inline]
    pub(super) fn empty(&mut self) {
        self.spans.push([0, 0]);
    }

    /// Types value `value` of column `column`; `false` when it failed (recorded).
    pub(super) fn cell(&mut self, column: usize, value: Json<'_>) -> bool {
        let Some(&rule) = self.rules.get(column) else {
            return true; // beyond the columns: counted by the row
        };
        // `Err(None)`: the wrong JSON type; `Err(Some(why))`: the right type, a wrong value.
        let outcome: Result<(), Option<String>> = match (rule.kind, value) {
            (_, Json::Null) => {
                self.empty();
                Ok(())
            }
            (Kind::Text, Json::Str(s)) => {
                self.string(s);
                Ok(())
            }
            (Kind::Decimal, Json::Str(s)) => match decimal(s) {
                Decimal::Plain => {
                    self.string(s);
                    Ok(())
                }
                Decimal::Grouped => {
                    self.own(|t| t.extend(s.bytes().filter(|&b| b != b',')));
                    Ok(())
                }
                Decimal::Empty => {
                    self.empty();
                    Ok(())
                }
                Decimal::Not => Err(Some("is not a decimal number".to_string())),
            },
            (Kind::Iso { what, complete }, Json::Str(s)) => {
                let ok = s.is_empty()
                    || match what {
                        Iso::Date => iso_date(s.as_bytes(), complete),
                        Iso::Datetime => iso_datetime(s.as_bytes(), complete),
                        Iso::Time => iso_time(s.as_bytes(), complete),
                    };
                if ok {
                    self.string(s);
                    Ok(())
                } else {
                    Err(Some(
                        match what {
                            Iso::Date => "is not a date",
                            Iso::Datetime => "is not a datetime",
                            Iso::Time => "is not a time",
                        }
                        .to_string(),
                    ))
                }
            }
            (Kind::Integer(meaning) | Kind::Number(meaning), Json::Unsigned(n)) => {
                self.number(n as f64, meaning, |t| push_integer(t, false, n))
            }
            (Kind::Integer(meaning) | Kind::Number(meaning), Json::Signed(n)) => {
                self.number(n as f64, meaning, |t| {
                    push_integer(t, n < 0, n.unsigned_abs())
                })
            }
            (Kind::Integer(_), Json::Float(x)) if x.fract() != 0.0 => {
                Err(Some("is not a whole number".to_string()))
            }
            (Kind::Integer(meaning) | Kind::Number(meaning), Json::Float(x)) => {
                self.number(x, meaning, |t| shortest(t, x))
            }
            (Kind::Boolean, Json::Bool(b)) => {
                self.own(|t| t.extend_from_slice(if b { b"true" } else { b"false" }));
                Ok(())
            }
            _ => Err(None),
        };
        let Err(why) = outcome else {
            return true;
        };
        let message = match why {
            Some(why) => format!("{} {why}; expected {}", shown(&value), rule.expected()),
            None => format!(
                "{} is {}; expected {}",
                shown(&value),
                value.kind(),
                rule.expected()
            ),
        };
        if self.failure.is_none() {
            self.failure = Some(Failure {
                column: Some(column),
                message,
            });
        }
        false
    }

    /// A number: as written by `plain`, or as a SAS date, datetime or time by `meaning`.
    fn number(
        &mut self,
        x: f64,
        meaning: NumericMeaning,
        plain: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), Option<String>> {
        if meaning == NumericMeaning::Number {
            self.own(plain);
            return Ok(());
        }
        let text = format_numeric(x, meaning).map_err(|why| Some(format!("is wrong: {why}")))?;
        self.own(|t| t.extend_from_slice(text.as_bytes()));
        Ok(())
    }
}

/// An integer's decimal digits (as `Display` writes them, without its machinery: a cell of
/// most rows is one).
fn push_integer(text: &mut Vec<u8>, negative: bool, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    if negative {
        text.push(b'-');
    }
    text.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// The shortest decimal that reads back to `x` (Rust's `Display`, never an exponent), `-0` as
/// `0`: the cells of numbers from `.xpt` files.
fn shortest(text: &mut Vec<u8>, x: f64) {
    if x == 0.0 {
        text.push(b'0');
    } else {
        let _ = write!(text, "{x}");
    }
}

/// A value quoted in a message.
fn shown(value: &Json<'_>) -> String {
    super::metadata::shown(&value.text())
}

enum Decimal {
    /// Digits with at most one `.`: the cell as it is.
    Plain,
    /// With thousands separators: the cell without them.
    Grouped,
    /// `""`: missing.
    Empty,
    Not,
}

/// A decimal as the specification writes it: an optional sign, digits (in groups of three
/// separated by `,` when grouped), and a fraction after `.`.
fn decimal(s: &str) -> Decimal {
    let b = s.as_bytes();
    if b.is_empty() {
        return Decimal::Empty;
    }
    let unsigned = match b.first() {
        Some(b'+' | b'-') => b.get(1..).unwrap_or_default(),
        _ => b,
    };
    let (whole, fraction) = match unsigned.iter().position(|&c| c == b'.') {
        Some(dot) => (
            unsigned.get(..dot).unwrap_or_default(),
            Some(unsigned.get(dot + 1..).unwrap_or_default()),
        ),
        None => (unsigned, None),
    };
    let digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
    if let Some(fraction) = fraction {
        if !digits(fraction) || (whole.is_empty() && fraction.is_empty()) {
            return Decimal::Not;
        }
    } else if whole.is_empty() {
        return Decimal::Not;
    }
    if digits(whole) {
        return Decimal::Plain;
    }
    // Grouped: 1 to 3 digits, then groups of `,ddd`.
    let mut groups = whole.split(|&c| c == b',');
    let first_ok = groups
        .next()
        .is_some_and(|g| (1..=3).contains(&g.len()) && digits(g));
    if first_ok && groups.all(|g| g.len() == 3 && digits(g)) {
        Decimal::Grouped
    } else {
        Decimal::Not
    }
}

/// Two digits at `at` forming a number at most `max`.
fn two(b: &[u8], at: usize, min: u8, max: u8) -> Option<u8> {
    match b.get(at..at + 2) {
        Some(&[h, l]) if h.is_ascii_digit() && l.is_ascii_digit() => {
            let n = (h - b'0') * 10 + (l - b'0');
            (min..=max).contains(&n).then_some(n)
        }
        _ => None,
    }
}

/// The length of the date at the start of `b`: `YYYY-MM-DD` (a real day), or, unless
/// `complete`, `YYYY-MM` or `YYYY`. `None` when there is none.
#[inline]
fn date_prefix(b: &[u8], complete: bool) -> Option<usize> {
    if let Some(&[y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1]) = b.get(..10) {
        return full_date([y0, y1, y2, y3], [m0, m1], [d0, d1]).then_some(10);
    }
    if complete || !b.get(..4)?.iter().all(u8::is_ascii_digit) {
        return None;
    }
    match b.get(4) {
        Some(b'-') => two(b, 5, 1, 12).map(|_| 7),
        _ => Some(4),
    }
}

/// Whether the digits make a real day of the Gregorian calendar.
#[inline]
fn full_date(year: [u8; 4], month: [u8; 2], day: [u8; 2]) -> bool {
    let digit = |c: u8| u32::from(c.wrapping_sub(b'0'));
    if year.iter().chain(&month).chain(&day).any(|&c| digit(c) > 9) {
        return false;
    }
    let m = digit(month[0]) * 10 + digit(month[1]);
    let d = digit(day[0]) * 10 + digit(day[1]);
    let last = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 => {
            let y = year.iter().fold(0, |y, &c| y * 10 + digit(c));
            if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) {
                29
            } else {
                28
            }
        }
        _ => return false,
    };
    (1..=last).contains(&d)
}

/// `YYYY-MM-DD` (or partial, unless `complete`) and nothing after it.
#[inline]
pub(super) fn iso_date(b: &[u8], complete: bool) -> bool {
    date_prefix(b, complete) == Some(b.len())
}

/// A time: `hh`, `hh:mm`, `hh:mm:ss` with an optional fraction (at least `hh:mm` when
/// `complete`), then optionally `Z` or an offset `±hh:mm`.
fn iso_time(b: &[u8], complete: bool) -> bool {
    if two(b, 0, 0, 23).is_none() {
        return false;
    }
    let mut i = 2;
    let mut parts = 1;
    for max in [59, 60] {
        if b.get(i) == Some(&b':') && two(b, i + 1, 0, max).is_some() {
            i += 3;
            parts += 1;
        } else {
            break;
        }
    }
    if parts == 3 && matches!(b.get(i), Some(b'.' | b',')) {
        let digits = b
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return false;
        }
        i += 1 + digits;
    }
    if complete && parts < 2 {
        return false;
    }
    match b.get(i..).unwrap_or_default() {
        [] | [b'Z'] => true,
        [b'+' | b'-', rest @ ..] => {
            rest.len() == 5
                && two(rest, 0, 0, 23).is_some()
                && rest.get(2) == Some(&b':')
                && two(rest, 3, 0, 59).is_some()
        }
        _ => false,
    }
}

/// A date, then optionally `T` and a time (both complete when `complete`).
fn iso_datetime(b: &[u8], complete: bool) -> bool {
    let Some(date) = date_prefix(b, complete) else {
        return false;
    };
    match b.get(date..).unwrap_or_default() {
        [] => !complete,
        [b'T', time @ ..] => date == 10 && iso_time(time, complete),
        _ => false,
    }
}

/// Reads one row (a JSON array) into a [`Typer`].
pub(super) struct RowSeed<'t, 'r, 'b> {
    pub(super) typer: &'t mut Typer<'r, 'b>,
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl RowSeed<'_, '_, '_> {
    fn not_a_row<E: de::Error>(self, what: &str) -> E {
        let width = self.typer.width();
        self.typer.fail(
            None,
            format!("the row is {what}; expected an array of {width} values, one per column"),
        )
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a row: an array of values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let width = self.typer.width();
        let mut n = 0usize;
        loop {
            let more = if n < width {
                seq.next_element_seed(CellSeed {
                    typer: &mut *self.typer,
                    column: n,
                })?
                .is_some()
            } else {
                seq.next_element::<IgnoredAny>()?.is_some()
            };
            if !more {
                break;
            }
            n += 1;
        }
        if n != width {
            let plural = if n == 1 { "" } else { "s" };
            return Err(self.typer.fail(
                None,
                format!("the row has {n} value{plural}; expected {width}, one per column"),
            ));
        }
        self.typer.rows += 1;
        Ok(())
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.not_a_row("an object"))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(self.not_a_row("a string"))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.not_a_row("a boolean"))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(self.not_a_row("a number"))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(self.not_a_row("a number"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(self.not_a_row("a number"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.not_a_row("null"))
    }
}

/// Reads one value of a row.
struct CellSeed<'t, 'r, 'b> {
    typer: &'t mut Typer<'r, 'b>,
    column: usize,
}

impl CellSeed<'_, '_, '_> {
    fn put<E: de::Error>(self, value: Json<'_>) -> Result<(), E> {
        if self.typer.cell(self.column, value) {
            Ok(())
        } else {
            Err(E::custom(STOPPED))
        }
    }
}

impl<'de> DeserializeSeed<'de> for CellSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CellSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a value: a string, a number, true, false or null")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        self.put(Json::Str(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.put(Json::Str(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.put(Json::Unsigned(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.put(Json::Signed(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.put(Json::Float(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.put(Json::Bool(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.put(Json::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.put(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        self.put(Json::Array)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        self.put(Json::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_as_the_specification_writes_them() {
        for s in [
            "30.8983333232059",
            "162.9",
            "-1",
            "+0.5",
            "12.",
            ".5",
            "1234",
        ] {
            assert!(matches!(decimal(s), Decimal::Plain), "{s}");
        }
        for s in ["1,234.5", "12,345,678", "-1,000"] {
            assert!(matches!(decimal(s), Decimal::Grouped), "{s}");
        }
        for s in [
            "1,23", "1e3", "abc", ".", "-", "1.2.3", "1,2345", "NaN", " 1",
        ] {
            assert!(matches!(decimal(s), Decimal::Not), "{s}");
        }
        assert!(matches!(decimal(""), Decimal::Empty));
    }

    #[test]
    fn iso_dates_datetimes_and_times() {
        for (s, complete) in [
            ("2014-01-02", true),
            ("2014-01", false),
            ("2014", false),
            ("2024-02-29", true),
        ] {
            assert!(iso_date(s.as_bytes(), complete), "{s}");
        }
        for (s, complete) in [
            ("2014-01", true),
            ("2023-02-29", true),
            ("2014-13-01", false),
            ("2014-01-02T10:00", false),
            ("14-01-02", false),
            ("2014/01/02", false),
        ] {
            assert!(!iso_date(s.as_bytes(), complete), "{s}");
        }
        for s in [
            "2014-01-02T10:00:00",
            "2014-01-02T10:00",
            "2014-01-02T10:00:00.250+02:00",
            "2014-01-02T10:00:00Z",
        ] {
            assert!(iso_datetime(s.as_bytes(), true), "{s}");
        }
        assert!(iso_datetime(b"2014-01-02", false));
        assert!(!iso_datetime(b"2014-01-02", true));
        assert!(!iso_datetime(b"2014-01-02T25:00", false));
        assert!(iso_time(b"10:30:00", true));
        assert!(iso_time(b"10", false));
        assert!(!iso_time(b"10", true));
        assert!(!iso_time(b"10:61", false));
    }

    fn typer_cells(rules: &[Rule], values: &[Json<'_>]) -> Result<Vec<String>, Failure> {
        let mut typer = Typer::new(rules, "", 0);
        for (i, v) in values.iter().enumerate() {
            if !typer.cell(i, *v) {
                return Err(typer.failure.unwrap());
            }
        }
        Ok(typer
            .spans
            .iter()
            .map(|&[s, e]| {
                let (s, e) = ((s & !OWN) as usize, (e & !OWN) as usize);
                String::from_utf8(typer.text[s..e].to_vec()).unwrap()
            })
            .collect())
    }

    fn rule(data_type: DataType, target: Option<TargetDataType>, format: Option<&str>) -> Rule {
        Rule::of(&Column {
            item_oid: String::new(),
            name: "X".into(),
            label: String::new(),
            data_type,
            target_data_type: target,
            length: None,
            display_format: format.map(String::from),
            key_sequence: None,
        })
    }

    #[test]
    fn values_become_the_cells_of_a_csv_conversion() {
        let rules = [
            rule(DataType::Integer, None, None),
            rule(DataType::Double, None, None),
            rule(DataType::Integer, None, Some("DATE9.")),
            rule(
                DataType::Date,
                Some(TargetDataType::Integer),
                Some("E8601DA."),
            ),
            rule(DataType::Decimal, Some(TargetDataType::Decimal), None),
            rule(DataType::Boolean, None, None),
            rule(DataType::String, None, None),
            rule(DataType::Float, None, None),
        ];
        let cells = typer_cells(
            &rules,
            &[
                Json::Signed(-3),
                Json::Float(25.1),
                Json::Unsigned(19_724),
                Json::Str("2014-01-02"),
                Json::Str("1,234.50"),
                Json::Bool(true),
                Json::Null,
                Json::Float(-0.0),
            ],
        )
        .unwrap();
        assert_eq!(
            cells,
            [
                "-3",
                "25.1",
                "2014-01-01",
                "2014-01-02",
                "1234.50",
                "true",
                "",
                "0"
            ]
        );
        // A whole float in an integer column is its integer.
        assert_eq!(
            typer_cells(&rules[..1], &[Json::Float(182.0)]).unwrap(),
            ["182"]
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_names_the_value_and_the_type() {
        let integer = [rule(DataType::Integer, None, None)];
        let f = typer_cells(&integer, &[Json::Str("12")]).unwrap_err();
        assert_eq!(f.column, Some(0));
        assert!(f.message.contains("`\"12\"` is a string"), "{}", f.message);
        assert!(f.message.contains("dataType integer"), "{}", f.message);
        let f = typer_cells(&integer, &[Json::Float(2.5)]).unwrap_err();
        assert!(
            f.message.contains("`2.5` is not a whole number"),
            "{}",
            f.message
        );
        let date = [rule(DataType::Date, Some(TargetDataType::Integer), None)];
        let f = typer_cells(&date, &[Json::Str("2021-02-30")]).unwrap_err();
        assert!(f.message.contains("is not a date"), "{}", f.message);
        let f = typer_cells(&date, &[Json::Unsigned(3)]).unwrap_err();
        assert!(f.message.contains("is an integer"), "{}", f.message);
    }
}

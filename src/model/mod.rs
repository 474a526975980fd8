//! Typed domain records shared by every stage: what the loaders produce and the derivations
//! consume. No I/O and no configuration here, only the vocabulary of the trial data.

use std::sync::Arc;

mod category;
mod date;
pub mod endpoint;
pub mod text;

pub use category::ResponseCategory;
pub use date::parse_iso_date;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Longest time to event accepted (1,000 years, in days): a longer AVAL is a wrong unit or a
/// broken export, and would overflow the Kaplan–Meier and figure arithmetic downstream.
pub const MAX_TIME_DAYS: f64 = 365_250.0;

/// A calendar date (ADaM `*DT` variables).
pub type Date = chrono::NaiveDate;

/// A date written `YYYY-MM-DD` (a cut-off on the command line or in a config), or why the
/// text is not one: a day the month does not have and a month past 12 are named.
pub fn parse_date(text: &str) -> Result<Date, String> {
    use chrono::Datelike;
    let shown = text::escape_controls(text, false);
    let b = text.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shaped {
        return Err(format!("`{shown}` is not a date; expected YYYY-MM-DD"));
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (number(0..4) as i32, number(5..7), number(8..10));
    if let Some(date) = Date::from_ymd_opt(year, month, day) {
        return Ok(date);
    }
    if !(1..=12).contains(&month) {
        return Err(format!(
            "`{shown}` is not a date: there is no month {month}; expected YYYY-MM-DD"
        ));
    }
    let days = Date::from_ymd_opt(year, month, 1)
        .and_then(|first| first.checked_add_months(chrono::Months::new(1)))
        .and_then(|next| next.pred_opt())
        .map_or(31, |last| last.day());
    let month_name = Date::from_ymd_opt(year, month, 1)
        .map(|d| d.format("%B %Y").to_string())
        .unwrap_or_default();
    Err(format!(
        "`{shown}` is not a date: {month_name} has {days} days; expected YYYY-MM-DD"
    ))
}

/// serde for config dates through [`parse_date`] (chrono's own said only "input is out of
/// range", without the value). The text is checked while the deserializer reads it, so that
/// an error carries the line and column of the value.
pub mod date_serde {
    use serde::de::{Deserializer, Error, SeqAccess, Visitor};

    use super::{parse_date, Date};

    struct DateVisitor;

    impl<'de> Visitor<'de> for DateVisitor {
        type Value = Date;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a date YYYY-MM-DD")
        }

        fn visit_str<E: Error>(self, text: &str) -> Result<Date, E> {
            parse_date(text).map_err(E::custom)
        }
    }

    struct OptionalVisitor;

    impl<'de> Visitor<'de> for OptionalVisitor {
        type Value = Option<Date>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a date YYYY-MM-DD")
        }

        fn visit_none<E: Error>(self) -> Result<Option<Date>, E> {
            Ok(None)
        }

        fn visit_unit<E: Error>(self) -> Result<Option<Date>, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Date>, D::Error> {
            d.deserialize_str(DateVisitor).map(Some)
        }
    }

    struct ListVisitor;

    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<Date>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of dates YYYY-MM-DD")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Date>, A::Error> {
            let mut dates = Vec::new();
            while let Some(date) = seq.next_element_seed(Seed)? {
                dates.push(date);
            }
            Ok(dates)
        }
    }

    struct Seed;

    impl<'de> serde::de::DeserializeSeed<'de> for Seed {
        type Value = Date;

        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Date, D::Error> {
            d.deserialize_str(DateVisitor)
        }
    }

    /// An optional date (`null` or absent is none).
    pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Date>, D::Error> {
        d.deserialize_option(OptionalVisitor)
    }

    /// A list of dates.
    pub fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Date>, D::Error> {
        d.deserialize_seq(ListVisitor)
    }
}

/// A `USUBJID`: held inline up to 24 bytes (ids are usually shorter), so that a study of
/// millions of subjects makes no allocation per id and copies of it (derived records) are
/// cheap.
pub type SubjectId = compact_str::CompactString;

/// One per-visit overall response (ADRS `PARAMCD = OVR`, `AVALC`), RECIST 1.1 vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Response {
    /// `CR`
    CompleteResponse,
    /// `PR`
    PartialResponse,
    /// `SD`
    StableDisease,
    /// `NON-CR/NON-PD`: subjects with non-measurable disease only.
    NonCrNonPd,
    /// `PD`
    ProgressiveDisease,
    /// `NE`
    NotEvaluable,
    /// `ND` (assessment not done) or an empty `AVALC`.
    NotDone,
}

impl Response {
    /// Parses an ADaM `AVALC` value (case-insensitive, surrounding blanks ignored).
    /// An empty value is a missing assessment and reads as [`Response::NotDone`].
    /// Returns `None` for anything outside the RECIST vocabulary.
    pub fn from_avalc(value: &str) -> Option<Response> {
        let v = value.trim();
        let r = match v.to_ascii_uppercase().as_str() {
            "CR" => Response::CompleteResponse,
            "PR" => Response::PartialResponse,
            "SD" => Response::StableDisease,
            "NON-CR/NON-PD" | "NON CR/NON PD" | "NONCR/NONPD" => Response::NonCrNonPd,
            "PD" => Response::ProgressiveDisease,
            "NE" => Response::NotEvaluable,
            "ND" | "" => Response::NotDone,
            _ => return None,
        };
        Some(r)
    }

    /// How many values RECIST 1.1 has (the first codes of every vocabulary).
    pub const COUNT: usize = 7;

    /// Its code in every study's vocabulary (RECIST 1.1's values come first, in this order).
    pub fn vocabulary_code(self) -> crate::criteria::Code {
        crate::criteria::Code(self as u8)
    }

    /// The ADaM `AVALC` spelling.
    pub fn code(self) -> &'static str {
        match self {
            Response::CompleteResponse => "CR",
            Response::PartialResponse => "PR",
            Response::StableDisease => "SD",
            Response::NonCrNonPd => "NON-CR/NON-PD",
            Response::ProgressiveDisease => "PD",
            Response::NotEvaluable => "NE",
            Response::NotDone => "ND",
        }
    }
}

/// One subject (one ADSL row).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Subject {
    /// `USUBJID`
    pub usubjid: SubjectId,
    /// `SITEID`, as an entry shared by the site's subjects ([`Subject::site`]).
    #[serde(serialize_with = "serialize_site")]
    pub site: Option<Arc<ColumnValue>>,
    /// `TRTSDT`: start of treatment, the origin of every time-to-event endpoint.
    pub trt_start: Option<Date>,
    /// `TRTEDT`
    pub trt_end: Option<Date>,
    /// `ENRLDT`, else `RANDDT`: used for enrolment windows and the cut-off.
    pub enrolled: Option<Date>,
    /// `DTHDT`
    pub death: Option<Date>,
    /// `LSTALVDT`: last date known alive.
    pub last_alive: Option<Date>,
    /// `SAFFL = Y` (true when the column is absent).
    pub safety: bool,
    /// `EFFFL`/`FASFL`/`ITTFL = Y` (true when none of them is present).
    pub efficacy: bool,
    /// Treatment ended after the data cut-off (the cut cleared `trt_end`): on treatment at it,
    /// whatever the end-of-treatment status says.
    pub treated_past_cutoff: bool,
    /// ADSL columns as text (empty cells omitted), for filters and baseline summaries.
    pub columns: Columns,
}

/// `SITEID` as its text.
fn serialize_site<S: Serializer>(
    site: &Option<Arc<ColumnValue>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    site.as_deref()
        .map(ColumnValue::value)
        .serialize(serializer)
}

impl Subject {
    /// `SITEID`, if given.
    pub fn site(&self) -> Option<&str> {
        self.site.as_deref().map(ColumnValue::value)
    }

    /// The entry of a `SITEID`, to be shared by the site's subjects.
    pub fn site_entry(siteid: &str) -> Arc<ColumnValue> {
        ColumnValue::new(Arc::from("SITEID"), siteid)
    }

    /// A subject with no data, standing in for a row that failed to convert (never reaches
    /// an analysis: the load stops with that row's error).
    pub fn placeholder() -> Subject {
        Subject {
            usubjid: SubjectId::default(),
            site: None,
            trt_start: None,
            trt_end: None,
            enrolled: None,
            death: None,
            last_alive: None,
            safety: false,
            efficacy: false,
            treated_past_cutoff: false,
            columns: Columns::default(),
        }
    }
}

/// A subject's ADSL columns by name: a short list, because a study uses a handful of columns
/// for filters and baseline summaries and there may be millions of subjects. Each entry (a
/// column's name and value) is shared by the subjects with that value, and so is the list
/// itself (the subjects read by one parallel job with the same values share one): a subject
/// holds one pointer, 8 bytes.
#[derive(Debug, Clone, Default)]
pub struct Columns(Option<Arc<Vec<Arc<ColumnValue>>>>);

/// One column value of [`Columns`]: the column's name and its (non-empty) value.
#[derive(Debug, PartialEq, Eq)]
pub struct ColumnValue {
    name: Arc<str>,
    value: Box<str>,
}

impl ColumnValue {
    /// An entry of `name` set to `value`, to be shared by every subject with that value.
    pub fn new(name: Arc<str>, value: &str) -> Arc<ColumnValue> {
        Arc::new(ColumnValue {
            name,
            value: value.into(),
        })
    }

    /// The column's value.
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl PartialEq for Columns {
    fn eq(&self, other: &Columns) -> bool {
        self.entries() == other.entries()
    }
}

impl Columns {
    /// Columns holding `entries` (one per column, in order), to be shared by every subject
    /// with these values.
    pub fn from_entries(entries: Vec<Arc<ColumnValue>>) -> Columns {
        Columns((!entries.is_empty()).then(|| Arc::new(entries)))
    }

    /// An identity of the list: subjects whose columns have the same identity (other than 0,
    /// no columns) share one list, so have the same values (a look-up per distinct list
    /// instead of per subject).
    pub fn list_id(&self) -> usize {
        self.0.as_ref().map_or(0, |list| Arc::as_ptr(list) as usize)
    }

    /// The entries in the order they were set.
    fn entries(&self) -> &[Arc<ColumnValue>] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The value of a column, if present and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries()
            .iter()
            .find(|e| &*e.name == name)
            .map(|e| &*e.value)
    }

    /// Whether the column has a value.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Sets a column's value.
    pub fn insert(&mut self, name: Arc<str>, value: &str) {
        self.insert_shared(ColumnValue::new(name, value));
    }

    /// Removes a column's value (the list is copied first if other subjects share it).
    pub fn remove(&mut self, name: &str) {
        if let Some(list) = self.0.as_mut() {
            if list.iter().any(|e| &*e.name == name) {
                Arc::make_mut(list).retain(|e| &*e.name != name);
            }
        }
        if self.0.as_ref().is_some_and(|l| l.is_empty()) {
            self.0 = None;
        }
    }

    /// Sets a column's value to a shared entry (replacing the column's value if it has one);
    /// the list is copied first if other subjects share it.
    pub fn insert_shared(&mut self, entry: Arc<ColumnValue>) {
        let entries = Arc::make_mut(self.0.get_or_insert_with(Default::default));
        match entries.iter_mut().find(|e| e.name == entry.name) {
            Some(old) => *old = entry,
            None => entries.push(entry),
        }
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for Columns {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut columns = Columns::default();
        for (k, v) in iter {
            columns.insert(Arc::from(k.as_ref()), v.as_ref());
        }
        columns
    }
}

impl Serialize for Columns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entries = self.entries();
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for entry in entries {
            map.serialize_entry(&*entry.name, &*entry.value)?;
        }
        map.end()
    }
}

/// One per-visit overall response (ADRS, `PARAMCD = OVR`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assessment {
    /// `USUBJID`
    pub usubjid: String,
    /// `ADT`
    pub date: Date,
    /// `AVALC` read as RECIST 1.1; a value of other criteria (`code` beyond RECIST's) reads
    /// as `NotEvaluable` here, and only those criteria's engines, which read `code`, see it.
    pub response: Response,
    /// `AVALC` as an index into the study's vocabulary (`criteria::Vocabulary`).
    pub code: crate::criteria::Code,
    /// `AVISIT`, when present.
    pub visit: Option<String>,
}

impl Assessment {
    /// An assessment of a RECIST 1.1 value.
    pub fn recist(usubjid: impl Into<String>, date: Date, response: Response) -> Assessment {
        Assessment {
            usubjid: usubjid.into(),
            date,
            response,
            code: response.vocabulary_code(),
            visit: None,
        }
    }
}

/// Whether a time-to-event observation ended in the event or was censored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    /// The event happened at the time (`CNSR = 0`).
    Event,
    /// Observation stopped at the time without the event (`CNSR > 0`).
    Censored,
}

/// One ADTTE row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TteRecord {
    /// Position of the subject in the study's subject list (ADSL order). Positions and lines
    /// are `u32` (a data file is at most 1 GiB), the parameter is a number: a record is 32
    /// bytes (10^7 records are 320 MB).
    pub subject: u32,
    /// `PARAMCD`, by its number in [`TteTable::params`].
    pub param: u32,
    /// `AVAL`, in days.
    pub days: f64,
    /// `CNSR` as given (ADaM censoring reason code; 0 for an event, so the status is
    /// [`TteRecord::status`]).
    pub cnsr: u32,
    /// `STARTDT`
    pub start: Option<Date>,
    /// `ADT`
    pub date: Option<Date>,
    /// Line in the ADTTE file (observation number for SAS files), for error messages.
    pub line: u32,
}

impl TteRecord {
    /// The subject's position in the study's subject list.
    pub fn position(&self) -> usize {
        self.subject as usize
    }

    /// `cnsr` of an event the endpoint's `tte_params` entry marks as competing (docs/CONFIG.md,
    /// `competing`): CNSR 0 in the file, a value readout reads as censored for the
    /// Kaplan–Meier fit (cause-specific) and as a competing event for the cumulative incidence.
    pub const COMPETING: u32 = 1 << 31;

    /// Whether the record is a competing event.
    pub fn is_competing(&self) -> bool {
        self.cnsr == TteRecord::COMPETING
    }

    /// Event (`CNSR = 0`) or censored (any other code).
    pub fn status(&self) -> Status {
        if self.cnsr == 0 {
            Status::Event
        } else {
            Status::Censored
        }
    }

    /// A record with no data, standing in for a row that failed to convert (never reaches
    /// an analysis: the load stops with that row's error).
    pub fn placeholder() -> TteRecord {
        TteRecord {
            subject: 0,
            param: 0,
            days: 0.0,
            cnsr: 1,
            start: None,
            date: None,
            line: 0,
        }
    }
}

/// The ADTTE rows, with the parameter codes they name by number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TteTable {
    /// `PARAMCD`s; a record's `param` is a position here.
    pub params: Vec<Arc<str>>,
    /// The records, in file order.
    pub records: Vec<TteRecord>,
}

impl TteTable {
    /// The record's `PARAMCD`.
    pub fn paramcd(&self, record: &TteRecord) -> &str {
        self.params.get(record.param as usize).map_or("", |p| &**p)
    }

    /// The number of a `PARAMCD`, if the table names it.
    pub fn param(&self, paramcd: &str) -> Option<u32> {
        let i = self.params.iter().position(|p| **p == *paramcd)?;
        u32::try_from(i).ok()
    }
}

/// One adverse event (ADAE row).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdverseEvent {
    /// `USUBJID`
    pub usubjid: String,
    /// `AEDECOD`: preferred term.
    pub term: String,
    /// `AEBODSYS`: system organ class.
    pub soc: Option<String>,
    /// CTCAE grade 1–5 (`ATOXGR`/`AETOXGR`), or mapped from severity.
    pub grade: Option<u8>,
    /// The grade was mapped from severity (`AESEV`: MILD 1, MODERATE 2, SEVERE 3), not a
    /// CTCAE grade: documents then speak of "severe" events, not "grade ≥3".
    pub by_severity: bool,
    /// Related to study treatment (per `analysis.related_values`).
    pub related: bool,
    /// `ASTDT`
    pub start: Option<Date>,
    /// `TRTEMFL = Y` (true when the column is absent).
    pub emergent: bool,
    /// `AESER = Y`
    pub serious: bool,
    /// Grade 5, `AEOUT = FATAL` or `AESDTH = Y`.
    pub fatal: bool,
    /// `AEACN`: what was done with the study treatment.
    pub action: AeAction,
}

/// `AEACN` (CDISC codelist ACN) as the safety summaries count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum AeAction {
    /// DRUG WITHDRAWN.
    Withdrawn,
    /// DOSE REDUCED, DOSE RATE REDUCED.
    Reduced,
    /// DRUG INTERRUPTED.
    Interrupted,
    /// Any other value, or none.
    #[default]
    Other,
}

impl AeAction {
    /// Reads an `AEACN` value (case-insensitive).
    pub fn from_aeacn(value: &str) -> AeAction {
        match value.trim().to_ascii_uppercase().as_str() {
            "DRUG WITHDRAWN" => AeAction::Withdrawn,
            "DOSE REDUCED" | "DOSE RATE REDUCED" => AeAction::Reduced,
            "DRUG INTERRUPTED" => AeAction::Interrupted,
            _ => AeAction::Other,
        }
    }
}

/// One sum-of-target-lesion-diameters measurement (ADTR).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LesionSum {
    /// `USUBJID`
    pub usubjid: String,
    /// `ADT`
    pub date: Date,
    /// `AVAL`: sum of diameters, mm.
    pub sum: f64,
    /// `BASE`
    pub base: Option<f64>,
    /// `PCHG`
    pub pchg: Option<f64>,
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_keep_order_replace_values_and_compare_by_entries() {
        let mut columns = Columns::default();
        assert_eq!(columns.get("COHORT"), None);
        columns.insert("COHORT".into(), "A");
        columns.insert("COHORT".into(), "B"); // replaced, still one entry
        assert_eq!(columns.get("COHORT"), Some("B"));
        columns.insert("SEX".into(), "F"); // a second column moves to the list
        columns.insert("AGEGR1".into(), ">=65");
        columns.insert("SEX".into(), "M");
        assert_eq!(columns.get("SEX"), Some("M"));
        assert!(columns.contains_key("AGEGR1") && !columns.contains_key("RACE"));
        assert_eq!(
            serde_json::to_string(&columns).unwrap(),
            r#"{"COHORT":"B","SEX":"M","AGEGR1":">=65"}"#
        );
        // Columns built from shared entries equal columns built one by one; a subject's change
        // to a shared list is its own.
        let cohort_b = ColumnValue::new("COHORT".into(), "B");
        let shared = Columns::from_entries(vec![cohort_b.clone()]);
        let mut other = shared.clone();
        let inline: Columns = [("COHORT", "B")].into_iter().collect();
        assert_eq!(shared, inline);
        other.insert("COHORT".into(), "C");
        assert_eq!(
            (shared.get("COHORT"), other.get("COHORT")),
            (Some("B"), Some("C"))
        );
        assert_ne!(inline, Columns::default());
        assert_eq!(Columns::from_entries(Vec::new()), Columns::default());
    }

    #[test]
    fn a_subject_fits_in_64_bytes_with_its_id_inline_and_a_record_in_32() {
        // 10^7 subjects are held at once: each byte here is 10 MB of fresh memory.
        assert_eq!(std::mem::size_of::<Columns>(), 8);
        assert_eq!(std::mem::size_of::<Subject>(), 64);
        assert_eq!(std::mem::size_of::<TteRecord>(), 32);
        // The criteria's one-byte code sits in the padding after the RECIST response.
        assert_eq!(std::mem::size_of::<Assessment>(), 56);
        let id: SubjectId = "CDISCPILOT01-01-701-1015".into(); // 24 bytes: no allocation
        assert!(!id.is_heap_allocated());
        let mut a = Columns::default();
        a.insert_shared(ColumnValue::new("COHORT".into(), "1"));
        let shared = ColumnValue::new("COHORT".into(), "2");
        let mut b = Columns::default();
        b.insert_shared(shared.clone());
        a.insert_shared(shared.clone());
        assert_eq!(a, b);
        assert_eq!(std::sync::Arc::strong_count(&shared), 3);
        let s = Subject {
            site: Some(Subject::site_entry("101")),
            ..Subject::placeholder()
        };
        assert_eq!(s.site(), Some("101"));
        assert!(serde_json::to_string(&s)
            .unwrap()
            .contains(r#""site":"101""#));
    }
}

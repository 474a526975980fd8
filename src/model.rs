//! Typed domain records shared by every stage: what the loaders produce and the derivations
//! consume. No I/O and no configuration here, only the vocabulary of the trial data.

use std::sync::Arc;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// A calendar date (ADaM `*DT` variables).
pub type Date = chrono::NaiveDate;

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
    /// `USUBJID` (shared with the subject's records in other tables).
    pub usubjid: Arc<str>,
    /// `SITEID` (one allocation per site, shared by its subjects).
    pub site: Option<Arc<str>>,
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
    /// ADSL columns as text (empty cells omitted), for filters and baseline summaries.
    pub columns: Columns,
}

impl Subject {
    /// A subject with no data, standing in for a row that failed to convert (never reaches
    /// an analysis: the load stops with that row's error).
    pub fn placeholder() -> Subject {
        Subject {
            usubjid: Arc::from(""),
            site: None,
            trt_start: None,
            trt_end: None,
            enrolled: None,
            death: None,
            last_alive: None,
            safety: false,
            efficacy: false,
            columns: Columns::default(),
        }
    }
}

/// A subject's ADSL columns by name: a short list, because a study uses a handful of columns
/// for filters and baseline summaries and there may be millions of subjects. Names, and values
/// read from ADSL, are shared between subjects. A single column (the usual cohort filter) is
/// held inline: no allocation per subject.
#[derive(Debug, Clone, Default)]
pub struct Columns(ColumnList);

/// The entries of [`Columns`].
#[derive(Debug, Clone, Default)]
enum ColumnList {
    #[default]
    Empty,
    One((Arc<str>, Arc<str>)),
    Many(Vec<(Arc<str>, Arc<str>)>),
}

impl PartialEq for Columns {
    fn eq(&self, other: &Columns) -> bool {
        self.entries() == other.entries()
    }
}

impl Columns {
    /// Room for `n` columns.
    pub fn with_capacity(n: usize) -> Columns {
        Columns(if n <= 1 {
            ColumnList::Empty
        } else {
            ColumnList::Many(Vec::with_capacity(n))
        })
    }

    /// The (name, value) entries in the order they were set.
    fn entries(&self) -> &[(Arc<str>, Arc<str>)] {
        match &self.0 {
            ColumnList::Empty => &[],
            ColumnList::One(entry) => std::slice::from_ref(entry),
            ColumnList::Many(entries) => entries,
        }
    }

    /// The value of a column, if present and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries()
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| &**v)
    }

    /// Whether the column has a value.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Sets a column's value.
    pub fn insert(&mut self, name: Arc<str>, value: &str) {
        self.insert_shared(name, value.into());
    }

    /// Sets a column's value to a shared string.
    pub fn insert_shared(&mut self, name: Arc<str>, value: Arc<str>) {
        match &mut self.0 {
            ColumnList::Empty => self.0 = ColumnList::One((name, value)),
            ColumnList::One(entry) if entry.0 == name => entry.1 = value,
            ColumnList::One(entry) => {
                let first = entry.clone();
                self.0 = ColumnList::Many(vec![first, (name, value)]);
            }
            ColumnList::Many(entries) => match entries.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 = value,
                None => entries.push((name, value)),
            },
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
        for (name, value) in entries {
            map.serialize_entry(&**name, &**value)?;
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
    /// `AVALC`
    pub response: Response,
    /// `AVISIT`, when present.
    pub visit: Option<String>,
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
    /// Position of the subject in the study's subject list (ADSL order).
    pub subject: usize,
    /// `PARAMCD` (one allocation per parameter).
    pub paramcd: Arc<str>,
    /// `AVAL`, in days.
    pub days: f64,
    /// `CNSR`
    pub status: Status,
    /// `CNSR` as given (ADaM censoring reason code; 0 for an event).
    pub cnsr: u32,
    /// `STARTDT`
    pub start: Option<Date>,
    /// `ADT`
    pub date: Option<Date>,
    /// Line in the ADTTE file (observation number for SAS files), for error messages.
    pub line: u64,
}

impl TteRecord {
    /// A record with no data, standing in for a row that failed to convert (never reaches
    /// an analysis: the load stops with that row's error).
    pub fn placeholder() -> TteRecord {
        TteRecord {
            subject: 0,
            paramcd: Arc::from(""),
            days: 0.0,
            status: Status::Censored,
            cnsr: 1,
            start: None,
            date: None,
            line: 0,
        }
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
    /// Related to study treatment (per `analysis.related_values`).
    pub related: bool,
    /// `ASTDT`
    pub start: Option<Date>,
    /// `TRTEMFL = Y` (true when the column is absent).
    pub emergent: bool,
    /// `AESER = Y`
    pub serious: bool,
    /// Grade 5 or `AEOUT = FATAL`.
    pub fatal: bool,
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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
        // One entry inline and one entry in a list are equal.
        let mut listed = Columns::with_capacity(3);
        listed.insert("COHORT".into(), "B");
        let inline: Columns = [("COHORT", "B")].into_iter().collect();
        assert_eq!(listed, inline);
        assert_ne!(inline, Columns::default());
    }
}

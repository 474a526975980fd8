//! Warnings as data (docs/ARCHITECTURE.md, "Diagnostics"): what a stage wants the reader to
//! know, with its kind, severity, where it points (a file and line, a config key, an
//! endpoint) and the subjects it names, carried beside the results instead of printed. The
//! front end prints them once; results.json keeps each as its text (`warnings`) and whole
//! (`diagnostics`, [`Record`]); two of one kind about the same subjects are one.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What a diagnostic is about: one variant per thing a stage can warn of, so a reader (or a
/// test) can tell them apart without reading the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// ADAE events without a CTCAE grade, whose severity was used.
    AeSeverityAsGrade,
    /// ADAE events with neither grade nor severity.
    AeUngraded,
    /// ADAE terms or classes spelled in more than one case, counted as one.
    AeSpelling,
    /// Adverse events without a start date in exposure-adjusted rates.
    AeUndated,
    /// Safety subjects without a known exposure, left out of exposure-adjusted rates.
    ExposureUnknown,
    /// Treatment recorded as ended without a TRTEDT: no duration.
    TreatmentEndUndated,
    /// No efficacy flag while ADSL holds untreated subjects.
    EfficacyPopulationUnflagged,
    /// Response assessments before the first dose, left out.
    AssessmentBeforeTreatment,
    /// Data after the last date known alive: OS censored later.
    SeenAliveAfterLastAlive,
    /// The sponsor's BOR dated after the cut-off.
    GivenBorAfterCutoff,
    /// A disposition status readout does not recognise.
    StatusUnrecognised,
    /// A disposition status that could not be cut at the cut-off.
    StatusNotCut,
    /// An oddity in a subject's responses (a CR followed by a PR, an iCPD outside its window).
    ResponseOddity,
    /// Events censored by the missed-visit rule.
    MissedVisits,
    /// A rule the config asks for that does not apply to the data (censoring at new
    /// anticancer therapy when the times come from ADTTE).
    RuleNotApplied,
    /// Subjects left out of an endpoint, or responders without a record.
    EndpointSubjects,
    /// An endpoint without data, or that cannot be derived.
    EndpointUnavailable,
    /// An estimate or test that cannot be computed from the data (no events in an arm, no
    /// information).
    NotEstimable,
    /// Strata left out of a stratified analysis, or with few events or responders.
    Strata,
    /// Subjects without a value of the arms column, or arms without subjects.
    Arms,
    /// A baseline characteristic that could not be summarised as asked.
    Baseline,
    /// A figure left out.
    FigureLeftOut,
    /// Blocks of the poster left out: they do not fit its size.
    PosterOverfull,
    /// A document whose numbers could not be traced to results.json.
    Untraced,
    /// The abstract shortened to fit its conference's limit.
    AbstractLength,
    /// The abstract lacks what a congress asks of every abstract (a trial registry number,
    /// a Background).
    AbstractContent,
    /// A `data.where` value that no row holds.
    RowFilter,
    /// A listing or a text cut for a document (preferred terms past `documents::listed`'s
    /// limit, a text longer than a spreadsheet cell).
    ListShortened,
    /// Read back from a results.json that did not record its kind (or of a kind this
    /// version does not know).
    #[serde(other)]
    Recorded,
}

/// How much it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A number may be other than the reader thinks.
    Warning,
    /// Something left out, said for completeness.
    Note,
}

/// Where a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Location {
    /// Nowhere in particular (the cohort's data as a whole).
    #[default]
    None,
    /// A data file, with its line and column when known.
    File {
        /// The file.
        path: String,
        /// Line (observation for SAS files).
        line: Option<u64>,
        /// Column name.
        column: Option<String>,
    },
    /// A config key (`analysis.missed_visit_days`).
    Key(String),
    /// An endpoint of `tte_params`.
    Endpoint(String),
}

/// One warning or note.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// What it is about.
    pub kind: Kind,
    /// How much it matters.
    pub severity: Severity,
    /// Where it points.
    pub location: Location,
    /// The subjects it names (the first few; the message says how many in all).
    pub subjects: Vec<String>,
    /// What it says, in words (as results.json keeps it).
    pub message: String,
    /// What to do about it, if anything.
    pub hints: Vec<String>,
}

impl Kind {
    /// Its name as results.json writes it (`not-estimable`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

impl Diagnostic {
    /// A warning of `kind`.
    pub fn warning(kind: Kind, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            severity: Severity::Warning,
            location: Location::None,
            subjects: Vec::new(),
            message: message.into(),
            hints: Vec::new(),
        }
    }

    /// A note of `kind`.
    pub fn note(kind: Kind, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::warning(kind, message)
        }
    }

    /// The same, pointing at `location`.
    pub fn at(mut self, location: Location) -> Diagnostic {
        self.location = location;
        self
    }

    /// The same, naming `subjects`.
    pub fn subjects<S: AsRef<str>>(mut self, subjects: impl IntoIterator<Item = S>) -> Diagnostic {
        self.subjects = subjects
            .into_iter()
            .map(|s| s.as_ref().to_string())
            .collect();
        self
    }

    /// The same, with a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hints.push(hint.into());
        self
    }

    /// Whether `other` says the same: of one kind about the same subjects (or, naming none,
    /// in the same words).
    fn same_as(&self, other: &Diagnostic) -> bool {
        self.kind == other.kind
            && self.location == other.location
            && if self.subjects.is_empty() && other.subjects.is_empty() {
                self.message == other.message
            } else {
                self.subjects == other.subjects
            }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// In results.json a diagnostic is its text (the contract of `warnings`).
impl Serialize for Diagnostic {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.message)
    }
}

/// Read back from results.json (`readout diff`): the text, its kind not recorded.
impl<'de> Deserialize<'de> for Diagnostic {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Diagnostic::warning(
            Kind::Recorded,
            String::deserialize(deserializer)?,
        ))
    }
}

/// `results.json` → `diagnostics[]` (docs/OUTPUTS.md): a diagnostic whole, as other tools
/// and `readout diff` read it back; `warnings[]` keeps the same ones as text, in the same order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Record {
    /// What it is about (`not-estimable`, `strata`, ...).
    pub kind: Kind,
    /// `warning` (a number may be other than the reader thinks) or `note`.
    pub severity: Severity,
    /// Where it points; `null` for the data as a whole.
    #[serde(default)]
    pub location: Option<Place>,
    /// The subjects it names (the first few).
    #[serde(default)]
    pub subjects: Vec<String>,
    /// What it says, as `warnings[]` has it.
    pub message: String,
    /// What to do about it.
    #[serde(default)]
    pub hints: Vec<String>,
}

/// `diagnostics[].location`: a data file (with its line and column when known), a config
/// key or an endpoint; only the fields that apply are written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Place {
    /// A data file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its line (observation for SAS files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Its column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// A config key (`analysis.missed_visit_days`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// An endpoint of `tte_params`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

impl From<&Location> for Option<Place> {
    fn from(location: &Location) -> Option<Place> {
        match location {
            Location::None => None,
            Location::File { path, line, column } => Some(Place {
                file: Some(path.clone()),
                line: *line,
                column: column.clone(),
                ..Place::default()
            }),
            Location::Key(key) => Some(Place {
                key: Some(key.clone()),
                ..Place::default()
            }),
            Location::Endpoint(endpoint) => Some(Place {
                endpoint: Some(endpoint.clone()),
                ..Place::default()
            }),
        }
    }
}

impl From<Option<Place>> for Location {
    fn from(place: Option<Place>) -> Location {
        match place {
            None => Location::None,
            Some(Place {
                file: Some(path),
                line,
                column,
                ..
            }) => Location::File { path, line, column },
            Some(Place { key: Some(key), .. }) => Location::Key(key),
            Some(Place {
                endpoint: Some(endpoint),
                ..
            }) => Location::Endpoint(endpoint),
            Some(_) => Location::None,
        }
    }
}

impl From<&Diagnostic> for Record {
    fn from(d: &Diagnostic) -> Record {
        Record {
            kind: d.kind,
            severity: d.severity,
            location: (&d.location).into(),
            subjects: d.subjects.clone(),
            message: d.message.clone(),
            hints: d.hints.clone(),
        }
    }
}

impl From<Record> for Diagnostic {
    fn from(r: Record) -> Diagnostic {
        Diagnostic {
            kind: r.kind,
            severity: r.severity,
            location: r.location.into(),
            subjects: r.subjects,
            message: r.message,
            hints: r.hints,
        }
    }
}

/// Each of `list` whole, for `diagnostics[]`.
pub fn records(list: &[Diagnostic]) -> Vec<Record> {
    list.iter().map(Record::from).collect()
}

/// What changed between two lists of diagnostics (two cut-offs' `diagnostics[]`): those of
/// `after` that `before` does not say, and those of `before` that `after` no longer says
/// ([`Diagnostic`]'s kind, place and subjects, or words when naming no subject).
pub fn changes<'d>(
    before: &'d [Diagnostic],
    after: &'d [Diagnostic],
) -> (Vec<&'d Diagnostic>, Vec<&'d Diagnostic>) {
    // A results.json that did not record kinds is compared by words.
    let same = |a: &Diagnostic, b: &Diagnostic| {
        if a.kind == Kind::Recorded || b.kind == Kind::Recorded {
            a.message == b.message
        } else {
            a.same_as(b)
        }
    };
    let missing_from = |list: &'d [Diagnostic], other: &'d [Diagnostic]| {
        list.iter()
            .filter(|d| !other.iter().any(|o| same(o, d)))
            .collect()
    };
    (missing_from(after, before), missing_from(before, after))
}

/// What to send with a bug report.
pub const REPORT: &str = "The inputs are not at fault; please report it to the readout project \
                          with the command line, the config (and, if you can, the data or a \
                          cut-down copy) and this message";

#[cfg(test)]
impl schemars::JsonSchema for Diagnostic {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Diagnostic".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

/// Adds `found` to `list` unless one there says the same ([`Diagnostic`]'s kind and subjects).
pub fn push_unique(list: &mut Vec<Diagnostic>, found: Diagnostic) {
    if !list.iter().any(|d| d.same_as(&found)) {
        list.push(found);
    }
}

/// [`push_unique`] of each.
pub fn extend_unique(list: &mut Vec<Diagnostic>, found: impl IntoIterator<Item = Diagnostic>) {
    for d in found {
        push_unique(list, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_a_kind_about_the_same_subjects_is_kept_once() {
        let mut list = Vec::new();
        let a = Diagnostic::warning(Kind::ResponseOddity, "S1: CR then PR").subjects(["S1"]);
        push_unique(&mut list, a.clone());
        push_unique(
            &mut list,
            Diagnostic {
                message: "S1: CR, then PR".into(),
                ..a.clone()
            },
        );
        push_unique(&mut list, a.clone().subjects(["S2"]));
        push_unique(
            &mut list,
            Diagnostic::warning(Kind::MissedVisits, "S1: CR then PR"),
        );
        assert_eq!(list.len(), 3);
        assert_eq!(
            serde_json::to_string(&list[0]).unwrap(),
            "\"S1: CR then PR\""
        );
        let back: Diagnostic = serde_json::from_str("\"text\"").unwrap();
        assert_eq!((back.kind, back.message.as_str()), (Kind::Recorded, "text"));
    }

    #[test]
    fn a_record_keeps_kind_severity_place_subjects_and_hints() {
        let places = [
            Location::None,
            Location::File {
                path: "data/adsl.csv".into(),
                line: Some(7),
                column: Some("TRTSDT".into()),
            },
            Location::File {
                path: "data/adae.xpt".into(),
                line: None,
                column: None,
            },
            Location::Key("analysis.missed_visit_days".into()),
            Location::Endpoint("PFS".into()),
        ];
        for place in places {
            let d = Diagnostic::note(Kind::Strata, "few events")
                .at(place.clone())
                .subjects(["S1", "S2"])
                .hint("merge strata");
            let json = serde_json::to_value(Record::from(&d)).unwrap();
            assert_eq!(json["kind"], "strata");
            assert_eq!(json["severity"], "note");
            let back: Record = serde_json::from_value(json).unwrap();
            assert_eq!(Diagnostic::from(back), d);
        }
        let json = serde_json::to_value(Record::from(
            &Diagnostic::warning(Kind::NotEstimable, "x").at(Location::Key("k".into())),
        ))
        .unwrap();
        assert_eq!(json["location"], serde_json::json!({ "key": "k" }));
        // A kind from a later version reads as one not recorded.
        let later: Record = serde_json::from_str(
            r#"{"kind": "no-such-kind", "severity": "warning", "message": "m"}"#,
        )
        .unwrap();
        assert_eq!((later.kind, later.location), (Kind::Recorded, None));
    }

    #[test]
    fn changes_are_by_kind_and_subjects_or_by_words_when_not_recorded() {
        let a = Diagnostic::warning(Kind::ResponseOddity, "S1: CR then PR").subjects(["S1"]);
        let b = Diagnostic::warning(Kind::Strata, "1 stratum holds one arm");
        let reworded = Diagnostic {
            message: "S1: CR, then PR".into(),
            ..a.clone()
        };
        let after = [reworded, b.clone()];
        let (new, gone) = changes(std::slice::from_ref(&a), &after);
        assert_eq!((new, gone), (vec![&b], vec![]));
        // Read from an earlier results.json: compared by words.
        let old = Diagnostic::warning(Kind::Recorded, "1 stratum holds one arm");
        let (new, gone) = changes(std::slice::from_ref(&old), std::slice::from_ref(&b));
        assert!(new.is_empty() && gone.is_empty());
        let (new, gone) = changes(std::slice::from_ref(&old), std::slice::from_ref(&a));
        assert_eq!((new, gone), (vec![&a], vec![&old]));
    }
}

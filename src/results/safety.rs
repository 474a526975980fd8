//! Adverse events as results.json holds them: subjects with any TEAE and TRAE, by worst grade
//! (or severity), serious and fatal, and per preferred term.

use serde::{Deserialize, Serialize};

/// Subjects with at least one event of a kind.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct AeCounts {
    /// Any grade.
    pub any: usize,
    /// Grade 3 or higher (severe, with severity only); `null` when ADAE has no grade or
    /// severity.
    pub grade3plus: Option<usize>,
    /// Grade 4 or higher; `null` as `grade3plus`.
    pub grade4plus: Option<usize>,
    /// Serious (`AESER = Y`); `null` when ADAE has no `AESER` value.
    pub serious: Option<usize>,
    /// Fatal (grade 5, `AEOUT = FATAL` or `AESDTH = Y`); `null` when ADAE has none of these
    /// columns with a value.
    pub fatal: Option<usize>,
    /// Leading to discontinuation of the study treatment (`AEACN = DRUG WITHDRAWN`); absent
    /// when ADAE has no `AEACN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discontinued: Option<usize>,
    /// Leading to a dose reduction (`DOSE REDUCED`, `DOSE RATE REDUCED`); absent without `AEACN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduced: Option<usize>,
    /// Leading to an interruption (`DRUG INTERRUPTED`); absent without `AEACN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<usize>,
}

/// Per-term counts of subjects (each subject counted once, at its worst grade).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TermCounts {
    /// Preferred term.
    pub term: String,
    /// System organ class.
    pub soc: Option<String>,
    /// Subjects with the term as a TEAE.
    pub teae_any: usize,
    /// ... at grade ≥3; `null` when ADAE has no grade or severity.
    pub teae_grade3plus: Option<usize>,
    /// Subjects with the term as a treatment-related AE.
    pub trae_any: usize,
    /// ... at grade ≥3; `null` as `teae_grade3plus`.
    pub trae_grade3plus: Option<usize>,
}

/// Safety summary over the safety population.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Safety {
    /// Safety population size.
    #[serde(rename = "N")]
    pub total: usize,
    /// Treatment-emergent AEs.
    pub teae: AeCounts,
    /// Treatment-related AEs.
    pub trae: AeCounts,
    /// Per term, most frequent treatment-related first.
    pub by_term: Vec<TermCounts>,
    /// How the events were graded: `ctcae` (a toxicity grade, `ATOXGR`/`AETOXGR`) or
    /// `severity` (only `AESEV`: mild, moderate, severe, with severe counted where grade ≥3
    /// is). Documents word their tables and sentences after it.
    #[serde(default)]
    pub grading: AeGrading,
    /// Adverse events of special interest (`analysis.ae_special_interest`), TEAEs, in the
    /// config's order (absent when none is named).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub special_interest: Vec<SpecialInterestCounts>,
    /// Records (events, not subjects) of each kind of TEAE: the "[events]" of the "Any" rows.
    #[serde(default)]
    pub events: EventCounts,
    /// TEAEs by system organ class and preferred term (`analysis.ae_sort` order).
    #[serde(default)]
    pub by_soc: Vec<SocCount>,
    /// Serious TEAEs the same way; `null` when ADAE has no `AESER` value.
    #[serde(default)]
    pub serious_by_soc: Option<Vec<SocCount>>,
    /// TEAEs leading to discontinuation of the study treatment (`AEACN = DRUG WITHDRAWN`) the
    /// same way; `null` without `AEACN`.
    #[serde(default)]
    pub discontinuation_by_soc: Option<Vec<SocCount>>,
    /// Fatal TEAEs (grade 5, `AESDTH = Y` or `AEOUT = FATAL`) the same way; `null` when ADAE
    /// has none of these.
    #[serde(default)]
    pub fatal_by_soc: Option<Vec<SocCount>>,
    /// TEAEs by system organ class and preferred term, subjects by their highest grade there;
    /// `null` without grades.
    #[serde(default)]
    pub by_soc_grade: Option<Vec<SocGrades>>,
}

/// TEAE records of each kind; a kind the data cannot give is `null`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct EventCounts {
    /// Every TEAE record.
    pub any: usize,
    /// Serious ones; `null` without `AESER`.
    pub serious: Option<usize>,
    /// Those leading to discontinuation; `null` without `AEACN`.
    pub discontinued: Option<usize>,
    /// Fatal ones; `null` as [`AeCounts::fatal`].
    pub fatal: Option<usize>,
}

/// A system organ class: subjects with an event in it (each once), its records, and its
/// preferred terms the same way.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SocCount {
    /// `AEBODSYS` as first written (case differences are one class); "Not coded" when empty.
    pub soc: String,
    /// Subjects with an event in the class.
    pub subjects: usize,
    /// Records in the class.
    pub events: usize,
    /// Its preferred terms.
    pub terms: Vec<TermEvents>,
}

/// A preferred term within its class.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TermEvents {
    /// `AEDECOD` as first written (case differences are one term).
    pub term: String,
    /// Subjects with the term.
    pub subjects: usize,
    /// Its records.
    pub events: usize,
}

/// A system organ class with its subjects by highest grade, and its terms the same way.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SocGrades {
    /// As in [`SocCount::soc`].
    pub soc: String,
    /// Subjects whose highest grade in the class is 1, 2, 3, 4, 5 (five counts).
    pub grades: Vec<usize>,
    /// Subjects with events in the class but no grade on any of them.
    pub not_graded: usize,
    /// Its preferred terms.
    pub terms: Vec<TermGrades>,
}

/// A preferred term's subjects by their highest grade of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TermGrades {
    /// As in [`TermEvents::term`].
    pub term: String,
    /// Subjects whose highest grade of the term is 1, 2, 3, 4, 5.
    pub grades: Vec<usize>,
    /// Subjects with the term but no grade on it.
    pub not_graded: usize,
}

/// Subjects with a TEAE of one group of special interest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SpecialInterestCounts {
    /// The config's label ("infections").
    pub label: String,
    /// Subjects with any such TEAE.
    pub n: usize,
    /// ... at grade ≥3; `null` without grades.
    pub grade3plus: Option<usize>,
    /// ... serious; `null` without AESER.
    pub serious: Option<usize>,
}

/// How adverse events were graded (see [`Safety::grading`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum AeGrading {
    /// CTCAE toxicity grades (some events may have been graded by severity where the grade
    /// was missing; a load warning says so).
    Ctcae,
    /// Severity only.
    Severity,
}

/// Results written before grading was recorded were all read as CTCAE grades.
impl Default for AeGrading {
    fn default() -> Self {
        AeGrading::Ctcae
    }
}

impl AeGrading {
    /// "Any grade" / "Any severity".
    pub fn any(self) -> &'static str {
        match self {
            AeGrading::Ctcae => "Any grade",
            AeGrading::Severity => "Any severity",
        }
    }

    /// "Grade ≥3" / "Severe": the row counted by `grade3plus`.
    pub fn severe(self) -> &'static str {
        match self {
            AeGrading::Ctcae => "Grade ≥3",
            AeGrading::Severity => "Severe",
        }
    }

    /// "worst grade" / "worst severity".
    pub fn worst(self) -> &'static str {
        match self {
            AeGrading::Ctcae => "worst grade",
            AeGrading::Severity => "worst severity",
        }
    }
}

/// Who completed, discontinued (and why) or is ongoing, over the cohort's (or arm's) members.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Disposition {
    /// `treatment` (end of treatment) or `study` (end of study).
    #[serde(default = "study_level")]
    pub level: String,
    /// How documents name the level ("End of treatment").
    #[serde(default)]
    pub label: String,
    /// Members counted.
    #[serde(rename = "N")]
    pub total: usize,
    /// The ADSL status column read (`EOSSTT`, a Y/N flag such as `COMP24FL`, ...); `null`:
    /// the status came from the reason.
    pub status_column: Option<String>,
    /// The ADSL reason column read (`DCDECOD`, ...); `null`: no reasons.
    pub reason_column: Option<String>,
    /// Completed.
    pub completed: usize,
    /// Discontinued (with a flag: did not complete).
    pub discontinued: usize,
    /// Neither (ongoing at the cut-off; at the treatment level, treatment that ends after the
    /// cut-off).
    pub ongoing: usize,
    /// At the treatment level, subjects never treated (no TRTSDT, or a status such as NOT
    /// TREATED); absent at the study level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_treated: Option<usize>,
    /// Statuses readout does not recognise, as ADSL gives them, with their counts (each named
    /// in a warning).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<ReasonCount>,
    /// Reasons of the discontinued, most frequent first ("not given" when empty).
    pub reasons: Vec<ReasonCount>,
    /// Discontinued because of adverse events; `null` when the data cannot say.
    pub discontinued_ae: Option<usize>,
    /// Where that came from: `DSRAEFL`, the reason column ("ADVERSE EVENT"), or `AEACN`
    /// (an adverse event with DRUG WITHDRAWN).
    pub discontinued_ae_source: Option<String>,
}

fn study_level() -> String {
    "study".to_string()
}

/// One reason for discontinuation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ReasonCount {
    /// As ADSL gives it.
    pub reason: String,
    /// Subjects.
    pub n: usize,
}

/// Treatment duration of the safety population, in `time_unit`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Exposure {
    /// Subjects with a duration.
    pub n: usize,
    /// What the duration was read from.
    pub source: String,
    /// Median, range, mean and SD.
    pub duration: crate::results::ContinuousSummary,
    /// Sum of the durations in years of 365.25 days.
    pub patient_years: f64,
    /// Subjects still on treatment (no TRTEDT, or one after the cut-off, and no end of
    /// treatment recorded), whose duration runs to the cut-off (or is ADSL's TRTDURD).
    pub ongoing: usize,
    /// Safety subjects without a duration: no TRTSDT; or no TRTEDT and neither a cut-off nor
    /// TRTDURD; or no TRTEDT while their treatment is recorded as ended (each named in a
    /// warning).
    pub missing: usize,
    /// Dose where ADSL gives it, by column (`CUMDOSE` cumulative dose, `AVGDD` average daily
    /// dose, `RDI` relative dose intensity in %), over the safety subjects with a value.
    /// For ADEX of a combination (one row per subject, parameter and drug, the drug in
    /// `PARCAT1` or `EXTRT`), each summary per drug: `CUMDOSE, VELATAMAB`.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub dose: indexmap::IndexMap<String, crate::results::ContinuousSummary>,
    /// The unit of each dose summary, as ADEX's `AVALU` gives it.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub dose_units: indexmap::IndexMap<String, String>,
}

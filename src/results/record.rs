//! results.json as a whole: the study, each cohort's record (its numbers and its abstract's
//! length), the cohorts that failed.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::config::CountUnit;
use crate::model::Date;

use super::CohortResults;

/// `results.json`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StudyResults<'a> {
    /// Study identity.
    pub study: StudyHeader<'a>,
    /// The cut-off of this folder.
    pub cutoff: Option<Date>,
    /// Time unit of the study-level settings (cohorts may override; each TTE is in its cohort's).
    pub time_unit: &'static str,
    /// The readout version that computed the numbers.
    pub readout_version: &'static str,
    /// One entry per cohort.
    pub cohorts: Vec<&'a CohortRecord>,
    /// Non-fatal data problems found while loading.
    pub warnings: &'a [crate::diagnostic::Diagnostic],
    /// The same, each whole: kind, severity, location, subjects, hints.
    pub diagnostics: Vec<crate::diagnostic::Record>,
    /// Cohorts that could not be built at this cut-off.
    pub failures: &'a [CohortFailure],
}

/// `results.json` → `study`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StudyHeader<'a> {
    /// `study.id`
    pub id: &'a str,
    /// `study.registry_id`
    pub registry_id: Option<&'a str>,
    /// `study.title`
    pub title: Option<&'a str>,
}

/// `results.json` → `cohorts[]`: a cohort's results as its documents were rendered from them,
/// and the length of its abstract (known once the abstract is rendered).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CohortRecord {
    /// The cohort's numbers and warnings.
    #[serde(flatten)]
    pub results: CohortResults,
    /// Length of the abstract (`abstract.txt`) under `output.conference`; `null` without one.
    #[serde(default)]
    pub abstract_length: Option<AbstractLength>,
    /// The decimals the cohort's documents print (`analysis.percent_decimals`,
    /// `time_decimals`), so that `readout diff` prints the numbers as the abstract does.
    #[serde(default)]
    pub decimals: Option<Decimals>,
    /// The cohort's `warnings`, each whole (kind, severity, location, subjects, hints); empty
    /// when read from a results.json of an earlier version.
    #[serde(default)]
    pub diagnostics: Vec<crate::diagnostic::Record>,
}

impl CohortRecord {
    /// The entry, made once the documents are rendered: the analysis' results with the
    /// warnings of the stages after it (figures left out, documents) added where not already
    /// there.
    pub fn new(
        results: CohortResults,
        later: impl IntoIterator<Item = crate::diagnostic::Diagnostic>,
        abstract_length: Option<AbstractLength>,
        decimals: Decimals,
    ) -> CohortRecord {
        let mut warnings = results.warnings;
        crate::diagnostic::extend_unique(&mut warnings, later);
        CohortRecord {
            diagnostics: crate::diagnostic::records(&warnings),
            results: CohortResults {
                warnings,
                ..results
            },
            abstract_length,
            decimals: Some(decimals),
        }
    }

    /// The cohort's warnings with their kinds, as read back from results.json (from
    /// `diagnostics`, else the text of `warnings`, of no recorded kind).
    pub fn typed_warnings(&self) -> Vec<crate::diagnostic::Diagnostic> {
        if self.diagnostics.is_empty() {
            self.results.warnings.clone()
        } else {
            self.diagnostics.iter().cloned().map(Into::into).collect()
        }
    }
}

/// `results.json` → cohort → `decimals`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Decimals {
    /// Decimals of percentages.
    pub percent: usize,
    /// Decimals of times (medians, follow-up, durations).
    pub time: usize,
}

/// A cohort that could not be built, and why.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CohortFailure {
    /// Cohort id.
    pub cohort: String,
    /// The error as the build prints it after the config and the cohort (neither repeated).
    pub error: String,
}

/// One sentence of an abstract over its limit, and its length in the rule's unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SentenceLength {
    /// Its length in the rule's unit.
    pub count: usize,
    /// The sentence.
    pub text: String,
}

/// `results.json` → cohort → `abstract_length`: the abstract measured by the conference rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct AbstractLength {
    /// The rule's name: `asco`, `esmo`, `aacr`, `wclc` or `custom`.
    pub conference: String,
    /// Length of `abstract.txt` in `unit`.
    pub count: usize,
    /// The conference's limit in `unit`.
    pub limit: usize,
    /// chars | chars_no_spaces | words.
    pub unit: CountUnit,
    /// Whether the title was counted.
    pub title_counted: bool,
    /// `count <= limit`.
    pub within_limit: bool,
    /// Over the limit: the longest sentences, longest first, to show where to shorten.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub longest_sentences: Vec<SentenceLength>,
    /// What the abstract left out to fit, in the order of the shortening steps
    /// (docs/CONFERENCES.md); empty when nothing was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

impl fmt::Display for AbstractLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{} {} ({}{})",
            self.count,
            self.limit,
            self.unit.describe(),
            self.conference,
            if self.title_counted {
                ", title counted"
            } else {
                ", title not counted"
            }
        )
    }
}

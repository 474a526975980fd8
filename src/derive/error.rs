//! The one error type of the derive stage. Every variant names the subject (or the option) and
//! says what was expected, so the message can be shown to the user as it is.

use crate::model::Date;

/// Why a per-subject derivation could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeriveError {
    /// What cannot happen unless readout has a bug (a category of a built-in set not found in
    /// it): an error rather than a subject counted as not evaluable.
    #[error("a bug in readout: {0}. {report}", report = crate::diagnostic::REPORT)]
    Internal(&'static str),
    /// Two assessments of one subject on one date with different responses.
    #[error(
        "subject {usubjid}: two different overall responses on {date} ({first} and {second}); \
         expected at most one assessment per date"
    )]
    ConflictingAssessments {
        /// `USUBJID`
        usubjid: String,
        /// The shared `ADT`.
        date: Date,
        /// The first response (in input order).
        first: String,
        /// The second response.
        second: String,
    },

    /// A response value that is not a category of the cohort's criteria.
    #[error(
        "subject {usubjid}: overall response \"{value}\" on {date} is not {expected} \
         (`analysis.response_criteria` names the criteria)"
    )]
    OutsideCriteria {
        /// `USUBJID`
        usubjid: String,
        /// The `AVALC`.
        value: String,
        /// Its `ADT`.
        date: Date,
        /// "a category of iRECIST; expected iCR, ..., or ND".
        expected: String,
    },

    /// Assessments of another subject were passed with this subject's.
    #[error(
        "subject {usubjid}: an assessment of subject {other} was passed with it; \
         the derivations take one subject's assessments at a time"
    )]
    MixedSubjects {
        /// The subject being derived.
        usubjid: String,
        /// The stray assessment's `USUBJID`.
        other: String,
    },

    /// The subject has assessments whose category depends on the SD window, but no reference date.
    #[error(
        "subject {usubjid}: the {response} assessment on {date} needs a reference date (TRTSDT) \
         to be placed relative to the {days}-day SD window, and there is none"
    )]
    MissingReferenceDate {
        /// `USUBJID`
        usubjid: String,
        /// The first assessment that needs the window.
        response: &'static str,
        /// Its `ADT`.
        date: Date,
        /// `sd_min_days`.
        days: i64,
    },

    /// A response value outside the RECIST 1.1 vocabulary.
    #[error(
        "subject {usubjid}: overall response \"{value}\" is not one of CR, PR, SD, NON-CR/NON-PD, \
         PD, NE, ND"
    )]
    InvalidResponse {
        /// `USUBJID`
        usubjid: String,
        /// The `AVALC` as given.
        value: String,
    },

    /// There are no overall-response assessments at all (whole data set).
    #[error(
        "no overall-response assessments (ADRS PARAMCD = OVR) for any subject; \
         the best overall response cannot be derived"
    )]
    NoAssessments,

    /// A date that ends an endpoint lies before the endpoint's origin.
    #[error("subject {usubjid}: {what} {date} is before the {endpoint} origin {origin}")]
    DateBeforeOrigin {
        /// `USUBJID`
        usubjid: String,
        /// `PFS`, `OS` or `DOR`.
        endpoint: &'static str,
        /// What the date is, e.g. `DTHDT`.
        what: &'static str,
        /// The offending date.
        date: Date,
        /// The origin (TRTSDT, or the first response for DoR).
        origin: Date,
    },

    /// A derivation option out of range.
    #[error("derivation option {name} = {value} is invalid: expected {expected}")]
    InvalidOption {
        /// The option's name.
        name: &'static str,
        /// Its value.
        value: i64,
        /// What is allowed.
        expected: &'static str,
    },
}

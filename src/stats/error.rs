//! The one error type of the statistics module.
//!
//! Every public function of [`crate::stats`] that can be handed unusable input returns
//! [`StatsError`] instead of panicking. It does not carry context about *which* endpoint or
//! cohort was being analysed: callers add that (the pure statistics know nothing about studies).

use thiserror::Error;

/// Why a statistic could not be computed from its input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    /// `time` and `event` slices of different lengths.
    #[error("{times} times but {events} event flags: every subject needs exactly one of each")]
    LengthMismatch {
        /// Length of the time slice.
        times: usize,
        /// Length of the event slice.
        events: usize,
    },

    /// A follow-up time that is NaN, infinite or negative.
    #[error("time {value} of subject {index} (0-based) is invalid: times must be finite and not negative")]
    InvalidTime {
        /// 0-based position in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },

    /// A confidence level outside the open interval (0, 1).
    #[error("confidence level {0} is invalid: it must lie strictly between 0 and 1")]
    InvalidLevel(f64),

    /// A quantile probability outside [0, 1].
    #[error("quantile probability {0} is invalid: it must lie between 0 and 1")]
    InvalidProbability(f64),

    /// A landmark time that is NaN or infinite.
    #[error("landmark time {0} is invalid: it must be finite")]
    InvalidLandmark(f64),

    /// A landmark was asked of a curve fitted to no subjects.
    #[error("the survival curve has no subjects, so it has no value at any time")]
    EmptyCurve,

    /// A proportion with more responders than subjects.
    #[error("{successes} successes out of {trials} trials is impossible")]
    SuccessesExceedTrials {
        /// Number of successes (responders).
        successes: usize,
        /// Number of trials (subjects).
        trials: usize,
    },

    /// A proportion of zero subjects.
    #[error("a proportion needs at least one trial")]
    NoTrials,

    /// A numerical routine failed to produce a finite answer (a bug, not bad input).
    #[error("numerical failure: {0}")]
    Numerical(&'static str),
}

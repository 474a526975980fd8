//! One subject's assessments put in date order and checked: the common first step of the BOR
//! and time-to-event derivations.

use chrono::TimeDelta;

use super::{DeriveError, Oddity};
use crate::model::{Assessment, Date};

/// One subject's assessments, sorted by date, at most one per date.
#[derive(Debug, Clone)]
pub(crate) struct Timeline {
    /// The subject's `USUBJID`; `None` when there are no assessments.
    pub(crate) usubjid: Option<String>,
    /// Sorted by `ADT`, one per date.
    pub(crate) items: Vec<Assessment>,
    /// Notes about the input (collapsed duplicates).
    pub(crate) warnings: Vec<Oddity>,
}

impl Timeline {
    /// Sorts `assessments` by date. Two assessments on one date with the same response are
    /// collapsed into one with a warning; with different responses they are an error, because no
    /// rule can say which one the investigator meant. All assessments must share one `USUBJID`.
    pub(crate) fn new(assessments: &[Assessment]) -> Result<Timeline, DeriveError> {
        let usubjid = assessments.first().map(|a| a.usubjid.clone());
        if let Some(id) = &usubjid {
            if let Some(stray) = assessments.iter().find(|a| &a.usubjid != id) {
                return Err(DeriveError::MixedSubjects {
                    usubjid: id.clone(),
                    other: stray.usubjid.clone(),
                });
            }
        }
        let mut sorted: Vec<Assessment> = assessments.to_vec();
        // Stable: equal dates keep input order, so the error names them in that order.
        sorted.sort_by_key(|a| a.date);
        let mut items: Vec<Assessment> = Vec::with_capacity(sorted.len());
        let mut warnings = Vec::new();
        for a in sorted {
            match items.last() {
                Some(prev) if prev.date == a.date => {
                    if prev.code != a.code {
                        return Err(DeriveError::ConflictingAssessments {
                            usubjid: a.usubjid.clone(),
                            date: a.date,
                            first: prev.response.code().to_string(),
                            second: a.response.code().to_string(),
                        });
                    }
                    warnings.push(Oddity::Repeated {
                        response: a.response.code(),
                        date: a.date,
                    });
                }
                _ => items.push(a),
            }
        }
        Ok(Timeline {
            usubjid,
            items,
            warnings,
        })
    }

    /// The subject id for messages (empty when there are no assessments).
    pub(crate) fn id(&self) -> &str {
        self.usubjid.as_deref().unwrap_or("")
    }
}

/// Whole days from `from` to `to` (negative when `to` is earlier).
pub(crate) fn days_between(from: Date, to: Date) -> i64 {
    (to - from).num_days()
}

/// `date + days`, or `None` when out of the calendar's range.
pub(crate) fn add_days(date: Date, days: i64) -> Option<Date> {
    TimeDelta::try_days(days).and_then(|d| date.checked_add_signed(d))
}

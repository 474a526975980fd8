//! Oddities in a subject's responses that do not stop a derivation: kept typed with their
//! dates, worded by [`fmt::Display`] (results.json's `warnings` give the words after the
//! subject, `diagnostics` the kind `response-oddity`).

use std::fmt;

use serde::{Serialize, Serializer};

use crate::model::Date;

/// One oddity of one subject's assessments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Oddity {
    /// Two assessments of one response on one date, counted once.
    Repeated {
        /// The response's code (`PR`).
        response: &'static str,
        /// The date.
        date: Date,
    },
    /// A complete response followed by a partial response.
    CrThenPr {
        /// The CR's date.
        cr: Date,
        /// The later PR's date.
        pr: Date,
    },
    /// A confirmed progression (iCPD) outside iRECIST's window after the iUPD; counted.
    ConfirmedOutsideWindow {
        /// The confirming response's code.
        code: String,
        /// Its date.
        date: Date,
        /// The iUPD it confirms.
        iupd: Date,
        /// The days between them, and the window allowed (days).
        gap: i64,
        /// The window allowed, in days.
        window: (i64, i64),
    },
    /// A confirmed progression with no unconfirmed one before it; counted as progression.
    ConfirmedWithoutUnconfirmed {
        /// The response's code.
        code: String,
        /// Its date.
        date: Date,
    },
}

impl fmt::Display for Oddity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Oddity::Repeated { response, date } => {
                write!(f, "two {response} assessments on {date}; counted once")
            }
            Oddity::CrThenPr { cr, pr } => write!(f, "CR on {cr} followed by PR on {pr}"),
            Oddity::ConfirmedOutsideWindow {
                code,
                date,
                iupd,
                gap,
                window: (min, max),
            } => write!(
                f,
                "{code} on {date} is {gap} days after the iUPD on {iupd}, outside the {min} to \
                 {max} days iRECIST allows for confirmation; counted as recorded"
            ),
            Oddity::ConfirmedWithoutUnconfirmed { code, date } => write!(
                f,
                "{code} on {date} without an earlier iUPD; counted as progression on that date"
            ),
        }
    }
}

/// Written as its words, as the outcome's `reason` is.
impl Serialize for Oddity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

//! Which ADSL columns disposition is read from (docs/CONFIG.md, `data.disposition`): the
//! levels reported (end of treatment, end of study), each with its status column (or a Y/N
//! completion flag) and its reason column, from the config or the usual ADaM names.

use serde::Serialize;

use crate::config::{DataFiles, DispositionLevelConfig};

/// A disposition level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// End of treatment (`EOTSTT`): never-treated subjects are a row of their own, and a
    /// treatment that ends after the cut-off is ongoing at it.
    Treatment,
    /// End of study (`EOSSTT`).
    Study,
}

/// One level as it is read.
#[derive(Debug, Clone, PartialEq)]
pub struct DispositionLevel {
    /// Treatment or study.
    pub level: Level,
    /// How documents name it.
    pub label: String,
    /// The status column, if any.
    pub status: Option<String>,
    /// The status column is a Y/N completion flag (its name ends `FL`): Y completed, N not.
    pub flag: bool,
    /// The reason column, if any: reasons are counted among those who did not complete.
    pub reason: Option<String>,
    /// The date the level ended (`EOSDT` for the study level), to cut the status at a
    /// cut-off.
    pub date: Option<String>,
}

/// Every ADSL column disposition and exposure may read (kept per subject when present).
/// TRTSDT is not one: each subject has it as `trt_start`, and a date kept among the columns
/// gave nearly every subject a list of its own (docs/PERFORMANCE.md).
pub const COLUMNS: [&str; 13] = [
    "EOSSTT", "EOTSTT", "EOSDT", "DCDECOD", "DCSREAS", "DCTREAS", "DCREASCD", "DSRAEFL", "TRTDURD",
    "TRTDUR", "CUMDOSE", "AVGDD", "RDI",
];

/// The first of `names` that ADSL has.
fn first_of(headers: &[String], names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|n| headers.iter().any(|h| h == *n))
        .map(|n| n.to_string())
}

/// The columns the config names for disposition, with their keys (checked against ADSL).
pub fn named_columns(config: &DataFiles) -> Vec<(String, String)> {
    let mut named = Vec::new();
    for (key, column) in [
        ("data.disposition_status", &config.disposition_status),
        ("data.disposition_reason", &config.disposition_reason),
    ] {
        if let Some(c) = column {
            named.push((key.to_string(), c.clone()));
        }
    }
    if let Some(d) = &config.disposition {
        for (name, level) in [("treatment", &d.treatment), ("study", &d.study)] {
            match level {
                Some(DispositionLevelConfig::Status(c)) => {
                    named.push((format!("data.disposition.{name}"), c.clone()));
                }
                Some(DispositionLevelConfig::Full { status, reason, .. }) => {
                    for (part, c) in [("status", status), ("reason", reason)] {
                        if let Some(c) = c {
                            named.push((format!("data.disposition.{name}.{part}"), c.clone()));
                        }
                    }
                }
                None => {}
            }
        }
    }
    named
}

/// The levels reported, from the config, else the usual names ADSL has.
pub fn levels(headers: &[String], config: &DataFiles) -> Vec<DispositionLevel> {
    let has = |c: &str| headers.iter().any(|h| h == c);
    let date = |level: Level| match level {
        Level::Study => first_of(headers, &["EOSDT"]),
        Level::Treatment => None,
    };
    let make =
        |level: Level, status: Option<String>, reason: Option<String>, label: Option<String>| {
            DispositionLevel {
                level,
                label: label.unwrap_or_else(|| match level {
                    Level::Treatment => "End of treatment".to_string(),
                    Level::Study => "End of study".to_string(),
                }),
                flag: status.as_deref().is_some_and(|s| s.ends_with("FL")),
                status,
                reason,
                date: date(level),
            }
        };
    if let Some(d) = &config.disposition {
        return [(Level::Treatment, &d.treatment), (Level::Study, &d.study)]
            .into_iter()
            .filter_map(|(level, given)| {
                // A status named alone reads the level's conventional reason column, as the
                // defaults do.
                let conventional = || match level {
                    Level::Treatment => first_of(headers, &["DCTREAS"]),
                    Level::Study => first_of(headers, &["DCSREAS", "DCDECOD", "DCREASCD"]),
                };
                Some(match given.as_ref()? {
                    DispositionLevelConfig::Status(c) => {
                        make(level, Some(c.clone()), conventional(), None)
                    }
                    DispositionLevelConfig::Full {
                        status,
                        reason,
                        label,
                    } => make(level, status.clone(), reason.clone(), label.clone()),
                })
            })
            .collect();
    }
    if config.disposition_status.is_some() || config.disposition_reason.is_some() {
        let treatment = config
            .disposition_status
            .as_deref()
            .is_some_and(|s| s.starts_with("EOT"))
            || config.disposition_reason.as_deref() == Some("DCTREAS");
        let level = if treatment {
            Level::Treatment
        } else {
            Level::Study
        };
        let reason = config.disposition_reason.clone().or_else(|| match level {
            Level::Treatment => first_of(headers, &["DCTREAS"]),
            Level::Study => first_of(headers, &["DCSREAS", "DCDECOD", "DCREASCD"]),
        });
        return vec![make(level, config.disposition_status.clone(), reason, None)];
    }
    let mut out = Vec::new();
    if has("EOTSTT") {
        out.push(make(
            Level::Treatment,
            Some("EOTSTT".into()),
            first_of(headers, &["DCTREAS"]),
            None,
        ));
    }
    let study_reason = first_of(headers, &["DCSREAS", "DCDECOD", "DCREASCD"]);
    if has("EOSSTT") || (out.is_empty() && study_reason.is_some()) {
        out.push(make(
            Level::Study,
            first_of(headers, &["EOSSTT"]),
            study_reason,
            None,
        ));
    }
    out
}

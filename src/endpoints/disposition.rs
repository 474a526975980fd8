//! Disposition and exposure of a cohort (or an arm), from ADSL (docs/OUTPUTS.md,
//! docs/CONFIG.md `data.disposition`): per level (end of treatment, end of study) who
//! completed, discontinued (and why, and whether because of adverse events), is ongoing or
//! was never treated; and how long the safety population was treated. A number the data
//! cannot give is `null` ("not available"), never a zero.

use super::*;
use crate::load::disposition::{DispositionLevel, Level};
use crate::results::{Disposition, Exposure, ReasonCount};

/// The ADSL columns of dose: cumulative dose, average daily dose, relative dose intensity (%).
const DOSE_COLUMNS: [&str; 3] = ["CUMDOSE", "AVGDD", "RDI"];

/// Where a subject stands at one level.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Completed,
    Discontinued,
    Ongoing,
    NotTreated,
    /// A status readout does not recognise, as ADSL gives it.
    Other(String),
}

/// A status as ADSL writes it (upper case, single spaces), read.
fn read_status(level: &DispositionLevel, status: &str) -> State {
    let status = status.split_whitespace().collect::<Vec<_>>().join(" ");
    let upper = status.to_ascii_uppercase();
    if level.flag {
        return match upper.as_str() {
            "Y" => State::Completed,
            "N" => State::Discontinued,
            "" => State::Ongoing,
            _ => State::Other(status),
        };
    }
    match upper.as_str() {
        "" | "ONGOING" | "ON-GOING" | "ON TREATMENT" | "ON STUDY" | "CONTINUING" => State::Ongoing,
        "COMPLETED" | "COMPLETE" | "COMPLETED TREATMENT" | "COMPLETED STUDY" => State::Completed,
        "DISCONTINUED"
        | "DISCONTINUATION"
        | "DISCONTINUED EARLY"
        | "EARLY DISCONTINUATION"
        | "EARLY TERMINATION"
        | "TERMINATED"
        | "WITHDRAWN"
        | "WITHDRAWAL" => State::Discontinued,
        "NOT TREATED"
        | "NOT STARTED"
        | "NEVER TREATED"
        | "RANDOMIZED NOT TREATED"
        | "RANDOMISED NOT TREATED"
            if level.level == Level::Treatment =>
        {
            State::NotTreated
        }
        _ => State::Other(status),
    }
}

/// Whether any subject of the study has a value in ADSL column `column` (a column that is
/// empty on every row gives no count).
fn filled(data: &StudyData, column: &str) -> bool {
    data.adsl_headers.iter().any(|h| h == column)
        && data
            .subjects
            .iter()
            .any(|s| s.columns.get(column).is_some())
}

/// A reason that says an adverse event.
fn is_adverse_event(reason: &str) -> bool {
    let r = reason.trim().to_ascii_uppercase();
    r == "AE" || r.starts_with("ADVERSE EVENT")
}

/// The cohort's disposition: the end-of-treatment level when reported (else the end-of-study
/// level), and the end-of-study level beside it. Statuses readout does not recognise go to
/// `warnings`, naming the value and the subjects.
pub(super) fn dispositions(
    subjects: CohortSubjects<'_>,
    data: &StudyData,
    cutoff: Option<Date>,
    warnings: &mut Vec<crate::diagnostic::Diagnostic>,
) -> (Option<Disposition>, Option<Disposition>) {
    let mut levels = data
        .disposition
        .iter()
        .map(|level| level_disposition(level, subjects, data, cutoff, warnings));
    let first = levels.next();
    let second = levels.next();
    (first, second)
}

/// One level's counts.
fn level_disposition(
    level: &DispositionLevel,
    subjects: CohortSubjects<'_>,
    data: &StudyData,
    cutoff: Option<Date>,
    warnings: &mut Vec<crate::diagnostic::Diagnostic>,
) -> Disposition {
    let has_trtsdt = data.adsl_headers.iter().any(|h| h == "TRTSDT");
    let reasons_given = level.reason.as_deref().is_some_and(|c| filled(data, c));
    let only_level = data.disposition.len() == 1;
    // Discontinuation because of adverse events, at this level: the level's reason (ADVERSE
    // EVENT), else DSRAEFL (at the study level, or the only one), else at the end of
    // treatment an AE with action DRUG WITHDRAWN (ADAE AEACN).
    let ae_flag = (!reasons_given && (level.level == Level::Study || only_level))
        .then(|| "DSRAEFL".to_string())
        .filter(|c| filled(data, c));
    let withdrawn: Option<rustc_hash::FxHashSet<&str>> = (!reasons_given
        && ae_flag.is_none()
        && (level.level == Level::Treatment || only_level)
        && data.adae_columns.action)
        .then(|| {
            data.adverse_events
                .iter()
                .filter(|e| e.action == crate::model::AeAction::Withdrawn)
                .map(|e| e.usubjid.as_str())
                .collect()
        });
    let ae_source = reasons_given
        .then(|| level.reason.clone())
        .flatten()
        .or_else(|| ae_flag.clone())
        .or_else(|| withdrawn.as_ref().map(|_| "AEACN".to_string()));
    let mut counts = Disposition {
        level: match level.level {
            Level::Treatment => "treatment",
            Level::Study => "study",
        }
        .to_string(),
        label: level.label.clone(),
        total: 0,
        status_column: level.status.clone(),
        reason_column: level.reason.clone(),
        completed: 0,
        discontinued: 0,
        ongoing: 0,
        not_treated: (level.level == Level::Treatment).then_some(0),
        other: Vec::new(),
        reasons: Vec::new(),
        discontinued_ae: ae_source.as_ref().map(|_| 0),
        discontinued_ae_source: ae_source,
    };
    let mut reasons: IndexMap<String, usize> = IndexMap::new();
    let mut other: IndexMap<String, Vec<&str>> = IndexMap::new();
    for s in subjects.iter() {
        counts.total += 1;
        let get = |c: &Option<String>| c.as_deref().and_then(|c| s.columns.get(c)).unwrap_or("");
        let reason = get(&level.reason).trim();
        let ended_after_cut = match (cutoff, &level.date, level.level) {
            (_, _, Level::Treatment) => s.treated_past_cutoff,
            (Some(cut), Some(column), Level::Study) => s
                .columns
                .get(column)
                .and_then(|d| crate::model::parse_iso_date(d.trim()))
                .is_some_and(|d| d > cut),
            _ => false,
        };
        let state = if level.level == Level::Treatment && has_trtsdt && s.trt_start.is_none() {
            State::NotTreated
        } else if ended_after_cut {
            State::Ongoing
        } else if level.status.is_some() {
            read_status(level, get(&level.status))
        } else if reason.eq_ignore_ascii_case("COMPLETED") {
            State::Completed
        } else if reason.is_empty() {
            State::Ongoing
        } else {
            State::Discontinued
        };
        match &state {
            State::Completed => counts.completed += 1,
            State::Ongoing => counts.ongoing += 1,
            State::NotTreated => {
                if let Some(n) = &mut counts.not_treated {
                    *n += 1;
                }
            }
            State::Other(value) => other.entry(value.clone()).or_default().push(&s.usubjid),
            State::Discontinued => {
                counts.discontinued += 1;
                if level.reason.is_some() {
                    let reason = if reason.is_empty() || reason.eq_ignore_ascii_case("COMPLETED") {
                        "not given"
                    } else {
                        reason
                    };
                    *reasons.entry(reason.to_string()).or_default() += 1;
                }
            }
        }
        let by_ae = match (&ae_flag, &withdrawn, reasons_given) {
            (_, _, true) => state == State::Discontinued && is_adverse_event(reason),
            (Some(flag), _, false) => s.columns.get(flag).is_some_and(|v| v.trim() == "Y"),
            (None, Some(ids), false) => ids.contains(&*s.usubjid),
            (None, None, false) => false,
        };
        if let Some(n) = &mut counts.discontinued_ae {
            *n += usize::from(by_ae);
        }
    }
    counts.reasons = reasons
        .into_iter()
        .map(|(reason, n)| ReasonCount { reason, n })
        .collect();
    counts
        .reasons
        .sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.reason.cmp(&b.reason)));
    for (value, ids) in other {
        let text = format!(
            "{} status `{value}` (ADSL {}) is not one readout reads (COMPLETED, DISCONTINUED, \
             ONGOING{}); {} subject(s) are counted apart as \"{value}\": {}",
            level.label,
            level.status.as_deref().unwrap_or(""),
            if level.flag {
                ", or Y/N"
            } else {
                ", EARLY TERMINATION, NOT TREATED, ..."
            },
            ids.len(),
            first_names(&ids[..ids.len().min(NAMES_LISTED)], ids.len())
        );
        warnings.push(
            crate::diagnostic::Diagnostic::warning(
                crate::diagnostic::Kind::StatusUnrecognised,
                text,
            )
            .subjects(ids.iter().take(NAMES_LISTED)),
        );
        counts.other.push(ReasonCount {
            reason: value,
            n: ids.len(),
        });
    }
    counts
}

/// How a subject's treatment duration is found (docs/OUTPUTS.md, `exposure`): ADSL's
/// `TRTDURD` (else `TRTDUR`) when given, never past the cut-off; else TRTEDT − TRTSDT + 1;
/// else, for a subject still on treatment, to the cut-off.
pub struct DurationRule<'a> {
    /// The ADSL columns a duration in days is read from, in order (those ADSL has).
    columns: Vec<&'static str>,
    /// The end-of-treatment level, whose status says whether treatment ended.
    treatment: Option<&'a DispositionLevel>,
    cutoff: Option<Date>,
}

/// A subject's treatment duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Duration {
    /// In days; `ongoing`: still on treatment (no end recorded), counted to the cut-off or
    /// as ADSL's duration gives it.
    Days { days: f64, ongoing: bool },
    /// Treatment recorded as ended without a TRTEDT (and no ADSL duration): not counted.
    EndedWithoutDate,
    /// No TRTSDT, or still on treatment without a cut-off or an ADSL duration.
    Missing,
}

impl<'a> DurationRule<'a> {
    /// The rule of a study's data at a cut-off.
    pub fn of(data: &'a StudyData, cutoff: Option<Date>) -> DurationRule<'a> {
        DurationRule {
            columns: ["TRTDURD", "TRTDUR"]
                .into_iter()
                .filter(|c| data.adsl_headers.iter().any(|h| h == c))
                .collect(),
            treatment: data
                .disposition
                .iter()
                .find(|l| l.level == Level::Treatment && l.status.is_some()),
            cutoff,
        }
    }

    /// Where the columns came from, in words.
    fn source(&self) -> String {
        match self.columns.first() {
            Some(c) => format!("{c}, else TRTEDT − TRTSDT + 1"),
            None => "TRTEDT − TRTSDT + 1".to_string(),
        }
    }

    /// Whether the subject's end of treatment is recorded (the treatment level's status says
    /// completed or discontinued, and not after the cut-off).
    fn ended(&self, s: &Subject) -> bool {
        let Some(level) = self.treatment else {
            return false;
        };
        let status = level
            .status
            .as_deref()
            .and_then(|c| s.columns.get(c))
            .unwrap_or("");
        !s.treated_past_cutoff
            && matches!(
                read_status(level, status),
                State::Completed | State::Discontinued
            )
    }

    /// Whether the treatment level's status says the subject is still on treatment
    /// (`ONGOING`): sponsors fill TRTEDT with the last dose so far for them.
    fn said_ongoing(&self, s: &Subject) -> bool {
        let Some(level) = self.treatment else {
            return false;
        };
        let status = level
            .status
            .as_deref()
            .and_then(|c| s.columns.get(c))
            .unwrap_or("");
        read_status(level, status) == State::Ongoing
    }

    /// The subject's duration.
    pub fn duration(&self, s: &Subject) -> Duration {
        let Some(start) = s.trt_start else {
            return Duration::Missing;
        };
        let ongoing = (s.trt_end.is_none() && !self.ended(s))
            || s.treated_past_cutoff
            || self.said_ongoing(s);
        // ADSL's duration is the sponsor's, at their cut: never past this cut-off.
        let limit = self.cutoff.map(|cut| (cut - start).num_days() as f64 + 1.0);
        for c in &self.columns {
            if let Some(v) = s.columns.get(c).and_then(|v| v.trim().parse::<f64>().ok()) {
                if v.is_finite() && v >= 0.0 {
                    let days = limit.map_or(v, |l| v.min(l));
                    return Duration::Days { days, ongoing };
                }
            }
        }
        match (s.trt_end, self.cutoff) {
            (Some(end), _) => Duration::Days {
                days: (end - start).num_days() as f64 + 1.0,
                ongoing: false,
            },
            (None, _) if !ongoing => Duration::EndedWithoutDate,
            (None, Some(cut)) if cut >= start => Duration::Days {
                days: (cut - start).num_days() as f64 + 1.0,
                ongoing: true,
            },
            _ => Duration::Missing,
        }
    }

    /// The subject's duration in days, if it has one.
    pub fn days(&self, s: &Subject) -> Option<f64> {
        match self.duration(s) {
            Duration::Days { days, .. } => Some(days),
            _ => None,
        }
    }
}

/// The safety population's exposure in `time_unit`; `None` when nobody has a duration.
/// Subjects whose treatment is recorded as ended without a TRTEDT go to `warnings`.
pub(super) fn exposure(
    subjects: CohortSubjects<'_>,
    data: &StudyData,
    cutoff: Option<Date>,
    unit_days: f64,
    warnings: &mut Vec<crate::diagnostic::Diagnostic>,
) -> Option<Exposure> {
    let rule = DurationRule::of(data, cutoff);
    let mut days = Vec::new();
    let (mut ongoing, mut missing) = (0, 0);
    let mut undated: Vec<&str> = Vec::new();
    for s in subjects.iter().filter(|s| s.safety) {
        match rule.duration(s) {
            Duration::Days {
                days: d,
                ongoing: on,
            } => {
                days.push(d);
                ongoing += usize::from(on);
            }
            Duration::EndedWithoutDate => {
                missing += 1;
                undated.push(&s.usubjid);
            }
            Duration::Missing => missing += 1,
        }
    }
    if !undated.is_empty() {
        warnings.push(
            crate::diagnostic::Diagnostic::warning(
                crate::diagnostic::Kind::TreatmentEndUndated,
                format!(
                    "{} subject(s) of the safety population have no TRTEDT although their treatment is \
                     recorded as ended ({}); their treatment duration is not counted: {}",
                    undated.len(),
                    rule.treatment
                        .and_then(|l| l.status.as_deref())
                        .unwrap_or("EOTSTT"),
                    first_names(&undated[..undated.len().min(NAMES_LISTED)], undated.len())
                ),
            )
            .subjects(undated.iter().take(NAMES_LISTED)),
        );
    }
    if days.is_empty() {
        return None;
    }
    let patient_years = days.iter().sum::<f64>() / 365.25;
    let mut in_unit: Vec<f64> = days.iter().map(|d| d / unit_days).collect();
    in_unit.sort_by(f64::total_cmp);
    // Dose, from ADEX when given, else where ADSL gives it: each summarised over the safety
    // subjects with a value.
    // Dose, from ADEX when given (per drug for a combination, each named with its unit),
    // else where ADSL gives it: each summarised over the safety subjects with a value.
    let mut dose = indexmap::IndexMap::new();
    let mut units = indexmap::IndexMap::new();
    let summarise = |value: &dyn Fn(&Subject) -> Option<f64>| {
        let mut values: Vec<f64> = subjects
            .iter()
            .filter(|s| s.safety)
            .filter_map(value)
            .filter(|v| v.is_finite())
            .collect();
        values.sort_by(f64::total_cmp);
        continuous_summary(&values)
    };
    match &data.dose {
        Some(adex) => {
            for (d, drug) in adex.drugs.iter().enumerate() {
                for (k, c) in DOSE_COLUMNS.iter().enumerate() {
                    let Some(summary) = summarise(&|s| adex.value(&s.usubjid, d, k)) else {
                        continue;
                    };
                    let key = match drug {
                        Some(drug) => format!("{c}, {drug}"),
                        None => c.to_string(),
                    };
                    if let Some(unit) = adex.units.get(d).and_then(|u| u[k].clone()) {
                        units.insert(key.clone(), unit);
                    }
                    dose.insert(key, summary);
                }
            }
        }
        None => {
            for c in DOSE_COLUMNS
                .iter()
                .filter(|c| data.adsl_headers.iter().any(|h| h == *c))
            {
                if let Some(summary) = summarise(&|s| s.columns.get(c)?.trim().parse::<f64>().ok())
                {
                    dose.insert(c.to_string(), summary);
                }
            }
        }
    }
    Some(Exposure {
        dose,
        dose_units: units,
        n: in_unit.len(),
        source: rule.source(),
        duration: continuous_summary(&in_unit)?,
        patient_years,
        ongoing,
        missing,
    })
}

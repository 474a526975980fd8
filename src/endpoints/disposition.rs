//! Disposition and exposure of a cohort (or an arm), from ADSL (docs/OUTPUTS.md): who
//! completed, discontinued (and why, and whether because of adverse events) or is ongoing, and
//! how long the safety population was treated. A number the data cannot give is `null` ("not
//! available"), never a zero.

use super::*;
use crate::results::{Disposition, Exposure, ReasonCount};

/// The ADSL columns disposition and exposure may be read from (kept per subject when present).
pub const COLUMNS: [&str; 11] = [
    "EOSSTT", "EOTSTT", "DCDECOD", "DCSREAS", "DCREASCD", "DSRAEFL", "TRTDURD", "TRTDUR",
    "CUMDOSE", "AVGDD", "RDI",
];

/// The ADSL columns of dose: cumulative dose, average daily dose, relative dose intensity (%).
const DOSE_COLUMNS: [&str; 3] = ["CUMDOSE", "AVGDD", "RDI"];

/// The first of `names` that ADSL has.
fn first_of(headers: &[String], names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|n| headers.iter().any(|h| h == *n))
        .map(|n| n.to_string())
}

/// The ADSL columns of the status and the reason for discontinuation: the config's, else the
/// first of the usual names that ADSL has.
pub fn columns_of(
    headers: &[String],
    config: &crate::config::DataFiles,
) -> (Option<String>, Option<String>) {
    (
        config
            .disposition_status
            .clone()
            .or_else(|| first_of(headers, &["EOSSTT", "EOTSTT"])),
        config
            .disposition_reason
            .clone()
            .or_else(|| first_of(headers, &["DCDECOD", "DCSREAS", "DCREASCD"])),
    )
}

/// The cohort's disposition; `None` when ADSL has neither a status nor a reason column.
pub(super) fn disposition(subjects: CohortSubjects<'_>, data: &StudyData) -> Option<Disposition> {
    let headers = &data.adsl_headers;
    let (status_column, reason_column) = data.disposition_columns.clone();
    if status_column.is_none() && reason_column.is_none() {
        return None;
    }
    let ae_flag = first_of(headers, &["DSRAEFL"]);
    // Without DSRAEFL or a reason: subjects with an adverse event whose action was DRUG
    // WITHDRAWN (ADAE AEACN).
    let withdrawn: Option<rustc_hash::FxHashSet<&str>> =
        (ae_flag.is_none() && reason_column.is_none() && data.adae_has_action).then(|| {
            data.adverse_events
                .iter()
                .filter(|e| e.action == crate::model::AeAction::Withdrawn)
                .map(|e| e.usubjid.as_str())
                .collect()
        });
    let (mut completed, mut discontinued, mut ongoing, mut by_ae) = (0, 0, 0, 0);
    let mut reasons: IndexMap<String, usize> = IndexMap::new();
    let total = subjects.iter().count();
    for s in subjects.iter() {
        let get = |c: &Option<String>| c.as_deref().and_then(|c| s.columns.get(c)).unwrap_or("");
        let status = get(&status_column).trim().to_ascii_uppercase();
        let reason = get(&reason_column).trim();
        let state = match (status_column.is_some(), status.as_str()) {
            (true, "COMPLETED") => "completed",
            (true, "DISCONTINUED") => "discontinued",
            (true, _) => "ongoing",
            // Only a reason: COMPLETED, a reason, or nothing yet.
            (false, _) if reason.eq_ignore_ascii_case("COMPLETED") => "completed",
            (false, _) if reason.is_empty() => "ongoing",
            (false, _) => "discontinued",
        };
        match state {
            "completed" => completed += 1,
            "discontinued" => {
                discontinued += 1;
                let reason = if reason.is_empty() || reason.eq_ignore_ascii_case("COMPLETED") {
                    "not given"
                } else {
                    reason
                };
                *reasons.entry(reason.to_string()).or_default() += 1;
            }
            _ => ongoing += 1,
        }
        by_ae += usize::from(match (&ae_flag, &withdrawn) {
            (Some(flag), _) => s.columns.get(flag).is_some_and(|v| v.trim() == "Y"),
            (None, Some(ids)) => ids.contains(&*s.usubjid),
            (None, None) => state == "discontinued" && reason.eq_ignore_ascii_case("ADVERSE EVENT"),
        });
    }
    let mut reasons: Vec<ReasonCount> = reasons
        .into_iter()
        .map(|(reason, n)| ReasonCount { reason, n })
        .collect();
    reasons.sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.reason.cmp(&b.reason)));
    let ae_source = ae_flag
        .clone()
        .or_else(|| reason_column.clone())
        .or_else(|| withdrawn.as_ref().map(|_| "AEACN".to_string()));
    Some(Disposition {
        total,
        status_column,
        reason_column: reason_column.clone(),
        completed,
        discontinued,
        ongoing,
        reasons: if reason_column.is_some() {
            reasons
        } else {
            Vec::new()
        },
        discontinued_ae: ae_source.as_ref().map(|_| by_ae),
        discontinued_ae_source: ae_source,
    })
}

/// Treatment duration of the safety population in days, and where it came from; `None` for a
/// subject without one (no TRTSDT, or no TRTEDT and no cut-off).
fn duration_days(s: &Subject, cutoff: Option<Date>, columns: &[&str]) -> Option<(f64, bool)> {
    // ADSL's duration is the sponsor's, at their cut: never past this cut-off.
    let limit = match (cutoff, s.trt_start) {
        (Some(cut), Some(start)) => Some((cut - start).num_days() as f64 + 1.0),
        _ => None,
    };
    for c in columns {
        if let Some(v) = s.columns.get(c).and_then(|v| v.trim().parse::<f64>().ok()) {
            if v.is_finite() && v >= 0.0 {
                return Some((limit.map_or(v, |l| v.min(l)), false));
            }
        }
    }
    let start = s.trt_start?;
    match (s.trt_end, cutoff) {
        (Some(end), _) => Some(((end - start).num_days() as f64 + 1.0, false)),
        (None, Some(cut)) if cut >= start => Some(((cut - start).num_days() as f64 + 1.0, true)),
        _ => None,
    }
}

/// The ADSL columns a duration in days is read from, in order (those ADSL has).
pub fn duration_columns(data: &StudyData) -> Vec<&'static str> {
    ["TRTDURD", "TRTDUR"]
        .into_iter()
        .filter(|c| data.adsl_headers.iter().any(|h| h == c))
        .collect()
}

/// A subject's treatment duration in days ([`exposure`]'s rule).
pub fn exposure_days(s: &Subject, cutoff: Option<Date>, columns: &[&str]) -> Option<f64> {
    duration_days(s, cutoff, columns).map(|(d, _)| d)
}

/// The safety population's exposure in `time_unit`; `None` when nobody has a duration.
pub(super) fn exposure(
    subjects: CohortSubjects<'_>,
    data: &StudyData,
    cutoff: Option<Date>,
    unit_days: f64,
) -> Option<Exposure> {
    let columns = duration_columns(data);
    let mut days = Vec::new();
    let (mut ongoing, mut missing) = (0, 0);
    for s in subjects.iter().filter(|s| s.safety) {
        match duration_days(s, cutoff, &columns) {
            Some((d, to_cutoff)) => {
                days.push(d);
                ongoing += usize::from(to_cutoff);
            }
            None => missing += 1,
        }
    }
    if days.is_empty() {
        return None;
    }
    let patient_years = days.iter().sum::<f64>() / 365.25;
    let mut in_unit: Vec<f64> = days.iter().map(|d| d / unit_days).collect();
    in_unit.sort_by(f64::total_cmp);
    // Dose, from ADEX when given, else where ADSL gives it: each summarised over the safety
    // subjects with a value.
    let dose = DOSE_COLUMNS
        .iter()
        .enumerate()
        .filter(|(_, c)| data.dose.is_some() || data.adsl_headers.iter().any(|h| h == *c))
        .filter_map(|(k, c)| {
            let value = |s: &Subject| match &data.dose {
                Some(adex) => adex
                    .get(&*s.usubjid)
                    .and_then(|v| v.get(k).copied().flatten()),
                None => s.columns.get(c)?.trim().parse::<f64>().ok(),
            };
            let mut values: Vec<f64> = subjects
                .iter()
                .filter(|s| s.safety)
                .filter_map(value)
                .filter(|v| v.is_finite())
                .collect();
            values.sort_by(f64::total_cmp);
            Some((c.to_string(), continuous_summary(&values)?))
        })
        .collect();
    Some(Exposure {
        dose,
        n: in_unit.len(),
        source: match columns.first() {
            Some(c) => format!("{c}, else TRTEDT − TRTSDT + 1"),
            None => "TRTEDT − TRTSDT + 1".to_string(),
        },
        duration: continuous_summary(&in_unit)?,
        patient_years,
        ongoing,
        missing,
    })
}

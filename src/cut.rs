//! The data cut-off: the tables as they were known on the cut-off date.
//!
//! Subjects enrolled (or, without an enrolment date, treated) after the cut-off are excluded;
//! assessments, lesion measurements and adverse events dated after it are dropped; a death
//! after it is not an event and the subject is known alive up to the cut-off; ADTTE records
//! whose `ADT` is after it are censored at the cut-off with `AVAL` recomputed from `STARTDT`.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::load::StudyData;
use crate::model::{Date, TteRecord};

/// Returns the study data as of `cutoff` (borrowed unchanged when `None`).
pub fn apply_cutoff(data: &StudyData, cutoff: Option<Date>) -> Result<Cow<'_, StudyData>> {
    let Some(cutoff) = cutoff else {
        return Ok(Cow::Borrowed(data));
    };
    let mut out = StudyData {
        inputs: data.inputs.clone(),
        warnings: data.warnings.clone(),
        has_adtte: data.has_adtte,
        has_adtr: data.has_adtr,
        adtte_file: data.adtte_file.clone(),
        efficacy_flag: data.efficacy_flag.clone(),
        safety_flag: data.safety_flag.clone(),
        vocabulary: data.vocabulary.clone(),
        adsl_headers: data.adsl_headers.clone(),
        adae_has_action: data.adae_has_action,
        dose: data.dose.clone(),
        disposition_columns: data.disposition_columns.clone(),
        ..StudyData::default()
    };
    // Old subject position → new one, for the records that point at subjects (a new
    // position is at most the old one, which fits a record's `u32`).
    let mut position: Vec<Option<u32>> = Vec::with_capacity(data.subjects.len());
    for s in &data.subjects {
        if s.enrolled.or(s.trt_start).is_some_and(|d| d > cutoff) {
            position.push(None);
            continue;
        }
        position.push(u32::try_from(out.subjects.len()).ok());
        let mut s = s.clone();
        if s.death.is_some_and(|d| d > cutoff) {
            s.death = None;
            s.last_alive = Some(cutoff);
        }
        if s.last_alive.is_some_and(|d| d > cutoff) {
            s.last_alive = Some(cutoff);
        }
        if s.trt_end.is_some_and(|d| d > cutoff) {
            s.trt_end = None; // still on treatment at the cut-off
        }
        out.subjects.push(s);
    }
    let kept: HashSet<&str> = out.subjects.iter().map(|s| &*s.usubjid).collect();
    out.assessments = data
        .assessments
        .iter()
        .filter(|a| a.date <= cutoff && kept.contains(a.usubjid.as_str()))
        .cloned()
        .collect();
    // The sponsor's BOR dated after the cut-off is not known at it: the subject is NE.
    let (given, later): (Vec<_>, Vec<_>) = data
        .given_bor
        .iter()
        .filter(|a| kept.contains(a.usubjid.as_str()))
        .partition(|a| a.date <= cutoff);
    out.given_bor = given.into_iter().cloned().collect();
    if !later.is_empty() {
        out.warnings.push(format!(
            "{} subject(s) have their best overall response (as given in ADRS) dated after the \
             cut-off {cutoff}; they count as NE: {}",
            later.len(),
            crate::format::first_names(
                &later
                    .iter()
                    .take(10)
                    .map(|a| a.usubjid.as_str())
                    .collect::<Vec<_>>(),
                later.len()
            )
        ));
    }
    out.lesions = data
        .lesions
        .iter()
        .filter(|l| l.date <= cutoff && kept.contains(l.usubjid.as_str()))
        .cloned()
        .collect();
    out.adverse_events = data
        .adverse_events
        .iter()
        .filter(|e| e.start.is_none_or(|d| d <= cutoff) && kept.contains(e.usubjid.as_str()))
        .cloned()
        .collect();
    out.tte.params = data.tte.params.clone();
    for r in &data.tte.records {
        let Some(subject) = position.get(r.position()).copied().flatten() else {
            continue;
        };
        // The id, for the two messages below only (looking it up per record touched every
        // subject).
        let usubjid = || data.subjects.get(r.position()).map_or("", |s| &*s.usubjid);
        let mut r = r.clone();
        r.subject = subject;
        match (r.start, r.date) {
            (_, Some(adt)) if adt <= cutoff => {}
            (Some(start), Some(adt)) => {
                // Same day-count convention as the record itself: AVAL = ADT − STARTDT (+ 1 when
                // the file counts the start day), recovered from the record's own numbers.
                let offset = r.days - (adt - start).num_days() as f64;
                r.days = (cutoff - start).num_days() as f64 + offset;
                if start > cutoff {
                    // Enrolled by the cut-off, but the time origin (e.g. the first dose) is after
                    // it: no follow-up yet, censored at time 0.
                    r.days = 0.0;
                } else if r.days < 0.0 {
                    return Err(tte_error(
                        data,
                        &r,
                        "AVAL",
                        format!(
                            "subject `{}` parameter `{}`: AVAL does not match ADT − STARTDT \
                             ({} to {}), so it cannot be cut at {cutoff}; expected AVAL = ADT − \
                             STARTDT (+ 1)",
                            usubjid(),
                            data.tte.paramcd(&r),
                            start,
                            r.date.map(|d| d.to_string()).unwrap_or_default()
                        ),
                    ));
                }
                // Censored at the cut-off (a CNSR of 0 would make it an event).
                r.cnsr = r.cnsr.max(1);
                r.date = Some(cutoff);
            }
            (start, _) => {
                return Err(tte_error(
                    data,
                    &r,
                    if start.is_none() { "STARTDT" } else { "ADT" },
                    format!(
                        "subject `{}` parameter `{}` has no STARTDT/ADT, so it cannot be cut at \
                         {cutoff}; expected both columns when a cut-off is requested",
                        usubjid(),
                        data.tte.paramcd(&r)
                    ),
                ))
            }
        }
        out.tte.records.push(r);
    }
    Ok(Cow::Owned(out))
}

/// An ADTTE record that cannot be cut, named by file, line and column (or, for records not read
/// from a file, by table).
fn tte_error(data: &StudyData, r: &TteRecord, column: &str, message: String) -> Error {
    match &data.adtte_file {
        Some(file) if r.line > 0 => Error::cell(file, u64::from(r.line), column, message),
        _ => Error::Other(format!("ADTTE: {message}")),
    }
}

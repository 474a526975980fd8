//! The data cut-off: the tables as they were known on the cut-off date (docs/CONFIG.md, "Data
//! cut-off").
//!
//! Subjects enrolled (or, without an enrolment date, treated) after the cut-off are excluded;
//! assessments, lesion measurements and adverse events dated after it are dropped; a death
//! after it is not an event and the subject is known alive up to the cut-off; treatment that
//! ends after it is ongoing. ADTTE records whose `ADT` is after it are censored, with `AVAL`
//! recomputed from `STARTDT`: endpoints judged at tumour assessments (PFS, DoR, ...) at the
//! subject's last adequate assessment on or before the cut-off, as the snapshot taken at the
//! cut-off would have them; endpoints recorded continuously (OS) at the cut-off, or at the last
//! date known alive when it is before.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::load::StudyData;
use crate::model::{Assessment, Date, TteRecord};

/// What the cut needs to know of the config: which ADTTE parameters are judged at tumour
/// assessments, and which ADRS values are adequate assessments (they document the absence of
/// progression).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CutRules {
    /// PARAMCD → the config key of the endpoint that reads it (`analysis.tte_params.PFS`),
    /// for the parameters censored at the last adequate assessment.
    pub at_assessment: BTreeMap<String, String>,
    /// By ADRS value ([`crate::criteria::Code`]): an adequate assessment.
    pub adequate: Vec<bool>,
    /// ADSL date columns that do not exist at a cut-off before their date (the start of new
    /// anticancer therapy, `analysis.censor_at_new_therapy`).
    pub dates_known_later: Vec<String>,
}

/// Returns the study data as of `cutoff` (borrowed unchanged when `None`).
pub fn apply_cutoff<'a>(
    data: &'a StudyData,
    cutoff: Option<Date>,
    rules: &CutRules,
) -> Result<Cow<'a, StudyData>> {
    let Some(cutoff) = cutoff else {
        return Ok(Cow::Borrowed(data));
    };
    // Every table named: a table added to `StudyData` must be cut here, or said to need none.
    let StudyData {
        subjects,
        efficacy_flag,
        safety_flag,
        adsl_headers,
        disposition,
        assessments,
        given_bor,
        vocabulary,
        tte,
        has_adrs,
        after_cutoff: _,
        has_adtte,
        adtte_file,
        has_adtr,
        adverse_events,
        adae_columns,
        dose,
        lesions,
        inputs,
        row_filters,
        warnings,
    } = data;
    let mut out = StudyData {
        inputs: inputs.clone(),
        row_filters: row_filters.clone(),
        warnings: warnings.clone(),
        has_adrs: *has_adrs,
        after_cutoff: false,
        has_adtte: *has_adtte,
        has_adtr: *has_adtr,
        adtte_file: adtte_file.clone(),
        efficacy_flag: efficacy_flag.clone(),
        safety_flag: safety_flag.clone(),
        vocabulary: vocabulary.clone(),
        adsl_headers: adsl_headers.clone(),
        adae_columns: *adae_columns,
        // Dose summaries are the sponsor's, per subject: kept as given.
        dose: dose.clone(),
        disposition: disposition.clone(),
        subjects: Vec::new(),
        assessments: Vec::new(),
        given_bor: Vec::new(),
        tte: Default::default(),
        adverse_events: Vec::new(),
        lesions: Vec::new(),
    };
    // Old subject position → new one, for the records that point at subjects (a new
    // position is at most the old one, which fits a record's `u32`).
    let mut position: Vec<Option<u32>> = Vec::with_capacity(subjects.len());
    // Whether anything dated after the cut-off was found (the cut changed the data).
    let mut after = false;
    for s in subjects {
        if s.enrolled.or(s.trt_start).is_some_and(|d| d > cutoff) {
            position.push(None);
            after = true;
            continue;
        }
        after |= [s.death, s.last_alive, s.trt_end]
            .iter()
            .any(|d| d.is_some_and(|d| d > cutoff));
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
            s.treated_past_cutoff = true;
        }
        // New therapy started after the cut-off was not known at it (docs/CONFIG.md).
        for column in &rules.dates_known_later {
            let later = s
                .columns
                .get(column)
                .and_then(crate::model::parse_iso_date)
                .is_some_and(|d| d > cutoff);
            if later {
                s.columns.remove(column);
                after = true;
            }
        }
        out.subjects.push(s);
    }
    let kept: HashSet<&str> = out.subjects.iter().map(|s| &*s.usubjid).collect();
    out.assessments = assessments
        .iter()
        .filter(|a| a.date <= cutoff && kept.contains(a.usubjid.as_str()))
        .cloned()
        .collect();
    // The sponsor's BOR dated after the cut-off is not known at it: the subject is NE.
    let (given, later): (Vec<_>, Vec<_>) = given_bor
        .iter()
        .filter(|a| kept.contains(a.usubjid.as_str()))
        .partition(|a| a.date <= cutoff);
    out.given_bor = given.into_iter().cloned().collect();
    if !later.is_empty() {
        out.warnings.push(crate::diagnostic::Diagnostic::warning(
            crate::diagnostic::Kind::GivenBorAfterCutoff,
            format!(
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
        ),
        ));
    }
    out.lesions = lesions
        .iter()
        .filter(|l| l.date <= cutoff && kept.contains(l.usubjid.as_str()))
        .cloned()
        .collect();
    out.adverse_events = adverse_events
        .iter()
        .filter(|e| e.start.is_none_or(|d| d <= cutoff) && kept.contains(e.usubjid.as_str()))
        .cloned()
        .collect();
    after |= out.assessments.len() < assessments.len()
        || !later.is_empty()
        || out.lesions.len() < lesions.len()
        || out.adverse_events.len() < adverse_events.len();
    out.tte.params = tte.params.clone();
    let last_adequate = last_adequate(&out.assessments, rules);
    for r in &tte.records {
        let Some(subject) = position.get(r.position()).copied().flatten() else {
            continue;
        };
        let mut r = r.clone();
        r.subject = subject;
        if r.date.is_none_or(|adt| adt > cutoff) {
            after = true;
            let s = subjects.get(r.position());
            let at = censored_at(data, &r, cutoff, rules, &last_adequate, s)?;
            censor(data, &mut r, cutoff, at)?;
        }
        out.tte.records.push(r);
    }
    out.after_cutoff = after;
    Ok(Cow::Owned(out))
}

/// Per subject, the date of the last adequate assessment on or before the cut-off (the
/// assessments are already cut).
fn last_adequate<'a>(assessments: &'a [Assessment], rules: &CutRules) -> FxHashMap<&'a str, Date> {
    let mut last: FxHashMap<&str, Date> = FxHashMap::default();
    for a in assessments {
        if rules
            .adequate
            .get(a.code.0 as usize)
            .copied()
            .unwrap_or(false)
        {
            let date = last.entry(a.usubjid.as_str()).or_insert(a.date);
            *date = (*date).max(a.date);
        }
    }
    last
}

/// The date a record dated after the cut-off is censored at, by its endpoint's rule.
fn censored_at(
    data: &StudyData,
    r: &TteRecord,
    cutoff: Date,
    rules: &CutRules,
    last_adequate: &FxHashMap<&str, Date>,
    subject: Option<&crate::model::Subject>,
) -> Result<Date> {
    let usubjid = subject.map_or("", |s| &*s.usubjid);
    let paramcd = data.tte.paramcd(r);
    let Some(start) = r.start else {
        return Err(no_dates(data, r, "STARTDT", usubjid, cutoff));
    };
    if r.date.is_none() {
        return Err(no_dates(data, r, "ADT", usubjid, cutoff));
    }
    match rules.at_assessment.get(paramcd) {
        Some(key) => {
            if !data.has_adrs {
                return Err(Error::Other(format!(
                    "key `{key}`: {paramcd} is judged at tumour assessments, so a record dated \
                     after the cut-off {cutoff} (subject `{usubjid}`) is censored at the \
                     subject's last adequate assessment before it, and no ADRS is given; give \
                     `data.adrs`, or say `censor: cutoff` for this endpoint (docs/CONFIG.md)"
                )));
            }
            Ok(last_adequate
                .get(usubjid)
                .copied()
                .filter(|d| *d >= start)
                .unwrap_or(start))
        }
        // Known alive up to the cut-off, or up to the last date seen alive before it.
        None => Ok(subject
            .and_then(|s| s.last_alive)
            .filter(|d| *d < cutoff)
            .map_or(cutoff, |d| d.max(start))),
    }
}

/// The record censored at `at` (on or before the cut-off), its `AVAL` recomputed from
/// `STARTDT` in the record's own day-count convention.
fn censor(data: &StudyData, r: &mut TteRecord, cutoff: Date, at: Date) -> Result<()> {
    let (Some(start), Some(adt)) = (r.start, r.date) else {
        return Ok(());
    };
    // Same day-count convention as the record itself: AVAL = ADT − STARTDT (+ 1 when the file
    // counts the start day), recovered from the record's own numbers.
    let offset = r.days - (adt - start).num_days() as f64;
    if start > cutoff {
        // Enrolled by the cut-off, but the time origin (e.g. the first dose) is after it: no
        // follow-up yet, censored at time 0.
        r.days = 0.0;
    } else {
        r.days = (at - start).num_days() as f64 + offset;
        if r.days < 0.0 {
            let usubjid = data.subjects.get(r.position()).map_or("", |s| &*s.usubjid);
            return Err(tte_error(
                data,
                r,
                "AVAL",
                format!(
                    "subject `{usubjid}` parameter `{}`: AVAL does not match ADT − STARTDT ({start} \
                     to {adt}), so it cannot be cut at {cutoff}; expected AVAL = ADT − STARTDT \
                     (+ 1)",
                    data.tte.paramcd(r),
                ),
            ));
        }
    }
    // Censored (a CNSR of 0 would make it an event, a competing event's mark one still).
    r.cnsr = if r.is_competing() { 1 } else { r.cnsr.max(1) };
    r.date = Some(at.min(cutoff).max(start.min(cutoff)));
    Ok(())
}

/// A record without the dates a cut needs.
fn no_dates(data: &StudyData, r: &TteRecord, column: &str, usubjid: &str, cutoff: Date) -> Error {
    tte_error(
        data,
        r,
        column,
        format!(
            "subject `{usubjid}` parameter `{}` has no STARTDT/ADT, so it cannot be cut at \
             {cutoff}; expected both columns when a cut-off is requested",
            data.tte.paramcd(r)
        ),
    )
}

/// An ADTTE record that cannot be cut, named by file, line and column (or, for records not read
/// from a file, by table).
fn tte_error(data: &StudyData, r: &TteRecord, column: &str, message: String) -> Error {
    match &data.adtte_file {
        Some(file) if r.line > 0 => Error::cell(file, u64::from(r.line), column, message),
        _ => Error::Other(format!("ADTTE: {message}")),
    }
}

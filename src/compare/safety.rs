//! Adverse events of an arm against the reference (docs/OUTPUTS.md): per kind (any TEAE, grade
//! ≥3, serious, any TRAE) and per preferred term, subjects of each arm's safety population with
//! the event, the risk difference with its interval (`analysis.diff_ci`), and the
//! exposure-adjusted incidence rate per 100 patient-years with its exact Poisson interval:
//! subjects with the event over the time at risk, to the first event for them and over the
//! whole treatment for the others.

use crate::diagnostic::{Diagnostic, Kind};
use rustc_hash::FxHashMap;

use super::{statistics_error, Member};
use crate::config::{Analysis, CohortConfig, DiffCi};
use crate::error::Result;
use crate::model::{AdverseEvent, Date};
use crate::results::{AeComparison, AeRisk, AeRiskKind};
use crate::stats::two_by_two::{compare_proportions, Counts};
use crate::stats::{poisson::exact_rate_interval, Ci};

/// The adverse events of a cohort's subjects by `USUBJID`, treatment-emergent only.
pub type AeIndex<'a> = FxHashMap<&'a str, Vec<&'a AdverseEvent>>;

/// Builds the index of treatment-emergent events by subject.
pub fn ae_index(events: &[AdverseEvent]) -> AeIndex<'_> {
    let mut index: AeIndex = FxHashMap::default();
    for e in events.iter().filter(|e| e.emergent) {
        index.entry(e.usubjid.as_str()).or_default().push(e);
    }
    index
}

/// A safety member: its treatment start, exposure in days, and events.
type SafetyMember<'a> = (
    &'a Member,
    Option<Date>,
    Option<f64>,
    &'a [&'a AdverseEvent],
);

/// Warnings about the safety members' dates and exposure: subjects whose events are undated
/// (time at risk their whole exposure), and subjects left out of the rates (no exposure).
fn exposure_notes(safety: &[SafetyMember<'_>]) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    // Events without a start date (or subjects without TRTSDT): when none of a subject's
    // events of a row is dated, its time at risk is its whole exposure (an upper bound, so the
    // rate is a lower bound), and the reader is told how many such subjects there are.
    let undated = safety
        .iter()
        .filter(|(_, start, exposure, own)| {
            exposure.is_some()
                && (own.iter().any(|e| e.start.is_none()) || (start.is_none() && !own.is_empty()))
        })
        .count();
    if undated > 0 {
        notes.push(Diagnostic::warning(
            Kind::AeUndated,
            format!(
                "adverse events: {undated} safety subject(s) have an event without a start date \
             (ASTDT), or no TRTSDT; in the exposure-adjusted incidence rates, a subject none of \
             whose events of a kind or term is dated counts its whole exposure as time at risk \
             (the rate is then a lower bound)"
            ),
        ));
    }
    let unexposed = safety.iter().filter(|(_, _, e, _)| e.is_none()).count();
    if unexposed > 0 {
        notes.push(Diagnostic::warning(
            Kind::ExposureUnknown,
            format!(
            "adverse events: {unexposed} safety subject(s) without a known exposure (treatment \
             dates or duration) left out of the exposure-adjusted incidence rates (they are in \
             the risk differences)"
        ),
        ));
    }
    notes
}

/// A safety member with an event of a term: its place in the safety list and the start of its
/// first such event.
type Having = (u32, Option<Date>);

/// Per term with an event, the safety members who have it (their place in the safety list,
/// in its order) with the start of their first such event; the terms by the subjects who
/// have them, most first, then by term. One pass over the events, so that the rows of 10^5
/// terms cost what their events cost, not terms × events.
fn terms_by_frequency<'e>(safety: &[SafetyMember<'e>]) -> Vec<(&'e str, Vec<Having>)> {
    let mut terms: FxHashMap<&str, Vec<Having>> = FxHashMap::default();
    for (place, (_, _, _, own)) in safety.iter().enumerate() {
        let place = u32::try_from(place).unwrap_or(u32::MAX);
        for e in own.iter() {
            let who = terms.entry(e.term.as_str()).or_default();
            match who.last_mut() {
                Some((p, first)) if *p == place => {
                    *first = match (*first, e.start) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                }
                _ => who.push((place, e.start)),
            }
        }
    }
    let mut terms: Vec<(&str, Vec<Having>)> = terms.into_iter().collect();
    terms.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
    terms
}

/// The comparison of adverse events; `None` when an arm has no safety subject.
pub fn compare_ae(
    two: &super::TwoArms<'_>,
    events: &AeIndex<'_>,
    duration: &dyn Fn(&crate::model::Subject) -> Option<f64>,
    columns: crate::load::AdaeColumns,
    cohort: &CohortConfig,
    settings: &Analysis,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<AeComparison>> {
    // Each safety member once: its exposure in days and its events.
    let safety: Vec<SafetyMember<'_>> = two
        .members
        .iter()
        .filter_map(|m| {
            let subject = two.subject(m).filter(|s| s.safety)?;
            let own = events.get(&*subject.usubjid).map_or(&[][..], Vec::as_slice);
            Some((m, subject.trt_start, duration(subject), own))
        })
        .collect();
    let total = |arm: bool| safety.iter().filter(|(m, ..)| m.in_arm() == arm).count();
    let (n1, n0) = (total(true), total(false));
    if n1 == 0 || n0 == 0 {
        return Ok(None);
    }
    warnings.extend(exposure_notes(&safety));
    let years = |arm: bool| {
        safety
            .iter()
            .filter(|(m, ..)| m.in_arm() == arm)
            .filter_map(|(_, _, exposure, _)| *exposure)
            .sum::<f64>()
            / 365.25
    };
    // The rows: kinds first (those the data can give: no grade ≥3 without grades, no serious
    // without AESER), then every term with an event, most frequent first.
    type Pick = fn(&AdverseEvent) -> bool;
    let kinds: Vec<(AeRiskKind, Pick)> = AeRiskKind::KINDS
        .into_iter()
        .filter_map(|kind| match kind {
            AeRiskKind::AnyTeae => Some((kind, (|_| true) as Pick)),
            AeRiskKind::GradeThreeOrHigher => columns
                .grade
                .then_some((kind, |e| e.grade.is_some_and(|g| g >= 3))),
            AeRiskKind::SeriousTeae => columns.serious.then_some((kind, |e| e.serious)),
            AeRiskKind::AnyTrae => Some((kind, |e| e.related)),
            AeRiskKind::Term => None,
        })
        .collect();
    let terms = terms_by_frequency(&safety);

    let level = settings.ci_level;
    let label = |what: &str| format!("adverse events: {what}");
    // Days at risk of a member with the event first on `first`: to that event (at least a
    // day, at most the exposure); the whole exposure when it cannot be dated.
    let at_risk =
        |trt_start: Option<Date>, first: Option<Date>, exposure: f64| match (first, trt_start) {
            (Some(d), Some(start)) => (((d - start).num_days() + 1).max(1) as f64).min(exposure),
            _ => exposure,
        };
    // Per arm, the exposure of every member whose exposure is known: a term's time at risk
    // is this, less what its members with the event did not spend at risk.
    let mut exposed = [0f64; 2];
    for &(m, _, exposure, _) in &safety {
        exposed[usize::from(m.in_arm())] += exposure.unwrap_or(0.0);
    }
    // Per arm: subjects with the event; and over the subjects whose exposure is known, those
    // with the event and their days at risk (the rate's numerator and time).
    type Tally = ([usize; 2], [usize; 2], [f64; 2]);
    let kind_tally = |hit: &dyn Fn(&AdverseEvent) -> bool| -> Tally {
        let (mut x, mut x_exposed, mut days) = ([0usize; 2], [0usize; 2], [0f64; 2]);
        for &(m, trt_start, exposure, own) in &safety {
            let arm = usize::from(m.in_arm());
            let has = own.iter().any(|e| hit(e));
            x[arm] += usize::from(has);
            let Some(exposure) = exposure else {
                continue;
            };
            let first: Option<Date> = own.iter().filter(|e| hit(e)).filter_map(|e| e.start).min();
            x_exposed[arm] += usize::from(has);
            days[arm] += if has {
                at_risk(trt_start, first, exposure)
            } else {
                exposure
            };
        }
        (x, x_exposed, days)
    };
    let term_tally = |who: &[Having]| -> Tally {
        let (mut x, mut x_exposed, mut days) = ([0usize; 2], [0usize; 2], exposed);
        for &(place, first) in who {
            let Some(&(m, trt_start, exposure, _)) = safety.get(place as usize) else {
                continue;
            };
            let arm = usize::from(m.in_arm());
            x[arm] += 1;
            if let Some(exposure) = exposure {
                x_exposed[arm] += 1;
                days[arm] -= exposure - at_risk(trt_start, first, exposure);
            }
        }
        (x, x_exposed, days)
    };
    let row =
        |kind: AeRiskKind, term: Option<&str>, (x, x_exposed, days): Tally| -> Result<AeRisk> {
            let what = label(term.unwrap_or(kind.label()));
            let cmp =
                compare_proportions(Counts { x: x[1], n: n1 }, Counts { x: x[0], n: n0 }, level)
                    .map_err(statistics_error(cohort, what.clone()))?;
            let interval = match settings.diff_ci {
                DiffCi::Newcombe => cmp.newcombe,
                DiffCi::Wald => cmp.wald,
                DiffCi::Mn => cmp.mn,
            };
            let rate = |arm: usize| -> Result<Option<Ci>> {
                if days[arm] <= 0.0 {
                    return Ok(None);
                }
                let py = days[arm] / 365.25;
                let i = exact_rate_interval(x_exposed[arm], py, level)
                    .map_err(statistics_error(cohort, what.clone()))?;
                Ok(Some(Ci {
                    estimate: 100.0 * x_exposed[arm] as f64 / py,
                    lower: 100.0 * i.lower,
                    upper: 100.0 * i.upper,
                }))
            };
            Ok(AeRisk {
                kind,
                term: term.map(str::to_string),
                n: x[1],
                n_reference: x[0],
                difference: Ci {
                    estimate: cmp.difference,
                    lower: interval.lower,
                    upper: interval.upper,
                },
                eair: rate(1)?,
                eair_reference: rate(0)?,
            })
        };
    let mut rows = Vec::with_capacity(kinds.len() + terms.len());
    for (kind, pick) in kinds {
        rows.push(row(kind, None, kind_tally(&pick))?);
    }
    // A row's intervals are the cost (Miettinen–Nurminen is iterative): terms on the pool.
    use rayon::prelude::*;
    let term_rows = terms
        .par_iter()
        .map(|(term, who)| row(AeRiskKind::Term, Some(term), term_tally(who)))
        .collect::<Result<Vec<AeRisk>>>()?;
    rows.extend(term_rows);
    Ok(Some(AeComparison {
        total: n1,
        total_reference: n0,
        patient_years: years(true),
        patient_years_reference: years(false),
        method: crate::results::DifferenceMethod::unstratified(settings.diff_ci),
        rows,
    }))
}

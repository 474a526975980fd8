//! Best overall response by criteria other than RECIST 1.1 (docs/CRITERIA.md).
//!
//! - iRECIST: an iUPD is confirmed by an iCPD at a later assessment (NE and ND in between
//!   skipped), and reset by a later iSD, iPR, iCR or NON-iCR/NON-iUPD; the record ends at the
//!   confirming iCPD. The rest is RECIST's: iCR/iPR are confirmed by RECIST's rules
//!   (`derive::bor`) on the record read as RECIST (iCR → CR, ..., iUPD and iCPD → PD), where a
//!   later iSD outranks an earlier iUPD. A PD result is iCPD when confirmed, else iUPD.
//! - The other sets ([`Rule::Generic`]): the record ends at the first progression category;
//!   a response holds when confirmed ([`Confirmation`]); otherwise the best stable category
//!   (an unconfirmed response counts as the set's first stable category), counted from
//!   `sd_min_days` after treatment start when the set has that window; then progression; then NE.
//!
//! Each engine also gives the record as RECIST would read it ([`Outcome::as_recist`]), from
//! which PFS and DoR are derived with RECIST's censoring rules: progression is the set's
//! progression (iRECIST: the first iUPD of a confirmed run; an unconfirmed iUPD is neither
//! progression nor an adequate assessment).

use super::bor::{best_overall_response, BestResponse, BorOptions, BorOutcome};
use super::timeline::{add_days, days_between};
use super::{DeriveError, Oddity};
use crate::criteria::{CategoryIndex, Confirmation, Criteria, Kind, Rule, Vocabulary};
use crate::model::{Assessment, Date, Response};

/// How a cohort reads its assessments: its criteria and the vocabulary's codes in them.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    /// The cohort's criteria.
    pub criteria: &'a Criteria,
    /// For each vocabulary code, its category in `criteria` ([`Vocabulary::lookup`]).
    pub lookup: &'a [Option<u8>],
    /// The study's vocabulary, for the values' spellings.
    pub vocabulary: &'a Vocabulary,
    /// With `as-given`: each subject's BOR record from ADRS.
    pub given: Option<&'a std::collections::HashMap<&'a str, &'a Assessment>>,
}

/// A subject's BOR by its criteria.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The category, an index into the criteria's categories.
    pub category: CategoryIndex,
    /// Dates and reason; `bor` is the nearest RECIST category.
    pub bor: BorOutcome,
    /// The record as RECIST reads it, for PFS and DoR.
    pub as_recist: Vec<Assessment>,
}

/// One assessment with its category.
struct Item<'a> {
    a: &'a Assessment,
    cat: usize,
    kind: Kind,
}

impl Reading<'_> {
    fn text(&self, a: &Assessment) -> &str {
        self.vocabulary.text(a.code)
    }

    /// The subject's assessments by date with their categories; a value outside the criteria
    /// or two values on one date are errors.
    fn items<'s>(
        &self,
        usubjid: &str,
        assessments: &'s [Assessment],
    ) -> Result<Vec<Item<'s>>, DeriveError> {
        let mut sorted: Vec<&Assessment> = assessments.iter().collect();
        sorted.sort_by_key(|a| a.date);
        let mut items: Vec<Item<'s>> = Vec::with_capacity(sorted.len());
        for a in sorted {
            let Some(cat) = self.lookup.get(a.code.0 as usize).copied().flatten() else {
                return Err(DeriveError::OutsideCriteria {
                    usubjid: usubjid.to_string(),
                    value: self.text(a).to_string(),
                    date: a.date,
                    expected: self.criteria.expected(),
                });
            };
            let cat = cat as usize;
            // `cat` comes from the lookup made of these criteria.
            let kind =
                self.criteria
                    .categories
                    .get(cat)
                    .map(|c| c.kind)
                    .ok_or(DeriveError::Internal(
                        "an assessment's category is outside its criteria",
                    ))?;
            if let Some(prev) = items.last() {
                if prev.a.date == a.date {
                    if prev.cat != cat {
                        return Err(DeriveError::ConflictingAssessments {
                            usubjid: usubjid.to_string(),
                            date: a.date,
                            first: self.text(prev.a).to_string(),
                            second: self.text(a).to_string(),
                        });
                    }
                    continue;
                }
            }
            items.push(Item { a, cat, kind });
        }
        Ok(items)
    }

    fn code(&self, cat: usize) -> &str {
        self.criteria
            .categories
            .get(cat)
            .map_or("?", |c| c.code.as_str())
    }
}

/// The RECIST category nearest to a category of another set.
fn recist_class(criteria: &Criteria, cat: usize) -> Response {
    let Some(c) = criteria.categories.get(cat) else {
        return Response::NotEvaluable;
    };
    let first_responder = criteria.categories.iter().position(|k| k.responder);
    match c.kind {
        Kind::Response if Some(cat) == first_responder => Response::CompleteResponse,
        Kind::Response if c.responder => Response::PartialResponse,
        Kind::Response | Kind::Stable => Response::StableDisease,
        Kind::NonMeasurable => Response::NonCrNonPd,
        Kind::Progression | Kind::UnconfirmedProgression => Response::ProgressiveDisease,
        Kind::NotEvaluable => Response::NotEvaluable,
        Kind::NotDone => Response::NotDone,
    }
}

fn as_recist(a: &Assessment, response: Response) -> Assessment {
    Assessment {
        response,
        code: response.vocabulary_code(),
        ..a.clone()
    }
}

/// The BOR of one subject's assessments (already cut at the data cut-off) by `reading`'s
/// criteria, which are not RECIST 1.1.
pub fn best_response_by(
    usubjid: &str,
    reference_date: Option<Date>,
    assessments: &[Assessment],
    opts: &BorOptions,
    reading: Reading<'_>,
) -> Result<Outcome, DeriveError> {
    let items = reading.items(usubjid, assessments)?;
    match reading.criteria.rule {
        Rule::Irecist => irecist(reference_date, &items, opts, reading),
        Rule::Generic(confirmation) => generic(reference_date, &items, opts, reading, confirmation),
        Rule::AsGiven => as_given(usubjid, &items, reading),
        // RECIST's own engine is the caller's.
        Rule::Recist => generic(
            reference_date,
            &items,
            opts,
            reading,
            Confirmation::Interval,
        ),
    }
}

fn irecist(
    reference_date: Option<Date>,
    items: &[Item<'_>],
    opts: &BorOptions,
    reading: Reading<'_>,
) -> Result<Outcome, DeriveError> {
    let criteria = reading.criteria;
    // Find the confirmed progression: the first iUPD of a run that an iCPD confirms.
    let mut pending: Option<usize> = None;
    let mut confirmed: Option<(usize, usize)> = None; // (first iUPD, iCPD)
    let mut notes: Vec<String> = Vec::new();
    let mut warnings: Vec<Oddity> = Vec::new();
    for (i, it) in items.iter().enumerate() {
        match it.kind {
            Kind::UnconfirmedProgression => {
                pending.get_or_insert(i);
            }
            Kind::Progression => {
                // The assessment it confirms: the run's latest iUPD.
                let last_iupd = items[..i]
                    .iter()
                    .rev()
                    .find(|x| x.kind == Kind::UnconfirmedProgression)
                    .filter(|_| pending.is_some());
                if let (Some(u), Some((min, max))) = (last_iupd, criteria.iupd_window) {
                    let gap = days_between(u.a.date, it.a.date);
                    if gap < min || gap > max {
                        warnings.push(Oddity::ConfirmedOutsideWindow {
                            code: reading.code(it.cat).to_string(),
                            date: it.a.date,
                            iupd: u.a.date,
                            gap,
                            window: (min, max),
                        });
                    }
                }
                match pending {
                    Some(p) => notes.push(format!(
                        "iUPD on {} confirmed by {} on {}",
                        items[p].a.date,
                        reading.code(it.cat),
                        it.a.date
                    )),
                    None => warnings.push(Oddity::ConfirmedWithoutUnconfirmed {
                        code: reading.code(it.cat).to_string(),
                        date: it.a.date,
                    }),
                }
                confirmed = Some((pending.unwrap_or(i), i));
                break;
            }
            Kind::Response | Kind::Stable | Kind::NonMeasurable => {
                if let Some(p) = pending.take() {
                    notes.push(format!(
                        "iUPD on {} reset by {} on {}",
                        items[p].a.date,
                        reading.code(it.cat),
                        it.a.date
                    ));
                }
            }
            Kind::NotEvaluable | Kind::NotDone => {}
        }
    }
    let end = confirmed.map_or(items.len(), |(_, c)| c + 1);
    let kept = &items[..end];
    // For the BOR: the record read as RECIST, iUPD and iCPD as PD.
    let for_bor: Vec<Assessment> = kept
        .iter()
        .map(|it| as_recist(it.a, recist_class(criteria, it.cat)))
        .collect();
    let mut outcome = best_overall_response(reference_date, &for_bor, opts)?;
    let code_of = |kind: Kind| criteria.categories.iter().position(|c| c.kind == kind);
    let category = match outcome.bor {
        BestResponse::ProgressiveDisease => match confirmed {
            Some(_) => code_of(Kind::Progression),
            None => code_of(Kind::UnconfirmedProgression),
        },
        other => criteria.position(&irecist_code(other)),
    }
    .ok_or(DeriveError::Internal(
        "an iRECIST best overall response is not a category of iRECIST",
    ))?;
    if outcome.bor == BestResponse::ProgressiveDisease {
        // The BOR's date is that of the first iUPD of the run (or the lone iCPD).
        if let Some((p, _)) = confirmed {
            outcome.date = Some(items[p].a.date);
        }
    }
    let mut reason = format!("{}: ", reading.code(category));
    if !notes.is_empty() {
        reason.push_str(&notes.join("; "));
        reason.push_str("; ");
    }
    if pending.is_some() && confirmed.is_none() {
        if let Some(p) = pending {
            reason.push_str(&format!(
                "iUPD on {} neither confirmed nor reset; ",
                items[p].a.date
            ));
        }
    }
    reason.push_str("read as RECIST (iUPD/iCPD as PD): ");
    reason.push_str(&outcome.reason);
    outcome.reason = reason;
    outcome.warnings.extend(warnings);
    // For PFS and DoR: progression only where confirmed, dated at the run's first iUPD.
    let as_recist_record = items
        .iter()
        .enumerate()
        .filter(|(i, _)| confirmed.is_none_or(|(p, _)| *i <= p))
        .map(|(i, it)| {
            let r = match it.kind {
                Kind::UnconfirmedProgression | Kind::Progression => match confirmed {
                    Some((p, _)) if i == p => Response::ProgressiveDisease,
                    _ => Response::NotEvaluable,
                },
                _ => recist_class(criteria, it.cat),
            };
            as_recist(it.a, r)
        })
        .collect();
    Ok(Outcome {
        category: CategoryIndex::at(category),
        bor: outcome,
        as_recist: as_recist_record,
    })
}

/// The sponsor's BOR as recorded; PFS and DoR read the per-visit record by each value's
/// nearest RECIST category.
fn as_given(
    usubjid: &str,
    items: &[Item<'_>],
    reading: Reading<'_>,
) -> Result<Outcome, DeriveError> {
    let criteria = reading.criteria;
    let as_recist_record: Vec<Assessment> = items
        .iter()
        .map(|it| as_recist(it.a, recist_class(criteria, it.cat)))
        .collect();
    let record = reading.given.and_then(|g| g.get(usubjid)).copied();
    let (category, date, reason) = match record {
        Some(a) => {
            let Some(cat) = reading.lookup.get(a.code.0 as usize).copied().flatten() else {
                return Err(DeriveError::OutsideCriteria {
                    usubjid: usubjid.to_string(),
                    value: reading.text(a).to_string(),
                    date: a.date,
                    expected: criteria.expected(),
                });
            };
            let cat = cat as usize;
            (
                cat,
                Some(a.date),
                format!("{} on {} as recorded in ADRS", reading.code(cat), a.date),
            )
        }
        None => (
            criteria.not_evaluable(),
            None,
            "no best overall response recorded in ADRS".to_string(),
        ),
    };
    let responder = criteria
        .categories
        .get(category)
        .is_some_and(|c| c.responder);
    Ok(Outcome {
        category: CategoryIndex::at(category),
        bor: BorOutcome {
            bor: best_response_of(recist_class(criteria, category)),
            date,
            // The record's ADT is the date of the best response (admiralonco's BOR): the
            // origin of the duration of response.
            first_response_date: date.filter(|_| responder),
            reason,
            warnings: Vec::new(),
        },
        as_recist: as_recist_record,
    })
}

/// iRECIST's spelling of a RECIST category.
fn irecist_code(bor: BestResponse) -> String {
    match bor {
        BestResponse::CompleteResponse => "iCR",
        BestResponse::PartialResponse => "iPR",
        BestResponse::StableDisease => "iSD",
        BestResponse::NonCrNonPd => "NON-iCR/NON-iUPD",
        BestResponse::ProgressiveDisease => "iUPD",
        BestResponse::NotEvaluable | BestResponse::NotDone | BestResponse::Missing => "NE",
    }
    .to_string()
}

fn generic(
    reference_date: Option<Date>,
    items: &[Item<'_>],
    opts: &BorOptions,
    reading: Reading<'_>,
    confirmation: Confirmation,
) -> Result<Outcome, DeriveError> {
    let criteria = reading.criteria;
    // The record ends at the first progression.
    let end = items
        .iter()
        .position(|it| it.kind == Kind::Progression)
        .map_or(items.len(), |p| p + 1);
    let items = &items[..end];
    let as_recist_record: Vec<Assessment> = items
        .iter()
        .map(|it| as_recist(it.a, recist_class(criteria, it.cat)))
        .collect();
    let confirmation = if opts.confirmed {
        confirmation
    } else {
        Confirmation::None
    };
    let ne = criteria.not_evaluable();
    let done = |cat: usize, date: Option<Date>, first: Option<Date>, reason: String| Outcome {
        category: CategoryIndex::at(cat),
        bor: BorOutcome {
            bor: best_response_of(recist_class(criteria, cat)),
            date,
            first_response_date: first,
            reason,
            warnings: Vec::new(),
        },
        as_recist: as_recist_record.clone(),
    };
    if items.iter().all(|it| it.kind == Kind::NotDone) {
        return Ok(done(
            ne,
            None,
            None,
            "no post-baseline assessment".to_string(),
        ));
    }
    let held = held_responses(items, opts, reading, confirmation);
    if let Some(&(i, cat, ref why)) = held.iter().min_by_key(|(i, cat, _)| (*cat, *i)) {
        let responder = criteria.categories.get(cat).is_some_and(|c| c.responder);
        let first = held
            .iter()
            .filter(|(_, c, _)| criteria.categories.get(*c).is_some_and(|k| k.responder))
            .map(|(j, _, _)| items[*j].a.date)
            .min();
        let mut out = done(
            cat,
            Some(items[i].a.date),
            if responder { first } else { None },
            why.clone(),
        );
        if responder && first.is_some_and(|f| f < items[i].a.date) {
            out.bor.reason.push_str(&format!(
                "; first confirmed response on {}",
                first.map(|f| f.to_string()).unwrap_or_default()
            ));
        }
        return Ok(out);
    }
    // No response holds: the best stable-like assessment within the window.
    let first_stable = criteria
        .categories
        .iter()
        .position(|c| c.kind == Kind::Stable);
    let window_start = match (criteria.stable_window, reference_date) {
        (true, Some(r)) => add_days(r, opts.sd_min_days),
        _ => None,
    };
    if criteria.stable_window && reference_date.is_none() {
        if let Some(it) = items
            .iter()
            .find(|it| matches!(it.kind, Kind::Response | Kind::Stable | Kind::NonMeasurable))
        {
            return Err(DeriveError::MissingReferenceDate {
                usubjid: it.a.usubjid.clone(),
                response: "stable-disease-like",
                date: it.a.date,
                days: opts.sd_min_days,
            });
        }
    }
    let in_window = |d: Date| window_start.is_none_or(|w| d >= w);
    let stable = items
        .iter()
        .filter_map(|it| {
            let cat = match it.kind {
                Kind::Response => first_stable?,
                Kind::Stable | Kind::NonMeasurable => it.cat,
                _ => return None,
            };
            in_window(it.a.date).then_some((cat, it))
        })
        .min_by_key(|(cat, it)| (*cat, it.a.date));
    if let Some((cat, it)) = stable {
        let why = if it.kind == Kind::Response {
            format!(
                "{} on {} not confirmed: counts as {}",
                reading.code(it.cat),
                it.a.date,
                reading.code(cat)
            )
        } else {
            format!("{} on {}", reading.code(cat), it.a.date)
        };
        let why = match window_start {
            Some(w) => format!(
                "{why} (on or after {w}, {} days from treatment start)",
                opts.sd_min_days
            ),
            None => why,
        };
        return Ok(done(cat, Some(it.a.date), None, why));
    }
    if let Some(it) = items.iter().find(|it| it.kind == Kind::Progression) {
        return Ok(done(
            it.cat,
            Some(it.a.date),
            None,
            format!("{} on {}", reading.code(it.cat), it.a.date),
        ));
    }
    let first = items.iter().find(|it| it.kind != Kind::NotDone);
    Ok(done(
        ne,
        first.map(|it| it.a.date),
        None,
        match first {
            Some(it) if it.kind == Kind::NotEvaluable => {
                format!("only {} or too early assessments", reading.code(it.cat))
            }
            Some(it) => format!(
                "{} on {} is before the stable-disease window",
                reading.code(it.cat),
                it.a.date
            ),
            None => "no post-baseline assessment".to_string(),
        },
    ))
}

/// Each response with the category it holds once confirmed (`confirmation`), and the
/// evidence: (item, category, why).
fn held_responses(
    items: &[Item<'_>],
    opts: &BorOptions,
    reading: Reading<'_>,
    confirmation: Confirmation,
) -> Vec<(usize, usize, String)> {
    let mut held: Vec<(usize, usize, String)> = Vec::new(); // (item, category, why)
    for (i, it) in items.iter().enumerate() {
        if it.kind != Kind::Response {
            continue;
        }
        match confirmation {
            Confirmation::None => held.push((
                i,
                it.cat,
                format!("{} on {}", reading.code(it.cat), it.a.date),
            )),
            Confirmation::Interval => {
                // Held at the worst category from the response to the first assessment at
                // least `confirmation_days` later, when every one of them is a response (NE
                // and ND aside, at most `max_nr_ne` NE).
                let Some(due) = add_days(it.a.date, opts.confirmation_days) else {
                    continue;
                };
                let (mut ne_seen, mut worst) = (0, it.cat);
                for later in &items[i + 1..] {
                    match later.kind {
                        Kind::NotDone => continue,
                        Kind::NotEvaluable => {
                            ne_seen += 1;
                            if ne_seen > opts.max_nr_ne {
                                break;
                            }
                            continue;
                        }
                        Kind::Response => worst = worst.max(later.cat),
                        _ => break,
                    }
                    if later.a.date >= due {
                        held.push((
                            i,
                            worst,
                            format!(
                                "{} on {} confirmed as {} by {} on {} ({} days later)",
                                reading.code(it.cat),
                                it.a.date,
                                reading.code(worst),
                                reading.code(later.cat),
                                later.a.date,
                                days_between(it.a.date, later.a.date)
                            ),
                        ));
                        break;
                    }
                }
            }
            Confirmation::Consecutive => {
                let next = items[i + 1..]
                    .iter()
                    .find(|n| !matches!(n.kind, Kind::NotEvaluable | Kind::NotDone));
                if let Some(next) = next.filter(|n| n.kind == Kind::Response) {
                    let cat = it.cat.max(next.cat);
                    held.push((
                        i,
                        cat,
                        format!(
                            "{} on {} and {} on {}: two consecutive assessments at {} or better",
                            reading.code(it.cat),
                            it.a.date,
                            reading.code(next.cat),
                            next.a.date,
                            reading.code(cat)
                        ),
                    ));
                }
            }
        }
    }
    held
}

fn best_response_of(r: Response) -> BestResponse {
    match r {
        Response::CompleteResponse => BestResponse::CompleteResponse,
        Response::PartialResponse => BestResponse::PartialResponse,
        Response::StableDisease => BestResponse::StableDisease,
        Response::NonCrNonPd => BestResponse::NonCrNonPd,
        Response::ProgressiveDisease => BestResponse::ProgressiveDisease,
        Response::NotEvaluable | Response::NotDone => BestResponse::NotEvaluable,
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_irecist_best_response_is_a_category_of_irecist() {
        let irecist = crate::criteria::Criteria::built_in("irecist").unwrap();
        for bor in BestResponse::ALL {
            assert!(irecist.position(&irecist_code(bor)).is_some(), "{bor:?}");
        }
    }
}

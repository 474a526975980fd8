//! Best overall response (BOR) of one subject from its per-visit overall responses (ADRS
//! `PARAMCD = OVR`), by RECIST 1.1.
//!
//! The rules are those of admiralonco 1.4 (`derive_param_confirmed_bor()` when
//! [`BorOptions::confirmed`] is set, `derive_param_bor()` otherwise, and
//! `derive_param_confirmed_resp()` for [`confirmed_response`]), checked against every
//! admiralonco RECIST case of the shared reference folder (`tests/bor_reference.rs`, which
//! skips, saying so, without it). In short:
//!
//! - A CR is confirmed by the **first** later CR at least `confirmation_days` after it, when every
//!   assessment in between (and the confirming one) is CR or NE, with at most `max_nr_ne` NE.
//! - A PR is confirmed by the first later CR or PR at least `confirmation_days` after it, when the
//!   window holds only CR, PR, SD or NE, at most `max_nr_ne` NE, no SD (one if `accept_sd`), and
//!   no PR after a CR.
//! - Otherwise a CR, PR or SD dated at least `sd_min_days` after the reference date counts as SD,
//!   a NON-CR/NON-PD in that window as NON-CR/NON-PD; then PD (any date), then NE (an NE, or any
//!   of the above before the window), then ND. A subject without assessments is MISSING (or NE
//!   with `missing_as_ne`). The best category wins; ties go to the earliest date.
//! - Without confirmation, CR and PR count at any date; SD and NON-CR/NON-PD need the window;
//!   ND is not ranked, so an ND-only subject is treated as one without assessments.
//!
//! What this module does not do: [`best_overall_response`] keeps assessments after a PD, as
//! admiralonco does without `source_pd` (a later SD can then outrank the PD). readout's pipeline
//! uses [`best_overall_response_to_first_pd`], which drops everything after the first PD first,
//! because under RECIST 1.1 progression ends the response record. Two assessments on one date
//! with the same response are counted once (with a warning); with different responses they are
//! an error. The reference date is the caller's choice (readout uses TRTSDT).

use std::fmt;

use serde::{Serialize, Serializer};

use super::timeline::{add_days, days_between, Timeline};
use super::{DeriveError, Oddity};
use crate::model::{Assessment, Date, Response};

/// A subject's best overall response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BestResponse {
    /// `CR` (confirmed, when confirmation is required).
    CompleteResponse,
    /// `PR` (confirmed, when confirmation is required).
    PartialResponse,
    /// `SD`, including unconfirmed CR/PR at or after the SD window.
    StableDisease,
    /// `NON-CR/NON-PD`: non-measurable disease only.
    NonCrNonPd,
    /// `PD`
    ProgressiveDisease,
    /// `NE`
    NotEvaluable,
    /// `ND`: only assessments not done.
    NotDone,
    /// `MISSING`: no assessment at all.
    Missing,
}

impl BestResponse {
    /// Every category, best first.
    pub const ALL: [BestResponse; 8] = [
        BestResponse::CompleteResponse,
        BestResponse::PartialResponse,
        BestResponse::StableDisease,
        BestResponse::NonCrNonPd,
        BestResponse::ProgressiveDisease,
        BestResponse::NotEvaluable,
        BestResponse::NotDone,
        BestResponse::Missing,
    ];

    /// The ADaM `AVALC` spelling: `CR`, `PR`, `SD`, `NON-CR/NON-PD`, `PD`, `NE`, `ND`, `MISSING`.
    pub fn code(self) -> &'static str {
        match self {
            BestResponse::CompleteResponse => "CR",
            BestResponse::PartialResponse => "PR",
            BestResponse::StableDisease => "SD",
            BestResponse::NonCrNonPd => "NON-CR/NON-PD",
            BestResponse::ProgressiveDisease => "PD",
            BestResponse::NotEvaluable => "NE",
            BestResponse::NotDone => "ND",
            BestResponse::Missing => "MISSING",
        }
    }

    /// CR or PR: counts towards the objective response rate.
    pub fn is_objective_response(self) -> bool {
        matches!(
            self,
            BestResponse::CompleteResponse | BestResponse::PartialResponse
        )
    }

    /// CR, PR, SD or NON-CR/NON-PD: counts towards the disease control rate.
    pub fn is_disease_control(self) -> bool {
        matches!(
            self,
            BestResponse::CompleteResponse
                | BestResponse::PartialResponse
                | BestResponse::StableDisease
                | BestResponse::NonCrNonPd
        )
    }
}

impl fmt::Display for BestResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for BestResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// How the best overall response is derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BorOptions {
    /// CR/PR must be confirmed by a later assessment. Default `true`.
    pub confirmed: bool,
    /// A confirming assessment is at least this many days after the response. Default 28.
    pub confirmation_days: i64,
    /// SD and NON-CR/NON-PD count only at least this many days after the reference date.
    /// Default 42 (admiralonco's predefined RECIST events use 42 days).
    pub sd_min_days: i64,
    /// Most NE assessments allowed in a confirmation window. Default 1.
    pub max_nr_ne: usize,
    /// One SD is allowed in a PR confirmation window. Default `false`.
    pub accept_sd: bool,
    /// A subject without any assessment is NE instead of MISSING. Default `false`.
    pub missing_as_ne: bool,
}

impl Default for BorOptions {
    fn default() -> Self {
        BorOptions {
            confirmed: true,
            confirmation_days: 28,
            sd_min_days: 42,
            max_nr_ne: 1,
            accept_sd: false,
            missing_as_ne: false,
        }
    }
}

impl BorOptions {
    fn validate(&self) -> Result<(), DeriveError> {
        if self.confirmation_days < 0 {
            return Err(DeriveError::InvalidOption {
                name: "confirmation_days",
                value: self.confirmation_days,
                expected: "a number of days >= 0",
            });
        }
        if self.sd_min_days < 0 {
            return Err(DeriveError::InvalidOption {
                name: "sd_min_days",
                value: self.sd_min_days,
                expected: "a number of days >= 0",
            });
        }
        Ok(())
    }
}

/// One subject's best overall response, with the evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BorOutcome {
    /// The category.
    pub bor: BestResponse,
    /// `ADT` of the assessment that gave it (for a confirmed CR/PR the confirmed assessment, not
    /// the confirming one); `None` for MISSING.
    pub date: Option<Date>,
    /// Date of the first CR/PR that counts (confirmed, when confirmation is required): the
    /// origin of the duration of response. `None` unless the BOR is CR or PR.
    pub first_response_date: Option<Date>,
    /// Why, in words, with dates.
    pub reason: String,
    /// Oddities in the data that did not stop the derivation (e.g. a CR followed by a PR).
    pub warnings: Vec<Oddity>,
}

/// Whether a subject has a confirmed objective response (admiralonco
/// `derive_param_confirmed_resp()`): `Y` with the date of the earliest confirmed CR/PR, or `N`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfirmedResponse {
    /// At least one CR or PR is confirmed.
    pub responder: bool,
    /// Date of the earliest confirmed CR/PR.
    pub date: Option<Date>,
    /// Why, in words, with dates.
    pub reason: String,
    /// Oddities in the data that did not stop the derivation.
    pub warnings: Vec<Oddity>,
}

impl ConfirmedResponse {
    /// `Y` or `N`, as ADaM `AVALC`.
    pub fn code(&self) -> &'static str {
        if self.responder {
            "Y"
        } else {
            "N"
        }
    }
}

/// Parses an `AVALC` of an OVR record, naming the subject when the value is outside the RECIST
/// vocabulary (admiralonco stops on such values, e.g. iRECIST's `iCR`). Empty reads as ND, as in
/// [`Response::from_avalc`].
pub fn parse_response(usubjid: &str, avalc: &str) -> Result<Response, DeriveError> {
    Response::from_avalc(avalc).ok_or_else(|| DeriveError::InvalidResponse {
        usubjid: usubjid.to_string(),
        value: avalc.to_string(),
    })
}

/// Fails when there is no assessment at all in a whole data set, as admiralonco's
/// `derive_param_bor()` does: an ADRS without OVR records is almost always a wrong filter or file,
/// not a study in which nobody was assessed.
pub fn require_assessments(assessments: &[Assessment]) -> Result<(), DeriveError> {
    if assessments.is_empty() {
        Err(DeriveError::NoAssessments)
    } else {
        Ok(())
    }
}

/// Date of the subject's first PD assessment.
pub fn first_progression(assessments: &[Assessment]) -> Option<Date> {
    assessments
        .iter()
        .filter(|a| a.response == Response::ProgressiveDisease)
        .map(|a| a.date)
        .min()
}

/// The assessments dated on or before `last` (admiralonco's `source_pd` cut: an assessment on the
/// PD date itself is kept).
pub fn drop_after(assessments: &[Assessment], last: Date) -> Vec<Assessment> {
    assessments
        .iter()
        .filter(|a| a.date <= last)
        .cloned()
        .collect()
}

/// Best overall response as readout's pipeline derives it: assessments after the subject's first
/// PD are ignored (RECIST 1.1: progression ends the response record), then
/// [`best_overall_response`] applies. The reason notes how many assessments were ignored.
pub fn best_overall_response_to_first_pd(
    reference_date: Option<Date>,
    assessments: &[Assessment],
    opts: &BorOptions,
) -> Result<BorOutcome, DeriveError> {
    let Some(pd) = first_progression(assessments) else {
        return best_overall_response(reference_date, assessments, opts);
    };
    let kept = drop_after(assessments, pd);
    let ignored = assessments.len() - kept.len();
    let mut outcome = best_overall_response(reference_date, &kept, opts)?;
    if ignored > 0 {
        outcome.reason.push_str(&format!(
            "; {} after the first PD on {} ignored",
            plural(ignored, "assessment", "assessments"),
            pd
        ));
    }
    Ok(outcome)
}

/// Best overall response of one subject from all of its OVR assessments (any order), with the SD
/// window starting at `reference_date`. Nothing is dropped after a PD; cut the assessments first
/// (see [`drop_after`]) or use [`best_overall_response_to_first_pd`].
///
/// `reference_date` may be `None` only when no assessment's category depends on the window
/// (no assessments, only PD/NE/ND, or a CR/PR that decides the result on its own).
pub fn best_overall_response(
    reference_date: Option<Date>,
    assessments: &[Assessment],
    opts: &BorOptions,
) -> Result<BorOutcome, DeriveError> {
    opts.validate()?;
    let timeline = Timeline::new(assessments)?;
    let window = SdWindow {
        reference: reference_date,
        days: opts.sd_min_days,
    };
    if opts.confirmed {
        confirmed_bor(&timeline, &window, opts)
    } else {
        unconfirmed_bor(&timeline, &window, opts)
    }
}

/// Confirmed objective response of one subject (admiralonco `derive_param_confirmed_resp()`):
/// the same confirmation rules as the confirmed BOR (`confirmation_days`, `max_nr_ne`,
/// `accept_sd`), no reference date and no SD window. Nothing is dropped after a PD.
pub fn confirmed_response(
    assessments: &[Assessment],
    opts: &BorOptions,
) -> Result<ConfirmedResponse, DeriveError> {
    opts.validate()?;
    let timeline = Timeline::new(assessments)?;
    let items = &timeline.items;
    let rules = ConfirmRules::from(opts);
    let mut warnings = timeline.warnings.clone();
    warnings.extend(cr_followed_by_pr(items));
    let verdicts: Vec<Option<Confirmation>> = (0..items.len())
        .map(|i| confirm(items, i, &rules))
        .collect();
    let first_confirmed = verdicts.iter().enumerate().find_map(|(i, v)| match v {
        Some(c @ Confirmation::Confirmed { .. }) => Some((i, *c)),
        _ => None,
    });
    if let Some((i, verdict)) = first_confirmed {
        return Ok(ConfirmedResponse {
            responder: true,
            date: items.get(i).map(|a| a.date),
            reason: describe(items, i, &verdict, &rules),
            warnings,
        });
    }
    let reason = unconfirmed_summary(items, &verdicts, &rules)
        .unwrap_or_else(|| "no CR or PR assessment".to_string());
    Ok(ConfirmedResponse {
        responder: false,
        date: None,
        reason,
        warnings,
    })
}

// ---------------------------------------------------------------------------------------------
// Confirmation of one CR/PR

#[derive(Debug, Clone, Copy)]
struct ConfirmRules {
    confirmation_days: i64,
    max_nr_ne: usize,
    accept_sd: bool,
}

impl From<&BorOptions> for ConfirmRules {
    fn from(o: &BorOptions) -> Self {
        ConfirmRules {
            confirmation_days: o.confirmation_days,
            max_nr_ne: o.max_nr_ne,
            accept_sd: o.accept_sd,
        }
    }
}

/// The verdict on one CR/PR assessment. Indices point into the timeline.
#[derive(Debug, Clone, Copy)]
enum Confirmation {
    Confirmed {
        by: usize,
    },
    /// No qualifying assessment at least `confirmation_days` later.
    NoConfirmatory,
    /// The first qualifying assessment exists, but the window up to it breaks a rule. Later
    /// candidates are not tried (admiral's `filter_joined()` looks at the first one only).
    Broken {
        by: usize,
        why: WindowBreak,
    },
}

#[derive(Debug, Clone, Copy)]
enum WindowBreak {
    NotAllowed { at: usize },
    TooManyNe { count: usize },
    TooManySd { count: usize, first: usize },
    PrAfterCr { pr: usize, cr: usize },
}

/// Verdict for `items[i]`, or `None` when it is not a CR or PR.
fn confirm(items: &[Assessment], i: usize, rules: &ConfirmRules) -> Option<Confirmation> {
    let x = items.get(i)?;
    let is_cr = match x.response {
        Response::CompleteResponse => true,
        Response::PartialResponse => false,
        _ => return None,
    };
    let later = items.get(i + 1..).unwrap_or(&[]);
    let qualifies =
        |r: Response| r == Response::CompleteResponse || (!is_cr && r == Response::PartialResponse);
    let Some(k) = later.iter().position(|a| {
        qualifies(a.response) && days_between(x.date, a.date) >= rules.confirmation_days
    }) else {
        return Some(Confirmation::NoConfirmatory);
    };
    let by = i + 1 + k;
    let window = later.get(..=k).unwrap_or(&[]);
    let broken = |why| Some(Confirmation::Broken { by, why });

    let allowed = |r: Response| match r {
        Response::CompleteResponse | Response::NotEvaluable => true,
        Response::PartialResponse | Response::StableDisease => !is_cr,
        _ => false,
    };
    if let Some(off) = window.iter().position(|a| !allowed(a.response)) {
        return broken(WindowBreak::NotAllowed { at: i + 1 + off });
    }
    let ne = window
        .iter()
        .filter(|a| a.response == Response::NotEvaluable)
        .count();
    if ne > rules.max_nr_ne {
        return broken(WindowBreak::TooManyNe { count: ne });
    }
    if !is_cr {
        let sd = window
            .iter()
            .filter(|a| a.response == Response::StableDisease)
            .count();
        let max_sd = usize::from(rules.accept_sd);
        if sd > max_sd {
            let first = window
                .iter()
                .position(|a| a.response == Response::StableDisease)
                .map_or(by, |off| i + 1 + off);
            return broken(WindowBreak::TooManySd { count: sd, first });
        }
        if let Some(cr_off) = window
            .iter()
            .position(|a| a.response == Response::CompleteResponse)
        {
            if let Some(pr_off) = window
                .iter()
                .skip(cr_off + 1)
                .position(|a| a.response == Response::PartialResponse)
            {
                return broken(WindowBreak::PrAfterCr {
                    pr: i + 1 + cr_off + 1 + pr_off,
                    cr: i + 1 + cr_off,
                });
            }
        }
    }
    Some(Confirmation::Confirmed { by })
}

/// "PR on 2021-02-13 confirmed by PR on 2021-03-27, 42 days later" or why not.
fn describe(
    items: &[Assessment],
    i: usize,
    verdict: &Confirmation,
    rules: &ConfirmRules,
) -> String {
    let Some(x) = items.get(i) else {
        return String::new();
    };
    let head = format!("{} on {}", x.response.code(), x.date);
    let at = |j: usize| {
        items
            .get(j)
            .map(|a| format!("{} on {}", a.response.code(), a.date))
            .unwrap_or_default()
    };
    match *verdict {
        Confirmation::Confirmed { by } => {
            let days = items.get(by).map_or(0, |b| days_between(x.date, b.date));
            format!("{head} confirmed by {}, {days} days later", at(by))
        }
        Confirmation::NoConfirmatory => {
            let wanted = if x.response == Response::CompleteResponse {
                "CR"
            } else {
                "CR or PR"
            };
            format!(
                "{head} not confirmed: no later {wanted} at least {} days after it",
                rules.confirmation_days
            )
        }
        Confirmation::Broken { by, why } => {
            let cause = match why {
                WindowBreak::NotAllowed { at: j } => {
                    format!("{} lies between it and the confirming {}", at(j), at(by))
                }
                WindowBreak::TooManyNe { count } => format!(
                    "{} up to the confirming {} (at most {} allowed)",
                    plural(count, "NE assessment", "NE assessments"),
                    at(by),
                    rules.max_nr_ne
                ),
                WindowBreak::TooManySd { count, first } => {
                    if rules.accept_sd {
                        format!(
                            "{count} SD assessments up to the confirming {} (at most 1 allowed)",
                            at(by)
                        )
                    } else {
                        format!(
                            "{} lies between it and the confirming {} (no SD allowed)",
                            at(first),
                            at(by)
                        )
                    }
                }
                WindowBreak::PrAfterCr { pr, cr } if pr == by => {
                    format!("the confirming {} follows {}", at(pr), at(cr))
                }
                WindowBreak::PrAfterCr { pr, cr } => format!(
                    "{} follows {} before the confirming {}",
                    at(pr),
                    at(cr),
                    at(by)
                ),
            };
            format!("{head} not confirmed: {cause}")
        }
    }
}

/// Why the first CR/PR was not confirmed, plus how many others were not; `None` without CR/PR.
fn unconfirmed_summary(
    items: &[Assessment],
    verdicts: &[Option<Confirmation>],
    rules: &ConfirmRules,
) -> Option<String> {
    let failed: Vec<usize> = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v, Some(c) if !matches!(c, Confirmation::Confirmed { .. })))
        .map(|(i, _)| i)
        .collect();
    let first = *failed.first()?;
    let verdict = verdicts.get(first).copied().flatten()?;
    let mut text = describe(items, first, &verdict, rules);
    if failed.len() > 1 {
        text.push_str(&format!(
            " ({} not confirmed either)",
            plural(failed.len() - 1, "later CR/PR", "later CRs/PRs")
        ));
    }
    Some(text)
}

/// admiralonco warns ("Dataset contains CR records followed by PR") when a PR follows a CR:
/// under RECIST 1.1 a PR after a CR implies the lesions came back, which is usually PD.
fn cr_followed_by_pr(items: &[Assessment]) -> Option<Oddity> {
    let cr = items
        .iter()
        .find(|a| a.response == Response::CompleteResponse)?;
    let pr = items
        .iter()
        .find(|a| a.response == Response::PartialResponse && a.date > cr.date)?;
    Some(Oddity::CrThenPr {
        cr: cr.date,
        pr: pr.date,
    })
}

// ---------------------------------------------------------------------------------------------
// Ranking

/// The SD window: on or after `reference + days`.
struct SdWindow {
    reference: Option<Date>,
    days: i64,
}

impl SdWindow {
    fn contains(&self, usubjid: &str, a: &Assessment) -> Result<bool, DeriveError> {
        match self.reference {
            Some(r) => Ok(days_between(r, a.date) >= self.days),
            None => Err(DeriveError::MissingReferenceDate {
                usubjid: usubjid.to_string(),
                response: a.response.code(),
                date: a.date,
                days: self.days,
            }),
        }
    }

    /// "2020-03-01 (reference date 2020-02-02 + 28 days)".
    fn start(&self) -> String {
        match self.reference {
            Some(r) => match add_days(r, self.days) {
                Some(d) => format!("{d} (reference date {r} + {} days)", self.days),
                None => format!("reference date {r} + {} days", self.days),
            },
            None => format!("reference date + {} days", self.days),
        }
    }
}

/// Category an assessment yields when it is not a confirmed (or, unconfirmed, any) CR/PR:
/// rank and result, per RULES.md Step 2.
fn fallback_rank(
    usubjid: &str,
    a: &Assessment,
    window: &SdWindow,
    unconfirmed: bool,
) -> Result<Option<(u8, BestResponse)>, DeriveError> {
    let ranked = match a.response {
        Response::CompleteResponse | Response::PartialResponse if unconfirmed => {
            // Handled before the fallback; CR/PR count at any date without confirmation.
            return Ok(None);
        }
        Response::CompleteResponse | Response::PartialResponse | Response::StableDisease => {
            if window.contains(usubjid, a)? {
                (3, BestResponse::StableDisease)
            } else {
                (6, BestResponse::NotEvaluable)
            }
        }
        Response::NonCrNonPd => {
            if window.contains(usubjid, a)? {
                (4, BestResponse::NonCrNonPd)
            } else {
                (6, BestResponse::NotEvaluable)
            }
        }
        Response::ProgressiveDisease => (5, BestResponse::ProgressiveDisease),
        Response::NotEvaluable => (6, BestResponse::NotEvaluable),
        Response::NotDone if unconfirmed => return Ok(None),
        Response::NotDone => (7, BestResponse::NotDone),
    };
    Ok(Some(ranked))
}

/// Best fallback candidate: lowest rank, then earliest date (items are in date order).
fn best_fallback(
    usubjid: &str,
    items: &[Assessment],
    window: &SdWindow,
    unconfirmed: bool,
) -> Result<Option<(usize, BestResponse)>, DeriveError> {
    let mut best: Option<(u8, usize, BestResponse)> = None;
    for (i, a) in items.iter().enumerate() {
        if let Some((rank, bor)) = fallback_rank(usubjid, a, window, unconfirmed)? {
            let better = match best {
                Some((r, _, _)) => rank < r,
                None => true,
            };
            if better {
                best = Some((rank, i, bor));
            }
        }
    }
    Ok(best.map(|(_, i, bor)| (i, bor)))
}

/// Words for a fallback result taken from `a`.
fn fallback_reason(
    a: &Assessment,
    bor: BestResponse,
    window: &SdWindow,
    confirmed: bool,
) -> String {
    let what = format!("{} on {}", a.response.code(), a.date);
    let no_response = if confirmed {
        "no confirmed CR/PR"
    } else {
        "no CR/PR"
    };
    match bor {
        BestResponse::StableDisease if a.response == Response::StableDisease => {
            format!("SD on {}, on or after {}", a.date, window.start())
        }
        BestResponse::StableDisease => {
            format!("counted as SD: {what} is on or after {}", window.start())
        }
        BestResponse::NonCrNonPd => format!(
            "NON-CR/NON-PD on {}, on or after {}",
            a.date,
            window.start()
        ),
        BestResponse::ProgressiveDisease => format!(
            "PD on {}: {no_response} and no SD or NON-CR/NON-PD on or after {}",
            a.date,
            window.start()
        ),
        BestResponse::NotEvaluable if a.response == Response::NotEvaluable => format!(
            "NE on {}: {no_response}, no SD, NON-CR/NON-PD or PD that counts",
            a.date
        ),
        BestResponse::NotEvaluable => format!(
            "counted as NE: {what} is before {}, and nothing better counts",
            window.start()
        ),
        BestResponse::NotDone => format!("only ND assessments, the first on {}", a.date),
        other => format!("{} from {what}", other.code()),
    }
}

fn no_assessment_outcome(opts: &BorOptions, reason: &str, warnings: Vec<Oddity>) -> BorOutcome {
    let (bor, reason) = if opts.missing_as_ne {
        (
            BestResponse::NotEvaluable,
            format!("{reason}; counted as NE (missing_as_ne)"),
        )
    } else {
        (BestResponse::Missing, reason.to_string())
    };
    BorOutcome {
        bor,
        date: None,
        first_response_date: None,
        reason,
        warnings,
    }
}

fn confirmed_bor(
    timeline: &Timeline,
    window: &SdWindow,
    opts: &BorOptions,
) -> Result<BorOutcome, DeriveError> {
    let items = &timeline.items;
    let mut warnings = timeline.warnings.clone();
    warnings.extend(cr_followed_by_pr(items));
    if items.is_empty() {
        return Ok(no_assessment_outcome(
            opts,
            "no post-baseline assessment",
            warnings,
        ));
    }
    let rules = ConfirmRules::from(opts);
    let verdicts: Vec<Option<Confirmation>> = (0..items.len())
        .map(|i| confirm(items, i, &rules))
        .collect();
    let confirmed_of = |response: Response| {
        items.iter().zip(&verdicts).position(|(a, v)| {
            a.response == response && matches!(v, Some(Confirmation::Confirmed { .. }))
        })
    };
    let first_confirmed = verdicts
        .iter()
        .position(|v| matches!(v, Some(Confirmation::Confirmed { .. })));
    let first_response_date = first_confirmed.and_then(|i| items.get(i)).map(|a| a.date);

    let chosen = confirmed_of(Response::CompleteResponse)
        .map(|i| (i, BestResponse::CompleteResponse))
        .or_else(|| {
            confirmed_of(Response::PartialResponse).map(|i| (i, BestResponse::PartialResponse))
        });
    if let Some((i, bor)) = chosen {
        let verdict = verdicts.get(i).copied().flatten();
        let mut reason = verdict.map_or_else(String::new, |v| describe(items, i, &v, &rules));
        if bor == BestResponse::CompleteResponse {
            if let Some(first) = first_confirmed.filter(|&f| f < i) {
                if let Some(Some(v)) = verdicts.get(first) {
                    reason.push_str(&format!(
                        "; first confirmed response: {}",
                        describe(items, first, v, &rules)
                    ));
                }
            }
        } else if let Some(cr) = items
            .iter()
            .position(|a| a.response == Response::CompleteResponse)
        {
            if let Some(Some(v)) = verdicts.get(cr) {
                reason.push_str(&format!("; {}", describe(items, cr, v, &rules)));
            }
        }
        return Ok(BorOutcome {
            bor,
            date: items.get(i).map(|a| a.date),
            first_response_date,
            reason,
            warnings,
        });
    }

    let Some((i, bor)) = best_fallback(timeline.id(), items, window, false)? else {
        // Unreachable in practice: every response has a fallback category when confirmed.
        return Ok(no_assessment_outcome(opts, "no assessment ranks", warnings));
    };
    let Some(a) = items.get(i) else {
        return Ok(no_assessment_outcome(opts, "no assessment ranks", warnings));
    };
    let mut reason = String::new();
    if let Some(summary) = unconfirmed_summary(items, &verdicts, &rules) {
        reason.push_str(&summary);
        reason.push_str("; ");
    }
    reason.push_str(&fallback_reason(a, bor, window, true));
    Ok(BorOutcome {
        bor,
        date: Some(a.date),
        first_response_date: None,
        reason,
        warnings,
    })
}

fn unconfirmed_bor(
    timeline: &Timeline,
    window: &SdWindow,
    opts: &BorOptions,
) -> Result<BorOutcome, DeriveError> {
    let items = &timeline.items;
    let warnings = timeline.warnings.clone();
    let ranked: Vec<&Assessment> = items
        .iter()
        .filter(|a| a.response != Response::NotDone)
        .collect();
    if ranked.is_empty() {
        let reason = match items.first() {
            Some(a) => format!(
                "only ND assessments (the first on {}), which the unconfirmed BOR does not rank",
                a.date
            ),
            None => "no post-baseline assessment".to_string(),
        };
        return Ok(no_assessment_outcome(opts, &reason, warnings));
    }
    let first_of = |r: Response| items.iter().find(|a| a.response == r);
    let first_response = items.iter().find(|a| {
        matches!(
            a.response,
            Response::CompleteResponse | Response::PartialResponse
        )
    });
    let response = first_of(Response::CompleteResponse)
        .map(|a| (a, BestResponse::CompleteResponse))
        .or_else(|| {
            first_of(Response::PartialResponse).map(|a| (a, BestResponse::PartialResponse))
        });
    if let Some((a, bor)) = response {
        let mut reason = format!("{} on {} (confirmation not required)", bor.code(), a.date);
        if let Some(first) = first_response.filter(|f| f.date < a.date) {
            reason.push_str(&format!(
                "; first response {} on {}",
                first.response.code(),
                first.date
            ));
        }
        return Ok(BorOutcome {
            bor,
            date: Some(a.date),
            first_response_date: first_response.map(|f| f.date),
            reason,
            warnings,
        });
    }
    let Some((i, bor)) = best_fallback(timeline.id(), items, window, true)? else {
        return Ok(no_assessment_outcome(opts, "no assessment ranks", warnings));
    };
    let Some(a) = items.get(i) else {
        return Ok(no_assessment_outcome(opts, "no assessment ranks", warnings));
    };
    Ok(BorOutcome {
        bor,
        date: Some(a.date),
        first_response_date: None,
        reason: fallback_reason(a, bor, window, false),
        warnings,
    })
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn a(date: &str, avalc: &str) -> Assessment {
        Assessment::recist("S1", d(date), Response::from_avalc(avalc).unwrap())
    }

    #[test]
    fn codes_and_serialisation() {
        let codes: Vec<&str> = BestResponse::ALL.iter().map(|b| b.code()).collect();
        assert_eq!(
            codes,
            [
                "CR",
                "PR",
                "SD",
                "NON-CR/NON-PD",
                "PD",
                "NE",
                "ND",
                "MISSING"
            ]
        );
        assert_eq!(
            serde_json::to_string(&BestResponse::NonCrNonPd).unwrap(),
            "\"NON-CR/NON-PD\""
        );
    }

    #[test]
    fn confirmed_pr_reason_names_both_dates_and_gap() {
        let out = best_overall_response(
            Some(d("2021-01-01")),
            &[a("2021-02-13", "PR"), a("2021-03-27", "PR")],
            &BorOptions::default(),
        )
        .unwrap();
        assert_eq!(out.bor, BestResponse::PartialResponse);
        assert_eq!(
            out.reason,
            "PR on 2021-02-13 confirmed by PR on 2021-03-27, 42 days later"
        );
        assert_eq!(out.first_response_date, Some(d("2021-02-13")));
    }

    #[test]
    fn unconfirmed_pr_reason_names_the_breaking_assessment() {
        let out = best_overall_response(
            Some(d("2021-01-01")),
            &[
                a("2021-02-13", "PR"),
                a("2021-03-05", "SD"),
                a("2021-03-27", "PR"),
            ],
            &BorOptions::default(),
        )
        .unwrap();
        assert_eq!(out.bor, BestResponse::StableDisease);
        assert!(
            out.reason.starts_with(
                "PR on 2021-02-13 not confirmed: SD on 2021-03-05 lies between it and the \
                 confirming PR on 2021-03-27 (no SD allowed)"
            ),
            "{}",
            out.reason
        );
        assert!(out.reason.contains("counted as SD"), "{}", out.reason);
        assert_eq!(out.first_response_date, None);
    }

    #[test]
    fn negative_option_is_an_error() {
        let opts = BorOptions {
            confirmation_days: -1,
            ..BorOptions::default()
        };
        let err = best_overall_response(None, &[], &opts).unwrap_err();
        assert!(matches!(
            err,
            DeriveError::InvalidOption {
                name: "confirmation_days",
                ..
            }
        ));
    }
}

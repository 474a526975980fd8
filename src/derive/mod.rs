//! Per-subject derivations: confirmed best overall response, PFS, OS and DoR.
//!
//! Pure functions over one subject's ADSL record ([`Subject`]) and OVR assessments
//! ([`Assessment`]); no file I/O, no cohort logic. The data are expected to be cut at the data
//! cut-off already. [`derive_subject`] is what the pipeline calls; the pieces are public for
//! QC and for reproducing admiralonco's reference cases:
//!
//! - [`bor`]: best overall response (RECIST 1.1, admiralonco rules) and confirmed response.
//! - [`tte`]: PFS, OS and DoR in days, with FDA 2018 PFS censoring rules.

pub mod bor;
pub mod criteria;
mod error;
mod oddity;
pub mod schedule;
mod timeline;
pub mod tte;

use std::collections::BTreeMap;

use serde::Serialize;

pub use bor::{
    best_overall_response, best_overall_response_to_first_pd, confirmed_response, drop_after,
    first_progression, parse_response, require_assessments, BestResponse, BorOptions, BorOutcome,
    ConfirmedResponse,
};
pub use error::DeriveError;
pub use oddity::Oddity;
pub use tte::{
    duration_of_response, overall_survival, progression_free_survival, PfsOptions, TimeToEvent,
    TteRule,
};

use crate::model::endpoint;
use crate::model::{Assessment, Response, Subject};

/// Options of every per-subject derivation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct DeriveOptions {
    /// Best overall response rules.
    pub bor: BorOptions,
    /// PFS and DoR censoring rules.
    pub pfs: PfsOptions,
}

/// Everything derived for one subject.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DerivedSubject {
    /// `USUBJID`
    pub usubjid: crate::model::SubjectId,
    /// Best overall response (assessments after the first PD ignored; SD window from TRTSDT);
    /// by criteria other than RECIST 1.1, `bor.bor` is the nearest RECIST category.
    pub bor: BorOutcome,
    /// The BOR as an index into the criteria's categories (RECIST 1.1: CR, PR, SD,
    /// NON-CR/NON-PD, PD, NE; ND and no assessment count as NE).
    pub category: crate::criteria::CategoryIndex,
    /// PFS from the origin (TRTSDT, or `PfsOptions::origin`); `None` without it.
    pub pfs: Option<TimeToEvent>,
    /// OS from the origin; `None` without it.
    pub os: Option<TimeToEvent>,
    /// DoR from the first counted response; `None` for non-responders.
    pub dor: Option<TimeToEvent>,
}

impl DerivedSubject {
    /// The subject's time of an [`endpoint::DERIVED`] endpoint, if it has one.
    pub fn endpoint(&self, name: &str) -> Option<&TimeToEvent> {
        match name {
            endpoint::PFS => self.pfs.as_ref(),
            endpoint::OS => self.os.as_ref(),
            endpoint::DOR => self.dor.as_ref(),
            _ => None,
        }
    }
}

/// Derives BOR, PFS, OS and DoR for one subject from its own assessments (any order).
///
/// The BOR ignores assessments after the first PD
/// ([`best_overall_response_to_first_pd`]) and uses TRTSDT as the reference date of the SD
/// window. DoR starts at [`BorOutcome::first_response_date`], so with `opts.bor.confirmed` only
/// confirmed responders have one.
pub fn derive_subject(
    subject: &Subject,
    assessments: &[Assessment],
    opts: &DeriveOptions,
) -> Result<DerivedSubject, DeriveError> {
    if let Some(stray) = assessments.iter().find(|a| *a.usubjid != *subject.usubjid) {
        return Err(DeriveError::MixedSubjects {
            usubjid: subject.usubjid.to_string(),
            other: stray.usubjid.clone(),
        });
    }
    let bor =
        best_overall_response_to_first_pd(sd_reference(subject, opts), assessments, &opts.bor)?;
    let pfs = progression_free_survival(subject, assessments, &opts.pfs)?;
    let os = overall_survival(subject, assessments, &opts.pfs)?;
    let dor = duration_of_response(subject, assessments, bor.first_response_date, &opts.pfs)?;
    Ok(DerivedSubject {
        usubjid: subject.usubjid.clone(),
        category: recist_category(bor.bor),
        bor,
        pfs,
        os,
        dor,
    })
}

/// The date the SD window starts from: TRTSDT, or for a subject never treated the origin of
/// PFS and OS (randomisation), so that a randomised subject's assessments are read.
fn sd_reference(subject: &Subject, opts: &DeriveOptions) -> Option<crate::model::Date> {
    subject
        .trt_start
        .or_else(|| tte::origin_of(subject, &opts.pfs).map(|(d, _)| d))
}

/// A RECIST 1.1 BOR as an index into RECIST 1.1's reported categories.
pub fn recist_category(bor: BestResponse) -> crate::criteria::CategoryIndex {
    crate::criteria::CategoryIndex(match bor {
        BestResponse::CompleteResponse => 0,
        BestResponse::PartialResponse => 1,
        BestResponse::StableDisease => 2,
        BestResponse::NonCrNonPd => 3,
        BestResponse::ProgressiveDisease => 4,
        BestResponse::NotEvaluable | BestResponse::NotDone | BestResponse::Missing => 5,
    })
}

/// [`derive_subject`] by criteria other than RECIST 1.1 (`reading`): the BOR by
/// [`criteria::best_response_by`], PFS and DoR from the record as RECIST reads it (the
/// criteria's progression as PD), OS as always.
pub fn derive_subject_by(
    subject: &Subject,
    assessments: &[Assessment],
    opts: &DeriveOptions,
    reading: criteria::Reading<'_>,
) -> Result<DerivedSubject, DeriveError> {
    if reading.criteria.is_recist() {
        // A study whose other cohorts use other criteria reads their values too: here they
        // are errors, as the reader's are when RECIST 1.1 is all the study uses.
        let others = !reading.vocabulary.recist_only();
        if let Some(a) = assessments
            .iter()
            .find(|a| others && a.code.0 as usize >= Response::COUNT)
        {
            return Err(DeriveError::OutsideCriteria {
                usubjid: subject.usubjid.to_string(),
                value: reading.vocabulary.text(a.code).to_string(),
                date: a.date,
                expected: reading.criteria.expected(),
            });
        }
        return derive_subject(subject, assessments, opts);
    }
    if let Some(stray) = assessments.iter().find(|a| *a.usubjid != *subject.usubjid) {
        return Err(DeriveError::MixedSubjects {
            usubjid: subject.usubjid.to_string(),
            other: stray.usubjid.clone(),
        });
    }
    let outcome = criteria::best_response_by(
        &subject.usubjid,
        sd_reference(subject, opts),
        assessments,
        &opts.bor,
        reading,
    )?;
    let record = &outcome.as_recist;
    let pfs = progression_free_survival(subject, record, &opts.pfs)?;
    let os = overall_survival(subject, assessments, &opts.pfs)?;
    let dor = duration_of_response(subject, record, outcome.bor.first_response_date, &opts.pfs)?;
    Ok(DerivedSubject {
        usubjid: subject.usubjid.clone(),
        bor: outcome.bor,
        category: outcome.category,
        pfs,
        os,
        dor,
    })
}

/// [`derive_subject`] for each of `subjects`, in their order, picking each one's assessments out
/// of `assessments`. Assessments of subjects not listed are ignored: choosing the population
/// (cohort, analysis set) is the caller's business.
pub fn derive_subjects(
    subjects: &[Subject],
    assessments: &[Assessment],
    opts: &DeriveOptions,
) -> Result<Vec<DerivedSubject>, DeriveError> {
    let mut by_subject: BTreeMap<&str, Vec<Assessment>> = BTreeMap::new();
    for a in assessments {
        by_subject
            .entry(a.usubjid.as_str())
            .or_default()
            .push(a.clone());
    }
    subjects
        .iter()
        .map(|s| {
            let own = by_subject
                .get(&*s.usubjid)
                .map_or(&[][..], |v| v.as_slice());
            derive_subject(s, own, opts)
        })
        .collect()
}

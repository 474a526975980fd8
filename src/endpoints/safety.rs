//! Adverse events per cohort: subjects with any TEAE and TRAE, by worst grade (or severity),
//! serious and fatal, and per preferred term.

use super::*;
use crate::model::AeAction;
use crate::results::{AeCounts, AeGrading, Safety, SpecialInterestCounts, TermCounts};

/// A subject's worst adverse event so far (overall, per term or per group of interest): its
/// highest grade, and whether any was serious, fatal or changed the treatment.
#[derive(Default, Clone, Copy)]
struct Worst {
    any: bool,
    grade: u8,
    serious: bool,
    fatal: bool,
    withdrawn: bool,
    reduced: bool,
    interrupted: bool,
}
impl Worst {
    fn add(&mut self, e: &AdverseEvent) {
        self.any = true;
        self.grade = self.grade.max(e.grade.unwrap_or(0));
        self.serious |= e.serious;
        self.fatal |= e.fatal;
        self.withdrawn |= e.action == AeAction::Withdrawn;
        self.reduced |= e.action == AeAction::Reduced;
        self.interrupted |= e.action == AeAction::Interrupted;
    }
}

/// Each subject's worst TEAE and TRAE per term.
type ByTerm<'e> = BTreeMap<(&'e str, &'e str), Worst>;

/// Subjects per preferred term with a TEAE and a TRAE, any grade and grade ≥3 (`None` without
/// grades), most TRAEs first, then most TEAEs, then by term.
fn term_counts(
    (term_teae, term_trae): (&ByTerm<'_>, &ByTerm<'_>),
    soc: &BTreeMap<&str, &str>,
    grades: bool,
) -> Vec<TermCounts> {
    let graded = |n: usize| grades.then_some(n);
    let mut terms: BTreeMap<&str, TermCounts> = BTreeMap::new();
    for (&(term, _), w) in term_teae {
        let t = terms.entry(term).or_insert_with(|| TermCounts {
            term: term.to_string(),
            soc: soc.get(term).map(|s| s.to_string()),
            teae_any: 0,
            teae_grade3plus: graded(0),
            trae_any: 0,
            trae_grade3plus: graded(0),
        });
        t.teae_any += 1;
        if let Some(n) = &mut t.teae_grade3plus {
            *n += usize::from(w.grade >= 3);
        }
    }
    for (&(term, _), w) in term_trae {
        if let Some(t) = terms.get_mut(term) {
            t.trae_any += 1;
            if let Some(n) = &mut t.trae_grade3plus {
                *n += usize::from(w.grade >= 3);
            }
        }
    }
    let mut by_term: Vec<TermCounts> = terms.into_values().collect();
    by_term.sort_by(|x, y| {
        y.trae_any
            .cmp(&x.trae_any)
            .then(y.teae_any.cmp(&x.teae_any))
            .then_with(|| x.term.cmp(&y.term))
    });
    by_term
}

pub(super) fn safety_results(
    subjects: CohortSubjects<'_>,
    events: &[AdverseEvent],
    columns: crate::load::AdaeColumns,
    special_interest: &[crate::config::SpecialInterest],
    sort: crate::config::AeSort,
) -> Safety {
    let total = subjects.iter().filter(|s| s.safety).count();
    // The safety population's ids, only when there are events to look them up for.
    let safety: rustc_hash::FxHashSet<&str> = if events.is_empty() {
        Default::default()
    } else {
        subjects
            .iter()
            .filter(|s| s.safety)
            .map(|s| &*s.usubjid)
            .collect()
    };
    let mut teae: BTreeMap<&str, Worst> = BTreeMap::new();
    let mut trae: BTreeMap<&str, Worst> = BTreeMap::new();
    let mut term_teae: BTreeMap<(&str, &str), Worst> = BTreeMap::new();
    let mut term_trae: BTreeMap<(&str, &str), Worst> = BTreeMap::new();
    let mut soc: BTreeMap<&str, &str> = BTreeMap::new();
    let (mut by_grade, mut by_severity) = (false, false);
    // Per group of special interest, each subject's worst such TEAE.
    let mut of_interest: Vec<BTreeMap<&str, Worst>> = vec![BTreeMap::new(); special_interest.len()];
    let same = crate::model::text::eq_without_case;
    let holds = |g: &crate::config::SpecialInterest, e: &AdverseEvent| {
        g.terms.iter().any(|t| same(t.trim(), e.term.trim()))
            || g.body_system
                .as_deref()
                .is_some_and(|b| e.soc.as_deref().is_some_and(|s| same(s.trim(), b.trim())))
    };
    for e in events {
        if !e.emergent || !safety.contains(e.usubjid.as_str()) {
            continue;
        }
        if e.grade.is_some() {
            by_severity |= e.by_severity;
            by_grade |= !e.by_severity;
        }
        let key = (e.term.as_str(), e.usubjid.as_str());
        teae.entry(&e.usubjid).or_default().add(e);
        term_teae.entry(key).or_default().add(e);
        for (g, worst) in special_interest.iter().zip(&mut of_interest) {
            if holds(g, e) {
                worst.entry(&e.usubjid).or_default().add(e);
            }
        }
        if e.related {
            trae.entry(&e.usubjid).or_default().add(e);
            term_trae.entry(key).or_default().add(e);
        }
        if let Some(s) = &e.soc {
            soc.entry(&e.term).or_insert(s);
        }
    }
    // A count whose column ADAE lacks (or leaves empty) is not available, never 0.
    let count = |m: &BTreeMap<&str, Worst>, known: bool, pick: fn(&Worst) -> bool| {
        known.then(|| m.values().filter(|w| pick(w)).count())
    };
    let counts = |m: &BTreeMap<&str, Worst>| AeCounts {
        any: m.values().filter(|w| w.any).count(),
        grade3plus: count(m, columns.grade, |w| w.grade >= 3),
        grade4plus: count(m, columns.grade, |w| w.grade >= 4),
        serious: count(m, columns.serious, |w| w.serious),
        fatal: count(m, columns.fatal, |w| w.fatal),
        discontinued: count(m, columns.action, |w| w.withdrawn),
        reduced: count(m, columns.action, |w| w.reduced),
        interrupted: count(m, columns.action, |w| w.interrupted),
    };
    let by_term = term_counts((&term_teae, &term_trae), &soc, columns.grade);
    let special_interest = special_interest
        .iter()
        .zip(&of_interest)
        .map(|(g, m)| SpecialInterestCounts {
            label: g.label.trim().to_string(),
            n: m.len(),
            grade3plus: count(m, columns.grade, |w| w.grade >= 3),
            serious: count(m, columns.serious, |w| w.serious),
        })
        .collect();
    // The CSR tables: TEAEs of the safety population by class and term, of each kind the
    // data can tell.
    let emergent = || {
        events
            .iter()
            .filter(|e| e.emergent && safety.contains(e.usubjid.as_str()))
    };
    let kind = |known: bool, pick: fn(&AdverseEvent) -> bool| {
        known.then(|| super::soc::by_soc(emergent().filter(|e| pick(e)), sort))
    };
    let records = |known: bool, pick: fn(&AdverseEvent) -> bool| {
        known.then(|| emergent().filter(|e| pick(e)).count())
    };
    let events_of = crate::results::EventCounts {
        any: emergent().count(),
        serious: records(columns.serious, |e| e.serious),
        discontinued: records(columns.action, |e| e.action == AeAction::Withdrawn),
        fatal: records(columns.fatal, |e| e.fatal),
    };
    let (by_soc, graded) = super::soc::by_soc_and_grade(emergent(), sort);
    let spelled = |mut part: Option<Vec<crate::results::SocCount>>| {
        if let Some(part) = &mut part {
            super::soc::spell_as(part, &by_soc);
        }
        part
    };
    Safety {
        events: events_of,
        serious_by_soc: spelled(kind(columns.serious, |e| e.serious)),
        discontinuation_by_soc: spelled(kind(columns.action, |e| e.action == AeAction::Withdrawn)),
        fatal_by_soc: spelled(kind(columns.fatal, |e| e.fatal)),
        by_soc,
        by_soc_grade: columns.grade.then_some(graded),
        special_interest,
        total,
        teae: counts(&teae),
        trae: counts(&trae),
        by_term,
        grading: if by_severity && !by_grade {
            AeGrading::Severity
        } else {
            AeGrading::Ctcae
        },
    }
}

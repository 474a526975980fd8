//! The results as documents list them: a cohort of more preferred terms than a table can
//! sensibly hold (10^5 distinct `AEDECOD` values, more than MedDRA has preferred terms) has
//! its term listings cut to the [`MAX_LISTED_TERMS`] most frequent, the same terms in every
//! table, arm and comparison, with a warning. results.json and ard.csv keep every term;
//! figures are drawn from the whole results (docs/OUTPUTS.md, "Preferred terms listed").

use std::borrow::Cow;
use std::collections::HashSet;

use crate::diagnostic::{Diagnostic, Kind};
use crate::results::{AeRiskKind, CohortResults, Safety, SocCount, SocGrades};

/// Most preferred terms documents list (a phase 3 trial reports a few hundred to a couple of
/// thousand; MedDRA has about 26,000).
pub const MAX_LISTED_TERMS: usize = 5_000;

/// `results` with their term listings cut to [`MAX_LISTED_TERMS`] (borrowed when none is
/// longer), and the warning saying so.
pub fn listed(results: &CohortResults) -> (Cow<'_, CohortResults>, Option<Diagnostic>) {
    let Some(safety) = results.safety.as_ref() else {
        return (Cow::Borrowed(results), None);
    };
    let longest = std::iter::once(safety)
        .chain(
            results
                .arms
                .iter()
                .filter_map(|a| a.results.safety.as_ref()),
        )
        .map(|s| s.by_term.len())
        .chain(
            results
                .comparisons
                .iter()
                .filter_map(|c| c.safety.as_ref())
                .map(|s| s.rows.len()),
        )
        .max()
        .unwrap_or(0);
    if longest <= MAX_LISTED_TERMS {
        return (Cow::Borrowed(results), None);
    }
    // The terms kept: the cohort's most frequent TEAEs (then TRAEs, then by name).
    let mut order: Vec<&crate::results::TermCounts> = safety.by_term.iter().collect();
    order.sort_by(|x, y| {
        y.teae_any
            .cmp(&x.teae_any)
            .then(y.trae_any.cmp(&x.trae_any))
            .then_with(|| x.term.cmp(&y.term))
    });
    let kept: HashSet<String> = order
        .iter()
        .take(MAX_LISTED_TERMS)
        .map(|t| t.term.clone())
        .collect();
    let all = safety.by_term.len();
    let mut cut = results.clone();
    if let Some(s) = cut.safety.as_mut() {
        keep_terms(s, &kept);
    }
    for arm in &mut cut.arms {
        if let Some(s) = arm.results.safety.as_mut() {
            keep_terms(s, &kept);
        }
    }
    for comparison in &mut cut.comparisons {
        if let Some(s) = comparison.safety.as_mut() {
            s.rows.retain(|r| {
                r.kind != AeRiskKind::Term || r.term.as_ref().is_some_and(|t| kept.contains(t))
            });
        }
    }
    let warning = Diagnostic::warning(
        Kind::ListShortened,
        format!(
            "adverse events: the documents list the {} most frequent of the cohort's {} \
             preferred terms (results.json and ard.csv hold every term); more terms than MedDRA \
             has suggests AEDECOD holds verbatim terms",
            crate::documents::prose::grouped(MAX_LISTED_TERMS as u64),
            crate::documents::prose::grouped(all as u64)
        ),
    )
    .hint("check that ADAE's AEDECOD holds the coded preferred term");
    (Cow::Owned(cut), Some(warning))
}

/// `safety`'s listings of terms with only the terms `kept` (classes keep their own counts).
fn keep_terms(safety: &mut Safety, kept: &HashSet<String>) {
    safety.by_term.retain(|t| kept.contains(&t.term));
    let socs = |list: &mut Vec<SocCount>| {
        for soc in list.iter_mut() {
            soc.terms.retain(|t| kept.contains(&t.term));
        }
    };
    socs(&mut safety.by_soc);
    for list in [
        &mut safety.serious_by_soc,
        &mut safety.discontinuation_by_soc,
        &mut safety.fatal_by_soc,
    ]
    .into_iter()
    .flatten()
    {
        socs(list);
    }
    if let Some(grades) = safety.by_soc_grade.as_mut() {
        for soc in grades.iter_mut() {
            let soc: &mut SocGrades = soc;
            soc.terms.retain(|t| kept.contains(&t.term));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_the_limit_is_listed_and_the_same_terms_everywhere() {
        let term = |i: usize, n: usize| crate::results::TermCounts {
            term: format!("T{i:05}"),
            soc: Some("S".into()),
            teae_any: n,
            teae_grade3plus: None,
            trae_any: 0,
            trae_grade3plus: None,
        };
        let mut results = crate::documents::render::tests::dummy_cohort();
        let by_term: Vec<_> = (0..MAX_LISTED_TERMS + 10)
            .map(|i| term(i, if i == MAX_LISTED_TERMS + 9 { 50 } else { 1 }))
            .collect();
        let soc = SocCount {
            soc: "S".into(),
            subjects: 60,
            events: 60,
            terms: by_term
                .iter()
                .map(|t| crate::results::TermEvents {
                    term: t.term.clone(),
                    subjects: t.teae_any,
                    events: t.teae_any,
                })
                .collect(),
        };
        results.safety = Some(Safety {
            total: 60,
            teae: crate::results::AeCounts::default(),
            trae: crate::results::AeCounts::default(),
            by_term,
            grading: Default::default(),
            special_interest: Vec::new(),
            events: Default::default(),
            by_soc: vec![soc],
            serious_by_soc: None,
            discontinuation_by_soc: None,
            fatal_by_soc: None,
            by_soc_grade: None,
        });
        let (cut, warning) = listed(&results);
        let s = cut.safety.as_ref().unwrap();
        assert_eq!(s.by_term.len(), MAX_LISTED_TERMS);
        // The most frequent, listed last in the input, is kept; the last of the ties is not.
        assert!(s
            .by_term
            .iter()
            .any(|t| t.term == format!("T{:05}", MAX_LISTED_TERMS + 9)));
        assert!(!s
            .by_term
            .iter()
            .any(|t| t.term == format!("T{:05}", MAX_LISTED_TERMS + 8)));
        let in_soc: HashSet<&str> = s.by_soc[0].terms.iter().map(|t| t.term.as_str()).collect();
        let in_list: HashSet<&str> = s.by_term.iter().map(|t| t.term.as_str()).collect();
        assert_eq!(in_soc, in_list);
        assert_eq!(s.by_soc[0].subjects, 60);
        assert!(warning.unwrap().message.contains("5,000 most frequent"));
        // Under the limit, the results themselves.
        let few = crate::documents::render::tests::dummy_cohort();
        assert!(matches!(listed(&few), (Cow::Borrowed(_), None)));
    }
}

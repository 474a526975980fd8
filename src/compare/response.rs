//! ORR and DCR of the two arms compared: the difference with its interval (`diff_ci` without
//! strata; with strata the stratified difference and its stratified Miettinen–Nurminen
//! interval), the odds ratio, and the p-value of the test `response_test` chooses.

use crate::diagnostic::{Diagnostic, Kind};
use std::collections::BTreeMap;

use super::{statistics_error, strata_named, Member};
use crate::config::{Analysis, CohortConfig, DiffCi, ResponseTest};
use crate::criteria::CategoryIndex;
use crate::endpoints::CohortAnalysis;
use crate::error::{Error, Result};
use crate::results::{
    Difference, DifferenceMethod, ProportionDifference, ResponseComparison, TestUsed,
};
use crate::stats::{two_by_two, Ci};

/// Strata with fewer responders than this (both arms together) are named in a warning: the
/// stratified difference and the CMH test rest on few events there.
const FEW_EVENTS: usize = 5;

/// ORR and DCR of the efficacy subjects of the two arms compared; `names` is the comparison's
/// label ("Drug vs Placebo") and the strata's names by number.
pub(super) fn compare_response(
    two: &super::TwoArms<'_>,
    pooled: &CohortAnalysis,
    cohort: &CohortConfig,
    settings: &Analysis,
    names: (&str, &[String]),
    warnings: &mut Vec<Diagnostic>,
) -> Result<ResponseComparison> {
    let (label, stratum_names) = names;
    let criteria = &settings.criteria;
    let efficacy = efficacy_categories(two, pooled, cohort, label)?;
    let orr = |c: CategoryIndex| criteria.is_responder(c);
    let dcr = |c: CategoryIndex| criteria.is_control(c, settings.dcr_includes_non_cr_non_pd);
    let stratified = !cohort.strata.is_empty();
    let named = |numbers: &[u32]| strata_named(numbers, stratum_names);
    let mut notes = Vec::new();
    if stratified {
        let missing = efficacy
            .iter()
            .filter(|(m, _)| m.stratum().is_none())
            .count();
        if missing > 0 {
            notes.push(Diagnostic::warning(Kind::Strata, format!(
                "{label}: ORR and DCR: {missing} efficacy subject(s) without a value of {} left out of the stratified difference and the CMH test",
                cohort.strata_columns().join(", ")
            )));
        }
    }
    let head = notes.len();
    // One endpoint compared; also the strata left out (the same for ORR and DCR: those with
    // subjects of one arm only).
    let mut compare = |responds: &dyn Fn(CategoryIndex) -> bool,
                       what: &str|
     -> Result<(ProportionDifference, Vec<u32>)> {
        let tally = |in_arm: bool| two_by_two::Counts {
            x: efficacy
                .iter()
                .filter(|(m, c)| m.in_arm() == in_arm && responds(*c))
                .count(),
            n: efficacy
                .iter()
                .filter(|(m, _)| m.in_arm() == in_arm)
                .count(),
        };
        let (arm, reference) = (tally(true), tally(false));
        let error = statistics_error(cohort, format!("{label}: {what}"));
        let compared = if arm.n > 0 && reference.n > 0 {
            Some(
                two_by_two::compare_proportions(arm, reference, settings.ci_level)
                    .map_err(&error)?,
            )
        } else {
            None
        };
        // Over the strata: the CMH test and the stratified difference.
        let mut over_strata = None;
        let mut dropped = Vec::new();
        if stratified {
            let (keys, strata): (Vec<u32>, Vec<_>) =
                strata_counts(&efficacy, responds).into_iter().unzip();
            let test = two_by_two::cmh(&strata).map_err(&error)?;
            let common = two_by_two::stratified_mn(&strata, settings.ci_level).map_err(&error)?;
            // Both leave out the same strata: those with an empty arm.
            dropped = test
                .dropped
                .iter()
                .chain(&common.dropped)
                .filter_map(|&k| keys.get(k).copied())
                .collect();
            dropped.sort_unstable();
            dropped.dedup();
            let few: Vec<u32> = keys
                .iter()
                .zip(&strata)
                .filter(|(_, (a, r))| a.n > 0 && r.n > 0 && a.x + r.x < FEW_EVENTS)
                .map(|(&k, _)| k)
                .collect();
            if !few.is_empty() {
                notes.push(Diagnostic::warning(Kind::Strata, format!(
                    "{label}: {what}: {} with fewer than {FEW_EVENTS} responders, where the stratified difference and the CMH test rest on few events: {}",
                    counted(few.len(), "stratum", "strata"),
                    named(&few)
                )));
            }
            if compared.is_some() && common.difference.is_none() {
                notes.push(Diagnostic::warning(Kind::Strata, format!(
                    "{label}: {what} stratified difference not estimable (no stratum holds subjects of both arms); no difference is given"
                )));
            }
            over_strata = Some((test.p, common.difference));
        }
        let p_cmh = over_strata.and_then(|(p, _)| p);
        let test = compared.map(|c| test_used(settings.response_test, stratified, &c));
        let p = match test {
            Some(TestUsed::Chisq) => compared.and_then(|c| c.p_chisq),
            Some(TestUsed::Fisher) => compared.map(|c| c.p_fisher),
            Some(TestUsed::Cmh) => p_cmh,
            None => None,
        };
        if let (Some(test), None) = (test, p) {
            notes.push(untested(label, what, test));
        }
        let difference = difference_of(over_strata.map(|(_, d)| d), compared, settings.diff_ci);
        let compared_rates = ProportionDifference {
            test,
            p,
            n: arm.x,
            total: arm.n,
            n_reference: reference.x,
            total_reference: reference.n,
            difference,
            odds_ratio: compared.and_then(|c| {
                c.odds_ratio.map(|r| Ci {
                    estimate: r.estimate,
                    lower: r.lower,
                    upper: r.upper,
                })
            }),
            p_chisq: compared.and_then(|c| c.p_chisq),
            p_fisher: compared.map(|c| c.p_fisher),
            p_cmh,
        };
        Ok((compared_rates, dropped))
    };
    let (orr, dropped) = compare(&orr, "ORR")?;
    let (dcr, _) = compare(&dcr, "DCR")?;
    if !dropped.is_empty() {
        notes.insert(
            head,
            Diagnostic::warning(
                Kind::Strata,
                format!(
                    "{label}: {} with subjects of one arm only left out of the stratified difference and the CMH test of ORR and DCR: {}",
                    counted(dropped.len(), "stratum", "strata"),
                    named(&dropped)
                ),
            ),
        );
    }
    warnings.extend(notes);
    Ok(ResponseComparison { orr, dcr })
}

/// The efficacy members of the two arms with their response categories. Every member has its
/// derivation (`derived` follows the cohort's members): one without is a bug.
fn efficacy_categories<'t>(
    two: &'t super::TwoArms<'_>,
    pooled: &CohortAnalysis,
    cohort: &CohortConfig,
    label: &str,
) -> Result<Vec<(&'t Member, CategoryIndex)>> {
    two.members
        .iter()
        .filter(|m| two.subject(m).is_some_and(|s| s.efficacy))
        .map(|m| {
            let derived = pooled.derived.get(m.index as usize).ok_or_else(|| {
                Error::Internal(format!(
                    "cohort `{}`, {label}: member {} has no derivation",
                    cohort.id, m.index
                ))
            })?;
            Ok((m, derived.category))
        })
        .collect()
}

/// The warning for a test chosen that has no p-value, and why.
fn untested(label: &str, what: &str, test: TestUsed) -> Diagnostic {
    let why = match test {
        TestUsed::Cmh => "no stratum holds subjects of both arms and of both outcomes",
        _ => "every subject of both arms has the same outcome",
    };
    Diagnostic::warning(
        Kind::NotEstimable,
        format!(
            "{label}: {what} {} test not estimable ({why}); no p-value is given",
            test.short_name()
        ),
    )
}

/// Each stratum's counts of the arm and of the reference: subjects, and those who respond.
fn strata_counts(
    efficacy: &[(&Member, CategoryIndex)],
    responds: &dyn Fn(CategoryIndex) -> bool,
) -> BTreeMap<u32, (two_by_two::Counts, two_by_two::Counts)> {
    let mut strata: BTreeMap<u32, (two_by_two::Counts, two_by_two::Counts)> = BTreeMap::new();
    for (m, c) in efficacy {
        let Some(key) = m.stratum() else {
            continue;
        };
        let empty = two_by_two::Counts { x: 0, n: 0 };
        let entry = strata.entry(key).or_insert((empty, empty));
        let counts = if m.in_arm() {
            &mut entry.0
        } else {
            &mut entry.1
        };
        counts.n += 1;
        counts.x += usize::from(responds(*c));
    }
    strata
}

/// The test whose p-value the documents print (`analysis.response_test`; `auto`: CMH with
/// strata, else Fisher's when an expected count is under 5, else chi-square).
fn test_used(
    setting: ResponseTest,
    stratified: bool,
    c: &two_by_two::ProportionComparison,
) -> TestUsed {
    match setting {
        ResponseTest::Chisq => TestUsed::Chisq,
        ResponseTest::Fisher => TestUsed::Fisher,
        ResponseTest::Cmh => TestUsed::Cmh,
        ResponseTest::Auto if stratified => TestUsed::Cmh,
        ResponseTest::Auto if c.min_expected < 5.0 => TestUsed::Fisher,
        ResponseTest::Auto => TestUsed::Chisq,
    }
}

/// The difference the documents give: with strata the stratified one (`stratified`, `None`
/// without strata), whatever `diff_ci` says (docs/CONFIG.md); else the interval `diff_ci`
/// names.
fn difference_of(
    stratified: Option<Option<Ci>>,
    compared: Option<two_by_two::ProportionComparison>,
    diff_ci: DiffCi,
) -> Option<Difference> {
    match stratified {
        Some(common) => common.map(|d| Difference {
            estimate: d.estimate,
            lower: d.lower,
            upper: d.upper,
            method: DifferenceMethod::MnStratified,
        }),
        None => compared.map(|c| {
            let interval = match diff_ci {
                DiffCi::Newcombe => c.newcombe,
                DiffCi::Wald => c.wald,
                DiffCi::Mn => c.mn,
            };
            let method = DifferenceMethod::unstratified(diff_ci);
            Difference {
                estimate: c.difference,
                lower: interval.lower,
                upper: interval.upper,
                method,
            }
        }),
    }
}

/// "1 stratum", "3 strata".
fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

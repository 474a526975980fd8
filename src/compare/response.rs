//! ORR and DCR of the two arms compared: the difference with its interval (`diff_ci`), the
//! odds ratio, and the p-value of the test `response_test` chooses.

use std::collections::BTreeMap;

use super::{statistics_error, Member};
use crate::config::{Analysis, CohortConfig, DiffCi, ResponseTest};
use crate::endpoints::{bor_category, CohortAnalysis};
use crate::error::Result;
use crate::results::{Difference, ProportionDifference, ResponseComparison, TestUsed};
use crate::stats::{two_by_two, Ci};

/// ORR and DCR of the efficacy subjects of the two arms compared.
pub(super) fn compare_response(
    two: &[Member],
    pooled: &CohortAnalysis,
    cohort: &CohortConfig,
    settings: &Analysis,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<ResponseComparison> {
    let efficacy: Vec<(&Member, &'static str)> = two
        .iter()
        .filter(|m| m.subject.efficacy)
        .map(|m| {
            let category = pooled
                .derived
                .get(m.index as usize)
                .map_or("NE", |d| bor_category(d.bor.bor));
            (m, category)
        })
        .collect();
    let orr = |c: &str| matches!(c, "CR" | "PR");
    let dcr = |c: &str| {
        orr(c) || c == "SD" || (settings.dcr_includes_non_cr_non_pd && c == "NON-CR/NON-PD")
    };
    let mut notes = Vec::new();
    let mut compare =
        |responds: &dyn Fn(&str) -> bool, what: &str| -> Result<ProportionDifference> {
            let tally = |in_arm: bool| two_by_two::Counts {
                x: efficacy
                    .iter()
                    .filter(|(m, c)| m.in_arm == in_arm && responds(c))
                    .count(),
                n: efficacy.iter().filter(|(m, _)| m.in_arm == in_arm).count(),
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
            let p_cmh = if cohort.strata.is_empty() {
                None
            } else {
                let mut strata: BTreeMap<u32, (two_by_two::Counts, two_by_two::Counts)> =
                    BTreeMap::new();
                for (m, c) in &efficacy {
                    let Some(key) = m.stratum else {
                        continue;
                    };
                    let empty = two_by_two::Counts { x: 0, n: 0 };
                    let entry = strata.entry(key).or_insert((empty, empty));
                    let counts = if m.in_arm { &mut entry.0 } else { &mut entry.1 };
                    counts.n += 1;
                    counts.x += usize::from(responds(c));
                }
                let strata: Vec<_> = strata.into_values().collect();
                two_by_two::cmh(&strata).map_err(&error)?.p
            };
            let test = compared.map(|c| match settings.response_test {
                ResponseTest::Chisq => TestUsed::Chisq,
                ResponseTest::Fisher => TestUsed::Fisher,
                ResponseTest::Cmh => TestUsed::Cmh,
                ResponseTest::Auto if !cohort.strata.is_empty() => TestUsed::Cmh,
                ResponseTest::Auto if c.min_expected < 5.0 => TestUsed::Fisher,
                ResponseTest::Auto => TestUsed::Chisq,
            });
            let p = match test {
                Some(TestUsed::Chisq) => compared.and_then(|c| c.p_chisq),
                Some(TestUsed::Fisher) => compared.map(|c| c.p_fisher),
                Some(TestUsed::Cmh) => p_cmh,
                None => None,
            };
            if let (Some(test), None) = (test, p) {
                let why = match test {
                    TestUsed::Cmh => "no stratum holds subjects of both arms and of both outcomes",
                    _ => "every subject of both arms has the same outcome",
                };
                notes.push(format!(
                    "{label}: {what} {} test not estimable ({why}); no p-value is given",
                    test.short_name()
                ));
            }
            Ok(ProportionDifference {
                test,
                p,
                n: arm.x,
                total: arm.n,
                n_reference: reference.x,
                total_reference: reference.n,
                difference: compared.map(|c| {
                    let interval = match settings.diff_ci {
                        DiffCi::Newcombe => c.newcombe,
                        DiffCi::Wald => c.wald,
                    };
                    Difference {
                        estimate: c.difference,
                        lower: interval.lower,
                        upper: interval.upper,
                        method: settings.diff_ci,
                    }
                }),
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
            })
        };
    let compared = ResponseComparison {
        orr: compare(&orr, "ORR")?,
        dcr: compare(&dcr, "DCR")?,
    };
    warnings.extend(notes);
    Ok(compared)
}

//! The arms of a randomised cohort (`cohorts[].arms`, docs/CONFIG.md): each arm analysed as a
//! cohort of its own, and each arm compared with the reference arm on those two arms'
//! subjects (as study reports compare arms pairwise): for every time-to-event endpoint the Cox
//! hazard ratio and the log-rank test, stratified too when the cohort has strata, and the
//! hazard ratio within each subgroup; for ORR and DCR the difference of proportions, the odds
//! ratio, and the chi-square, Fisher and Cochran–Mantel–Haenszel tests. The numbers are in
//! `results.json` (docs/OUTPUTS.md).

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use rustc_hash::FxHashMap;

use crate::cohort::{analyse_members, cohort_index, CutData};
use crate::config::{Analysis, ArmsConfig, CohortConfig, CoxTies, DiffCi, ResponseTest};
use crate::endpoints::{bor_category, CohortAnalysis, Members};
use crate::error::{Error, Result};
use crate::model::Subject;
use crate::results::{
    ArmResults, Comparison, CoxResults, Difference, LogrankResults, ProportionDifference,
    ResponseComparison, StratifiedComparison, SubgroupHr, TestUsed, TteComparison,
};
use crate::stats::{self, two_by_two, Ci, Ties};
use crate::study::LoadedStudy;

/// What comparing a cohort's arms gives.
pub struct ArmsOutcome {
    /// Each arm's results, in the arms' order.
    pub arms: Vec<ArmResults>,
    /// Each arm but the reference against it.
    pub comparisons: Vec<Comparison>,
    /// What the reader should know (an estimate left out, subjects without an arm).
    pub warnings: Vec<String>,
    /// Each arm's Kaplan–Meier fits per endpoint, for the figures by arm.
    pub km: Vec<(String, IndexMap<String, stats::KaplanMeier>)>,
}

/// A member's place in a comparison.
struct Member<'s> {
    /// Position in the cohort's members.
    index: usize,
    /// Whether it is of the arm compared (else of the reference).
    in_arm: bool,
    /// Its stratum (by number), if it has a value of every strata column.
    stratum: Option<u32>,
    subject: &'s Subject,
}

/// Analyses each arm and compares each with the reference, from the cohort's analysis.
pub fn compare_arms<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    config: &ArmsConfig,
    pooled: &CohortAnalysis<'a>,
    settings: &Analysis,
) -> Result<ArmsOutcome> {
    let subjects = &at.data.subjects;
    let k = cohort_index(study, cohort);
    let refused = |key: &str, message: String| Error::Config {
        file: study.config.path.clone(),
        location: format!("key `cohorts[{k}].{key}`: "),
        message,
    };
    let column = config.column.as_str();
    let member = |i: usize| {
        pooled
            .members
            .get(i)
            .and_then(|&global| subjects.get(global as usize))
    };
    // Each member's arm and stratum, looked up once per shared list of ADSL columns (a
    // handful in a study of millions).
    let mut arm_by_list: FxHashMap<usize, Option<&str>> = FxHashMap::default();
    let mut stratum_by_list: FxHashMap<usize, Option<u32>> = FxHashMap::default();
    let mut stratum_numbers: BTreeMap<String, u32> = BTreeMap::new();
    let mut arm_values: Vec<Option<&str>> = Vec::with_capacity(pooled.members.len());
    let mut strata_of: Vec<Option<u32>> = Vec::with_capacity(pooled.members.len());
    for i in 0..pooled.members.len() {
        let Some(s) = member(i) else {
            arm_values.push(None);
            strata_of.push(None);
            continue;
        };
        let list = s.columns.list_id();
        arm_values.push(
            *arm_by_list
                .entry(list)
                .or_insert_with(|| s.columns.get(column)),
        );
        strata_of.push(*stratum_by_list.entry(list).or_insert_with(|| {
            let key = stratum_key(s, &cohort.strata)?;
            let next = stratum_numbers.len() as u32;
            Some(*stratum_numbers.entry(key).or_insert(next))
        }));
    }
    let arm_of = |i: usize| arm_values.get(i).copied().flatten();
    let present: BTreeSet<&str> = (0..pooled.members.len()).filter_map(arm_of).collect();
    if present.is_empty() {
        return Err(refused(
            "arms.column",
            format!("ADSL has no column `{column}` with a value for the cohort's subjects"),
        ));
    }
    let listing = || crate::fits::listing(present.iter().copied());
    let reference = config.reference.as_text();
    if !present.contains(reference.as_str()) {
        return Err(refused(
            "arms.reference",
            format!(
                "no subject of the cohort has {column} = {reference:?}; the cohort's {column} values: {}",
                listing()
            ),
        ));
    }
    let order: Vec<String> = match &config.order {
        Some(order) => {
            let order: Vec<String> = order.iter().map(|a| a.as_text()).collect();
            if let Some(absent) = order.iter().find(|a| !present.contains(a.as_str())) {
                return Err(refused(
                    "arms.order",
                    format!(
                        "no subject of the cohort has {column} = {absent:?}; the cohort's {column} values: {}",
                        listing()
                    ),
                ));
            }
            if let Some(unlisted) = present.iter().find(|a| !order.iter().any(|o| o == *a)) {
                return Err(refused(
                    "arms.order",
                    format!("{column} = {unlisted:?} is not listed; expected every arm"),
                ));
            }
            order
        }
        None => present
            .iter()
            .filter(|a| **a != reference)
            .map(|a| a.to_string())
            .chain(std::iter::once(reference.clone()))
            .collect(),
    };
    for (key, columns) in [("strata", &cohort.strata), ("subgroups", &cohort.subgroups)] {
        for name in columns {
            if !(0..pooled.members.len())
                .any(|i| member(i).is_some_and(|s| s.columns.get(name).is_some()))
            {
                return Err(refused(
                    key,
                    format!("ADSL has no column `{name}` with a value for the cohort's subjects"),
                ));
            }
        }
    }
    let mut warnings = Vec::new();
    if present.len() == 1 {
        warnings.push(format!(
            "the cohort's subjects are all in one arm ({column} = {reference:?}): there is \
             nothing to compare, and the documents are those of a single-arm cohort"
        ));
    }
    let without = (0..pooled.members.len())
        .filter(|&i| arm_of(i).is_none())
        .count();
    if without > 0 {
        warnings.push(format!(
            "{without} subject(s) without a value of {column} are in no arm (they are in the cohort's own numbers)"
        ));
    }

    let mut arms = Vec::with_capacity(order.len());
    let mut km = Vec::with_capacity(order.len());
    for arm in &order {
        let positions: Vec<u32> = (0..pooled.members.len())
            .filter(|&i| arm_of(i) == Some(arm.as_str()))
            .filter_map(|i| pooled.members.get(i).copied())
            .collect();
        let analysis = crate::timing::stage("    arm", || {
            analyse_members(study, at, cohort, Members::Owned(positions))
        })?;
        km.push((arm.clone(), analysis.km));
        arms.push(ArmResults {
            arm: arm.clone(),
            results: analysis.results,
        });
    }

    let mut comparisons = Vec::new();
    for arm in order.iter().filter(|a| **a != reference) {
        let two: Vec<Member> = crate::timing::stage("    two arms", || {
            (0..pooled.members.len())
                .filter_map(|index| {
                    let value = arm_of(index)?;
                    let in_arm = value == arm;
                    (in_arm || value == reference).then(|| {
                        member(index).map(|subject| Member {
                            index,
                            in_arm,
                            stratum: strata_of.get(index).copied().flatten(),
                            subject,
                        })
                    })?
                })
                .collect()
        });
        let label = format!("{arm} vs {reference}");
        let mut tte = IndexMap::new();
        for (e, endpoint) in settings.tte_params.keys().enumerate() {
            let Some(column) = pooled.derived_tte.get(e) else {
                continue;
            };
            let time_of = |m: &Member| column.get(m.index).and_then(|v| v.get());
            if let Some(compared) = crate::timing::stage("    tte comparison", || {
                compare_tte(
                    &two,
                    &time_of,
                    cohort,
                    settings,
                    &label,
                    endpoint,
                    &mut warnings,
                )
            })? {
                tte.insert(endpoint.clone(), compared);
            }
        }
        let response = if pooled.derived.is_empty() {
            None
        } else {
            Some(compare_response(
                &two,
                pooled,
                cohort,
                settings,
                &label,
                &mut warnings,
            )?)
        };
        comparisons.push(Comparison {
            arm: arm.clone(),
            reference: reference.clone(),
            tte,
            response,
        });
    }
    Ok(ArmsOutcome {
        arms,
        comparisons,
        warnings,
        km,
    })
}

/// The stratum of a subject: its values of the strata columns, `None` when one is missing.
fn stratum_key(subject: &Subject, strata: &[String]) -> Option<String> {
    let values: Option<Vec<&str>> = strata.iter().map(|c| subject.columns.get(c)).collect();
    values.map(|v| v.join("\u{1f}"))
}

fn ties(settings: &Analysis) -> Ties {
    match settings.cox_ties {
        CoxTies::Efron => Ties::Efron,
        CoxTies::Breslow => Ties::Breslow,
    }
}

fn cox_results(fit: &stats::CoxFit) -> CoxResults {
    CoxResults {
        hr: fit.hr.map(|h| Ci {
            estimate: h.estimate,
            lower: h.lower,
            upper: h.upper,
        }),
        coef: fit.coef,
        se: fit.se,
        p_wald: fit.p_wald,
        p_lr: fit.p_lr,
        p_score: fit.p_score,
    }
}

fn statistics_error(
    cohort: &CohortConfig,
    what: String,
) -> impl Fn(stats::StatsError) -> Error + '_ {
    move |source| Error::Statistics {
        cohort: cohort.id.clone(),
        what: what.clone(),
        source,
    }
}

/// The timed members as the two-arm data of every model of the comparison.
fn arm_subjects(timed: &[(&Member, f64, bool)]) -> Vec<stats::ArmSubject> {
    timed
        .iter()
        .map(|(m, time, event)| stats::ArmSubject {
            time: *time,
            event: *event,
            in_arm: m.in_arm,
            stratum: m.stratum,
        })
        .collect()
}

/// The log-rank test of a model's data; without information (no variance: every event
/// time has one subject at risk, or both arms' subjects die together) the statistic and p
/// are `null` and a warning says so, as R's `survdiff` refuses such data.
fn logrank_results(test: stats::Logrank, what: &str, warnings: &mut Vec<String>) -> LogrankResults {
    if test.p.is_none() {
        warnings.push(format!(
            "{what} log-rank test not estimable (no information: no event time with subjects \
             of both arms at risk, or no variance); no p-value is given"
        ));
    }
    LogrankResults {
        chisq: test.chisq,
        df: test.df,
        p: test.p,
    }
}

/// Counts of subjects and events in the arm and the reference.
fn counts(timed: &[(&Member, f64, bool)]) -> (usize, usize, usize, usize) {
    let mut c = (0, 0, 0, 0);
    for (m, _, event) in timed {
        if m.in_arm {
            c.0 += 1;
            c.2 += usize::from(*event);
        } else {
            c.1 += 1;
            c.3 += usize::from(*event);
        }
    }
    c
}

fn compare_tte(
    two: &[Member],
    time_of: &dyn Fn(&Member) -> Option<(f64, bool)>,
    cohort: &CohortConfig,
    settings: &Analysis,
    label: &str,
    endpoint: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<TteComparison>> {
    let timed: Vec<(&Member, f64, bool)> = two
        .iter()
        .filter_map(|m| time_of(m).map(|(t, censored)| (m, t, !censored)))
        .collect();
    let (n, n_reference, events, events_reference) = counts(&timed);
    if n == 0 || n_reference == 0 {
        return Ok(None);
    }
    let level = settings.ci_level;
    let error = |what: &str| statistics_error(cohort, format!("{label}: {endpoint} {what}"));
    // The two arms sorted once; every model below (stratified, per subgroup) is a view of it.
    let data = stats::ArmTimes::new(&arm_subjects(&timed)).map_err(error("Cox model"))?;
    let model = data.model(false);
    let fit = model
        .cox(ties(settings), level)
        .map_err(error("Cox model"))?;
    if let Some(why) = fit.not_estimable {
        warnings.push(format!(
            "{label}: {endpoint} hazard ratio not estimable ({why})"
        ));
    }
    let logrank = logrank_results(
        model.logrank().map_err(error("log-rank test"))?,
        &format!("{label}: {endpoint}"),
        warnings,
    );
    drop(model);
    let stratified = if cohort.strata.is_empty() {
        None
    } else {
        let missing = timed.iter().filter(|(m, _, _)| m.stratum.is_none()).count();
        if missing > 0 {
            warnings.push(format!(
                "{label}: {endpoint}: {missing} subject(s) without a value of {} left out of the stratified analysis",
                cohort.strata.join(", ")
            ));
        }
        let model = data.model(true);
        let fit = model
            .cox(ties(settings), level)
            .map_err(error("stratified Cox model"))?;
        if let Some(why) = fit.not_estimable {
            warnings.push(format!(
                "{label}: {endpoint} stratified hazard ratio not estimable ({why})"
            ));
        }
        Some(StratifiedComparison {
            strata: cohort.strata.clone(),
            cox: cox_results(&fit),
            logrank: logrank_results(
                model.logrank().map_err(error("stratified log-rank test"))?,
                &format!("{label}: {endpoint} stratified"),
                warnings,
            ),
        })
    };
    let mut subgroups = Vec::new();
    for column in &cohort.subgroups {
        let level_of: Vec<Option<&str>> = timed
            .iter()
            .map(|(m, _, _)| m.subject.columns.get(column))
            .collect();
        let levels: BTreeSet<&str> = level_of.iter().flatten().copied().collect();
        for level_value in levels {
            let within: Vec<(&Member, f64, bool)> = timed
                .iter()
                .zip(&level_of)
                .filter(|(_, l)| **l == Some(level_value))
                .map(|(t, _)| *t)
                .collect();
            let (n, n_reference, events, events_reference) = counts(&within);
            let hr = if n > 0 && n_reference > 0 {
                let model =
                    data.model_where(|i| level_of.get(i) == Some(&Some(level_value)), false);
                let fit = model
                    .cox(ties(settings), level)
                    .map_err(error("subgroup Cox model"))?;
                if let Some(why) = fit.not_estimable {
                    warnings.push(format!(
                        "{label}: {endpoint} hazard ratio in {column} = {level_value} not estimable ({why})"
                    ));
                }
                cox_results(&fit).hr
            } else {
                None
            };
            subgroups.push(SubgroupHr {
                column: column.clone(),
                level: level_value.to_string(),
                n,
                n_reference,
                events,
                events_reference,
                hr,
            });
        }
    }
    Ok(Some(TteComparison {
        n,
        n_reference,
        events,
        events_reference,
        cox: cox_results(&fit),
        logrank,
        stratified,
        subgroups,
    }))
}

/// ORR and DCR of the efficacy subjects of the two arms compared.
fn compare_response(
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
                .get(m.index)
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
                two_by_two::cmh(&strata).map_err(&error)?
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

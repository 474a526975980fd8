//! A time-to-event endpoint compared: the Cox model and the log-rank test over one sorted
//! two-arm data set, unstratified and stratified, and the hazard ratio per subgroup level.

use std::collections::BTreeSet;

use super::{statistics_error, ties, Member};
use crate::config::{Analysis, CohortConfig};
use crate::error::Result;
use crate::results::{CoxResults, LogrankResults, StratifiedComparison, SubgroupHr, TteComparison};
use crate::stats::{self, Ci};

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

pub(super) fn compare_tte(
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

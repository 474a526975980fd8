//! A time-to-event endpoint compared: the Cox model and the log-rank test over one sorted
//! two-arm data set, unstratified and stratified, the hazard ratio per subgroup level, and per
//! subgroup column the test of its interaction with the arm.

use crate::diagnostic::{Diagnostic, Kind};
use std::collections::{BTreeMap, BTreeSet};

use super::{statistics_error, ties, Member};
use crate::config::{Analysis, CohortConfig};
use crate::endpoints::CompetingData;
use crate::error::Result;
use crate::results::{
    CoxResults, FineGrayResults, GrayResults, LogrankResults, StratifiedComparison, SubgroupHr,
    SubgroupInteraction, TteComparison,
};
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

/// The log-rank test of a model's data; without information (no variance: every event
/// time has one subject at risk, or both arms' subjects die together) the statistic and p
/// are `null` and a warning says so, as R's `survdiff` refuses such data.
fn logrank_results(
    test: stats::Logrank,
    what: &str,
    warnings: &mut Vec<Diagnostic>,
) -> LogrankResults {
    if test.p.is_none() {
        warnings.push(Diagnostic::warning(
            Kind::NotEstimable,
            format!(
                "{what} log-rank test not estimable (no information: no event time with subjects \
             of both arms at risk, or no variance); no p-value is given"
            ),
        ));
    }
    LogrankResults {
        chisq: test.chisq,
        df: test.df,
        p: test.p,
    }
}

/// One model's Cox fit and log-rank test, side by side.
fn fit_model(
    model: &stats::ArmModel<'_>,
    settings: &Analysis,
) -> std::result::Result<(stats::CoxFit, stats::Logrank), stats::StatsError> {
    let (fit, logrank) = rayon::join(
        || model.cox(ties(settings), settings.ci_level),
        || model.logrank(),
    );
    Ok((fit?, logrank?))
}

/// Strata holding fewer than this many events are named in a warning: the stratified hazard
/// ratio and log-rank test rest on few events there.
const FEW_EVENTS: usize = 5;

/// Warnings on the strata of a stratified model: those holding one arm only (they add nothing
/// to the stratified Cox model or log-rank test) and those of fewer than [`FEW_EVENTS`] events.
/// `tally`: per stratum, subjects of the arm, of the reference, and events.
fn strata_notes(
    tally: &std::collections::BTreeMap<u32, [usize; 3]>,
    names: &[String],
    what: &str,
) -> Vec<Diagnostic> {
    let named = |strata: &[u32]| super::strata_named(strata, names);
    let one_arm: Vec<u32> = tally
        .iter()
        .filter(|(_, t)| t[0] == 0 || t[1] == 0)
        .map(|(&k, _)| k)
        .collect();
    let few: Vec<u32> = tally
        .iter()
        .filter(|(_, t)| t[0] > 0 && t[1] > 0 && t[2] < FEW_EVENTS)
        .map(|(&k, _)| k)
        .collect();
    let mut notes = Vec::new();
    if !one_arm.is_empty() {
        let (count, verb) = match one_arm.len() {
            1 => ("1 stratum".to_string(), "holds"),
            n => (format!("{n} strata"), "hold"),
        };
        notes.push(Diagnostic::warning(Kind::Strata, format!(
            "{what}: {count} {verb} one arm only and add nothing to the stratified Cox model and log-rank test: {}",
            named(&one_arm)
        )));
    }
    if !few.is_empty() {
        let count = match few.len() {
            1 => "1 stratum".to_string(),
            n => format!("{n} strata"),
        };
        notes.push(Diagnostic::warning(Kind::Strata, format!(
            "{what}: {count} with fewer than {FEW_EVENTS} events, where the stratified hazard ratio and log-rank test rest on few events: {}",
            named(&few)
        )));
    }
    notes
}

#[allow(clippy::too_many_arguments)]
pub(super) fn compare_tte(
    two: &super::TwoArms<'_>,
    time_of: &dyn Fn(&Member) -> Option<(f64, bool)>,
    cohort: &CohortConfig,
    settings: &Analysis,
    label: &str,
    endpoint: &str,
    strata_names: &[String],
    competing: Option<&CompetingData>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<TteComparison>> {
    // With competing events, each member's time (days) and status for Gray's test and the
    // Fine–Gray models, overall and per subgroup level.
    let competing = competing.map(|data| Competing {
        data,
        slots: data.slots(),
    });
    let error = |what: &str| statistics_error(cohort, format!("{label}: {endpoint} {what}"));
    // The two arms sorted once, straight from the members (a subject's position is its
    // member's in `two`); every model below (stratified, per subgroup) is a view of it.
    let subjects = two.members.iter().enumerate().filter_map(|(k, m)| {
        let (time, censored) = time_of(m)?;
        Some((
            k,
            stats::ArmSubject {
                time,
                event: !censored,
                in_arm: m.in_arm(),
                stratum: m.stratum(),
            },
        ))
    });
    let data = stats::ArmTimes::collect_at(subjects).map_err(error("Cox model"))?;
    let counted = data.counts();
    let ([n, n_reference], [events, events_reference]) = (counted.subjects, counted.events);
    if n == 0 || n_reference == 0 {
        return Ok(None);
    }
    let missing = counted.without_stratum;
    if !cohort.strata.is_empty() {
        warnings.extend(strata_notes(
            &counted.strata,
            strata_names,
            &format!("{label}: {endpoint}"),
        ));
    }
    // The unstratified and the stratified model side by side.
    let (overall, stratified) = rayon::join(
        || fit_model(&data.model(false), settings),
        || (!cohort.strata.is_empty()).then(|| fit_model(&data.model(true), settings)),
    );
    let (fit, logrank) = overall.map_err(error("Cox model"))?;
    if let Some(why) = fit.not_estimable {
        warnings.push(Diagnostic::warning(
            Kind::NotEstimable,
            format!("{label}: {endpoint} hazard ratio not estimable ({why})"),
        ));
    }
    let logrank = logrank_results(logrank, &format!("{label}: {endpoint}"), warnings);
    let stratified = match stratified {
        None => None,
        Some(fitted) => {
            if missing > 0 {
                warnings.push(Diagnostic::warning(Kind::Strata, format!(
                    "{label}: {endpoint}: {missing} subject(s) without a value of {} left out of the stratified analysis",
                    cohort.strata_columns().join(", ")
                )));
            }
            let (fit, test) = fitted.map_err(error("stratified Cox model"))?;
            if let Some(why) = fit.not_estimable {
                warnings.push(Diagnostic::warning(
                    Kind::Strata,
                    format!("{label}: {endpoint} stratified hazard ratio not estimable ({why})"),
                ));
            }
            Some(StratifiedComparison {
                strata: cohort.strata_columns(),
                cox: cox_results(&fit),
                logrank: logrank_results(
                    test,
                    &format!("{label}: {endpoint} stratified"),
                    warnings,
                ),
            })
        }
    };
    let (gray, fine_gray) = match &competing {
        Some(c) => {
            let (gray, fg) = c.tests(two, settings, cohort, (label, endpoint), warnings)?;
            (gray, Some(fg))
        }
        None => (None, None),
    };
    let (subgroups, interactions) = subgroup_comparisons(
        two,
        &data,
        cohort,
        settings,
        (label, endpoint),
        competing.as_ref(),
        warnings,
    )?;
    Ok(Some(TteComparison {
        n,
        n_reference,
        events,
        events_reference,
        cox: cox_results(&fit),
        logrank,
        stratified,
        subgroups,
        interactions,
        among_responders: crate::model::endpoint::among_responders(endpoint),
        rmst: None,
        gray,
        fine_gray,
    }))
}

/// Per subgroup column, the hazard ratio in each level (in the levels' natural order) and the
/// test of the column's interaction with the arm; with competing events, each level's
/// Fine–Gray model too.
fn subgroup_comparisons(
    two: &super::TwoArms<'_>,
    data: &stats::ArmTimes,
    cohort: &CohortConfig,
    settings: &Analysis,
    (label, endpoint): (&str, &str),
    competing: Option<&Competing<'_>>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Vec<SubgroupHr>, Vec<SubgroupInteraction>)> {
    let level = settings.ci_level;
    let error = |what: &str| statistics_error(cohort, format!("{label}: {endpoint} {what}"));
    let mut subgroups = Vec::new();
    let mut interactions = Vec::new();
    for column in &cohort.subgroups {
        let level_of: Vec<Option<&str>> = two
            .members
            .iter()
            .map(|m| two.subject(m).and_then(|s| s.columns.get(column)))
            .collect();
        let levels: BTreeSet<&str> = level_of.iter().flatten().copied().collect();
        let values: Vec<&str> = levels.iter().copied().collect();
        // In their natural order, with their words (as the baseline table has them).
        for (value, words) in crate::endpoints::ordered_levels(cohort, column, &values) {
            let level_value = value.as_str();
            let model = data.model_where(|i| level_of.get(i) == Some(&Some(level_value)), false);
            let (n, n_reference) = (model.in_arm(), model.n() - model.in_arm());
            let [events, events_reference] = model.events_by_arm();
            let hr = if n > 0 && n_reference > 0 {
                let fit = model
                    .cox(ties(settings), level)
                    .map_err(error("subgroup Cox model"))?;
                if let Some(why) = fit.not_estimable {
                    warnings.push(Diagnostic::warning(Kind::NotEstimable, format!(
                        "{label}: {endpoint} hazard ratio in {column} = {level_value} not estimable ({why})"
                    )));
                }
                cox_results(&fit).hr
            } else {
                None
            };
            let fine_gray = match competing {
                Some(c) => {
                    let (days, status, arm) =
                        c.input(two, |k| level_of.get(k) == Some(&Some(level_value)));
                    let what = format!("{label}: {endpoint} in {column} = {level_value}");
                    Some(fine_gray_model(
                        &days, &status, &arm, settings, cohort, &what, warnings,
                    )?)
                }
                None => None,
            };
            subgroups.push(SubgroupHr {
                column: column.column.clone(),
                level: level_value.to_string(),
                level_label: words,
                n,
                n_reference,
                events,
                events_reference,
                hr,
                fine_gray,
            });
        }
        interactions.push(crate::profile::timing::stage(
            "      interaction test",
            || {
                interaction(
                    data,
                    &level_of,
                    &levels,
                    column,
                    cohort,
                    settings,
                    &format!("{label}: {endpoint}"),
                    warnings,
                )
            },
        )?);
    }
    Ok((subgroups, interactions))
}

/// An endpoint's competing-risk data, and each member's place in them.
struct Competing<'d> {
    data: &'d CompetingData,
    slots: Vec<u32>,
}

impl Competing<'_> {
    /// Gray's test and the Fine–Gray model of the two arms (`what`: the comparison and the
    /// endpoint, for errors and warnings).
    fn tests(
        &self,
        two: &super::TwoArms<'_>,
        settings: &Analysis,
        cohort: &CohortConfig,
        (label, endpoint): (&str, &str),
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(Option<GrayResults>, FineGrayResults)> {
        let (days, status, arm) = self.input(two, |_| true);
        let gray = stats::gray_test(&days, &status, &arm)
            .map_err(statistics_error(
                cohort,
                format!("{label}: Gray's test of {endpoint}"),
            ))?
            .map(|g| GrayResults {
                chisq: g.chisq,
                p: g.p,
            });
        let what = format!("{label}: {endpoint}");
        let fg = fine_gray_model(&days, &status, &arm, settings, cohort, &what, warnings)?;
        Ok((gray, fg))
    }

    /// The days, statuses and arms of the members of `two` at the positions `keep` holds.
    fn input(&self, two: &super::TwoArms<'_>, keep: impl Fn(usize) -> bool) -> CompetingInput {
        let mut input = (Vec::new(), Vec::new(), Vec::new());
        for (k, m) in two.members.iter().enumerate() {
            let Some(&slot) = self.slots.get(m.index as usize) else {
                continue;
            };
            let slot = slot as usize;
            if let (Some(&d), Some(&s), true) = (
                self.data.days.get(slot),
                self.data.status.get(slot),
                keep(k),
            ) {
                input.0.push(d);
                input.1.push(s);
                input.2.push(m.in_arm());
            }
        }
        input
    }
}

/// Days, statuses and arms (true: the arm compared) of a two-arm competing-risk model.
type CompetingInput = (Vec<f64>, Vec<u8>, Vec<bool>);

/// The Fine–Gray model of two arms as results.json gives it (`what`: the comparison, for
/// errors and the warning when it is not estimable).
fn fine_gray_model(
    days: &[f64],
    status: &[u8],
    arm: &[bool],
    settings: &Analysis,
    cohort: &CohortConfig,
    what: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<FineGrayResults> {
    let fg = stats::fine_gray(days, status, arm, settings.ci_level)
        .map_err(statistics_error(cohort, format!("{what}: Fine–Gray model")))?;
    if fg.is_none() {
        warnings.push(Diagnostic::warning(
            Kind::NotEstimable,
            format!(
                "{what}: no Fine–Gray hazard ratio (an arm has no event of interest: the \
                 likelihood has no maximum)"
            ),
        ));
    }
    Ok(FineGrayResults {
        hr: fg.map(|f| f.hr),
        coef: fg.map(|f| f.coef),
        se: fg.map(|f| f.se),
        p: fg.map(|f| f.p),
    })
}

/// The test of the arm's interaction with `column` (each subject's level in `level_of`, by
/// position in the model's data), within the strata of the stratified model when the cohort
/// has strata; not estimable, or a likelihood without a maximum, goes to `warnings`.
#[allow(clippy::too_many_arguments)]
fn interaction(
    data: &stats::ArmTimes,
    level_of: &[Option<&str>],
    levels: &BTreeSet<&str>,
    column: &str,
    cohort: &CohortConfig,
    settings: &Analysis,
    what: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<SubgroupInteraction> {
    // Levels numbered in their sorted order (R's factor levels, the first the reference).
    let number: BTreeMap<&str, u32> = levels.iter().copied().zip(0u32..).collect();
    let numbers: Vec<Option<u32>> = level_of
        .iter()
        .map(|l| l.and_then(|l| number.get(l).copied()))
        .collect();
    let test = data
        .interaction(
            |i| numbers.get(i).copied().flatten(),
            !cohort.strata.is_empty(),
            ties(settings),
        )
        .map_err(statistics_error(
            cohort,
            format!("{what} interaction test of {column}"),
        ))?;
    if let Some(why) = test.not_estimable {
        warnings.push(Diagnostic::warning(
            Kind::NotEstimable,
            format!(
            "{what} interaction of the arm with {column} not estimable ({why}); no p-value is given"
        ),
        ));
    } else if test.monotone {
        warnings.push(Diagnostic::warning(
            Kind::Arms,
            format!(
                "{what} interaction of the arm with {column}: a coefficient is infinite (as when \
             a level has events in one arm only); the likelihood-ratio test uses the \
             likelihood's supremum, as R's does"
            ),
        ));
    }
    Ok(SubgroupInteraction {
        column: column.to_string(),
        chisq: test.chisq,
        df: test.df,
        p: test.p,
    })
}

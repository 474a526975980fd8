//! Survival beyond the median (docs/OUTPUTS.md): each endpoint's restricted mean survival
//! time and risk table for the cohort and its arms, and the arms' RMST compared. They need
//! every arm's curve at once (one τ, one set of table times for all), so they complete the
//! cohort's results once its arms are analysed, within the analysis stage.

use indexmap::IndexMap;

use crate::config::Analysis;
use crate::error::{Error, Result};
use crate::results::{
    CifRiskRow, CohortResults, Contrast, RiskTableRow, RmstComparison, RmstResult, TteResults,
};
use crate::stats::{self, KaplanMeier};

/// Most intervals of the default risk-table times.
const TABLE_INTERVALS: f64 = 8.0;

/// Where `analysis.rmst_tau` was set, for an error that names it: the config file and the
/// key (`analysis.rmst_tau` or the cohort's own).
pub struct TauKey<'a> {
    /// The config file.
    pub file: &'a std::path::Path,
    /// The key as a path.
    pub key: String,
}

/// Each arm's times and statuses of the endpoints with competing events.
pub type ArmCompeting = [(String, IndexMap<String, super::CompetingData>)];
/// Each arm's Kaplan–Meier fits by endpoint.
pub type ArmKm = [(String, IndexMap<String, KaplanMeier>)];

/// The cohort's results (its arms analysed) completed with survival beyond the median: see
/// [`add_beyond_median`]. The last step of the analysis stage.
pub fn beyond_median(
    mut results: CohortResults,
    (cohort_km, arm_km): (&IndexMap<String, KaplanMeier>, &ArmKm),
    (cohort_cr, arm_cr): (&IndexMap<String, super::CompetingData>, &ArmCompeting),
    a: &Analysis,
    tau_key: &TauKey<'_>,
) -> Result<CohortResults> {
    add_beyond_median(
        &mut results,
        (cohort_km, arm_km),
        (cohort_cr, arm_cr),
        a,
        tau_key,
    )?;
    Ok(results)
}

/// Adds `rmst` and `risk_table` to every endpoint of `results` and of its arms (and a
/// cumulative incidence's `risk_table`, at the same times, from `cohort_cr` and `arm_cr`), and
/// `rmst` to the comparisons. `cohort_km`: the cohort's curves by endpoint (days); `arm_km`:
/// each arm's. τ is `analysis.rmst_tau`, else the shortest of the arms' (or the cohort's) longest
/// times; a τ past an arm's last time is refused, naming the key.
fn add_beyond_median(
    results: &mut CohortResults,
    (cohort_km, arm_km): (&IndexMap<String, KaplanMeier>, &ArmKm),
    (cohort_cr, arm_cr): (&IndexMap<String, super::CompetingData>, &ArmCompeting),
    a: &Analysis,
    tau_key: &TauKey<'_>,
) -> Result<()> {
    let unit = a.time_unit.days();
    let id = results.id.clone();
    let stats_err = |what: &str, e| Error::Statistics {
        cohort: id.clone(),
        what: what.to_string(),
        source: e,
    };
    for (endpoint, fit) in cohort_km {
        // The groups τ must lie within: the arms with a curve of this endpoint, else the cohort.
        let groups: Vec<(&str, &KaplanMeier)> = if arm_km.is_empty() {
            vec![(results.label.as_str(), fit)]
        } else {
            arm_km
                .iter()
                .filter_map(|(arm, fits)| Some((arm.as_str(), fits.get(endpoint)?)))
                .collect()
        };
        let shortest = groups
            .iter()
            .filter_map(|(name, f)| Some((*name, f.max_time()?)))
            .min_by(|x, y| x.1.total_cmp(&y.1));
        // With competing events the area under 1 − KM is not a mean time to the event.
        let competing = results.tte.get(endpoint).is_some_and(|t| t.cif.is_some());
        let shortest = shortest.filter(|_| !competing);
        let tau = match (a.rmst_tau.as_ref().and_then(|t| t.of(endpoint)), shortest) {
            (Some(tau), Some((name, last))) => {
                // A τ equal to the last time, up to the unit's rounding, is within it.
                if tau * unit > last * (1.0 + 1e-9) {
                    if a.rmst_tau_beyond == crate::config::TauBeyond::Error {
                        return Err(tau_beyond(tau_key, endpoint, tau, name, last / unit, a));
                    }
                    let group = results.arm_short(name).to_string();
                    results.warnings.push(tau_not_estimable(
                        tau_key,
                        endpoint,
                        tau,
                        &group,
                        last / unit,
                        a,
                    ));
                    None
                } else {
                    Some(tau * unit)
                }
            }
            (None, Some((_, last))) if last > 0.0 => Some(last),
            _ => None,
        };
        let times: Vec<f64> = match &a.km_table_times {
            Some(t) => t.clone(),
            None => default_table_times(fit.max_time().unwrap_or(0.0) / unit, a),
        };
        let days: Vec<f64> = times.iter().map(|t| t * unit).collect();
        let describe = |f: &KaplanMeier,
                        cr: Option<&super::CompetingData>,
                        tte: &mut TteResults|
         -> Result<()> {
            if let Some(tau) = tau {
                let r = f
                    .rmst(tau)
                    .map_err(|e| stats_err(&format!("RMST of {endpoint}"), e))?
                    .scaled(unit);
                let (lower, upper) = r
                    .interval(a.ci_level)
                    .map_err(|e| stats_err("RMST interval", e))?;
                tte.rmst = Some(RmstResult {
                    tau: tau_in_unit(a, endpoint, r.tau),
                    estimate: r.estimate,
                    se: r.se,
                    lower,
                    upper,
                });
            }
            tte.risk_table = f
                .risk_table(&days)
                .into_iter()
                .zip(&times)
                .map(|(row, &time)| RiskTableRow {
                    time,
                    at_risk: row.at_risk,
                    events: row.events,
                    censored: row.censored,
                })
                .collect();
            if let (Some(cif), Some(cr)) = (tte.cif.as_mut(), cr) {
                cif.risk_table = cr
                    .fit
                    .risk_table(&days)
                    .into_iter()
                    .zip(&times)
                    .map(|(r, &time)| CifRiskRow {
                        time,
                        at_risk: r.at_risk,
                        events: r.events,
                        competing: r.competing,
                        censored: r.censored,
                    })
                    .collect();
            }
            Ok(())
        };
        if let Some(tte) = results.tte.get_mut(endpoint) {
            describe(fit, cohort_cr.get(endpoint), tte)?;
        }
        for arm in &mut results.arms {
            let (fit, cr) = (
                of_arm(arm_km, &arm.arm, endpoint),
                of_arm(arm_cr, &arm.arm, endpoint),
            );
            if let (Some(fit), Some(tte)) = (fit, arm.results.tte.get_mut(endpoint)) {
                describe(fit, cr, tte)?;
            }
        }
    }
    compare_rmst(results, a)
}

/// Arm `arm`'s value for `endpoint` in a list of each arm's values by endpoint.
fn of_arm<'m, T>(
    by: &'m [(String, IndexMap<String, T>)],
    arm: &str,
    endpoint: &str,
) -> Option<&'m T> {
    by.iter()
        .find(|(name, _)| name == arm)
        .and_then(|(_, by)| by.get(endpoint))
}

/// Each comparison's RMST difference and ratio, from the two arms' RMST at one τ.
fn compare_rmst(results: &mut CohortResults, a: &Analysis) -> Result<()> {
    let id = results.id.clone();
    let stats_err = |what: &str, e| Error::Statistics {
        cohort: id.clone(),
        what: what.to_string(),
        source: e,
    };
    let rmst_of = |arm: &str, endpoint: &str| {
        results
            .arms
            .iter()
            .find(|r| r.arm == arm)
            .and_then(|r| r.results.tte.get(endpoint)?.rmst)
    };
    let mut compared = Vec::new();
    for (k, c) in results.comparisons.iter().enumerate() {
        for endpoint in c.tte.keys() {
            let (Some(x), Some(y)) = (rmst_of(&c.arm, endpoint), rmst_of(&c.reference, endpoint))
            else {
                continue;
            };
            let of = |r: RmstResult| stats::Rmst {
                tau: r.tau,
                estimate: r.estimate,
                se: r.se,
            };
            let contrast = stats::rmst_contrast(&of(x), &of(y), a.ci_level)
                .map_err(|e| stats_err("RMST comparison", e))?;
            let plain = |c: stats::Contrast| Contrast {
                estimate: c.estimate,
                lower: c.lower,
                upper: c.upper,
                p: c.p,
            };
            compared.push((
                k,
                endpoint.clone(),
                RmstComparison {
                    tau: x.tau,
                    difference: plain(contrast.difference),
                    ratio: contrast.ratio.map(plain),
                },
            ));
        }
    }
    for (k, endpoint, rmst) in compared {
        if let Some(t) = results
            .comparisons
            .get_mut(k)
            .and_then(|c| c.tte.get_mut(&endpoint))
        {
            t.rmst = Some(rmst);
        }
    }
    Ok(())
}

/// τ as results.json gives it: the configured number itself, else the time in the unit.
fn tau_in_unit(a: &Analysis, endpoint: &str, computed: f64) -> f64 {
    a.rmst_tau
        .as_ref()
        .and_then(|t| t.of(endpoint))
        .unwrap_or(computed)
}

fn tau_beyond(
    at: &TauKey<'_>,
    endpoint: &str,
    tau: f64,
    group: &str,
    last: f64,
    a: &Analysis,
) -> Error {
    let unit = a.time_unit.name();
    Error::Config {
        file: at.file.to_path_buf(),
        location: format!("key `{}`: ", at.key),
        message: format!(
            "{} {unit} is beyond the follow-up of `{group}` for endpoint `{endpoint}` (its last \
             time is {} {unit}); the restricted mean needs the curve up to τ: expected at most \
             {}, or a horizon per endpoint (`rmst_tau: {{ {endpoint}: ... }}`)",
            crate::format::short_number(tau),
            crate::format::fixed(last, a.time_decimals),
            crate::format::fixed(last, a.time_decimals)
        ),
    }
}

/// The warning of an RMST not estimable at an interim: τ past the follow-up of `group`, both
/// as the documents round times.
fn tau_not_estimable(
    at: &TauKey<'_>,
    endpoint: &str,
    tau: f64,
    group: &str,
    last: f64,
    a: &Analysis,
) -> crate::diagnostic::Diagnostic {
    let unit = a.time_unit.name();
    let shown = |t: f64| crate::format::fixed(t, a.time_decimals);
    crate::diagnostic::Diagnostic::warning(
        crate::diagnostic::Kind::NotEstimable,
        format!(
            "endpoint `{endpoint}`: the restricted mean up to τ = {} {unit} is not estimable: \
             `{group}` is followed up to {} {unit} (`{}`); every other number is given",
            shown(tau),
            shown(last),
            at.key
        ),
    )
    .at(crate::diagnostic::Location::Endpoint(endpoint.to_string()))
    .hint("give a τ within every arm's follow-up, or `rmst_tau_beyond: error` to stop instead")
}

/// The risk table's times when `km_table_times` is not given: from 0 by the smallest
/// conventional step of the time unit with at most [`TABLE_INTERVALS`] intervals up to the
/// last time, through the first step at or past it.
pub fn default_table_times(last: f64, a: &Analysis) -> Vec<f64> {
    let last = if last > 0.0 && last.is_finite() {
        last
    } else {
        return vec![0.0];
    };
    let step = crate::format::time_steps(a.time_unit.name())
        .into_iter()
        .find(|s| last / s <= TABLE_INTERVALS)
        .unwrap_or(last);
    let intervals = (last / step - 1e-9).ceil().max(1.0) as usize;
    (0..=intervals).map(|k| k as f64 * step).collect()
}

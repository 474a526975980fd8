//! Survival beyond the median (docs/OUTPUTS.md): each endpoint's restricted mean survival
//! time and risk table for the cohort and its arms. They need every arm's curve at once (one
//! τ, one set of table times for all): [`horizons`] decides them once the arms' curves are
//! fitted, and [`describe`] fills each group's results as they are made; `compare/` contrasts
//! the arms' RMST.

use indexmap::IndexMap;

use crate::config::Analysis;
use crate::diagnostic::Diagnostic;
use crate::error::{Error, Result};
use crate::results::{CifRiskRow, RiskTableRow, RmstResult, TteResults};
use crate::stats::KaplanMeier;

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

/// Where an endpoint is read beyond its median, the same for the cohort and each of its arms:
/// the RMST's horizon τ (days; `None`: no RMST) and the risk table's times (in the analysis
/// unit, and in days).
#[derive(Debug, Clone)]
pub struct Horizon {
    tau: Option<f64>,
    times: Vec<f64>,
    days: Vec<f64>,
}

/// Each endpoint's [`Horizon`], by endpoint.
pub type Horizons = IndexMap<String, Horizon>;

/// The horizons of the endpoints of `cohort_km` (the cohort's curves by endpoint, in days; its
/// results `cohort_tte`), and the warnings of an RMST not estimable. τ is `analysis.rmst_tau`, else the shortest of
/// the arms' (`arm_km`, named in warnings by `arm_short`) or, without arms, the cohort's longest
/// times; none for an endpoint with competing events (the area under 1 − KM is not a mean time
/// to the event). A τ past an arm's last time is refused, naming the key, or left
/// out with a warning (`rmst_tau_beyond`).
pub fn horizons(
    (cohort_label, cohort_km, cohort_tte): (
        &str,
        &IndexMap<String, KaplanMeier>,
        &IndexMap<String, TteResults>,
    ),
    arm_km: &ArmKm,
    arm_short: &dyn Fn(&str) -> String,
    a: &Analysis,
    tau_key: &TauKey<'_>,
) -> Result<(Horizons, Vec<Diagnostic>)> {
    let unit = a.time_unit.days();
    let mut horizons = Horizons::new();
    let mut warnings = Vec::new();
    for (endpoint, fit) in cohort_km {
        // The groups τ must lie within: the arms with a curve of this endpoint, else the cohort.
        let groups: Vec<(&str, &KaplanMeier)> = if arm_km.is_empty() {
            vec![(cohort_label, fit)]
        } else {
            arm_km
                .iter()
                .filter_map(|(arm, fits)| Some((arm.as_str(), fits.get(endpoint)?)))
                .collect()
        };
        let shortest = groups
            .iter()
            .filter_map(|(name, f)| Some((*name, f.max_time()?)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .filter(|_| cohort_tte.get(endpoint).is_none_or(|t| t.cif.is_none()));
        let tau = match (a.rmst_tau.as_ref().and_then(|t| t.of(endpoint)), shortest) {
            (Some(tau), Some((name, last))) => {
                // A τ equal to the last time, up to the unit's rounding, is within it.
                if tau * unit > last * (1.0 + 1e-9) {
                    if a.rmst_tau_beyond == crate::config::TauBeyond::Error {
                        return Err(tau_beyond(tau_key, endpoint, tau, name, last / unit, a));
                    }
                    let group = if arm_km.is_empty() {
                        name.to_string()
                    } else {
                        arm_short(name)
                    };
                    warnings.push(tau_not_estimable(
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
        let days = times.iter().map(|t| t * unit).collect();
        horizons.insert(endpoint.clone(), Horizon { tau, times, days });
    }
    Ok((horizons, warnings))
}

/// Fills `rmst` and `risk_table` of each endpoint of `tte` that has a curve in `km` (days) and
/// a horizon, and the cumulative incidence's `risk_table` at the same times from `competing`.
/// `cohort`: the cohort's id, for errors.
pub fn describe(
    tte: &mut IndexMap<String, TteResults>,
    (km, competing): (
        &IndexMap<String, KaplanMeier>,
        &IndexMap<String, super::CompetingData>,
    ),
    horizons: &Horizons,
    a: &Analysis,
    cohort: &str,
) -> Result<()> {
    let unit = a.time_unit.days();
    let stats_err = |what: &str, e| Error::Statistics {
        cohort: cohort.to_string(),
        what: what.to_string(),
        source: e,
    };
    for (endpoint, results) in tte.iter_mut() {
        let (Some(fit), Some(horizon)) = (km.get(endpoint), horizons.get(endpoint)) else {
            continue;
        };
        if let Some(tau) = horizon.tau {
            let r = fit
                .rmst(tau)
                .map_err(|e| stats_err(&format!("RMST of {endpoint}"), e))?
                .scaled(unit);
            let (lower, upper) = r
                .interval(a.ci_level)
                .map_err(|e| stats_err("RMST interval", e))?;
            results.rmst = Some(RmstResult {
                tau: tau_in_unit(a, endpoint, r.tau),
                estimate: r.estimate,
                se: r.se,
                lower,
                upper,
            });
        }
        results.risk_table = fit
            .risk_table(&horizon.days)
            .into_iter()
            .zip(&horizon.times)
            .map(|(row, &time)| RiskTableRow {
                time,
                at_risk: row.at_risk,
                events: row.events,
                censored: row.censored,
            })
            .collect();
        if let (Some(cif), Some(cr)) = (results.cif.as_mut(), competing.get(endpoint)) {
            cif.risk_table = cr
                .fit
                .risk_table(&horizon.days)
                .into_iter()
                .zip(&horizon.times)
                .map(|(r, &time)| CifRiskRow {
                    time,
                    at_risk: r.at_risk,
                    events: r.events,
                    competing: r.competing,
                    censored: r.censored,
                })
                .collect();
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

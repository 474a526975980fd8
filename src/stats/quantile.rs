//! Quantiles of a Kaplan–Meier curve (median, quartiles) with confidence intervals, and median
//! follow-up by the reverse Kaplan–Meier method.
//!
//! Point estimates and Brookmeyer–Crowley limits follow R's `quantile.survfit` (survival
//! 3.5-3) rule for rule: the p-th quantile is where 1 − S first reaches p; a curve flat at
//! exactly 1 − p (within √ε) gives the midpoint of that stretch and the *next event* time; a
//! curve that ends flat at 1 − p gives the midpoint with the last follow-up time; and the limits
//! apply the same search to the lower and upper band curves, which R does after sorting the
//! band values, so a band that rises again late (non-monotone) yields R's limit, not the "first
//! crossing". Collett's density-based interval for the median (SPSS) is here as well.
//!
//! It does not compute `summary(fit)$table`'s median (which differs in those corner cases).

use std::collections::HashSet;

use serde::Serialize;

use super::km::{kaplan_meier, KaplanMeier};
use super::normal::z_for_level;
use super::transform::{CiTransform, Limit};
use super::StatsError;

/// `quantile.survfit`'s default tolerance, `sqrt(.Machine$double.eps)`, used to decide that the
/// curve sits *exactly* at 1 − p.
pub const QUANTILE_TOLERANCE: f64 = 1.490_116_119_384_765_6e-8;

/// The margin ε of Collett's density estimate for the median: the curve is read at 0.5 ± ε.
pub const COLLETT_EPSILON: f64 = 0.05;

/// A survival-time quantile with its confidence interval; `None` means not reached (or not
/// estimable), R's NA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quantile {
    /// The quantile itself.
    pub estimate: Option<f64>,
    /// Lower confidence limit.
    pub lower: Option<f64>,
    /// Upper confidence limit.
    pub upper: Option<f64>,
}

impl Quantile {
    /// Nothing reached.
    pub const NOT_REACHED: Quantile = Quantile {
        estimate: None,
        lower: None,
        upper: None,
    };
}

/// One point of a curve in `quantile.survfit`'s coordinates: time and y = 1 − S (or 1 − limit).
type CurvePoint = (f64, Limit);

/// How R's `duplicated()` identifies a value: numbers by `==` (so −0 equals 0), NA and NaN as
/// two distinct values of their own.
#[derive(PartialEq, Eq, Hash)]
enum DupKey {
    Number(u64),
    Na,
    NaN,
}

fn dup_key(y: Limit) -> DupKey {
    match y {
        Limit::Value(v) => DupKey::Number((v + 0.0).to_bits()),
        Limit::Na => DupKey::Na,
        Limit::NaN => DupKey::NaN,
    }
}

/// The time of the first point whose y is the smallest numeric y with `shifted(y) >= p`, or
/// `None` when `p` is outside the range of `shifted(y)`.
///
/// This is what `approx(y ± tol, seq_along(y), p, method = "constant", f = 1)` returns after R
/// has dropped duplicated y (keeping first occurrences), dropped NA and sorted by y: the index
/// of the smallest shifted value at or above `p`, with `rule = 1` giving NA outside the range.
/// (Two y one ulp apart could round to the same y ± tol, which R's `approx` would average; no
/// Kaplan–Meier curve or band comes that close, so the smaller simply wins here.)
fn first_time_at_or_above(
    curve: &[CurvePoint],
    p: f64,
    shifted: impl Fn(f64) -> f64,
) -> Option<f64> {
    let mut smallest: Option<f64> = None;
    let mut min_shifted = f64::INFINITY;
    for &(_, y) in curve {
        let Some(v) = y.value() else { continue };
        let x = shifted(v);
        min_shifted = min_shifted.min(x);
        let smaller = match smallest {
            Some(s) => v < s,
            None => true,
        };
        if x >= p && smaller {
            smallest = Some(v);
        }
    }
    if p < min_shifted {
        return None;
    }
    let target = smallest?;
    curve
        .iter()
        .find(|&&(_, y)| y.value() == Some(target))
        .map(|&(t, _)| t)
}

/// The last element of `y[!duplicated(y)]`: the value whose first occurrence comes last.
fn last_distinct(curve: &[CurvePoint]) -> Option<Limit> {
    // Usual case: the numbers never decrease (the estimate always, most bands). Then the
    // numbers' first occurrences come in increasing order, so the candidates are the first
    // occurrence of the largest number and the first NA and first NaN: no hashing needed.
    let mut previous = f64::NEG_INFINITY;
    let mut monotone = true;
    let (mut first_na, mut first_nan, mut first_of_last_number) = (None, None, None);
    for (i, &(_, y)) in curve.iter().enumerate() {
        match y {
            Limit::Value(v) => {
                if v < previous {
                    monotone = false;
                    break;
                }
                if v > previous {
                    first_of_last_number = Some(i);
                }
                previous = v;
            }
            Limit::Na => {
                first_na.get_or_insert(i);
            }
            Limit::NaN => {
                first_nan.get_or_insert(i);
            }
        }
    }
    if monotone {
        let last = [first_na, first_nan, first_of_last_number]
            .into_iter()
            .flatten()
            .max()?;
        return curve.get(last).map(|&(_, y)| y);
    }

    let mut seen = HashSet::with_capacity(curve.len());
    let mut last = None;
    for &(_, y) in curve {
        if seen.insert(dup_key(y)) {
            last = Some(y);
        }
    }
    last
}

/// `findq` of survival's `quantile.survfit`, for one probability. `curve` starts with the
/// origin (0, y = 0) and has one point per step of the fit.
fn find_quantile(curve: &[CurvePoint], p: f64) -> Option<f64> {
    let tol = QUANTILE_TOLERANCE;
    let &(origin, _) = curve.first()?;
    let &(xmax, _) = curve.last()?;

    // A curve (typically an upper band) that never gets as far as p.
    let max_y = curve
        .iter()
        .filter_map(|&(_, y)| y.value())
        .fold(f64::NEG_INFINITY, f64::max);
    if max_y < p {
        return None;
    }

    // The first time y reaches p (within tolerance) and the first time it is clearly past p:
    // equal unless the curve is flat at p, when their midpoint is the answer.
    let reach = first_time_at_or_above(curve, p, |v| v + tol);
    let pass = first_time_at_or_above(curve, p, |v| v - tol);
    let mut quantile = match (reach, pass) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        _ => None,
    };
    if p == 0.0 {
        quantile = Some(origin);
    }
    // A curve that ends flat at p: midpoint with the last follow-up time. Only worth the
    // de-duplication when some value is that close to p at all.
    let near_p = |y: Limit| y.value().is_some_and(|v| (p - v).abs() < tol);
    if curve.iter().any(|&(_, y)| near_p(y)) {
        if let Some(last) = last_distinct(curve) {
            if near_p(last) {
                quantile = reach.map(|a| (a + xmax) / 2.0);
            }
        }
    }
    quantile
}

fn one_minus(limit: Limit) -> Limit {
    match limit {
        Limit::Value(v) => Limit::Value(1.0 - v),
        other => other,
    }
}

fn check_probability(p: f64) -> Result<(), StatsError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(StatsError::InvalidProbability(p))
    }
}

impl KaplanMeier {
    /// The survival curve in `quantile.survfit` coordinates, origin first.
    fn estimate_curve(&self) -> Vec<CurvePoint> {
        std::iter::once((0.0, Limit::Value(0.0)))
            .chain(
                self.steps()
                    .iter()
                    .map(|s| (s.time, Limit::Value(1.0 - s.surv))),
            )
            .collect()
    }

    /// The p-th quantile of the survival time without a confidence interval: the time at
    /// which S first reaches 1 − p, by `quantile.survfit`'s rules. `None` if not reached.
    ///
    /// # Errors
    /// [`StatsError::InvalidProbability`] unless `0 ≤ p ≤ 1`.
    pub fn quantile_estimate(&self, p: f64) -> Result<Option<f64>, StatsError> {
        check_probability(p)?;
        if self.steps().is_empty() {
            return Ok(None);
        }
        Ok(find_quantile(&self.estimate_curve(), p))
    }

    /// The p-th quantile (p = 0.5: median; 0.25: the time S reaches 0.75) with its
    /// Brookmeyer–Crowley confidence interval under `transform`, exactly as
    /// `quantile(survfit(..., conf.type = transform, conf.int = level), p)`.
    ///
    /// An empty curve reaches nothing.
    ///
    /// # Errors
    /// [`StatsError::InvalidProbability`] unless `0 ≤ p ≤ 1`, [`StatsError::InvalidLevel`]
    /// unless `0 < level < 1`.
    pub fn quantile(
        &self,
        p: f64,
        level: f64,
        transform: CiTransform,
    ) -> Result<Quantile, StatsError> {
        check_probability(p)?;
        let z = z_for_level(level)?;
        if self.steps().is_empty() {
            return Ok(Quantile::NOT_REACHED);
        }
        let estimate = find_quantile(&self.estimate_curve(), p);

        // R reads the lower limit off the lower band curve and the upper off the upper one.
        let mut lower_curve = Vec::with_capacity(self.steps().len() + 1);
        let mut upper_curve = Vec::with_capacity(self.steps().len() + 1);
        lower_curve.push((0.0, Limit::Value(0.0)));
        upper_curve.push((0.0, Limit::Value(0.0)));
        for (step, (lower, upper)) in self.steps().iter().zip(self.band_limits(z, transform)) {
            lower_curve.push((step.time, one_minus(lower)));
            upper_curve.push((step.time, one_minus(upper)));
        }
        Ok(Quantile {
            estimate,
            lower: find_quantile(&lower_curve, p),
            upper: find_quantile(&upper_curve, p),
        })
    }

    /// The median with Collett's density-based confidence interval, the one SPSS reports.
    ///
    /// With t̂ the median ([`KaplanMeier::quantile_estimate`] at 0.5, so the point estimate is
    /// the same under every interval method):
    ///
    /// ```text
    /// SE(t̂)  = SE(Ŝ(t̂)) / f̂(t̂)                         (Greenwood SE on the survival scale)
    /// f̂(t̂)  = (Ŝ(û) − Ŝ(l̂)) / (l̂ − û)
    /// û      = the largest event time with Ŝ ≥ 0.5 + ε    (the origin, S = 1, if there is none)
    /// l̂      = the smallest event time with Ŝ ≤ 0.5 − ε
    /// ε      = 0.05
    /// CI     = t̂ ± z·SE(t̂), the lower limit truncated at 0
    /// ```
    ///
    /// (Collett, *Modelling Survival Data in Medical Research*, §2.4.) The comparisons with
    /// 0.55 and 0.45 allow √ε of rounding so that a curve at exactly 0.55 counts as reaching it.
    /// The limits are `None` when the median is not reached, when no event time has Ŝ ≤ 0.45
    /// (the density cannot be estimated) or when Ŝ(t̂) has no standard error (Ŝ = 0).
    ///
    /// # Errors
    /// [`StatsError::InvalidLevel`] unless `0 < level < 1`.
    pub fn median_collett(&self, level: f64) -> Result<Quantile, StatsError> {
        let z = z_for_level(level)?;
        let Some(median) = self.quantile_estimate(0.5)? else {
            return Ok(Quantile::NOT_REACHED);
        };
        let no_interval = Quantile {
            estimate: Some(median),
            lower: None,
            upper: None,
        };
        let Some(se_surv) = self.step_at(median).and_then(|s| s.std_err) else {
            return Ok(no_interval);
        };
        let tol = QUANTILE_TOLERANCE;
        let event_steps = self.steps().iter().filter(|s| s.n_event > 0);
        let (u_time, u_surv) = event_steps
            .clone()
            .take_while(|s| s.surv >= 0.5 + COLLETT_EPSILON - tol)
            .last()
            .map_or((0.0, 1.0), |s| (s.time, s.surv));
        let Some((l_time, l_surv)) = event_steps
            .clone()
            .find(|s| s.surv <= 0.5 - COLLETT_EPSILON + tol)
            .map(|s| (s.time, s.surv))
        else {
            return Ok(no_interval);
        };
        let density = (u_surv - l_surv) / (l_time - u_time);
        let half_width = z * se_surv / density;
        if !(density > 0.0 && half_width.is_finite()) {
            return Ok(no_interval);
        }
        Ok(Quantile {
            estimate: Some(median),
            lower: Some((median - half_width).max(0.0)),
            upper: Some(median + half_width),
        })
    }
}

/// Median follow-up by the reverse Kaplan–Meier method: the median of the curve that treats
/// censorings as events and events as censorings, with its interval under `transform`
/// (`quantile(survfit(Surv(time, 1 - event) ~ 1, conf.type = transform), 0.5)`).
///
/// `None` fields mean not reached, which happens when few subjects are censored.
///
/// # Errors
/// As [`super::kaplan_meier`] and [`KaplanMeier::quantile`].
pub fn reverse_km_followup(
    time: &[f64],
    event: &[bool],
    level: f64,
    transform: CiTransform,
) -> Result<Quantile, StatsError> {
    kaplan_meier(time, event)?
        .reversed()
        .quantile(0.5, level, transform)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::kaplan_meier;

    fn curve(points: &[(f64, f64)]) -> Vec<CurvePoint> {
        points.iter().map(|&(t, y)| (t, Limit::Value(y))).collect()
    }

    #[test]
    fn flat_at_p_takes_midpoint_with_next_jump() {
        // y = 1 − S: 0 → 0.25 at 2 → 0.5 at 5 (censoring at 7 repeats 0.5) → 0.75 at 9.
        let c = curve(&[(0.0, 0.0), (2.0, 0.25), (5.0, 0.5), (7.0, 0.5), (9.0, 0.75)]);
        assert_eq!(find_quantile(&c, 0.5), Some(7.0));
        assert_eq!(find_quantile(&c, 0.4), Some(5.0));
        assert_eq!(find_quantile(&c, 0.8), None);
        assert_eq!(find_quantile(&c, 0.0), Some(0.0));
    }

    #[test]
    fn curve_ending_at_p_uses_last_follow_up() {
        let c = curve(&[
            (0.0, 0.0),
            (3.0, 0.25),
            (6.0, 0.5),
            (10.0, 0.5),
            (12.0, 0.5),
        ]);
        assert_eq!(find_quantile(&c, 0.5), Some(9.0));
    }

    #[test]
    fn non_monotone_band_uses_smallest_value_above_p() {
        // The band dips back below 0.5 after first crossing it; R answers with the time of
        // the smallest value ≥ p, here 0.55 at time 8, not the first crossing at 4.
        let c = curve(&[(0.0, 0.0), (4.0, 0.6), (6.0, 0.45), (8.0, 0.55), (9.0, 0.7)]);
        assert_eq!(find_quantile(&c, 0.5), Some(8.0));
    }

    #[test]
    fn na_values_are_skipped() {
        let c = vec![
            (0.0, Limit::Value(0.0)),
            (1.0, Limit::Na),
            (2.0, Limit::Value(0.6)),
            (3.0, Limit::Na),
        ];
        assert_eq!(find_quantile(&c, 0.5), Some(2.0));
    }

    #[test]
    fn last_distinct_follows_r_duplicated() {
        let v = Limit::Value;
        // Monotone with NA at both ends: the second NA is a duplicate, so the last number wins.
        let c = [
            (0.0, v(0.0)),
            (1.0, Limit::Na),
            (2.0, v(0.3)),
            (3.0, v(0.3)),
            (4.0, Limit::Na),
        ];
        assert_eq!(last_distinct(&c), Some(v(0.3)));
        // NA and NaN are different values for duplicated().
        let c = [
            (0.0, v(0.0)),
            (1.0, Limit::NaN),
            (2.0, v(0.3)),
            (4.0, Limit::Na),
        ];
        assert_eq!(last_distinct(&c), Some(Limit::Na));
        // Not monotone: 0.2 repeats an earlier value, so 0.5 is the last first occurrence.
        let c = [(0.0, v(0.0)), (1.0, v(0.2)), (2.0, v(0.5)), (3.0, v(0.2))];
        assert_eq!(last_distinct(&c), Some(v(0.5)));
    }

    #[test]
    fn collett_on_uncensored_ten() {
        // Ten deaths at 1..10: S(k) = 1 − k/10. The median (S = 0.5 flat on [5, 6)) is 5.5.
        // û = 4 (S = 0.6 ≥ 0.55), l̂ = 6 (S = 0.4 ≤ 0.45): f̂ = (0.6 − 0.4)/(6 − 4) = 0.1.
        // SE(Ŝ(5.5)) = √(0.5·0.5/10) = 0.158113883 (Greenwood without censoring), so
        // SE(t̂) = 1.58113883 and the 95 % CI is 5.5 ± 1.959964·1.58113883
        // = (2.401024, 8.598976).
        let times: Vec<f64> = (1..=10).map(f64::from).collect();
        let km = kaplan_meier(&times, &[true; 10]).unwrap();
        let q = km.median_collett(0.95).unwrap();
        assert_eq!(q.estimate, Some(5.5));
        let half = 1.959963984540054 * (0.025f64).sqrt() / 0.1;
        assert!((q.lower.unwrap() - (5.5 - half)).abs() < 1e-9);
        assert!((q.upper.unwrap() - (5.5 + half)).abs() < 1e-9);
        assert!((q.lower.unwrap() - 2.401024).abs() < 1e-6);
    }
}

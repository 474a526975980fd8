//! The Cox proportional hazards model of one covariate (an arm indicator), as R's `coxph`
//! (survival 3.5) fits it for right-censored data: Efron or Breslow handling of tied event
//! times, optional strata (a baseline hazard each), Newton–Raphson from β = 0 with step halving
//! when the log partial likelihood falls, the covariate centred. Reports the hazard ratio with
//! its Wald interval, and the Wald, likelihood-ratio and score tests.
//!
//! A fit whose likelihood has no maximum (an arm without events, or events that order the arms
//! perfectly) is not estimable: [`CoxFit::hr`] is `None` and [`CoxFit::not_estimable`] says
//! why, never a huge number from a diverging fit.

use super::error::StatsError;
use super::logrank::Logrank;
use super::normal::z_for_level;
use super::timefix::tie_threshold;

/// How tied event times enter the partial likelihood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ties {
    /// Efron's approximation (R's `coxph` default).
    Efron,
    /// Breslow's approximation (SAS PROC PHREG's default).
    Breslow,
}

/// One subject of a Cox fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoxSubject {
    /// Follow-up time.
    pub time: f64,
    /// Whether the time is an event (else censored).
    pub event: bool,
    /// The covariate: 1 for the arm compared, 0 for the reference.
    pub x: f64,
    /// The stratum (0 when unstratified).
    pub stratum: u32,
}

/// A hazard ratio and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HazardRatio {
    /// exp(β).
    pub estimate: f64,
    /// exp(β − z·se).
    pub lower: f64,
    /// exp(β + z·se).
    pub upper: f64,
}

/// A fitted Cox model.
#[derive(Debug, Clone, PartialEq)]
pub struct CoxFit {
    /// β, the log hazard ratio (`None` when not estimable).
    pub coef: Option<f64>,
    /// Its standard error from the information at β.
    pub se: Option<f64>,
    /// The hazard ratio with its Wald interval at the requested level.
    pub hr: Option<HazardRatio>,
    /// Wald test p-value.
    pub p_wald: Option<f64>,
    /// Likelihood-ratio test p-value.
    pub p_lr: Option<f64>,
    /// Score test p-value (β = 0), defined even when β is not estimable.
    pub p_score: Option<f64>,
    /// Newton–Raphson iterations taken.
    pub iterations: u32,
    /// Why the hazard ratio is not estimable, when it is not.
    pub not_estimable: Option<&'static str>,
}

/// Most Newton–Raphson iterations (R's `coxph.control` allows 20; converging fits here take
/// fewer than 10).
const MAX_ITER: u32 = 30;

/// A |β| beyond this (a hazard ratio beyond e^±30) means the likelihood has no maximum.
const MAX_ABS_COEF: f64 = 30.0;

/// The log partial likelihood, score and information at one β.
#[derive(Debug, Clone, Copy)]
struct Moments {
    loglik: f64,
    score: f64,
    information: f64,
}

/// Fits the model at the `level` (e.g. 0.95) Wald interval ([`CoxData::fit`]).
pub fn cox_fit(subjects: &[CoxSubject], ties: Ties, level: f64) -> Result<CoxFit, StatsError> {
    CoxData::new(subjects)?.fit(ties, level)
}

impl CoxData {
    /// The subjects checked (finite, non-negative times and covariates) and sorted once, for
    /// any number of fits and log-rank tests.
    pub fn new(subjects: &[CoxSubject]) -> Result<CoxData, StatsError> {
        for (index, s) in subjects.iter().enumerate() {
            if !(s.time.is_finite() && s.time >= 0.0) {
                return Err(StatsError::InvalidTime {
                    index,
                    value: s.time,
                });
            }
            if !s.x.is_finite() {
                return Err(StatsError::Numerical("a covariate value is not finite"));
            }
        }
        Ok(CoxData::sorted(subjects))
    }

    /// Fits the model at the `level` (e.g. 0.95) Wald interval.
    pub fn fit(&self, ties: Ties, level: f64) -> Result<CoxFit, StatsError> {
        let z = z_for_level(level)?;
        let data = self;
        let not_estimable = |why: &'static str, p_score: Option<f64>, iterations: u32| CoxFit {
            coef: None,
            se: None,
            hr: None,
            p_wald: None,
            p_lr: None,
            p_score,
            iterations,
            not_estimable: Some(why),
        };
        let at_zero = data.moments(0.0, ties);
        if data.events == 0 {
            return Ok(not_estimable("no events", None, 0));
        }
        let p_score = (at_zero.information > 0.0)
            .then(|| chisq1_p(at_zero.score * at_zero.score / at_zero.information));
        let (events_x1, events_x0) = data.events_by_covariate();
        if events_x1 == 0 || events_x0 == 0 {
            return Ok(not_estimable("an arm has no events", p_score, 0));
        }
        if at_zero.information <= 0.0 {
            return Ok(not_estimable(
                "the covariate does not vary within any risk set",
                p_score,
                0,
            ));
        }
        // Newton–Raphson with step halving, as coxph: a step that lowers the log likelihood is
        // halved back towards the last β.
        let mut beta = 0.0;
        let mut current = at_zero;
        let mut iterations = 0;
        let mut converged = false;
        while iterations < MAX_ITER {
            iterations += 1;
            let step = current.score / current.information;
            let mut next_beta = beta + step;
            let mut next = data.moments(next_beta, ties);
            let mut halvings = 0;
            while !(next.loglik.is_finite() && next.information > 0.0)
                || next.loglik < current.loglik - 1e-12 * current.loglik.abs()
            {
                halvings += 1;
                if halvings > 40 {
                    break;
                }
                next_beta = (beta + next_beta) / 2.0;
                next = data.moments(next_beta, ties);
            }
            let moved = (next_beta - beta).abs();
            beta = next_beta;
            current = next;
            if beta.abs() > MAX_ABS_COEF {
                break;
            }
            if moved <= 1e-12 * (1.0 + beta.abs()) {
                converged = true;
                break;
            }
        }
        if !converged || beta.abs() > MAX_ABS_COEF || current.information <= 0.0 {
            return Ok(not_estimable(
                "the partial likelihood has no maximum (the arms' events are perfectly ordered)",
                p_score,
                iterations,
            ));
        }
        let se = (1.0 / current.information).sqrt();
        let wald = beta / se;
        Ok(CoxFit {
            coef: Some(beta),
            se: Some(se),
            hr: Some(HazardRatio {
                estimate: beta.exp(),
                lower: (beta - z * se).exp(),
                upper: (beta + z * se).exp(),
            }),
            p_wald: Some(chisq1_p(wald * wald)),
            p_lr: Some(chisq1_p((2.0 * (current.loglik - at_zero.loglik)).max(0.0))),
            p_score,
            iterations,
            not_estimable: None,
        })
    }
}

/// Upper tail of the chi-square distribution with one degree of freedom: the regularised
/// upper incomplete gamma Q(1/2, x/2) (statrs' `erfc` is only good to about 1e-10 relative).
pub(crate) fn chisq1_p(statistic: f64) -> f64 {
    let half = statistic.max(0.0) / 2.0;
    if half == 0.0 {
        return 1.0;
    }
    statrs::function::gamma::checked_gamma_ur(0.5, half)
        .unwrap_or_else(|_| statrs::function::erf::erfc(half.sqrt()))
}

/// Subjects of a Cox model (or a two-group log-rank test) sorted once: by stratum, each
/// stratum's times descending, near-equal times made one ([`super::timefix`], over all
/// strata as R does), the covariate centred and kept as an index into its few distinct values
/// (so each iteration takes one `exp` per value, not per subject).
#[derive(Debug, Clone)]
pub struct CoxData {
    /// (time, event, index of the centred covariate in `values`), in stratum order.
    rows: Vec<(f64, bool, u32)>,
    /// The distinct centred covariate values.
    values: Vec<f64>,
    /// Where each stratum's rows end in `rows`.
    stratum_ends: Vec<usize>,
    /// Events in all.
    events: usize,
    /// The covariate's mean (subtracted).
    mean: f64,
}

impl CoxData {
    fn sorted(subjects: &[CoxSubject]) -> CoxData {
        let n = subjects.len().max(1) as f64;
        let mean = subjects.iter().map(|s| s.x).sum::<f64>() / n;
        // Each subject's time, stratum, covariate value (by index into the few distinct
        // centred values) and event in one key, so that nothing is looked up at random after
        // the sort. Times are finite and not negative: their bit patterns sort as they do (−0
        // made 0). One sort by time, then a stable counting sort by stratum: O(n log n) once,
        // whatever the strata; the full key makes the order independent of the input's.
        let mut values: Vec<f64> = Vec::new();
        let mut keys: Vec<(u64, u32, u32)> = Vec::with_capacity(subjects.len());
        for s in subjects {
            let x = s.x - mean;
            let k = match values.iter().position(|v| v.to_bits() == x.to_bits()) {
                Some(k) => k,
                None => {
                    values.push(x);
                    values.len() - 1
                }
            };
            let k = u32::try_from(k).unwrap_or(u32::MAX >> 1);
            keys.push((
                (s.time + 0.0).to_bits(),
                s.stratum,
                k << 1 | u32::from(s.event),
            ));
        }
        keys.sort_unstable();
        let mut times: Vec<f64> = keys
            .iter()
            .rev()
            .map(|&(t, _, _)| f64::from_bits(t))
            .collect();
        timefix_descending(&mut times);
        let mut strata: Vec<u32> = subjects.iter().map(|s| s.stratum).collect();
        strata.sort_unstable();
        strata.dedup();
        let mut starts = vec![0usize; strata.len() + 1];
        let slot = |stratum: u32| strata.binary_search(&stratum).unwrap_or(0);
        for s in subjects {
            if let Some(count) = starts.get_mut(slot(s.stratum) + 1) {
                *count += 1;
            }
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let stratum_ends: Vec<usize> = starts[1..].to_vec();
        let mut rows = vec![(0.0, false, 0u32); subjects.len()];
        let mut events = 0;
        let mut next = starts;
        for (&(_, stratum, flags), &t) in keys.iter().rev().zip(&times) {
            let event = flags & 1 == 1;
            let Some(at) = next.get_mut(slot(stratum)) else {
                continue;
            };
            if let Some(row) = rows.get_mut(*at) {
                *row = (t, event, flags >> 1);
            }
            *at += 1;
            events += usize::from(event);
        }
        CoxData {
            rows,
            values,
            stratum_ends,
            events,
            mean,
        }
    }

    /// Events of subjects with the covariate above and at or below its mean (the arm and the
    /// reference when the covariate is an indicator).
    fn events_by_covariate(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for &(_, event, k) in &self.rows {
            if event {
                if self.x(k) + self.mean > 0.5 {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                }
            }
        }
        counts
    }

    fn x(&self, k: u32) -> f64 {
        self.values.get(k as usize).copied().unwrap_or(0.0)
    }

    /// Log partial likelihood, score and information at `beta`, one pass over the rows.
    fn moments(&self, beta: f64, ties: Ties) -> Moments {
        let mut m = Moments {
            loglik: 0.0,
            score: 0.0,
            information: 0.0,
        };
        // exp(βx) per distinct x (few values: an indicator has two).
        let risks: Vec<f64> = self.values.iter().map(|x| (beta * x).exp()).collect();
        let mut start = 0;
        for &end in &self.stratum_ends {
            let rows = self.rows.get(start..end).unwrap_or_default();
            // Risk-set sums of exp(βx), x·exp(βx), x²·exp(βx), grown as times descend.
            let (mut s0, mut s1, mut s2) = (0.0, 0.0, 0.0);
            let mut i = 0;
            while i < rows.len() {
                let time = rows[i].0;
                // Deaths at this time: their sums, and every subject at this time joins.
                let (mut d0, mut d1, mut d2, mut deaths, mut xsum) = (0.0, 0.0, 0.0, 0u32, 0.0);
                let mut j = i;
                while j < rows.len() && rows[j].0 == time {
                    let (_, event, k) = rows[j];
                    let x = self.x(k);
                    let r = risks.get(k as usize).copied().unwrap_or(1.0);
                    s0 += r;
                    s1 += r * x;
                    s2 += r * x * x;
                    if event {
                        d0 += r;
                        d1 += r * x;
                        d2 += r * x * x;
                        deaths += 1;
                        xsum += x;
                    }
                    j += 1;
                }
                if deaths > 0 {
                    m.loglik += beta * xsum;
                    m.score += xsum;
                    let d = f64::from(deaths);
                    for k in 0..deaths {
                        let frac = match ties {
                            Ties::Efron => f64::from(k) / d,
                            Ties::Breslow => 0.0,
                        };
                        let a0 = s0 - frac * d0;
                        let a1 = s1 - frac * d1;
                        let a2 = s2 - frac * d2;
                        let mean = a1 / a0;
                        m.loglik -= a0.ln();
                        m.score -= mean;
                        m.information += a2 / a0 - mean * mean;
                    }
                }
                i = j;
            }
            start = end;
        }
        m
    }

    /// The log-rank test of the covariate's two groups (above its mean and not), summed over
    /// the strata, as `survdiff`: the same numbers as [`super::logrank::logrank`] with two
    /// groups, from the rows sorted once.
    pub fn logrank(&self) -> Logrank {
        let (mut observed, mut expected, mut variance) = ([0.0f64; 2], [0.0f64; 2], 0.0);
        let group = |k: u32| usize::from(self.x(k) + self.mean > 0.5);
        let mut start = 0;
        for &end in &self.stratum_ends {
            let rows = self.rows.get(start..end).unwrap_or_default();
            let mut at_risk = [0.0f64; 2];
            let mut i = 0;
            while i < rows.len() {
                let time = rows[i].0;
                let mut deaths = [0.0f64; 2];
                while i < rows.len() && rows[i].0 == time {
                    let (_, event, k) = rows[i];
                    let g = group(k);
                    at_risk[g] += 1.0;
                    if event {
                        deaths[g] += 1.0;
                    }
                    i += 1;
                }
                let d = deaths[0] + deaths[1];
                if d == 0.0 {
                    continue;
                }
                let n = at_risk[0] + at_risk[1];
                for g in 0..2 {
                    observed[g] += deaths[g];
                    expected[g] += d * at_risk[g] / n;
                }
                if n > 1.0 {
                    variance += d * (n - d) / (n * n * (n - 1.0)) * at_risk[0] * at_risk[1];
                }
            }
            start = end;
        }
        let both = expected[0] > 0.0 && expected[1] > 0.0;
        let diff = observed[1] - expected[1];
        let chisq = if both && variance > 0.0 {
            diff * diff / variance
        } else {
            0.0
        };
        Logrank {
            chisq,
            df: usize::from(both),
            // No variance is no information: no test (R's survdiff refuses such data).
            p: (both && variance > 0.0).then(|| chisq1_p(chisq)),
            observed: observed.to_vec(),
            expected: expected.to_vec(),
        }
    }
}

/// Times sorted descending made equal as R's `aeqSurv` does (each the first, i.e. smallest,
/// time of its run of near-equal times), in one pass.
fn timefix_descending(times: &mut [f64]) {
    let (mut distinct, mut sum, mut min_gap, mut last) = (0usize, 0.0f64, f64::INFINITY, None);
    for &t in times.iter() {
        if last != Some(t) {
            distinct += 1;
            sum += t.abs();
            if let Some(l) = last {
                min_gap = min_gap.min(l - t);
            }
            last = Some(t);
        }
    }
    if distinct < 2 || min_gap > tie_threshold(sum / distinct as f64) {
        return;
    }
    let threshold = tie_threshold(sum / distinct as f64);
    // Ascending: each run of times within the threshold of the one before takes its first.
    let mut run_start = f64::NAN;
    let mut previous = f64::NEG_INFINITY;
    for t in times.iter_mut().rev() {
        let value = *t;
        if value - previous > threshold || run_start.is_nan() {
            run_start = value;
        }
        previous = value;
        *t = run_start;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn subject(time: f64, event: bool, x: f64) -> CoxSubject {
        CoxSubject {
            time,
            event,
            x,
            stratum: 0,
        }
    }

    /// Events that order the arms perfectly (the arm's all first) have no finite β; an arm
    /// without events neither.
    #[test]
    fn perfectly_ordered_events_are_not_estimable() {
        let data = [
            subject(1.0, true, 1.0),
            subject(2.0, true, 1.0),
            subject(3.0, true, 0.0),
            subject(4.0, true, 0.0),
        ];
        let fit = cox_fit(&data, Ties::Efron, 0.95).unwrap();
        assert!(fit.hr.is_none(), "{fit:?}");
        assert!(fit.not_estimable.is_some());
        assert!(fit.p_score.is_some());
        let none = [subject(1.0, false, 1.0), subject(2.0, true, 0.0)];
        let fit = cox_fit(&none, Ties::Breslow, 0.95).unwrap();
        assert_eq!(fit.not_estimable, Some("an arm has no events"));
    }

    /// At the fitted β the score is zero, with a tie handled either way.
    #[test]
    fn the_score_is_zero_at_the_fit() {
        let data = [
            subject(1.0, true, 1.0),
            subject(2.0, true, 0.0),
            subject(3.0, false, 1.0),
            subject(4.0, true, 0.0),
            subject(5.0, true, 1.0),
            subject(6.0, true, 0.0),
            subject(2.0, true, 1.0),
        ];
        for ties in [Ties::Efron, Ties::Breslow] {
            let fit = cox_fit(&data, ties, 0.95).unwrap();
            let beta = fit.coef.unwrap();
            let sorted = CoxData::new(&data).unwrap();
            assert!(sorted.moments(beta, ties).score.abs() < 1e-10, "{ties:?}");
        }
    }
}

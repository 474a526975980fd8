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
use super::normal::z_for_level;
use super::timefix::SurvTimes;

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

/// Fits the model at the `level` (e.g. 0.95) Wald interval.
pub fn cox_fit(subjects: &[CoxSubject], ties: Ties, level: f64) -> Result<CoxFit, StatsError> {
    let z = z_for_level(level)?;
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
    let data = Sorted::new(subjects);
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

/// The subjects by stratum, times descending, tied times grouped, covariate centred.
struct Sorted {
    /// (time, event, centred x) in stratum order, each stratum's times descending.
    rows: Vec<(f64, bool, f64)>,
    /// Where each stratum's rows end in `rows`.
    stratum_ends: Vec<usize>,
    /// Events in all.
    events: usize,
    /// The covariate's mean (subtracted).
    mean: f64,
}

impl Sorted {
    fn new(subjects: &[CoxSubject]) -> Sorted {
        let n = subjects.len().max(1) as f64;
        let mean = subjects.iter().map(|s| s.x).sum::<f64>() / n;
        let times = SurvTimes::of(subjects.iter().map(|s| s.time));
        let mut order: Vec<usize> = (0..subjects.len()).collect();
        order.sort_by(|&a, &b| {
            subjects[a]
                .stratum
                .cmp(&subjects[b].stratum)
                .then(times.get(b).total_cmp(&times.get(a)))
        });
        let mut rows = Vec::with_capacity(order.len());
        let mut stratum_ends = Vec::new();
        let mut events = 0;
        for (k, &i) in order.iter().enumerate() {
            let s = &subjects[i];
            if k > 0 && subjects[order[k - 1]].stratum != s.stratum {
                stratum_ends.push(rows.len());
            }
            events += usize::from(s.event);
            rows.push((times.get(i), s.event, s.x - mean));
        }
        stratum_ends.push(rows.len());
        Sorted {
            rows,
            stratum_ends,
            events,
            mean,
        }
    }

    /// Events of subjects with the covariate above and at or below its mean (the arm and the
    /// reference when the covariate is an indicator).
    fn events_by_covariate(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for &(_, event, x) in &self.rows {
            if event {
                if x + self.mean > 0.5 {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                }
            }
        }
        counts
    }

    /// Log partial likelihood, score and information at `beta`, one pass over the rows.
    fn moments(&self, beta: f64, ties: Ties) -> Moments {
        let mut m = Moments {
            loglik: 0.0,
            score: 0.0,
            information: 0.0,
        };
        let mut start = 0;
        for &end in &self.stratum_ends {
            let rows = &self.rows[start..end];
            // Risk-set sums of exp(βx), x·exp(βx), x²·exp(βx), grown as times descend.
            let (mut s0, mut s1, mut s2) = (0.0, 0.0, 0.0);
            let mut i = 0;
            while i < rows.len() {
                let time = rows[i].0;
                // Deaths at this time: their sums, and every subject at this time joins.
                let (mut d0, mut d1, mut d2, mut deaths, mut xsum) = (0.0, 0.0, 0.0, 0u32, 0.0);
                let mut j = i;
                while j < rows.len() && rows[j].0 == time {
                    let (_, event, x) = rows[j];
                    let r = (beta * x).exp();
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
            let sorted = Sorted::new(&data);
            assert!(sorted.moments(beta, ties).score.abs() < 1e-10, "{ties:?}");
        }
    }
}

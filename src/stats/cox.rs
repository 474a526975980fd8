//! The Cox proportional hazards model of the arm (the arm compared against the reference),
//! as R's `coxph` (survival 3.5) fits it for right-censored data: Efron or Breslow handling of
//! tied event times, optional strata (a baseline hazard each), the covariate centred,
//! Newton–Raphson from β = 0 with step halving when the log partial likelihood falls. Reports
//! the hazard ratio with its Wald interval, and the Wald, likelihood-ratio and score tests.
//!
//! The fit runs to convergence. A likelihood that has no maximum (monotone likelihood: an arm
//! without events, or events that order the arms perfectly) is recognised as R and SAS
//! recognise it, at the end: the log-likelihood has converged while the coefficient still
//! runs off. Then the hazard ratio is `None` and [`CoxFit::not_estimable`] says why, never a
//! huge number; the likelihood-ratio test, defined by the likelihood's supremum, is kept.

use super::arms::{ArmModel, ArmSubject, ArmTimes, Row};
use super::chisq::chisq_upper;
use super::error::StatsError;
use super::interval::Ci;
use super::normal::z_for_level;

/// How tied event times enter the partial likelihood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ties {
    /// Efron's approximation (R's `coxph` default).
    Efron,
    /// Breslow's approximation (SAS PROC PHREG's default).
    Breslow,
}

/// A fitted Cox model.
#[derive(Debug, Clone, PartialEq)]
pub struct CoxFit {
    /// β, the log hazard ratio (`None` when not estimable).
    pub coef: Option<f64>,
    /// Its standard error from the information at β.
    pub se: Option<f64>,
    /// The hazard ratio with its Wald interval at the requested level.
    pub hr: Option<Ci>,
    /// Wald test p-value.
    pub p_wald: Option<f64>,
    /// Likelihood-ratio test p-value: defined whenever the likelihood has a maximum or a
    /// supremum (monotone likelihood).
    pub p_lr: Option<f64>,
    /// Score test p-value (β = 0), defined even when β is not estimable.
    pub p_score: Option<f64>,
    /// Newton–Raphson iterations taken.
    pub iterations: u32,
    /// Why the hazard ratio is not estimable, when it is not.
    pub not_estimable: Option<&'static str>,
}

/// Most Newton–Raphson iterations. R's `coxph.control` allows 20 from β = 0; a fit that
/// starts far from its answer (a small arm with a hazard ratio in the thousands) takes more,
/// step halving pulling each overshoot back.
const MAX_ITER: u32 = 200;

/// R's convergence tolerance (`coxph.control(eps = 1e-9)`), and its tolerance for an
/// infinite coefficient, √eps.
const EPS: f64 = 1e-9;

/// The log partial likelihood, score and information at one β.
#[derive(Debug, Clone, Copy)]
struct Moments {
    loglik: f64,
    score: f64,
    information: f64,
}

impl Moments {
    fn usable(&self) -> bool {
        self.loglik.is_finite() && self.score.is_finite() && self.information.is_finite()
    }
}

/// Fits the model of `subjects` at the `level` (e.g. 0.95) Wald interval, as a model of its
/// own ([`ArmModel::cox`]): stratified when any subject has a stratum (those without are
/// left out).
pub fn cox_fit(subjects: &[ArmSubject], ties: Ties, level: f64) -> Result<CoxFit, StatsError> {
    let data = ArmTimes::new(subjects)?;
    let stratified = subjects.iter().any(|s| s.stratum.is_some());
    data.model(stratified).cox(ties, level)
}

impl ArmModel<'_> {
    /// Fits the Cox model of this model's subjects at the `level` Wald interval.
    pub fn cox(&self, ties: Ties, level: f64) -> Result<CoxFit, StatsError> {
        let z = z_for_level(level)?;
        let not_estimable = |why: &'static str, p_score, p_lr, iterations| CoxFit {
            coef: None,
            se: None,
            hr: None,
            p_wald: None,
            p_lr,
            p_score,
            iterations,
            not_estimable: Some(why),
        };
        if self.events == 0 {
            return Ok(not_estimable("no events", None, None, 0));
        }
        let at_zero = self.moments(0.0, ties);
        if !at_zero.usable() {
            return Err(StatsError::Numerical("the partial likelihood at β = 0"));
        }
        if at_zero.information <= 0.0 {
            let why = if self.events_by_arm.contains(&0) {
                "an arm has no events"
            } else {
                "the arm does not vary within any risk set"
            };
            return Ok(not_estimable(why, None, None, 0));
        }
        let p_score = Some(chisq_upper(
            at_zero.score * at_zero.score / at_zero.information,
            1,
        )?);
        let lr = |m: &Moments| chisq_upper((2.0 * (m.loglik - at_zero.loglik)).max(0.0), 1);
        // Newton–Raphson with step halving, as coxph: a step that lowers the log likelihood
        // (or leaves the doubles) is halved back towards the last β.
        let (mut beta, mut current) = (0.0f64, at_zero);
        let (mut iterations, mut running_off) = (0u32, 0u32);
        while iterations < MAX_ITER {
            iterations += 1;
            let mut next_beta = beta + current.score / current.information;
            let mut next = self.moments(next_beta, ties);
            let mut halvings = 0;
            while !(next.usable() && next.information > 0.0)
                || next.loglik < current.loglik - 1e-12 * current.loglik.abs()
            {
                halvings += 1;
                if halvings > 60 {
                    break;
                }
                next_beta = (beta + next_beta) / 2.0;
                next = self.moments(next_beta, ties);
            }
            if !(next.usable() && next.information > 0.0) {
                break;
            }
            let moved = (next_beta - beta).abs();
            let gained = next.loglik - current.loglik;
            beta = next_beta;
            current = next;
            if moved <= 1e-12 * (1.0 + beta.abs()) {
                // Converged: a maximum.
                let se = (1.0 / current.information).sqrt();
                let wald = beta / se;
                return Ok(CoxFit {
                    coef: Some(beta),
                    se: Some(se),
                    hr: Some(Ci {
                        estimate: beta.exp(),
                        lower: (beta - z * se).exp(),
                        upper: (beta + z * se).exp(),
                    }),
                    p_wald: Some(chisq_upper(wald * wald, 1)?),
                    p_lr: Some(lr(&current)?),
                    p_score,
                    iterations,
                    not_estimable: None,
                });
            }
            // The likelihood has converged but β still moves by more than √eps of itself
            // (R's test of an infinite coefficient), three times running: monotone
            // likelihood. Near a maximum, Newton's steps shrink too fast for that.
            let flat = gained.abs() <= EPS * current.loglik.abs().max(1.0);
            if flat && moved > EPS && moved > EPS.sqrt() * beta.abs() {
                running_off += 1;
                if running_off >= 3 {
                    let why = if self.events_by_arm.contains(&0) {
                        "an arm has no events"
                    } else {
                        "the partial likelihood has no maximum (the arms' events are perfectly ordered)"
                    };
                    return Ok(not_estimable(why, p_score, Some(lr(&current)?), iterations));
                }
            } else {
                running_off = 0;
            }
        }
        Ok(not_estimable(
            "the Newton–Raphson iterations did not converge",
            p_score,
            None,
            iterations,
        ))
    }

    /// Log partial likelihood, score and information at `beta`, one pass over the rows; a
    /// risk set per stratum, grown as the times descend.
    fn moments(&self, beta: f64, ties: Ties) -> Moments {
        let mut m = Moments {
            loglik: 0.0,
            score: 0.0,
            information: 0.0,
        };
        let mean = self.arm_share();
        // The covariate centred, and exp(βx), for the reference (0) and the arm (1).
        let x = [-mean, 1.0 - mean];
        let risk = [(beta * x[0]).exp(), (beta * x[1]).exp()];
        // Risk-set sums of exp(βx), x·exp(βx), x²·exp(βx) per stratum.
        let mut sums = vec![[0.0f64; 3]; self.slots()];
        // This time's deaths per stratum: the sums of their exp(βx) terms, the count, Σx.
        let mut deaths: Vec<(usize, [f64; 3], u32, f64)> = Vec::new();
        self.for_each_time(|rows: &[Row]| {
            deaths.clear();
            for row in rows {
                let k = usize::from(row.in_arm);
                let (xk, r) = (x[k], risk[k]);
                let terms = [r, r * xk, r * xk * xk];
                // Strata are numbered below `slots()` (the model checked them).
                for (sum, term) in sums[row.stratum].iter_mut().zip(terms) {
                    *sum += term;
                }
                if row.event {
                    match deaths.iter_mut().find(|d| d.0 == row.stratum) {
                        Some(d) => {
                            for (sum, term) in d.1.iter_mut().zip(terms) {
                                *sum += term;
                            }
                            d.2 += 1;
                            d.3 += xk;
                        }
                        None => deaths.push((row.stratum, terms, 1, xk)),
                    }
                }
            }
            for &(stratum, d, count, xsum) in &deaths {
                let s = &sums[stratum];
                m.loglik += beta * xsum;
                m.score += xsum;
                let n = f64::from(count);
                for k in 0..count {
                    let frac = match ties {
                        Ties::Efron => f64::from(k) / n,
                        Ties::Breslow => 0.0,
                    };
                    let a0 = s[0] - frac * d[0];
                    let a1 = s[1] - frac * d[1];
                    let a2 = s[2] - frac * d[2];
                    let mean = a1 / a0;
                    m.loglik -= a0.ln();
                    m.score -= mean;
                    m.information += a2 / a0 - mean * mean;
                }
            }
        });
        m
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    fn subject(time: f64, event: bool, x: f64) -> ArmSubject {
        ArmSubject {
            time,
            event,
            in_arm: x > 0.5,
            stratum: None,
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
            let sorted = ArmTimes::new(&data).unwrap();
            assert!(
                sorted.model(false).moments(beta, ties).score.abs() < 1e-10,
                "{ties:?}"
            );
        }
    }
}

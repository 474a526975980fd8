//! Restricted mean survival time and the risk table of a Kaplan–Meier curve (docs/OUTPUTS.md,
//! "Survival beyond the median").
//!
//! RMST up to τ is the area under the curve from 0 to τ, with the variance R's
//! `print(survfit(...), rmean = τ)` gives (`survmean`): Σ over the distinct times t ≤ τ of
//! A(t)² · d / (n (n − d)), A(t) the area from t to τ. Two arms are compared as survRM2's
//! `rmst2` does from the two estimates and SEs: the difference with a z-interval, the ratio on
//! the log scale, each with its two-sided Wald p.

use serde::Serialize;

use super::chisq::chisq_upper;
use super::km::KaplanMeier;
use super::normal::z_for_level;
use super::StatsError;

/// The RMST of one curve up to `tau`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rmst {
    /// The horizon τ (the curve's time unit).
    pub tau: f64,
    /// Area under the curve from 0 to τ.
    pub estimate: f64,
    /// Its standard error.
    pub se: f64,
}

impl Rmst {
    /// The interval estimate ± z·SE at `level`.
    ///
    /// # Errors
    /// [`StatsError::InvalidLevel`] for a level outside (0, 1).
    pub fn interval(&self, level: f64) -> Result<(f64, f64), StatsError> {
        let z = z_for_level(level)?;
        Ok((self.estimate - z * self.se, self.estimate + z * self.se))
    }

    /// The same RMST in another unit (`estimate`, `se` and `tau` divided by `per`).
    pub fn scaled(&self, per: f64) -> Rmst {
        Rmst {
            tau: self.tau / per,
            estimate: self.estimate / per,
            se: self.se / per,
        }
    }
}

/// An estimate compared, with its interval and two-sided p (`None` where the SE is 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Contrast {
    /// Point estimate.
    pub estimate: f64,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
    /// Two-sided Wald p-value.
    pub p: Option<f64>,
}

/// Two arms' RMST compared: `arm − reference` and `arm / reference`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RmstContrast {
    /// Difference with its z-interval.
    pub difference: Contrast,
    /// Ratio with its interval on the log scale; `None` when an RMST is 0.
    pub ratio: Option<Contrast>,
}

impl KaplanMeier {
    /// The RMST up to `tau` (> 0), as `summary(survfit, rmean = tau)$table`.
    ///
    /// # Errors
    /// [`StatsError::InvalidLandmark`] for a τ that is not finite and positive.
    pub fn rmst(&self, tau: f64) -> Result<Rmst, StatsError> {
        if !(tau.is_finite() && tau > 0.0) {
            return Err(StatsError::InvalidLandmark(tau));
        }
        let kept = self.steps().partition_point(|s| s.time <= tau);
        let steps = &self.steps()[..kept];
        // Rectangles after each kept time, at the survival just after it, up to τ.
        let mut area_after = 0.0;
        let mut variance = 0.0;
        let mut next = tau;
        let mut estimate = 0.0;
        for s in steps.iter().rev() {
            let rectangle = (next - s.time) * s.surv;
            area_after += rectangle;
            estimate += rectangle;
            let (n, d) = (s.n_risk as f64, s.n_event as f64);
            if s.n_event > 0 && s.n_risk > s.n_event {
                variance += area_after * area_after * d / (n * (n - d));
            }
            next = s.time;
        }
        // From 0 to the first time the curve is 1.
        estimate += next;
        Ok(Rmst {
            tau,
            estimate,
            se: variance.sqrt(),
        })
    }

    /// At risk, cumulative events and cumulative censorings at each of `times`, as
    /// `summary(survfit, times, extend = TRUE)` with its per-interval counts summed: at risk
    /// those whose time is ≥ t (0 past the last time), events and censorings at times ≤ t.
    pub fn risk_table(&self, times: &[f64]) -> Vec<RiskRow> {
        let steps = self.steps();
        let step = |k: usize| {
            steps
                .get(k)
                .map(|s| (s.time, s.n_risk, [s.n_event, s.n_censor, 0]))
        };
        tabulate(self.n(), step, times)
            .into_iter()
            .map(|(time, at_risk, [events, censored, _])| RiskRow {
                time,
                at_risk,
                events,
                censored,
            })
            .collect()
    }
}

/// At risk and counts so far at each of `times` (in their order), from `n` subjects and the
/// `k`-th distinct time's (time, at risk, counts) for k = 0, 1, ...: at risk those whose time is
/// ≥ t (0 past the last time), each count summed over the times ≤ t. The risk table of a
/// Kaplan–Meier curve and of a cumulative incidence.
pub(crate) fn tabulate(
    n: usize,
    step: impl Fn(usize) -> Option<(f64, usize, [usize; 3])>,
    times: &[f64],
) -> Vec<(f64, usize, [usize; 3])> {
    let (mut counts, mut k) = ([0; 3], 0);
    let mut sorted: Vec<(usize, f64)> = times.iter().copied().enumerate().collect();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut out = vec![None; times.len()];
    for (at, t) in sorted {
        while let Some((_, _, c)) = step(k).filter(|s| s.0 <= t) {
            for (sum, c) in counts.iter_mut().zip(c) {
                *sum += c;
            }
            k += 1;
        }
        let at_risk = match step(k) {
            Some(s) => s.1,
            None if k == 0 => n,
            None => 0,
        };
        // At a step's own time its subjects are still at risk (time ≥ t).
        let at_risk = match k.checked_sub(1).and_then(&step) {
            Some(s) if s.0 == t => s.1,
            _ => at_risk,
        };
        if let Some(slot) = out.get_mut(at) {
            *slot = Some((t, at_risk, counts));
        }
    }
    out.into_iter().flatten().collect()
}

/// One row of a risk table (KMunicate: at risk, events and censored so far).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RiskRow {
    /// The time.
    pub time: f64,
    /// Subjects whose time is ≥ `time`.
    pub at_risk: usize,
    /// Events at or before `time`.
    pub events: usize,
    /// Censorings at or before `time`.
    pub censored: usize,
}

/// `arm` against `reference` at the same τ, as survRM2's `rmst2`.
///
/// # Errors
/// [`StatsError::InvalidLevel`] for a level outside (0, 1).
pub fn rmst_contrast(arm: &Rmst, reference: &Rmst, level: f64) -> Result<RmstContrast, StatsError> {
    let z = z_for_level(level)?;
    let wald_p = |estimate: f64, se: f64| {
        if se > 0.0 {
            chisq_upper((estimate / se).powi(2), 1).ok()
        } else {
            None
        }
    };
    let d = arm.estimate - reference.estimate;
    let sd = arm.se.hypot(reference.se);
    let difference = Contrast {
        estimate: d,
        lower: d - z * sd,
        upper: d + z * sd,
        p: wald_p(d, sd),
    };
    let ratio = (arm.estimate > 0.0 && reference.estimate > 0.0).then(|| {
        let lr = (arm.estimate / reference.estimate).ln();
        let sr = (arm.se / arm.estimate).hypot(reference.se / reference.estimate);
        Contrast {
            estimate: lr.exp(),
            lower: (lr - z * sr).exp(),
            upper: (lr + z * sr).exp(),
            p: wald_p(lr, sr),
        }
    });
    Ok(RmstContrast { difference, ratio })
}

#[cfg(test)]
mod tests {
    use crate::stats::kaplan_meier;

    #[test]
    fn rmst_of_a_small_curve_by_hand() {
        // Events at 2 and 4 of 4 subjects (one censored at 3): S = 0.75 from 2, 0.375 from 4.
        let fit = kaplan_meier(&[2.0, 3.0, 4.0, 6.0], &[true, false, true, false]).unwrap();
        let r = fit.rmst(5.0).unwrap();
        assert!((r.estimate - (2.0 + 0.75 * 2.0 + 0.375)).abs() < 1e-12);
        // A(2) = 1.875 (d 1, n 4), A(4) = 0.375 (d 1, n 2).
        let var = 1.875f64.powi(2) / 12.0 + 0.375f64.powi(2) / 2.0;
        assert!((r.se - var.sqrt()).abs() < 1e-12);
        let none = kaplan_meier(&[7.0], &[false]).unwrap().rmst(5.0).unwrap();
        assert_eq!((none.estimate, none.se), (5.0, 0.0));
        assert!(fit.rmst(0.0).is_err());
    }

    #[test]
    fn risk_table_counts_at_and_between_times() {
        let fit = kaplan_meier(&[2.0, 3.0, 4.0, 6.0], &[true, false, true, false]).unwrap();
        let rows = fit.risk_table(&[0.0, 2.0, 3.5, 10.0]);
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.at_risk, r.events, r.censored))
            .collect();
        assert_eq!(got, vec![(4, 0, 0), (4, 1, 0), (2, 1, 1), (0, 2, 2)]);
    }
}

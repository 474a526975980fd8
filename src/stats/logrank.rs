//! The log-rank test of an arm against the reference as R's `survdiff` (rho = 0) computes it,
//! over an [`ArmModel`]: at each distinct event time the observed and expected events of the
//! arm and their hypergeometric variance, summed over the event times and, when stratified,
//! over the strata; the statistic is (O − E)² / V on one degree of freedom. Times are made
//! equal as R makes them ([`super::timefix`]).
//!
//! A test without information (no variance: every event time has one subject at risk, or the
//! subjects at risk all die) has no statistic; R's `survdiff` refuses such data.

use super::arms::{ArmModel, Row};
use super::chisq::chisq_upper;
use super::error::StatsError;

/// A log-rank test of two arms.
#[derive(Debug, Clone, PartialEq)]
pub struct Logrank {
    /// Chi-square statistic; `None` without information.
    pub chisq: Option<f64>,
    /// Degrees of freedom: 1 when both arms have expected events, else 0.
    pub df: usize,
    /// Upper-tail p-value; `None` without a degree of freedom or without information.
    pub p: Option<f64>,
    /// Observed events: the reference, the arm.
    pub observed: [f64; 2],
    /// Expected events: the reference, the arm.
    pub expected: [f64; 2],
}

impl ArmModel<'_> {
    /// The log-rank test of this model's subjects (stratified when the model is).
    pub fn logrank(&self) -> Result<Logrank, StatsError> {
        let (mut observed, mut expected, mut variance) = ([0.0f64; 2], [0.0f64; 2], 0.0);
        // Subjects at risk per stratum and arm, grown as the times descend.
        let mut at_risk = vec![[0.0f64; 2]; self.slots()];
        let mut deaths: Vec<(usize, [f64; 2])> = Vec::new();
        self.for_each_time(|rows: &[Row]| {
            deaths.clear();
            for row in rows {
                let arm = usize::from(row.in_arm);
                // Strata are numbered below `slots()` (the model checked them).
                at_risk[row.stratum][arm] += 1.0;
                if row.event {
                    match deaths.iter_mut().find(|d| d.0 == row.stratum) {
                        Some(d) => d.1[arm] += 1.0,
                        None => {
                            let mut d = [0.0; 2];
                            d[arm] = 1.0;
                            deaths.push((row.stratum, d));
                        }
                    }
                }
            }
            for &(stratum, died) in &deaths {
                let n = &at_risk[stratum];
                let (d, total) = (died[0] + died[1], n[0] + n[1]);
                for arm in 0..2 {
                    observed[arm] += died[arm];
                    expected[arm] += d * n[arm] / total;
                }
                if total > 1.0 {
                    variance += d * (total - d) / (total * total * (total - 1.0)) * n[0] * n[1];
                }
            }
        });
        let both = expected[0] > 0.0 && expected[1] > 0.0;
        let informative = both && variance > 0.0;
        let chisq = informative.then(|| (observed[1] - expected[1]).powi(2) / variance);
        let p = chisq.map(|c| chisq_upper(c, 1)).transpose()?;
        Ok(Logrank {
            chisq,
            df: usize::from(both),
            p,
            observed,
            expected,
        })
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::super::arms::{ArmSubject, ArmTimes};

    fn s(time: f64, event: bool, in_arm: bool) -> ArmSubject {
        ArmSubject {
            time,
            event,
            in_arm,
            stratum: None,
        }
    }

    /// Two arms by hand: at t=1 (2 + 2 at risk) one death in the reference: E0 = 1/2,
    /// V = (1/2)(1/2) = 1/4; at t=2 (1 + 2 at risk) one death in the arm: E0 = 1/3,
    /// V = (1/3)(2/3) = 2/9. O0 − E0 = 1 − 5/6; chi-square = (1/6)² / (1/4 + 2/9).
    #[test]
    fn two_arms_by_hand() {
        let data = ArmTimes::new(&[
            s(1.0, true, false),
            s(3.0, false, false),
            s(2.0, true, true),
            s(3.0, false, true),
        ])
        .unwrap();
        let test = data.model(false).logrank().unwrap();
        assert_eq!(test.df, 1);
        assert!((test.expected[0] - 5.0 / 6.0).abs() < 1e-12);
        let chisq = (1.0f64 / 6.0).powi(2) / (0.25 + 2.0 / 9.0);
        assert!((test.chisq.unwrap() - chisq).abs() < 1e-12);
        // Both subjects die at once: no variance, no test.
        let data = ArmTimes::new(&[s(5.0, true, false), s(5.0, true, true)]).unwrap();
        let test = data.model(false).logrank().unwrap();
        assert_eq!((test.chisq, test.p, test.df), (None, None, 1));
    }
}

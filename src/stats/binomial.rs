//! Confidence intervals for a proportion (response rates): exact Clopper–Pearson and Wilson.
//!
//! Clopper–Pearson agrees with R's `binom.test(x, n, conf.level = level)$conf.int`: the limits
//! are Beta quantiles, found here by bisecting the regularized incomplete beta function
//! (statrs' `beta_reg`) over the bit patterns of the doubles in [0, 1], which pins the root to
//! adjacent doubles in at most 64 steps. Wilson is the score interval without continuity
//! correction. This module does not do hypothesis tests or one-sided intervals.

use statrs::function::beta::checked_beta_reg;

use super::interval::Interval;
use super::normal::{check_level, normal_quantile};
use super::StatsError;

fn check_counts(x: usize, n: usize) -> Result<(), StatsError> {
    if n == 0 {
        Err(StatsError::NoTrials)
    } else if x > n {
        Err(StatsError::SuccessesExceedTrials {
            successes: x,
            trials: n,
        })
    } else {
        Ok(())
    }
}

/// The exact (Clopper–Pearson) interval for `x` successes in `n` trials, as `binom.test`:
/// lower = Beta⁻¹(α/2; x, n − x + 1) (0 when x = 0), upper = Beta⁻¹(1 − α/2; x + 1, n − x)
/// (1 when x = n), with α = 1 − level.
///
/// # Errors
/// [`StatsError::NoTrials`] for n = 0, [`StatsError::SuccessesExceedTrials`] for x > n,
/// [`StatsError::InvalidLevel`] unless `0 < level < 1`.
pub fn clopper_pearson(x: usize, n: usize, level: f64) -> Result<Interval, StatsError> {
    check_counts(x, n)?;
    check_level(level)?;
    // Written as binom.test writes it, so that e.g. 1/1 gives lower = 0.025000000000000022.
    let alpha = (1.0 - level) / 2.0;
    let (xf, nf) = (x as f64, n as f64);
    let lower = if x == 0 {
        0.0
    } else {
        beta_quantile(alpha, xf, nf - xf + 1.0)?
    };
    let upper = if x == n {
        1.0
    } else {
        beta_quantile(1.0 - alpha, xf + 1.0, nf - xf)?
    };
    Ok(Interval { lower, upper })
}

/// The Wilson score interval for `x` successes in `n` trials, *without* continuity
/// correction: identical to R's `prop.test(x, n, conf.level = level, correct = FALSE)$conf.int`
/// (same formula and the same clipping to [0, 1]).
///
/// # Errors
/// As [`clopper_pearson`].
pub fn wilson(x: usize, n: usize, level: f64) -> Result<Interval, StatsError> {
    check_counts(x, n)?;
    check_level(level)?;
    let z = normal_quantile((1.0 + level) / 2.0)?;
    let (xf, nf) = (x as f64, n as f64);
    let estimate = xf / nf;
    let z22n = z * z / (2.0 * nf);
    let spread = z * (estimate * (1.0 - estimate) / nf + z22n / (2.0 * nf)).sqrt();
    let denominator = 1.0 + 2.0 * z22n;
    let upper = if estimate >= 1.0 {
        1.0
    } else {
        (estimate + z22n + spread) / denominator
    };
    let lower = if estimate <= 0.0 {
        0.0
    } else {
        (estimate + z22n - spread) / denominator
    };
    Ok(Interval {
        lower: lower.max(0.0),
        upper: upper.min(1.0),
    })
}

/// The `q`-quantile of Beta(a, b): the p with I_p(a, b) = q.
///
/// Bisection on the ordered bit patterns of non-negative doubles: I_p is increasing in p, and
/// after at most 64 halvings `lo` and `hi` are neighbouring doubles, so the answer is as exact
/// as `beta_reg` itself (~1e-14 relative), in the tails too, where Newton steps on a flat
/// function are fragile.
fn beta_quantile(q: f64, a: f64, b: f64) -> Result<f64, StatsError> {
    let cdf = |p: f64| {
        checked_beta_reg(a, b, p).map_err(|_| StatsError::Numerical("regularized incomplete beta"))
    };
    let (mut lo, mut hi) = (0.0f64.to_bits(), 1.0f64.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if cdf(f64::from_bits(mid))? < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (p_lo, p_hi) = (f64::from_bits(lo), f64::from_bits(hi));
    // Of the two neighbours, the one whose CDF is nearer the target.
    let answer = if (cdf(p_lo)? - q).abs() < (cdf(p_hi)? - q).abs() {
        p_lo
    } else {
        p_hi
    };
    if answer.is_finite() {
        Ok(answer)
    } else {
        Err(StatsError::Numerical("beta quantile"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_counts() {
        let i = clopper_pearson(0, 10, 0.95).unwrap();
        assert_eq!(i.lower, 0.0);
        // 1 − 0.025^(1/10), the closed form for x = 0.
        assert!((i.upper - (1.0 - 0.025f64.powf(0.1))).abs() < 1e-14);
        let i = clopper_pearson(10, 10, 0.95).unwrap();
        assert_eq!(i.upper, 1.0);
        assert!((i.lower - 0.025f64.powf(0.1)).abs() < 1e-14);
        assert_eq!(clopper_pearson(1, 0, 0.95), Err(StatsError::NoTrials));
        assert!(clopper_pearson(3, 2, 0.95).is_err());
        assert!(clopper_pearson(1, 2, 1.0).is_err());
    }

    #[test]
    fn wilson_matches_prop_test() {
        // prop.test(7, 20, correct = FALSE)$conf.int: 0.1811918 0.5671457
        let i = wilson(7, 20, 0.95).unwrap();
        assert!((i.lower - 0.1811918).abs() < 1e-7);
        assert!((i.upper - 0.5671457).abs() < 1e-7);
        let i = wilson(0, 5, 0.95).unwrap();
        assert_eq!(i.lower, 0.0);
        let i = wilson(5, 5, 0.95).unwrap();
        assert_eq!(i.upper, 1.0);
    }
}

//! Standard normal quantiles for confidence intervals.
//!
//! Only the inverse CDF of N(0, 1) lives here (via statrs' `erfc_inv`, accurate to a few ulps,
//! which agrees with R's `qnorm` far inside the 1e-6 the project promises). No other
//! distributions, no random numbers.

use statrs::function::erf::erfc_inv;

use super::StatsError;

/// The `p`-quantile of the standard normal distribution, R's `qnorm(p)`.
///
/// `p = 0` gives −∞ and `p = 1` gives +∞, as in R.
///
/// # Errors
/// [`StatsError::InvalidProbability`] when `p` is NaN or outside [0, 1].
pub fn normal_quantile(p: f64) -> Result<f64, StatsError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(StatsError::InvalidProbability(p));
    }
    // qnorm(p) = −√2 · erfc⁻¹(2p); erfc⁻¹ handles both tails without cancellation.
    Ok(-std::f64::consts::SQRT_2 * erfc_inv(2.0 * p))
}

/// The two-sided critical value for a confidence level: `qnorm(1 − (1 − level)/2)`,
/// 1.959963984540054 for 95 %.
///
/// The expression is written exactly as `survfit` and `binom.test` write it, so the rounding of
/// the tail probability matches R's.
///
/// # Errors
/// [`StatsError::InvalidLevel`] unless `0 < level < 1`.
pub fn z_for_level(level: f64) -> Result<f64, StatsError> {
    check_level(level)?;
    normal_quantile(1.0 - (1.0 - level) / 2.0)
}

/// Accepts confidence levels strictly between 0 and 1 (NaN is rejected too).
pub(crate) fn check_level(level: f64) -> Result<(), StatsError> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidLevel(level))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn matches_r_qnorm() {
        // Values printed by R 4.2 with print(qnorm(p), digits = 17).
        assert!(rel(z_for_level(0.95).unwrap(), 1.959963984540054) < 1e-14);
        assert!(rel(z_for_level(0.90).unwrap(), 1.6448536269514722) < 1e-14);
        assert!(rel(z_for_level(0.99).unwrap(), 2.5758293035489004) < 1e-14);
        assert!(rel(normal_quantile(0.025).unwrap(), -1.959963984540054) < 1e-14);
        assert!(rel(normal_quantile(1e-10).unwrap(), -6.361_340_902_404_056) < 1e-13);
        assert_eq!(normal_quantile(0.5).unwrap(), 0.0);
    }

    #[test]
    fn rejects_bad_levels() {
        for level in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
            assert!(z_for_level(level).is_err());
        }
        assert!(normal_quantile(f64::NAN).is_err());
        assert_eq!(normal_quantile(1.0).unwrap(), f64::INFINITY);
    }
}

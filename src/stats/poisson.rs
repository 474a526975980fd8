//! The exact (Garwood) interval of a Poisson rate: x events over `exposure`, as R's
//! `poisson.test(x, T)$conf.int`: lower `qgamma(α/2, x) / T` (0 for x = 0), upper
//! `qgamma(1 − α/2, x + 1) / T`. The gamma quantiles are found by bisection on the regularized
//! incomplete gamma function.

use statrs::function::gamma::checked_gamma_lr;

use super::interval::Interval;
use super::StatsError;

/// The exact interval of the rate x / `exposure` at confidence `level` (0 < level < 1).
pub fn exact_rate_interval(x: usize, exposure: f64, level: f64) -> Result<Interval, StatsError> {
    if !(level > 0.0 && level < 1.0) {
        return Err(StatsError::InvalidLevel(level));
    }
    if !(exposure.is_finite() && exposure > 0.0) {
        return Err(StatsError::NoTrials);
    }
    let alpha = 1.0 - level;
    let lower = if x == 0 {
        0.0
    } else {
        gamma_quantile(x as f64, alpha / 2.0)?
    };
    let upper = gamma_quantile(x as f64 + 1.0, 1.0 - alpha / 2.0)?;
    Ok(Interval {
        lower: lower / exposure,
        upper: upper / exposure,
    })
}

/// The `p`-quantile of the Gamma(`shape`, 1) distribution.
fn gamma_quantile(shape: f64, p: f64) -> Result<f64, StatsError> {
    let cdf = |q: f64| checked_gamma_lr(shape, q).map_err(|_| StatsError::NoTrials);
    // Bracket, then bisect to the last bit.
    let (mut lo, mut hi) = (0.0_f64, shape.max(1.0));
    while cdf(hi)? < p {
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return Err(StatsError::NoTrials);
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if cdf(mid)? < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_r_poisson_test() {
        // R 4.2.2: poisson.test(5, 100)$conf.int, poisson.test(0, 20)$conf.int,
        // poisson.test(1, 2.5, conf.level = 0.9)$conf.int
        let i = exact_rate_interval(5, 100.0, 0.95).unwrap();
        assert!((i.lower - 0.0162348639).abs() < 1e-10, "{i:?}");
        assert!((i.upper - 0.1166833208).abs() < 1e-10, "{i:?}");
        let i = exact_rate_interval(0, 20.0, 0.95).unwrap();
        assert_eq!(i.lower, 0.0);
        assert!((i.upper - 0.1844439727).abs() < 1e-10, "{i:?}");
        let i = exact_rate_interval(1, 2.5, 0.9).unwrap();
        assert!((i.lower - 0.02051731776).abs() < 1e-10, "{i:?}");
        assert!((i.upper - 1.89754580736).abs() < 1e-9, "{i:?}");
    }
}

//! The upper tail of the chi-square distribution, the one definition every test here uses
//! (Wald, likelihood-ratio and score tests of the Cox model, the log-rank test, Pearson's
//! chi-square and the Cochran–Mantel–Haenszel test).

use statrs::function::gamma::checked_gamma_ur;

use super::StatsError;

/// R's `pchisq(statistic, df, lower.tail = FALSE)`: the regularised upper incomplete gamma
/// function Q(df/2, statistic/2), which keeps full relative precision for tiny p-values
/// (statrs' `erfc(√(s/2))` for one df is only good to about 1e-10 relative). A statistic of 0
/// or less gives 1, an infinite one 0; NaN or a df of 0 is an error.
pub fn chisq_upper(statistic: f64, df: u32) -> Result<f64, StatsError> {
    if statistic.is_nan() || df == 0 {
        Err(StatsError::Numerical("chi-square statistic"))
    } else if statistic <= 0.0 {
        Ok(1.0)
    } else if statistic == f64::INFINITY {
        Ok(0.0)
    } else {
        checked_gamma_ur(f64::from(df) / 2.0, statistic / 2.0)
            .map_err(|_| StatsError::Numerical("chi-square upper tail"))
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    /// Values of R 4.2's pchisq(x, df, lower.tail = FALSE).
    #[test]
    fn tails_agree_with_r() {
        for (x, df, p) in [
            (3.841_458_820_694_124, 1, 0.05),
            (1e-3, 1, 0.974_772_879_369_960_4),
            (100.0, 1, 1.523_970_604_832_105e-23),
            (5.991_464_547_107_979, 2, 0.05),
            (10.0, 3, 0.018_566_135_463_043_23),
        ] {
            let got = chisq_upper(x, df).unwrap();
            assert!((got - p).abs() <= 1e-9 * p, "{x} {df}: {got} vs {p}");
        }
        assert_eq!(chisq_upper(0.0, 1).unwrap(), 1.0);
        assert_eq!(chisq_upper(f64::INFINITY, 1).unwrap(), 0.0);
        assert!(chisq_upper(f64::NAN, 1).is_err());
    }

    #[test]
    fn chisq_upper_tail_is_precise() {
        // erfc(√(s/2)) to 40 digits (mpmath), = pchisq(s, 1, lower.tail = FALSE).
        for (s, p) in [
            (0.5, 0.479_500_122_186_953_5),
            (3.84, 0.050_043_521_248_705_1),
            (50.0, 1.537_459_794_428_035e-12),
            (200.0, 2.088_487_583_762_545e-45),
            (1400.0, 2.101_014_516_264_217_5e-306),
        ] {
            let q = chisq_upper(s, 1).unwrap();
            assert!(((q - p) / p).abs() < 1e-13, "{s}: {q} vs {p}");
        }
        assert_eq!(chisq_upper(0.0, 1).unwrap(), 1.0);
        assert_eq!(chisq_upper(f64::INFINITY, 1).unwrap(), 0.0);
        assert!(chisq_upper(f64::NAN, 1).is_err());
    }
}

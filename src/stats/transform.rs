//! Confidence-interval transforms for a survival probability, as `survfit(conf.type = ...)`.
//!
//! Given S(t), the standard error of log S(t) and a critical value z, computes the pointwise
//! band exactly as `survival:::survfit_confint` does with `conf.lower = "usual"`, including
//! where R returns NA: S = 0 in every transform, S = 1 under log-log, and S = 1 without variance
//! under arcsin. It does not know about curves or quantiles; [`super::km`] and
//! [`super::quantile`] apply it step by step.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The scale on which a pointwise confidence interval for S(t) is symmetric.
///
/// Serialised as `"log-log"`, `"log"`, `"plain"`, `"arcsin"` (R's `conf.type` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CiTransform {
    /// log(−log S): SAS PROC LIFETEST's default; the band always stays inside (0, 1).
    #[serde(rename = "log-log")]
    LogLog,
    /// log S: R `survfit`'s default; the upper limit is capped at 1.
    #[serde(rename = "log")]
    Log,
    /// S itself (Greenwood ± z·SE), clipped to [0, 1].
    #[serde(rename = "plain")]
    Plain,
    /// arcsin √S, clipped to [0, π/2].
    #[serde(rename = "arcsin")]
    Arcsin,
}

impl CiTransform {
    /// Every transform, in the order the reports list them.
    pub const ALL: [CiTransform; 4] = [
        CiTransform::LogLog,
        CiTransform::Log,
        CiTransform::Plain,
        CiTransform::Arcsin,
    ];

    /// R's `conf.type` spelling: `"log-log"`, `"log"`, `"plain"` or `"arcsin"`.
    pub fn name(self) -> &'static str {
        match self {
            CiTransform::LogLog => "log-log",
            CiTransform::Log => "log",
            CiTransform::Plain => "plain",
            CiTransform::Arcsin => "arcsin",
        }
    }
}

impl fmt::Display for CiTransform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name given to [`CiTransform::from_str`] is none of the four transforms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown confidence-interval transform {0:?}: expected log-log, log, plain or arcsin")]
pub struct UnknownTransform(pub String);

impl FromStr for CiTransform {
    type Err = UnknownTransform;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CiTransform::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownTransform(s.to_owned()))
    }
}

/// One confidence limit as R holds it. R distinguishes NA from NaN, and `quantile.survfit`
/// de-duplicates curve values with `duplicated()`, which keeps one NA *and* one NaN; modelling
/// both keeps the quantile rules exact even where the arcsin band has each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Limit {
    Value(f64),
    /// R's `NA` (from `ifelse(p == 0, NA, p)` and friends).
    Na,
    /// R's `NaN` (from `0 * Inf` when the standard error is infinite or S = 1 under arcsin).
    NaN,
}

impl Limit {
    /// Any NaN that arithmetic produces is R's NaN; NA only arises where R writes it explicitly.
    fn from_arith(x: f64) -> Limit {
        if x.is_nan() {
            Limit::NaN
        } else {
            Limit::Value(x)
        }
    }

    pub(crate) fn value(self) -> Option<f64> {
        match self {
            Limit::Value(v) => Some(v),
            Limit::Na | Limit::NaN => None,
        }
    }
}

/// R's `pmax(a, b)` / `pmin(a, b)` keep a NaN argument instead of ignoring it.
fn r_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn r_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// The pointwise band `(lower, upper)` for survival `surv` whose log has standard error
/// `se_log` (infinite when S = 0), with critical value `z`: `survfit_confint` with
/// `logse = TRUE`, `conf.lower = "usual"` and `ulimit = TRUE`.
pub(crate) fn point_band(surv: f64, se_log: f64, z: f64, transform: CiTransform) -> (Limit, Limit) {
    match transform {
        CiTransform::Plain => {
            // No NA substitution in R here: at S = 0 the infinite SE makes 0·∞ = NaN.
            let half = se_log * surv * z;
            (
                Limit::from_arith(r_max(surv - half, 0.0)),
                Limit::from_arith(r_min(surv + half, 1.0)),
            )
        }
        CiTransform::Log => {
            if surv == 0.0 {
                return (Limit::Na, Limit::Na);
            }
            let half = z * se_log;
            let lower = (surv.ln() - half).exp();
            let upper = r_min((surv.ln() + half).exp(), 1.0);
            (Limit::from_arith(lower), Limit::from_arith(upper))
        }
        CiTransform::LogLog => {
            if surv == 0.0 || surv == 1.0 {
                return (Limit::Na, Limit::Na);
            }
            // se2 is negative (log S < 0); R names the limits by the formula, not the sign.
            let half = z * se_log / surv.ln();
            let centre = (-surv.ln()).ln();
            let lower = (-(centre - half).exp()).exp();
            let upper = (-(centre + half).exp()).exp();
            (Limit::from_arith(lower), Limit::from_arith(upper))
        }
        CiTransform::Arcsin => {
            if surv == 0.0 {
                return (Limit::Na, Limit::Na);
            }
            let half = 0.5 * z * se_log * (surv / (1.0 - surv)).sqrt();
            let centre = surv.sqrt().asin();
            let lower = r_max(0.0, centre - half).sin().powi(2);
            let upper = r_min(std::f64::consts::FRAC_PI_2, centre + half)
                .sin()
                .powi(2);
            (Limit::from_arith(lower), Limit::from_arith(upper))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_from_str() {
        for t in CiTransform::ALL {
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.name()));
            let back: CiTransform = serde_json::from_str(&json).unwrap();
            assert_eq!(back, t);
            assert_eq!(t.name().parse::<CiTransform>().unwrap(), t);
            assert_eq!(t.to_string(), t.name());
        }
        assert!("loglog".parse::<CiTransform>().is_err());
    }

    #[test]
    fn undefined_points_follow_r() {
        let z = 1.96;
        for t in CiTransform::ALL {
            let (lo, hi) = point_band(0.0, f64::INFINITY, z, t);
            assert!(lo.value().is_none() && hi.value().is_none(), "{t} at S=0");
        }
        assert_eq!(
            point_band(1.0, 0.0, z, CiTransform::LogLog),
            (Limit::Na, Limit::Na)
        );
        assert_eq!(
            point_band(1.0, 0.0, z, CiTransform::Arcsin),
            (Limit::NaN, Limit::NaN)
        );
        assert_eq!(
            point_band(1.0, 0.0, z, CiTransform::Log),
            (Limit::Value(1.0), Limit::Value(1.0))
        );
        assert_eq!(
            point_band(1.0, 0.0, z, CiTransform::Plain),
            (Limit::Value(1.0), Limit::Value(1.0))
        );
    }
}

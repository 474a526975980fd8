//! The interval types every estimate here is given with: [`Interval`] (two limits) and
//! [`Ci`] (an estimate with its two limits: a hazard ratio, an odds ratio). Documents and
//! results.json take them as they are (docs/OUTPUTS.md); a value that may be missing there
//! (a median not reached) is the results' own `Estimate`.

use serde::{Deserialize, Serialize};

/// A two-sided confidence interval: for a proportion both limits are in [0, 1]; for a
/// difference of proportions in [−1, 1] (Newcombe, Miettinen–Nurminen) or beyond (Wald).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
}

/// An estimate with its confidence interval (a ratio: the interval computed on the log scale,
/// exp(log estimate ± z·se); a stratified difference of proportions with its score interval).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Ci {
    /// Point estimate.
    pub estimate: f64,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
}

//! Pure statistics: Kaplan–Meier, quantile CIs, landmark rates, binomial CIs. No I/O.
//!
//! Everything here is a function of numbers only: no files, no configuration types, no
//! endpoints or cohorts. Each value is defined to agree with R 4.2 (`survival` 3.5-3
//! `survfit`/`quantile.survfit`/`summary.survfit`, `binom.test`) to a relative error of 1e-6;
//! `tests/stats_reference.rs` checks every reference value. Bad input gives a [`StatsError`],
//! never a panic.
//!
//! - [`km`]: the Kaplan–Meier fit, Greenwood SEs, pointwise bands and landmark survival.
//! - [`quantile`]: median/quartiles with Brookmeyer–Crowley CIs, Collett's median CI, and
//!   reverse-KM median follow-up.
//! - [`transform`]: the four CI transforms (log-log, log, plain, arcsin).
//! - [`binomial`]: Clopper–Pearson and Wilson intervals for proportions.
//! - [`normal`]: standard normal quantiles.
//! - [`arms`]: two arms' times sorted once, and the models (all subjects, stratified, a
//!   subgroup's) that the Cox fit and the log-rank test pass over.
//! - [`competing`]: competing risks: Aalen–Johansen cumulative incidence (IJ SE, as
//!   `survfit`), Gray's test (`cmprsk::cuminc`), the Fine–Gray model (`cmprsk::crr`).
//! - [`cox`]: the Cox model of the arm (Efron/Breslow ties, strata), as `coxph`.
//! - [`interaction`]: the likelihood-ratio test of the arm's interaction with a factor (two
//!   Cox models of 0/1 covariates, `arm + factor` and with `arm:factor`), as `anova`.
//! - [`logrank`]: the log-rank test of the arm, stratified or not, as `survdiff`.
//! - [`rmst`]: restricted mean survival time (as `survfit`'s `rmean`), two arms' RMST
//!   compared (as survRM2 `rmst2`), and risk tables (at risk, events, censored).
//! - [`chisq`]: the chi-square upper tail every test uses.
//! - [`interval`]: the interval types ([`Interval`], [`Ci`]).
//! - [`timefix`]: near-equal times made one, as R's `aeqSurv` (`timefix = TRUE`).
//! - [`two_by_two`]: two proportions compared: difference (Newcombe, Wald,
//!   Miettinen–Nurminen; stratified Miettinen–Nurminen over strata), odds ratio, chi-square,
//!   Fisher exact and Cochran–Mantel–Haenszel tests.

pub mod arms;
pub mod binomial;
pub mod chisq;
pub mod competing;
pub mod cox;
pub mod error;
pub mod interaction;
pub mod interval;
pub mod km;
pub mod logrank;
pub mod normal;
pub mod poisson;
pub mod quantile;
pub mod rmst;
pub mod timefix;
pub mod transform;
pub mod two_by_two;

pub use arms::{ArmCounts, ArmModel, ArmSubject, ArmTimes};
pub use binomial::{clopper_pearson, wilson};
pub use chisq::chisq_upper;
pub use competing::{
    aalen_johansen, fine_gray, gray_test, CifAt, CifStep, CumulativeIncidence, FineGray, GrayTest,
};
pub use cox::{cox_fit, CoxFit, Ties};
pub use error::StatsError;
pub use interaction::{Interaction, MAX_LEVELS};
pub use interval::{Ci, Interval};
pub use km::{kaplan_meier, kaplan_meier_split, Band, KaplanMeier, KmStep, Landmark, TimeTally};
pub use logrank::Logrank;
pub use normal::{normal_quantile, z_for_level};
pub use quantile::{reverse_km_followup, Quantile, COLLETT_EPSILON, QUANTILE_TOLERANCE};
pub use rmst::{rmst_contrast, Contrast, RiskRow, Rmst, RmstContrast};
pub use timefix::TIME_TOLERANCE;
pub use transform::{CiTransform, UnknownTransform};
pub use two_by_two::{
    cmh, compare_proportions, fisher_exact, miettinen_nurminen, stratified_mn, CmhTest, Counts,
    ProportionComparison, StratifiedDifference,
};

//! The arms of a randomised cohort as results.json holds them: each arm's numbers (as a
//! cohort's), and each arm compared with the reference (Cox model, log-rank test, subgroup
//! hazard ratios, response rates compared).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::stats::Ci;

use super::CohortResults;

/// One arm of a cohort with arms: the arm's value and its results, with the same keys as a
/// cohort's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ArmResults {
    /// The arm (its value in the arms column).
    pub arm: String,
    /// How documents name it in prose and tables (`arms.labels`; default the value).
    #[serde(default)]
    pub arm_label: String,
    /// How legends, table headers, slides and prose after the first mention name it
    /// (default the label).
    #[serde(default)]
    pub arm_short: String,
    /// The arm's numbers, as a cohort's.
    #[serde(flatten)]
    pub results: CohortResults,
}

/// One arm compared with the reference arm.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Comparison {
    /// The arm.
    pub arm: String,
    /// The reference arm.
    pub reference: String,
    /// Per time-to-event endpoint with times in both arms, in `tte_params` order.
    pub tte: IndexMap<String, TteComparison>,
    /// ORR and DCR compared; `null` without ADRS.
    pub response: Option<ResponseComparison>,
    /// Adverse events compared; absent without ADAE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<AeComparison>,
}

/// Adverse events of the arm against the reference, over each arm's safety population.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct AeComparison {
    /// The arm's safety population.
    #[serde(rename = "N")]
    pub total: usize,
    /// The reference's.
    #[serde(rename = "N_reference")]
    pub total_reference: usize,
    /// The arm's treatment duration summed, in years.
    pub patient_years: f64,
    /// The reference's.
    pub patient_years_reference: f64,
    /// The interval of the risk differences: `newcombe`, `wald` or `mn` (`analysis.diff_ci`).
    pub method: DifferenceMethod,
    /// Kinds (any TEAE, grade ≥3 TEAE, serious TEAE, any TRAE), then each term (TEAE of any
    /// grade), most frequent first.
    pub rows: Vec<AeRisk>,
}

/// What a row of an [`AeComparison`] counts: subjects with an adverse event of a kind, or
/// with one preferred term. Written to results.json as the text of [`AeRiskKind::label`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum AeRiskKind {
    /// Any treatment-emergent adverse event.
    #[serde(rename = "any TEAE")]
    AnyTeae,
    /// A treatment-emergent adverse event of grade 3 or higher.
    #[serde(rename = "grade ≥3 TEAE")]
    GradeThreeOrHigher,
    /// A serious treatment-emergent adverse event.
    #[serde(rename = "serious TEAE")]
    SeriousTeae,
    /// Any treatment-related adverse event.
    #[serde(rename = "any TRAE")]
    AnyTrae,
    /// One preferred term, of any grade ([`AeRisk::term`]).
    #[serde(rename = "term")]
    Term,
}

impl AeRiskKind {
    /// The kinds, in the order rows give them.
    pub const KINDS: [AeRiskKind; 4] = [
        AeRiskKind::AnyTeae,
        AeRiskKind::GradeThreeOrHigher,
        AeRiskKind::SeriousTeae,
        AeRiskKind::AnyTrae,
    ];

    /// As results.json and the documents write it ("grade ≥3 TEAE").
    pub fn label(self) -> &'static str {
        match self {
            AeRiskKind::AnyTeae => "any TEAE",
            AeRiskKind::GradeThreeOrHigher => "grade ≥3 TEAE",
            AeRiskKind::SeriousTeae => "serious TEAE",
            AeRiskKind::AnyTrae => "any TRAE",
            AeRiskKind::Term => "term",
        }
    }
}

impl std::fmt::Display for AeRiskKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// One kind or term of adverse event compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct AeRisk {
    /// `any TEAE`, `grade ≥3 TEAE`, `serious TEAE`, `any TRAE`, or `term`.
    pub kind: AeRiskKind,
    /// The preferred term (rows of kind `term`).
    pub term: Option<String>,
    /// Subjects of the arm with the event.
    pub n: usize,
    /// Subjects of the reference with the event.
    pub n_reference: usize,
    /// Risk difference, arm − reference, with its interval.
    pub difference: Ci,
    /// Exposure-adjusted incidence rate per 100 patient-years with its exact Poisson interval;
    /// `null` when the arm has no time at risk.
    pub eair: Option<Ci>,
    /// The reference's.
    pub eair_reference: Option<Ci>,
}

/// A Cox model of the arm against the reference.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CoxResults {
    /// Hazard ratio (arm vs reference) with its Wald interval; `null` when not estimable.
    pub hr: Option<Ci>,
    /// Log hazard ratio.
    pub coef: Option<f64>,
    /// Its standard error.
    pub se: Option<f64>,
    /// Wald test p-value.
    pub p_wald: Option<f64>,
    /// Likelihood-ratio test p-value.
    pub p_lr: Option<f64>,
    /// Score test p-value.
    pub p_score: Option<f64>,
}

/// A log-rank test.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct LogrankResults {
    /// Chi-square statistic; `null` without information (no variance).
    pub chisq: Option<f64>,
    /// Degrees of freedom.
    pub df: usize,
    /// p-value; `null` without a degree of freedom or without information.
    pub p: Option<f64>,
}

/// A time-to-event endpoint compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TteComparison {
    /// Subjects of the arm with a time.
    pub n: usize,
    /// Subjects of the reference with a time.
    pub n_reference: usize,
    /// Events in the arm.
    pub events: usize,
    /// Events in the reference.
    pub events_reference: usize,
    /// The Cox model.
    #[serde(flatten)]
    pub cox: CoxResults,
    /// The log-rank test.
    pub logrank: LogrankResults,
    /// The same, stratified; present when the cohort has strata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stratified: Option<StratifiedComparison>,
    /// Hazard ratio per subgroup level, columns in config order, levels sorted.
    #[serde(default)]
    pub subgroups: Vec<SubgroupHr>,
    /// The test of the arm's interaction with each subgroup column, in config order.
    #[serde(default)]
    pub interactions: Vec<SubgroupInteraction>,
    /// Measured among responders (duration of response, compared only with
    /// `analysis.compare_dor`): not a randomised comparison.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub among_responders: bool,
    /// The two arms' restricted mean survival times compared at one τ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rmst: Option<RmstComparison>,
    /// With competing events: Gray's test of the two cumulative incidences (`null` without
    /// information).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gray: Option<GrayResults>,
    /// With competing events: the Fine–Gray subdistribution hazard ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fine_gray: Option<FineGrayResults>,
}

/// Gray's test.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct GrayResults {
    /// Chi-square statistic, 1 df.
    pub chisq: f64,
    /// Its p-value.
    pub p: f64,
}

/// The Fine–Gray model of the arm.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct FineGrayResults {
    /// Subdistribution hazard ratio with its Wald interval; `null` when an arm has no event.
    pub hr: Option<Ci>,
    /// log HR.
    pub coef: Option<f64>,
    /// Its sandwich SE.
    pub se: Option<f64>,
    /// Wald p.
    pub p: Option<f64>,
}

/// Two arms' RMST compared (as survRM2 `rmst2`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct RmstComparison {
    /// The horizon τ, in the analysis unit.
    pub tau: f64,
    /// Arm minus reference, z-interval and Wald p.
    pub difference: Contrast,
    /// Arm over reference, interval on the log scale; `null` when an RMST is 0.
    pub ratio: Option<Contrast>,
}

/// An estimate with its interval and two-sided p (`null` without variance).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Contrast {
    /// Point estimate.
    pub estimate: f64,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
    /// Two-sided p-value.
    pub p: Option<f64>,
}

/// A stratified Cox model and log-rank test.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StratifiedComparison {
    /// The strata columns.
    pub strata: Vec<String>,
    /// The Cox model with a baseline hazard per stratum.
    #[serde(flatten)]
    pub cox: CoxResults,
    /// The log-rank test summed over strata.
    pub logrank: LogrankResults,
}

/// The hazard ratio within one subgroup level.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SubgroupHr {
    /// The ADSL column.
    pub column: String,
    /// Its value.
    pub level: String,
    /// The value's words, as the baseline table gives them ("female" for `F`: the cohort's
    /// baseline item's `labels`, else the CDISC decode, else the value); levels come in their
    /// natural order.
    #[serde(default)]
    pub level_label: String,
    /// Subjects of the arm with a time.
    pub n: usize,
    /// Subjects of the reference with a time.
    pub n_reference: usize,
    /// Events in the arm.
    pub events: usize,
    /// Events in the reference.
    pub events_reference: usize,
    /// Unstratified hazard ratio; `null` when not estimable (no events in an arm).
    pub hr: Option<Ci>,
    /// An endpoint with competing events: the level's Fine–Gray model (its `hr` `null` when
    /// an arm has no event of interest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fine_gray: Option<FineGrayResults>,
}

/// The likelihood-ratio test of the arm × subgroup column interaction: the Cox model with
/// `arm + column + arm:column` against `arm + column`, with the strata of the stratified model
/// (when the cohort has strata) and the `cox_ties` ties, as R's `anova` of the two `coxph` fits.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SubgroupInteraction {
    /// The ADSL column.
    pub column: String,
    /// Twice the difference of the two models' log partial likelihoods (from the supremum
    /// when a likelihood has no maximum, as when a level has events in one arm only); `null`
    /// when not estimable.
    pub chisq: Option<f64>,
    /// Degrees of freedom: the interaction columns not aliased (levels with subjects of both
    /// arms, less one).
    pub df: u32,
    /// Chi-square p-value; `null` when not estimable (a warning says why).
    pub p: Option<f64>,
}

/// ORR and DCR compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ResponseComparison {
    /// Objective response rate.
    pub orr: ProportionDifference,
    /// Disease control rate.
    pub dcr: ProportionDifference,
}

/// Two proportions of the efficacy population compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ProportionDifference {
    /// Responders in the arm.
    pub n: usize,
    /// Efficacy subjects of the arm.
    #[serde(rename = "N")]
    pub total: usize,
    /// Responders in the reference.
    pub n_reference: usize,
    /// Efficacy subjects of the reference.
    #[serde(rename = "N_reference")]
    pub total_reference: usize,
    /// Arm minus reference, with the `diff_ci` interval; with strata, the stratified difference
    /// with its stratified Miettinen–Nurminen interval. `null` when an arm has no subject, or
    /// (with strata) when no stratum holds both arms.
    pub difference: Option<Difference>,
    /// Odds ratio with its Wald interval; `null` when a cell is 0.
    pub odds_ratio: Option<Ci>,
    /// Chi-square test without continuity correction; `null` when a margin is 0.
    pub p_chisq: Option<f64>,
    /// Fisher's exact test.
    pub p_fisher: Option<f64>,
    /// Cochran–Mantel–Haenszel test over the strata, without continuity correction; `null`
    /// without strata or when not estimable.
    pub p_cmh: Option<f64>,
    /// The test the documents print (`analysis.response_test`); `null` when an arm has no
    /// subject.
    pub test: Option<TestUsed>,
    /// That test's p-value; `null` when it is not estimable (a warning says why).
    pub p: Option<f64>,
}

/// The test of two response rates a comparison reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum TestUsed {
    /// Pearson's chi-square test without continuity correction.
    Chisq,
    /// Fisher's exact test.
    Fisher,
    /// The Cochran–Mantel–Haenszel test over the strata.
    Cmh,
}

impl TestUsed {
    /// The test as Results name it beside its p-value ("CMH p = 0.03").
    pub fn short_name(self) -> &'static str {
        match self {
            TestUsed::Chisq => "chi-square",
            TestUsed::Fisher => "Fisher's exact",
            TestUsed::Cmh => "CMH",
        }
    }
}

/// A difference of proportions.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Difference {
    /// Arm minus reference; with strata, the strata's differences weighted by
    /// n₁·n₀/(n₁ + n₀) (Cochran–Mantel–Haenszel weights).
    pub estimate: f64,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
    /// `newcombe`, `wald` or `mn` (`diff_ci`, without strata), or `mn-stratified` (with
    /// strata).
    pub method: DifferenceMethod,
}

/// How a difference of proportions and its interval were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DifferenceMethod {
    /// Newcombe's hybrid score interval (`diff_ci: newcombe`, without strata).
    Newcombe,
    /// Wald interval (`diff_ci: wald`, without strata).
    Wald,
    /// Miettinen–Nurminen score interval (`diff_ci: mn`, without strata).
    Mn,
    /// With strata: the common difference with Cochran–Mantel–Haenszel weights and its
    /// stratified Miettinen–Nurminen score interval.
    MnStratified,
}

impl DifferenceMethod {
    /// The interval `analysis.diff_ci` names, without strata.
    pub fn unstratified(diff_ci: crate::config::DiffCi) -> DifferenceMethod {
        match diff_ci {
            crate::config::DiffCi::Newcombe => DifferenceMethod::Newcombe,
            crate::config::DiffCi::Wald => DifferenceMethod::Wald,
            crate::config::DiffCi::Mn => DifferenceMethod::Mn,
        }
    }

    /// The interval as Methods name it ("Newcombe hybrid score 95% CIs").
    pub fn interval_name(self) -> &'static str {
        match self {
            DifferenceMethod::Newcombe => "Newcombe hybrid score",
            DifferenceMethod::Wald => "Wald",
            DifferenceMethod::Mn => "Miettinen–Nurminen",
            DifferenceMethod::MnStratified => "stratified Miettinen–Nurminen",
        }
    }
}

impl SubgroupHr {
    /// The level as tables and figures print it: its words, capitalised ("Female").
    pub fn shown_level(&self) -> String {
        let words = if self.level_label.is_empty() {
            &self.level
        } else {
            &self.level_label
        };
        let mut chars = words.chars();
        match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => String::new(),
        }
    }
}

//! A cohort's numbers as results.json holds them (docs/OUTPUTS.md): populations, enrolment,
//! baseline, response, time to event, follow-up and safety, for the cohort and for each arm.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::config::BaselineKind;
use crate::model::Date;

use super::{ArmResults, Comparison, Safety};

/// One cohort in `results.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CohortResults {
    /// Cohort id.
    pub id: String,
    /// Cohort label.
    pub label: String,
    /// The cut-off date used, if any.
    pub cutoff: Option<Date>,
    /// Population sizes.
    pub n: Populations,
    /// Enrolment window and centres.
    pub enrolment: Enrolment,
    /// Baseline characteristics, in config order.
    pub baseline: Vec<BaselineSummary>,
    /// Best overall response, ORR and DCR; `null` without ADRS.
    pub response: Option<ResponseResults>,
    /// Time-to-event endpoints, in `tte_params` order.
    pub tte: IndexMap<String, TteResults>,
    /// Median follow-up by reverse Kaplan–Meier.
    pub followup: Option<FollowUp>,
    /// Safety summary; `null` without ADAE.
    pub safety: Option<Safety>,
    /// Completed, discontinued (why), ongoing: the end-of-treatment level when it is
    /// reported, else the end-of-study level; absent when ADSL has no status or reason column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disposition: Option<crate::results::Disposition>,
    /// The end-of-study level, when the end-of-treatment level is `disposition`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study_disposition: Option<crate::results::Disposition>,
    /// Treatment duration of the safety population; absent when nobody has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposure: Option<crate::results::Exposure>,
    /// A cohort with `arms`: each arm's results (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arms: Vec<ArmResults>,
    /// A cohort with `arms`: each arm compared with the reference (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<Comparison>,
    /// The config's labels of its strata and subgroup columns (column → label), which name
    /// them in Methods, tables and forest plots (absent when none is given).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub factor_labels: IndexMap<String, String>,
    /// The rows of each dataset kept by `data.where` (absent without row filters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_filters: Vec<RowsKept>,
    /// Non-fatal data problems found for this cohort.
    #[serde(default)]
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// One dataset's rows as `data.where` kept them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct RowsKept {
    /// The dataset's key in `data` (`adrs`).
    pub dataset: String,
    /// Each column filtered and the values kept.
    pub columns: IndexMap<String, Vec<String>>,
    /// Rows kept.
    pub kept: usize,
    /// Rows left out.
    pub dropped: usize,
    /// Of them, the rows of subjects `data.where.adsl` left out (for another dataset than
    /// ADSL): not in the study, so not in any other table either.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub of_subjects_left_out: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CohortResults {
    /// How legends, headers and slides name the arm of value `arm` (`arms.labels`' short
    /// name; the value itself when none is given).
    pub fn arm_short<'a>(&'a self, arm: &'a str) -> &'a str {
        self.arms
            .iter()
            .find(|a| a.arm == arm && !a.arm_short.is_empty())
            .map_or(arm, |a| a.arm_short.as_str())
    }
}

fn objective() -> String {
    crate::criteria::OBJECTIVE.to_string()
}

fn yes() -> bool {
    true
}

/// Population counts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Populations {
    /// Subjects in the cohort at the cut-off.
    pub enrolled: usize,
    /// Efficacy population (`EFFFL`/`FASFL`/`ITTFL`).
    pub efficacy: usize,
    /// Safety population (`SAFFL`).
    pub safety: usize,
    /// The ADSL flag the efficacy population was read from (`null`: every subject).
    pub efficacy_flag: Option<String>,
    /// The ADSL flag of the safety population (`SAFFL`; `null`: every subject).
    pub safety_flag: Option<String>,
    /// Of the efficacy population, subjects never treated (no `TRTSDT`): in the efficacy
    /// analyses from their origin (docs/CONFIG.md, `analysis.origin`); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub efficacy_untreated: usize,
}

/// When and where subjects were enrolled.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Enrolment {
    /// First enrolment (or treatment start) date.
    pub first: Option<Date>,
    /// Last enrolment date.
    pub last: Option<Date>,
    /// Number of distinct `SITEID`; `null` when ADSL has no site.
    pub centres: Option<usize>,
}

impl CohortResults {
    /// An ADSL column's label in tables: its strata or subgroup label in the config, else its
    /// baseline item's, else the column's name.
    pub fn column_label<'a>(&'a self, column: &'a str) -> &'a str {
        if let Some(label) = self.factor_labels.get(column) {
            return label;
        }
        self.baseline
            .iter()
            .find(|b| b.column == column)
            .map_or(column, |b| b.label.as_str())
    }
}

/// One baseline characteristic.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct BaselineSummary {
    /// ADSL column.
    pub column: String,
    /// Label for tables.
    pub label: String,
    /// continuous | categorical.
    pub kind: BaselineKind,
    /// Subjects with a value.
    pub n: usize,
    /// Subjects without a value.
    pub missing: usize,
    /// Continuous summary.
    pub stats: Option<ContinuousSummary>,
    /// Categorical levels, most frequent first.
    pub levels: Vec<LevelCount>,
    /// The levels' values in their own order, as prose lists them: the config's `order`, else
    /// ascending when all are numbers, else most frequent first (empty when continuous).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub natural_order: Vec<String>,
    /// Whether the levels' words name the characteristic themselves ("male", "female"), so
    /// prose need not name it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub self_describing: bool,
}

/// Median (range), mean (SD).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ContinuousSummary {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (`null` for one value).
    pub sd: Option<f64>,
    /// Median.
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

/// One level of a categorical characteristic.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct LevelCount {
    /// The value.
    pub value: String,
    /// Its words in documents: the config's `labels`, a CDISC decode (docs/CONFIG.md), or
    /// the value.
    pub label: String,
    /// Subjects with it.
    pub n: usize,
    /// Denominator (subjects enrolled in the cohort).
    #[serde(rename = "N")]
    pub total: usize,
    /// n / N.
    pub rate: f64,
}

/// A proportion with its confidence interval.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Proportion {
    /// Numerator.
    pub n: usize,
    /// Denominator.
    #[serde(rename = "N")]
    pub total: usize,
    /// n / N (`null` when N = 0).
    pub rate: Option<f64>,
    /// Lower confidence limit.
    pub lower: Option<f64>,
    /// Upper confidence limit.
    pub upper: Option<f64>,
}

/// The response criteria of a cohort, when not RECIST 1.1 (docs/CRITERIA.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CriteriaUsed {
    /// The config's name (`irecist`, `lugano`, `imwg`, `rano`, `as-given`, or the set's name).
    pub id: String,
    /// As documents name it ("iRECIST").
    pub name: String,
    /// The reported categories, best first.
    pub categories: Vec<CategoryUsed>,
    /// How responses were confirmed: `recist`, `interval`, `consecutive`, `none`, or
    /// `as-given` (the sponsor's BOR, read not derived).
    pub confirmation: String,
}

/// One category of [`CriteriaUsed`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CategoryUsed {
    /// The ADRS spelling, the key in `bor`.
    pub code: String,
    /// In words.
    pub name: String,
    /// Counted in ORR.
    pub responder: bool,
    /// Counted in DCR.
    pub control: bool,
}

impl CriteriaUsed {
    /// What results.json says of a criteria set.
    pub fn of(c: &crate::criteria::Criteria) -> CriteriaUsed {
        use crate::criteria::{Confirmation, Rule};
        CriteriaUsed {
            id: c.id.clone(),
            name: c.name.clone(),
            categories: c
                .reported()
                .map(|k| CategoryUsed {
                    code: k.code.clone(),
                    name: k.name.clone(),
                    responder: k.responder,
                    control: k.control,
                })
                .collect(),
            confirmation: match c.rule {
                Rule::Recist | Rule::Irecist => "recist",
                Rule::Generic(Confirmation::Interval) => "interval",
                Rule::Generic(Confirmation::Consecutive) => "consecutive",
                Rule::Generic(Confirmation::None) => "none",
                Rule::AsGiven => "as-given",
            }
            .to_string(),
        }
    }
}

/// Best overall response counts, ORR and DCR.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ResponseResults {
    /// The response criteria when not RECIST 1.1 (absent: RECIST 1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub criteria: Option<CriteriaUsed>,
    /// Rates the criteria report beside ORR ("VGPR or better", "CMR"), by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub rates: IndexMap<String, Proportion>,
    /// Confirmed (true) or unconfirmed BOR.
    pub confirmed: bool,
    /// Subjects per category; subjects without a post-baseline assessment count as NE.
    pub bor: IndexMap<String, usize>,
    /// Of the efficacy population, subjects without an assessment that gives a response
    /// (none, or only not done): NE, non-responders in the rates; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unassessed: usize,
    /// CR + PR (the criteria's responders).
    pub orr: Proportion,
    /// CR + PR + SD (+ NON-CR/NON-PD when configured; the criteria's control categories).
    pub dcr: Proportion,
    /// What documents call the response rate: "objective response rate", or "overall
    /// response rate" under IMWG and Lugano (the criteria's).
    #[serde(default = "objective")]
    pub orr_name: String,
    /// Whether documents report the DCR (not under IMWG or Lugano); results.json has it
    /// either way.
    #[serde(default = "yes")]
    pub dcr_reported: bool,
    /// Time from treatment start to the first response counted (confirmed when the BOR is),
    /// among responders with a treatment start; absent when none has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_response: Option<TimeToResponse>,
}

/// Time to response among responders, in the analysis unit (descriptive: every responder
/// has an event).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TimeToResponse {
    /// Responders with a time.
    pub n: usize,
    /// Median (the mean of the two middle times when n is even).
    pub median: f64,
    /// Shortest.
    pub min: f64,
    /// Longest.
    pub max: f64,
}

/// A median, quantile or other estimate with its interval; `null` = not reached.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Estimate {
    /// Point estimate.
    pub estimate: Option<f64>,
    /// Lower confidence limit.
    pub lower: Option<f64>,
    /// Upper confidence limit.
    pub upper: Option<f64>,
}

/// Survival at a landmark time.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct LandmarkRate {
    /// Time in the analysis unit.
    pub time: f64,
    /// Subjects at risk.
    pub n_risk: usize,
    /// S(t).
    pub surv: f64,
    /// Greenwood SE of S(t) (`null` where undefined).
    pub std_err: Option<f64>,
    /// Lower confidence limit.
    pub lower: Option<f64>,
    /// Upper confidence limit.
    pub upper: Option<f64>,
    /// The time is after the last observation (values carried forward).
    pub beyond_last_followup: bool,
}

/// One time-to-event endpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TteResults {
    /// Subjects analysed.
    pub n: usize,
    /// Events.
    pub events: usize,
    /// Censored subjects.
    pub censored: usize,
    /// "derived" (from ADSL/ADRS) or "ADTTE".
    pub source: String,
    /// The ADTTE PARAMCD, when read from ADTTE.
    pub paramcd: String,
    /// The endpoint in words (`tte_params` label; "progression-free survival" for PFS).
    #[serde(default)]
    pub label: String,
    /// Median with CI (method from `median_ci`).
    pub median: Estimate,
    /// 25th percentile (time S reaches 0.75) with Brookmeyer–Crowley CI.
    pub q25: Estimate,
    /// 75th percentile (time S reaches 0.25) with Brookmeyer–Crowley CI.
    pub q75: Estimate,
    /// Landmark survival rates.
    pub landmarks: Vec<LandmarkRate>,
    /// Longest time observed.
    pub max_time: Option<f64>,
    /// Derived from ADRS: events censored by the missed-visit rule (a progression or death
    /// more than `analysis.missed_visit_days` after the last adequate assessment); absent for
    /// ADTTE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub censored_missed_visits: Option<usize>,
    /// Derived from ADRS with `analysis.censor_at_new_therapy`: subjects censored at the last
    /// adequate assessment on or before the start of new anticancer therapy, which came before
    /// any progression or death; absent without the rule and for ADTTE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub censored_new_therapy: Option<usize>,
    /// Shortest and longest time observed, each marked when only censored there (printed
    /// "1.4+"): the range a descriptive summary (duration of response) gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<TimeRange>,
    /// Restricted mean survival time up to τ (docs/OUTPUTS.md, "Survival beyond the median").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rmst: Option<RmstResult>,
    /// At risk, events and censored so far at the times of the plot's table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risk_table: Vec<RiskTableRow>,
    /// With competing events (`tte_params.<E>.competing`): the cumulative incidence of the
    /// event (Aalen–Johansen). `events` above counts the events of interest; competing
    /// events are among `censored` for the Kaplan–Meier values (cause-specific).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cif: Option<CifResults>,
}

/// The cumulative incidence of an endpoint with competing events.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CifResults {
    /// Competing events.
    pub competing: usize,
    /// The incidence at the landmark times.
    pub landmarks: Vec<CifLandmark>,
    /// At risk, events of interest, competing events and censored so far at the times of the
    /// figure's table (those of the endpoint's `risk_table`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risk_table: Vec<CifRiskRow>,
    /// The first time the incidence reaches 0.5 (`null`: it does not); its interval is `null`
    /// (R defines no quantile interval of a multi-state curve: docs/OUTPUTS.md).
    pub median: Estimate,
}

/// One time of a cumulative incidence's risk table, in the analysis unit.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CifRiskRow {
    /// Time in the analysis unit.
    pub time: f64,
    /// Subjects whose time is ≥ `time`.
    pub at_risk: usize,
    /// Events of interest at or before `time`.
    pub events: usize,
    /// Competing events at or before `time`.
    pub competing: usize,
    /// Censored at or before `time`.
    pub censored: usize,
}

/// The cumulative incidence at a time.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CifLandmark {
    /// Time in the analysis unit.
    pub time: f64,
    /// Subjects at risk.
    pub n_risk: usize,
    /// The cumulative incidence.
    pub estimate: f64,
    /// Its infinitesimal-jackknife standard error.
    pub std_err: f64,
    /// Lower limit (log scale); `null` where the incidence is 0.
    pub lower: Option<f64>,
    /// Upper limit (log scale, at most 1); `null` where the incidence is 0.
    pub upper: Option<f64>,
}

/// The restricted mean survival time of an endpoint up to `tau`, in the analysis unit.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct RmstResult {
    /// The horizon τ.
    pub tau: f64,
    /// Area under the Kaplan–Meier curve from 0 to τ.
    pub estimate: f64,
    /// Its standard error (`survfit`'s `se(rmean)`).
    pub se: f64,
    /// Lower limit, estimate − z·SE.
    pub lower: f64,
    /// Upper limit, estimate + z·SE.
    pub upper: f64,
}

/// One time of a risk table.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct RiskTableRow {
    /// Time in the analysis unit.
    pub time: f64,
    /// Subjects whose time is at or after `time`.
    pub at_risk: usize,
    /// Events at or before `time`.
    pub events: usize,
    /// Censored at or before `time`.
    pub censored: usize,
}

/// The range of observed times of an endpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct TimeRange {
    /// Shortest time.
    pub min: f64,
    /// Whether every subject with the shortest time is censored there.
    pub min_censored: bool,
    /// Longest time.
    pub max: f64,
    /// Whether every subject with the longest time is censored there.
    pub max_censored: bool,
}

/// Median follow-up.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct FollowUp {
    /// The endpoint whose censoring defines follow-up.
    pub param: String,
    /// How documents name it: `OS`, `PFS`, `DoR`, or a custom endpoint's label.
    #[serde(default)]
    pub label: String,
    /// Reverse-KM median.
    pub estimate: Option<f64>,
    /// Lower confidence limit.
    pub lower: Option<f64>,
    /// Upper confidence limit.
    pub upper: Option<f64>,
}

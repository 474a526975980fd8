//! The study config (its keys: README "Config reference", `templates/init/study.yaml`):
//! YAML → [`StudyConfig`], then checks that serde cannot make.
//!
//! serde_yaml is deprecated upstream; it is used in this file only, so moving to a maintained
//! fork is a change here and nowhere else. Every struct denies unknown keys, and errors name
//! the file, the line and column, and the key path (`cohorts[1].analysis.km_ci`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

mod nesting;

pub use nesting::MAX_YAML_DEPTH;

use crate::error::{Error, Result};
use crate::model::Date;
use crate::stats::CiTransform;

/// Largest config file accepted; a study config is a few kilobytes.
const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// Most decimals a number is printed with.
const MAX_DECIMALS: usize = 10;

/// Most adverse-event terms the figure shows: a row is about 50 pixels, and 250 rows made a
/// figure too tall to rasterise (26,000 pixels at the PNG scale), failing the cohort.
pub const MAX_AE_TOP_N: usize = 100;

/// A whole study config as written in YAML.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StudyConfig {
    /// Study identity and the wording used in the abstract.
    pub study: Study,
    /// Where the ADaM files are.
    pub data: DataFiles,
    /// Data cut-off date; `--cutoff` overrides it. Default: none.
    #[serde(default, deserialize_with = "crate::model::date_serde::optional")]
    pub cutoff: Option<Date>,
    /// Several cut-off dates, each built into its own folder. Default: none.
    #[serde(default, deserialize_with = "crate::model::date_serde::list")]
    pub cutoffs: Vec<Date>,
    /// Analysis conventions; every key has a default.
    #[serde(default)]
    pub analysis: AnalysisConfig,
    /// The cohorts to report; at least one.
    pub cohorts: Vec<CohortConfig>,
    /// Where and how to write documents.
    #[serde(default)]
    pub output: OutputConfig,
}

/// `study:`
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// Required; `[A-Za-z0-9._-]+`, used in output paths.
    pub id: String,
    /// Trial registry number, e.g. `NCT04203719`. Default: none.
    #[serde(default)]
    pub registry_id: Option<String>,
    /// Study title. Default: the study id.
    #[serde(default)]
    pub title: Option<String>,
    /// E.g. "single-arm, multi-cohort, multicenter phase II". Default: none.
    #[serde(default)]
    pub design: Option<String>,
    /// Treatment regimen in words. Default: none.
    #[serde(default)]
    pub regimen: Option<String>,
    /// Where the centres are, e.g. "China" ("enrolled in 7 centers in China"). Default: none.
    #[serde(default)]
    pub country: Option<String>,
    /// Primary endpoint in words. Default: "objective response rate (ORR) per RECIST 1.1".
    #[serde(default)]
    pub primary_endpoint: Option<String>,
    /// Secondary endpoints in words. Default: none.
    #[serde(default)]
    pub secondary_endpoints: Vec<String>,
}

/// `data:`
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DataFiles {
    /// Base folder for the files below, relative to the config file. Default: the config's folder.
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// Subject-level analysis dataset. Required.
    pub adsl: PathBuf,
    /// Response assessments (per-visit `PARAMCD = OVR`). Default: none.
    #[serde(default)]
    pub adrs: Option<PathBuf>,
    /// Time-to-event dataset; when given, used as is instead of deriving. Default: none.
    #[serde(default)]
    pub adtte: Option<PathBuf>,
    /// Adverse events. Default: none.
    #[serde(default)]
    pub adae: Option<PathBuf>,
    /// Tumour measurements (sum of diameters). Default: none.
    #[serde(default)]
    pub adtr: Option<PathBuf>,
    /// ADRS `PARAMCD`s that may hold the per-visit overall response, one or a list: the first
    /// that ADRS has is read. Default: `[OVR, OVRLRESP]` (the admiralonco and CDISC names).
    #[serde(default, deserialize_with = "one_or_many")]
    pub adrs_paramcd: Option<Vec<String>>,
    /// `PARAMCD` of the sum-of-diameters parameter in ADTR. Default: `SDIAM`.
    #[serde(default)]
    pub adtr_paramcd: Option<String>,
    /// ADSL flag column (`Y` = in) of the efficacy population, over which response and
    /// time-to-event endpoints are computed, e.g. `SAFFL` when ADTTE covers the safety
    /// population, as in the CDISC pilot. Default: the first of `EFFFL`, `FASFL`, `ITTFL` that
    /// ADSL has (every subject when it has none).
    #[serde(default)]
    pub efficacy_flag: Option<String>,
}

/// `analysis:` at study level, or the per-cohort override. Every key is optional here;
/// [`AnalysisConfig::resolve`] fills the defaults.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisConfig {
    /// days | weeks | months | years. Default: months.
    pub time_unit: Option<TimeUnit>,
    /// Confidence level of every interval. Default: 0.95.
    pub ci_level: Option<f64>,
    /// Transform of the pointwise KM band. Default: log-log.
    pub km_ci: Option<CiTransform>,
    /// Median CI method: a transform, or `collett`. Default: same as `km_ci`.
    pub median_ci: Option<MedianCi>,
    /// Endpoint whose reverse-KM median is the median follow-up. Default: OS.
    pub followup: Option<String>,
    /// clopper-pearson | wilson. Default: clopper-pearson.
    pub proportion_ci: Option<ProportionCi>,
    /// Days from a CR/PR to the assessment that confirms it. Default: 28.
    pub confirmation_days: Option<i64>,
    /// SD counts only on or after this many days from treatment start. Default: 42.
    pub sd_min_days: Option<i64>,
    /// Confirmed (RECIST 1.1 for single-arm trials) or unconfirmed BOR. Default: true.
    pub confirmed: Option<bool>,
    /// Most NE assessments allowed between a response and its confirmation. Default: 1.
    pub max_nr_ne: Option<usize>,
    /// Allow one SD between a PR and its confirmation. Default: false.
    pub accept_sd: Option<bool>,
    /// Count NON-CR/NON-PD in the disease control rate. Default: true.
    pub dcr_includes_non_cr_non_pd: Option<bool>,
    /// A PD or death more than this many days after the last adequate assessment follows two
    /// or more missed assessments and is censored there (FDA 2018). Default: 91 (2 × 6 weeks
    /// + 1 week window); 0 turns the rule off.
    pub missed_visit_days: Option<i64>,
    /// Landmark times for survival rates, in `time_unit`. Default: [6, 12].
    pub landmarks: Option<Vec<f64>>,
    /// Endpoint name → ADTTE PARAMCD, or `{ paramcd, label }` where the label is the
    /// endpoint in words for documents and figures. Default: { PFS: PFS, OS: OS, DOR: DOR }.
    pub tte_params: Option<IndexMap<String, TteParam>>,
    /// `AEREL`/`AREL` values counted as treatment-related (case-insensitive).
    /// Default: [Y, RELATED, PROBABLE, POSSIBLE].
    pub related_values: Option<Vec<String>>,
    /// Decimals of percentages in documents. Default: 1.
    pub percent_decimals: Option<usize>,
    /// Decimals of times (medians, follow-up) in documents. Default: 1.
    pub time_decimals: Option<usize>,
    /// How many adverse-event terms the treatment-related adverse-event figure shows, 0 to
    /// 100. Default: 10.
    pub ae_top_n: Option<usize>,
    /// The abstract lists every grade ≥3 treatment-related adverse event by term when there
    /// are at most this many terms (else it names the most common). Default: 5.
    pub ae_terms_listed: Option<usize>,
    /// Tied event times in the Cox model of arm comparisons: `efron` (R's default) or
    /// `breslow` (SAS PROC PHREG's). Default: efron.
    pub cox_ties: Option<CoxTies>,
    /// Interval of a difference of two proportions: `newcombe` (hybrid score) or `wald`.
    /// Default: newcombe.
    pub diff_ci: Option<DiffCi>,
    /// The test of two response rates the documents print: `auto` (CMH with strata, else
    /// Fisher's exact test when an expected count is below 5, else chi-square), `chisq`,
    /// `fisher` or `cmh` (needs strata). Default: auto.
    pub response_test: Option<ResponseTest>,
}

/// The test of two response rates (`analysis.response_test`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseTest {
    /// CMH with strata; Fisher's exact test where an expected count is below 5; else chi-square.
    Auto,
    /// Pearson's chi-square test without continuity correction.
    Chisq,
    /// Fisher's exact test.
    Fisher,
    /// The Cochran–Mantel–Haenszel test over the strata.
    Cmh,
}

/// Tied event times in the Cox model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CoxTies {
    /// Efron's approximation.
    Efron,
    /// Breslow's approximation.
    Breslow,
}

/// Interval of a difference of two proportions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DiffCi {
    /// Newcombe's hybrid score interval (from Wilson intervals).
    Newcombe,
    /// Wald interval.
    Wald,
}

/// The ADRS parameters of the per-visit overall response when the config names none.
pub const DEFAULT_ADRS_PARAMCDS: [&str; 2] = ["OVR", "OVRLRESP"];

/// A text or a list of texts (`adrs_paramcd: OVRLRESP` or `[OVR, OVRLRESP]`).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a PARAMCD or a list of PARAMCDs")]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    let list = match OneOrMany::deserialize(d)? {
        OneOrMany::One(one) => vec![one],
        OneOrMany::Many(many) => many,
    };
    if list.is_empty() || list.iter().any(|p| p.trim().is_empty()) {
        return Err(serde::de::Error::custom(
            "an empty PARAMCD; expected a PARAMCD or a list of PARAMCDs",
        ));
    }
    Ok(Some(list))
}

/// The endpoints analysed when the config names none: PFS, OS and DoR under their own names.
pub fn default_tte_params() -> IndexMap<String, TteParam> {
    ["PFS", "OS", "DOR"]
        .iter()
        .map(|p| (p.to_string(), TteParam::Code(p.to_string())))
        .collect()
}

/// One endpoint of `tte_params`: its ADTTE PARAMCD, or the PARAMCD and the endpoint in words.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(
    untagged,
    expecting = "a PARAMCD, or { paramcd: PARAMCD, label: \"words\" }"
)]
pub enum TteParam {
    /// `PFS: PFS`.
    Code(String),
    /// `TTDE: { paramcd: TTDE, label: "time to first dermatologic event" }`.
    Labelled {
        /// The ADTTE PARAMCD.
        paramcd: String,
        /// The endpoint in words, lower case as in a sentence.
        #[serde(default)]
        label: Option<String>,
    },
}

impl TteParam {
    /// The ADTTE PARAMCD.
    pub fn paramcd(&self) -> &str {
        match self {
            TteParam::Code(code) | TteParam::Labelled { paramcd: code, .. } => code,
        }
    }
}

/// Longest endpoint label (it goes into sentences and figure titles).
const MAX_LABEL_CHARS: usize = 120;

/// The endpoint `name` in words: the configured label, else the words for PFS, OS and DoR,
/// else the name itself.
pub fn endpoint_label(name: &str, param: &TteParam) -> String {
    match (param, name) {
        (TteParam::Labelled { label: Some(l), .. }, _) => l.clone(),
        (_, "PFS") => "progression-free survival".to_string(),
        (_, "OS") => "overall survival".to_string(),
        (_, "DOR") => "duration of response".to_string(),
        (_, other) => other.to_string(),
    }
}

/// Time unit of every reported time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// 1 day.
    Days,
    /// 7 days.
    Weeks,
    /// 30.4375 days (365.25 / 12).
    Months,
    /// 365.25 days.
    Years,
}

impl TimeUnit {
    /// Days in one unit.
    pub fn days(self) -> f64 {
        match self {
            TimeUnit::Days => 1.0,
            TimeUnit::Weeks => 7.0,
            TimeUnit::Months => 30.4375,
            TimeUnit::Years => 365.25,
        }
    }

    /// The unit an ADaM `AVALU` names: `DAYS`, `WEEKS`, `MONTHS`, `YEARS` or the singular, in
    /// any case.
    pub fn from_avalu(text: &str) -> Option<TimeUnit> {
        [
            TimeUnit::Days,
            TimeUnit::Weeks,
            TimeUnit::Months,
            TimeUnit::Years,
        ]
        .into_iter()
        .find(|unit| {
            let plural = unit.name();
            text.eq_ignore_ascii_case(plural)
                || plural
                    .strip_suffix('s')
                    .is_some_and(|one| text.eq_ignore_ascii_case(one))
        })
    }

    /// Plural name for text ("months").
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Days => "days",
            TimeUnit::Weeks => "weeks",
            TimeUnit::Months => "months",
            TimeUnit::Years => "years",
        }
    }
}

/// Median CI method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MedianCi {
    /// Brookmeyer–Crowley under the log-log band.
    LogLog,
    /// Brookmeyer–Crowley under the log band.
    Log,
    /// Brookmeyer–Crowley under the plain band.
    Plain,
    /// Brookmeyer–Crowley under the arcsine-square-root band.
    Arcsin,
    /// Estimate ± z·SE with Collett's density-based SE (SPSS).
    Collett,
}

impl MedianCi {
    /// The band transform for Brookmeyer–Crowley, or `None` for Collett.
    pub fn transform(self) -> Option<CiTransform> {
        match self {
            MedianCi::LogLog => Some(CiTransform::LogLog),
            MedianCi::Log => Some(CiTransform::Log),
            MedianCi::Plain => Some(CiTransform::Plain),
            MedianCi::Arcsin => Some(CiTransform::Arcsin),
            MedianCi::Collett => None,
        }
    }

    fn from_transform(t: CiTransform) -> MedianCi {
        match t {
            CiTransform::LogLog => MedianCi::LogLog,
            CiTransform::Log => MedianCi::Log,
            CiTransform::Plain => MedianCi::Plain,
            CiTransform::Arcsin => MedianCi::Arcsin,
        }
    }
}

/// Confidence interval for a proportion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProportionCi {
    /// Exact (binom.test).
    ClopperPearson,
    /// Wilson score, no continuity correction.
    Wilson,
}

/// Analysis conventions with every default filled in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// See [`AnalysisConfig::time_unit`].
    pub time_unit: TimeUnit,
    /// See [`AnalysisConfig::ci_level`].
    pub ci_level: f64,
    /// See [`AnalysisConfig::km_ci`].
    pub km_ci: CiTransform,
    /// See [`AnalysisConfig::median_ci`].
    pub median_ci: MedianCi,
    /// See [`AnalysisConfig::followup`].
    pub followup: String,
    /// See [`AnalysisConfig::proportion_ci`].
    pub proportion_ci: ProportionCi,
    /// See [`AnalysisConfig::confirmation_days`].
    pub confirmation_days: i64,
    /// See [`AnalysisConfig::sd_min_days`].
    pub sd_min_days: i64,
    /// See [`AnalysisConfig::confirmed`].
    pub confirmed: bool,
    /// See [`AnalysisConfig::max_nr_ne`].
    pub max_nr_ne: usize,
    /// See [`AnalysisConfig::accept_sd`].
    pub accept_sd: bool,
    /// See [`AnalysisConfig::dcr_includes_non_cr_non_pd`].
    pub dcr_includes_non_cr_non_pd: bool,
    /// See [`AnalysisConfig::missed_visit_days`].
    pub missed_visit_days: i64,
    /// See [`AnalysisConfig::landmarks`].
    pub landmarks: Vec<f64>,
    /// See [`AnalysisConfig::tte_params`]: endpoint → PARAMCD.
    pub tte_params: IndexMap<String, String>,
    /// Endpoint → the endpoint in words ([`endpoint_label`]).
    pub tte_labels: IndexMap<String, String>,
    /// See [`AnalysisConfig::related_values`].
    pub related_values: Vec<String>,
    /// See [`AnalysisConfig::percent_decimals`].
    pub percent_decimals: usize,
    /// See [`AnalysisConfig::time_decimals`].
    pub time_decimals: usize,
    /// See [`AnalysisConfig::ae_top_n`].
    pub ae_top_n: usize,
    /// See [`AnalysisConfig::ae_terms_listed`].
    pub ae_terms_listed: usize,
    /// See [`AnalysisConfig::cox_ties`].
    pub cox_ties: CoxTies,
    /// See [`AnalysisConfig::diff_ci`].
    pub diff_ci: DiffCi,
    /// See [`AnalysisConfig::response_test`].
    pub response_test: ResponseTest,
}

/// A confidence level in percent as documents label it: `ci_level` has at most three
/// decimals (the config check), so tenths of a percent are exact (0.975 → 97.5).
pub fn ci_percent(level: f64) -> f64 {
    (level * 1000.0).round() / 10.0
}

impl Analysis {
    /// The confidence level in percent, as every document shows it (95 for 0.95).
    pub fn ci_percent(&self) -> f64 {
        ci_percent(self.ci_level)
    }
}

impl AnalysisConfig {
    /// Fills every key from `self`, else `fallback`, else the documented default.
    pub fn resolve(&self, fallback: &AnalysisConfig) -> Analysis {
        let params = self
            .tte_params
            .clone()
            .or_else(|| fallback.tte_params.clone())
            .unwrap_or_else(default_tte_params);
        let km_ci = self.km_ci.or(fallback.km_ci).unwrap_or(CiTransform::LogLog);
        Analysis {
            time_unit: self
                .time_unit
                .or(fallback.time_unit)
                .unwrap_or(TimeUnit::Months),
            ci_level: self.ci_level.or(fallback.ci_level).unwrap_or(0.95),
            km_ci,
            median_ci: self
                .median_ci
                .or(fallback.median_ci)
                .unwrap_or(MedianCi::from_transform(km_ci)),
            followup: self
                .followup
                .clone()
                .or_else(|| fallback.followup.clone())
                .unwrap_or_else(|| "OS".to_string()),
            proportion_ci: self
                .proportion_ci
                .or(fallback.proportion_ci)
                .unwrap_or(ProportionCi::ClopperPearson),
            confirmation_days: self
                .confirmation_days
                .or(fallback.confirmation_days)
                .unwrap_or(28),
            sd_min_days: self.sd_min_days.or(fallback.sd_min_days).unwrap_or(42),
            confirmed: self.confirmed.or(fallback.confirmed).unwrap_or(true),
            max_nr_ne: self.max_nr_ne.or(fallback.max_nr_ne).unwrap_or(1),
            accept_sd: self.accept_sd.or(fallback.accept_sd).unwrap_or(false),
            dcr_includes_non_cr_non_pd: self
                .dcr_includes_non_cr_non_pd
                .or(fallback.dcr_includes_non_cr_non_pd)
                .unwrap_or(true),
            missed_visit_days: self
                .missed_visit_days
                .or(fallback.missed_visit_days)
                .unwrap_or(91),
            landmarks: self
                .landmarks
                .clone()
                .or_else(|| fallback.landmarks.clone())
                .unwrap_or_else(|| vec![6.0, 12.0]),
            tte_params: params
                .iter()
                .map(|(name, p)| (name.clone(), p.paramcd().to_string()))
                .collect(),
            tte_labels: params
                .iter()
                .map(|(name, p)| (name.clone(), endpoint_label(name, p)))
                .collect(),
            related_values: self
                .related_values
                .clone()
                .or_else(|| fallback.related_values.clone())
                .unwrap_or_else(|| {
                    ["Y", "RELATED", "PROBABLE", "POSSIBLE"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect()
                }),
            percent_decimals: self
                .percent_decimals
                .or(fallback.percent_decimals)
                .unwrap_or(1),
            time_decimals: self.time_decimals.or(fallback.time_decimals).unwrap_or(1),
            ae_top_n: self.ae_top_n.or(fallback.ae_top_n).unwrap_or(10),
            ae_terms_listed: self
                .ae_terms_listed
                .or(fallback.ae_terms_listed)
                .unwrap_or(5),
            cox_ties: self
                .cox_ties
                .or(fallback.cox_ties)
                .unwrap_or(CoxTies::Efron),
            diff_ci: self
                .diff_ci
                .or(fallback.diff_ci)
                .unwrap_or(DiffCi::Newcombe),
            response_test: self
                .response_test
                .or(fallback.response_test)
                .unwrap_or(ResponseTest::Auto),
        }
    }
}

/// A scalar written in YAML (`COHORT: 2` and `COHORT: "2"` mean the same filter).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Scalar {
    /// A quoted or plain string.
    Text(String),
    /// An integer.
    Integer(i64),
    /// A number with a fraction.
    Number(f64),
    /// true/false.
    Bool(bool),
}

impl Scalar {
    /// The value as the text it is compared with in the data.
    pub fn as_text(&self) -> String {
        match self {
            Scalar::Text(s) => s.clone(),
            Scalar::Integer(i) => i.to_string(),
            Scalar::Number(x) => x.to_string(),
            Scalar::Bool(b) => if *b { "Y" } else { "N" }.to_string(),
        }
    }
}

/// One entry of `cohorts:`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CohortConfig {
    /// Required; `[a-z0-9-]+`, used in output paths.
    pub id: String,
    /// Human-readable name. Default: the id.
    #[serde(default)]
    pub label: Option<String>,
    /// Title of the abstract. Default: built from the study title and the label.
    #[serde(default)]
    pub title: Option<String>,
    /// The population in words, e.g. "recurrent or metastatic HNSCC (R/M HNSCC)". Default: label.
    #[serde(default)]
    pub population: Option<String>,
    /// ADSL column = value filters (all must hold). Default: every subject.
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, Scalar>,
    /// Cut-off of this cohort, overriding the study's. Default: the study's.
    #[serde(default, deserialize_with = "crate::model::date_serde::optional")]
    pub cutoff: Option<Date>,
    /// Overrides of any analysis key for this cohort. Default: none.
    #[serde(default)]
    pub analysis: AnalysisConfig,
    /// Markdown; may use Tera expressions over the results. Default: none.
    #[serde(default)]
    pub background: Option<String>,
    /// Markdown: eligibility and treatment, the start of Methods. Default: none.
    #[serde(default)]
    pub methods: Option<String>,
    /// Markdown; may use Tera expressions over the results. Default: none.
    #[serde(default)]
    pub conclusions: Option<String>,
    /// ADSL columns summarised as baseline characteristics. Default: none.
    #[serde(default)]
    pub baseline: Vec<BaselineItem>,
    /// The arms of a randomised cohort: each analysed on its own and compared with the
    /// reference (docs/CONFIG.md). Default: none (one arm).
    #[serde(default)]
    pub arms: Option<ArmsConfig>,
    /// ADSL columns whose combined values are the strata of stratified comparisons. Default:
    /// none.
    #[serde(default)]
    pub strata: Vec<String>,
    /// ADSL columns whose values are the subgroups of per-subgroup hazard ratios. Default:
    /// none.
    #[serde(default)]
    pub subgroups: Vec<String>,
}

/// `cohorts[].arms`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ArmsConfig {
    /// The ADSL column whose values are the arms (ARM, TRT01P, ...).
    pub column: String,
    /// The arm every other is compared with.
    pub reference: Scalar,
    /// The arms in the order documents show them. Default: the others in sorted order, the
    /// reference last.
    #[serde(default)]
    pub order: Option<Vec<Scalar>>,
}

/// One baseline characteristic to summarise.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineItem {
    /// ADSL column.
    pub column: String,
    /// continuous (median, range) or categorical (n, %).
    pub kind: BaselineKind,
    /// Label in tables. Default: the column name.
    #[serde(default)]
    pub label: Option<String>,
    /// Words for coded values in documents (`{ 0: "fully active" }`); the column's CDISC
    /// decodes (SEX, RACE, ETHNIC) otherwise, or the value as written.
    #[serde(default)]
    pub labels: IndexMap<Code, String>,
    /// The levels' own order in prose (a scale's, a dose's); unlisted levels follow. Default:
    /// ascending when every level is a number, else most frequent first.
    #[serde(default)]
    pub order: Vec<Scalar>,
}

/// A coded value written in YAML as a string or a number (`0:` and `"0":` are one code).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Code(pub String);

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Code, D::Error> {
        Scalar::deserialize(d).map(|s| Code(s.as_text()))
    }
}

/// How a baseline column is summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum BaselineKind {
    /// Median (range), mean (SD).
    Continuous,
    /// n (%) per level.
    Categorical,
}

/// `output:`
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Output folder, relative to the config file. Default: `output`.
    #[serde(default = "default_output_dir")]
    pub dir: PathBuf,
    /// md | html | docx | png | dataset-json. Default: [md, html].
    #[serde(default = "default_formats")]
    pub formats: Vec<Format>,
    /// Folder of user templates overriding built-ins by name. Default: none.
    #[serde(default)]
    pub templates: Option<PathBuf>,
    /// Conference whose abstract length limit is checked: `asco`, `esmo`, `aacr`, `wclc`, or
    /// `{ limit: N, counts: chars | chars_no_spaces | words, title: true | false }`
    /// (docs/CONFERENCES.md). Default: none (no length is measured).
    #[serde(default)]
    pub conference: Option<crate::documents::conference::ConferenceSpec>,
    /// A `.docx` whose styles (fonts, headings, captions, spacing) the Word files take, as
    /// pandoc's `--reference-doc`. Default: none (readout's house style).
    #[serde(default)]
    pub docx_reference: Option<PathBuf>,
    /// Whether figures carry their title (journals set the title in the legend, so they
    /// want none in the figure). Default: `true`.
    #[serde(default = "default_figure_titles")]
    pub figure_titles: bool,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            dir: default_output_dir(),
            formats: default_formats(),
            templates: None,
            conference: None,
            docx_reference: None,
            figure_titles: default_figure_titles(),
        }
    }
}

fn default_figure_titles() -> bool {
    true
}

fn default_output_dir() -> PathBuf {
    PathBuf::from("output")
}

fn default_formats() -> Vec<Format> {
    vec![Format::Md, Format::Html]
}

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Markdown abstract.
    Md,
    /// Self-contained HTML abstract and report.
    Html,
    /// Word documents.
    Docx,
    /// PNG copies of the figures.
    Png,
    /// The derived datasets also as CDISC Dataset-JSON v1.1 (`derived/<cohort>.json`).
    #[serde(rename = "dataset-json")]
    DatasetJson,
}

/// A config read from disk, with the paths resolved against its folder.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The config file as given.
    pub path: PathBuf,
    /// The raw bytes (hashed into the manifest).
    pub bytes: Vec<u8>,
    /// The parsed config.
    pub config: StudyConfig,
    /// `word/styles.xml` of `output.docx_reference`, once read (the build reads it).
    pub docx_styles: Option<std::sync::Arc<[u8]>>,
}

impl LoadedConfig {
    /// Folder the relative paths of the config start from.
    pub fn base_dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Absolute-or-relative path of a data file named in `data:`.
    pub fn data_path(&self, file: &Path) -> PathBuf {
        let mut base = self.base_dir();
        if let Some(dir) = &self.config.data.dir {
            base = base.join(dir);
        }
        base.join(file)
    }

    /// Output folder, from `--out` or `output.dir`.
    pub fn output_dir(&self, out_override: Option<&Path>) -> PathBuf {
        match out_override {
            Some(dir) => dir.to_path_buf(),
            None => self.base_dir().join(&self.config.output.dir),
        }
    }

    /// Study-level analysis settings resolved for one cohort.
    pub fn analysis_for(&self, cohort: &CohortConfig) -> Analysis {
        cohort.analysis.resolve(&self.config.analysis)
    }
}

/// Reads, parses and checks one config file.
pub fn load(path: &Path) -> Result<LoadedConfig> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read config", e))?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(config_error(
            path,
            "",
            format!(
                "the file is {} bytes; a study config is expected to be under {MAX_CONFIG_BYTES}",
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "cannot read config", e))?;
    let config = parse(path, &bytes)?;
    Ok(LoadedConfig {
        path: path.to_path_buf(),
        bytes,
        config,
        docx_styles: None,
    })
}

/// Parses config text (`path` only names it in errors) and checks it.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<StudyConfig> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        config_error(
            path,
            "",
            format!(
                "not valid UTF-8 (byte {}); save the config as UTF-8",
                e.valid_up_to()
            ),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(line) = nesting::too_deep(text) {
        return Err(config_error(
            path,
            &format!("line {line}: "),
            format!(
                "the YAML is nested more than {MAX_YAML_DEPTH} levels deep; a study config \
                 needs fewer than ten"
            ),
        ));
    }
    let deserializer = serde_yaml::Deserializer::from_str(text);
    let config: StudyConfig = serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let location = match inner.location() {
            Some(loc) => format!("line {}, column {}: ", loc.line(), loc.column()),
            None => String::new(),
        };
        // A syntax error deep in a value ends the path in `?` segments (no key was read yet).
        let key = key.trim_end_matches(".?");
        let key_part = if key.is_empty() || key == "." || key == "?" {
            String::new()
        } else {
            format!("key `{key}`: ")
        };
        let message = plain_yaml_message(&strip_yaml_location(&inner.to_string()));
        config_error(path, &format!("{location}{key_part}"), message)
    })?;
    validate(path, &config)?;
    Ok(config)
}

/// serde_yaml appends " at line L column C" to its messages; the location is printed once.
/// A syntax error may go on with its context (", while parsing a flow mapping at line 8 column
/// 12"), which is kept. serde_yaml also starts some messages with the key path (`analysis:
/// unknown field`), which the key part already says.
fn strip_yaml_location(message: &str) -> String {
    let owned;
    let message = match message.find(" at line ") {
        Some(i) => {
            let rest = message.get(i..).unwrap_or("");
            owned = match rest.find(", ") {
                Some(j) => format!(
                    "{}{}",
                    message.get(..i).unwrap_or(""),
                    rest.get(j..).unwrap_or("")
                ),
                None => message.get(..i).unwrap_or("").to_string(),
            };
            owned.as_str()
        }
        None => message,
    };
    match message.split_once(": ") {
        Some((path, rest))
            if !path.is_empty()
                && path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']')) =>
        {
            rest.to_string()
        }
        _ => message.to_string(),
    }
}

/// Rust type names and serde_yaml's limits in words a config author knows.
fn plain_yaml_message(message: &str) -> String {
    if message.starts_with("repetition limit exceeded") {
        return "YAML aliases (`*name`) expand to too many values (repetition limit exceeded); \
                expected a config that repeats at most a few anchors"
            .to_string();
    }
    if message.starts_with("recursion limit exceeded") {
        return "the YAML is nested too deeply (recursion limit exceeded); expected a study config"
            .to_string();
    }
    let mut out = message.to_string();
    for (rust, words) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected usize", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        if out.ends_with(rust) {
            out.truncate(out.len() - rust.len());
            out.push_str(words);
        }
    }
    out
}

fn config_error(path: &Path, location: &str, message: impl Into<String>) -> Error {
    Error::Config {
        file: path.to_path_buf(),
        location: location.to_string(),
        message: message.into(),
    }
}

/// The first config text (a value or a key) holding a control character, with its key path:
/// refused as in data, for they corrupt SVG and Word files and drive terminals (YAML's
/// `"\e"` escapes make them).
fn control_character(config: &StudyConfig) -> Option<(String, String, char)> {
    let value = serde_json::to_value(config).ok()?;
    let mut stack: Vec<(String, &serde_json::Value)> = vec![(String::new(), &value)];
    while let Some((key, v)) = stack.pop() {
        match v {
            serde_json::Value::String(text) => {
                if let Some((_, c)) = crate::error::find_refused_control(text) {
                    return Some((key, text.clone(), c));
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((format!("{key}[{i}]"), item));
                }
            }
            serde_json::Value::Object(map) => {
                for (k, item) in map.iter().rev() {
                    let child = if key.is_empty() {
                        k.clone()
                    } else {
                        format!("{key}.{k}")
                    };
                    if let Some((_, c)) = crate::error::find_refused_control(k) {
                        return Some((child, k.clone(), c));
                    }
                    stack.push((child, item));
                }
            }
            _ => {}
        }
    }
    None
}

/// Checks serde cannot express: ids usable as folder names, unique cohorts, sane levels.
fn validate(path: &Path, config: &StudyConfig) -> Result<()> {
    if let Some((key, text, c)) = control_character(config) {
        return Err(config_error(
            path,
            &format!("key `{key}`: "),
            format!(
                "`{}` holds {}; expected text without control characters (tab and line \
                 breaks are allowed)",
                crate::error::escape_controls(&text, false),
                crate::error::refused_character(c)
            ),
        ));
    }
    let id = &config.study.id;
    check_id_length(path, "key `study.id`: ", id)?;
    if let Some(problem) = study_id_problem(id) {
        return Err(config_error(path, "key `study.id`: ", problem));
    }
    if config.cohorts.is_empty() {
        return Err(config_error(
            path,
            "key `cohorts`: ",
            "no cohort given; expected at least one",
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, cohort) in config.cohorts.iter().enumerate() {
        let key = format!("key `cohorts[{i}].id`: ");
        check_id_length(path, &key, &cohort.id)?;
        if let Some(problem) = cohort_id_problem(&cohort.id) {
            return Err(config_error(path, &key, problem));
        }
        if !seen.insert(cohort.id.as_str()) {
            return Err(config_error(
                path,
                &key,
                format!("duplicate cohort id `{}`; expected unique ids", cohort.id),
            ));
        }
        check_analysis(path, &format!("cohorts[{i}].analysis"), &cohort.analysis)?;
        check_arms(path, i, cohort)?;
        let test = cohort
            .analysis
            .response_test
            .or(config.analysis.response_test);
        if test == Some(ResponseTest::Cmh) && cohort.strata.is_empty() {
            return Err(config_error(
                path,
                &format!("key `cohorts[{i}]`: "),
                "`response_test: cmh` tests over strata, and the cohort has none; add \
                 `strata` or choose `auto`, `chisq` or `fisher`"
                    .to_string(),
            ));
        }
        // ADAE is read once for the study, with the study's related values: a cohort's own
        // would be silently unused.
        if cohort.analysis.related_values.is_some() {
            return Err(config_error(
                path,
                &format!("key `cohorts[{i}].analysis.related_values`: "),
                "related values apply to the whole study (ADAE is read once); set \
                 `analysis.related_values` instead"
                    .to_string(),
            ));
        }
    }
    check_analysis(path, "analysis", &config.analysis)?;
    Ok(())
}

/// What makes `id` unusable as a study id (a folder name), if anything: also checked on the
/// ids `diff` reads back from a results.json, which may have been edited.
pub fn study_id_problem(id: &str) -> Option<String> {
    let usable = !id.is_empty()
        && id != "."
        && id != ".."
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    (!usable).then(|| {
        format!(
            "`{}` is not usable as a folder name; expected letters, digits, `-`, `_` or `.`",
            crate::error::escape_controls(id, false)
        )
    })
}

/// What makes `id` unusable as a cohort id (a folder and file name), if anything; see
/// [`study_id_problem`].
pub fn cohort_id_problem(id: &str) -> Option<String> {
    if id == "derived" {
        return Some(
            "`derived` is reserved for the derived datasets folder; choose another id".into(),
        );
    }
    let usable = !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    (!usable).then(|| {
        format!(
            "`{}` is not a valid cohort id; expected lower-case letters, digits and `-` only",
            crate::error::escape_controls(id, false)
        )
    })
}

/// Longest study or cohort id: each is a folder name, and a long one failed the build with
/// "File name too long" after `check` had passed it.
pub const MAX_ID_CHARS: usize = 64;

fn check_id_length(path: &Path, key: &str, id: &str) -> Result<()> {
    let chars = id.chars().count();
    if chars > MAX_ID_CHARS {
        let shown: String = id.chars().take(20).collect();
        return Err(config_error(
            path,
            key,
            format!(
                "`{}…` is {chars} characters long; expected at most {MAX_ID_CHARS} (it names \
                 a folder)",
                crate::error::escape_controls(&shown, false)
            ),
        ));
    }
    Ok(())
}

/// `arms`, `strata` and `subgroups` of cohort `i`: strata and subgroups compare arms, so they
/// need arms; an order lists each arm once, the reference among them.
fn check_arms(path: &Path, i: usize, cohort: &CohortConfig) -> Result<()> {
    let key = |k: &str| format!("key `cohorts[{i}].{k}`: ");
    let Some(arms) = &cohort.arms else {
        for (name, columns) in [("strata", &cohort.strata), ("subgroups", &cohort.subgroups)] {
            if !columns.is_empty() {
                return Err(config_error(
                    path,
                    &key(name),
                    format!("{name} compare arms, and the cohort has none; add `arms: {{ column, reference }}`"),
                ));
            }
        }
        return Ok(());
    };
    for (name, column) in std::iter::once(("arms.column", &arms.column))
        .chain(cohort.strata.iter().map(|c| ("strata", c)))
        .chain(cohort.subgroups.iter().map(|c| ("subgroups", c)))
    {
        if column.trim().is_empty() {
            return Err(config_error(
                path,
                &key(name),
                "an empty column name; expected an ADSL column".to_string(),
            ));
        }
    }
    if let Some(order) = &arms.order {
        let texts: Vec<String> = order.iter().map(Scalar::as_text).collect();
        if let Some(twice) = texts
            .iter()
            .enumerate()
            .find(|(k, t)| texts[..*k].contains(t))
        {
            return Err(config_error(
                path,
                &key("arms.order"),
                format!("arm `{}` is listed twice; expected each arm once", twice.1),
            ));
        }
        let reference = arms.reference.as_text();
        if !texts.contains(&reference) {
            return Err(config_error(
                path,
                &key("arms.order"),
                format!("the reference arm `{reference}` is not listed; expected every arm, the reference among them"),
            ));
        }
    }
    Ok(())
}

fn check_analysis(path: &Path, key: &str, a: &AnalysisConfig) -> Result<()> {
    if let Some(level) = a.ci_level {
        // Every interval is labelled with its level: one the label cannot show exactly
        // (0.9999999999999999 read "100% CI") is refused, and so are levels no report uses.
        let thousandths = level * 1000.0;
        if !(0.5..=0.999).contains(&level) || (thousandths - thousandths.round()).abs() > 1e-6 {
            return Err(config_error(
                path,
                &format!("key `{key}.ci_level`: "),
                format!(
                    "{level} is not a confidence level readout can label; expected 0.5 to 0.999 \
                     with at most three decimals, e.g. 0.95"
                ),
            ));
        }
    }
    for (name, value) in [
        ("confirmation_days", a.confirmation_days),
        ("sd_min_days", a.sd_min_days),
        ("missed_visit_days", a.missed_visit_days),
    ] {
        if let Some(v) = value {
            if v < 0 {
                return Err(config_error(
                    path,
                    &format!("key `{key}.{name}`: "),
                    format!("{v} days; expected zero or more"),
                ));
            }
        }
    }
    // Templates clamp `d=N` to 10 as well; far more would overflow the formatter.
    for (name, value) in [
        ("percent_decimals", a.percent_decimals),
        ("time_decimals", a.time_decimals),
    ] {
        if let Some(d) = value.filter(|d| *d > MAX_DECIMALS) {
            return Err(config_error(
                path,
                &format!("key `{key}.{name}`: "),
                format!("{d} decimals; expected 0 to {MAX_DECIMALS}"),
            ));
        }
    }
    if let Some(n) = a.ae_top_n.filter(|n| *n > MAX_AE_TOP_N) {
        return Err(config_error(
            path,
            &format!("key `{key}.ae_top_n`: "),
            format!(
                "{n} terms; expected 0 to {MAX_AE_TOP_N} (the adverse-event figure shows at most \
                 {MAX_AE_TOP_N} terms; more do not fit a figure)"
            ),
        ));
    }
    if let Some(landmarks) = &a.landmarks {
        if let Some(bad) = landmarks.iter().find(|t| !t.is_finite() || **t < 0.0) {
            return Err(config_error(
                path,
                &format!("key `{key}.landmarks`: "),
                format!("{bad} is not a time; expected non-negative numbers in the time unit"),
            ));
        }
    }
    if let Some(params) = &a.tte_params {
        for name in params.keys() {
            // The name is part of figure file names (`forest-<name>-<k>.png`).
            if name.is_empty()
                || name.len() > MAX_ID_CHARS
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                let shown: String = name.chars().take(20).collect();
                let ellipsis = if shown.len() < name.len() { "…" } else { "" };
                return Err(config_error(
                    path,
                    &format!("key `{key}.tte_params`: "),
                    format!(
                        "endpoint name `{}{ellipsis}` ({} characters); expected 1 to \
                         {MAX_ID_CHARS} letters, digits and `_` (it names figure files)",
                        crate::error::escape_controls(&shown, false),
                        name.chars().count()
                    ),
                ));
            }
        }
        for (name, param) in params {
            let bad = match param {
                TteParam::Code(code) | TteParam::Labelled { paramcd: code, .. }
                    if code.trim().is_empty() =>
                {
                    Some("an empty PARAMCD; expected the ADTTE PARAMCD".to_string())
                }
                TteParam::Labelled { label: Some(l), .. }
                    if l.trim().is_empty() || l.chars().count() > MAX_LABEL_CHARS =>
                {
                    Some(format!(
                        "label of {} characters; expected 1 to {MAX_LABEL_CHARS}",
                        l.chars().count()
                    ))
                }
                _ => None,
            };
            if let Some(message) = bad {
                return Err(config_error(
                    path,
                    &format!("key `{key}.tte_params.{name}`: "),
                    message,
                ));
            }
        }
    }
    if let Some(followup) = &a.followup {
        if let Some(params) = &a.tte_params {
            if !params.contains_key(followup) {
                return Err(config_error(
                    path,
                    &format!("key `{key}.followup`: "),
                    format!("`{followup}` is not an endpoint of tte_params"),
                ));
            }
        }
    }
    Ok(())
}

//! `analysis:` (study-wide, and per cohort): the keys as written ([`AnalysisConfig`]) and
//! resolved for one cohort with their defaults ([`Analysis`]), and their value types.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::model::endpoint;
use crate::stats::CiTransform;

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
    /// Interval of a difference of two proportions without strata: `newcombe` (hybrid score),
    /// `wald` or `mn` (Miettinen–Nurminen). With strata the difference is the stratified one
    /// with its stratified Miettinen–Nurminen interval, whatever this says. Default: newcombe.
    pub diff_ci: Option<DiffCi>,
    /// The test of two response rates the documents print: `auto` (CMH with strata, else
    /// Fisher's exact test when an expected count is below 5, else chi-square), `chisq`,
    /// `fisher` or `cmh` (needs strata). Default: auto.
    pub response_test: Option<ResponseTest>,
    /// Whether arms are compared on duration of response (HR, log-rank, subgroups). DoR is
    /// measured among responders, so the comparison is not randomised; trials report it per
    /// arm. Default: false (per-arm medians with CI and range only).
    pub compare_dor: Option<bool>,
    /// How per-visit responses become a best overall response: `recist1.1`, `irecist`,
    /// `lugano`, `imwg`, `rano`, `as-given`, or a set of the config's own
    /// (docs/CRITERIA.md). Default: recist1.1.
    pub response_criteria: Option<super::CriteriaConfig>,
    /// iRECIST: `[min, max]` days from an iUPD to the iCPD that confirms it; an iCPD outside
    /// them counts as recorded, with a warning. Default: [28, 56] (4 to 8 weeks).
    pub iupd_confirmation_days: Option<[i64; 2]>,
    /// Which adverse events the abstract's safety sentences speak of: `trae` (any and grade ≥3
    /// treatment-related AEs, the grade ≥3 terms, discontinuations and deaths from TRAEs) or
    /// `teae` (grade ≥3, serious and fatal treatment-emergent AEs and discontinuations, as
    /// haematology abstracts give them). Default: trae.
    pub safety_view: Option<SafetyView>,
    /// Adverse events of special interest, each counted (any grade and grade ≥3 TEAEs) per
    /// cohort and arm and named in the abstract: `{ label, terms: [AEDECOD...] }` or
    /// `{ label, body_system: AEBODSYS }`. Default: none.
    pub ae_special_interest: Option<Vec<SpecialInterest>>,
    /// Order of the system organ classes and preferred terms of the AE tables: `frequency`
    /// (most subjects first, then by name) or `alphabetical`. Default: frequency.
    pub ae_sort: Option<AeSort>,
    /// Print each AE table cell's records beside its subjects ("12 (14.0%) [26]"). Default:
    /// false.
    pub ae_events: Option<bool>,
    /// The table of common TEAEs lists the preferred terms in at least this percentage of
    /// the subjects of any arm, 0 to 100. Default: 10.
    pub ae_common_pct: Option<f64>,
    /// Horizon of the restricted mean survival time, in `time_unit`: one number for every
    /// endpoint, or `{ ENDPOINT: number }`. Default: per endpoint, the smallest of the arms'
    /// (or the cohort's) longest follow-up times.
    pub rmst_tau: Option<RmstTau>,
    /// Whether the abstract gives each endpoint's restricted mean survival time (with arms,
    /// their difference with its CI and p) beside the medians. Default: false.
    pub rmst_in_abstract: Option<bool>,
    /// The table under a Kaplan–Meier plot: `at-risk` (subjects at risk) or `kmunicate` (at
    /// risk, events and censored so far). Default: at-risk.
    pub km_table: Option<KmTable>,
    /// Times of the risk table (and of the KM plot's ticks), in `time_unit`. Default: the
    /// plot's ticks, a conventional step of the time unit with at most 8 intervals.
    pub km_table_times: Option<Vec<f64>>,
    /// PFS and DoR derived from ADRS censored at the last adequate assessment on or before
    /// the start of new anticancer therapy, `{ column: NACTDT }` (an ADSL date column).
    /// Default: none (the rule is off).
    pub censor_at_new_therapy: Option<NewTherapy>,
    /// The protocol's tumour-assessment schedule from the origin, `[{every: 6 weeks, until:
    /// 48 weeks}, {every: 12 weeks}]`: the missed-visit rule of derived PFS and DoR is judged
    /// against it (the second scheduled assessment after the last adequate one, plus its
    /// window), not `missed_visit_days`. Default: none.
    pub assessment_schedule: Option<Vec<ScheduleEntry>>,
    /// What a `rmst_tau` past an arm's follow-up gives: `not-estimable` (the RMST of that
    /// endpoint not estimable, with a warning; everything else built) or `error`. Default:
    /// not-estimable.
    pub rmst_tau_beyond: Option<TauBeyond>,
    /// Day 1 of PFS and OS derived from ADRS and ADSL: `randomisation` (ADSL `RANDDT`),
    /// `first_dose` (`TRTSDT`) or an ADSL date column. Default: `randomisation` for a cohort
    /// with arms, `first_dose` without.
    pub origin: Option<Origin>,
    /// Each endpoint's role, `{ PFS: primary, OS: primary, ORR: secondary }`: what the
    /// abstract, poster and slides keep first (docs/CONFERENCES.md). Default: for a cohort
    /// with arms its first time-to-event endpoint primary, without arms ORR; every other
    /// endpoint secondary.
    pub endpoints: Option<IndexMap<String, Role>>,
    /// The landmark of a competing endpoint's cumulative incidence in the abstract, in
    /// `time_unit` (estimated beside `landmarks`). Default: one year (12 months, 52 weeks,
    /// 365 days); where an arm is no longer followed then, the latest landmark every arm is.
    pub cif_landmark: Option<f64>,
}

/// An endpoint's role in the protocol (`analysis.endpoints`), the order documents keep
/// content in: primary first, exploratory first to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A primary endpoint (two are a dual primary).
    Primary,
    /// A secondary endpoint.
    Secondary,
    /// An exploratory endpoint.
    Exploratory,
}

/// One stretch of `analysis.assessment_schedule`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleEntry {
    /// The interval between assessments (`6 weeks`, `42 days`).
    pub every: Span,
    /// The time from the origin the stretch ends (the last stretch has none).
    #[serde(default)]
    pub until: Option<Span>,
    /// The visit window either side of a scheduled day. Default: a day per six of the
    /// interval, rounded up (7 days for 6 weeks, 14 for 12).
    #[serde(default)]
    pub window: Option<Span>,
}

/// A length of time written with its unit: `6 weeks`, `42 days`, `3 months` (30.4375 days,
/// rounded to a day); a bare number is days.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Span {
    /// Whole days.
    pub days: i64,
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Days(f64),
            Text(String),
        }
        let bad = |what: &str| {
            serde::de::Error::custom(format!(
                "`{what}` is not a length of time; expected a number with days, weeks or \
                 months, e.g. `6 weeks`"
            ))
        };
        let (n, unit) = match Written::deserialize(d)? {
            Written::Days(n) => (n, 1.0),
            Written::Text(text) => {
                let mut words = text.split_whitespace();
                let n: f64 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| bad(&text))?;
                let unit = match words.next().map(str::to_ascii_lowercase).as_deref() {
                    None | Some("day" | "days") => 1.0,
                    Some("week" | "weeks") => 7.0,
                    Some("month" | "months") => 30.4375,
                    _ => return Err(bad(&text)),
                };
                if words.next().is_some() {
                    return Err(bad(&text));
                }
                (n, unit)
            }
        };
        let days = n * unit;
        if !(days.is_finite() && (0.0..=36_525.0).contains(&days)) {
            return Err(serde::de::Error::custom(format!(
                "{n} is not a length of time readout takes; expected 0 to 100 years"
            )));
        }
        Ok(Span {
            days: days.round() as i64,
        })
    }
}

/// `analysis.rmst_tau_beyond`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TauBeyond {
    /// The RMST at that τ is not estimable, with a warning.
    #[default]
    NotEstimable,
    /// The build stops with an error naming the key.
    Error,
}

/// `analysis.origin`: the date derived PFS and OS start from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// Randomisation (`RANDDT`): an intention-to-treat analysis.
    Randomisation,
    /// The first dose (`TRTSDT`): a single-arm or safety-population analysis.
    FirstDose,
    /// Another ADSL date column.
    Column(String),
}

impl<'de> Deserialize<'de> for Origin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "randomisation" | "randomization" => Origin::Randomisation,
            "first_dose" | "first-dose" => Origin::FirstDose,
            _ => Origin::Column(text.trim().to_string()),
        })
    }
}

impl Origin {
    /// The ADSL column it reads (`RANDDT`, `TRTSDT` or its own).
    pub fn column(&self) -> &str {
        match self {
            Origin::Randomisation => "RANDDT",
            Origin::FirstDose => "TRTSDT",
            Origin::Column(c) => c,
        }
    }

    /// The origin in words, for Methods ("randomisation", "the first dose", "RFICDT").
    pub fn words(&self) -> String {
        match self {
            Origin::Randomisation => "randomisation".to_string(),
            Origin::FirstDose => "the first dose".to_string(),
            Origin::Column(c) => format!("the date in {c}"),
        }
    }
}

/// `analysis.censor_at_new_therapy`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NewTherapy {
    /// The ADSL column of the date new anticancer therapy started (`NACTDT`).
    pub column: String,
}

/// `analysis.rmst_tau`: one horizon, or one per endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged, expecting = "a number, or { ENDPOINT: number }")]
pub enum RmstTau {
    /// Every endpoint.
    All(f64),
    /// By endpoint name; endpoints not named take the default.
    ByEndpoint(IndexMap<String, f64>),
}

impl RmstTau {
    /// The horizon of `endpoint`, if one is given.
    pub fn of(&self, endpoint: &str) -> Option<f64> {
        match self {
            RmstTau::All(t) => Some(*t),
            RmstTau::ByEndpoint(m) => m.get(endpoint).copied(),
        }
    }
}

/// `analysis.km_table`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KmTable {
    /// Subjects at risk.
    #[default]
    AtRisk,
    /// At risk, cumulative events and cumulative censored (Morris et al. 2019).
    Kmunicate,
}

/// `analysis.ae_sort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AeSort {
    /// Most subjects first, then by name.
    #[default]
    Frequency,
    /// By name.
    Alphabetical,
}

/// `analysis.safety_view`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SafetyView {
    /// Treatment-related adverse events.
    Trae,
    /// Treatment-emergent adverse events.
    Teae,
}

/// One group of adverse events of special interest (`analysis.ae_special_interest`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialInterest {
    /// How documents name it ("infections", "cytokine release syndrome").
    pub label: String,
    /// The preferred terms (`AEDECOD`, compared without case) it holds.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub terms: Vec<String>,
    /// A system organ class (`AEBODSYS`, compared without case) whose every term it holds.
    #[serde(default)]
    pub body_system: Option<String>,
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

/// Interval of a difference of two proportions (without strata).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffCi {
    /// Newcombe's hybrid score interval (from Wilson intervals).
    Newcombe,
    /// Wald interval.
    Wald,
    /// Miettinen–Nurminen score interval.
    Mn,
}

/// The endpoints analysed when the config names none: PFS, OS and DoR under their own names.
pub fn default_tte_params() -> IndexMap<String, TteParam> {
    endpoint::DERIVED
        .iter()
        .map(|p| (p.to_string(), TteParam::Code(p.to_string())))
        .collect()
}

/// One endpoint of `tte_params`: its ADTTE PARAMCD, or the PARAMCD and the endpoint in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
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
        /// How a record dated after a data cut-off is censored at it. Default: `assessment`
        /// for PFS, DOR, TTP and EFS, `cutoff` for the others.
        #[serde(default)]
        censor: Option<CensorAt>,
        /// The ADTTE column and values that mark a competing event among the records with
        /// CNSR 0: the endpoint is then analysed with competing risks.
        #[serde(default)]
        competing: Option<Competing>,
    },
}

impl<'de> Deserialize<'de> for TteParam {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The mapping form, its keys checked.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Labelled {
            paramcd: String,
            #[serde(default)]
            label: Option<String>,
            #[serde(default)]
            censor: Option<CensorAt>,
            #[serde(default)]
            competing: Option<Competing>,
        }
        super::written::short_or_full(
            d,
            "a PARAMCD, or { paramcd: PARAMCD, label: \"words\", censor: assessment | cutoff, \
             competing: { column: COLUMN, values: [...] } }",
            TteParam::Code,
            |l: Labelled| TteParam::Labelled {
                paramcd: l.paramcd,
                label: l.label,
                censor: l.censor,
                competing: l.competing,
            },
        )
    }
}

/// `tte_params.<E>.competing`: which events (CNSR 0) are competing ones.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Competing {
    /// The ADTTE column (`EVNTDESC`, `CNSDTDSC`, a sponsor's own).
    pub column: String,
    /// Its values (compared without case) that mark a competing event.
    pub values: Vec<String>,
}

/// Where an ADTTE record dated after a data cut-off is censored (docs/CONFIG.md, "Data
/// cut-off").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CensorAt {
    /// At the subject's last adequate tumour assessment on or before the cut-off (the start
    /// date when there is none): endpoints judged at assessments (PFS, DoR, TTP, EFS).
    Assessment,
    /// At the cut-off, or the last date known alive when it is before: endpoints recorded
    /// continuously (OS).
    Cutoff,
}

/// How endpoint `name` is censored at a cut-off ([`CensorAt`]).
pub fn censor_at(name: &str, param: &TteParam) -> CensorAt {
    match param {
        TteParam::Labelled {
            censor: Some(c), ..
        } => *c,
        _ if endpoint::ASSESSMENT_JUDGED.contains(&name) => CensorAt::Assessment,
        _ => CensorAt::Cutoff,
    }
}

impl TteParam {
    /// The ADTTE PARAMCD.
    pub fn paramcd(&self) -> &str {
        match self {
            TteParam::Code(code) | TteParam::Labelled { paramcd: code, .. } => code,
        }
    }

    /// Its competing events, when it has them.
    pub fn competing(&self) -> Option<&Competing> {
        match self {
            TteParam::Labelled { competing, .. } => competing.as_ref(),
            TteParam::Code(_) => None,
        }
    }
}

/// Longest endpoint label (it goes into sentences and figure titles).
pub(super) const MAX_LABEL_CHARS: usize = 120;

/// The endpoint `name` in words: the configured label, else the words for PFS, OS and DoR,
/// else the name itself.
pub fn endpoint_label(name: &str, param: &TteParam) -> String {
    match param {
        TteParam::Labelled { label: Some(l), .. } => l.clone(),
        _ => endpoint::words(name).unwrap_or(name).to_string(),
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
    /// Endpoint → how its ADTTE records are censored at a cut-off.
    pub tte_censor: IndexMap<String, CensorAt>,
    /// Endpoint → its competing events, for the endpoints analysed with competing risks.
    pub tte_competing: IndexMap<String, Competing>,
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
    /// See [`AnalysisConfig::compare_dor`].
    pub compare_dor: bool,
    /// See [`AnalysisConfig::safety_view`].
    pub safety_view: SafetyView,
    /// See [`AnalysisConfig::ae_special_interest`].
    pub ae_special_interest: Vec<SpecialInterest>,
    /// See [`AnalysisConfig::ae_sort`].
    pub ae_sort: AeSort,
    /// See [`AnalysisConfig::ae_events`].
    pub ae_events: bool,
    /// See [`AnalysisConfig::ae_common_pct`].
    pub ae_common_pct: f64,
    /// See [`AnalysisConfig::rmst_tau`].
    pub rmst_tau: Option<RmstTau>,
    /// See [`AnalysisConfig::rmst_in_abstract`].
    pub rmst_in_abstract: bool,
    /// See [`AnalysisConfig::km_table`].
    pub km_table: KmTable,
    /// See [`AnalysisConfig::km_table_times`].
    pub km_table_times: Option<Vec<f64>>,
    /// The ADSL column of [`AnalysisConfig::censor_at_new_therapy`], if the rule is on.
    pub new_therapy: Option<String>,
    /// See [`AnalysisConfig::origin`], for the cohort: the config's, else randomisation for a
    /// cohort with arms and the first dose without (`LoadedConfig::analysis_for` knows the
    /// arms; resolved without a cohort, the first dose).
    pub origin: Origin,
    /// Whether the config named the origin.
    pub origin_given: bool,
    /// See [`AnalysisConfig::rmst_tau_beyond`].
    pub rmst_tau_beyond: TauBeyond,
    /// See [`AnalysisConfig::endpoints`]: the roles the config gives (others by
    /// [`Analysis::role_of`]).
    pub endpoint_roles: IndexMap<String, Role>,
    /// See [`AnalysisConfig::cif_landmark`]: the config's, else one year in `time_unit`.
    pub cif_landmark: f64,
    /// See [`AnalysisConfig::assessment_schedule`], as the derivation reads it; `None`
    /// without one (or one the config check refuses).
    pub schedule: Option<crate::derive::schedule::Schedule>,
    /// See [`AnalysisConfig::response_criteria`]; an invalid set is refused by the config
    /// check before any analysis, and reads as RECIST 1.1 here.
    pub criteria: std::sync::Arc<crate::criteria::Criteria>,
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

    /// An endpoint's role (`ORR`, `DCR` or a time-to-event endpoint): the config's, else
    /// primary for a cohort with arms' first time-to-event endpoint (`with_arms`) and for ORR
    /// without arms, else secondary.
    pub fn role_of(&self, endpoint: &str, with_arms: bool) -> Role {
        if let Some(role) = self.endpoint_roles.get(endpoint) {
            return *role;
        }
        if !self.endpoint_roles.is_empty() {
            return Role::Secondary;
        }
        let first_tte = self.tte_params.keys().next().map(String::as_str);
        let primary = if with_arms {
            first_tte == Some(endpoint)
        } else {
            endpoint == "ORR"
        };
        if primary {
            Role::Primary
        } else {
            Role::Secondary
        }
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
                .unwrap_or_else(|| endpoint::OS.to_string()),
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
            tte_censor: params
                .iter()
                .map(|(name, p)| (name.clone(), censor_at(name, p)))
                .collect(),
            tte_competing: params
                .iter()
                .filter_map(|(name, p)| match p {
                    TteParam::Labelled {
                        competing: Some(c), ..
                    } => Some((name.clone(), c.clone())),
                    _ => None,
                })
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
            compare_dor: self.compare_dor.or(fallback.compare_dor).unwrap_or(false),
            safety_view: self
                .safety_view
                .or(fallback.safety_view)
                .unwrap_or(SafetyView::Trae),
            ae_special_interest: self
                .ae_special_interest
                .clone()
                .or_else(|| fallback.ae_special_interest.clone())
                .unwrap_or_default(),
            ae_sort: self.ae_sort.or(fallback.ae_sort).unwrap_or_default(),
            ae_events: self.ae_events.or(fallback.ae_events).unwrap_or(false),
            ae_common_pct: self
                .ae_common_pct
                .or(fallback.ae_common_pct)
                .unwrap_or(10.0),
            rmst_tau: self.rmst_tau.clone().or_else(|| fallback.rmst_tau.clone()),
            rmst_in_abstract: self
                .rmst_in_abstract
                .or(fallback.rmst_in_abstract)
                .unwrap_or(false),
            km_table: self.km_table.or(fallback.km_table).unwrap_or_default(),
            km_table_times: self
                .km_table_times
                .clone()
                .or_else(|| fallback.km_table_times.clone()),
            new_therapy: self
                .censor_at_new_therapy
                .as_ref()
                .or(fallback.censor_at_new_therapy.as_ref())
                .map(|n| n.column.clone()),
            origin: self
                .origin
                .clone()
                .or_else(|| fallback.origin.clone())
                .unwrap_or(Origin::FirstDose),
            origin_given: self.origin.is_some() || fallback.origin.is_some(),
            rmst_tau_beyond: self
                .rmst_tau_beyond
                .or(fallback.rmst_tau_beyond)
                .unwrap_or_default(),
            endpoint_roles: self
                .endpoints
                .clone()
                .or_else(|| fallback.endpoints.clone())
                .unwrap_or_default(),
            cif_landmark: self.cif_landmark.or(fallback.cif_landmark).unwrap_or(
                match self
                    .time_unit
                    .or(fallback.time_unit)
                    .unwrap_or(TimeUnit::Months)
                {
                    TimeUnit::Days => 365.0,
                    TimeUnit::Weeks => 52.0,
                    TimeUnit::Months => 12.0,
                    TimeUnit::Years => 1.0,
                },
            ),
            schedule: self
                .assessment_schedule
                .as_ref()
                .or(fallback.assessment_schedule.as_ref())
                .and_then(|entries| schedule_of(entries)),
            criteria: std::sync::Arc::new(
                self.response_criteria
                    .as_ref()
                    .or(fallback.response_criteria.as_ref())
                    .and_then(|c| c.resolve().ok())
                    .map(|mut c| {
                        let window = self
                            .iupd_confirmation_days
                            .or(fallback.iupd_confirmation_days);
                        if let (Some([min, max]), Some(_)) = (window, c.iupd_window) {
                            c.iupd_window = Some((min, max));
                        }
                        c
                    })
                    .unwrap_or_else(crate::criteria::Criteria::recist),
            ),
        }
    }
}

/// The derivation's schedule of `analysis.assessment_schedule`; `None` for one it cannot
/// follow (empty, a zero interval, ends not increasing, a stretch without an end before the
/// last).
pub fn schedule_of(entries: &[ScheduleEntry]) -> Option<crate::derive::schedule::Schedule> {
    crate::derive::schedule::Schedule::new(
        entries
            .iter()
            .map(|e| crate::derive::schedule::Stretch {
                every: e.every.days,
                until: e.until.map(|u| u.days),
                window: e.window.map_or((e.every.days + 5) / 6, |w| w.days),
            })
            .collect(),
    )
}

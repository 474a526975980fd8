//! The config's structure as serde reads it: study, data files, cohorts (with arms,
//! strata, subgroups and baseline items) and output; `analysis` is [`super::analysis`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::Date;

use super::analysis::*;

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
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub analysis: AnalysisConfig,
    /// The cohorts to report; at least one.
    pub cohorts: Vec<CohortConfig>,
    /// Where and how to write documents.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
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
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub secondary_endpoints: Vec<String>,
    /// The authors, as the poster's title band names them. Default: none.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub authors: Vec<String>,
    /// Their affiliations, in order, under the authors. Default: none.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub affiliations: Vec<String>,
    /// The funding line the abstract ends with ("Funded by ..."). Default: none.
    #[serde(default)]
    pub funding: Option<String>,
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
    /// Exposure summaries (cumulative dose, average daily dose, dose intensity), one row per
    /// subject and parameter. Default: none (ADSL's CUMDOSE, AVGDD, RDI when present).
    #[serde(default)]
    pub adex: Option<PathBuf>,
    /// ADRS `PARAMCD`s that may hold the per-visit overall response, one or a list: the first
    /// that ADRS has is read. Default: `[OVR, OVRLRESP]` (the admiralonco and CDISC names).
    #[serde(default, deserialize_with = "one_or_many")]
    pub adrs_paramcd: Option<Vec<String>>,
    /// ADRS `PARAMCD`s that may hold the sponsor's best overall response, read by cohorts
    /// with `response_criteria: as-given`, one or a list: the first that ADRS has is read.
    /// Default: `[BOR, CBOR]`.
    #[serde(default, deserialize_with = "one_or_many")]
    pub adrs_bor_paramcd: Option<Vec<String>>,
    /// ADSL column of one disposition status (`EOSSTT`; `EOT…` reads as the treatment
    /// level), or a Y/N completion flag (`COMP24FL`, a name ending `FL`); with
    /// `disposition_reason`, one level. Default: see `disposition`.
    #[serde(default)]
    pub disposition_status: Option<String>,
    /// ADSL column of the reason for discontinuation of that level.
    #[serde(default)]
    pub disposition_reason: Option<String>,
    /// The disposition levels reported: `{ treatment: EOTSTT, study: EOSSTT }`, each a status
    /// column or `{ status, reason, label }`. Default: the treatment level when ADSL has
    /// `EOTSTT` (reasons `DCTREAS`), the study level when it has `EOSSTT` (reasons `DCSREAS`,
    /// else `DCDECOD`, else `DCREASCD`); docs/CONFIG.md.
    #[serde(default)]
    pub disposition: Option<DispositionConfig>,
    /// `PARAMCD` of the sum-of-diameters parameter in ADTR. Default: `SDIAM`.
    #[serde(default)]
    pub adtr_paramcd: Option<String>,
    /// Row filters per dataset, applied as each file is read (before any of its rows is
    /// interpreted): `{ adrs: { RSEVAL: INVESTIGATOR }, adex: { PARCAT1: [VELATAMAB] } }`; a
    /// row is kept when every named column holds one of its values. Default: every row.
    #[serde(
        default,
        deserialize_with = "super::written::null_is_default",
        rename = "where"
    )]
    pub filters: IndexMap<String, IndexMap<String, FilterValues>>,
    /// ADSL flag column (`Y` = in) of the efficacy population, over which response and
    /// time-to-event endpoints are computed, e.g. `SAFFL` when ADTTE covers the safety
    /// population, as in the CDISC pilot. Default: the first of `EFFFL`, `FASFL`, `ITTFL` that
    /// ADSL has (every subject when it has none).
    #[serde(default)]
    pub efficacy_flag: Option<String>,
}

/// The values a `data.where` column may hold: one, or a list.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged, expecting = "a value or a list of values")]
pub enum FilterValues {
    /// `RSEVAL: INVESTIGATOR`.
    One(Scalar),
    /// `PARCAT1: [VELATAMAB, DEXAMETHASONE]`.
    Many(Vec<Scalar>),
}

impl FilterValues {
    /// The values as the texts compared with the data's cells.
    pub fn texts(&self) -> Vec<String> {
        match self {
            FilterValues::One(v) => vec![v.as_text()],
            FilterValues::Many(vs) => vs.iter().map(Scalar::as_text).collect(),
        }
    }
}

/// The datasets `data.where` may filter, as its keys name them.
pub const FILTERED_DATASETS: [&str; 6] = ["adsl", "adrs", "adtte", "adae", "adtr", "adex"];

/// The ADRS parameters of the per-visit overall response when the config names none.
pub const DEFAULT_ADRS_PARAMCDS: [&str; 2] = ["OVR", "OVRLRESP"];

/// The ADRS parameters of the sponsor's BOR when the config names none.
pub const DEFAULT_ADRS_BOR_PARAMCDS: [&str; 2] = ["BOR", "CBOR"];

/// A text or a list of texts (`adrs_paramcd: OVRLRESP` or `[OVR, OVRLRESP]`).
/// `data.disposition`: the levels reported.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DispositionConfig {
    /// End of treatment.
    #[serde(default)]
    pub treatment: Option<DispositionLevelConfig>,
    /// End of study.
    #[serde(default)]
    pub study: Option<DispositionLevelConfig>,
}

/// One disposition level: its status column, or the status with a reason and a label.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum DispositionLevelConfig {
    /// `treatment: EOTSTT`.
    Status(String),
    /// `study: { status: EOSSTT, reason: DCSREAS, label: "End of study" }`.
    Full {
        /// The status column (COMPLETED, DISCONTINUED, ONGOING, ...), or a Y/N completion
        /// flag (a name ending `FL`).
        #[serde(default)]
        status: Option<String>,
        /// The reason for discontinuation.
        #[serde(default)]
        reason: Option<String>,
        /// How documents name the level ("End of treatment"; "Completion of week 24").
        #[serde(default)]
        label: Option<String>,
    },
}

impl<'de> Deserialize<'de> for DispositionLevelConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The mapping form, its keys checked.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Full {
            #[serde(default)]
            status: Option<String>,
            #[serde(default)]
            reason: Option<String>,
            #[serde(default)]
            label: Option<String>,
        }
        super::written::short_or_full(
            d,
            "an ADSL column, or { status: COLUMN, reason: COLUMN, label: \"words\" }",
            DispositionLevelConfig::Status,
            |f: Full| DispositionLevelConfig::Full {
                status: f.status,
                reason: f.reason,
                label: f.label,
            },
        )
    }
}

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
    #[serde(
        default,
        deserialize_with = "super::written::null_is_default",
        rename = "where"
    )]
    pub filter: BTreeMap<String, Scalar>,
    /// Cut-off of this cohort, overriding the study's. Default: the study's.
    #[serde(default, deserialize_with = "crate::model::date_serde::optional")]
    pub cutoff: Option<Date>,
    /// Overrides of any analysis key for this cohort. Default: none.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
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
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub baseline: Vec<BaselineItem>,
    /// The arms of a randomised cohort: each analysed on its own and compared with the
    /// reference (docs/CONFIG.md). Default: none (one arm).
    #[serde(default)]
    pub arms: Option<ArmsConfig>,
    /// ADSL columns whose combined values are the strata of stratified comparisons, each a
    /// column or `{column, label}`. Default: none.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub strata: Vec<Factor>,
    /// ADSL columns whose values are the subgroups of per-subgroup hazard ratios, each a
    /// column or `{column, label}`. Default: none.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub subgroups: Vec<Factor>,
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
    /// How documents name each arm (by its value in the column): `{ label, short }` or the
    /// label alone. Default: the value.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub labels: IndexMap<String, ArmLabel>,
}

/// How documents name an arm: `label` in prose (at first mention) and tables, `short` in
/// legends, table headers, slides and prose after the first mention.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ArmLabel {
    /// `Placebo: "placebo plus dexamethasone"`.
    Label(String),
    /// `{ label: "velatamab plus dexamethasone", short: Vd }`.
    Full {
        /// In prose and tables.
        label: String,
        /// In legends, headers, slides and after first mention. Default: the label.
        #[serde(default)]
        short: Option<String>,
    },
}

impl<'de> Deserialize<'de> for ArmLabel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The mapping form, its keys checked.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Full {
            label: String,
            #[serde(default)]
            short: Option<String>,
        }
        super::written::short_or_full(
            d,
            "the arm's name, or { label: \"words\", short: \"abbreviation\" }",
            ArmLabel::Label,
            |f: Full| ArmLabel::Full {
                label: f.label,
                short: f.short,
            },
        )
    }
}

impl ArmLabel {
    /// (label, short).
    pub fn names(&self) -> (&str, &str) {
        match self {
            ArmLabel::Label(l) => (l, l),
            ArmLabel::Full { label, short } => (label, short.as_deref().unwrap_or(label)),
        }
    }
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
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub labels: IndexMap<Code, String>,
    /// The levels' own order in prose (a scale's, a dose's); unlisted levels follow. Default:
    /// ascending when every level is a number, else most frequent first.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
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
    #[serde(
        default = "default_output_dir",
        deserialize_with = "null_is_default_output_dir"
    )]
    pub dir: PathBuf,
    /// md | html | docx | pptx | png | dataset-json. Default: [md, html].
    #[serde(
        default = "default_formats",
        deserialize_with = "null_is_default_formats"
    )]
    pub formats: Vec<Format>,
    /// Folder of user templates overriding built-ins by name. Default: none.
    #[serde(default)]
    pub templates: Option<PathBuf>,
    /// Conference whose abstract length limit is checked: `asco`, `esmo`, `aacr`, `wclc`, or
    /// `{ limit: N, counts: chars | chars_no_spaces | words, title: true | false }`
    /// (docs/CONFERENCES.md). Default: none (no length is measured).
    #[serde(default)]
    pub conference: Option<super::ConferenceSpec>,
    /// A `.docx` whose styles (fonts, headings, captions, spacing) the Word files take, as
    /// pandoc's `--reference-doc`. Default: none (readout's house style).
    #[serde(default)]
    pub docx_reference: Option<PathBuf>,
    /// A `.pptx` whose slide masters, layouts and theme the decks take. Default: none
    /// (readout's house template, 16:9).
    #[serde(default)]
    pub pptx_reference: Option<PathBuf>,
    /// Whether figures carry their title (journals set the title in the legend, so they
    /// want none in the figure). Default: `true`.
    #[serde(
        default = "default_figure_titles",
        deserialize_with = "null_is_default_figure_titles"
    )]
    pub figure_titles: bool,
    /// The poster's size and references (the `poster` format). Default: the size of
    /// `output.conference`'s preset, else 48 × 36 inches; no references.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub poster: PosterConfig,
    /// Blocks of the abstract pinned or dropped (`output.abstract: { include, exclude }`),
    /// without a template of one's own (docs/CONFERENCES.md). Default: none.
    #[serde(
        default,
        rename = "abstract",
        deserialize_with = "super::written::null_is_default"
    )]
    pub abstract_blocks: AbstractBlocks,
    /// How the report's tables and figures are numbered: `sequential` (Table 1, 2, ...) or
    /// `csr` (by ICH E3 section 14: Table 14.1.1, 14.2.1, 14.3.1.1). Default: `sequential`.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub numbering: Numbering,
}

/// `output.numbering`: how the report's tables and figures are numbered (docs/OUTPUTS.md,
/// "Numbering").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Numbering {
    /// 1, 2, 3 in report order, tables and figures each.
    #[default]
    Sequential,
    /// By the ICH E3 section of a study report's tables and figures: 14.1 subjects
    /// (populations, disposition, baseline), 14.2 efficacy, 14.3.1 adverse events, 14.3.2
    /// deaths and serious adverse events; numbered in order within each.
    Csr,
}

/// The blocks `output.abstract` may name besides the endpoints: each the content a step or
/// the user may leave out, with what it is.
pub const ABSTRACT_BLOCKS: [(&str, &str); 10] = [
    ("methods", "the Methods' statistics in full"),
    ("enrolment", "the enrolment dates and centres"),
    ("baseline", "the baseline characteristics"),
    ("followup", "the median follow-up"),
    ("landmarks", "the landmark rates"),
    ("rmst", "the restricted mean survival times"),
    ("rates", "the response criteria's other rates"),
    ("safety_detail", "the safety beyond its headline"),
    ("special_interest", "the adverse events of special interest"),
    ("funding", "the funding line"),
];

/// `output.abstract: { include: [rmst], exclude: [baseline, DOR] }`: block names (or
/// endpoint names) the abstract keeps whatever its length, or never prints.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AbstractBlocks {
    /// Kept through shortening (and printed when off by default, as `rmst`).
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub include: Vec<String>,
    /// Never printed.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub exclude: Vec<String>,
}

/// `output.poster: { width, height, references }`: the printed size in inches and the lines of
/// the poster's references (docs/OUTPUTS.md, "poster.pptx").
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PosterConfig {
    /// Width in inches, 10 to 120. Default: the conference preset's, else 48.
    #[serde(default)]
    pub width: Option<f64>,
    /// Height in inches, 10 to 120. Default: the conference preset's, else 36.
    #[serde(default)]
    pub height: Option<f64>,
    /// References (and a link or QR text), one line each. Default: none.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub references: Vec<String>,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            dir: default_output_dir(),
            formats: default_formats(),
            templates: None,
            conference: None,
            docx_reference: None,
            pptx_reference: None,
            figure_titles: default_figure_titles(),
            poster: PosterConfig::default(),
            abstract_blocks: AbstractBlocks::default(),
            numbering: Numbering::default(),
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
    /// A PowerPoint deck per cohort.
    Pptx,
    /// PNG copies of the figures.
    Png,
    /// The derived datasets also as CDISC Dataset-JSON v1.1 (`derived/<cohort>.json`).
    #[serde(rename = "dataset-json")]
    DatasetJson,
    /// The report's tables as an Excel workbook (`<cohort>/tables.xlsx`).
    Xlsx,
    /// Analysis results data, one row per statistic (`<cohort>/ard.csv`).
    Ard,
    /// A congress poster, one slide at the poster's size (`<cohort>/poster.pptx`).
    Poster,
}

/// A stratification factor or subgroup: an ADSL column, and how documents name it (`label`;
/// else its baseline item's label, else the column). Written as the column alone or as
/// `{ column: ECOG, label: "ECOG performance status" }`. Reads as its column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Factor {
    /// The ADSL column.
    pub column: String,
    /// Its name in Methods, tables and forest plots.
    pub label: Option<String>,
}

impl std::ops::Deref for Factor {
    type Target = str;

    fn deref(&self) -> &str {
        &self.column
    }
}

impl std::fmt::Display for Factor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.column)
    }
}

impl<'de> Deserialize<'de> for Factor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Labelled {
            column: String,
            #[serde(default)]
            label: Option<String>,
        }
        super::written::short_or_full(
            d,
            "an ADSL column, or { column: COLUMN, label: \"words\" }",
            |column| Factor {
                column,
                label: None,
            },
            |l: Labelled| Factor {
                column: l.column,
                label: l.label,
            },
        )
    }
}

impl CohortConfig {
    /// Whether the cohort gives its abstract a Background (text that is not blank).
    pub fn has_background(&self) -> bool {
        self.background
            .as_deref()
            .is_some_and(|b| !b.trim().is_empty())
    }

    /// The strata columns, in order.
    pub fn strata_columns(&self) -> Vec<String> {
        self.strata.iter().map(|f| f.column.clone()).collect()
    }

    /// The config's label of a strata or subgroup column, if it gives one.
    pub fn factor_label(&self, column: &str) -> Option<&str> {
        self.strata
            .iter()
            .chain(&self.subgroups)
            .find(|f| f.column == column)
            .and_then(|f| f.label.as_deref())
    }
}

/// `dir: null` is the default folder, as leaving the key out.
fn null_is_default_output_dir<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
    Ok(Option::deserialize(d)?.unwrap_or_else(default_output_dir))
}

/// `formats: null` is the default formats, as leaving the key out.
fn null_is_default_formats<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<Format>, D::Error> {
    Ok(Option::deserialize(d)?.unwrap_or_else(default_formats))
}

/// `figure_titles: null` is the default, as leaving the key out.
fn null_is_default_figure_titles<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::deserialize(d)?.unwrap_or_else(default_figure_titles))
}

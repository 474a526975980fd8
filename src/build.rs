//! Orchestration: runs the pipeline for one config and every cut-off it asks for, and hands
//! each cut-off folder to `write` whole. Also the plan that `readout check` reports.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::config::{CohortConfig, LoadedConfig};
use crate::cut::apply_cutoff;
use crate::derive::{self, DeriveOptions, DerivedSubject};
use crate::documents;
use crate::endpoints::{self, CohortAnalysis, CohortInput, CohortResults, Members};
use crate::error::{Error, Result};
use crate::figures;
use crate::load::{self, StudyData};
use crate::model::{Assessment, Date, Subject};
use crate::render::Renderer;
use crate::timing;
use crate::write::{self, FolderSink, OutputFile};

/// What the command line adds to a config.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// `--cutoff` dates; when given they replace the config's.
    pub cutoffs: Vec<Date>,
    /// `--out`: replaces `output.dir`.
    pub out: Option<PathBuf>,
    /// `--strict`: an abstract over the conference limit is an error, and nothing is written.
    pub strict: bool,
}

/// One cut-off folder to build: the date and the cohorts analysed at it.
#[derive(Debug, Clone, Serialize)]
pub struct CutoffPlan {
    /// The cut-off (None: no cut-off, folder `no-cutoff`).
    pub cutoff: Option<Date>,
    /// Indices into `config.cohorts`.
    pub cohorts: Vec<usize>,
    /// The study's output folder (`<output dir>/<study id>`); the cut-off folder is in it.
    pub root: PathBuf,
}

impl CutoffPlan {
    /// The folder name of this cut-off.
    pub fn folder_name(&self) -> String {
        match self.cutoff {
            Some(d) => d.to_string(),
            None => "no-cutoff".to_string(),
        }
    }

    /// The cut-off folder: `<output dir>/<study id>/<folder name>`.
    pub fn folder(&self) -> PathBuf {
        self.root.join(self.folder_name())
    }

    /// What building this plan gave: `cutoff`'s cohorts and failures, and `path` when the
    /// folder was written.
    fn built(
        &self,
        study: &LoadedStudy,
        cutoff: CutoffBuild,
        path: Option<PathBuf>,
    ) -> BuiltFolder {
        BuiltFolder {
            study: study.config.config.study.id.clone(),
            path,
            folder: self.folder(),
            cutoff: self.cutoff,
            cohorts: cutoff.summaries,
            failures: cutoff.failures,
            notes: cutoff.notes,
        }
    }
}

/// Which cohorts go into which cut-off folder: `--cutoff` dates, else `cutoffs:`, else each
/// cohort's own `cutoff`, else the study's `cutoff`, else no cut-off.
pub fn plan(cfg: &LoadedConfig, opts: &BuildOptions) -> Vec<CutoffPlan> {
    let c = &cfg.config;
    let root = output_root(cfg, opts.out.as_deref());
    let all: Vec<usize> = (0..c.cohorts.len()).collect();
    let dates: Vec<Date> = if !opts.cutoffs.is_empty() {
        opts.cutoffs.clone()
    } else {
        c.cutoffs.clone()
    };
    if !dates.is_empty() {
        let mut dates = dates;
        dates.sort();
        dates.dedup();
        return dates
            .into_iter()
            .map(|d| CutoffPlan {
                cutoff: Some(d),
                cohorts: all.clone(),
                root: root.clone(),
            })
            .collect();
    }
    let mut groups: BTreeMap<Option<Date>, Vec<usize>> = BTreeMap::new();
    for (i, cohort) in c.cohorts.iter().enumerate() {
        groups
            .entry(cohort.cutoff.or(c.cutoff))
            .or_default()
            .push(i);
    }
    groups
        .into_iter()
        .map(|(cutoff, cohorts)| CutoffPlan {
            cutoff,
            cohorts,
            root: root.clone(),
        })
        .collect()
}

/// `results.json`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StudyResults<'a> {
    /// Study identity.
    pub study: StudyHeader<'a>,
    /// The cut-off of this folder.
    pub cutoff: Option<Date>,
    /// Time unit of the study-level settings (cohorts may override; each TTE is in its cohort's).
    pub time_unit: &'static str,
    /// The readout version that computed the numbers.
    pub readout_version: &'static str,
    /// One entry per cohort.
    pub cohorts: Vec<&'a CohortResults>,
    /// Non-fatal data problems found while loading.
    pub warnings: &'a [String],
    /// Cohorts that could not be built at this cut-off.
    pub failures: &'a [CohortFailure],
}

/// `results.json` → `study`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StudyHeader<'a> {
    /// `study.id`
    pub id: &'a str,
    /// `study.registry_id`
    pub registry_id: Option<&'a str>,
    /// `study.title`
    pub title: Option<&'a str>,
}

/// The outcome of building one cut-off folder.
#[derive(Debug, Clone)]
pub struct BuiltFolder {
    /// The study id.
    pub study: String,
    /// Where it was written (`None` when every cohort failed and nothing was written, and in
    /// a dry build).
    pub path: Option<PathBuf>,
    /// The cut-off folder the build writes (or, dry, would write).
    pub folder: PathBuf,
    /// The cut-off.
    pub cutoff: Option<Date>,
    /// One line per cohort built.
    pub cohorts: Vec<CohortSummary>,
    /// Cohorts that failed.
    pub failures: Vec<CohortFailure>,
    /// Notes about the folder as a whole (a study figure left out), beside the cohorts'.
    pub notes: Vec<String>,
}

/// A cohort's line in the build summary.
#[derive(Debug, Clone)]
pub struct CohortSummary {
    /// Cohort id.
    pub id: String,
    /// Enrolled subjects.
    pub n: usize,
    /// ORR as the documents print it (`34.2%`), if computed.
    pub orr: Option<String>,
    /// Median PFS as the documents print it, with its unit (`8.4 months`, `NR` when not
    /// reached); `None` when PFS was not analysed.
    pub median_pfs: Option<String>,
    /// The time-to-event endpoints analysed (`PFS`, `OS`, ...), in `tte_params` order.
    pub endpoints: Vec<String>,
    /// The cohort's warnings, as in `results.json`.
    pub warnings: Vec<String>,
    /// The abstract measured against `output.conference`.
    pub abstract_length: Option<crate::conference::AbstractLength>,
}

/// Data loaded once per config, shared by its cut-offs.
pub struct LoadedStudy {
    /// The config.
    pub config: LoadedConfig,
    /// The tables as read.
    pub data: StudyData,
    /// The templates, parsed while the data loaded (`None` when they did not parse: the build
    /// parses them again to report why).
    renderer: Option<Renderer>,
}

/// Loads the config's data files, and parses the templates alongside (parsing them took a
/// tenth of the example study's build when it waited for the data).
pub fn load_study(mut config: LoadedConfig) -> Result<LoadedStudy> {
    let (data, renderer) = rayon::join(
        || timing::stage("load", || load::load_study(&config)),
        || Renderer::new(template_dir(&config).as_deref()).ok(),
    );
    let mut data = data?;
    crate::fits::fit_to_data(&mut config, &data)?;
    if let Some(reference) = &config.config.output.docx_reference {
        let path = config.base_dir().join(reference);
        let refused = |message: String| Error::Config {
            file: config.path.clone(),
            location: "key `output.docx_reference`: ".to_string(),
            message: format!("{}: {message}", path.display()),
        };
        let bytes = std::fs::read(&path).map_err(|e| refused(format!("cannot read: {e}")))?;
        let styles = crate::docx::reference_styles(&bytes).map_err(refused)?;
        // The reference shapes the Word files: its hash is in the manifest with the data's.
        data.inputs.push(load::InputFile {
            path: path.display().to_string(),
            sha256: load::sha256_hex(&bytes),
        });
        config.docx_styles = Some(styles.into());
    }
    Ok(LoadedStudy {
        config,
        data,
        renderer,
    })
}

impl LoadedStudy {
    /// The error a build would give for the study's templates, if any (they were parsed while
    /// the data loaded).
    pub fn check_templates(&self) -> Result<()> {
        self.with_renderer(|_| Ok(()))
    }

    /// Runs `f` with the study's templates; when they did not parse alongside the load they
    /// are parsed again, to return the same error a build gives.
    fn with_renderer<T>(&self, f: impl FnOnce(&Renderer) -> Result<T>) -> Result<T> {
        match &self.renderer {
            Some(renderer) => f(renderer),
            None => f(&Renderer::new(template_dir(&self.config).as_deref())?),
        }
    }
}

/// The config's own templates folder, if it names one.
fn template_dir(cfg: &LoadedConfig) -> Option<PathBuf> {
    cfg.config
        .output
        .templates
        .as_ref()
        .map(|t| cfg.base_dir().join(t))
}

/// The subjects of a cohort (positions in `subjects`, as [`endpoints::Members`]): every
/// `where` filter must hold.
pub fn cohort_members(cohort: &CohortConfig, subjects: &[Subject]) -> Vec<u32> {
    let filters = Filters::of(cohort.filter.iter());
    (0u32..)
        .zip(subjects)
        .filter(|(_, s)| filters.hold(s))
        .map(|(i, _)| i)
        .collect()
}

/// `where` filters (column = value) as text, to test subjects against.
struct Filters<'c>(Vec<(&'c str, String)>);

impl<'c> Filters<'c> {
    fn of(filters: impl Iterator<Item = (&'c String, &'c crate::config::Scalar)>) -> Filters<'c> {
        Filters(filters.map(|(k, v)| (k.as_str(), v.as_text())).collect())
    }

    /// Whether every filter holds for the subject.
    fn hold(&self, s: &Subject) -> bool {
        self.0
            .iter()
            .all(|(col, value)| s.columns.get(col).is_some_and(|v| v == value.as_str()))
    }
}

/// The tables at one cut-off, with the look-ups every cohort needs, built once.
pub struct CutData<'a> {
    /// The tables as of the cut-off.
    pub data: &'a StudyData,
    /// Each subject's OVR assessments.
    pub by_subject: HashMap<&'a str, Vec<Assessment>>,
    /// ADTTE by (PARAMCD, USUBJID), when ADTTE is given.
    pub tte_index: Option<crate::endpoints::TteIndex<'a>>,
    /// Subjects by the values of the columns cohorts filter on.
    pub members: MemberIndex<'a>,
    /// The cut-off.
    pub cutoff: Option<Date>,
}

/// Subjects (positions) by the value of each column a cohort filters on, built once per
/// cut-off: finding a cohort's members then costs the cohort's size, not the study's (1,000
/// cohorts of a 200,000-subject study scanned 200 million subjects before).
#[derive(Default)]
pub struct MemberIndex<'a> {
    /// Subject positions by column and value, as `u32` (4 bytes per subject; an ADSL file of
    /// at most 1 GiB has fewer than 2^32 rows).
    by_column: FxHashMap<&'a str, FxHashMap<&'a str, Vec<u32>>>,
}

impl<'a> MemberIndex<'a> {
    /// Indexes `subjects` by each of `columns`.
    pub fn new(columns: &BTreeSet<&'a str>, subjects: &'a [Subject]) -> MemberIndex<'a> {
        let by_column = columns
            .iter()
            .map(|&column| {
                // Subjects share their column lists (a handful of distinct lists in a study of
                // millions): the value is looked up once per list, the subject's position
                // pushed to that value's list.
                let mut lists: Vec<(&str, Vec<u32>)> = Vec::new();
                let mut by_value: FxHashMap<&str, usize> = FxHashMap::default();
                let mut by_list: FxHashMap<usize, Option<usize>> = FxHashMap::default();
                for (i, s) in (0u32..).zip(subjects) {
                    let slot = *by_list.entry(s.columns.list_id()).or_insert_with(|| {
                        let v = s.columns.get(column)?;
                        Some(*by_value.entry(v).or_insert_with(|| {
                            lists.push((v, Vec::new()));
                            lists.len() - 1
                        }))
                    });
                    if let Some((_, list)) = slot.and_then(|k| lists.get_mut(k)) {
                        list.push(i);
                    }
                }
                (column, lists.into_iter().collect())
            })
            .collect();
        MemberIndex { by_column }
    }

    /// The cohort's subjects, in ADSL order: as [`cohort_members`], from the index when the
    /// cohort's first filter column is indexed.
    pub fn members(&self, cohort: &CohortConfig, subjects: &[Subject]) -> Members<'_> {
        let mut filters = cohort.filter.iter();
        let Some((column, value)) = filters.next() else {
            return Members::Owned(cohort_members(cohort, subjects));
        };
        let Some(by_value) = self.by_column.get(column.as_str()) else {
            return Members::Owned(cohort_members(cohort, subjects));
        };
        let rest = Filters::of(filters);
        let Some(list) = by_value.get(value.as_text().as_str()) else {
            return Members::Owned(Vec::new());
        };
        if rest.0.is_empty() {
            // One filter (the usual case): the list is the cohort, borrowed as it is; its
            // subjects are not touched (a cache miss each in a study of millions).
            return Members::Borrowed(list);
        }
        Members::Owned(
            list.iter()
                .copied()
                .filter(|&i| subjects.get(i as usize).is_some_and(|s| rest.hold(s)))
                .collect(),
        )
    }
}

impl<'a> CutData<'a> {
    /// Indexes the cut tables.
    pub fn new(data: &'a StudyData, cutoff: Option<Date>) -> CutData<'a> {
        CutData::for_cohorts(data, cutoff, &[])
    }

    /// Indexes the cut tables, and the subjects by the columns `cohorts` filter on.
    pub fn for_cohorts(
        data: &'a StudyData,
        cutoff: Option<Date>,
        cohorts: &[&'a CohortConfig],
    ) -> CutData<'a> {
        let columns: BTreeSet<&str> = cohorts
            .iter()
            .filter_map(|c| c.filter.keys().next().map(String::as_str))
            .collect();
        // Three independent indexes, built side by side.
        let (by_subject, (tte_index, members)) = rayon::join(
            || {
                let mut by_subject: HashMap<&str, Vec<Assessment>> = HashMap::new();
                for a in &data.assessments {
                    by_subject
                        .entry(a.usubjid.as_str())
                        .or_default()
                        .push(a.clone());
                }
                by_subject
            },
            || {
                rayon::join(
                    || {
                        data.has_adtte.then(|| {
                            crate::endpoints::TteIndex::new(&data.tte, data.subjects.len())
                        })
                    },
                    || MemberIndex::new(&columns, &data.subjects),
                )
            },
        );
        CutData {
            data,
            by_subject,
            tte_index,
            members,
            cutoff,
        }
    }
}

/// Analyses one cohort at one cut-off (data already cut).
pub fn analyse<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
) -> Result<CohortAnalysis<'a>> {
    let (cut, by_subject, cutoff) = (at.data, &at.by_subject, at.cutoff);
    let tte_index = at.tte_index.as_ref();
    let analysis = study.config.analysis_for(cohort);
    let members = timing::stage("  members", || at.members.members(cohort, &cut.subjects));
    for column in cohort.filter.keys() {
        if !cut.subjects.is_empty() && !cut.subjects.iter().any(|s| s.columns.contains_key(column))
        {
            return Err(Error::Config {
                file: study.config.path.clone(),
                location: format!(
                    "key `cohorts[{}].where.{column}`: ",
                    cohort_index(study, cohort)
                ),
                message: format!(
                    "ADSL has no column `{column}` (or it is empty for every subject)"
                ),
            });
        }
    }
    let options = derive_options(&analysis);
    let derived: Vec<DerivedSubject> = if study.config.config.data.adrs.is_some() {
        members
            .iter()
            .filter_map(|&i| cut.subjects.get(i as usize))
            .map(|s| {
                let empty = Vec::new();
                let assessments = by_subject.get(&*s.usubjid).unwrap_or(&empty);
                derive::derive_subject(s, assessments, &options).map_err(|e| Error::Analysis {
                    cohort: cohort.id.clone(),
                    message: e.to_string(),
                })
            })
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    if members.is_empty() {
        return Err(empty_cohort_error(study, cohort, cutoff));
    }
    endpoints::analyse_cohort(CohortInput {
        cohort,
        analysis: &analysis,
        cutoff,
        data: cut,
        members,
        derived,
        tte_index,
    })
}

/// The error for a cohort without a subject: the cut-off is before its first enrolment, or
/// its `where` filter matches nobody (then each column's values are listed). An abstract of
/// no patient is never written.
fn empty_cohort_error(study: &LoadedStudy, cohort: &CohortConfig, cutoff: Option<Date>) -> Error {
    let subjects = &study.data.subjects;
    let matching = cohort_members(cohort, subjects);
    if let (false, Some(cutoff)) = (matching.is_empty(), cutoff) {
        let first = matching
            .iter()
            .filter_map(|&i| {
                subjects
                    .get(i as usize)
                    .and_then(|s| s.enrolled.or(s.trt_start))
            })
            .min();
        let message = match first {
            Some(first) => format!(
                "no subject was enrolled by the cut-off {cutoff}; the first of the cohort's {} subjects was enrolled on {first}",
                matching.len()
            ),
            None => format!("no subject was enrolled by the cut-off {cutoff}"),
        };
        return Error::Other(message);
    }
    if cohort.filter.is_empty() {
        return Error::Other("ADSL has no subject".to_string());
    }
    let filters: Vec<String> = cohort
        .filter
        .iter()
        .map(|(column, value)| {
            let mut seen: Vec<&str> = subjects
                .iter()
                .filter_map(|s| s.columns.get(column))
                .collect();
            seen.sort_unstable();
            seen.dedup();
            let shown: Vec<String> = seen.iter().take(10).map(|v| format!("{v:?}")).collect();
            let more = match seen.len() {
                n if n > 10 => format!(", ... ({n} values)"),
                _ => String::new(),
            };
            format!(
                "{column} = {:?} (ADSL has: {}{more})",
                value.as_text(),
                shown.join(", ")
            )
        })
        .collect();
    Error::Config {
        file: study.config.path.clone(),
        location: format!("key `cohorts[{}].where`: ", cohort_index(study, cohort)),
        message: format!(
            "no subject matches {} (values are compared exactly, case included)",
            filters.join("; ")
        ),
    }
}

/// The derivation rules a cohort's analysis settings ask for.
pub fn derive_options(a: &crate::config::Analysis) -> DeriveOptions {
    DeriveOptions {
        bor: derive::BorOptions {
            confirmed: a.confirmed,
            confirmation_days: a.confirmation_days,
            sd_min_days: a.sd_min_days,
            max_nr_ne: a.max_nr_ne,
            accept_sd: a.accept_sd,
            missing_as_ne: true,
        },
        pfs: derive::PfsOptions {
            missed_visit_days: (a.missed_visit_days > 0).then_some(a.missed_visit_days),
        },
    }
}

fn cohort_index(study: &LoadedStudy, cohort: &CohortConfig) -> usize {
    study
        .config
        .config
        .cohorts
        .iter()
        .position(|c| c.id == cohort.id)
        .unwrap_or(0)
}

/// A cohort that could not be built, and why.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CohortFailure {
    /// Cohort id.
    pub cohort: String,
    /// The error, as printed.
    pub error: String,
}

/// One cut-off folder built (its files went to the build's [`FolderSink`]): the cohorts
/// built and the cohorts that failed.
#[derive(Debug)]
pub struct CutoffBuild {
    /// Whether the folder has files (false when every cohort failed: nothing was given to
    /// the sink, and no folder is to be written).
    pub has_files: bool,
    /// One line per cohort built.
    pub summaries: Vec<CohortSummary>,
    /// Cohorts that failed; the others are still built.
    pub failures: Vec<CohortFailure>,
    /// Notes about the folder as a whole (see [`BuiltFolder::notes`]).
    pub notes: Vec<String>,
}

/// One cohort's files, results and summary line.
struct CohortBuild {
    results: CohortResults,
    files: Vec<OutputFile>,
    summary: CohortSummary,
    /// The cohort's KM curves per endpoint, with the time unit, for the study-level figures.
    curves: Vec<(String, crate::config::TimeUnit, crate::plots::KmSeries)>,
}

/// What the cohort's derived CSV is written from, once its other files are taken.
struct DerivedData<'a> {
    analysis: CohortAnalysis<'a>,
    endpoints: indexmap::IndexMap<String, String>,
}

fn build_cohort<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    renderer: &Renderer,
) -> Result<(CohortBuild, DerivedData<'a>)> {
    let cfg = &study.config;
    let formats = &cfg.config.output.formats;
    let analysis = timing::stage("  analyse", || analyse(study, at, cohort))?;
    let settings = cfg.analysis_for(cohort);
    let figs = timing::stage("  figures", || {
        figures::cohort_figures(&analysis, &settings, formats)
    })?;
    let mut results = analysis.results.clone();
    results.warnings.extend(figs.notes.iter().cloned());
    let mut files = figs.files;
    let documents = documents::render_documents(
        cfg,
        cohort,
        &results,
        &settings,
        &figs.inline,
        renderer,
        formats,
    )?;
    files.extend(documents.files);
    results.abstract_length = documents.abstract_length;
    let summary = CohortSummary {
        id: cohort.id.clone(),
        n: results.n.enrolled,
        orr: results
            .response
            .as_ref()
            .and_then(|r| r.orr.rate)
            .map(|rate| crate::format::fmt_pct(Some(rate), settings.percent_decimals)),
        median_pfs: results.tte.get("PFS").map(|t| match t.median.estimate {
            Some(m) => format!(
                "{} {}",
                crate::format::fixed(m, settings.time_decimals),
                settings.time_unit.name()
            ),
            None => "NR".to_string(),
        }),
        endpoints: results.tte.keys().cloned().collect(),
        warnings: results.warnings.clone(),
        abstract_length: results.abstract_length.clone(),
    };
    let curves = analysis
        .km
        .iter()
        .filter_map(|(endpoint, fit)| {
            let median = &analysis.results.tte.get(endpoint)?.median;
            let series =
                figures::km_series(fit, &analysis.results.label, median, &settings).ok()?;
            Some((endpoint.clone(), settings.time_unit, series))
        })
        .collect();
    Ok((
        CohortBuild {
            results,
            files,
            summary,
            curves,
        },
        DerivedData {
            analysis,
            endpoints: settings.tte_params.clone(),
        },
    ))
}

/// Builds every file of one cut-off folder in memory, its cohorts in parallel. A cohort that
/// fails is listed in `failures` (and in `results.json`); the others are built.
pub fn build_cutoff(
    study: &LoadedStudy,
    plan: &CutoffPlan,
    renderer: &Renderer,
    sink: &FolderSink,
) -> Result<CutoffBuild> {
    let cfg = &study.config;
    let cut = timing::stage("cut", || apply_cutoff(&study.data, plan.cutoff))?;
    let cohorts: Vec<&CohortConfig> = plan
        .cohorts
        .iter()
        .filter_map(|&i| cfg.config.cohorts.get(i))
        .collect();
    let at = timing::stage("index", || {
        CutData::for_cohorts(&cut, plan.cutoff, &cohorts)
    });
    // rayon's collect keeps the input order, so the output does not depend on thread count.
    // A cohort's files go to the sink as soon as it is built (the outer `Result` is the
    // sink's: an output that cannot be written stops the build; the inner one the cohort's).
    let outcomes: Vec<Result<Result<CohortBuild>>> = cohorts
        .par_iter()
        .map(|cohort| {
            timing::stage(&format!("cohort {}", cohort.id), || {
                match build_cohort(study, &at, cohort, renderer) {
                    Ok((mut built, derived)) => {
                        sink.put(std::mem::take(&mut built.files))?;
                        timing::stage("  derived csv", || {
                            let mut file = sink.create(&format!("derived/{}.csv", cohort.id))?;
                            derived_csv(
                                &derived.analysis,
                                &derived.endpoints,
                                &at.data.subjects,
                                &mut |piece| file.write(piece),
                            )?;
                            file.finish()
                        })?;
                        Ok(Ok(built))
                    }
                    Err(e) => Ok(Err(e)),
                }
            })
        })
        .collect();
    let mut analyses = Vec::new();
    let mut summaries = Vec::new();
    let mut failures = Vec::new();
    let mut curves = Vec::new();
    for (cohort, outcome) in cohorts.iter().zip(outcomes) {
        match outcome? {
            Ok(built) => {
                summaries.push(built.summary);
                analyses.push(built.results);
                curves.extend(built.curves);
            }
            Err(e) => failures.push(CohortFailure {
                cohort: cohort.id.clone(),
                error: e.to_string(),
            }),
        }
    }
    if analyses.is_empty() {
        return Ok(CutoffBuild {
            has_files: false,
            summaries,
            failures,
            notes: Vec::new(),
        });
    }
    let (study_figures, notes) = figures::study_km_figures(
        &curves,
        cfg.config
            .output
            .formats
            .contains(&crate::config::Format::Png),
        &cfg.analysis_for_study(),
    )?;
    sink.put(study_figures)?;
    let warnings: Vec<String> = cut.warnings.iter().chain(&notes).cloned().collect();
    if cfg
        .config
        .output
        .formats
        .contains(&crate::config::Format::Html)
    {
        sink.put(vec![documents::render_index(
            cfg,
            plan.cutoff,
            &analyses,
            &sink.paths()?,
            renderer,
        )?])?;
    }
    let header = StudyHeader {
        id: &cfg.config.study.id,
        registry_id: cfg.config.study.registry_id.as_deref(),
        title: cfg.config.study.title.as_deref(),
    };
    let results = StudyResults {
        study: header,
        cutoff: plan.cutoff,
        time_unit: cfg.analysis_for_study().time_unit.name(),
        readout_version: env!("CARGO_PKG_VERSION"),
        cohorts: analyses.iter().collect(),
        warnings: &warnings,
        failures: &failures,
    };
    sink.put(vec![OutputFile {
        path: "results.json".to_string(),
        bytes: to_json(&results)?,
    }])?;
    // Input paths relative to the cut-off folder: the same manifest whichever folder the
    // build ran from, and `verify` works from anywhere.
    let folder = plan.folder();
    let relative = |path: &str| {
        write::relative_path(&folder, Path::new(path))
            .to_string_lossy()
            .replace('\\', "/")
    };
    let inputs: Vec<write::ManifestEntry> = study
        .data
        .inputs
        .iter()
        .map(|i| write::ManifestEntry {
            path: relative(&i.path),
            sha256: i.sha256.clone(),
        })
        .collect();
    let manifest = write::Manifest {
        readout_version: env!("CARGO_PKG_VERSION").to_string(),
        paths_relative_to: Some("this folder".to_string()),
        config: write::ManifestEntry {
            path: relative(&cfg.path.display().to_string()),
            sha256: load::sha256_hex(&cfg.bytes),
        },
        inputs,
        outputs: sink.manifest_entries()?,
    };
    sink.put(vec![OutputFile {
        path: "manifest.json".to_string(),
        bytes: to_json(&manifest)?,
    }])?;
    Ok(CutoffBuild {
        has_files: true,
        summaries,
        failures,
        notes,
    })
}

fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::Other(format!("cannot serialise results: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `derived/<cohort>.csv`: one row per subject with the derived values (`docs/OUTPUTS.md`),
/// quoted as the `csv` crate would (only fields with a comma, quote or line end). Written field
/// by field into a buffer (one small string per field cost too much for large cohorts), given
/// to `write` each [`DERIVED_PIECE`] bytes, so a cohort of millions is never one buffer.
fn derived_csv(
    analysis: &CohortAnalysis,
    endpoints: &indexmap::IndexMap<String, String>,
    subjects: &[Subject],
    write: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut out = Vec::with_capacity(DERIVED_PIECE + 4096);
    let mut header = vec!["USUBJID".to_string(), "BOR".to_string()];
    for e in endpoints.keys() {
        header.push(format!("{e}_AVAL"));
        header.push(format!("{e}_CNSR"));
    }
    header.extend(["BOR_DATE", "BOR_REASON", "EFFFL"].map(String::from));
    for (i, name) in header.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        csv_field(&mut out, name);
    }
    out.push(b'\n');
    let mut number = String::new();
    let mut formatted: FxHashMap<u64, Box<str>> = FxHashMap::default();
    for (i, &member) in analysis.members.iter().enumerate() {
        let subject = subjects.get(member as usize);
        let bor = analysis.derived.get(i).map(|d| &d.bor);
        csv_field(&mut out, subject.map_or("", |s| &*s.usubjid));
        out.push(b',');
        csv_field(
            &mut out,
            bor.map(|b| endpoints::bor_category(b.bor))
                .unwrap_or_default(),
        );
        for (k, _) in endpoints.keys().enumerate() {
            let value = analysis
                .derived_tte
                .get(k)
                .and_then(|column| column.get(i))
                .and_then(|value| value.get());
            match value {
                Some((aval, censored)) => {
                    // Times are whole days over a unit: a cohort has a few thousand distinct
                    // values, each formatted once (formatting was the CSV's largest cost).
                    let text = formatted.entry(aval.to_bits()).or_insert_with(|| {
                        number.clear();
                        let _ = write!(number, ",{aval},");
                        number.as_str().into()
                    });
                    out.extend_from_slice(text.as_bytes());
                    out.push(if censored { b'1' } else { b'0' });
                }
                None => out.extend_from_slice(b",,"),
            }
        }
        out.push(b',');
        if let Some(d) = bor.and_then(|b| b.date) {
            number.clear();
            let _ = write!(number, "{d}");
            out.extend_from_slice(number.as_bytes());
        }
        out.push(b',');
        csv_field(&mut out, bor.map_or("", |b| b.reason.as_str()));
        let efficacy = subject.is_some_and(|s| s.efficacy);
        out.extend_from_slice(if efficacy { b",Y\n" } else { b",N\n" });
        if out.len() >= DERIVED_PIECE {
            write(&out)?;
            out.clear();
        }
    }
    write(&out)
}

/// Bytes of the derived CSV given to the file at a time.
const DERIVED_PIECE: usize = 1 << 20;

/// Appends a CSV field, in quotes (with quotes doubled) when it holds a comma, a quote or a
/// line end.
fn csv_field(out: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.push(b'"');
        for b in text.bytes() {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

/// Builds and writes every cut-off folder of one config, in parallel; each folder is written
/// whole or not at all. `on_folder` is called as each folder is done (for progress output).
pub fn build_config(
    study: &LoadedStudy,
    opts: &BuildOptions,
    on_folder: &(dyn Fn(&BuiltFolder) + Sync),
) -> Result<Vec<BuiltFolder>> {
    check_strict(study, opts)?;
    study.with_renderer(|renderer| build_folders(study, opts, renderer, on_folder))
}

/// Every cohort of every planned cut-off analysed and its files made in memory, nothing
/// written (`readout check`): the cohorts that would fail a build, with their errors, in plan
/// order. An error that would stop a build (a template that does not parse, a cut-off that
/// cannot be applied) is returned as such.
pub fn dry_build(study: &LoadedStudy, opts: &BuildOptions) -> Result<Vec<BuiltFolder>> {
    check_strict(study, opts)?;
    study.with_renderer(|renderer| {
        let plans = plan(&study.config, opts);
        for p in &plans {
            write::check_target(&p.folder())?;
        }
        let mut folders = Vec::new();
        for p in &plans {
            let sink = FolderSink::in_memory();
            let cutoff = build_cutoff(study, p, renderer, &sink)?;
            folders.push(p.built(study, cutoff, None));
        }
        Ok(folders)
    })
}

/// `--strict` measures abstracts against `output.conference`: without one it has nothing to
/// check, which is an error rather than a pass.
fn check_strict(study: &LoadedStudy, opts: &BuildOptions) -> Result<()> {
    if opts.strict && study.config.config.output.conference.is_none() {
        // No file in the message: the command prints the config's path before it.
        return Err(Error::Other(
            "key `output.conference`: --strict checks each abstract against the conference \
             length limit, and the config names no conference; add one (asco, esmo, aacr, \
             wclc or { limit, counts, title })"
                .to_string(),
        ));
    }
    Ok(())
}

/// [`build_config`] with its templates parsed.
fn build_folders(
    study: &LoadedStudy,
    opts: &BuildOptions,
    renderer: &Renderer,
    on_folder: &(dyn Fn(&BuiltFolder) + Sync),
) -> Result<Vec<BuiltFolder>> {
    let plans = plan(&study.config, opts);
    // Killed builds are cleaned up after, and a folder that cannot be replaced is refused,
    // before anything is built.
    for p in &plans {
        write::prepare_target(&p.folder())?;
    }
    let folder = |p: &CutoffPlan, cutoff: CutoffBuild, path: Option<PathBuf>| {
        let folder = p.built(study, cutoff, path);
        on_folder(&folder);
        folder
    };
    if opts.strict {
        // Every abstract is measured before any folder is written: an overrun anywhere leaves
        // the output untouched. The cut-offs are built once and kept in memory until then.
        let cutoffs: Vec<(CutoffBuild, Vec<OutputFile>)> = plans
            .par_iter()
            .map(|p| {
                let sink = FolderSink::in_memory();
                let cutoff = build_cutoff(study, p, renderer, &sink)?;
                Ok((cutoff, sink.into_files()))
            })
            .collect::<Result<Vec<_>>>()?;
        let overruns: Vec<String> = plans
            .iter()
            .zip(&cutoffs)
            .flat_map(|(p, (c, _))| abstract_overruns(p, &c.summaries))
            .collect();
        if !overruns.is_empty() {
            return Err(Error::Other(format!(
                "--strict: abstract over the conference limit (output.conference); nothing written:\n  {}",
                overruns.join("\n  ")
            )));
        }
        let built: Vec<Result<BuiltFolder>> = plans
            .par_iter()
            .zip(cutoffs.into_par_iter())
            .map(|(p, (cutoff, files))| {
                let path = if cutoff.has_files {
                    let target = p.folder();
                    write::write_folder_atomically(&target, files)?;
                    Some(target)
                } else {
                    None
                };
                Ok(folder(p, cutoff, path))
            })
            .collect();
        return built.into_iter().collect();
    }
    // Each folder's files are written into its staging folder as its cohorts are built.
    let built: Vec<Result<BuiltFolder>> = plans
        .par_iter()
        .map(|p| {
            let target = p.folder();
            let sink = FolderSink::staging(&target);
            let cutoff = build_cutoff(study, p, renderer, &sink)?;
            let path = if cutoff.has_files {
                sink.finish()?;
                Some(target)
            } else {
                None
            };
            Ok(folder(p, cutoff, path))
        })
        .collect();
    built.into_iter().collect()
}

/// One line per cohort whose abstract is over the conference limit.
fn abstract_overruns(plan: &CutoffPlan, summaries: &[CohortSummary]) -> Vec<String> {
    summaries
        .iter()
        .filter_map(|c| {
            let length = c.abstract_length.as_ref()?;
            (!length.within_limit).then(|| format!("{} ({}): {length}", c.id, plan.folder_name()))
        })
        .collect()
}

/// Number of cohort builds a config asks for (for progress bars).
pub fn planned_cohorts(cfg: &LoadedConfig, opts: &BuildOptions) -> usize {
    plan(cfg, opts).iter().map(|p| p.cohorts.len()).sum()
}

/// Output root of a config (for messages).
pub fn output_root(cfg: &LoadedConfig, out: Option<&Path>) -> PathBuf {
    cfg.output_dir(out).join(&cfg.config.study.id)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// `docs/results.schema.json` is the JSON Schema of results.json as the types write it;
    /// `READOUT_BLESS=1` rewrites it after a change to the types.
    #[test]
    fn the_results_schema_in_docs_is_current() {
        let schema = schemars::schema_for!(StudyResults<'static>);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results.schema.json");
        if std::env::var_os("READOUT_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/results.schema.json is not the schema of the results types; review the \
             change and rewrite it with READOUT_BLESS=1 cargo test --release --lib schema"
        );
    }

    /// The index gives the same members as scanning every subject, for one filter, two
    /// filters, a value nobody has, a column nobody has, and no filter; subjects with lists
    /// of their own and subjects sharing lists (as loaded subjects do).
    #[test]
    fn indexed_members_equal_scanned_members() {
        let mut subjects: Vec<Subject> = (0..500)
            .map(|i| {
                let mut s = Subject::placeholder();
                s.usubjid = format!("S{i:03}").into();
                if i % 7 != 0 {
                    s.columns.insert("ARM".into(), ["A", "B", "C"][i % 3]);
                }
                s.columns.insert("SEX".into(), ["F", "M"][i % 2]);
                s
            })
            .collect();
        // The second half shares the lists of the first 42 subjects, in a shuffled order.
        for i in 250..500 {
            subjects[i].columns = subjects[(i * 17) % 42].columns.clone();
        }
        let cohorts: Vec<CohortConfig> = [
            r#"{"id": "a", "where": {"ARM": "A"}}"#,
            r#"{"id": "b", "where": {"ARM": "B", "SEX": "F"}}"#,
            r#"{"id": "c", "where": {"SEX": "M", "ARM": "C"}}"#,
            r#"{"id": "d", "where": {"ARM": "Z"}}"#,
            r#"{"id": "e", "where": {"AGE": "60"}}"#,
            r#"{"id": "f"}"#,
        ]
        .iter()
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
        let columns: BTreeSet<&str> = ["ARM", "SEX"].into_iter().collect();
        let index = MemberIndex::new(&columns, &subjects);
        for cohort in &cohorts {
            let scanned = cohort_members(cohort, &subjects);
            assert_eq!(index.members(cohort, &subjects), scanned, "{}", cohort.id);
        }
        assert_eq!(cohort_members(&cohorts[0], &subjects).len(), 143);
        // A cohort of one indexed filter is the index's list, not a copy.
        assert!(matches!(
            index.members(&cohorts[0], &subjects),
            Members::Borrowed(_)
        ));
        assert!(matches!(
            index.members(&cohorts[1], &subjects),
            Members::Owned(_)
        ));
        assert_eq!(index.members(&cohorts[5], &subjects).len(), 500);
    }
}

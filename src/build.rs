//! Orchestration: runs the pipeline for one config and every cut-off it asks for, and hands
//! each cut-off folder to `write` whole. Also the plan that `readout check` reports.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{CohortConfig, LoadedConfig};
use crate::cut::apply_cutoff;
use crate::derive::{self, DeriveOptions, DerivedSubject};
use crate::documents;
use crate::endpoints::{self, CohortAnalysis, CohortInput, CohortResults};
use crate::error::{Error, Result};
use crate::figures;
use crate::load::{self, InputFile, StudyData};
use crate::model::{Assessment, Date, Subject};
use crate::render::Renderer;
use crate::write::{self, OutputFile};

/// What the command line adds to a config.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// `--cutoff` dates; when given they replace the config's.
    pub cutoffs: Vec<Date>,
    /// `--out`: replaces `output.dir`.
    pub out: Option<PathBuf>,
}

/// One cut-off folder to build: the date and the cohorts analysed at it.
#[derive(Debug, Clone, Serialize)]
pub struct CutoffPlan {
    /// The cut-off (None: no cut-off, folder `no-cutoff`).
    pub cutoff: Option<Date>,
    /// Indices into `config.cohorts`.
    pub cohorts: Vec<usize>,
}

impl CutoffPlan {
    /// The folder name of this cut-off.
    pub fn folder_name(&self) -> String {
        match self.cutoff {
            Some(d) => d.to_string(),
            None => "no-cutoff".to_string(),
        }
    }
}

/// Which cohorts go into which cut-off folder: `--cutoff` dates, else `cutoffs:`, else each
/// cohort's own `cutoff`, else the study's `cutoff`, else no cut-off.
pub fn plan(cfg: &LoadedConfig, opts: &BuildOptions) -> Vec<CutoffPlan> {
    let c = &cfg.config;
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
        .map(|(cutoff, cohorts)| CutoffPlan { cutoff, cohorts })
        .collect()
}

/// `results.json`.
#[derive(Debug, Serialize)]
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
}

/// `results.json` → `study`.
#[derive(Debug, Serialize)]
pub struct StudyHeader<'a> {
    /// `study.id`
    pub id: &'a str,
    /// `study.registry_id`
    pub registry_id: Option<&'a str>,
    /// `study.title`
    pub title: Option<&'a str>,
}

/// `manifest.json`.
#[derive(Debug, Serialize)]
struct Manifest<'a> {
    readout_version: &'static str,
    config: InputFile,
    inputs: &'a [InputFile],
    outputs: Vec<write::ManifestEntry>,
}

/// The outcome of building one cut-off folder.
#[derive(Debug, Clone)]
pub struct BuiltFolder {
    /// Where it was written.
    pub path: PathBuf,
    /// The cut-off.
    pub cutoff: Option<Date>,
    /// One line per cohort for the summary.
    pub cohorts: Vec<CohortSummary>,
}

/// A cohort's line in the build summary.
#[derive(Debug, Clone)]
pub struct CohortSummary {
    /// Cohort id.
    pub id: String,
    /// Enrolled subjects.
    pub n: usize,
    /// ORR, if computed.
    pub orr: Option<f64>,
    /// Median PFS, if computed.
    pub median_pfs: Option<f64>,
    /// Warnings.
    pub warnings: usize,
}

/// Data loaded once per config, shared by its cut-offs.
pub struct LoadedStudy {
    /// The config.
    pub config: LoadedConfig,
    /// The tables as read.
    pub data: StudyData,
}

/// Loads the config's data files.
pub fn load_study(config: LoadedConfig) -> Result<LoadedStudy> {
    let data = load::load_study(&config)?;
    Ok(LoadedStudy { config, data })
}

/// The subjects of a cohort (indices into `subjects`): every `where` filter must hold.
pub fn cohort_members(cohort: &CohortConfig, subjects: &[Subject]) -> Vec<usize> {
    let filters: Vec<(&String, String)> = cohort
        .filter
        .iter()
        .map(|(k, v)| (k, v.as_text()))
        .collect();
    subjects
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            filters
                .iter()
                .all(|(col, value)| s.columns.get(*col).is_some_and(|v| v == value))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Analyses one cohort at one cut-off (data already cut).
pub fn analyse(
    study: &LoadedStudy,
    cut: &StudyData,
    by_subject: &HashMap<&str, Vec<Assessment>>,
    cohort: &CohortConfig,
    cutoff: Option<Date>,
) -> Result<CohortAnalysis> {
    let analysis = study.config.analysis_for(cohort);
    let members = cohort_members(cohort, &cut.subjects);
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
            .filter_map(|&i| cut.subjects.get(i))
            .map(|s| {
                let empty = Vec::new();
                let assessments = by_subject.get(s.usubjid.as_str()).unwrap_or(&empty);
                derive::derive_subject(s, assessments, &options).map_err(|e| Error::Analysis {
                    cohort: cohort.id.clone(),
                    message: e.to_string(),
                })
            })
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    endpoints::analyse_cohort(&CohortInput {
        cohort,
        analysis: &analysis,
        cutoff,
        data: cut,
        members: &members,
        derived: &derived,
    })
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

/// Builds every file of one cut-off folder in memory.
pub fn build_cutoff(
    study: &LoadedStudy,
    plan: &CutoffPlan,
    renderer: &Renderer,
) -> Result<(Vec<OutputFile>, Vec<CohortSummary>)> {
    let cfg = &study.config;
    let cut = apply_cutoff(&study.data, plan.cutoff)?;
    let mut by_subject: HashMap<&str, Vec<Assessment>> = HashMap::new();
    for a in &cut.assessments {
        by_subject
            .entry(a.usubjid.as_str())
            .or_default()
            .push(a.clone());
    }
    let formats = &cfg.config.output.formats;
    let mut files = Vec::new();
    let mut analyses = Vec::new();
    let mut summaries = Vec::new();
    for &ci in &plan.cohorts {
        let Some(cohort) = cfg.config.cohorts.get(ci) else {
            continue;
        };
        let analysis = analyse(study, &cut, &by_subject, cohort, plan.cutoff)?;
        let settings = cfg.analysis_for(cohort);
        let figs = figures::cohort_figures(&analysis, &settings, formats)?;
        let mut results = analysis.results.clone();
        results.warnings.extend(figs.notes.iter().cloned());
        files.extend(figs.files);
        files.push(OutputFile {
            path: format!("derived/{}.csv", cohort.id),
            bytes: derived_csv(&analysis, &settings.tte_params)?,
        });
        files.extend(documents::render_documents(
            cfg,
            cohort,
            &results,
            &settings,
            &figs.inline,
            renderer,
            formats,
        )?);
        summaries.push(CohortSummary {
            id: cohort.id.clone(),
            n: results.n.enrolled,
            orr: results.response.as_ref().and_then(|r| r.orr.rate),
            median_pfs: results.tte.get("PFS").and_then(|t| t.median.estimate),
            warnings: results.warnings.len(),
        });
        analyses.push(results);
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
        warnings: &cut.warnings,
    };
    files.push(OutputFile {
        path: "results.json".to_string(),
        bytes: to_json(&results)?,
    });
    let manifest = Manifest {
        readout_version: env!("CARGO_PKG_VERSION"),
        config: InputFile {
            path: cfg.path.display().to_string(),
            sha256: load::sha256_hex(&cfg.bytes),
        },
        inputs: &study.data.inputs,
        outputs: write::manifest_entries(&files),
    };
    files.push(OutputFile {
        path: "manifest.json".to_string(),
        bytes: to_json(&manifest)?,
    });
    Ok((files, summaries))
}

fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::Other(format!("cannot serialise results: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `derived/<cohort>.csv`: USUBJID, BOR, E_AVAL/E_CNSR per endpoint, then BOR_DATE and BOR_REASON.
fn derived_csv(
    analysis: &CohortAnalysis,
    endpoints: &indexmap::IndexMap<String, String>,
) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["USUBJID".to_string(), "BOR".to_string()];
    for e in endpoints.keys() {
        header.push(format!("{e}_AVAL"));
        header.push(format!("{e}_CNSR"));
    }
    header.extend(["BOR_DATE", "BOR_REASON", "EFFFL"].map(String::from));
    let csv_err = |e: csv::Error| Error::Other(format!("cannot write derived dataset: {e}"));
    w.write_record(&header).map_err(csv_err)?;
    for row in &analysis.derived {
        let mut record = vec![row.usubjid.clone(), row.bor.clone()];
        for e in endpoints.keys() {
            match row.tte.get(e).and_then(|v| v.as_ref()) {
                Some((aval, cnsr)) => {
                    record.push(format!("{aval}"));
                    record.push(cnsr.min(&1).to_string());
                }
                None => {
                    record.push(String::new());
                    record.push(String::new());
                }
            }
        }
        record.push(row.bor_date.map(|d| d.to_string()).unwrap_or_default());
        record.push(row.bor_reason.clone());
        record.push(if row.efficacy { "Y" } else { "N" }.to_string());
        w.write_record(&record).map_err(csv_err)?;
    }
    w.into_inner()
        .map_err(|e| Error::Other(format!("cannot write derived dataset: {e}")))
}

/// Builds and writes every cut-off folder of one config. Returns the folders written.
pub fn build_config(study: &LoadedStudy, opts: &BuildOptions) -> Result<Vec<BuiltFolder>> {
    let cfg = &study.config;
    let renderer = Renderer::new(
        cfg.config
            .output
            .templates
            .as_ref()
            .map(|t| cfg.base_dir().join(t))
            .as_deref(),
    )?;
    let root = cfg
        .output_dir(opts.out.as_deref())
        .join(&cfg.config.study.id);
    let mut built = Vec::new();
    for p in plan(cfg, opts) {
        let (files, cohorts) = build_cutoff(study, &p, &renderer)?;
        let target = root.join(p.folder_name());
        write::write_folder_atomically(&target, &files)?;
        built.push(BuiltFolder {
            path: target,
            cutoff: p.cutoff,
            cohorts,
        });
    }
    Ok(built)
}

/// Output root of a config (for messages).
pub fn output_root(cfg: &LoadedConfig, out: Option<&Path>) -> PathBuf {
    cfg.output_dir(out).join(&cfg.config.study.id)
}

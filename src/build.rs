//! Orchestration: runs the pipeline for one config and every cut-off it asks for, and hands
//! each cut-off folder to `write` whole. Also the plan that `readout check` reports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::cohort::{build_cohort, CohortOutcome, CohortSummary, CutData};
use crate::config::{CohortConfig, LoadedConfig};
use crate::cut::apply_cutoff;
use crate::documents;
use crate::error::{Error, Result};
use crate::figures;
use crate::files::OutputFile;
use crate::load;
use crate::model::Date;
use crate::profile::timing;
use crate::results::{CohortFailure, StudyHeader, StudyResults};
use crate::study::LoadedStudy;
use crate::write::outputs::{to_json, DerivedDataset, DerivedRows, Manifest, ManifestEntry};
use crate::write::{self, FolderSink};

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
    pub notes: Vec<crate::diagnostic::Diagnostic>,
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
    pub notes: Vec<crate::diagnostic::Diagnostic>,
}

/// fails is listed in `failures` (and in `results.json`); the others are built.
pub fn build_cutoff(
    study: &LoadedStudy,
    plan: &CutoffPlan,
    sink: &FolderSink,
) -> Result<CutoffBuild> {
    let cfg = &study.config;
    let cut = timing::stage("cut", || {
        apply_cutoff(&study.data, plan.cutoff, &study.cut_rules)
    })?;
    let cohorts: Vec<&CohortConfig> = plan
        .cohorts
        .iter()
        .filter_map(|&i| cfg.config.cohorts.get(i))
        .collect();
    let at = timing::stage("index", || {
        CutData::for_cohorts(&cut, plan.cutoff, &cohorts)
    });
    // rayon's collect keeps the input order, so the output does not depend on thread count.
    // First every cohort's analysis: those that succeed are results.json's cohorts, in order,
    // so each one's place there is known before its documents point into it.
    let analysed: Vec<Result<crate::cohort::Analysed<'_>>> = cohorts
        .par_iter()
        .map(|cohort| crate::cohort::analyse_whole(study, &at, cohort))
        .collect();
    let mut places = Vec::with_capacity(cohorts.len());
    let mut next = 0;
    for a in &analysed {
        places.push(next);
        next += usize::from(a.is_ok());
    }
    // Then each analysed cohort's figures and documents; its files go to the sink as soon as
    // it is built (the outer `Result` is the sink's: an output that cannot be written stops
    // the build).
    // A cohort's failure keeps its entry when only its figures or documents failed.
    type Failed = (Option<Box<crate::results::CohortRecord>>, Error);
    let outcomes: Vec<Result<std::result::Result<Box<crate::cohort::CohortBuild>, Failed>>> =
        cohorts
            .par_iter()
            .zip(analysed)
            .zip(places)
            .map(|((cohort, analysed), place)| {
                timing::stage(&format!("cohort {}", cohort.id), || {
                    let analysed = match analysed {
                        Ok(a) => a,
                        Err(e) => return Ok(Err((None, e))),
                    };
                    match build_cohort(study, &at, cohort, analysed, place) {
                        CohortOutcome::Built(mut built, derived) => {
                            sink.put(std::mem::take(&mut built.files))?;
                            write_derived(study, &at, cohort, &derived, sink)?;
                            Ok(Ok(built))
                        }
                        CohortOutcome::Unwritten(record, e) => Ok(Err((Some(record), e))),
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
                let built = *built;
                summaries.push(built.summary);
                analyses.push(built.record);
                curves.extend(built.curves);
            }
            Err((record, e)) => {
                // Its numbers stand in results.json; its files are not written.
                analyses.extend(record.map(|r| *r));
                failures.push(CohortFailure {
                    cohort: cohort.id.clone(),
                    error: e.within_cohort(&cfg.path, &cohort.id),
                });
            }
        }
    }
    // No cohort written: no folder (a cohort whose documents failed has an entry, no files).
    if summaries.is_empty() {
        return Ok(CutoffBuild {
            has_files: false,
            summaries,
            failures,
            notes: Vec::new(),
        });
    }
    let output = &cfg.config.output;
    let (study_figures, notes) = timing::stage("study figures", || {
        figures::study_km_figures(
            &curves,
            (study.formats.needs().png_files, output.figure_titles),
            &cfg.analysis_for_study(),
        )
    })?;
    sink.put(study_figures)?;
    let warnings: Vec<crate::diagnostic::Diagnostic> =
        cut.warnings.iter().chain(&notes).cloned().collect();
    if study.formats.needs().index {
        sink.put(vec![documents::render_index(
            cfg,
            plan.cutoff,
            &analyses,
            &sink.paths()?,
            study.renderer()?,
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
        diagnostics: crate::diagnostic::records(&warnings),
        failures: &failures,
    };
    sink.put(vec![OutputFile {
        path: "results.json".to_string(),
        bytes: to_json(&results)?.into(),
    }])?;
    let manifest = timing::stage("manifest", || manifest_of(study, plan, sink))?;
    sink.put(vec![OutputFile {
        path: "manifest.json".to_string(),
        bytes: to_json(&manifest)?.into(),
    }])?;
    Ok(CutoffBuild {
        has_files: true,
        summaries,
        failures,
        notes,
    })
}

/// Builds and writes every cut-off folder of one config, in parallel; each folder is written
/// whole or not at all. `on_folder` is called as each folder is done (for progress output).
pub fn build_config(
    study: &LoadedStudy,
    opts: &BuildOptions,
    on_folder: &(dyn Fn(&BuiltFolder) + Sync),
) -> Result<Vec<BuiltFolder>> {
    check_before_build(study, opts)?;
    build_folders(study, opts, on_folder)
}

/// Every cohort of every planned cut-off analysed and its files made in memory, nothing
/// written (`readout check`): the cohorts that would fail a build, with their errors, in plan
/// order. An error that would stop a build (a template that does not parse, a cut-off that
/// cannot be applied) is returned as such.
pub fn dry_build(study: &LoadedStudy, opts: &BuildOptions) -> Result<Vec<BuiltFolder>> {
    check_before_build(study, opts)?;
    let plans = plan(&study.config, opts);
    for p in &plans {
        write::check_target(&p.folder())?;
    }
    let mut folders = Vec::new();
    for p in &plans {
        let sink = FolderSink::in_memory();
        let cutoff = build_cutoff(study, p, &sink)?;
        folders.push(p.built(study, cutoff, None));
    }
    Ok(folders)
}

/// What refuses a config before any cut-off is built: `--strict` without a conference, the
/// cohorts' arms against the data ([`crate::cohort::check_arms`]) and templates that did not
/// parse.
fn check_before_build(study: &LoadedStudy, opts: &BuildOptions) -> Result<()> {
    check_strict(study, opts)?;
    crate::cohort::check_arms(study)?;
    study.check_templates()
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
    // A congress's abstract has a Background: --strict refuses one without.
    if opts.strict {
        let cohorts = &study.config.config.cohorts;
        if let Some((i, c)) = cohorts
            .iter()
            .enumerate()
            .find(|(_, c)| !c.has_background())
        {
            return Err(Error::Other(format!(
                "key `cohorts[{i}].background`: --strict builds abstracts a congress accepts, \
                 and cohort `{}` has no Background; add its text",
                c.id
            )));
        }
    }
    Ok(())
}

/// [`build_config`] once its config is checked against the data.
fn build_folders(
    study: &LoadedStudy,
    opts: &BuildOptions,
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
                let cutoff = build_cutoff(study, p, &sink)?;
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
            let cutoff = build_cutoff(study, p, &sink)?;
            let path = if cutoff.has_files {
                timing::stage("folder swapped in", || sink.finish())?;
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

/// A cohort's derived data: the CSV, the records behind its numbers, and with a format that
/// asks for it the Dataset-JSON.
fn write_derived(
    study: &LoadedStudy,
    at: &CutData<'_>,
    cohort: &CohortConfig,
    derived: &DerivedRows<'_>,
    sink: &FolderSink,
) -> Result<()> {
    let cfg = &study.config;
    timing::stage("  derived csv", || {
        let mut file = sink.create(&format!("derived/{}.csv", cohort.id))?;
        derived.write_csv(&at.data.subjects, &mut |piece| file.write(piece))?;
        file.finish()
    })?;
    timing::stage("  records csv", || {
        let path = format!("derived/records/{}.csv", cohort.id);
        let mut file = sink.create(&path)?;
        derived.write_records_csv(
            &at.data.subjects,
            &at.by_subject,
            &at.data.vocabulary,
            &at.data.adverse_events,
            &mut |piece| file.write(piece),
        )?;
        file.finish()
    })?;
    if study.formats.needs().derived_dataset_json {
        timing::stage("  derived dataset-json", || {
            let settings = cfg.analysis_for(cohort);
            let about = DerivedDataset {
                study_id: &cfg.config.study.id,
                cohort_id: &cohort.id,
                cohort_label: cohort.label.as_deref().unwrap_or(&cohort.id),
                time_unit: settings.time_unit.name(),
                endpoint_labels: &settings.tte_labels,
                cutoff: at.cutoff,
            };
            let path = format!("derived/{}.json", cohort.id);
            let mut file = sink.create(&path)?;
            derived
                .write_dataset_json(&at.data.subjects, &about, &mut |piece| file.write(piece))?;
            file.finish()
        })?;
    }
    Ok(())
}

/// The cut-off folder's manifest: the config, the inputs and every output with its SHA-256.
fn manifest_of(study: &LoadedStudy, plan: &CutoffPlan, sink: &FolderSink) -> Result<Manifest> {
    let cfg = &study.config;
    // Input paths relative to the cut-off folder: the same manifest whichever folder the
    // build ran from, and `verify` works from anywhere.
    let folder = plan.folder();
    let relative = |path: &str| {
        write::relative_path(&folder, Path::new(path))
            .to_string_lossy()
            .replace('\\', "/")
    };
    let inputs: Vec<ManifestEntry> = study
        .data
        .inputs
        .iter()
        .map(|i| ManifestEntry {
            path: relative(&i.path),
            sha256: i.sha256.clone(),
        })
        .collect();
    Ok(Manifest {
        readout_version: env!("CARGO_PKG_VERSION").to_string(),
        paths_relative_to: Some("this folder".to_string()),
        config: ManifestEntry {
            path: relative(&cfg.path.display().to_string()),
            sha256: load::sha256_hex(&cfg.bytes),
        },
        inputs,
        outputs: sink.manifest_entries()?,
    })
}

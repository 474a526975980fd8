//! The cohort stage: a cohort's members at a cut-off (through per-cut-off indexes), each
//! member's derivations, the cohort's analysis, figures and documents, and its complete
//! `results.json` entry (docs/OUTPUTS.md).

mod arms;
mod index;

pub use arms::{analyse_arms, check_arms, ArmsOutcome};
pub use index::{cohort_members, CutData, MemberIndex};

use indexmap::IndexMap;
use rustc_hash::FxHashMap;

use crate::config::{Analysis, CohortConfig};
use crate::derive::{self, DeriveOptions, DerivedSubject};
use crate::documents;
use crate::endpoints::{self, CohortAnalysis, CohortInput, Members};
use crate::error::{Error, Result};
use crate::figures;
use crate::files::OutputFile;
use crate::model::endpoint;
use crate::model::Date;
use crate::profile::timing;
use crate::results::CohortRecord;
use crate::study::LoadedStudy;
use crate::write::outputs::DerivedRows;

/// Analyses one cohort at one cut-off (data already cut).
pub fn analyse<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
) -> Result<CohortAnalysis<'a>> {
    let cut = at.data;
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
    if members.is_empty() {
        return Err(empty_cohort_error(study, cohort, at.cutoff));
    }
    analyse_members(study, at, cohort, members)
}

/// Analyses a cohort's subjects: each member's derivations, then the endpoints.
fn analyse_members<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    members: Members<'a>,
) -> Result<CohortAnalysis<'a>> {
    let analysis = study.config.analysis_for(cohort);
    let derived = derive_members(study, at, cohort, &analysis, &members)?;
    let row_filters = at.data.row_filters.clone();
    analyse_derived(at, cohort, &analysis, (members, derived), row_filters)
}

/// The endpoints of a cohort's subjects, or one arm's, from their derivations (`derived`
/// follows `members`; empty without ADRS); `row_filters` for the cohort's entry, none for an
/// arm's.
pub fn analyse_derived<'a>(
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    analysis: &Analysis,
    (members, derived): (Members<'a>, Vec<DerivedSubject>),
    row_filters: Vec<crate::results::RowsKept>,
) -> Result<CohortAnalysis<'a>> {
    endpoints::analyse_cohort(CohortInput {
        cohort,
        analysis,
        cutoff: at.cutoff,
        data: at.data,
        members,
        derived,
        tte_index: at.tte_index.as_ref(),
        row_filters,
    })
}

/// Each member's derivations (best response, PFS, OS, DoR), in the members' order; none
/// without ADRS.
fn derive_members(
    study: &LoadedStudy,
    at: &CutData<'_>,
    cohort: &CohortConfig,
    analysis: &Analysis,
    members: &Members<'_>,
) -> Result<Vec<DerivedSubject>> {
    if study.config.config.data.adrs.is_none() {
        return Ok(Vec::new());
    }
    let cut = at.data;
    let options = derive_options(analysis);
    let lookup = cut.vocabulary.lookup(&analysis.criteria);
    let given: std::collections::HashMap<&str, &crate::model::Assessment> =
        if analysis.criteria.rule == crate::criteria::Rule::AsGiven {
            cut.given_bor
                .iter()
                .map(|a| (a.usubjid.as_str(), a))
                .collect()
        } else {
            Default::default()
        };
    let reading = derive::criteria::Reading {
        criteria: &analysis.criteria,
        lookup: &lookup,
        vocabulary: &cut.vocabulary,
        given: Some(&given),
    };
    members
        .iter()
        .map(|&i| {
            // One derivation per member, in order: a member outside the subjects is a bug
            // (it would shift every later derivation), not a member to skip.
            let s = cut.subjects.get(i as usize).ok_or_else(|| {
                Error::Internal(format!(
                    "cohort `{}`: member {i} is not a subject",
                    cohort.id
                ))
            })?;
            let empty = Vec::new();
            let assessments = at.by_subject.get(&*s.usubjid).unwrap_or(&empty);
            derive::derive_subject_by(s, assessments, &options, reading).map_err(|source| {
                Error::Derive {
                    cohort: cohort.id.clone(),
                    source,
                }
            })
        })
        .collect()
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
            new_therapy: a.new_therapy.clone(),
            origin: Some(a.origin.column().to_string()),
            schedule: a.schedule.clone(),
        },
    }
}

pub(crate) fn cohort_index(study: &LoadedStudy, cohort: &CohortConfig) -> usize {
    study
        .config
        .config
        .cohorts
        .iter()
        .position(|c| c.id == cohort.id)
        .unwrap_or(0)
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
    /// The response criteria's name ("RECIST 1.1", "iRECIST"), with response data.
    pub criteria: Option<String>,
    /// The cohort's warnings, as in `results.json`.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// The abstract measured against `output.conference`.
    pub abstract_length: Option<crate::results::AbstractLength>,
    /// A randomised cohort: a line per arm (the cohort's own ORR and median are then left
    /// out: pooled over arms, they are nobody's).
    pub arms: Vec<ArmSummary>,
}

/// An arm's line in the build summary.
#[derive(Debug, Clone)]
pub struct ArmSummary {
    /// The arm.
    pub arm: String,
    /// Its subjects.
    pub n: usize,
    /// ORR as the documents print it.
    pub orr: Option<String>,
    /// Median PFS as the documents print it.
    pub median_pfs: Option<String>,
    /// The PFS hazard ratio against the reference (stratified when the cohort has strata),
    /// with its CI; `None` for the reference arm.
    pub hr_pfs: Option<String>,
}

/// ORR and median PFS of a cohort's (or an arm's) results, as the documents print them.
fn printed_orr_and_median(
    results: &crate::results::CohortResults,
    settings: &crate::config::Analysis,
) -> (Option<String>, Option<String>) {
    let orr = results
        .response
        .as_ref()
        .and_then(|r| r.orr.rate)
        .map(|rate| crate::format::fmt_pct(Some(rate), settings.percent_decimals));
    let median = results
        .tte
        .get(endpoint::PFS)
        .map(|t| match t.median.estimate {
            Some(m) => format!(
                "{} {}",
                crate::format::fixed(m, settings.time_decimals),
                settings.time_unit.name()
            ),
            None => "NR".to_string(),
        });
    (orr, median)
}

impl CohortSummary {
    /// The summary line of a cohort's entry, numbers as its documents print them.
    fn of(record: &CohortRecord, settings: &crate::config::Analysis) -> CohortSummary {
        let results = &record.results;
        let randomised = !results.comparisons.is_empty();
        let (orr, median_pfs) = if randomised {
            (None, None)
        } else {
            printed_orr_and_median(results, settings)
        };
        let arms = if randomised {
            results
                .arms
                .iter()
                .map(|a| {
                    let (orr, median_pfs) = printed_orr_and_median(&a.results, settings);
                    let hr_pfs = results
                        .comparisons
                        .iter()
                        .find(|c| c.arm == a.arm)
                        .and_then(|c| c.tte.get(endpoint::PFS))
                        .map(|t| {
                            let cox = t.stratified.as_ref().map_or(&t.cox, |s| &s.cox);
                            match &cox.hr {
                                Some(hr) => format!(
                                    "{} ({})",
                                    crate::format::fixed(hr.estimate, 2),
                                    crate::format::fmt_limits(
                                        Some(hr.lower),
                                        Some(hr.upper),
                                        2,
                                        false
                                    )
                                ),
                                None => "NE".to_string(),
                            }
                        });
                    ArmSummary {
                        arm: results.arm_short(&a.arm).to_string(),
                        n: a.results.n.enrolled,
                        orr,
                        median_pfs,
                        hr_pfs,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        CohortSummary {
            arms,
            id: results.id.clone(),
            n: results.n.enrolled,
            orr,
            median_pfs,
            endpoints: results.tte.keys().cloned().collect(),
            criteria: results
                .response
                .as_ref()
                .map(|_| settings.criteria.name.clone()),
            warnings: results.warnings.clone(),
            abstract_length: record.abstract_length.clone(),
        }
    }
}

/// One cohort built: its complete `results.json` entry, its files, its line in the build
/// summary and its KM curves for the study-level figures.
pub struct CohortBuild {
    /// The cohort's `results.json` entry.
    pub record: CohortRecord,
    /// Figures and documents, paths relative to the cut-off folder.
    pub files: Vec<OutputFile>,
    /// The cohort's line in the build summary.
    pub summary: CohortSummary,
    /// The cohort's KM curves per endpoint, with the time unit, for the study-level figures.
    pub curves: Vec<(String, crate::config::TimeUnit, crate::plots::KmSeries)>,
}

/// Each member's arm by `USUBJID`, for the waterfall and swimmer by arm: empty for a cohort
/// without arms, or without ADTR and ADRS (neither figure).
fn subject_arms<'s>(
    analysis: &CohortAnalysis<'_>,
    at: &'s CutData<'_>,
    cohort: &CohortConfig,
) -> FxHashMap<&'s str, &'s str> {
    let drawn = analysis.has_adtr || !analysis.derived.is_empty() || !analysis.tumour.is_empty();
    let Some(arms) = cohort.arms.as_ref().filter(|_| drawn) else {
        return Default::default();
    };
    analysis
        .members
        .iter()
        .filter_map(|&i| at.data.subjects.get(i as usize))
        .filter_map(|s| Some((s.usubjid.as_str(), s.columns.get(&arms.column)?)))
        .collect()
}

/// A cohort analysed whole: its finished results (the cohort's endpoints, each arm's, the
/// comparisons, and the RMST and risk tables that need every arm's curve), and what the
/// figures by arm need besides.
pub struct Analysed<'a> {
    /// The analysis; its results are finished and are not changed after.
    pub analysis: CohortAnalysis<'a>,
    /// Each arm's Kaplan–Meier fits per endpoint (empty without arms).
    pub arm_km: Vec<(String, IndexMap<String, crate::stats::KaplanMeier>)>,
    /// Each arm's times and statuses of the endpoints with competing events.
    pub arm_competing: Vec<(String, IndexMap<String, crate::endpoints::CompetingData>)>,
    /// The cohort's resolved analysis settings.
    pub settings: Analysis,
}

/// The analysis stage: the cohort's endpoints, then its arms analysed and compared (from the
/// cohort's derivations; survival beyond the median at horizons over every arm's curve), then
/// the cohort's own survival beyond the median at those horizons: one finished set of
/// results before any figure or document reads them.
pub fn analyse_whole<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
) -> Result<Analysed<'a>> {
    let cfg = &study.config;
    let settings = cfg.analysis_for(cohort);
    let pooled = timing::stage("  analyse", || analyse(study, at, cohort))?;
    let (mut pooled, arm_km, arm_competing, horizons) = match &cohort.arms {
        None => {
            let (horizons, notes) = crate::endpoints::beyond::horizons(
                (&pooled.results.label, &pooled.km, &pooled.results.tte),
                &[],
                &|arm: &str| arm.to_string(),
                &settings,
                &tau_key(study, cohort),
            )?;
            let mut pooled = pooled;
            pooled.results.warnings.extend(notes);
            (pooled, Vec::new(), Vec::new(), horizons)
        }
        Some(arms) => {
            let outcome = timing::stage("  arms", || {
                analyse_arms(study, at, cohort, arms, &pooled, &settings)
            })?;
            let mut warnings = pooled.results.warnings.clone();
            crate::diagnostic::extend_unique(&mut warnings, outcome.warnings);
            let results = crate::results::CohortResults {
                arms: outcome.arms,
                comparisons: outcome.comparisons,
                warnings,
                ..pooled.results
            };
            let pooled = CohortAnalysis { results, ..pooled };
            (pooled, outcome.km, outcome.competing, outcome.horizons)
        }
    };
    // The cohort's own RMST and risk tables, at its arms' horizons.
    crate::endpoints::beyond::describe(
        &mut pooled.results.tte,
        (&pooled.km, &pooled.competing),
        &horizons,
        &settings,
        &cohort.id,
    )?;
    Ok(Analysed {
        analysis: pooled,
        arm_km,
        arm_competing,
        settings,
    })
}

/// Where the cohort's `rmst_tau` is set: its own key, else the study's (for errors).
fn tau_key<'a>(
    study: &'a LoadedStudy,
    cohort: &CohortConfig,
) -> crate::endpoints::beyond::TauKey<'a> {
    crate::endpoints::beyond::TauKey {
        file: &study.config.path,
        key: match cohort.analysis.rmst_tau {
            Some(_) => format!("cohorts[{}].analysis.rmst_tau", cohort_index(study, cohort)),
            None => "analysis.rmst_tau".to_string(),
        },
    }
}

/// What drawing and writing an analysed cohort gives.
pub enum CohortOutcome<'a> {
    /// Its files, entry and summary, and the derived CSV's rows (streamed to the folder after
    /// the other files).
    Built(Box<CohortBuild>, DerivedRows<'a>),
    /// A figure or document failed: the cohort's entry stands (its numbers are the analysis'),
    /// and none of its files is written.
    Unwritten(Box<CohortRecord>, Error),
}

/// Draws an analysed cohort's figures and renders its documents. The stages hand on in turn:
/// the figures drawn from the finished results (with notes on any figure left out), the
/// documents rendered from the results and those notes, the cohort being `cohorts[place]` of
/// results.json (its numbers sheet points there); the `results.json` entry is made once at
/// the end, with every stage's warnings and the abstract's length.
pub fn build_cohort<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    analysed: Analysed<'a>,
    place: usize,
) -> CohortOutcome<'a> {
    let decimals = crate::results::Decimals {
        percent: analysed.settings.percent_decimals,
        time: analysed.settings.time_decimals,
    };
    match draw_and_render(study, at, cohort, &analysed, place) {
        Ok((figs, documents)) => {
            let (built, rows) = built(at, cohort, analysed, decimals, (figs, documents));
            CohortOutcome::Built(Box::new(built), rows)
        }
        Err(e) => {
            let record = CohortRecord::new(analysed.analysis.results, [], None, decimals);
            CohortOutcome::Unwritten(Box::new(record), e)
        }
    }
}

/// The figures stage, then the documents stage; the figures are rasterised while the
/// documents that do not embed their PNGs are rendered.
fn draw_and_render(
    study: &LoadedStudy,
    at: &CutData<'_>,
    cohort: &CohortConfig,
    analysed: &Analysed<'_>,
    place: usize,
) -> Result<(figures::CohortFigures, documents::CohortDocuments)> {
    let cfg = &study.config;
    let (analysis, settings) = (&analysed.analysis, &analysed.settings);
    let needs = study.formats.needs();
    let pngs = figures::PngUse {
        files: needs.png_files,
        kept: needs.pngs,
        wide: needs.wide_figures,
    };
    let mut figs = timing::stage("  figures", || {
        let arms = figures::ArmData {
            km: &analysed.arm_km,
            competing: &analysed.arm_competing,
            subject_arm: subject_arms(analysis, at, cohort),
        };
        figures::cohort_drawings(analysis, &arms, settings, &cfg.config.output, pngs)
    })?;
    // The documents get the drawings and notes as they are before rasterising (which adds
    // PNGs only).
    // The documents list at most so many preferred terms; the figures drew from all. The
    // warning is the figure stage's (the documents and the cohort's entry both say it).
    let (listed, cut) = documents::listed::listed(&analysis.results);
    figs.notes.extend(cut);
    let (drawn, notes) = (figs.inline.clone(), figs.notes.clone());
    let (rasterised, started) = rayon::join(
        || timing::stage("  rasterise", || figs.rasterise(&cohort.id, pngs)),
        || {
            timing::stage("  documents", || {
                documents::start_documents(
                    cfg,
                    (cohort, place),
                    &listed,
                    settings,
                    (drawn, &notes),
                    study.renderer()?,
                    &study.assets,
                    &study.formats,
                )
            })
        },
    );
    // A figure that fails fails the cohort first, as when the documents came after.
    rasterised?;
    let documents = timing::stage("  documents with PNGs", || started?.finish(&figs.inline))?;
    Ok((figs, documents))
}

/// A cohort whose figures and documents are made: its files, its entry made once with every
/// stage's warnings, its summary line, its curves, and the derived CSV's rows.
fn built<'a>(
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    Analysed {
        analysis, settings, ..
    }: Analysed<'a>,
    decimals: crate::results::Decimals,
    (figs, documents): (figures::CohortFigures, documents::CohortDocuments),
) -> (CohortBuild, DerivedRows<'a>) {
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
    let CohortAnalysis {
        results,
        members,
        derived,
        derived_tte,
        ..
    } = analysis;
    let mut files = figs.files;
    files.extend(documents.files);
    let record = CohortRecord::new(
        results,
        figs.notes.into_iter().chain(documents.warnings),
        documents.abstract_length,
        decimals,
    );
    let summary = CohortSummary::of(&record, &settings);
    let derived_times = !at.data.has_adtte && !derived.is_empty();
    (
        CohortBuild {
            record,
            files,
            summary,
            curves,
        },
        DerivedRows {
            members,
            derived,
            derived_tte,
            endpoints: settings.tte_params.clone(),
            derived_times,
            arm_column: cohort.arms.as_ref().map(|a| a.column.clone()),
            criteria: settings.criteria.clone(),
            efficacy_flag: at
                .data
                .efficacy_flag
                .clone()
                .unwrap_or_else(|| "EFFFL".to_string()),
        },
    )
}

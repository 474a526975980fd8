//! Loading ADaM files (CSV, SAS transport, SAS datasets, Dataset-JSON) into typed tables. One
//! of the two stages that touch the file system. Every error names the file, the line, the
//! column and the bad value; a problem that changes a number is an error or a warning shown on
//! the terminal.
//!
//! Not here: cut-off handling (`cut`), derivations (`derive`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::LoadedConfig;
use crate::diagnostic::{Diagnostic, Kind};
use crate::error::{Error, Result};
use crate::model::{
    AdverseEvent, AeAction, Assessment, ColumnValue, Columns, Date, LesionSum, Response, Subject,
    SubjectId, TteRecord, TteTable,
};

mod adae;
mod adex;
mod adrs;
mod adsl;
mod adtr;
mod adtte;
mod cells;
pub mod dataset_json;
pub mod disposition;
mod filter;
pub mod sas7bdat;
mod split;
mod subjects;
mod table;
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests;
pub mod xpt;

pub use adae::*;
pub use adex::ADEX_PARAMS;
pub use adrs::*;
pub use adsl::*;
pub use adtr::*;
pub use adtte::*;
pub use cells::*;
pub use filter::RowFilter;
use split::*;
pub use subjects::*;
pub use table::*;

/// Largest data file read (1 GiB). Files are read whole into memory; an ADaM table of a trial
/// is far smaller, so a larger file is a wrong path or a broken export, refused before reading.
pub const MAX_DATA_FILE_BYTES: u64 = 1 << 30;

/// Bytes read per part of a large ADSL or ADTTE file ([`CsvTable::read_parts`]).
const PART_BYTES: usize = 16 << 20;

/// The length of a data file that is read in parts of `part_bytes`: a CSV file of more than
/// four parts (below that, reading whole, in parallel with the other files, is faster and
/// the memory small), or any Dataset-JSON file (its parts parsed while the last is typed was
/// faster and smaller than reading it whole beside ADSL: docs/PERFORMANCE.md), within
/// [`MAX_DATA_FILE_BYTES`]. `None`: read it whole (a SAS file, a small CSV file, one too large
/// or unreadable, whose error the whole reading gives).
fn parts_length(path: &Path, part_bytes: usize) -> Option<u64> {
    let sas = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("xpt") || e.eq_ignore_ascii_case("sas7bdat"));
    let stream = dataset_json::Form::of(path).is_some();
    let len = std::fs::metadata(path).ok()?.len();
    (!sas && (stream || len > 4 * part_bytes as u64) && len <= MAX_DATA_FILE_BYTES).then_some(len)
}

/// Longest CSV record (1 MiB): no ADaM row comes near it, so a longer one is a file without
/// line ends or an unclosed quote, named by its line rather than parsed on.
pub const MAX_RECORD_BYTES: usize = 1 << 20;

pub use crate::model::MAX_TIME_DAYS;

/// Largest dose value accepted (ADSL `CUMDOSE`, `AVGDD`, `RDI`; ADEX `AVAL`), in whatever unit
/// it is given: above it a value is a broken export, and sums over a million subjects would
/// pass a double's range and print as "inf".
pub const MAX_DOSE: f64 = 1e15;

/// Every input table of a study, typed.
#[derive(Debug, Clone, Default)]
pub struct StudyData {
    /// ADSL rows, in file order.
    pub subjects: Vec<Subject>,
    /// The ADSL flag of the efficacy population (`EFFFL`, ...; `None`: every subject).
    pub efficacy_flag: Option<String>,
    /// `SAFFL` when ADSL has it (`None`: every subject is in the safety population).
    pub safety_flag: Option<String>,
    /// ADSL's column names (what disposition and exposure can be read from).
    pub adsl_headers: Vec<String>,
    /// The disposition levels reported and the ADSL columns each is read from.
    pub disposition: Vec<disposition::DispositionLevel>,
    /// ADRS per-visit overall responses (`PARAMCD = OVR`).
    pub assessments: Vec<Assessment>,
    /// The sponsor's best overall response per subject (ADRS `data.adrs_bor_paramcd`), read
    /// only when a cohort's `response_criteria` is `as-given`.
    pub given_bor: Vec<Assessment>,
    /// The ADRS values the cohorts' response criteria accept; [`Assessment::code`] indexes it.
    pub vocabulary: crate::criteria::Vocabulary,
    /// ADTTE rows.
    pub tte: TteTable,
    /// Whether an ADRS file was given.
    pub has_adrs: bool,
    /// Whether a data cut-off dropped or censored anything (data dated after it existed).
    pub after_cutoff: bool,
    /// Whether an ADTTE file was given (its endpoints are then used as they are).
    pub has_adtte: bool,
    /// The ADTTE file, for error messages.
    pub adtte_file: Option<PathBuf>,
    /// Whether an ADTR file was given.
    pub has_adtr: bool,
    /// ADAE rows.
    pub adverse_events: Vec<AdverseEvent>,
    /// Which of ADAE's optional columns hold a value (AEACN, AESER, grades, outcome): the
    /// counts they give are `null` otherwise.
    pub adae_columns: AdaeColumns,
    /// ADEX dose summaries per subject (`CUMDOSE`, `AVGDD`, `RDI` of `adex::ADEX_PARAMS`),
    /// when ADEX is given.
    pub dose: Option<adex::Doses>,
    /// ADTR sum-of-diameters rows.
    pub lesions: Vec<LesionSum>,
    /// The files read, with their SHA-256, for the manifest.
    pub inputs: Vec<InputFile>,
    /// The rows `data.where` kept, per filtered dataset.
    pub row_filters: Vec<crate::results::RowsKept>,
    /// Non-fatal data problems.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// A diagnostic's location: a whole data file.
pub(crate) fn file_location(path: &Path) -> crate::diagnostic::Location {
    crate::diagnostic::Location::File {
        path: path.display().to_string(),
        line: None,
        column: None,
    }
}

/// A file read by the build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputFile {
    /// The path as resolved from the config.
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    digest_hex(Sha256::digest(bytes))
}

/// A SHA-256 digest in lower-case hex.
pub(crate) fn digest_hex(digest: impl IntoIterator<Item = u8>) -> String {
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Loads every table the config names. The files are read and parsed in parallel; errors
/// are reported in the order of the config (ADSL first), so the message does not depend on
/// thread timing.
/// A table read and filtered (`data.where`): the rows kept and what was kept, with warnings.
type Filtered = (
    CsvTable,
    (Option<crate::results::RowsKept>, Vec<Diagnostic>),
);

/// Reads a data file whole and keeps the rows `data.where.<dataset>` keeps.
fn read_where(cfg: &LoadedConfig, dataset: &str, path: &Path) -> Result<Filtered> {
    let mut table = CsvTable::read(path)?;
    let mut filter = RowFilter::of(cfg, dataset);
    filter.apply(&mut table)?;
    let kept = filter.finish(path)?;
    Ok((table, kept))
}

/// Leaves out of `table` (dataset `dataset`, already filtered by its own `data.where`, which
/// kept `kept`) the rows of `subjects`, those `data.where.adsl` left out; what was kept says
/// how many rows went with them.
fn leave_out_subjects(
    table: &mut CsvTable,
    dataset: &str,
    subjects: &Arc<FxHashSet<Box<str>>>,
    kept: Option<crate::results::RowsKept>,
) -> Result<Option<crate::results::RowsKept>> {
    if subjects.is_empty() {
        return Ok(kept);
    }
    let mut filter = RowFilter::new(dataset, []).without_subjects(subjects);
    filter.apply(table)?;
    let (gone, _) = filter.finish(table.path())?;
    Ok(match (kept, gone) {
        (Some(mut kept), Some(gone)) => {
            kept.kept = table.len();
            kept.dropped += gone.of_subjects_left_out;
            kept.of_subjects_left_out = gone.of_subjects_left_out;
            Some(kept)
        }
        (kept, gone) => kept.or(gone),
    })
}

/// Records what a row filter kept in `row_filters`, and its warnings.
fn filtered(
    row_filters: &mut Vec<crate::results::RowsKept>,
    warnings: &mut Vec<Diagnostic>,
    (kept, said): (Option<crate::results::RowsKept>, Vec<Diagnostic>),
) {
    row_filters.extend(kept);
    warnings.extend(said);
}

/// Every data file the config names can be opened; one that cannot is named by its config key
/// as well as its path.
fn check_openable(cfg: &LoadedConfig) -> Result<()> {
    let data = &cfg.config.data;
    for (key, file) in [
        ("adsl", Some(&data.adsl)),
        ("adrs", data.adrs.as_ref()),
        ("adtte", data.adtte.as_ref()),
        ("adae", data.adae.as_ref()),
        ("adtr", data.adtr.as_ref()),
        ("adex", data.adex.as_ref()),
    ] {
        let Some(file) = file else { continue };
        let path = cfg.data_path(file);
        if let Err(e) = crate::files::open(&path) {
            return Err(Error::Config {
                file: cfg.path.clone(),
                location: format!("key `data.{key}`: "),
                message: format!("cannot read {}: {e}", path.display()),
            });
        }
    }
    Ok(())
}

/// The ADSL columns kept per subject: only those the config filters on, summarises, compares
/// arms by, reads disposition or new therapy from.
fn kept_columns(cfg: &LoadedConfig, new_therapy: &[(String, String)]) -> FxHashSet<String> {
    cfg.config
        .cohorts
        .iter()
        .flat_map(|c| {
            c.filter
                .keys()
                .cloned()
                .chain(c.baseline.iter().map(|b| b.column.clone()))
                .chain(c.arms.iter().map(|a| a.column.clone()))
                .chain(c.strata.iter().map(|f| f.column.clone()))
                .chain(c.subgroups.iter().map(|f| f.column.clone()))
        })
        .chain(disposition::COLUMNS.iter().map(|c| c.to_string()))
        .chain(
            disposition::named_columns(&cfg.config.data)
                .into_iter()
                .map(|(_, column)| column),
        )
        .chain(new_therapy.iter().map(|(_, column)| column.clone()))
        .collect()
}

/// The ADSL columns the config names by key (disposition, new therapy) are in its header.
fn check_named_columns(
    cfg: &LoadedConfig,
    adsl_path: &Path,
    headers: &[String],
    new_therapy: Vec<(String, String)>,
) -> Result<()> {
    for (key, column) in disposition::named_columns(&cfg.config.data)
        .into_iter()
        .chain(new_therapy)
    {
        if !headers.contains(&column) {
            return Err(Error::Config {
                file: cfg.path.clone(),
                location: format!("key `{key}`: "),
                message: format!(
                    "column `{column}` is not in ADSL ({}); its header has: {}",
                    adsl_path.display(),
                    headers.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// Without an efficacy flag every subject is in the efficacy population, screen failures
/// (SAFFL = N) included: a warning says so, as it changes every response rate's denominator.
fn unflagged_efficacy(
    study: &StudyData,
    subjects: &[Subject],
    adsl_path: &Path,
) -> Option<Diagnostic> {
    if study.efficacy_flag.is_some() {
        return None;
    }
    let untreated = subjects.iter().filter(|s| !s.safety).count();
    (untreated > 0).then(|| {
        Diagnostic::warning(
            Kind::EfficacyPopulationUnflagged,
            format!(
                "{}: no EFFFL, FASFL or ITTFL: every subject is in the efficacy population, \
                 including {untreated} with SAFFL not Y; name the flag to use in \
                 `data.efficacy_flag`",
                adsl_path.display()
            ),
        )
        .at(file_location(adsl_path))
        .hint("name the efficacy population's flag in `data.efficacy_flag`")
    })
}

/// The ADRS values of every cohort's response criteria, one code each.
fn vocabulary_of(cfg: &LoadedConfig) -> Result<crate::criteria::Vocabulary> {
    let criteria: Vec<_> = cfg
        .config
        .cohorts
        .iter()
        .map(|c| cfg.analysis_for(c).criteria)
        .collect();
    crate::criteria::Vocabulary::new(criteria.iter().map(|c| &**c)).map_err(|message| {
        Error::Config {
            file: cfg.path.clone(),
            location: "key `analysis.response_criteria`: ".to_string(),
            message,
        }
    })
}

/// Competing events, by PARAMCD, from every cohort's endpoints: one set per PARAMCD.
fn competing_rules(cfg: &LoadedConfig) -> Result<Vec<CompetingRule>> {
    let mut competing: Vec<CompetingRule> = Vec::new();
    for a in std::iter::once(cfg.config.analysis.resolve(&Default::default()))
        .chain(cfg.config.cohorts.iter().map(|c| cfg.analysis_for(c)))
    {
        for (endpoint, rule) in &a.tte_competing {
            let Some(paramcd) = a.tte_params.get(endpoint) else {
                continue;
            };
            let rule = CompetingRule {
                paramcd: paramcd.clone(),
                column: rule.column.clone(),
                values: rule
                    .values
                    .iter()
                    .map(|v| v.trim().to_uppercase())
                    .collect(),
            };
            match competing.iter().find(|r| r.paramcd == rule.paramcd) {
                Some(known) if *known != rule => {
                    return Err(Error::Config {
                        file: cfg.path.clone(),
                        location: format!("key `tte_params.{endpoint}.competing`: "),
                        message: format!(
                            "PARAMCD `{paramcd}` is given two sets of competing events; \
                             expected one per PARAMCD in every cohort"
                        ),
                    })
                }
                Some(_) => {}
                None => competing.push(rule),
            }
        }
    }
    Ok(competing)
}

/// A warning per competing-event rule that marked no record: no record of its PARAMCD with
/// CNSR 0 holds one of its values (misspelt, or held only by censored records), so the
/// endpoint's incidence is 1 − Kaplan–Meier and Gray's test and Fine–Gray compare no
/// competing events.
fn no_competing_events(
    cfg: &LoadedConfig,
    path: &Path,
    tte: &TteTable,
    rules: &[CompetingRule],
) -> Vec<Diagnostic> {
    let mut marked = vec![false; tte.params.len()];
    for r in tte.records.iter().filter(|r| r.is_competing()) {
        if let Some(m) = marked.get_mut(r.param as usize) {
            *m = true;
        }
    }
    let endpoints = |paramcd: &str| -> Vec<String> {
        let mut names: Vec<String> = std::iter::once(&cfg.config.analysis)
            .chain(cfg.config.cohorts.iter().map(|c| &c.analysis))
            .filter_map(|a| a.tte_params.as_ref())
            .flat_map(|p| p.iter())
            .filter(|(_, p)| p.paramcd() == paramcd && p.competing().is_some())
            .map(|(name, _)| name.clone())
            .collect();
        names.dedup();
        names
    };
    rules
        .iter()
        .filter(|rule| {
            !tte.params
                .iter()
                .zip(&marked)
                .any(|(p, m)| **p == *rule.paramcd && *m)
        })
        .map(|rule| {
            let names = endpoints(&rule.paramcd);
            let key = names.first().map_or_else(
                || "analysis.tte_params".to_string(),
                |n| format!("analysis.tte_params.{n}.competing"),
            );
            Diagnostic::warning(
                Kind::RuleNotApplied,
                format!(
                    "{}: no `{}` record with CNSR 0 has {} {}: {} no competing event, so its \
                     cumulative incidence is 1 − Kaplan–Meier",
                    path.display(),
                    rule.paramcd,
                    rule.column,
                    rule.values
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(" or "),
                    if names.is_empty() {
                        "the endpoint has".to_string()
                    } else {
                        format!("{} has", names.join(", "))
                    },
                ),
            )
            .at(crate::diagnostic::Location::Key(key))
            .hint(format!(
                "check `competing.values` against the values of {} in {}",
                rule.column,
                path.display()
            ))
        })
        .collect()
}

/// What [`adsl_and_tables`] gives: the study so far, the subjects by id, the other tables read
/// whole, and the subjects `data.where.adsl` left out.
type AdslAndTables<'s> = (
    StudyData,
    KnownSubjects<'s>,
    Vec<Option<CsvTable>>,
    Arc<FxHashSet<Box<str>>>,
);

/// ADSL typed as it is read (part by part when large: it is never held whole), with its
/// checks, while ADRS, ADAE, ADTR and a small ADTTE are read whole beside it. Returns the study
/// so far (its subjects moved to `subjects`), the subjects by id, and those tables in that
/// order (`None` where not given).
fn adsl_and_tables<'s>(
    cfg: &LoadedConfig,
    adtte_in_parts: bool,
    subjects: &'s mut Vec<Subject>,
) -> Result<AdslAndTables<'s>> {
    use rayon::prelude::*;
    let data = &cfg.config.data;
    let mut study = StudyData::default();
    let adsl_path = cfg.data_path(&data.adsl);
    let files: Vec<(&str, Option<PathBuf>)> = [
        ("adrs", data.adrs.as_ref()),
        ("adtte", data.adtte.as_ref().filter(|_| !adtte_in_parts)),
        ("adae", data.adae.as_ref()),
        ("adtr", data.adtr.as_ref()),
    ]
    .into_iter()
    .map(|(key, f)| (key, f.map(|f| cfg.data_path(f))))
    .collect();
    let new_therapy = cfg.new_therapy_columns();
    let new_therapy_names: Vec<String> = new_therapy.iter().map(|(_, c)| c.clone()).collect();
    // The origin of derived times is read only when they are derived (no ADTTE).
    let origins = if data.adtte.is_none() {
        cfg.origin_columns()
    } else {
        Vec::new()
    };
    let mut keep = kept_columns(cfg, &new_therapy);
    keep.extend(origins.iter().map(|(_, c)| c.clone()));
    // The tables' errors are collected whole, then the first in config order: rayon's collect into a `Result` returns whichever error
    // a thread met first.
    let needs_trtsdt = data.adrs.is_some() || data.adtte.is_none();
    let mut adsl = AdslReader::new(
        data.efficacy_flag.as_deref(),
        Some(&keep),
        needs_trtsdt,
        &new_therapy_names,
    );
    adsl.origins = origins.iter().map(|(_, c)| c.clone()).collect();
    let mut adsl_filter = RowFilter::of(cfg, "adsl");
    let (adsl_input, tables) = rayon::join(
        || {
            crate::profile::timing::stage("  typed adsl", || {
                CsvTable::read_parts_where(
                    &adsl_path,
                    PART_BYTES,
                    &mut adsl_filter,
                    |table, first_row, expected| adsl.part(table, first_row, expected),
                )
            })
        },
        || {
            crate::profile::timing::stage("  read files", || {
                files
                    .par_iter()
                    .map(|(key, path)| {
                        path.as_deref()
                            .map(|path| read_where(cfg, key, path))
                            .transpose()
                    })
                    .collect::<Vec<Result<Option<Filtered>>>>()
            })
        },
    );
    let adsl_input = adsl_input?;
    let left_out = Arc::new(adsl_filter.take_removed());
    filtered(
        &mut study.row_filters,
        &mut study.warnings,
        adsl_filter.finish(&adsl_path)?,
    );
    *subjects = std::mem::take(&mut adsl.subjects);
    let subjects: &'s [Subject] = subjects;
    study.efficacy_flag = adsl.efficacy_column.take();
    study.safety_flag = adsl.has_saffl.then(|| "SAFFL".to_string());
    study.adsl_headers = std::mem::take(&mut adsl.headers);
    check_named_columns(cfg, &adsl_path, &study.adsl_headers, new_therapy)?;
    study.disposition = disposition::levels(&study.adsl_headers, data);
    study
        .warnings
        .extend(unflagged_efficacy(&study, subjects, &adsl_path));
    // The other tables find subjects through `known`, which holds the subjects' own ids.
    let known = adsl.check(&adsl_path, subjects)?;
    study.inputs.push(adsl_input);
    let mut read: Vec<Option<CsvTable>> = Vec::with_capacity(files.len());
    for (table, (dataset, _)) in tables.into_iter().zip(&files) {
        read.push(match table? {
            Some((mut table, (kept, said))) => {
                let kept = leave_out_subjects(&mut table, dataset, &left_out, kept)?;
                filtered(&mut study.row_filters, &mut study.warnings, (kept, said));
                Some(table)
            }
            None => None,
        });
    }
    Ok((study, known, read, left_out))
}

pub fn load_study(cfg: &LoadedConfig) -> Result<StudyData> {
    let analysis = cfg.analysis_for_study();
    let data = &cfg.config.data;
    let adtte_path = data.adtte.as_ref().map(|f| cfg.data_path(f));
    // A large ADTTE is read in parts once ADSL is typed; a small one whole, with the others.
    let adtte_in_parts = adtte_path
        .as_deref()
        .is_some_and(|path| parts_length(path, PART_BYTES).is_some());
    check_openable(cfg)?;
    let mut subjects = Vec::new();
    let (mut study, known, mut tables, left_out) =
        adsl_and_tables(cfg, adtte_in_parts, &mut subjects)?;
    let mut take = |i: usize| tables.get_mut(i).and_then(Option::take);
    let (adrs, adtte, adae, adtr) = (take(0), take(1), take(2), take(3));

    // The other tables only need ADSL's subjects: convert them in parallel.
    let related: HashSet<String> = analysis
        .related_values
        .iter()
        .map(|v| v.trim().to_ascii_uppercase())
        .collect();
    let paramcd = data.adtr_paramcd.as_deref().unwrap_or("SDIAM");
    let adrs_paramcds: Vec<&str> = match &data.adrs_paramcd {
        Some(list) => list.iter().map(String::as_str).collect(),
        None => crate::config::DEFAULT_ADRS_PARAMCDS.to_vec(),
    };
    let vocabulary = vocabulary_of(cfg)?;
    let competing = competing_rules(cfg)?;
    let ((assessments, tte), (adverse_events, lesions)) =
        crate::profile::timing::stage("  typed others", || {
            rayon::join(
                || {
                    rayon::join(
                        || {
                            adrs.as_ref()
                                .map(|t| read_adrs(t, &known, &adrs_paramcds, &vocabulary))
                                .transpose()
                        },
                        || match (&adtte, adtte_path.as_deref()) {
                            (Some(table), _) => read_adtte_with(table, &known, &competing)
                                .map(|rows| Some(((rows, table.input_file()), (None, Vec::new())))),
                            (None, Some(path)) if adtte_in_parts => {
                                let mut filter =
                                    RowFilter::of(cfg, "adtte").without_subjects(&left_out);
                                let read = read_adtte_file(path, &known, &mut filter, &competing)?;
                                Ok(Some((read, filter.finish(path)?)))
                            }
                            _ => Ok(None),
                        },
                    )
                },
                || {
                    rayon::join(
                        || {
                            adae.as_ref()
                                .map(|t| {
                                    let mut warnings = Vec::new();
                                    read_adae(t, &known, &related, &mut warnings)
                                        .map(|e| (e, warnings))
                                })
                                .transpose()
                        },
                        || {
                            adtr.as_ref()
                                .map(|t| read_adtr(t, &known, paramcd))
                                .transpose()
                        },
                    )
                },
            )
        });
    if let (Some(table), true) = (&adrs, vocabulary.has_given()) {
        let paramcds: Vec<&str> = match &data.adrs_bor_paramcd {
            Some(list) => list.iter().map(String::as_str).collect(),
            None => crate::config::DEFAULT_ADRS_BOR_PARAMCDS.to_vec(),
        };
        study.given_bor = adrs::read_adrs_bor(table, &known, &paramcds, &vocabulary)?;
    }
    if let (Some(table), Some(rows)) = (&adrs, assessments?) {
        study.assessments = rows;
        study.has_adrs = true;
        study.vocabulary = vocabulary;
        study.warnings.extend(drop_pre_treatment_responses(
            table.path(),
            &study.vocabulary,
            known.subjects(),
            &mut study.assessments,
        ));
        study.inputs.push(table.input_file());
    }
    if let (Some(path), Some(((rows, input), kept))) = (adtte_path, tte?) {
        filtered(&mut study.row_filters, &mut study.warnings, kept);
        study
            .warnings
            .extend(no_competing_events(cfg, &path, &rows, &competing));
        study.tte = rows;
        study.has_adtte = true;
        study.adtte_file = Some(path);
        study.inputs.push(input);
    }
    if let Some(file) = &data.adex {
        let (mut table, (kept, said)) = read_where(cfg, "adex", &cfg.data_path(file))?;
        let kept = leave_out_subjects(&mut table, "adex", &left_out, kept)?;
        filtered(&mut study.row_filters, &mut study.warnings, (kept, said));
        study.dose = Some(adex::read_adex(&table, &known)?);
        study.inputs.push(table.input_file());
    }
    if let (Some(table), Some((rows, warnings))) = (&adae, adverse_events?) {
        study.adverse_events = rows.0;
        study
            .warnings
            .extend(adae::one_spelling(&mut study.adverse_events, table.path()));
        // A column empty on every row (the CDISC pilot's AEACN) gives no count.
        study.adae_columns = rows.1;
        study.warnings.extend(warnings);
        study.inputs.push(table.input_file());
    }
    if let (Some(table), Some(rows)) = (&adtr, lesions?) {
        study.lesions = rows;
        study.has_adtr = true;
        study.inputs.push(table.input_file());
    }
    study.subjects = subjects;
    if !study.has_adtte {
        if let Some(warning) = last_seen_alive(&mut study) {
            study.warnings.push(warning);
        }
    }
    Ok(study)
}

/// Overall survival is censored at the last date a subject is known alive: a response
/// assessment or an adverse event after `LSTALVDT` shows the subject alive then, so the
/// subject's last-alive date is moved to the latest of them (derived OS and follow-up would
/// otherwise come out short). Returns the warning naming the subjects moved. Subjects who died
/// or have no `LSTALVDT` are left as they are (the OS derivation has its own rule then).
fn last_seen_alive(study: &mut StudyData) -> Option<Diagnostic> {
    let mut seen: rustc_hash::FxHashMap<&str, Date> = rustc_hash::FxHashMap::default();
    let dates = study
        .assessments
        .iter()
        .map(|a| (a.usubjid.as_str(), Some(a.date)))
        .chain(
            study
                .adverse_events
                .iter()
                .map(|e| (e.usubjid.as_str(), e.start)),
        );
    for (id, date) in dates {
        if let Some(date) = date {
            let latest = seen.entry(id).or_insert(date);
            *latest = (*latest).max(date);
        }
    }
    if seen.is_empty() {
        return None;
    }
    let mut moved: Vec<String> = Vec::new();
    let mut count = 0usize;
    for s in &mut study.subjects {
        let (Some(alive), None) = (s.last_alive, s.death) else {
            continue;
        };
        if let Some(&later) = seen.get(&*s.usubjid).filter(|&&d| d > alive) {
            count += 1;
            if moved.len() < crate::format::NAMES_LISTED {
                moved.push(format!("{} (LSTALVDT {alive}, seen {later})", s.usubjid));
            }
            s.last_alive = Some(later);
        }
    }
    (count > 0).then(|| {
        Diagnostic::warning(
            Kind::SeenAliveAfterLastAlive,
            format!(
                "{count} subject(s) have an assessment or adverse event after their LSTALVDT; \
                 overall survival is censored at that later date: {}",
                crate::format::first_names(&moved, count)
            ),
        )
    })
}

impl LoadedConfig {
    /// Study-level analysis settings (used where data are read once for all cohorts).
    pub fn analysis_for_study(&self) -> crate::config::Analysis {
        self.config
            .analysis
            .resolve(&crate::config::AnalysisConfig::default())
    }
}

/// The distinct subjects of a list of ids (helper for summaries).
pub fn distinct<'a>(ids: impl Iterator<Item = &'a str>) -> BTreeSet<&'a str> {
    ids.collect()
}

/// Drops the overall responses dated before the subject's treatment start and says which.
/// RECIST 1.1 assesses response against a baseline taken before treatment, so an OVR record
/// before TRTSDT is not a response: it is a wrong ADT or TRTSDT, or a screening record in the
/// wrong parameter. Counting it could confirm a later PR (a responder that is not one), so it
/// is left out of every derivation and figure, and listed as a warning.
pub fn drop_pre_treatment_responses(
    path: &Path,
    vocabulary: &crate::criteria::Vocabulary,
    subjects: &[Subject],
    assessments: &mut Vec<Assessment>,
) -> Option<Diagnostic> {
    let starts: FxHashMap<&str, Date> = subjects
        .iter()
        .filter_map(|s| Some((&*s.usubjid, s.trt_start?)))
        .collect();
    let mut dropped = Vec::new();
    assessments.retain(|a| match starts.get(a.usubjid.as_str()) {
        Some(&start) if a.date < start => {
            dropped.push(format!(
                "{} {} on {} (TRTSDT {start})",
                a.usubjid,
                vocabulary.text(a.code),
                a.date
            ));
            false
        }
        _ => true,
    });
    if dropped.is_empty() {
        return None;
    }
    const SHOWN: usize = 10;
    let more = dropped.len().saturating_sub(SHOWN);
    let total = dropped.len();
    dropped.truncate(SHOWN);
    let mut list = dropped.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    Some(
        Diagnostic::warning(
            Kind::AssessmentBeforeTreatment,
            format!(
                "{}: {total} overall response(s) dated before treatment start left out of BOR, PFS, DoR and the figures (RECIST 1.1: assessments before treatment are baseline, not responses): {list}",
                path.display()
            ),
        )
        .at(file_location(path)),
    )
}

//! The command line: `readout build`, `readout check`, `readout init`. Parses flags (clap),
//! runs the library, prints a summary, and turns errors into one message and exit code 2.

use crate::error::escape_controls;

/// `println!` with every control character but line feeds escaped: values from configs and
/// data are quoted in messages, and must not drive the terminal (a message may span lines).
macro_rules! outln {
    ($($arg:tt)*) => {
        println!("{}", escape_controls(&format!($($arg)*), true))
    };
}

/// `eprintln!` with every control character of the line escaped, as [`outln`].
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", escape_controls(&format!($($arg)*), true))
    };
}

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::build::{self, BuildOptions};
use crate::config;
use crate::diff;
use crate::error::{Error, Result};
use crate::model::Date;
use crate::verify;
use crate::write;

/// readout: conference abstracts and reports from a YAML study config and ADaM data.
#[derive(Debug, Parser)]
#[command(name = "readout", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build every cohort of every config: results.json, derived datasets, figures, abstracts.
    Build {
        /// Study config files (YAML), e.g. config/*.yaml.
        #[arg(required = true, value_name = "CONFIG")]
        configs: Vec<PathBuf>,
        /// Data cut-off date (YYYY-MM-DD); repeat it to build several cut-offs. Replaces the
        /// config's `cutoff`, `cutoffs` and per-cohort cut-offs.
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        cutoff: Vec<Date>,
        /// Output folder; replaces `output.dir` of every config.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// Fail (exit 2, nothing written) when an abstract is over the conference length limit
        /// (`output.conference`); without it an overrun is only reported.
        #[arg(long)]
        strict: bool,
        /// After each cut-off, compare it with the latest earlier cut-off folder of the same
        /// study and write `diff-<earlier>-to-<cut-off>.md` and `.html` beside them.
        #[arg(long)]
        diff_previous: bool,
    },
    /// Compare two cut-off folders of one study: N, responses (who changed BOR), events,
    /// medians and CIs, new adverse events. Prints Markdown and writes .md and .html beside them.
    Diff {
        /// The earlier cut-off folder.
        #[arg(value_name = "OUT_A")]
        before: PathBuf,
        /// The later cut-off folder.
        #[arg(value_name = "OUT_B")]
        after: PathBuf,
    },
    /// Recompute the SHA-256 of every file listed in a folder's manifest.json and report any
    /// output, input or config that changed since the build.
    Verify {
        /// A cut-off folder (holding manifest.json).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Load and validate configs and data, and report what a build would write; every cohort
    /// is analysed and its documents rendered in memory, so what would fail a build fails the
    /// check. Writes nothing.
    Check {
        /// Study config files (YAML).
        #[arg(required = true, value_name = "CONFIG")]
        configs: Vec<PathBuf>,
        /// Data cut-off date(s) to check, as for `build`.
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        cutoff: Vec<Date>,
    },
    /// Write a commented starter config and empty ADaM CSV files (headers only) for a new study.
    Init {
        /// Folder to create (must not already contain a study.yaml).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Check an abstract's numbers against themselves: every count with its denominator and
    /// percentage ("13/38 (34.2%)", "15/38, 42.9%", "34.2% (13/38)") must agree. For text
    /// written by hand; a build runs the same check on the abstracts it writes. Exit 1 when
    /// a pair disagrees.
    Lint {
        /// Plain-text or Markdown files.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
}

fn parse_date(text: &str) -> std::result::Result<Date, String> {
    crate::model::parse_date(text)
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // clap quotes the bad argument as given: escaped like every other message.
            eprint!("{}", escape_controls(&e.render().to_string(), true));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            errln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Build {
            configs,
            cutoff,
            out,
            quiet,
            diff_previous,
            strict,
        } => build_command(
            &configs,
            BuildOptions {
                cutoffs: cutoff,
                out,
                strict,
            },
            quiet,
            diff_previous,
        ),
        Command::Diff { before, after } => {
            let report = diff::diff_folders(&before, &after)?;
            print!("{}", escape_controls(&report.markdown, true));
            print_written(&report.written);
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify { dir } => {
            let problems = verify::verify_folder(&dir)?;
            if problems.is_empty() {
                outln!("{}: every file matches manifest.json", dir.display());
                Ok(ExitCode::SUCCESS)
            } else {
                for p in &problems {
                    outln!("{p}");
                }
                errln!(
                    "{}: {} file(s) changed since the build",
                    dir.display(),
                    problems.len()
                );
                Ok(ExitCode::from(1))
            }
        }
        Command::Check { configs, cutoff } => check_command(
            &configs,
            &BuildOptions {
                cutoffs: cutoff,
                out: None,
                strict: false,
            },
        ),
        Command::Init { dir } => init_command(&dir).map(|()| ExitCode::SUCCESS),
        Command::Lint { files } => lint_command(&files),
    }
}

/// Where a diff's files were written.
fn print_written(paths: &[PathBuf]) {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    errln!("diff written to {}", names.join(" and "));
}

/// `readout lint`: each file's disagreeing pairs, one line each; exit 1 when there are any.
fn lint_command(files: &[PathBuf]) -> Result<ExitCode> {
    let mut total = 0;
    for path in files {
        let bytes =
            std::fs::read(path).map_err(|e| Error::io(path, "cannot read the abstract", e))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::data_file(
                path,
                format!(
                    "not UTF-8 text (byte {}); save the file as UTF-8",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        let found = crate::lint::check_proportions(&text);
        for d in &found {
            outln!("{}: {d}", path.display());
        }
        total += found.len();
    }
    if total == 0 {
        outln!("every count agrees with its percentage");
        Ok(ExitCode::SUCCESS)
    } else {
        errln!("{total} count(s) disagree with their percentage");
        Ok(ExitCode::from(1))
    }
}

/// Data files of this many bytes or more (ADSL and ADTTE of a few million subjects) are
/// built with small memory pages.
const SMALL_PAGES_FROM_BYTES: u64 = 256 << 20;

/// The bytes of the data files a config names (a file that cannot be read counts 0: loading
/// reports it).
fn input_bytes(cfg: &config::LoadedConfig) -> u64 {
    let data = &cfg.config.data;
    [
        Some(&data.adsl),
        data.adrs.as_ref(),
        data.adtte.as_ref(),
        data.adae.as_ref(),
        data.adtr.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|f| std::fs::metadata(cfg.data_path(f)).map_or(0, |m| m.len()))
    .sum()
}

/// With large inputs the process stops taking transparent huge pages (Linux; elsewhere
/// nothing). Its large vectors are written once, front to back: a 2 MiB page zeroed at its
/// first touch has left the cache before most of it is written, so every byte goes to memory
/// twice; 4 KiB pages are zeroed just before they are written. At 10^7 subjects (630 MB) that
/// took CPU from 6.1 to 5.1 s and the median from 3.26 to 2.83 s; at 10^6 (63 MB) huge pages
/// are faster (264 against 306 ms: fewer faults), at 3·10^6 (198 MB) about even.
fn pages_for_inputs(cfg: &config::LoadedConfig) {
    if input_bytes(cfg) >= SMALL_PAGES_FROM_BYTES {
        #[cfg(target_os = "linux")]
        {
            // A refusal (an old kernel) only costs speed.
            let _ = rustix::thread::disable_transparent_huge_pages(true);
        }
    }
}

fn build_command(
    configs: &[PathBuf],
    opts: BuildOptions,
    quiet: bool,
    diff_previous: bool,
) -> Result<ExitCode> {
    use rayon::prelude::*;
    let parsed = load_configs(configs, &opts)?;
    let loaded: Vec<(PathBuf, Result<build::LoadedStudy>)> = parsed
        .into_par_iter()
        .map(|(path, cfg)| {
            let study = cfg.and_then(|cfg| {
                pages_for_inputs(&cfg);
                build::load_study(cfg)
            });
            (path, study)
        })
        .collect();
    let total: usize = loaded
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .map(|s| build::planned_cohorts(&s.config, &opts))
        .sum();
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cohorts {elapsed} {msg}")
        {
            bar.set_style(style);
        }
        bar
    });
    let on_folder = |folder: &build::BuiltFolder| {
        let line = format!(
            "built {} {}: {}{}",
            folder.study,
            folder
                .cutoff
                .map(|d| d.to_string())
                .unwrap_or_else(|| "no-cutoff".into()),
            folder
                .cohorts
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if folder.failures.is_empty() {
                String::new()
            } else {
                format!(" ({} failed)", folder.failures.len())
            }
        );
        match &bar {
            Some(bar) => {
                bar.inc((folder.cohorts.len() + folder.failures.len()) as u64);
                bar.set_message(escape_controls(&line, false).into_owned());
            }
            None if !quiet => errln!("{line}"),
            None => {}
        }
    };
    // Data problems that did not stop the load (an AE without a grade, ...), for the summary.
    let data_warnings: Vec<String> = loaded
        .iter()
        .filter_map(|(_, study)| study.as_ref().ok())
        .flat_map(|study| study.data.warnings.iter().cloned())
        .collect();
    let mut folders = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let results: Vec<(PathBuf, Result<Vec<build::BuiltFolder>>)> = loaded
        .into_par_iter()
        .map(|(path, study)| {
            let built = study.and_then(|s| {
                let folders = build::build_config(&s, &opts, &on_folder)?;
                // Freeing millions of records takes tens of milliseconds that nobody waits
                // for: a thread does it, and the process may end before it is done.
                std::thread::spawn(move || drop(s));
                if diff_previous {
                    for f in folders.iter().filter_map(|f| f.path.as_ref()) {
                        if let (Some(report), false) = (diff::diff_with_previous(f)?, quiet) {
                            print_written(&report.written);
                        }
                    }
                }
                Ok(folders)
            });
            (path, built)
        })
        .collect();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    for (path, result) in results {
        match result {
            Ok(built) => {
                for folder in &built {
                    for f in &folder.failures {
                        failures.push(cohort_failure(&path, &f.cohort, &f.error));
                    }
                }
                folders.extend(built);
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    // No table when nothing was built (every config failed): the errors say why.
    if !quiet && !folders.is_empty() {
        print_summary(&folders);
        print_abstract_lengths(&folders);
    }
    if !quiet {
        print_warnings("", &data_warnings);
        print_folder_warnings(&folders);
    }
    for f in &failures {
        errln!("error: {f}");
    }
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        errln!("{} build(s) failed", failures.len());
        Ok(ExitCode::from(2))
    }
}

/// Warnings, each once in the order first met, with how often it came when more than once;
/// each line is prefixed with `indent`.
fn print_warnings(indent: &str, warnings: &[String]) {
    for line in warning_lines(indent, warnings) {
        outln!("{line}");
    }
}

/// The lines [`print_warnings`] prints.
fn warning_lines(indent: &str, warnings: &[String]) -> Vec<String> {
    let mut seen: indexmap::IndexMap<&str, usize> = indexmap::IndexMap::new();
    for w in warnings {
        *seen.entry(w.as_str()).or_default() += 1;
    }
    seen.into_iter()
        .map(|(w, times)| match times {
            1 => format!("{indent}warning: {w}"),
            n => format!("{indent}warning: {w} ({n} times)"),
        })
        .collect()
}

/// The warnings of each folder and cohort built, under a line naming them and their count.
fn print_folder_warnings(folders: &[build::BuiltFolder]) {
    for folder in folders {
        let cutoff = folder
            .cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "no cut-off".into());
        if !folder.notes.is_empty() {
            outln!(
                "{} {cutoff}: {} warning(s)",
                folder.study,
                folder.notes.len()
            );
            print_warnings("  ", &folder.notes);
        }
        for c in folder.cohorts.iter().filter(|c| !c.warnings.is_empty()) {
            outln!(
                "{} {cutoff} {}: {} warning(s)",
                folder.study,
                c.id,
                c.warnings.len()
            );
            print_warnings("  ", &c.warnings);
        }
    }
}

/// Each cohort's abstract length against the conference limit (`output.conference`).
fn print_abstract_lengths(folders: &[build::BuiltFolder]) {
    for folder in folders {
        let cutoff = folder
            .cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into());
        for c in &folder.cohorts {
            if let Some(length) = &c.abstract_length {
                let verdict = if length.within_limit {
                    "within the limit".to_string()
                } else {
                    format!(
                        "OVER the limit by {} (use --strict to make this an error)",
                        length.count.saturating_sub(length.limit)
                    )
                };
                outln!(
                    "abstract {} {} {}: {length}, {verdict}",
                    folder.study,
                    cutoff,
                    c.id
                );
            }
        }
    }
}

/// Each config read and checked (in parallel), for `build` and `check`: a load error stays
/// with its config; two configs that would make one folder stop both commands here, before
/// any data is read or folder written.
fn load_configs(
    configs: &[PathBuf],
    opts: &BuildOptions,
) -> Result<Vec<(PathBuf, Result<config::LoadedConfig>)>> {
    use rayon::prelude::*;
    let parsed: Vec<(PathBuf, Result<config::LoadedConfig>)> = configs
        .par_iter()
        .map(|path| (path.clone(), config::load(path)))
        .collect();
    distinct_folders(&parsed, opts)?;
    Ok(parsed)
}

/// Two configs of one build must not write the same cut-off folder (the same output folder,
/// study id and cut-off): both would build, and whichever finished last would silently replace
/// the other's results. Study ids are compared ignoring case, as macOS and Windows file systems
/// do; output folders as the file system resolves them (see [`resolved_path`]). Configs that
/// did not load are skipped here; their errors come once no two configs collide.
fn distinct_folders(
    parsed: &[(PathBuf, Result<config::LoadedConfig>)],
    opts: &BuildOptions,
) -> Result<()> {
    let mut seen: std::collections::HashMap<(PathBuf, String, String), (&Path, &str)> =
        std::collections::HashMap::new();
    for (path, cfg) in parsed {
        let Ok(cfg) = cfg else { continue };
        let out = write::resolved_path(&cfg.output_dir(opts.out.as_deref()));
        let study = cfg.config.study.id.to_lowercase();
        for plan in build::plan(cfg, opts) {
            let key = (out.clone(), study.clone(), plan.folder_name());
            let id = cfg.config.study.id.as_str();
            if let Some((first, first_id)) = seen.insert(key, (path, id)) {
                if write::resolved_path(first) == write::resolved_path(path) {
                    return Err(Error::Config {
                        file: path.clone(),
                        location: String::new(),
                        message: "the config is given twice; give it once".to_string(),
                    });
                }
                let folder = build::output_root(cfg, opts.out.as_deref()).join(plan.folder_name());
                let case = if first_id == id {
                    String::new()
                } else {
                    format!(" as study `{first_id}` (ids differing only in case name one folder on macOS and Windows)")
                };
                let remedy = if opts.out.is_some() {
                    "with --out every config writes under that folder, so give the studies \
                     different ids, or build them in separate runs with different --out folders"
                } else {
                    "give the studies different ids or output folders (`output.dir`)"
                };
                return Err(Error::Config {
                    file: path.clone(),
                    location: "key `study.id`: ".to_string(),
                    message: format!(
                        "`{id}` makes the folder {}, which {} makes too in this build{case}; one \
                         would replace the other: {remedy}",
                        folder.display(),
                        first.display()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// A failed cohort's error line: `CONFIG: cohort `ID`: what went wrong`, the config path and
/// the cohort named once each (the error may already begin with either).
fn cohort_failure(path: &Path, cohort: &str, error: &str) -> String {
    let path_prefix = format!("{}: ", path.display());
    let rest = error.strip_prefix(&path_prefix).unwrap_or(error);
    let cohort_prefix = format!("cohort `{cohort}`: ");
    let rest = rest.strip_prefix(&cohort_prefix).unwrap_or(rest);
    format!("{path_prefix}{cohort_prefix}{rest}")
}

/// The end-of-build table: one line per study, cut-off and cohort. ORR, median PFS and the
/// abstract length have a column only when some cohort has them (an endpoint not analysed is
/// not "NR"); the median is printed as the documents print it, with its unit.
fn print_summary(folders: &[build::BuiltFolder]) {
    let cohorts = || folders.iter().flat_map(|f| &f.cohorts);
    let with_orr = cohorts().any(|c| c.orr.is_some());
    let with_pfs = cohorts().any(|c| c.median_pfs.is_some());
    let with_length = cohorts().any(|c| c.abstract_length.is_some());
    let with_endpoints = cohorts().any(|c| !c.endpoints.is_empty());
    // (text, right-aligned) per cell; the header first.
    let mut rows: Vec<Vec<(String, bool)>> = Vec::new();
    let mut header = vec![
        ("study", false),
        ("cut-off", false),
        ("cohort", false),
        ("N", true),
    ];
    if with_orr {
        header.push(("ORR", true));
    }
    if with_pfs {
        header.push(("median PFS", true));
    }
    if with_endpoints {
        header.push(("endpoints", false));
    }
    if with_length {
        header.push(("abstract", true));
    }
    header.extend([("warnings", true), ("output", false)]);
    rows.push(header.iter().map(|(t, r)| (t.to_string(), *r)).collect());
    for folder in folders {
        let cutoff = folder
            .cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into());
        let path = folder
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "(not written)".into());
        for c in &folder.cohorts {
            let mut row = vec![
                (folder.study.clone(), false),
                (cutoff.clone(), false),
                (c.id.clone(), false),
                (c.n.to_string(), true),
            ];
            if with_orr {
                row.push((c.orr.clone().unwrap_or_else(|| "-".into()), true));
            }
            if with_pfs {
                row.push((c.median_pfs.clone().unwrap_or_else(|| "-".into()), true));
            }
            if with_endpoints {
                let names = if c.endpoints.is_empty() {
                    "-".to_string()
                } else {
                    c.endpoints.join(" ")
                };
                row.push((names, false));
            }
            if with_length {
                let length = c.abstract_length.as_ref().map(|l| {
                    let over = if l.within_limit { "" } else { "!" };
                    format!("{}/{}{over}", l.count, l.limit)
                });
                row.push((length.unwrap_or_else(|| "-".into()), true));
            }
            row.extend([(c.warnings.len().to_string(), true), (path.clone(), false)]);
            rows.push(row);
        }
        for f in &folder.failures {
            let mut row = vec![
                (folder.study.clone(), false),
                (cutoff.clone(), false),
                (f.cohort.clone(), false),
            ];
            row.push(("FAILED (error below)".to_string(), false));
            rows.push(row);
        }
    }
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter(|r| r.len() == columns)
                .filter_map(|r| r.get(i))
                .map(|(t, _)| t.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(
                |(i, ((text, right), width))| match (right, i + 1 == row.len()) {
                    (_, true) => text.clone(),
                    (true, false) => format!("{text:>width$}"),
                    (false, false) => format!("{text:<width$}"),
                },
            )
            .collect();
        outln!("{}", cells.join("  "));
    }
}

fn check_command(configs: &[PathBuf], opts: &BuildOptions) -> Result<ExitCode> {
    let mut failed = false;
    for (path, cfg) in load_configs(configs, opts)? {
        let path = &path;
        let result = cfg.and_then(build::load_study).and_then(|study| {
            // A template that does not parse is reported before anything else (the
            // templates were parsed while the data loaded).
            study.check_templates()?;
            let plans = build::plan(&study.config, opts);
            let root = build::output_root(&study.config, opts.out.as_deref());
            outln!(
                "{}: study {}, {} subjects in ADSL",
                path.display(),
                study.config.config.study.id,
                study.data.subjects.len()
            );
            for p in &plans {
                let cut = crate::cut::apply_cutoff(&study.data, p.cutoff)?;
                outln!("  would write {}", root.join(p.folder_name()).display());
                for &i in &p.cohorts {
                    if let Some(cohort) = study.config.config.cohorts.get(i) {
                        let members = build::cohort_members(cohort, &cut.subjects);
                        outln!("    {:<16} {} subjects", cohort.id, members.len());
                    }
                }
            }
            print_warnings("  ", &study.data.warnings);
            // Every cohort analysed and its documents rendered in memory: what would fail
            // a build (an unknown variable in a user template, ...) fails the check.
            let folders = build::dry_build(&study, opts)?;
            print_folder_warnings(&folders);
            for f in folders.iter().flat_map(|f| &f.failures) {
                errln!("error: {}", cohort_failure(path, &f.cohort, &f.error));
                failed = true;
            }
            Ok(())
        });
        if let Err(e) = result {
            errln!("error: {e}");
            failed = true;
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

const STARTER_CONFIG: &str = include_str!("../templates/init/study.yaml");

/// ADaM files written by `init`, with the columns readout reads.
const STARTER_DATA: &[(&str, &str)] = &[
    (
        "adsl.csv",
        "USUBJID,SITEID,COHORT,AGE,SEX,TRTSDT,TRTEDT,ENRLDT,DTHDT,LSTALVDT,SAFFL,EFFFL\n",
    ),
    ("adrs.csv", "USUBJID,PARAMCD,AVISIT,ADT,AVALC\n"),
    (
        "adae.csv",
        "USUBJID,AEDECOD,AEBODSYS,ATOXGR,AEREL,ASTDT,TRTEMFL,AESER,AEOUT\n",
    ),
    ("adtr.csv", "USUBJID,PARAMCD,ADT,AVAL,BASE,PCHG\n"),
];

fn init_command(dir: &Path) -> Result<()> {
    let config_path = dir.join("study.yaml");
    if config_path.exists() {
        return Err(Error::Other(format!(
            "{}: already exists; `readout init` does not overwrite a study",
            config_path.display()
        )));
    }
    let data_dir = dir.join("data");
    std::fs::create_dir_all(&data_dir)
        .map_err(|e| Error::io(&data_dir, "cannot create folder", e))?;
    for (name, header) in STARTER_DATA {
        let path = data_dir.join(name);
        if !path.exists() {
            std::fs::write(&path, header).map_err(|e| Error::io(&path, "cannot write", e))?;
        }
    }
    std::fs::write(&config_path, STARTER_CONFIG)
        .map_err(|e| Error::io(&config_path, "cannot write", e))?;
    outln!(
        "wrote {} and empty ADaM files in {}; fill in the data, then run: readout check {}",
        config_path.display(),
        data_dir.display(),
        config_path.display()
    );
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {

    #[test]
    fn warnings_are_listed_once_with_how_often() {
        let w = |t: &str| t.to_string();
        let lines = warning_lines("  ", &[w("b"), w("a"), w("b"), w("b")]);
        assert_eq!(lines, ["  warning: b (3 times)", "  warning: a"]);
    }
    use super::*;

    /// The config and the cohort are named once each, whatever the error already says.
    #[test]
    fn a_cohort_failure_names_the_config_and_the_cohort_once() {
        let path = Path::new("study.yaml");
        for (error, line) in [
            (
                "cohort `all`: figure ae-trae: too large",
                "study.yaml: cohort `all`: figure ae-trae: too large",
            ),
            (
                "study.yaml: key `cohorts[1].where.X`: ADSL has no column `X`",
                "study.yaml: cohort `all`: key `cohorts[1].where.X`: ADSL has no column `X`",
            ),
            (
                "adsl.csv: line 3: bad date",
                "study.yaml: cohort `all`: adsl.csv: line 3: bad date",
            ),
            (
                "cohort `allx`: something",
                "study.yaml: cohort `all`: cohort `allx`: something",
            ),
        ] {
            assert_eq!(cohort_failure(path, "all", error), line);
        }
    }

    /// The data files a config names are summed (the example study's are small: huge pages
    /// stay on); a file that is missing counts nothing.
    #[test]
    fn input_bytes_sum_the_data_files_a_config_names() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let cfg = config::load(&root.join("config/altn-ak105-ii-01.yaml")).unwrap();
        let data = root.join("data/altn-ak105-ii-01");
        let expected: u64 = ["adsl.csv", "adrs.csv", "adae.csv", "adtr.csv"]
            .iter()
            .map(|f| std::fs::metadata(data.join(f)).map_or(0, |m| m.len()))
            .sum();
        assert!(expected > 0);
        assert_eq!(input_bytes(&cfg), expected);
        assert!(input_bytes(&cfg) < SMALL_PAGES_FROM_BYTES);
        let mut missing = cfg.clone();
        missing.config.data.adae = Some(PathBuf::from("no-such-file.csv"));
        assert_eq!(
            input_bytes(&missing),
            expected - std::fs::metadata(data.join("adae.csv")).unwrap().len()
        );
    }
}

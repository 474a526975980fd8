//! The command line: `readout build`, `readout check`, `readout init`. Parses flags (clap),
//! runs the library, prints a summary, and turns errors into one message and exit code 2.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::build::{self, BuildOptions};
use crate::config;
use crate::error::{Error, Result};
use crate::model::Date;

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
    },
    /// Load and validate configs and data, and report what a build would write. Writes nothing.
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
}

fn parse_date(text: &str) -> std::result::Result<Date, String> {
    Date::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| format!("`{text}` is not a date; expected YYYY-MM-DD"))
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
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
        } => build_command(
            &configs,
            BuildOptions {
                cutoffs: cutoff,
                out,
            },
            quiet,
        ),
        Command::Check { configs, cutoff } => check_command(
            &configs,
            &BuildOptions {
                cutoffs: cutoff,
                out: None,
            },
        ),
        Command::Init { dir } => init_command(&dir).map(|()| ExitCode::SUCCESS),
    }
}

fn build_command(configs: &[PathBuf], opts: BuildOptions, quiet: bool) -> Result<ExitCode> {
    let mut failures = Vec::new();
    let interactive = std::io::stderr().is_terminal();
    for path in configs {
        let result = config::load(path)
            .and_then(build::load_study)
            .and_then(|study| build::build_config(&study, &opts));
        match result {
            Ok(folders) => {
                if !quiet {
                    for folder in folders {
                        println!("{}", folder.path.display());
                        for c in &folder.cohorts {
                            println!(
                                "  {:<16} N={:<5} ORR={:<8} median PFS={:<8} warnings={}",
                                c.id,
                                c.n,
                                c.orr
                                    .map(|r| format!("{:.1}%", r * 100.0))
                                    .unwrap_or_else(|| "-".into()),
                                c.median_pfs
                                    .map(|m| format!("{m:.2}"))
                                    .unwrap_or_else(|| "NR".into()),
                                c.warnings
                            );
                        }
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                failures.push(path.display().to_string());
            }
        }
    }
    let _ = interactive;
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "{} of {} config(s) failed: {}",
            failures.len(),
            configs.len(),
            failures.join(", ")
        );
        Ok(ExitCode::from(2))
    }
}

fn check_command(configs: &[PathBuf], opts: &BuildOptions) -> Result<ExitCode> {
    let mut failed = false;
    for path in configs {
        let result = config::load(path)
            .and_then(build::load_study)
            .and_then(|study| {
                let plans = build::plan(&study.config, opts);
                let root = build::output_root(&study.config, opts.out.as_deref());
                println!(
                    "{}: study {}, {} subjects in ADSL",
                    path.display(),
                    study.config.config.study.id,
                    study.data.subjects.len()
                );
                for p in &plans {
                    let cut = crate::cut::apply_cutoff(&study.data, p.cutoff)?;
                    println!("  would write {}", root.join(p.folder_name()).display());
                    for &i in &p.cohorts {
                        if let Some(cohort) = study.config.config.cohorts.get(i) {
                            let members = build::cohort_members(cohort, &cut.subjects);
                            println!("    {:<16} {} subjects", cohort.id, members.len());
                        }
                    }
                }
                for w in &study.data.warnings {
                    println!("  warning: {w}");
                }
                Ok(())
            });
        if let Err(e) = result {
            eprintln!("error: {e}");
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
    println!(
        "wrote {} and empty ADaM files in {}; fill in the data, then run: readout check {}",
        config_path.display(),
        data_dir.display(),
        config_path.display()
    );
    Ok(())
}

//! The command line: one file per subcommand (`build`, `check`, `init`, `diff`, `verify`,
//! `lint`). Parses flags (clap), runs the library, prints what it did, and turns errors into
//! one message and exit code 2. This file holds what several commands share.

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

mod build;
mod check;
mod diff;
mod init;
mod lint;
mod verify;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::build::BuildOptions;
use crate::config;
use crate::error::{Error, Result};
use crate::model::Date;
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
    /// medians and CIs, new adverse events. Prints Markdown and writes .md and .html beside them,
    /// and per cohort a Word file of the abstract with tracked changes
    /// (diff-A-to-B-<cohort>.docx: Accept All gives the later abstract).
    Diff {
        /// The earlier cut-off folder.
        #[arg(value_name = "OUT_A")]
        before: PathBuf,
        /// The later cut-off folder.
        #[arg(value_name = "OUT_B")]
        after: PathBuf,
    },
    /// Recompute the SHA-256 of every file listed in a folder's manifest.json and report any
    /// output, input or config that changed since the build, and any file of the folder it
    /// does not list (only regular files are read; links in the folder are not followed).
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
    // A panic is readout's bug, never the user's: say so and what to report (exit 101).
    std::panic::set_hook(Box::new(|info| {
        let message = escape_controls(&info.to_string(), false).into_owned();
        eprintln!(
            "error: a bug in readout: {message}. {}",
            crate::error::REPORT
        );
    }));
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
        } => build::build_command(
            &configs,
            BuildOptions {
                cutoffs: cutoff,
                out,
                strict,
            },
            quiet,
            diff_previous,
        ),
        Command::Diff { before, after } => diff::diff_command(&before, &after),
        Command::Verify { dir } => verify::verify_command(&dir),
        Command::Check { configs, cutoff } => check::check_command(
            &configs,
            &BuildOptions {
                cutoffs: cutoff,
                out: None,
                strict: false,
            },
        ),
        Command::Init { dir } => init::init_command(&dir).map(|()| ExitCode::SUCCESS),
        Command::Lint { files } => lint::lint_command(&files),
    }
}

/// Diagnostics, each once in the order first met, with how often it came when more than
/// once, its hints below it; each line is prefixed with `indent`. Diagnostics go to standard
/// error, apart from the summary on standard output.
fn print_warnings(indent: &str, warnings: &[crate::diagnostic::Diagnostic]) {
    for line in warning_lines(indent, warnings) {
        errln!("{line}");
    }
}

/// The lines [`print_warnings`] prints: `warning: …` or `note: …`, then `= hint: …`.
fn warning_lines(indent: &str, warnings: &[crate::diagnostic::Diagnostic]) -> Vec<String> {
    let mut seen: indexmap::IndexMap<&str, (usize, &crate::diagnostic::Diagnostic)> =
        indexmap::IndexMap::new();
    for w in warnings {
        seen.entry(w.message.as_str()).or_insert((0, w)).0 += 1;
    }
    let mut lines = Vec::new();
    for (text, (times, d)) in seen {
        let what = match d.severity {
            crate::diagnostic::Severity::Warning => "warning",
            crate::diagnostic::Severity::Note => "note",
        };
        lines.push(match times {
            1 => format!("{indent}{what}: {text}"),
            n => format!("{indent}{what}: {text} ({n} times)"),
        });
        lines.extend(d.hints.iter().map(|h| format!("{indent}  = hint: {h}")));
    }
    lines
}

/// The warnings of each folder and cohort built, under a line naming them and their count.
fn print_folder_warnings(folders: &[crate::build::BuiltFolder]) {
    for folder in folders {
        let cutoff = folder
            .cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "no cut-off".into());
        if !folder.notes.is_empty() {
            errln!(
                "{} {cutoff}: {} warning(s)",
                folder.study,
                folder.notes.len()
            );
            print_warnings("  ", &folder.notes);
        }
        for c in folder.cohorts.iter().filter(|c| !c.warnings.is_empty()) {
            errln!(
                "{} {cutoff} {}: {} warning(s)",
                folder.study,
                c.id,
                c.warnings.len()
            );
            print_warnings("  ", &c.warnings);
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
        for plan in crate::build::plan(cfg, opts) {
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
                let folder = plan.folder();
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

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {

    #[test]
    fn warnings_are_listed_once_with_how_often() {
        use crate::diagnostic::{Diagnostic, Kind};
        let w = |t: &str| Diagnostic::warning(Kind::NotEstimable, t);
        let lines = warning_lines("  ", &[w("b"), w("a"), w("b"), w("b")]);
        assert_eq!(lines, ["  warning: b (3 times)", "  warning: a"]);
        let noted = Diagnostic::note(Kind::FigureLeftOut, "c").hint("do d");
        assert_eq!(warning_lines("", &[noted]), ["note: c", "  = hint: do d"]);
    }
    use super::build::{input_bytes, SMALL_PAGES_FROM_BYTES};
    use super::*;

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

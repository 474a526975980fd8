//! The error type of the library: every user-facing failure names the file, the place in it
//! (line/column or config key), the value and what was expected.

/// The characters refused in inputs and the escaping of printed text live with the data's
/// vocabulary (`model::text`); named here too, where messages are made.
pub use crate::model::text::{
    escape_controls, find_refused_control, is_invisible_format, is_refused_control,
    refused_character,
};
use std::path::PathBuf;

/// Result alias used across the pipeline stages.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can stop a build, with enough context to fix the input without a debugger.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The YAML config is malformed or does not match the schema.
    #[error("{file}: {location}{message}")]
    Config {
        /// The config file.
        file: PathBuf,
        /// "line L, column C: " and/or "key `a.b`: " (may be empty).
        location: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A data file is malformed: a bad cell, a missing column, inconsistent rows.
    #[error("{file}: {location}{message}")]
    Data {
        /// The data file.
        file: PathBuf,
        /// "line L, column `NAME`: " (may be empty when the whole file is at fault).
        location: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {action}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What readout was doing ("cannot read", "cannot create folder", ...).
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A template failed to parse or render.
    #[error("template `{template}`: {message}")]
    Template {
        /// Template name (built-in or user file).
        template: String,
        /// Tera's explanation, with its cause chain.
        message: String,
    },
    /// A derivation or analysis cannot proceed on this cohort.
    #[error("cohort `{cohort}`: {message}")]
    Analysis {
        /// The cohort id.
        cohort: String,
        /// What failed.
        message: String,
    },
    /// A subject's derivation failed (its own error names the subject).
    #[error("cohort `{cohort}`: {source}")]
    Derive {
        /// The cohort id.
        cohort: String,
        /// Why.
        #[source]
        source: crate::derive::DeriveError,
    },
    /// A statistic could not be computed from the cohort's data.
    #[error("cohort `{cohort}`: {what}: {source}")]
    Statistics {
        /// The cohort id.
        cohort: String,
        /// Which statistic ("Kaplan–Meier for PFS", "proportion CI", ...).
        what: String,
        /// Why.
        #[source]
        source: crate::stats::StatsError,
    },
    /// A figure could not be drawn (a figure without data is skipped, not an error).
    #[error("{}figure {figure}: {source}", cohort.as_ref().map(|c| format!("cohort `{c}`: ")).unwrap_or_default())]
    Figure {
        /// The cohort id (`None`: a study-level figure).
        cohort: Option<String>,
        /// The figure's file name (`km-pfs.svg`, `figures/km-os.png`, ...).
        figure: String,
        /// Why.
        #[source]
        source: crate::plots::PlotError,
    },
    /// Several problems found together (every config error, not the first only), one per
    /// line.
    #[error("{} problems:\n  {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  "))]
    Several(Vec<Error>),
    /// What cannot happen unless readout has a bug: said so, with what to report.
    #[error("a bug in readout: {0}. {REPORT}")]
    Internal(String),
    /// Any other failure, already phrased for the user.
    #[error("{0}")]
    Other(String),
}

pub use crate::diagnostic::REPORT;

impl Error {
    /// `Ok` without errors, the error alone, or [`Error::Several`].
    pub fn all(errors: Vec<Error>) -> std::result::Result<(), Error> {
        // One flat list: several from a part are several of the whole.
        let mut errors: Vec<Error> = errors
            .into_iter()
            .flat_map(|e| match e {
                Error::Several(inner) => inner,
                e => vec![e],
            })
            .collect();
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(Error::Several(errors)),
        }
    }

    /// A data error at a CSV cell.
    pub fn cell(
        file: impl Into<PathBuf>,
        line: u64,
        column: &str,
        message: impl Into<String>,
    ) -> Error {
        Error::Data {
            file: file.into(),
            location: format!("line {line}, column `{column}`: "),
            message: message.into(),
        }
    }

    /// A data error about a whole file (no single cell to point at).
    pub fn data_file(file: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Data {
            file: file.into(),
            location: String::new(),
            message: message.into(),
        }
    }

    /// The error as printed for a config (the build's and `check`'s error lines): an error
    /// about a file (the config, a data file, a file that cannot be read) names that file
    /// first; any other is put after the config's path, so every line starts with a file.
    pub fn for_config(&self, config: &std::path::Path) -> String {
        match self {
            Error::Config { .. } | Error::Data { .. } | Error::Io { .. } => self.to_string(),
            Error::Several(errors) => format!(
                "{} problems:\n  {}",
                errors.len(),
                errors
                    .iter()
                    .map(|e| e.for_config(config))
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ),
            other => format!("{}: {other}", config.display()),
        }
    }

    /// A cohort's line among the build's failures: the config, the cohort, then the error as
    /// [`Error::within_cohort`] reads.
    pub fn cohort_line(config: &std::path::Path, cohort: &str, within: &str) -> String {
        format!("{}: cohort `{cohort}`: {within}", config.display())
    }

    /// The error as read where the config and the cohort are already named (a cohort's line
    /// among the build's failures, `results.json` → `failures`): neither is said again.
    pub fn within_cohort(&self, config: &std::path::Path, cohort: &str) -> String {
        match self {
            Error::Config {
                file,
                location,
                message,
            } if file == config => format!("{location}{message}"),
            Error::Analysis { cohort: c, message } if c == cohort => message.clone(),
            Error::Derive { cohort: c, source } if c == cohort => source.to_string(),
            Error::Statistics {
                cohort: c,
                what,
                source,
            } if c == cohort => format!("{what}: {source}"),
            Error::Figure {
                cohort: Some(c),
                figure,
                source,
            } if c == cohort => format!("figure {figure}: {source}"),
            other => other.to_string(),
        }
    }

    /// An I/O error with the path and what was being done.
    pub fn io(path: impl Into<PathBuf>, action: &'static str, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bug of readout says so and what to report; several errors are one flat list.
    #[test]
    fn internal_errors_say_they_are_a_bug_and_several_are_listed_flat() {
        let bug = Error::Internal("an output writer thread stopped".to_string()).to_string();
        assert!(
            bug.starts_with("a bug in readout: an output writer thread stopped."),
            "{bug}"
        );
        assert!(bug.contains("please report it") && bug.contains("inputs are not at fault"));
        let derive = crate::derive::DeriveError::Internal("no category").to_string();
        assert!(derive.contains("a bug in readout") && derive.contains("please report it"));
        let one = || Error::Other("x".to_string());
        let Err(Error::Several(all)) = Error::all(vec![one(), Error::Several(vec![one(), one()])])
        else {
            panic!("several")
        };
        assert_eq!(all.len(), 3);
        assert!(Error::all(Vec::new()).is_ok());
    }

    /// The config and the cohort are named once each in a failure line, whatever the error.
    #[test]
    fn a_cohort_failure_names_the_config_and_the_cohort_once() {
        let config = std::path::Path::new("study.yaml");
        let line = |e: Error| Error::cohort_line(config, "all", &e.within_cohort(config, "all"));
        let figure = Error::Figure {
            cohort: Some("all".to_string()),
            figure: "ae-trae".to_string(),
            source: crate::plots::PlotError::InvalidInput("too large".to_string()),
        };
        assert_eq!(
            line(figure),
            "study.yaml: cohort `all`: figure ae-trae: invalid figure input: too large"
        );
        let key = Error::Config {
            file: config.to_path_buf(),
            location: "key `cohorts[1].where.X`: ".to_string(),
            message: "ADSL has no column `X`".to_string(),
        };
        assert_eq!(
            line(key),
            "study.yaml: cohort `all`: key `cohorts[1].where.X`: ADSL has no column `X`"
        );
        let data = Error::cell("adsl.csv", 3, "TRTSDT", "bad date");
        assert_eq!(
            line(data),
            "study.yaml: cohort `all`: adsl.csv: line 3, column `TRTSDT`: bad date"
        );
        let other = Error::Analysis {
            cohort: "allx".to_string(),
            message: "something".to_string(),
        };
        assert_eq!(
            line(other),
            "study.yaml: cohort `all`: cohort `allx`: something"
        );
        let stats = Error::Statistics {
            cohort: "all".to_string(),
            what: "proportion CI".to_string(),
            source: crate::stats::StatsError::InvalidLevel(2.0),
        };
        assert!(
            line(stats).starts_with("study.yaml: cohort `all`: proportion CI: confidence level 2")
        );
        // A config's own error names it once, a data file's error that file.
        let own = Error::Config {
            file: config.to_path_buf(),
            location: "line 2, column 1: ".to_string(),
            message: "unknown field".to_string(),
        };
        assert_eq!(
            own.for_config(config),
            "study.yaml: line 2, column 1: unknown field"
        );
        assert_eq!(
            Error::data_file("adsl.csv", "empty").for_config(config),
            "adsl.csv: empty"
        );
        assert_eq!(
            Error::Other("no conference".to_string()).for_config(config),
            "study.yaml: no conference"
        );
    }
}

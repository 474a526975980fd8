//! The error type of the library: every user-facing failure names the file, the place in it
//! (line/column or config key), the value and what was expected.

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
    /// Any other failure, already phrased for the user.
    #[error("{0}")]
    Other(String),
}

impl Error {
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

    /// An I/O error with the path and what was being done.
    pub fn io(path: impl Into<PathBuf>, action: &'static str, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }
}

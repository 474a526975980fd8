//! A config file read: its size checked, its nesting checked before the parser reads it,
//! parsed by serde_yaml (only here), then checked ([`super::check`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::analysis::*;
use super::check::{config_error, validate};
use super::nesting::{self, MAX_YAML_DEPTH};
use super::schema::*;

/// Largest config file accepted; a study config is a few kilobytes.
const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// A config read from disk, with the paths resolved against its folder.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The config file as given.
    pub path: PathBuf,
    /// The raw bytes (hashed into the manifest).
    pub bytes: Vec<u8>,
    /// The parsed config.
    pub config: StudyConfig,
}

impl LoadedConfig {
    /// Folder the relative paths of the config start from.
    pub fn base_dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Absolute-or-relative path of a data file named in `data:`.
    pub fn data_path(&self, file: &Path) -> PathBuf {
        let mut base = self.base_dir();
        if let Some(dir) = &self.config.data.dir {
            base = base.join(dir);
        }
        base.join(file)
    }

    /// Output folder, from `--out` or `output.dir`.
    pub fn output_dir(&self, out_override: Option<&Path>) -> PathBuf {
        match out_override {
            Some(dir) => dir.to_path_buf(),
            None => self.base_dir().join(&self.config.output.dir),
        }
    }

    /// Study-level analysis settings resolved for one cohort.
    pub fn analysis_for(&self, cohort: &CohortConfig) -> Analysis {
        cohort.analysis.resolve(&self.config.analysis)
    }

    /// The ADSL columns of `analysis.censor_at_new_therapy` (study level, then each cohort's),
    /// each with the key that names it.
    pub fn new_therapy_columns(&self) -> Vec<(String, String)> {
        let at = |key: String, a: &AnalysisConfig| {
            a.censor_at_new_therapy.as_ref().map(|n| {
                (
                    format!("{key}.censor_at_new_therapy.column"),
                    n.column.clone(),
                )
            })
        };
        at("analysis".to_string(), &self.config.analysis)
            .into_iter()
            .chain(
                self.config
                    .cohorts
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| at(format!("cohorts[{i}].analysis"), &c.analysis)),
            )
            .collect()
    }
}

/// Reads, parses and checks one config file.
pub fn load(path: &Path) -> Result<LoadedConfig> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read config", e))?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(config_error(
            path,
            "",
            format!(
                "the file is {} bytes; a study config is expected to be under {MAX_CONFIG_BYTES}",
                meta.len()
            ),
        ));
    }
    let bytes = crate::files::read(path, MAX_CONFIG_BYTES)
        .map_err(|e| Error::io(path, "cannot read config", e))?
        .ok_or_else(|| {
            config_error(
                path,
                "",
                format!("the file grew past {MAX_CONFIG_BYTES} bytes while it was read"),
            )
        })?;
    let config = parse(path, &bytes)?;
    Ok(LoadedConfig {
        path: path.to_path_buf(),
        bytes,
        config,
    })
}

/// Parses config text (`path` only names it in errors) and checks it.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<StudyConfig> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        config_error(
            path,
            "",
            format!(
                "not valid UTF-8 (byte {}); save the config as UTF-8",
                e.valid_up_to()
            ),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(line) = nesting::too_deep(text) {
        return Err(config_error(
            path,
            &format!("line {line}: "),
            format!(
                "the YAML is nested more than {MAX_YAML_DEPTH} levels deep; a study config \
                 needs fewer than ten"
            ),
        ));
    }
    let deserializer = serde_yaml::Deserializer::from_str(text);
    let config: StudyConfig = serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let location = match inner.location() {
            Some(loc) => format!("line {}, column {}: ", loc.line(), loc.column()),
            None => String::new(),
        };
        // A syntax error deep in a value ends the path in `?` segments (no key was read yet).
        let key = key.trim_end_matches(".?");
        let key_part = if key.is_empty() || key == "." || key == "?" {
            String::new()
        } else {
            format!("key `{key}`: ")
        };
        let message = plain_yaml_message(&strip_yaml_location(&inner.to_string()));
        config_error(path, &format!("{location}{key_part}"), message)
    })?;
    validate(path, &config)?;
    Ok(config)
}

/// serde_yaml appends " at line L column C" to its messages; the location is printed once.
/// A syntax error may go on with its context (", while parsing a flow mapping at line 8 column
/// 12"), which is kept. serde_yaml also starts some messages with the key path (`analysis:
/// unknown field`), which the key part already says.
fn strip_yaml_location(message: &str) -> String {
    let owned;
    let message = match message.find(" at line ") {
        Some(i) => {
            let rest = message.get(i..).unwrap_or("");
            owned = match rest.find(", ") {
                Some(j) => format!(
                    "{}{}",
                    message.get(..i).unwrap_or(""),
                    rest.get(j..).unwrap_or("")
                ),
                None => message.get(..i).unwrap_or("").to_string(),
            };
            owned.as_str()
        }
        None => message,
    };
    match message.split_once(": ") {
        Some((path, rest))
            if !path.is_empty()
                && path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']')) =>
        {
            rest.to_string()
        }
        _ => message.to_string(),
    }
}

/// The nearest of `known` to `given` when it is near enough to be a slip of the keyboard: at
/// most a third of its letters (and at least one) changed, added or left out, ignoring case.
pub(crate) fn nearest<'a>(
    given: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    let limit = (given.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (edit_distance(&given, &k.to_ascii_lowercase()), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let value = (above + 1)
                .min(left + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (or variant) with the nearest named.
fn did_you_mean(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (given, rest) = rest.split_once('`')?;
    let list = rest.split_once("expected one of ")?.1;
    let known = list.split(", ").map(|k| k.trim_matches('`'));
    nearest(given, known).map(|k| format!("{message}; did you mean `{k}`?"))
}

/// Rust type names and serde_yaml's limits in words a config author knows.
fn plain_yaml_message(message: &str) -> String {
    if let Some(with) = did_you_mean(message) {
        return with;
    }
    if message.starts_with("repetition limit exceeded") {
        return "YAML aliases (`*name`) expand to too many values (repetition limit exceeded); \
                expected a config that repeats at most a few anchors"
            .to_string();
    }
    if message.starts_with("recursion limit exceeded") {
        return "the YAML is nested too deeply (recursion limit exceeded); expected a study config"
            .to_string();
    }
    // A whole number too large for the key's type: serde says "invalid type", which reads as
    // if it were not a whole number.
    for (rust, range) in [
        (
            "expected i64",
            "−9223372036854775808 to 9223372036854775807",
        ),
        ("expected u64", "0 to 18446744073709551615"),
        ("expected usize", "0 to 18446744073709551615"),
        ("expected u32", "0 to 4294967295"),
    ] {
        let big = message
            .strip_prefix("invalid type: integer `")
            .or_else(|| message.strip_prefix("invalid value: integer `"))
            .and_then(|m| m.strip_suffix(&format!("`, {rust}")));
        if let Some(n) = big {
            return format!("{n} is out of range; expected a whole number from {range}");
        }
    }
    let mut out = message.to_string();
    for (rust, words) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected usize", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        if out.ends_with(rust) {
            out.truncate(out.len() - rust.len());
            out.push_str(words);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_named() {
        assert_eq!(
            nearest("km_cl", ["km_ci", "ci_level", "time_unit"]),
            Some("km_ci")
        );
        assert_eq!(
            nearest("Followup", ["followup", "ci_level"]),
            Some("followup")
        );
        assert_eq!(nearest("zzzz", ["followup", "ci_level"]), None);
        assert_eq!(
            did_you_mean(
                "unknown field `confirmation_day`, expected one of `time_unit`, `confirmation_days`"
            )
            .as_deref(),
            Some(
                "unknown field `confirmation_day`, expected one of `time_unit`, \
                 `confirmation_days`; did you mean `confirmation_days`?"
            )
        );
        assert_eq!(
            did_you_mean("unknown field `qqq`, expected one of `a`"),
            None
        );
    }
}

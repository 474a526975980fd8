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
        let mut a = cohort.analysis.resolve(&self.config.analysis);
        // A randomised cohort is analysed from randomisation unless the config says otherwise.
        if !a.origin_given && cohort.arms.is_some() {
            a.origin = Origin::Randomisation;
        }
        a
    }

    /// The ADSL date columns derived PFS and OS start from other than TRTSDT (`RANDDT` for a
    /// randomised cohort, or `analysis.origin`'s column), each with the key that names it
    /// (study level, else the cohort's).
    pub fn origin_columns(&self) -> Vec<(String, String)> {
        let mut columns: Vec<(String, String)> = Vec::new();
        for (i, cohort) in self.config.cohorts.iter().enumerate() {
            let a = self.analysis_for(cohort);
            let column = a.origin.column();
            if column == "TRTSDT" || columns.iter().any(|(_, c)| c == column) {
                continue;
            }
            let key = if cohort.analysis.origin.is_some() {
                format!("cohorts[{i}].analysis.origin")
            } else {
                "analysis.origin".to_string()
            };
            columns.push((key, column.to_string()));
        }
        columns
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
    // After a problem, its key is blanked out of the text and the config read again, so that
    // every problem is reported together; a problem that blanking could have caused, or one
    // already said, ends it. YAML that does not parse gives its first problem only (asked
    // only once a problem is found).
    let well_formed = || serde_yaml::from_str::<serde_yaml::Value>(text).is_ok();
    let mut text = text.to_string();
    let mut errors = Vec::new();
    let mut blanked: Vec<String> = Vec::new();
    let mut suggested: Vec<(String, String)> = Vec::new();
    // List items blanked out, whose later siblings' indices moved down by one.
    let mut removed: Vec<(String, usize)> = Vec::new();
    let config = loop {
        match deserialize(&text) {
            Ok(config) => break Some(config),
            Err(problem) => {
                if !errors.is_empty()
                    && (problem.may_follow_from(&blanked) || problem.was_suggested(&suggested))
                {
                    break None;
                }
                let key = problem.key.clone();
                let place = problem.place;
                if let Some(name) = problem.suggestion() {
                    let parent = key.rsplit_once('.').map_or("", |(p, _)| p).to_string();
                    suggested.push((parent, name.to_string()));
                }
                errors.push(problem.error(path, &key_before_removals(&key, &removed)));
                if errors.len() >= MAX_PROBLEMS || (errors.len() == 1 && !well_formed()) {
                    break None;
                }
                match place.and_then(|p| blank_key(&text, p, &key)) {
                    Some(rest)
                        if rest != text
                            && serde_yaml::from_str::<serde_yaml::Value>(&rest).is_ok() =>
                    {
                        blanked.push(last_segment(&key).to_string());
                        if let Some((list, index)) = list_item(&key) {
                            removed.push((list.to_string(), index));
                        }
                        text = rest;
                    }
                    _ => break None,
                }
            }
        }
    };
    // The checks of the values read (a blanked key is absent there, not wrong), with the rest.
    if let Some(config) = &config {
        if let Err(e) = validate(path, config) {
            errors.push(e);
        }
    }
    Error::all(errors)?;
    config.ok_or_else(|| {
        Error::Internal(format!(
            "{}: the config could not be read, yet no problem was found",
            path.display()
        ))
    })
}

/// Most problems one config reports.
const MAX_PROBLEMS: usize = 20;

/// A problem serde found in a config text: its key path, place and message.
struct Problem {
    key: String,
    /// 1-based line and column.
    place: Option<(usize, usize)>,
    message: String,
}

impl Problem {
    /// Whether blanking keys named `blanked` out of the text could have made this problem:
    /// a key missing, a value left empty, or a syntax error.
    fn may_follow_from(&self, blanked: &[String]) -> bool {
        self.key.is_empty()
            || self
                .missing()
                .is_some_and(|m| blanked.iter().any(|b| b == m))
            || self.message.contains("invalid type: unit")
            || self.message.contains("invalid type: null")
    }

    /// The key serde found missing, when that is the problem.
    fn missing(&self) -> Option<&str> {
        self.message
            .strip_prefix("missing field `")
            .and_then(|m| m.split('`').next())
    }

    /// The key a "did you mean" of this problem names.
    fn suggestion(&self) -> Option<&str> {
        let (_, rest) = self.message.rsplit_once("; did you mean `")?;
        rest.strip_suffix("`?")
    }

    /// Whether this is a key found missing where an earlier problem (at `suggested`: parent
    /// path and key) already asked whether it was meant: the misspelling said it.
    fn was_suggested(&self, suggested: &[(String, String)]) -> bool {
        self.missing()
            .is_some_and(|m| suggested.iter().any(|(p, k)| *p == self.key && k == m))
    }
}

/// The config of `text`, or its first problem.
fn deserialize(text: &str) -> std::result::Result<StudyConfig, Box<Problem>> {
    let deserializer = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        // A syntax error deep in a value ends the path in `?` segments (no key was read yet).
        let key = key.trim_end_matches(".?");
        let key = if key == "." || key == "?" { "" } else { key };
        let message = strip_yaml_location(&inner.to_string());
        // serde_yaml starts a nested value's message with its path, which the key part says;
        // the path may hold any characters (an arm's value as a key).
        let parent = key.rsplit_once('.').map_or("", |(p, _)| p);
        let message = match message
            .strip_prefix(parent)
            .and_then(|m| m.strip_prefix(": "))
        {
            Some(rest) if !parent.is_empty() => rest.to_string(),
            _ => message,
        };
        let message = plain_yaml_message(&message);
        Box::new(Problem {
            key: key.to_string(),
            place: inner.location().map(|l| (l.line(), l.column())),
            message,
        })
    })
}

impl Problem {
    /// The error as reported, naming the key as `key` (the problem's key in the text as first
    /// written, before any list item was blanked out of it).
    fn error(&self, path: &Path, key: &str) -> Error {
        let location = match self.place {
            Some((line, column)) => format!("line {line}, column {column}: "),
            None => String::new(),
        };
        let key_part = if key.is_empty() {
            String::new()
        } else {
            format!("key `{key}`: ")
        };
        config_error(path, &format!("{location}{key_part}"), self.message.clone())
    }
}

/// `key` as in the text before the list items `removed` (list path and index, in the order
/// they were blanked, each in the text of its time) were blanked out: an index at or after a
/// removed item's moves up by one, the latest removal first.
fn key_before_removals(key: &str, removed: &[(String, usize)]) -> String {
    let mut key = key.to_string();
    for (list, index) in removed.iter().rev() {
        let Some(rest) = key
            .strip_prefix(list.as_str())
            .and_then(|r| r.strip_prefix('['))
        else {
            continue;
        };
        let Some((n, tail)) = rest.split_once(']') else {
            continue;
        };
        if let Ok(k) = n.parse::<usize>() {
            if k >= *index {
                key = format!("{list}[{}]{tail}", k + 1);
            }
        }
    }
    key
}

/// The list and index of a key naming a list item (`output.formats[1]` → (`output.formats`,
/// 1)).
fn list_item(key: &str) -> Option<(&str, usize)> {
    let (list, index) = key.strip_suffix(']')?.rsplit_once('[')?;
    Some((list, index.parse().ok()?))
}

/// The last key of a path (`cohorts[0].arms.reference` → `reference`, `formats[1]` →
/// `formats`).
fn last_segment(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.split('[').next().unwrap_or(last)
}

/// `text` with the key of `path` written at 1-based `line` and `column` blanked out with its
/// value: in block style with its block (the lines after it indented deeper than the key), in
/// a flow mapping (`{ a: 1, b: 2 }`) up to the next comma or closing brace. `None` when the
/// key cannot be found there (a list item of its own), which is left as it is.
fn blank_key(text: &str, (line, column): (usize, usize), path: &str) -> Option<String> {
    if list_item(path).is_some() {
        return blank_item(text, (line, column));
    }
    let key = last_segment(path);
    if key.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines.get(line.checked_sub(1)?)?.clone();
    let blank = |l: &str| " ".repeat(l.chars().count());
    let names = |rest: &str| {
        rest.contains(':')
            && rest
                .split(':')
                .next()
                .map(|k| k.trim().trim_matches(['"', '\'']))
                == Some(key)
    };
    // Block style: the key first on its line, after the indentation and any `- ` of list items.
    let mut start = at.len() - at.trim_start().len();
    while at.get(start..)?.starts_with("- ") {
        start += 2;
        start += at.get(start..)?.len() - at.get(start..)?.trim_start().len();
    }
    let rest = at.get(start..)?;
    if names(rest) {
        return blank_block(lines, line, start);
    }
    // Flow style: the nearest `key:` at or before the column (a key, or its value, is there),
    // after `{`, `,` or a blank; blanked to the comma or bracket that ends its value.
    let upto = at
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(at.len(), |(i, _)| i);
    let from = at
        .get(..upto.saturating_add(key.len()).min(at.len()))?
        .match_indices(key)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = at.get(..i).and_then(|b| b.trim_end().chars().last());
            matches!(before, Some('{' | ',')) && names(at.get(i..).unwrap_or(""))
        })
        .last()?;
    let end = flow_end(&at, from).unwrap_or(at.len());
    let line_text = at.get(..from)?.to_string() + &blank(at.get(from..end)?) + at.get(end..)?;
    *lines.get_mut(line - 1)? = line_text;
    Some(lines.join("\n") + "\n")
}

/// `lines` joined, with line `line` (1-based) blanked from byte `start` and the lines after
/// it indented deeper than `start` (comments and empty lines among them) blanked whole.
fn blank_block(mut lines: Vec<String>, line: usize, start: usize) -> Option<String> {
    let blank = |l: &str| " ".repeat(l.chars().count());
    let at = lines.get_mut(line.checked_sub(1)?)?;
    *at = at.get(..start)?.to_string() + &blank(at.get(start..)?);
    for l in lines.iter_mut().skip(line) {
        let indent = l.len() - l.trim_start().len();
        let comment_or_empty = l.trim().is_empty() || l.trim_start().starts_with('#');
        if !comment_or_empty && indent <= start {
            break;
        }
        *l = blank(l);
    }
    Some(lines.join("\n") + "\n")
}

/// Where the flow value starting at byte `from` of `at` ends: after the comma that ends it,
/// or at the bracket that closes its collection; `None` when neither is on the line.
fn flow_end(at: &str, from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in at.get(from..)?.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') if depth == 0 => return Some(from + i),
            (None, '}' | ']') => depth -= 1,
            (None, ',') if depth == 0 => return Some(from + i + 1),
            _ => {}
        }
    }
    None
}

/// `text` without the list item whose value starts at (`line`, `column`): in block style its
/// `- ` line and the lines indented deeper, in a flow list (`[a, b]`) the item and the comma
/// after it. `None` when no item starts there.
fn blank_item(text: &str, (line, column): (usize, usize)) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines.get(line.checked_sub(1)?)?.clone();
    let blank = |l: &str| " ".repeat(l.chars().count());
    let from = at
        .char_indices()
        .nth(column.checked_sub(1)?)
        .map(|(i, _)| i)?;
    let before = at.get(..from)?.trim_end();
    if before.ends_with('-') && before.trim_start().chars().all(|c| c == '-' || c == ' ') {
        // Block style: from the dash of this item (the last `- ` before the value).
        return blank_block(lines, line, before.len() - 1);
    }
    if !matches!(before.chars().last(), Some('[' | ',')) {
        return None;
    }
    // Flow style: the item up to the comma or bracket that ends it (the comma too).
    let end = flow_end(&at, from)?;
    *lines.get_mut(line - 1)? =
        at.get(..from)?.to_string() + &blank(at.get(from..end)?) + at.get(end..)?;
    Some(lines.join("\n") + "\n")
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

/// Edit distance in characters, two neighbours swapped counting as one edit (`lable` is one
/// slip from `label`): the optimal string alignment distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for a swap), the previous and the current.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let substitution = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + substitution);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two_back[j - 2] + 1);
            }
            current[j] = d;
        }
        std::mem::swap(&mut two_back, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (or variant) with the nearest named.
fn did_you_mean(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (given, rest) = rest.split_once('`')?;
    // serde lists three or more as "expected one of `a`, `b`, `c`", two as "expected `a` or
    // `b`", one as "expected `a`".
    let list = rest
        .split_once("expected one of ")
        .or_else(|| rest.split_once("expected "))?
        .1;
    let known = list
        .split(", ")
        .flat_map(|k| k.split(" or "))
        .map(|k| k.trim_matches('`'));
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
    // serde names a struct by its Rust type ("expected struct PosterConfig"); a config
    // author knows it as a mapping of keys.
    if let Some(at) = out.rfind("expected struct ") {
        let name = &out[at + "expected struct ".len()..];
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()) {
            out.truncate(at);
            out.push_str("expected a mapping of keys (`key: value` lines, or `{ key: value }`)");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_is_named_a_mapping() {
        assert_eq!(
            plain_yaml_message("invalid type: integer `5`, expected struct PosterConfig"),
            "invalid type: integer `5`, expected a mapping of keys (`key: value` lines, or \
             `{ key: value }`)"
        );
    }

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

    /// `text` gives several problems, each containing its `expected` text, in that order.
    fn assert_problems(text: &str, expected: &[&str]) {
        let e = parse(Path::new("c.yaml"), text.as_bytes()).unwrap_err();
        let Error::Several(all) = e else {
            panic!("one problem: {e}")
        };
        let said: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), expected.len(), "{said:#?}");
        for (s, e) in said.iter().zip(expected) {
            assert!(s.contains(e), "{s} lacks {e}");
        }
    }

    /// Every key serde refuses is reported, in block and flow style, with the checks of the
    /// values read; a key blanked out does not report itself again as missing.
    #[test]
    fn every_problem_of_a_config_is_reported() {
        let text =
            "study: { id: X }\ndata:\n  adsl: a.csv\n  adrx: b.csv\ncohorts:\n  - id: a\n    \
                    labl: A\n  - id: b\n    arms: { column: ARM, reference: P, colour: red }\n\
                    analysis:\n  ci_level: 1.5\n  time_unit: monthz\n";
        assert_problems(
            text,
            &[
                "line 4, column 3: key `data.adrx`",
                "line 7, column 5: key `cohorts[0].labl`",
                "line 9, column 40: key `cohorts[1].arms.colour`",
                "line 12, column 14: key `analysis.time_unit`",
                "key `analysis.ci_level`: 1.5",
            ],
        );
        // A required key refused is not reported missing after it is blanked out.
        let e = parse(Path::new("c.yaml"), b"study: [1]\ncohorts: []\nextra: 1\n").unwrap_err();
        let said = e.to_string();
        assert!(
            said.contains("key `study`") && !said.contains("missing field"),
            "{said}"
        );
    }

    /// A list item refused is blanked out like a key, and the items after it keep the
    /// indices of the text as written: in block and flow lists, and in a list of cohorts.
    #[test]
    fn problems_after_a_refused_list_item_keep_their_indices() {
        let text = "study: { id: X }\ndata:\n  adsl: a.csv\ncohorts:\n  - id: a\n  - [1]\n  \
                    - id: c\n    labl: C\nanalysis:\n  landmarks:\n    - six\n    - 12\n    \
                    - twelve\noutput:\n  formats: [md, htm, pptz, png]\n  formatz: 1\n";
        assert_problems(
            text,
            &[
                "line 6, column 5: key `cohorts[1]`",
                "line 8, column 5: key `cohorts[2].labl`",
                "line 11, column 7: key `analysis.landmarks[0]`: invalid type: string \"six\"",
                "line 13, column 7: key `analysis.landmarks[2]`: invalid type: string \"twelve\"",
                "line 15, column 17: key `output.formats[1]`: unknown variant `htm`",
                "line 15, column 22: key `output.formats[2]`: unknown variant `pptz`",
                "line 16, column 3: key `output.formatz`",
            ],
        );
        assert_eq!(
            key_before_removals("a[1].b", &[("a".into(), 0), ("a".into(), 1)]),
            "a[3].b"
        );
        assert_eq!(key_before_removals("a[0]", &[("a".into(), 1)]), "a[0]");
    }

    #[test]
    fn a_key_is_blanked_with_its_block_or_its_flow_value() {
        let text = "a:\n  b: 1\n  c:\n    - x\n    - y\n  d: 2\n";
        assert_eq!(
            blank_key(text, (3, 3), "a.c").unwrap(),
            "a:\n  b: 1\n    \n       \n       \n  d: 2\n"
        );
        let text = "a: { b: [1, 2], c: \"x, }\", d: 3 }\n";
        assert_eq!(
            blank_key(text, (1, 17), "a.c").unwrap(),
            "a: { b: [1, 2],            d: 3 }\n"
        );
        assert_eq!(
            blank_key(text, (1, 6), "a.b").unwrap(),
            "a: {            c: \"x, }\", d: 3 }\n"
        );
        // A list item goes with its dash and deeper lines, or in a flow list with its comma.
        assert_eq!(
            blank_key("a:\n  - x\n  - y:\n      1\nb: 2\n", (3, 5), "a[1]").unwrap(),
            "a:\n  - x\n      \n       \nb: 2\n"
        );
        assert_eq!(
            blank_key("a: [x, \"y, ]\", z]\n", (1, 8), "a[1]").unwrap(),
            "a: [x,         z]\n"
        );
        assert_eq!(
            blank_key("a: [x, y]\n", (1, 8), "a[1]").unwrap(),
            "a: [x,  ]\n"
        );
        // Not where an item starts.
        assert_eq!(blank_key("a: [x, y]\n", (1, 9), "a[1]"), None);
    }
}

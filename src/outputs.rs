//! What a build writes besides documents and figures, as typed serde structs: `results.json`
//! (written by the build, read back by `diff`), `manifest.json` (written by the build, read
//! by `verify`), the derived CSVs. The
//! contract is docs/OUTPUTS.md, results.json's JSON Schema docs/results.schema.json.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::conference::AbstractLength;
use crate::derive::DerivedSubject;
use crate::endpoints::{self, CohortResults, Members, TteValue};
use crate::error::{Error, Result};
use crate::model::{Date, Subject};

/// `results.json`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StudyResults<'a> {
    /// Study identity.
    pub study: StudyHeader<'a>,
    /// The cut-off of this folder.
    pub cutoff: Option<Date>,
    /// Time unit of the study-level settings (cohorts may override; each TTE is in its cohort's).
    pub time_unit: &'static str,
    /// The readout version that computed the numbers.
    pub readout_version: &'static str,
    /// One entry per cohort.
    pub cohorts: Vec<&'a CohortRecord>,
    /// Non-fatal data problems found while loading.
    pub warnings: &'a [String],
    /// Cohorts that could not be built at this cut-off.
    pub failures: &'a [CohortFailure],
}

/// `results.json` → `study`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct StudyHeader<'a> {
    /// `study.id`
    pub id: &'a str,
    /// `study.registry_id`
    pub registry_id: Option<&'a str>,
    /// `study.title`
    pub title: Option<&'a str>,
}

/// `results.json` → `cohorts[]`: a cohort's results as its documents were rendered from them,
/// and the length of its abstract (known once the abstract is rendered).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CohortRecord {
    /// The cohort's numbers and warnings.
    #[serde(flatten)]
    pub results: CohortResults,
    /// Length of the abstract (`abstract.txt`) under `output.conference`; `null` without one.
    #[serde(default)]
    pub abstract_length: Option<AbstractLength>,
}

/// A cohort that could not be built, and why.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CohortFailure {
    /// Cohort id.
    pub cohort: String,
    /// The error as the build prints it after the config and the cohort (neither repeated).
    pub error: String,
}

/// A file in `manifest.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Relative path.
    pub path: String,
    /// Hex SHA-256.
    pub sha256: String,
}

/// `manifest.json` (`docs/OUTPUTS.md`): written by the build, read by `readout verify`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// The readout that wrote it.
    pub readout_version: String,
    /// `this folder`: the config and input paths start at the manifest's folder. Absent in
    /// older manifests, whose paths start where the build ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths_relative_to: Option<String>,
    /// The config file.
    pub config: ManifestEntry,
    /// The data files read.
    pub inputs: Vec<ManifestEntry>,
    /// The files of the folder, paths inside it.
    pub outputs: Vec<ManifestEntry>,
}

/// A value as `results.json` and `manifest.json` are written: pretty, ending in a line end.
pub fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::Other(format!("cannot serialise results: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// What a cohort's `derived/<cohort>.csv` is written from: its members and their derivations.
pub struct DerivedRows<'a> {
    /// The cohort's subjects (positions in the cut study's subjects), one row each.
    pub members: Members<'a>,
    /// Derivations per member, same order (empty without ADRS).
    pub derived: Vec<DerivedSubject>,
    /// Per endpoint of `endpoints`, per member: time and CNSR flag, if any.
    pub derived_tte: Vec<Vec<TteValue>>,
    /// The cohort's `tte_params` (PARAMCD → label), in order: two columns each.
    pub endpoints: indexmap::IndexMap<String, String>,
    /// A cohort with arms: the ADSL column of the arms, written last as `ARM`.
    pub arm_column: Option<String>,
}

impl DerivedRows<'_> {
    /// `derived/<cohort>.csv`: one row per subject with the derived values (docs/OUTPUTS.md),
    /// quoted as the `csv` crate would (only fields with a comma, quote or line end). Written
    /// field by field into a buffer, given to `write` each [`DERIVED_PIECE`] bytes, so a cohort
    /// of millions is never one buffer.
    pub fn write_csv(
        &self,
        subjects: &[Subject],
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let endpoints = &self.endpoints;
        let mut out = Vec::with_capacity(DERIVED_PIECE + 4096);
        let mut header = vec!["USUBJID".to_string(), "BOR".to_string()];
        for e in endpoints.keys() {
            header.push(format!("{e}_AVAL"));
            header.push(format!("{e}_CNSR"));
        }
        header.extend(["BOR_DATE", "BOR_REASON", "EFFFL"].map(String::from));
        if self.arm_column.is_some() {
            header.push("ARM".to_string());
        }
        for (i, name) in header.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            csv_field(&mut out, name);
        }
        out.push(b'\n');
        let mut number = String::new();
        let mut formatted: FxHashMap<u64, Box<str>> = FxHashMap::default();
        for (i, &member) in self.members.iter().enumerate() {
            let subject = subjects.get(member as usize);
            let bor = self.derived.get(i).map(|d| &d.bor);
            csv_field(&mut out, subject.map_or("", |s| &*s.usubjid));
            out.push(b',');
            csv_field(
                &mut out,
                bor.map(|b| endpoints::bor_category(b.bor))
                    .unwrap_or_default(),
            );
            for (k, _) in endpoints.keys().enumerate() {
                let value = self
                    .derived_tte
                    .get(k)
                    .and_then(|column| column.get(i))
                    .and_then(|value| value.get());
                match value {
                    Some((aval, censored)) => {
                        // Times are whole days over a unit: a cohort has a few thousand distinct
                        // values, each formatted once (formatting is the CSV's largest cost).
                        let text = formatted.entry(aval.to_bits()).or_insert_with(|| {
                            number.clear();
                            let _ = write!(number, ",{aval},");
                            number.as_str().into()
                        });
                        out.extend_from_slice(text.as_bytes());
                        out.push(if censored { b'1' } else { b'0' });
                    }
                    None => out.extend_from_slice(b",,"),
                }
            }
            out.push(b',');
            if let Some(d) = bor.and_then(|b| b.date) {
                number.clear();
                let _ = write!(number, "{d}");
                out.extend_from_slice(number.as_bytes());
            }
            out.push(b',');
            csv_field(&mut out, bor.map_or("", |b| b.reason.as_str()));
            let efficacy = subject.is_some_and(|s| s.efficacy);
            out.extend_from_slice(if efficacy { b",Y" } else { b",N" });
            if let Some(column) = &self.arm_column {
                out.push(b',');
                csv_field(
                    &mut out,
                    subject.and_then(|s| s.columns.get(column)).unwrap_or(""),
                );
            }
            out.push(b'\n');
            if out.len() >= DERIVED_PIECE {
                write(&out)?;
                out.clear();
            }
        }
        write(&out)
    }
}

/// Bytes of the derived CSV given to the file at a time.
const DERIVED_PIECE: usize = 1 << 20;

/// Appends a CSV field, in quotes (with quotes doubled) when it holds a comma, a quote or a
/// line end.
fn csv_field(out: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.push(b'"');
        for b in text.bytes() {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// `docs/results.schema.json` is the JSON Schema of results.json as the types write it;
    /// `READOUT_BLESS=1` rewrites it after a change to the types.
    #[test]
    fn the_results_schema_in_docs_is_current() {
        let schema = schemars::schema_for!(StudyResults<'static>);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results.schema.json");
        if std::env::var_os("READOUT_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/results.schema.json is not the schema of the results types; review the \
             change and rewrite it with READOUT_BLESS=1 cargo test --release --lib schema"
        );
    }
}

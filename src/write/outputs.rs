//! What a build writes besides documents and figures, as typed serde structs: `results.json`
//! (written by the build, read back by `diff`), `manifest.json` (written by the build, read
//! by `verify`), the derived CSVs and their Dataset-JSON copies (with the metadata types the
//! Dataset-JSON reader reads). The
//! contract is docs/OUTPUTS.md, results.json's JSON Schema docs/results.schema.json.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::derive::DerivedSubject;
use crate::endpoints::{Members, TteValue};
use crate::error::{Error, Result};
use crate::model::{Date, Subject};

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
        .map_err(|e| Error::Internal(format!("cannot serialise results: {e}")))?;
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
    /// The times were derived from ADRS (no ADTTE): a third column per derived endpoint says
    /// which rule made each one (`<E>_EVNTDESC`).
    pub derived_times: bool,
    /// A cohort with arms: the ADSL column of the arms, written last as `ARM`.
    pub arm_column: Option<String>,
    /// The cohort's response criteria, whose codes the BOR column holds.
    pub criteria: std::sync::Arc<crate::criteria::Criteria>,
    /// The ADSL flag of the efficacy population, the name of its column (`ITTFL`; `EFFFL`
    /// when ADSL has none and every subject is in it).
    pub efficacy_flag: String,
}

impl DerivedRows<'_> {
    /// Member `i`'s time and censoring for the `k`-th endpoint, if it has one.
    fn tte_value(&self, k: usize, i: usize) -> Option<(f64, bool)> {
        self.derived_tte
            .get(k)
            .and_then(|column| column.get(i))
            .and_then(|value| value.get())
    }

    /// `derived/<cohort>.csv`: one row per subject with the derived values (docs/OUTPUTS.md),
    /// quoted as the `csv` crate would (only fields with a comma, quote or line end). Rows are
    /// formatted in batches of [`DERIVED_BATCH`] in parallel, a few batches at a time, and given
    /// to `write` in order: a cohort of millions is never one buffer.
    pub fn write_csv(
        &self,
        subjects: &[Subject],
        write: &mut (dyn FnMut(&[u8]) -> Result<()> + Send),
    ) -> Result<()> {
        use rayon::prelude::*;
        let mut out = Vec::new();
        for (i, field) in self.fields().iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            csv_field(&mut out, &field.name());
        }
        out.push(b'\n');
        write(&out)?;
        let n = self.members.len();
        let group = DERIVED_BATCH * rayon::current_num_threads().max(1) * 2;
        let format = |start: usize| -> Vec<Vec<u8>> {
            let end = (start + group).min(n);
            (start..end)
                .step_by(DERIVED_BATCH)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|from| self.csv_rows(subjects, from..(from + DERIVED_BATCH).min(end)))
                .collect()
        };
        // Each group written (and hashed by the sink) while the next is formatted.
        let mut pending: Vec<Vec<u8>> = Vec::new();
        for start in (0..n).step_by(group) {
            let (written, next) = rayon::join(
                || pending.iter().try_for_each(|piece| write(piece)),
                || format(start),
            );
            written?;
            pending = next;
        }
        pending.iter().try_for_each(|piece| write(piece))
    }

    /// The CSV rows of members `rows` (positions in the cohort), in order.
    fn csv_rows(&self, subjects: &[Subject], rows: std::ops::Range<usize>) -> Vec<u8> {
        let endpoints = &self.endpoints;
        let mut out = Vec::with_capacity(rows.len() * 64);
        let mut number = String::new();
        // Times are whole days over a unit: a cohort has a few thousand distinct values, each
        // formatted once (formatting is the CSV's largest cost).
        let mut formatted: FxHashMap<u64, Box<str>> = FxHashMap::default();
        for i in rows {
            let Some(&member) = self.members.get(i) else {
                break;
            };
            let subject = subjects.get(member as usize);
            let derived = self.derived.get(i);
            let bor = derived.map(|d| &d.bor);
            csv_field(&mut out, subject.map_or("", |s| &*s.usubjid));
            out.push(b',');
            csv_field(
                &mut out,
                derived
                    .map(|d| self.criteria.code_of(d.category))
                    .unwrap_or_default(),
            );
            for (k, _) in endpoints.keys().enumerate() {
                match self.tte_value(k, i) {
                    Some((aval, censored)) => {
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
            for (k, endpoint) in endpoints.keys().enumerate() {
                if let Some(rule) = self.rule(k, endpoint, derived, i) {
                    out.push(b',');
                    out.extend_from_slice(rule.as_bytes());
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
                let arm = subject.and_then(|s| s.columns.get(column));
                csv_field(&mut out, arm.unwrap_or(""));
            }
            out.push(b'\n');
        }
        out
    }
}

impl DerivedRows<'_> {
    /// `derived/records/<cohort>.csv`: the deaths, response assessments and treatment-emergent
    /// AEs of the cohort's members as the cut-off's numbers read them, one row each, so that
    /// `readout diff` can tell corrected earlier records from new ones (docs/OUTPUTS.md).
    pub fn write_records_csv(
        &self,
        subjects: &[Subject],
        assessments: &std::collections::HashMap<&str, Vec<crate::model::Assessment>>,
        vocabulary: &crate::criteria::Vocabulary,
        adverse_events: &[crate::model::AdverseEvent],
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut out = Vec::with_capacity(DERIVED_PIECE + 4096);
        out.extend_from_slice(b"USUBJID,ARM,DATASET,DATE,ITEM,VALUE,SERIOUS,FATAL\n");
        let mut arm_of: FxHashMap<&str, &str> = FxHashMap::default();
        let mut line = String::new();
        // Without ADRS or ADAE only the deaths are written: no lookups per member.
        let (with_rs, with_ae) = (!assessments.is_empty(), !adverse_events.is_empty());
        for &member in self.members.iter() {
            let Some(subject) = subjects.get(member as usize) else {
                continue;
            };
            if !with_rs && !with_ae && subject.death.is_none() {
                continue;
            }
            let id: &str = &subject.usubjid;
            let arm = self
                .arm_column
                .as_deref()
                .and_then(|column| subject.columns.get(column))
                .unwrap_or("");
            if with_ae {
                arm_of.insert(id, arm);
            }
            if let Some(death) = subject.death {
                csv_field(&mut out, id);
                out.push(b',');
                csv_field(&mut out, arm);
                line.clear();
                let _ = writeln!(line, ",ADSL,{death},DTHDT,,,Y");
                out.extend_from_slice(line.as_bytes());
            }
            let listed = if with_rs { assessments.get(id) } else { None };
            for a in listed.into_iter().flatten() {
                csv_field(&mut out, id);
                out.push(b',');
                csv_field(&mut out, arm);
                line.clear();
                let _ = write!(line, ",ADRS,{},", a.date);
                out.extend_from_slice(line.as_bytes());
                csv_field(&mut out, a.visit.as_deref().unwrap_or(""));
                out.push(b',');
                csv_field(&mut out, vocabulary.text(a.code));
                out.extend_from_slice(b",,\n");
                spill(&mut out, write)?;
            }
        }
        for ae in adverse_events.iter().filter(|ae| ae.emergent) {
            let Some(arm) = arm_of.get(ae.usubjid.as_str()) else {
                continue;
            };
            csv_field(&mut out, &ae.usubjid);
            out.push(b',');
            csv_field(&mut out, arm);
            out.extend_from_slice(b",ADAE,");
            line.clear();
            if let Some(start) = ae.start {
                let _ = write!(line, "{start}");
            }
            out.extend_from_slice(line.as_bytes());
            out.push(b',');
            csv_field(&mut out, &ae.term);
            line.clear();
            if let Some(grade) = ae.grade {
                let _ = write!(line, "{grade}");
            }
            let _ = writeln!(
                line,
                ",{},{}",
                if ae.serious { "Y" } else { "N" },
                if ae.fatal { "Y" } else { "N" }
            );
            out.push(b',');
            out.extend_from_slice(line.as_bytes());
            spill(&mut out, write)?;
        }
        write(&out)
    }
}

/// Gives `out` to `write` once it holds a piece's worth.
fn spill(out: &mut Vec<u8>, write: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    if out.len() >= DERIVED_PIECE {
        write(out)?;
        out.clear();
    }
    Ok(())
}

/// Bytes of the derived CSV given to the file at a time.
const DERIVED_PIECE: usize = 1 << 20;

/// Rows of the derived CSV formatted by one parallel job (about 2 MB).
const DERIVED_BATCH: usize = 32_768;

/// A column of the derived datasets, in their order ([`DerivedRows::fields`]).
enum Field<'a> {
    Usubjid,
    Bor,
    /// The endpoint's time, in the cohort's time unit.
    Aval(&'a str),
    /// The endpoint's censoring flag.
    Cnsr(&'a str),
    /// The rule that made the endpoint's derived time an event or a censoring.
    EvntDesc(&'a str),
    BorDate,
    BorReason,
    /// The efficacy flag, under its ADSL name.
    Efficacy(&'a str),
    Arm(&'a str),
}

impl Field<'_> {
    fn name(&self) -> String {
        match self {
            Field::Usubjid => "USUBJID".to_string(),
            Field::Bor => "BOR".to_string(),
            Field::Aval(e) => format!("{e}_AVAL"),
            Field::Cnsr(e) => format!("{e}_CNSR"),
            Field::EvntDesc(e) => format!("{e}_EVNTDESC"),
            Field::BorDate => "BOR_DATE".to_string(),
            Field::BorReason => "BOR_REASON".to_string(),
            Field::Efficacy(flag) => flag.to_string(),
            Field::Arm(_) => "ARM".to_string(),
        }
    }
}

/// What `derived/<cohort>.json` says about its data besides the rows.
pub struct DerivedDataset<'a> {
    /// `study.id`: the dataset's `studyOID`.
    pub study_id: &'a str,
    /// The cohort's id: the dataset's name (upper case, `-` as `_`).
    pub cohort_id: &'a str,
    /// The cohort in words, for the dataset's label.
    pub cohort_label: &'a str,
    /// The unit of the `_AVAL` columns (`months`).
    pub time_unit: &'a str,
    /// Endpoint → the endpoint in words, for the columns' labels.
    pub endpoint_labels: &'a indexmap::IndexMap<String, String>,
    /// The folder's cut-off: the dataset's creation date (see [`DerivedRows::write_dataset_json`]).
    pub cutoff: Option<Date>,
}

impl DerivedRows<'_> {
    /// Whether the endpoint's times were derived here, each with its rule.
    fn has_rules(&self, endpoint: &str) -> bool {
        self.derived_times && crate::model::endpoint::DERIVED.contains(&endpoint)
    }

    /// The `<E>_EVNTDESC` cell of member `i` (derivation `derived`) for the `k`-th endpoint:
    /// `None` when the endpoint has no such column, empty without a time.
    fn rule(
        &self,
        k: usize,
        endpoint: &str,
        derived: Option<&DerivedSubject>,
        i: usize,
    ) -> Option<&'static str> {
        self.has_rules(endpoint).then(|| {
            derived
                .and_then(|d| d.endpoint(endpoint))
                .filter(|_| self.tte_value(k, i).is_some())
                .map_or("", |t| t.rule.text())
        })
    }

    /// The derived datasets' columns, in order (one definition for the CSV and Dataset-JSON).
    fn fields(&self) -> Vec<Field<'_>> {
        let mut fields = vec![Field::Usubjid, Field::Bor];
        for e in self.endpoints.keys() {
            fields.push(Field::Aval(e));
            fields.push(Field::Cnsr(e));
        }
        // After the pairs, so that the columns before them keep their places.
        for e in self.endpoints.keys().filter(|e| self.has_rules(e)) {
            fields.push(Field::EvntDesc(e));
        }
        fields.extend([
            Field::BorDate,
            Field::BorReason,
            Field::Efficacy(&self.efficacy_flag),
        ]);
        if let Some(column) = &self.arm_column {
            fields.push(Field::Arm(column));
        }
        fields
    }

    /// The Dataset-JSON column metadata of the derived dataset named `dataset`.
    pub fn dataset_json_columns(
        &self,
        dataset: &str,
        about: &DerivedDataset<'_>,
    ) -> Vec<crate::load::dataset_json::Column> {
        use crate::load::dataset_json::{Column, DataType, TargetDataType};
        self.fields()
            .iter()
            .map(|field| {
                let name = field.name();
                let words = |e: &str| {
                    about
                        .endpoint_labels
                        .get(e)
                        .cloned()
                        .unwrap_or_else(|| e.to_string())
                };
                let (label, data_type) = match field {
                    Field::Usubjid => ("Unique Subject Identifier".to_string(), DataType::String),
                    Field::Bor => ("Best Overall Response".to_string(), DataType::String),
                    Field::Aval(e) => (
                        format!(
                            "{}: time to event or censoring ({})",
                            words(e),
                            about.time_unit
                        ),
                        DataType::Double,
                    ),
                    Field::Cnsr(e) => (
                        format!("{}: censored (1) or event (0)", words(e)),
                        DataType::Integer,
                    ),
                    Field::EvntDesc(e) => (
                        format!("{}: event or censoring rule", words(e)),
                        DataType::String,
                    ),
                    Field::BorDate => ("Date of Best Overall Response".to_string(), DataType::Date),
                    Field::BorReason => (
                        "Why the Best Overall Response".to_string(),
                        DataType::String,
                    ),
                    Field::Efficacy(_) => {
                        ("Efficacy Population Flag".to_string(), DataType::String)
                    }
                    Field::Arm(column) => (format!("Arm ({column})"), DataType::String),
                };
                let date = data_type == DataType::Date;
                Column {
                    item_oid: format!("IT.{dataset}.{name}"),
                    key_sequence: matches!(field, Field::Usubjid).then_some(1),
                    name,
                    label,
                    data_type,
                    // ADaM dates: ISO 8601 text, a number once imported (the specification's
                    // ADaM case).
                    target_data_type: date.then_some(TargetDataType::Integer),
                    length: None,
                    display_format: date.then(|| "E8601DA.".to_string()),
                }
            })
            .collect()
    }

    /// `derived/<cohort>.json`: the rows of [`DerivedRows::write_csv`] as a Dataset-JSON v1.1
    /// dataset (one object, one row per line), with each column's name, label and data type,
    /// so that what readout derived can go back into a CDISC pipeline. Missing values are
    /// `null`. readout writes the same bytes for the same inputs, so
    /// `datasetJSONCreationDateTime` is not the clock's time: it is the cut-off, or without
    /// one the latest date of the cohort's data (treatment, enrolment, death, last known
    /// alive, best response), at midnight.
    pub fn write_dataset_json(
        &self,
        subjects: &[Subject],
        about: &DerivedDataset<'_>,
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        use crate::load::dataset_json::Metadata;
        let dataset: String = about
            .cohort_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        let as_of = about.cutoff.or_else(|| self.latest_date(subjects));
        let metadata = Metadata::written_by_readout(
            about.study_id,
            &as_of.map_or_else(|| "1960-01-01".to_string(), |d| d.to_string()),
            &dataset,
            format!("Derived per-subject values: {}", about.cohort_label),
            self.members.len() as u64,
            self.dataset_json_columns(&dataset, about),
        );
        let json_error = |e: serde_json::Error| {
            Error::Other(format!(
                "cannot write the Dataset-JSON of the derived data: {e}"
            ))
        };
        let mut out = serde_json::to_vec(&metadata).map_err(json_error)?;
        // The rows follow the metadata in the same object, one per line.
        out.pop();
        out.extend_from_slice(b",\"rows\":[");
        let endpoints = &self.endpoints;
        let mut number = String::new();
        for (i, &member) in self.members.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n[" } else { b",\n[" });
            let subject = subjects.get(member as usize);
            let derived = self.derived.get(i);
            let bor = derived.map(|d| &d.bor);
            let string = |out: &mut Vec<u8>, text: Option<&str>| match text {
                Some(text) => serde_json::to_writer(out, text).map_err(json_error),
                None => {
                    out.extend_from_slice(b"null");
                    Ok(())
                }
            };
            string(&mut out, subject.map(|s| &*s.usubjid))?;
            out.push(b',');
            string(&mut out, derived.map(|d| self.criteria.code_of(d.category)))?;
            for (k, _) in endpoints.keys().enumerate() {
                match self.tte_value(k, i) {
                    Some((aval, censored)) => {
                        number.clear();
                        let _ = write!(number, ",{aval},{}", u8::from(censored));
                        out.extend_from_slice(number.as_bytes());
                    }
                    None => out.extend_from_slice(b",null,null"),
                }
            }
            for (k, endpoint) in endpoints.keys().enumerate() {
                if let Some(rule) = self.rule(k, endpoint, derived, i) {
                    out.push(b',');
                    string(&mut out, Some(rule).filter(|r| !r.is_empty()))?;
                }
            }
            out.push(b',');
            let date = bor.and_then(|b| b.date).map(|d| d.to_string());
            string(&mut out, date.as_deref())?;
            out.push(b',');
            string(&mut out, bor.map(|b| b.reason.as_str()))?;
            let efficacy = subject.is_some_and(|s| s.efficacy);
            out.extend_from_slice(if efficacy { b",\"Y\"" } else { b",\"N\"" });
            if let Some(column) = &self.arm_column {
                out.push(b',');
                string(&mut out, subject.and_then(|s| s.columns.get(column)))?;
            }
            out.push(b']');
            if out.len() >= DERIVED_PIECE {
                write(&out)?;
                out.clear();
            }
        }
        out.extend_from_slice(b"\n]}\n");
        write(&out)
    }

    /// The latest date of the members' data, for a dataset without a cut-off.
    fn latest_date(&self, subjects: &[Subject]) -> Option<Date> {
        let subject_dates = self
            .members
            .iter()
            .filter_map(|&m| subjects.get(m as usize))
            .flat_map(|s| [s.trt_start, s.trt_end, s.enrolled, s.death, s.last_alive]);
        let bor_dates = self.derived.iter().map(|d| d.bor.date);
        subject_dates.chain(bor_dates).flatten().max()
    }
}

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

//! The metadata of a Dataset-JSON v1.1 dataset as serde types, read by the reader and written
//! by the derived datasets' writer (`outputs`), and the checks the reader makes on it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::*;

/// The version readout writes.
pub const VERSION: &str = "1.1.0";

/// The top-level attributes of a dataset, in the specification's order (`rows` apart: the
/// reader streams them, the writer writes them after these). Attributes the schema requires
/// but readout does not use are optional when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// `datasetJSONCreationDateTime`: when the file was made (ISO 8601 datetime).
    #[serde(
        rename = "datasetJSONCreationDateTime",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub creation_date_time: Option<String>,
    /// `datasetJSONVersion`: `1.1` or `1.1.x`.
    #[serde(rename = "datasetJSONVersion")]
    pub version: String,
    /// `fileOID`.
    #[serde(rename = "fileOID", default, skip_serializing_if = "Option::is_none")]
    pub file_oid: Option<String>,
    /// `dbLastModifiedDateTime`.
    #[serde(
        rename = "dbLastModifiedDateTime",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub db_last_modified_date_time: Option<String>,
    /// `originator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub originator: Option<String>,
    /// `sourceSystem`.
    #[serde(
        rename = "sourceSystem",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub source_system: Option<SourceSystem>,
    /// `studyOID`.
    #[serde(rename = "studyOID", default, skip_serializing_if = "Option::is_none")]
    pub study_oid: Option<String>,
    /// `metaDataVersionOID`.
    #[serde(
        rename = "metaDataVersionOID",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata_version_oid: Option<String>,
    /// `metaDataRef`.
    #[serde(
        rename = "metaDataRef",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata_ref: Option<String>,
    /// `itemGroupOID`.
    #[serde(
        rename = "itemGroupOID",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub item_group_oid: Option<String>,
    /// `records`: the number of rows.
    pub records: u64,
    /// `name`: the dataset's name (`ADSL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `label`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `columns`, in the rows' order.
    pub columns: Vec<Column>,
}

impl Metadata {
    /// The metadata of a dataset readout writes (derived data, analysis results data):
    /// readout as the source system, made at midnight of `as_of` (a date, so that the same
    /// inputs give the same bytes), for `study`, named `name` (its item group `IG.<name>`).
    pub fn written_by_readout(
        study: &str,
        as_of: &str,
        name: &str,
        label: String,
        records: u64,
        columns: Vec<Column>,
    ) -> Metadata {
        Metadata {
            creation_date_time: Some(format!("{as_of}T00:00:00")),
            version: VERSION.to_string(),
            file_oid: None,
            db_last_modified_date_time: None,
            originator: None,
            source_system: Some(SourceSystem {
                name: "readout".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            }),
            study_oid: Some(study.to_string()),
            metadata_version_oid: None,
            metadata_ref: None,
            item_group_oid: Some(format!("IG.{name}")),
            records,
            name: Some(name.to_string()),
            label: Some(label),
            columns,
        }
    }
}

/// `sourceSystem`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSystem {
    /// The system's name.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// One element of `columns`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// `itemOID` (required by the schema; empty when a file leaves it out).
    #[serde(rename = "itemOID", default)]
    pub item_oid: String,
    /// `name`: the variable's name, the table's column name.
    pub name: String,
    /// `label` (required by the schema; empty when a file leaves it out).
    #[serde(default)]
    pub label: String,
    /// `dataType`.
    #[serde(rename = "dataType")]
    pub data_type: DataType,
    /// `targetDataType`: `integer` for ADaM dates, `decimal` for decimals.
    #[serde(
        rename = "targetDataType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub target_data_type: Option<TargetDataType>,
    /// `length`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// `displayFormat`: the SAS format (`E8601DA.`, `DATE9.`); on an integer or a floating
    /// column a date, datetime or time format makes its numbers SAS dates, as in `.xpt` files.
    #[serde(
        rename = "displayFormat",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub display_format: Option<String>,
    /// `keySequence`.
    #[serde(
        rename = "keySequence",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub key_sequence: Option<u64>,
}

/// `dataType`: the logical type of a column, and so the JSON type of its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataType {
    /// A JSON string.
    #[serde(rename = "string")]
    String,
    /// A JSON integer.
    #[serde(rename = "integer")]
    Integer,
    /// A decimal number as a JSON string (`"30.9"`), `.` the decimal separator.
    #[serde(rename = "decimal")]
    Decimal,
    /// A JSON number.
    #[serde(rename = "float")]
    Float,
    /// A JSON number.
    #[serde(rename = "double")]
    Double,
    /// `true` or `false`.
    #[serde(rename = "boolean")]
    Boolean,
    /// An ISO 8601 datetime as a string.
    #[serde(rename = "datetime")]
    Datetime,
    /// An ISO 8601 date as a string.
    #[serde(rename = "date")]
    Date,
    /// An ISO 8601 time as a string.
    #[serde(rename = "time")]
    Time,
    /// A URI as a string.
    #[serde(rename = "URI")]
    Uri,
}

impl DataType {
    /// The name as the specification writes it.
    pub fn name(self) -> &'static str {
        match self {
            DataType::String => "string",
            DataType::Integer => "integer",
            DataType::Decimal => "decimal",
            DataType::Float => "float",
            DataType::Double => "double",
            DataType::Boolean => "boolean",
            DataType::Datetime => "datetime",
            DataType::Date => "date",
            DataType::Time => "time",
            DataType::Uri => "URI",
        }
    }
}

/// `targetDataType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetDataType {
    /// Stored as a number by the receiving system (ADaM dates, datetimes and times).
    Integer,
    /// Stored as a decimal.
    Decimal,
}

/// Whether `version` is `1.1` or `1.1.x` (x a number without leading zeros), the schema's
/// `datasetJSONVersion` pattern.
pub(super) fn is_supported_version(version: &str) -> bool {
    let Some(rest) = version.strip_prefix("1.1") else {
        return false;
    };
    match rest.strip_prefix('.') {
        None => rest.is_empty(),
        Some(patch) => {
            !patch.is_empty()
                && patch.bytes().all(|b| b.is_ascii_digit())
                && (patch == "0" || !patch.starts_with('0'))
        }
    }
}

/// The error for a version other than 1.1.x.
pub(super) fn version_error(path: &Path, version: &Value) -> Error {
    Error::Data {
        file: path.to_path_buf(),
        location: "`datasetJSONVersion`: ".to_string(),
        message: format!(
            "{} is not a version readout reads; expected \"1.1\" or \"1.1.x\" (Dataset-JSON v1.1)",
            shown(&version.to_string())
        ),
    }
}

/// The columns of `columns`, each checked on its own so that an error names it.
pub(super) fn columns_of(path: &Path, columns: &Value) -> Result<Vec<Column>> {
    let Value::Array(items) = columns else {
        return Err(Error::Data {
            file: path.to_path_buf(),
            location: "`columns`: ".to_string(),
            message: format!(
                "{} is not an array; expected one object per column",
                shown(&columns.to_string())
            ),
        });
    };
    if items.is_empty() {
        return Err(Error::Data {
            file: path.to_path_buf(),
            location: "`columns`: ".to_string(),
            message: "the array is empty; expected one object per column".to_string(),
        });
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let name = item.get("name").and_then(Value::as_str);
            serde_path_to_error::deserialize::<_, Column>(item).map_err(|e| {
                let at = e.path().to_string();
                let field = if at == "." {
                    String::new()
                } else {
                    format!(".{at}")
                };
                let which = match name {
                    Some(name) => format!(" (`{}`)", crate::error::escape_controls(name, false)),
                    None => String::new(),
                };
                Error::Data {
                    file: path.to_path_buf(),
                    location: format!("`columns[{i}]{field}`{which}: "),
                    message: format!(
                        "{}; expected a column with `itemOID`, `name`, `label` and a `dataType` \
                         of string, integer, decimal, float, double, boolean, datetime, date, \
                         time or URI",
                        e.inner()
                    ),
                }
            })
        })
        .collect()
}

/// A JSON value quoted in a message: its control characters escaped, and cut after 120
/// characters.
pub(super) fn shown(json: &str) -> String {
    const MAX: usize = 120;
    let escaped = crate::error::escape_controls(json, false);
    match escaped.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}…`", escaped.get(..cut).unwrap_or_default()),
        None => format!("`{escaped}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_1_1_and_1_1_x_only() {
        for v in ["1.1", "1.1.0", "1.1.3", "1.1.10"] {
            assert!(is_supported_version(v), "{v}");
        }
        for v in [
            "1.0", "1.0.0", "1.10", "1.1.", "1.1.01", "1x1", "1.2.0", "", "1.1.0-rc",
        ] {
            assert!(!is_supported_version(v), "{v}");
        }
    }

    #[test]
    fn unknown_data_type_names_the_column_and_the_type() {
        let columns = serde_json::json!([
            {"itemOID": "IT.A", "name": "A", "label": "", "dataType": "string"},
            {"itemOID": "IT.B", "name": "AVAL", "label": "", "dataType": "number"}
        ]);
        let e = columns_of(Path::new("x.json"), &columns)
            .unwrap_err()
            .to_string();
        assert!(e.contains("columns[1].dataType"), "{e}");
        assert!(e.contains("`AVAL`"), "{e}");
        assert!(e.contains("number"), "{e}");
    }
}

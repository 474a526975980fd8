//! A dataset's metadata checked and made ready for its rows ([`Header`]): the columns'
//! names and how each column's values become cells.

use serde_json::{Map, Value};

use super::cells::Rule;
use super::metadata::{columns_of, is_supported_version, version_error, Column, Metadata};
use super::*;

/// A dataset's checked metadata, ready for its rows: the columns' names (the table's header)
/// and how each column's values become cells.
#[derive(Debug, Clone)]
pub(super) struct Header {
    pub(super) headers: Vec<String>,
    pub(super) index: HashMap<String, usize>,
    pub(super) rules: Vec<Rule>,
    /// `records`, when known (a `.json` file may give it after the rows).
    pub(super) records: Option<u64>,
}

/// The whole metadata of a dataset (the first line of `.ndjson`, or the attributes of `.json`
/// but `rows`), checked: a supported version, `records`, the columns (with known data types,
/// unique names).
pub(super) fn check_metadata(path: &Path, map: Map<String, Value>) -> Result<(Metadata, Header)> {
    match map.get("datasetJSONVersion") {
        None => {
            return Err(Error::data_file(
                path,
                "the metadata has no `datasetJSONVersion`; expected a Dataset-JSON v1.1 dataset \
                 (\"datasetJSONVersion\": \"1.1.0\")",
            ))
        }
        Some(Value::String(v)) if is_supported_version(v) => {}
        Some(other) => return Err(version_error(path, other)),
    }
    let columns = map.get("columns").ok_or_else(|| {
        Error::data_file(
            path,
            "the metadata has no `columns`; expected an array describing each column",
        )
    })?;
    let columns = columns_of(path, columns)?;
    let header = header_of(path, &columns)?;
    let mut map = map;
    // `columns` were checked one by one; the rest of the attributes here.
    map.insert("columns".to_string(), Value::Array(Vec::new()));
    let mut metadata: Metadata =
        serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
            let at = e.path().to_string();
            Error::Data {
                file: path.to_path_buf(),
                location: if at == "." {
                    String::new()
                } else {
                    format!("`{at}`: ")
                },
                message: format!(
                    "{}; expected the Dataset-JSON v1.1 metadata (`records` a whole number)",
                    e.inner()
                ),
            }
        })?;
    metadata.columns = columns;
    let header = Header {
        records: Some(metadata.records),
        ..header
    };
    Ok((metadata, header))
}

/// The table header of `columns`: names unique, without control characters, and each
/// column's rule.
pub(super) fn header_of(path: &Path, columns: &[Column]) -> Result<Header> {
    let mut headers = Vec::with_capacity(columns.len());
    let mut index = HashMap::with_capacity(columns.len());
    let mut rules = Vec::with_capacity(columns.len());
    for (i, column) in columns.iter().enumerate() {
        let name = column.name.trim();
        let location = format!("`columns[{i}].name`: ");
        if name.is_empty() {
            return Err(Error::Data {
                file: path.to_path_buf(),
                location,
                message: "the name is empty; expected the variable's name".to_string(),
            });
        }
        if let Some((_, c)) = crate::error::find_refused_control(name) {
            return Err(Error::Data {
                file: path.to_path_buf(),
                location,
                message: format!(
                    "`{}` holds {}; expected a name without control characters",
                    crate::error::escape_controls(name, false),
                    crate::error::refused_character(c)
                ),
            });
        }
        if index.insert(name.to_string(), i).is_some() {
            return Err(Error::Data {
                file: path.to_path_buf(),
                location,
                message: format!("column `{name}` appears twice; expected unique column names"),
            });
        }
        headers.push(name.to_string());
        rules.push(Rule::of(column));
    }
    Ok(Header {
        headers,
        index,
        rules,
        records: None,
    })
}

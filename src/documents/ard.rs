//! `ard.csv`: a cohort's analysis results data (docs/OUTPUTS.md, "ard.csv"), one row per
//! statistic in the long layout of the pharmaverse `cards` package: the groups (arm, the
//! reference arm, a system organ class or subgroup), the variable and its level, the
//! statistic's name and label, its unrounded value, the method and population, and `source`,
//! the JSON Pointer of the value inside the cohort's entry of results.json. The rows are walked
//! from that entry itself, so every number of results.json is a row and every row resolves.

use serde_json::Value;

/// The header of `ard.csv`.
pub const COLUMNS: [&str; 16] = [
    "cohort",
    "group1",
    "group1_level",
    "group2",
    "group2_level",
    "group3",
    "group3_level",
    "context",
    "variable",
    "variable_level",
    "stat_name",
    "stat_label",
    "stat",
    "method",
    "population",
    "source",
];

/// Where a walk is: the groups so far, the part of the results (`context`), the variable and
/// its level, the names between the variable and the value, the method in force.
#[derive(Clone, Default)]
struct At {
    groups: Vec<(String, String)>,
    context: String,
    variable: Option<String>,
    level: Option<(String, String)>,
    path: Vec<String>,
    method: String,
}

/// One statistic.
struct Stat {
    at: At,
    key: String,
    value: String,
    pointer: String,
}

/// The rows of the ARD for one cohort's entry of results.json, each as [`COLUMNS`].
pub fn ard_rows(cohort: &Value) -> Vec<[String; 16]> {
    let id = cohort.get("id").and_then(Value::as_str).unwrap_or_default();
    let mut stats = Vec::new();
    walk_cohort(cohort, "", &At::default(), &mut stats);
    stats
        .into_iter()
        .map(|s| {
            let group = |i: usize| s.at.groups.get(i).cloned().unwrap_or_default();
            let (g1, g2, g3) = (group(0), group(1), group(2));
            let (level_name, level) = s.at.level.clone().unwrap_or_default();
            let variable =
                s.at.variable
                    .clone()
                    .unwrap_or_else(|| s.at.context.clone());
            let stat_name = stat_name(&s.at.path, &s.key);
            let label = stat_label(&stat_name, &level_name);
            let population = population(&s.at.context).to_string();
            [
                id.to_string(),
                g1.0,
                g1.1,
                g2.0,
                g2.1,
                g3.0,
                g3.1,
                s.at.context,
                variable,
                level,
                stat_name,
                label,
                s.value,
                s.at.method,
                population,
                s.pointer,
            ]
        })
        .collect()
}

/// `ard.csv`: [`COLUMNS`], then the rows, each text a spreadsheet would run as a formula
/// neutralised (the rule of the CSVs for people; `ard.json` keeps the values as they are).
pub fn ard_csv(rows: &[[String; 16]]) -> Result<Vec<u8>, String> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let e = |e: csv::Error| e.to_string();
    out.write_record(COLUMNS).map_err(e)?;
    for row in rows {
        out.write_record(
            row.iter()
                .map(|cell| crate::model::text::spreadsheet_safe(cell).into_owned()),
        )
        .map_err(e)?;
    }
    out.into_inner().map_err(|e| e.to_string())
}

/// `ard.json`: the same rows as CDISC Dataset-JSON v1.1, `stat` a decimal (its exact digits
/// as text, `null` where results.json has `null`), the other columns strings; dated at the
/// cut-off (`as_of`, midnight) so the same results give the same bytes.
pub fn ard_dataset_json(
    rows: &[[String; 16]],
    study: &str,
    as_of: &str,
) -> Result<Vec<u8>, String> {
    use crate::load::dataset_json::{Column, DataType, Metadata, TargetDataType};
    fn label(c: &str) -> &str {
        match c {
            "stat" => "Statistic value (unrounded)",
            "source" => "JSON Pointer into the cohort's results.json entry",
            _ => c,
        }
    }
    let columns = COLUMNS
        .iter()
        .map(|c| Column {
            item_oid: format!("IT.ARD.{}", c.to_uppercase()),
            key_sequence: None,
            name: c.to_string(),
            label: label(c).to_string(),
            data_type: if *c == "stat" {
                DataType::Decimal
            } else {
                DataType::String
            },
            target_data_type: (*c == "stat").then_some(TargetDataType::Decimal),
            length: None,
            display_format: None,
        })
        .collect();
    let metadata = Metadata::written_by_readout(
        study,
        as_of,
        "ARD",
        "Analysis results data".to_string(),
        rows.len() as u64,
        columns,
    );
    let mut value = serde_json::to_value(&metadata).map_err(|e| e.to_string())?;
    let data: Vec<Value> = rows
        .iter()
        .map(|row| {
            Value::Array(
                row.iter()
                    .zip(COLUMNS)
                    .map(|(cell, column)| {
                        if column == "stat" && cell.is_empty() {
                            Value::Null
                        } else {
                            Value::String(cell.clone())
                        }
                    })
                    .collect(),
            )
        })
        .collect();
    if let Value::Object(map) = &mut value {
        map.insert("rows".to_string(), Value::Array(data));
    }
    let mut out = serde_json::to_vec(&value).map_err(|e| e.to_string())?;
    out.push(b'\n');
    Ok(out)
}

/// A cohort, an arm or a comparison: its parts, each a context.
fn walk_cohort(v: &Value, pointer: &str, at: &At, out: &mut Vec<Stat>) {
    let Some(object) = v.as_object() else { return };
    for (key, x) in object {
        let here = format!("{pointer}/{}", escape(key));
        match key.as_str() {
            // Printing settings, not results.
            "decimals" | "abstract_length" => {}
            "arms" | "comparisons" => {
                for (i, entry) in x.as_array().into_iter().flatten().enumerate() {
                    let text = |k: &str| {
                        entry
                            .get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    let mut inner = at.clone();
                    inner.groups.push(("ARM".into(), text("arm")));
                    if key == "comparisons" {
                        inner.groups.push(("REFERENCE".into(), text("reference")));
                    }
                    walk_cohort(entry, &format!("{here}/{i}"), &inner, out);
                }
            }
            _ if x.is_object() || x.is_array() => {
                let inner = At {
                    context: context(key).to_string(),
                    ..at.clone()
                };
                walk(x, &here, &inner, out);
            }
            _ => leaf(x, key, &here, at, out),
        }
    }
}

fn walk(v: &Value, pointer: &str, at: &At, out: &mut Vec<Stat>) {
    match v {
        Value::Object(object) => {
            let mut at = at.clone();
            if let Some(method) = object.get("method").and_then(Value::as_str) {
                at.method = method.to_string();
            }
            let named_by = identity(v).map(|(field, _)| field);
            for (key, x) in object {
                let here = format!("{pointer}/{}", escape(key));
                if x.is_object() || x.is_array() {
                    let mut inner = at.clone();
                    if inner.variable.is_none() {
                        inner.variable = Some(key.clone());
                    } else if x.is_object() {
                        // A list's elements are told apart by their levels, not its name.
                        inner.path.push(key.clone());
                    }
                    walk(x, &here, &inner, out);
                } else if named_by.as_deref() != Some(key.as_str()) {
                    leaf(x, key, &here, &at, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                let here = format!("{pointer}/{i}");
                let mut inner = at.clone();
                let text = |k: &str| x.get(k).and_then(Value::as_str).map(str::to_string);
                if let (Some(column), Some(level)) = (text("column"), text("level")) {
                    // A subgroup: its column and level are a group.
                    inner.groups.push((column, level));
                    walk(x, &here, &inner, out);
                } else if let (None, Some((_, value))) = (&inner.variable, identity(x)) {
                    // A list of variables (baseline characteristics): each names its own.
                    inner.variable = Some(value);
                    walk(x, &here, &inner, out);
                } else if let Some((field, value)) = identity(x) {
                    if let Some(level) = inner.level.take() {
                        if inner.groups.len() < 3 {
                            inner.groups.push((group_name(&level.0), level.1));
                        }
                    }
                    inner.level = Some((field, value));
                    walk(x, &here, &inner, out);
                } else if x.is_number() || x.is_null() {
                    // A list of numbers: grades 1-5 of a table by grade.
                    leaf(x, &format!("{}", i + 1), &here, &inner, out);
                } else {
                    walk(x, &here, &inner, out);
                }
            }
        }
        _ => {}
    }
}

/// A number (or a value not estimable, `null`) as a row; text and flags are not statistics.
fn leaf(x: &Value, key: &str, pointer: &str, at: &At, out: &mut Vec<Stat>) {
    let value = match x {
        Value::Number(n) => n.to_string(),
        Value::Null => String::new(),
        _ => return,
    };
    out.push(Stat {
        at: at.clone(),
        key: key.to_string(),
        value,
        pointer: pointer.to_string(),
    });
}

/// The field that names an element of a list: a term, a class, a subgroup column or level, a
/// row kind, a landmark's or a risk table's time.
const IDENTITIES: [&str; 6] = ["term", "soc", "column", "level", "kind", "time"];

fn identity(x: &Value) -> Option<(String, String)> {
    let object = x.as_object()?;
    IDENTITIES
        .iter()
        .find_map(|field| match object.get(*field)? {
            Value::String(s) => Some((field.to_string(), s.clone())),
            Value::Number(n) => Some((field.to_string(), n.to_string())),
            _ => None,
        })
}

fn group_name(field: &str) -> String {
    match field {
        "soc" => "AEBODSYS".into(),
        "term" => "AEDECOD".into(),
        other => other.to_string(),
    }
}

fn context(key: &str) -> &str {
    match key {
        "n" => "populations",
        "tte" => "survival",
        other => other,
    }
}

fn population(context: &str) -> &'static str {
    match context {
        "response" | "survival" | "followup" => "efficacy",
        "safety" | "exposure" => "safety",
        "populations" => "",
        _ => "enrolled",
    }
}

/// The statistic's name as `cards` names its kind: `p` a proportion, `conf.low`/`conf.high`
/// an interval, the estimate by the object it belongs to ("median", "hr").
fn stat_name(path: &[String], key: &str) -> String {
    let key = match key {
        "rate" | "surv" => "p",
        "lower" => "conf.low",
        "upper" => "conf.high",
        "std_err" => "std.error",
        "n_risk" | "at_risk" => "n.risk",
        "censored" => "n.censor",
        other => other,
    };
    match (path, key) {
        ([], key) => key.to_string(),
        (path, "estimate") => path.join("."),
        (path, key) => format!("{}.{key}", path.join(".")),
    }
}

fn stat_label(name: &str, level_field: &str) -> String {
    let last = name.rsplit('.').next().unwrap_or(name);
    let what = match last {
        "n" => "n",
        "N" => "N",
        "p" if level_field == "time" => "Survival probability",
        "p" => "Proportion",
        "low" => "CI lower bound",
        "high" => "CI upper bound",
        "median" => "Median",
        "mean" => "Mean",
        "sd" => "Standard deviation",
        "min" => "Minimum",
        "max" => "Maximum",
        "hr" => "Hazard ratio",
        "events" => "Events",
        "chisq" => "Chi-square",
        "df" => "Degrees of freedom",
        "error" => "Standard error",
        "risk" => "At risk",
        _ if last.starts_with("p_") || last == "p" => "p-value",
        _ => return name.replace(['_', '.'], " "),
    };
    what.to_string()
}

/// A JSON Pointer reference token (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cohort: Value) -> Vec<std::collections::BTreeMap<String, String>> {
        let bytes = ard_csv(&ard_rows(&cohort)).expect("ard");
        let mut reader = csv::Reader::from_reader(&bytes[..]);
        reader.deserialize().map(|r| r.expect("row")).collect()
    }

    #[test]
    fn every_number_is_a_row_that_resolves() {
        let cohort = serde_json::json!({
            "id": "c", "decimals": {"percent": 1},
            "response": {"bor": {"CR": 1, "NON-CR/NON-PD": 2},
                         "orr": {"n": 1, "N": 3, "rate": 0.3333333333333333, "lower": 0.01, "upper": null}},
            "tte": {"EFS": {"median": {"estimate": 5.5, "lower": 4.0, "upper": null},
                            "landmarks": [{"time": 6.0, "surv": 0.5}]}},
            "comparisons": [{"arm": "A", "reference": "B",
                             "response": {"orr": {"difference": {"estimate": 0.1, "method": "mn"}}},
                             "tte": {"EFS": {"subgroups": [{"column": "SEX", "level": "F", "hr": {"estimate": 0.7}}]}}}]
        });
        let rows = rows(cohort.clone());
        for row in &rows {
            let value = cohort.pointer(&row["source"]).expect("resolves");
            match value {
                Value::Null => assert_eq!(row["stat"], ""),
                v => assert_eq!(row["stat"], v.to_string(), "{row:?}"),
            }
        }
        let find = |stat: &str, variable: &str| {
            rows.iter()
                .find(|r| r["stat_name"] == stat && r["variable"] == variable)
                .unwrap_or_else(|| panic!("{stat} {variable}: {rows:?}"))
        };
        let orr = find("p", "orr");
        assert_eq!(
            (
                orr["context"].as_str(),
                orr["stat"].as_str(),
                orr["population"].as_str()
            ),
            ("response", "0.3333333333333333", "efficacy")
        );
        assert_eq!(find("conf.high", "orr")["stat"], "");
        // "/" in a key is escaped in its pointer.
        assert_eq!(
            find("NON-CR/NON-PD", "bor")["source"],
            "/response/bor/NON-CR~1NON-PD"
        );
        assert_eq!(find("median", "EFS")["stat"], "5.5");
        assert_eq!(find("median.conf.low", "EFS")["stat"], "4.0");
        let landmark = find("p", "EFS");
        assert_eq!(
            (
                landmark["variable_level"].as_str(),
                landmark["stat_label"].as_str()
            ),
            ("6.0", "Survival probability")
        );
        let difference = find("difference", "orr");
        assert_eq!(
            (
                difference["group1_level"].as_str(),
                difference["group2_level"].as_str(),
                difference["method"].as_str()
            ),
            ("A", "B", "mn")
        );
        let hr = find("hr", "EFS");
        assert_eq!(
            (
                hr["group3"].as_str(),
                hr["group3_level"].as_str(),
                hr["variable_level"].as_str()
            ),
            ("SEX", "F", "")
        );
        // Settings are not results.
        assert!(!rows.iter().any(|r| r["source"].starts_with("/decimals")));
    }
}

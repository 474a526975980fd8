//! The records behind two cut-offs' numbers (`derived/records/<cohort>.csv`), compared: a
//! record dated on or before the earlier cut-off that differs between the two folders is a
//! correction of earlier data, one dated after it is new data; an AE whose grade changed is
//! re-graded, not new (docs/OUTPUTS.md, "readout diff").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Date;

/// One row of a records file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    subject: String,
    arm: String,
    dataset: String,
    date: Option<Date>,
    item: String,
    value: String,
    serious: bool,
    fatal: bool,
}

/// Reads a records file; `None` when the folder has none (written by an older readout).
fn read(path: &Path) -> Result<Option<Vec<Row>>> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let file = crate::files::open_regular(path, false).map_err(|why| {
        Error::data_file(
            path,
            format!("{why}; expected records `readout build` wrote"),
        )
    })?;
    let mut rows = Vec::new();
    for (i, record) in csv::Reader::from_reader(file).records().enumerate() {
        let record = record.map_err(|e| Error::data_file(path, format!("not valid CSV: {e}")))?;
        let cell = |k: usize| record.get(k).unwrap_or("").to_string();
        let date = match record.get(3).unwrap_or("") {
            "" => None,
            text => Some(Date::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                Error::data_file(
                    path,
                    format!(
                        "row {}: DATE `{text}` is not a date; expected YYYY-MM-DD",
                        i + 2
                    ),
                )
            })?),
        };
        rows.push(Row {
            subject: cell(0),
            arm: cell(1),
            dataset: cell(2),
            date,
            item: cell(4),
            value: cell(5),
            serious: record.get(6) == Some("Y"),
            fatal: record.get(7) == Some("Y"),
        });
    }
    Ok(Some(rows))
}

/// What changed in the records of one cohort, by arm (`""` for a cohort without arms).
#[derive(Debug, Default)]
pub struct Changes {
    /// The date up to which records are "earlier" (the earlier cut-off, else its last record).
    pub boundary: Option<Date>,
    /// Subjects with an earlier record changed, added late or removed.
    pub corrected_subjects: BTreeSet<String>,
    /// Lines describing each corrected earlier record.
    pub corrections: Vec<String>,
    /// Per arm: (new response assessments, subjects with one).
    pub new_assessments: BTreeMap<String, (usize, BTreeSet<String>)>,
    /// Per arm and kind of AE change: the lines of each.
    pub ae: BTreeMap<String, AeChanges>,
    /// New deaths (ADSL DTHDT), new serious AEs and new grade 5 AEs, a line each.
    pub listed: Vec<String>,
}

/// An arm's AE record changes, by kind.
#[derive(Debug, Default)]
pub struct AeChanges {
    /// AEs starting after the earlier cut-off.
    pub new: usize,
    /// AEs starting on or before it that the earlier cut-off did not have (entered late).
    pub late: usize,
    /// AEs whose grade changed.
    pub regraded: Vec<String>,
    /// AEs that became serious or fatal.
    pub upgraded: Vec<String>,
    /// AEs the later cut-off no longer has.
    pub removed: usize,
}

/// The rows of both folders' records of `cohort`, compared; `None` when either folder lacks them.
pub fn compare(
    before: &Path,
    after: &Path,
    cohort: &str,
    cutoff: Option<Date>,
    arm_name: &dyn Fn(&str) -> String,
) -> Result<Option<Changes>> {
    let path = |folder: &Path| {
        folder
            .join("derived")
            .join("records")
            .join(format!("{cohort}.csv"))
    };
    let (Some(a), Some(b)) = (read(&path(before))?, read(&path(after))?) else {
        return Ok(None);
    };
    let view = View {
        boundary: cutoff.or_else(|| a.iter().filter_map(|r| r.date).max()),
        arm_name,
    };
    let mut changes = Changes {
        boundary: view.boundary,
        ..Changes::default()
    };
    deaths(&view, &a, &b, &mut changes);
    assessments(&view, &a, &b, &mut changes);
    adverse_events(&view, &a, &b, &mut changes);
    Ok(Some(changes))
}

/// How two folders' records are read against each other: the earlier cut-off, and how a
/// subject is named.
struct View<'a> {
    boundary: Option<Date>,
    arm_name: &'a dyn Fn(&str) -> String,
}

impl View<'_> {
    /// Dated on or before the earlier cut-off; an undated AE cannot be placed, and counts as
    /// earlier (a correction, not news).
    fn earlier(&self, d: Option<Date>) -> bool {
        match (d, self.boundary) {
            (Some(d), Some(b)) => d <= b,
            _ => true,
        }
    }

    /// "SUBJ (Vd)", or the subject alone without arms.
    fn who(&self, r: &Row) -> String {
        if r.arm.is_empty() {
            r.subject.clone()
        } else {
            format!("{} ({})", r.subject, (self.arm_name)(&r.arm))
        }
    }
}

/// A date as the lines print it.
fn shown(d: Option<Date>) -> String {
    d.map_or("undated".to_string(), |d| d.to_string())
}

/// Dates of death new, changed or gone.
fn deaths(view: &View<'_>, a: &[Row], b: &[Row], changes: &mut Changes) {
    // Deaths: a date of death that is new, changed or gone.
    let deaths = |rows: &[Row]| -> BTreeMap<String, Row> {
        rows.iter()
            .filter(|r| r.dataset == "ADSL")
            .map(|r| (r.subject.clone(), r.clone()))
            .collect()
    };
    let (dead_a, dead_b) = (deaths(a), deaths(b));
    for (subject, row) in &dead_b {
        match dead_a.get(subject) {
            None if view.earlier(row.date) => {
                changes.corrected_subjects.insert(subject.clone());
                changes.corrections.push(format!(
                    "{}: death on {} entered after the earlier cut-off",
                    view.who(row),
                    shown(row.date)
                ));
                changes
                    .listed
                    .push(format!("Death: {} on {}", view.who(row), shown(row.date)));
            }
            None => changes
                .listed
                .push(format!("Death: {} on {}", view.who(row), shown(row.date))),
            Some(old) if old.date != row.date => {
                changes.corrected_subjects.insert(subject.clone());
                changes.corrections.push(format!(
                    "{}: date of death {} → {}",
                    view.who(row),
                    shown(old.date),
                    shown(row.date)
                ));
            }
            Some(_) => {}
        }
    }
    for (subject, row) in &dead_a {
        if !dead_b.contains_key(subject) {
            changes.corrected_subjects.insert(subject.clone());
            changes.corrections.push(format!(
                "{}: death on {} removed",
                view.who(row),
                shown(row.date)
            ));
        }
    }
}

/// Response assessments by subject and date: changed, added or removed on or before the
/// earlier cut-off, new after it.
fn assessments(view: &View<'_>, a: &[Row], b: &[Row], changes: &mut Changes) {
    // Response assessments by subject and date.
    let assessments = |rows: &[Row]| -> BTreeMap<(String, Option<Date>), Vec<Row>> {
        let mut map: BTreeMap<_, Vec<Row>> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.dataset == "ADRS") {
            map.entry((r.subject.clone(), r.date))
                .or_default()
                .push(r.clone());
        }
        map
    };
    let (rs_a, rs_b) = (assessments(a), assessments(b));
    let values = |rows: &[Row]| {
        rows.iter()
            .map(|r| r.value.as_str())
            .collect::<Vec<_>>()
            .join("/")
    };
    for ((subject, day), rows) in &rs_b {
        let row = &rows[0];
        match rs_a.get(&(subject.clone(), *day)) {
            None if view.earlier(*day) => {
                changes.corrected_subjects.insert(subject.clone());
                changes.corrections.push(format!(
                    "{}: response {} on {} added (dated before the earlier cut-off)",
                    view.who(row),
                    values(rows),
                    shown(*day)
                ));
            }
            None => {
                let entry = changes.new_assessments.entry(row.arm.clone()).or_default();
                entry.0 += rows.len();
                entry.1.insert(subject.clone());
            }
            Some(old) if values(old) != values(rows) => {
                changes.corrected_subjects.insert(subject.clone());
                changes.corrections.push(format!(
                    "{}: response on {} {} → {}",
                    view.who(row),
                    shown(*day),
                    values(old),
                    values(rows)
                ));
            }
            Some(_) => {}
        }
    }
    for ((subject, day), rows) in &rs_a {
        if !rs_b.contains_key(&(subject.clone(), *day)) {
            changes.corrected_subjects.insert(subject.clone());
            changes.corrections.push(format!(
                "{}: response {} on {} removed",
                view.who(&rows[0]),
                values(rows),
                shown(*day)
            ));
        }
    }
}

/// AEs by subject, term and start date: new, entered late, re-graded, now serious or fatal,
/// removed; new deaths, serious and grade 5 AEs listed.
fn adverse_events(view: &View<'_>, a: &[Row], b: &[Row], changes: &mut Changes) {
    // AEs by subject, term and start date; several records of one key are paired in order of
    // grade, so one re-graded record is one change.
    let events = |rows: &[Row]| -> BTreeMap<(String, String, Option<Date>), Vec<Row>> {
        let mut map: BTreeMap<_, Vec<Row>> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.dataset == "ADAE") {
            map.entry((r.subject.clone(), r.item.clone(), r.date))
                .or_default()
                .push(r.clone());
        }
        for list in map.values_mut() {
            list.sort();
        }
        map
    };
    let (ae_a, ae_b) = (events(a), events(b));
    let grade = |r: &Row| {
        if r.value.is_empty() {
            "no grade".to_string()
        } else {
            format!("grade {}", r.value)
        }
    };
    let empty = Vec::new();
    let keys: BTreeSet<_> = ae_a.keys().chain(ae_b.keys()).cloned().collect();
    for key in keys {
        let (old, new) = (
            ae_a.get(&key).unwrap_or(&empty),
            ae_b.get(&key).unwrap_or(&empty),
        );
        let (subject, term, start) = &key;
        for (i, row) in new.iter().enumerate() {
            let arm = changes.ae.entry(row.arm.clone()).or_default();
            let is_new = match old.get(i) {
                Some(before) => {
                    if before.value != row.value {
                        arm.regraded.push(format!(
                            "{}: {term} (started {}) {} → {}",
                            view.who(row),
                            shown(*start),
                            grade(before),
                            grade(row)
                        ));
                        changes.corrected_subjects.insert(subject.clone());
                    }
                    let now = [
                        (row.serious && !before.serious).then_some("serious"),
                        (row.fatal && !before.fatal).then_some("fatal"),
                    ];
                    for what in now.into_iter().flatten() {
                        arm.upgraded.push(format!(
                            "{}: {term} (started {}) now {what}",
                            view.who(row),
                            shown(*start)
                        ));
                    }
                    false
                }
                None => {
                    if view.earlier(*start) {
                        arm.late += 1;
                        changes.corrected_subjects.insert(subject.clone());
                    } else {
                        arm.new += 1;
                    }
                    true
                }
            };
            let grade5 = row.value == "5" && old.get(i).is_none_or(|b| b.value != "5");
            let serious = row.serious && old.get(i).is_none_or(|b| !b.serious);
            if (is_new && row.serious) || serious || grade5 {
                let kind = match (row.serious, grade5) {
                    (_, true) if row.serious => "Serious, grade 5",
                    (_, true) => "Grade 5",
                    _ => "Serious",
                };
                changes.listed.push(format!(
                    "{kind} AE: {}: {term}, {}, started {}",
                    view.who(row),
                    grade(row),
                    shown(*start)
                ));
            }
        }
        if old.len() > new.len() {
            let row = &old[new.len()];
            changes.ae.entry(row.arm.clone()).or_default().removed += old.len() - new.len();
            changes.corrected_subjects.insert(subject.clone());
        }
    }
}

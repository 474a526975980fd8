//! The records behind two cut-offs' numbers (`derived/records/<cohort>.csv`), compared: a
//! record dated on or before the earlier cut-off that differs between the two folders is a
//! correction of earlier data, one dated after it is new data; an AE whose grade changed is
//! re-graded, not new (docs/OUTPUTS.md, "readout diff").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Date;

/// The header `readout build` writes (`write::outputs`), checked before a row is read: a
/// file of other columns, or of these in another order, is not compared by position.
const HEADER: [&str; 8] = [
    "USUBJID", "ARM", "DATASET", "DATE", "ITEM", "VALUE", "SERIOUS", "FATAL",
];

/// Largest records file compared (a 10^6-subject build writes about 300 MiB); larger ones are
/// left out of the comparison with a line saying so, rather than held whole.
pub const MAX_RECORDS_BYTES: u64 = 512 << 20;

/// The dataset a record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dataset {
    /// A death (ADSL `DTHDT`).
    Adsl,
    /// A response assessment.
    Adrs,
    /// A treatment-emergent adverse event.
    Adae,
}

/// One row of a records file, its texts as numbers in the [`Names`] both files share (a file
/// of millions of rows repeats a few thousand subjects, arms and terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    subject: u32,
    arm: u32,
    dataset: Dataset,
    date: Option<Date>,
    item: u32,
    value: u32,
    serious: bool,
    fatal: bool,
}

/// The texts of both files' records, each once.
#[derive(Default)]
struct Names {
    texts: Vec<Box<str>>,
    numbers: rustc_hash::FxHashMap<Box<str>, u32>,
}

impl Names {
    fn number(&mut self, text: &str) -> u32 {
        if let Some(&n) = self.numbers.get(text) {
            return n;
        }
        // Fewer rows than 2^32 in two files of at most 512 MiB.
        let n = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        self.texts.push(text.into());
        self.numbers.insert(text.into(), n);
        n
    }

    fn text(&self, n: u32) -> &str {
        self.texts.get(n as usize).map_or("", |t| t)
    }
}

/// What reading a records file gave.
enum Read {
    /// The folder has none (written by an older readout).
    Absent,
    /// Over [`MAX_RECORDS_BYTES`]: not compared.
    TooLarge(u64),
    /// The rows.
    Rows(Vec<Row>),
}

/// Reads a records file, its texts numbered in `names`.
fn read(path: &Path, names: &mut Names) -> Result<Read> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(Read::Absent);
    };
    if meta.len() > MAX_RECORDS_BYTES {
        return Ok(Read::TooLarge(meta.len()));
    }
    let file = crate::files::open_regular(path, false).map_err(|why| {
        Error::data_file(
            path,
            format!("{why}; expected records `readout build` wrote"),
        )
    })?;
    let not_written = |what: String| {
        Error::data_file(
            path,
            format!("{what}; expected the records `readout build` wrote"),
        )
    };
    let mut reader = csv::Reader::from_reader(std::io::Read::take(file, MAX_RECORDS_BYTES));
    let header = reader
        .headers()
        .map_err(|e| not_written(format!("not valid CSV: {e}")))?;
    if header.iter().ne(HEADER) {
        return Err(not_written(format!(
            "its header is `{}`, not `{}`",
            crate::error::escape_controls(&header.iter().collect::<Vec<_>>().join(","), false),
            HEADER.join(",")
        )));
    }
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| not_written(format!("not valid CSV: {e}")))?;
        let line = i + 2;
        for (k, cell) in record.iter().enumerate() {
            if let Some((_, c)) = crate::error::find_refused_control(cell) {
                return Err(not_written(format!(
                    "line {line}, column {}: {}",
                    HEADER.get(k).unwrap_or(&"?"),
                    crate::error::refused_character(c)
                )));
            }
        }
        let cell = |k: usize| record.get(k).unwrap_or("");
        let date = match cell(3) {
            "" => None,
            text => Some(Date::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                not_written(format!(
                    "line {line}: DATE `{text}` is not a date (YYYY-MM-DD)"
                ))
            })?),
        };
        let dataset = match cell(2) {
            "ADSL" => Dataset::Adsl,
            "ADRS" => Dataset::Adrs,
            "ADAE" => Dataset::Adae,
            other => {
                return Err(not_written(format!(
                    "line {line}: DATASET `{other}` is not ADSL, ADRS or ADAE"
                )))
            }
        };
        let flag = |k: usize| match cell(k) {
            "Y" => Ok(true),
            "N" | "" => Ok(false),
            other => Err(not_written(format!(
                "line {line}: {} `{other}` is not Y, N or empty",
                HEADER.get(k).unwrap_or(&"?")
            ))),
        };
        rows.push(Row {
            subject: names.number(cell(0)),
            arm: names.number(cell(1)),
            dataset,
            date,
            item: names.number(cell(4)),
            value: names.number(cell(5)),
            serious: flag(6)?,
            fatal: flag(7)?,
        });
    }
    Ok(Read::Rows(rows))
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
    /// Why the records were not compared (a file over [`MAX_RECORDS_BYTES`]).
    pub left_out: Option<String>,
}

/// An arm's AE record changes, by kind.
#[derive(Debug, Default)]
pub struct AeChanges {
    /// AEs starting after the earlier cut-off.
    pub new: usize,
    /// AEs starting on or before it that the earlier cut-off did not have (entered late).
    pub late: usize,
    /// Each of those, naming its subject, term and start.
    pub late_lines: Vec<String>,
    /// AEs whose grade changed.
    pub regraded: Vec<String>,
    /// AEs that became serious or fatal.
    pub upgraded: Vec<String>,
    /// AEs the later cut-off no longer has.
    pub removed: usize,
}

/// The rows of both folders' records of `cohort`, compared; `None` when either folder lacks
/// them.
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
    let mut names = Names::default();
    let (a, b) = match (
        read(&path(before), &mut names)?,
        read(&path(after), &mut names)?,
    ) {
        (Read::Rows(a), Read::Rows(b)) => (a, b),
        (Read::Absent, _) | (_, Read::Absent) => return Ok(None),
        (Read::TooLarge(bytes), _) | (_, Read::TooLarge(bytes)) => {
            return Ok(Some(Changes {
                left_out: Some(format!(
                    "The records of the cohort were not compared: a records file is {} MiB, \
                     over the {} MiB readout compares.",
                    bytes >> 20,
                    MAX_RECORDS_BYTES >> 20
                )),
                ..Changes::default()
            }))
        }
    };
    let view = View {
        boundary: cutoff.or_else(|| a.iter().filter_map(|r| r.date).max()),
        arm_name,
        names: &names,
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

/// How two folders' records are read against each other: the earlier cut-off, how a
/// subject is named, and the records' texts.
struct View<'a> {
    boundary: Option<Date>,
    arm_name: &'a dyn Fn(&str) -> String,
    names: &'a Names,
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

    /// A text of the records.
    fn text(&self, n: u32) -> &str {
        self.names.text(n)
    }

    /// "SUBJ (Vd)", or the subject alone without arms.
    fn who(&self, r: &Row) -> String {
        let subject = self.text(r.subject);
        let arm = self.text(r.arm);
        if arm.is_empty() {
            subject.to_string()
        } else {
            format!("{subject} ({})", (self.arm_name)(arm))
        }
    }

    /// The subject of `r`, as the changes name it.
    fn subject(&self, r: &Row) -> String {
        self.text(r.subject).to_string()
    }

    /// The arm of `r`, as the changes key it.
    fn arm(&self, r: &Row) -> String {
        self.text(r.arm).to_string()
    }
}

/// A date as the lines print it.
fn shown(d: Option<Date>) -> String {
    d.map_or("undated".to_string(), |d| d.to_string())
}

/// Dates of death new, changed or gone.
fn deaths(view: &View<'_>, a: &[Row], b: &[Row], changes: &mut Changes) {
    let deaths = |rows: &[Row]| -> BTreeMap<u32, Row> {
        rows.iter()
            .filter(|r| r.dataset == Dataset::Adsl)
            .map(|r| (r.subject, *r))
            .collect()
    };
    let (dead_a, dead_b) = (deaths(a), deaths(b));
    for (subject, row) in &dead_b {
        match dead_a.get(subject) {
            None if view.earlier(row.date) => {
                changes.corrected_subjects.insert(view.subject(row));
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
                changes.corrected_subjects.insert(view.subject(row));
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
            changes.corrected_subjects.insert(view.subject(row));
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
    let assessments = |rows: &[Row]| -> BTreeMap<(u32, Option<Date>), Vec<Row>> {
        let mut map: BTreeMap<_, Vec<Row>> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.dataset == Dataset::Adrs) {
            map.entry((r.subject, r.date)).or_default().push(*r);
        }
        map
    };
    let (rs_a, rs_b) = (assessments(a), assessments(b));
    let values = |rows: &[Row]| {
        rows.iter()
            .map(|r| view.text(r.value))
            .collect::<Vec<_>>()
            .join("/")
    };
    for (key, rows) in &rs_b {
        let Some(row) = rows.first() else { continue };
        let day = key.1;
        match rs_a.get(key) {
            None if view.earlier(day) => {
                changes.corrected_subjects.insert(view.subject(row));
                changes.corrections.push(format!(
                    "{}: response {} on {} added (dated before the earlier cut-off)",
                    view.who(row),
                    values(rows),
                    shown(day)
                ));
            }
            None => {
                let entry = changes.new_assessments.entry(view.arm(row)).or_default();
                entry.0 += rows.len();
                entry.1.insert(view.subject(row));
            }
            Some(old) if values(old) != values(rows) => {
                changes.corrected_subjects.insert(view.subject(row));
                changes.corrections.push(format!(
                    "{}: response on {} {} → {}",
                    view.who(row),
                    shown(day),
                    values(old),
                    values(rows)
                ));
            }
            Some(_) => {}
        }
    }
    for (key, rows) in &rs_a {
        let Some(row) = rows.first() else { continue };
        if !rs_b.contains_key(key) {
            changes.corrected_subjects.insert(view.subject(row));
            changes.corrections.push(format!(
                "{}: response {} on {} removed",
                view.who(row),
                values(rows),
                shown(key.1)
            ));
        }
    }
}

/// AEs by subject, term and start date: new, entered late, re-graded, now serious or fatal,
/// removed; new deaths, serious and grade 5 AEs listed.
fn adverse_events(view: &View<'_>, a: &[Row], b: &[Row], changes: &mut Changes) {
    // AEs by subject, term and start date; several records of one key are paired in order of
    // grade, so one re-graded record is one change.
    let events = |rows: &[Row]| -> BTreeMap<(u32, u32, Option<Date>), Vec<Row>> {
        let mut map: BTreeMap<_, Vec<Row>> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.dataset == Dataset::Adae) {
            map.entry((r.subject, r.item, r.date)).or_default().push(*r);
        }
        for list in map.values_mut() {
            list.sort_by(|x, y| {
                (view.text(x.value), x.serious, x.fatal).cmp(&(
                    view.text(y.value),
                    y.serious,
                    y.fatal,
                ))
            });
        }
        map
    };
    let (ae_a, ae_b) = (events(a), events(b));
    let grade = |r: &Row| match view.text(r.value) {
        "" => "no grade".to_string(),
        g => format!("grade {g}"),
    };
    let empty = Vec::new();
    let keys: BTreeSet<_> = ae_a.keys().chain(ae_b.keys()).copied().collect();
    for key in keys {
        let (old, new) = (
            ae_a.get(&key).unwrap_or(&empty),
            ae_b.get(&key).unwrap_or(&empty),
        );
        let (_, term, start) = key;
        let term = view.text(term);
        for (i, row) in new.iter().enumerate() {
            let arm = changes.ae.entry(view.arm(row)).or_default();
            let is_new = match old.get(i) {
                Some(before) => {
                    if before.value != row.value {
                        arm.regraded.push(format!(
                            "{}: {term} (started {}) {} → {}",
                            view.who(row),
                            shown(start),
                            grade(before),
                            grade(row)
                        ));
                        changes.corrected_subjects.insert(view.subject(row));
                    }
                    let now = [
                        (row.serious && !before.serious).then_some("serious"),
                        (row.fatal && !before.fatal).then_some("fatal"),
                    ];
                    for what in now.into_iter().flatten() {
                        arm.upgraded.push(format!(
                            "{}: {term} (started {}) now {what}",
                            view.who(row),
                            shown(start)
                        ));
                    }
                    false
                }
                None => {
                    if view.earlier(start) {
                        arm.late += 1;
                        arm.late_lines.push(format!(
                            "{}: {term} ({}, started {})",
                            view.who(row),
                            grade(row),
                            shown(start)
                        ));
                        changes.corrected_subjects.insert(view.subject(row));
                    } else {
                        arm.new += 1;
                    }
                    true
                }
            };
            let is_five = |r: &Row| view.text(r.value) == "5";
            let grade5 = is_five(row) && old.get(i).is_none_or(|b| !is_five(b));
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
                    shown(start)
                ));
            }
        }
        if let Some(row) = old.get(new.len()) {
            changes.ae.entry(view.arm(row)).or_default().removed += old.len() - new.len();
            changes.corrected_subjects.insert(view.subject(row));
        }
    }
}

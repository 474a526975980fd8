//! `data.where`: the rows of a dataset kept by their columns' values, as the file is read and
//! before any row is interpreted (docs/CONFIG.md, "Row filters"). A filter that keeps no row
//! is an error; a value no row holds is a warning.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use indexmap::IndexMap;

use super::*;
use crate::results::RowsKept;

/// Most distinct values of a column remembered to name in messages.
const VALUES_NAMED: usize = 20;

/// One dataset's filter: every condition must hold for a row to be kept.
#[derive(Debug, Default)]
pub struct RowFilter {
    /// The dataset's key in `data` (`adrs`).
    dataset: String,
    conditions: Vec<Condition>,
    kept: usize,
    dropped: usize,
    /// ADSL's filter: the subjects (`USUBJID`) of the rows it left out, whose rows in the
    /// other datasets are left out with them.
    removed: Option<FxHashSet<Box<str>>>,
    /// Another dataset's filter: the subjects ADSL's filter left out, and how many rows of
    /// theirs this filter left out.
    without: Option<(Arc<FxHashSet<Box<str>>>, usize)>,
}

#[derive(Debug)]
struct Condition {
    column: String,
    values: Vec<String>,
    /// Rows holding each value.
    hits: Vec<usize>,
    /// Some of the column's values, for messages.
    seen: BTreeSet<String>,
}

impl RowFilter {
    /// The filter of `dataset` in the config's `data.where` (empty: every row kept).
    pub fn of(cfg: &LoadedConfig, dataset: &str) -> RowFilter {
        let conditions = cfg
            .config
            .data
            .filters
            .get(dataset)
            .into_iter()
            .flatten()
            .map(|(column, values)| (column.clone(), values.texts()));
        RowFilter::new(dataset, conditions)
    }

    /// A filter keeping the rows whose every column holds one of its values.
    pub(super) fn new(
        dataset: &str,
        conditions: impl IntoIterator<Item = (String, Vec<String>)>,
    ) -> RowFilter {
        let conditions = conditions
            .into_iter()
            .map(|(column, values)| Condition {
                column,
                hits: vec![0; values.len()],
                values,
                seen: BTreeSet::new(),
            })
            .collect();
        RowFilter {
            dataset: dataset.to_string(),
            removed: (dataset == "adsl").then(FxHashSet::default),
            conditions,
            kept: 0,
            dropped: 0,
            without: None,
        }
    }

    /// The same, also leaving out the rows of `subjects` (those ADSL's filter left out).
    pub(super) fn without_subjects(mut self, subjects: &Arc<FxHashSet<Box<str>>>) -> RowFilter {
        if !subjects.is_empty() {
            self.without = Some((Arc::clone(subjects), 0));
        }
        self
    }

    /// The subjects of the ADSL rows left out (empty for another dataset's filter).
    pub(super) fn take_removed(&mut self) -> FxHashSet<Box<str>> {
        self.removed.take().unwrap_or_default()
    }

    /// Forgets the rows counted so far (a file read anew from its start).
    pub(super) fn restart(&mut self) {
        self.kept = 0;
        self.dropped = 0;
        if let Some(removed) = &mut self.removed {
            removed.clear();
        }
        if let Some((_, rows)) = &mut self.without {
            *rows = 0;
        }
        for c in &mut self.conditions {
            c.hits.iter_mut().for_each(|h| *h = 0);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty() && self.without.is_none()
    }

    /// Keeps the rows of `table` (a whole file or one part of it) the filter keeps.
    pub fn apply(&mut self, table: &mut CsvTable) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        // Rows of the subjects ADSL's filter left out go first: they are no row of the study.
        if let Some((subjects, rows)) = &mut self.without {
            let id = table.require("USUBJID")?;
            let mut keep = Vec::with_capacity(table.len());
            for row in 0..table.len() {
                keep.push(!subjects.contains(table.cell_text(row, id)?));
            }
            *rows += keep.iter().filter(|k| !**k).count();
            table.retain_rows(&keep);
            if self.conditions.is_empty() {
                self.kept += table.len();
                return Ok(());
            }
        }
        let mut columns = Vec::with_capacity(self.conditions.len());
        for c in &self.conditions {
            let Some(i) = table.column(&c.column) else {
                return Err(Error::data_file(
                    table.path(),
                    format!(
                        "column `{}` named in `data.where.{}` is not in the file; its header has: {}",
                        c.column,
                        self.dataset,
                        table.headers().join(", ")
                    ),
                ));
            };
            columns.push(i);
        }
        let mut keep = Vec::with_capacity(table.len());
        for row in 0..table.len() {
            let mut kept = true;
            for (c, &column) in self.conditions.iter_mut().zip(&columns) {
                let text = table.cell_text(row, column)?;
                match c.values.iter().position(|v| v == text) {
                    Some(at) => {
                        if let Some(h) = c.hits.get_mut(at) {
                            *h += 1;
                        }
                    }
                    None => kept = false,
                }
                if c.seen.len() < VALUES_NAMED && !c.seen.contains(text) {
                    c.seen.insert(text.to_string());
                }
            }
            keep.push(kept);
        }
        let kept = keep.iter().filter(|&&k| k).count();
        self.kept += kept;
        self.dropped += keep.len() - kept;
        if let Some(removed) = &mut self.removed {
            let id = table.require("USUBJID")?;
            for (row, _) in keep.iter().enumerate().filter(|(_, k)| !**k) {
                removed.insert(table.cell_text(row, id)?.into());
            }
        }
        table.retain_rows(&keep);
        Ok(())
    }

    /// After the whole file: an error when no row was kept, a warning per value no row holds,
    /// and what was kept for results.json (`None` without a filter).
    pub fn finish(self, path: &Path) -> Result<(Option<RowsKept>, Vec<Diagnostic>)> {
        if self.is_empty() {
            return Ok((None, Vec::new()));
        }
        let left_with_subjects = self.without.as_ref().map_or(0, |(_, rows)| *rows);
        if self.conditions.is_empty() {
            // Only ADSL's filter's subjects left out: said when there were rows of theirs.
            return Ok((
                (left_with_subjects > 0).then(|| RowsKept {
                    dataset: self.dataset,
                    columns: IndexMap::new(),
                    kept: self.kept,
                    dropped: left_with_subjects,
                    of_subjects_left_out: left_with_subjects,
                }),
                Vec::new(),
            ));
        }
        let quoted = |values: &mut dyn Iterator<Item = &str>| {
            values
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let named = |c: &Condition| {
            let more = if c.seen.len() == VALUES_NAMED {
                ", \"…\""
            } else {
                ""
            };
            format!("{}{more}", quoted(&mut c.seen.iter().map(String::as_str)))
        };
        if self.kept == 0 {
            let conditions = self
                .conditions
                .iter()
                .map(|c| {
                    format!(
                        "{} in [{}] (its values: {})",
                        c.column,
                        quoted(&mut c.values.iter().map(String::as_str)),
                        named(c)
                    )
                })
                .collect::<Vec<_>>()
                .join(" and ");
            return Err(Error::data_file(
                path,
                format!(
                    "`data.where.{}` keeps no row: no row has {conditions}; expected the \
                     values of the rows to keep",
                    self.dataset
                ),
            ));
        }
        let mut warnings = Vec::new();
        for c in &self.conditions {
            // One warning per column, naming the first values no row holds.
            let unmatched: Vec<&str> = c
                .values
                .iter()
                .zip(&c.hits)
                .filter(|(_, &h)| h == 0)
                .map(|(v, _)| v.as_str())
                .collect();
            if unmatched.is_empty() {
                continue;
            }
            let shown = quoted(&mut unmatched.iter().take(VALUES_NAMED).copied());
            let more = match unmatched.len().saturating_sub(VALUES_NAMED) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            warnings.push(
                Diagnostic::warning(
                    Kind::RowFilter,
                    format!(
                        "{}: no row has {} = {shown}{more} (`data.where.{}`); its values: {}",
                        path.display(),
                        c.column,
                        self.dataset,
                        named(c)
                    ),
                )
                .at(file_location(path))
                .hint("check the value's spelling and case in the data"),
            );
        }
        let columns: IndexMap<String, Vec<String>> = self
            .conditions
            .into_iter()
            .map(|c| (c.column, c.values))
            .collect();
        Ok((
            Some(RowsKept {
                dataset: self.dataset,
                columns,
                kept: self.kept,
                dropped: self.dropped + left_with_subjects,
                of_subjects_left_out: left_with_subjects,
            }),
            warnings,
        ))
    }
}

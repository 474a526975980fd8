//! What the report's tables share: the formats of numbers, a column per arm (and the
//! total), header rows, and how ratios and p-values are printed in a cell.

use crate::format::{fixed, fmt_count_pct, fmt_limits, fmt_p};
use crate::results::{CohortResults, Estimate};
use crate::stats::Ci;

use super::model::*;

/// A header row: the first column text, the others numbers.
pub(super) fn header(labels: &[&str]) -> Row {
    Row::of(
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    Cell::text(*l)
                } else {
                    Cell::num(*l)
                }
            })
            .collect(),
    )
}

/// Number formats of one cohort's settings.
pub(super) struct Formats {
    pub(super) pd: usize,
    pub(super) td: usize,
    pub(super) level: String,
    pub(super) unit: &'static str,
    /// How terms are ordered (`analysis.ae_sort`).
    pub(super) ae_sort: crate::config::AeSort,
}

impl Formats {
    pub(super) fn count_pct(&self, n: usize, total: usize) -> String {
        fmt_count_pct(n as u64, total as u64, self.pd)
    }

    /// "1.4+–20.3": the shortest and longest time, `+` where only censored there.
    pub(super) fn range(&self, r: Option<&crate::results::TimeRange>) -> String {
        r.map_or("–".to_string(), |r| {
            format!(
                "{}{}–{}{}",
                fixed(r.min, self.td),
                if r.min_censored { "+" } else { "" },
                fixed(r.max, self.td),
                if r.max_censored { "+" } else { "" }
            )
        })
    }

    /// [`Formats::count_pct`] of a count the data may not give: "–" then, never 0.
    pub(super) fn maybe_count_pct(&self, n: Option<usize>, total: usize) -> String {
        n.map_or("–".to_string(), |n| self.count_pct(n, total))
    }

    /// "8.41 (2.83, NE)"; "NR (2.83, NE)" when not reached.
    pub(super) fn estimate(&self, e: &Estimate) -> String {
        let point = match e.estimate {
            Some(x) => fixed(x, self.td),
            None => "NR".to_string(),
        };
        format!("{point} ({})", fmt_limits(e.lower, e.upper, self.td, false))
    }

    /// "9.66 (8.45, 10.87)": an RMST with its interval.
    pub(super) fn rmst(&self, r: &crate::results::RmstResult) -> String {
        format!(
            "{} ({})",
            fixed(r.estimate, self.td),
            fmt_limits(Some(r.lower), Some(r.upper), self.td, false)
        )
    }

    /// "2.8 (1.2–11.0)": a time to response's median and range among responders.
    pub(super) fn time_to_response(&self, t: &crate::results::TimeToResponse) -> String {
        format!(
            "{} ({}–{})",
            fixed(t.median, self.td),
            fixed(t.min, self.td),
            fixed(t.max, self.td),
        )
    }

    /// "RMST to 22.2 months (95% CI)".
    pub(super) fn rmst_name(&self, tau: f64) -> String {
        format!(
            "RMST to {} {} ({}% CI)",
            fixed(tau, self.td),
            self.unit,
            self.level
        )
    }
}

/// A column of the report's tables: one arm, all arms together ("Total"), or the whole cohort
/// of a single-arm study.
pub(super) struct Column<'a> {
    /// The header (an arm's short name, `Total`, `Subjects`).
    pub(super) name: String,
    /// The arm's value in the arms column (`None`: the total or a cohort without arms).
    pub(super) arm: Option<&'a str>,
    pub(super) r: &'a CohortResults,
}

/// The columns of a cohort's tables: one per arm and, with `total`, all subjects after them;
/// the cohort alone when it has no arms.
pub(super) fn columns(c: &CohortResults, total: bool) -> Vec<Column<'_>> {
    if c.arms.is_empty() {
        return vec![Column {
            name: "Subjects".to_string(),
            arm: None,
            r: c,
        }];
    }
    let mut columns: Vec<Column> = c
        .arms
        .iter()
        .map(|a| Column {
            name: c.arm_short(&a.arm).to_string(),
            arm: Some(a.arm.as_str()),
            r: &a.results,
        })
        .collect();
    if total {
        columns.push(Column {
            name: "Total".to_string(),
            arm: None,
            r: c,
        });
    }
    columns
}

/// A row: a first cell, then one number cell per column.
pub(super) fn row_of(
    first: Cell,
    columns: &[Column],
    value: impl Fn(&CohortResults) -> String,
) -> Row {
    let mut cells = vec![first];
    cells.extend(columns.iter().map(|col| Cell::num(value(col.r))));
    Row::of(cells)
}

/// A header row: the first label, then one per column.
pub(super) fn column_header(
    first: &str,
    columns: &[Column],
    name: impl Fn(&Column) -> String,
) -> Row {
    let mut cells = vec![Cell::text(first)];
    cells.extend(columns.iter().map(|col| Cell::num(name(col))));
    Row::of(cells)
}

/// "0.57 (0.41–0.80)"; "NE" when not estimable.
pub(super) fn ratio(r: Option<&Ci>) -> String {
    match r {
        Some(r) => format!(
            "{} ({}–{})",
            fixed(r.estimate, 2),
            fixed(r.lower, 2),
            fixed(r.upper, 2)
        ),
        None => "NE".to_string(),
    }
}

/// A p-value without its `p`: "< 0.001", "0.046".
pub(super) fn p_only(p: Option<f64>) -> String {
    let text = fmt_p(p);
    text.trim_start_matches("p = ")
        .trim_start_matches("p ")
        .to_string()
}

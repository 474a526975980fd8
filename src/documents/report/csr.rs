//! The report's standard safety tables, as a clinical study report has them: TEAEs (and the
//! serious, leading to discontinuation and fatal ones) by system organ class with their
//! preferred terms beneath, each arm and the total as "n (x.x%)", optionally "[events]"; and the
//! TEAEs in at least `ae_common_pct`% of the subjects of any arm (docs/OUTPUTS.md).

use std::collections::HashMap;

use crate::results::{CohortResults, Safety, SocCount};

use super::model::*;
use super::table::*;

/// A column's classes by upper-case name, each with its terms' (subjects, events).
type Lookup<'a> = HashMap<String, (&'a SocCount, HashMap<String, (usize, usize)>)>;

/// What the config asks of the tables.
pub(super) struct CsrOptions {
    /// Print records beside subjects.
    pub(super) events: bool,
    /// The common-TEAE table's threshold, in percent.
    pub(super) common_pct: f64,
}

/// One column's safety results: its subjects and tables.
struct Col<'a> {
    header: String,
    safety: Option<&'a Safety>,
}

/// The kinds of table, with the part of the title after "treatment-emergent adverse events",
/// the "Any" row's label, and how to pick its classes and records.
type PickSocs = fn(&Safety) -> Option<&Vec<SocCount>>;
type PickCount = fn(&Safety) -> (Option<usize>, Option<usize>);

const KINDS: [(&str, &str, PickSocs, PickCount); 4] = [
    (
        "Treatment-emergent adverse events",
        "Any TEAE",
        |s| Some(&s.by_soc),
        |s| (Some(s.teae.any), Some(s.events.any)),
    ),
    (
        "Serious treatment-emergent adverse events",
        "Any serious TEAE",
        |s| s.serious_by_soc.as_ref(),
        |s| (s.teae.serious, s.events.serious),
    ),
    (
        "Treatment-emergent adverse events leading to treatment discontinuation",
        "Any TEAE leading to discontinuation",
        |s| s.discontinuation_by_soc.as_ref(),
        |s| (s.teae.discontinued, s.events.discontinued),
    ),
    (
        "Fatal treatment-emergent adverse events",
        "Any fatal TEAE",
        |s| s.fatal_by_soc.as_ref(),
        |s| (s.teae.fatal, s.events.fatal),
    ),
];

/// The blocks of the tables: a numbered caption (numbered when the report is assembled) and
/// the table, for each kind the data give (serious, discontinuation and fatal only when some
/// subject has one), then the common TEAEs.
pub(super) fn tables(c: &CohortResults, f: &Formats, o: &CsrOptions) -> Vec<Block> {
    let columns: Vec<Col> = columns(c, true)
        .into_iter()
        .map(|col| {
            let safety = col.r.safety.as_ref();
            let n = safety.map_or(0, |s| s.total);
            Col {
                header: if c.arms.is_empty() {
                    format!("All subjects (N = {n})")
                } else {
                    format!("{} (N = {n})", col.name)
                },
                safety,
            }
        })
        .collect();
    // The cohort's own (the total) fixes the order of classes and terms.
    let Some(total) = c.safety.as_ref() else {
        return Vec::new();
    };
    let mut blocks = Vec::new();
    for (i, (title, any, pick, count)) in KINDS.into_iter().enumerate() {
        let Some(socs) = pick(total) else { continue };
        if i > 0 && socs.is_empty() {
            continue;
        }
        let cell =
            |safety: Option<&Safety>, n: Option<usize>, events: Option<usize>| match (safety, n) {
                (Some(s), Some(n)) => {
                    let mut text = f.count_pct(n, s.total);
                    if o.events && n > 0 {
                        text.push_str(&format!(" [{}]", events.unwrap_or(0)));
                    }
                    Cell::num(text)
                }
                _ => Cell::num("–"),
            };
        let mut any_row = vec![Cell::text(any)];
        any_row.extend(columns.iter().map(|col| {
            let (n, events) = col.safety.map_or((None, None), count);
            cell(col.safety, n, events)
        }));
        let mut body = vec![Row::with_class("total", any_row)];
        // Each column's classes and terms by upper-case name, to find a row's counts.
        let lookups: Vec<Lookup> = columns
            .iter()
            .map(|col| {
                col.safety
                    .and_then(pick)
                    .into_iter()
                    .flatten()
                    .map(|s| {
                        let terms = s
                            .terms
                            .iter()
                            .map(|t| (t.term.to_uppercase(), (t.subjects, t.events)))
                            .collect();
                        (s.soc.to_uppercase(), (s, terms))
                    })
                    .collect()
            })
            .collect();
        for soc in socs {
            let key = soc.soc.to_uppercase();
            let mut cells = vec![Cell::text(soc.soc.clone())];
            cells.extend(columns.iter().zip(&lookups).map(|(col, by)| {
                let found = by.get(&key).map(|(s, _)| (s.subjects, s.events));
                cell(
                    col.safety,
                    col.safety.map(|_| found.map_or(0, |f| f.0)),
                    found.map(|f| f.1),
                )
            }));
            body.push(Row::with_class("group", cells));
            for term in &soc.terms {
                let tkey = term.term.to_uppercase();
                let mut cells = vec![Cell::level(term.term.clone())];
                cells.extend(columns.iter().zip(&lookups).map(|(col, by)| {
                    let found = by
                        .get(&key)
                        .and_then(|(_, terms)| terms.get(&tkey))
                        .copied();
                    cell(
                        col.safety,
                        col.safety.map(|_| found.map_or(0, |f| f.0)),
                        found.map(|f| f.1),
                    )
                }));
                body.push(Row::of(cells));
            }
        }
        let mut head = vec![Cell::text("System organ class / Preferred term")];
        head.extend(columns.iter().map(|col| {
            Cell::num(if o.events {
                format!("{}, n (%) [events]", col.header)
            } else {
                format!("{}, n (%)", col.header)
            })
        }));
        blocks.push(Block::caption(format!(
            "{title} by system organ class and preferred term, safety population"
        )));
        blocks.push(Block::Table(Table {
            caption: None,
            class: Some(if columns.len() > 2 {
                "terms wide"
            } else {
                "terms"
            }),
            head: vec![Row::of(head)],
            body,
        }));
    }
    blocks.extend(common(&columns, total, f, o));
    blocks
}

/// The TEAEs in at least `common_pct`% of the subjects of any column but the total, by
/// preferred term, most frequent overall first.
fn common(columns: &[Col], total: &Safety, f: &Formats, o: &CsrOptions) -> Vec<Block> {
    let arms = if columns.len() > 1 {
        &columns[..columns.len() - 1]
    } else {
        columns
    };
    // Subjects per term and column (a term under one class only, as MedDRA codes it).
    let per_term = |s: &Safety| -> HashMap<String, usize> {
        s.by_soc
            .iter()
            .flat_map(|soc| &soc.terms)
            .map(|t| (t.term.to_uppercase(), t.subjects))
            .collect()
    };
    let counts: Vec<HashMap<String, usize>> = columns
        .iter()
        .map(|col| col.safety.map(per_term).unwrap_or_default())
        .collect();
    let mut terms: Vec<(&str, usize)> = total
        .by_soc
        .iter()
        .flat_map(|soc| &soc.terms)
        .filter(|t| {
            let key = t.term.to_uppercase();
            arms.iter().zip(&counts).any(|(col, by)| {
                col.safety.is_some_and(|s| {
                    let n = by.get(&key).copied().unwrap_or(0);
                    s.total > 0 && n as f64 * 100.0 >= o.common_pct * s.total as f64
                })
            })
        })
        .map(|t| (t.term.as_str(), t.subjects))
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    terms.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let body = terms
        .iter()
        .map(|(term, _)| {
            let key = term.to_uppercase();
            let mut cells = vec![Cell::text(*term)];
            cells.extend(
                columns
                    .iter()
                    .zip(&counts)
                    .map(|(col, by)| match col.safety {
                        Some(s) => {
                            Cell::num(f.count_pct(by.get(&key).copied().unwrap_or(0), s.total))
                        }
                        None => Cell::num("–"),
                    }),
            );
            Row::of(cells)
        })
        .collect();
    let mut head = vec![Cell::text("Preferred term")];
    head.extend(
        columns
            .iter()
            .map(|col| Cell::num(format!("{}, n (%)", col.header))),
    );
    let pct = crate::format::fmt_plain(o.common_pct);
    let of = if columns.len() > 1 { " in any arm" } else { "" };
    vec![
        Block::caption(format!(
            "Treatment-emergent adverse events in at least {pct}% of subjects{of}, by \
             preferred term, safety population"
        )),
        Block::Table(Table {
            caption: None,
            class: Some("terms"),
            head: vec![Row::of(head)],
            body,
        }),
    ]
}

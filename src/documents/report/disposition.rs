//! The report's disposition and exposure section (per arm and in total for a cohort with arms).

use crate::format::fixed;
use crate::results::{CohortResults, Disposition};

use super::model::*;
use super::table::*;

pub(super) fn disposition(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.disposition.is_none() && c.exposure.is_none() {
        return None;
    }
    let columns = columns(c, true);
    let mut blocks = Vec::new();
    // One table, a block of rows per level (end of treatment, end of study).
    let levels: Vec<&Disposition> = c.disposition.iter().chain(&c.study_disposition).collect();
    if !levels.is_empty() {
        let mut body = Vec::new();
        let mut sources = Vec::new();
        for d in &levels {
            body.extend(level_rows(d, levels.len() > 1, &columns, f));
            sources.push(level_sources(d));
        }
        let n_of = |r: &CohortResults| r.disposition.as_ref().map_or(0, |d| d.total);
        // Each table its own title when the section holds both.
        if c.exposure.is_some() {
            blocks.push(Block::caption("Disposition"));
        }
        blocks.push(Block::Table(Table {
            caption: None,
            class: (columns.len() > 2).then_some("wide"),
            head: vec![column_header("Disposition", &columns, |col| {
                format!("{} (N = {}), n (%)", col.name, n_of(col.r))
            })],
            body,
        }));
        blocks.push(Block::Note {
            text: format!("ADSL: {}.", sources.join("; ")),
        });
    }
    if let Some(e) = &c.exposure {
        if !levels.is_empty() {
            blocks.push(Block::caption("Exposure"));
        }
        blocks.extend(exposure_blocks(e, &columns, f));
    }
    Some(Section {
        id: "disposition",
        heading: match (&c.disposition, &c.exposure) {
            (Some(_), Some(_)) => "Disposition and exposure",
            (Some(_), None) => "Disposition",
            _ => "Exposure",
        }
        .to_string(),
        blocks,
    })
}

/// One disposition level's rows (its heading row when `several` levels share the table): each
/// column's completed, discontinued and why, ongoing, never treated, unrecognised statuses and
/// discontinued because of adverse events.
fn level_rows(d: &Disposition, several: bool, columns: &[Column<'_>], f: &Formats) -> Vec<Row> {
    // The same level of each column's results.
    let of = |r: &'_ CohortResults| -> Option<Disposition> {
        r.disposition
            .iter()
            .chain(&r.study_disposition)
            .find(|x| x.level == d.level)
            .cloned()
    };
    let count = |pick: fn(&Disposition) -> usize| {
        move |r: &CohortResults| of(r).map_or("–".to_string(), |d| f.count_pct(pick(&d), d.total))
    };
    let mut body = Vec::new();
    if several {
        body.push(Row::with_class(
            "group",
            vec![Cell::text(d.label.clone()).span(columns.len() as u32 + 1, 1)],
        ));
    }
    body.push(row_of(
        Cell::text("Completed"),
        columns,
        count(|d| d.completed),
    ));
    body.push(row_of(
        Cell::text("Discontinued"),
        columns,
        count(|d| d.discontinued),
    ));
    for reason in &d.reasons {
        let name = reason.reason.clone();
        body.push(row_of(Cell::level(name.clone()), columns, |r| {
            of(r).map_or("–".to_string(), |d| {
                let n = d
                    .reasons
                    .iter()
                    .find(|x| x.reason == name)
                    .map_or(0, |x| x.n);
                f.count_pct(n, d.total)
            })
        }));
    }
    body.push(row_of(Cell::text("Ongoing"), columns, count(|d| d.ongoing)));
    if d.not_treated.is_some() {
        body.push(row_of(Cell::text("Never treated"), columns, |r| {
            of(r).map_or("–".to_string(), |d| {
                d.not_treated
                    .map_or("–".to_string(), |n| f.count_pct(n, d.total))
            })
        }));
    }
    for other in &d.other {
        let name = other.reason.clone();
        body.push(row_of(
            Cell::text(format!("Status \"{name}\" (not recognised)")),
            columns,
            |r| {
                of(r).map_or("–".to_string(), |d| {
                    let n = d.other.iter().find(|x| x.reason == name).map_or(0, |x| x.n);
                    f.count_pct(n, d.total)
                })
            },
        ));
    }
    body.push(row_of(
        Cell::text(match &d.discontinued_ae_source {
            Some(source) => format!(
                "Discontinued because of adverse events ({})",
                crate::documents::prose::ae_discontinuation_source(source)
            ),
            None => "Discontinued because of adverse events".to_string(),
        }),
        columns,
        |r| match of(r) {
            Some(d) => d
                .discontinued_ae
                .map_or("not available".to_string(), |n| f.count_pct(n, d.total)),
            None => "–".to_string(),
        },
    ));
    body
}

/// Where a level's numbers come from, for the table's note.
fn level_sources(d: &Disposition) -> String {
    let mut said = Vec::new();
    if let Some(s) = &d.status_column {
        said.push(format!("status from {s}"));
    }
    if let Some(r) = &d.reason_column {
        said.push(format!("reasons from {r}"));
    }
    if let Some(a) = &d.discontinued_ae_source {
        said.push(format!(
            "discontinuation because of adverse events from {a}"
        ));
    }
    format!("{}: {}", d.label, said.join(", "))
}

/// The exposure table and its note: duration, patient-years and dose per column.
fn exposure_blocks(
    e: &crate::results::Exposure,
    columns: &[Column<'_>],
    f: &Formats,
) -> Vec<Block> {
    let value = |pick: fn(&crate::results::Exposure) -> String| {
        move |r: &CohortResults| r.exposure.as_ref().map_or("–".to_string(), pick)
    };
    let td = f.td;
    let body = vec![
        row_of(
            Cell::text("Subjects with a duration"),
            columns,
            value(|e| e.n.to_string()),
        ),
        row_of(
            Cell::text(format!("Treatment duration, median (range), {}", f.unit)),
            columns,
            |r| {
                r.exposure.as_ref().map_or("–".to_string(), |e| {
                    let d = &e.duration;
                    format!(
                        "{} ({}–{})",
                        fixed(d.median, td),
                        fixed(d.min, td),
                        fixed(d.max, td)
                    )
                })
            },
        ),
        row_of(
            Cell::text(format!("Treatment duration, mean (SD), {}", f.unit)),
            columns,
            |r| {
                r.exposure.as_ref().map_or("–".to_string(), |e| {
                    let d = &e.duration;
                    format!(
                        "{} ({})",
                        fixed(d.mean, td),
                        d.sd.map_or("NE".to_string(), |s| fixed(s, td))
                    )
                })
            },
        ),
        row_of(Cell::text("Patient-years"), columns, |r| {
            r.exposure
                .as_ref()
                .map_or("–".to_string(), |e| fixed(e.patient_years, 1))
        }),
    ];
    let mut body = body;
    for column in e.dose.keys() {
        // `CUMDOSE` or `CUMDOSE, DRUG`: the summary, then the drug and the unit where known.
        let (summary, drug) = column
            .split_once(", ")
            .map_or((column.as_str(), None), |(c, d)| (c, Some(d)));
        let what = match summary {
            "CUMDOSE" => "Cumulative dose",
            "AVGDD" => "Average daily dose",
            _ => "Relative dose intensity",
        };
        let unit = e
            .dose_units
            .get(column)
            .map(String::as_str)
            .or((summary == "RDI").then_some("%"));
        let name = format!(
            "{what}{}{}, median (range)",
            drug.map_or(String::new(), |d| format!(", {d}")),
            unit.map_or(String::new(), |u| format!(" ({u})"))
        );
        body.push(row_of(Cell::text(name), columns, |r| {
            r.exposure
                .as_ref()
                .and_then(|e| e.dose.get(column))
                .map_or("–".to_string(), |d| {
                    format!(
                        "{} ({}–{})",
                        fixed(d.median, td),
                        fixed(d.min, td),
                        fixed(d.max, td)
                    )
                })
        }));
    }
    let table = Block::Table(Table {
        caption: None,
        class: (columns.len() > 2).then_some("wide"),
        head: vec![column_header("Exposure", columns, |col| {
            let n = col.r.n.safety;
            format!("{} (N = {n})", col.name)
        })],
        body,
    });
    let mut note = format!("Duration from {}", e.source);
    if e.ongoing > 0 {
        note.push_str(&format!(
            "; {} subject(s) still on treatment, counted to the data cut-off (or by the ADSL duration)",
            e.ongoing
        ));
    }
    if e.missing > 0 {
        note.push_str(&format!(
            "; {} subject(s) without a duration left out",
            e.missing
        ));
    }
    note.push('.');
    vec![table, Block::Note { text: note }]
}

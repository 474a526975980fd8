//! The cohort report as data: its sections, tables (every cell as printed), notes and the
//! place of the figures, built once from a cohort's results. `report.html` renders it with
//! Tera (as `report` in the template context) and `docx` writes it as `report.docx`, so a
//! table is defined here and nowhere else (docs/ARCHITECTURE.md).

use serde::Serialize;

use crate::config::{Analysis, Study};

use crate::documents::prose::sentence_case;
use crate::format::fmt_p;
use crate::format::{fixed, fmt_count_pct, fmt_limits, fmt_pct, fmt_plain, long_date};
use crate::results::{
    AeCounts, AeGrading, BaselineSummary, CohortResults, Estimate, LevelCount, Proportion,
    ProportionDifference, ResponseResults, Safety, TermCounts, TteComparison, TteResults,
};
use crate::stats::Ci;

/// A cohort report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The line above the title ("Cohort report · study (registry id)").
    pub kicker: String,
    /// The facts under the title (cohort, cut-off, design, regimen).
    pub facts: Vec<Fact>,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// A label and its value, under the title.
#[derive(Debug, Clone, Serialize)]
pub struct Fact {
    /// "Cohort", "Data cut-off", ...
    pub label: String,
    /// Its value, as printed.
    pub value: String,
}

/// A section: a heading and its blocks.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Anchor (`populations`, `baseline`, `response`, ...).
    pub id: &'static str,
    /// The heading.
    pub heading: String,
    /// What follows the heading.
    pub blocks: Vec<Block>,
}

/// A part of a section.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Block {
    /// A table.
    Table(Table),
    /// A heading below the section's.
    Subheading {
        /// Its text.
        text: String,
    },
    /// A paragraph.
    Paragraph {
        /// Its text.
        text: String,
    },
    /// A note in small print (abbreviations, how the data were graded).
    Note {
        /// Its text.
        text: String,
    },
    /// A bulleted list.
    List {
        /// Its items.
        items: Vec<String>,
    },
    /// The cohort's figures, with their captions, numbered in order.
    Figures,
}

/// A table: header rows and body rows.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// Layout class (`wide`: many numeric columns; `terms`: a long list of terms).
    pub class: Option<&'static str>,
    /// Header rows.
    pub head: Vec<Row>,
    /// Body rows.
    pub body: Vec<Row>,
}

/// A table row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// `group` (a characteristic's name above its levels) or `total` (a summary line).
    pub class: Option<&'static str>,
    /// Its cells.
    pub cells: Vec<Cell>,
}

/// A table cell, its text as printed.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The text.
    pub text: String,
    /// A number (right-aligned).
    pub num: bool,
    /// A level under a group row (indented).
    pub level: bool,
    /// Columns spanned.
    pub colspan: u32,
    /// Rows spanned.
    pub rowspan: u32,
}

impl Cell {
    /// A text cell.
    fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            num: false,
            level: false,
            colspan: 1,
            rowspan: 1,
        }
    }

    /// A number cell.
    fn num(text: impl Into<String>) -> Cell {
        Cell {
            num: true,
            ..Cell::text(text)
        }
    }

    /// A level under a group row.
    fn level(text: impl Into<String>) -> Cell {
        Cell {
            level: true,
            ..Cell::text(text)
        }
    }

    fn span(self, colspan: u32, rowspan: u32) -> Cell {
        Cell {
            colspan,
            rowspan,
            ..self
        }
    }
}

impl Row {
    fn of(cells: Vec<Cell>) -> Row {
        Row { class: None, cells }
    }

    fn with_class(class: &'static str, cells: Vec<Cell>) -> Row {
        Row {
            class: Some(class),
            cells,
        }
    }
}

/// A header row: the first column text, the others numbers.
fn header(labels: &[&str]) -> Row {
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
struct Formats {
    pd: usize,
    td: usize,
    level: String,
    unit: &'static str,
}

impl Formats {
    fn count_pct(&self, n: usize, total: usize) -> String {
        fmt_count_pct(n as u64, total as u64, self.pd)
    }

    /// "8.41 (2.83, NE)"; "NR (2.83, NE)" when not reached.
    fn estimate(&self, e: &Estimate) -> String {
        let point = match e.estimate {
            Some(x) => fixed(x, self.td),
            None => "NR".to_string(),
        };
        format!("{point} ({})", fmt_limits(e.lower, e.upper, self.td, false))
    }
}

/// The report of a cohort: `title` and the methods sentence come from the documents stage.
pub fn cohort_report(
    study: &Study,
    c: &CohortResults,
    analysis: &Analysis,
    methods_statistics: &str,
    has_figures: bool,
) -> Report {
    let f = Formats {
        pd: analysis.percent_decimals,
        td: analysis.time_decimals,
        level: fmt_plain(analysis.ci_percent()),
        unit: analysis.time_unit.name(),
    };
    let mut facts = vec![
        Fact {
            label: "Cohort".to_string(),
            value: format!("{}: {}", c.id, c.label),
        },
        Fact {
            label: "Data cut-off".to_string(),
            value: match c.cutoff {
                Some(d) => long_date(&d.to_string()),
                None => "none".to_string(),
            },
        },
    ];
    for (label, value) in [("Design", &study.design), ("Regimen", &study.regimen)] {
        if let Some(value) = value {
            facts.push(Fact {
                label: label.to_string(),
                value: value.clone(),
            });
        }
    }
    let mut sections = vec![populations(c)];
    if !c.baseline.is_empty() {
        let columns = columns(c, true);
        let mut head = vec![Cell::text("Characteristic")];
        head.extend(columns.iter().map(|col| {
            Cell::num(if c.arms.is_empty() {
                format!("All subjects (N = {})", c.n.enrolled)
            } else {
                format!("{} (N = {})", col.name, col.r.n.enrolled)
            })
        }));
        sections.push(Section {
            id: "baseline",
            heading: "Baseline characteristics".to_string(),
            blocks: vec![Block::Table(Table {
                class: (columns.len() > 2).then_some("wide"),
                head: vec![Row::of(head)],
                body: baseline_rows(&c.baseline, &columns, &f),
            })],
        });
    }
    sections.extend(response(c, &f));
    if c.arms.is_empty() {
        sections.extend(time_to_event(c, &f));
    } else {
        sections.extend(time_to_event_by_arm(c, &f));
    }
    if let Some(fu) = &c.followup {
        let estimate = match fu.estimate {
            Some(x) => format!("{} {}", fixed(x, f.td), f.unit),
            None => "not reached".to_string(),
        };
        sections.push(Section {
            id: "follow-up",
            heading: "Follow-up".to_string(),
            blocks: vec![Block::Paragraph {
                text: format!(
                    "Median follow-up (reverse Kaplan–Meier, {}): {estimate} ({}% CI: {}).",
                    fu.label,
                    f.level,
                    fmt_limits(fu.lower, fu.upper, f.td, false)
                ),
            }],
        });
    }
    sections.extend(safety(c, &f));
    sections.extend(comparisons(c, &f));
    sections.push(Section {
        id: "methods",
        heading: "Methods".to_string(),
        blocks: vec![Block::Paragraph {
            text: methods_statistics.to_string(),
        }],
    });
    if !c.warnings.is_empty() {
        sections.push(Section {
            id: "warnings",
            heading: "Warnings".to_string(),
            blocks: vec![Block::List {
                items: c.warnings.clone(),
            }],
        });
    }
    if has_figures {
        sections.push(Section {
            id: "figures",
            heading: "Figures".to_string(),
            blocks: vec![Block::Figures],
        });
    }
    let kicker = match &study.registry_id {
        Some(registry) => format!("Cohort report · {} ({registry})", study.id),
        None => format!("Cohort report · {}", study.id),
    };
    Report {
        kicker,
        facts,
        sections,
    }
}

/// A column of the report's tables: one arm, all arms together ("Total"), or the whole cohort
/// of a single-arm study.
struct Column<'a> {
    name: String,
    r: &'a CohortResults,
}

/// The columns of a cohort's tables: one per arm and, with `total`, all subjects after them;
/// the cohort alone when it has no arms.
fn columns(c: &CohortResults, total: bool) -> Vec<Column<'_>> {
    if c.arms.is_empty() {
        return vec![Column {
            name: "Subjects".to_string(),
            r: c,
        }];
    }
    let mut columns: Vec<Column> = c
        .arms
        .iter()
        .map(|a| Column {
            name: a.arm.clone(),
            r: &a.results,
        })
        .collect();
    if total {
        columns.push(Column {
            name: "Total".to_string(),
            r: c,
        });
    }
    columns
}

/// A row: a first cell, then one number cell per column.
fn row_of(first: Cell, columns: &[Column], value: impl Fn(&CohortResults) -> String) -> Row {
    let mut cells = vec![first];
    cells.extend(columns.iter().map(|col| Cell::num(value(col.r))));
    Row::of(cells)
}

/// A header row: the first label, then one per column.
fn column_header(first: &str, columns: &[Column], name: impl Fn(&Column) -> String) -> Row {
    let mut cells = vec![Cell::text(first)];
    cells.extend(columns.iter().map(|col| Cell::num(name(col))));
    Row::of(cells)
}

fn populations(c: &CohortResults) -> Section {
    let flag = |flag: &Option<String>| match flag {
        Some(flag) => format!("{flag} = Y"),
        None => "every subject".to_string(),
    };
    let columns = columns(c, true);
    let mut body = vec![
        row_of(Cell::text("Enrolled"), &columns, |r| {
            r.n.enrolled.to_string()
        }),
        row_of(
            Cell::text(format!(
                "Efficacy population ({})",
                flag(&c.n.efficacy_flag)
            )),
            &columns,
            |r| r.n.efficacy.to_string(),
        ),
        row_of(
            Cell::text(format!("Safety population ({})", flag(&c.n.safety_flag))),
            &columns,
            |r| r.n.safety.to_string(),
        ),
    ];
    if c.enrolment.first.is_some() && c.enrolment.last.is_some() {
        let span = |r: &CohortResults| match (r.enrolment.first, r.enrolment.last) {
            (Some(first), Some(last)) => format!(
                "{} to {}",
                long_date(&first.to_string()),
                long_date(&last.to_string())
            ),
            _ => "–".to_string(),
        };
        body.push(row_of(Cell::text("Enrolment"), &columns, span));
    }
    if c.enrolment.centres.is_some() {
        body.push(row_of(Cell::text("Centres"), &columns, |r| {
            r.enrolment
                .centres
                .map_or("–".to_string(), |n| n.to_string())
        }));
    }
    Section {
        id: "populations",
        heading: "Disposition and populations".to_string(),
        blocks: vec![Block::Table(Table {
            class: (columns.len() > 2).then_some("wide"),
            head: vec![column_header("Population", &columns, |col| {
                col.name.clone()
            })],
            body,
        })],
    }
}

/// Baseline rows, one column per [`Column`]: a characteristic's levels in the whole cohort's
/// order (most frequent first), each column's count of it (0 when an arm has none).
fn baseline_rows(baseline: &[BaselineSummary], columns: &[Column], f: &Formats) -> Vec<Row> {
    let mut rows = Vec::new();
    let width = u32::try_from(columns.len()).unwrap_or(1) + 1;
    for b in baseline {
        // The same characteristic in each column's results.
        let of = |r: &'_ CohortResults| -> Option<BaselineSummary> {
            r.baseline.iter().find(|x| x.column == b.column).cloned()
        };
        let per_column: Vec<Option<BaselineSummary>> = columns.iter().map(|c| of(c.r)).collect();
        // Each column's levels by value: an item may have tens of thousands of levels.
        let by_value: Vec<std::collections::HashMap<&str, &LevelCount>> = per_column
            .iter()
            .map(|x| {
                x.iter()
                    .flat_map(|x| &x.levels)
                    .map(|m| (m.value.as_str(), m))
                    .collect()
            })
            .collect();
        let cells = |value: &dyn Fn(&Column, Option<&BaselineSummary>) -> String| {
            columns
                .iter()
                .zip(&per_column)
                .map(|(col, x)| Cell::num(value(col, x.as_ref())))
                .collect::<Vec<Cell>>()
        };
        match (&b.stats, b.levels.is_empty()) {
            (Some(_), _) => {
                let mut row = vec![Cell::text(format!("{}, median (range)", b.label))];
                row.extend(cells(&|_, x| match x.and_then(|x| x.stats.as_ref()) {
                    Some(s) => format!(
                        "{} ({}–{})",
                        fmt_plain(s.median),
                        fmt_plain(s.min),
                        fmt_plain(s.max)
                    ),
                    None => "–".to_string(),
                }));
                rows.push(Row::of(row));
            }
            (None, false) => {
                rows.push(Row::with_class(
                    "group",
                    vec![Cell::text(format!("{}, n (%)", b.label)).span(width, 1)],
                ));
                for l in &b.levels {
                    let mut row = vec![Cell::level(sentence_case(&l.label))];
                    row.extend(columns.iter().zip(&per_column).zip(&by_value).map(
                        |((col, x), by_value)| {
                            let levels = x.as_ref().map_or(&[][..], |x| x.levels.as_slice());
                            Cell::num(match by_value.get(l.value.as_str()) {
                                Some(m) => f.count_pct(m.n, m.total),
                                None => f.count_pct(
                                    0,
                                    levels.first().map_or(col.r.n.enrolled, |m| m.total),
                                ),
                            })
                        },
                    ));
                    rows.push(Row::of(row));
                }
            }
            (None, true) => {
                let mut row = vec![Cell::text(b.label.clone())];
                row.extend(cells(&|_, _| "no data".to_string()));
                rows.push(Row::of(row));
            }
        }
        if b.missing > 0 {
            let mut row = vec![Cell::level("Missing")];
            row.extend(cells(&|_, x| x.map_or(0, |x| x.missing).to_string()));
            rows.push(Row::of(row));
        }
    }
    rows
}

/// The words of a BOR code for tables.
pub fn response_label(code: &str) -> &str {
    match code {
        "CR" => "Complete response (CR)",
        "PR" => "Partial response (PR)",
        "SD" => "Stable disease (SD)",
        "NON-CR/NON-PD" => "Non-CR/non-PD",
        "PD" => "Progressive disease (PD)",
        "NE" => "Not evaluable (NE)",
        other => other,
    }
}

fn response(c: &CohortResults, f: &Formats) -> Option<Section> {
    let r = c.response.as_ref()?;
    let heading = format!(
        "Best overall response ({}, RECIST 1.1)",
        if r.confirmed {
            "confirmed"
        } else {
            "unconfirmed"
        }
    );
    type Rate = fn(&ResponseResults) -> &Proportion;
    let rates: [(&str, Rate); 2] = [
        ("Objective response rate (CR + PR)", |r| &r.orr),
        ("Disease control rate", |r| &r.dcr),
    ];
    if c.arms.is_empty() {
        let total = r.orr.total;
        let mut body: Vec<Row> = r
            .bor
            .iter()
            .map(|(code, n)| {
                Row::of(vec![
                    Cell::text(response_label(code)),
                    Cell::num(f.count_pct(*n, total)),
                    Cell::text(""),
                ])
            })
            .collect();
        for (name, pick) in rates {
            let p = pick(r);
            body.push(Row::with_class(
                "total",
                vec![
                    Cell::text(name),
                    Cell::num(f.count_pct(p.n, p.total)),
                    Cell::num(fmt_limits(p.lower, p.upper, f.pd, true)),
                ],
            ));
        }
        return Some(Section {
            id: "response",
            heading,
            blocks: vec![Block::Table(Table {
                class: None,
                head: vec![header(&[
                    "Best overall response",
                    &format!("n (%), N = {total}"),
                    &format!("{}% CI", f.level),
                ])],
                body,
            })],
        });
    }
    // With arms: one column per arm, each rate's interval on the row under it.
    let columns = columns(c, false);
    let mut body: Vec<Row> = r
        .bor
        .keys()
        .map(|code| {
            row_of(Cell::text(response_label(code)), &columns, |x| {
                x.response.as_ref().map_or("–".to_string(), |x| {
                    f.count_pct(x.bor.get(code).copied().unwrap_or(0), x.orr.total)
                })
            })
        })
        .collect();
    for (name, pick) in rates {
        let mut rate = row_of(Cell::text(name), &columns, |x| {
            x.response
                .as_ref()
                .map(pick)
                .map_or("–".to_string(), |p| f.count_pct(p.n, p.total))
        });
        rate.class = Some("total");
        body.push(rate);
        body.push(row_of(
            Cell::level(format!("{}% CI", f.level)),
            &columns,
            |x| {
                x.response.as_ref().map(pick).map_or("–".to_string(), |p| {
                    fmt_limits(p.lower, p.upper, f.pd, true)
                })
            },
        ));
    }
    Some(Section {
        id: "response",
        heading,
        blocks: vec![Block::Table(Table {
            class: (columns.len() > 2).then_some("wide"),
            head: vec![column_header("Best overall response", &columns, |col| {
                let n = col.r.response.as_ref().map_or(0, |x| x.orr.total);
                format!("{}, n (%), N = {n}", col.name)
            })],
            body,
        })],
    })
}

fn time_to_event(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.tte.is_empty() {
        return None;
    }
    let medians = c
        .tte
        .iter()
        .map(|(name, t)| {
            Row::of(vec![
                Cell::text(name.clone()),
                Cell::num(t.n.to_string()),
                Cell::num(f.count_pct(t.events, t.n)),
                Cell::num(f.estimate(&t.median)),
                Cell::num(f.estimate(&t.q25)),
                Cell::num(f.estimate(&t.q75)),
            ])
        })
        .collect();
    let landmarks = c
        .tte
        .iter()
        .flat_map(|(name, t)| {
            t.landmarks.iter().map(move |l| {
                let (rate, ci) = if l.beyond_last_followup {
                    (Cell::num("NE (beyond follow-up)"), Cell::text(""))
                } else {
                    (
                        Cell::num(fmt_pct(Some(l.surv), f.pd)),
                        Cell::num(fmt_limits(l.lower, l.upper, f.pd, true)),
                    )
                };
                Row::of(vec![
                    Cell::text(name.clone()),
                    Cell::num(format!("{} {}", fmt_plain(l.time), f.unit)),
                    Cell::num(l.n_risk.to_string()),
                    rate,
                    ci,
                ])
            })
        })
        .collect();
    Some(Section {
        id: "time-to-event",
        heading: "Time-to-event endpoints".to_string(),
        blocks: vec![
            Block::Table(Table {
                class: Some("wide"),
                head: vec![header(&[
                    "Endpoint",
                    "N",
                    "Events, n (%)",
                    &format!("Median, {} ({}% CI)", f.unit, f.level),
                    &format!("25th percentile ({}% CI)", f.level),
                    &format!("75th percentile ({}% CI)", f.level),
                ])],
                body: medians,
            }),
            Block::Subheading {
                text: "Landmark rates (Kaplan–Meier)".to_string(),
            },
            Block::Table(Table {
                class: None,
                head: vec![header(&[
                    "Endpoint",
                    "Time",
                    "At risk",
                    "Rate",
                    &format!("{}% CI", f.level),
                ])],
                body: landmarks,
            }),
            Block::Note {
                text: format!("NR: not reached; NE: not estimable. Times in {}.", f.unit),
            },
        ],
    })
}

/// A cohort with arms: each endpoint's events, quartiles and landmark rates, one column per arm,
/// and under them the hazard ratio and log-rank p of each arm against the reference (stratified
/// when the cohort has strata), as the comparison abstract reports them.
fn time_to_event_by_arm(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.tte.is_empty() {
        return None;
    }
    let columns = columns(c, false);
    let width = u32::try_from(columns.len()).unwrap_or(1) + 1;
    let mut body = Vec::new();
    for (endpoint, pooled) in &c.tte {
        let tte = |r: &CohortResults| r.tte.get(endpoint).cloned();
        body.push(Row::with_class(
            "group",
            vec![Cell::text(sentence_case(&pooled.label)).span(width, 1)],
        ));
        body.push(row_of(Cell::level("Events, n (%)"), &columns, |r| {
            tte(r).map_or("–".to_string(), |t| f.count_pct(t.events, t.n))
        }));
        for (name, pick) in [
            (
                format!("Median, {} ({}% CI)", f.unit, f.level),
                (|t: &TteResults| t.median.clone()) as fn(&TteResults) -> Estimate,
            ),
            (format!("25th percentile ({}% CI)", f.level), |t| {
                t.q25.clone()
            }),
            (format!("75th percentile ({}% CI)", f.level), |t| {
                t.q75.clone()
            }),
        ] {
            body.push(row_of(Cell::level(name), &columns, |r| {
                tte(r).map_or("–".to_string(), |t| f.estimate(&pick(&t)))
            }));
        }
        for (i, l) in pooled.landmarks.iter().enumerate() {
            let name = format!("Rate at {} {} ({}% CI)", fmt_plain(l.time), f.unit, f.level);
            body.push(row_of(Cell::level(name), &columns, |r| {
                match tte(r).and_then(|t| t.landmarks.get(i).cloned()) {
                    Some(l) if l.beyond_last_followup => "NE (beyond follow-up)".to_string(),
                    Some(l) => format!(
                        "{} ({})",
                        fmt_pct(Some(l.surv), f.pd),
                        fmt_limits(l.lower, l.upper, f.pd, true)
                    ),
                    None => "–".to_string(),
                }
            }));
        }
        // Each arm's comparison with the reference: in the arm's column; the reference's
        // column says it is the reference.
        let compared = |arm: &str| {
            c.comparisons
                .iter()
                .find(|x| x.arm == arm)
                .and_then(|x| x.tte.get(endpoint))
        };
        let stratified = c
            .comparisons
            .iter()
            .filter_map(|x| x.tte.get(endpoint))
            .any(|t| t.stratified.is_some());
        let cell =
            |col: &Column, value: &dyn Fn(&TteComparison) -> String| match compared(&col.name) {
                Some(t) => value(t),
                None if c.comparisons.iter().any(|x| x.reference == col.name) => {
                    "Reference".to_string()
                }
                None => "–".to_string(),
            };
        let (hr_name, p_name) = if stratified {
            (
                format!("Stratified HR ({}% CI)", f.level),
                "Stratified log-rank p",
            )
        } else {
            (format!("HR ({}% CI)", f.level), "Log-rank p")
        };
        let mut hr_row = vec![Cell::level(hr_name)];
        hr_row.extend(columns.iter().map(|col| {
            Cell::num(cell(col, &|t| {
                ratio(t.stratified.as_ref().map_or(&t.cox, |s| &s.cox).hr.as_ref())
            }))
        }));
        body.push(Row::of(hr_row));
        let mut p_row = vec![Cell::level(p_name)];
        p_row.extend(columns.iter().map(|col| {
            Cell::num(cell(col, &|t| {
                p_only(t.stratified.as_ref().map_or(&t.logrank, |s| &s.logrank).p)
            }))
        }));
        body.push(Row::of(p_row));
    }
    Some(Section {
        id: "time-to-event",
        heading: "Time-to-event endpoints".to_string(),
        blocks: vec![
            Block::Table(Table {
                class: (columns.len() > 2).then_some("wide"),
                head: vec![column_header("", &columns, |col| {
                    let n = c
                        .tte
                        .keys()
                        .next()
                        .and_then(|e| col.r.tte.get(e))
                        .map_or(0, |t| t.n);
                    format!("{} (N = {n})", col.name)
                })],
                body,
            }),
            Block::Note {
                text: format!(
                    "NR: not reached; NE: not estimable. Times in {}. HR: hazard ratio of the arm to the reference (Cox model).",
                    f.unit
                ),
            },
        ],
    })
}

fn safety(c: &CohortResults, f: &Formats) -> Option<Section> {
    let s = c.safety.as_ref()?;
    let g = s.grading;
    let severity = g == AeGrading::Severity;
    let total = s.total;
    let mut blocks = Vec::new();
    if severity {
        blocks.push(Block::Note {
            text: "ADAE records severity only (mild, moderate, severe), no CTCAE grade."
                .to_string(),
        });
    }
    type Pick = fn(&AeCounts) -> usize;
    let mut summary: Vec<(&str, Pick)> = vec![(g.any(), |x| x.any), (g.severe(), |x| x.grade3plus)];
    // Severity has no grade 4.
    if !severity {
        summary.push(("Grade ≥4", |x| x.grade4plus));
    }
    summary.push(("Serious", |x| x.serious));
    summary.push((if severity { "Fatal" } else { "Fatal (grade 5)" }, |x| {
        x.fatal
    }));
    let columns = columns(c, true);
    let safety_of = |r: &CohortResults| r.safety.clone();
    let per_column: Vec<Option<Safety>> = columns.iter().map(|col| safety_of(col.r)).collect();
    // Each column's TEAE and TRAE counts of one kind, over its safety population.
    let pair = |pick: Pick| {
        per_column
            .iter()
            .flat_map(|x| match x {
                Some(x) => [
                    Cell::num(f.count_pct(pick(&x.teae), x.total)),
                    Cell::num(f.count_pct(pick(&x.trae), x.total)),
                ],
                None => [Cell::num("–"), Cell::num("–")],
            })
            .collect::<Vec<Cell>>()
    };
    let head = if c.arms.is_empty() {
        vec![header(&["Subjects with", "TEAE, n (%)", "TRAE, n (%)"])]
    } else {
        let mut arms = vec![Cell::text("Subjects with").span(1, 2)];
        arms.extend(columns.iter().zip(&per_column).map(|(col, x)| {
            Cell::num(format!(
                "{} (N = {})",
                col.name,
                x.as_ref().map_or(0, |x| x.total)
            ))
            .span(2, 1)
        }));
        let kinds = columns
            .iter()
            .flat_map(|_| [Cell::num("TEAE, n (%)"), Cell::num("TRAE, n (%)")])
            .collect();
        vec![Row::of(arms), Row::of(kinds)]
    };
    blocks.push(Block::Table(Table {
        class: (columns.len() > 1).then_some("wide"),
        head,
        body: summary
            .into_iter()
            .map(|(name, pick)| {
                let mut cells = vec![Cell::text(name)];
                cells.extend(pair(pick));
                Row::of(cells)
            })
            .collect(),
    }));
    if !s.by_term.is_empty() {
        let subheading = |what: &str| Block::Subheading {
            text: format!("{what} (each subject counted once, at the {})", g.worst()),
        };
        if c.arms.is_empty() {
            blocks.push(subheading("By preferred term"));
            blocks.push(Block::Table(Table {
                class: Some("terms wide"),
                head: vec![
                    Row::of(vec![
                        Cell::text("Preferred term").span(1, 2),
                        Cell::text("System organ class").span(1, 2),
                        Cell::num("TEAE, n (%)").span(2, 1),
                        Cell::num("TRAE, n (%)").span(2, 1),
                    ]),
                    Row::of(vec![
                        Cell::num(g.any()),
                        Cell::num(g.severe()),
                        Cell::num(g.any()),
                        Cell::num(g.severe()),
                    ]),
                ],
                body: s
                    .by_term
                    .iter()
                    .map(|t| {
                        Row::of(vec![
                            Cell::text(t.term.clone()),
                            Cell::text(t.soc.clone().unwrap_or_default()),
                            Cell::num(f.count_pct(t.teae_any, total)),
                            Cell::num(f.count_pct(t.teae_grade3plus, total)),
                            Cell::num(f.count_pct(t.trae_any, total)),
                            Cell::num(f.count_pct(t.trae_grade3plus, total)),
                        ])
                    })
                    .collect(),
            }));
        } else {
            // With arms: TEAEs and TRAEs in two tables, each arm's any-grade and severe counts.
            let arms = &columns[..columns.len() - 1];
            type Counts = fn(&TermCounts) -> (usize, usize);
            let kinds: [(&str, Counts); 2] = [
                ("TEAEs by preferred term", |t| {
                    (t.teae_any, t.teae_grade3plus)
                }),
                ("TRAEs by preferred term", |t| {
                    (t.trae_any, t.trae_grade3plus)
                }),
            ];
            for (what, pick) in kinds {
                let rows: Vec<Row> = s
                    .by_term
                    .iter()
                    .filter(|t| pick(t).0 > 0)
                    .map(|t| {
                        let mut cells = vec![
                            Cell::text(t.term.clone()),
                            Cell::text(t.soc.clone().unwrap_or_default()),
                        ];
                        cells.extend(arms.iter().flat_map(|col| {
                            let (n, total) = col.r.safety.as_ref().map_or((None, 0), |x| {
                                (x.by_term.iter().find(|u| u.term == t.term), x.total)
                            });
                            let (any, severe) = n.map_or((0, 0), pick);
                            [
                                Cell::num(f.count_pct(any, total)),
                                Cell::num(f.count_pct(severe, total)),
                            ]
                        }));
                        Row::of(cells)
                    })
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                let mut top = vec![
                    Cell::text("Preferred term").span(1, 2),
                    Cell::text("System organ class").span(1, 2),
                ];
                top.extend(
                    arms.iter()
                        .map(|col| Cell::num(col.name.clone()).span(2, 1)),
                );
                let grades = arms
                    .iter()
                    .flat_map(|_| [Cell::num(g.any()), Cell::num(g.severe())])
                    .collect();
                blocks.push(subheading(what));
                blocks.push(Block::Table(Table {
                    class: Some("terms wide"),
                    head: vec![Row::of(top), Row::of(grades)],
                    body: rows,
                }));
            }
        }
    }
    Some(Section {
        id: "safety",
        heading: format!("Adverse events (safety population, N = {total})"),
        blocks,
    })
}

/// "0.57 (0.41–0.80)"; "NE" when not estimable.
fn ratio(r: Option<&Ci>) -> String {
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
fn p_only(p: Option<f64>) -> String {
    let text = fmt_p(p);
    text.trim_start_matches("p = ")
        .trim_start_matches("p ")
        .to_string()
}

/// A cohort with arms: each arm against the reference (hazard ratios, log-rank tests, response
/// differences) and the hazard ratio per subgroup; a subheading per comparison when there are
/// several. The arms' own numbers are in the other sections' columns.
fn comparisons(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.comparisons.is_empty() {
        return None;
    }
    let mut blocks = Vec::new();
    let several = c.comparisons.len() > 1;
    for x in &c.comparisons {
        if several {
            blocks.push(Block::Subheading {
                text: format!("{} vs {}", x.arm, x.reference),
            });
        }
        let stratified = x.tte.values().any(|t| t.stratified.is_some());
        let label = |endpoint: &str| {
            c.tte
                .get(endpoint)
                .map_or(endpoint.to_string(), |t| sentence_case(&t.label))
        };
        if !x.tte.is_empty() {
            let mut head = vec![
                "Endpoint".to_string(),
                format!("HR ({}% CI)", f.level),
                "Log-rank p".to_string(),
            ];
            if stratified {
                head.push(format!("Stratified HR ({}% CI)", f.level));
                head.push("Stratified log-rank p".to_string());
            }
            let labels: Vec<&str> = head.iter().map(String::as_str).collect();
            let body = x
                .tte
                .iter()
                .map(|(endpoint, t)| {
                    let mut cells = vec![
                        Cell::text(label(endpoint)),
                        Cell::num(ratio(t.cox.hr.as_ref())),
                        Cell::num(p_only(t.logrank.p)),
                    ];
                    if stratified {
                        let s = t.stratified.as_ref();
                        cells.push(Cell::num(ratio(s.and_then(|s| s.cox.hr.as_ref()))));
                        cells.push(Cell::num(
                            s.map_or("NE".to_string(), |s| p_only(s.logrank.p)),
                        ));
                    }
                    Row::of(cells)
                })
                .collect();
            blocks.push(Block::Table(Table {
                class: None,
                head: vec![header(&labels)],
                body,
            }));
        }
        if let Some(r) = &x.response {
            let diff = format!("Difference ({}% CI)", f.level);
            let or = format!("Odds ratio ({}% CI)", f.level);
            // The test each rate was compared with (`response_test`) and its p-value.
            let labels = ["Rate", diff.as_str(), or.as_str(), "Test", "p"];
            let body = [("ORR", &r.orr), ("DCR", &r.dcr)]
                .map(|(name, d): (&str, &ProportionDifference)| {
                    Row::of(vec![
                        Cell::text(name),
                        Cell::num(match &d.difference {
                            Some(diff) => format!(
                                "{} ({})",
                                fmt_pct(Some(diff.estimate), f.pd),
                                fmt_limits(Some(diff.lower), Some(diff.upper), f.pd, true)
                            ),
                            None => "NE".to_string(),
                        }),
                        Cell::num(ratio(d.odds_ratio.as_ref())),
                        Cell::text(d.test.map_or("", |t| t.short_name())),
                        Cell::num(p_only(d.p)),
                    ])
                })
                .into();
            blocks.push(Block::Subheading {
                text: "Response rates".to_string(),
            });
            blocks.push(Block::Table(Table {
                class: Some("wide"),
                head: vec![header(&labels)],
                body,
            }));
        }
        let mut subgroups: Vec<Row> = Vec::new();
        for (endpoint, t) in x.tte.iter().filter(|(_, t)| !t.subgroups.is_empty()) {
            subgroups.push(Row::with_class(
                "group",
                vec![Cell::text(label(endpoint)).span(4, 1)],
            ));
            for s in &t.subgroups {
                let group = c.column_label(&s.column);
                subgroups.push(Row::of(vec![
                    Cell::level(format!("{group}: {}", s.level)),
                    Cell::num(format!("{}/{}", s.events, s.n)),
                    Cell::num(format!("{}/{}", s.events_reference, s.n_reference)),
                    Cell::num(ratio(s.hr.as_ref())),
                ]));
            }
        }
        if !subgroups.is_empty() {
            let hr = format!("HR ({}% CI)", f.level);
            let arm = format!("Events/N, {}", x.arm);
            let reference = format!("Events/N, {}", x.reference);
            let header_row = header(&["Subgroup", &arm, &reference, &hr]);
            blocks.push(Block::Subheading {
                text: "Hazard ratios by subgroup (unstratified)".to_string(),
            });
            blocks.push(Block::Table(Table {
                class: Some("wide"),
                head: vec![header_row],
                body: subgroups,
            }));
        }
    }
    blocks.push(Block::Note {
        text: "HR: hazard ratio of the arm to the reference (Cox model); NE: not estimable (an arm without events). Differences are arm minus reference; all p-values two-sided.".to_string(),
    });
    let heading = match c.comparisons.as_slice() {
        [x] => format!("Comparison of arms: {} vs {}", x.arm, x.reference),
        _ => "Comparison of arms".to_string(),
    };
    Some(Section {
        id: "comparisons",
        heading,
        blocks,
    })
}

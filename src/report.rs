//! The cohort report as data: its sections, tables (every cell as printed), notes and the
//! place of the figures, built once from a cohort's results. `report.html` renders it with
//! Tera (as `report` in the template context) and `docx` writes it as `report.docx`, so a
//! table is defined here and nowhere else (docs/ARCHITECTURE.md).

use serde::Serialize;

use crate::compare::{ProportionDifference, Ratio};
use crate::config::{Analysis, Study};
use crate::endpoints::{AeGrading, BaselineSummary, CohortResults, Estimate};
use crate::format::fmt_p;
use crate::format::{fixed, fmt_count_pct, fmt_limits, fmt_pct, fmt_plain, long_date};

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
        sections.push(Section {
            id: "baseline",
            heading: "Baseline characteristics".to_string(),
            blocks: vec![Block::Table(Table {
                class: None,
                head: vec![header(&[
                    "Characteristic",
                    &format!("All subjects (N = {})", c.n.enrolled),
                ])],
                body: baseline_rows(&c.baseline, &f),
            })],
        });
    }
    sections.extend(response(c, &f));
    sections.extend(time_to_event(c, &f));
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
    sections.extend(arms(c, &f));
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

fn populations(c: &CohortResults) -> Section {
    let flag = |flag: &Option<String>| match flag {
        Some(flag) => format!("{flag} = Y"),
        None => "every subject".to_string(),
    };
    let mut body = vec![
        Row::of(vec![
            Cell::text("Enrolled"),
            Cell::num(c.n.enrolled.to_string()),
        ]),
        Row::of(vec![
            Cell::text(format!(
                "Efficacy population ({})",
                flag(&c.n.efficacy_flag)
            )),
            Cell::num(c.n.efficacy.to_string()),
        ]),
        Row::of(vec![
            Cell::text(format!("Safety population ({})", flag(&c.n.safety_flag))),
            Cell::num(c.n.safety.to_string()),
        ]),
    ];
    if let (Some(first), Some(last)) = (c.enrolment.first, c.enrolment.last) {
        body.push(Row::of(vec![
            Cell::text("Enrolment"),
            Cell::num(format!(
                "{} to {}",
                long_date(&first.to_string()),
                long_date(&last.to_string())
            )),
        ]));
    }
    if let Some(centres) = c.enrolment.centres {
        body.push(Row::of(vec![
            Cell::text("Centres"),
            Cell::num(centres.to_string()),
        ]));
    }
    Section {
        id: "populations",
        heading: "Disposition and populations".to_string(),
        blocks: vec![Block::Table(Table {
            class: None,
            head: vec![header(&["Population", "Subjects"])],
            body,
        })],
    }
}

fn baseline_rows(baseline: &[BaselineSummary], f: &Formats) -> Vec<Row> {
    let mut rows = Vec::new();
    for b in baseline {
        match (&b.stats, b.levels.is_empty()) {
            (Some(s), _) => rows.push(Row::of(vec![
                Cell::text(format!("{}, median (range)", b.label)),
                Cell::num(format!(
                    "{} ({}–{})",
                    fmt_plain(s.median),
                    fmt_plain(s.min),
                    fmt_plain(s.max)
                )),
            ])),
            (None, false) => {
                rows.push(Row::with_class(
                    "group",
                    vec![Cell::text(format!("{}, n (%)", b.label)).span(2, 1)],
                ));
                for l in &b.levels {
                    rows.push(Row::of(vec![
                        Cell::level(l.value.clone()),
                        Cell::num(f.count_pct(l.n, l.total)),
                    ]));
                }
            }
            (None, true) => rows.push(Row::of(vec![
                Cell::text(b.label.clone()),
                Cell::num("no data"),
            ])),
        }
        if b.missing > 0 {
            rows.push(Row::of(vec![
                Cell::level("Missing"),
                Cell::num(b.missing.to_string()),
            ]));
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
    for (name, p) in [
        ("Objective response rate (CR + PR)", &r.orr),
        ("Disease control rate", &r.dcr),
    ] {
        body.push(Row::with_class(
            "total",
            vec![
                Cell::text(name),
                Cell::num(f.count_pct(p.n, p.total)),
                Cell::num(fmt_limits(p.lower, p.upper, f.pd, true)),
            ],
        ));
    }
    Some(Section {
        id: "response",
        heading: format!(
            "Best overall response ({}, RECIST 1.1)",
            if r.confirmed {
                "confirmed"
            } else {
                "unconfirmed"
            }
        ),
        blocks: vec![Block::Table(Table {
            class: None,
            head: vec![header(&[
                "Best overall response",
                &format!("n (%), N = {total}"),
                &format!("{}% CI", f.level),
            ])],
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
    let mut summary = vec![
        (g.any(), s.teae.any, s.trae.any),
        (g.severe(), s.teae.grade3plus, s.trae.grade3plus),
    ];
    // Severity has no grade 4.
    if !severity {
        summary.push(("Grade ≥4", s.teae.grade4plus, s.trae.grade4plus));
    }
    summary.push(("Serious", s.teae.serious, s.trae.serious));
    summary.push((
        if severity { "Fatal" } else { "Fatal (grade 5)" },
        s.teae.fatal,
        s.trae.fatal,
    ));
    blocks.push(Block::Table(Table {
        class: None,
        head: vec![header(&["Subjects with", "TEAE, n (%)", "TRAE, n (%)"])],
        body: summary
            .into_iter()
            .map(|(name, teae, trae)| {
                Row::of(vec![
                    Cell::text(name),
                    Cell::num(f.count_pct(teae, total)),
                    Cell::num(f.count_pct(trae, total)),
                ])
            })
            .collect(),
    }));
    if !s.by_term.is_empty() {
        blocks.push(Block::Subheading {
            text: format!(
                "By preferred term (each subject counted once, at the {})",
                g.worst()
            ),
        });
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
    }
    Some(Section {
        id: "safety",
        heading: format!("Adverse events (safety population, N = {total})"),
        blocks,
    })
}

/// "0.57 (0.41–0.80)"; "NE" when not estimable.
fn ratio(r: Option<&Ratio>) -> String {
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

/// A cohort with arms: its key numbers, one column per arm.
fn arms(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.arms.is_empty() {
        return None;
    }
    let mut head = vec![Cell::text("")];
    head.extend(c.arms.iter().map(|a| Cell::num(a.arm.clone())));
    let row = |label: String, value: &dyn Fn(&CohortResults) -> String| {
        let mut cells = vec![Cell::text(label)];
        cells.extend(c.arms.iter().map(|a| Cell::num(value(&a.results))));
        Row::of(cells)
    };
    let mut body = vec![
        row("Enrolled".to_string(), &|r| r.n.enrolled.to_string()),
        row("Efficacy population".to_string(), &|r| {
            r.n.efficacy.to_string()
        }),
        row("Safety population".to_string(), &|r| r.n.safety.to_string()),
    ];
    if c.response.is_some() {
        for (name, pick) in [
            (
                "ORR, n (%)",
                (|r: &CohortResults| r.response.as_ref().map(|x| x.orr.clone()))
                    as fn(&CohortResults) -> Option<crate::endpoints::Proportion>,
            ),
            ("DCR, n (%)", |r: &CohortResults| {
                r.response.as_ref().map(|x| x.dcr.clone())
            }),
        ] {
            body.push(row(name.to_string(), &|r| match pick(r) {
                Some(p) => format!(
                    "{} ({})",
                    f.count_pct(p.n, p.total),
                    fmt_limits(p.lower, p.upper, f.pd, true)
                ),
                None => "NE".to_string(),
            }));
        }
    }
    for (endpoint, t) in &c.tte {
        let mut chars = t.label.chars();
        let capitalised: String = chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        body.push(row(format!("{capitalised} events, n (%)"), &|r| {
            r.tte
                .get(endpoint)
                .map_or("NE".to_string(), |t| f.count_pct(t.events, t.n))
        }));
        body.push(row(
            format!("Median {}, {} ({}% CI)", t.label, f.unit, f.level),
            &|r| {
                r.tte
                    .get(endpoint)
                    .map_or("NE".to_string(), |t| f.estimate(&t.median))
            },
        ));
    }
    if let Some(s) = &c.safety {
        let g = s.grading;
        body.push(row(format!("TRAE, {}", g.any().to_lowercase()), &|r| {
            r.safety
                .as_ref()
                .map_or("NE".to_string(), |s| f.count_pct(s.trae.any, s.total))
        }));
        body.push(row(format!("TRAE, {}", g.severe().to_lowercase()), &|r| {
            r.safety.as_ref().map_or("NE".to_string(), |s| {
                f.count_pct(s.trae.grade3plus, s.total)
            })
        }));
    }
    Some(Section {
        id: "arms",
        heading: "Results by arm".to_string(),
        blocks: vec![
            Block::Table(Table {
                class: Some("wide"),
                head: vec![Row::of(head)],
                body,
            }),
            Block::Note {
                text: format!(
                    "Medians: estimate ({}% CI); NR: not reached; NE: not estimable. Rates with their {}% CIs.",
                    f.level, f.level
                ),
            },
        ],
    })
}

/// A cohort with arms: each arm against the reference (hazard ratios, log-rank tests, response
/// differences) and the hazard ratio per subgroup.
fn comparisons(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.comparisons.is_empty() {
        return None;
    }
    let mut blocks = Vec::new();
    let stratified = c
        .comparisons
        .iter()
        .flat_map(|x| x.tte.values())
        .any(|t| t.stratified.is_some());
    let tte_rows: Vec<Row> = c
        .comparisons
        .iter()
        .flat_map(|x| {
            x.tte.iter().map(move |(endpoint, t)| {
                let label = c
                    .tte
                    .get(endpoint)
                    .map_or(endpoint.as_str(), |t| t.label.as_str());
                let mut cells = vec![
                    Cell::text(format!("{} vs {}", x.arm, x.reference)),
                    Cell::text(label.to_string()),
                    Cell::num(format!("{}/{}", t.events, t.n)),
                    Cell::num(format!("{}/{}", t.events_reference, t.n_reference)),
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
        })
        .collect();
    if !tte_rows.is_empty() {
        let mut head = vec![
            "Comparison".to_string(),
            "Endpoint".to_string(),
            "Events/N, arm".to_string(),
            "Events/N, reference".to_string(),
            format!("HR ({}% CI)", f.level),
            "Log-rank p".to_string(),
        ];
        if stratified {
            head.push(format!("Stratified HR ({}% CI)", f.level));
            head.push("Stratified log-rank p".to_string());
        }
        let labels: Vec<&str> = head.iter().map(String::as_str).collect();
        let mut header_row = header(&labels);
        header_row.cells[1].num = false;
        blocks.push(Block::Table(Table {
            class: Some("wide"),
            head: vec![header_row],
            body: tte_rows,
        }));
    }
    let response_rows: Vec<Row> = c
        .comparisons
        .iter()
        .filter_map(|x| x.response.as_ref().map(|r| (x, r)))
        .flat_map(|(x, r)| {
            [("ORR", &r.orr), ("DCR", &r.dcr)].map(|(name, d): (&str, &ProportionDifference)| {
                Row::of(vec![
                    Cell::text(format!("{} vs {}", x.arm, x.reference)),
                    Cell::text(name),
                    Cell::num(f.count_pct(d.n, d.total)),
                    Cell::num(f.count_pct(d.n_reference, d.total_reference)),
                    Cell::num(match &d.difference {
                        Some(diff) => format!(
                            "{} ({})",
                            fmt_pct(Some(diff.estimate), f.pd),
                            fmt_limits(Some(diff.lower), Some(diff.upper), f.pd, true)
                        ),
                        None => "NE".to_string(),
                    }),
                    Cell::num(ratio(d.odds_ratio.as_ref())),
                    Cell::num(p_only(d.p_chisq)),
                    Cell::num(p_only(d.p_fisher)),
                    Cell::num(if d.p_cmh.is_some() {
                        p_only(d.p_cmh)
                    } else {
                        "–".to_string()
                    }),
                ])
            })
        })
        .collect();
    if !response_rows.is_empty() {
        let diff = format!("Difference ({}% CI)", f.level);
        let or = format!("Odds ratio ({}% CI)", f.level);
        let mut header_row = header(&[
            "Comparison",
            "Rate",
            "Arm, n (%)",
            "Reference, n (%)",
            &diff,
            &or,
            "Chi-square p",
            "Fisher p",
            "CMH p",
        ]);
        header_row.cells[1].num = false;
        blocks.push(Block::Subheading {
            text: "Response rates".to_string(),
        });
        blocks.push(Block::Table(Table {
            class: Some("wide"),
            head: vec![header_row],
            body: response_rows,
        }));
    }
    let subgroup_rows: Vec<Row> = c
        .comparisons
        .iter()
        .flat_map(|x| {
            x.tte.iter().flat_map(move |(endpoint, t)| {
                t.subgroups.iter().map(move |s| {
                    Row::of(vec![
                        Cell::text(format!("{} vs {}", x.arm, x.reference)),
                        Cell::text(endpoint.clone()),
                        Cell::text(format!("{} = {}", s.column, s.level)),
                        Cell::num(format!("{}/{}", s.events, s.n)),
                        Cell::num(format!("{}/{}", s.events_reference, s.n_reference)),
                        Cell::num(ratio(s.hr.as_ref())),
                    ])
                })
            })
        })
        .collect();
    if !subgroup_rows.is_empty() {
        let hr = format!("HR ({}% CI)", f.level);
        let mut header_row = header(&[
            "Comparison",
            "Endpoint",
            "Subgroup",
            "Events/N, arm",
            "Events/N, reference",
            &hr,
        ]);
        header_row.cells[1].num = false;
        header_row.cells[2].num = false;
        blocks.push(Block::Subheading {
            text: "Hazard ratios by subgroup (unstratified)".to_string(),
        });
        blocks.push(Block::Table(Table {
            class: Some("wide"),
            head: vec![header_row],
            body: subgroup_rows,
        }));
    }
    blocks.push(Block::Note {
        text: "HR: hazard ratio of the arm to the reference (Cox model); NE: not estimable (an arm without events). Differences are arm minus reference; all p-values two-sided.".to_string(),
    });
    Some(Section {
        id: "comparisons",
        heading: "Comparison of arms".to_string(),
        blocks,
    })
}

//! The report's sections of a cohort's own numbers: populations, baseline characteristics,
//! response, time to event (by arm for a randomised cohort).

use crate::documents::prose::sentence_case;
use crate::format::{fixed, fmt_limits, fmt_pct, fmt_plain, long_date};
use crate::results::{
    BaselineSummary, CohortResults, Estimate, LevelCount, Proportion, ResponseResults,
    TteComparison, TteResults,
};

use super::model::*;
use super::table::*;

pub(super) fn populations(c: &CohortResults) -> Section {
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
        heading: "Populations".to_string(),
        blocks: vec![Block::Table(Table {
            caption: None,
            class: (columns.len() > 2).then_some("wide"),
            head: vec![column_header("Population", &columns, |col| {
                format!("{} (N = {})", col.name, col.r.n.enrolled)
            })],
            body,
        })],
    }
}

/// Baseline rows, one column per [`Column`]: a characteristic's levels in the whole cohort's
/// order (most frequent first), each column's count of it (0 when an arm has none).
pub(super) fn baseline_rows(
    baseline: &[BaselineSummary],
    columns: &[Column],
    f: &Formats,
) -> Vec<Row> {
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
                // The levels in their natural order (the config's `order`, the terminology's,
                // ascending numbers), as the prose gives them.
                for (_, l) in crate::documents::prose::ordered(b) {
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
            row.extend(cells(&|_, x| {
                x.map_or_else(|| "–".to_string(), |x| x.missing.to_string())
            }));
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

/// The words of a category for tables: RECIST's own, else the criteria's name for it with the
/// code ("Complete metabolic response (CMR)").
fn category_label(r: &ResponseResults, code: &str) -> String {
    let named = r
        .criteria
        .as_ref()
        .and_then(|c| c.categories.iter().find(|k| k.code == code));
    match named {
        Some(k) if k.name != k.code => {
            let mut name = k.name.clone();
            if let Some(first) = name.get(..1) {
                let upper = first.to_uppercase();
                name.replace_range(..1, &upper);
            }
            format!("{name} ({})", k.code)
        }
        Some(k) => k.code.clone(),
        None => response_label(code).to_string(),
    }
}

/// One rate of the response table: its label and which rate it is.
struct RateRow {
    label: String,
    rate: Rate,
}

/// A rate of [`ResponseResults`].
enum Rate {
    Orr,
    Dcr,
    /// One of `rates`, by name.
    Extra(String),
}

impl RateRow {
    fn pick<'r>(&self, r: &'r ResponseResults) -> Option<&'r Proportion> {
        match &self.rate {
            Rate::Orr => Some(&r.orr),
            Rate::Dcr => Some(&r.dcr),
            Rate::Extra(name) => r.rates.get(name),
        }
    }
}

fn rate_rows(r: &ResponseResults) -> Vec<RateRow> {
    let name = crate::documents::prose::sentence_case(&r.orr_name);
    let orr_label = match &r.criteria {
        Some(c) => format!(
            "{name} ({})",
            c.categories
                .iter()
                .filter(|k| k.responder)
                .map(|k| k.code.as_str())
                .collect::<Vec<_>>()
                .join(" + ")
        ),
        None => format!("{name} (CR + PR)"),
    };
    let mut rows = vec![RateRow {
        label: orr_label,
        rate: Rate::Orr,
    }];
    for name in r.rates.keys() {
        rows.push(RateRow {
            label: if name.contains(' ') {
                format!("Rate of {name}")
            } else {
                format!("{name} rate")
            },
            rate: Rate::Extra(name.clone()),
        });
    }
    if r.dcr_reported {
        rows.push(RateRow {
            label: "Disease control rate".to_string(),
            rate: Rate::Dcr,
        });
    }
    rows
}

pub(super) fn response(c: &CohortResults, f: &Formats) -> Option<Section> {
    let r = c.response.as_ref()?;
    let heading = match &r.criteria {
        // A set without confirmation has nothing to confirm.
        Some(c) if matches!(c.confirmation.as_str(), "none" | "as-given") => {
            format!("Best overall response ({})", c.name)
        }
        named => format!(
            "Best overall response ({}, {})",
            if r.confirmed {
                "confirmed"
            } else {
                "unconfirmed"
            },
            named.as_ref().map_or("RECIST 1.1", |c| c.name.as_str())
        ),
    };
    let rates = rate_rows(r);
    if c.arms.is_empty() {
        let total = r.orr.total;
        let mut body: Vec<Row> = r
            .bor
            .iter()
            .map(|(code, n)| {
                Row::of(vec![
                    Cell::text(category_label(r, code)),
                    Cell::num(f.count_pct(*n, total)),
                    Cell::text(""),
                ])
            })
            .collect();
        for row in &rates {
            let (name, Some(p)) = (&row.label, row.pick(r)) else {
                continue;
            };
            body.push(Row::with_class(
                "total",
                vec![
                    Cell::text(name),
                    Cell::num(f.count_pct(p.n, p.total)),
                    Cell::num(fmt_limits(p.lower, p.upper, f.pd, true)),
                ],
            ));
        }
        if let Some(t) = &r.time_to_response {
            body.push(Row::of(vec![
                Cell::text(format!(
                    "Time to response in responders, median (range), {}",
                    f.unit
                )),
                Cell::num(f.time_to_response(t)),
                Cell::text(""),
            ]));
        }
        return Some(Section {
            id: "response",
            heading,
            blocks: vec![Block::Table(Table {
                caption: None,
                class: None,
                head: vec![header(&[
                    "Best overall response",
                    &format!("N = {total}, n (%)"),
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
            row_of(Cell::text(category_label(r, code)), &columns, |x| {
                x.response.as_ref().map_or("–".to_string(), |x| {
                    f.count_pct(x.bor.get(code).copied().unwrap_or(0), x.orr.total)
                })
            })
        })
        .collect();
    for row in &rates {
        let mut rate = row_of(Cell::text(row.label.as_str()), &columns, |x| {
            x.response
                .as_ref()
                .and_then(|x| row.pick(x))
                .map_or("–".to_string(), |p| f.count_pct(p.n, p.total))
        });
        rate.class = Some("total");
        body.push(rate);
        body.push(row_of(
            Cell::level(format!("{}% CI", f.level)),
            &columns,
            |x| {
                x.response
                    .as_ref()
                    .and_then(|x| row.pick(x))
                    .map_or("–".to_string(), |p| {
                        fmt_limits(p.lower, p.upper, f.pd, true)
                    })
            },
        ));
    }
    if r.time_to_response.is_some() {
        body.push(row_of(
            Cell::text(format!(
                "Time to response in responders, median (range), {}",
                f.unit
            )),
            &columns,
            |x| {
                x.response
                    .as_ref()
                    .and_then(|x| x.time_to_response.as_ref())
                    .map_or("–".to_string(), |t| f.time_to_response(t))
            },
        ));
    }
    Some(Section {
        id: "response",
        heading,
        blocks: vec![Block::Table(Table {
            caption: None,
            class: (columns.len() > 2).then_some("wide"),
            head: vec![column_header("Best overall response", &columns, |col| {
                let n = col.r.response.as_ref().map_or(0, |x| x.orr.total);
                format!("{} (N = {n}), n (%)", col.name)
            })],
            body,
        })],
    })
}

pub(super) fn time_to_event(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.tte.is_empty() {
        return None;
    }
    // An endpoint with competing events has its cumulative incidence below, not 1 − KM.
    let medians = c
        .tte
        .iter()
        .filter(|(_, t)| t.cif.is_none())
        .map(|(name, t)| {
            Row::of(vec![
                Cell::text(name.clone()),
                Cell::num(t.n.to_string()),
                Cell::num(f.count_pct(t.events, t.n)),
                Cell::num(f.estimate(&t.median)),
                Cell::num(f.estimate(&t.q25)),
                Cell::num(f.estimate(&t.q75)),
                Cell::num(f.range(t.range.as_ref())),
            ])
        })
        .collect();
    let landmarks = c
        .tte
        .iter()
        .filter(|(_, t)| t.cif.is_none())
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
        blocks: [
            Block::Table(Table {
                caption: None,
                class: Some("wide"),
                head: vec![header(&[
                    "Endpoint",
                    "N",
                    "Events, n (%)",
                    &format!("Median, {} ({}% CI)", f.unit, f.level),
                    &format!("25th percentile ({}% CI)", f.level),
                    &format!("75th percentile ({}% CI)", f.level),
                    &format!("Range, {} (+ censored)", f.unit),
                ])],
                body: medians,
            }),
            Block::Subheading {
                text: "Landmark rates (Kaplan–Meier)".to_string(),
            },
            Block::Table(Table {
                caption: None,
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
        ]
        .into_iter()
        .chain(rmst_table(c, f))
        .chain(incidence_table(c, f))
        .chain([Block::Note {
            text: format!(
                "NR: not reached; NE: not estimable; RMST: restricted mean survival time (the area \
                 under the Kaplan–Meier curve up to the horizon). Times in {}.",
                f.unit
            ),
        }])
        .collect(),
    })
}

/// Each endpoint with competing events: its events, competing events and cumulative
/// incidence at the landmarks, under its own subheading.
fn incidence_table(c: &CohortResults, f: &Formats) -> Vec<Block> {
    let body: Vec<Row> = c
        .tte
        .iter()
        .filter_map(|(name, t)| Some((name, t, t.cif.as_ref()?)))
        .flat_map(|(name, t, cif)| {
            cif.landmarks.iter().map(move |l| {
                Row::of(vec![
                    Cell::text(name.clone()),
                    Cell::num(f.count_pct(t.events, t.n)),
                    Cell::num(f.count_pct(cif.competing, t.n)),
                    Cell::num(format!("{} {}", fmt_plain(l.time), f.unit)),
                    Cell::num(fmt_pct(Some(l.estimate), f.pd)),
                    Cell::num(fmt_limits(l.lower, l.upper, f.pd, true)),
                ])
            })
        })
        .collect();
    if body.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Subheading {
            text: "Cumulative incidence with competing events (Aalen–Johansen)".to_string(),
        },
        Block::Table(Table {
            caption: None,
            class: None,
            head: vec![header(&[
                "Endpoint",
                "Events, n (%)",
                "Competing events, n (%)",
                "Time",
                "Cumulative incidence",
                &format!("{}% CI", f.level),
            ])],
            body,
        }),
    ]
}

/// Each endpoint's restricted mean survival time, under its own subheading.
fn rmst_table(c: &CohortResults, f: &Formats) -> Vec<Block> {
    let body: Vec<Row> = c
        .tte
        .iter()
        .filter_map(|(name, t)| {
            let r = t.rmst.as_ref()?;
            Some(Row::of(vec![
                Cell::text(name.clone()),
                Cell::num(format!("{} {}", fixed(r.tau, f.td), f.unit)),
                Cell::num(f.rmst(r)),
            ]))
        })
        .collect();
    if body.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Subheading {
            text: "Restricted mean survival time".to_string(),
        },
        Block::Table(Table {
            caption: None,
            class: None,
            head: vec![header(&[
                "Endpoint",
                "Horizon",
                &format!("RMST, {} ({}% CI)", f.unit, f.level),
            ])],
            body,
        }),
    ]
}

/// A cohort with arms: each endpoint's events, quartiles and landmark rates, one column per arm,
/// and under them the hazard ratio and log-rank p of each arm against the reference (stratified
/// when the cohort has strata), as the comparison abstract reports them.
pub(super) fn time_to_event_by_arm(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.tte.is_empty() {
        return None;
    }
    let columns = columns(c, false);
    let width = u32::try_from(columns.len()).unwrap_or(1) + 1;
    let mut body = Vec::new();
    for (endpoint, pooled) in &c.tte {
        body.push(Row::with_class(
            "group",
            vec![Cell::text(sentence_case(&pooled.label)).span(width, 1)],
        ));
        body.extend(described_rows(endpoint, pooled, &columns, f));
        body.extend(compared_rows(c, endpoint, &columns, f));
    }
    Some(Section {
        id: "time-to-event",
        heading: "Time-to-event endpoints".to_string(),
        blocks: vec![
            Block::Table(Table {
                caption: None,
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
                    "NR: not reached; NE: not estimable. Times in {}. HR: hazard ratio of the arm to the reference (Cox model).{}",
                    f.unit,
                    [
                        (
                            c.tte.values().any(|t| t.rmst.is_some()),
                            " RMST: restricted mean survival time, the area under the Kaplan–Meier curve up to the horizon (the same for every arm); its difference with a z-interval and Wald p.",
                        ),
                        (
                            c.tte.values().any(|t| t.cif.is_some()),
                            " With competing events: cumulative incidence by Aalen–Johansen; the HR is cause-specific (competing events censored); Fine–Gray: the subdistribution hazard ratio; Gray's test compares the incidences.",
                        ),
                    ]
                    .iter()
                    .filter(|(on, _)| *on)
                    .map(|(_, text)| *text)
                    .collect::<String>()
                ),
            },
        ],
    })
}

/// An endpoint's rows describing each column (arm, or the cohort): events, and the
/// Kaplan–Meier median, quartiles and rates, or with competing events the competing events and
/// the cumulative incidences; DoR's range; the RMST.
fn described_rows(
    endpoint: &str,
    pooled: &TteResults,
    columns: &[Column<'_>],
    f: &Formats,
) -> Vec<Row> {
    let tte = |r: &CohortResults| r.tte.get(endpoint).cloned();
    let mut rows = Vec::new();
    rows.push(row_of(Cell::level("Events, n (%)"), columns, |r| {
        tte(r).map_or("–".to_string(), |t| f.count_pct(t.events, t.n))
    }));
    // With competing events the Kaplan–Meier median and rates (1 − KM overstates the
    // incidence) give way to the cumulative incidence.
    let competing = pooled.cif.is_some();
    if competing {
        rows.push(row_of(
            Cell::level("Competing events, n (%)"),
            columns,
            |r| {
                tte(r)
                    .and_then(|t| Some(f.count_pct(t.cif?.competing, t.n)))
                    .unwrap_or_else(|| "–".to_string())
            },
        ));
    }
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
    ]
    .into_iter()
    .filter(|_| !competing)
    {
        rows.push(row_of(Cell::level(name), columns, |r| {
            tte(r).map_or("–".to_string(), |t| f.estimate(&pick(&t)))
        }));
    }
    // Duration of response, described per arm: its range too.
    if crate::model::endpoint::among_responders(endpoint) {
        rows.push(row_of(
            Cell::level(format!("Range, {} (+ censored)", f.unit)),
            columns,
            |r| tte(r).map_or("–".to_string(), |t| f.range(t.range.as_ref())),
        ));
    }
    for (i, l) in pooled.landmarks.iter().enumerate().filter(|_| !competing) {
        let name = format!("Rate at {} {} ({}% CI)", fmt_plain(l.time), f.unit, f.level);
        rows.push(row_of(Cell::level(name), columns, |r| {
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
    // With competing events: the cumulative incidence at each landmark.
    if let Some(cif) = pooled.cif.as_ref() {
        for (i, l) in cif.landmarks.iter().enumerate() {
            let name = format!(
                "Cumulative incidence at {} {} ({}% CI)",
                fmt_plain(l.time),
                f.unit,
                f.level
            );
            rows.push(row_of(Cell::level(name), columns, |r| {
                match tte(r).and_then(|t| t.cif?.landmarks.get(i).copied()) {
                    Some(l) => format!(
                        "{} ({})",
                        fmt_pct(Some(l.estimate), f.pd),
                        fmt_limits(l.lower, l.upper, f.pd, true)
                    ),
                    None => "–".to_string(),
                }
            }));
        }
    }
    if let Some(r) = pooled.rmst.as_ref() {
        rows.push(row_of(Cell::level(f.rmst_name(r.tau)), columns, |r| {
            tte(r)
                .and_then(|t| t.rmst)
                .map_or("–".to_string(), |x| f.rmst(&x))
        }));
    }
    rows
}

/// An endpoint's rows comparing each arm with the reference (in the arm's column; the
/// reference's says it is the reference): HR and log-rank p (stratified with strata), with
/// competing events the Fine–Gray HR and Gray's p, the RMST difference.
fn compared_rows(
    c: &CohortResults,
    endpoint: &str,
    columns: &[Column<'_>],
    f: &Formats,
) -> Vec<Row> {
    let mut rows = Vec::new();
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
        |col: &Column, value: &dyn Fn(&TteComparison) -> String| match col.arm.and_then(compared) {
            Some(t) => value(t),
            None if c
                .comparisons
                .iter()
                .any(|x| Some(x.reference.as_str()) == col.arm) =>
            {
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
    // A row of the comparisons: its name, then each column's value.
    let compared_row = |name: Cell, value: &dyn Fn(&TteComparison) -> String| {
        let mut row = vec![name];
        row.extend(columns.iter().map(|col| Cell::num(cell(col, value))));
        Row::of(row)
    };
    rows.push(compared_row(Cell::level(hr_name), &|t| {
        ratio(t.stratified.as_ref().map_or(&t.cox, |s| &s.cox).hr.as_ref())
    }));
    rows.push(compared_row(Cell::level(p_name), &|t| {
        p_only(t.stratified.as_ref().map_or(&t.logrank, |s| &s.logrank).p)
    }));
    let any = |has: fn(&TteComparison) -> bool| {
        c.comparisons
            .iter()
            .any(|x| x.tte.get(endpoint).is_some_and(has))
    };
    if any(|t| t.fine_gray.is_some()) {
        rows.push(compared_row(
            Cell::level(format!("Fine–Gray subdistribution HR ({}% CI)", f.level)),
            &|t| ratio(t.fine_gray.as_ref().and_then(|g| g.hr.as_ref())),
        ));
        rows.push(compared_row(Cell::level("Gray's test p"), &|t| {
            p_only(t.gray.map(|g| g.p))
        }));
    }
    if any(|t| t.rmst.is_some()) {
        rows.push(compared_row(
            Cell::level(format!("RMST difference, {} ({}% CI); p", f.unit, f.level)),
            &|t| {
                t.rmst.map_or("–".to_string(), |r| {
                    format!(
                        "{} ({}); {}",
                        fixed(r.difference.estimate, f.td),
                        fmt_limits(
                            Some(r.difference.lower),
                            Some(r.difference.upper),
                            f.td,
                            false
                        ),
                        p_only(r.difference.p)
                    )
                })
            },
        ));
    }
    rows
}

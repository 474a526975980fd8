//! The report's comparisons of a randomised cohort: hazard ratios and log-rank tests,
//! response rates compared, and the subgroups' hazard ratios.

use crate::documents::prose::sentence_case;
use crate::format::{fmt_limits, fmt_pct};
use crate::results::{
    AeRiskKind, CohortResults, Comparison, ProportionDifference, ResponseComparison,
};

use super::model::*;
use super::table::*;

/// A cohort with arms: each arm against the reference (hazard ratios, log-rank tests, response
/// differences) and the hazard ratio per subgroup; a subheading per comparison when there are
/// several. The arms' own numbers are in the other sections' columns.
pub(super) fn comparisons(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.comparisons.is_empty() {
        return None;
    }
    let mut blocks = Vec::new();
    let several = c.comparisons.len() > 1;
    for x in &c.comparisons {
        if several {
            blocks.push(Block::Subheading {
                text: format!("{} vs {}", c.arm_short(&x.arm), c.arm_short(&x.reference)),
            });
        }
        if !x.tte.is_empty() {
            blocks.push(tte_table(c, x, f));
        }
        if let Some(r) = &x.response {
            blocks.extend(response_tables(c, r, f));
        }
        // Each group of tables with the notes that explain it, right under it.
        if !x.tte.is_empty() || x.response.is_some() {
            blocks.push(Block::Note {
                text: COMPARISON_NOTE.to_string(),
            });
        }
        let subgroups = subgroup_rows(c, x);
        if let Some(s) = &x.safety {
            let names = (c.arm_short(&x.arm), c.arm_short(&x.reference));
            blocks.extend(ae_table(names, s, f, AE_ROWS));
            blocks.push(Block::Note { text: ae_note(s) });
        }
        if !subgroups.is_empty() {
            let hr = format!("HR ({}% CI)", f.level);
            // Each arm's size in the efficacy population its subgroups divide.
            let arm_n = |arm: &str| {
                c.arms
                    .iter()
                    .find(|a| a.arm == arm)
                    .map_or(String::new(), |a| {
                        format!(" (N = {})", a.results.n.efficacy)
                    })
            };
            let arm = format!("Events/N, {}{}", c.arm_short(&x.arm), arm_n(&x.arm));
            let reference = format!(
                "Events/N, {}{}",
                c.arm_short(&x.reference),
                arm_n(&x.reference)
            );
            let header_row = header(&["Subgroup", &arm, &reference, &hr, "Interaction p"]);
            blocks.push(Block::Subheading {
                text: "Hazard ratios by subgroup (unstratified)".to_string(),
            });
            blocks.push(Block::Table(Table {
                caption: None,
                class: Some("wide"),
                head: vec![header_row],
                body: subgroups,
            }));
            blocks.push(Block::Note {
                text: subgroup_note(x),
            });
        }
    }
    let heading = match c.comparisons.as_slice() {
        [x] => format!(
            "Comparison of arms: {} vs {}",
            c.arm_short(&x.arm),
            c.arm_short(&x.reference)
        ),
        _ => "Comparison of arms".to_string(),
    };
    Some(Section {
        id: "comparisons",
        heading,
        blocks,
    })
}

/// Terms shown in the report's adverse-event comparison (all are in results.json).
const AE_ROWS: usize = 15;

/// The adverse events of an arm against the reference: kinds, then the most frequent terms;
/// one table of incidences and risk differences, one of exposure-adjusted incidence rates
/// (six columns side by side do not fit a Word page).
fn ae_table(
    (arm_name, reference_name): (&str, &str),
    s: &crate::results::AeComparison,
    f: &Formats,
    terms: usize,
) -> Vec<Block> {
    let limits = |lower: f64, upper: f64, d: usize| fmt_limits(Some(lower), Some(upper), d, false);
    let rate = |r: &Option<crate::stats::Ci>| match r {
        Some(r) => format!(
            "{} ({})",
            crate::format::fixed(r.estimate, 1),
            limits(r.lower, r.upper, 1)
        ),
        None => "NE".to_string(),
    };
    let rows: Vec<&crate::results::AeRisk> = s
        .rows
        .iter()
        .filter(|r| r.kind != AeRiskKind::Term)
        .chain(
            s.rows
                .iter()
                .filter(|r| r.kind == AeRiskKind::Term)
                .take(terms),
        )
        .collect();
    let name = |r: &crate::results::AeRisk| match &r.term {
        Some(t) => Cell::level(t.clone()),
        None => Cell::text(sentence_case(r.kind.label())),
    };
    let incidence = rows
        .iter()
        .map(|r| {
            Row::of(vec![
                name(r),
                Cell::num(f.count_pct(r.n, s.total)),
                Cell::num(f.count_pct(r.n_reference, s.total_reference)),
                Cell::num(format!(
                    "{} ({})",
                    crate::format::fixed(100.0 * r.difference.estimate, f.pd),
                    limits(100.0 * r.difference.lower, 100.0 * r.difference.upper, f.pd)
                )),
            ])
        })
        .collect();
    let rates = rows
        .iter()
        .map(|r| {
            Row::of(vec![
                name(r),
                Cell::num(rate(&r.eair)),
                Cell::num(rate(&r.eair_reference)),
            ])
        })
        .collect();
    let arm = format!("{arm_name} (N = {}), n (%)", s.total);
    let reference = format!("{reference_name} (N = {}), n (%)", s.total_reference);
    let diff = format!("Risk difference, % ({}% CI)", f.level);
    let eair = format!(
        "{} (N = {}; {} patient-years)",
        arm_name,
        s.total,
        crate::format::fixed(s.patient_years, 1)
    );
    let eair_ref = format!(
        "{} (N = {}; {} patient-years)",
        reference_name,
        s.total_reference,
        crate::format::fixed(s.patient_years_reference, 1)
    );
    vec![
        Block::Subheading {
            text: "Adverse events".to_string(),
        },
        Block::Table(Table {
            caption: None,
            class: Some("wide"),
            head: vec![header(&["Adverse event", &arm, &reference, &diff])],
            body: incidence,
        }),
        Block::Subheading {
            text: format!(
                "Exposure-adjusted incidence rates per 100 patient-years ({}% CI)",
                f.level
            ),
        },
        Block::Table(Table {
            caption: None,
            class: Some("wide"),
            head: vec![header(&["Adverse event", &eair, &eair_ref])],
            body: rates,
        }),
    ]
}

/// An endpoint's name in the tables: its label, sentence case.
fn endpoint_label(c: &CohortResults, endpoint: &str) -> String {
    c.tte
        .get(endpoint)
        .map_or(endpoint.to_string(), |t| sentence_case(&t.label))
}

/// The hazard ratios and log-rank tests of a comparison, stratified beside when it has strata.
fn tte_table(c: &CohortResults, x: &Comparison, f: &Formats) -> Block {
    let stratified = x.tte.values().any(|t| t.stratified.is_some());
    let label = |endpoint: &str| endpoint_label(c, endpoint);
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
            let name = if t.among_responders {
                format!(
                    "{} (among responders; not a randomised comparison)",
                    label(endpoint)
                )
            } else {
                label(endpoint)
            };
            let mut cells = vec![
                Cell::text(name),
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
    Block::Table(Table {
        caption: None,
        class: None,
        head: vec![header(&labels)],
        body,
    })
}

/// The response rates compared: difference, odds ratio, the test and its p-value.
fn response_tables(c: &CohortResults, r: &ResponseComparison, f: &Formats) -> Vec<Block> {
    // A difference with strata is the stratified one: the header says so.
    let stratified_difference = [&r.orr, &r.dcr].iter().any(|d| {
        d.difference
            .as_ref()
            .is_some_and(|d| d.method == crate::results::DifferenceMethod::MnStratified)
    });
    let diff = if stratified_difference {
        format!("Stratified difference ({}% CI)", f.level)
    } else {
        format!("Difference ({}% CI)", f.level)
    };
    let or = format!("Odds ratio ({}% CI)", f.level);
    // The test each rate was compared with (`response_test`) and its p-value.
    let labels = ["Rate", diff.as_str(), or.as_str(), "Test", "p"];
    // The DCR only where the criteria report it (not under IMWG or Lugano).
    let dcr = c.response.as_ref().is_none_or(|r| r.dcr_reported);
    let body = [("ORR", &r.orr), ("DCR", &r.dcr)]
        .into_iter()
        .filter(|(name, _)| dcr || *name != "DCR")
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
        .collect();
    vec![
        Block::Subheading {
            text: "Response rates".to_string(),
        },
        Block::Table(Table {
            caption: None,
            class: Some("wide"),
            head: vec![header(&labels)],
            body,
        }),
    ]
}

/// The rows of the subgroups' hazard ratios (SHRs with competing events), a heading row per
/// endpoint and each column's interaction p once beside its levels.
fn subgroup_rows(c: &CohortResults, x: &Comparison) -> Vec<Row> {
    let label = |endpoint: &str| endpoint_label(c, endpoint);
    let mut subgroups: Vec<Row> = Vec::new();
    for (endpoint, t) in x.tte.iter().filter(|(_, t)| !t.subgroups.is_empty()) {
        // With competing events the forest's subdistribution HRs (Fine–Gray), untested
        // for interaction.
        let competing = t.fine_gray.is_some();
        let heading = if competing {
            format!("{}: SHR (Fine–Gray)", label(endpoint))
        } else {
            label(endpoint)
        };
        subgroups.push(Row::with_class(
            "group",
            vec![Cell::text(heading).span(5, 1)],
        ));
        for (k, s) in t.subgroups.iter().enumerate() {
            let group = c.column_label(&s.column);
            let mut cells = vec![
                Cell::level(format!("{group}: {}", s.shown_level())),
                Cell::num(format!("{}/{}", s.events, s.n)),
                Cell::num(format!("{}/{}", s.events_reference, s.n_reference)),
                Cell::num(ratio(match &s.fine_gray {
                    Some(fg) => fg.hr.as_ref(),
                    None => s.hr.as_ref(),
                })),
            ];
            // The column's interaction p, once beside all its levels.
            let first = k == 0 || t.subgroups[k - 1].column != s.column;
            if first {
                let levels = t.subgroups[k..]
                    .iter()
                    .take_while(|l| l.column == s.column)
                    .count();
                let p = t
                    .interactions
                    .iter()
                    .find(|i| i.column == s.column)
                    .and_then(|i| i.p);
                let rows = u32::try_from(levels).unwrap_or(1);
                let shown = if competing {
                    "not tested".to_string()
                } else {
                    p_only(p)
                };
                cells.push(Cell::num(shown).span(1, rows));
            }
            subgroups.push(Row::of(cells));
        }
    }
    subgroups
}

/// The note under a comparison's hazard ratios and response tables: their abbreviations.
const COMPARISON_NOTE: &str = "HR: hazard ratio of the arm to the reference (Cox model); NE: \
    not estimable (an arm without events). Differences are arm minus reference; all p-values \
    two-sided.";

/// The note under a comparison's adverse-event tables: what they count, the risk difference's
/// interval and the EAIR.
fn ae_note(s: &crate::results::AeComparison) -> String {
    format!(
        "Adverse events: treatment-emergent, each subject once; risk difference (arm minus \
         reference) with the {} interval; EAIR: exposure-adjusted incidence rate per 100 \
         patient-years (subjects with the event over the time to their first event, or over the \
         whole treatment for the others), exact Poisson interval.",
        s.method.interval_name()
    )
}

/// The note under a comparison's subgroup table: the subdistribution hazard ratios, when
/// there are any, and the interaction tests (within the strata when the cohort has strata).
fn subgroup_note(x: &Comparison) -> String {
    let mut note = "HR: hazard ratio of the arm to the reference (Cox model); NE: not \
                    estimable."
        .to_string();
    if x.tte
        .values()
        .any(|t| t.fine_gray.is_some() && !t.subgroups.is_empty())
    {
        note.push_str(" SHR: subdistribution hazard ratio (Fine–Gray model, other events competing; events are events of interest); the interaction of the arm with a subgroup is tested for hazard ratios only.");
    }
    let within = if x.tte.values().any(|t| t.stratified.is_some()) {
        " within the strata"
    } else {
        ""
    };
    note.push_str(&format!(
        " Interaction p: likelihood-ratio test of the arm \u{d7} subgroup interaction in the Cox model{within}."
    ));
    note
}

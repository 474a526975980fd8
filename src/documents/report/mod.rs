//! The cohort report as data: its sections, tables (every cell as printed), notes and the
//! place of the figures, built once from a cohort's results. `report.html` renders it with
//! Tera (as `report` in the template context) and `docx` writes it as `report.docx`, so a
//! table is defined here and nowhere else (docs/ARCHITECTURE.md).

mod cohort;
mod comparisons;
mod csr;
mod disposition;
mod model;
mod notes;
mod safety;
mod table;

use crate::config::{Analysis, Study};
use crate::format::{fixed, fmt_limits, fmt_plain, long_date};
use crate::results::CohortResults;

pub use cohort::response_label;
use cohort::{baseline_rows, populations, response, time_to_event, time_to_event_by_arm};
use comparisons::comparisons;
pub use model::*;
pub use notes::Provenance;
use safety::safety;
use table::*;

/// The report of a cohort: `title` and the methods sentence come from the documents stage;
/// `warnings` are the analysis' and the figures' (the cohort's results hold the analysis').
pub fn cohort_report(
    study: &Study,
    (c, warnings): (&CohortResults, &[crate::diagnostic::Diagnostic]),
    analysis: &Analysis,
    methods_statistics: &str,
    (figures, numbering): (&[&str], crate::config::Numbering),
    provenance: &Provenance,
) -> Report {
    let f = Formats {
        pd: analysis.percent_decimals,
        td: analysis.time_decimals,
        level: fmt_plain(analysis.ci_percent()),
        unit: analysis.time_unit.name(),
        ae_sort: analysis.ae_sort,
    };
    let facts = facts(study, c);
    let mut sections = vec![populations(c)];
    sections.extend(disposition::disposition(c, &f));
    sections.extend(baseline(c, &f));
    sections.extend(response(c, &f));
    if c.arms.is_empty() {
        sections.extend(time_to_event(c, &f));
    } else {
        sections.extend(time_to_event_by_arm(c, &f));
    }
    sections.extend(follow_up(c, &f));
    let csr = csr::CsrOptions {
        events: analysis.ae_events,
        common_pct: analysis.ae_common_pct,
    };
    sections.extend(safety(c, &f).map(|mut s| {
        s.blocks.extend(csr::tables(c, &f, &csr));
        s
    }));
    sections.extend(comparisons(c, &f));
    sections.push(Section {
        id: "methods",
        heading: "Methods".to_string(),
        blocks: vec![Block::Paragraph {
            text: methods_statistics.to_string(),
        }],
    });
    if !warnings.is_empty() {
        sections.push(Section {
            id: "warnings",
            heading: "Warnings".to_string(),
            blocks: vec![Block::List {
                items: warnings.iter().map(|w| w.message.clone()).collect(),
            }],
        });
    }
    if !figures.is_empty() {
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
    let mut tables = notes::Counter::new(numbering);
    notes::number_tables(&mut sections, &mut tables, |id, title| {
        (
            notes::population(id, title, c),
            Some(notes::source(id, title, c, provenance)),
        )
    });
    let mut numbers = notes::Counter::new(numbering);
    Report {
        kicker,
        facts,
        sections,
        figure_numbers: figures.iter().map(|name| numbers.figure(name)).collect(),
        numbering,
    }
}

/// The facts heading the report: cohort, cut-off, design, regimen, the arms by their labels
/// with the short names the tables use, and the records `data.where` kept.
fn facts(study: &Study, c: &CohortResults) -> Vec<Fact> {
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
    // The arms by their labels, with the short names the tables use.
    if !c.arms.is_empty() {
        let named = c
            .arms
            .iter()
            .map(|a| {
                let label = if a.arm_label.is_empty() {
                    &a.arm
                } else {
                    &a.arm_label
                };
                let short = c.arm_short(&a.arm);
                if short == label {
                    label.clone()
                } else {
                    format!("{label} ({short})")
                }
            })
            .collect::<Vec<_>>();
        facts.push(Fact {
            label: "Arms".to_string(),
            value: named.join("; "),
        });
    }
    // The records `data.where` kept, so the tables say which rows they come from.
    for kept in &c.row_filters {
        let mut conditions: Vec<String> = kept
            .columns
            .iter()
            .map(|(column, values)| match &values[..] {
                [one] => format!("{column} = {one}"),
                many => format!("{column} in {}", many.join(", ")),
            })
            .collect();
        if kept.of_subjects_left_out > 0 {
            conditions.push("the subjects the ADSL filter keeps".to_string());
        }
        let conditions = conditions.join(" and ");
        facts.push(Fact {
            label: format!("Records of {}", kept.dataset.to_uppercase()),
            value: format!(
                "{conditions} ({} of {} rows)",
                crate::documents::prose::grouped(kept.kept as u64),
                crate::documents::prose::grouped((kept.kept + kept.dropped) as u64)
            ),
        });
    }
    facts
}

/// The baseline characteristics table, per arm and in total.
fn baseline(c: &CohortResults, f: &Formats) -> Option<Section> {
    if c.baseline.is_empty() {
        return None;
    }
    let columns = columns(c, true);
    let mut head = vec![Cell::text("Characteristic")];
    head.extend(columns.iter().map(|col| {
        Cell::num(if c.arms.is_empty() {
            format!("All subjects (N = {})", c.n.enrolled)
        } else {
            format!("{} (N = {})", col.name, col.r.n.enrolled)
        })
    }));
    Some(Section {
        id: "baseline",
        heading: "Baseline characteristics".to_string(),
        blocks: vec![Block::Table(Table {
            caption: None,
            class: (columns.len() > 2).then_some("wide"),
            head: vec![Row::of(head)],
            body: baseline_rows(&c.baseline, &columns, f),
        })],
    })
}

/// The median follow-up, by the reverse Kaplan–Meier method.
fn follow_up(c: &CohortResults, f: &Formats) -> Option<Section> {
    let fu = c.followup.as_ref()?;
    let estimate = match fu.estimate {
        Some(x) => format!("{} {}", fixed(x, f.td), f.unit),
        None => "not reached".to_string(),
    };
    Some(Section {
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
    })
}

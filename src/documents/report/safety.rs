//! The report's safety section: TEAE and TRAE summaries by grade and by term.

use crate::results::{AeCounts, AeGrading, CohortResults, Safety, TermCounts};

use super::model::*;
use super::table::*;

pub(super) fn safety(c: &CohortResults, f: &Formats) -> Option<Section> {
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
    // A count, or none where the data cannot give it (AEACN, AESER, a grade absent or empty):
    // printed "–", never 0.
    type Pick = fn(&AeCounts) -> Option<usize>;
    let mut summary: Vec<(&str, Pick)> =
        vec![(g.any(), |x| Some(x.any)), (g.severe(), |x| x.grade3plus)];
    // Severity has no grade 4.
    if !severity {
        summary.push(("Grade ≥4", |x| x.grade4plus));
    }
    summary.push(("Serious", |x| x.serious));
    summary.push((if severity { "Fatal" } else { "Fatal (grade 5)" }, |x| {
        x.fatal
    }));
    // With ADAE AEACN: what was done with the study treatment.
    // The action taken with the study treatment (ADAE AEACN), named so: a discontinuation
    // counted from ADSL's reasons is another count (the disposition table's).
    if s.teae.discontinued.is_some() {
        summary.push(("Leading to discontinuation (action taken, AEACN)", |x| {
            x.discontinued
        }));
        summary.push(("Leading to dose reduction (AEACN)", |x| x.reduced));
        summary.push(("Leading to interruption (AEACN)", |x| x.interrupted));
    }
    let columns = columns(c, true);
    let safety_of = |r: &CohortResults| r.safety.clone();
    let per_column: Vec<Option<Safety>> = columns.iter().map(|col| safety_of(col.r)).collect();
    // Each column's TEAE and TRAE counts of one kind, over its safety population.
    let pair = |pick: Pick| {
        per_column
            .iter()
            .flat_map(|x| match x {
                Some(x) => [&x.teae, &x.trae].map(|counts| match pick(counts) {
                    Some(n) => Cell::num(f.count_pct(n, x.total)),
                    None => Cell::num("–"),
                }),
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
    // Two columns per arm: more than three arms and the total set small and close.
    let dense = columns.len() > 3;
    blocks.push(Block::Table(Table {
        caption: None,
        class: match (columns.len() > 1, dense) {
            (_, true) => Some("wide dense"),
            (true, false) => Some("wide"),
            _ => None,
        },
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
        blocks.extend(term_tables(c, s, &columns, f));
    }
    Some(Section {
        id: "safety",
        heading: format!("Adverse events (safety population, N = {total})"),
        blocks,
    })
}

/// The terms of a table by its own displayed count (`count`: the first column's, then the
/// next's; the arms together), most first, then by name; by name alone under
/// `analysis.ae_sort: alphabetical`.
fn sorted_terms<'t>(
    terms: &'t [TermCounts],
    count: impl Fn(&TermCounts) -> (usize, usize),
    f: &Formats,
) -> Vec<&'t TermCounts> {
    let mut sorted: Vec<&TermCounts> = terms.iter().collect();
    match f.ae_sort {
        crate::config::AeSort::Frequency => sorted.sort_by(|a, b| {
            let (x, y) = (count(a), count(b));
            y.0.cmp(&x.0)
                .then(y.1.cmp(&x.1))
                .then_with(|| a.term.cmp(&b.term))
        }),
        crate::config::AeSort::Alphabetical => sorted.sort_by(|a, b| a.term.cmp(&b.term)),
    }
    sorted
}

/// The adverse events by preferred term: one table without arms, else a TEAE and a TRAE table
/// with each arm's any-grade and severe counts.
fn term_tables(c: &CohortResults, s: &Safety, columns: &[Column<'_>], f: &Formats) -> Vec<Block> {
    let g = s.grading;
    let total = s.total;
    let mut blocks = Vec::new();
    let subheading = |what: &str| Block::Subheading {
        text: format!("{what} (each subject counted once, at the {})", g.worst()),
    };
    if c.arms.is_empty() {
        blocks.push(subheading("By preferred term"));
        blocks.push(Block::Table(Table {
            caption: None,
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
            body: sorted_terms(&s.by_term, |t| (t.teae_any, t.trae_any), f)
                .into_iter()
                .map(|t| {
                    Row::of(vec![
                        Cell::text(t.term.clone()),
                        Cell::text(t.soc.clone().unwrap_or_default()),
                        Cell::num(f.count_pct(t.teae_any, total)),
                        Cell::num(f.maybe_count_pct(t.teae_grade3plus, total)),
                        Cell::num(f.count_pct(t.trae_any, total)),
                        Cell::num(f.maybe_count_pct(t.trae_grade3plus, total)),
                    ])
                })
                .collect(),
        }));
    } else {
        // With arms: TEAEs and TRAEs in two tables, each arm's any-grade and severe counts.
        let arms = &columns[..columns.len() - 1];
        type Counts = fn(&TermCounts) -> (usize, Option<usize>);
        let kinds: [(&str, Counts); 2] = [
            ("TEAEs by preferred term", |t| {
                (t.teae_any, t.teae_grade3plus)
            }),
            ("TRAEs by preferred term", |t| {
                (t.trae_any, t.trae_grade3plus)
            }),
        ];
        // Each arm's terms by name, looked up once per row (10^5 terms by a scan each were
        // 10^10 comparisons).
        let by_name: Vec<(std::collections::HashMap<&str, &TermCounts>, usize)> = arms
            .iter()
            .map(|col| {
                col.r.safety.as_ref().map_or_else(Default::default, |x| {
                    (
                        x.by_term.iter().map(|u| (u.term.as_str(), u)).collect(),
                        x.total,
                    )
                })
            })
            .collect();
        for (what, pick) in kinds {
            let rows: Vec<Row> = sorted_terms(&s.by_term, |t| (pick(t).0, 0), f)
                .into_iter()
                .filter(|t| pick(t).0 > 0)
                .map(|t| {
                    let mut cells = vec![
                        Cell::text(t.term.clone()),
                        Cell::text(t.soc.clone().unwrap_or_default()),
                    ];
                    cells.extend(by_name.iter().flat_map(|(terms, total)| {
                        let total = *total;
                        let (any, severe) =
                            terms.get(t.term.as_str()).map_or((0, Some(0)), |u| pick(u));
                        [
                            Cell::num(f.count_pct(any, total)),
                            Cell::num(f.maybe_count_pct(severe, total)),
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
            top.extend(arms.iter().zip(&by_name).map(|(col, (_, total))| {
                Cell::num(format!("{} (N = {total})", col.name)).span(2, 1)
            }));
            let grades = arms
                .iter()
                .flat_map(|_| [Cell::num(g.any()), Cell::num(g.severe())])
                .collect();
            blocks.push(subheading(what));
            blocks.push(Block::Table(Table {
                caption: None,
                class: Some(if arms.len() > 2 {
                    "terms wide dense"
                } else {
                    "terms wide"
                }),
                head: vec![Row::of(top), Row::of(grades)],
                body: rows,
            }));
        }
    }
    blocks
}

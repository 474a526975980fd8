//! The report's comparisons of a randomised cohort: hazard ratios and log-rank tests,
//! response rates compared, and the subgroups' hazard ratios.

use crate::documents::prose::sentence_case;
use crate::format::{fmt_limits, fmt_pct};
use crate::results::{CohortResults, ProportionDifference};

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
                vec![Cell::text(label(endpoint)).span(5, 1)],
            ));
            for (k, s) in t.subgroups.iter().enumerate() {
                let group = c.column_label(&s.column);
                let mut cells = vec![
                    Cell::level(format!("{group}: {}", s.shown_level())),
                    Cell::num(format!("{}/{}", s.events, s.n)),
                    Cell::num(format!("{}/{}", s.events_reference, s.n_reference)),
                    Cell::num(ratio(s.hr.as_ref())),
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
                    cells.push(Cell::num(p_only(p)).span(1, rows));
                }
                subgroups.push(Row::of(cells));
            }
        }
        if !subgroups.is_empty() {
            let hr = format!("HR ({}% CI)", f.level);
            let arm = format!("Events/N, {}", x.arm);
            let reference = format!("Events/N, {}", x.reference);
            let header_row = header(&["Subgroup", &arm, &reference, &hr, "Interaction p"]);
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
    let mut note = "HR: hazard ratio of the arm to the reference (Cox model); NE: not estimable (an arm without events). Differences are arm minus reference; all p-values two-sided.".to_string();
    // The interaction tests, when a comparison has subgroups: within the strata when the
    // cohort has strata (docs/OUTPUTS.md).
    let with_subgroups = c
        .comparisons
        .iter()
        .find(|x| x.tte.values().any(|t| !t.subgroups.is_empty()));
    if let Some(x) = with_subgroups {
        let within = if x.tte.values().any(|t| t.stratified.is_some()) {
            " within the strata"
        } else {
            ""
        };
        note.push_str(&format!(
            " Interaction p: likelihood-ratio test of the arm \u{d7} subgroup interaction in the Cox model{within}."
        ));
    }
    blocks.push(Block::Note { text: note });
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

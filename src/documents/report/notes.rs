//! Every table of the report numbered and explained (docs/OUTPUTS.md, "report"): a caption
//! "Table N. title" above each (its own, else the subheading or heading above it), and under it
//! a footnote with the population it counts and the abbreviations its cells use that no note
//! under it explains already.

use crate::config::Numbering;
use crate::model::endpoint;
use crate::results::CohortResults;

use super::model::*;

/// Abbreviations the report's tables use, with their meaning. `NE` reads "not evaluable" as a
/// response category (a label) and "not estimable" in a number.
const LABELS: &[(&str, &str)] = &[
    ("CI", "confidence interval"),
    ("CMH", "Cochran–Mantel–Haenszel"),
    ("CR", "complete response"),
    ("CTCAE", "Common Terminology Criteria for Adverse Events"),
    ("DCR", "disease control rate"),
    ("DoR", "duration of response"),
    (endpoint::DOR, "duration of response"),
    ("EAIR", "exposure-adjusted incidence rate"),
    ("ECOG", "Eastern Cooperative Oncology Group"),
    ("HR", "hazard ratio"),
    ("MR", "minimal response"),
    ("NE", "not evaluable"),
    ("ORR", "objective response rate"),
    (endpoint::OS, "overall survival"),
    ("PD", "progressive disease"),
    (endpoint::PFS, "progression-free survival"),
    ("PR", "partial response"),
    ("SD", "stable disease"),
    ("TEAE", "treatment-emergent adverse event"),
    ("TRAE", "treatment-related adverse event"),
    ("VGPR", "very good partial response"),
];

/// Abbreviations read in number cells.
const NUMBERS: &[(&str, &str)] = &[("NE", "not estimable"), ("NR", "not reached")];

/// The numbers of a report's tables, or of its figures, by `output.numbering`: in order, or
/// in order within the ICH E3 section a table's or figure's subject belongs to.
pub(super) struct Counter {
    numbering: Numbering,
    counts: std::collections::BTreeMap<&'static str, usize>,
}

impl Counter {
    pub(super) fn new(numbering: Numbering) -> Counter {
        Counter {
            numbering,
            counts: Default::default(),
        }
    }

    /// The next number of a table or figure in the CSR section `csr` (`14.2`).
    fn next(&mut self, csr: &'static str) -> String {
        let key = match self.numbering {
            Numbering::Sequential => "",
            Numbering::Csr => csr,
        };
        let n = self.counts.entry(key).or_default();
        *n += 1;
        match self.numbering {
            Numbering::Sequential => n.to_string(),
            Numbering::Csr => format!("{csr}.{n}"),
        }
    }

    /// The next number of a table of report section `section` titled `title`.
    pub(super) fn table(&mut self, section: &str, title: &str) -> String {
        self.next(csr_section(section, title))
    }

    /// The next number of the figure `name` (`km-pfs`, `ae-soc`).
    pub(super) fn figure(&mut self, name: &str) -> String {
        let section = if name.starts_with("ae") {
            "safety"
        } else {
            "response"
        };
        self.next(csr_section(section, name))
    }
}

/// The ICH E3 section 14 number of a table of report section `section` titled `title`:
/// 14.1 the subjects (populations, disposition and exposure, baseline), 14.3.1 adverse events
/// (the safety section's tables, and any titled by adverse events or their incidence rates),
/// 14.3.2 deaths and serious adverse events, 14.2 efficacy (the rest).
fn csr_section(section: &str, title: &str) -> &'static str {
    let title = title.to_lowercase();
    let serious = ["serious", "fatal", "death"]
        .iter()
        .any(|w| title.contains(w));
    let adverse_events = ["adverse event", "teae", "trae", "incidence rate"]
        .iter()
        .any(|w| title.contains(w));
    if section == "safety" || adverse_events {
        return if serious { "14.3.2" } else { "14.3.1" };
    }
    match section {
        "populations" | "disposition" | "baseline" => "14.1",
        _ => "14.2",
    }
}

/// Captions every table, numbers the captions (`counter`), and adds each table's footnote:
/// `said(section id, title)` gives what a table counts (its population) and where it comes
/// from (its source), each a sentence.
pub(super) fn number_tables(
    sections: &mut [Section],
    counter: &mut Counter,
    said: impl Fn(&str, &str) -> (Option<String>, Option<String>),
) {
    // Titles used so far: a title met again takes the subheading it falls under ("Adverse
    // events, B vs A"), else its count, so that no two tables share one.
    let mut used: std::collections::HashMap<String, usize> = Default::default();
    for section in sections {
        let mut context: Option<String> = None;
        let old = std::mem::take(&mut section.blocks);
        let mut blocks = Vec::with_capacity(old.len() + 4);
        let mut old = old.into_iter().peekable();
        while let Some(block) = old.next() {
            let Block::Table(table) = block else {
                // The pair of arms a comparison's tables fall under ("B vs A"), else the last
                // subheading.
                if let Block::Subheading { text } = &block {
                    if text.contains(" vs ")
                        || !context.as_deref().is_some_and(|c| c.contains(" vs "))
                    {
                        context = Some(text.clone());
                    }
                }
                blocks.push(block);
                continue;
            };
            match blocks.last_mut() {
                Some(Block::Caption { .. }) => {}
                // A subheading directly above a table is its title.
                Some(last @ Block::Subheading { .. }) => {
                    if let Block::Subheading { text } = std::mem::replace(last, Block::Figures) {
                        // "By preferred term ..." says what it is only after the heading.
                        let text = match text.strip_prefix("By ") {
                            Some(rest) => format!("{}, by {rest}", section.heading),
                            None => text,
                        };
                        *last = Block::caption(text);
                    }
                }
                _ => blocks.push(Block::caption(section.heading.clone())),
            }
            let mut table = table;
            if let Some(Block::Caption {
                text,
                number,
                title,
            }) = blocks.last_mut()
            {
                let seen = used.entry(title.clone()).or_default();
                *seen += 1;
                if *seen > 1 {
                    *title = match &context {
                        Some(under) if !title.contains(under.as_str()) => {
                            format!("{title}, {under}")
                        }
                        _ => format!("{title} ({seen})"),
                    };
                }
                *number = counter.table(section.id, title);
                *text = format!("Table {number}. {title}");
                table.caption = Some(text.clone());
            }
            // The notes under the table, up to the next table, say what they explain already.
            let explained: String = {
                let mut ahead = old.clone();
                let mut notes = String::new();
                while let Some(Block::Note { text }) = ahead.next() {
                    notes.push_str(&text);
                    notes.push(' ');
                }
                notes
            };
            let title = match blocks.last() {
                Some(Block::Caption { title, .. }) => title.as_str(),
                _ => "",
            };
            let (population, source) = said(section.id, title);
            let footnote = footnote(&table, population.as_deref(), &explained).map_or(
                source.clone(),
                |text| match &source {
                    Some(source) => Some(format!("{text} {source}")),
                    None => Some(text),
                },
            );
            blocks.push(Block::Table(table));
            if let Some(text) = footnote {
                blocks.push(Block::Note { text });
            }
        }
        section.blocks = blocks;
    }
}

/// Whether a table is of adverse events: of the safety section, or titled by them.
fn of_adverse_events(section: &str, title: &str) -> bool {
    csr_section(section, title).starts_with("14.3")
}

/// The population a table of report section `section` titled `title` counts, as a footnote
/// says it; none for the table of the populations themselves.
pub(super) fn population(section: &str, title: &str, c: &CohortResults) -> Option<String> {
    let exposure = title.to_lowercase().contains("exposure");
    let (name, n) = if of_adverse_events(section, title) || (section == "disposition" && exposure) {
        ("Safety population", c.n.safety)
    } else {
        match section {
            "baseline" | "disposition" => ("All enrolled subjects", c.n.enrolled),
            "response" | "time-to-event" | "follow-up" | "comparisons" => {
                ("Efficacy population", c.n.efficacy)
            }
            _ => return None,
        }
    };
    Some(format!("{name} (N = {n})."))
}

/// Where a report's tables come from: the datasets the config gives (`ADSL`, `ADAE`, ...),
/// the config file's name, and the cut-off.
pub struct Provenance {
    /// The datasets given, in upper case.
    pub datasets: Vec<&'static str>,
    /// The config file's name (without its folder).
    pub config: String,
}

/// A table's source, as its footnote says it: "Source: ADAE, ADSL; readout 0.1.0,
/// study.yaml, cut-off 2023-09-29." Adverse-event tables read ADAE; response tables ADRS;
/// time-to-event tables ADTTE, or ADRS for times derived from the responses; exposure ADEX
/// when given; all ADSL.
pub(super) fn source(
    section: &str,
    title: &str,
    c: &CohortResults,
    provenance: &Provenance,
) -> String {
    let given = |name: &'static str| provenance.datasets.contains(&name).then_some(name);
    let lower = title.to_lowercase();
    let mut datasets: Vec<&'static str> = Vec::new();
    if of_adverse_events(section, title) {
        datasets.extend(given("ADAE"));
    } else if lower.contains("exposure") {
        datasets.extend(given("ADEX"));
    } else if section == "response" || lower.contains("response") {
        datasets.extend(given("ADRS"));
    } else if matches!(section, "time-to-event" | "follow-up" | "comparisons") {
        for t in c.tte.values() {
            let name = if t.source == "ADTTE" { "ADTTE" } else { "ADRS" };
            if !datasets.contains(&name) {
                datasets.extend(given(name));
            }
        }
        if section == "comparisons" && c.response.is_some() && !lower.contains("hazard") {
            datasets.extend(given("ADRS").filter(|d| !datasets.contains(d)));
        }
    }
    datasets.sort_unstable();
    datasets.push("ADSL");
    let cutoff = match c.cutoff {
        Some(d) => format!("cut-off {d}"),
        None => "no cut-off".to_string(),
    };
    format!(
        "Source: {}; readout {}, {}, {cutoff}.",
        datasets.join(", "),
        env!("CARGO_PKG_VERSION"),
        provenance.config
    )
}

/// A table's footnote: its population, then the abbreviations its cells use that `explained`
/// (the notes under it) does not define; none when there is nothing to say.
fn footnote(table: &Table, population: Option<&str>, explained: &str) -> Option<String> {
    let mut used: Vec<(&str, &str)> = Vec::new();
    // Spelled out in the table itself: "Stable disease (SD)".
    let mut spelled: Vec<&str> = Vec::new();
    let rows = table.head.iter().map(|r| (false, r));
    for (body, row) in rows.chain(table.body.iter().map(|r| (true, r))) {
        for cell in &row.cells {
            let number = cell.num && body;
            if !number {
                spelled.extend(spelled_out(&cell.text));
            }
            for word in words(&cell.text) {
                let found = if number {
                    NUMBERS.iter().find(|(a, _)| *a == word)
                } else if word == "SD" && cell.text.to_lowercase().contains("mean (sd)") {
                    Some(&("SD", "standard deviation"))
                } else {
                    LABELS.iter().find(|(a, _)| *a == word)
                };
                if let Some(&(abbr, meaning)) = found {
                    if !used.iter().any(|(a, m)| *a == abbr && *m == meaning) {
                        used.push((abbr, meaning));
                    }
                }
            }
        }
    }
    used.retain(|(abbr, meaning)| {
        let spelled_here = spelled.contains(abbr) && *meaning != "standard deviation";
        !defined(explained, abbr) && !spelled_here
    });
    used.sort_by(|a, b| {
        a.0.to_ascii_uppercase()
            .cmp(&b.0.to_ascii_uppercase())
            .then(a.1.cmp(b.1))
    });
    used.dedup_by(|a, b| a.0.eq_ignore_ascii_case(b.0) && a.1 == b.1);
    let mut text = population.unwrap_or_default().to_string();
    if !used.is_empty() {
        let list = used
            .iter()
            .map(|(a, m)| format!("{a}, {m}"))
            .collect::<Vec<_>>()
            .join("; ");
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&format!("Abbreviations: {list}."));
    }
    (!text.is_empty()).then_some(text)
}

/// The words of a cell: runs of letters (so "CIs" and "TEAEs" read as their singular).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 2 && stem.chars().all(|c| c.is_ascii_uppercase()) => stem,
            _ => w,
        })
}

/// The abbreviations a label spells out before it: "Stable disease (SD)" gives `SD`; a
/// bracket that follows no words ("(SD)" alone) spells out nothing.
fn spelled_out(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('(').filter_map(move |(at, _)| {
        let inside = &text[at + 1..];
        let end = inside.find(')')?;
        let abbr = &inside[..end];
        let long_before = text[..at].trim_end().split(' ').next_back()?.len() > 2;
        (long_before && !abbr.is_empty() && abbr.chars().all(|c| c.is_ascii_alphabetic()))
            .then_some(abbr)
    })
}

/// Whether a note defines `abbr` ("NE: not estimable", "HR: hazard ratio", "CI, ...").
fn defined(notes: &str, abbr: &str) -> bool {
    [": ", ", ", " ("].iter().any(|after| {
        notes.match_indices(abbr).any(|(at, _)| {
            let before_ok = notes[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_ascii_alphanumeric());
            before_ok && notes[at + abbr.len()..].starts_with(after)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(head: &[&str], body: &[(&str, &str)]) -> Table {
        let cell = |text: &str, num: bool| Cell {
            num,
            ..Cell::text(text)
        };
        Table {
            caption: None,
            class: None,
            head: vec![Row::of(head.iter().map(|h| cell(h, false)).collect())],
            body: body
                .iter()
                .map(|(label, value)| Row::of(vec![cell(label, false), cell(value, true)]))
                .collect(),
        }
    }

    #[test]
    fn a_footnote_names_the_population_and_the_abbreviations_used() {
        let t = table(
            &["Endpoint", "Median (95% CI)"],
            &[
                (endpoint::PFS, "8.3 (6.1, NE)"),
                (endpoint::OS, "NR (14.2, NE)"),
            ],
        );
        assert_eq!(
            footnote(&t, Some("Efficacy population (N = 30)."), "").as_deref(),
            Some(
                "Efficacy population (N = 30). Abbreviations: CI, confidence interval; NE, not \
                 estimable; NR, not reached; OS, overall survival; PFS, progression-free survival."
            )
        );
        // A note under the table that defines NE and NR already.
        assert_eq!(
            footnote(&t, None, "NR: not reached; NE: not estimable.").as_deref(),
            Some(
                "Abbreviations: CI, confidence interval; OS, overall survival; PFS, \
                 progression-free survival."
            )
        );
    }

    #[test]
    fn ne_as_a_category_is_not_evaluable_and_plural_reads_as_singular() {
        let t = table(
            &["Response", "n (%)"],
            &[("NE", "2 (6.7%)"), ("TEAEs", "3")],
        );
        assert_eq!(
            footnote(&t, None, "").as_deref(),
            Some("Abbreviations: NE, not evaluable; TEAE, treatment-emergent adverse event.")
        );
        // Spelled out in its own row; SD after a mean is a standard deviation.
        let t = table(
            &["Response", "n (%)"],
            &[
                ("Stable disease (SD)", "2"),
                ("Duration, mean (SD)", "8.8 (6.8)"),
            ],
        );
        assert_eq!(
            footnote(&t, None, "").as_deref(),
            Some("Abbreviations: SD, standard deviation.")
        );
        // Nothing to say: no footnote; a word that only contains an abbreviation is not one.
        let t = table(
            &["Characteristic", "n"],
            &[("SDH level", "3"), ("Age", "61")],
        );
        assert_eq!(footnote(&t, None, ""), None);
        assert!(defined("x. HR: hazard ratio", "HR"));
        assert!(!defined("THR: something", "HR"));
    }

    #[test]
    fn every_table_gets_a_numbered_caption_and_a_subheading_above_a_table_becomes_it() {
        let t = table(&["A", "B"], &[("x", "1")]);
        let mut sections = vec![
            Section {
                id: "populations",
                heading: "Populations".into(),
                blocks: vec![Block::Table(t.clone())],
            },
            Section {
                id: "other",
                heading: "Other".into(),
                blocks: vec![
                    Block::Subheading {
                        text: "Rates".into(),
                    },
                    Block::Table(t.clone()),
                    Block::Subheading {
                        text: "By term".into(),
                    },
                    Block::Table(t.clone()),
                    Block::caption("Own title"),
                    Block::Table(t),
                    Block::Paragraph { text: "p".into() },
                ],
            },
        ];
        number_tables(
            &mut sections,
            &mut Counter::new(Numbering::Sequential),
            |id, _| ((id == "other").then(|| "All (N = 3).".into()), None),
        );
        let captions: Vec<&str> = sections
            .iter()
            .flat_map(|s| &s.blocks)
            .filter_map(|b| match b {
                Block::Caption { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            captions,
            [
                "Table 1. Populations",
                "Table 2. Rates",
                "Table 3. Other, by term",
                "Table 4. Own title"
            ]
        );
        assert!(!sections[1]
            .blocks
            .iter()
            .any(|b| matches!(b, Block::Subheading { .. })));
        // Each table of the section with a population has it under it, and only those.
        let notes = |s: &Section| {
            s.blocks
                .iter()
                .filter(|b| matches!(b, Block::Note { text } if text == "All (N = 3)."))
                .count()
        };
        assert_eq!((notes(&sections[0]), notes(&sections[1])), (0, 3));
    }
}

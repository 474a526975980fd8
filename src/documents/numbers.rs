//! The abstract's numbers sheet, `<cohort>/abstract-numbers.csv`, and the sources of
//! `abstract.html` (docs/OUTPUTS.md): one row per number the abstract prints, found by the
//! traced render ([`super::trace`]), with its section, sentence, printed text, unrounded
//! value and JSON Pointer into the cut-off's `results.json`. The pointers name the cohort by
//! its place in `results.json`, known from the analyses before any document is made
//! ([`NumbersSheet::files`]).

use serde_json::Value;

use super::trace::{self, Entry, Span};
use crate::error::{Error, Result};
use crate::files::OutputFile;

/// One number of the abstract.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The paragraph's heading (`Results`), `Title`, or `Paragraph 3` without one.
    pub section: String,
    /// 1-based sentence within the section.
    pub sentence: usize,
    /// The number as printed (`34.2%`, `Nine`, `p < 0.001`, `not reached`).
    pub text: String,
    /// Where it came from.
    pub entry: Entry,
}

/// The rows of a traced `abstract.txt`: its text without marks, the marked spans and the
/// entries they name, in text order.
pub fn rows(text: &str, spans: &[Span], entries: &[Entry]) -> Vec<Row> {
    let paragraphs = paragraphs(text);
    let mut spans: Vec<&Span> = spans.iter().collect();
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    spans
        .into_iter()
        .filter_map(|span| {
            let entry = entries.get(span.entry)?.clone();
            let printed = text.get(span.start..span.end)?.to_string();
            let (section, sentence) = paragraphs
                .iter()
                .rev()
                .find(|p| p.start <= span.start)
                .map(|p| (p.section.clone(), p.sentence_at(span.start)))
                .unwrap_or_else(|| ("Title".to_string(), 1));
            Some(Row {
                section,
                sentence,
                text: printed,
                entry,
            })
        })
        .collect()
}

struct Paragraph {
    start: usize,
    section: String,
    /// Start offsets of its sentences.
    sentences: Vec<usize>,
}

impl Paragraph {
    fn sentence_at(&self, at: usize) -> usize {
        self.sentences.iter().filter(|&&s| s <= at).count().max(1)
    }
}

/// A plain-text abstract paragraph's heading ("Results" of "Results: ..."): at most 40
/// letters and spaces before the first ": ".
pub fn heading(paragraph: &str) -> Option<&str> {
    paragraph.split_once(": ").map(|(h, _)| h).filter(|h| {
        !h.is_empty() && h.chars().count() <= 40 && h.chars().all(|c| c.is_alphabetic() || c == ' ')
    })
}

/// The paragraphs of a plain-text abstract (separated by blank lines; the first is the
/// title), each with its heading and sentence starts.
fn paragraphs(text: &str) -> Vec<Paragraph> {
    let base = text.as_ptr() as usize;
    let mut out = Vec::new();
    let mut start = 0;
    for (k, block) in text.split("\n\n").enumerate() {
        let heading = heading(block);
        let section = match (k, heading) {
            (0, _) => "Title".to_string(),
            (_, Some(h)) => h.to_string(),
            (_, None) => format!("Paragraph {}", k + 1),
        };
        let body_from = heading.map_or(0, |h| h.len() + 2);
        let body = block.get(body_from..).unwrap_or("");
        let sentences = super::conference::sentences(body)
            .iter()
            .map(|s| s.as_ptr() as usize - base)
            .collect();
        out.push(Paragraph {
            start,
            section,
            sentences,
        });
        start += block.len() + 2;
    }
    out
}

/// The sheet's text: a header, then one row per number; pointers under `prefix` (the cohort's
/// pointer in results.json, `/cohorts/0`).
pub fn csv(rows: &[Row], prefix: &str) -> Result<Vec<u8>> {
    let failed = |e: csv::Error| Error::Analysis {
        cohort: String::new(),
        message: format!("abstract-numbers.csv: {e}"),
    };
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "section",
        "sentence",
        "text",
        "value",
        "source",
        "denominator",
        "format",
    ])
    .map_err(failed)?;
    for row in rows {
        let e = &row.entry;
        out.write_record([
            &*crate::model::text::spreadsheet_safe(&row.section),
            &row.sentence.to_string(),
            &*crate::model::text::spreadsheet_safe(&row.text),
            &*crate::model::text::spreadsheet_safe(&value_text(&e.value)),
            &format!("{prefix}{}", e.pointer),
            &e.denominator
                .as_ref()
                .map(|d| format!("{prefix}{d}"))
                .unwrap_or_default(),
            e.format,
        ])
        .map_err(failed)?;
    }
    out.into_inner()
        .map_err(|e| failed(csv::Error::from(e.into_error())))
}

/// A value as the sheet writes it: a number as results.json has it, a string as it is,
/// nothing for null.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What the self-check finds wrong with the rows: a percentage that does not round from its
/// source (`45.0%` printed for 9 of 21), or a rate that is not its own n over N in results.
/// `cohort` is the cohort's results as JSON.
pub fn disagreements(rows: &[Row], cohort: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for row in rows {
        let e = &row.entry;
        let Some(value) = e.value.as_f64() else {
            continue;
        };
        let place = format!("{}, sentence {}", row.section, row.sentence);
        if let Some(printed) = row.text.strip_suffix('%').and_then(printed_number) {
            let (stated, decimals) = printed;
            let exact = 100.0 * value;
            let tolerance = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9 * exact.abs().max(1.0);
            if (stated - exact).abs() > tolerance {
                found.push(format!(
                    "{place}: \"{}\" does not round from {} = {}%",
                    row.text,
                    source_words(e),
                    crate::format::fixed(exact, decimals + 2)
                ));
            }
        }
        // A rate beside its own counts must be their ratio.
        if let Some(parent) = e.pointer.strip_suffix("/rate") {
            let count = |key: &str| {
                cohort
                    .pointer(&format!("{parent}/{key}"))
                    .and_then(Value::as_f64)
            };
            if let (Some(n), Some(total)) = (count("n"), count("N")) {
                if total > 0.0 && (n / total - value).abs() > 1e-9 {
                    found.push(format!(
                        "{place}: \"{}\" comes from {} = {value}, but {parent}/n over \
                         {parent}/N is {n}/{total}",
                        row.text, e.pointer
                    ));
                }
            }
        }
    }
    found
}

fn source_words(e: &Entry) -> String {
    match &e.denominator {
        Some(d) => format!("{} / {d}", e.pointer),
        None => e.pointer.clone(),
    }
}

/// A printed decimal number and its decimals (`34.2` → (34.2, 1)); `None` for anything else.
fn printed_number(text: &str) -> Option<(f64, usize)> {
    let t = text.trim().trim_start_matches(['-', '−']);
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let decimals = t.split_once('.').map_or(0, |(_, f)| f.len());
    let x: f64 = t.parse().ok()?;
    let negative = text.trim().starts_with(['-', '−']);
    Some((if negative { -x } else { x }, decimals))
}

/// A cohort's numbers sheet and its `abstract.html` as the formats make them, written at the
/// end of the documents stage with the cohort's place in results.json.
#[derive(Debug, Default)]
pub struct NumbersSheet {
    /// The cohort's folder (its id).
    pub dir: String,
    /// The sheet's rows.
    pub rows: Vec<Row>,
    /// `abstract.html` with its numbers marked, and the entries the marks name (with `html`
    /// among the formats).
    pub html: Option<(String, Vec<Entry>)>,
}

impl NumbersSheet {
    /// The files, the cohort being `cohorts[index]` of results.json.
    pub fn files(self, index: usize) -> Result<Vec<OutputFile>> {
        let prefix = format!("/cohorts/{index}");
        let mut files = vec![OutputFile {
            path: format!("{}/abstract-numbers.csv", self.dir),
            bytes: csv(&self.rows, &prefix)?.into(),
        }];
        if let Some((html, entries)) = self.html {
            files.push(OutputFile {
                path: format!("{}/abstract.html", self.dir),
                bytes: trace::html_sources(&html, &entries, &prefix)
                    .into_bytes()
                    .into(),
            });
        }
        Ok(files)
    }
}

#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::text::spreadsheet_safe;

    fn entry(pointer: &str, value: Value) -> Entry {
        Entry {
            pointer: pointer.to_string(),
            value,
            denominator: None,
            format: "pct",
        }
    }

    #[test]
    fn rows_know_their_section_and_sentence() {
        let text = "A title\n\nMethods: Pts were treated.\n\nResults: Ten pts. The ORR was 34.2%.";
        let at = text.find("34.2%").unwrap();
        let spans = [Span {
            start: at,
            end: at + 5,
            entry: 0,
        }];
        let rows = rows(
            text,
            &spans,
            &[entry("/response/orr/rate", serde_json::json!(0.342))],
        );
        assert_eq!(rows[0].section, "Results");
        assert_eq!(rows[0].sentence, 2);
        assert_eq!(rows[0].text, "34.2%");
        let sheet = String::from_utf8(csv(&rows, "/cohorts/1").unwrap()).unwrap();
        assert_eq!(spreadsheet_safe("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(spreadsheet_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(spreadsheet_safe("-0.216"), "-0.216");
        assert_eq!(spreadsheet_safe("+cmd"), "'+cmd");
        assert_eq!(spreadsheet_safe("\u{2212}21.6%"), "\u{2212}21.6%");
        assert_eq!(
            sheet,
            "section,sentence,text,value,source,denominator,format\n\
             Results,2,34.2%,0.342,/cohorts/1/response/orr/rate,,pct\n"
        );
    }

    #[test]
    fn the_self_check_reads_percentages_and_rates_against_their_sources() {
        let cohort = serde_json::json!({"response": {"orr": {"n": 13, "N": 38, "rate": 0.35}}});
        let row = |text: &str, value: f64| Row {
            section: "Results".to_string(),
            sentence: 1,
            text: text.to_string(),
            entry: entry("/response/orr/rate", serde_json::json!(value)),
        };
        // 0.35 prints as 35.0%, but 13/38 is 34.2%: the rate disagrees with its counts.
        let found = disagreements(&[row("35.0%", 0.35)], &cohort);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("13/38"), "{found:?}");
        // 34.2% printed for a value of 0.35 does not round from it.
        let found = disagreements(&[row("34.2%", 0.35)], &cohort);
        assert!(found[0].contains("does not round"), "{found:?}");
        let fine =
            serde_json::json!({"response": {"orr": {"n": 13, "N": 38, "rate": 13.0 / 38.0}}});
        assert!(disagreements(&[row("34.2%", 13.0 / 38.0)], &fine).is_empty());
    }
}

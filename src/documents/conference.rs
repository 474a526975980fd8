//! Conference abstract length limits: which conference counts what (`output.conference`), and
//! how long an abstract is under that rule. The length is measured on `abstract.txt`, the plain
//! text that is pasted into a submission form. The rules and their sources are in
//! `docs/CONFERENCES.md`.
//!
//! This module only measures; the build prints the measure, stores it in `results.json`, and
//! `readout build --strict` turns an overrun into an error.

pub use crate::config::{Conference, ConferenceSpec, CountUnit, CustomLimit, LengthRule};
use crate::results::{AbstractLength, SentenceLength};

impl LengthRule {
    /// Measures a plain-text abstract whose first paragraph (up to the first blank line) is
    /// the title.
    pub fn measure(&self, abstract_text: &str) -> AbstractLength {
        let counted = if self.title {
            abstract_text
        } else {
            split_title(abstract_text).1
        };
        let count = self.counts.count(counted);
        let within_limit = count <= self.limit;
        // Over the limit: where to cut, as the writer decides (nothing is cut here).
        let longest_sentences = if within_limit {
            Vec::new()
        } else {
            let mut sentences: Vec<SentenceLength> = sentences(split_title(abstract_text).1)
                .into_iter()
                .map(|text| SentenceLength {
                    count: self.counts.count(text),
                    text: text.to_string(),
                })
                .collect();
            sentences.sort_by_key(|s| std::cmp::Reverse(s.count));
            sentences.truncate(LONGEST_LISTED);
            sentences
        };
        AbstractLength {
            conference: self.name.clone(),
            count,
            limit: self.limit,
            unit: self.counts,
            title_counted: self.title,
            within_limit,
            longest_sentences,
            left_out: Vec::new(),
        }
    }
}

/// Sentences named when an abstract runs over its limit.
const LONGEST_LISTED: usize = 3;

/// The sentences of a text: ends at ". ", "? ", "! " or a line break, a decimal point
/// ("95.0%") or an abbreviation followed by a lower-case word does not end one.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, ch) in line.char_indices() {
            if !matches!(ch, '.' | '?' | '!') {
                continue;
            }
            let next = bytes.get(i + 1).copied();
            let after = line.get(i + 2..).and_then(|rest| rest.chars().next());
            if next == Some(b' ') && after.is_some_and(|c| !c.is_lowercase()) {
                if let Some(sentence) = line.get(start..=i) {
                    found.push(sentence.trim());
                }
                start = i + 2;
            }
        }
        if let Some(rest) = line.get(start..).map(str::trim).filter(|r| !r.is_empty()) {
            found.push(rest);
        }
    }
    found
}

/// (title, body) of a plain-text abstract: the title is the first paragraph.
pub fn split_title(text: &str) -> (&str, &str) {
    let text = text.trim_start_matches(['\n', '\r']);
    match text.find("\n\n") {
        Some(i) => (text.get(..i).unwrap_or(""), text.get(i + 2..).unwrap_or("")),
        None => (text, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abstract_over_its_limit_names_its_longest_sentences() {
        let text =
            "Title\n\nResults: The ORR was 34.2% (13/38). Stable disease was seen in 14 pts, \
                    giving a DCR of 71.1%. No death.\nConclusions: Active.";
        assert_eq!(
            sentences(split_title(text).1),
            [
                "Results: The ORR was 34.2% (13/38).",
                "Stable disease was seen in 14 pts, giving a DCR of 71.1%.",
                "No death.",
                "Conclusions: Active.",
            ]
        );
        let rule = |limit| LengthRule {
            name: "custom".into(),
            limit,
            counts: CountUnit::Words,
            title: false,
        };
        let over = rule(10).measure(text);
        assert!(!over.within_limit);
        assert_eq!(over.count, 22);
        let longest: Vec<(usize, &str)> = over
            .longest_sentences
            .iter()
            .map(|s| (s.count, s.text.as_str()))
            .collect();
        assert_eq!(
            longest,
            [
                (
                    12,
                    "Stable disease was seen in 14 pts, giving a DCR of 71.1%."
                ),
                (6, "Results: The ORR was 34.2% (13/38)."),
                (2, "No death."),
            ]
        );
        assert!(rule(22).measure(text).longest_sentences.is_empty());
    }

    #[test]
    fn counting_units() {
        let text = "A title\n\nBackground: one two.\nMethods: three.";
        assert_eq!(CountUnit::Words.count(text), 7);
        assert_eq!(
            CountUnit::CharsNoSpaces.count(text),
            "Atitle".len() + "Background:onetwo.".len() + "Methods:three.".len()
        );
        // 3 non-blank lines: their characters plus 2 line breaks.
        assert_eq!(
            CountUnit::Chars.count(text),
            "A title".len() + "Background: one two.".len() + "Methods: three.".len() + 2
        );
    }

    #[test]
    fn unicode_symbols_count_as_one_character() {
        assert_eq!(CountUnit::CharsNoSpaces.count("grade ≥3 – χ²"), 10);
        assert_eq!(CountUnit::Chars.count("≥3"), 2);
    }

    #[test]
    fn the_title_counts_only_when_the_rule_says_so() {
        let text = "Title here\n\nBody text.\n";
        let with = LengthRule {
            name: "custom".into(),
            limit: 3,
            counts: CountUnit::Words,
            title: true,
        };
        let without = LengthRule {
            title: false,
            ..with.clone()
        };
        assert_eq!(with.measure(text).count, 4);
        assert!(!with.measure(text).within_limit);
        assert_eq!(without.measure(text).count, 2);
        assert!(without.measure(text).within_limit);
    }

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(Conference::from_name("ASCO"), Some(Conference::Asco));
        assert_eq!(Conference::from_name("wclc"), Some(Conference::Wclc));
        assert_eq!(Conference::from_name("asco2024"), None);
    }

    #[test]
    fn display_reads_as_count_over_limit() {
        let m = Conference::Asco.rule().unwrap().measure("T\n\nab cd");
        assert_eq!(
            m.to_string(),
            "5/2600 characters excluding spaces (asco, title counted)"
        );
    }

    #[test]
    fn renamed_sections_are_keyed_by_their_usual_names() {
        let headings = crate::config::SectionNames {
            methods: "Patients and methods".into(),
            results: "Findings".into(),
            ..Default::default()
        };
        let text = "Title\n\nPatients and methods: One. Two.\n\nFindings: Three.\n\nNotes: Four.";
        let by = crate::documents::paragraph_sentences(text, &headings);
        assert_eq!(by["Methods"], ["One.", "Two."]);
        assert_eq!(by["Results"], ["Three."]);
        assert_eq!(by["Notes"], ["Four."]);
        assert!(!by.contains_key("Findings"));
        // Names a heading cannot be are refused, as are two sections of one name.
        for bad in [
            "Results:",
            "results",
            "",
            "Aims 2",
            "A very long heading with thirty one",
        ] {
            let names = crate::config::SectionNames {
                results: bad.into(),
                ..Default::default()
            };
            assert_eq!(names.problem().map(|p| p.0), Some("results"), "{bad}");
        }
        let twice = crate::config::SectionNames {
            conclusions: "Methods".into(),
            ..Default::default()
        };
        assert_eq!(twice.problem().map(|p| p.0), Some("conclusions"));
        assert_eq!(crate::config::SectionNames::default().problem(), None);
    }
}

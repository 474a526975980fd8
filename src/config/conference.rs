//! `output.conference` as written: a congress whose length rule readout knows, or a rule of
//! one's own; what a limit counts. The rules and their sources are in `docs/CONFERENCES.md`;
//! measuring an abstract by them is `documents::conference`.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// A conference whose rule readout knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conference {
    /// ASCO Annual Meeting.
    Asco,
    /// ESMO Congress.
    Esmo,
    /// AACR Annual Meeting.
    Aacr,
    /// IASLC World Conference on Lung Cancer.
    Wclc,
    /// ASH Annual Meeting.
    Ash,
    /// EHA Congress.
    Eha,
}

impl Conference {
    /// Every known conference, in the order they are listed in messages.
    pub const ALL: [Conference; 6] = [
        Conference::Asco,
        Conference::Esmo,
        Conference::Ash,
        Conference::Eha,
        Conference::Aacr,
        Conference::Wclc,
    ];

    /// The config name (`asco`).
    pub fn name(self) -> &'static str {
        match self {
            Conference::Asco => "asco",
            Conference::Esmo => "esmo",
            Conference::Aacr => "aacr",
            Conference::Wclc => "wclc",
            Conference::Ash => "ash",
            Conference::Eha => "eha",
        }
    }

    /// The conference of a config name, case-insensitive.
    pub fn from_name(name: &str) -> Option<Conference> {
        Conference::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The poster size in inches (width, height) the congress asks for, where one can be cited
    /// (docs/CONFERENCES.md): ASCO's board 95 × 47, ASH's about 6 × 4 feet, EHA's 134 × 90 cm,
    /// all landscape; none for ESMO, AACR and WCLC.
    pub fn poster_size(self) -> Option<(f64, f64)> {
        match self {
            Conference::Asco => Some((95.0, 47.0)),
            Conference::Ash => Some((72.0, 48.0)),
            Conference::Eha => Some((134.0 / 2.54, 90.0 / 2.54)),
            Conference::Esmo | Conference::Aacr | Conference::Wclc => None,
        }
    }

    /// The length rule, where one can be cited (`docs/CONFERENCES.md` gives the sources);
    /// `None` where none could be (ASH, AACR): the config then states the limit.
    pub fn rule(self) -> Option<LengthRule> {
        let (limit, counts, title) = match self {
            Conference::Asco => (2600, CountUnit::CharsNoSpaces, true),
            Conference::Esmo => (2000, CountUnit::CharsNoSpaces, true),
            Conference::Eha => (3665, CountUnit::Chars, false),
            Conference::Wclc => (500, CountUnit::Words, false),
            Conference::Ash | Conference::Aacr => return None,
        };
        Some(LengthRule {
            name: self.name().to_string(),
            limit,
            counts,
            title,
        })
    }
}

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CountUnit {
    /// Every character, spaces included; a line break counts as one character.
    #[default]
    Chars,
    /// Characters other than spaces and line breaks.
    CharsNoSpaces,
    /// Words: runs of characters between spaces or line breaks.
    Words,
}

impl CountUnit {
    /// Short name for messages ("characters excluding spaces").
    pub fn describe(self) -> &'static str {
        match self {
            CountUnit::Chars => "characters",
            CountUnit::CharsNoSpaces => "characters excluding spaces",
            CountUnit::Words => "words",
        }
    }

    /// Counts `text` in this unit.
    pub fn count(self, text: &str) -> usize {
        match self {
            CountUnit::Words => text.split_whitespace().count(),
            CountUnit::CharsNoSpaces => text.chars().filter(|c| !c.is_whitespace()).count(),
            CountUnit::Chars => {
                // Paragraphs pasted into a form keep one line break between them; the blank
                // lines of the text file are not part of what is submitted.
                let lines: Vec<&str> = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect();
                let chars: usize = lines.iter().map(|l| l.chars().count()).sum();
                chars + lines.len().saturating_sub(1)
            }
        }
    }
}

/// The names of the abstract's four sections (`output.conference.sections`): each 1 to 30
/// letters and spaces from a capital, as a heading of the plain-text abstract is recognised
/// (and set in bold in Word).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SectionNames {
    /// Default "Background".
    pub background: String,
    /// Default "Methods".
    pub methods: String,
    /// Default "Results".
    pub results: String,
    /// Default "Conclusions".
    pub conclusions: String,
}

impl Default for SectionNames {
    fn default() -> Self {
        SectionNames {
            background: "Background".into(),
            methods: "Methods".into(),
            results: "Results".into(),
            conclusions: "Conclusions".into(),
        }
    }
}

impl SectionNames {
    /// (key, name) of each section, in the abstract's order.
    pub fn each(&self) -> [(&'static str, &str); 4] {
        [
            ("background", &self.background),
            ("methods", &self.methods),
            ("results", &self.results),
            ("conclusions", &self.conclusions),
        ]
    }

    /// What is wrong with the names, if anything: (key, problem).
    pub fn problem(&self) -> Option<(&'static str, String)> {
        let mut seen = std::collections::BTreeSet::new();
        for (key, name) in self.each() {
            let ok = (1..=30).contains(&name.chars().count())
                && name.chars().next().is_some_and(char::is_uppercase)
                && name.chars().all(|c| c.is_alphabetic() || c == ' ');
            if !ok {
                return Some((
                    key,
                    format!("`{name}` is not a section name; expected 1 to 30 letters and spaces, starting with a capital"),
                ));
            }
            if !seen.insert(name.to_lowercase()) {
                return Some((
                    key,
                    format!("`{name}` names two sections; expected four different names"),
                ));
            }
        }
        None
    }
}

/// `output.conference: { limit: N, counts: ..., title: ..., sections: ... }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLimit {
    /// The most units allowed; without it the abstract is not measured (a rule that only
    /// names the sections).
    #[serde(default)]
    pub limit: Option<usize>,
    /// chars | chars_no_spaces | words. Default: chars.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub counts: CountUnit,
    /// Whether the title counts. Default: true.
    #[serde(default = "yes", deserialize_with = "null_is_yes")]
    pub title: bool,
    /// The sections' names. Default: Background, Methods, Results, Conclusions.
    #[serde(default, deserialize_with = "super::written::null_is_default")]
    pub sections: SectionNames,
}

fn yes() -> bool {
    true
}

/// `title: null` counts the title, as leaving the key out.
fn null_is_yes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::deserialize(d)?.unwrap_or_else(yes))
}

/// `output.conference`: a known conference by name, or a rule of one's own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ConferenceSpec {
    /// `asco`, `esmo`, `ash`, `eha`, `aacr`, `wclc`.
    Named(Conference),
    /// `{ limit, counts, title }`.
    Custom(CustomLimit),
}

impl Default for ConferenceSpec {
    fn default() -> Self {
        ConferenceSpec::Named(Conference::Asco)
    }
}

impl ConferenceSpec {
    /// The rule to measure abstracts by (`None`: a congress whose limit could not be cited).
    pub fn rule(&self) -> Option<LengthRule> {
        match self {
            ConferenceSpec::Named(c) => c.rule(),
            ConferenceSpec::Custom(c) => c.limit.map(|limit| LengthRule {
                name: "custom".to_string(),
                limit,
                counts: c.counts,
                title: c.title,
            }),
        }
    }

    /// The names of the abstract's sections: a rule's own, else the defaults, which are the
    /// headings every preset's call names where one can be cited (docs/CONFERENCES.md).
    pub fn sections(&self) -> SectionNames {
        match self {
            ConferenceSpec::Named(_) => SectionNames::default(),
            ConferenceSpec::Custom(c) => c.sections.clone(),
        }
    }
}

const EXPECTED: &str = "asco, esmo, ash, eha, aacr, wclc, or { limit: N, counts: chars | chars_no_spaces | words, title: true | false, sections: { background, methods, results, conclusions } }";

impl<'de> Deserialize<'de> for ConferenceSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpecVisitor;
        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = ConferenceSpec;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<ConferenceSpec, E> {
                Conference::from_name(v)
                    .map(ConferenceSpec::Named)
                    .ok_or_else(|| {
                        E::custom(format!("unknown conference `{v}`; expected {EXPECTED}"))
                    })
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ConferenceSpec, A::Error> {
                CustomLimit::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ConferenceSpec::Custom)
            }
        }
        deserializer.deserialize_any(SpecVisitor)
    }
}

/// A resolved length rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LengthRule {
    /// `asco`, ..., or `custom`.
    pub name: String,
    /// The most units allowed.
    pub limit: usize,
    /// What is counted.
    pub counts: CountUnit,
    /// Whether the title counts.
    pub title: bool,
}

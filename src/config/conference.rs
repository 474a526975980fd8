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

/// `output.conference: { limit: N, counts: ..., title: ... }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLimit {
    /// The most units allowed. Required.
    pub limit: usize,
    /// chars | chars_no_spaces | words. Default: chars.
    #[serde(default)]
    pub counts: CountUnit,
    /// Whether the title counts. Default: true.
    #[serde(default = "yes")]
    pub title: bool,
}

fn yes() -> bool {
    true
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
            ConferenceSpec::Custom(c) => Some(LengthRule {
                name: "custom".to_string(),
                limit: c.limit,
                counts: c.counts,
                title: c.title,
            }),
        }
    }
}

const EXPECTED: &str =
    "asco, esmo, ash, eha, aacr, wclc, or { limit: N, counts: chars | chars_no_spaces | words, title: true | false }";

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

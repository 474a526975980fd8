//! Response criteria as data (`analysis.response_criteria`, docs/CRITERIA.md): a criteria set
//! names its categories best first, says which are responses, which count for disease
//! control, which end the response record, and how a response is confirmed. The built-in sets
//! (RECIST 1.1, iRECIST, Lugano 2014, IMWG, RANO, as-given) are tables here; a config may define
//! another without code. Which engine reads a set is [`Rule`]; the engines are in `derive`.
//!
//! ADRS values are held as a [`Code`] into the study's [`Vocabulary`] (one byte per
//! assessment): the RECIST 1.1 codes first, then the other built-in codes, then a config's own.

use serde::{Deserialize, Serialize};

/// What a category means to the derivation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A response (CR, PR, VGPR, CMR, ...): needs confirmation when the criteria confirm.
    Response,
    /// Stable disease or its like: counts from `sd_min_days` after treatment start.
    Stable,
    /// Non-measurable disease only (NON-CR/NON-PD): as stable disease.
    NonMeasurable,
    /// iRECIST's unconfirmed progression (iUPD): confirmed by the next assessment or reset.
    UnconfirmedProgression,
    /// Progression: ends the response record; the PFS event.
    Progression,
    /// Not evaluable: the category of subjects without a countable assessment.
    NotEvaluable,
    /// Assessment not done: ignored.
    NotDone,
}

/// One category of a criteria set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Category {
    /// The ADRS `AVALC` spelling (matched without regard to case).
    pub code: String,
    /// In words, for documents ("complete metabolic response").
    pub name: String,
    /// What it means to the derivation.
    pub kind: Kind,
    /// Counts towards the objective response rate.
    pub responder: bool,
    /// Counts towards the disease control rate.
    pub control: bool,
    /// Reported as a BOR category (ND is not: it counts as NE).
    pub reported: bool,
}

/// How a response is confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Confirmation {
    /// Not confirmed (Lugano 2014): the best assessment counts.
    None,
    /// By a later assessment at least `confirmation_days` after it, of the same category or
    /// better, every assessment in between of the same category or better or NE (at most
    /// `max_nr_ne` NE) (RANO, a config's own set).
    Interval,
    /// By two consecutive evaluable assessments at the category or better (IMWG).
    Consecutive,
}

/// The engine that reads a criteria set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Rule {
    /// RECIST 1.1, admiralonco's rules (`derive::bor`).
    Recist,
    /// iRECIST: RECIST's confirmation of iCR/iPR; iUPD confirmed by iCPD, reset by iSD/iPR/iCR.
    Irecist,
    /// The categories' kinds and the [`Confirmation`] (`derive::criteria`).
    Generic(Confirmation),
    /// The sponsor's BOR read from ADRS (`data.adrs_bor_paramcd`), not derived.
    AsGiven,
}

/// A rate reported beside ORR (IMWG's "VGPR or better", Lugano's CMR rate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtraRate {
    /// Its name in documents and results.json ("VGPR or better").
    pub name: String,
    /// The categories it counts.
    pub codes: Vec<String>,
}

/// A criteria set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Criteria {
    /// The config's name: `recist1.1`, `irecist`, `lugano`, `imwg`, `rano`, `as-given`, or
    /// a config's own set's name.
    pub id: String,
    /// As documents name it ("RECIST 1.1", "iRECIST", "Lugano 2014").
    pub name: String,
    /// Best first.
    pub categories: Vec<Category>,
    /// Which engine reads it.
    pub rule: Rule,
    /// Rates reported beside ORR.
    pub rates: Vec<ExtraRate>,
    /// What the response rate is called ("objective response rate" in solid tumours,
    /// "overall response rate" in haematology); abbreviated ORR either way.
    pub response_rate: String,
    /// Whether a disease control rate is reported (not in IMWG or Lugano abstracts).
    pub reports_dcr: bool,
    /// Stable disease needs `sd_min_days` from treatment start (RECIST, iRECIST, RANO).
    pub stable_window: bool,
    /// iRECIST: the days from an iUPD to the assessment that confirms it (Seymour 2017: 4 to
    /// 8 weeks); an iCPD outside them is counted as recorded, with a warning.
    pub iupd_window: Option<(i64, i64)>,
}

/// One category as the built-in tables write it: code, name, kind, responder, control.
type Row = (&'static str, &'static str, Kind, bool, bool);

use Kind::*;

const RECIST: [Row; 7] = [
    ("CR", "complete response", Response, true, true),
    ("PR", "partial response", Response, true, true),
    ("SD", "stable disease", Stable, false, true),
    ("NON-CR/NON-PD", "non-CR/non-PD", NonMeasurable, false, true),
    ("PD", "progressive disease", Progression, false, false),
    ("NE", "not evaluable", NotEvaluable, false, false),
    ("ND", "not done", NotDone, false, false),
];

const IRECIST: [Row; 8] = [
    ("iCR", "complete response", Response, true, true),
    ("iPR", "partial response", Response, true, true),
    ("iSD", "stable disease", Stable, false, true),
    (
        "NON-iCR/NON-iUPD",
        "non-iCR/non-iUPD",
        NonMeasurable,
        false,
        true,
    ),
    (
        "iUPD",
        "unconfirmed progressive disease",
        UnconfirmedProgression,
        false,
        false,
    ),
    (
        "iCPD",
        "confirmed progressive disease",
        Progression,
        false,
        false,
    ),
    ("NE", "not evaluable", NotEvaluable, false, false),
    ("ND", "not done", NotDone, false, false),
];

// PET (metabolic) and CT categories side by side, best first; a trial uses one or both.
const LUGANO: [Row; 10] = [
    ("CMR", "complete metabolic response", Response, true, true),
    ("CR", "complete response", Response, true, true),
    ("PMR", "partial metabolic response", Response, true, true),
    ("PR", "partial response", Response, true, true),
    ("NMR", "no metabolic response", Stable, false, true),
    ("SD", "stable disease", Stable, false, true),
    (
        "PMD",
        "progressive metabolic disease",
        Progression,
        false,
        false,
    ),
    ("PD", "progressive disease", Progression, false, false),
    ("NE", "not evaluable", NotEvaluable, false, false),
    ("ND", "not done", NotDone, false, false),
];

const IMWG: [Row; 9] = [
    ("sCR", "stringent complete response", Response, true, true),
    ("CR", "complete response", Response, true, true),
    ("VGPR", "very good partial response", Response, true, true),
    ("PR", "partial response", Response, true, true),
    ("MR", "minimal response", Response, false, true),
    ("SD", "stable disease", Stable, false, true),
    ("PD", "progressive disease", Progression, false, false),
    ("NE", "not evaluable", NotEvaluable, false, false),
    ("ND", "not done", NotDone, false, false),
];

const RANO: [Row; 7] = [
    ("CR", "complete response", Response, true, true),
    ("PR", "partial response", Response, true, true),
    ("MR", "minor response", Response, false, true),
    ("SD", "stable disease", Stable, false, true),
    ("PD", "progressive disease", Progression, false, false),
    ("NE", "not evaluable", NotEvaluable, false, false),
    ("ND", "not done", NotDone, false, false),
];

fn table(rows: &[Row]) -> Vec<Category> {
    rows.iter()
        .map(|&(code, name, kind, responder, control)| Category {
            code: code.to_string(),
            name: name.to_string(),
            kind,
            responder,
            control,
            reported: kind != NotDone,
        })
        .collect()
}

fn rate(name: &str, codes: &[&str]) -> ExtraRate {
    ExtraRate {
        name: name.to_string(),
        codes: codes.iter().map(|c| c.to_string()).collect(),
    }
}

/// The response rate of solid-tumour criteria.
pub const OBJECTIVE: &str = "objective response rate";
/// The response rate of haematological criteria (IMWG, Lugano).
pub const OVERALL: &str = "overall response rate";

/// The names `analysis.response_criteria` accepts for the built-in sets.
pub const BUILT_IN: [&str; 6] = ["recist1.1", "irecist", "lugano", "imwg", "rano", "as-given"];

impl Criteria {
    /// A built-in set by its config name; `None` for any other name.
    pub fn built_in(id: &str) -> Option<Criteria> {
        let (name, rows, rule, rates, stable_window): (_, &[Row], _, _, _) = match id {
            "recist1.1" => ("RECIST 1.1", &RECIST, Rule::Recist, vec![], true),
            "irecist" => ("iRECIST", &IRECIST, Rule::Irecist, vec![], true),
            "lugano" => (
                "Lugano 2014",
                &LUGANO,
                Rule::Generic(Confirmation::None),
                vec![rate("CMR", &["CMR"])],
                false,
            ),
            "imwg" => (
                "IMWG",
                &IMWG,
                Rule::Generic(Confirmation::Consecutive),
                vec![
                    rate("VGPR or better", &["sCR", "CR", "VGPR"]),
                    rate("CR or better", &["sCR", "CR"]),
                ],
                false,
            ),
            "rano" => (
                "RANO",
                &RANO,
                Rule::Generic(Confirmation::Interval),
                vec![rate("CR, PR or MR", &["CR", "PR", "MR"])],
                true,
            ),
            // The sponsor's BOR may be of any built-in vocabulary: their union, each code
            // once (its first set's meaning), ranked by what it means.
            "as-given" => {
                let mut categories: Vec<Category> = Vec::new();
                for rows in [&RECIST[..], &IRECIST, &LUGANO, &IMWG, &RANO] {
                    for c in table(rows) {
                        if !categories
                            .iter()
                            .any(|k| k.code.eq_ignore_ascii_case(&c.code))
                        {
                            categories.push(c);
                        }
                    }
                }
                categories.sort_by_key(|c| match c.kind {
                    Response if c.responder => 0,
                    Response => 1,
                    Stable | NonMeasurable => 2,
                    UnconfirmedProgression => 3,
                    Progression => 4,
                    NotEvaluable => 5,
                    NotDone => 6,
                });
                return Some(Criteria {
                    id: id.to_string(),
                    name: "the sponsor's assessment".to_string(),
                    categories,
                    rule: Rule::AsGiven,
                    rates: vec![],
                    response_rate: OBJECTIVE.to_string(),
                    reports_dcr: true,
                    stable_window: false,
                    iupd_window: None,
                });
            }
            _ => return None,
        };
        // Haematology's criteria speak of the overall response rate and report no DCR.
        let haematology = matches!(id, "lugano" | "imwg");
        Some(Criteria {
            id: id.to_string(),
            name: name.to_string(),
            categories: table(rows),
            rule,
            rates,
            response_rate: if haematology { OVERALL } else { OBJECTIVE }.to_string(),
            reports_dcr: !haematology,
            stable_window,
            iupd_window: (rule == Rule::Irecist).then_some((28, 56)),
        })
    }

    /// RECIST 1.1, the default.
    pub fn recist() -> Criteria {
        Criteria::built_in("recist1.1").unwrap_or_else(|| Criteria {
            id: String::new(),
            name: String::new(),
            categories: Vec::new(),
            rule: Rule::Recist,
            rates: Vec::new(),
            response_rate: OBJECTIVE.to_string(),
            reports_dcr: true,
            stable_window: true,
            iupd_window: None,
        })
    }

    /// Responses are confirmed (every set but Lugano 2014 and own sets without confirmation).
    pub fn confirms(&self) -> bool {
        !matches!(self.rule, Rule::Generic(Confirmation::None) | Rule::AsGiven)
    }

    /// RECIST 1.1, whose outputs are today's (no criteria block in results.json).
    pub fn is_recist(&self) -> bool {
        self.rule == Rule::Recist
    }

    /// The category of an ADRS value (case-insensitive), as an index into `categories`.
    pub fn position(&self, code: &str) -> Option<usize> {
        let code = code.trim();
        self.categories
            .iter()
            .position(|c| c.code.eq_ignore_ascii_case(code))
    }

    /// The reported code of a subject's category (`DerivedSubject::category`); ND reads as NE.
    pub fn code_of(&self, category: CategoryIndex) -> &str {
        match self.categories.get(usize::from(category.0)) {
            Some(c) if c.reported => &c.code,
            _ => self
                .categories
                .get(self.not_evaluable())
                .map_or("NE", |c| c.code.as_str()),
        }
    }

    /// The category counts towards the objective response rate.
    pub fn is_responder(&self, category: CategoryIndex) -> bool {
        self.categories
            .get(usize::from(category.0))
            .is_some_and(|c| c.responder)
    }

    /// The category counts towards the disease control rate; non-measurable disease only when
    /// `non_measurable` (`analysis.dcr_includes_non_cr_non_pd`).
    pub fn is_control(&self, category: CategoryIndex, non_measurable: bool) -> bool {
        self.categories
            .get(usize::from(category.0))
            .is_some_and(|c| c.control && (non_measurable || c.kind != NonMeasurable))
    }

    /// The reported categories, best first.
    pub fn reported(&self) -> impl Iterator<Item = &Category> {
        self.categories.iter().filter(|c| c.reported)
    }

    /// The category subjects without a countable assessment fall into.
    pub fn not_evaluable(&self) -> usize {
        self.categories
            .iter()
            .position(|c| c.kind == NotEvaluable)
            .unwrap_or(self.categories.len().saturating_sub(1))
    }

    /// What a value outside the set should have been, for errors.
    pub fn expected(&self) -> String {
        format!("a category of {}; expected {}", self.name, self.allowed())
    }

    /// The categories a value may take, for errors: "iCR, iPR, ... or ND".
    pub fn allowed(&self) -> String {
        let codes: Vec<&str> = self.categories.iter().map(|c| c.code.as_str()).collect();
        match codes.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            Some((last, _)) => last.to_string(),
            None => String::new(),
        }
    }
}

/// A subject's best response as a category of its criteria set: an index into
/// [`Criteria::categories`], best first (`DerivedSubject::category`). Not an ADRS [`Code`],
/// which indexes the study's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct CategoryIndex(pub u8);

impl CategoryIndex {
    /// The category at `position` of the criteria's categories (at most 255 of them; a
    /// position past that reads as none of them).
    pub fn at(position: usize) -> CategoryIndex {
        CategoryIndex(u8::try_from(position).unwrap_or(u8::MAX))
    }
}

/// An ADRS value as held per assessment: an index into the study's [`Vocabulary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Code(pub u8);

/// The ADRS values a study's criteria sets accept, each once: RECIST 1.1's first (so that
/// [`Code`] `i < 7` is the RECIST value of `model::Response` order), then the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Vocabulary {
    codes: Vec<String>,
    /// Only RECIST 1.1 is in use (the reader's message names RECIST then).
    recist_only: bool,
    /// A cohort reads the sponsor's BOR (`as-given`).
    given: bool,
}

impl Default for Vocabulary {
    fn default() -> Self {
        Vocabulary {
            codes: RECIST.iter().map(|r| r.0.to_string()).collect(),
            recist_only: true,
            given: false,
        }
    }
}

/// The most distinct ADRS values the criteria sets of one study may hold together (one byte
/// per assessment, [`Code`]).
pub const MAX_VOCABULARY: usize = 256;

impl Vocabulary {
    /// RECIST 1.1's codes and every category of `sets`; more than [`MAX_VOCABULARY`] in all
    /// is refused (they were dropped, and data then failed as "not a response").
    pub fn new<'a>(sets: impl IntoIterator<Item = &'a Criteria>) -> Result<Vocabulary, String> {
        let mut codes: Vec<String> = RECIST.iter().map(|r| r.0.to_string()).collect();
        let (mut recist_only, mut given) = (true, false);
        for set in sets {
            if set.is_recist() {
                continue;
            }
            recist_only = false;
            given |= set.rule == Rule::AsGiven;
            for c in &set.categories {
                if !codes.iter().any(|k| k.eq_ignore_ascii_case(&c.code)) {
                    codes.push(c.code.clone());
                }
            }
        }
        if codes.len() > MAX_VOCABULARY {
            return Err(format!(
                "the response criteria of the cohorts hold {} distinct categories together \
                 (RECIST 1.1's 7 among them); readout holds at most {MAX_VOCABULARY} in one study",
                codes.len()
            ));
        }
        Ok(Vocabulary {
            codes,
            recist_only,
            given,
        })
    }

    /// A cohort reads the sponsor's BOR (`response_criteria: as-given`).
    pub fn has_given(&self) -> bool {
        self.given
    }

    /// Only RECIST 1.1's values are accepted.
    pub fn recist_only(&self) -> bool {
        self.recist_only
    }

    /// The code of a value (case-insensitive, blanks around ignored); an empty value is ND.
    pub fn code(&self, value: &str) -> Option<Code> {
        let v = value.trim();
        let v = if v.is_empty() { "ND" } else { v };
        self.codes
            .iter()
            .position(|k| k.eq_ignore_ascii_case(v))
            .and_then(|i| u8::try_from(i).ok())
            .map(Code)
    }

    /// A code's spelling.
    pub fn text(&self, code: Code) -> &str {
        self.codes.get(code.0 as usize).map_or("?", String::as_str)
    }

    /// Every accepted value with its code, in code order.
    pub fn codes(&self) -> impl Iterator<Item = (Code, &str)> {
        self.codes
            .iter()
            .enumerate()
            .filter_map(|(i, k)| Some((Code(u8::try_from(i).ok()?), k.as_str())))
    }

    /// Every accepted value, for errors.
    pub fn listing(&self) -> String {
        self.codes.join(", ")
    }

    /// For each code, its category in `criteria` (`None`: not one of its values).
    pub fn lookup(&self, criteria: &Criteria) -> Vec<Option<u8>> {
        self.codes
            .iter()
            .map(|k| criteria.position(k).and_then(|i| u8::try_from(i).ok()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_sets_have_one_not_evaluable_category_and_responses_first() {
        for id in BUILT_IN {
            let c = Criteria::built_in(id).unwrap();
            assert_eq!(
                c.categories
                    .iter()
                    .filter(|k| k.kind == NotEvaluable)
                    .count(),
                1,
                "{id}"
            );
            let first_non_response = c.categories.iter().position(|k| !k.responder).unwrap();
            assert!(
                c.categories[first_non_response..]
                    .iter()
                    .all(|k| !k.responder),
                "{id}"
            );
        }
        assert!(Criteria::built_in("recist").is_none());
    }

    #[test]
    fn the_vocabulary_keeps_recist_codes_first() {
        let irecist = Criteria::built_in("irecist").unwrap();
        let v = Vocabulary::new([&irecist]).unwrap();
        assert_eq!(v.code("pd"), Some(Code(4)));
        assert_eq!(v.code(""), Some(Code(6)));
        assert_eq!(v.text(v.code("iupd").unwrap()), "iUPD");
        assert_eq!(v.code("CMR"), None);
        let look = v.lookup(&irecist);
        assert_eq!(look[v.code("iCPD").unwrap().0 as usize], Some(5));
        assert_eq!(look[v.code("PR").unwrap().0 as usize], None);
        assert!(Vocabulary::default().recist_only());
    }
}

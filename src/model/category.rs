//! A best-response category as figures and documents show it, whichever criteria gave it:
//! a RECIST 1.1 category, a category of another built-in criteria set beside the RECIST one it
//! stands nearest to (docs/CRITERIA.md), or a value of a config's own set shown as given.

use super::Response;

/// A reported best-response category, ordered as a legend reads (`Ord`): best to worst, each
/// built-in criteria's category beside its RECIST neighbour, then not evaluable, then values
/// outside every built-in vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseCategory {
    /// A RECIST 1.1 category.
    Known(Response),
    /// A category of another built-in criteria set and the RECIST category it is nearest to.
    Like(Response, &'static str),
    /// A value outside every built-in vocabulary, as given.
    Other(String),
}

/// The other built-in criteria's categories and the RECIST category each is nearest to.
const LIKE: [(&str, Response); 13] = [
    ("sCR", Response::CompleteResponse),
    ("iCR", Response::CompleteResponse),
    ("CMR", Response::CompleteResponse),
    ("VGPR", Response::PartialResponse),
    ("iPR", Response::PartialResponse),
    ("PMR", Response::PartialResponse),
    ("MR", Response::StableDisease),
    ("iSD", Response::StableDisease),
    ("NMR", Response::StableDisease),
    ("NON-iCR/NON-iUPD", Response::NonCrNonPd),
    ("iUPD", Response::ProgressiveDisease),
    ("iCPD", Response::ProgressiveDisease),
    ("PMD", Response::ProgressiveDisease),
];

impl ResponseCategory {
    /// The category of a reported code (case-insensitive, surrounding blanks ignored).
    pub fn parse(code: &str) -> ResponseCategory {
        let v = code.trim();
        if let Some(r) = Response::from_avalc(v) {
            return ResponseCategory::Known(r);
        }
        match LIKE.iter().find(|(code, _)| code.eq_ignore_ascii_case(v)) {
            Some((code, r)) => ResponseCategory::Like(*r, code),
            None => ResponseCategory::Other(v.to_string()),
        }
    }

    /// As a legend names it: the code, "Non-CR/Non-PD", or "Missing" for an assessment not done.
    pub fn label(&self) -> String {
        match self {
            ResponseCategory::Known(Response::NonCrNonPd) => "Non-CR/Non-PD".to_string(),
            ResponseCategory::Known(Response::NotDone) => "Missing".to_string(),
            ResponseCategory::Known(r) => r.code().to_string(),
            ResponseCategory::Like(_, s) => s.to_string(),
            ResponseCategory::Other(s) => s.clone(),
        }
    }

    /// Where the category reads in a legend: beside the RECIST category it stands nearest to,
    /// the deeper ones first (sCR, CR, VGPR, PR, MR, SD, PD; CMR, CR, PMR, PR, ...; iUPD
    /// before iCPD), then not evaluable, then values outside every vocabulary.
    fn rank(&self) -> (usize, usize, usize, &str) {
        match self {
            ResponseCategory::Known(r) => (*r as usize, 1, 0, ""),
            ResponseCategory::Like(r, code) => (
                *r as usize,
                0,
                LIKE.iter()
                    .position(|(c, _)| c == code)
                    .unwrap_or(LIKE.len()),
                "",
            ),
            ResponseCategory::Other(s) => (usize::MAX, 0, 0, s.as_str()),
        }
    }
}

impl PartialOrd for ResponseCategory {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResponseCategory {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

//! `analysis.response_criteria` as written: a built-in set's name or a set of the config's
//! own (docs/CRITERIA.md), resolved into a [`Criteria`].

use serde::{Deserialize, Serialize};

use crate::criteria::{Category, Confirmation, Criteria, Kind, Rule, BUILT_IN};

/// `analysis.response_criteria` as written: a built-in set's name, or a set of one's own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CriteriaConfig {
    /// A built-in set.
    Name(String),
    /// A set of the config's own.
    Own(OwnCriteria),
}

impl<'de> Deserialize<'de> for CriteriaConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::written::short_or_full(
            d,
            "one of recist1.1, irecist, lugano, imwg, rano, as-given, or a mapping with \
             name, categories, responders, progression (and optionally disease_control, \
             not_evaluable, confirmation, response_rate, report_dcr)",
            CriteriaConfig::Name,
            CriteriaConfig::Own,
        )
    }
}

/// A criteria set defined in the config.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OwnCriteria {
    /// As documents name it ("GCIG CA-125").
    pub name: String,
    /// Every category, best first (the ADRS spellings).
    pub categories: Vec<String>,
    /// The categories that are responses (counted in ORR, confirmed when confirmation is on).
    pub responders: Vec<String>,
    /// The categories that are progression (end the response record; the PFS event).
    pub progression: Vec<String>,
    /// The categories counted for disease control. Default: every category better than the
    /// first progression category.
    #[serde(default)]
    pub disease_control: Option<Vec<String>>,
    /// The not-evaluable category. Default: `NE` (added when `categories` lacks it).
    #[serde(default)]
    pub not_evaluable: Option<String>,
    /// How responses are confirmed: `none`, `interval` (a later assessment at least
    /// `analysis.confirmation_days` after) or `consecutive`. Default: `interval`.
    #[serde(default)]
    pub confirmation: Option<OwnConfirmation>,
    /// What the response rate is called in documents. Default: "objective response rate".
    #[serde(default)]
    pub response_rate: Option<String>,
    /// Whether documents report a disease control rate. Default: true.
    #[serde(default)]
    pub report_dcr: Option<bool>,
}

/// How a config's own set confirms a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OwnConfirmation {
    /// Not confirmed.
    None,
    /// By a later assessment at least `confirmation_days` after.
    Interval,
    /// By two consecutive assessments.
    Consecutive,
}

impl CriteriaConfig {
    /// The set, or what is wrong with the definition (the key's path is the caller's).
    pub fn resolve(&self) -> Result<Criteria, String> {
        match self {
            // `IMWG`, `Lugano`, `RECIST 1.1` read as the names they spell.
            CriteriaConfig::Name(name) => Criteria::built_in(
                &name.trim().to_ascii_lowercase().replace(' ', ""),
            )
            .ok_or_else(|| {
                format!(
                    "`{name}` is not a response criteria set; expected one of {} or a mapping \
                     defining one",
                    BUILT_IN.join(", ")
                )
            }),
            CriteriaConfig::Own(own) => own.resolve(),
        }
    }
}

impl OwnCriteria {
    fn resolve(&self) -> Result<Criteria, String> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 64 {
            return Err(
                "`name` must be 1 to 64 characters: the criteria's name for documents".into(),
            );
        }
        let mut codes: Vec<String> = Vec::new();
        for c in &self.categories {
            let c = c.trim();
            if c.is_empty() || c.len() > 32 {
                return Err(format!(
                    "category `{c}` must be 1 to 32 characters (an ADRS AVALC value)"
                ));
            }
            if codes.iter().any(|k| k.eq_ignore_ascii_case(c)) {
                return Err(format!("category `{c}` is listed twice"));
            }
            codes.push(c.to_string());
        }
        let ne = self
            .not_evaluable
            .as_deref()
            .unwrap_or("NE")
            .trim()
            .to_string();
        if !codes.iter().any(|k| k.eq_ignore_ascii_case(&ne)) {
            codes.push(ne.clone());
        }
        if codes.len() > 40 {
            return Err(format!(
                "{} categories; at most 40 are supported",
                codes.len()
            ));
        }
        let find = |list: &[String], what: &str| -> Result<Vec<usize>, String> {
            list.iter()
                .map(|c| {
                    codes
                        .iter()
                        .position(|k| k.eq_ignore_ascii_case(c.trim()))
                        .ok_or_else(|| {
                            format!("`{what}` names `{c}`, which is not one of `categories`")
                        })
                })
                .collect()
        };
        let responders = find(&self.responders, "responders")?;
        let progression = find(&self.progression, "progression")?;
        if responders.is_empty() {
            return Err("`responders` is empty; expected the categories that are responses".into());
        }
        if progression.is_empty() {
            return Err(
                "`progression` is empty; expected the categories that are progression".into(),
            );
        }
        let first_pd = progression.iter().copied().min().unwrap_or(codes.len());
        let ne_at = codes
            .iter()
            .position(|k| k.eq_ignore_ascii_case(&ne))
            .unwrap_or(codes.len());
        if let Some(&r) = responders
            .iter()
            .find(|&&r| r > first_pd || progression.contains(&r))
        {
            return Err(format!(
                "responder `{}` is listed after progression `{}`; categories go best first",
                codes[r], codes[first_pd]
            ));
        }
        let control = match &self.disease_control {
            Some(list) => find(list, "disease_control")?,
            None => (0..first_pd).filter(|&i| i != ne_at).collect(),
        };
        let categories = codes
            .iter()
            .enumerate()
            .map(|(i, code)| {
                let kind = if responders.contains(&i) {
                    Kind::Response
                } else if progression.contains(&i) {
                    Kind::Progression
                } else if i == ne_at {
                    Kind::NotEvaluable
                } else {
                    Kind::Stable
                };
                Category {
                    code: code.clone(),
                    name: code.clone(),
                    kind,
                    responder: responders.contains(&i),
                    control: control.contains(&i),
                    reported: true,
                }
            })
            .collect();
        let confirmation = match self.confirmation.unwrap_or(OwnConfirmation::Interval) {
            OwnConfirmation::None => Confirmation::None,
            OwnConfirmation::Interval => Confirmation::Interval,
            OwnConfirmation::Consecutive => Confirmation::Consecutive,
        };
        let response_rate = match self.response_rate.as_deref().map(str::trim) {
            None => crate::criteria::OBJECTIVE.to_string(),
            Some(r) if !r.is_empty() && r.chars().count() <= 64 => r.to_lowercase(),
            Some(_) => {
                return Err(
                    "`response_rate` must be 1 to 64 characters: what documents call the rate"
                        .into(),
                )
            }
        };
        Ok(Criteria {
            id: name.to_string(),
            name: name.to_string(),
            categories,
            rule: Rule::Generic(confirmation),
            rates: vec![],
            response_rate,
            reports_dcr: self.report_dcr.unwrap_or(true),
            stable_window: true,
            iupd_window: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_names_are_read_whatever_their_case() {
        for name in ["IMWG", "imwg", "Lugano", "RECIST 1.1", "iRECIST"] {
            let c = CriteriaConfig::Name(name.to_string()).resolve().unwrap();
            assert!(!c.categories.is_empty(), "{name}");
        }
        assert!(CriteriaConfig::Name("imwg2".to_string()).resolve().is_err());
    }

    #[test]
    fn the_response_rate_is_named_by_the_criteria() {
        let named = |yaml: &str| {
            let c = serde_yaml::from_str::<CriteriaConfig>(yaml)
                .unwrap()
                .resolve()
                .unwrap();
            (c.response_rate, c.reports_dcr)
        };
        assert_eq!(named("imwg"), ("overall response rate".into(), false));
        assert_eq!(named("lugano"), ("overall response rate".into(), false));
        assert_eq!(named("recist1.1"), ("objective response rate".into(), true));
        assert_eq!(named("rano"), ("objective response rate".into(), true));
        assert_eq!(
            named(
                "{name: iwCLL, categories: [CR, PR, SD, PD], responders: [CR, PR], \
                 progression: [PD], response_rate: Overall Response Rate, report_dcr: false}"
            ),
            ("overall response rate".into(), false)
        );
        let empty: CriteriaConfig = serde_yaml::from_str(
            "{name: X, categories: [CR, PD], responders: [CR], progression: [PD], response_rate: ''}",
        )
        .unwrap();
        assert!(empty.resolve().unwrap_err().contains("`response_rate`"));
    }

    #[test]
    fn an_own_set_is_checked_and_fills_its_defaults() {
        let own: CriteriaConfig = serde_yaml::from_str(
            "{name: GCIG, categories: [CR, PR, SD, PD], responders: [CR, PR], progression: [PD]}",
        )
        .unwrap();
        let c = own.resolve().unwrap();
        assert_eq!(c.allowed(), "CR, PR, SD, PD or NE");
        let control: Vec<&str> = c
            .categories
            .iter()
            .filter(|k| k.control)
            .map(|k| k.code.as_str())
            .collect();
        assert_eq!(control, ["CR", "PR", "SD"]);
        assert_eq!(c.rule, Rule::Generic(Confirmation::Interval));
        let bad: CriteriaConfig = serde_yaml::from_str(
            "{name: X, categories: [SD, PD, CR], responders: [CR], progression: [PD]}",
        )
        .unwrap();
        assert!(bad.resolve().unwrap_err().contains("after progression"));
        let unknown: CriteriaConfig = serde_yaml::from_str("recist").unwrap();
        assert!(unknown
            .resolve()
            .unwrap_err()
            .contains("recist1.1, irecist"));
    }
}

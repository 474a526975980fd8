//! Whether a config fits the data it names: a key that names what the data do not have is an
//! error listing what they have, so that no abstract is written about an endpoint, a cohort or
//! a parameter that is not there (`docs/BAD-INPUT.md`, "Config against data").

use indexmap::IndexMap;

use rustc_hash::FxHashSet;

use crate::config::{default_tte_params, AnalysisConfig, LoadedConfig, SpecialInterest, TteParam};
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::error::{Error, Result};
use crate::format::listing;
use crate::load::StudyData;

/// A warning per adverse event of special interest that names what no ADAE record holds: a
/// term (`AEDECOD`) or class (`AEBODSYS`) misspelt, or not in these data, gives "occurred in
/// 0/148 (0.0%)", a number the reader should not take as measured.
pub fn special_interest_unmatched(cfg: &LoadedConfig, data: &StudyData) -> Vec<Diagnostic> {
    let groups: Vec<(String, &SpecialInterest)> =
        std::iter::once(("analysis".to_string(), &cfg.config.analysis))
            .chain(
                cfg.config
                    .cohorts
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (format!("cohorts[{i}].analysis"), &c.analysis)),
            )
            .flat_map(|(key, a)| {
                a.ae_special_interest
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(move |(i, g)| (format!("{key}.ae_special_interest[{i}]"), g))
            })
            .collect();
    if groups.is_empty() || cfg.config.data.adae.is_none() {
        return Vec::new();
    }
    // The distinct terms and classes, upper case (events repeat a few thousand terms).
    let mut terms: FxHashSet<&str> = FxHashSet::default();
    let mut classes: FxHashSet<&str> = FxHashSet::default();
    for e in &data.adverse_events {
        terms.insert(e.term.trim());
        if let Some(soc) = &e.soc {
            classes.insert(soc.trim());
        }
    }
    let held = |set: &FxHashSet<&str>, name: &str| {
        set.contains(name.trim())
            || set
                .iter()
                .any(|t| crate::model::text::eq_without_case(t, name.trim()))
    };
    let mut warnings = Vec::new();
    for (key, group) in groups {
        let absent = |names: &mut dyn Iterator<Item = &String>, set: &FxHashSet<&str>| {
            names
                .filter(|t| !t.trim().is_empty() && !held(set, t))
                .map(|t| format!("`{}`", t.trim()))
                .collect::<Vec<String>>()
        };
        let terms_absent = absent(&mut group.terms.iter(), &terms);
        let class_absent = absent(&mut group.body_system.iter(), &classes);
        let mut what = Vec::new();
        if !terms_absent.is_empty() {
            what.push(format!("AEDECOD {}", terms_absent.join(" or ")));
        }
        if !class_absent.is_empty() {
            what.push(format!("AEBODSYS {}", class_absent.join(" or ")));
        }
        if what.is_empty() {
            continue;
        }
        warnings.push(
            Diagnostic::warning(
                Kind::RuleNotApplied,
                format!(
                    "adverse events of special interest `{}`: no ADAE record has {}; its count \
                     may be short, or 0 where the data hold such events under another name",
                    group.label.trim(),
                    what.join(" or "),
                ),
            )
            .at(Location::Key(key))
            .hint("spell the terms and classes as ADAE's AEDECOD and AEBODSYS do (case aside)"),
        );
    }
    warnings
}

/// The origin of derived PFS and OS against ADSL's columns: a randomised cohort whose ADSL has
/// no `RANDDT` is analysed from the first dose, with a warning naming the fallback; a column
/// `analysis.origin` names that ADSL lacks is an error at that key. Only when PFS and OS are
/// derived (no ADTTE): ADTTE's times have their own origin.
pub fn fit_origin(cfg: &mut LoadedConfig, data: &StudyData) -> Result<Vec<Diagnostic>> {
    use crate::config::Origin;
    let mut warnings = Vec::new();
    if data.has_adtte {
        return Ok(warnings);
    }
    let has = |column: &str| data.adsl_headers.iter().any(|h| h == column);
    for i in 0..cfg.config.cohorts.len() {
        let Some(cohort) = cfg.config.cohorts.get(i) else {
            continue;
        };
        let origin = cfg.analysis_for(cohort).origin;
        if matches!(origin, Origin::FirstDose) || has(origin.column()) {
            continue;
        }
        let key = if cohort.analysis.origin.is_some() {
            format!("cohorts[{i}].analysis.origin")
        } else {
            "analysis.origin".to_string()
        };
        match origin {
            Origin::Randomisation => {
                warnings.push(
                    Diagnostic::warning(
                        Kind::RuleNotApplied,
                        format!(
                            "cohort `{}`: ADSL has no RANDDT, so PFS and OS derived from ADRS \
                             and ADSL start at the first dose (TRTSDT), not at randomisation",
                            cohort.id
                        ),
                    )
                    .at(Location::Key(key))
                    .hint("name the randomisation date's ADSL column in `analysis.origin`"),
                );
                if let Some(c) = cfg.config.cohorts.get_mut(i) {
                    c.analysis.origin = Some(Origin::FirstDose);
                }
            }
            Origin::Column(column) => {
                return Err(Error::Config {
                    file: cfg.path.clone(),
                    location: format!("key `{key}`: "),
                    message: format!(
                        "column `{column}` is not in ADSL; expected `randomisation`, \
                         `first_dose` or an ADSL date column; its header has: {}",
                        listing(data.adsl_headers.iter().map(String::as_str))
                    ),
                })
            }
            Origin::FirstDose => {}
        }
    }
    Ok(warnings)
}

/// Checks the config's time-to-event parameters against ADTTE, and drops the default ones
/// ADTTE does not have (a study without DoR in ADTTE reports PFS and OS). Every `PARAMCD` the
/// config names must be in ADTTE.
pub fn fit_to_data(cfg: &mut LoadedConfig, data: &StudyData) -> Result<()> {
    if !data.has_adtte {
        return Ok(());
    }
    let present = |paramcd: &str| data.tte.param(paramcd).is_some();
    let adtte = data
        .adtte_file
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "ADTTE".to_string());
    // Every parameter the config names that ADTTE lacks, each with its key.
    let mut errors = Vec::new();
    let mut check = |params: &IndexMap<String, TteParam>, key: &str| {
        for (endpoint, param) in params {
            let paramcd = param.paramcd();
            if !present(paramcd) {
                errors.push(Error::Config {
                    file: cfg.path.clone(),
                    location: format!("key `{key}.tte_params.{endpoint}`: "),
                    message: format!(
                        "PARAMCD `{paramcd}` is not in {adtte}; it has: {}",
                        listing(data.tte.params.iter().map(|p| &**p))
                    ),
                });
            }
        }
    };
    if let Some(params) = &cfg.config.analysis.tte_params {
        check(params, "analysis");
    }
    for (i, cohort) in cfg.config.cohorts.iter().enumerate() {
        if let Some(params) = &cohort.analysis.tte_params {
            check(params, &format!("cohorts[{i}].analysis"));
        }
    }
    Error::all(errors)?;
    let study: &mut AnalysisConfig = &mut cfg.config.analysis;
    if study.tte_params.is_none() {
        let kept: IndexMap<String, TteParam> = default_tte_params()
            .into_iter()
            .filter(|(_, param)| present(param.paramcd()))
            .collect();
        study.tte_params = Some(kept);
    }
    Ok(())
}

/// What the cut-off needs of the config ([`crate::cut::CutRules`]): the ADTTE parameters
/// judged at tumour assessments (by `tte_params`' `censor`, by default PFS, DOR, TTP and EFS)
/// with the key that says so, and the ADRS values that are adequate assessments under the
/// criteria in use. A parameter that one cohort censors at assessments and another at the
/// cut-off is an error: the cut is made once for the study.
pub fn cut_rules(cfg: &LoadedConfig, data: &StudyData) -> Result<crate::cut::CutRules> {
    use crate::config::CensorAt;
    let mut rules = crate::cut::CutRules {
        dates_known_later: cfg
            .new_therapy_columns()
            .into_iter()
            .map(|(_, column)| column)
            .collect(),
        ..crate::cut::CutRules::default()
    };
    rules.dates_known_later.dedup();
    let mut kinds: IndexMap<String, (CensorAt, String)> = IndexMap::new();
    let mut sets = Vec::new();
    for (i, cohort) in cfg.config.cohorts.iter().enumerate() {
        let analysis = cfg.analysis_for(cohort);
        let key = if cohort.analysis.tte_params.is_some() {
            format!("cohorts[{i}].analysis.tte_params")
        } else {
            "analysis.tte_params".to_string()
        };
        for (endpoint, paramcd) in &analysis.tte_params {
            let kind = analysis
                .tte_censor
                .get(endpoint)
                .copied()
                .unwrap_or(CensorAt::Cutoff);
            let here = format!("{key}.{endpoint}");
            match kinds.get(paramcd) {
                Some((other, there)) if *other != kind => {
                    return Err(Error::Config {
                        file: cfg.path.clone(),
                        location: format!("key `{here}`: "),
                        message: format!(
                            "PARAMCD `{paramcd}` is censored at the {} here and at the {} by \
                             `{there}`; a cut-off treats a parameter one way for the study",
                            censor_words(kind),
                            censor_words(*other)
                        ),
                    })
                }
                Some(_) => {}
                None => {
                    kinds.insert(paramcd.clone(), (kind, here));
                }
            }
        }
        sets.push(analysis.criteria.clone());
    }
    rules.at_assessment = kinds
        .into_iter()
        .filter(|(_, (kind, _))| *kind == CensorAt::Assessment)
        .map(|(paramcd, (_, key))| (paramcd, key))
        .collect();
    use crate::criteria::Kind;
    rules.adequate = data
        .vocabulary
        .codes()
        .map(|(_, text)| {
            sets.iter().any(|set| {
                set.position(text)
                    .and_then(|i| set.categories.get(i))
                    .is_some_and(|c| {
                        matches!(c.kind, Kind::Response | Kind::Stable | Kind::NonMeasurable)
                    })
            })
        })
        .collect();
    Ok(rules)
}

fn censor_words(kind: crate::config::CensorAt) -> &'static str {
    match kind {
        crate::config::CensorAt::Assessment => "last adequate assessment (`censor: assessment`)",
        crate::config::CensorAt::Cutoff => "cut-off (`censor: cutoff`)",
    }
}

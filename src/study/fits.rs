//! Whether a config fits the data it names: a key that names what the data do not have is an
//! error listing what they have, so that no abstract is written about an endpoint, a cohort or
//! a parameter that is not there (`docs/BAD-INPUT.md`, "Config against data").

use std::collections::BTreeSet;

use indexmap::IndexMap;

use crate::config::{default_tte_params, AnalysisConfig, LoadedConfig, TteParam};
use crate::error::{Error, Result};
use crate::load::StudyData;

/// How many of the values present an error lists.
const LISTED: usize = 20;

/// `A, B, C` of the first `LISTED` values, then how many in all.
pub fn listing<'a>(values: impl IntoIterator<Item = &'a str>) -> String {
    let values: BTreeSet<&str> = values.into_iter().collect();
    let shown: Vec<&str> = values.iter().take(LISTED).copied().collect();
    let mut text = shown.join(", ");
    if values.len() > LISTED {
        text.push_str(&format!(", ... ({} in all)", values.len()));
    }
    text
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
    let mut rules = crate::cut::CutRules::default();
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

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
    let check = |params: &IndexMap<String, TteParam>, key: &str| -> Result<()> {
        for (endpoint, param) in params {
            let paramcd = param.paramcd();
            if !present(paramcd) {
                return Err(Error::Config {
                    file: cfg.path.clone(),
                    location: format!("key `{key}.tte_params.{endpoint}`: "),
                    message: format!(
                        "PARAMCD `{paramcd}` is not in {adtte}; it has: {}",
                        listing(data.tte.params.iter().map(|p| &**p))
                    ),
                });
            }
        }
        Ok(())
    };
    if let Some(params) = &cfg.config.analysis.tte_params {
        check(params, "analysis")?;
    }
    for (i, cohort) in cfg.config.cohorts.iter().enumerate() {
        if let Some(params) = &cohort.analysis.tte_params {
            check(params, &format!("cohorts[{i}].analysis"))?;
        }
    }
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

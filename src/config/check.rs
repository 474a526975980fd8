//! What serde cannot check in a config: ids usable as folder and file names, control
//! characters, arms with their strata and subgroups, and analysis values in range; each
//! refusal names the file and the key (docs/BAD-INPUT.md).

use std::path::Path;

use crate::error::{Error, Result};

use super::analysis::*;
use super::schema::*;

/// Most decimals a number is printed with.
const MAX_DECIMALS: usize = 10;

/// Most adverse-event terms the figure shows: a row is about 50 pixels, and 250 rows made a
/// figure too tall to rasterise (26,000 pixels at the PNG scale), failing the cohort.
pub const MAX_AE_TOP_N: usize = 100;
/// Most times of a risk table (`analysis.km_table_times`): one row of numbers under a plot.
pub const MAX_TABLE_TIMES: usize = 40;

pub(super) fn config_error(path: &Path, location: &str, message: impl Into<String>) -> Error {
    Error::Config {
        file: path.to_path_buf(),
        location: location.to_string(),
        message: message.into(),
    }
}

/// The first config text (a value or a key) holding a control character, with its key path:
/// refused as in data, for they corrupt SVG and Word files and drive terminals (YAML's
/// `"\e"` escapes make them).
fn control_character(config: &StudyConfig) -> Option<(String, String, char)> {
    let value = serde_json::to_value(config).ok()?;
    let mut stack: Vec<(String, &serde_json::Value)> = vec![(String::new(), &value)];
    while let Some((key, v)) = stack.pop() {
        match v {
            serde_json::Value::String(text) => {
                if let Some((_, c)) = crate::error::find_refused_control(text) {
                    return Some((key, text.clone(), c));
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((format!("{key}[{i}]"), item));
                }
            }
            serde_json::Value::Object(map) => {
                for (k, item) in map.iter().rev() {
                    let child = if key.is_empty() {
                        k.clone()
                    } else {
                        format!("{key}.{k}")
                    };
                    if let Some((_, c)) = crate::error::find_refused_control(k) {
                        return Some((child, k.clone(), c));
                    }
                    stack.push((child, item));
                }
            }
            _ => {}
        }
    }
    None
}

/// Checks serde cannot express: ids usable as folder names, unique cohorts, sane levels.
/// Every problem found is reported, not the first only ([`Error::Several`] for more than one).
pub(super) fn validate(path: &Path, config: &StudyConfig) -> Result<()> {
    let mut errors: Vec<Error> = Vec::new();
    let mut keep = |result: Result<()>| {
        if let Err(e) = result {
            errors.push(e);
        }
    };
    if let Some((key, text, c)) = control_character(config) {
        keep(Err(config_error(
            path,
            &format!("key `{key}`: "),
            format!(
                "`{}` holds {}; expected text without control characters (tab and line \
                 breaks are allowed)",
                crate::error::escape_controls(&text, false),
                crate::error::refused_character(c)
            ),
        )));
    }
    let id = &config.study.id;
    keep(check_id_length(path, "key `study.id`: ", id));
    if let Some(problem) = study_id_problem(id) {
        keep(Err(config_error(path, "key `study.id`: ", problem)));
    }
    if config.cohorts.is_empty() {
        keep(Err(config_error(
            path,
            "key `cohorts`: ",
            "no cohort given; expected at least one",
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, cohort) in config.cohorts.iter().enumerate() {
        let key = format!("key `cohorts[{i}].id`: ");
        keep(check_id_length(path, &key, &cohort.id));
        if let Some(problem) = cohort_id_problem(&cohort.id) {
            keep(Err(config_error(path, &key, problem)));
        }
        if !seen.insert(cohort.id.as_str()) {
            keep(Err(config_error(
                path,
                &key,
                format!("duplicate cohort id `{}`; expected unique ids", cohort.id),
            )));
        }
        keep(check_analysis(
            path,
            &format!("cohorts[{i}].analysis"),
            &cohort.analysis,
        ));
        keep(check_arms(path, i, cohort));
        let test = cohort
            .analysis
            .response_test
            .or(config.analysis.response_test);
        if test == Some(ResponseTest::Cmh) && cohort.strata.is_empty() {
            keep(Err(config_error(
                path,
                &format!("key `cohorts[{i}]`: "),
                "`response_test: cmh` tests over strata, and the cohort has none; add \
                 `strata` or choose `auto`, `chisq` or `fisher`"
                    .to_string(),
            )));
        }
        // ADAE is read once for the study, with the study's related values: a cohort's own
        // would be silently unused.
        if cohort.analysis.related_values.is_some() {
            keep(Err(config_error(
                path,
                &format!("key `cohorts[{i}].analysis.related_values`: "),
                "related values apply to the whole study (ADAE is read once); set \
                 `analysis.related_values` instead"
                    .to_string(),
            )));
        }
    }
    keep(check_analysis(path, "analysis", &config.analysis));
    keep(check_rmst_tau(path, config));
    keep(check_roles_and_blocks(path, config));
    keep(check_disposition(path, &config.data));
    keep(check_filters(path, &config.data));
    keep(check_vocabulary(path, config));
    for (key, value) in [
        ("width", config.output.poster.width),
        ("height", config.output.poster.height),
    ] {
        if let Some(v) = value.filter(|v| !(10.0..=120.0).contains(v)) {
            keep(Err(config_error(
                path,
                &format!("key `output.poster.{key}`: "),
                format!("{v} is not a poster size; expected 10 to 120 inches"),
            )));
        }
    }
    if let Some(crate::config::ConferenceSpec::Custom(rule)) = &config.output.conference {
        if let Some((key, problem)) = rule.sections.problem() {
            keep(Err(config_error(
                path,
                &format!("key `output.conference.sections.{key}`: "),
                problem,
            )));
        }
        if rule.limit.is_none() && rule.sections == crate::config::SectionNames::default() {
            keep(Err(config_error(
                path,
                "key `output.conference`: ",
                "a rule of one's own that sets neither `limit` nor `sections` checks nothing; \
                 expected a congress (asco, esmo, ash, eha, aacr, wclc) or { limit: N, counts: \
                 chars | chars_no_spaces | words }"
                    .to_string(),
            )));
        }
        if rule.limit == Some(0) {
            keep(Err(config_error(
                path,
                "key `output.conference.limit`: ",
                "0 is not a limit; expected a positive number of characters or words".to_string(),
            )));
        }
    }
    Error::all(errors)
}

/// `data.disposition` or the one level of `disposition_status`/`disposition_reason`, not both;
/// each level names a status or a reason.
fn check_disposition(path: &Path, data: &DataFiles) -> Result<()> {
    let Some(d) = &data.disposition else {
        return Ok(());
    };
    if data.disposition_status.is_some() || data.disposition_reason.is_some() {
        return Err(config_error(
            path,
            "key `data.disposition`: ",
            "give the levels here or one level in `disposition_status` and \
             `disposition_reason`, not both"
                .to_string(),
        ));
    }
    if d.treatment.is_none() && d.study.is_none() {
        return Err(config_error(
            path,
            "key `data.disposition`: ",
            "no level given; expected `treatment`, `study` or both".to_string(),
        ));
    }
    for (name, level) in [("treatment", &d.treatment), ("study", &d.study)] {
        if let Some(DispositionLevelConfig::Full {
            status: None,
            reason: None,
            ..
        }) = level
        {
            return Err(config_error(
                path,
                &format!("key `data.disposition.{name}`: "),
                "neither `status` nor `reason` given; expected the ADSL column(s) the level is \
                 read from"
                    .to_string(),
            ));
        }
    }
    Ok(())
}

/// `data.where`: each key a dataset the config reads, each column named, each list of values
/// not empty.
fn check_filters(path: &Path, data: &DataFiles) -> Result<()> {
    for (dataset, columns) in &data.filters {
        let key = format!("key `data.where.{dataset}`: ");
        let given = match dataset.as_str() {
            "adsl" => true,
            "adrs" => data.adrs.is_some(),
            "adtte" => data.adtte.is_some(),
            "adae" => data.adae.is_some(),
            "adtr" => data.adtr.is_some(),
            "adex" => data.adex.is_some(),
            _ => {
                return Err(config_error(
                    path,
                    &key,
                    format!(
                        "`{dataset}` is not a dataset readout reads; expected one of {}",
                        super::schema::FILTERED_DATASETS.join(", ")
                    ),
                ))
            }
        };
        if !given {
            return Err(config_error(
                path,
                &key,
                format!("`data.{dataset}` is not given; a filter needs its dataset"),
            ));
        }
        if columns.is_empty() {
            return Err(config_error(
                path,
                &key,
                "no column given; expected { COLUMN: value } or { COLUMN: [values] }".to_string(),
            ));
        }
        for (column, values) in columns {
            let key = format!("key `data.where.{dataset}.{column}`: ");
            if column.trim().is_empty() {
                return Err(config_error(path, &key, "an empty column name".to_string()));
            }
            let texts = values.texts();
            if texts.is_empty() || texts.iter().any(|t| t.trim().is_empty()) {
                return Err(config_error(
                    path,
                    &key,
                    "an empty value or list; expected the value(s) of the rows to keep".to_string(),
                ));
            }
        }
    }
    Ok(())
}

/// The criteria sets of all cohorts together fit one study's vocabulary of ADRS values.
fn check_vocabulary(path: &Path, config: &StudyConfig) -> Result<()> {
    let sets: Vec<crate::criteria::Criteria> = config
        .cohorts
        .iter()
        .filter_map(|c| {
            c.analysis
                .response_criteria
                .as_ref()
                .or(config.analysis.response_criteria.as_ref())
        })
        .filter_map(|c| c.resolve().ok())
        .collect();
    crate::criteria::Vocabulary::new(&sets)
        .map(|_| ())
        .map_err(|problem| config_error(path, "key `analysis.response_criteria`: ", problem))
}

/// What makes `id` unusable as a study id (a folder name), if anything: also checked on the
/// ids `diff` reads back from a results.json, which may have been edited.
pub fn study_id_problem(id: &str) -> Option<String> {
    let usable = !id.is_empty()
        && id != "."
        && id != ".."
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    (!usable).then(|| {
        format!(
            "`{}` is not usable as a folder name; expected letters, digits, `-`, `_` or `.`",
            crate::error::escape_controls(id, false)
        )
    })
}

/// What makes `id` unusable as a cohort id (a folder and file name), if anything; see
/// [`study_id_problem`].
pub fn cohort_id_problem(id: &str) -> Option<String> {
    if id == "derived" {
        return Some(
            "`derived` is reserved for the derived datasets folder; choose another id".into(),
        );
    }
    let usable = !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    (!usable).then(|| {
        format!(
            "`{}` is not a valid cohort id; expected lower-case letters, digits and `-` only",
            crate::error::escape_controls(id, false)
        )
    })
}

/// Longest study or cohort id: each is a folder name, and a long one failed the build with
/// "File name too long" after `check` had passed it.
pub const MAX_ID_CHARS: usize = 64;

fn check_id_length(path: &Path, key: &str, id: &str) -> Result<()> {
    let chars = id.chars().count();
    if chars > MAX_ID_CHARS {
        let shown: String = id.chars().take(20).collect();
        return Err(config_error(
            path,
            key,
            format!(
                "`{}…` is {chars} characters long; expected at most {MAX_ID_CHARS} (it names \
                 a folder)",
                crate::error::escape_controls(&shown, false)
            ),
        ));
    }
    Ok(())
}

/// `arms`, `strata` and `subgroups` of cohort `i`: strata and subgroups compare arms, so they
/// need arms; an order lists each arm once, the reference among them.
fn check_arms(path: &Path, i: usize, cohort: &CohortConfig) -> Result<()> {
    let key = |k: &str| format!("key `cohorts[{i}].{k}`: ");
    let Some(arms) = &cohort.arms else {
        for (name, columns) in [("strata", &cohort.strata), ("subgroups", &cohort.subgroups)] {
            if !columns.is_empty() {
                return Err(config_error(
                    path,
                    &key(name),
                    format!("{name} compare arms, and the cohort has none; add `arms: {{ column, reference }}`"),
                ));
            }
        }
        return Ok(());
    };
    for (name, column) in std::iter::once(("arms.column", arms.column.as_str()))
        .chain(cohort.strata.iter().map(|c| ("strata", &**c)))
        .chain(cohort.subgroups.iter().map(|c| ("subgroups", &**c)))
    {
        if column.trim().is_empty() {
            return Err(config_error(
                path,
                &key(name),
                "an empty column name; expected an ADSL column".to_string(),
            ));
        }
    }
    for (arm, names) in &arms.labels {
        let (label, short) = names.names();
        for (what, name) in [("label", label), ("short", short)] {
            if name.trim().is_empty() || name.chars().count() > MAX_ARM_NAME_CHARS {
                return Err(config_error(
                    path,
                    &key(&format!("arms.labels.{arm}.{what}")),
                    format!(
                        "{}; expected 1 to {MAX_ARM_NAME_CHARS} characters that name the arm in \
                         documents",
                        if name.trim().is_empty() {
                            format!("{what:?} is empty or blank")
                        } else {
                            format!("{} characters", name.chars().count())
                        }
                    ),
                ));
            }
        }
    }
    if let Some(order) = &arms.order {
        let texts: Vec<String> = order.iter().map(Scalar::as_text).collect();
        if let Some(twice) = texts
            .iter()
            .enumerate()
            .find(|(k, t)| texts[..*k].contains(t))
        {
            return Err(config_error(
                path,
                &key("arms.order"),
                format!("arm `{}` is listed twice; expected each arm once", twice.1),
            ));
        }
        let reference = arms.reference.as_text();
        if !texts.contains(&reference) {
            return Err(config_error(
                path,
                &key("arms.order"),
                format!("the reference arm `{reference}` is not listed; expected every arm, the reference among them"),
            ));
        }
    }
    Ok(())
}

/// The longest arm label or short name: it goes into sentences, legends and table headers.
const MAX_ARM_NAME_CHARS: usize = 120;

/// The longest window in days a config may set (confirmation, SD, missed visits, iUPD).
const MAX_WINDOW_DAYS: i64 = 36_525;

fn check_analysis(path: &Path, key: &str, a: &AnalysisConfig) -> Result<()> {
    let mut errors: Vec<Error> = Vec::new();
    check_ae_groups(path, key, a, &mut errors);
    check_settings(path, key, a, &mut errors);
    check_times(path, key, a, &mut errors);
    check_endpoints(path, key, a, &mut errors);
    Error::all(errors)
}

/// The adverse events of special interest: each with a label and events to find.
fn check_ae_groups(path: &Path, key: &str, a: &AnalysisConfig, errors: &mut Vec<Error>) {
    let groups: Vec<&SpecialInterest> = a.ae_special_interest.iter().flatten().collect();
    for (i, group) in groups.iter().enumerate() {
        let at = format!("key `{key}.ae_special_interest[{i}]`: ");
        let label = group.label.trim();
        if let Some(k) = groups[..i]
            .iter()
            .position(|g| crate::model::text::eq_without_case(g.label.trim(), label))
        {
            errors.push(config_error(
                path,
                &at,
                format!(
                    "the label {label:?} is also group {k}'s; expected a label per group (documents \
                     tell the groups apart by it)"
                ),
            ));
        }
        if label.is_empty() || label.chars().count() > 80 {
            errors.push(config_error(
                path,
                &at,
                "`label` must be 1 to 80 characters: how documents name the events".to_string(),
            ));
        }
        let no_terms = group.terms.iter().all(|t| t.trim().is_empty());
        if no_terms
            && group
                .body_system
                .as_deref()
                .is_none_or(|b| b.trim().is_empty())
        {
            errors.push(config_error(
                path,
                &at,
                format!(
                    "`{label}` names no event; expected `terms: [AEDECOD, ...]` or \
                     `body_system: AEBODSYS`"
                ),
            ));
        }
    }
}

/// The windows, the confidence level, the decimals and the adverse-event limits.
fn check_settings(path: &Path, key: &str, a: &AnalysisConfig, errors: &mut Vec<Error>) {
    if let Some([min, max]) = a.iupd_confirmation_days {
        if min < 0 || max < min || max > MAX_WINDOW_DAYS {
            errors.push(config_error(
                path,
                &format!("key `{key}.iupd_confirmation_days`: "),
                format!(
                    "[{min}, {max}]; expected [min, max] days with 0 <= min <= max, e.g. [28, 56]"
                ),
            ));
        }
    }
    if let Some(criteria) = &a.response_criteria {
        if let Err(problem) = criteria.resolve() {
            errors.push(config_error(
                path,
                &format!("key `{key}.response_criteria`: "),
                problem,
            ));
        }
    }
    if let Some(level) = a.ci_level {
        // Every interval is labelled with its level: one the label cannot show exactly
        // (0.9999999999999999 read "100% CI") is refused, and so are levels no report uses.
        let thousandths = level * 1000.0;
        if !(0.5..=0.999).contains(&level) || (thousandths - thousandths.round()).abs() > 1e-6 {
            errors.push(config_error(
                path,
                &format!("key `{key}.ci_level`: "),
                format!(
                    "{level} is not a confidence level readout can label; expected 0.5 to 0.999 \
                     with at most three decimals, e.g. 0.95"
                ),
            ));
        }
    }
    for (name, value) in [
        ("confirmation_days", a.confirmation_days),
        ("sd_min_days", a.sd_min_days),
        ("missed_visit_days", a.missed_visit_days),
    ] {
        if let Some(v) = value {
            if !(0..=MAX_WINDOW_DAYS).contains(&v) {
                errors.push(config_error(
                    path,
                    &format!("key `{key}.{name}`: "),
                    format!("{v} days; expected 0 to {MAX_WINDOW_DAYS} (100 years)"),
                ));
            }
        }
    }
    // Templates clamp `d=N` to 10 as well; far more would overflow the formatter.
    for (name, value) in [
        ("percent_decimals", a.percent_decimals),
        ("time_decimals", a.time_decimals),
    ] {
        if let Some(d) = value.filter(|d| *d > MAX_DECIMALS) {
            errors.push(config_error(
                path,
                &format!("key `{key}.{name}`: "),
                format!("{d} decimals; expected 0 to {MAX_DECIMALS}"),
            ));
        }
    }
    if let Some(n) = a.ae_top_n.filter(|n| *n > MAX_AE_TOP_N) {
        errors.push(config_error(
            path,
            &format!("key `{key}.ae_top_n`: "),
            format!(
                "{n} terms; expected 0 to {MAX_AE_TOP_N} (the adverse-event figure shows at most \
                 {MAX_AE_TOP_N} terms; more do not fit a figure)"
            ),
        ));
    }
    if let Some(pct) = a.ae_common_pct.filter(|p| !(0.0..=100.0).contains(p)) {
        errors.push(config_error(
            path,
            &format!("key `{key}.ae_common_pct`: "),
            format!("{pct}; expected a percentage from 0 to 100"),
        ));
    }
}

/// The times: landmarks, RMST horizons, the risk table's times, the assessment schedule.
fn check_times(path: &Path, key: &str, a: &AnalysisConfig, errors: &mut Vec<Error>) {
    if let Some(t) = a.cif_landmark {
        if !(t.is_finite() && t > 0.0) {
            errors.push(config_error(
                path,
                &format!("key `{key}.cif_landmark`: "),
                format!(
                    "{} is not a time; expected a positive number in time_unit, e.g. 12",
                    crate::format::short_number(t)
                ),
            ));
        }
    }
    if let Some(entries) = &a.assessment_schedule {
        if super::analysis::schedule_of(entries).is_none() {
            errors.push(config_error(
                path,
                &format!("key `{key}.assessment_schedule`: "),
                "expected stretches of a positive interval (`every`), each but the last \
                 ending (`until`) after the one before, e.g. [{ every: 6 weeks, until: 48 \
                 weeks }, { every: 12 weeks }]"
                    .to_string(),
            ));
        }
    }
    // At most 1,000 years (the longest time readout reads), in this block's unit, or in days
    // (the loosest bound) when the unit is set elsewhere.
    let most = crate::model::MAX_TIME_DAYS / a.time_unit.map_or(1.0, |u| u.days());
    // Times from 0 (landmarks, the risk table's); the horizons, times above 0.
    let not_a_time = |name: &str, times: &[f64]| {
        let bad = times
            .iter()
            .find(|t| !t.is_finite() || **t < 0.0 || **t > most)?;
        Some(config_error(
            path,
            &format!("key `{key}.{name}`: "),
            format!(
                "{} is not a time; expected numbers from 0 to {most} in the time unit \
                 (1,000 years)",
                crate::format::short_number(*bad)
            ),
        ))
    };
    errors.extend(
        a.landmarks
            .as_deref()
            .and_then(|times| not_a_time("landmarks", times)),
    );
    let taus: Vec<(String, f64)> = match &a.rmst_tau {
        Some(super::analysis::RmstTau::All(t)) => vec![("rmst_tau".to_string(), *t)],
        Some(super::analysis::RmstTau::ByEndpoint(m)) => m
            .iter()
            .map(|(e, t)| (format!("rmst_tau.{e}"), *t))
            .collect(),
        None => Vec::new(),
    };
    for (name, t) in taus {
        if !(t.is_finite() && t > 0.0 && t <= most) {
            errors.push(config_error(
                path,
                &format!("key `{key}.{name}`: "),
                format!(
                    "{}; expected a time above 0 and at most {most} in the time unit",
                    crate::format::short_number(t)
                ),
            ));
        }
    }
    if let Some(times) = &a.km_table_times {
        let unordered = times.windows(2).any(|w| w[1] <= w[0]);
        if let Some(bad) = not_a_time("km_table_times", times) {
            errors.push(bad);
        } else if times.first().is_some_and(|t| *t != 0.0) {
            errors.push(config_error(
                path,
                &format!("key `{key}.km_table_times`: "),
                format!(
                    "the first time is {}; expected the risk table to start at 0 (the numbers \
                     at risk when follow-up starts)",
                    crate::format::short_number(times[0])
                ),
            ));
        } else if unordered || times.is_empty() || times.len() > MAX_TABLE_TIMES {
            errors.push(config_error(
                path,
                &format!("key `{key}.km_table_times`: "),
                format!(
                    "{} times{}; expected 1 to {MAX_TABLE_TIMES} times in increasing order",
                    times.len(),
                    if unordered {
                        " not in increasing order"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
}

/// "; did you mean `X`?" for the known name nearest `given`, or nothing.
fn near_suffix(given: &str, known: &[&str]) -> String {
    super::read::nearest(given, known.iter().copied())
        .map_or(String::new(), |k| format!("; did you mean `{k}`?"))
}

/// `analysis.endpoints` names endpoints of the cohort (`ORR`, `DCR` or one of `tte_params`);
/// `output.abstract` names blocks or endpoints, none both included and excluded.
fn check_roles_and_blocks(path: &Path, config: &StudyConfig) -> Result<()> {
    let mut errors: Vec<Error> = Vec::new();
    let mut said = std::collections::BTreeSet::new();
    let mut endpoints: Vec<String> = vec!["ORR".into(), "DCR".into()];
    for (i, cohort) in config.cohorts.iter().enumerate() {
        let a = cohort.analysis.resolve(&config.analysis);
        for name in a.tte_params.keys() {
            if !endpoints.contains(name) {
                endpoints.push(name.clone());
            }
        }
        let key = if cohort.analysis.endpoints.is_some() {
            format!("cohorts[{i}].analysis.endpoints")
        } else {
            "analysis.endpoints".to_string()
        };
        let known: Vec<&str> = ["ORR", "DCR"]
            .into_iter()
            .chain(a.tte_params.keys().map(String::as_str))
            .collect();
        for name in a.endpoint_roles.keys() {
            let at = format!("{key}.{name}");
            if known.contains(&name.as_str()) || !said.insert(at.clone()) {
                continue;
            }
            let near = near_suffix(name, &known);
            errors.push(config_error(
                path,
                &format!("key `{at}`: "),
                format!(
                    "`{name}` is not an endpoint of cohort `{}`; expected one of {}{near}",
                    cohort.id,
                    known.join(", ")
                ),
            ));
        }
    }
    let blocks = &config.output.abstract_blocks;
    let names: Vec<&str> = super::ABSTRACT_BLOCKS
        .iter()
        .map(|(n, _)| *n)
        .chain(endpoints.iter().map(String::as_str))
        .collect();
    for (list, given) in [("include", &blocks.include), ("exclude", &blocks.exclude)] {
        for (j, name) in given.iter().enumerate() {
            let at = format!("output.abstract.{list}[{j}]");
            if !names.contains(&name.as_str()) {
                let near = near_suffix(name, &names);
                errors.push(config_error(
                    path,
                    &format!("key `{at}`: "),
                    format!(
                        "`{name}` is not a block of the abstract; expected one of {}{near}",
                        names.join(", ")
                    ),
                ));
            } else if list == "exclude" && blocks.include.contains(name) {
                errors.push(config_error(
                    path,
                    &format!("key `{at}`: "),
                    format!("`{name}` is both included and excluded; expected one of the two"),
                ));
            }
        }
    }
    Error::all(errors)
}

/// `rmst_tau` as each cohort resolves it: a horizon per endpoint names an endpoint of the
/// cohort without competing events (else it was ignored and the default used without a word),
/// and every horizon is at least a day and prints as more than 0 at the cohort's decimals.
fn check_rmst_tau(path: &Path, config: &StudyConfig) -> Result<()> {
    let mut errors: Vec<Error> = Vec::new();
    let mut said = std::collections::BTreeSet::new();
    for (i, cohort) in config.cohorts.iter().enumerate() {
        let a = cohort.analysis.resolve(&config.analysis);
        let Some(tau) = &a.rmst_tau else { continue };
        let key = if cohort.analysis.rmst_tau.is_some() {
            format!("cohorts[{i}].analysis.rmst_tau")
        } else {
            "analysis.rmst_tau".to_string()
        };
        let horizons: Vec<(String, f64)> = match tau {
            RmstTau::All(t) => vec![(key.clone(), *t)],
            RmstTau::ByEndpoint(m) => m.iter().map(|(e, t)| (format!("{key}.{e}"), *t)).collect(),
        };
        // Half the last printed decimal: a smaller τ prints as 0.
        let printed = 0.5 * 10f64.powi(-(a.time_decimals.min(MAX_DECIMALS) as i32));
        let day = 1.0 / a.time_unit.days();
        for (at, t) in &horizons {
            if t.is_finite() && *t > 0.0 && (*t < day || *t < printed) && said.insert(at.clone()) {
                errors.push(config_error(
                    path,
                    &format!("key `{at}`: "),
                    format!(
                        "{} {} is shorter than a day or prints as 0 at {} decimal(s); expected \
                         the horizon of the restricted mean, e.g. 12 months",
                        crate::format::short_number(*t),
                        a.time_unit.name(),
                        a.time_decimals
                    ),
                ));
            }
        }
        let RmstTau::ByEndpoint(by) = tau else {
            continue;
        };
        for endpoint in by.keys() {
            let at = format!("{key}.{endpoint}");
            let problem = if a.tte_competing.contains_key(endpoint) {
                format!(
                    "`{endpoint}` has competing events: its incidence has no restricted mean \
                     survival time"
                )
            } else if !a.tte_params.contains_key(endpoint) {
                let known: Vec<&str> = a
                    .tte_params
                    .keys()
                    .filter(|e| !a.tte_competing.contains_key(*e))
                    .map(String::as_str)
                    .collect();
                let near = near_suffix(endpoint, &known);
                format!(
                    "`{endpoint}` is not an endpoint of cohort `{}`; expected one of {}{near}",
                    cohort.id,
                    known.join(", ")
                )
            } else {
                continue;
            };
            if said.insert(at.clone()) {
                errors.push(config_error(path, &format!("key `{at}`: "), problem));
            }
        }
    }
    Error::all(errors)
}

/// The endpoints: their names, PARAMCDs, competing events and labels, and the follow-up's.
fn check_endpoints(path: &Path, key: &str, a: &AnalysisConfig, errors: &mut Vec<Error>) {
    if let Some(params) = &a.tte_params {
        for name in params.keys() {
            // The name is part of figure file names (`forest-<name>-<k>.png`).
            if name.is_empty()
                || name.len() > MAX_ID_CHARS
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                let shown: String = name.chars().take(20).collect();
                let ellipsis = if shown.len() < name.len() { "…" } else { "" };
                errors.push(config_error(
                    path,
                    &format!("key `{key}.tte_params`: "),
                    format!(
                        "endpoint name `{}{ellipsis}` ({} characters); expected 1 to \
                         {MAX_ID_CHARS} letters, digits and `_` (it names figure files)",
                        crate::error::escape_controls(&shown, false),
                        name.chars().count()
                    ),
                ));
            }
        }
        for (name, param) in params {
            let bad = match param {
                TteParam::Code(code) | TteParam::Labelled { paramcd: code, .. }
                    if code.trim().is_empty() =>
                {
                    Some("an empty PARAMCD; expected the ADTTE PARAMCD".to_string())
                }
                TteParam::Labelled {
                    competing: Some(c), ..
                } if c.column.trim().is_empty()
                    || c.values.is_empty()
                    || c.values.iter().any(|v| v.trim().is_empty()) =>
                {
                    Some(format!(
                        "competing: column `{}` and {} value(s); expected an ADTTE column and at \
                         least one value that marks a competing event",
                        c.column,
                        c.values.len()
                    ))
                }
                TteParam::Labelled { label: Some(l), .. }
                    if l.trim().is_empty() || l.chars().count() > MAX_LABEL_CHARS =>
                {
                    Some(format!(
                        "label of {} characters; expected 1 to {MAX_LABEL_CHARS}",
                        l.chars().count()
                    ))
                }
                _ => None,
            };
            if let Some(message) = bad {
                errors.push(config_error(
                    path,
                    &format!("key `{key}.tte_params.{name}`: "),
                    message,
                ));
            }
        }
    }
    if let Some(followup) = &a.followup {
        if let Some(params) = &a.tte_params {
            if !params.contains_key(followup) {
                errors.push(config_error(
                    path,
                    &format!("key `{key}.followup`: "),
                    format!("`{followup}` is not an endpoint of tte_params"),
                ));
            }
        }
    }
}

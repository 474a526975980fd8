//! The arms of a randomised cohort (`cohorts[].arms`, docs/CONFIG.md): each member's arm and
//! stratum, checked against the config (the arms column, the reference, the order, the strata
//! and subgroup columns), each arm analysed as a cohort of its own, then each arm handed to
//! [`compare`] with the reference.

use crate::diagnostic::{Diagnostic, Kind};
use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use rustc_hash::FxHashMap;

use super::{analyse_derived, cohort_index, CutData};
use crate::compare::{self, Member};
use crate::config::{Analysis, ArmsConfig, CohortConfig};
use crate::derive::DerivedSubject;
use crate::endpoints::{beyond, CohortAnalysis, Members};
use crate::error::{Error, Result};
use crate::model::Subject;
use crate::results::{ArmResults, Comparison};
use crate::stats;
use crate::study::LoadedStudy;

/// What comparing a cohort's arms gives.
pub struct ArmsOutcome {
    /// Each arm's results, in the arms' order.
    pub arms: Vec<ArmResults>,
    /// Each arm but the reference against it.
    pub comparisons: Vec<Comparison>,
    /// What the reader should know (an estimate left out, subjects without an arm).
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// Each arm's Kaplan–Meier fits per endpoint, for the figures by arm.
    pub km: Vec<(String, IndexMap<String, stats::KaplanMeier>)>,
    /// Each arm's times and statuses of the endpoints with competing events.
    pub competing: Vec<(String, IndexMap<String, crate::endpoints::CompetingData>)>,
    /// Where each endpoint is read beyond its median, the same for the cohort and its arms.
    pub horizons: beyond::Horizons,
}

/// Analyses each arm and compares each with the reference, from the cohort's analysis.
pub fn analyse_arms<'a>(
    study: &'a LoadedStudy,
    at: &'a CutData<'a>,
    cohort: &'a CohortConfig,
    config: &ArmsConfig,
    pooled: &CohortAnalysis<'a>,
    settings: &Analysis,
) -> Result<ArmsOutcome> {
    let subjects = &at.data.subjects;
    let refused = refusal(study, cohort);
    let column = config.column.as_str();
    let member = |i: usize| {
        pooled
            .members
            .get(i)
            .and_then(|&global| subjects.get(global as usize))
    };
    let MemberArms {
        arm_names,
        arm_values,
        strata_of,
        stratum_numbers,
    } = crate::profile::timing::stage("    member arms", || {
        MemberArms::of(pooled.members.len(), member, column, cohort)
    });
    if arm_names.len() > usize::from(u16::MAX) {
        return Err(refused(
            "arms.column",
            format!(
                "more than {} values of `{column}`; expected a handful of arms",
                u16::MAX
            ),
        ));
    }
    let arm_of = |i: usize| {
        arm_values
            .get(i)
            .and_then(|&k| arm_names.get(usize::from(k)).copied().flatten())
    };
    // The arms present: the values of the members' column lists (a handful), not of each member.
    let present: BTreeSet<&str> = arm_names.iter().flatten().copied().collect();
    if present.is_empty() {
        return Err(refused(
            "arms.column",
            format!("ADSL has no column `{column}` with a value for the cohort's subjects"),
        ));
    }
    let reference = config.reference.as_text();
    let order = crate::profile::timing::stage("    arms checked", || {
        checked_order(config, cohort, &present, &refused, &|name: &str| {
            (0..pooled.members.len())
                .any(|i| member(i).is_some_and(|s| s.columns.get(name).is_some()))
        })
    })?;
    let without = (0..pooled.members.len())
        .filter(|&i| arm_of(i).is_none())
        .count();
    let mut warnings = arm_warnings(present.len(), column, &reference, without);

    let number_of = |name: &str| {
        arm_names
            .iter()
            .position(|n| *n == Some(name))
            .map(|k| k as u16)
    };

    // Each arm analysed as a cohort of its own, the arms side by side.
    let analysed: Vec<(String, CohortAnalysis<'a>)> = {
        use rayon::prelude::*;
        order
            .par_iter()
            .map(|arm| {
                let (positions, derived) = arm_members(pooled, &arm_values, number_of(arm));
                let analysis = crate::profile::timing::stage("    arm", || {
                    analyse_derived(
                        at,
                        cohort,
                        settings,
                        (Members::Owned(positions), derived),
                        Vec::new(),
                    )
                })?;
                Ok((arm.clone(), analysis))
            })
            .collect::<Result<_>>()?
    };
    let mut arms = Vec::with_capacity(order.len());
    let mut km = Vec::with_capacity(order.len());
    let mut competing = Vec::with_capacity(order.len());
    for (arm, analysis) in analysed {
        competing.push((arm.clone(), analysis.competing));
        let (label, short) = config
            .labels
            .get(&arm)
            .map_or((arm.as_str(), arm.as_str()), |l| l.names());
        let (label, short) = (label.to_string(), short.to_string());
        km.push((arm.clone(), analysis.km));
        let mut results = analysis.results;
        // Each arm's safety tables in the cohort's order: all arms together.
        if let (Some(own), Some(whole)) = (results.safety.as_mut(), pooled.results.safety.as_ref())
        {
            crate::endpoints::soc::order_safety_as(own, whole);
        }
        arms.push(ArmResults {
            arm,
            arm_label: label,
            arm_short: short,
            results,
        });
    }

    // Survival beyond the median at horizons common to every arm, once each arm's curve is
    // fitted: each arm's RMST and risk tables, then their contrasts in the comparisons.
    let arm_short = |arm: &str| {
        arms.iter()
            .find(|a: &&ArmResults| a.arm == arm && !a.arm_short.is_empty())
            .map_or(arm, |a| a.arm_short.as_str())
            .to_string()
    };
    let (horizons, notes) = beyond::horizons(
        (&pooled.results.label, &pooled.km, &pooled.results.tte),
        &km,
        &arm_short,
        settings,
        &super::tau_key(study, cohort),
    )?;
    warnings.extend(notes);
    for (arm, (fits, incidence)) in arms.iter_mut().zip(km.iter().zip(&competing)) {
        beyond::describe(
            &mut arm.results.tte,
            (&fits.1, &incidence.1),
            &horizons,
            settings,
            &cohort.id,
        )?;
    }
    let arm_rmst = |arm: &str, endpoint: &str| {
        arms.iter()
            .find(|a| a.arm == arm)
            .and_then(|a| a.results.tte.get(endpoint)?.rmst)
    };

    let stratum_names = stratum_names(&stratum_numbers, cohort);
    let mut comparisons = Vec::new();
    let ae_index = compare::safety::ae_index(&at.data.adverse_events);
    let rule = crate::endpoints::disposition::DurationRule::of(at.data, at.cutoff);
    let duration = |s: &Subject| rule.days(s);
    for arm in order.iter().filter(|a| **a != reference) {
        let members: Vec<Member> = crate::profile::timing::stage("    two arms", || {
            match (number_of(arm), number_of(&reference)) {
                (Some(compared), Some(base)) => {
                    two_arm_members(&arm_values, &strata_of, (compared, base), &member)
                }
                _ => Vec::new(),
            }
        });
        let two = compare::TwoArms::new(members, &pooled.members, subjects);
        let names = compare::PairNames {
            arm,
            reference: &reference,
            strata: &stratum_names,
        };
        let mut comparison = compare::compare_pair(
            &two,
            &names,
            pooled,
            &arm_rmst,
            cohort,
            settings,
            &mut warnings,
        )?;
        if !at.data.adverse_events.is_empty() {
            comparison.safety = crate::profile::timing::stage("    ae comparison", || {
                compare::safety::compare_ae(
                    &two,
                    &ae_index,
                    &duration,
                    at.data.adae_columns,
                    cohort,
                    settings,
                    &mut warnings,
                )
            })?;
        }
        comparisons.push(comparison);
    }
    Ok(ArmsOutcome {
        arms,
        comparisons,
        warnings,
        km,
        competing,
        horizons,
    })
}

/// Each member's arm and stratum, looked up once per shared list of ADSL columns (a handful in
/// a study of millions).
struct MemberArms<'s> {
    /// The arms' names, `None` (no value) first.
    arm_names: Vec<Option<&'s str>>,
    /// Each member's arm as a number into `arm_names` (2 bytes a member, not a reference).
    arm_values: Vec<u16>,
    /// Each member's stratum number, `None` when a strata column has no value.
    strata_of: Vec<Option<u32>>,
    /// The strata's numbers by their values (one per strata column, in config order).
    stratum_numbers: BTreeMap<Vec<&'s str>, u32>,
}

impl<'s> MemberArms<'s> {
    fn of(
        count: usize,
        member: impl Fn(usize) -> Option<&'s Subject>,
        column: &str,
        cohort: &CohortConfig,
    ) -> MemberArms<'s> {
        let mut arm_by_list: FxHashMap<usize, u16> = FxHashMap::default();
        let mut arm_names: Vec<Option<&str>> = vec![None];
        let mut stratum_by_list: FxHashMap<usize, Option<u32>> = FxHashMap::default();
        let mut stratum_numbers: BTreeMap<Vec<&str>, u32> = BTreeMap::new();
        let strata_columns = cohort.strata_columns();
        let mut arm_values: Vec<u16> = Vec::with_capacity(count);
        let mut strata_of: Vec<Option<u32>> = Vec::with_capacity(count);
        for i in 0..count {
            let Some(s) = member(i) else {
                arm_values.push(0);
                strata_of.push(None);
                continue;
            };
            let list = s.columns.list_id();
            let number = *arm_by_list.entry(list).or_insert_with(|| {
                let value = s.columns.get(column);
                match arm_names.iter().position(|n| *n == value) {
                    Some(k) => k as u16,
                    None => {
                        arm_names.push(value);
                        (arm_names.len() - 1) as u16
                    }
                }
            });
            arm_values.push(number);
            strata_of.push(*stratum_by_list.entry(list).or_insert_with(|| {
                let key = stratum_key(s, &strata_columns)?;
                let next = stratum_numbers.len() as u32;
                Some(*stratum_numbers.entry(key).or_insert(next))
            }));
        }
        MemberArms {
            arm_names,
            arm_values,
            strata_of,
            stratum_numbers,
        }
    }
}

/// The config error at a key of a cohort (`arms.reference`, `strata`, ...).
fn refusal<'s>(
    study: &'s LoadedStudy,
    cohort: &CohortConfig,
) -> impl Fn(&str, String) -> Error + 's {
    let k = cohort_index(study, cohort);
    move |key: &str, message: String| Error::Config {
        file: study.config.path.clone(),
        location: format!("key `cohorts[{k}].{key}`: "),
        message,
    }
}

/// Each cohort's arms against the data before any cut-off: the arms column, the reference,
/// the order, the labels and the strata and subgroup columns, with every problem of every
/// cohort reported together, so that a name the data do not have is refused once for the
/// config rather than once per cut-off. (At a cut-off, [`analyse_arms`] checks again: an arm
/// may have no subject yet.)
pub fn check_arms(study: &LoadedStudy) -> Result<()> {
    let subjects = &study.data.subjects;
    let mut errors = Vec::new();
    for cohort in &study.config.config.cohorts {
        let Some(config) = &cohort.arms else { continue };
        let positions = super::cohort_members(cohort, subjects);
        // A cohort of nobody has its own error, at each cut-off.
        if positions.is_empty() {
            continue;
        }
        let members = || positions.iter().filter_map(|&i| subjects.get(i as usize));
        let refused = refusal(study, cohort);
        let column = config.column.as_str();
        // The arms of the members' column lists (shared by value: a few thousand for millions).
        let mut lists = rustc_hash::FxHashSet::default();
        let present: BTreeSet<&str> = members()
            .filter(|s| lists.insert(s.columns.list_id()))
            .filter_map(|s| s.columns.get(column))
            .collect();
        if present.is_empty() {
            errors.push(refused(
                "arms.column",
                format!("ADSL has no column `{column}` with a value for the cohort's subjects"),
            ));
            continue;
        }
        let has_column = |name: &str| members().any(|s| s.columns.get(name).is_some());
        if let Err(e) = checked_order(config, cohort, &present, &refused, &has_column) {
            errors.push(e);
        }
    }
    Error::all(errors)
}

/// The members of the cohort an arm has (`in_arm` of their place among the cohort's), with the
/// cohort's derivations of them: a subject's best response and times do not depend on the
/// arm, so they are derived once.
fn arm_members(
    pooled: &CohortAnalysis<'_>,
    arm_values: &[u16],
    number: Option<u16>,
) -> (Vec<u32>, Vec<DerivedSubject>) {
    let Some(number) = number else {
        return (Vec::new(), Vec::new());
    };
    // Counted first so that each list is allocated once, at its size (10^7 members at scale).
    let count = arm_values.iter().filter(|&&k| k == number).count();
    let mut positions = Vec::with_capacity(count);
    let mut derived = Vec::with_capacity(if pooled.derived.is_empty() { 0 } else { count });
    for (i, (&k, &position)) in arm_values.iter().zip(pooled.members.iter()).enumerate() {
        if k == number {
            positions.push(position);
            derived.extend(pooled.derived.get(i).cloned());
        }
    }
    (positions, derived)
}

/// The arms in the order the documents give them (`arms.order`, else the reference last),
/// with what the config names checked against the arms present: the reference, the order, the
/// labels, and the strata and subgroup columns (`has_column`). Every problem is reported
/// together.
fn checked_order(
    config: &ArmsConfig,
    cohort: &CohortConfig,
    present: &BTreeSet<&str>,
    refused: &dyn Fn(&str, String) -> Error,
    has_column: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>> {
    let column = config.column.as_str();
    let listing = || crate::format::listing(present.iter().copied());
    let absent = |key: &str, value: &str| {
        refused(
            key,
            format!(
                "no subject of the cohort has {column} = {value:?}; the cohort's {column} values: {}",
                listing()
            ),
        )
    };
    let mut errors = Vec::new();
    let reference = config.reference.as_text();
    if !present.contains(reference.as_str()) {
        errors.push(absent("arms.reference", &reference));
    }
    let order: Vec<String> = match &config.order {
        Some(order) => {
            let order: Vec<String> = order.iter().map(|a| a.as_text()).collect();
            if let Some(missing) = order.iter().find(|a| !present.contains(a.as_str())) {
                errors.push(absent("arms.order", missing));
            }
            if let Some(unlisted) = present.iter().find(|a| !order.iter().any(|o| o == *a)) {
                errors.push(refused(
                    "arms.order",
                    format!("{column} = {unlisted:?} is not listed; expected every arm"),
                ));
            }
            order
        }
        None => present
            .iter()
            .filter(|a| **a != reference)
            .map(|a| a.to_string())
            .chain(std::iter::once(reference.clone()))
            .collect(),
    };
    if let Some(missing) = config.labels.keys().find(|a| !present.contains(a.as_str())) {
        errors.push(absent("arms.labels", missing));
    }
    errors.extend(same_names(config, present, refused));
    for (key, columns) in [("strata", &cohort.strata), ("subgroups", &cohort.subgroups)] {
        for name in columns {
            if !has_column(name) {
                errors.push(refused(
                    key,
                    format!("ADSL has no column `{name}` with a value for the cohort's subjects"),
                ));
            }
        }
    }
    Error::all(errors)?;
    Ok(order)
}

/// Two arms that documents would name alike (`arms.labels`, or an arm's value where it has
/// no label): "8.3 months with A vs 5.0 months with A" says nothing. Names are compared
/// trimmed and without case; labels and short names each among their own kind.
fn same_names(
    config: &ArmsConfig,
    present: &BTreeSet<&str>,
    refused: &dyn Fn(&str, String) -> Error,
) -> Vec<Error> {
    // Per arm: its value, label and short name.
    let names: Vec<[&str; 3]> = present
        .iter()
        .map(|&arm| {
            let (label, short) = config.labels.get(arm).map_or((arm, arm), |l| l.names());
            [arm, label, short]
        })
        .collect();
    let mut errors = Vec::new();
    for (kind, i) in [("label", 1), ("short name", 2)] {
        let key = |n: &[&str; 3]| n[i].trim().to_lowercase();
        let clash = names
            .iter()
            .enumerate()
            .find_map(|(k, a)| names[..k].iter().find(|b| key(a) == key(b)).map(|b| (b, a)));
        if let Some((first, second)) = clash {
            errors.push(refused(
                "arms.labels",
                format!(
                    "arms {:?} and {:?} have the same {kind} {:?}; expected a {kind} per arm \
                     that tells it apart in documents",
                    first[0],
                    second[0],
                    second[i].trim()
                ),
            ));
        }
    }
    errors
}

/// Warnings about the arms: all subjects in one arm, subjects in none.
fn arm_warnings(arms: usize, column: &str, reference: &str, without: usize) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    if arms == 1 {
        warnings.push(Diagnostic::warning(
            Kind::Arms,
            format!(
                "the cohort's subjects are all in one arm ({column} = {reference:?}): there is \
             nothing to compare, and the documents are those of a single-arm cohort"
            ),
        ));
    }
    if without > 0 {
        warnings.push(Diagnostic::warning(Kind::Arms, format!(
            "{without} subject(s) without a value of {column} are in no arm (they are in the cohort's own numbers)"
        )));
    }
    warnings
}

/// Each stratum by name at its number, for warnings: `STRAT = A`, `ECOG = 1, REGION = Asia`.
fn stratum_names(stratum_numbers: &BTreeMap<Vec<&str>, u32>, cohort: &CohortConfig) -> Vec<String> {
    let mut names = vec![String::new(); stratum_numbers.len()];
    for (key, &number) in stratum_numbers {
        if let Some(name) = names.get_mut(number as usize) {
            *name = key
                .iter()
                .zip(&cohort.strata)
                .map(|(value, column)| format!("{column} = {value}"))
                .collect::<Vec<_>>()
                .join(", ");
        }
    }
    names
}

/// The members of two arms (`compared`, `base`: their numbers), each with its stratum.
fn two_arm_members<'s>(
    arm_values: &[u16],
    strata_of: &[Option<u32>],
    (compared, base): (u16, u16),
    member: &dyn Fn(usize) -> Option<&'s Subject>,
) -> Vec<Member> {
    // Counted first: the list is made at its size, never grown (millions of members).
    let size = arm_values
        .iter()
        .filter(|&&k| k == compared || k == base)
        .count();
    let mut two = Vec::with_capacity(size);
    // Members are positions of a table of at most 1 GiB: fewer than 2^32.
    for ((i, index), &k) in (0..arm_values.len()).zip(0u32..).zip(arm_values) {
        if k != compared && k != base {
            continue;
        }
        if member(i).is_some() {
            let stratum = strata_of.get(i).copied().flatten();
            two.push(Member::new(index, k == compared, stratum));
        }
    }
    two
}

/// The stratum of a subject: its values of the strata columns, `None` when one is missing.
fn stratum_key<'s>(subject: &'s Subject, strata: &[String]) -> Option<Vec<&'s str>> {
    strata.iter().map(|c| subject.columns.get(c)).collect()
}

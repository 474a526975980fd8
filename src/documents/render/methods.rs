//! The Methods sentences a cohort's analysis states (what was actually computed), and the
//! context the templates get beside the results: each comparison with its two arms, the
//! most frequent adverse-event terms.

use serde::Serialize;

use crate::config::{Analysis, MedianCi, ProportionCi};
use crate::results::{CohortResults, DifferenceMethod, TestUsed};

/// The Methods sentences of arm comparisons (none without arms): the Cox model and its ties
/// method, the stratification factors, the log-rank test, the interval of differences and the
/// test of response rates, as the abstract reports them.
fn comparison_methods(a: &Analysis, c: &CohortResults) -> Vec<String> {
    let level = a.ci_percent();
    let mut sentences = Vec::new();
    let Some(first) = c.comparisons.first() else {
        return sentences;
    };
    let strata: Option<&Vec<String>> = c
        .comparisons
        .iter()
        .flat_map(|cmp| cmp.tte.values())
        .find_map(|t| t.stratified.as_ref().map(|s| &s.strata));
    // A stratification factor by its label in the config's strata, else its baseline label, in
    // prose ("ECOG performance status", "region"), else by its column.
    let names = |columns: &[String]| {
        let named: Vec<String> = columns
            .iter()
            .map(|column| {
                let label = c.factor_labels.get(column).or_else(|| {
                    c.baseline
                        .iter()
                        .find(|b| &b.column == column)
                        .map(|b| &b.label)
                });
                match label {
                    Some(label) => crate::documents::prose::in_sentence(label),
                    None => column.clone(),
                }
            })
            .collect();
        crate::documents::prose::and_list(&named)
    };
    if !first.tte.is_empty() {
        let ties = match a.cox_ties {
            crate::config::CoxTies::Efron => "Efron",
            crate::config::CoxTies::Breslow => "Breslow",
        };
        sentences.push(match strata {
            Some(strata) => format!(
                "Hazard ratios (HRs) with {level}% CIs were estimated with a Cox proportional hazards model stratified by {} ({ties} method for ties), and arms were compared with the log-rank test stratified likewise.",
                names(strata)
            ),
            None => format!(
                "Hazard ratios (HRs) with {level}% CIs were estimated with a Cox proportional hazards model ({ties} method for ties), and arms were compared with the log-rank test."
            ),
        });
    }
    if first.response.is_some() {
        // The interval the comparisons' differences were given with (with strata, the
        // stratified one whatever `diff_ci` says).
        let method = c
            .comparisons
            .iter()
            .filter_map(|cmp| cmp.response.as_ref())
            .flat_map(|r| [&r.orr.difference, &r.dcr.difference])
            .find_map(|d| d.as_ref().map(|d| d.method))
            .unwrap_or(match (strata.is_some(), a.diff_ci) {
                (true, _) => DifferenceMethod::MnStratified,
                (false, diff_ci) => DifferenceMethod::unstratified(diff_ci),
            });
        let interval = match method {
            DifferenceMethod::MnStratified => format!(
                "{} {level}% CIs with Cochran–Mantel–Haenszel weights",
                method.interval_name()
            ),
            _ => format!("{} {level}% CIs", method.interval_name()),
        };
        // The tests the comparisons used (`response_test`), as they were chosen.

        let used: std::collections::BTreeSet<TestUsed> = c
            .comparisons
            .iter()
            .filter_map(|cmp| cmp.response.as_ref())
            .flat_map(|r| [r.orr.test, r.dcr.test])
            .flatten()
            .collect();
        // R's chisq.test and mantelhaen.test correct for continuity by default; readout does
        // not, and says so.
        let cmh = |strata: &[String]| {
            format!(
                "the Cochran–Mantel–Haenszel test stratified by {}, without continuity correction",
                names(strata)
            )
        };
        let test = match (used.iter().copied().collect::<Vec<_>>().as_slice(), strata) {
            ([TestUsed::Cmh], Some(strata)) => cmh(strata),
            ([TestUsed::Fisher], _) => "Fisher's exact test".to_string(),
            ([TestUsed::Chisq, TestUsed::Fisher], _) => {
                "the chi-square test without continuity correction, or Fisher's exact test where \
                 an expected count was below 5"
                    .to_string()
            }
            _ => "the chi-square test without continuity correction".to_string(),
        };
        sentences.push(format!(
            "Differences in response rates are given with {interval} and tested with {test}."
        ));
    }
    // Duration of response is measured among responders: described per arm, or compared
    // only when asked for, and then not as a randomised comparison.
    let dor = c
        .arms
        .iter()
        .flat_map(|a| a.results.tte.keys())
        .find(|name| crate::model::endpoint::among_responders(name));
    if let Some(name) = dor {
        let label = c
            .arms
            .iter()
            .find_map(|a| a.results.tte.get(name))
            .map_or("duration of response", |t| t.label.as_str());
        let compared = c
            .comparisons
            .iter()
            .any(|cmp| cmp.tte.get(name).is_some_and(|t| t.among_responders));
        sentences.push(if compared {
            format!(
                "{} was compared between arms among responders, which is not a randomised comparison.",
                crate::documents::prose::sentence_case(label)
            )
        } else {
            format!(
                "{} is described per arm among responders and was not compared between arms.",
                crate::documents::prose::sentence_case(label)
            )
        });
    }
    sentences.push("All p-values are two-sided.".to_string());
    sentences
}

/// An arm compared with the reference, with both arms' results (for sentences such as
/// "median PFS 10.2 vs 5.1 months (HR 0.52 ...)").
#[derive(Debug, Clone, Serialize)]
pub struct ArmPair<'a> {
    /// The arm's results.
    pub arm: &'a crate::results::ArmResults,
    /// The reference arm's results.
    pub reference: &'a crate::results::ArmResults,
    /// The comparison.
    pub comparison: &'a crate::results::Comparison,
}

/// Each comparison of a cohort's results with its two arms.
pub fn arms_compared(c: &CohortResults) -> Vec<ArmPair<'_>> {
    let find = |name: &str| c.arms.iter().find(|a| a.arm == name);
    c.comparisons
        .iter()
        .filter_map(|comparison| {
            Some(ArmPair {
                arm: find(&comparison.arm)?,
                reference: find(&comparison.reference)?,
                comparison,
            })
        })
        .collect()
}

/// A term and its subject count, for sentences.
#[derive(Debug, Clone, Serialize)]
pub struct TermCount {
    /// Preferred term.
    pub term: String,
    /// Subjects.
    pub n: usize,
    /// Its place in the cohort's `safety.by_term`.
    #[serde(skip)]
    pub index: usize,
    /// The key of `by_term` that `n` is (`trae_any`).
    #[serde(skip)]
    pub count: &'static str,
    /// The terms it stands for: 1 for a term named, more for the terms tied at the end of a
    /// list too many to name ("25 other terms in 1 patient each"; `term` is then empty).
    pub tied: usize,
}

/// How many more terms tied at a list's end than its length are still named; more are
/// summarised in one entry ([`TermCount::tied`]).
const TIES_NAMED: usize = 2;

/// A category of the cohort's response criteria with its subject count, for sentences: the
/// templates read counts from here, never as `bor[code]` (a category's name may hold any
/// character, and Tera's index lookup reads a key as a path).
#[derive(Debug, Clone, Serialize)]
pub struct CategoryCount {
    /// The ADRS spelling, the key in `response.bor`.
    pub code: String,
    /// In words.
    pub name: String,
    /// Counted in ORR.
    pub responder: bool,
    /// Counted in DCR.
    pub control: bool,
    /// Subjects with this best overall response (`response.bor[code]`).
    pub n: usize,
}

/// The reported categories of the cohort's criteria, best first, with their counts (none for
/// RECIST 1.1 or a cohort without response).
pub fn category_counts(cohort: &CohortResults) -> Vec<CategoryCount> {
    let Some(response) = &cohort.response else {
        return Vec::new();
    };
    let Some(criteria) = &response.criteria else {
        return Vec::new();
    };
    criteria
        .categories
        .iter()
        .map(|k| CategoryCount {
            code: k.code.clone(),
            name: k.name.clone(),
            responder: k.responder,
            control: k.control,
            n: response.bor.get(&k.code).copied().unwrap_or(0),
        })
        .collect()
}

/// The `limit` most frequent terms by `count`, ties by name, leaving out zero counts; all
/// terms tied with the last one kept are kept too, so a sentence never picks arbitrarily.
pub fn top_terms(
    cohort: &CohortResults,
    limit: usize,
    key: &'static str,
    count: impl Fn(&crate::results::TermCounts) -> usize,
) -> Vec<TermCount> {
    let Some(safety) = &cohort.safety else {
        return Vec::new();
    };
    let mut terms: Vec<TermCount> = safety
        .by_term
        .iter()
        .enumerate()
        .map(|(index, t)| TermCount {
            term: t.term.clone(),
            n: count(t),
            index,
            count: key,
            tied: 1,
        })
        .filter(|t| t.n > 0)
        .collect();
    terms.sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.term.cmp(&b.term)));
    let Some(cut) = terms.get(limit.saturating_sub(1)).map(|last| last.n) else {
        return terms;
    };
    // The terms above the last place's count, then those tied with it: named while few,
    // else one entry for them all (60 terms of one patient each are not "most common").
    let above = terms.iter().take_while(|t| t.n > cut).count();
    let tied = terms[above..].iter().take_while(|t| t.n == cut).count();
    if above + tied <= limit + TIES_NAMED {
        terms.truncate(above + tied);
        return terms;
    }
    let first_tied = terms[above].index;
    terms.truncate(above);
    terms.push(TermCount {
        term: String::new(),
        n: cut,
        index: first_tied,
        count: key,
        tied,
    });
    terms
}

/// How responses were assessed and confirmed under criteria other than RECIST 1.1.
fn criteria_sentence(a: &Analysis) -> String {
    use crate::criteria::{Confirmation, Kind, Rule};
    let c = &a.criteria;
    let codes = |pick: &dyn Fn(&crate::criteria::Category) -> bool| {
        let list: Vec<&str> = c
            .categories
            .iter()
            .filter(|k| pick(k))
            .map(|k| k.code.as_str())
            .collect();
        match list.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            Some((last, _)) => last.to_string(),
            None => String::new(),
        }
    };
    let responses = codes(&|k| k.kind == Kind::Response);
    let stable = if c.stable_window {
        format!(
            " and stable disease an assessment at least {} days after treatment start",
            a.sd_min_days
        )
    } else {
        String::new()
    };
    if c.rule == Rule::AsGiven {
        return format!(
            "Best overall response was taken as recorded in ADRS by the sponsor, not re-derived. \
             The {} counted {}.",
            c.response_rate,
            codes(&|k| k.responder)
        );
    }
    let how = match (c.rule, a.confirmed) {
        (Rule::Irecist, confirmed) => format!(
            "{}{stable}; iUPD was confirmed by iCPD at a later assessment and reset by a later \
             iSD, iPR or iCR, and progression was dated at the first iUPD of a confirmed run",
            if confirmed {
                format!(
                    "{responses} required confirmation by a repeat assessment at least {} days later",
                    a.confirmation_days
                )
            } else {
                "responses were not confirmed".to_string()
            }
        ),
        (Rule::Generic(_), false) | (Rule::Generic(Confirmation::None), _) => {
            format!("responses did not require confirmation{stable}")
        }
        (Rule::Generic(Confirmation::Interval), true) => format!(
            "{responses} required confirmation by a repeat assessment at the same level or better \
             at least {} days later{stable}",
            a.confirmation_days
        ),
        (Rule::Generic(Confirmation::Consecutive), true) => format!(
            "each response category ({responses}) required two consecutive assessments at that \
             level or better{stable}"
        ),
        (Rule::Recist | Rule::AsGiven, _) => String::new(),
    };
    format!(
        "Response was assessed per {}; {how}. The {} counted {}.",
        c.name,
        c.response_rate,
        codes(&|k| k.responder)
    )
}

/// The statistics sentence of the Methods section, stating the conventions actually used.
pub fn methods_statistics(a: &Analysis, c: &CohortResults) -> String {
    let level = a.ci_percent();
    let mut sentences = Vec::new();
    if c.response.is_some() && !a.criteria.is_recist() {
        sentences.push(criteria_sentence(a));
    } else if c.response.is_some() {
        sentences.push(if a.confirmed {
            format!(
                "Tumor response was assessed per RECIST 1.1; complete and partial responses required confirmation by a repeat assessment at least {} days later, and stable disease required an assessment at least {} days after treatment start.",
                a.confirmation_days, a.sd_min_days
            )
        } else {
            format!(
                "Tumor response was assessed per RECIST 1.1 (unconfirmed responses); stable disease required an assessment at least {} days after treatment start.",
                a.sd_min_days
            )
        });
    }
    if !c.tte.is_empty() {
        let median = match a.median_ci {
            MedianCi::Collett => {
                format!("{level}% CIs of medians as estimate ± z·SE with Collett's standard error")
            }
            other => format!(
                "{level}% CIs of medians by the Brookmeyer–Crowley method with {} transformation",
                other.transform().map(|t| t.name()).unwrap_or("log-log")
            ),
        };
        let followup = match &c.followup {
            Some(f) => format!(
                "; median follow-up was estimated by the reverse Kaplan–Meier method for {}",
                f.label
            ),
            None => String::new(),
        };
        sentences.push(format!(
            "Time-to-event endpoints were estimated by the Kaplan–Meier method, with {median}{followup}."
        ));
        // The endpoints (in words, "A, B and C") a convention applies to.
        let labels = |applies: fn(&crate::results::TteResults) -> bool| {
            let named: Vec<String> = c
                .tte
                .values()
                .filter(|t| applies(t))
                .map(|t| t.label.clone())
                .collect();
            (!named.is_empty()).then(|| crate::documents::prose::and_list(&named))
        };
        // The origin of derived times, when it is not the first dose (the single-arm
        // convention): a randomised analysis says it measures from randomisation.
        if !matches!(a.origin, crate::config::Origin::FirstDose) {
            let named: Vec<String> = c
                .tte
                .iter()
                .filter(|(e, t)| t.source == "derived" && e.as_str() != crate::model::endpoint::DOR)
                .map(|(_, t)| t.label.clone())
                .collect();
            if !named.is_empty() {
                sentences.push(format!(
                    "{} {} measured from {} ({}).",
                    crate::documents::prose::sentence_case(&crate::documents::prose::and_list(
                        &named
                    )),
                    if named.len() == 1 { "was" } else { "were" },
                    a.origin.words(),
                    a.origin.column()
                ));
            }
        }
        if let Some(named) = labels(|t| t.censored_new_therapy.is_some()) {
            sentences.push(format!(
                "For {named}, patients who started new anticancer therapy before progression or death were censored at their last adequate assessment on or before its start."
            ));
        }
        if let Some(named) = labels(|t| t.cif.is_some()) {
            sentences.push(format!(
                "For {named}, with competing events, the cumulative incidence was estimated by the Aalen–Johansen method ({level}% CIs from the infinitesimal-jackknife standard error on the log scale){}.",
                if c.comparisons.is_empty() {
                    ""
                } else {
                    ", compared between arms by Gray's test, with the subdistribution hazard ratio of a Fine–Gray model"
                }
            ));
        }
    }
    if c.response.is_some() {
        let proportion = match a.proportion_ci {
            ProportionCi::ClopperPearson => "exact Clopper–Pearson",
            ProportionCi::Wilson => "Wilson score",
        };
        sentences.push(format!("Proportions have {proportion} {level}% CIs."));
    }
    sentences.extend(comparison_methods(a, c));
    if let Some(s) = &c.safety {
        sentences.push(
            match s.grading {
                crate::results::AeGrading::Ctcae => "Adverse events were graded per CTCAE.",
                crate::results::AeGrading::Severity => {
                    "Adverse events were graded by severity (mild, moderate, severe), not per CTCAE."
                }
            }
            .to_string(),
        );
    }
    sentences.join(" ")
}

/// The statistics of [`methods_statistics`] in one sentence, for an abstract over its
/// conference's limit (the report keeps the full text): the criteria, the survival and
/// comparison methods and the tests, by name only.
pub fn methods_statistics_short(a: &Analysis, c: &CohortResults) -> String {
    let level = a.ci_percent();
    let mut parts = Vec::new();
    if c.response.is_some() {
        let confirmed = if a.confirmed && a.criteria.confirms() {
            "confirmed "
        } else {
            ""
        };
        parts.push(format!("{confirmed}response per {}", a.criteria.name));
    }
    if !c.tte.is_empty() {
        parts.push(format!(
            "Kaplan–Meier medians with {level}% CIs{}",
            match a.median_ci {
                MedianCi::Collett => " (Collett)".to_string(),
                other => format!(
                    " (Brookmeyer–Crowley, {})",
                    other.transform().map(|t| t.name()).unwrap_or("log-log")
                ),
            }
        ));
    }
    if let Some(first) = c.comparisons.first() {
        let stratified = first.tte.values().any(|t| t.stratified.is_some());
        let strat = if stratified { "stratified " } else { "" };
        if !first.tte.is_empty() {
            parts.push(format!("{strat}Cox HRs and {strat}log-rank tests"));
        }
        if let Some(test) = first.response.as_ref().and_then(|r| r.orr.test) {
            parts.push(format!(
                "response rates compared by the {} test",
                test.short_name()
            ));
        }
        parts.push("two-sided p-values".to_string());
    }
    if c.safety.is_some() {
        parts.push(match c.safety.as_ref().map(|s| s.grading) {
            Some(crate::results::AeGrading::Severity) => "AEs graded by severity".to_string(),
            _ => "AEs graded per CTCAE".to_string(),
        });
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "{}.",
        crate::documents::prose::sentence_case(&parts.join("; "))
    )
}

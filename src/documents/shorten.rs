//! What the abstract shows (`show` in the templates' context) and how it is shortened to fit
//! the conference limit: blocks pinned or dropped by `output.abstract`, then, while over the
//! limit, the steps of [`Step::ORDER`], each leaving out one kind of content, never a primary
//! endpoint's estimate or the safety headline (docs/CONFERENCES.md, "Shortening").

use indexmap::IndexMap;
use serde::Serialize;

use crate::config::{AbstractBlocks, Analysis, Role};
use crate::results::CohortResults;

/// How much of the baseline the abstract gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BaselineShown {
    /// Every baseline item.
    Full,
    /// The first [`BASELINE_LINE`] items.
    Line,
    /// None.
    None,
}

/// The baseline items of the one-line form.
pub const BASELINE_LINE: usize = 2;

/// One endpoint as the abstract shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndpointShown {
    /// Its role (`analysis.endpoints`, else the default of [`Analysis::role_of`]).
    pub role: Role,
    /// Whether its sentence is printed.
    pub shown: bool,
    /// Whether its estimates carry their CIs (a comparison's HR or difference always does).
    pub ci: bool,
    /// The endpoint in words, with its abbreviation where it has one ("progression-free
    /// survival (PFS)"), as the Methods name it.
    pub words: String,
}

/// What the abstract prints: the templates read it as `show`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    /// The Methods' statistics in one sentence.
    pub methods_short: bool,
    pub baseline: BaselineShown,
    pub enrolment: bool,
    pub followup: bool,
    pub landmarks: bool,
    pub rmst: bool,
    pub rates: bool,
    pub safety_detail: bool,
    pub special_interest: bool,
    pub funding: bool,
    /// Each endpoint of the cohort (its time-to-event endpoints, `ORR`, `DCR`) by name.
    pub endpoints: IndexMap<String, EndpointShown>,
    /// The primary endpoints' names, in the cohort's order.
    pub primary: Vec<String>,
    /// The secondary endpoints' names.
    pub secondary: Vec<String>,
    /// The exploratory endpoints' names.
    pub exploratory: Vec<String>,
}

impl Shown {
    /// Everything the cohort has, less what `blocks.exclude` drops; RMST when
    /// `analysis.rmst_in_abstract` or `blocks.include` asks for it.
    pub fn new(results: &CohortResults, analysis: &Analysis, blocks: &AbstractBlocks) -> Shown {
        let with_arms = !results.arms.is_empty();
        let mut names: Vec<String> = Vec::new();
        let first = results.arms.first();
        let tte = first.map_or(&results.tte, |a| &a.results.tte);
        if results.response.is_some() {
            names.push("ORR".into());
        }
        names.extend(tte.keys().cloned());
        if results.response.is_some() {
            names.push("DCR".into());
        }
        let excluded = |name: &str| blocks.exclude.iter().any(|b| b == name);
        let endpoints: IndexMap<String, EndpointShown> = names
            .iter()
            .map(|name| {
                let shown = !excluded(name);
                let role = analysis.role_of(name, with_arms);
                let words = match name.as_str() {
                    "ORR" => "objective response rate (ORR)".to_string(),
                    "DCR" => "disease control rate (DCR)".to_string(),
                    _ => match (
                        crate::model::endpoint::words(name),
                        crate::model::endpoint::abbreviation(name),
                    ) {
                        (Some(w), Some(a)) => format!("{w} ({a})"),
                        _ => tte.get(name).map_or(name.clone(), |t| t.label.clone()),
                    },
                };
                let e = EndpointShown {
                    role,
                    shown,
                    ci: true,
                    words,
                };
                (name.clone(), e)
            })
            .collect();
        let of = |role: Role| -> Vec<String> {
            endpoints
                .iter()
                .filter(|(_, e)| e.role == role)
                .map(|(n, _)| n.clone())
                .collect()
        };
        Shown {
            methods_short: excluded("methods"),
            baseline: if excluded("baseline") {
                BaselineShown::None
            } else {
                BaselineShown::Full
            },
            enrolment: !excluded("enrolment"),
            followup: !excluded("followup"),
            landmarks: !excluded("landmarks"),
            rmst: (analysis.rmst_in_abstract || blocks.include.iter().any(|b| b == "rmst"))
                && !excluded("rmst"),
            rates: !excluded("rates"),
            safety_detail: !excluded("safety_detail"),
            special_interest: !excluded("special_interest"),
            funding: !excluded("funding"),
            primary: of(Role::Primary),
            secondary: of(Role::Secondary),
            exploratory: of(Role::Exploratory),
            endpoints,
        }
    }
}

/// One way of shortening, in the fixed order of [`Step::ORDER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    MethodsShort,
    BaselineLine,
    Landmarks,
    Enrolment,
    SecondaryCi,
    Exploratory,
    SafetyDetail,
    BaselineNone,
    Secondary,
    PrimaryMedianCi,
}

impl Step {
    /// The order the steps are taken in while the abstract is over its limit.
    pub const ORDER: [Step; 10] = [
        Step::MethodsShort,
        Step::BaselineLine,
        Step::Landmarks,
        Step::Enrolment,
        Step::SecondaryCi,
        Step::Exploratory,
        Step::SafetyDetail,
        Step::BaselineNone,
        Step::Secondary,
        Step::PrimaryMedianCi,
    ];

    /// What the step leaves out, as the note and results.json say it.
    pub fn describe(self) -> &'static str {
        match self {
            Step::MethodsShort => "the Methods' statistics in full (one sentence kept)",
            Step::BaselineLine => "the baseline beyond its first two characteristics",
            Step::Landmarks => "the landmark rates",
            Step::Enrolment => "the enrolment dates and centres",
            Step::SecondaryCi => "the secondary endpoints' confidence intervals",
            Step::Exploratory => {
                "the exploratory endpoints, RMST, other response rates and AEs of special interest"
            }
            Step::SafetyDetail => "the safety beyond its headline",
            Step::BaselineNone => "the baseline characteristics",
            Step::Secondary => "the secondary time-to-event endpoints",
            Step::PrimaryMedianCi => "the primary endpoints' median confidence intervals",
        }
    }

    /// Applies the step to `shown`, sparing what `include` pins; whether anything changed.
    pub fn apply(self, shown: &mut Shown, include: &[String]) -> bool {
        let pinned = |name: &str| include.iter().any(|b| b == name);
        let before = shown.clone();
        let off = |flag: &mut bool, name: &str| {
            if !pinned(name) {
                *flag = false;
            }
        };
        match self {
            Step::MethodsShort if !pinned("methods") => shown.methods_short = true,
            Step::BaselineLine if !pinned("baseline") && shown.baseline == BaselineShown::Full => {
                shown.baseline = BaselineShown::Line
            }
            Step::BaselineNone if !pinned("baseline") => shown.baseline = BaselineShown::None,
            Step::Landmarks => off(&mut shown.landmarks, "landmarks"),
            Step::Enrolment => off(&mut shown.enrolment, "enrolment"),
            Step::SafetyDetail => off(&mut shown.safety_detail, "safety_detail"),
            Step::Exploratory => {
                off(&mut shown.rmst, "rmst");
                off(&mut shown.rates, "rates");
                off(&mut shown.special_interest, "special_interest");
                for (name, e) in &mut shown.endpoints {
                    if e.role == Role::Exploratory && !pinned(name) {
                        e.shown = false;
                    }
                }
            }
            Step::SecondaryCi | Step::Secondary | Step::PrimaryMedianCi => {
                for (name, e) in &mut shown.endpoints {
                    if pinned(name) {
                        continue;
                    }
                    match (self, e.role) {
                        (Step::SecondaryCi, Role::Secondary | Role::Exploratory) => e.ci = false,
                        (Step::PrimaryMedianCi, Role::Primary) => e.ci = false,
                        // The response sentence stays: ORR is one sentence, DCR part of it.
                        (Step::Secondary, Role::Secondary)
                            if !matches!(name.as_str(), "ORR" | "DCR") =>
                        {
                            e.shown = false
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        *shown != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown() -> Shown {
        let e = |role| EndpointShown {
            role,
            shown: true,
            ci: true,
            words: String::new(),
        };
        Shown {
            methods_short: false,
            baseline: BaselineShown::Full,
            enrolment: true,
            followup: true,
            landmarks: true,
            rmst: true,
            rates: true,
            safety_detail: true,
            special_interest: true,
            funding: true,
            endpoints: [
                ("ORR".to_string(), e(Role::Secondary)),
                ("PFS".to_string(), e(Role::Primary)),
                ("OS".to_string(), e(Role::Primary)),
                ("DOR".to_string(), e(Role::Secondary)),
                ("TTCNSP".to_string(), e(Role::Exploratory)),
            ]
            .into_iter()
            .collect(),
            primary: vec!["PFS".into(), "OS".into()],
            secondary: vec!["ORR".into(), "DOR".into()],
            exploratory: vec!["TTCNSP".into()],
        }
    }

    #[test]
    fn every_step_keeps_the_primary_estimates_and_the_response() {
        let mut s = shown();
        for step in Step::ORDER {
            assert!(step.apply(&mut s, &[]), "{step:?} changed nothing");
        }
        assert_eq!(s.baseline, BaselineShown::None);
        assert!(!s.landmarks && !s.enrolment && !s.rmst && !s.safety_detail);
        // What stays: every primary endpoint and ORR, shown; follow-up and funding.
        for name in ["PFS", "OS", "ORR"] {
            assert!(s.endpoints[name].shown, "{name}");
        }
        assert!(!s.endpoints["DOR"].shown && !s.endpoints["TTCNSP"].shown);
        assert!(!s.endpoints["ORR"].ci && !s.endpoints["PFS"].ci);
        assert!(s.followup && s.funding);
        // A second pass changes nothing.
        assert!(Step::ORDER.iter().all(|step| !step.apply(&mut s, &[])));
    }

    #[test]
    fn pinned_blocks_survive_shortening() {
        let mut s = shown();
        let include = ["baseline".to_string(), "DOR".to_string(), "rmst".into()];
        for step in Step::ORDER {
            step.apply(&mut s, &include);
        }
        assert_eq!(s.baseline, BaselineShown::Full);
        assert!(s.rmst && s.endpoints["DOR"].shown && s.endpoints["DOR"].ci);
        assert!(!s.endpoints["TTCNSP"].shown);
    }
}

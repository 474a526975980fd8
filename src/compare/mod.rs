//! Each arm of a randomised cohort compared with the reference arm, on those two arms'
//! subjects (as study reports compare arms pairwise): for every time-to-event endpoint the
//! Cox hazard ratio and the log-rank test, stratified too when the cohort has strata, the
//! hazard ratio within each subgroup and each subgroup column's interaction test (`tte.rs`),
//! and the RMST difference and ratio at the arms' common τ; for ORR and DCR the difference of
//! proportions, the odds ratio, and the test `response_test` names (`response.rs`). The
//! cohort stage hands the members down (docs/ARCHITECTURE.md); the numbers go to
//! `results.json` (docs/OUTPUTS.md).

use crate::diagnostic::Diagnostic;
use indexmap::IndexMap;

use crate::config::{Analysis, CohortConfig, CoxTies};
use crate::endpoints::CohortAnalysis;
use crate::error::{Error, Result};
use crate::model::Subject;
use crate::results::{Comparison, Contrast, RmstComparison, RmstResult, TteComparison};
use crate::stats::{self, Ties};

mod response;
pub mod safety;
mod tte;

/// A member's place in a comparison: 8 bytes (a comparison holds millions); its subject is
/// found through [`TwoArms::subject`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Position in the cohort's members.
    pub index: u32,
    /// Bit 0: of the arm compared (else of the reference); above it, the stratum's number
    /// plus one (0: no stratum).
    arm_and_stratum: u32,
}

/// The members of two arms compared, and the cohort's subjects they are found in.
pub struct TwoArms<'s> {
    /// The members, in the cohort's order.
    pub members: Vec<Member>,
    /// The cohort's members: positions in `subjects`.
    cohort: &'s [u32],
    subjects: &'s [Subject],
}

impl<'s> TwoArms<'s> {
    /// `members` of a cohort whose members are `cohort` (positions in `subjects`).
    pub fn new(members: Vec<Member>, cohort: &'s [u32], subjects: &'s [Subject]) -> Self {
        TwoArms {
            members,
            cohort,
            subjects,
        }
    }

    /// A member's subject.
    pub fn subject(&self, m: &Member) -> Option<&'s Subject> {
        self.cohort
            .get(m.index as usize)
            .and_then(|&at| self.subjects.get(at as usize))
    }
}

impl Member {
    /// A member of the arm compared (`in_arm`) or of the reference, in `stratum` if it has a
    /// value of every strata column. Strata are numbered below 2^31 − 1 (a table of at most
    /// 1 GiB has fewer rows).
    pub fn new(index: u32, in_arm: bool, stratum: Option<u32>) -> Self {
        let stratum = stratum.map_or(0, |k| k.saturating_add(1).min(u32::MAX >> 1));
        Member {
            index,
            arm_and_stratum: stratum << 1 | u32::from(in_arm),
        }
    }

    /// Whether it is of the arm compared (else of the reference).
    pub fn in_arm(&self) -> bool {
        self.arm_and_stratum & 1 == 1
    }

    /// Its stratum (by number), if it has a value of every strata column.
    pub fn stratum(&self) -> Option<u32> {
        (self.arm_and_stratum >> 1).checked_sub(1)
    }
}

/// The two arms of a comparison by name, and the cohort's strata by name.
pub struct PairNames<'a> {
    /// The arm compared.
    pub arm: &'a str,
    /// The reference arm.
    pub reference: &'a str,
    /// Each stratum's name (`STRAT = A`, `ECOG = 1, REGION = Asia`) at its number
    /// ([`Member::stratum`]), for warnings.
    pub strata: &'a [String],
}

/// Compares the arm `names.arm` with `names.reference` on their members `two` (from the
/// cohort's analysis `pooled`), with the cohort's strata and subgroups; what the reader should
/// know (an estimate left out) goes to `warnings`.
#[allow(clippy::too_many_arguments)]
pub fn compare_pair(
    two: &TwoArms<'_>,
    names: &PairNames<'_>,
    pooled: &CohortAnalysis<'_>,
    arm_rmst: &dyn Fn(&str, &str) -> Option<RmstResult>,
    cohort: &CohortConfig,
    settings: &Analysis,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Comparison> {
    let (arm, reference) = (names.arm, names.reference);
    let label = format!("{arm} vs {reference}");
    let mut tte = IndexMap::new();
    for (e, endpoint) in settings.tte_params.keys().enumerate() {
        // Duration of response is described per arm, not compared, unless asked for.
        if crate::model::endpoint::among_responders(endpoint) && !settings.compare_dor {
            continue;
        }
        let Some(column) = pooled.derived_tte.get(e) else {
            continue;
        };
        let time_of = |m: &Member| column.get(m.index as usize).and_then(|v| v.get());
        if let Some(compared) = crate::profile::timing::stage("    tte comparison", || {
            tte::compare_tte(
                two,
                &time_of,
                cohort,
                settings,
                &label,
                endpoint,
                names.strata,
                pooled.competing.get(endpoint),
                warnings,
            )
        })? {
            let rmst = match (arm_rmst(arm, endpoint), arm_rmst(reference, endpoint)) {
                (Some(x), Some(y)) => Some(rmst_contrast(x, y, settings.ci_level).map_err(
                    statistics_error(cohort, format!("{label}: {endpoint} RMST comparison")),
                )?),
                _ => None,
            };
            tte.insert(endpoint.clone(), TteComparison { rmst, ..compared });
        }
    }
    let response = if pooled.derived.is_empty() {
        None
    } else {
        Some(response::compare_response(
            two,
            pooled,
            cohort,
            settings,
            (&label, names.strata),
            warnings,
        )?)
    };
    Ok(Comparison {
        arm: arm.to_string(),
        reference: reference.to_string(),
        tte,
        response,
        safety: None,
    })
}

/// The arm's RMST against the reference's at their common τ: the difference and the ratio.
fn rmst_contrast(
    arm: RmstResult,
    reference: RmstResult,
    level: f64,
) -> std::result::Result<RmstComparison, stats::StatsError> {
    let of = |r: RmstResult| stats::Rmst {
        tau: r.tau,
        estimate: r.estimate,
        se: r.se,
    };
    let contrast = stats::rmst_contrast(&of(arm), &of(reference), level)?;
    let plain = |c: stats::Contrast| Contrast {
        estimate: c.estimate,
        lower: c.lower,
        upper: c.upper,
        p: c.p,
    };
    Ok(RmstComparison {
        tau: arm.tau,
        difference: plain(contrast.difference),
        ratio: contrast.ratio.map(plain),
    })
}

fn ties(settings: &Analysis) -> Ties {
    match settings.cox_ties {
        CoxTies::Efron => Ties::Efron,
        CoxTies::Breslow => Ties::Breslow,
    }
}

fn statistics_error(
    cohort: &CohortConfig,
    what: String,
) -> impl Fn(stats::StatsError) -> Error + '_ {
    move |source| Error::Statistics {
        cohort: cohort.id.clone(),
        what: what.clone(),
        source,
    }
}

/// Strata named in one warning at most; the rest are counted.
const NAMED_STRATA: usize = 10;

/// The strata `numbers` by name, separated by semicolons (a name may hold commas); past
/// [`NAMED_STRATA`], how many more.
pub(super) fn strata_named(numbers: &[u32], names: &[String]) -> String {
    let mut listed: Vec<String> = numbers
        .iter()
        .take(NAMED_STRATA)
        .map(|&k| {
            names
                .get(k as usize)
                .cloned()
                .unwrap_or_else(|| format!("stratum {k}"))
        })
        .collect();
    if numbers.len() > NAMED_STRATA {
        listed.push(format!("{} more", numbers.len() - NAMED_STRATA));
    }
    listed.join("; ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_member_is_eight_bytes_and_keeps_its_arm_and_stratum() {
        assert_eq!(std::mem::size_of::<super::Member>(), 8);
        for (in_arm, stratum) in [(true, None), (false, Some(0)), (true, Some(7))] {
            let m = super::Member::new(3, in_arm, stratum);
            assert_eq!((m.index, m.in_arm(), m.stratum()), (3, in_arm, stratum));
        }
    }
}

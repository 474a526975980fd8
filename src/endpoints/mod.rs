//! Per-cohort endpoints: populations, baseline, best response with ORR/DCR, time-to-event
//! summaries, follow-up and safety (`results.json`, `docs/OUTPUTS.md`). Pure: takes the cut tables and
//! the per-subject derivations, returns numbers; no I/O, no formatting.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use indexmap::IndexMap;

use crate::config::{Analysis, BaselineItem, BaselineKind, CohortConfig, ProportionCi};
use crate::derive::{DerivedSubject, TteRule};
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::error::{Error, Result};
use crate::format::{first_names, NAMES_LISTED};
use crate::load::StudyData;
use crate::model::endpoint;
use crate::model::{AdverseEvent, Date, Status, Subject, TteRecord, TteTable};
use crate::results::{
    BaselineSummary, CohortResults, ContinuousSummary, Enrolment, Estimate, FollowUp, LandmarkRate,
    LevelCount, Populations, Proportion, ResponseResults, TteResults,
};
use crate::stats::{self, KaplanMeier};

pub mod beyond;
pub mod disposition;
mod safety;
pub mod soc;

use safety::safety_results;

/// Everything computed for one cohort: the serialised results and what the figures need.
#[derive(Debug, Clone)]
pub struct CohortAnalysis<'a> {
    /// The `results.json` entry.
    pub results: CohortResults,
    /// The cohort's subjects (positions in the cut study's subjects), one row each of
    /// `derived/<cohort>.csv`.
    pub members: Members<'a>,
    /// Derivations per member, same order as `members` (empty without ADRS).
    pub derived: Vec<DerivedSubject>,
    /// Per endpoint of `tte_params`, in order, per member: its time and CNSR flag, if any
    /// (column-wise: one vector per endpoint, not one per subject; 8 bytes a member).
    pub derived_tte: Vec<Vec<TteValue>>,
    /// Kaplan–Meier fits per endpoint, in days (for figures).
    pub km: IndexMap<String, KaplanMeier>,
    /// Per endpoint with competing events: each efficacy member's time (days) and status
    /// (0 censored, 1 event, 2 competing), for the arms' tests and the incidence figure.
    pub competing: IndexMap<String, CompetingData>,
    /// Per-subject tumour data for waterfall/spider/swimmer figures.
    pub tumour: Vec<SubjectTumour>,
    /// Whether the study has ADTR (tumour measurements): without it no waterfall or spider
    /// plot is attempted.
    pub has_adtr: bool,
}

/// Times (days) and statuses of an endpoint with competing events ([`stats::competing`]),
/// and their Aalen–Johansen fit.
#[derive(Debug, Clone)]
pub struct CompetingData {
    /// Each subject's time, in days.
    pub days: Vec<f64>,
    /// 0 censored, 1 the event, 2 a competing event.
    pub status: Vec<u8>,
    /// Each subject's position among the cohort's (or arm's) members.
    pub members: Vec<u32>,
    /// The cumulative incidence of the event.
    pub fit: stats::CumulativeIncidence,
}

impl CompetingData {
    /// The subjects' times and statuses (the subjects at `members`), fitted.
    pub fn new(
        days: Vec<f64>,
        status: Vec<u8>,
        members: Vec<u32>,
    ) -> std::result::Result<CompetingData, stats::StatsError> {
        let fit = stats::aalen_johansen(&days, &status)?;
        Ok(CompetingData {
            days,
            status,
            members,
            fit,
        })
    }

    /// Each member's place in `days` and `status` (`u32::MAX`: none), by member position.
    pub fn slots(&self) -> Vec<u32> {
        let n = self.members.iter().max().map_or(0, |&m| m as usize + 1);
        let mut slots = vec![u32::MAX; n];
        for (k, &m) in (0u32..).zip(&self.members) {
            if let Some(slot) = slots.get_mut(m as usize) {
                *slot = k;
            }
        }
        slots
    }
}

/// A cohort's subjects as positions in the study's subjects, in ADSL order: `u32` (a data file
/// is at most 1 GiB, so its rows are fewer), borrowed from the cut-off's index when the cohort
/// is one of its lists (no copy per cohort).
pub type Members<'a> = std::borrow::Cow<'a, [u32]>;

/// The subjects of a cohort, found through its members as they are needed (no list of
/// references, 8 bytes a member).
#[derive(Clone, Copy)]
struct CohortSubjects<'a> {
    all: &'a [Subject],
    members: &'a [u32],
}

impl<'a> CohortSubjects<'a> {
    /// The subjects, in member order (members are positions of `all`).
    fn iter(self) -> impl Iterator<Item = &'a Subject> + Clone {
        let all = self.all;
        self.members
            .iter()
            .filter_map(move |&i| all.get(i as usize))
    }

    fn len(self) -> usize {
        self.members.len()
    }

    /// The subject at member position `i`.
    fn get(self, i: usize) -> Option<&'a Subject> {
        self.members
            .get(i)
            .and_then(|&global| self.all.get(global as usize))
    }

    fn is_empty(self) -> bool {
        self.members.is_empty()
    }
}

/// A subject's value of a time-to-event endpoint in 8 bytes (a cohort of millions holds one
/// per subject and endpoint): the time in the analysis unit, its sign bit set when censored
/// (CNSR ≠ 0); NaN when the subject has no value. A time of −0 reads as 0.
#[derive(Debug, Clone, Copy)]
pub struct TteValue(f64);

impl TteValue {
    /// No value.
    pub const NONE: TteValue = TteValue(f64::NAN);

    /// A time (≥ 0), censored or not.
    pub fn new(time: f64, censored: bool) -> TteValue {
        TteValue(time.abs().copysign(if censored { -1.0 } else { 1.0 }))
    }

    /// (time, censored), if the subject has a value.
    pub fn get(self) -> Option<(f64, bool)> {
        (!self.0.is_nan()).then(|| (self.0.abs(), self.0.is_sign_negative()))
    }
}

/// ADTTE records by parameter, then by subject position; built once per cut-off. Per
/// parameter, each subject's record is held as its position in the table (4 bytes per
/// subject; `u32::MAX` for none).
#[derive(Debug)]
pub struct TteIndex<'a> {
    table: &'a TteTable,
    by_param: Vec<Vec<u32>>,
}

/// A subject without a record of the parameter, in [`TteIndex`].
const NO_RECORD: u32 = u32::MAX;

/// The records of one parameter, by subject position.
#[derive(Debug, Clone, Copy)]
pub struct TteColumn<'a> {
    records: &'a [TteRecord],
    slots: &'a [u32],
}

impl<'a> TteIndex<'a> {
    /// Indexes the records of `table` by parameter and subject position (`n_subjects`
    /// positions).
    pub fn new(table: &'a TteTable, n_subjects: usize) -> TteIndex<'a> {
        let mut by_param: Vec<Vec<u32>> = vec![Vec::new(); table.params.len()];
        for (i, r) in table.records.iter().enumerate() {
            // Records are fewer than 2^32 (their lines are `u32`).
            let (Some(column), Ok(i)) = (by_param.get_mut(r.param as usize), u32::try_from(i))
            else {
                continue;
            };
            if column.is_empty() {
                *column = vec![NO_RECORD; n_subjects];
            }
            if let Some(slot) = column.get_mut(r.position()) {
                *slot = i;
            }
        }
        TteIndex { table, by_param }
    }

    /// The records of `paramcd`, if the table names it.
    pub fn param(&self, paramcd: &str) -> Option<TteColumn<'_>> {
        let slots = self.by_param.get(self.table.param(paramcd)? as usize)?;
        Some(TteColumn {
            records: &self.table.records,
            slots,
        })
    }
}

impl<'a> TteColumn<'a> {
    /// The record of the subject at `position`, if it has one.
    pub fn get(&self, position: usize) -> Option<&'a TteRecord> {
        let i = *self.slots.get(position)?;
        self.records.get(usize::try_from(i).ok()?)
    }
}

/// Tumour-burden and timeline data of one subject, for figures (times in the analysis unit).
#[derive(Debug, Clone)]
pub struct SubjectTumour {
    /// Subject.
    pub usubjid: crate::model::SubjectId,
    /// Best overall response, as the criteria report it.
    pub response: crate::model::ResponseCategory,
    /// (time, percentage change from baseline) of each post-baseline measurement.
    pub pchg: Vec<(f64, f64)>,
    /// End of treatment or follow-up.
    pub end: f64,
    /// Still on treatment at the cut-off.
    pub ongoing: bool,
    /// First CR/PR.
    pub first_response: Option<f64>,
    /// Progression.
    pub progression: Option<f64>,
    /// Death.
    pub death: Option<f64>,
}

/// Inputs of [`analyse_cohort`]; the members (`'m`) go on into the analysis.
pub struct CohortInput<'a, 'm> {
    /// The cohort's config entry.
    pub cohort: &'a CohortConfig,
    /// Resolved analysis settings.
    pub analysis: &'a Analysis,
    /// The cut-off used.
    pub cutoff: Option<Date>,
    /// The study tables, already cut.
    pub data: &'a StudyData,
    /// Subjects of the cohort (positions in `data.subjects`).
    pub members: Members<'m>,
    /// Derivations per member, same order as `members` (empty without ADRS).
    pub derived: Vec<DerivedSubject>,
    /// ADTTE by (PARAMCD, USUBJID), when ADTTE is given.
    pub tte_index: Option<&'a TteIndex<'a>>,
    /// The rows `data.where` kept and dropped, for a cohort's entry (none for an arm's).
    pub row_filters: Vec<crate::results::RowsKept>,
}

fn ci_err(cohort: &str, what: &str, source: crate::stats::StatsError) -> Error {
    Error::Statistics {
        cohort: cohort.to_string(),
        what: what.to_string(),
        source,
    }
}

/// How many per-subject response-data warnings a cohort lists before it only counts them.
const BOR_WARNINGS_LISTED: usize = 20;

/// What a cohort's time-to-event endpoints give: per endpoint its results, its Kaplan–Meier
/// fit (days), each member's value, and with competing events its data.
struct TimeToEventPart {
    tte: IndexMap<String, TteResults>,
    km: IndexMap<String, KaplanMeier>,
    values: Vec<Vec<TteValue>>,
    competing: IndexMap<String, CompetingData>,
}

/// The time-to-event endpoints of a cohort whose efficacy members are `efficacy` (positions
/// in its members): ADTTE as given, or the derivations.
fn time_to_event(
    input: &CohortInput<'_, '_>,
    subjects: CohortSubjects<'_>,
    efficacy: &[u32],
    warnings: &mut Vec<Diagnostic>,
) -> Result<TimeToEventPart> {
    let a = input.analysis;
    let id = input.cohort.id.as_str();
    // Time-to-event: ADTTE as given, or the derivations. `values[e][i]` is subject i's
    // (time in the analysis unit, CNSR) for endpoint e.
    let mut tte = IndexMap::new();
    let mut km_fits = IndexMap::new();
    let mut values: Vec<Vec<TteValue>> = Vec::with_capacity(a.tte_params.len());
    let mut censored_missed: HashMap<String, usize> = HashMap::new();
    let mut censored_new_therapy: HashMap<String, usize> = HashMap::new();
    let mut competing = IndexMap::new();
    if let (Some(column), true) = (&a.new_therapy, input.data.has_adtte) {
        warnings.push(
            Diagnostic::warning(
                Kind::RuleNotApplied,
                format!(
                    "`analysis.censor_at_new_therapy` ({column}) changes nothing: the times come \
                     from ADTTE, whose censoring holds"
                ),
            )
            .hint("derive the ADTTE with the rule, or leave the key out"),
        );
    }
    for (endpoint, paramcd) in &a.tte_params {
        let cr = a
            .tte_competing
            .contains_key(endpoint)
            .then(|| (Vec::new(), Vec::new(), Vec::new()));
        // Counted per distinct time for the Kaplan–Meier fit (no vector of times to sort).
        let mut into = EndpointValues {
            tally: stats::TimeTally::new(),
            column: vec![TteValue::NONE; subjects.len()],
            competing: cr,
        };
        let from_adtte = input.data.has_adtte;
        match (from_adtte, input.tte_index) {
            (true, Some(index)) => adtte_endpoint(
                input,
                subjects,
                efficacy,
                (endpoint, paramcd, index.param(paramcd)),
                &mut into,
                warnings,
            )?,
            _ => {
                let (missed, new_therapy) = derived_endpoint(
                    input,
                    (subjects, efficacy),
                    (endpoint, paramcd),
                    &mut into,
                    warnings,
                );
                censored_missed.insert(endpoint.clone(), missed);
                if a.new_therapy.is_some() && endpoint != endpoint::OS {
                    censored_new_therapy.insert(endpoint.clone(), new_therapy);
                }
            }
        }
        let EndpointValues {
            tally,
            column,
            competing: cr,
        } = into;
        values.push(column);
        if tally.is_empty() {
            if endpoint != endpoint::DOR && (from_adtte || !input.derived.is_empty()) {
                warnings.push(
                    Diagnostic::warning(
                        Kind::EndpointUnavailable,
                        format!("endpoint `{endpoint}`: no subject has a time"),
                    )
                    .at(Location::Endpoint(endpoint.clone())),
                );
            }
            continue;
        }
        let fit = tally
            .fit()
            .map_err(|e| ci_err(id, &format!("Kaplan–Meier for {endpoint}"), e))?;
        let cif = match cr {
            Some((days, status, members)) => {
                let data = CompetingData::new(days, status, members)
                    .map_err(|e| ci_err(id, &format!("cumulative incidence of {endpoint}"), e))?;
                let cif = cif_results(&data, a)
                    .map_err(|e| ci_err(id, &format!("cumulative incidence of {endpoint}"), e))?;
                competing.insert(endpoint.clone(), data);
                Some(cif)
            }
            None => None,
        };
        tte.insert(
            endpoint.clone(),
            TteResults {
                label: a
                    .tte_labels
                    .get(endpoint)
                    .cloned()
                    .unwrap_or_else(|| endpoint.clone()),
                censored_missed_visits: censored_missed.get(endpoint).copied(),
                censored_new_therapy: censored_new_therapy.get(endpoint).copied(),
                cif,
                ..summarise_tte(&fit, a, from_adtte, paramcd)
                    .map_err(|e| ci_err(id, endpoint, e))?
            },
        );
        km_fits.insert(endpoint.clone(), fit);
    }

    Ok(TimeToEventPart {
        tte,
        km: km_fits,
        values,
        competing,
    })
}

/// One endpoint's values as they are gathered: the Kaplan–Meier tally, each member's value,
/// and with competing events each subject's time (days), status and member position.
struct EndpointValues {
    tally: stats::TimeTally,
    column: Vec<TteValue>,
    competing: Option<(Vec<f64>, Vec<u8>, Vec<u32>)>,
}

/// One endpoint's values from ADTTE (`by_subject`: its records by subject position): each
/// efficacy member's record into `into`; members without one, and DoR records of subjects
/// who are not responders, said in `warnings`.
fn adtte_endpoint(
    input: &CohortInput<'_, '_>,
    subjects: CohortSubjects<'_>,
    efficacy: &[u32],
    (endpoint, paramcd, by_subject): (&str, &str, Option<TteColumn<'_>>),
    into: &mut EndpointValues,
    warnings: &mut Vec<Diagnostic>,
) -> Result<()> {
    let a = input.analysis;
    let unit = a.time_unit.days();
    let derivation = |i: usize| {
        input.derived.get(i).ok_or_else(|| {
            Error::Internal(format!(
                "cohort `{}`: member {i} has no derivation",
                input.cohort.id
            ))
        })
    };
    // DoR is summarised over the responders the abstract reports (the confirmed ones
    // unless `confirmed: false`) when ADRS is given: ADTTE's DoR may have been
    // derived with other rules.
    let responder = |i: usize| derivation(i).map(|d| a.criteria.is_responder(d.category));
    let is_dor = endpoint == endpoint::DOR && !input.derived.is_empty();
    let (mut missing, mut not_responders, mut responders_without) =
        (Vec::new(), Vec::new(), Vec::new());
    for &i in efficacy {
        let i = i as usize;
        let record = input
            .members
            .get(i)
            .and_then(|&global| by_subject.and_then(|c| c.get(global as usize)));
        if is_dor {
            match (record.is_some(), responder(i)?) {
                (true, false) => {
                    not_responders.push(i);
                    continue;
                }
                (false, true) => responders_without.push(i),
                _ => {}
            }
        } else if record.is_none() && endpoint != endpoint::DOR {
            missing.push(i);
        }
        if let Some(r) = record {
            // A competing event is censored for this endpoint's Kaplan–Meier values
            // (cause-specific) when the endpoint has competing events, an event when
            // another endpoint of the same PARAMCD marks them.
            let event = r.cnsr == 0 || (r.is_competing() && into.competing.is_none());
            into.tally.add(r.days, event);
            into.column[i] = TteValue::new(r.days / unit, !event);
            if let Some((days, status, members)) = into.competing.as_mut() {
                days.push(r.days);
                members.push(i as u32);
                status.push(match (r.cnsr, r.is_competing()) {
                    (0, _) => stats::competing::EVENT,
                    (_, true) => stats::competing::COMPETING,
                    _ => stats::competing::CENSORED,
                });
            }
        }
    }
    let name = |i: &usize| subjects.get(*i).map_or("?", |s| &*s.usubjid);
    if !missing.is_empty() {
        warnings.push(
            Diagnostic::warning(
                Kind::EndpointSubjects,
                format!(
                    "endpoint `{endpoint}`: {} left out: no ADTTE record with PARAMCD `{paramcd}`",
                    subject_list("efficacy subject", &missing, name)
                ),
            )
            .at(Location::Endpoint(endpoint.to_string())),
        );
    }
    if !not_responders.is_empty() {
        warnings.push(
            Diagnostic::warning(
                Kind::EndpointSubjects,
                format!(
                    "endpoint `{endpoint}`: {} left out: an ADTTE record with PARAMCD \
                 `{paramcd}` but not {} responders this abstract reports",
                    subject_list("subject", &not_responders, name),
                    if a.confirmed {
                        "among the confirmed"
                    } else {
                        "among the"
                    }
                ),
            )
            .at(Location::Endpoint(endpoint.to_string())),
        );
    }
    if !responders_without.is_empty() {
        warnings.push(
            Diagnostic::warning(
                Kind::EndpointSubjects,
                format!(
                    "endpoint `{endpoint}`: {} without an ADTTE record with PARAMCD `{paramcd}`",
                    subject_list("responder", &responders_without, name)
                ),
            )
            .at(Location::Endpoint(endpoint.to_string())),
        );
    }
    Ok(())
}

/// One endpoint's values from the derivations: each efficacy member's time into `into`;
/// how many the missed-visit rule and the new-therapy rule censored.
fn derived_endpoint(
    input: &CohortInput<'_, '_>,
    (subjects, efficacy): (CohortSubjects<'_>, &[u32]),
    (endpoint, paramcd): (&str, &str),
    into: &mut EndpointValues,
    warnings: &mut Vec<Diagnostic>,
) -> (usize, usize) {
    let a = input.analysis;
    let unit = a.time_unit.days();
    let (mut missed, mut new_therapy) = (0, 0);
    let mut without: Vec<usize> = Vec::new();
    for &i in efficacy {
        let i = i as usize;
        if let Some(t) = input.derived.get(i).and_then(|d| d.endpoint(endpoint)) {
            into.tally.add(t.days, t.status == Status::Event);
            into.column[i] = TteValue::new(t.days / unit, t.cnsr != 0);
            missed += usize::from(t.rule == TteRule::MissedAssessments);
            new_therapy += usize::from(t.rule == TteRule::NewTherapy);
        } else if endpoint != endpoint::DOR && !input.derived.is_empty() {
            without.push(i);
        }
    }
    if !without.is_empty() {
        let name = |i: &usize| subjects.get(*i).map_or("?", |s| &*s.usubjid);
        warnings.push(
            Diagnostic::warning(
                Kind::EndpointSubjects,
                format!(
                    "endpoint `{endpoint}`: {} left out: no {} date, the origin of the derived \
                     times",
                    subject_list("efficacy subject", &without, name),
                    a.origin.column()
                ),
            )
            .at(Location::Endpoint(endpoint.to_string())),
        );
    }
    if missed > 0 {
        let message = if a.schedule.is_some() {
            format!(
                "endpoint `{endpoint}`: {missed} progression(s) or death(s) came after two or \
                 more missed assessments of the protocol's schedule and were censored at the last \
                 adequate assessment (`analysis.assessment_schedule`; docs/CONFIG.md)"
            )
        } else {
            format!(
                "endpoint `{endpoint}`: {missed} progression(s) or death(s) came more than \
                 {} days after the last adequate assessment and were censored there by the \
                 missed-visit rule (`analysis.missed_visit_days`; docs/CONFIG.md)",
                a.missed_visit_days
            )
        };
        warnings.push(
            Diagnostic::warning(Kind::MissedVisits, message)
                .at(Location::Endpoint(endpoint.to_string())),
        );
    }
    if !crate::model::endpoint::DERIVED.contains(&endpoint) {
        warnings.push(Diagnostic::warning(Kind::EndpointUnavailable, format!(
                "endpoint `{endpoint}` can only come from ADTTE (PARAMCD `{paramcd}`), and no ADTTE is given"
            )).at(Location::Endpoint(endpoint.to_string())));
    }
    (missed, new_therapy)
}

/// Oddities the response derivation met in the subjects' data (a CR followed by a PR, ...):
/// they do not stop it, and the reader of the results should see them: at most
/// [`BOR_WARNINGS_LISTED`], then how many more.
fn response_oddities(derived: &[DerivedSubject]) -> Vec<Diagnostic> {
    let oddities: Vec<Diagnostic> = derived
        .iter()
        .flat_map(|d| {
            d.bor.warnings.iter().map(move |w| {
                Diagnostic::warning(
                    Kind::ResponseOddity,
                    format!("subject `{}`: {w}", d.usubjid),
                )
                .subjects([d.usubjid.as_str()])
            })
        })
        .collect();
    let more = oddities.len().saturating_sub(BOR_WARNINGS_LISTED);
    let mut warnings: Vec<Diagnostic> = oddities.into_iter().take(BOR_WARNINGS_LISTED).collect();
    if more > 0 {
        warnings.push(Diagnostic::warning(
            Kind::ResponseOddity,
            format!(
                "and {more} more such response-data warnings in this cohort (the first {BOR_WARNINGS_LISTED} are listed)"
            ),
        ));
    }
    warnings
}

/// The median follow-up: the reverse Kaplan–Meier median of `analysis.followup`'s endpoint
/// (`None` without it).
fn follow_up(
    km_fits: &IndexMap<String, KaplanMeier>,
    a: &Analysis,
) -> std::result::Result<Option<FollowUp>, stats::StatsError> {
    let unit = a.time_unit.days();
    Ok(match km_fits.get(&a.followup) {
        Some(fit) => {
            let reverse = fit.reversed();
            let m = median(&reverse, a)?;
            Some(FollowUp {
                param: a.followup.clone(),
                label: match endpoint::abbreviation(&a.followup) {
                    Some(short) => short.to_string(),
                    None => a.tte_labels.get(&a.followup).cloned().unwrap_or_default(),
                },
                estimate: m.estimate.map(|x| x / unit),
                lower: m.lower.map(|x| x / unit),
                upper: m.upper.map(|x| x / unit),
            })
        }
        None => None,
    })
}

/// The strata's and subgroups' labels by column: a column both a stratum and a subgroup takes
/// the first label given.
fn factor_labels(cohort: &CohortConfig) -> IndexMap<String, String> {
    cohort
        .strata
        .iter()
        .chain(&cohort.subgroups)
        .filter_map(|f| Some((f.column.clone(), f.label.clone()?)))
        .fold(IndexMap::new(), |mut labels, (column, label)| {
            labels.entry(column).or_insert(label);
            labels
        })
}

/// At a cut-off, a study-level status without its date cannot be cut: it is the sponsor's at
/// their cut (the treatment level is cut by TRTEDT); say so.
fn status_not_cut(input: &CohortInput<'_, '_>) -> Option<Diagnostic> {
    let cut = input.cutoff.filter(|_| input.data.after_cutoff)?;
    let level = input
        .data
        .disposition
        .iter()
        .find(|l| l.level == crate::load::disposition::Level::Study && l.date.is_none())?;
    Some(Diagnostic::warning(
        Kind::StatusNotCut,
        format!(
            "{} status is as ADSL records it, not cut at {cut} (ADSL has no EOSDT to cut it by)",
            level.label.to_lowercase()
        ),
    ))
}

/// Computes every endpoint of one cohort.
pub fn analyse_cohort<'m>(input: CohortInput<'_, 'm>) -> Result<CohortAnalysis<'m>> {
    let a = input.analysis;
    let id = input.cohort.id.as_str();
    let unit = a.time_unit.days();
    let subjects = CohortSubjects {
        all: &input.data.subjects,
        members: &input.members,
    };
    // `derived` follows `members` one for one (or is empty without ADRS): a derivation read
    // for a member below is there, never a default.
    if !input.derived.is_empty() && input.derived.len() != input.members.len() {
        return Err(Error::Internal(format!(
            "cohort `{id}`: {} derivations for {} members; expected one each",
            input.derived.len(),
            input.members.len()
        )));
    }
    let mut warnings = Vec::new();

    // One pass over the members (a cohort of a large study is spread over memory: each pass
    // was a cache miss per subject): populations, enrolment window, sites, efficacy set.
    let mut n = Populations {
        enrolled: subjects.len(),
        efficacy: 0,
        safety: 0,
        efficacy_flag: input.data.efficacy_flag.clone(),
        safety_flag: input.data.safety_flag.clone(),
        efficacy_untreated: 0,
    };
    let mut enrolment = Enrolment {
        first: None,
        last: None,
        centres: None,
    };
    let mut sites: BTreeSet<&str> = BTreeSet::new();
    // Positions in `members` (fewer than 2^32, as members are `u32`).
    let mut efficacy: Vec<u32> = Vec::with_capacity(subjects.len());
    for (i, s) in (0u32..).zip(subjects.iter()) {
        if s.efficacy {
            n.efficacy += 1;
            n.efficacy_untreated += usize::from(s.trt_start.is_none());
            efficacy.push(i);
        }
        n.safety += usize::from(s.safety);
        if let Some(date) = s.enrolled {
            enrolment.first = Some(enrolment.first.map_or(date, |d: Date| d.min(date)));
            enrolment.last = Some(enrolment.last.map_or(date, |d: Date| d.max(date)));
        }
        if let Some(site) = s.site() {
            sites.insert(site);
        }
    }
    if !sites.is_empty() {
        enrolment.centres = Some(sites.len());
    }
    let baseline = input
        .cohort
        .baseline
        .iter()
        .map(|item| summarise_baseline(item, subjects, &mut warnings))
        .collect();

    // `derived` follows `members`: derived[i] belongs to subjects[i] (empty without ADRS).
    let derived_of = |i: usize| input.derived.get(i);
    let derivation = |i: usize| {
        derived_of(i)
            .ok_or_else(|| Error::Internal(format!("cohort `{id}`: member {i} has no derivation")))
    };

    let response = if input.derived.is_empty() {
        None
    } else {
        let start = |i: usize| subjects.get(i).and_then(|s| s.trt_start);
        Some(response_results(id, a, &efficacy, &derivation, &start)?)
    };
    warnings.extend(response_oddities(&input.derived));
    warnings.extend(whole_population_notes(&input, &n, response.as_ref()));

    let TimeToEventPart {
        tte,
        km: km_fits,
        values,
        competing,
    } = time_to_event(&input, subjects, &efficacy, &mut warnings)?;

    let followup = follow_up(&km_fits, a).map_err(|e| ci_err(id, "median follow-up", e))?;

    let safety = if input.data.adverse_events.is_empty() && subjects.is_empty() {
        None
    } else {
        Some(safety_results(
            subjects,
            &input.data.adverse_events,
            input.data.adae_columns,
            &a.ae_special_interest,
            a.ae_sort,
        ))
    };

    let tumour = tumour_data(&input, subjects);
    let (disposition, study_disposition) =
        disposition::dispositions(subjects, input.data, input.cutoff, &mut warnings);
    warnings.extend(status_not_cut(&input));
    let exposure = disposition::exposure(subjects, input.data, input.cutoff, unit, &mut warnings);

    Ok(CohortAnalysis {
        results: CohortResults {
            id: id.to_string(),
            label: input
                .cohort
                .label
                .clone()
                .unwrap_or_else(|| input.cohort.id.clone()),
            cutoff: input.cutoff,
            n,
            enrolment,
            baseline,
            response,
            tte,
            followup,
            safety: if input.data.adverse_events.is_empty() {
                None
            } else {
                safety
            },
            disposition,
            study_disposition,
            exposure,
            arms: Vec::new(),
            comparisons: Vec::new(),
            factor_labels: factor_labels(input.cohort),
            row_filters: input.row_filters,
            warnings,
        },
        members: input.members,
        derived: input.derived,
        derived_tte: values,
        km: km_fits,
        competing,
        tumour,
        has_adtr: input.data.has_adtr,
    })
}

/// What the reader should know of the efficacy population kept whole: subjects never treated
/// and subjects without an assessment are in every efficacy analysis (from the origin of
/// derived times, as non-responders), said with how many they are.
fn whole_population_notes(
    input: &CohortInput<'_, '_>,
    n: &Populations,
    response: Option<&ResponseResults>,
) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    let derived = !input.data.has_adtte;
    let origin = input.analysis.origin.words();
    if n.efficacy_untreated > 0 {
        let where_ = if derived {
            format!(
                "in PFS and OS from {origin} (PFS censored there without an assessment, OS at \
                 the last date known alive)"
            )
        } else {
            "in the endpoints ADTTE gives them".to_string()
        };
        notes.push(Diagnostic::note(
            Kind::EndpointSubjects,
            format!(
                "{} efficacy subject(s) never treated (no TRTSDT) are analysed {where_}, and \
                 counted in the response rates' denominators",
                n.efficacy_untreated
            ),
        ));
    }
    if let Some(r) = response.filter(|r| r.unassessed > 0) {
        notes.push(Diagnostic::note(
            Kind::EndpointSubjects,
            format!(
                "{} efficacy subject(s) have no assessment that gives a response: NE, counted \
                 as non-responders in the response rates{}",
                r.unassessed,
                if derived {
                    format!(", and PFS censored at {origin}")
                } else {
                    String::new()
                }
            ),
        ));
    }
    notes
}

/// How many subjects and who: `2 efficacy subjects (S-001, S-003)`, the first
/// [`NAMES_LISTED`] named and how many more.
fn subject_list<'n>(what: &str, positions: &[usize], name: impl Fn(&usize) -> &'n str) -> String {
    let shown: Vec<&str> = positions.iter().take(NAMES_LISTED).map(name).collect();
    format!(
        "{} {what}{} ({})",
        positions.len(),
        if positions.len() == 1 { "" } else { "s" },
        first_names(&shown, positions.len())
    )
}

fn response_results<'d>(
    id: &str,
    a: &Analysis,
    efficacy: &[u32],
    derivation: &impl Fn(usize) -> Result<&'d DerivedSubject>,
    start: &dyn Fn(usize) -> Option<crate::model::Date>,
) -> Result<ResponseResults> {
    let criteria = &a.criteria;
    let ne = crate::criteria::CategoryIndex::at(criteria.not_evaluable());
    let mut bor: IndexMap<String, usize> =
        criteria.reported().map(|c| (c.code.clone(), 0)).collect();
    let (mut orr_n, mut dcr_n, mut unassessed) = (0, 0, 0);
    let mut per_category = vec![0usize; criteria.categories.len()];
    let mut to_response = Vec::new();
    for &i in efficacy {
        let d = derivation(i as usize)?;
        let cat = d.category;
        if let (true, Some(first), Some(start)) = (
            criteria.is_responder(cat),
            d.bor.first_response_date,
            start(i as usize),
        ) {
            // Days as ADaM counts them (start day 1), in the analysis unit.
            let days = (first - start).num_days() + 1;
            to_response.push(days as f64 / a.time_unit.days());
        }
        if let Some(count) = bor.get_mut(criteria.code_of(cat)) {
            *count += 1;
        }
        if let Some(n) = per_category.get_mut(usize::from(cat.0)) {
            *n += 1;
        }
        unassessed += usize::from(d.bor.date.is_none());
        orr_n += usize::from(criteria.is_responder(cat));
        dcr_n += usize::from(criteria.is_control(cat, a.dcr_includes_non_cr_non_pd));
    }
    let total = efficacy.len();
    let rates = criteria
        .rates
        .iter()
        .map(|r| {
            let n = r
                .codes
                .iter()
                .filter_map(|c| criteria.position(c))
                .filter_map(|k| per_category.get(k))
                .sum();
            Ok((r.name.clone(), proportion(id, a, n, total)?))
        })
        .collect::<Result<IndexMap<_, _>>>()?;
    let mut described = (!criteria.is_recist()).then(|| crate::results::CriteriaUsed::of(criteria));
    if criteria.rule == crate::criteria::Rule::AsGiven {
        // The union of every vocabulary: only the categories the sponsor used, and NE.
        let ne = criteria.code_of(ne).to_string();
        bor.retain(|code, n| *n > 0 || *code == ne);
        if let Some(d) = described.as_mut() {
            d.categories.retain(|k| bor.contains_key(&k.code));
        }
    }
    Ok(ResponseResults {
        criteria: described,
        rates,
        confirmed: a.confirmed && criteria.confirms(),
        orr: proportion(id, a, orr_n, total)?,
        dcr: proportion(id, a, dcr_n, total)?,
        bor,
        unassessed,
        orr_name: criteria.response_rate.clone(),
        dcr_reported: criteria.reports_dcr,
        time_to_response: time_to_response(to_response),
    })
}

/// Median and range of the responders' times to response.
fn time_to_response(mut times: Vec<f64>) -> Option<crate::results::TimeToResponse> {
    times.sort_by(f64::total_cmp);
    let summary = continuous_summary(&times)?;
    Some(crate::results::TimeToResponse {
        n: times.len(),
        median: summary.median,
        min: summary.min,
        max: summary.max,
    })
}

/// A proportion with the configured CI (`null` rate and limits when N = 0).
pub fn proportion(id: &str, a: &Analysis, n: usize, total: usize) -> Result<Proportion> {
    if total == 0 {
        return Ok(Proportion {
            n,
            total,
            rate: None,
            lower: None,
            upper: None,
        });
    }
    let ci = match a.proportion_ci {
        ProportionCi::ClopperPearson => stats::clopper_pearson(n, total, a.ci_level),
        ProportionCi::Wilson => stats::wilson(n, total, a.ci_level),
    }
    .map_err(|e| ci_err(id, "proportion CI", e))?;
    Ok(Proportion {
        n,
        total,
        rate: Some(n as f64 / total as f64),
        lower: Some(ci.lower),
        upper: Some(ci.upper),
    })
}

fn median(fit: &KaplanMeier, a: &Analysis) -> std::result::Result<Estimate, stats::StatsError> {
    let q = match a.median_ci.transform() {
        Some(t) => fit.quantile(0.5, a.ci_level, t)?,
        None => fit.median_collett(a.ci_level)?,
    };
    Ok(Estimate {
        estimate: q.estimate,
        lower: q.lower,
        upper: q.upper,
    })
}

/// The cumulative incidence at the landmarks and the first time it reaches 0.5.
fn cif_results(
    data: &CompetingData,
    a: &Analysis,
) -> std::result::Result<crate::results::CifResults, stats::StatsError> {
    let unit = a.time_unit.days();
    let fit = &data.fit;
    // The landmarks, and the abstract's (`cif_landmark`) among them in order.
    let mut times = a.landmarks.clone();
    if !times.contains(&a.cif_landmark) {
        times.push(a.cif_landmark);
        times.sort_by(f64::total_cmp);
    }
    let landmarks = times
        .iter()
        .map(|&t| {
            let at = fit.at(t * unit, a.ci_level)?;
            Ok(crate::results::CifLandmark {
                time: t,
                n_risk: at.n_risk,
                estimate: at.estimate,
                std_err: at.std_err,
                lower: at.lower,
                upper: at.upper,
            })
        })
        .collect::<std::result::Result<Vec<_>, stats::StatsError>>()?;
    Ok(crate::results::CifResults {
        // Filled with the Kaplan–Meier table, at its times (beyond::describe).
        risk_table: Vec::new(),
        competing: data
            .status
            .iter()
            .filter(|s| **s == stats::competing::COMPETING)
            .count(),
        landmarks,
        median: Estimate {
            estimate: fit
                .steps()
                .iter()
                .find(|s| s.estimate >= 0.5)
                .map(|s| s.time / unit),
            lower: None,
            upper: None,
        },
    })
}

fn summarise_tte(
    fit: &KaplanMeier,
    a: &Analysis,
    from_adtte: bool,
    paramcd: &str,
) -> std::result::Result<TteResults, stats::StatsError> {
    let unit = a.time_unit.days();
    let scale = |e: Estimate| Estimate {
        estimate: e.estimate.map(|x| x / unit),
        lower: e.lower.map(|x| x / unit),
        upper: e.upper.map(|x| x / unit),
    };
    let quant = |p: f64| {
        let q = fit.quantile(p, a.ci_level, a.km_ci)?;
        Ok::<_, stats::StatsError>(scale(Estimate {
            estimate: q.estimate,
            lower: q.lower,
            upper: q.upper,
        }))
    };
    let landmarks = a
        .landmarks
        .iter()
        .map(|&t| {
            let l = fit.landmark(t * unit, a.ci_level, a.km_ci)?;
            Ok(LandmarkRate {
                time: t,
                n_risk: l.n_risk,
                surv: l.surv,
                std_err: l.std_err,
                lower: l.lower,
                upper: l.upper,
                beyond_last_followup: l.beyond_last_followup,
            })
        })
        .collect::<std::result::Result<Vec<_>, stats::StatsError>>()?;
    Ok(TteResults {
        n: fit.n(),
        events: fit.n_events(),
        censored: fit.n() - fit.n_events(),
        source: if from_adtte { "ADTTE" } else { "derived" }.to_string(),
        paramcd: paramcd.to_string(),
        label: String::new(),
        median: scale(median(fit, a)?),
        q25: quant(0.25)?,
        q75: quant(0.75)?,
        landmarks,
        max_time: fit.steps().last().map(|s| s.time / unit),
        censored_missed_visits: None,
        censored_new_therapy: None,
        range: match (fit.steps().first(), fit.steps().last()) {
            (Some(first), Some(last)) => Some(crate::results::TimeRange {
                min: first.time / unit,
                min_censored: first.n_event == 0,
                max: last.time / unit,
                max_censored: last.n_event == 0,
            }),
            _ => None,
        },
        rmst: None,
        risk_table: Vec::new(),
        cif: None,
    })
}

fn summarise_baseline(
    item: &BaselineItem,
    subjects: CohortSubjects<'_>,
    warnings: &mut Vec<Diagnostic>,
) -> BaselineSummary {
    let values: Vec<&str> = subjects
        .iter()
        .filter_map(|s| s.columns.get(&item.column))
        .collect();
    let missing = subjects.len() - values.len();
    let label = item.label.clone().unwrap_or_else(|| item.column.clone());
    match item.kind {
        BaselineKind::Continuous => {
            let mut numbers: Vec<f64> = Vec::with_capacity(values.len());
            let mut bad = 0;
            for v in &values {
                match v.parse::<f64>() {
                    Ok(x) if x.is_finite() => numbers.push(x),
                    _ => bad += 1,
                }
            }
            if bad > 0 {
                warnings.push(Diagnostic::warning(
                    Kind::Baseline,
                    format!(
                        "baseline `{}`: {bad} value(s) are not numbers and were left out",
                        item.column
                    ),
                ));
            }
            if values.is_empty() && !subjects.is_empty() {
                warnings.push(Diagnostic::warning(
                    Kind::Baseline,
                    format!(
                        "baseline `{}`: no subject has a value (is the column in ADSL?)",
                        item.column
                    ),
                ));
            }
            numbers.sort_by(f64::total_cmp);
            BaselineSummary {
                column: item.column.clone(),
                label,
                kind: item.kind,
                n: numbers.len(),
                missing: missing + bad,
                stats: continuous_summary(&numbers),
                levels: Vec::new(),
                natural_order: Vec::new(),
                self_describing: false,
            }
        }
        BaselineKind::Categorical => {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for v in &values {
                *counts.entry(v).or_default() += 1;
            }
            if values.is_empty() && !subjects.is_empty() {
                warnings.push(Diagnostic::warning(
                    Kind::Baseline,
                    format!(
                        "baseline `{}`: no subject has a value (is the column in ADSL?)",
                        item.column
                    ),
                ));
            }
            let mut levels: Vec<LevelCount> = counts
                .into_iter()
                .map(|(value, n)| LevelCount {
                    value: value.to_string(),
                    label: decode(item, value),
                    n,
                    total: subjects.len(),
                    rate: n as f64 / subjects.len().max(1) as f64,
                })
                .collect();
            levels.sort_by(|x, y| y.n.cmp(&x.n).then_with(|| x.value.cmp(&y.value)));
            BaselineSummary {
                column: item.column.clone(),
                label,
                kind: item.kind,
                n: values.len(),
                missing,
                stats: None,
                natural_order: natural_order(item, &levels),
                self_describing: item.labels.is_empty() && ct_decodes(&item.column).is_some(),
                levels,
            }
        }
    }
}

/// CDISC controlled-terminology decodes of the usual ADSL codes, as prose writes them: the
/// column's values and their words, in the terminology's order.
fn ct_decodes(column: &str) -> Option<&'static [(&'static str, &'static str)]> {
    match column {
        "SEX" => Some(&[
            ("M", "male"),
            ("F", "female"),
            ("U", "unknown"),
            ("UNDIFFERENTIATED", "undifferentiated"),
        ]),
        "RACE" => Some(&[
            ("WHITE", "White"),
            ("BLACK OR AFRICAN AMERICAN", "Black or African American"),
            ("ASIAN", "Asian"),
            (
                "AMERICAN INDIAN OR ALASKA NATIVE",
                "American Indian or Alaska Native",
            ),
            (
                "NATIVE HAWAIIAN OR OTHER PACIFIC ISLANDER",
                "Native Hawaiian or Other Pacific Islander",
            ),
            ("MULTIPLE", "multiple"),
            ("OTHER", "other"),
            ("NOT REPORTED", "not reported"),
            ("UNKNOWN", "unknown"),
        ]),
        "ETHNIC" => Some(&[
            ("HISPANIC OR LATINO", "Hispanic or Latino"),
            ("NOT HISPANIC OR LATINO", "not Hispanic or Latino"),
            ("NOT REPORTED", "not reported"),
            ("UNKNOWN", "unknown"),
        ]),
        _ => None,
    }
}

/// A column's values in their natural order, with their words, as a baseline item of the
/// column gives them: the cohort's item when it has one (its `labels` and `order`), else the
/// CDISC decodes and order, ascending numbers, or the values as given. Subgroup levels read
/// as the baseline table reads them ("Female", not "F").
pub fn ordered_levels(
    cohort: &CohortConfig,
    column: &str,
    values: &[&str],
) -> Vec<(String, String)> {
    let own;
    let item = match cohort.baseline.iter().find(|b| b.column == column) {
        Some(item) => item,
        None => {
            own = BaselineItem {
                column: column.to_string(),
                kind: BaselineKind::Categorical,
                label: None,
                labels: IndexMap::new(),
                order: Vec::new(),
            };
            &own
        }
    };
    let levels: Vec<LevelCount> = values
        .iter()
        .map(|v| LevelCount {
            value: (*v).to_string(),
            label: String::new(),
            n: 0,
            total: 0,
            rate: 0.0,
        })
        .collect();
    natural_order(item, &levels)
        .into_iter()
        .map(|v| {
            let words = decode(item, &v);
            (v, words)
        })
        .collect()
}

/// A level's words: the config's `labels`, else the column's CDISC decode, else the value
/// phrased ([`crate::format::phrase_code`]).
fn decode(item: &BaselineItem, value: &str) -> String {
    if let Some(label) = item.labels.get(&crate::config::Code(value.to_string())) {
        return label.clone();
    }
    if let Some((_, words)) =
        ct_decodes(&item.column).and_then(|codes| codes.iter().find(|(code, _)| *code == value))
    {
        return (*words).to_string();
    }
    // ADaM's Y/N flags (NY codelist) read as words in tables.
    match value {
        "Y" => "Yes".to_string(),
        "N" => "No".to_string(),
        // A code in capitals in words ("REST OF WORLD": "rest of world"; docs/OUTPUTS.md).
        _ => crate::format::phrase_code(value),
    }
}

/// The levels' values in their own order: the config's `order` first, then the rest in the
/// terminology's order (SEX: M, F), ascending when every value is a number, else as given
/// (most frequent first).
fn natural_order(item: &BaselineItem, levels: &[LevelCount]) -> Vec<String> {
    // Sets, not searches: a free-text column may have tens of thousands of levels.
    let present: std::collections::HashSet<&str> =
        levels.iter().map(|l| l.value.as_str()).collect();
    let mut order: Vec<String> = Vec::with_capacity(levels.len());
    let mut placed: std::collections::HashSet<String> = std::collections::HashSet::new();
    for wanted in &item.order {
        let wanted = wanted.as_text();
        if present.contains(wanted.as_str()) && placed.insert(wanted.clone()) {
            order.push(wanted);
        }
    }
    let mut rest: Vec<&str> = levels
        .iter()
        .map(|l| l.value.as_str())
        .filter(|v| !placed.contains(*v))
        .collect();
    let numbers: Option<Vec<f64>> = rest.iter().map(|v| v.trim().parse::<f64>().ok()).collect();
    if rest.iter().all(|v| matches!(*v, "Y" | "N")) {
        // A flag: yes before no.
        rest.sort_by_key(|v| *v != "Y");
    } else if let Some(codes) = ct_decodes(&item.column) {
        let rank = |v: &str| {
            codes
                .iter()
                .position(|(code, _)| *code == v)
                .unwrap_or(codes.len())
        };
        rest.sort_by_key(|v| rank(v));
    } else if let Some(numbers) = numbers {
        let mut pairs: Vec<(f64, &str)> = numbers.into_iter().zip(rest).collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        rest = pairs.into_iter().map(|(_, v)| v).collect();
    }
    order.extend(rest.into_iter().map(str::to_string));
    order
}

/// Median, range, mean and SD of sorted values.
fn continuous_summary(sorted: &[f64]) -> Option<ContinuousSummary> {
    let n = sorted.len();
    let (&min, &max) = (sorted.first()?, sorted.last()?);
    let median = if n % 2 == 1 {
        *sorted.get(n / 2)?
    } else {
        (sorted.get(n / 2 - 1)? + sorted.get(n / 2)?) / 2.0
    };
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let sd = if n > 1 {
        Some((sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt())
    } else {
        None
    };
    Some(ContinuousSummary {
        mean,
        sd,
        median,
        min,
        max,
    })
}

/// Per-subject timelines and tumour burden, for the waterfall, spider and swimmer figures;
/// empty when there is neither ADRS nor ADTR (nothing to draw).
fn tumour_data(input: &CohortInput<'_, '_>, subjects: CohortSubjects<'_>) -> Vec<SubjectTumour> {
    if input.derived.is_empty() && !input.data.has_adtr {
        return Vec::new();
    }
    let unit = input.analysis.time_unit.days();
    let mut lesions: HashMap<&str, Vec<&crate::model::LesionSum>> = HashMap::new();
    for l in &input.data.lesions {
        lesions.entry(l.usubjid.as_str()).or_default().push(l);
    }
    let mut out = Vec::new();
    for (i, s) in subjects.iter().enumerate().filter(|(_, s)| s.efficacy) {
        let Some(start) = s.trt_start else { continue };
        let days = |d: Date| (d - start).num_days() as f64 / unit;
        let d = input.derived.get(i);
        let mut rows = lesions.remove(&*s.usubjid).unwrap_or_default();
        rows.sort_by_key(|l| l.date);
        let base = rows
            .iter()
            .find_map(|l| l.base)
            .or_else(|| rows.iter().rev().find(|l| l.date <= start).map(|l| l.sum));
        let pchg = rows
            .iter()
            .filter(|l| l.date > start)
            .filter_map(|l| {
                let p = l
                    .pchg
                    .or_else(|| base.filter(|b| *b > 0.0).map(|b| (l.sum - b) / b * 100.0))?;
                Some((days(l.date), p))
            })
            .collect();
        let end_date = s.trt_end.or(input.cutoff).or(s.last_alive).unwrap_or(start);
        let progression = d
            .and_then(|d| d.pfs.as_ref())
            .filter(|t| t.status == Status::Event && s.death != Some(t.date))
            .map(|t| days(t.date));
        out.push(SubjectTumour {
            usubjid: s.usubjid.clone(),
            response: crate::model::ResponseCategory::parse(
                d.map_or("NE", |d| input.analysis.criteria.code_of(d.category)),
            ),
            pchg,
            end: days(end_date),
            ongoing: s.trt_end.is_none() && s.death.is_none(),
            first_response: d.and_then(|d| d.bor.first_response_date).map(days),
            progression,
            death: s.death.map(days),
        });
    }
    out
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests;

//! Time-to-event endpoints of one subject, in days: progression-free survival (PFS), overall
//! survival (OS) and duration of response (DoR), derived from ADSL dates and the subject's OVR
//! assessments when no ADTTE is given.
//!
//! The input is already cut at the data cut-off (the `cut` stage drops later assessments, nulls
//! later deaths and clamps `LSTALVDT`), so no cut-off date appears here.
//!
//! # Time
//!
//! `days = ADT − origin + 1`, the ADaM convention of the pharmaverse ADTTE (`AVAL = ADT − STARTDT
//! + 1`): an event or censoring on the origin day is day 1, never 0. The origin is TRTSDT for PFS
//! and OS, and the first counted CR/PR ([`super::BorOutcome::first_response_date`]) for DoR.
//! `cnsr` is 0 for an event and 1 for any censoring (as in the pharmaverse ADTTE and readout's
//! derived CSV); `reason` says which rule applied.
//!
//! # PFS and DoR
//!
//! Censoring follows the FDA guidance for industry "Clinical Trial Endpoints for the Approval of
//! Cancer Drugs and Biologics" (December 2018), table of PFS censoring options:
//!
//! - **Event**: the first PD (an OVR assessment of PD) or death, whichever comes first. A PD and a
//!   death on the same day are one event ("PD and death").
//! - **No event**: censored at the last *adequate* assessment — CR, PR, SD or NON-CR/NON-PD; NE and
//!   ND assessments do not document absence of progression.
//! - **No adequate post-baseline assessment** (PFS): censored at TRTSDT, day 1. A death without
//!   any assessment is still an event unless the next rule applies (FDA: "death before first PD
//!   assessment: progressed").
//! - **Event after two or more missed assessments**: when the PD or death comes more than
//!   [`PfsOptions::missed_visit_days`] after the last adequate assessment (or after the origin
//!   when there is none), the subject is censored at that last adequate assessment (or at the
//!   origin). The default, 91 days, is two 6-week assessment intervals plus a 7-day visit
//!   window; set it to twice the protocol's interval plus its window, or `None` to count every
//!   PD/death as an event (what pharmaverse's ADTTE does).
//! - Assessments dated before the origin are ignored.
//! - **New anticancer therapy** (only when [`PfsOptions::new_therapy`] names an ADSL date
//!   column, e.g. `NACTDT`): a subject who started new therapy before any PD or death (or who
//!   has neither) is censored at the last adequate assessment on or before that date (an
//!   assessment on the day therapy starts came before it), or at the origin when there is none.
//!   A PD or death on the day new therapy starts stays an event.
//!
//! DoR exists only for responders; its origin is the first counted response and the same rules
//! apply from there (a PD after the response; the response itself is an adequate assessment).
//!
//! # OS
//!
//! Event at DTHDT; otherwise censored at LSTALVDT, which loading has moved to the latest
//! assessment or adverse event when one came after it (the subject was seen alive then;
//! `load::last_seen_alive`). When LSTALVDT is missing, censored at the
//! latest date the subject is known alive: the latest of TRTEDT, the last assessment (any
//! response: being assessed proves being alive) and TRTSDT. A censoring date before TRTSDT (the
//! pharmaverse ADSL has LSTALVDT before TRTSDT for two subjects) is moved to TRTSDT, day 1.
//!
//! A death before the origin is an error ([`DeriveError::DateBeforeOrigin`]): no rule can make a
//! time out of it.

use serde::Serialize;

use super::timeline::{days_between, Timeline};
use super::DeriveError;
use crate::model::endpoint;
use crate::model::{Assessment, Date, Response, Status, Subject};

/// Options of the PFS and DoR censoring rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PfsOptions {
    /// A PD or death more than this many days after the last adequate assessment (or the origin)
    /// came after two or more missed assessments and is censored at that assessment.
    /// Default `Some(91)`: 2 × 42-day interval + 7-day window. `None` turns the rule off.
    pub missed_visit_days: Option<i64>,
    /// The ADSL date column of the start of new anticancer therapy (`NACTDT`): a subject who
    /// started it before progressing or dying is censored at the last adequate assessment on
    /// or before it. `None` (the default) turns the rule off.
    pub new_therapy: Option<String>,
    /// The ADSL date column of day 1 of PFS and OS (`RANDDT` in a randomised analysis).
    /// `None` (the default): TRTSDT.
    pub origin: Option<String>,
    /// The protocol's assessment schedule from that origin: when given, "two or more missed
    /// assessments" is judged against it instead of `missed_visit_days`.
    pub schedule: Option<super::schedule::Schedule>,
}

impl Default for PfsOptions {
    fn default() -> Self {
        PfsOptions {
            missed_visit_days: Some(91),
            new_therapy: None,
            origin: None,
            schedule: None,
        }
    }
}

/// Day 1 of a subject's PFS and OS, with the column it came from: the column `opts.origin`
/// names (a date, checked when ADSL was read), else TRTSDT. `None` without that date.
pub fn origin_of<'o>(subject: &Subject, opts: &'o PfsOptions) -> Option<(Date, &'o str)> {
    match opts.origin.as_deref() {
        None | Some("TRTSDT") => subject.trt_start.map(|d| (d, "TRTSDT")),
        Some(column) => {
            crate::model::parse_iso_date(subject.columns.get(column)?).map(|d| (d, column))
        }
    }
}

impl PfsOptions {
    fn validate(&self) -> Result<(), DeriveError> {
        match self.missed_visit_days {
            Some(days) if days < 0 => Err(DeriveError::InvalidOption {
                name: "missed_visit_days",
                value: days,
                expected: "a number of days >= 0",
            }),
            _ => Ok(()),
        }
    }
}

/// One derived time-to-event observation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeToEvent {
    /// `ADT − origin + 1`, in days.
    pub days: f64,
    /// Event or censored.
    pub status: Status,
    /// `ADT`: the event or censoring date.
    pub date: Date,
    /// Why, in words, e.g. "PD on 2021-05-01" or "censored at last adequate assessment 2021-04-02".
    pub reason: String,
    /// ADaM `CNSR`: 0 event, 1 censored.
    pub cnsr: u32,
    /// The rule that made the event or the censoring.
    pub rule: TteRule,
}

/// Which rule made a derived time an event or a censoring: the derived CSV's `<E>_EVNTDESC`
/// (docs/OUTPUTS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TteRule {
    /// Event: the first PD.
    Progression,
    /// Event: death (before any PD).
    Death,
    /// Event: a PD and a death on the same day.
    ProgressionAndDeath,
    /// Censored at the last adequate assessment (no PD or death).
    LastAdequateAssessment,
    /// Censored at the origin: no adequate assessment on or after it.
    NoAdequateAssessment,
    /// Censored at the last adequate assessment: the PD or death came after two or more
    /// missed assessments (`missed_visit_days`).
    MissedAssessments,
    /// Censored at the last adequate assessment on or before the start of new anticancer
    /// therapy, which came before any PD or death.
    NewTherapy,
    /// OS censored at the last date known alive.
    LastKnownAlive,
}

impl TteRule {
    /// The rule in words, as the derived CSV writes it.
    pub fn text(self) -> &'static str {
        match self {
            TteRule::Progression => "progression",
            TteRule::Death => "death",
            TteRule::ProgressionAndDeath => "progression and death",
            TteRule::LastAdequateAssessment => "censored: last adequate assessment",
            TteRule::NoAdequateAssessment => "censored: no adequate assessment",
            TteRule::MissedAssessments => "censored: event after missed assessments",
            TteRule::NewTherapy => "censored: new anticancer therapy",
            TteRule::LastKnownAlive => "censored: last known alive",
        }
    }
}

impl TimeToEvent {
    fn new(origin: Date, date: Date, rule: TteRule, reason: String) -> TimeToEvent {
        let status = match rule {
            TteRule::Progression | TteRule::Death | TteRule::ProgressionAndDeath => Status::Event,
            _ => Status::Censored,
        };
        TimeToEvent {
            days: (days_between(origin, date) + 1) as f64,
            status,
            date,
            reason,
            cnsr: match status {
                Status::Event => 0,
                Status::Censored => 1,
            },
            rule,
        }
    }
}

/// PFS from the origin ([`origin_of`]: TRTSDT, or the column the options name); `None`
/// without it.
pub fn progression_free_survival(
    subject: &Subject,
    assessments: &[Assessment],
    opts: &PfsOptions,
) -> Result<Option<TimeToEvent>, DeriveError> {
    opts.validate()?;
    let timeline = subject_timeline(subject, assessments)?;
    let Some((origin, label)) = origin_of(subject, opts) else {
        return Ok(None);
    };
    progression_or_death(
        subject,
        &timeline.items,
        Origin {
            endpoint: endpoint::PFS,
            label,
            date: origin,
        },
        opts,
    )
    .map(Some)
}

/// DoR from `first_response_date` (the first counted CR/PR); `None` for a non-responder.
pub fn duration_of_response(
    subject: &Subject,
    assessments: &[Assessment],
    first_response_date: Option<Date>,
    opts: &PfsOptions,
) -> Result<Option<TimeToEvent>, DeriveError> {
    opts.validate()?;
    let timeline = subject_timeline(subject, assessments)?;
    let Some(origin) = first_response_date else {
        return Ok(None);
    };
    progression_or_death(
        subject,
        &timeline.items,
        Origin {
            endpoint: endpoint::DOR,
            label: "the first response",
            date: origin,
        },
        opts,
    )
    .map(Some)
}

/// OS from the origin ([`origin_of`]); `None` without it.
pub fn overall_survival(
    subject: &Subject,
    assessments: &[Assessment],
    opts: &PfsOptions,
) -> Result<Option<TimeToEvent>, DeriveError> {
    let timeline = subject_timeline(subject, assessments)?;
    let Some((origin, label)) = origin_of(subject, opts) else {
        return Ok(None);
    };
    if let Some(death) = subject.death {
        check_not_before(subject, endpoint::OS, "death (DTHDT)", death, origin)?;
        return Ok(Some(TimeToEvent::new(
            origin,
            death,
            TteRule::Death,
            format!("death on {death}"),
        )));
    }
    let (date, reason) = match subject.last_alive {
        Some(alive) if alive < origin => (
            origin,
            format!(
                "alive: last known alive date (LSTALVDT) {alive} is before {label} {origin}; \
                 censored at {label}"
            ),
        ),
        Some(alive) => (
            alive,
            format!("alive: censored at the last date known alive {alive}"),
        ),
        None => {
            let mut latest = (origin, label);
            let candidates = [
                (subject.trt_end, "TRTEDT"),
                (timeline.items.last().map(|a| a.date), "last assessment"),
            ];
            for (date, what) in candidates {
                if let Some(d) = date.filter(|&d| d > latest.0) {
                    latest = (d, what);
                }
            }
            (
                latest.0,
                format!(
                    "alive: LSTALVDT missing; censored at the latest known date {} ({})",
                    latest.0, latest.1
                ),
            )
        }
    };
    Ok(Some(TimeToEvent::new(
        origin,
        date,
        TteRule::LastKnownAlive,
        reason,
    )))
}

/// The origin of a PFS-like endpoint.
struct Origin<'o> {
    endpoint: &'static str,
    label: &'o str,
    date: Date,
}

/// An assessment that documents the absence of progression.
fn adequate(r: Response) -> bool {
    matches!(
        r,
        Response::CompleteResponse
            | Response::PartialResponse
            | Response::StableDisease
            | Response::NonCrNonPd
    )
}

fn progression_or_death(
    subject: &Subject,
    items: &[Assessment],
    origin: Origin<'_>,
    opts: &PfsOptions,
) -> Result<TimeToEvent, DeriveError> {
    let start = origin.date;
    if let Some(death) = subject.death {
        check_not_before(subject, origin.endpoint, "death (DTHDT)", death, start)?;
    }
    let post: Vec<&Assessment> = items.iter().filter(|a| a.date >= start).collect();
    let pd = post
        .iter()
        .find(|a| a.response == Response::ProgressiveDisease)
        .map(|a| a.date);
    let event = match (pd, subject.death) {
        (Some(p), Some(d)) if d < p => Some((d, TteRule::Death)),
        (Some(p), Some(d)) if d == p => Some((p, TteRule::ProgressionAndDeath)),
        (Some(p), _) => Some((p, TteRule::Progression)),
        (None, Some(d)) => Some((d, TteRule::Death)),
        (None, None) => None,
    };
    let what = |rule: TteRule| match rule {
        TteRule::Death => "death",
        TteRule::ProgressionAndDeath => "PD and death",
        _ => "PD",
    };
    // New therapy started before the PD or death (or with neither): the record ends there.
    let new_therapy =
        new_therapy_start(subject, opts).filter(|&started| event.is_none_or(|(e, _)| started < e));
    // The record's last day: new therapy's start, else the event's day.
    let end = new_therapy.or(event.map(|(e, _)| e));
    let last_adequate = post
        .iter()
        .rev()
        .find(|a| adequate(a.response) && end.is_none_or(|e| a.date <= e));
    let anchor = last_adequate.map_or(start, |a| a.date);
    let censored_at = match last_adequate {
        Some(a) => format!(
            "censored at last adequate assessment {} ({})",
            a.date,
            a.response.code()
        ),
        None => format!(
            "no adequate assessment on or after {} {start}: censored at {}",
            origin.label, origin.label
        ),
    };
    let plain_censoring = if last_adequate.is_some() {
        TteRule::LastAdequateAssessment
    } else {
        TteRule::NoAdequateAssessment
    };

    if let Some(started) = new_therapy {
        let column = opts.new_therapy.as_deref().unwrap_or("new therapy");
        let before = match event {
            Some((e, rule)) => format!("before {} on {e}", what(rule)),
            None => "with no PD or death".to_string(),
        };
        let on_or_before = if last_adequate.is_some() {
            format!("; {censored_at} on or before it")
        } else {
            format!(
                "; no adequate assessment from {} {start} to it: censored at {}",
                origin.label, origin.label
            )
        };
        return Ok(TimeToEvent::new(
            start,
            anchor,
            TteRule::NewTherapy,
            format!("new anticancer therapy on {started} ({column}) {before}{on_or_before}"),
        ));
    }
    let Some((event_date, rule)) = event else {
        return Ok(TimeToEvent::new(
            start,
            anchor,
            plain_censoring,
            censored_at,
        ));
    };
    let what = what(rule);
    let gap = days_between(anchor, event_date);
    // The schedule's days count from the subject's origin of PFS (DoR's record too).
    let day_zero = origin_of(subject, opts).map_or(start, |(d, _)| d);
    let missed = match (&opts.schedule, opts.missed_visit_days) {
        (Some(schedule), _) => {
            let latest = schedule.latest_without_two_missed(days_between(day_zero, anchor));
            (days_between(day_zero, event_date) > latest).then(|| {
                format!(
                    "after the second scheduled assessment from it, day {latest} with its window \
                     (`analysis.assessment_schedule`)"
                )
            })
        }
        (None, Some(limit)) => (gap > limit).then(|| format!("more than {limit}")),
        (None, None) => None,
    };
    match missed {
        Some(limit) => {
            let (since, censored) = match last_adequate {
                Some(a) => (
                    format!(
                        "the last adequate assessment {} ({})",
                        a.date,
                        a.response.code()
                    ),
                    format!("censored at {}", a.date),
                ),
                None => (
                    format!("{} {start} with no adequate assessment", origin.label),
                    format!("censored at {} {start}", origin.label),
                ),
            };
            Ok(TimeToEvent::new(
                start,
                anchor,
                TteRule::MissedAssessments,
                format!(
                    "{what} on {event_date} came {gap} days after {since}, {limit}: two or more \
                     missed assessments; {censored}"
                ),
            ))
        }
        None => Ok(TimeToEvent::new(
            start,
            event_date,
            rule,
            format!("{what} on {event_date}"),
        )),
    }
}

/// The subject's start of new anticancer therapy, from the ADSL column the options name
/// (checked to be a date when ADSL was read).
fn new_therapy_start(subject: &Subject, opts: &PfsOptions) -> Option<Date> {
    let column = opts.new_therapy.as_deref()?;
    crate::model::parse_iso_date(subject.columns.get(column)?)
}

/// The subject's assessments in date order, checked to be the subject's own.
fn subject_timeline(
    subject: &Subject,
    assessments: &[Assessment],
) -> Result<Timeline, DeriveError> {
    if let Some(stray) = assessments.iter().find(|a| *a.usubjid != *subject.usubjid) {
        return Err(DeriveError::MixedSubjects {
            usubjid: subject.usubjid.to_string(),
            other: stray.usubjid.clone(),
        });
    }
    Timeline::new(assessments)
}

fn check_not_before(
    subject: &Subject,
    endpoint: &'static str,
    what: &'static str,
    date: Date,
    origin: Date,
) -> Result<(), DeriveError> {
    if date < origin {
        return Err(DeriveError::DateBeforeOrigin {
            usubjid: subject.usubjid.to_string(),
            endpoint,
            what,
            date,
            origin,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn subject() -> Subject {
        Subject {
            usubjid: "S1".into(),
            site: None,
            trt_start: Some(d("2021-01-01")),
            trt_end: None,
            enrolled: None,
            death: None,
            last_alive: Some(d("2021-06-30")),
            safety: true,
            efficacy: true,
            treated_past_cutoff: false,
            columns: Default::default(),
        }
    }

    fn a(date: &str, avalc: &str) -> Assessment {
        Assessment::recist("S1", d(date), Response::from_avalc(avalc).unwrap())
    }

    #[test]
    fn event_on_origin_day_is_day_one() {
        let s = Subject {
            death: Some(d("2021-01-01")),
            ..subject()
        };
        let os = overall_survival(&s, &[], &PfsOptions::default())
            .unwrap()
            .unwrap();
        assert_eq!(os.days, 1.0);
        assert_eq!(os.status, Status::Event);
        assert_eq!(os.cnsr, 0);
    }

    #[test]
    fn pfs_event_reason_names_pd_date() {
        let pfs = progression_free_survival(
            &subject(),
            &[a("2021-02-12", "SD"), a("2021-03-26", "PD")],
            &PfsOptions::default(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(pfs.reason, "PD on 2021-03-26");
        assert_eq!(pfs.days, 85.0);
    }

    #[test]
    fn assessment_of_another_subject_is_an_error() {
        let mut other = a("2021-02-12", "SD");
        other.usubjid = "S2".into();
        let err = overall_survival(&subject(), &[other], &PfsOptions::default()).unwrap_err();
        assert!(err.to_string().contains("S2"), "{err}");
    }

    /// A subject who started new therapy on `started`, with the rule on.
    fn treated_again(started: &str) -> (Subject, PfsOptions) {
        let s = Subject {
            columns: [("NACTDT", started)].into_iter().collect(),
            ..subject()
        };
        let opts = PfsOptions {
            new_therapy: Some("NACTDT".to_string()),
            ..PfsOptions::default()
        };
        (s, opts)
    }

    #[test]
    fn new_therapy_before_progression_censors_at_the_last_assessment_before_it() {
        let (s, opts) = treated_again("2021-03-01");
        let record = [
            a("2021-02-12", "SD"),
            a("2021-03-26", "SD"),
            a("2021-05-07", "PD"),
        ];
        let pfs = progression_free_survival(&s, &record, &opts)
            .unwrap()
            .unwrap();
        assert_eq!(
            (pfs.rule, pfs.status),
            (TteRule::NewTherapy, Status::Censored)
        );
        assert_eq!((pfs.date, pfs.days), (d("2021-02-12"), 43.0));
        assert!(
            pfs.reason
                .contains("2021-03-01 (NACTDT) before PD on 2021-05-07"),
            "{}",
            pfs.reason
        );
        // Without the rule the PD is the event.
        let plain = progression_free_survival(&s, &record, &PfsOptions::default())
            .unwrap()
            .unwrap();
        assert_eq!(
            (plain.rule, plain.date),
            (TteRule::Progression, d("2021-05-07"))
        );
        // A death after new therapy is censored too; OS keeps it.
        let died = Subject {
            death: Some(d("2021-04-01")),
            ..s.clone()
        };
        let pfs = progression_free_survival(&died, &record[..2], &opts)
            .unwrap()
            .unwrap();
        assert_eq!((pfs.rule, pfs.date), (TteRule::NewTherapy, d("2021-02-12")));
        let os = overall_survival(&died, &record, &opts).unwrap().unwrap();
        assert_eq!((os.rule, os.date), (TteRule::Death, d("2021-04-01")));
    }

    #[test]
    fn new_therapy_rule_edges() {
        let record = [a("2021-02-12", "SD"), a("2021-03-26", "PD")];
        // A PD on the day new therapy starts is an event.
        let (s, opts) = treated_again("2021-03-26");
        let pfs = progression_free_survival(&s, &record, &opts)
            .unwrap()
            .unwrap();
        assert_eq!((pfs.rule, pfs.days), (TteRule::Progression, 85.0));
        // An assessment on the day therapy starts came before it.
        let (s, opts) = treated_again("2021-02-12");
        let pfs = progression_free_survival(&s, &record, &opts)
            .unwrap()
            .unwrap();
        assert_eq!((pfs.rule, pfs.date), (TteRule::NewTherapy, d("2021-02-12")));
        // No assessment before it: censored at the origin, day 1.
        let (s, opts) = treated_again("2021-01-20");
        let pfs = progression_free_survival(&s, &record, &opts)
            .unwrap()
            .unwrap();
        assert_eq!((pfs.rule, pfs.days), (TteRule::NewTherapy, 1.0));
        assert!(pfs.reason.contains("censored at TRTSDT"), "{}", pfs.reason);
        // Without progression: still the last assessment before new therapy.
        let (s, opts) = treated_again("2021-03-01");
        let pfs =
            progression_free_survival(&s, &[a("2021-02-12", "PR"), a("2021-04-09", "PR")], &opts)
                .unwrap()
                .unwrap();
        assert_eq!((pfs.rule, pfs.date), (TteRule::NewTherapy, d("2021-02-12")));
        // A subject with the column empty follows the other rules.
        let opts = PfsOptions {
            new_therapy: Some("NACTDT".to_string()),
            ..PfsOptions::default()
        };
        let pfs = progression_free_survival(&subject(), &record, &opts)
            .unwrap()
            .unwrap();
        assert_eq!(pfs.rule, TteRule::Progression);
        // DoR from a response after new therapy started: censored at its origin.
        let (s, opts) = treated_again("2021-02-01");
        let dor = duration_of_response(
            &s,
            &[a("2021-02-12", "PR"), a("2021-03-26", "PD")],
            Some(d("2021-02-12")),
            &opts,
        )
        .unwrap()
        .unwrap();
        assert_eq!((dor.rule, dor.days), (TteRule::NewTherapy, 1.0));
    }
}

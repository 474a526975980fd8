//! Generates the SYNTHETIC randomised example study `data/rand-example/` (ADSL, ADRS, ADTTE,
//! ADAE and `SHA256SUMS`).
//!
//!     cargo run --release --example make_randomised_example
//!
//! Nothing here comes from real patients, nor from any real trial: "Drug X" is fictional. The
//! study is a randomised, double-blind, placebo-controlled phase III trial of Drug X + chemo
//! against Placebo + chemo, 1:1 by permuted blocks of 4 within the strata ECOG performance status
//! (0/1) × region (Asia, Europe, North America), 300 subjects randomised at 30 sites in 10
//! countries from 2021-03-01 to 2022-08-31, data cut-off 2023-09-29.
//!
//! Each subject gets a latent progression time and a latent death without progression from
//! exponential models (median PFS 8.0 vs 5.0 months, HR 0.625; ECOG 1 has a 1.18 and ECOG 0 a
//! 0.80 hazard multiplier), and after progression an exponential post-progression survival
//! (median 9.2 vs 7.8 months, which makes median OS about 20 vs 15 months, HR about 0.75).
//! Tumour assessments are every 6 weeks (± 3 days) from randomisation until the visit that finds
//! the progression (PD), death, withdrawal from assessments, loss to follow-up or the cut-off.
//! Responders (about 40 % vs 25 % of the randomised subjects) have a PR at week 6 or 12 confirmed
//! 6 weeks later, some a later CR; the others have SD, a few an unconfirmed PR or an NE visit.
//! Two subjects withdrew consent after randomisation and were never treated (ITT only).
//!
//! ADTTE (PFS and OS from randomisation, `AVAL = ADT − STARTDT + 1` days) is derived from these
//! records with readout's own PFS/OS rules (FDA 2018 censoring), so it agrees with the ADRS;
//! the generator checks that the PFS readout would derive from ADRS (from TRTSDT) has the same
//! event or censoring for every subject. Adverse events: 10 treatment-related terms with per-arm
//! rates (grade ≥3 more often with Drug X) and 4 unrelated ones.
//!
//! The generator walks seeds upward from `BASE_SEED` and keeps the first data set whose medians,
//! hazard ratios and response rates land near the design (`accept`). It is deterministic (its
//! own splitmix64 PRNG, so no crate version can change the stream): the same code gives
//! byte-identical files, which `tests/randomised_example.rs` checks by running [`generate`].

use std::collections::BTreeMap;
use std::f64::consts::LN_2;
use std::fmt::Write as _;
use std::path::Path;

use chrono::{Days, NaiveDate};
use readout::derive::{derive_subject, BorOptions, DeriveOptions, PfsOptions, TimeToEvent};
use readout::model::{Assessment, Response, Status, Subject};
use readout::stats::{cox_fit, kaplan_meier, ArmSubject, CiTransform, Ties};
use sha2::{Digest, Sha256};

const MONTH: f64 = 30.4375;
const STUDY: &str = "RAND-EXAMPLE";
/// The walk from 20230929 (the cut-off date) first passes `accept` at this seed; starting here
/// saves generating the 512 data sets before it.
const BASE_SEED: u64 = 20231441;
const N: usize = 300;
const FIRST_RANDOMISATION: &str = "2021-03-01";
const LAST_RANDOMISATION: &str = "2022-08-31";
const CUTOFF: &str = "2023-09-29";
/// Subjects randomised but never treated (consent withdrawn).
const UNTREATED: usize = 2;
/// SD counts from this many days after TRTSDT in the config (6 weeks minus the visit window).
const SD_MIN_DAYS: i64 = 35;

/// P(Z > z) for a standard normal Z: erfc by Numerical Recipes' Chebyshev fit (relative error
/// below 1.2e-7), plain arithmetic so that the stream never depends on a crate.
fn upper_normal(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.5 * a);
    let poly = -1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * (-a * a + poly).exp();
    0.5 * if x >= 0.0 { erfc } else { 2.0 - erfc }
}

// Tests include two generators, each with its own copy of the stream.
#[allow(clippy::duplicate_mod)]
#[path = "support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// Draws only this generator needs.
impl Rng {
    /// Exponential with the given rate (per day), in days.
    fn exp_rate(&mut self, rate: f64) -> f64 {
        -(1.0 - self.uniform()).ln() / rate
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// A treatment-related adverse-event term: (term, SOC, any-grade probability per arm, and the
/// probability that an event is grade ≥3, per arm). Arms in `ARMS` order.
type TermSpec = (&'static str, &'static str, [f64; 2], [f64; 2]);

/// An arm of the design.
struct ArmModel {
    name: &'static str,
    code: &'static str,
    /// Median PFS, months.
    pfs_median: f64,
    /// Median OS, months.
    os_median: f64,
    /// Probability of a confirmed response for a subject with two assessments before PD.
    p_respond: f64,
}

/// The experimental arm first, the reference (placebo) arm second.
const ARMS: [ArmModel; 2] = [
    ArmModel {
        name: "Drug X + chemo",
        code: "DRUGX",
        pfs_median: 8.0,
        os_median: 20.0,
        p_respond: 0.55,
    },
    ArmModel {
        name: "Placebo + chemo",
        code: "PBO",
        pfs_median: 4.6,
        os_median: 15.0,
        p_respond: 0.40,
    },
];

/// Correlation of the latent progression and death times (Gaussian copula): with 0.8 about
/// 10 % of the PFS events are deaths without progression.
const CORRELATION: f64 = 0.8;
/// Share of progressions found at an unscheduled assessment (symptoms) rather than the next
/// scheduled one.
const UNSCHEDULED_PD: f64 = 0.2;
/// Median time to stopping tumour assessments without progression (withdrawal), months.
const WITHDRAWAL_MEDIAN: f64 = 60.0;
/// Median time to loss to follow-up, months.
const LOSS_MEDIAN: f64 = 200.0;

/// Sites: (SITEID, region, country).
const SITES: [(&str, &str, &str); 30] = [
    ("101", "Asia", "China"),
    ("102", "Asia", "China"),
    ("103", "Asia", "China"),
    ("104", "Asia", "China"),
    ("105", "Asia", "Japan"),
    ("106", "Asia", "Japan"),
    ("107", "Asia", "Japan"),
    ("108", "Asia", "South Korea"),
    ("109", "Asia", "South Korea"),
    ("110", "Asia", "South Korea"),
    ("201", "Europe", "Germany"),
    ("202", "Europe", "Germany"),
    ("203", "Europe", "Germany"),
    ("204", "Europe", "France"),
    ("205", "Europe", "France"),
    ("206", "Europe", "France"),
    ("207", "Europe", "Spain"),
    ("208", "Europe", "Spain"),
    ("209", "Europe", "Italy"),
    ("210", "Europe", "Italy"),
    ("211", "Europe", "Poland"),
    ("212", "Europe", "Poland"),
    ("301", "North America", "United States"),
    ("302", "North America", "United States"),
    ("303", "North America", "United States"),
    ("304", "North America", "United States"),
    ("305", "North America", "United States"),
    ("306", "North America", "United States"),
    ("307", "North America", "Canada"),
    ("308", "North America", "Canada"),
];

const RELATED_TERMS: [TermSpec; 10] = [
    (
        "Neutrophil count decreased",
        "Investigations",
        [0.48, 0.42],
        [0.55, 0.50],
    ),
    (
        "Anaemia",
        "Blood and lymphatic system disorders",
        [0.40, 0.36],
        [0.25, 0.22],
    ),
    (
        "Nausea",
        "Gastrointestinal disorders",
        [0.38, 0.35],
        [0.05, 0.04],
    ),
    (
        "Fatigue",
        "General disorders and administration site conditions",
        [0.36, 0.30],
        [0.08, 0.06],
    ),
    (
        "Diarrhoea",
        "Gastrointestinal disorders",
        [0.30, 0.16],
        [0.15, 0.08],
    ),
    (
        "Hypertension",
        "Vascular disorders",
        [0.26, 0.08],
        [0.30, 0.15],
    ),
    (
        "Alopecia",
        "Skin and subcutaneous tissue disorders",
        [0.24, 0.22],
        [0.0, 0.0],
    ),
    (
        "Decreased appetite",
        "Metabolism and nutrition disorders",
        [0.22, 0.18],
        [0.05, 0.03],
    ),
    (
        "Rash",
        "Skin and subcutaneous tissue disorders",
        [0.20, 0.07],
        [0.10, 0.0],
    ),
    (
        "Platelet count decreased",
        "Investigations",
        [0.20, 0.15],
        [0.30, 0.25],
    ),
];

/// Adverse events not related to treatment: (term, SOC, any-grade probability, both arms).
const UNRELATED_TERMS: [(&str, &str, f64); 4] = [
    (
        "Cough",
        "Respiratory, thoracic and mediastinal disorders",
        0.12,
    ),
    (
        "Back pain",
        "Musculoskeletal and connective tissue disorders",
        0.10,
    ),
    (
        "Pyrexia",
        "General disorders and administration site conditions",
        0.10,
    ),
    ("Constipation", "Gastrointestinal disorders", 0.14),
];

fn date(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("valid literal date")
}

fn plus(d: NaiveDate, days: i64) -> NaiveDate {
    if days >= 0 {
        d.checked_add_days(Days::new(days as u64))
    } else {
        d.checked_sub_days(Days::new(days.unsigned_abs()))
    }
    .expect("date in range")
}

/// One adverse event.
struct Event {
    term: &'static str,
    soc: &'static str,
    grade: u8,
    related: bool,
    start: NaiveDate,
    serious: bool,
    resolved: bool,
}

/// One randomised subject.
struct Patient {
    usubjid: String,
    site: usize,
    age: i64,
    sex: &'static str,
    ecog: u8,
    arm: usize,
    rand: NaiveDate,
    trt_start: Option<NaiveDate>,
    trt_end: Option<NaiveDate>,
    death: Option<NaiveDate>,
    last_alive: NaiveDate,
    assessments: Vec<Assessment>,
    events: Vec<Event>,
    /// PFS and OS from randomisation, as ADTTE holds them.
    pfs: TimeToEvent,
    os: TimeToEvent,
}

impl Patient {
    /// The subject as readout reads it from ADSL, with the given time origin as TRTSDT.
    fn subject(&self, origin: Option<NaiveDate>) -> Subject {
        Subject {
            usubjid: self.usubjid.as_str().into(),
            site: None,
            trt_start: origin,
            trt_end: self.trt_end,
            enrolled: Some(self.rand),
            death: self.death,
            last_alive: Some(self.last_alive),
            safety: self.trt_start.is_some(),
            efficacy: true,
            treated_past_cutoff: false,
            columns: Default::default(),
        }
    }
}

/// Randomisation dates: the first and last fixed, the rest spread over the window with a
/// ramp-up (enrolment faster once every site is open).
fn randomisation_dates(rng: &mut Rng) -> Vec<NaiveDate> {
    let first = date(FIRST_RANDOMISATION);
    let last = date(LAST_RANDOMISATION);
    let window = (last - first).num_days() as f64;
    let mut u: Vec<f64> = (0..N).map(|_| rng.uniform()).collect();
    u.sort_by(f64::total_cmp);
    let mut dates: Vec<NaiveDate> = u
        .iter()
        .map(|x| plus(first, (window * x.powf(0.75)).round() as i64))
        .collect();
    if let Some(d) = dates.first_mut() {
        *d = first;
    }
    if let Some(d) = dates.last_mut() {
        *d = last;
    }
    dates
}

/// The course of one treated subject: tumour assessments, treatment end, death and last
/// contact, in days from randomisation.
struct Course {
    trt_offset: i64,
    /// (day, unscheduled, response)
    assessments: Vec<(i64, bool, Response)>,
    trt_end: Option<i64>,
    death: Option<i64>,
    last_alive: i64,
}

fn course(rng: &mut Rng, arm: &ArmModel, ecog: u8, available: i64) -> Course {
    let factor = if ecog == 0 { 0.80 } else { 1.18 };
    let trt_offset = rng.range(0, 3);
    // Latent progression and death times, exponential with the arm's medians (so hazards are
    // proportional) and correlated through a Gaussian copula.
    let z_pfs = rng.normal();
    let z_os = CORRELATION * z_pfs + (1.0 - CORRELATION * CORRELATION).sqrt() * rng.normal();
    let latent = |z: f64, median: f64| -(upper_normal(z).ln()) * median * MONTH / LN_2 / factor;
    let progression = latent(z_pfs, arm.pfs_median);
    let death_day = latent(z_os, arm.os_median);
    // Death first: no progression.
    let progression = if progression < death_day {
        progression
    } else {
        f64::INFINITY
    };
    let withdrawal = rng.exp_rate(LN_2 / (WITHDRAWAL_MEDIAN * MONTH)).ceil() as i64;
    let loss = rng.exp_rate(LN_2 / (LOSS_MEDIAN * MONTH)).ceil() as i64;
    // Symptomatic progression found at an unscheduled assessment, before the next visit.
    let unscheduled = rng.uniform() < UNSCHEDULED_PD;
    let unscheduled_delay = rng.range(0, 10);
    // Not within the first days of treatment (the eligibility criteria ask for a life
    // expectancy of at least 3 months; early deaths still happen, a little later).
    let earliest_death = trt_offset + rng.range(7, 28);
    let death_day = (death_day.ceil() as i64).max(earliest_death);
    let lost = loss < death_day.min(available);
    let follow = if lost { loss } else { available };
    let assess_until = follow.min(death_day - 1).min(withdrawal);

    // Visits every 6 weeks (± 3 days) from randomisation; the first one at or after the
    // progression finds it (or an unscheduled one, for symptomatic progression).
    let mut visits: Vec<(i64, bool)> = Vec::new();
    let mut pd_visit = None;
    for k in 1.. {
        let day = 42 * k + rng.range(-3, 3);
        let previous = visits.last().map_or(trt_offset, |v| v.0);
        if unscheduled && progression <= day as f64 {
            let pd = (progression.ceil() as i64 + unscheduled_delay).max(previous + 1);
            if pd < day && pd <= assess_until {
                visits.push((pd, true));
                pd_visit = Some(pd);
                break;
            }
        }
        if day > assess_until {
            break;
        }
        visits.push((day, false));
        if day as f64 >= progression {
            pd_visit = Some(day);
            break;
        }
    }
    let before_pd = visits.len() - usize::from(pd_visit.is_some());
    let mut responses = vec![Response::StableDisease; before_pd];
    let responder = before_pd >= 2 && rng.uniform() < arm.p_respond;
    let mut protected = Vec::new();
    if responder {
        let first = if before_pd >= 3 && rng.uniform() < 0.3 {
            1
        } else {
            0
        };
        for r in responses.iter_mut().skip(first) {
            *r = Response::PartialResponse;
        }
        if before_pd >= first + 3 && rng.uniform() < 0.15 {
            let cr = first + 2 + rng.below(before_pd - first - 2);
            for r in responses.iter_mut().skip(cr) {
                *r = Response::CompleteResponse;
            }
        }
        protected = vec![first, first + 1];
    } else if before_pd >= 1 && rng.uniform() < 0.08 {
        // A single unconfirmed PR.
        let k = rng.below(before_pd);
        responses[k] = Response::PartialResponse;
        protected = vec![k];
    }
    for (k, r) in responses.iter_mut().enumerate() {
        if !protected.contains(&k) && rng.uniform() < 0.02 {
            *r = Response::NotEvaluable;
        }
    }
    let mut assessments: Vec<(i64, bool, Response)> = visits
        .iter()
        .zip(responses)
        .map(|(&(day, unscheduled), r)| (day, unscheduled, r))
        .collect();
    if let Some(&(day, unscheduled)) = visits.last().filter(|_| pd_visit.is_some()) {
        assessments.push((day, unscheduled, Response::ProgressiveDisease));
    }
    let death = (death_day <= follow).then_some(death_day);
    let last_visit = visits.last().map_or(trt_offset, |v| v.0);
    let trt_end = if let Some(pd) = pd_visit {
        Some((pd + rng.range(0, 7)).min(follow).min(death_day))
    } else if let Some(d) = death {
        Some((d - rng.range(0, 14)).max(trt_offset))
    } else if assess_until < follow {
        // Withdrew from treatment and assessments, or lost to follow-up.
        Some((last_visit + rng.range(1, 21)).min(assess_until.max(trt_offset)))
    } else {
        None
    };
    let trt_end = trt_end.map(|d| d.max(trt_offset));
    let last_alive = match death {
        Some(d) => d,
        None if lost => loss,
        None => available - rng.range(0, 21),
    };
    Course {
        trt_offset,
        assessments,
        trt_end,
        death,
        last_alive,
    }
}

/// Adverse events of a treated subject, dated on treatment (and before death or last contact).
fn adverse_events(rng: &mut Rng, arm: usize, start: NaiveDate, end: NaiveDate) -> Vec<Event> {
    let span = (end - start).num_days().max(1);
    let mut events = Vec::new();
    for (term, soc, any, g3) in RELATED_TERMS {
        if rng.uniform() >= any[arm] {
            continue;
        }
        let grade = if rng.uniform() < g3[arm] {
            if term.contains("count decreased") && rng.uniform() < 0.25 {
                4
            } else {
                3
            }
        } else if term == "Alopecia" || rng.uniform() < 0.55 {
            1
        } else {
            2
        };
        let grade = if term == "Alopecia" {
            grade.min(2)
        } else {
            grade
        };
        events.push(Event {
            term,
            soc,
            grade,
            related: true,
            start: plus(start, rng.range(1, span.min(150))),
            serious: grade >= 3 && rng.uniform() < 0.3,
            resolved: rng.uniform() < 0.8,
        });
    }
    for (term, soc, p) in UNRELATED_TERMS {
        if rng.uniform() >= p {
            continue;
        }
        events.push(Event {
            term,
            soc,
            grade: if rng.uniform() < 0.75 { 1 } else { 2 },
            related: false,
            start: plus(start, rng.range(1, span.min(300))),
            serious: false,
            resolved: rng.uniform() < 0.85,
        });
    }
    events.sort_by_key(|e| e.start);
    events
}

fn derive_options() -> DeriveOptions {
    DeriveOptions {
        bor: BorOptions {
            sd_min_days: SD_MIN_DAYS,
            missing_as_ne: true,
            ..BorOptions::default()
        },
        pfs: PfsOptions::default(),
    }
}

/// Every subject of one seed.
fn trial(seed: u64) -> Vec<Patient> {
    let mut rng = Rng(seed);
    let cutoff = date(CUTOFF);
    let dates = randomisation_dates(&mut rng);
    let mut untreated: Vec<usize> = Vec::new();
    while untreated.len() < UNTREATED {
        let i = rng.below(N);
        if !untreated.contains(&i) {
            untreated.push(i);
        }
    }
    // Permuted blocks of 4 within each stratum (ECOG × region).
    let mut blocks: BTreeMap<(u8, &str), Vec<usize>> = BTreeMap::new();
    let mut per_site = [0usize; SITES.len()];
    let opts = derive_options();
    let mut patients = Vec::with_capacity(N);
    for (i, &rand) in dates.iter().enumerate() {
        let site = rng.below(SITES.len());
        let ecog = u8::from(rng.uniform() >= 0.45);
        let block = blocks.entry((ecog, SITES[site].1)).or_default();
        if block.is_empty() {
            *block = vec![0, 0, 1, 1];
            rng.shuffle(block);
        }
        let arm = block.pop().expect("a block is refilled when empty");
        let sex = if rng.uniform() < 0.6 { "M" } else { "F" };
        let age = ((61.0 + 9.5 * rng.normal()).round() as i64).clamp(28, 84);
        per_site[site] += 1;
        let usubjid = format!("{STUDY}-{}{:03}", SITES[site].0, per_site[site]);
        let available = (cutoff - rand).num_days();
        let mut p = Patient {
            usubjid,
            site,
            age,
            sex,
            ecog,
            arm,
            rand,
            trt_start: None,
            trt_end: None,
            death: None,
            last_alive: rand,
            assessments: Vec::new(),
            events: Vec::new(),
            pfs: placeholder_tte(rand),
            os: placeholder_tte(rand),
        };
        if untreated.contains(&i) {
            // Consent withdrawn before the first dose: no treatment, no assessment.
            p.last_alive = plus(rand, rng.range(3, 30));
        } else {
            let c = course(&mut rng, &ARMS[arm], ecog, available);
            let start = plus(rand, c.trt_offset);
            p.trt_start = Some(start);
            p.trt_end = c.trt_end.map(|d| plus(rand, d));
            p.death = c.death.map(|d| plus(rand, d));
            p.assessments = c
                .assessments
                .iter()
                .map(|&(day, unscheduled, response)| Assessment {
                    visit: Some(if unscheduled {
                        "UNSCHEDULED".to_string()
                    } else {
                        format!("WEEK {}", (day + 21) / 42 * 6)
                    }),
                    ..Assessment::recist(p.usubjid.clone(), plus(rand, day), response)
                })
                .collect();
            // Adverse events from the first dose to 30 days after the last (TEAE window),
            // before death or last contact.
            let end = p
                .trt_end
                .map_or(cutoff, |d| plus(d, 30).min(cutoff))
                .min(plus(rand, c.last_alive));
            p.events = adverse_events(&mut rng, arm, start, end.max(plus(start, 1)));
            // The subject was seen alive at every assessment and adverse event.
            let seen = p
                .assessments
                .iter()
                .map(|a| a.date)
                .chain(p.events.iter().map(|e| e.start))
                .chain(p.trt_end)
                .max()
                .unwrap_or(start);
            p.last_alive = match p.death {
                Some(d) => d,
                None => plus(rand, c.last_alive).max(seen),
            };
        }
        // PFS and OS from randomisation, by readout's own rules.
        let derived = derive_subject(&p.subject(Some(rand)), &p.assessments, &opts)
            .expect("the generated records derive");
        p.pfs = derived.pfs.expect("PFS from randomisation");
        p.os = derived.os.expect("OS from randomisation");
        patients.push(p);
    }
    patients.sort_by(|a, b| a.usubjid.cmp(&b.usubjid));
    patients
}

fn placeholder_tte(origin: NaiveDate) -> TimeToEvent {
    TimeToEvent {
        days: 1.0,
        status: Status::Censored,
        date: origin,
        reason: String::new(),
        cnsr: 1,
        rule: readout::derive::TteRule::LastAdequateAssessment,
    }
}

/// What one seed's data set gives, per arm (ARMS order).
#[derive(Debug)]
struct Summary {
    n: [usize; 2],
    pfs_median: [Option<f64>; 2],
    os_median: [Option<f64>; 2],
    pfs_hr: Option<f64>,
    os_hr: Option<f64>,
    orr: [f64; 2],
    g3_trae: [f64; 2],
    centres: usize,
    /// Subjects whose PFS derived from ADRS (origin TRTSDT) is an event while ADTTE's is
    /// censored, or the other way round.
    pfs_disagreements: usize,
}

fn summarise(patients: &[Patient]) -> Summary {
    let opts = derive_options();
    let mut n = [0usize; 2];
    let mut responders = [0usize; 2];
    let mut treated = [0usize; 2];
    let mut g3 = [0usize; 2];
    let mut pfs: [(Vec<f64>, Vec<bool>); 2] = Default::default();
    let mut os: [(Vec<f64>, Vec<bool>); 2] = Default::default();
    let mut cox_pfs = Vec::new();
    let mut cox_os = Vec::new();
    let mut disagreements = 0;
    let mut sites = std::collections::BTreeSet::new();
    for p in patients {
        let a = p.arm;
        n[a] += 1;
        sites.insert(p.site);
        let d = derive_subject(&p.subject(p.trt_start), &p.assessments, &opts)
            .expect("the generated records derive");
        if d.bor.bor.is_objective_response() {
            responders[a] += 1;
        }
        if let Some(from_trtsdt) = &d.pfs {
            if from_trtsdt.status != p.pfs.status {
                disagreements += 1;
            }
        }
        if p.trt_start.is_some() {
            treated[a] += 1;
            if p.events.iter().any(|e| e.related && e.grade >= 3) {
                g3[a] += 1;
            }
        }
        for (tte, per_arm, cox) in [
            (&p.pfs, &mut pfs, &mut cox_pfs),
            (&p.os, &mut os, &mut cox_os),
        ] {
            let event = tte.status == Status::Event;
            per_arm[a].0.push(tte.days / MONTH);
            per_arm[a].1.push(event);
            cox.push(ArmSubject {
                time: tte.days,
                event,
                in_arm: a == 0,
                stratum: None,
            });
        }
    }
    let median = |(times, events): &(Vec<f64>, Vec<bool>)| {
        kaplan_meier(times, events)
            .ok()
            .and_then(|f| f.quantile(0.5, 0.95, CiTransform::LogLog).ok())
            .and_then(|q| q.estimate)
    };
    let hr = |subjects: &[ArmSubject]| {
        cox_fit(subjects, Ties::Efron, 0.95)
            .ok()
            .and_then(|f| f.hr)
            .map(|h| h.estimate)
    };
    Summary {
        n,
        pfs_median: [median(&pfs[0]), median(&pfs[1])],
        os_median: [median(&os[0]), median(&os[1])],
        pfs_hr: hr(&cox_pfs),
        os_hr: hr(&cox_os),
        orr: [
            responders[0] as f64 / n[0] as f64,
            responders[1] as f64 / n[1] as f64,
        ],
        g3_trae: [
            g3[0] as f64 / treated[0] as f64,
            g3[1] as f64 / treated[1] as f64,
        ],
        centres: sites.len(),
        pfs_disagreements: disagreements,
    }
}

/// The data set is kept when it lands near the design.
fn accept(s: &Summary) -> bool {
    let near = |v: Option<f64>, target: f64, tolerance: f64| {
        v.is_some_and(|v| (v - target).abs() <= tolerance)
    };
    near(s.pfs_median[0], 8.0, 0.4)
        && near(s.pfs_median[1], 5.0, 0.4)
        && near(s.os_median[0], 20.0, 1.5)
        && near(s.os_median[1], 15.0, 1.2)
        && near(s.pfs_hr, 0.62, 0.04)
        && near(s.os_hr, 0.75, 0.05)
        && near(Some(s.orr[0]), 0.40, 0.025)
        && near(Some(s.orr[1]), 0.25, 0.025)
        && s.g3_trae[0] > s.g3_trae[1] + 0.05
        && s.n[0].abs_diff(s.n[1]) <= 4
        && s.centres == SITES.len()
        && s.pfs_disagreements == 0
}

fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn opt_date(d: Option<NaiveDate>) -> String {
    d.map(|d| d.to_string()).unwrap_or_default()
}

/// The four CSV files of a data set, by name.
fn files(patients: &[Patient]) -> Vec<(&'static str, String)> {
    let mut adsl = String::from(
        "STUDYID,USUBJID,SUBJID,SITEID,COUNTRY,REGION,AGE,AGEGR1,SEX,ECOG,ARMCD,ARM,ACTARMCD,ACTARM,RANDDT,TRTSDT,TRTEDT,DTHDT,LSTALVDT,ITTFL,SAFFL,EFFFL\n",
    );
    let mut adrs = String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVISIT,ADT,AVALC\n");
    let mut adtte = String::from(
        "STUDYID,USUBJID,PARAMCD,PARAM,AVAL,AVALU,CNSR,STARTDT,ADT,EVNTDESC,CNSDTDSC\n",
    );
    let mut adae = String::from(
        "STUDYID,USUBJID,AESEQ,AETERM,AEDECOD,AEBODSYS,ATOXGR,AEREL,ASTDT,TRTEMFL,AESER,AEOUT\n",
    );
    for p in patients {
        let (site, region, country) = SITES[p.site];
        let arm = &ARMS[p.arm];
        let treated = p.trt_start.is_some();
        let (actcd, actarm) = if treated {
            (arm.code, arm.name)
        } else {
            ("NOTTRT", "Not Treated")
        };
        let flag = |b: bool| if b { "Y" } else { "N" };
        let _ = writeln!(
            adsl,
            "{STUDY},{},{},{site},{},{region},{},{},{},{},{},{},{actcd},{},{},{},{},{},{},Y,{},{}",
            p.usubjid,
            p.usubjid.rsplit('-').next().unwrap_or(""),
            field(country),
            p.age,
            if p.age < 65 { "<65" } else { ">=65" },
            p.sex,
            p.ecog,
            arm.code,
            field(arm.name),
            field(actarm),
            p.rand,
            opt_date(p.trt_start),
            opt_date(p.trt_end),
            opt_date(p.death),
            p.last_alive,
            flag(treated),
            flag(treated),
        );
        for a in &p.assessments {
            let _ = writeln!(
                adrs,
                "{STUDY},{},OVR,Overall Response by Investigator,{},{},{}",
                p.usubjid,
                a.visit.clone().unwrap_or_default(),
                a.date,
                a.response.code()
            );
        }
        for (paramcd, param, tte) in [
            ("PFS", "Progression-Free Survival (days)", &p.pfs),
            ("OS", "Overall Survival (days)", &p.os),
        ] {
            let event = tte.status == Status::Event;
            let (evntdesc, cnsdtdsc) = if event {
                let progression = p
                    .assessments
                    .iter()
                    .any(|a| a.response == Response::ProgressiveDisease && a.date == tte.date);
                (
                    if progression {
                        "DISEASE PROGRESSION"
                    } else {
                        "DEATH"
                    },
                    "",
                )
            } else if tte.date == p.rand {
                ("", "RANDOMIZATION")
            } else if paramcd == "PFS" {
                ("", "LAST ADEQUATE TUMOR ASSESSMENT")
            } else {
                ("", "LAST KNOWN ALIVE DATE")
            };
            let _ = writeln!(
                adtte,
                "{STUDY},{},{paramcd},{param},{},DAYS,{},{},{},{evntdesc},{cnsdtdsc}",
                p.usubjid, tte.days, tte.cnsr, p.rand, tte.date
            );
        }
        for (seq, e) in p.events.iter().enumerate() {
            let _ = writeln!(
                adae,
                "{STUDY},{},{},{},{},{},{},{},{},Y,{},{}",
                p.usubjid,
                seq + 1,
                field(&e.term.to_uppercase()),
                field(e.term),
                field(e.soc),
                e.grade,
                if e.related { "RELATED" } else { "NOT RELATED" },
                e.start,
                if e.serious { "Y" } else { "N" },
                if e.resolved {
                    "RECOVERED/RESOLVED"
                } else {
                    "NOT RECOVERED/NOT RESOLVED"
                },
            );
        }
    }
    vec![
        ("adsl.csv", adsl),
        ("adrs.csv", adrs),
        ("adtte.csv", adtte),
        ("adae.csv", adae),
    ]
}

const README: &str = "# SYNTHETIC randomised example data\n\n\
These files are generated by `examples/make_randomised_example.rs` \
(`cargo run --release --example make_randomised_example`) and describe no real patient and no \
real trial: Drug X is fictional. 300 subjects randomised 1:1 to Drug X + chemo or Placebo + \
chemo, stratified by ECOG (0/1) and REGION; PFS and OS in ADTTE are derived from the ADRS and \
ADSL records with readout's own rules. `SHA256SUMS` lists the files' SHA-256 \
(`sha256sum -c SHA256SUMS`). See the generator's header and `docs/EXAMPLE-DATA.md`.\n";

/// Generates the data set into `out` (created if needed); returns the seed used.
pub fn generate(out: &Path) -> u64 {
    for seed in BASE_SEED..BASE_SEED + 100_000 {
        let patients = trial(seed);
        let summary = summarise(&patients);
        if !accept(&summary) {
            continue;
        }
        std::fs::create_dir_all(out).expect("create data folder");
        let mut files = files(&patients);
        files.push(("README.md", README.to_string()));
        let mut sums = String::new();
        for (name, body) in &files {
            std::fs::write(out.join(name), body).expect("write data file");
            let _ = writeln!(sums, "{:x}  {name}", Sha256::digest(body.as_bytes()));
        }
        std::fs::write(out.join("SHA256SUMS"), sums).expect("write SHA256SUMS");
        return seed;
    }
    panic!("no seed from {BASE_SEED} gives a data set near the design");
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rand-example");
    let seed = generate(&out);
    let patients = trial(seed);
    eprintln!("seed {seed}: {:#?}", summarise(&patients));
}

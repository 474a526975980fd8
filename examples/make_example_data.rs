//! Generates the SYNTHETIC example study `data/altn-ak105-ii-01/` (ADSL, ADRS, ADAE, ADTR).
//!
//!     cargo run --release --example make_example_data
//!
//! Nothing here comes from real patients. The data mirror the published abstracts of cohorts
//! 1, 2 and 4 of ALTN-AK105-II-01 (`../shared/seeds/`): every count the abstracts give (N,
//! enrolment window, centres, primary sites, histologies, age, ECOG, sex, doses, confirmed
//! CR/PR/SD, PFS events, deaths, TRAE counts and the most common terms) is built in by
//! construction. Times are drawn from exponential models with the published medians; for each
//! cohort the generator walks seeds upward from a fixed base seed and keeps the first data set
//! whose derived event counts equal the published ones exactly and whose medians land near the
//! published medians (the tolerances are in `Target`). Per-visit responses follow RECIST 1.1
//! schedules (every 6 weeks, every 9 weeks after week 48), so readout derives the best overall
//! response from them; no BOR is stored.
//!
//! The generator is deterministic: the same code gives byte-identical files (its own PRNG,
//! splitmix64, so no crate version can change the stream).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use chrono::{Days, NaiveDate};
use readout::derive::{derive_subject, BorOptions, DeriveOptions, PfsOptions};
use readout::model::{Assessment, Response, Status, Subject};
use readout::stats::{kaplan_meier, CiTransform};

const MONTH: f64 = 30.4375;

// Tests include two generators, each with its own copy of the stream.
#[allow(clippy::duplicate_mod)]
#[path = "support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// Draws only this generator needs.
impl Rng {
    /// Exponential with the given median.
    fn exp_median(&mut self, median: f64) -> f64 {
        -median / std::f64::consts::LN_2 * (1.0 - self.uniform()).ln()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bor {
    Cr,
    Pr,
    Sd,
    Pd,
    Ne,
}

/// An adverse-event term: (term, SOC, subjects with it as a TRAE at any grade, at grade ≥3).
type TermSpec = (&'static str, &'static str, usize, usize);

/// What a cohort must reproduce.
struct Target {
    cohort: &'static str,
    base_seed: u64,
    n: usize,
    first_enrolment: &'static str,
    last_enrolment: &'static str,
    /// Enrolment position = window × u^skew (skew < 1: enrolment speeds up over time).
    enrol_skew: f64,
    sites: &'static [&'static str],
    cutoff: &'static str,
    /// CR, PR, SD, PD, NE.
    bor: [usize; 5],
    pfs_events: usize,
    /// Published median PFS (months) and the relative tolerance accepted.
    pfs_median: f64,
    pfs_tolerance: f64,
    /// Published number of deaths, when the abstract gives one.
    deaths: Option<usize>,
    /// Median OS model (months), and whether the published median was not reached.
    os_median: f64,
    os_not_reached: bool,
    /// Median time to leaving assessments without progression (months).
    dropout_median: f64,
    /// Published median follow-up (months), endpoint (reverse KM), tolerance.
    followup: Option<(f64, &'static str, f64)>,
    /// PFS at 6 months (proportion) and absolute tolerance.
    pfs6: Option<(f64, f64)>,
    /// The published median duration of response was not reached.
    dor_not_reached: bool,
    sd_min_days: i64,
    /// Subjects with any TRAE, with grade ≥3 TRAE.
    trae_any: usize,
    trae_grade3: usize,
    terms: &'static [TermSpec],
    /// Categorical ADSL columns: (column, [(value, count)]).
    categorical: &'static [(&'static str, &'static [(&'static str, usize)])],
    /// Age: (min, median, max).
    age: (i64, i64, i64),
}

const COHORT_1: Target = Target {
    cohort: "1",
    base_seed: 20220106,
    n: 38,
    first_enrolment: "2020-06-01",
    last_enrolment: "2021-11-22",
    enrol_skew: 0.55,
    sites: &["101", "102", "103", "104", "105", "106", "107", "108"],
    cutoff: "2022-01-06",
    bor: [0, 13, 14, 8, 3],
    pfs_events: 17,
    pfs_median: 8.35,
    pfs_tolerance: 0.12,
    deaths: Some(9),
    os_median: 20.0,
    os_not_reached: true,
    dropout_median: 40.0,
    followup: Some((6.96, "OS", 0.15)),
    pfs6: Some((0.625, 0.08)),
    dor_not_reached: true,
    sd_min_days: 28,
    trae_any: 34,
    trae_grade3: 15,
    terms: &[
        ("Hypertension", "Vascular disorders", 11, 5),
        ("Hypothyroidism", "Endocrine disorders", 11, 0),
        ("Proteinuria", "Renal and urinary disorders", 9, 2),
        (
            "Palmar-plantar erythrodysaesthesia syndrome",
            "Skin and subcutaneous tissue disorders",
            8,
            2,
        ),
        (
            "Fatigue",
            "General disorders and administration site conditions",
            7,
            1,
        ),
        (
            "Aspartate aminotransferase increased",
            "Investigations",
            6,
            1,
        ),
        (
            "Hypertriglyceridaemia",
            "Metabolism and nutrition disorders",
            6,
            2,
        ),
        ("Diarrhoea", "Gastrointestinal disorders", 5, 1),
        ("Oral mucositis", "Gastrointestinal disorders", 4, 1),
        ("Haemorrhage", "Vascular disorders", 3, 1),
    ],
    categorical: &[
        (
            "PRIMSITE",
            &[
                ("Oral cavity", 15),
                ("Larynx", 10),
                ("Oropharynx", 6),
                ("Hypopharynx", 4),
                ("Other", 3),
            ],
        ),
        ("HISTOL", &[("Squamous cell carcinoma", 38)]),
        ("ECOG", &[("0", 9), ("1", 29)]),
        ("SEX", &[("M", 33), ("F", 5)]),
        ("ANLDOSE", &[("12", 38)]),
        ("METAST", &[("Y", 21), ("N", 17)]),
        ("PRIORCHEMO", &[("Y", 38)]),
    ],
    age: (34, 57, 72),
};

const COHORT_2: Target = Target {
    cohort: "2",
    base_seed: 20221020,
    n: 21,
    first_enrolment: "2020-05-21",
    last_enrolment: "2020-10-14",
    enrol_skew: 1.0,
    sites: &["101", "102", "103", "104", "105", "106", "107"],
    cutoff: "2022-10-20",
    bor: [0, 4, 17, 0, 0],
    pfs_events: 9,
    pfs_median: 10.6,
    pfs_tolerance: 0.15,
    deaths: None,
    os_median: 40.0,
    os_not_reached: false,
    dropout_median: 13.0,
    followup: Some((14.2, "PFS", 0.15)),
    pfs6: None,
    dor_not_reached: false,
    sd_min_days: 42,
    trae_any: 20,
    trae_grade3: 14,
    terms: &[
        ("Hypertension", "Vascular disorders", 9, 3),
        ("Proteinuria", "Renal and urinary disorders", 7, 2),
        ("Hypothyroidism", "Endocrine disorders", 6, 0),
        (
            "Hypertriglyceridaemia",
            "Metabolism and nutrition disorders",
            5,
            2,
        ),
        (
            "Palmar-plantar erythrodysaesthesia syndrome",
            "Skin and subcutaneous tissue disorders",
            5,
            2,
        ),
        (
            "Gamma-glutamyltransferase increased",
            "Investigations",
            4,
            2,
        ),
        ("Lipase increased", "Investigations", 3, 2),
        ("Hyponatraemia", "Metabolism and nutrition disorders", 3, 1),
        ("Diarrhoea", "Gastrointestinal disorders", 3, 1),
        (
            "Fatigue",
            "General disorders and administration site conditions",
            3,
            0,
        ),
    ],
    categorical: &[
        (
            "PRIMSITE",
            &[
                ("Salivary gland", 15),
                ("Nasal cavity and paranasal sinus", 4),
                ("Other", 2),
            ],
        ),
        (
            "HISTOL",
            &[
                ("Adenoid cystic carcinoma", 7),
                ("Duct carcinoma", 4),
                ("Mucoepidermoid carcinoma", 3),
                ("Adenocarcinoma, NOS", 3),
                ("Acinic cell carcinoma", 2),
                ("Myoepithelial carcinoma", 2),
            ],
        ),
        ("METAST", &[("Y", 15), ("N", 6)]),
        ("PRIORCHEMO", &[("Y", 12), ("N", 9)]),
        ("ECOG", &[("0", 8), ("1", 13)]),
        ("SEX", &[("M", 12), ("F", 9)]),
        ("ANLDOSE", &[("12", 21)]),
    ],
    age: (29, 52, 70),
};

const COHORT_4: Target = Target {
    cohort: "4",
    base_seed: 20210125,
    n: 20,
    first_enrolment: "2020-04-08",
    last_enrolment: "2020-11-17",
    enrol_skew: 0.9,
    sites: &["101", "102", "103", "105", "106", "108"],
    cutoff: "2021-01-25",
    bor: [1, 9, 5, 4, 1],
    pfs_events: 9,
    pfs_median: 4.7,
    pfs_tolerance: 0.15,
    deaths: None,
    os_median: 12.0,
    os_not_reached: false,
    dropout_median: 30.0,
    followup: None,
    pfs6: None,
    dor_not_reached: false,
    sd_min_days: 42,
    trae_any: 18,
    trae_grade3: 6,
    terms: &[
        ("Hypertension", "Vascular disorders", 8, 2),
        ("Hypothyroidism", "Endocrine disorders", 6, 0),
        (
            "Hypertriglyceridaemia",
            "Metabolism and nutrition disorders",
            5,
            1,
        ),
        ("Proteinuria", "Renal and urinary disorders", 5, 0),
        (
            "Gamma-glutamyltransferase increased",
            "Investigations",
            4,
            1,
        ),
        (
            "Palmar-plantar erythrodysaesthesia syndrome",
            "Skin and subcutaneous tissue disorders",
            4,
            1,
        ),
        ("Hyponatraemia", "Metabolism and nutrition disorders", 3, 1),
        (
            "Fatigue",
            "General disorders and administration site conditions",
            3,
            0,
        ),
        (
            "Decreased appetite",
            "Metabolism and nutrition disorders",
            2,
            0,
        ),
    ],
    categorical: &[
        ("PRIMSITE", &[("Lung", 20)]),
        ("HISTOL", &[("Small cell lung cancer", 20)]),
        ("ECOG", &[("0", 1), ("1", 19)]),
        ("SEX", &[("M", 13), ("F", 7)]),
        ("ANLDOSE", &[("12", 17), ("10", 3)]),
        ("METAST", &[("Y", 18), ("N", 2)]),
        ("PRIORCHEMO", &[("Y", 20)]),
    ],
    age: (37, 61, 75),
};

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

/// One generated subject.
#[derive(Clone)]
struct Generated {
    subject: Subject,
    assessments: Vec<Assessment>,
    /// (date, sum of diameters) including baseline.
    lesions: Vec<(NaiveDate, f64)>,
    columns: BTreeMap<String, String>,
}

/// Assessment days of the schedule: every 42 days to week 48, then every 63 days.
fn schedule(rng: &mut Rng, horizon: i64) -> Vec<i64> {
    let mut days = Vec::new();
    let mut nominal = 42;
    while nominal + 4 <= horizon {
        days.push(nominal + rng.range(0, 4));
        nominal += if nominal < 336 { 42 } else { 63 };
    }
    days
}

fn generate_subject(
    rng: &mut Rng,
    t: &Target,
    index: usize,
    bor: Bor,
    trtsdt: NaiveDate,
    cutoff: NaiveDate,
) -> Generated {
    let available = (cutoff - trtsdt).num_days();
    let dropout = (rng.exp_median(t.dropout_median) * MONTH) as i64;
    let horizon = available.min(dropout.max(50));
    let visits = schedule(rng, horizon);
    // Latent progression time from an exponential model with the published median.
    let latent_pd = (rng.exp_median(t.pfs_median) * MONTH) as i64;
    let mut responses: Vec<(i64, Response)> = Vec::new();
    let mut pd_day = None;
    match bor {
        Bor::Ne => {}
        Bor::Pd => {
            if let Some(&d) = visits.first() {
                responses.push((d, Response::ProgressiveDisease));
                pd_day = Some(d);
            }
        }
        Bor::Sd | Bor::Pr | Bor::Cr => {
            // Responders need two assessments to be confirmed before any PD.
            let min_before_pd = match bor {
                Bor::Sd => 1,
                Bor::Pr => 3,
                _ => 3,
            };
            let pr_first = rng.uniform() < 0.5;
            for (k, &d) in visits.iter().enumerate() {
                if k >= min_before_pd && d >= latent_pd {
                    responses.push((d, Response::ProgressiveDisease));
                    pd_day = Some(d);
                    break;
                }
                let r = match bor {
                    Bor::Sd => Response::StableDisease,
                    Bor::Pr => {
                        if k == 0 && !pr_first {
                            Response::StableDisease
                        } else {
                            Response::PartialResponse
                        }
                    }
                    _ => {
                        if k == 0 {
                            Response::PartialResponse
                        } else {
                            Response::CompleteResponse
                        }
                    }
                };
                responses.push((d, r));
            }
        }
    }
    // Survival: deaths after progression (or early, for some non-evaluable subjects).
    let mut death_day = None;
    if let Some(pd) = pd_day {
        let after =
            (rng.exp_median(t.os_median - t.pfs_median.min(t.os_median * 0.5)) * MONTH) as i64;
        let d = pd + 14 + after;
        if d <= available {
            death_day = Some(d);
        }
    } else if bor == Bor::Ne && rng.uniform() < 0.5 {
        let d = rng.range(10, 40);
        if d <= available {
            death_day = Some(d);
        }
    }
    let last_visit = responses.last().map(|r| r.0).unwrap_or(0);
    let trtedt_day = match (pd_day, death_day) {
        (Some(pd), _) => Some(pd + rng.range(1, 7)),
        (None, Some(dd)) => Some(dd),
        // Non-evaluable subjects stopped treatment before their first assessment.
        (None, None) if bor == Bor::Ne => Some(rng.range(7, 35)),
        (None, None) if horizon < available => Some(last_visit.max(1) + rng.range(1, 14)),
        _ => None,
    }
    .map(|d| d.min(available));
    let last_alive_day = match death_day {
        Some(d) => d,
        None => (available - rng.range(0, 10)).max(1),
    };
    let usubjid = format!("ALTN-AK105-II-01-{}{:03}", t.cohort, index + 1);
    let assessments: Vec<Assessment> = responses
        .iter()
        .enumerate()
        .map(|(k, (d, r))| Assessment {
            visit: Some(format!("CYCLE {} DAY 1", k * 2 + 3)),
            ..Assessment::recist(usubjid.clone(), plus(trtsdt, *d), *r)
        })
        .collect();
    // Sum of target-lesion diameters consistent with each response.
    let base = 40.0 + (rng.uniform() * 80.0).round();
    let mut lesions = vec![(plus(trtsdt, -(rng.range(3, 10))), base)];
    let mut nadir = base;
    for (d, r) in &responses {
        let change = match r {
            Response::CompleteResponse => -1.0,
            Response::PartialResponse => -0.32 - rng.uniform() * 0.4,
            Response::StableDisease => -0.25 + rng.uniform() * 0.4,
            _ => 0.0,
        };
        let sum = match r {
            Response::ProgressiveDisease => (nadir * (1.22 + rng.uniform() * 0.3)).max(nadir + 5.0),
            _ => (base * (1.0 + change)).max(0.0),
        };
        let sum = sum.round();
        nadir = nadir.min(sum);
        lesions.push((plus(trtsdt, *d), sum));
    }
    let subject = Subject {
        usubjid: usubjid.as_str().into(),
        site: None,
        trt_start: Some(trtsdt),
        trt_end: trtedt_day.map(|d| plus(trtsdt, d)),
        enrolled: Some(trtsdt),
        death: death_day.map(|d| plus(trtsdt, d)),
        last_alive: Some(plus(trtsdt, last_alive_day)),
        safety: true,
        efficacy: true,
        treated_past_cutoff: false,
        columns: Default::default(),
    };
    Generated {
        subject,
        assessments,
        lesions,
        columns: BTreeMap::new(),
    }
}

/// Enrolment dates: first and last as published, the rest spread with the cohort's skew.
fn enrolment_dates(rng: &mut Rng, t: &Target) -> Vec<NaiveDate> {
    let first = date(t.first_enrolment);
    let last = date(t.last_enrolment);
    let window = (last - first).num_days() as f64;
    let mut u: Vec<f64> = (0..t.n).map(|_| rng.uniform()).collect();
    u.sort_by(f64::total_cmp);
    let mut dates: Vec<NaiveDate> = u
        .iter()
        .map(|x| plus(first, (window * x.powf(t.enrol_skew)).round() as i64))
        .collect();
    if let Some(d) = dates.first_mut() {
        *d = first;
    }
    if let Some(d) = dates.last_mut() {
        *d = last;
    }
    dates
}

/// Which subject gets which BOR: responders need follow-up long enough to be confirmed.
fn assign_bor(rng: &mut Rng, t: &Target, dates: &[NaiveDate]) -> Option<Vec<Bor>> {
    let cutoff = date(t.cutoff);
    let mut pool: Vec<Bor> = Vec::new();
    for (count, b) in t
        .bor
        .iter()
        .zip([Bor::Cr, Bor::Pr, Bor::Sd, Bor::Pd, Bor::Ne])
    {
        pool.extend(std::iter::repeat_n(b, *count));
    }
    rng.shuffle(&mut pool);
    // Subjects with the least follow-up take the categories that need the fewest visits.
    let mut order: Vec<usize> = (0..t.n).collect();
    order.sort_by_key(|&i| (cutoff - dates[i]).num_days());
    let need = |b: Bor| match b {
        Bor::Cr | Bor::Pr => 140,
        Bor::Sd | Bor::Pd => 50,
        Bor::Ne => 0,
    };
    let mut result = vec![Bor::Ne; t.n];
    for &i in &order {
        let available = (cutoff - dates[i]).num_days();
        let pos = pool.iter().position(|b| need(*b) <= available)?;
        result[i] = pool.remove(pos);
    }
    Some(result)
}

struct Check {
    dor_median: Option<f64>,
    pfs_events: usize,
    deaths: usize,
    pfs_median: Option<f64>,
    os_median: Option<f64>,
    followup: Option<f64>,
    pfs6: f64,
    bor: [usize; 5],
}

fn check(t: &Target, subjects: &[Generated]) -> Check {
    let opts = DeriveOptions {
        bor: BorOptions {
            sd_min_days: t.sd_min_days,
            missing_as_ne: true,
            ..BorOptions::default()
        },
        pfs: PfsOptions::default(),
    };
    let mut pfs = (Vec::new(), Vec::new());
    let mut os = (Vec::new(), Vec::new());
    let mut dor = (Vec::new(), Vec::new());
    let mut bor = [0usize; 5];
    for g in subjects {
        let d = derive_subject(&g.subject, &g.assessments, &opts).expect("derivable");
        let k = match d.bor.bor.code() {
            "CR" => 0,
            "PR" => 1,
            "SD" => 2,
            "PD" => 3,
            _ => 4,
        };
        bor[k] += 1;
        if let Some(p) = d.pfs {
            pfs.0.push(p.days);
            pfs.1.push(p.status == Status::Event);
        }
        if let Some(r) = d.dor {
            dor.0.push(r.days);
            dor.1.push(r.status == Status::Event);
        }
        if let Some(o) = d.os {
            os.0.push(o.days);
            os.1.push(o.status == Status::Event);
        }
    }
    let median = |times: &[f64], events: &[bool]| {
        kaplan_meier(times, events)
            .ok()
            .and_then(|f| f.quantile(0.5, 0.95, CiTransform::LogLog).ok())
            .and_then(|q| q.estimate)
            .map(|m| m / MONTH)
    };
    let followup = t.followup.and_then(|(_, endpoint, _)| {
        let (times, events) = if endpoint == "OS" { &os } else { &pfs };
        let reverse: Vec<bool> = events.iter().map(|e| !e).collect();
        median(times, &reverse)
    });
    let pfs6 = kaplan_meier(&pfs.0, &pfs.1)
        .ok()
        .and_then(|f| f.landmark(6.0 * MONTH, 0.95, CiTransform::LogLog).ok())
        .map(|l| l.surv)
        .unwrap_or(f64::NAN);
    Check {
        dor_median: median(&dor.0, &dor.1),
        pfs_events: pfs.1.iter().filter(|e| **e).count(),
        deaths: os.1.iter().filter(|e| **e).count(),
        pfs_median: median(&pfs.0, &pfs.1),
        os_median: median(&os.0, &os.1),
        followup,
        pfs6,
        bor,
    }
}

fn near(value: Option<f64>, target: f64, tolerance: f64) -> bool {
    value.is_some_and(|v| (v - target).abs() <= tolerance * target)
}

fn generate_cohort(t: &Target) -> (u64, Vec<Generated>) {
    let cutoff = date(t.cutoff);
    for seed in t.base_seed..t.base_seed + 2_000_000 {
        let mut rng = Rng(seed);
        let dates = enrolment_dates(&mut rng, t);
        let Some(bors) = assign_bor(&mut rng, t, &dates) else {
            continue;
        };
        let subjects: Vec<Generated> = (0..t.n)
            .map(|i| generate_subject(&mut rng, t, i, bors[i], dates[i], cutoff))
            .collect();
        let c = check(t, &subjects);
        let ok = c.bor == t.bor
            && c.pfs_events == t.pfs_events
            && t.deaths.is_none_or(|d| c.deaths == d)
            && near(c.pfs_median, t.pfs_median, t.pfs_tolerance)
            && (c.os_median.is_none() == t.os_not_reached)
            && (!t.dor_not_reached || c.dor_median.is_none())
            && t.followup
                .is_none_or(|(f, _, tol)| near(c.followup, f, tol))
            && t.pfs6.is_none_or(|(p, tol)| (c.pfs6 - p).abs() <= tol);
        if ok {
            return (seed, finish(&mut rng, t, subjects));
        }
    }
    panic!("no seed reproduces cohort {}", t.cohort);
}

/// Baseline columns, sites and ages, laid out from the published counts.
fn finish(rng: &mut Rng, t: &Target, mut subjects: Vec<Generated>) -> Vec<Generated> {
    for (column, levels) in t.categorical {
        let mut values: Vec<&str> = Vec::new();
        for (value, count) in *levels {
            values.extend(std::iter::repeat_n(*value, *count));
        }
        assert_eq!(values.len(), t.n, "{column} counts of cohort {}", t.cohort);
        rng.shuffle(&mut values);
        for (g, v) in subjects.iter_mut().zip(values) {
            g.columns.insert(column.to_string(), v.to_string());
        }
    }
    // Ages with the published minimum, median and maximum.
    let (lo, mid, hi) = t.age;
    let half = t.n / 2;
    let mut ages: Vec<i64> = Vec::with_capacity(t.n);
    for i in 0..t.n {
        let age = if i == 0 {
            lo
        } else if i == t.n - 1 {
            hi
        } else if i == half || (t.n.is_multiple_of(2) && i == half - 1) {
            mid
        } else if i < half {
            rng.range(lo, mid)
        } else {
            rng.range(mid, hi)
        };
        ages.push(age);
    }
    ages.sort();
    rng.shuffle(&mut ages);
    // Every site enrols at least one subject.
    let mut sites: Vec<&str> = (0..t.n).map(|i| t.sites[i % t.sites.len()]).collect();
    rng.shuffle(&mut sites);
    for ((g, age), site) in subjects.iter_mut().zip(ages).zip(sites) {
        g.columns.insert("AGE".into(), age.to_string());
        g.subject.site = Some(Subject::site_entry(site));
    }
    subjects
}

/// Adverse events: each term's any-grade and grade ≥3 subject counts, the number of subjects
/// with any TRAE and with a grade ≥3 TRAE, all exactly as targeted.
fn adverse_events(
    rng: &mut Rng,
    t: &Target,
    subjects: &[Generated],
) -> Vec<(usize, &'static str, &'static str, u8, bool)> {
    let n = subjects.len();
    let mut order: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut order);
    let with_trae: Vec<usize> = order[..t.trae_any].to_vec();
    let grade3_subjects: Vec<usize> = with_trae[..t.trae_grade3].to_vec();
    let mut events: Vec<(usize, &'static str, &'static str, u8, bool)> = Vec::new();
    let mut has: Vec<std::collections::BTreeSet<&str>> = vec![Default::default(); n];
    // Grade ≥3 events first, cycling over the grade ≥3 subjects so each gets at least one.
    let mut cursor = 0;
    for (term, soc, _, g3) in t.terms {
        for _ in 0..*g3 {
            let mut tries = 0;
            while has[grade3_subjects[cursor % grade3_subjects.len()]].contains(term) && tries < n {
                cursor += 1;
                tries += 1;
            }
            let s = grade3_subjects[cursor % grade3_subjects.len()];
            cursor += 1;
            has[s].insert(term);
            events.push((s, term, soc, 3, true));
        }
    }
    let g3_total: usize = t.terms.iter().map(|x| x.3).sum();
    assert!(
        g3_total >= t.trae_grade3,
        "cohort {}: too few grade ≥3 events",
        t.cohort
    );
    // Grade 1–2 events, cycling over the TRAE subjects so each gets at least one.
    let mut cursor = 0;
    for (term, soc, any, g3) in t.terms {
        for _ in 0..(any - g3) {
            let mut tries = 0;
            while has[with_trae[cursor % with_trae.len()]].contains(term) && tries < n {
                cursor += 1;
                tries += 1;
            }
            let s = with_trae[cursor % with_trae.len()];
            cursor += 1;
            has[s].insert(term);
            events.push((s, term, soc, if rng.uniform() < 0.6 { 1 } else { 2 }, true));
        }
    }
    // Unrelated events, for realism; any subject.
    for _ in 0..n / 2 {
        let s = rng.below(n);
        let (term, soc) = [
            ("Cough", "Respiratory, thoracic and mediastinal disorders"),
            (
                "Pyrexia",
                "General disorders and administration site conditions",
            ),
            ("Constipation", "Gastrointestinal disorders"),
            (
                "Back pain",
                "Musculoskeletal and connective tissue disorders",
            ),
        ][rng.below(4)];
        events.push((s, term, soc, if rng.uniform() < 0.8 { 1 } else { 2 }, false));
    }
    for (i, ids) in has.iter().enumerate() {
        assert_eq!(
            !ids.is_empty(),
            with_trae.contains(&i),
            "cohort {}: subject {i} TRAE assignment",
            t.cohort
        );
    }
    events
}

fn main() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/altn-ak105-ii-01");
    std::fs::create_dir_all(&out).expect("create data folder");
    let mut adsl = String::from(
        "STUDYID,USUBJID,SUBJID,SITEID,COHORT,AGE,SEX,ECOG,PRIMSITE,HISTOL,METAST,PRIORCHEMO,ANLDOSE,ENRLDT,TRTSDT,TRTEDT,DTHDT,LSTALVDT,SAFFL,EFFFL\n",
    );
    let mut adrs = String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVISIT,ADT,AVALC\n");
    let mut adtr = String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVISIT,ADT,AVAL,BASE,PCHG,ABLFL\n");
    let mut adae = String::from(
        "STUDYID,USUBJID,AESEQ,AEDECOD,AEBODSYS,ATOXGR,AEREL,ASTDT,TRTEMFL,AESER,AEOUT\n",
    );
    let study = "ALTN-AK105-II-01";
    for t in [&COHORT_1, &COHORT_2, &COHORT_4] {
        let (seed, subjects) = generate_cohort(t);
        eprintln!("cohort {}: seed {seed}", t.cohort);
        let mut rng = Rng(seed ^ 0xAE);
        let events = adverse_events(&mut rng, t, &subjects);
        for g in &subjects {
            let s = &g.subject;
            for a in &g.assessments {
                let _ = writeln!(
                    adrs,
                    "{study},{},OVR,Overall Response by Investigator,{},{},{}",
                    a.usubjid,
                    a.visit.clone().unwrap_or_default(),
                    a.date,
                    a.response.code()
                );
            }
            let base = g.lesions.first().map(|l| l.1).unwrap_or(0.0);
            for (k, (day, sum)) in g.lesions.iter().enumerate() {
                let (visit, pchg, abl) = if k == 0 {
                    ("BASELINE".to_string(), String::new(), "Y")
                } else {
                    (
                        g.assessments
                            .get(k - 1)
                            .and_then(|a| a.visit.clone())
                            .unwrap_or_default(),
                        format!("{:.1}", (sum - base) / base * 100.0),
                        "",
                    )
                };
                let _ = writeln!(
                    adtr,
                    "{study},{},SDIAM,Target Lesions Sum of Diameters,{visit},{day},{sum},{base},{pchg},{abl}",
                    s.usubjid
                );
            }
        }
        let mut seq: BTreeMap<usize, usize> = BTreeMap::new();
        let mut latest_ae: BTreeMap<usize, NaiveDate> = BTreeMap::new();
        let mut rows: Vec<(String, usize, String)> = Vec::new();
        for (i, term, soc, grade, related) in events {
            let g = &subjects[i];
            let s = &g.subject;
            let start = s.trt_start.expect("treated");
            let end = s.trt_end.unwrap_or(date(t.cutoff));
            let span = (end - start).num_days().max(2);
            let astdt = plus(start, rng.range(1, span.min(120)));
            let latest = latest_ae.entry(i).or_insert(astdt);
            *latest = (*latest).max(astdt);
            let n = seq.entry(i).or_default();
            *n += 1;
            rows.push((
                s.usubjid.to_string(),
                *n,
                format!(
                    "{},\"{term}\",\"{soc}\",{grade},{},{astdt},Y,{},{}",
                    *n,
                    if related { "RELATED" } else { "NOT RELATED" },
                    if grade >= 3 && rng.uniform() < 0.3 {
                        "Y"
                    } else {
                        "N"
                    },
                    if rng.uniform() < 0.8 {
                        "RECOVERED/RESOLVED"
                    } else {
                        "NOT RECOVERED/NOT RESOLVED"
                    },
                ),
            ));
        }
        // ADSL after the adverse events: a subject is known alive at least until the last
        // assessment or adverse event, so LSTALVDT is never before them (ADaM's rule).
        for (i, g) in subjects.iter().enumerate() {
            let s = &g.subject;
            let c = |k: &str| g.columns.get(k).cloned().unwrap_or_default();
            let d = |x: Option<NaiveDate>| x.map(|d| d.to_string()).unwrap_or_default();
            let seen = g
                .assessments
                .iter()
                .map(|a| a.date)
                .chain(latest_ae.get(&i).copied())
                .max();
            let last_alive = match s.death {
                Some(_) => s.last_alive,
                None => s.last_alive.max(seen),
            };
            let _ = writeln!(
                adsl,
                "{study},{},{},{},{},{},{},{},\"{}\",\"{}\",{},{},{},{},{},{},{},{},Y,Y",
                s.usubjid,
                s.usubjid.rsplit('-').next().unwrap_or(""),
                s.site().unwrap_or_default(),
                t.cohort,
                c("AGE"),
                c("SEX"),
                c("ECOG"),
                c("PRIMSITE"),
                c("HISTOL"),
                c("METAST"),
                c("PRIORCHEMO"),
                c("ANLDOSE"),
                d(s.enrolled),
                d(s.trt_start),
                d(s.trt_end),
                d(s.death),
                d(last_alive),
            );
        }
        rows.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        for (usubjid, _, rest) in rows {
            let _ = writeln!(adae, "{study},{usubjid},{rest}");
        }
    }
    for (name, body) in [
        ("adsl.csv", adsl),
        ("adrs.csv", adrs),
        ("adtr.csv", adtr),
        ("adae.csv", adae),
    ] {
        std::fs::write(out.join(name), body).expect("write data file");
    }
    std::fs::write(
        out.join("README.md"),
        "# SYNTHETIC example data\n\nThese files are generated by `examples/make_example_data.rs` \
         (`cargo run --release --example make_example_data`) and describe no real patient. They are \
         built so that readout's computed results reproduce the counts of the published abstracts \
         of ALTN-AK105-II-01 cohorts 1, 2 and 4 (see the generator's header and \
         `docs/EXAMPLE-DATA.md`).\n",
    )
    .expect("write README");
}

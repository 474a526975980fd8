//! Generates the SYNTHETIC randomised myeloma example `data/myeloma-example/` (ADSL, ADRS,
//! ADTTE, ADAE, ADEX, README.md), written the way a sponsor's programmers write ADaM
//! (`config/myeloma-example.yaml`):
//!
//! - two arms, the fictional "Velatamab" plus dexamethasone (`VLT+DEX`) against pomalidomide
//!   plus dexamethasone (`POM+DEX`), 1:1 stratified by ISS stage (I, II, III), 240 subjects;
//! - ADRS per IMWG (sCR, CR, VGPR, PR, MR, SD, PD) every 4 weeks, with the investigator's and
//!   the independent review committee's rows under one PARAMCD (`RSEVAL`);
//! - ADEX with one CUMDOSE row per drug (`PARCAT1`); ADSL with end-of-treatment and
//!   end-of-study status and reasons, Y/N flags, ISS and ECOG as coded values;
//! - ADTTE with PFS (investigator) and OS in days, `AVAL = ADT − STARTDT + 1`.
//!
//!     cargo run --release --example make_myeloma_example
//!
//! Nothing here comes from real patients or a real trial; "Velatamab" is fictional. Each
//! subject draws a deepest response by arm, reached a level per visit from MR, a progression
//! time (exponential, median 14 vs 9 months, shorter without response) and a post-progression
//! survival; the review committee reads every visit of one subject in five a level worse. The
//! stream is a fixed splitmix64 (no crate can change it): the same code gives byte-identical
//! files, which `tests/myeloma_example.rs` checks by running [`generate`].

use std::fmt::Write as _;
use std::path::Path;

use chrono::{Days, NaiveDate};

const STUDY: &str = "MM-EXAMPLE";
const CUTOFF: &str = "2024-06-28";
const SEED: u64 = 20240628;
const N: usize = 240;
const MONTH: f64 = 30.4375;

#[allow(clippy::duplicate_mod)]
#[path = "support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// Draws only this generator needs.
impl Rng {
    /// An index of `weights`, by weight.
    fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut u = self.uniform() * total;
        for (i, w) in weights.iter().enumerate() {
            if u < *w {
                return i;
            }
            u -= w;
        }
        weights.len() - 1
    }

    /// Exponential with this median, in days.
    fn exponential(&mut self, median_days: f64) -> f64 {
        -(1.0 - self.uniform()).ln() * median_days / std::f64::consts::LN_2
    }
}

/// IMWG categories, best first; a subject's course is an index into it.
const IMWG: [&str; 7] = ["sCR", "CR", "VGPR", "PR", "MR", "SD", "PD"];

/// One arm: its ADSL values, drug, and the weights of each deepest response.
struct Arm {
    arm: &'static str,
    armcd: &'static str,
    drug: &'static str,
    /// Dose per 28-day cycle of the drug, mg.
    dose: f64,
    deepest: [f64; 7],
    /// Median time to progression of a responder, months.
    median_pfs: f64,
}

const ARMS: [Arm; 2] = [
    Arm {
        arm: "VLT+DEX",
        armcd: "VLTDEX",
        drug: "VELATAMAB",
        dose: 190.0,
        deepest: [0.06, 0.10, 0.24, 0.22, 0.08, 0.18, 0.12],
        median_pfs: 16.0,
    },
    Arm {
        arm: "POM+DEX",
        armcd: "POMDEX",
        drug: "POMALIDOMIDE",
        dose: 84.0,
        deepest: [0.02, 0.04, 0.12, 0.22, 0.10, 0.30, 0.20],
        median_pfs: 10.0,
    },
];

/// An adverse event: term, body system, chance per arm (VLT+DEX, POM+DEX), chance that a case
/// is grade ≥3, related to treatment, serious.
type AeRow = (&'static str, &'static str, [f64; 2], f64, f64, f64);

const AES: [AeRow; 9] = [
    (
        "Keratopathy",
        "Eye disorders",
        [0.55, 0.02],
        0.25,
        1.0,
        0.02,
    ),
    (
        "Thrombocytopenia",
        "Blood and lymphatic system disorders",
        [0.45, 0.25],
        0.45,
        0.9,
        0.05,
    ),
    (
        "Neutropenia",
        "Blood and lymphatic system disorders",
        [0.20, 0.45],
        0.60,
        0.9,
        0.05,
    ),
    (
        "Anaemia",
        "Blood and lymphatic system disorders",
        [0.30, 0.35],
        0.35,
        0.5,
        0.03,
    ),
    (
        "Pneumonia",
        "Infections and infestations",
        [0.15, 0.14],
        0.70,
        0.3,
        0.85,
    ),
    (
        "Fatigue",
        "General disorders and administration site conditions",
        [0.25, 0.30],
        0.05,
        0.6,
        0.0,
    ),
    (
        "Insomnia",
        "Psychiatric disorders",
        [0.18, 0.16],
        0.02,
        0.8,
        0.0,
    ),
    (
        "Diarrhoea",
        "Gastrointestinal disorders",
        [0.12, 0.20],
        0.08,
        0.5,
        0.02,
    ),
    (
        "Upper respiratory tract infection",
        "Infections and infestations",
        [0.15, 0.12],
        0.05,
        0.2,
        0.03,
    ),
];

fn date(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a date")
}

fn plus(d: NaiveDate, days: i64) -> NaiveDate {
    d.checked_add_days(Days::new(days.max(0) as u64))
        .expect("a date")
}

/// Every file of the example, by name.
pub fn files() -> Vec<(&'static str, String)> {
    let mut rng = Rng(SEED);
    let cutoff = date(CUTOFF);
    let first = date("2021-06-01");
    let mut adsl = String::from(
        "STUDYID,USUBJID,SUBJID,SITEID,ARM,ARMCD,TRT01P,AGE,AGEGR1,SEX,RACE,ECOGBL,ISS,HRCYTO,\
         PRIORLOT,RANDDT,TRTSDT,TRTEDT,EOTSTT,DCTREAS,EOSSTT,DCSREAS,DTHDT,LSTALVDT,ITTFL,SAFFL\n",
    );
    let mut adrs = String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVISIT,ADT,AVALC,RSEVAL\n");
    let mut adtte =
        String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVAL,AVALU,CNSR,STARTDT,ADT,EVNTDESC\n");
    let mut adae = String::from(
        "STUDYID,USUBJID,AEDECOD,AEBODSYS,AETOXGR,AESER,AEREL,TRTEMFL,AEACN,AEOUT,ASTDT\n",
    );
    let mut adex = String::from("STUDYID,USUBJID,PARAMCD,PARAM,PARCAT1,AVAL,AVALU\n");
    let (mut placed, mut first_arm) = ([0usize; 3], [0usize; 3]);
    for i in 0..N {
        let id = format!("{STUDY}-{:03}-{:04}", 101 + i % 24, 1001 + i);
        // Permuted blocks of 2 within ISS stage.
        let stratum = rng.weighted(&[0.35, 0.40, 0.25]);
        let iss = ["I", "II", "III"][stratum];
        if placed[stratum] % 2 == 0 {
            first_arm[stratum] = rng.below(2);
        }
        let arm = &ARMS[(first_arm[stratum] + placed[stratum]) % 2];
        placed[stratum] += 1;
        let randdt = plus(first, rng.range(0, 760));
        let never_treated = rng.uniform() < 0.01;
        let trtsdt = plus(randdt, rng.range(1, 5));
        let age = rng.range(44, 86);
        let sex = if rng.uniform() < 0.56 { "M" } else { "F" };
        let race = ["WHITE", "ASIAN", "BLACK OR AFRICAN AMERICAN"][rng.weighted(&[0.7, 0.2, 0.1])];
        let ecog = ["0", "1", "2"][rng.weighted(&[0.42, 0.48, 0.10])];
        let high_risk = if rng.uniform() < 0.3 { "Y" } else { "N" };
        let prior = rng.range(1, 4);
        let deepest = rng.weighted(&arm.deepest);
        let iss_risk = match iss {
            "I" => 0.8,
            "II" => 1.0,
            _ => 1.35,
        };
        let median = if deepest <= 3 {
            arm.median_pfs * MONTH
        } else {
            arm.median_pfs * MONTH * 0.45
        } / iss_risk;
        let progression = if deepest == 6 {
            rng.range(20, 60) as f64
        } else {
            30.0 + rng.exponential(median)
        };
        let death_after = rng.exponential(16.0 * MONTH);
        let early_death = rng.uniform() < 0.04;
        let death = if early_death {
            rng.range(20, 300) as f64
        } else {
            progression + death_after
        };
        let irc_worse = rng.uniform() < 0.2;
        let withdrew = rng.uniform() < 0.05;
        let withdrawal = withdrew.then(|| rng.range(60, 500) as f64);
        let ae_stop = rng.uniform() < if arm.armcd == "VLTDEX" { 0.09 } else { 0.06 };
        let ae_stop_at = ae_stop.then(|| rng.range(40, 400) as f64);
        let until_cutoff = (cutoff - trtsdt).num_days() as f64;

        // Treatment ends at progression, death, withdrawal or an adverse event.
        let mut ends = vec![(progression, "PROGRESSIVE DISEASE"), (death, "DEATH")];
        ends.extend(withdrawal.map(|w| (w, "WITHDRAWAL BY SUBJECT")));
        ends.extend(ae_stop_at.map(|w| (w, "ADVERSE EVENT")));
        ends.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (end_day, end_reason) = ends[0];
        let treated_to = end_day.min(until_cutoff);
        let treatment_ended = end_day <= until_cutoff;
        let died = death <= until_cutoff && withdrawal.is_none_or(|w| death < w);
        let study_ended = died || withdrawal.is_some_and(|w| w <= until_cutoff);
        // Responses every 28 days (± 3) while on study, until PD.
        let visits = if never_treated {
            Vec::new()
        } else {
            let last_day = progression
                .min(death)
                .min(withdrawal.unwrap_or(f64::MAX))
                .min(until_cutoff);
            visits(
                &mut rng,
                deepest,
                irc_worse,
                (progression, death, last_day, until_cutoff),
            )
        };
        write_adrs(&mut adrs, &id, trtsdt, &visits);
        let (death_day, last_alive) = write_adtte(
            &mut adtte,
            &id,
            &visits,
            (randdt, trtsdt, cutoff),
            (died, death, withdrawal, until_cutoff),
        );

        let trtedt = treatment_ended.then(|| plus(trtsdt, treated_to.round() as i64));
        let ((eotstt, dctreas), (eosstt, dcsreas)) = statuses(
            never_treated,
            treatment_ended,
            end_reason,
            died,
            study_ended,
        );
        let agegr = if age < 65 {
            "<65"
        } else if age < 75 {
            "65-74"
        } else {
            ">=75"
        };
        let _ = writeln!(
            adsl,
            "{STUDY},{id},{},{},{},{},{},{age},{agegr},{sex},{race},{ecog},{iss},{high_risk},{prior},\
             {randdt},{},{},{eotstt},{dctreas},{eosstt},{dcsreas},{},{},Y,{}",
            1001 + i,
            101 + i % 24,
            arm.arm,
            arm.armcd,
            arm.arm,
            if never_treated { String::new() } else { trtsdt.to_string() },
            trtedt.map_or(String::new(), |d| d.to_string()),
            death_day.map_or(String::new(), |d| plus(trtsdt, d).to_string()),
            last_alive,
            if never_treated { "N" } else { "Y" },
        );
        if never_treated {
            continue;
        }
        write_adex(&mut rng, &mut adex, &id, arm, treated_to);
        let subject = (id.as_str(), arm, trtsdt, treated_to, died, end_reason);
        write_aes(&mut rng, &mut adae, subject);
    }
    let readme = "# MM-EXAMPLE: SYNTHETIC data\n\n\
                  Generated by `examples/make_myeloma_example.rs` (`cargo run --release --example \
                  make_myeloma_example`). No real patient and no real trial is described; \
                  \"Velatamab\" is fictional. Read by `config/myeloma-example.yaml`.\n"
        .to_string();
    vec![
        ("adsl.csv", adsl),
        ("adrs.csv", adrs),
        ("adtte.csv", adtte),
        ("adae.csv", adae),
        ("adex.csv", adex),
        ("README.md", readme),
    ]
}

/// The end-of-treatment and end-of-study statuses and reasons (`EOTSTT`, `DCTREAS`,
/// `EOSSTT`, `DCSREAS`).
fn statuses(
    never_treated: bool,
    treatment_ended: bool,
    end_reason: &'static str,
    died: bool,
    study_ended: bool,
) -> ((&'static str, &'static str), (&'static str, &'static str)) {
    let (eotstt, dctreas) = match (never_treated, treatment_ended) {
        (true, _) => ("", ""),
        (false, true) => ("DISCONTINUED", end_reason),
        (false, false) => ("ONGOING", ""),
    };
    let (eosstt, dcsreas) = if died {
        ("DISCONTINUED", "DEATH")
    } else if study_ended {
        ("DISCONTINUED", "WITHDRAWAL BY SUBJECT")
    } else {
        ("ONGOING", "")
    };
    ((eotstt, dctreas), (eosstt, dcsreas))
}

/// A treated subject's exposure: the drug's and dexamethasone's cumulative doses over the
/// 28-day cycles given, at a dose intensity of 75-100%.
fn write_adex(rng: &mut Rng, adex: &mut String, id: &str, arm: &Arm, treated_to: f64) {
    let cycles = (treated_to / 28.0).ceil().max(1.0);
    let intensity = 0.75 + 0.25 * rng.uniform();
    for (drug, per_cycle) in [(arm.drug, arm.dose), ("DEXAMETHASONE", 160.0)] {
        let _ = writeln!(
            adex,
            "{STUDY},{id},CUMDOSE,Cumulative Dose (mg),{drug},{:.1},mg",
            cycles * per_cycle * intensity
        );
    }
}

/// A subject's IMWG responses by the investigator and the IRC, one row each per visit.
fn write_adrs(adrs: &mut String, id: &str, trtsdt: NaiveDate, visits: &[(i64, usize, usize)]) {
    for (v, (at, inv, irc)) in visits.iter().enumerate() {
        let adt = plus(trtsdt, *at);
        for (value, by) in [
            (IMWG[*inv], "INVESTIGATOR"),
            (IMWG[*irc], "INDEPENDENT ASSESSOR"),
        ] {
            let _ = writeln!(
                adrs,
                "{STUDY},{id},OVR,Overall Response by IMWG,CYCLE {} DAY 1,{adt},{value},{by}",
                v + 2
            );
        }
    }
}

/// A subject's PFS (by the investigator) and OS records; returns the day of death (from
/// treatment start) and the last day known alive.
fn write_adtte(
    adtte: &mut String,
    id: &str,
    visits: &[(i64, usize, usize)],
    (randdt, trtsdt, cutoff): (NaiveDate, NaiveDate, NaiveDate),
    (died, death, withdrawal, until_cutoff): (bool, f64, Option<f64>, f64),
) -> (Option<i64>, NaiveDate) {
    // PFS per the investigator: the first PD or death, else censored at the last
    // assessment (at randomisation without one).
    let first_pd = visits.iter().find(|v| v.1 == 6).map(|v| v.0);
    let last_assessed = visits.iter().filter(|v| v.1 != 6).map(|v| v.0).next_back();
    let death_day = died.then(|| death.round() as i64);
    let (pfs_day, pfs_cnsr, pfs_desc) = match (first_pd, death_day) {
        (Some(p), Some(d)) if d < p => (d, 0, "DEATH"),
        (Some(p), _) => (p, 0, "DISEASE PROGRESSION"),
        (None, Some(d)) if d <= last_assessed.unwrap_or(0) + 70 => (d, 0, "DEATH"),
        _ => (
            last_assessed.unwrap_or(0),
            1,
            if last_assessed.is_some() {
                "LAST ADEQUATE ASSESSMENT"
            } else {
                "RANDOMIZATION"
            },
        ),
    };
    let pfs_adt = if pfs_cnsr == 1 && last_assessed.is_none() {
        randdt
    } else {
        plus(trtsdt, pfs_day)
    };
    let _ = writeln!(
        adtte,
        "{STUDY},{id},PFS,Progression-free Survival (months),{},DAYS,{pfs_cnsr},{randdt},{pfs_adt},{pfs_desc}",
        (pfs_adt - randdt).num_days() + 1
    );
    let last_alive = if died {
        plus(trtsdt, death.round() as i64)
    } else if let Some(w) = withdrawal.filter(|w| *w <= until_cutoff) {
        plus(trtsdt, w.round() as i64)
    } else {
        cutoff
    };
    let (os_cnsr, os_desc) = if died {
        (0, "DEATH")
    } else {
        (1, "LAST KNOWN ALIVE")
    };
    let _ = writeln!(
        adtte,
        "{STUDY},{id},OS,Overall Survival (months),{},DAYS,{os_cnsr},{randdt},{last_alive},{os_desc}",
        (last_alive - randdt).num_days() + 1
    );
    (death_day, last_alive)
}

/// The visits of a treated subject (day, investigator's and IRC's IMWG level): every 28 days
/// (± 3) to `last_day` (and 14 days past it for the progression's visit), each level better
/// from MR to the deepest response, PD from `progression`; none after death or the cut-off.
fn visits(
    rng: &mut Rng,
    deepest: usize,
    irc_worse: bool,
    (progression, death, last_day, until_cutoff): (f64, f64, f64, f64),
) -> Vec<(i64, usize, usize)> {
    let mut visits = Vec::new();
    let mut day = 28;
    let mut k = 0usize;
    while (day as f64) <= last_day + 14.0 && (day as f64) <= until_cutoff {
        let at = day + rng.range(-3, 3);
        let pd = (at as f64) >= progression;
        if (at as f64) > death || (at as f64) > until_cutoff {
            break;
        }
        // From MR, a level better per visit to the deepest response.
        let level = if pd {
            6
        } else {
            deepest.max(4usize.saturating_sub(k)).min(5)
        };
        let level = if deepest == 5 && !pd { 5 } else { level };
        let irc = if irc_worse && !pd && level < 5 {
            level + 1
        } else {
            level
        };
        k += 1;
        visits.push((at, level, irc));
        if pd {
            break;
        }
        day += 28;
    }
    visits
}

/// A subject's adverse events (`subject`: id, arm, treatment start, days treated, whether it
/// died, why treatment ended), drawn term by term with the arm's chances.
fn write_aes(rng: &mut Rng, adae: &mut String, subject: (&str, &Arm, NaiveDate, f64, bool, &str)) {
    let (id, arm, trtsdt, treated_to, died, end_reason) = subject;
    let a = usize::from(arm.armcd == "POMDEX");
    for (term, soc, chance, severe, related, serious) in AES {
        if rng.uniform() >= chance[a] {
            continue;
        }
        let grade = if rng.uniform() < severe {
            rng.range(3, 4)
        } else {
            rng.range(1, 2)
        };
        let grade = if serious > 0.5 && died && rng.uniform() < 0.1 {
            5
        } else {
            grade
        };
        let onset = plus(trtsdt, rng.range(1, treated_to.max(2.0) as i64));
        let rel = if rng.uniform() < related {
            "RELATED"
        } else {
            "NOT RELATED"
        };
        let ser = if rng.uniform() < serious { "Y" } else { "N" };
        let action = if end_reason == "ADVERSE EVENT" && rng.uniform() < 0.5 {
            "DRUG WITHDRAWN"
        } else {
            "DOSE NOT CHANGED"
        };
        let outcome = if grade == 5 {
            "FATAL"
        } else {
            "RECOVERED/RESOLVED"
        };
        let _ = writeln!(
            adae,
            "{STUDY},{id},{term},{soc},{grade},{ser},{rel},Y,{action},{outcome},{onset}"
        );
    }
}

pub fn generate(out: &Path) {
    std::fs::create_dir_all(out).expect("create data folder");
    for (name, text) in files() {
        std::fs::write(out.join(name), text).expect("write data file");
    }
}

#[allow(dead_code)]
fn main() {
    generate(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/myeloma-example"));
}

//! Generates the SYNTHETIC single-arm lymphoma example `data/lymphoma-example/` (ADSL, ADRS,
//! ADAE, README.md), written the way a sponsor's programmers write ADaM
//! (`config/lymphoma-example.yaml`):
//!
//! - one arm of the fictional bispecific "Zeltamig" in relapsed or refractory large B-cell
//!   lymphoma, 96 subjects;
//! - ADRS per Lugano 2014 (PET-CT: CMR, PMR, NMR, PMD) at week 12 and week 24, then every
//!   24 weeks (± 7 days), as lymphoma protocols schedule scans; no ADTTE, so readout derives
//!   PFS, DoR and OS from ADRS and ADSL;
//! - ADAE with cytokine release syndrome and ICANS graded per ASTCT, cytopenias per CTCAE.
//!
//!     cargo run --release --example make_lymphoma_example
//!
//! Nothing here comes from real patients or a real trial; "Zeltamig" is fictional. Each subject
//! draws a deepest response, a progression time (exponential by response) seen at the next
//! scheduled scan, and a post-progression survival. The stream is a fixed splitmix64: the same
//! code gives byte-identical files, which `tests/lymphoma_example.rs` checks.

use std::fmt::Write as _;
use std::path::Path;

use chrono::{Days, NaiveDate};

const STUDY: &str = "LY-EXAMPLE";
const CUTOFF: &str = "2024-09-30";
const SEED: u64 = 20240930;
const N: usize = 96;
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

/// Lugano PET-CT categories, best first; a subject's deepest response indexes it.
const LUGANO: [&str; 4] = ["CMR", "PMR", "NMR", "PMD"];

/// Weights of the deepest response, and the median time to progression (months) after it.
const DEEPEST: [f64; 4] = [0.40, 0.20, 0.14, 0.26];
const MEDIAN_PFS: [f64; 4] = [26.0, 7.0, 4.0, 0.0];

/// The scan days of the schedule: week 12, week 24, then every 24 weeks.
fn scheduled(k: usize) -> i64 {
    match k {
        0 => 84,
        1 => 168,
        _ => 168 + 168 * (k as i64 - 1),
    }
}

/// An adverse event: term, body system, chance, chance a case is grade ≥3, related, serious,
/// and the days after the first dose it starts within.
type AeRow = (&'static str, &'static str, f64, f64, f64, f64, i64);

const AES: [AeRow; 8] = [
    (
        "Cytokine release syndrome",
        "Immune system disorders",
        0.62,
        0.04,
        1.0,
        0.30,
        21,
    ),
    (
        "Immune effector cell-associated neurotoxicity syndrome",
        "Nervous system disorders",
        0.08,
        0.25,
        1.0,
        0.60,
        28,
    ),
    (
        "Neutropenia",
        "Blood and lymphatic system disorders",
        0.38,
        0.70,
        0.9,
        0.05,
        180,
    ),
    (
        "Anaemia",
        "Blood and lymphatic system disorders",
        0.30,
        0.35,
        0.6,
        0.02,
        180,
    ),
    (
        "Thrombocytopenia",
        "Blood and lymphatic system disorders",
        0.22,
        0.40,
        0.8,
        0.03,
        180,
    ),
    (
        "Pyrexia",
        "General disorders and administration site conditions",
        0.26,
        0.03,
        0.5,
        0.05,
        120,
    ),
    (
        "COVID-19",
        "Infections and infestations",
        0.12,
        0.40,
        0.0,
        0.45,
        400,
    ),
    (
        "Fatigue",
        "General disorders and administration site conditions",
        0.20,
        0.02,
        0.4,
        0.0,
        300,
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
    let first = date("2022-03-01");
    let mut adsl = String::from(
        "STUDYID,USUBJID,SUBJID,SITEID,ARM,ARMCD,AGE,AGEGR1,SEX,ECOGBL,HISTOL,PRIORLOT,PRCART,\
         ENRLDT,TRTSDT,TRTEDT,EOTSTT,DCTREAS,EOSSTT,DCSREAS,DTHDT,LSTALVDT,FASFL,SAFFL\n",
    );
    let mut adrs = String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVISIT,ADT,AVALC\n");
    let mut adae = String::from(
        "STUDYID,USUBJID,AEDECOD,AEBODSYS,AETOXGR,AESER,AEREL,TRTEMFL,AEACN,AEOUT,ASTDT\n",
    );
    for i in 0..N {
        let id = format!("{STUDY}-{:02}-{:03}", 11 + i % 9, 101 + i);
        let enrolled = plus(first, rng.range(0, 480));
        let trtsdt = plus(enrolled, rng.range(3, 10));
        let age = rng.range(28, 84);
        let sex = if rng.uniform() < 0.6 { "M" } else { "F" };
        let ecog = ["0", "1"][rng.weighted(&[0.45, 0.55])];
        let histology = ["DLBCL NOS", "HGBCL", "TRANSFORMED FL", "PMBCL"]
            [rng.weighted(&[0.62, 0.14, 0.18, 0.06])];
        let prior = rng.range(2, 5);
        let prior_car_t = if rng.uniform() < 0.33 { "Y" } else { "N" };
        let deepest = rng.weighted(&DEEPEST);
        let progression = if deepest == 3 {
            rng.range(30, 84) as f64
        } else {
            84.0 + rng.exponential(MEDIAN_PFS[deepest] * MONTH)
        };
        let death = if rng.uniform() < 0.03 {
            rng.range(20, 200) as f64
        } else {
            progression + rng.exponential(9.0 * MONTH)
        };
        let withdrawal = (rng.uniform() < 0.05).then(|| rng.range(100, 600) as f64);
        let until_cutoff = (cutoff - trtsdt).num_days() as f64;
        let died = death <= until_cutoff && withdrawal.is_none_or(|w| death < w);
        let on_study_to = death.min(withdrawal.unwrap_or(f64::MAX)).min(until_cutoff);

        // Scans on schedule (± 7 days) while on study; a progression is seen at the first scan
        // after it; treatment (fixed 12 cycles of 21 days at most) stops at progression.
        let mut scans = Vec::new();
        for k in 0.. {
            let at = scheduled(k) + rng.range(-7, 7);
            if at as f64 > on_study_to {
                break;
            }
            let pd = at as f64 >= progression;
            // The first scan may show PMR on the way to a CMR.
            let level = if pd {
                3
            } else if k == 0 && deepest == 0 && rng.uniform() < 0.4 {
                1
            } else {
                deepest
            };
            scans.push((at, level));
            if pd {
                break;
            }
        }
        for (at, level) in &scans {
            let week = ((*at as f64) / 7.0).round() as i64;
            let _ = writeln!(
                adrs,
                "{STUDY},{id},OVR,Overall Response by Lugano 2014,WEEK {},{},{}",
                if week <= 90 {
                    (week + 6) / 12 * 12
                } else {
                    (week + 12) / 24 * 24
                },
                plus(trtsdt, *at),
                LUGANO[*level]
            );
        }
        let first_pd = scans.iter().find(|s| s.1 == 3).map(|s| s.0 as f64);
        let end = first_pd
            .unwrap_or(f64::MAX)
            .min(252.0)
            .min(on_study_to)
            .min(death);
        let treatment_ended = end < until_cutoff;
        let reason = if first_pd.is_some_and(|p| p <= end) {
            "PROGRESSIVE DISEASE"
        } else if death <= end {
            "DEATH"
        } else if withdrawal.is_some_and(|w| w <= end) {
            "WITHDRAWAL BY SUBJECT"
        } else {
            "COMPLETED"
        };
        let (eotstt, dctreas) = match (treatment_ended, reason) {
            (false, _) => ("ONGOING", ""),
            (true, "COMPLETED") => ("COMPLETED", ""),
            (true, why) => ("DISCONTINUED", why),
        };
        let study_ended = died || withdrawal.is_some_and(|w| w <= until_cutoff);
        let (eosstt, dcsreas) = match (died, study_ended) {
            (true, _) => ("DISCONTINUED", "DEATH"),
            (false, true) => ("DISCONTINUED", "WITHDRAWAL BY SUBJECT"),
            _ => ("ONGOING", ""),
        };
        let last_alive = plus(trtsdt, on_study_to.round() as i64);
        let agegr = if age < 65 { "<65" } else { ">=65" };
        let day = |d: f64| plus(trtsdt, d.round() as i64).to_string();
        let _ = writeln!(
            adsl,
            "{STUDY},{id},{},{},ZELTAMIG,ZLT,{age},{agegr},{sex},{ecog},{histology},{prior},\
             {prior_car_t},{enrolled},{trtsdt},{},{eotstt},{dctreas},{eosstt},{dcsreas},{},{last_alive},Y,Y",
            101 + i,
            11 + i % 9,
            if treatment_ended { day(end) } else { String::new() },
            if died { day(death) } else { String::new() },
        );
        let treated_to = end.min(until_cutoff).max(1.0) as i64;
        write_aes(&mut rng, &mut adae, (&id, trtsdt, treated_to, on_study_to));
    }
    let readme = "# LY-EXAMPLE: SYNTHETIC data\n\n\
                  Generated by `examples/make_lymphoma_example.rs` (`cargo run --release --example \
                  make_lymphoma_example`). No real patient and no real trial is described; \
                  \"Zeltamig\" is fictional. Read by `config/lymphoma-example.yaml`.\n"
        .to_string();
    vec![
        ("adsl.csv", adsl),
        ("adrs.csv", adrs),
        ("adae.csv", adae),
        ("README.md", readme),
    ]
}

/// A subject's adverse events (`subject`: id, treatment start, days treated, days on study),
/// drawn term by term; an onset after the subject left the study is dropped.
fn write_aes(
    rng: &mut Rng,
    adae: &mut String,
    (id, trtsdt, treated_to, on_study_to): (&str, NaiveDate, i64, f64),
) {
    for (term, soc, chance, severe, related, serious, within) in AES {
        if rng.uniform() >= chance {
            continue;
        }
        let grade = if rng.uniform() < severe {
            rng.range(3, 4)
        } else {
            rng.range(1, 2)
        };
        let onset = rng.range(1, within.min(treated_to + 30).max(2));
        if onset as f64 > on_study_to {
            continue;
        }
        let rel = if rng.uniform() < related {
            "RELATED"
        } else {
            "NOT RELATED"
        };
        let ser = if rng.uniform() < serious || grade >= 3 && serious > 0.2 {
            "Y"
        } else {
            "N"
        };
        let _ = writeln!(
            adae,
            "{STUDY},{id},{term},{soc},{grade},{ser},{rel},Y,DOSE NOT CHANGED,RECOVERED/RESOLVED,{}",
            plus(trtsdt, onset)
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
    generate(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/lymphoma-example"));
}

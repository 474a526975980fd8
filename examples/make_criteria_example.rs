//! Generates the SYNTHETIC criteria example `data/criteria-example/` (ADSL, ADRS, README.md):
//! four single-arm cohorts of a fictional basket study, each read by other response criteria
//! (`config/criteria-example.yaml`, docs/CRITERIA.md):
//!
//! - `melanoma-io`: an immunotherapy cohort, iRECIST (pseudo-progression, unconfirmed and
//!   confirmed iUPD);
//! - `dlbcl`: diffuse large B-cell lymphoma, Lugano 2014 with PET-CT (CMR, PMR, NMR, PMD);
//! - `myeloma`: relapsed multiple myeloma, IMWG (sCR to PD, two consecutive assessments);
//! - `glioma`: recurrent glioma, RANO (CR, PR, MR confirmed after 28 days).
//!
//!     cargo run --release --example make_criteria_example
//!
//! Nothing here comes from real patients or a real trial. Each subject follows one of a few
//! response courses of its criteria, drawn by a fixed splitmix64 stream (no crate can change
//! it), with assessments every 8 weeks (± 3 days) until progression, death, or the cut-off; the
//! courses include the cases each publication discusses; after its course a subject progresses
//! at each visit with probability 0.15. The same code gives byte-identical
//! files, which `tests/criteria.rs` checks by running [`generate`].

use std::fmt::Write as _;
use std::path::Path;

use chrono::{Days, NaiveDate};

const STUDY: &str = "CRIT-EXAMPLE";
const CUTOFF: &str = "2024-06-28";
const SEED: u64 = 20240628;

// Tests include two generators, each with its own copy of the stream.
#[allow(clippy::duplicate_mod)]
#[path = "support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// Draws only this generator needs.
impl Rng {
    /// One of `items`, by weight.
    fn pick<'a>(&mut self, items: &'a [(f64, &'a [&'a str])]) -> &'a [&'a str] {
        let total: f64 = items.iter().map(|(w, _)| w).sum();
        let mut u = self.uniform() * total;
        for (w, item) in items {
            if u < *w {
                return item;
            }
            u -= w;
        }
        items.last().map_or(&[], |(_, i)| i)
    }
}

/// A cohort: its id, the ADSL value that selects it, its size and its response courses (the
/// overall response at each 8-weekly assessment; the last value repeats until progression).
struct Cohort {
    id: &'static str,
    disease: &'static str,
    /// The progression that may end a course later (iRECIST: iUPD, confirmed next visit).
    progression: &'static str,
    n: usize,
    courses: &'static [(f64, &'static [&'static str])],
}

const COHORTS: [Cohort; 4] = [
    Cohort {
        id: "melanoma-io",
        progression: "iUPD",
        disease: "MELANOMA",
        n: 40,
        courses: &[
            (5.0, &["iPR", "iPR", "iCR"]),
            (3.0, &["iSD", "iPR", "iPR"]),
            // Pseudo-progression: iUPD, then response.
            (3.0, &["iUPD", "iPR", "iPR"]),
            (2.0, &["iUPD", "iSD", "iSD"]),
            // Confirmed progression after stable disease.
            (6.0, &["iSD", "iUPD", "iCPD"]),
            (4.0, &["iUPD", "iCPD"]),
            // iUPD at the last assessment: never confirmed nor reset.
            (2.0, &["iSD", "iUPD"]),
            (3.0, &["iSD", "iSD", "iSD"]),
            (1.0, &["NE", "iSD"]),
            (1.0, &["iPR", "iUPD", "iCPD"]),
        ],
    },
    Cohort {
        id: "dlbcl",
        progression: "PMD",
        disease: "DLBCL",
        n: 36,
        courses: &[
            (9.0, &["PMR", "CMR", "CMR"]),
            (4.0, &["CMR", "CMR"]),
            (4.0, &["PMR", "PMR", "PMD"]),
            (4.0, &["NMR", "PMD"]),
            (3.0, &["PMD"]),
            (2.0, &["NMR", "NMR", "NMR"]),
        ],
    },
    Cohort {
        id: "myeloma",
        progression: "PD",
        disease: "MULTIPLE MYELOMA",
        n: 40,
        courses: &[
            (3.0, &["VGPR", "CR", "sCR", "sCR"]),
            (3.0, &["PR", "VGPR", "CR", "CR"]),
            // CR not confirmed, VGPR confirmed.
            (3.0, &["VGPR", "CR", "VGPR", "PD"]),
            (6.0, &["PR", "PR", "VGPR", "VGPR"]),
            (5.0, &["PR", "PR", "PD"]),
            (3.0, &["MR", "MR", "PD"]),
            (3.0, &["PR", "PD"]),
            (4.0, &["SD", "SD", "PD"]),
            (2.0, &["PD"]),
        ],
    },
    Cohort {
        id: "glioma",
        progression: "PD",
        disease: "GLIOMA",
        n: 32,
        courses: &[
            (2.0, &["PR", "CR", "CR"]),
            (4.0, &["PR", "PR", "SD"]),
            (3.0, &["MR", "MR", "SD"]),
            (2.0, &["PR", "PD"]),
            (7.0, &["SD", "SD", "PD"]),
            (5.0, &["SD", "PD"]),
            (3.0, &["PD"]),
        ],
    },
];

fn date(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("a date")
}

fn plus(d: NaiveDate, days: i64) -> NaiveDate {
    if days >= 0 {
        d.checked_add_days(Days::new(days as u64))
            .expect("in range")
    } else {
        d.checked_sub_days(Days::new((-days) as u64))
            .expect("in range")
    }
}

/// Whether a value ends the course (progression, confirmed or not yet: an iUPD continues).
fn ends(value: &str) -> bool {
    matches!(value, "PD" | "PMD" | "iCPD")
}

/// The files of the example: name → text.
pub fn files() -> Vec<(&'static str, String)> {
    let mut rng = Rng(SEED);
    let cutoff = date(CUTOFF);
    let first = date("2022-09-01");
    let mut adsl = String::from(
        "STUDYID,USUBJID,SUBJID,SITEID,COHORT,DISEASE,AGE,SEX,TRTSDT,TRTEDT,DTHDT,LSTALVDT,EFFFL,SAFFL\n",
    );
    let mut adrs = String::from("STUDYID,USUBJID,PARAMCD,PARAM,AVISIT,ADT,AVALC\n");
    let mut number = 0;
    for cohort in &COHORTS {
        for _ in 0..cohort.n {
            number += 1;
            let id = format!("{STUDY}-{number:04}");
            let site = 100 + rng.range(1, 6);
            let start = plus(first, rng.range(0, 420));
            let course = rng.pick(cohort.courses);
            let mut visits: Vec<(NaiveDate, &str, String)> = Vec::new();
            let mut k = 0usize;
            loop {
                k += 1;
                let adt = plus(start, 56 * k as i64 + rng.range(-3, 3));
                if adt > cutoff {
                    break;
                }
                let mut value = course.get(k - 1).or(course.last()).copied().unwrap_or("NE");
                // After its course, a subject progresses at each visit with probability 0.15;
                // iRECIST's iUPD is confirmed at the next one.
                let previous = visits.last().map(|v| v.1);
                if previous == Some("iUPD") && k > course.len() {
                    value = "iCPD";
                } else if k > course.len() && !ends(value) && rng.uniform() < 0.15 {
                    value = cohort.progression;
                }
                visits.push((adt, value, format!("WEEK {}", 8 * k)));
                // A course ends at progression, and an unconfirmed iUPD at its course's end
                // is the last assessment (the subject left the study).
                if ends(value) || (value == "iUPD" && k == course.len()) {
                    break;
                }
            }
            let last_seen = visits.last().map_or(start, |v| v.0);
            // Deaths: a third of those who progressed, within 40 to 200 days.
            let progressed = visits.last().is_some_and(|v| ends(v.1) || v.1 == "iUPD");
            let death = (progressed && rng.uniform() < 0.35)
                .then(|| plus(last_seen, rng.range(40, 200)))
                .filter(|d| *d <= cutoff);
            let alive = death.unwrap_or_else(|| plus(last_seen, rng.range(0, 60)).min(cutoff));
            let end = visits.last().map_or(start, |v| v.0);
            let _ = writeln!(
                adsl,
                "{STUDY},{id},{number:04},{site},{},{},{},{},{start},{end},{},{alive},Y,Y",
                cohort.id,
                cohort.disease,
                rng.range(28, 82),
                if rng.uniform() < 0.5 { "F" } else { "M" },
                death.map(|d| d.to_string()).unwrap_or_default(),
            );
            for (adt, value, visit) in &visits {
                let _ = writeln!(
                    adrs,
                    "{STUDY},{id},OVR,Overall Response by Investigator,{visit},{adt},{value}"
                );
            }
        }
    }
    vec![
        ("adsl.csv", adsl),
        ("adrs.csv", adrs),
        ("README.md", README.to_string()),
    ]
}

const README: &str = "\
# criteria-example: SYNTHETIC data

Made by `cargo run --release --example make_criteria_example` (examples/make_criteria_example.rs).
No real patient and no real trial: a fictional basket study of four single-arm cohorts, each
read by other response criteria (config/criteria-example.yaml, docs/CRITERIA.md): melanoma on
immunotherapy (iRECIST), DLBCL (Lugano 2014), multiple myeloma (IMWG), glioma (RANO). Each
subject follows one of a few response courses drawn by a fixed pseudo-random stream, assessed
every 8 weeks until progression, death or the cut-off 2024-06-28.
";

/// Writes the files into `out`.
pub fn generate(out: &Path) {
    std::fs::create_dir_all(out).expect("create data folder");
    for (name, text) in files() {
        std::fs::write(out.join(name), text).expect("write data file");
    }
}

#[allow(dead_code)]
fn main() {
    generate(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/criteria-example"));
}

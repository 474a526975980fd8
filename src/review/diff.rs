//! `readout diff`: what changed between two cut-off folders of one study, per cohort: N,
//! best overall responses (and which subjects changed), events, medians and CIs, new adverse
//! events. Reads the folders' `results.json` and `derived/*.csv`; writes Markdown and HTML
//! beside the two folders (in the study folder), never inside a cut-off folder.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::Date;

use crate::documents::render::{
    escape_markdown as esc, html::remove_unsafe_urls, markdown_tables_to_html,
};
use crate::error::{Error, Result};
use crate::format::{first_names, fixed, fmt_p, NAMES_LISTED};
use crate::results::{
    AeGrading, CohortRecord, CohortResults, Decimals, Estimate, Proportion, ProportionDifference,
    TteComparison,
};

use super::records;

/// The comparison, as text and the files written.
#[derive(Debug, Clone)]
pub struct DiffReport {
    /// The Markdown report.
    pub markdown: String,
    /// Where the .md and .html were written.
    pub written: Vec<PathBuf>,
}

/// `results.json` as read back: the keys the build writes (`docs/OUTPUTS.md`); the cohorts are
/// the build's own [`CohortRecord`]s, so a number is named in one place.
#[derive(Deserialize)]
struct ResultsFile {
    study: StudyId,
    #[serde(default)]
    cutoff: Option<Date>,
    #[serde(default)]
    time_unit: Option<String>,
    cohorts: Vec<CohortRecord>,
}

#[derive(Deserialize)]
struct StudyId {
    id: String,
}

/// Reads a cut-off folder's `results.json`; its study and cohort ids name files, so they are
/// checked as a config's are (an edited id could name a file outside the folder).
fn read_results(path: &Path) -> Result<ResultsFile> {
    let file = crate::files::open_regular(path, false).map_err(|why| {
        Error::data_file(
            path,
            format!("{why}; expected a results.json that `readout build` wrote"),
        )
    })?;
    let results: ResultsFile =
        serde_json::from_reader(std::io::BufReader::new(file)).map_err(|e| {
            Error::data_file(
                path,
                format!("not a readout results.json ({e}); expected the output of `readout build`"),
            )
        })?;
    let bad_id = |key: String, problem: String| {
        Err(Error::Data {
            file: path.to_path_buf(),
            location: format!("key `{key}`: "),
            message: format!("{problem}; the file was not written by `readout build`"),
        })
    };
    if let Some(problem) = crate::config::study_id_problem(&results.study.id) {
        return bad_id("study.id".into(), problem);
    }
    for (i, cohort) in results.cohorts.iter().enumerate() {
        if let Some(problem) = crate::config::cohort_id_problem(&cohort.results.id) {
            return bad_id(format!("cohorts[{i}].id"), problem);
        }
    }
    Ok(results)
}

/// USUBJID → BOR from a derived dataset (empty when the file is absent).
fn read_bor(path: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(out);
    }
    let file = crate::files::open_regular(path, false).map_err(|why| {
        Error::data_file(
            path,
            format!("{why}; expected a derived dataset `readout build` wrote"),
        )
    })?;
    let not_written = |what: String| {
        Error::data_file(
            path,
            format!("{what}; expected a derived dataset `readout build` wrote"),
        )
    };
    let mut reader = csv::Reader::from_reader(file);
    let header = reader
        .headers()
        .map_err(|e| not_written(format!("not valid CSV: {e}")))?;
    if header.get(0) != Some("USUBJID") || header.get(1) != Some("BOR") {
        return Err(not_written(
            "its first columns are not USUBJID and BOR".to_string(),
        ));
    }
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| not_written(format!("not valid CSV: {e}")))?;
        if let (Some(id), Some(bor)) = (record.get(0), record.get(1)) {
            for cell in [id, bor] {
                if let Some((_, c)) = crate::error::find_refused_control(cell) {
                    return Err(not_written(format!(
                        "line {}: {}",
                        i + 2,
                        crate::error::refused_character(c)
                    )));
                }
            }
            out.insert(id.to_string(), bor.to_string());
        }
    }
    Ok(out)
}

fn cohorts(results: &ResultsFile) -> BTreeMap<&str, &CohortRecord> {
    results
        .cohorts
        .iter()
        .map(|c| (c.results.id.as_str(), c))
        .collect()
}

/// A number as the diff prints it: whole numbers bare, others to `d` decimals (as the
/// abstract prints them), `NE` for none.
fn num(v: Option<f64>, d: usize) -> String {
    match v {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
        Some(x) => fixed(x, d),
        None => "NE".to_string(),
    }
}

fn count(n: Option<usize>) -> String {
    num(n.map(|n| n as f64), 0)
}

/// `8.4 (5.5, NE)`; `NR` for a median not reached; `—` when there is no estimate at all.
fn estimate(e: Option<(Option<f64>, Option<f64>, Option<f64>)>, d: usize) -> String {
    let Some((estimate, lower, upper)) = e else {
        return "—".to_string();
    };
    format!(
        "{} ({}, {})",
        if estimate.is_none() {
            "NR".to_string()
        } else {
            num(estimate, d)
        },
        num(lower, d),
        num(upper, d)
    )
}

fn of(e: &Estimate) -> (Option<f64>, Option<f64>, Option<f64>) {
    (e.estimate, e.lower, e.upper)
}

/// The comparison's hazard ratio as the abstract gives it: stratified when the cohort has
/// strata; "NE" when not estimable.
fn hazard_ratio(t: &TteComparison) -> String {
    let cox = t.stratified.as_ref().map_or(&t.cox, |s| &s.cox);
    match &cox.hr {
        Some(h) => estimate(Some((Some(h.estimate), Some(h.lower), Some(h.upper))), 2),
        None => "NE".to_string(),
    }
}

/// The log-rank p-value, stratified when the cohort has strata.
fn logrank_p(t: &TteComparison) -> String {
    fmt_p(t.stratified.as_ref().map_or(&t.logrank, |s| &s.logrank).p)
}

/// A difference of two rates in percentage points with its interval; "NE" when undefined.
fn difference(p: &ProportionDifference, digits: Decimals) -> String {
    match &p.difference {
        Some(d) => estimate(
            Some((
                Some(d.estimate * 100.0),
                Some(d.lower * 100.0),
                Some(d.upper * 100.0),
            )),
            digits.percent,
        ),
        None => "NE".to_string(),
    }
}

/// A table row; a fourth cell marks a change (the mark outside the last cell left the row
/// unparsed, and the table as raw pipes).
fn row(md: &mut String, what: &str, a: String, b: String) {
    let mark = if a == b { "" } else { "**changed**" };
    let _ = writeln!(md, "| {} | {} | {} | {mark} |", esc(what), esc(&a), esc(&b));
}

/// The rows of one cohort's or arm's own numbers, earlier (`x`) against later (`y`), each
/// label after `prefix` (an arm's short name and a colon, or nothing for the cohort).
fn numbers_rows(md: &mut String, x: &CohortResults, y: &CohortResults, prefix: &str, d: Decimals) {
    row(
        md,
        &format!("{prefix}N enrolled"),
        count(Some(x.n.enrolled)),
        count(Some(y.n.enrolled)),
    );
    if let Some(response) = &y.response {
        let old = x.response.as_ref();
        // "64/120 (53.3%)", the rate to the abstract's decimals.
        let fraction = |p: Option<&Proportion>| match p {
            Some(p) => format!(
                "{}/{} ({}%)",
                p.n,
                p.total,
                p.rate
                    .map_or("NE".to_string(), |r| fixed(r * 100.0, d.percent))
            ),
            None => "—".to_string(),
        };
        for (key, n) in &response.bor {
            row(
                md,
                &format!("{prefix}BOR {key}"),
                count(old.and_then(|r| r.bor.get(key).copied())),
                count(Some(*n)),
            );
        }
        // "ORR" under RECIST, "Overall response rate" where the criteria call it that.
        let orr_name = if response.orr_name.starts_with("objective") {
            "ORR".to_string()
        } else {
            crate::documents::prose::sentence_case(&response.orr_name)
        };
        row(
            md,
            &format!("{prefix}{orr_name}"),
            fraction(old.map(|r| &r.orr)),
            fraction(Some(&response.orr)),
        );
        if response.dcr_reported {
            row(
                md,
                &format!("{prefix}DCR"),
                fraction(old.map(|r| &r.dcr)),
                fraction(Some(&response.dcr)),
            );
        }
        // The criteria's own rates (CMR; VGPR or better; ...).
        for (name, p) in &response.rates {
            row(
                md,
                &format!("{prefix}{name}"),
                fraction(old.and_then(|r| r.rates.get(name))),
                fraction(Some(p)),
            );
        }
    }
    if let Some(disposition) = &y.disposition {
        let old = x.disposition.as_ref();
        row(
            md,
            &format!("{prefix}Discontinued"),
            count(old.map(|o| o.discontinued)),
            count(Some(disposition.discontinued)),
        );
        row(
            md,
            &format!("{prefix}Discontinued because of adverse events"),
            count(old.and_then(|o| o.discontinued_ae)),
            count(disposition.discontinued_ae),
        );
    }
    if let Some(e) = &y.exposure {
        let median = |e: Option<&crate::results::Exposure>| {
            e.map_or_else(|| "—".to_string(), |e| fixed(e.duration.median, d.time))
        };
        row(
            md,
            &format!("{prefix}Median treatment duration"),
            median(x.exposure.as_ref()),
            median(Some(e)),
        );
    }
    for (endpoint, t) in &y.tte {
        let old = x.tte.get(endpoint);
        row(
            md,
            &format!("{prefix}{endpoint} events"),
            count(old.map(|o| o.events)),
            count(Some(t.events)),
        );
        if let Some(cif) = &t.cif {
            // The incidence at the latest landmark still followed, with the competing events.
            if let Some(l) = cif.landmarks.iter().rev().find(|l| l.n_risk > 0) {
                let at = |c: Option<&crate::results::CifResults>| {
                    c.and_then(|c| c.landmarks.iter().find(|o| o.time == l.time))
                        .map(|o| {
                            (
                                Some(o.estimate * 100.0),
                                o.lower.map(|v| v * 100.0),
                                o.upper.map(|v| v * 100.0),
                            )
                        })
                };
                row(
                    md,
                    &format!(
                        "{prefix}{endpoint} cumulative incidence at {} (CI), %",
                        fixed(l.time, d.time)
                    ),
                    estimate(at(old.and_then(|o| o.cif.as_ref())), d.percent),
                    estimate(at(Some(cif)), d.percent),
                );
            }
            row(
                md,
                &format!("{prefix}{endpoint} competing events"),
                count(old.and_then(|o| o.cif.as_ref()).map(|c| c.competing)),
                count(Some(cif.competing)),
            );
        } else {
            row(
                md,
                &format!("{prefix}{endpoint} median (CI)"),
                estimate(old.map(|o| of(&o.median)), d.time),
                estimate(Some(of(&t.median)), d.time),
            );
        }
        if let Some(r) = &t.rmst {
            let rmst = |r: Option<&crate::results::RmstResult>| {
                r.map(|r| (Some(r.estimate), Some(r.lower), Some(r.upper)))
            };
            row(
                md,
                &format!("{prefix}{endpoint} RMST to {} (CI)", fixed(r.tau, d.time)),
                estimate(rmst(old.and_then(|o| o.rmst.as_ref())), d.time),
                estimate(rmst(Some(r)), d.time),
            );
        }
    }
}

/// The comparisons' rows: each hazard ratio and log-rank p (stratified when the cohort has
/// strata), as the abstract reports them, the AE risk differences and the response-rate
/// differences.
fn comparison_rows(md: &mut String, x: &CohortResults, y: &CohortResults, d: Decimals) {
    for comparison in &y.comparisons {
        let earlier = x
            .comparisons
            .iter()
            .find(|c| c.arm == comparison.arm && c.reference == comparison.reference);
        let what = format!(
            "{} vs {}",
            esc(y.arm_short(&comparison.arm)),
            esc(y.arm_short(&comparison.reference))
        );
        for (endpoint, t) in &comparison.tte {
            let old = earlier.and_then(|c| c.tte.get(endpoint));
            row(
                md,
                &format!("{what}: {endpoint} HR (CI)"),
                old.map_or_else(|| "—".to_string(), hazard_ratio),
                hazard_ratio(t),
            );
            row(
                md,
                &format!("{what}: {endpoint} log-rank"),
                old.map_or_else(|| "—".to_string(), logrank_p),
                logrank_p(t),
            );
            if t.rmst.is_some() || old.is_some_and(|o| o.rmst.is_some()) {
                let rmst = |c: Option<&TteComparison>| {
                    c.and_then(|c| c.rmst.as_ref()).map_or_else(
                        || "—".to_string(),
                        |r| {
                            let e = &r.difference;
                            format!(
                                "{} (τ {})",
                                estimate(
                                    Some((Some(e.estimate), Some(e.lower), Some(e.upper))),
                                    d.time
                                ),
                                fixed(r.tau, d.time)
                            )
                        },
                    )
                };
                row(
                    md,
                    &format!("{what}: {endpoint} RMST difference (CI)"),
                    rmst(old),
                    rmst(Some(t)),
                );
            }
            if t.fine_gray.is_some() || t.gray.is_some() {
                let shr = |c: Option<&TteComparison>| match c.and_then(|c| c.fine_gray.as_ref()) {
                    Some(f) => f.hr.as_ref().map_or("NE".to_string(), |h| {
                        estimate(Some((Some(h.estimate), Some(h.lower), Some(h.upper))), 2)
                    }),
                    None => "—".to_string(),
                };
                row(
                    md,
                    &format!("{what}: {endpoint} SHR (CI)"),
                    shr(old),
                    shr(Some(t)),
                );
                let gray = |c: Option<&TteComparison>| {
                    c.and_then(|c| c.gray.as_ref())
                        .map_or("—".to_string(), |g| fmt_p(Some(g.p)))
                };
                row(
                    md,
                    &format!("{what}: {endpoint} Gray's test"),
                    gray(old),
                    gray(Some(t)),
                );
            }
            // Each subgroup column's test of its interaction with the arm.
            for test in &t.interactions {
                let before =
                    old.and_then(|o| o.interactions.iter().find(|i| i.column == test.column));
                row(
                    md,
                    &format!("{what}: {endpoint} interaction with {}", test.column),
                    before.map_or_else(|| "—".to_string(), |i| fmt_p(i.p)),
                    fmt_p(test.p),
                );
            }
        }
        // Adverse events of each kind (not each term): subjects with one in each arm, and
        // the risk difference in percentage points.
        if let Some(ae) = &comparison.safety {
            let old = earlier.and_then(|c| c.safety.as_ref());
            let text = |r: &crate::results::AeRisk, total: usize, reference: usize| {
                format!(
                    "{}/{total} vs {}/{reference}; {}",
                    r.n,
                    r.n_reference,
                    estimate(
                        Some((
                            Some(r.difference.estimate * 100.0),
                            Some(r.difference.lower * 100.0),
                            Some(r.difference.upper * 100.0),
                        )),
                        d.percent
                    )
                )
            };
            for risk in ae.rows.iter().filter(|r| r.term.is_none()) {
                let before = old.and_then(|o| {
                    o.rows
                        .iter()
                        .find(|r| r.term.is_none() && r.kind == risk.kind)
                        .map(|r| (o, r))
                });
                row(
                    md,
                    &format!("{what}: {} (difference, CI)", risk.kind),
                    before.map_or_else(
                        || "—".to_string(),
                        |(o, b)| text(b, o.total, o.total_reference),
                    ),
                    text(risk, ae.total, ae.total_reference),
                );
            }
        }
        if let Some(r) = &comparison.response {
            let old = earlier.and_then(|c| c.response.as_ref());
            row(
                md,
                &format!("{what}: ORR difference (CI)"),
                old.map_or_else(|| "—".to_string(), |o| difference(&o.orr, d)),
                difference(&r.orr, d),
            );
        }
    }
}

/// The preferred terms with more subjects (any grade or grade ≥3) than before, one line each,
/// after `prefix` (an arm's name and a colon, or nothing).
fn term_lines(x: Option<&CohortResults>, y: &CohortResults, prefix: &str) -> Vec<String> {
    let terms = |c: &CohortResults| -> BTreeMap<String, (usize, Option<usize>)> {
        c.safety
            .iter()
            .flat_map(|s| &s.by_term)
            .map(|t| (t.term.clone(), (t.teae_any, t.teae_grade3plus)))
            .collect()
    };
    let (ta, tb) = (x.map(terms).unwrap_or_default(), terms(y));
    let severity = y.safety.as_ref().map(|s| s.grading) == Some(AeGrading::Severity);
    let (any_words, severe_words) = if severity {
        ("any severity", "severe")
    } else {
        ("any grade", "grade ≥3")
    };
    tb.iter()
        .filter_map(|(term, &(any, g3))| {
            let (old_any, old_g3) = ta.get(term).copied().unwrap_or((0, g3.map(|_| 0)));
            let shown = |n: Option<usize>| n.map_or("–".to_string(), |n| n.to_string());
            (any > old_any || g3 > old_g3).then(|| {
                format!(
                    "- {prefix}{}: subjects with {any_words} {old_any} → {any}, {severe_words} {} → {}",
                    esc(term),
                    shown(old_g3),
                    shown(g3)
                )
            })
        })
        .collect()
}

/// Lines of a list, at most [`LINES_LISTED`], then how many more.
fn list(md: &mut String, lines: &[String]) {
    for line in lines.iter().take(LINES_LISTED) {
        let _ = writeln!(md, "- {}", esc(line));
    }
    if lines.len() > LINES_LISTED {
        let _ = writeln!(md, "- and {} more", lines.len() - LINES_LISTED);
    }
    md.push('\n');
}

/// Most lines of one list in the diff report.
const LINES_LISTED: usize = 50;

/// The records section of a cohort: earlier records corrected, new data per arm, AE changes
/// per arm and kind, and the deaths, serious and grade 5 AEs since the earlier cut-off.
fn records_section(md: &mut String, changes: &records::Changes, y: &CohortResults) {
    if let Some(why) = &changes.left_out {
        let _ = writeln!(md, "{why}\n");
        return;
    }
    let since = changes
        .boundary
        .map_or("the earlier cut-off".to_string(), |d| d.to_string());
    if changes.corrections.is_empty() {
        let _ = writeln!(md, "No record dated on or before {since} changed.\n");
    } else {
        let _ = writeln!(
            md,
            "Earlier records changed (dated on or before {since}; {} {}):\n",
            changes.corrected_subjects.len(),
            if changes.corrected_subjects.len() == 1 {
                "subject"
            } else {
                "subjects"
            }
        );
        list(md, &changes.corrections);
    }
    let arms: std::collections::BTreeSet<&String> = changes
        .new_assessments
        .keys()
        .chain(changes.ae.keys())
        .collect();
    if !arms.is_empty() {
        let _ = writeln!(
            md,
            "| Since {since} | response assessments (subjects) | new AEs | AEs entered late | AEs re-graded | AEs now serious or fatal | AEs removed |\n|---|---|---|---|---|---|---|"
        );
        for arm in arms {
            let (assessed, subjects) = changes
                .new_assessments
                .get(arm)
                .map_or((0, 0), |(n, s)| (*n, s.len()));
            let ae = changes.ae.get(arm);
            let label = if arm.is_empty() {
                "All".to_string()
            } else {
                esc(y.arm_short(arm))
            };
            let _ = writeln!(
                md,
                "| {label} | {assessed} ({subjects}) | {} | {} | {} | {} | {} |",
                ae.map_or(0, |a| a.new),
                ae.map_or(0, |a| a.late),
                ae.map_or(0, |a| a.regraded.len()),
                ae.map_or(0, |a| a.upgraded.len()),
                ae.map_or(0, |a| a.removed)
            );
        }
        md.push('\n');
    }
    let late: Vec<String> = changes
        .ae
        .values()
        .flat_map(|a| a.late_lines.iter().cloned())
        .collect();
    if !late.is_empty() {
        let _ = writeln!(md, "AEs entered late (started on or before {since}):\n");
        list(md, &late);
    }
    let regraded: Vec<String> = changes
        .ae
        .values()
        .flat_map(|a| a.regraded.iter().chain(&a.upgraded).cloned())
        .collect();
    if !regraded.is_empty() {
        let _ = writeln!(md, "AEs re-graded or now serious or fatal:\n");
        list(md, &regraded);
    }
    if changes.listed.is_empty() {
        let _ = writeln!(md, "No new death, serious or grade 5 AE since {since}.\n");
    } else {
        let _ = writeln!(md, "Deaths, serious and grade 5 AEs since {since}:\n");
        list(md, &changes.listed);
    }
}

/// One cohort's part of the diff report: its numbers and its arms', the comparisons, the
/// changes of best response, the records section and the AE terms with more subjects.
fn cohort_section(
    md: &mut String,
    (before, after): (&Path, &Path),
    (x_record, y_record): (&CohortRecord, &CohortRecord),
    id: &str,
    cutoff: Option<Date>,
    (name_a, name_b): (&str, &str),
) -> Result<()> {
    let (x, y) = (&x_record.results, &y_record.results);
    let _ = writeln!(
        md,
        "| | {} | {} | |\n|---|---|---|---|",
        esc(name_a),
        esc(name_b)
    );
    let digits = y_record.decimals.unwrap_or(Decimals {
        percent: 1,
        time: 1,
    });
    // A cohort with arms is read per arm (its pooled numbers mix the arms): only its size
    // pooled.
    if y.arms.is_empty() {
        numbers_rows(md, x, y, "", digits);
    } else {
        row(
            md,
            "N enrolled",
            count(Some(x.n.enrolled)),
            count(Some(y.n.enrolled)),
        );
    }
    // Each arm's own numbers, as the abstract gives them per arm (an arm only in the later
    // cut-off against nothing).
    for arm in &y.arms {
        let name = y.arm_short(&arm.arm);
        match x.arms.iter().find(|a| a.arm == arm.arm) {
            Some(before) => numbers_rows(
                md,
                &before.results,
                &arm.results,
                &format!("{}: ", esc(name)),
                digits,
            ),
            None => row(
                md,
                &format!("{}: N enrolled", esc(name)),
                "—".to_string(),
                count(Some(arm.results.n.enrolled)),
            ),
        }
    }
    comparison_rows(md, x, y, digits);
    let followup = |c: &CohortResults| c.followup.as_ref().map(|f| (f.estimate, f.lower, f.upper));
    row(
        md,
        "Median follow-up (CI)",
        estimate(followup(x), digits.time),
        estimate(followup(y), digits.time),
    );
    md.push('\n');

    let changes = records::compare(before, after, id, cutoff, &|arm| {
        y.arm_short(arm).to_string()
    })?;
    let bor_a = read_bor(&before.join("derived").join(format!("{id}.csv")))?;
    let bor_b = read_bor(&after.join("derived").join(format!("{id}.csv")))?;
    // Each change of best response says whether earlier records were corrected for the
    // subject (else it came from new assessments).
    let changed: Vec<String> = bor_b
        .iter()
        .filter_map(|(subject, new)| match bor_a.get(subject) {
            Some(old) if old != new => {
                let why = match &changes {
                    Some(c) if c.corrected_subjects.contains(subject) => {
                        " (earlier records corrected)"
                    }
                    Some(_) => " (new assessments)",
                    None => "",
                };
                Some(format!(
                    "- {}: {} → {}{why}",
                    esc(subject),
                    esc(old),
                    esc(new)
                ))
            }
            _ => None,
        })
        .collect();
    // New subjects in one line: how many, and the first ten with their BOR.
    let new_subjects: Vec<String> = bor_b
        .iter()
        .filter(|(subject, _)| !bor_a.contains_key(*subject))
        .map(|(subject, bor)| {
            if bor.is_empty() {
                esc(subject)
            } else {
                format!("{} ({})", esc(subject), esc(bor))
            }
        })
        .collect();
    if !new_subjects.is_empty() {
        let shown = &new_subjects[..new_subjects.len().min(NAMES_LISTED)];
        let _ = writeln!(
            md,
            "{} new {}: {}.\n",
            new_subjects.len(),
            if new_subjects.len() == 1 {
                "subject"
            } else {
                "subjects"
            },
            first_names(shown, new_subjects.len())
        );
    }
    if changed.is_empty() {
        let _ = writeln!(md, "No subject changed best overall response.\n");
    } else {
        let _ = writeln!(md, "Subjects whose best overall response changed:\n");
        for line in changed {
            let _ = writeln!(md, "{line}");
        }
        md.push('\n');
    }
    if let Some(changes) = &changes {
        records_section(md, changes, y);
    }

    // Terms with more subjects than before: per arm for a cohort with arms.
    let new_events: Vec<String> = if y.arms.is_empty() {
        term_lines(Some(x), y, "")
    } else {
        y.arms
            .iter()
            .flat_map(|arm| {
                let before = x.arms.iter().find(|a| a.arm == arm.arm).map(|a| &a.results);
                term_lines(
                    before,
                    &arm.results,
                    &format!("{}: ", esc(y.arm_short(&arm.arm))),
                )
            })
            .collect()
    };
    if new_events.is_empty() {
        let _ = writeln!(md, "No adverse event term with more subjects.\n");
    } else {
        let _ = writeln!(
            md,
            "Adverse event terms with more subjects (treatment-emergent):\n"
        );
        for line in new_events {
            let _ = writeln!(md, "{line}");
        }
        md.push('\n');
    }
    warnings_section(md, x_record, y_record);
    Ok(())
}

/// The cohort's warnings that are new at the later cut-off and those it no longer has, each
/// with its kind (`diagnostics[]` of results.json; by words for a results.json without it).
fn warnings_section(md: &mut String, x: &CohortRecord, y: &CohortRecord) {
    let (before, after) = (x.typed_warnings(), y.typed_warnings());
    let (new, gone) = crate::diagnostic::changes(&before, &after);
    if new.is_empty() && gone.is_empty() {
        let _ = writeln!(md, "No warning new or gone.\n");
        return;
    }
    for (list, title) in [(new, "New warnings"), (gone, "Warnings no longer given")] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(md, "{title} ({}):\n", list.len());
        for d in list.iter().take(NAMES_LISTED) {
            match d.kind {
                crate::diagnostic::Kind::Recorded => writeln!(md, "- {}", esc(&d.message)),
                kind => writeln!(md, "- `{}`: {}", kind.name(), esc(&d.message)),
            }
            .ok();
        }
        if list.len() > NAMES_LISTED {
            let _ = writeln!(md, "- and {} more", list.len() - NAMES_LISTED);
        }
        md.push('\n');
    }
}

/// Compares two cut-off folders and writes `diff-<A>-to-<B>.md/.html` in B's parent folder.
pub fn diff_folders(before: &Path, after: &Path) -> Result<DiffReport> {
    // Named and placed by the folders themselves (`diff ../A .` from inside a cut-off folder
    // names `.` by its own name and writes beside it, not into it).
    let resolved = (
        crate::write::resolved_path(before),
        crate::write::resolved_path(after),
    );
    let a = read_results(&before.join("results.json"))?;
    let b = read_results(&after.join("results.json"))?;
    if a.study.id != b.study.id {
        return Err(Error::Other(format!(
            "{} and {} are cut-offs of different studies ({} and {}); expected two folders of one study",
            before.display(),
            after.display(),
            a.study.id,
            b.study.id
        )));
    }
    // Times of two units are not two numbers to compare ("median 5.6 → 171").
    if a.time_unit != b.time_unit {
        let unit = |u: &Option<String>| u.clone().unwrap_or_else(|| "no unit".to_string());
        return Err(Error::Other(format!(
            "{} gives times in {} and {} in {}; expected two cut-offs built with one \
             `analysis.time_unit` (build one again with the other's)",
            before.display(),
            unit(&a.time_unit),
            after.display(),
            unit(&b.time_unit)
        )));
    }
    // The earlier cut-off comes first: given the other way round, every change would read
    // backwards (events "lost", subjects "removed").
    if let (Some(date_a), Some(date_b)) = (a.cutoff, b.cutoff) {
        if date_a > date_b {
            return Err(Error::Other(format!(
                "{} (cut-off {date_a}) is later than {} (cut-off {date_b}); give the earlier \
                 cut-off first: readout diff {} {}",
                before.display(),
                after.display(),
                after.display(),
                before.display()
            )));
        }
    }
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| p.display().to_string())
    };
    let (name_a, name_b) = (name(&resolved.0), name(&resolved.1));
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# {}: changes from {} to {}\n",
        esc(&a.study.id),
        esc(&name_a),
        esc(&name_b)
    );
    let ca = cohorts(&a);
    let cb = cohorts(&b);
    let mut ids: Vec<&str> = ca.keys().chain(cb.keys()).copied().collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        let _ = writeln!(md, "## {}\n", esc(id));
        let (Some(&x_record), Some(&y_record)) = (ca.get(id), cb.get(id)) else {
            let _ = writeln!(
                md,
                "Only in {}.\n",
                esc(if ca.contains_key(id) {
                    &name_a
                } else {
                    &name_b
                })
            );
            continue;
        };
        cohort_section(
            &mut md,
            (before, after),
            (x_record, y_record),
            id,
            a.cutoff,
            (&name_a, &name_b),
        )?;
    }
    let parent = resolved.1.parent().unwrap_or(Path::new("."));
    let stem = format!("diff-{name_a}-to-{name_b}");
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>body{{font-family:sans-serif;max-width:52rem;margin:2rem auto}}table{{border-collapse:collapse}}td,th{{border-bottom:1px solid #ccc;padding:.2rem .6rem}}</style>\n</head>\n<body>\n{}\n</body>\n</html>\n",
        crate::documents::render::html_escape(&stem),
        remove_unsafe_urls(&markdown_tables_to_html(&md))
    );
    let md_path = parent.join(format!("{stem}.md"));
    let html_path = parent.join(format!("{stem}.html"));
    for (path, body) in [(&md_path, &md), (&html_path, &html)] {
        crate::write::replace_file(path, body.as_bytes())?;
    }
    let mut written = vec![md_path, html_path];
    // Per cohort of the later folder: its abstract marked against the earlier one, as a Word
    // file with tracked changes and as an HTML redline (a cohort only in the earlier folder
    // has none: the report above says it is gone).
    let date = b.cutoff.map(|d| d.to_string());
    let ids: std::collections::BTreeSet<&str> = ca.keys().chain(cb.keys()).copied().collect();
    for id in ids {
        let read =
            |folder: &Path| super::redline::read_abstract(&folder.join(id).join("abstract.txt"));
        let (before_text, after_text) = (read(before)?, read(after)?);
        let marked = match (&before_text, &after_text, cb.contains_key(id)) {
            (_, Some(after_text), true) => {
                super::redline::redline(before_text.as_deref(), Some(after_text))
            }
            // Only in the earlier folder: one line saying the cohort is gone.
            (Some(_), _, false) => vec![vec![(
                Some(crate::documents::docx::Revision::Inserted),
                format!(
                    "Cohort {id} is not in {name_b}: it was in {name_a}, and has no abstract at {name_b}."
                ),
            )]],
            _ => continue,
        };
        let title = format!("{} {id}: abstract at {name_b} against {name_a}", a.study.id);
        let docx = crate::documents::docx::redline_docx(&marked, date.as_deref(), id)?;
        let html = super::redline::redline_html(&title, &marked);
        let docx_path = parent.join(format!("{stem}-{id}.docx"));
        let html_path = parent.join(format!("{stem}-{id}.html"));
        crate::write::replace_file(&docx_path, &docx)?;
        crate::write::replace_file(&html_path, html.as_bytes())?;
        written.extend([html_path, docx_path]);
    }
    Ok(DiffReport {
        markdown: md,
        written,
    })
}

/// Diffs a just-built cut-off folder with the latest earlier cut-off folder of its study, if any.
pub fn diff_with_previous(folder: &Path) -> Result<Option<DiffReport>> {
    let Some(parent) = folder.parent() else {
        return Ok(None);
    };
    let Some(this) = folder
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| chrono::NaiveDate::parse_from_str(n, "%Y-%m-%d").ok())
    else {
        return Ok(None);
    };
    let entries =
        std::fs::read_dir(parent).map_err(|e| Error::io(parent, "cannot list folder", e))?;
    let previous = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let date = chrono::NaiveDate::parse_from_str(&name, "%Y-%m-%d").ok()?;
            (date < this && e.path().join("results.json").is_file()).then_some((date, e.path()))
        })
        .max_by_key(|(date, _)| *date);
    match previous {
        Some((_, path)) => diff_folders(&path, folder).map(Some),
        None => Ok(None),
    }
}

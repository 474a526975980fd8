//! `readout diff`: what changed between two cut-off folders of one study, per cohort: N,
//! best overall responses (and which subjects changed), events, medians and CIs, new adverse
//! events. Reads the folders' `results.json` and `derived/*.csv`; writes Markdown and HTML
//! beside the two folders (in the study folder), never inside a cut-off folder.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::format::fixed;
use crate::render::{escape_markdown as esc, html::remove_unsafe_urls, markdown_tables_to_html};

/// How many new subjects a diff names (the rest are counted).
const NEW_SUBJECTS_LISTED: usize = 10;

/// The comparison, as text and the files written.
#[derive(Debug, Clone)]
pub struct DiffReport {
    /// The Markdown report.
    pub markdown: String,
    /// Where the .md and .html were written.
    pub written: Vec<PathBuf>,
}

fn read_json(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(path, "cannot read results", e))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::data_file(
            path,
            format!("not a readout results.json ({e}); expected the output of `readout build`"),
        )
    })
}

/// USUBJID → BOR from a derived dataset (empty when the file is absent).
fn read_bor(path: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if !path.is_file() {
        return Ok(out);
    }
    let mut reader = csv::Reader::from_path(path)
        .map_err(|e| Error::data_file(path, format!("cannot read: {e}")))?;
    for record in reader.records() {
        let record = record.map_err(|e| Error::data_file(path, format!("not valid CSV: {e}")))?;
        if let (Some(id), Some(bor)) = (record.get(0), record.get(1)) {
            out.insert(id.to_string(), bor.to_string());
        }
    }
    Ok(out)
}

fn cohorts(results: &Value) -> BTreeMap<String, &Value> {
    results["cohorts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["id"].as_str().map(|id| (id.to_string(), c)))
                .collect()
        })
        .unwrap_or_default()
}

fn num(v: &Value) -> String {
    match v.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
        Some(x) => fixed(x, 2),
        None => "NE".to_string(),
    }
}

fn estimate(v: &Value) -> String {
    if v.is_null() {
        return "—".to_string();
    }
    format!(
        "{} ({}, {})",
        if v["estimate"].is_null() {
            "NR".to_string()
        } else {
            num(&v["estimate"])
        },
        num(&v["lower"]),
        num(&v["upper"])
    )
}

/// A table row; a fourth cell marks a change (the mark outside the last cell left the row
/// unparsed, and the table as raw pipes).
fn row(md: &mut String, what: &str, a: String, b: String) {
    let mark = if a == b { "" } else { "**changed**" };
    let _ = writeln!(md, "| {} | {} | {} | {mark} |", esc(what), esc(&a), esc(&b));
}

/// Compares two cut-off folders and writes `diff-<A>-to-<B>.md/.html` in B's parent folder.
pub fn diff_folders(before: &Path, after: &Path) -> Result<DiffReport> {
    let a = read_json(&before.join("results.json"))?;
    let b = read_json(&after.join("results.json"))?;
    if a["study"]["id"] != b["study"]["id"] {
        return Err(Error::Other(format!(
            "{} and {} are cut-offs of different studies ({} and {}); expected two folders of one study",
            before.display(),
            after.display(),
            a["study"]["id"],
            b["study"]["id"]
        )));
    }
    // The earlier cut-off comes first: given the other way round, every change would read
    // backwards (events "lost", subjects "removed").
    if let (Some(date_a), Some(date_b)) = (a["cutoff"].as_str(), b["cutoff"].as_str()) {
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
    let (name_a, name_b) = (name(before), name(after));
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# {}: changes from {} to {}\n",
        esc(a["study"]["id"].as_str().unwrap_or("study")),
        esc(&name_a),
        esc(&name_b)
    );
    let ca = cohorts(&a);
    let cb = cohorts(&b);
    let mut ids: Vec<&String> = ca.keys().chain(cb.keys()).collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        let _ = writeln!(md, "## {}\n", esc(id));
        let (Some(x), Some(y)) = (ca.get(id), cb.get(id)) else {
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
        let _ = writeln!(
            md,
            "| | {} | {} | |\n|---|---|---|---|",
            esc(&name_a),
            esc(&name_b)
        );
        row(
            &mut md,
            "N enrolled",
            num(&x["n"]["enrolled"]),
            num(&y["n"]["enrolled"]),
        );
        if let Some(bor) = y["response"]["bor"].as_object() {
            for key in bor.keys() {
                row(
                    &mut md,
                    &format!("BOR {key}"),
                    num(&x["response"]["bor"][key]),
                    num(&y["response"]["bor"][key]),
                );
            }
            for p in ["orr", "dcr"] {
                row(
                    &mut md,
                    &p.to_uppercase(),
                    format!(
                        "{}/{}",
                        num(&x["response"][p]["n"]),
                        num(&x["response"][p]["N"])
                    ),
                    format!(
                        "{}/{}",
                        num(&y["response"][p]["n"]),
                        num(&y["response"][p]["N"])
                    ),
                );
            }
        }
        if let Some(tte) = y["tte"].as_object() {
            for (endpoint, t) in tte {
                let old = &x["tte"][endpoint];
                row(
                    &mut md,
                    &format!("{endpoint} events"),
                    num(&old["events"]),
                    num(&t["events"]),
                );
                row(
                    &mut md,
                    &format!("{endpoint} median (CI)"),
                    estimate(&old["median"]),
                    estimate(&t["median"]),
                );
            }
        }
        row(
            &mut md,
            "Median follow-up (CI)",
            estimate(&x["followup"]),
            estimate(&y["followup"]),
        );
        md.push('\n');

        let bor_a = read_bor(&before.join("derived").join(format!("{id}.csv")))?;
        let bor_b = read_bor(&after.join("derived").join(format!("{id}.csv")))?;
        let changed: Vec<String> = bor_b
            .iter()
            .filter_map(|(subject, new)| match bor_a.get(subject) {
                Some(old) if old != new => {
                    Some(format!("- {}: {} → {}", esc(subject), esc(old), esc(new)))
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
            let more = new_subjects.len().saturating_sub(NEW_SUBJECTS_LISTED);
            let _ = writeln!(
                md,
                "{} new {}: {}{}.\n",
                new_subjects.len(),
                if new_subjects.len() == 1 {
                    "subject"
                } else {
                    "subjects"
                },
                new_subjects
                    .iter()
                    .take(NEW_SUBJECTS_LISTED)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
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

        let terms = |c: &Value| -> BTreeMap<String, (u64, u64)> {
            c["safety"]["by_term"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| {
                            Some((
                                t["term"].as_str()?.to_string(),
                                (
                                    t["teae_any"].as_u64().unwrap_or(0),
                                    t["teae_grade3plus"].as_u64().unwrap_or(0),
                                ),
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let (ta, tb) = (terms(x), terms(y));
        let (any_words, severe_words) = if y["safety"]["grading"] == "severity" {
            ("any severity", "severe")
        } else {
            ("any grade", "grade ≥3")
        };
        let new_events: Vec<String> = tb
            .iter()
            .filter_map(|(term, &(any, g3))| {
                let (old_any, old_g3) = ta.get(term).copied().unwrap_or((0, 0));
                (any > old_any || g3 > old_g3).then(|| {
                    format!(
                        "- {}: subjects with {any_words} {old_any} → {any}, {severe_words} {old_g3} → {g3}",
                        esc(term)
                    )
                })
            })
            .collect();
        if new_events.is_empty() {
            let _ = writeln!(md, "No new adverse events.\n");
        } else {
            let _ = writeln!(md, "New adverse events (treatment-emergent, subjects):\n");
            for line in new_events {
                let _ = writeln!(md, "{line}");
            }
            md.push('\n');
        }
    }
    let parent = after.parent().unwrap_or(Path::new("."));
    let stem = format!("diff-{name_a}-to-{name_b}");
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>body{{font-family:sans-serif;max-width:52rem;margin:2rem auto}}table{{border-collapse:collapse}}td,th{{border-bottom:1px solid #ccc;padding:.2rem .6rem}}</style>\n</head>\n<body>\n{}\n</body>\n</html>\n",
        crate::render::html_escape(&stem),
        remove_unsafe_urls(&markdown_tables_to_html(&md))
    );
    let md_path = parent.join(format!("{stem}.md"));
    let html_path = parent.join(format!("{stem}.html"));
    for (path, body) in [(&md_path, &md), (&html_path, &html)] {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, body).map_err(|e| Error::io(&tmp, "cannot write", e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, "cannot write", e))?;
    }
    Ok(DiffReport {
        markdown: md,
        written: vec![md_path, html_path],
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

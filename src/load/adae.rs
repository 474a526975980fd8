//! ADAE: adverse events with grade (or severity), relatedness and seriousness.

use super::*;

/// Which of ADAE's optional columns hold a value on some row: a count read from a column that
/// is absent, or empty on every row, is `null` ("not available"), never 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdaeColumns {
    /// A grade (`ATOXGR`/`AETOXGR`) or severity (`ASEV`/`AESEV`) on some event.
    pub grade: bool,
    /// `AESER`.
    pub serious: bool,
    /// What says an event was fatal: a CTCAE grade, `AEOUT` or `AESDTH`.
    pub fatal: bool,
    /// `AEACN`: the action taken with the study treatment.
    pub action: bool,
}

/// ADAE: one row per event. The grade is CTCAE (`ATOXGR`/`AETOXGR`) or, failing that, mapped
/// from severity (`ASEV`/`AESEV`: MILD 1, MODERATE 2, SEVERE 3).
pub fn read_adae(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    related_values: &HashSet<String>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Vec<AdverseEvent>, AdaeColumns)> {
    let c_id = table.require("USUBJID")?;
    let c_term = table.require("AEDECOD")?;
    let c_soc = table.column("AEBODSYS");
    let c_grade = table.first_column(&["ATOXGR", "AETOXGR"]);
    let c_sev = table.first_column(&["ASEV", "AESEV"]).map(|c| c.0);
    let c_rel = table.first_column(&["AREL", "AEREL"]).map(|c| c.0);
    let c_start = table.column("ASTDT");
    let c_emergent = table.column("TRTEMFL");
    let c_ser = table.column("AESER");
    let c_out = table.column("AEOUT");
    let c_death = table.column("AESDTH");
    let c_action = table.column("AEACN");
    let mut out = Vec::with_capacity(table.len());
    let mut filled = AdaeColumns::default();
    let mut ungraded = 0usize;
    let mut hint = 0usize;
    let mut commas = Vec::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let term = row.text(Some(c_term))?;
        if term.is_empty() {
            return Err(row.error(c_term, "AEDECOD is empty; expected the preferred term"));
        }
        let grade = match &c_grade {
            Some((i, _)) => parse_grade(&row, *i)?,
            None => None,
        };
        let by_severity = grade.is_none();
        let grade = match grade {
            Some(g) => Some(g),
            None => match row.text(c_sev)?.to_ascii_uppercase().as_str() {
                "MILD" => Some(1),
                "MODERATE" => Some(2),
                "SEVERE" => Some(3),
                _ => None,
            },
        };
        let by_severity = by_severity && grade.is_some();
        if grade.is_none() {
            ungraded += 1;
        }
        let outcome = row.text(c_out)?;
        filled.grade |= grade.is_some();
        filled.serious |= !row.text(c_ser)?.is_empty();
        filled.fatal |= !by_severity && grade.is_some()
            || !outcome.is_empty()
            || !row.text(c_death)?.is_empty();
        filled.action |= !row.text(c_action)?.trim().is_empty();
        out.push(AdverseEvent {
            usubjid: usubjid.to_string(),
            term: term.to_string(),
            soc: row.opt_text(c_soc)?.map(str::to_string),
            grade,
            by_severity,
            related: related_values.contains(&row.text(c_rel)?.to_ascii_uppercase()),
            start: row.date(c_start)?,
            emergent: flag(&row, c_emergent, true)?,
            serious: flag(&row, c_ser, false)?,
            fatal: grade == Some(5)
                || outcome.eq_ignore_ascii_case("FATAL")
                || flag(&row, c_death, false)?,
            action: AeAction::from_aeacn(row.text(c_action)?),
        });
    }
    let by_severity = out.iter().filter(|e| e.by_severity).count();
    if c_grade.is_some() && by_severity > 0 {
        warnings.push(
            Diagnostic::note(
                Kind::AeSeverityAsGrade,
                format!(
                    "{}: {by_severity} adverse event(s) have no CTCAE grade; their severity was used (MILD 1, MODERATE 2, SEVERE 3)",
                    table.path.display()
                ),
            )
            .at(file_location(&table.path)),
        );
    }
    if ungraded > 0 {
        warnings.push(
            Diagnostic::warning(
                Kind::AeUngraded,
                format!(
                    "{}: {ungraded} adverse event(s) have no grade or severity; they count for any grade, not for grade ≥3",
                    table.path.display()
                ),
            )
            .at(file_location(&table.path)),
        );
    }
    Ok((out, filled))
}

/// A CTCAE grade: `3`, `3.0` or `GRADE 3`; empty is `None`.
pub(super) fn parse_grade(row: &Row<'_, '_>, column: usize) -> Result<Option<u8>> {
    let text = row.text(Some(column))?;
    if text.is_empty() {
        return Ok(None);
    }
    let digits = text
        .trim_start_matches(|c: char| c.is_ascii_alphabetic() || c == ' ')
        .trim();
    let value = digits.parse::<f64>().ok().filter(|g| g.fract() == 0.0);
    match value {
        Some(g) if (1.0..=5.0).contains(&g) => Ok(Some(g as u8)),
        _ => Err(row.error(
            column,
            format!("`{text}` is not a CTCAE grade; expected 1 to 5"),
        )),
    }
}

/// One spelling per preferred term and per system organ class across the study: `Vomiting`,
/// `VOMITING` and `vomiting` are one term, spelled as most of its records spell it (ties: the
/// first in alphabetical order), so that every table, arm, comparison and the ARD name it
/// once. A note says how many names were respelled.
pub(super) fn one_spelling(events: &mut [AdverseEvent], path: &Path) -> Option<Diagnostic> {
    use rustc_hash::FxHashMap;
    // Per upper-case name: each spelling's records.
    let mut spellings: FxHashMap<String, FxHashMap<String, usize>> = FxHashMap::default();
    let mut count = |name: &str| {
        let key = name.to_uppercase();
        *spellings
            .entry(key)
            .or_default()
            .entry(name.to_string())
            .or_default() += 1;
    };
    for e in events.iter() {
        count(&e.term);
        if let Some(soc) = &e.soc {
            count(soc);
        }
    }
    // The spelling of each name with more than one.
    let chosen: FxHashMap<String, String> = spellings
        .into_iter()
        .filter(|(_, ways)| ways.len() > 1)
        .filter_map(|(key, ways)| {
            let best = ways
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
            Some((key, best.0))
        })
        .collect();
    if chosen.is_empty() {
        return None;
    }
    let mut respelled = 0usize;
    let mut respell = |name: &mut String| {
        if let Some(best) = chosen.get(&name.to_uppercase()) {
            if name != best {
                name.clone_from(best);
                respelled += 1;
            }
        }
    };
    for e in events.iter_mut() {
        respell(&mut e.term);
        if let Some(soc) = e.soc.as_mut() {
            respell(soc);
        }
    }
    let mut names: Vec<&String> = chosen.values().collect();
    names.sort();
    Some(
        Diagnostic::note(
            Kind::AeSpelling,
            format!(
                "{}: {} preferred term(s) or class(es) spelled in more than one case ({}) are \
                 counted as one, in their most frequent spelling ({respelled} record(s) respelled)",
                path.display(),
                names.len(),
                crate::format::listing(names.iter().map(|n| n.as_str()))
            ),
        )
        .at(file_location(path)),
    )
}

//! ADRS: the per-visit overall responses, and the sponsor's best overall response for
//! `response_criteria: as-given`.

use super::*;
use crate::criteria::Vocabulary;

/// ADRS: the per-visit overall responses, the rows of the first of `paramcds` (`OVR`,
/// `OVRLRESP` unless the config says otherwise) that the file has; other parameters are
/// skipped. A file with rows but none of `paramcds` is an error listing the ones it has,
/// unless `optional` (a study that reads the sponsor's BOR may lack them).
pub fn read_adrs(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    paramcds: &[&str],
    vocabulary: &Vocabulary,
) -> Result<Vec<Assessment>> {
    let what = "the per-visit overall response; `data.adrs_paramcd` names it";
    match choose_param(table, paramcds, what, !vocabulary.has_given())? {
        Some(chosen) => read_rows(table, known, &chosen, vocabulary, false),
        None => Ok(Vec::new()),
    }
}

/// ADRS: the sponsor's best overall response, one row per subject, of the first of `paramcds`
/// (`BOR`, `CBOR` unless `data.adrs_bor_paramcd` says otherwise) that the file has.
pub fn read_adrs_bor(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    paramcds: &[&str],
    vocabulary: &Vocabulary,
) -> Result<Vec<Assessment>> {
    let what = "the best overall response `response_criteria: as-given` reads; \
                `data.adrs_bor_paramcd` names it";
    match choose_param(table, paramcds, what, true)? {
        Some(chosen) => read_rows(table, known, &chosen, vocabulary, true),
        None => Ok(Vec::new()),
    }
}

/// The first of `paramcds` that the file has; `None` for an empty file, or when none is there
/// and the parameter is not `required`.
fn choose_param(
    table: &CsvTable,
    paramcds: &[&str],
    what: &str,
    required: bool,
) -> Result<Option<String>> {
    let c_param = table.require("PARAMCD")?;
    let mut commas = Vec::new();
    let mut present: HashSet<String> = HashSet::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let paramcd = row.text(Some(c_param))?;
        if !present.contains(paramcd) {
            present.insert(paramcd.to_string());
        }
    }
    if let Some(chosen) = paramcds.iter().find(|p| present.contains(**p)) {
        return Ok(Some(chosen.to_string()));
    }
    if table.is_empty() || !required {
        return Ok(None);
    }
    Err(Error::data_file(
        table.path(),
        format!(
            "no row has PARAMCD {} ({what}); the file has: {}",
            paramcds.join(" or "),
            crate::format::listing(present.iter().map(String::as_str))
        ),
    ))
}

/// The rows of PARAMCD `chosen` as assessments: one per subject and date, or with
/// `one_per_subject` one per subject.
fn read_rows(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    chosen: &str,
    vocabulary: &Vocabulary,
    one_per_subject: bool,
) -> Result<Vec<Assessment>> {
    let c_id = table.require("USUBJID")?;
    let c_param = table.require("PARAMCD")?;
    let c_adt = table.require("ADT")?;
    let c_avalc = table.require("AVALC")?;
    let c_visit = table.column("AVISIT");
    let mut commas = Vec::new();
    let mut out = Vec::new();
    // Each subject's (and date's) first row, to tell a second from it.
    let mut per_date: std::collections::HashMap<(String, Option<Date>), usize> =
        std::collections::HashMap::new();
    let mut hint = 0usize;
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        if row.text(Some(c_param))? != chosen {
            continue;
        }
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let Some(date) = row.date(Some(c_adt))? else {
            return Err(row.error(c_adt, "ADT is empty; expected the assessment date"));
        };
        let avalc = row.text(Some(c_avalc))?;
        let (response, code) = match Response::from_avalc(avalc) {
            Some(r) => (r, r.vocabulary_code()),
            None => match vocabulary.code(avalc) {
                Some(code) if !vocabulary.recist_only() => (Response::NotEvaluable, code),
                _ if vocabulary.recist_only() => {
                    return Err(row.error(
                        c_avalc,
                        format!("`{avalc}` is not a RECIST response; expected CR, PR, SD, NON-CR/NON-PD, PD, NE or ND (other criteria: `analysis.response_criteria`)"),
                    ))
                }
                _ => {
                    return Err(row.error(
                        c_avalc,
                        format!(
                            "`{avalc}` is not a response of the criteria in use; expected one of {}",
                            vocabulary.listing()
                        ),
                    ))
                }
            },
        };
        let key = (usubjid.to_string(), (!one_per_subject).then_some(date));
        if let Some(&first) = per_date.get(&key) {
            let apart = told_apart(table, first, r)?;
            return Err(row.error(
                c_adt,
                if one_per_subject {
                    format!("subject `{usubjid}` has two {chosen} rows (lines {} and {}){apart}; expected one best overall response per subject", table.line(first), table.line(r))
                } else {
                    format!("subject `{usubjid}` has two overall responses on {date} (lines {} and {}){apart}; expected one per assessment date", table.line(first), table.line(r))
                },
            ));
        }
        per_date.insert(key, r);
        out.push(Assessment {
            usubjid: usubjid.to_string(),
            date,
            response,
            code,
            visit: row.opt_text(c_visit)?.map(str::to_string),
        });
    }
    Ok(out)
}

/// The columns that tell readers' or analyses' rows apart, in the order they are looked for.
const READERS: [&str; 8] = [
    "PARQUAL", "RSEVAL", "EVAL", "EVALID", "ANL01FL", "ANL02FL", "RSACPTFL", "SRCDOM",
];

/// What tells two rows of one subject and date apart, with the filter that keeps one: the
/// first of [`READERS`] whose values differ ("; they differ in RSEVAL (INVESTIGATOR,
/// INDEPENDENT ASSESSOR): keep one reader's rows with `data.where: { adrs: { RSEVAL:
/// INVESTIGATOR } }`"), else nothing.
fn told_apart(table: &CsvTable, first: usize, second: usize) -> Result<String> {
    for name in READERS {
        let Some(c) = table.column(name) else {
            continue;
        };
        let (a, b) = (table.cell_text(first, c)?, table.cell_text(second, c)?);
        if a != b {
            let keep = if a.is_empty() { b } else { a };
            return Ok(format!(
                "; they differ in {name} ({a:?}, {b:?}): keep one reader's or analysis's rows \
                 with `data.where: {{ adrs: {{ {name}: {keep:?} }} }}`"
            ));
        }
    }
    Ok(String::new())
}

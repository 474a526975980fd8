//! ADRS: the per-visit overall responses.

use super::*;
use crate::criteria::Vocabulary;

/// ADRS: the per-visit overall responses, the rows of the first of `paramcds` (`OVR`,
/// `OVRLRESP` unless the config says otherwise) that the file has; other parameters are
/// skipped. A file with rows but none of `paramcds` is an error listing the ones it has.
pub fn read_adrs(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    paramcds: &[&str],
    vocabulary: &Vocabulary,
) -> Result<Vec<Assessment>> {
    let c_id = table.require("USUBJID")?;
    let c_param = table.require("PARAMCD")?;
    let c_adt = table.require("ADT")?;
    let c_avalc = table.require("AVALC")?;
    let c_visit = table.column("AVISIT");
    let mut commas = Vec::new();
    let mut present: HashSet<String> = HashSet::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let paramcd = row.text(Some(c_param))?;
        if !present.contains(paramcd) {
            present.insert(paramcd.to_string());
        }
    }
    let Some(&chosen) = paramcds.iter().find(|p| present.contains(**p)) else {
        if table.is_empty() {
            return Ok(Vec::new());
        }
        return Err(Error::data_file(
            table.path(),
            format!(
                "no row has PARAMCD {} (the per-visit overall response; `data.adrs_paramcd` names                  it); the file has: {}",
                paramcds.join(" or "),
                crate::study::fits::listing(present.iter().map(String::as_str))
            ),
        ));
    };
    let mut out = Vec::new();
    let mut per_date: HashSet<(String, Date)> = HashSet::new();
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
        if !per_date.insert((usubjid.to_string(), date)) {
            return Err(row.error(
                c_adt,
                format!("subject `{usubjid}` has two overall responses on {date}; expected one per assessment date"),
            ));
        }
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

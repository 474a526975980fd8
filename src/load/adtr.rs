//! ADTR: the sum of target-lesion diameters.

use super::*;

/// ADTR: the sum-of-diameters parameter (`PARAMCD`, when the column exists).
pub fn read_adtr(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    paramcd: &str,
) -> Result<Vec<LesionSum>> {
    let c_id = table.require("USUBJID")?;
    let c_adt = table.require("ADT")?;
    let c_aval = table.require("AVAL")?;
    let c_param = table.column("PARAMCD");
    let c_base = table.column("BASE");
    let c_pchg = table.column("PCHG");
    let mut out = Vec::new();
    let mut hint = 0usize;
    let mut commas = Vec::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        if c_param.is_some() && row.text(c_param)? != paramcd {
            continue;
        }
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let Some(date) = row.date(Some(c_adt))? else {
            continue; // a measurement without a date cannot be placed in time
        };
        let Some(sum) = row.number(Some(c_aval))? else {
            continue;
        };
        if sum < 0.0 {
            return Err(row.error(
                c_aval,
                format!("`{sum}` is negative; expected a sum of diameters ≥ 0"),
            ));
        }
        out.push(LesionSum {
            usubjid: usubjid.to_string(),
            date,
            sum,
            base: row.number(c_base)?,
            pchg: row.number(c_pchg)?,
        });
    }
    Ok(out)
}

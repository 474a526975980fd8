//! ADEX: a subject's dose summaries (cumulative dose, average daily dose, dose intensity), one
//! row per subject and parameter, by their usual PARAMCDs (docs/OUTPUTS.md, `exposure.dose`).

use super::*;

/// The exposure summaries read, by the name `exposure.dose` gives them, with the PARAMCDs
/// that hold them (the first the file has wins).
pub const ADEX_PARAMS: [(&str, &[&str]); 3] = [
    ("CUMDOSE", &["TDOSE", "CUMDOSE", "TOTDOSE"]),
    ("AVGDD", &["AVDDSE", "AVGDD", "ADOSE"]),
    ("RDI", &["PDOSINT", "RDI", "RDOSINT", "DOSINT"]),
];

/// Per subject, per summary of [`ADEX_PARAMS`], its value. Two rows of one subject and
/// parameter are an error (an ADEX of per-administration records has no single value).
pub fn read_adex(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
) -> Result<FxHashMap<String, [Option<f64>; 3]>> {
    let c_id = table.require("USUBJID")?;
    let c_param = table.require("PARAMCD")?;
    let c_aval = table.require("AVAL")?;
    let mut commas = Vec::new();
    let mut present: HashSet<String> = HashSet::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        present.insert(row.text(Some(c_param))?.to_string());
    }
    // Which PARAMCD each summary is read from.
    let chosen: Vec<Option<&str>> = ADEX_PARAMS
        .iter()
        .map(|(_, codes)| codes.iter().copied().find(|c| present.contains(*c)))
        .collect();
    if chosen.iter().all(Option::is_none) {
        let mut has: Vec<&str> = present.iter().map(String::as_str).collect();
        has.sort_unstable();
        let listed = has.iter().take(10).copied().collect::<Vec<_>>().join(", ");
        let more = has.len().saturating_sub(10);
        let wanted: Vec<&str> = ADEX_PARAMS
            .iter()
            .flat_map(|(_, c)| c.iter().copied())
            .collect();
        return Err(Error::Data {
            file: table.path.clone(),
            location: "column `PARAMCD`: ".to_string(),
            message: format!(
                "none of its parameters is a dose summary readout reads ({}); it has {listed}{}. \
                 Per-administration records are not summed: give one summary row per subject \
                 and parameter",
                wanted.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ),
        });
    }
    let mut out: FxHashMap<String, [Option<f64>; 3]> = FxHashMap::default();
    let mut hint = 0usize;
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let param = row.text(Some(c_param))?;
        let Some(k) = chosen.iter().position(|c| *c == Some(param)) else {
            continue;
        };
        let usubjid = row.text(Some(c_id))?;
        require_subject(&row, c_id, usubjid, known, &mut hint)?;
        let Some(value) = row.number(Some(c_aval))? else {
            continue;
        };
        if !(0.0..=MAX_DOSE).contains(&value) {
            return Err(row.error(
                c_aval,
                format!(
                    "subject `{usubjid}`: {param} {} is not a dose; expected 0 to {}",
                    crate::format::short_number(value),
                    crate::format::short_number(MAX_DOSE)
                ),
            ));
        }
        let slot = &mut out.entry(usubjid.to_string()).or_default()[k];
        if slot.is_some() {
            return Err(row.error(
                c_param,
                format!(
                    "subject `{usubjid}` has two {param} rows; expected one summary per subject \
                     (ADEX's per-administration records are not summed)"
                ),
            ));
        }
        *slot = Some(value);
    }
    Ok(out)
}

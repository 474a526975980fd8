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

/// The columns that name the drug of a row (an ADEX of a combination has one row per subject,
/// parameter and drug), looked for in this order.
const DRUG_COLUMNS: [&str; 3] = ["PARCAT1", "EXTRT", "EXTRTN"];

/// ADEX's dose summaries: per subject, per drug (one when ADEX names none), per summary of
/// [`ADEX_PARAMS`], its value; with the drugs and each summary's unit (`AVALU`).
#[derive(Debug, Clone, Default)]
pub struct Doses {
    /// The drugs, in order of first appearance; one unnamed (`None`) for an ADEX naming none.
    pub drugs: Vec<Option<String>>,
    /// Per drug and summary, its unit as ADEX gives it (the first row's).
    pub units: Vec<[Option<String>; 3]>,
    /// Per subject, per drug, per summary.
    pub values: FxHashMap<String, Vec<[Option<f64>; 3]>>,
}

impl Doses {
    /// Subject `usubjid`'s summary `k` of drug `d`.
    pub fn value(&self, usubjid: &str, d: usize, k: usize) -> Option<f64> {
        self.values.get(usubjid)?.get(d)?.get(k).copied().flatten()
    }
}

/// ADEX read: see [`Doses`]. Two rows of one subject, parameter (and drug) are an error (an
/// ADEX of per-administration records has no single value).
pub fn read_adex(table: &CsvTable, known: &KnownSubjects<'_>) -> Result<Doses> {
    let c_id = table.require("USUBJID")?;
    let c_param = table.require("PARAMCD")?;
    let c_aval = table.require("AVAL")?;
    let c_unit = table.column("AVALU");
    let mut commas = Vec::new();
    let mut present: HashSet<String> = HashSet::new();
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        present.insert(row.text(Some(c_param))?.to_string());
    }
    // The drug column: the first that names a drug on some row (a drug is named in the
    // documents even when a filter kept one).
    let mut c_drug = None;
    'columns: for name in DRUG_COLUMNS {
        let Some(c) = table.column(name) else {
            continue;
        };
        for r in 0..table.len() {
            if !table.cell_text(r, c)?.trim().is_empty() {
                c_drug = Some(c);
                break 'columns;
            }
        }
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
    let mut out = Doses::default();
    if c_drug.is_none() {
        out.drugs.push(None);
        out.units.push(Default::default());
    }
    let mut hint = 0usize;
    for r in 0..table.len() {
        let row = table.row(r, &mut commas);
        let param = row.text(Some(c_param))?;
        let Some(k) = chosen.iter().position(|c| *c == Some(param)) else {
            continue;
        };
        let d = match c_drug {
            None => 0,
            Some(c) => {
                let drug = row.text(Some(c))?;
                match out.drugs.iter().position(|x| x.as_deref() == Some(drug)) {
                    Some(d) => d,
                    None => {
                        out.drugs.push(Some(drug.to_string()));
                        out.units.push(Default::default());
                        out.drugs.len() - 1
                    }
                }
            }
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
        if let (Some(unit), Some(slot)) = (row.opt_text(c_unit)?, out.units.get_mut(d)) {
            if slot[k].is_none() {
                slot[k] = Some(unit.to_string());
            }
        }
        let drugs = out.drugs.len();
        let per_drug = out.values.entry(usubjid.to_string()).or_default();
        per_drug.resize(drugs, [None; 3]);
        let slot = &mut per_drug[d][k];
        if slot.is_some() {
            let drug = out.drugs[d]
                .as_deref()
                .map_or(String::new(), |x| format!(" of {x}"));
            return Err(row.error(
                c_param,
                format!(
                    "subject `{usubjid}` has two {param} rows{drug}; expected one summary per \
                     subject{} (ADEX's per-administration records are not summed)",
                    if c_drug.is_some() { " and drug" } else { "" }
                ),
            ));
        }
        *slot = Some(value);
    }
    Ok(out)
}

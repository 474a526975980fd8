//! ADTTE: one record per subject and parameter, in days, read part by part for large files.

use super::*;

/// ADTTE: one row per subject and parameter. `AVAL` is converted to days using `AVALU`. A
/// record names its subject by position in ADSL (`known`). Rows are converted in parallel
/// chunks; the error reported is the first in file order.
pub fn read_adtte(table: &CsvTable, known: &KnownSubjects<'_>) -> Result<TteTable> {
    read_adtte_with(table, known, &[])
}

/// Which ADTTE records with CNSR 0 are competing events: those of parameter `paramcd` whose
/// `column` holds one of `values` (compared without case). From `tte_params.<E>.competing`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompetingRule {
    /// The PARAMCD.
    pub paramcd: String,
    /// The ADTTE column.
    pub column: String,
    /// Its values, upper case.
    pub values: Vec<String>,
}

/// [`read_adtte`], marking competing events by `rules` ([`TteRecord::COMPETING`]).
pub fn read_adtte_with(
    table: &CsvTable,
    known: &KnownSubjects<'_>,
    rules: &[CompetingRule],
) -> Result<TteTable> {
    let mut reader = TteReader {
        rules: rules.to_vec(),
        ..TteReader::default()
    };
    reader.part(table, known, 0, table.len())?;
    reader.finish(table.path(), known)
}

/// [`read_adtte`] of a file read in parts ([`CsvTable::read_parts`]), with the file's SHA-256.
/// `filter` (`data.where.adtte`) keeps the rows read.
pub fn read_adtte_file(
    path: &Path,
    known: &KnownSubjects<'_>,
    filter: &mut RowFilter,
    rules: &[CompetingRule],
) -> Result<(TteTable, InputFile)> {
    let mut reader = TteReader {
        rules: rules.to_vec(),
        ..TteReader::default()
    };
    let input =
        CsvTable::read_parts_where(path, PART_BYTES, filter, |table, first_row, expected| {
            reader.part(table, known, first_row, expected)
        })?;
    Ok((reader.finish(path, known)?, input))
}

/// Room for the `expected` rows of a file read in parts, and an eighth more (the estimate
/// comes from the parts read so far; room never used costs no memory). The estimate can be
/// far off for a file whose rows change length: a reservation the system refuses is dropped,
/// and the vector grows as usual.
pub(super) fn reserve_rows<T>(rows: &mut Vec<T>, expected: usize) {
    if rows.capacity() < expected {
        let room = expected
            .saturating_add(expected / 8)
            .saturating_sub(rows.len());
        let _ = rows.try_reserve_exact(room);
    }
}

/// ADTTE read part by part: the records of the rows read so far (a placeholder for a row that
/// failed), the parameter codes they name by number and the first row that failed.
#[derive(Default)]
pub(super) struct TteReader {
    pub(super) out: Vec<TteRecord>,
    pub(super) params: ParamCodes,
    pub(super) row_error: Option<(usize, Error)>,
    /// Which records are competing events.
    pub(super) rules: Vec<CompetingRule>,
}

/// The `PARAMCD`s of an ADTTE file, numbered as the parallel jobs first meet them (each job
/// remembers the numbers it has seen: the lock is taken once per job and parameter).
#[derive(Default)]
pub(super) struct ParamCodes(std::sync::Mutex<Vec<Arc<str>>>);

impl ParamCodes {
    /// The number of `paramcd`, given one if it is new.
    pub(super) fn number(&self, paramcd: &str) -> u32 {
        let mut params = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let i = match params.iter().position(|p| **p == *paramcd) {
            Some(i) => i,
            None => {
                params.push(Arc::from(paramcd));
                params.len() - 1
            }
        };
        // A parameter per row of a file of at most 1 GiB: fewer than 2^32.
        u32::try_from(i).unwrap_or(u32::MAX)
    }

    pub(super) fn into_inner(self) -> Vec<Arc<str>> {
        self.0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TteReader {
    /// Converts a part whose first row is row `first_row` of the file (`expected`: the rows
    /// the file is thought to hold); `false` once a row failed.
    pub(super) fn part(
        &mut self,
        table: &CsvTable,
        known: &KnownSubjects<'_>,
        first_row: usize,
        expected: usize,
    ) -> Result<bool> {
        self.out.truncate(first_row);
        if first_row == 0 {
            // The file read again from the start (read whole after parts): numbered afresh.
            self.params = ParamCodes::default();
        }
        reserve_rows(&mut self.out, expected);
        let columns = AdtteColumns {
            id: table.require("USUBJID")?,
            param: table.require("PARAMCD")?,
            aval: table.require("AVAL")?,
            cnsr: table.require("CNSR")?,
            unit: table.column("AVALU"),
            start: table.column("STARTDT"),
            adt: table.column("ADT"),
            competing: self
                .rules
                .iter()
                .map(|r| {
                    Ok((
                        r.paramcd.clone(),
                        table.require(&r.column)?,
                        r.values.clone(),
                    ))
                })
                .collect::<Result<_>>()?,
        };
        let codes = &self.params;
        let row_error = convert_rows(
            table,
            || (Shared::default(), 0usize),
            |(params, hint), row| columns.record(known, row, (params, codes), hint),
            TteRecord::placeholder,
            &mut self.out,
        );
        self.row_error = row_error.map(|(row, e)| (first_row + row, e));
        Ok(self.row_error.is_none())
    }

    /// The records, checked for a repeated (subject, parameter) among the rows before the
    /// first that failed; the first error in file order.
    pub(super) fn finish(self, path: &Path, known: &KnownSubjects<'_>) -> Result<TteTable> {
        let mut table = TteTable {
            params: self.params.into_inner(),
            records: self.out,
        };
        // Only the rows before a failed one count.
        let checked = self
            .row_error
            .as_ref()
            .map_or(table.records.len(), |(row, _)| *row);
        // The parallel jobs numbered the parameters as they met them: renumbered here in order
        // of first appearance in the file, so that the table does not depend on the schedule.
        let mut renumber: Vec<u32> = vec![u32::MAX; table.params.len()];
        let mut numbered = 0u32;
        // One bit per subject and parameter (10^7 subjects with one parameter: 1.25 MB);
        // parameters past the 64th use a set.
        let width = table.params.len().clamp(1, 64);
        let mut seen_bits: Vec<u64> = vec![0; (known.len() * width).div_ceil(64)];
        let mut seen_many: FxHashSet<(usize, u32)> = FxHashSet::default();
        for r in table.records.iter().take(checked) {
            let Some(param) = renumber.get_mut(r.param as usize) else {
                continue;
            };
            if *param == u32::MAX {
                *param = numbered;
                numbered += 1;
            }
            let param = *param;
            let bit = r.position() * width + param as usize;
            let first_time = match seen_bits.get_mut(bit / 64) {
                Some(word) if (param as usize) < width => {
                    let mask = 1u64 << (bit % 64);
                    let fresh = *word & mask == 0;
                    *word |= mask;
                    fresh
                }
                _ => seen_many.insert((r.position(), param)),
            };
            if !first_time {
                return Err(Error::cell(
                    path,
                    u64::from(r.line),
                    "PARAMCD",
                    format!(
                        "subject `{}` has two `{}` records; expected one per subject and parameter",
                        known.id(r.position()),
                        table.paramcd(r)
                    ),
                ));
            }
        }
        if let Some((_, e)) = self.row_error {
            return Err(e);
        }
        if renumber.iter().enumerate().any(|(i, &n)| n as usize != i) {
            let mut params: Vec<Arc<str>> = vec![Arc::from(""); table.params.len()];
            for (old, &new) in renumber.iter().enumerate() {
                if let (Some(slot), Some(name)) =
                    (params.get_mut(new as usize), table.params.get(old))
                {
                    slot.clone_from(name);
                }
            }
            for r in &mut table.records {
                if let Some(&new) = renumber.get(r.param as usize) {
                    r.param = new;
                }
            }
            table.params = params;
        }
        Ok(table)
    }
}

/// The ADTTE columns a record is read from.
pub(super) struct AdtteColumns {
    pub(super) id: usize,
    pub(super) param: usize,
    pub(super) aval: usize,
    pub(super) cnsr: usize,
    pub(super) unit: Option<usize>,
    pub(super) start: Option<usize>,
    pub(super) adt: Option<usize>,
    /// Per competing rule: PARAMCD, the column's position, its values (upper case).
    pub(super) competing: Vec<(String, usize, Vec<String>)>,
}

impl AdtteColumns {
    /// The record of row `r`. `params` holds the numbers this job has seen of the `codes`;
    /// `hint` is the subject of the previous row this job converted.
    pub(super) fn record<'t>(
        &self,
        known: &KnownSubjects<'_>,
        row: &Row<'t, '_>,
        (params, codes): (&mut Shared<'t, u32>, &ParamCodes),
        hint: &mut usize,
    ) -> Result<TteRecord> {
        let usubjid = row.text(Some(self.id))?;
        let subject = require_subject(row, self.id, usubjid, known, hint)?;
        let (Ok(subject), Ok(line)) = (u32::try_from(subject), u32::try_from(row.line())) else {
            return Err(row.error(
                self.id,
                "over 4 billion subjects or lines; readout reads smaller files",
            ));
        };
        let paramcd = row.text(Some(self.param))?;
        if paramcd.is_empty() {
            return Err(row.error(self.param, "PARAMCD is empty; expected a parameter code"));
        }
        let param = params.get_or(self.param, paramcd, |p| codes.number(p));
        let aval = row.number(Some(self.aval))?.ok_or_else(|| {
            row.error(
                self.aval,
                "AVAL is empty; expected the time to event or censoring",
            )
        })?;
        if aval < 0.0 {
            return Err(row.error(
                self.aval,
                format!("`{aval}` is negative; expected a time ≥ 0"),
            ));
        }
        let unit = row.text(self.unit)?;
        let unit_days = if unit.is_empty() {
            1.0
        } else {
            match crate::config::TimeUnit::from_avalu(unit) {
                Some(unit) => unit.days(),
                None => {
                    return Err(row.error(
                        self.unit.unwrap_or(0),
                        format!(
                            "`{}` is not a time unit; expected DAYS, WEEKS, MONTHS or YEARS",
                            unit.to_ascii_uppercase()
                        ),
                    ))
                }
            }
        };
        if aval * unit_days > MAX_TIME_DAYS {
            return Err(row.error(
                self.aval,
                format!(
                    "`{}` in {} is over 1,000 years; expected the time to event or censoring in AVALU",
                    row.text(Some(self.aval))?,
                    if unit_days == 1.0 { "days" } else { "the AVALU unit" }
                ),
            ));
        }
        let cnsr_text = row.text(Some(self.cnsr))?;
        let cnsr = parse_cnsr(cnsr_text).ok_or_else(|| {
            row.error(
                self.cnsr,
                if parse_cnsr_any(cnsr_text) {
                    format!(
                        "`{cnsr_text}` is a censoring code of 2^31 or more, which readout keeps \
                         for its own use; expected 0 (event) or a positive integer below \
                         2147483648 (censored)"
                    )
                } else {
                    format!("`{cnsr_text}` is not a censoring code; expected 0 (event) or a positive integer (censored)")
                },
            )
        })?;
        let mut cnsr = cnsr;
        if cnsr == 0 {
            if let Some((_, column, values)) = self.competing.iter().find(|c| c.0 == paramcd) {
                let value = row.text(Some(*column))?.trim();
                if values
                    .iter()
                    .any(|v| crate::model::text::eq_without_case(v, value))
                {
                    cnsr = TteRecord::COMPETING;
                }
            }
        }
        Ok(TteRecord {
            subject,
            param,
            days: aval * unit_days,
            cnsr,
            start: row.date(self.start)?,
            date: row.date(self.adt)?,
            line,
        })
    }
}

/// Whether `text` is a whole number from 0, of any size (to say why a large one is refused).
fn parse_cnsr_any(text: &str) -> bool {
    let text = text.strip_suffix(".0").unwrap_or(text);
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// `CNSR` is a non-negative integer; SAS exports write it as `1` or `1.0`.
/// Codes from 2^31 up are refused: readout marks competing events with 2^31.
pub(super) fn parse_cnsr(text: &str) -> Option<u32> {
    let v = match text.parse::<u32>() {
        Ok(v) => v,
        Err(_) => {
            let x: f64 = text.parse().ok()?;
            if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX) {
                x as u32
            } else {
                return None;
            }
        }
    };
    (v < TteRecord::COMPETING).then_some(v)
}

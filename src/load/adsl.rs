//! ADSL: one subject per row, read part by part for large files.

use super::*;

/// The ADSL flags of the efficacy population, the first present is used when the config
/// names none.
pub const EFFICACY_FLAGS: [&str; 3] = ["EFFFL", "FASFL", "ITTFL"];

/// ADSL: one row per subject. The efficacy population is the `efficacy_flag` column when
/// given (it must exist), else the first of `EFFFL`, `FASFL`, `ITTFL` present.
pub fn read_adsl(table: &CsvTable, efficacy_flag: Option<&str>) -> Result<Vec<Subject>> {
    read_adsl_columns(table, efficacy_flag, None)
}

/// [`read_adsl`], keeping in [`Subject::columns`] only the named columns (`None`: all of them).
pub fn read_adsl_columns(
    table: &CsvTable,
    efficacy_flag: Option<&str>,
    keep: Option<&FxHashSet<String>>,
) -> Result<Vec<Subject>> {
    let mut reader = AdslReader::new(efficacy_flag, keep, false, &[]);
    reader.part(table, 0, table.len())?;
    let subjects = std::mem::take(&mut reader.subjects);
    reader.check(table.path(), &subjects)?;
    Ok(subjects)
}

/// ADSL read part by part ([`CsvTable::read_parts`]): the subjects of the rows read so far (a
/// placeholder for a row that failed), the first row that failed, and what its errors need.
pub(super) struct AdslReader<'c> {
    pub(super) efficacy_flag: Option<&'c str>,
    /// Whether ADSL must have `TRTSDT` (responses and derived times start from it).
    pub(super) needs_trtsdt: bool,
    pub(super) keep: Option<&'c FxHashSet<String>>,
    /// Columns of the start of new anticancer therapy (`analysis.censor_at_new_therapy`):
    /// dates on or after TRTSDT, checked as read (and kept: name them in `keep`).
    pub(super) new_therapy: &'c [String],
    /// Date columns the origin of derived times is read from (`RANDDT`): checked as read.
    pub(super) origins: Vec<String>,
    pub(super) subjects: Vec<Subject>,
    /// The ADSL column the efficacy population was read from (`None`: every subject).
    pub(super) efficacy_column: Option<String>,
    /// Whether ADSL has `SAFFL` (without it every subject is in the safety population).
    pub(super) has_saffl: bool,
    /// ADSL's column names.
    pub(super) headers: Vec<String>,
    /// The line numbers of the parts' rows, by first row.
    pub(super) lines: Vec<(usize, Lines)>,
    /// The first row that failed, its error, and its `USUBJID` (when not empty).
    pub(super) row_error: Option<(usize, Error, Option<SubjectId>)>,
}

impl<'c> AdslReader<'c> {
    pub(super) fn new(
        efficacy_flag: Option<&'c str>,
        keep: Option<&'c FxHashSet<String>>,
        needs_trtsdt: bool,
        new_therapy: &'c [String],
    ) -> Self {
        AdslReader {
            efficacy_flag,
            needs_trtsdt,
            keep,
            new_therapy,
            origins: Vec::new(),
            subjects: Vec::new(),
            efficacy_column: None,
            has_saffl: false,
            headers: Vec::new(),
            lines: Vec::new(),
            row_error: None,
        }
    }

    /// Converts a part whose first row is row `first_row` of the file (`expected`: the rows
    /// the file is thought to hold); `false` once a row failed.
    pub(super) fn part(
        &mut self,
        table: &CsvTable,
        first_row: usize,
        expected: usize,
    ) -> Result<bool> {
        self.subjects.truncate(first_row);
        self.lines.retain(|(row, _)| *row < first_row);
        reserve_rows(&mut self.subjects, expected);
        if self.needs_trtsdt && table.column("TRTSDT").is_none() {
            return Err(Error::Data {
                file: table.path.clone(),
                location: "line 1: ".to_string(),
                message: format!(
                    "column `TRTSDT` is missing; responses (`data.adrs`) and times to event \
                     derived without an ADTTE are placed from the first dose, so ADSL needs it; \
                     the header has: {}",
                    table.headers.join(", ")
                ),
            });
        }
        let (c_id, row_error) = convert_adsl(
            table,
            self.efficacy_flag,
            self.keep,
            (self.new_therapy, &self.origins),
            &mut self.subjects,
        )?;
        self.efficacy_column = match self.efficacy_flag {
            Some(name) => Some(name.to_string()),
            None => table.first_column(&EFFICACY_FLAGS).map(|(_, name)| name),
        };
        self.has_saffl = table.column("SAFFL").is_some();
        self.headers.clone_from(&table.headers);
        self.lines.push((first_row, table.lines.clone()));
        let Some((row, error)) = row_error else {
            return Ok(true);
        };
        let id = table
            .row(row, &mut Vec::new())
            .text(Some(c_id))
            .ok()
            .filter(|id| !id.is_empty())
            .map(SubjectId::from);
        self.row_error = Some((first_row + row, error, id));
        Ok(false)
    }

    /// The line of row `row` of the file.
    pub(super) fn line(&self, row: usize) -> u64 {
        let part = self.lines.partition_point(|(first, _)| *first <= row);
        self.lines
            .get(part.wrapping_sub(1))
            .map_or(0, |(first, lines)| lines.get(row - first))
    }

    /// The subjects' ids for reading the other tables, checked for repeats among the rows
    /// before the first row that failed (with that row's own id); the first error in file
    /// order. `subjects` are this reader's subjects, moved out.
    pub(super) fn check<'s>(
        &mut self,
        path: &Path,
        subjects: &'s [Subject],
    ) -> Result<KnownSubjects<'s>> {
        let row_error = self.row_error.take();
        let id_of = |row: usize| subjects.get(row).map_or("", |s| s.usubjid.as_str());
        // The id is named from its first row, which is always a converted subject's.
        let repeated = |(first, again): Repeat| {
            let message = format!(
                "subject `{}` appears again (first on line {}); expected one row per subject",
                id_of(first),
                self.line(first)
            );
            Error::cell(path, self.line(again), "USUBJID", message)
        };
        match row_error {
            None => KnownSubjects::of_subjects(subjects).map_err(repeated),
            Some((row, e, id)) => {
                // The failed row's own id counts too: a row's id is read first, so a repeat
                // is its error rather than a bad cell further along.
                let mut ids: Vec<&str> = (0..row).map(id_of).collect();
                ids.extend(id.as_deref());
                match KnownSubjects::new(ids) {
                    Err(repeat) => Err(repeated(repeat)),
                    Ok(_) => Err(e),
                }
            }
        }
    }
}

/// ADSL's rows converted to subjects in parallel, added to `out` in place (a placeholder for a
/// row that failed); the `USUBJID` column and the first row that failed, or an error for a
/// missing column.
pub(super) fn convert_adsl(
    table: &CsvTable,
    efficacy_flag: Option<&str>,
    keep: Option<&FxHashSet<String>>,
    (new_therapy, origins): (&[String], &[String]),
    out: &mut Vec<Subject>,
) -> Result<(usize, Option<(usize, Error)>)> {
    let kept: Vec<usize> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, name)| keep.is_none_or(|k| k.contains(name.as_str())))
        .map(|(i, _)| i)
        .collect();
    let c_id = table.require("USUBJID")?;
    let columns = AdslColumns {
        site: table.column("SITEID"),
        trts: table.column("TRTSDT"),
        trte: table.column("TRTEDT"),
        enrl: table.first_column(&["ENRLDT", "RANDDT"]).map(|c| c.0),
        dth: table.column("DTHDT"),
        alive: table.column("LSTALVDT"),
        saf: table.column("SAFFL"),
        durations: ["TRTDURD", "TRTDUR"]
            .iter()
            .filter_map(|c| table.column(c))
            .collect(),
        doses: ["CUMDOSE", "AVGDD", "RDI"]
            .iter()
            .filter_map(|c| table.column(c))
            .collect(),
        new_therapy: new_therapy.iter().filter_map(|c| table.column(c)).collect(),
        origins: origins.iter().filter_map(|c| table.column(c)).collect(),
        eff: match efficacy_flag {
            Some(name) => Some(table.column(name).ok_or_else(|| Error::Data {
                file: table.path.clone(),
                location: "line 1: ".to_string(),
                message: format!(
                    "column `{name}` (named by `data.efficacy_flag` in the config) is missing; the header has: {}",
                    table.headers.join(", ")
                ),
            })?),
            None => table.first_column(&EFFICACY_FLAGS).map(|c| c.0),
        },
        kept,
    };
    let row_error = convert_rows(
        table,
        Default::default,
        |shared, row| columns.subject(table, c_id, row, shared),
        Subject::placeholder,
        out,
    );
    Ok((c_id, row_error))
}

/// The ADSL columns a subject is read from.
pub(super) struct AdslColumns {
    pub(super) site: Option<usize>,
    pub(super) trts: Option<usize>,
    pub(super) trte: Option<usize>,
    pub(super) enrl: Option<usize>,
    pub(super) dth: Option<usize>,
    pub(super) alive: Option<usize>,
    pub(super) saf: Option<usize>,
    pub(super) eff: Option<usize>,
    /// Treatment durations in days (`TRTDURD`, `TRTDUR`), checked when read.
    pub(super) durations: Vec<usize>,
    /// Doses (`CUMDOSE`, `AVGDD`, `RDI`), checked when read.
    pub(super) doses: Vec<usize>,
    /// Starts of new anticancer therapy, checked when read: dates on or after TRTSDT.
    pub(super) new_therapy: Vec<usize>,
    /// Origins of derived times (`RANDDT`), checked when read: dates.
    pub(super) origins: Vec<usize>,
    /// The columns kept in [`Subject::columns`].
    pub(super) kept: Vec<usize>,
}

impl AdslColumns {
    /// The subject of row `r`. Text values (site, kept columns and their names) are shared
    /// through `entries`, and the lists of kept columns through `sets`: one allocation per
    /// distinct value (or list) and parallel job.
    pub(super) fn subject<'t>(
        &self,
        table: &'t CsvTable,
        c_id: usize,
        row: &Row<'t, '_>,
        (sets, entries): &mut (ColumnSets, Shared<'t, Arc<ColumnValue>>),
    ) -> Result<Subject> {
        let usubjid = row.text(Some(c_id))?;
        if usubjid.is_empty() {
            return Err(row.error(c_id, "USUBJID is empty; expected a subject id"));
        }
        sets.start();
        for i in &self.kept {
            let v = row.text(Some(*i))?;
            if !v.is_empty() {
                // Entries are shared per parallel job: one `Arc` shared by every subject of
                // both threads made each clone a contended atomic.
                let name = table.headers.get(*i).map_or("", String::as_str);
                sets.push(entries.get_or(*i, v, |v| ColumnValue::new(Arc::from(name), v)));
            }
        }
        let columns = sets.columns();
        let trt_start = row.date(self.trts)?;
        let death = row.date(self.dth)?;
        if let (Some(died), Some(first_dose), Some(c_dth)) = (death, trt_start, self.dth) {
            if died < first_dose {
                return Err(row.error(
                    c_dth,
                    format!("death on {died} is before the first dose (TRTSDT {first_dose}); expected DTHDT on or after TRTSDT"),
                ));
            }
        }
        let trt_end = row.date(self.trte)?;
        if let (Some(end), Some(first_dose), Some(c_end)) = (trt_end, trt_start, self.trte) {
            if end < first_dose {
                return Err(row.error(
                    c_end,
                    format!("subject `{usubjid}`: treatment end on {end} is before the first dose (TRTSDT {first_dose}); expected TRTEDT on or after TRTSDT"),
                ));
            }
        }
        for &c in &self.origins {
            row.date(Some(c))?;
        }
        for &c in &self.new_therapy {
            if let (Some(started), Some(first_dose)) = (row.date(Some(c))?, trt_start) {
                if started < first_dose {
                    return Err(row.error(
                        c,
                        format!("subject `{usubjid}`: new anticancer therapy on {started} is before the first dose (TRTSDT {first_dose}); expected a date on or after TRTSDT"),
                    ));
                }
            }
        }
        for (columns, most, what) in [
            (
                &self.durations,
                MAX_TIME_DAYS,
                "a treatment duration in days",
            ),
            (&self.doses, MAX_DOSE, "a dose"),
        ] {
            for &c in columns {
                if let Some(v) = row.number(Some(c))? {
                    if !(0.0..=most).contains(&v) {
                        return Err(row.error(
                            c,
                            format!(
                                "subject `{usubjid}`: {} is not {what}; expected 0 to {}",
                                crate::format::short_number(v),
                                crate::format::short_number(most)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(Subject {
            usubjid: usubjid.into(),
            site: row
                .opt_text(self.site)?
                .map(|v| entries.get_or(usize::MAX, v, Subject::site_entry)),
            trt_start,
            trt_end,
            enrolled: row.date(self.enrl)?.or(trt_start),
            death,
            last_alive: row.date(self.alive)?,
            safety: flag(row, self.saf, true)?,
            efficacy: flag(row, self.eff, true)?,
            treated_past_cutoff: false,
            columns,
        })
    }
}

/// The lists of kept ADSL columns of one parallel job, each shared by the subjects with the
/// same values: found by the addresses of their entries (entries are shared per job too).
#[derive(Default)]
pub(super) struct ColumnSets {
    pub(super) entries: Vec<Arc<ColumnValue>>,
    pub(super) key: Vec<usize>,
    pub(super) sets: FxHashMap<Box<[usize]>, Columns>,
}

impl ColumnSets {
    /// Starts the list of a new subject.
    pub(super) fn start(&mut self) {
        self.entries.clear();
    }

    /// Adds an entry to the subject's list.
    pub(super) fn push(&mut self, entry: Arc<ColumnValue>) {
        self.entries.push(entry);
    }

    /// The subject's columns: the shared list with these entries.
    pub(super) fn columns(&mut self) -> Columns {
        self.key.clear();
        self.key
            .extend(self.entries.iter().map(|e| Arc::as_ptr(e) as usize));
        if let Some(columns) = self.sets.get(self.key.as_slice()) {
            return columns.clone();
        }
        let columns = Columns::from_entries(self.entries.clone());
        self.sets
            .insert(self.key.clone().into_boxed_slice(), columns.clone());
        columns
    }
}

/// Values shared by the rows of one parallel job, by (column, text): the first few distinct
/// ones in a short list (a cohort column has a handful of values, found faster by comparison
/// than by hashing), the others in a hash map. `T` is the shared form of a text (an ADSL
/// column entry, a parameter's number).
pub(super) struct Shared<'t, T> {
    pub(super) recent: Vec<(usize, &'t str, T)>,
    pub(super) others: FxHashMap<(usize, &'t str), T>,
}

impl<T> Default for Shared<'_, T> {
    fn default() -> Self {
        Shared {
            recent: Vec::new(),
            others: FxHashMap::default(),
        }
    }
}

impl<'t, T: Clone> Shared<'t, T> {
    /// The shared form of `value` in `column`, made by `make` the first time.
    pub(super) fn get_or(
        &mut self,
        column: usize,
        value: &'t str,
        make: impl FnOnce(&str) -> T,
    ) -> T {
        if let Some((_, _, shared)) = self
            .recent
            .iter()
            .find(|(c, v, _)| *c == column && *v == value)
        {
            return shared.clone();
        }
        if self.recent.len() < 32 {
            let shared = make(value);
            self.recent.push((column, value, shared.clone()));
            return shared;
        }
        self.others
            .entry((column, value))
            .or_insert_with(|| make(value))
            .clone()
    }
}

/// Converts the rows of `table` in parallel, straight onto the end of `out` (no per-chunk
/// copies). `convert` is given each row and a cache of its own per parallel job. A row that
/// fails gets `placeholder`; the error returned is the first in row order, with its row.
pub(super) fn convert_rows<'t, T: Send, C>(
    table: &'t CsvTable,
    cache: impl Fn() -> C + Sync + Send,
    convert: impl Fn(&mut C, &Row<'t, '_>) -> Result<T> + Sync + Send,
    placeholder: impl Fn() -> T + Sync + Send,
    out: &mut Vec<T>,
) -> Option<(usize, Error)> {
    use rayon::prelude::*;
    let first_error: std::sync::Mutex<Option<(usize, Error)>> = std::sync::Mutex::new(None);
    out.par_extend(
        (0..table.len())
            .into_par_iter()
            .with_min_len(4096)
            .map_init(
                || (cache(), Vec::new()),
                |(cache, commas), r| match convert(cache, &table.row(r, commas)) {
                    Ok(value) => value,
                    Err(e) => {
                        if let Ok(mut first) = first_error.lock() {
                            if first.as_ref().is_none_or(|(row, _)| r < *row) {
                                *first = Some((r, e));
                            }
                        }
                        placeholder()
                    }
                },
            ),
    );
    first_error.into_inner().ok().flatten()
}

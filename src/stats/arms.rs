//! Two arms' times to event, sorted once for every model of a comparison: the Cox models and
//! log-rank tests, unstratified and stratified, and those of each subgroup, are views of one
//! sorted table ([`ArmTimes::model`], [`ArmTimes::model_where`]), never copies of it sorted
//! again. Each view makes near-equal times one over its own subjects, as R's `coxph` and
//! `survdiff` do over their model frame ([`super::timefix`]).

use super::error::StatsError;
use super::timefix::{run_of, run_starts};

/// One subject of a comparison of two arms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmSubject {
    /// Follow-up time.
    pub time: f64,
    /// Whether the time is an event (else censored).
    pub event: bool,
    /// Whether the subject is in the arm compared (else in the reference arm).
    pub in_arm: bool,
    /// The stratum, by number; `None` when the subject lacks a strata value (it is left out
    /// of stratified models).
    pub stratum: Option<u32>,
}

/// The subjects sorted by time, descending (ties in their input order).
#[derive(Debug, Clone)]
pub struct ArmTimes {
    times: Vec<f64>,
    /// Bit 0: an event; bit 1: in the arm compared.
    flags: Vec<u8>,
    /// The stratum of each row ([`NO_STRATUM`] for none).
    strata: Vec<u32>,
    /// Each row's position in the subjects given.
    index: Vec<u32>,
    /// One more than the largest stratum.
    n_strata: usize,
}

const NO_STRATUM: u32 = u32::MAX;

impl ArmTimes {
    /// Checks the times (finite, not negative) and sorts the subjects once.
    ///
    /// # Errors
    /// [`StatsError::InvalidTime`] for a time that is negative or not finite; more than
    /// 2^32 − 1 subjects or strata is a [`StatsError::Numerical`].
    pub fn new(subjects: &[ArmSubject]) -> Result<ArmTimes, StatsError> {
        if u32::try_from(subjects.len()).is_err() {
            return Err(StatsError::Numerical("more than 2^32 - 1 subjects"));
        }
        let mut n_strata = 0usize;
        // Descending time (the complement of its bits: times are finite and not negative, −0
        // made 0, so the bits sort as the times do), then position: one integer key, one
        // parallel sort.
        let mut keys: Vec<u128> = Vec::with_capacity(subjects.len());
        for (position, s) in (0u32..).zip(subjects) {
            if !(s.time.is_finite() && s.time >= 0.0) {
                return Err(StatsError::InvalidTime {
                    index: position as usize,
                    value: s.time,
                });
            }
            if let Some(stratum) = s.stratum {
                if stratum == NO_STRATUM {
                    return Err(StatsError::Numerical("more than 2^32 - 1 strata"));
                }
                n_strata = n_strata.max(stratum as usize + 1);
            }
            keys.push(u128::from(!(s.time + 0.0).to_bits()) << 32 | u128::from(position));
        }
        {
            use rayon::slice::ParallelSliceMut;
            keys.par_sort_unstable();
        }
        let mut data = ArmTimes {
            times: Vec::with_capacity(keys.len()),
            flags: Vec::with_capacity(keys.len()),
            strata: Vec::with_capacity(keys.len()),
            index: Vec::with_capacity(keys.len()),
            n_strata,
        };
        for key in keys {
            let (bits, position) = (!((key >> 32) as u64), key as u32);
            let s = subjects
                .get(position as usize)
                .ok_or(StatsError::Numerical("a subject out of range"))?;
            data.times.push(f64::from_bits(bits));
            data.flags.push(u8::from(s.event) | u8::from(s.in_arm) << 1);
            data.strata.push(s.stratum.unwrap_or(NO_STRATUM));
            data.index.push(position);
        }
        Ok(data)
    }

    /// Every subject (stratified: every subject with a stratum), as one model.
    pub fn model(&self, stratified: bool) -> ArmModel<'_> {
        if stratified && self.strata.contains(&NO_STRATUM) {
            return self.model_where(|_| true, true);
        }
        ArmModel::of(self, None, stratified)
    }

    /// The subjects `keep` accepts (by their position in the subjects given), as one model
    /// (a subgroup's).
    pub fn model_where(&self, keep: impl Fn(usize) -> bool, stratified: bool) -> ArmModel<'_> {
        let rows = (0u32..)
            .zip(&self.index)
            .filter(|(row, &position)| {
                keep(position as usize)
                    && !(stratified && self.strata.get(*row as usize) == Some(&NO_STRATUM))
            })
            .map(|(row, _)| row)
            .collect();
        ArmModel::of(self, Some(rows), stratified)
    }
}

/// One model's subjects of an [`ArmTimes`]: all of them or some, stratified or not; what
/// the Cox fit ([`super::cox`]) and the log-rank test ([`super::logrank`]) pass over.
#[derive(Debug, Clone)]
pub struct ArmModel<'d> {
    data: &'d ArmTimes,
    /// The rows of the model, in the data's order; `None`: every row.
    rows: Option<Vec<u32>>,
    stratified: bool,
    /// Each of the model's times made one with its near-equal times, when some were.
    runs: Option<Vec<f64>>,
    /// Subjects, events, and subjects in the arm.
    pub(crate) n: usize,
    pub(crate) events: usize,
    pub(crate) in_arm: usize,
    /// Events in the arm and in the reference.
    pub(crate) events_by_arm: [usize; 2],
}

/// The rows of a model: every row, or the listed ones (an enum, not a boxed iterator: the
/// passes run over millions of rows for each Newton step).
enum RowIndexes<'r> {
    All(std::ops::Range<usize>),
    Some(std::slice::Iter<'r, u32>),
}

impl Iterator for RowIndexes<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            RowIndexes::All(range) => range.next(),
            RowIndexes::Some(rows) => rows.next().map(|&r| r as usize),
        }
    }
}

/// One row as the passes see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    /// The stratum's slot (0 when the model is not stratified).
    pub(crate) stratum: usize,
    pub(crate) in_arm: bool,
    pub(crate) event: bool,
}

impl<'d> ArmModel<'d> {
    fn of(data: &'d ArmTimes, rows: Option<Vec<u32>>, stratified: bool) -> ArmModel<'d> {
        let mut model = ArmModel {
            data,
            rows,
            stratified,
            runs: None,
            n: 0,
            events: 0,
            in_arm: 0,
            events_by_arm: [0, 0],
        };
        let mut distinct: Vec<f64> = Vec::new();
        let (mut n, mut events, mut in_arm_count, mut events_by_arm) = (0, 0, 0, [0, 0]);
        // Rows are the data's own positions (`model_where` takes them from its enumeration):
        // indexing by them cannot miss, and a bug would stop here rather than give a number.
        for row in model.row_indexes() {
            let flags = data.flags[row];
            let (event, in_arm) = (flags & 1 == 1, flags & 2 == 2);
            n += 1;
            events += usize::from(event);
            in_arm_count += usize::from(in_arm);
            if event {
                events_by_arm[usize::from(!in_arm)] += 1;
            }
            let t = data.times[row];
            if distinct.last() != Some(&t) {
                distinct.push(t);
            }
        }
        (model.n, model.events, model.in_arm) = (n, events, in_arm_count);
        model.events_by_arm = events_by_arm;
        // Near-equal times, over this model's times (ascending for the rule).
        if let Some(starts) = run_starts(distinct.iter().rev().copied()) {
            let runs = model
                .row_indexes()
                .map(|row| run_of(&starts, data.times[row]))
                .collect();
            model.runs = Some(runs);
        }
        model
    }

    /// The data's rows of the model, times descending.
    fn row_indexes(&self) -> RowIndexes<'_> {
        match &self.rows {
            Some(rows) => RowIndexes::Some(rows.iter()),
            None => RowIndexes::All(0..self.data.times.len()),
        }
    }

    /// Each of the model's rows as its position in the subjects given, in the order
    /// [`ArmModel::for_each_time`] visits them (what a pass needs to look up a row's own
    /// values, as the interaction test its subgroup level).
    pub(crate) fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.row_indexes().map(|row| self.data.index[row] as usize)
    }

    /// Subjects in the model.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Subjects of the arm compared.
    pub fn in_arm(&self) -> usize {
        self.in_arm
    }

    /// Events in the arm and in the reference.
    pub fn events_by_arm(&self) -> [usize; 2] {
        self.events_by_arm
    }

    /// How many strata the passes keep sums for (1 unstratified).
    pub(crate) fn slots(&self) -> usize {
        if self.stratified {
            self.data.n_strata.max(1)
        } else {
            1
        }
    }

    /// The share of the model's subjects in the arm (the covariate's mean, which Cox models
    /// subtract).
    pub(crate) fn arm_share(&self) -> f64 {
        self.in_arm as f64 / self.n.max(1) as f64
    }

    /// Calls `visit` with the rows of each distinct time (after timefix), times descending:
    /// the passes of the Cox fit and the log-rank test, with the risk sets grown as they go.
    pub(crate) fn for_each_time(&self, mut visit: impl FnMut(&[Row])) {
        let mut group: Vec<Row> = Vec::new();
        let mut current = f64::NAN;
        // `runs` has one time per row of the model, in its order.
        for (k, row) in self.row_indexes().enumerate() {
            let time = match &self.runs {
                Some(runs) => runs[k],
                None => self.data.times[row],
            };
            if time != current && !group.is_empty() {
                visit(&group);
                group.clear();
            }
            current = time;
            let flags = self.data.flags[row];
            let stratum = if self.stratified {
                self.data.strata[row] as usize
            } else {
                0
            };
            group.push(Row {
                stratum,
                in_arm: flags & 2 == 2,
                event: flags & 1 == 1,
            });
        }
        if !group.is_empty() {
            visit(&group);
        }
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    fn subject(time: f64, event: bool, in_arm: bool, stratum: Option<u32>) -> ArmSubject {
        ArmSubject {
            time,
            event,
            in_arm,
            stratum,
        }
    }

    /// Views count their own subjects, skip those without a stratum when stratified, and
    /// give each distinct time's rows once, times descending, near-equal times together.
    #[test]
    fn views_see_their_own_subjects_and_times() {
        let a = 365.0 / 30.4375;
        let data = ArmTimes::new(&[
            subject(2.0, true, true, Some(0)),
            subject(a, true, false, Some(1)),
            subject(a * (1.0 + 1e-15), false, true, None),
            subject(1.0, true, false, Some(1)),
        ])
        .unwrap();
        let all = data.model(false);
        assert_eq!((all.n, all.events, all.in_arm), (4, 3, 2));
        let mut groups = Vec::new();
        all.for_each_time(|rows| groups.push(rows.len()));
        assert_eq!(groups, [2, 1, 1]);
        let stratified = data.model(true);
        assert_eq!((stratified.n, stratified.slots()), (3, 2));
        let some = data.model_where(|i| i != 0, false);
        assert_eq!((some.n, some.events_by_arm), (3, [0, 2]));
        assert!(ArmTimes::new(&[subject(-1.0, true, true, None)]).is_err());
    }
}

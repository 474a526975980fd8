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

/// The subjects sorted by time, descending (ties in their input order): one 128-bit key per
/// subject holding all it is (the complement of the time's bits, its position, its stratum,
/// its flags), sorted once and read in place: 16 bytes a subject, no other copy.
#[derive(Debug, Clone)]
pub struct ArmTimes {
    keys: Vec<u128>,
    /// One more than the largest stratum.
    n_strata: usize,
}

/// The subjects and events of two arms, by stratum too.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArmCounts {
    /// Subjects in the arm compared and in the reference.
    pub subjects: [usize; 2],
    /// Events in the arm compared and in the reference.
    pub events: [usize; 2],
    /// Per stratum (by number): subjects of the arm, of the reference, and events.
    pub strata: std::collections::BTreeMap<u32, [usize; 3]>,
    /// Subjects without a stratum.
    pub without_stratum: usize,
}

/// The stratum field of a subject without one (30 bits set).
const NO_STRATUM: u32 = (1 << 30) - 1;

impl ArmTimes {
    /// Checks the times (finite, not negative) and sorts the subjects once.
    ///
    /// # Errors
    /// [`StatsError::InvalidTime`] for a time that is negative or not finite; more than
    /// 2^32 − 1 subjects or 2^30 − 1 strata is a [`StatsError::Numerical`].
    pub fn new(subjects: &[ArmSubject]) -> Result<ArmTimes, StatsError> {
        ArmTimes::collect(subjects.iter().copied())
    }

    /// [`ArmTimes::new`] of subjects as they come (their positions count from 0), without a
    /// list of them first.
    ///
    /// # Errors
    /// As [`ArmTimes::new`].
    pub fn collect(subjects: impl Iterator<Item = ArmSubject>) -> Result<ArmTimes, StatsError> {
        ArmTimes::collect_at(subjects.enumerate())
    }

    /// [`ArmTimes::collect`] of subjects with their own positions (increasing: a list's
    /// entries that have a time), which models' `keep` and [`ArmModel::positions`] give back.
    ///
    /// # Errors
    /// As [`ArmTimes::new`].
    pub fn collect_at(
        subjects: impl Iterator<Item = (usize, ArmSubject)>,
    ) -> Result<ArmTimes, StatsError> {
        let mut n_strata = 0usize;
        // Descending time (the complement of its bits: times are finite and not negative, −0
        // made 0, so the bits sort as the times do), then position: the position is unique, so
        // the stratum and flags below it never decide the order.
        // Made at the most the subjects can be (a filtered list's upper bound), never grown:
        // growing a list of millions copies it and holds both copies for a moment.
        let (least, most) = subjects.size_hint();
        let mut keys: Vec<u128> = Vec::with_capacity(most.unwrap_or(least));
        for (position, s) in subjects {
            let Ok(at) = u32::try_from(position) else {
                return Err(StatsError::Numerical("more than 2^32 - 1 subjects"));
            };
            if !(s.time.is_finite() && s.time >= 0.0) {
                return Err(StatsError::InvalidTime {
                    index: position,
                    value: s.time,
                });
            }
            let stratum = match s.stratum {
                Some(k) if k >= NO_STRATUM => {
                    return Err(StatsError::Numerical("more than 2^30 - 1 strata"))
                }
                Some(k) => {
                    n_strata = n_strata.max(k as usize + 1);
                    k
                }
                None => NO_STRATUM,
            };
            let low = stratum << 2 | u32::from(s.in_arm) << 1 | u32::from(s.event);
            keys.push(
                u128::from(!(s.time + 0.0).to_bits()) << 64
                    | u128::from(at) << 32
                    | u128::from(low),
            );
        }
        {
            use rayon::slice::ParallelSliceMut;
            keys.par_sort_unstable();
        }
        Ok(ArmTimes { keys, n_strata })
    }

    /// The time of row `row`.
    #[inline]
    fn time(&self, row: usize) -> f64 {
        f64::from_bits(!((self.keys[row] >> 64) as u64))
    }

    /// Bit 0: an event; bit 1: in the arm compared.
    #[inline]
    fn flags(&self, row: usize) -> u8 {
        (self.keys[row] as u32 & 3) as u8
    }

    #[inline]
    fn stratum(&self, row: usize) -> u32 {
        self.keys[row] as u32 >> 2
    }

    #[inline]
    fn position(&self, row: usize) -> u32 {
        (self.keys[row] >> 32) as u32
    }

    /// Subjects.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// What the subjects hold, counted in one pass.
    pub fn counts(&self) -> ArmCounts {
        let mut c = ArmCounts::default();
        for row in 0..self.keys.len() {
            let flags = self.flags(row);
            let (event, reference) = (flags & 1 == 1, flags & 2 == 0);
            c.subjects[usize::from(reference)] += 1;
            c.events[usize::from(reference)] += usize::from(event);
            let stratum = self.stratum(row);
            if stratum == NO_STRATUM {
                c.without_stratum += 1;
                continue;
            }
            let t = c.strata.entry(stratum).or_default();
            t[usize::from(reference)] += 1;
            t[2] += usize::from(event);
        }
        c
    }

    /// Every subject (stratified: every subject with a stratum), as one model.
    pub fn model(&self, stratified: bool) -> ArmModel<'_> {
        if stratified && (0..self.keys.len()).any(|row| self.stratum(row) == NO_STRATUM) {
            return self.model_where(|_| true, true);
        }
        ArmModel::of(self, None, stratified)
    }

    /// The subjects `keep` accepts (by their position in the subjects given), as one model
    /// (a subgroup's).
    pub fn model_where(&self, keep: impl Fn(usize) -> bool, stratified: bool) -> ArmModel<'_> {
        let rows = (0..self.keys.len())
            .filter(|&row| {
                keep(self.position(row) as usize)
                    && !(stratified && self.stratum(row) == NO_STRATUM)
            })
            .map(|row| row as u32)
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
            let flags = data.flags(row);
            let (event, in_arm) = (flags & 1 == 1, flags & 2 == 2);
            n += 1;
            events += usize::from(event);
            in_arm_count += usize::from(in_arm);
            if event {
                events_by_arm[usize::from(!in_arm)] += 1;
            }
            let t = data.time(row);
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
                .map(|row| run_of(&starts, data.time(row)))
                .collect();
            model.runs = Some(runs);
        }
        model
    }

    /// The data's rows of the model, times descending.
    fn row_indexes(&self) -> RowIndexes<'_> {
        match &self.rows {
            Some(rows) => RowIndexes::Some(rows.iter()),
            None => RowIndexes::All(0..self.data.len()),
        }
    }

    /// Each of the model's rows as its position in the subjects given, in the order
    /// [`ArmModel::for_each_time`] visits them (what a pass needs to look up a row's own
    /// values, as the interaction test its subgroup level).
    pub(crate) fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.row_indexes()
            .map(|row| self.data.position(row) as usize)
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
                None => self.data.time(row),
            };
            if time != current && !group.is_empty() {
                visit(&group);
                group.clear();
            }
            current = time;
            let flags = self.data.flags(row);
            let stratum = if self.stratified {
                self.data.stratum(row) as usize
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

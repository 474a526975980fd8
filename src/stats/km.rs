//! Kaplan–Meier estimation with Greenwood variance, pointwise bands and landmark survival,
//! agreeing with R `survival::survfit` (3.5-3) and `summary.survfit(times =, extend = TRUE)`.
//!
//! Sorting (event and censoring times separately) and a linear merge: O(n log n) time, O(n)
//! memory and no per-subject allocation (timings: `benches/km.rs`, `docs/PERFORMANCE.md`).
//! Ties follow survfit: at a time with both events and censorings the events happen first (the
//! censored subjects are still at risk for them). There is one step per distinct time,
//! censor-only times included, exactly like `survfit`'s `$time`.
//! [`TimeTally`] fits the same curve from times given one by one, counted per distinct time
//! while there are few (whole days: a hash per time, no sort, no vector of times).
//!
//! This module does not compute quantiles (see [`super::quantile`]), read data, or know
//! anything about endpoints or cohorts; times are plain non-negative numbers in any unit.

use serde::Serialize;

use super::normal::z_for_level;
use super::timefix::{counted_run_starts, merge_near_ties};
use super::transform::{point_band, CiTransform, Limit};
use super::StatsError;

/// One row of the Kaplan–Meier table: a distinct observed time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KmStep {
    /// The time (same unit as the input).
    pub time: f64,
    /// Subjects still under observation just before `time` (time ≥ this time).
    pub n_risk: usize,
    /// Events at `time`.
    pub n_event: usize,
    /// Censorings at `time`.
    pub n_censor: usize,
    /// Kaplan–Meier survival just after `time` (right-continuous).
    pub surv: f64,
    /// Greenwood standard error of `surv` on the survival scale (`summary.survfit`'s
    /// `std.err`). `None` once S = 0, where R's variance is infinite.
    pub std_err: Option<f64>,
    /// Greenwood standard error of log S (`survfit`'s `$std.err`). `None` once S = 0.
    pub std_err_log: Option<f64>,
}

impl KmStep {
    /// The standard error of log S as R stores it: +∞ where the variance is undefined, so the
    /// band formulas produce R's NaN/NA exactly where R does.
    pub(crate) fn se_log_raw(&self) -> f64 {
        self.std_err_log.unwrap_or(f64::INFINITY)
    }
}

/// A fitted Kaplan–Meier curve for one group.
///
/// Built by [`kaplan_meier`]. An empty input gives an empty curve: no steps, every quantile not
/// reached, and [`KaplanMeier::landmark`] an [`StatsError::EmptyCurve`] error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KaplanMeier {
    n: usize,
    n_events: usize,
    steps: Vec<KmStep>,
}

/// A pointwise confidence band at one step. `None` where `survfit` gives NA or NaN.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    /// Lower limit for S(t).
    pub lower: Option<f64>,
    /// Upper limit for S(t).
    pub upper: Option<f64>,
}

/// Survival at a fixed time, as `summary(fit, times = t, extend = TRUE)` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Landmark {
    /// The landmark time asked for.
    pub time: f64,
    /// Subjects at risk at `time` (observed time ≥ `time`); 0 past the last follow-up.
    pub n_risk: usize,
    /// S(time): 1 before the first observed time.
    pub surv: f64,
    /// Greenwood SE of S(time) on the survival scale; `None` where S = 0.
    pub std_err: Option<f64>,
    /// Greenwood SE of log S(time); `None` where S = 0.
    pub std_err_log: Option<f64>,
    /// Lower confidence limit; `None` where `survfit`'s band is NA.
    pub lower: Option<f64>,
    /// Upper confidence limit; `None` where `survfit`'s band is NA.
    pub upper: Option<f64>,
    /// `time` is after the last observed time: R's `extend = TRUE` carries the last values
    /// forward (with `n_risk` 0) and a report may prefer to say "not evaluable" instead.
    pub beyond_last_followup: bool,
}

/// Fits the Kaplan–Meier estimator to right-censored data.
///
/// `time[i]` is subject i's follow-up time and `event[i]` is `true` for an event, `false` for
/// a censoring. The result matches `survfit(Surv(time, event) ~ 1)`: survival, Greenwood
/// standard errors, and one step per distinct time.
///
/// # Errors
/// [`StatsError::LengthMismatch`] if the slices differ in length, and
/// [`StatsError::InvalidTime`] for the first NaN, infinite or negative time.
pub fn kaplan_meier(time: &[f64], event: &[bool]) -> Result<KaplanMeier, StatsError> {
    if time.len() != event.len() {
        return Err(StatsError::LengthMismatch {
            times: time.len(),
            events: event.len(),
        });
    }
    if let Some((index, &value)) = time
        .iter()
        .enumerate()
        .find(|(_, t)| !(t.is_finite() && **t >= 0.0))
    {
        return Err(StatsError::InvalidTime { index, value });
    }
    let n_events = event.iter().filter(|&&e| e).count();
    let mut event_times = Vec::with_capacity(n_events);
    let mut censor_times = Vec::with_capacity(time.len() - n_events);
    for (&t, &e) in time.iter().zip(event) {
        // `+ 0.0` turns −0.0 into 0.0 so total_cmp does not split one time into two.
        if e {
            event_times.push(t + 0.0);
        } else {
            censor_times.push(t + 0.0);
        }
    }
    Ok(fit_valid(event_times, censor_times))
}

/// [`kaplan_meier`] from the event times and the censoring times, each in any order (a caller
/// with millions of subjects need not build the time and flag slices first). An invalid time
/// is reported by its position among the event times, then the censoring times.
///
/// # Errors
/// [`StatsError::InvalidTime`] for the first NaN, infinite or negative time.
pub fn kaplan_meier_split(
    mut event_times: Vec<f64>,
    mut censor_times: Vec<f64>,
) -> Result<KaplanMeier, StatsError> {
    for (index, t) in event_times.iter_mut().chain(&mut censor_times).enumerate() {
        if !(t.is_finite() && *t >= 0.0) {
            return Err(StatsError::InvalidTime { index, value: *t });
        }
        // `+ 0.0` turns −0.0 into 0.0 so total_cmp does not split one time into two.
        *t += 0.0;
    }
    Ok(fit_valid(event_times, censor_times))
}

/// The fit of event and censoring times already checked (finite, not negative) and with −0.0
/// made 0.0, each in any order.
fn fit_valid(mut event_times: Vec<f64>, mut censor_times: Vec<f64>) -> KaplanMeier {
    let (n, n_events) = (event_times.len() + censor_times.len(), event_times.len());
    // Sorting event and censoring times separately, then merging, needs no per-subject
    // (time, flag) records and puts "events before censorings" into the merge for free.
    event_times.sort_unstable_by(f64::total_cmp);
    censor_times.sort_unstable_by(f64::total_cmp);

    // Counting the distinct times first lets the table be allocated once, at its exact size:
    // with 10⁶ untied subjects that saves several copies of a 70 MB vector. The same passes
    // find whether two distinct times are close enough for R to make them one.
    let times = DistinctTimes::new(&event_times, &censor_times).map(|(t, _, _)| t);
    let (distinct, starts) = counted_run_starts(times);
    if starts.is_some() {
        let counts: Vec<(f64, usize, usize)> =
            DistinctTimes::new(&event_times, &censor_times).collect();
        if let Some(merged) = merge_near_ties(&counts) {
            return from_counts(n, n_events, merged.len(), merged.into_iter());
        }
    }
    from_counts(
        n,
        n_events,
        distinct,
        DistinctTimes::new(&event_times, &censor_times),
    )
}

/// Event and censoring times given one by one, counted per distinct time while there are few
/// (times in whole days over a unit: a cohort of millions has a few thousand), so that the
/// fit needs neither a vector of times nor a sort; past [`TimeTally::DISTINCT`] distinct times
/// (continuous times) it keeps the times and fits as [`kaplan_meier_split`]. The fit is the
/// same either way, step for step.
#[derive(Debug, Default)]
pub struct TimeTally {
    /// (events, censorings) per time, by the time's bits (−0 counted as 0).
    counts: rustc_hash::FxHashMap<u64, (usize, usize)>,
    /// Event and censoring times, once there were too many distinct ones to count.
    times: Option<(Vec<f64>, Vec<f64>)>,
    /// Times given, events among them.
    n: usize,
    n_events: usize,
    /// The first invalid time and its position.
    invalid: Option<(usize, f64)>,
    /// Distinct times counted before keeping times instead.
    limit: Option<usize>,
}

impl TimeTally {
    /// Distinct times counted before the tally keeps the times themselves.
    pub const DISTINCT: usize = 1 << 16;

    /// An empty tally.
    pub fn new() -> TimeTally {
        TimeTally::default()
    }

    /// An empty tally that keeps the times past `distinct` distinct ones (tests).
    pub fn with_limit(distinct: usize) -> TimeTally {
        TimeTally {
            limit: Some(distinct),
            ..TimeTally::default()
        }
    }

    /// Adds a time: an event or a censoring.
    pub fn add(&mut self, time: f64, event: bool) {
        if !(time.is_finite() && time >= 0.0) {
            self.invalid.get_or_insert((self.n, time));
        }
        self.n += 1;
        self.n_events += usize::from(event);
        // `+ 0.0` turns −0.0 into 0.0, which counts as the same time.
        let time = time + 0.0;
        if let Some((events, censorings)) = &mut self.times {
            if event {
                events.push(time)
            } else {
                censorings.push(time)
            }
            return;
        }
        let count = self.counts.entry(time.to_bits()).or_default();
        if event {
            count.0 += 1;
        } else {
            count.1 += 1;
        }
        if self.counts.len() > self.limit.unwrap_or(Self::DISTINCT) {
            let (mut events, mut censorings) = (Vec::new(), Vec::new());
            for (&bits, &(d, c)) in &self.counts {
                let t = f64::from_bits(bits);
                events.extend(std::iter::repeat_n(t, d));
                censorings.extend(std::iter::repeat_n(t, c));
            }
            self.counts = Default::default();
            self.times = Some((events, censorings));
        }
    }

    /// Times given so far.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether no time was given.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The Kaplan–Meier fit of the times given.
    ///
    /// # Errors
    /// [`StatsError::InvalidTime`] for the first NaN, infinite or negative time, by its
    /// position among the times given.
    pub fn fit(self) -> Result<KaplanMeier, StatsError> {
        if let Some((index, value)) = self.invalid {
            return Err(StatsError::InvalidTime { index, value });
        }
        if let Some((events, censorings)) = self.times {
            // Checked as they came (`invalid`), −0.0 made 0.0.
            return Ok(fit_valid(events, censorings));
        }
        let mut counts: Vec<(f64, usize, usize)> = self
            .counts
            .into_iter()
            .map(|(bits, (d, c))| (f64::from_bits(bits), d, c))
            .collect();
        counts.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        if let Some(merged) = merge_near_ties(&counts) {
            counts = merged;
        }
        Ok(from_counts(
            self.n,
            self.n_events,
            counts.len(),
            counts.into_iter(),
        ))
    }
}

/// The curve from (time, events, censorings) per distinct time in increasing order
/// (`distinct` of them), for `n` subjects with `n_events` events.
fn from_counts(
    n: usize,
    n_events: usize,
    distinct: usize,
    counts: impl Iterator<Item = (f64, usize, usize)>,
) -> KaplanMeier {
    let mut steps = Vec::with_capacity(distinct);
    let mut at_risk = n;
    let mut surv = 1.0f64;
    let mut greenwood = 0.0f64;
    for (time, n_event, n_censor) in counts {
        if n_event > 0 {
            let (r, d) = (at_risk as f64, n_event as f64);
            surv *= (r - d) / r;
            // Greenwood's sum for Var(log S); d = r makes it +∞, as in survfit, and S = 0.
            greenwood += d / (r * (r - d));
        }
        let std_err_log = if surv > 0.0 && greenwood.is_finite() {
            Some(greenwood.sqrt())
        } else {
            None
        };
        steps.push(KmStep {
            time,
            n_risk: at_risk,
            n_event,
            n_censor,
            surv,
            std_err: std_err_log.map(|se| se * surv),
            std_err_log,
        });
        at_risk -= n_event + n_censor;
    }
    KaplanMeier { n, n_events, steps }
}

/// Merges sorted event and censoring times into (time, events, censorings) per distinct time.
#[derive(Clone)]
struct DistinctTimes<'a> {
    events: &'a [f64],
    censorings: &'a [f64],
}

impl<'a> DistinctTimes<'a> {
    fn new(events: &'a [f64], censorings: &'a [f64]) -> Self {
        DistinctTimes { events, censorings }
    }
}

/// How many leading elements of a sorted slice equal `value`, and the rest.
fn split_run(sorted: &[f64], value: f64) -> (usize, &[f64]) {
    let run = sorted.iter().take_while(|&&t| t == value).count();
    (run, sorted.get(run..).unwrap_or_default())
}

impl Iterator for DistinctTimes<'_> {
    type Item = (f64, usize, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let time = match (self.events.first(), self.censorings.first()) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => return None,
        };
        let (n_event, events) = split_run(self.events, time);
        let (n_censor, censorings) = split_run(self.censorings, time);
        self.events = events;
        self.censorings = censorings;
        Some((time, n_event, n_censor))
    }
}

impl KaplanMeier {
    /// The reverse Kaplan–Meier curve (censorings as events, events as censorings, as for
    /// median follow-up), from this curve's table: the same numbers as fitting the swapped
    /// flags, without sorting the times again.
    pub fn reversed(&self) -> KaplanMeier {
        from_counts(
            self.n,
            self.n - self.n_events,
            self.steps.len(),
            self.steps.iter().map(|s| (s.time, s.n_censor, s.n_event)),
        )
    }

    /// Number of subjects.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of events.
    pub fn n_events(&self) -> usize {
        self.n_events
    }

    /// The table, one row per distinct time in increasing order.
    pub fn steps(&self) -> &[KmStep] {
        &self.steps
    }

    /// The last observed time (event or censoring); `None` for an empty curve.
    pub fn max_time(&self) -> Option<f64> {
        self.steps.last().map(|s| s.time)
    }

    /// Kaplan–Meier S(t) (right-continuous; 1 before the first time). `None` for an empty
    /// curve or a NaN `t`.
    pub fn surv_at(&self, t: f64) -> Option<f64> {
        if self.steps.is_empty() || t.is_nan() {
            return None;
        }
        Some(self.step_at(t).map_or(1.0, |s| s.surv))
    }

    /// The last step at or before `t`, if any.
    pub(crate) fn step_at(&self, t: f64) -> Option<&KmStep> {
        let after = self.steps.partition_point(|s| s.time <= t);
        after.checked_sub(1).and_then(|k| self.steps.get(k))
    }

    /// Limits as R stores them, step by step, for the quantile rules.
    pub(crate) fn band_limits(
        &self,
        z: f64,
        transform: CiTransform,
    ) -> impl Iterator<Item = (Limit, Limit)> + '_ {
        self.steps
            .iter()
            .map(move |s| point_band(s.surv, s.se_log_raw(), z, transform))
    }

    /// The pointwise confidence band at every step (`survfit(conf.type = transform,
    /// conf.int = level)`'s `$lower`/`$upper`), `None` where R gives NA.
    ///
    /// # Errors
    /// [`StatsError::InvalidLevel`] unless `0 < level < 1`.
    pub fn band(&self, level: f64, transform: CiTransform) -> Result<Vec<Band>, StatsError> {
        let z = z_for_level(level)?;
        Ok(self
            .band_limits(z, transform)
            .map(|(lower, upper)| Band {
                lower: lower.value(),
                upper: upper.value(),
            })
            .collect())
    }

    /// Survival at time `t` with its standard errors and confidence limits, as
    /// `summary(fit, times = t, extend = TRUE)`.
    ///
    /// Before the first observed time S = 1 with limits [1, 1] in every transform (R's
    /// convention there, even under log-log). Past the last observed time the last values are
    /// carried forward with `n_risk = 0` and `beyond_last_followup = true`.
    ///
    /// # Errors
    /// [`StatsError::InvalidLevel`] unless `0 < level < 1`, [`StatsError::InvalidLandmark`]
    /// for a non-finite `t`, [`StatsError::EmptyCurve`] for a curve without subjects.
    pub fn landmark(
        &self,
        t: f64,
        level: f64,
        transform: CiTransform,
    ) -> Result<Landmark, StatsError> {
        let z = z_for_level(level)?;
        if !t.is_finite() {
            return Err(StatsError::InvalidLandmark(t));
        }
        let last = self.steps.last().ok_or(StatsError::EmptyCurve)?;
        let after = self.steps.partition_point(|s| s.time <= t);
        let current = after.checked_sub(1).and_then(|k| self.steps.get(k));
        // At a step time the row itself says who was at risk; between steps it is everyone
        // still observed at the next time; past the end nobody.
        let n_risk = match current {
            Some(s) if s.time == t => s.n_risk,
            _ => self.steps.get(after).map_or(0, |s| s.n_risk),
        };
        let landmark = match current {
            None => Landmark {
                time: t,
                n_risk,
                surv: 1.0,
                std_err: Some(0.0),
                std_err_log: Some(0.0),
                lower: Some(1.0),
                upper: Some(1.0),
                beyond_last_followup: false,
            },
            Some(step) => {
                let (lower, upper) = point_band(step.surv, step.se_log_raw(), z, transform);
                Landmark {
                    time: t,
                    n_risk,
                    surv: step.surv,
                    std_err: step.std_err,
                    std_err_log: step.std_err_log,
                    lower: lower.value(),
                    upper: upper.value(),
                    beyond_last_followup: t > last.time,
                }
            }
        };
        Ok(landmark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times that differ in the 17th digit (one converted from days two ways) are one time,
    /// as R's survfit makes them by default (timefix): the fit, through every entry point, is
    /// the fit of the equal times.
    #[test]
    fn near_equal_times_are_one_time_as_in_r() {
        let a = 400.0 / 30.4375;
        let b = a * (1.0 + 2.0 * f64::EPSILON);
        assert_ne!(a, b);
        let near = [b, a, 3.0, a, 20.0];
        let equal = [a, a, 3.0, a, 20.0];
        let events = [true, false, true, true, false];
        let expected = kaplan_meier(&equal, &events).unwrap();
        assert_eq!(expected.steps().len(), 3);
        assert_eq!(
            kaplan_meier(&near, &events).unwrap().steps(),
            expected.steps()
        );
        let mut tally = TimeTally::new();
        for (t, e) in near.iter().zip(events) {
            tally.add(*t, e);
        }
        assert_eq!(tally.fit().unwrap().steps(), expected.steps());
    }

    #[test]
    fn events_come_before_censorings_at_a_tie() {
        // 4 subjects: event at 1, event and censoring at 2, event at 3.
        let km = kaplan_meier(&[2.0, 1.0, 2.0, 3.0], &[false, true, true, true]).unwrap();
        let s = km.steps();
        assert_eq!(s.len(), 3);
        assert_eq!((s[1].n_risk, s[1].n_event, s[1].n_censor), (3, 1, 1));
        // S(2) = 3/4 · 2/3 = 1/2: the censored subject counted as at risk at 2.
        assert!((s[1].surv - 0.5).abs() < 1e-15);
        assert_eq!(s[2].surv, 0.0);
        assert_eq!(s[2].std_err_log, None);
    }

    #[test]
    fn greenwood_matches_hand_computation() {
        // Events at 1 and 2 among 3 subjects, one censored at 3.
        let km = kaplan_meier(&[1.0, 2.0, 3.0], &[true, true, false]).unwrap();
        let s = &km.steps()[1];
        // Var log S = 1/(3·2) + 1/(2·1) = 2/3.
        assert!((s.std_err_log.unwrap() - (2.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert!((s.std_err.unwrap() - (2.0f64 / 3.0).sqrt() / 3.0).abs() < 1e-15);
    }

    #[test]
    fn rejects_bad_input_without_panicking() {
        assert!(matches!(
            kaplan_meier(&[1.0], &[]),
            Err(StatsError::LengthMismatch { .. })
        ));
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            assert!(matches!(
                kaplan_meier(&[1.0, bad], &[true, true]),
                Err(StatsError::InvalidTime { index: 1, .. })
            ));
        }
        let empty = kaplan_meier(&[], &[]).unwrap();
        assert!(empty.steps().is_empty());
        assert_eq!(
            empty.landmark(1.0, 0.95, CiTransform::LogLog),
            Err(StatsError::EmptyCurve)
        );
        let km = kaplan_meier(&[1.0], &[true]).unwrap();
        assert!(km.landmark(f64::NAN, 0.95, CiTransform::Log).is_err());
        assert!(km.landmark(1.0, 1.0, CiTransform::Log).is_err());
    }

    #[test]
    fn negative_zero_is_zero() {
        let km = kaplan_meier(&[-0.0, 0.0], &[true, false]).unwrap();
        assert_eq!(km.steps().len(), 1);
    }

    /// The reverse curve built from a fit's table is the fit of the swapped flags, to the bit:
    /// ties of events and censorings, a time of zero, all events, all censorings, nothing.
    #[test]
    fn reversed_equals_fitting_the_swapped_flags() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            state >> 33
        };
        let mut cases: Vec<(Vec<f64>, Vec<bool>)> = vec![
            (vec![], vec![]),
            (vec![0.0, 1.0, 1.0, 2.0], vec![true, true, false, true]),
            (vec![3.0; 5], vec![true; 5]),
            (vec![1.0, 2.0, 3.0], vec![false; 3]),
        ];
        for n in [10, 100, 1000] {
            let times = (0..n).map(|_| (next() % 50) as f64).collect();
            let events = (0..n).map(|_| next() % 3 != 0).collect();
            cases.push((times, events));
        }
        for (times, events) in cases {
            let forward = kaplan_meier(&times, &events).unwrap();
            let swapped: Vec<bool> = events.iter().map(|e| !e).collect();
            let refit = kaplan_meier(&times, &swapped).unwrap();
            assert_eq!(forward.reversed(), refit, "{times:?} {events:?}");
            let (level, transform) = (0.95, crate::stats::CiTransform::LogLog);
            assert_eq!(
                crate::stats::reverse_km_followup(&times, &events, level, transform).unwrap(),
                refit.quantile(0.5, level, transform).unwrap()
            );
        }
    }
}

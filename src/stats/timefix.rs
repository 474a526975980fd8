//! Times that differ by less than R's tolerance are one time, as R's `survival` makes them
//! (`aeqSurv`, the `timefix = TRUE` default of `survfit` and `coxph`): the distinct times are
//! sorted, and a time within √ε (absolutely, or relative to the mean of the distinct times'
//! magnitudes) of the one before it joins that one's run; each time becomes the first of its
//! run. Two times that differ in the 17th digit (a days/30.4375 conversion done two ways) are
//! then one time in every fit. `run_starts` is the rule; the Kaplan–Meier fit and the
//! two-arm data of Cox models and log-rank tests apply it.

/// R's tolerance: `sqrt(.Machine$double.eps)`.
pub const TIME_TOLERANCE: f64 = 1.490_116_119_384_765_6e-8;

/// The first time of each run of near-equal times, from the distinct times in increasing
/// order (read twice when two are close, hence `Clone`); `None` when no two are that close,
/// the usual case.
pub(crate) fn run_starts<I>(distinct: I) -> Option<Vec<f64>>
where
    I: Iterator<Item = f64> + Clone,
{
    counted_run_starts(distinct).1
}

/// [`run_starts`], with the number of distinct times (counted on the way).
pub(crate) fn counted_run_starts<I>(distinct: I) -> (usize, Option<Vec<f64>>)
where
    I: Iterator<Item = f64> + Clone,
{
    let (mut count, mut sum, mut min_gap, mut last) = (0usize, 0.0f64, f64::INFINITY, None);
    for t in distinct.clone() {
        count += 1;
        sum += t.abs();
        if let Some(l) = last {
            min_gap = min_gap.min(t - l);
        }
        last = Some(t);
    }
    // R's `dy <= tol | dy / mean(abs(y)) <= tol`.
    let threshold = TIME_TOLERANCE * (sum / count.max(1) as f64).max(1.0);
    if count < 2 || min_gap > threshold {
        return (count, None);
    }
    let mut starts = Vec::new();
    let mut previous = f64::NEG_INFINITY;
    for t in distinct {
        if starts.is_empty() || t - previous > threshold {
            starts.push(t);
        }
        previous = t;
    }
    (count, Some(starts))
}

/// The time `t` becomes: the start of its run among `starts` ([`run_starts`]), the last
/// start at or below it.
pub(crate) fn run_of(starts: &[f64], t: f64) -> f64 {
    let k = starts.partition_point(|s| *s <= t);
    starts.get(k.wrapping_sub(1)).copied().unwrap_or(t)
}

/// (time, events, censorings) per distinct time, in increasing order, with the times R makes
/// one merged into the first of their run (`None` when no two are that close, the usual case).
pub(crate) fn merge_near_ties(counts: &[(f64, usize, usize)]) -> Option<Vec<(f64, usize, usize)>> {
    let starts = run_starts(counts.iter().map(|c| c.0))?;
    let mut merged: Vec<(f64, usize, usize)> = Vec::with_capacity(starts.len());
    for &(time, events, censorings) in counts {
        let run = run_of(&starts, time);
        match merged.last_mut() {
            Some(last) if last.0 == run => {
                last.1 += events;
                last.2 += censorings;
            }
            _ => merged.push((run, events, censorings)),
        }
    }
    Some(merged)
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_equal_times_become_the_first_of_their_run() {
        let a = 365.0 / 30.4375;
        let b = a * (1.0 + 1e-15);
        assert_ne!(a, b);
        let starts = run_starts([2.0, a, b, 12.5].into_iter()).unwrap();
        assert_eq!(starts, [2.0, a, 12.5]);
        assert_eq!(run_of(&starts, b), a);
        assert_eq!(run_of(&starts, 2.0), 2.0);
        // Times apart by more than the tolerance stay apart.
        assert_eq!(run_starts([1.0, 1.0 + 1e-6].into_iter()), None);
        assert_eq!(run_starts([1.0].into_iter()), None);
    }

    /// A run is chained: each time within the tolerance of the one before joins the run.
    #[test]
    fn counts_of_near_equal_times_are_merged() {
        let a = 12.0;
        let counts = [(a, 1, 0), (a + 1e-9, 0, 1), (a + 2e-9, 2, 0), (13.0, 1, 1)];
        let merged = merge_near_ties(&counts).expect("merged");
        assert_eq!(merged, [(a, 3, 1), (13.0, 1, 1)]);
        assert_eq!(merge_near_ties(&[(1.0, 1, 0), (2.0, 1, 0)]), None);
    }
}

//! Times that differ by less than R's tolerance are one time, as R's `survival` makes them
//! (`aeqSurv`, the `timefix = TRUE` default of `survfit` and `coxph`): the distinct times are
//! sorted, and a time within √ε (absolutely, or relative to the mean of the distinct times'
//! magnitudes) of the one before it joins that one's run; each time becomes the first of its
//! run. Two times that differ in the 17th digit (a days/30.4375 conversion done two ways) are
//! then one time in every fit.

/// R's tolerance: `sqrt(.Machine$double.eps)`.
pub const TIME_TOLERANCE: f64 = 1.490_116_119_384_765_6e-8;

/// Times with near-equal values made equal.
#[derive(Debug, Clone)]
pub struct SurvTimes {
    times: Vec<f64>,
}

impl SurvTimes {
    /// The times, in input order, each replaced by the first time of its run of near-equal
    /// times (non-finite times stay as they are).
    pub fn of(times: impl Iterator<Item = f64>) -> SurvTimes {
        let mut times: Vec<f64> = times.collect();
        let mut distinct: Vec<f64> = times.iter().copied().filter(|t| t.is_finite()).collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        if distinct.len() < 2 {
            return SurvTimes { times };
        }
        let scale = distinct.iter().map(|t| t.abs()).sum::<f64>() / distinct.len() as f64;
        let tied =
            |gap: f64| gap <= TIME_TOLERANCE || (scale > 0.0 && gap / scale <= TIME_TOLERANCE);
        if !distinct.windows(2).any(|w| tied(w[1] - w[0])) {
            return SurvTimes { times };
        }
        // The first time of each run.
        let mut cuts = vec![distinct[0]];
        for w in distinct.windows(2) {
            if !tied(w[1] - w[0]) {
                cuts.push(w[1]);
            }
        }
        for t in times.iter_mut().filter(|t| t.is_finite()) {
            // The last cut at or below the time (every time is at or above the first cut).
            let k = cuts.partition_point(|c| c <= t);
            if let Some(c) = cuts.get(k.saturating_sub(1)) {
                *t = *c;
            }
        }
        SurvTimes { times }
    }

    /// The time of the subject at `index` (input order).
    pub fn get(&self, index: usize) -> f64 {
        self.times.get(index).copied().unwrap_or(f64::NAN)
    }

    /// All times, input order.
    pub fn into_vec(self) -> Vec<f64> {
        self.times
    }
}

/// The largest gap between two distinct times that makes them one, for distinct times whose
/// magnitudes average `scale`: R's `dy <= tol | dy / mean(abs(y)) <= tol`.
pub(crate) fn tie_threshold(scale: f64) -> f64 {
    TIME_TOLERANCE * scale.max(1.0)
}

/// (time, events, censorings) per distinct time, in increasing order, with the times R makes
/// one merged into the first of their run (`None` when no two are that close, the usual case).
pub(crate) fn merge_near_ties(counts: &[(f64, usize, usize)]) -> Option<Vec<(f64, usize, usize)>> {
    if counts.len() < 2 {
        return None;
    }
    let scale = counts.iter().map(|c| c.0.abs()).sum::<f64>() / counts.len() as f64;
    let threshold = tie_threshold(scale);
    if !counts.windows(2).any(|w| w[1].0 - w[0].0 <= threshold) {
        return None;
    }
    let mut merged: Vec<(f64, usize, usize)> = Vec::with_capacity(counts.len());
    let mut previous = f64::NEG_INFINITY;
    for &(time, events, censorings) in counts {
        match merged.last_mut() {
            Some(last) if time - previous <= threshold => {
                last.1 += events;
                last.2 += censorings;
            }
            _ => merged.push((time, events, censorings)),
        }
        previous = time;
    }
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_equal_times_become_the_first_of_their_run() {
        let a = 365.0 / 30.4375;
        let b = a * (1.0 + 1e-15);
        assert_ne!(a, b);
        let times = SurvTimes::of([b, 2.0, a, 12.5, f64::INFINITY].into_iter()).into_vec();
        assert_eq!(times[0], a.min(b));
        assert_eq!(times[2], a.min(b));
        assert_eq!(times[1], 2.0);
        assert_eq!(times[3], 12.5);
        assert!(times[4].is_infinite());
        // Times apart by more than the tolerance stay apart.
        let apart = SurvTimes::of([1.0, 1.0 + 1e-6].into_iter()).into_vec();
        assert_eq!(apart, [1.0, 1.0 + 1e-6]);
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

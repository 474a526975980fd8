//! The log-rank test of k groups as R's `survdiff` (rho = 0) computes it: at each distinct
//! event time the observed and expected events per group and their hypergeometric covariance,
//! summed over the event times and, when stratified, over the strata; the statistic is the
//! quadratic form of observed − expected over the groups with expected events, the first left
//! out, on (groups − 1) degrees of freedom. Times are made equal as R makes them
//! ([`super::timefix`]).

use super::cox::chisq1_p;
use super::error::StatsError;
use super::timefix::SurvTimes;

/// One subject of a log-rank test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogrankSubject {
    /// Follow-up time.
    pub time: f64,
    /// Whether the time is an event.
    pub event: bool,
    /// The group, 0 to groups − 1.
    pub group: usize,
    /// The stratum (0 when unstratified).
    pub stratum: u32,
}

/// A log-rank test.
#[derive(Debug, Clone, PartialEq)]
pub struct Logrank {
    /// Chi-square statistic.
    pub chisq: f64,
    /// Degrees of freedom (groups with expected events, minus one).
    pub df: usize,
    /// Upper-tail p-value (`None` with no degree of freedom).
    pub p: Option<f64>,
    /// Observed events per group.
    pub observed: Vec<f64>,
    /// Expected events per group.
    pub expected: Vec<f64>,
}

/// The test of `groups` groups.
pub fn logrank(subjects: &[LogrankSubject], groups: usize) -> Result<Logrank, StatsError> {
    for (index, s) in subjects.iter().enumerate() {
        if !(s.time.is_finite() && s.time >= 0.0) {
            return Err(StatsError::InvalidTime {
                index,
                value: s.time,
            });
        }
        if s.group >= groups {
            return Err(StatsError::Numerical("a subject's group is out of range"));
        }
    }
    let times = SurvTimes::of(subjects.iter().map(|s| s.time));
    let mut order: Vec<usize> = (0..subjects.len()).collect();
    // Strata in turn, times descending: the risk sets grow as the pass goes.
    order.sort_by(|&a, &b| {
        subjects[a]
            .stratum
            .cmp(&subjects[b].stratum)
            .then(times.get(b).total_cmp(&times.get(a)))
    });
    let mut observed = vec![0.0; groups];
    let mut expected = vec![0.0; groups];
    let mut var = vec![vec![0.0; groups]; groups];
    let mut at_risk = vec![0.0; groups];
    let mut deaths = vec![0.0; groups];
    let mut i = 0;
    while i < order.len() {
        let stratum = subjects[order[i]].stratum;
        at_risk.iter_mut().for_each(|n| *n = 0.0);
        while i < order.len() && subjects[order[i]].stratum == stratum {
            let time = times.get(order[i]);
            deaths.iter_mut().for_each(|d| *d = 0.0);
            while i < order.len()
                && subjects[order[i]].stratum == stratum
                && times.get(order[i]) == time
            {
                let s = &subjects[order[i]];
                at_risk[s.group] += 1.0;
                if s.event {
                    deaths[s.group] += 1.0;
                }
                i += 1;
            }
            let d: f64 = deaths.iter().sum();
            if d == 0.0 {
                continue;
            }
            let n: f64 = at_risk.iter().sum();
            for g in 0..groups {
                observed[g] += deaths[g];
                expected[g] += d * at_risk[g] / n;
            }
            if n > 1.0 {
                let factor = d * (n - d) / (n * n * (n - 1.0));
                for (g, row) in var.iter_mut().enumerate() {
                    for (h, v) in row.iter_mut().enumerate() {
                        let same = if g == h { n } else { 0.0 };
                        *v += factor * at_risk[g] * (same - at_risk[h]);
                    }
                }
            }
        }
    }
    // The groups with expected events, the first of them left out.
    let kept: Vec<usize> = (0..groups).filter(|&g| expected[g] > 0.0).collect();
    let df = kept.len().saturating_sub(1);
    if df == 0 {
        return Ok(Logrank {
            chisq: 0.0,
            df,
            p: None,
            observed,
            expected,
        });
    }
    let rest = &kept[1..];
    let diff: Vec<f64> = rest.iter().map(|&g| observed[g] - expected[g]).collect();
    let matrix: Vec<Vec<f64>> = rest
        .iter()
        .map(|&g| rest.iter().map(|&h| var[g][h]).collect())
        .collect();
    let solved = solve(matrix, diff.clone()).ok_or(StatsError::Numerical(
        "the log-rank variance matrix is singular",
    ))?;
    let chisq: f64 = solved.iter().zip(&diff).map(|(a, b)| a * b).sum();
    let p = if df == 1 {
        chisq1_p(chisq)
    } else {
        statrs::function::gamma::checked_gamma_ur(df as f64 / 2.0, chisq.max(0.0) / 2.0)
            .map_err(|_| StatsError::Numerical("chi-square tail"))?
    };
    Ok(Logrank {
        chisq,
        df,
        p: Some(p),
        observed,
        expected,
    })
}

/// `a x = b` by Gaussian elimination with partial pivoting (a is small: groups − 1 rows).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&r, &s| a[r][col].abs().total_cmp(&a[s][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (top, below) = a.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (offset, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[col + 1 + offset] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let sum: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - sum) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn s(time: f64, event: bool, group: usize) -> LogrankSubject {
        LogrankSubject {
            time,
            event,
            group,
            stratum: 0,
        }
    }

    /// Two groups by hand: at t=1 (2 + 2 at risk) one death in group 0: E0 = 1/2,
    /// V = (1/2)(1/2) = 1/4; at t=2 (1 + 2 at risk) one death in group 1: E0 = 1/3,
    /// V = (1/3)(2/3) = 2/9. O0 − E0 = 1 − 5/6; chi-square = (1/6)² / (1/4 + 2/9).
    #[test]
    fn two_groups_by_hand() {
        let data = [
            s(1.0, true, 0),
            s(3.0, false, 0),
            s(2.0, true, 1),
            s(3.0, false, 1),
        ];
        let test = logrank(&data, 2).unwrap();
        assert_eq!(test.df, 1);
        assert!((test.expected[0] - 5.0 / 6.0).abs() < 1e-12);
        let chisq = (1.0f64 / 6.0).powi(2) / (0.25 + 2.0 / 9.0);
        assert!((test.chisq - chisq).abs() < 1e-12, "{}", test.chisq);
        // A group without expected events drops out of the degrees of freedom.
        let test = logrank(&data, 3).unwrap();
        assert_eq!(test.df, 1);
        assert!((test.chisq - chisq).abs() < 1e-12);
    }
}

//! Competing risks (docs/OUTPUTS.md, "Survival beyond the median"): the cumulative incidence
//! of the event of interest by Aalen–Johansen, with the infinitesimal-jackknife standard error
//! and log-scale interval of R `survfit` (multi-state, survival 3.5-3); Gray's test of two
//! groups' incidences (cmprsk `cuminc`, ρ = 0); and the Fine–Gray subdistribution hazard
//! ratio of a binary arm (cmprsk `crr` with one censoring group, its sandwich variance).
//!
//! Status per subject: 0 censored, 1 the event of interest, 2 a competing event. Every pass is
//! over times sorted once: O(n log n), no subject-by-subject double loop.

use serde::Serialize;

use super::chisq::chisq_upper;
use super::normal::z_for_level;
use super::timefix::{run_of, run_starts};
use super::StatsError;

/// Censored, the event of interest, a competing event.
pub const CENSORED: u8 = 0;
/// The event of interest.
pub const EVENT: u8 = 1;
/// A competing event.
pub const COMPETING: u8 = 2;

/// One distinct time of the cumulative incidence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CifStep {
    /// The time.
    pub time: f64,
    /// Subjects whose time is ≥ `time`.
    pub n_risk: usize,
    /// Events of interest at `time`.
    pub events: usize,
    /// Competing events at `time`.
    pub competing: usize,
    /// Censored at `time`.
    pub censored: usize,
    /// The cumulative incidence just after `time`.
    pub estimate: f64,
}

/// An Aalen–Johansen fit of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct CumulativeIncidence {
    n: usize,
    steps: Vec<CifStep>,
    /// Event-free survival just before each step, S(t−).
    before: Vec<f64>,
    /// The running sums the standard error is made of, per step ([`Self::std_err_at`]).
    sums: Vec<[f64; 3]>,
}

/// One time of a cumulative incidence's risk table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CifRiskRow {
    /// The time.
    pub time: f64,
    /// Subjects whose time is ≥ `time`.
    pub at_risk: usize,
    /// Events of interest at or before `time`.
    pub events: usize,
    /// Competing events at or before `time`.
    pub competing: usize,
    /// Censorings at or before `time`.
    pub censored: usize,
}

/// The cumulative incidence at a time with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CifAt {
    /// The time asked for.
    pub time: f64,
    /// Subjects at risk at `time` (0 past the last time).
    pub n_risk: usize,
    /// The cumulative incidence.
    pub estimate: f64,
    /// Its infinitesimal-jackknife standard error.
    pub std_err: f64,
    /// Lower limit (log scale); `None` where the incidence is 0.
    pub lower: Option<f64>,
    /// Upper limit (log scale, at most 1); `None` where the incidence is 0.
    pub upper: Option<f64>,
}

/// A step's subjects by how they leave: (how many, 1 for any event, 1 for the event of
/// interest), censored, with the event and with a competing event.
fn classes(s: &CifStep) -> [(usize, f64, f64); 3] {
    [
        (s.censored, 0.0, 0.0),
        (s.events, 1.0, 1.0),
        (s.competing, 1.0, 0.0),
    ]
}

/// An interval's lower and upper limits; `None` where there is none.
pub type Limits = (Option<f64>, Option<f64>);

/// The interval of an incidence on the log scale (at most 1); none where it is 0.
fn log_limits(estimate: f64, std_err: f64, z: f64) -> Limits {
    if estimate > 0.0 {
        let w = z * std_err / estimate;
        (
            Some(estimate * (-w).exp()),
            Some((estimate * w.exp()).min(1.0)),
        )
    } else {
        (None, None)
    }
}

fn check(time: &[f64], status: &[u8]) -> Result<(), StatsError> {
    if time.len() != status.len() {
        return Err(StatsError::LengthMismatch {
            times: time.len(),
            events: status.len(),
        });
    }
    if let Some((index, &value)) = time
        .iter()
        .enumerate()
        .find(|(_, t)| !(t.is_finite() && **t >= 0.0))
    {
        return Err(StatsError::InvalidTime { index, value });
    }
    if status.iter().any(|s| *s > COMPETING) {
        return Err(StatsError::Numerical(
            "a status other than 0 (censored), 1 (event) or 2 (competing event)",
        ));
    }
    Ok(())
}

/// Fits the cumulative incidence of status 1, as `survfit(Surv(time, factor(status, 0:2)) ~ 1)`
/// gives state "1" (times closer than R's `timefix` tolerance are one time).
///
/// # Errors
/// [`StatsError::LengthMismatch`], [`StatsError::InvalidTime`] for a NaN, infinite or
/// negative time, [`StatsError::Numerical`] for a status other than 0, 1 or 2.
pub fn aalen_johansen(time: &[f64], status: &[u8]) -> Result<CumulativeIncidence, StatsError> {
    check(time, status)?;
    let mut order: Vec<(f64, u8)> = time
        .iter()
        .map(|t| t + 0.0)
        .zip(status.iter().copied())
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let distinct = || {
        let mut last = None;
        order.iter().filter_map(move |(t, _)| {
            let new = last != Some(*t);
            last = Some(*t);
            new.then_some(*t)
        })
    };
    let starts = run_starts(distinct());
    let mut steps: Vec<CifStep> = Vec::new();
    for &(t, s) in &order {
        let t = starts.as_deref().map_or(t, |st| run_of(st, t));
        if steps.last().is_none_or(|last| last.time != t) {
            steps.push(CifStep {
                time: t,
                n_risk: 0,
                events: 0,
                competing: 0,
                censored: 0,
                estimate: 0.0,
            });
        }
        if let Some(step) = steps.last_mut() {
            match s {
                EVENT => step.events += 1,
                COMPETING => step.competing += 1,
                _ => step.censored += 1,
            }
        }
    }
    let mut at_risk = order.len();
    let (mut surv, mut cif) = (1.0, 0.0);
    let mut before = Vec::with_capacity(steps.len());
    // Per step: λ the hazard of any event, λ1 of the event of interest; G, H, K the running
    // sums the derivative of the incidence by a subject's weight is made of.
    let mut sums = Vec::with_capacity(steps.len());
    let (mut g, mut h, mut k) = (0.0, 0.0, 0.0);
    for step in &mut steps {
        step.n_risk = at_risk;
        let n = at_risk as f64;
        let lam = (step.events + step.competing) as f64 / n;
        let lam1 = step.events as f64 / n;
        before.push(surv);
        k += lam1 * surv * g;
        if lam < 1.0 {
            g += lam / (n * (1.0 - lam));
        }
        h += surv * lam1 / n;
        sums.push([g, h, k]);
        cif += surv * step.events as f64 / n;
        surv *= 1.0 - lam;
        // A sum of probabilities: rounding may take it a few ulps past 1 when every subject
        // ends with the event of interest (no competing event before it).
        step.estimate = cif.min(1.0);
        at_risk -= step.events + step.competing + step.censored;
    }
    Ok(CumulativeIncidence {
        n: order.len(),
        steps,
        before,
        sums,
    })
}

impl CumulativeIncidence {
    /// Subjects.
    pub fn n(&self) -> usize {
        self.n
    }

    /// One row per distinct time.
    pub fn steps(&self) -> &[CifStep] {
        &self.steps
    }

    /// The infinitesimal-jackknife standard error at step `at`: the root of the sum over
    /// subjects of the squared derivative of the incidence by the subject's weight. Subjects
    /// with the same time and status have the same derivative, so the sum is over steps.
    pub fn std_err_at(&self, at: usize) -> f64 {
        if at >= self.steps.len() {
            return 0.0;
        }
        let g = |l: usize| self.sums[l][0];
        let h = |l: usize| self.sums[l][1];
        let kk = |l: usize| self.sums[l][2];
        let f = |l: usize| self.steps[l].estimate;
        let fj = f(at);
        let beyond = kk(at) - h(at);
        let mut sum = 0.0;
        for (m, s) in self.steps.iter().enumerate().take(at + 1) {
            let n = s.n_risk as f64;
            let lam = (s.events + s.competing) as f64 / n;
            let classes = classes(s);
            for (count, any, interest) in classes {
                if count == 0 {
                    continue;
                }
                let u = if m == at {
                    beyond + interest * self.before[m] / n
                } else {
                    let leave = if lam < 1.0 {
                        any / (n * (1.0 - lam))
                    } else {
                        0.0
                    };
                    -leave * (fj - f(m))
                        + kk(m + 1)
                        + g(m) * (fj - f(m + 1))
                        + interest * self.before[m] / n
                        - h(m)
                };
                sum += count as f64 * u * u;
            }
        }
        let s = &self.steps[at];
        let later = s.n_risk - s.events - s.competing - s.censored;
        sum += later as f64 * beyond * beyond;
        sum.sqrt()
    }

    /// The standard error at every step, as [`Self::std_err_at`] gives each but in one pass:
    /// each earlier step's derivative is linear in the incidence at the step asked for, so
    /// the sums of its square's parts run along the steps (for a figure's band at any size).
    pub fn std_errs(&self) -> Vec<f64> {
        let (mut s0, mut s1, mut s2) = (0.0, 0.0, 0.0);
        let mut out = Vec::with_capacity(self.steps.len());
        for (at, s) in self.steps.iter().enumerate() {
            let [g, h, kk] = self.sums[at];
            let (fj, n) = (s.estimate, s.n_risk as f64);
            let beyond = kk - h;
            let classes = classes(s);
            let mut sum = s0 + 2.0 * fj * s1 + fj * fj * s2;
            for (count, _, interest) in classes {
                let u = beyond + interest * self.before[at] / n;
                sum += count as f64 * u * u;
            }
            let later = s.n_risk - s.events - s.competing - s.censored;
            sum += later as f64 * beyond * beyond;
            out.push(sum.max(0.0).sqrt());
            // This step's terms for the steps after it: u = a + b·F(later step).
            let lam = (s.events + s.competing) as f64 / n;
            let next_kk = self.sums.get(at + 1).map_or(kk, |x| x[2]);
            let next_f = self.steps.get(at + 1).map_or(fj, |x| x.estimate);
            for (count, any, interest) in classes {
                if count == 0 {
                    continue;
                }
                let leave = if lam < 1.0 {
                    any / (n * (1.0 - lam))
                } else {
                    0.0
                };
                let a = leave * fj + next_kk - g * next_f + interest * self.before[at] / n - h;
                let b = g - leave;
                let c = count as f64;
                s0 += c * a * a;
                s1 += c * a * b;
                s2 += c * b * b;
            }
        }
        out
    }

    /// At risk, and events of interest, competing events and censorings so far, at each of
    /// `times` (as [`crate::stats::km::KaplanMeier::risk_table`] counts them).
    pub fn risk_table(&self, times: &[f64]) -> Vec<CifRiskRow> {
        let step = |k: usize| {
            self.steps
                .get(k)
                .map(|s| (s.time, s.n_risk, [s.events, s.competing, s.censored]))
        };
        crate::stats::rmst::tabulate(self.n, step, times)
            .into_iter()
            .map(
                |(time, at_risk, [events, competing, censored])| CifRiskRow {
                    time,
                    at_risk,
                    events,
                    competing,
                    censored,
                },
            )
            .collect()
    }

    /// The pointwise interval at `level` at every step (log scale, as [`Self::at`]): the
    /// band of a figure.
    ///
    /// # Errors
    /// [`StatsError::InvalidLevel`].
    pub fn band(&self, level: f64) -> Result<Vec<Limits>, StatsError> {
        let z = z_for_level(level)?;
        Ok(self
            .steps
            .iter()
            .zip(self.std_errs())
            .map(|(s, se)| log_limits(s.estimate, se, z))
            .collect())
    }

    /// The incidence at `t` with its SE and interval at `level`, as
    /// `summary(fit, times = t, extend = TRUE)`.
    ///
    /// # Errors
    /// [`StatsError::InvalidLevel`], [`StatsError::InvalidLandmark`] for a time not finite.
    pub fn at(&self, t: f64, level: f64) -> Result<CifAt, StatsError> {
        let z = z_for_level(level)?;
        if !t.is_finite() {
            return Err(StatsError::InvalidLandmark(t));
        }
        let after = self.steps.partition_point(|s| s.time <= t);
        let n_risk = match after.checked_sub(1).and_then(|j| self.steps.get(j)) {
            Some(s) if s.time == t => s.n_risk,
            _ => self.steps.get(after).map_or(0, |s| s.n_risk),
        };
        let (estimate, std_err) = match after.checked_sub(1) {
            Some(j) => (self.steps[j].estimate, self.std_err_at(j)),
            None => (0.0, 0.0),
        };
        let (lower, upper) = log_limits(estimate, std_err, z);
        Ok(CifAt {
            time: t,
            n_risk,
            estimate,
            std_err,
            lower,
            upper,
        })
    }
}

/// Gray's test of two groups' cumulative incidences of status 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GrayTest {
    /// The chi-square statistic (1 df).
    pub chisq: f64,
    /// Its p-value.
    pub p: f64,
}

/// Gray's K-sample test (K = 2, ρ = 0) as `cmprsk::cuminc` computes it; `arm[i]` says which
/// group subject i is in. `None` without information (no event of interest, or no variance).
///
/// # Errors
/// As [`aalen_johansen`], and [`StatsError::LengthMismatch`] for `arm` of another length.
pub fn gray_test(
    time: &[f64],
    status: &[u8],
    arm: &[bool],
) -> Result<Option<GrayTest>, StatsError> {
    let order = two_arms(time, status, arm)?;
    // Per group: at risk, event-free survival and incidence just before the time.
    let mut rs = [0usize; 2];
    for o in &order {
        rs[o.2] += 1;
    }
    let (mut s_before, mut f_before) = ([1.0f64; 2], [0.0f64; 2]);
    let mut pooled_before = 0.0;
    // The score of group 0, its variance's parts: c (2 × 2, running), v3 and v2 per group.
    let (mut score, mut var) = (0.0, 0.0);
    let mut c = [[0.0f64; 2]; 2];
    let (mut v3, mut v2) = ([0.0f64; 2], [0.0f64; 2]);
    let mut i = 0;
    while i < order.len() {
        let t = order[i].0;
        let mut d = [[0usize; 3]; 2];
        let mut j = i;
        while j < order.len() && order[j].0 == t {
            d[order[j].2][usize::from(order[j].1)] += 1;
            j += 1;
        }
        let nd1 = d[0][1] + d[1][1];
        let nd2 = d[0][2] + d[1][2];
        if nd1 + nd2 > 0 {
            let (mut s_after, mut f_after) = (s_before, f_before);
            let (mut tr, mut tq) = (0.0, 0.0);
            for g in 0..2 {
                if rs[g] == 0 {
                    continue;
                }
                let n = rs[g] as f64;
                s_after[g] = s_before[g] * (n - (d[g][1] + d[g][2]) as f64) / n;
                f_after[g] = f_before[g] + s_before[g] * d[g][1] as f64 / n;
                tr += n / s_before[g];
                tq += n * (1.0 - f_before[g]) / s_before[g];
            }
            let pooled = pooled_before + nd1 as f64 / tr;
            // a: the weights of this time's contrast; c sums a · dF/(1 − F) over time.
            let mut a = [[0.0f64; 2]; 2];
            let weight = |g: usize| rs[g] as f64 / s_before[g];
            for g in 0..2 {
                if rs[g] == 0 {
                    continue;
                }
                for h in 0..2 {
                    if rs[h] == 0 {
                        continue;
                    }
                    a[g][h] = if g == h {
                        weight(g) * (1.0 - weight(g) / tr)
                    } else {
                        -weight(g) * weight(h) / tr
                    };
                    c[g][h] += a[g][h] * nd1 as f64 / (tr * (1.0 - pooled_before));
                }
            }
            if rs[0] > 0 {
                score += d[0][1] as f64
                    - nd1 as f64 * rs[0] as f64 * (1.0 - f_before[0]) / (s_before[0] * tq);
            }
            if nd1 > 0 {
                for k in 0..2 {
                    if rs[k] == 0 {
                        continue;
                    }
                    let t4 = if s_after[k] > 0.0 {
                        1.0 - (1.0 - pooled) / s_after[k]
                    } else {
                        1.0
                    };
                    let t5 = if nd1 > 1 {
                        1.0 - (nd1 as f64 - 1.0) / (tr * s_before[k] - 1.0)
                    } else {
                        1.0
                    };
                    let t3 = t5 * s_before[k] * nd1 as f64 / (tr * rs[k] as f64);
                    v3[k] += t4 * t4 * t3;
                    let t1 = a[0][k] - t4 * c[0][k];
                    v2[k] += t1 * t4 * t3;
                    var += t1 * t1 * t3;
                }
            }
            if nd2 > 0 {
                for k in 0..2 {
                    if s_after[k] <= 0.0 || d[k][2] == 0 {
                        continue;
                    }
                    let t4 = (1.0 - pooled) / s_after[k];
                    let t5 = if d[k][2] > 1 {
                        1.0 - (d[k][2] as f64 - 1.0) / (rs[k] as f64 - 1.0)
                    } else {
                        1.0
                    };
                    let n = rs[k] as f64;
                    let t3 = t5 * s_before[k] * s_before[k] * d[k][2] as f64 / (n * n);
                    v3[k] += t4 * t4 * t3;
                    let t1 = t4 * c[0][k];
                    v2[k] -= t1 * t4 * t3;
                    var += t1 * t1 * t3;
                }
            }
            pooled_before = pooled;
            s_before = s_after;
            f_before = f_after;
        }
        for o in &order[i..j] {
            rs[o.2] -= 1;
        }
        i = j;
    }
    for k in 0..2 {
        var += c[0][k] * c[0][k] * v3[k] + 2.0 * c[0][k] * v2[k];
    }
    if nd1_total(status) == 0 || var.is_nan() || var <= 0.0 {
        return Ok(None);
    }
    let chisq = score * score / var;
    Ok(Some(GrayTest {
        chisq,
        p: chisq_upper(chisq, 1)?,
    }))
}

/// (time, status, arm 0 or 1) of each subject, checked and sorted by time.
fn two_arms(
    time: &[f64],
    status: &[u8],
    arm: &[bool],
) -> Result<Vec<(f64, u8, usize)>, StatsError> {
    check(time, status)?;
    if arm.len() != time.len() {
        return Err(StatsError::LengthMismatch {
            times: time.len(),
            events: arm.len(),
        });
    }
    let mut order: Vec<(f64, u8, usize)> = time
        .iter()
        .zip(status)
        .zip(arm)
        .map(|((t, s), a)| (t + 0.0, *s, usize::from(*a)))
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    Ok(order)
}

fn nd1_total(status: &[u8]) -> usize {
    status.iter().filter(|s| **s == EVENT).count()
}

/// The Fine–Gray model of a binary arm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FineGray {
    /// log subdistribution hazard ratio, arm against the rest.
    pub coef: f64,
    /// Its sandwich standard error (`crr`'s `var`).
    pub se: f64,
    /// exp(coef) and its Wald interval.
    pub hr: super::Ci,
    /// Two-sided Wald p.
    pub p: f64,
}

/// Distinct times in order with, per time, the subjects there by arm and status.
struct Tally {
    time: f64,
    /// [arm][status] counts.
    d: [[usize; 3]; 2],
}

/// The Fine–Gray model (one censoring group, Breslow ties) as `cmprsk::crr(time, status,
/// cov1 = arm)` fits it, Newton–Raphson to convergence. `None` when an arm has no event of
/// interest (the likelihood has no maximum) or the information is 0.
///
/// # Errors
/// As [`gray_test`], and [`StatsError::Numerical`] when Newton–Raphson does not converge.
pub fn fine_gray(
    time: &[f64],
    status: &[u8],
    arm: &[bool],
    level: f64,
) -> Result<Option<FineGray>, StatsError> {
    let order = two_arms(time, status, arm)?;
    let z = z_for_level(level)?;
    let mut events = [0usize; 2];
    for (s, a) in status.iter().zip(arm) {
        events[usize::from(*a)] += usize::from(*s == EVENT);
    }
    if events[0] == 0 || events[1] == 0 {
        return Ok(None);
    }
    let mut tally: Vec<Tally> = Vec::new();
    for &(t, s, a) in &order {
        if tally.last().is_none_or(|l| l.time != t) {
            tally.push(Tally {
                time: t,
                d: [[0; 3]; 2],
            });
        }
        if let Some(l) = tally.last_mut() {
            l.d[a][usize::from(s)] += 1;
        }
    }
    // G(t−): the Kaplan–Meier of censoring (censorings the events), just before each time.
    let mut g_before = Vec::with_capacity(tally.len());
    let (mut g, mut at_risk) = (1.0, order.len());
    for l in &tally {
        let here: usize = l.d.iter().flatten().sum();
        let censored = l.d[0][0] + l.d[1][0];
        let after = g * (1.0 - censored as f64 / at_risk as f64);
        // crr reads G a hair before each time (t·(1 − 100ε)), which at time 0 is G(0) itself,
        // after the censorings at 0.
        g_before.push(if l.time == 0.0 { after } else { g });
        g = after;
        at_risk -= here;
    }
    let model = Model {
        tally: &tally,
        g_before: &g_before,
    };
    let mut beta = 0.0;
    let mut converged = false;
    for _ in 0..100 {
        let (score, info) = model.score_info(beta);
        if info.is_nan() || info <= 0.0 {
            return Ok(None);
        }
        let step = score / info;
        beta += step;
        if step.abs() <= 1e-13 * beta.abs().max(1.0) {
            converged = true;
            break;
        }
    }
    if !converged || !beta.is_finite() {
        return Err(StatsError::Numerical(
            "the Fine–Gray model did not converge in 100 Newton steps",
        ));
    }
    let (_, info) = model.score_info(beta);
    let meat = model.sandwich_meat(beta);
    let se = meat.sqrt() / info;
    let hr = super::Ci {
        estimate: beta.exp(),
        lower: (beta - z * se).exp(),
        upper: (beta + z * se).exp(),
    };
    Ok(Some(FineGray {
        coef: beta,
        se,
        hr,
        p: chisq_upper((beta / se).powi(2), 1)?,
    }))
}

struct Model<'a> {
    tally: &'a [Tally],
    g_before: &'a [f64],
}

/// Per distinct time: the weighted risk set's S0 and S1, the events of interest there, and
/// P0, P1: the sums of e^{βx}/G(T−) (and × x) over competing events before the time.
struct RiskSums {
    s0: f64,
    s1: f64,
    d1: usize,
    p0: f64,
    p1: f64,
    at_risk: usize,
}

impl Model<'_> {
    /// The weighted risk set at each time: those still observed (weight 1) and those who had
    /// a competing event before, weighted G(t−)/G(their time−).
    fn risk_sums(&self, beta: f64) -> Vec<RiskSums> {
        let e1 = beta.exp();
        let mut later = [0usize; 2];
        for l in self.tally {
            for (a, n) in later.iter_mut().enumerate() {
                *n += l.d[a].iter().sum::<usize>();
            }
        }
        let mut competing = [0.0f64; 2];
        let mut out = Vec::with_capacity(self.tally.len());
        for (l, &g) in self.tally.iter().zip(self.g_before) {
            let p0 = competing[0] + competing[1] * e1;
            let p1 = competing[1] * e1;
            out.push(RiskSums {
                s0: later[0] as f64 + later[1] as f64 * e1 + g * p0,
                s1: later[1] as f64 * e1 + g * p1,
                d1: l.d[0][EVENT as usize] + l.d[1][EVENT as usize],
                p0,
                p1,
                at_risk: later[0] + later[1],
            });
            for (a, n) in later.iter_mut().enumerate() {
                *n -= l.d[a].iter().sum::<usize>();
                competing[a] += l.d[a][COMPETING as usize] as f64 / g;
            }
        }
        out
    }

    /// The score and information of the partial likelihood at `beta` (Breslow ties).
    fn score_info(&self, beta: f64) -> (f64, f64) {
        let (mut score, mut info) = (0.0, 0.0);
        for (l, r) in self.tally.iter().zip(self.risk_sums(beta)) {
            if r.d1 == 0 {
                continue;
            }
            let mean = r.s1 / r.s0;
            score += l.d[1][EVENT as usize] as f64 - r.d1 as f64 * mean;
            info += r.d1 as f64 * (mean - mean * mean);
        }
        (score, info)
    }

    /// Σ over subjects of (η + ψ)²: each subject's score residual η and the term ψ for the
    /// censoring distribution being estimated (Fine and Gray 1999), as `crr`'s variance.
    fn sandwich_meat(&self, beta: f64) -> f64 {
        let sums = self.risk_sums(beta);
        let e = [1.0, beta.exp()];
        let k = sums.len();
        // Running sums over event times ≤ l: d1/S0, d1·x̄/S0, and the same × G(t−).
        let (mut a, mut b, mut ag, mut bg) =
            (vec![0.0; k], vec![0.0; k], vec![0.0; k], vec![0.0; k]);
        let (mut sa, mut sb, mut sag, mut sbg) = (0.0, 0.0, 0.0, 0.0);
        for (l, (r, &g)) in sums.iter().zip(self.g_before).enumerate() {
            if r.d1 > 0 {
                let w = r.d1 as f64 / r.s0;
                let mean = r.s1 / r.s0;
                sa += w;
                sb += w * mean;
                sag += w * g;
                sbg += w * g * mean;
            }
            (a[l], b[l], ag[l], bg[l]) = (sa, sb, sag, sbg);
        }
        let mut meat = 0.0;
        let mut censoring = 0.0; // the running −Σ c·q/Y² of ψ
        for (m, (l, r)) in self.tally.iter().zip(&sums).enumerate() {
            let g = self.g_before[m];
            let (ag_before, bg_before) = match m.checked_sub(1) {
                Some(j) => (ag[j], bg[j]),
                None => (0.0, 0.0),
            };
            let q = r.p1 * (sag - ag_before) - r.p0 * (sbg - bg_before);
            let y = r.at_risk as f64;
            let censored = l.d[0][CENSORED as usize] + l.d[1][CENSORED as usize];
            censoring -= censored as f64 * q / (y * y);
            let mean_here = if r.d1 > 0 { r.s1 / r.s0 } else { 0.0 };
            for (arm, x) in [(0usize, 0.0), (1, 1.0)] {
                for status in [CENSORED, EVENT, COMPETING] {
                    let count = l.d[arm][status as usize];
                    if count == 0 {
                        continue;
                    }
                    let mut eta = -e[arm] * (x * a[m] - b[m]);
                    if status == EVENT {
                        eta += x - mean_here;
                    }
                    if status == COMPETING {
                        eta -= e[arm] / g * (x * (sag - ag[m]) - (sbg - bg[m]));
                    }
                    let mut psi = censoring;
                    if status == CENSORED {
                        psi += q / y;
                    }
                    meat += count as f64 * (eta + psi) * (eta + psi);
                }
            }
        }
        meat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incidence_by_hand_and_bad_input() {
        // 4 subjects: event at 1, competing at 2, censored at 3, event at 4.
        let fit = aalen_johansen(&[1.0, 2.0, 3.0, 4.0], &[1, 2, 0, 1]).unwrap();
        let f: Vec<f64> = fit.steps().iter().map(|s| s.estimate).collect();
        // S(1−) = 1, dF = 1/4; S(4−) = 3/4 · 2/3 = 1/2, dF = 1/2 · 1/1.
        assert_eq!(f, vec![0.25, 0.25, 0.25, 0.75]);
        let before = fit.at(0.5, 0.95).unwrap();
        assert_eq!(
            (before.estimate, before.n_risk, before.lower),
            (0.0, 4, None)
        );
        assert!(aalen_johansen(&[1.0], &[3]).is_err());
        assert!(aalen_johansen(&[1.0, 2.0], &[1]).is_err());
        assert!(gray_test(&[1.0, 2.0], &[1, 1], &[true]).is_err());
        // No event of interest in an arm: no Fine–Gray model.
        let none = fine_gray(&[1.0, 2.0, 3.0], &[1, 2, 0], &[false, true, true], 0.95).unwrap();
        assert!(none.is_none());
    }

    #[test]
    fn every_subject_with_the_event_ends_at_exactly_one() {
        // Without competing events the incidence is 1 − KM; summed step by step over 27
        // distinct event times it came to 1.0000000000000007, which figures refuse.
        let time: Vec<f64> = (1..=27).map(f64::from).collect();
        let fit = aalen_johansen(&time, &[EVENT; 27]).unwrap();
        let last = fit.steps().last().unwrap().estimate;
        assert_eq!(last, 1.0);
        assert!(fit
            .steps()
            .iter()
            .all(|s| (0.0..=1.0).contains(&s.estimate)));
        // Each step is still 1 − KM (k/27 after the k-th event) to rounding.
        for (k, s) in fit.steps().iter().enumerate() {
            assert!((s.estimate - (k + 1) as f64 / 27.0).abs() < 1e-15);
        }
    }

    #[test]
    fn the_band_in_one_pass_equals_each_step_on_its_own() {
        // 200 subjects with ties, censoring and both kinds of event, from a fixed sequence.
        let mut x: u64 = 12_345;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            x >> 33
        };
        let (mut time, mut status) = (Vec::new(), Vec::new());
        for _ in 0..200 {
            time.push((next() % 60) as f64 / 2.0);
            status.push((next() % 3) as u8);
        }
        let fit = aalen_johansen(&time, &status).unwrap();
        let all = fit.std_errs();
        assert_eq!(all.len(), fit.steps().len());
        for (at, se) in all.iter().enumerate() {
            let one = fit.std_err_at(at);
            assert!(
                (se - one).abs() <= 1e-12 + 1e-9 * one,
                "step {at}: {se} vs {one}"
            );
        }
        let band = fit.band(0.95).unwrap();
        for (s, (lower, upper)) in fit.steps().iter().zip(&band) {
            let at = fit.at(s.time, 0.95).unwrap();
            assert_eq!(
                (at.lower.is_some(), at.upper.is_some()),
                (lower.is_some(), upper.is_some())
            );
            if let (Some(l), Some(a)) = (lower, at.lower) {
                assert!((l - a).abs() < 1e-9);
            }
        }
        assert!(all.iter().any(|se| *se > 0.01));
    }
}

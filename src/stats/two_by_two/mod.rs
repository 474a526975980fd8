//! Two proportions compared (response rates of an arm against a reference arm): the difference
//! with Newcombe hybrid-score, Wald and Miettinen–Nurminen intervals, the difference over strata
//! with its stratified Miettinen–Nurminen interval, the odds ratio with its Wald interval,
//! Pearson's chi-square test, Fisher's exact test and the Cochran–Mantel–Haenszel test over
//! strata.
//!
//! Each value agrees with R 4.2: `prop.test(correct = FALSE)` (chi-square), `fisher.test`
//! (two-sided, 2×2) and `mantelhaen.test(correct = FALSE)` (2×2×K); the Newcombe interval is
//! method 10 of Newcombe (1998), built from [`wilson`] intervals without continuity correction;
//! the Miettinen–Nurminen intervals agree with the base-R implementation and the published
//! numbers of `tests/reference/mn` (see [`stratified_mn`] for the variant).
//! Quantities R would report as 0, ∞ or NaN (an odds ratio with an empty cell, a chi-square with
//! an empty margin) are `None` here: not estimable.
//!
//! Everything is a function of counts: no data, no arms or endpoints by name.

use serde::Serialize;

use super::binomial::wilson;
use super::chisq::chisq_upper;
use super::interval::{Ci, Interval};
use super::normal::z_for_level;
use super::StatsError;

/// Responders `x` among `n` subjects of one arm (or of one arm within one stratum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Responders (successes).
    pub x: usize,
    /// Subjects (trials).
    pub n: usize,
}

impl Counts {
    /// Non-responders, `n − x` (0 when the counts are invalid, x > n).
    fn failures(self) -> usize {
        self.n.saturating_sub(self.x)
    }

    /// Accepts `x ≤ n`; `n = 0` only when `allow_empty`.
    fn check(self, allow_empty: bool) -> Result<(), StatsError> {
        if self.n == 0 && !allow_empty {
            Err(StatsError::NoTrials)
        } else if self.x > self.n {
            Err(StatsError::SuccessesExceedTrials {
                successes: self.x,
                trials: self.n,
            })
        } else {
            Ok(())
        }
    }
}

/// An arm's proportion compared with the reference arm's, built by [`compare_proportions`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProportionComparison {
    /// p₁ − p₀: the arm's proportion minus the reference's.
    pub difference: f64,
    /// Newcombe's hybrid-score interval for the difference (Newcombe 1998, method 10); its
    /// limits lie in [−1, 1].
    pub newcombe: Interval,
    /// The Wald interval for the difference, d ± z·√(p₁(1 − p₁)/n₁ + p₀(1 − p₀)/n₀), not
    /// clipped to [−1, 1].
    pub wald: Interval,
    /// The Miettinen–Nurminen score interval for the difference ([`miettinen_nurminen`]); its
    /// limits lie in [−1, 1].
    pub mn: Interval,
    /// The odds ratio (x₁/(n₁ − x₁)) / (x₀/(n₀ − x₀)) with its Wald interval
    /// exp(log OR ± z·√(1/a + 1/b + 1/c + 1/d)). `None` (not estimable) when any of the four
    /// cells is 0, where R's value is 0, ∞ or NaN.
    pub odds_ratio: Option<Ci>,
    /// Pearson's chi-square test without continuity correction, 1 df, as
    /// `prop.test(c(x1, x0), c(n1, n0), correct = FALSE)$p.value`. `None` when a margin of the
    /// 2×2 table is 0 (no responders at all, or all responders), where R gives NaN.
    pub p_chisq: Option<f64>,
    /// Fisher's exact test, two-sided, as `fisher.test` ([`fisher_exact`]).
    pub p_fisher: f64,
    /// The smallest expected count of the 2×2 table under independence (row total × column
    /// total / N): below 5, the chi-square approximation is poor (Cochran's rule).
    pub min_expected: f64,
}

/// Compares `arm` (x₁ of n₁) with `reference` (x₀ of n₀) at the confidence level `level`:
/// the difference of proportions with its Newcombe, Wald and Miettinen–Nurminen intervals, the
/// odds ratio, and the chi-square and Fisher p-values (see [`ProportionComparison`]).
///
/// # Errors
/// [`StatsError::NoTrials`] when an arm has no subjects, [`StatsError::SuccessesExceedTrials`]
/// when x > n, [`StatsError::InvalidLevel`] unless `0 < level < 1`.
pub fn compare_proportions(
    arm: Counts,
    reference: Counts,
    level: f64,
) -> Result<ProportionComparison, StatsError> {
    arm.check(false)?;
    reference.check(false)?;
    let z = z_for_level(level)?;

    let (x1, n1) = (arm.x as f64, arm.n as f64);
    let (x0, n0) = (reference.x as f64, reference.n as f64);
    let (p1, p0) = (x1 / n1, x0 / n0);
    let difference = p1 - p0;

    let w1 = wilson(arm.x, arm.n, level)?;
    let w0 = wilson(reference.x, reference.n, level)?;
    let newcombe = Interval {
        lower: difference - ((p1 - w1.lower).powi(2) + (w0.upper - p0).powi(2)).sqrt(),
        upper: difference + ((w1.upper - p1).powi(2) + (p0 - w0.lower).powi(2)).sqrt(),
    };

    let se = (p1 * (1.0 - p1) / n1 + p0 * (1.0 - p0) / n0).sqrt();
    let wald = Interval {
        lower: difference - z * se,
        upper: difference + z * se,
    };

    let mn = score_interval(&[MnStratum::of(arm, reference, 1.0)], difference, z);

    let table = Table::of(arm, reference);
    let (responders, all) = (x1 + x0, n1 + n0);
    let min_expected = [n1, n0]
        .iter()
        .flat_map(|n| [n * responders / all, n * (all - responders) / all])
        .fold(f64::INFINITY, f64::min);
    Ok(ProportionComparison {
        min_expected,
        difference,
        newcombe,
        wald,
        mn,
        odds_ratio: table.odds_ratio(z),
        p_chisq: table.pearson_p(),
        p_fisher: table.fisher_p(),
    })
}

/// The two-sided p-value of Fisher's exact test for the 2×2 table `[[a, b], [c, d]]`, as R's
/// `fisher.test(matrix(c(a, c, b, d), 2))$p.value`: the total probability, under the
/// hypergeometric distribution of tables with the same margins, of the tables no more likely
/// than the observed one (up to R's relative fuzz of 1e-7).
///
/// (For response rates: a = arm responders, b = arm non-responders, c and d the same for the
/// reference arm. The p-value does not change when the table is transposed.)
///
/// The probabilities are computed in log space relative to the mode, from the ratios of
/// neighbouring tables (summed with compensation), so the p-value is accurate to ~1e-12
/// relative for tables of tens of thousands of subjects; time is linear in the smaller margin
/// and nothing is allocated. A table with an empty margin (one possible table) gives 1.
/// Where R's p-value underflows to 0 (below ~1e-308 relative to the most likely table) this
/// one does as well.
pub fn fisher_exact(a: usize, b: usize, c: usize, d: usize) -> f64 {
    Table {
        a: a as u128,
        b: b as u128,
        c: c as u128,
        d: d as u128,
    }
    .fisher_p()
}

/// The Cochran–Mantel–Haenszel test over strata, as [`cmh`] gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CmhTest {
    /// The p-value; `None` (not estimable) when the summed variance is 0, e.g. when no stratum
    /// has both arms.
    pub p: Option<f64>,
    /// The strata left out, by position in the input: those with an empty arm (every stratum
    /// of fewer than 2 subjects among them), which carry no information.
    pub dropped: Vec<usize>,
}

/// The Cochran–Mantel–Haenszel test without continuity correction over K strata of 2×2
/// tables, its p-value as `mantelhaen.test(x, correct = FALSE)$p.value` for a 2×2×K table:
/// each element of `strata` is one stratum's `(arm, reference)` counts.
///
/// The statistic is (Σₖ (aₖ − E(aₖ)))² / Σₖ Var(aₖ) with E(aₖ) = n₁ₖm₁ₖ/Nₖ and
/// Var(aₖ) = n₁ₖn₀ₖm₁ₖm₀ₖ / (Nₖ²(Nₖ − 1)) (n the arm sizes, m the responder and non-responder
/// totals, N the stratum size), referred to the chi-square distribution with 1 df.
///
/// A stratum with an empty arm is left out and listed in [`CmhTest::dropped`], so that the
/// caller can say so: it adds 0 to both sums, as in R (which stops with "sample size in each
/// stratum must be > 1" on a stratum of one subject instead). A stratum with only responders
/// or only non-responders contributes 0 to both sums, as in R.
///
/// # Errors
/// [`StatsError::SuccessesExceedTrials`] when a stratum's x > n. Arms with n = 0 are allowed.
pub fn cmh(strata: &[(Counts, Counts)]) -> Result<CmhTest, StatsError> {
    let mut delta = 0.0;
    let mut variance = 0.0;
    let mut dropped = Vec::new();
    for (k, &(arm, reference)) in strata.iter().enumerate() {
        arm.check(true)?;
        reference.check(true)?;
        if arm.n == 0 || reference.n == 0 {
            dropped.push(k);
            continue;
        }
        let t = Table::of(arm, reference);
        let n = t.total() as f64;
        // a − n₁m₁/N = (ad − bc)/N, with the numerator exact in integers.
        delta += t.cross_difference() / n;
        let margins = t.row1() as f64 * t.row2() as f64 * t.col1() as f64 * t.col2() as f64;
        variance += margins / (n * n * (n - 1.0));
    }
    let p = if variance.is_nan() || variance <= 0.0 {
        None
    } else {
        Some(chisq_upper(delta * delta / variance, 1)?)
    };
    Ok(CmhTest { p, dropped })
}

/// The Miettinen–Nurminen (1985) score interval for p₁ − p₀ (`arm` minus `reference`) at the
/// confidence level `level`, as SAS PROC FREQ's `RISKDIFF(CL=MN)`: the δ on either side of
/// d = x₁/n₁ − x₀/n₀ where (d − δ)² / Ṽ(δ) = z², Ṽ(δ) being MN's variance at the restricted
/// maximum-likelihood estimates under p₁ − p₀ = δ, with the factor N/(N − 1)
/// ([`stratified_mn`] of one stratum; the formulas are there). Its limits lie in [−1, 1].
///
/// # Errors
/// As [`compare_proportions`].
pub fn miettinen_nurminen(
    arm: Counts,
    reference: Counts,
    level: f64,
) -> Result<Interval, StatsError> {
    arm.check(false)?;
    reference.check(false)?;
    let z = z_for_level(level)?;
    let stratum = MnStratum::of(arm, reference, 1.0);
    Ok(score_interval(&[stratum], stratum.difference, z))
}

/// The common difference of proportions over strata with its stratified Miettinen–Nurminen
/// interval ([`stratified_mn`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StratifiedDifference {
    /// The common difference (arm minus reference) and its interval; `None` (not estimable)
    /// when no stratum has both arms.
    pub difference: Option<Ci>,
    /// The strata left out, by position in the input: those with an empty arm, which carry no
    /// information about the difference.
    pub dropped: Vec<usize>,
}

/// The common difference p₁ − p₀ over strata (each element of `strata` one stratum's
/// `(arm, reference)` counts) with its stratified Miettinen–Nurminen score interval at the
/// confidence level `level`: the stratified score method of Miettinen and Nurminen (1985) with
/// Cochran–Mantel–Haenszel stratum weights, the method of SAS PROC FREQ's
/// `COMMONRISKDIFF(CL=MNMH)` (docs/OUTPUTS.md; `CL=MN` weights strata otherwise), and of
/// cicalc's `ci_prop_diff_mn_strata(method = "score")` and lrstat's `mnRiskDiffCI`.
///
/// For each stratum h with both arms, of sizes n₁ₕ and n₀ₕ (Nₕ together):
/// - the difference dₕ = x₁ₕ/n₁ₕ − x₀ₕ/n₀ₕ and the weight wₕ = n₁ₕn₀ₕ/(n₁ₕ + n₀ₕ), fixed
///   (not re-estimated with δ);
/// - for a candidate δ, the restricted maximum-likelihood estimates p̃₀ₕ and p̃₁ₕ = p̃₀ₕ + δ:
///   p̃₀ₕ is the root in [max(0, −δ), min(1, 1 − δ)] of MN's cubic
///   L₃p³ + L₂p² + L₁p + L₀ = 0 with L₃ = N, L₂ = (n₁ + 2n₀)δ − N − x, L₁ = n₀δ² −
///   (N + 2x₀)δ + x, L₀ = x₀δ(1 − δ) (x = x₁ + x₀), in closed form: with
///   c = L₂/(3L₃), q = c³ − L₁L₂/(6L₃²) + L₀/(2L₃), r = sign(q)·√(c² − L₁/(3L₃)) and
///   a = (π + acos(q/r³))/3, p̃₀ = 2r·cos(a) − c (the trigonometric root of Miettinen and
///   Nurminen's appendix, as in Farrington and Manning 1990);
/// - MN's variance Ṽₕ(δ) = [p̃₁ₕ(1 − p̃₁ₕ)/n₁ₕ + p̃₀ₕ(1 − p̃₀ₕ)/n₀ₕ]·Nₕ/(Nₕ − 1).
///
/// The estimate is d̂ = Σ wₕdₕ / Σ wₕ; the limits are the δ below and above d̂ where
/// [Σ wₕ(dₕ − δ)]² / Σ wₕ²Ṽₕ(δ) = z², found by bisection to 1e-15 (δ = ±1 lies outside,
/// d̂ inside). With one stratum the weights cancel: the unstratified interval,
/// [`miettinen_nurminen`].
///
/// Not the "summary score" estimate of older SAS releases (Agresti 2013: the midpoints of the
/// strata's MN intervals weighted by their widths), nor MN's own weights from the strata's
/// variances: the Cochran–Mantel–Haenszel weights are those of the CMH test the difference is
/// printed beside, and do not change with δ.
///
/// A stratum with an empty arm is left out and listed in [`StratifiedDifference::dropped`].
///
/// # Errors
/// [`StatsError::SuccessesExceedTrials`] when a stratum's x > n, [`StatsError::InvalidLevel`]
/// unless `0 < level < 1`. Arms with n = 0 are allowed.
pub fn stratified_mn(
    strata: &[(Counts, Counts)],
    level: f64,
) -> Result<StratifiedDifference, StatsError> {
    stratified_score(strata, level, |n1, n0| n1 * n0 / (n1 + n0))
}

/// [`stratified_mn`] with the stratum weights `weight(n₁ₕ, n₀ₕ)`.
fn stratified_score(
    strata: &[(Counts, Counts)],
    level: f64,
    weight: impl Fn(f64, f64) -> f64,
) -> Result<StratifiedDifference, StatsError> {
    let z = z_for_level(level)?;
    let mut kept = Vec::with_capacity(strata.len());
    let mut dropped = Vec::new();
    for (h, &(arm, reference)) in strata.iter().enumerate() {
        arm.check(true)?;
        reference.check(true)?;
        if arm.n == 0 || reference.n == 0 {
            dropped.push(h);
        } else {
            kept.push(MnStratum::of(
                arm,
                reference,
                weight(arm.n as f64, reference.n as f64),
            ));
        }
    }
    let difference = (!kept.is_empty()).then(|| {
        let total: f64 = kept.iter().map(|s| s.weight).sum();
        let estimate =
            (kept.iter().map(|s| s.weight * s.difference).sum::<f64>() / total).clamp(-1.0, 1.0);
        let interval = score_interval(&kept, estimate, z);
        Ci {
            estimate,
            lower: interval.lower,
            upper: interval.upper,
        }
    });
    Ok(StratifiedDifference {
        difference,
        dropped,
    })
}

/// One stratum (or the whole table) of a Miettinen–Nurminen score interval: counts as numbers,
/// its weight and its difference of proportions.
#[derive(Debug, Clone, Copy)]
struct MnStratum {
    x1: f64,
    n1: f64,
    x0: f64,
    n0: f64,
    weight: f64,
    difference: f64,
}

impl MnStratum {
    /// The stratum of `arm` and `reference` (both with subjects) with the weight `weight`.
    fn of(arm: Counts, reference: Counts, weight: f64) -> MnStratum {
        let (x1, n1) = (arm.x as f64, arm.n as f64);
        let (x0, n0) = (reference.x as f64, reference.n as f64);
        MnStratum {
            x1,
            n1,
            x0,
            n0,
            weight,
            difference: x1 / n1 - x0 / n0,
        }
    }

    /// The restricted maximum-likelihood estimates (p̃₁, p̃₀) under p₁ − p₀ = `delta`: MN's
    /// cubic in p̃₀ solved in closed form (see [`stratified_mn`]), kept in its range against
    /// rounding.
    fn restricted(&self, delta: f64) -> (f64, f64) {
        let (n1, n0, x0) = (self.n1, self.n0, self.x0);
        let (n, x) = (n1 + n0, self.x1 + x0);
        let l3 = n;
        let l2 = (n1 + 2.0 * n0) * delta - n - x;
        let l1 = (n0 * delta - n - 2.0 * x0) * delta + x;
        let l0 = x0 * delta * (1.0 - delta);
        let c = l2 / (3.0 * l3);
        let q = c * c * c - l1 * l2 / (6.0 * l3 * l3) + l0 / (2.0 * l3);
        // sign(q) does not matter when q = 0: acos(0) makes the cosine 0 either way.
        let r = (c * c - l1 / (3.0 * l3)).max(0.0).sqrt().copysign(q);
        let p0 = if r == 0.0 {
            -c
        } else {
            let a = (std::f64::consts::PI + (q / (r * r * r)).clamp(-1.0, 1.0).acos()) / 3.0;
            2.0 * r * a.cos() - c
        };
        let p0 = p0.clamp((-delta).max(0.0), (1.0 - delta).min(1.0));
        (p0 + delta, p0)
    }

    /// MN's variance of the difference at the restricted estimates under `delta`, with the
    /// factor N/(N − 1).
    fn variance(&self, delta: f64) -> f64 {
        let (p1, p0) = self.restricted(delta);
        let n = self.n1 + self.n0;
        (p1 * (1.0 - p1) / self.n1 + p0 * (1.0 - p0) / self.n0) * n / (n - 1.0)
    }
}

/// The limits around `estimate` where the squared stratified score statistic
/// [Σ w(d − δ)]² / Σ w²Ṽ(δ) crosses z²; ±1 where the estimate is ±1.
fn score_interval(strata: &[MnStratum], estimate: f64, z: f64) -> Interval {
    let z2 = z * z;
    // Compared as score² > z²·variance: a variance of 0 is outside unless the score is 0.
    let outside = |delta: f64| {
        let (mut score, mut variance) = (0.0, 0.0);
        for s in strata {
            score += s.weight * (s.difference - delta);
            variance += s.weight * s.weight * s.variance(delta);
        }
        score * score > z2 * variance
    };
    let limit = |end: f64| {
        if estimate == end {
            return end;
        }
        // Bisection between `end` (outside) and the estimate (inside).
        let (mut out, mut inside) = (end, estimate);
        while (out - inside).abs() > 1e-15 {
            let mid = 0.5 * (out + inside);
            if mid == out || mid == inside {
                break;
            }
            if outside(mid) {
                out = mid;
            } else {
                inside = mid;
            }
        }
        0.5 * (out + inside)
    };
    Interval {
        lower: limit(-1.0),
        upper: limit(1.0),
    }
}

/// A 2×2 table `[[a, b], [c, d]]`: rows the arm and the reference, columns responders and
/// non-responders. Wide integers, so that no margin overflows.
#[derive(Debug, Clone, Copy)]
struct Table {
    a: u128,
    b: u128,
    c: u128,
    d: u128,
}

impl Table {
    fn of(arm: Counts, reference: Counts) -> Table {
        Table {
            a: arm.x as u128,
            b: arm.failures() as u128,
            c: reference.x as u128,
            d: reference.failures() as u128,
        }
    }

    fn row1(&self) -> u128 {
        self.a + self.b
    }

    fn row2(&self) -> u128 {
        self.c + self.d
    }

    fn col1(&self) -> u128 {
        self.a + self.c
    }

    fn col2(&self) -> u128 {
        self.b + self.d
    }

    fn total(&self) -> u128 {
        self.row1() + self.row2()
    }

    /// ad − bc, exact in integers and then rounded once.
    fn cross_difference(&self) -> f64 {
        let (ad, bc) = (self.a * self.d, self.b * self.c);
        if ad >= bc {
            (ad - bc) as f64
        } else {
            -((bc - ad) as f64)
        }
    }

    /// The odds ratio ad/(bc) with its Wald interval on the log scale; `None` with a zero cell.
    fn odds_ratio(&self, z: f64) -> Option<Ci> {
        if self.a == 0 || self.b == 0 || self.c == 0 || self.d == 0 {
            return None;
        }
        let (a, b, c, d) = (self.a as f64, self.b as f64, self.c as f64, self.d as f64);
        let estimate = (a * d) / (b * c);
        let se = (1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d).sqrt();
        let log_or = estimate.ln();
        Some(Ci {
            estimate,
            lower: (log_or - z * se).exp(),
            upper: (log_or + z * se).exp(),
        })
    }

    /// Pearson's X² = N(ad − bc)² / (row₁ row₂ col₁ col₂), 1 df, upper tail. `None` with an
    /// empty margin.
    fn pearson_p(&self) -> Option<f64> {
        let margins =
            self.row1() as f64 * self.row2() as f64 * self.col1() as f64 * self.col2() as f64;
        if margins.is_nan() || margins <= 0.0 {
            return None;
        }
        let cross = self.cross_difference();
        let statistic = self.total() as f64 * cross * cross / margins;
        chisq_upper(statistic, 1).ok()
    }

    /// Two-sided Fisher p-value (see [`fisher_exact`]).
    fn fisher_p(&self) -> f64 {
        let support = Support::of(self);
        if support.lo >= support.hi {
            return 1.0;
        }
        // Pass 1: the log weight of the observed table and the largest one.
        let (mut observed, mut max) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        support.walk(|x, l| {
            if x == self.a {
                observed = l;
            }
            max = max.max(l);
        });
        if !observed.is_finite() || !max.is_finite() {
            // Unreachable: the observed table is in the support and the walk visits it.
            return 1.0;
        }
        // Pass 2: the tables at most as likely as the observed one, relative to it, and all
        // tables relative to the most likely one. R: d <= d[obs] * (1 + 1e-7).
        let threshold = observed + 1e-7_f64.ln_1p();
        let (mut tail, mut all) = (0.0, 0.0);
        support.walk(|_, l| {
            all += (l - max).exp();
            if l <= threshold {
                tail += (l - observed).exp();
            }
        });
        let p = (observed - max + tail.ln() - all.ln()).exp();
        if p.is_finite() {
            p.min(1.0)
        } else {
            1.0
        }
    }
}

/// The hypergeometric distribution of the top-left cell given the margins of a 2×2 table.
struct Support {
    /// Smallest possible top-left cell.
    lo: u128,
    /// Largest possible top-left cell.
    hi: u128,
    /// Where the walk starts: a mode (clamped to [lo, hi]), so that log weights stay small
    /// where they matter.
    start: u128,
    row1: u128,
    row2: u128,
    col1: u128,
}

impl Support {
    fn of(t: &Table) -> Support {
        let (row1, row2, col1) = (t.row1(), t.row2(), t.col1());
        let lo = col1.saturating_sub(row2);
        let hi = row1.min(col1);
        // floor((row1 + 1)(col1 + 1)/(N + 2)) is a mode; in floating point, since any start
        // near the mode will do (the float-to-integer cast saturates).
        let mode = ((row1 as f64 + 1.0) * (col1 as f64 + 1.0) / (t.total() as f64 + 2.0)).floor();
        let start = (mode as u128).clamp(lo, hi);
        Support {
            lo,
            hi,
            start,
            row1,
            row2,
            col1,
        }
    }

    /// Calls `visit(x, l)` for every x in [lo, hi], where l is the log of P(x)/P(start),
    /// accumulated from the ratios of neighbouring probabilities. Deterministic: two walks give
    /// identical values.
    fn walk(&self, mut visit: impl FnMut(u128, f64)) {
        // The cells of the table with top-left x: b = row1 − x, c = col1 − x,
        // d = row2 − col1 + x (≥ 0 for x ≥ lo).
        let cells = |x: u128| {
            (
                x as f64,
                (self.row1 - x) as f64,
                (self.col1 - x) as f64,
                ((self.row2 + x) - self.col1) as f64,
            )
        };
        visit(self.start, 0.0);
        let mut log = Compensated::default();
        let mut x = self.start;
        while x < self.hi {
            // P(x + 1)/P(x) = b·c / ((a + 1)(d + 1)).
            let (a, b, c, d) = cells(x);
            log.add(((b * c) / ((a + 1.0) * (d + 1.0))).ln());
            x += 1;
            visit(x, log.value());
        }
        let mut log = Compensated::default();
        let mut x = self.start;
        while x > self.lo {
            // P(x − 1)/P(x) = a·d / ((b + 1)(c + 1)).
            let (a, b, c, d) = cells(x);
            log.add(((a * d) / ((b + 1.0) * (c + 1.0))).ln());
            x -= 1;
            visit(x, log.value());
        }
    }
}

/// Neumaier's compensated sum: the rounding errors of a long running sum kept aside.
#[derive(Debug, Default)]
struct Compensated {
    sum: f64,
    compensation: f64,
}

impl Compensated {
    fn add(&mut self, term: f64) {
        let t = self.sum + term;
        self.compensation += if self.sum.abs() >= term.abs() {
            (self.sum - t) + term
        } else {
            (term - t) + self.sum
        };
        self.sum = t;
    }

    fn value(&self) -> f64 {
        self.sum + self.compensation
    }
}
#[cfg(test)]
mod tests;

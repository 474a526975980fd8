//! The test of the arm's interaction with a factor (a subgroup column): the likelihood-ratio
//! test of the Cox model `arm + factor + arm:factor` against `arm + factor`, with the same
//! ties and strata, as R gives it with `anova(coxph(...), coxph(...))` (survival 3.5).
//!
//! Both models are fitted over one view of the sorted two-arm data ([`ArmTimes`]): the
//! subjects with a level (and a stratum, stratified). Every covariate is 0 or 1 and a subject's
//! covariates are those of its class (its level and arm), so a risk set is a count per class
//! and a pass costs a few operations per row and per death, plus the square of the columns
//! per event time and stratum (Efron's sums over the deaths are scalars). The fit is
//! `coxph`'s: Newton–Raphson from β = 0 with step halving, a column whose pivot in the
//! information falls below `toler.chol` (2^-39) of the largest diagonal left out of the step
//! (at β = 0: an aliased column, dropped, as R reports it `NA`), 0/1 columns not centred.
//!
//! A likelihood without a maximum (a level with events in one arm only, or none) still has a
//! supremum, which the iterations reach to double precision: the statistic is taken there, and
//! agrees with R's, which stops with a large coefficient. The degrees of freedom are the
//! interaction columns not aliased at β = 0, as `anova` counts R's coefficients that are not
//! `NA` after its default iterations (docs/OUTPUTS.md).

use std::collections::BTreeMap;

use super::arms::{ArmModel, ArmTimes, Row};
use super::chisq::chisq_upper;
use super::cox::Ties;
use super::error::StatsError;

/// Most levels a factor may have for the test: a pass costs the square of the columns per
/// event time, and a forest plot of more levels is not read.
pub const MAX_LEVELS: usize = 50;

/// Most risk-set counts (strata × classes) a pass keeps.
const MAX_CELLS: usize = 1 << 24;

/// Most Newton–Raphson iterations: a coefficient running off gains about 1 an iteration and
/// leaves the step after about 30.
const MAX_ITER: u32 = 200;

/// R's convergence tolerance (`coxph.control(eps)`), and its test of an infinite coefficient
/// (a step still above eps and √eps of the coefficient).
const EPS: f64 = 1e-9;

/// R's `coxph.control(toler.chol)`, `.Machine$double.eps^0.75`: a pivot below this share of
/// the information's largest diagonal is singular.
const TOLER_CHOL: f64 = 1.818_989_403_545_856_5e-12;

/// The likelihood-ratio test of the arm × factor interaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    /// Subjects in the models (those with a level, and with a stratum when stratified).
    pub n: usize,
    /// Levels with subjects in the models.
    pub levels: usize,
    /// The log partial likelihood of the model without and with the interaction, at its
    /// maximum or supremum; `None` when not estimable.
    pub loglik: Option<[f64; 2]>,
    /// Twice the difference of the log likelihoods; `None` when not estimable.
    pub chisq: Option<f64>,
    /// Degrees of freedom: the interaction columns not aliased (levels with subjects of both
    /// arms at risk, less one, in general).
    pub df: u32,
    /// The chi-square upper tail at `df`; `None` when not estimable.
    pub p: Option<f64>,
    /// Whether a likelihood has no maximum (a coefficient is infinite): the statistic is from
    /// its supremum.
    pub monotone: bool,
    /// Why there is no test, when there is none.
    pub not_estimable: Option<&'static str>,
}

impl ArmTimes {
    /// The interaction test of the arm with a factor: `level_of` gives the level (any number)
    /// of the subject at a position of those given, `None` to leave it out; `stratified` keeps
    /// a baseline hazard per stratum (subjects without one left out).
    ///
    /// # Errors
    /// [`StatsError::Numerical`] when the partial likelihood at β = 0 is not finite.
    pub fn interaction(
        &self,
        level_of: impl Fn(usize) -> Option<u32>,
        stratified: bool,
        ties: Ties,
    ) -> Result<Interaction, StatsError> {
        let model = self.model_where(|i| level_of(i).is_some(), stratified);
        let mut test = Interaction {
            n: model.n(),
            levels: 0,
            loglik: None,
            chisq: None,
            df: 0,
            p: None,
            monotone: false,
            not_estimable: None,
        };
        let Some(levels) = number_levels(&model, &level_of) else {
            test.not_estimable = Some("more than 50 levels");
            return Ok(test);
        };
        test.levels = levels.count;
        let why = if model.events == 0 {
            Some("no events")
        } else if levels.count < 2 {
            Some("fewer than two levels")
        } else if model.slots().saturating_mul(2 * levels.count) > MAX_CELLS {
            Some("too many strata for the levels")
        } else {
            None
        };
        if why.is_some() {
            test.not_estimable = why;
            return Ok(test);
        }
        let fitter = Fitter {
            model: &model,
            levels: &levels.of_row,
            ties,
        };
        let full = Design::interaction(levels.count);
        let at_zero = fitter.moments(&full, &vec![0.0; full.columns]);
        if !at_zero.usable() {
            return Err(StatsError::Numerical("the partial likelihood at β = 0"));
        }
        // Aliased columns (R's `NA`) are those singular at β = 0; the model without the
        // interaction is the first `levels` columns, so one factorisation serves both.
        let aliased = factor(&at_zero.information, full.columns).1;
        let main = levels.count;
        let keep_without: Vec<bool> = (0..full.columns).map(|j| j < main && !aliased[j]).collect();
        let keep_with: Vec<bool> = aliased.iter().map(|a| !a).collect();
        let added = keep_with[main..].iter().filter(|k| **k).count();
        test.df = u32::try_from(added).unwrap_or(u32::MAX);
        if added == 0 {
            test.not_estimable = Some("fewer than two levels with subjects of both arms at risk");
            return Ok(test);
        }
        // The two fits side by side, each from β = 0, where the moments are those above.
        let (without, with) = rayon::join(
            || fitter.fit(&full.select(&keep_without), at_zero.select(&keep_without)),
            || fitter.fit(&full.select(&keep_with), at_zero.select(&keep_with)),
        );
        let (without, with) = (without?, with?);
        let (Some(without), Some(with)) = (without, with) else {
            test.not_estimable = Some("the Newton–Raphson iterations did not converge");
            return Ok(test);
        };
        let chisq = (2.0 * (with.loglik - without.loglik)).max(0.0);
        test.loglik = Some([without.loglik, with.loglik]);
        test.chisq = Some(chisq);
        test.p = Some(chisq_upper(chisq, test.df)?);
        test.monotone = without.infinite || with.infinite;
        Ok(test)
    }
}

/// The model's rows' levels, numbered from 0 in the order of the numbers `level_of` gives.
struct Levels {
    count: usize,
    /// Each row's level, in the order the passes visit the rows.
    of_row: Vec<u8>,
}

/// Numbers the levels of the model's rows; `None` for more than [`MAX_LEVELS`].
fn number_levels(model: &ArmModel<'_>, level_of: &impl Fn(usize) -> Option<u32>) -> Option<Levels> {
    // Numbered as first seen, then renumbered in the levels' order.
    let mut seen: BTreeMap<u32, u8> = BTreeMap::new();
    let mut of_row = Vec::with_capacity(model.n());
    let mut last: Option<(u32, u8)> = None;
    for position in model.positions() {
        // The model holds only subjects with a level.
        let id = level_of(position).unwrap_or(u32::MAX);
        let number = match last {
            Some((l, number)) if l == id => number,
            _ => {
                let next = seen.len();
                let number = match seen.get(&id) {
                    Some(&number) => number,
                    None if next < MAX_LEVELS => {
                        let number = u8::try_from(next).ok()?;
                        seen.insert(id, number);
                        number
                    }
                    None => return None,
                };
                last = Some((id, number));
                number
            }
        };
        of_row.push(number);
    }
    let mut order = vec![0u8; seen.len()];
    for (rank, number) in (0u8..).zip(seen.values()) {
        order[usize::from(*number)] = rank;
    }
    for level in &mut of_row {
        *level = order[usize::from(*level)];
    }
    Some(Levels {
        count: seen.len(),
        of_row,
    })
}

/// 0/1 covariates by class (class = level × 2 + arm): the columns each class has a 1 in.
#[derive(Debug, Clone, PartialEq)]
struct Design {
    /// Per class, its columns holding a 1, ascending.
    ones: Vec<Vec<usize>>,
    columns: usize,
}

impl Design {
    /// R's columns of `arm + factor + arm:factor` for `levels` levels (the first the
    /// reference): the arm, a column per other level, the arm in each other level.
    fn interaction(levels: usize) -> Design {
        let others = levels.saturating_sub(1);
        let ones = (0..levels)
            .flat_map(|level| {
                [false, true].map(|arm| {
                    let mut ones = Vec::with_capacity(3);
                    if arm {
                        ones.push(0);
                    }
                    if level > 0 {
                        ones.push(level);
                        if arm {
                            ones.push(others + level);
                        }
                    }
                    ones
                })
            })
            .collect();
        Design {
            ones,
            columns: 1 + 2 * others,
        }
    }

    /// The design of the columns `keep` says, renumbered.
    fn select(&self, keep: &[bool]) -> Design {
        let mut number = Vec::with_capacity(self.columns);
        let mut next = 0;
        for &k in keep {
            number.push(k.then_some(next));
            next += usize::from(k);
        }
        let ones = self
            .ones
            .iter()
            .map(|ones| ones.iter().filter_map(|&j| number[j]).collect())
            .collect();
        Design {
            ones,
            columns: next,
        }
    }
}

/// The log partial likelihood, score and information (p × p, row-major) at one β.
#[derive(Debug, Clone)]
struct Moments {
    loglik: f64,
    score: Vec<f64>,
    information: Vec<f64>,
}

impl Moments {
    /// The moments of the columns `keep` says.
    fn select(&self, keep: &[bool]) -> Moments {
        let kept: Vec<usize> = (0..keep.len()).filter(|&j| keep[j]).collect();
        let p = keep.len();
        Moments {
            loglik: self.loglik,
            score: kept.iter().map(|&j| self.score[j]).collect(),
            information: kept
                .iter()
                .flat_map(|&j| kept.iter().map(move |&l| (j, l)))
                .map(|(j, l)| self.information[j * p + l])
                .collect(),
        }
    }

    fn usable(&self) -> bool {
        self.loglik.is_finite()
            && self.score.iter().all(|x| x.is_finite())
            && self.information.iter().all(|x| x.is_finite())
    }
}

/// R's `cholesky2`: the information factored as L·D·L' (in one matrix, D on the diagonal),
/// without pivoting; a pivot below [`TOLER_CHOL`] of the largest diagonal (or not finite) is
/// singular: its column is left out (flagged, its L column zero).
fn factor(information: &[f64], p: usize) -> (Vec<f64>, Vec<bool>) {
    let mut a = information.to_vec();
    let largest = (0..p).map(|i| a[i * p + i]).fold(0.0f64, f64::max);
    let eps = if largest > 0.0 {
        largest * TOLER_CHOL
    } else {
        TOLER_CHOL
    };
    let mut singular = vec![false; p];
    for i in 0..p {
        let pivot = a[i * p + i];
        if !pivot.is_finite() || pivot < eps {
            singular[i] = true;
            a[i * p + i] = 0.0;
            for j in i + 1..p {
                a[j * p + i] = 0.0;
            }
            continue;
        }
        for j in i + 1..p {
            let temp = a[j * p + i] / pivot;
            a[j * p + i] = temp;
            a[j * p + j] -= temp * temp * pivot;
            for k in j + 1..p {
                a[k * p + j] -= temp * a[k * p + i];
            }
        }
    }
    (a, singular)
}

/// The Newton–Raphson step I⁻¹·U over the columns that are not singular (0 for those), and
/// whether some column is.
fn newton_step(m: &Moments, p: usize) -> (Vec<f64>, bool) {
    let (l, singular) = factor(&m.information, p);
    let mut y = m.score.clone();
    for i in 0..p {
        let mut temp = y[i];
        for j in 0..i {
            temp -= y[j] * l[i * p + j];
        }
        y[i] = temp;
    }
    for i in (0..p).rev() {
        if singular[i] {
            y[i] = 0.0;
            continue;
        }
        let mut temp = y[i] / l[i * p + i];
        for j in i + 1..p {
            temp -= y[j] * l[j * p + i];
        }
        y[i] = temp;
    }
    (y, singular.contains(&true))
}

/// A model fitted: its log likelihood at the maximum or supremum.
#[derive(Debug, Clone, Copy)]
struct Fitted {
    loglik: f64,
    /// Whether a coefficient runs off (the likelihood has no maximum).
    infinite: bool,
}

/// Neumaier's compensated sum.
#[derive(Debug, Clone, Copy, Default)]
struct Sum {
    sum: f64,
    compensation: f64,
}

impl Sum {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.compensation += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    fn total(&self) -> f64 {
        self.sum + self.compensation
    }
}

/// One time's deaths in a stratum: the r-th of d (r = 0, …, d − 1) sees the risk set less
/// the share r/d of the dying, a0 = u0 + w·d0 with w = 1 − r/d (Efron), or the whole risk set,
/// w = 1 (Breslow); the sums over the deaths of ln a0 and of w^k / a0^m.
#[derive(Debug, Clone, Copy)]
struct DeathSums {
    log: f64,
    /// Σ 1/a0 and Σ w/a0.
    g1: f64,
    h1: f64,
    /// Σ 1/a0², Σ w/a0² and Σ w²/a0².
    g2: f64,
    h2: f64,
    k2: f64,
}

impl DeathSums {
    fn of(u0: f64, d0: f64, deaths: f64, ties: Ties) -> DeathSums {
        match ties {
            Ties::Breslow => {
                let a0 = u0 + d0;
                let inverse = deaths / a0;
                let square = inverse / a0;
                DeathSums {
                    log: deaths * a0.ln(),
                    g1: inverse,
                    h1: inverse,
                    g2: square,
                    h2: square,
                    k2: square,
                }
            }
            Ties::Efron => {
                let mut t = DeathSums {
                    log: 0.0,
                    g1: 0.0,
                    h1: 0.0,
                    g2: 0.0,
                    h2: 0.0,
                    k2: 0.0,
                };
                // Counts are whole numbers far below 2^52.
                let d = deaths as u64;
                for r in 0..d {
                    let w = 1.0 - r as f64 / deaths;
                    let a0 = u0 + w * d0;
                    let inverse = 1.0 / a0;
                    let square = inverse * inverse;
                    t.log += a0.ln();
                    t.g1 += inverse;
                    t.h1 += w * inverse;
                    t.g2 += square;
                    t.h2 += w * square;
                    t.k2 += w * w * square;
                }
                t
            }
        }
    }
}

/// The two models' passes: the model's rows and each row's level.
#[derive(Clone, Copy)]
struct Fitter<'m, 'd> {
    model: &'m ArmModel<'d>,
    levels: &'m [u8],
    ties: Ties,
}

impl Fitter<'_, '_> {
    /// Fits `design` from β = 0, where its moments are `at_zero`; `None` when the iterations
    /// do not converge.
    fn fit(&self, design: &Design, at_zero: Moments) -> Result<Option<Fitted>, StatsError> {
        let p = design.columns;
        let mut beta = vec![0.0f64; p];
        let mut current = at_zero;
        if !current.usable() {
            return Err(StatsError::Numerical("the partial likelihood at β = 0"));
        }
        if p == 0 {
            return Ok(Some(Fitted {
                loglik: current.loglik,
                infinite: false,
            }));
        }
        let (mut iterations, mut flat) = (0u32, 0u32);
        loop {
            if iterations >= MAX_ITER {
                return Ok(None);
            }
            iterations += 1;
            let (step, _) = newton_step(&current, p);
            let mut next_beta: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b + s).collect();
            let mut next = self.moments(design, &next_beta);
            // Step halving, as coxph: a step that lowers the log likelihood (or leaves the
            // doubles) is halved back towards the last β.
            let mut halvings = 0;
            while !next.usable() || next.loglik < current.loglik - 1e-12 * current.loglik.abs() {
                halvings += 1;
                if halvings > 60 {
                    break;
                }
                for (n, b) in next_beta.iter_mut().zip(&beta) {
                    *n = (*n + b) / 2.0;
                }
                next = self.moments(design, &next_beta);
            }
            if !next.usable() {
                return Ok(None);
            }
            let moved = next_beta
                .iter()
                .zip(&beta)
                .map(|(n, b)| (n - b).abs() / (1.0 + n.abs()))
                .fold(0.0f64, f64::max);
            let gained = next.loglik - current.loglik;
            beta = next_beta;
            current = next;
            // Converged: a maximum, or a supremum once the columns running off have left the
            // step; or the log likelihood no longer changes in the doubles.
            if moved <= 1e-12 {
                break;
            }
            if gained.abs() <= 1e-14 * current.loglik.abs().max(1.0) {
                flat += 1;
                if flat >= 3 {
                    break;
                }
            } else {
                flat = 0;
            }
        }
        // R's test of an infinite coefficient: a step that would still move it; or a column
        // whose information has vanished on the way (it was not aliased at β = 0).
        let (step, singular) = newton_step(&current, p);
        let infinite = singular
            || step
                .iter()
                .zip(&beta)
                .any(|(s, b)| s.abs() > EPS && s.abs() > EPS.sqrt() * b.abs());
        Ok(Some(Fitted {
            loglik: current.loglik,
            infinite,
        }))
    }

    /// Log partial likelihood, score and information at `beta`: one pass over the rows, a risk
    /// set per stratum kept as a count per class, grown as the times descend.
    fn moments(&self, design: &Design, beta: &[f64]) -> Moments {
        let p = design.columns;
        let classes = design.ones.len();
        let eta: Vec<f64> = design
            .ones
            .iter()
            .map(|ones| ones.iter().map(|&j| beta[j]).sum())
            .collect();
        let risk: Vec<f64> = eta.iter().map(|e| e.exp()).collect();
        let mut m = Moments {
            loglik: 0.0,
            score: vec![0.0; p],
            information: vec![0.0; p * p],
        };
        let mut at_risk = vec![0.0f64; self.model.slots() * classes];
        // This time's deaths: the strata with some, and a count per class for each.
        let mut dead_strata: Vec<usize> = Vec::new();
        let mut dead: Vec<f64> = Vec::new();
        let (mut u1, mut d1) = (vec![0.0; p], vec![0.0; p]);
        // Millions of terms: summed with compensation, as the statistic is a difference of
        // two such sums.
        let mut loglik = Sum::default();
        let mut k = 0usize;
        self.model.for_each_time(|rows: &[Row]| {
            dead_strata.clear();
            dead.clear();
            for row in rows {
                // `levels` has one entry per row of the model, in this order; strata are
                // numbered below `slots()`.
                let class = usize::from(self.levels[k]) * 2 + usize::from(row.in_arm);
                k += 1;
                at_risk[row.stratum * classes + class] += 1.0;
                if row.event {
                    let slot = match dead_strata.iter().position(|&s| s == row.stratum) {
                        Some(slot) => slot,
                        None => {
                            dead_strata.push(row.stratum);
                            dead.resize(dead.len() + classes, 0.0);
                            dead_strata.len() - 1
                        }
                    };
                    dead[slot * classes + class] += 1.0;
                }
            }
            for (slot, &stratum) in dead_strata.iter().enumerate() {
                let n_c = &at_risk[stratum * classes..(stratum + 1) * classes];
                let d_c = &dead[slot * classes..(slot + 1) * classes];
                // The risk set as those who outlive this time (u) and those who die (d), each
                // summed by class: Efron's sums without a difference of sums to cancel.
                let (mut u0, mut d0, mut deaths, mut block) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
                u1.fill(0.0);
                d1.fill(0.0);
                for c in 0..classes {
                    let (w, dw) = ((n_c[c] - d_c[c]) * risk[c], d_c[c] * risk[c]);
                    u0 += w;
                    d0 += dw;
                    deaths += d_c[c];
                    block += d_c[c] * eta[c];
                    for &j in &design.ones[c] {
                        u1[j] += w;
                        d1[j] += dw;
                        m.score[j] += d_c[c];
                    }
                }
                let t = DeathSums::of(u0, d0, deaths, self.ties);
                loglik.add(block - t.log);
                // Σ over the deaths of the mean (u1 + w·d1)/a0 and of its square.
                for j in 0..p {
                    m.score[j] -= u1[j] * t.g1 + d1[j] * t.h1;
                    for l in 0..=j {
                        m.information[j * p + l] -= u1[j] * u1[l] * t.g2
                            + (u1[j] * d1[l] + d1[j] * u1[l]) * t.h2
                            + d1[j] * d1[l] * t.k2;
                    }
                }
                // Σ over the deaths of the second moments (u2 + w·d2)/a0, by class.
                for c in 0..classes {
                    let term = (n_c[c] - d_c[c]) * risk[c] * t.g1 + d_c[c] * risk[c] * t.h1;
                    if term == 0.0 {
                        continue;
                    }
                    let ones = &design.ones[c];
                    for (a, &j) in ones.iter().enumerate() {
                        for &l in &ones[..=a] {
                            m.information[j * p + l] += term;
                        }
                    }
                }
            }
        });
        m.loglik = loglik.total();
        // The upper triangle from the lower.
        for j in 0..p {
            for l in 0..j {
                m.information[l * p + j] = m.information[j * p + l];
            }
        }
        m
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ArmSubject;

    /// Forty subjects in two strata and three levels (`level = i % 3`), with ties.
    fn subjects() -> (Vec<ArmSubject>, Vec<u32>) {
        let subjects = (0..40u32)
            .map(|i| ArmSubject {
                time: f64::from((i * 7) % 23 + 1),
                event: i % 5 != 0,
                in_arm: i % 2 == 0,
                stratum: Some(i % 4 / 2),
            })
            .collect();
        (subjects, (0..40).map(|i| i % 3).collect())
    }

    fn test(subjects: &[ArmSubject], levels: &[u32], ties: Ties) -> Interaction {
        ArmTimes::new(subjects)
            .unwrap()
            .interaction(|i| levels.get(i).copied(), true, ties)
            .unwrap()
    }

    /// The statistic does not depend on which numbers name the levels, nor on their order.
    #[test]
    fn levels_are_names_only() {
        let (subjects, levels) = subjects();
        for ties in [Ties::Efron, Ties::Breslow] {
            let a = test(&subjects, &levels, ties);
            assert_eq!((a.levels, a.df, a.n), (3, 2, 40));
            let renamed: Vec<u32> = levels.iter().map(|l| 1000 - 7 * l).collect();
            let b = test(&subjects, &renamed, ties);
            assert!(
                (a.chisq.unwrap() - b.chisq.unwrap()).abs() < 1e-9,
                "{a:?} {b:?}"
            );
            assert!(a.p.unwrap() > 0.0 && !a.monotone);
        }
    }

    /// At the fit, the score is zero in every column.
    #[test]
    fn the_score_is_zero_at_the_fit() {
        let (subjects, levels) = subjects();
        let data = ArmTimes::new(&subjects).unwrap();
        let model = data.model_where(|_| true, true);
        let numbered = number_levels(&model, &|i| levels.get(i).copied()).unwrap();
        let fitter = Fitter {
            model: &model,
            levels: &numbered.of_row,
            ties: Ties::Efron,
        };
        let design = Design::interaction(3);
        let at_zero = fitter.moments(&design, &[0.0; 5]);
        let fitted = fitter.fit(&design, at_zero).unwrap().unwrap();
        assert!(!fitted.infinite);
        // Newton's iterations from the fit stay there.
        let mut beta = vec![0.0; design.columns];
        for _ in 0..30 {
            let m = fitter.moments(&design, &beta);
            let (step, _) = newton_step(&m, design.columns);
            for (b, s) in beta.iter_mut().zip(step) {
                *b += s;
            }
        }
        let m = fitter.moments(&design, &beta);
        assert!(m.score.iter().all(|s| s.abs() < 1e-9), "{:?}", m.score);
        assert!((m.loglik - fitted.loglik).abs() < 1e-9);
    }

    /// A level whose subjects are all in one arm adds no interaction column; one level, or
    /// none with both arms but one, is no test; no events is none either.
    #[test]
    fn aliased_columns_and_missing_tests() {
        let (mut subjects, levels) = subjects();
        for (s, l) in subjects.iter_mut().zip(&levels) {
            if *l == 2 {
                s.in_arm = true;
            }
        }
        let t = test(&subjects, &levels, Ties::Efron);
        assert_eq!((t.df, t.not_estimable), (1, None));
        let t = test(&subjects, &[4; 40], Ties::Efron);
        assert_eq!(t.not_estimable, Some("fewer than two levels"));
        let t = test(
            &subjects,
            &levels.iter().map(|l| l / 2).collect::<Vec<_>>(),
            Ties::Efron,
        );
        assert_eq!(t.df, 0);
        assert!(t.p.is_none() && t.not_estimable.is_some());
        for s in &mut subjects {
            s.event = false;
        }
        assert_eq!(
            test(&subjects, &levels, Ties::Breslow).not_estimable,
            Some("no events")
        );
    }

    /// A level with events in one arm only: the interaction's likelihood has no maximum; the
    /// statistic is at its supremum, which a longer run does not raise.
    #[test]
    fn a_level_with_events_in_one_arm_is_monotone_with_a_statistic() {
        let (mut subjects, levels) = subjects();
        for (s, l) in subjects.iter_mut().zip(&levels) {
            if *l == 1 && !s.in_arm {
                s.event = false;
            }
        }
        let t = test(&subjects, &levels, Ties::Efron);
        assert!(t.monotone, "{t:?}");
        assert_eq!(t.df, 2);
        assert!(t.chisq.unwrap() > 0.0 && t.p.is_some());
    }

    #[test]
    fn design_columns_are_rs() {
        let d = Design::interaction(3);
        assert_eq!(d.columns, 5);
        assert_eq!(
            d.ones,
            vec![
                vec![],
                vec![0],
                vec![1],
                vec![0, 1, 3],
                vec![2],
                vec![0, 2, 4]
            ]
        );
        let without = d.select(&[true, true, true, false, false]);
        assert_eq!(without.columns, 3);
        assert_eq!(without.ones[3], vec![0, 1]);
    }
}

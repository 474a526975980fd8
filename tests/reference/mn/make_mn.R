# Reference values for the Miettinen-Nurminen (1985) score interval of a difference of two
# proportions p1 - p0, unstratified and stratified (Cochran-Mantel-Haenszel weights
# w = n1 n0 / (n1 + n0) per stratum), and for the Newcombe and Wald intervals of the tests'
# unstratified study. Base R and jsonlite only; R 4.2.2.
# Run from this folder: Rscript make_mn.R  (writes expected.json).
#
# Independent of readout's closed-form cubic: the restricted maximum-likelihood estimates
# under p1 - p0 = delta are found here by solving the score equation of the log-likelihood
# numerically (uniroot), and the limits are the deltas where the squared score statistic
# equals z^2 (uniroot again).
library(jsonlite)
options(digits = 17)

# Restricted MLE (p1, p0) of one stratum under p1 = p0 + delta: the root in p0 of the
# derivative of the log-likelihood, which decreases in p0 (the log-likelihood is concave),
# or the end of [max(0, -delta), min(1, 1 - delta)] where it has none.
restricted <- function(x1, n1, x0, n0, delta) {
  lo <- max(0, -delta)
  hi <- min(1, 1 - delta)
  score <- function(p0) {
    p1 <- p0 + delta
    s <- 0
    if (x1 > 0) s <- s + x1 / p1
    if (n1 - x1 > 0) s <- s - (n1 - x1) / (1 - p1)
    if (x0 > 0) s <- s + x0 / p0
    if (n0 - x0 > 0) s <- s - (n0 - x0) / (1 - p0)
    max(min(s, 1e300), -1e300)
  }
  if (hi - lo < 1e-15) {
    p0 <- lo
  } else {
    f_lo <- score(lo)
    f_hi <- score(hi)
    p0 <- if (f_lo <= 0) {
      lo
    } else if (f_hi >= 0) {
      hi
    } else {
      uniroot(score, c(lo, hi), f.lower = f_lo, f.upper = f_hi, tol = 1e-16,
              maxiter = 10000)$root
    }
  }
  c(p0 + delta, p0)
}

# The MN variance of one stratum's difference at its restricted MLEs under delta, with MN's
# factor N / (N - 1).
mn_variance <- function(x1, n1, x0, n0, delta) {
  p <- restricted(x1, n1, x0, n0, delta)
  (p[1] * (1 - p[1]) / n1 + p[2] * (1 - p[2]) / n0) * (n1 + n0) / (n1 + n0 - 1)
}

# The stratified MN interval: strata a data frame (x1, n1, x0, n0), weights w. Strata with an
# empty arm are left out first (they carry no information). The limits are the deltas where
# [sum w (d - delta)]^2 / sum w^2 V(delta) = z^2, one below the estimate and one above.
mn <- function(strata, level = 0.95, weights = "cmh") {
  keep <- strata$n1 > 0 & strata$n0 > 0
  s <- strata[keep, , drop = FALSE]
  if (nrow(s) == 0) return(list(estimate = NA, lower = NA, upper = NA, dropped = sum(!keep)))
  w <- switch(weights,
    cmh = s$n1 * s$n0 / (s$n1 + s$n0),
    ss = s$n1 + s$n0,
    one = rep(1, nrow(s))
  )
  d <- s$x1 / s$n1 - s$x0 / s$n0
  estimate <- sum(w * d) / sum(w)
  z2 <- qnorm(1 - (1 - level) / 2)^2
  excess <- function(delta) {
    v <- sapply(seq_len(nrow(s)), function(h) {
      mn_variance(s$x1[h], s$n1[h], s$x0[h], s$n0[h], delta)
    })
    num <- sum(w * (d - delta))^2
    den <- sum(w^2 * v)
    if (den == 0) (if (num == 0) -z2 else 1e300) else num / den - z2
  }
  limit <- function(from, to) {
    if (from == to) return(from)
    uniroot(excess, sort(c(from, to)), f.lower = excess(min(from, to)),
            f.upper = excess(max(from, to)), tol = 1e-15, maxiter = 10000)$root
  }
  list(
    estimate = estimate,
    lower = if (estimate <= -1) -1 else limit(-1, estimate),
    upper = if (estimate >= 1) 1 else limit(estimate, 1),
    dropped = sum(!keep)
  )
}

one <- function(x1, n1, x0, n0) data.frame(x1 = x1, n1 = n1, x0 = x0, n0 = n0)
table_of <- function(rows) do.call(rbind, lapply(rows, function(r) one(r[1], r[2], r[3], r[4])))

unstratified_case <- function(name, x1, n1, x0, n0, level = 0.95) {
  r <- mn(one(x1, n1, x0, n0), level, "one")
  list(name = name, x1 = x1, n1 = n1, x0 = x0, n0 = n0, level = level,
       estimate = r$estimate, lower = r$lower, upper = r$upper)
}

stratified_case <- function(name, rows, level = 0.95, weights = "cmh") {
  t <- table_of(rows)
  r <- mn(t, level, weights)
  list(name = name, weights = weights, level = level,
       strata = lapply(rows, function(r) as.integer(r)),
       estimate = r$estimate, lower = r$lower, upper = r$upper, dropped = r$dropped)
}

unstratified <- list(
  # Newcombe (1998), Table II, examples (a) to (h).
  unstratified_case("Newcombe (a) 56/70 - 48/80", 56, 70, 48, 80),
  unstratified_case("Newcombe (b) 9/10 - 3/10", 9, 10, 3, 10),
  unstratified_case("Newcombe (c) 6/7 - 2/7", 6, 7, 2, 7),
  unstratified_case("Newcombe (d) 5/56 - 0/29", 5, 56, 0, 29),
  unstratified_case("Newcombe (e) 0/10 - 0/20", 0, 10, 0, 20),
  unstratified_case("Newcombe (f) 0/10 - 0/10", 0, 10, 0, 10),
  unstratified_case("Newcombe (g) 10/10 - 0/20", 10, 10, 0, 20),
  unstratified_case("Newcombe (h) 10/10 - 0/10", 10, 10, 0, 10),
  # Fagerland, Lydersen and Laake (2017), chapter 4: Perondi et al. (2004), Ritland et al. (2007).
  unstratified_case("Perondi 7/34 - 1/34", 7, 34, 1, 34),
  unstratified_case("Ritland 0/16 - 15/72", 0, 16, 15, 72),
  # The lung reference study pooled over its strata, at 95% and 99%.
  unstratified_case("lung 31/90 - 30/137", 31, 90, 30, 137),
  unstratified_case("lung 31/90 - 30/137 at 99%", 31, 90, 30, 137, 0.99),
  # Small and extreme tables.
  unstratified_case("1/1 - 0/1", 1, 1, 0, 1),
  unstratified_case("0/1 - 1/2", 0, 1, 1, 2),
  unstratified_case("0/12 - 12/12", 0, 12, 12, 12),
  unstratified_case("3/3 - 3/3", 3, 3, 3, 3),
  unstratified_case("1/200 - 0/3", 1, 200, 0, 3),
  unstratified_case("4900/10000 - 5100/10000", 4900, 10000, 5100, 10000),
  # The comparisons_edge study without strata (comparisons_edge::diff_ci_*).
  unstratified_case("edge pooled 31/44 - 13/44", 31, 44, 13, 44)
)

stratified <- list(
  # The reference studies of tests/reference/comparative, per STRAT level (arm, reference).
  stratified_case("lung", list(c(5, 27, 8, 36), c(19, 42, 17, 71), c(7, 21, 5, 30))),
  stratified_case("veteran", list(c(7, 20, 3, 15), c(8, 18, 6, 30), c(5, 18, 2, 9),
                                  c(5, 12, 3, 15))),
  stratified_case("ovarian", list(c(1, 6, 3, 5), c(1, 7, 2, 8))),
  # cicalc's documented example of ci_prop_diff_mn_strata (score method), at 95% and 99%.
  stratified_case("cicalc example", list(c(7, 10, 5, 10), c(5, 10, 4, 10))),
  stratified_case("cicalc example at 99%", list(c(7, 10, 5, 10), c(5, 10, 4, 10)), 0.99),
  # comparisons_edge: arms unbalanced across strata (A: 30/40 vs 3/4, B: 1/4 vs 10/40).
  stratified_case("edge unbalanced", list(c(30, 40, 3, 4), c(1, 4, 10, 40))),
  # The same with a stratum of the arm only (C, left out) and a small one (D: 1/2 vs 1/3).
  stratified_case("edge with C and D", list(c(30, 40, 3, 4), c(1, 4, 10, 40), c(2, 3, 0, 0),
                                            c(1, 2, 1, 3))),
  # One stratum: the unstratified interval.
  stratified_case("one stratum lung pooled", list(c(31, 90, 30, 137))),
  # Every subject a responder, or none, in some strata; a stratum of one subject per arm.
  stratified_case("extremes", list(c(4, 4, 6, 6), c(0, 5, 0, 7), c(1, 1, 0, 1), c(3, 9, 2, 8))),
  stratified_case("all responders", list(c(4, 4, 6, 6), c(2, 2, 3, 3))),
  stratified_case("arm all, reference none", list(c(4, 4, 0, 6), c(2, 2, 0, 3))),
  stratified_case("only empty arms", list(c(3, 5, 0, 0), c(0, 0, 2, 4)))
)

# metalite.ae's documented example of rate_compare (strata weighted by stratum size
# n1 + n0, "ss"), counted from its vectors; it prints est 0.3998397, lower 0.2684383,
# upper 0.5172779 (bisection to 1e-6).
treatment <- c(rep("pbo", 100), rep("exp", 100))
response <- c(rep(0, 80), rep(1, 20), rep(0, 40), rep(1, 60))
stratum <- c(rep(1:4, 12), 1, 3, 3, 1, rep(1:4, 12), rep(1:4, 25))
metalite_rows <- lapply(sort(unique(stratum)), function(k) {
  arm <- stratum == k & treatment == "exp"
  ref <- stratum == k & treatment == "pbo"
  c(sum(response[arm]), sum(arm), sum(response[ref]), sum(ref))
})
stratified <- c(stratified, list(stratified_case("metalite.ae example", metalite_rows,
                                                 weights = "ss")))

# Newcombe (hybrid score, from Wilson intervals: prop.test without correction) and Wald
# intervals of the comparisons_edge study without strata.
wilson <- function(x, n) prop.test(x, n, correct = FALSE)$conf.int
x1 <- 31; n1 <- 44; x0 <- 13; n0 <- 44
p1 <- x1 / n1; p0 <- x0 / n0; d <- p1 - p0
w1 <- wilson(x1, n1); w0 <- wilson(x0, n0)
z <- qnorm(0.975)
se <- sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
pooled <- list(
  x1 = x1, n1 = n1, x0 = x0, n0 = n0, estimate = d,
  newcombe = list(lower = d - sqrt((p1 - w1[1])^2 + (w0[2] - p0)^2),
                  upper = d + sqrt((w1[2] - p1)^2 + (p0 - w0[1])^2)),
  wald = list(lower = d - z * se, upper = d + z * se),
  mn = unstratified[[length(unstratified)]][c("lower", "upper")]
)

# Every table with 1 to 5 subjects per arm: [x1, n1, x0, n0, lower, upper] at 95%.
grid <- list()
for (n1 in 1:5) for (n0 in 1:5) for (x1 in 0:n1) for (x0 in 0:n0) {
  r <- mn(one(x1, n1, x0, n0), 0.95, "one")
  grid[[length(grid) + 1]] <- c(x1, n1, x0, n0, r$lower, r$upper)
}

out <- list(
  made_by = paste("make_mn.R,", R.version.string),
  unstratified = unstratified,
  stratified = stratified,
  edge_pooled = pooled,
  small_tables = grid
)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "expected.json")

# The published numbers next to these (printed to 4 decimals where they are).
for (c in unstratified) cat(sprintf("%-32s %8.4f %8.4f %8.4f\n", c$name, c$estimate, c$lower, c$upper))
for (c in stratified) cat(sprintf("%-32s %8.4f %8.4f %8.4f  dropped %d\n", c$name, c$estimate,
                                  c$lower, c$upper, c$dropped))

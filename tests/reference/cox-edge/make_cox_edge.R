# R reference values for Cox fits and log-rank tests on data where the default fit of
# coxph fails or the likelihood has no maximum (readout issue 29). R 4.2.2, survival 3.5-3.
# Run from this folder: Rscript make_cox_edge.R  (writes the CSVs and expected.json).
library(survival)
library(jsonlite)
options(digits = 17)

# Eleven subjects of a high-hazard arm against 1,000 of a low-hazard reference, heavily
# censored; `overlap` picks a seed where reference events come among the arm's.
two_arms <- function(seed) {
  set.seed(seed)
  n1 <- 11; n0 <- 1000
  t1 <- round(rexp(n1, 1/5), 1) + 0.1
  t0 <- round(rexp(n0, 1/(5*2545)), 1) + 0.1
  c0 <- runif(n0, 100, 400)
  e0 <- as.integer(t0 <= c0); t0 <- round(pmin(t0, c0), 1)
  data.frame(time = c(t1, t0), event = c(rep(1, n1), e0), arm = c(rep(1, n1), rep(0, n0)),
             stratum = rep(c(1, 2), length.out = n1 + n0))
}

# The log likelihood at beta = 0 (no iteration).
loglik0 <- function(f, d, ties) {
  coxph(f, data = d, ties = ties, init = 0, control = coxph.control(iter.max = 0))$loglik[1]
}

fit <- function(f, d, ties, init) {
  m <- suppressWarnings(coxph(f, data = d, ties = ties, init = init,
                              control = coxph.control(iter.max = 100)))
  s <- summary(m)
  l0 <- loglik0(f, d, ties)
  lr <- 2 * (m$loglik[2] - l0)
  list(coef = unname(coef(m)), se = unname(sqrt(diag(m$var))),
       p_wald = unname(s$coefficients[, "Pr(>|z|)"]),
       p_lr = pchisq(lr, 1, lower.tail = FALSE),
       p_score = unname(summary(coxph(f, data = d, ties = ties, init = 0,
                          control = coxph.control(iter.max = 0)))$sctest["pvalue"]))
}

cases <- list()
# A finite hazard ratio in the thousands: coxph from beta = 0 runs out of iterations at 24.1;
# started near the answer (init = 5) it converges to 7.94 (se 1.07).
d <- two_arms(2)
write.csv(d, "finite-far.csv", row.names = FALSE)
cases[["finite-far"]] <- list(
  efron = fit(Surv(time, event) ~ arm, d, "efron", 5),
  breslow = fit(Surv(time, event) ~ arm, d, "breslow", 5),
  default_start_coef = unname(coef(suppressWarnings(coxph(Surv(time, event) ~ arm, data = d)))),
  logrank = { s <- survdiff(Surv(time, event) ~ arm, data = d); list(chisq = s$chisq, p = pchisq(s$chisq, 1, lower.tail = FALSE)) })

# Every arm event before every reference event: monotone likelihood. coxph's coefficient runs
# off ("Loglik converged before variable 1"); the likelihood ratio test uses the likelihood's
# supremum, reached at the end of the run (init = 25, 100 iterations).
d <- two_arms(1)
write.csv(d, "monotone.csv", row.names = FALSE)
m <- suppressWarnings(coxph(Surv(time, event) ~ arm, data = d, init = 25,
                            control = coxph.control(iter.max = 100)))
cases[["monotone"]] <- list(
  p_lr = pchisq(2 * (m$loglik[2] - loglik0(Surv(time, event) ~ arm, d, "efron")), 1,
                lower.tail = FALSE),
  p_score = unname(summary(coxph(Surv(time, event) ~ arm, data = d, init = 0,
                    control = coxph.control(iter.max = 0)))$sctest["pvalue"]))

# A stratum holding one arm only (it adds nothing to the stratified fit), two with both, tied
# event times (Efron and Breslow differ).
d <- data.frame(
  time = c(5, 8, 12, 20, 8, 30, 3, 6, 9, 14, 6, 22, 7, 11, 15, 4, 12, 25),
  event = c(1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1),
  arm = c(1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0),
  stratum = c(1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 1, 2, 1))
write.csv(d, "one-arm-stratum.csv", row.names = FALSE)
cases[["one-arm-stratum"]] <- list(
  efron = fit(Surv(time, event) ~ arm + strata(stratum), d, "efron", 0),
  breslow = fit(Surv(time, event) ~ arm + strata(stratum), d, "breslow", 0),
  logrank = { s <- survdiff(Surv(time, event) ~ arm + strata(stratum), data = d);
              list(chisq = s$chisq, p = pchisq(s$chisq, 1, lower.tail = FALSE)) })

# Two subjects dying on the same day, one per arm: the log-rank variance is 0.
d <- data.frame(time = c(100, 100), event = c(1, 1), arm = c(1, 0), stratum = c(1, 1))
cases[["no-variance"]] <- list(
  survdiff = tryCatch({ s <- survdiff(Surv(time, event) ~ arm, data = d); s$chisq },
                      error = function(e) conditionMessage(e)))

write(toJSON(cases, auto_unbox = TRUE, digits = NA, pretty = TRUE), "expected.json")

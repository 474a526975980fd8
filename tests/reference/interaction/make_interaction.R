# R reference values for the test of the arm's interaction with a subgroup factor (readout
# issue 29): the likelihood-ratio test anova(fit_without, fit_with) of
#   coxph(Surv(time, event) ~ arm + level [+ strata(...)], ties = ...)
#   coxph(Surv(time, event) ~ arm + level + arm:level [+ strata(...)], ties = ...)
# (default coxph.control), with Efron and Breslow ties: its chisq, df and p, and both models'
# log likelihoods. Cases: data written here (edge cases), the randomised example
# (data/rand-example: SEX and AGEGR1 within strata ECOG x REGION) and the three studies of
# ../comparative (SUBGRP within strata STRAT).
# R 4.2.2, survival 3.5-3, jsonlite. Run from this folder: Rscript make_interaction.R
library(survival)
library(jsonlite)

# The test of `level` in `d` (time, event, arm 0/1, level, stratum columns), within strata
# when `stratified`; R's warnings (an infinite coefficient) kept.
lr <- function(d, ties, stratified) {
  d$level <- factor(d$level)
  s <- if (stratified) " + strata(stratum)" else ""
  f0 <- as.formula(paste0("Surv(time, event) ~ arm + level", s))
  f1 <- as.formula(paste0("Surv(time, event) ~ arm + level + arm:level", s))
  warnings <- character()
  keep <- function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  }
  m0 <- withCallingHandlers(coxph(f0, data = d, ties = ties), warning = keep)
  m1 <- withCallingHandlers(coxph(f1, data = d, ties = ties), warning = keep)
  a <- anova(m0, m1)
  out <- list(chisq = a$Chisq[2], df = a$Df[2], p = a[2, "Pr(>|Chi|)"], loglik = a$loglik,
              n = m1$n, coef_with = unname(coef(m1)))
  if (length(warnings) > 0) out$warnings <- warnings
  out
}

both <- function(d, stratified) {
  list(efron = lr(d, "efron", stratified), breslow = lr(d, "breslow", stratified))
}

out <- list(source = "R 4.2.2, survival 3.5-3: anova(coxph(~ arm + level), coxph(~ arm + level + arm:level))")

# Edge cases on 90 subjects: three levels, two strata, times in whole days (ties).
set.seed(29)
n <- 90
base <- data.frame(arm = rep(c(1, 0), length.out = n),
                   level = rep(c("A", "B", "C"), each = 2, length.out = n),
                   stratum = rep(c(1, 1, 1, 2, 2), length.out = n))
rate <- 0.02 * exp(-0.5 * base$arm + 0.4 * (base$level == "B") + 0.8 * base$arm * (base$level == "C"))
base$time <- pmax(1, round(rexp(n, rate)))
base$event <- as.integer(runif(n) < 0.75)
cases <- list()
# Every level with events in both arms.
cases$regular <- base
# Level C: events in the arm only (the reference's subjects of C censored): the interaction's
# likelihood has no maximum; coxph warns and stops with a large coefficient.
d <- base; d$event[d$level == "C" & d$arm == 0] <- 0
cases[["events-in-one-arm"]] <- d
# Level C: no events at all.
d <- base; d$event[d$level == "C"] <- 0
cases[["level-without-events"]] <- d
# Level C: every subject in the arm: its interaction column is aliased (NA), df 1.
d <- base; d$arm[d$level == "C"] <- 1
cases[["level-of-one-arm"]] <- d
# The strata are the levels: the level columns are aliased in both models, df still 2.
d <- base; d$stratum <- match(d$level, c("A", "B", "C"))
cases[["strata-are-levels"]] <- d
out$edge <- list()
for (name in names(cases)) {
  d <- cases[[name]]
  write.csv(d[, c("time", "event", "arm", "stratum", "level")], paste0(name, ".csv"),
            row.names = FALSE)
  out$edge[[name]] <- list(stratified = both(d, TRUE), unstratified = both(d, FALSE))
}

# The randomised example: every ITT subject, ADTTE as written, strata ECOG x REGION.
dir <- "../../../data/rand-example"
adsl <- read.csv(file.path(dir, "adsl.csv"), stringsAsFactors = FALSE)
adtte <- read.csv(file.path(dir, "adtte.csv"), stringsAsFactors = FALSE)
adsl <- adsl[adsl$ITTFL == "Y", ]
adsl$arm <- as.integer(adsl$ARM == "Drug X + chemo")
adsl$stratum <- interaction(adsl$ECOG, adsl$REGION, drop = TRUE)
out[["rand-example"]] <- list()
for (endpoint in c("PFS", "OS")) {
  e <- merge(adsl, adtte[adtte$PARAMCD == endpoint, ], by = "USUBJID")
  e$time <- e$AVAL
  e$event <- 1 - e$CNSR
  out[["rand-example"]][[endpoint]] <- list()
  for (column in c("SEX", "AGEGR1")) {
    e$level <- e[[column]]
    out[["rand-example"]][[endpoint]][[column]] <- both(e, TRUE)
  }
}

# The comparative studies: each arm against the reference on those two arms' subjects.
out$comparative <- list()
for (dataset in c("veteran", "lung", "ovarian")) {
  f <- file.path("../comparative", dataset)
  adsl <- read.csv(file.path(f, "adsl.csv"), stringsAsFactors = FALSE)
  adtte <- read.csv(file.path(f, "adtte.csv"), stringsAsFactors = FALSE)
  e <- merge(adsl, adtte[adtte$PARAMCD == "OS", ], by = "USUBJID")
  expected <- fromJSON(file.path(f, "expected.json"), simplifyVector = FALSE)
  reference <- expected$reference
  comparisons <- list()
  for (comparison in expected$comparisons) {
    two <- e[e$ARM %in% c(comparison$arm, reference), ]
    two$arm <- as.integer(two$ARM == comparison$arm)
    two$time <- two$AVAL
    two$event <- 1 - two$CNSR
    two$level <- two$SUBGRP
    two$stratum <- two$STRAT
    comparisons[[length(comparisons) + 1]] <- list(
      arm = comparison$arm, stratified = both(two, TRUE), unstratified = both(two, FALSE))
  }
  out$comparative[[dataset]] <- list(reference = reference, comparisons = comparisons)
}

write(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "expected.json")

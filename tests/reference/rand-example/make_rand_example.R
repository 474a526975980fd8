# R reference values for the randomised example study (data/rand-example, SYNTHETIC): each
# endpoint's Cox model of the arm (Efron ties; unstratified, and stratified by ECOG x REGION),
# the log-rank tests, and the hazard ratio per level of SEX and AGEGR1. Drug X + chemo
# against Placebo + chemo, every ITT subject, ADTTE as written (the data's own cut-off).
# Per arm too: the restricted mean survival time up to the shorter arm's last time (print
# survfit rmean, in months of 30.4375 days) and the risk table at every 6 months to 30.
# R 4.2.2, survival 3.5-3, cmprsk 2.2-11, jsonlite. Run from this folder: Rscript make_rand_example.R
library(survival)
library(jsonlite)
dir <- "../../../data/rand-example"
adsl <- read.csv(file.path(dir, "adsl.csv"), stringsAsFactors = FALSE)
adtte <- read.csv(file.path(dir, "adtte.csv"), stringsAsFactors = FALSE)
adsl <- adsl[adsl$ITTFL == "Y", ]
adsl$arm <- as.integer(adsl$ARM == "Drug X + chemo")

cox <- function(f, d) {
  m <- coxph(f, data = d, ties = "efron")
  s <- summary(m)
  list(coef = unname(coef(m)), se = unname(sqrt(diag(m$var))),
       hr = list(estimate = unname(s$conf.int[1, "exp(coef)"]),
                 lower = unname(s$conf.int[1, "lower .95"]),
                 upper = unname(s$conf.int[1, "upper .95"])),
       p_wald = unname(s$waldtest["pvalue"]), p_lr = unname(s$logtest["pvalue"]),
       p_score = unname(s$sctest["pvalue"]))
}
logrank <- function(f, d) {
  s <- survdiff(f, data = d)
  list(chisq = s$chisq, p = pchisq(s$chisq, 1, lower.tail = FALSE))
}

out <- list()
for (endpoint in c("PFS", "OS")) {
  d <- merge(adsl, adtte[adtte$PARAMCD == endpoint, ], by = "USUBJID")
  d$event <- 1 - d$CNSR
  e <- list(
    n = sum(d$arm == 1), n_reference = sum(d$arm == 0),
    events = sum(d$event[d$arm == 1]), events_reference = sum(d$event[d$arm == 0]),
    cox = cox(Surv(AVAL, event) ~ arm, d),
    logrank = logrank(Surv(AVAL, event) ~ arm, d),
    stratified = list(cox = cox(Surv(AVAL, event) ~ arm + strata(ECOG, REGION), d),
                      logrank = logrank(Surv(AVAL, event) ~ arm + strata(ECOG, REGION), d)),
    subgroups = list())
  for (column in c("SEX", "AGEGR1")) {
    for (level in sort(unique(d[[column]]))) {
      w <- d[d[[column]] == level, ]
      e$subgroups[[length(e$subgroups) + 1]] <- list(
        column = column, level = level, hr = cox(Surv(AVAL, event) ~ arm, w)$hr)
    }
  }
  months <- 30.4375
  tau <- min(tapply(d$AVAL, d$arm, max))
  e$rmst <- list(); e$risk_table <- list()
  for (a in c("1", "0")) {
    w <- d[d$arm == as.integer(a), ]
    f <- survfit(Surv(AVAL, event) ~ 1, data = w)
    t <- summary(f, rmean = tau)$table
    s <- summary(f, times = seq(0, 30, 6) * months, extend = TRUE)
    e$rmst[[a]] <- list(tau = tau / months, estimate = unname(t["rmean"]) / months,
                        se = unname(t["se(rmean)"]) / months)
    e$risk_table[[a]] <- list(at_risk = s$n.risk, events = cumsum(s$n.event),
                              censored = cumsum(s$n.censor))
  }
  out[[endpoint]] <- e
}
# Time to progression with death as a competing risk (PFS records, EVNTDESC DEATH competing):
# each arm's Aalen-Johansen incidence at 6, 12 and 24 months (survfit multi-state), Gray's
# test (cmprsk::cuminc) and the Fine-Gray model (cmprsk::crr, gtol 1e-12), overall and within
# each level of SEX and AGEGR1.
library(cmprsk)
# crr's step halving can stall short of the maximum (on AGEGR1 <65 it stops with score
# -6e-7, converged FALSE, whatever gtol): Newton steps from its estimate, each evaluated by
# crr itself (maxiter 0), finish it, to a score below 1e-10.
crr_fit <- function(w) {
  fg <- crr(w$AVAL, w$status, cov1 = w$arm, failcode = 1, cencode = 0, gtol = 1e-12, maxiter = 200)
  for (k in 1:10) {
    if (max(abs(fg$score)) < 1e-10) break
    b <- fg$coef + drop(fg$invinf %*% fg$score)
    fg <- crr(w$AVAL, w$status, cov1 = w$arm, failcode = 1, cencode = 0, maxiter = 0, init = b)
  }
  stopifnot(max(abs(fg$score)) < 1e-10)
  list(coef = unname(fg$coef), se = sqrt(fg$var[1, 1]))
}
d <- merge(adsl, adtte[adtte$PARAMCD == "PFS", ], by = "USUBJID")
d$status <- ifelse(d$CNSR != 0, 0, ifelse(d$EVNTDESC == "DEATH", 2, 1))
ttp <- list(cif = list())
for (a in c("1", "0")) {
  w <- d[d$arm == as.integer(a), ]
  f <- survfit(Surv(AVAL, factor(status, 0:2)) ~ 1, data = w)
  s <- summary(f, times = c(6, 12, 24) * 30.4375, extend = TRUE)
  k <- which(f$states == "1")
  ttp$cif[[a]] <- list(estimate = s$pstate[, k], std_err = s$std.err[, k],
                       lower = s$lower[, k], upper = s$upper[, k],
                       competing = sum(w$status == 2), events = sum(w$status == 1))
}
g <- cuminc(d$AVAL, d$status, d$arm, cencode = 0)$Tests["1", ]
ttp$gray <- list(chisq = g[["stat"]], p = g[["pv"]])
ttp$fine_gray <- crr_fit(d)
# The Fine-Gray model within each level of SEX and AGEGR1 (the forest of subdistribution HRs).
ttp$subgroups <- list()
for (column in c("SEX", "AGEGR1")) {
  for (level in sort(unique(d[[column]]))) {
    w <- d[d[[column]] == level, ]
    ttp$subgroups[[length(ttp$subgroups) + 1]] <- c(list(column = column, level = level),
                                                    crr_fit(w))
  }
}
out$TTP <- ttp
write(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "expected.json")

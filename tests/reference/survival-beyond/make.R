# Reference values for readout's survival beyond the median (RMST, risk tables, competing
# risks). Run from this folder: Rscript make.R   (R 4.2.2, survival 3.5-3, cmprsk 2.2-11,
# jsonlite 1.8.4 from Debian 12). Writes datasets/*.csv and expected/*.json.
suppressPackageStartupMessages({library(survival); library(cmprsk); library(jsonlite)})
z <- qnorm(0.975)
src <- sprintf("R %s.%s survival %s cmprsk %s", R.version$major, R.version$minor,
               packageVersion("survival"), packageVersion("cmprsk"))
num <- function(x) if (is.null(x) || length(x) == 0 || !is.finite(x)) NULL else unname(x)

write_set <- function(name, d) {
  write.csv(d[, c("id", "group", "time", "status")], file.path("datasets", paste0(name, ".csv")),
            row.names = FALSE, quote = FALSE)
}

# RMST of one group as print(survfit, rmean = tau) gives it, CI estimate -/+ z SE.
rmst_of <- function(d, tau) {
  f <- survfit(Surv(time, status == 1) ~ 1, data = d)
  t <- summary(f, rmean = tau)$table
  est <- unname(t["rmean"]); se <- unname(t["se(rmean)"])
  list(estimate = est, se = se, lower = est - z * se, upper = est + z * se)
}

# Difference and ratio as survRM2::rmst2 forms them from the two arms' RMST and SE.
rmst_compare <- function(a, r) {
  d <- a$estimate - r$estimate; sd <- sqrt(a$se^2 + r$se^2)
  lr <- log(a$estimate / r$estimate); sr <- sqrt(a$se^2 / a$estimate^2 + r$se^2 / r$estimate^2)
  list(difference = list(estimate = d, lower = d - z * sd, upper = d + z * sd,
                         p = 2 * pnorm(-abs(d) / sd)),
       ratio = list(estimate = exp(lr), lower = exp(lr - z * sr), upper = exp(lr + z * sr),
                    p = 2 * pnorm(-abs(lr) / sr)))
}

# summary(survfit, times, extend = TRUE) per group, its per-interval counts cumulated.
risk_table <- function(d, times) {
  f <- survfit(Surv(time, status == 1) ~ 1, data = d)
  s <- summary(f, times = times, extend = TRUE)
  ev <- cumsum(s$n.event); ce <- cumsum(s$n.censor)
  lapply(seq_along(times), function(i)
    list(time = times[i], at_risk = s$n.risk[i], events = ev[i], censored = ce[i]))
}

survival_set <- function(name, d, arm, reference, note) {
  groups <- c(reference, arm)
  last <- sapply(groups, function(g) max(d$time[d$group == g]))
  tau_default <- min(last)
  tau_short <- signif(0.6 * tau_default, 2)
  ticks <- pretty(c(0, max(d$time)), n = 5)
  out <- list(dataset = name, source = src, note = note, arm = arm, reference = reference,
              tau_default = tau_default, tau_short = tau_short, ticks = ticks, groups = list(),
              comparison = list())
  for (g in c(groups, "all")) {
    dg <- if (g == "all") d else d[d$group == g, ]
    out$groups[[g]] <- list(
      n = nrow(dg), max_time = max(dg$time),
      rmst = list(default = rmst_of(dg, tau_default), short = rmst_of(dg, tau_short)),
      risk_table = risk_table(dg, ticks))
  }
  for (k in c("default", "short"))
    out$comparison[[k]] <- rmst_compare(out$groups[[arm]]$rmst[[k]],
                                        out$groups[[reference]]$rmst[[k]])
  write_json(out, file.path("expected", paste0(name, ".json")), digits = NA, auto_unbox = TRUE,
             pretty = TRUE, null = "null")
}

# Aalen-Johansen by survfit (multi-state, infinitesimal-jackknife SE, log CI); Gray's test by
# cuminc; Fine-Gray by crr converged to gtol 1e-12.
competing_set <- function(name, d, arm, reference, note) {
  groups <- c(reference, arm)
  last <- max(d$time)
  landmarks <- signif(c(0.25, 0.5, 0.75, 1.2) * last, 2)
  out <- list(dataset = name, source = src, note = note, arm = arm, reference = reference,
              landmarks = landmarks, groups = list())
  for (g in c(groups, "all")) {
    dg <- if (g == "all") d else d[d$group == g, ]
    f <- survfit(Surv(time, factor(status, 0:2)) ~ 1, data = dg)
    s <- summary(f, times = landmarks, extend = TRUE)
    col <- which(f$states == "1")
    out$groups[[g]] <- list(
      n = nrow(dg), events = sum(dg$status == 1), competing = sum(dg$status == 2),
      conf_type = f$conf.type,
      landmarks = lapply(seq_along(landmarks), function(i) list(
        time = landmarks[i], n_risk = s$n.risk[i, 1], estimate = s$pstate[i, col],
        std_err = num(s$std.err[i, col]), lower = num(s$lower[i, col]),
        upper = num(s$upper[i, col]))),
      steps = list(time = f$time, estimate = f$pstate[, col], std_err = f$std.err[, col]))
  }
  two <- d[d$group %in% groups, ]
  ci <- cuminc(two$time, two$status, factor(two$group, levels = groups), cencode = 0)
  tst <- ci$Tests["1", ]
  out$gray <- list(chisq = num(tst[["stat"]]), p = num(tst[["pv"]]), df = tst[["df"]])
  fg <- tryCatch(crr(two$time, two$status, cov1 = as.numeric(two$group == arm), failcode = 1,
                     cencode = 0, gtol = 1e-12, maxiter = 200), error = function(e) NULL)
  if (!is.null(fg) && fg$converged) {
    b <- unname(fg$coef); se <- sqrt(fg$var[1, 1])
    out$fine_gray <- list(coef = b, se = se, hr = list(estimate = exp(b),
                          lower = exp(b - z * se), upper = exp(b + z * se)),
                          p = 2 * pnorm(-abs(b) / se))
  } else out$fine_gray <- NULL
  write_json(out, file.path("expected", paste0(name, ".json")), digits = NA, auto_unbox = TRUE,
             pretty = TRUE, null = "null")
}

ds <- function(f) read.csv(file.path("..", "survival", "datasets", f))
as_status <- function(d) { d$status <- d$event; d }

# Survival sets: real data of the survival package and synthetic sets.
survival_set("lung", as_status(ds("lung.csv")), "female", "male", "survival::lung, days, by sex")
survival_set("veteran", as_status(ds("veteran.csv")), "test", "standard",
             "survival::veteran, days, by trt")
survival_set("ovarian", as_status(ds("ovarian.csv")), "rx2", "rx1", "survival::ovarian, days, by rx")
survival_set("aml", as_status(ds("aml.csv")), "Maintained", "Nonmaintained",
             "survival::aml, weeks, by x")
survival_set("synthetic_ties", as_status(ds("synthetic_ties.csv")), "treatment", "control",
             "synthetic (seed 20240602): whole months, many ties")
de <- subset(colon, etype == 2 & rx != "Lev")
colon_os <- data.frame(id = de$id, group = as.character(de$rx), time = de$time, status = de$status)
write_set("colon_os", colon_os)
survival_set("colon_os", colon_os, "Lev+5FU", "Obs", "survival::colon deaths (etype 2), days, Obs vs Lev+5FU")
set.seed(20261202)
n <- 80
plateau <- data.frame(id = 1:n, group = rep(c("control", "treatment"), each = n / 2))
plateau$time <- round(ifelse(plateau$group == "control", rexp(n, 1 / 8), rexp(n, 1 / 14)), 1)
cure <- runif(n) < 0.3
plateau$time[cure] <- 24
plateau$status <- as.integer(!cure & plateau$time < 24)
plateau$time <- pmin(plateau$time, 24)
write_set("synthetic_plateau", plateau)
survival_set("synthetic_plateau", plateau, "treatment", "control",
             "synthetic (seed 20261202): both arms flat from 24 (cured censored at 24), tau at the plateau")
noev <- data.frame(id = 1:12, group = rep(c("control", "treatment"), each = 6),
                   time = c(3, 5, 5, 8, 10, 12, 2, 4, 6, 6, 9, 12), status = c(1, 0, 1, 0, 1, 0, rep(0, 6)))
write_set("synthetic_no_events", noev)
survival_set("synthetic_no_events", noev, "treatment", "control",
             "synthetic: the treatment arm has no event")

# Competing-risk sets.
m <- mgus2
mg <- data.frame(id = m$id, group = as.character(m$sex),
                 time = ifelse(m$pstat == 0, m$futime, m$ptime),
                 status = ifelse(m$pstat == 0, 2 * m$death, 1))
write_set("mgus2", mg)
competing_set("mgus2", mg, "M", "F", "survival::mgus2: progression (1), death before it (2), months, by sex")
p <- subset(pbc, !is.na(trt))
pb <- data.frame(id = p$id, group = ifelse(p$trt == 1, "D-penicillamine", "placebo"), time = p$time,
                 status = c(0, 2, 1)[p$status + 1])
write_set("pbc_cr", pb)
competing_set("pbc_cr", pb, "D-penicillamine", "placebo",
              "survival::pbc: death (1), transplant (2), days, by trt")
rec <- subset(colon, etype == 1 & rx != "Lev"); dea <- subset(colon, etype == 2 & rx != "Lev")
stopifnot(all(rec$id == dea$id))
co <- data.frame(id = rec$id, group = as.character(rec$rx),
                 time = ifelse(rec$status == 1, rec$time, dea$time),
                 status = ifelse(rec$status == 1, 1, ifelse(dea$status == 1, 2, 0)))
write_set("colon_cr", co)
competing_set("colon_cr", co, "Lev+5FU", "Obs",
              "survival::colon: recurrence (1), death without recurrence (2), days, Obs vs Lev+5FU")
t <- subset(transplant, abo %in% c("A", "O"))
tr <- data.frame(id = seq_len(nrow(t)), group = as.character(t$abo), time = t$futime,
                 status = c(censored = 0, ltx = 1, death = 2, withdraw = 2)[as.character(t$event)])
write_set("transplant_cr", tr)
competing_set("transplant_cr", tr, "A", "O",
              "survival::transplant: transplant (1), death or withdrawal (2), days, blood group A vs O")
set.seed(20261203)
n <- 200
ties <- data.frame(id = 1:n, group = rep(c("control", "treatment"), each = n / 2))
ties$time <- pmax(1, round(rexp(n, ifelse(ties$group == "control", 1 / 10, 1 / 15))))
ties$status <- sample(0:2, n, replace = TRUE, prob = c(0.3, 0.45, 0.25))
write_set("synthetic_cr_ties", ties)
competing_set("synthetic_cr_ties", ties, "treatment", "control",
              "synthetic (seed 20261203): whole months, many ties of all three kinds")
only <- data.frame(id = 1:10, group = rep(c("control", "treatment"), each = 5),
                   time = c(2, 4, 4, 7, 9, 1, 3, 5, 8, 10), status = c(1, 2, 0, 1, 0, 2, 2, 0, 2, 0))
write_set("synthetic_cr_competing_only", only)
competing_set("synthetic_cr_competing_only", only, "treatment", "control",
              "synthetic: the treatment arm has competing events only")

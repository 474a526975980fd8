# Adverse events of Drug X + chemo against Placebo + chemo in data/rand-example (synthetic),
# computed in base R 4.2.2 + jsonlite from the CSVs, as readout's comparisons[].safety:
# per kind (any TEAE, grade >=3 TEAE, serious TEAE, any TRAE) and per term (TEAE, any grade),
# subjects of each arm's safety population with the event; the risk difference with
# Newcombe's hybrid score interval (method 10, from prop.test Wilson intervals without
# continuity correction); the exposure-adjusted incidence rate per 100 patient-years with
# poisson.test's exact interval, time at risk = days to the first event (ASTDT - TRTSDT + 1,
# at most the exposure) for subjects with the event, else the exposure (TRTEDT - TRTSDT + 1,
# or to the cut-off 2023-09-29 when TRTEDT is empty).
# Run from the repository root: Rscript tests/reference/ae-compare/make_ae_compare.R
library(jsonlite)
adsl <- read.csv("data/rand-example/adsl.csv", stringsAsFactors = FALSE)
adae <- read.csv("data/rand-example/adae.csv", stringsAsFactors = FALSE)
cutoff <- as.Date("2023-09-29")
adsl <- adsl[adsl$SAFFL == "Y", ]
start <- as.Date(adsl$TRTSDT)
end <- as.Date(ifelse(adsl$TRTEDT == "", as.character(cutoff), adsl$TRTEDT))
adsl$exposure <- as.numeric(end - start) + 1
adae <- adae[adae$TRTEMFL == "Y" & adae$USUBJID %in% adsl$USUBJID, ]
related <- toupper(adae$AEREL) %in% c("Y", "RELATED", "PROBABLE", "POSSIBLE")
arms <- c(arm = "Drug X + chemo", reference = "Placebo + chemo")
newcombe <- function(x1, n1, x0, n0) {
  w1 <- prop.test(x1, n1, correct = FALSE)$conf.int
  w0 <- prop.test(x0, n0, correct = FALSE)$conf.int
  p1 <- x1 / n1; p0 <- x0 / n0; d <- p1 - p0
  c(estimate = d, lower = d - sqrt((p1 - w1[1])^2 + (w0[2] - p0)^2),
    upper = d + sqrt((w1[2] - p1)^2 + (p0 - w0[1])^2))
}
row <- function(kind, term, hit) {
  ev <- adae[hit, ]
  out <- list(kind = kind, term = term)
  counts <- c(); rates <- list()
  for (a in names(arms)) {
    s <- adsl[adsl$ARM == arms[[a]], ]
    first <- tapply(as.Date(ev$ASTDT), ev$USUBJID, min)
    has <- s$USUBJID %in% ev$USUBJID
    day <- as.numeric(as.Date(first[s$USUBJID], origin = "1970-01-01") - as.Date(s$TRTSDT)) + 1
    risk <- ifelse(has & !is.na(day), pmin(pmax(day, 1), s$exposure), s$exposure)
    py <- sum(risk) / 365.25
    x <- sum(has)
    counts[[a]] <- x
    ci <- poisson.test(x, py)$conf.int
    rates[[a]] <- list(estimate = 100 * x / py, lower = 100 * ci[1], upper = 100 * ci[2])
  }
  n1 <- sum(adsl$ARM == arms[["arm"]]); n0 <- sum(adsl$ARM == arms[["reference"]])
  d <- newcombe(counts[["arm"]], n1, counts[["reference"]], n0)
  c(out, list(n = counts[["arm"]], n_reference = counts[["reference"]],
              difference = as.list(d), eair = rates[["arm"]], eair_reference = rates[["reference"]]))
}
rows <- list(row("any TEAE", NULL, rep(TRUE, nrow(adae))),
             row("grade >=3 TEAE", NULL, !is.na(adae$ATOXGR) & adae$ATOXGR >= 3),
             row("serious TEAE", NULL, adae$AESER == "Y"),
             row("any TRAE", NULL, related))
for (t in sort(unique(adae$AEDECOD))) rows[[length(rows) + 1]] <- row("term", t, adae$AEDECOD == t)
writeLines(toJSON(rows, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/reference/ae-compare/expected.json")

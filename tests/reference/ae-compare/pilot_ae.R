# The CDISC pilot (../shared/reference/adam/cdiscpilot01, not in this repository): adverse
# events of Xanomeline High Dose against Placebo as tests/cdisc_pilot.rs checks them (exposure
# TRTDUR). Run from the repository root: Rscript tests/reference/ae-compare/pilot_ae.R
library(jsonlite)
adsl <- read.csv("../shared/reference/adam/cdiscpilot01/adsl.csv", stringsAsFactors = FALSE)
adae <- read.csv("../shared/reference/adam/cdiscpilot01/adae.csv", stringsAsFactors = FALSE)
adsl <- adsl[adsl$SAFFL == "Y", ]
adsl$exposure <- adsl$TRTDUR
adae <- adae[adae$TRTEMFL == "Y" & adae$USUBJID %in% adsl$USUBJID, ]
arms <- c(arm = "Xanomeline High Dose", reference = "Placebo")
newcombe <- function(x1, n1, x0, n0) {
  w1 <- prop.test(x1, n1, correct = FALSE)$conf.int; w0 <- prop.test(x0, n0, correct = FALSE)$conf.int
  p1 <- x1 / n1; p0 <- x0 / n0; d <- p1 - p0
  c(d, d - sqrt((p1 - w1[1])^2 + (w0[2] - p0)^2), d + sqrt((w1[2] - p1)^2 + (p0 - w0[1])^2))
}
row <- function(hit) {
  ev <- adae[hit, ]; res <- c()
  for (a in names(arms)) {
    s <- adsl[adsl$TRT01A == arms[[a]], ]
    first <- tapply(as.Date(ev$ASTDT), ev$USUBJID, min)
    has <- s$USUBJID %in% ev$USUBJID
    day <- as.numeric(as.Date(first[s$USUBJID], origin = "1970-01-01") - as.Date(s$TRTSDT)) + 1
    risk <- ifelse(has & !is.na(day), pmin(pmax(day, 1), s$exposure), s$exposure)
    py <- sum(risk) / 365.25; x <- sum(has); ci <- poisson.test(x, py)$conf.int
    res <- c(res, x, 100 * x / py, 100 * ci)
  }
  n1 <- sum(adsl$TRT01A == arms[["arm"]]); n0 <- sum(adsl$TRT01A == arms[["reference"]])
  c(res, newcombe(res[1], n1, res[5], n0))
}
for (t in c("ANY", "APPLICATION SITE PRURITUS", "ERYTHEMA", "DIZZINESS")) {
  hit <- if (t == "ANY") rep(TRUE, nrow(adae)) else adae$AEDECOD == t
  cat(t, format(row(hit), digits = 15), "\n")
}

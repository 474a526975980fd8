#!/usr/bin/env bash
# Times `readout build` on synthetic data of N subjects (default 1e6) and, when they are
# installed, the equivalent R (survival) and Python (lifelines) scripts on the same files.
# Installs nothing. Usage: bench/compare-r.sh [N ...]   (e.g. bench/compare-r.sh 1000 100000 1000000)
# Environment: REPEATS (default 5) runs each; COHORTS (default 4) cohorts the subjects are
# spread over (COHORTS=1000 bench/compare-r.sh 200000: 1,000 cohorts of 200); SKIP_R=1 and
# SKIP_PY=1 time readout alone; BENCH_DIR where the data go (default target/bench-data);
# OUT_DIR where readout writes (default DIR/out beside the data; a tmpfs such as /dev/shm
# takes the file system out of the timing: creating thousands of files on ext4 costs
# seconds when many were just deleted); FORMATS overrides the config's output formats
# (e.g. FORMATS=md,html,png,docx).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000000)
repeats=${REPEATS:-5}
cohorts=${COHORTS:-4}
cargo build --release --quiet
cargo build --release --quiet --example make_bench_data
work=${BENCH_DIR:-target/bench-data}
have_r=0
if [ "${SKIP_R:-0}" != 1 ] && command -v Rscript >/dev/null && Rscript -e 'library(survival)' >/dev/null 2>&1; then have_r=1; fi
have_py=0
if [ "${SKIP_PY:-0}" != 1 ] && python3 -c 'import lifelines, pandas' >/dev/null 2>&1; then have_py=1; fi
[ $have_r = 1 ] || [ "${SKIP_R:-0}" = 1 ] || echo "R with the survival package not found: R timings skipped (apt-get install r-base-core r-cran-survival)"
[ $have_py = 1 ] || [ "${SKIP_PY:-0}" = 1 ] || echo "Python lifelines not found: lifelines timings skipped (pip install lifelines)"

# min and median wall seconds of $repeats runs of a command; also peak RSS (KiB) of the last run.
# A run that fails is reported with its exit status and its last lines of output (a failing
# build is fast and must not pass for a result).
time_it() {
  local times=() rss=0 rssfile logfile failed=0
  rssfile=$(mktemp)
  logfile=$(mktemp)
  for _ in $(seq "$repeats"); do
    local t0 t1 status=0
    t0=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$rssfile" "$@" >"$logfile" 2>&1 || status=$?
    t1=$(date +%s.%N)
    if [ "$status" != 0 ]; then failed=$status; fi
    rss=$(tail -1 "$rssfile")
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  if [ "$failed" != 0 ]; then
    echo "FAILED (exit $failed): $(tail -3 "$logfile" | tr '\n' ' ')"
    return
  fi
  printf '%s\n' "${times[@]}" | sort -g | awk -v rss="$rss" '{a[NR]=$1} END {printf "min %.3f s  median %.3f s  peak RSS %.0f MiB\n", a[1], a[int((NR+1)/2)], rss/1024}'
}

for n in "${sizes[@]}"; do
  dir="$work/$n"; [ "$cohorts" = 4 ] || dir="$work/$n-c$cohorts"
  [ -f "$dir/adtte.csv" ] || ./target/release/examples/make_bench_data "$n" "$dir" "$cohorts"
  echo "== $n subjects ($cohorts cohorts), $(du -ch "$dir"/adsl.csv "$dir"/adtte.csv | tail -1 | cut -f1) of CSV"
  config="$dir/bench.yaml"
  if [ -n "${FORMATS:-}" ]; then
    config="$dir/bench-formats.yaml"
    sed "s/formats: \[md, html\]/formats: [${FORMATS//,/, }]/" "$dir/bench.yaml" > "$config"
  fi
  echo -n "readout build:   "; time_it ./target/release/readout build --quiet --out "${OUT_DIR:-$dir/out}" "$config"
  if [ $have_r = 1 ]; then
    cat > "$dir/km.R" <<'REOF'
args <- commandArgs(TRUE); setwd(args[1]); suppressMessages(library(survival))
s <- read.csv("adsl.csv"); d <- merge(read.csv("adtte.csv"), s, by = "USUBJID")
fit <- survfit(Surv(AVAL / 30.4375, 1 - CNSR) ~ COHORT, data = d, conf.type = "log-log")
q <- quantile(fit, c(.25, .5, .75)); l <- summary(fit, times = c(6, 12, 24), extend = TRUE)
f <- survfit(Surv(AVAL / 30.4375, CNSR) ~ COHORT, data = d, conf.type = "log-log"); m <- quantile(f, .5)
REOF
    echo -n "R survival:      "; time_it Rscript "$dir/km.R" "$dir"
  fi
  if [ $have_py = 1 ]; then
    cat > "$dir/km.py" <<'PEOF'
import sys, pandas as pd
from lifelines import KaplanMeierFitter
from lifelines.utils import median_survival_times
d = pd.read_csv(sys.argv[1] + "/adtte.csv").merge(pd.read_csv(sys.argv[1] + "/adsl.csv"), on="USUBJID")
for c, g in d.groupby("COHORT"):
    k = KaplanMeierFitter().fit(g.AVAL / 30.4375, 1 - g.CNSR)
    median_survival_times(k.confidence_interval_); k.survival_function_at_times([6, 12, 24])
    KaplanMeierFitter().fit(g.AVAL / 30.4375, g.CNSR).median_survival_time_
PEOF
    echo -n "Python lifelines: "; time_it python3 "$dir/km.py" "$dir"
  fi
done

#!/usr/bin/env bash
# What comparing arms costs: builds one cohort of N subjects (default 1e6) as a single arm and
# as two arms (A vs B) stratified by a factor of 4 levels (Cox with Efron ties, stratified Cox,
# log-rank, stratified log-rank, each arm analysed alone), alternating the two REPEATS times
# (default 5), and prints min and median wall seconds of each. Data from
# examples/make_bench_data.rs (fixed seed), in BENCH_DIR (default target/bench-data).
# Usage: bench/arms.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
repeats=${REPEATS:-5}
cargo build --release --quiet
cargo build --release --quiet --example make_bench_data
dir="${BENCH_DIR:-target/bench-data}/$n-arms"
[ -f "$dir/arms.yaml" ] || ./target/release/examples/make_bench_data "$n" "$dir" 4
out=${OUT_DIR:-$dir/out}
declare -A runs
for _ in $(seq "$repeats"); do
  for config in one arms; do
    t0=$(date +%s.%N)
    ./target/release/readout build --quiet --out "$out" "$dir/$config.yaml"
    t1=$(date +%s.%N)
    runs[$config]+="$(echo "$t1 - $t0" | bc) "
  done
done
for config in one arms; do
  printf '%-5s %s\n' "$config" "$(echo "${runs[$config]}" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {printf "min %.3f s, median %.3f s (%d runs)", a[1], a[int((NR+1)/2)], NR}')"
done

#!/usr/bin/env bash
# Dataset-JSON input against CSV (issue 21): the same N subjects (default 1e6) built from
# adsl.csv + adtte.csv and from adsl.ndjson + adtte.ndjson (examples/make_bench_data.rs with
# --dataset-json, fixed seed), alternating the two REPEATS times (default 5); prints min and
# median wall seconds of each and the ratio of the medians. Data in BENCH_DIR (default
# target/bench-data)/N-dsj; OUT_DIR where readout writes (default DIR/out).
# Usage: bench/dataset-json.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
repeats=${REPEATS:-5}
cargo build --release --quiet
cargo build --release --quiet --example make_bench_data
dir="${BENCH_DIR:-target/bench-data}/$n-dsj"
[ -f "$dir/bench-ndjson.yaml" ] || ./target/release/examples/make_bench_data "$n" "$dir" 4 --dataset-json
echo "== $n subjects: $(du -ch "$dir"/adsl.csv "$dir"/adtte.csv | tail -1 | cut -f1) of CSV, $(du -ch "$dir"/adsl.ndjson "$dir"/adtte.ndjson | tail -1 | cut -f1) of NDJSON"
out=${OUT_DIR:-$dir/out}
declare -A runs
for _ in $(seq "$repeats"); do
  for config in bench bench-ndjson; do
    t0=$(date +%s.%N)
    ./target/release/readout build --quiet --out "$out" "$dir/$config.yaml"
    t1=$(date +%s.%N)
    runs[$config]+="$(echo "$t1 - $t0" | bc) "
  done
done
median() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for config in bench bench-ndjson; do
  printf '%-13s %s\n' "$config" "$(echo "${runs[$config]}" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {printf "min %.3f s, median %.3f s (%d runs)", a[1], a[int((NR+1)/2)], NR}')"
done
printf 'ndjson / csv (medians): %.2f\n' "$(echo "$(median "${runs[bench-ndjson]}") / $(median "${runs[bench]}")" | bc -l)"

#!/bin/sh
# One truth for the rental answer: for every GPU with a known price, the row of the sweep
# (`plan --rps ...` without --gpu) is the same JSON object as the rental figures of
# `plan --gpu NAME` with the same traffic, and the text of both prints the same $ per 1M
# tokens. Two traffics: an open load (--rps) and a closed loop (--users).
# usage: plan_rental_consistency_test.sh GPUPROBE_BINARY
set -u
BIN=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checks=0
failures=0

same() {
  checks=$((checks + 1))
  if [ "$2" != "$3" ]; then
    failures=$((failures + 1))
    echo "MISMATCH $1:"; echo "  sweep: $2"; echo "  --gpu: $3"
  fi
}

for traffic in "--rps 5 --prompt-tokens 1000 --output-tokens 200" "--users 200 --think-time 20 --prompt-tokens 500 --output-tokens 300"; do
  # shellcheck disable=SC2086
  "$BIN" plan --params 8B $traffic --json >"$tmp/sweep.json" || { echo "FAIL: the sweep exited $?"; exit 1; }
  # shellcheck disable=SC2086
  "$BIN" plan --params 8B $traffic >"$tmp/sweep.txt"
  jq -r '.rental.rows[].gpu' "$tmp/sweep.json" >"$tmp/gpus"
  [ -s "$tmp/gpus" ] || { echo "FAIL: the sweep has no rows"; exit 1; }
  while IFS= read -r name; do
    # shellcheck disable=SC2086
    "$BIN" plan --params 8B --gpu "$name" $traffic --json >"$tmp/one.json"
    same "$name ($traffic) rental figures" "$(jq -S -c ".rental.rows[] | select(.gpu == \"$name\")" "$tmp/sweep.json")" \
      "$(jq -S -c '.traffic.rental' "$tmp/one.json")"
    # The text: the row's $ per 1M tokens is the --gpu plan's "per 1M tokens (prompt + output)".
    # shellcheck disable=SC2086
    gpu_text=$("$BIN" plan --params 8B --gpu "$name" $traffic | sed -n 's/.*rental: .*; \(\$[0-9.]*\) per 1M tokens (prompt + output).*/\1/p')
    row_text=$(grep -F "  $name " "$tmp/sweep.txt" | head -n 1 | awk '{c = 0; for (i = 1; i <= NF; i++) if ($i ~ /^\$/ && ++c == 3) print $i}')
    [ -n "$row_text" ] || { failures=$((failures + 1)); echo "MISSING: no \$ per 1M tokens in the sweep's row for $name"; }
    same "$name ($traffic) text \$ per 1M tokens" "$row_text" "$gpu_text"
  done <"$tmp/gpus"
  # The recommendation: the first (cheapest) row within both limits, and every row above it
  # outside one of them (app::RentalSweep::recommended).
  rec=$(jq '.rental.recommended.row' "$tmp/sweep.json")
  lim=$(jq '.rental.recommend_rule.max_p99_wait_seconds' "$tmp/sweep.json")
  same "($traffic) default p99 limit" "1" "$lim"
  same "($traffic) an 8B model at this load has a row to recommend" "yes" "$([ "$rec" != null ] && echo yes)"
  if [ "$rec" != null ]; then
    same "($traffic) recommended row within the limits" "true" \
      "$(jq ".rental.rows[$rec].queueing | .p99_wait_seconds <= $lim and .utilisation <= 0.8" "$tmp/sweep.json")"
    same "($traffic) every cheaper row outside them" "true" \
      "$(jq "[.rental.rows[:$rec][].queueing | (.p99_wait_seconds == null or .p99_wait_seconds > $lim or .utilisation > 0.8)] | all" "$tmp/sweep.json")"
    grep -qF "  Recommended: $(jq -r ".rental.rows[$rec].gpu" "$tmp/sweep.json") x " "$tmp/sweep.txt" ||
      { failures=$((failures + 1)); echo "MISSING: the text names no recommended row ($traffic)"; }
    checks=$((checks + 1))
  fi
done

# The fp16 mark is for a bf16 default planned as fp16 (Volta, Turing), not for a model stored in fp16.
"$BIN" plan --params 8B --rps 5 --prompt-tokens 1000 --output-tokens 200 --json >"$tmp/bf16.json"
"$BIN" plan --params 8B --dtype fp16 --rps 5 --prompt-tokens 1000 --output-tokens 200 --json >"$tmp/fp16.json"
same "bf16 default on a V100 (Volta) is marked" "true" "$(jq '[.rental.rows[], .rental.not_served[] | select(.gpu == "Tesla V100 SXM2 16GB") | .fp16_for_gpu] | first' "$tmp/bf16.json")"
same "bf16 default on an H100 is not" "false" "$(jq '[.rental.rows[] | select(.gpu == "H100 SXM5 80GB") | .fp16_for_gpu] | first' "$tmp/bf16.json")"
same "--dtype fp16 is never marked" "0" "$(jq '[.rental.rows[], .rental.not_served[] | select(.fp16_for_gpu)] | length' "$tmp/fp16.json")"

echo "rental consistency: $checks checks; $failures mismatches"
[ "$failures" = 0 ]

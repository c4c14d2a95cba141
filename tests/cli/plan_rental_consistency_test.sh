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
done

echo "rental consistency: $checks checks; $failures mismatches"
[ "$failures" = 0 ]

#!/bin/sh
# One truth between the serving engine's verdict and the ways to make a job fit: for
# Llama-3.1-8B at --max-model-len 32768 on an A10 (vLLM refuses: one request needs 4.00 GiB of
# KV cache, 3.80 GiB are left), every option is held to the same engine budget, both ways:
# the shorter context is the engine's own longest (its log's "estimated maximum model length"),
# and fp8 KV (half the bytes per token) starts, although the memory model, which charges a
# whole 32k prefill's activations, says the job does not fit.
# usage: plan_engine_options_test.sh GPUPROBE_BINARY
set -u
BIN=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # check LABEL EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "MISMATCH $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
"$BIN" plan --model meta-llama/Llama-3.1-8B --gpu a10 --max-model-len 32768 --json >"$tmp/p.json"
check "exit status 1 (does not fit)" 1 $?
check "the engine refuses" false "$(jq '.engine.fits' "$tmp/p.json")"
longest=$(jq '.engine.budget.longest_that_fits' "$tmp/p.json")
check "shorter context = the engine's longest" "$longest" "$(jq '.options[] | select(.id == "shorter_context") | .value' "$tmp/p.json")"
check "fp8 KV starts" true "$(jq '.options[] | select(.id == "kv_fp8") | .fits' "$tmp/p.json")"
check "options that start come first" true "$(jq '[.options[].fits] | . == (sort | reverse)' "$tmp/p.json")"
# The text names the engine's flag with a value a shell takes (no thousands separator).
"$BIN" plan --model meta-llama/Llama-3.1-8B --gpu a10 --max-model-len 32768 >"$tmp/p.txt"
grep -q -- "--max-model-len $longest)" "$tmp/p.txt" || { echo "MISSING: --max-model-len $longest in the options"; failures=$((failures + 1)); }
grep -q "Does not start on NVIDIA A10 as vLLM V1 budgets it" "$tmp/p.txt" || { echo "MISSING: the engine's verdict heads the options"; failures=$((failures + 1)); }
# With the engine's real log (a vLLM refusal of 29,000 tokens on an RTX 3090 that held 23,648:
# tests/fixtures/engine_logs, log 007), the shorter context is the logged figure, the same value
# as the log's own advice.
log=$(ls "$(dirname "$0")"/../fixtures/engine_logs/logs/007-*.log)
"$BIN" plan --model meta-llama/Llama-3.1-8B --gpu rtx-3090 --from-log "$log" --json >"$tmp/l.json"
check "shorter context = the log's tokens" 23648 "$(jq '.options[] | select(.id == "shorter_context") | .value' "$tmp/l.json")"
check "the log's advice says the same" 23648 "$(jq -r '.from_log.advice[] | select(.flag == "--max-model-len") | .value' "$tmp/l.json")"
echo "plan engine options: $failures mismatches"
[ "$failures" = 0 ]

#!/bin/sh
# One definition of "how much faster is the GPU on a matmul" across verbs: for the same saved
# CPU run (tests/fixtures/bench/cpu-bench-2core.json, a real 2-core run) and the same GPU, the
# report (= the tour's summary), advise and the spec sheet state the same CPU figure, the same
# fp32 GPU figure and the same speed-ups, fp32 against fp32, tensor cores apart.
# usage: matmul_comparison_test.sh GPUPROBE_BINARY FIXTURES_DIR
set -u
BIN=$1
FX=$2
RUN=$FX/bench/cpu-bench-2core.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checks=0
failures=0
same() {  # same LABEL A B
  checks=$((checks + 1))
  if [ "$2" != "$3" ]; then
    echo "MISMATCH: $1: '$2' vs '$3'"
    failures=$((failures + 1))
  fi
}

for gpu in h100 l4 a100-80gb; do
  "$BIN" report --from "$RUN" --gpu "$gpu" -o "$tmp/r.html" --force --json >"$tmp/report.json" || { echo "report failed"; exit 1; }
  "$BIN" gpus show "$gpu" --json >"$tmp/show.json" || { echo "gpus show failed"; exit 1; }
  "$BIN" advise --profile matmul --size 2048 --cpu-results "$RUN" --json >"$tmp/advise.json" || { echo "advise failed"; exit 1; }
  name=$(jq -r '.gpu.name' "$tmp/show.json")
  r='.matmul_comparison'
  # The CPU figure: the run's best fp32 matmul (openblas_sgemm n=2048), measured, in both verbs.
  same "$gpu report cpu source" "measured" "$(jq -r "$r.cpu_source" "$tmp/report.json")"
  same "$gpu report cpu name" "openblas_sgemm n=2048" "$(jq -r "$r.cpu_name" "$tmp/report.json")"
  same "$gpu advise cpu figure = report cpu figure" "$(jq "$r.cpu_fp32_flops" "$tmp/report.json")" "$(jq '.cpu.flops' "$tmp/advise.json")"
  same "$gpu advise comparison cpu = report" "$(jq "$r.cpu_fp32_flops" "$tmp/report.json")" "$(jq "$r.cpu_fp32_flops" "$tmp/advise.json")"
  # The GPU at the same precision: the spec's FP32 peak, the figure advise plans an fp32 matmul on.
  same "$gpu report gpu fp32 = spec" "$(jq '.gpu.fp32_flops' "$tmp/show.json")" "$(jq "$r.gpu_fp32_flops" "$tmp/report.json")"
  same "$gpu advise peak = report gpu fp32" "$(jq "$r.gpu_fp32_flops" "$tmp/report.json")" \
    "$(jq ".gpus[] | select(.gpu == \"$name\") | .peak_flops" "$tmp/advise.json")"
  same "$gpu report tensor = spec bf16" "$(jq '.gpu.bf16_tensor_dense_flops' "$tmp/show.json")" "$(jq "$r.gpu_tensor_bf16_flops" "$tmp/report.json")"
  same "$gpu report fp32 speed-up = gpu / cpu" "$(jq "$r.gpu_fp32_flops / $r.cpu_fp32_flops" "$tmp/report.json")" "$(jq "$r.fp32_speedup" "$tmp/report.json")"
  # advise --gpu: the question "how much faster is this GPU" asked of advise gives the report's
  # figures for that GPU, and only that GPU is ranked.
  "$BIN" advise --profile matmul --size 2048 --cpu-results "$RUN" --gpu "$gpu" --json >"$tmp/advise1.json" || { echo "advise --gpu failed"; exit 1; }
  same "$gpu advise --gpu compares that GPU" "$name" "$(jq -r "$r.gpu" "$tmp/advise1.json")"
  same "$gpu advise --gpu ranks it alone" "1" "$(jq '.gpus | length' "$tmp/advise1.json")"
  same "$gpu advise --gpu fp32 speed-up = report" "$(jq "$r.fp32_speedup" "$tmp/report.json")" "$(jq "$r.fp32_speedup" "$tmp/advise1.json")"
  same "$gpu advise --gpu tensor speed-up = report" "$(jq "$r.tensor_bf16_speedup" "$tmp/report.json")" "$(jq "$r.tensor_bf16_speedup" "$tmp/advise1.json")"
  # The verdict (no GPU in this run: its second line, the spec's GPU) says the fp32 speed-up by
  # the one rounding rule (three significant digits), and names tensor cores apart.
  fp32=$(jq -r "$r.fp32_speedup | if . >= 100 then (. + 0.5 | floor | tostring) else error(\"below 100: not this fixture\") end" "$tmp/report.json")
  if ! jq -r '.verdict[1]' "$tmp/report.json" | grep -q "x the fp32 matmul rate (fp32 against fp32; CPU measured). Its bf16 tensor cores reach"; then
    echo "MISMATCH: $gpu verdict does not say fp32 against fp32: $(jq -r '.verdict[1]' "$tmp/report.json")"; failures=$((failures + 1))
  fi
  checks=$((checks + 1))
  if ! jq -r '.verdict[1]' "$tmp/report.json" | grep -q "${fp32}x the fp32"; then
    echo "MISMATCH: $gpu verdict does not carry the fp32 speed-up ${fp32}"; failures=$((failures + 1))
  fi
  checks=$((checks + 1))
done
# advise's own comparison is with its top GPU: the same figures as that GPU's spec.
top=$(jq -r '.matmul_comparison.gpu' "$tmp/advise.json")
same "advise top gpu fp32 = its peak" "$(jq ".gpus[] | select(.gpu == \"$top\") | .peak_flops" "$tmp/advise.json")" "$(jq '.matmul_comparison.gpu_fp32_flops' "$tmp/advise.json")"
echo "$checks checks, $failures mismatches"
[ "$failures" = 0 ]

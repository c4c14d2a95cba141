#!/bin/sh
# One truth across verbs: for a set of GPUs and models, `gpus show`, `gpus compare`,
# `gpus --task`, `plan` and `advise` must state the same peak BF16 FLOP/s, memory bandwidth,
# usable memory, GPU-to-GPU link and fits / does not fit (asserted on their --json).
# usage: consistency_test.sh GPUPROBE_BINARY
set -u
BIN=$1
GPUS="h100 h200 h100-pcie a100-80gb l40s l4 4090 a6000 mi300x mi355x"
MODELS="7B 13B 70B"
SERVER="--cpu-flops 2e12 --cpu-bandwidth 3e11"
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

# shellcheck disable=SC2086
"$BIN" gpus compare $GPUS --json >"$tmp/compare.json" || { echo "gpus compare failed"; exit 1; }
"$BIN" gpus --task inference-7b-13b --json >"$tmp/task-inference.json" || exit 1
"$BIN" gpus --task llm-serving --json >"$tmp/task-serving.json" || exit 1
"$BIN" gpus --task large-training --json >"$tmp/task-training.json" || exit 1
for m in $MODELS; do
  # shellcheck disable=SC2086
  "$BIN" advise --profile llm-decode --size "$m" $SERVER --json >"$tmp/advise-$m.json" || { echo "advise $m failed"; exit 1; }
done

i=0
for g in $GPUS; do
  "$BIN" gpus show "$g" --json >"$tmp/show.json" || { echo "gpus show $g failed"; exit 1; }
  name=$(jq -r '.gpu.name' "$tmp/show.json")
  usable=$(jq '.gpu.memory_usable_bytes' "$tmp/show.json")
  bandwidth=$(jq '.gpu.memory_bandwidth_bytes_per_s' "$tmp/show.json")
  peak=$(jq '.gpu.bf16_tensor_dense_flops' "$tmp/show.json")
  link=$(jq -r '.gpu.interconnect.kind' "$tmp/show.json")
  link_rate=$(jq '.gpu.interconnect.bytes_per_s_per_direction' "$tmp/show.json")

  # gpus compare: the same figures, in the order given.
  same "$name compare usable" "$usable" "$(jq ".gpus[$i].memory_usable_bytes" "$tmp/compare.json")"
  same "$name compare bandwidth" "$bandwidth" "$(jq ".gpus[$i].memory_bandwidth_bytes_per_s" "$tmp/compare.json")"
  same "$name compare peak" "$peak" "$(jq ".gpus[$i].bf16_tensor_dense_flops" "$tmp/compare.json")"
  same "$name compare link" "$link" "$(jq -r ".gpus[$i].interconnect.kind" "$tmp/compare.json")"
  i=$((i + 1))

  for m in $MODELS; do
    "$BIN" plan --params "$m" --gpu "$g" --json >"$tmp/plan.json"
    rc=$?
    fits=$(jq '.fits_on_gpu' "$tmp/plan.json")
    same "$name $m plan exit status vs fits" "$rc" "$([ "$fits" = true ] && echo 0 || echo 1)"
    same "$name $m plan usable" "$usable" "$(jq '.gpu_spec.memory_usable_bytes' "$tmp/plan.json")"
    same "$name $m plan bandwidth" "$bandwidth" "$(jq '.gpu_spec.memory_bandwidth_bytes_per_s' "$tmp/plan.json")"
    same "$name $m plan peak" "$peak" "$(jq '.gpu_spec.bf16_tensor_dense_flops' "$tmp/plan.json")"
    same "$name $m plan link" "$link" "$(jq -r '.gpu_spec.interconnect.kind' "$tmp/plan.json")"
    same "$name $m plan link rate" "$link_rate" "$(jq '.gpu_spec.interconnect.bytes_per_s_per_direction' "$tmp/plan.json")"
    same "$name $m plan usable after headroom" "$(jq -n "$usable * 0.9")" "$(jq '.fits[0].usable_bytes' "$tmp/plan.json")"
    if [ "$fits" = true ]; then
      # The speed section uses the same bandwidth and peak (a 16-bit job computes in bf16).
      same "$name $m plan throughput bandwidth" "$bandwidth" "$(jq '.throughput.bandwidth_bytes_per_s' "$tmp/plan.json")"
      same "$name $m plan throughput peak" "$peak" "$(jq '.throughput.peak_flops' "$tmp/plan.json")"
    else
      same "$name $m plan: no speed for a job that does not fit" "null" "$(jq '.throughput' "$tmp/plan.json")"
    fi
    # advise plans the LLM the same way (16-bit, 4096 tokens) and states the same figures.
    sel=".gpus[] | select(.gpu == \"$name\")"
    same "$name $m advise fits" "$fits" "$(jq "$sel | .model_fits" "$tmp/advise-$m.json")"
    same "$name $m advise planned bytes" "$(jq '.memory.total_bytes' "$tmp/plan.json")" "$(jq "$sel | .model_bytes" "$tmp/advise-$m.json")"
    same "$name $m advise usable" "$usable" "$(jq "$sel | .usable_bytes" "$tmp/advise-$m.json")"
    same "$name $m advise budget" "$(jq '.fits[0].usable_bytes' "$tmp/plan.json")" "$(jq "$sel | .model_budget_bytes" "$tmp/advise-$m.json")"
    same "$name $m advise bandwidth" "$bandwidth" "$(jq "$sel | .bandwidth_bytes_per_s" "$tmp/advise-$m.json")"
    same "$name $m advise peak" "$peak" "$(jq "$sel | .peak_flops" "$tmp/advise-$m.json")"
    same "$name $m advise link" "$link" "$(jq -r "$sel | .figures.interconnect.kind" "$tmp/advise-$m.json")"
  done

  # gpus --task: each task's verdict on this GPU is plan's verdict on the same job.
  for task in inference large-training serving; do
    case $task in
      inference) file=$tmp/task-inference.json ;;
      large-training) file=$tmp/task-training.json ;;
      serving) file=$tmp/task-serving.json ;;
    esac
    sel=".evaluated[] | select(.gpu == \"$name\")"
    tp=$(jq "$sel | .tensor_parallel" "$file")
    task_fits=$(jq "$sel | .fits" "$file")
    command=$(jq -r '.reference_job.plan_command' "$file" | sed -e 's/^gpuprobe //' -e 's/ --gpu NAME$//' -e 's/ --tp [0-9]*//')
    # shellcheck disable=SC2086
    "$BIN" $command --tp "$tp" --gpu "$g" --json >"$tmp/plan-task.json"
    same "$name task $task fits (tp $tp)" "$task_fits" "$(jq '.fits_on_gpu' "$tmp/plan-task.json")"
    same "$name task $task planned bytes" "$(jq "$sel | .total_bytes" "$file")" "$(jq '.memory.total_bytes' "$tmp/plan-task.json")"
    picked=$(jq "[.picks[] | select(.gpu == \"$name\")] | length" "$file")
    if [ "$picked" != 0 ]; then
      same "$name task $task pick fits" "true" "$(jq '.fits_on_gpu' "$tmp/plan-task.json")"
      same "$name task $task pick bandwidth" "$bandwidth" "$(jq ".picks[] | select(.gpu == \"$name\") | .figures.memory_bandwidth_bytes_per_s" "$file")"
      same "$name task $task pick peak" "$peak" "$(jq ".picks[] | select(.gpu == \"$name\") | .figures.bf16_tensor_dense_flops" "$file")"
      same "$name task $task pick link" "$link" "$(jq -r ".picks[] | select(.gpu == \"$name\") | .figures.interconnect.kind" "$file")"
    fi
  done
done

# No pick of any task is a GPU the planner rejects.
for file in "$tmp"/task-*.json; do
  same "$(basename "$file") picks all fit" "0" "$(jq '[.picks[] | select(.fits != true)] | length' "$file")"
done

echo "consistency: $checks checks over $(echo $GPUS | wc -w) GPUs x $(echo $MODELS | wc -w) models and 3 tasks; $failures mismatches"
[ "$failures" = 0 ]

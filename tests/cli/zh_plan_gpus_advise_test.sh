#!/bin/sh
# `--lang zh` output of plan, gpus and advise holds no English sentence: every line comes from
# data/texts/zh. An English phrase shows as three or more lowercase Latin words in a row;
# product names, units, identifiers, flags and formulas do not form one.
# usage: zh_plan_gpus_advise_test.sh GPUPROBE_BINARY
set -u
BIN=$1
SERVER="--cpu-flops 2e12 --cpu-bandwidth 3e11"
status=0
while IFS= read -r cmd; do
  [ -z "$cmd" ] && continue
  # shellcheck disable=SC2086
  out=$("$BIN" --lang zh $cmd 2>&1)
  rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "FAIL: gpuprobe --lang zh $cmd exited $rc"; status=1
  fi
  # Lowercase words of two or more letters, three in a row, outside a command line quoted in the
  # text, and outside the serving engine's own command (`...`) and log lines ("..."), which plan
  # quotes as the engine prints them.
  english=$(printf '%s\n' "$out" | sed -e 's/gpuprobe [^）)]*//g' -e 's/`[^`]*`//g' -e 's/"[^"]*"//g' | grep -nE '(^|[^A-Za-z0-9_./-])[a-z]{2,} [a-z]{2,} [a-z]{2,}([^A-Za-z0-9_]|$)')
  if [ -n "$english" ]; then
    echo "FAIL: English in gpuprobe --lang zh $cmd:"; printf '%s\n' "$english" | head -5; status=1
  fi
done <<EOF_COMMANDS
plan --params 70B --gpu 4090
plan --params 70B --tp 8 --gpu h100
plan --params 70B --tp 8 --gpu l40s
plan --params 8B --gpu l4 --rps 5 --prompt-tokens 1000 --output-tokens 200 --price l4=0.80
plan --params 8B --gpu h100 --users 200 --think-time 20 --prompt-tokens 500 --output-tokens 300
plan --params 8B --mode full --gpu h100 --tp 8 --train-tokens 2B
plan --params 13B --mode lora --gpu 4090
plan --params 13B --mode qlora --gpu 4090
plan --params 7B
gpus
gpus show h100
gpus show mi300x
gpus compare 4090 l40s mi300x h100-pcie
gpus --task prototype
gpus --task inference-7b-13b
gpus --task fine-tune
gpus --task large-training
gpus --task llm-serving
advise --profile llm-decode --size 70B $SERVER
advise --profile vector $SERVER
advise --profile matmul $SERVER --price h100=2
advise --flops 2e5 --bytes 1e5 --transfer-bytes 2e4 --parallel-fraction 0.3 --branchy high --calls-per-second 2000 $SERVER
EOF_COMMANDS
[ "$status" = 0 ] && echo "zh: no English sentence in plan, gpus and advise"
exit $status

#!/bin/sh
# zh_leak_test.sh GPUPROBE ZH_LEAK_CHECK TESTS_DIR FAKE_NVML
# Runs every verb with --lang zh, on this machine and on every kind of fixture, and fails on
# English left in the output (tests/cli/zh_leak_checker.h: product names, units, identifiers,
# paths, commands, versions and quoted text are allowed; tests/cli/zh_allowlist.txt lists the
# words). Every --help page is checked too. Exit status: 0 clean, 1 leaks (each printed with
# its line), 2 bad usage.
set -u
[ $# -eq 4 ] || { echo "usage: zh_leak_test.sh GPUPROBE ZH_LEAK_CHECK TESTS_DIR FAKE_NVML" >&2; exit 2; }
bin=$1; check=$2; tests=$3; fake_nvml=$4
fx=$tests/fixtures
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The allowlist, plus this machine's host name: it is data (report titles, history rows).
allow=$dir/allowlist.txt
{ cat "$tests/cli/zh_allowlist.txt"; uname -n 2>/dev/null | tr -c 'A-Za-z0-9\n' ' '; echo; } >"$allow"

failed=0; checked=0

# check NAME VERB FILE: leak-checks FILE, the output of case NAME of verb VERB.
check() {
  name=$1; verb=$2; file=$3
  checked=$((checked + 1))
  if "$check" "$allow" "$file" >"$dir/leaks" 2>&1; then return 0; fi
  failed=$((failed + 1))
  echo "FAIL: $name"
  head -n 40 "$dir/leaks" | sed 's/^/    /'
}

# run NAME VERB COMMAND...: runs COMMAND (use `env` for variables), checks its stdout and
# stderr together. A crash (a signal) fails whatever the verb.
run() {
  name=$1; verb=$2; shift 2
  out=$dir/out
  "$@" >"$out" 2>&1
  rc=$?
  if [ $rc -ge 128 ]; then failed=$((failed + 1)); echo "FAIL: $name crashed (exit $rc)"; return; fi
  check "$name" "$verb" "$out"
}

# html_text FILE: the text a reader sees in an HTML page (no tags, styles or scripts).
html_text() {
  python3 -c '
import html, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
page = re.sub(r"(?s)<(style|script)[^>]*>.*?</\1>", " ", page)
page = re.sub(r"(?s)<[^>]+>", "\n", page)
print(html.unescape(page))' "$1"
}

# --- the tour, the first thing a new reader sees; its JSON and HTML, saved in Chinese
run "tour --no-bench" tour "$bin" --lang zh --no-bench --no-report
run "tour (quick bench, report)" tour "$bin" --lang zh --report "$dir/tour.html"
html_text "$dir/tour.html" >"$dir/tour.txt" && check "tour's HTML report" report "$dir/tour.txt"
run "tour, live state from the fake NVML" tour env GPUPROBE_NVML_LIBRARY="$fake_nvml" FAKE_NVML_FIXTURE="$fx/nvml/h200-load.nvml" \
  GPUPROBE_DOCTOR_ROOT="$fx/doctor/no-gpu" "$bin" --lang zh --no-bench --no-report

# --- bench, history and report
run "bench memory.triad" bench "$bin" --lang zh bench memory.triad --seconds 0.01
run "bench --list" bench "$bin" --lang zh bench --list
run "bench unknown id" bench "$bin" --lang zh bench memory.triadd
run "bench --backend cuda" bench "$bin" --lang zh bench --backend cuda
run "bench collectives (fewer than two GPUs: exit 3)" bench "$bin" --lang zh bench collectives
run "bench p2p (fewer than two GPUs: exit 3)" bench "$bin" --lang zh bench p2p
run "bench collectives --dry-run" bench "$bin" --lang zh bench collectives --dry-run
run "bench p2p --dry-run" bench "$bin" --lang zh bench p2p --dry-run
run "bench collectives, unknown name" bench "$bin" --lang zh bench collectives gather --dry-run
run "bench p2p, extra name" bench "$bin" --lang zh bench p2p all_reduce
run "bench --dry-run without collectives" bench "$bin" --lang zh bench memory.triad --dry-run
for i in 1 2; do
  run "bench --save $i" bench "$bin" --lang zh bench memory.triad --seconds 0.01 --save --db "$dir/h.db"
done
run "history" history "$bin" --lang zh history --db "$dir/h.db"
run "history compare" history "$bin" --lang zh history compare --db "$dir/h.db"
run "history compare, unknown run" history "$bin" --lang zh history compare 1 99 --db "$dir/h.db"
run "history, not a history file" history "$bin" --lang zh history --db "$fx/report/tour-cpu-2core.json"
# A report from a tour saved in Chinese (a bench, and doctor finding a container without its
# GPUs): every word of it must be Chinese.
env GPUPROBE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GPUPROBE_DOCTOR_ROOT="$fx/doctor/container-no-gpus" NVIDIA_VISIBLE_DEVICES=all \
  PATH="$fx/doctor/bin:/usr/bin:/bin" "$bin" --lang zh --json --no-report >"$dir/tour-zh.json" 2>/dev/null
run "report --from (saved in zh)" report "$bin" --lang zh report --from "$dir/tour-zh.json" -o "$dir/r.html"
html_text "$dir/r.html" >"$dir/r.txt" && check "report --from (saved in zh): the HTML" report "$dir/r.txt"
# Saved files keep the language they were written in (their evidence is recorded text): a
# report from English files is checked for a crash and for missing texts only.
for f in "$fx"/report/*.json; do
  checked=$((checked + 1))
  "$bin" --lang zh report --from "$f" -o "$dir/e.html" --force >"$dir/out" 2>&1
  rc=$?
  if [ $rc -ge 128 ] || grep -q "missing text" "$dir/out" "$dir/e.html" 2>/dev/null; then
    failed=$((failed + 1)); echo "FAIL: report --from $(basename "$f"): exit $rc or a missing text"
  fi
done

# --- doctor, on this machine and on recorded machines
run "doctor (this machine)" doctor "$bin" --lang zh doctor --no-smoke-test
for root in no-gpu container-no-gpus; do
  run "doctor ($root)" doctor env GPUPROBE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GPUPROBE_DOCTOR_ROOT="$fx/doctor/$root" \
    NVIDIA_VISIBLE_DEVICES=all PATH="$fx/doctor/bin:/usr/bin:/bin" "$bin" --lang zh doctor
done
run "doctor (h200 node)" doctor env GPUPROBE_NVML_LIBRARY="$fake_nvml" FAKE_NVML_FIXTURE="$fx/nvml/h200-load.nvml" \
  GPUPROBE_DOCTOR_ROOT="$fx/doctor/h200-node" PATH="$fx/doctor/bin-torch:/usr/bin:/bin" "$bin" --lang zh doctor --no-smoke-test

# --- the planning and reading verbs
run "gpus" gpus "$bin" --lang zh gpus
run "gpus show h200" gpus "$bin" --lang zh gpus show h200
run "gpus compare" gpus "$bin" --lang zh gpus compare a100-80gb h100 h200
run "gpus --task" gpus "$bin" --lang zh gpus --task llm-serving
run "gpus links" gpus "$bin" --lang zh gpus links
run "plan --params 8B" plan "$bin" --lang zh plan --params 8B --gpu h200
run "plan --model" plan "$bin" --lang zh plan --model "$fx/configs/meta-llama--llama-3.1-8b.config.json" --gpu h200
run "plan rental sweep" plan "$bin" --lang zh plan --params 8B --rps 5 --prompt-tokens 1000 --output-tokens 200
run "plan rental sweep (405B)" plan "$bin" --lang zh plan --params 405B --rps 1 --prompt-tokens 1000 --output-tokens 200
run "plan --gpu traffic" plan "$bin" --lang zh plan --params 8B --gpu a10 --rps 5 --prompt-tokens 1000 --output-tokens 200
run "plan lora training" plan "$bin" --lang zh plan --params 8B --mode lora --gpu h100 --tp 2 --train-tokens 1B
run "plan on a T4 (fp16)" plan "$bin" --lang zh plan --params 1B --gpu t4
run "advise matmul" advise "$bin" --lang zh advise --profile matmul
for f in "$fx"/nvidia-smi/captures/*.txt "$fx"/nvidia-smi/xml/*.xml "$fx"/captures_public/*/*.*; do
  run "inspect --from $(basename "$f")" inspect "$bin" --lang zh inspect --from "$f"
done
# Interconnect captures (inspect's topology, NVLink and fabric views): every one, leak-free.
for f in "$fx"/topology/topo-m/*.txt "$fx"/topology/nvlink/*.txt "$fx"/topology/fabric-manager/*.txt; do
  run "inspect --from topology/$(basename "$(dirname "$f")")/$(basename "$f")" topology "$bin" --lang zh inspect --from "$f"
done
run "inspect --topology (fake NVML)" topology env GPUPROBE_NVML_LIBRARY="$fake_nvml" FAKE_NVML_FIXTURE="$fx/nvml/topology-4gpu-synthetic.nvml" \
  "$bin" --lang zh inspect --topology
for f in $(ls "$fx"/error_corpus/texts/* | head -n 8); do
  run "explain $(basename "$f")" explain "$bin" --lang zh explain "$(cat "$f")"
done
run "explain Xid" explain "$bin" --lang zh explain "Xid 79"
# The 2024 corpus's train texts (pasted on standard input), a capability answer for a given
# GPU, and the profile of a text nothing matches.
for f in $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("\n".join(t["file"] for t in d["texts"] if t["split"] == "train"))' "$fx/error_corpus_2024/index.json"); do
  run "explain 2024/$(basename "$f")" explain sh -c "exec \"\$0\" --lang zh explain - < \"\$1\"" "$bin" "$fx/error_corpus_2024/$f"
done
run "explain --gpu t4 (capability)" explain "$bin" --lang zh explain --gpu t4 "Bfloat16 is only supported on GPUs with compute capability of at least 8.0."
run "explain (profile)" explain "$bin" --lang zh explain "ggml_backend_sched: graph rebuild failed: error 7 in ggml-cuda.cu:1234 on RTX 4090"
# The glossary (issue 26): the list of terms and every term, by the name a user types.
run "explain --list-terms" explain "$bin" --lang zh explain --list-terms
python3 -c 'import json, sys; print("\n".join(t["names"][0] for t in json.load(open(sys.argv[1], encoding="utf-8"))["terms"]))' \
  "$tests/../data/knowledge/glossary.json" >"$dir/terms"
while IFS= read -r term; do
  run "explain $term (glossary)" explain "$bin" --lang zh explain "$term"
done <"$dir/terms"
run "explain --term (not in the glossary)" explain "$bin" --lang zh explain --term warpp
run "explain (a mistyped term)" explain "$bin" --lang zh explain tensr core
run "serve bad interval" serve "$bin" --lang zh serve --interval 0

# --- every --help page and the errors of the command line itself
run "gpuprobe --help" help "$bin" --lang zh --help
for verb in tour inspect doctor explain gpus plan bench advise report history serve; do
  run "$verb --help" help "$bin" --lang zh "$verb" --help
done
run "unknown verb" help "$bin" --lang zh gpsu
run "empty value" help "$bin" --lang zh plan --gpu ""
run "unknown flag" help "$bin" --lang zh bench --bogus
run "bad number" help "$bin" --lang zh bench --threads abc
run "missing file" help "$bin" --lang zh report --from "$dir/nope.json" -o "$dir/x.html"
run "a directory" help "$bin" --lang zh report --from "$dir" -o "$dir/x.html"
run "not JSON" help "$bin" --lang zh report --from "$fx/hf_configs/README.md" -o "$dir/x.html"
run "report onto a directory" help "$bin" --lang zh report --from "$fx/report/tour-cpu-2core.json" -o "$dir"
run "unknown task" help "$bin" --lang zh gpus --task serving
run "unknown task, near" help "$bin" --lang zh gpus --task llm-servng
run "--price without =" help "$bin" --lang zh gpus --task llm-serving --price l4
run "--price not a number" help "$bin" --lang zh gpus --task llm-serving --price l4=cheap

echo "zh leak test: $checked outputs checked, $failed with English"
[ $failed -eq 0 ]

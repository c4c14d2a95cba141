#!/bin/sh
# bad_input_matrix.sh GPUPROBE CASES_FILE: runs every hostile or careless input of CASES_FILE
# (one case per line: EXIT<TAB>REGEX<TAB>ARGS, ARGS split on spaces; @NAME is replaced by the
# path of a generated input file, see make_inputs, and @EMPTY by an empty argument) and
# checks, for each:
#   - the exit status is the expected one (2 for bad input, 3 for what is not here),
#   - the output matches REGEX and never says "unexpected error" or shows a crash,
#   - it finishes within 20 s (a FIFO or a device must never block),
#   - nothing is written into the working folder (no report, no database, no temp file).
# Prints one line per failing case and a summary; exit 1 when any case fails.
set -u
# Names nothing resolves are answered offline here (exit 2 with "did you mean"); asking the Hub
# is tested against a local server (cli.plan_from_hub, cli.plan_hub_unreachable_suggests).
export HF_HUB_OFFLINE=1
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cases=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs="$work/in"
mkdir -p "$inputs"

make_inputs() {
  d=$inputs
  # JSON of every hostile shape.
  printf '' >"$d/empty.json"
  printf '{"schema": "gpuprobe.bench.v1", "results": [' >"$d/truncated.json"
  python3 -c "print('['*100000 + ']'*100000)" >"$d/deep-array.json"
  python3 -c "print('{\"a\":'*50000 + '1' + '}'*50000)" >"$d/deep-object.json"
  printf '{"hidden_size": 1e999}' >"$d/huge-number.json"
  printf '\xff\xfe\x00garbage\x00\x01' >"$d/binary.json"
  printf '{"model_type": "llama", "hidden_size": "\xff\xfe", "num_hidden_layers": 2}' >"$d/bad-utf8.json"
  printf '[1, 2, 3]' >"$d/array.json"
  printf '{"schema": "gpuprobe.bench.v1", "results": []}' >"$d/bench-ok.json"
  printf '"just a string"' >"$d/string.json"
  printf '{"schema": "gpuprobe.bench.v1", "results": [{"id": 7, "backend": "cpu", "metric": "bandwidth", "value": 1}]}' >"$d/bench-wrong-type.json"
  printf '{"schema": "gpuprobe.bench.v1", "results": [{"id": "memory.triad", "backend": "cpu", "metric": "bandwidth", "value": -5}]}' >"$d/bench-negative.json"
  printf '{"schema": "gpuprobe.bench.v1", "machine": {"cpu": {"physical_cores": 1e300}}, "results": []}' >"$d/bench-absurd-cores.json"
  printf '{"schema": "gpuprobe.inspect.v1", "gpus": "not a list"}' >"$d/inspect-wrong-type.json"
  printf '{"schema": "gpuprobe.tour.v1", "gpu": {"available": "yes", "devices": 3}, "inspect": {"gpus": [{"index": "zero", "name": 5}]}}' >"$d/tour-wrong-types.json"
  printf '{"schema": "gpuprobe.doctor.v1", "checks": [{"status": 1, "title": []}]}' >"$d/doctor-wrong-types.json"
  printf '{"model_type": "llama", "hidden_size": -4096, "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000}' >"$d/negative-size.json"
  printf '{"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 1000000000000, "num_experts_per_tok": 2}' >"$d/absurd-experts.json"
  # A type nobody knows with no sizes (a known type alone is planned from its class defaults,
  # as transformers builds it).
  printf '{"model_type": "my_llama"}' >"$d/missing-fields.json"
  # XML and captures.
  python3 -c "print('<nvidia_smi_log>' + '<gpu>'*100000 + '</gpu>'*100000 + '</nvidia_smi_log>')" >"$d/deep.xml"
  printf '<?xml version="1.0"?>\n<nvidia_smi_log><driver_version>535' >"$d/truncated.xml"
  printf '<?xml version="1.0"?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v99999999999999.dtd">\n<nvidia_smi_log><attached_gpus>1</attached_gpus></nvidia_smi_log>\n' >"$d/dtd-huge.xml"
  printf '<?xml version="1.0"?>\n<nvidia_smi_log><gpu id="0"><fb_memory_usage><total>-5 MiB</total><used>1e30 MiB</used></fb_memory_usage><clocks><sm_clock>1e30 MHz</sm_clock></clocks></gpu></nvidia_smi_log>\n' >"$d/absurd-values.xml"
  printf '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n<nvidia_smi_log><gpu id="0"><product_name>&c;</product_name></gpu></nvidia_smi_log>\n' >"$d/entities.xml"
  printf 'name, memory.total [MiB]\nNVIDIA H200, \n, , , ,\n' >"$d/broken.csv"
  printf 'not a capture at all\n' >"$d/text.txt"
  python3 -c "import sys; sys.stdout.write('x' * (300 << 20))" >"$d/huge.txt" 2>/dev/null || true
  printf 'SQLite format 3\000garbage' >"$d/fake.db"
  printf 'my notes\n' >"$d/notes.db"
  : >"$d/empty.db"
  printf '\x00\x01\x02\x03' >"$d/binary.gguf"
  printf 'GGUF\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' >"$d/absurd-counts.gguf"
  mkdir -p "$d/dir" "$d/checkpoint-empty" "$d/checkpoint-bad"
  printf '{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}' >"$d/checkpoint-bad/config.json"
  printf '\xff\xff\xff\xff\xff\xff\xff\x7f{}' >"$d/checkpoint-bad/model.safetensors"
  mkfifo "$d/fifo"
}
make_inputs

run_dir="$work/run"
total=0
failed=0
tab=$(printf '\t')
while IFS="$tab" read -r want regex args; do
  case "$want" in ''|'#'*) continue ;; esac
  total=$((total + 1))
  rm -rf "$run_dir"; mkdir -p "$run_dir"
  # @NAME -> the generated input file; @EMPTY -> "".
  set -f
  set --
  for a in $args; do
    case "$a" in
      @EMPTY) a="" ;;
      @*) a="$inputs/${a#@}" ;;
    esac
    set -- "$@" "$a"
  done
  set +f
  out=$(cd "$run_dir" && timeout 20 "$bin" "$@" </dev/null 2>&1)
  got=$?
  problem=""
  if [ "$got" = 124 ]; then problem="hung (killed after 20 s)"
  elif [ "$got" -ge 128 ]; then problem="crashed (status $got)"
  elif [ "$got" != "$want" ]; then problem="exit $got, expected $want"
  fi
  if [ -z "$problem" ] && printf '%s' "$out" | grep -qiE 'unexpected error|terminate called|what\(\)|Segmentation|AddressSanitizer|runtime error'; then
    problem="an internal error reached the user"
  fi
  if [ -z "$problem" ] && ! printf '%s' "$out" | grep -qE -- "$regex"; then problem="output does not match /$regex/"; fi
  if [ -z "$problem" ] && [ -n "$(ls -A "$run_dir")" ]; then problem="wrote into the working folder: $(ls -A "$run_dir" | head -3 | tr '\n' ' ')"; fi
  if [ -n "$problem" ]; then
    failed=$((failed + 1))
    echo "FAIL [$args]: $problem"
    printf '%s\n' "$out" | head -5 | sed 's/^/    | /'
  fi
done <"$cases"
echo "bad-input matrix: $((total - failed)) of $total cases passed"
[ "$failed" = 0 ]

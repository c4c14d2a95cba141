#!/bin/sh
# terminal_escape_test.sh GPUPROBE SOURCE_DIR: escape sequences from every kind of untrusted
# input (a --query-gpu CSV's name, an XML product_name, a kernel log line, a GGUF
# architecture, a config's model_type, a history's fields, a name typed on the command line)
# never reach the terminal raw: stdout and stderr of each verb, in en and zh, hold no ESC
# (0x1b) or BEL (0x07) byte, and the escaped form "\x1b" is shown instead.
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
esc=$(printf '\033')
bel=$(printf '\007')

csv=$src/tests/fixtures/captures_public/csv/tesla-p100-pcie-16gb__driver-unknown__linux__netdata.csv
{ head -1 "$csv"; sed -n 2p "$csv" | sed "s/^Tesla/Tesla${esc}]0;pwned${bel}${esc}[2J/"; } >"$work/name.csv"
sed "s|<product_name>[^<]*</product_name>|<product_name>NVIDIA ${esc}[31mA10G${esc}]8;;http://x${bel}</product_name>|" \
  "$src/tests/fixtures/nvidia-smi/xml/a10g.xml" >"$work/name.xml"
printf 'Dec  4 10:00:00 node7 kernel: NVRM: Xid (PCI:0000:17:00): 79, pid=1, name=py%s]0;t%s, GPU has fallen off the bus.\n' "$esc" "$bel" >"$work/kern.log"
printf '{"model_type": "llama\\u001b[2J", "hidden_size": 64}\n' >"$work/config.json"
python3 "$src/tests/cli/make_checkpoint.py" gguf "$work/tiny.gguf"
python3 - "$work/tiny.gguf" "$work/history.db" "$src/tests/fixtures/history/format1-schema.sql" <<'PY'
import sqlite3, sys
data = open(sys.argv[1], "rb").read()
key = b"general.architecture"
at = data.index(key) + len(key) + 4 + 8  # the value's type, then its length
data = data[:at] + b"\x1b[2Jm" + data[at + 5:]  # "llama" -> ESC [ 2 J m, same length
open(sys.argv[1], "wb").write(data)
db = sqlite3.connect(sys.argv[2])
db.executescript(open(sys.argv[3]).read())
for i in (1, 2):
    db.execute("INSERT INTO runs VALUES (?, '2025-01-01T00:00:00Z', ?, ?, '', 'quick', '0.1', '{}')",
               (i, "node\x1b]0;owned\x07", "CPU\x1b[2J"))
    db.execute("INSERT INTO results VALUES (?, ?, 'memory.triad', 'cpu', ?, 'bandwidth', 'B/s', 2, 1e10, 9e9, 1.1e10, 0)",
               (i, "memory.triad|cpu|all\x1b[5m", "all\x1b[5m"))
db.commit()
PY

check() {  # check [--raw-only] NAME ARGS...: in en and zh
  quoted=1
  if [ "$1" = --raw-only ]; then quoted=0; shift; fi
  name=$1; shift
  for lang in en zh; do
    "$bin" --lang "$lang" "$@" >"$work/out" 2>&1
    if LC_ALL=C grep -q "[$esc$bel]" "$work/out"; then
      echo "FAIL: $name ($lang): a raw ESC or BEL reached the terminal"; fail=1
    elif [ "$quoted" = 1 ] && ! LC_ALL=C grep -qF '\x1b' "$work/out"; then
      echo "FAIL: $name ($lang): the input's ESC is not shown escaped"; sed -n 1,5p "$work/out"; fail=1
    fi
  done
}

check csv_name inspect --from "$work/name.csv"
check xml_product_name inspect --from "$work/name.xml"
check kernel_log explain --from "$work/kern.log"
check gguf_architecture plan --model "$work/tiny.gguf"
check config_model_type plan --model "$work/config.json"
check history_fields history --db "$work/history.db"
check history_compare history compare --db "$work/history.db"
check typed_gpu_name gpus show "h100${esc}]0;x${bel}"
check typed_plan_gpu plan --params 7B --gpu "a100${esc}[2J"
check --raw-only typed_explain explain "CUDA error: out of memory ${esc}[2J"
if [ "$fail" = 0 ]; then echo "terminal escapes: every source shown escaped, none raw"; fi
exit "$fail"

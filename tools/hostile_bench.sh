#!/bin/sh
# tools/hostile_bench.sh [GPUPROBE]: the worst case of each class of hostile input that a small
# file can ask for (issue: bounded work on any input), with wall time and peak memory of each
# run. A benchmark, not a test: it prints figures and asserts nothing. The budget the project
# holds itself to is 2 s and 512 MB per case on a 2-core machine.
#
#   csv_rows      a --query-gpu CSV of 200,000 rows (6 MB)
#   xml_gpus      an nvidia-smi -q -x XML with 10^6 <gpu> elements (under the 64 MiB input cap)
#   long_name     a 100,000-character GPU name for 'gpus show' and 'plan --gpu'
#   sparse_gguf   a 1 GiB sparse GGUF (4 KB on disk) whose metadata claims the whole file
#   xid_lines     'explain --from' on 10^6 distinct Xid lines
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/gpuprobe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # measure NAME COMMAND...: one line "NAME exit=N wall=S peak=MB"
  name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" && rc=0 || rc=$?
  set -- $(tail -1 "$work/time")
  printf '%-22s exit=%-3s wall=%6.2f s  peak=%6.0f MB  %s\n' "$name" "$rc" "$1" "$(($2 / 1024))" \
    "$(head -c 110 "$work/err" | tr '\n' ' ')"
}

csv=$here/tests/fixtures/captures_public/csv/tesla-p100-pcie-16gb__driver-unknown__linux__netdata.csv
{ head -1 "$csv"; awk 'NR == 2 { for (i = 0; i < 200000; i++) print }' "$csv"; } >"$work/rows.csv"
measure csv_rows "$bin" inspect --from "$work/rows.csv"

xml=$here/tests/fixtures/nvidia-smi/xml/a10g.xml
python3 - "$xml" "$work/gpus.xml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
head, gpu, tail = re.match(r"(?s)(.*?)(<gpu .*?</gpu>\s*)(.*)", text).groups()
small = "<gpu id=\"00000000:00:1E.0\"><product_name>x</product_name></gpu>\n"
with open(sys.argv[2], "w") as out:
    out.write(head)
    out.write(small * 1000000)
    out.write(tail)
PY
measure xml_gpus "$bin" inspect --from "$work/gpus.xml"

gpu_name=$(python3 -c 'print("A" * 100000)')
measure long_name_gpus "$bin" gpus show "$gpu_name"
measure long_name_plan "$bin" plan --params 7B --gpu "$gpu_name"

python3 - "$work/sparse.gguf" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    key = b"general.architecture"
    f.write(struct.pack("<IIQQ", 0x46554747, 3, 0, 1))
    f.write(struct.pack("<Q", len(key)) + key)
    f.write(struct.pack("<IIQ", 9, 4, (1 << 26) - 1))  # an array of 2^26-1 uint32: 256 MiB claimed, none on disk
    f.truncate(1 << 30)
PY
measure sparse_gguf "$bin" plan --model "$work/sparse.gguf"

awk 'BEGIN { for (i = 0; i < 1000000; i++)
  printf "Dec  4 10:%02d:%02d node7 kernel: [%d.%06d] NVRM: Xid (PCI:0000:%02x:00): %d, pid=%d, name=python%d, Ch %08x\n",
         int(i / 60) % 60, i % 60, i, i, i % 256, 13 + (i % 3) * 18, 1000 + i, i, i }' >"$work/xid.log"
measure xid_lines "$bin" explain --from "$work/xid.log"
measure xid_lines_grep grep -c Xid "$work/xid.log"

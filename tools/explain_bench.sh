#!/bin/sh
# tools/explain_bench.sh [GPUPROBE] [LINES]: times `gpuprobe explain --from` on generated logs of
# LINES lines (default 1,000,000, about 108 MB), beside `grep -c` on the same file in the same
# run. A benchmark, not a test: it prints figures, asserts nothing.
#
# The log is both error corpora (tests/fixtures/error_corpus and error_corpus_2024: every text
# one after the other, each line behind a syslog prefix) interleaved with ordinary kernel-log
# lines that match nothing, repeated until it has LINES lines. Two variants are timed:
#   repeated  - the corpora as they are: every error text recurs hundreds of times, as errors
#               recur in real logs (Xid storms, each rank's copy of a traceback);
#   distinct  - the same lines with a unique token in every message, so no record repeats
#               (the worst case for explain's memo of records already recognised).
# For each: explain's wall, user and system time, its wall time per 100 MB, and `grep -c` for
# one word on the same file (the floor: one pass over the bytes). Uses /usr/bin/time. On a
# shared machine the wall time follows the load (printed first); user + system time is the
# figure to compare between builds.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/gpuprobe}
lines=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk 'FNR == 1 { n++; t = sprintf("Aug  5 03:%02d:%02d", int(n / 60) % 60, n % 60)
                printf "%s node7 kernel: [%d.%06d] eth0: link up, 100Gbps, full duplex\n", t, n, n
                printf "%s node7 systemd[1]: Started Session %d of user root.\n", t, n
                printf "%s node7 kernel: [%d.%06d] audit: type=1400 apparmor=\"STATUS\" name=\"docker-default\" pid=%d\n", t, n, n, n }
     { printf "%s node7 app[%d]: %s\n", t, n, $0 }' "$here"/tests/fixtures/error_corpus/texts/*.txt \
  "$here"/tests/fixtures/error_corpus_2024/texts/*.txt >"$work/seed.log"

seed_lines=$(wc -l <"$work/seed.log")
copies=$(( (lines + seed_lines - 1) / seed_lines ))
i=0
: >"$work/all.log"
while [ "$i" -lt "$copies" ]; do cat "$work/seed.log" >>"$work/all.log"; i=$((i + 1)); done
head -n "$lines" "$work/all.log" >"$work/repeated.log"
rm -f "$work/all.log"
# A unique token right after the syslog prefix, inside the message.
awk '{ i = index($0, "]: "); if (i == 0) i = index($0, ": ");
       if (i > 0) print substr($0, 1, i + 1) " u" NR substr($0, i + 2); else print }' "$work/repeated.log" >"$work/distinct.log"

timed() {  # timed LABEL FILE COMMAND...: one run, "label: wall user sys" and the per-100-MB wall
  label=$1; file=$2; shift 2
  bytes=$(wc -c <"$file")
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  read -r user sys <"$work/time"
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v b="$bytes" \
    'BEGIN { printf "  %-8s %7.3f s wall, %6.2f s user, %5.2f s sys   (%.3f s wall per 100 MB)\n", l, w, u, s, w * 1e8 / b }'
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for variant in repeated distinct; do
  log="$work/$variant.log"
  echo "$variant: $(wc -c <"$log") bytes, $(wc -l <"$log") lines"
  for run in 1 2 3; do
    timed "explain" "$log" "$bin" explain --from "$log"
    timed "grep -c" "$log" grep -c error "$log"
  done
done
"$bin" explain --from "$work/repeated.log" | head -1

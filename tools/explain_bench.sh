#!/bin/sh
# tools/explain_bench.sh [GPUPROBE] [SIZE_MB]: times `gpuprobe explain --from` on generated logs
# of SIZE_MB megabytes (default 100). A benchmark, not a test: it prints figures, asserts
# nothing.
#
# The log is the error corpus (tests/fixtures/error_corpus/texts, all 424 texts one after the
# other, each line behind a syslog prefix) interleaved with ordinary kernel-log lines that
# match nothing, repeated until it reaches the size. Two variants are timed:
#   repeated  - the corpus as it is: every error text recurs ~330 times, as errors recur in
#               real logs (Xid storms, each rank's copy of a traceback);
#   distinct  - the same lines with a unique token in every message, so no record repeats
#               (the worst case for explain's memo of records already recognised).
# Uses hyperfine when installed, else three runs under /usr/bin/time (wall, user, sys).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/gpuprobe}
size_mb=${2:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk 'FNR == 1 { n++; t = sprintf("Aug  5 03:%02d:%02d", int(n / 60) % 60, n % 60)
                printf "%s node7 kernel: [%d.%06d] eth0: link up, 100Gbps, full duplex\n", t, n, n
                printf "%s node7 systemd[1]: Started Session %d of user root.\n", t, n
                printf "%s node7 kernel: [%d.%06d] audit: type=1400 apparmor=\"STATUS\" name=\"docker-default\" pid=%d\n", t, n, n, n }
     { printf "%s node7 app[%d]: %s\n", t, n, $0 }' "$here"/tests/fixtures/error_corpus/texts/*.txt >"$work/seed.log"

target=$((size_mb * 1000 * 1000))
: >"$work/repeated.log"
while [ "$(wc -c <"$work/repeated.log")" -lt "$target" ]; do cat "$work/seed.log" >>"$work/repeated.log"; done
head -c "$target" "$work/repeated.log" >"$work/cut.log" && mv "$work/cut.log" "$work/repeated.log"
# A unique token right after the syslog prefix, inside the message.
awk '{ i = index($0, "]: "); if (i == 0) i = index($0, ": ");
       if (i > 0) print substr($0, 1, i + 1) " u" NR substr($0, i + 2); else print }' "$work/repeated.log" >"$work/distinct.log"

for variant in repeated distinct; do
  log="$work/$variant.log"
  echo "$variant: $(wc -c <"$log") bytes, $(wc -l <"$log") lines"
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --warmup 1 --runs 5 "$bin explain --from $log"
  else
    for run in 1 2 3; do
      /usr/bin/time -f "  run $run: %e s wall, %U s user, %S s sys, %M KiB" "$bin" explain --from "$log" >/dev/null
    done
  fi
done
"$bin" explain --from "$work/repeated.log" | head -1

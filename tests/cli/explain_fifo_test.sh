#!/bin/sh
# explain_fifo_test.sh GPUPROBE: `explain --from` on a FIFO with no writer must refuse it at
# once (exit 2, "not a regular file") instead of blocking forever on the open or the read.
set -u
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/fifo" || { echo "skipped: mkfifo failed"; exit 77; }
out=$(timeout 20 "$bin" explain --from "$dir/fifo" 2>&1)
rc=$?
if [ "$rc" = 124 ]; then echo "FAIL: explain --from blocked on a FIFO"; exit 1; fi
if [ "$rc" != 2 ]; then echo "FAIL: exit status $rc, expected 2"; echo "$out"; exit 1; fi
case "$out" in *"not a regular file"*) ;; *) echo "FAIL: no reason given: $out"; exit 1 ;; esac
exit 0

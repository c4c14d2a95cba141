#!/bin/sh
# capture_ptxas.sh LOG_DIR COMMAND...: the CUDA compiler launcher of gpuprobe_cuda. Runs one
# compile (COMMAND, built with -Xptxas=-v) and keeps ptxas's report for every kernel and
# architecture (registers, stack, spill stores and loads) in LOG_DIR/<source>.ptxas.txt, for
# the PTX inspection test. Everything else the compiler prints still reaches the terminal.
# CMake's compile line names the source after -c.
set -u
dir=$1
shift
src=""
prev=""
for arg in "$@"; do
  if [ "$prev" = "-c" ]; then src=$arg; fi
  prev=$arg
done
name=$(basename "$src" .cu)
mkdir -p "$dir"
tmp="$dir/$name.ptxas.$$.tmp"
"$@" 2>"$tmp"
rc=$?
grep -v -E '^ptxas info|^ +[0-9]+ bytes stack frame' "$tmp" >&2
if [ "$rc" -eq 0 ] && [ -n "$src" ]; then
  mv "$tmp" "$dir/$name.ptxas.txt"
else
  rm -f "$tmp"
fi
exit "$rc"

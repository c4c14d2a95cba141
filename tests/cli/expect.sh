#!/bin/sh
# expect.sh EXIT_CODE REGEX [--jq FILTER] [--stdin FILE] [--env NAME=VALUE] [--needs-no-driver] -- COMMAND...
# Runs COMMAND, checks its exit status and that its output (stdout + stderr) matches the
# extended REGEX; with --jq, also that stdout is JSON for which FILTER is true.
# Exit 77 (skipped) for --needs-no-driver on a machine where libcuda.so.1 is present.
set -u
expected_exit=$1; regex=$2; shift 2
jq_filter=""; stdin_file=/dev/null; needs_no_driver=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --jq) jq_filter=$2; shift 2 ;;
    --stdin) stdin_file=$2; shift 2 ;;
    --env) export "$2"; shift 2 ;;
    --needs-no-driver) needs_no_driver=1; shift ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
shift
if [ "$needs_no_driver" = 1 ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  echo "skipped: this machine has an NVIDIA driver"; exit 77
fi
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" <"$stdin_file" >"$out" 2>"$err"
actual_exit=$?
status=0
if [ "$actual_exit" != "$expected_exit" ]; then
  echo "FAIL: exit status $actual_exit, expected $expected_exit"; status=1
fi
if ! cat "$out" "$err" | grep -Eq -- "$regex"; then
  echo "FAIL: output does not match /$regex/"; status=1
fi
if [ -n "$jq_filter" ]; then
  if ! jq -e "$jq_filter" "$out" >/dev/null 2>&1; then
    echo "FAIL: stdout is not JSON satisfying: $jq_filter"; status=1
  fi
fi
if [ "$status" != 0 ]; then
  echo "--- command: $*"; echo "--- stdout:"; head -c 4000 "$out"; echo "--- stderr:"; head -c 4000 "$err"
fi
exit $status

#!/bin/sh
# The commands explain gives to confirm a diagnosis can be pasted into a shell as printed: a
# note on what to look for is a shell comment ("# ..."), in en and zh, never glued to the
# command, and no command keeps Markdown backticks.
# usage: explain_confirm_test.sh GPUPROBE_BINARY
set -u
BIN=$1
failures=0
for lang in en zh; do
  for text in "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus." \
              "RuntimeError: CUDA error: an illegal memory access was encountered" \
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"; do
    lines=$("$BIN" --lang "$lang" explain "$text" | grep '^ *\$ ')
    [ -n "$lines" ] || { echo "NO COMMANDS ($lang): $text"; failures=$((failures + 1)); continue; }
    # A line ending in a parenthesised note, or holding a backtick, is not pasteable.
    bad=$(printf '%s\n' "$lines" | grep -E '[)）]$|`' | grep -v '#' || true)
    if [ -n "$bad" ]; then echo "NOT PASTEABLE ($lang): $bad"; failures=$((failures + 1)); fi
  done
done
# The Xid 79 note is a comment in both languages.
"$BIN" explain "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus." | grep -q '\$ lspci | grep -i nvidia  # ' ||
  { echo "MISSING: the lspci note as a comment (en)"; failures=$((failures + 1)); }
"$BIN" --lang zh explain "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus." | grep -q '\$ ipmitool sel list  # ' ||
  { echo "MISSING: the ipmitool command without backticks, its note a comment (zh)"; failures=$((failures + 1)); }
echo "explain confirm lines: $failures problems"
[ "$failures" = 0 ]

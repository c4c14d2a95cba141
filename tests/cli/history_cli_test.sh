#!/bin/sh
# history end to end with the real binary: two saved runs, list, compare, the regression
# gate, and the bad inputs (a file that is not a history stays untouched; unknown run ids).
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for i in 1 2; do
  "$bin" bench memory.triad --backend cpu --seconds 0.05 --save --db "$dir/h.db" >"$dir/bench$i.out" 2>"$dir/bench$i.err" \
    || fail "bench --save $i exited $?: $(cat "$dir/bench$i.err")"
  grep -q "saved as run $i" "$dir/bench$i.err" || fail "bench --save $i did not say it saved: $(cat "$dir/bench$i.err")"
done

"$bin" history --db "$dir/h.db" >"$dir/list.out" || fail "history exited $?"
grep -Eq '^ +2 +[0-9T:-]+Z' "$dir/list.out" || fail "history does not list run 2: $(cat "$dir/list.out")"

"$bin" history compare --db "$dir/h.db" >"$dir/cmp.out" || fail "history compare exited $?"
grep -Eq 'memory.triad +cpu .*(FASTER|SLOWER|SAME|UNCLEAR)' "$dir/cmp.out" || fail "no verdict: $(cat "$dir/cmp.out")"

"$bin" history compare 1 2 --db "$dir/h.db" --json >"$dir/cmp.json" || fail "compare --json exited $?"
jq -e '.schema == "gpuprobe.history_compare.v1" and (.changes | length) > 0 and .before.id == 1' "$dir/cmp.json" >/dev/null \
  || fail "compare JSON: $(cat "$dir/cmp.json")"

# The gate: no result can be 1000% slower, so it passes.
"$bin" history compare --db "$dir/h.db" --fail-on-regression 1000 >/dev/null || fail "the 1000% gate failed"

# Bad input: exit 2, clear message, nothing lost.
"$bin" history compare 1 99 --db "$dir/h.db" 2>"$dir/e1" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "no run 99" "$dir/e1" || fail "unknown run id: exit $rc, $(cat "$dir/e1")"
"$bin" history compare one two --db "$dir/h.db" 2>"$dir/e2" >/dev/null; rc=$?
[ $rc -eq 2 ] || fail "non-numeric run id: exit $rc"
echo "my notes" >"$dir/notes.txt"
"$bin" bench memory.triad --seconds 0.05 --save --db "$dir/notes.txt" 2>"$dir/e3" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "not a gpuprobe history" "$dir/e3" || fail "foreign file: exit $rc, $(cat "$dir/e3")"
[ "$(cat "$dir/notes.txt")" = "my notes" ] || fail "the foreign file was changed"
"$bin" history --db "$dir/missing.db" 2>"$dir/e4" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "no history" "$dir/e4" || fail "missing history: exit $rc"
[ -e "$dir/missing.db" ] && fail "a missing history was created by reading it"
echo "history CLI: ok"

#!/bin/sh
# The tour (the README's main job) and `report` end to end with the real binary: the tour
# writes its report, --no-report writes none, `report --from` reads saved documents, and
# every bad input exits 2 with a clear message and leaves existing files untouched.
bin="$1"; fixtures="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir" || exit 1

# The tour: no verb, verdict, side-by-side table, next commands and the report beside it.
start=$(date +%s)
"$bin" --no-smoke-test >tour.out 2>tour.err; rc=$?
end=$(date +%s)
[ $rc -eq 0 ] || fail "tour exited $rc: $(cat tour.err)"
for want in "Side by side" "memory bandwidth" "Verdict" "Where to go next" "Report: gpuprobe-report.html"; do
  grep -q "$want" tour.out || fail "tour output lacks '$want': $(cat tour.out)"
done
[ "$(grep -A3 '^Verdict' tour.out | tail -3 | grep -c .)" -eq 3 ] || fail "the verdict is not three lines"
grep -q 'generator" content="gpuprobe"' gpuprobe-report.html || fail "no report beside the tour"
echo "tour took $((end - start)) s"

# A second tour replaces its own report; --no-report writes nothing.
mkdir quiet && (cd quiet && "$bin" --no-report --no-bench --no-smoke-test >out 2>&1) || fail "tour --no-report failed"
[ -e quiet/gpuprobe-report.html ] && fail "--no-report wrote a report"

# A foreign file where the report would go: the tour says so and leaves it alone.
mkdir foreign && echo "my notes" >foreign/gpuprobe-report.html
(cd foreign && "$bin" --no-bench --no-smoke-test >out 2>&1) || fail "tour with a foreign file exited non-zero"
grep -q "not replacing" foreign/out || fail "tour did not say it kept the foreign file: $(cat foreign/out)"
[ "$(cat foreign/gpuprobe-report.html)" = "my notes" ] || fail "the tour overwrote a foreign file"

# The tour's JSON feeds `report --from`, together with saved inspect and doctor documents.
"$bin" --json --no-report --no-bench --no-smoke-test >tour.json || fail "tour --json failed"
jq -e '.schema == "gpuprobe.tour.v1" and (.verdict | length) == 3 and .report_path == null' tour.json >/dev/null \
  || fail "tour JSON: $(head -c 2000 tour.json)"
"$bin" report --from "$fixtures/report/tour-cpu-2core.json" -o from.html >from.out 2>&1 || fail "report --from: $(cat from.out)"
grep -q "Wrote from.html: 6 charts" from.out || fail "report did not say what it wrote: $(cat from.out)"
"$bin" report --from "$fixtures/report/inspect-rtx-3080.json" --from "$fixtures/report/doctor-container-no-gpus.json" \
  -o problems.html --json >problems.json 2>&1 || fail "report from inspect + doctor: $(cat problems.json)"
jq -e '.schema == "gpuprobe.report.v1" and .findings == 2' problems.json >/dev/null || fail "report JSON: $(cat problems.json)"
grep -q 'sev-fail' problems.html || fail "the doctor failure is not in the report"

# Bad input: exit 2, a message naming the problem, nothing written or changed.
expect_bad() {  # expect_bad MESSAGE-REGEX ARGS...
  regex=$1; shift
  "$bin" "$@" >bad.out 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, expected 2: $(cat bad.out)"
  grep -Eq "$regex" bad.out || fail "'$*' did not say /$regex/: $(cat bad.out)"
}
echo '{"schema": "gpuprobe.bench.v1", "results": [' >truncated.json
"$bin" gpus --json >gpus.json
echo "keep me" >notes.txt
expect_bad "missing.json" report --from missing.json -o x.html
expect_bad "truncated.json: not valid JSON" report --from truncated.json -o x.html
expect_bad "gpuprobe.gpus.v1" report --from gpus.json -o x.html
expect_bad "second bench" report --from "$fixtures/report/tour-cpu-2core.json" --from "$fixtures/report/tour-cpu-2core.json" -o x.html
expect_bad "did you mean" report --from "$fixtures/report/tour-cpu-2core.json" --gpu h2000 -o x.html
expect_bad "does not exist" report --from "$fixtures/report/tour-cpu-2core.json" -o no/such/dir/x.html
expect_bad "is a directory" report --from "$fixtures/report/tour-cpu-2core.json" -o quiet
expect_bad "not a gpuprobe report" report --from "$fixtures/report/tour-cpu-2core.json" -o notes.txt
expect_bad "report needs a value" --report "" --no-bench
[ -e x.html ] && fail "a report was written despite bad input"
[ "$(cat notes.txt)" = "keep me" ] || fail "a foreign file was changed"
ls ./*.tmp-* >/dev/null 2>&1 && fail "temporary files left behind"
echo "tour and report CLI: ok"

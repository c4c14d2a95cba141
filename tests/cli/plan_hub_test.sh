#!/bin/sh
# plan --model ORG/NAME end to end against tests/hub/hub_server.py on 127.0.0.1: the first run
# reads config.json and the safetensors headers from the "Hub" (counted from the headers, a
# few requests, a few KiB), the second run with HF_HUB_OFFLINE=1 finds everything in the cache
# it left; an unknown repository exits 3 naming the URL; a catalogue id never asks the Hub.
# Usage: plan_hub_test.sh GPUPROBE TESTS_DIR
set -u
bin=$1
tests=$2
tmp=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY HF_HUB_OFFLINE TRANSFORMERS_OFFLINE HF_TOKEN HF_HUB_CACHE

python3 "$tests/hub/hub_server.py" --root "$tests/fixtures/hub_tree" --port-file "$tmp/port" --log "$tmp/log" &
server_pid=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/port" ] || fail "the test server did not start"
export HF_ENDPOINT="http://127.0.0.1:$(cat "$tmp/port")"
export HF_HOME="$tmp/hf"
export XDG_CACHE_HOME="$tmp/cache"

# field FILE EXPR: EXPR over the JSON document d and its model m.
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d, 'm': d['model']}))" "$1" "$2"; }

# 1. From the Hub: headers only.
"$bin" plan --model gpuprobe-test/tiny-llama --json > "$tmp/first.json" || fail "first plan exited $?"
[ "$(field "$tmp/first.json" "m['found_in']")" = hub ] || fail "found_in: $(field "$tmp/first.json" "m['found_in']")"
[ "$(field "$tmp/first.json" "m['params_basis']")" = config ] || fail "basis: $(field "$tmp/first.json" "m['params_basis']")"
[ "$(field "$tmp/first.json" "d['checkpoint']['matches_recipe']")" = True ] || fail "the headers do not match the config's count"
requests=$(field "$tmp/first.json" "m['hub']['requests']")
bytes=$(field "$tmp/first.json" "m['hub']['bytes_received']")
[ "$requests" -gt 0 ] || fail "no request was made"
[ "$bytes" -lt 1048576 ] || fail "$bytes bytes read for a header-only plan"
echo "from the Hub: $requests requests, $bytes bytes"
grep -q '"range"' "$tmp/log" || fail "no range request in the server's log"

# 2. Offline: the cache alone.
before=$(wc -l < "$tmp/log")
HF_HUB_OFFLINE=1 "$bin" plan --model gpuprobe-test/tiny-llama --json > "$tmp/second.json" || fail "offline plan exited $?"
[ "$(field "$tmp/second.json" "m['found_in']")" = hub_cache ] || fail "offline found_in: $(field "$tmp/second.json" "m['found_in']")"
[ "$(field "$tmp/second.json" "m['params_total']")" = "$(field "$tmp/first.json" "m['params_total']")" ] || fail "the cached count differs"
[ "$(wc -l < "$tmp/log")" = "$before" ] || fail "the offline run reached the server"
HF_HUB_OFFLINE=1 "$bin" plan --model gpuprobe-test/tiny-llama --lang zh > "$tmp/zh.txt" || fail "zh plan exited $?"
grep -q 'Hub 缓存' "$tmp/zh.txt" || fail "zh: the cache line is missing"

# 3. A repository the Hub does not have: a bad id, exit 2 naming the URL. A Hub that cannot be
# reached: exit 3 naming the URL.
"$bin" plan --model gpuprobe-test/no-such-model > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] || fail "unknown repository: exit $rc, expected 2"
grep -q "$HF_ENDPOINT" "$tmp/err" || fail "the error does not name the URL: $(cat "$tmp/err")"
HF_ENDPOINT=http://127.0.0.1:9 "$bin" plan --model gpuprobe-test/other-model > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 3 ] || fail "unreachable Hub: exit $rc, expected 3"
grep -q "http://127.0.0.1:9/" "$tmp/err" || fail "the error does not name the URL: $(cat "$tmp/err")"

# 4. A catalogue id is planned from the catalogue without asking the Hub.
before=$(wc -l < "$tmp/log")
"$bin" plan --model Qwen/Qwen3-8B --json > "$tmp/cat.json" || fail "catalogue plan exited $?"
[ "$(field "$tmp/cat.json" "m['found_in']")" = catalog ] || fail "catalogue found_in: $(field "$tmp/cat.json" "m['found_in']")"
[ "$(wc -l < "$tmp/log")" = "$before" ] || fail "a catalogue id reached the Hub"
echo "ok"

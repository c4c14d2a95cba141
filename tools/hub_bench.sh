#!/bin/sh
# tools/hub_bench.sh [BUILD_DIR] [SHARDS]: the time and the bytes of a header-only fetch of a
# many-shard model (default 160 shards: Llama-3.1-70B's config, its tensors split evenly, as
# tests/hub/make_hub_tree.py writes them) from tests/hub/hub_server.py on 127.0.0.1, through
# gpuprobe-hub-fetch (libcurl, connections kept open). Prints the cold fetch (config, index, two
# range requests per shard) over 1 and over 8 connections, and the warm re-run (the caches
# only); then the same model through `gpuprobe plan --model ORG/NAME` (cold: the Hub step and
# the plan; warm: the cache alone). A benchmark, not a test: nothing here fails on a time.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
shards=${2:-160}
fetch="$build/gpuprobe-hub-fetch"
[ -x "$fetch" ] || { echo "hub_bench: $fetch not found (build first: scripts/build)" >&2; exit 2; }

work=$(mktemp -d /tmp/gpuprobe-hub-bench-XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM

python3 tests/hub/make_hub_tree.py bench "$work/tree" "$shards"
# The same files under a name the catalogue does not hold, so that `plan` asks the Hub.
mkdir -p "$work/tree/bench"
cp -r "$work/tree/meta-llama/Llama-3.1-70B" "$work/tree/bench/llama-70b-sharded"
python3 tests/hub/hub_server.py --root "$work/tree" --port-file "$work/port" --log "$work/requests.jsonl" &
server=$!
i=0
while [ ! -s "$work/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$work/port")

run() {  # run CACHE_NAME PARALLEL
  env -u HF_TOKEN -u HF_HUB_OFFLINE -u http_proxy -u https_proxy -u HTTPS_PROXY -u all_proxy \
    HF_ENDPOINT="http://127.0.0.1:$port" HF_HUB_CACHE="$work/$1/hub" XDG_CACHE_HOME="$work/$1/xdg" \
    "$fetch" meta-llama/Llama-3.1-70B --parallel "$2" --json
}
now() { date +%s.%N; }

plan() {  # plan CACHE_NAME
  env -u HF_TOKEN -u HF_HUB_OFFLINE -u http_proxy -u https_proxy -u HTTPS_PROXY -u all_proxy \
    HF_ENDPOINT="http://127.0.0.1:$port" HF_HUB_CACHE="$work/$1/hub" XDG_CACHE_HOME="$work/$1/xdg" \
    "$build/gpuprobe" plan --model bench/llama-70b-sharded --json
}

p0=$(now); plan plan >"$work/plan_cold.json"; p1=$(now)
plan plan >"$work/plan_warm.json"; p2=$(now)
t0=$(now); run one 1 >"$work/cold1.json"; t1=$(now)
run eight 8 >"$work/cold8.json"; t2=$(now)
run eight 8 >"$work/warm.json"; t3=$(now)
python3 - "$work" "$t0" "$t1" "$t2" "$t3" "$p0" "$p1" "$p2" <<'PY'
import json, sys
work, t0, t1, t2, t3, p0, p1, p2 = sys.argv[1], *map(float, sys.argv[2:])
cold1, cold8, warm = (json.load(open("%s/%s.json" % (work, n))) for n in ("cold1", "cold8", "warm"))
served = [json.loads(l) for l in open(work + "/requests.jsonl")]
shard_bytes = sum(l["length"] for l in served if l["path"].startswith("/cdn/")) / 3  # three cold runs
plan_cold, plan_warm = (json.load(open("%s/%s.json" % (work, n))) for n in ("plan_cold", "plan_warm"))
print("header-only fetch of %s from a local Hub-shaped server: %d shards, %d tensors, %.0f parameters counted "
      "from the headers" % (cold8["repo_id"], len(cold8["shards"]), cold8["tensors"], cold8["elements"]))
for name, doc, wall in (("cold, 1 connection ", cold1, t1 - t0), ("cold, 8 connections", cold8, t2 - t1)):
    net = doc["network"]
    print("  %s %6.3f s (fetch %.3f s): %d requests, %d bytes received (%.1f KiB)"
          % (name, wall, net["seconds"], net["requests"], net["bytes_received"], net["bytes_received"] / 1024))
print("  warm (caches only)  %6.3f s: %d requests" % (t3 - t2, warm["network"]["requests"]))
print("  of the shard files the server sent %d bytes per run: the 8-byte lengths and the headers; none of the "
      "%.1f GB of weights" % (shard_bytes, cold8["data_bytes"] / 1e9))
hub = plan_cold["model"].get("hub") or {"requests": 0, "bytes_received": 0}
print("  gpuprobe plan, cold  %6.3f s: %d requests, %.1f KiB; %d parameters (%s), from %s"
      % (p1 - p0, hub["requests"], hub["bytes_received"] / 1024, plan_cold["model"]["params_shown"],
         plan_cold["model"]["params_basis"], plan_cold["model"]["found_in"]))
print("  gpuprobe plan, warm  %6.3f s: %d requests, from %s"
      % (p2 - p1, (plan_warm["model"].get("hub") or {"requests": 0})["requests"], plan_warm["model"]["found_in"]))
PY

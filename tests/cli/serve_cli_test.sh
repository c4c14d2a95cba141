#!/bin/sh
# serve end to end with the real binary and the fake NVML: /metrics passes promtool, /healthz
# answers, a short load from a second process gets no error, SIGTERM stops it with status 0.
# Usage: serve_cli_test.sh GPUPROBE FAKE_NVML_LIBRARY FIXTURE
bin="$1"; GPUPROBE_NVML_LIBRARY="$2"; FAKE_NVML_FIXTURE="$3"
export GPUPROBE_NVML_LIBRARY FAKE_NVML_FIXTURE
for tool in curl promtool; do
  command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool is not installed (scripts/setup installs it)"; exit 77; }
done
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$dir/serve.out" 2>/dev/null; exit 1; }

"$bin" serve --listen 127.0.0.1:0 --interval 0.2 >"$dir/serve.out" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 50); do
  port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$dir/serve.out")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "serve did not say where it listens"
url="http://127.0.0.1:$port"

# The first poll may still be running: wait until the GPU shows up (bounded).
for _ in $(seq 1 50); do
  curl -sf "$url/metrics" >"$dir/metrics.txt" && grep -q '^gpuprobe_gpus 1$' "$dir/metrics.txt" && break
  sleep 0.1
done
grep -q '^DCGM_FI_DEV_GPU_UTIL{.*model_name="NVIDIA H200".*} 100$' "$dir/metrics.txt" || fail "no GPU_UTIL sample: $(head -5 "$dir/metrics.txt")"
grep -q '^gpuprobe_finding{.*id="busy_not_bandwidth_bound"' "$dir/metrics.txt" || fail "no finding exported"
promtool check metrics <"$dir/metrics.txt" >"$dir/promtool.out" 2>&1 || fail "promtool: $(cat "$dir/promtool.out")"
curl -sf "$url/healthz" | grep -q '^ok' || fail "/healthz did not answer ok"

# A short load from a second process: every request must succeed (no speed is asserted).
if command -v wrk >/dev/null 2>&1; then
  wrk -t2 -c8 -d2s "$url/metrics" >"$dir/wrk.out" 2>&1 || fail "wrk failed: $(cat "$dir/wrk.out")"
  grep -Eq 'Non-2xx|Socket errors' "$dir/wrk.out" && fail "errors under load: $(cat "$dir/wrk.out")"
  grep -q 'Requests/sec' "$dir/wrk.out" || fail "wrk printed no result"
fi

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ $status -eq 0 ] || fail "SIGTERM: exit status $status, expected 0"
grep -q "stopped" "$dir/serve.out" || fail "no clean stop message"

"$bin" serve --listen nonsense >/dev/null 2>"$dir/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "HOST:PORT" "$dir/bad.err" || fail "bad --listen: exit $rc"
echo "serve: ok"

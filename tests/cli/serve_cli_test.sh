#!/bin/sh
# serve end to end with the real binary and the fake NVML: /metrics passes promtool, the
# health endpoints mean what --help says (/livez, /readyz, /healthz), a short load from a
# second process gets no error, a second serve on the same port exits 3, a non-loopback
# --listen needs --allow-remote, and SIGTERM stops it with status 0 even while a client is
# half-way through a request. No speed is asserted; waits are bounded only so a hung server
# fails instead of hanging the suite.
# Usage: serve_cli_test.sh GPUPROBE FAKE_NVML_LIBRARY FIXTURE
bin="$1"; GPUPROBE_NVML_LIBRARY="$2"; FAKE_NVML_FIXTURE="$3"
export GPUPROBE_NVML_LIBRARY FAKE_NVML_FIXTURE
for tool in curl promtool; do
  command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool is not installed (scripts/setup installs it)"; exit 77; }
done
dir=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$dir"/*.out 2>/dev/null | tail -20; exit 1; }

# start NAME ARGS...: runs serve in the background, sets $pid and $url.
start() {
  name=$1; shift
  "$bin" serve --listen 127.0.0.1:0 "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  pid=$!
  pids="$pids $pid"
  port=""
  for _ in $(seq 1 50); do
    port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$dir/$name.out")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "$name: serve did not say where it listens"
  url="http://127.0.0.1:$port"
}
status_of() { curl -s -o "$dir/body" -w '%{http_code}' "$@"; }

start main --interval 0.2
# The first poll may still be running: wait until the GPU shows up (bounded).
for _ in $(seq 1 50); do
  curl -sf "$url/metrics" >"$dir/metrics.txt" && grep -q '^gpuprobe_gpus 1$' "$dir/metrics.txt" && break
  sleep 0.1
done
grep -q '^DCGM_FI_DEV_GPU_UTIL{.*model_name="NVIDIA H200".*} 100$' "$dir/metrics.txt" || fail "no GPU_UTIL sample: $(head -5 "$dir/metrics.txt")"
grep -q '^gpuprobe_finding{.*id="busy_not_bandwidth_bound"' "$dir/metrics.txt" || fail "no finding exported"
grep -q '^DCGM_FI_DEV_POWER_USAGE{.*} 627.32$' "$dir/metrics.txt" || fail "power not in its shortest form: $(grep POWER_USAGE "$dir/metrics.txt")"
promtool check metrics <"$dir/metrics.txt" >"$dir/promtool.txt" 2>&1 || fail "promtool: $(cat "$dir/promtool.txt")"
[ "$(status_of "$url/livez")" = 200 ] || fail "/livez"
[ "$(status_of "$url/readyz")" = 200 ] && grep -q '^ready' "$dir/body" || fail "/readyz with GPU data: $(cat "$dir/body")"
[ "$(status_of "$url/healthz")" = 200 ] || fail "/healthz with GPU data"
[ "$(status_of "$url/nope")" = 404 ] || fail "unknown path is not 404"
[ "$(status_of -X POST "$url/metrics")" = 405 ] || fail "POST is not 405"

# A second serve on the same port: refused (no SO_REUSEPORT), exit 3.
"$bin" serve --listen "127.0.0.1:$port" >"$dir/second.out" 2>&1; rc=$?
[ $rc -eq 3 ] && grep -q "address already in use\|Address already in use" "$dir/second.out" || fail "second serve on port $port: exit $rc: $(cat "$dir/second.out")"

# A short load from a second process: every request must succeed (no speed is asserted).
if command -v wrk >/dev/null 2>&1; then
  wrk -t2 -c16 -d2s "$url/metrics" >"$dir/wrk.txt" 2>&1 || fail "wrk failed: $(cat "$dir/wrk.txt")"
  grep -Eq 'Non-2xx|Socket errors' "$dir/wrk.txt" && fail "errors under load: $(cat "$dir/wrk.txt")"
  grep -q 'Requests/sec' "$dir/wrk.txt" || fail "wrk printed no result"
fi

# SIGTERM while a client holds a half-sent request: it still stops, with status 0.
if command -v python3 >/dev/null 2>&1; then
  python3 -c "import socket,sys,time; s=socket.create_connection(('127.0.0.1',$port)); s.send(b'GET /metr'); time.sleep(30)" &
  pids="$pids $!"
  sleep 0.3
fi
kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "serve still running 10 s after SIGTERM"
status=0
wait "$pid" || status=$?
[ $status -eq 0 ] || fail "SIGTERM: exit status $status, expected 0"
grep -q "stopped" "$dir/main.out" || fail "no clean stop message"

# No NVML at all: still serving (/livez 200, /metrics with gpuprobe_up 0) but not ready,
# with the reason; --healthz live makes /healthz a liveness check.
GPUPROBE_NVML_LIBRARY="$dir/no-such-libnvidia-ml.so.1" start nonvml --interval 0.2
for _ in $(seq 1 50); do curl -s "$url/metrics" | grep -q '^gpuprobe_polls_total [1-9]' && break; sleep 0.1; done
[ "$(status_of "$url/livez")" = 200 ] || fail "/livez without NVML"
[ "$(status_of "$url/readyz")" = 503 ] && grep -q "no GPU data can be read: NVML" "$dir/body" || fail "/readyz without NVML: $(cat "$dir/body")"
[ "$(status_of "$url/healthz")" = 503 ] || fail "/healthz (ready semantics) without NVML"
curl -s "$url/metrics" | grep -q '^gpuprobe_up 0$' || fail "gpuprobe_up is not 0 without NVML"
kill -TERM "$pid"; wait "$pid"
GPUPROBE_NVML_LIBRARY="$dir/no-such-libnvidia-ml.so.1" start live --healthz live
[ "$(status_of "$url/healthz")" = 200 ] || fail "/healthz with --healthz live"
kill -TERM "$pid"; wait "$pid"

# Every interface needs --allow-remote, and then says so on stderr; 127.0.0.2 is loopback.
"$bin" serve --listen 0.0.0.0:0 >"$dir/remote.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q -- "--allow-remote" "$dir/remote.out" || fail "0.0.0.0 without --allow-remote: exit $rc"
"$bin" serve --listen 0.0.0.0:0 --allow-remote >"$dir/allowed.out" 2>"$dir/allowed.err" &
p=$!; pids="$pids $p"
for _ in $(seq 1 50); do grep -q "reachable from other machines" "$dir/allowed.err" && break; sleep 0.1; done
grep -q "reachable from other machines" "$dir/allowed.err" || fail "--allow-remote was not logged to stderr"
kill -TERM $p; wait $p
"$bin" serve --listen 127.0.0.2:0 >"$dir/lo2.out" 2>"$dir/lo2.err" &
p=$!; pids="$pids $p"
for _ in $(seq 1 50); do grep -q "listening" "$dir/lo2.out" && break; sleep 0.1; done
grep -q "listening on http://127.0.0.2:" "$dir/lo2.out" || fail "127.0.0.2 refused: $(cat "$dir/lo2.out" "$dir/lo2.err")"
grep -q "reachable" "$dir/lo2.err" && fail "127.0.0.2 called remote"
kill -TERM $p; wait $p

"$bin" serve --listen nonsense >/dev/null 2>"$dir/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "HOST:PORT" "$dir/bad.err" || fail "bad --listen: exit $rc"
echo "serve: ok"

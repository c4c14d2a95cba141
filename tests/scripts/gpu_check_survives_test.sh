#!/bin/sh
# gpu-check survives a failed step: on a machine without a GPU, with fake build tools and a
# fake gpuprobe whose full bench fails (no output, exit 2), the run must still do set-up,
# every later step (burn, inspect, doctor, report, the headline), print the summary and list
# exactly the steps that failed. Usage: gpu_check_survives_test.sh SOURCE_DIR NVIDIA_SMI_DIR
set -u
src=$1; smi_dir=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build"
cat >"$work/bin/nvcc" <<'SH'
#!/bin/sh
echo "Cuda compilation tools, release 13.0, V13.0.48"
SH
for tool in cmake ctest; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\necho "100%% tests passed"\n' "$tool" "$work" >"$work/bin/$tool"
done
cat >"$work/build/gpuprobe" <<SH
#!/bin/sh
echo "gpuprobe \$*" >>"$work/calls"
case "\$*" in
  *"--full"*) echo "bench failed" >&2; exit 2 ;;  # the step made to fail mid-run
  "--json --report"*) echo '{"side_by_side":[],"verdict":["fine"],"gpu":{"devices":[{"name":"NVIDIA H200"}]}}' ;;
  "bench burn"*) echo '{"results":[{"case":"n=4096","verification":"ok","note":"verdict: healthy"}]}' ;;
  "bench collectives"*|"bench p2p"*) echo "one GPU" >&2; exit 3 ;;
  *"--json"*) echo '{}' ;;
esac
exit 0
SH
chmod +x "$work/bin/"* "$work/build/gpuprobe"
rc=0
PATH="$work/bin:$smi_dir:/usr/bin:/bin" GPUPROBE_BUILD_DIR="$work/build" GPUPROBE_SETUP="echo setup-ran" \
  sh "$src/scripts/gpu-check" "$work/out" >"$work/log" 2>&1 || rc=$?
fails=0
check() {  # check COMMAND...
  if ! "$@"; then echo "FAIL: $*"; fails=$((fails + 1)); fi
}
has() { grep -q -- "$1" "$2"; }
check has "setup-ran" "$work/log"
check has "gpuprobe bench --backend cuda --full" "$work/calls"
check has "gpuprobe bench burn" "$work/calls"
check has "gpuprobe doctor --json" "$work/calls"
check has "gpuprobe report --from" "$work/calls"
check has "== headline figures on NVIDIA H200" "$work/log"
check has "== done in" "$work/log"
check has "^== failed steps: bench$" "$work/log"
check has "^== failed steps: bench$" "$work/out/failed-steps.txt"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; fails=$((fails + 1)); }
if [ "$fails" -ne 0 ]; then
  echo "--- gpu-check's output:"; cat "$work/log"
  exit 1
fi
echo "gpu-check ran every step after the failed one and listed it: ok"

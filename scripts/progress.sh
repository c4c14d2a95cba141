# Sourced by the scripts: one line per stage with the time since the script started, so a
# long install or build never looks hung.
_progress_start=$(date +%s)
stage() {
  _elapsed=$(( $(date +%s) - _progress_start ))
  printf '[%d:%02d] %s\n' $((_elapsed / 60)) $((_elapsed % 60)) "$*"
}
# Passes ctest's output through, and fails when ctest failed (a pipe hides its status).
summarize_ctest() {
  tee "${TMPDIR:-/tmp}/gpuprobe-ctest.$$" | grep -E '^[0-9]+% tests passed|\*\*\*Failed|Not Run|Timeout|Errors while|^\s+[0-9]+ - ' || true
  if grep -q '100% tests passed' "${TMPDIR:-/tmp}/gpuprobe-ctest.$$"; then
    rm -f "${TMPDIR:-/tmp}/gpuprobe-ctest.$$"
  else
    cat "${TMPDIR:-/tmp}/gpuprobe-ctest.$$" | tail -60
    rm -f "${TMPDIR:-/tmp}/gpuprobe-ctest.$$"
    return 1
  fi
}

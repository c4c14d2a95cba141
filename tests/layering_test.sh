#!/bin/sh
# layering_test.sh SRC_DIR: the module rules that the linker cannot enforce.
#  - model/ is pure: it includes only model/ and core/'s pure headers; no CUDA, NVML,
#    dlopen, files, streams to the terminal or processes.
#  - No CUDA or NVML header outside bench/cuda/.
#  - core/ depends on nothing above it.
set -u
src=$1
fail=0
report() { echo "layering: $1"; fail=1; }

for f in $(find "$src/model" -name '*.h' -o -name '*.cpp'); do
  grep -nE '^#include "' "$f" | grep -vE '#include "(model|core/(status|units|spelling|version|json_input|input_limits))' | while read -r line; do
    echo "layering: $f includes a module other than model/ and core's pure headers: $line"
  done | grep . && fail=1
  if grep -nE '#include <(cuda|cublas|nvml|dlfcn\.h|fstream|filesystem|cstdio|stdio\.h|iostream|unistd\.h|fcntl\.h|sys/)' "$f"; then
    report "$f includes a CUDA, NVML, dlopen, file or process header"
  fi
  if grep -nE '\b(fopen|popen|ifstream|ofstream|std::cout|std::cerr|printf|getenv|system)\s*\(' "$f" | grep -v '^\s*//'; then
    report "$f does I/O"
  fi
done

for f in $(find "$src" -name '*.h' -o -name '*.cpp' -o -name '*.cu' | grep -v "/bench/cuda/"); do
  if grep -nE '#include <(cuda|cublas|nvml|cuda_runtime)' "$f"; then report "$f includes a vendor header outside bench/cuda/"; fi
done

for f in $(find "$src/core" -name '*.h' -o -name '*.cpp'); do
  if grep -nE '#include "(model|report|cli|bench|telemetry|doctor|serve)/' "$f"; then report "$f (core) includes a higher module"; fi
done

if [ "$fail" = 0 ]; then echo "layering: ok"; fi
exit $fail

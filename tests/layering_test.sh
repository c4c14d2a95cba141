#!/bin/sh
# layering_test.sh SRC_DIR: the module rules that the linker cannot enforce.
#  - Every module includes only the modules the matrix below allows (docs/architecture.md
#    draws it): no arrow back up, no view (cli/) reaching past the application layer into
#    checkpoint/, and a new module must be placed here before it is used.
#  - model/ is pure: it includes only model/ and core/'s pure headers; no CUDA, NVML,
#    dlopen, files, streams to the terminal or processes.
#  - No CUDA or NVML header outside bench/cuda/.
set -u
src=$1
fail=0
report() { echo "layering: $1"; fail=1; }

# The allowed edges: a module, then the modules it may include (besides itself).
allowed() {
  case $1 in
    core)       echo "" ;;
    model)      echo "core" ;;
    knowledge)  echo "core model" ;;
    checkpoint) echo "core model" ;;
    hub)        echo "core model checkpoint" ;;
    telemetry)  echo "core model" ;;
    doctor)     echo "core telemetry" ;;
    bench)      echo "core model knowledge telemetry" ;;
    history)    echo "core bench" ;;
    serve)      echo "core telemetry" ;;
    report)     echo "core model telemetry" ;;
    app)        echo "core model knowledge checkpoint telemetry doctor bench report" ;;
    cli)        echo "core model knowledge telemetry doctor bench history serve report app" ;;
    *)          echo "?" ;;
  esac
}

for dir in "$src"/*/; do
  module=$(basename "$dir")
  ok=$(allowed "$module")
  if [ "$ok" = "?" ]; then report "src/$module/ is a module the matrix in tests/layering_test.sh does not place"; continue; fi
  for f in $(find "$dir" -name '*.h' -o -name '*.cpp' -o -name '*.cu'); do
    for included in $(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$f" | sort -u); do
      [ "$included" = "$module" ] && continue
      [ -d "$src/$included" ] || continue
      case " $ok " in
        *" $included "*) ;;
        *) report "$f ($module/) includes $included/, which $module/ may not (allowed: ${ok:-nothing})" ;;
      esac
    done
  done
done

for f in $(find "$src/model" -name '*.h' -o -name '*.cpp'); do
  grep -nE '^#include "' "$f" | grep -vE '#include "(model|core/(status|strings|units|spelling|version|json_input|input_limits))' | while read -r line; do
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

if [ "$fail" = 0 ]; then echo "layering: ok"; fi
exit $fail

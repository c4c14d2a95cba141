#!/bin/sh
# Regenerate the transformers-derived model data (developer machine only; see
# tests/fixtures/transformers_oracle/README.md). PY defaults to the oracle venv.
set -eu
PY=${PY:-.venv-oracle/bin/python}
cd "$(dirname "$0")/../.."
rm -rf tools/hf_oracle/.cache
"$PY" tools/hf_oracle/gen_defaults.py
"$PY" tools/hf_oracle/gen_oracle.py --jobs 2
"$PY" tools/hf_oracle/gen_structure.py --jobs 2
"$PY" tools/hf_oracle/gen_report.py
# The files gpuprobe embeds: one template per model type, one entry per config class.
python3 tools/split_hf_data.py

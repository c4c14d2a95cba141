#!/usr/bin/env python3
"""Prints the corpus table of `plan --engine` as Markdown (docs/plan.md, 'Corpus score').

Runs the corpus test (tests/app/engine_corpus_test.cpp, which predicts every start-up log of
tests/fixtures/engine_logs the way `plan --engine` does and prints logged vs predicted figures),
and adds each log's engine version from tests/fixtures/engine_logs/index.json.

usage: tools/engine_log_table.py [BUILD_DIR]   (default build-nocuda; needs tests/app_tests built)
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build-nocuda")
    binary = os.path.join(build, "tests", "app_tests")
    out = subprocess.run([binary, "--gtest_filter=EngineCorpus.*"], capture_output=True, text=True).stdout
    with open(os.path.join(ROOT, "tests", "fixtures", "engine_logs", "index.json"), encoding="utf-8") as f:
        logs = json.load(f)["logs"]
    version = {}
    for e in logs:
        v = e.get("engine_version") or ""
        version[os.path.basename(e["file"])[:43]] = (v[:40] + "...") if len(v) > 40 else v
    print("| log | split | engine | version | logged / predicted |")
    print("|---|---|---|---|---|")
    scores = []
    for line in out.splitlines():
        if line.startswith(("train:", "heldout:")):
            scores.append(line)
            continue
        if " | " not in line or line.startswith("log "):
            continue
        head, _, rest = line.partition(" | ")
        parts = head.split()
        if len(parts) < 3:
            continue
        name, split, engine = parts[0], parts[1], " ".join(parts[2:])
        print(f"| {name} | {split} | {engine} | {version.get(name, '')} | {rest.strip().replace(' | ', '; ')} |")
    print()
    for s in scores:
        print(f"- {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Score `gpuprobe explain` on a labelled error corpus, by running the real binary.

Usage (stdlib only):
    tools/explain_score.py [--bin build/gpuprobe] [--corpus tests/fixtures/error_corpus_2024]
                           [--split train|heldout] [--labels tests/doctor/explain_labels.json]

Each text is given to the binary as a pasted text on standard input (`explain --json -`; with
--arg-mode, as one argument after `--`, for binaries older than stdin pasting) and its JSON
answer is scored against the text's label.

What "recognised" means (the same definition as tests/doctor/error_corpus_2024_test.cpp):
  * a GPU text (gpu_related true) is recognised when the top answer (matches[0], or
    readings[0] for a lookup) carries one of the text's labels (`expect` or one of `also`);
  * a non-GPU text (gpu_related false) is recognised when explain says it is not a GPU problem
    (the top answer is a not-GPU entry, "gpu_related": false) and names what it is: that entry's
    label is `expect` or one of `also`;
  * a non-GPU text is "claimed as a GPU error" when the top answer is a GPU finding (any answer
    that is not a not-GPU entry); claims anywhere in the list are counted apart.
The labels an answer carries come from data, never from the text: the answer's own id and
entry id (topic labels are entry ids), the status it reports (cuda_runtime/cuda_driver:
the runtime condition, "cudaErrorIllegalAddress"; a library: "cublas:CUBLAS_STATUS_..."),
its Xid ("xid:31"), the statuses its entry answers for (data/knowledge/errors.json), and the
aliases in the labels file (tests/doctor/explain_labels.json: entry id -> corpus labels).

For the train split every text is printed with its result. For the held-out split only
aggregate numbers are printed (recognised, non-GPU claims, answers by layer): the texts are not
to be read while rules are written.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
CUDA_APIS = {"cuda_runtime", "cuda_driver", "cuda_runtime_legacy"}


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class LabelMap:
    """Which corpus labels an answer of explain carries."""

    def __init__(self, labels_path, kb_path, statuses_path):
        data = load_json(labels_path)
        self.aliases = {k: set(v) for k, v in data.get("entry_labels", {}).items()}
        kb = load_json(kb_path)
        table = load_json(statuses_path)
        by_name = {s["name"]: s for s in table["statuses"]}
        self.entry_statuses = {}
        self.not_gpu_entries = set()
        for e in kb["entries"]:
            names = set()
            for n in e.get("statuses", []):
                s = by_name.get(n)
                if s is not None:
                    names.add(self.status_label(s["api"], s.get("runtime_equivalent") or n))
            self.entry_statuses[e["id"]] = names
            if e.get("gpu") is False:
                self.not_gpu_entries.add(e["id"])

    @staticmethod
    def status_label(api, name):
        return name if api in CUDA_APIS else f"{api}:{name}"

    def labels(self, answer):
        out = set()
        for key in ("id", "entry"):
            v = answer.get(key)
            if v:
                out.add(v)
                out |= self.aliases.get(v, set())
                out |= self.entry_statuses.get(v, set())
        s = answer.get("status")
        if s:
            out.add(self.status_label(s.get("api", ""), s.get("condition") or s.get("name", "")))
        x = answer.get("xid")
        if x:
            out.add(("sxid:" if x.get("nvswitch") else "xid:") + str(x.get("number")))
        return out

    def is_gpu(self, answer):
        if answer.get("gpu_related") is False:
            return False
        return not ((answer.get("entry") or answer.get("id")) in self.not_gpu_entries)


def run_explain(binary, text, arg_mode):
    if arg_mode:
        cmd = [binary, "--json", "explain", "--", text]
        stdin = None
    else:
        cmd = [binary, "--json", "explain", "-"]
        stdin = text
    try:
        run = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    try:
        return json.loads(run.stdout), None
    except ValueError:
        return None, f"exit {run.returncode}, no JSON"


def score(args):
    corpus = os.path.abspath(args.corpus)
    index = load_json(os.path.join(corpus, "index.json"))
    labels = LabelMap(args.labels, os.path.join(ROOT, "data/knowledge/errors.json"),
                      os.path.join(ROOT, "data/knowledge/cuda_statuses.json"))
    items = [t for t in index["texts"] if args.split == "all" or t["split"] == args.split]
    show_texts = args.split == "train"
    totals = collections.Counter()
    by_layer = collections.defaultdict(collections.Counter)
    rows = []
    for item in items:
        with open(os.path.join(corpus, item["file"]), encoding="utf-8") as f:
            text = f.read()
        want = {item["expect"], *item.get("also", [])}
        doc, error = run_explain(args.bin, text, args.arg_mode)
        answers = []
        if doc is not None:
            answers = doc.get("matches") or doc.get("readings") or []
        top = answers[0] if answers else None
        got = sorted(labels.labels(top)) if top else []
        gpu_text = item["gpu_related"]
        if gpu_text:
            ok = top is not None and labels.is_gpu(top) and bool(want & set(got))
        else:
            ok = top is not None and not labels.is_gpu(top) and bool(want & set(got))
        claimed_top = (not gpu_text) and top is not None and labels.is_gpu(top)
        claimed_any = (not gpu_text) and any(labels.is_gpu(a) for a in answers)
        layer = item["layer"]
        totals["texts"] += 1
        totals["recognised"] += ok
        totals["gpu_texts"] += gpu_text
        totals["gpu_recognised"] += gpu_text and ok
        totals["not_gpu_texts"] += not gpu_text
        totals["not_gpu_recognised"] += (not gpu_text) and ok
        totals["not_gpu_claimed_top"] += claimed_top
        totals["not_gpu_claimed_any"] += claimed_any
        totals["no_answer"] += top is None
        totals["errors"] += error is not None
        by_layer[layer]["texts"] += 1
        by_layer[layer]["recognised"] += ok
        if show_texts:
            rows.append((ok, item["file"], layer, item["expect"], top["id"] if top else (error or "(nothing)"),
                         claimed_top))
    if show_texts:
        for ok, file, layer, expect, got, claimed in rows:
            mark = "ok  " if ok else ("GPU!" if claimed else "MISS")
            if args.misses_only and ok:
                continue
            print(f"{mark} {file}  [{layer}] expect {expect}  got {got}")
    n = totals["texts"]
    pct = lambda a, b: 100.0 * a / b if b else 0.0
    print(f"split {args.split}: {totals['recognised']}/{n} recognised ({pct(totals['recognised'], n):.1f}%); "
          f"GPU texts {totals['gpu_recognised']}/{totals['gpu_texts']}, "
          f"non-GPU texts {totals['not_gpu_recognised']}/{totals['not_gpu_texts']}; "
          f"non-GPU texts claimed as GPU errors: {totals['not_gpu_claimed_top']} as the answer, "
          f"{totals['not_gpu_claimed_any']} anywhere in the list; no answer: {totals['no_answer']}"
          + (f"; runs without JSON: {totals['errors']}" if totals["errors"] else ""))
    print("by layer: " + ", ".join(f"{layer} {c['recognised']}/{c['texts']}" for layer, c in sorted(by_layer.items())))
    if args.summary_json:
        with open(args.summary_json, "w", encoding="utf-8") as f:
            json.dump({"split": args.split, "totals": totals, "by_layer": by_layer}, f, indent=1)
    return totals


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "gpuprobe"))
    p.add_argument("--corpus", default=os.path.join(ROOT, "tests/fixtures/error_corpus_2024"))
    p.add_argument("--split", default="train", choices=["train", "heldout", "all"])
    p.add_argument("--labels", default=os.path.join(ROOT, "tests/doctor/explain_labels.json"))
    p.add_argument("--arg-mode", action="store_true", help="pass the text as one argument after '--' instead of stdin")
    p.add_argument("--misses-only", action="store_true")
    p.add_argument("--summary-json", default=None, help="also write the aggregate numbers here")
    args = p.parse_args()
    if args.split == "all":
        print("--split all prints aggregates only", file=sys.stderr)
    score(args)


if __name__ == "__main__":
    main()

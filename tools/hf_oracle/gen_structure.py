"""Generate tools/hf_oracle/generated/hf_structure.json: parameter templates by construction.

    .venv-oracle/bin/python tools/hf_oracle/gen_structure.py [--jobs 2] [model_type ...]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
import traceback
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import PRIORITY, NULL_DERIVATIONS, REPO, CONFIG_MAPPING, dump_json, enumerate_types, versions  # noqa: E402

OUT = os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_structure.json")
PARTIAL = os.path.join(REPO, "tools", "hf_oracle", ".cache", "structure")



def one(row):
    from structure import build_template
    mt = row["model_type"]
    p = os.path.join(PARTIAL, mt + ".json")
    if os.path.exists(p):  # done meanwhile by another run
        with open(p) as f:
            return mt, json.load(f, object_pairs_hook=OrderedDict)
    t = time.time()
    try:
        tpl, runner = build_template(mt, row["class"], row["mapping"])
        res = OrderedDict()
        res["config_class"] = CONFIG_MAPPING[mt].__name__
        res["mapping"] = row["mapping"]
        res.update(tpl)
    except Exception as e:  # noqa: BLE001
        res = OrderedDict([("class", row["class"]), ("config_class", CONFIG_MAPPING[mt].__name__),
                           ("mapping", row["mapping"]), ("status", "failed"),
                           ("reason", [(type(e).__name__ + ": " + str(e)).strip()[:300]])])
    sys.stderr.write("%-32s %-11s %5.1fs\n" % (mt, res["status"], time.time() - t))
    os.makedirs(PARTIAL, exist_ok=True)
    with open(os.path.join(PARTIAL, mt + ".json"), "w") as f:
        json.dump(res, f)
    return mt, res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reuse", action="store_true", help="reuse per-type results of an earlier run")
    ap.add_argument("--reverse", action="store_true", help="work through the types in reverse order")
    ap.add_argument("--assemble", action="store_true",
                    help="write the file from the per-type results present; missing types are 'not_generated'")
    ap.add_argument("types", nargs="*")
    a = ap.parse_args()
    rows, counts = enumerate_types()
    if a.types:
        rows = [r for r in rows if r["model_type"] in a.types]
    order = {mt: i for i, mt in enumerate(PRIORITY)}
    rows = sorted(rows, key=lambda r: (order.get(r["model_type"], len(order)), r["model_type"]))
    todo = []
    results = {}
    for r in rows:
        p = os.path.join(PARTIAL, r["model_type"] + ".json")
        if a.reuse and os.path.exists(p):
            results[r["model_type"]] = json.load(open(p), object_pairs_hook=OrderedDict)
        else:
            todo.append(r)
    if a.reverse:
        todo = todo[::-1]
    if a.assemble:
        for r in todo:
            results[r["model_type"]] = OrderedDict([
                ("class", r["class"]), ("config_class", CONFIG_MAPPING[r["model_type"]].__name__),
                ("mapping", r["mapping"]), ("status", "not_generated"),
                ("reason", ["no template generated in this run (fitting budget of the run spent)"])])
        todo = []
    if a.jobs > 1:
        with mp.get_context("fork").Pool(a.jobs, maxtasksperchild=10) as pool:
            for mt, res in pool.imap(one, todo):
                results[mt] = res
    else:
        for r in todo:
            mt, res = one(r)
            results[mt] = res
    if a.types:
        return
    out = OrderedDict()
    out["format"] = 1
    out["generated_by"] = "tools/hf_oracle/gen_structure.py"
    out["versions"] = versions()
    out["null_derivations"] = OrderedDict(NULL_DERIVATIONS)
    st = {}
    for r in results.values():
        st[r["status"]] = st.get(r["status"], 0) + 1
    out["summary"] = OrderedDict(sorted(st.items()))
    # KV cache templates come from the oracle's forward-pass probe (gen_oracle.py runs first)
    oracle_path = os.path.join(REPO, "tests", "fixtures", "transformers_oracle", "oracle.json")
    if os.path.exists(oracle_path):
        orows = json.load(open(oracle_path), object_pairs_hook=OrderedDict)["rows"]
        for mt, res in results.items():
            kvt = (orows.get(mt) or {}).get("kv_template")
            if kvt is not None:
                res["kv"] = kvt
    out["models"] = OrderedDict((mt, results[mt]) for mt in sorted(results))
    # one model per line keeps the file small and its diffs readable
    lines = ["{"]
    head = [k for k in out if k != "models"]
    for k in head:
        lines.append(" %s: %s," % (json.dumps(k), json.dumps(out[k], separators=(",", ":"))))
    lines.append(' "models": {')
    mts = list(out["models"])
    for i, mt in enumerate(mts):
        lines.append("  %s: %s%s" % (json.dumps(mt), json.dumps(out["models"][mt], separators=(",", ":")),
                                     "," if i < len(mts) - 1 else ""))
    lines.append(" }")
    lines.append("}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", OUT, out["summary"])


if __name__ == "__main__":
    main()

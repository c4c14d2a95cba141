"""Generate tests/fixtures/transformers_oracle/: configs/<model_type>.json and oracle.json.

    .venv-oracle/bin/python tools/hf_oracle/gen_oracle.py [--jobs 2] [model_type ...]

For each model_type (one class per type, see common.enumerate_types) the default config of
its config class is written as save_pretrained writes it, the model is instantiated on the
meta device, and the stored tensors are counted. KV cache figures come from kv.py.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import shutil
import sys
import tempfile
import time
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (REPO, priority_sorted, augment_env, build_config, config_dict, default_config, dump_json,  # noqa: E402
                    enumerate_types, essential_kwargs, null_repairs, with_values, flat_values, has_lm_module, instantiate_meta, persistent_buffers,
                    quiet, role_of, time_limit, tower_of, versions)

OUT_DIR = os.path.join(REPO, "tests", "fixtures", "transformers_oracle")
PARTIAL = os.path.join(REPO, "tools", "hf_oracle", ".cache", "oracle")
EXPERT_KEY_RE = re.compile(r"^(num_local_experts|num_experts|n_routed_experts|moe_num_experts|num_routed_experts)$")
TOPK_KEY_RE = re.compile(r"^(num_experts_per_tok|top_k|moe_topk|moe_k|num_selected_experts|experts_per_token|"
                         r"router_top_k|num_experts_per_token|moe_top_k)$")


def saved_config_json(cfg) -> str:
    d = tempfile.mkdtemp()
    try:
        with quiet():
            cfg.save_pretrained(d)
        with open(os.path.join(d, "config.json")) as f:
            return f.read()
    finally:
        shutil.rmtree(d)


def moe_info(env, params, total):
    ek = None
    for k in sorted(env, key=lambda k: (k.count("."), k)):
        if EXPERT_KEY_RE.match(k.split(".")[-1]) and isinstance(env[k], int) and not isinstance(env[k], bool) \
                and env[k] > 1:
            ek = k
            break
    if ek is None:
        return None
    prefix = ek.rsplit(".", 1)[0] + "." if "." in ek else ""
    tk = None
    for k in sorted(env):
        if k.startswith(prefix) and "." not in k[len(prefix):] and TOPK_KEY_RE.match(k.split(".")[-1]) \
                and isinstance(env[k], int):
            tk = k
            break
    E = env[ek]
    routed = 0
    layers = set()
    for n, numel in params:
        if role_of(n, "language_model") == "expert":
            routed += numel
            m = re.search(r"\.(\d+)\.", n)
            if m:
                layers.add(n[:m.end()])
    if routed == 0 or tk is None:
        return OrderedDict([("experts_key", ek), ("experts", E), ("top_k_key", tk),
                            ("top_k", env.get(tk) if tk else None), ("routed_expert_params", routed),
                            ("note", "no routed expert tensors recognised" if routed == 0 else "top-k key not found")])
    K = env[tk]
    active = total - (routed * (E - K)) // E
    return OrderedDict([("experts_key", ek), ("experts", E), ("top_k_key", tk), ("top_k", K),
                        ("routed_expert_params", routed), ("moe_layers", len(layers)),
                        ("active_params", active)])


def runs(rows):
    out = []
    for i, r in enumerate(rows):
        key = json.dumps({k: v for k, v in r.items() if k != "expr"}, sort_keys=True) + json.dumps(r.get("expr"), sort_keys=True)
        if out and out[-1][0] == key:
            out[-1][1]["layers"][1] = i
        else:
            d = OrderedDict([("layers", [i, i])])
            for k in ("kind", "per_token", "hf_per_token", "cross_per_token", "source_len", "window", "state", "expr"):
                if k in r and r[k] is not None:
                    d[k] = r[k]
            out.append((key, d))
    return [d for _, d in out]


def one(arg):
    row, with_kv = arg
    from kv import kv_rows
    mt = row["model_type"]
    p = os.path.join(PARTIAL, "%s.%s.json" % (mt, "kv" if with_kv else "nokv"))
    if os.path.exists(p):
        with open(p) as f:
            d = json.load(f, object_pairs_hook=OrderedDict)
        return mt, d["res"], d["cfg"]
    t0 = time.time()
    res = OrderedDict()
    res["class"] = row["class"]
    res["mapping"] = row["mapping"]
    res["config"] = "configs/%s.json" % mt
    res["config_changes"] = None
    cfg_json = None
    try:
        with time_limit(120):
            cfg = default_config(mt)
            try:
                model = instantiate_meta(row["class"], cfg)
            except Exception:  # noqa: BLE001
                # the class refuses its own default: complete it with what the null derivations
                # give (head_dim...), as a config.json of the type states it
                fix = null_repairs(cfg)
                if not fix:
                    raise
                cfg = build_config(mt, with_values(essential_kwargs(cfg), fix))
                model = instantiate_meta(row["class"], cfg)
                res["config_changes"] = OrderedDict(sorted(fix.items()))
            cfg_json = saved_config_json(cfg)
        params = [(n, p.numel()) for n, p in model.named_parameters()]
        total = sum(x for _, x in params)
        bufs = OrderedDict()
        for n, b in persistent_buffers(model):
            suf = n.split(".")[-1]
            bufs[suf] = bufs.get(suf, 0) + b.numel()
        names = [n for n, _ in params]
        lm = has_lm_module(names)
        towers = OrderedDict()
        for n, x in params:
            tw = tower_of(n, row["mapping"], lm)
            towers[tw] = towers.get(tw, 0) + x
        env = augment_env(flat_values(config_dict(cfg)))
        res["status"] = "ok"
        res["total_params"] = total
        res["persistent_buffers"] = OrderedDict(sorted(bufs.items()))
        res["params_by_tower"] = OrderedDict(sorted(towers.items()))
        res["tied"] = sorted(k for k in (getattr(model, "_tied_weights_keys", None) or {}))
        res["lm_head_stored"] = any(n.endswith("lm_head.weight") for n in names)
        res["moe"] = moe_info(env, params, total)
        del model
    except Exception as e:  # noqa: BLE001
        res["status"] = "failed"
        res["error"] = (type(e).__name__ + ": " + str(e)).strip()[:400]
        sys.stderr.write("%-32s failed  %5.1fs\n" % (mt, time.time() - t0))
        return mt, res, cfg_json
    try:
        if not with_kv:
            raise RuntimeError("KV probe not run for this model type in this generation (--kv-limit)")
        kw = with_values(essential_kwargs(cfg), res.get("config_changes") or {})
        rows, src, err = kv_rows(mt, row["class"], kw, cfg)
        res["kv_source"] = src
        if rows is not None:
            rows, tpl = rows
            res["kv"] = runs(rows)
            res["kv_template"] = tpl
        if err:
            res["kv_error"] = err
    except Exception as e:  # noqa: BLE001
        res["kv_source"] = None
        res["kv_error"] = (type(e).__name__ + ": " + str(e)).strip()[:300]
    sys.stderr.write("%-32s ok kv=%s %5.1fs\n" % (mt, res.get("kv_source"), time.time() - t0))
    os.makedirs(PARTIAL, exist_ok=True)
    with open(p, "w") as f:
        json.dump({"res": res, "cfg": cfg_json}, f)
    return mt, res, cfg_json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kv-limit", type=int, default=None,
                    help="run the KV probe for the first N model types (priority order) only")
    ap.add_argument("types", nargs="*")
    a = ap.parse_args()
    rows, counts = enumerate_types()
    if a.types:
        rows = [r for r in rows if r["model_type"] in a.types]
    rows = priority_sorted(rows)
    args = [(r, a.kv_limit is None or i < a.kv_limit) for i, r in enumerate(rows)]
    results = {}
    cfgs = {}
    if a.jobs > 1:
        with mp.get_context("fork").Pool(a.jobs, maxtasksperchild=10) as pool:
            for mt, res, cj in pool.imap(one, args):
                results[mt] = res
                cfgs[mt] = cj
    else:
        for r in args:
            mt, res, cj = one(r)
            results[mt] = res
            cfgs[mt] = cj
    if a.types:
        print(json.dumps(results, indent=1)[:20000])
        return
    os.makedirs(os.path.join(OUT_DIR, "configs"), exist_ok=True)
    for f in os.listdir(os.path.join(OUT_DIR, "configs")):
        os.remove(os.path.join(OUT_DIR, "configs", f))
    for mt in sorted(cfgs):
        if cfgs[mt] is not None:
            with open(os.path.join(OUT_DIR, "configs", mt + ".json"), "w") as f:
                f.write(cfgs[mt] if cfgs[mt].endswith("\n") else cfgs[mt] + "\n")
        else:
            results[mt]["config"] = None
    out = OrderedDict()
    out["format"] = 1
    out["generated_by"] = "tools/hf_oracle/gen_oracle.py"
    out["versions"] = versions()
    out["mapping_counts"] = counts
    out["rows"] = OrderedDict((mt, results[mt]) for mt in sorted(results))
    dump_json(out, os.path.join(OUT_DIR, "oracle.json"))
    ok = sum(1 for r in results.values() if r["status"] == "ok")
    kv = sum(1 for r in results.values() if r.get("kv_source") == "forward")
    print("wrote oracle.json: %d rows, %d ok, %d with kv from a forward pass" % (len(results), ok, kv))


if __name__ == "__main__":
    main()

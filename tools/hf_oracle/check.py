"""Cross-check: evaluate every template of hf_structure.json on the oracle's config.json files
(the way gpuprobe does: parse, flatten, fill from hf_config_defaults.json, null derivations),
and compare the parameter total with oracle.json's total_params. Pure Python: needs neither
torch nor transformers.

    python3 tools/hf_oracle/check.py [-v]
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from expr import eval_expr  # noqa: E402
from template import expand  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "transformers_oracle")


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and ("model_type" in v or k.endswith("config")):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def environment(cfg: dict, defaults: dict, null_derivations: dict) -> dict:
    """config.json -> evaluation environment (FORMAT.md section 1)."""
    env = flatten(cfg)
    classes = defaults["classes"]
    types = defaults["model_types"]

    def fill(prefix, model_type):
        cls = classes.get(types.get(model_type, ""), {})
        aliases = cls.get("attribute_map", {})
        for alias, canon in aliases.items():
            if prefix + alias in env and prefix + canon not in env:
                env[prefix + canon] = env[prefix + alias]
        for src in (cls.get("signature", {}), cls.get("post_init", {})):
            for k, v in src.items():
                if isinstance(v, dict) and "list_of" in v:
                    continue
                if prefix + k not in env and not isinstance(v, dict):
                    env[prefix + k] = v
        for key, sub_type in cls.get("sub_configs", {}).items():
            st = env.get(prefix + key + ".model_type", sub_type)
            fill(prefix + key + ".", st)
    fill("", cfg.get("model_type", ""))
    prefixes = {""} | {k.rsplit(".", 1)[0] + "." for k in env if "." in k}
    for pre in sorted(prefixes):
        for key, ex in null_derivations.items():
            if env.get(pre + key) is None:
                scoped = {k[len(pre):]: v for k, v in env.items() if k.startswith(pre)}
                try:
                    env[pre + key] = eval_expr(ex, scoped)
                except Exception:  # noqa: BLE001
                    pass
    return env


def main():
    verbose = "-v" in sys.argv
    oracle = json.load(open(os.path.join(FIX, "oracle.json")))["rows"]
    struct = json.load(open(os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_structure.json")))
    defaults = json.load(open(os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_config_defaults.json")))
    same = differ = skipped = 0
    for mt, tpl in struct["models"].items():
        row = oracle.get(mt)
        if tpl.get("status") not in ("exact", "approximate") or not row or row.get("status") != "ok" \
                or not row.get("config"):
            skipped += 1
            continue
        cfg = json.load(open(os.path.join(FIX, row["config"])))
        env = environment(cfg, defaults, struct.get("null_derivations", {}))
        try:
            tensors = expand(tpl, env)
            total = sum(_prod(s) for s, buf in tensors.values() if not buf)
        except Exception as e:  # noqa: BLE001
            total = "error: %s" % e
        if total == row["total_params"]:
            same += 1
        else:
            differ += 1
            if verbose:
                print("%-30s %-11s template %s, oracle %d" % (mt, tpl["status"], total, row["total_params"]))
    print("%d passed, %d failed, %d skipped" % (same, differ, skipped))
    return same, differ, skipped


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


if __name__ == "__main__":
    main()

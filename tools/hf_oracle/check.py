"""Cross-check the split data (data/models/hf/) against transformers' own figures, the way
gpuprobe reads it: every config.json is parsed, flattened, filled from the class defaults,
aliases and derivations (FORMAT.md section 1 and 5, the procedure of
src/model/hf_config_env.cpp), and the template of its model type is evaluated.

Checked:
  1. every oracle row (tests/fixtures/transformers_oracle/oracle.json, configs/<type>.json):
     total parameters, and per cache layer the KV figures of the row (kind, per token, state,
     window, cross-attention) against the template's `kv`;
  2. the train split of tests/fixtures/real_configs_2025 (real config.json files, with the
     figures transformers gives for them): total parameters (the held-out split is not read).

Pure Python (stdlib only): needs neither torch nor transformers.

    python3 tools/hf_oracle/check.py [-v] [--data data/models/hf]

Exit status 0 when every template marked exact reproduces every figure it is checked on.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from expr import eval_cond, eval_expr  # noqa: E402
from template import expand, layer_kind  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "transformers_oracle")
REAL = os.path.join(REPO, "tests", "fixtures", "real_configs_2025")
MAX_DEPTH = 6
MAX_LAYERS = 100000


class Data:
    """The split data: index.json, one template per model type, one entry per config class."""

    def __init__(self, root):
        self.root = root
        with open(os.path.join(root, "index.json")) as f:
            self.index = json.load(f)
        self.model_types = self.index.get("model_types", {})
        self.null_derivations = self.index.get("null_derivations", {})
        self.templates = self.index.get("templates", {})
        self.class_to_type = {}
        for t, e in sorted(self.templates.items()):
            self.class_to_type.setdefault(e.get("class", ""), t)
        self._cache = {}

    def _load(self, rel):
        if rel not in self._cache:
            p = os.path.join(self.root, rel)
            self._cache[rel] = json.load(open(p)) if os.path.exists(p) else None
        return self._cache[rel]

    def template(self, model_type):
        e = self.templates.get(model_type)
        if not e or e.get("status") not in ("exact", "approximate"):
            return None
        return self._load(os.path.join("structure", model_type + ".json"))

    def class_entry(self, cls):
        return self._load(os.path.join("defaults", cls + ".json")) if cls else None

    def find_template(self, cfg):
        """(model_type, template, alias_of) as gpuprobe resolves them."""
        own = cfg.get("model_type", "")
        t = self.template(own)
        if t is not None:
            return own, t, ""
        for a in cfg.get("architectures") or []:
            mt = self.class_to_type.get(a)
            if mt and self.template(mt) is not None:
                return mt, self.template(mt), own
        return own, None, ""


def _is_sub(key, value):
    return isinstance(value, dict) and ("model_type" in value or key.endswith("config"))


def _whole(v):
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return int(v)
    return v


class Builder:
    """Python twin of src/model/hf_config_env.cpp's Builder (FORMAT.md sections 1 and 5)."""

    def __init__(self, data):
        self.d = data
        self.env = {}

    def has(self, k):
        return self.env.get(k) is not None

    def level(self, obj, prefix, cls, depth):
        entry = self.d.class_entry(cls)
        subs = []
        if obj is not None:
            for k, v in obj.items():
                if depth < MAX_DEPTH and _is_sub(k, v):
                    subs.append(k)
                else:
                    self.env[prefix + k] = _whole(v)
        self.aliases(entry, prefix)
        self.fill(entry, prefix, obj)
        self.aliases(entry, prefix)
        declared = (entry or {}).get("sub_configs") or {}
        for k, typ in declared.items():
            if k in subs or not isinstance(typ, str):
                continue
            given = obj.get(k) if obj is not None else None
            if given is not None:
                continue
            if depth + 1 >= MAX_DEPTH:
                continue
            sub_cls = self.d.model_types.get(typ, "")
            flat = self.flat_sub(obj, entry, sub_cls) if k == "text_config" else None
            if flat is not None:
                self.level(flat, prefix + k + ".", sub_cls, depth + 1)
                continue
            self.level(None, prefix + k + ".", sub_cls, depth + 1)
        for k in sorted(subs):
            sub = obj[k]
            typ = sub.get("model_type") if isinstance(sub.get("model_type"), str) else ""
            sub_cls = self.d.model_types.get(typ, "")
            if not sub_cls and isinstance(declared.get(k), str):
                sub_cls = self.d.model_types.get(declared[k], "")
            self.level(sub, prefix + k + ".", sub_cls, depth + 1)
        self.derive(entry, prefix)

    def flat_sub(self, obj, parent, sub_cls):
        sub_sig = (self.d.class_entry(sub_cls) or {}).get("signature")
        parent_sig = (parent or {}).get("signature") or {}
        if obj is None or not isinstance(sub_sig, dict):
            return None
        flat = {k: v for k, v in obj.items() if k in sub_sig and k not in parent_sig}
        if "hidden_size" not in flat and "num_hidden_layers" not in flat:
            return None
        return flat

    def aliases(self, entry, prefix):
        for alias, canon in ((entry or {}).get("attribute_map") or {}).items():
            if not isinstance(canon, str):
                continue
            a, c = prefix + alias, prefix + canon
            if self.has(a) and not self.has(c):
                self.env[c] = self.env[a]
            if self.has(c) and not self.has(a):
                self.env[a] = self.env[c]

    def fill(self, entry, prefix, obj):
        if entry is None:
            return
        derived = entry.get("derived") or {}
        subs = entry.get("sub_configs") or {}
        legacy = entry.get("legacy_keys") or {}
        sig = entry.get("signature") or {}
        # keys a legacy spelling in the file decides (FORMAT.md 5, legacy_keys)
        decided = set()
        for lk, le in legacy.items():
            if obj is not None and obj.get(lk) is not None:
                decided.update(le.get("sets") or [])
        merged = dict(sig)
        merged.update(entry.get("post_init") or {})
        for lk, le in legacy.items():
            if le.get("default") is not None and lk not in merged:
                merged[lk] = le["default"]
        for k, v in merged.items():
            if k in subs or (isinstance(v, dict) and "list_of" in v):
                continue
            full = prefix + k
            if self.has(full):
                continue
            if obj is not None and k in obj:
                continue
            if k in decided:
                continue
            if k in derived or k in self.d.null_derivations:
                fixed = sig.get(k) is not None
                if not fixed:
                    continue
            self.env[full] = v

    def derive(self, entry, prefix):
        derived = (entry or {}).get("derived") or {}
        rules = [(k, e) for k, e in sorted(derived.items()) if isinstance(e, str)]
        rules += [(k, e) for k, e in self.d.null_derivations.items() if isinstance(e, str)]
        values = [(k, e) for k, e in sorted(derived.items()) if isinstance(e, dict) and e.get("produces") == "value"]
        lists = [(k, e) for k, e in sorted(derived.items()) if isinstance(e, dict) and e.get("produces") == "list"]
        for k, rule in values:
            if self.has(prefix + k):
                continue
            v = self.env.get(prefix + rule["key"])
            key = "true" if v is True else "false" if v is False else "null" if v is None else str(v)
            if key in rule["map"]:
                self.env[prefix + k] = rule["map"][key]
            else:
                self.env[prefix + k] = Unknown(rule["key"], v)
        for _ in range(2):
            lvl = self.view(prefix)
            for k, ex in rules:
                if self.has(prefix + k):
                    continue
                try:
                    v = eval_expr(ex, lvl)
                except Exception:  # noqa: BLE001
                    continue
                self.env[prefix + k] = v
                lvl[k] = v
        lvl = self.view(prefix)
        for k, rule in lists:
            if self.has(prefix + k):
                continue
            try:
                n = eval_expr(rule.get("n", "num_hidden_layers"), lvl)
            except Exception:  # noqa: BLE001
                continue
            if n < 0 or n > MAX_LAYERS:
                continue
            try:
                self.env[prefix + k] = [layer_kind(rule, i, n, lvl) for i in range(n)]
            except Exception:  # noqa: BLE001
                continue

    def view(self, prefix):
        return {k[len(prefix):]: v for k, v in self.env.items() if k.startswith(prefix)}


class Unknown:
    """A derived value the table cannot give (a value of its key outside the map)."""

    def __init__(self, key, value):
        self.key, self.value = key, value

    def __repr__(self):
        return "unknown (%s=%r not in the table)" % (self.key, self.value)


def environment(cfg, model_type, data, alias_of=""):
    b = Builder(data)
    b.level(cfg, "", data.model_types.get(model_type, ""), 0)
    if alias_of:
        b.env["model_type"] = model_type
    for k, v in list(b.env.items()):
        if isinstance(v, Unknown):
            b.env[k] = None
            b.env.setdefault("__unknown__", []).append("%s: %r" % (k, v))
    return b.env


def count(tpl, env):
    if env.get("__unknown__"):
        raise ValueError("; ".join(env["__unknown__"]))
    tensors = expand(tpl, env)
    total = sum(math.prod(s) for s, buf in tensors.values() if not buf)
    return total


def kv_layers(kv, env):
    n = eval_expr(kv["layers"], env)
    out = []
    for i in range(n):
        lab = layer_kind(kv["layer_kinds"], i, n, env)
        k = kv["kinds"][lab]
        row = {"kind": k["kind"]}
        for f in ("per_token", "state", "cross_per_token", "hf_per_token"):
            row[f] = eval_expr(k[f], env) if k.get(f) else 0
        row["window"] = env.get(k["window"]) if k.get("window") else None
        out.append(row)
    return out


def oracle_kv(row):
    out = []
    for r in row.get("kv") or []:
        a, b = r["layers"]
        for _ in range(a, b + 1):
            out.append({"kind": r["kind"], "per_token": r.get("per_token", 0), "state": r.get("state", 0),
                        "cross_per_token": r.get("cross_per_token", 0), "hf_per_token": r.get("hf_per_token", 0),
                        "window": r.get("window")})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("-v", action="store_true", help="list every row that differs")
    ap.add_argument("--data", default=os.path.join(REPO, "data", "models", "hf"))
    a = ap.parse_args(argv)
    data = Data(a.data)
    oracle = json.load(open(os.path.join(FIX, "oracle.json")))["rows"]
    res = {"oracle": [0, 0, 0], "oracle_exact_fail": [], "kv": [0, 0, 0], "kv_fail": [],
           "real": [0, 0, 0], "real_fail": []}
    lines = []
    for mt, row in sorted(oracle.items()):
        tpl = data.template(mt)
        if tpl is None or row.get("status") != "ok" or not row.get("config"):
            res["oracle"][2] += 1
            continue
        cfg = json.load(open(os.path.join(FIX, row["config"])))
        env = environment(cfg, mt, data)
        try:
            total = count(tpl, env)
        except Exception as e:  # noqa: BLE001
            total = "error: %s" % e
        if total == row["total_params"]:
            res["oracle"][0] += 1
        else:
            res["oracle"][1] += 1
            status = data.templates[mt]["status"]
            if status == "exact":
                res["oracle_exact_fail"].append(mt)
            lines.append("oracle %-28s %-11s template %s, transformers %d" % (mt, status, total, row["total_params"]))
        # KV per layer
        if tpl.get("kv") and row.get("kv_source") == "forward":
            try:
                got = kv_layers(tpl["kv"], env)
            except Exception as e:  # noqa: BLE001
                got = "error: %s" % e
            want = oracle_kv(row)
            if got == want:
                res["kv"][0] += 1
            else:
                res["kv"][1] += 1
                res["kv_fail"].append(mt)
                if isinstance(got, list):
                    diff = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))
                    got_s = "%d layers, layer %d %s" % (len(got), diff, got[diff] if diff < len(got) else "-")
                    want_s = "%d layers, %s" % (len(want), want[diff] if diff < len(want) else "-")
                else:
                    got_s, want_s = got, "%d layers" % len(want)
                lines.append("kv     %-28s template %s; transformers %s" % (mt, got_s, want_s))
        else:
            res["kv"][2] += 1
    # real configs, train split only
    idx_path = os.path.join(REAL, "index.json")
    if os.path.exists(idx_path):
        idx = json.load(open(idx_path))
        for c in idx.get("configs", []):
            if c.get("split") != "train":
                continue
            o = c.get("oracle") or {}
            if o.get("status") != "ok":
                res["real"][2] += 1
                continue
            cfg = json.load(open(os.path.join(REAL, c["file"])))
            mt, tpl, alias = data.find_template(cfg)
            if tpl is None:
                res["real"][2] += 1
                lines.append("real   %-55s no template for %s" % (c["file"], mt))
                continue
            env = environment(cfg, mt, data, alias)
            try:
                total = count(tpl, env)
            except Exception as e:  # noqa: BLE001
                total = "error: %s" % e
            if total == o["total_params"]:
                res["real"][0] += 1
            else:
                res["real"][1] += 1
                res["real_fail"].append(c["file"])
                lines.append("real   %-55s %s (%s) template %s, transformers %d" % (
                    c["file"], mt, data.templates[mt]["status"], total, o["total_params"]))
    if a.v:
        for ln in lines:
            print(ln)
    o, k, r = res["oracle"], res["kv"], res["real"]
    print("oracle rows, total parameters: %d passed, %d failed (%d of them exact templates), %d without template/row"
          % (o[0], o[1], len(res["oracle_exact_fail"]), o[2]))
    print("oracle rows, KV cache per layer: %d passed, %d failed, %d without a validated probe or kv template"
          % (k[0], k[1], k[2]))
    print("real configs (train split), total parameters: %d passed, %d failed, %d without template/oracle"
          % (r[0], r[1], r[2]))
    return res


if __name__ == "__main__":
    r = main()
    sys.exit(1 if r["oracle_exact_fail"] or r["kv_fail"] else 0)

"""Evaluate a parameter template of hf_structure.json at a config (reference implementation).

expand(template, env) -> {tensor name: (shape tuple, is_buffer)} for every stored tensor.
env is the flattened config (dotted keys for sub-configs), as written by save_pretrained.
"""
from __future__ import annotations

from expr import eval_cond, eval_expr, lookup

PLACEHOLDERS = ["{j}", "{k}", "{l}"]


def layer_kind(rule: dict, i: int, n: int, env: dict):
    fb = rule.get("fallback")
    if fb is not None and rule.get("key") is not None and lookup(env, rule["key"]) is None:
        return layer_kind(fb, i, n, env)
    exc = rule.get("except")
    if exc is not None:
        v = lookup(env, exc["key"]) or []
        if not isinstance(v, list):
            raise ValueError("except key %s is not a list" % exc["key"])
        if i in {(x + n) if isinstance(x, int) and x < 0 else x for x in v}:
            return exc["kind"]
    r = rule["rule"]
    if r == "all":
        return rule.get("kind", "all")
    if r == "list":
        v = lookup(env, rule["key"])
        if rule.get("cycle") and isinstance(v, list) and v:
            return rule["map"][_key(v[i % len(v)])]
        if not isinstance(v, list) or len(v) < n:
            raise ValueError("list key %s missing or shorter than %d" % (rule["key"], n))
        return rule["map"][_key(v[i])]
    if r == "string":
        v = lookup(env, rule["key"])
        if not isinstance(v, str) or len(v) < n:
            raise ValueError("string key %s missing or shorter than %d" % (rule["key"], n))
        return rule["map"][v[i]]
    if r == "indices":
        v = lookup(env, rule["key"])
        if v is None:
            v = []
        if not isinstance(v, list):
            raise ValueError("indices key %s is not a list" % rule["key"])
        idx = {(x + n) if isinstance(x, int) and x < 0 else x for x in v}
        return rule["in"] if i in idx else rule["out"]
    if r == "first_k":
        k = eval_expr(rule["key"], env)
        return rule["first"] if i < k else rule["rest"]
    if r == "period":
        p = eval_expr(rule["period"], env)
        o = eval_expr(rule.get("offset", 0), env)
        if p <= 0:
            raise ValueError("period <= 0")
        end = n - 1
        if "end" in rule:
            end = eval_expr(rule["end"], env)
            end = end + n if end < 0 else end
        start = eval_expr(rule["start"], env) if "start" in rule else o
        return rule["match"] if (i >= o and i >= start and i <= end and (i - o) % p == 0) else rule["other"]
    if r == "explicit":
        return rule["kinds"][i]
    raise ValueError("unknown rule %r" % r)


def _key(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    return str(v)


def _shape(shape, env):
    return tuple(eval_expr(s, env) for s in shape)


def _emit(out, prefix, t, env):
    if not eval_cond(t.get("when"), env):
        return
    shape = _shape(t["shape"], env)
    buf = bool(t.get("buffer", False))
    name = t["name"]
    counts = t.get("count")
    if counts is None:
        out[prefix + name] = (shape, buf)
        return
    if not isinstance(counts, list):
        counts = [counts]
    ns = [eval_expr(c, env) for c in counts]

    def rec(nm, depth):
        if depth == len(ns):
            out[prefix + nm] = (shape, buf)
            return
        for j in range(ns[depth]):
            rec(nm.replace(PLACEHOLDERS[depth], str(j), 1), depth + 1)
    rec(name, 0)


def expand(tpl: dict, env: dict) -> dict:
    out = {}
    for t in tpl.get("tensors", []):
        _emit(out, "", t, env)
    for c in tpl.get("containers", []):
        if not eval_cond(c.get("when"), env):
            continue
        n = eval_expr(c["repeat"], env)
        for i in range(n):
            prefix = "%s.%d." % (c["path"], i)
            for part in c["parts"]:
                kind = layer_kind(part["layer_kinds"], i, n, env)
                for t in part["kinds"].get(kind, []):
                    if t["name"] == "":
                        _emit(out, prefix[:-1], dict(t, name=""), env)
                    else:
                        _emit(out, prefix, t, env)
    return out

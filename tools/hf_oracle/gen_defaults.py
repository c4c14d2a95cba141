"""Generate tools/hf_oracle/generated/hf_config_defaults.json (see FORMAT.md section 5).

    .venv-oracle/bin/python tools/hf_oracle/gen_defaults.py
"""
from __future__ import annotations

import copy
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (BASE_KEYS, CONFIG_MAPPING, NOISE_RE, NON_STRUCT_RE, REPO, dump_json, enumerate_types,  # noqa: E402
                    flat_values, jsonable, quiet, sig_params, sub_config_keys, time_limit, transformers, versions)
from fit import fit  # noqa: E402
from structure import candidate_rules, raw_labels, string_candidates  # noqa: E402
import legacy  # noqa: E402

OUT = os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_config_defaults.json")
LIST_MAX = 16


def compact(v):
    v = jsonable(v)
    if isinstance(v, list) and len(v) > LIST_MAX:
        distinct = []
        for x in v:
            if x not in distinct:
                distinct.append(x)
        return OrderedDict([("list_of", len(v)), ("values", distinct[:8])])
    if isinstance(v, dict):
        return OrderedDict((k, compact(x)) for k, x in v.items())
    return v


def keep_key(k, v=None):
    """Keys written to the table: integers unless NON_STRUCT_RE (token ids...) says they never shape
    a tensor; other values unless NOISE_RE marks them as tokenizer/generation/training settings."""
    if k in BASE_KEYS or k.startswith("_") or NON_STRUCT_RE.search(k):
        return False
    if isinstance(v, int) and not isinstance(v, bool):
        return True
    return not NOISE_RE.search(k)


def construct(cls, kwargs):
    with time_limit(20):
        return cls(**kwargs)


def derive(cls, cfg, sig, subs):
    """Expressions for keys whose signature default is null but which are set after __init__."""
    d0 = cfg.to_dict()
    targets = [k for k in d0 if keep_key(k, d0[k]) and k not in subs and sig.get(k, None) is None
               and d0[k] is not None and (k in sig or True)]
    targets = [k for k in targets if k in sig or k not in {"model_type"}]
    if not targets:
        return OrderedDict()
    ints = [k for k, v in sig.items() if isinstance(v, int) and not isinstance(v, bool) and keep_key(k, v)
            and k not in subs]
    samples = [({k: getattr(cfg, k, None) for k in ints}, d0)]
    tried = {}  # key -> values the class accepted alone
    for k in ints:
        x = sig[k]
        for v in ([2 * x, x + 1, 3 * x, x + 2] if x else [2, 3, 5]):
            try:
                c = construct(cls, {k: v})
            except Exception:  # noqa: BLE001
                continue
            samples.append(({kk: getattr(c, kk, None) for kk in ints}, c.to_dict()))
            tried.setdefault(k, []).append(v)
            if len(tried[k]) >= 2:
                break
    out = OrderedDict()
    for t in targets:
        ys = [d.get(t) for _, d in samples]
        if all(isinstance(y, int) and not isinstance(y, bool) for y in ys):
            envs = [e for e, _ in samples]
            deps = []
            for e, y in zip(envs[1:], ys[1:]):
                if y != ys[0]:
                    deps += [k for k in ints if e.get(k) != envs[0].get(k)]
            if not deps:
                continue
            deps = sorted(set(deps))
            ex = fit(list(zip(envs, ys)), deps)
            if ex is not None and _holds_jointly(cls, ex, t, deps, tried, ints):
                out[t] = ex
        elif all(isinstance(y, list) for y in ys) and ys[0] and all(isinstance(x, str) for x in ys[0]):
            # per-layer list: find a rule over the integer keys
            for nk in ints:
                if not all(isinstance(e.get(nk), int) and len(y) == e.get(nk) for (e, _), y in zip(samples, ys)):
                    continue
                envs = [dict(e, **{kk: vv for kk, vv in d.items() if isinstance(vv, (int, list, str))
                                   and not kk.startswith("_")})
                        for e, d in samples]
                consts = [{"rule": "period", "period": str(p), "offset": o, "match": "match", "other": "other"}
                          for p in range(2, 9) for o in ("0", "1", str(p - 1))]
                for r in candidate_rules(envs[0], len(ys[0])) + consts:
                    if r["rule"] in ("list", "string", "indices"):
                        continue
                    m = {}
                    ok = True
                    for env, y in zip(envs, ys):
                        labs = raw_labels(r, env, len(y))
                        if labs is None:
                            ok = False
                            break
                        for lab, val in zip(labs, y):
                            if m.setdefault(lab, val) != val:
                                ok = False
                                break
                        if not ok:
                            break
                    if ok:
                        rr = OrderedDict((k, v) for k, v in r.items())
                        for lab in ("kind", "first", "rest", "match", "other"):
                            if lab in rr:
                                rr[lab] = m.get(rr[lab] if lab != "kind" else "all", rr[lab])
                        if rr["rule"] == "all":
                            rr["kind"] = ys[0][0]
                        rr["produces"] = "list"
                        rr["n"] = nk
                        out[t] = rr
                        break
                if t in out:
                    break
    return out


def _holds_jointly(cls, ex, target, deps, tried, ints, n=3):
    """The expression also holds where its keys move together (not only one at a time)."""
    from expr import eval_expr
    import random
    rng = random.Random(len(target) * 7919 + len(ex))
    checked = 0
    for _ in range(n * 3):
        kw = {k: rng.choice(tried[k]) for k in deps if k in tried}
        if not kw:
            return False
        try:
            c = construct(cls, kw)
        except Exception:  # noqa: BLE001
            continue
        env = {k: getattr(c, k, None) for k in ints}
        try:
            if eval_expr(ex, env) != c.to_dict().get(target):
                return False
        except Exception:  # noqa: BLE001
            return False
        checked += 1
        if checked >= n:
            break
    return checked > 0


def describe(mt):
    cls = CONFIG_MAPPING[mt]
    cfg = construct(cls, {})
    sig = sig_params(cls)
    subs = sub_config_keys(cfg)
    d = cfg.to_dict()
    ent = OrderedDict()
    ent["model_type"] = mt
    ent["signature"] = OrderedDict((k, compact(v)) for k, v in sig.items() if keep_key(k, v) and k not in subs)
    post = OrderedDict()
    for k, v in d.items():
        if not keep_key(k, v) or k in subs or k == "model_type":
            continue
        if k in sig and jsonable(sig[k]) == jsonable(v):
            continue
        post[k] = compact(v)
    ent["post_init"] = post
    am = getattr(cls, "attribute_map", None) or {}
    if am:
        ent["attribute_map"] = OrderedDict(sorted(am.items()))
    if subs:
        ent["sub_configs"] = OrderedDict((k, v.model_type) for k, v in subs.items())
    try:
        der = derive(cls, cfg, sig, subs)
    except Exception:  # noqa: BLE001
        der = OrderedDict()
    # keys read from **kwargs (legacy spellings): what they set, and their default
    try:
        legacy_keys, lder, aliases = legacy.probe(cls, cfg, sig)
    except Exception:  # noqa: BLE001
        legacy_keys, lder, aliases = {}, {}, {}
    for t, r in lder.items():
        der[t] = r  # the rule over the spelling the class still reads wins
    if aliases:
        am = OrderedDict(ent.get("attribute_map", {}))
        for a, c in aliases.items():
            am.setdefault(a, c)
        ent["attribute_map"] = OrderedDict(sorted(am.items()))
    if legacy_keys:
        ent["legacy_keys"] = OrderedDict(sorted(legacy_keys.items()))
    # attributes computed from a string parameter (T5: is_gated_act from feed_forward_proj)
    try:
        vm = legacy.value_maps(cls, cfg, sig, lambda c, k, v: string_candidates(c, k, v, use_vocab=False))
    except Exception:  # noqa: BLE001
        vm = {}
    for t, r in vm.items():
        der.setdefault(t, r)
    if der:
        ent["derived"] = OrderedDict(sorted(der.items()))
    return cls.__name__, ent, [v.model_type for v in subs.values()]


def main():
    rows, _ = enumerate_types()
    todo = [r["model_type"] for r in rows]
    seen = set()
    classes = OrderedDict()
    types = OrderedDict()
    failed = OrderedDict()
    while todo:
        mt = todo.pop(0)
        if mt in seen or mt not in CONFIG_MAPPING:
            continue
        seen.add(mt)
        try:
            name, ent, subs = describe(mt)
        except Exception as e:  # noqa: BLE001
            failed[mt] = (type(e).__name__ + ": " + str(e))[:200]
            continue
        types[mt] = name
        classes[name] = ent
        todo.extend(subs)
    out = OrderedDict()
    out["format"] = 1
    out["generated_by"] = "tools/hf_oracle/gen_defaults.py"
    out["versions"] = versions()
    out["model_types"] = OrderedDict(sorted(types.items()))
    out["classes"] = OrderedDict(sorted(classes.items()))
    if failed:
        out["failed"] = failed
    dump_json(out, OUT)
    print("wrote", OUT, len(classes), "classes,", len(failed), "failed")


if __name__ == "__main__":
    main()

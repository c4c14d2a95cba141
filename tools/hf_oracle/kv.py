"""KV cache per layer by construction: a real forward pass of a scaled-down model on CPU.

The model is scaled down (every width divided by a common power of two, layer counts capped,
routed experts capped, vocabulary capped), run with use_cache=True at two sequence lengths,
and the cache object's per-layer tensors are read generically (keys/values, sliding-window
layers, linear-attention conv/recurrent states, encoder-decoder caches). Per layer:
per_token = (elements at T2 - elements at T1) / (T2 - T1), state = elements at T1 - per_token * T1.
The per-token and state figures are then fitted as expressions over the config, from three
scaled-down configs that differ in width and in head counts, and evaluated at the target config.
"""
from __future__ import annotations

import copy
import json
import re
from collections import OrderedDict

import torch

from common import (NON_STRUCT_RE, augment_env, build_config, config_dict, config_env, flat_values, model_class, quiet,
                    time_limit)
from fit import fit
from structure import LAYER_KEY_RE, _deps, _find_rule, raw_labels, refines, set_path

DIM_RE = re.compile(r"(hidden_size|intermediate_size|^d_model$|^n_embd$|^d_ff$|ffn_dim|^dim$|head_dim|^d_kv$|"
                    r"_dim$|lora_rank|^n_inner$|hidden_dim|embed_dim|^width$|state_size|d_state|d_inner|"
                    r"expert_intermediate|shared_expert_intermediate|moe_intermediate|_head_size)")
DIM_EXCLUDE = re.compile(r"(vocab|image|patch|window|chunk|kernel|conv|position|bucket|sliding|block_size|"
                         r"group_size|spatial|temporal|mel|frame|stride|buffer|batch|num_|^n_|codebook|"
                         r"max_|input_dim|vision_feature|proj_size|out_dim|time_step|dt_)")
EXPERT_KEYS = re.compile(r"^(num_local_experts|num_experts|n_routed_experts|moe_num_experts)$")
HEADS_RE = re.compile(r"^(num_key_value_heads|num_attention_heads|n_head|num_heads|num_kv_heads|"
                      r"encoder_attention_heads|decoder_attention_heads|n_kv_heads)$")
VOCAB_CAP = 512
LAYERS = 6
STATE_KEYS = re.compile(r"(state|conv|expand|d_inner|head_dim|groups|kernel|rank|linear_|mamba|ssm|num_heads|"
                        r"key_value|attention_heads|intermediate_size)")


def _levels(d, prefix=""):
    yield prefix, d
    for k, v in d.items():
        if isinstance(v, dict) and "model_type" in v:
            yield from _levels(v, prefix + k + ".")


def scaled_kwargs(base_kw, full_dict, width_div=None, heads_mult=1, kv_div=1, double=None):
    """Scaled-down kwargs. full_dict: to_dict() of the target config (post-init values)."""
    kw = copy.deepcopy(base_kw)
    for prefix, lvl in _levels(full_dict):
        def put(k, v):
            nonlocal kw
            kw = set_path(kw, prefix + k, v)
        dims = {k: v for k, v in lvl.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0
                and DIM_RE.search(k) and not DIM_EXCLUDE.search(k)}
        heads = lvl.get("num_attention_heads") or lvl.get("num_heads") or lvl.get("n_head")
        hd = lvl.get("head_dim") or lvl.get("d_kv")
        hidden = lvl.get("hidden_size") or lvl.get("d_model") or lvl.get("n_embd")
        if not hd and heads and hidden:
            hd = hidden // heads if hidden % heads == 0 else None
        s = 1
        for cand in (8, 4, 2):
            if all(v % cand == 0 for v in dims.values()) and (not hd or (hd % cand == 0 and (hd // cand) % 2 == 0)):
                s = cand
                break
        if width_div is not None:
            s = max(1, s // width_div)
        for k, v in dims.items():
            put(k, max(1, v // s))
        for k, v in lvl.items():
            if isinstance(v, bool) or not isinstance(v, int):
                continue
            if LAYER_KEY_RE.match(k) and v > LAYERS:
                put(k, LAYERS)
                for k2, v2 in lvl.items():
                    if isinstance(v2, (list, str)) and len(v2) == v and k2 != k:
                        put(k2, v2[:LAYERS])
                    elif isinstance(v2, list) and v2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v2) \
                            and all(0 <= x < v for x in v2) and len(v2) < v and re.search("layer", k2):
                        put(k2, [x for x in v2 if x < LAYERS])
            elif EXPERT_KEYS.match(k) and v > 8:
                topk = max([x for kk, x in lvl.items() if re.search(r"(experts_per_tok|top_k|topk$|moe_k)", kk)
                            and isinstance(x, int) and not isinstance(x, bool)] or [1])
                put(k, max(8, topk))
                if isinstance(lvl.get("n_group"), int):
                    put("n_group", 1)
                    if isinstance(lvl.get("topk_group"), int):
                        put("topk_group", 1)
            elif k == "vocab_size" and v > VOCAB_CAP:
                put(k, VOCAB_CAP)
        new_hidden = get_scaled(kw, prefix, ("hidden_size", "d_model", "n_embd"))
        if heads_mult != 1 and heads and (hd is None or lvl.get("head_dim") is not None
                                          or (new_hidden and new_hidden % (heads * heads_mult) == 0)):
            for k, v in lvl.items():
                if HEADS_RE.match(k) and isinstance(v, int) and not isinstance(v, bool):
                    put(k, v * heads_mult)
        kvh = lvl.get("num_key_value_heads")
        if kv_div != 1 and isinstance(kvh, int) and kvh % kv_div == 0 and kvh // kv_div >= 1:
            put("num_key_value_heads", kvh // kv_div)
        if double and double.startswith(prefix) and "." not in double[len(prefix):]:
            k = double[len(prefix):]
            cur = get_scaled(kw, prefix, (k,))
            if cur is None:
                cur = lvl.get(k)
            if isinstance(cur, int) and not isinstance(cur, bool):
                put(k, cur * 2 if cur else 2)
        # token ids must stay inside the capped vocabulary
        ids = sorted({v for k, v in lvl.items() if isinstance(v, int) and not isinstance(v, bool)
                      and re.search(r"(token_id|token_index|_id$)", k) and v >= VOCAB_CAP})
        remap = {v: VOCAB_CAP - 1 - i for i, v in enumerate(ids)}
        for k, v in lvl.items():
            if re.search(r"(token_id|token_index|_id$)", k):
                if isinstance(v, int) and not isinstance(v, bool) and v in remap:
                    put(k, remap[v])
                elif isinstance(v, list) and all(isinstance(x, int) for x in v):
                    put(k, [remap.get(x, x) if x < VOCAB_CAP else VOCAB_CAP - 1 for x in v])
    return kw


def get_scaled(kw, prefix, keys):
    from structure import get_path
    for k in keys:
        v = get_path(kw, prefix + k)
        if isinstance(v, int):
            return v
    return None


def _tensors(obj, depth=0):
    """All tensors reachable from a cache layer object (attributes, dicts, lists)."""
    out = []
    if depth > 3:
        return out
    if isinstance(obj, torch.Tensor):
        if obj.dim() > 0:
            out.append(obj)
        return out
    if isinstance(obj, dict):
        for v in obj.values():
            out += _tensors(v, depth + 1)
        return out
    if isinstance(obj, (list, tuple)):
        for v in obj:
            out += _tensors(v, depth + 1)
        return out
    if hasattr(obj, "__dict__"):
        for k, v in vars(obj).items():
            if k.startswith("_sliding_window_tensor") or k in ("cumulative_length", "cumulative_length_linear"):
                continue
            out += _tensors(v, depth + 1)
    return out


def _numel(sh):
    n = 1
    for x in sh:
        n *= x
    return n


def read_cache(cache):
    """-> list of per-layer dicts {cls, elements, window, cross} (cross-attention layers separately)."""
    layers = []
    if cache is None:
        return None
    if hasattr(cache, "self_attention_cache") and hasattr(cache, "cross_attention_cache"):
        selfl = read_cache(cache.self_attention_cache) or []
        cross = read_cache(cache.cross_attention_cache) or []
        for i, l in enumerate(selfl):
            l = dict(l)
            if i < len(cross):
                shapes = cross[i].get("shapes") or []
                l["cross_per_token"] = sum(_numel(sh) // sh[-2] for sh in shapes if len(sh) >= 3 and sh[-2] > 0)
                l["source_len"] = max([sh[-2] for sh in shapes if len(sh) >= 3] or [0])
            layers.append(l)
        return layers
    if hasattr(cache, "layers"):
        for lay in cache.layers:
            ts = _tensors(lay)
            layers.append({"cls": type(lay).__name__, "elements": sum(t.numel() for t in ts),
                           "window": getattr(lay, "sliding_window", None),
                           "shapes": [tuple(t.shape) for t in ts]})
        return layers
    # older cache objects: lists of per-layer tensors in attributes
    per = {}
    for k, v in vars(cache).items():
        if isinstance(v, (list, tuple)) and v and all(isinstance(t, torch.Tensor) for t in v):
            for i, t in enumerate(v):
                per.setdefault(i, []).append(t)
    if per:
        return [{"cls": type(cache).__name__, "elements": sum(t.numel() for t in per[i]), "window": None}
                for i in sorted(per)]
    return None


def forward_cache(model_type, cls_name, kw, lengths=(5, 9)):
    cfg = build_config(model_type, kw)
    torch.manual_seed(0)
    with quiet():
        model = model_class(cls_name)(cfg)
    model.eval()
    res = []
    main = getattr(model, "main_input_name", "input_ids")
    for T in lengths:
        inputs = {}
        if main == "input_features":
            nm = getattr(cfg, "num_mel_bins", 80)
            L = 2 * getattr(cfg, "max_source_positions", 1500)
            inputs["input_features"] = torch.randn(1, nm, L)
            inputs["decoder_input_ids"] = torch.arange(1, T + 1).unsqueeze(0)
        elif main == "input_ids":
            inputs["input_ids"] = torch.arange(3, 3 + T).unsqueeze(0) % VOCAB_CAP
            if getattr(cfg, "is_encoder_decoder", False):
                inputs["decoder_input_ids"] = torch.arange(1, T + 1).unsqueeze(0)
                inputs["input_ids"] = torch.arange(3, 3 + 7).unsqueeze(0)  # fixed source length 7
        else:
            raise RuntimeError("main input %s not supported by the forward probe" % main)
        with torch.no_grad(), quiet():
            out = model(**inputs, use_cache=True)
        cache = None
        for name in ("past_key_values", "cache", "cache_params"):
            cache = getattr(out, name, None)
            if cache is not None:
                break
        layers = read_cache(cache)
        if layers is None:
            raise RuntimeError("no cache object in the model output")
        res.append(layers)
    env = config_env(cfg, kw)
    return res, env


def per_layer(res, lengths=(5, 9), src_len=7):
    a, b = res
    out = []
    for la, lb in zip(a, b):
        pt = (lb["elements"] - la["elements"]) // (lengths[1] - lengths[0])
        st = la["elements"] - pt * lengths[0]
        d = {"cls": la["cls"], "per_token": pt, "state": st, "window": la.get("window")}
        sa, sb = la.get("shapes"), lb.get("shapes")
        if sa is not None and sb is not None and len(sa) == len(sb):
            parts = [_numel(x) for x, y in zip(sa, sb) if x == y]
            if sum(parts) == st:
                d["state_parts"] = parts
        if la.get("cross_per_token"):
            d["cross_per_token"] = la["cross_per_token"]
            d["source_len"] = la["source_len"]
        out.append(d)
    return out


def classify(lay, env):
    cls = lay["cls"]
    if cls == "DummyLayer" or (lay["per_token"] == 0 and lay["state"] == 0 and not lay.get("cross_per_token")):
        return "none"
    if lay["per_token"] == 0 and lay["state"] > 0:
        return "state"
    if "Sliding" in cls or lay.get("window"):
        chunk = env.get("attention_chunk_size") or env.get("text_config.attention_chunk_size")
        if chunk and lay.get("window") == chunk:
            return "chunked"
        return "sliding"
    return "full"


def kv_rows(model_type, cls_name, base_kw, target_cfg, budget=120):
    """Per-layer KV figures at target_cfg. Returns (rows, source, error).

    First with four scaled configs (base, widths x2, heads x2, kv heads /2); where the fitted
    expressions do not reproduce a held-out config, again with one config per key that can
    shape a recurrent state (each doubled)."""
    full = config_dict(target_cfg)
    tenv = config_env(target_cfg, base_kw)
    memo = {}
    variants = [dict(), dict(width_div=2), dict(heads_mult=2), dict(kv_div=2)]
    r = _kv_attempt(model_type, cls_name, base_kw, full, tenv, variants, budget, memo)
    if not (r[1] == "forward" and not any(row.get("state") for row in r[0][0])):
        for k in sorted(tenv):
            if isinstance(tenv[k], int) and not isinstance(tenv[k], bool) and STATE_KEYS.search(k.split(".")[-1]) \
                    and not NON_STRUCT_RE.search(k.split(".")[-1]) and not k.startswith(("vision_config", "audio_config")):
                variants.append(dict(double=k))
        r2 = _kv_attempt(model_type, cls_name, base_kw, full, tenv, variants, budget, memo)
        if r2[0] is not None or r[0] is None:
            r = r2
    if r[0] is not None:
        from structure import add_legacy_values
        add_legacy_values(r[0][1]["layer_kinds"], target_cfg)
    return r


def _run(model_type, cls_name, base_kw, full, v, budget, memo):
    key = json.dumps(v, sort_keys=True)
    if key not in memo:
        try:
            with time_limit(budget):
                kw = scaled_kwargs(base_kw, full, **v)
                res, env = forward_cache(model_type, cls_name, kw)
            memo[key] = (env, per_layer(res))
        except Exception as e:  # noqa: BLE001
            memo[key] = e
    if isinstance(memo[key], Exception):
        raise memo[key]
    return memo[key]


def _kv_attempt(model_type, cls_name, base_kw, full, tenv, variants, budget, memo):
    held_out = dict(width_div=2, heads_mult=2)
    obs = []
    err = None
    for v in variants:
        try:
            obs.append(_run(model_type, cls_name, base_kw, full, v, budget, memo))
        except Exception as e:  # noqa: BLE001
            err = (type(e).__name__ + ": " + str(e)).strip()[:300]
            if len(obs) < 2 and (not v or "width_div" in v):
                return None, None, "forward pass of a scaled-down model failed (%s): %s" % (v, err)
    # kinds per layer in each observation, then a rule to carry them to the target config
    kinds = [[classify(l, env) for l in lays] for env, lays in obs]
    sigs = [[(k, l["per_token"] > 0, l["state"] > 0, bool(l.get("cross_per_token"))) for k, l in zip(ks, lays)]
            for ks, (env, lays) in zip(kinds, obs)]
    issues = []
    rule, labels = _find_rule(sigs, [e for e, _ in obs], all(len(set(s)) <= 1 for s in sigs), issues, "kv")
    # prefer the per-layer list transformers itself reads (layer_types), keeping the rule found as fallback
    fallback = None
    if rule["rule"] not in ("list", "all"):
        for k in sorted(obs[0][0]):
            if not k.endswith("layer_types") or not isinstance(obs[0][0][k], list):
                continue
            r2 = {"rule": "list", "key": k, "map": None}
            labs2 = [raw_labels(r2, e, len(sg)) for sg, (e, _) in zip(sigs, obs)]
            if all(lb is not None and refines(lb, sg) for lb, sg in zip(labs2, sigs)):
                # fallback labels -> list labels, from the first observation
                m = {}
                for a, b in zip(labels[0], labs2[0]):
                    m.setdefault(a, b)
                fallback = (rule, m)
                rule, labels = r2, labs2
                break
    n_key_vals = None
    n_target = None
    for k in ("num_hidden_layers", "num_layers", "n_layer", "decoder_layers", "num_decoder_layers",
              "text_config.num_hidden_layers", "text_config.num_layers"):
        if isinstance(tenv.get(k), int) and all(e.get(k) == len(l) for e, l in obs):
            n_target = tenv[k]
            n_key_vals = k
            break
    if n_target is None:
        return None, None, "layer count key not found for the cache"
    if rule["rule"] == "explicit":
        return None, None, "no rule for the cache layer kinds"
    tl = raw_labels(rule, tenv, n_target) if rule["rule"] != "all" else ["all"] * n_target
    if tl is None:
        return None, None, "cache layer rule not evaluable at the target config"
    # representative layer per label in each observation
    cand = sorted(k for k, v in obs[0][0].items() if isinstance(v, int) and not isinstance(v, bool)
                  and not NON_STRUCT_RE.search(k.split(".")[-1]))
    fitted = {}
    for lab in sorted(set(tl)):
        samples = {"per_token": [], "state": [], "cross_per_token": [], "source_len": []}
        parts_s = []
        kind = None
        windows = []
        for (env, lays), labs, ks in zip(obs, labels, kinds):
            if labs is None:
                continue
            idx = [i for i, x in enumerate(labs) if x == lab]
            if not idx:
                continue
            lay = lays[idx[0]]
            kind = ks[idx[0]]
            windows.append((env, lay.get("window")))
            for f in samples:
                samples[f].append((env, lay.get(f) or 0))
            parts_s.append(lay.get("state_parts") or [])
        if kind is None:
            return None, None, "cache kind %s not observed" % lab
        ent = {"kind": kind}
        src = samples.pop("source_len")
        if src and any(y for _, y in src):
            ent["source_len"] = None
            for k in sorted(src[0][0]):
                if all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool) and e.get(k) == y for e, y in src):
                    ent["source_len"] = k
                    break
        for f, smp in samples.items():
            if not smp:
                continue
            if all(y == 0 for _, y in smp):
                ent[f] = "0"
                continue
            if f == "state" and len({len(p) for p in parts_s}) == 1 and len(parts_s) == len(smp) \
                    and len(parts_s[0]) > 1:
                exs = []
                for j in range(len(parts_s[0])):
                    sj = [(e, p[j]) for (e, _), p in zip(smp, parts_s)]
                    envs_ = [e for e, _ in sj]
                    ys_ = [y for _, y in sj]
                    if all(y == 0 for y in ys_):
                        continue
                    deps = _deps(envs_, ys_, cand)
                    exj = fit(sj, deps, allow_const=False) if deps else None
                    if exj is None:
                        exj = fit(sj, cand, max_terms=1, allow_const=False)
                    if exj is None:
                        exs = None
                        break
                    exs.append(exj)
                if exs:
                    ent[f] = " + ".join(exs)
                    continue
            envs_ = [e for e, _ in smp]
            ys_ = [y for _, y in smp]
            deps = _deps(envs_, ys_, cand)
            ex = fit(smp, deps, allow_const=False) if deps else None
            if ex is None:
                ex = fit(smp, cand, max_terms=1, allow_const=False)
            if ex is None:
                return None, None, "no expression for %s of cache kind %s" % (f, kind)
            ent[f] = ex
        if kind in ("sliding", "chunked"):
            ent["window"] = None
            for k in sorted(obs[0][0]):
                if all(isinstance(e.get(k), int) and e.get(k) == w for e, w in windows):
                    ent["window"] = k
                    if re.search(r"(sliding_window|chunk)", k):
                        break
        if kind == "full" and isinstance(obs[0][0].get("kv_lora_rank"), int) and \
                isinstance(obs[0][0].get("qk_rope_head_dim"), int):
            ent["kind"] = "mla"
            ent["hf_per_token"] = ent["per_token"]
            ent["per_token"] = "kv_lora_rank + qk_rope_head_dim"
        fitted[lab] = ent
    # held-out check: a scaled config not used for fitting
    from expr import eval_expr
    validated = False
    try:
        env, lays = _run(model_type, cls_name, base_kw, full, held_out, budget, memo)
        labs = raw_labels(rule, env, len(lays)) if rule["rule"] != "all" else ["all"] * len(lays)
        bad = []
        for i, (lay, lab) in enumerate(zip(lays, labs)):
            f = fitted.get(lab)
            if f is None:
                bad.append("layer %d kind %s not fitted" % (i, lab))
                continue
            for fld in ("hf_per_token" if f.get("hf_per_token") else "per_token", "state", "cross_per_token"):
                want = lay.get(fld.replace("hf_", "")) or 0
                got = eval_expr(f.get(fld, "0") or "0", env)
                if want != got:
                    bad.append("layer %d %s %d vs %d" % (i, fld, got, want))
        validated = not bad
        if bad:
            issues.append("held-out config: " + "; ".join(bad[:3]))
    except Exception as e:  # noqa: BLE001
        issues.append("held-out config not run: %s" % (type(e).__name__ + ": " + str(e))[:200])
    rows = []
    for i, lab in enumerate(tl):
        f = fitted[lab]
        from expr import eval_expr
        r = {"kind": f["kind"], "per_token": eval_expr(f.get("per_token", "0"), tenv),
             "state": eval_expr(f.get("state", "0"), tenv),
             "window": tenv.get(f["window"]) if f.get("window") else None}
        if f.get("cross_per_token") and f["cross_per_token"] != "0":
            r["cross_per_token"] = eval_expr(f["cross_per_token"], tenv)
        if f.get("hf_per_token"):
            r["hf_per_token"] = eval_expr(f["hf_per_token"], tenv)
        r["expr"] = {k: f[k] for k in ("per_token", "state", "cross_per_token", "hf_per_token")
                     if k in f and f[k] != "0"}
        if f.get("window"):
            r["expr"]["window"] = f["window"]
        if f.get("source_len"):
            r["source_len"] = f["source_len"]
        rows.append(r)
    from structure import _finalize_rule
    labels_all = sorted(fitted)
    tpl = OrderedDict()
    tpl["layers"] = n_key_vals
    tpl["layer_kinds"] = _finalize_rule(rule, {lab: lab for lab in labels_all})
    if fallback is not None:
        fr, m = fallback
        fb = _finalize_rule(fr, m)
        tpl["layer_kinds"]["fallback"] = fb
    kinds = OrderedDict()
    for lab in labels_all:
        f = fitted[lab]
        k = OrderedDict([("kind", f["kind"])])
        for fld in ("per_token", "hf_per_token", "state", "cross_per_token", "window", "source_len"):
            if f.get(fld) not in (None, "0"):
                k[fld] = f[fld]
        kinds[lab] = k
    tpl["kinds"] = kinds
    tpl["validated"] = validated
    rows_tpl = (rows, tpl)
    return rows_tpl, ("forward" if validated else "forward-unvalidated"), None if not issues else "; ".join(issues)

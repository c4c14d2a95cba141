"""Parameter templates by construction (see FORMAT.md).

For one model_type: instantiate the model on the meta device at a base config and at
perturbed configs, group tensors by repeated containers, find layer-kind rules, fit every
dimension as an expression over the config keys, fit presence conditions, then validate the
template at random configs that were not used for fitting and at the default config.
"""
from __future__ import annotations

import copy
import json
import os
import time
import random
import re
from collections import OrderedDict, defaultdict

from common import (BASE_KEYS, NON_STRUCT_RE, REPO, NULL_DERIVATIONS, augment_env, build_config, config_dict, config_env,
                    default_config, essential_kwargs, LEGACY_ENV_KEYS, null_repairs, with_values,
                    flat_values, has_lm_module, instantiate_meta, numel, role_of, stable_seed,
                    tensor_list, time_limit, tower_of)
from expr import eval_expr, lookup
from fit import fit
from template import expand, layer_kind

LAYER_KEY_RE = re.compile(r"^(num_hidden_layers|num_layers|n_layer|n_layers|encoder_layers|decoder_layers|"
                          r"num_decoder_layers|num_encoder_layers|depth|num_global_layers|text_layers|"
                          r"vision_layers|num_blocks)$")
LAYER_CAP = 8
TOPK_RE = re.compile(r"(experts_per_tok|^top_k$|^topk$|moe_k$|num_selected_experts|experts_per_token|"
                     r"router_topk|moe_topk|^num_experts_per_tok$|top_k_experts|moe_top_k)")
EXPERTS_RE = re.compile(r"(experts|n_routed)")
RULE_KEY_RE = re.compile(r"(offset|period|step|interval|pattern|freq|every|sparse|interleave|start|"
                         r"replace|first|ratio|layer|dense)", re.I)
INT_PATTERN = re.compile(r"^\d+$")


class Obs:
    __slots__ = ("kwargs", "env", "tensors", "tag")

    def __init__(self, kwargs, env, tensors, tag):
        self.kwargs = kwargs
        self.env = env
        self.tensors = tensors  # list of (name, shape, buf)
        self.tag = tag


def set_path(kwargs, path, value):
    kw = copy.deepcopy(kwargs)
    parts = path.split(".")
    cur = kw
    for p in parts[:-1]:
        if p not in cur or not isinstance(cur[p], dict):
            cur[p] = {}
        cur = cur[p]
    cur[parts[-1]] = value
    return kw


def get_path(kwargs, path):
    cur = kwargs
    for p in path.split("."):
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


class Runner:
    def __init__(self, model_type, cls_name, timeout=300):
        self.mt = model_type
        self.cls = cls_name
        self.timeout = timeout
        self.cache = {}
        self.n_inst = 0
        self.max_inst = None  # budget in instantiations (not in seconds: the result must not
        self.attempts = 0     # depend on how loaded the machine is)
        self.budget_hit = False

    def observe(self, kwargs, tag=""):
        key0 = json.dumps(kwargs, sort_keys=True, default=str)
        if key0 not in self.cache:
            if self.max_inst is not None and self.attempts >= self.max_inst:
                self.budget_hit = True
                raise TimeoutError("instantiation budget for this model type spent")
            self.attempts += 1
        key = json.dumps(kwargs, sort_keys=True, default=str)
        if key in self.cache:
            r = self.cache[key]
            if isinstance(r, Exception):
                raise r
            return r
        try:
            with time_limit(self.timeout):
                cfg = build_config(self.mt, kwargs)
                model = instantiate_meta(self.cls, cfg)
                env = config_env(cfg, kwargs)
                tensors = tensor_list(model)
            self.n_inst += 1
            del model
            r = Obs(kwargs, env, tensors, tag)
        except Exception as e:  # noqa: BLE001
            self.cache[key] = e
            raise
        self.cache[key] = r
        return r

    def try_observe(self, kwargs, tag=""):
        try:
            return self.observe(kwargs, tag)
        except Exception:  # noqa: BLE001
            return None


# ---------------------------------------------------------------- base config

def reduce_layers(kwargs, cfg_dict, prefix=""):
    """Cap layer-count keys at LAYER_CAP (per config level), trimming per-layer lists/strings."""
    kw = copy.deepcopy(kwargs)
    changes = {}
    for k, v in cfg_dict.items():
        if isinstance(v, dict) and "model_type" in v:
            sub = kw.get(k) if isinstance(kw.get(k), dict) else None
            if sub is not None:
                sub2, ch = reduce_layers(sub, v, prefix + k + ".")
                kw[k] = sub2
                changes.update(ch)
    for k, v in cfg_dict.items():
        if not (isinstance(v, int) and not isinstance(v, bool) and LAYER_KEY_RE.match(k) and v > LAYER_CAP):
            continue
        n = v
        kw[k] = LAYER_CAP
        changes[prefix + k] = (n, LAYER_CAP)
        for k2, v2 in cfg_dict.items():
            if k2 == k:
                continue
            if isinstance(v2, (list, str)) and len(v2) == n and k2 in kw:
                kw[k2] = v2[:LAYER_CAP]
            elif isinstance(v2, list) and v2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v2) \
                    and k2 in kw and all(0 <= x < n for x in v2) and len(v2) < n:
                kw[k2] = [x for x in v2 if x < LAYER_CAP]
    return kw, changes


def fixup_kwargs(runner, kw):
    """Add keys whose value is lost when rebuilding from kwargs (extra kwargs, rope dicts...)."""
    cfg0 = default_config(runner.mt)
    d0 = flat_values(config_dict(cfg0))
    for _ in range(3):
        cfg = build_config(runner.mt, kw)
        d1 = flat_values(config_dict(cfg))
        diff = [k for k in d0 if d0.get(k) != d1.get(k)]
        if not diff:
            return kw, []
        for k in diff:
            kw = set_path(kw, k, copy.deepcopy(d0[k]))
    cfg = build_config(runner.mt, kw)
    d1 = flat_values(config_dict(cfg))
    return kw, [k for k in d0 if d0.get(k) != d1.get(k)]


# ---------------------------------------------------------------- grouping

def split_name(name):
    parts = name.split(".")
    for i, p in enumerate(parts):
        if INT_PATTERN.match(p):
            return ".".join(parts[:i]), int(p), ".".join(parts[i + 1:])
    return None


def template_rel(entries, depth=0):
    """entries: list of (rel, shape, buf). Replace homogeneous nested indices by {j}/{k}.
    Returns list of (rel_template, counts tuple, shape, buf)."""
    plain = []
    groups = OrderedDict()
    for rel, shape, buf in entries:
        sp = split_name(rel) if rel else None
        if sp is None or depth >= 2:
            plain.append((rel, (), shape, buf))
            continue
        pre, idx, suf = sp
        groups.setdefault(pre, {}).setdefault(idx, []).append((suf, shape, buf))
    out = list(plain)
    ph = ["{j}", "{k}", "{l}"][depth]
    for pre, by_idx in groups.items():
        idxs = sorted(by_idx)
        sigs = [tuple(sorted((s, tuple(sh), b) for s, sh, b in by_idx[i])) for i in idxs]
        homogeneous = len(idxs) > 1 and all(s == sigs[0] for s in sigs) and idxs == list(range(len(idxs)))
        if homogeneous:
            inner = template_rel(by_idx[idxs[0]], depth + 1)
            for rel, counts, shape, buf in inner:
                name = (pre + "." if pre else "") + ph + ("." + rel if rel else "")
                out.append((name, (len(idxs),) + counts, shape, buf))
        else:
            for i in idxs:
                inner = template_rel(by_idx[i], depth)
                for rel, counts, shape, buf in inner:
                    name = (pre + "." if pre else "") + str(i) + ("." + rel if rel else "")
                    out.append((name, counts, shape, buf))
    return out


def group(obs):
    """-> (top: {name: (shape, buf)}, containers: {path: [ {rel: (counts, shape, buf)} per layer ]})"""
    top = OrderedDict()
    raw = OrderedDict()
    for name, shape, buf in obs.tensors:
        sp = split_name(name)
        if sp is None:
            top[name] = (shape, buf)
        else:
            pre, idx, rel = sp
            raw.setdefault(pre, {}).setdefault(idx, []).append((rel, shape, buf))
    conts = OrderedDict()
    for pre, by_idx in raw.items():
        idxs = sorted(by_idx)
        if idxs != list(range(len(idxs))):
            # non-contiguous: keep as top-level tensors
            for i in idxs:
                for rel, shape, buf in by_idx[i]:
                    top["%s.%d%s" % (pre, i, "." + rel if rel else "")] = (shape, buf)
            continue
        layers = []
        for i in idxs:
            d = OrderedDict()
            for rel, counts, shape, buf in template_rel(by_idx[i]):
                d[rel] = (counts, shape, buf)
            layers.append(d)
        conts[pre] = layers
    return top, conts


def slot_of(rel):
    return rel.split(".")[0] if rel else ""


# ---------------------------------------------------------------- rules

def canon(seq):
    m = {}
    return tuple(m.setdefault(s, len(m)) for s in seq)


def refines(labels, sigs):
    """labels equal => signatures equal"""
    seen = {}
    for lab, s in zip(labels, sigs):
        if lab in seen and seen[lab] != s:
            return False
        seen.setdefault(lab, s)
    return True


def rule_labels(rule, env, n):
    try:
        return [layer_kind(rule, i, n, env) for i in range(n)]
    except Exception:  # noqa: BLE001
        return None


def candidate_rules(env, n):
    """Rules with their labels as kind placeholders; kinds are renamed later."""
    from common import LEGACY_ENV_KEYS
    env = {k: v for k, v in env.items() if k not in LEGACY_ENV_KEYS}
    c = [{"rule": "all"}]
    ints = {k: v for k, v in env.items() if isinstance(v, int) and not isinstance(v, bool)
            and not NON_STRUCT_RE.search(k.split(".")[-1])}
    rk = {k: v for k, v in ints.items() if RULE_KEY_RE.search(k.split(".")[-1])}
    c.append({"rule": "first_k", "key": "1", "first": "first", "rest": "rest"})
    for k, v in sorted(rk.items()):
        if 0 <= v <= n + 1:
            c.append({"rule": "first_k", "key": k, "first": "first", "rest": "rest"})
    for p, pv in sorted(rk.items()):
        if pv < 1:
            continue
        offs = ["0", "1", "%s - 1" % p] + [o for o, ov in sorted(rk.items()) if o != p and 0 <= ov < max(n, pv + 1)]
        for o in offs:
            c.append({"rule": "period", "period": p, "offset": o, "match": "match", "other": "other"})
        # a run that stops at a layer named by a key (ernie4_5_moe's moe_layer_end_index)
        ends = [e for e, ev in sorted(ints.items()) if "end" in e.split(".")[-1].lower()]
        starts = [b for b, bv in sorted(ints.items()) if "start" in b.split(".")[-1].lower()]
        for e in ends:
            for o in offs:
                c.append({"rule": "period", "period": p, "offset": o, "end": e, "match": "match", "other": "other"})
                for b in starts:
                    c.append({"rule": "period", "period": p, "offset": o, "start": b, "end": e,
                              "match": "match", "other": "other"})
    # a period derived from the layer count: every (n // K)-th layer (evolla's aligner layers,
    # (i + 1) % max(num_hidden_layers // aligner_num_add_layers, 1) == 0)
    for lk in sorted(k for k, v in ints.items() if v == n and "layer" in k.split(".")[-1].lower()):
        for k, v in sorted(rk.items()):
            if k == lk or v < 1:
                continue
            per = "max(%s // %s, 1)" % (lk, k)
            for o in ("0", "%s - 1" % per):
                c.append({"rule": "period", "period": per, "offset": o, "match": "match", "other": "other"})
    for k, v in sorted(env.items()):
        if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            c.append({"rule": "indices", "key": k, "in": "in", "out": "out"})
        if isinstance(v, str) and len(v) == n and n > 1 and not NON_STRUCT_RE.search(k.split(".")[-1]):
            c.append({"rule": "string", "key": k, "map": None})
        if isinstance(v, list) and len(v) >= n and n > 1 and all(isinstance(x, (str, int, bool)) or x is None for x in v):
            c.append({"rule": "list", "key": k, "map": None})
        # a pattern repeated over the layers (recurrent_gemma's block_types)
        if (isinstance(v, list) and 1 < len(v) < n and all(isinstance(x, (str, bool)) for x in v)
                and len(set(map(str, v))) > 1):
            c.append({"rule": "list", "key": k, "map": None, "cycle": True})
    return c


def raw_labels(rule, env, n):
    """Labels for candidate rules whose map is not known yet (list/string: the values)."""
    if rule.get("except"):
        v = lookup(env, rule["except"]["key"])
        if not isinstance(v, list):
            return None
        base = raw_labels({k: x for k, x in rule.items() if k != "except"}, env, n)
        if base is None:
            return None
        idx = {(x + n) if x < 0 else x for x in v}
        return ["except" if i in idx else lab for i, lab in enumerate(base)]
    r = rule["rule"]
    if r in ("list", "string"):
        v = lookup(env, rule["key"])
        if r == "list" and not isinstance(v, list):
            return None
        if r == "string" and not isinstance(v, str):
            return None
        if rule.get("cycle") and r == "list" and v:
            v = [v[i % len(v)] for i in range(n)]
        if len(v) < n:
            return None
        return ["%s" % ("true" if x is True else "false" if x is False else "null" if x is None else x)
                for x in v[:n]]
    return rule_labels(rule, env, n)


# ---------------------------------------------------------------- conditions

def cond_literals(envs):
    keys = set()
    for e in envs:
        keys |= set(e)
    lits = []
    strs = []
    for k in sorted(keys):
        vals = [e.get(k) for e in envs]
        if NON_STRUCT_RE.search(k.split(".")[-1]) and "tie" not in k:
            continue
        if any(isinstance(v, bool) for v in vals):
            lits.append((k, lambda e, k=k: bool(e.get(k)) is True))
            lits.append(("!" + k, lambda e, k=k: not bool(e.get(k))))
        elif any(v is None for v in vals) and any(v is not None for v in vals):
            lits.append(("%s != null" % k, lambda e, k=k: e.get(k) is not None))
            lits.append(("%s == null" % k, lambda e, k=k: e.get(k) is None))
        elif any(v == 0 for v in vals) and any(isinstance(v, int) and v != 0 for v in vals):
            lits.append(("%s != 0" % k, lambda e, k=k: e.get(k) not in (0, None)))
            lits.append(("%s == 0" % k, lambda e, k=k: e.get(k) in (0, None)))
        elif all(isinstance(v, str) for v in vals) and len(set(vals)) > 1:
            # a string-valued key (feed_forward_proj, position_embedding_type...): equality with one
            # of the values seen, tried after every boolean and integer literal
            for sv in sorted(set(vals)):
                strs.append(('%s == %s' % (k, json.dumps(sv)), lambda e, k=k, sv=sv: e.get(k) == sv))
                strs.append(('%s != %s' % (k, json.dumps(sv)), lambda e, k=k, sv=sv: e.get(k) != sv))
    return lits + strs


def fit_condition(present, envs):
    """present: list of bools, envs: list of env. -> condition string, None for always, or False."""
    if all(present):
        return None
    lits = cond_literals(envs)
    for s, f in lits:
        if all(f(e) == p for e, p in zip(envs, present)):
            return s
    # equality of two integer keys (e.g. a projection present only when two widths differ)
    ints = sorted(k for k in envs[0] if isinstance(envs[0][k], int) and not isinstance(envs[0][k], bool)
                  and all(isinstance(e.get(k), int) for e in envs) and len({e[k] for e in envs}) > 1
                  and not NON_STRUCT_RE.search(k.split(".")[-1]))
    for i, a in enumerate(ints):
        for b in ints[i + 1:]:
            eq = [e[a] == e[b] for e in envs]
            if eq == present:
                return "%s == %s" % (a, b)
            if [not x for x in eq] == present:
                return "%s != %s" % (a, b)
    for (s1, f1), (s2, f2) in _pairs(lits):
        if all((f1(e) and f2(e)) == p for e, p in zip(envs, present)):
            return "%s && %s" % (s1, s2)
    for (s1, f1), (s2, f2) in _pairs(lits):
        if all((f1(e) or f2(e)) == p for e, p in zip(envs, present)):
            return "%s || %s" % (s1, s2)
    return False


def _pairs(lits):
    for i in range(len(lits)):
        for j in range(i + 1, len(lits)):
            if lits[i][0].lstrip("!").split(" ")[0] == lits[j][0].lstrip("!").split(" ")[0]:
                continue
            yield lits[i], lits[j]


# ---------------------------------------------------------------- main

def probe_values(x):
    if x == 0:
        return [3, 1, 2]
    return [2 * x, x + 1, x + 2, 3 * x] + ([x // 2] if x > 1 else [])


_VOCAB = None
DOC_STR_RE = re.compile(r'`"([A-Za-z0-9_.:+\-]{1,40})"`')


def _string_vocab():
    """key -> string values that config classes use as defaults for it (hf_config_defaults.json)."""
    global _VOCAB
    if _VOCAB is None:
        _VOCAB = {}
        path = os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_config_defaults.json")
        if os.path.exists(path):
            with open(path) as f:
                classes = json.load(f).get("classes", {})
            for ent in classes.values():
                for src in ("signature", "post_init"):
                    for k, v in (ent.get(src) or {}).items():
                        if isinstance(v, str) and len(v) <= 40 and " " not in v:
                            _VOCAB.setdefault(k, set()).add(v)
    return _VOCAB


def string_candidates(cfg0, key, value, limit=6, use_vocab=True):
    """Values to try for a string-valued config key: those its class documents (quoted values in
    the parameter's docstring paragraph, Literal type hints), then those other config classes use
    for the same key. Sorted, deterministic, without the current value."""
    obj = cfg0
    parts = key.split(".")
    for p in parts[:-1]:
        obj = getattr(obj, p, None)
        if obj is None:
            return []
    leaf = parts[-1]
    if leaf in BASE_KEYS:
        return []
    documented = set()
    for cls in type(obj).__mro__:
        doc = cls.__dict__.get("__doc__") or ""
        m = re.search(r"^\s*%s \(.*?(?=^\s*[A-Za-z_][A-Za-z0-9_]* \(`|\Z)" % re.escape(leaf), doc, re.M | re.S)
        if m:
            documented.update(DOC_STR_RE.findall(m.group(0)))
        ann = (cls.__dict__.get("__annotations__") or {}).get(leaf)
        if ann is not None and getattr(ann, "__origin__", None) is not None:
            for a in getattr(ann, "__args__", ()):
                if isinstance(a, str):
                    documented.add(a)
        if documented:
            break
    out = [v for v in sorted(documented) if v != value]
    others = sorted(v for v in _string_vocab().get(leaf, ()) if v != value and v not in documented) \
        if use_vocab else []
    return (out + others)[:limit]


def _field_allows_int(cfg0, key):
    """The config class declares the key as an integer field (`int | None`...)."""
    obj = cfg0
    parts = key.split(".")
    for p in parts[:-1]:
        obj = getattr(obj, p, None)
        if obj is None:
            return False
    for cls in type(obj).__mro__:
        ann = (cls.__dict__.get("__annotations__") or {}).get(parts[-1])
        if ann is not None:
            return re.search(r"\bint\b", str(ann)) is not None
    return False


def second_values(x, first):
    vals = [x + 1, x + 2, 3 * x, x + 3, x + 5, x * 4] if x > 0 else [5, 7]
    return [v for v in vals if v != first and v != x]


def build_template(mt, cls_name, mapping, log=None, n_fit_random=5, n_val_random=3, seed=0, budget=700):
    runner = Runner(mt, cls_name)
    runner.max_inst = budget
    rng = random.Random(stable_seed(mt, seed, "fit"))
    vrng = random.Random(stable_seed(mt, seed, "validate"))
    cfg0 = default_config(mt)
    d0 = config_dict(cfg0)
    kw0 = essential_kwargs(cfg0)
    kw0, lost = fixup_kwargs(runner, kw0)
    notes = []
    try:
        default_obs = runner.observe(kw0, "default")
    except Exception:  # noqa: BLE001
        # the class refuses its own default config: state what the null derivations give
        # (head_dim, num_key_value_heads), as a config.json of the type does
        fix = null_repairs(cfg0)
        if not fix:
            raise
        kw0 = with_values(kw0, fix)
        default_obs = runner.observe(kw0, "default")
        notes.append("default config completed with %s" % ", ".join("%s=%s" % kv for kv in sorted(fix.items())))
        cfg0 = build_config(mt, kw0)
        d0 = config_dict(cfg0)
    if lost:
        notes.append("default config not exactly rebuilt from kwargs: %s" % ", ".join(lost[:5]))
    base_kw, reduced = reduce_layers(kw0, d0)
    base = runner.try_observe(base_kw, "base") if reduced else default_obs
    if base is None:
        base_kw, reduced, base = kw0, {}, default_obs
    obs = [base]
    base_env = base.env
    base_sig = _sig(base)

    # --- probes: every integer attribute of the config and of each sub-config (to_dict(), not only
    # the constructor's parameters): one at a time, the first value the class accepts
    int_keys = [k for k, v in base_env.items() if isinstance(v, int) and not isinstance(v, bool)
                and not NON_STRUCT_RE.search(k.split(".")[-1])]
    relevant = []
    null_settings = []  # (key, value, obs) of probes that may make new tensors appear
    inert = {}  # key -> a value the class accepted that changed no tensor (varied at validation)
    for k in sorted(int_keys):
        x = base_env[k]
        got = None
        for v in probe_values(x):
            o = runner.try_observe(set_path(base_kw, k, v), "probe %s=%d" % (k, v))
            if o is not None and o.env.get(k) == v:
                got = (v, o)
                break
        if got is None:
            continue
        v, o = got
        coupled = any(o.env.get(k2) != x2 for k2, x2 in base_env.items()
                      if k2 != k and isinstance(x2, int) and not isinstance(x2, bool))
        if _sig(o) != base_sig or coupled:
            relevant.append(k)
            obs.append(o)
            null_settings.append((k, v, o))
            for v2 in second_values(x, v):
                o2 = runner.try_observe(set_path(base_kw, k, v2), "probe2 %s=%d" % (k, v2))
                if o2 is not None and o2.env.get(k) == v2:
                    obs.append(o2)
                    break
        else:
            inert[k] = v
    # --- probes: keys that are null in the config and derived (head_dim...): set them explicitly
    raw0 = flat_values(config_dict(build_config(mt, base_kw)))
    for k in sorted(base_env):
        leaf = k.split(".")[-1]
        if leaf in dict(NULL_DERIVATIONS) and raw0.get(k, "absent") is None and isinstance(base_env[k], int):
            x = base_env[k]
            for v in (2 * x, x + 8, max(1, x // 2)):
                o = runner.try_observe(set_path(base_kw, k, v), "explicit %s=%d" % (k, v))
                if o is not None and o.env.get(k) == v:
                    obs.append(o)
                    if _sig(o) != base_sig:
                        if k not in relevant:
                            relevant.append(k)
                        inert.pop(k, None)
                    elif k not in relevant:
                        inert[k] = v
                    break
    # --- probes: integer keys that are null in the default config (an optional size such as
    # moe_latent_size: `int | None`), set to a few integers
    rel_null = {}
    for k in sorted(base_env):
        if base_env[k] is not None or k.split(".")[-1] in dict(NULL_DERIVATIONS) \
                or NON_STRUCT_RE.search(k.split(".")[-1]) \
                or not (_field_allows_int(cfg0, k) or k in LEGACY_ENV_KEYS):
            continue
        got = []
        for v in (64, 16, 8, 4, 2, 128):
            o = runner.try_observe(set_path(base_kw, k, v), "set %s=%d" % (k, v))
            if o is None or o.env.get(k) != v:
                continue
            if _sig(o) == base_sig:
                inert[k] = v
                break
            got.append(v)
            obs.append(o)
            if len(got) == 1:
                null_settings.append((k, v, o))
            if len(got) >= 2:
                break
        if len(got) >= 1 and k not in inert:
            rel_null[k] = got
    # --- probes: string-valued keys over the values the class allows (docstring, Literal type,
    # the values other config classes use for the same key)
    rel_strings = {}
    for k, x in sorted(base_env.items()):
        if not isinstance(x, str) or NON_STRUCT_RE.search(k.split(".")[-1]) or k.endswith("model_type"):
            continue
        for v in string_candidates(cfg0, k, x):
            o = runner.try_observe(set_path(base_kw, k, v), "string %s=%s" % (k, v))
            if o is None or o.env.get(k) != v:
                continue
            if _sig(o) != base_sig:
                rel_strings.setdefault(k, [x]).append(v)
                obs.append(o)
                null_settings.append((k, v, o))
    # --- probes: booleans and empty index lists
    rel_bools = []
    inert_bools = []
    new_tensor_settings = []  # (key, value, obs) of probes where tensors appear that the base lacks
    for k, x in sorted(base_env.items()):
        if isinstance(x, bool) and not NON_STRUCT_RE.search(k.split(".")[-1]) or k.endswith("tie_word_embeddings"):
            if not isinstance(x, bool):
                continue
            o = runner.try_observe(set_path(base_kw, k, not x), "flip %s" % k)
            if o is not None and _sig(o) != base_sig:
                rel_bools.append(k)
                obs.append(o)
                new_tensor_settings.append((k, not x, o))
            elif o is not None and o.env.get(k) == (not x):
                inert_bools.append(k)
        elif isinstance(x, list) and not x and re.search(r"(layer|indices|idx|ids)", k.split(".")[-1]):
            o = runner.try_observe(set_path(base_kw, k, [1]), "list %s" % k)
            if o is not None and _sig(o) != base_sig:
                obs.append(o)
    # --- where a setting makes tensors appear that the base config lacks, probe the relevant
    # integers and booleans under that setting too (their sizes are otherwise seen once)
    base_names = {re.sub(r"\.\d+\.", ".#.", t[0]) for t in base.tensors}
    for k, v, o in null_settings + new_tensor_settings:
        if not any(re.sub(r"\.\d+\.", ".#.", t[0]) not in base_names for t in o.tensors):
            continue
        skw = set_path(base_kw, k, v)
        osig = _sig(o)
        for k2 in list(relevant):
            if k2 == k:
                continue
            for v2 in probe_values(base_env[k2])[:3]:
                o2 = runner.try_observe(set_path(skw, k2, v2), "with %s probe %s" % (k, k2))
                if o2 is not None:
                    obs.append(o2)
                    break
        # a key that changed nothing alone may size the tensors this setting adds
        for k2 in sorted(inert):
            if k2 == k or not isinstance(inert[k2], int) or isinstance(inert[k2], bool):
                continue
            o2 = runner.try_observe(set_path(skw, k2, inert[k2]), "with %s probe %s" % (k, k2))
            if o2 is not None and o2.env.get(k2) == inert[k2] and _sig(o2) != osig:
                obs.append(o2)
                inert.pop(k2)
                relevant.append(k2)
        for k2 in rel_bools:
            if k2 != k:
                o2 = runner.try_observe(set_path(skw, k2, not base_env[k2]), "with %s flip %s" % (k, k2))
                if o2 is not None:
                    obs.append(o2)
    # --- joint random samples for fitting
    def random_kw(r):
        kw = base_kw
        for k in relevant:
            x = base_env[k]
            if r.random() < 0.5:
                continue
            choices = [2 * x, 3 * x, x + 1, x + 2] if x > 0 else [1, 2, 3]
            if x >= 4 and x % 2 == 0:
                choices.append(x // 2)
            kw = set_path(kw, k, r.choice(choices))
        for k in rel_bools:
            if r.random() < 0.5:
                kw = set_path(kw, k, not base_env[k])
        for k, vals in sorted(rel_strings.items()):
            if r.random() < 0.5:
                kw = set_path(kw, k, r.choice(vals))
        for k, vals in sorted(rel_null.items()):
            if r.random() < 0.5:
                kw = set_path(kw, k, r.choice(vals))
        return kw

    def validation_kw(r):
        """As random_kw, and also the keys whose probe changed nothing (so that a size the fit
        took for a constant, or a key it never read, is caught when it matters in combination)."""
        kw = random_kw(r)
        for k in sorted(inert):
            if r.random() < 0.3:
                kw = set_path(kw, k, inert[k])
        for k in inert_bools:
            if r.random() < 0.3:
                kw = set_path(kw, k, not base_env[k])
        return kw
    n_ok = 0
    for _ in range(n_fit_random * 5):
        if n_ok >= n_fit_random:
            break
        o = runner.try_observe(random_kw(rng), "random")
        if o is not None:
            obs.append(o)
            n_ok += 1
    fit_obs = obs

    INERT.clear()
    INERT.update(inert)
    tpl, issues = fit_template(fit_obs, mapping)
    if runner.budget_hit:
        issues.append("instantiation budget of the fitting (%d) spent before every key was probed" % budget)
    # --- validation: its own budget, so that a long probing phase cannot skip it
    runner.max_inst = runner.attempts + n_val_random * 8
    val = []
    n_ok = 0
    for attempt in range(n_val_random * 8):
        if n_ok >= n_val_random:
            break
        # the first attempts vary the inert keys too; later ones only the relevant keys (configs
        # the class refuses when many keys move at once)
        kw = validation_kw(vrng) if attempt < n_val_random * 5 else random_kw(vrng)
        o = runner.try_observe(kw, "validate")
        if o is None or any(o is f for f in fit_obs) or any(o is f for f in val):
            continue
        val.append(o)
        n_ok += 1
    results = []
    for o in [default_obs] + val:
        results.append(compare(tpl, o))
    ok = all(r is None for r in results) and not issues and len(val) >= 1
    tpl_out = OrderedDict()
    tpl_out["class"] = cls_name
    tpl_out["status"] = "exact" if ok else "approximate"
    reasons = list(issues)
    for o, r in zip([default_obs] + val, results):
        if r is not None:
            reasons.append("%s: %s" % (o.tag, r))
    if not val:
        reasons.append("no random validation config could be instantiated (validated at the default config only)")
    if reasons:
        tpl_out["reason"] = reasons[:4]
    tpl_out["validated"] = {"default": results[0] is None, "random_configs": len(val),
                            "random_ok": sum(1 for r in results[1:] if r is None)}
    tpl_out["fitted_on"] = {"configs": len(fit_obs), "reduced_layers": {k: list(v) for k, v in reduced.items()},
                            "int_keys_probed": len(int_keys), "relevant_int_keys": len(relevant),
                            "relevant_bool_keys": rel_bools}
    if rel_strings:
        tpl_out["fitted_on"]["relevant_string_keys"] = OrderedDict(sorted(rel_strings.items()))
    if rel_null:
        tpl_out["fitted_on"]["relevant_null_keys"] = sorted(rel_null)
    if notes:
        tpl_out["notes"] = notes
    for cont in tpl.get("containers", []):
        for part in cont["parts"]:
            add_legacy_values(part["layer_kinds"], cfg0)
    tpl_out.update(tpl)
    return tpl_out, runner


def _sig(o):
    return tuple(sorted((n, tuple(s), b) for n, s, b in o.tensors))


def compare(tpl, o):
    try:
        exp = expand(tpl, o.env)
    except Exception as e:  # noqa: BLE001
        return "template evaluation failed: %s" % e
    real = {n: (tuple(s), b) for n, s, b in o.tensors}
    if exp == real:
        return None
    missing = sorted(set(real) - set(exp))
    extra = sorted(set(exp) - set(real))
    wrong = sorted(n for n in set(real) & set(exp) if real[n] != exp[n])
    tot_r = sum(numel(s) for s, _ in real.values())
    tot_e = sum(numel(s) for s, _ in exp.values())
    msg = "total %d vs real %d" % (tot_e, tot_r)
    if missing:
        msg += "; missing %d (e.g. %s)" % (len(missing), missing[0])
    if extra:
        msg += "; extra %d (e.g. %s)" % (len(extra), extra[0])
    if wrong:
        msg += "; wrong shape %d (e.g. %s %s vs %s)" % (len(wrong), wrong[0], exp[wrong[0]][0], real[wrong[0]][0])
    return msg


def fit_template(obs, mapping):
    issues = []
    grouped = [group(o) for o in obs]
    envs = [o.env for o in obs]
    all_names = [n for n, _, _ in obs[0].tensors]
    lm = has_lm_module(all_names)
    fitted_pool = []  # (expr, name) for borrowing
    out = OrderedDict()

    # ---- top-level tensors
    top_names = []
    for g, _ in grouped:
        for n in g:
            if n not in top_names:
                top_names.append(n)
    tensors = []
    for n in top_names:
        present = [n in g for g, _ in grouped]
        samples = [(envs[i], grouped[i][0][n]) for i in range(len(obs)) if present[i]]
        entry = _fit_tensor(n, n, samples, (), issues, fitted_pool)
        cond = fit_condition(present, envs)
        if cond is False:
            issues.append("no presence condition for %s" % n)
        elif cond:
            entry["when"] = cond
        tower = tower_of(n, mapping, lm)
        entry["role"] = role_of(n, tower)
        entry["tower"] = tower
        tensors.extend(expand_pieces(entry))
    out["tensors"] = tensors

    # ---- containers
    paths = []
    for _, c in grouped:
        for p in c:
            if p not in paths:
                paths.append(p)
    containers = []
    for p in paths:
        present = [p in c for _, c in grouped]
        idx = [i for i in range(len(obs)) if present[i]]
        cenvs = [envs[i] for i in idx]
        layers = [grouped[i][1][p] for i in idx]
        cont = OrderedDict()
        cont["path"] = p
        rep = _fit_count([(envs[i], len(grouped[i][1][p])) for i in idx], _vars(cenvs))
        if rep is None:
            issues.append("no expression for the layer count of %s" % p)
            rep = str(len(layers[0]))
        cont["repeat"] = rep
        cond = fit_condition(present, envs)
        if cond is False:
            issues.append("no presence condition for container %s" % p)
        elif cond:
            cont["when"] = cond
        tower = tower_of(p + ".x", mapping, lm)
        cont["tower"] = tower
        cont["parts"] = _fit_parts(p, layers, cenvs, mapping, lm, tower, issues, fitted_pool)
        containers.append(cont)
    out["containers"] = containers
    # ---- MoE summary
    out["moe"] = _moe_summary(out, envs[0])
    # ---- second pass: tensors with too few samples borrow expressions
    return out, issues


def _fit_count(samples, cand):
    envs = [e for e, _ in samples]
    ys = [y for _, y in samples]
    deps = _deps(envs, ys, cand)
    e = fit(samples, deps) if deps else None
    if e is None:
        e = fit(samples, cand, max_terms=1)
    if e is not None and not e.lstrip("-").isdigit():
        return e
    for k in sorted(envs[0]):
        if all(isinstance(en.get(k), (list, str)) and len(en.get(k)) == y for en, y in samples):
            return "len(%s)" % k
    return e


# Keys whose probe changed no tensor (set per model type by build_template): never used in an
# expression, since the model does not read them (an attribute such as qk_head_dim that the
# config derives from others and the model recomputes itself).
INERT = set()


def _vars(envs):
    keys = None
    for e in envs:
        ks = {k for k, v in e.items() if isinstance(v, int) and not isinstance(v, bool)}
        keys = ks if keys is None else keys & ks
    return sorted(k for k in (keys or ()) if not NON_STRUCT_RE.search(k.split(".")[-1]) and k not in INERT)


def _changed_vars(envs):
    """Variables that take more than one value among envs."""
    vs = _vars(envs)
    return [v for v in vs if len({e[v] for e in envs}) > 1]


def _fit_tensor(name, full_name, samples, counts_dummy, issues, pool):
    """samples: list of (env, (shape, buf)) or (env, (counts, shape, buf)).

    Where no single expression fits a dimension, the samples are split by one condition literal
    (a boolean key, a key null or not, a string key equal to a value) and each side is fitted on
    its own: the entry then carries "pieces", [(condition, shape, count)], one tensor entry each
    (a size such as `moe_latent_size if set, else hidden_size`)."""
    entry = OrderedDict()
    entry["name"] = name
    if not samples:
        entry["shape"] = []
        return entry
    vals = [v for _, v in samples]
    has_counts = len(vals[0]) == 3
    bufs = {v[-1] for v in vals}
    local = []
    dims, cs = _fit_shape(full_name, samples, has_counts, local, pool)
    if local and not any("rank varies" in x for x in local):
        envs = [e for e, _ in samples]
        lits = cond_literals(envs)
        for (s1, f1), (s2, _f2) in zip(lits[0::2], lits[1::2]):
            side = [f1(e) for e in envs]
            if all(side) or not any(side):
                continue
            pieces = []
            ok = True
            for cond, want in ((s1, True), (s2, False)):
                sub = [smp for smp, x in zip(samples, side) if x == want]
                sub_issues = []
                sd, sc = _fit_shape(full_name, sub, has_counts, sub_issues, [])
                if sub_issues:
                    ok = False
                    break
                pieces.append((cond, sd, sc))
            if ok:
                entry["shape"] = pieces[0][1]
                entry["pieces"] = pieces
                if True in bufs:
                    entry["buffer"] = True
                return entry
    issues.extend(local)
    entry["shape"] = dims
    if cs is not None:
        entry["count"] = cs
    if True in bufs:
        entry["buffer"] = True
    return entry


def _fit_shape(full_name, samples, has_counts, issues, pool):
    envs = [e for e, _ in samples]
    vals = [v for _, v in samples]
    shapes = [v[1] if has_counts else v[0] for v in vals]
    ndim = {len(s) for s in shapes}
    if len(ndim) != 1:
        issues.append("rank varies for %s" % full_name)
        keep = [i for i, s in enumerate(shapes) if len(s) == len(shapes[0])]
        shapes = [shapes[i] for i in keep]
        envs = [envs[i] for i in keep]
        vals = [vals[i] for i in keep]
    cand = _changed_vars(envs)
    dims = []
    for d in range(len(shapes[0])):
        ys = [s[d] for s in shapes]
        e = _fit_dim(envs, ys, cand, pool, full_name)
        if e is None:
            issues.append("no expression for %s dim %d" % (full_name, d))
            e = str(ys[0])
        dims.append(e)
        pool.append((e, full_name.rsplit(".", 1)[0]))
    count = None
    if has_counts and vals[0][0]:
        cs = []
        for k in range(len(vals[0][0])):
            ys = [v[0][k] for v in vals]
            e = _fit_dim(envs, ys, cand, pool, full_name)
            if e is None:
                issues.append("no expression for the count of %s" % full_name)
                e = str(ys[0])
            cs.append(e)
        count = cs[0] if len(cs) == 1 else cs
    return dims, count


def expand_pieces(entry):
    """One tensor entry per piece of a piecewise fit (the piece's condition joined to the
    entry's own presence condition)."""
    pieces = entry.pop("pieces", None)
    if not pieces:
        return [entry]
    out = []
    for cond, shape, count in pieces:
        e = OrderedDict()
        for k, v in entry.items():
            e[k] = v
        e["shape"] = shape
        if count is not None:
            e["count"] = count
        else:
            e.pop("count", None)
        own = entry.get("when")
        e["when"] = cond if not own else "(%s) && (%s)" % (own, cond)
        # keep the key order of a plain entry: name, shape, count, when, then the rest
        order = ["name", "shape", "count", "when"]
        out.append(OrderedDict([(k, e[k]) for k in order if k in e] + [(k, v) for k, v in e.items() if k not in order]))
    return out


def _deps(envs, ys, cand):
    """Variables a value depends on, from samples that differ from the first in few variables."""
    ref = envs[0]
    deps = set()
    for e, y in zip(envs[1:], ys[1:]):
        diff = [v for v in cand if e.get(v) != ref.get(v)]
        if y != ys[0] and len(diff) <= 4:
            deps.update(diff)
    return sorted(deps)


def _const_or_key(envs, y):
    """A size that did not vary over the samples: the one config key holding exactly that value in
    every sample (when there is exactly one and the size is not a small constant), else the literal."""
    if y > 16:
        keys = sorted(k for k in envs[0] if isinstance(envs[0][k], int) and not isinstance(envs[0][k], bool)
                      and all(e.get(k) == y for e in envs) and not NON_STRUCT_RE.search(k.split(".")[-1])
                      and k not in INERT)
        if len(keys) == 1:
            return keys[0]
    return str(y)


def _fit_dim(envs, ys, cand, pool, full_name):
    distinct = {tuple(sorted((k, v) for k, v in e.items() if k in cand)) for e in envs}
    if len(set(ys)) == 1 and len(distinct) >= 3:
        return _const_or_key(envs, ys[0])
    if len(distinct) >= 3:
        deps = _deps(envs, ys, cand)
        if deps:
            e = fit(list(zip(envs, ys)), deps)
            if e is not None:
                return e
        e = fit(list(zip(envs, ys)), cand, max_terms=1)
        if e is not None:
            return e
    # too few distinct samples: borrow an expression already fitted elsewhere that matches
    sib = full_name.rsplit(".", 1)[0]
    order = sorted(range(len(pool)), key=lambda i: (pool[i][1] != sib, len(pool[i][0]), i))
    for e in (pool[i][0] for i in order):
        try:
            if all(eval_expr(e, env) == y for env, y in zip(envs, ys)):
                return e
        except Exception:  # noqa: BLE001
            continue
    if len(set(ys)) == 1:
        return _const_or_key(envs, ys[0])
    return fit(list(zip(envs, ys)), cand, max_terms=1)


def _kind_name(sig_entries):
    roles = set()
    for rel in sig_entries:
        roles.add(role_of(rel, "language_model"))
    has_attn = "attention" in roles
    has_ssm = "ssm" in roles
    moe = "expert" in roles
    mlp = "mlp" in roles
    parts = []
    if has_attn:
        parts.append("attention")
    if has_ssm:
        parts.append("ssm")
    if moe:
        parts.append("moe")
    elif mlp:
        parts.append("mlp")
    return "_".join(parts) if parts else ("empty" if not sig_entries else "block")


def _fit_parts(path, layers, envs, mapping, lm, tower, issues, pool):
    # slots and their signature sequences per observation
    slots = []
    for L in layers:
        for lay in L:
            for rel in lay:
                s = slot_of(rel)
                if s not in slots:
                    slots.append(s)

    def slot_sig(lay, s):
        return tuple(sorted((rel, v[0], tuple(v[1]), v[2]) for rel, v in lay.items() if slot_of(rel) == s))
    seqs = {s: [[slot_sig(lay, s) for lay in L] for L in layers] for s in slots}
    keyof = {s: tuple(canon(q) for q in seqs[s]) for s in slots}
    groups = OrderedDict()
    for s in slots:
        k = keyof[s]
        if all(len(set(c)) <= 1 for c in k):
            k = "common"
        groups.setdefault(k, []).append(s)
    parts = []
    for k, ss in groups.items():
        # per obs: per layer combined signature of the part's slots
        sigs = [[tuple(slot_sig(lay, s) for s in ss) for lay in L] for L in layers]
        rule, labels_per_obs = _find_rule(sigs, envs, k == "common", issues, path)
        # kind naming
        label_sig = {}
        for L, labs in zip(layers, labels_per_obs):
            if labs is None:
                continue
            for lay, lab in zip(L, labs):
                label_sig.setdefault(lab, set()).update(rel for rel in lay if slot_of(rel) in ss)
        names = {}
        used = set()
        for lab in sorted(label_sig, key=str):
            if rule["rule"] == "list":
                nm = re.sub(r"[^A-Za-z0-9_]+", "_", str(lab)) or "empty"
            else:
                nm = _kind_name(label_sig[lab])
            base_nm = nm
            j = 2
            while nm in used:
                nm = "%s_%d" % (base_nm, j)
                j += 1
            used.add(nm)
            names[lab] = nm
        rule = _finalize_rule(rule, names)
        kinds = OrderedDict()
        for lab in sorted(label_sig, key=lambda x: names[x]):
            # tensors of this kind: union of rel names over obs; presence per obs
            rels = []
            per_obs = []
            for L, labs, env in zip(layers, labels_per_obs, envs):
                if labs is None:
                    continue
                lay = next((ly for ly, lb in zip(L, labs) if lb == lab), None)
                if lay is None:
                    continue
                sub = OrderedDict((rel, v) for rel, v in lay.items() if slot_of(rel) in ss)
                per_obs.append((env, sub))
                for rel in sub:
                    if rel not in rels:
                        rels.append(rel)
            entries = []
            for rel in rels:
                present = [rel in sub for _, sub in per_obs]
                samples = [(env, sub[rel]) for env, sub in per_obs if rel in sub]
                e = _fit_tensor(rel, path + ".{i}." + rel, samples, None, issues, pool)
                cond = fit_condition(present, [env for env, _ in per_obs])
                if cond is False:
                    issues.append("no presence condition for %s.{i}.%s" % (path, rel))
                elif cond:
                    e["when"] = cond
                t = tower_of(path + ".0." + rel, mapping, lm)
                e["role"] = role_of(path + ".0." + rel, t)
                if t != tower:
                    e["tower"] = t
                entries.extend(expand_pieces(e))
            kinds[names[lab]] = entries
        # kinds with identical tensors are one kind
        rename = {}
        for a in list(kinds):
            for b in list(kinds):
                if b == a:
                    break
                if b in kinds and a in kinds and json.dumps(kinds[a]) == json.dumps(kinds[b]):
                    rename[a] = b
                    del kinds[a]
                    break
        if rename:
            rule = _remap(rule, rename)
        parts.append(OrderedDict([("layer_kinds", rule), ("kinds", kinds)]))
    return parts


def _remap(rule, rename):
    r = copy.deepcopy(rule)
    for k in ("kind", "first", "rest", "match", "other", "in", "out"):
        if k in r:
            r[k] = rename.get(r[k], r[k])
    if "map" in r:
        r["map"] = OrderedDict((k, rename.get(v, v)) for k, v in r["map"].items())
    if "kinds" in r:
        r["kinds"] = [rename.get(v, v) for v in r["kinds"]]
    if "except" in r:
        r["except"]["kind"] = rename.get(r["except"]["kind"], r["except"]["kind"])
    if "alt" in r:
        r["alt"] = [_remap(a, rename) for a in r["alt"]]
    return r


def _find_rule(sigs, envs, common, issues, path):
    n0 = len(sigs[0])
    if common:
        return {"rule": "all"}, [["all"] * len(s) for s in sigs]
    cands = candidate_rules(envs[0], n0)
    good = []
    for r in cands:
        if r["rule"] == "all":
            continue
        ok = True
        labs_all = []
        for sg, env in zip(sigs, envs):
            labs = raw_labels(r, env, len(sg))
            if labs is None or not refines(labs, sg):
                ok = False
                break
            labs_all.append(labs)
        if ok:
            # list/string maps must be consistent: same value -> same signature within each obs
            good.append((r, labs_all))
            if len(good) >= 3:
                break
    if good:
        r, labs = good[0]
        r = dict(r)
        if len(good) > 1:
            r["_alt"] = [g[0] for g in good[1:]]
        return r, labs
    # a rule with an exception list: layers listed in an integer-list key get a fixed kind
    lists = [k for k, v in sorted(envs[0].items()) if isinstance(v, list)
             and all(isinstance(x, int) and not isinstance(x, bool) for x in v)]
    for lk in lists:
        for r in cands:
            r2 = dict(r)
            r2["except"] = {"key": lk, "kind": "except"}
            ok = True
            labs_all = []
            for sg, env in zip(sigs, envs):
                labs = raw_labels(r2, env, len(sg))
                if labs is None or not refines(labs, sg):
                    ok = False
                    break
                labs_all.append(labs)
            if ok:
                return r2, labs_all
    # fallback: explicit from the first observation (base)
    issues.append("no layer rule reproduces the layer kinds of %s; explicit list from the base config" % path)
    base = sigs[0]
    c = canon(base)
    labs = []
    for sg in sigs:
        labs.append([str(x) for x in canon(sg)] if len(sg) == len(base) else None)
    return {"rule": "explicit", "kinds": [str(x) for x in c]}, labs


def _finalize_rule(rule, names):
    r = OrderedDict()
    kind = rule["rule"]
    r["rule"] = kind

    def nm(lab):
        return names.get(lab, str(lab))
    if kind == "all":
        r["kind"] = nm("all")
    elif kind in ("list", "string"):
        r["key"] = rule["key"]
        if rule.get("cycle"):
            r["cycle"] = True
        r["map"] = OrderedDict((str(k), nm(k)) for k in sorted(names, key=str))
    elif kind == "indices":
        r["key"] = rule["key"]
        r["in"] = nm("in")
        r["out"] = nm("out")
    elif kind == "first_k":
        r["key"] = rule["key"]
        r["first"] = nm("first")
        r["rest"] = nm("rest")
    elif kind == "period":
        r["period"] = rule["period"]
        r["offset"] = rule["offset"]
        if "start" in rule:
            r["start"] = rule["start"]
        if "end" in rule:
            r["end"] = rule["end"]
        r["match"] = nm("match")
        r["other"] = nm("other")
    elif kind == "explicit":
        r["kinds"] = [nm(k) for k in rule["kinds"]]
    if rule.get("except"):
        r["except"] = {"key": rule["except"]["key"], "kind": nm("except")}
    return r


def legacy_layer_values(cfg0, key):
    """{legacy value: current value} that transformers rewrites in the per-layer list at `key`
    (configuration_utils._LEGACY_LAYER_TYPE_REMAP, applied to layer_types / mtp_layer_types and
    the keys an attribute_map names for them); empty for any other key."""
    try:
        from transformers.configuration_utils import _LEGACY_LAYER_TYPE_REMAP as remap
    except ImportError:
        return {}
    obj = cfg0
    parts = key.split(".")
    for p in parts[:-1]:
        obj = getattr(obj, p, None)
        if obj is None:
            return {}
    names = {"layer_types", "mtp_layer_types"}
    am = getattr(type(obj), "attribute_map", None) or {}
    names |= {am[n] for n in list(names) if n in am}
    return dict(remap) if parts[-1] in names else {}


def add_legacy_values(rule, cfg0):
    """Let a `list` rule over layer_types also read the legacy spellings transformers still accepts
    ("attention" for full_attention, "mamba" for linear_attention...): same kind as the new value."""
    if not isinstance(rule, dict):
        return rule
    if rule.get("rule") == "list" and isinstance(rule.get("map"), dict):
        for old, new in sorted(legacy_layer_values(cfg0, rule["key"]).items()):
            if new in rule["map"] and old not in rule["map"]:
                rule["map"][old] = rule["map"][new]
    if isinstance(rule.get("fallback"), dict):
        add_legacy_values(rule["fallback"], cfg0)
    return rule


def _moe_summary(tpl, env):
    experts = None
    for c in tpl["containers"]:
        for part in c["parts"]:
            for kind, ents in part["kinds"].items():
                for e in ents:
                    if e.get("role") != "expert":
                        continue
                    for d, s in enumerate(e["shape"]):
                        if re.fullmatch(r"[A-Za-z_.0-9]+", s) and not s.isdigit() and EXPERTS_RE.search(s.split(".")[-1]):
                            e["expert_dim"] = d
                            experts = experts or s
                    cnt = e.get("count")
                    if isinstance(cnt, str) and re.fullmatch(r"[A-Za-z_.0-9]+", cnt) and EXPERTS_RE.search(cnt.split(".")[-1]):
                        e["expert_count"] = True
                        experts = experts or cnt
    if experts is None:
        return None
    prefix = experts.rsplit(".", 1)[0] + "." if "." in experts else ""
    topk = None
    for k in sorted(env):
        if not k.startswith(prefix) or "." in k[len(prefix):]:
            continue
        if TOPK_RE.search(k.split(".")[-1]) and isinstance(env[k], int):
            topk = k
            break
    return {"experts": experts, "top_k": topk}

"""Keys a config class reads from **kwargs (not constructor parameters) and what they decide.

Hub configs written by older transformers versions spell some settings differently:
nemotron_h's `hybrid_override_pattern` ("M-M*-..."), qwen3_next's `full_attention_interval`,
gemma3's `sliding_window_pattern`, nemotron_h's `mamba_n_groups`. The config class converts them
in `__init__`/`__post_init__`; a config.json read as data must do the same. This module finds
those keys by reading the class source (kwargs.get / kwargs.pop / kwargs.setdefault /
kwargs["x"] / "x" in kwargs), then probes each one: constructs the class with the key set to a
few values and records which attributes change and how:

- copied unchanged into another attribute: an alias (`attribute_map`, alias -> canonical);
- a per-layer list computed from it: a layer-kind rule with `"produces": "list"` (a `string`
  rule with the character -> value map found by probing, or a `period` / `first_k` rule over
  the key);
- an integer computed from it: an expression over it.

The value of the key that reproduces the class's default config (the literal default of the
kwargs call where there is one, else the value of an attribute of the same name) is recorded, so
that a config.json without the key is read as the class reads it.
"""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections import OrderedDict

from common import BASE_KEYS, NON_STRUCT_RE, flat_values, jsonable, quiet, time_limit, transformers

KW_RE = re.compile(r"""kwargs\s*(?:\.\s*(?:get|pop|setdefault)\s*\(\s*|\[\s*)["']([A-Za-z_][A-Za-z0-9_]*)["']""")
IN_RE = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_]*)["']\s+(?:not\s+)?in\s+kwargs\b""")
# Characters tried for a pattern string (besides those of the default pattern).
PATTERN_CHARS = "*-EMALGSFTRXDmaeglsfrx0123456789"
INT_VALUES = (1, 2, 3, 4, 5, 6, 8)
# Keys never worth a probe: the base class's own, tokenizer/generation settings, sub-configs.
SKIP_RE = re.compile(r"(token|dropout|init|loss|rope|theta|dtype|vocab_file|_dict$|^trust_remote_code$|"
                     r"backbone|^out_(indices|features)$|^num_labels$|label|^use_timm|^model_type$)")


def _own_classes(cls):
    base = transformers.PretrainedConfig
    return [c for c in cls.__mro__ if c not in (base, object) and issubclass(c, base)
            and c.__module__.startswith("transformers.models.")]


def kwargs_keys(cls) -> "OrderedDict[str, object]":
    """key -> literal default of the kwargs call (None where there is none), for every key the
    class (and its own bases) reads from **kwargs, in order of first appearance."""
    found = OrderedDict()
    for c in _own_classes(cls):
        try:
            src = textwrap.dedent(inspect.getsource(c))
        except (OSError, TypeError):
            continue
        defaults = {}
        try:
            tree = ast.parse(src)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == "kwargs" \
                        and node.func.attr in ("get", "pop", "setdefault") and node.args \
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    if len(node.args) > 1:
                        try:
                            defaults.setdefault(node.args[0].value, ast.literal_eval(node.args[1]))
                        except (ValueError, SyntaxError):
                            pass
        except SyntaxError:
            pass
        for m in list(KW_RE.finditer(src)) + list(IN_RE.finditer(src)):
            k = m.group(1)
            if k not in found:
                found[k] = defaults.get(k)
    return found


def _construct(cls, kw):
    with time_limit(20), quiet():
        return cls(**kw)


def _flat(cfg):
    d = cfg.to_dict()
    d.pop("transformers_version", None)
    return {k: jsonable(v) for k, v in flat_values(d).items()}


def _candidates(cfg, key, lit_default):
    """Values to probe for a legacy key, by the type its default (or same-named attribute) has."""
    cur = lit_default
    if cur is None:
        try:
            cur = getattr(cfg, key)
        except Exception:  # noqa: BLE001
            cur = None
    if isinstance(cur, bool):
        return "bool", cur, [True, False]
    if isinstance(cur, int):
        vals = sorted(set(INT_VALUES) | {cur, cur + 1, 2 * cur} - {0})
        return "int", cur, vals
    if isinstance(cur, str):
        return "str", cur, None
    if cur is None:
        return "unknown", None, list(INT_VALUES)
    return "other", cur, None


def _changed(d0, d):
    return sorted(k for k in set(d0) | set(d) if d0.get(k) != d.get(k))


def probe(cls, cfg, sig):
    """-> (legacy_keys, derived, aliases) for the class (top level of the config only)."""
    d0 = _flat(cfg)
    legacy = OrderedDict()
    derived = OrderedDict()
    aliases = OrderedDict()
    for key, lit in kwargs_keys(cls).items():
        if key in sig or key in BASE_KEYS or key in d0 or SKIP_RE.search(key) or NON_STRUCT_RE.search(key):
            continue
        kind, cur, values = _candidates(cfg, key, lit)
        samples = []  # (value, flat dict)
        if kind == "str":
            samples = _string_samples(cls, key, cur)
        elif values:
            for v in values:
                try:
                    samples.append((v, _flat(_construct(cls, {key: v}))))
                except Exception:  # noqa: BLE001
                    continue
        if not samples and kind == "unknown":
            # not a number or a string: perhaps one integer per layer, mapped by a table
            rules = _int_list_rules(cls, cfg, key, d0)
            for t, rule in rules.items():
                derived[t] = rule
            if rules:
                legacy[key] = OrderedDict([("default", None), ("sets", sorted(rules))])
            continue
        targets = []
        for _, d in samples:
            for k in _changed(d0, d):
                if k != key and k not in targets and "." not in k and not k.startswith("_") \
                        and not NON_STRUCT_RE.search(k):
                    targets.append(k)
        sets = []
        for t in targets:
            ys = [d.get(t) for _, d in samples]
            xs = [v for v, _ in samples]
            if all(y == x for x, y in zip(xs, ys)):
                aliases[key] = t
                sets.append(t)
                continue
            if all(isinstance(y, list) for y in ys):
                rule = _list_rule(cls, key, kind, cur, t, samples, d0)
                if rule is not None:
                    derived[t] = rule
                    sets.append(t)
                continue
            if kind == "int" and all(isinstance(y, int) and not isinstance(y, bool) for y in ys):
                from fit import fit
                ex = fit([({key: x}, y) for x, y in zip(xs, ys)], [key])
                if ex is not None and key in ex:
                    derived[t] = ex
                    sets.append(t)
        if not sets:
            # it changes what the class builds but in a way no rule here expresses (a dict of
            # per-layer overrides...): recorded with its default, for the templates to read
            sets = [t for t in targets if not isinstance(d0.get(t), (float,))]
            if not sets:
                continue
        default = _default_value(cls, key, lit, cur, d0)
        legacy[key] = OrderedDict([("default", jsonable(default)), ("sets", sorted(sets))])
    return legacy, derived, aliases


def _int_list_rules(cls, cfg, key, d0):
    """A per-layer list of integers the class maps to layer kinds through a table of its module
    (deepseek_v4's legacy `compress_ratios`: 0/4/128 per layer, through
    `_COMPRESS_RATIO_TO_LAYER_TYPE`): probed with one table key on every layer at a time, the
    attribute whose every entry becomes that key's value is the target; -> {target: list rule}."""
    import sys as _sys
    module = _sys.modules.get(cls.__module__)
    tables = [v for v in vars(module).values() if isinstance(v, dict) and v
              and all(isinstance(k, int) and not isinstance(k, bool) for k in v)
              and all(isinstance(x, str) for x in v.values())] if module else []
    n = getattr(cfg, "num_hidden_layers", None)
    if not tables or not isinstance(n, int) or n <= 0:
        return {}
    out = OrderedDict()
    for table in tables:
        seen = OrderedDict()  # target -> {int key: kind}
        for k in sorted(table):
            try:
                d = _flat(_construct(cls, {key: [k] * n}))
            except Exception:  # noqa: BLE001
                continue
            for t in _changed(d0, d) + [t for t in d if t not in d0]:
                y = d.get(t)
                if t == key or not isinstance(y, list) or len(y) != n or len(set(map(str, y))) != 1:
                    continue
                seen.setdefault(t, OrderedDict())[str(k)] = y[0]
        for t, cmap in seen.items():
            if len(cmap) >= 2 and len(cmap) == len(table):
                out[t] = OrderedDict([("rule", "list"), ("key", key), ("map", OrderedDict(sorted(cmap.items()))),
                                      ("produces", "list"), ("n", "num_hidden_layers")])
    return out


def _default_value(cls, key, lit, cur, d0):
    """The value of the key that gives the class's default config (None when none does)."""
    for v in (lit, cur):
        if v is None:
            continue
        try:
            d = _flat(_construct(cls, {key: v}))
            d.pop(key, None)  # a key read with kwargs.get stays an attribute
            if d == d0:
                return v
        except Exception:  # noqa: BLE001
            continue
    return None


def _string_samples(cls, key, cur):
    n = len(cur) if cur else 4
    out = []
    for ch in sorted(set(cur or "") | set(PATTERN_CHARS)):
        try:
            out.append((ch * n, _flat(_construct(cls, {key: ch * n}))))
        except Exception:  # noqa: BLE001
            continue
    if cur:
        try:
            out.append((cur, _flat(_construct(cls, {key: cur}))))
        except Exception:  # noqa: BLE001
            pass
    return out


def _list_rule(cls, key, kind, cur, target, samples, d0):
    """A layer-kind rule (produces: list) giving `target` from the legacy key."""
    from structure import candidate_rules, raw_labels
    if kind == "str":
        cmap = OrderedDict()
        for v, d in samples:
            y = d.get(target)
            if not isinstance(y, list) or len(set(map(str, y))) != 1 or len(set(v)) != 1:
                continue
            cmap[v[0]] = str(y[0]) if not isinstance(y[0], str) else y[0]
        if not cmap:
            return None
        # layer count: the pattern's length, or the class's layer-count key
        n_expr = None
        probe_s = (cur or next(iter(cmap)) * 4)
        longer = probe_s + probe_s[:3]
        try:
            d = _flat(_construct(cls, {key: longer}))
            y = d.get(target)
            if isinstance(y, list) and len(y) == len(longer):
                n_expr = "len(%s)" % key
            else:
                for nk in ("num_hidden_layers", "num_layers", "n_layer"):
                    if isinstance(d.get(nk), int) and isinstance(y, list) and len(y) == d[nk]:
                        n_expr = nk
                        break
            if y != [cmap.get(ch) for ch in longer[:len(y or [])]]:
                return None
        except Exception:  # noqa: BLE001
            return None
        if n_expr is None:
            return None
        rule = OrderedDict([("rule", "string"), ("key", key), ("map", OrderedDict(sorted(cmap.items())))])
        rule["produces"] = "list"
        rule["n"] = n_expr
        return rule
    if kind not in ("int", "unknown"):
        return None
    # integer key: vary it and the layer count together, find a period / first_k rule over it
    more = []
    for nk in ("num_hidden_layers", "num_layers", "n_layer"):
        if isinstance(d0.get(nk), int):
            for v in (2, 3, 4):
                for n in (d0[nk] + 3, 7):
                    try:
                        more.append((v, _flat(_construct(cls, {key: v, nk: n}))))
                    except Exception:  # noqa: BLE001
                        pass
            break
    allsamp = samples + more
    envs = []
    ys = []
    for v, d in allsamp:
        y = d.get(target)
        if not isinstance(y, list) or not y:
            continue
        env = {k: x for k, x in d.items() if isinstance(x, int) and not isinstance(x, bool) and not k.startswith("_")}
        env[key] = v
        envs.append(env)
        ys.append([str(x) if not isinstance(x, str) else x for x in y])
    if len(envs) < 3:
        return None
    nk = next((k for k in ("num_hidden_layers", "num_layers", "n_layer")
               if all(e.get(k) == len(y) for e, y in zip(envs, ys))), None)
    if nk is None:
        return None
    n0 = len(ys[0])
    cands = [{"rule": "period", "period": key, "offset": o, "match": "match", "other": "other"}
             for o in ("%s - 1" % key, "0", "1")]
    cands.append({"rule": "first_k", "key": key, "first": "first", "rest": "rest"})
    cands += [r for r in candidate_rules(envs[0], n0) if r["rule"] in ("period", "first_k")
              and key in json_fields(r)]
    for r in cands:
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
        if not ok:
            continue
        rr = OrderedDict((k, v) for k, v in r.items())
        for lab in ("first", "rest", "match", "other"):
            if lab in rr:
                rr[lab] = m.get(rr[lab], rr[lab])
        if any(rr.get(lab) in ("first", "rest", "match", "other") for lab in ("first", "rest", "match", "other")):
            continue  # a label never observed: the rule is not determined
        rr["produces"] = "list"
        rr["n"] = nk
        return rr
    return None


def json_fields(rule):
    return " ".join(str(v) for v in rule.values())


def value_maps(cls, cfg, sig, documented_values):
    """Attributes that are not constructor parameters but are computed from a string parameter
    (T5: is_gated_act from feed_forward_proj): {attribute: {"produces": "value", "key": param,
    "map": {param value: attribute value}}}, over the values the class documents."""
    d0 = _flat(cfg)
    out = OrderedDict()
    for p, dv in sig.items():
        if not isinstance(dv, str) or NON_STRUCT_RE.search(p) or SKIP_RE.search(p):
            continue
        vals = [v for v in documented_values(cfg, p, dv) if v != dv]
        if not vals:
            continue
        samples = [(dv, d0)]
        for v in vals:
            try:
                samples.append((v, _flat(_construct(cls, {p: v}))))
            except Exception:  # noqa: BLE001
                continue
        if len(samples) < 2:
            continue
        targets = set()
        for _, d in samples[1:]:
            targets.update(k for k in _changed(d0, d) if k != p and k not in sig and "." not in k
                           and not k.startswith("_") and not NON_STRUCT_RE.search(k))
        for t in sorted(targets):
            ys = [d.get(t) for _, d in samples]
            if not all(isinstance(y, (bool, int)) for y in ys):
                continue
            out[t] = OrderedDict([("produces", "value"), ("key", p),
                                  ("map", OrderedDict((v, y) for (v, _), y in sorted(zip(samples, ys),
                                                                                      key=lambda z: z[0][0])))])
    return out

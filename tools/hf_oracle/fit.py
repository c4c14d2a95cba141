"""Fit integer expressions (grammar of expr.py) to observed tensor dimensions.

Given samples (config variables -> observed integer) the fitter searches, simplest first,
for y = c0 + c1*a1 + ... + ck*ak (k <= 3) where each atom a is one of
    v, v*w, v*w*u, v//w, ceil_div(v,w), (v//w)*u, (v//w)*(v//w), v//c, ceil_div(v,c)
over the candidate variables, with small integer coefficients, matching every sample exactly.
Among equally simple fits the first in a fixed order wins (deterministic)."""
from __future__ import annotations

import itertools

import numpy as np

CONSTS = (2, 3, 4, 8, 16)


def _atoms(vars_, vals, extra_div=True):
    """Return list of (expr, complexity, np.array)."""
    out = []
    n = len(vars_)
    V = {v: vals[v].astype(np.int64) for v in vars_}
    for v in vars_:
        out.append((v, 1, V[v]))
    for i in range(n):
        for j in range(i, n):
            a, b = vars_[i], vars_[j]
            out.append(("%s * %s" % (a, b), 2, V[a] * V[b]))
    for a in vars_:
        for b in vars_:
            if a == b or (V[b] <= 0).any():
                continue
            out.append(("%s // %s" % (a, b), 2, V[a] // V[b]))
            out.append(("ceil_div(%s, %s)" % (a, b), 3, -((-V[a]) // V[b])))
    if extra_div:
        for a in vars_:
            for c in CONSTS:
                out.append(("%s // %d" % (a, c), 2, V[a] // c))
                out.append(("ceil_div(%s, %d)" % (a, c), 3, -((-V[a]) // c)))
    if n <= 8:
        for i in range(n):
            for j in range(i, n):
                for k in range(j, n):
                    a, b, c = vars_[i], vars_[j], vars_[k]
                    out.append(("%s * %s * %s" % (a, b, c), 3, V[a] * V[b] * V[c]))
        for a in vars_:
            for b in vars_:
                if a == b or (V[b] <= 0).any():
                    continue
                d = V[a] // V[b]
                out.append(("(%s // %s) * (%s // %s)" % (a, b, a, b), 3, d * d))
                out.append(("(%s // %s) * %s" % (a, b, b), 3, d * V[b]))
                for u in vars_:
                    if u in (a, b):
                        continue
                    out.append(("(%s // %s) * %s" % (a, b, u), 3, d * V[u]))
    # drop atoms identical (as value vectors) to an earlier, simpler one
    seen = set()
    res = []
    for e, c, arr in sorted(out, key=lambda t: t[1]):
        key = arr.tobytes()
        if key in seen:
            continue
        seen.add(key)
        res.append((e, c, arr))
    return res


def _fmt(terms, const):
    parts = []
    for coef, e in terms:
        if coef == 1:
            s = e
        elif coef == -1:
            s = "-" + _wrap(e)
        else:
            s = "%d * %s" % (coef, _wrap(e))
        parts.append(s)
    if const:
        parts.append(str(const))
    if not parts:
        return "0"
    out = parts[0]
    for p in parts[1:]:
        if p.startswith("-"):
            out += " - " + p[1:]
        else:
            out += " + " + p
    return out


def _wrap(e):
    if " + " in e or " - " in e:
        return "(" + e + ")"
    return e


def fit(samples, cand_vars, max_terms=3, max_coef=64, allow_const=True):
    """samples: list of (env dict, y). cand_vars: names to use. Returns expr str or None."""
    ys = np.array([y for _, y in samples], dtype=np.int64)
    if (ys == ys[0]).all():
        return str(int(ys[0]))
    vars_ = [v for v in cand_vars if all(isinstance(env.get(v), int) and not isinstance(env.get(v), bool)
                                         for env, _ in samples)]
    vars_ = sorted(set(vars_))
    if not vars_:
        return None
    vals = {v: np.array([env[v] for env, _ in samples], dtype=np.int64) for v in vars_}
    atoms = _atoms(vars_, vals)
    ones = np.ones(len(ys), dtype=np.int64)
    # 1 atom: y = c*a + d
    best = None
    for e, cx, a in atoms:
        for with_const in ((False, True) if allow_const else (False,)):
            r = _solve([a], ys, ones if with_const else None, max_coef)
            if r is not None:
                cand = (cx + (1 if with_const else 0), _fmt([(r[0][0], e)], r[1]))
                if best is None or cand[0] < best[0]:
                    best = cand
        if best is not None and best[0] <= 1:
            return best[1]
    if best is not None:
        return best[1]
    if max_terms < 2:
        return None
    # 2 atoms
    small = [t for t in atoms if t[1] <= 3][:400]
    best = None
    for (e1, c1, a1), (e2, c2, a2) in itertools.combinations(small, 2):
        if best is not None and c1 + c2 >= best[0]:
            continue
        for with_const in ((False, True) if allow_const else (False,)):
            r = _solve([a1, a2], ys, ones if with_const else None, max_coef)
            if r is not None:
                cand = (c1 + c2 + (1 if with_const else 0), _fmt([(r[0][0], e1), (r[0][1], e2)], r[1]))
                if best is None or cand[0] < best[0]:
                    best = cand
                break
    if best is not None:
        return best[1]
    if max_terms < 3:
        return None
    small = [t for t in atoms if t[1] <= 2][:60]
    for (e1, c1, a1), (e2, c2, a2), (e3, c3, a3) in itertools.combinations(small, 3):
        for with_const in ((False, True) if allow_const else (False,)):
            r = _solve([a1, a2, a3], ys, ones if with_const else None, max_coef)
            if r is not None:
                return _fmt([(r[0][0], e1), (r[0][1], e2), (r[0][2], e3)], r[1])
    return None


def _solve(cols, ys, ones, max_coef):
    A = np.stack(cols + ([ones] if ones is not None else []), axis=1).astype(np.float64)
    if A.shape[0] < A.shape[1]:
        return None
    try:
        x, *_ = np.linalg.lstsq(A, ys.astype(np.float64), rcond=None)
    except np.linalg.LinAlgError:
        return None
    xi = np.rint(x).astype(np.int64)
    if (A.astype(np.int64) @ xi != ys).any():
        return None
    coefs = [int(c) for c in xi[:len(cols)]]
    if any(c == 0 or abs(c) > max_coef for c in coefs):
        return None
    const = int(xi[len(cols)]) if ones is not None else 0
    if ones is not None and const == 0:
        return None
    # every column must vary or the fit is not identified
    return coefs, const

"""Reference evaluator for the expression and condition grammars of hf_structure.json.

Integer expressions:
    expr   := term (('+' | '-') term)*
    term   := unary (('*' | '//') unary)*
    unary  := '-' unary | atom
    atom   := INT | IDENT | FUNC '(' expr ',' expr ')' | '(' expr ')'
    FUNC   := ceil_div | min | max        (two arguments)
           |  len '(' IDENT ')'            (length of a list or string value)
    IDENT  := [A-Za-z_][A-Za-z0-9_]* ('.' [A-Za-z_][A-Za-z0-9_]*)*     (dotted = sub-config)
'//' is floor division (rounds toward minus infinity, as Python); ceil_div(a, b) = -((-a) // b).
An identifier whose value is missing, null, or not an integer makes the expression fail.

Conditions:
    cond    := and ('||' and)*
    and     := not ('&&' not)*
    not     := '!' not | cmp
    cmp     := operand (('==' | '!=') operand)?
    operand := 'true' | 'false' | 'null' | INT | STRING | IDENT | '(' cond ')'
STRING is double-quoted. A bare operand is true when its value is true, a non-zero number,
or a non-empty string/list; a missing key is null, and null is false.
"""
from __future__ import annotations

import re

_TOK = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(//|&&|\|\||==|!=|[-+*(),!])|(\"[^\"]*\"))")


class ExprError(Exception):
    pass


def tokenize(s: str):
    pos = 0
    out = []
    s = s.strip()
    while pos < len(s):
        m = _TOK.match(s, pos)
        if not m or m.end() == pos:
            raise ExprError("bad token at %r" % s[pos:])
        if m.group(1):
            out.append(("int", int(m.group(1))))
        elif m.group(2):
            out.append(("id", m.group(2)))
        elif m.group(3):
            out.append(("op", m.group(3)))
        else:
            out.append(("str", m.group(4)[1:-1]))
        pos = m.end()
        while pos < len(s) and s[pos].isspace():
            pos += 1
    return out


def lookup(env: dict, name: str):
    if name in env:
        return env[name]
    cur = env
    for part in name.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


class _P:
    def __init__(self, s, env):
        self.t = tokenize(s)
        self.i = 0
        self.env = env

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def eat(self, op=None):
        tok = self.peek()
        if op is not None and tok != ("op", op):
            raise ExprError("expected %r, got %r" % (op, tok))
        self.i += 1
        return tok

    # integer expressions
    def expr(self):
        v = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.eat()[1]
            r = self.term()
            v = v + r if op == "+" else v - r
        return v

    def term(self):
        v = self.unary()
        while self.peek() in (("op", "*"), ("op", "//")):
            op = self.eat()[1]
            r = self.unary()
            if op == "*":
                v = v * r
            else:
                if r == 0:
                    raise ExprError("division by zero")
                v = v // r
        return v

    def unary(self):
        if self.peek() == ("op", "-"):
            self.eat()
            return -self.unary()
        return self.atom()

    def atom(self):
        kind, val = self.eat()
        if kind == "int":
            return val
        if kind == "id":
            if val == "len" and self.peek() == ("op", "("):
                self.eat("(")
                k, name = self.eat()
                self.eat(")")
                v = lookup(self.env, name) if k == "id" else None
                if not isinstance(v, (list, str)):
                    raise ExprError("len(%s): not a list or string" % name)
                return len(v)
            if val in ("ceil_div", "min", "max") and self.peek() == ("op", "("):
                self.eat("(")
                a = self.expr()
                self.eat(",")
                b = self.expr()
                self.eat(")")
                if val == "ceil_div":
                    if b == 0:
                        raise ExprError("division by zero")
                    return -((-a) // b)
                return min(a, b) if val == "min" else max(a, b)
            v = lookup(self.env, val)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ExprError("%s is not an integer (%r)" % (val, v))
            return v
        if (kind, val) == ("op", "("):
            v = self.expr()
            self.eat(")")
            return v
        raise ExprError("unexpected %r" % ((kind, val),))

    # conditions
    def cond(self):
        v = self.cand()
        while self.peek() == ("op", "||"):
            self.eat()
            r = self.cand()
            v = v or r
        return v

    def cand(self):
        v = self.cnot()
        while self.peek() == ("op", "&&"):
            self.eat()
            r = self.cnot()
            v = v and r
        return v

    def cnot(self):
        if self.peek() == ("op", "!"):
            self.eat()
            return not self.cnot()
        return self.cmp()

    def cmp(self):
        a = self.operand()
        if self.peek() in (("op", "=="), ("op", "!=")):
            op = self.eat()[1]
            b = self.operand()
            eq = (a == b) and (type(a) is bool) == (type(b) is bool)
            return eq if op == "==" else not eq
        return truthy(a)

    def operand(self):
        kind, val = self.eat()
        if kind == "int":
            return val
        if kind == "str":
            return val
        if kind == "id":
            if val == "true":
                return True
            if val == "false":
                return False
            if val == "null":
                return None
            return lookup(self.env, val)
        if (kind, val) == ("op", "("):
            v = self.cond()
            self.eat(")")
            return v
        raise ExprError("unexpected %r" % ((kind, val),))


def truthy(v) -> bool:
    if v is None:
        return False
    if isinstance(v, (bool, int, float)):
        return bool(v)
    if isinstance(v, (str, list, dict)):
        return len(v) > 0
    return True


def eval_expr(s, env: dict) -> int:
    if isinstance(s, int):
        return s
    p = _P(str(s), env)
    v = p.expr()
    if p.i != len(p.t):
        raise ExprError("trailing tokens in %r" % s)
    return v


def eval_cond(s, env: dict) -> bool:
    if s is None or s is True:
        return True
    p = _P(str(s), env)
    v = p.cond()
    if p.i != len(p.t):
        raise ExprError("trailing tokens in %r" % s)
    return bool(v)

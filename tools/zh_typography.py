#!/usr/bin/env python3
"""Chinese typography for gpuprobe's zh strings (docs/glossary-zh.md): ASCII , : ; ? ! ( )
next to Chinese text become their full-width forms (，：；？！（）), the space after them dropped.
Placeholders ({...}), URLs, numbers (1,024  22:10), commands in backquotes and quoted Latin text
are left alone. Checks (or with --fix rewrites) every zh text of data/texts/zh/ and every "zh"
field of data/knowledge/; stdlib only.

    python3 tools/zh_typography.py [--fix]
"""
import json
import re
import sys

def is_cjk(c):
    o = ord(c)
    return (0x4E00 <= o <= 0x9FFF) or (0x3400 <= o <= 0x4DBF) or (0x3000 <= o <= 0x303F) or (0xFF00 <= o <= 0xFFEF) or o in (0x201C, 0x201D)

def protected_spans(s):
    spans = []
    for m in re.finditer(r'\{[^{}]*\}|https?://\S+|`[^`]*`|"[^"\n]*"', s):
        spans.append((m.start(), m.end()))
    return spans

def convert(s, force=False):
    """To a fixed point: a mark made full-width can make its neighbour one that follows Chinese."""
    for _ in range(8):
        t = _convert_once(s, force)
        if t == s:
            return t
        s = t
    return s


def _convert_once(s, force=False):
    if not force and not any(is_cjk(c) for c in s):
        return s
    spans = protected_spans(s)
    def prot(i):
        return any(a <= i < b for a, b in spans)
    out = list(s)
    n = len(s)
    def prev_char(i):
        j = i - 1
        while j >= 0 and s[j] == ' ':
            j -= 1
        return s[j] if j >= 0 else ''
    def next_char(i):
        j = i + 1
        while j < n and s[j] == ' ':
            j += 1
        return s[j] if j < n else ''
    # parentheses: match pairs
    stack = []
    pairs = []
    for i, c in enumerate(s):
        if prot(i):
            continue
        if c == '(':
            stack.append(i)
        elif c == ')' and stack:
            pairs.append((stack.pop(), i))
    drop = set()
    for a, b in pairs:
        inner = s[a + 1:b]
        before = s[a - 1] if a > 0 else ''
        if (before and (is_cjk(before) or before == '}')) or any(is_cjk(c) for c in inner):
            out[a] = '（'
            out[b] = '）'
            if a > 0 and s[a - 1] == ' ':
                drop.add(a - 1)
            if b + 1 < n and s[b + 1] == ' ':
                drop.add(b + 1)
    for i, c in enumerate(s):
        if prot(i) or c not in ',:;?!':
            continue
        p = s[i - 1] if i > 0 else ''
        q = s[i + 1] if i + 1 < n else ''
        if c == ',' and p.isdigit() and q.isdigit():
            continue
        if c == ':' and (q == '/' or (p.isdigit() and q.isdigit())):
            continue
        p = out[i - 1] if i > 0 else ''
        nc = next_char(i)
        # after Chinese text (a closing full-width bracket, a placeholder holding Chinese), or a
        # , ; : before Chinese text; never inside Latin runs
        # a title's label before a Chinese clause ("Xid 31：GPU 内存页错误", "NVML：NVIDIA 驱动没有加载")
        # is Chinese too; a key:value or a flag (runtimeClassName:nvidia, -XX:Max) is not
        clause = re.split(r'[,;:.!?\n，；：。！？]', s[i + 1:], maxsplit=1)[0]
        introduces = (c == ':' and re.fullmatch(r'[A-Za-z0-9 ._-]{1,24}', s[:i]) is not None and nc
                      and (is_cjk(nc) or nc.isupper()) and any(is_cjk(ch) for ch in clause))
        if not ((p and (is_cjk(p) or p == '}')) or (c in ',;:' and nc and (is_cjk(nc) or nc == '{')) or introduces):
            continue
        out[i] = {',': '，', ':': '：', ';': '；', '?': '？', '!': '！'}[c]
        if q == ' ':
            drop.add(i + 1)
    return ''.join(ch for i, ch in enumerate(out) if i not in drop)


import collections
import glob
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ZH_FIELD = re.compile(r'("zh"\s*:\s*)("(?:[^"\\]|\\.)*")')


def catalogue_strings():
    """(file, key, zh, en) for every zh text of data/texts/zh/."""
    for p in sorted(glob.glob(os.path.join(ROOT, "data", "texts", "zh", "*.json"))):
        zh = json.load(open(p, encoding="utf-8"), object_pairs_hook=collections.OrderedDict)
        en = json.load(open(p.replace(os.sep + "zh" + os.sep, os.sep + "en" + os.sep), encoding="utf-8"))
        for k, v in zh.items():
            if isinstance(v, str):
                yield p, k, v, en.get(k)


def force_for(zh, en):
    # a template of placeholders only is still a Chinese sentence where it differs from English
    return zh != en and ("}(" in zh or "}:" in zh)


def main():
    import argparse
    ap = argparse.ArgumentParser(description="check (default) or fix the punctuation of zh strings")
    ap.add_argument("--fix", action="store_true", help="rewrite the files")
    a = ap.parse_args()
    wrong = []
    for p, k, v, en in catalogue_strings():
        nv = convert(v, force=force_for(v, en))
        if nv != v:
            wrong.append((p, k, v, nv))
    knowledge = sorted(glob.glob(os.path.join(ROOT, "data", "knowledge", "*.json")))
    for p in knowledge:
        raw = open(p, encoding="utf-8").read()
        for m in ZH_FIELD.finditer(raw):
            v = json.loads(m.group(2))
            nv = convert(v)
            if nv != v:
                wrong.append((p, "zh", v, nv))
    if a.fix:
        for p in {w[0] for w in wrong}:
            raw = open(p, encoding="utf-8").read()
            if os.sep + "texts" + os.sep in p:
                zh = json.loads(raw, object_pairs_hook=collections.OrderedDict)
                en = json.load(open(p.replace(os.sep + "zh" + os.sep, os.sep + "en" + os.sep), encoding="utf-8"))
                for k, v in zh.items():
                    if isinstance(v, str):
                        zh[k] = convert(v, force=force_for(v, en.get(k)))
                open(p, "w", encoding="utf-8").write(json.dumps(zh, ensure_ascii=False, indent=1) + "\n")
            else:
                def sub(m):
                    v = json.loads(m.group(2))
                    nv = convert(v)
                    return m.group(0) if nv == v else m.group(1) + json.dumps(nv, ensure_ascii="\\u" in m.group(2))
                open(p, "w", encoding="utf-8").write(ZH_FIELD.sub(sub, raw))
        print("zh_typography: fixed %d strings" % len(wrong))
        return 0
    for p, k, v, nv in wrong[:20]:
        print("%s: %s\n  is:     %s\n  should: %s" % (os.path.relpath(p, ROOT), k, v, nv))
    if wrong:
        print("zh_typography: %d zh strings use ASCII punctuation beside Chinese (tools/zh_typography.py --fix)" % len(wrong))
        return 1
    print("zh_typography: every zh string follows docs/glossary-zh.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())

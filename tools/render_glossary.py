#!/usr/bin/env python3
"""Writes docs/glossary.md from data/knowledge/glossary.json, so the page and the data that
'gpuprobe explain TERM' answers from never disagree.

    python3 tools/render_glossary.py            regenerate docs/glossary.md
    python3 tools/render_glossary.py --check    exit 1 if docs/glossary.md is not what the
                                                JSON gives (for CI); nothing is written

Python 3 standard library only. Check the data itself with tools/check_glossary.py.
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILE = os.path.join(ROOT, "data", "knowledge", "glossary.json")
DEFAULT_OUT = os.path.join(ROOT, "docs", "glossary.md")
REPO_PATH = re.compile(r"(?<![\w./:-])((?:docs|data|tests|src|tools)/[A-Za-z0-9_./+-]*[A-Za-z0-9_/+-])")
URL = re.compile(r"(https?://[^\s),]+)")


def text(s):
    """Prose for a Markdown paragraph: characters Markdown would read as markup escaped."""
    s = s.replace("\\", "\\\\").replace("*", "\\*").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace("|", "\\|")


def code(s):
    fence = "``" if "`" in s else "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def link_source(s):
    """A source line with its URLs and repository paths as links (paths relative to docs/)."""
    out, pos = [], 0
    pattern = re.compile(URL.pattern + "|" + REPO_PATH.pattern)
    for m in pattern.finditer(s):
        out.append(text(s[pos:m.start()]))
        if m.group(1):
            out.append(f"<{m.group(1)}>")
        else:
            path = m.group(2)
            target = os.path.relpath(os.path.join(ROOT, path), os.path.join(ROOT, "docs"))
            out.append(f"[{path}]({target})")
        pos = m.end()
    out.append(text(s[pos:]))
    return "".join(out)


def render(doc):
    terms = doc["terms"]
    groups = doc.get("groups", [])
    by_group = {g["id"]: [] for g in groups}
    for t in terms:
        by_group.setdefault(t["group"], []).append(t)
    titles = {t["id"]: t["title"]["en"] for t in terms}

    lines = []
    add = lines.append
    add("# Glossary: the words on gpuprobe's screens (词汇表)")
    add("")
    add("<!-- Generated from data/knowledge/glossary.json by tools/render_glossary.py: do not edit")
    add("     by hand. Regenerate with `python3 tools/render_glossary.py`. -->")
    add("")
    add(f"{len(terms)} terms a backend engineer meets on gpuprobe's screens, each in English and Chinese: "
        "a one-line meaning, an analogy from backend work, the gpuprobe command that shows it, and what "
        "is normal where a normal range exists, with its source. `gpuprobe explain TERM` answers from "
        "the same data (`data/knowledge/glossary.json`); a term is found by any of the names listed "
        "under it, in either language, whatever the letter case.")
    add("")
    add(f"共 {len(terms)} 个术语,均为中英双语:一句话含义、后端工程师熟悉的类比、能看到它的 gpuprobe 命令,"
        "以及有正常范围时的正常值和出处。`gpuprobe explain 术语` 用的是同一份数据;下面列出的任一名称"
        "(中英文均可,不区分大小写)都能找到对应术语。中文用语遵循 [glossary-zh.md](glossary-zh.md)。")
    add("")
    add("This page is generated from `data/knowledge/glossary.json`; edit the JSON, then run:")
    add("")
    add("```")
    add("python3 tools/check_glossary.py     # the data: both languages, names, commands, sources")
    add("python3 tools/render_glossary.py    # rewrites this page (--check: exit 1 if out of date)")
    add("```")
    add("")
    add("## Contents")
    add("")
    for g in groups:
        members = by_group.get(g["id"], [])
        if not members:
            continue
        add(f"- **{text(g['en'])}** · {text(g['zh'])}: "
            + ", ".join(f"[{text(t['title']['en'])}](#{t['id']})" for t in members))
    add("")
    for g in groups:
        members = by_group.get(g["id"], [])
        if not members:
            continue
        add(f"## {text(g['en'])} · {text(g['zh'])}")
        add("")
        for t in members:
            add(f'<a id="{t["id"]}"></a>')
            add(f"### {text(t['title']['en'])} · {text(t['title']['zh'])}")
            add("")
            add("Names: " + ", ".join(code(n) for n in t["names"]))
            add("")
            add(f"- **Meaning.** {text(t['meaning']['en'])}\\")
            add(f"  **含义。** {text(t['meaning']['zh'])}")
            add(f"- **Analogy.** {text(t['analogy']['en'])}\\")
            add(f"  **类比。** {text(t['analogy']['zh'])}")
            add(f"- **Shows it · 查看:** {code(t['command'])}")
            normal = t.get("normal")
            if normal:
                add(f"- **Normal.** {text(normal['en'])}\\")
                add(f"  **正常范围。** {text(normal['zh'])}\\")
                add(f"  Source · 出处: {link_source(normal['source'])}")
            sources = t.get("sources") or []
            if sources:
                add("- **Figures from · 数据出处:** " + "; ".join(link_source(s) for s in sources))
            if t.get("see_also"):
                add("- **See also · 另见:** "
                    + ", ".join(f"[{text(titles[s])}](#{s})" for s in t["see_also"] if s in titles))
            add("")
    return "\n".join(lines).rstrip("\n") + "\n"


def main():
    parser = argparse.ArgumentParser(description="Render docs/glossary.md from data/knowledge/glossary.json.")
    parser.add_argument("--file", default=DEFAULT_FILE)
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date; write nothing")
    args = parser.parse_args()
    try:
        with open(args.file, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"render_glossary: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    page = render(doc)
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != page:
            print(f"render_glossary: {os.path.relpath(args.out, ROOT)} is out of date: run python3 tools/render_glossary.py",
                  file=sys.stderr)
            return 1
        print(f"render_glossary: {os.path.relpath(args.out, ROOT)} is up to date ({len(doc['terms'])} terms)")
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(page)
    print(f"render_glossary: wrote {os.path.relpath(args.out, ROOT)} ({len(doc['terms'])} terms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

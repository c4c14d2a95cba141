#!/usr/bin/env python3
"""Generate data/knowledge/cudnn_frontend_messages.json from the cuDNN frontend's source: every
error message the frontend returns with the cudnn_frontend::error_code_t it returns it with.

The cuDNN frontend (https://github.com/NVIDIA/cudnn-frontend, the C++ graph API PyTorch and
others use for SDPA and convolutions) reports a failure as an error_t {code, message}; PyTorch
prints "cuDNN Frontend error: [cudnn_frontend] Error: <message>". This script reads the
messages of several releases (RETURN_CUDNN_FRONTEND_ERROR_IF(cond, error_code_t::X, "...") and
return {error_code_t::X, "..."}), turns each into a pattern (dynamic parts as wildcards), and
records its code, so `gpuprobe explain` answers a frontend message with its code.

Usage (stdlib only):
    tools/gen_cudnn_frontend_messages.py --repo PATH_TO_CUDNN_FRONTEND_GIT [--tags v1.8.0 ...] \
        [--source-url https://github.com/NVIDIA/cudnn-frontend] [--out data/knowledge/cudnn_frontend_messages.json]
"""

import argparse
import json
import os
import re
import subprocess
import sys

DEFAULT_TAGS = ["v1.5.2", "v1.8.0", "v1.11.0", "v1.14.0", "v1.17.0", "v1.20.0", "v1.23.0"]
MIN_LITERAL_CHARS = 14


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo] + list(args), capture_output=True, text=True, check=True).stdout


def split_args(text, i):
    """The top-level arguments of a call whose '(' is just before text[i]; (args, end)."""
    args, depth, start, j = [], 0, i, i
    n = len(text)
    while j < n:
        c = text[j]
        if c == '"':
            j += 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(text[start:j])
                return args, j + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:j])
            start = j + 1
        j += 1
    return args, n


def message_of(expr):
    """A message expression ("a" + std::to_string(x) + "b", "a" "b") as a format with %s for the
    dynamic parts; None when it has no literal."""
    parts = []
    pos = 0
    saw = False
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', expr):
        between = expr[pos:m.start()]
        if re.search(r"[A-Za-z_(]", between.replace("+", "").replace("std::string", "")):
            parts.append("%s")
        lit = bytes(m.group(1), "utf-8").decode("unicode_escape")
        parts.append(lit.replace("%", "%%"))
        pos = m.end()
        saw = True
    if re.search(r"[A-Za-z_(]", expr[pos:].replace("+", "")):
        parts.append("%s")
    if not saw:
        return None
    return "".join(parts).strip()


def to_regex(fmt):
    fmt = fmt.split("\n")[0].strip()
    pieces, literal = [], 0
    for i, piece in enumerate(re.split(r"%s", fmt.replace("%%", "\x00"))):
        piece = piece.replace("\x00", "%")
        literal += len(piece.strip())
        if i:
            pieces.append(".*?")
        pieces.append(re.escape(piece))
    regex = "".join(pieces).strip()
    for a, b in (("\\ ", " "), ("\\-", "-"), ("\\:", ":"), ("\\'", "'"), ("\\,", ","), ("\\/", "/"), ("\\=", "="), ("\\<", "<"),
                 ("\\>", ">"), ("\\#", "#"), ("\\%", "%"), ("\\!", "!"), ("\\&", "&"), ("\\`", "`"), ("\\~", "~"), ('\\"', '"')):
        regex = regex.replace(a, b)
    return regex, literal


def anchor(fmt):
    pieces = [p.strip() for p in fmt.split("\n")[0].split("%s")]
    return max(pieces, key=len).lower() if pieces else ""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repo", required=True)
    p.add_argument("--tags", nargs="*", default=DEFAULT_TAGS)
    p.add_argument("--source-url", default="https://github.com/NVIDIA/cudnn-frontend")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data", "knowledge", "cudnn_frontend_messages.json"))
    args = p.parse_args()
    rows, read = {}, []
    for tag in args.tags:
        try:
            files = [f for f in git(args.repo, "ls-tree", "-r", "--name-only", tag, "--", "include").splitlines() if f.endswith((".h", ".hpp"))]
        except subprocess.CalledProcessError:
            print(f"warning: tag {tag} not found, skipped", file=sys.stderr)
            continue
        read.append(tag)
        for path in files:
            text = git(args.repo, "show", f"{tag}:{path}")
            found = []
            for m in re.finditer(r"\bRETURN_CUDNN_FRONTEND_ERROR_IF\s*\(", text):
                call, _ = split_args(text, m.end())
                if len(call) >= 3:
                    found.append((call[1], ",".join(call[2:])))
            for m in re.finditer(r"(?:return\s*\{|error_t\s*\{|error_object\s*\{)\s*(error_code_t::\w+)\s*,", text):
                call, _ = split_args(text, m.end())
                if call:
                    found.append((m.group(1), call[0]))
            for code_expr, msg_expr in found:
                code = re.search(r"error_code_t::(\w+)", code_expr)
                if not code or code.group(1) == "OK":
                    continue
                fmt = message_of(msg_expr)
                if not fmt or fmt == code.group(1):
                    continue
                regex, literal = to_regex(fmt)
                if literal < MIN_LITERAL_CHARS:
                    continue
                key = (regex, code.group(1))
                if key in rows:
                    rows[key]["last"] = tag
                    continue
                subsystem = os.path.dirname(path.replace("include/cudnn_frontend/", "", 1)) or os.path.basename(path).rsplit(".", 1)[0]
                rows[key] = {"format": fmt, "regex": regex, "anchor": anchor(fmt), "result": code.group(1), "file": path,
                             "subsystem": subsystem, "first": tag, "last": tag}
    out_rows = sorted(rows.values(), key=lambda r: (r["result"], r["format"]))
    doc = {
        "schema": "gpuprobe.library_messages.v1",
        "about": ("The cuDNN frontend's error messages with the cudnn_frontend::error_code_t each is returned with "
                  "('result'), read from the releases listed in 'releases'. 'regex' is the message as RE2 (dynamic "
                  "parts as wildcards); 'anchor' its longest fixed piece, lower case. Generated by "
                  "tools/gen_cudnn_frontend_messages.py; do not edit by hand."),
        "generated_by": "tools/gen_cudnn_frontend_messages.py",
        "api": "cudnn_frontend",
        "source": args.source_url,
        "releases": read,
        "warnings": out_rows,
    }
    out = os.path.normpath(args.out)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{out}: {len(out_rows)} messages from {len(read)} cuDNN frontend releases")


if __name__ == "__main__":
    main()

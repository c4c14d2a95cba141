#!/usr/bin/env python3
"""Generate data/knowledge/nccl_warnings.json from NCCL's source: every WARN() format, the
file (subsystem) that prints it, and the ncclResult_t the code returns right after it.

NCCL reports a failure as one "NCCL WARN <message>" line (its WARN macro) and then returns a
status that travels up as "NCCL INFO <file>:<line> -> <status>" lines and, at the API, as
ncclGetErrorString's message. The WARN line names the cause; the status says which kind
(ncclSystemError: a system call or library NCCL relies on; ncclRemoteError: the peer or the
network; ncclInternalError; ncclInvalidUsage; ...). This script reads the WARN formats of
several NCCL releases (git tags of a checkout of https://github.com/NVIDIA/nccl), turns each
printf format into a pattern, and records the status the function returns after it, so that
`gpuprobe explain` answers a WARN line from any of those releases with its status and
subsystem.

Usage (stdlib only):
    tools/gen_nccl_warnings.py --repo PATH_TO_NCCL_GIT [--tags v2.18.6-1 ... ] \
        [--source-url https://github.com/NVIDIA/nccl] [--out data/knowledge/nccl_warnings.json]

Formats that wrap another library's error (CUDACHECK's "Cuda failure '%s'") are left out: the
CUDA status printed inside is the answer, and gpuprobe reads it as such. Formats with too little
literal text to be recognised on their own ("%s", "%s:%d") are left out too.
"""

import argparse
import json
import os
import re
import subprocess
import sys

RESULTS = {"ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError", "ncclInvalidArgument",
           "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress", "ncclSuccess"}
DEFAULT_TAGS = ["v2.15.5-1", "v2.16.5-1", "v2.17.1-1", "v2.18.6-1", "v2.19.4-1", "v2.20.5-1", "v2.21.5-1",
                "v2.22.3-1", "v2.23.4-1", "v2.24.3-1", "v2.25.1-1", "v2.26.6-1", "v2.27.7-1", "v2.28.9-1",
                "v2.29.7-1", "v2.30.7-1"]
PRI = {"PRIu64": "%lu", "PRId64": "%ld", "PRIx64": "%lx", "PRIu32": "%u", "PRId32": "%d", "PRIx32": "%x",
       "PRIi64": "%ld", "PRIX64": "%lX"}
SPEC = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcsp%])")
SPEC_SPLIT = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp%]")
MIN_LITERAL_CHARS = 14

# The subsystem a file belongs to, as NCCL's maintainers name them in issues.
SUBSYSTEMS = [
    (r"misc/ibvwrap|misc/ibvsymbols|misc/mlx5dv", "ibvwrap"),
    (r"transport/net_ib|net_ib/", "net_ib"),
    (r"misc/socket|(?:^|/)os/(?!.*ipcsocket)", "socket"),
    (r"ipcsocket", "ipc"),
    (r"transport/net_socket", "net_socket"),
    (r"(?:^|/)proxy", "proxy"),
    (r"(?:^|/)bootstrap", "bootstrap"),
    (r"transport/p2p|transport/shm|transport/nvls|transport/coll_net|transport/generic|(?:^|/)transport", "transport"),
    (r"misc/shmutils|misc/shm", "shm"),
    (r"misc/cudawrap|misc/strongstream", "cuda"),
    (r"misc/nvmlwrap", "nvml"),
    (r"misc/gdrwrap", "gdrcopy"),
    (r"(?:^|/)graph/", "topology"),
    (r"(?:^|/)net\.cc|plugin/net", "net_plugin"),
    (r"(?:^|/)init|(?:^|/)collectives|(?:^|/)enqueue|(?:^|/)group", "core"),
    (r"(?:^|/)ras/", "ras"),
    (r"mem_manager|allocator|include/alloc", "memory"),
    (r"misc/argcheck", "argcheck"),
    (r"(?:^|/)register/", "registration"),
    (r"dev_runtime|(?:^|/)gin/|(?:^|/)rma/", "device_api"),
    (r"misc/utils|misc/param", "core"),
]


def subsystem(path):
    for pattern, name in SUBSYSTEMS:
        if re.search(pattern, path):
            return name
    return "other"


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo] + list(args), capture_output=True, text=True, check=True).stdout


def source_files(repo, tag):
    names = git(repo, "ls-tree", "-r", "--name-only", tag, "--", "src").splitlines()
    return [n for n in names if n.endswith((".cc", ".cu", ".h", ".cpp", ".c"))]


def read_literal(text, i):
    """Reads C string literals, adjacent literals, PRI macros and #param from text[i:] (just after
    WARN( ); returns (format, end_index) or (None, i) when the first argument is not a literal."""
    out = []
    n = len(text)
    saw = False
    while i < n:
        while i < n and text[i] in " \t\r\n\\":
            i += 1
        if i < n and text[i] == '"':
            j = i + 1
            buf = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    esc = text[j + 1]
                    buf.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(esc, esc))
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            out.append("".join(buf))
            i = j + 1
            saw = True
            continue
        m = re.match(r"(PRI[udixX](?:8|16|32|64))", text[i:])
        if m and saw:
            out.append(PRI.get(m.group(1), "%d"))
            i += len(m.group(1))
            continue
        m = re.match(r"#\s*(\w+)", text[i:])
        if m:
            out.append("%s")  # a stringified macro parameter: a name
            i += len(m.group(0))
            saw = True
            continue
        m = re.match(r"(\w+)(?=\s*\")", text[i:])
        if m and saw:
            out.append("%s")  # a macro parameter pasted between literals
            i += len(m.group(1))
            continue
        break
    return ("".join(out) if saw else None), i


def statement_end(text, i):
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return i + 1
        elif c == ";" and depth <= 0:
            return i + 1
        i += 1
    return n


def result_after(text, i):
    """The ncclResult the code returns after the WARN statement ending at i: the first status
    in a return, an assignment or a *GOTO(..., status, label) within the enclosing block."""
    depth = 0
    window = []
    n = min(len(text), i + 1200)
    j = i
    while j < n:
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                break
        window.append(c)
        j += 1
    tail = "".join(window)
    m = re.search(r"\breturn\s+\(?\s*(nccl\w+)|\b\w+\s*=\s*(nccl[A-Z]\w+)\s*;|GOTO\s*\([^;]*?,\s*(nccl[A-Z]\w+)\s*,", tail)
    if not m:
        return None
    name = next(g for g in m.groups() if g)
    return name if name in RESULTS else None


def to_regex(fmt):
    """printf format -> RE2: literals quoted, %s lazy anything, numbers and pointers tokens. A
    leading subsystem tag ("NET/IB : ") may be printed differently by a plugin ("NET/IBP:")."""
    # A format with a line break prints several lines; a record is one line: its first.
    fmt = fmt.strip().split("\n")[0].strip()
    pieces = []
    literal_chars = 0
    pos = 0
    for m in SPEC.finditer(fmt):
        lit = fmt[pos:m.start()]
        literal_chars += len(lit.strip())
        pieces.append(re.escape(lit))
        conv = m.group(1)
        if conv == "%":
            pieces.append("%")
        elif conv == "s":
            pieces.append(".*?")
        elif conv in "cp":
            pieces.append(r"\S*")
        elif conv in "eEfgG":
            pieces.append(r"-?[\d.eE+-]+")
        else:
            pieces.append(r"-?\w+")
        pos = m.end()
    lit = fmt[pos:]
    literal_chars += len(lit.strip())
    pieces.append(re.escape(lit))
    regex = "".join(pieces).strip()
    regex = re.sub(r"(?:\\ )+$", "", regex)
    regex = re.sub(r"^(?:NET\\?/[A-Za-z]+\\?(?:\\ )*:(?:\\ )*)", r"(?:NET/\\w+\\s*:\\s*)?", regex)
    # re.escape quotes characters RE2 does not need quoted ("\ ", "\-", "\<"): keep it readable.
    regex = regex.replace("\\ ", " ").replace("\\-", "-").replace("\\<", "<").replace("\\>", ">").replace("\\=", "=")
    regex = regex.replace("\\:", ":").replace("\\'", "'").replace('\\"', '"').replace("\\,", ",").replace("\\/", "/")
    regex = regex.replace("\\#", "#").replace("\\&", "&").replace("\\%", "%").replace("\\!", "!").replace("\\@", "@")
    regex = regex.replace("\\~", "~").replace("\\`", "`").replace("\\\t", "\\t")
    return regex, literal_chars


def anchor(fmt):
    """The longest fixed piece of a format (lower case): a line that prints the format has it,
    so it finds the candidate formats before any pattern runs. A leading subsystem tag is not
    used ("NET/IB : " is printed differently by plugins)."""
    fmt = fmt.strip().split("\n")[0].strip()
    fmt = re.sub(r"^NET/[A-Za-z]+\s*:\s*", "", fmt)
    pieces = [p.strip() for p in SPEC_SPLIT.split(fmt)]
    best = max(pieces, key=len) if pieces else ""
    return best.lower()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repo", required=True, help="the git directory of an NVIDIA/nccl clone")
    p.add_argument("--tags", nargs="*", default=DEFAULT_TAGS)
    p.add_argument("--source-url", default="https://github.com/NVIDIA/nccl")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data", "knowledge", "nccl_warnings.json"))
    args = p.parse_args()
    rows = {}
    read = []
    for tag in args.tags:
        try:
            files = source_files(args.repo, tag)
        except subprocess.CalledProcessError:
            print(f"warning: tag {tag} not found, skipped", file=sys.stderr)
            continue
        read.append(tag)
        for path in files:
            text = git(args.repo, "show", f"{tag}:{path}")
            for m in re.finditer(r"\bWARN\s*\(", text):
                fmt, end = read_literal(text, m.end())
                if not fmt:
                    continue
                if re.search(r"(?i)\bcuda (?:failure|error)\b", fmt):
                    continue  # CUDACHECK's wrapper: the CUDA status inside is the answer
                regex, literal_chars = to_regex(fmt)
                if literal_chars < MIN_LITERAL_CHARS:
                    continue
                result = result_after(text, statement_end(text, m.end()))
                key = (regex, result)
                row = rows.get(key)
                if row is None:
                    rows[key] = {"format": fmt, "regex": regex, "anchor": anchor(fmt), "result": result, "file": path,
                                 "subsystem": subsystem(path.replace("src/", "", 1)), "first": tag, "last": tag}
                else:
                    row["last"] = tag
    out_rows = sorted(rows.values(), key=lambda r: (r["subsystem"], r["file"], r["format"]))
    for r in out_rows:
        if r["result"] == "ncclSuccess":
            r["result"] = None  # a warning the code recovers from
    doc = {
        "schema": "gpuprobe.library_messages.v1",
        "about": ("NCCL's WARN formats with the subsystem that prints them and the ncclResult_t the code returns "
                  "after them ('result'; null when the code goes on or the status is not local), read from the "
                  "releases listed in 'releases'. 'regex' is the format as RE2 (printf conversions as wildcards). "
                  "Generated by tools/gen_nccl_warnings.py; do not edit by hand."),
        "generated_by": "tools/gen_nccl_warnings.py",
        "api": "nccl",
        "source": args.source_url,
        "releases": read,
        "warnings": out_rows,
    }
    out = os.path.normpath(args.out)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with_result = sum(1 for r in out_rows if r["result"])
    print(f"{out}: {len(out_rows)} WARN formats ({with_result} with a status) from {len(read)} NCCL releases")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks data/knowledge/glossary.json, the glossary behind 'gpuprobe explain TERM'.

    python3 tools/check_glossary.py [--file PATH] [--bin PATH | --no-bin] [-v]

What it holds the file to:
  - the shape: schema "gpuprobe.glossary.v1", groups, and per term exactly the keys id, group,
    names, title, meaning, analogy, command, normal, see_also, sources; ids unique
    ([a-z0-9_]+); every id the project requires is present; at least MIN_TERMS terms;
  - every text in both languages: title, meaning and analogy as {en, zh}, normal as null or
    {en, zh, source}; a meaning is one line; no CJK in English; every zh text contains
    Chinese, is not the English copied (not equal, and no run of four English prose words
    taken from it), and follows docs/glossary-zh.md: full-width ，：；（） beside Chinese, a space between Chinese and a
    Latin word or a number, and English only where tests/cli/zh_allowlist.txt or the file's
    own zh_latin_words allow it (the rules of tests/cli/zh_leak_checker.h);
  - names: unique within a term, none claimed by two terms (compared case-insensitively and
    ignoring spaces, hyphens and underscores), at least one in Latin letters, and what each
    title shows as the term's name (en and zh, before the first parenthesis) is one of them;
  - see_also: existing ids, not the term itself, no repeats;
  - command: every 'gpuprobe VERB' names a real verb; with the binary (build/gpuprobe, or
    --bin), every --flag is one that verb's --help lists, bench selections are real ids,
    groups or prefixes, and the offline commands (gpus, plan, advise, explain without files)
    run and do not exit 2 (bad usage or input);
  - sources: a text that states a figure (a number not part of a name such as FP8 or sm_90)
    has sources; every repository path named in a source or a normal's source exists.

Exit status 0 when everything holds, 1 otherwise (each problem on its own line), 2 when the
file cannot be read. Python 3 standard library only.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILE = os.path.join(ROOT, "data", "knowledge", "glossary.json")
ALLOWLIST = os.path.join(ROOT, "tests", "cli", "zh_allowlist.txt")
SCHEMA = "gpuprobe.glossary.v1"
MIN_TERMS = 70
VERBS = {"tour", "inspect", "doctor", "explain", "gpus", "plan", "bench", "advise", "report",
         "history", "serve"}
GLOBAL_FLAGS = {"--json", "--lang", "--help", "-h", "--version"}
TERM_KEYS = ["id", "group", "names", "title", "meaning", "analogy", "command", "normal",
             "see_also", "sources"]

# The terms issue 26 names, and the others a newcomer meets on gpuprobe's screens: a later
# edit must not drop one.
REQUIRED_IDS = [
    "sm", "warp", "occupancy", "kernel", "tensor_core", "roofline", "mfu", "tpot", "ttft",
    "prefill", "decode", "pinned_memory", "pageable_memory", "tensor_parallel",
    "pipeline_parallel", "expert_parallel", "nccl", "nvlink", "nvswitch", "sxm", "mig", "xid",
    "pstate", "bar1", "tlimit", "nsight_compute", "nsight_systems", "hbm", "gddr",
    "memory_bandwidth", "flops", "fp32", "fp16", "bf16", "fp8", "int8", "tf32",
    "compute_capability", "cuda", "cuda_toolkit", "nvidia_driver", "cuda_version_header",
    "cublas", "cudnn", "nvml", "nvidia_smi", "ecc", "retired_pages", "remapped_rows", "pcie",
    "host_to_device_copy", "kv_cache", "gqa", "mla", "moe", "quantization", "awq", "gptq",
    "gguf", "batch_size", "context_length", "throughput", "latency", "tokens_per_second",
    "arithmetic_intensity", "memory_bound", "compute_bound", "launch_overhead", "cuda_graph",
    "stream", "utilization", "power_cap", "throttling", "clocks", "persistence_mode",
    "fabric_manager", "dcgm", "all_reduce", "bus_bandwidth", "l2_cache", "shared_memory",
    "registers", "flash_attention", "paged_attention", "continuous_batching",
    "speculative_decoding", "gpu_memory_utilization", "oom",
]

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# ASCII , : ; ( ) beside Chinese text (docs/glossary-zh.md writes them full-width there).
ASCII_PUNCT_BY_CJK = re.compile(r"[\u4e00-\u9fff][,:;()]|[,:;(][\u4e00-\u9fff]|[\u4e00-\u9fff][^()\n]{0,40}\)")
# Chinese directly against a Latin letter, a digit, '%' or a backtick, either way round.
CJK_LATIN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff][A-Za-z0-9`]|[A-Za-z0-9%`][\u3400-\u4dbf\u4e00-\u9fff]")
# A number that states a figure: digits not glued to a letter or underscore before them
# (FP8, sm_90, L2, P0 and H100 are names, not figures).
FIGURE = re.compile(r"(?<![A-Za-z_0-9.])\d")
REPO_PATH = re.compile(r"(?<![\w./:-])(?:docs|data|tests|src|tools)/[A-Za-z0-9_./+-]+")
URL = re.compile(r"https?://\S+")
ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, text):
        self.items.append(f"{where}: {text}")


# --- zh rules (the same as tests/cli/zh_leak_checker.cpp) ---------------------------------

def read_allowlist(path):
    words = set()
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0]
                words.update(w.lower() for w in line.split())
    except OSError:
        pass
    return words


def blank_quoted(line):
    out = list(line)
    i = 0
    while i < len(out):
        q = out[i]
        opener = q in "`\"" or (q == "'" and (i == 0 or not out[i - 1].isascii() or not out[i - 1].isalpha()))
        if opener:
            close = line.find(q, i + 1)
            while q == "'" and close != -1 and close + 1 < len(line) and line[close + 1].isascii() and line[close + 1].isalpha():
                close = line.find(q, close + 1)
            if close != -1:
                for k in range(i, close + 1):
                    out[k] = " "
                i = close + 1
                continue
        i += 1
    return "".join(out)


def chunks(line):
    result, current = [], []
    for ch in line:
        if ch in " \t" or ord(ch) >= 0x80:
            if current:
                result.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        result.append("".join(current))
    return result


def trim_punct(chunk):
    return chunk.strip(",;:.!?()\"'`")


def technical(raw):
    chunk = trim_punct(raw)
    if not chunk or chunk[0] == "-":
        return True
    for i, c in enumerate(chunk):
        if c.isdigit() or c in "/\\_=@${}[]<>|~#":
            return True
        if 0 < i < len(chunk) - 1 and c in ".:":
            return True
    return False


def english_leaks(text, allowed):
    leaks = []
    for line in text.split("\n"):
        for chunk in chunks(blank_quoted(line)):
            if technical(chunk):
                continue
            if trim_punct(chunk).lower() in allowed:
                continue
            for word in re.findall(r"[A-Za-z]+", chunk):
                if len(word) >= 2 and word.lower() not in allowed:
                    leaks.append(word)
    return leaks


def prose_words(text, allowed):
    """The English words of a text that are prose: outside quotes, outside technical chunks
    (identifiers, numbers, paths, flags) and not names on the allowlists."""
    words = []
    for chunk in chunks(blank_quoted(text)):
        if technical(chunk) or trim_punct(chunk).lower() in allowed:
            continue
        words.extend(w.lower() for w in re.findall(r"[A-Za-z]+", chunk) if len(w) >= 2 and w.lower() not in allowed)
    return words


def copied_run(en, zh, allowed, n=4):
    """The first run of n English prose words of `en` that appears in `zh`, or None."""
    en_words = prose_words(en, allowed)
    zh_text = " " + " ".join(prose_words(zh, allowed)) + " "
    for i in range(len(en_words) - n + 1):
        run = " ".join(en_words[i:i + n])
        if f" {run} " in zh_text:
            return run
    return None


def check_pair(problems, where, pair, allowed, one_line, latin_used):
    if not isinstance(pair, dict) or set(pair) - {"en", "zh", "source"} or not {"en", "zh"} <= set(pair):
        problems.add(where, "must be an object with 'en' and 'zh'")
        return
    en, zh = pair.get("en"), pair.get("zh")
    for lang, text in (("en", en), ("zh", zh)):
        if not isinstance(text, str) or not text.strip():
            problems.add(where, f"{lang} is missing or empty")
            return
        if text != text.strip():
            problems.add(where, f"{lang} has leading or trailing space")
        if one_line and "\n" in text:
            problems.add(where, f"{lang} must be one line")
    if CJK.search(en):
        problems.add(where, "en contains Chinese")
    if not CJK.search(zh):
        problems.add(where, "zh contains no Chinese")
    if en.strip().lower() == zh.strip().lower():
        problems.add(where, "zh is the English copied")
    run = copied_run(en, zh, allowed)
    if run:
        problems.add(where, f"zh copies the English '{run}'")
    m = ASCII_PUNCT_BY_CJK.search(zh)
    if m:
        problems.add(where, f"zh uses ASCII punctuation beside Chinese in '{m.group()}' (docs/glossary-zh.md: full-width ，：；（）)")
    m = CJK_LATIN.search(zh)
    if m:
        problems.add(where, f"zh needs a space between Chinese and Latin in '{m.group()}'")
    leaks = list(dict.fromkeys(english_leaks(zh, allowed)))
    if leaks:
        problems.add(where, "zh keeps English that is not a name on tests/cli/zh_allowlist.txt or in "
                     "zh_latin_words: " + ", ".join(f"'{w}'" for w in leaks))
    for chunk in chunks(blank_quoted(zh)):
        latin_used.add(trim_punct(chunk).lower())
        latin_used.update(w.lower() for w in re.findall(r"[A-Za-z]+", chunk))


# --- commands ---------------------------------------------------------------------------

def help_flags(binary, verb, cache):
    if verb not in cache:
        try:
            out = subprocess.run([binary, verb, "--help"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        cache[verb] = set(re.findall(r"(?<![\w-])--?[A-Za-z][A-Za-z0-9-]*", out))
    return cache[verb]


def bench_selectors(binary, cache):
    if "_bench_ids" not in cache:
        try:
            out = subprocess.run([binary, "bench", "--list"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        ids = set(re.findall(r"^([a-z0-9_]+\.[a-z0-9_]+)\s", out, re.M))
        collectives = {"collectives", "p2p", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall"}
        cache["_bench_ids"] = (ids, collectives)
    return cache["_bench_ids"]


def gpuprobe_calls(command):
    """Each 'gpuprobe ...' in a command line, as (verb or None, its arguments)."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return None
    calls, current = [], None
    for tok in tokens:
        if tok == "|":
            current = None
            continue
        if tok == "gpuprobe":
            current = []
            calls.append(current)
            continue
        if current is not None:
            current.append(tok)
    result = []
    for args in calls:
        rest = list(args)
        while rest and rest[0] in GLOBAL_FLAGS:
            flag = rest.pop(0)
            if flag == "--lang" and rest:
                rest.pop(0)
        verb = rest.pop(0) if rest else None
        result.append((verb, rest, args))
    return result


def check_command(problems, where, command, binary, cache, run_commands, verbose):
    if not isinstance(command, str) or not command.strip():
        problems.add(where, "command is missing")
        return
    calls = gpuprobe_calls(command)
    if calls is None:
        problems.add(where, f"command cannot be parsed as a shell line: {command}")
        return
    if not calls:
        problems.add(where, f"command runs no gpuprobe verb: {command}")
        return
    for verb, rest, args in calls:
        if verb not in VERBS:
            problems.add(where, f"'{verb}' is not a gpuprobe verb ({command})")
            continue
        if not binary:
            continue
        known = help_flags(binary, verb, cache) | GLOBAL_FLAGS
        for tok in rest:
            if tok.startswith("-") and tok != "-" and not re.match(r"^-\d", tok):
                flag = tok.split("=", 1)[0]
                if flag not in known:
                    problems.add(where, f"'{flag}' is not an option of 'gpuprobe {verb}' ({command})")
        if verb == "bench":
            ids, collectives = bench_selectors(binary, cache)
            if ids:
                groups = {i.split(".")[0] for i in ids}
                positional = []
                skip = False
                for tok in rest:
                    if skip:
                        skip = False
                        continue
                    if tok.startswith("-"):
                        skip = tok in {"--backend", "--threads", "--size", "--seconds", "--db"}
                        continue
                    positional.append(tok)
                for sel in positional:
                    if not (sel in ids or sel in groups or sel in collectives or any(i.startswith(sel) for i in ids)):
                        problems.add(where, f"'{sel}' selects no benchmark ({command})")
        offline = verb in {"gpus", "plan", "advise", "explain"} and "|" not in command
        has_file = any(t.startswith(("./", "/", "~")) or t in {"--from", "--cpu-results"} for t in rest)
        if run_commands and offline and not has_file:
            try:
                rc = subprocess.run([binary] + args, capture_output=True, text=True, timeout=60).returncode
            except (OSError, subprocess.TimeoutExpired) as e:
                problems.add(where, f"running '{command}' failed: {e}")
                continue
            if rc not in (0, 1):
                problems.add(where, f"'{command}' exits {rc} (2 = bad usage or input)")
            elif verbose:
                print(f"  ran: {command} -> {rc}")


# --- the file ---------------------------------------------------------------------------

def title_labels(title):
    """The words a title shows as the term's name: the part before its first parenthesis,
    split at ',', ' and ', ' vs ', '、', '与' and '和', without quotes."""
    if not isinstance(title, str):
        return []
    main = re.split(r"\s*[(（]", title, maxsplit=1)[0]
    parts = re.split(r"[,，]\s*| and | vs |、|与|和", main)
    return [p.strip().strip("'\"") for p in parts if p.strip().strip("'\"")]


def name_key(name):
    return re.sub(r"[\s_-]+", "", name.strip().lower())


def check(doc, binary, run_commands, verbose):
    problems = Problems()
    if not isinstance(doc, dict):
        problems.add("file", "the top level must be an object")
        return problems, []
    if doc.get("schema") != SCHEMA:
        problems.add("file", f"schema must be '{SCHEMA}'")
    if not isinstance(doc.get("about"), str) or not doc["about"].strip():
        problems.add("file", "'about' is missing")
    groups = doc.get("groups")
    group_ids = []
    if not isinstance(groups, list) or not groups:
        problems.add("file", "'groups' must be a non-empty list")
        groups = []
    for g in groups:
        if not isinstance(g, dict) or not isinstance(g.get("id"), str):
            problems.add("groups", f"bad group {g!r}")
            continue
        group_ids.append(g["id"])
        for lang in ("en", "zh"):
            if not isinstance(g.get(lang), str) or not g[lang].strip():
                problems.add(f"group {g['id']}", f"{lang} title is missing")
        if isinstance(g.get("zh"), str) and not CJK.search(g["zh"]):
            problems.add(f"group {g['id']}", "zh title contains no Chinese")
    latin = doc.get("zh_latin_words", [])
    if not isinstance(latin, list) or not all(isinstance(w, str) and w.strip() for w in latin):
        problems.add("file", "'zh_latin_words' must be a list of words")
        latin = []
    base_allow = read_allowlist(ALLOWLIST)
    if not base_allow:
        problems.add("file", f"cannot read {os.path.relpath(ALLOWLIST, ROOT)}")
    for w in latin:
        if w.lower() in base_allow:
            problems.add("zh_latin_words", f"'{w}' is already on tests/cli/zh_allowlist.txt")
    allowed = base_allow | {w.lower() for w in latin}

    terms = doc.get("terms")
    if not isinstance(terms, list):
        problems.add("file", "'terms' must be a list")
        return problems, []
    if len(terms) < MIN_TERMS:
        problems.add("file", f"{len(terms)} terms, fewer than {MIN_TERMS}")
    ids = [t.get("id") for t in terms if isinstance(t, dict)]
    id_set = set(ids)
    seen_ids = set()
    owners = {}
    latin_used = set()
    cache = {}
    for index, term in enumerate(terms):
        if not isinstance(term, dict):
            problems.add(f"term #{index}", "must be an object")
            continue
        tid = term.get("id")
        where = f"term '{tid}'"
        if not isinstance(tid, str) or not re.fullmatch(r"[a-z0-9_]+", tid):
            problems.add(f"term #{index}", f"bad id {tid!r}")
        elif tid in seen_ids:
            problems.add(where, "id is not unique")
        seen_ids.add(tid)
        keys = list(term)
        if keys != TERM_KEYS:
            missing = [k for k in TERM_KEYS if k not in term]
            extra = [k for k in keys if k not in TERM_KEYS]
            if missing or extra:
                problems.add(where, f"keys: missing {missing}, unknown {extra}")
        if term.get("group") not in group_ids:
            problems.add(where, f"group {term.get('group')!r} is not one of {group_ids}")

        names = term.get("names")
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
            problems.add(where, "names must be a non-empty list of strings")
            names = []
        lowered = [n.strip().lower() for n in names]
        for n in sorted({n for n in lowered if lowered.count(n) > 1}):
            problems.add(where, f"name '{n}' is listed twice")
        if names and not any(not CJK.search(n) for n in names):
            problems.add(where, "no English name to type")
        title = term.get("title")
        if isinstance(title, dict):
            for lang in ("en", "zh"):
                for label in title_labels(title.get(lang)):
                    if name_key(label) not in {name_key(n) for n in names}:
                        problems.add(where, f"the {lang} title's '{label}' is not one of its names (what a screen shows must be typable)")
        for n in names:
            key = name_key(n)
            if key in owners and owners[key][0] != tid:
                problems.add(where, f"name '{n}' is also claimed by '{owners[key][0]}' (as '{owners[key][1]}')")
            owners.setdefault(key, (tid, n))

        for field, one_line in (("title", True), ("meaning", True), ("analogy", False)):
            check_pair(problems, f"{where} {field}", term.get(field), allowed, one_line, latin_used)
        normal = term.get("normal")
        if normal is not None:
            check_pair(problems, f"{where} normal", normal, allowed, True, latin_used)
            src = normal.get("source") if isinstance(normal, dict) else None
            if not isinstance(src, str) or not src.strip():
                problems.add(f"{where} normal", "source is missing")
            else:
                for path in REPO_PATH.findall(URL.sub(" ", src)):
                    if not os.path.exists(os.path.join(ROOT, path.rstrip("."))):
                        problems.add(f"{where} normal", f"source '{path}' does not exist")
                if "://" in src and not re.search(r"https?://\S+", src):
                    problems.add(f"{where} normal", f"source URL is malformed: {src}")

        see = term.get("see_also")
        if not isinstance(see, list):
            problems.add(where, "see_also must be a list")
            see = []
        for s in see:
            if s == tid:
                problems.add(where, "see_also names the term itself")
            elif s not in id_set:
                problems.add(where, f"see_also '{s}' is not a term")
        for s in sorted({s for s in see if see.count(s) > 1}):
            problems.add(where, f"see_also '{s}' is listed twice")

        sources = term.get("sources")
        if not isinstance(sources, list) or not all(isinstance(s, str) and s.strip() for s in sources):
            problems.add(where, "sources must be a list of strings")
            sources = []
        for s in sources:
            for path in REPO_PATH.findall(URL.sub(" ", s)):
                if not os.path.exists(os.path.join(ROOT, path.rstrip("."))):
                    problems.add(where, f"source '{path}' does not exist")
            if "://" in s and not re.match(r"^https?://\S+$", s.strip()):
                problems.add(where, f"source URL is malformed: {s}")
        figure_texts = [term.get(f, {}).get("en", "") for f in ("meaning", "analogy") if isinstance(term.get(f), dict)]
        if any(FIGURE.search(t or "") for t in figure_texts) and not sources:
            problems.add(where, "states a figure but lists no sources")

        check_command(problems, where, term.get("command"), binary, cache, run_commands, verbose)

    for rid in REQUIRED_IDS:
        if rid not in id_set:
            problems.add("file", f"required term '{rid}' is missing")
    for w in latin:
        if w.lower() not in latin_used:
            problems.add("zh_latin_words", f"'{w}' is not used by any zh text")
    return problems, terms


def main():
    parser = argparse.ArgumentParser(description="Check data/knowledge/glossary.json.")
    parser.add_argument("--file", default=DEFAULT_FILE)
    parser.add_argument("--bin", default=None, help="gpuprobe binary (default: build/gpuprobe when present)")
    parser.add_argument("--no-bin", action="store_true", help="do not use the binary (verbs only, no flags or runs)")
    parser.add_argument("--no-run", action="store_true", help="check flags against --help but run no command")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    try:
        with open(args.file, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_glossary: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    binary = None
    if not args.no_bin:
        candidate = args.bin or os.path.join(ROOT, "build", "gpuprobe")
        if os.access(candidate, os.X_OK):
            binary = candidate
        elif args.bin:
            print(f"check_glossary: {args.bin} is not an executable", file=sys.stderr)
            return 2
    problems, terms = check(doc, binary, not args.no_run and binary is not None, args.verbose)
    for p in problems.items:
        print(p)
    count = len(terms) if isinstance(terms, list) else 0
    mode = f"flags and offline commands checked with {os.path.relpath(binary, ROOT)}" if binary else "verbs only (no binary)"
    if problems.items:
        print(f"check_glossary: {len(problems.items)} problem(s) in {count} terms ({mode})")
        return 1
    print(f"check_glossary: {count} terms, each in en and zh: ok ({mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

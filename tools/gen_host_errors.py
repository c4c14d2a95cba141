#!/usr/bin/env python3
"""Generate data/knowledge/host_errors.json: the errors of the host that are not GPU errors,
from their own sources of truth, so that `gpuprobe explain` can say what such a text is
without a hand-written entry per error.

  - Linux errno: every E* name and number of the kernel's userspace headers
    (asm-generic/errno-base.h, asm-generic/errno.h), the header's comment, the message the C
    library prints for it (strerror, as Python's os.strerror returns it from glibc) and that
    message in Chinese from glibc's own translation catalogue (libc.mo of zh_CN).
  - Python's built-in exceptions: every class of `builtins` derived from BaseException (the
    warnings left out), its base class and the first line of its docstring.
  - The exceptions of Python's standard library: every such class a public module of
    `sys.stdlib_module_names` defines (json.decoder.JSONDecodeError, subprocess.CalledProcessError),
    with its module; a name already taken (a builtin, an earlier module in sorted order) and
    the bare name "Error" (shutil.Error, csv.Error: ambiguous without the module) are left out.

Usage (stdlib only; run on a Linux machine with linux-libc-dev and libc-l10n):
    tools/gen_host_errors.py [--include /usr/include] [--locale-dir /usr/share/locale]
                             [--out data/knowledge/host_errors.json]

The versions read (kernel headers, glibc, Python) are recorded in the file.
"""

import argparse
import builtins
import gettext
import json
import os
import platform
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEFINE = re.compile(r"^#define\s+(E[A-Z0-9]+)\s+(\w+)\s*(?:/\*\s*(.*?)\s*\*/)?\s*$")


def package_version(name):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", name], capture_output=True, text=True, check=False)
        return out.stdout.strip() or None
    except OSError:
        return None


def read_errno(include):
    """(name, number, comment) for every errno, aliases (EWOULDBLOCK = EAGAIN) resolved."""
    rows, values = [], {}
    for header in ("asm-generic/errno-base.h", "asm-generic/errno.h"):
        with open(os.path.join(include, header)) as f:
            for line in f:
                m = DEFINE.match(line.strip())
                if not m:
                    continue
                name, value, comment = m.group(1), m.group(2), m.group(3) or ""
                number = int(value) if value.isdigit() else values.get(value)
                if number is None:
                    continue
                values[name] = number
                rows.append((name, number, comment, None if value.isdigit() else value))
    return rows


# Modules not imported: they act when imported (open a browser, print), need a display, or are
# the test suite and tools rather than a library.
SKIP_MODULES = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test", "lib2to3", "ensurepip",
                "pydoc_data", "__phello__", "xxlimited", "xxlimited_35", "xxsubtype"}


def stdlib_exceptions(taken):
    """The exception classes the public standard-library modules define, in module order."""
    import importlib
    import io
    import contextlib
    out = []
    taken = set(taken)
    for module_name in sorted(sys.stdlib_module_names):
        if module_name.startswith("_") or module_name in SKIP_MODULES:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                module = importlib.import_module(module_name)
        except Exception:  # noqa: BLE001 - a module this platform lacks (winreg, msvcrt)
            continue
        for attr in sorted(dir(module)):
            cls = getattr(module, attr, None)
            if not (isinstance(cls, type) and issubclass(cls, BaseException)) or issubclass(cls, Warning):
                continue
            owner = getattr(cls, "__module__", "") or ""
            if not (owner == module_name or owner.startswith(module_name + ".")):
                continue  # re-exported from elsewhere
            name = cls.__name__
            if name in taken or name == "Error" or not re.match(r"^[A-Z][A-Za-z]*(?:Error|Exception|Exit|Interrupt|Iteration|Group)$", name):
                continue
            taken.add(name)
            doc = (cls.__doc__ or "").strip().split("\n")[0]
            if doc.endswith(":"):
                doc = ""  # the start of a list, not a sentence that says what the class is
            out.append({"name": name, "module": owner, "base": cls.__bases__[0].__name__, "doc": doc})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include", default="/usr/include")
    ap.add_argument("--locale-dir", default="/usr/share/locale")
    ap.add_argument("--out", default=os.path.join(ROOT, "data", "knowledge", "host_errors.json"))
    a = ap.parse_args()

    zh = gettext.translation("libc", localedir=a.locale_dir, languages=["zh_CN"])
    errno_rows = []
    for name, number, comment, alias_of in read_errno(a.include):
        message = os.strerror(number)
        row = {"name": name, "number": number, "doc": comment, "message": message,
               "message_zh": zh.gettext(message) if zh.gettext(message) != message else ""}
        if alias_of:
            row["alias_of"] = alias_of
        errno_rows.append(row)

    exceptions = []
    for name in sorted(dir(builtins)):
        cls = getattr(builtins, name)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)) or issubclass(cls, Warning):
            continue
        doc = (cls.__doc__ or "").strip().split("\n")[0]
        base = cls.__bases__[0].__name__ if cls is not BaseException else ""
        exceptions.append({"name": name, "base": base, "doc": doc})

    exceptions.extend(stdlib_exceptions({e["name"] for e in exceptions}))

    doc = {
        "schema": "gpuprobe.host_errors.v1",
        "about": ("Errors of the host, not of the GPU: Linux errno (names, numbers and header comments from the "
                  "kernel's userspace headers; messages as glibc's strerror prints them, in English and from glibc's "
                  "zh_CN catalogue), Python's built-in exceptions and the exceptions of its standard library (class, module, base, first docstring line). Generated by "
                  "tools/gen_host_errors.py; do not edit by hand."),
        "generated_by": "tools/gen_host_errors.py",
        "versions": {"linux-libc-dev": package_version("linux-libc-dev"), "glibc": platform.libc_ver()[1],
                     "libc-l10n": package_version("libc-l10n"), "python": platform.python_version()},
        "errno": errno_rows,
        "python_exceptions": exceptions,
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("%s: %d errno, %d Python exceptions" % (a.out, len(errno_rows), len(exceptions)), file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate data/knowledge/cuda_statuses.json from the CUDA toolkit's headers.

Every status of every API that `gpuprobe explain` answers for, by name and number, with the
header's own comment for it and, where the library exports one, the message its
error-string function prints (cudaGetErrorString, cublasGetStatusString, ...). The build
reads only the generated JSON; it never needs the toolkit.

Usage (stdlib only):
    tools/gen_cuda_statuses.py [--include /usr/local/cuda/include] [--lib /usr/local/cuda/lib64]
                               [--nvml-header PATH] [--nvml-header-source URL]
                               [--tensorrt-include DIR] [--tensorrt-source URL]
                               [--cudnn-frontend-include DIR] [--cudnn-frontend-source URL]
                               [--out data/knowledge/cuda_statuses.json]

The messages come from a small C helper compiled with the system C compiler and run against
the toolkit's shared libraries (dlopen, nothing linked); without a compiler or a library the
messages of that API are left out and the JSON says so. NVML's header is not part of every
toolkit: pass --nvml-header (for example NVIDIA/go-nvml's gen/nvml/nvml.h) when it is not
under --include. TensorRT's headers are not part of the toolkit either: pass --tensorrt-include
(a directory with NvInferRuntimeBase.h, NvInferRuntime.h and NvInferVersion.h, for example
NVIDIA/TensorRT's include/) to add nvinfer1::ErrorCode and the logger's severities. cuBLASLt
returns cuBLAS's cublasStatus_t (cublasLt.h), so it is recorded as a user of that type rather than
as a status space of its own. The cuDNN frontend (NVIDIA/cudnn-frontend, header-only) is read
from --cudnn-frontend-include (its include/ directory) for cudnn_frontend::error_code_t. The
script records the versions it read.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# One row per API: the header, the enum's typedef name, the enumerator prefix, and the
# error-string function (if any) and the library that exports it.
APIS = [
    {"id": "cuda_runtime", "library": "CUDA runtime", "type": "cudaError_t", "header": "driver_types.h",
     "enum": r"enum\s+__device_builtin__\s+cudaError\b", "prefix": "cudaError",
     "success": "cudaSuccess", "string_fn": "cudaGetErrorString", "lib": "libcudart.so"},
    {"id": "cuda_driver", "library": "CUDA driver", "type": "CUresult", "header": "cuda.h",
     "enum": r"typedef\s+enum\s+cudaError_enum\b", "prefix": "CUDA_ERROR_", "success": "CUDA_SUCCESS"},
    {"id": "nccl", "library": "NCCL", "type": "ncclResult_t", "header": "nccl.h",
     "enum": r"typedef\s+enum\s*\{\s*ncclSuccess", "prefix": "nccl", "success": "ncclSuccess",
     "skip": ["ncclNumResults"], "string_fn": "ncclGetErrorString", "lib": "libnccl.so"},
    {"id": "cublas", "library": "cuBLAS", "type": "cublasStatus_t", "header": "cublas_api.h",
     "enum": r"typedef\s+enum\s*\{\s*CUBLAS_STATUS_SUCCESS", "prefix": "CUBLAS_STATUS_",
     "success": "CUBLAS_STATUS_SUCCESS", "string_fn": "cublasGetStatusString", "lib": "libcublas.so"},
    {"id": "cufft", "library": "cuFFT", "type": "cufftResult", "header": "cufft.h",
     "enum": r"typedef\s+enum\s+cufftResult_t\b", "prefix": "CUFFT_", "success": "CUFFT_SUCCESS"},
    {"id": "cusolver", "library": "cuSOLVER", "type": "cusolverStatus_t", "header": "cusolver_common.h",
     "enum": r"typedef\s+enum\s*\{\s*CUSOLVER_STATUS_SUCCESS", "prefix": "CUSOLVER_STATUS_",
     "success": "CUSOLVER_STATUS_SUCCESS"},
    {"id": "cusparse", "library": "cuSPARSE", "type": "cusparseStatus_t", "header": "cusparse.h",
     "enum": r"typedef\s+enum\s*\{\s*CUSPARSE_STATUS_SUCCESS", "prefix": "CUSPARSE_STATUS_",
     "success": "CUSPARSE_STATUS_SUCCESS", "string_fn": "cusparseGetErrorString", "lib": "libcusparse.so"},
    {"id": "nvrtc", "library": "NVRTC", "type": "nvrtcResult", "header": "nvrtc.h",
     "enum": r"typedef\s+enum\s*\{\s*NVRTC_SUCCESS", "prefix": "NVRTC_ERROR_", "success": "NVRTC_SUCCESS",
     "string_fn": "nvrtcGetErrorString", "lib": "libnvrtc.so"},
    {"id": "cudnn", "library": "cuDNN", "type": "cudnnStatus_t", "header": "cudnn_graph.h",
     "enum": r"typedef\s+enum\s*\{\s*CUDNN_STATUS_SUCCESS", "prefix": "CUDNN_STATUS_",
     "success": "CUDNN_STATUS_SUCCESS", "string_fn": "cudnnGetErrorString", "lib": "libcudnn_graph.so"},
    {"id": "nvml", "library": "NVML", "type": "nvmlReturn_t", "header": "nvml.h",
     "enum": r"typedef\s+enum\s+nvmlReturn_enum\b", "prefix": "NVML_ERROR_", "success": "NVML_SUCCESS"},
    {"id": "curand", "library": "cuRAND", "type": "curandStatus_t", "header": "curand.h",
     "enum": r"enum\s+curandStatus\b", "prefix": "CURAND_STATUS_", "success": "CURAND_STATUS_SUCCESS"},
    {"id": "nvjitlink", "library": "nvJitLink", "type": "nvJitLinkResult", "header": "nvJitLink.h",
     "enum": r"typedef\s+enum\s*\{\s*NVJITLINK_SUCCESS", "prefix": "NVJITLINK_ERROR_", "success": "NVJITLINK_SUCCESS"},
    {"id": "nvvm", "library": "NVVM (libNVVM)", "type": "nvvmResult", "header": "nvvm.h",
     "enum": r"typedef\s+enum\s*\{\s*NVVM_SUCCESS", "prefix": "NVVM_ERROR_", "success": "NVVM_SUCCESS",
     "string_fn": "nvvmGetErrorString", "lib": "libnvvm.so"},
    {"id": "tensorrt", "library": "TensorRT", "type": "nvinfer1::ErrorCode", "header": "NvInferRuntimeBase.h",
     "enum": r"enum\s+class\s+ErrorCode\s*:\s*int32_t", "prefix": "k", "success": "kSUCCESS", "tensorrt": True},
    {"id": "cudnn_frontend", "library": "cuDNN frontend", "type": "cudnn_frontend::error_code_t",
     "header": "cudnn_frontend/graph_helpers.h", "enum": r"enum\s+class\s+(?:\[\[nodiscard\]\]\s+)?error_code_t\b",
     "prefix": "", "success": "OK", "cudnn_frontend": True},
]

# The other headers' users of a status type: the type is theirs too, not a space of its own.
SHARED_TYPES = [
    {"api": "cublas", "header": "cublasLt.h", "library": "cuBLASLt", "evidence": r"cublasStatus_t\s+CUBLASWINAPI\s+cublasLt\w+\(",
     "string_fn": "cublasLtGetStatusString"},
]

# TensorRT's logger severities (ILogger::Severity): not statuses, the level of a logged line.
TRT_SEVERITY_ENUM = r"enum\s+class\s+Severity\s*:\s*int32_t"

HELPER_C = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef const char* (*fn_t)(int);
int main(int argc, char** argv) {
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) return 2;
  fn_t f = (fn_t)dlsym(h, argv[2]);
  if (!f) return 3;
  for (int i = 3; i < argc; ++i) {
    const char* s = f(atoi(argv[i]));
    printf("%s\t%s\n", argv[i], s ? s : "");
  }
  return 0;
}
"""


def strip_comments_keep_docs(text):
    """Yields (kind, payload) tokens of an enum body: ('doc', text) for /** */ and //!< comments,
    ('item', 'NAME = VALUE') for enumerators."""
    tokens = []
    i = 0
    n = len(text)
    current = ""
    pending_trailing_doc_for = None
    while i < n:
        if text.startswith("/**", i) or text.startswith("/*!", i):
            end = text.find("*/", i + 3)
            end = n if end < 0 else end
            body = text[i + 3:end]
            if body.startswith("<"):
                tokens.append(("trailing_doc", body[1:]))
            else:
                tokens.append(("doc", body))
            i = end + 2
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            i = end + 2
        elif (text.startswith("//!", i) or text.startswith("///", i)) and not (text.startswith("//!<", i) or text.startswith("///<", i)):
            # TensorRT-style documentation: "//!" lines before the enumerator.
            end = text.find("\n", i)
            end = n if end < 0 else end
            if current.strip():
                tokens.append(("item", current.strip()))
                current = ""
            tokens.append(("doc_line", text[i + 3:end]))
            i = end
        elif text.startswith("//!<", i) or text.startswith("///<", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            if current.strip():
                tokens.append(("item", current.strip()))
                current = ""
            tokens.append(("trailing_doc", text[i + 4:end]))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text[i] == ",":
            if current.strip():
                tokens.append(("item", current.strip()))
            current = ""
            i += 1
        else:
            current += text[i]
            i += 1
    if current.strip():
        tokens.append(("item", current.strip()))
    del pending_trailing_doc_for
    return tokens


def clean_doc(doc):
    lines = []
    for line in doc.splitlines():
        line = line.strip()
        if line.startswith("*"):
            line = line[1:].strip()
        lines.append(line)
    text = " ".join(l for l in lines if l)
    deprecated = "\\deprecated" in text
    text = text.replace("\\deprecated", "Deprecated:")
    text = re.sub(r"\\ref\s+::(\S+)\s+\"[^\"]*\"", r"\1", text)
    text = re.sub(r"\\(?:ref|p|c|e|b|link|endlink|note|sa|see)\b\s*", "", text)
    text = text.replace("::", "")
    text = re.sub(r"\s+", " ", text).strip()
    return text, deprecated


def parse_enum(path, api):
    with open(path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    m = re.search(api["enum"], source)
    if not m:
        raise SystemExit(f"{path}: enum for {api['type']} not found")
    start = source.index("{", m.start())
    depth = 0
    for end in range(start, len(source)):
        if source[end] == "{":
            depth += 1
        elif source[end] == "}":
            depth -= 1
            if depth == 0:
                break
    body = source[start + 1:end]
    tokens = strip_comments_keep_docs(body)
    values = {}
    out = []
    doc = ""
    last = None
    next_value = 0
    previous = None
    for kind, payload in tokens:
        joined = previous == "doc_line"
        previous = kind
        if kind == "doc":
            doc = payload
            continue
        if kind == "doc_line":
            doc = (doc + " " + payload) if joined else payload
            continue
        if kind == "trailing_doc":
            if last is not None and not last.get("doc"):
                last["doc"], deprecated = clean_doc(payload)
                if deprecated:
                    last["deprecated"] = True
            continue
        item = re.sub(r"\s+", " ", payload)
        alias_deprecated = re.search(r"\b[A-Z_]*DEPRECATED[A-Z_]*\b", item) is not None
        item = re.sub(r"\b[A-Z_]*DEPRECATED[A-Z_]*\b", "", item).strip()
        mm = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*(.+))?$", item)
        if not mm:
            doc = ""
            continue
        name, expr = mm.group(1), (mm.group(2) or "").strip()
        if expr:
            expr_clean = re.sub(r"/\*.*?\*/", "", expr).strip()
            if re.fullmatch(r"-?(0x[0-9A-Fa-f]+|\d+)[uUlL]*", expr_clean):
                value = int(expr_clean.rstrip("uUlL"), 0)
            elif expr_clean in values:
                value = values[expr_clean]
            else:
                raise SystemExit(f"{path}: cannot evaluate {name} = {expr}")
        else:
            value = next_value
        values[name] = value
        next_value = value + 1
        text, deprecated = clean_doc(doc) if doc else ("", False)
        doc = ""
        if name == api["success"] or name in api.get("skip", []):
            last = None
            continue
        if not name.startswith(api["prefix"]):
            last = None
            continue
        entry = {"api": api["id"], "name": name, "value": value, "doc": text}
        if deprecated or alias_deprecated:
            entry["deprecated"] = True
        out.append(entry)
        last = entry
    return out


def find_library(lib_dirs, base):
    for d in lib_dirs:
        if not os.path.isdir(d):
            continue
        exact = os.path.join(d, base)
        if os.path.exists(exact):
            return exact
        for name in sorted(os.listdir(d)):
            if name.startswith(base):
                return os.path.join(d, name)
    return None


def read_messages(statuses, api, lib_dirs, helper):
    if not api.get("string_fn") or helper is None:
        return None
    lib = find_library(lib_dirs, api["lib"])
    if lib is None:
        return None
    args = [helper, lib, api["string_fn"]] + [str(s["value"]) for s in statuses]
    try:
        run = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    messages = {}
    for line in run.stdout.splitlines():
        value, _, message = line.partition("\t")
        messages[int(value)] = message.strip()
    return os.path.basename(lib), messages


def build_helper(workdir):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    src = os.path.join(workdir, "status_strings.c")
    exe = os.path.join(workdir, "status_strings")
    with open(src, "w") as f:
        f.write(HELPER_C)
    run = subprocess.run([cc, "-O0", "-o", exe, src, "-ldl"], capture_output=True, text=True, check=False)
    return exe if run.returncode == 0 else None


def define(path, name):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        m = re.search(r"#define\s+" + name + r"\s+(\d+)", f.read())
    return int(m.group(1)) if m else None


def versions(include, nvml_header):
    v = {}
    cuda = define(os.path.join(include, "cuda.h"), "CUDA_VERSION")
    if cuda:
        v["cuda"] = f"{cuda // 1000}.{cuda % 1000 // 10}"
        v["cuda_version_macro"] = cuda
    parts = [define(os.path.join(include, "nccl.h"), k) for k in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")]
    if all(p is not None for p in parts):
        v["nccl"] = ".".join(map(str, parts))
    parts = [define(os.path.join(include, "cudnn_version.h"), k) for k in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL")]
    if all(p is not None for p in parts):
        v["cudnn"] = ".".join(map(str, parts))
    for key, header, names in (("cublas", "cublas_api.h", ("CUBLAS_VER_MAJOR", "CUBLAS_VER_MINOR", "CUBLAS_VER_PATCH")),
                               ("cufft", "cufft.h", ("CUFFT_VER_MAJOR", "CUFFT_VER_MINOR", "CUFFT_VER_PATCH")),
                               ("cusolver", "cusolver_common.h", ("CUSOLVER_VER_MAJOR", "CUSOLVER_VER_MINOR", "CUSOLVER_VER_PATCH")),
                               ("cusparse", "cusparse.h", ("CUSPARSE_VER_MAJOR", "CUSPARSE_VER_MINOR", "CUSPARSE_VER_PATCH"))):
        parts = [define(os.path.join(include, header), k) for k in names]
        if all(p is not None for p in parts):
            v[key] = ".".join(map(str, parts))
    parts = [define(os.path.join(include, "curand.h"), k) for k in ("CURAND_VER_MAJOR", "CURAND_VER_MINOR", "CURAND_VER_PATCH")]
    if all(p is not None for p in parts):
        v["curand"] = ".".join(map(str, parts))
    if nvml_header and os.path.exists(nvml_header):
        with open(nvml_header, encoding="utf-8", errors="replace") as f:
            m = re.search(r"NVML VERSION:\s*([\d.]+)", f.read(4096))
        if m:
            v["nvml"] = m.group(1)
    return v


def tensorrt_version(include):
    path = os.path.join(include, "NvInferVersion.h")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    parts = []
    for key in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"#define\s+(?:TRT_%s_ENTERPRISE|NV_TENSORRT_%s)\s+(\d+)" % (key, key), text)
        if not m:
            return None
        parts.append(m.group(1))
    return ".".join(parts)


def frontend_version(include):
    path = os.path.join(include, "cudnn_frontend_version.h")
    parts = [define(path, k) for k in ("CUDNN_FRONTEND_MAJOR_VERSION", "CUDNN_FRONTEND_MINOR_VERSION", "CUDNN_FRONTEND_PATCH_VERSION")]
    return ".".join(map(str, parts)) if all(p is not None for p in parts) else None


def tensorrt_severities(include):
    """ILogger::Severity from whichever TensorRT header declares it."""
    for header in ("NvInferRuntimeBase.h", "NvInferRuntime.h"):
        path = os.path.join(include, header)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            if re.search(TRT_SEVERITY_ENUM, f.read()) is None:
                continue
        api = {"id": "tensorrt_severity", "type": "Severity", "enum": TRT_SEVERITY_ENUM, "prefix": "k", "success": None}
        rows = parse_enum(path, api)
        return header, [{"name": r["name"], "value": r["value"], "doc": r["doc"]} for r in rows]
    return None


def shared_users(include):
    out = {}
    for user in SHARED_TYPES:
        path = os.path.join(include, user["header"])
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            if re.search(user["evidence"], f.read()):
                out.setdefault(user["api"], []).append(
                    {"library": user["library"], "header": user["header"], "string_fn": user["string_fn"]})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--include", default="/usr/local/cuda/include")
    parser.add_argument("--lib", action="append", default=None, help="directory with the toolkit's shared libraries")
    parser.add_argument("--nvml-header", default=None)
    parser.add_argument("--nvml-header-source", default=None,
                        help="where the NVML header came from, recorded in the JSON (URL and commit)")
    parser.add_argument("--tensorrt-include", default=None,
                        help="a directory with TensorRT's NvInferRuntimeBase.h, NvInferRuntime.h, NvInferVersion.h")
    parser.add_argument("--tensorrt-source", default=None,
                        help="where the TensorRT headers came from, recorded in the JSON (URL and commit)")
    parser.add_argument("--cudnn-frontend-include", default=None, help="NVIDIA/cudnn-frontend's include/ directory")
    parser.add_argument("--cudnn-frontend-source", default=None,
                        help="where the cuDNN frontend headers came from, recorded in the JSON (URL and commit)")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data", "knowledge", "cuda_statuses.json"))
    args = parser.parse_args()
    lib_dirs = args.lib or [os.path.join(os.path.dirname(args.include.rstrip("/")), d) for d in ("lib64", "lib")]
    nvml_header = args.nvml_header or os.path.join(args.include, "nvml.h")

    statuses = []
    apis_out = []
    with tempfile.TemporaryDirectory() as work:
        helper = build_helper(work)
        users = shared_users(args.include)
        for api in APIS:
            if api.get("tensorrt"):
                if not args.tensorrt_include:
                    print("warning: no --tensorrt-include; nvinfer1::ErrorCode left out", file=sys.stderr)
                    continue
                header = os.path.join(args.tensorrt_include, api["header"])
            elif api.get("cudnn_frontend"):
                if not args.cudnn_frontend_include:
                    print("warning: no --cudnn-frontend-include; cudnn_frontend::error_code_t left out", file=sys.stderr)
                    continue
                header = os.path.join(args.cudnn_frontend_include, api["header"])
            else:
                header = nvml_header if api["id"] == "nvml" else os.path.join(args.include, api["header"])
            if not os.path.exists(header):
                print(f"warning: {header} not found; {api['type']} left out", file=sys.stderr)
                continue
            rows = parse_enum(header, api)
            info = {k: api[k] for k in ("id", "library", "type", "header")}
            if api["id"] == "nvml" and args.nvml_header_source:
                info["header_source"] = args.nvml_header_source
            if api.get("tensorrt"):
                if args.tensorrt_source:
                    info["header_source"] = args.tensorrt_source
                severities = tensorrt_severities(args.tensorrt_include)
                if severities:
                    info["severities_header"], info["severities"] = severities
            if api.get("cudnn_frontend") and args.cudnn_frontend_source:
                info["header_source"] = args.cudnn_frontend_source
            if api["id"] in users:
                info["also_used_by"] = users[api["id"]]
            got = read_messages(rows, api, lib_dirs, helper)
            if got is not None:
                lib, messages = got
                info["messages_from"] = f"{api['string_fn']}() in {lib}"
                for row in rows:
                    message = messages.get(row["value"], "")
                    # cuDNN and NVRTC print the enumerator's own name: nothing to add.
                    looks_like_a_name = re.fullmatch(r"[A-Z0-9_]+", message or "") is not None
                    placeholder = re.fullmatch(r"[A-Z0-9_]+ not found", message or "") is not None
                    if message and not looks_like_a_name and not placeholder and "unrecognized" not in message.lower():
                        row["message"] = message
            elif api.get("string_fn"):
                info["messages_from"] = f"not read ({api['string_fn']} unavailable when generated)"
            apis_out.append(info)
            statuses.extend(rows)

    # Driver statuses whose runtime twin has the same number and says the same thing.
    runtime_by_value = {s["value"]: s for s in statuses if s["api"] == "cuda_runtime"}
    for s in statuses:
        if s["api"] == "cuda_driver" and s["value"] in runtime_by_value:
            s["runtime_equivalent"] = runtime_by_value[s["value"]]["name"]
            if "message" in runtime_by_value[s["value"]] and "message" not in s:
                s["message"] = runtime_by_value[s["value"]]["message"]

    doc = {
        "schema": "gpuprobe.cuda_statuses.v1",
        "about": ("Every status of the CUDA runtime (cudaError_t), driver (CUresult), NCCL, cuBLAS (and cuBLASLt, "
                  "which returns the same type), cuFFT, cuSOLVER, cuSPARSE, NVRTC, cuDNN, NVML, cuRAND, nvJitLink, "
                  "NVVM, TensorRT (nvinfer1::ErrorCode, with the logger's severities) and the cuDNN frontend (error_code_t), with the header's comment ('doc') and the "
                  "library's printed message ('message') where it has one. Generated by "
                  "tools/gen_cuda_statuses.py; do not edit by hand. A driver status with the same number "
                  "as a runtime status names the same condition ('runtime_equivalent'); the driver's "
                  "message is the runtime's for that condition."),
        "generated_by": "tools/gen_cuda_statuses.py",
        "toolkit": dict(versions(args.include, nvml_header),
                        **({"tensorrt": tensorrt_version(args.tensorrt_include)}
                           if args.tensorrt_include and tensorrt_version(args.tensorrt_include) else {}),
                        **({"cudnn_frontend": frontend_version(args.cudnn_frontend_include)}
                           if args.cudnn_frontend_include and frontend_version(args.cudnn_frontend_include) else {})),
        "apis": apis_out,
        "statuses": statuses,
    }
    out = os.path.normpath(args.out)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{out}: {len(statuses)} statuses from {len(apis_out)} APIs ({doc['toolkit']})")


if __name__ == "__main__":
    main()

"""Write tests/fixtures/transformers_oracle/README.md from the generated files.

    .venv-oracle/bin/python tools/hf_oracle/gen_report.py
"""
from __future__ import annotations

import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ORACLE = os.path.join(REPO, "tests", "fixtures", "transformers_oracle", "oracle.json")
STRUCT = os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_structure.json")
DEFAULTS = os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_config_defaults.json")
OUT = os.path.join(REPO, "tests", "fixtures", "transformers_oracle", "README.md")


def main():
    o = json.load(open(ORACLE))
    s = json.load(open(STRUCT)) if os.path.exists(STRUCT) else None
    d = json.load(open(DEFAULTS)) if os.path.exists(DEFAULTS) else None
    v = o["versions"]
    rows = o["rows"]
    kv_limit = None
    skipped_kv = [k for k, r in rows.items() if "KV probe not run" in (r.get("kv_error") or "")]
    if skipped_kv:
        kv_limit = len(rows) - len(skipped_kv) - 0
        from common import priority_sorted
        order = [r["model_type"] for r in priority_sorted([{"model_type": k} for k in rows])]
        kv_limit = next(i for i, k in enumerate(order) if k in set(skipped_kv))
    n_all = len(s["models"]) if s else 0
    n_gen = sum(1 for m in s["models"].values() if m["status"] != "not_generated") if s else 0
    chk = None
    if s is not None and d is not None:
        import contextlib
        import io
        import check
        with contextlib.redirect_stdout(io.StringIO()):
            # check.main() gives every figure it checked; the report states the oracle rows'
            # totals (passed, differ, without a template or row).
            chk = tuple(check.main([])["oracle"])
    L = []
    w = L.append
    w("# transformers oracle")
    w("")
    w("Figures that the `transformers` library itself gives for every model type it can load as a")
    w("language model (or as a whole multimodal / speech / encoder-decoder checkpoint), used to check")
    w("`gpuprobe plan --model config.json` and to generate the parameter templates in")
    w("`tools/hf_oracle/generated/hf_structure.json`. Formats: `tools/hf_oracle/FORMAT.md`.")
    w("")
    w("**Synthetic, generated data.** `configs/<model_type>.json` are not copies of published")
    w("checkpoints: each is the default configuration of the model type's config class in")
    w("transformers %s, written by that library's `save_pretrained`. The figures in" % v["transformers"])
    w("`oracle.json` are computed by transformers/torch from those configurations (parameters counted")
    w("on the meta device; KV cache read from a real forward pass of a scaled-down model). transformers")
    w("is Apache-2.0 licensed (https://github.com/huggingface/transformers).")
    w("")
    w("## Versions")
    w("")
    w("| package | version |")
    w("|---|---|")
    for k in ("transformers", "torch", "python"):
        w("| %s | %s |" % (k, v[k]))
    w("")
    w("torch is the PyPI wheel, run on CPU only (no GPU is used or needed).")
    w("")
    w("## How to regenerate")
    w("")
    w("```sh")
    w("python3 -m venv .venv-oracle")
    w(".venv-oracle/bin/pip install torch==%s transformers==%s pillow timm torchvision" % (v["torch"], v["transformers"]))
    w("cd <repository root>")
    w("tools/hf_oracle/regenerate.sh        # every step, every type: several hours on 2 cores")
    w("# or one by one:")
    w(".venv-oracle/bin/python tools/hf_oracle/gen_defaults.py    # tools/hf_oracle/generated/hf_config_defaults.json")
    w(".venv-oracle/bin/python tools/hf_oracle/gen_oracle.py --jobs 2 [--kv-limit N]   # this folder")
    w(".venv-oracle/bin/python tools/hf_oracle/gen_structure.py --jobs 2 [--reuse] [--assemble]")
    w(".venv-oracle/bin/python tools/hf_oracle/gen_report.py      # this README")
    w("python3 tools/hf_oracle/test_expr.py    # the reference expression evaluator")
    w("python3 tools/hf_oracle/check.py        # templates vs oracle totals, from config.json alone")
    w("```")
    w("")
    w("Model types are processed in the priority order of `tools/hf_oracle/common.py` (`PRIORITY`:")
    w("the types gpuprobe supported by hand, then common recent ones, then the rest alphabetically).")
    w("Each type's result is cached in `tools/hf_oracle/.cache/` (not committed): `--reuse` continues")
    w("an interrupted run, `--assemble` writes the file from the types present.")
    if kv_limit is not None:
        if n_gen < n_all:
            w("The committed files come from a run limited in time: the KV probe ran for the first %d types"
              " (`gen_oracle.py --kv-limit %d`); the template fitting reached %d of %d types, the others are"
              " marked `not_generated` (`gen_structure.py --reuse --assemble`)." % (kv_limit, kv_limit, n_gen, n_all))
        else:
            w("The committed files come from runs limited in time: the KV probe ran for the first %d types"
              " (`gen_oracle.py --kv-limit %d`); the template fitting covers all %d types, in two runs (the"
              " second, `gen_structure.py TYPE...`, for the types the first run's budget did not reach; its"
              " per-type results merged into the file where they are no worse). A third run re-fitted the"
              " approximate types after the layer rules gained a repeated list (`cycle`), a run with a start"
              " and an end, and periods derived from the layer count; the types it made exact were merged"
              " (`merge_structure.py TYPE...`), the others kept." % (kv_limit, kv_limit, n_all))
    w("")
    w("Every random choice is seeded from the model type's name and outputs are written in sorted")
    w("order. A re-run with the same versions gives the same figures and templates except where a time")
    w("limit is reached (400 s of instantiations per type for the fitting, 300 s per instantiation,")
    w("120 s per forward probe), which depends on the machine's load. The committed templates were")
    w("generated while the fitter was still being refined (exact-length string rules, sizes tied to the")
    w("one key holding their value, nested-index names, key-equality conditions); a full re-run may")
    w("turn a few approximate templates exact and can change the bytes of others.")
    w("")
    if chk is not None:
        w("Check: evaluating each template on `configs/<model_type>.json` alone (the procedure of")
        w("FORMAT.md section 1, with `hf_config_defaults.json`) reproduces `total_params` for %d types;"
          " %d differ (all of them templates marked approximate); %d have no template or no oracle row." % chk)
        w("")
    w("## What transformers lists")
    w("")
    w("| auto mapping | model types |")
    w("|---|---|")
    for k, n in o["mapping_counts"].items():
        w("| MODEL_FOR_%s_MAPPING_NAMES | %s |" % (k, "not in this version" if n is None else n))
    w("")
    w("One row per model type (%d distinct types over these mappings). The class is the" % len(rows))
    w("`*ForConditionalGeneration` class where a mapping names one (the whole checkpoint: language")
    w("model + vision/audio towers + projector), otherwise the first mapping in the order")
    w("speech-seq2seq, image-text-to-text, multimodal-LM, seq2seq, causal-LM, masked-LM.")
    w("")
    st = Counter(r["status"] for r in rows.values())
    kv = Counter(r.get("kv_source") or "none" for r in rows.values() if r["status"] == "ok")
    w("## Results")
    w("")
    w("- oracle rows instantiated at the default config: **%d of %d** (failed: %d)" % (st["ok"], len(rows), st["failed"]))
    w("- KV cache per layer from a forward pass, expressions checked on a held-out config: **%d**;"
      " from a forward pass but not confirmed on the held-out config: %d; not obtained: %d"
      % (kv["forward"], kv["forward-unvalidated"], kv["none"]))
    if s is not None:
        ss = Counter(m["status"] for m in s["models"].values())
        w("- parameter templates (`tools/hf_oracle/generated/hf_structure.json`): **%d exact** (every validation config"
          " matched), %d approximate, %d failed, %d not generated in this run, of %d"
          % (ss["exact"], ss["approximate"], ss["failed"], ss["not_generated"], len(s["models"])))
    if d is not None:
        w("- config classes described in `tools/hf_oracle/generated/hf_config_defaults.json`: %d (model types and their"
          " sub-config types)" % len(d["classes"]))
    moe = [k for k, r in rows.items() if r.get("moe") and r["moe"].get("active_params")]
    w("- MoE rows with active parameters: %d" % len(moe))
    w("")
    w("### Oracle rows that failed")
    w("")
    w("| model_type | class | error |")
    w("|---|---|---|")
    for k, r in rows.items():
        if r["status"] != "ok":
            w("| %s | %s | %s |" % (k, r["class"], r["error"].replace("|", "/").replace("\n", " ")[:160]))
    w("")
    w("### KV cache not obtained")
    w("")
    w("| model_type | reason |")
    w("|---|---|")
    skipped = []
    for k, r in rows.items():
        if r["status"] == "ok" and r.get("kv_source") not in ("forward",):
            err = r.get("kv_error") or ""
            if "KV probe not run" in err:
                skipped.append(k)
                continue
            w("| %s | %s |" % (k, err.replace("|", "/").replace("\n", " ")[:160]))
    if skipped:
        w("")
        w("KV probe not run in this generation (`--kv-limit`; %d types): %s." % (len(skipped), ", ".join(skipped)))
    if s is not None:
        w("")
        w("### Templates that are not exact")
        w("")
        w("| model_type | status | first reason |")
        w("|---|---|---|")
        for k, m in s["models"].items():
            if m["status"] in ("approximate", "failed"):
                rs = m.get("reason") or [""]
                w("| %s | %s | %s |" % (k, m["status"], str(rs[0]).replace("|", "/").replace("\n", " ")[:160]))
        ng = [k for k, m in s["models"].items() if m["status"] == "not_generated"]
        if ng:
            w("")
            w("Not generated in this run (%d): %s." % (len(ng), ", ".join(ng)))
    w("")
    w("## How the figures are obtained")
    w("")
    w("- `total_params`: `sum(p.numel() for p in model.parameters())` on the meta device: tied")
    w("  weights are counted once. `persistent_buffers`: buffers kept in the state dict (not in")
    w("  `_non_persistent_buffers_set`), numel summed by name suffix; not included in `total_params`.")
    w("- `params_by_tower`: the tower rule of FORMAT.md (module-path patterns).")
    w("- `moe`: the routed expert count key and top-k key of the config; `routed_expert_params` sums")
    w("  tensors under `.experts.` (shared experts excluded); active = total - (E - k)/E x routed.")
    w("- `kv`: the model is scaled down (widths divided by a common power of two, at most 6 layers,")
    w("  at most 8 routed experts or top-k, vocabulary 512), run on CPU with `use_cache=True` at 5 and")
    w("  9 tokens, and the cache object's per-layer tensors are read (keys/values, sliding-window")
    w("  layers, linear-attention and Mamba states, encoder-decoder cross-attention). Per-token")
    w("  elements are the growth between the two lengths; what does not grow is a fixed state. The")
    w("  figures of each cache layer kind are fitted as expressions of the config over several scaled")
    w("  configs (widths x2, heads x2, kv heads /2, and, for states, each state-shaping key doubled),")
    w("  checked on a held-out scaled config, and evaluated at the row's config. The layer kinds are")
    w("  carried to the full layer count with the same rules as the templates (FORMAT.md).")
    w("- MLA (DeepSeek-style): `per_token` is `kv_lora_rank + qk_rope_head_dim`, which is also what")
    w("  transformers %s's cache holds (`hf_per_token`)." % v["transformers"])
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\n".join(L) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Split the transformers-derived model data into the files gpuprobe embeds.

The generator (tools/hf_oracle/) writes two large files: the parameter and cache templates of
every model type (hf_structure.json) and the config classes' defaults (hf_config_defaults.json),
a few MB together. `gpuprobe plan` needs one template and a few classes per config, so parsing
everything would cost more than the whole plan (its budget is 30 ms). This script writes:

    data/models/hf/index.json                 versions, null_derivations, model_type -> class,
                                              and per generated type its model class and status
    data/models/hf/structure/<model_type>.json   one template (FORMAT.md section 4)
    data/models/hf/defaults/<ConfigClass>.json   one class entry (FORMAT.md section 5)

Usage (stdlib only):
    tools/split_hf_data.py [--structure tools/hf_oracle/generated/hf_structure.json]
                           [--defaults tools/hf_oracle/generated/hf_config_defaults.json]
                           [--out data/models/hf]

The output is deterministic (sorted keys, compact separators) and the out directory is
rewritten whole, so re-running it after a regeneration gives exactly the new data.
"""

import argparse
import json
import os
import re
import shutil
import sys

SAFE = re.compile(r"^[A-Za-z0-9_.\-]+$")


def dump(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)
        f.write("\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--structure", default=os.path.join(here, "hf_oracle", "generated", "hf_structure.json"))
    ap.add_argument("--defaults", default=os.path.join(here, "hf_oracle", "generated", "hf_config_defaults.json"))
    ap.add_argument("--out", default=os.path.join(root, "data", "models", "hf"))
    args = ap.parse_args()

    with open(args.structure, encoding="utf-8") as f:
        structure = json.load(f)
    with open(args.defaults, encoding="utf-8") as f:
        defaults = json.load(f)

    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(os.path.join(args.out, "structure"))
    os.makedirs(os.path.join(args.out, "defaults"))

    templates = {}
    for model_type, tpl in sorted(structure.get("models", {}).items()):
        if not SAFE.match(model_type):
            sys.exit("split_hf_data: model_type %r is not a safe file name" % model_type)
        status = tpl.get("status", "")
        templates[model_type] = {"class": tpl.get("class", ""), "status": status}
        if status in ("exact", "approximate"):
            dump(os.path.join(args.out, "structure", model_type + ".json"), tpl)

    for cls, entry in sorted(defaults.get("classes", {}).items()):
        if not SAFE.match(cls):
            sys.exit("split_hf_data: class %r is not a safe file name" % cls)
        dump(os.path.join(args.out, "defaults", cls + ".json"), entry)

    index = {
        "format": 1,
        "about": "Model structure and config defaults generated from transformers by tools/hf_oracle/, "
                 "split by tools/split_hf_data.py: one template per model type (structure/), one entry "
                 "per config class (defaults/). Formats: tools/hf_oracle/FORMAT.md.",
        "versions": structure.get("versions", {}),
        "summary": structure.get("summary", {}),
        "null_derivations": structure.get("null_derivations", {}),
        "model_types": defaults.get("model_types", {}),
        "templates": templates,
    }
    dump(os.path.join(args.out, "index.json"), index)
    print("split_hf_data: %d templates (%d written), %d classes -> %s" % (
        len(templates), sum(1 for t in templates.values() if t["status"] in ("exact", "approximate")),
        len(defaults.get("classes", {})), args.out))


if __name__ == "__main__":
    main()

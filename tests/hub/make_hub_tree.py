#!/usr/bin/env python3
"""Writes Hub-shaped model trees for tests/hub/hub_server.py: real config.json and
model.safetensors.index.json files copied byte for byte from tests/fixtures/configs/, and for
each safetensors shard only its header (<shard>.header: the JSON header as the safetensors
library writes it, with each tensor's real name, dtype and shape); the server makes up the
weights as zeros when asked. Nothing here holds real weights.

  make_hub_tree.py fixtures OUT_DIR          the tree of tests/fixtures/hub_tree (committed)
  make_hub_tree.py bench OUT_DIR SHARDS      one model (Llama-3.1-70B's config) split into
                                             SHARDS shards, for tools/hub_bench.sh
"""
import json
import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "fixtures", "configs")
DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4}


def dtype_of(config, default):
    return {"bfloat16": "BF16", "float16": "F16", "float32": "F32"}.get(config.get("torch_dtype"), default)


def llama_shape(name, c):
    """The shape of a Llama-family tensor (Llama, Mistral, Gemma 2, Granite-7b) from its name."""
    h, a = c["hidden_size"], c["num_attention_heads"]
    k = c.get("num_key_value_heads") or a
    d = c.get("head_dim") or h // a
    f, v = c["intermediate_size"], c["vocab_size"]
    rules = [("embed_tokens.weight", [v, h]), ("lm_head.weight", [v, h]), ("q_proj.weight", [a * d, h]),
             ("k_proj.weight", [k * d, h]), ("v_proj.weight", [k * d, h]), ("o_proj.weight", [h, a * d]),
             ("gate_proj.weight", [f, h]), ("up_proj.weight", [f, h]), ("down_proj.weight", [h, f]),
             ("norm.weight", [h]), ("layernorm.weight", [h])]
    for suffix, shape in rules:
        if name.endswith(suffix):
            return shape
    raise ValueError("no shape rule for " + name)


def llama_names(c):
    names = ["model.embed_tokens.weight", "model.norm.weight"]
    if not c.get("tie_word_embeddings", False):
        names.append("lm_head.weight")
    for i in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % i
        names += [p + s for s in ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight",
                                  "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
                                  "mlp.down_proj.weight", "input_layernorm.weight", "post_attention_layernorm.weight")]
    return names


def gpt2_tensors(c):
    h, n, v, p = c["n_embd"], c["n_layer"], c["vocab_size"], c["n_positions"]
    f = c.get("n_inner") or 4 * h
    out = [("wte.weight", [v, h]), ("wpe.weight", [p, h]), ("ln_f.weight", [h]), ("ln_f.bias", [h])]
    for i in range(n):
        q = "h.%d." % i
        out += [(q + "ln_1.weight", [h]), (q + "ln_1.bias", [h]), (q + "attn.c_attn.weight", [h, 3 * h]),
                (q + "attn.c_attn.bias", [3 * h]), (q + "attn.c_proj.weight", [h, h]), (q + "attn.c_proj.bias", [h]),
                (q + "ln_2.weight", [h]), (q + "ln_2.bias", [h]), (q + "mlp.c_fc.weight", [h, f]),
                (q + "mlp.c_fc.bias", [f]), (q + "mlp.c_proj.weight", [f, h]), (q + "mlp.c_proj.bias", [h]),
                (q + "attn.bias", [1, 1, p, p])]  # the causal-mask buffer the real file stores
    return out


def header_bytes(tensors, dtype):
    """A safetensors header as the safetensors library writes it: compact JSON, data offsets
    in order, padded with spaces to a multiple of 8 bytes."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in tensors:
        n = 1
        for dim in shape:
            n *= dim
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n * DTYPE_BYTES[dtype]]}
        offset += n * DTYPE_BYTES[dtype]
    blob = json.dumps(header, separators=(",", ":")).encode()
    return blob + b" " * (-len(blob) % 8), offset


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def copy_config(name, repo_dir, as_name="config.json"):
    shutil.copyfile(os.path.join(CONFIGS, name), os.path.join(repo_dir, as_name))


def sharded_from_index(out, repo, fixture):
    """A repo whose config and index are real; one header per shard, from the index."""
    repo_dir = os.path.join(out, repo)
    os.makedirs(repo_dir, exist_ok=True)
    copy_config(fixture + ".config.json", repo_dir)
    copy_config(fixture + ".safetensors.index.json", repo_dir, "model.safetensors.index.json")
    config = json.load(open(os.path.join(repo_dir, "config.json")))
    index = json.load(open(os.path.join(repo_dir, "model.safetensors.index.json")))
    dtype = dtype_of(config, "BF16")
    shards = {}
    for tensor, shard in index["weight_map"].items():
        shards.setdefault(shard, []).append((tensor, llama_shape(tensor, config)))
    total = 0
    for shard, tensors in shards.items():
        blob, data = header_bytes(sorted(tensors), dtype)
        write(os.path.join(repo_dir, shard + ".header"), blob)
        total += data
    # The headers must describe exactly the checkpoint the real index describes.
    assert total == index["metadata"]["total_size"], (repo, total, index["metadata"]["total_size"])


def split(tensors, shards):
    """`shards` runs of tensors whose lengths differ by at most one."""
    base, extra = divmod(len(tensors), shards)
    out, start = [], 0
    for i in range(shards):
        end = start + base + (1 if i < extra else 0)
        out.append(tensors[start:end])
        start = end
    return out


def sharded_generated(out, repo, config_name, shards):
    repo_dir = os.path.join(out, repo)
    os.makedirs(repo_dir, exist_ok=True)
    copy_config(config_name, repo_dir)
    config = json.load(open(os.path.join(repo_dir, "config.json")))
    dtype = dtype_of(config, "BF16")
    tensors = [(n, llama_shape(n, config)) for n in llama_names(config)]
    weight_map, total = {}, 0
    for s, part in enumerate(split(tensors, shards)):
        shard = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        blob, data = header_bytes(part, dtype)
        write(os.path.join(repo_dir, shard + ".header"), blob)
        total += data
        for name, _ in part:
            weight_map[name] = shard
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    write(os.path.join(repo_dir, "model.safetensors.index.json"), json.dumps(index, indent=2) + "\n")


TINY_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 1000,
    "max_position_embeddings": 2048, "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}


def tiny(out, repo, quirks=None, config=None, header=None, index=None):
    """A synthetic two-layer Llama as one model.safetensors, with the server quirks given."""
    repo_dir = os.path.join(out, repo)
    os.makedirs(repo_dir, exist_ok=True)
    write(os.path.join(repo_dir, "config.json"), config if config is not None else json.dumps(TINY_CONFIG, indent=2) + "\n")
    if index is not None:
        write(os.path.join(repo_dir, "model.safetensors.index.json"), index)
    if header is not False:
        if header is None:
            tensors = [(n, llama_shape(n, TINY_CONFIG)) for n in llama_names(TINY_CONFIG)]
            header, _ = header_bytes(tensors, "BF16")
        write(os.path.join(repo_dir, "model.safetensors.header"), header)
    if quirks:
        write(os.path.join(repo_dir, "_repo.json"), json.dumps(quirks, indent=2, sort_keys=True) + "\n")


def fixtures(out):
    if os.path.isdir(out):
        for entry in os.listdir(out):
            if entry not in ("README.md",):
                path = os.path.join(out, entry)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    # Real configs and indexes (sources: tests/fixtures/configs/SOURCES.md).
    sharded_from_index(out, "instructlab/granite-7b-lab", "instructlab--granite-7b-lab")
    sharded_from_index(out, "google/gemma-2-2b-it", "google--gemma-2-2b-it")
    # Gemma is gated on the Hub: this copy answers only to the test token, and sends its
    # weights from another host name, as the Hub sends them from its CDN.
    write(os.path.join(out, "google/gemma-2-2b-it/_repo.json"),
          json.dumps({"cdn_host": "localhost", "gated_token": "hf_gpuprobe_test_token"}, indent=2) + "\n")
    gpt2 = os.path.join(out, "openai-community/gpt2")
    os.makedirs(gpt2, exist_ok=True)
    copy_config("openai-community--gpt2.config.json", gpt2)
    blob, _ = header_bytes(gpt2_tensors(json.load(open(os.path.join(gpt2, "config.json")))), "F32")
    write(os.path.join(gpt2, "model.safetensors.header"), blob)
    # Synthetic repositories, each with one way a server or a file can go wrong.
    tiny(out, "gpuprobe-test/tiny-llama")
    tiny(out, "gpuprobe-test/no-repo-commit", quirks={"no_repo_commit": True})
    tiny(out, "gpuprobe-test/truncated-file", quirks={"file_size": {"model.safetensors": 200}})
    tiny(out, "gpuprobe-test/cut-connection", quirks={"drop_after": 50})
    tiny(out, "gpuprobe-test/hostile-header-length", quirks={"header_length": {"model.safetensors": 2 ** 60}})
    tiny(out, "gpuprobe-test/ignores-range", quirks={"ignore_range": True, "file_size": {"model.safetensors": 2 ** 30}})
    tiny(out, "gpuprobe-test/redirect-loop", quirks={"redirect_loop": True})
    tiny(out, "gpuprobe-test/stall", quirks={"stall": True})
    tiny(out, "gpuprobe-test/malformed-config", config='{"model_type": "llama", "hidden_size": 64,\n  "num_hidden_layers": \n')
    tiny(out, "gpuprobe-test/malformed-header", header=b'{"model.norm.weight": {"dtype": "BF16", "shape": [64], ' + b" " * 6)
    tiny(out, "gpuprobe-test/hostile-index", header=False,
         index=json.dumps({"metadata": {}, "weight_map": {"model.norm.weight": "../../../etc/passwd.safetensors"}}))
    tiny(out, "gpuprobe-test/no-safetensors", header=False)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "fixtures":
        fixtures(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "bench":
        sharded_generated(sys.argv[2], "meta-llama/Llama-3.1-70B", "meta-llama--llama-3.1-70b.config.json",
                          int(sys.argv[3]))
    else:
        sys.exit(__doc__)

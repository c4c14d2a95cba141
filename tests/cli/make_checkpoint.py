#!/usr/bin/env python3
"""Writes synthetic checkpoints for the plan CLI tests: safetensors files whose headers carry
a real model's tensor names and shapes, with the data section left as a sparse hole (no
weights are written or read), optionally inside a Hugging Face Hub cache layout; or a small
GGUF file with llama metadata and tensor infos.

  make_checkpoint.py safetensors CONFIG OUT_DIR SHARDS [--hub-cache ROOT REPO_ID]
  make_checkpoint.py gguf OUT_FILE
"""
import json
import os
import struct
import sys

DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4}


def llama_tensors(c):
    h, L, a = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    k = c.get("num_key_value_heads", a)
    d = c.get("head_dim") or h // a
    f, V = c["intermediate_size"], c["vocab_size"]
    out = [("model.embed_tokens.weight", [V, h]), ("model.norm.weight", [h])]
    if not c.get("tie_word_embeddings", False):
        out.append(("lm_head.weight", [V, h]))
    for i in range(L):
        p = f"model.layers.{i}."
        out += [(p + "self_attn.q_proj.weight", [a * d, h]), (p + "self_attn.k_proj.weight", [k * d, h]),
                (p + "self_attn.v_proj.weight", [k * d, h]), (p + "self_attn.o_proj.weight", [h, a * d]),
                (p + "mlp.gate_proj.weight", [f, h]), (p + "mlp.up_proj.weight", [f, h]),
                (p + "mlp.down_proj.weight", [h, f]), (p + "input_layernorm.weight", [h]),
                (p + "post_attention_layernorm.weight", [h]),
                # Old checkpoints also store the rotary buffer; it is not a parameter.
                (p + "self_attn.rotary_emb.inv_freq", [d // 2])]
    return out


def gpt2_tensors(c):
    h, L, V, P = c["n_embd"], c["n_layer"], c["vocab_size"], c["n_positions"]
    f = c.get("n_inner") or 4 * h
    out = [("wte.weight", [V, h]), ("wpe.weight", [P, h]), ("ln_f.weight", [h]), ("ln_f.bias", [h])]
    for i in range(L):
        p = f"h.{i}."
        out += [(p + "ln_1.weight", [h]), (p + "ln_1.bias", [h]), (p + "attn.c_attn.weight", [h, 3 * h]),
                (p + "attn.c_attn.bias", [3 * h]), (p + "attn.c_proj.weight", [h, h]), (p + "attn.c_proj.bias", [h]),
                (p + "ln_2.weight", [h]), (p + "ln_2.bias", [h]), (p + "mlp.c_fc.weight", [h, f]),
                (p + "mlp.c_fc.bias", [f]), (p + "mlp.c_proj.weight", [f, h]), (p + "mlp.c_proj.bias", [h]),
                (p + "attn.bias", [1, 1, P, P])]  # the causal-mask buffer the real gpt2 file stores
    return out


def write_safetensors(path, tensors, dtype):
    header, offset = {}, 0
    for name, shape in tensors:
        n = 1
        for dim in shape:
            n *= dim
        size = n * DTYPE_BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    blob = json.dumps(header).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        f.truncate(8 + len(blob) + offset)  # a sparse hole where the weights would be


def safetensors(config_path, out_dir, shards, hub):
    config = json.load(open(config_path))
    tensors = gpt2_tensors(config) if config.get("model_type") == "gpt2" else llama_tensors(config)
    dtype = {"float32": "F32", "float16": "F16"}.get(config.get("torch_dtype"), "BF16")
    if hub:
        root, repo = hub
        base = os.path.join(root, "models--" + repo.replace("/", "--"))
        os.makedirs(os.path.join(base, "refs"), exist_ok=True)
        open(os.path.join(base, "refs", "main"), "w").write("0123456789abcdef\n")
        out_dir = os.path.join(base, "snapshots", "0123456789abcdef")
    os.makedirs(out_dir, exist_ok=True)
    json.dump(config, open(os.path.join(out_dir, "config.json"), "w"))
    per = (len(tensors) + shards - 1) // shards
    for s in range(shards):
        name = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(out_dir, name), tensors[s * per:(s + 1) * per], dtype)


def gguf(out_file):
    def s(text):
        b = text.encode()
        return struct.pack("<Q", len(b)) + b
    kv = [("general.architecture", 8, s("llama")), ("llama.block_count", 4, struct.pack("<I", 2)),
          ("llama.embedding_length", 4, struct.pack("<I", 256)), ("llama.feed_forward_length", 4, struct.pack("<I", 512)),
          ("llama.attention.head_count", 4, struct.pack("<I", 4)), ("llama.attention.head_count_kv", 4, struct.pack("<I", 2)),
          ("llama.context_length", 4, struct.pack("<I", 4096)), ("llama.vocab_size", 4, struct.pack("<I", 1000))]
    # (name, dims [in, out], ggml type): Q4_K=12, Q6_K=14, F32=0
    tensors = [("token_embd.weight", [256, 1000], 14), ("output_norm.weight", [256], 0), ("output.weight", [256, 1000], 14)]
    for i in range(2):
        p = f"blk.{i}."
        tensors += [(p + "attn_q.weight", [256, 256], 12), (p + "attn_k.weight", [256, 128], 12),
                    (p + "attn_v.weight", [256, 128], 12), (p + "attn_output.weight", [256, 256], 12),
                    (p + "ffn_gate.weight", [256, 512], 12), (p + "ffn_up.weight", [256, 512], 12),
                    (p + "ffn_down.weight", [512, 256], 12), (p + "attn_norm.weight", [256], 0),
                    (p + "ffn_norm.weight", [256], 0)]
    sizes = {12: (256, 144), 14: (256, 210), 0: (1, 4)}
    body = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, kind, value in kv:
        body += s(key) + struct.pack("<I", kind) + value
    offset = 0
    for name, dims, kind in tensors:
        body += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        body += struct.pack("<IQ", kind, offset)
        n = 1
        for d in dims:
            n *= d
        block, size = sizes[kind]
        offset += (n // block * size + 31) // 32 * 32
    body += b"\0" * (-len(body) % 32)
    with open(out_file, "wb") as f:
        f.write(body)
        f.truncate(len(body) + offset)


if __name__ == "__main__":
    if sys.argv[1] == "gguf":
        gguf(sys.argv[2])
    else:
        hub = sys.argv[6:8] if len(sys.argv) > 5 and sys.argv[5] == "--hub-cache" else None
        safetensors(sys.argv[2], sys.argv[3], int(sys.argv[4]), hub)

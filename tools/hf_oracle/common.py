"""Shared helpers for the transformers oracle generators.

Everything here runs on the developer's machine with torch + transformers installed
(see README in tests/fixtures/transformers_oracle/). Nothing is used at run time.
"""
from __future__ import annotations

import contextlib
import copy
import inspect
import io
import json
import logging
import math
import os
import re
import signal
import sys
import warnings
import zlib

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import CONFIG_MAPPING  # noqa: E402
from transformers.models.auto import modeling_auto  # noqa: E402

transformers.logging.set_verbosity_error()
logging.getLogger("transformers").setLevel(logging.ERROR)
torch.set_num_threads(1)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The mappings enumerated, in the order used to pick one class per model_type.
MAPPINGS = [
    "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES",
    "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
    "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES",
    "MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES",
    "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
]


# Model types done first (the ones gpuprobe supports by hand today, and the common recent ones).
PRIORITY = """llama mistral mixtral qwen2 qwen2_moe qwen3 qwen3_moe qwen3_next qwen2_5_vl qwen2_vl qwen3_vl
qwen3_vl_moe gemma gemma2 gemma3 gemma3_text gemma3n deepseek_v2 deepseek_v3 deepseek_v32 kimi_k2 gpt_oss
jamba mamba mamba2 nemotron_h nemotron lfm2 lfm2_moe t5 whisper llava llava_next mllama llama4 phi phi3 phimoe
olmo olmo2 olmo3 olmoe granite granitemoe granitemoehybrid granitemoeshared falcon falcon_h1 falcon_mamba
gpt2 gpt_neox gpt_bigcode starcoder2 cohere cohere2 glm glm4 glm4_moe glm4v chatglm internlm2 minicpm
stablelm baichuan bert roberta bart mbart mt5 pixtral mistral3 paligemma idefics3 smolvlm internvl
ernie4_5 ernie4_5_moe hunyuan_v1_dense hunyuan_v1_moe exaone4 seed_oss dots1 minimax zamba2 bamba
hymba smollm3 apertus arcee""".split()


def priority_sorted(rows):
    order = {mt: i for i, mt in enumerate(PRIORITY)}
    return sorted(rows, key=lambda r: (order.get(r["model_type"], len(order)), r["model_type"]))


def versions() -> dict:
    return {"transformers": transformers.__version__, "torch": torch.__version__.split("+")[0],
            "python": "%d.%d" % sys.version_info[:2]}


def short(name: str) -> str:
    return name.replace("MODEL_FOR_", "").replace("_MAPPING_NAMES", "")


def enumerate_types() -> tuple[list[dict], dict]:
    """One row per model_type: the class a user loads for the whole checkpoint.

    Rule: a class named *ForConditionalGeneration wins (first in MAPPINGS order);
    otherwise the first mapping in MAPPINGS order that lists the type."""
    per_type: dict[str, dict] = {}
    counts = {}
    for m in MAPPINGS:
        d = getattr(modeling_auto, m, None)
        if d is None:
            counts[short(m)] = None
            continue
        counts[short(m)] = len(d)
        for mt, cls in d.items():
            if isinstance(cls, (list, tuple)):
                cls = cls[0]
            per_type.setdefault(mt, {})[short(m)] = cls
    rows = []
    for mt in sorted(per_type):
        maps = per_type[mt]
        chosen = None
        for m in MAPPINGS:
            c = maps.get(short(m))
            if c and c.endswith("ForConditionalGeneration"):
                chosen = (short(m), c)
                break
        if chosen is None:
            for m in MAPPINGS:
                if short(m) in maps:
                    chosen = (short(m), maps[short(m)])
                    break
        rows.append({"model_type": mt, "class": chosen[1], "mapping": chosen[0],
                     "mappings": sorted(maps)})
    return rows, counts


def model_class(name: str):
    return getattr(transformers, name)


# ---------------------------------------------------------------- configs

BASE_KEYS = set(inspect.signature(transformers.PretrainedConfig.__init__).parameters) | {
    "self", "kwargs", "transformers_version", "architectures", "output_hidden_states", "return_dict",
    "dtype", "torch_dtype", "chunk_size_feed_forward", "id2label", "label2id", "problem_type",
    "output_attentions", "use_return_dict", "_name_or_path", "_attn_implementation_autoset",
    "_attn_implementation_internal", "_experts_implementation_internal",
}
# Keys that never influence shapes: token ids, regularisation and run-time switches. Every other
# integer (and boolean) attribute of a config is probed by the fitter, whatever its name suggests
# (vision_output_dim, subsampling_factor, scale_factor... are sizes).
NON_STRUCT_RE = re.compile(
    r"(_token_id$|_token_ids$|token_index$|^id2label|^label2id|dropout|_prob$|^seed$|^num_beams$|"
    r"^use_cache$|^output_attentions$|^output_hidden_states$|^output_router_logits$|^return_dict$|"
    r"^use_return_dict$|eps$|epsilon|initializer|init_std|loss|coefficient|temperature|layerdrop)")
# Keys left out of the defaults table when their value is not an integer (documentation-only,
# tokenizer, generation or training values; integers are kept unless NON_STRUCT_RE says otherwise).
NOISE_RE = re.compile(
    r"(_token_id|_token_ids|_token_index|token_id$|_id$|^id2label|^label2id|dropout|_prob$|eps$|epsilon|"
    r"initializer|init_std|_range$|loss|coef|aux_|temperature|suppress_tokens|forced_|num_beams|"
    r"length_penalty|repetition|^use_cache$|output_|return_dict|logit|factor$|^seed$|_scale$|^scale|"
    r"layerdrop|^mask_|alpha$|beta$|theta)")


def sig_params(cfg_cls) -> dict:
    out = {}
    try:
        sig = inspect.signature(cfg_cls.__init__)
    except (TypeError, ValueError):
        return out
    for k, p in sig.parameters.items():
        if k in BASE_KEYS or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        out[k] = p.default if p.default is not inspect.Parameter.empty else None
    return out


def sub_config_keys(cfg) -> dict:
    """key -> sub config object for the nested configs of a composite config."""
    out = {}
    for k in list(getattr(type(cfg), "sub_configs", {}) or {}):
        try:
            v = getattr(cfg, k, None)
        except Exception:  # noqa: BLE001
            continue
        if isinstance(v, transformers.PretrainedConfig):
            out[k] = v
    # some composites keep nested configs outside sub_configs
    for k, v in vars(cfg).items():
        if k not in out and isinstance(v, transformers.PretrainedConfig):
            out[k] = v
    return out


def jsonable(v):
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, transformers.PretrainedConfig):
        return jsonable(v.to_dict())
    if isinstance(v, torch.dtype):
        return str(v).replace("torch.", "")
    return str(v)


def essential_kwargs(cfg) -> dict:
    """Constructor kwargs that rebuild cfg while letting __init__ derive what it derives.

    Keeps signature parameters whose value differs from the signature default, except
    those whose signature default is None (derived in __init__: head_dim, layer_types...),
    which are left for __init__ to recompute. Sub-configs recurse (with model_type)."""
    cls = type(cfg)
    sig = sig_params(cls)
    subs = sub_config_keys(cfg)
    out = {}
    try:
        serial = cfg.to_dict()
    except Exception:  # noqa: BLE001
        serial = {}
    for k, d in sig.items():
        if k in subs:
            continue
        try:
            if not hasattr(cfg, k):
                continue
            v = getattr(cfg, k)
        except Exception:  # noqa: BLE001
            # per-layer attributes of heterogeneous configs refuse a global read: take the
            # value the config serialises
            if k not in serial:
                continue
            v = serial[k]
        if d is None:
            continue
        if isinstance(v, transformers.PretrainedConfig):
            continue
        if jsonable(v) != jsonable(d):
            out[k] = copy.deepcopy(v)
    for k, sc in subs.items():
        kw = essential_kwargs(sc)
        kw["model_type"] = sc.model_type
        out[k] = kw
    return out


def build_config(model_type: str, kwargs: dict):
    cls = CONFIG_MAPPING[model_type]
    kw = copy.deepcopy(kwargs)
    return cls(**kw)


def default_config(model_type: str):
    return CONFIG_MAPPING[model_type]()


# Dicts whose key ends in "config" but that are not sub-configs: per-layer overrides of a
# heterogeneous config ({layer index: {attribute: value}}), kept as one value.
NOT_SUB_CONFIGS = {"per_layer_config"}


def flat_values(d: dict, prefix: str = "") -> dict:
    """Flatten a to_dict() into dotted keys (ints, bools, strings, lists kept as is)."""
    out = {}
    for k, v in d.items():
        key = prefix + k
        if isinstance(v, dict) and ("model_type" in v or k.endswith("config")) and k not in NOT_SUB_CONFIGS:
            out.update(flat_values(v, key + "."))
        else:
            out[key] = v
    return out


def config_dict(cfg) -> dict:
    d = cfg.to_dict()
    d.pop("transformers_version", None)
    return d


# Derivations applied where a key is missing or null, at every config level (FORMAT.md).
NULL_DERIVATIONS = [
    ("head_dim", "hidden_size // num_attention_heads"),
    ("num_key_value_heads", "num_attention_heads"),
]


def augment_env(env: dict) -> dict:
    from expr import eval_expr
    env = dict(env)
    prefixes = {""} | {k.rsplit(".", 1)[0] + "." for k in env if "." in k}
    for pre in sorted(prefixes):
        for key, ex in NULL_DERIVATIONS:
            if env.get(pre + key) is None:
                scoped = {k[len(pre):]: v for k, v in env.items() if k.startswith(pre)}
                try:
                    env[pre + key] = eval_expr(ex, scoped)
                except Exception:  # noqa: BLE001
                    pass
    return env


_LEGACY = None
# Dotted keys config_env() added from legacy_keys (never used as a layer-kind rule's key: the
# canonical per-layer list is always there, and the defaults derive it from these).
LEGACY_ENV_KEYS = set()


def legacy_table() -> dict:
    """config class -> legacy_keys of the generated defaults table (gen_defaults.py runs first)."""
    global _LEGACY
    if _LEGACY is None:
        _LEGACY = {}
        path = os.path.join(REPO, "tools", "hf_oracle", "generated", "hf_config_defaults.json")
        if os.path.exists(path):
            with open(path) as f:
                for cls, ent in json.load(f).get("classes", {}).items():
                    aliases = ent.get("attribute_map") or {}
                    keys = {k: v for k, v in (ent.get("legacy_keys") or {}).items() if k not in aliases}
                    if keys:
                        _LEGACY[cls] = keys
    return _LEGACY


def config_env(cfg, kwargs=None) -> dict:
    """The environment a template is fitted on: to_dict() flattened, null derivations, and at each
    config level the keys the class reads from **kwargs (legacy_keys of the defaults table) with
    the value given in kwargs, else their default -- as gpuprobe fills them from a config.json."""
    env = flat_values(config_dict(cfg))
    table = legacy_table()

    def walk(obj, kw, prefix, depth):
        if depth > 4 or obj is None:
            return
        for key, ent in table.get(type(obj).__name__, {}).items():
            if prefix + key in env:
                continue
            v = kw.get(key) if isinstance(kw, dict) and key in kw else ent.get("default")
            # null too: the fitter then probes it like an optional size
            env[prefix + key] = v
            LEGACY_ENV_KEYS.add(prefix + key)
        for k, sub in sub_config_keys(obj).items():
            walk(sub, kw.get(k) if isinstance(kw, dict) else None, prefix + k + ".", depth + 1)
    walk(cfg, kwargs or {}, "", 0)
    return augment_env(env)


def null_repairs(cfg) -> dict:
    """{dotted key: value} for the keys that are null in cfg and that NULL_DERIVATIONS computes
    (head_dim, num_key_value_heads): what a config.json of this type states and the class's
    default leaves unset, so that a default config the model class refuses can still be built
    (the environment of FORMAT.md section 1 derives the same values)."""
    from expr import eval_expr
    raw = flat_values(config_dict(cfg))
    out = {}
    prefixes = {""} | {k.rsplit(".", 1)[0] + "." for k in raw if "." in k}
    for pre in sorted(prefixes):
        scoped = {k[len(pre):]: v for k, v in raw.items() if k.startswith(pre)}
        for key, ex in NULL_DERIVATIONS:
            if key in scoped and scoped[key] is None:
                try:
                    out[pre + key] = eval_expr(ex, scoped)
                    scoped[key] = out[pre + key]
                except Exception:  # noqa: BLE001
                    pass
    return out


def with_values(kwargs: dict, values: dict) -> dict:
    kw = copy.deepcopy(kwargs)
    for path, v in values.items():
        cur = kw
        parts = path.split(".")
        for p in parts[:-1]:
            if not isinstance(cur.get(p), dict):
                cur[p] = {}
            cur = cur[p]
        cur[parts[-1]] = v
    return kw


def int_vars(cfg) -> dict:
    return {k: v for k, v in flat_values(config_dict(cfg)).items()
            if isinstance(v, int) and not isinstance(v, bool)}


# ---------------------------------------------------------------- instantiation

class Timeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int):
    def handler(signum, frame):
        raise Timeout("timed out after %ds" % seconds)
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def quiet():
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


_INIT_FNS = ["uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
             "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
             "sparse_", "_no_grad_uniform_", "_no_grad_normal_", "_no_grad_trunc_normal_", "_no_grad_fill_",
             "_no_grad_zero_"]


@contextlib.contextmanager
def no_init():
    """Weight initialisation is irrelevant on the meta device: skip it (shapes are unchanged)."""
    saved = {}
    for n in _INIT_FNS:
        if hasattr(torch.nn.init, n):
            saved[n] = getattr(torch.nn.init, n)
            setattr(torch.nn.init, n, lambda *a, **k: a[0] if a else k.get("tensor"))
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(torch.nn.init, n, f)


def instantiate_meta(cls_name: str, cfg):
    cls = model_class(cls_name)
    with quiet(), no_init(), torch.device("meta"):
        model = cls(cfg)
    return model


def persistent_buffers(model):
    out = []
    for mname, mod in model.named_modules():
        for bname, b in mod._buffers.items():
            if b is None or bname in mod._non_persistent_buffers_set:
                continue
            out.append(((mname + "." if mname else "") + bname, b))
    seen = set()
    res = []
    for n, b in out:
        if id(b) in seen:
            continue
        seen.add(id(b))
        res.append((n, b))
    return res


def tensor_list(model) -> list[tuple[str, tuple, bool]]:
    """Stored tensors: parameters (ties deduplicated) and persistent buffers."""
    out = [(n, tuple(p.shape), False) for n, p in model.named_parameters()]
    out += [(n, tuple(b.shape), True) for n, b in persistent_buffers(model)]
    return out


def numel(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


# ---------------------------------------------------------------- towers and roles

VISION_RE = re.compile(r"(vision|visual|image|vit$|^vpm$|patch_embed|siglip|^clip|pixel|img|video)")
AUDIO_RE = re.compile(r"(audio|speech|whisper|mel|acoustic|sound|^wav)")
PROJ_RE = re.compile(r"(projector|multi_modal|mm_proj|^merger$|connector|adapter|aligner|^mlp1$|"
                     r"resampler|perceiver|abstractor|^mm_|mm_input_projection|embed_vision|embed_audio|"
                     r"vision_proj|audio_proj|^proj$)")
LM_RE = re.compile(r"^(language_model|text_model|lm_head|embed_tokens|text_decoder|llm|decoder|model)$")
SPEECH_ENCODER_MAPPINGS = {"SPEECH_SEQ_2_SEQ"}


def tower_of(name: str, mapping: str, has_lm_module: bool) -> str:
    """Tower of a tensor from its module path. The first path component that matches a
    projector, vision or audio pattern decides (in that order of test per component);
    for speech sequence-to-sequence models the `encoder` component is the audio tower;
    a path under `language_model`/`text_model` is the language model; anything else is
    the language model, unless the model has an explicit language_model/text_model
    submodule, in which case it is `other`."""
    parts = name.split(".")
    for p in parts[:-1]:
        pl = p.lower()
        if re.fullmatch(r"\d+", pl):
            continue
        if pl in ("language_model", "text_model", "llm", "text_decoder"):
            return "language_model"
        if PROJ_RE.search(pl):
            return "projector"
        if VISION_RE.search(pl):
            return "vision"
        if AUDIO_RE.search(pl):
            return "audio"
        if mapping in SPEECH_ENCODER_MAPPINGS and pl == "encoder":
            return "audio"
    if parts[0] in ("lm_head",) or not has_lm_module:
        return "language_model"
    return "other"


def has_lm_module(names) -> bool:
    for n in names:
        for p in n.split(".")[:-1]:
            if p in ("language_model", "text_model", "llm", "text_decoder"):
                return True
    return False


def role_of(name: str, tower: str) -> str:
    if tower in ("vision", "audio", "projector"):
        return tower
    n = name.lower()
    parts = n.split(".")
    last = parts[-2] if len(parts) > 1 else parts[0]
    if "shared_expert" in n:
        return "shared_expert"
    if ".experts." in n or n.endswith(".experts") or re.search(r"experts?\.(gate_up_proj|down_proj|w1|w2|w3)", n) \
            or ".experts_" in n:
        return "expert"
    if re.search(r"(router|\.gate\.weight$|\.gate\.e_score|e_score_correction|\.gate\.bias$|moe_gate|switch_mlp\.gate)", n):
        return "router"
    if re.search(r"(^|\.)(lm_head|embed_out|output_projection|proj_out)\.", n) or n.startswith("lm_head"):
        return "lm_head"
    if re.search(r"(embed_positions|wpe|position_embedding|pos_emb|positional|relative_attention_bias)", n):
        return "position"
    if re.search(r"(embed_tokens|wte|word_embeddings|embed_in|tok_embeddings|^shared\.|\.shared\.|embedding)", n):
        return "embedding"
    if re.search(r"(norm|ln_|_ln|layernorm|layer_norm)", last) or re.search(r"norm\.(weight|bias)$", n):
        return "norm"
    if re.search(r"(mamba|mixer|ssm|linear_attn|conv1d|a_log|dt_bias|\.d$|time_mix|recurrent|short_conv|\.conv\.)", n):
        return "ssm"
    if re.search(r"(attn|attention|q_proj|k_proj|v_proj|o_proj|qkv|query|key|value|c_attn)", n):
        return "attention"
    if re.search(r"(mlp|feed_forward|ffn|fc1|fc2|dense|densereludense|intermediate|up_proj|down_proj|gate_proj|c_fc|c_proj)", n):
        return "mlp"
    return "other"


def stable_seed(*parts) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode()) & 0x7FFFFFFF


def dump_json(obj, path, compact_lists=True):
    txt = json.dumps(obj, indent=1, sort_keys=False, ensure_ascii=False)
    if compact_lists:
        # put short lists of scalars on one line
        def join(m):
            inner = re.sub(r"\s*\n\s*", " ", m.group(0))
            return inner.replace("[ ", "[").replace(" ]", "]")
        txt = re.sub(r"\[[^\[\]{}]*\]", join, txt)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(txt + "\n")

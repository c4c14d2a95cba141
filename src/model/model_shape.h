// ModelShape: the dimensions of a model that memory and speed depend on, whatever they were
// read from (a Hugging Face config.json, a checkpoint's headers, the catalogue or flags).
//
// A shape has two parts. The summary fields (hidden size, layers, heads, ...) describe a
// representative layer; the activation, LoRA and throughput formulas use them. The per-layer
// list (`layers`) is what parameter counts and KV-cache sizes are computed from: each family's
// recipe (model/families/) fills it from the modelling code's structure, so a model whose
// layers differ (DeepSeek's dense first layers, Gemma's sliding/global mix, Jamba's mamba and
// attention layers) is counted layer by layer. A shape built by hand with an empty `layers`
// is counted as a llama-style decoder from its summary fields (BuildUniformLayers).
//
// Parameter figures are held in double: every one is an integer below 2^53 once ValidateShape
// has accepted the shape (totals are capped at 1e15), so the arithmetic is exact there, and
// an absurd config overflows nothing before it is refused.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuprobe::model {

/// Norm parameters per norm: RMSNorm (or a bias-free LayerNorm) h, LayerNorm 2h, none 0 (OLMo).
enum class NormKind { kRms, kLayer, kNone };

/// Something the user must know about a count, as a stable id plus data (field names,
/// figures); the view words it from the text catalogue (key "plan.note.<id>").
struct ShapeNote {
  std::string id;      ///< "generic_decoder", "vision_not_counted", "vision_counted", "mtp_stored", ...
  std::string detail;  ///< data for the text: field names, a count; never a sentence
};

/// How a layer mixes tokens, which decides what it caches per token.
enum class MixerKind {
  kFullAttention,     ///< K and V of every token
  kSlidingAttention,  ///< K and V of the last `window` tokens
  kMla,               ///< DeepSeek multi-head latent attention: one compressed latent per token
  kSsm,               ///< Mamba: a fixed-size state per sequence, nothing per token
  kNone,              ///< no cache of its own (an MLP-only layer, an encoder layer)
};

/// "full_attention", "sliding_attention", "mla", "ssm", "none".
const char* MixerKindName(MixerKind kind);

/// How a pre-quantised checkpoint stores its linear weights (config.json's
/// quantization_config, or MLX's quantization): bits per weight plus the scales and zero points
/// amortised over each group (docs/plan.md, 'Pre-quantised checkpoints').
/// Modules a quantised checkpoint leaves in 16 bits, read from its ignore list
/// (compressed-tensors' `ignore`, transformers' `modules_to_not_convert`, ModelOpt's
/// `exclude_modules`) by what each pattern names, not by its spelling: the layers per module
/// kind ("model.layers.*.self_attn": the mixer of every layer).
struct QuantKept {
  /// Which layers a pattern names: "" every layer, "12" layer 12, "1*" a glob (1, 10-19, 100...).
  using Layers = std::vector<std::string>;
  Layers attention;  ///< the token mixer: attention, MLA, linear attention, SSM
  Layers mlp;        ///< the whole MLP block: dense MLP, shared and routed experts
  Layers shared;     ///< shared experts only
  Layers layers;     ///< whole layers ("model.layers.0*")
  bool towers = false;  ///< vision / audio towers and their projectors
  int patterns = 0;     ///< patterns read
  int unread = 0;       ///< patterns naming nothing recognised (their modules stay counted as quantised)

  static bool Covers(const Layers& set, std::int64_t layer) {
    const std::string index = std::to_string(layer);
    for (const std::string& s : set) {
      if (s.empty() || s == index) return true;
      if (s.back() == '*' && index.compare(0, s.size() - 1, s, 0, s.size() - 1) == 0) return true;
    }
    return false;
  }
  bool Empty() const { return attention.empty() && mlp.empty() && shared.empty() && layers.empty() && !towers; }
};

struct WeightQuant {
  std::string method;               ///< "fp8", "gptq", "awq", "bitsandbytes", "compressed-tensors", "mlx", "mxfp4", "modelopt"
  double bits = 16;                 ///< bits per stored weight element
  std::int64_t group_size = 0;      ///< weights per scale group; 0: per tensor or per channel
  double overhead_bits = 0;         ///< scale + zero bits per weight, amortised over the group
  bool embeddings_quantized = false;  ///< MLX quantises the embedding and head too
  std::string detail;               ///< the fields read, as data: "bits=4 group_size=128 zero=yes"
  QuantKept kept;                   ///< modules the ignore list leaves in 16 bits

  double BytesPerWeight() const { return (bits + overhead_bits) / 8.0; }
};

/// One layer, counted. Parameter fields are exact integers held in double (see above).
struct LayerShape {
  MixerKind mixer = MixerKind::kFullAttention;
  std::int64_t kv_heads = 0;       ///< K/V heads cached (attention layers)
  std::int64_t k_head_dim = 0;     ///< elements per K head
  std::int64_t v_head_dim = 0;     ///< elements per V head
  std::int64_t window = 0;         ///< tokens kept by a sliding-window layer
  std::int64_t latent_dim = 0;     ///< MLA: kv_lora_rank + qk_rope_head_dim elements per token
  double ssm_state_elements = 0;   ///< SSM: conv + recurrent state elements per sequence
  /// Cross-attention K and V of the encoder's output, per sequence (encoder-decoders): fixed
  /// by the encoder's length, not by the tokens generated.
  double cross_kv_elements = 0;

  double mixer_params = 0;         ///< attention / MLA / SSM mixer, with its biases and q/k norms
  double norm_params = 0;          ///< the layer's own norms
  double dense_mlp_params = 0;     ///< dense MLP (0 in a MoE layer)
  std::int64_t experts = 0;        ///< routed experts (0: dense layer)
  std::int64_t experts_per_token = 0;
  double expert_params = 0;        ///< one routed expert
  double shared_expert_params = 0; ///< always-active experts and their gate
  double router_params = 0;        ///< router weights (and bias) of a MoE layer
  /// 1-D parameters inside the fields above (biases, attention sinks; not norms or routers):
  /// quantisers keep them in 16 bits beside the matrices they quantise.
  double vector_params = 0;

  /// K and V (or latent) elements cached per token by this layer; 0 for SSM layers.
  double KvElementsPerToken() const;
};

struct ModelShape {
  std::string architecture;  ///< "LlamaForCausalLM"; empty when given by flags
  std::string family;        ///< parameter recipe: "llama", "qwen2", "deepseek_v3", "mamba", ...
  std::string model_type;    ///< the config's model_type as written ("RefinedWeb", ...)
  std::string torch_dtype;   ///< dtype the checkpoint was saved in, when the config says

  // --- summary of a representative layer (activations, LoRA, throughput) ---
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;         ///< h
  std::int64_t num_layers = 0;          ///< L
  std::int64_t num_heads = 0;           ///< a (query heads)
  std::int64_t num_kv_heads = 0;        ///< k (== a without GQA)
  std::int64_t head_dim = 0;            ///< d (given, or h / a)
  std::int64_t intermediate_size = 0;   ///< f (per expert for MoE)

  bool gated_mlp = true;       ///< SwiGLU/GeGLU: gate, up, down (3 matrices); else 2
  NormKind norm = NormKind::kRms;
  int norms_per_layer = 2;     ///< gemma2: 4
  bool qk_norm = false;        ///< qwen3: RMSNorm on q and k (d each)
  bool qkv_bias = false;       ///< biases on q, k, v projections
  bool o_bias = false;         ///< bias on the output projection
  bool mlp_bias = false;       ///< biases on the MLP projections
  bool tied_embeddings = false;  ///< LM head shares the embedding matrix
  bool has_lm_head = true;     ///< false for encoders counted as the base model (BERT)
  bool final_norm = true;      ///< a norm after the last layer
  bool embedding_norm = false; ///< BERT: LayerNorm after the embeddings
  bool pooler = false;         ///< BERT: dense pooler h*h + h

  std::int64_t learned_positions = 0;  ///< GPT-2 n_positions, BERT max_position_embeddings
  std::int64_t token_type_vocab = 0;   ///< BERT type_vocab_size

  std::int64_t num_experts = 0;          ///< MoE routed experts per MoE layer (0 = dense)
  std::int64_t experts_per_token = 0;    ///< top-k routing
  std::int64_t num_shared_experts = 0;   ///< always-active experts (DeepSeek, Qwen2-MoE)

  std::int64_t sliding_window = 0;       ///< window of the sliding layers (0 = none)
  std::int64_t max_position_embeddings = 0;

  // --- the counted model ---
  std::vector<LayerShape> layers;        ///< one entry per layer; empty: BuildUniformLayers
  /// The per-layer list is authoritative even when empty (a model with no decoder stack of
  /// its own, such as a speech encoder-decoder counted whole in its towers).
  bool layers_counted = false;
  double embedding_params = 0;           ///< token (+ positions, token types, embedding norm)
  double final_norm_params = 0;
  double lm_head_params = 0;             ///< 0 when tied; includes a head bias
  double pooler_params = 0;
  /// Modules the checkpoint stores but serving does not load by default: DeepSeek-V3's
  /// multi-token-prediction layer (num_nextn_predict_layers), with its own embedding and head copies.
  double mtp_params = 0;
  double vision_params = 0;              ///< vision tower + projector, when its config is present
  double audio_params = 0;               ///< audio tower (whisper's encoder, omni models)
  /// Stored parameters outside the decoder stack that are none of the above (an encoder stack
  /// of a text encoder-decoder, extra heads): counted in the total, split like the layers.
  double other_params = 0;

  /// Set when the shape was not read but assumed (only --params given): the reference model
  /// whose layout was taken ("Llama-2-70B"); the view says so with the shape's figures.
  std::string assumed_reference;
  /// Fields this reader assumed because the config did not say (generic decoder): names only.
  std::vector<std::string> assumed_fields;
  /// Things the user must know about this count (vision tower not counted, generic decoder):
  /// shown as warnings and put in the JSON.
  std::vector<ShapeNote> notes;
  /// When > 0, the parameter total the user gave (--params); counts are not derived then.
  double params_override = 0;
  /// The checkpoint's own quantisation, when its config describes one.
  std::optional<WeightQuant> quant;
};

/// Exact parameter counts of a shape (docs/plan.md, 'Parameter count').
struct ParamCount {
  std::int64_t embedding = 0;     ///< token (+ position, token type, embedding norm)
  std::int64_t attention = 0;     ///< all layers' mixers (attention, MLA, SSM)
  std::int64_t mlp = 0;           ///< all layers: dense MLPs + every routed and shared expert
  std::int64_t mlp_active = 0;    ///< all layers, top-k routed experts + shared experts
  std::int64_t experts = 0;       ///< routed experts only (what expert parallelism splits)
  std::int64_t router = 0;        ///< MoE routers, all layers
  std::int64_t vectors = 0;       ///< biases and sinks of the linear parts, all layers (inside attention/mlp)
  std::int64_t norms = 0;         ///< all layers + final norm
  std::int64_t lm_head = 0;       ///< 0 when tied
  std::int64_t pooler = 0;
  std::int64_t vision = 0;        ///< vision tower + projector (included in total)
  std::int64_t audio = 0;         ///< audio tower (included in total)
  std::int64_t other = 0;         ///< outside the decoder stack and the above (included in total)
  std::int64_t total = 0;         ///< everything loaded to serve the model
  std::int64_t active = 0;        ///< touched per token: total minus the experts not routed to
  std::int64_t mtp = 0;           ///< stored in the checkpoint, not in total (DeepSeek-V3 MTP)
  std::int64_t checkpoint_total = 0;  ///< total + mtp: what the checkpoint files hold
  /// Parameters that quantisers usually keep in 16-bit: embeddings, head, norms, routers, and
  /// the biases and sinks of the linear layers (only matrices are quantised).
  std::int64_t kept_16bit = 0;
  /// Parameters of the linear layers that quantisation applies to (total - kept_16bit).
  std::int64_t linear = 0;
};

/// Fills shape.layers and the whole-model parameter fields from the summary fields, as a
/// llama-style decoder (q/k/v/o, gated or plain MLP, Mixtral-style experts, the summary's
/// norms and biases). Used for shapes built from flags and by the llama-like recipes.
void BuildUniformLayers(ModelShape& shape);

/// `shape` itself when it has its layers; else a copy in `storage` with the uniform layers
/// BuildUniformLayers gives (a shape given by flags). For code that walks the layers.
const ModelShape& WithLayers(const ModelShape& shape, ModelShape* storage);

/// Counts the parameters of `shape`. When shape.params_override > 0 the total is that figure
/// and the split is apportioned by the shape's formula. The shape must have passed
/// ValidateShape (figures below 1e15).
ParamCount CountParameters(const ModelShape& shape);

/// KV-cache bytes for one token of context (all layers, K and V, or the MLA latent) at
/// `bytes_per_element`, summed over all tensor-parallel ranks: attention layers keep
/// max(1, k / tp) heads per rank (vLLM's replication rule), MLA keeps the whole latent on
/// every rank (vLLM replicates it). Sliding windows are not applied here (see KvCacheBytes);
/// SSM layers hold no per-token cache.
double KvBytesPerToken(const ModelShape& shape, double bytes_per_element, int tensor_parallel = 1);

/// KV-cache and SSM-state bytes for `batch` sequences of `seq` tokens, summed over all
/// tensor-parallel ranks: per layer min(seq, window) tokens on sliding-window layers
/// (rounded up to `block_tokens` when > 1, as paged engines allocate), the fixed state of SSM
/// layers at `state_bytes_per_element`.
double KvCacheBytes(const ModelShape& shape, double bytes_per_element, double state_bytes_per_element,
                    std::int64_t seq, std::int64_t batch, int tensor_parallel = 1, std::int64_t block_tokens = 1);

}  // namespace gpuprobe::model

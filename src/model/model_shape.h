// ModelShape: the dimensions of a transformer that memory and speed depend on, whatever
// they were read from (a Hugging Face config.json or flags). Counts are exact integers.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>

namespace gpuprobe::model {

enum class NormKind { kRms, kLayer };

struct ModelShape {
  std::string architecture;  ///< "LlamaForCausalLM"; empty when given by flags
  std::string family;        ///< parameter recipe: "llama", "qwen2", "gemma2", "gpt2", "bert", ...
  std::string torch_dtype;   ///< dtype the checkpoint was saved in, when the config says

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

  std::int64_t num_experts = 0;          ///< MoE experts per layer (0 = dense)
  std::int64_t experts_per_token = 0;    ///< top-k routing

  std::int64_t sliding_window = 0;       ///< 0 = full attention
  std::int64_t max_position_embeddings = 0;

  /// Set when the shape was not read but assumed (only --params given); says what was assumed.
  std::string assumed_note;
  /// When > 0, the parameter total the user gave (--params); counts are not derived then.
  double params_override = 0;
};

/// Exact parameter counts of a shape (docs/plan.md, 'Parameter count').
struct ParamCount {
  std::int64_t embedding = 0;     ///< token (+ position, token type, embedding norm)
  std::int64_t attention = 0;     ///< all layers
  std::int64_t mlp = 0;           ///< all layers, every expert
  std::int64_t mlp_active = 0;    ///< all layers, top-k experts (== mlp for dense models)
  std::int64_t router = 0;        ///< MoE routers, all layers
  std::int64_t norms = 0;         ///< all layers + final norm
  std::int64_t lm_head = 0;       ///< 0 when tied
  std::int64_t pooler = 0;
  std::int64_t total = 0;
  std::int64_t active = 0;        ///< per token (MoE: top-k experts)
  /// Parameters that quantisers usually keep in 16-bit: embeddings, head, norms, routers.
  std::int64_t kept_16bit = 0;
  /// Parameters of the linear layers that quantisation applies to (total - kept_16bit).
  std::int64_t linear = 0;
};

/// Counts the parameters of `shape`. When shape.params_override > 0 the total is that figure
/// and the split is apportioned by the shape's formula.
ParamCount CountParameters(const ModelShape& shape);

/// KV-cache bytes for one token (all layers, K and V) at `bytes_per_element`, with KV heads
/// per tensor-parallel rank = max(1, k / tp) (vLLM's replication rule) times tp ranks.
double KvBytesPerToken(const ModelShape& shape, double bytes_per_element, int tensor_parallel = 1);

}  // namespace gpuprobe::model

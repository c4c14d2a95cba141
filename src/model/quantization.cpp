#include "model/quantization.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "model/config_reader.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;
using nlohmann::json;

namespace {

Result<std::int64_t> Bits(const ConfigReader& r, std::initializer_list<const char*> fields, std::int64_t fallback) {
  return r.IntOr(fields, 16, fallback);
}

// GPTQ / AWQ / compressed-tensors int groups: one 16-bit scale per group, plus a zero point of
// `bits` bits when asymmetric (AutoGPTQ packs zeros at the weight width; AutoAWQ likewise).
double GroupOverheadBits(std::int64_t group, double scale_bits, double zero_bits) {
  return group > 0 ? (scale_bits + zero_bits) / static_cast<double>(group) : 0;
}

bool Has(const std::string& s, const char* word) { return s.find(word) != std::string::npos; }

// True when `word` is a whole component of the dotted path `s` ("mlp.gate", not "gate_proj").
bool HasComponent(const std::string& s, const std::string& word) {
  for (size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + 1)) {
    bool start = at == 0 || s[at - 1] == '.' || s[at - 1] == '*';
    size_t end = at + word.size();
    bool stop = end == s.size() || s[end] == '.' || s[end] == '*' || s[end] == '$';
    if (start && stop) return true;
  }
  return false;
}

// The layer a pattern names after "layers." (or "layer.", "blocks.", "h."): "" for every layer
// ("*", a regex), the index, or the index with '*' for a glob ("0*"); nullopt when it names none.
// `rest` receives what follows the index.
std::optional<std::string> LayerSelector(const std::string& p, std::string* rest) {
  for (const char* stack : {"layers.", "layer.", "blocks.", "h."}) {
    std::string key = stack;
    for (size_t at = p.find(key); at != std::string::npos; at = p.find(key, at + 1)) {
      if (at != 0 && p[at - 1] != '.' && p[at - 1] != '*') continue;
      size_t i = at + key.size();
      size_t digits = i;
      while (digits < p.size() && std::isdigit(static_cast<unsigned char>(p[digits]))) ++digits;
      if (digits > i) {
        bool glob = digits < p.size() && p[digits] == '*';
        *rest = p.substr(digits);
        return p.substr(i, digits - i) + (glob ? "*" : "");
      }
      if (i < p.size() && (p[i] == '*' || p[i] == '\\' || p[i] == '[' || p[i] == '(')) {
        size_t end = p.find('.', i);
        *rest = end == std::string::npos ? "" : p.substr(end);
        return std::string();
      }
    }
  }
  return std::nullopt;
}

// One ignore pattern, read by what it names: a tower, the embeddings or head (kept anyway),
// or a module kind of the decoder's layers.
void ReadKeptPattern(std::string p, QuantKept& kept) {
  ++kept.patterns;
  for (char& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (p.rfind("re:", 0) == 0) p = p.substr(3);
  for (const char* tower : {"vision", "visual", "image", "audio", "speech", "projector", "siglip", "vit."}) {
    if (Has(p, tower)) {
      kept.towers = true;
      return;
    }
  }
  std::string rest;
  std::optional<std::string> layer = LayerSelector(p, &rest);
  if (!layer) rest = p;
  if (Has(rest, "shared_expert")) {
    kept.shared.push_back(layer.value_or(""));
  } else if (Has(rest, "attn") || Has(rest, "attention") || Has(rest, "mixer") || Has(rest, "mamba")) {
    kept.attention.push_back(layer.value_or(""));
  } else if (Has(rest, "router") || HasComponent(rest, "gate")) {
    return;  // MoE routers: kept in 16 bits whatever the list says
  } else if (Has(rest, "mlp") || Has(rest, "feed_forward") || Has(rest, "ffn") || Has(rest, "experts") ||
             Has(rest, "block_sparse_moe") || Has(rest, "moe")) {
    kept.mlp.push_back(layer.value_or(""));
  } else if (layer && (rest.empty() || rest == "*" || rest == ".*" || rest == "." || rest == "$")) {
    kept.layers.push_back(*layer);
  } else if (!layer && (Has(p, "lm_head") || Has(p, "embed") || Has(p, "wte") || HasComponent(p, "output"))) {
    return;  // embeddings and the head: kept in 16 bits by every method but MLX's
  } else {
    ++kept.unread;
  }
}

// The ignore list under any of the names the quantisers write it.
Status ReadKept(const ConfigReader& r, QuantKept& kept) {
  for (const char* field : {"ignore", "modules_to_not_convert", "exclude_modules", "llm_int8_skip_modules", "ignored_layers"}) {
    std::optional<std::vector<std::string>> list;
    GPUPROBE_ASSIGN_OR_RETURN(list, r.StringList(field, 1 << 20));
    if (!list) continue;
    for (const std::string& p : *list) ReadKeptPattern(p, kept);
  }
  return Status::Ok();
}

// Bits of one scale for a float format of `bits` bits: the 4-bit float formats (NVFP4, MXFP4)
// carry 8-bit scales (fp8 e4m3 per 16, e8m0 per 32); the others a 16-bit one.
double ScaleBits(const std::string& type, std::int64_t bits) { return type == "float" && bits <= 4 ? 8 : 16; }

Result<WeightQuant> FromQuantConfig(const ConfigReader& r, const std::string& method) {
  WeightQuant q;
  q.method = method;
  if (Status kept = ReadKept(r, q.kept); !kept.ok()) return kept;
  if (method == "mxfp4") {
    // OCP microscaling, as gpt-oss ships it: 4-bit e2m1 values packed two per byte (the
    // "_blocks" tensors) and one e8m0 exponent byte per 32 values (the "_scales" tensors).
    q.bits = 4;
    q.group_size = 32;
    q.overhead_bits = 8.0 / 32;
    q.detail = "4-bit e2m1, e8m0 scale per 32";
    return q;
  }
  if (method == "modelopt") {
    // NVIDIA ModelOpt: quant_algo names the format. NVFP4 stores 4-bit e2m1 packed two per byte,
    // one fp8 e4m3 weight_scale per 16 values and one fp32 weight_scale_2 per tensor.
    std::string algo = r.String("quant_algo");
    for (char& c : algo) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::int64_t group = 16;
    const json* groups = nullptr;
    GPUPROBE_ASSIGN_OR_RETURN(groups, r.Object("config_groups"));
    if (groups != nullptr) {
      for (const auto& [name, g] : groups->items()) {
        if (g.is_object() && g.contains("weights") && g["weights"].is_object() && g["weights"].contains("group_size") &&
            g["weights"]["group_size"].is_number_integer() && g["weights"]["group_size"].get<std::int64_t>() > 0) {
          group = g["weights"]["group_size"].get<std::int64_t>();
        }
      }
    }
    if (algo.rfind("NVFP4", 0) == 0) {
      q.bits = 4;
      q.group_size = group;
      q.overhead_bits = 8.0 / static_cast<double>(group);
      q.detail = fmt::format("{}: 4-bit e2m1, fp8 scale per {}", algo, group);
    } else if (algo == "FP8") {
      q.bits = 8;
      q.detail = "FP8: e4m3, per-tensor scale";
    } else if (algo.find("AWQ") != std::string::npos && algo.find("W4") != std::string::npos) {
      q.bits = 4;
      q.group_size = 128;
      q.overhead_bits = 16.0 / 128;
      q.detail = fmt::format("{}: int4, fp16 scale per 128", algo);
    } else {
      q.method = "unknown:modelopt " + algo;
      q.detail = algo;
    }
    return q;
  }
  if (method == "fp8") {
    // DeepSeek-V3 style: e4m3 weights with one fp32 weight_scale_inv per block (weight_block_size).
    q.bits = 8;
    std::optional<std::vector<std::int64_t>> block;
    GPUPROBE_ASSIGN_OR_RETURN(block, r.IntList("weight_block_size", 2, 1 << 16, 1));
    if (block && block->size() == 2) {
      q.group_size = (*block)[0] * (*block)[1];
      q.overhead_bits = 32.0 / static_cast<double>(q.group_size);
      q.detail = fmt::format("fp8 e4m3, fp32 scale per {}x{} block", (*block)[0], (*block)[1]);
    } else {
      q.detail = "fp8, per-tensor scale";
    }
    return q;
  }
  if (method == "gptq" || method == "awq") {
    std::int64_t bits = 4, group = 128;
    GPUPROBE_ASSIGN_OR_RETURN(bits, Bits(r, {"bits", "w_bit"}, 4));
    auto g = r.OptionalNumber("group_size");
    if (!g.ok()) return g.status();
    if (!g->has_value()) {
      GPUPROBE_ASSIGN_OR_RETURN(g, r.OptionalNumber("q_group_size"));
    }
    double group_value = g->value_or(128);
    if (group_value != -1 && (group_value < 1 || group_value > (1 << 20) || group_value != static_cast<double>(static_cast<std::int64_t>(group_value)))) {
      return r.Problem("group_size", "group_size", fmt::format("must be -1 or a positive whole number, got {}", group_value),
                       {{"value", fmt::format("{}", group_value)}});
    }
    group = group_value < 0 ? 0 : static_cast<std::int64_t>(group_value);
    bool sym = true;
    GPUPROBE_ASSIGN_OR_RETURN(sym, r.BoolOr("sym", method == "gptq"));
    // Both formats store packed zero points per group, also when symmetric (GPTQ's qzeros).
    q.bits = static_cast<double>(bits);
    q.group_size = group;
    q.overhead_bits = GroupOverheadBits(group, 16, static_cast<double>(bits));
    q.detail = fmt::format("bits={} group_size={} sym={}", bits, group > 0 ? std::to_string(group) : "per-channel",
                           sym ? "true" : "false");
    return q;
  }
  if (method == "bitsandbytes") {
    bool four = false, eight = false, double_quant = false;
    GPUPROBE_ASSIGN_OR_RETURN(four, r.BoolOr("load_in_4bit", false));
    GPUPROBE_ASSIGN_OR_RETURN(eight, r.BoolOr("load_in_8bit", false));
    GPUPROBE_ASSIGN_OR_RETURN(double_quant, r.BoolOr("bnb_4bit_use_double_quant", false));
    if (four) {
      // QLoRA paper: fp32 absmax per 64 weights = 0.5 bit; double quantisation brings it to 0.127.
      q.bits = 4;
      q.group_size = 64;
      q.overhead_bits = double_quant ? 0.127 : 0.5;
      q.detail = fmt::format("{} 4-bit, block 64, double_quant={}", r.String("bnb_4bit_quant_type"),
                             double_quant ? "true" : "false");
    } else if (eight) {
      q.bits = 8;  // LLM.int8: one fp32 scale per row (negligible per weight)
      q.detail = "int8 (LLM.int8), fp32 scale per row";
    } else {
      return r.Problem("load_in_4bit", "bnb_no_width", "and load_in_8bit are both false: no bitsandbytes width is given", {});
    }
    return q;
  }
  if (method == "compressed-tensors") {
    // The first config group that quantises weights describes the linear layers.
    const json* groups = nullptr;
    GPUPROBE_ASSIGN_OR_RETURN(groups, r.Object("config_groups"));
    if (groups == nullptr) return r.Missing({"config_groups"}, "compressed-tensors", "error.config.why.compressed_tensors");
    for (const auto& [name, group] : groups->items()) {
      if (!group.is_object()) return r.Problem("config_groups." + name, "not_object", "must be an object", {{"value", group.type_name()}});
      auto weights = group.find("weights");
      if (weights == group.end() || !weights->is_object()) continue;
      ConfigReader w(*weights, r.label(), "quantization_config.config_groups." + name + ".weights.");
      std::int64_t bits = 8;
      GPUPROBE_ASSIGN_OR_RETURN(bits, Bits(w, {"num_bits"}, 8));
      std::optional<std::int64_t> group_size;
      GPUPROBE_ASSIGN_OR_RETURN(group_size, w.OptionalInt("group_size", 1 << 20));
      bool symmetric = true;
      GPUPROBE_ASSIGN_OR_RETURN(symmetric, w.BoolOr("symmetric", true));
      std::string strategy = w.String("strategy");
      q.bits = static_cast<double>(bits);
      // "tensor_group" (NVFP4) adds one fp32 scale per tensor to the group scales: negligible.
      if ((strategy == "group" || strategy == "tensor_group" || strategy.empty()) && group_size) {
        q.group_size = *group_size;
        q.overhead_bits = GroupOverheadBits(*group_size, ScaleBits(w.String("type"), bits), symmetric ? 0 : static_cast<double>(bits));
      }
      q.detail = fmt::format("{} {}-bit, strategy={}{}, symmetric={}", w.String("type"), bits, strategy,
                             q.group_size > 0 ? fmt::format(" group_size={}", q.group_size) : "",
                             symmetric ? "true" : "false");
      return q;
    }
    return r.Problem("config_groups", "no_weight_group", "has no group that quantises weights", {});
  }
  q.method = "unknown:" + method;
  q.bits = 16;
  q.detail = method;
  return q;
}

}  // namespace

Result<std::optional<WeightQuant>> ParseQuantizationConfig(const json& root, const std::string& label) {
  ConfigReader top(root, label);
  const json* config = nullptr;
  GPUPROBE_ASSIGN_OR_RETURN(config, top.Object("quantization_config"));
  const json* mlx = nullptr;
  GPUPROBE_ASSIGN_OR_RETURN(mlx, top.Object("quantization"));
  if (config != nullptr) {
    ConfigReader r(*config, label, "quantization_config.");
    std::optional<std::string> method;
    GPUPROBE_ASSIGN_OR_RETURN(method, r.OptionalString("quant_method"));
    if (method) {
      auto q = FromQuantConfig(r, *method);
      if (!q.ok()) return q.status();
      return std::optional<WeightQuant>(*q);
    }
    if (mlx == nullptr) mlx = config;  // MLX writes {group_size, bits} without a quant_method
  }
  if (mlx == nullptr) return std::optional<WeightQuant>();
  ConfigReader r(*mlx, label, mlx == config ? "quantization_config." : "quantization.");
  std::int64_t bits = 4, group = 64;
  GPUPROBE_ASSIGN_OR_RETURN(bits, r.RequiredInt({"bits"}, 16));
  GPUPROBE_ASSIGN_OR_RETURN(group, r.IntOr({"group_size"}, 1 << 20, 64));
  WeightQuant q;
  q.method = "mlx";
  q.bits = static_cast<double>(bits);
  q.group_size = group;
  // mlx.nn.quantize: affine, one 16-bit scale and one 16-bit bias per group; it quantises the
  // embedding (and so a tied head) as well as the linears.
  q.overhead_bits = 32.0 / static_cast<double>(group);
  q.embeddings_quantized = true;
  q.detail = fmt::format("affine {}-bit, group_size={}", bits, group);
  return std::optional<WeightQuant>(q);
}

QuantSplit SplitForQuant(const ModelShape& shape, const ParamCount& count, const WeightQuant& q) {
  QuantSplit split{static_cast<double>(count.linear), static_cast<double>(count.kept_16bit)};
  if (q.embeddings_quantized) {
    double embed = static_cast<double>(count.embedding + count.lm_head);
    split.quantized += embed;
    split.kept -= embed;
  }
  const QuantKept& k = q.kept;
  if (k.Empty()) return split;
  ModelShape uniform;
  const ModelShape* s = &WithLayers(shape, &uniform);
  double moved = 0;
  for (size_t i = 0; i < s->layers.size(); ++i) {
    const LayerShape& l = s->layers[i];
    const auto index = static_cast<std::int64_t>(i);
    const double routed = static_cast<double>(l.experts) * l.expert_params;
    // The layer's biases are on the 16-bit side already (ParamCount::vectors); a part moved whole
    // takes them along only once. Which part a bias belongs to is not recorded, so a part moved
    // alone counts its biases twice (a few thousand parameters at most, capped below).
    if (QuantKept::Covers(k.layers, index) ||
        (QuantKept::Covers(k.attention, index) && QuantKept::Covers(k.mlp, index))) {
      moved += l.mixer_params + l.dense_mlp_params + l.shared_expert_params + routed - l.vector_params;
      continue;
    }
    if (QuantKept::Covers(k.attention, index)) moved += l.mixer_params;
    if (QuantKept::Covers(k.mlp, index)) {
      moved += l.dense_mlp_params + l.shared_expert_params + routed;
    } else if (QuantKept::Covers(k.shared, index)) {
      moved += l.shared_expert_params;
    }
  }
  if (k.towers) moved += static_cast<double>(count.vision + count.audio);
  moved = std::min(moved, split.quantized);
  split.quantized -= moved;
  split.kept += moved;
  return split;
}

}  // namespace gpuprobe::model

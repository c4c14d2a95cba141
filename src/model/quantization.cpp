#include "model/quantization.h"

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

Result<WeightQuant> FromQuantConfig(const ConfigReader& r, const std::string& method) {
  WeightQuant q;
  q.method = method;
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
      if (strategy == "group" && group_size) {
        q.group_size = *group_size;
        q.overhead_bits = GroupOverheadBits(*group_size, 16, symmetric ? 0 : static_cast<double>(bits));
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

}  // namespace gpuprobe::model

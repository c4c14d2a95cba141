// Vision towers of multimodal checkpoints, counted when their config is present: SigLIP
// (modeling_siglip.py, Gemma 3) and CLIP (modeling_clip.py, LLaVA), plus the projector that
// feeds the decoder (Gemma3MultiModalProjector; LlavaMultiModalProjector's two linears).
#include <fmt/format.h>

#include "model/families/recipes.h"

namespace gpuprobe::model::families {

using core::Result;
using core::Status;

Result<double> VisionTowerParams(const ConfigReader& r, const std::string& outer, std::int64_t text_hidden) {
  std::string type = r.String("model_type");
  bool siglip = type == "siglip_vision_model";
  bool clip = type == "clip_vision_model";
  if (!siglip && !clip) return Status::Unavailable(fmt::format("vision_config.model_type={}", type));
  if (outer != "gemma3" && outer != "llava") {
    return Status::Unavailable(fmt::format("model_type={}", outer));
  }
  // Only a tower whose config states every dimension is counted: a partial vision_config
  // would otherwise be filled with library defaults that may not be the checkpoint's.
  std::string missing;
  for (const char* field : {"hidden_size", "num_hidden_layers", "intermediate_size", "image_size", "patch_size"}) {
    if (!r.Has(field)) missing += (missing.empty() ? "" : ", ") + std::string(field);
  }
  if (!missing.empty()) return Status::Unavailable(missing);
  std::int64_t hidden = 0, layers = 0, inner = 0, image = 0, patch = 0, channels = 3;
  GPUPROBE_ASSIGN_OR_RETURN(hidden, r.RequiredInt({"hidden_size"}, kMaxHidden));
  GPUPROBE_ASSIGN_OR_RETURN(layers, r.RequiredInt({"num_hidden_layers"}, kMaxLayers));
  GPUPROBE_ASSIGN_OR_RETURN(inner, r.RequiredInt({"intermediate_size"}, kMaxIntermediate));
  GPUPROBE_ASSIGN_OR_RETURN(image, r.RequiredInt({"image_size"}, 1 << 16));
  GPUPROBE_ASSIGN_OR_RETURN(patch, r.RequiredInt({"patch_size"}, 1 << 12));
  GPUPROBE_ASSIGN_OR_RETURN(channels, r.IntOr({"num_channels"}, 64, 3));
  bool head = false;
  if (siglip) GPUPROBE_ASSIGN_OR_RETURN(head, r.BoolOr("vision_use_head", true));
  const double h = static_cast<double>(hidden), f = static_cast<double>(inner), p = static_cast<double>(patch);
  const double patches = static_cast<double>((image / patch) * (image / patch));
  // Encoder layer: two LayerNorms, q/k/v/o with biases, fc1/fc2 with biases.
  const double layer = 2 * h + 4 * (h * h + h) + 2 * h + (h * f + f) + (f * h + h);
  double tower = static_cast<double>(layers) * layer + 2 * h;  // + post_layernorm
  if (siglip) {
    tower += static_cast<double>(channels) * p * p * h + h + patches * h;  // patch conv with bias, positions
    if (head) tower += h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h + (h * f + f) + (f * h + h);
  } else {
    // CLIP: class embedding, bias-free patch conv, positions for patches + class token, pre-LayerNorm.
    tower += h + static_cast<double>(channels) * p * p * h + (patches + 1) * h + 2 * h;
  }
  const double t = static_cast<double>(text_hidden);
  double projector = outer == "gemma3" ? h * t + h : (h * t + t) + (t * t + t);
  return tower + projector;
}

}  // namespace gpuprobe::model::families

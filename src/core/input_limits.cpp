#include "core/input_limits.h"

#include <fmt/format.h>

namespace gpuprobe::core::limits {

Status OverLimit(const std::string& where, const std::string& what_key, std::uint64_t count, std::uint64_t limit) {
  const char* what = what_key == "gpus"        ? "GPU records"
                     : what_key == "name"      ? "characters in a name"
                     : what_key == "tensors"   ? "tensors"
                     : what_key == "gguf_metadata" ? "bytes of GGUF metadata"
                     : what_key == "links"     ? "links on one GPU"
                                                   : "items";
  return Status::InvalidArgument(
             fmt::format("{}: {} {} is more than gpuprobe reads (at most {})", where, count, what, limit),
             "this is far beyond any real system; check the input")
      .WithKeys("error.limit." + what_key, {{"where", where}, {"count", std::to_string(count)}, {"limit", std::to_string(limit)}},
                "error.limit.hint");
}

}  // namespace gpuprobe::core::limits

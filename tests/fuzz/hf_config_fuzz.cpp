// A Hugging Face config.json as hostile input: any bytes must give a model shape and a plan,
// or a Status naming the field; never a crash, an overflow or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/hf_config.h"
#include "model/memory_planner.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto shape = gpuprobe::model::ParseHfConfig(text, "fuzz.json");
  if (!shape.ok()) return 0;
  gpuprobe::model::Job job;
  (void)gpuprobe::model::PlanMemory(*shape, job);
  return 0;
}

// A saved bench run (report --from, advise --cpu-results, history) as hostile input: any
// bytes must give a document or a Status, never a crash, an exception or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/bench_document.h"
#include "core/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto json = gpuprobe::core::ParseJsonInput(text, "fuzz.json");
  if (!json.ok()) return 0;
  auto doc = gpuprobe::bench::BenchDocumentFromJson(*json, "fuzz.json");
  // What was read must write back out (the views do exactly this).
  if (doc.ok()) (void)gpuprobe::bench::BenchDocumentToJson(*doc).dump();
  return 0;
}

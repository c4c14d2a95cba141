// A GGUF file's header, metadata and tensor infos as hostile input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gpuprobe::model::ParseGguf(bytes, size, "fuzz.gguf");
  return 0;
}

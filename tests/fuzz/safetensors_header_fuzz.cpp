// A .safetensors header as hostile input (offsets, shapes and dtypes chosen by an attacker).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  // The first 8 bytes choose the data size the header must fit; the rest is the header.
  std::uint64_t data_bytes = 0;
  for (int i = 0; i < 8; ++i) data_bytes |= static_cast<std::uint64_t>(data[i]) << (8 * i);
  std::string_view header(reinterpret_cast<const char*>(data) + 8, size - 8);
  (void)gpuprobe::model::ParseSafetensorsHeader(header, data_bytes, "fuzz.safetensors");
  return 0;
}

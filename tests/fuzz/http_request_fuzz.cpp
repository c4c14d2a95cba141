// libFuzzer target: the exporter's HTTP request parser (what any client on the network can
// send to `gpuprobe serve`). Seeds: tests/fuzz/seeds/http_request.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "serve/http_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpuprobe::serve::HttpLimits limits;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // Feed it the way the server does: growing prefixes, then each following request.
  while (!input.empty()) {
    auto p = gpuprobe::serve::ParseHttpRequest(input, limits);
    if (p.state != gpuprobe::serve::HttpParse::State::kComplete || p.consumed == 0 || p.consumed > input.size()) break;
    input.remove_prefix(p.consumed);
  }
  return 0;
}

// libFuzzer target: ParseNcclTestsTable (`bench` reading nccl-tests' output tables).
// Seeds: the real tables under tests/fixtures/bench.
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/nccl_tests_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = gpuprobe::bench::ParseNcclTestsTable(std::string(reinterpret_cast<const char*>(data), size));
  (void)parsed;
  return 0;
}

// Reads test fixtures from tests/fixtures (path compiled in by CMake).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace gpuprobe::testing {

inline std::string FixturePath(const std::string& relative) {
  return std::string(GPUPROBE_FIXTURES_DIR) + "/" + relative;
}

inline std::string ReadFixture(const std::string& relative) {
  std::ifstream in(FixturePath(relative), std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << relative;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace gpuprobe::testing

// zh_leak_check ALLOWLIST [FILE]: prints every English word of FILE (standard input without
// one) that the Chinese output should not have (tests/cli/zh_leak_checker.h); exit 1 when
// there is one, 0 when there is none, 2 for bad usage.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/zh_leak_checker.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: zh_leak_check ALLOWLIST [FILE]\n";
    return 2;
  }
  std::string text;
  if (argc == 3) {
    std::ifstream in(argv[2]);
    if (!in) {
      std::cerr << "zh_leak_check: cannot read " << argv[2] << "\n";
      return 2;
    }
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  auto leaks = gpuprobe::testing::FindLeaks(text, gpuprobe::testing::ReadAllowlist(argv[1]));
  std::cout << gpuprobe::testing::DescribeLeaks(leaks);
  return leaks.empty() ? 0 : 1;
}

#include "model/cpu_identity.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/strings.h"

namespace gpuprobe::model {
namespace {

using core::Trim;

bool HasWord(const std::string& list, const std::string& word) {
  std::istringstream in(list);
  std::string token;
  while (in >> token) {
    if (token == word) return true;
  }
  return false;
}

}  // namespace

CpuIdentity ParseCpuInfo(std::string_view text) {
  CpuIdentity id;
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> packages;
  std::string physical_id, flags;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(std::string_view(line).substr(0, colon));
    std::string value = Trim(std::string_view(line).substr(colon + 1));
    if (key == "processor") {
      ++id.logical_cpus;
    } else if (key == "model name" || key == "Model" || key == "cpu model") {
      if (id.model_name.empty()) id.model_name = value;
    } else if (key == "vendor_id" || key == "CPU implementer") {
      if (id.vendor.empty()) id.vendor = key == "vendor_id" ? value : "ARM";
    } else if (key == "physical id") {
      physical_id = value;
      packages.insert(value);
    } else if (key == "core id") {
      cores.insert({physical_id, value});
    } else if (key == "cpu family") {
      if (auto family = core::ParseInt(value)) id.family = *family;
    } else if (key == "model") {
      if (auto model_number = core::ParseInt(value)) id.model_number = *model_number;
    } else if (key == "flags" || key == "Features") {
      if (flags.empty()) flags = value;
    } else if (key == "cpu MHz") {
      std::optional<double> mhz = core::ParseDouble(value);
      if (mhz && (!id.max_mhz || *mhz > *id.max_mhz)) id.max_mhz = *mhz;
    }
  }
  {
    std::istringstream words(flags);
    std::string word;
    while (words >> word) id.flags.push_back(word);
  }
  if (!cores.empty()) id.physical_cores = static_cast<int>(cores.size());
  if (!packages.empty()) id.sockets = static_cast<int>(packages.size());
  if (HasWord(flags, "amx_tile")) id.simd.push_back("AMX");
  if (HasWord(flags, "avx512f")) id.simd.push_back("AVX-512");
  if (HasWord(flags, "avx2")) id.simd.push_back("AVX2");
  if (HasWord(flags, "sse4_2")) id.simd.push_back("SSE4.2");
  if (HasWord(flags, "asimd") || HasWord(flags, "neon")) id.simd.push_back("NEON");
  if (HasWord(flags, "sve")) id.simd.push_back("SVE");
  return id;
}

void AddMemInfo(std::string_view text, CpuIdentity* identity) {
  std::istringstream in{std::string(text)};
  std::string key;
  double value = 0;
  std::string unit;
  while (in >> key >> value >> unit) {
    if (key == "MemTotal:") {
      identity->memory_total_bytes = value * 1024.0;  // /proc/meminfo "kB" are KiB
      return;
    }
  }
}

}  // namespace gpuprobe::model

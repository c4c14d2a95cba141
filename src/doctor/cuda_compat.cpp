#include "doctor/cuda_compat.h"

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

std::vector<long> Parts(const std::string& version) {
  std::vector<long> out;
  std::stringstream in(version);
  std::string part;
  while (std::getline(in, part, '.')) {
    try {
      out.push_back(std::stol(part));
    } catch (...) {
      out.push_back(0);
    }
  }
  return out;
}

int Major(const std::string& cuda) { return Parts(cuda).empty() ? 0 : static_cast<int>(Parts(cuda)[0]); }

}  // namespace

int CompareVersions(const std::string& a, const std::string& b) {
  auto pa = Parts(a), pb = Parts(b);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    long x = i < pa.size() ? pa[i] : 0, y = i < pb.size() ? pb[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

core::Result<CudaCompat> CudaCompat::Parse(const std::string& json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("toolkits") || !doc["toolkits"].is_array()) {
    return core::Status::ParseError("CUDA compatibility table is malformed");
  }
  CudaCompat c;
  for (const auto& r : doc["toolkits"]) {
    if (!r.contains("cuda") || !r.contains("min_driver")) return core::Status::ParseError("CUDA compatibility row lacks cuda/min_driver");
    c.rows_.push_back({r["cuda"].get<std::string>(), r["min_driver"].get<std::string>()});
  }
  for (const auto& m : doc.value("minor_compat", nlohmann::json::array())) {
    c.minor_.emplace_back(m["cuda_major"].get<int>(), m["min_driver"].get<std::string>());
  }
  return c;
}

core::Result<const CudaCompat*> CudaCompat::Embedded() {
  static const core::Result<CudaCompat> kTable = []() -> core::Result<CudaCompat> {
    auto text = core::EmbeddedFile("cuda_compat.json");
    if (!text.ok()) return text.status();
    return Parse(std::string(*text));
  }();
  if (!kTable.ok()) return kTable.status();
  return &kTable.value();
}

std::string CudaCompat::MinDriver(const std::string& cuda) const {
  for (const auto& r : rows_) {
    if (CompareVersions(r.cuda, cuda) == 0) return r.min_driver;
  }
  // "12.4.1" -> the 12.4 row.
  auto parts = Parts(cuda);
  if (parts.size() > 2) return MinDriver(fmt::format("{}.{}", parts[0], parts[1]));
  return {};
}

std::string CudaCompat::CeilingOf(const std::string& driver) const {
  for (const auto& r : rows_) {
    if (CompareVersions(driver, r.min_driver) >= 0) return r.cuda;
  }
  return {};
}

CompatVerdict CudaCompat::Check(const std::string& cuda, const std::string& driver) const {
  std::string needed = MinDriver(cuda);
  if (needed.empty()) return {"ok", fmt::format("CUDA {} is not in the table; cannot check it against driver {}", cuda, driver)};
  if (CompareVersions(driver, needed) >= 0) return {"ok", fmt::format("driver {} >= {}, the minimum for CUDA {}", driver, needed, cuda)};
  for (const auto& [major, floor] : minor_) {
    if (major == Major(cuda) && CompareVersions(driver, floor) >= 0) {
      return {"minor_compat", fmt::format("driver {} is older than {} (CUDA {}) but within CUDA {}.x minor-version compatibility "
                                          "(>= {}): it runs with a limited feature set and no PTX JIT for newer code",
                                          driver, needed, cuda, major, floor)};
    }
  }
  return {"too_old", fmt::format("driver {} is too old for CUDA {} (needs {} or newer): 'CUDA driver version is insufficient'",
                                 driver, cuda, needed)};
}

}  // namespace gpuprobe::doctor

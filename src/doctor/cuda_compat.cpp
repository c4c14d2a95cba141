#include "doctor/cuda_compat.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

std::vector<long> Parts(const std::string& version) {
  std::vector<long> out;
  size_t start = 0;
  while (start <= version.size()) {
    size_t end = version.find('.', start);
    if (end == std::string::npos) end = version.size();
    long value = 0;
    auto [ptr, error] = std::from_chars(version.data() + start, version.data() + end, value);
    out.push_back(error == std::errc() && ptr == version.data() + end ? value : 0);
    start = end + 1;
  }
  return out;
}

int Major(const std::string& cuda) { return static_cast<int>(Parts(cuda)[0]); }

std::string StringField(const nlohmann::json& row, const char* name, const std::string& where) {
  if (!row.is_object() || !row.contains(name) || !row[name].is_string()) {
    throw std::runtime_error(fmt::format("{}: '{}' is missing or not a string", where, name));
  }
  return row[name].get<std::string>();
}

}  // namespace

int CompareVersions(const std::string& a, const std::string& b) {
  auto pa = Parts(a), pb = Parts(b);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    long x = i < pa.size() ? pa[i] : 0, y = i < pb.size() ? pb[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string CompatLevelName(CompatLevel level) {
  switch (level) {
    case CompatLevel::kOk:
      return "ok";
    case CompatLevel::kMinorCompat:
      return "minor_compat";
    case CompatLevel::kTooOld:
      return "too_old";
    case CompatLevel::kUnknown:
      return "unknown";
  }
  return "unknown";
}

core::Result<CudaCompat> CudaCompat::Parse(const std::string& json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("toolkits") ||
      !doc["toolkits"].is_array()) {
    return core::Status::ParseError("cuda_compat.json: 'toolkits' is missing or not a list");
  }
  CudaCompat c;
  try {
    for (size_t i = 0; i < doc["toolkits"].size(); ++i) {
      const auto& r = doc["toolkits"][i];
      std::string where = fmt::format("cuda_compat.json: toolkits[{}]", i);
      c.rows_.push_back({StringField(r, "cuda", where), StringField(r, "min_driver", where)});
    }
    const auto& minor =
        doc.contains("minor_compat") ? doc["minor_compat"] : nlohmann::json::array();
    for (size_t i = 0; i < minor.size(); ++i) {
      const auto& m = minor[i];
      std::string where = fmt::format("cuda_compat.json: minor_compat[{}]", i);
      if (!m.is_object() || !m.contains("cuda_major") || !m["cuda_major"].is_number_integer()) {
        return core::Status::ParseError(where + ": 'cuda_major' is missing or not an integer");
      }
      c.minor_.emplace_back(m["cuda_major"].get<int>(), StringField(m, "min_driver", where));
    }
  } catch (const std::exception& e) {
    return core::Status::ParseError(e.what());
  }
  // Newest first, whatever the file's order: CeilingOf relies on it.
  std::stable_sort(c.rows_.begin(), c.rows_.end(),
                   [](const Row& a, const Row& b) { return CompareVersions(a.cuda, b.cuda) > 0; });
  if (c.rows_.empty()) return core::Status::ParseError("cuda_compat.json: 'toolkits' is empty");
  return c;
}

core::Result<const CudaCompat*> CudaCompat::Embedded() {
  static const core::Result<CudaCompat> kTable = []() -> core::Result<CudaCompat> {
    auto text = core::EmbeddedFile("cuda_compat.json");
    if (!text.ok()) return text.status();
    return Parse(std::string(*text));
  }();
  if (!kTable.ok()) return core::DamagedEmbeddedData(kTable.status(), "cuda_compat.json");
  return &kTable.value();
}

std::string CudaCompat::MinDriver(const std::string& cuda) const {
  auto parts = Parts(cuda);
  if (parts.size() < 2) return {};
  std::string release = fmt::format("{}.{}", parts[0], parts[1]);  // "12.4.1" -> the 12.4 row
  for (const auto& r : rows_) {
    if (CompareVersions(r.cuda, release) == 0) return r.min_driver;
  }
  return {};
}

std::string CudaCompat::MinorCompatFloor(int major) const {
  for (const auto& [m, floor] : minor_) {
    if (m == major) return floor;
  }
  return {};
}

std::string CudaCompat::CeilingOf(const std::string& driver) const {
  for (const auto& r : rows_) {
    if (CompareVersions(driver, r.min_driver) >= 0) return r.cuda;
  }
  return {};
}

std::string CudaCompat::NewestCuda() const {
  return rows_.empty() ? std::string() : rows_.front().cuda;
}

CompatVerdict CudaCompat::Check(const std::string& cuda, const std::string& driver) const {
  CompatVerdict v;
  v.major = Major(cuda);
  v.floor = MinorCompatFloor(v.major);
  bool major_only = cuda.find('.') == std::string::npos;
  // With only the major known (a wheel named for CUDA 12), the floor is all that can be said.
  v.needed = major_only ? v.floor : MinDriver(cuda);
  if (v.needed.empty()) {
    // A release the table does not list (newer than it, or mistyped): the floor still decides
    // a driver that is certainly too old.
    v.level = !v.floor.empty() && CompareVersions(driver, v.floor) < 0 ? CompatLevel::kTooOld
                                                                       : CompatLevel::kUnknown;
    if (v.level == CompatLevel::kTooOld) v.needed = v.floor;
    return v;
  }
  if (CompareVersions(driver, v.needed) >= 0) {
    v.level = CompatLevel::kOk;
  } else if (!v.floor.empty() && CompareVersions(driver, v.floor) >= 0) {
    v.level = CompatLevel::kMinorCompat;
  } else {
    v.level = CompatLevel::kTooOld;
  }
  return v;
}

}  // namespace gpuprobe::doctor

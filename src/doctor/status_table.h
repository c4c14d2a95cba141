// Every status code of the CUDA runtime and driver, NCCL, cuBLAS, cuFFT, cuSOLVER, cuSPARSE,
// NVRTC, cuDNN and NVML, by name and by number: data/knowledge/cuda_statuses.json, generated
// from the toolkit's headers by tools/gen_cuda_statuses.py, plus the runtime's numbering
// before CUDA 10.1 (data/knowledge/cuda_legacy_numbers.json), which old logs still carry.
//
// Thread safety: immutable after Parse(); concurrent lookups are safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::doctor {

/// The APIs, as the table names them.
inline constexpr const char* kApiCudaRuntime = "cuda_runtime";
inline constexpr const char* kApiCudaDriver = "cuda_driver";
/// The runtime's numbers before CUDA 10.1; the names and meanings are the current runtime's.
inline constexpr const char* kApiCudaRuntimeLegacy = "cuda_runtime_legacy";

struct StatusCode {
  std::string api;        ///< "cuda_runtime", "cuda_driver", "nccl", "cublas", ..., "cuda_runtime_legacy"
  std::string name;       ///< the enumerator, e.g. "cudaErrorIllegalAddress"
  long long value = 0;
  std::string doc;        ///< the header's comment (English); may be empty
  std::string message;    ///< what the library's error-string function prints; may be empty
  /// For a driver status: the runtime status with the same number and meaning; else empty.
  std::string runtime_equivalent;
  bool deprecated = false;
};

struct StatusApi {
  std::string id, library, type, header;  ///< "cublas", "cuBLAS", "cublasStatus_t", "cublas_api.h"
};

class StatusTable {
 public:
  /// Parses the generated table and the legacy numbering; ParseError naming the field.
  static core::Result<StatusTable> Parse(std::string_view statuses_json, std::string_view legacy_json);
  /// The embedded tables (with data/knowledge/nvml_messages.json's printed messages and
  /// data/knowledge/dcgm_statuses.json's statuses).
  static core::Result<const StatusTable*> Embedded();
  /// Gives the statuses named in `messages_json` ({"messages": {NAME: text}}) that have no
  /// printed message that text: NVML's, which the generator cannot read without the driver
  /// (tools/gen_nvml_messages.py). ParseError naming the field; an unknown name is an error.
  core::Status AddMessages(std::string_view messages_json);
  /// Adds the APIs and statuses of another generated table of the same schema: a library
  /// outside the CUDA toolkit (DCGM, tools/gen_dcgm_statuses.py). ParseError naming the field;
  /// a name already present is an error.
  core::Status AddStatuses(std::string_view statuses_json);

  /// The status named `name` (exact spelling first, then ignoring case, then with the driver's
  /// "CUDA_" prefix added: Julia prints "ERROR_ECC_UNCORRECTABLE"); nullptr when unknown.
  /// Never returns a legacy row.
  const StatusCode* FindName(std::string_view name) const;
  /// Every status whose number is `value`, legacy rows included, in table order (runtime,
  /// driver, libraries, legacy).
  std::vector<const StatusCode*> FindValue(long long value) const;
  /// The condition a status names: a driver status with a runtime twin and a legacy row map
  /// to the current runtime status; anything else to itself.
  const StatusCode& Canonical(const StatusCode& status) const;
  const StatusApi* Api(std::string_view id) const;

  const std::vector<StatusCode>& statuses() const { return statuses_; }
  const std::vector<StatusApi>& apis() const { return apis_; }
  /// Versions the generator read: "cuda" -> "13.0", "nccl" -> "2.28.9", ...
  const std::map<std::string, std::string>& toolkit() const { return toolkit_; }
  /// Where the legacy numbering came from.
  const std::string& legacy_source() const { return legacy_source_; }

 private:
  /// Reads one generated table's APIs, toolkit versions and statuses (not the value index).
  core::Status ReadRows(std::string_view statuses_json);

  std::vector<StatusCode> statuses_;
  std::vector<StatusApi> apis_;
  std::map<std::string, std::string> toolkit_;
  std::string legacy_source_;
  std::map<std::string, size_t, std::less<>> by_name_;        // exact name -> index (no legacy)
  std::map<std::string, size_t, std::less<>> by_lower_name_;  // lower-case name -> index
  std::multimap<long long, size_t> by_value_;
};

}  // namespace gpuprobe::doctor

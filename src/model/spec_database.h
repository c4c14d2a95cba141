// SpecDatabase: the GPU reference table (data/gpu_specs.json), parsed from text, with
// lookup by name, alias, partial name or PCI device id.
//
// Thread safety: immutable after Parse(); concurrent lookups are safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/gpu_spec.h"

namespace gpuprobe::model {

/// A host link (DDR channel or PCIe generation) from data/host_links.json.
struct HostLink {
  std::string name;                     ///< "PCIe Gen5 x16"
  std::string kind;                     ///< "host link", "CPU DRAM channel"
  std::optional<double> peak_bandwidth_gb_per_s;
  std::optional<double> vendor_quoted_gb_per_s;
  std::string direction;
  std::string notes;
};

class SpecDatabase {
 public:
  /// Parses the spec table's JSON text. ParseError naming the entry and field when the text
  /// is malformed or a figure has the wrong type.
  static core::Result<SpecDatabase> Parse(std::string_view gpu_specs_json,
                                          std::string_view host_links_json);

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const std::vector<HostLink>& host_links() const { return host_links_; }

  /// Finds one GPU. Order: exact name, alias, PCI device id ("0x2335", "2335", "10de:2335",
  /// "0x233510DE"), then a case-insensitive partial name whose every word starts a word of
  /// the GPU's name ("h100 sxm", "a100-80g", "4090"). InvalidArgument listing the candidates
  /// when several match, or the nearest names when none does.
  core::Result<const GpuSpec*> Find(std::string_view query) const;

  /// Every GPU whose name, alias or id matches `query` as Find() would, without choosing.
  std::vector<const GpuSpec*> Candidates(std::string_view query) const;

  /// The other GPUs a short name could have meant, when Find(query) chose `chosen` by an alias
  /// or by the exact words of one name ("h100" is the H100 SXM5; the H100 PCIe and NVL also
  /// carry those words): every GPU whose name or alias begins with the query's words, except
  /// `chosen`. Empty when the query is the chosen GPU's full name or a PCI id.
  std::vector<const GpuSpec*> OtherVariants(std::string_view query, const GpuSpec& chosen) const;

 private:
  /// Every GPU whose name or alias words each begin with a query word; the exact one when a
  /// name's words are exactly the query's.
  std::vector<const GpuSpec*> MatchWords(const std::vector<std::string>& query_words) const;

  std::vector<GpuSpec> gpus_;
  std::vector<HostLink> host_links_;
};

}  // namespace gpuprobe::model

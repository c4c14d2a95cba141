// NVIDIA's Xid (GPU driver) and SXid (NVSwitch driver) error numbers with their category,
// what the operator does, and whether data may be wrong: data/knowledge/xid_catalog.json
// (sources in xid_catalog_SOURCES.md).
//
// Thread safety: immutable after Parse(); concurrent lookups are safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::doctor {

struct XidInfo {
  int number = 0;
  bool nvswitch = false;         ///< an SXid (NVSwitch) rather than an Xid
  std::string name;              ///< NVIDIA's short description (English)
  std::string category;          ///< user_app, driver, hardware, thermal_power, nvlink, gsp, memory, bus, firmware, unknown
  std::string action;            ///< none, restart_app, reset_gpu, reboot_node, drain_node, rma, check_app, update_driver, contact_support
  std::string description;       ///< paraphrase of NVIDIA's explanation (English)
  std::string action_text;       ///< NVIDIA's guidance, paraphrased (English)
  std::string status;            ///< Xids: active, unused, not_in_catalogue; SXids: empty
  std::string sxid_severity;     ///< SXids: non_fatal, fatal, always_fatal, other_notable
  std::optional<bool> data_may_be_wrong;  ///< empty when NVIDIA does not say
  std::vector<std::string> source_urls;
};

class XidCatalog {
 public:
  /// Parses the catalogue; ParseError naming the row for a missing field or a bad enum value.
  static core::Result<XidCatalog> Parse(std::string_view json_text);
  static core::Result<const XidCatalog*> Embedded();

  /// The Xid (or SXid) `number`; nullptr when the catalogue does not list it.
  const XidInfo* Find(int number, bool nvswitch) const;
  /// The page an operator reads for numbers the catalogue lacks (Xid catalogue or Fabric
  /// Manager guide).
  const std::string& CatalogueUrl(bool nvswitch) const { return nvswitch ? fm_guide_url_ : xid_catalog_url_; }
  const std::vector<XidInfo>& entries() const { return entries_; }
  /// The highest Xid number the catalogue lists.
  int max_xid() const { return max_xid_; }

 private:
  std::vector<XidInfo> entries_;
  /// (nvswitch, number) → index into entries_: an Xid storm asks once per line.
  std::map<std::pair<bool, int>, size_t> index_;
  std::string xid_catalog_url_, fm_guide_url_;
  int max_xid_ = 0;
};

}  // namespace gpuprobe::doctor

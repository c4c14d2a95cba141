#include "telemetry/fabric_state.h"

#include <algorithm>
#include <cctype>

#include "core/strings.h"
#include "telemetry/text_cells.h"

namespace gpuprobe::telemetry {
namespace {

using cells::Lines;
using cells::Trim;


size_t Indent(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  return i == std::string::npos ? line.size() : i;
}

using core::Lower;

bool IsManagerLine(const std::string& lower) {
  return lower.find("fabricmanager") != std::string::npos || lower.find("fabric manager") != std::string::npos;
}

// "Key : value" of nvidia-smi -q.
bool KeyValue(const std::string& line, std::string* key, std::string* value) {
  size_t colon = line.find(" : ");
  if (colon == std::string::npos) return false;
  *key = Trim(line.substr(0, colon));
  *value = Trim(line.substr(colon + 3));
  return !key->empty();
}

// Reads the Fabric block that starts at lines[at] (the "Fabric" line): the lines indented
// deeper than it. Health's sub-keys (Summary, Bandwidth) sit one level deeper still.
FabricBlock ReadBlock(const std::vector<std::string>& lines, size_t at) {
  FabricBlock b;
  size_t base = Indent(lines[at]);
  bool in_health = false;
  size_t health_indent = 0;
  for (size_t i = at + 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (Trim(line).empty()) continue;
    if (Indent(line) <= base) break;
    std::string key, value;
    if (!KeyValue(line, &key, &value)) {
      in_health = Trim(line) == "Health";
      health_indent = Indent(line);
      continue;
    }
    if (in_health && Indent(line) > health_indent) {
      if (key == "Summary") b.health_summary = value;
      if (key == "Bandwidth") b.bandwidth = value;
      continue;
    }
    in_health = false;
    if (key == "State") b.state = value;
    if (key == "Status") b.status = value;
    if (key == "CliqueId") b.clique_id = value;
    if (key == "ClusterUUID") b.cluster_uuid = value;
  }
  return b;
}

bool IsFabricHeading(const std::vector<std::string>& lines, size_t i) {
  if (Trim(lines[i]) != "Fabric") return false;
  for (size_t j = i + 1; j < lines.size() && j < i + 3; ++j) {
    std::string key, value;
    if (KeyValue(lines[j], &key, &value)) return key == "State";
  }
  return false;
}

}  // namespace

bool LooksLikeFabricState(std::string_view text) {
  auto lines = Lines(text.substr(0, std::min<size_t>(text.size(), 64 * 1024)));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsFabricHeading(lines, i) || IsManagerLine(Lower(lines[i]))) return true;
  }
  return false;
}

core::Result<FabricState> ParseFabricState(std::string_view text) {
  FabricState out;
  auto lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsFabricHeading(lines, i)) {
      out.blocks.push_back(ReadBlock(lines, i));
      continue;
    }
    std::string lower = Lower(lines[i]);
    bool service = IsManagerLine(lower);
    if (!service) continue;
    FabricManagerLog& fm = out.manager;
    fm.seen = true;
    bool nothing = lower.find("nv_warn_nothing_to_do") != std::string::npos;
    fm.nothing_to_do |= nothing;
    fm.configured |= lower.find("successfully configured") != std::string::npos;
    fm.pre_nvl5 |= lower.find("pre-nvl5") != std::string::npos;
    fm.failed |= lower.find("failed!") != std::string::npos || lower.find("/failure") != std::string::npos;
    fm.started |= lower.find("started ") != std::string::npos;
    fm.stopped |= lower.find("stopped ") != std::string::npos || lower.find("stopping ") != std::string::npos;
    if (!nothing && lower.find("error") != std::string::npos) fm.errors.push_back(Trim(lines[i]));
  }
  if (out.blocks.empty() && !out.manager.seen) {
    return core::Status::ParseError("no 'Fabric' block of nvidia-smi -q and no Fabric Manager log line")
        .WithKeys("error.capture.no_fabric", {});
  }
  return out;
}

}  // namespace gpuprobe::telemetry

#include "telemetry/nvlink_output.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace gpuprobe::telemetry {
namespace {

const std::regex& GpuLineRe() {
  // "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)"; old drivers print no UUID.
  static const std::regex re(R"(^\s*GPU ([0-9]{1,4}): (.*?)(?: \(UUID: ([^)]*)\))?\s*$)");
  return re;
}
const std::regex& LinkLineRe() {
  static const std::regex re(R"(^\s*Link ([0-9]{1,3}): (.*?)\s*$)");
  return re;
}
const std::regex& CapsLineRe() {
  static const std::regex re(R"(^\s*Link ([0-9]{1,3}), (.*?): (true|false)\s*$)");
  return re;
}
const std::regex& ElisionRe() {
  static const std::regex re(R"(^\s*\[?\s*(\.\.\.|\xE2\x80\xA6|snip)\s*\]?\s*$)");
  return re;
}

bool AllInactiveMessage(const std::string& line) {
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("nvlink") != std::string::npos && lower.find("inactive") != std::string::npos;
}

std::optional<std::uint64_t> Count(const std::string& digits) {
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  return std::stoull(digits);
}

// The part after "Link N: " of -s, -e and -R.
bool ReadLinkValue(const std::string& value, NvLinkLink* link, NvLinkOutput* out) {
  static const std::regex speed(R"(([0-9]{1,5}(?:\.[0-9]{1,6})?) GB/s)");
  static const std::regex counter(R"((Replay|Recovery|CRC) Errors: ([0-9]{1,19}))");
  static const std::regex remote(R"(Remote Device (\S+): Link ([0-9]{1,4}))");
  std::smatch m;
  if (value == "<inactive>") {
    link->inactive = true;
    out->has_status = true;
  } else if (std::regex_match(value, m, speed)) {
    link->speed_gbps = std::stod(m[1]);
    out->has_status = true;
  } else if (std::regex_match(value, m, counter)) {
    auto n = Count(m[2]);
    if (m[1] == "Replay") link->replay_errors = n;
    if (m[1] == "Recovery") link->recovery_errors = n;
    if (m[1] == "CRC") link->crc_errors = n;
    out->has_errors = true;
  } else if (std::regex_match(value, m, remote)) {
    link->remote_device = m[1];
    link->remote_link = std::stoi(m[2]);
    out->has_remote = true;
  } else {
    return false;
  }
  return true;
}

}  // namespace

NvLinkLink& NvLinkGpu::Link(int link_index) {
  for (auto& l : links) {
    if (l.index == link_index) return l;
  }
  links.push_back(NvLinkLink{});
  links.back().index = link_index;
  return links.back();
}

bool LooksLikeNvLinkOutput(std::string_view text) {
  std::string head(text.substr(0, std::min<size_t>(text.size(), 16 * 1024)));
  size_t start = 0;
  bool gpu_line = false;
  for (int n = 0; n < 200 && start < head.size(); ++n) {
    size_t nl = head.find('\n', start);
    std::string line = head.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    start = nl == std::string::npos ? head.size() : nl + 1;
    if (std::regex_match(line, GpuLineRe())) {
      gpu_line = true;
      continue;
    }
    if (gpu_line && (std::regex_match(line, LinkLineRe()) || std::regex_match(line, CapsLineRe()) || AllInactiveMessage(line))) return true;
  }
  return false;
}

core::Result<NvLinkOutput> ParseNvLinkOutput(std::string_view text) {
  NvLinkOutput out;
  NvLinkGpu* gpu = nullptr;
  size_t start = 0;
  int line_no = 0;
  std::string s(text);
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? s.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_match(line, m, GpuLineRe())) {
      out.gpus.push_back(NvLinkGpu{});
      gpu = &out.gpus.back();
      gpu->index = std::stoi(m[1]);
      gpu->name = m[2];
      gpu->uuid = m[3];
      continue;
    }
    if (std::regex_match(line, ElisionRe())) {
      if (gpu != nullptr) gpu->elided = true;
      std::string mark = line.substr(line.find_first_not_of(" \t"));
      out.notes.push_back({"elided", gpu ? "GPU " + std::to_string(gpu->index) : "", mark, line_no});
      continue;
    }
    if (gpu == nullptr) {
      out.notes.push_back({"unread", "", line, line_no});
      continue;
    }
    if (AllInactiveMessage(line)) {
      gpu->all_inactive = true;
      out.has_status = true;
      continue;
    }
    if (std::regex_match(line, m, CapsLineRe())) {
      if (m[2] == "P2P is supported") gpu->Link(std::stoi(m[1])).p2p_supported = m[3] == "true";
      out.has_caps = true;
      continue;
    }
    if (std::regex_match(line, m, LinkLineRe()) && ReadLinkValue(m[2], &gpu->Link(std::stoi(m[1])), &out)) continue;
    out.notes.push_back({"unread", "GPU " + std::to_string(gpu->index), line.substr(line.find_first_not_of(" \t")), line_no});
  }
  if (out.gpus.empty()) return core::Status::ParseError("nvidia-smi nvlink: no 'GPU N: <name>' line");
  return out;
}

}  // namespace gpuprobe::telemetry

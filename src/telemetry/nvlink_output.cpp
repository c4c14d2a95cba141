#include "telemetry/nvlink_output.h"

#include <algorithm>
#include <cctype>

#include <re2/re2.h>

#include "core/input_limits.h"

namespace gpuprobe::telemetry {
namespace {

const RE2& GpuLineRe() {
  // "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)"; old drivers print no UUID.
  static const RE2 re(R"(^\s*GPU ([0-9]{1,4}): (.*?)(?: \(UUID: ([^)]*)\))?\s*$)");
  return re;
}
const RE2& LinkLineRe() {
  static const RE2 re(R"(^\s*Link ([0-9]{1,3}): (.*?)\s*$)");
  return re;
}
const RE2& CapsLineRe() {
  static const RE2 re(R"(^\s*Link ([0-9]{1,3}), (.*?): (true|false)\s*$)");
  return re;
}
const RE2& ElisionRe() {
  static const RE2 re(R"(^\s*\[?\s*(\.\.\.|…|snip)\s*\]?\s*$)");
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
  static const RE2 speed(R"(([0-9]{1,5}(?:\.[0-9]{1,6})?) GB/s)");
  static const RE2 counter(R"((Replay|Recovery|CRC) Errors: ([0-9]{1,19}))");
  static const RE2 remote(R"(Remote Device (\S+): Link ([0-9]{1,4}))");
  std::string number, kind, device;
  if (value == "<inactive>") {
    link->inactive = true;
    out->has_status = true;
  } else if (RE2::FullMatch(value, speed, &number)) {
    link->speed_gbps = std::stod(number);
    out->has_status = true;
  } else if (RE2::FullMatch(value, counter, &kind, &number)) {
    auto n = Count(number);
    if (kind == "Replay") link->replay_errors = n;
    if (kind == "Recovery") link->recovery_errors = n;
    if (kind == "CRC") link->crc_errors = n;
    out->has_errors = true;
  } else if (RE2::FullMatch(value, remote, &device, &number)) {
    link->remote_device = device;
    link->remote_link = std::stoi(number);
    out->has_remote = true;
  } else {
    return false;
  }
  return true;
}

}  // namespace

NvLinkLink* NvLinkGpu::FindLink(int link_index) {
  for (auto& l : links) {
    if (l.index == link_index) return &l;
  }
  return nullptr;
}

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
    if (RE2::FullMatch(line, GpuLineRe())) {
      gpu_line = true;
      continue;
    }
    if (gpu_line && (RE2::FullMatch(line, LinkLineRe()) || RE2::FullMatch(line, CapsLineRe()) || AllInactiveMessage(line))) return true;
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
    // The budget before the link is made: finding a link walks the GPU's list.
    auto over_budget = [&](const std::string& index) {
      return gpu != nullptr && gpu->links.size() >= core::limits::kLinksPerGpu && gpu->FindLink(std::stoi(index)) == nullptr;
    };
    std::string number, name, uuid, value;
    if (RE2::FullMatch(line, GpuLineRe(), &number, &name, &uuid)) {
      if (out.gpus.size() >= core::limits::kGpusPerCapture) {
        return core::limits::OverLimit("nvidia-smi nvlink", "gpus", out.gpus.size() + 1, core::limits::kGpusPerCapture);
      }
      out.gpus.push_back(NvLinkGpu{});
      gpu = &out.gpus.back();
      gpu->index = std::stoi(number);
      gpu->name = name;
      gpu->uuid = uuid;
      continue;
    }
    if (RE2::FullMatch(line, ElisionRe())) {
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
    std::string capability, flag;
    if (RE2::FullMatch(line, CapsLineRe(), &number, &capability, &flag)) {
      if (over_budget(number)) return core::limits::OverLimit("nvidia-smi nvlink", "links", gpu->links.size() + 1, core::limits::kLinksPerGpu);
      if (capability == "P2P is supported") gpu->Link(std::stoi(number)).p2p_supported = flag == "true";
      out.has_caps = true;
      continue;
    }
    if (RE2::FullMatch(line, LinkLineRe(), &number, &value)) {
      if (over_budget(number)) return core::limits::OverLimit("nvidia-smi nvlink", "links", gpu->links.size() + 1, core::limits::kLinksPerGpu);
      if (ReadLinkValue(value, &gpu->Link(std::stoi(number)), &out)) continue;
    }
    out.notes.push_back({"unread", "GPU " + std::to_string(gpu->index), line.substr(line.find_first_not_of(" \t")), line_no});
  }
  if (out.gpus.empty()) {
    return core::Status::ParseError("nvidia-smi nvlink: no 'GPU N: <name>' line").WithKeys("error.capture.nvlink_no_gpu", {});
  }
  return out;
}

}  // namespace gpuprobe::telemetry

#include "telemetry/p2p_matrix.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <re2/re2.h>

#include "telemetry/text_cells.h"

namespace gpuprobe::telemetry {
namespace {

using cells::Lines;
const auto& Tokens = cells::SplitWhitespace;


bool IsGpu(const std::string& t) {
  static const RE2 re("GPU[0-9]{1,4}");
  return RE2::FullMatch(t, re);
}

bool IsStatus(const std::string& t) {
  static const std::vector<std::string> codes = {"X", "OK", "CNS", "GNS", "TNS", "NS", "DR", "U"};
  return std::find(codes.begin(), codes.end(), t) != codes.end();
}

// The header: every token a GPU name. Returns the names, or empty.
std::vector<std::string> Header(const std::string& line) {
  auto t = Tokens(line);
  if (t.empty() || !std::all_of(t.begin(), t.end(), IsGpu)) return {};
  return t;
}

bool IsRow(const std::vector<std::string>& t) {
  return t.size() >= 2 && IsGpu(t[0]) && std::all_of(t.begin() + 1, t.end(), IsStatus) &&
         std::find(t.begin() + 1, t.end(), "X") != t.end();
}

}  // namespace

bool LooksLikeP2pMatrix(std::string_view text) {
  auto lines = Lines(text.substr(0, std::min<size_t>(text.size(), 16 * 1024)));
  for (size_t i = 0; i + 1 < lines.size() && i < 100; ++i) {
    if (!Header(lines[i]).empty() && IsRow(Tokens(lines[i + 1]))) return true;
  }
  return false;
}

core::Result<P2pMatrix> ParseP2pMatrix(std::string_view text) {
  P2pMatrix m;
  auto lines = Lines(text);
  size_t at = 0;
  for (; at < lines.size(); ++at) {
    m.gpus = Header(lines[at]);
    if (!m.gpus.empty()) break;
  }
  if (m.gpus.empty()) {
    return core::Status::ParseError("nvidia-smi topo -p2p: no header row of GPU names").WithKeys("error.capture.p2p_no_header", {});
  }
  std::map<std::pair<size_t, size_t>, std::string> cells;
  for (size_t i = at + 1; i < lines.size(); ++i) {
    auto t = Tokens(lines[i]);
    if (t.empty()) continue;
    if (!IsGpu(t[0])) break;  // the legend
    auto row = std::find(m.gpus.begin(), m.gpus.end(), t[0]);
    size_t r = static_cast<size_t>(row - m.gpus.begin());
    // A row is used only when it has one code per GPU and X on its own diagonal.
    if (row == m.gpus.end() || !IsRow(t) || t.size() != m.gpus.size() + 1 || t[r + 1] != "X") {
      m.unread.push_back(t[0]);
      continue;
    }
    for (size_t c = 0; c < m.gpus.size(); ++c) {
      if (c != r) cells.emplace(std::make_pair(std::min(r, c), std::max(r, c)), t[c + 1]);
    }
  }
  for (const auto& [key, code] : cells) m.pairs.push_back({m.gpus[key.first], m.gpus[key.second], code});
  if (m.pairs.empty() && m.unread.empty()) {
    return core::Status::ParseError("nvidia-smi topo -p2p: no matrix row").WithKeys("error.capture.p2p_no_row", {});
  }
  return m;
}

}  // namespace gpuprobe::telemetry

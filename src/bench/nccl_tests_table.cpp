#include "bench/nccl_tests_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <fmt/format.h>

namespace gpuprobe::bench {
namespace {

std::vector<std::string> Tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

// A launcher prefixes every line of a rank's output with "<rank>: " (srun --label, mpirun
// --tag-output); a table row never contains a colon, so one leading "<digits>:" is a prefix.
std::string StripLauncherPrefix(const std::string& line) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  size_t digits = i;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])) != 0) ++digits;
  if (digits > i && digits < line.size() && line[digits] == ':') return line.substr(digits + 1);
  return line;
}

std::optional<PrintedNumber> ParsePrinted(const std::string& token) {
  if (token.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size() || !std::isfinite(v)) return std::nullopt;
  PrintedNumber n;
  n.value = v;
  auto dot = token.find('.');
  // Exponent notation does not occur in the figures checked here; were it to, its decimals
  // would not be the rounding unit, so such a token is refused.
  if (token.find_first_of("eE") != std::string::npos) return std::nullopt;
  n.decimals = dot == std::string::npos ? 0 : static_cast<int>(token.size() - dot - 1);
  return n;
}

std::optional<std::uint64_t> ParseCount(const std::string& token) {
  if (token.empty() || token.size() > 20) return std::nullopt;
  for (char c : token) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
  }
  return std::strtoull(token.c_str(), nullptr, 10);
}

std::optional<NcclTestsHalf> ParseHalf(const std::vector<std::string>& t, size_t at) {
  auto time = ParsePrinted(t[at]);
  auto alg = ParsePrinted(t[at + 1]);
  auto bus = ParsePrinted(t[at + 2]);
  if (!time || !alg || !bus) return std::nullopt;
  return NcclTestsHalf{*time, *alg, *bus, t[at + 3]};
}

// Out-of-place and in-place are the last eight cells (time algbw busbw wrong, twice); size,
// count and type the first three; redop and root, when printed, sit between. Reading from both
// ends copes with the older layout (no root) and a blank redop cell alike.
std::optional<NcclTestsRow> ParseRow(const std::vector<std::string>& t) {
  constexpr size_t kCells = 3 + 8;
  if (t.size() < kCells || t.size() > kCells + 2) return std::nullopt;
  auto size = ParseCount(t[0]);
  auto count = ParseCount(t[1]);
  if (!size || !count) return std::nullopt;
  auto out = ParseHalf(t, t.size() - 8);
  auto in = ParseHalf(t, t.size() - 4);
  if (!out || !in) return std::nullopt;
  NcclTestsRow row;
  row.size_bytes = *size;
  row.count = *count;
  row.type = t[2];
  row.out_of_place = *out;
  row.in_place = *in;
  return row;
}

void ReadComment(const std::string& body, NcclTestsTable* table, bool* header_seen) {
  auto t = Tokens(body);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == "Rank") {
      if (auto rank = ParseCount(t[i + 1]); rank && *rank < 1000000) {
        table->ranks_stated = std::max(table->ranks_stated.value_or(0), static_cast<int>(*rank) + 1);
        ++table->device_lines;
      }
      return;
    }
  }
  auto find = [&](const char* word) { return std::find(t.begin(), t.end(), word); };
  if (find("size") != t.end() && find("time") != t.end() && find("algbw") != t.end()) {
    *header_seen = true;
    table->has_root_column = find("root") != t.end();
    return;
  }
  auto threads = find("nThread");
  auto gpus = find("nGpus");
  if (threads != t.end() && gpus != t.end() && threads + 1 != t.end() && gpus + 1 != t.end()) {
    auto nt = ParseCount(*(threads + 1));
    auto ng = ParseCount(*(gpus + 1));
    if (nt && ng && *nt < 100000 && *ng < 100000) table->header_gpus = static_cast<int>(*nt * *ng);
    return;
  }
  if (body.find("Avg bus bandwidth") != std::string::npos) {
    auto colon = body.find(':');
    if (colon != std::string::npos) {
      auto value = Tokens(body.substr(colon + 1));
      if (!value.empty()) {
        if (auto n = ParsePrinted(value[0])) table->avg_busbw_gbps = n->value;
      }
    }
  }
}

}  // namespace

double PrintedNumber::HalfUnit() const { return 0.5 * std::pow(10.0, -decimals); }

core::Result<NcclTestsTable> ParseNcclTestsTable(const std::string& text) {
  NcclTestsTable table;
  bool header_seen = false;
  std::istringstream in(text);
  std::string raw;
  int number = 0;
  std::vector<std::pair<int, std::string>> lines;
  while (std::getline(in, raw)) {
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    lines.emplace_back(number, StripLauncherPrefix(raw));
  }
  // The last line with content: a table cut short may end in half a row.
  int last_content = 0;
  for (const auto& [n, line] : lines) {
    if (!Tokens(line).empty()) last_content = n;
  }
  for (const auto& [n, line] : lines) {
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      ReadComment(line.substr(first + 1), &table, &header_seen);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(line[first])) == 0) {
      ++table.skipped_lines;  // a log line between rows ("host:pid:tid [0] NCCL INFO ...")
      continue;
    }
    auto row = ParseRow(Tokens(line));
    if (!row) {
      if (n == last_content) {
        ++table.skipped_lines;
        continue;
      }
      return core::Status::InvalidArgument(fmt::format("line {}: not an nccl-tests result row", n))
          .WithKeys("error.nccl_table.not_row", {{"line", std::to_string(n)}});
    }
    if (!header_seen) {
      return core::Status::InvalidArgument(fmt::format("line {}: a result row before the column header", n))
          .WithKeys("error.nccl_table.before_header", {{"line", std::to_string(n)}});
    }
    row->line = n;
    table.rows.push_back(std::move(*row));
  }
  if (!header_seen) {
    return core::Status::InvalidArgument("no nccl-tests column header (\"# size count type ...\")").WithKeys("error.nccl_table.no_header", {});
  }
  return table;
}

int NcclTestsTypeBytes(const std::string& type) {
  // nccl-tests' test_typenames (src/common.cu).
  static const std::vector<std::pair<std::string, int>> kTypes = {
      {"int8", 1},   {"uint8", 1},  {"int32", 4},    {"uint32", 4}, {"int64", 8},   {"uint64", 8},
      {"half", 2},   {"float", 4},  {"double", 8},   {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  for (const auto& [name, bytes] : kTypes) {
    if (name == type) return bytes;
  }
  return 0;
}

NcclTestsRowCheck CheckNcclTestsHalf(model::Collective collective, const NcclTestsRow& row, const NcclTestsHalf& half,
                                     int ranks) {
  NcclTestsRowCheck check;
  double size = static_cast<double>(row.size_bytes);
  double t = half.time_us.value;
  double ht = half.time_us.HalfUnit();
  auto gbps = [&](double time_us) {
    return time_us <= 0 ? std::numeric_limits<double>::infinity() : size / (time_us * 1e-6) / 1e9;
  };
  auto bw = model::CollectiveBandwidthOf(collective, size, t * 1e-6, ranks);
  check.algbw_gbps = bw.algbw_bytes_per_second / 1e9;
  check.busbw_gbps = bw.busbw_bytes_per_second / 1e9;
  // A relative slack of 1e-9 absorbs floating-point error, nothing else.
  constexpr double kSlack = 1e-9;
  double lo = size == 0 ? 0 : gbps(t + ht);
  double hi = size == 0 ? 0 : gbps(t - ht);
  double pa = half.algbw_gbps.value;
  double ha = half.algbw_gbps.HalfUnit();
  double below = (lo - ha) - pa;
  double above = pa - (hi + ha);
  check.algbw_excess_gbps = std::max({0.0, below - kSlack * lo, above - kSlack * hi});
  check.algbw_ok = check.algbw_excess_gbps == 0;
  // The true algbw lies both within the time's bounds and within rounding of the printed
  // algbw; busbw was printed from that true value times the factor.
  double true_lo = std::max(lo, pa - ha);
  double true_hi = std::min(hi, pa + ha);
  if (true_lo > true_hi) std::swap(true_lo, true_hi);
  double factor = model::BusBandwidthFactor(collective, ranks);
  double pb = half.busbw_gbps.value;
  double hb = half.busbw_gbps.HalfUnit();
  double b_lo = true_lo * factor - hb;
  double b_hi = true_hi * factor + hb;
  check.busbw_excess_gbps = std::max({0.0, b_lo - pb - kSlack * b_lo, pb - b_hi - kSlack * b_hi});
  check.busbw_ok = check.busbw_excess_gbps == 0;
  return check;
}

}  // namespace gpuprobe::bench

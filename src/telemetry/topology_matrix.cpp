#include "telemetry/topology_matrix.h"

#include <algorithm>
#include <cctype>

#include <re2/re2.h>

#include "core/strings.h"
#include "telemetry/text_cells.h"

namespace gpuprobe::telemetry {
namespace {

using cells::Lines;
using cells::SplitTabs;
using cells::SplitWhitespace;
using cells::StripAnsi;
using cells::Trim;

// The link codes of every driver's legend: X, NV#, PIX, PXB, PHB, NODE, SYS, and SOC (the
// name SYS had before NODE was split from it).
const RE2& LinkCodeRe() {
  static const RE2 re("(X|NV[0-9]+|PIX|PXB|PHB|NODE|SYS|SOC)");
  return re;
}
// One or more link codes written without the tab between them ("NODENODE", "NODEPXB").
const RE2& GluedCodesRe() {
  static const RE2 re("(X|NV[0-9]+|PIX|PXB|PHB|NODE|SYS|SOC)+");
  return re;
}
// A cell that is meant to be a link code even if it is not one we know: upper-case letters,
// perhaps a number (a future legend's code); affinity cells are digits or "N/A".
const RE2& CodeLikeRe() {
  static const RE2 re("[A-Z]+[0-9]*#?");
  return re;
}
const RE2& CpuListRe() {
  static const RE2 re("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*|N/A");
  return re;
}
const RE2& NumaRe() {
  static const RE2 re("[0-9]+|N/A");
  return re;
}

// Every match of `re` (one capture group) in `text`, left to right.
std::vector<std::string> AllMatches(const std::string& text, const RE2& re) {
  std::vector<std::string> out;
  re2::StringPiece input(text);
  std::string match;
  while (RE2::FindAndConsume(&input, re, &match)) out.push_back(match);
  return out;
}

bool IsLinkCode(const std::string& cell) { return RE2::FullMatch(cell, LinkCodeRe()); }

bool IsGpuName(const std::string& name) {
  static const RE2 re("GPU[0-9]+");
  return RE2::FullMatch(name, re);
}

// A header's device cells can be glued ("NIC8NIC9"): split them where a new GPU/NIC name
// starts. Other names (mlx5_0) are kept whole.
std::vector<std::string> SplitGluedNames(const std::string& token) {
  static const RE2 whole("(?:(?:GPU|NIC)[0-9]+){2,}");
  static const RE2 one("((?:GPU|NIC)[0-9]+)");
  if (!RE2::FullMatch(token, whole)) return {token};
  return AllMatches(token, one);
}

std::vector<std::string> SplitGluedCodes(const std::string& cell) { return AllMatches(cell, LinkCodeRe()); }

struct Header {
  std::vector<std::string> devices;
  std::vector<std::string> columns;  // "cpu", "numa", "gpu_numa" in printed order
  bool glued = false;
};

// Reads a header line: device names, then the affinity column names (multi-word, so the
// tokens are joined back). Empty when the line is not a header (its first token is not a GPU
// name, or its second is a link code: that is a matrix row).
Header ReadHeader(const std::string& line) {
  Header h;
  auto tokens = SplitWhitespace(line);
  if (tokens.empty() || !IsGpuName(SplitGluedNames(tokens[0]).front())) return h;
  if (tokens.size() > 1 && IsLinkCode(tokens[1])) return h;
  for (size_t k = 0; k < tokens.size(); ++k) {
    auto next_is = [&](size_t ahead, const char* word) { return k + ahead < tokens.size() && tokens[k + ahead] == word; };
    if (tokens[k] == "CPU" && next_is(1, "Affinity")) {
      h.columns.push_back("cpu");
      ++k;
    } else if (tokens[k] == "NUMA" && next_is(1, "Affinity")) {
      h.columns.push_back("numa");
      ++k;
    } else if (tokens[k] == "GPU" && next_is(1, "NUMA") && next_is(2, "ID")) {
      h.columns.push_back("gpu_numa");
      k += 2;
    } else if (h.columns.empty()) {
      auto names = SplitGluedNames(tokens[k]);
      if (names.size() > 1) h.glued = true;
      h.devices.insert(h.devices.end(), names.begin(), names.end());
    }
  }
  return h;
}

void Note(TopologyMatrix* m, std::string id, std::string device, std::string detail, int line) {
  m->notes.push_back({std::move(id), std::move(device), std::move(detail), line});
}

using core::Join;

// The affinity cells after the link codes. With tabs, the CPU Affinity cell is the first one
// even when empty (a Slurm job's cgroup can leave no CPU); the other columns take the next
// non-empty cells (the driver pads GPU NUMA ID with an extra tab). Without tabs, empty cells
// are gone and the cells fill the columns in order.
void ReadAffinity(const std::vector<std::string>& rest, bool tabbed, const Header& h, TopoDevice* d, TopologyMatrix* m, int line) {
  // NIC rows end in empty cells (or none): they have no affinity of their own.
  if (std::all_of(rest.begin(), rest.end(), [](const std::string& c) { return c.empty(); })) return;
  size_t at = 0;
  std::vector<std::string> extra;
  for (const auto& column : h.columns) {
    std::optional<std::string> value;
    if (column == "cpu" && tabbed) {
      if (at < rest.size()) value = rest[at++];
    } else {
      while (at < rest.size() && rest[at].empty()) ++at;
      if (at < rest.size()) value = rest[at++];
    }
    if (!value) continue;
    const RE2& re = column == "cpu" ? CpuListRe() : NumaRe();
    if (!value->empty() && !RE2::FullMatch(*value, re)) {
      Note(m, "bad_affinity", d->name, *value, line);
      continue;
    }
    if (column == "cpu") d->cpu_affinity = value;
    if (column == "numa") d->numa_affinity = value;
    if (column == "gpu_numa") d->gpu_numa_id = value;
  }
  for (; at < rest.size(); ++at) {
    if (!rest[at].empty()) extra.push_back(rest[at]);
  }
  if (!extra.empty()) Note(m, "row_long", d->name, Join(extra, " "), line);
}

// Reads one matrix row into m->cells[row]. A misaligned row (X off its diagonal) keeps none
// of its cells: which column a cell belongs to is then unknown.
void ReadRow(const std::string& text, size_t row, const Header& h, TopologyMatrix* m, int line) {
  bool tabbed = text.find('\t') != std::string::npos;
  auto cells = tabbed ? SplitTabs(text) : SplitWhitespace(text);
  size_t n = h.devices.size();
  std::vector<std::optional<TopoLink>> links;
  std::vector<std::string> unknown;
  size_t at = 1;  // cells[0] is the row's device name
  bool glued = false;
  while (at < cells.size() && links.size() < n) {
    const std::string& cell = cells[at];
    if (IsLinkCode(cell)) {
      links.push_back(ParseLinkCode(cell));
    } else if (RE2::FullMatch(cell, GluedCodesRe())) {
      for (const auto& code : SplitGluedCodes(cell)) links.push_back(ParseLinkCode(code));
      glued = true;
    } else if (RE2::FullMatch(cell, CodeLikeRe())) {
      links.push_back(TopoLink{LinkKind::kUnknown, 0, cell});
      unknown.push_back(cell);
    } else {
      break;  // the affinity columns start
    }
    ++at;
  }
  TopoDevice& d = m->devices[row];
  if (glued) Note(m, "glued_cells", d.name, "", line);
  if (!unknown.empty()) Note(m, "unknown_cell", d.name, Join(unknown, " "), line);
  if (links.size() > n) {
    Note(m, "row_long", d.name, "", line);
    links.resize(n);
  }
  if (links.size() < n) Note(m, "row_short", d.name, std::to_string(links.size()) + "/" + std::to_string(n), line);
  // X on the diagonal and nowhere else is what ties a cell to its column.
  for (size_t c = 0; c < links.size(); ++c) {
    if ((links[c]->kind == LinkKind::kSelf) != (c == row)) {
      Note(m, "diagonal", d.name, "", line);
      return;
    }
  }
  d.has_row = true;
  links.resize(n);
  m->cells[row] = std::move(links);
  std::vector<std::string> rest(cells.begin() + static_cast<std::ptrdiff_t>(std::min(at, cells.size())), cells.end());
  ReadAffinity(rest, tabbed, h, &d, m, line);
}

void ReadLegendLine(const std::string& line, bool nic_legend, TopologyMatrix* m) {
  std::string t = Trim(line);
  if (nic_legend) {
    size_t colon = t.find(':');
    if (colon == std::string::npos) return;
    std::string name = Trim(t.substr(0, colon)), device = Trim(t.substr(colon + 1));
    for (auto& d : m->devices) {
      if (d.name == name && !device.empty()) d.nic_device = device;
    }
    return;
  }
  size_t eq = t.find('=');
  if (eq == std::string::npos) return;
  std::string code = Trim(t.substr(0, eq));
  if (!code.empty() && code.find(' ') == std::string::npos) m->legend_codes.push_back(code);
}

// A code in the matrix that the printed legend does not explain: the legend was cut short.
void CheckLegend(TopologyMatrix* m) {
  if (!m->legend_seen) return;
  std::vector<std::string> missing;
  auto has = [&](const std::string& code) { return std::find(m->legend_codes.begin(), m->legend_codes.end(), code) != m->legend_codes.end(); };
  for (const auto& row : m->cells) {
    for (const auto& cell : row) {
      if (!cell || cell->kind == LinkKind::kUnknown) continue;
      std::string code = cell->kind == LinkKind::kNvLink ? "NV#" : cell->code;
      if (!has(code) && std::find(missing.begin(), missing.end(), code) == missing.end()) missing.push_back(code);
    }
  }
  if (!missing.empty()) Note(m, "legend_incomplete", "", Join(missing, ", "), 0);
}

void CheckSymmetry(TopologyMatrix* m) {
  std::vector<std::string> rows_missing;
  for (size_t a = 0; a < m->devices.size(); ++a) {
    if (!m->devices[a].has_row) rows_missing.push_back(m->devices[a].name);
    for (size_t b = a + 1; b < m->devices.size(); ++b) {
      const auto& ab = m->cells[a][b];
      const auto& ba = m->cells[b][a];
      if (ab && ba && ab->code != ba->code) {
        Note(m, "asymmetric", m->devices[a].name + "-" + m->devices[b].name, ab->code + "/" + ba->code, 0);
      }
    }
  }
  if (!rows_missing.empty()) Note(m, "missing_rows", "", Join(rows_missing, ", "), 0);
}

}  // namespace

std::string LinkKindName(LinkKind kind) {
  switch (kind) {
    case LinkKind::kSelf: return "self";
    case LinkKind::kNvLink: return "nvlink";
    case LinkKind::kPix: return "pix";
    case LinkKind::kPxb: return "pxb";
    case LinkKind::kPhb: return "phb";
    case LinkKind::kNode: return "node";
    case LinkKind::kSys: return "sys";
    case LinkKind::kUnknown: return "unknown";
  }
  return "unknown";
}

TopoLink ParseLinkCode(std::string_view raw) {
  std::string code = Trim(raw);
  TopoLink link{LinkKind::kUnknown, 0, code};
  if (code == "X") link.kind = LinkKind::kSelf;
  else if (code == "PIX") link.kind = LinkKind::kPix;
  else if (code == "PXB") link.kind = LinkKind::kPxb;
  else if (code == "PHB") link.kind = LinkKind::kPhb;
  else if (code == "NODE") link.kind = LinkKind::kNode;
  else if (code == "SYS" || code == "SOC") link.kind = LinkKind::kSys;  // SOC: the old name of SYS
  else if (code.size() > 2 && code.size() < 6 && code.rfind("NV", 0) == 0 &&
           std::all_of(code.begin() + 2, code.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    link.kind = LinkKind::kNvLink;
    link.nvlinks = std::stoi(code.substr(2));
  }
  return link;
}

std::optional<TopoLink> TopologyMatrix::Link(size_t a, size_t b) const {
  if (a >= cells.size() || b >= cells.size()) return std::nullopt;
  if (cells[a][b]) return cells[a][b];
  return cells[b][a];
}

std::vector<size_t> TopologyMatrix::Gpus() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind == DeviceKind::kGpu) out.push_back(i);
  }
  return out;
}

std::vector<size_t> TopologyMatrix::Nics() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind == DeviceKind::kNic) out.push_back(i);
  }
  return out;
}

bool LooksLikeTopologyMatrix(std::string_view text) {
  bool ansi = false;
  auto lines = Lines(text.substr(0, std::min<size_t>(text.size(), 64 * 1024)));
  for (size_t i = 0; i < lines.size() && i < 200; ++i) {
    Header h = ReadHeader(StripAnsi(lines[i], &ansi));
    if (h.devices.empty()) continue;
    for (size_t j = i + 1; j < lines.size() && j < i + 4; ++j) {
      auto tokens = SplitWhitespace(StripAnsi(lines[j], &ansi));
      if (tokens.size() < 2 || std::find(h.devices.begin(), h.devices.end(), tokens[0]) == h.devices.end() ||
          std::find(tokens.begin(), tokens.end(), "X") == tokens.end()) {
        continue;
      }
      // `topo -p2p` prints the same shape with status codes (OK, NS, GNS): a link matrix has
      // a link code besides X, or (one GPU) the affinity columns.
      bool link_code = std::any_of(tokens.begin() + 1, tokens.end(), [](const std::string& t) {
        return t != "X" && RE2::FullMatch(t, GluedCodesRe());
      });
      if (link_code || !h.columns.empty()) return true;
    }
  }
  return false;
}

core::Result<TopologyMatrix> ParseTopologyMatrix(std::string_view text) {
  TopologyMatrix m;
  bool ansi = false;
  auto lines = Lines(text);
  for (auto& l : lines) l = StripAnsi(l, &ansi);
  if (ansi) Note(&m, "ansi", "", "", 0);

  size_t header_line = lines.size();
  Header h;
  for (size_t i = 0; i < lines.size(); ++i) {
    h = ReadHeader(lines[i]);
    if (!h.devices.empty()) {
      header_line = i;
      break;
    }
  }
  if (header_line == lines.size()) {
    return core::Status::ParseError("nvidia-smi topo -m: no header row of device names (GPU0 GPU1 ...)")
        .WithKeys("error.capture.topo_no_header", {});
  }
  if (h.glued) Note(&m, "glued_header", "", "", static_cast<int>(header_line) + 1);
  for (const auto& name : h.devices) {
    TopoDevice d;
    d.name = name;
    d.kind = IsGpuName(name) ? DeviceKind::kGpu : DeviceKind::kNic;
    if (d.kind == DeviceKind::kNic) d.nic_device = name;
    m.devices.push_back(std::move(d));
  }
  for (const auto& c : h.columns) {
    m.has_cpu_affinity |= c == "cpu";
    m.has_numa_affinity |= c == "numa";
    m.has_gpu_numa_id |= c == "gpu_numa";
  }
  m.cells.assign(m.devices.size(), std::vector<std::optional<TopoLink>>(m.devices.size()));

  enum { kRows, kLegend, kNicLegend } part = kRows;
  for (size_t i = header_line + 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::string t = Trim(line);
    if (t.empty()) continue;
    if (t.rfind("NIC Legend", 0) == 0) {
      part = kNicLegend;
      continue;
    }
    if (t.rfind("Legend", 0) == 0) {
      part = kLegend;
      m.legend_seen = true;
      continue;
    }
    if (part != kRows) {
      ReadLegendLine(line, part == kNicLegend, &m);
      continue;
    }
    auto tokens = SplitWhitespace(t);
    auto it = std::find(h.devices.begin(), h.devices.end(), tokens[0]);
    if (it == h.devices.end()) {
      Note(&m, "unknown_row", tokens[0], "", static_cast<int>(i) + 1);
      continue;
    }
    size_t row = static_cast<size_t>(it - h.devices.begin());
    if (m.devices[row].has_row) {
      Note(&m, "unknown_row", tokens[0], "", static_cast<int>(i) + 1);  // a second row for one device
      continue;
    }
    ReadRow(line, row, h, &m, static_cast<int>(i) + 1);
  }
  bool any_row = std::any_of(m.devices.begin(), m.devices.end(), [](const TopoDevice& d) { return d.has_row; });
  if (!any_row) {
    return core::Status::ParseError("nvidia-smi topo -m: a header row but no matrix row could be read")
        .WithKeys("error.capture.topo_no_row", {});
  }
  CheckSymmetry(&m);
  CheckLegend(&m);
  return m;
}

}  // namespace gpuprobe::telemetry

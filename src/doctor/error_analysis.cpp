#include "doctor/error_analysis.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace gpuprobe::doctor {
namespace {

constexpr size_t kMaxExcerptBytes = 300;
constexpr size_t kMaxListed = 16;
constexpr size_t kMaxLookupBytes = 200;
constexpr size_t kMaxFlattenedBytes = 1u << 20;

std::string Trimmed(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  text.remove_prefix(begin);
  if (text.size() <= kMaxExcerptBytes) return std::string(text);
  return std::string(text.substr(0, kMaxExcerptBytes)) + "...";
}

void AddOnce(std::vector<std::string>& list, const std::string& value) {
  if (value.empty() || list.size() >= kMaxListed) return;
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// True when `f` is the symptom of `other` (its entry yields to other's).
bool YieldsTo(const Finding& f, const Finding& other) {
  const KnowledgeEntry* e = f.entry;
  if (e == nullptr || e->yields_to.empty() || other.entry == e) return false;
  // Only an Xid the catalogue knows: tools use numbers outside it as placeholders (the device
  // plugin's Xid=999 for an event it could not attribute).
  if (other.xid && other.xid_info != nullptr &&
      std::find(e->yields_to.begin(), e->yields_to.end(), kAnyXid) != e->yields_to.end()) {
    return true;
  }
  return other.entry != nullptr && std::find(e->yields_to.begin(), e->yields_to.end(), other.entry->id) != e->yields_to.end();
}

bool Yields(const Hit& hit, const std::vector<Hit>& all) {
  return std::any_of(all.begin(), all.end(), [&](const Hit& other) { return YieldsTo(hit.finding, other.finding); });
}

}  // namespace

int SeverityRank(const std::string& severity) {
  if (severity == "fail") return 0;
  if (severity == "warn") return 1;
  return 2;
}

Analysis Analyze(const ErrorMatcher& matcher, std::string_view text, AnalysisMode mode) {
  Analysis analysis;
  std::unordered_map<std::string, size_t> by_key;
  ForEachRecord(text, kMaxMatchedLineBytes, [&](const LogRecord& record) {
    analysis.lines = record.last_line;
    std::vector<Finding> found = matcher.MatchRecord(record.text);
    // One record describing one event twice (the Xid 79 line says "fallen off the bus") is
    // counted once, under the cause.
    if (found.size() > 1) {
      std::vector<Finding> kept;
      for (const auto& f : found) {
        if (std::none_of(found.begin(), found.end(), [&](const Finding& o) { return YieldsTo(f, o); })) kept.push_back(f);
      }
      found = std::move(kept);
    }
    for (Finding& f : found) {
      auto [it, inserted] = by_key.emplace(f.key, analysis.hits.size());
      if (inserted) {
        Hit hit;
        hit.first_line = record.first_line;
        hit.excerpt = Trimmed(record.text);
        hit.record = std::string(record.text);
        hit.time_kind = record.time.kind;
        hit.first_seconds = record.time.seconds;
        hit.first_time = std::string(record.time.text);
        hit.finding = std::move(f);
        analysis.hits.push_back(std::move(hit));
      }
      Hit& hit = analysis.hits[it->second];
      ++hit.occurrences;
      hit.last_line = record.last_line;
      if (record.time.kind != LogTime::Kind::kNone) {
        hit.last_seconds = record.time.seconds;
        hit.last_time = std::string(record.time.text);
      }
      if (const auto& x = inserted ? hit.finding.xid : f.xid) {
        AddOnce(hit.gpus, x->pci);
        if (!x->process.empty()) AddOnce(hit.processes, x->pid.empty() ? x->process : fmt::format("{} (pid {})", x->process, x->pid));
      }
    }
  });
  // A paste wrapped by a terminal or a web page ("Resource exhausted: Out\nof memory") is
  // read once more as one line, whitespace runs collapsed.
  if (analysis.hits.empty() && mode == AnalysisMode::kPaste && text.size() <= kMaxFlattenedBytes &&
      text.find('\n') != std::string_view::npos) {
    std::string flat;
    flat.reserve(text.size());
    for (char c : text) {
      bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (!space) flat.push_back(c);
      else if (!flat.empty() && flat.back() != ' ') flat.push_back(' ');
    }
    for (Finding& f : matcher.MatchRecord(flat)) {
      Hit hit;
      hit.first_line = hit.last_line = 1;
      hit.occurrences = 1;
      hit.excerpt = Trimmed(flat);
      hit.record = flat.substr(0, kMaxMatchedLineBytes);
      hit.finding = std::move(f);
      analysis.hits.push_back(std::move(hit));
    }
  }
  if (analysis.hits.empty()) {
    std::string_view query = text;
    while (!query.empty() && (query.back() == '\n' || query.back() == '\r')) query.remove_suffix(1);
    if (query.size() <= kMaxLookupBytes && query.find('\n') == std::string_view::npos) analysis.readings = matcher.Lookup(query);
    return analysis;
  }
  // Rank: symptoms after their causes, followers last, then by mode.
  std::vector<int> yields(analysis.hits.size());
  for (size_t i = 0; i < analysis.hits.size(); ++i) yields[i] = Yields(analysis.hits[i], analysis.hits) ? 1 : 0;
  bool same_clock = std::all_of(analysis.hits.begin(), analysis.hits.end(), [&](const Hit& h) {
    return h.time_kind != LogTime::Kind::kNone && h.time_kind == analysis.hits.front().time_kind;
  });
  std::vector<size_t> order(analysis.hits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Hit& x = analysis.hits[a];
    const Hit& y = analysis.hits[b];
    if (yields[a] != yields[b]) return yields[a] < yields[b];
    bool xs = x.finding.entry != nullptr && x.finding.entry->secondary;
    bool ys = y.finding.entry != nullptr && y.finding.entry->secondary;
    if (xs != ys) return !xs;
    if (mode == AnalysisMode::kLog) {
      int sx = SeverityRank(x.finding.severity), sy = SeverityRank(y.finding.severity);
      if (sx != sy) return sx < sy;
      if (same_clock && x.first_seconds != y.first_seconds) return x.first_seconds < y.first_seconds;
    }
    return x.first_line < y.first_line;
  });
  std::vector<Hit> ranked;
  ranked.reserve(order.size());
  for (size_t i : order) ranked.push_back(std::move(analysis.hits[i]));
  analysis.hits = std::move(ranked);
  return analysis;
}

}  // namespace gpuprobe::doctor

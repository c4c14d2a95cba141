#include "doctor/error_analysis.h"

#include <algorithm>
#include <thread>
#include <deque>
#include <unordered_map>

#include <fmt/format.h>

namespace gpuprobe::doctor {
namespace {

constexpr size_t kMaxExcerptBytes = 300;
constexpr size_t kMaxListed = kMaxListedGpus;
constexpr size_t kMaxLookupBytes = 200;
constexpr size_t kMaxFlattenedBytes = 1u << 20;
constexpr size_t kMaxMemoRecordBytes = 1024;
constexpr size_t kMaxMemoBytes = 16u << 20;
// Records looked up before the memo judges whether this log repeats itself (1 in 10).
constexpr size_t kMemoTrial = 20000;
// Logs from this size on are scanned on several cores.
constexpr size_t kParallelBytes = 8u << 20;
constexpr unsigned kMaxThreads = 8;

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
  // Not to an Xid that is itself a consequence (Xid 45, the driver stopping a killed context).
  if (other.xid && other.xid_info != nullptr && !(other.entry != nullptr && other.entry->secondary) &&
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

namespace {

// The hits of one stretch of a log, in order of first appearance; line numbers start after
// `line_offset`.
Analysis Scan(const ErrorMatcher& matcher, std::string_view text, int line_offset) {
  Analysis analysis;
  std::unordered_map<std::string, size_t> by_key;
  // Logs repeat themselves (an Xid storm, every rank's copy of a traceback, the same kernel
  // notice every minute): a record seen before is not matched again, whether it was recognised
  // or not. The memory is bounded, and the memo switches itself off when records turn out not
  // to repeat.
  std::unordered_map<std::string_view, std::vector<Finding>> seen;
  std::deque<std::string> seen_text;
  size_t seen_bytes = 0, lookups = 0, reused = 0;
  bool memo = true;
  std::vector<Finding> local;
  ForEachRecord(text, kMaxMatchedLineBytes, [&](const LogRecord& record) {
    analysis.lines = line_offset + record.last_line;
    const std::vector<Finding>* found = nullptr;
    if (memo) {
      ++lookups;
      if (auto cached = seen.find(record.text); cached != seen.end()) {
        ++reused;
        found = &cached->second;
      } else if (lookups >= kMemoTrial && reused * 10 < lookups) {
        memo = false;
        seen.clear();
        seen_text.clear();
      }
    }
    if (found == nullptr) {
      local = matcher.MatchRecord(record.text);
      // One record describing one event twice (the Xid 79 line says "fallen off the bus") is
      // counted once, under the cause.
      if (local.size() > 1) {
        std::vector<Finding> kept;
        for (const auto& f : local) {
          if (std::none_of(local.begin(), local.end(), [&](const Finding& o) { return YieldsTo(f, o); })) kept.push_back(f);
        }
        local = std::move(kept);
      }
      found = &local;
      if (memo && record.text.size() <= kMaxMemoRecordBytes) {
        if (seen_bytes > kMaxMemoBytes) {
          seen.clear();
          seen_text.clear();
          seen_bytes = 0;
        }
        seen_bytes += record.text.size();
        seen_text.emplace_back(record.text);
        found = &seen.emplace(seen_text.back(), local).first->second;
      }
    }
    for (const Finding& f : *found) {
      auto it = by_key.find(f.key);
      bool inserted = it == by_key.end();
      if (inserted) {
        it = by_key.emplace(f.key, analysis.hits.size()).first;
        Hit hit;
        hit.first_line = line_offset + record.first_line;
        hit.excerpt = Trimmed(record.text);
        hit.record = std::string(record.text);
        hit.time_kind = record.time.kind;
        hit.first_seconds = record.time.seconds;
        hit.first_time = std::string(record.time.text);
        hit.finding = f;
        analysis.hits.push_back(std::move(hit));
      }
      Hit& hit = analysis.hits[it->second];
      ++hit.occurrences;
      hit.last_line = line_offset + record.last_line;
      if (record.time.kind != LogTime::Kind::kNone) {
        hit.last_seconds = record.time.seconds;
        hit.last_time.assign(record.time.text.data(), record.time.text.size());
      }
      if (const auto& x = f.xid) {
        AddOnce(hit.gpus, x->pci);
        if (!x->process.empty() && hit.processes.size() < kMaxListed) {
          AddOnce(hit.processes, x->pid.empty() ? x->process : x->process + " (pid " + x->pid + ")");
        }
      }
    }
  });
  return analysis;
}

// Adds `part` (a later stretch of the same log) to `all`.
void Merge(Analysis& all, Analysis&& part) {
  std::unordered_map<std::string, size_t> by_key;
  for (size_t i = 0; i < all.hits.size(); ++i) by_key.emplace(all.hits[i].finding.key, i);
  for (Hit& h : part.hits) {
    auto it = by_key.find(h.finding.key);
    if (it == by_key.end()) {
      by_key.emplace(h.finding.key, all.hits.size());
      all.hits.push_back(std::move(h));
      continue;
    }
    Hit& into = all.hits[it->second];
    into.occurrences += h.occurrences;
    into.last_line = h.last_line;
    if (!h.last_time.empty()) {
      into.last_time = h.last_time;
      into.last_seconds = h.last_seconds;
    }
    for (const auto& g : h.gpus) AddOnce(into.gpus, g);
    for (const auto& p : h.processes) AddOnce(into.processes, p);
  }
  all.lines = std::max(all.lines, part.lines);
}

// Where a log may be cut for scanning in parallel: at the start of a line that begins a record
// whatever came before it. A run of continuation lines longer than any record (a hostile log
// of nothing but kernel notices) is cut anyway, so every log is read on every core. Returns the
// cut's offset, or text.size().
size_t CutAfter(std::string_view text, size_t from) {
  auto line_at = [text](size_t begin) {
    size_t end = text.find('\n', begin);
    return text.substr(begin, std::min<size_t>((end == std::string_view::npos ? text.size() : end) - begin, 4096));
  };
  // The line that holds `from` is the first `previous`.
  size_t start = text.rfind('\n', from == 0 ? 0 : from - 1);
  start = start == std::string_view::npos || from == 0 ? 0 : start + 1;
  for (int lines = 0; start < text.size(); ++lines) {
    size_t line = text.find('\n', start);
    if (line == std::string_view::npos) return text.size();
    size_t next = line + 1;
    if (next >= text.size()) return text.size();
    if (lines > kMaxRecordLines || StartsRecord(line_at(start), line_at(next))) return next;
    start = next;
  }
  return text.size();
}

}  // namespace

bool IsGpuFinding(const Finding& finding) { return !finding.host && (finding.entry == nullptr || finding.entry->gpu); }

namespace {

bool Refines(const KnowledgeEntry& narrow, const Finding& f) {
  return std::any_of(narrow.refines.begin(), narrow.refines.end(), [&](const std::string& key) {
    return key == f.key || (f.entry != nullptr && key == f.entry->id);
  });
}

// A finding whose words mean something narrower in the component that printed them becomes
// that narrower entry ("Insufficient Permissions" from `nvidia-smi mig`). Two hits that become
// the same entry are one hit.
void RefineByEmitter(const KnowledgeBase& kb, const EmitterTable& table, Analysis& analysis, AnalysisMode mode) {
  std::vector<const KnowledgeEntry*> narrow;
  for (const auto& e : kb.entries()) {
    if (!e.refines.empty()) narrow.push_back(&e);
  }
  if (narrow.empty()) return;
  for (Hit& hit : analysis.hits) {
    std::vector<EmitterHit> own;
    const std::vector<EmitterHit>* emitters = &analysis.emitters;
    if (mode == AnalysisMode::kLog) {
      own = table.Detect(hit.record);
      emitters = &own;
    }
    for (const KnowledgeEntry* e : narrow) {
      if (!Refines(*e, hit.finding)) continue;
      bool printed_by = std::any_of(e->when_emitters.begin(), e->when_emitters.end(),
                                    [&](const std::string& id) { return HasEmitter(*emitters, id); });
      if (!printed_by) continue;
      hit.finding.entry = e;
      hit.finding.key = e->id;
      hit.finding.severity = e->severity;
      break;
    }
  }
  std::vector<Hit> merged;
  for (Hit& hit : analysis.hits) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const Hit& m) { return m.finding.key == hit.finding.key; });
    if (same == merged.end()) {
      merged.push_back(std::move(hit));
      continue;
    }
    same->occurrences += hit.occurrences;
    same->first_line = std::min(same->first_line, hit.first_line);
    same->last_line = std::max(same->last_line, hit.last_line);
  }
  analysis.hits = std::move(merged);
}

}  // namespace

std::vector<std::string_view> SplitLog(std::string_view text, unsigned parts) {
  std::vector<std::string_view> out;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = out.size() + 1 >= parts ? text.size() : CutAfter(text, std::min(text.size(), begin + text.size() / parts));
    out.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return out;
}

namespace {

// Never silent: a text no entry recognises may still name an OS error or a Python exception,
// read from the generated host table (errno from the kernel headers and glibc, the built-in
// exceptions from Python). Only the first kMaxHostScanBytes are read: the evidence of a paste
// is near its start, and a log's records were already matched one by one.
constexpr size_t kMaxHostScanBytes = 1 << 20;

void AddHostError(std::string_view text, Analysis& analysis) {
  auto table = HostErrorTable::Embedded();
  if (!table.ok()) return;
  std::string_view scanned = text.substr(0, std::min(text.size(), kMaxHostScanBytes));
  // What was raised is the last Python traceback when there is one: the lines printed before it
  // (a CUDA set-up banner, a GPU's name in a log prefix) are context, not the error.
  size_t from = scanned.rfind("Traceback (most recent call last):");
  if (from == std::string_view::npos) from = 0;
  // A text that names the GPU stack is not said to be a host error: the profile says what it
  // is made of instead.
  if (NamesGpu(scanned.substr(from))) return;
  auto host = (*table)->Find(scanned.substr(from));
  if (!host) return;
  host->offset += from;
  Hit hit;
  size_t start = scanned.rfind('\n', host->offset);
  start = start == std::string_view::npos ? 0 : start + 1;
  size_t end = scanned.find('\n', host->offset);
  std::string_view line = scanned.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  hit.first_line = hit.last_line = 1 + static_cast<int>(std::count(scanned.begin(), scanned.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
  hit.occurrences = 1;
  hit.excerpt = Trimmed(line);
  hit.record = std::string(line.substr(0, kMaxMatchedLineBytes));
  hit.finding.key = host->OsLeads() ? "os_error:" + host->os->name : "python:" + host->python->name;
  hit.finding.severity = "warn";
  hit.finding.host = host;
  analysis.hits.push_back(std::move(hit));
}

}  // namespace

Analysis Analyze(const ErrorMatcher& matcher, std::string_view text, AnalysisMode mode) {
  auto emitters = EmitterTable::Embedded();
  return Analyze(matcher, emitters.ok() ? *emitters : nullptr, text, mode);
}

Analysis Analyze(const ErrorMatcher& matcher, const EmitterTable* emitters, std::string_view text, AnalysisMode mode) {
  Analysis analysis;
  unsigned threads = std::min(kMaxThreads, std::max(1u, std::thread::hardware_concurrency()));
  if (mode == AnalysisMode::kLog && text.size() >= kParallelBytes && threads > 1) {
    // A big log is cut into one stretch per core at line starts; each stretch is scanned on
    // its own (the matcher is immutable and RE2 is safe to share), then the hits are merged in
    // log order. The line numbers of a stretch start where the previous one ended.
    std::vector<std::string_view> parts = SplitLog(text, threads);
    std::vector<int> offsets(parts.size(), 0);
    for (size_t i = 1; i < parts.size(); ++i) {
      offsets[i] = offsets[i - 1] + static_cast<int>(std::count(parts[i - 1].begin(), parts[i - 1].end(), '\n'));
    }
    std::vector<Analysis> results(parts.size());
    std::vector<std::thread> workers;
    for (size_t i = 0; i < parts.size(); ++i) {
      workers.emplace_back([&, i] { results[i] = Scan(matcher, parts[i], offsets[i]); });
    }
    for (auto& w : workers) w.join();
    for (auto& r : results) Merge(analysis, std::move(r));
  } else {
    analysis = Scan(matcher, text, 0);
  }
  // A paste wrapped by a terminal or a web page ("Resource exhausted: Out\nof memory") is
  // read once more as one line, whitespace runs collapsed: when nothing was found, and when
  // only non-GPU answers were (the wrapped message's first line, "ValueError: To serve at
  // least one request with the model's max seq len (1048576),", is a plain Python exception
  // until its second line is read with it). In the second case only GPU answers are added.
  const bool only_host = !analysis.hits.empty() &&
                         std::none_of(analysis.hits.begin(), analysis.hits.end(),
                                      [](const Hit& h) { return IsGpuFinding(h.finding); });
  if ((analysis.hits.empty() || only_host) && mode == AnalysisMode::kPaste && text.size() <= kMaxFlattenedBytes &&
      text.find('\n') != std::string_view::npos) {
    std::string flat;
    flat.reserve(text.size());
    for (char c : text) {
      bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (!space) flat.push_back(c);
      else if (!flat.empty() && flat.back() != ' ') flat.push_back(' ');
    }
    for (Finding& f : matcher.MatchRecord(flat)) {
      if (only_host && !IsGpuFinding(f)) continue;
      Hit hit;
      hit.first_line = hit.last_line = 1;
      hit.occurrences = 1;
      hit.excerpt = Trimmed(flat);
      hit.record = flat.substr(0, kMaxMatchedLineBytes);
      hit.finding = std::move(f);
      analysis.hits.push_back(std::move(hit));
    }
  }
  if (emitters != nullptr && mode == AnalysisMode::kPaste) analysis.emitters = emitters->Detect(text);
  if (emitters != nullptr && !analysis.hits.empty()) RefineByEmitter(matcher.kb(), *emitters, analysis, mode);
  if (analysis.hits.empty()) {
    std::string_view query = text;
    while (!query.empty() && (query.back() == '\n' || query.back() == '\r')) query.remove_suffix(1);
    if (query.size() <= kMaxLookupBytes && query.find('\n') == std::string_view::npos) analysis.readings = matcher.Lookup(query);
    if (analysis.readings.empty()) AddHostError(text, analysis);
    return analysis;
  }
  // Rank: in a paste, symptoms after their causes; in a log, where unrelated events lie far
  // apart, by severity and time only (a symptom on the same record as its cause was already
  // folded into it). Followers last in both.
  std::vector<int> yields(analysis.hits.size());
  for (size_t i = 0; i < analysis.hits.size(); ++i) {
    yields[i] = mode == AnalysisMode::kPaste && Yields(analysis.hits[i], analysis.hits) ? 1 : 0;
  }
  bool same_clock = std::all_of(analysis.hits.begin(), analysis.hits.end(), [&](const Hit& h) {
    return h.time_kind != LogTime::Kind::kNone && h.time_kind == analysis.hits.front().time_kind;
  });
  std::vector<size_t> order(analysis.hits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Hit& x = analysis.hits[a];
    const Hit& y = analysis.hits[b];
    if (yields[a] != yields[b]) return yields[a] < yields[b];
    // A GPU error before one that is not (a server that died of a GPU fault is then refused
    // connections; the refusal is not the answer).
    bool xg = IsGpuFinding(x.finding), yg = IsGpuFinding(y.finding);
    if (xg != yg) return xg;
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
  // Each symptom names its cause when both are in the text (the first cause in rank order).
  for (size_t i = 0; i < analysis.hits.size(); ++i) {
    for (size_t j = 0; j < analysis.hits.size(); ++j) {
      if (j != i && YieldsTo(analysis.hits[i].finding, analysis.hits[j].finding)) {
        analysis.hits[i].follows = static_cast<int>(j);
        break;
      }
    }
  }
  return analysis;
}

}  // namespace gpuprobe::doctor

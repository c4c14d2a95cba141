#include "history/compare.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gpuprobe::history {

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster: return "FASTER";
    case Verdict::kSlower: return "SLOWER";
    case Verdict::kSame: return "SAME";
    case Verdict::kUnclear: return "UNCLEAR";
  }
  return "UNCLEAR";
}

namespace {

double Speedup(const RecordedResult& before, const RecordedResult& after) {
  if (before.value <= 0 || after.value <= 0) return 1;
  return before.higher_is_better() ? after.value / before.value : before.value / after.value;
}

}  // namespace

Verdict Decide(const RecordedResult& before, const RecordedResult& after) {
  double speedup = Speedup(before, after);
  if (std::fabs(speedup - 1) < kSameWithin) return Verdict::kSame;
  double before_low = std::min(before.low, before.value), before_high = std::max(before.high, before.value);
  double after_low = std::min(after.low, after.value), after_high = std::max(after.high, after.value);
  bool overlap = after_low <= before_high && before_low <= after_high;
  if (overlap) return Verdict::kUnclear;
  return speedup > 1 ? Verdict::kFaster : Verdict::kSlower;
}

RunComparison CompareRuns(const RunRecord& before, const RunRecord& after) {
  RunComparison out;
  std::set<std::string> seen;
  for (const auto& a : after.results) {
    auto b = std::find_if(before.results.begin(), before.results.end(), [&](const RecordedResult& r) { return r.key == a.key; });
    if (b == before.results.end()) {
      out.only_after.push_back(a.key);
      continue;
    }
    seen.insert(a.key);
    ResultChange c;
    c.key = a.key;
    c.id = a.id;
    c.backend = a.backend;
    c.case_label = a.case_label;
    c.metric = a.metric;
    c.unit = a.unit;
    c.before = b->value;
    c.after = a.value;
    c.speedup = Speedup(*b, a);
    c.verdict = Decide(*b, a);
    c.threads_before = b->threads;
    c.threads_after = a.threads;
    c.threads_differ = b->threads > 0 && a.threads > 0 && b->threads != a.threads;
    out.changes.push_back(c);
  }
  for (const auto& b : before.results) {
    if (!seen.count(b.key)) out.only_before.push_back(b.key);
  }
  return out;
}

std::optional<double> WorstRegression(const RunComparison& comparison) {
  std::optional<double> worst;
  for (const auto& c : comparison.changes) {
    if (c.verdict != Verdict::kSlower || c.speedup <= 0) continue;
    double slowdown = 1 - c.speedup;
    if (!worst || slowdown > *worst) worst = slowdown;
  }
  return worst;
}

}  // namespace gpuprobe::history

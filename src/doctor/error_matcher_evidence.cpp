// The weak evidence of ErrorMatcher and its lookups: status names, printed messages, numbers
// in a status position, and a query's readings ranked by the words around it.
#include "doctor/error_matcher.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/strings.h"
#include "doctor/error_matcher_internal.h"
#include "doctor/matcher_context.h"

namespace gpuprobe::doctor {

using internal::CaseInsensitive;
using internal::HasContext;
using internal::IsCudaApi;
using internal::kPositionCount;
using internal::kPositions;
using internal::kSelfEvidentWords;
using internal::Lower;
using internal::NormalizeMessage;
using internal::WordCount;

namespace {

// pynvml names its exceptions after the status in CamelCase: NVMLError_NoPermission is
// NVML_ERROR_NO_PERMISSION, NVMLError_LibRmVersionMismatch NVML_ERROR_LIB_RM_VERSION_MISMATCH.
std::string PynvmlStatus(const std::string& token) {
  const std::string prefix = "NVMLError_";
  if (token.size() <= prefix.size() || token.compare(0, prefix.size(), prefix) != 0) return {};
  std::string out = "NVML_ERROR_";
  std::string camel = token.substr(prefix.size());
  for (size_t i = 0; i < camel.size(); ++i) {
    char c = camel[i];
    bool upper = c >= 'A' && c <= 'Z';
    bool after_lower = i > 0 && camel[i - 1] >= 'a' && camel[i - 1] <= 'z';
    if (upper && after_lower) out.push_back('_');
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out;
}

}  // namespace

void ErrorMatcher::FindNames(std::string_view text, std::vector<Finding>& out) const {
  re2::StringPiece input(text.data(), text.size());
  std::string token;
  while (RE2::FindAndConsume(&input, *names_, &token)) {
    const StatusCode* s = nullptr;
    if (std::string nvml = PynvmlStatus(token); !nvml.empty()) {
      s = statuses_.FindName(nvml);
    } else if (token.rfind("ERROR_", 0) == 0 && HasContext(text, "nvml")) {
      // Go's NVML bindings print the status without its NVML_ prefix (ERROR_LIBRARY_NOT_FOUND).
      s = statuses_.FindName("NVML_" + token);
    } else if (token.size() > 5 && core::Lower(token.substr(0, 5)) == "nvml_" && core::Lower(token).rfind("nvml_error_", 0) != 0) {
      // Others drop the ERROR_ in the middle (NVML_DRIVER_NOT_LOADED).
      s = statuses_.FindName("NVML_ERROR_" + token.substr(5));
    }
    if (s == nullptr) s = statuses_.FindName(token);
    if (s != nullptr) out.push_back(ForStatus(*s, Evidence::kStatusName));
  }
}

void ErrorMatcher::FindMessages(std::string_view text, const std::vector<size_t>& positions, std::vector<Finding>& out) const {
  // The status text printed right after "CUDA error:" / "Cuda failure 1 '" is the status, even
  // when a tool's own words ("initialization error:") come earlier on the line.
  static const RE2 kCudaMarker(R"((?i)cuda[ _]?(?:runtime )?(?:error|failure)\s*#?\(?\d*\)?\s*[:'"(]?\s*$)");
  // Numbers in a status position on the same line, to pick the API whose number agrees.
  std::vector<std::pair<std::string, long long>> numbers;
  for (size_t index : positions) {
    const NumberPosition& position = numbers_[index];
    std::string digits;
    if (RE2::PartialMatch(text, *position.re, &digits)) numbers.emplace_back(position.api, std::atoll(digits.c_str()));
  }
  auto agrees = [&](const StatusCode* s) {
    return std::any_of(numbers.begin(), numbers.end(), [&](const auto& n) {
      bool fits = n.first == "cuda" ? IsCudaApi(s->api) : n.first == s->api;
      return fits && n.second == s->value;
    });
  };
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece found;
  const StatusCode* best = nullptr;
  size_t best_length = 0;
  bool best_marked = false;
  while (RE2::FindAndConsume(&input, *messages_, &found)) {
    std::string key = Lower(std::string_view(found.data(), found.size()));
    auto it = std::find_if(message_index_.begin(), message_index_.end(), [&](const auto& m) { return m.first == key; });
    if (it == message_index_.end()) continue;
    size_t at = static_cast<size_t>(found.data() - text.data());
    std::string_view before = text.substr(at >= 48 ? at - 48 : 0, at >= 48 ? 48 : at);
    bool marked = RE2::PartialMatch(before, kCudaMarker);
    // A number beside the message picks its API; then a library named on the line; else the
    // runtime's message counts when it is self-evident or CUDA is named on the line.
    const StatusCode* chosen = nullptr;
    for (const StatusCode* s : it->second) {
      if (chosen == nullptr && agrees(s)) chosen = s;
    }
    // After "CUDA error:" a message the runtime never prints is a library's: PyTorch's cuBLAS and
    // cuSPARSE checks print "CUDA error: <the library's status string> when calling `cusparse...`".
    const bool runtime_owns = std::any_of(it->second.begin(), it->second.end(), [](const StatusCode* s) { return s->api == kApiCudaRuntime; });
    if (chosen == nullptr && (!marked || !runtime_owns)) {
      for (const StatusCode* s : it->second) {
        if (s->api != kApiCudaRuntime && HasContext(text, s->api)) chosen = s;
      }
    }
    if (chosen == nullptr) {
      // A short message on a line that names a math library or NVML ("gko::CusparseError ...:
      // Unknown error") is that library's words, not the CUDA runtime's, unless "CUDA error:"
      // precedes it. NCCL and TensorRT are left out: they print CUDA's own messages.
      bool other_library = false;
      for (const char* api : {"cublas", "cusparse", "cufft", "cusolver", "curand", "cudnn", "nvml"}) {
        other_library = other_library || HasContext(text, api);
      }
      bool short_message = WordCount(key) < kSelfEvidentWords;
      // Two runtime statuses can print the same words ("device kernel image is invalid" is 200
      // and 300): the lower number is read, the one a loader (cuModuleLoad, Triton, PyTorch)
      // reports; the entry that answers for both says so.
      for (const StatusCode* s : it->second) {
        if (chosen != nullptr || s->api != kApiCudaRuntime) continue;
        if (!marked && short_message && other_library) continue;
        if (marked || !short_message || HasContext(text, kApiCudaRuntime)) chosen = s;
      }
    }
    if (chosen == nullptr) continue;
    bool better = best == nullptr || (marked && !best_marked) || (marked == best_marked && key.size() > best_length);
    if (better) {
      best = chosen;
      best_length = key.size();
      best_marked = marked;
    }
  }
  if (best != nullptr) out.push_back(ForStatus(*best, Evidence::kMessage));
}

namespace {

// Edits (insert, delete, replace) from `a` to `b`, stopping early above `limit`.
size_t EditDistance(std::string_view a, std::string_view b, size_t limit) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    size_t best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
  }
  return row[b.size()];
}

}  // namespace

void ErrorMatcher::FindMisspeltMessage(std::string_view text, std::vector<Finding>& out) const {
  // The words after the marker up to the end of the sentence: what the runtime would have
  // printed, as the person retyped it.
  static const RE2 kAfterMarker(R"((?i)\bcuda[ _]?(?:runtime )?error\s*:\s*([a-z][a-z '-]{9,79}[a-z]))");
  std::string words;
  if (!RE2::PartialMatch(text, kAfterMarker, &words)) return;
  words = Lower(words);
  // Two edits at most, and fewer than one in eight letters: a slip, not another message.
  const size_t limit = std::min<size_t>(2, words.size() / 8);
  const StatusCode* only = nullptr;
  size_t found = 0;
  for (const auto& [message, owners] : message_index_) {
    const StatusCode* runtime = nullptr;
    for (const StatusCode* s : owners) {
      if (s->api == kApiCudaRuntime) runtime = s;
    }
    if (runtime == nullptr || EditDistance(words, message, limit) > limit) continue;
    if (words == message) return;  // spelt right: the exact reading already had its chance
    only = runtime;
    ++found;
  }
  if (found == 1) out.push_back(ForStatus(*only, Evidence::kMessage));
}

std::vector<const StatusCode*> ErrorMatcher::RankReadings(std::vector<const StatusCode*> readings, std::string_view context,
                                                           bool old_era) const {
  auto rank = [&](const StatusCode* s) {
    if (!IsCudaApi(s->api)) return HasContext(context, s->api) ? 0 : 20;
    if (s->api == kApiCudaRuntimeLegacy) return old_era ? 9 : 13;
    if (s->api == kApiCudaDriver) return HasContext(context, kApiCudaDriver) ? 5 : 11;
    return 10;
  };
  std::stable_sort(readings.begin(), readings.end(), [&](const StatusCode* a, const StatusCode* b) { return rank(a) < rank(b); });
  return readings;
}

void ErrorMatcher::FindNumbers(std::string_view text, const std::vector<size_t>& positions, std::vector<Finding>& out) const {
  for (size_t index : positions) {
    const NumberPosition& position = numbers_[index];
    std::string digits;
    if (!RE2::PartialMatch(text, *position.re, &digits)) continue;
    long long value = std::atoll(digits.c_str());
    std::vector<const StatusCode*> readings;
    for (const StatusCode* s : statuses_.FindValue(value)) {
      bool fits = position.api == "cuda" ? IsCudaApi(s->api)
                  : position.api == kApiCudaDriver ? s->api == kApiCudaDriver
                                                   : s->api == position.api;
      if (fits) readings.push_back(s);
    }
    if (readings.empty()) continue;
    // A number the current runtime no longer has can only be the old numbering.
    bool current = std::any_of(readings.begin(), readings.end(), [](const StatusCode* s) { return s->api == kApiCudaRuntime; });
    readings = RankReadings(std::move(readings), text, position.old_era || !current);
    Finding f = ForStatus(*readings.front(), Evidence::kNumber);
    for (size_t i = 1; i < readings.size(); ++i) {
      if (&statuses_.Canonical(*readings[i]) != &statuses_.Canonical(*readings.front())) f.other_readings.push_back(readings[i]);
    }
    out.push_back(f);
    return;
  }
}
std::vector<Finding> ErrorMatcher::Lookup(std::string_view query) const {
  static const RE2 kXidQuery(R"((?i)\s*(s?)xid\s*[:#=]?\s*(\d{1,5})\s*)");
  static const RE2 kNumberQuery(R"((?i)\s*(?:([a-z_]+)\s+)?(?:error|err|code|status|result|failure|returned|rc)?\s*[:#=(]?\s*(-?\d{1,6})\)?\s*)");
  static const RE2 kName(R"(\s*`?([A-Za-z_][A-Za-z0-9_]*)`?\s*)");
  std::string sxid, digits, word, name;
  std::vector<Finding> out;
  if (RE2::FullMatch(query, kXidQuery, &sxid, &digits)) {
    XidEvent event;
    event.number = std::atoi(digits.c_str());
    event.nvswitch = !sxid.empty();
    out.push_back(ForXid(event, Evidence::kQuery));
    return out;
  }
  if (RE2::FullMatch(query, kName, &name)) {
    if (const StatusCode* s = statuses_.FindName(name)) {
      out.push_back(ForStatus(*s, Evidence::kQuery));
    } else if (const KnowledgeEntry* e = kb_.Find(name)) {
      // An answer's own id, as the views print it ("gpuprobe explain rm_init_adapter_failed").
      if (e->xid) {
        XidEvent event;
        event.number = *e->xid;
        event.nvswitch = e->nvswitch;
        out.push_back(ForXid(event, Evidence::kQuery));
      } else {
        Finding f;
        f.key = e->id;
        f.entry = e;
        f.severity = e->severity;
        f.evidence = Evidence::kQuery;
        out.push_back(f);
      }
    }
    return out;
  }
  // A key with its status: "cublas_error:CUBLAS_STATUS_ALLOC_FAILED", "status:cudaErrorInvalidPitchValue".
  static const RE2 kKey(R"(\s*[a-z_0-9]+:([A-Za-z_][A-Za-z0-9_]*)\s*)");
  if (RE2::FullMatch(query, kKey, &name)) {
    if (const StatusCode* s = statuses_.FindName(name)) out.push_back(ForStatus(*s, Evidence::kQuery));
    return out;
  }
  if (!RE2::FullMatch(query, kNumberQuery, &word, &digits)) return out;
  long long value = std::atoll(digits.c_str());
  std::vector<const StatusCode*> readings = statuses_.FindValue(value);
  readings = RankReadings(std::move(readings), query, false);
  // An Xid reading sits after the CUDA runtime's and driver's, before old numbering and the
  // libraries', unless the words around say Xid.
  bool xid_context = HasContext(query, "xid");
  bool placed_xid = false;
  auto add_xid = [&]() {
    if (placed_xid) return;
    placed_xid = true;
    if (value <= 0 || value > 99999) return;
    XidEvent event;
    event.number = static_cast<int>(value);
    event.nvswitch = value > 9999;
    if (xids_.Find(event.number, event.nvswitch) != nullptr) out.push_back(ForXid(event, Evidence::kQuery));
  };
  if (xid_context) add_xid();
  for (const StatusCode* s : readings) {
    bool library_context = !IsCudaApi(s->api) && HasContext(query, s->api);
    if (!library_context && (s->api == kApiCudaRuntimeLegacy || !IsCudaApi(s->api))) add_xid();
    Finding f = ForStatus(*s, Evidence::kQuery);
    if (std::none_of(out.begin(), out.end(), [&](const Finding& o) { return o.key == f.key; })) out.push_back(f);
  }
  add_xid();
  return out;
}
}  // namespace gpuprobe::doctor

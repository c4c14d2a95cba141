#include "doctor/error_matcher.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include "core/embedded_data.h"
#include "doctor/error_matcher_internal.h"
#include "doctor/matcher_context.h"
#include "doctor/library_messages.h"

namespace gpuprobe::doctor {

using internal::CaseInsensitive;
using internal::HasContext;
using internal::IsCudaApi;
using internal::kMaxRe2Memory;
using internal::kPositionCount;
using internal::kPositions;
using internal::kSelfEvidentWords;
using internal::Lower;
using internal::NormalizeMessage;
using internal::WordCount;

namespace {

// Libraries whose own messages are read from their source (library_messages.h): a record that
// names the library is read against its table.
struct LibrarySource {
  const char* gate;  // RE2, case-insensitive
  core::Result<const LibraryMessageTable*> (*table)();
};
const LibrarySource kLibraries[] = {
    {R"(\bnccl|\bNET/\w+\s*:)", &LibraryMessageTable::Nccl},         // a plugin prints "NET/IBP:"
    {R"(\bcudnn[_ ]?frontend\b)", &LibraryMessageTable::CudnnFrontend},  // "[cudnn_frontend] Error: ..."
};

// Atoms shorter than this are not worth a prefilter ("cu", "id").
constexpr int kMinAtomLength = 3;
// More candidate patterns than this on one record: the combined automaton is cheaper.
constexpr size_t kMaxCandidates = 24;
// Sets of atoms whose candidate rules a thread remembers (a log repeats a few dozen).
constexpr size_t kMaxRememberedAtomSets = 256;

// "CUSOLVER_STATUS_INTERNAL_ERROR" -> "internal error", "CUFFT_INVALID_PLAN" -> "invalid plan":
// the words after the API's prefix (up to STATUS_/ERROR_, or the first underscore).
std::string EnumeratorWords(const std::string& name) {
  size_t cut = std::string::npos;
  for (std::string_view marker : {"_STATUS_", "_ERROR_"}) {
    size_t at = name.find(marker);
    if (at != std::string::npos) {
      cut = at + marker.size();
      break;
    }
  }
  if (cut == std::string::npos) {
    size_t underscore = name.find('_');
    if (underscore == std::string::npos) return {};
    cut = underscore + 1;
  }
  std::string words = Lower(name.substr(cut));
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

}  // namespace

bool NamesGpu(std::string_view text) {
  static const RE2 kGpuWords(
      R"((?i)\b(?:cuda\w*|gpus?|nvidia\w*|nvml\w*|nccl\w*|cudnn\w*|cublas\w*|cusolver\w*|cusparse\w*|cufft\w*|curand\w*|nvrtc\w*|nvrm|xid|tensorrt|ptxas|nvcc|vram|cupy\w*|hip|rocm\w*|amdgpu)\b)");
  return RE2::PartialMatch(text, kGpuWords);
}

std::string SeverityOfAction(const std::string& action) {
  if (action == "none") return "info";
  if (action == "reset_gpu" || action == "reboot_node" || action == "drain_node" || action == "rma") return "fail";
  return "warn";
}

ErrorMatcher::ErrorMatcher(const KnowledgeBase& kb, const StatusTable& statuses, const XidCatalog& xids)
    : kb_(kb), statuses_(statuses), xids_(xids) {
  static std::atomic<std::uint64_t> next_identity{1};
  identity_ = next_identity.fetch_add(1);
}

ErrorMatcher::~ErrorMatcher() = default;

core::Result<std::unique_ptr<ErrorMatcher>> ErrorMatcher::Create(const KnowledgeBase& kb, const StatusTable& statuses,
                                                                 const XidCatalog& xids) {
  for (const auto& e : kb.entries()) {
    for (const auto& name : e.statuses) {
      if (statuses.FindName(name) == nullptr) {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': unknown status '{}'", e.id, name));
      }
    }
    for (const auto& p : e.patterns) {
      if (!p.status.empty() && statuses.FindName(p.status) == nullptr) {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': a pattern names unknown status '{}'", e.id, p.status));
      }
    }
    for (const auto& [name, note] : e.status_notes) {
      if (statuses.FindName(name) == nullptr) {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': a note names unknown status '{}'", e.id, name));
      }
    }
    if (e.xid && xids.Find(*e.xid, e.nvswitch) == nullptr) {
      return core::Status::ParseError(fmt::format("knowledge base entry '{}': Xid {} is not in the catalogue", e.id, *e.xid));
    }
  }
  std::unique_ptr<ErrorMatcher> matcher(new ErrorMatcher(kb, statuses, xids));
  GPUPROBE_RETURN_IF_ERROR(matcher->Compile());
  return matcher;
}

core::Result<const ErrorMatcher*> ErrorMatcher::Embedded() {
  static const core::Result<std::unique_ptr<ErrorMatcher>> kMatcher = []() -> core::Result<std::unique_ptr<ErrorMatcher>> {
    auto kb = KnowledgeBase::Embedded();
    if (!kb.ok()) return kb.status();
    auto statuses = StatusTable::Embedded();
    if (!statuses.ok()) return statuses.status();
    auto xids = XidCatalog::Embedded();
    if (!xids.ok()) return xids.status();
    return Create(**kb, **statuses, **xids);
  }();
  if (!kMatcher.ok()) return core::DamagedEmbeddedData(kMatcher.status());
  return kMatcher.value().get();
}

core::Status ErrorMatcher::Compile() {
  // The rules are compiled once, behind the prefilter (FilteredRE2); the combined automaton of
  // all of them is built only when a record needs it (CombinedSet): every explain pays for the
  // first, few for the second.
  std::vector<std::string>& rule_patterns = rule_patterns_;
  auto add = [this, &rule_patterns](const std::string& pattern, Rule rule) -> core::Status {
    rules_.push_back(rule);
    rule_patterns.push_back(pattern);
    return core::Status::Ok();
  };
  const auto& entries = kb_.entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    for (size_t j = 0; j < entries[i].patterns.size(); ++j) {
      GPUPROBE_RETURN_IF_ERROR(add(entries[i].patterns[j].regex, {Rule::Kind::kPattern, i, j}));
    }
  }
  const std::string names =
      R"(\b(cudaError[a-z]\w*|CUDA_ERROR_\w+|ERROR_[A-Z_]{4,}|CUBLAS_STATUS_\w+|CUFFT_\w+|CUSOLVER_STATUS_\w+|)"
      R"(CUSPARSE_STATUS_\w+|NVRTC_ERROR_\w+|CUDNN_STATUS_\w+|NVML_ERROR_\w+|NVML_[A-Z_]{4,}|NVMLError_\w+|CURAND_STATUS_\w+|NVJITLINK_ERROR_\w+|NVVM_ERROR_\w+|)"
      R"(nccl[a-z]+(?:error|argument|usage|progress))\b)";
  names_ = std::make_unique<RE2>(names, CaseInsensitive());
  GPUPROBE_RETURN_IF_ERROR(add(names, {Rule::Kind::kName}));
  GPUPROBE_RETURN_IF_ERROR(add(R"(\bs?xid\b[^\n]{0,60}?\d)", {Rule::Kind::kXid}));
  // "CUDA error: <words>": read again for a retyped message when nothing else is found.
  GPUPROBE_RETURN_IF_ERROR(add(R"(\bcuda[ _]?(?:runtime )?error\s*:\s*[a-z])", {Rule::Kind::kCudaErrorText}));
  // A line that names NCCL (or one of its network plugins) or the cuDNN frontend is read
  // against that library's own messages (compiled on first use).
  for (size_t i = 0; i < sizeof(kLibraries) / sizeof(kLibraries[0]); ++i) {
    library_gates_.push_back(std::make_unique<RE2>(kLibraries[i].gate, CaseInsensitive()));
    GPUPROBE_RETURN_IF_ERROR(add(kLibraries[i].gate, {Rule::Kind::kLibrary, 0, i}));
  }
  for (const auto& e : kb_.entries()) {
    if (std::find(e.status_prefixes.begin(), e.status_prefixes.end(), "nccl") != e.status_prefixes.end()) nccl_family_ = &e;
  }

  // Printed messages: every status that has one, longest first so the alternation prefers
  // "unspecified launch failure in prior launch" over its prefix.
  std::map<std::string, std::vector<const StatusCode*>> by_message;
  for (const auto& s : statuses_.statuses()) {
    if (s.api == kApiCudaRuntimeLegacy || s.api == kApiCudaDriver) continue;
    // A library without an error-string function (cuSOLVER, cuFFT, cuRAND) is quoted by its
    // callers in the enumerator's own words: "cuSolver internal error" is
    // CUSOLVER_STATUS_INTERNAL_ERROR. Such words count only beside the library's name, as every
    // library message does (FindMessages).
    std::string message = s.message.empty() ? EnumeratorWords(s.name) : Lower(NormalizeMessage(s.message));
    if (message.size() < 6) continue;
    by_message[message].push_back(&s);
  }
  message_index_.assign(by_message.begin(), by_message.end());
  std::sort(message_index_.begin(), message_index_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string all;
  for (const auto& [message, owners] : message_index_) all += (all.empty() ? "" : "|") + RE2::QuoteMeta(message);
  RE2::Options longest = CaseInsensitive();
  longest.set_longest_match(true);
  messages_ = std::make_unique<RE2>("(" + all + ")", longest);
  if (!messages_->ok()) return core::Status::ParseError("explain: cannot compile the status messages: " + messages_->error());
  // Any message flags the record; FindMessages then decides whether it counts (a short one
  // only beside its API's name). Keeping the context out of the combined set keeps its
  // automaton small: "context, anything, message" patterns multiply its states.
  GPUPROBE_RETURN_IF_ERROR(add(R"(\b(?:)" + all + R"())", {Rule::Kind::kMessage}));

  for (size_t i = 0; i < kPositionCount; ++i) {
    NumberPosition position;
    position.re = std::make_unique<RE2>(kPositions[i].re, CaseInsensitive());
    position.api = kPositions[i].api;
    position.old_era = kPositions[i].old_era;
    if (!position.re->ok()) return core::Status::Internal(fmt::format("explain: bad number position {}", kPositions[i].re));
    numbers_.push_back(std::move(position));
    GPUPROBE_RETURN_IF_ERROR(add(kPositions[i].re, {Rule::Kind::kNumber, 0, i}));
  }
  // The rules, in order, behind a prefilter of their literal words.
  filter_ = std::make_unique<re2::FilteredRE2>(kMinAtomLength);
  for (size_t i = 0; i < rule_patterns.size(); ++i) {
    int id = -1;
    if (filter_->Add(rule_patterns[i], CaseInsensitive(), &id) != RE2::NoError || id != static_cast<int>(i)) {
      return core::Status::ParseError("explain: cannot compile pattern " + rule_patterns[i]);
    }
  }
  std::vector<std::string> atoms;
  filter_->Compile(&atoms);
  // The atoms are lower case: they are matched, case-sensitively (a smaller automaton), on a
  // lower-cased copy of the record.
  RE2::Options literal;
  literal.set_literal(true);
  literal.set_log_errors(false);
  literal.set_max_mem(kMaxRe2Memory);
  atoms_ = std::make_unique<RE2::Set>(literal, RE2::UNANCHORED);
  for (const auto& atom : atoms) {
    if (atoms_->Add(atom, nullptr) < 0) return core::Status::Internal("explain: cannot add atom " + atom);
  }
  if (!atoms_->Compile()) return core::Status::ParseError("explain: the patterns' words are too many to compile together");
  filter_->AllPotentials({}, &unfiltered_);
  return core::Status::Ok();
}

const RE2::Set* ErrorMatcher::CombinedSet() const {
  std::call_once(set_once_, [this] {
    auto set = std::make_unique<RE2::Set>(CaseInsensitive(), RE2::UNANCHORED);
    for (const auto& pattern : rule_patterns_) {
      if (set->Add(pattern, nullptr) < 0) return;
    }
    if (set->Compile()) set_ = std::move(set);
  });
  return set_.get();
}

std::vector<int> ErrorMatcher::MatchingRules(std::string_view text) const {
  re2::StringPiece piece(text.data(), text.size());
  // Most records of a log match nothing: the scratch buffers are the thread's own, so a record
  // that matches nothing allocates nothing.
  thread_local std::string lower;
  thread_local std::vector<int> atoms, candidates;
  lower.assign(text.data(), text.size());
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  atoms.clear();
  std::vector<int> matched;
  RE2::Set::ErrorInfo atom_error;
  if (atoms_->Match(lower, &atoms, &atom_error) || atom_error.kind == RE2::Set::kNoError) {
    // A record with none of the words (most of a log) has only the atom-less rules to try.
    const std::vector<int>* tried = &unfiltered_;
    if (!atoms.empty()) {
      // The rules that may match follow from the set of atoms alone, and a log repeats few
      // sets (every line of an Xid storm has the same words): each set's answer is kept, a
      // bounded number of them per thread.
      // Keyed by the matcher too: tests build several in one thread.
      thread_local std::map<std::pair<std::uint64_t, std::vector<int>>, std::vector<int>> potentials;
      thread_local std::pair<std::uint64_t, std::vector<int>> key;
      std::sort(atoms.begin(), atoms.end());
      key.first = identity_;
      key.second = atoms;
      auto known = potentials.find(key);
      if (known == potentials.end()) {
        candidates.clear();
        filter_->AllPotentials(atoms, &candidates);
        if (potentials.size() >= kMaxRememberedAtomSets) potentials.clear();
        known = potentials.emplace(key, candidates).first;
      }
      tried = &known->second;
    }
    // A line with every word of many patterns (a hostile one) costs one pass of the combined
    // automaton instead of one pass per candidate.
    if (tried->size() <= kMaxCandidates) {
      for (int id : *tried) {
        if (RE2::PartialMatch(piece, filter_->GetRE2(id))) matched.push_back(id);
      }
      std::sort(matched.begin(), matched.end());
      return matched;
    }
  }
  RE2::Set::ErrorInfo error;
  error.kind = RE2::Set::kOutOfMemory;
  if (const RE2::Set* set = CombinedSet()) {
    if (set->Match(re2::StringPiece(text.data(), text.size()), &matched, &error)) {
      std::sort(matched.begin(), matched.end());
      return matched;
    }
  }
  matched.clear();
  if (error.kind == RE2::Set::kNoError) return matched;
  // The combined automaton ran out of memory on this record: try each rule on its own (slower,
  // still linear, same answer).
  for (size_t i = 0; i < rules_.size(); ++i) {
    const Rule& rule = rules_[i];
    bool hit = false;
    switch (rule.kind) {
      case Rule::Kind::kPattern: hit = RE2::PartialMatch(text, filter_->GetRE2(static_cast<int>(i))); break;
      case Rule::Kind::kName: hit = RE2::PartialMatch(text, *names_); break;
      case Rule::Kind::kMessage: hit = RE2::PartialMatch(text, *messages_); break;
      case Rule::Kind::kNumber: hit = RE2::PartialMatch(text, *numbers_[rule.pattern].re); break;
      case Rule::Kind::kXid: hit = ParseXidLine(text).has_value(); break;
      case Rule::Kind::kLibrary: hit = RE2::PartialMatch(text, *library_gates_[rule.pattern]); break;
      case Rule::Kind::kCudaErrorText:
        hit = RE2::PartialMatch(text, filter_->GetRE2(static_cast<int>(i)));
        break;
    }
    if (hit) matched.push_back(static_cast<int>(i));
  }
  return matched;
}

Finding ErrorMatcher::ForStatus(const StatusCode& status, Evidence evidence) const {
  Finding f;
  f.status = &status;
  f.evidence = evidence;
  const StatusCode& canonical = statuses_.Canonical(status);
  bool family = false;
  f.entry = kb_.ForStatus(status.name, &family);
  if (f.entry == nullptr) f.entry = kb_.ForStatus(canonical.name, &family);
  if (f.entry == nullptr) {
    f.key = "status:" + canonical.name;
  } else {
    f.key = family ? f.entry->id + ":" + canonical.name : f.entry->id;
  }
  f.severity = f.entry != nullptr ? f.entry->severity : "warn";
  return f;
}

Finding ErrorMatcher::ForXid(const XidEvent& event, Evidence evidence) const {
  Finding f;
  f.xid = event;
  f.evidence = evidence;
  f.xid_info = xids_.Find(event.number, event.nvswitch);
  f.entry = kb_.ForXid(event.number, event.nvswitch);
  f.key = f.entry != nullptr ? f.entry->id : fmt::format("{}:{}", event.nvswitch ? "sxid" : "xid", event.number);
  f.severity = f.entry != nullptr ? f.entry->severity : f.xid_info != nullptr ? SeverityOfAction(f.xid_info->action) : "warn";
  return f;
}
std::vector<Finding> ErrorMatcher::MatchRecord(std::string_view text) const {
  std::vector<int> matched = MatchingRules(text);
  if (matched.empty()) return {};
  return MatchRecord(text, matched);
}

std::vector<Finding> ErrorMatcher::MatchRecord(std::string_view text, const std::vector<int>& matched) const {
  std::vector<Finding> strong, weak, fallback, own_messages;
  bool names = false, messages = false, cuda_text = false;
  // The line's Xid, read once: an Xid entry's pattern and the Xid rule both want it.
  std::optional<std::optional<XidEvent>> xid_line;
  auto xid = [&]() -> const std::optional<XidEvent>& {
    if (!xid_line) xid_line = ParseXidLine(text);
    return *xid_line;
  };
  // The number positions come last in the set; they are read before the messages use them.
  std::vector<size_t> positions;
  for (int index : matched) {
    const Rule& rule = rules_[static_cast<size_t>(index)];
    if (rule.kind == Rule::Kind::kNumber) positions.push_back(rule.pattern);
  }
  for (int index : matched) {
    const Rule& rule = rules_[static_cast<size_t>(index)];
    switch (rule.kind) {
      case Rule::Kind::kPattern: {
        const KnowledgeEntry& e = kb_.entries()[rule.entry];
        const EntryPattern& p = e.patterns[rule.pattern];
        if (e.unless_gpu_words && NamesGpu(text)) break;
        if (!p.status.empty()) {
          if (const StatusCode* s = statuses_.FindName(p.status)) {
            Finding f = ForStatus(*s, Evidence::kPattern);
            f.entry = &e;
            strong.push_back(f);
            break;
          }
        }
        Finding f;
        f.entry = &e;
        f.key = e.id;
        f.severity = e.severity;
        f.evidence = Evidence::kPattern;
        if (e.xid) {
          XidEvent event;
          event.number = *e.xid;
          event.nvswitch = e.nvswitch;
          f = ForXid(xid().value_or(event), Evidence::kPattern);
        }
        // A secondary entry ("a CUDA call failed") is a fallback: it never hides a status the
        // same line prints.
        (e.secondary ? fallback : strong).push_back(f);
        break;
      }
      case Rule::Kind::kName:
        if (!names) FindNames(text, strong);
        names = true;
        break;
      case Rule::Kind::kXid:
        if (const auto& event = xid()) strong.push_back(ForXid(*event, Evidence::kXid));
        break;
      case Rule::Kind::kMessage:
        if (!messages) FindMessages(text, positions, weak);
        messages = true;
        break;
      case Rule::Kind::kNumber:
        break;
      case Rule::Kind::kCudaErrorText:
        cuda_text = true;
        break;
      case Rule::Kind::kLibrary: {
        auto table = kLibraries[rule.pattern].table();
        const LibraryMessage* w = table.ok() ? (*table)->Match(text) : nullptr;
        if (w == nullptr) break;
        Finding f;
        const StatusCode* s = w->result.empty() ? nullptr : statuses_.FindName(w->result);
        if (s != nullptr && s->api == (*table)->api()) {
          f = ForStatus(*s, Evidence::kPattern);
        } else if (nccl_family_ != nullptr && (*table)->api() == "nccl") {
          f.entry = nccl_family_;
          f.key = nccl_family_->id;
          f.severity = nccl_family_->severity;
          f.evidence = Evidence::kPattern;
        } else {
          break;
        }
        f.origin_api = (*table)->api();
        f.origin_subsystem = w->subsystem;
        f.origin_file = w->file;
        own_messages.push_back(std::move(f));
        break;
      }
    }
  }
  // A library's own messages come after the entries' phrasings of the same line.
  strong.insert(strong.end(), own_messages.begin(), own_messages.end());
  std::vector<Finding> out;
  // Moved, not copied: nothing reads a finding after it is handed on (an Xid storm builds one
  // per line).
  auto add_unique = [&out](Finding& f) {
    if (std::none_of(out.begin(), out.end(), [&](const Finding& o) { return o.key == f.key; })) out.push_back(std::move(f));
  };
  // A family's own phrasing without a status ("NCCL error in: ...") takes the status the same
  // line prints ("..., unhandled system error").
  if (!strong.empty() && !messages) {
    bool generic = std::any_of(strong.begin(), strong.end(), [](const Finding& f) {
      return f.entry != nullptr && f.status == nullptr && !f.entry->status_prefixes.empty();
    });
    if (generic) {
      FindMessages(text, positions, weak);
      messages = true;
    }
  }
  // An entry's phrasing without a status takes the status another piece of evidence on the
  // same line gives for the same entry (a family's, or a library's own message's).
  for (auto& f : strong) {
    if (f.entry == nullptr || f.status != nullptr || (f.entry->status_prefixes.empty() && f.entry->statuses.empty())) continue;
    auto specific = [&](const Finding& o) { return o.entry == f.entry && o.status != nullptr; };
    auto it = std::find_if(strong.begin(), strong.end(), specific);
    if (it != strong.end()) {
      f = *it;
    } else if (auto w = std::find_if(weak.begin(), weak.end(), specific); w != weak.end()) {
      f = *w;
    }
  }
  // An entry that holds only where a line names nothing of the GPU (a plain Python exception)
  // does not hold on a line that carries a GPU error either: vLLM's "ValueError: The model's
  // max seq len ..." is vLLM's KV-cache error, not also a bug in the program.
  if (strong.size() > 1 && std::any_of(strong.begin(), strong.end(), [](const Finding& f) {
        return f.entry == nullptr || f.entry->gpu;
      })) {
    strong.erase(std::remove_if(strong.begin(), strong.end(),
                                [](const Finding& f) { return f.entry != nullptr && f.entry->unless_gpu_words; }),
                 strong.end());
  }
  // One strong finding (most lines of a log that match at all) is the answer as it is.
  if (strong.size() == 1) return strong;
  for (auto& f : strong) add_unique(f);
  if (!out.empty()) return out;
  // Weak evidence: the printed message is more specific than a number beside it, except a
  // number in a library's own status position ("NCCL Error 1:") against a message of another
  // API elsewhere on the line (CUDA's "out of memory" in the sentence after it).
  std::vector<Finding> numbered;
  if (!positions.empty()) FindNumbers(text, positions, numbered);
  const StatusCode* library = !numbered.empty() && numbered.front().status != nullptr && !IsCudaApi(numbered.front().status->api)
                                  ? numbered.front().status
                                  : nullptr;
  bool library_first = library != nullptr && std::none_of(weak.begin(), weak.end(), [&](const Finding& f) {
                         return f.status != nullptr && f.status->api == library->api;
                       });
  if (library_first) {
    for (auto& f : numbered) add_unique(f);
  }
  for (auto& f : weak) add_unique(f);
  if (out.empty()) {
    for (auto& f : numbered) add_unique(f);
  }
  if (out.empty() && cuda_text) FindMisspeltMessage(text, out);
  for (auto& f : fallback) add_unique(f);
  return out;
}
}  // namespace gpuprobe::doctor

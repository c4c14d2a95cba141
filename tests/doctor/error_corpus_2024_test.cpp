// The 2024-2026 corpus (tests/fixtures/error_corpus_2024: real texts from bug reports, split by
// source repository into "train" and "heldout"; about one in six is not a GPU error).
//
// Train: every text must land on its label (expect, or one of also), except the listed known
// misses, each with its reason; a listed miss that starts landing fails too, so the list stays
// exact. A regression names the file.
// Held-out: only the aggregate is printed (recognised, non-GPU texts claimed as GPU errors, by
// layer): those texts are not read while rules are written. The threshold is the one held;
// the score itself is reported in the rounds note.
//
// "Recognised" is the definition of tools/explain_score.py: for a GPU text the top answer
// carries one of the text's labels; for a non-GPU text the top answer is a not-GPU entry that
// carries one. An answer's labels come from data (tests/doctor/explain_labels.json, the
// entries' statuses), never from a text.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

const ErrorMatcher& Matcher() {
  auto m = ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::string kRoot = std::string(GPUPROBE_FIXTURES_DIR) + "/error_corpus_2024/";

// The train texts explain does not land on yet, with the reason; nothing else may miss.
const std::map<std::string, std::string> kKnownTrainMisses = {
    {"texts/187-ginkgo-cusparse-spgemm-unknown-error.txt",
     "the binding prints 'Unknown error' for a status its own table lacks: no structure names the status"},
};

bool IsCudaApi(const std::string& api) { return api == kApiCudaRuntime || api == kApiCudaDriver || api == kApiCudaRuntimeLegacy; }

std::string StatusLabel(const StatusCode& s, const StatusTable& table) {
  const StatusCode& c = table.Canonical(s);
  return IsCudaApi(s.api) ? c.name : s.api + ":" + c.name;
}

// The labels an answer carries (see the file comment).
std::set<std::string> Labels(const Finding& f) {
  static const nlohmann::json kAliases = [] {
    auto j = nlohmann::json::parse(ReadFile(std::string(GPUPROBE_TESTS_DIR) + "/doctor/explain_labels.json"), nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j.value("entry_labels", nlohmann::json::object());
  }();
  const ErrorMatcher& m = Matcher();
  std::set<std::string> out;
  auto add_entry = [&](const std::string& id) {
    out.insert(id);
    if (kAliases.contains(id)) {
      for (const auto& a : kAliases[id]) out.insert(a.get<std::string>());
    }
    if (const KnowledgeEntry* e = m.kb().Find(id)) {
      for (const auto& name : e->statuses) {
        if (const StatusCode* s = m.statuses().FindName(name)) out.insert(StatusLabel(*s, m.statuses()));
      }
    }
  };
  add_entry(f.key);
  if (f.entry != nullptr) add_entry(f.entry->id);
  if (f.status != nullptr) out.insert(StatusLabel(*f.status, m.statuses()));
  if (f.xid) out.insert((f.xid->nvswitch ? "sxid:" : "xid:") + std::to_string(f.xid->number));
  return out;
}

struct Outcome {
  bool recognised = false;
  bool claimed = false;  ///< a non-GPU text answered as a GPU error
  std::string got;
};

Outcome Score(const nlohmann::json& item, const std::string& root = kRoot) {
  std::string text = ReadFile(root + item["file"].get<std::string>());
  Analysis a = Analyze(Matcher(), text, AnalysisMode::kPaste);
  const Finding* top = !a.hits.empty() ? &a.hits.front().finding : !a.readings.empty() ? &a.readings.front() : nullptr;
  Outcome o;
  o.got = top == nullptr ? "(nothing)" : top->key;
  if (top == nullptr) return o;
  std::set<std::string> want = {item["expect"].get<std::string>()};
  for (const auto& also : item.value("also", nlohmann::json::array())) want.insert(also.get<std::string>());
  std::set<std::string> labels = Labels(*top);
  bool carries = std::any_of(want.begin(), want.end(), [&](const std::string& w) { return labels.count(w) != 0; });
  bool gpu_text = item["gpu_related"].get<bool>();
  o.recognised = carries && IsGpuFinding(*top) == gpu_text;
  o.claimed = !gpu_text && IsGpuFinding(*top);
  return o;
}

nlohmann::json Index(const std::string& root = kRoot) {
  auto index = nlohmann::json::parse(ReadFile(root + "index.json"), nullptr, false);
  EXPECT_FALSE(index.is_discarded());
  return index;
}

TEST(ErrorCorpus2024, EveryTrainTextLandsOnItsLabelExceptTheKnownMisses) {
  nlohmann::json index = Index();
  int total = 0, recognised = 0;
  std::string regressions, fixed;
  for (const auto& item : index["texts"]) {
    if (item["split"] != "train") continue;
    std::string file = item["file"].get<std::string>();
    Outcome o = Score(item);
    ++total;
    recognised += o.recognised ? 1 : 0;
    bool known = kKnownTrainMisses.count(file) != 0;
    if (!o.recognised && !known) regressions += "  " + file + ": expected " + item["expect"].get<std::string>() + ", got " + o.got + "\n";
    if (o.recognised && known) fixed += "  " + file + " now lands on its label: take it off kKnownTrainMisses\n";
    EXPECT_FALSE(o.claimed) << file << " is not a GPU error and was answered as " << o.got;
  }
  std::printf("error corpus 2024, train: %d/%d recognised\n", recognised, total);
  EXPECT_GE(total, 90);
  EXPECT_TRUE(regressions.empty()) << regressions;
  EXPECT_TRUE(fixed.empty()) << fixed;
}

// Aggregates only: which held-out text missed is not printed.
TEST(ErrorCorpus2024, TheHeldOutSplitIsRecognisedAsAWhole) {
  nlohmann::json index = Index();
  int total = 0, recognised = 0, not_gpu = 0, claimed = 0;
  std::map<std::string, std::pair<int, int>> by_layer;
  for (const auto& item : index["texts"]) {
    if (item["split"] != "heldout") continue;
    Outcome o = Score(item);
    ++total;
    recognised += o.recognised ? 1 : 0;
    not_gpu += item["gpu_related"].get<bool>() ? 0 : 1;
    claimed += o.claimed ? 1 : 0;
    auto& layer = by_layer[item["layer"].get<std::string>()];
    ++layer.second;
    layer.first += o.recognised ? 1 : 0;
  }
  std::string layers;
  for (const auto& [name, counts] : by_layer) layers += " " + name + " " + std::to_string(counts.first) + "/" + std::to_string(counts.second);
  double rate = total == 0 ? 0 : 100.0 * recognised / total;
  std::printf("error corpus 2024, held-out: %d/%d recognised (%.1f%%); non-GPU texts claimed as GPU errors: %d of %d; by layer:%s\n",
              recognised, total, rate, claimed, not_gpu, layers.c_str());
  EXPECT_GE(total, 80);
  EXPECT_EQ(claimed, 0);
  EXPECT_GE(rate, 90.0);
}

// The 2026 rounds (tests/fixtures/error_corpus_2026, 2026b, 2026c, 2026d, 2026e, 2026f and 2026g): each
// collected after the rules above, scored once as held-out before anything was read (42/50, 33/40, 30/41,
// 27/40, 30/40, 18/40, 20/40; no non-GPU text claimed in the first six, one in 2026g; their READMEs), then
// read: their misses taught the rules listed
// there. From then on they guard those rules like a train split: every text on its label.
void ExpectEveryTextOnItsLabel(const std::string& corpus, int at_least, const std::set<std::string>& known_misses = {}) {
  const std::string root = std::string(GPUPROBE_FIXTURES_DIR) + "/" + corpus + "/";
  nlohmann::json index = Index(root);
  int total = 0, recognised = 0;
  std::string misses;
  for (const auto& item : index["texts"]) {
    std::string file = item["file"].get<std::string>();
    Outcome o = Score(item, root);
    ++total;
    recognised += o.recognised ? 1 : 0;
    if (!o.recognised && known_misses.count(file) == 0) {
      misses += "  " + file + ": expected " + item["expect"].get<std::string>() + ", got " + o.got + "\n";
    }
    EXPECT_FALSE(o.claimed) << file << " is not a GPU error and was answered as " << o.got;
  }
  std::printf("%s: %d/%d recognised\n", corpus.c_str(), recognised, total);
  EXPECT_GE(total, at_least);
  EXPECT_TRUE(misses.empty()) << misses;
}

TEST(ErrorCorpus2026, EveryTextLandsOnItsLabel) { ExpectEveryTextOnItsLabel("error_corpus_2026", 50); }

TEST(ErrorCorpus2026b, EveryTextLandsOnItsLabel) { ExpectEveryTextOnItsLabel("error_corpus_2026b", 40); }

TEST(ErrorCorpus2026c, EveryTextLandsOnItsLabel) { ExpectEveryTextOnItsLabel("error_corpus_2026c", 41); }

// 020 is "Error code: 700" repeated with nothing naming CUDA or a library: read as a status it
// would be a guess, so it stays unanswered (the profile says what it is made of).
TEST(ErrorCorpus2026d, EveryTextLandsOnItsLabel) {
  ExpectEveryTextOnItsLabel("error_corpus_2026d", 40, {"texts/020-cudasirecon-error-700-cufft-plan-failed.txt"});
}

// 2026e taught the generated host readings (errno from the kernel headers and glibc, Python's
// built-in exceptions) besides its entries.
TEST(ErrorCorpus2026e, EveryTextLandsOnItsLabel) { ExpectEveryTextOnItsLabel("error_corpus_2026e", 40); }

// 2026f's five known misses are explained in its README (a guessed NVML status, a host error
// on a line naming nvidia-smi, an OpenGL driver exception, an AMD ROCm error, a broader label).
TEST(ErrorCorpus2026f, EveryTextLandsOnItsLabel) {
  ExpectEveryTextOnItsLabel("error_corpus_2026f", 40,
                            {"texts/007-wsl2-nvml-init-failed-na.txt", "texts/011-fish-read-only-fs-after-nvidia-smi.txt",
                             "texts/015-vintagestory-nvidia-opengl-kernel-exception-xml.txt",
                             "texts/019-rocm-hip-invalid-device-function-strix-halo.txt",
                             "texts/036-aimbot-unicodedecodeerror-engine-models.txt"});
}

// 2026g taught DCGM's statuses from DCGM's source (tools/gen_dcgm_statuses.py), the exceptions of
// Python's standard library and a SyntaxError read from its traceback's shape.
TEST(ErrorCorpus2026g, EveryTextLandsOnItsLabel) { ExpectEveryTextOnItsLabel("error_corpus_2026g", 40); }

}  // namespace
}  // namespace gpuprobe::doctor

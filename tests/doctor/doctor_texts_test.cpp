// doctor speaks the reader's language: every check, in every status it can take, rendered
// with --lang zh, and no English sentence may leak. Scenarios on recorded environments
// together produce every sentence of data/texts/en/doctor.json (a test fails when one is
// never produced, so a new text needs a scenario); each rendered zh text is then stripped of
// the raw values the check supplied (versions, paths, device names, quoted tool output) and
// of what is not prose (commands in quotes, identifiers, paths, acronyms, product names); any
// English word left is a leak.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "app/doctor_view.h"
#include "doctor/check_list.h"
#include "doctor/cuda_compat.h"
#include "doctor/fake_machine.h"
#include "doctor/machine_facts.h"
#include "telemetry/nvml_abi.h"

namespace gpuprobe::doctor {
namespace {

using testing::DeniedEnvironment;
using testing::FakeMachine;
using testing::NoNvml;
using testing::Nvml;

class FakeKernels : public KernelRunner {
 public:
  explicit FakeKernels(core::Result<Outcome> result, bool built = true)
      : result_(std::move(result)), built_(built) {}
  bool Built() const override { return built_; }
  core::Result<Outcome> Run(int) const override { return result_; }

 private:
  core::Result<Outcome> result_;
  bool built_;
};

NvmlView InitFailed(int code) {
  NvmlView v;
  v.failure = NvmlView::Failure::kInitFailed;
  v.init_code = code;
  v.nvml_text = "Unknown Error";
  return v;
}

// Product names, tools and verbs that stay as they are in Chinese GPU texts.
const std::set<std::string> kKeptWords = {
    "nouveau",   "nvcc",    "gpuprobe", "doctor", "gpus",     "plan",       "advise",
    "explain",   "inspect", "bench",    "Python", "python",   "Kubernetes", "Docker",
    "Container", "Toolkit", "Secure",   "Boot",   "Linux",    "cgroup",     "libcuda",
    "vfio",      "torch",   "pip",      "dkms",   "modprobe", "systemctl",  "nvidia"};

// The English words left in `text` once raw values, quoted commands and non-prose tokens are
// removed; empty when the text is clean.
std::vector<std::string> EnglishWords(std::string text,
                                      const std::vector<std::string>& raw_values) {
  std::vector<std::string> values = raw_values;
  std::sort(values.begin(), values.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& v : values) {
    for (size_t at; !v.empty() && (at = text.find(v)) != std::string::npos;)
      text.replace(at, v.size(), " ");
  }
  text = std::regex_replace(text, std::regex(R"("[^"]*")"), " ");  // quoted error texts
  text = std::regex_replace(text, std::regex(R"('[^']*')"), " ");  // commands
  std::vector<std::string> out;
  std::regex token(R"([A-Za-z0-9_./:=*+\-]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), token);
       it != std::sregex_iterator(); ++it) {
    std::string w = it->str();
    while (!w.empty() && (w.back() == '.' || w.back() == ':')) w.pop_back();
    if (std::none_of(w.begin(), w.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
      continue;
    bool identifier = w.find_first_of("_./:=*+-0123456789") != std::string::npos;
    bool acronym = std::all_of(w.begin(), w.end(),
                               [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    bool camel = std::any_of(w.begin() + 1, w.end(),
                             [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    if (identifier || acronym || camel || kKeptWords.count(w)) continue;
    out.push_back(w);
  }
  return out;
}

std::vector<std::string> RawValues(const CheckResult& r) {
  std::vector<std::string> out;
  for (const auto& m : r.evidence) {
    for (const auto& [name, value] : m.args) out.push_back(value);
  }
  for (const auto& [name, value] : r.fix.args) out.push_back(value);
  return out;
}

struct Scenario {
  std::string name;
  std::vector<CheckResult> results;
  bool gpu_present = false;
};

std::vector<Scenario> Scenarios() {
  std::vector<Scenario> out;
  auto run = [&](const std::string& name, const Environment& env, const NvmlView& nvml,
                 const KernelRunner* kernels = nullptr) {
    DoctorReport report = RunChecks(env, nvml, kernels);
    out.push_back({name, report.checks, report.gpu_present});
  };
  {
    FakeMachine m;  // hidden PCI bus, no python3
    run("empty", m.Env(), NoNvml());
  }
  {
    FakeMachine m("no-gpu");
    m.OtherPciDevice("0000:00:00.0");
    m.Write(".dockerenv", "");
    m.Python("{}");
    m.Program("nvcc", "Cuda compilation tools, release 8.0, V8.0.61");
    run("no gpu, container, libraries without a driver", m.Env(),
        InitFailed(NVML_ERROR_DRIVER_NOT_LOADED));
    m.Set("NVIDIA_VISIBLE_DEVICES", "void");
    m.Python(R"({"torch": {"version": "2.8.0+cpu", "cuda": "", "cpu_only": true}})");
    m.Program("nvcc", "Cuda compilation tools, release 13.0, V13.0.88");
    run("no gpu, container asking for none", m.Env(), NoNvml());
    m.Set("NVIDIA_VISIBLE_DEVICES", "all");
    run("container without gpus", m.Env(), NoNvml());
  }
  {
    FakeMachine m("h200-node");
    m.Write(".dockerenv", "");
    m.Write("sys/module/nouveau/refcnt", "0\n");
    m.Python(R"({"torch": {"version": "2.9.1", "cuda": "12.8", "archs": "sm_80 sm_90"}})");
    NvmlView nvml = Nvml("590.48.01", "9.0", "13.1");
    nvml.gpus[0].ecc_enabled = true;
    nvml.gpus[0].ecc_uncorrected_volatile = 0;
    nvml.gpus[0].mig_enabled = true;
    FakeKernels ok(KernelRunner::Outcome{1 << 20, true, 0});
    run("healthy node in a container", m.Env(), nvml, &ok);
    FakeKernels wrong(KernelRunner::Outcome{1000, false, 3});
    run("wrong results", m.Env(), nvml, &wrong);
    FakeKernels error(
        core::Status::Internal("CUDA error 700: an illegal memory access was encountered"));
    run("kernel error", m.Env(), nvml, &error);
    FakeKernels unbuilt(KernelRunner::Outcome{}, false);
    run("built without CUDA", m.Env(), nvml, &unbuilt);
    DeniedEnvironment denied(m.Env(), {"/dev/nvidia0"});
    run("denied nodes", denied, nvml);
    nvml.cuda_ceiling.clear();
    nvml.gpus[0].persistence_mode.reset();
    nvml.gpus[0].ecc_enabled.reset();
    nvml.gpus[0].mig_enabled.reset();
    nvml.gpus[0].compute_capability.clear();
    run("an NVML that says little", m.Env(), nvml);
  }
  {
    FakeMachine m("h200-node");
    m.Module("535.104.05", false);
    m.Remove("dev/nvidia-uvm");
    m.Program("nvcc", "Cuda compilation tools, release 12.8, V12.8.93");
    m.Python(R"({"torch": {"version": "2.8.0", "cuda": "12.8", "archs": "sm_80 compute_80"},
                "tensorflow": {"error": "ImportError: libcudnn.so.9"}, "jax": {"version": "0.7.1", "cuda": "13.0"},
                "cupy": {"version": "13.6.0", "cuda": ""}})");
    NvmlView nvml = Nvml("535.129.03", "12.0", "12.2");
    nvml.gpus[0].persistence_mode = false;
    nvml.gpus[0].ecc_uncorrected_volatile = 2;
    run("old driver, mismatch, missing uvm", m.Env(), nvml);
  }
  {
    FakeMachine m("h200-node");
    m.Python(
        R"({"torch": {"version": "2.3.0", "cuda": "12.1", "archs": "sm_80 sm_86"}, "jax": {"version": "0.7.1", "cuda": "12"},
                "tensorflow": {"version": "2.20.0", "cuda": "", "cpu_only": true}})");
    run("no image for the gpu", m.Env(), Nvml("590.48.01", "9.0", "13.1"));
    m.Remove("proc/driver/nvidia");
    m.Remove("dev/nvidiactl");
    NvmlView empty = Nvml("590.48.01", "9.0");
    empty.gpus.clear();
    run("nvml lists no gpu, incomplete nodes", m.Env(), empty);
    for (int code : {NVML_ERROR_LIB_RM_VERSION_MISMATCH, NVML_ERROR_NO_PERMISSION,
                     NVML_ERROR_GPU_IS_LOST, NVML_ERROR_UNKNOWN, NVML_ERROR_DRIVER_NOT_LOADED}) {
      run("nvml init failure " + std::to_string(code), m.Env(), InitFailed(code));
    }
    NvmlView unreadable;
    unreadable.failure = NvmlView::Failure::kReadFailed;
    run("nvml unreadable", m.Env(), unreadable);
  }
  {
    FakeMachine m;
    m.Gpu("0000:01:00.0", "");
    m.Python("Segmentation fault");
    run("gpu without a driver", m.Env(), NoNvml());
    m.Gpu("0000:01:00.0", "nouveau");
    m.Write("sys/module/nouveau/refcnt", "1\n");
    run("nouveau owns the gpu", m.Env(), NoNvml());
    m.Gpu("0000:01:00.0", "vfio-pci");
    run("gpu set aside for a vm, nouveau loaded", m.Env(), NoNvml());
  }
  {
    FakeMachine m;
    m.Module("999.1");
    m.Program("nvcc", "Cuda compilation tools, release 13.9, V13.9.1");
    m.Python(R"({"torch": {"version": "2.8.0", "cuda": "12.8", "archs": "sm_90"}})");
    run("a driver newer than the table", m.Env(), Nvml("999.1", "8.6", ""));
    m.Module("340.108");
    m.Program("nvcc", "Cuda compilation tools, release 13.0, V13.0.88");
    run("a driver older than the table", m.Env(), NoNvml());
    m.Module("580.95.05");
    m.Program("nvcc", "Cuda compilation tools, release 8.0, V8.0.61");
    run("a toolkit older than the table", m.Env(), NoNvml());
    m.Remove("bin/nvcc");
    run("no toolkit with a driver", m.Env(), NoNvml());
    m.Module("535.104.05");
    m.Write("usr/local/cuda-13.0/compat/libcuda.so.580.65.06", "");
    m.Set("LD_LIBRARY_PATH", "/usr/local/cuda-13.0/compat");
    run("forward compatibility", m.Env(), Nvml("535.104.05", "9.0", "12.2"));
  }
  {
    // python3 that never answers: built by hand, the probe's timeout is a minute.
    FakeMachine m("h200-node");
    Environment env = m.Env();
    NvmlView nvml = Nvml("590.48.01", "9.0");
    MachineFacts facts = ReadMachineFacts(env, nvml);
    facts.frameworks.outcome = FrameworkReport::Outcome::kTimedOut;
    CheckContext ctx{env, nvml, facts, **CudaCompat::Embedded(), nullptr};
    out.push_back({"python3 hangs", CheckFrameworks(ctx), true});
  }
  return out;
}

TEST(DoctorTexts, EverySentenceIsProducedByAScenario) {
  auto en = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(en.ok());
  std::set<std::string> produced;
  for (const auto& s : Scenarios()) {
    for (const auto& r : s.results) {
      for (const auto& m : r.evidence) produced.insert(m.key);
      if (!r.fix.empty()) produced.insert(r.fix.key);
    }
  }
  for (const auto& [key, text] : en->All()) {
    bool title = key.size() > 6 && key.compare(key.size() - 6, 6, ".title") == 0;
    if (key.rfind("doctor.check.", 0) != 0 || title) continue;
    EXPECT_TRUE(produced.count(key))
        << key << " is never produced: add a scenario for it (or drop the text)";
  }
  for (const auto& key : produced) EXPECT_TRUE(en->Has(key)) << key << " has no text";
}

TEST(DoctorTexts, EveryCheckInEveryStatusRendersInChineseWithoutEnglish) {
  auto zh = report::Texts::Load(report::Language::kZh);
  auto en = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(zh.ok());
  ASSERT_TRUE(en.ok());
  std::set<std::string> seen;  // id/status pairs
  for (const auto& s : Scenarios()) {
    for (const auto& r : s.results) {
      seen.insert(r.id + "/" + CheckStatusName(r.status));
      app::RenderedCheck z = app::RenderCheck(*zh, r);
      app::RenderedCheck e = app::RenderCheck(*en, r);
      for (const std::string* text :
           {&z.title, &z.marker, &z.evidence, &z.fix, &e.evidence, &e.fix}) {
        EXPECT_EQ(text->find('{'), std::string::npos)
            << s.name << ": " << r.id << ": unfilled placeholder in " << *text;
      }
      for (const std::string& text : {z.title, z.marker, z.evidence, z.fix}) {
        auto words = EnglishWords(text, RawValues(r));
        EXPECT_TRUE(words.empty())
            << s.name << ": " << r.id << " leaks English '" << words[0] << "' in: " << text;
      }
    }
  }
  // Every status each check can take appears in some scenario.
  for (const char* pair : {"gpu_hardware/ok",
                           "gpu_hardware/info",
                           "kernel_module/ok",
                           "kernel_module/fail",
                           "kernel_module/skip",
                           "nouveau/ok",
                           "nouveau/warn",
                           "nouveau/fail",
                           "nouveau/skip",
                           "device_nodes/ok",
                           "device_nodes/warn",
                           "device_nodes/fail",
                           "device_nodes/skip",
                           "container/ok",
                           "container/info",
                           "container/fail",
                           "container/skip",
                           "nvml/ok",
                           "nvml/warn",
                           "nvml/fail",
                           "nvml/skip",
                           "driver_cuda/info",
                           "driver_cuda/skip",
                           "toolkit/ok",
                           "toolkit/info",
                           "toolkit/warn",
                           "toolkit/fail",
                           "frameworks/info",
                           "frameworks/warn",
                           "frameworks/skip",
                           "pytorch/ok",
                           "pytorch/info",
                           "pytorch/warn",
                           "pytorch/fail",
                           "tensorflow/warn",
                           "tensorflow/fail",
                           "jax/ok",
                           "jax/fail",
                           "cupy/info",
                           "compiled_archs/ok",
                           "compiled_archs/warn",
                           "compiled_archs/fail",
                           "compiled_archs/skip",
                           "persistence/ok",
                           "persistence/warn",
                           "ecc/ok",
                           "ecc/fail",
                           "mig/info",
                           "gpu_settings/skip",
                           "smoke_test/ok",
                           "smoke_test/fail",
                           "smoke_test/skip"}) {
    EXPECT_TRUE(seen.count(pair)) << pair << " is never produced";
  }
}

TEST(DoctorTexts, EveryChineseDoctorTextIsChineseOnItsOwn) {
  auto zh = report::Texts::Load(report::Language::kZh);
  ASSERT_TRUE(zh.ok());
  for (const auto& [key, text] : zh->All()) {
    if (key.rfind("doctor.", 0) != 0) continue;
    std::string bare = std::regex_replace(text, std::regex(R"(\{[a-z_]+\})"), " ");
    auto words = EnglishWords(bare, {});
    EXPECT_TRUE(words.empty()) << key << " leaks English '" << words[0] << "': " << text;
  }
}

TEST(DoctorTexts, TheLeakDetectorCatchesAnEnglishSentence) {
  EXPECT_FALSE(EnglishWords("驱动 580.65.06 is too old", {"580.65.06"}).empty());
  EXPECT_TRUE(
      EnglishWords("驱动 580.65.06 太旧('CUDA driver version is insufficient')", {"580.65.06"})
          .empty());
  EXPECT_TRUE(EnglishWords("PyTorch 2.8.0,用 CUDA 12.8 编译;/usr/local/cuda/bin/nvcc", {}).empty());
}

TEST(DoctorTexts, TheWholeViewInChineseKeepsOnlyValuesInEnglish) {
  auto zh = report::Texts::Load(report::Language::kZh);
  ASSERT_TRUE(zh.ok());
  for (const auto& s : Scenarios()) {
    DoctorReport report;
    report.checks = s.results;
    report.gpu_present = s.gpu_present;
    std::vector<std::string> values;
    for (const auto& r : s.results) {
      for (const auto& v : RawValues(r)) values.push_back(v);
    }
    std::string view = app::DoctorTextView(report, *zh);
    auto words = EnglishWords(view, values);
    EXPECT_TRUE(words.empty()) << s.name << " leaks English '" << words[0] << "':\n" << view;
    auto json = app::DoctorToJson(report, *zh);
    EXPECT_EQ(json["lang"], "zh");
    EXPECT_EQ(json["checks"].size(), s.results.size());
  }
}

}  // namespace
}  // namespace gpuprobe::doctor

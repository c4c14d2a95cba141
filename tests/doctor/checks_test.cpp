// doctor's table and whole runs (checks.cpp) on recorded environments: fake /proc, /sys,
// /dev and /etc trees under a temporary root, fake nvcc and python3 scripts; nothing depends
// on this machine's state. Each check has its own tests in checks_<concept>_test.cpp.
#include "doctor/checks.h"

#include <gtest/gtest.h>

#include <set>

#include "doctor/fake_machine.h"
#include "report/i18n.h"

namespace gpuprobe::doctor {
namespace {

using testing::FakeMachine;
using testing::Find;
using testing::NoNvml;
using testing::Nvml;
using testing::Says;

TEST(DoctorTable, IdsAreUniqueSnakeCaseAndTitledInEveryLanguage) {
  std::set<std::string> ids;
  for (const auto& entry : AllChecks()) {
    EXPECT_TRUE(ids.insert(entry.id).second) << entry.id;
    EXPECT_NE(entry.run, nullptr) << entry.id;
    for (char c : std::string(entry.id))
      EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_') << entry.id;
  }
  // Every id a result can carry has a title: the table's and the finer ones.
  for (const char* id : {"pytorch", "tensorflow", "jax", "cupy", "persistence", "ecc", "mig"})
    ids.insert(id);
  for (auto language : {report::Language::kEn, report::Language::kZh}) {
    auto texts = report::Texts::Load(language);
    ASSERT_TRUE(texts.ok());
    for (const auto& id : ids) EXPECT_TRUE(texts->Has("doctor.check." + id + ".title")) << id;
  }
}

TEST(DoctorTable, RunCheckRefusesAnUnknownId) {
  FakeMachine m;
  EXPECT_FALSE(RunCheck("no_such_check", m.Env(), NoNvml()).ok());
}

TEST(Doctor, EveryCheckReportsOnAMachineWithoutGpuAndNothingFails) {
  FakeMachine m("no-gpu");
  m.Python("{}");
  DoctorReport r = RunChecks(m.Env(), NoNvml());
  EXPECT_FALSE(r.gpu_present);
  for (const auto& entry : AllChecks()) {
    bool reported = false;
    for (const auto& c : r.checks) reported = reported || c.id == entry.id;
    EXPECT_TRUE(reported) << entry.id;
  }
  for (const auto& c : r.checks) {
    EXPECT_TRUE(c.status == CheckStatus::kInfo || c.status == CheckStatus::kSkip) << c.id;
    EXPECT_FALSE(c.evidence.empty()) << c.id;
  }
  EXPECT_EQ(WorstStatus(r.checks), CheckStatus::kOk);
}

TEST(Doctor, AHealthyNodePasses) {
  FakeMachine m("h200-node");
  m.Python(
      R"({"torch": {"version": "2.8.0", "cuda": "12.8", "archs": "-gencode compute=compute_90,code=sm_90"}})");
  DoctorReport r = RunChecks(m.Env(), Nvml("590.48.01", "9.0", "13.1"));
  EXPECT_TRUE(r.gpu_present);
  EXPECT_EQ(r.driver_version, "590.48.01");
  for (const auto& c : r.checks) {
    EXPECT_TRUE(c.status == CheckStatus::kOk || c.status == CheckStatus::kInfo ||
                c.status == CheckStatus::kSkip)
        << c.id;
  }
  EXPECT_EQ(Find(r, "pytorch")->status, CheckStatus::kOk);
  EXPECT_EQ(Find(r, "compiled_archs")->status, CheckStatus::kOk);
  EXPECT_TRUE(Says(*Find(r, "smoke_test"), "doctor.check.smoke_test.not_requested"));
}

TEST(Doctor, NoDriverWithAGpuPresentFails) {
  FakeMachine m;
  m.Gpu("0000:83:00.0", "");
  DoctorReport r = RunChecks(m.Env(), NoNvml());
  EXPECT_TRUE(r.gpu_present);
  EXPECT_EQ(Find(r, "kernel_module")->status, CheckStatus::kFail);
  EXPECT_EQ(Find(r, "nvml")->status, CheckStatus::kFail);
  EXPECT_EQ(Find(r, "nouveau")->status, CheckStatus::kWarn);  // not blacklisted yet
  EXPECT_EQ(Find(r, "device_nodes")->status, CheckStatus::kFail);
  EXPECT_EQ(WorstStatus(r.checks), CheckStatus::kFail);
}

TEST(Doctor, WorstStatusIgnoresInfoAndSkip) {
  std::vector<CheckResult> results(3);
  results[0].status = CheckStatus::kInfo;
  results[1].status = CheckStatus::kSkip;
  results[2].status = CheckStatus::kOk;
  EXPECT_EQ(WorstStatus(results), CheckStatus::kOk);
  results[1].status = CheckStatus::kWarn;
  EXPECT_EQ(WorstStatus(results), CheckStatus::kWarn);
  results[0].status = CheckStatus::kFail;
  EXPECT_EQ(WorstStatus(results), CheckStatus::kFail);
}

}  // namespace
}  // namespace gpuprobe::doctor

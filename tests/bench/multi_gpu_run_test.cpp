// The many-GPU pipeline without a GPU: a fake host lists scripted devices and returns scripted
// results, so the whole path (plan, select, refuse, run) is checked; one GPU and no GPU give
// different reasons and fixes, in both languages.
#include "bench/multi_gpu_run.h"

#include <gtest/gtest.h>

#include "report/i18n.h"
#include "report/status_text.h"

namespace gpuprobe::bench {
namespace {

class FakeHost : public MultiGpuHost {
 public:
  explicit FakeHost(std::vector<CudaDeviceInfo> devices, core::Status query = core::Status::Ok())
      : inventory_{std::move(devices), std::move(query)} {}
  GpuInventory ListDevices() override { return inventory_; }
  core::Result<CollectivesReport> RunCollectives(const CollectivesPlan& plan, const std::vector<int>& devices,
                                                const std::function<void(const CollectiveProgress&)>& progress) override {
    ran_devices = devices;
    ran_collectives = plan.collectives.size();
    if (progress) progress({"all_reduce", 1024, 1, 1});
    CollectivesReport r;
    r.gpus = static_cast<int>(devices.size());
    r.all_verified = true;
    return r;
  }
  core::Result<P2pReport> RunP2p(const P2pPlan&, const std::vector<int>& devices) override {
    ran_devices = devices;
    P2pReport r;
    r.gpus = static_cast<int>(devices.size());
    r.all_verified = true;
    return r;
  }
  std::vector<int> ran_devices;
  size_t ran_collectives = 0;

 private:
  GpuInventory inventory_;
};

CudaDeviceInfo Gpu(int index, const char* name, std::uint64_t free_bytes = 80ull << 30) {
  CudaDeviceInfo d;
  d.index = index;
  d.name = name;
  d.memory_free_bytes = free_bytes;
  return d;
}

std::string Rendered(report::Language language, const core::Status& s, bool hint = false) {
  auto texts = report::Texts::Load(language);
  EXPECT_TRUE(texts.ok());
  return report::FormatWithArgs(*texts, hint ? s.hint_key() : s.message_key(), s.message_args());
}

TEST(MultiGpuRun, OneGpuHasNothingToExchangeWith) {
  core::Status s = MultiGpuBlocked({{Gpu(0, "NVIDIA H200")}, core::Status::Ok()}, "collectives");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(s.message_key(), "collectives.error.one_gpu");
  std::string en = Rendered(report::Language::kEn, s);
  EXPECT_NE(en.find("only one is visible (NVIDIA H200)"), std::string::npos) << en;
  EXPECT_NE(Rendered(report::Language::kEn, s, true).find("gpuprobe bench --backend cuda"), std::string::npos);
  std::string zh = Rendered(report::Language::kZh, s);
  EXPECT_NE(zh.find("只能看到一块"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("missing text"), std::string::npos) << zh;
}

TEST(MultiGpuRun, NoGpuSaysWhyAsTheTourDoes) {
  core::Status query = core::Status::Unavailable("this gpuprobe was built without CUDA support");
  core::Status s = MultiGpuBlocked({{}, query}, "p2p");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(s.message_key(), "collectives.error.no_gpu");
  std::string en = Rendered(report::Language::kEn, s);
  EXPECT_NE(en.find("bench p2p needs at least two GPUs"), std::string::npos) << en;
  EXPECT_NE(Rendered(report::Language::kEn, s, true).find("--dry-run"), std::string::npos);
  std::string zh = Rendered(report::Language::kZh, s);
  EXPECT_NE(zh.find("至少需要两块 GPU"), std::string::npos) << zh;
  // Two GPUs: nothing blocks.
  EXPECT_TRUE(MultiGpuBlocked({{Gpu(0, "a"), Gpu(1, "b")}, core::Status::Ok()}, "p2p").ok());
}

TEST(MultiGpuRun, ADryRunPlansWithoutRunningAndSaysWhyItCouldNotRun) {
  FakeHost one({Gpu(0, "NVIDIA H200")});
  auto plan = RunMultiGpuPipeline(one, {"collectives", {}, /*dry_run=*/true});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(plan->collectives_plan.has_value());
  EXPECT_FALSE(plan->collectives.has_value());
  EXPECT_EQ(plan->machine.gpus, 1);
  EXPECT_EQ(plan->machine.blocked_reason.key, "collectives.plan.why_one_gpu");
  EXPECT_TRUE(one.ran_devices.empty());
  // Without the dry run the same machine is refused (exit 3) before anything runs.
  auto run = RunMultiGpuPipeline(one, {"collectives", {}, false});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message_key(), "collectives.error.one_gpu");
  EXPECT_TRUE(one.ran_devices.empty());
}

TEST(MultiGpuRun, TwoGpusRunTheSelectedCollectivesOnEveryDevice) {
  FakeHost two({Gpu(0, "NVIDIA H200", 40ull << 30), Gpu(3, "NVIDIA H200", 20ull << 30)});
  int progress_lines = 0;
  auto run = RunMultiGpuPipeline(two, {"collectives", {"all_reduce"}, false},
                                 [&](const CollectiveProgress&) { ++progress_lines; });
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_TRUE(run->collectives.has_value());
  EXPECT_EQ(run->machine.min_free_bytes, 20ull << 30);
  EXPECT_TRUE(run->machine.blocked_reason.empty());
  EXPECT_EQ(run->first_gpu_name, "NVIDIA H200");
  EXPECT_EQ(two.ran_devices, (std::vector<int>{0, 3}));
  EXPECT_EQ(two.ran_collectives, 1u);
  EXPECT_EQ(progress_lines, 1);

  auto unknown = RunMultiGpuPipeline(two, {"collectives", {"all_gather_twice"}, false});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message_key(), "collectives.error.unknown_collective");

  auto p2p = RunMultiGpuPipeline(two, {"p2p", {}, false});
  ASSERT_TRUE(p2p.ok());
  ASSERT_TRUE(p2p->p2p.has_value());
  EXPECT_EQ(p2p->p2p->gpus, 2);
  EXPECT_FALSE(RunMultiGpuPipeline(two, {"p2p", {"extra"}, false}).ok());
}

TEST(MultiGpuRun, NoGpuPlansForNoneWithTheAbsenceReason) {
  FakeHost none({}, core::Status::Unavailable("no NVIDIA driver found"));
  auto plan = RunMultiGpuPipeline(none, {"p2p", {}, true});
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(plan->p2p_plan.has_value());
  EXPECT_EQ(plan->p2p_plan->gpus, 0);
  EXPECT_EQ(plan->machine.blocked_reason.key.rfind("gpu_absent.", 0), 0u) << plan->machine.blocked_reason.key;
}

}  // namespace
}  // namespace gpuprobe::bench

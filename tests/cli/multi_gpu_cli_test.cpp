// `bench collectives` / `bench p2p` without NCCL say so in both languages, and the views of a
// (constructed) result render every text. The pipeline itself is tested in
// tests/bench/multi_gpu_run_test.cpp.
#include <gtest/gtest.h>

#include "bench/nccl_library.h"
#include "cli/cli_app.h"
#include "cli/multi_gpu_view.h"
#include "report/i18n.h"
#include "report/status_text.h"

namespace gpuprobe::cli {
namespace {

std::string Rendered(report::Language language, const core::Status& s, bool hint = false) {
  auto texts = report::Texts::Load(language);
  EXPECT_TRUE(texts.ok());
  return report::FormatWithArgs(*texts, hint ? s.hint_key() : s.message_key(), s.message_args());
}

TEST(MultiGpuCliTest, MissingNcclIsExit3SayingSoInBothLanguages) {
  auto lib = bench::nccl::LoadNcclFrom({"libnccl-gpuprobe-absent.so.2"});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(ExitCodeFor(lib.status()), core::ExitCode::kNotHere);
  std::string en = Rendered(report::Language::kEn, lib.status());
  EXPECT_NE(en.find("NCCL not found: none of libnccl-gpuprobe-absent.so.2 can be loaded"), std::string::npos) << en;
  EXPECT_NE(Rendered(report::Language::kEn, lib.status(), true).find("gpuprobe bench p2p' needs no NCCL"), std::string::npos);
  std::string zh = Rendered(report::Language::kZh, lib.status());
  EXPECT_NE(zh.find("找不到 NCCL"), std::string::npos) << zh;
}

TEST(MultiGpuCliTest, ResultViewsRenderEveryTextAndShowFailures) {
  bench::CollectivesReport r;
  r.gpus = 2;
  r.devices = {{0, "GPU A"}, {1, "GPU B"}};
  r.nccl_version = "2.28.3";
  r.memory_limit_bytes = 1ull << 30;
  bench::CollectiveResult c;
  c.collective = model::Collective::kAllReduce;
  c.factor = 1;
  bench::CollectiveSizeResult s;
  s.size_bytes = 1 << 20;
  s.count = (1 << 20) / 4;
  s.out_of_place.ran = true;
  s.out_of_place.seconds = 1e-4;
  s.out_of_place.bandwidth = model::CollectiveBandwidthOf(c.collective, s.size_bytes, 1e-4, 2);
  s.out_of_place.checked_elements = 512;
  s.out_of_place.mismatches = 3;
  s.out_of_place.first_mismatch = "rank 1 element 5: 3 (expected 6)";
  c.sizes.push_back(s);
  c.peak_busbw_bytes_per_second = s.out_of_place.bandwidth.busbw_bytes_per_second;
  c.peak_size_bytes = s.size_bytes;
  c.skipped_for_memory_bytes = {8ull << 30};
  r.results.push_back(c);
  for (auto language : {report::Language::kEn, report::Language::kZh}) {
    auto texts = report::Texts::Load(language);
    ASSERT_TRUE(texts.ok());
    auto link = PlannerLinkFor("NVIDIA H200", 2, *texts);
    ASSERT_TRUE(link.has_value());
    std::string out = RenderCollectivesReport(r, link, *texts);
    EXPECT_EQ(out.find("missing text"), std::string::npos) << out;
    // The peak beside the planner's link: 10.5 GB/s of NVLink 4's 450 GB/s per direction.
    EXPECT_NE(out.find(" 2%"), std::string::npos) << out;
    EXPECT_NE(out.find("10.49"), std::string::npos) << out;  // 1 MiB / 100 us in GB/s
    EXPECT_NE(out.find("rank 1 element 5"), std::string::npos) << out;
  }
  auto texts_en = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(texts_en.ok());
  auto h200 = PlannerLinkFor("NVIDIA H200", 2, *texts_en);
  ASSERT_TRUE(h200.has_value());
  // H200 SXM: NVLink 4, 900 GB/s bidirectional per GPU (data/gpu_specs.json) = 450 GB/s each way.
  EXPECT_EQ(h200->link_id, "nvlink_sxm");
  EXPECT_DOUBLE_EQ(h200->bytes_per_second, 450e9);
  EXPECT_FALSE(PlannerLinkFor("Some Unknown GPU 9000", 2, *texts_en).has_value());
  auto json = CollectivesReportJson(r, h200);
  EXPECT_EQ(json["planner_link"]["kind"], "nvlink_sxm");
  EXPECT_NEAR(json["collectives"][0]["peak_vs_planner_link"].get<double>(), 10.48576e9 / 450e9, 1e-9);
  EXPECT_EQ(json["collectives"][0]["sizes"][0]["out_of_place"]["mismatches"], 3);
  EXPECT_FALSE(json["all_verified"].get<bool>());

  bench::P2pReport p;
  p.gpus = 2;
  p.devices = {{0, "GPU A"}, {1, "GPU B"}};
  p.buffer_bytes = 64ull << 20;
  p.peer_access = {{false, false}, {false, false}};
  bench::P2pMatrix m;
  m.test = "device_to_device_memcpy_read_ce";
  m.bytes_per_second = {{std::nullopt, 20e9}, {21e9, std::nullopt}};
  p.matrices.push_back(m);
  p.all_verified = true;
  auto texts = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(texts.ok());
  std::string out = RenderP2pReport(p, std::nullopt, *texts);
  EXPECT_NE(out.find("20.00*"), std::string::npos) << out;  // through host
  EXPECT_NE(out.find("GPU(row) <- GPU(column)"), std::string::npos) << out;
  EXPECT_EQ(P2pReportJson(p, std::nullopt)["tests"][0]["bytes_per_second"][0][1], 20e9);
  std::string with_link = RenderP2pReport(p, h200, *texts);
  EXPECT_NE(with_link.find("Best one-way copy: 21"), std::string::npos) << with_link;
  EXPECT_NE(with_link.find("= 5% of the 450 GB/s"), std::string::npos) << with_link;
}

}  // namespace
}  // namespace gpuprobe::cli

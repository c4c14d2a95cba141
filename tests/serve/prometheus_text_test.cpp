#include <cstdlib>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "model/fixture.h"
#include "serve/prometheus_text.h"
#include "telemetry/capture_reader.h"

namespace gpuprobe::serve {
namespace {

std::vector<telemetry::Snapshot> H200UnderLoad() {
  auto capture = telemetry::ReadCapture(gpuprobe::testing::ReadFixture("nvidia-smi/captures/linux-x86_64__nvidia-h200__590.48.01.txt"));
  EXPECT_TRUE(capture.ok());
  for (const auto& set : capture->sets) {
    if (set.state == "load") return set.gpus;
  }
  ADD_FAILURE() << "no load section";
  return {};
}

TEST(PrometheusText, DcgmNamesAndUnitsWithSnakeCaseLabels) {
  auto gpus = H200UnderLoad();
  ASSERT_EQ(gpus.size(), 1u);
  PollHealth health;
  health.last_poll_ok = true;
  health.polls_total = 3;
  std::string text = RenderMetrics(gpus, telemetry::EvaluateFindings(gpus), health, "node-1");
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"), std::string::npos);
  EXPECT_NE(text.find(R"(DCGM_FI_DEV_GPU_UTIL{gpu="0",uuid="GPU-00000000-0000-0000-0000-000000000000",pci_bus_id="00000000:83:00.0",device="nvidia0",model_name="NVIDIA H200",hostname="node-1"} 100)"),
            std::string::npos)
      << text;
  // Memory in MiB as dcgm-exporter has it: 31.6 GiB used in the capture.
  auto at = text.find("DCGM_FI_DEV_FB_USED{");
  ASSERT_NE(at, std::string::npos);
  double mib = std::stod(text.substr(text.find("} ", at) + 2));
  EXPECT_NEAR(mib, 31.6 * 1024, 60);
  EXPECT_NE(text.find(R"(gpuprobe_finding{gpu="0",uuid="GPU-00000000-0000-0000-0000-000000000000",id="busy_not_bandwidth_bound",severity="info",hostname="node-1"} 1)"),
            std::string::npos);
  EXPECT_NE(text.find("gpuprobe_up 1\n"), std::string::npos);
  EXPECT_NE(text.find("gpuprobe_polls_total 3\n"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(PrometheusText, NoGpuDataStillGivesAValidHealthReport) {
  PollHealth health;
  health.poll_errors_total = 2;
  std::string text = RenderMetrics({}, {}, health, "h");
  EXPECT_EQ(text.find("DCGM_FI_"), std::string::npos);  // families without samples are left out
  EXPECT_NE(text.find("gpuprobe_up 0\n"), std::string::npos);
  EXPECT_NE(text.find("gpuprobe_gpus 0\n"), std::string::npos);
  EXPECT_NE(text.find("gpuprobe_poll_errors_total 2\n"), std::string::npos);
}

TEST(PrometheusText, LabelValuesAreEscaped) {
  EXPECT_EQ(EscapeLabelValue(R"(a"b\c)" "\n"), R"(a\"b\\c\n)");
  telemetry::Snapshot odd;
  odd.name = "GPU \"quoted\"\nname";
  odd.utilization_gpu_percent = 5;
  std::string text = RenderMetrics({odd}, {}, PollHealth{}, "h");
  EXPECT_NE(text.find(R"(model_name="GPU \"quoted\"\nname")"), std::string::npos) << text;
}

TEST(PrometheusText, SampleValuesAreTheShortestRoundTripForm) {
  EXPECT_EQ(FormatSampleValue(0.3), "0.3");
  EXPECT_EQ(FormatSampleValue(100), "100");
  EXPECT_EQ(FormatSampleValue(627.32), "627.32");
  EXPECT_EQ(FormatSampleValue(1e21), "1e+21");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
  // Whatever the value, the text reads back as exactly the same double.
  for (double v : {0.1 + 0.2, 1.0 / 3.0, 143771.0 * 1024 * 1024, 5e-324, 1.7976931348623157e308}) {
    EXPECT_EQ(std::strtod(FormatSampleValue(v).c_str(), nullptr), v) << FormatSampleValue(v);
  }
  PollHealth health;
  health.last_poll_duration_seconds = 0.3;
  std::string text = RenderMetrics({}, {}, health, "h");
  EXPECT_NE(text.find("gpuprobe_poll_duration_seconds 0.3\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuprobe::serve

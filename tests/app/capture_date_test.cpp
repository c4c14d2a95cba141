// A capture's date and age, and the findings of an old capture saying how old the state they
// judge is, against a fixed "now" (never the wall clock).
#include <gtest/gtest.h>

#include "app/inspect_state.h"
#include "report/finding_view.h"

namespace gpuprobe::app {
namespace {

const std::string kDir = std::string(GPUPROBE_FIXTURES_DIR) + "/";
// Real capture (see the fixture's README): "Timestamp : Wed Jul 31 11:22:39 2024", with findings.
const std::string kH100 = kDir + "captures_public/q-text/8x-h100-80gb-hbm3__driver-535.161.08__linux__gpud.txt";
constexpr std::int64_t kCaptured = 1722424959;  // date -u -d '2024-07-31 11:22:39' +%s

report::Texts Lang(report::Language l) { return *report::Texts::Load(l); }

TEST(CaptureDate, AgeInWholeDaysAtTheGivenNow) {
  auto reading = ReadGpuState(kH100);
  ASSERT_TRUE(reading.ok()) << reading.status().ToString();
  auto date = CaptureDateOf(*reading, kCaptured + 12 * 86400 + 3600);
  ASSERT_TRUE(date.has_value());
  EXPECT_EQ(date->timestamp, "Wed Jul 31 11:22:39 2024");
  EXPECT_EQ(date->epoch_s, kCaptured);
  EXPECT_EQ(date->age_days, 12);
  EXPECT_FALSE(date->ahead_of_clock);
  // A "now" before the capture: not an age of 0 days but "ahead of the clock".
  auto ahead = CaptureDateOf(*reading, kCaptured - 3 * 86400);
  ASSERT_TRUE(ahead.has_value());
  EXPECT_TRUE(ahead->ahead_of_clock);
  EXPECT_FALSE(ahead->age_days.has_value());
}

TEST(CaptureDate, FindingsOfAnOldCaptureSayItsAge) {
  auto reading = ReadGpuState(kH100);
  ASSERT_TRUE(reading.ok());
  auto old_date = CaptureDateOf(*reading, kCaptured + 12 * 86400);
  auto old = AssessReading(reading->sets.front().gpus, old_date);
  ASSERT_FALSE(old.findings.empty()) << "the fixture has findings";
  for (const auto& f : old.findings) {
    EXPECT_NE(report::FindingEvidence(f, Lang(report::Language::kEn)).find("taken 12 days ago"), std::string::npos) << f.id;
    EXPECT_NE(report::FindingEvidence(f, Lang(report::Language::kZh)).find("12 天前采集"), std::string::npos) << f.id;
  }
  // Within a day of the capture: the findings are as Assess gives them.
  auto fresh = AssessReading(reading->sets.front().gpus, CaptureDateOf(*reading, kCaptured + 3600));
  ASSERT_EQ(fresh.findings.size(), old.findings.size());
  for (const auto& f : fresh.findings) EXPECT_TRUE(f.notes.empty() || f.notes.back() != "capture_age") << f.id;
  auto plain = telemetry::Assess(reading->sets.front().gpus);
  for (size_t i = 0; i < plain.findings.size(); ++i) EXPECT_EQ(plain.findings[i].notes, fresh.findings[i].notes);
}

TEST(CaptureDate, JsonCarriesDateAndAge) {
  auto reading = ReadGpuState(kH100);
  ASSERT_TRUE(reading.ok());
  std::vector<telemetry::Finding> findings;
  auto doc = InspectDocument(*reading, Lang(report::Language::kEn), kCaptured + 2 * 86400, &findings);
  EXPECT_EQ(doc["captured"]["timestamp"], "Wed Jul 31 11:22:39 2024");
  EXPECT_EQ(doc["captured"]["age_days"], 2);
  EXPECT_EQ(doc["captured"]["epoch_s"], kCaptured);
}

TEST(CaptureDate, LiveReadingHasNoDate) {
  GpuReading live;  // from empty = NVML
  telemetry::Snapshot gpu;
  gpu.timestamp = "Wed Jul 31 11:22:39 2024";
  live.sets.push_back({"", {gpu}});
  EXPECT_FALSE(CaptureDateOf(live, kCaptured + 100 * 86400).has_value());
  EXPECT_EQ(CaptureDateJson(std::nullopt), nullptr);
}

TEST(CaptureDate, UnreadableTimestampIsShownWithoutAnAge) {
  GpuReading r;
  r.from = "x.txt";
  telemetry::Snapshot gpu;
  gpu.timestamp = "yesterday";
  r.sets.push_back({"", {gpu}});
  auto date = CaptureDateOf(r, kCaptured);
  ASSERT_TRUE(date.has_value());
  EXPECT_EQ(date->timestamp, "yesterday");
  EXPECT_FALSE(date->epoch_s.has_value());
  EXPECT_FALSE(date->age_days.has_value());
}

}  // namespace
}  // namespace gpuprobe::app

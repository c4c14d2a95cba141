// The generated status table and the Xid catalogue, over their whole range: every
// cudaError_t, CUresult and library status, and every Xid and SXid, answers by name and by
// number.
#include "doctor/status_table.h"

#include <gtest/gtest.h>

#include "doctor/error_matcher.h"

namespace gpuprobe::doctor {
namespace {

const ErrorMatcher& M() {
  auto m = ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

TEST(StatusTable, RecordsWhatItWasGeneratedFrom) {
  const StatusTable& t = M().statuses();
  EXPECT_TRUE(t.toolkit().count("cuda"));
  for (const char* api : {"cuda_runtime", "cuda_driver", "nccl", "cublas", "cufft", "cusolver", "cusparse", "nvrtc", "cudnn", "nvml"}) {
    EXPECT_NE(t.Api(api), nullptr) << api;
  }
  size_t runtime = 0, driver = 0;
  for (const auto& s : t.statuses()) {
    runtime += s.api == kApiCudaRuntime;
    driver += s.api == kApiCudaDriver;
  }
  // CUDA 13's headers: 133 cudaError_t and 100 CUresult values besides success.
  EXPECT_GE(runtime, 100u);
  EXPECT_GE(driver, 90u);
  EXPECT_FALSE(t.legacy_source().empty());
}

TEST(StatusTable, EveryStatusAnswersByNameAndByNumber) {
  const StatusTable& t = M().statuses();
  for (const auto& s : t.statuses()) {
    if (s.api == kApiCudaRuntimeLegacy) continue;
    auto by_name = M().Lookup(s.name);
    ASSERT_EQ(by_name.size(), 1u) << s.name;
    EXPECT_EQ(by_name[0].status, &s) << s.name;
    EXPECT_FALSE(by_name[0].key.empty()) << s.name;
    // The number's readings include this status's condition.
    std::string key = M().ForStatus(s, Evidence::kQuery).key;
    auto by_number = M().Lookup(std::to_string(s.value));
    bool found = false;
    for (const auto& r : by_number) found |= r.key == key;
    EXPECT_TRUE(found) << s.name << " = " << s.value;
  }
}

TEST(StatusTable, ARuntimeNumberLeadsToTheRuntimeStatusAndTheDriverTwinToTheSameAnswer) {
  const StatusTable& t = M().statuses();
  for (const auto& s : t.statuses()) {
    if (s.api != kApiCudaRuntime) continue;
    auto readings = M().Lookup(std::to_string(s.value));
    ASSERT_FALSE(readings.empty()) << s.name;
    EXPECT_EQ(readings.front().key, M().ForStatus(s, Evidence::kQuery).key) << s.name;
  }
  for (const auto& s : t.statuses()) {
    if (s.api != kApiCudaDriver || s.runtime_equivalent.empty()) continue;
    const StatusCode* twin = t.FindName(s.runtime_equivalent);
    ASSERT_NE(twin, nullptr) << s.name;
    EXPECT_EQ(twin->value, s.value) << s.name;
    EXPECT_EQ(M().ForStatus(s, Evidence::kQuery).key, M().ForStatus(*twin, Evidence::kQuery).key) << s.name;
  }
}

TEST(StatusTable, TheOldNumberingMapsToCurrentNames) {
  const StatusTable& t = M().statuses();
  bool assert59 = false;
  for (const StatusCode* s : t.FindValue(59)) assert59 |= s->api == kApiCudaRuntimeLegacy && s->name == "cudaErrorAssert";
  EXPECT_TRUE(assert59);
  EXPECT_EQ(t.FindName("cudaErrorAssert")->value, 710);
  EXPECT_EQ(t.FindName("ERROR_ECC_UNCORRECTABLE")->name, "CUDA_ERROR_ECC_UNCORRECTABLE");
}

TEST(XidCatalogue, EveryXidAndSxidAnswersWithItsCategoryAndAction) {
  const XidCatalog& c = M().xids();
  EXPECT_EQ(c.max_xid(), 176);
  for (const auto& x : c.entries()) {
    std::string query = (x.nvswitch ? "SXid " : "Xid ") + std::to_string(x.number);
    auto readings = M().Lookup(query);
    ASSERT_EQ(readings.size(), 1u) << query;
    EXPECT_EQ(readings[0].xid_info, &x) << query;
    EXPECT_FALSE(readings[0].severity.empty()) << query;
    EXPECT_FALSE(x.category.empty()) << query;
    EXPECT_FALSE(x.action.empty()) << query;
    EXPECT_FALSE(x.source_urls.empty()) << query;
  }
  for (int n = 1; n <= 176; ++n) EXPECT_NE(c.Find(n, false), nullptr) << n;
}

TEST(XidCatalogue, MalformedCatalogueIsAParseError) {
  EXPECT_FALSE(XidCatalog::Parse("{").ok());
  EXPECT_FALSE(XidCatalog::Parse(R"({"xids": [], "sxids": []})").ok());  // no source URLs
  const char* bad_category = R"({"sources": {"N-XID-CATALOG": "u", "N-FM": "v"}, "enums": {"category": ["bus"], "action": ["none"]},
      "xids": [{"xid": 1, "name": "n", "category": "weather", "action": "none", "description": "d"}], "sxids": []})";
  EXPECT_FALSE(XidCatalog::Parse(bad_category).ok());
}

}  // namespace
}  // namespace gpuprobe::doctor

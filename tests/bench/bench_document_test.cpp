// The bench document's JSON form round-trips every kind of result, and a hand-edited or
// hostile file is refused with the file and the field named.
#include "bench/bench_document.h"

#include <gtest/gtest.h>

namespace gpuprobe::bench {
namespace {

BenchResult Make(const std::string& id, Metric metric, double value) {
  BenchResult r;
  r.id = id;
  r.group = id.substr(0, id.find('.'));
  r.title = "title of " + id;
  r.claim = "claim of " + id;
  r.backend = "cpu";
  r.device = "Test CPU";
  r.case_label = "all threads";
  r.variant = "v";
  r.size = 1ull << 33;
  r.threads = 2;
  r.param = 0.5;
  r.metric = metric;
  r.value = value;
  r.predicted = value * 1.25;
  r.prediction_basis = "basis";
  r.efficiency = 0.8;
  r.verified = true;
  r.verification_detail = "every element matched";
  r.checksum = 12345.5;
  r.stats.count = 7;
  r.stats.median = 0.01;
  r.stats.best = 0.009;
  r.stats.p10 = 0.0095;
  r.stats.p90 = 0.0112;
  r.stats.noisy = true;
  r.work.bytes_read = 16;
  r.work.bytes_written = 8;
  r.work.flops = 2;
  r.work.ops = 3;
  r.work.items = 4;
  r.note = "AVX2 kernel";
  r.clock_hz = 3.1e9;
  r.throttled = true;
  return r;
}

BenchDocument EveryKind() {
  BenchDocument doc;
  doc.gpuprobe_version = "9.9.9";
  doc.cpu.model_name = "Test CPU";
  doc.cpu.vendor = "GenuineIntel";
  doc.cpu.family = 6;
  doc.cpu.model_number = 85;
  doc.cpu.physical_cores = 2;
  doc.cpu.logical_cpus = 4;
  doc.cpu.has_avx2 = doc.cpu.has_fma = doc.cpu.has_avx512f = true;
  doc.cpu.max_clock_hz = 3.5e9;
  doc.cpu.measured_clock_hz = 3.1e9;
  doc.cpu.l1d_bytes = 32768;
  doc.cpu.l2_bytes = 1 << 20;
  doc.cpu.l3_bytes = 32 << 20;
  doc.cpu.l3_total_bytes = 32 << 20;
  doc.cpu.memory_total_bytes = 24ull << 30;
  doc.cpu.dram_bandwidth_bytes_per_s = 42.6e9;
  doc.cpu.dram_basis = "2 x DDR4-2666";
  doc.gpus = {"GPU 0: NVIDIA H200"};
  doc.full = true;
  doc.wall_seconds = 12.5;
  doc.results = {Make("memory.triad", Metric::kBandwidth, 20e9), Make("compute.fma_fp32", Metric::kFlops, 2e11),
                 Make("intops.throughput", Metric::kOps, 1e12), Make("latency.chase", Metric::kLatency, 9e-8)};
  BenchResult gpu = Make("memory.triad", Metric::kBandwidth, 4.1e12);
  gpu.backend = "cuda";
  BenchResult skipped = Make("compute.fma_bf16", Metric::kFlops, 0);
  skipped.skipped = true;
  skipped.skip_reason = "no AVX512-BF16";
  skipped.verified = false;
  BenchResult failed = Make("transfer.h2d_pinned", Metric::kBandwidth, 0);
  failed.error = "out of memory";
  failed.verified = false;
  BenchResult wrong = Make("memory.copy", Metric::kBandwidth, 1e9);
  wrong.verified = false;
  wrong.verification_detail = "element 3 differs";
  BenchResult unpredicted = Make("parallel.fork_join", Metric::kLatency, 2e-5);
  unpredicted.predicted.reset();
  unpredicted.efficiency.reset();
  doc.results.insert(doc.results.end(), {gpu, skipped, failed, wrong, unpredicted});
  return doc;
}

void ExpectSame(const BenchResult& a, const BenchResult& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.group, b.group);
  EXPECT_EQ(a.title, b.title);
  EXPECT_EQ(a.claim, b.claim);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.case_label, b.case_label);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.param, b.param);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.ok(), b.ok());
  if (a.ok()) {
    EXPECT_EQ(a.value, b.value);
  }
  EXPECT_EQ(a.predicted, b.predicted);
  EXPECT_EQ(a.prediction_basis, b.prediction_basis);
  EXPECT_EQ(a.efficiency, b.efficiency);
  EXPECT_EQ(a.verified, b.verified);
  EXPECT_EQ(a.verification_detail, b.verification_detail);
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_EQ(a.stats.count, b.stats.count);
  EXPECT_EQ(a.stats.median, b.stats.median);
  EXPECT_EQ(a.stats.best, b.stats.best);
  EXPECT_EQ(a.stats.p10, b.stats.p10);
  EXPECT_EQ(a.stats.p90, b.stats.p90);
  EXPECT_EQ(a.stats.noisy, b.stats.noisy);
  EXPECT_EQ(a.work.Bytes(), b.work.Bytes());
  EXPECT_EQ(a.work.flops, b.work.flops);
  EXPECT_EQ(a.work.ops, b.work.ops);
  EXPECT_EQ(a.work.items, b.work.items);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.clock_hz, b.clock_hz);
  EXPECT_EQ(a.throttled, b.throttled);
  EXPECT_EQ(a.skipped, b.skipped);
  EXPECT_EQ(a.skip_reason, b.skip_reason);
  EXPECT_EQ(a.error, b.error);
}

TEST(BenchDocumentTest, EveryResultKindRoundTripsThroughJson) {
  BenchDocument doc = EveryKind();
  nlohmann::json json = BenchDocumentToJson(doc);
  EXPECT_EQ(json["schema"], kBenchSchema);
  // Through text too, as a saved file is read.
  auto back = BenchDocumentFromJson(nlohmann::json::parse(json.dump()), "run.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->gpuprobe_version, "9.9.9");
  EXPECT_EQ(back->gpus, doc.gpus);
  EXPECT_EQ(back->full, doc.full);
  EXPECT_EQ(back->wall_seconds, doc.wall_seconds);
  EXPECT_EQ(back->cpu.model_name, doc.cpu.model_name);
  EXPECT_EQ(back->cpu.physical_cores, doc.cpu.physical_cores);
  EXPECT_EQ(back->cpu.has_avx512f, true);
  EXPECT_EQ(back->cpu.measured_clock_hz, doc.cpu.measured_clock_hz);
  EXPECT_EQ(back->cpu.dram_bandwidth_bytes_per_s, doc.cpu.dram_bandwidth_bytes_per_s);
  EXPECT_EQ(back->cpu.l3_total_bytes, doc.cpu.l3_total_bytes);
  // The derived peak is the same after the trip: the flags that set it survived.
  EXPECT_EQ(model::CpuPeakFlops(back->cpu, "fp32", 2), model::CpuPeakFlops(doc.cpu, "fp32", 2));
  ASSERT_EQ(back->results.size(), doc.results.size());
  for (size_t i = 0; i < doc.results.size(); ++i) {
    SCOPED_TRACE(doc.results[i].id + " " + doc.results[i].backend);
    ExpectSame(doc.results[i], back->results[i]);
  }
  EXPECT_EQ(back->ResultsOf("memory.triad", "cuda").size(), 1u);
  EXPECT_TRUE(back->HasBackend("cuda"));
  EXPECT_FALSE(back->HasBackend("rocm"));
}

TEST(BenchDocumentTest, TakeawaysAreWrittenWhenGiven) {
  BenchDocument doc = EveryKind();
  nlohmann::json json = BenchDocumentToJson(doc, [](const BenchResult& r) { return "about " + r.id; });
  EXPECT_EQ(json["results"][0]["takeaway"], "about memory.triad");
  EXPECT_FALSE(BenchDocumentToJson(doc)["results"][0].contains("takeaway"));
}

// Each hostile or hand-edited variant names the file and the exact field.
TEST(BenchDocumentTest, BadFieldsAreNamed) {
  nlohmann::json good = BenchDocumentToJson(EveryKind());
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string expected;
  };
  std::vector<Case> cases = {
      {[](nlohmann::json& j) { j["schema"] = "gpuprobe.plan.v1"; }, "not a gpuprobe bench document: schema is 'gpuprobe.plan.v1'"},
      {[](nlohmann::json& j) { j.erase("schema"); }, "not a gpuprobe bench document (no \"schema\" field)"},
      {[](nlohmann::json& j) { j["results"] = 3; }, "results is missing or not an array"},
      {[](nlohmann::json& j) { j["results"][2]["value"] = "fast"; }, "results[2].value must be a number or null"},
      {[](nlohmann::json& j) { j["results"][0]["value"] = -5; }, "results[0].value is -5"},
      {[](nlohmann::json& j) { j["results"][1]["metric"] = "speed"; }, "results[1].metric 'speed'"},
      {[](nlohmann::json& j) { j["results"][0].erase("id"); }, "results[0].id is missing"},
      {[](nlohmann::json& j) { j["results"][0]["size"] = 1.5; }, "results[0].size must be a whole number"},
      {[](nlohmann::json& j) { j["results"][0]["verified"] = "yes"; }, "results[0].verified must be true or false"},
      {[](nlohmann::json& j) { j["results"][3]["work"]["flops"] = nullptr; j["results"][3]["work"]["items"] = "x"; },
       "results[3].work.items must be a number"},
      {[](nlohmann::json& j) { j["machine"]["cpu"]["physical_cores"] = 1e300; }, "machine.cpu.physical_cores is"},
      {[](nlohmann::json& j) { j["machine"]["gpus"] = {1, 2}; }, "machine.gpus must be an array of strings"},
      {[](nlohmann::json& j) { j["results"][0] = 7; }, "results[0] must be an object"},
  };
  for (const auto& c : cases) {
    nlohmann::json bad = good;
    c.edit(bad);
    auto read = BenchDocumentFromJson(bad, "run.json");
    ASSERT_FALSE(read.ok()) << c.expected;
    EXPECT_EQ(read.status().code(), core::StatusCode::kParseError);
    EXPECT_NE(read.status().message().find("run.json: " + c.expected), std::string::npos)
        << read.status().message() << " / expected: " << c.expected;
  }
}

TEST(BenchDocumentTest, NullValueOfARunCaseBecomesAnError) {
  nlohmann::json json = BenchDocumentToJson(EveryKind());
  json["results"][0]["value"] = nullptr;
  auto read = BenchDocumentFromJson(json, "run.json");
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->results[0].ok());
}

}  // namespace
}  // namespace gpuprobe::bench

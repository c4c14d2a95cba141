// Every sentence plan, gpus and advise say comes from the text catalogue in both languages:
// the phrases the model builds for many jobs all have their keys in en and zh, and render
// with every placeholder filled.
#include "report/phrase_text.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/advisor.h"
#include "model/fit_options.h"
#include "model/gpu_link.h"
#include "model/gpu_selection.h"
#include "model/hf_config.h"
#include "model/throughput_model.h"

namespace gpuprobe::report {
namespace {

using model::Phrase;

const model::SpecDatabase& Db() {
  static const model::SpecDatabase db =
      *model::SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db;
}

// Phrases from every part of the planner, over jobs that take every branch.
std::vector<Phrase> ManyPhrases() {
  std::vector<Phrase> out;
  auto prices = *model::PriceBook::Parse(*core::EmbeddedFile("prices/gpu_prices.json"), Db());
  model::ModelShape dense = *model::ShapeFromParameterCount(70e9, model::ShapeFlags{});
  std::vector<model::Job> jobs;
  for (auto mode : {model::JobMode::kInfer, model::JobMode::kLora, model::JobMode::kQlora, model::JobMode::kFull}) {
    for (int tp : {1, 8}) {
      model::Job job;
      job.mode = mode;
      job.tensor_parallel = tp;
      job.pipeline_parallel = tp == 8 ? 2 : 1;
      job.activation_checkpointing = mode == model::JobMode::kFull;
      jobs.push_back(job);
    }
  }
  model::Job int4;
  int4.weight_dtype = model::DType::kInt4;
  jobs.push_back(int4);
  for (const auto& job : jobs) {
    auto plan = model::PlanMemory(dense, job);
    if (!plan.ok()) continue;
    for (const auto& c : plan->components) {
      out.push_back(c.formula);
      out.push_back(c.source);
      out.push_back(model::Say(c.name_key));
    }
    out.push_back(plan->summed);
    for (const char* gpu : {"h100", "l40s", "mi300x", "4090"}) {
      auto speed = model::PredictThroughput(dense, *plan, job, **Db().Find(gpu));
      if (!speed.ok()) continue;
      for (const auto* r : {&speed->decode_per_stream, &speed->decode_aggregate, &speed->prefill, &speed->training}) {
        out.push_back(r->basis);
        out.push_back(r->assumes);
      }
    }
    for (const char* gpu : {"4090", "l4"}) {
      for (const auto& o : model::FindFitOptions(dense, job, **Db().Find(gpu), Db(), &prices)) {
        out.push_back(o.change);
        out.push_back(o.cost);
      }
    }
  }
  for (const auto& rule : model::TaskRules()) {
    auto result = model::SelectGpus(Db(), rule, &prices);
    for (const auto& c : result->evaluated) {
      for (const auto& r : c.reasons) out.push_back(r);
    }
  }
  for (const auto& g : Db().gpus()) out.push_back(model::LinkName(g, model::PeerLink(g)));
  model::CpuCapability cpu{2e12, 300e9, model::Say("advise.cpu_basis.given").Flops("flops", 2e12).Rate("bandwidth", 300e9)};
  out.push_back(cpu.basis);
  for (int variant = 0; variant < 4; ++variant) {
    model::Workload w;
    w.name = model::Say("advise.workload.flags");
    w.flops = variant == 0 ? 2e5 : 2e9;
    w.bytes = variant == 1 ? 8e8 : 1e5;
    w.transfer_bytes = 2e4;
    w.parallel_fraction = variant == 2 ? 0.3 : 1;
    w.branchy = variant == 2;
    w.calls_per_second = variant == 3 ? 2000 : 0;
    w.model_params = variant == 1 ? 7e9 : 0;
    auto advice = model::Advise(w, cpu, Db().gpus(), &prices);
    if (!advice.ok()) continue;
    out.push_back(advice->reason);
    for (const auto& c : advice->criteria) out.push_back(c.reason);
    for (const auto& e : advice->gpus) out.push_back(e.link);
  }
  return out;
}

TEST(PhraseText, EveryPhraseHasItsTextInBothLanguagesAndRendersCompletely) {
  auto phrases = ManyPhrases();
  ASSERT_GT(phrases.size(), 500u);
  for (auto language : {report::Language::kEn, report::Language::kZh}) {
    auto texts = report::Texts::Load(language);
    ASSERT_TRUE(texts.ok());
    for (const auto& p : phrases) {
      std::vector<std::string> keys;
      model::CollectKeys(p, &keys);
      for (const auto& key : keys) EXPECT_TRUE(texts->Has(key)) << key;
      if (p.empty()) continue;
      std::string said = Say(*texts, p);
      EXPECT_EQ(said.find('{'), std::string::npos) << p.key << ": " << said;
      EXPECT_NE(said, p.key);
    }
  }
}

TEST(PhraseText, FormatsEachKindOfArgumentTheWayTheLanguageWritesIt) {
  auto en = *report::Texts::Load(report::Language::kEn);
  auto zh = *report::Texts::Load(report::Language::kZh);
  EXPECT_EQ(FormatParams(en, 7e9), "7.00 B");
  // Chinese counts as report/count_text.h writes them everywhere: 7B is 70 亿, with the
  // typed form beside.
  EXPECT_EQ(FormatParams(zh, 7e9), "70 亿（7B）");
  EXPECT_EQ(FormatParams(zh, 70e9), "700 亿（70B）");
  EXPECT_EQ(FormatParams(zh, 1.5e12), "1.5 万亿（1.5T）");
  EXPECT_EQ(FormatParams(zh, 7.24e9), "72.4 亿（7.24B）");
  auto arg = [](model::ArgKind kind, double v) { return model::PhraseArg{"x", kind, v, {}, nullptr}; };
  EXPECT_EQ(FormatArg(en, arg(model::ArgKind::kBytes, 24.0 * 1024 * 1024 * 1024)), "24.0 GiB");
  EXPECT_EQ(FormatArg(en, arg(model::ArgKind::kBytesPerSecond, 3.35e12)), "3.35 TB/s");
  EXPECT_EQ(FormatArg(en, arg(model::ArgKind::kNumber, 2)), "2");
  EXPECT_EQ(FormatArg(en, arg(model::ArgKind::kPercent, 0.42)), "42%");
  EXPECT_EQ(FormatArg(en, arg(model::ArgKind::kDollars, 0.8)), "$0.80");
  EXPECT_EQ(FormatArg(en, arg(model::ArgKind::kInteger, 4096)), "4,096");
  Phrase nested = model::Say("plan.join_plus").Sub("a", model::Say("plan.component.weights")).Key("b", "plan.component.kv_cache");
  EXPECT_EQ(Say(en, nested), "weights + KV cache");
  EXPECT_EQ(Say(zh, nested), "权重 + KV 缓存");
  EXPECT_EQ(Say(en, Phrase()), "");
}

// A GPU name's note reads in the reader's language: a note in words has its own text, one of
// figures ("96GB HBM3") reads the same everywhere, any other note is quoted as English.
TEST(PhraseText, AGpuNamesNoteReadsInChinese) {
  auto en = *report::Texts::Load(report::Language::kEn);
  auto zh = *report::Texts::Load(report::Language::kZh);
  EXPECT_EQ(GpuNameText("B200 (HGX, per GPU)", en), "B200 (HGX, per GPU)");  // English keeps the name as is
  EXPECT_EQ(GpuNameText("B200 (HGX, per GPU)", zh), "B200（HGX，按单块 GPU 计）");
  EXPECT_EQ(GpuNameText("GH200 Grace Hopper Superchip (96GB HBM3)", zh), "GH200 Grace Hopper Superchip（96GB HBM3）");
  EXPECT_EQ(GpuNameText("Some GPU (an unknown note)", zh), "Some GPU (\"an unknown note\")");
  EXPECT_EQ(GpuNameText("H200 SXM 141GB", zh), "H200 SXM 141GB");  // no note: never quoted
  model::Phrase p = model::Say("advise.verdict.move_to_gpu").GpuName("gpu", "GB200 (per B200 GPU in Grace Blackwell superchip)");
  EXPECT_EQ(FormatArg(zh, p.args.front()), "GB200（Grace Blackwell 超级芯片中的每块 B200 GPU）");
}

}  // namespace
}  // namespace gpuprobe::report

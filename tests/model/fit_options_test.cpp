// Every way to make a job fit is the planner's own answer for the changed job.
#include "model/fit_options.h"

#include <gtest/gtest.h>

#include "core/embedded_data.h"
#include "model/hf_config.h"
#include "model/spec_derivation.h"

namespace gpuprobe::model {
namespace {

const SpecDatabase& Db() {
  static const SpecDatabase db =
      *SpecDatabase::Parse(*core::EmbeddedFile("gpu_specs.json"), *core::EmbeddedFile("host_links.json"));
  return db;
}
const PriceBook& Prices() {
  static const PriceBook book = *PriceBook::Parse(*core::EmbeddedFile("prices/gpu_prices.json"), Db());
  return book;
}

const FitOption* Find(const std::vector<FitOption>& options, const std::string& id) {
  for (const auto& o : options) {
    if (o.id == id) return &o;
  }
  return nullptr;
}

TEST(FitOptions, SeventyBillionOnA4090IsRePlannedEachWay) {
  ModelShape shape = *ShapeFromParameterCount(70e9, ShapeFlags{});
  const GpuSpec& gpu = **Db().Find("4090");
  Job job;
  auto options = FindFitOptions(shape, job, gpu, Db(), &Prices());
  ASSERT_FALSE(options.empty());
  for (const auto& o : options) {
    // Each option's memory is PlanMemory's for its job, its fit CheckFit's on its GPU.
    auto plan = PlanMemory(shape, o.job);
    ASSERT_TRUE(plan.ok()) << o.id;
    EXPECT_DOUBLE_EQ(o.plan.total_bytes, plan->total_bytes) << o.id;
    EXPECT_EQ(o.fit.fits, CheckFit(*plan, o.job, DriverUsableMemory(*o.gpu).bytes).fits) << o.id;
    EXPECT_EQ(o.throughput.has_value(), o.fit.fits) << o.id;
  }
  // Those that fit come first.
  bool seen_miss = false;
  for (const auto& o : options) {
    if (!o.fit.fits) seen_miss = true;
    EXPECT_FALSE(seen_miss && o.fit.fits) << o.id;
  }
  const FitOption* tp = Find(options, "tensor_parallel");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value, 8);  // 130 GiB of weights over 21.2 GiB usable cards: 8 (a power of two dividing 64 heads)
  EXPECT_TRUE(tp->fit.fits);
  const FitOption* int4 = Find(options, "weights_int4");
  ASSERT_NE(int4, nullptr);
  EXPECT_FALSE(int4->fit.fits);  // about 39 GiB even in 4-bit
  EXPECT_LT(int4->plan.total_bytes, Find(options, "weights_int8")->plan.total_bytes);
  const FitOption* bigger = Find(options, "bigger_gpu_smallest");
  ASSERT_NE(bigger, nullptr);
  EXPECT_TRUE(bigger->fit.fits);
  EXPECT_NE(bigger->gpu, &gpu);
  // No GPU that fits has less usable memory than the one named smallest.
  auto base = PlanMemory(shape, job);
  for (const auto& g : Db().gpus()) {
    if (!g.memory_size_gb_vendor.known() || g.host_interface.find("SoC") != std::string::npos) continue;
    if (CheckFit(*base, job, DriverUsableMemory(g).bytes).fits) {
      EXPECT_GE(DriverUsableMemory(g).bytes, DriverUsableMemory(*bigger->gpu).bytes) << g.name;
    }
  }
  ASSERT_NE(Find(options, "combined"), nullptr);
  EXPECT_TRUE(Find(options, "combined")->fit.fits);
}

TEST(FitOptions, ShorterContextIsTheLongestThatFitsAndTrainingGetsTrainingOptions) {
  ModelShape shape = *ShapeFromParameterCount(8e9, ShapeFlags{});
  const GpuSpec& l4 = **Db().Find("l4");
  Job job;
  job.seq = 200000;
  auto options = FindFitOptions(shape, job, l4, Db(), nullptr);
  const FitOption* shorter = Find(options, "shorter_context");
  ASSERT_NE(shorter, nullptr);
  EXPECT_TRUE(shorter->fit.fits);
  Job longer = job;
  longer.seq = shorter->value + 1;
  EXPECT_FALSE(CheckFit(*PlanMemory(shape, longer), longer, DriverUsableMemory(l4).bytes).fits);

  Job lora;
  lora.mode = JobMode::kLora;
  lora.seq = 4096;
  auto lora_options = FindFitOptions(*ShapeFromParameterCount(13e9, ShapeFlags{}), lora, **Db().Find("4090"), Db(), nullptr);
  ASSERT_NE(Find(lora_options, "qlora"), nullptr);
  EXPECT_NE(Find(lora_options, "checkpointing"), nullptr);
  EXPECT_EQ(Find(lora_options, "weights_int4"), nullptr);  // quantising LoRA's base is what QLoRA is

  Job full;
  full.mode = JobMode::kFull;
  auto full_options = FindFitOptions(shape, full, **Db().Find("h100"), Db(), nullptr);
  EXPECT_NE(Find(full_options, "optimizer_8bit"), nullptr);
  EXPECT_NE(Find(full_options, "lora"), nullptr);
}

// QLoRA recipes checkpoint: a combination that reaches QLoRA through checkpointing is the
// QLoRA option itself, and is not listed a second time.
TEST(FitOptions, CheckpointingPlusQloraIsNotListedBesideQlora) {
  ModelShape shape = *ShapeFromParameterCount(13e9, ShapeFlags{});
  Job lora;
  lora.mode = JobMode::kLora;
  lora.seq = 4096;
  auto options = FindFitOptions(shape, lora, **Db().Find("4090"), Db(), nullptr);
  const FitOption* qlora = Find(options, "qlora");
  ASSERT_NE(qlora, nullptr);
  EXPECT_TRUE(qlora->job.activation_checkpointing);
  for (const auto& o : options) {
    if (&o == qlora) continue;
    const bool same_job = o.gpu == qlora->gpu && o.job.mode == qlora->job.mode &&
                          o.job.activation_checkpointing == qlora->job.activation_checkpointing &&
                          o.job.tensor_parallel == qlora->job.tensor_parallel && o.job.seq == qlora->job.seq &&
                          o.job.batch == qlora->job.batch && o.job.optimizer == qlora->job.optimizer;
    EXPECT_FALSE(same_job) << o.id << " repeats the QLoRA option";
  }
}

TEST(FitOptions, NoneWhenItAlreadyFits) {
  Job job;
  EXPECT_TRUE(FindFitOptions(*ShapeFromParameterCount(7e9, ShapeFlags{}), job, **Db().Find("h100"), Db(), nullptr).empty());
}

}  // namespace
}  // namespace gpuprobe::model

// The embedded reference data loads, once, and real devices find their spec entries by the
// strict rule: the names the CUDA runtime and nvidia-smi give GPUs find their entries (tensor-core
// peaks come from there); an unknown name, or one that is only the start of another entry's
// name, finds nothing rather than a guess.
#include "knowledge/embedded_knowledge.h"

#include <gtest/gtest.h>

#include "model/spec_derivation.h"

namespace gpuprobe::knowledge {
namespace {

TEST(EmbeddedKnowledge, EveryTableLoadsAndIsParsedOnce) {
  ASSERT_TRUE(Specs().ok()) << Specs().status().message();
  EXPECT_EQ(*Specs(), *Specs());
  ASSERT_TRUE(Prices().ok()) << Prices().status().message();
  EXPECT_EQ(*Prices(), *Prices());
  ASSERT_TRUE(ModelCatalog().ok()) << ModelCatalog().status().message();
  EXPECT_FALSE((*ModelCatalog())->empty());
  ASSERT_TRUE(NormalRanges().ok()) << NormalRanges().status().message();
  EXPECT_FALSE((*NormalRanges())->empty());
}

TEST(EmbeddedKnowledge, PriceOverridesApplyToACopy) {
  auto book = PricesWithOverrides({"l4=0.5"});
  ASSERT_TRUE(book.ok()) << book.status().message();
  const model::GpuSpec* l4 = *(*Specs())->Find("l4");
  ASSERT_NE(book->Find(*l4), nullptr);
  EXPECT_DOUBLE_EQ(book->Find(*l4)->usd_per_hour, 0.5);
  const model::GpuPrice* table = (*Prices())->Find(*l4);
  EXPECT_TRUE(table == nullptr || table->usd_per_hour != 0.5 || !table->user_given);
  EXPECT_FALSE(PricesWithOverrides({"l4=abc"}).ok());
  EXPECT_FALSE(PricesWithOverrides({"no-such-gpu=1"}).ok());
}

TEST(DeviceSpec, RuntimeNamesFindTheirEntries) {
  const model::GpuSpec* h200 = DeviceSpec("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->name, "H200 SXM 141GB");
  EXPECT_NEAR(*model::PeakFlops(*h200, "bf16"), 989.4e12, 1e9);
  EXPECT_NEAR(*model::PeakFlops(*h200, "fp8"), 1978.9e12, 1e9);
  EXPECT_EQ(DeviceSpec("NVIDIA Imaginary 9000"), nullptr);
  ASSERT_NE(DeviceSpec("NVIDIA A100-SXM4-80GB"), nullptr);
  EXPECT_EQ(DeviceSpec("NVIDIA A100-SXM4-80GB")->name, "A100 SXM4 80GB");
}

TEST(DeviceSpec, APartialNameIsNotADevice) {
  // A Quadro P400 is not in the database; what a user types may match the P4000 by its
  // start, a device may not.
  EXPECT_EQ(DeviceSpec("Quadro P400"), nullptr);
}

TEST(DeviceSpec, ThePciDeviceIdWinsOverTheName) {
  model::DeviceMatch m = MatchDevice(0x233010DEu, "some renamed board");
  ASSERT_NE(m.spec, nullptr);
  EXPECT_EQ(m.spec->name, "H100 SXM5 80GB");
  EXPECT_EQ(m.by, "pci_device_id");
  EXPECT_EQ(m.pci_device_id, "0x2330");
  // Another vendor's id in the low half is not NVIDIA's device.
  EXPECT_EQ(MatchDevice(0x23301002u, "").spec, nullptr);
}

}  // namespace
}  // namespace gpuprobe::knowledge

#include "model/crossover.h"

#include <gtest/gtest.h>

#include "model/roofline.h"

namespace gpuprobe::model {
namespace {

// A weak CPU and a strong GPU behind a PCIe Gen5-like link. The CPU as one thread pays no
// fork-join; here both ends run at the same rates, so only the fixed cost differs.
const CpuRates kCpu{{100e9, 20e9, 0}, {100e9, 20e9, 5e-6}};
const ProcessorRates kGpu{50e12, 4e12, 10e-6};
const LinkRates kLink{50e9, 5e-6};

TEST(RooflineTest, BandwidthBoundBelowRidgeAndComputeBoundAbove) {
  Roofline r{1e12, 100e9};
  EXPECT_DOUBLE_EQ(r.RidgePoint(), 10);
  EXPECT_DOUBLE_EQ(r.Attainable(1), 100e9);
  EXPECT_DOUBLE_EQ(r.Attainable(100), 1e12);
  EXPECT_EQ(Roofline{}.Attainable(5), 0);
  EXPECT_EQ(r.Attainable(-1), 0);
}

TEST(CrossoverTest, WorkOfTriadAndMatmul) {
  KernelWork t = WorkOf(CrossoverKernel::kVectorTriad, 1000);
  EXPECT_DOUBLE_EQ(t.flops, 2000);
  EXPECT_DOUBLE_EQ(t.bytes, 12000);
  EXPECT_DOUBLE_EQ(t.bytes_in + t.bytes_out, 12000);
  KernelWork m = WorkOf(CrossoverKernel::kMatmul, 100);
  EXPECT_DOUBLE_EQ(m.flops, 2e6);
  EXPECT_DOUBLE_EQ(m.bytes_in, 80000);
}

TEST(CrossoverTest, TimeAddsFixedCostRooflineAndCopies) {
  CrossoverPoint p = TimeAt(CrossoverKernel::kVectorTriad, 1e6, kCpu, kGpu, kLink);
  EXPECT_NEAR(p.cpu_seconds, 12e6 / 20e9, 1e-12) << "one thread, no fork-join, at the same rate";
  EXPECT_TRUE(p.cpu_one_thread);
  EXPECT_NEAR(p.gpu_launch_seconds + p.gpu_compute_seconds, p.gpu_resident_seconds, 1e-15);
  EXPECT_NEAR(p.gpu_copy_seconds, 2 * 5e-6 + 12e6 / 50e9, 1e-12);
  EXPECT_NEAR(p.gpu_resident_seconds, 10e-6 + 12e6 / 4e12, 1e-12);
  EXPECT_NEAR(p.gpu_transfer_seconds, p.gpu_resident_seconds + 2 * 5e-6 + 12e6 / 50e9, 1e-12);
}

TEST(CrossoverTest, ResidentTriadCrossesWhereFixedCostIsPaidBack) {
  auto curve = FindCrossover(CrossoverKernel::kVectorTriad, kCpu, kGpu, kLink, 1e3, 1e9);
  ASSERT_TRUE(curve.ok()) << curve.status().message();
  ASSERT_TRUE(curve->resident_size.has_value());
  // One CPU thread: 12n/20e9 = 10e-6 + 12n/4e12  ->  n = 10e-6 / (12/20e9 - 12/4e12)
  double exact = 10e-6 / (12 / 20e9 - 12 / 4e12);
  EXPECT_NEAR(*curve->resident_size, exact, exact * 0.011);
  // Copies at 50 GB/s are faster than a 20 GB/s CPU, so the transfer path crosses later.
  ASSERT_TRUE(curve->transfer_size.has_value());
  EXPECT_GT(*curve->transfer_size, *curve->resident_size);
  EXPECT_EQ(curve->points.size(), 48u);
  EXPECT_DOUBLE_EQ(curve->points.back().size, 1e9);
}

TEST(CrossoverTest, TriadNeverPaysForTheCopiesOnAFastCpu) {
  CpuRates fast_cpu{{1e12, 200e9, 0}, {1e12, 200e9, 5e-6}};
  auto curve = FindCrossover(CrossoverKernel::kVectorTriad, fast_cpu, kGpu, kLink, 1e3, 1e9);
  ASSERT_TRUE(curve.ok());
  EXPECT_TRUE(curve->resident_size.has_value());
  EXPECT_FALSE(curve->transfer_size.has_value());
  EXPECT_EQ(curve->why_never, NeverReason::kCopiesCostMore);
  EXPECT_DOUBLE_EQ(curve->link_bandwidth, 50e9);
}

TEST(CrossoverTest, MatmulCrossesEvenWithCopies) {
  auto curve = FindCrossover(CrossoverKernel::kMatmul, kCpu, kGpu, kLink, 8, 16384);
  ASSERT_TRUE(curve.ok());
  ASSERT_TRUE(curve->transfer_size.has_value());
  CrossoverPoint at = TimeAt(CrossoverKernel::kMatmul, *curve->transfer_size, kCpu, kGpu, kLink);
  EXPECT_LT(at.gpu_transfer_seconds, at.cpu_seconds);
  CrossoverPoint below = TimeAt(CrossoverKernel::kMatmul, *curve->transfer_size / 1.02, kCpu, kGpu, kLink);
  EXPECT_GE(below.gpu_transfer_seconds, below.cpu_seconds);
}

TEST(CrossoverTest, GpuFasterEverywhereCrossesAtTheSmallestSize) {
  CpuRates slow_cpu{{1e9, 1e9, 1e-3}, {1e9, 1e9, 1e-3}};
  auto curve = FindCrossover(CrossoverKernel::kMatmul, slow_cpu, kGpu, kLink, 8, 1024);
  ASSERT_TRUE(curve.ok());
  EXPECT_DOUBLE_EQ(*curve->resident_size, 8);
}

TEST(CrossoverTest, RejectsMissingOrAbsurdInputs) {
  EXPECT_FALSE(FindCrossover(CrossoverKernel::kMatmul, CpuRates{}, kGpu, kLink, 8, 1024).ok());
  EXPECT_FALSE(FindCrossover(CrossoverKernel::kMatmul, kCpu, kGpu, LinkRates{}, 8, 1024).ok());
  EXPECT_FALSE(FindCrossover(CrossoverKernel::kMatmul, kCpu, kGpu, kLink, 1024, 8).ok());
  EXPECT_FALSE(FindCrossover(CrossoverKernel::kMatmul, kCpu, kGpu, kLink, 0, 8).ok());
  EXPECT_FALSE(FindCrossover(CrossoverKernel::kMatmul, kCpu, kGpu, kLink, 8, 1e300).ok());
}

// The seeds' lesson: a tiny job runs on one thread and never pays the pool's fork-join, so a
// GPU whose launch costs more than a small job's whole time never wins it. Charging the
// fork-join at every size (the old model) let the GPU "win" at 1,000 elements.
TEST(CrossoverTest, TinyJobsStayOnOneCpuThread) {
  // A 2-core CPU: 20 GB/s on one thread, 30 GB/s on both, 25 us fork-join; an H200-like GPU
  // with a 5 us launch, PCIe Gen5.
  CpuRates cpu{{50e9, 20e9, 0}, {100e9, 30e9, 25e-6}};
  ProcessorRates gpu{60e12, 4.8e12, 5e-6};
  LinkRates link{50e9, 10e-6};
  auto triad = FindCrossover(CrossoverKernel::kVectorTriad, cpu, gpu, link, 1e3, 1e10);
  ASSERT_TRUE(triad.ok());
  CrossoverPoint small = TimeAt(CrossoverKernel::kVectorTriad, 1e3, cpu, gpu, link);
  EXPECT_TRUE(small.cpu_one_thread);
  EXPECT_LT(small.cpu_seconds, small.gpu_resident_seconds) << "the CPU wins 1,000 elements";
  ASSERT_TRUE(triad->resident_size.has_value());
  EXPECT_GT(*triad->resident_size, 1e3);
  // Resident: 12n/20e9 = 5e-6 + 12n/4.8e12 (one thread still cheaper there).
  double exact = 5e-6 / (12 / 20e9 - 12 / 4.8e12);
  EXPECT_NEAR(*triad->resident_size, exact, exact * 0.011);
  auto mm = FindCrossover(CrossoverKernel::kMatmul, cpu, gpu, link, 8, 32768);
  ASSERT_TRUE(mm.ok());
  ASSERT_TRUE(mm->transfer_size.has_value());
  EXPECT_GT(*mm->transfer_size, 8) << "the CPU wins a matmul of n = 8";
}

}  // namespace
}  // namespace gpuprobe::model

#include "doctor/knowledge_base.h"

#include <random>

#include <gtest/gtest.h>

namespace gpuprobe::doctor {
namespace {

const KnowledgeBase& Kb() {
  auto kb = KnowledgeBase::Embedded();
  EXPECT_TRUE(kb.ok()) << kb.status().ToString();
  return **kb;
}

TEST(KnowledgeBase, EveryRequiredErrorHasAnEntryInBothLanguages) {
  for (const char* id : {"driver_unreachable", "cuda_out_of_memory", "driver_insufficient", "no_cuda_device", "no_kernel_image",
                         "illegal_memory_access", "device_side_assert", "launch_failure", "launch_timeout", "cublas_error",
                         "cudnn_error", "nvml_driver_mismatch", "nvml_unknown_error", "docker_no_gpu_driver",
                         "container_cuda_requirement", "nccl_error", "nccl_watchdog_timeout", "xid_13", "xid_31", "xid_43", "xid_48",
                         "xid_63", "xid_64", "xid_74", "xid_79", "xid_92", "xid_94", "xid_95", "xid_119", "xid_120"}) {
    EXPECT_NE(Kb().Find(id), nullptr) << id;
  }
  for (const auto& e : Kb().entries()) {
    EXPECT_FALSE(e.title.zh.empty()) << e.id;
    EXPECT_FALSE(e.meaning.zh.empty()) << e.id;
    EXPECT_FALSE(e.causes.empty()) << e.id;
    EXPECT_FALSE(e.fixes.empty()) << e.id;
    EXPECT_FALSE(e.confirm.empty()) << e.id;
    for (const auto& c : e.causes) {
      EXPECT_FALSE(c.zh.empty()) << e.id;
      // A cause is an explanation, not a pointer to someone else's catalogue.
      EXPECT_EQ(c.en.rfind("See ", 0), std::string::npos) << e.id << ": " << c.en;
    }
    for (const auto& f : e.fixes) EXPECT_FALSE(f.zh.empty()) << e.id;
  }
}

struct Sample {
  const char* text;
  const char* id;
};

class Recognises : public ::testing::TestWithParam<Sample> {};

TEST_P(Recognises, TheRealMessage) {
  auto hits = Kb().Match(GetParam().text);
  ASSERT_FALSE(hits.empty()) << GetParam().text;
  EXPECT_EQ(hits.front().entry->id, GetParam().id) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Messages, Recognises,
    ::testing::Values(
        Sample{"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.", "driver_unreachable"},
        Sample{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacity of 15.77 GiB of which 959.44 MiB is free.", "cuda_out_of_memory"},
        Sample{"RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch)", "cuda_out_of_memory"},
        Sample{"CUDA driver version is insufficient for CUDA runtime version", "driver_insufficient"},
        Sample{"UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12040).", "driver_insufficient"},
        Sample{"RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver", "torch_no_driver"},
        Sample{"RuntimeError: No CUDA GPUs are available", "no_cuda_device"},
        Sample{"CUDA error: no kernel image is available for execution on the device", "no_kernel_image"},
        Sample{"RuntimeError: CUDA error: device-side assert triggered", "device_side_assert"},
        Sample{"CUDA error: unspecified launch failure", "launch_failure"},
        Sample{"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`", "cublas_error"},
        Sample{"cuDNN error: CUDNN_STATUS_INTERNAL_ERROR", "cudnn_error"},
        Sample{"Failed to initialize NVML: Driver/library version mismatch", "nvml_driver_mismatch"},
        Sample{"Failed to initialize NVML: Unknown Error", "nvml_unknown_error"},
        Sample{"docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].", "docker_no_gpu_driver"},
        Sample{"nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver", "container_cuda_requirement"},
        Sample{"RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1", "nccl_error"},
        Sample{"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, Timeout(ms)=600000)", "nccl_watchdog_timeout"},
        Sample{"NVRM: Xid (PCI:0000:08:00): 31, Ch 0000003b, intr 10000000. MMU Fault: ENGINE GRAPHICS", "xid_31"},
        Sample{"NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.", "xid_79"},
        Sample{"NVRM: Xid (0000:01:00): 13, Graphics Exception", "xid_13"},
        Sample{"Xid 119", "xid_119"}));

TEST(KnowledgeBase, XidNumbersDoNotMatchStrayDigits) {
  auto hits = Kb().Match("NVRM: Xid (PCI:0000:13:00): 79, pid=1313, GPU has fallen off the bus.");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].entry->id, "xid_79");
}

TEST(KnowledgeBase, ScansALogAndCountsOccurrences) {
  std::string log =
      "Jul 03 boot ok\n"
      "kernel: NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s of waiting for RPC response\n"
      "kernel: NVRM: Xid (PCI:0000:9b:00): 119, pid=2024381, name=python3, Timeout after 6s\n"
      "python3: RuntimeError: CUDA error: an illegal memory access was encountered\n";
  auto hits = Kb().Match(log);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].entry->id, "xid_119");
  EXPECT_EQ(hits[0].first_line, 2);
  EXPECT_EQ(hits[0].occurrences, 2);
  EXPECT_EQ(hits[1].entry->id, "illegal_memory_access");
}

TEST(KnowledgeBase, UnknownTextGetsTheClosestEntries) {
  EXPECT_TRUE(Kb().Match("everything is fine").empty());
  auto closest = Kb().Closest("my NCCL all-reduce hangs forever");
  ASSERT_FALSE(closest.empty());
  EXPECT_EQ(closest.front()->id.rfind("nccl", 0), 0u);
}

TEST(KnowledgeBase, MalformedKnowledgeIsAParseError) {
  EXPECT_FALSE(KnowledgeBase::Parse("{").ok());
  EXPECT_FALSE(KnowledgeBase::Parse(R"({"entries": [{"id": "x", "title": {"en": "t"}, "meaning": {"en": "m"}, "causes": [], "fixes": [], "patterns": ["("]}]})").ok());
}

TEST(OutOfMemory, ModernMessageWithFragmentation) {
  auto oom = ParseOutOfMemory("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 400.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 300.00 MiB is free. Process 12447 has 15.40 GiB memory in use. Of the allocated memory 14.01 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.");
  ASSERT_TRUE(oom);
  EXPECT_DOUBLE_EQ(oom->requested_bytes, 400.0 * 1024 * 1024);
  EXPECT_EQ(oom->diagnosis, "fragmentation");
}

TEST(OutOfMemory, ModernMessageGenuinelyTooBig) {
  auto oom = ParseOutOfMemory("CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacity of 15.77 GiB of which 959.44 MiB is free. Process 12447 has 14.83 GiB memory in use. Of the allocated memory 14.01 GiB is allocated by PyTorch, and 472.05 MiB is reserved by PyTorch but unallocated.");
  ASSERT_TRUE(oom);
  EXPECT_EQ(oom->diagnosis, "too_big");
}

TEST(OutOfMemory, LegacyMessageWithSomeoneElseHoldingTheGpu) {
  auto oom = ParseOutOfMemory("RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch)");
  ASSERT_TRUE(oom);
  EXPECT_DOUBLE_EQ(oom->requested_bytes, 36.0 * 1024 * 1024);
  EXPECT_EQ(oom->diagnosis, "someone_else");
  EXPECT_FALSE(ParseOutOfMemory("CUDA out of memory").has_value());
}

// Logs are untrusted: lines far longer than any real one, and runs that make backtracking
// engines recurse once per character, must be matched (or not) without a crash.
TEST(KnowledgeBase, HostileLinesNeitherCrashNorHang) {
  auto kb = KnowledgeBase::Embedded();
  ASSERT_TRUE(kb.ok());
  std::string spaces = "NVRM: Xid" + std::string(200000, ' ') + "79";
  EXPECT_TRUE((*kb)->Match(spaces).empty());  // the number lies beyond the per-line limit
  std::string digits = "Tried to allocate " + std::string(2000000, '1');
  EXPECT_FALSE(ParseOutOfMemory(digits).has_value());
  std::mt19937 rng(7);
  std::string bytes(1 << 20, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng() & 0xFF);
  (*kb)->Match(bytes);
  ParseOutOfMemory("Tried to allocate " + bytes);
  // A real line after a hostile one is still found, with its line number.
  auto hits = (*kb)->Match(spaces + "\nNVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].first_line, 2);
}

}  // namespace
}  // namespace gpuprobe::doctor

// Errors that are not GPU problems: recognised for what they are, said to be not a GPU
// problem, and never ranked before (or instead of) a GPU error in the same text.
#include <gtest/gtest.h>

#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

const ErrorMatcher& M() {
  auto m = ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

const Finding* Top(const Analysis& a) { return a.hits.empty() ? nullptr : &a.hits.front().finding; }

TEST(NotGpu, EachKindIsRecognisedAndMarkedNotGpu) {
  struct Case {
    const char* text;
    const char* key;
  };
  const Case cases[] = {
      {"Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space", "jvm_heap_exhausted"},
      {"java.lang.OutOfMemoryError: GC overhead limit exceeded", "jvm_gc_overhead"},
      {"[12.3] Out of memory: Killed process 4242 (python3) total-vm:87033376kB", "linux_oom_killer"},
      {"command terminated with exit code 137", "container_exit_137"},
      {"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", "node_heap_exhausted"},
      {"RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 1 bytes.",
       "host_memory_allocation_failed"},
      {"OSError: [Errno 28] No space left on device", "disk_full"},
      {"requests.exceptions.ConnectionError: [Errno 111] Connection refused", "connection_refused"},
      {"socket.gaierror: [Errno -3] Temporary failure in name resolution", "dns_failure"},
      {"Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", "docker_daemon_down"},
      {"ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.", "pip_dependency_conflict"},
      {"ModuleNotFoundError: No module named 'transformers.tokenization_utils'", "python_module_not_found"},
      {"KeyError: 'llama'", "python_key_error"},
  };
  for (const auto& c : cases) {
    Analysis a = Analyze(M(), c.text, AnalysisMode::kPaste);
    ASSERT_NE(Top(a), nullptr) << c.text;
    EXPECT_EQ(Top(a)->key, c.key) << c.text;
    EXPECT_FALSE(IsGpuFinding(*Top(a))) << c.text;
    EXPECT_EQ(Top(a)->entry->layer, "host") << c.text;
  }
}

TEST(NotGpu, TheSameWordsInAGpuStackAreTheGpuError) {
  // PyTorch's OutOfMemoryError is GPU memory; Java's never is.
  Analysis torch = Analyze(M(), "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", AnalysisMode::kPaste);
  ASSERT_NE(Top(torch), nullptr);
  EXPECT_EQ(Top(torch)->key, "cuda_out_of_memory");
  // A compiled GPU extension that is missing is not a plain missing package.
  Analysis ext = Analyze(M(), "ModuleNotFoundError: No module named 'flash_attn_2_cuda'", AnalysisMode::kPaste);
  ASSERT_NE(Top(ext), nullptr);
  EXPECT_EQ(Top(ext)->key, "gpu_extension_not_built");
  // A plain Python exception whose line is about CUDA is not "a plain Python exception".
  Analysis value = Analyze(M(), "ValueError: CUDA device 3 is not visible", AnalysisMode::kPaste);
  EXPECT_TRUE(value.hits.empty() || IsGpuFinding(value.hits.front().finding));
}

TEST(NotGpu, AGpuErrorInTheSameTextComesFirst) {
  Analysis a = Analyze(M(),
                       "requests.exceptions.ConnectionError: [Errno 111] Connection refused\n"
                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
                       AnalysisMode::kPaste);
  ASSERT_EQ(a.hits.size(), 2u);
  EXPECT_EQ(a.hits[0].finding.key, "cuda_out_of_memory");
  EXPECT_EQ(a.hits[1].finding.key, "connection_refused");
}

TEST(NotGpu, ContainerKilledByTheOomKillerIsTheOomKiller) {
  Analysis a = Analyze(M(), "Last State: Terminated\n  Reason: OOMKilled\n  Exit Code: 137", AnalysisMode::kPaste);
  ASSERT_NE(Top(a), nullptr);
  EXPECT_EQ(Top(a)->key, "linux_oom_killer");
  // "OOMKilled: false" says the opposite.
  Analysis b = Analyze(M(), "ExitCode:137,\nOOMKilled:false,", AnalysisMode::kPaste);
  ASSERT_NE(Top(b), nullptr);
  EXPECT_EQ(Top(b)->key, "container_exit_137");
}

}  // namespace
}  // namespace gpuprobe::doctor

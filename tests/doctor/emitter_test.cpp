#include "doctor/emitter.h"

#include <gtest/gtest.h>

#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

const EmitterTable& Table() {
  auto t = EmitterTable::Embedded();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return **t;
}

std::vector<std::string> Ids(std::string_view text) {
  std::vector<std::string> ids;
  for (const auto& hit : Table().Detect(text)) ids.push_back(hit.emitter->id);
  return ids;
}

bool Has(std::string_view text, const char* id) { return HasEmitter(Table().Detect(text), id); }

TEST(Emitters, PythonPackagesAreReadFromTracebackPathsAndExceptionModules) {
  EXPECT_TRUE(Has("  File \"/usr/local/lib/python3.12/site-packages/vllm/engine/llm_engine.py\", line 3", "vllm"));
  EXPECT_TRUE(Has("  File \"C:\\Python\\Lib\\site-packages\\bitsandbytes\\cextension.py\", line 34", "bitsandbytes"));
  EXPECT_TRUE(Has("pynvml.NVMLError_NoPermission: Insufficient Permissions", "nvml"));
  EXPECT_TRUE(Has("/opt/venv/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py", "flash_attn"));
  // A package name inside a word or a sentence is not a traceback frame.
  EXPECT_FALSE(Has("we use vllm for serving", "vllm"));
}

TEST(Emitters, SourceFilesAndLogPrefixesNameTheirComponent) {
  EXPECT_TRUE(Has("[rank7]:[E816 01:45:40.18 ProcessGroupNCCL.cpp:607] Watchdog caught ...", "nccl"));
  EXPECT_TRUE(Has("ggml_cuda_init: failed to initialize CUDA: out of memory", "llama_cpp"));
  EXPECT_TRUE(Has("[ 9.42] NVRM: API mismatch: the client has the version 570.1", "nvrm"));
  EXPECT_TRUE(Has("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8", "container_toolkit"));
  EXPECT_TRUE(Has("E0531 10:00:00.000000 1 main.go:123] Incompatible platform detected", "k8s_device_plugin"));
  EXPECT_TRUE(Has("ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link", "wsl"));
  EXPECT_TRUE(Has("Consult /var/lib/dkms/nvidia/580.1/build/make.log for more information.", "dkms"));
  EXPECT_TRUE(Has("[root@node ~]# nvidia-smi mig -lci", "mig"));
  EXPECT_TRUE(Has("[07/06/2025-10:30:33] [TRT] [E] IBuilder::buildSerializedNetwork: Error Code 10", "tensorrt"));
}

TEST(Emitters, ComponentsOutsideTheGpuStackSayTheyAre) {
  auto hits = Table().Detect("Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits.front().emitter->id, "jvm");
  EXPECT_FALSE(hits.front().emitter->gpu);
  EXPECT_EQ(hits.front().emitter->layer, "host");
  EXPECT_TRUE(Has("<--- JS stacktrace --->\nFATAL ERROR: Reached heap limit", "nodejs"));
  EXPECT_TRUE(Has("[597411.19] p2pd invoked oom-killer: gfp_mask=0x140cca", "linux_oom_killer"));
}

TEST(Emitters, TheMostSpecificComponentComesFirst) {
  auto ids = Ids("Traceback (most recent call last):\n"
                 "  File \"/usr/lib/python3/dist-packages/vllm/worker/worker.py\", line 1, in f\n"
                 "  File \"/usr/lib/python3/dist-packages/torch/cuda/__init__.py\", line 2, in g\n"
                 "torch.OutOfMemoryError: CUDA out of memory.");
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids.front(), "vllm");
  EXPECT_NE(std::find(ids.begin(), ids.end(), "pytorch"), ids.end());
  EXPECT_EQ(ids.back(), "python");
}

TEST(Emitters, MalformedTablesAreParseErrors) {
  EXPECT_FALSE(EmitterTable::Parse("{").ok());
  EXPECT_FALSE(EmitterTable::Parse(R"({"emitters": [{"id": "x", "name": "X", "layer": "host", "patterns": ["a"]}]})").ok());
  EXPECT_FALSE(EmitterTable::Parse(R"({"emitters": [{"id": "x", "name": {"en": "X", "zh": "X"}, "layer": "nowhere", "patterns": ["a"]}]})").ok());
  EXPECT_FALSE(EmitterTable::Parse(R"({"emitters": [{"id": "x", "name": {"en": "X", "zh": "X"}, "layer": "host", "patterns": ["("]}]})").ok());
  EXPECT_FALSE(EmitterTable::Parse(R"({"emitters": [{"id": "x", "name": {"en": "X", "zh": "X"}, "layer": "host"}]})").ok());
}

// The same words mean another thing in another component: NVML's "no permission" printed by
// MIG management is MIG's permission problem; NVML's "library not found" in the device
// plugin's log is the plugin's runtime set-up.
TEST(Emitters, AFindingIsRefinedByTheComponentThatPrintedIt) {
  auto m = ErrorMatcher::Embedded();
  ASSERT_TRUE(m.ok());
  Analysis plain = Analyze(**m, "pynvml.NVMLError_NoPermission: Insufficient Permissions", AnalysisMode::kPaste);
  ASSERT_FALSE(plain.hits.empty());
  EXPECT_EQ(plain.hits.front().finding.key, "nvml_error:NVML_ERROR_NO_PERMISSION");
  Analysis mig = Analyze(**m, "$ nvidia-smi mig -cgi 9 -C\npynvml.NVMLError_NoPermission: Insufficient Permissions", AnalysisMode::kPaste);
  ASSERT_FALSE(mig.hits.empty());
  EXPECT_EQ(mig.hits.front().finding.key, "mig_insufficient_permissions");
  ASSERT_NE(mig.hits.front().finding.status, nullptr);  // the status stays in the answer
  Analysis plugin = Analyze(**m, "E0101 00:00:00.000000 1 main.go:10] failed to construct NVML resource managers: "
                                 "error initializing NVML: ERROR_LIBRARY_NOT_FOUND", AnalysisMode::kPaste);
  ASSERT_FALSE(plugin.hits.empty());
  EXPECT_EQ(plugin.hits.front().finding.key, "k8s_plugin_nvml_load_failed");
}

}  // namespace
}  // namespace gpuprobe::doctor

#include "doctor/error_matcher.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

const ErrorMatcher& M() {
  auto m = ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

std::string First(std::string_view text) {
  Analysis a = Analyze(M(), text, AnalysisMode::kPaste);
  if (!a.hits.empty()) return a.hits.front().finding.key;
  if (!a.readings.empty()) return a.readings.front().key;
  return "(nothing)";
}

// Synthetic phrasings below, written for these tests (not copied from anywhere).
// Generic by construction: a library without an error-string function is quoted in its
// enumerator's words, only beside its name; NVML's messages come from NVIDIA's Python binding;
// NVML names lose their ERROR_ in some tools; an Xid keeps its number when the device is redacted.
TEST(ErrorMatcher, StatusesReadFromTheirOwnNamesAndMessages) {
  Analysis solver = Analyze(M(), "XlaRuntimeError: INTERNAL: cuSolver internal error", AnalysisMode::kPaste);
  ASSERT_FALSE(solver.hits.empty());
  ASSERT_NE(solver.hits.front().finding.status, nullptr);
  EXPECT_EQ(solver.hits.front().finding.status->name, "CUSOLVER_STATUS_INTERNAL_ERROR");
  EXPECT_EQ(First("internal error"), "(nothing)");  // the words alone name no library
  Analysis nvml = Analyze(M(), "Failed to initialize NVML: Unknown Error", AnalysisMode::kPaste);
  ASSERT_FALSE(nvml.hits.empty());
  ASSERT_NE(nvml.hits.front().finding.status, nullptr);
  EXPECT_EQ(nvml.hits.front().finding.status->name, "NVML_ERROR_UNKNOWN");
  Analysis dropped = Analyze(M(), "ABORT: CUDA NVML library initialization failed: NVML_DRIVER_NOT_LOADED", AnalysisMode::kPaste);
  ASSERT_FALSE(dropped.hits.empty());
  ASSERT_NE(dropped.hits.front().finding.status, nullptr);
  EXPECT_EQ(dropped.hits.front().finding.status->name, "NVML_ERROR_DRIVER_NOT_LOADED");
  Analysis xid = Analyze(M(), "kernel: NVRM: Xid (PCI:...): 79, GPU has fallen off the bus.", AnalysisMode::kPaste);
  ASSERT_FALSE(xid.hits.empty());
  ASSERT_TRUE(xid.hits.front().finding.xid.has_value());
  EXPECT_EQ(xid.hits.front().finding.xid->number, 79);
}

TEST(ErrorMatcher, NameNumberAndDriverNameLandOnTheSameEntry) {
  for (const char* q : {"700", "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaerrorillegaladdress",
                        "error 700", "CUDA error 700 at kernel.cu:12", "RuntimeError: CUDA error: an illegal memory access was encountered"}) {
    EXPECT_EQ(First(q), "illegal_memory_access") << q;
  }
  EXPECT_EQ(First("error 2"), "cuda_out_of_memory");
  EXPECT_EQ(First("CUDA failure 2: out of memory ; GPU=0"), "cuda_out_of_memory");
}

TEST(ErrorMatcher, AnAmbiguousNumberListsEveryReadingRankedByTheWordsAroundIt) {
  auto readings = M().Lookup("2");
  ASSERT_GE(readings.size(), 5u);
  EXPECT_EQ(readings[0].key, "cuda_out_of_memory");
  bool nccl = false, nvml = false;
  for (const auto& r : readings) {
    nccl |= r.status != nullptr && r.status->name == "ncclSystemError";
    nvml |= r.status != nullptr && r.status->name == "NVML_ERROR_INVALID_ARGUMENT";
  }
  EXPECT_TRUE(nccl);
  EXPECT_TRUE(nvml);
  EXPECT_EQ(M().Lookup("nccl error 2").front().status->name, "ncclSystemError");
  EXPECT_EQ(M().Lookup("cublas status 13").front().status->name, "CUBLAS_STATUS_EXECUTION_FAILED");
  // No current runtime status is 79; the Xid reading comes before the pre-10.1 numbering.
  EXPECT_EQ(M().Lookup("79").front().key, "xid_79");
}

TEST(ErrorMatcher, OldNumbersAreReadInTheOldNumberingWhenTheMessageSaysSo) {
  EXPECT_EQ(First("THCudaCheck FAIL file=THCStorage.cu line=58 error=59 : device-side assert triggered"), "device_side_assert");
  EXPECT_EQ(First("RuntimeError: cuda runtime error (4) : unspecified launch failure at THCTensorCopy.cu:85"), "launch_failure");
  // 10 is not a current runtime number: only the old numbering reads it (invalid device).
  auto finding = M().MatchRecord("RuntimeError: cuda runtime error (10) at Module.cpp:88");
  ASSERT_EQ(finding.size(), 1u);
  EXPECT_EQ(finding[0].key, "invalid_device_ordinal");
  EXPECT_EQ(finding[0].status->api, kApiCudaRuntimeLegacy);
}

TEST(ErrorMatcher, ShortMessagesCountOnlyBesideTheirApi) {
  EXPECT_TRUE(M().MatchRecord("cp: cannot stat 'x': invalid argument").empty());
  // The kernel's OOM killer is host memory: recognised, and not as CUDA's "out of memory".
  auto killer = M().MatchRecord("Out of memory: Killed process 1234 (python3)");
  ASSERT_EQ(killer.size(), 1u);
  EXPECT_EQ(killer[0].key, "linux_oom_killer");
  EXPECT_FALSE(killer[0].entry->gpu);
  EXPECT_EQ(First("ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: invalid argument"), "invalid_value");
  // The number beside the message picks the API: "Cuda failure 1" is CUDA's invalid argument
  // even on an NCCL line.
  EXPECT_EQ(First("node1:12:13 [0] include/alloc.h:99 NCCL WARN Cuda failure 1 'invalid argument'"), "invalid_value");
  EXPECT_EQ(First("NCCL WARN something: invalid usage (run with NCCL_DEBUG=WARN for details)"), "nccl_error:ncclInvalidUsage");
}

TEST(ErrorMatcher, XidLinesInEveryShapeAndOnlyTheXidNumberCounts) {
  for (const char* line : {"NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
                           "NVRM: Xid (0000:01:00): 79, GPU has fallen off the bus", "NVRM: Xid (0003:00): 79, Channel 00000001",
                           "Xid 79", "XID: 79", "XidCriticalError: Xid=79 on Device=GPU-1234"}) {
    EXPECT_EQ(First(line), "xid_79") << line;
  }
  Analysis a = Analyze(M(), "NVRM: Xid (PCI:0000:13:00): 79, pid=1313, name=python3.10, GPU has fallen off the bus.", AnalysisMode::kLog);
  ASSERT_FALSE(a.hits.empty());
  const Finding& f = a.hits[0].finding;
  EXPECT_EQ(f.key, "xid_79");  // the notice yields to the Xid that carries it
  ASSERT_TRUE(f.xid.has_value());
  EXPECT_EQ(f.xid->pci, "0000:13:00");
  EXPECT_EQ(f.xid->pid, "1313");
  EXPECT_EQ(f.xid->process, "python3.10");
  EXPECT_EQ(First("nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 20034, Fatal, Link 20 LTSSM Fault Up"), "sxid:20034");
}

TEST(ErrorMatcher, AnXidTheCatalogueLacksIsStillAnXid) {
  auto f = M().MatchRecord("NVRM: Xid (PCI:0000:3b:00): 185, pid=1, name=x, something new");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "xid:185");
  EXPECT_EQ(f[0].xid_info, nullptr);
  EXPECT_EQ(f[0].severity, "warn");
}

TEST(ErrorMatcher, RootCauseFirstInAPasteMostSevereFirstInALog) {
  std::string text =
      "E cuda_blas.cc:238] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED\n"
      "E cuda_driver.cc:828] failed to allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n";
  Analysis paste = Analyze(M(), text, AnalysisMode::kPaste);
  ASSERT_EQ(paste.hits.size(), 2u);
  EXPECT_EQ(paste.hits[0].finding.key, "cuda_out_of_memory");  // cuBLAS yields to its cause
  std::string log =
      "[  10.0] NVRM: Xid (PCI:0000:0a:00): 62, pid='<unknown>', name=<unknown>, 2023b230\n"
      "[  11.0] NVRM: Xid (PCI:0000:0a:00): 45, pid='<unknown>', name=<unknown>, Ch 00000008\n"
      "[  12.0] NVRM: Xid (PCI:0000:0a:00): 45, pid='<unknown>', name=<unknown>, Ch 00000009\n"
      "[  13.0] NVRM: Xid (PCI:0000:0b:00): 94, pid=7, name=python3, Contained: SM (0x1). RST: No, D-RST: No\n";
  Analysis a = Analyze(M(), log, AnalysisMode::kLog);
  ASSERT_EQ(a.hits.size(), 3u);
  EXPECT_EQ(a.hits[0].finding.key, "xid_62");
  EXPECT_EQ(a.hits.back().finding.key, "xid_45");  // follows another Xid: always last
  EXPECT_EQ(a.hits.back().occurrences, 2);
  EXPECT_EQ(a.hits[0].first_time, "10.0");
}

TEST(ErrorMatcher, EachKeyOncePerRecordAndRepeatsAreCounted) {
  Analysis a = Analyze(M(), "x\nNVRM: Xid (PCI:0000:9b:00): 119, pid=1, name=a, t\nNVRM: Xid (PCI:0000:9c:00): 119, pid=2, name=b, t\n",
                       AnalysisMode::kLog);
  ASSERT_EQ(a.hits.size(), 1u);
  EXPECT_EQ(a.hits[0].occurrences, 2);
  EXPECT_EQ(a.hits[0].first_line, 2);
  EXPECT_EQ(a.hits[0].last_line, 3);
  EXPECT_EQ(a.hits[0].gpus, (std::vector<std::string>{"0000:9b:00", "0000:9c:00"}));
  EXPECT_EQ(a.hits[0].processes, (std::vector<std::string>{"a (pid 1)", "b (pid 2)"}));
}

// A status message retyped with a slip after "CUDA error:" is the one message within two edits;
// a different message, or a slip that two messages are equally near, is not guessed.
TEST(ErrorMatcher, ARetypedStatusMessageIsReadWhenOnlyOneMessageIsThatNear) {
  EXPECT_EQ(First("RuntimeError: CUDA error: invalid device oridinal"), "invalid_device_ordinal");
  EXPECT_EQ(First("CUDA error: an ilegal memory access was encountered"), "illegal_memory_access");
  EXPECT_EQ(First("CUDA error: invalid rgument"), "invalid_value");  // one slip in 15 letters
  EXPECT_EQ(First("CUDA error: the weather is lovely today"), "(nothing)");
  EXPECT_EQ(First("CUDA error: invalid device handled"), "(nothing)") << "no runtime message is within two edits of it";
}

// After "CUDA error:", a message only a library prints is that library's status (PyTorch's cuSPARSE
// check); a message two runtime statuses share is read as the lower one, whose entry answers for
// both; a device file's permission is the GPU's, any other path's is not.
TEST(ErrorMatcher, MessagesAreReadByWhoCanPrintThem) {
  Analysis sparse = Analyze(M(), "RuntimeError: CUDA error: insufficient resources when calling `cusparseSpMM(handle)`", AnalysisMode::kPaste);
  ASSERT_FALSE(sparse.hits.empty());
  ASSERT_NE(sparse.hits.front().finding.status, nullptr);
  EXPECT_EQ(sparse.hits.front().finding.status->name, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES");
  Analysis image = Analyze(M(), "RuntimeError: CUDA error: device kernel image is invalid", AnalysisMode::kPaste);
  ASSERT_FALSE(image.hits.empty());
  ASSERT_NE(image.hits.front().finding.status, nullptr);
  EXPECT_EQ(image.hits.front().finding.status->name, "cudaErrorInvalidKernelImage");
  EXPECT_EQ(First("RuntimeError: CUDA error: device kernel image is invalid"), "invalid_kernel_image");
  EXPECT_EQ(First("open /dev/nvidia-uvm: [Errno 13] Permission denied"), "gpu_device_permission_denied");
  EXPECT_EQ(First("PermissionError: [Errno 13] Permission denied: '/srv/cache/models'"), "file_permission_denied");
}

TEST(ErrorMatcher, NothingKnownIsNothing) {
  Analysis a = Analyze(M(), "everything is fine\nreally\n", AnalysisMode::kPaste);
  EXPECT_TRUE(a.hits.empty());
  EXPECT_TRUE(a.readings.empty());
  EXPECT_TRUE(M().Lookup("hello").empty());
}

// Logs are untrusted: lines far longer than any real one, invalid UTF-8 and runs that make
// backtracking engines recurse once per character are matched (or not) without a crash.
TEST(ErrorMatcher, HostileLinesNeitherCrashNorHang) {
  std::string spaces = "NVRM: Xid" + std::string(200000, ' ') + "79";
  EXPECT_TRUE(Analyze(M(), spaces, AnalysisMode::kLog).hits.empty());  // the number lies beyond the per-line limit
  std::mt19937 rng(7);
  std::string bytes(1 << 20, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng() & 0xFF);
  (void)Analyze(M(), bytes, AnalysisMode::kLog);
  (void)Analyze(M(), bytes.substr(0, 4096), AnalysisMode::kPaste);
  std::string invalid = "RuntimeError: CUDA error: \xff\xfe an illegal memory access was encountered \xc3\x28";
  EXPECT_EQ(First(invalid), "illegal_memory_access");
  Analysis a = Analyze(M(), spaces + "\nNVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n", AnalysisMode::kLog);
  ASSERT_FALSE(a.hits.empty());
  EXPECT_EQ(a.hits[0].finding.key, "xid_79");
  EXPECT_EQ(a.hits[0].first_line, 2);
}

}  // namespace
}  // namespace gpuprobe::doctor

namespace gpuprobe::doctor {
namespace {

// A big log is scanned in stretches on several cores: the hits, counts and line numbers must
// be those of one scan from start to end (a paste is always scanned in one piece).
TEST(ErrorMatcher, ABigLogScannedInParallelGivesTheSameHits) {
  std::string block;
  for (int i = 0; i < 40; ++i) {
    block += "[  " + std::to_string(100 + i) + ".000001] eth0: link up\n";
    block += "[  " + std::to_string(100 + i) + ".000002] NVRM: The NVIDIA GPU 0000:3b:00.0\n"
             "               NVRM: (PCI ID: 10de:2330) installed in this system has\n"
             "               NVRM: fallen off the bus and is not responding to commands.\n";
    block += "[  " + std::to_string(100 + i) + ".000003] NVRM: Xid (PCI:0000:0" + std::to_string(i % 8) +
             ":00): 31, pid=" + std::to_string(i) + ", name=python3, MMU Fault\n";
    block += "app: RuntimeError: CUDA error: misaligned address #" + std::to_string(i) + "\n";
  }
  std::string log;
  while (log.size() < (9u << 20)) log += block;
  Analysis parallel = Analyze(M(), log, AnalysisMode::kLog);
  Analysis single = Analyze(M(), log, AnalysisMode::kPaste);
  ASSERT_EQ(parallel.hits.size(), single.hits.size());
  EXPECT_EQ(parallel.lines, single.lines);
  for (const Hit& p : parallel.hits) {
    auto s = std::find_if(single.hits.begin(), single.hits.end(), [&](const Hit& h) { return h.finding.key == p.finding.key; });
    ASSERT_NE(s, single.hits.end()) << p.finding.key;
    EXPECT_EQ(p.occurrences, s->occurrences) << p.finding.key;
    EXPECT_EQ(p.first_line, s->first_line) << p.finding.key;
    EXPECT_EQ(p.last_line, s->last_line) << p.finding.key;
    EXPECT_EQ(p.gpus, s->gpus) << p.finding.key;
  }
}

// A log of nothing but kernel lines is still read on every core: an Xid line always begins a
// record, and even a hostile run of continuation lines is cut after the longest record.
TEST(ErrorMatcher, ALogOfOnlyKernelLinesIsStillSplit) {
  std::string xids, notices;
  for (int i = 0; i < 4000; ++i) {
    xids += "kernel: NVRM: Xid (PCI:0000:0" + std::to_string(i % 8) + ":00): 13, pid=" + std::to_string(i) + ", Ch 0\n";
    notices += "NVRM: continued notice without an end " + std::to_string(i) + "\n";
  }
  for (const std::string& log : {xids, notices}) {
    auto parts = SplitLog(log, 2);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].size() + parts[1].size(), log.size());
    EXPECT_EQ(parts[0].back(), '\n');
  }
  // A notice printed over several lines stays in one stretch, wherever the middle falls.
  std::string notice = "NVRM: The NVIDIA GPU 0000:3b:00.0\nNVRM: (PCI ID: 10de:2330) installed in this system has\n"
                       "NVRM: fallen off the bus and is not responding to commands.\n";
  std::string log;
  for (int i = 0; i < 300; ++i) log += notice;
  for (unsigned n : {2u, 3u, 7u}) {
    for (std::string_view part : SplitLog(log, n)) EXPECT_EQ(part.substr(0, 24), "NVRM: The NVIDIA GPU 000") << n;
  }
}

// Xid lines are read in full: the device, the number, the process and the cause.
TEST(ErrorMatcher, AnXidLineGivesItsDeviceNumberProcessAndCause) {
  auto e = ParseXidLine("NVRM: Xid (PCI:0000:3b:00): 154, pid=77, name=vllm worker, GPU recovery action changed. Caused by previous Xid: 79");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->number, 154);
  EXPECT_EQ(e->pci, "0000:3b:00");
  EXPECT_EQ(e->pid, "77");
  EXPECT_EQ(e->process, "vllm worker");
  ASSERT_TRUE(e->caused_by.has_value());
  EXPECT_EQ(*e->caused_by, 79);
  auto bare = ParseXidLine("XID: 48");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->number, 48);
  EXPECT_TRUE(bare->pid.empty());
  EXPECT_FALSE(bare->caused_by.has_value());
  EXPECT_FALSE(ParseXidLine("no event here, caused by nothing").has_value());
}

}  // namespace
}  // namespace gpuprobe::doctor

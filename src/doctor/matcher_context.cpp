#include "doctor/matcher_context.h"

#include <cctype>
#include <map>

#include "core/strings.h"
#include "doctor/status_table.h"

namespace gpuprobe::doctor::internal {

RE2::Options CaseInsensitive() {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  options.set_max_mem(kMaxRe2Memory);
  return options;
}

namespace {

// The words that place a number or a short message in an API. Library names win over the
// runtime's, which any CUDA program prints.
const RE2* ContextOf(std::string_view api) {
  static const std::map<std::string, RE2, std::less<>> kContexts = [] {
    std::map<std::string, RE2, std::less<>> m;
    auto add = [&m](const char* name, const char* re) { m.emplace(std::piecewise_construct, std::forward_as_tuple(name), std::forward_as_tuple(re)); };
    add("nccl", R"((?i)\bnccl)");
    add("cublas", R"((?i)cublas)");
    add("cufft", R"((?i)cufft)");
    add("cusolver", R"((?i)cusolver)");
    add("cusparse", R"((?i)cusparse)");
    add("nvrtc", R"((?i)nvrtc)");
    add("cudnn", R"((?i)cudnn)");
    add("nvml", R"((?i)\bnvml|nvidia-smi)");
    add("dcgm", R"((?i)\bdcgm|nv-hostengine|\bnvvs\b)");
    add("curand", R"((?i)curand)");
    add("nvjitlink", R"((?i)nvjitlink)");
    add("nvvm", R"((?i)\bnvvm|libnvvm)");
    add("tensorrt", R"((?i)\[TRT\]|tensorrt|nvinfer|IBuilder|trtexec|myelin)");
    add("xid", R"((?i)\bs?xid\b|\bnvrm\b)");
    add(kApiCudaDriver, R"(\bcu[A-Z][A-Za-z]+\b|(?i:\bcuresult\b|\bdriver api\b|cuda_error_))");
    add(kApiCudaRuntime, R"((?i)cuda|\.cu\b|\bgpu|ggml|thcudacheck)");
    return m;
  }();
  if (api == kApiCudaRuntimeLegacy) api = kApiCudaRuntime;
  auto it = kContexts.find(api);
  return it == kContexts.end() ? nullptr : &it->second;
}

}  // namespace

bool HasContext(std::string_view text, std::string_view api) {
  const RE2* re = ContextOf(api);
  return re != nullptr && RE2::PartialMatch(text, *re);
}

bool IsCudaApi(std::string_view api) {
  return api == kApiCudaRuntime || api == kApiCudaDriver || api == kApiCudaRuntimeLegacy;
}

// A message is matched as printed, without the hint some libraries append.
std::string NormalizeMessage(std::string message) {
  // NCCL appends a hint ("(run with NCCL_DEBUG=INFO ...)", "- please report ..."), and older
  // releases printed the message without it.
  for (const char* tail : {" (run with", " - "}) {
    size_t hint = message.find(tail);
    if (hint != std::string::npos) message.resize(hint);
  }
  while (!message.empty() && (message.back() == '.' || message.back() == ' ')) message.pop_back();
  return message;
}

int WordCount(std::string_view text) {
  int words = 0;
  bool in_word = false;
  for (char c : text) {
    bool letter = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '/';
    if (letter && !in_word) ++words;
    in_word = letter;
  }
  return words;
}



// Numbers in a position that holds a status, as frameworks and tools print them.
const PositionSpec kPositions[] = {
    {R"(\bcuda runtime error\s*\(\s*(\d{1,5})\s*\))", "cuda", false},                  // PyTorch/THC, Torch7
    {R"(\bcuda (?:error|failure)\s*[#(]?\s*(\d{1,5})\b)", "cuda", false},               // llama.cpp, ORT, CNTK, NCCL WARN
    {R"(\bcuda (?:error|failure)\s*:?\s*error code\s*(\d{1,5})\b)", "cuda", false},    // "CUDA error: error code 34" (miners, Go wrappers)
    {R"(\bcuda failed with error\s+(\d{1,5})\b)", "cuda", false},                       // spconv/cumm
    {R"(\bcudaError\s*[=:]?\s*(\d{1,5})\b)", "cuda", false},                            // "cudaError 30 (unknown error)"
    {R"(\bcuda error in \w+:\s*(\d{1,5})\b)", "cuda", false},                           // TensorRT
    {R"(\bTHCudaCheck FAIL\b.*\berror=(\d{1,5})\b)", "cuda", true},                      // PyTorch <= 0.4
    {R"(==\s*cudaSuccess\s*\(\s*(\d{1,5}) vs\. 0\s*\))", "cuda", false},                 // glog CHECK_EQ (Caffe, MXNet)
    {R"(\bcuda\w*(?:\(\))?\s+returned\s+(?:error\s+)?(\d{1,5})\b)", "cuda", false},    // CUDA samples
    {R"(\bcode=(\d{1,5})\(cuda)", "cuda", false},                                       // helper_cuda.h checkCudaErrors
    {R"(\bruntime error\s*\((\d{1,5})\))", "cuda", false},                              // "Runtime Error(801)"
    {R"((?-i:\bcu[A-Z][A-Za-z]*)(?:\(\))?\s+returned\s+(\d{1,5})\b)", "cuda_driver", false},  // "cuInit() returned 100"
    {R"(\bCUresult\s*[=:]?\s*(\d{1,5})\b)", "cuda_driver", false},
    {R"(\bcudart init failure:\s*(\d{1,4})\b)", "cuda", false},                         // Ollama's runtime wrapper: "cudart init failure: 100"
    {R"(\b(?:cuda driver library|nvcuda)\b[^\n"]{0,60}?\s(\d{1,4})\b)", "cuda_driver", false},  // Ollama's driver wrapper: "failed to get device context 801"
    {R"(\bcublas (?:failure|error|status)\s*[#:(]?\s*(\d{1,3})\b)", "cublas", false},   // ORT, CNTK
    {R"(\((?:batch: \d+, )?m: \d+, n: \d+, k: \d+, error: (\d{1,3})\))", "cublas", false},  // a GEMM's shape and status (DeepSpeed)
    {R"(\bnccl (?:error|failure)\s*[#:(]?\s*(\d{1,2})\b)", "nccl", false},               // "NCCL Error 1: ..."
    {R"(\bNCCL INFO\b.*->\s*(\d{1,2})\b)", "nccl", false},                               // NCCL's return-code trace
    {R"(\bnccl\b.*\bretcode (\d{1,2})\b)", "nccl", false},
    {R"(\bncclResult\w*\s*[=:]?\s*(\d{1,2})\b)", "nccl", false},
    {R"(\[TRT\].*\bError Code (\d{1,2}):)", "tensorrt", false},                       // TensorRT's logger: nvinfer1::ErrorCode
};

const size_t kPositionCount = sizeof(kPositions) / sizeof(kPositions[0]);

}  // namespace gpuprobe::doctor::internal

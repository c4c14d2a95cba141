#include "model/dtype.h"

#include <cctype>

namespace gpuprobe::model {

double BytesPerElement(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return 4;
    case DType::kFp16: return 2;
    case DType::kBf16: return 2;
    case DType::kFp8: return 1;
    case DType::kInt8: return 1;
    case DType::kInt4: return 4.25 / 8;   // 4 bits + 16-bit scale per group of 128
    case DType::kNf4: return 4.127 / 8;   // NF4 + double quantisation (Dettmers et al. 2023)
  }
  return 2;
}

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return "fp32";
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
    case DType::kFp8: return "fp8";
    case DType::kInt8: return "int8";
    case DType::kInt4: return "int4";
    case DType::kNf4: return "nf4";
  }
  return "?";
}

core::Result<DType> ParseDType(const std::string& raw) {
  std::string name;
  for (char c : raw) name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (name == "fp32" || name == "float32" || name == "float") return DType::kFp32;
  if (name == "fp16" || name == "float16" || name == "half") return DType::kFp16;
  if (name == "bf16" || name == "bfloat16") return DType::kBf16;
  if (name == "fp8" || name == "float8" || name == "fp8_e4m3" || name == "fp8_e5m2") return DType::kFp8;
  if (name == "int8") return DType::kInt8;
  if (name == "int4") return DType::kInt4;
  if (name == "nf4") return DType::kNf4;
  return core::Status::InvalidArgument("unknown data type '" + raw +
                                       "' (use fp32, fp16, bf16, fp8, int8, int4 or nf4)")
                                           .WithKeys("error.dtype.unknown", {{"value", raw}});
}

bool IsFloat16Or32(DType dtype) {
  return dtype == DType::kFp32 || dtype == DType::kFp16 || dtype == DType::kBf16;
}

}  // namespace gpuprobe::model

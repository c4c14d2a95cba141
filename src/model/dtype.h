// Storage data types and their bytes per element (docs/plan.md, 'Bytes per element').
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "core/status.h"

namespace gpuprobe::model {

enum class DType { kFp32, kFp16, kBf16, kFp8, kInt8, kInt4, kNf4 };

/// Bytes per element. int4 is GPTQ/AWQ-style 4-bit with one fp16 scale per 128 weights
/// (4.25 bits); nf4 is bitsandbytes NF4 with double quantisation (4.127 bits, QLoRA paper).
double BytesPerElement(DType dtype);
/// "fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4".
std::string DTypeName(DType dtype);
/// Parses a name (case-insensitive; "float16", "bfloat16", "float32" accepted).
/// InvalidArgument listing the accepted names otherwise.
core::Result<DType> ParseDType(const std::string& name);
/// True for the 16/32-bit floating types that can hold trainable weights.
bool IsFloat16Or32(DType dtype);

}  // namespace gpuprobe::model

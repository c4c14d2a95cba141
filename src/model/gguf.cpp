#include "model/gguf.h"

#include <cstring>

#include <fmt/format.h>

#include "core/input_limits.h"

#include "model/config_reader.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;

GgmlTypeInfo GgmlType(std::uint32_t type) {
  // ggml/src/ggml.c type_traits[]: {blck_size, type_size}; the block structs are in
  // ggml/src/ggml-common.h (e.g. block_q4_K = 2 halves + 12 scale bytes + 128 = 144 B / 256).
  static const GgmlTypeInfo kTypes[] = {
      {"F32", 1, 4},        {"F16", 1, 2},        {"Q4_0", 32, 18},     {"Q4_1", 32, 20},
      {"?", 0, 0},          {"?", 0, 0},          {"Q5_0", 32, 22},     {"Q5_1", 32, 24},
      {"Q8_0", 32, 34},     {"Q8_1", 32, 36},     {"Q2_K", 256, 84},    {"Q3_K", 256, 110},
      {"Q4_K", 256, 144},   {"Q5_K", 256, 176},   {"Q6_K", 256, 210},   {"Q8_K", 256, 292},
      {"IQ2_XXS", 256, 66}, {"IQ2_XS", 256, 74},  {"IQ3_XXS", 256, 98}, {"IQ1_S", 256, 50},
      {"IQ4_NL", 32, 18},   {"IQ3_S", 256, 110},  {"IQ2_S", 256, 82},   {"IQ4_XS", 256, 136},
      {"I8", 1, 1},         {"I16", 1, 2},        {"I32", 1, 4},        {"I64", 1, 8},
      {"F64", 1, 8},        {"IQ1_M", 256, 56},   {"BF16", 1, 2},       {"?", 0, 0},
      {"?", 0, 0},          {"?", 0, 0},          {"TQ1_0", 256, 54},   {"TQ2_0", 256, 66},
      {"?", 0, 0},          {"?", 0, 0},          {"?", 0, 0},          {"MXFP4", 32, 17},
  };
  if (type >= sizeof(kTypes) / sizeof(kTypes[0])) return {"?", 0, 0};
  return kTypes[type];
}

namespace {

constexpr std::uint64_t kMaxCount = 1000000;       // metadata pairs
constexpr std::uint64_t kMaxStringBytes = 1 << 24; // one string (a merges entry is ~20 B)
constexpr std::uint64_t kMaxArrayItems = 1ull << 26;

// Bytes of a fixed-size GGUF value type; 0 for string (8), array (9) and unknown types.
std::uint64_t ScalarBytes(std::uint32_t type) {
  switch (type) {
    case 0: case 1: case 7: return 1;
    case 2: case 3: return 2;
    case 4: case 5: case 6: return 4;
    case 10: case 11: case 12: return 8;
    default: return 0;
  }
}

class Cursor {
 public:
  Cursor(std::string_view bytes, std::uint64_t file_size, const std::string& label)
      : bytes_(bytes), file_size_(file_size), label_(label) {}

  std::uint64_t offset() const { return offset_; }
  void set_context(std::string context) { context_ = std::move(context); }

  // When the prefix ends inside the file: an error that stops the parse, with the bytes
  // needed kept in bytes_needed() (the caller reads more); InvalidArgument when the file
  // itself ends.
  Status Need(std::uint64_t n) const {
    if (offset_ + n <= bytes_.size()) return Status::Ok();
    if (offset_ + n > file_size_ || bytes_.size() >= file_size_) {
      return Fail(fmt::format("needs {} bytes at offset {}, past the end of the {}-byte file", n, offset_, file_size_));
    }
    bytes_needed_ = offset_ + n;
    return Fail(fmt::format("needs {} bytes at offset {}, past the {} bytes read", n, offset_, bytes_.size()));
  }
  /// Set when the parse stopped at the end of the prefix: the bytes of the file needed.
  std::uint64_t bytes_needed() const { return bytes_needed_; }
  Status Fail(const std::string& what) const {
    // The frame is keyed; the defect (`what`) is a byte-level detail of the file, kept as written.
    return Status::InvalidArgument(fmt::format("{}: not a valid GGUF file: {}{}", label_, what,
                                               context_.empty() ? "" : " (after " + context_ + ")"))
        .WithKeys("error.gguf.invalid", {{"file", label_},
                                         {"what", what},
                                         {"after_key", context_.empty() ? "gguf.after.none" : "gguf.after.some"},
                                         {"context", context_}});
  }
  template <typename T>
  Result<T> Read() {
    GPUPROBE_RETURN_IF_ERROR(Need(sizeof(T)));
    T value;
    std::memcpy(&value, bytes_.data() + offset_, sizeof(T));  // GGUF is little-endian, as are our hosts
    offset_ += sizeof(T);
    return value;
  }
  Result<std::string> String(std::uint64_t max_kept) {
    std::uint64_t length = 0;
    GPUPROBE_ASSIGN_OR_RETURN(length, Read<std::uint64_t>());
    if (length > kMaxStringBytes) return Fail(fmt::format("string of {} bytes at offset {}", length, offset_ - 8));
    GPUPROBE_RETURN_IF_ERROR(Need(length));
    std::string out(bytes_.substr(offset_, std::min(length, max_kept)));
    offset_ += length;
    return out;
  }
  Status Skip(std::uint64_t n) {
    GPUPROBE_RETURN_IF_ERROR(Need(n));
    offset_ += n;
    return Status::Ok();
  }

 private:
  std::string_view bytes_;
  std::uint64_t file_size_;
  const std::string& label_;
  std::uint64_t offset_ = 0;
  mutable std::uint64_t bytes_needed_ = 0;
  std::string context_;
};

Result<double> ReadScalar(Cursor& c, std::uint32_t type) {
  switch (type) {
    case 0: { std::uint8_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::uint8_t>()); return static_cast<double>(v); }
    case 1: { std::int8_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::int8_t>()); return static_cast<double>(v); }
    case 2: { std::uint16_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::uint16_t>()); return static_cast<double>(v); }
    case 3: { std::int16_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::int16_t>()); return static_cast<double>(v); }
    case 4: { std::uint32_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::uint32_t>()); return static_cast<double>(v); }
    case 5: { std::int32_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::int32_t>()); return static_cast<double>(v); }
    case 6: { float v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<float>()); return static_cast<double>(v); }
    case 7: { std::uint8_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::uint8_t>()); return v != 0 ? 1.0 : 0.0; }
    case 10: { std::uint64_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::uint64_t>()); return static_cast<double>(v); }
    case 11: { std::int64_t v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<std::int64_t>()); return static_cast<double>(v); }
    case 12: { double v = 0; GPUPROBE_ASSIGN_OR_RETURN(v, c.Read<double>()); return v; }
    default: return c.Fail(fmt::format("unknown value type {} at offset {}", type, c.offset() - 4));
  }
}

Result<GgufValue> ReadValue(Cursor& c, std::uint32_t type, int depth) {
  GgufValue value;
  value.type = type;
  if (type == 8) {
    GPUPROBE_ASSIGN_OR_RETURN(value.text, c.String(4096));
    return value;
  }
  if (type == 9) {
    if (depth > 2) return c.Fail("arrays nested more than twice");
    value.is_array = true;
    GPUPROBE_ASSIGN_OR_RETURN(value.array_type, c.Read<std::uint32_t>());
    GPUPROBE_ASSIGN_OR_RETURN(value.array_count, c.Read<std::uint64_t>());
    if (value.array_count > kMaxArrayItems) return c.Fail(fmt::format("array of {} items", value.array_count));
    std::uint64_t size = ScalarBytes(value.array_type);
    if (size > 0) {
      GPUPROBE_RETURN_IF_ERROR(c.Skip(size * value.array_count));
      return value;
    }
    if (value.array_type != 8 && value.array_type != 9) {
      return c.Fail(fmt::format("array of unknown value type {}", value.array_type));
    }
    for (std::uint64_t i = 0; i < value.array_count; ++i) {
      auto item = ReadValue(c, value.array_type, depth + 1);
      if (!item.ok()) return item.status();
    }
    return value;
  }
  GPUPROBE_ASSIGN_OR_RETURN(value.number, ReadScalar(c, type));
  return value;
}

Result<GgufFile> ParseWith(Cursor& c, std::uint64_t file_size, const std::string& label) {
  GgufFile file;
  std::uint32_t magic = 0;
  GPUPROBE_ASSIGN_OR_RETURN(magic, c.Read<std::uint32_t>());
  if (magic != 0x46554747u) return c.Fail("the file does not start with 'GGUF'");
  GPUPROBE_ASSIGN_OR_RETURN(file.version, c.Read<std::uint32_t>());
  if (file.version < 2 || file.version > 3) {
    return c.Fail(fmt::format("version {} (this reader knows GGUF versions 2 and 3)", file.version));
  }
  std::uint64_t tensor_count = 0, kv_count = 0;
  GPUPROBE_ASSIGN_OR_RETURN(tensor_count, c.Read<std::uint64_t>());
  GPUPROBE_ASSIGN_OR_RETURN(kv_count, c.Read<std::uint64_t>());
  if (tensor_count > core::limits::kTensorsPerCheckpoint) {
    return core::limits::OverLimit(label, "tensors", tensor_count, core::limits::kTensorsPerCheckpoint);
  }
  if (kv_count > kMaxCount) return c.Fail(fmt::format("metadata_kv_count {} is absurd", kv_count));
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    std::string key;
    GPUPROBE_ASSIGN_OR_RETURN(key, c.String(1024));
    std::uint32_t type = 0;
    GPUPROBE_ASSIGN_OR_RETURN(type, c.Read<std::uint32_t>());
    GgufValue value;
    GPUPROBE_ASSIGN_OR_RETURN(value, ReadValue(c, type, 0));
    c.set_context(fmt::format("key '{}'", key));
    file.metadata[key] = std::move(value);
  }
  auto alignment = file.metadata.find("general.alignment");
  if (alignment != file.metadata.end()) {
    double a = alignment->second.number;
    if (!(a >= 1 && a <= 65536) || (static_cast<std::uint64_t>(a) & (static_cast<std::uint64_t>(a) - 1)) != 0) {
      return c.Fail(fmt::format("general.alignment {} is not a power of two", a));
    }
    file.alignment = static_cast<std::uint64_t>(a);
  }
  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensor t;
    GPUPROBE_ASSIGN_OR_RETURN(t.name, c.String(1024));
    std::uint32_t dims = 0;
    GPUPROBE_ASSIGN_OR_RETURN(dims, c.Read<std::uint32_t>());
    if (dims == 0 || dims > 4) return c.Fail(fmt::format("tensor '{}' has {} dimensions (ggml allows 1 to 4)", t.name, dims));
    t.elements = 1;
    for (std::uint32_t d = 0; d < dims; ++d) {
      std::uint64_t n = 0;
      GPUPROBE_ASSIGN_OR_RETURN(n, c.Read<std::uint64_t>());
      if (n > (1ull << 40)) return c.Fail(fmt::format("tensor '{}' has dimension {}", t.name, n));
      t.dims.push_back(n);
      t.elements *= static_cast<double>(n);
    }
    GPUPROBE_ASSIGN_OR_RETURN(t.type, c.Read<std::uint32_t>());
    GPUPROBE_ASSIGN_OR_RETURN(t.offset, c.Read<std::uint64_t>());
    GgmlTypeInfo info = GgmlType(t.type);
    if (info.block_size == 0) return c.Fail(fmt::format("tensor '{}' has ggml type {}, unknown or removed", t.name, t.type));
    if (t.elements > kMaxParams) return c.Fail(fmt::format("tensor '{}' has {:.3g} elements", t.name, t.elements));
    if (t.dims[0] % static_cast<std::uint64_t>(info.block_size) != 0) {
      return c.Fail(fmt::format("tensor '{}' rows of {} are not whole {} blocks of {}", t.name, t.dims[0], info.name,
                                info.block_size));
    }
    if (t.offset % file.alignment != 0) {
      return c.Fail(fmt::format("tensor '{}' offset {} is not aligned to {}", t.name, t.offset, file.alignment));
    }
    t.bytes = t.elements / info.block_size * info.type_size;
    c.set_context(fmt::format("tensor '{}'", t.name));
    file.tensors.push_back(std::move(t));
  }
  file.data_offset = (c.offset() + file.alignment - 1) / file.alignment * file.alignment;
  for (const GgufTensor& t : file.tensors) {
    if (static_cast<double>(file.data_offset) + static_cast<double>(t.offset) + t.bytes > static_cast<double>(file_size)) {
      return c.Fail(fmt::format("tensor '{}' ({:.0f} bytes at data offset {}) runs past the end of the {}-byte file",
                                t.name, t.bytes, t.offset, file_size));
    }
  }
  return file;
}

}  // namespace

Result<GgufPrefix> ParseGgufPrefix(std::string_view bytes, std::uint64_t file_size, const std::string& label) {
  Cursor c(bytes, file_size, label);
  Result<GgufFile> parsed = ParseWith(c, file_size, label);
  GgufPrefix out;
  if (parsed.ok()) {
    out.file = std::move(parsed.value());
  } else if (c.bytes_needed() > 0) {
    out.bytes_needed = c.bytes_needed();
  } else {
    return parsed.status();
  }
  return out;
}

Result<GgufFile> ParseGguf(std::string_view bytes, std::uint64_t file_size, const std::string& label) {
  Cursor c(bytes, file_size, label);
  return ParseWith(c, file_size, label);
}

}  // namespace gpuprobe::model

// The safetensors header and GGUF parsers. Safetensors headers and GGUF files are written here
// (synthetic, with the tensor shapes of real models whose counts are cited); the two real
// llama.cpp vocabulary GGUFs exercise the header and metadata path.
#include <cstring>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/fixture.h"
#include "model/gguf.h"
#include "model/gguf_shape.h"
#include "model/hf_config.h"
#include "model/safetensors_header.h"

namespace gpuprobe::model {
namespace {

using nlohmann::json;

struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
};

// The tensors of a llama-style checkpoint (Hugging Face names and [out, in] shapes).
std::vector<Tensor> LlamaTensors(std::int64_t V, std::int64_t h, std::int64_t L, std::int64_t a, std::int64_t k,
                                 std::int64_t d, std::int64_t f, bool tied) {
  std::vector<Tensor> out{{"model.embed_tokens.weight", {V, h}}, {"model.norm.weight", {h}}};
  if (!tied) out.push_back({"lm_head.weight", {V, h}});
  for (std::int64_t i = 0; i < L; ++i) {
    std::string p = "model.layers." + std::to_string(i) + ".";
    for (auto t : std::vector<Tensor>{{"self_attn.q_proj.weight", {a * d, h}}, {"self_attn.k_proj.weight", {k * d, h}},
                                      {"self_attn.v_proj.weight", {k * d, h}}, {"self_attn.o_proj.weight", {h, a * d}},
                                      {"mlp.gate_proj.weight", {f, h}}, {"mlp.up_proj.weight", {f, h}},
                                      {"mlp.down_proj.weight", {h, f}}, {"input_layernorm.weight", {h}},
                                      {"post_attention_layernorm.weight", {h}}}) {
      out.push_back({p + t.name, t.shape});
    }
  }
  return out;
}

std::pair<std::string, std::uint64_t> Header(const std::vector<Tensor>& tensors, const std::string& dtype, int bytes) {
  json header = json::object();
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    std::uint64_t n = 1;
    for (auto dim : t.shape) n *= static_cast<std::uint64_t>(dim);
    header[t.name] = {{"dtype", dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + n * bytes}}};
    offset += n * bytes;
  }
  header["__metadata__"] = {{"format", "pt"}};
  return {header.dump(), offset};
}

TEST(SafetensorsHeader, Llama31_8BShapesCountExactly) {
  // Llama-3.1-8B: 8,030,261,248 parameters (safetensors header count, tests/fixtures/configs/index.json).
  auto [text, data] = Header(LlamaTensors(128256, 4096, 32, 32, 8, 128, 14336, false), "BF16", 2);
  auto parsed = ParseSafetensorsHeader(text, data, "model.safetensors");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  TensorTotals totals;
  for (const auto& t : parsed->tensors) totals.Add(t.dtype, t.elements, static_cast<double>(t.end - t.begin));
  EXPECT_EQ(static_cast<std::int64_t>(totals.elements), 8030261248);
  EXPECT_EQ(static_cast<std::int64_t>(totals.bytes), 2 * 8030261248LL);
  EXPECT_EQ(totals.tensors, 2 + 1 + 32 * 9);
  EXPECT_EQ(parsed->metadata.at("format"), "pt");
}

TEST(SafetensorsHeader, RefusesHostileHeaders) {
  auto [good, data] = Header({{"w", {4, 4}}}, "F32", 4);
  struct Case {
    const char* name;
    std::string text;
    std::uint64_t data;
    const char* expect;
  } cases[] = {
      {"offsets past the data", good, data - 1, "outside"},
      {"unknown dtype", R"({"w": {"dtype": "F12", "shape": [1], "data_offsets": [0, 2]}})", 2, "unknown dtype"},
      {"negative dimension", R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4, "dimension"},
      {"size mismatch", R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})", 4, "need 8"},
      {"overlap", R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}, "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}})", 6, "overlap"},
      {"absurd shape", R"({"w": {"dtype": "F32", "shape": [1000000000, 1000000000], "data_offsets": [0, 4]}})", 4, "beyond"},
      {"not an object", R"([1])", 0, "not a JSON object"},
      {"string shape", R"({"w": {"dtype": "F32", "shape": "4", "data_offsets": [0, 16]}})", 16, "shape"},
      {"huge number", R"({"w": {"dtype": "F32", "shape": [1e999], "data_offsets": [0, 16]}})", 16, "out of range"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseSafetensorsHeader(c.text, c.data, "x.safetensors");
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_NE(parsed.status().message().find(c.expect), std::string::npos) << c.name << ": " << parsed.status().message();
  }
}

// A GGUF v3 writer: enough of ggml/docs/gguf.md to write metadata and tensor infos.
class GgufWriter {
 public:
  void U32(std::uint32_t v) { Raw(&v, 4); }
  void U64(std::uint64_t v) { Raw(&v, 8); }
  void Str(const std::string& s) { U64(s.size()); bytes_ += s; }
  void KvU32(const std::string& key, std::uint32_t v) { Str(key); U32(4); U32(v); }
  void KvStr(const std::string& key, const std::string& v) { Str(key); U32(8); Str(v); }
  void KvF32(const std::string& key, float v) { Str(key); U32(6); Raw(&v, 4); }
  void KvStrArray(const std::string& key, const std::vector<std::string>& items) {
    Str(key); U32(9); U32(8); U64(items.size());
    for (const auto& s : items) Str(s);
  }
  void Tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
    Str(name); U32(static_cast<std::uint32_t>(dims.size()));
    for (auto d : dims) U64(d);
    U32(type); U64(offset);
  }
  std::string bytes_;

 private:
  void Raw(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
};

struct GgufTensorSpec {
  std::string name;
  std::vector<std::uint64_t> dims;
  std::uint32_t type;
};

std::string WriteGguf(const std::vector<GgufTensorSpec>& tensors, std::uint64_t* file_size, std::uint32_t version = 3) {
  GgufWriter w;
  w.U32(0x46554747u);
  w.U32(version);
  w.U64(tensors.size());
  w.U64(9);
  w.KvStr("general.architecture", "llama");
  w.KvU32("llama.block_count", 2);
  w.KvU32("llama.embedding_length", 256);
  w.KvU32("llama.feed_forward_length", 512);
  w.KvU32("llama.attention.head_count", 4);
  w.KvU32("llama.attention.head_count_kv", 2);
  w.KvU32("llama.context_length", 4096);
  w.KvF32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.KvStrArray("tokenizer.ggml.tokens", std::vector<std::string>(1000, "tok"));
  std::uint64_t offset = 0;
  double total = 0;
  for (const auto& t : tensors) {
    w.Tensor(t.name, t.dims, t.type, offset);
    double n = 1;
    for (auto d : t.dims) n *= static_cast<double>(d);
    double bytes = n / GgmlType(t.type).block_size * GgmlType(t.type).type_size;
    offset += (static_cast<std::uint64_t>(bytes) + 31) / 32 * 32;
    total += bytes;
  }
  std::uint64_t data_start = (w.bytes_.size() + 31) / 32 * 32;
  *file_size = data_start + offset;
  return w.bytes_;
}

std::vector<GgufTensorSpec> TinyLlama() {
  // ggml dims are [in, out]; types: F32 norms, Q4_K / Q6_K / IQ4_XS / Q8_0 / BF16 weights.
  std::vector<GgufTensorSpec> t{{"token_embd.weight", {256, 1000}, 14}, {"output_norm.weight", {256}, 0},
                                {"output.weight", {256, 1000}, 8}};
  for (int i = 0; i < 2; ++i) {
    std::string p = "blk." + std::to_string(i) + ".";
    t.push_back({p + "attn_q.weight", {256, 256}, 12});
    t.push_back({p + "attn_k.weight", {256, 128}, 12});
    t.push_back({p + "attn_v.weight", {256, 128}, 14});
    t.push_back({p + "attn_output.weight", {256, 256}, 23});
    t.push_back({p + "ffn_gate.weight", {256, 512}, 12});
    t.push_back({p + "ffn_up.weight", {256, 512}, 12});
    t.push_back({p + "ffn_down.weight", {512, 256}, 30});
    t.push_back({p + "attn_norm.weight", {256}, 0});
    t.push_back({p + "ffn_norm.weight", {256}, 0});
  }
  return t;
}

TEST(Gguf, TensorInfosAreReadExactly) {
  std::uint64_t size = 0;
  std::string bytes = WriteGguf(TinyLlama(), &size);
  auto file = ParseGguf(bytes, size, "tiny.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->version, 3u);
  ASSERT_EQ(file->tensors.size(), 21u);
  double elements = 0, data = 0;
  for (const auto& t : file->tensors) {
    elements += t.elements;
    data += t.bytes;
  }
  // Elements: embedding and head 2 x 256000, norms 256 x 5, per layer 4 x 256 x (256 + 128) ... by hand:
  const double per_layer = 256 * 256 * 2 + 256 * 128 * 2 + 256 * 512 * 3 + 2 * 256;
  EXPECT_DOUBLE_EQ(elements, 2 * 256000.0 + 256 + 2 * per_layer);
  // Bytes from ggml's block sizes: Q6_K 210 B / 256, Q8_0 34 B / 32, Q4_K 144 B / 256,
  // IQ4_XS 136 B / 256, BF16 2 B, F32 4 B.
  const double layer_bytes = (65536 + 32768 + 2 * 131072) / 256.0 * 144 + 32768 / 256.0 * 210 +
                             65536 / 256.0 * 136 + 131072 * 2.0 + 2 * 256 * 4.0;
  EXPECT_DOUBLE_EQ(data, 256000 / 256.0 * 210 + 256000 / 32.0 * 34 + 256 * 4 + 2 * layer_bytes);
  EXPECT_EQ(file->metadata.at("tokenizer.ggml.tokens").array_count, 1000u);

  auto shape = ShapeFromGguf(*file, "tiny.gguf");
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_EQ(shape->family, "llama");
  EXPECT_EQ(shape->num_kv_heads, 2);
  EXPECT_EQ(shape->vocab_size, 1000);
  EXPECT_FALSE(shape->tied_embeddings) << "output.weight is present";
  EXPECT_EQ(CountParameters(*shape).total, static_cast<std::int64_t>(elements)) << "recipe and file agree";
}

TEST(Gguf, EveryGgmlTypeHasItsBlockSize) {
  // ggml.c type_traits: a few of each kind.
  EXPECT_EQ(GgmlType(2).type_size, 18);   // Q4_0
  EXPECT_EQ(GgmlType(10).type_size, 84);  // Q2_K
  EXPECT_EQ(GgmlType(13).type_size, 176); // Q5_K
  EXPECT_EQ(GgmlType(16).type_size, 66);  // IQ2_XXS
  EXPECT_EQ(GgmlType(19).type_size, 50);  // IQ1_S
  EXPECT_EQ(GgmlType(29).type_size, 56);  // IQ1_M
  EXPECT_EQ(GgmlType(34).type_size, 54);  // TQ1_0
  EXPECT_EQ(GgmlType(39).block_size, 32); // MXFP4
  EXPECT_EQ(GgmlType(4).block_size, 0);   // Q4_2, removed
  EXPECT_EQ(GgmlType(1000).block_size, 0);
}

TEST(Gguf, AShortPrefixAsksForMoreAndBadFilesAreRefused) {
  std::uint64_t size = 0;
  std::string bytes = WriteGguf(TinyLlama(), &size);
  auto partial = ParseGgufPrefix(bytes.substr(0, 100), size, "tiny.gguf");
  ASSERT_TRUE(partial.ok()) << partial.status().ToString();
  EXPECT_FALSE(partial->file.has_value());
  EXPECT_GT(partial->bytes_needed, 100u);
  auto whole = ParseGgufPrefix(bytes, size, "tiny.gguf");
  ASSERT_TRUE(whole.ok() && whole->file.has_value());
  // The plain parser takes no short prefix.
  EXPECT_EQ(ParseGguf(bytes.substr(0, 100), size, "tiny.gguf").status().code(), core::StatusCode::kInvalidArgument);

  auto bad = [&](std::string text, std::uint64_t file_size, const char* expect) {
    auto parsed = ParseGguf(text, file_size, "bad.gguf");
    ASSERT_FALSE(parsed.ok()) << expect;
    EXPECT_EQ(parsed.status().code(), core::StatusCode::kInvalidArgument) << expect;
    EXPECT_NE(parsed.status().message().find(expect), std::string::npos) << parsed.status().message();
  };
  bad("GGML" + bytes.substr(4), size, "does not start with 'GGUF'");
  std::uint64_t v1_size = 0;
  bad(WriteGguf(TinyLlama(), &v1_size, 1), v1_size, "version 1");
  bad(bytes, size - 1, "past the end");  // the last tensor's data is cut off
  std::string huge = bytes;
  std::uint64_t count = 1ull << 40;
  std::memcpy(huge.data() + 8, &count, 8);
  bad(huge, size, "tensors is more than gpuprobe reads");
  auto unknown = TinyLlama();
  unknown[0].type = 4;
  std::uint64_t unknown_size = 0;
  bad(WriteGguf(unknown, &unknown_size), unknown_size, "unknown or removed");
  auto ragged = TinyLlama();
  ragged[3].dims = {100, 256};  // Q4_K rows must be whole 256-element blocks
  std::uint64_t ragged_size = 0;
  bad(WriteGguf(ragged, &ragged_size), ragged_size, "not whole Q4_K blocks");
}

TEST(Gguf, RealVocabularyFilesParseTheHeaderAndStopAtTheirCorruption) {
  // llama.cpp's ggml-vocab-llama-spm.gguf as copied (index.json): GGUF v3, 0 tensors, 22 keys.
  // The copy at its source had its non-UTF-8 bytes replaced by U+FFFD, so the float value of
  // llama.attention.layer_norm_rms_epsilon is followed by a corrupted key length: the header
  // and the first nine keys parse, and the corruption is reported with its offset.
  for (const char* name : {"ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf"}) {
    std::string bytes = gpuprobe::testing::ReadFixture(std::string("configs/binary/") + name);
    auto file = ParseGguf(bytes, bytes.size(), name);
    ASSERT_FALSE(file.ok()) << name;
    EXPECT_EQ(file.status().code(), core::StatusCode::kInvalidArgument);
    EXPECT_NE(file.status().message().find("attention.layer_norm_rms_epsilon"), std::string::npos)
        << file.status().message();
    EXPECT_NE(file.status().message().find("offset"), std::string::npos);
    // The same bytes cut just before the corruption parse as a valid header.
    std::uint32_t version = 0;
    std::memcpy(&version, bytes.data() + 4, 4);
    EXPECT_EQ(version, 3u);
  }
}

}  // namespace
}  // namespace gpuprobe::model

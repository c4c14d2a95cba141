#include "model/safetensors_header.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "model/config_reader.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;
using nlohmann::json;

namespace {

using core::EndsWith;

}  // namespace

int SafetensorsDtypeBits(std::string_view dtype) {
  // safetensors' Dtype enum (safetensors/src/tensor.rs).
  static const std::pair<const char*, int> kTable[] = {
      {"BOOL", 8}, {"U8", 8},  {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8},
      {"I16", 16}, {"U16", 16}, {"F16", 16}, {"BF16", 16},   {"I32", 32},    {"U32", 32},
      {"F32", 32}, {"F64", 64}, {"I64", 64}, {"U64", 64},    {"F4", 4},      {"F6_E2M3", 6},
      {"F6_E3M2", 6},
  };
  for (const auto& [name, bits] : kTable) {
    if (dtype == name) return bits;
  }
  return 0;
}

void TensorTotals::Add(const std::string& dtype, double element_count, double byte_count) {
  elements += element_count;
  bytes += byte_count;
  ++tensors;
  auto& entry = by_dtype[dtype];
  entry.first += element_count;
  entry.second += byte_count;
}

bool IsStoredBuffer(std::string_view name) {
  return EndsWith(name, "rotary_emb.inv_freq") || EndsWith(name, "rotary_pos_emb.inv_freq") ||
         EndsWith(name, ".attn.bias") || EndsWith(name, ".attn.masked_bias") ||
         EndsWith(name, "attention.masked_bias") || EndsWith(name, "attention.bias");
}

Result<SafetensorsHeader> ParseSafetensorsHeader(std::string_view header_json, std::uint64_t data_bytes,
                                                 const std::string& label) {
  if (header_json.size() > kMaxSafetensorsHeaderBytes) {
    return Status::InvalidArgument(fmt::format("{}: safetensors header of {} bytes is beyond the format's limit", label,
                                               header_json.size()))
        .WithKeys("error.safetensors.header_size", {{"file", label}, {"bytes", std::to_string(header_json.size())}});
  }
  auto parsed = ParseConfigJson(header_json, label);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return Status::ParseError(fmt::format("{}: safetensors header is not a JSON object", label))
        .WithKeys("error.safetensors.not_object", {{"file", label}});
  }
  SafetensorsHeader out;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& item : parsed->items()) {
    // Named copies: C++17 lambdas cannot capture structured bindings.
    const std::string& name = item.key();
    const nlohmann::json& value = item.value();
    // `problem` names the text error.safetensors.<problem>: the tensor's defect in en and zh.
    auto bad = [&](const char* problem, const std::string& what, core::MessageArgs args = {}) {
      args.emplace_back("file", label);
      args.emplace_back("tensor", name.substr(0, 200));
      return Status::InvalidArgument(fmt::format("{}: tensor '{}' {}", label, name.substr(0, 200), what))
          .WithKeys(std::string("error.safetensors.") + problem, std::move(args));
    };
    if (name == "__metadata__") {
      if (!value.is_object()) return bad("metadata", "must be an object of strings");
      for (const auto& [key, text] : value.items()) {
        if (text.is_string()) out.metadata[key] = text.get<std::string>();
      }
      continue;
    }
    if (!value.is_object()) return bad("entry", "must be an object with dtype, shape and data_offsets");
    auto dtype = value.find("dtype");
    auto shape = value.find("shape");
    auto offsets = value.find("data_offsets");
    if (dtype == value.end() || !dtype->is_string()) return bad("dtype", "has no string 'dtype'");
    if (shape == value.end() || !shape->is_array()) return bad("shape", "has no 'shape' list");
    if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2) return bad("offsets", "has no 'data_offsets' pair");
    SafetensorsTensor t;
    t.name = name;
    t.dtype = dtype->get<std::string>();
    int bits = SafetensorsDtypeBits(t.dtype);
    if (bits == 0) {
      return bad("unknown_dtype", fmt::format("has unknown dtype '{}'", t.dtype.substr(0, 40)), {{"dtype", t.dtype.substr(0, 40)}});
    }
    if (shape->size() > 16) {
      return bad("dimensions", fmt::format("has {} dimensions", shape->size()), {{"count", std::to_string(shape->size())}});
    }
    double elements = 1;
    for (const json& dim : *shape) {
      if (!dim.is_number_integer() || dim.get<double>() < 0 || dim.get<double>() > 1e15) {
        const std::string dim_text = dim.dump().substr(0, 40);
        return bad("dimension", fmt::format("has dimension {}, not a whole number in [0, 1e15]", dim_text), {{"value", dim_text}});
      }
      t.shape.push_back(dim.get<std::int64_t>());
      elements *= dim.get<double>();
    }
    if (elements > kMaxParams) {
      return bad("elements", fmt::format("has {:.3g} elements, beyond any real model", elements), {{"count", fmt::format("{:.3g}", elements)}});
    }
    t.elements = elements;
    for (const json& o : *offsets) {
      if (!o.is_number_unsigned() && !(o.is_number_integer() && o.get<std::int64_t>() >= 0)) {
        return bad("offset_value", "has an offset that is not a non-negative whole number");
      }
    }
    t.begin = (*offsets)[0].get<std::uint64_t>();
    t.end = (*offsets)[1].get<std::uint64_t>();
    if (t.begin > t.end || t.end > data_bytes) {
      return bad("outside", fmt::format("has data_offsets [{}, {}] outside the {} data bytes of the file", t.begin, t.end, data_bytes),
                 {{"begin", std::to_string(t.begin)}, {"end", std::to_string(t.end)}, {"bytes", std::to_string(data_bytes)}});
    }
    double expected = std::ceil(elements * bits / 8.0);
    if (static_cast<double>(t.end - t.begin) != expected) {
      return bad("span", fmt::format("spans {} bytes, but {} x {} elements need {:.0f}", t.end - t.begin, t.dtype, elements, expected),
                 {{"bytes", std::to_string(t.end - t.begin)}, {"dtype", t.dtype}, {"count", fmt::format("{}", elements)},
                  {"need", fmt::format("{:.0f}", expected)}});
    }
    ranges.emplace_back(t.begin, t.end);
    out.tensors.push_back(std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) {
      return Status::InvalidArgument(
                 fmt::format("{}: two tensors overlap at data byte {} (a corrupted header)", label, ranges[i].first))
          .WithKeys("error.safetensors.overlap", {{"file", label}, {"offset", std::to_string(ranges[i].first)}});
    }
  }
  return out;
}

}  // namespace gpuprobe::model

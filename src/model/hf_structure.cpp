#include "model/hf_structure.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;
using nlohmann::json;

// Beyond these a config is corrupted or hostile, not a model (config_reader.h's limits).
constexpr double kMaxTotal = 1e15;
constexpr std::int64_t kMaxEntries = 100000;

std::string Str(const json& object, const char* key, const std::string& fallback = {}) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// The identifiers an expression reads (for the "came from class defaults" note).
void CollectKeys(const std::string& expr, std::set<std::string>& out) {
  for (size_t i = 0; i < expr.size();) {
    unsigned char c = static_cast<unsigned char>(expr[i]);
    if (std::isalpha(c) || c == '_') {
      size_t start = i;
      while (i < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_' || expr[i] == '.')) ++i;
      std::string word = expr.substr(start, i - start);
      static const std::set<std::string> kWords = {"ceil_div", "min", "max", "len", "true", "false", "null"};
      if (!kWords.count(word)) out.insert(word);
    } else if (c == '"') {
      size_t end = expr.find('"', i + 1);
      i = end == std::string::npos ? expr.size() : end + 1;
    } else {
      ++i;
    }
  }
}

// What one set of tensors (a kind of a part, or the top-level list) adds up to.
struct Totals {
  // `vectors`: 1-D parameters outside the norms and routers (biases, attention sinks), which
  // quantisers keep in 16 bits beside the matrices they quantise.
  double params = 0, buffers = 0, routed = 0, vectors = 0;
  std::int64_t tensors = 0;
  std::map<std::string, double> by_role, by_tower, language_by_role;
};

class Counter {
 public:
  explicit Counter(const ConfigValues& values) : values_(values) {}

  Result<std::int64_t> Int(const json& expr, const std::string& where) {
    if (expr.is_number_integer()) return expr.get<std::int64_t>();
    if (!expr.is_string()) return Status::InvalidArgument(fmt::format("{}: not an expression", where));
    CollectKeys(expr.get<std::string>(), keys_);
    auto v = EvalIntExpression(expr.get<std::string>(), values_);
    if (!v.ok()) return Status::InvalidArgument(fmt::format("{}: {}", where, v.status().message()));
    return *v;
  }

  Result<bool> When(const json& object, const std::string& where) {
    auto it = object.find("when");
    if (it == object.end() || it->is_null()) return true;
    if (it->is_boolean()) return it->get<bool>();
    if (!it->is_string()) return Status::InvalidArgument(fmt::format("{}: 'when' is not a condition", where));
    CollectKeys(it->get<std::string>(), keys_);
    auto v = EvalCondition(it->get<std::string>(), values_);
    if (!v.ok()) return Status::InvalidArgument(fmt::format("{}: {}", where, v.status().message()));
    return *v;
  }

  // Adds every tensor of `list` to `out`; `tower` is the container's.
  Status AddTensors(const json& list, const std::string& tower, const std::string& where, Totals& out) {
    if (!list.is_array()) return Status::InvalidArgument(fmt::format("{}: tensors must be a list", where));
    for (const json& t : list) {
      if (!t.is_object()) return Status::InvalidArgument(fmt::format("{}: a tensor must be an object", where));
      std::string name = where + "." + Str(t, "name");
      auto present = When(t, name);
      if (!present.ok()) return present.status();
      if (!*present) continue;
      double size = 1;
      auto shape = t.find("shape");
      if (shape == t.end() || !shape->is_array()) return Status::InvalidArgument(fmt::format("{}: no shape", name));
      for (const json& dim : *shape) {
        auto v = Int(dim, name);
        if (!v.ok()) return v.status();
        if (*v < 0) return Status::InvalidArgument(fmt::format("{}: a negative dimension ({})", name, *v))
                             .WithKeys("error.structure.negative_dim", {{"name", name}, {"value", std::to_string(*v)}});
        size *= static_cast<double>(*v);
      }
      double copies = 1;
      if (auto count = t.find("count"); count != t.end() && !count->is_null()) {
        std::vector<json> counts = count->is_array() ? count->get<std::vector<json>>() : std::vector<json>{*count};
        for (const json& c : counts) {
          auto v = Int(c, name);
          if (!v.ok()) return v.status();
          if (*v < 0 || *v > kMaxEntries) {
            return Status::InvalidArgument(fmt::format("{}: {} copies is absurd", name, *v))
                .WithKeys("error.structure.absurd_copies", {{"name", name}, {"value", std::to_string(*v)}});
          }
          copies *= static_cast<double>(*v);
        }
      }
      double elements = size * copies;
      if (!std::isfinite(elements) || elements > kMaxTotal) {
        return Status::InvalidArgument(fmt::format("{}: {:.3g} elements, beyond any real model", name, elements))
            .WithKeys("error.structure.beyond_elements", {{"name", name}, {"value", fmt::format("{:.3g}", elements)}});
      }
      out.tensors += static_cast<std::int64_t>(copies);
      if (t.value("buffer", false)) {
        out.buffers += elements;
        continue;
      }
      std::string role = Str(t, "role", "other");
      out.params += elements;
      out.by_role[role] += elements;
      // A bias is a bias by its name also when stacked per expert ([experts, out]: gpt-oss).
      const auto shape_it = t.find("shape");
      const std::string tensor_name = Str(t, "name");
      auto ends = [&](const char* tail) {
        const size_t n = std::char_traits<char>::length(tail);
        return tensor_name.size() >= n && tensor_name.compare(tensor_name.size() - n, n, tail) == 0;
      };
      const bool vector = (shape_it != t.end() && shape_it->is_array() && shape_it->size() <= 1) || ends("bias") || ends("sinks");
      if (vector && role != "norm" && role != "router" && role != "embedding") out.vectors += elements;
      std::string in_tower = Str(t, "tower", tower);
      out.by_tower[in_tower] += elements;
      if (in_tower == "language_model") out.language_by_role[role] += elements;
      if (role == "expert") out.routed += elements;
    }
    return Status::Ok();
  }

  std::vector<std::string> Keys() const { return {keys_.begin(), keys_.end()}; }
  const ConfigValues& values() const { return values_; }

 private:
  const ConfigValues& values_;
  std::set<std::string> keys_;
};

void Add(StructureCount& c, const Totals& t, double times) {
  c.total_params += t.params * times;
  c.buffer_elements += t.buffers * times;
  c.tensors += static_cast<std::int64_t>(static_cast<double>(t.tensors) * times);
  c.routed_expert_params += t.routed * times;
  for (const auto& [k, v] : t.by_role) c.params_by_role[k] += v * times;
  for (const auto& [k, v] : t.by_tower) c.params_by_tower[k] += v * times;
  for (const auto& [k, v] : t.language_by_role) c.language_by_role[k] += v * times;
}

std::string ListKey(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return v.dump();
}

// The integer list at `key` with negative entries counted from the end; a missing key is empty.
Result<std::set<std::int64_t>> IndexSet(const ConfigValues& values, const std::string& key, std::int64_t n) {
  std::set<std::int64_t> out;
  const json* v = values.Find(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) {
    return Status::InvalidArgument(fmt::format("'{}' is not a list of layer indices", key)).WithKeys("error.hf.not_index_list", {{"key", key}});
  }
  for (const json& x : *v) {
    auto i = WholeNumber(x);
    if (!i) {
      return Status::InvalidArgument(fmt::format("'{}' holds a value that is not a layer index", key))
          .WithKeys("error.hf.not_index", {{"key", key}});
    }
    out.insert(*i < 0 ? *i + n : *i);
  }
  return out;
}

Result<std::int64_t> RuleInt(const json& rule, const char* field, const ConfigValues& values, std::int64_t fallback) {
  auto it = rule.find(field);
  if (it == rule.end() || it->is_null()) return fallback;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (!it->is_string()) return Status::InvalidArgument(fmt::format("layer rule: '{}' is not an expression", field));
  return EvalIntExpression(it->get<std::string>(), values);
}

}  // namespace

Result<std::string> LayerKind(const json& rule, std::int64_t i, std::int64_t n, const ConfigValues& values) {
  if (!rule.is_object()) return Status::InvalidArgument("layer rule: not an object");
  auto fallback = rule.find("fallback");
  std::string key = Str(rule, "key");
  if (fallback != rule.end() && fallback->is_object() && !key.empty()) {
    // `key` may be an expression (first_k): only a plain key that is missing falls back.
    const json* v = values.Find(key);
    bool plain = key.find_first_of(" +-*/()") == std::string::npos;
    if (plain && (v == nullptr || v->is_null())) return LayerKind(*fallback, i, n, values);
  }
  if (auto exc = rule.find("except"); exc != rule.end() && exc->is_object()) {
    auto set = IndexSet(values, Str(*exc, "key"), n);
    if (!set.ok()) return set.status();
    if (set->count(i)) return Str(*exc, "kind");
  }
  std::string r = Str(rule, "rule");
  auto mapped = [&](const std::string& value) -> Result<std::string> {
    auto map = rule.find("map");
    if (map == rule.end() || !map->is_object() || !map->contains(value)) {
      return Status::InvalidArgument(fmt::format("'{}' holds a layer kind '{}' this model type does not have", key, value))
          .WithKeys("error.hf.unknown_kind", {{"key", key}, {"value", value.substr(0, 100)}});
    }
    return (*map)[value].get<std::string>();
  };
  if (r == "all") return Str(rule, "kind", "all");
  if (r == "list") {
    // "cycle": the list is a pattern repeated over the layers (recurrent_gemma's block_types).
    const bool cycle = rule.value("cycle", false);
    const json* v = values.Find(key);
    if (v == nullptr || !v->is_array() || v->empty() || (!cycle && static_cast<std::int64_t>(v->size()) < n)) {
      return Status::InvalidArgument(fmt::format("'{}' must list a kind for each of the {} layers", key, n))
          .WithKeys("error.hf.kind_list", {{"key", key}, {"layers", std::to_string(n)}});
    }
    return mapped(ListKey((*v)[static_cast<size_t>(i) % v->size()]));
  }
  if (r == "string") {
    const json* v = values.Find(key);
    if (v == nullptr || !v->is_string() || static_cast<std::int64_t>(v->get_ref<const std::string&>().size()) < n) {
      return Status::InvalidArgument(fmt::format("'{}' must have one character for each of the {} layers", key, n))
          .WithKeys("error.hf.kind_string", {{"key", key}, {"layers", std::to_string(n)}});
    }
    return mapped(std::string(1, v->get_ref<const std::string&>()[static_cast<size_t>(i)]));
  }
  if (r == "indices") {
    auto set = IndexSet(values, key, n);
    if (!set.ok()) return set.status();
    return set->count(i) ? Str(rule, "in") : Str(rule, "out");
  }
  if (r == "first_k") {
    auto k = RuleInt(rule, "key", values, 0);
    if (!k.ok()) return k.status();
    return i < *k ? Str(rule, "first") : Str(rule, "rest");
  }
  if (r == "period") {
    auto p = RuleInt(rule, "period", values, 1);
    if (!p.ok()) return p.status();
    auto o = RuleInt(rule, "offset", values, 0);
    if (!o.ok()) return o.status();
    if (*p <= 0) return Status::InvalidArgument(fmt::format("layer rule: a period of {}", *p));
    // "end": the last layer of the run (a negative one counts from the end), as ernie4_5_moe's
    // moe_layer_end_index (its MoE layers: (i + 1) % interval == 0, start <= i <= end).
    std::int64_t end = n - 1;
    if (rule.contains("end")) {
      auto e = RuleInt(rule, "end", values, n - 1);
      if (!e.ok()) return e.status();
      end = *e < 0 ? *e + n : *e;
    }
    // "start": the first layer of the run when it differs from the phase (`offset`).
    auto start = RuleInt(rule, "start", values, *o);
    if (!start.ok()) return start.status();
    bool in_run = i >= *o && i >= *start && i <= end;
    return in_run && (i - *o) % *p == 0 ? Str(rule, "match") : Str(rule, "other");
  }
  if (r == "explicit") {
    auto kinds = rule.find("kinds");
    if (kinds == rule.end() || !kinds->is_array() || static_cast<std::int64_t>(kinds->size()) <= i) {
      const size_t recorded = kinds == rule.end() || !kinds->is_array() ? 0 : kinds->size();
      return Status::InvalidArgument(fmt::format("this model type's layers were recorded for {} layers only", recorded))
          .WithKeys("error.hf.recorded_layers", {{"layers", std::to_string(recorded)}});
    }
    return (*kinds)[static_cast<size_t>(i)].get<std::string>();
  }
  return Status::InvalidArgument(fmt::format("layer rule '{}' is not known", r));
}

Result<StructureCount> CountStructure(const json& tpl, const ConfigValues& values) {
  if (!tpl.is_object()) return Status::InvalidArgument("model template: not an object");
  Counter counter(values);
  StructureCount count;
  Totals top;
  if (auto tensors = tpl.find("tensors"); tensors != tpl.end()) {
    GPUPROBE_RETURN_IF_ERROR(counter.AddTensors(*tensors, "language_model", "model", top));
  }
  Add(count, top, 1);
  std::int64_t largest = -1;
  for (const json& c : tpl.value("containers", json::array())) {
    std::string path = Str(c, "path");
    auto present = counter.When(c, path);
    if (!present.ok()) return present.status();
    if (!*present) continue;
    auto n = counter.Int(c.value("repeat", json(1)), path);
    if (!n.ok()) return n.status();
    if (*n < 0 || *n > kMaxEntries) {
      return Status::InvalidArgument(fmt::format("{}: {} entries is absurd", path, *n))
          .WithKeys("error.structure.absurd_entries", {{"name", path}, {"value", std::to_string(*n)}});
    }
    std::string tower = Str(c, "tower", "language_model");
    const json parts = c.value("parts", json::array());
    // Each kind of each part is counted once and then multiplied by how many layers have it.
    std::map<std::pair<size_t, std::string>, Totals> kinds;
    std::vector<StructureLayer> layers(static_cast<size_t>(*n));
    for (size_t p = 0; p < parts.size(); ++p) {
      const json& part = parts[p];
      const json rule = part.value("layer_kinds", json::object());
      for (std::int64_t i = 0; i < *n; ++i) {
        auto kind = LayerKind(rule, i, *n, values);
        // The same message as before ("path.i: ..."), its key kept for the reader's language.
        if (!kind.ok()) return kind.status().WithContext(fmt::format("{}.{}", path, i));
        auto key = std::make_pair(p, *kind);
        auto it = kinds.find(key);
        if (it == kinds.end()) {
          Totals t;
          auto list = part.find("kinds");
          if (list != part.end() && list->is_object() && list->contains(*kind)) {
            GPUPROBE_RETURN_IF_ERROR(counter.AddTensors((*list)[*kind], tower, fmt::format("{}.{}", path, i), t));
          }
          it = kinds.emplace(key, std::move(t)).first;
        }
        Add(count, it->second, 1);
        StructureLayer& layer = layers[static_cast<size_t>(i)];
        for (const auto& [role, v] : it->second.by_role) layer.params_by_role[role] += v;
        layer.vector_params += it->second.vectors;
        if (rule.value("rule", "all") != "all" || parts.size() == 1) {
          layer.kind += (layer.kind.empty() ? "" : "+") + *kind;
        }
      }
    }
    // The decoder stack: the language model's longest list (a decoder beats an encoder of the
    // same depth, as in T5, since the cache and the generated tokens are the decoder's).
    bool decoder = path.find("decoder") != std::string::npos;
    if (tower == "language_model" && (*n > largest || (*n == largest && decoder))) {
      largest = *n;
      count.stack_path = path;
      count.stack = std::move(layers);
    }
    if (!std::isfinite(count.total_params) || count.total_params > kMaxTotal) {
      return Status::InvalidArgument(fmt::format("{}: {:.3g} parameters, beyond any real model", path, count.total_params))
          .WithKeys("error.structure.beyond_params", {{"name", path}, {"value", fmt::format("{:.3g}", count.total_params)}});
    }
  }
  count.active_params = count.total_params;
  if (auto moe = tpl.find("moe"); moe != tpl.end() && moe->is_object() && count.routed_expert_params > 0) {
    auto e = counter.Int((*moe)["experts"], "moe.experts");
    auto k = counter.Int((*moe)["top_k"], "moe.top_k");
    if (e.ok() && k.ok() && *e > 0) {
      count.experts = *e;
      count.experts_per_token = std::min(*k, *e);
      count.active_params = count.total_params - count.routed_expert_params * static_cast<double>(*e - count.experts_per_token) /
                                                     static_cast<double>(*e);
    }
  }
  count.keys_read = counter.Keys();
  return count;
}

Result<std::vector<KvLayerShape>> KvLayout(const json& kv, const ConfigValues& values) {
  if (!kv.is_object()) return Status::InvalidArgument("kv template: not an object");
  Counter counter(values);
  auto n = counter.Int(kv.value("layers", json("num_hidden_layers")), "kv.layers");
  if (!n.ok()) return n.status();
  if (*n < 0 || *n > kMaxEntries) {
    return Status::InvalidArgument(fmt::format("kv: {} layers is absurd", *n))
        .WithKeys("error.structure.absurd_kv_layers", {{"value", std::to_string(*n)}});
  }
  const json rule = kv.value("layer_kinds", json{{"rule", "all"}, {"kind", "full_attention"}});
  const json kinds = kv.value("kinds", json::object());
  std::map<std::string, KvLayerShape> cache;
  std::vector<KvLayerShape> out;
  out.reserve(static_cast<size_t>(*n));
  for (std::int64_t i = 0; i < *n; ++i) {
    auto label = LayerKind(rule, i, *n, values);
    if (!label.ok()) return Status::InvalidArgument(fmt::format("kv layer {}: {}", i, label.status().message()));
    auto it = cache.find(*label);
    if (it == cache.end()) {
      if (!kinds.contains(*label)) return Status::InvalidArgument(fmt::format("kv: no cache kind '{}'", *label));
      const json& k = kinds[*label];
      KvLayerShape s;
      s.kind = Str(k, "kind", "none");
      auto expr = [&](const char* field, std::int64_t* to) -> Status {
        auto f = k.find(field);
        if (f == k.end() || f->is_null()) return Status::Ok();
        auto v = counter.Int(*f, fmt::format("kv.{}.{}", *label, field));
        if (!v.ok()) return v.status();
        *to = *v;
        return Status::Ok();
      };
      GPUPROBE_RETURN_IF_ERROR(expr("per_token", &s.per_token));
      GPUPROBE_RETURN_IF_ERROR(expr("hf_per_token", &s.hf_per_token));
      GPUPROBE_RETURN_IF_ERROR(expr("state", &s.state));
      GPUPROBE_RETURN_IF_ERROR(expr("cross_per_token", &s.cross_per_token));
      // window and source_len name keys; a null window means the layer is not capped.
      for (auto [field, to] : {std::pair<const char*, std::int64_t*>{"window", &s.window}, {"source_len", &s.source_len}}) {
        std::string key = Str(k, field);
        if (key.empty()) continue;
        const json* v = values.Find(key);
        if (v != nullptr && !v->is_null()) {
          auto w = WholeNumber(*v);
          if (!w || *w < 0) {
            return Status::InvalidArgument(fmt::format("'{}' is not a whole number of tokens", key)).WithKeys("error.hf.tokens", {{"key", key}});
          }
          *to = *w;
        }
      }
      it = cache.emplace(*label, s).first;
    }
    out.push_back(it->second);
  }
  return out;
}

}  // namespace gpuprobe::model

#include "model/hf_config_env.h"

#include "core/strings.h"
#include "model/hf_structure.h"

#include <set>

namespace gpuprobe::model {
namespace {

using nlohmann::json;

// Composite configs nest a few levels (omni: thinker_config.text_config); a hostile file's
// deeper nesting is read as plain values.
constexpr int kMaxDepth = 6;
// A layer count beyond this is a corrupted file (config_reader.h's kMaxLayers).
constexpr std::int64_t kMaxLayers = 100000;

using core::EndsWith;

// FORMAT.md 1.1: an object with a model_type, or under a key ending in "config", is a sub-config.
bool IsSubConfig(const std::string& key, const json& value) {
  return value.is_object() && (value.contains("model_type") || EndsWith(key, "config"));
}

const json* ClassEntry(const HfDefaults& d, const std::string& cls) {
  if (cls.empty() || !d.class_entry) return nullptr;
  const json* entry = d.class_entry(cls);
  return entry != nullptr && entry->is_object() ? entry : nullptr;
}

const json* Field(const json* object, const char* name) {
  if (object == nullptr) return nullptr;
  auto it = object->find(name);
  return it == object->end() ? nullptr : &*it;
}

// A summarised default list ({"list_of": N, ...}) stands for a value the file must give or
// a derivation must compute; it is never filled in as it is.
bool IsSummary(const json& v) { return v.is_object() && v.contains("list_of"); }

class Builder {
 public:
  Builder(const HfDefaults& d, ConfigEnv& env) : d_(d), env_(env) {}

  void Level(const json* object, const std::string& prefix, const std::string& cls, int depth) {
    const json* entry = ClassEntry(d_, cls);
    std::set<std::string> subs;
    if (object != nullptr) {
      for (const auto& [key, value] : object->items()) {
        if (depth < kMaxDepth && IsSubConfig(key, value)) {
          subs.insert(key);
        } else {
          env_.values.Set(prefix + key, value);
        }
      }
    }
    ResolveAliases(entry, prefix);
    FillDefaults(entry, prefix, object);
    ResolveAliases(entry, prefix);
    // Sub-configs the class declares and the file leaves out are the class defaults whole.
    if (const json* declared = Field(entry, "sub_configs"); declared != nullptr && declared->is_object()) {
      for (const auto& [key, type] : declared->items()) {
        if (subs.count(key) || !type.is_string()) continue;
        const json* given = object != nullptr ? Field(object, key.c_str()) : nullptr;
        if (given != nullptr && !given->is_null()) continue;  // a plain value the file chose
        if (depth + 1 >= kMaxDepth) continue;
        std::string sub_cls = ConfigClassOf(d_, type.get<std::string>());
        // Configs saved flat (Qwen2-VL and its descendants) keep the language model's keys at
        // the top; the class then builds text_config from the top-level keys its signature has.
        json flat = key == "text_config" ? FlatSubConfig(object, entry, sub_cls) : json();
        if (!flat.is_null()) {
          Level(&flat, prefix + key + ".", sub_cls, depth + 1);
          continue;
        }
        env_.defaulted_subconfigs.push_back(prefix + key);
        Level(nullptr, prefix + key + ".", sub_cls, depth + 1);
      }
    }
    for (const std::string& key : subs) {
      const json& sub = (*object)[key];
      std::string type = sub.contains("model_type") && sub["model_type"].is_string() ? sub["model_type"].get<std::string>() : "";
      std::string sub_cls = ConfigClassOf(d_, type);
      if (sub_cls.empty()) {
        const json* declared = Field(Field(entry, "sub_configs"), key.c_str());
        if (declared != nullptr && declared->is_string()) sub_cls = ConfigClassOf(d_, declared->get<std::string>());
      }
      Level(&sub, prefix + key + ".", sub_cls, depth + 1);
    }
    Derive(entry, prefix);
  }

 private:
  // The top-level keys of `object` that the sub-config class takes and the parent class does
  // not: null unless they describe a language model (hidden_size, num_hidden_layers).
  json FlatSubConfig(const json* object, const json* parent, const std::string& sub_cls) const {
    const json* sub_sig = Field(ClassEntry(d_, sub_cls), "signature");
    const json* parent_sig = Field(parent, "signature");
    if (object == nullptr || sub_sig == nullptr || !sub_sig->is_object()) return json();
    json flat = json::object();
    for (const auto& [key, value] : object->items()) {
      if (sub_sig->contains(key) && !(parent_sig != nullptr && parent_sig->contains(key))) flat[key] = value;
    }
    if (!flat.contains("hidden_size") && !flat.contains("num_hidden_layers")) return json();
    return flat;
  }

  void ResolveAliases(const json* entry, const std::string& prefix) {
    const json* map = Field(entry, "attribute_map");
    if (map == nullptr || !map->is_object()) return;
    for (const auto& [alias, canonical] : map->items()) {
      if (!canonical.is_string()) continue;
      std::string a = prefix + alias, c = prefix + canonical.get<std::string>();
      if (env_.values.Has(a) && !env_.values.Has(c)) env_.values.Set(c, *env_.values.Find(a));
      if (env_.values.Has(c) && !env_.values.Has(a)) env_.values.Set(a, *env_.values.Find(c));
    }
  }

  void FillDefaults(const json* entry, const std::string& prefix, const json* object) {
    if (entry == nullptr) return;
    const json* derived = Field(entry, "derived");
    const json* subs = Field(entry, "sub_configs");
    auto computed = [&](const std::string& key) {
      return (derived != nullptr && derived->contains(key)) ||
             (d_.null_derivations.is_object() && d_.null_derivations.contains(key));
    };
    json merged = json::object();
    if (const json* sig = Field(entry, "signature"); sig != nullptr && sig->is_object()) merged.update(*sig);
    if (const json* post = Field(entry, "post_init"); post != nullptr && post->is_object()) merged.update(*post);
    for (const auto& [key, value] : merged.items()) {
      if (subs != nullptr && subs->contains(key)) continue;
      if (IsSummary(value)) continue;
      std::string full = prefix + key;
      if (env_.values.Find(full) != nullptr && !env_.values.Find(full)->is_null()) continue;
      // A key the file sets to null explicitly keeps null (transformers reads it so), except
      // where a derivation computes it below.
      if (object != nullptr && object->contains(key)) continue;
      if (computed(key)) {
        // A post-init value computed from other keys (head_dim from hidden_size): derived
        // below from this file's own keys, unless the signature itself gives a fixed default.
        const json* sig = Field(entry, "signature");
        bool fixed = sig != nullptr && sig->contains(key) && !(*sig)[key].is_null();
        if (!fixed) continue;
      }
      env_.values.Set(full, value);
      if (value.is_number() || value.is_boolean()) env_.defaulted.push_back(full);
    }
  }

  // Keys whose default is computed from other keys of the same level.
  void Derive(const json* entry, const std::string& prefix) {
    std::vector<std::pair<std::string, std::string>> rules;
    std::vector<std::pair<std::string, const json*>> lists;
    if (const json* derived = Field(entry, "derived"); derived != nullptr && derived->is_object()) {
      for (const auto& [key, expr] : derived->items()) {
        if (expr.is_string()) rules.emplace_back(key, expr.get<std::string>());
        if (expr.is_object() && expr.value("produces", "") == "list") lists.emplace_back(key, &expr);
      }
    }
    if (d_.null_derivations.is_object()) {
      for (const auto& [key, expr] : d_.null_derivations.items()) {
        if (expr.is_string()) rules.emplace_back(key, expr.get<std::string>());
      }
    }
    if (rules.empty() && lists.empty()) return;
    // Twice, so a derivation that reads another derived key finds it.
    for (int pass = 0; pass < 2; ++pass) {
      ConfigValues level = LevelView(prefix);
      for (const auto& [key, expr] : rules) {
        if (env_.values.Has(prefix + key)) continue;
        auto v = EvalIntExpression(expr, level);
        if (v.ok()) {
          env_.values.Set(prefix + key, *v);
          level.Set(key, *v);
        }
      }
    }
    // Per-layer lists (layer_types) computed by the class from other keys when the file has none.
    ConfigValues level = LevelView(prefix);
    for (const auto& [key, rule] : lists) {
      if (env_.values.Has(prefix + key)) continue;
      auto n = EvalIntExpression(rule->value("n", std::string("num_hidden_layers")), level);
      if (!n.ok() || *n < 0 || *n > kMaxLayers) continue;
      json list = json::array();
      for (std::int64_t i = 0; i < *n; ++i) {
        auto kind = LayerKind(*rule, i, *n, level);
        if (!kind.ok()) break;
        list.push_back(*kind);
      }
      if (static_cast<std::int64_t>(list.size()) == *n) env_.values.Set(prefix + key, std::move(list));
    }
  }

  ConfigValues LevelView(const std::string& prefix) const {
    ConfigValues level;
    for (const auto& [key, value] : env_.values.values()) {
      if (key.compare(0, prefix.size(), prefix) == 0) level.Set(key.substr(prefix.size()), value);
    }
    return level;
  }

  const HfDefaults& d_;
  ConfigEnv& env_;
};

}  // namespace

std::string ConfigClassOf(const HfDefaults& d, const std::string& model_type) {
  if (model_type.empty() || !d.model_types.is_object()) return {};
  auto it = d.model_types.find(model_type);
  return it != d.model_types.end() && it->is_string() ? it->get<std::string>() : std::string();
}

HfDefaults HfDefaults::FromTable(const json& table) {
  HfDefaults d;
  if (table.is_object() && table.contains("model_types")) d.model_types = table["model_types"];
  const json* classes = table.is_object() && table.contains("classes") ? &table["classes"] : nullptr;
  d.class_entry = [classes](const std::string& cls) -> const json* {
    if (classes == nullptr || !classes->is_object()) return nullptr;
    auto it = classes->find(cls);
    return it == classes->end() ? nullptr : &*it;
  };
  return d;
}

ConfigEnv BuildConfigEnv(const json& root, const std::string& model_type, const HfDefaults& defaults) {
  ConfigEnv env;
  env.model_type = model_type;
  env.config_class = ConfigClassOf(defaults, model_type);
  Builder(defaults, env).Level(root.is_object() ? &root : nullptr, "", env.config_class, 0);
  return env;
}

}  // namespace gpuprobe::model

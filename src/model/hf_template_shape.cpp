#include "model/hf_template_shape.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/strings.h"
#include "model/hf_structure.h"

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;
using nlohmann::json;

std::string StringAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The config level of the language model: the prefix of the key the decoder stack's repeat
// reads ("text_config.num_hidden_layers" -> "text_config."); the top level otherwise.
std::string LanguagePrefix(const json& tpl, const std::string& stack_path) {
  for (const json& c : tpl.value("containers", json::array())) {
    if (StringAt(c, "path") != stack_path) continue;
    std::string repeat = c.value("repeat", json("")).is_string() ? c["repeat"].get<std::string>() : "";
    size_t start = repeat.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_");
    if (start == std::string::npos) return {};
    size_t end = repeat.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789.", start);
    std::string key = repeat.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (key == "len") {  // len(layers_block_type): the key inside
      return LanguagePrefix(json{{"containers", json::array({{{"path", stack_path},
                                                              {"repeat", repeat.substr(repeat.find('(') + 1)}}})}},
                            stack_path);
    }
    size_t dot = key.rfind('.');
    return dot == std::string::npos ? std::string() : key.substr(0, dot + 1);
  }
  return {};
}

// The language model's own object in the file: the prefix's path ("text_config."), else the
// root.
const json& LanguageNode(const json& root, const std::string& prefix) {
  const json* node = &root;
  size_t start = 0;
  while (start < prefix.size()) {
    size_t dot = prefix.find('.', start);
    if (dot == std::string::npos) break;
    std::string key = prefix.substr(start, dot - start);
    auto it = node->find(key);
    if (it == node->end() || !it->is_object()) return root;
    node = &*it;
    start = dot + 1;
  }
  return *node;
}

// The layer kinds a config lists (layer_types, as transformers' config classes write them):
// full and sliding attention keep a growing cache (a window caps the sliding kind); linear
// attention, SSM and convolution layers keep a fixed state per sequence, not a per-token cache.
// Applies them to the stack's layers and returns "N kind, ..." for the note; empty when the
// file has no usable list (then nothing is changed).
std::string ApplyLayerTypes(const json& node, ModelShape* s) {
  auto it = node.find("layer_types");
  if (it == node.end() || !it->is_array() || it->size() != s->layers.size() || s->layers.empty()) return {};
  std::int64_t window = 0;
  for (const char* key : {"sliding_window", "attention_chunk_size"}) {
    auto w = node.find(key);
    if (window == 0 && w != node.end() && w->is_number_integer() && w->get<std::int64_t>() > 0) window = w->get<std::int64_t>();
  }
  std::vector<std::pair<std::string, int>> counts;
  std::vector<MixerKind> mixers;
  for (const json& kind : *it) {
    if (!kind.is_string()) return {};
    const std::string k = core::Lower(kind.get<std::string>());
    MixerKind m;
    if (k == "full_attention" || k == "attention" || k == "global_attention" || k == "full" || k == "global") {
      m = MixerKind::kFullAttention;
    } else if (k.find("sliding") != std::string::npos || k.find("local") != std::string::npos || k.find("chunked") != std::string::npos) {
      m = window > 0 ? MixerKind::kSlidingAttention : MixerKind::kFullAttention;
    } else if (k.find("linear") != std::string::npos || k.find("mamba") != std::string::npos || k.find("ssm") != std::string::npos ||
               k.find("conv") != std::string::npos || k.find("recurrent") != std::string::npos || k.find("delta") != std::string::npos) {
      m = MixerKind::kSsm;  // a fixed state per sequence, its size not known here
    } else {
      return {};  // a kind not known here: the full-attention assumption stands, said as such
    }
    mixers.push_back(m);
    auto c = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == k; });
    if (c == counts.end()) counts.emplace_back(k, 1); else ++c->second;
  }
  for (size_t i = 0; i < mixers.size(); ++i) {
    LayerShape& l = s->layers[i];
    l.mixer = mixers[i];
    l.window = mixers[i] == MixerKind::kSlidingAttention ? window : 0;
    if (mixers[i] == MixerKind::kSsm) l.kv_heads = l.k_head_dim = l.v_head_dim = 0;
  }
  std::string out;
  for (const auto& [kind, n] : counts) out += (out.empty() ? "" : ", ") + fmt::format("{} {}", n, kind);
  return out;
}

std::optional<std::int64_t> IntAt(const ConfigValues& v, const std::string& prefix, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const json* value = v.Find(prefix + key);
    if (value == nullptr || value->is_null()) continue;
    if (auto whole = WholeNumber(*value); whole && *whole > 0) return whole;
  }
  return std::nullopt;
}

// "structure_approximate" reasons as one data string.
// Whether `text` (a template's JSON) names `key` as a whole identifier.
bool MentionsKey(const std::string& text, const std::string& key) {
  auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    bool left = at == 0 || !ident(text[at - 1]);
    bool right = at + key.size() >= text.size() || !ident(text[at + key.size()]);
    if (left && right) return true;
  }
  return false;
}

// Top-level integer keys of the file, above 0, whose class default is null (an optional
// feature: moe_latent_size, q_lora_rank...) and which the structure never read.
std::string UnexercisedFeatures(const json& root, const ConfigEnv& env, const HfDefaults& defaults,
                                const std::set<std::string>& read, const std::string& kv_template) {
  if (env.config_class.empty() || !defaults.class_entry || !root.is_object()) return {};
  const json* entry = defaults.class_entry(env.config_class);
  if (entry == nullptr || !entry->is_object()) return {};
  auto sig = entry->find("signature");
  if (sig == entry->end() || !sig->is_object()) return {};
  std::string out;
  for (const auto& [key, value] : root.items()) {
    if (!value.is_number_integer() || value.get<std::int64_t>() <= 0) continue;
    auto d = sig->find(key);
    if (d == sig->end() || !d->is_null() || read.count(key)) continue;
    if (key.find("token") != std::string::npos) continue;  // token ids are not sizes
    if (MentionsKey(kv_template, key)) continue;           // the cache template reads it
    if (key.find("window") != std::string::npos) continue;  // an attention span, not a tensor's size
    out += (out.empty() ? "" : ", ") + key + "=" + value.dump();
  }
  return out;
}

std::string Reasons(const json& tpl) {
  std::string out;
  for (const json& r : tpl.value("reason", json::array())) {
    if (!r.is_string()) continue;
    out += (out.empty() ? "" : "; ") + r.get<std::string>();
    if (out.size() > 300) {
      out += "...";
      break;
    }
  }
  return out;
}

// The summary fields (activations, LoRA, throughput) from the language model's level, with
// the assumptions said where a field is absent (SSM models have no attention heads).
void FillSummary(ModelShape& s, const ConfigValues& v, const std::string& p, std::int64_t layers) {
  auto need = [&](std::int64_t* field, std::initializer_list<const char*> keys, std::int64_t fallback, const char* name) {
    if (auto got = IntAt(v, p, keys)) {
      *field = *got;
    } else {
      *field = fallback;
      s.assumed_fields.push_back(name);
    }
  };
  s.num_layers = std::max<std::int64_t>(layers, 1);
  need(&s.hidden_size, {"hidden_size", "d_model", "n_embd", "dim"}, 1, "hidden_size");
  need(&s.vocab_size, {"vocab_size", "padded_vocab_size"}, 1, "vocab_size");
  need(&s.num_heads, {"num_attention_heads", "n_head", "num_heads", "encoder_attention_heads"}, 1, "num_attention_heads");
  need(&s.num_kv_heads, {"num_key_value_heads", "num_kv_heads"}, s.num_heads, "num_key_value_heads");
  if (s.num_kv_heads > s.num_heads || s.num_heads % s.num_kv_heads != 0) s.num_kv_heads = s.num_heads;
  need(&s.head_dim, {"head_dim", "qk_head_dim"}, std::max<std::int64_t>(1, s.hidden_size / s.num_heads), "head_dim");
  need(&s.intermediate_size, {"moe_intermediate_size", "intermediate_size", "d_ff", "ffn_dim", "n_inner"},
       4 * s.hidden_size, "intermediate_size");
  s.max_position_embeddings = IntAt(v, p, {"max_position_embeddings", "n_positions", "max_seq_len"}).value_or(0);
  s.sliding_window = IntAt(v, p, {"sliding_window"}).value_or(0);
}

}  // namespace

Result<HfKnowledge> HfKnowledge::FromJson(const json& structure, const json& defaults) {
  if (!structure.is_object() || !structure.contains("models") || !structure["models"].is_object()) {
    return Status::ParseError("hf_structure: no 'models' object");
  }
  if (!defaults.is_object() || !defaults.contains("classes")) return Status::ParseError("hf_config_defaults: no 'classes'");
  json index = json::object();
  index["versions"] = structure.value("versions", json::object());
  index["null_derivations"] = structure.value("null_derivations", json::object());
  index["model_types"] = defaults.value("model_types", json::object());
  index["templates"] = json::object();
  for (const auto& [type, tpl] : structure["models"].items()) {
    if (tpl.is_object()) index["templates"][type] = {{"class", StringAt(tpl, "class")}, {"status", StringAt(tpl, "status")}};
  }
  const json* models = &structure["models"];
  const json* classes = &defaults["classes"];
  return FromIndex(
      index,
      [models](const std::string& type) -> const json* {
        auto it = models->find(type);
        return it == models->end() ? nullptr : &*it;
      },
      [classes](const std::string& cls) -> const json* {
        auto it = classes->find(cls);
        return it == classes->end() ? nullptr : &*it;
      });
}

Result<HfKnowledge> HfKnowledge::FromIndex(const json& index, std::function<const json*(const std::string&)> template_loader,
                                           std::function<const json*(const std::string&)> class_loader) {
  if (!index.is_object() || !index.contains("templates") || !index["templates"].is_object() ||
      !index.contains("model_types") || !index["model_types"].is_object()) {
    return Status::ParseError("hf index: no 'templates' or 'model_types' object");
  }
  HfKnowledge k;
  k.templates = index["templates"];
  k.model_template = std::move(template_loader);
  k.defaults.model_types = index["model_types"];
  k.defaults.class_entry = std::move(class_loader);
  k.defaults.null_derivations = index.value("null_derivations", json::object());
  if (index.contains("versions") && index["versions"].is_object()) k.transformers_version = StringAt(index["versions"], "transformers");
  k.defaults.transformers_version = k.transformers_version;
  for (const auto& [type, entry] : k.templates.items()) {
    std::string cls = entry.is_object() ? StringAt(entry, "class") : "";
    if (!cls.empty() && !k.class_to_type.count(cls)) k.class_to_type[cls] = type;
  }
  return k;
}

const json* FindTemplate(const HfKnowledge& knowledge, const json& root, std::string* model_type, std::string* alias_of) {
  auto usable = [&](const std::string& type) -> const json* {
    auto it = knowledge.templates.find(type);
    if (it == knowledge.templates.end() || !it->is_object() || !knowledge.model_template) return nullptr;
    std::string status = StringAt(*it, "status");
    if (status != "exact" && status != "approximate") return nullptr;
    const json* tpl = knowledge.model_template(type);
    return tpl != nullptr && tpl->is_object() ? tpl : nullptr;
  };
  std::string own = StringAt(root, "model_type");
  if (const json* t = usable(own)) {
    *model_type = own;
    return t;
  }
  // Known to transformers as a config type (a template not generated) stays refused here;
  // an unknown type is looked up by the class its architectures entry names.
  auto arch = root.find("architectures");
  if (arch != root.end() && arch->is_array()) {
    for (const json& a : *arch) {
      if (!a.is_string()) continue;
      auto it = knowledge.class_to_type.find(a.get<std::string>());
      if (it == knowledge.class_to_type.end()) continue;
      if (const json* t = usable(it->second)) {
        *model_type = it->second;
        *alias_of = own;
        return t;
      }
    }
  }
  return nullptr;
}

Result<ModelShape> ShapeFromTemplate(const json& root, const std::string& model_type, const std::string& alias_of,
                                     const json& tpl, const HfKnowledge& knowledge, const std::string& label) {
  ConfigEnv env = BuildConfigEnv(root, model_type, knowledge.defaults);
  if (!alias_of.empty()) {
    // The class's own key for the type, so its expressions read the file as that class.
    env.values.Set("model_type", model_type);
  }
  auto counted = CountStructure(tpl, env.values);
  if (!counted.ok()) {
    // The structure's own problem in the reader's language where it has a key (its arguments
    // join these), else as the structure reader wrote it.
    const Status& inner = counted.status();
    core::MessageArgs args = inner.message_args();
    args.emplace_back("file", label);
    args.emplace_back("model_type", model_type);
    args.emplace_back("version", knowledge.transformers_version);
    args.emplace_back("detail_key", inner.message_key().empty() ? "hf.detail.raw" : inner.message_key());
    args.emplace_back("detail_text", inner.message());
    return Status::InvalidArgument(fmt::format("{}: {} (model_type '{}', transformers {})", label, inner.message(), model_type,
                                               knowledge.transformers_version))
        .WithKeys("error.hf.structure", std::move(args));
  }
  const StructureCount& c = *counted;
  ModelShape s;
  s.model_type = alias_of.empty() ? model_type : alias_of;
  s.family = model_type;
  auto arch = root.find("architectures");
  if (arch != root.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string()) s.architecture = (*arch)[0];
  if (s.architecture.empty()) s.architecture = StringAt(tpl, "class");

  const std::string prefix = LanguagePrefix(tpl, c.stack_path);
  FillSummary(s, env.values, prefix, static_cast<std::int64_t>(c.stack.size()));
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (s.torch_dtype.empty()) s.torch_dtype = StringAt(root, key);
    if (s.torch_dtype.empty() && env.values.Find(prefix + key) && env.values.Find(prefix + key)->is_string()) {
      s.torch_dtype = env.values.Find(prefix + key)->get<std::string>();
    }
  }
  s.num_experts = c.experts;
  s.experts_per_token = c.experts_per_token;

  // The decoder stack, layer by layer; everything else by role and tower.
  double stack_params = 0;
  for (const StructureLayer& layer : c.stack) {
    LayerShape l;
    auto role = [&](const char* r) {
      auto it = layer.params_by_role.find(r);
      return it == layer.params_by_role.end() ? 0.0 : it->second;
    };
    double known = 0;
    for (const char* r : {"attention", "ssm", "norm", "mlp", "expert", "shared_expert", "router"}) known += role(r);
    double rest = 0;
    for (const auto& [r, v] : layer.params_by_role) rest += v;
    rest -= known;
    l.mixer_params = role("attention") + role("ssm") + rest;
    l.norm_params = role("norm");
    l.dense_mlp_params = role("mlp");
    l.shared_expert_params = role("shared_expert");
    l.router_params = role("router");
    l.vector_params = layer.vector_params;
    if (role("expert") > 0 && c.experts > 0) {
      l.experts = c.experts;
      l.experts_per_token = c.experts_per_token;
      l.expert_params = role("expert") / static_cast<double>(c.experts);
    } else {
      l.dense_mlp_params += role("expert");
    }
    stack_params += l.mixer_params + l.norm_params + l.dense_mlp_params + l.shared_expert_params + l.router_params +
                    static_cast<double>(l.experts) * l.expert_params;
    s.layers.push_back(l);
  }
  // Parameters outside the stack: the language model's embeddings, head and final norms by
  // role; the towers by tower; whatever else is left (an encoder stack) as "other".
  auto tower = [&](const char* t) {
    auto it = c.params_by_tower.find(t);
    return it == c.params_by_tower.end() ? 0.0 : it->second;
  };
  // Roles of the language model only: a tower's embeddings and head are the tower's.
  auto role_total = [&](const char* r) {
    auto it = c.language_by_role.find(r);
    return it == c.language_by_role.end() ? 0.0 : it->second;
  };
  double stack_norms = 0, stack_emb = 0;
  for (const StructureLayer& layer : c.stack) {
    auto n = layer.params_by_role.find("norm");
    if (n != layer.params_by_role.end()) stack_norms += n->second;
    for (const char* r : {"embedding", "position"}) {
      auto e = layer.params_by_role.find(r);
      if (e != layer.params_by_role.end()) stack_emb += e->second;
    }
  }
  s.vision_params = tower("vision") + tower("projector");
  s.audio_params = tower("audio");
  double language = c.total_params - s.vision_params - s.audio_params;
  s.embedding_params = role_total("embedding") + role_total("position") - stack_emb;
  s.lm_head_params = role_total("lm_head");
  s.final_norm_params = std::max(0.0, role_total("norm") - stack_norms);
  s.final_norm_params = std::min(s.final_norm_params, std::max(0.0, language - stack_params - s.embedding_params - s.lm_head_params));
  s.other_params = language - stack_params - s.embedding_params - s.lm_head_params - s.final_norm_params;
  if (s.other_params < 0) {
    // Roles of the towers overlapped the language model's: fold the difference into other.
    s.embedding_params += s.other_params;
    s.other_params = 0;
  }
  s.layers_counted = true;
  s.tied_embeddings = s.lm_head_params == 0 && s.embedding_params > 0;
  s.has_lm_head = true;

  // What the cache keeps, layer by layer, from the cache template when it has one.
  auto kv = tpl.find("kv");
  std::int64_t kv_heads = s.num_kv_heads;
  Result<std::vector<KvLayerShape>> layout = Status::NotFound("no cache template");
  if (kv != tpl.end() && kv->is_object()) {
    layout = KvLayout(*kv, env.values);
    // The weights are counted; a cache template that cannot be evaluated for this file falls
    // back to full attention on every layer below, and says why.
    if (!layout.ok()) s.notes.push_back({"kv_layout_failed", layout.status().message()});
  }
  if (layout.ok()) {
    if (layout->size() > s.layers.size()) s.layers.resize(layout->size());
    for (size_t i = 0; i < s.layers.size(); ++i) {
      LayerShape& l = s.layers[i];
      if (i >= layout->size()) {
        l.mixer = MixerKind::kNone;
        continue;
      }
      const KvLayerShape& k = (*layout)[i];
      l.cross_kv_elements = static_cast<double>(k.cross_per_token * k.source_len);
      l.ssm_state_elements = static_cast<double>(k.state);
      if (k.kind == "mla") {
        l.mixer = MixerKind::kMla;
        l.latent_dim = k.per_token;
      } else if (k.per_token > 0 && (k.kind == "full" || k.kind == "sliding" || k.kind == "chunked" || k.kind == "cross")) {
        l.mixer = (k.kind == "sliding" || k.kind == "chunked") && k.window > 0 ? MixerKind::kSlidingAttention
                                                                              : MixerKind::kFullAttention;
        l.window = l.mixer == MixerKind::kSlidingAttention ? k.window : 0;
        // Heads for tensor parallelism's replication rule; K and V widths summed per head.
        std::int64_t heads = kv_heads > 0 && k.per_token % kv_heads == 0 ? kv_heads : 1;
        l.kv_heads = heads;
        l.k_head_dim = k.per_token / heads;
        l.v_head_dim = 0;
      } else {
        l.mixer = k.state > 0 ? MixerKind::kSsm : MixerKind::kNone;
      }
    }
  } else {
    // No cache template: every stack layer is taken as full attention over the config's KV
    // heads, unless the file lists its layers' kinds (layer_types), which it then follows;
    // said either way.
    for (LayerShape& l : s.layers) {
      l.mixer = MixerKind::kFullAttention;
      l.kv_heads = s.num_kv_heads;
      l.k_head_dim = l.v_head_dim = s.head_dim;
    }
    std::string kinds = ApplyLayerTypes(LanguageNode(root, prefix), &s);
    if (!kinds.empty()) {
      s.notes.push_back({"kv_from_layer_types", kinds});
    } else if (layout.status().code() == core::StatusCode::kNotFound) {
      s.notes.push_back({"kv_assumed", fmt::format("{} x {}", s.num_kv_heads, s.head_dim)});
    }
  }
  for (const LayerShape& l : s.layers) {
    if (l.mixer == MixerKind::kSlidingAttention && s.sliding_window == 0) s.sliding_window = l.window;
  }

  // Notes: how exact this is, and what the file did not say.
  std::string status = StringAt(tpl, "status");
  std::set<std::string> read(c.keys_read.begin(), c.keys_read.end());
  // A feature the class leaves off by default (its signature default is null) that this file
  // turns on with a size the template never reads: the template was fitted and validated with
  // the feature off, so its count cannot be called exact for this file.
  std::string unexercised =
      UnexercisedFeatures(root, env, knowledge.defaults, read, kv != tpl.end() ? kv->dump() : std::string());
  if (status == "exact" && !unexercised.empty()) {
    s.notes.push_back({"structure_unexercised", unexercised});
  } else {
    s.notes.push_back({status == "exact" ? "structure_exact" : "structure_approximate",
                       status == "exact" ? knowledge.transformers_version : Reasons(tpl)});
  }
  if (!alias_of.empty()) s.notes.push_back({"model_type_alias", alias_of + " -> " + model_type});
  std::string defaulted;
  for (const std::string& key : env.defaulted) {
    if (!read.count(key)) continue;
    const json* v = env.values.Find(key);
    defaulted += (defaulted.empty() ? "" : ", ") + key + "=" + (v != nullptr ? v->dump() : "?");
  }
  if (!defaulted.empty()) s.notes.push_back({"class_defaults", defaulted});
  for (const std::string& sub : env.defaulted_subconfigs) {
    bool used = std::any_of(read.begin(), read.end(), [&](const std::string& k) { return k.rfind(sub + ".", 0) == 0; });
    if (used) s.notes.push_back({"tower_defaulted", sub});
  }
  return s;
}

}  // namespace gpuprobe::model

#include "cli/explain_story.h"

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/explain_view.h"
#include "core/strings.h"
#include "report/phrase_text.h"

namespace gpuprobe::cli {
namespace {

using core::Join;
using report::GpuNameText;

std::string Lang(const report::Texts& t) { return report::LanguageCode(t.language()); }

std::string ListSeparator(const report::Texts& t) { return t.Get("explain.list_separator"); }

// Text copied from the input (a code, a file, a word of an entry's phrasing), as the reader's
// language quotes it.
std::vector<std::string> Quoted(const std::vector<std::string>& items, const report::Texts& t) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(Tr(t, "explain.quoted", fmt::arg("text", ValidUtf8(item))));
  return out;
}

std::string Archs(const std::vector<doctor::CompiledArch>& archs) {
  std::vector<std::string> names;
  for (const auto& a : archs) names.push_back(a.Name());
  return Join(names, " ");
}

std::string GpuLine(const doctor::CapabilityAnswer& a, const report::Texts& t, const std::string& key) {
  if (a.gpu_name.empty()) return Tr(t, key + "_unnamed", fmt::arg("cc", a.gpu_cc->Text()));
  return Tr(t, key + "_named", fmt::arg("gpu", GpuNameText(a.gpu_name, t)), fmt::arg("cc", a.gpu_cc->Text()));
}

}  // namespace

std::string LayerText(const std::string& layer, const report::Texts& t) { return t.Get("explain.layer." + layer); }

std::string ComponentsLine(const std::vector<doctor::EmitterHit>& components, const report::Texts& t) {
  std::vector<std::string> parts;
  for (const auto& c : components) {
    if (!c.emitter->gpu) continue;
    parts.push_back(Tr(t, "explain.component", fmt::arg("name", c.emitter->name.In(Lang(t))), fmt::arg("evidence", ValidUtf8(c.evidence))));
    if (parts.size() == 3) break;
  }
  if (parts.empty()) return {};
  return Tr(t, "explain.printed_by", fmt::arg("components", Join(parts, ListSeparator(t))));
}

nlohmann::json ComponentsJson(const std::vector<doctor::EmitterHit>& components) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : components) {
    out.push_back({{"id", c.emitter->id}, {"name", c.emitter->name.en}, {"layer", c.emitter->layer}, {"gpu", c.emitter->gpu},
                   {"evidence", ValidUtf8(c.evidence)}});
  }
  return out;
}

std::vector<std::string> CapabilityLines(const doctor::CapabilityAnswer& a, const report::Texts& t) {
  std::vector<std::string> lines;
  std::string lang = Lang(t);
  if (a.required) {
    std::string feature = a.feature != nullptr ? Tr(t, "explain.capability.for", fmt::arg("feature", a.feature->name.In(lang))) : "";
    std::string arch = a.architecture_named.empty() ? "" : Tr(t, "explain.capability.arch", fmt::arg("arch", a.architecture_named));
    lines.push_back(Tr(t, a.only ? "explain.capability.need_only" : "explain.capability.need", fmt::arg("cc", a.required->Text()),
                       fmt::arg("feature", feature), fmt::arg("arch", arch)));
    if (!a.have.empty()) {
      lines.push_back(t.Get("explain.capability.have"));
      for (const auto& g : a.have) {
        std::vector<std::string> names;
        for (const auto& name : g.gpus) names.push_back(GpuNameText(name, t));
        std::string gpus = g.gpus.empty() ? t.Get("explain.capability.no_gpus_listed") : Join(names, ListSeparator(t));
        lines.push_back("  " + Tr(t, "explain.capability.group", fmt::arg("arch", g.architecture), fmt::arg("ccs", Join(g.ccs, ", ")),
                                   fmt::arg("gpus", gpus)));
      }
    }
    if (a.gpu_has_it) lines.push_back(GpuLine(a, t, *a.gpu_has_it ? "explain.capability.gpu_has" : "explain.capability.gpu_lacks"));
  }
  if (a.build_verdict && a.gpu_cc) {
    const char* key = a.build_verdict->match == doctor::ArchMatch::kMachineCode ? "explain.capability.build_sass"
                      : a.build_verdict->match == doctor::ArchMatch::kPtxJit   ? "explain.capability.build_ptx"
                                                                               : "explain.capability.build_none";
    lines.push_back(Tr(t, key, fmt::arg("archs", Archs(a.build_archs)), fmt::arg("cc", a.gpu_cc->Text()),
                       fmt::arg("used", a.build_verdict->used), fmt::arg("sm", a.gpu_cc->Value())));
  }
  return lines;
}

nlohmann::json CapabilityJson(const doctor::CapabilityAnswer& a, const report::Texts& t) {
  nlohmann::json j;
  j["feature"] = a.feature != nullptr ? nlohmann::json(a.feature->id) : nlohmann::json();
  j["required"] = a.required ? nlohmann::json(a.required->Text()) : nlohmann::json();
  j["required_exactly"] = a.only.has_value();
  j["required_from"] = a.required_from.empty() ? nlohmann::json() : nlohmann::json(a.required_from);
  j["architecture_named"] = a.architecture_named.empty() ? nlohmann::json() : nlohmann::json(a.architecture_named);
  j["have"] = nlohmann::json::array();
  for (const auto& g : a.have) j["have"].push_back({{"architecture", g.architecture}, {"compute_capabilities", g.ccs}, {"gpus", g.gpus}});
  j["gpu"] = {{"name", a.gpu_name.empty() ? nlohmann::json() : nlohmann::json(a.gpu_name)},
              {"compute_capability", a.gpu_cc ? nlohmann::json(a.gpu_cc->Text()) : nlohmann::json()},
              {"from", a.gpu_from.empty() ? nlohmann::json() : nlohmann::json(a.gpu_from)},
              {"has_it", a.gpu_has_it ? nlohmann::json(*a.gpu_has_it) : nlohmann::json()}};
  if (!a.build_archs.empty()) {
    std::vector<std::string> archs;
    for (const auto& b : a.build_archs) archs.push_back(b.Name());
    j["build"] = {{"archs", archs}};
    if (a.build_verdict) {
      j["build"]["runs"] = a.build_verdict->match == doctor::ArchMatch::kMachineCode ? "machine_code"
                           : a.build_verdict->match == doctor::ArchMatch::kPtxJit   ? "ptx_jit"
                                                                                    : "nothing";
      j["build"]["used"] = a.build_verdict->used.empty() ? nlohmann::json() : nlohmann::json(a.build_verdict->used);
    }
  }
  j["explanation"] = CapabilityLines(a, t);
  return j;
}

std::vector<std::string> ProfileLines(const doctor::TextProfile& p, const report::Texts& t) {
  std::vector<std::string> lines;
  std::string separator = ListSeparator(t);
  lines.push_back(t.Get("explain.profile.reading." + p.reading));
  std::string components = ComponentsLine(p.components, t);
  if (!components.empty()) lines.push_back(components);
  auto part = [&](const char* key, const std::vector<std::string>& items) {
    if (!items.empty()) lines.push_back(Tr(t, key, fmt::arg("list", Join(Quoted(items, t), separator))));
  };
  part("explain.profile.codes", p.codes);
  part("explain.profile.versions", p.versions);
  if (!p.gpus.empty()) {
    std::vector<std::string> names;
    for (const auto& name : p.gpus) names.push_back(GpuNameText(name, t));
    lines.push_back(Tr(t, "explain.profile.gpus", fmt::arg("list", Join(names, separator))));
  }
  part("explain.profile.archs", p.archs);
  part("explain.profile.files", p.files);
  if (!p.layer.empty()) lines.push_back(Tr(t, "explain.profile.layer", fmt::arg("layer", LayerText(p.layer, t))));
  // The heading announces what the text is made of; with nothing found it says so instead.
  if (lines.size() == 1) lines[0] = t.Get("explain.profile.reading." + p.reading + "_bare");
  if (!p.nearest.empty()) {
    lines.push_back(t.Get("explain.profile.nearest"));
    std::string lang = Lang(t);
    for (const auto& n : p.nearest) {
      std::string none = t.Get("explain.profile.none");
      lines.push_back("  " + Tr(t, "explain.profile.near_item", fmt::arg("id", n.entry->id), fmt::arg("title", n.entry->title.In(lang)),
                                 fmt::arg("shared", n.shared.empty() ? none : Join(Quoted(n.shared, t), separator)),
                                 fmt::arg("missing", n.missing.empty() ? none : Join(Quoted(n.missing, t), separator))));
    }
  }
  return lines;
}

nlohmann::json ProfileJson(const doctor::TextProfile& p, const report::Texts& t) {
  nlohmann::json j;
  j["confidence"] = "low";
  j["reading"] = p.reading;
  j["components"] = ComponentsJson(p.components);
  auto valid = [](const std::vector<std::string>& items) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : items) out.push_back(ValidUtf8(i));
    return out;
  };
  j["codes"] = valid(p.codes);
  j["versions"] = valid(p.versions);
  j["gpus"] = valid(p.gpus);
  j["archs"] = valid(p.archs);
  j["files"] = valid(p.files);
  j["layer"] = p.layer.empty() ? nlohmann::json() : nlohmann::json(p.layer);
  j["nearest"] = nlohmann::json::array();
  for (const auto& n : p.nearest) j["nearest"].push_back({{"id", n.entry->id}, {"shared", n.shared}, {"missing", n.missing}});
  j["explanation"] = ProfileLines(p, t);
  return j;
}

}  // namespace gpuprobe::cli

#include "cli/explain_name_view.h"

#include <fmt/format.h>

#include "cli/explain_view.h"
#include "core/strings.h"
#include "model/glossary.h"
#include "report/finding_view.h"
#include "report/json_document.h"
#include "telemetry/findings.h"

namespace gpuprobe::cli {
namespace {

using report::Tr;

// Case, spaces, dashes and full-width marks do not matter: a title pasted from a zh screen
// with （） or typed with ( ) is the same title (the glossary folds names the same way).
std::string Normal(std::string_view text) { return model::GlossaryKey(text); }

// A spec figure as the screens print it; "-" when the database does not know it.
std::string Figure(const model::SpecFigure& f, const char* unit) {
  return f.known() ? fmt::format("{:g} {}", *f.value, unit) : "-";
}

nlohmann::json Number(const model::SpecFigure& f) { return f.known() ? nlohmann::json(*f.value) : nlohmann::json(); }

}  // namespace

std::optional<std::string> FindingTitled(const std::string& text) {
  const std::string want = Normal(text);
  if (want.empty()) return std::nullopt;
  // Both languages: a Chinese reader may paste the English title and the other way round.
  for (report::Language language : {report::Language::kEn, report::Language::kZh}) {
    auto texts = report::Texts::Load(language);
    if (!texts.ok()) continue;
    for (const auto& id : telemetry::FindingIds()) {
      if (Normal(report::FindingTitle(id, *texts)) == want) return id;
    }
  }
  return std::nullopt;
}

std::string RenderFindingName(const std::string& query, const std::string& id, const report::Texts& t) {
  (void)query;
  std::string out = Tr(t, "explain.finding.heading", fmt::arg("title", report::FindingTitle(id, t))) + "\n";
  out += "  " + Tr(t, "explain.finding.meaning", fmt::arg("text", t.Get("finding." + id + ".explain"))) + "\n";
  out += "  " + Tr(t, "explain.finding.next", fmt::arg("text", t.Get("finding." + id + ".next"))) + "\n";
  out += "  " + t.Get("explain.finding.where") + "\n";
  return out;
}

nlohmann::json FindingNameToJson(const std::string& query, const std::string& id, const report::Texts& t) {
  auto doc = report::MakeDocument("explain");
  doc["source"] = "text";
  doc["query"] = ValidUtf8(query);
  doc["verdict"] = "finding_title";
  doc["language"] = report::LanguageCode(t.language());
  doc["finding"] = {{"id", id},
                    {"title", report::FindingTitle(id, t)},
                    {"meaning", t.Get("finding." + id + ".explain")},
                    {"next", t.Get("finding." + id + ".next")},
                    {"command", "gpuprobe inspect"}};
  doc["matches"] = nlohmann::json::array();
  doc["readings"] = nlohmann::json::array();
  return doc;
}

std::string RenderGpuName(const GpuNameAnswer& a, const report::Texts& t) {
  std::string out;
  if (a.gpus.size() == 1) {
    const model::GpuSpec& g = *a.gpus.front();
    out += Tr(t, "explain.gpu.heading", fmt::arg("name", report::QuotedValue(g.name, t)),
              fmt::arg("architecture", report::QuotedValue(g.architecture, t))) + "\n";
    out += "  " + Tr(t, "explain.gpu.figures", fmt::arg("memory", Figure(g.memory_size_gb_vendor, "GB")),
                     fmt::arg("type", report::QuotedValue(g.memory_type, t)),
                     fmt::arg("bandwidth", Figure(g.memory_bandwidth_vendor_gb_per_s, "GB/s")),
                     fmt::arg("bf16", Figure(g.fp16_bf16_tensor_dense_tflops, "TFLOP/s"))) + "\n";
    out += "  " + Tr(t, "explain.gpu.more", fmt::arg("command", fmt::format("gpuprobe gpus show \"{}\"", g.name))) + "\n";
    if (!a.variants.empty()) {
      std::string names;
      for (const model::GpuSpec* v : a.variants) names += (names.empty() ? "" : ", ") + report::QuotedValue(v->name, t);
      out += "  " + Tr(t, "explain.gpu.variants", fmt::arg("names", names)) + "\n";
    }
    return out;
  }
  out += Tr(t, "explain.gpu.several", fmt::arg("query", ValidUtf8(a.query))) + "\n";
  for (const model::GpuSpec* g : a.gpus) {
    out += fmt::format("  gpuprobe gpus show \"{}\"\n", g->name);
  }
  return out;
}

nlohmann::json GpuNameToJson(const GpuNameAnswer& a, const report::Texts& t) {
  auto doc = report::MakeDocument("explain");
  doc["source"] = "text";
  doc["query"] = ValidUtf8(a.query);
  doc["verdict"] = "gpu_name";
  doc["language"] = report::LanguageCode(t.language());
  nlohmann::json gpus = nlohmann::json::array();
  for (const model::GpuSpec* g : a.gpus) {
    gpus.push_back({{"name", g->name},
                    {"architecture", g->architecture},
                    {"memory_gb", Number(g->memory_size_gb_vendor)},
                    {"memory_type", g->memory_type},
                    {"memory_bandwidth_gb_per_s", Number(g->memory_bandwidth_vendor_gb_per_s)},
                    {"bf16_dense_tflops", Number(g->fp16_bf16_tensor_dense_tflops)},
                    {"command", fmt::format("gpuprobe gpus show \"{}\"", g->name)}});
  }
  doc["gpus"] = gpus;
  nlohmann::json variants = nlohmann::json::array();
  for (const model::GpuSpec* v : a.variants) variants.push_back(v->name);
  doc["also_fits"] = variants;
  doc["matches"] = nlohmann::json::array();
  doc["readings"] = nlohmann::json::array();
  return doc;
}

}  // namespace gpuprobe::cli

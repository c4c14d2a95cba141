#include "cli/explain_term_view.h"

#include <algorithm>
#include <fmt/format.h>

#include "cli/explain_view.h"
#include "core/strings.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

using report::Tr;

bool Chinese(const report::Texts& t) { return t.language() == report::Language::kZh; }

}  // namespace

std::string TermName(const model::GlossaryTerm& term, bool zh) {
  const std::string& title = term.title.In(zh);
  std::string_view head(title);
  head = head.substr(0, std::min(head.find('('), head.find("\xEF\xBC\x88")));  // ( or zh's （
  // A title naming two things ("FLOP/s, TFLOP/s", "A vs B", "A 与 B") shows the first
  // (tools/check_glossary.py's title_labels splits the same way).
  for (std::string_view separator : {",", "\xEF\xBC\x8C", " and ", " vs ", "、", "与", "和"}) head = head.substr(0, head.find(separator));
  // Quotes stay: a screen's label quoted in Chinese ('CUDA Version') is found with them too.
  std::string name = core::Trim(head);
  return name.empty() ? term.names.front() : name;
}

namespace {

const model::GlossaryGroup* GroupOf(const model::Glossary& g, const std::string& id) {
  for (const auto& group : g.groups()) {
    if (group.id == id) return &group;
  }
  return nullptr;
}

std::vector<std::string> SeeAlsoNames(const model::GlossaryTerm& term, const model::Glossary& g, bool zh) {
  std::vector<std::string> names;
  for (const auto& id : term.see_also) {
    if (const auto* other = g.ById(id)) names.push_back(TermName(*other, zh));
  }
  return names;
}

std::string Quoted(const std::string& text, const report::Texts& t) { return Tr(t, "explain.quoted", fmt::arg("text", text)); }

}  // namespace

std::string RenderTerm(const TermAnswer& a, const model::Glossary& g, const report::Texts& t) {
  const bool zh = Chinese(t);
  const model::GlossaryTerm& term = *a.term;
  const model::GlossaryGroup* group = GroupOf(g, term.group);
  std::string out = Tr(t, "explain.term.heading", fmt::arg("title", term.title.In(zh)),
                       fmt::arg("group", group != nullptr ? group->title.In(zh) : term.group)) + "\n";
  out += "  " + Tr(t, "explain.term.meaning", fmt::arg("text", term.meaning.In(zh))) + "\n";
  out += "  " + Tr(t, "explain.term.analogy", fmt::arg("text", term.analogy.In(zh))) + "\n";
  out += "  " + Tr(t, "explain.term.command", fmt::arg("command", term.command)) + "\n";
  if (term.normal) {
    out += "  " + Tr(t, "explain.term.normal", fmt::arg("text", term.normal->text.In(zh)), fmt::arg("source", Quoted(term.normal->source, t))) + "\n";
  }
  auto see_also = SeeAlsoNames(term, g, zh);
  if (!see_also.empty()) out += "  " + Tr(t, "explain.term.see_also", fmt::arg("names", core::Join(see_also, t.Get("explain.list_separator")))) + "\n";
  if (!term.sources.empty()) {
    // A source is data (a path, a URL, a paper's citation): quoted as the language quotes it.
    std::vector<std::string> sources;
    for (const auto& source : term.sources) sources.push_back(Quoted(source, t));
    out += "  " + Tr(t, "explain.term.sources", fmt::arg("sources", core::Join(sources, t.Get("explain.term.source_separator")))) + "\n";
  }
  if (!a.also_error_key.empty()) {
    out += "  " + Tr(t, "explain.term.also_error", fmt::arg("title", ValidUtf8(a.also_error_title)), fmt::arg("query", ValidUtf8(a.query))) + "\n";
  }
  return out;
}

nlohmann::json TermToJson(const TermAnswer& a, const model::Glossary& g, const report::Texts& t) {
  const bool zh = Chinese(t);
  const model::GlossaryTerm& term = *a.term;
  const model::GlossaryGroup* group = GroupOf(g, term.group);
  auto doc = report::MakeDocument("explain");
  doc["source"] = "text";
  doc["query"] = ValidUtf8(a.query);
  doc["verdict"] = "term";
  doc["language"] = report::LanguageCode(t.language());
  nlohmann::json j = {{"id", term.id},
                      {"group", term.group},
                      {"group_title", group != nullptr ? group->title.In(zh) : term.group},
                      {"title", term.title.In(zh)},
                      {"names", term.names},
                      {"meaning", term.meaning.In(zh)},
                      {"analogy", term.analogy.In(zh)},
                      {"command", term.command},
                      {"see_also", term.see_also},
                      {"sources", term.sources}};
  j["normal"] = term.normal ? nlohmann::json{{"text", term.normal->text.In(zh)}, {"source", term.normal->source}} : nlohmann::json();
  doc["term"] = j;
  doc["also_error"] = a.also_error_key.empty() ? nlohmann::json()
                                               : nlohmann::json{{"id", a.also_error_key}, {"title", ValidUtf8(a.also_error_title)}};
  // The keys of an error answer, empty, so a reader of gpuprobe.explain.v1 needs no branch to
  // find that nothing was matched as an error.
  doc["matches"] = nlohmann::json::array();
  doc["readings"] = nlohmann::json::array();
  return doc;
}

std::string RenderTermList(const model::Glossary& g, const report::Texts& t) {
  const bool zh = Chinese(t);
  std::string out = Tr(t, "explain.terms.heading", fmt::arg("count", g.terms().size())) + "\n";
  for (const auto& group : g.groups()) {
    out += "\n" + group.title.In(zh) + "\n";
    for (const auto& term : g.terms()) {
      // The title starts with a name the reader can type back.
      if (term.group == group.id) out += "  " + term.title.In(zh) + "\n";
    }
  }
  return out + "\n" + t.Get("explain.terms.hint") + "\n";
}

nlohmann::json TermListToJson(const model::Glossary& g, const report::Texts& t) {
  const bool zh = Chinese(t);
  auto doc = report::MakeDocument("explain_terms");
  doc["language"] = report::LanguageCode(t.language());
  doc["count"] = g.terms().size();
  doc["groups"] = nlohmann::json::array();
  for (const auto& group : g.groups()) {
    nlohmann::json terms = nlohmann::json::array();
    for (const auto& term : g.terms()) {
      if (term.group == group.id) terms.push_back({{"id", term.id}, {"name", TermName(term, zh)}, {"title", term.title.In(zh)}});
    }
    doc["groups"].push_back({{"id", group.id}, {"title", group.title.In(zh)}, {"terms", terms}});
  }
  return doc;
}

}  // namespace gpuprobe::cli

#include "cli/explain_answer.h"

#include "cli/command.h"
#include "cli/explain_story.h"

namespace gpuprobe::cli {
namespace {

using doctor::Finding;
using doctor::StatusCode;

std::string Lang(const report::Texts& t) { return report::LanguageCode(t.language()); }

// A text holding several commands, one per line.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string ApiId(const StatusCode& s) { return s.api == doctor::kApiCudaRuntimeLegacy ? doctor::kApiCudaRuntime : s.api; }

// The API's name as the reader's language writes it ("CUDA runtime", "CUDA 运行时").
std::string LibraryName(const std::string& api_id, const doctor::StatusTable& table, const report::Texts& t) {
  std::string key = "explain.library." + api_id;
  if (t.Has(key)) return t.Get(key);
  const doctor::StatusApi* api = table.Api(api_id);
  return api != nullptr ? api->library : api_id;
}

std::string Library(const StatusCode& s, const doctor::StatusTable& table, const report::Texts& t) {
  return LibraryName(ApiId(s), table, t);
}

std::string StatusFact(const StatusCode& s, const doctor::StatusTable& table, const report::Texts& t) {
  if (s.api == doctor::kApiCudaRuntimeLegacy) {
    const StatusCode* current = table.FindName(s.name);
    return Tr(t, "explain.status.legacy_line", fmt::arg("name", s.name), fmt::arg("value", s.value),
              fmt::arg("current", current != nullptr ? current->value : s.value));
  }
  const doctor::StatusApi* api = table.Api(s.api);
  return Tr(t, "explain.status.line", fmt::arg("name", s.name), fmt::arg("value", s.value),
            fmt::arg("library", LibraryName(s.api, table, t)), fmt::arg("type", api != nullptr ? api->type : ""));
}

std::string DataWrong(const std::optional<bool>& data) {
  if (!data) return "explain.xid.data.unknown";
  return *data ? "explain.xid.data.yes" : "explain.xid.data.no";
}

void XidAnswer(const Finding& f, const doctor::ErrorMatcher& m, const report::Texts& t, AnswerText& a) {
  const doctor::XidEvent& x = *f.xid;
  const doctor::XidInfo* info = f.xid_info;
  a.source_url = m.xids().CatalogueUrl(x.nvswitch);
  if (info != nullptr) {
    a.facts.push_back(Tr(t, "explain.xid.facts", fmt::arg("category", t.Get("explain.xid.category." + info->category)),
                         fmt::arg("action", t.Get("explain.xid.action." + info->action)),
                         fmt::arg("data", t.Get(DataWrong(info->data_may_be_wrong)))));
    if (info->status == "unused") a.facts.push_back(t.Get("explain.xid.unused"));
  }
  if (x.caused_by) a.facts.push_back(Tr(t, "explain.xid.caused_by", fmt::arg("number", *x.caused_by)));
  if (f.entry != nullptr) return;
  const char* kind = x.nvswitch ? "sxid" : "xid";
  if (info == nullptr) {
    a.title = Tr(t, std::string("explain.") + kind + ".unknown_title", fmt::arg("number", x.number));
    a.meaning = Tr(t, std::string("explain.") + kind + ".unknown_meaning", fmt::arg("number", x.number),
                   fmt::arg("max", m.xids().max_xid()), fmt::arg("url", a.source_url));
    a.causes.push_back(t.Get("explain.xid.unknown_cause"));
    a.fixes.push_back(t.Get("explain.xid.unknown_fix"));
  } else {
    a.title = Tr(t, std::string("explain.") + kind + ".title", fmt::arg("number", x.number), fmt::arg("name", info->name));
    a.meaning = Tr(t, "explain.xid.catalogue_meaning", fmt::arg("description", info->description));
    a.causes.push_back(t.Get("explain.xid.category_cause." + info->category));
    a.fixes.push_back(t.Get("explain.xid.action_fix." + info->action));
    if (!info->action_text.empty()) a.fixes.push_back(Tr(t, "explain.xid.nvidia_action", fmt::arg("text", info->action_text)));
  }
  a.confirm = Lines(t.Get(std::string("explain.") + kind + ".confirm"));
}

void StatusAnswer(const StatusCode& found, const doctor::ErrorMatcher& m, const report::Texts& t, AnswerText& a) {
  const StatusCode& s = m.statuses().Canonical(found);
  const doctor::StatusApi* api = m.statuses().Api(ApiId(s));
  std::string library = Library(s, m.statuses(), t);
  a.title = Tr(t, "explain.status.title", fmt::arg("library", library), fmt::arg("name", s.name), fmt::arg("value", s.value));
  a.meaning = s.doc.empty() ? Tr(t, "explain.status.no_doc", fmt::arg("header", api != nullptr ? api->header : ""))
                            : Tr(t, "explain.status.header_doc", fmt::arg("header", api != nullptr ? api->header : ""),
                                 fmt::arg("doc", s.doc));
  a.causes.push_back(Tr(t, "explain.status.cause", fmt::arg("library", library)));
  a.fixes.push_back(t.Get("explain.status.advice." + ApiId(s)));
  a.confirm = Lines(t.Get("explain.status.confirm." + ApiId(s)));
}

// An error of the host (generated table): the errno and/or Python exception, in the
// reader's language (glibc's own Chinese message where it has one).
void HostAnswer(const doctor::HostError& h, const report::Texts& t, AnswerText& a) {
  const bool zh = t.language() == report::Language::kZh;
  a.gpu = false;
  a.facts.push_back(t.Get("explain.not_gpu"));
  auto os_args = [&](const char* key) {
    const auto& e = *h.os;
    std::string message = zh && !e.message_zh.empty()
                              ? Tr(t, "explain.host.os.message_translated", fmt::arg("message", e.message_zh), fmt::arg("original", e.message))
                              : e.message;
    return Tr(t, key, fmt::arg("name", e.name), fmt::arg("number", e.number), fmt::arg("message", message));
  };
  // A standard-library exception is named with its module; its docstring may say nothing.
  auto python_args = [&](std::string key) {
    const auto& p = *h.python;
    if (!p.module.empty() && (key == "explain.host.python.meaning" || key == "explain.host.python.fact")) key += "_module";
    std::string doc = p.doc.empty() ? std::string() : Tr(t, "explain.host.python.doc_part", fmt::arg("doc", p.doc));
    return Tr(t, key, fmt::arg("name", p.name), fmt::arg("base", p.base), fmt::arg("doc", p.doc), fmt::arg("module", p.module),
              fmt::arg("doc_part", doc));
  };
  if (h.os != nullptr) a.facts.push_back(os_args("explain.host.os.fact"));
  if (h.python != nullptr) a.facts.push_back(python_args("explain.host.python.fact"));
  if (h.OsLeads()) {
    a.title = os_args("explain.host.os.title");
    a.meaning = os_args("explain.host.os.meaning");
    a.causes.push_back(os_args("explain.host.os.cause"));
    a.confirm = Lines(os_args("explain.host.os.confirm"));
    a.fixes.push_back(os_args("explain.host.os.fix"));
  } else {
    a.title = python_args("explain.host.python.title");
    a.meaning = python_args("explain.host.python.meaning");
    a.causes.push_back(python_args("explain.host.python.cause"));
    a.confirm = Lines(python_args("explain.host.python.confirm"));
    a.fixes.push_back(python_args("explain.host.python.fix"));
  }
}

}  // namespace

AnswerText Answer(const Finding& f, const doctor::ErrorMatcher& m, const report::Texts& t) {
  AnswerText a;
  std::string lang = Lang(t);
  a.id = f.key;
  a.severity = f.severity;
  if (f.status != nullptr) {
    a.facts.push_back(StatusFact(*f.status, m.statuses(), t));
    const StatusCode& canonical = m.statuses().Canonical(*f.status);
    if (!canonical.message.empty()) a.facts.push_back(Tr(t, "explain.status.printed", fmt::arg("message", canonical.message)));
  }
  if (!f.origin_file.empty()) {
    a.facts.push_back(Tr(t, "explain.status.origin", fmt::arg("library", LibraryName(f.origin_api, m.statuses(), t)),
                         fmt::arg("subsystem", f.origin_subsystem), fmt::arg("file", f.origin_file)));
  }
  if (f.host) HostAnswer(*f.host, t, a);
  if (f.xid) XidAnswer(f, m, t, a);
  if (f.entry != nullptr) {
    const doctor::KnowledgeEntry& e = *f.entry;
    a.entry = e.id;
    a.gpu = e.gpu;
    if (!e.gpu) a.facts.insert(a.facts.begin(), t.Get("explain.not_gpu"));
    if (!e.layer.empty()) a.facts.push_back(Tr(t, "explain.layer_line", fmt::arg("layer", LayerText(e.layer, t))));
    a.title = e.title.In(lang);
    a.meaning = e.meaning.In(lang);
    if (f.status != nullptr) {
      auto note = e.status_notes.find(m.statuses().Canonical(*f.status).name);
      if (note != e.status_notes.end()) a.meaning = note->second.In(lang) + " " + a.meaning;
    }
    for (const auto& c : e.causes) a.causes.push_back(c.In(lang));
    for (const auto& x : e.fixes) a.fixes.push_back(x.In(lang));
    for (const auto& c : e.confirm) a.confirm.push_back(c.In(lang));
  } else if (!f.xid && f.status != nullptr) {
    StatusAnswer(*f.status, m, t, a);
  }
  return a;
}

std::string ReadingTitle(const Finding& f, const doctor::ErrorMatcher& m, const report::Texts& t) {
  AnswerText a = Answer(f, m, t);
  if (f.status == nullptr || f.entry == nullptr) return a.title;
  return a.title + " (" + f.status->name + ")";
}

}  // namespace gpuprobe::cli

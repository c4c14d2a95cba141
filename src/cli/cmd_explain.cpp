// `gpuprobe explain "TEXT"` / `explain --from LOGFILE` / `explain --list`: what an error means,
// its likely causes, the commands that tell them apart, and the fixes.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "core/file_io.h"
#include "core/units.h"
#include "doctor/knowledge_base.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Examples:
  gpuprobe explain "CUDA error: an illegal memory access was encountered"
  gpuprobe explain "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacity of 15.77 GiB of which 959.44 MiB is free. ..."
  gpuprobe explain "Xid 79"
  gpuprobe explain --from /var/log/kern.log         every known error in a log, Xid lines included
  journalctl -k | gpuprobe explain --from -
  gpuprobe explain --list

Exit status: 0 explained; 1 no known error in the text (the closest entries are listed); 2 bad input.)";

constexpr std::uint64_t kMaxLogBytes = 256ull << 20;

struct ExplainOptions {
  std::vector<std::string> words;
  std::string from;
  bool list = false;
};

std::string Lang(const report::Texts& t) { return report::LanguageCode(t.language()); }

nlohmann::json EntryJson(const doctor::KnowledgeEntry& e, const std::string& lang) {
  nlohmann::json causes = nlohmann::json::array(), fixes = nlohmann::json::array();
  for (const auto& c : e.causes) causes.push_back(c.In(lang));
  for (const auto& f : e.fixes) fixes.push_back(f.In(lang));
  return {{"id", e.id}, {"severity", e.severity}, {"title", e.title.In(lang)}, {"meaning", e.meaning.In(lang)},
          {"causes", causes}, {"confirm", e.confirm}, {"fixes", fixes}};
}

std::string RenderEntry(const doctor::KnowledgeEntry& e, const report::Texts& t) {
  std::string lang = Lang(t);
  std::string out = fmt::format("[{}] {}\n  {}\n", e.severity, e.title.In(lang), e.meaning.In(lang));
  out += "  " + t.Get("explain.causes") + "\n";
  int rank = 1;
  for (const auto& c : e.causes) out += fmt::format("    {}. {}\n", rank++, c.In(lang));
  out += "  " + t.Get("explain.confirm") + "\n";
  for (const auto& c : e.confirm) out += "    $ " + c + "\n";
  out += "  " + t.Get("explain.fixes") + "\n";
  for (const auto& f : e.fixes) out += "    - " + f.In(lang) + "\n";
  return out;
}

std::string OomStory(const doctor::OomDetails& d, const report::Texts& t) {
  return Tr(t, "explain.oom." + d.diagnosis, fmt::arg("requested", core::FormatBytesBinary(d.requested_bytes)),
            fmt::arg("free", core::FormatBytesBinary(d.free_bytes)), fmt::arg("total", core::FormatBytesBinary(d.total_bytes)),
            fmt::arg("reserved", core::FormatBytesBinary(d.reserved_unallocated_bytes.value_or(0))));
}

core::Result<core::ExitCode> RunExplain(VerbContext& ctx, const ExplainOptions& o) {
  auto kb_result = doctor::KnowledgeBase::Embedded();
  if (!kb_result.ok()) return kb_result.status();
  const doctor::KnowledgeBase& kb = **kb_result;
  const auto& t = ctx.texts;
  std::string lang = Lang(t);
  if (o.list) {
    if (ctx.options.json) {
      auto doc = report::MakeDocument("explain_list");
      doc["entries"] = nlohmann::json::array();
      for (const auto& e : kb.entries()) doc["entries"].push_back({{"id", e.id}, {"title", e.title.In(lang)}, {"severity", e.severity}});
      ctx.out << report::RenderJson(doc);
    } else {
      report::TextTable table({"id", t.Get("explain.list.severity"), t.Get("explain.list.title")});
      for (const auto& e : kb.entries()) table.AddRow({e.id, e.severity, e.title.In(lang)});
      ctx.out << table.Render();
    }
    return core::ExitCode::kOk;
  }
  std::string text;
  std::string label;
  if (!o.from.empty()) {
    if (!o.words.empty()) return core::Status::InvalidArgument("give the error as TEXT or --from FILE, not both");
    auto file = core::ReadTextFile(o.from, kMaxLogBytes);
    if (!file.ok()) return file.status();
    text = std::move(file.value());
    label = o.from == "-" ? "standard input" : o.from;
  } else {
    for (const auto& w : o.words) text += (text.empty() ? "" : " ") + w;
    if (text.empty()) {
      return core::Status::InvalidArgument("give the error text to explain, --from LOGFILE, or --list",
                                           "gpuprobe explain \"CUDA out of memory\"");
    }
  }
  auto hits = kb.Match(text);
  auto oom = doctor::ParseOutOfMemory(text);
  if (ctx.options.json) {
    auto doc = report::MakeDocument("explain");
    doc["source"] = label.empty() ? "text" : label;
    doc["matches"] = nlohmann::json::array();
    for (const auto& h : hits) {
      nlohmann::json m = EntryJson(*h.entry, lang);
      m["first_line"] = h.first_line;
      m["occurrences"] = h.occurrences;
      m["excerpt"] = h.excerpt;
      doc["matches"].push_back(m);
    }
    if (oom) {
      doc["out_of_memory"] = {{"requested_bytes", oom->requested_bytes}, {"total_bytes", oom->total_bytes}, {"free_bytes", oom->free_bytes},
                              {"diagnosis", oom->diagnosis}, {"explanation", OomStory(*oom, t)}};
    }
    if (hits.empty()) {
      doc["closest"] = nlohmann::json::array();
      for (const auto* e : kb.Closest(text)) doc["closest"].push_back(e->id);
    }
    ctx.out << report::RenderJson(doc);
    return hits.empty() ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
  }
  if (hits.empty()) {
    ctx.out << t.Get("explain.unknown") << "\n";
    auto closest = kb.Closest(text);
    if (!closest.empty()) {
      ctx.out << t.Get("explain.closest") << "\n";
      for (const auto* e : closest) ctx.out << fmt::format("  {}  {}\n", e->id, e->title.In(lang));
    }
    ctx.out << t.Get("explain.list_hint") << "\n";
    return core::ExitCode::kProblemsFound;
  }
  std::string out;
  if (!label.empty()) out += Tr(t, "explain.found", fmt::arg("count", hits.size()), fmt::arg("source", label)) + "\n\n";
  for (const auto& h : hits) {
    if (!label.empty()) {
      out += Tr(t, "explain.where", fmt::arg("line", h.first_line), fmt::arg("count", h.occurrences)) + "\n    " + h.excerpt + "\n";
    }
    out += RenderEntry(*h.entry, t);
    if (h.entry->id == "cuda_out_of_memory" && oom) out += "  => " + OomStory(*oom, t) + "\n";
    out += "\n";
  }
  ctx.out << out;
  return core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupExplainVerb(CLI::App* command) {
  auto o = std::make_shared<ExplainOptions>();
  command->footer(kFooter);
  command->add_option("text", o->words, "the error message (quote it)");
  command->add_option("--from", o->from, "a log file to scan ('-' = standard input)");
  command->add_flag("--list", o->list, "every error the knowledge base knows");
  return [o](VerbContext& ctx) { return RunExplain(ctx, *o); };
}

}  // namespace gpuprobe::cli

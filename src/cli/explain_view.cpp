#include "cli/explain_view.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/explain_answer.h"
#include "cli/explain_story.h"
#include "doctor/library_messages.h"
#include "core/strings.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

// The summary table's GPU cell: three addresses, then how many more (the list under the table
// names them all); a storm over many GPUs keeps the table readable.
std::string SummaryGpus(const doctor::Hit& h, const report::Texts& t) {
  constexpr size_t kShown = 3;
  if (h.gpus.size() <= kShown) return ValidUtf8(core::Join(h.gpus, " "));
  std::vector<std::string> first(h.gpus.begin(), h.gpus.begin() + kShown);
  const size_t more = h.gpus.size() - kShown;
  return ValidUtf8(core::Join(first, " ")) + " " +
         Tr(t, h.gpus.size() >= doctor::kMaxListedGpus ? "explain.summary.more_gpus_or_more" : "explain.summary.more_gpus",
            fmt::arg("count", more));
}

// The severity word in the reader's language ("fail" -> 失败); an unknown one as it is.
std::string SeverityWord(const report::Texts& t, const std::string& severity) {
  if (severity == "fail" || severity == "warn" || severity == "info" || severity == "ok") {
    return t.Get("common.severity." + severity);
  }
  return severity;
}

using doctor::Finding;
using doctor::Hit;

using core::Join;

// Statuses in today's numbering (the pre-10.1 rows repeat current names).
size_t CurrentStatuses(const doctor::ErrorMatcher& m) {
  size_t n = 0;
  for (const auto& s : m.statuses().statuses()) n += s.api != doctor::kApiCudaRuntimeLegacy;
  return n;
}

std::string Bytes(const std::optional<double>& bytes) { return bytes ? core::FormatBytesBinary(*bytes) : "?"; }

std::string OomStory(const doctor::OomDetails& d, const report::Texts& t) {
  return Tr(t, "explain.oom." + d.diagnosis, fmt::arg("requested", core::FormatBytesBinary(d.requested_bytes)),
            fmt::arg("free", Bytes(d.free_bytes)), fmt::arg("total", Bytes(d.total_bytes)),
            fmt::arg("reserved", Bytes(d.reserved_unallocated_bytes)), fmt::arg("allocated", Bytes(d.allocated_bytes)),
            fmt::arg("mine", Bytes(d.this_process_bytes)));
}

std::string VersionText(const doctor::VersionStory& s, const report::Texts& t) {
  auto arg = [&s](const char* key) {
    auto it = s.args.find(key);
    return it == s.args.end() ? std::string() : it->second;
  };
  std::string key = "explain.version." + s.kind;
  // Without a row in the compatibility table the minimum driver is not known.
  if ((s.kind == "driver_ceiling" && arg("min_driver_for_ceiling").empty()) || (s.kind == "container_requirement" && arg("min_driver").empty())) {
    key += "_unlisted";
  }
  std::string text = Tr(t, key, fmt::arg("ceiling", arg("ceiling")), fmt::arg("min_driver_for_ceiling", arg("min_driver_for_ceiling")),
                        fmt::arg("cuda", arg("cuda")), fmt::arg("min_driver", arg("min_driver")), fmt::arg("library", arg("library")),
                        fmt::arg("module", arg("module")), fmt::arg("name", arg("name")), fmt::arg("loaded", arg("loaded")),
                        fmt::arg("built", arg("built")));
  if (!arg("driver").empty()) text += Tr(t, "explain.version.host_driver", fmt::arg("driver", arg("driver")));
  return text;
}

// "cmd (what to look for)" as a line a user can paste: the trailing note becomes a shell
// comment ("$ cmd  # what to look for"), and backticks around the command go. A trailing
// group is a note when it holds non-ASCII text (a zh note, glued or not) or, after a space,
// words (so "print(torch.cuda.is_available())" stays the command it is).
std::string ConfirmLine(const std::string& text) {
  static const std::string kOpen = "\xEF\xBC\x88", kClose = "\xEF\xBC\x89";  // full-width （ ）, as zh writes a note
  std::string cmd = text, note;
  while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
  if (cmd.size() > kClose.size() && cmd.compare(cmd.size() - kClose.size(), kClose.size(), kClose) == 0) {
    size_t open = cmd.rfind(kOpen);
    if (open != std::string::npos && open > 0) {
      note = cmd.substr(open + kOpen.size(), cmd.size() - kClose.size() - open - kOpen.size());
      cmd.erase(open);
      while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
    }
  } else if (!cmd.empty() && cmd.back() == ')') {
    int depth = 0;
    size_t open = std::string::npos;
    for (size_t i = cmd.size(); i-- > 0;) {
      if (cmd[i] == ')') ++depth;
      if (cmd[i] == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
    if (open != std::string::npos && open > 0) {
      std::string inside = cmd.substr(open + 1, cmd.size() - open - 2);
      const bool non_ascii = std::any_of(inside.begin(), inside.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
      const bool words = cmd[open - 1] == ' ' && inside.find(' ') != std::string::npos;
      if (non_ascii || words) {
        note = inside;
        cmd.erase(open);
        while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
      }
    }
  }
  if (cmd.size() >= 2 && cmd.front() == '`' && cmd.back() == '`') cmd = cmd.substr(1, cmd.size() - 2);
  return note.empty() ? cmd : cmd + "  # " + note;
}

std::string RenderAnswer(const AnswerText& a, const report::Texts& t) {
  std::string out = fmt::format("[{}] {}\n", SeverityWord(t, a.severity), ValidUtf8(a.title));
  for (const auto& fact : a.facts) out += "  " + ValidUtf8(fact) + "\n";
  out += "  " + a.meaning + "\n";
  out += "  " + t.Get("explain.causes") + "\n";
  int rank = 1;
  for (const auto& c : a.causes) out += fmt::format("    {}. {}\n", rank++, c);
  if (!a.confirm.empty()) {
    out += "  " + t.Get("explain.confirm") + "\n";
    for (const auto& c : a.confirm) out += "    $ " + ConfirmLine(c) + "\n";
  }
  out += "  " + t.Get("explain.fixes") + "\n";
  for (const auto& f : a.fixes) out += "    - " + f + "\n";
  if (!a.source_url.empty()) out += "  " + Tr(t, "explain.xid.source", fmt::arg("url", a.source_url)) + "\n";
  return out;
}

std::string HitWhere(const Hit& h, const report::Texts& t) {
  std::string out;
  if (!h.first_time.empty() && !h.last_time.empty() && h.last_time != h.first_time) {
    out = Tr(t, "explain.where_time", fmt::arg("line", h.first_line), fmt::arg("count", h.occurrences),
             fmt::arg("first", ValidUtf8(h.first_time)), fmt::arg("last", ValidUtf8(h.last_time.empty() ? h.first_time : h.last_time)));
  } else {
    out = Tr(t, "explain.where", fmt::arg("line", h.first_line), fmt::arg("count", h.occurrences));
  }
  out += "\n    " + ValidUtf8(h.excerpt) + "\n";
  if (!h.gpus.empty()) out += "  " + Tr(t, "explain.xid.gpus", fmt::arg("gpus", ValidUtf8(Join(h.gpus, ", ")))) + "\n";
  if (!h.processes.empty()) out += "  " + Tr(t, "explain.xid.processes", fmt::arg("processes", ValidUtf8(Join(h.processes, ", ")))) + "\n";
  return out;
}

// "probably a consequence of ...": a symptom found beside its cause (Hit::follows).
std::string FollowsLine(const Hit& h, const std::vector<Hit>& hits, const doctor::ErrorMatcher& m, const report::Texts& t) {
  if (h.follows < 0 || static_cast<size_t>(h.follows) >= hits.size()) return {};
  const Hit& cause = hits[static_cast<size_t>(h.follows)];
  return "  " + Tr(t, "explain.follows", fmt::arg("title", ValidUtf8(Answer(cause.finding, m, t).title)),
                   fmt::arg("line", cause.first_line)) + "\n";
}

std::string OtherReadings(const Finding& f, const doctor::ErrorMatcher& m, const report::Texts& t) {
  if (f.other_readings.empty()) return {};
  std::string out = "  " + Tr(t, "explain.other_readings", fmt::arg("value", f.status->value)) + "\n";
  for (const auto* s : f.other_readings) out += "    - " + ReadingTitle(m.ForStatus(*s, doctor::Evidence::kNumber), m, t) + "\n";
  return out;
}

std::string Stories(const ExplainResult& r, const Hit& h, const report::Texts& t) {
  std::string out;
  bool oom = h.finding.entry != nullptr && h.finding.entry->id == "cuda_out_of_memory";
  if (oom && r.oom) out += "  => " + OomStory(*r.oom, t) + "\n";
  for (const auto& v : r.versions) out += "  => " + VersionText(v, t) + "\n";
  if (r.capability && doctor::IsGpuFinding(h.finding)) {
    bool first = true;
    for (const auto& line : CapabilityLines(*r.capability, t)) {
      out += (first || line.rfind("  ", 0) != 0 ? "  => " : "     ") + line + "\n";
      first = false;
    }
  }
  return out;
}

std::string RenderLog(const ExplainResult& r, const doctor::ErrorMatcher& m, const report::Texts& t) {
  const auto& hits = r.analysis.hits;
  std::string out = Tr(t, "explain.found", fmt::arg("count", hits.size()), fmt::arg("source", ValidUtf8(r.source)),
                       fmt::arg("lines", r.analysis.lines)) + "\n\n";
  report::TextTable table({t.Get("explain.summary.severity"), t.Get("explain.summary.count"), t.Get("explain.summary.when"),
                           t.Get("explain.summary.gpus"), t.Get("explain.summary.error")});
  table.SetAlign(1, report::Align::kRight);
  for (const auto& h : hits) {
    std::string when = h.first_time.empty() ? (h.first_line == h.last_line ? Tr(t, "explain.summary.line", fmt::arg("line", h.first_line))
                                                                           : Tr(t, "explain.summary.lines", fmt::arg("first", h.first_line), fmt::arg("last", h.last_line)))
                       : h.last_time.empty() || h.last_time == h.first_time ? ValidUtf8(h.first_time)
                                                                            : ValidUtf8(h.first_time) + " .. " + ValidUtf8(h.last_time);
    table.AddRow({SeverityWord(t, h.finding.severity), std::to_string(h.occurrences), when, SummaryGpus(h, t),
                  ValidUtf8(Answer(h.finding, m, t).title)});
  }
  out += table.Render(2) + "\n";
  for (const auto& h : hits) {
    out += HitWhere(h, t);
    out += FollowsLine(h, hits, m, t);
    out += RenderAnswer(Answer(h.finding, m, t), t);
    out += OtherReadings(h.finding, m, t);
    out += Stories(r, h, t) + "\n";
  }
  return out;
}

nlohmann::json AnswerJson(const Finding& f, const doctor::ErrorMatcher& m, const report::Texts& t) {
  AnswerText a = Answer(f, m, t);
  nlohmann::json j = {{"id", a.id},         {"entry", a.entry.empty() ? nlohmann::json() : nlohmann::json(a.entry)},
                      {"severity", a.severity}, {"title", a.title}, {"facts", a.facts}, {"meaning", a.meaning},
                      {"causes", a.causes}, {"confirm", a.confirm}, {"fixes", a.fixes}, {"gpu_related", a.gpu}};
  j["layer"] = f.entry != nullptr && !f.entry->layer.empty() ? nlohmann::json(f.entry->layer) : nlohmann::json();
  if (f.host) {
    j["layer"] = "host";
    nlohmann::json host = nlohmann::json::object();
    if (f.host->os != nullptr) {
      host["errno"] = {{"name", f.host->os->name}, {"number", f.host->os->number}, {"message", f.host->os->message}};
    }
    if (f.host->python != nullptr) {
      const auto& py = *f.host->python;
      host["python_exception"] = {{"name", py.name}, {"base", py.base}, {"doc", py.doc},
                                  {"module", py.module.empty() ? nlohmann::json() : nlohmann::json(py.module)}};
    }
    j["host"] = host;
  }
  j["origin"] = f.origin_file.empty() ? nlohmann::json()
                                      : nlohmann::json({{"api", f.origin_api}, {"subsystem", f.origin_subsystem}, {"file", f.origin_file}});
  if (f.status != nullptr) {
    const doctor::StatusCode& s = *f.status;
    const doctor::StatusApi* api = m.statuses().Api(s.api == doctor::kApiCudaRuntimeLegacy ? doctor::kApiCudaRuntime : s.api);
    j["status"] = {{"api", s.api},   {"library", api != nullptr ? api->library : s.api}, {"name", s.name}, {"value", s.value},
                   {"message", s.message}, {"doc", s.doc}, {"condition", m.statuses().Canonical(s).name}};
  }
  if (f.xid) {
    const doctor::XidInfo* info = f.xid_info;
    j["xid"] = {{"number", f.xid->number}, {"nvswitch", f.xid->nvswitch}, {"in_catalogue", info != nullptr},
                {"name", info != nullptr ? info->name : ""}, {"category", info != nullptr ? info->category : ""},
                {"action", info != nullptr ? info->action : ""}, {"source", a.source_url}};
    j["xid"]["data_may_be_wrong"] = info != nullptr && info->data_may_be_wrong ? nlohmann::json(*info->data_may_be_wrong) : nlohmann::json();
    j["xid"]["caused_by"] = f.xid->caused_by ? nlohmann::json(*f.xid->caused_by) : nlohmann::json();
  }
  if (!f.other_readings.empty()) {
    j["other_readings"] = nlohmann::json::array();
    for (const auto* s : f.other_readings) j["other_readings"].push_back(AnswerJson(m.ForStatus(*s, doctor::Evidence::kNumber), m, t)["id"]);
  }
  return j;
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (valid && length > 1) {
      // Overlong forms, surrogates and values past U+10FFFF are invalid too.
      unsigned int cp = length == 2 ? c & 0x1F : length == 3 ? c & 0x0F : c & 0x07;
      for (size_t k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      valid = !(length == 2 && cp < 0x80) && !(length == 3 && cp < 0x800) && !(length == 4 && cp < 0x10000) &&
              !(cp >= 0xD800 && cp <= 0xDFFF) && cp <= 0x10FFFF;
    }
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string RenderExplain(const ExplainResult& r, const doctor::ErrorMatcher& m, const report::Texts& t) {
  const auto& hits = r.analysis.hits;
  if (hits.empty() && !r.analysis.readings.empty()) {
    const auto& readings = r.analysis.readings;
    std::string out = RenderAnswer(Answer(readings.front(), m, t), t);
    if (readings.size() > 1) {
      out += "\n" + Tr(t, "explain.readings", fmt::arg("query", ValidUtf8(r.query))) + "\n";
      for (size_t i = 1; i < readings.size(); ++i) out += "  - " + ReadingTitle(readings[i], m, t) + "\n";
    }
    return out;
  }
  if (hits.empty()) {
    std::string out = t.Get("explain.unknown") + "\n";
    if (!r.about_terms.empty()) {
      out += "  " + Tr(t, "explain.about_terms", fmt::arg("names", Join(r.about_terms, t.Get("explain.list_separator")))) + "\n";
    }
    if (!r.near_terms.empty()) {
      out += "  " + Tr(t, "explain.near_terms", fmt::arg("names", Join(r.near_terms, t.Get("explain.list_separator")))) + "\n";
    }
    if (r.profile) {
      // The reading's heading alone says nothing: shown only with what was found under it.
      auto lines = ProfileLines(*r.profile, t);
      if (lines.size() > 1) {
        for (const auto& line : lines) out += "  " + line + "\n";
      }
      return out + t.Get("explain.list_hint") + "\n";
    }
    if (!r.closest.empty()) {
      out += t.Get("explain.closest") + "\n";
      for (const auto* e : r.closest) out += fmt::format("  {}  {}\n", e->id, e->title.In(report::LanguageCode(t.language())));
    }
    return out + t.Get("explain.list_hint") + "\n";
  }
  if (r.log) return RenderLog(r, m, t);
  const Hit& first = hits.front();
  std::string out = RenderAnswer(Answer(first.finding, m, t), t);
  std::string components = ComponentsLine(r.analysis.emitters, t);
  if (!components.empty() && doctor::IsGpuFinding(first.finding)) out += "  " + components + "\n";
  if (!first.gpus.empty()) out += "  " + Tr(t, "explain.xid.gpus", fmt::arg("gpus", ValidUtf8(Join(first.gpus, ", ")))) + "\n";
  if (!first.processes.empty()) out += "  " + Tr(t, "explain.xid.processes", fmt::arg("processes", ValidUtf8(Join(first.processes, ", ")))) + "\n";
  out += OtherReadings(first.finding, m, t);
  out += Stories(r, first, t);
  if (hits.size() > 1) {
    out += "\n" + t.Get("explain.also") + "\n";
    for (size_t i = 1; i < hits.size(); ++i) {
      out += "  " + Tr(t, "explain.also_item", fmt::arg("title", ValidUtf8(Answer(hits[i].finding, m, t).title)),
                       fmt::arg("line", hits[i].first_line), fmt::arg("id", hits[i].finding.key)) + "\n";
      std::string follows = FollowsLine(hits[i], hits, m, t);
      if (!follows.empty()) out += "  " + follows;
    }
  }
  return out;
}

nlohmann::json ExplainToJson(const ExplainResult& r, const doctor::ErrorMatcher& m, const report::Texts& t) {
  auto doc = report::MakeDocument("explain");
  doc["source"] = r.source.empty() ? "text" : ValidUtf8(r.source);
  doc["lines"] = r.analysis.lines;
  doc["matches"] = nlohmann::json::array();
  for (const auto& h : r.analysis.hits) {
    nlohmann::json j = AnswerJson(h.finding, m, t);
    j["first_line"] = h.first_line;
    j["last_line"] = h.last_line;
    j["occurrences"] = h.occurrences;
    j["follows"] = h.follows >= 0 ? nlohmann::json(r.analysis.hits[static_cast<size_t>(h.follows)].finding.key) : nlohmann::json();
    j["excerpt"] = ValidUtf8(h.excerpt);
    j["first_time"] = h.first_time.empty() ? nlohmann::json() : nlohmann::json(ValidUtf8(h.first_time));
    j["last_time"] = h.last_time.empty() ? nlohmann::json() : nlohmann::json(ValidUtf8(h.last_time));
    j["gpus"] = nlohmann::json::array();
    for (const auto& g : h.gpus) j["gpus"].push_back(ValidUtf8(g));
    j["processes"] = nlohmann::json::array();
    for (const auto& p : h.processes) j["processes"].push_back(ValidUtf8(p));
    doc["matches"].push_back(j);
  }
  doc["readings"] = nlohmann::json::array();
  for (const auto& f : r.analysis.readings) doc["readings"].push_back(AnswerJson(f, m, t));
  if (r.oom) {
    const auto& d = *r.oom;
    doc["out_of_memory"] = {{"requested_bytes", d.requested_bytes},
                            {"total_bytes", d.total_bytes ? nlohmann::json(*d.total_bytes) : nlohmann::json()},
                            {"free_bytes", d.free_bytes ? nlohmann::json(*d.free_bytes) : nlohmann::json()},
                            {"allocated_bytes", d.allocated_bytes ? nlohmann::json(*d.allocated_bytes) : nlohmann::json()},
                            {"reserved_unallocated_bytes", d.reserved_unallocated_bytes ? nlohmann::json(*d.reserved_unallocated_bytes) : nlohmann::json()},
                            {"this_process_bytes", d.this_process_bytes ? nlohmann::json(*d.this_process_bytes) : nlohmann::json()},
                            {"diagnosis", d.diagnosis},
                            {"explanation", OomStory(d, t)}};
  }
  doc["versions"] = nlohmann::json::array();
  for (const auto& v : r.versions) doc["versions"].push_back({{"kind", v.kind}, {"values", v.args}, {"explanation", VersionText(v, t)}});
  if (r.analysis.hits.empty() && r.analysis.readings.empty()) {
    doc["closest"] = nlohmann::json::array();
    for (const auto* e : r.closest) doc["closest"].push_back(e->id);
    doc["near_terms"] = r.near_terms;
    doc["about_terms"] = r.about_terms;
  }
  // The verdict on the text as a whole: the top answer's kind.
  const Finding* top = !r.analysis.hits.empty() ? &r.analysis.hits.front().finding
                       : !r.analysis.readings.empty() ? &r.analysis.readings.front() : nullptr;
  doc["verdict"] = top == nullptr ? "unrecognised" : doctor::IsGpuFinding(*top) ? "gpu" : "not_gpu";
  doc["emitters"] = ComponentsJson(r.analysis.emitters);
  doc["capability"] = r.capability ? CapabilityJson(*r.capability, t) : nlohmann::json();
  doc["profile"] = r.profile ? ProfileJson(*r.profile, t) : nlohmann::json();
  return doc;
}

namespace {

// The generated tables beside the entries: NCCL's WARN formats, the emitters, the features.
std::string MoreKnowledge(const report::Texts& t) {
  auto nccl = doctor::LibraryMessageTable::Nccl();
  auto emitters = doctor::EmitterTable::Embedded();
  auto features = doctor::FeatureTable::Embedded();
  if (!nccl.ok() || !emitters.ok() || !features.ok() || (*nccl)->releases().empty()) return {};
  return Tr(t, "explain.list.more", fmt::arg("nccl", (*nccl)->rows().size()), fmt::arg("first", (*nccl)->releases().front()),
            fmt::arg("last", (*nccl)->releases().back()), fmt::arg("emitters", (*emitters)->emitters().size()),
            fmt::arg("features", (*features)->features().size()));
}

}  // namespace

std::string RenderExplainList(const doctor::ErrorMatcher& m, const report::Texts& t) {
  std::string lang = report::LanguageCode(t.language());
  report::TextTable table({"id", t.Get("explain.list.severity"), t.Get("explain.list.title")});
  for (const auto& e : m.kb().entries()) table.AddRow({e.id, SeverityWord(t, e.severity), e.title.In(lang)});
  size_t xids = 0, sxids = 0;
  for (const auto& x : m.xids().entries()) (x.nvswitch ? sxids : xids)++;
  return table.Render() + "\n" +
         Tr(t, "explain.list.also", fmt::arg("statuses", CurrentStatuses(m)), fmt::arg("apis", m.statuses().apis().size()),
            fmt::arg("cuda", m.statuses().toolkit().count("cuda") ? m.statuses().toolkit().at("cuda") : "?"), fmt::arg("xids", xids),
            fmt::arg("sxids", sxids)) + "\n" + MoreKnowledge(t) + "\n";
}

nlohmann::json ExplainListToJson(const doctor::ErrorMatcher& m, const report::Texts& t) {
  std::string lang = report::LanguageCode(t.language());
  auto doc = report::MakeDocument("explain_list");
  doc["entries"] = nlohmann::json::array();
  for (const auto& e : m.kb().entries()) doc["entries"].push_back({{"id", e.id}, {"title", e.title.In(lang)}, {"severity", e.severity}});
  doc["statuses"] = CurrentStatuses(m);
  doc["toolkit"] = m.statuses().toolkit();
  size_t xids = 0, sxids = 0;
  for (const auto& x : m.xids().entries()) (x.nvswitch ? sxids : xids)++;
  doc["xids"] = xids;
  doc["sxids"] = sxids;
  auto nccl = doctor::LibraryMessageTable::Nccl();
  if (nccl.ok()) doc["nccl_warnings"] = {{"formats", (*nccl)->rows().size()}, {"releases", (*nccl)->releases()}, {"source", (*nccl)->source()}};
  auto frontend = doctor::LibraryMessageTable::CudnnFrontend();
  if (frontend.ok()) {
    doc["cudnn_frontend_messages"] = {{"messages", (*frontend)->rows().size()}, {"releases", (*frontend)->releases()}, {"source", (*frontend)->source()}};
  }
  auto emitters = doctor::EmitterTable::Embedded();
  if (emitters.ok()) doc["emitters"] = (*emitters)->emitters().size();
  auto features = doctor::FeatureTable::Embedded();
  if (features.ok()) doc["gpu_features"] = (*features)->features().size();
  doc["apis"] = nlohmann::json::array();
  for (const auto& api : m.statuses().apis()) {
    size_t count = 0;
    for (const auto& s : m.statuses().statuses()) count += s.api == api.id;
    doc["apis"].push_back({{"id", api.id}, {"library", api.library}, {"type", api.type}, {"header", api.header}, {"statuses", count}});
  }
  return doc;
}

}  // namespace gpuprobe::cli

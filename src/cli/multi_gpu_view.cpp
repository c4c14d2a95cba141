// The results of `bench collectives` (one nccl-tests-style table per collective) and
// `bench p2p` (one nvbandwidth-style matrix per test).
#include "cli/multi_gpu_view.h"

#include <fmt/format.h>

#include "cli/command.h"
#include "report/phrase_text.h"
#include "core/units.h"
#include "knowledge/embedded_knowledge.h"
#include "model/gpu_link.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

std::string Names(const std::vector<bench::GpuName>& devices) {
  std::string out;
  for (const auto& d : devices) out += (out.empty() ? "" : ", ") + fmt::format("{} {}", d.index, d.name);
  return out;
}

// nccl-tests prints time in microseconds and bandwidth in GB/s (1e9 bytes per second).
std::string Micros(double seconds) { return fmt::format("{:.2f}", seconds * 1e6); }
std::string Gbps(double bytes_per_second) { return fmt::format("{:.2f}", bytes_per_second / 1e9); }

void AddHalf(const bench::CollectiveTiming& t, std::vector<std::string>* row) {
  if (!t.ran) {
    row->insert(row->end(), {"-", "-", "-", "-"});
    return;
  }
  row->push_back(Micros(t.seconds));
  row->push_back(Gbps(t.bandwidth.algbw_bytes_per_second));
  row->push_back(Gbps(t.bandwidth.busbw_bytes_per_second));
  row->push_back(t.checked_elements == 0 ? "-" : std::to_string(t.mismatches));
}

nlohmann::json TimingJson(const bench::CollectiveTiming& t) {
  if (!t.ran) return nullptr;
  return {{"seconds", t.seconds},
          {"algbw_bytes_per_second", t.bandwidth.algbw_bytes_per_second},
          {"busbw_bytes_per_second", t.bandwidth.busbw_bytes_per_second},
          {"verified", t.verified},
          {"checked_elements", t.checked_elements},
          {"mismatches", t.mismatches},
          {"first_mismatch", t.first_mismatch.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.first_mismatch)}};
}

nlohmann::json LinkJson(const std::optional<PlannerLink>& link) {
  if (!link) return nullptr;
  return {{"spec", link->spec_name},
          {"kind", link->link_id},
          {"bytes_per_second", link->bytes_per_second},
          {"fell_back_to_pcie", link->fell_back_to_pcie}};
}

// "= 87% of the 450 GB/s the planner assumes ..." for a measured per-direction figure.
std::string AgainstLink(const std::optional<PlannerLink>& link, double measured, const report::Texts& t) {
  if (!link || !(measured > 0)) return {};
  return Tr(t, "collectives.report.vs_link", fmt::arg("percent", fmt::format("{:.0f}", 100 * measured / link->bytes_per_second)),
                  fmt::arg("bandwidth", core::FormatBytesPerSecond(link->bytes_per_second)), fmt::arg("link", link->link_name));
}

}  // namespace

std::optional<PlannerLink> PlannerLinkFor(const std::string& runtime_name, int gpus, const report::Texts& t) {
  const model::GpuSpec* spec = knowledge::DeviceSpec(runtime_name);
  if (spec == nullptr) return std::nullopt;
  model::GroupLink group = model::LinkForGroup(*spec, gpus);
  if (!(group.link.bytes_per_s > 0)) return std::nullopt;
  PlannerLink out;
  out.spec_name = spec->name;
  out.link_id = model::LinkKindId(group.link.kind);
  out.link_name = Say(t, model::LinkName(*spec, group.link));
  out.bytes_per_second = group.link.bytes_per_s;
  out.fell_back_to_pcie = group.fell_back_to_pcie;
  return out;
}

std::string RenderCollectivesReport(const bench::CollectivesReport& r, const std::optional<PlannerLink>& link,
                                    const report::Texts& t) {
  std::string out = Tr(t, "collectives.report.title", fmt::arg("version", r.nccl_version), fmt::arg("library", r.nccl_library),
                       fmt::arg("gpus", r.gpus), fmt::arg("names", Names(r.devices))) +
                    "\n";
  for (const auto& c : r.results) {
    out += "\n" + Tr(t, "collectives.report.section", fmt::arg("collective", model::CollectiveId(c.collective)),
                     fmt::arg("formula", model::BusBandwidthFormula(c.collective)), fmt::arg("factor", fmt::format("{:.4f}", c.factor))) +
           "\n";
    std::string oop = t.Get("collectives.col.out_of_place"), inp = t.Get("collectives.col.in_place");
    report::TextTable table({t.Get("collectives.col.size"), t.Get("collectives.col.count"), oop + " " + t.Get("collectives.col.time_us"),
                             t.Get("collectives.col.algbw"), t.Get("collectives.col.busbw"), t.Get("collectives.col.wrong"),
                             inp + " " + t.Get("collectives.col.time_us"), t.Get("collectives.col.algbw"),
                             t.Get("collectives.col.busbw"), t.Get("collectives.col.wrong")});
    for (size_t i = 0; i < 10; ++i) table.SetAlign(i, report::Align::kRight);
    for (const auto& s : c.sizes) {
      std::vector<std::string> row = {std::to_string(s.size_bytes), std::to_string(s.count)};
      AddHalf(s.out_of_place, &row);
      AddHalf(s.in_place, &row);
      table.AddRow(row);
    }
    out += table.Render(2);
    for (const auto& s : c.sizes) {
      std::string size = core::FormatBytesBinary(static_cast<double>(s.size_bytes));
      if (!s.error.empty()) out += "  " + Tr(t, "collectives.report.failed", fmt::arg("size", size), fmt::arg("error", s.error)) + "\n";
      for (const auto* half : {&s.out_of_place, &s.in_place}) {
        if (half->mismatches == 0) continue;
        out += "  " + Tr(t, "collectives.report.mismatch", fmt::arg("size", size),
                         fmt::arg("variant", t.Get(half == &s.out_of_place ? "collectives.col.out_of_place" : "collectives.col.in_place")),
                         fmt::arg("count", half->mismatches), fmt::arg("first", half->first_mismatch)) +
               "\n";
      }
    }
    if (!c.skipped_for_memory_bytes.empty()) {
      std::string sizes;
      for (auto b : c.skipped_for_memory_bytes) sizes += (sizes.empty() ? "" : ", ") + core::FormatBytesBinary(static_cast<double>(b));
      out += "  " + Tr(t, "collectives.report.cap", fmt::arg("limit", core::FormatBytesBinary(static_cast<double>(r.memory_limit_bytes))),
                       fmt::arg("sizes", sizes)) +
             "\n";
    }
    if (c.peak_size_bytes > 0) {
      out += "  " + Tr(t, "collectives.report.peak", fmt::arg("busbw", core::FormatBytesPerSecond(c.peak_busbw_bytes_per_second)),
                       fmt::arg("size", core::FormatBytesBinary(static_cast<double>(c.peak_size_bytes)))) +
             AgainstLink(link, c.peak_busbw_bytes_per_second, t) + "\n";
    }
  }
  out += "\n" + t.Get(r.all_verified ? "collectives.report.summary_ok" : "collectives.report.summary_bad") + "\n";
  return out;
}

nlohmann::json CollectivesReportJson(const bench::CollectivesReport& r, const std::optional<PlannerLink>& link) {
  auto doc = report::MakeDocument("bench_collectives");
  doc["gpus"] = r.gpus;
  doc["devices"] = nlohmann::json::array();
  for (const auto& d : r.devices) doc["devices"].push_back({{"index", d.index}, {"name", d.name}});
  doc["nccl_version"] = r.nccl_version;
  doc["nccl_library"] = r.nccl_library;
  doc["memory_limit_bytes"] = r.memory_limit_bytes;
  doc["all_verified"] = r.all_verified;
  doc["planner_link"] = LinkJson(link);
  doc["collectives"] = nlohmann::json::array();
  for (const auto& c : r.results) {
    nlohmann::json j = {{"id", model::CollectiveId(c.collective)},
                        {"busbw_factor", c.factor},
                        {"peak_busbw_bytes_per_second", c.peak_busbw_bytes_per_second},
                        {"peak_size_bytes", c.peak_size_bytes},
                        {"peak_vs_planner_link", link && c.peak_busbw_bytes_per_second > 0
                                                     ? nlohmann::json(c.peak_busbw_bytes_per_second / link->bytes_per_second)
                                                     : nlohmann::json(nullptr)},
                        {"skipped_for_memory_bytes", c.skipped_for_memory_bytes}};
    j["sizes"] = nlohmann::json::array();
    for (const auto& s : c.sizes) {
      j["sizes"].push_back({{"size_bytes", s.size_bytes},
                            {"count", s.count},
                            {"out_of_place", TimingJson(s.out_of_place)},
                            {"in_place", TimingJson(s.in_place)},
                            {"error", s.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.error)}});
    }
    doc["collectives"].push_back(j);
  }
  return doc;
}

std::string RenderP2pReport(const bench::P2pReport& r, const std::optional<PlannerLink>& link, const report::Texts& t) {
  std::string out = Tr(t, "collectives.p2p.title", fmt::arg("gpus", r.gpus), fmt::arg("names", Names(r.devices)),
                       fmt::arg("bytes", core::FormatBytesBinary(static_cast<double>(r.buffer_bytes)))) +
                    "\n";
  bool any_host = false;
  for (const auto& m : r.matrices) {
    bool read = m.test.find("_read_") != std::string::npos;
    out += "\n" + Tr(t, read ? "collectives.p2p.matrix_read" : "collectives.p2p.matrix_write", fmt::arg("test", m.test)) + "\n";
    std::vector<std::string> headers = {""};
    for (int c = 0; c < r.gpus; ++c) headers.push_back(std::to_string(r.devices.size() > static_cast<size_t>(c) ? r.devices[c].index : c));
    report::TextTable table(headers);
    for (size_t i = 0; i < headers.size(); ++i) table.SetAlign(i, report::Align::kRight);
    for (int row = 0; row < r.gpus; ++row) {
      std::vector<std::string> cells = {headers[static_cast<size_t>(row) + 1]};
      for (int col = 0; col < r.gpus; ++col) {
        const auto& v = m.bytes_per_second[static_cast<size_t>(row)][static_cast<size_t>(col)];
        if (!v) {
          cells.push_back("-");
          continue;
        }
        // Peer access is symmetric in practice; either direction lacking it means staging.
        bool direct = r.peer_access[static_cast<size_t>(row)][static_cast<size_t>(col)] &&
                      r.peer_access[static_cast<size_t>(col)][static_cast<size_t>(row)];
        if (!direct) any_host = true;
        cells.push_back(Gbps(*v) + (direct ? "" : "*"));
      }
      table.AddRow(cells);
    }
    out += table.Render(2);
    if (m.mismatches > 0) {
      out += "  " + Tr(t, "collectives.p2p.mismatch", fmt::arg("test", m.test), fmt::arg("count", m.mismatches),
                       fmt::arg("first", m.first_mismatch)) +
             "\n";
    }
  }
  if (any_host) out += "\n" + t.Get("collectives.p2p.host_note") + "\n";
  // The best one-way copy against the link the planner assumes between two of these GPUs.
  double best = 0;
  for (const auto& m : r.matrices) {
    if (m.bidirectional) continue;
    for (const auto& row : m.bytes_per_second) {
      for (const auto& v : row) best = v && *v > best ? *v : best;
    }
  }
  if (link && best > 0) {
    out += "\n" + Tr(t, "collectives.p2p.best", fmt::arg("bandwidth", core::FormatBytesPerSecond(best))) +
           AgainstLink(link, best, t) + "\n";
  }
  out += "\n" + t.Get(r.all_verified ? "collectives.report.summary_ok" : "collectives.report.summary_bad") + "\n";
  return out;
}

nlohmann::json P2pReportJson(const bench::P2pReport& r, const std::optional<PlannerLink>& link) {
  auto doc = report::MakeDocument("bench_p2p");
  doc["gpus"] = r.gpus;
  doc["devices"] = nlohmann::json::array();
  for (const auto& d : r.devices) doc["devices"].push_back({{"index", d.index}, {"name", d.name}});
  doc["buffer_bytes"] = r.buffer_bytes;
  doc["peer_access"] = r.peer_access;
  doc["planner_link"] = LinkJson(link);
  doc["all_verified"] = r.all_verified;
  doc["tests"] = nlohmann::json::array();
  for (const auto& m : r.matrices) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : m.bytes_per_second) {
      nlohmann::json cells = nlohmann::json::array();
      for (const auto& v : row) cells.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
      rows.push_back(cells);
    }
    doc["tests"].push_back({{"id", m.test},
                            {"bidirectional", m.bidirectional},
                            {"bytes_per_second", rows},
                            {"mismatches", m.mismatches},
                            {"first_mismatch", m.first_mismatch.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.first_mismatch)}});
  }
  return doc;
}

}  // namespace gpuprobe::cli

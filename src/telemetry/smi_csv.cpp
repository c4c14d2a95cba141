#include "telemetry/smi_csv.h"

#include <cmath>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "core/spelling.h"
#include "telemetry/smi_values.h"
#include "telemetry/snapshot_fields.h"

namespace gpuprobe::telemetry {
namespace {

const SnapshotField* FindField(const std::string& name) { return FindSnapshotField(name); }

std::vector<std::string> SplitCells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line) {
    if (c == ',') {
      cells.push_back(smi::Trim(cell));
      cell.clear();
    } else {
      cell.push_back(c);
    }
  }
  cells.push_back(smi::Trim(cell));
  return cells;
}

}  // namespace

const std::vector<std::string>& QueryGpuFields() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& f : SnapshotFields()) {
      if (f.query_gpu) names.insert(names.end(), f.names.begin(), f.names.end());
    }
    return names;
  }();
  return kNames;
}

core::Result<std::vector<Snapshot>> ParseSmiCsv(std::string_view csv, smi::Diagnostics* diagnostics) {
  std::istringstream in{std::string(csv)};
  std::string line;
  std::vector<const SnapshotField*> columns;
  bool header_seen = false;
  int known = 0;
  int line_number = 0;
  std::vector<Snapshot> out;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (smi::Trim(line).empty()) continue;
    std::vector<std::string> cells = SplitCells(line);
    if (!header_seen) {
      for (auto& cell : cells) {
        std::string name = cell.substr(0, cell.find(" ["));  // "memory.used [MiB]"
        const SnapshotField* f = FindField(name);
        if (f) ++known;
        columns.push_back(f);
      }
      header_seen = true;
      if (known == 0) {
        return core::Status::ParseError("the CSV header names no nvidia-smi --query-gpu field gpuprobe knows "
                                        "(a header line is required: do not use 'noheader')")
            .WithKeys("error.capture.csv_header", {});
      }
      continue;
    }
    if (cells.size() != columns.size()) {
      return core::Status::ParseError(fmt::format("CSV line {} has {} cells but the header has {}", line_number, cells.size(),
                                                  columns.size()))
          .WithKeys("error.capture.csv_cells", {{"line", std::to_string(line_number)}, {"cells", std::to_string(cells.size())},
                                                {"columns", std::to_string(columns.size())}});
    }
    Snapshot s;
    s.source = "nvidia-smi-csv";
    FieldContext context{fmt::format("CSV line {}", line_number), diagnostics};
    for (size_t i = 0; i < cells.size(); ++i) {
      if (columns[i] != nullptr) columns[i]->set(&s, cells[i], context);
    }
    if (!s.index) s.index = static_cast<int>(out.size());
    out.push_back(std::move(s));
  }
  if (!header_seen) return core::Status::ParseError("the CSV is empty").WithKeys("error.capture.csv_empty", {});
  if (out.empty()) return core::Status::ParseError("the CSV has a header but no GPU rows").WithKeys("error.capture.csv_no_rows", {});
  return out;
}

core::Result<CsvFormat> ParseCsvFormat(const std::string& format) {
  CsvFormat f;
  std::vector<std::string> parts = SplitCells(format);
  if (parts.empty() || parts[0] != "csv") {
    return core::Status::InvalidArgument("--format must start with csv (csv, csv,noheader, csv,nounits)").WithKeys("error.capture.csv_format", {});
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == "noheader") f.header = false;
    else if (parts[i] == "nounits") f.units = false;
    else return core::Status::InvalidArgument("unknown --format option '" + parts[i] + "' (use noheader, nounits)")
        .WithKeys("error.capture.csv_format_option", {{"option", parts[i]}});
  }
  return f;
}

core::Result<std::string> FormatQueryGpu(const std::vector<Snapshot>& gpus, const std::string& fields, const CsvFormat& format) {
  std::vector<std::string> names = SplitCells(fields);
  std::vector<const SnapshotField*> columns;
  for (const auto& name : names) {
    const SnapshotField* f = FindField(name);
    if (f == nullptr) {
      auto near = core::ClosestMatches(name, QueryGpuFields());
      return core::Status::InvalidArgument(
          fmt::format("'{}' is not a valid field to query{}", name, near.empty() ? "" : fmt::format("; did you mean '{}'?", near.front())),
          "gpuprobe inspect --query-gpu=help lists the fields")
          .WithKeys(near.empty() ? "error.capture.query_field" : "error.capture.query_field_near",
                    {{"name", name}, {"near", near.empty() ? "" : near.front()}}, "error.capture.query_field.hint");
    }
    columns.push_back(f);
  }
  std::string out;
  if (format.header) {
    for (size_t i = 0; i < names.size(); ++i) {
      out += (i ? ", " : "") + names[i];
      if (format.units && !columns[i]->unit.empty()) out += " [" + columns[i]->unit + "]";
    }
    out += "\n";
  }
  for (const auto& s : gpus) {
    for (size_t i = 0; i < columns.size(); ++i) {
      auto value = columns[i]->get(s);
      std::string cell = value ? *value : "[N/A]";
      if (value && format.units && !columns[i]->unit.empty()) cell += " " + columns[i]->unit;
      out += (i ? ", " : "") + cell;
    }
    out += "\n";
  }
  return out;
}

}  // namespace gpuprobe::telemetry

// nvidia-smi's --query-gpu CSV, both ways: parsing a capture with a header (any subset of
// nvidia-smi's field names, with or without units, "[N/A]" and deprecation cells as absent),
// and printing Snapshots under the same field names so scripts can switch to gpuprobe.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "telemetry/smi_values.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// Parses CSV with a header line. ParseError for a missing header, no known field, or a row
/// whose cell count differs from the header's (naming the line). Values that are not possible
/// (negative memory, 10^30 MHz) are left empty with a note in `diagnostics` (may be null).
core::Result<std::vector<Snapshot>> ParseSmiCsv(std::string_view csv, smi::Diagnostics* diagnostics = nullptr);

/// Every field name gpuprobe can print (nvidia-smi's names and aliases).
const std::vector<std::string>& QueryGpuFields();

struct CsvFormat {
  bool header = true;
  bool units = true;
};

/// Parses "csv", "csv,noheader", "csv,nounits", "csv,noheader,nounits". InvalidArgument else.
core::Result<CsvFormat> ParseCsvFormat(const std::string& format);

/// Prints `fields` (comma-separated, as --query-gpu takes them) for each snapshot.
/// InvalidArgument naming an unknown field, with the nearest known one.
core::Result<std::string> FormatQueryGpu(const std::vector<Snapshot>& gpus, const std::string& fields, const CsvFormat& format);

}  // namespace gpuprobe::telemetry

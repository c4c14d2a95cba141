// The per-GPU view of `gpuprobe inspect`: one table of the state with a one-line meaning per
// row, the process table (paths elided in the middle so it fits the terminal), and which
// entry of the spec database the GPU is (model/device_match.h's strict rule).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/device_match.h"
#include "report/i18n.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::cli {

/// {"matched": name or null, "by": ..., "pci_device_id": ...}.
nlohmann::json SpecMatchJson(const model::DeviceMatch& match);

/// `text` cut to `width` display columns by replacing its middle with "...", keeping the end
/// (a path keeps its file name); unchanged when it fits.
std::string ElideMiddle(std::string_view text, int width);

/// The terminal's width in columns ($COLUMNS, else the tty's, else 100).
int TerminalWidth();

using report::QuotedValue;

/// An enumerated capture value in the reader's words: the text "inspect.<kind>.<value>"
/// (value lower-cased, other than letters and digits as '_') where the catalogue has it, else
/// QuotedValue(value). Kinds: compute_mode, driver_model, virtualization, state.
std::string CaptureValueText(const char* kind, const std::string& value, const report::Texts& texts);

/// The table of one GPU and its processes, fitted to `width` columns.
std::string RenderGpu(const telemetry::Snapshot& gpu, const model::DeviceMatch& spec, const report::Texts& texts, int width);

}  // namespace gpuprobe::cli

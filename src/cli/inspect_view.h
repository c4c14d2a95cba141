// The per-GPU view of `gpuprobe inspect`: one table of the state with a one-line meaning per
// row, the process table (paths elided in the middle so it fits the terminal), and which
// entry of the spec database the GPU is (by PCI device id first, then by name).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/spec_database.h"
#include "report/i18n.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::cli {

struct SpecMatch {
  const model::GpuSpec* spec = nullptr;  ///< null when no entry matched
  std::string by;                        ///< "pci_device_id" or "name"; empty when none
  std::string pci_device_id;             ///< "0x2330" as looked up; empty when not reported
};

/// The spec entry of `gpu`: its PCI device id against the entries' ids, else its name (an
/// exact name or alias, also without a leading "NVIDIA "). No match when the name is
/// ambiguous.
SpecMatch MatchSpec(const telemetry::Snapshot& gpu, const model::SpecDatabase& db);
/// Lower case, dashes and repeated spaces as one space, without a leading "NVIDIA "/"AMD ":
/// "NVIDIA Tesla P100-PCIE-16GB" -> "tesla p100 pcie 16gb".
std::string NormalizedGpuName(std::string_view name);

/// {"matched": name or null, "by": ..., "pci_device_id": ...}.
nlohmann::json SpecMatchJson(const SpecMatch& match);

/// `text` cut to `width` display columns by replacing its middle with "...", keeping the end
/// (a path keeps its file name); unchanged when it fits.
std::string ElideMiddle(std::string_view text, int width);

/// The terminal's width in columns ($COLUMNS, else the tty's, else 100).
int TerminalWidth();

/// A value copied from a capture with no text of ours (a GPU's name, an unknown mode): as
/// written, inside quotes in Chinese (it is data, not a sentence of ours).
std::string QuotedValue(const std::string& value, const report::Texts& texts);
/// An enumerated capture value in the reader's words: the text "inspect.<kind>.<value>"
/// (value lower-cased, other than letters and digits as '_') where the catalogue has it, else
/// QuotedValue(value). Kinds: compute_mode, driver_model, virtualization, state.
std::string CaptureValueText(const char* kind, const std::string& value, const report::Texts& texts);

/// The table of one GPU and its processes, fitted to `width` columns.
std::string RenderGpu(const telemetry::Snapshot& gpu, const SpecMatch& spec, const report::Texts& texts, int width);

}  // namespace gpuprobe::cli

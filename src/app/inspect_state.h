// What `inspect` reads and the document it makes: every GPU's state, live through NVML or from
// a saved capture (XML, -q text, the default table, --query-gpu CSV, gpuprobe JSON), each GPU
// with its spec entry (the strict device rule, model/device_match.h), and the
// gpuprobe.inspect.v1 document with the findings. `inspect`, the tour and `report` read the
// machine through here; the views only print.
//
// Thread safety: reads files, standard input or NVML; no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/device_match.h"
#include "report/i18n.h"
#include "telemetry/capture_reader.h"
#include "telemetry/findings.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::app {

/// The largest capture `inspect --from` reads.
inline constexpr std::uint64_t kMaxCaptureBytes = 64ull << 20;

/// The GPUs' state as read, with where it came from.
struct GpuReading {
  std::string source_label;  ///< English, for the JSON: "NVML (libnvidia-ml.so.1)", "a.xml (xml)"
  std::string from;          ///< the --from path, "-" for standard input; empty for NVML
  telemetry::CaptureFormat format = telemetry::CaptureFormat::kUnknown;
  std::vector<telemetry::CaptureSet> sets;   ///< one per state of the capture (one for NVML)
  std::vector<std::string> warnings;         ///< each already prefixed with the file (or NVML)
  std::vector<core::TextRef> warning_texts;  ///< the same as text keys (an empty one: show the English)
  std::string warning_prefix;                ///< the file the warnings are about; empty for NVML
};

/// When a saved capture was taken and how old it was at the reference "now" (core/clock.h).
/// nvidia-smi prints the machine's local time without a zone: the age is exact to within the
/// zone's offset, which is why it is counted in whole days.
struct CaptureDate {
  std::string timestamp;                 ///< as the capture printed it
  std::optional<std::int64_t> epoch_s;   ///< read as UTC; empty when not in nvidia-smi's forms
  std::optional<std::int64_t> age_days;  ///< whole days before "now"; empty with epoch_s
  bool ahead_of_clock = false;           ///< more than a day after "now": the age is not told
};

/// The capture's date (the first GPU's timestamp that the capture printed), at `now_s`; empty
/// for a live reading, or a capture that printed no timestamp.
std::optional<CaptureDate> CaptureDateOf(const GpuReading& reading, std::int64_t now_s);

/// telemetry::Assess of `gpus`; every finding of a capture older than a day says so (notes
/// "finding.note.capture_age" / "capture_age_one", argument capture_days): what it judges is
/// the state then, not now.
/// The GPUs a reading holds, each once: a capture that shows one GPU twice (idle, then under
/// load) is of one GPU. Keyed by UUID, else PCI bus id, else index.
int DistinctGpus(const GpuReading& reading);

telemetry::Assessment AssessReading(const std::vector<telemetry::Snapshot>& gpus, const std::optional<CaptureDate>& date);

/// {"timestamp", "epoch_s", "age_days", "ahead_of_clock"} of `date`; null without one.
nlohmann::json CaptureDateJson(const std::optional<CaptureDate>& date);

/// Reads the state: the capture at `from` ("-" = standard input; `text`, when given, is its
/// contents already read, since standard input can be read only once), or live through NVML
/// when `from` is empty. The capture readers' errors naming the file; NVML's load and init
/// errors; NotFound when NVML works but reports no GPU.
core::Result<GpuReading> ReadGpuState(const std::string& from, const std::string* text = nullptr);

/// The spec entry of `gpu` in the embedded database (empty without one).
model::DeviceMatch SpecOf(const telemetry::Snapshot& gpu);

/// {"matched": name or null, "by": ..., "pci_device_id": ...}.
nlohmann::json SpecMatchJson(const model::DeviceMatch& match);

/// Each snapshot's JSON with its "spec" match.
nlohmann::json GpusJson(const std::vector<telemetry::Snapshot>& gpus);

/// The gpuprobe.inspect.v1 document of `reading` (every state with its findings, and "captured":
/// the capture's date and age at `now_s`, null for live state); the findings of every state
/// are appended to `findings_all`.
nlohmann::json InspectDocument(const GpuReading& reading, const report::Texts& texts, std::int64_t now_s,
                               std::vector<telemetry::Finding>* findings_all);

/// gpuprobe.inspect.v1 of the live GPUs, as `inspect --json` prints it; an error without a
/// driver. The tour and `report` include it.
core::Result<nlohmann::json> LiveInspectDocument(const report::Texts& texts);

}  // namespace gpuprobe::app

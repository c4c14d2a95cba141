// The one table of Snapshot fields under nvidia-smi's --query-gpu names. Every parser (XML,
// -q text, default table, CSV) hands each value it finds to SetSnapshotField under the
// field's name here, so a value means the same thing and passes the same checks whatever
// format it came in; `inspect --query-gpu` prints from the same table. Fields nvidia-smi has
// no --query-gpu name for (thresholds, replay counter, virtualization mode, ...) have a name in
// the same style and are marked internal.
//
// Thread safety: the table is built once and immutable; the functions are pure.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/smi_values.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

/// Where a value comes from, for the notes about values that were rejected or repaired.
struct FieldContext {
  std::string where;                         ///< "GPU 00000000:01:00.0"
  smi::Diagnostics* diagnostics = nullptr;   ///< may be null (notes are dropped)
};

struct SnapshotField {
  std::vector<std::string> names;  ///< the first is the canonical name; the rest are aliases
  std::string unit;                ///< printed in a CSV header ("[MiB]") and after values
  bool query_gpu = true;           ///< nvidia-smi accepts this name in --query-gpu
  /// Reads nvidia-smi's text of the value into the snapshot, only if the field is still
  /// empty (the first value a parser offers wins: parsers offer the preferred spelling first).
  std::function<void(Snapshot*, std::string_view, const FieldContext&)> set;
  /// The value as nvidia-smi would print it (without unit); empty when unknown.
  std::function<std::optional<std::string>(const Snapshot&)> get;
};

/// Every field, in --query-gpu=help order.
const std::vector<SnapshotField>& SnapshotFields();

/// The field with this name or alias; null when none.
const SnapshotField* FindSnapshotField(std::string_view name);

/// Sets field `name` of `snapshot` from `raw` (see SnapshotField::set). Unknown names are
/// ignored (the corpus tests would show a field a parser's mapping misspells as missing).
void SetSnapshotField(Snapshot* snapshot, std::string_view name, std::string_view raw, const FieldContext& context);

/// The value of field `name` as nvidia-smi prints it, with its unit ("2028 MiB", "45 C",
/// "Enabled"); empty when unknown. For the evidence of findings.
std::optional<std::string> SnapshotFieldText(const Snapshot& snapshot, std::string_view name);

}  // namespace gpuprobe::telemetry

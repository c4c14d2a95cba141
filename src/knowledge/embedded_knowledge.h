// The one owner of the reference data embedded in the binary that the model reads: the GPU
// spec database (data/gpu_specs.json with data/host_links.json), the price table
// (data/prices/gpu_prices.json), the model catalogue (data/models/catalog.json), the
// normal efficiency ranges (data/knowledge/normal_ranges.json) and the newcomer's glossary
// (data/knowledge/glossary.json). Each is parsed once per process, on first use, and every
// verb, the bench engine and the tests read the same copy; a ParseError from any of them
// means a broken build (tests load each one).
//
// The error knowledge of `explain` and `doctor` (errors, Xid catalogue, CUDA statuses, the
// driver/CUDA table) is doctor's own data and has its owners there (doctor/*::Embedded()).
//
// Thread safety: safe from any thread (function-local statics, immutable after first use).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/device_match.h"
#include "model/glossary.h"
#include "model/model_catalog.h"
#include "model/normal_range.h"
#include "model/prices.h"
#include "model/spec_database.h"

namespace gpuprobe::knowledge {

/// The spec database.
core::Result<const model::SpecDatabase*> Specs();

/// The embedded price table (GPUs resolved against Specs()).
core::Result<const model::PriceBook*> Prices();

/// A copy of the price table with every `--price GPU=USD/h` value applied (later ones win).
/// InvalidArgument naming --price for a malformed value or an unknown GPU.
core::Result<model::PriceBook> PricesWithOverrides(const std::vector<std::string>& price_flags);

/// The model catalogue (Hub ids with their config.json).
core::Result<const std::vector<model::CatalogEntry>*> ModelCatalog();

/// The normal efficiency ranges.
core::Result<const std::vector<model::NormalRange>*> NormalRanges();

/// The glossary behind `gpuprobe explain TERM`.
core::Result<const model::Glossary*> Glossary();

/// The spec entry of a real device by the strict rule (model/device_match.h): its PCI device id
/// when given, else its whole runtime name. An empty match without the database.
model::DeviceMatch MatchDevice(std::optional<std::uint32_t> pci_device_id, std::string_view runtime_name);

/// MatchDevice(nullopt, runtime_name).spec: the entry of a device the runtime names
/// ("NVIDIA H200"); nullptr when none matches exactly.
const model::GpuSpec* DeviceSpec(std::string_view runtime_name);

}  // namespace gpuprobe::knowledge

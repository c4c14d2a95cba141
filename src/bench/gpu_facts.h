// GpuFacts: what the GPU suites need to know about a device to choose their cases, check
// that they fit and predict them, without CUDA: the runtime's figures, the free memory and
// the spec database's entry. The CUDA context implements it for the GPU that is here; a
// planned context implements it from the spec database for a GPU that is not, so a run can
// be planned (cases, sizes, expected durations) on a machine without one.
//
// Thread safety: implementations are read-only after construction.
#pragma once

#include <cstdint>

#include "bench/backend.h"
#include "model/gpu_device_figures.h"
#include "model/gpu_spec.h"

namespace gpuprobe::bench {

class GpuFacts {
 public:
  virtual ~GpuFacts() = default;
  /// The theoretical figures of the device (model/gpu_device_figures.h).
  virtual const model::DeviceFigures& Figures() const = 0;
  /// Free device memory now, in bytes; 0 when unknown.
  virtual std::uint64_t FreeBytes() const = 0;
  /// The spec database's entry for this GPU (tensor-core peaks live there); nullptr when the
  /// GPU is not in the database.
  virtual const model::GpuSpec* Spec() const { return nullptr; }
};

/// The GpuFacts behind `context`; nullptr when it is not a GPU context (or is null).
const GpuFacts* GpuFactsOf(const BackendContext* context);

/// GpuFactsOf for a context known to be a GPU's; an empty GpuFacts (no figures, no free
/// memory) otherwise, so a caller never dereferences null.
const GpuFacts& FactsOf(const BackendContext& context);

}  // namespace gpuprobe::bench

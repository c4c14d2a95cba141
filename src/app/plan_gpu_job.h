// The plan's job on one kind of GPU: what `plan --gpu X` plans there, shared by the --gpu plan
// and the rental sweep (app/plan_rental.h) so the two cannot drift apart.
//
// Today one thing depends on the GPU: a GPU of compute capability below 8.0 (Volta, Turing:
// V100, T4, RTX 6000) has no bf16, so a bf16 default is planned as fp16, as serving engines
// do (vLLM casts a bf16 checkpoint to fp16 on such GPUs and logs a warning).
//
// Thread safety: pure functions.
#pragma once

#include "model/memory_planner.h"
#include "model/spec_database.h"

namespace gpuprobe::app {

/// Which dtypes the user left to their defaults (no --dtype, no --kv-dtype).
struct DtypeDefaults {
  bool weights = false;
  bool kv = false;
};

/// Whether `gpu` computes in bf16: false for NVIDIA compute capability below 8.0 ("sm_70",
/// "sm_75"); true otherwise, and when the compute capability is unknown or not NVIDIA's.
bool GpuHasBf16(const model::GpuSpec& gpu);

/// `base` as planned on `gpu`: a defaulted bf16 (weights, KV cache) becomes fp16 where the GPU
/// has no bf16. A dtype the user gave is kept as given.
model::Job PlanJobForGpu(const model::Job& base, const model::GpuSpec& gpu, DtypeDefaults defaults);

/// Whether PlanJobForGpu changed a bf16 default to fp16 for `gpu`.
bool Bf16DefaultBecameFp16(const model::Job& base, const model::GpuSpec& gpu, DtypeDefaults defaults);

}  // namespace gpuprobe::app

#include "app/healthy_card.h"

#include <algorithm>

#include "knowledge/embedded_knowledge.h"
#include "model/advisor.h"
#include "model/spec_derivation.h"

namespace gpuprobe::app {
namespace {

// The GPU range that covers benchmark `id` (any case), from the embedded table.
const model::NormalRange* GpuRange(const std::string& id) {
  auto ranges = knowledge::NormalRanges();
  if (!ranges.ok()) return nullptr;
  for (const model::NormalRange& r : **ranges) {
    if (r.backend == "cuda" && std::find(r.ids.begin(), r.ids.end(), id) != r.ids.end()) return &r;
  }
  return nullptr;
}

void AddRanged(std::vector<HealthyFigure>* out, const std::string& gpu_name, const char* id, const char* benchmark,
               const char* unit, std::optional<double> peak) {
  const model::NormalRange* range = GpuRange(benchmark);
  if (!peak || *peak <= 0 || range == nullptr) return;
  HealthyFigure f{id, benchmark, unit, *peak, range->low, range->high, range->source, range->low_reason,
                  range->summary_en, range->summary_zh, 0};
  // A range spans several GPUs; where the source lists this one's best run, its high end is
  // that run (an H100 SXM's best bf16 GEMM is 80.3% of its peak, not the A100's 86.9%).
  for (const auto& best : range->best_by_gpu) {
    if (gpu_name.find(best.match) != std::string::npos && best.best > f.low_share) {
      f.own_best = best.best;
      f.high_share = std::min(f.high_share, best.best);
      break;
    }
  }
  out->push_back(std::move(f));
}

}  // namespace

std::vector<HealthyFigure> HealthyFigures(const model::GpuSpec& gpu) {
  std::vector<HealthyFigure> out;
  AddRanged(&out, gpu.name, "memory_bandwidth", "memory.triad", "B/s", model::MemoryBandwidthBytesPerSecond(gpu));
  // ECC costs GDDR bandwidth (it is carried in band), not HBM's (side band): not a reason to
  // name for an HBM card.
  if (!out.empty() && out.back().worry == "memory" && gpu.memory_type.rfind("HBM", 0) == 0) out.back().worry = "memory_hbm";
  // Pinned copies: no published range in the table; the model's expectation of the encoded
  // link rate (model::kPcieEfficiency), which bench predicts them at.
  if (auto pcie = model::DerivePcieBandwidth(gpu)) {
    HealthyFigure copy;
    copy.id = "pinned_copy";
    copy.benchmark = "transfer.h2d_pinned";
    copy.unit = "B/s";
    copy.peak = *pcie;
    copy.low_share = copy.high_share = model::kPcieEfficiency;
    copy.worry = "pcie";
    out.push_back(std::move(copy));
  }
  AddRanged(&out, gpu.name, "dense_gemm_bf16", "matmul.cublas_bf16", "FLOP/s", model::PeakFlops(gpu, "bf16"));
  return out;
}

}  // namespace gpuprobe::app

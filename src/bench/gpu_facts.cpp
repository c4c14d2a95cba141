#include "bench/gpu_facts.h"

namespace gpuprobe::bench {
namespace {

class NoFacts : public GpuFacts {
 public:
  const model::DeviceFigures& Figures() const override { return figures_; }
  std::uint64_t FreeBytes() const override { return 0; }

 private:
  model::DeviceFigures figures_;
};

}  // namespace

const GpuFacts* GpuFactsOf(const BackendContext* context) { return dynamic_cast<const GpuFacts*>(context); }

const GpuFacts& FactsOf(const BackendContext& context) {
  static const NoFacts kNone;
  const GpuFacts* facts = GpuFactsOf(&context);
  return facts != nullptr ? *facts : kNone;
}

}  // namespace gpuprobe::bench

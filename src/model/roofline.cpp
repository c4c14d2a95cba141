#include "model/roofline.h"

#include <algorithm>

namespace gpuprobe::model {

double Roofline::Attainable(double intensity) const {
  if (!known() || !(intensity > 0)) return 0;
  return std::min(peak_flops, intensity * bandwidth);
}

double Roofline::RidgePoint() const { return known() ? peak_flops / bandwidth : 0; }

}  // namespace gpuprobe::model

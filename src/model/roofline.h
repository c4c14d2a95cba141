// The roofline: what a processor can attain at a given arithmetic intensity (FLOPs per byte
// of memory traffic) is the lower of its compute peak and intensity x memory bandwidth.
// Below the ridge point a kernel is bandwidth-bound; above it, compute-bound.
//
// Thread safety: pure functions.
#pragma once

namespace gpuprobe::model {

struct Roofline {
  double peak_flops = 0;  ///< FLOP/s
  double bandwidth = 0;   ///< bytes/s

  /// FLOP/s attainable at `intensity` FLOP/byte; 0 for a roofline without figures.
  double Attainable(double intensity) const;
  /// The intensity at which the two roofs meet (peak / bandwidth); 0 without figures.
  double RidgePoint() const;
  bool known() const { return peak_flops > 0 && bandwidth > 0; }
};

}  // namespace gpuprobe::model

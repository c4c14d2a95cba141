#include "bench/copy_prediction.h"

namespace gpuprobe::bench::gpu {

double CopySeconds(CopyPath path, double bytes, double bytes_per_second, double setup_seconds) {
  if (!(bytes_per_second > 0)) return 0;
  double crossings = path == CopyPath::kDeviceToDevice ? 2 : 1;  // a read and a write through HBM
  return setup_seconds + crossings * bytes / bytes_per_second;
}

double PredictedCopyRate(CopyPath path, double bytes, double bytes_per_second, double setup_seconds) {
  double seconds = CopySeconds(path, bytes, bytes_per_second, setup_seconds);
  if (!(seconds > 0)) return 0;
  return (path == CopyPath::kBothWays ? 2 * bytes : bytes) / seconds;
}

}  // namespace gpuprobe::bench::gpu

#include "model/queueing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuprobe::model {
namespace {
constexpr double kPercentileTail = 0.01;  // p99: 1% of arrivals wait longer
}  // namespace

double ErlangC(int servers, double offered_load) {
  const double a = std::max(0.0, offered_load);
  const int c = std::max(1, servers);
  if (a >= c) return 1.0;
  // Erlang B by its recursion B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), which stays in [0, 1]
  // for the thousands of servers a KV cache holds (the textbook sum of a^k / k! overflows);
  // then C = c B / (c - a (1 - B)). Kleinrock, Queueing Systems Vol. 1 (1975), section 3.5
  // (M/M/m) and 3.6 (M/M/m/m, Erlang's loss formula).
  double b = 1.0;
  for (int k = 1; k <= c; ++k) b = a * b / (k + a * b);
  return c * b / (c - a * (1.0 - b));
}

QueueWait MmcWait(double servers, double offered_load, double service_seconds) {
  QueueWait w;
  const int c = std::max(1, static_cast<int>(std::floor(std::min(servers, 1e6))));
  w.servers = c;
  w.offered_load = std::max(0.0, offered_load);
  w.utilisation = w.offered_load / c;
  if (w.offered_load >= c) {
    w.stable = false;
    w.wait_probability = 1.0;
    w.p99_wait_seconds = std::numeric_limits<double>::infinity();
    return w;
  }
  w.wait_probability = ErlangC(c, w.offered_load);
  // P(W > t) = C exp(-(c - a) t / s) (Kleinrock 1975, section 3.5): solve for P = 1%.
  if (w.wait_probability > kPercentileTail) {
    w.p99_wait_seconds = std::log(w.wait_probability / kPercentileTail) * service_seconds / (c - w.offered_load);
  }
  return w;
}

}  // namespace gpuprobe::model

#include "bench/gpu_kernel_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>


namespace gpuprobe::bench::gpu {

std::uint32_t FillBitSum(std::uint64_t first, std::uint64_t count, std::uint32_t seed) {
  std::uint32_t sum = 0;
  for (std::uint64_t i = first; i < first + count; ++i) {
    float v = FillValue(i, seed);
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    sum += bits;
  }
  return sum;
}

const char* StreamOpName(StreamOp op) {
  switch (op) {
    case StreamOp::kCopy: return "copy";
    case StreamOp::kScale: return "scale";
    case StreamOp::kAdd: return "add";
    case StreamOp::kTriad: return "triad";
    case StreamOp::kDot: return "dot";
  }
  return "?";
}

int StreamReads(StreamOp op) { return op == StreamOp::kCopy || op == StreamOp::kScale ? 1 : 2; }
int StreamWrites(StreamOp op) { return op == StreamOp::kDot ? 0 : 1; }
int StreamFlops(StreamOp op) {
  switch (op) {
    case StreamOp::kCopy: return 0;
    case StreamOp::kScale: case StreamOp::kAdd: return 1;
    case StreamOp::kTriad: case StreamOp::kDot: return 2;
  }
  return 0;
}

std::uint64_t DotFixedExpected(std::uint64_t n) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) sum += static_cast<std::uint64_t>(DotFixedTerm(FillValue(i, kSeedA), FillValue(i, kSeedB)));
  return sum;
}

Work StreamWork(StreamOp op, std::uint64_t n) {
  Work w;
  w.bytes_read = 4.0 * StreamReads(op) * static_cast<double>(n);
  w.bytes_written = 4.0 * StreamWrites(op) * static_cast<double>(n);
  w.flops = static_cast<double>(StreamFlops(op)) * static_cast<double>(n);
  return w;
}

double MatmulElement(std::uint64_t n, std::uint64_t row, std::uint64_t col) {
  double sum = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    sum += static_cast<double>(MatmulValue(row * n + k, kSeedA)) * static_cast<double>(MatmulValue(k * n + col, kSeedB));
  }
  return sum;
}

namespace {

// Sum over k of (column k of A summed) x (line k of B summed): B's row k for A x B, its
// column k for A x B^T. O(n^2), exact in double.
double ProductTotal(std::uint64_t n, bool b_transposed) {
  std::vector<double> a_col(n, 0.0), b_line(n, 0.0);
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t k = 0; k < n; ++k) {
      a_col[k] += MatmulValue(i * n + k, kSeedA);
      b_line[k] += MatmulValue(b_transposed ? i * n + k : k * n + i, kSeedB);
    }
  }
  double total = 0;
  for (std::uint64_t k = 0; k < n; ++k) total += a_col[k] * b_line[k];
  return total;
}

}  // namespace

double MatmulTotal(std::uint64_t n) { return ProductTotal(n, false); }

double MatmulAbtElement(std::uint64_t n, std::uint64_t i, std::uint64_t j) {
  double sum = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    sum += static_cast<double>(MatmulValue(i * n + k, kSeedA)) * static_cast<double>(MatmulValue(j * n + k, kSeedB));
  }
  return sum;
}

double MatmulAbtTotal(std::uint64_t n) { return ProductTotal(n, true); }

double MatmulExpectedAt(std::uint64_t n, std::uint64_t index, bool a_times_b_transposed) {
  std::uint64_t row = index / n, col = index % n;
  // Column-major D: index = i + j n, so i = col and j = row.
  return a_times_b_transposed ? MatmulAbtElement(n, col, row) : MatmulElement(n, row, col);
}

Work MatmulWork(std::uint64_t n) {
  Work w;
  double nn = static_cast<double>(n) * static_cast<double>(n);
  w.flops = 2 * nn * static_cast<double>(n);
  w.bytes_read = 2 * 4 * nn;
  w.bytes_written = 4 * nn;
  return w;
}

std::uint64_t CollatzTotal(std::uint64_t count) {
  std::uint64_t total = 0;
  for (std::uint64_t x = kCollatzFirst; x < kCollatzFirst + count; ++x) total += CollatzSteps(x);
  return total;
}

float ReplayPath(int q, int steps) {
  float x = 1.0f;
  for (int s = 0; s < steps; ++s) x = std::fmaf(x, PathMultiplier(q), kPathAddend);
  return x;
}

std::vector<std::uint64_t> CrossoverSizes(bool matmul, bool full) {
  std::vector<std::uint64_t> sizes;
  if (matmul) {
    for (std::uint64_t n = 16; n <= 2048; n *= full ? 2 : 4) sizes.push_back(n);
    if (sizes.back() != 2048) sizes.push_back(2048);
  } else {
    for (std::uint64_t n = 1024; n <= (64ull << 20); n *= full ? 4 : 8) sizes.push_back(n);
  }
  return sizes;
}

std::string CrossoverLabel(bool matmul, std::uint64_t size, const std::string& how) {
  std::string label;
  if (matmul) {
    label = "n=" + std::to_string(size);
  } else if (size >= (1ull << 20)) {
    label = std::to_string(size >> 20) + "M elements";
  } else {
    label = std::to_string(size >> 10) + "K elements";
  }
  return how.empty() ? label : label + ", " + how;
}

LaunchGeometry GridStride(std::uint64_t n, int width, std::uint32_t threads, int sm_count, int blocks_per_sm) {
  LaunchGeometry g;
  g.threads = std::max<std::uint32_t>(32, threads);
  std::uint64_t vectors = n / static_cast<std::uint64_t>(std::max(1, width));
  std::uint64_t items = std::max<std::uint64_t>(vectors, n > 0 ? 1 : 0);
  std::uint64_t needed = (items + g.threads - 1) / g.threads;
  std::uint64_t fill = static_cast<std::uint64_t>(std::max(1, sm_count)) * static_cast<std::uint64_t>(std::max(1, blocks_per_sm));
  g.blocks = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(std::min(needed, fill), 1, 0x7FFFFFFFull));
  return g;
}

std::vector<int> SimulateCoverage(std::uint64_t n, int width, const LaunchGeometry& g) {
  std::vector<int> counts(n, 0);
  std::uint64_t total = g.TotalThreads();
  std::uint64_t vectors = n / static_cast<std::uint64_t>(width);
  for (std::uint64_t t = 0; t < total; ++t) {
    for (std::uint64_t v = t; v < vectors; v += total) {
      for (int k = 0; k < width; ++k) ++counts[v * static_cast<std::uint64_t>(width) + static_cast<std::uint64_t>(k)];
    }
    for (std::uint64_t i = vectors * static_cast<std::uint64_t>(width) + t; i < n; i += total) ++counts[i];
  }
  return counts;
}

int BatchRepetitions(double seconds_per_rep, double target, int max_reps) {
  if (!(seconds_per_rep > 0) || !std::isfinite(seconds_per_rep)) return max_reps;
  double reps = std::ceil(target / seconds_per_rep);
  return static_cast<int>(std::clamp(reps, 1.0, static_cast<double>(max_reps)));
}

}  // namespace gpuprobe::bench::gpu

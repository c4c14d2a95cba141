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

double MatmulElement(std::uint64_t n, std::uint64_t row, std::uint64_t col, bool probe) {
  if (probe && row == 0) return static_cast<double>(kTf32Probe) * static_cast<double>(MatmulValue(col, kSeedB));
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

double MatmulExpectedAt(std::uint64_t n, std::uint64_t index, bool a_times_b_transposed, bool probe) {
  std::uint64_t row = index / n, col = index % n;
  // Column-major D: index = i + j n, so i = col and j = row.
  return a_times_b_transposed ? MatmulAbtElement(n, col, row) : MatmulElement(n, row, col, probe);
}

double MatmulTotalBeyondFirstRow(std::uint64_t n, bool a_times_b_transposed) {
  // Integers below 2^53 throughout: the difference is exact.
  double first_row = 0;
  for (std::uint64_t index = 0; index < n; ++index) first_row += MatmulExpectedAt(n, index, a_times_b_transposed);
  return (a_times_b_transposed ? MatmulAbtTotal(n) : MatmulTotal(n)) - first_row;
}

GemmNumerics GemmNumericsOf(GemmInput in, GemmAccumulate accumulate, GemmOutput out) {
  GemmNumerics m;
  m.input_unit = in == GemmInput::kTf32 ? std::ldexp(1.0, -10) : 0.0;
  switch (accumulate) {
    case GemmAccumulate::kFp32: m.accumulate_unit = std::ldexp(1.0, -23); break;
    case GemmAccumulate::kFp8Fast: m.accumulate_unit = std::ldexp(1.0, -13); break;
    case GemmAccumulate::kInt32: m.accumulate_unit = 0; break;
  }
  switch (out) {
    case GemmOutput::kFp32: m.output_unit = std::ldexp(1.0, -24); break;
    case GemmOutput::kFp16: m.output_unit = std::ldexp(1.0, -11); break;
    case GemmOutput::kBf16: m.output_unit = std::ldexp(1.0, -8); break;
    case GemmOutput::kInt32: m.output_unit = 0; break;
  }
  return m;
}

double GemmTolerance(const GemmNumerics& m, std::uint64_t k, double exact, double abs_sum) {
  if (m.input_unit == 0 && m.accumulate_unit == 0 && m.output_unit == 0) return 0;
  const double kd = static_cast<double>(k);
  // (1 + u)^k - 1 without cancellation: expm1(k log1p(u)).
  const double products = std::expm1(2 * std::log1p(m.input_unit) + kd * std::log1p(m.accumulate_unit));
  const double reference = std::expm1(kd * std::log1p(std::ldexp(1.0, -53)));
  return m.output_unit * std::fabs(exact) + (1 + m.output_unit) * products * abs_sum + reference * abs_sum;
}

namespace {

// A's and B's elements as the GEMM reads them for output (i, j) at step k.
double RandomA(GemmInput t, std::uint64_t n, std::uint64_t i, std::uint64_t k) {
  return GemmRandomValue(i * n + k, kSeedA, t);
}
double RandomB(GemmInput t, std::uint64_t n, std::uint64_t k, std::uint64_t j, bool transposed) {
  return GemmRandomValue(transposed ? j * n + k : k * n + j, kSeedB, t);
}

}  // namespace

GemmReference GemmRandomExpectedAt(GemmInput t, std::uint64_t n, std::uint64_t index, bool a_times_b_transposed) {
  const std::uint64_t row = index / n, col = index % n;
  // Column-major D: index = i + j n, so i = col and j = row.
  const std::uint64_t i = a_times_b_transposed ? col : row, j = a_times_b_transposed ? row : col;
  GemmReference r;
  for (std::uint64_t k = 0; k < n; ++k) {
    const double product = RandomA(t, n, i, k) * RandomB(t, n, k, j, a_times_b_transposed);  // exact: <= 48 significant bits
    r.value += product;
    r.abs_sum += std::fabs(product);
  }
  return r;
}

std::int64_t GemmRandomInt8Total(std::uint64_t n, bool a_times_b_transposed) {
  std::vector<std::int64_t> a_col(n, 0), b_line(n, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t k = 0; k < n; ++k) {
      a_col[k] += static_cast<std::int64_t>(RandomA(GemmInput::kInt8, n, i, k));
      b_line[k] += static_cast<std::int64_t>(RandomB(GemmInput::kInt8, n, k, i, a_times_b_transposed));
    }
  }
  std::int64_t total = 0;
  for (std::uint64_t k = 0; k < n; ++k) total += a_col[k] * b_line[k];
  return total;
}

double GemmOutputBound(const GemmNumerics& m, GemmInput t, std::uint64_t k) {
  const double largest = t == GemmInput::kInt8 ? 128.0 * 128.0 : 1.0;
  const double s = static_cast<double>(k) * largest;
  return s + GemmTolerance(m, k, s, s);
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

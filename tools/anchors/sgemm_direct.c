/* The comparison point for gpuprobe's matmul ladder: OpenBLAS SGEMM called directly at n x n
 * (row-major, all threads). Usage: sgemm_direct N REPEATS. Prints median and best FLOP/s. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  int repeats = argc > 2 ? atoi(argv[2]) : 6;
  size_t count = (size_t)n * n;
  float* a = malloc(count * sizeof(float));
  float* b = malloc(count * sizeof(float));
  float* c = malloc(count * sizeof(float));
  if (!a || !b || !c || repeats < 2) return 2;
  for (size_t i = 0; i < count; ++i) {
    a[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    b[i] = (float)((i * 40503u) % 1000) / 1000.0f - 0.5f;
  }
  double* times = malloc(sizeof(double) * repeats);
  for (int r = 0; r < repeats; ++r) {
    double t = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    times[r] = now() - t;
  }
  qsort(times + 1, repeats - 1, sizeof(double), cmp);
  double flops = 2.0 * n * (double)n * n;
  printf("{\"median_flops\": %.6e, \"best_flops\": %.6e}\n", flops / times[1 + (repeats - 1) / 2], flops / times[1]);
  return 0;
}

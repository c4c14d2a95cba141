/* The comparison point for gpuprobe's memory.triad: a plain OpenMP triad a = b + s*c, built
 * with -O3 -march=native -fopenmp, counted STREAM's way (3 x 8 bytes per element, no
 * write-allocate traffic). Usage: stream_triad_omp BYTES_PER_ARRAY REPEATS
 * Prints the median and best bandwidth in bytes per second as JSON. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char** argv) {
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (32u << 20);
  int repeats = argc > 2 ? atoi(argv[2]) : 20;
  size_t n = bytes / sizeof(double);
  double* a = aligned_alloc(4096, n * sizeof(double));
  double* b = aligned_alloc(4096, n * sizeof(double));
  double* c = aligned_alloc(4096, n * sizeof(double));
  if (!a || !b || !c || repeats < 2) return 2;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0 + (double)(i % 7);
    c[i] = 2.0 + (double)(i % 5);
  }
  const double s = 0.4;
  double* times = malloc(sizeof(double) * repeats);
  for (int r = 0; r < repeats; ++r) {
    double t = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    times[r] = omp_get_wtime() - t;
  }
  /* the first run is a warm-up */
  qsort(times + 1, repeats - 1, sizeof(double), cmp);
  double median = times[1 + (repeats - 1) / 2], best = times[1];
  double moved = 3.0 * sizeof(double) * (double)n;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += a[i] != b[i] + s * c[i];
  printf("{\"median_bytes_per_s\": %.6e, \"best_bytes_per_s\": %.6e, \"threads\": %d, \"wrong\": %zu}\n", moved / median,
         moved / best, omp_get_max_threads(), bad);
  return bad != 0;
}

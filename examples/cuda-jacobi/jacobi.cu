/*
 * 1-D Jacobi relaxation, every iteration in one persistent CUDA kernel: an ordinary launch (no
 * cooperative launch), the blocks that discovery finds running at once sweep the array and meet
 * at wgsync's grid barrier between iterations. Checked against the CPU. Exits 77 without a GPU.
 *   jacobi [N] [ITERS]      (defaults 1048576, 500)
 */
#include <stdio.h>
#include <stdlib.h>

#include "wgsync.cuh"
#include "wgsync_cuda.h"

__global__ void jacobi(unsigned *wgs, float *a, float *b, unsigned n, unsigned iters)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (unsigned it = 0; it < iters; ++it) {
      const float *src = (it & 1) ? b : a;
      float *dst = (it & 1) ? a : b;
      for (size_t i = wgs_get_global_id(&env); i < n; i += wgs_get_global_size(&env))
        dst[i] = (i == 0 || i == n - 1) ? src[i] : 0.5f * (src[i - 1] + src[i + 1]);
      wgs_grid_barrier(&env); /* this iteration's writes are visible to the next */
    }
  }
}

#define TRY(call)                                                                            \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    if (rc_ != WGS_OK) {                                                                     \
      fprintf(stderr, "%s failed: %s: %s\n", #call, wgs_strerror(rc_), wgs_last_error());    \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1u << 20, iters = argc > 2 ? (unsigned)atoi(argv[2]) : 500;
  int count = 0;
  if (wgs_cuda_device_count(&count) != WGS_OK || count == 0) {
    printf("SKIP: %s\n", wgs_last_error());
    return 77;
  }
  float *x = (float *)malloc(n * sizeof *x), *y = (float *)malloc(n * sizeof *y);
  float *got = (float *)malloc(n * sizeof *got);
  for (unsigned i = 0; i < n; i++)
    x[i] = y[i] = (float)(i % 17) * 0.25f;
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMemcpy(a, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, x, n * sizeof(float), cudaMemcpyHostToDevice);

  wgs_cuda_state_t *st;
  TRY(wgs_cuda_state_create(0, wgs_cuda_default_groups(0, 256), &st));
  void *args[] = {NULL /* the state: filled in */, &a, &b, &n, &iters};
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 256;
  wgs_launch_result res;
  TRY(wgs_cuda_launch(st, (const void *)jacobi, args, 5, 0, 0, &cfg, &res));
  cudaMemcpy(got, iters & 1 ? b : a, n * sizeof(float), cudaMemcpyDeviceToHost);

  for (unsigned it = 0; it < iters; it++) {
    float *src = it & 1 ? y : x, *dst = it & 1 ? x : y;
    for (unsigned i = 0; i < n; i++)
      dst[i] = (i == 0 || i == n - 1) ? src[i] : 0.5f * (src[i - 1] + src[i + 1]);
  }
  const float *want = iters & 1 ? y : x;
  double worst = 0;
  for (unsigned i = 0; i < n; i++) {
    double d = (double)got[i] - want[i];
    d = d < 0 ? -d : d;
    worst = d > worst ? d : worst;
  }
  wgs_device_info info;
  TRY(wgs_cuda_device_info(0, &info));
  printf("%s: %u iterations over %u points in one launch: %u blocks took part; max difference "
         "from the CPU %.3g: %s\n",
         info.name, iters, n, res.participants, worst, worst <= 1e-5 ? "PASS" : "FAIL");
  wgs_cuda_state_release(st);
  cudaFree(a);
  cudaFree(b);
  free(x);
  free(y);
  free(got);
  return worst <= 1e-5 ? 0 : 1;
}

/*
 * A user's kernel ported from grid.sync() to wgsync, as the README ports one: a 1-D heat stencil
 * (grid-stride loop over the points, a grid barrier between steps), bandwidth-bound at large
 * sizes. What the port costs shows here and not in the barrier benchmarks: the device library's
 * registers lower the groups an SM holds, and a bandwidth-bound step needs them.
 * Forms, one kernel body each: cooperative groups' grid.sync() (cooperative launch, the
 * occupancy API's groups), and wgsync's barrier after wgs_discover (the library's default
 * launch: discovery on a state of wgs_cuda_default_groups). Both compute the same values
 * (no contraction: __fmaf_rn is not used, each operation rounds), and the run fails when the
 * final arrays differ in any bit. Time: the kernel's, median of 7 after a warm-up, the forms
 * alternating.
 *   wgsync-bench-stencil [results folder]   writes stencil.csv
 * (WGS_STENCIL_SIZES="65536x2000 16777216x100": other points x steps)
 */
#include <cooperative_groups.h>
#include <string.h>
#include <vector>

#include "bench_util.h"
#include "wgsync.cuh"
#include "wgsync_cuda.h"

namespace cg = cooperative_groups;

static __device__ __forceinline__ float heat_point(const float *a, unsigned i, unsigned n)
{
  float l = i > 0 ? a[i - 1] : a[i], r = i + 1 < n ? a[i + 1] : a[i];
  return __fadd_rn(a[i], __fmul_rn(0.25f, __fadd_rn(__fsub_rn(l, __fmul_rn(2.f, a[i])), r)));
}

/* a holds the initial values; after `steps` steps the result is in a for even steps, else b */
extern "C" __global__ void heat_grid_sync(float *a, float *b, unsigned n, unsigned steps)
{
  cg::grid_group grid = cg::this_grid();
  for (unsigned s = 0; s < steps; ++s) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      b[i] = heat_point(a, i, n);
    grid.sync();
    float *t = a;
    a = b;
    b = t;
  }
}
extern "C" __global__ void heat_wgsync(unsigned *wgs, float *a, float *b, unsigned n, unsigned steps)
{
  wgs_env env;
  if (!wgs_discover(wgs, &env))
    return;
  unsigned first = (unsigned)wgs_get_global_id(&env), stride = (unsigned)wgs_get_global_size(&env);
  for (unsigned s = 0; s < steps; ++s) {
    for (unsigned i = first; i < n; i += stride)
      b[i] = heat_point(a, i, n);
    wgs_grid_barrier(&env);
    float *t = a;
    a = b;
    b = t;
  }
}

int main(int argc, char **argv)
{
  const char *out = argc > 1 ? argv[1] : ".";
  if (results_dir("wgsync-bench-stencil", out))
    return 2;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  auto sizes = env_pairs("WGS_STENCIL_SIZES", {{65536, 2000}, {1u << 20, 500}, {1u << 24, 100}});
  const unsigned T = 256, R = 7;
  cudaFuncAttributes fa_cg, fa_w;
  CK(cudaFuncGetAttributes(&fa_cg, (const void *)heat_grid_sync));
  CK(cudaFuncGetAttributes(&fa_w, (const void *)heat_wgsync));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)heat_grid_sync, T, 0));
  unsigned cg_groups = (unsigned)per_sm * in.compute_units;
  unsigned cap = wgs_cuda_default_groups(0, T);
  wgs_cuda_state_t *st;
  if (wgs_cuda_state_create(0, cap, &st) != WGS_OK) {
    printf("%s\n", wgs_last_error());
    return 1;
  }
  printf("wgsync-bench-stencil  %s\ndevice %s, %s; %u threads a group; registers: grid.sync() %d, "
         "wgsync %d\n", date, in.name, in.driver_version, T, fa_cg.numRegs, fa_w.numRegs);
  FILE *f = results_file("wgsync-bench-stencil", out, "stencil.csv");
  fprintf(f, "# %s, %s, %s; %u threads a group; kernel time, median of %u after a warm-up, forms "
             "alternating\n", date, in.name, in.driver_version, T, R);
  fprintf(f, "form,points,steps,registers,groups,median_ms,min_ms,max_ms,over_grid_sync\n");
  int bad = 0;
  for (auto &sz : sizes) {
    unsigned n = sz.first, steps = sz.second;
    std::vector<float> init(n);
    for (unsigned i = 0; i < n; i++)
      init[i] = (float)((i * 2654435761u) >> 20) / 4096.0f;
    float *a, *b;
    CK(cudaMalloc(&a, (size_t)n * sizeof(float)));
    CK(cudaMalloc(&b, (size_t)n * sizeof(float)));
    std::vector<float> res[2];
    std::vector<double> v[2];
    unsigned groups[2] = {cg_groups, 0};
    for (unsigned r = 0; r <= R && !bad; r++) {
      for (unsigned fi = 0; fi < 2; fi++) {
        CK(cudaMemcpy(a, init.data(), (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaMemset(b, 0, (size_t)n * sizeof(float)));
        double ms = 0;
        if (fi == 0) {
          void *args[4] = {(void *)&a, (void *)&b, (void *)&n, (void *)&steps};
          cudaEvent_t e0, e1;
          CK(cudaEventCreate(&e0));
          CK(cudaEventCreate(&e1));
          CK(cudaEventRecord(e0));
          CK(cudaLaunchCooperativeKernel((const void *)heat_grid_sync, dim3(cg_groups), dim3(T), args, 0, 0));
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float t = 0;
          CK(cudaEventElapsedTime(&t, e0, e1));
          cudaEventDestroy(e0);
          cudaEventDestroy(e1);
          ms = t;
        } else {
          wgs_launch_config c;
          wgs_launch_config_init(&c);
          c.local_size = T;
          c.groups = cap;
          c.time_kernel = 1;
          void *args[5] = {NULL, (void *)&a, (void *)&b, (void *)&n, (void *)&steps};
          wgs_launch_result lr;
          if (wgs_cuda_launch(st, (const void *)heat_wgsync, args, 5, 0, 0, &c, &lr) != WGS_OK) {
            printf("wgsync at %u points: %s\n", n, wgs_last_error());
            bad = 1;
            break;
          }
          ms = lr.kernel_us / 1e3;
          groups[1] = lr.participants;
        }
        if (r == 0) { /* the warm-up's result is the one compared */
          res[fi].resize(n);
          CK(cudaMemcpy(res[fi].data(), steps % 2 ? b : a, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
        } else {
          v[fi].push_back(ms);
        }
      }
      if (r == 0 && !bad && memcmp(res[0].data(), res[1].data(), (size_t)n * sizeof(float)) != 0) {
        printf("FAIL: %u points x %u steps: wgsync's result differs from grid.sync()'s\n", n, steps);
        bad = 1;
      }
    }
    cudaFree(a);
    cudaFree(b);
    if (bad)
      break;
    stat3 s0 = stats(v[0]);
    for (unsigned fi = 0; fi < 2; fi++) {
      stat3 s = stats(v[fi]);
      const char *name = fi ? "wgsync" : "grid.sync()";
      fprintf(f, "\"%s\",%u,%u,%d,%u,%.4f,%.4f,%.4f,%.3f\n", name, n, steps, fi ? fa_w.numRegs : fa_cg.numRegs,
              groups[fi], s.med, s.lo, s.hi, s.med / s0.med);
      printf("%9u points x %4u steps  %-12s %2d registers %5u groups  %8.3f ms  (%.3fx grid.sync())\n", n,
             steps, name, fi ? fa_w.numRegs : fa_cg.numRegs, groups[fi], s.med, s.med / s0.med);
    }
  }
  fclose(f);
  wgs_cuda_state_release(st);
  return bad;
}

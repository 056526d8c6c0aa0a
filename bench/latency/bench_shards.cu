/*
 * The counter barrier's shapes (device/cuda/wgsync.cuh, "Counter barrier") side by side with
 * cooperative groups' grid.sync() in one process: per-barrier latency with one polled arrival
 * count after release adds ("0/a0") or after acq_rel adds ("0/a1"), with S arrival shards and R
 * published replicas from the first group ("S,R,1"), one count whose last arrival publishes on
 * R replicas ("pR", from the first group), the default ("default": the shape
 * src/tuning.h's thresholds choose for the group count), and a
 * message-passing check across every barrier (each thread reads a value another group wrote
 * before the same barrier): crossings checked and stale reads per shape. Also the registers the
 * kernels take, which decide how many groups an SM holds; both kernels are capped at 32
 * (__launch_bounds__(1024, 2): 2048 threads per SM) so that every shape measured is resident.
 * Writes shards.csv into the folder argv[1].
 */
#include <algorithm>
#include <cooperative_groups.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <string>
#include <vector>

#include "bench_util.h"
#include "bench_variants.h" /* before the device library: its hooks */
#include "wgsync.cuh"
#include "wgsync_cuda.h"
#include "bench_shape.h"

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(1024, 2) lat_k(unsigned *wgs, unsigned iters, unsigned *sink)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    for (unsigned i = 0; i < iters; i++)
      wgs_grid_barrier(&e);
    if (e.local_id == 0 && e.group_id == 0)
      sink[0] = e.instance;
  }
}
__global__ void cg_k(unsigned iters, unsigned *sink)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = 0; i < iters; i++)
    g.sync();
  if (g.thread_rank() == 0)
    sink[0] = iters;
}
/* Message passing across each barrier: write own slot, barrier, read another group's slot. */
__global__ void __launch_bounds__(1024, 2) mp_k(unsigned *wgs, unsigned *data, unsigned rounds, unsigned *bad)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    unsigned n = wgs_get_num_groups(&e), N = n * e.local_size, gid = (unsigned)wgs_get_global_id(&e);
    unsigned stale = 0;
    for (unsigned r = 0; r < rounds; r++) {
      unsigned *buf = data + (r & 1u) * N;
      buf[gid] = r * 7919u + gid;
      wgs_grid_barrier(&e);
      unsigned src = (gid + (r % (n - 1u) + 1u) * e.local_size) % N;
      if (buf[src] != r * 7919u + src)
        stale++;
    }
    if (stale)
      atomicAdd(bad, stale);
  }
}

int main(int argc, char **argv)
{
  const char *out = argc > 1 ? argv[1] : ".";
  if (results_dir("wgsync-bench-shards", out))
    return 2;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  cudaFuncAttributes fa_lat, fa_mp;
  CK(cudaFuncGetAttributes(&fa_lat, lat_k));
  CK(cudaFuncGetAttributes(&fa_mp, mp_k));
  printf("wgsync counter-barrier shapes bench (design %d)  %s\ndevice %s (%u SMs), %s; registers: latency kernel %d, "
         "mp kernel %d\n", WGS_COUNTER_VARIANT, date, in.name, in.compute_units,
         in.driver_version, fa_lat.numRegs, fa_mp.numRegs);
  FILE *f = results_file("wgsync-bench-shards", out, "shards.csv");
  fprintf(f, "# %s, %s, %s; counter design %d; registers: latency kernel %d, mp kernel %d\n", date,
          in.name, in.driver_version, WGS_COUNTER_VARIANT, fa_lat.numRegs, fa_mp.numRegs);
  fprintf(f, "what,shape,groups,threads,median_us,min_us,max_us,repeats,barriers_per_repeat,mp_crossings,mp_stale\n");
  const unsigned K = 2000, R = 7, MPR = 2000;
  unsigned *sink, *bad, *data;
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&bad, 4));
  CK(cudaMalloc(&data, 2 * 4224 * 256 * sizeof(unsigned)));
  const unsigned settings[][2] = {{66, 256},  {132, 256}, {264, 256},  {264, 1024}, {528, 256},
                                  {792, 256}, {1056, 256}, {2112, 128}, {4224, 32}};
  /* A shape is "pR" (published on R replicas), the tuning's shards ("S,R[,MIN]"; "0": one
   * count; "default": the library's),
   * and after a '/' "aN" its atom_min=N: "0/a0" polls one count after release adds at every
   * count, "0/a1" after acq_rel adds. WGS_BENCH_SHAPES="a;b;..." measures only those shapes. */
  std::vector<std::string> shapes = env_list("WGS_BENCH_SHAPES", {"default", "p32", "p16", "0/a0", "0/a1", "8,8,1",
                                                                 "16,16,1", "16,32,1", "32,16,1", "32,32,1"});
  for (auto &s : settings) {
    unsigned G = s[0], T = s[1];
    int per = 0, per_mp = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, lat_k, T, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_mp, mp_k, T, 0));
    std::vector<double> v;
    void *cargs[2] = {(void *)&K, (void *)&sink};
    for (unsigned r = 0; r <= R; r++) {
      cudaEvent_t a, b;
      cudaEventCreate(&a), cudaEventCreate(&b);
      cudaEventRecord(a);
      cudaError_t ce = cudaLaunchCooperativeKernel((const void *)cg_k, dim3(G), dim3(T), cargs, 0, 0);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (ce != cudaSuccess) {
        cudaGetLastError();
        break;
      }
      if (r)
        v.push_back(ms * 1e3 / K);
    }
    if (v.size() == R) {
      stat3 s = stats(v);
      fprintf(f, "cooperative groups grid.sync(),-,%u,%u,%.4f,%.4f,%.4f,%u,%u,,\n", G, T, s.med,
              s.lo, s.hi, R, K);
      printf("%-34s %-6s %5ux%-4u %8.3f us\n", "grid.sync()", "-", G, T, s.med);
    }
    if ((unsigned)per * in.compute_units < G || (unsigned)per_mp * in.compute_units < G) {
      printf("%ux%u: the kernels hold %d (latency) / %d (mp) groups per SM: %u x %u not "
             "resident, skipped\n", G, T, per, per_mp, G, T);
      fprintf(f, "# %ux%u skipped: %d / %d groups per SM\n", G, T, per, per_mp);
      continue;
    }
    wgs_cuda_state_t *st;
    if (wgs_cuda_state_create(0, G, &st) != WGS_OK)
      return 1;
    for (const std::string &shape_s : shapes) {
      const char *shape = shape_s.c_str();
      if (bench_set_shape(shape_s) != WGS_OK) {
        printf("shape %s: %s\n", shape, wgs_last_error());
        continue;
      }
      wgs_launch_config c;
      wgs_launch_config_init(&c);
      c.local_size = T;
      c.groups = G;
      c.discovery = WGS_DISCOVERY_FIXED;
      c.barrier = WGS_BARRIER_COUNTER;
      c.time_kernel = 1;
      v.clear();
      int rc = WGS_OK;
      for (unsigned r = 0; r <= R && rc == WGS_OK; r++) {
        void *args[3] = {NULL, (void *)&K, (void *)&sink};
        wgs_launch_result res;
        rc = wgs_cuda_launch(st, (const void *)lat_k, args, 3, 0, 0, &c, &res);
        if (r && rc == WGS_OK)
          v.push_back(res.kernel_us / K);
      }
      unsigned nbad = 0;
      if (rc == WGS_OK) {
        CK(cudaMemset(bad, 0, 4));
        unsigned rounds = MPR;
        void *args[4] = {NULL, (void *)&data, (void *)&rounds, (void *)&bad};
        c.time_kernel = 0;
        rc = wgs_cuda_launch(st, (const void *)mp_k, args, 4, 0, 0, &c, NULL);
        CK(cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost));
      }
      if (rc != WGS_OK) {
        printf("%s at %ux%u: %s\n", shape, G, T, wgs_last_error());
        continue;
      }
      unsigned long long crossings = (unsigned long long)MPR * G * T;
      stat3 s = stats(v);
      fprintf(f, "wgsync counter,\"%s\",%u,%u,%.4f,%.4f,%.4f,%u,%u,%llu,%u\n", shape, G, T, s.med,
              s.lo, s.hi, R, K, crossings, nbad);
      printf("%-34s %-6s %5ux%-4u %8.3f us   mp: %llu reads, %u stale\n", "wgsync counter, S,R =", shape,
             G, T, s.med, crossings, nbad);
    }
    wgs__tuning_set(NULL);
    wgs_cuda_state_release(st);
  }
  fclose(f);
  return 0;
}

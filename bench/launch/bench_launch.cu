/*
 * wgsync launch overhead (CUDA), side by side in one process: an empty persistent launch
 * (discovery + one grid barrier; and with a fixed group count) against an empty cooperative
 * launch (one grid.sync()) and an empty plain launch, each waited for (host wall clock per
 * call), and N back to back with one wait at the end (per launch). Warm-up, then R repeats of N
 * calls; median, min, max. Writes launch.csv into the folder argv[1].
 *
 * Built with WGS_BENCH_SYNC_ONLY it uses only wgs_cuda_launch, the call every wgsync version
 * has, so that it builds against a tree older than this benchmark: before and after on one
 * machine (nvcc -DWGS_BENCH_SYNC_ONLY with that tree's headers and libraries).
 */
#include <algorithm>
#include <cooperative_groups.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <vector>

#include "bench_util.h"
#include "wgsync.cuh"
#include "wgsync_cuda.h"

namespace cg = cooperative_groups;

/* At most 32 registers (8 groups of 256 per SM), as coop_one: the fixed form launches the
 * cooperative kernel's group count, and unchecked, a count that is not resident hangs. */
__global__ void __launch_bounds__(1024, 2) persistent_one(unsigned *wgs, unsigned iters, unsigned *sink)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    for (unsigned i = 0; i < iters; i++)
      wgs_grid_barrier(&e);
    if (e.local_id == 0 && e.group_id == 0)
      sink[0] = e.instance;
  }
}
__global__ void coop_one(unsigned iters, unsigned *sink)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = 0; i < iters; i++)
    g.sync();
  if (g.thread_rank() == 0)
    sink[0] = iters;
}
__global__ void empty_kernel(unsigned *p) {}

int main(int argc, char **argv)
{
  const char *out = argc > 1 ? argv[1] : ".";
  if (results_dir("wgsync-bench-launch", out))
    return 2;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  const unsigned N = 200, R = 7, T = 256, one = 1, zero = 0;
  const unsigned G = wgs_cuda_default_groups(0, T);
  int per = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, coop_one, T, 0));
  const unsigned CG = (unsigned)per * in.compute_units; /* all a cooperative launch may take */
  printf("wgsync launch bench  %s\ndevice %s (%s, %u SMs), %s%s\n", date, in.name,
         in.device_version, in.compute_units, in.driver_version,
#ifdef WGS_BENCH_SYNC_ONLY
         ", synchronous API only");
#else
         "");
#endif
  unsigned *sink;
  CK(cudaMalloc(&sink, 64));
  wgs_cuda_state_t *st;
  if (wgs_cuda_state_create(0, G, &st) != WGS_OK) {
    printf("%s\n", wgs_last_error());
    return 1;
  }
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void *cargs[2] = {(void *)&one, (void *)&sink}, *wargs[3] = {NULL, (void *)&one, (void *)&sink};
  /* the same kernels with no barrier: what the launch itself costs, apart from its barrier */
  void *cargs0[2] = {(void *)&zero, (void *)&sink}, *wargs0[3] = {NULL, (void *)&zero, (void *)&sink};
  wgs_launch_config c;
  wgs_launch_config_init(&c);
  c.local_size = T;
  c.groups = G;
  wgs_launch_config cf = c;
  cf.groups = CG;
  cf.discovery = WGS_DISCOVERY_FIXED;
  /* enqueue_only: the host time of the N calls alone (the wait after them is not timed): what a
   * launch costs the CPU, against the per-launch time back to back, which is the larger of that
   * and the GPU's. The raw cases launch the same kernel with <<<>>> on the state the wgsync
   * launch before them configured (launch epochs keep it valid; the host reads no result after
   * them, so they come last): the device's share of a wgsync launch without any host-side work. */
  /* cold: each call timed alone (with its wait), after the host swept a buffer larger than its
   * caches and left the GPU idle, untimed: as an app's launch comes after its CPU check of the
   * last result. The API calls of wgsync's launch path alone (kinds 13-15), the same way. */
  struct { const char *what; unsigned groups; int kind; int wait_each; int enqueue_only; int cold; } cases[] = {
      {"plain launch (empty kernel) + wait", G, 0, 1, 0, 0},
      {"cooperative launch (one grid.sync) + wait", CG, 1, 1, 0, 0},
      {"wgsync launch (discovery + one barrier), synchronous", G, 2, 1, 0, 0},
      {"wgsync launch (fixed groups + one barrier), synchronous", CG, 3, 1, 0, 0},
      {"plain launches back to back", G, 0, 0, 0, 0},
      {"cooperative launches back to back", CG, 1, 0, 0, 0},
#ifndef WGS_BENCH_SYNC_ONLY
      {"wgsync async launches (discovery + one barrier) back to back", G, 4, 0, 0, 0},
      {"wgsync async launches (fixed groups + one barrier) back to back", CG, 5, 0, 0, 0},
      {"cooperative launches, no grid.sync, back to back", CG, 6, 0, 0, 0},
      {"wgsync async launches (discovery, no barrier) back to back", G, 7, 0, 0, 0},
      {"wgsync async launches (fixed groups, no barrier) back to back", CG, 8, 0, 0, 0},
      {"  host time per wgsync async call (discovery + one barrier)", G, 4, 0, 1, 0},
      {"  host time per wgsync async call (fixed groups, no barrier)", CG, 8, 0, 1, 0},
      {"  host time per cooperative launch call (one grid.sync)", CG, 1, 0, 1, 0},
      {"  host time per plain launch call", G, 0, 0, 1, 0},
      {"raw <<<>>> launches of the wgsync kernel, fixed groups, no barrier", CG, 9, 0, 0, 0},
      {"raw <<<>>> launches of the wgsync kernel, fixed groups + one barrier", CG, 10, 0, 0, 0},
      {"raw <<<>>> launches of the wgsync kernel, discovery, no barrier", G, 11, 0, 0, 0},
      {"raw <<<>>> launches of the wgsync kernel, discovery + one barrier", G, 12, 0, 0, 0},
#endif
      {"cold: plain launch (empty kernel) + wait", G, 0, 1, 0, 1},
      {"cold: cooperative launch (one grid.sync) + wait", CG, 1, 1, 0, 1},
      {"cold: wgsync launch (discovery + one barrier), synchronous", G, 2, 1, 0, 1},
      {"cold: wgsync launch (fixed groups + one barrier), synchronous", CG, 3, 1, 0, 1},
#ifndef WGS_BENCH_SYNC_ONLY
      {"cold: wgsync async launch call (discovery + one barrier), the wait not timed", G, 4, 0, 0, 1},
      {"cold: cooperative launch call (one grid.sync), the wait not timed", CG, 1, 0, 0, 1},
      {"cold: wgs_cuda_state_result after the wait", G, 16, 0, 0, 1},
#endif
      {"cold: cudaGetDevice", 0, 13, 0, 0, 1},
      {"cold: cudaStreamIsCapturing", 0, 14, 0, 0, 1},
      {"cold: cudaStreamSynchronize, the stream idle", 0, 15, 0, 0, 1},
  };
  std::vector<unsigned char> sweep((size_t)64 << 20);
  FILE *f = results_file("wgsync-bench-launch", out, "launch.csv");
  fprintf(f, "# %s, %s, %s, %u calls per repeat, %u repeats after a warm-up\n", date, in.name,
          in.driver_version, N, R);
  fprintf(f, "what,groups,threads,calls,median_us,min_us,max_us,repeats,note\n");
  printf("%-66s %6s %10s %10s %10s\n", "launch overhead (host wall clock)", "groups", "median_us",
         "min", "max");
  for (auto &lc : cases) {
    std::vector<double> v;
    int rc = WGS_OK;
#ifndef WGS_BENCH_SYNC_ONLY
    if (lc.kind >= 9) { /* the state configured for the raw launches' mode, once */
      rc = wgs_cuda_launch_async(st, (const void *)persistent_one, wargs0, 3, 0, s, lc.kind <= 10 ? &cf : &c);
      CK(cudaStreamSynchronize(s));
    }
    unsigned *state_ptr = wgs_cuda_state_device_ptr(st);
#endif
    const unsigned n = lc.cold ? N / 8 : N;
    for (unsigned r = 0; r <= R && rc == WGS_OK; r++) {
      double t0 = now_us(), cold_us = 0, ta = 0;
      for (unsigned i = 0; i < n && rc == WGS_OK; i++) {
        if (lc.cold) {
#ifndef WGS_BENCH_SYNC_ONLY
          if (lc.kind == 16) { /* the launch and its wait, untimed: the result read alone is */
            rc = wgs_cuda_launch_async(st, (const void *)persistent_one, wargs, 3, 0, s, &c);
            CK(cudaStreamSynchronize(s));
          }
#endif
          for (size_t b = 0; b < sweep.size(); b += 64)
            sweep[b] = (unsigned char)(sweep[b] + i);
          ta = now_us();
        }
        int dev;
        cudaStreamCaptureStatus cap;
        switch (lc.kind) {
        case 0: empty_kernel<<<lc.groups, T, 0, s>>>(sink); break;
        case 1: CK(cudaLaunchCooperativeKernel((const void *)coop_one, dim3(lc.groups), dim3(T), cargs, 0, s)); break;
        case 2: rc = wgs_cuda_launch(st, (const void *)persistent_one, wargs, 3, 0, s, &c, NULL); break;
        case 3: rc = wgs_cuda_launch(st, (const void *)persistent_one, wargs, 3, 0, s, &cf, NULL); break;
#ifndef WGS_BENCH_SYNC_ONLY
        case 4: rc = wgs_cuda_launch_async(st, (const void *)persistent_one, wargs, 3, 0, s, &c); break;
        case 5: rc = wgs_cuda_launch_async(st, (const void *)persistent_one, wargs, 3, 0, s, &cf); break;
        case 6: CK(cudaLaunchCooperativeKernel((const void *)coop_one, dim3(lc.groups), dim3(T), cargs0, 0, s)); break;
        case 7: rc = wgs_cuda_launch_async(st, (const void *)persistent_one, wargs0, 3, 0, s, &c); break;
        case 8: rc = wgs_cuda_launch_async(st, (const void *)persistent_one, wargs0, 3, 0, s, &cf); break;
        case 9: case 11: persistent_one<<<lc.groups, T, 0, s>>>(state_ptr, 0u, sink); break;
        case 10: case 12: persistent_one<<<lc.groups, T, 0, s>>>(state_ptr, 1u, sink); break;
#endif
        case 13: CK(cudaGetDevice(&dev)); break;
        case 14: CK(cudaStreamIsCapturing(s, &cap)); break;
        case 15: CK(cudaStreamSynchronize(s)); break;
#ifndef WGS_BENCH_SYNC_ONLY
        case 16: rc = wgs_cuda_state_result(st, s, NULL); break;
#endif
        }
        if (lc.wait_each && lc.kind < 2)
          CK(cudaStreamSynchronize(s));
        if (lc.cold) {
          cold_us += now_us() - ta;
          CK(cudaStreamSynchronize(s)); /* (untimed: the calls timed without their wait) */
        }
      }
      double t1 = now_us();
#ifndef WGS_BENCH_SYNC_ONLY
      if (rc == WGS_OK && lc.kind >= 4 && lc.kind != 6 && lc.kind < 9)
        rc = wgs_cuda_state_result(st, s, NULL);
#endif
      CK(cudaStreamSynchronize(s));
      if (r)
        v.push_back(lc.cold ? cold_us / n : ((lc.enqueue_only ? t1 : now_us()) - t0) / n);
    }
    if (rc != WGS_OK) {
      printf("%s: %s\n", lc.what, wgs_last_error());
      continue;
    }
    stat3 s = stats(v);
    fprintf(f, "\"%s\",%u,%u,%u,%.3f,%.3f,%.3f,%u,%s\n", lc.what, lc.groups, T, N, s.med, s.lo,
            s.hi, R, lc.cold ? "per call, each timed alone after a sweep of the host's caches"
                     : lc.enqueue_only ? "host time per call, the wait after them not timed"
                     : lc.wait_each ? "per call, each waited for" : "per launch, one wait at the end");
    printf("%-66s %6u %10.2f %10.2f %10.2f\n", lc.what, lc.groups, s.med, s.lo, s.hi);
  }
  fclose(f);
  cudaStreamDestroy(s);
  wgs_cuda_state_release(st);
  return 0;
}

/*
 * Grid barriers when the groups arrive at different times, as they do after a step of real work:
 * before each barrier every group spins for its own delay, drawn afresh each round from
 * [0, D] (a hash of the group and the round, so a different group is last each time), and the
 * barrier's cost is what a round takes beyond the spin. The barrier benchmarks
 * (wgsync-bench-shards, the CLI's latency) time barriers back to back, where every group arrives
 * at once and the arrivals' contention decides; here the path after the last arrival does.
 * Forms, one kernel body each: cooperative groups' grid.sync() (cooperative launch), and
 * wgsync's counter barrier (fixed groups, every group of the same launch shape) in the shapes
 * the tuning hook can force: the library's default for the group count (published from 200
 * groups), sharded ("32,16,1", the default at 880 groups and more before the published shape),
 * one polled count after acq_rel arrivals that wait for their add ("0/a1"), after release adds
 * ("0/a0"). Each plain and with the stop test of an iterative kernel (wgsync's
 * wgs_grid_barrier_or; grid.sync()'s as apps/cuda/apps_cuda.cu writes it: block OR, one flag
 * store, grid.sync(), one load, block OR). The forms alternate within each repeat.
 *   wgsync-bench-skew [results folder]   writes skew.csv
 * (WGS_SKEW_DELAYS_NS="0 1000 ...", WGS_SKEW_SHAPES="g1xt1 g2xt2": other delays, shapes)
 */
#include <cooperative_groups.h>
#include <string>
#include <vector>

#include "bench_util.h"
#include "bench_variants.h" /* before the device library: its hooks */
#include "wgsync.cuh"
#include "wgsync_cuda.h"
#include "bench_shape.h"

namespace cg = cooperative_groups;

/* The group's share of the largest delay in round i, in 1024ths: a hash, so a different group
 * is last each round. */
static __host__ __device__ __forceinline__ unsigned skew_share(unsigned g, unsigned i)
{
  unsigned h = g * 2654435761u ^ (i * 40503u + 0x9e3779b9u);
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h & 1023u;
}
/* The group's delay in round i: its share of max_cycles of the SM's clock. */
static __device__ __forceinline__ void skew_spin(unsigned g, unsigned i, unsigned max_cycles)
{
  long long d = (long long)((unsigned long long)skew_share(g, i) * max_cycles / 1023u);
  long long t0 = clock64();
  while (clock64() - t0 < d) {
  }
}

struct WgsForm {
  wgs_env env;
  __device__ bool begin(unsigned *wgs) { return wgs_discover(wgs, &env); }
  __device__ unsigned group() const { return wgs_get_group_id(&env); }
  __device__ void sync() { wgs_grid_barrier(&env); }
  __device__ unsigned sync_or(unsigned v, unsigned *, unsigned) { return wgs_grid_barrier_or(&env, v); }
};
struct CgForm {
  __device__ bool begin(unsigned *) { return true; }
  __device__ unsigned group() const { return blockIdx.x; }
  __device__ void sync() { cg::this_grid().sync(); }
  __device__ unsigned sync_or(unsigned v, unsigned *flags, unsigned it)
  {
    volatile unsigned *f = &flags[it & 1u];
    if (__syncthreads_or((int)(v != 0u)) && threadIdx.x == 0)
      *f = it + 1u;
    cg::this_grid().sync();
    return (unsigned)__syncthreads_or(threadIdx.x == 0 && *f == it + 1u);
  }
};

/* with_or: every round's stop test, true in one group of one round in 97 (all must agree) */
template <class F>
__global__ void __launch_bounds__(1024, 2) skew_k(unsigned *wgs, unsigned rounds, unsigned max_cycles,
                                                  unsigned with_or, unsigned *flags, unsigned *sink)
{
  F f;
  if (f.begin(wgs)) {
    unsigned g = f.group(), seen = 0;
    for (unsigned i = 0; i < rounds; i++) {
      skew_spin(g, i, max_cycles);
      if (with_or)
        seen += f.sync_or(threadIdx.x == 0 && g == (i * 7u) % gridDim.x && i % 97u == 0u, flags, i);
      else
        f.sync();
    }
    if (threadIdx.x == 0 && g == 0)
      sink[0] = seen;
  }
}
__global__ void spin_k(unsigned cycles) { skew_spin(0, 0, cycles); }

int main(int argc, char **argv)
{
  const char *out = argc > 1 ? argv[1] : ".";
  if (results_dir("wgsync-bench-skew", out))
    return 2;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  unsigned *sink, *flags;
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&flags, 64));
  CK(cudaMemset(flags, 0, 64));
  /* The SM clock's rate: one warp spins a known number of cycles (group 0, round 0's share of
   * C), timed by events. */
  double cyc_per_us = 0;
  {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    const unsigned C = 40000000u;
    const double spun = (double)C * skew_share(0, 0) / 1023.0;
    std::vector<double> v;
    for (int r = 0; r < 5; r++) {
      CK(cudaEventRecord(a));
      spin_k<<<1, 32>>>(C);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      v.push_back(spun / (ms * 1e3));
    }
    cyc_per_us = stats(v).med;
  }
  std::vector<double> delays_ns = {0, 1000, 4000, 16000};
  if (const char *d = getenv("WGS_SKEW_DELAYS_NS")) {
    delays_ns.clear();
    for (char *p = (char *)d, *e; *p; p = e) {
      double x = strtod(p, &e);
      if (e == p)
        break;
      delays_ns.push_back(x);
    }
  }
  auto shapes_gt = env_pairs("WGS_SKEW_SHAPES", {{1056, 256}, {528, 256}, {132, 256}});
  /* WGS_SKEW_FORMS="default;p32;...": wgsync's forms instead of these (grid.sync() is always
   * first; a form is a shape bench_shape.h reads, as wgsync-bench-shards's WGS_BENCH_SHAPES) */
  std::vector<std::string> forms = {"grid.sync()"};
  for (const std::string &f : env_list("WGS_SKEW_FORMS", {"default", "32,16,1", "0/a1", "0/a0"}))
    forms.push_back(f);
  const unsigned NF = (unsigned)forms.size(), R = 7;
  printf("wgsync grid barriers under skewed arrivals (counter design %d)  %s\ndevice %s, %s; SM clock "
         "%.0f cycles/us\n", WGS_COUNTER_VARIANT, date, in.name, in.driver_version, cyc_per_us);
  FILE *f = results_file("wgsync-bench-skew", out, "skew.csv");
  fprintf(f, "# %s, %s, %s; counter design %d; SM clock %.0f cycles per us (measured); %u repeats, "
             "forms alternating\n", date, in.name, in.driver_version, WGS_COUNTER_VARIANT, cyc_per_us, R);
  fprintf(f, "form,stop_test,groups,threads,max_delay_us,rounds,median_us_per_round,min_us,max_us,"
             "over_grid_sync_us\n");
  for (auto &gt : shapes_gt) {
    unsigned G = gt.first, T = gt.second;
    wgs_cuda_state_t *st;
    if (wgs_cuda_state_create(0, G, &st) != WGS_OK) {
      printf("%s\n", wgs_last_error());
      return 1;
    }
    for (double dns : delays_ns) {
      unsigned cycles = (unsigned)(dns / 1e3 * cyc_per_us);
      unsigned rounds = dns >= 8000 ? 200 : 1000;
      for (unsigned with_or = 0; with_or < 2; with_or++) {
        std::vector<std::vector<double>> v(NF);
        std::vector<int> failed(NF, 0);
        for (unsigned r = 0; r <= R; r++) {
          for (unsigned fi = 0; fi < NF; fi++) {
            if (failed[fi])
              continue;
            double us = -1;
            if (fi == 0) {
              void *a[6] = {(void *)&sink, (void *)&rounds, (void *)&cycles, (void *)&with_or,
                            (void *)&flags, (void *)&sink};
              cudaEvent_t e0, e1;
              CK(cudaEventCreate(&e0));
              CK(cudaEventCreate(&e1));
              CK(cudaEventRecord(e0));
              cudaError_t ce = cudaLaunchCooperativeKernel((const void *)skew_k<CgForm>, dim3(G), dim3(T), a, 0, 0);
              CK(cudaEventRecord(e1));
              CK(cudaEventSynchronize(e1));
              float ms = 0;
              CK(cudaEventElapsedTime(&ms, e0, e1));
              cudaEventDestroy(e0);
              cudaEventDestroy(e1);
              if (ce != cudaSuccess) {
                printf("grid.sync() at %ux%u: %s\n", G, T, cudaGetErrorString(ce));
                cudaGetLastError();
                failed[fi] = 1;
                continue;
              }
              us = ms * 1e3;
            } else {
              if (bench_set_shape(forms[fi]) != WGS_OK) {
                printf("%s: %s\n", forms[fi].c_str(), wgs_last_error());
                failed[fi] = 1;
                continue;
              }
              wgs_launch_config c;
              wgs_launch_config_init(&c);
              c.local_size = T;
              c.groups = G;
              c.discovery = WGS_DISCOVERY_FIXED;
              c.barrier = WGS_BARRIER_COUNTER;
              c.time_kernel = 1;
              c.timeout_ms = 20000;
              void *a[6] = {NULL, (void *)&rounds, (void *)&cycles, (void *)&with_or, (void *)&flags,
                            (void *)&sink};
              wgs_launch_result res;
              int rc = wgs_cuda_launch(st, (const void *)skew_k<WgsForm>, a, 6, 0, 0, &c, &res);
              wgs__tuning_set(NULL);
              if (rc != WGS_OK) {
                printf("%s at %ux%u: %s\n", forms[fi].c_str(), G, T, wgs_last_error());
                failed[fi] = 1;
                continue;
              }
              us = res.kernel_us;
            }
            if (r) /* (repeat 0: the warm-up) */
              v[fi].push_back(us / rounds);
          }
        }
        double cg_med = v[0].empty() ? 0 : stats(v[0]).med;
        for (unsigned fi = 0; fi < NF; fi++) {
          if (v[fi].empty())
            continue;
          stat3 s = stats(v[fi]);
          fprintf(f, "\"%s\",%s,%u,%u,%.1f,%u,%.4f,%.4f,%.4f,%.4f\n", fi ? forms[fi].c_str() : "grid.sync()",
                  with_or ? "or" : "none", G, T, dns / 1e3, rounds, s.med, s.lo, s.hi,
                  v[0].empty() ? 0.0 : s.med - cg_med);
          printf("%5ux%-4u delay <= %5.1f us %-4s %-12s %9.3f us/round (%+.3f against grid.sync())\n",
                 G, T, dns / 1e3, with_or ? "or" : "", fi ? forms[fi].c_str() : "grid.sync()", s.med,
                 s.med - cg_med);
        }
      }
    }
    wgs_cuda_state_release(st);
  }
  fclose(f);
  return 0;
}

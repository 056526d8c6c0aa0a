/*
 * wgsync CUDA benchmark, side by side in one process on one GPU:
 *  1. grid-barrier latency: wgsync's XF / counter / tree barriers against cooperative groups'
 *     grid.sync(), at the issue's group counts; the floor (a block-to-block round trip through
 *     global memory with st.release/ld.acquire); an empty kernel relaunch; relaunch + 4-byte
 *     read-back (the multi-kernel host loop). Warm-up, then R repeats of K barriers; median,
 *     min, max per barrier.
 *  2. discovery: for the four settings of Sorensen et al. 2016 Table 3, the occupancy API, the unsafe bound,
 *     and ticket / spin / lock-free discovery (wgsync's default and Fig. 3 as published):
 *     mean discovered, recall, protocol time.
 * Writes latency.csv, discovery.csv and bench.json into the output folder (argv[1]).
 */
#include <algorithm>
#include <errno.h>
#include <sys/stat.h>
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "bench_util.h"
#include "wgsync.cuh"
#include "wgsync_cuda.h"

namespace cg = cooperative_groups;


/* The barrier kernels take at most 32 registers (2048 threads per SM), so that every shape
 * below is resident; a fixed launch of more groups than fit is refused by the library. */
__global__ void __launch_bounds__(1024, 2) bench_wgs(unsigned *wgs, unsigned iters, unsigned *sink)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    for (unsigned i = 0; i < iters; i++)
      wgs_grid_barrier(&e);
    if (e.local_id == 0 && e.group_id == 0)
      sink[0] = e.instance;
  }
}
__global__ void __launch_bounds__(1024, 2) bench_wgs_split(unsigned *wgs, unsigned iters, unsigned *sink)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    for (unsigned i = 0; i < iters; i++) {
      wgs_grid_arrive(&e);
      wgs_grid_wait(&e);
    }
    if (e.local_id == 0 && e.group_id == 0)
      sink[0] = e.instance;
  }
}
__global__ void bench_cg(unsigned iters, unsigned *sink)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = 0; i < iters; i++)
    g.sync();
  if (g.thread_rank() == 0)
    sink[0] = iters;
}
/* The floor: two blocks hand a flag back and forth. Each wait is bounded (1 s on the device
 * clock): a block that gives up raises flag[1] and both stop, so that the run reports instead of
 * spinning forever should the two blocks not be resident together. */
__global__ void pingpong(unsigned *flag, unsigned iters)
{
  if (threadIdx.x != 0)
    return;
  for (unsigned i = 0; i < iters; i++) {
    unsigned want = blockIdx.x == 0 ? 2 * i + 2 : 2 * i + 1;
    if (blockIdx.x == 0)
      wgs__st_rel(flag, 2 * i + 1);
    unsigned long long t0 = wgs__timer_ns();
    while (wgs__ld_acq(flag) != want) {
      if (wgs__ld_rlx(flag + 1) != 0u)
        return;
      if (wgs__timer_ns() - t0 > 1000000000ull) {
        wgs__st_rlx(flag + 1, 1u);
        return;
      }
    }
    if (blockIdx.x != 0)
      wgs__st_rel(flag, 2 * i + 2);
  }
}
__global__ void empty_kernel(unsigned *p) {}

/* Dependent arithmetic the compiler cannot remove: about `n` FMA latencies. */
static __device__ __forceinline__ float busy(float x, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    x = fmaf(x, 0.999f, 0.001f);
  return x;
}

/* Grid overlap: per round, work W that needs no other group's data, either after a full grid
 * barrier or between a split arrive and wait. mode 0: barrier then W; 1: arrive, W, wait;
 * 2: W only (no barrier). */
__global__ void __launch_bounds__(1024, 2) grid_overlap(unsigned *wgs, unsigned rounds, unsigned work, unsigned mode, float *sink)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    float x = threadIdx.x;
    for (unsigned r = 0; r < rounds; r++) {
      if (mode == 0) {
        wgs_grid_barrier(&e);
        x = busy(x, work);
      } else if (mode == 1) {
        wgs_grid_arrive(&e);
        x = busy(x, work);
        wgs_grid_wait(&e);
      } else {
        x = busy(x, work);
      }
    }
    if (x == 12345.f)
      sink[0] = x;
  }
}

/* Work-group imbalance (cl_intel_split_work_group_barrier's use case): per round, warps alternate heavy (3W) and light
 * (W) work before the barrier and the opposite after it. Plain: __syncthreads between the two
 * halves (time ~ 3W + 3W). Split: cuda::barrier arrive, the second half, wait (time ~ W + 3W):
 * an ideal 1.5x. Shared-memory reads after the barrier check the data. */
template <bool SPLIT>
__global__ void wg_imbalance(unsigned rounds, unsigned work, float *sink, unsigned *bad)
{
  __shared__ float buf[1024];
#pragma nv_diag_suppress static_var_with_dynamic_init /* initialised by init() below, as documented */
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  unsigned warp = threadIdx.x / 32, heavy = warp & 1;
  float x = threadIdx.x;
  for (unsigned r = 0; r < rounds; r++) {
    x = busy(x, heavy ? 3 * work : work);
    buf[threadIdx.x] = r + threadIdx.x;
    if (SPLIT) {
      auto token = bar.arrive();
      x = busy(x, heavy ? work : 3 * work); /* independent of the other threads' data */
      bar.wait(std::move(token));
    } else {
      __syncthreads();
      x = busy(x, heavy ? work : 3 * work);
    }
    unsigned nb = (threadIdx.x + 33) % blockDim.x;
    if (buf[nb] != (float)(r + nb))
      atomicAdd(bad, 1u);
    __syncthreads(); /* the next round rewrites buf */
  }
  if (x == 12345.f)
    sink[0] = x;
}
__global__ void tiny_step(unsigned *p) { if (threadIdx.x == 0 && blockIdx.x == 0) p[0]++; }

struct row { const char *what; unsigned groups, threads; stat3 us; const char *note; };

static FILE *results_file(const char *dir, const char *name)
{
  return results_file("wgsync-bench-cuda", dir, name);
}

int main(int argc, char **argv)
{
  const char *out = argc > 1 ? argv[1] : ".";
  if (results_dir("wgsync-bench-cuda", out))
    return 2;
  const unsigned K = 2000, R = 7;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  printf("wgsync CUDA bench  %s\ndevice %s (%s, %u SMs), %s\n\n", date, in.name, in.device_version,
         in.compute_units, in.driver_version);
  unsigned *sink;
  CK(cudaMalloc(&sink, 64));
  std::vector<row> rows;

  /* floor and relaunch costs */
  {
    std::vector<double> v;
    for (unsigned r = 0; r <= R; r++) {
      CK(cudaMemset(sink, 0, 8));
      cudaEvent_t a, b;
      cudaEventCreate(&a), cudaEventCreate(&b);
      cudaEventRecord(a);
      pingpong<<<2, 32>>>(sink, K);
      cudaEventRecord(b);
      CK(cudaEventSynchronize(b));
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      unsigned gave_up = 0;
      CK(cudaMemcpy(&gave_up, sink + 1, 4, cudaMemcpyDeviceToHost));
      if (gave_up) {
        fprintf(stderr, "wgsync-bench-cuda: the round trip between 2 blocks waited past 1 s "
                        "(were both resident?)\n");
        return 1;
      }
      if (r)
        v.push_back(ms * 1e3 / K);
    }
    rows.push_back({"floor: round trip st.release/ld.acquire", 2, 32, stats(v), "2 blocks"});
    v.clear();
    for (unsigned r = 0; r <= R; r++) {
      cudaEvent_t a, b;
      cudaEventCreate(&a), cudaEventCreate(&b);
      cudaEventRecord(a);
      for (unsigned i = 0; i < K; i++)
        empty_kernel<<<1056, 256>>>(sink);
      cudaEventRecord(b);
      CK(cudaEventSynchronize(b));
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (r)
        v.push_back(ms * 1e3 / K);
    }
    rows.push_back({"relaunch: empty kernel back to back", 1056, 256, stats(v), "per launch"});
    v.clear();
    unsigned host;
    for (unsigned r = 0; r <= R; r++) {
      double t0 = now_us();
      for (unsigned i = 0; i < 200; i++) {
        tiny_step<<<1056, 256>>>(sink);
        CK(cudaMemcpy(&host, sink, 4, cudaMemcpyDeviceToHost));
      }
      if (r)
        v.push_back((now_us() - t0) / 200);
    }
    rows.push_back({"host loop: launch + 4-byte read-back", 1056, 256, stats(v), "per iteration"});
  }

  /* barrier latency */
  const unsigned settings[][2] = {{132, 256}, {1056, 256}, {2112, 128}, {4224, 32}, {264, 1024}};
  const struct { const char *name; wgs_barrier b; int split; } kinds[] = {
      {"wgsync xf (Sorensen et al. 2016 §4.2)", WGS_BARRIER_XF, 0},
      {"wgsync counter", WGS_BARRIER_COUNTER, 0},
      {"wgsync counter, split arrive+wait", WGS_BARRIER_COUNTER, 1}};
  for (auto &s : settings) {
    unsigned G = s[0], T = s[1];
    std::vector<double> v;
    void *cargs[2] = {(void *)&K, (void *)&sink};
    cudaError_t ce = cudaSuccess;
    for (unsigned r = 0; r <= R && ce == cudaSuccess; r++) {
      cudaEvent_t a, b;
      cudaEventCreate(&a), cudaEventCreate(&b);
      cudaEventRecord(a);
      ce = cudaLaunchCooperativeKernel((const void *)bench_cg, dim3(G), dim3(T), cargs, 0, 0);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (r && ce == cudaSuccess)
        v.push_back(ms * 1e3 / K);
    }
    if (ce == cudaSuccess)
      rows.push_back({"cooperative groups grid.sync()", G, T, stats(v), "cooperative launch"});
    else {
      printf("grid.sync at %ux%u: %s\n", G, T, cudaGetErrorString(ce));
      cudaGetLastError();
    }
    wgs_cuda_state_t *st;
    if (wgs_cuda_state_create(0, G, &st) != WGS_OK) {
      printf("%s\n", wgs_last_error());
      return 1;
    }
    for (auto &k : kinds) {
      v.clear();
      int rc = WGS_OK;
      for (unsigned r = 0; r <= R && rc == WGS_OK; r++) {
        void *args[3] = {NULL, (void *)&K, (void *)&sink};
        wgs_launch_config c;
        wgs_launch_config_init(&c);
        c.local_size = T;
        c.groups = G;
        c.discovery = WGS_DISCOVERY_FIXED; /* G is at or under the occupancy bound here */
        c.barrier = k.b;
        c.time_kernel = 1;
        wgs_launch_result res;
        rc = wgs_cuda_launch(st, k.split ? (const void *)bench_wgs_split : (const void *)bench_wgs,
                             args, 3, 0, 0, &c, &res);
        if (r && rc == WGS_OK)
          v.push_back(res.kernel_us / K);
      }
      if (rc == WGS_OK)
        rows.push_back({k.name, G, T, stats(v), "ordinary launch"});
      else
        printf("%s at %ux%u: %s\n", k.name, G, T, wgs_last_error());
    }
    wgs_cuda_state_release(st);
  }

  /* 3. what the split buys */
  FILE *sf = results_file(out, "split.csv");
  fprintf(sf, "what,groups,threads,work,plain_us,split_us,speedup,ideal_speedup,note\n");
  printf("\n%-34s %6s %6s %6s %10s %10s %8s %8s\n", "split barrier", "groups", "thr", "work",
         "plain_us", "split_us", "speedup", "ideal");
  {
    const unsigned G = 1056, T = 256, rounds = 2000;
    wgs_cuda_state_t *st;
    wgs_cuda_state_create(0, G, &st);
    float *fs;
    CK(cudaMalloc(&fs, 16));
    for (unsigned work : {64u, 256u, 1024u}) {
      double t[3];
      for (unsigned mode = 0; mode < 3; mode++) {
        std::vector<double> v;
        for (unsigned r = 0; r <= R; r++) {
          void *args[5] = {NULL, (void *)&rounds, (void *)&work, (void *)&mode, (void *)&fs};
          wgs_launch_config c;
          wgs_launch_config_init(&c);
          c.local_size = T;
          c.groups = G;
          c.discovery = WGS_DISCOVERY_FIXED;
          c.time_kernel = 1;
          wgs_launch_result res;
          if (wgs_cuda_launch(st, (const void *)grid_overlap, args, 5, 0, 0, &c, &res) != WGS_OK) {
            printf("grid_overlap: %s\n", wgs_last_error());
            return 1;
          }
          if (r)
            v.push_back(res.kernel_us / rounds);
        }
        t[mode] = stats(v).med;
      }
      double barrier_us = t[0] - t[2] > 0 ? t[0] - t[2] : 0, ideal = t[0] / std::max(barrier_us, t[2]);
      fprintf(sf, "grid counter barrier: work between arrive and wait,%u,%u,%u,%.4f,%.4f,%.3f,%.3f,work alone %.4f us\n",
              G, T, work, t[0], t[1], t[0] / t[1], ideal, t[2]);
      printf("%-34s %6u %6u %6u %10.3f %10.3f %8.3f %8.3f\n", "grid: arrive, work, wait", G, T, work,
             t[0], t[1], t[0] / t[1], ideal);
    }
    cudaFree(fs);
    wgs_cuda_state_release(st);
  }
  {
    const unsigned rounds = 2000, G = 132, T = 256;
    float *fs;
    unsigned *bad, nbad = 0;
    CK(cudaMalloc(&fs, 16));
    CK(cudaMalloc(&bad, 4));
    CK(cudaMemset(bad, 0, 4));
    for (unsigned work : {16u, 64u, 256u}) {
      double t[2];
      for (int split = 0; split < 2; split++) {
        std::vector<double> v;
        for (unsigned r = 0; r <= R; r++) {
          cudaEvent_t a, b;
          cudaEventCreate(&a), cudaEventCreate(&b);
          cudaEventRecord(a);
          if (split)
            wg_imbalance<true><<<G, T>>>(rounds, work, fs, bad);
          else
            wg_imbalance<false><<<G, T>>>(rounds, work, fs, bad);
          cudaEventRecord(b);
          CK(cudaEventSynchronize(b));
          float ms;
          cudaEventElapsedTime(&ms, a, b);
          if (r)
            v.push_back(ms * 1e3 / rounds);
        }
        t[split] = stats(v).med;
      }
      fprintf(sf, "work-group imbalance: cuda::barrier (mbarrier) vs __syncthreads,%u,%u,%u,%.4f,%.4f,%.3f,1.500,warps alternate 3W/W before and W/3W after\n",
              G, T, work, t[0], t[1], t[0] / t[1]);
      printf("%-34s %6u %6u %6u %10.3f %10.3f %8.3f %8.3f\n", "block: mbarrier vs __syncthreads", G, T,
             work, t[0], t[1], t[0] / t[1], 1.5);
    }
    CK(cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost));
    printf("work-group imbalance check: %u wrong shared-memory reads\n", nbad);
    fprintf(sf, "# wrong shared-memory reads in the imbalance kernels: %u\n", nbad);
    cudaFree(fs);
    cudaFree(bad);
  }
  fclose(sf);

  FILE *f = results_file(out, "latency.csv");
  fprintf(f, "what,groups,threads,median_us,min_us,max_us,repeats,barriers_per_repeat,note\n");
  printf("%-44s %6s %6s %10s %10s %10s\n", "barrier latency", "groups", "thr", "median_us", "min", "max");
  for (auto &r : rows) {
    fprintf(f, "\"%s\",%u,%u,%.4f,%.4f,%.4f,%u,%u,%s\n", r.what, r.groups, r.threads, r.us.med, r.us.lo,
            r.us.hi, R, K, r.note);
    printf("%-44s %6u %6u %10.3f %10.3f %10.3f\n", r.what, r.groups, r.threads, r.us.med, r.us.lo, r.us.hi);
  }
  fclose(f);

  /* discovery: Sorensen et al. 2016 Table 3 on CUDA */
  size_t maxsh = 0;
  wgs_cuda_max_shared(0, &maxsh);
  f = results_file(out, "discovery.csv");
  fprintf(f, "threads,shared_bytes,occupancy_api,bound,protocol,lock,runs,mean,min,max,recall_pct,protocol_us_median,protocol_us_min,protocol_us_max\n");
  printf("\n%-7s %-7s %5s %5s %-22s %8s %6s %6s %8s %12s\n", "threads", "shared", "api", "bound",
         "protocol", "mean", "min", "max", "recall", "proto_us_med");
  const char *lockname[] = {"ticket", "spin", "free"};
  for (unsigned T : {256u, 1024u}) {
    for (size_t sh : {(size_t)1, maxsh}) {
      wgs_occupancy_config oc;
      memset(&oc, 0, sizeof oc);
      oc.local_size = T;
      oc.local_mem_bytes = sh;
      oc.timeout_ms = 200;
      uint32_t api = 0, bound = 0;
      if (wgs_cuda_occupancy_api(0, T, sh, &api) != WGS_OK ||
          wgs_cuda_occupancy_bound(0, &oc, 0, NULL, NULL, &bound) != WGS_OK) {
        printf("%u/%zu: %s\n", T, sh, wgs_last_error());
        continue;
      }
      for (int l = 0; l < 3; l++) {
        for (int paper = 0; paper < 2; paper++) {
          if (paper && l == 2)
            continue; /* the lock-free protocol is wgsync's own */
          oc.lock = (wgs_lock)l;
          oc.close_wait_us = paper ? 0 : -1;
          std::vector<double> cnt, pt;
          for (int r = 0; r < 20; r++) {
            wgs_launch_result res;
            if (wgs_cuda_occupancy_discover(0, &oc, &res) != WGS_OK) {
              printf("%s\n", wgs_last_error());
              break;
            }
            cnt.push_back(res.participants);
            pt.push_back(res.protocol_us);
          }
          if (cnt.empty())
            continue;
          double mean = 0;
          for (double c : cnt)
            mean += c / cnt.size();
          stat3 sc = stats(cnt), sp = stats(pt);
          const char *proto = paper ? "Fig. 3 as published" : "wgsync (quiescence)";
          fprintf(f, "%u,%zu,%u,%u,%s,%s,%zu,%.2f,%.0f,%.0f,%.1f,%.2f,%.2f,%.2f\n", T, sh, api, bound,
                  proto, lockname[l], cnt.size(), mean, sc.lo, sc.hi, 100 * mean / bound, sp.med, sp.lo, sp.hi);
          printf("%-7u %-7zu %5u %5u %-6s %-15s %8.1f %6.0f %6.0f %7.1f%% %12.1f\n", T, sh, api, bound,
                 lockname[l], proto, mean, sc.lo, sc.hi, 100 * mean / bound, sp.med);
        }
      }
    }
  }
  fclose(f);
  f = results_file(out, "bench.json");
  fprintf(f, "{\"tool\": \"wgsync-bench-cuda\", \"date\": \"%s\", \"device\": \"%s\", \"arch\": \"%s\", "
             "\"sms\": %u, \"driver\": \"%s\", \"barriers_per_repeat\": %u, \"repeats\": %u, "
             "\"files\": [\"latency.csv\", \"discovery.csv\", \"split.csv\"]}\n",
          date, in.name, in.device_version, in.compute_units, in.driver_version, K, R);
  fclose(f);
  return 0;
}

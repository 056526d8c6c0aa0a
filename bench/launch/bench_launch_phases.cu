/*
 * The pieces of a wgsync launch's device-side work, each alone in an otherwise empty kernel,
 * launched like wgsync-bench-launch's rows (the default group count at 256 work-items), so that
 * what the launch epoch and discovery cost over a cooperative launch can be taken apart:
 *  - empty: the floor;
 *  - count-in, one word: every group's representative an acq_rel add on one word, the last
 *    (its add's result) storing the next epoch: the launch epoch's count-in where the device
 *    has no launch name (the OpenCL library; CUDA's before it named launches by %gridid,
 *    device/common/wgs_layout.h "Launch epochs");
 *  - count-in, release adds nobody waits for (red): the same adds without the round trip;
 *  - count-in, 32 shards then one word: each group adds on its shard's line, the last of a
 *    shard adds on the top word, the last there stores the epoch (a design to measure);
 *  - clear: the other half's clearing, its words spread over every work-item (as clear_used);
 *  - config reads: the representative's volatile loads of the config line, one after another,
 *    then of its group's word, a write back: a chain of round trips, which wgs_discover's
 *    first loads avoid (none depends on another);
 *  - all three (one-word count-in, clear, config reads) in one kernel;
 *  - one store by group 0 to mapped host memory at system scope, the store that hands a
 *    launch's result words to the host (wgs__mirror_put): whether a kernel that wrote host
 *    memory ends later;
 *  - the wgsync kernel itself (wgs_discover, 0 or 1 grid barrier), fixed groups or discovery,
 *    launched raw on the state a wgsync launch configured; the same with the state's mirror
 *    address zeroed (the kernel then writes no host memory; its result words are not read);
 *    and the cooperative kernel.
 * Each twice: launched back to back from the host (bounded by the host's launch rate), and
 * replayed from a CUDA graph of 200 launches, the GPU's time alone.
 * The first seven kernels reproduce the library's access patterns only.
 *   wgsync-bench-launch-phases [results folder]   writes phases.csv
 */
#include <algorithm>
#include <cooperative_groups.h>
#include <vector>
#include "bench_util.h"
#include "wgsync.cuh"
namespace cg = cooperative_groups;

#define LINE WGS_LINE_WORDS
#define N_SHARDS 32u

__device__ __forceinline__ unsigned add_acqrel(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void red_rel(unsigned *p, unsigned v)
{
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_rlx(unsigned *p, unsigned v)
{
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* w: a zeroed scratch of (N_SHARDS + 4) lines; words counts monotonically across launches, so
 * "the last" is the add whose result is n - 1 modulo n. */
__global__ void k_empty(unsigned *w, unsigned *clear, unsigned words) {}
__global__ void k_countin_one(unsigned *w, unsigned *clear, unsigned words)
{
  unsigned n = gridDim.x;
  if (threadIdx.x == 0 && add_acqrel(&w[0], 1u) % n == n - 1u)
    st_rlx(&w[LINE], blockIdx.x);
}
__global__ void k_countin_red(unsigned *w, unsigned *clear, unsigned words)
{
  if (threadIdx.x == 0)
    red_rel(&w[0], 1u);
}
__global__ void k_countin_sharded(unsigned *w, unsigned *clear, unsigned words)
{
  unsigned n = gridDim.x, k = blockIdx.x % N_SHARDS;
  unsigned size = n / N_SHARDS + (k < n % N_SHARDS ? 1u : 0u), shards = n < N_SHARDS ? n : N_SHARDS;
  if (threadIdx.x == 0 && add_acqrel(&w[(2u + k) * LINE], 1u) % size == size - 1u &&
      add_acqrel(&w[LINE], 1u) % shards == shards - 1u)
    st_rlx(&w[(2u + N_SHARDS) * LINE], blockIdx.x);
}
__device__ __forceinline__ void clear_share(unsigned *clear, unsigned words)
{
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x)
    clear[i] = 0u;
}
__global__ void k_clear(unsigned *w, unsigned *clear, unsigned words) { clear_share(clear, words); }
__device__ __forceinline__ void config_reads(unsigned *w)
{
  if (threadIdx.x == 0) {
    volatile unsigned *cfg = w + (3u + N_SHARDS) * LINE;
    unsigned acc = 0;
    for (unsigned i = 0; i < 6; i++)
      acc += cfg[i];
    volatile unsigned *mine = w + (4u + N_SHARDS) * LINE + blockIdx.x;
    *mine = *mine + 1u + (acc & 0u);
  }
  __syncthreads();
}
__global__ void k_config(unsigned *w, unsigned *clear, unsigned words) { config_reads(w); }
__device__ unsigned *host_word; /* mapped host memory */
__global__ void k_sys(unsigned *w, unsigned *clear, unsigned words)
{
  if (blockIdx.x == 0 && threadIdx.x == 0)
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(host_word), "r"(words) : "memory");
}
__global__ void k_shipped(unsigned *w, unsigned *clear, unsigned words)
{
  unsigned n = gridDim.x;
  if (threadIdx.x == 0 && add_acqrel(&w[0], 1u) % n == n - 1u)
    st_rlx(&w[LINE], blockIdx.x);
  config_reads(w);
  clear_share(clear, words);
}

/* the wgsync kernels (as wgsync-bench-launch's persistent_one), and the cooperative one */
__global__ void __launch_bounds__(1024, 2) wgs_zero(unsigned *wgs, unsigned *clear, unsigned words)
{
  wgs_env e;
  if (wgs_discover(wgs, &e) && e.local_id == 0 && e.group_id == 0)
    clear[0] = e.num_groups;
}
__global__ void __launch_bounds__(1024, 2) wgs_one(unsigned *wgs, unsigned *clear, unsigned words)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_grid_barrier(&e);
    if (e.local_id == 0 && e.group_id == 0)
      clear[0] = e.instance;
  }
}
__global__ void coop(unsigned *w, unsigned *clear, unsigned iters)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = 0; i < iters; i++)
    g.sync();
}

int main(int argc, char **argv)
{
  const char *out = argc > 1 ? argv[1] : ".";
  if (results_dir("wgsync-bench-launch-phases", out))
    return 2;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  const unsigned N = 200, R = 7, T = 256;
  const unsigned G = wgs_cuda_default_groups(0, T);
  /* what the shipped launch clears for G groups: the half's lines after line 0 and its per-group
   * arrays (device/common/wgs_layout.h) */
  const unsigned words = WGS_W_ARRAYS - WGS_LINE_WORDS + WGS_A_WORDS(G);
  const size_t scratch = (size_t)(5u + N_SHARDS) * LINE * 4 + (size_t)G * 4;
  unsigned *w, *clear;
  CK(cudaMalloc(&w, scratch));
  CK(cudaMemset(w, 0, scratch));
  CK(cudaMalloc(&clear, (size_t)words * 4));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  printf("wgsync launch phases  %s\ndevice %s (%s, %u SMs), %s; %u groups of %u, %u words cleared\n",
         date, in.name, in.device_version, in.compute_units, in.driver_version, G, T, words);
  wgs_cuda_state_t *st;
  if (wgs_cuda_state_create(0, G, &st) != WGS_OK) {
    printf("%s\n", wgs_last_error());
    return 1;
  }
  unsigned *state = wgs_cuda_state_device_ptr(st);
  unsigned *host_mapped, *host_dev;
  CK(cudaHostAlloc((void **)&host_mapped, 64, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void **)&host_dev, host_mapped, 0));
  CK(cudaMemcpyToSymbol(host_word, &host_dev, sizeof host_dev));
  /* groups every one of which is resident: the fixed form and the cooperative launch need it */
  int per_w = 0, per_c = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_w, wgs_one, T, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_c, coop, T, 0));
  const unsigned GW = std::min(G, (unsigned)per_w * in.compute_units);
  const unsigned GC = std::min(G, (unsigned)per_c * in.compute_units);
  wgs_launch_config fixed, disc;
  wgs_launch_config_init(&disc);
  disc.local_size = T;
  disc.groups = G;
  fixed = disc;
  fixed.groups = GW;
  fixed.discovery = WGS_DISCOVERY_FIXED;
  /* mode: 0 a pattern kernel; 1, 2 a wgsync kernel on the state configured for fixed groups or
   * discovery; 3, 4 the cooperative kernel with 0 or 1 grid.sync(); 5, 6 as 1, 2 with the
   * state's mirror address zeroed while the case runs */
  struct { const char *what; void (*k)(unsigned *, unsigned *, unsigned); int mode; } cases[] = {
      {"empty kernel", k_empty, 0},
      {"count-in: acq_rel add on one word (OpenCL's)", k_countin_one, 0},
      {"count-in: release adds, no result waited for", k_countin_red, 0},
      {"count-in: 32 shards, then one word", k_countin_sharded, 0},
      {"clear of the other half", k_clear, 0},
      {"config reads and the group's word, one after another", k_config, 0},
      {"count-in + config + clear", k_shipped, 0},
      {"one store to mapped host memory (group 0)", k_sys, 0},
      {"wgsync kernel, fixed groups, no barrier", wgs_zero, 1},
      {"wgsync kernel, fixed groups + one barrier", wgs_one, 1},
      {"wgsync kernel, discovery, no barrier", wgs_zero, 2},
      {"wgsync kernel, discovery + one barrier", wgs_one, 2},
      {"wgsync kernel, fixed groups, no barrier, no mirror", wgs_zero, 5},
      {"wgsync kernel, fixed groups + one barrier, no mirror", wgs_one, 5},
      {"wgsync kernel, discovery, no barrier, no mirror", wgs_zero, 6},
      {"wgsync kernel, discovery + one barrier, no mirror", wgs_one, 6},
      {"cooperative kernel, no grid.sync", coop, 3},
      {"cooperative kernel, one grid.sync", coop, 4},
  };
  FILE *f = results_file("wgsync-bench-launch-phases", out, "phases.csv");
  fprintf(f, "# %s, %s, %s, %u launches per repeat, %u repeats after a warm-up\n", date, in.name,
          in.driver_version, N, R);
  fprintf(f, "what,how,groups,threads,median_us,min_us,max_us,repeats\n");
  printf("%-46s %-9s %10s %10s %10s\n", "per launch", "how", "median_us", "min", "max");
  for (int graph = 0; graph < 2; graph++)
    for (auto &c : cases) {
      int wgs = c.mode == 1 || c.mode == 2 || c.mode >= 5, is_fixed = c.mode == 1 || c.mode == 5;
      int is_coop = c.mode == 3 || c.mode == 4, no_mirror = c.mode >= 5;
      unsigned mirror[2] = {0u, 0u};
      if (wgs) { /* the state configured for the mode, once */
        void *a[3] = {NULL, &clear, (void *)&words};
        if (wgs_cuda_launch(st, (const void *)c.k, a, 3, 0, s, is_fixed ? &fixed : &disc, NULL) != WGS_OK) {
          printf("%s: %s\n", c.what, wgs_last_error());
          continue;
        }
      }
      unsigned *host_words = state + WGS_G_CONFIG + WGS_CFG_HOST_LO; /* (LO, HI adjacent) */
      if (no_mirror) { /* the configured state's mirror address, zeroed until the case ends */
        CK(cudaMemcpy(mirror, host_words, sizeof mirror, cudaMemcpyDeviceToHost));
        CK(cudaMemset(host_words, 0, sizeof mirror));
      }
      unsigned *arg0 = wgs ? state : w;
      unsigned groups = is_fixed ? GW : is_coop ? GC : G;
      unsigned iters = c.mode == 4 ? 1u : 0u, third = is_coop ? iters : words;
      void *cargs[3] = {&arg0, &clear, &third};
      auto one = [&]() {
        if (is_coop)
          CK(cudaLaunchCooperativeKernel((const void *)c.k, dim3(groups), dim3(T), cargs, 0, s));
        else
          c.k<<<groups, T, 0, s>>>(arg0, clear, third);
      };
      cudaGraphExec_t exec = NULL;
      if (graph) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (unsigned i = 0; i < N; i++)
          one();
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaGraphDestroy(g));
      }
      std::vector<double> v;
      for (unsigned r = 0; r <= R; r++) {
        double t0 = now_us();
        if (graph)
          CK(cudaGraphLaunch(exec, s));
        else
          for (unsigned i = 0; i < N; i++)
            one();
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        if (r)
          v.push_back((now_us() - t0) / N);
      }
      if (exec)
        CK(cudaGraphExecDestroy(exec));
      if (no_mirror)
        CK(cudaMemcpy(host_words, mirror, sizeof mirror, cudaMemcpyHostToDevice));
      stat3 sv = stats(v);
      const char *how = graph ? "graph" : "launches";
      fprintf(f, "\"%s\",%s,%u,%u,%.3f,%.3f,%.3f,%u\n", c.what, how, groups, T, sv.med, sv.lo, sv.hi, R);
      printf("%-46s %-9s %5u %10.2f %10.2f %10.2f\n", c.what, how, groups, sv.med, sv.lo, sv.hi);
    }
  fclose(f);
  wgs_cuda_state_release(st);
  cudaStreamDestroy(s);
  cudaFree(w), cudaFree(clear);
  cudaFreeHost(host_mapped);
  return 0;
}

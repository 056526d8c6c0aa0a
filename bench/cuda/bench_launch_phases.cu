/*
 * The pieces of a wgsync launch's device-side work, each alone in an otherwise empty kernel,
 * launched back to back like wgsync-bench-launch's rows (1056 groups of 256 on the H100), so that
 * the 1.4 us the launch epoch costs over a cooperative launch, and discovery's 2.8, can be
 * taken apart before anything is changed (bench/results/h100-launch-2026-11-27):
 *  - empty: the floor;
 *  - count-in, one word: every group's representative an acq_rel add on one word, the last
 *    (its add's result) storing the next epoch: the launch epoch's count-in as shipped
 *    (device/common/wgs_core.h, wgs__discover);
 *  - count-in, release adds nobody waits for (red): the same adds without the round trip;
 *  - count-in, 32 shards then one word: each group adds on its shard's line, the last of a
 *    shard adds on the top word, the last there stores the epoch (a design to measure);
 *  - clear: the other half's clearing, its words spread over every work-item (as clear_used);
 *  - config reads: the representative's reads of the config line and its group's word, a
 *    write back (as wgs__first_call);
 *  - all three as shipped (one-word count-in, clear, config reads) in one kernel.
 * Nothing here is in the library: these kernels reproduce its access patterns only.
 *   wgsync-bench-launch-phases [results folder]   writes phases.csv
 */
#include <vector>
#include "bench_util.h"

#define LINE 32u
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
__global__ void k_shipped(unsigned *w, unsigned *clear, unsigned words)
{
  unsigned n = gridDim.x;
  if (threadIdx.x == 0 && add_acqrel(&w[0], 1u) % n == n - 1u)
    st_rlx(&w[LINE], blockIdx.x);
  config_reads(w);
  clear_share(clear, words);
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
  /* what the shipped launch clears for G groups: the half's lines after line 0 and 11 words of
   * per-group arrays per group (device/common/wgs_layout.h: WGS_W_ARRAYS, WGS_A_WORDS) */
  const unsigned words = (10u + 2u * 32u) * LINE - LINE + 11u * G + LINE;
  unsigned *w, *clear;
  CK(cudaMalloc(&w, (size_t)(5u + N_SHARDS) * LINE * 4 + (size_t)G * 4));
  CK(cudaMemset(w, 0, (size_t)(5u + N_SHARDS) * LINE * 4 + (size_t)G * 4));
  CK(cudaMalloc(&clear, (size_t)words * 4));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  printf("wgsync launch phases  %s\ndevice %s (%s, %u SMs), %s; %u groups of %u, %u words cleared\n",
         date, in.name, in.device_version, in.compute_units, in.driver_version, G, T, words);
  struct { const char *what; void (*k)(unsigned *, unsigned *, unsigned); } cases[] = {
      {"empty kernel", k_empty},
      {"count-in: acq_rel add on one word (as shipped)", k_countin_one},
      {"count-in: release adds, no result waited for", k_countin_red},
      {"count-in: 32 shards, then one word", k_countin_sharded},
      {"clear of the other half (as shipped)", k_clear},
      {"config reads and the group's word (as shipped)", k_config},
      {"count-in + config + clear (as shipped)", k_shipped},
  };
  FILE *f = results_file("wgsync-bench-launch-phases", out, "phases.csv");
  fprintf(f, "# %s, %s, %s, %u launches per repeat, %u repeats after a warm-up\n", date, in.name,
          in.driver_version, N, R);
  fprintf(f, "what,groups,threads,median_us,min_us,max_us,repeats\n");
  printf("%-52s %10s %10s %10s\n", "per launch, back to back", "median_us", "min", "max");
  for (int pass = 0; pass < 2; pass++) /* twice, interleaved order effects show as spread */
    for (auto &c : cases) {
      std::vector<double> v;
      for (unsigned r = 0; r <= R; r++) {
        double t0 = now_us();
        for (unsigned i = 0; i < N; i++)
          c.k<<<G, T, 0, s>>>(w, clear, words);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        if (r)
          v.push_back((now_us() - t0) / N);
      }
      stat3 st = stats(v);
      fprintf(f, "\"%s\",%u,%u,%.3f,%.3f,%.3f,%u\n", c.what, G, T, st.med, st.lo, st.hi, R);
      printf("%-52s %10.2f %10.2f %10.2f\n", c.what, st.med, st.lo, st.hi);
    }
  fclose(f);
  cudaStreamDestroy(s);
  cudaFree(w), cudaFree(clear);
  return 0;
}

/*
 * Litmus at scale (issue: reliability, item 1): message-passing (MP), store-buffering (SB) and
 * last-writer (LW) shapes across wgsync's grid barriers, with memory stress from the threads of
 * each block that take no part in the litmus. Reports, per design and shape, how many
 * crossings were checked and how many were violated.
 *
 * A crossing is one checking thread reading, after barrier instance r, a location another
 * group wrote before it; it is violated when the read returns an older value:
 *   MP  group g writes its slots, barrier, reads group g+1+(r mod n-1)'s slots (plain accesses);
 *   SB  the same with partner g^1: both sides write, cross, then read the other's write;
 *   LW  thread 0 of every group stores r*n+g to one word (relaxed atomic), barrier, every
 *       checking thread reads the word and must see a round-r store (value / n == r);
 *   MP8 MP with 8 words per thread on 8 lines, read back from 8 different groups: more stores
 *       in flight when the group arrives, and every group's data read by 8 others (aimed at a
 *       missing release).
 * With the barrier with an OR (wgs_grid_barrier_or) a wrong answer counts as a violation too
 * (one thread, a different one each round, raises it in 4 rounds of 5).
 * The other half of each block adds to random words of a 64 MiB scratch area between barriers
 * (and, with the split barrier, between arrive and wait).
 *
 * Built three times: as shipped (WGS_MUTATE=0) and with the counter barrier weakened
 * (WGS_MUTATE=1: its acquires relaxed; 2: its releases relaxed; bench_variants.h), to show
 * that the same checks catch a barrier that is too weak.
 *   wgsync-bench-litmus[-m1|-m2] RESULTS_DIR [ROUNDS]
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "bench_variants.h" /* before the device library: its hooks */
#include "wgsync.cuh"
#include "wgsync_cuda.h"


enum { SHAPE_MP, SHAPE_SB, SHAPE_LW, SHAPE_MPW };
static const char *shape_name[] = {"MP", "SB", "LW", "MP8"};
#define WIDE 8u /* MP8: words each checking thread writes (one per line) and reads (8 groups) */

template <unsigned W> /* W = 1: MP, SB, LW; W = WIDE: MP8 (its own kernel: it needs more registers) */
__global__ void litmus(unsigned *wgs, unsigned *data, unsigned *lw, unsigned *scratch,
                       unsigned scratch_mask, unsigned rounds, int shape, int split,
                       unsigned stress_iters, unsigned long long *out)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    unsigned g = e.group_id, n = e.num_groups, half = blockDim.x / 2u;
    bool checker = threadIdx.x < half;
    unsigned slots = n * half, me = g * half + threadIdx.x;
    unsigned long long checks = 0, viol = 0, first = 0;
    unsigned x = (me + 1u) * 2654435761u;
    for (unsigned r = 1; r <= rounds; r++) {
      unsigned *buf = data + (r & 1u) * slots * W; /* round r+2
                                                  rewrites it after barrier r+1 */
      if (checker) {
        if (shape == SHAPE_LW) {
          if (threadIdx.x == 0u)
            atomicExch(&lw[r & 1u], r * n + g); /* relaxed store, every group: a last writer */
        } else if (W > 1u) {
          for (unsigned w = 0; w < W; w++)
            buf[w * slots + me] = r;
        } else {
          buf[me] = r;
        }
      }
      /* stress from the non-checking half: before the barrier, or between arrive and wait */
      if (split == 1)
        wgs_grid_arrive(&e);
      if (!checker)
        for (unsigned i = 0; i < stress_iters; i++) {
          x = x * 1664525u + 1013904223u;
          atomicAdd(&scratch[(x >> 7) & scratch_mask], 1u);
        }
      if (split == 1) {
        wgs_grid_wait(&e);
      } else if (split == 2) { /* the barrier with an OR: also checks its answer */
        unsigned raise = r % 5u != 0u, who = r * 2654435761u;
        unsigned any = wgs_grid_barrier_or(&e, raise && g == who % n && threadIdx.x == (who >> 16) % blockDim.x);
        if (checker && any != raise) {
          if (!viol)
            first = r;
          viol++;
        }
      } else {
        wgs_grid_barrier(&e);
      }
      if (checker && W > 1u) {
        for (unsigned w = 0; w < W; w++) {
          unsigned p = (g + 1u + (r + w * 7u) % (n - 1u)) % n;
          unsigned v = buf[w * slots + p * half + threadIdx.x];
          checks++;
          if (v != r) {
            if (!viol)
              first = r;
            viol++;
          }
        }
      } else if (checker) {
        unsigned v, want = r;
        if (shape == SHAPE_LW) {
          v = *(volatile unsigned *)&lw[r & 1u] / n;
        } else {
          unsigned p = shape == SHAPE_SB ? (g ^ 1u) : (g + 1u + r % (n - 1u)) % n;
          if (p >= n)
            p = (g + 1u) % n; /* SB with an odd count: the last group reads its successor */
          v = buf[p * half + threadIdx.x];
        }
        checks++;
        if (v != want) {
          if (!viol)
            first = r;
          viol++;
        }
      }
    }
    if (checker) {
      atomicAdd(&out[0], checks);
      if (viol) {
        atomicAdd(&out[1], viol);
        atomicMin(&out[2], first);
      }
    }
  }
}

int main(int argc, char **argv)
{
  const char *tool = WGS_MUTATE == 0 ? "wgsync-bench-litmus"
                     : WGS_MUTATE == 1 ? "wgsync-bench-litmus-m1"
                                       : "wgsync-bench-litmus-m2";
  const char *variant = WGS_MUTATE == 0 ? "as shipped"
                        : WGS_MUTATE == 1 ? "mutant: counter barrier acquires relaxed"
                                          : "mutant: counter barrier releases relaxed";
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s RESULTS_DIR [ROUNDS]\n", tool);
    return 2;
  }
  if (results_dir(tool, argv[1]))
    return 2;
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 4000u;
  wgs_device_info in;
  char date[32];
  if (bench_device(&in, date))
    return 77;
  cudaFuncAttributes fa, fa8;
  CK(cudaFuncGetAttributes(&fa, litmus<1>));
  CK(cudaFuncGetAttributes(&fa8, litmus<WIDE>));
  char name[64];
  snprintf(name, sizeof name, "litmus-m%d.csv", WGS_MUTATE);
  FILE *f = results_file(tool, argv[1], name);
  printf("# %s, %s, %s, %s; counter design %d; %d registers (MP8: %d); %u rounds per launch\n", date, in.name,
         in.driver_version, variant, WGS_COUNTER_VARIANT, fa.numRegs, fa8.numRegs, rounds);
  fprintf(f, "# %s, %s, %s, %s; counter design %d; %d registers (MP8: %d); %u rounds per launch\n", date, in.name,
          in.driver_version, variant, WGS_COUNTER_VARIANT, fa.numRegs, fa8.numRegs, rounds);
  fprintf(f, "variant,design,shape,launched,participants,threads,rounds,crossings,violations,"
             "first_violation_round,ms\n");

  const unsigned local = 256, scratch_words = 1u << 24; /* 64 MiB */
  uint32_t maxg = 4224;
  wgs_cuda_state_t *st;
  if (wgs_cuda_state_create(0, maxg, &st) != WGS_OK) {
    fprintf(stderr, "%s: %s\n", tool, wgs_last_error());
    return 1;
  }
  unsigned *data, *lw, *scratch;
  unsigned long long *out;
  CK(cudaMalloc(&data, 2ull * WIDE * maxg * local * sizeof(unsigned)));
  CK(cudaMalloc(&lw, 2 * sizeof(unsigned)));
  CK(cudaMalloc(&scratch, scratch_words * sizeof(unsigned)));
  CK(cudaMemset(scratch, 0, scratch_words * sizeof(unsigned)));
  CK(cudaMalloc(&out, 3 * sizeof(unsigned long long)));

  struct design {
    const char *name;
    wgs_barrier barrier;
    int split;
    uint32_t groups;
  } designs[] = {
      {"counter, 264 groups (polls the arrival count)", WGS_BARRIER_COUNTER, 0, 264},
      {"counter, 1056 groups (the default shape)", WGS_BARRIER_COUNTER, 0, 1056},
      {"split counter, 264 groups", WGS_BARRIER_COUNTER, 1, 264},
      {"split counter, 1056 groups", WGS_BARRIER_COUNTER, 1, 1056},
      {"xf (paper), 264 groups", WGS_BARRIER_XF, 0, 264},
      {"xf (paper), 1056 groups", WGS_BARRIER_XF, 0, 1056},
      {"counter with OR, 264 groups", WGS_BARRIER_COUNTER, 2, 264},
      {"counter with OR, 1056 groups", WGS_BARRIER_COUNTER, 2, 1056},
      {"xf with OR, 1056 groups", WGS_BARRIER_XF, 2, 1056},
  };
  unsigned long long total_checks = 0, total_viol = 0;
  for (const design &d : designs) {
    if (WGS_MUTATE && d.barrier == WGS_BARRIER_XF)
      continue; /* the mutations weaken the counter barrier (full and split) only */
    for (int shape = SHAPE_MP; shape <= SHAPE_MPW; shape++) {
      unsigned long long init[3] = {0, 0, ~0ull};
      CK(cudaMemset(data, 0, 2ull * WIDE * maxg * local * sizeof(unsigned)));
      CK(cudaMemset(lw, 0, 2 * sizeof(unsigned)));
      CK(cudaMemcpy(out, init, sizeof init, cudaMemcpyHostToDevice));
      unsigned mask = scratch_words - 1u, stress = 8u;
      void *args[] = {NULL, &data, &lw, &scratch, &mask, &rounds, &shape, (void *)&d.split, &stress, &out};
      wgs_launch_config cfg;
      wgs_launch_config_init(&cfg);
      cfg.local_size = local;
      cfg.groups = d.groups;
      cfg.barrier = d.barrier;
      cfg.time_kernel = 1;
      wgs_launch_result res;
      const void *kern = shape == SHAPE_MPW ? (const void *)litmus<WIDE> : (const void *)litmus<1>;
      int rc = wgs_cuda_launch(st, kern, args, 10, 0, 0, &cfg, &res);
      if (rc != WGS_OK) {
        fprintf(stderr, "%s: %s %s: %s: %s\n", tool, d.name, shape_name[shape], wgs_status_name(rc),
                wgs_last_error());
        return 1;
      }
      unsigned long long o[3];
      CK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
      total_checks += o[0];
      total_viol += o[1];
      char first[24] = "";
      if (o[1])
        snprintf(first, sizeof first, "%llu", o[2]);
      printf("%-46s %s: %4u of %4u groups, %12llu crossings, %9llu violations%s%s, %.1f ms\n",
             d.name, shape_name[shape], res.participants, res.launched, o[0], o[1],
             o[1] ? ", first in round " : "", first, res.kernel_us / 1e3);
      fprintf(f, "%s,%s,%s,%u,%u,%u,%u,%llu,%llu,%s,%.3f\n", WGS_MUTATE ? "mutant" : "shipped",
              d.name, shape_name[shape], res.launched, res.participants, local / 2, rounds, o[0],
              o[1], first, res.kernel_us / 1e3);
      fflush(f);
    }
  }
  printf("total: %llu crossings checked, %llu violations (%s)\n", total_checks, total_viol, variant);
  fprintf(f, "# total: %llu crossings checked, %llu violations\n", total_checks, total_viol);
  fclose(f);
  wgs_cuda_state_release(st);
  return 0;
}

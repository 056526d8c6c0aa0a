/*
 * CUDA backend tests: one case per invocation, each a CTest entry with a TIMEOUT. Without a GPU
 * (CI) every case exits 77 (skipped) and says why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cooperative_groups.h>

#include "check.h"
#include "reduce_check.h"
#include "wgsync.cuh"
#include "wgsync_cuda.h"

#include "../kernels/portable.h" /* the same kernel source test_opencl.c builds as OpenCL C */

static void need_gpu(void)
{
  int n = 0;
  wgs_cuda_device_count(&n);
  if (n == 0) {
    printf("SKIP: %s\n", wgs_last_error());
    exit(WGS_SKIP);
  }
  wgs_device_info in;
  CHECK_OK(wgs_cuda_device_info(0, &in));
  printf("device: %s, %s, %s, %u SMs\n", in.name, in.device_version, in.driver_version, in.compute_units);
}

/* §3.2 properties from inside the kernel (as tests/kernels/props.cl). */
__global__ void props(unsigned *wgs, unsigned *rec, unsigned *ids, unsigned *marks)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    unsigned n = wgs_get_num_groups(&e);
    atomicMin(&rec[0], n);
    atomicMax(&rec[1], n);
    atomicAdd(&marks[wgs_get_global_id(&e)], 1u);
    if (e.local_id == 0u) {
      ids[wgs_get_group_id(&e)] = blockIdx.x;
      atomicAdd(&rec[2], 1u);
    }
    for (int i = 0; i < 3; i++)
      wgs_grid_barrier(&e);
    if (e.local_id == 0u)
      atomicAdd(&rec[3], 1u);
  }
}

/* Misuse: a split wait without an arrive. */
__global__ void wait_first(unsigned *wgs)
{
  wgs_env e;
  if (wgs_discover(wgs, &e))
    wgs_grid_wait(&e);
}

/* Grid-level misuse (as tests/kernels/misuse.cl); this binary is a checked build. */
__global__ void twice_k(unsigned *wgs, unsigned *out)
{
  wgs_env e;
  wgs_discover(wgs, &e);
  if (wgs_discover(wgs, &e))
    atomicAdd(&out[0], 1u);
}
__global__ void outside_k(unsigned *wgs, unsigned *data, unsigned rounds, unsigned *out)
{
  wgs_env e;
  unsigned p = (unsigned)wgs_discover(wgs, &e);
  unsigned n = wgs_get_num_groups(&e), gid = (unsigned)wgs_get_global_id(&e);
  unsigned gsize = (unsigned)wgs_get_global_size(&e);
  for (unsigned r = 0u; r < rounds; ++r) {
    unsigned *buf = data + (r & 1u) * gsize;
    if (p)
      buf[gid] = r * 7919u + gid;
    wgs_grid_barrier(&e);
    if (p && n > 1u) {
      unsigned src = (gid + (r % (n - 1u) + 1u) * e.local_size) % gsize;
      if (((volatile unsigned *)buf)[src] != r * 7919u + src)
        atomicAdd(&out[1], 1u);
    }
  }
  if (p && e.local_id == 0u)
    atomicAdd(&out[0], 1u);
}
__global__ void partial_k(unsigned *wgs, unsigned *out)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    if (e.local_id < e.local_size / 2u)
      wgs_grid_barrier(&e);
    atomicAdd(&out[0], 1u);
  }
}
__global__ void before_k(unsigned *wgs, unsigned *out)
{
  wgs_env e;
  wgs_grid_barrier(&e); /* before wgs_discover */
  if (wgs_discover(wgs, &e))
    atomicAdd(&out[0], 1u);
}

#define LOCAL 128

/* Launch epochs (as tests/kernels/epochs.cl): participant 0 counts the launch and what every
 * representative should have counted. */
__global__ void epochs_k(unsigned *wgs, unsigned *out, unsigned rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    for (unsigned r = 0; r < rounds; ++r) {
      wgs_grid_barrier(&e);
      if (e.local_id == 0u)
        atomicAdd(&out[1], 1u);
    }
    if (e.local_id == 0u && e.group_id == 0u) {
      atomicAdd(&out[0], 1u);
      atomicAdd(&out[2], e.num_groups * rounds);
    }
  }
}
__global__ void no_discover_k(unsigned *wgs, unsigned *out, unsigned rounds)
{
  if (blockIdx.x == 0 && threadIdx.x == 0 && rounds == 12345u)
    out[0] = wgs[0];
}

static void run_props(wgs_lock lock, wgs_barrier barrier)
{
  uint32_t groups = wgs_cuda_default_groups(0, LOCAL);
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  unsigned *rec, *ids, *marks;
  size_t nm = (size_t)groups * LOCAL;
  CHECK(cudaMalloc(&rec, 8 * sizeof(unsigned)) == cudaSuccess);
  CHECK(cudaMalloc(&ids, groups * sizeof(unsigned)) == cudaSuccess);
  CHECK(cudaMalloc(&marks, nm * sizeof(unsigned)) == cudaSuccess);
  unsigned r0[8] = {0xffffffffu, 0, 0, 0, 0, 0, 0, 0};
  cudaMemcpy(rec, r0, sizeof r0, cudaMemcpyHostToDevice);
  cudaMemset(ids, 0xff, groups * sizeof(unsigned));
  cudaMemset(marks, 0, nm * sizeof(unsigned));
  void *args[4] = {NULL, &rec, &ids, &marks};
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = LOCAL;
  cfg.lock = lock;
  cfg.barrier = barrier;
  cfg.timeout_ms = 2000;
  wgs_launch_result res;
  CHECK_OK(wgs_cuda_launch(st, (const void *)props, args, 4, 0, 0, &cfg, &res));
  unsigned r[8];
  unsigned *iv = (unsigned *)malloc(groups * sizeof *iv), *mv = (unsigned *)malloc(nm * sizeof *mv);
  cudaMemcpy(r, rec, sizeof r, cudaMemcpyDeviceToHost);
  cudaMemcpy(iv, ids, groups * sizeof *iv, cudaMemcpyDeviceToHost);
  cudaMemcpy(mv, marks, nm * sizeof *mv, cudaMemcpyDeviceToHost);
  unsigned n = res.participants;
  printf("lock %d barrier %d: %u of %u launched took part, protocol %.1f us\n", (int)lock,
         (int)barrier, n, res.launched, res.protocol_us);
  CHECK(n >= 1);
  CHECK_EQ(r[0], n);
  CHECK_EQ(r[1], n);
  CHECK_EQ(r[2], n);
  CHECK_EQ(r[3], n); /* all passed three grid barriers: simultaneously occupant */
  char *seen = (char *)calloc(groups, 1);
  for (unsigned p = 0; p < groups; p++) {
    if (p < n) {
      CHECK(iv[p] < groups);
      CHECK(!seen[iv[p]]);
      seen[iv[p]] = 1;
    } else {
      CHECK_EQ(iv[p], 0xffffffffu);
    }
  }
  for (size_t i = 0; i < nm; i++)
    CHECK_EQ(mv[i], i < (size_t)n * LOCAL ? 1 : 0);
  free(seen), free(iv), free(mv);
  cudaFree(rec), cudaFree(ids), cudaFree(marks);
  wgs_cuda_state_release(st);
}

static int case_props(void)
{
  for (int l = WGS_LOCK_TICKET; l <= WGS_LOCK_FREE; l++)
    for (int b = WGS_BARRIER_XF; b <= WGS_BARRIER_PUBLISHED; b++)
      run_props((wgs_lock)l, (wgs_barrier)b);
  return 0;
}

static int case_recall(void)
{
  wgs_occupancy_config oc;
  memset(&oc, 0, sizeof oc);
  oc.local_size = 256;
  oc.local_mem_bytes = 1;
  oc.close_wait_us = -1;
  oc.timeout_ms = 200;
  uint32_t bound = 0, api = 0;
  CHECK_OK(wgs_cuda_occupancy_bound(0, &oc, 0, NULL, NULL, &bound));
  CHECK_OK(wgs_cuda_occupancy_api(0, 256, 1, &api));
  printf("bound %u, occupancy API %u\n", bound, api);
  CHECK_EQ(bound, api);
  for (int l = WGS_LOCK_TICKET; l <= WGS_LOCK_FREE; l += 2) { /* ticket and lock-free */
    oc.lock = (wgs_lock)l;
    for (int run = 0; run < 5; run++) {
      wgs_launch_result r;
      CHECK_OK(wgs_cuda_occupancy_discover(0, &oc, &r));
      printf("lock %d run %d: %u of %u, protocol %.1f us\n", l, run, r.participants, bound, r.protocol_us);
      CHECK_EQ(r.participants, bound);
    }
  }
  return 0;
}

static int case_mp(int split, int unchecked)
{
  for (int b = WGS_BARRIER_XF; b <= WGS_BARRIER_PUBLISHED; b++) {
    if (split && b == WGS_BARRIER_XF)
      continue; /* the split barrier runs counter or tree */
    wgs_selftest_config c;
    memset(&c, 0, sizeof c);
    c.local_size = 256;
    c.rounds = 3000;
    c.close_wait_us = -1;
    c.timeout_ms = 2000;
    c.barrier = (wgs_barrier)b;
    c.split = split;
    c.unchecked = unchecked;
    c.lock = WGS_LOCK_FREE;
    wgs_selftest_result r;
    CHECK_OK(wgs_cuda_barrier_selftest(0, &c, &r));
    printf("barrier %d%s: %u groups, %u rounds, %u stale reads, %.2f us/round\n", b,
           split ? " (split)" : "", r.launch.participants, r.rounds, r.mismatches,
           r.launch.kernel_us / r.rounds);
    CHECK_EQ(r.mismatches, 0);
    CHECK_EQ(r.groups_done, r.launch.participants);
  }
  return 0;
}

static int case_mixed(void)
{
  uint32_t groups = wgs_cuda_default_groups(0, LOCAL);
  unsigned rounds = 2000, *cnt, *bad, got[4];
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  CHECK(cudaMalloc(&cnt, 4) == cudaSuccess && cudaMalloc(&bad, 16) == cudaSuccess);
  /* tests/kernels/portable.h's portable_mixed: the same kernel test_opencl's split case runs */
  for (int b = WGS_BARRIER_XF; b <= WGS_BARRIER_PUBLISHED; b++) {
    cudaMemset(cnt, 0, 4);
    cudaMemset(bad, 0, 16);
    void *args[4] = {NULL, &cnt, &bad, &rounds};
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = LOCAL;
    cfg.barrier = (wgs_barrier)b;
    cfg.lock = WGS_LOCK_FREE;
    cfg.timeout_ms = 2000;
    wgs_launch_result res;
    CHECK_OK(wgs_cuda_launch(st, (const void *)portable_mixed, args, 4, 0, 0, &cfg, &res));
    cudaMemcpy(got, bad, 16, cudaMemcpyDeviceToHost);
    printf("mixed, kind %d: %u groups, %u violations\n", b, res.participants, got[0]);
    CHECK_EQ(got[0], 0);
    cudaMemcpy(got, cnt, 4, cudaMemcpyDeviceToHost);
    CHECK_EQ(got[0], res.participants * rounds);
  }
  cudaFree(cnt), cudaFree(bad);
  wgs_cuda_state_release(st);
  return 0;
}

/* wgs_grid_barrier_or's answers: tests/kernels/portable.h's portable_or, as test_opencl's or. */
static int case_or(void)
{
  uint32_t groups = wgs_cuda_default_groups(0, LOCAL);
  unsigned rounds = 2000, *bad, got[4];
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  CHECK(cudaMalloc(&bad, 16) == cudaSuccess);
  for (int b = WGS_BARRIER_XF; b <= WGS_BARRIER_PUBLISHED; b++) {
    cudaMemset(bad, 0, 16);
    void *args[3] = {NULL, &bad, &rounds};
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = LOCAL;
    cfg.barrier = (wgs_barrier)b;
    cfg.timeout_ms = 2000;
    wgs_launch_result res;
    CHECK_OK(wgs_cuda_launch(st, (const void *)portable_or, args, 3, 0, 0, &cfg, &res));
    CHECK(cudaMemcpy(got, bad, 16, cudaMemcpyDeviceToHost) == cudaSuccess);
    printf("grid barrier with OR, kind %d: %u groups x %d, %u rounds, %u wrong answers", b, res.participants,
           LOCAL, rounds, got[0]);
    if (got[0])
      printf(" (first: barrier %u of round %u answered %u to thread %u)", got[1] % 5u, got[1] / 5u, got[2], got[3]);
    printf("\n");
    CHECK_EQ(got[0], 0);
  }
  cudaFree(bad);
  wgs_cuda_state_release(st);
  return 0;
}

/* Grid reductions: tests/kernels/portable.h's portable_reduce, as test_opencl's reduce, at LOCAL
 * threads and at 40 (a partial warp), both barrier kinds; a second launch gives the float sum
 * the same bits. */
static int case_reduce(void)
{
  unsigned rounds = 200, *bad, *sums, got[4];
  int locals[2] = {LOCAL, 40};
  uint32_t cap = wgs_cuda_default_groups(0, 40);
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, cap, &st));
  CHECK(cudaMalloc(&bad, 16) == cudaSuccess);
  CHECK(cudaMalloc(&sums, (size_t)rounds * cap * 4) == cudaSuccess);
  uint32_t *h = (uint32_t *)malloc((size_t)rounds * cap * 4), *first = (uint32_t *)malloc((size_t)rounds * cap * 4);
  CHECK(h && first);
  for (int l = 0; l < 2; l++) {
    for (int b = WGS_BARRIER_XF; b <= WGS_BARRIER_PUBLISHED; b++) {
      unsigned before = 0;
      for (int again = 0; again < 2; again++) {
        cudaMemset(bad, 0, 16);
        void *args[4] = {NULL, &bad, &sums, &rounds};
        wgs_launch_config cfg;
        wgs_launch_config_init(&cfg);
        cfg.local_size = (size_t)locals[l];
        cfg.barrier = (wgs_barrier)b;
        cfg.timeout_ms = 2000;
        wgs_launch_result res;
        CHECK_OK(wgs_cuda_launch(st, (const void *)portable_reduce, args, 4, 0, 0, &cfg, &res));
        CHECK(cudaMemcpy(got, bad, 16, cudaMemcpyDeviceToHost) == cudaSuccess);
        unsigned n = res.participants;
        CHECK(cudaMemcpy(h, sums, (size_t)rounds * n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        char label[32];
        snprintf(label, sizeof label, "kind %d", b);
        CHECK_EQ(reduce_launch_report(label, n, (unsigned)locals[l], rounds, got, h, first, &before, again), 0);
      }
    }
  }
  free(h), free(first);
  cudaFree(bad), cudaFree(sums);
  wgs_cuda_state_release(st);
  return 0;
}

/* One kernel source for both backends (tests/kernels/portable.h, as test_opencl's portable):
 * message passing across full and split grid barriers. */
static int case_portable(void)
{
  uint32_t groups = wgs_cuda_default_groups(0, LOCAL);
  unsigned rounds = 2000, *slots, *bad, *done;
  size_t words = (size_t)groups * LOCAL;
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  CHECK(cudaMalloc(&slots, 2 * words * 4) == cudaSuccess && cudaMalloc(&bad, words * 4) == cudaSuccess &&
        cudaMalloc(&done, groups * 4) == cudaSuccess);
  unsigned *b = (unsigned *)malloc(words * 4), *d = (unsigned *)malloc(groups * 4);
  CHECK(b && d);
  const void *k[3] = {(const void *)portable_mp, (const void *)portable_mp_split, (const void *)portable_mp_or};
  const char *form[3] = {"full", "split", "OR"};
  for (int split = 0; split < 3; split++) {
    cudaMemset(slots, 0, 2 * words * 4);
    cudaMemset(bad, 0, words * 4);
    cudaMemset(done, 0, groups * 4);
    void *args[5] = {NULL, &slots, &bad, &done, &rounds};
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = LOCAL;
    cfg.timeout_ms = 2000;
    wgs_launch_result res;
    CHECK_OK(wgs_cuda_launch(st, k[split], args, 5, 0, 0, &cfg, &res));
    CHECK(cudaMemcpy(b, bad, words * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(cudaMemcpy(d, done, groups * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    unsigned long long stale = 0;
    for (size_t i = 0; i < (size_t)res.participants * LOCAL; i++)
      stale += b[i];
    for (uint32_t g = 0; g < res.participants; g++)
      CHECK_MSG(d[g] == rounds, "group %u finished %u of %u rounds", g, d[g], rounds);
    printf("portable kernel, %s barrier: %u groups x %d, %u rounds, %llu stale reads\n",
           form[split], res.participants, LOCAL, rounds, stale);
    CHECK_EQ(stale, 0);
  }
  free(b), free(d);
  cudaFree(slots), cudaFree(bad), cudaFree(done);
  wgs_cuda_state_release(st);
  return 0;
}

static int case_misuse(void)
{
  uint32_t groups = wgs_cuda_default_groups(0, LOCAL), rounds = 200;
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  unsigned *out, *data;
  CHECK(cudaMalloc(&out, 16) == cudaSuccess);
  CHECK(cudaMalloc(&data, 2 * (size_t)groups * LOCAL * sizeof(unsigned)) == cudaSuccess);
  const void *kernels[4] = {(const void *)twice_k, (const void *)outside_k, (const void *)partial_k,
                            (const void *)before_k};
  const char *names[4] = {"twice", "outside", "partial", "before"};
  const char *want[4] = {"wgs_discover called a second time", "which wgs_discover turned away",
                         "work-items of group", "ran before wgs_discover"};
  for (int i = 0; i < 4; i++) {
    cudaMemset(out, 0, 16);
    void *args2[2] = {NULL, &out}, *args4[4] = {NULL, &data, &rounds, &out};
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = LOCAL;
    cfg.lock = WGS_LOCK_FREE;
    cfg.timeout_ms = 2000;
    wgs_launch_result res;
    int rc = i == 1 ? wgs_cuda_launch(st, kernels[i], args4, 4, 0, 0, &cfg, &res)
                    : wgs_cuda_launch(st, kernels[i], args2, 2, 0, 0, &cfg, &res);
    printf("%s: %s: %s\n", names[i], wgs_status_name(rc), wgs_last_error());
    CHECK_EQ(rc, WGS_EMISUSE);
    CHECK_MSG(strstr(wgs_last_error(), want[i]) != NULL, "message lacks '%s'", want[i]);
    unsigned got[4];
    cudaMemcpy(got, out, 16, cudaMemcpyDeviceToHost);
    if (i == 1)
      CHECK_EQ(got[1], 0); /* turned-away blocks let nobody through early */
  }
  cudaFree(out), cudaFree(data);
  wgs_cuda_state_release(st);
  return 0;
}

static int case_deadlock(void)
{
  for (int b = WGS_BARRIER_XF; b <= WGS_BARRIER_PUBLISHED; b++) {
    wgs_occupancy_config oc;
    memset(&oc, 0, sizeof oc);
    oc.local_size = 256;
    oc.local_mem_bytes = 1;
    oc.timeout_ms = 200;
    oc.barrier = (wgs_barrier)b;
    uint32_t bound = 0;
    CHECK_OK(wgs_cuda_occupancy_bound(0, &oc, 0, NULL, NULL, &bound));
    printf("barrier %d: bound %u\n", b, bound);
    CHECK(bound >= 1);
  }
  /* an unsafe barrier over 4x the hardware maximum: reported with who was missing */
  wgs_cuda_state_t *st;
  uint32_t groups = 4 * wgs_cuda_default_groups(0, 64);
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  unsigned *rec, *ids, *marks;
  cudaMalloc(&rec, 8 * sizeof(unsigned));
  cudaMalloc(&ids, groups * sizeof(unsigned));
  cudaMalloc(&marks, (size_t)groups * 64 * sizeof(unsigned));
  void *args[4] = {NULL, &rec, &ids, &marks};
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  cfg.local_size = 64;
  cfg.groups = groups;
  cfg.discovery = WGS_DISCOVERY_ALL;
  cfg.timeout_ms = 200;
  wgs_launch_result res;
  int rc = wgs_cuda_launch(st, (const void *)props, args, 4, 0, 0, &cfg, &res);
  printf("%s: %s\n", wgs_status_name(rc), wgs_last_error());
  CHECK_EQ(rc, WGS_EDEADLOCK);
  CHECK_EQ(res.err_expected, groups);
  CHECK(res.err_arrived >= 1 && res.err_arrived < groups);
  CHECK_EQ(res.err_missing_count, groups - res.err_arrived);
  /* split misuse: a wait without an arrive */
  void *args1[1] = {NULL};
  cfg.discovery = WGS_DISCOVERY_PROTOCOL;
  cfg.groups = 0;
  rc = wgs_cuda_launch(st, (const void *)wait_first, args1, 1, 0, 0, &cfg, &res);
  printf("%s: %s\n", wgs_status_name(rc), wgs_last_error());
  CHECK_EQ(rc, WGS_EMISUSE); /* a broken rule, as every other misuse */
  CHECK(strstr(wgs_last_error(), "split grid barrier misused") != NULL);
  cudaFree(rec), cudaFree(ids), cudaFree(marks);
  wgs_cuda_state_release(st);
  return 0;
}

static int case_bad_input(void)
{
  wgs_cuda_state_t *st = NULL;
  CHECK_STATUS(wgs_cuda_state_create(99, 4, &st), WGS_ENODEV);
  CHECK_STATUS(wgs_cuda_state_create(0, 0, &st), WGS_EINVAL);
  CHECK_OK(wgs_cuda_state_create(0, 4, &st));
  wgs_launch_config cfg;
  wgs_launch_config_init(&cfg);
  void *args[1] = {NULL};
  cfg.state_arg = 1;
  CHECK_STATUS(wgs_cuda_launch(st, (const void *)wait_first, args, 1, 0, 0, &cfg, NULL), WGS_EINVAL);
  cfg.state_arg = 0;
  cfg.local_size = 4096;
  CHECK_STATUS(wgs_cuda_launch(st, (const void *)wait_first, args, 1, 0, 0, &cfg, NULL), WGS_ELIMIT);
  cfg.local_size = 64;
  cfg.groups = 5;
  CHECK_STATUS(wgs_cuda_launch(st, (const void *)wait_first, args, 1, 0, 0, &cfg, NULL), WGS_ELIMIT);
  CHECK_STATUS(wgs_cuda_launch(NULL, (const void *)wait_first, args, 1, 0, 0, &cfg, NULL), WGS_EINVAL);
  wgs_cuda_state_release(st);
  return 0;
}

/* Launches without a reset between them: asynchronous on a stream with the config changing,
 * then captured into a graph replayed many times, then synchronous again; the counts add up,
 * and a kernel that never calls wgs_discover is named. */
static int case_epochs(void)
{
  uint32_t groups = wgs_cuda_default_groups(0, LOCAL);
  unsigned rounds = 9, *out, got[4], launches = 0;
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, groups, &st));
  CHECK(cudaMalloc(&out, 16) == cudaSuccess && cudaMemset(out, 0, 16) == cudaSuccess);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  void *args[3] = {NULL, &out, &rounds};
  wgs_launch_config cfg[3];
  for (int i = 0; i < 3; i++) {
    wgs_launch_config_init(&cfg[i]);
    cfg[i].local_size = LOCAL;
    cfg[i].timeout_ms = 2000;
  }
  cfg[1].barrier = WGS_BARRIER_XF;
  cfg[2].discovery = WGS_DISCOVERY_FIXED;
  cfg[2].groups = 132 < groups ? 132 : groups;
  for (int i = 0; i < 60; i++, launches++)
    CHECK_OK(wgs_cuda_launch_async(st, (const void *)epochs_k, args, 3, 0, s, &cfg[i % 3]));
  wgs_launch_result r;
  CHECK_OK(wgs_cuda_state_result(st, s, &r));
  CHECK(r.participants >= 1);
  /* captured: three launches per graph, replayed */
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  for (int i = 0; i < 3; i++)
    CHECK_OK(wgs_cuda_launch_async(st, (const void *)epochs_k, args, 3, 0, s, &cfg[i]));
  wgs_launch_config timed = cfg[0];
  timed.time_kernel = 1;
  CHECK_STATUS(wgs_cuda_launch_async(st, (const void *)epochs_k, args, 3, 0, s, &timed), WGS_EINVAL);
  CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int i = 0; i < 100; i++, launches += 3)
    CHECK(cudaGraphLaunch(exec, s) == cudaSuccess);
  CHECK_OK(wgs_cuda_state_result(st, s, &r));
  /* a synchronous launch after the replays (the device's config words are the graph's) */
  CHECK_OK(wgs_cuda_launch(st, (const void *)epochs_k, args, 3, 0, s, &cfg[0], &r));
  launches++;
  /* a synchronous launch under capture, with other config words: its wait ends the capture,
   * which it names; what it enqueued never runs, and the next launch still runs right */
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  int rc_cap = wgs_cuda_launch(st, (const void *)epochs_k, args, 3, 0, s, &cfg[2], &r);
  printf("synchronous launch under capture: %s: %s\n", wgs_status_name(rc_cap), wgs_last_error());
  CHECK_EQ(rc_cap, WGS_EBACKEND);
  CHECK(strstr(wgs_last_error(), "wgs_cuda_launch_async") != NULL);
  cudaGraph_t broken = NULL;
  CHECK(cudaStreamEndCapture(s, &broken) != cudaSuccess);
  cudaGetLastError();
  CHECK_OK(wgs_cuda_launch(st, (const void *)epochs_k, args, 3, 0, s, &cfg[2], &r));
  launches++;
  CHECK_EQ(r.participants, cfg[2].groups);
  CHECK(cudaMemcpy(got, out, 16, cudaMemcpyDeviceToHost) == cudaSuccess);
  printf("%u launches (%u captured and replayed), %u barrier passes counted, %u expected\n",
         got[0], 300, got[1], got[2]);
  CHECK_EQ(got[0], launches);
  CHECK_EQ(got[1], got[2]);
  int rc = wgs_cuda_launch(st, (const void *)no_discover_k, args, 3, 0, s, &cfg[0], &r);
  printf("no wgs_discover: %s: %s\n", wgs_status_name(rc), wgs_last_error());
  CHECK_EQ(rc, WGS_EBACKEND);
  CHECK(strstr(wgs_last_error(), "wgs_discover") != NULL);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(out);
  wgs_cuda_state_release(st);
  return 0;
}

/* Another kernel holds part of the GPU (Sorensen et al. 2016's case for discovery; what users of hand-sized
 * persistent kernels report as deadlocks): `hog` blocks spin on another stream until the host
 * says stop, or for at most max_ns (so nothing here can hang). */
__global__ void hog(volatile unsigned *started, volatile unsigned *stop, unsigned long long max_ns)
{
  if (threadIdx.x == 0) { /* the other warps wait at the barrier: the whole block stays */
    atomicAdd((unsigned *)started, 1u);
    unsigned long long t0 = wgs__timer_ns();
    while (*stop == 0u && wgs__timer_ns() - t0 < max_ns) {
    }
  }
  __syncthreads();
}
/* Message passing across each barrier: write own slot, barrier, read another group's slot. */
__global__ void mp_busy(unsigned *wgs, unsigned *data, unsigned rounds, unsigned *bad)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    unsigned n = wgs_get_num_groups(&e), N = n * e.local_size, gid = (unsigned)wgs_get_global_id(&e);
    for (unsigned r = 0; r < rounds; r++) {
      unsigned *buf = data + (r & 1u) * N;
      buf[gid] = r * 7919u + gid;
      wgs_grid_barrier(&e);
      unsigned src = n > 1u ? (gid + (r % (n - 1u) + 1u) * e.local_size) % N : gid;
      if (buf[src] != r * 7919u + src)
        atomicAdd(bad, 1u);
    }
  }
}
__global__ void cg_busy(unsigned rounds, unsigned *sink)
{
  cooperative_groups::grid_group g = cooperative_groups::this_grid();
  for (unsigned r = 0; r < rounds; r++)
    g.sync();
  if (g.thread_rank() == 0)
    sink[0] = rounds;
}
static double ms_now(void)
{
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
/* With most of every SM's threads taken by another kernel: wgsync's discovery runs with the
 * groups that fit and passes the message-passing check; a launch sized by the occupancy API
 * (the fixed form) is reported as a deadlock by the checked build, not hung; a cooperative
 * launch of that size waits for the other kernel (reported, with how long). */
static int case_busy(void)
{
  const unsigned T = 256, rounds = 500;
  int sms = 0, per = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, mp_busy, T, 0) == cudaSuccess);
  int tps = 0;
  CHECK(cudaDeviceGetAttribute(&tps, cudaDevAttrMaxThreadsPerMultiProcessor, 0) == cudaSuccess);
  /* the other kernel takes all of each SM's threads but room for half as many of our blocks as
   * fit on an empty SM (at least one): registers alone may have limited us (H100: 5 of 8) */
  unsigned keep = per / 2 > 0 ? (unsigned)per / 2 : 1u;
  unsigned full = (unsigned)(per * sms), hog_blocks = (unsigned)sms * ((unsigned)tps / T - keep);
  unsigned launched = wgs_cuda_default_groups(0, T);
  printf("occupancy API: %d blocks of %u per SM, %u in all; the other kernel takes %u\n", per, T,
         full, hog_blocks);
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, launched, &st));
  /* Load the kernels before the other one runs: under lazy loading (CUDA's default) a kernel's
   * first launch loads it, and the load waits for the running kernels to end. */
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, mp_busy) == cudaSuccess && cudaFuncGetAttributes(&fa, cg_busy) == cudaSuccess);
  unsigned *data, *bad, *sink, *flags;
  CHECK(cudaMalloc(&data, 2 * (size_t)launched * T * sizeof(unsigned)) == cudaSuccess);
  CHECK(cudaMalloc(&bad, 4) == cudaSuccess && cudaMalloc(&sink, 4) == cudaSuccess);
  CHECK(cudaHostAlloc(&flags, 2 * sizeof(unsigned), cudaHostAllocMapped) == cudaSuccess);
  unsigned *flags_dev;
  CHECK(cudaHostGetDevicePointer(&flags_dev, flags, 0) == cudaSuccess);
  cudaStream_t other, mine;
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) == cudaSuccess);
  CHECK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) == cudaSuccess);
  volatile unsigned *started = flags, *stop = flags + 1;
  for (int form = 0; form < 3; form++) {
    *started = 0;
    *stop = 0;
    CHECK(cudaMemset(bad, 0, 4) == cudaSuccess);
    hog<<<hog_blocks, T, 0, other>>>(flags_dev, flags_dev + 1, 5000000000ull);
    CHECK(cudaGetLastError() == cudaSuccess);
    double t0 = ms_now();
    while (*started < hog_blocks && ms_now() - t0 < 5000) {
    }
    CHECK_MSG(*started == hog_blocks, "the other kernel started %u of %u blocks", *started, hog_blocks);
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = T;
    cfg.timeout_ms = 200;
    unsigned r = rounds;
    void *args[4] = {NULL, &data, &r, &bad};
    wgs_launch_result res;
    if (form == 0) { /* wgsync: discovery */
      cfg.groups = launched;
      int rc = wgs_cuda_launch(st, (const void *)mp_busy, args, 4, 0, mine, &cfg, &res);
      unsigned nbad = 0;
      cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost);
      printf("discovery beside the other kernel: %s, %u participants of %u launched (%u on an "
             "empty GPU), %u stale reads in %u rounds\n", wgs_status_name(rc), res.participants,
             launched, full, nbad, rounds);
      CHECK_OK(rc);
      CHECK(res.participants >= 1 && res.participants < full);
      CHECK_EQ(nbad, 0);
    } else if (form == 1) { /* fixed: the occupancy API's count, as a hand-sized kernel would */
      cfg.groups = full;
      cfg.discovery = WGS_DISCOVERY_FIXED;
      int rc = wgs_cuda_launch(st, (const void *)mp_busy, args, 4, 0, mine, &cfg, &res);
      printf("fixed %u groups beside the other kernel: %s: %s\n", full, wgs_status_name(rc),
             rc ? wgs_last_error() : "");
      CHECK_EQ(rc, WGS_EDEADLOCK);
    } else { /* grid.sync() with a cooperative launch of the same size */
      void *cargs[2] = {&r, &sink};
      double c0 = ms_now();
      cudaError_t ce = cudaLaunchCooperativeKernel((const void *)cg_busy, dim3(full), dim3(T), cargs, 0, mine);
      usleep(100000);
      cudaError_t q = cudaStreamQuery(mine);
      printf("cooperative launch of %u blocks beside the other kernel: %s; after 100 ms: %s\n",
             full, cudaGetErrorName(ce), q == cudaSuccess ? "done" : cudaGetErrorName(q));
      *stop = 1;
      cudaError_t se = cudaStreamSynchronize(mine);
      printf("  it completed %.1f ms after it was launched, once the other kernel stopped (%s)\n",
             ms_now() - c0, cudaGetErrorName(se));
    }
    *stop = 1;
    CHECK(cudaStreamSynchronize(other) == cudaSuccess);
  }
  cudaStreamDestroy(other);
  cudaStreamDestroy(mine);
  cudaFreeHost(flags);
  cudaFree(data), cudaFree(bad), cudaFree(sink);
  wgs_cuda_state_release(st);
  return 0;
}

/* Beside a kernel of another process that holds every SM: the process is forked before either
 * touches CUDA. Without MPS the two contexts are time-sliced, not run side by side, so this
 * records what a user sees there rather than assuming it: discovery must complete with a
 * correct barrier; the fixed launch of the occupancy API's count is reported either way. */
static int case_busy_process(void)
{
  int ready[2], done[2];
  CHECK(pipe(ready) == 0 && pipe(done) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) { /* the other process: fill the GPU until told to stop (or 20 s) */
    close(ready[0]);
    close(done[1]);
    int n = 0;
    if (wgs_cuda_device_count(&n) != WGS_OK || n == 0)
      _exit(77);
    int sms = 0, tps = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&tps, cudaDevAttrMaxThreadsPerMultiProcessor, 0);
    unsigned *flags, *flags_dev, blocks = (unsigned)sms * ((unsigned)tps / 256u);
    if (cudaHostAlloc(&flags, 2 * sizeof(unsigned), cudaHostAllocMapped) != cudaSuccess ||
        cudaHostGetDevicePointer(&flags_dev, flags, 0) != cudaSuccess)
      _exit(1);
    volatile unsigned *started = flags, *stop = flags + 1;
    *started = *stop = 0;
    hog<<<blocks, 256>>>(flags_dev, flags_dev + 1, 20000000000ull);
    double t0 = ms_now();
    while (*started < blocks && ms_now() - t0 < 5000) {
    }
    char c = *started == blocks ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1)
      _exit(1);
    if (read(done[0], &c, 1) != 1) { /* the parent is gone: stop anyway */
    }
    *stop = 1;
    cudaDeviceSynchronize();
    _exit(0);
  }
  close(ready[1]); /* so that a child that exits early ends the read */
  close(done[0]);
  char c = 0;
  if (read(ready[0], &c, 1) != 1) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
      need_gpu(); /* prints why and exits 77 */
      return WGS_SKIP;
    }
    printf("the other process ended before filling the GPU (status %d)\n", status);
    return 1;
  }
  if (c != 'y') {
    printf("the other process could not fill the GPU\n");
    CHECK(write(done[1], "x", 1) == 1);
    waitpid(pid, NULL, 0);
    return 1;
  }
  need_gpu();
  const unsigned T = 256, rounds = 500;
  unsigned launched = wgs_cuda_default_groups(0, T);
  int sms = 0, per = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, mp_busy, T, 0) == cudaSuccess);
  unsigned full = (unsigned)(per * sms);
  wgs_cuda_state_t *st;
  CHECK_OK(wgs_cuda_state_create(0, launched, &st));
  unsigned *data, *bad;
  CHECK(cudaMalloc(&data, 2 * (size_t)launched * T * sizeof(unsigned)) == cudaSuccess);
  CHECK(cudaMalloc(&bad, 4) == cudaSuccess);
  int failed = 0;
  for (int form = 0; form < 2; form++) {
    CHECK(cudaMemset(bad, 0, 4) == cudaSuccess);
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = T;
    cfg.timeout_ms = 2000;
    cfg.groups = form == 0 ? launched : full;
    if (form == 1)
      cfg.discovery = WGS_DISCOVERY_FIXED;
    unsigned r = rounds;
    void *args[4] = {NULL, &data, &r, &bad};
    wgs_launch_result res;
    double t0 = ms_now();
    int rc = wgs_cuda_launch(st, (const void *)mp_busy, args, 4, 0, 0, &cfg, &res);
    unsigned nbad = 0;
    cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost);
    printf("%s beside another process's kernel: %s, %u participants of %u launched (%u fit an "
           "empty GPU), %u stale reads, %.1f ms%s%s\n",
           form == 0 ? "discovery" : "fixed (occupancy API count)", wgs_status_name(rc),
           res.participants, cfg.groups, full, nbad, ms_now() - t0, rc ? ": " : "",
           rc ? wgs_last_error() : "");
    if (form == 0 && (rc != WGS_OK || nbad != 0 || res.participants < 1))
      failed = 1;
  }
  CHECK(write(done[1], "x", 1) == 1);
  int status = 0;
  waitpid(pid, &status, 0);
  cudaFree(data), cudaFree(bad);
  wgs_cuda_state_release(st);
  return failed;
}

int main(int argc, char **argv)
{
  if (argc != 2)
    return 2;
  setvbuf(stdout, NULL, _IONBF, 0);
  if (!strcmp(argv[1], "busy_process")) /* forks before CUDA is touched */
    return case_busy_process();
  need_gpu();
  const char *c = argv[1];
  if (!strcmp(c, "props")) return case_props();
  if (!strcmp(c, "recall")) return case_recall();
  if (!strcmp(c, "mp")) return case_mp(0, 0);
  if (!strcmp(c, "mp_unchecked")) return case_mp(0, 1);
  if (!strcmp(c, "split")) return case_mp(1, 0);
  if (!strcmp(c, "or")) return case_or();
  if (!strcmp(c, "reduce")) return case_reduce();
  if (!strcmp(c, "mixed")) return case_mixed();
  if (!strcmp(c, "deadlock")) return case_deadlock();
  if (!strcmp(c, "bad_input")) return case_bad_input();
  if (!strcmp(c, "misuse")) return case_misuse();
  if (!strcmp(c, "epochs")) return case_epochs();
  if (!strcmp(c, "busy")) return case_busy();
  if (!strcmp(c, "portable")) return case_portable();
  fprintf(stderr, "unknown case %s\n", c);
  return 2;
}

/*
 * The team of GPUs (include/wgsync_team.h, device/cuda/wgsync_team.cuh). Needs 2 or more GPUs
 * that reach each other's memory; exits 77 (skipped) otherwise, saying why.
 *   props    team ids and sizes: every GPU's groups numbered once across the team
 *   mp       message passing across the team barrier: before each barrier every thread stores
 *            into the next GPU's buffer (through its LSA pointer), after it reads its own buffer;
 *            the same with the split barrier (work between arrive and wait, local grid barriers
 *            mixed in); then the latency of the team barrier against the local one
 *   procs    a team across processes: 2 processes, one GPU each, one communicator from
 *            ncclCommInitRank (wgs_cuda_team_from_comm); ids and message passing as above
 *   missing  checked build: one GPU leaves before the last team barrier; the other reports the
 *            grid barrier it waited at (WGS_EDEADLOCK), nothing hangs
 *   bad      bad input is a clear error
 * Run with NCCL_NVLS_ENABLE=0 (no NVLink multicast).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>

#include "wgsync_team.cuh"
#include "wgsync_team.h"

#define SKIP 77
static int failed = 0;
#define CHECK(c, ...)                                                                         \
  do {                                                                                        \
    if (!(c)) {                                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #c);                   \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fprintf(stderr, "\n");                                                                  \
      failed = 1;                                                                             \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

__global__ void k_props(wgs_team_ctx *t, unsigned *seen, unsigned *info)
{
  wgs_team_env e;
  if (wgs_team_discover(t, &e)) {
    if (threadIdx.x == 0) {
      atomicAdd(&seen[wgs_team_group_id(&e)], 1u); /* this GPU's copy; the host adds them */
      if (e.env.group_id == 0) {
        info[0] = wgs_team_rank(&e);
        info[1] = wgs_team_size(&e);
        info[2] = wgs_team_num_groups(&e);
        info[3] = e.env.num_groups;
        info[4] = e.group_base;
      }
    }
    wgs_team_barrier(&e);
  }
}

/* Round r: every thread writes r-stamped values into slot (gid) of the next GPU's buffer half
 * r % 2, team barrier, then reads its own buffer's slot written by the previous GPU. split: the
 * barrier is wgs_team_arrive, work on this GPU's own scratch words, wgs_team_wait, and a local
 * grid barrier follows every other round (the two kinds count the same arrivals). */
__global__ void __launch_bounds__(1024) k_mp(wgs_team_ctx *t, ncclWindow_t win, unsigned *mine, unsigned rounds, unsigned slots,
                     unsigned *bad, unsigned split)
{
  wgs_team_env e;
  if (wgs_team_discover(t, &e)) {
    unsigned n = wgs_team_size(&e), next = (wgs_team_rank(&e) + 1u) % n;
    unsigned gid = (unsigned)wgs_get_global_id(&e.env), gsz = (unsigned)wgs_get_global_size(&e.env);
    unsigned stale = 0;
    for (unsigned r = 0; r < rounds; ++r) {
      unsigned half = (r & 1u) * slots;
      unsigned *peer = (unsigned *)wgs_team_peer_ptr(&e, win, 0, next);
      for (unsigned i = gid; i < slots; i += gsz)
        peer[half + i] = r * 2654435761u + i;
      if (split) {
        wgs_team_arrive(&e);
        unsigned *scratch = mine + 2u * slots; /* the window's third part: this GPU's only */
        for (unsigned i = gid; i < slots; i += gsz)
          scratch[i] += i ^ r;
        wgs_team_wait(&e);
      } else {
        wgs_team_barrier(&e);
      }
      for (unsigned i = gid; i < slots; i += gsz)
        if (((volatile unsigned *)mine)[half + i] != r * 2654435761u + i)
          stale++;
      if (split && (r & 1u))
        wgs_grid_barrier(&e.env);
    }
    if (stale)
      atomicAdd(bad, stale);
  }
}

__global__ void __launch_bounds__(1024, 2) k_lat(wgs_team_ctx *t, unsigned iters, unsigned team, unsigned *sink)
{
  wgs_team_env e;
  if (wgs_team_discover(t, &e)) {
    for (unsigned i = 0; i < iters; ++i) {
      if (team == 1)
        wgs_team_barrier(&e);
      else if (team == 2)
        wgs__team_barrier_twice(&e, __LINE__); /* the first design */
      else
        wgs_grid_barrier(&e.env);
    }
    if (threadIdx.x == 0 && e.env.group_id == 0)
      sink[0] = e.env.instance;
  }
}

/* GPU `leaver` returns after discovery; the others wait at a team barrier it never reaches. */
__global__ void k_missing(wgs_team_ctx *t, unsigned leaver)
{
  wgs_team_env e;
  if (wgs_team_discover(t, &e)) {
    if (wgs_team_rank(&e) != leaver)
      wgs_team_barrier(&e);
  }
}

static int ngpus(int *n)
{
  if (cudaGetDeviceCount(n) != cudaSuccess) {
    cudaGetLastError();
    *n = 0;
  }
  if (*n < 2) {
    printf("SKIP: the team tests need 2 or more GPUs; this machine has %d\n", *n);
    return SKIP;
  }
  return 0;
}

static int make_team(int n, uint32_t max_groups, wgs_cuda_team_t **t)
{
  int rc = wgs_cuda_team_create(n, NULL, max_groups, t);
  if (rc == WGS_EUNSUPPORTED) {
    printf("SKIP: %s\n", wgs_last_error());
    return SKIP;
  }
  CHECK(rc == WGS_OK, "wgs_cuda_team_create: %s", wgs_last_error());
  return 0;
}

static int t_props(int n)
{
  wgs_cuda_team_t *t;
  int rc = make_team(n, 1056, &t);
  if (rc)
    return rc;
  std::vector<unsigned *> seen(n), info(n);
  std::vector<void *> a(3 * n);
  std::vector<void **> args(n);
  const unsigned cap = 64 * 1056;
  for (int r = 0; r < n; ++r) {
    cudaSetDevice(wgs_cuda_team_device(t, r));
    CHECK(cudaMalloc(&seen[r], cap * 4) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMemset(seen[r], 0, cap * 4) == cudaSuccess, "cudaMemset");
    CHECK(cudaMalloc(&info[r], 64) == cudaSuccess, "cudaMalloc");
    a[3 * r + 0] = NULL;
    a[3 * r + 1] = &seen[r];
    a[3 * r + 2] = &info[r];
    args[r] = &a[3 * r];
  }
  wgs_launch_config c;
  wgs_launch_config_init(&c);
  c.local_size = 256;
  std::vector<wgs_launch_result> res(n);
  for (int launch = 0; launch < 3; ++launch) { /* the counts' slots alternate between launches */
    rc = wgs_cuda_team_launch(t, (const void *)k_props, args.data(), 3, 0, &c, res.data());
    CHECK(rc == WGS_OK, "team launch %d: %s", launch, wgs_last_error());
  }
  unsigned total = 0, base = 0;
  std::vector<unsigned> all(cap, 0), h(cap), inf(5);
  for (int r = 0; r < n; ++r) {
    cudaSetDevice(wgs_cuda_team_device(t, r));
    CHECK(cudaMemcpy(h.data(), seen[r], cap * 4, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    CHECK(cudaMemcpy(inf.data(), info[r], 20, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    for (unsigned i = 0; i < cap; ++i)
      all[i] += h[i];
    printf("GPU %d (device %d): rank %u of %u, %u participants (discovery found %u), ids %u..%u of %u\n",
           r, wgs_cuda_team_device(t, r), inf[0], inf[1], inf[3], res[r].participants, inf[4],
           inf[4] + inf[3] - 1, inf[2]);
    CHECK(inf[0] == (unsigned)r && inf[1] == (unsigned)n, "rank/size");
    CHECK(inf[3] == res[r].participants, "the kernel's count is discovery's");
    CHECK(inf[4] == base, "GPU %d's first team id %u, expected %u", r, inf[4], base);
    base += inf[3];
    total = inf[2];
  }
  CHECK(total == base, "team size %u, the GPUs' counts add to %u", total, base);
  for (unsigned i = 0; i < cap; ++i)
    CHECK(all[i] == (i < total ? 3u : 0u), "team id %u seen %u times in 3 launches", i, all[i]);
  for (int r = 0; r < n; ++r) {
    cudaSetDevice(wgs_cuda_team_device(t, r));
    cudaFree(seen[r]);
    cudaFree(info[r]);
  }
  wgs_cuda_team_release(t);
  printf("PASS props: %u groups across %d GPUs, each id once per launch\n", total, n);
  return 0;
}

static double now_us()
{
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* k_mp on every local GPU of the team, full and split, 256 and 1024 threads a group. */
static int run_mp(wgs_cuda_team_t *t, ncclWindow_t *win, void **local, unsigned **bad, unsigned rounds,
                  unsigned slots, unsigned long long *reads, unsigned long long *stale)
{
  int n = wgs_cuda_team_local_size(t);
  unsigned rr = rounds, sl = slots, split = 0;
  std::vector<void *> a(7 * n);
  std::vector<void **> args(n);
  for (int r = 0; r < n; ++r) {
    a[7 * r + 0] = NULL;
    a[7 * r + 1] = &win[r];
    a[7 * r + 2] = &local[r];
    a[7 * r + 3] = &rr;
    a[7 * r + 4] = &sl;
    a[7 * r + 5] = &bad[r];
    a[7 * r + 6] = &split;
    args[r] = &a[7 * r];
  }
  for (split = 0; split < 2; ++split)
    for (unsigned T : {256u, 1024u}) {
      wgs_launch_config c;
      wgs_launch_config_init(&c);
      c.local_size = T;
      std::vector<wgs_launch_result> res(n);
      int rc = wgs_cuda_team_launch(t, (const void *)k_mp, args.data(), 7, 0, &c, res.data());
      CHECK(rc == WGS_OK, "team launch (mp, %s, %u threads): %s", split ? "split" : "full", T,
            wgs_last_error());
      *reads += (unsigned long long)rounds * slots * n;
    }
  for (int r = 0; r < n; ++r) {
    unsigned b = 0;
    cudaSetDevice(wgs_cuda_team_device(t, r));
    CHECK(cudaMemcpy(&b, bad[r], 4, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
    *stale += b;
  }
  return 0;
}

static int t_mp(int n)
{
  wgs_cuda_team_t *t;
  int rc = make_team(n, 1056, &t);
  if (rc)
    return rc;
  const unsigned slots = 1u << 20, rounds = 400;
  std::vector<void *> local(n);
  std::vector<ncclWindow_t> win(n);
  rc = wgs_cuda_team_alloc(t, 3ull * slots * 4, local.data(), win.data());
  CHECK(rc == WGS_OK, "wgs_cuda_team_alloc: %s", wgs_last_error());
  std::vector<unsigned *> bad(n), sink(n);
  for (int r = 0; r < n; ++r) {
    cudaSetDevice(wgs_cuda_team_device(t, r));
    CHECK(cudaMalloc(&bad[r], 4) == cudaSuccess && cudaMemset(bad[r], 0, 4) == cudaSuccess, "alloc");
    CHECK(cudaMalloc(&sink[r], 64) == cudaSuccess, "alloc");
  }
  unsigned long long reads = 0, stale = 0;
  if ((rc = run_mp(t, win.data(), local.data(), bad.data(), rounds, slots, &reads, &stale)))
    return rc;
  printf("mp: %llu reads of values another GPU stored before the team barrier (full and split), "
         "%llu stale\n", reads, stale);
  CHECK(stale == 0, "%llu stale reads across the team barrier", stale);

  /* latency: the team barrier (as shipped, and the first design) against the local barrier,
   * same kernel, same launch sizes, the three interleaved; median of 7 launches, min and max */
  printf("%-10s %7s %14s %20s %20s %10s\n", "groups x T", "per GPU", "local us", "team us (min-max)",
         "team twice us", "team-local");
  int per = 0, sms = 0;
  cudaSetDevice(wgs_cuda_team_device(t, 0));
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, wgs_cuda_team_device(t, 0));
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_lat, 256, 0);
  for (unsigned G : {132u, 528u, 1056u}) {
    if ((unsigned)(per * sms) < G) { /* a fixed launch beyond what runs at once would hang */
      printf("%ux256: the latency kernel holds %d groups per SM; skipped\n", G, per);
      continue;
    }
    unsigned iters = 2000, team = 0;
    std::vector<void *> la(4 * n);
    std::vector<void **> largs(n);
    for (int r = 0; r < n; ++r) {
      la[4 * r + 0] = NULL;
      la[4 * r + 1] = &iters;
      la[4 * r + 2] = &team;
      la[4 * r + 3] = &sink[r];
      largs[r] = &la[4 * r];
    }
    wgs_launch_config c;
    wgs_launch_config_init(&c);
    c.local_size = 256;
    c.groups = G;
    c.discovery = WGS_DISCOVERY_FIXED;
    std::vector<double> v[3];
    for (int k = 0; k <= 7; ++k)
      for (team = 0; team < 3; ++team) {
        double t0 = now_us();
        rc = wgs_cuda_team_launch(t, (const void *)k_lat, largs.data(), 4, 0, &c, NULL);
        double t1 = now_us();
        CHECK(rc == WGS_OK, "latency launch: %s", wgs_last_error());
        if (k)
          v[team].push_back((t1 - t0) / iters);
      }
    for (auto &x : v)
      std::sort(x.begin(), x.end());
    double med[3] = {v[0][3], v[1][3], v[2][3]};
    printf("%4ux256   %7d %14.3f %9.3f (%.3f-%.3f) %20.3f %10.3f\n", G, n, med[0], med[1], v[1][0],
           v[1][6], med[2], med[1] - med[0]);
  }
  wgs_cuda_team_release(t);
  printf("PASS mp\n");
  return 0;
}

static int t_missing(int n)
{
  wgs_cuda_team_t *t;
  int rc = make_team(n, 1056, &t);
  if (rc)
    return rc;
  unsigned leaver = 1;
  std::vector<void *> a(2 * n);
  std::vector<void **> args(n);
  for (int r = 0; r < n; ++r) {
    a[2 * r] = NULL;
    a[2 * r + 1] = &leaver;
    args[r] = &a[2 * r];
  }
  wgs_launch_config c;
  wgs_launch_config_init(&c);
  c.local_size = 256;
  c.timeout_ms = 300;
  rc = wgs_cuda_team_launch(t, (const void *)k_missing, args.data(), 2, 0, &c, NULL);
  printf("a GPU that leaves before a team barrier: %s: %s\n", wgs_strerror(rc), wgs_last_error());
  CHECK(rc == WGS_EDEADLOCK, "expected WGS_EDEADLOCK");
  char want[64];
  snprintf(want, sizeof want, "waited for rank %u, which never reached", leaver);
  CHECK(strstr(wgs_last_error(), want), "the error names the GPU that left (\"%s\")", want);
  wgs_cuda_team_release(t);
  printf("PASS missing\n");
  return 0;
}

static int t_bad(int n)
{
  wgs_cuda_team_t *t = NULL;
  CHECK(wgs_cuda_team_create(0, NULL, 64, &t) == WGS_EINVAL && strstr(wgs_last_error(), "expected 1 to"),
        "%s", wgs_last_error());
  int dup[2] = {0, 0};
  CHECK(wgs_cuda_team_create(2, dup, 64, &t) == WGS_EINVAL && strstr(wgs_last_error(), "given twice"),
        "%s", wgs_last_error());
  int far[2] = {0, 999};
  CHECK(wgs_cuda_team_create(2, far, 64, &t) == WGS_ENODEV && strstr(wgs_last_error(), "device 999"),
        "%s", wgs_last_error());
  CHECK(t == NULL, "no team on failure");
  (void)n;
  printf("PASS bad\n");
  return 0;
}

/* One process of the procs case: rank `rank` of nproc, GPU `rank`, the id through a pipe from
 * rank 0. Returns 0, 1 (failed) or SKIP. */
static int procs_child(int rank, int nproc, int rfd, int wfd)
{
  alarm(100); /* a process stuck in NCCL's set-up ends the test instead of hanging it */
  int have = 0;
  if (cudaGetDeviceCount(&have) != cudaSuccess)
    have = 0;
  ncclUniqueId id;
  if (rank == 0) {
    if (have < nproc) {
      printf("SKIP: the procs case needs %d GPUs; this machine has %d\n", nproc, have);
      close(wfd);
      return SKIP;
    }
    CHECK(ncclGetUniqueId(&id) == ncclSuccess, "ncclGetUniqueId");
    for (int i = 1; i < nproc; ++i)
      CHECK(write(wfd, &id, sizeof id) == (ssize_t)sizeof id, "pipe");
    close(wfd);
  } else {
    close(wfd);
    if (read(rfd, &id, sizeof id) != (ssize_t)sizeof id)
      return SKIP; /* rank 0 skipped (said why) */
  }
  CHECK(cudaSetDevice(rank) == cudaSuccess, "cudaSetDevice(%d)", rank);
  ncclComm_t comm;
  ncclResult_t nr = ncclCommInitRank(&comm, nproc, id, rank);
  CHECK(nr == ncclSuccess, "ncclCommInitRank: %s", ncclGetErrorString(nr));
  wgs_cuda_team_t *t;
  int rc = wgs_cuda_team_from_comm(comm, 1056, &t);
  if (rc == WGS_EUNSUPPORTED) {
    printf("SKIP: %s\n", wgs_last_error());
    return SKIP;
  }
  CHECK(rc == WGS_OK, "rank %d: wgs_cuda_team_from_comm: %s", rank, wgs_last_error());
  CHECK(wgs_cuda_team_size(t) == nproc && wgs_cuda_team_local_size(t) == 1 &&
            wgs_cuda_team_first_rank(t) == rank && wgs_cuda_team_device(t, 0) == rank,
        "rank %d: team of %d, %d local, first rank %d, device %d", rank, wgs_cuda_team_size(t),
        wgs_cuda_team_local_size(t), wgs_cuda_team_first_rank(t), wgs_cuda_team_device(t, 0));
  /* ids: this GPU's range within the team's, rank 0 first and the last rank's range last */
  unsigned *seen, *info;
  CHECK(cudaMalloc(&seen, 64 * 1056 * 4) == cudaSuccess && cudaMalloc(&info, 64) == cudaSuccess, "alloc");
  void *a[3] = {NULL, &seen, &info};
  void **args[1] = {a};
  wgs_launch_config c;
  wgs_launch_config_init(&c);
  c.local_size = 256;
  wgs_launch_result res;
  for (int launch = 0; launch < 3; ++launch) {
    rc = wgs_cuda_team_launch(t, (const void *)k_props, args, 3, 0, &c, &res);
    CHECK(rc == WGS_OK, "rank %d: team launch %d: %s", rank, launch, wgs_last_error());
  }
  unsigned inf[5];
  CHECK(cudaMemcpy(inf, info, 20, cudaMemcpyDeviceToHost) == cudaSuccess, "copy");
  printf("process %d (pid %d, device %d): rank %u of %u, %u participants, ids %u..%u of %u\n", rank,
         (int)getpid(), rank, inf[0], inf[1], inf[3], inf[4], inf[4] + inf[3] - 1, inf[2]);
  CHECK(inf[0] == (unsigned)rank && inf[1] == (unsigned)nproc && inf[3] == res.participants,
        "rank/size/count");
  CHECK(rank != 0 || inf[4] == 0u, "rank 0's first id is %u", inf[4]);
  CHECK(rank != nproc - 1 || inf[4] + inf[3] == inf[2], "the last rank's ids end at %u of %u",
        inf[4] + inf[3], inf[2]);
  /* message passing across processes, full and split */
  const unsigned slots = 1u << 18, rounds = 200;
  void *local;
  ncclWindow_t win;
  rc = wgs_cuda_team_alloc(t, 3ull * slots * 4, &local, &win);
  CHECK(rc == WGS_OK, "rank %d: wgs_cuda_team_alloc: %s", rank, wgs_last_error());
  unsigned *bad;
  CHECK(cudaMalloc(&bad, 4) == cudaSuccess && cudaMemset(bad, 0, 4) == cudaSuccess, "alloc");
  unsigned long long reads = 0, stale = 0;
  if ((rc = run_mp(t, &win, &local, &bad, rounds, slots, &reads, &stale)))
    return rc;
  printf("process %d: %llu reads of values the other process's GPU stored before the team barrier, "
         "%llu stale\n", rank, reads, stale);
  CHECK(stale == 0, "%llu stale reads across the team barrier", stale);
  cudaFree(seen);
  cudaFree(info);
  cudaFree(bad);
  wgs_cuda_team_release(t);
  ncclCommDestroy(comm);
  return 0;
}

/* procs: forks before any CUDA call (a child of a process that used CUDA cannot use it). */
static int t_procs()
{
  const int nproc = 2;
  int fd[2];
  if (pipe(fd) != 0) {
    perror("pipe");
    return 1;
  }
  pid_t pid[nproc];
  for (int r = 0; r < nproc; ++r) {
    pid[r] = fork();
    if (pid[r] == 0) {
      fflush(stdout);
      int rc = procs_child(r, nproc, fd[0], fd[1]);
      fflush(stdout);
      _exit(rc == SKIP ? SKIP : (rc || failed) ? 1 : 0);
    }
    if (pid[r] < 0) {
      perror("fork");
      return 1;
    }
  }
  close(fd[0]);
  close(fd[1]);
  int skipped = 0, bad = 0;
  for (int r = 0; r < nproc; ++r) {
    int st = 0;
    waitpid(pid[r], &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == SKIP)
      skipped++;
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "process %d: %s %d\n", r, WIFEXITED(st) ? "exit" : "signal",
              WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      bad++;
    }
  }
  if (bad)
    return 1;
  if (skipped)
    return SKIP;
  printf("PASS procs: a team of %d processes\n", nproc);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_team props|mp|procs|missing|bad\n");
    return 2;
  }
  if (!strcmp(argv[1], "procs"))
    return t_procs();
  int n = 0, rc = ngpus(&n);
  if (rc)
    return rc;
  if (!strcmp(argv[1], "props"))
    rc = t_props(n);
  else if (!strcmp(argv[1], "mp"))
    rc = t_mp(n);
  else if (!strcmp(argv[1], "missing"))
    rc = t_missing(n);
  else if (!strcmp(argv[1], "bad"))
    rc = t_bad(n);
  else {
    fprintf(stderr, "test_team: unknown case '%s'\n", argv[1]);
    return 2;
  }
  return rc == SKIP ? SKIP : (rc || failed) ? 1 : 0;
}

/*
 * wgsync-jacobi-nvshmem: the anchor for wgsync-jacobi's persistent form, the approach of the
 * NVSHMEM persistent variant of NVIDIA's multi-GPU programming models Jacobi, written for the same
 * problem and step (jacobi_problem.h): one process per GPU (NVSHMEM's unique-id bootstrap, the
 * id passed through a pipe), the grids on the symmetric heap, one cooperative kernel per GPU for
 * all iterations (nvshmemx_collective_launch) that stores its first and last rows into the
 * neighbours' halo rows (nvshmem_ptr: the peer's memory over NVLink), then grid.sync(), block 0's
 * nvshmemx_barrier_all_block(), grid.sync().
 *
 *   wgsync-jacobi-nvshmem [--gpus N] [--size NXxNY] [--iters K] [--runs R]
 *   wgsync-jacobi-nvshmem --bench DIR [--gpus N] [--runs R]   the sets of wgsync-jacobi --bench
 * Built where NVSHMEM 3 is found (-DNVSHMEM_ROOT=DIR). Set NVSHMEM_DISABLE_NVLS=1 on shared hosts.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "jacobi_problem.h"

namespace cg = cooperative_groups;

#define SKIP 77

__global__ void __launch_bounds__(1024, 2) k_nvshmem(float *a, float *b, part p, unsigned nx,
                                                     unsigned iters, int *no_peer)
{
  cg::grid_group grid = cg::this_grid();
  unsigned i0 = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  size_t top_off = (size_t)(p.top_rows + 1u) * nx;
  for (unsigned it = 0; it < iters; ++it) {
    bool even = (it & 1u) == 0u;
    float *dst = even ? b : a;
    float *top = (float *)nvshmem_ptr(dst + top_off, (int)p.top);
    float *bot = (float *)nvshmem_ptr(dst, (int)p.bot);
    if (!top || !bot) { /* not reachable by load/store: the host reports it */
      if (i0 == 0)
        *no_peer = 1;
      return;
    }
    jacobi_rows(even ? a : b, dst, p.rows, nx, top, bot, i0, stride);
    grid.sync();
    if (blockIdx.x == 0)
      nvshmemx_barrier_all_block();
    grid.sync();
  }
}

struct line { /* one configuration's result from one process, through the pipe */
  unsigned cfg, rank;
  double med, lo, hi, maxdiff;
  int differ, status; /* status: 0 ok, else failed */
};

struct config { unsigned nx, ny, iters; };

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "wgsync-jacobi-nvshmem (PE %d): %s: %s\n", rank, #call,                 \
              cudaGetErrorString(e_));                                                        \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

/* One configuration on this PE: runs+1 runs (the first warms up), then a check run. */
static int run_config(int rank, int n, const config &c, unsigned runs, line *out)
{
  problem P = make_problem(c.nx, c.ny, (unsigned)n);
  part p = P.parts[rank];
  size_t maxbytes = 0;
  for (unsigned r = 0; r < (unsigned)n; ++r)
    maxbytes = std::max(maxbytes, (size_t)(P.parts[r].rows + 2) * c.nx * 4);
  float *a = (float *)nvshmem_malloc(maxbytes), *b = (float *)nvshmem_malloc(maxbytes);
  int *no_peer;
  if (!a || !b) {
    fprintf(stderr, "wgsync-jacobi-nvshmem: nvshmem_malloc(%zu) failed (NVSHMEM_SYMMETRIC_SIZE)\n", maxbytes);
    return 1;
  }
  CK(cudaMalloc(&no_peer, sizeof(int)));
  CK(cudaMemset(no_peer, 0, sizeof(int)));
  std::vector<float> h0 = initial(P, rank);
  int dev = 0, sms = 0, per = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_nvshmem, 256, 0));
  dim3 grid(sms * per), block(256);
  unsigned nx = c.nx;
  std::vector<double> t;
  unsigned citers = check_iters(c.nx, c.ny, c.iters, 1e9);
  for (unsigned k = 0; k <= runs + 1; ++k) {
    unsigned iters = k <= runs ? c.iters : citers;
    CK(cudaMemcpy(a, h0.data(), h0.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, h0.data(), h0.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all(); /* every PE's grids are set before any kernel stores into them */
    void *args[] = {&a, &b, &p, &nx, &iters, &no_peer};
    double t0 = now_us();
    int rc = nvshmemx_collective_launch((const void *)k_nvshmem, grid, block, args, 0, 0);
    if (rc != 0) {
      fprintf(stderr, "wgsync-jacobi-nvshmem: nvshmemx_collective_launch failed (%d)\n", rc);
      return 1;
    }
    CK(cudaDeviceSynchronize());
    double t1 = now_us();
    if (k >= 1 && k <= runs)
      t.push_back((t1 - t0) / iters);
  }
  int np = 0;
  CK(cudaMemcpy(&np, no_peer, sizeof np, cudaMemcpyDeviceToHost));
  if (np) {
    fprintf(stderr, "wgsync-jacobi-nvshmem: a neighbour PE is not reachable by load/store (nvshmem_ptr)\n");
    return 1;
  }
  std::vector<float> h(h0.size());
  CK(cudaMemcpy(h.data(), (citers & 1u) ? b : a, h.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<float> ref = reference(c.nx, c.ny, citers);
  out->differ = 0;
  out->maxdiff = 0;
  compare_rows(P, rank, h, ref, &out->differ, &out->maxdiff);
  std::sort(t.begin(), t.end());
  out->med = t[t.size() / 2];
  out->lo = t.front();
  out->hi = t.back();
  nvshmem_barrier_all();
  nvshmem_free(a);
  nvshmem_free(b);
  cudaFree(no_peer);
  return 0;
}

/* One PE: NVSHMEM from the unique id, every configuration, results into the pipe. */
static int pe_main(int rank, int n, int idr, int idw, int resw, const std::vector<config> &cfgs,
                   unsigned runs)
{
  alarm(300); /* a PE stuck in NVSHMEM's set-up ends the run instead of hanging it */
  CK(cudaSetDevice(rank));
  nvshmemx_uniqueid_t id;
  if (rank != 0)
    close(idw); /* a read then ends when PE 0 ends without writing */
  if (rank == 0) {
    if (nvshmemx_get_uniqueid(&id) != 0) {
      fprintf(stderr, "wgsync-jacobi-nvshmem: nvshmemx_get_uniqueid failed\n");
      return 1;
    }
    for (int i = 1; i < n; ++i)
      if (write(idw, &id, sizeof id) != (ssize_t)sizeof id)
        return 1;
  } else if (read(idr, &id, sizeof id) != (ssize_t)sizeof id) {
    return 1; /* PE 0 failed (it said why) */
  }
  if (rank == 0)
    close(idw);
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_set_attr_uniqueid_args(rank, n, &id, &attr);
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) {
    fprintf(stderr, "wgsync-jacobi-nvshmem: nvshmemx_init_attr failed on PE %d\n", rank);
    return 1;
  }
  int status = 0;
  for (unsigned i = 0; i < cfgs.size() && !status; ++i) {
    line l;
    memset(&l, 0, sizeof l);
    l.cfg = i;
    l.rank = (unsigned)rank;
    l.status = run_config(rank, n, cfgs[i], runs, &l);
    status = l.status;
    if (write(resw, &l, sizeof l) != (ssize_t)sizeof l)
      status = 1;
  }
  nvshmem_finalize();
  return status;
}

/* Forks n PEs (before this process touches CUDA), collects their lines. */
static int run_pes(int n, const std::vector<config> &cfgs, unsigned runs, std::vector<line> &out)
{
  int idp[2], resp[2];
  if (pipe(idp) || pipe(resp)) {
    perror("pipe");
    return 1;
  }
  std::vector<pid_t> pid(n);
  for (int r = 0; r < n; ++r) {
    pid[r] = fork();
    if (pid[r] == 0) {
      close(resp[0]);
      int rc = pe_main(r, n, idp[0], idp[1], resp[1], cfgs, runs);
      fflush(stdout);
      fflush(stderr);
      _exit(rc);
    }
  }
  close(idp[0]);
  close(idp[1]);
  close(resp[1]);
  line l;
  while (read(resp[0], &l, sizeof l) == (ssize_t)sizeof l)
    out.push_back(l);
  close(resp[0]);
  int bad = 0;
  for (int r = 0; r < n; ++r) {
    int st = 0;
    waitpid(pid[r], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "wgsync-jacobi-nvshmem: PE %d %s %d\n", r, WIFEXITED(st) ? "exited with" : "killed by signal",
              WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      bad = 1;
    }
  }
  return bad;
}

/* Rows of the table: PE 0's times, the cells that differ added over the PEs. */
static int report(FILE *f, FILE *csv, int n, const std::vector<config> &cfgs, const std::vector<line> &ls)
{
  int wrong = 0;
  for (unsigned i = 0; i < cfgs.size(); ++i) {
    const line *t = NULL;
    int differ = 0, seen = 0;
    double maxdiff = 0;
    for (const line &l : ls)
      if (l.cfg == i && !l.status) {
        seen++;
        differ += l.differ;
        maxdiff = std::max(maxdiff, l.maxdiff);
        if (l.rank == 0)
          t = &l;
      }
    if (!t || seen != n)
      continue;
    wrong |= differ != 0;
    const config &c = cfgs[i];
    fprintf(f, "| %d | %ux%u | %ux%u | %u | nvshmem | %.3f | %.3f-%.3f | %s |\n", n, c.nx, c.ny, c.nx,
            c.ny / n, c.iters, t->med, t->lo, t->hi, differ ? "WRONG" : "yes");
    if (csv)
      fprintf(csv, "%d,%u,%u,%u,nvshmem,%.4f,%.4f,%.4f,%d,%g\n", n, c.nx, c.ny, c.iters, t->med, t->lo,
              t->hi, differ, maxdiff);
    fprintf(stderr, "  nvshmem    %d GPU(s) %5ux%-5u %6u iters: %9.3f us/iter (%.3f-%.3f)%s\n", n, c.nx, c.ny,
            c.iters, t->med, t->lo, t->hi, differ ? ", WRONG" : ", matches the CPU reference");
  }
  return wrong;
}

int main(int argc, char **argv)
{
  int gpus = 0;
  unsigned nx = 1024, ny = 0, iters = 1000, runs = 5;
  const char *dir = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    bool v = i + 1 < argc;
    if (!strcmp(a, "--gpus") && v)
      gpus = atoi(argv[++i]);
    else if (!strcmp(a, "--size") && v) {
      if (sscanf(argv[++i], "%ux%u", &nx, &ny) != 2 || nx < 3 || ny < 1)
        return fprintf(stderr, "wgsync-jacobi-nvshmem: --size '%s': expected NXxNY with NX >= 3\n", argv[i]), 2;
    } else if (!strcmp(a, "--iters") && v)
      iters = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--runs") && v)
      runs = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--bench") && v)
      dir = argv[++i];
    else
      return fprintf(stderr, "usage: wgsync-jacobi-nvshmem [--gpus N] [--size NXxNY] [--iters K] [--runs R] "
                             "[--bench DIR]\n"), 2;
  }
  if (iters < 1 || runs < 1)
    return fprintf(stderr, "wgsync-jacobi-nvshmem: expected --iters >= 1 and --runs >= 1\n"), 2;
  setenv("NVSHMEM_SYMMETRIC_SIZE", "6G", 0); /* 16384^2 on one GPU: two grids of 1.07 GB */
  /* the GPU count without touching CUDA in this process (its children use CUDA) */
  if (gpus <= 0) {
    int p[2];
    if (pipe(p))
      return 1;
    pid_t c = fork();
    if (c == 0) {
      int have = 0;
      if (cudaGetDeviceCount(&have) != cudaSuccess)
        have = 0;
      (void)!write(p[1], &have, sizeof have);
      _exit(0);
    }
    close(p[1]);
    if (read(p[0], &gpus, sizeof gpus) != (ssize_t)sizeof gpus)
      gpus = 0;
    waitpid(c, NULL, 0);
    if (gpus < 1) {
      printf("SKIP: wgsync-jacobi-nvshmem needs a CUDA device; none found\n");
      return SKIP;
    }
  }
  FILE *f = stdout, *csv = NULL;
  std::vector<int> ns;
  if (dir) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
      return fprintf(stderr, "wgsync-jacobi-nvshmem: %s: %s\n", dir, strerror(errno)), 1;
    f = fopen((std::string(dir) + "/jacobi-nvshmem.md").c_str(), "w");
    csv = fopen((std::string(dir) + "/jacobi-nvshmem.csv").c_str(), "w");
    if (!f || !csv)
      return fprintf(stderr, "wgsync-jacobi-nvshmem: cannot write into %s\n", dir), 1;
    fprintf(f, "# Jacobi across GPUs, NVSHMEM anchor (wgsync-jacobi-nvshmem --bench)\n\n%d GPU(s), NVSHMEM "
            "%d.%d, %u runs after a warm-up; local size 256.\n\n", gpus, NVSHMEM_MAJOR_VERSION,
            NVSHMEM_MINOR_VERSION, runs);
    fprintf(csv, "gpus,nx,ny,iters,form,us_per_iter_median,us_min,us_max,checked,max_diff\n");
    for (int n = 1; n <= gpus; n *= 2) /* 1, 2, 4, ... and every GPU, as wgsync-jacobi --bench */
      ns.push_back(n);
    if (ns.back() != gpus)
      ns.push_back(gpus);
  } else {
    ns.push_back(gpus);
  }
  fprintf(f, "| GPUs | grid | per GPU | iterations | form | us/iter median | min-max | checked |\n");
  fprintf(f, "|---|---|---|---|---|---|---|---|\n");
  int rc = 0;
  for (int n : ns) {
    std::vector<config> cfgs;
    if (dir) { /* the sets of wgsync-jacobi --bench: 1024^2 per GPU, 4096^2, 8192^2 (and from 4
                  GPUs 16384^2) in all */
      cfgs = {{1024, 1024u * n, 2000}, {4096, 4096, 400}, {8192, 8192, 200}};
      if (gpus >= 4)
        cfgs.push_back({16384, 16384, 100});
    }
    else
      cfgs = {{nx, ny ? ny : 1024u * n, iters}};
    std::vector<line> ls;
    rc |= run_pes(n, cfgs, runs, ls);
    rc |= report(f, csv, n, cfgs, ls);
  }
  if (dir) {
    fclose(f);
    fclose(csv);
    printf("wrote %s/jacobi-nvshmem.md and .csv\n", dir);
  }
  return rc;
}

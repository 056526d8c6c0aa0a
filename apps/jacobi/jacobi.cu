/*
 * wgsync-jacobi: 2-D Jacobi with halo exchange across the GPUs of a team (issue: multi-GPU
 * persistent kernels), checked against a CPU reference and timed per iteration, form beside form.
 *
 * The problem (as NVIDIA's multi-GPU programming models Jacobi): an NX x NY grid of floats, the
 * columns x = 0 and NX-1 fixed at sin(2 pi y / NY), periodic in y; every other cell becomes the
 * mean of its four neighbours each iteration. The rows are split over the GPUs in order; each GPU
 * holds its rows between two halo rows (row 0: the last row of the GPU above, rows+1: the first
 * row of the GPU below; with one GPU, its own).
 *
 * Forms (the same step code in each, jacobi_rows):
 *   persistent  one kernel per GPU for all iterations (wgs_cuda_team_launch); each GPU stores its
 *               first and last rows straight into its neighbours' halo rows through NCCL LSA
 *               pointers, then wgs_team_barrier
 *   nccl        the host loop: a kernel per GPU per iteration, then the halos by ncclSend/ncclRecv
 *               on the same streams (cudaMemcpyAsync on one GPU); the host waits once at the end
 *   p2p         the host loop with halos stored by the kernel into the neighbours' buffers (peer
 *               access), the GPUs ordered by events (each stream waits for its neighbours')
 *   persistent-48  the persistent form without its register bound (measured beside it)
 *
 *   wgsync-jacobi [--gpus N] [--size NXxNY] [--iters K] [--forms persistent,nccl,p2p]
 *                 [--runs R] [--local-size T] [--no-check] [--csv FILE]
 *   wgsync-jacobi --bench DIR     the standard set (1 and all GPUs, short and long steps)
 * Run with NCCL_NVLS_ENABLE=0 on shared hosts (no NVLink multicast is used).
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "wgsync_team.cuh"
#include "wgsync_team.h"
#include "jacobi_problem.h"

#define SKIP 77

/* ---- the step, shared by every form ----------------------------------------------------- */

__device__ __forceinline__ void persistent_body(wgs_team_ctx *t, ncclWindow_t wa, ncclWindow_t wb,
                                                float *a, float *b, part p, unsigned nx, unsigned iters)
{
  wgs_team_env e;
  if (wgs_team_discover(t, &e)) {
    unsigned i0 = (unsigned)wgs_get_global_id(&e.env), stride = (unsigned)wgs_get_global_size(&e.env);
    size_t top_off = (size_t)(p.top_rows + 1u) * nx * sizeof(float);
    for (unsigned it = 0; it < iters; ++it) {
      bool even = (it & 1u) == 0u;
      ncclWindow_t wd = even ? wb : wa;
      float *top = (float *)wgs_team_peer_ptr(&e, wd, top_off, p.top);
      float *bot = (float *)wgs_team_peer_ptr(&e, wd, 0, p.bot);
      jacobi_rows(even ? a : b, even ? b : a, p.rows, nx, top, bot, i0, stride);
      wgs_team_barrier(&e);
    }
  }
}
/* 32 registers at most: 8 groups of 256 per SM. The form "persistent-48" is the same kernel as
 * the compiler first built it (48 registers: discovery finds 5 groups of 256 per SM); the step
 * is bound by memory, so the bench keeps both side by side (docs/results.md). */
__global__ void __launch_bounds__(1024, 2) k_persistent(wgs_team_ctx *t, ncclWindow_t wa, ncclWindow_t wb,
                                                        float *a, float *b, part p, unsigned nx,
                                                        unsigned iters)
{
  persistent_body(t, wa, wb, a, b, p, nx, iters);
}
__global__ void k_persistent_48(wgs_team_ctx *t, ncclWindow_t wa, ncclWindow_t wb, float *a, float *b,
                                part p, unsigned nx, unsigned iters)
{
  persistent_body(t, wa, wb, a, b, p, nx, iters);
}

__global__ void k_step(const float *src, float *dst, unsigned rows, unsigned nx, float *top_halo,
                       float *bot_halo)
{
  jacobi_rows(src, dst, rows, nx, top_halo, bot_halo, blockIdx.x * blockDim.x + threadIdx.x,
              gridDim.x * blockDim.x);
}

/* ---- host ------------------------------------------------------------------------------- */

static int fail(const char *what, const char *why)
{
  fprintf(stderr, "wgsync-jacobi: %s: %s\n", what, why);
  return 1;
}
#define CU(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess)                                                                    \
      return fail(#call, cudaGetErrorString(e_));                                             \
  } while (0)
#define NC(call)                                                                              \
  do {                                                                                        \
    ncclResult_t r_ = (call);                                                                 \
    if (r_ != ncclSuccess)                                                                    \
      return fail(#call, ncclGetErrorString(r_));                                             \
  } while (0)

struct result {
  std::string form;
  unsigned gpus, nx, ny, iters;
  double med, lo, hi; /* us per iteration */
  int checked;        /* -1 not checked, else the number of cells that differ */
  double maxdiff;
};

/* One form's state on every GPU of the team: buffers, and for the host loops their streams. */
struct runner {
  wgs_cuda_team_t *team;
  problem P;
  unsigned local_size;
  std::vector<float *> a, b;      /* persistent: window memory; host loops: cudaMalloc */
  std::vector<ncclWindow_t> wa, wb;
  std::vector<cudaEvent_t> done;  /* p2p: after each GPU's step */
  std::vector<unsigned> grid;     /* host loops: blocks per step kernel */
};

static int upload(runner &R)
{
  for (unsigned r = 0; r < R.P.n; ++r) {
    std::vector<float> h = initial(R.P, r);
    CU(cudaSetDevice(wgs_cuda_team_device(R.team, r)));
    CU(cudaMemcpy(R.a[r], h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(R.b[r], h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  }
  return 0;
}

/* Runs iters iterations of form f from the initial grid; *us: the wall time. */
static int run_form(runner &R, const std::string &f, unsigned iters, double *us)
{
  if (upload(R))
    return 1;
  const problem &P = R.P;
  unsigned n = P.n, nx = P.nx;
  for (unsigned r = 0; r < n; ++r) {
    CU(cudaSetDevice(wgs_cuda_team_device(R.team, r)));
    CU(cudaDeviceSynchronize());
  }
  double t0 = now_us();
  if (f == "persistent" || f == "persistent-48") {
    std::vector<std::vector<void *>> a(n);
    std::vector<void **> args(n);
    for (unsigned r = 0; r < n; ++r) {
      a[r] = {NULL, &R.wa[r], &R.wb[r], &R.a[r], &R.b[r], &R.P.parts[r], &R.P.nx, &iters};
      args[r] = a[r].data();
    }
    wgs_launch_config c;
    wgs_launch_config_init(&c);
    c.local_size = R.local_size;
    const void *k = f == "persistent" ? (const void *)k_persistent : (const void *)k_persistent_48;
    if (wgs_cuda_team_launch(R.team, k, args.data(), 8, 0, &c, NULL) != WGS_OK)
      return fail("persistent launch", wgs_last_error());
  } else {
    for (unsigned it = 0; it < iters; ++it) {
      bool even = (it & 1u) == 0u;
      for (unsigned r = 0; r < n; ++r) {
        const part &p = P.parts[r];
        CU(cudaSetDevice(wgs_cuda_team_device(R.team, r)));
        cudaStream_t s = wgs_cuda_team_stream(R.team, r);
        float *src = even ? R.a[r] : R.b[r], *dst = even ? R.b[r] : R.a[r];
        float *top = NULL, *bot = NULL;
        if (f == "p2p") {
          for (unsigned q : {p.top, p.bot}) /* the neighbours are done with the last iteration */
            if (it > 0 && q != r)
              CU(cudaStreamWaitEvent(s, R.done[q], 0));
          top = (even ? R.b : R.a)[p.top] + (size_t)(p.top_rows + 1u) * nx;
          bot = (even ? R.b : R.a)[p.bot];
        }
        k_step<<<R.grid[r], R.local_size, 0, s>>>(src, dst, p.rows, nx, top, bot);
        CU(cudaGetLastError());
        if (f == "p2p")
          CU(cudaEventRecord(R.done[r], s));
      }
      if (f == "nccl") {
        if (n == 1) {
          const part &p = P.parts[0];
          float *dst = even ? R.b[0] : R.a[0];
          cudaStream_t s = wgs_cuda_team_stream(R.team, 0);
          CU(cudaMemcpyAsync(dst + (size_t)(p.rows + 1) * nx, dst + nx, nx * 4, cudaMemcpyDeviceToDevice, s));
          CU(cudaMemcpyAsync(dst, dst + (size_t)p.rows * nx, nx * 4, cudaMemcpyDeviceToDevice, s));
        } else {
          NC(ncclGroupStart());
          for (unsigned r = 0; r < n; ++r) {
            const part &p = P.parts[r];
            float *dst = even ? R.b[r] : R.a[r];
            ncclComm_t cm = wgs_cuda_team_comm(R.team, r);
            cudaStream_t s = wgs_cuda_team_stream(R.team, r);
            /* the order of the four matches on both sides of every pair (also when top == bot) */
            NC(ncclSend(dst + nx, nx, ncclFloat, (int)p.top, cm, s));
            NC(ncclRecv(dst + (size_t)(p.rows + 1) * nx, nx, ncclFloat, (int)p.bot, cm, s));
            NC(ncclSend(dst + (size_t)p.rows * nx, nx, ncclFloat, (int)p.bot, cm, s));
            NC(ncclRecv(dst, nx, ncclFloat, (int)p.top, cm, s));
          }
          NC(ncclGroupEnd());
        }
      }
    }
    for (unsigned r = 0; r < n; ++r) {
      CU(cudaSetDevice(wgs_cuda_team_device(R.team, r)));
      CU(cudaStreamSynchronize(wgs_cuda_team_stream(R.team, r)));
    }
  }
  *us = now_us() - t0;
  return 0;
}

/* The grid after the last run (in a if iters is even, else in b), against the CPU's. */
static int compare(runner &R, unsigned iters, int *differ, double *maxdiff)
{
  const problem &P = R.P;
  std::vector<float> ref = reference(P.nx, P.ny, iters);
  *differ = 0;
  *maxdiff = 0;
  for (unsigned r = 0; r < P.n; ++r) {
    unsigned rows = P.parts[r].rows;
    std::vector<float> h((size_t)(rows + 2) * P.nx);
    CU(cudaSetDevice(wgs_cuda_team_device(R.team, r)));
    CU(cudaMemcpy(h.data(), (iters & 1u) ? R.b[r] : R.a[r], h.size() * 4, cudaMemcpyDeviceToHost));
    compare_rows(P, r, h, ref, differ, maxdiff);
  }
  return 0;
}

static int setup(runner &R, wgs_cuda_team_t *team, unsigned nx, unsigned ny, unsigned local_size,
                 const std::string &form)
{
  R.team = team;
  R.local_size = local_size;
  unsigned n = (unsigned)wgs_cuda_team_size(team);
  R.P = make_problem(nx, ny, n);
  R.a.assign(n, NULL);
  R.b.assign(n, NULL);
  R.wa.assign(n, ncclWindow_t());
  R.wb.assign(n, ncclWindow_t());
  R.done.assign(n, cudaEvent_t());
  R.grid.assign(n, 0);
  size_t maxbytes = 0;
  for (unsigned r = 0; r < n; ++r)
    maxbytes = std::max(maxbytes, (size_t)(R.P.parts[r].rows + 2) * nx * 4);
  if (form == "persistent" || form == "persistent-48") {
    /* one window size on every GPU (a symmetric registration): the largest part's */
    std::vector<void *> la(n), lb(n);
    if (wgs_cuda_team_alloc(team, maxbytes, la.data(), R.wa.data()) != WGS_OK ||
        wgs_cuda_team_alloc(team, maxbytes, lb.data(), R.wb.data()) != WGS_OK)
      return fail("wgs_cuda_team_alloc", wgs_last_error());
    for (unsigned r = 0; r < n; ++r) {
      R.a[r] = (float *)la[r];
      R.b[r] = (float *)lb[r];
    }
    return 0;
  }
  for (unsigned r = 0; r < n; ++r) {
    int dev = wgs_cuda_team_device(team, r);
    CU(cudaSetDevice(dev));
    CU(cudaMalloc(&R.a[r], maxbytes));
    CU(cudaMalloc(&R.b[r], maxbytes));
    CU(cudaEventCreateWithFlags(&R.done[r], cudaEventDisableTiming));
    int sms = 0, per = 0;
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_step, (int)local_size, 0));
    size_t cells = (size_t)R.P.parts[r].rows * (nx - 2);
    R.grid[r] = (unsigned)std::min<size_t>((size_t)sms * per, (cells + local_size - 1) / local_size);
    if (form == "p2p")
      for (unsigned q = 0; q < n; ++q)
        if (q != r) {
          cudaError_t e = cudaDeviceEnablePeerAccess(wgs_cuda_team_device(team, q), 0);
          if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
            return fail("cudaDeviceEnablePeerAccess", cudaGetErrorString(e));
          cudaGetLastError();
        }
  }
  return 0;
}

/* The host loops' own buffers (the persistent form's windows go with the team). */
static void release(runner &R)
{
  for (unsigned r = 0; r < R.grid.size(); ++r)
    if (R.grid[r]) {
      cudaSetDevice(wgs_cuda_team_device(R.team, r));
      cudaFree(R.a[r]);
      cudaFree(R.b[r]);
      cudaEventDestroy(R.done[r]);
    }
}

/* Every form in forms on a team of n GPUs, runs times each after a warm-up, interleaved. */
static int measure(unsigned n, unsigned nx, unsigned ny, unsigned iters, unsigned runs,
                   unsigned local_size, const std::vector<std::string> &forms, bool check,
                   std::vector<result> &out)
{
  wgs_cuda_team_t *team;
  if (wgs_cuda_team_create((int)n, NULL, 2048, &team) != WGS_OK)
    return fail("wgs_cuda_team_create", wgs_last_error());
  std::vector<runner> rs(forms.size());
  std::vector<std::vector<double>> t(forms.size());
  int rc = 0;
  for (size_t f = 0; f < forms.size() && !rc; ++f)
    rc = setup(rs[f], team, nx, ny, local_size, forms[f]);
  for (unsigned k = 0; k <= runs && !rc; ++k)
    for (size_t f = 0; f < forms.size() && !rc; ++f) {
      double us;
      rc = run_form(rs[f], forms[f], iters, &us);
      if (k > 0) /* run 0 warms up */
        t[f].push_back(us / iters);
    }
  /* the check: a run short enough for the CPU reference (all iterations when the grid is small) */
  unsigned citers = check_iters(nx, ny, iters, (double)nx * ny > 1e8 ? 1e9 : 4e9);
  for (size_t f = 0; f < forms.size() && !rc; ++f) {
    result x;
    x.form = forms[f];
    x.gpus = n;
    x.nx = nx;
    x.ny = ny;
    x.iters = iters;
    std::sort(t[f].begin(), t[f].end());
    x.med = t[f][t[f].size() / 2];
    x.lo = t[f].front();
    x.hi = t[f].back();
    x.checked = -1;
    x.maxdiff = 0;
    if (check) {
      double us;
      rc = run_form(rs[f], forms[f], citers, &us);
      if (!rc)
        rc = compare(rs[f], citers, &x.checked, &x.maxdiff);
      if (!rc && x.checked) {
        fprintf(stderr, "wgsync-jacobi: %s on %u GPU(s), %ux%u, %u iterations: %d cells differ from "
                "the CPU reference (largest difference %g)\n", forms[f].c_str(), n, nx, ny, citers,
                x.checked, x.maxdiff);
        rc = 1;
      }
    }
    out.push_back(x);
    fprintf(stderr, "  %-10s %u GPU(s) %5ux%-5u %6u iters: %9.3f us/iter (%.3f-%.3f)%s\n", x.form.c_str(),
            n, nx, ny, iters, x.med, x.lo, x.hi,
            x.checked < 0 ? "" : x.checked == 0 ? ", matches the CPU reference" : ", WRONG");
  }
  for (auto &r : rs)
    release(r);
  wgs_cuda_team_release(team);
  return rc;
}

static std::vector<std::string> split_list(const char *s)
{
  std::vector<std::string> v;
  std::string cur;
  for (const char *p = s;; ++p) {
    if (*p == ',' || !*p) {
      if (!cur.empty())
        v.push_back(cur);
      cur.clear();
      if (!*p)
        break;
    } else {
      cur += *p;
    }
  }
  return v;
}

static void print_table(FILE *f, const std::vector<result> &res)
{
  fprintf(f, "| GPUs | grid | per GPU | iterations | form | us/iter median | min-max | vs nccl | checked |\n");
  fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
  for (const result &x : res) {
    double base = 0;
    for (const result &y : res)
      if (y.form == "nccl" && y.gpus == x.gpus && y.nx == x.nx && y.ny == x.ny)
        base = y.med;
    fprintf(f, "| %u | %ux%u | %ux%u | %u | %s | %.3f | %.3f-%.3f | %s | %s |\n", x.gpus, x.nx, x.ny, x.nx,
            x.ny / x.gpus, x.iters, x.form.c_str(), x.med, x.lo, x.hi,
            base > 0 ? (std::to_string(base / x.med).substr(0, 4) + "x").c_str() : "-",
            x.checked < 0 ? "-" : x.checked == 0 ? "yes" : "WRONG");
  }
}

static void print_csv(FILE *f, const std::vector<result> &res)
{
  fprintf(f, "gpus,nx,ny,iters,form,us_per_iter_median,us_min,us_max,checked,max_diff\n");
  for (const result &x : res)
    fprintf(f, "%u,%u,%u,%u,%s,%.4f,%.4f,%.4f,%d,%g\n", x.gpus, x.nx, x.ny, x.iters, x.form.c_str(),
            x.med, x.lo, x.hi, x.checked, x.maxdiff);
}

/* The standard set: 1 GPU and all, short steps (1024^2 per GPU) and long (8192^2 overall). */
static int bench(const char *dir, unsigned gpus, unsigned runs, unsigned local_size)
{
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return fail(dir, strerror(errno));
  std::vector<std::string> forms = {"persistent", "persistent-48", "nccl", "p2p"};
  std::vector<result> res;
  int rc = 0;
  /* weak: ny rows per GPU; strong: ny rows in all. GPU counts 1, 2, 4, ... up to every GPU
   * (and every GPU when that is not a power of two); 16384^2 (issue 12's strong-scaling grid)
   * from 4 GPUs on. */
  struct cfg { unsigned nx, ny, weak, iters; };
  std::vector<cfg> cfgs = {cfg{1024, 1024, 1, 2000}, cfg{4096, 4096, 0, 400}, cfg{8192, 8192, 0, 200}};
  if (gpus >= 4)
    cfgs.push_back(cfg{16384, 16384, 0, 100});
  std::vector<unsigned> ns;
  for (unsigned n = 1; n <= gpus; n *= 2)
    ns.push_back(n);
  if (ns.back() != gpus)
    ns.push_back(gpus);
  for (cfg c : cfgs) {
    for (unsigned n : ns) {
      unsigned ny = c.weak ? c.ny * n : c.ny;
      fprintf(stderr, "%ux%u on %u GPU(s)%s\n", c.nx, ny, n, c.weak ? " (weak scaling)" : " (strong scaling)");
      rc |= measure(n, c.nx, ny, c.iters, runs, local_size, forms, true, res);
    }
  }
  std::string md = std::string(dir) + "/jacobi.md", csv = std::string(dir) + "/jacobi.csv";
  FILE *f = fopen(md.c_str(), "w"), *g = fopen(csv.c_str(), "w");
  if (!f || !g)
    return fail(md.c_str(), strerror(errno));
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int drv = 0;
  cudaDriverGetVersion(&drv);
  time_t now = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  fprintf(f, "# Jacobi across GPUs (wgsync-jacobi --bench)\n\n%u x %s, CUDA driver %d, NCCL %d.%d.%d, %s; "
          "%u runs after a warm-up, forms interleaved; local size %u.\n\n", gpus, prop.name, drv,
          NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, date, runs, local_size);
  print_table(f, res);
  /* strong scaling: time on 1 GPU / (n x time on n GPUs), same grid; weak: t(1) / t(n) with
   * the same rows per GPU */
  fprintf(f, "\nScaling efficiency: strong (same grid) t(1 GPU) / (n x t(n GPUs)); weak (same rows "
             "per GPU) t(1 GPU) / t(n GPUs):\n\n");
  for (const result &x : res)
    for (const result &y : res)
      if (x.gpus == 1 && y.gpus > 1 && x.form == y.form && x.nx == y.nx) {
        bool strong = x.ny == y.ny, weak = !strong && y.ny == x.ny * y.gpus && x.nx == 1024;
        if (strong || weak)
          fprintf(f, "- %s %ux%u, %u GPUs (%s): %.1f%%\n", y.form.c_str(), y.nx, y.ny, y.gpus,
                  strong ? "strong" : "weak",
                  100.0 * (strong ? x.med / (y.gpus * y.med) : x.med / y.med));
      }
  fclose(f);
  print_csv(g, res);
  fclose(g);
  printf("wrote %s and %s\n", md.c_str(), csv.c_str());
  return rc;
}

int main(int argc, char **argv)
{
  unsigned gpus = 0, nx = 1024, ny = 0, iters = 1000, runs = 5, local_size = 256;
  bool check = true;
  const char *forms = "persistent,nccl,p2p", *bench_dir = NULL, *csv = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--gpus") && v)
      gpus = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--size") && v) {
      if (sscanf(argv[++i], "%ux%u", &nx, &ny) != 2 || nx < 3 || ny < 1)
        return fprintf(stderr, "wgsync-jacobi: --size '%s': expected NXxNY with NX >= 3, NY >= 1\n", v), 2;
    } else if (!strcmp(a, "--iters") && v)
      iters = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--runs") && v)
      runs = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--local-size") && v)
      local_size = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--forms") && v)
      forms = argv[++i];
    else if (!strcmp(a, "--bench") && v)
      bench_dir = argv[++i];
    else if (!strcmp(a, "--csv") && v)
      csv = argv[++i];
    else if (!strcmp(a, "--no-check"))
      check = false;
    else {
      fprintf(stderr, "usage: wgsync-jacobi [--gpus N] [--size NXxNY] [--iters K] [--runs R]\n"
                      "         [--forms persistent,nccl,p2p] [--local-size T] [--no-check] [--csv FILE]\n"
                      "       wgsync-jacobi --bench DIR\n");
      return 2;
    }
  }
  if (iters < 1 || runs < 1 || local_size < 32 || local_size > 1024 || local_size % 32)
    return fprintf(stderr, "wgsync-jacobi: expected --iters >= 1, --runs >= 1, --local-size a multiple "
                           "of 32 from 32 to 1024\n"), 2;
  std::vector<std::string> fl = split_list(forms);
  for (const std::string &f : fl)
    if (f != "persistent" && f != "persistent-48" && f != "nccl" && f != "p2p")
      return fprintf(stderr, "wgsync-jacobi: unknown form '%s'; expected persistent, nccl or p2p (or "
                     "persistent-48)\n", f.c_str()), 2;
  int have = 0;
  if (cudaGetDeviceCount(&have) != cudaSuccess || have < 1) {
    printf("SKIP: wgsync-jacobi needs a CUDA device; none found\n");
    return SKIP;
  }
  if (gpus == 0)
    gpus = (unsigned)have;
  if (gpus > (unsigned)have)
    return fprintf(stderr, "wgsync-jacobi: --gpus %u, but this machine has %d CUDA device(s)\n", gpus, have), 2;
  if (bench_dir)
    return bench(bench_dir, gpus, runs, local_size);
  if (ny == 0)
    ny = 1024 * gpus;
  if (ny < gpus)
    return fprintf(stderr, "wgsync-jacobi: %u rows cannot be split over %u GPUs\n", ny, gpus), 2;
  if ((double)(ny / gpus + 1) * (nx - 2) >= 4294967296.0)
    return fprintf(stderr, "wgsync-jacobi: %ux%u is %g cells per GPU; at most 2^32 (use more GPUs)\n",
                   nx, ny, (double)(ny / gpus + 1) * (nx - 2)), 2;
  std::vector<result> res;
  int rc = measure(gpus, nx, ny, iters, runs, local_size, fl, check, res);
  print_table(stdout, res);
  if (csv) {
    FILE *f = fopen(csv, "w");
    if (!f)
      return fail(csv, strerror(errno));
    print_csv(f, res);
    fclose(f);
  }
  return rc;
}

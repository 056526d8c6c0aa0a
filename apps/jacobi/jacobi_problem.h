/*
 * The Jacobi problem of wgsync-jacobi (jacobi.cu) and its NVSHMEM anchor (jacobi_nvshmem.cu):
 * the step every form runs, the split of the rows over GPUs, the initial grid and the CPU
 * reference. See jacobi.cu for the problem's definition.
 */
#ifndef WGS_JACOBI_PROBLEM_H
#define WGS_JACOBI_PROBLEM_H

#include <math.h>
#include <stdio.h>
#include <time.h>

#include <algorithm>
#include <vector>

/* Rows 1..rows of dst from src (each rows+2 rows of nx floats); row 1 also into top_halo (the
 * GPU above's halo row below its rows), row `rows` also into bot_halo (the GPU below's row 0),
 * when given. Cells numbered from i0 by stride (rows x (nx-2) < 2^32, checked by the host); the
 * cell's column and row advance by adding, not dividing (the first step divided a 64-bit index
 * per cell: 280 us an iteration at 8192^2 on one H200, 244 without the division, same kernel). */
__device__ __forceinline__ void jacobi_rows(const float *__restrict__ src, float *__restrict__ dst,
                                            unsigned rows, unsigned nx, float *top_halo,
                                            float *bot_halo, unsigned i0, unsigned stride)
{
  unsigned w = nx - 2u, cells = rows * w;
  unsigned y = i0 / w + 1u, x = i0 % w + 1u, dy = stride / w, dx = stride % w;
  for (unsigned i = i0; i < cells; i += stride) {
    size_t c = (size_t)y * nx + x;
    float v = 0.25f * (((src[c - 1] + src[c + 1]) + src[c - nx]) + src[c + nx]);
    dst[c] = v;
    if (y == 1u && top_halo)
      top_halo[x] = v;
    if (y == rows && bot_halo)
      bot_halo[x] = v;
    x += dx;
    y += dy;
    if (x > w) {
      x -= w;
      y++;
    }
  }
}

struct part {
  unsigned rows, top, bot, top_rows; /* own rows; neighbour ranks; the top neighbour's rows */
};

static inline double now_us()
{
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct problem {
  unsigned nx, ny, n;       /* grid, GPUs */
  std::vector<part> parts;  /* per GPU */
  std::vector<unsigned> y0; /* first global row per GPU */
};

static inline problem make_problem(unsigned nx, unsigned ny, unsigned n)
{
  problem P;
  P.nx = nx;
  P.ny = ny;
  P.n = n;
  unsigned y = 0;
  for (unsigned r = 0; r < n; ++r) {
    part p;
    p.rows = ny / n + (r < ny % n ? 1u : 0u);
    p.top = (r + n - 1u) % n;
    p.bot = (r + 1u) % n;
    P.parts.push_back(p);
    P.y0.push_back(y);
    y += p.rows;
  }
  for (unsigned r = 0; r < n; ++r)
    P.parts[r].top_rows = P.parts[P.parts[r].top].rows;
  return P;
}

static inline float boundary(unsigned y, unsigned ny) { return sinf(2.0f * (float)M_PI * (float)y / (float)ny); }

/* GPU r's initial buffer: zeros, the fixed columns on its rows and halo rows. */
static inline std::vector<float> initial(const problem &P, unsigned r)
{
  unsigned rows = P.parts[r].rows, nx = P.nx;
  std::vector<float> h((size_t)(rows + 2) * nx, 0.0f);
  for (unsigned y = 0; y < rows + 2; ++y) {
    unsigned g = (P.y0[r] + P.ny + y - 1u) % P.ny;
    h[(size_t)y * nx] = h[(size_t)y * nx + nx - 1] = boundary(g, P.ny);
  }
  return h;
}

/* The CPU reference: iters iterations on the whole grid (periodic in y), the same arithmetic. */
static inline std::vector<float> reference(unsigned nx, unsigned ny, unsigned iters)
{
  std::vector<float> a((size_t)nx * ny, 0.0f), b;
  for (unsigned y = 0; y < ny; ++y)
    a[(size_t)y * nx] = a[(size_t)y * nx + nx - 1] = boundary(y, ny);
  b = a;
  for (unsigned it = 0; it < iters; ++it) {
    for (unsigned y = 0; y < ny; ++y) {
      const float *up = &a[(size_t)((y + ny - 1) % ny) * nx], *row = &a[(size_t)y * nx],
                  *dn = &a[(size_t)((y + 1) % ny) * nx];
      float *out = &b[(size_t)y * nx];
      for (unsigned x = 1; x + 1 < nx; ++x)
        out[x] = 0.25f * (((row[x - 1] + row[x + 1]) + up[x]) + dn[x]);
    }
    std::swap(a, b);
  }
  return a;
}

/* GPU r's rows after a run (rows+2 rows with halos, as on the GPU) against the CPU's grid:
 * the cells that differ by more than 1e-6, and the largest difference. */
static inline void compare_rows(const problem &P, unsigned r, const std::vector<float> &h,
                                const std::vector<float> &ref, int *differ, double *maxdiff)
{
  for (unsigned y = 0; y < P.parts[r].rows; ++y)
    for (unsigned x = 0; x < P.nx; ++x) {
      double d = fabs((double)h[(size_t)(y + 1) * P.nx + x] - ref[(size_t)(P.y0[r] + y) * P.nx + x]);
      if (d > 1e-6)
        (*differ)++;
      *maxdiff = std::max(*maxdiff, d);
    }
}

/* Iterations of a check run: all when the grid is small, fewer on large grids, so that the CPU
 * reference makes at most `updates` cell updates. */
static inline unsigned check_iters(unsigned nx, unsigned ny, unsigned iters, double updates = 4e9)
{
  return (unsigned)std::max(2.0, std::min((double)iters, updates / ((double)nx * ny)));
}

#endif

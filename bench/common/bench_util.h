/*
 * What the CUDA benchmarks share: a CUDA call that must succeed, median/min/max of repeats, a
 * wall clock, the results folder and files (created when missing, or a clear refusal), and the
 * device and date the results are stamped with.
 * Header-only, so that bench_launch.cu builds against an earlier tree.
 */
#ifndef WGS_BENCH_UTIL_H
#define WGS_BENCH_UTIL_H

#include <algorithm>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <string>
#include <utility>
#include <vector>

#include "wgsync_cuda.h"

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

struct stat3 {
  double med, lo, hi;
};
static inline stat3 stats(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.front(), v.back()};
}
static inline double now_us()
{
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The results folder: created when missing (one level), refused when it cannot be (2). */
static inline int results_dir(const char *tool, const char *dir)
{
  struct stat sb;
  errno = 0;
  if (stat(dir, &sb) != 0 ? mkdir(dir, 0777) != 0 : !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "%s: cannot create the results folder '%s': %s\n", tool, dir,
            errno ? strerror(errno) : "a file of that name is in the way");
    return 2;
  }
  return 0;
}
/* A results file in dir; exits with a message rather than writing through NULL. */
static inline FILE *results_file(const char *tool, const char *dir, const char *name)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", tool, path, strerror(errno));
    exit(2);
  }
  return f;
}

/* Items "a;b;..." from the environment variable `name` (shapes, forms), or `fallback`. */
static inline std::vector<std::string> env_list(const char *name, std::vector<std::string> fallback)
{
  const char *s = getenv(name);
  if (!s)
    return fallback;
  std::vector<std::string> v;
  for (std::string rest = s; !rest.empty();) {
    size_t semi = rest.find(';');
    v.push_back(rest.substr(0, semi));
    rest = semi == std::string::npos ? "" : rest.substr(semi + 1);
  }
  return v;
}

/* Pairs "AxB AxB ..." from the environment variable `name` (shapes, sizes), or `fallback`. */
static inline std::vector<std::pair<unsigned, unsigned>>
env_pairs(const char *name, std::vector<std::pair<unsigned, unsigned>> fallback)
{
  const char *s = getenv(name);
  if (!s)
    return fallback;
  std::vector<std::pair<unsigned, unsigned>> v;
  unsigned a, b;
  int len = 0;
  for (const char *p = s + strspn(s, " "); *p; p += strspn(p, " ")) {
    if (sscanf(p, "%ux%u%n", &a, &b, &len) != 2 || (p[len] && p[len] != ' ')) {
      fprintf(stderr, "%s='%s': '%s' is not GROUPSxTHREADS (pairs separated by spaces)\n", name, s, p);
      exit(2);
    }
    v.push_back({a, b});
    p += len;
  }
  if (v.empty()) {
    fprintf(stderr, "%s='%s': expected GROUPSxTHREADS pairs separated by spaces\n", name, s);
    exit(2);
  }
  return v;
}

/* Device 0, which the benchmarks measure, and the UTC date for their headers: 0, or 77
 * (skipped) with the reason printed when there is no CUDA device. */
static inline int bench_device(wgs_device_info *in, char date[32])
{
  int n = 0;
  if (wgs_cuda_device_count(&n) != WGS_OK || n == 0) {
    printf("skipped: %s\n", wgs_last_error()); /* it names the missing device */
    return 77;
  }
  wgs_cuda_device_info(0, in);
  time_t tt = time(NULL);
  strftime(date, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
  return 0;
}

#endif

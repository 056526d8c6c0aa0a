/* What the OpenCL benchmarks share: reading a kernel source next to them (WGS_BENCH_DIR). */
#ifndef WGS_BENCH_OPENCL_UTIL_H
#define WGS_BENCH_OPENCL_UTIL_H
#include <stdio.h>
#include <stdlib.h>

/* The whole file as a NUL-terminated string (malloc'd), or NULL. */
static char *read_text(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s)
    s[n] = 0;
  fclose(f);
  return s;
}
#endif

/*
 * wgsync-bench-split-cl [OUTDIR]: what the work-group split barrier buys on the OpenCL device
 * (WGSYNC_DEVICE picks it): the imbalanced load of split_bench.cl with a barrier, with the
 * intel_work_group_barrier_* built-ins as wgsync provides them (the polyfill), and with the one
 * storage line that gives NVIDIA a real split (mbarrier). Warm-up, 7 repeats, median; every run
 * checks its shared-memory reads. Writes OUTDIR/split-opencl.csv.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util_cl.h"
#include "wgsync_opencl.h"

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  const char *outdir = argc > 1 ? argv[1] : ".";
  wgs_device_select sel = {-1, -1, getenv("WGSYNC_DEVICE")};
  wgs_device_t *dev;
  if (wgs_device_open(&sel, &dev)) {
    fprintf(stderr, "bench-split-cl: %s\n", wgs_last_error());
    return 1;
  }
  wgs_device_info in;
  wgs_device_get_info(dev, &in);
  char *src = read_text(WGS_BENCH_DIR "/split_bench.cl");
  if (!src) {
    fprintf(stderr, "bench-split-cl: cannot read %s/split_bench.cl\n", WGS_BENCH_DIR);
    return 1;
  }
  size_t local = in.max_work_group_size >= 256 ? 256 : in.max_work_group_size;
  size_t groups = in.is_cpu ? in.compute_units : 132;
  const char *variants[3] = {"barrier", "split (wgsync polyfill)", "split + WGS_WG_SPLIT_STORAGE"};
  const char *defs[3] = {"-D PLAIN", "", "-D WITH_STORAGE"};
  wgs_kernel_t *k[3];
  wgs_program_t *p[3];
  const char *extra = getenv("WGSYNC_BENCH_OPTIONS"); /* extra build options, e.g. -D NAME */
  for (int v = 0; v < 3; ++v) {
    char opts[256];
    snprintf(opts, sizeof opts, "%s %s", defs[v], extra ? extra : "");
    if (wgs_program_build(dev, src, opts, 0, &p[v]) || wgs_kernel_create(p[v], "imbalance", &k[v])) {
      fprintf(stderr, "bench-split-cl: %s: %s\n", variants[v], wgs_last_error());
      return 1;
    }
  }
  { /* what the storage variant compiled to: on NVIDIA the binary is PTX text */
    cl_program clp = wgs_program_opencl(p[2]);
    size_t bsz = 0;
    if (clGetProgramInfo(clp, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL) == CL_SUCCESS && bsz) {
      unsigned char *bin = malloc(bsz + 1);
      if (bin && clGetProgramInfo(clp, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
        bin[bsz] = 0;
        int mb = 0;
        for (char *line = strtok((char *)bin, "\n"); line; line = strtok(NULL, "\n")) {
          while (*line == ' ' || *line == '\t')
            line++;
          if (!strncmp(line, ".version", 8) || !strncmp(line, ".target", 7))
            printf("storage variant binary: %s\n", line);
          if (strstr(line, "mbarrier."))
            mb++;
        }
        printf("storage variant binary: %d mbarrier instructions\n", mb);
      }
      free(bin);
    }
  }
  wgs_buffer_t *sink, *bad;
  wgs_buffer_create(dev, 16, &sink);
  wgs_buffer_create(dev, 16, &bad);
  uint32_t zero[4] = {0};
  wgs_buffer_write(bad, 0, 16, zero);
  char path[1024];
  snprintf(path, sizeof path, "%s/split-opencl.csv", outdir);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  time_t now = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
  fprintf(f, "# %s, driver %s, %s, atomics layer %d (1 = ptx: the storage line gives a real mbarrier split)\n",
          in.name, in.driver_version, date, (int)in.atomics);
  fprintf(f, "groups,local,work,rounds,barrier_us_per_round,polyfill_us_per_round,storage_us_per_round,"
             "speedup_polyfill,speedup_storage,ideal\n");
  printf("%s (driver %s): %zu groups x %zu\n", in.name, in.driver_version, groups, local);
  cl_command_queue q = wgs_device_opencl_queue(dev);
  uint32_t rounds = in.is_cpu ? 200 : 2000;
  for (uint32_t work = 16; work <= 256; work *= 4) {
    double med[3];
    for (int v = 0; v < 3; ++v) {
      double t[8];
      for (int r = 0; r < 8; ++r) {
        wgs_kernel_set_arg(k[v], 0, 4, &rounds);
        wgs_kernel_set_arg(k[v], 1, 4, &work);
        wgs_kernel_set_arg_buffer(k[v], 2, sink);
        wgs_kernel_set_arg_buffer(k[v], 3, bad);
        size_t global = groups * local;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        cl_int e = clEnqueueNDRangeKernel(q, wgs_kernel_opencl(k[v]), 1, NULL, &global, &local, 0, NULL, NULL);
        if (e == CL_SUCCESS)
          e = clFinish(q);
        if (e != CL_SUCCESS) {
          fprintf(stderr, "bench-split-cl: %s failed: %s\n", variants[v], wgs_opencl_error_name(e));
          return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[r] = ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3) / rounds;
      }
      qsort(t + 1, 7, sizeof t[0], cmp); /* t[0] is the warm-up */
      med[v] = t[4];
    }
    fprintf(f, "%zu,%zu,%u,%u,%.4f,%.4f,%.4f,%.3f,%.3f,1.500\n", groups, local, work, rounds, med[0], med[1],
            med[2], med[0] / med[1], med[0] / med[2]);
    printf("W=%3u: barrier %.3f us/round, polyfill %.3f (%.3fx), storage line %.3f (%.3fx); ideal 1.5x\n", work,
           med[0], med[1], med[0] / med[1], med[2], med[0] / med[2]);
  }
  uint32_t nbad = 0;
  wgs_buffer_read(bad, 0, 4, &nbad);
  fprintf(f, "# wrong local-memory reads over all runs: %u\n", nbad);
  printf("wrong local-memory reads over all runs: %u\n", nbad);
  fclose(f);
  return nbad ? 1 : 0;
}

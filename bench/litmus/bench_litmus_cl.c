/*
 * wgsync-bench-litmus-cl OUTDIR [ROUNDS] [GROUPS,...]: litmus at scale on the OpenCL device
 * (WGSYNC_DEVICE picks it): MP, SB and last-writer checks across the counter, split counter,
 * XF grid barriers and the counter barrier with an OR (its answers checked too), with memory stress from the non-checking half of each group (litmus.cl;
 * definitions in bench/litmus/bench_litmus.cu). Writes OUTDIR/litmus-opencl.csv; exits 1 when a
 * crossing was violated.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util_cl.h"
#include "wgsync.h"

#define TRY(call)                                                                            \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    if (rc_ != WGS_OK) {                                                                     \
      fprintf(stderr, "wgsync-bench-litmus-cl: %s: %s: %s\n", #call, wgs_status_name(rc_),   \
              wgs_last_error());                                                             \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: wgsync-bench-litmus-cl OUTDIR [ROUNDS] [GROUPS,...]\n");
    return 2;
  }
  uint32_t rounds = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 4000;
  wgs_device_t *dev;
  TRY(wgs_device_open(NULL, &dev));
  wgs_device_info in;
  TRY(wgs_device_get_info(dev, &in));
  size_t local = in.is_cpu ? 16 : 256;
  uint32_t sizes[8], nsizes = 0;
  if (argc > 3) {
    for (char *p = argv[3]; *p && nsizes < 8; p++) {
      sizes[nsizes++] = (uint32_t)strtoul(p, &p, 10);
      if (!*p)
        break;
    }
  } else if (in.is_cpu) {
    sizes[nsizes++] = in.compute_units;
  } else {
    sizes[nsizes++] = 264;
    sizes[nsizes++] = 1056;
  }
  char *src = read_text(WGS_BENCH_DIR "/litmus.cl");
  if (!src) {
    fprintf(stderr, "wgsync-bench-litmus-cl: cannot read %s/litmus.cl\n", WGS_BENCH_DIR);
    return 1;
  }
  wgs_program_t *prog;
  wgs_kernel_t *k;
  TRY(wgs_program_build(dev, src, NULL, 0, &prog));
  TRY(wgs_kernel_create(prog, "litmus", &k));
  uint32_t maxg = 0;
  for (uint32_t i = 0; i < nsizes; i++)
    maxg = sizes[i] > maxg ? sizes[i] : maxg;
  const uint32_t scratch_words = in.is_cpu ? 1u << 16 : 1u << 24;
  wgs_state_t *st;
  wgs_buffer_t *data, *lw, *scratch, *out;
  TRY(wgs_state_create(dev, maxg, &st));
  TRY(wgs_buffer_create(dev, 2 * (size_t)maxg * local * 4, &data));
  TRY(wgs_buffer_create(dev, 8, &lw));
  TRY(wgs_buffer_create(dev, (size_t)scratch_words * 4, &scratch));
  TRY(wgs_buffer_create(dev, 3 * (size_t)maxg * 4, &out));
  uint32_t *host = calloc(3 * (size_t)maxg, 4), *zero = calloc(2 * (size_t)maxg * local, 4);
  if (!host || !zero)
    return 1;

  char date[32], path[1024];
  time_t tt = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
  snprintf(path, sizeof path, "%s/litmus-opencl.csv", argv[1]);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "wgsync-bench-litmus-cl: cannot write '%s'\n", path);
    return 2;
  }
  printf("# %s, %s, %s, atomics layer %d; %u rounds per launch, %zu work-items per group\n", date,
         in.name, in.driver_version, (int)in.atomics, rounds, local);
  fprintf(f, "# %s, %s, %s, atomics layer %d; %u rounds per launch\n", date, in.name,
          in.driver_version, (int)in.atomics, rounds);
  fprintf(f, "design,shape,groups_launched,participants,checking_work_items,rounds,crossings,"
             "violations,first_violation_round,ms\n");
  const char *shapes[] = {"MP", "SB", "LW"};
  struct { const char *name; wgs_barrier b; uint32_t split; } designs[] = {
      {"counter", WGS_BARRIER_COUNTER, 0}, {"split counter", WGS_BARRIER_COUNTER, 1},
      {"xf (paper)", WGS_BARRIER_XF, 0},
      {"counter with OR", WGS_BARRIER_COUNTER, 3},
      {"control: no barrier", WGS_BARRIER_COUNTER, 2}};
  unsigned long long total = 0, total_viol = 0, control_viol = 0;
  for (uint32_t si = 0; si < nsizes; si++)
    for (int d = 0; d < (int)(sizeof designs / sizeof designs[0]); d++)
      for (uint32_t shape = 0; shape < 3; shape++) {
        uint32_t mask = scratch_words - 1, stress = 8, split = designs[d].split;
        TRY(wgs_buffer_write(data, 0, 2 * (size_t)maxg * local * 4, zero));
        TRY(wgs_buffer_write(lw, 0, 8, zero));
        for (uint32_t g = 0; g < maxg; g++) {
          host[3 * g] = host[3 * g + 1] = 0;
          host[3 * g + 2] = UINT32_MAX;
        }
        TRY(wgs_buffer_write(out, 0, 3 * (size_t)maxg * 4, host));
        TRY(wgs_kernel_set_arg_buffer(k, 1, data));
        TRY(wgs_kernel_set_arg_buffer(k, 2, lw));
        TRY(wgs_kernel_set_arg_buffer(k, 3, scratch));
        TRY(wgs_kernel_set_arg(k, 4, 4, &mask));
        TRY(wgs_kernel_set_arg(k, 5, 4, &rounds));
        TRY(wgs_kernel_set_arg(k, 6, 4, &shape));
        TRY(wgs_kernel_set_arg(k, 7, 4, &split));
        TRY(wgs_kernel_set_arg(k, 8, 4, &stress));
        TRY(wgs_kernel_set_arg_buffer(k, 9, out));
        wgs_launch_config cfg;
        wgs_launch_config_init(&cfg);
        cfg.local_size = local;
        cfg.groups = sizes[si];
        cfg.barrier = designs[d].b;
        cfg.time_kernel = 1;
        wgs_launch_result res;
        TRY(wgs_launch(st, k, &cfg, &res));
        TRY(wgs_buffer_read(out, 0, 3 * (size_t)maxg * 4, host));
        unsigned long long checks = 0, viol = 0;
        uint32_t first = UINT32_MAX;
        for (uint32_t g = 0; g < res.participants; g++) {
          checks += host[3 * g];
          viol += host[3 * g + 1];
          first = host[3 * g + 2] < first ? host[3 * g + 2] : first;
        }
        if (designs[d].split == 2) {
          control_viol += viol;
        } else {
          total += checks;
          total_viol += viol;
        }
        char fv[16] = "";
        if (viol)
          snprintf(fv, sizeof fv, "%u", first);
        printf("%-20s %4u groups %s: %4u participants, %12llu crossings, %llu violations%s%s, %.1f ms\n",
               designs[d].name, sizes[si], shapes[shape], res.participants, checks, viol,
               viol ? ", first in round " : "", fv, res.kernel_us / 1e3);
        fprintf(f, "%s,%s,%u,%u,%zu,%u,%llu,%llu,%s,%.3f\n", designs[d].name, shapes[shape],
                sizes[si], res.participants, local / 2, rounds, checks, viol, fv, res.kernel_us / 1e3);
      }
  printf("total: %llu crossings checked, %llu violations; the control without a barrier: %llu "
         "violations%s\n", total, total_viol, control_viol,
         control_viol ? "" : " (none seen: the checks were not shown to fail on this device)");
  fprintf(f, "# total: %llu crossings checked, %llu violations; control without a barrier: %llu "
             "violations\n", total, total_viol, control_viol);
  fclose(f);
  wgs_state_release(st);
  wgs_buffer_release(data);
  wgs_buffer_release(lw);
  wgs_buffer_release(scratch);
  wgs_buffer_release(out);
  wgs_kernel_release(k);
  wgs_program_release(prog);
  wgs_device_close(dev);
  free(src);
  free(host);
  free(zero);
  return total_viol ? 1 : 0;
}

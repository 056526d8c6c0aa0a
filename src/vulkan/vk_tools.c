/* Vulkan backend: the tools' launches (the core decides sizes and searches, src/tools.c) on the
 * tools' shaders (device/vulkan/kernels/tools.comp), through the one API, and the shader clock's
 * rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tools.h"
#include "vk_internal.h"

static double now_us(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* A kernel of the tools' program, a state of `groups` and buffers of the given bytes. */
typedef struct {
  wgs_kernel_t *k;
  wgs_state_t *st;
  wgs_buffer_t *buf[2];
} tool_run;

static int tool_open(wgs_device_t *dev, int checked, const char *name, uint32_t groups,
                     size_t bytes0, size_t bytes1, tool_run *t)
{
  memset(t, 0, sizeof *t);
  wgs_program_t *prog;
  int rc = wgs__vk_tools_program(dev, checked, &prog);
  if (rc == WGS_OK)
    rc = wgs_kernel_create(prog, name, &t->k);
  if (rc == WGS_OK)
    rc = wgs_state_create(dev, groups, &t->st);
  size_t bytes[2] = {bytes0, bytes1};
  for (int i = 0; i < 2 && rc == WGS_OK; i++)
    if (bytes[i]) {
      rc = wgs_buffer_create(dev, bytes[i], &t->buf[i]);
      if (rc == WGS_OK)
        memset(((wgs__vk_buffer *)(void *)t->buf[i])->map, 0, bytes[i]);
      if (rc == WGS_OK)
        rc = wgs_kernel_set_arg_buffer(t->k, 1u + (unsigned)i, t->buf[i]);
    }
  return rc;
}

static void tool_close(tool_run *t)
{
  for (int i = 0; i < 2; i++)
    wgs_buffer_release(t->buf[i]);
  wgs_state_release(t->st);
  wgs_kernel_release(t->k);
}

/* The shader clock's ticks per microsecond: one invocation stores the clock, twice, about 20 ms
 * apart on the host's clock (each read taken as the middle of its launch). */
int wgs__vk_clock_rate(wgs__vk_device *d, double *ticks_per_us)
{
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  int rc = WGS_OK;
  if (d->ticks_per_us <= 0) {
    tool_run t;
    rc = tool_open((wgs_device_t *)(void *)d, 0, "wgs_clock", 1, 8, 0, &t);
    wgs_launch_config lc;
    wgs_launch_config_init(&lc);
    lc.discovery = WGS_DISCOVERY_ALL;
    lc.local_size = 1;
    lc.groups = 1;
    double host[3];
    uint64_t dev[3];
    for (int i = 0; i < 3 && rc == WGS_OK; i++) { /* the first is a warm-up */
      if (i == 2) {
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
      }
      double h0 = now_us();
      rc = wgs_launch(t.st, t.k, &lc, NULL);
      host[i] = (h0 + now_us()) / 2;
      if (rc == WGS_OK)
        rc = wgs_buffer_read(t.buf[0], 0, 8, &dev[i]);
    }
    /* A clock whose readings fit 32 bits is taken as a 32-bit one (lavapipe's wraps every
     * 4.3 s): the difference is taken modulo 2^32, as the device library does (wgsi_since). */
    int clock32 = rc == WGS_OK && dev[1] <= UINT32_MAX && dev[2] <= UINT32_MAX;
    uint64_t ticks = rc != WGS_OK ? 0 : clock32 ? (uint32_t)(dev[2] - dev[1]) : dev[2] - dev[1];
    if (rc == WGS_OK && (ticks == 0 || (!clock32 && dev[2] < dev[1]) || host[2] <= host[1]))
      rc = wgs__fail(WGS_EBACKEND, "'%s': the shader clock did not move in %.0f us (read %llu, "
                                   "then %llu): wgsync bounds its spins by it", d->info.name,
                     host[2] - host[1], (unsigned long long)dev[1], (unsigned long long)dev[2]);
    if (rc == WGS_OK) {
      d->ticks_per_us = (double)ticks / (host[2] - host[1]);
      d->clock32 = clock32;
      d->stamp_tick_ns = 1e3 / d->ticks_per_us; /* the protocol's stamps are clock ticks */
    }
    tool_close(&t);
  }
  *ticks_per_us = d->ticks_per_us;
  pthread_mutex_unlock(&lock);
  return rc;
}

/* The §5.1 microbenchmark: discovery, then (do_barrier) one grid barrier; checked build. */
int wgs__vk_micro(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t groups,
                  wgs_discovery disc, int do_barrier, wgs_launch_result *res)
{
  tool_run t;
  size_t smem = cfg->local_mem_bytes ? cfg->local_mem_bytes : 4;
  uint32_t words = (uint32_t)(smem / 4), barrier = do_barrier ? 1u : 0u;
  int rc = tool_open(dev, 1, "wgs_micro", groups, (size_t)groups * 2 * 4, 0, &t);
  if (rc == WGS_OK)
    rc = wgs_kernel_set_arg(t.k, 2, sizeof words, &words);
  if (rc == WGS_OK)
    rc = wgs_kernel_set_arg(t.k, 3, sizeof barrier, &barrier);
  if (rc == WGS_OK)
    rc = wgs_kernel_set_arg(t.k, 4, smem, NULL); /* the scratch: shared memory */
  wgs_launch_config lc;
  wgs__occ_launch_config(cfg, groups, disc, &lc);
  if (rc == WGS_OK)
    rc = wgs_launch(t.st, t.k, &lc, res);
  tool_close(&t);
  return rc;
}

/* The message-passing self-test's launch (the core decides sizes and decodes the report). */
int wgs__vk_mp(wgs_device_t *dev, const wgs_selftest_config *cfg, size_t local, uint32_t groups,
               uint32_t rounds, wgs_launch_result *launch, uint32_t rep[8])
{
  tool_run t;
  uint32_t split = cfg->split ? 1u : 0u;
  int rc = tool_open(dev, !cfg->unchecked, "wgs_mp", groups, 2 * (size_t)groups * local * 4 * 4,
                     16 * 4, &t);
  if (rc == WGS_OK)
    rc = wgs_kernel_set_arg(t.k, 3, sizeof rounds, &rounds);
  if (rc == WGS_OK)
    rc = wgs_kernel_set_arg(t.k, 4, sizeof split, &split);
  wgs_launch_config lc;
  wgs__selftest_launch_config(cfg, local, groups, &lc);
  if (rc == WGS_OK)
    rc = wgs_launch(t.st, t.k, &lc, launch);
  if (rc == WGS_OK)
    rc = wgs_buffer_read(t.buf[1], 0, 8 * sizeof(uint32_t), rep);
  tool_close(&t);
  return rc;
}

/* The latency runs: a checked probe of 10 barriers, a warm-up, then `repeats` timed launches. */
int wgs__vk_latency(wgs_device_t *dev, const wgs_latency_config *cfg, uint32_t groups,
                    uint32_t rounds, uint32_t repeats, double *us)
{
  uint32_t split = cfg->split ? 1u : 0u;
  int rc = WGS_OK;
  for (int checked = 1; checked >= 0 && rc == WGS_OK; checked--) {
    tool_run t;
    uint32_t n = checked ? 10u : rounds;
    rc = tool_open(dev, checked, "wgs_latency", groups, 16, 0, &t);
    if (rc == WGS_OK)
      rc = wgs_kernel_set_arg(t.k, 2, sizeof n, &n);
    if (rc == WGS_OK)
      rc = wgs_kernel_set_arg(t.k, 3, sizeof split, &split);
    wgs_launch_config lc;
    wgs__latency_launch_config(cfg, groups, &lc);
    for (uint32_t r = 0; r < (checked ? 1u : repeats + 1u) && rc == WGS_OK; r++) {
      wgs_launch_result lr;
      rc = wgs_launch(t.st, t.k, &lc, &lr);
      if (rc == WGS_OK && !checked && r > 0)
        us[r - 1] = lr.kernel_us / rounds;
    }
    tool_close(&t);
  }
  return rc;
}

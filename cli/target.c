/*
 * wgsync CLI: the device a command runs on — an OpenCL device, or (when built with CUDA) a CUDA
 * device chosen with the name "cuda" or "cuda:N" (-n, or WGSYNC_DEVICE).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef WGSYNC_HAVE_CUDA
#include "wgsync_cuda.h"
#endif

static int cuda_index(const char *name)
{
  if (!name || strncmp(name, "cuda", 4) != 0)
    return -1;
  if (name[4] == '\0')
    return 0;
  if (name[4] != ':')
    return -1;
  char *end;
  long v = strtol(name + 5, &end, 10);
  return *end || v < 0 ? -2 : (int)v;
}

int cli_target_open(const wgs_device_select *sel, cli_target *t)
{
  memset(t, 0, sizeof *t);
  const char *name = sel->name;
  if (!name && sel->platform < 0 && sel->device < 0)
    name = getenv("WGSYNC_DEVICE");
  int ci = cuda_index(name);
  if (ci == -2) {
    fprintf(stderr, "wgsync: device '%s' is not 'cuda' or 'cuda:N'\n", name);
    return WGS_EINVAL;
  }
  if (ci >= 0) {
#ifdef WGSYNC_HAVE_CUDA
    t->cuda = 1;
    t->cuda_device = ci;
    return wgs_cuda_device_info(ci, &t->info);
#else
    return wgs__cli_no_cuda();
#endif
  }
  int rc = wgs_device_open(sel, &t->dev);
  if (rc == WGS_OK)
    rc = wgs_device_get_info(t->dev, &t->info);
  return rc;
}

void cli_target_close(cli_target *t)
{
  wgs_device_close(t->dev);
  t->dev = NULL;
}

uint32_t cli_target_default_groups(const cli_target *t, size_t local)
{
#ifdef WGSYNC_HAVE_CUDA
  if (t->cuda)
    return wgs_cuda_default_groups(t->cuda_device, local);
#endif
  return wgs_default_groups(t->dev, local);
}

int cli_target_max_local_mem(cli_target *t, size_t local, size_t *bytes)
{
#ifdef WGSYNC_HAVE_CUDA
  if (t->cuda)
    return wgs_cuda_max_shared(t->cuda_device, bytes);
#endif
  return wgs_occupancy_max_local_mem(t->dev, local, bytes);
}

int cli_target_discover(cli_target *t, const wgs_occupancy_config *c, wgs_launch_result *r)
{
#ifdef WGSYNC_HAVE_CUDA
  if (t->cuda)
    return wgs_cuda_occupancy_discover(t->cuda_device, c, r);
#endif
  return wgs_occupancy_discover(t->dev, c, r);
}

int cli_target_bound(cli_target *t, const wgs_occupancy_config *c, uint32_t limit,
                     void (*cb)(void *, uint32_t, int), uint32_t *bound)
{
#ifdef WGSYNC_HAVE_CUDA
  if (t->cuda)
    return wgs_cuda_occupancy_bound(t->cuda_device, c, limit, cb, NULL, bound);
#endif
  return wgs_occupancy_bound(t->dev, c, limit, cb, NULL, bound);
}

int cli_target_selftest(cli_target *t, const wgs_selftest_config *c, wgs_selftest_result *r)
{
#ifdef WGSYNC_HAVE_CUDA
  if (t->cuda)
    return wgs_cuda_barrier_selftest(t->cuda_device, c, r);
#endif
  return wgs_barrier_selftest(t->dev, c, r);
}

int cli_target_latency(cli_target *t, const wgs_latency_config *c, wgs_latency_result *r)
{
#ifdef WGSYNC_HAVE_CUDA
  if (t->cuda)
    return wgs_cuda_barrier_latency(t->cuda_device, c, r);
#endif
  return wgs_barrier_latency(t->dev, c, r);
}

int wgs__cli_no_cuda(void)
{
  fprintf(stderr, "wgsync: this build has no CUDA backend (nvcc was not found at build time)\n");
  return WGS_EUNSUPPORTED;
}

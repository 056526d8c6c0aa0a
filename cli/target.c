/*
 * wgsync CLI: the device a command runs on, opened through the library (wgs_device_open: an
 * OpenCL device, or a CUDA device named "cuda" or "cuda:N" with -n or WGSYNC_DEVICE). The
 * commands call the device API on it whichever backend it is; only the apps (OpenCL programs
 * or CUDA kernels) and `kernels` look at which.
 */
#include <string.h>

#include "cli.h"
#ifdef WGSYNC_HAVE_CUDA
#include "wgsync_cuda.h"
#endif

int cli_target_open(const wgs_device_select *sel, cli_target *t)
{
  memset(t, 0, sizeof *t);
  int rc = wgs_device_open(sel, &t->dev);
  if (rc == WGS_OK)
    rc = wgs_device_get_info(t->dev, &t->info);
  if (rc == WGS_OK && t->info.backend == WGS_BACKEND_CUDA) {
    t->cuda = 1;
#ifdef WGSYNC_HAVE_CUDA
    t->cuda_device = wgs_cuda_device_ordinal(t->dev);
#endif
  }
  return rc;
}

void cli_target_close(cli_target *t)
{
  wgs_device_close(t->dev);
  t->dev = NULL;
}

const char *cli_apps_missing(const cli_target *t)
{
#ifndef WGSYNC_APPS_VULKAN
  if (t->info.backend == WGS_BACKEND_VULKAN)
    return "the graph applications have OpenCL C and CUDA kernels, none for Vulkan devices";
#endif
  if (t->info.backend == WGS_BACKEND_NULL)
    return "the graph applications have OpenCL C and CUDA kernels, none for the null backend's "
           "devices";
  return NULL;
}

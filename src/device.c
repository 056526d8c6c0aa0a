/*
 * The device API over the backends' tables (src/device.h): wgs_device_open picks the backend
 * from what is asked ("cuda" or "cuda:N" is a CUDA device, anything else an OpenCL one), and
 * the occupancy tools and defaults go to the device's backend.
 *
 * Part of the core, in every library. Each library names the backend it carries in its
 * *_device_api.c (wgs__own_backend), which this file references strongly, so that linking any
 * library statically brings its backend along; the backends' tables are referenced weakly,
 * present when the program links the other library too (static: when the program uses any of
 * its functions, as the CLI does; shared: the tables are exported, cmake/wgsync.map).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

extern const wgs__backend_ops wgs__opencl_ops __attribute__((weak));
extern const wgs__backend_ops wgs__cuda_ops __attribute__((weak));
extern const wgs__backend_ops wgs__vulkan_ops __attribute__((weak));

extern const wgs__backend_ops wgs__null_ops; /* src/null: in every library */

static const wgs__backend_ops *opencl_backend(void) { return &wgs__opencl_ops; }
static const wgs__backend_ops *cuda_backend(void) { return &wgs__cuda_ops; }
static const wgs__backend_ops *vulkan_backend(void) { return &wgs__vulkan_ops; }

/* The registry: every backend this program carries (a weak table absent is NULL), in the order
 * devices are listed. (The null backend is not listed: its device is opened by name only.) */
static size_t registry(const wgs__backend_ops **out)
{
  /* this library's own backend (the strong reference: see above), then any other, once each */
  const wgs__backend_ops *all[] = {wgs__own_backend, opencl_backend(), cuda_backend(), vulkan_backend()};
  size_t n = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    int seen = !all[i];
    for (size_t j = 0; j < n && !seen; j++)
      seen = out[j] == all[i];
    if (!seen)
      out[n++] = all[i];
  }
  /* listed in one order whichever library the program found first: OpenCL's devices, CUDA's,
   * then Vulkan's */
  const wgs__backend_ops *order[] = {opencl_backend(), cuda_backend(), vulkan_backend()};
  size_t m = 0;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    for (size_t j = 0; j < n; j++)
      if (order[i] && out[j] == order[i])
        all[m++] = order[i];
  for (size_t i = 0; i < m; i++)
    out[i] = all[i];
  return n;
}

int wgs_device_list(wgs_device_info *infos, size_t cap, size_t *count)
{
  WGS__REQUIRE(count);
  *count = 0;
  if (cap > 0)
    WGS__REQUIRE(infos);
  /* infos NULL and cap 0: how many there are (the backends describe them into scratch space) */
  wgs_device_info *scratch = NULL;
  if (!infos && cap == 0) {
    cap = 256;
    if (!(infos = scratch = calloc(cap, sizeof *scratch)))
      return wgs__fail(WGS_ENOMEM, "wgs_device_list: out of memory");
  }
  const wgs__backend_ops *reg[8];
  size_t nb = registry(reg);
  int first_rc = WGS_ENODEV;
  char why[512] = "";
  for (size_t b = 0; b < nb; b++) {
    size_t got = 0;
    int rc = reg[b]->list(infos + *count, cap - *count, &got);
    if (rc != WGS_OK) { /* a backend without devices here: the others may have some */
      if (first_rc == WGS_ENODEV && rc != WGS_ENODEV)
        first_rc = rc;
      size_t used = strlen(why);
      snprintf(why + used, sizeof why - used, "%s%s: %s", used ? "; " : "", reg[b]->name,
               wgs_last_error());
      continue;
    }
    *count += got;
  }
  free(scratch);
  if (*count == 0)
    return wgs__fail(first_rc, "no device on any backend (%s)", why[0] ? why : "none built");
  return wgs__fail(WGS_OK, "%s", why); /* (success: the backends without devices, and why) */
}

int wgs__backend_index(const char *name, const char *prefix)
{
  size_t l = strlen(prefix);
  if (!name || strncmp(name, prefix, l) != 0)
    return -1;
  if (name[l] == '\0')
    return 0;
  if (name[l] != ':')
    return -1;
  char *end;
  long v = strtol(name + l + 1, &end, 10);
  return end == name + l + 1 || *end || v < 0 || v > 1 << 20 ? -2 : (int)v;
}
int wgs__cuda_name(const char *name) { return wgs__backend_index(name, "cuda"); }

int wgs_device_open(const wgs_device_select *sel, wgs_device_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  wgs_device_select want = {-1, -1, NULL};
  if (sel)
    want = *sel;
  if (want.platform < -1 || want.device < -1)
    return wgs__fail(WGS_EINVAL, "wgs_device_open: platform %d, device %d: expected indices from "
                     "0, or -1 for any", want.platform, want.device);
  int unset = want.platform < 0 && want.device < 0 && !want.name;
  const char *name = want.name, *env = getenv("WGSYNC_DEVICE");
  if (unset && env && *env)
    name = env;
  if (name && !strcmp(name, "null"))
    return wgs__null_ops.open(&want, "'null'", out);
  int ci = wgs__cuda_name(name), vi = wgs__backend_index(name, "vulkan");
  if (ci == -2)
    return wgs__fail(WGS_EINVAL, "wgs_device_open: device '%s': expected 'cuda' or 'cuda:N' with N "
                     "a CUDA device ordinal", name);
  if (vi == -2)
    return wgs__fail(WGS_EINVAL, "wgs_device_open: device '%s': expected 'vulkan' or 'vulkan:N' "
                     "with N a Vulkan device index (wgsync devices)", name);
  if (vi >= 0) { /* the N-th Vulkan device wgsync can use */
    if (!vulkan_backend())
      return wgs__fail(WGS_EUNSUPPORTED, "wgs_device_open: '%s' is a Vulkan device, and this "
                       "library was built without the Vulkan backend (it needs the Vulkan "
                       "headers and glslangValidator at build time)", name);
    char vhow[300];
    snprintf(vhow, sizeof vhow, "%s'%s'", unset && env && *env ? "WGSYNC_DEVICE=" : "", name);
    wgs_device_select vs = {-1, vi, NULL};
    return vulkan_backend()->open(&vs, vhow, out);
  }
  const wgs__backend_ops *reg[8];
  size_t nb = registry(reg), i = 0;
  const wgs__backend_ops *want_ops = ci >= 0 ? cuda_backend() : opencl_backend(), *b = NULL;
  for (i = 0; i < nb && !b; i++) /* (through the registry: it holds the strong reference) */
    if (reg[i] == want_ops)
      b = reg[i];
  if (!b)
    return wgs__fail(WGS_EUNSUPPORTED, "wgs_device_open: '%s' is %s device, and this program has no "
                     "%s backend (link %s)", name ? name : "the default",
                     ci >= 0 ? "a CUDA" : "an OpenCL", ci >= 0 ? "CUDA" : "OpenCL",
                     ci >= 0 ? "wgsync_cuda, built when nvcc is found" : "wgsync");
  char how[300] = "";
  if (ci >= 0) { /* the CUDA backend opens ordinal sel->device */
    snprintf(how, sizeof how, "%s'%s'", unset && env && *env ? "WGSYNC_DEVICE=" : "", name);
    want.platform = -1;
    want.device = ci;
    want.name = NULL;
  }
  return b->open(&want, how, out);
}

void wgs_device_close(wgs_device_t *dev)
{
  if (dev)
    wgs__head(dev)->ops->close(dev);
}

int wgs_device_get_info(const wgs_device_t *dev, wgs_device_info *out)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(out);
  *out = wgs__head(dev)->info;
  return WGS_OK;
}

uint32_t wgs_default_groups(const wgs_device_t *dev, size_t local_size)
{
  return dev ? wgs__head(dev)->ops->default_groups(dev, local_size) : 0;
}

size_t wgs_default_local_size(const wgs_device_t *dev)
{
  return dev ? wgs__default_local(wgs__head(dev)->info.max_work_group_size) : 0;
}

int wgs_occupancy_max_local_mem(wgs_device_t *dev, size_t local_size, size_t *bytes)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(bytes);
  return wgs__head(dev)->ops->max_local_mem(dev, local_size, bytes);
}

int wgs_occupancy_discover(wgs_device_t *dev, const wgs_occupancy_config *cfg, wgs_launch_result *res)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  return wgs__tool_discover(dev, cfg, res);
}

int wgs_occupancy_bound(wgs_device_t *dev, const wgs_occupancy_config *cfg, uint32_t limit,
                        void (*cb)(void *user, uint32_t groups, int ok), void *user, uint32_t *bound)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(bound);
  return wgs__tool_bound(dev, cfg, limit, cb, user, bound);
}

int wgs_barrier_selftest(wgs_device_t *dev, const wgs_selftest_config *cfg, wgs_selftest_result *res)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  return wgs__tool_selftest(dev, cfg, res);
}

int wgs_barrier_latency(wgs_device_t *dev, const wgs_latency_config *cfg, wgs_latency_result *res)
{
  WGS__REQUIRE(dev);
  WGS__REQUIRE(cfg);
  WGS__REQUIRE(res);
  return wgs__tool_latency(dev, cfg, res);
}

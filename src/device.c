/*
 * The device API over the backends' tables (src/device.h): wgs_device_open parses what is asked
 * once and picks the backend by the registry below ("cuda:N", "vulkan:N", "null", anything else
 * OpenCL's), and the occupancy tools and defaults go to the device's backend.
 *
 * Part of the core, in every library. Each library names the backend it carries in its
 * *_device_api.c (wgs__own_backend), which this file references strongly, so that linking any
 * library statically brings its backend along; the backends' tables are referenced weakly,
 * present when the program links the other library too (static: when the program uses any of
 * its functions, as the CLI does; shared: the tables are exported, cmake/wgsync.map).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

extern const wgs__backend_ops wgs__opencl_ops __attribute__((weak));
extern const wgs__backend_ops wgs__cuda_ops __attribute__((weak));
extern const wgs__backend_ops wgs__vulkan_ops __attribute__((weak));

extern const wgs__backend_ops wgs__null_ops; /* src/null: in every library */

/* The registry: a line per backend, in the order devices are listed. prefix: the device names
 * that pick the backend ("PREFIX", or "PREFIX:N" for its N-th device); NULL: OpenCL, the
 * backend of every other name ("P:D", its indices, or text found in its platforms' and devices'
 * names). The prefix sits here rather than in the backend's table so that a name is refused
 * with the reason when its backend is not in this program (a weak table absent is NULL).
 * listed: its devices are in wgs_device_list (the null backend's is opened by name only). */
typedef struct {
  wgs_backend kind;
  const char *prefix, *name;
  int listed;
  const wgs__backend_ops *table;
  const char *absent; /* how to get the backend when this program has none */
} backend_line;
static const backend_line lines[] = {
    {WGS_BACKEND_OPENCL, NULL, "OpenCL", 1, &wgs__opencl_ops, "link wgsync"},
    {WGS_BACKEND_CUDA, "cuda", "CUDA", 1, &wgs__cuda_ops, "link wgsync_cuda, built when nvcc is found"},
    {WGS_BACKEND_VULKAN, "vulkan", "Vulkan", 1, &wgs__vulkan_ops,
     "build wgsync where the Vulkan headers and glslangValidator are found"},
    {WGS_BACKEND_NULL, "null", "null", 0, &wgs__null_ops, NULL},
};
#define N_LINES (sizeof lines / sizeof lines[0])

static const backend_line *line_of(wgs_backend kind)
{
  for (size_t i = 0; i < N_LINES; i++)
    if (lines[i].kind == kind)
      return &lines[i];
  return NULL;
}

/* The listed backends this program carries, in the registry's order, at most N_LINES + 1.
 * wgs__own_backend, this library's, is among them (the strong reference: see above). */
static size_t registry(const wgs__backend_ops **out)
{
  size_t n = 0;
  int own = 0;
  for (size_t i = 0; i < N_LINES; i++) {
    const wgs__backend_ops *t = lines[i].table;
    if (lines[i].listed && t) {
      out[n++] = t;
      own |= t == wgs__own_backend;
    }
  }
  if (!own && wgs__own_backend) /* (a weak reference the linker left unresolved) */
    out[n++] = wgs__own_backend;
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
  const wgs__backend_ops *reg[N_LINES + 1];
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

/* "prefix" or "prefix:N" (a device name): N, 0 for the bare prefix, -1 another name, -2 bad N. */
static int prefix_index(const char *name, const char *prefix)
{
  size_t l = strlen(prefix);
  if (!name || strncmp(name, prefix, l) != 0)
    return -1;
  if (name[l] == '\0')
    return 0;
  if (name[l] != ':')
    return -1;
  char *end;
  errno = 0;
  long v = strtol(name + l + 1, &end, 10);
  return end == name + l + 1 || *end || errno || v < 0 || v > 1 << 20 ? -2 : (int)v;
}

/* "P:D": 1 with both indices; 0: not of that form (a name to look for); -1: of that form, but
 * an index negative or past int (which would mean "any", or wrap). */
static int platform_device(const char *s, int *p, int *d)
{
  const char *c = strchr(s, ':');
  if (!c || c == s || strspn(s, "-0123456789") != (size_t)(c - s) || !c[1] ||
      strspn(c + 1, "-0123456789") != strlen(c + 1))
    return 0;
  char *e1, *e2;
  errno = 0;
  long a = strtol(s, &e1, 10), b = strtol(c + 1, &e2, 10);
  if (errno || e1 != c || *e2 || a < 0 || b < 0 || a > INT_MAX || b > INT_MAX)
    return -1;
  *p = (int)a;
  *d = (int)b;
  return 1;
}

/* The one parse of a device request: the name (sel's, else WGSYNC_DEVICE when sel names
 * nothing) picks the backend whose prefix it carries, with its device index; any other name
 * is OpenCL's, "P:D" as indices and other text as a name to look for. how: the request in
 * words, for messages. */
static int parse_request(const wgs_device_select *sel, const backend_line **line,
                         wgs_device_select *want, char *how, size_t cap)
{
  *want = sel ? *sel : (wgs_device_select){-1, -1, NULL};
  if (want->platform < -1 || want->device < -1)
    return wgs__fail(WGS_EINVAL, "wgs_device_open: platform %d, device %d: expected indices from "
                     "0, or -1 for any", want->platform, want->device);
  const char *env = getenv("WGSYNC_DEVICE");
  int from_env = want->platform < 0 && want->device < 0 && !want->name && env && *env;
  const char *name = from_env ? env : want->name;
  if (from_env)
    snprintf(how, cap, "WGSYNC_DEVICE='%s'", env);
  else if (want->platform < 0 && want->device < 0 && !want->name)
    snprintf(how, cap, "the default device");
  else if (want->platform < 0 && want->device < 0)
    snprintf(how, cap, "'%s'", name);
  else
    snprintf(how, cap, "platform %d, device %d, name '%s'", want->platform, want->device,
             name ? name : "(any)");
  for (size_t i = 0; i < N_LINES; i++) {
    int idx = lines[i].prefix ? prefix_index(name, lines[i].prefix) : -1;
    if (idx == -2)
      return wgs__fail(WGS_EINVAL, "wgs_device_open: device %s: expected '%s' or '%s:N' with N a "
                                   "%s device index (wgsync devices lists them)", how,
                       lines[i].prefix, lines[i].prefix, lines[i].name);
    if (idx >= 0) {
      *line = &lines[i];
      *want = (wgs_device_select){-1, idx, NULL};
      return WGS_OK;
    }
  }
  *line = line_of(WGS_BACKEND_OPENCL);
  if (name) {
    int p = -1, d = -1, form = platform_device(name, &p, &d);
    if (form < 0)
      return wgs__fail(WGS_EINVAL, "wgs_device_open: device %s: expected P:D with two indices "
                                   "from 0 (wgsync devices lists them), cuda[:N], vulkan[:N], null "
                                   "or a name", how);
    if (form > 0)
      *want = (wgs_device_select){p, d, NULL};
    else
      want->name = name;
  }
  return WGS_OK;
}

int wgs_device_open(const wgs_device_select *sel, wgs_device_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  const backend_line *line = NULL;
  wgs_device_select want;
  char how[300];
  int rc = parse_request(sel, &line, &want, how, sizeof how);
  if (rc != WGS_OK)
    return rc;
  const wgs__backend_ops *reg[N_LINES + 1], *b = NULL;
  size_t nb = registry(reg);
  for (size_t i = 0; i < nb && !b; i++) /* (through the registry: it holds the strong reference) */
    if (reg[i] == line->table)
      b = reg[i];
  if (!b && !line->listed)
    b = line->table;
  if (!b)
    return wgs__fail(WGS_EUNSUPPORTED, "wgs_device_open: %s is a %s device, and this program has "
                                       "no %s backend (%s)", how, line->name, line->name, line->absent);
  return b->open(&want, how, out);
}

int wgs_device_id(const wgs_device_info *in, char *out, size_t cap)
{
  WGS__REQUIRE(in);
  WGS__REQUIRE(out);
  const backend_line *line = line_of(in->backend);
  if (!line)
    return wgs__fail(WGS_EINVAL, "wgs_device_id: backend %d is none of wgsync.h's wgs_backend",
                     (int)in->backend);
  int n = line->prefix ? snprintf(out, cap, "%s:%d", line->prefix, in->device_index)
                       : snprintf(out, cap, "%d:%d", in->platform_index, in->device_index);
  if (n < 0 || (size_t)n >= cap)
    return wgs__fail(WGS_EINVAL, "wgs_device_id: %zu bytes do not hold the id (%d and a NUL "
                                 "needed)", cap, n);
  return WGS_OK;
}

const char *wgs_backend_name(wgs_backend backend)
{
  const backend_line *line = line_of(backend);
  return line ? line->name : "unknown";
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

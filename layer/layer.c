/*
 * The layer's entry points (cl_layer.h: clGetLayerInfo, clInitLayer), its dispatch table, and
 * the device queries: the two extensions listed where the device lacks them, and the
 * extension function clGetKernelMaxConcurrentWorkGroupCountINTEL handed out.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h" /* (first: it names the OpenCL version the headers target) */

#include <CL/cl_layer.h>

const struct _cl_icd_dispatch *wgs__layer_next;
_Thread_local int wgs__layer_inside;
wgs__layer_settings wgs__layer_cfg;
static struct _cl_icd_dispatch table;

void wgs__layer_say(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("wgsync layer: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* The driver's own extension string (the next layer's answer, not this one's). */
static char *driver_extensions(cl_device_id dev)
{
  size_t n = 0;
  if (wgs__layer_next->clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS)
    return NULL;
  char *s = malloc(n + 1);
  if (s && wgs__layer_next->clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, n, s, NULL) != CL_SUCCESS) {
    free(s);
    return NULL;
  }
  if (s)
    s[n] = '\0';
  return s;
}

static int has_word(const char *list, const char *word)
{
  size_t w = strlen(word);
  for (const char *p = list; p && (p = strstr(p, word)); p += w)
    if ((p == list || p[-1] == ' ') && (p[w] == ' ' || p[w] == '\0'))
      return 1;
  return 0;
}

int wgs__layer_native(cl_device_id dev, const char *ext)
{
  char *s = driver_extensions(dev);
  int has = has_word(s, ext);
  free(s);
  if (has && !strcmp(ext, WGS_EXT_CONCURRENT) && wgs__layer_cfg.replace_native)
    return 0;
  return has;
}

cl_int wgs__layer_answer(const void *v, size_t n, size_t size, void *value, size_t *size_ret)
{
  if (value && size < n)
    return CL_INVALID_VALUE;
  if (value)
    memcpy(value, v, n);
  if (size_ret)
    *size_ret = n;
  return CL_SUCCESS;
}

/* cl_khr_spirv_queries, where the headers lack it. */
#ifndef CL_DEVICE_SPIRV_EXTENSIONS_KHR
#define CL_DEVICE_SPIRV_EXTENSIONS_KHR 0x12BA
#define CL_DEVICE_SPIRV_CAPABILITIES_KHR 0x12BB
#endif
#define SPV_CAPABILITY_SPLIT_BARRIER 6141u /* SplitBarrierINTEL (SplitBarrierEXT) */

/* The SPIR-V queries of a device that answers them (cl_khr_spirv_queries) and lacks the split
 * barrier: the layer lowers both split-barrier extensions, so the device takes them. Elements of
 * `elem` bytes: string pointers for the extensions, cl_uint for the capabilities. */
static cl_int spirv_query(cl_device_id dev, cl_device_info name, size_t size, void *value,
                          size_t *size_ret)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  static const char *const exts[2] = {"SPV_INTEL_split_barrier", "SPV_EXT_split_barrier"};
  size_t bytes = 0;
  cl_int err = nx->clGetDeviceInfo(dev, name, 0, NULL, &bytes);
  if (err != CL_SUCCESS || wgs__layer_native(dev, WGS_EXT_SPLIT))
    return nx->clGetDeviceInfo(dev, name, size, value, size_ret);
  int caps = name == CL_DEVICE_SPIRV_CAPABILITIES_KHR;
  size_t elem = caps ? sizeof(cl_uint) : sizeof(const char *), have = bytes / elem, n = have;
  unsigned char *v = malloc(bytes + 2 * elem);
  if (!v)
    return CL_OUT_OF_HOST_MEMORY;
  if (bytes && (err = nx->clGetDeviceInfo(dev, name, bytes, v, NULL)) != CL_SUCCESS) {
    free(v);
    return err;
  }
  if (caps) {
    cl_uint *c = (cl_uint *)v, cap = SPV_CAPABILITY_SPLIT_BARRIER;
    size_t i = 0;
    while (i < have && c[i] != cap)
      i++;
    if (i == have)
      c[n++] = cap;
  } else {
    const char **e = (const char **)v;
    for (int x = 0; x < 2; x++) {
      size_t i = 0;
      while (i < have && strcmp(e[i], exts[x]) != 0)
        i++;
      if (i == have)
        e[n++] = exts[x];
    }
  }
  err = wgs__layer_answer(v, n * elem, size, value, size_ret);
  free(v);
  return err;
}

static cl_int CL_API_CALL layer_clGetDeviceInfo(cl_device_id dev, cl_device_info name, size_t size,
                                                void *value, size_t *size_ret)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  /* (the name first: the thread-local test costs more than the call's own work) */
  if ((name == CL_DEVICE_SPIRV_EXTENSIONS_KHR || name == CL_DEVICE_SPIRV_CAPABILITIES_KHR) &&
      !wgs__layer_inside)
    return spirv_query(dev, name, size, value, size_ret);
  if ((name != CL_DEVICE_EXTENSIONS && name != CL_DEVICE_EXTENSIONS_WITH_VERSION) ||
      wgs__layer_inside)
    return nx->clGetDeviceInfo(dev, name, size, value, size_ret);
  char *ext = driver_extensions(dev);
  if (!ext) /* an invalid device, say: the driver's own error */
    return nx->clGetDeviceInfo(dev, name, size, value, size_ret);
  const char *add[2] = {WGS_EXT_SPLIT, WGS_EXT_CONCURRENT};
  int missing[2] = {!has_word(ext, add[0]), !has_word(ext, add[1])};
  cl_int err;
  if (name == CL_DEVICE_EXTENSIONS) {
    size_t n = strlen(ext), need = n + 1;
    for (int i = 0; i < 2; i++)
      need += missing[i] ? strlen(add[i]) + 1 : 0;
    char *s = malloc(need + 1);
    if (!s) {
      free(ext);
      return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(s, ext, n + 1);
    while (n > 0 && s[n - 1] == ' ')
      s[--n] = '\0';
    for (int i = 0; i < 2; i++)
      if (missing[i]) {
        strcat(s, n ? " " : "");
        strcat(s, add[i]);
        n = strlen(s);
      }
    err = wgs__layer_answer(s, n + 1, size, value, size_ret);
    free(s);
  } else { /* CL_DEVICE_EXTENSIONS_WITH_VERSION (OpenCL 3.0) */
    size_t bytes = 0;
    err = nx->clGetDeviceInfo(dev, name, 0, NULL, &bytes);
    size_t have = err == CL_SUCCESS ? bytes / sizeof(cl_name_version) : 0;
    cl_name_version *v = err == CL_SUCCESS ? calloc(have + 2, sizeof *v) : NULL;
    if (v && have)
      err = nx->clGetDeviceInfo(dev, name, bytes, v, NULL);
    if (err == CL_SUCCESS && v) {
      size_t n = have;
      for (int i = 0; i < 2; i++)
        if (missing[i]) {
          v[n].version = CL_MAKE_VERSION(1, 0, 0);
          snprintf(v[n].name, sizeof v[n].name, "%s", add[i]);
          n++;
        }
      err = wgs__layer_answer(v, n * sizeof *v, size, value, size_ret);
    } else if (err == CL_SUCCESS) {
      err = CL_OUT_OF_HOST_MEMORY;
    }
    free(v);
  }
  free(ext);
  return err;
}

static void *CL_API_CALL layer_clGetExtensionFunctionAddressForPlatform(cl_platform_id p,
                                                                        const char *name)
{
  if (name && !strcmp(name, WGS_FN_MAX_COUNT) && !wgs__layer_inside)
    return (void *)wgs__layer_max_count;
  return wgs__layer_next->clGetExtensionFunctionAddressForPlatform(p, name);
}

static void *CL_API_CALL layer_clGetExtensionFunctionAddress(const char *name)
{
  if (name && !strcmp(name, WGS_FN_MAX_COUNT) && !wgs__layer_inside)
    return (void *)wgs__layer_max_count;
  return wgs__layer_next->clGetExtensionFunctionAddress(name);
}

/* ---- the wgsync devices the layer runs its probes and launches on ------------------------- */

typedef struct layer_device {
  cl_context ctx;
  cl_device_id dev;
  wgs_device_t *wd;
  int users;
  struct layer_device *next;
} layer_device;
static layer_device *devices;
static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;

wgs_device_t *wgs__layer_device_get(cl_context ctx, cl_device_id dev)
{
  pthread_mutex_lock(&devices_lock);
  layer_device *d = devices;
  while (d && !(d->ctx == ctx && d->dev == dev))
    d = d->next;
  if (!d && (d = calloc(1, sizeof *d))) {
    wgs__layer_inside++;
    int rc = wgs_device_wrap_opencl(dev, ctx, NULL, &d->wd);
    wgs__layer_inside--;
    if (rc != WGS_OK) {
      wgs__layer_say("cannot use the device for wgsync: %s", wgs_last_error());
      free(d);
      d = NULL;
    } else {
      d->ctx = ctx;
      d->dev = dev;
      d->next = devices;
      devices = d;
    }
  }
  if (d)
    d->users++;
  pthread_mutex_unlock(&devices_lock);
  return d ? d->wd : NULL;
}

/* The last user closes it: the wrapped device holds the user's context. */
void wgs__layer_device_put(wgs_device_t *wd)
{
  if (!wd)
    return;
  pthread_mutex_lock(&devices_lock);
  for (layer_device **p = &devices; *p; p = &(*p)->next)
    if ((*p)->wd == wd) {
      layer_device *d = *p;
      if (--d->users == 0) {
        *p = d->next;
        wgs__layer_inside++;
        wgs_device_close(d->wd);
        wgs__layer_inside--;
        free(d);
      }
      break;
    }
  pthread_mutex_unlock(&devices_lock);
}

/* ---- cl_layer.h --------------------------------------------------------------------------- */

static int env_on(const char *name)
{
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t size, void *value,
                                               size_t *size_ret)
{
  static const char layer_name[] = "wgsync: cl_intel_split_work_group_barrier and "
                                   "cl_intel_concurrent_dispatch on every device";
  const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  switch (name) {
  case CL_LAYER_API_VERSION:
    return wgs__layer_answer(&version, sizeof version, size, value, size_ret);
  case CL_LAYER_NAME:
    return wgs__layer_answer(layer_name, sizeof layer_name, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
                                            const struct _cl_icd_dispatch *target,
                                            cl_uint *num_entries_ret,
                                            const struct _cl_icd_dispatch **layer_dispatch)
{
  const cl_uint entries = sizeof(struct _cl_icd_dispatch) / sizeof(void *);
  if (!target || !num_entries_ret || !layer_dispatch)
    return CL_INVALID_VALUE;
  if (num_entries < entries) {
    wgs__layer_say("not loaded: the ICD loader's dispatch table has %u entries, the layer needs "
                   "the %u of OpenCL 3.0", num_entries, entries);
    return CL_INVALID_VALUE;
  }
  wgs__layer_next = target;
  wgs__layer_cfg.checked = env_on("WGSYNC_LAYER_CHECKED");
  wgs__layer_cfg.replace_native = env_on("WGSYNC_LAYER_REPLACE_NATIVE");
  wgs__layer_cfg.verbose = env_on("WGSYNC_LAYER_VERBOSE") ? atoi(getenv("WGSYNC_LAYER_VERBOSE")) : 0;
  if (wgs__layer_cfg.verbose < 0)
    wgs__layer_cfg.verbose = 1;
  table = *target;
  table.clGetDeviceInfo = layer_clGetDeviceInfo;
  table.clGetExtensionFunctionAddressForPlatform = layer_clGetExtensionFunctionAddressForPlatform;
  table.clGetExtensionFunctionAddress = layer_clGetExtensionFunctionAddress;
  table.clCreateProgramWithSource = wgs__layer_clCreateProgramWithSource;
  table.clCreateProgramWithIL = wgs__layer_clCreateProgramWithIL;
  table.clCreateProgramWithBinary = wgs__layer_clCreateProgramWithBinary;
  table.clCreateProgramWithBuiltInKernels = wgs__layer_clCreateProgramWithBuiltInKernels;
  table.clLinkProgram = wgs__layer_clLinkProgram;
  table.clBuildProgram = wgs__layer_clBuildProgram;
  table.clCompileProgram = wgs__layer_clCompileProgram;
  table.clGetProgramInfo = wgs__layer_clGetProgramInfo;
  table.clGetProgramBuildInfo = wgs__layer_clGetProgramBuildInfo;
  table.clReleaseProgram = wgs__layer_clReleaseProgram;
  table.clCreateKernel = wgs__layer_clCreateKernel;
  table.clCreateKernelsInProgram = wgs__layer_clCreateKernelsInProgram;
  table.clCloneKernel = wgs__layer_clCloneKernel;
  table.clReleaseKernel = wgs__layer_clReleaseKernel;
  table.clSetKernelArg = wgs__layer_clSetKernelArg;
  table.clGetKernelInfo = wgs__layer_clGetKernelInfo;
  table.clGetKernelArgInfo = wgs__layer_clGetKernelArgInfo;
  table.clSetKernelExecInfo = wgs__layer_clSetKernelExecInfo;
  table.clEnqueueNDRangeKernel = wgs__layer_clEnqueueNDRangeKernel;
  table.clFinish = wgs__layer_clFinish;
  table.clWaitForEvents = wgs__layer_clWaitForEvents;
  *layer_dispatch = &table;
  *num_entries_ret = entries;
  if (wgs__layer_cfg.verbose)
    wgs__layer_say("loaded (checked %d, replace native %d)", wgs__layer_cfg.checked,
                   wgs__layer_cfg.replace_native);
  return CL_SUCCESS;
}

/* The Khronos loader (2024 on) initialises layers through these two; ocl-icd calls clInitLayer. */
CL_API_ENTRY cl_int CL_API_CALL clInitLayerWithProperties(
    cl_uint num_entries, const struct _cl_icd_dispatch *target, cl_uint *num_entries_ret,
    const struct _cl_icd_dispatch **layer_dispatch, const void *properties)
{
  (void)properties; /* none are defined */
  return clInitLayer(num_entries, target, num_entries_ret, layer_dispatch);
}

CL_API_ENTRY cl_int CL_API_CALL clDeinitLayer(void) { return CL_SUCCESS; }

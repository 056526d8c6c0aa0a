/*
 * Programs through the layer.
 *
 * From source: a program that calls the split built-ins (intel_work_group_barrier_arrive or
 * _wait) or cl_intel_concurrent_dispatch's (intel_device_barrier, intel_is_device_barrier_valid)
 * is given the wgsync device library and the layer's glue in front of it (its polyfill defines
 * the split built-ins where the compiler lacks them: device/opencl/wgs_split_wg.cl), and, for
 * the device barrier, its kernels the hidden state parameter (rewrite.c). Its build gets
 * wgsync's options for the device (-cl-std, the atomics layer) after the user's. Any other
 * program, and one whose devices all have both extensions natively, passes untouched.
 *
 * From SPIR-V: a module with split barriers (SPV_INTEL_split_barrier, SPV_EXT_split_barrier)
 * is lowered by wgsync's pass (src/spirv/spirv.c) where a device lacks the extension.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"

extern const char wgs__device_lib_source[];
extern const char wgs__layer_glue_source[];

static pthread_mutex_t programs_lock = PTHREAD_MUTEX_INITIALIZER;
static wgs__layer_program *programs;

static wgs__layer_program *find(cl_program prog)
{
  for (wgs__layer_program *p = programs; p; p = p->next)
    if (p->prog == prog)
      return p;
  return NULL;
}

int wgs__layer_program_get(cl_program prog, wgs__layer_program *out)
{
  if (wgs__layer_inside)
    return 0;
  pthread_mutex_lock(&programs_lock);
  wgs__layer_program *p = find(prog);
  if (p) {
    *out = *p;
    out->source = NULL;
    out->next = NULL;
  }
  pthread_mutex_unlock(&programs_lock);
  return p != NULL;
}

/* A program the driver has destroyed without a clReleaseProgram of the user's (the last kernel
 * that held it went) leaves its record; a new program that gets the same handle must not find
 * it. Every program the driver makes passes here. */
static cl_program fresh(cl_program prog)
{
  if (!prog)
    return prog;
  pthread_mutex_lock(&programs_lock);
  for (wgs__layer_program **p = &programs; *p; p = &(*p)->next)
    if ((*p)->prog == prog) {
      wgs__layer_program *gone = *p;
      *p = gone->next;
      free(gone->source);
      free(gone);
      break;
    }
  pthread_mutex_unlock(&programs_lock);
  return prog;
}

cl_program CL_API_CALL wgs__layer_clCreateProgramWithBinary(cl_context ctx, cl_uint n,
                                                            const cl_device_id *devs,
                                                            const size_t *lengths,
                                                            const unsigned char **bins,
                                                            cl_int *status, cl_int *errcode)
{
  return fresh(wgs__layer_next->clCreateProgramWithBinary(ctx, n, devs, lengths, bins, status,
                                                          errcode));
}

cl_program CL_API_CALL wgs__layer_clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                                    const cl_device_id *devs,
                                                                    const char *names,
                                                                    cl_int *errcode)
{
  return fresh(wgs__layer_next->clCreateProgramWithBuiltInKernels(ctx, n, devs, names, errcode));
}

cl_program CL_API_CALL wgs__layer_clLinkProgram(cl_context ctx, cl_uint n, const cl_device_id *devs,
                                                const char *options, cl_uint np,
                                                const cl_program *progs,
                                                void(CL_CALLBACK *notify)(cl_program, void *),
                                                void *data, cl_int *errcode)
{
  /* A program linked from ones the layer rewrote for the device barrier has their kernels, and
   * so their hidden argument: it gets a record too (no source of its own, as the driver says) */
  int device = 0, checked = 0;
  for (cl_uint i = 0; progs && i < np; i++) {
    wgs__layer_program in;
    if (wgs__layer_program_get(progs[i], &in)) {
      device |= in.device_barrier;
      checked |= in.checked;
    }
  }
  cl_program prog = fresh(wgs__layer_next->clLinkProgram(ctx, n, devs, options, np, progs, notify,
                                                         data, errcode));
  wgs__layer_program *rec = prog && device ? calloc(1, sizeof *rec) : NULL;
  if (rec) {
    rec->prog = prog;
    rec->ctx = ctx;
    rec->device_barrier = 1;
    rec->checked = checked;
    pthread_mutex_lock(&programs_lock);
    rec->next = programs;
    programs = rec;
    pthread_mutex_unlock(&programs_lock);
  } else if (prog && device) {
    wgs__layer_say("clLinkProgram: out of memory for the linked program's record: its kernels' "
                   "device barriers will not be served");
  }
  return prog;
}

/* The context's devices (malloc'd), or NULL. */
static cl_device_id *context_devices(cl_context ctx, cl_uint *n)
{
  size_t bytes = 0;
  if (wgs__layer_next->clGetContextInfo(ctx, CL_CONTEXT_DEVICES, 0, NULL, &bytes) != CL_SUCCESS ||
      bytes == 0)
    return NULL;
  cl_device_id *d = malloc(bytes);
  if (d && wgs__layer_next->clGetContextInfo(ctx, CL_CONTEXT_DEVICES, bytes, d, NULL) != CL_SUCCESS) {
    free(d);
    return NULL;
  }
  *n = (cl_uint)(bytes / sizeof *d);
  return d;
}

int wgs__layer_all_native(cl_context ctx, const char *ext)
{
  cl_uint n = 0;
  cl_device_id *d = context_devices(ctx, &n);
  int all = d != NULL;
  for (cl_uint i = 0; i < n && all; i++)
    all = wgs__layer_native(d[i], ext);
  free(d);
  return all;
}

cl_program CL_API_CALL wgs__layer_clCreateProgramWithSource(cl_context ctx, cl_uint count,
                                                            const char **strings,
                                                            const size_t *lengths, cl_int *errcode)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (wgs__layer_inside || count == 0 || !strings)
    return fresh(nx->clCreateProgramWithSource(ctx, count, strings, lengths, errcode));
  size_t total = 0;
  for (cl_uint i = 0; i < count; i++) {
    if (!strings[i])
      return fresh(nx->clCreateProgramWithSource(ctx, count, strings, lengths, errcode));
    total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
  }
  char *src = malloc(total + 1);
  if (!src) {
    if (errcode)
      *errcode = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  size_t o = 0;
  for (cl_uint i = 0; i < count; i++) {
    size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    memcpy(src + o, strings[i], n);
    o += n;
  }
  src[total] = '\0';
  /* A program that carries wgsync's device library already (a program built with libwgsync,
   * whose polyfill names the split built-ins) is wgsync's own business. */
  int own = strstr(src, "WGS_LAYOUT_VERSION") != NULL;
  int split = !own && (wgs__layer_mentions(src, total, "intel_work_group_barrier_arrive") ||
                       wgs__layer_mentions(src, total, "intel_work_group_barrier_wait"));
  int device = !own && (wgs__layer_mentions(src, total, "intel_device_barrier") ||
                        wgs__layer_mentions(src, total, "intel_is_device_barrier_valid"));
  if (device && wgs__layer_all_native(ctx, WGS_EXT_CONCURRENT))
    device = 0;
  if (split && !device && wgs__layer_all_native(ctx, WGS_EXT_SPLIT))
    split = 0;
  if (!split && !device) { /* not the layer's business */
    free(src);
    return fresh(nx->clCreateProgramWithSource(ctx, count, strings, lengths, errcode));
  }
  int checked = wgs__layer_cfg.checked;
  /* Checked builds give each kernel the split barrier's storage line, which makes its checks
   * (device/opencl/wgs_split_wg.cl) and, on NVIDIA, its real split. */
  const char *prologue = device ? (checked ? "WGS__LAYER_PROLOGUE WGS_WG_SPLIT_STORAGE;"
                                           : "WGS__LAYER_PROLOGUE")
                                : (checked ? "WGS_WG_SPLIT_STORAGE;" : NULL);
  unsigned kernels = 0;
  char *user = wgs__layer_rewrite(src, total, device, prologue, &kernels);
  wgs__layer_program *rec = calloc(1, sizeof *rec);
  if (!user || !rec) {
    free(src);
    free(user);
    free(rec);
    if (errcode)
      *errcode = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  /* #line: the build log and __LINE__ count the user's lines from 1. */
  const char *parts[4] = {wgs__device_lib_source, wgs__layer_glue_source, "\n#line 1\n", user};
  cl_int err;
  cl_program prog = fresh(nx->clCreateProgramWithSource(ctx, 4, parts, NULL, &err));
  free(user);
  if (errcode)
    *errcode = err;
  if (!prog) {
    free(src);
    free(rec);
    return NULL;
  }
  if (wgs__layer_cfg.verbose)
    wgs__layer_say("program %p: %s%s%s, %u kernel(s) %s", (void *)prog,
                   split ? "split barriers" : "", split && device ? " and " : "",
                   device ? "the device barrier" : "", kernels,
                   device ? "given the hidden state argument" : "seen");
  rec->prog = prog;
  rec->ctx = ctx;
  rec->device_barrier = device;
  rec->checked = checked;
  rec->source = src;
  pthread_mutex_lock(&programs_lock);
  rec->next = programs;
  programs = rec;
  pthread_mutex_unlock(&programs_lock);
  return prog;
}

cl_program CL_API_CALL wgs__layer_clCreateProgramWithIL(cl_context ctx, const void *il,
                                                        size_t length, cl_int *errcode)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  int uses = 0;
  if (wgs__layer_inside || !il || length < 20 || length % 4 != 0 ||
      wgs_spirv_uses_split_barrier(il, length / 4, &uses) != WGS_OK || !uses ||
      wgs__layer_all_native(ctx, WGS_EXT_SPLIT))
    return fresh(nx->clCreateProgramWithIL(ctx, il, length, errcode));
  uint32_t *low = NULL;
  size_t low_words = 0;
  int rc = wgs_spirv_lower(il, length / 4, &low, &low_words);
  if (rc != WGS_OK) {
    /* Invalid by the extension's rules: the module goes to the driver as it is, which refuses
     * what it does not know; the reason is said here. */
    wgs__layer_say("clCreateProgramWithIL: the module's split barriers were not lowered: %s",
                   wgs_last_error());
    return fresh(nx->clCreateProgramWithIL(ctx, il, length, errcode));
  }
  cl_int err;
  cl_program prog = fresh(nx->clCreateProgramWithIL(ctx, low, low_words * 4, &err));
  wgs_spirv_free(low);
  if (err == CL_INVALID_OPERATION || err == CL_INVALID_VALUE) {
    cl_uint n = 0;
    cl_device_id *d = context_devices(ctx, &n);
    char il_version[128] = "", name[128] = "?";
    if (d) {
      nx->clGetDeviceInfo(d[0], CL_DEVICE_IL_VERSION, sizeof il_version - 1, il_version, NULL);
      nx->clGetDeviceInfo(d[0], CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    }
    free(d);
    wgs__layer_say("clCreateProgramWithIL: the split barriers were lowered, but the driver "
                   "refused the module (%s): '%s' takes %s; build the program from OpenCL C "
                   "source instead, which the layer serves on every device",
                   wgs_opencl_error_name(err), name,
                   il_version[0] ? il_version : "no SPIR-V (CL_DEVICE_IL_VERSION is empty)");
  }
  if (errcode)
    *errcode = err;
  return prog;
}

/* wgsync's build options for a device (malloc'd: theirs, then ours), or NULL. */
static char *options_for(wgs__layer_program *rec, cl_device_id dev, const char *user)
{
  wgs_device_t *wd = wgs__layer_device_get(rec->ctx, dev);
  if (!wd)
    return NULL;
  wgs__layer_inside++;
  const char *ours = wgs_device_opencl_build_options(wd, rec->checked ? WGS_BUILD_CHECKED : 0);
  wgs__layer_inside--;
  size_t n = (user ? strlen(user) : 0) + strlen(ours) + 64;
  char *o = malloc(n);
  if (o) {
    /* The user's own -cl-std goes: the device library needs the version wgsync chose (its
     * atomics), and two of them do not combine (PoCL 3.1 keeps the first) */
    size_t k = 0;
    for (const char *u = user ? user : ""; *u;) {
      const char *end = u + strcspn(u, " \t");
      if (strncmp(u, "-cl-std=", 8) != 0) {
        memcpy(o + k, u, (size_t)(end - u));
        k += (size_t)(end - u);
        o[k++] = ' ';
      }
      u = end + strspn(end, " \t");
    }
    snprintf(o + k, n - k, "%s -D WGS_ND_RANGE=1", ours);
  }
  wgs__layer_device_put(wd);
  return o;
}

/* Builds (compile: 0) or compiles (1) a program of the layer's for each device with its
 * options: one call when they agree, one per device when they differ. */
static cl_int build(wgs__layer_program *rec, int compile, cl_uint ndev, const cl_device_id *devs,
                    const char *user, cl_uint nh, const cl_program *headers, const char **names,
                    void(CL_CALLBACK *notify)(cl_program, void *), void *data)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  cl_device_id *all = NULL;
  if (!devs || ndev == 0) {
    all = context_devices(rec->ctx, &ndev);
    if (!all)
      return CL_INVALID_CONTEXT;
    devs = all;
  }
  char **opts = calloc(ndev, sizeof *opts);
  cl_int err = opts ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  int same = 1;
  for (cl_uint i = 0; i < ndev && err == CL_SUCCESS; i++) {
    if (!(opts[i] = options_for(rec, devs[i], user)))
      err = CL_INVALID_DEVICE;
    else if (i > 0 && strcmp(opts[i], opts[0]) != 0)
      same = 0;
  }
  for (cl_uint i = 0; i < (same ? 1u : ndev) && err == CL_SUCCESS; i++) {
    cl_uint nd = same ? ndev : 1u;
    const cl_device_id *d = same ? devs : &devs[i];
    /* per device, the callback once at the end: the builds are made synchronous */
    void(CL_CALLBACK * cb)(cl_program, void *) = same ? notify : NULL;
    err = compile ? nx->clCompileProgram(rec->prog, nd, d, opts[i], nh, headers, names, cb,
                                         same ? data : NULL)
                  : nx->clBuildProgram(rec->prog, nd, d, opts[i], cb, same ? data : NULL);
  }
  if (!same && notify && opts)
    notify(rec->prog, data);
  for (cl_uint i = 0; opts && i < ndev; i++)
    free(opts[i]);
  free(opts);
  free(all);
  return err;
}

cl_int CL_API_CALL wgs__layer_clBuildProgram(cl_program prog, cl_uint ndev,
                                             const cl_device_id *devs, const char *options,
                                             void(CL_CALLBACK *notify)(cl_program, void *),
                                             void *data)
{
  wgs__layer_program rec;
  if (wgs__layer_program_get(prog, &rec))
    return build(&rec, 0, ndev, devs, options, 0, NULL, NULL, notify, data);
  return wgs__layer_next->clBuildProgram(prog, ndev, devs, options, notify, data);
}

cl_int CL_API_CALL wgs__layer_clCompileProgram(cl_program prog, cl_uint ndev,
                                               const cl_device_id *devs, const char *options,
                                               cl_uint nh, const cl_program *headers,
                                               const char **names,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *data)
{
  wgs__layer_program rec;
  if (wgs__layer_program_get(prog, &rec))
    return build(&rec, 1, ndev, devs, options, nh, headers, names, notify, data);
  return wgs__layer_next->clCompileProgram(prog, ndev, devs, options, nh, headers, names, notify,
                                           data);
}

/* CL_PROGRAM_SOURCE answers the user's source, not what the driver compiled. */
cl_int CL_API_CALL wgs__layer_clGetProgramInfo(cl_program prog, cl_program_info name, size_t size,
                                               void *value, size_t *size_ret)
{
  if (name == CL_PROGRAM_SOURCE && !wgs__layer_inside) {
    pthread_mutex_lock(&programs_lock);
    wgs__layer_program *rec = find(prog);
    int ours = rec && rec->source;
    cl_int err = ours ? wgs__layer_answer(rec->source, strlen(rec->source) + 1, size, value, size_ret)
                      : CL_SUCCESS;
    pthread_mutex_unlock(&programs_lock);
    if (ours)
      return err;
  }
  return wgs__layer_next->clGetProgramInfo(prog, name, size, value, size_ret);
}

/* The build log of a program the layer rewrote: a device barrier called outside a kernel's own
 * body fails to compile (the built-ins need the kernel's hidden argument); the log then says so
 * after the compiler's words. */
cl_int CL_API_CALL wgs__layer_clGetProgramBuildInfo(cl_program prog, cl_device_id dev,
                                                    cl_program_build_info name, size_t size,
                                                    void *value, size_t *size_ret)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (name != CL_PROGRAM_BUILD_LOG || wgs__layer_inside)
    return nx->clGetProgramBuildInfo(prog, dev, name, size, value, size_ret);
  wgs__layer_program rec;
  int ours = wgs__layer_program_get(prog, &rec);
  size_t n = 0;
  cl_int err = nx->clGetProgramBuildInfo(prog, dev, name, 0, NULL, &n);
  if (!ours || err != CL_SUCCESS)
    return nx->clGetProgramBuildInfo(prog, dev, name, size, value, size_ret);
  static const char note[] =
      "\nwgsync layer: intel_device_barrier and intel_is_device_barrier_valid can be called "
      "only in a kernel function's own body (the layer passes them the kernel's hidden state "
      "argument); a helper function that calls them must be inlined into the kernel by hand\n";
  char *log = malloc(n + sizeof note);
  if (!log)
    return CL_OUT_OF_HOST_MEMORY;
  err = nx->clGetProgramBuildInfo(prog, dev, name, n, log, NULL);
  if (err == CL_SUCCESS) {
    log[n ? n - 1 : 0] = '\0';
    if (strstr(log, "wgs__layer_env") || strstr(log, "wgs__layer_valid"))
      strcat(log, note);
    err = wgs__layer_answer(log, strlen(log) + 1, size, value, size_ret);
  }
  free(log);
  return err;
}

cl_int CL_API_CALL wgs__layer_clReleaseProgram(cl_program prog)
{
  const struct _cl_icd_dispatch *nx = wgs__layer_next;
  if (wgs__layer_inside)
    return nx->clReleaseProgram(prog);
  cl_uint refs = 0;
  pthread_mutex_lock(&programs_lock);
  wgs__layer_program **p = &programs;
  while (*p && (*p)->prog != prog)
    p = &(*p)->next;
  if (*p && nx->clGetProgramInfo(prog, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
                CL_SUCCESS && refs == 1) {
    wgs__layer_program *rec = *p;
    *p = rec->next;
    free(rec->source);
    free(rec);
  }
  pthread_mutex_unlock(&programs_lock);
  return nx->clReleaseProgram(prog);
}

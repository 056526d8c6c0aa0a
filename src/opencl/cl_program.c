/*
 * OpenCL backend: building user programs with the device library in front, kernels, buffers.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"
#include "../tuning.h"

/* The library ends with `#line 1 "user"`, as wgs_program_build puts it before the user's source:
 * a program built from this text followed by the user's names the user's lines in its reports
 * (line 7 of theirs, not 1723). */
static char *lib_with_line;
static void make_lib_with_line(void)
{
  static const char tail[] = "\n#line 1 \"user\"\n";
  size_t n = strlen(wgs__device_lib_source);
  if ((lib_with_line = malloc(n + sizeof tail))) {
    memcpy(lib_with_line, wgs__device_lib_source, n);
    memcpy(lib_with_line + n, tail, sizeof tail);
  }
}
const char *wgs_device_library_source(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, make_lib_with_line);
  return lib_with_line ? lib_with_line : wgs__device_lib_source;
}

/* src/tuning.h's device_lib replaces the embedded device library (for developing it). */
static char *read_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf)
    buf[n] = '\0';
  fclose(f);
  return buf;
}

static char *build_log(cl_program prog, cl_device_id dev)
{
  size_t n = 0;
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS)
    n = 0;
  char *log = malloc(n + 1);
  if (!log)
    return NULL;
  log[0] = '\0';
  if (n && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
    log[n] = '\0';
  return log;
}

int wgs__cl_program_build(wgs_device_t *dev, const char *source, const char *options, unsigned flags,
                      wgs_program_t **out)
{
  /* (the core checked the arguments and the flags: src/api.c) */
  int bad_opts = wgs__check_build_options("wgs_program_build", options);
  if (bad_opts != WGS_OK)
    return bad_opts;

  char *lib_override = NULL;
  const char *lib = wgs__device_lib_source;
  const char *lib_path = wgs__tuning_get()->device_lib; /* development (src/tuning.h) */
  if (lib_path && *lib_path) {
    if (!(lib_override = read_file(lib_path)))
      return wgs__fail(WGS_EIO, "device library '%s' could not be read", lib_path);
    lib = lib_override;
  }
  /* #line makes build-log lines and __LINE__ (barrier sites) count from the user's line 1. */
  const char *parts[3] = {lib, "\n#line 1 \"user\"\n", source};
  size_t opt_len = strlen(dev->opts[0]) + 64 + (options ? strlen(options) : 0);
  char *opts = malloc(opt_len);
  wgs_program_t *p = calloc(1, sizeof *p);
  int rc = WGS_OK;
  if (!opts || !p) {
    rc = wgs__fail(WGS_ENOMEM, "wgs_program_build: out of memory");
    goto done;
  }
  snprintf(opts, opt_len, "%s %s", dev->opts[(flags & WGS_BUILD_CHECKED) ? 1 : 0],
           options ? options : "");
  p->ops = &wgs__opencl_ops;
  p->dev = dev;
  p->refs = 1;
  p->holds_dev = 1;
  wgs__cl_dev_retain(dev);
  p->flags = flags;
  cl_int err;
  p->prog = clCreateProgramWithSource(dev->ctx, 3, parts, NULL, &err);
  if (err != CL_SUCCESS) {
    rc = wgs__cl_fail("clCreateProgramWithSource", err);
    goto done;
  }
  err = clBuildProgram(p->prog, 1, &dev->device, opts, NULL, NULL);
  p->log = build_log(p->prog, dev->device);
  if (err != CL_SUCCESS) {
    rc = wgs__fail(WGS_EBUILD, "program build failed on '%s' (%s) with options '%s'; build log:\n",
                   dev->info.name, wgs_opencl_error_name(err), opts);
    wgs__fail_append(p->log && *p->log ? p->log : "(the driver gave no log)");
    goto done;
  }
done:
  free(opts);
  free(lib_override);
  if (rc != WGS_OK) {
    wgs__cl_program_release(p);
    return rc;
  }
  *out = p;
  return WGS_OK;
}

void wgs__cl_program_retain(wgs_program_t *p) { __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED); }

/* The user's reference; kernels made from the program hold it until they are released (as
 * OpenCL's clReleaseProgram after clCreateKernel). */
void wgs__cl_program_release(wgs_program_t *p)
{
  if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  if (p->prog)
    clReleaseProgram(p->prog);
  free(p->log);
  if (p->holds_dev)
    wgs__cl_dev_release(p->dev);
  free(p);
}

const char *wgs__cl_program_build_log(const wgs_program_t *p) { return p && p->log ? p->log : ""; }
cl_program wgs_program_opencl(const wgs_program_t *p) { return p ? p->prog : NULL; }

int wgs__cl_kernel_create(wgs_program_t *prog, const char *name, wgs_kernel_t **out)
{
  cl_int err;
  cl_kernel k = clCreateKernel(prog->prog, name, &err);
  if (err == CL_INVALID_KERNEL_NAME) {
    char names[1024] = "";
    clGetProgramInfo(prog->prog, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
    names[sizeof names - 1] = '\0';
    return wgs__fail(WGS_ENOKERNEL, "no kernel named '%s' in the program; it has: %s", name,
                     *names ? names : "(none)");
  }
  WGS__CL(err, "clCreateKernel");
  wgs_kernel_t *kk = calloc(1, sizeof *kk);
  if (!kk) {
    clReleaseKernel(k);
    return wgs__fail(WGS_ENOMEM, "wgs_kernel_create: out of memory");
  }
  kk->ops = &wgs__opencl_ops;
  kk->dev = prog->dev;
  kk->prog = prog;
  wgs__cl_program_retain(prog);
  kk->k = k;
  snprintf(kk->name, sizeof kk->name, "%s", name);
  *out = kk;
  return WGS_OK;
}

void wgs__cl_kernel_release(wgs_kernel_t *k)
{
  if (!k)
    return;
  clReleaseKernel(k->k);
  wgs__cl_program_release(k->prog);
  free(k);
}

cl_kernel wgs_kernel_opencl(const wgs_kernel_t *k) { return k ? k->k : NULL; }

int wgs__cl_kernel_set_arg(wgs_kernel_t *k, unsigned index, size_t size, const void *value)
{
  const wgs_device_info *in = &k->prog->dev->info;
  /* A NULL value is a __local argument of `size` bytes. Some drivers accept any size here and
   * fail at the launch; PoCL 3.1 aborts the process there. */
  if (!value && size > in->local_mem_bytes)
    return wgs__fail(WGS_ELIMIT, "argument %u: %zu bytes of __local memory, but '%s' has %llu "
                                 "bytes of local memory per group", index, size, in->name,
                     (unsigned long long)in->local_mem_bytes);
  cl_int err = clSetKernelArg(k->k, index, size, value);
  if (err != CL_SUCCESS)
    return wgs__fail(WGS_EINVAL, "clSetKernelArg(index %u, %zu bytes) failed: %s", index, size,
                     wgs_opencl_error_name(err));
  return WGS_OK;
}

int wgs__cl_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  int room = wgs__cl_check_alloc(dev, bytes, "wgs_buffer_create");
  if (room != WGS_OK)
    return room;
  cl_int err;
  cl_mem m = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS)
    return wgs__fail(err == CL_INVALID_BUFFER_SIZE ? WGS_ELIMIT : WGS_EBACKEND,
                     "clCreateBuffer(%zu bytes) failed: %s", bytes, wgs_opencl_error_name(err));
  wgs_buffer_t *b = calloc(1, sizeof *b);
  if (!b) {
    clReleaseMemObject(m);
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_create: out of memory");
  }
  b->ops = &wgs__opencl_ops;
  b->dev = dev;
  wgs__cl_dev_retain(dev);
  b->mem = m;
  b->bytes = bytes;
  *out = b;
  return WGS_OK;
}

void wgs__cl_buffer_release(wgs_buffer_t *b)
{
  if (!b)
    return;
  clReleaseMemObject(b->mem);
  wgs__cl_dev_release(b->dev);
  free(b);
}

cl_mem wgs_buffer_opencl(const wgs_buffer_t *b) { return b ? b->mem : NULL; }

int wgs__cl_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src)
{
  /* (the core checked the arguments and the range) */
  WGS__CL(clEnqueueWriteBuffer(b->dev->queue, b->mem, CL_TRUE, off, bytes, src, 0, NULL, NULL),
          "clEnqueueWriteBuffer");
  return WGS_OK;
}

int wgs__cl_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst)
{
  /* (the core checked the arguments and the range) */
  WGS__CL(clEnqueueReadBuffer(b->dev->queue, b->mem, CL_TRUE, off, bytes, dst, 0, NULL, NULL),
          "clEnqueueReadBuffer");
  return WGS_OK;
}

int wgs__cl_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *b)
{
  /* A buffer of another context is undefined in OpenCL (a crash on some drivers): each
   * wgs_device_open makes its own context, so even the same device opened twice differs. */
  if (b->dev->ctx != k->prog->dev->ctx)
    return wgs__fail(WGS_EINVAL, "argument %u: the buffer was made on another device handle "
                                 "('%s') than the kernel's program ('%s'); buffers and kernels "
                                 "must come from the same wgs_device_t",
                     index, b->dev->info.name, k->prog->dev->info.name);
  return wgs__cl_kernel_set_arg(k, index, sizeof b->mem, &b->mem);
}

/* An allocation the device can hold: at most CL_DEVICE_MAX_MEM_ALLOC_SIZE, and on a CPU device
 * memory the process can get (PoCL allocates a buffer on first use and aborts the process when
 * the host refuses; a host allocation of the same size, tried and freed here, fails cleanly). */
int wgs__cl_check_alloc(const wgs_device_t *dev, size_t bytes, const char *who)
{
  cl_ulong max_alloc = 0;
  if (clGetDeviceInfo(dev->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                      NULL) == CL_SUCCESS &&
      max_alloc > 0 && bytes > max_alloc)
    return wgs__fail(WGS_ELIMIT, "%s: %zu bytes exceed the largest allocation of '%s' "
                                 "(CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu)",
                     who, bytes, dev->info.name, (unsigned long long)max_alloc);
  if (dev->info.is_cpu) {
    void *probe = malloc(bytes);
    if (!probe)
      return wgs__fail(WGS_ENOMEM, "%s: %zu bytes cannot be allocated in this process (the CPU "
                                   "device '%s' holds buffers in host memory)",
                       who, bytes, dev->info.name);
    free(probe);
  }
  return WGS_OK;
}

/* Build options that end in an option needing a value (-D, -I): PoCL 3.1's clBuildProgram
 * crashes on them, so they are refused before any driver sees them. */
int wgs__check_build_options(const char *who, const char *options)
{
  if (!options)
    return WGS_OK;
  const char *last = NULL, *p = options;
  size_t last_len = 0;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (!*p)
      break;
    const char *t = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
      p++;
    last = t;
    last_len = (size_t)(p - t);
  }
  if (last && last_len == 2 && last[0] == '-' && (last[1] == 'D' || last[1] == 'I'))
    return wgs__fail(WGS_EINVAL, "%s: the build options '%s' end in '%.2s' with nothing after "
                                 "it (expected %s)", who, options, last,
                     last[1] == 'D' ? "a macro, as in -D NAME=1" : "a folder, as in -I include");
  return WGS_OK;
}

static int tools_program_locked(wgs_device_t *dev, int checked, wgs_program_t **out);
int wgs__tools_program(wgs_device_t *dev, int checked, wgs_program_t **out)
{
  pthread_mutex_lock(&dev->lazy); /* built once, whichever thread asks first */
  int rc = tools_program_locked(dev, checked, out);
  pthread_mutex_unlock(&dev->lazy);
  return rc;
}

static int tools_program_locked(wgs_device_t *dev, int checked, wgs_program_t **out)
{
  int i = checked ? 1 : 0;
  if (!dev->tools[i]) {
    /* extra build options for the tools kernels (development, src/tuning.h) */
    const char *extra = wgs__tuning_get()->tools_options;
    char opts[512];
    /* The probes' occupancy must be the kernel's: no misuse checks (device/common/wgs_layout.h),
     * and on NVIDIA at most 32 registers, which let 2048 threads run on an SM at every group
     * size (as src/cuda's tools kernels; the checked latency probe took more and ran 6 groups
     * of 256 per SM where its unchecked kernel runs 8, H100). */
    int nv = strstr(dev->info.platform_name, "NVIDIA") != NULL;
    snprintf(opts, sizeof opts, "-D WGS_CHECK_MISUSE=0%s %s", nv ? " -cl-nv-maxrregcount=32" : "",
             extra ? extra : "");
    wgs_program_t *p = NULL;
    int rc = wgs_program_build(dev, wgs__tools_source, opts, checked ? WGS_BUILD_CHECKED : 0, &p);
    if (rc != WGS_OK)
      return rc;
    p->holds_dev = 0; /* the device holds it: no reference back */
    wgs__cl_dev_release(dev);
    dev->tools[i] = p;
  }
  *out = dev->tools[i];
  return WGS_OK;
}

/* The table's kernel_resources: what clGetKernelWorkGroupInfo says (OpenCL names no register
 * count). */
int wgs__cl_kernel_resources(wgs_kernel_t *k, wgs_kernel_resources *out)
{
  cl_device_id d = k->dev->device;
  size_t wg = 0;
  cl_ulong lmem = 0, pmem = 0;
  WGS__CL(clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL),
          "clGetKernelWorkGroupInfo(WORK_GROUP_SIZE)");
  WGS__CL(clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL),
          "clGetKernelWorkGroupInfo(LOCAL_MEM_SIZE)");
  WGS__CL(clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem, NULL),
          "clGetKernelWorkGroupInfo(PRIVATE_MEM_SIZE)");
  out->max_local_size = wg;
  out->local_mem_bytes = lmem;
  out->private_mem_bytes = pmem;
  out->registers = -1;
  return WGS_OK;
}

int wgs__cl_program_build_il(wgs_device_t *dev, const uint32_t *words, size_t n_words,
                               const char *options, wgs_program_t **out)
{
  int uses = 0, rc = wgs__check_build_options("wgs_program_build_il", options);
  if (rc != WGS_OK)
    return rc;
  rc = wgs_spirv_uses_split_barrier(words, n_words, &uses);
  if (rc != WGS_OK)
    return rc;
  uint32_t *lowered = NULL;
  size_t n = n_words;
  const uint32_t *il = words;
  if (uses && !dev->info.has_split_barrier) { /* lower for a device without the extension */
    if ((rc = wgs_spirv_lower(words, n_words, &lowered, &n)) != WGS_OK)
      return rc;
    il = lowered;
  }
  char ilv[256] = "";
  clGetDeviceInfo(dev->device, CL_DEVICE_IL_VERSION, sizeof ilv, ilv, NULL);
  ilv[sizeof ilv - 1] = '\0';
  if (!strstr(ilv, "SPIR-V")) {
    wgs_spirv_free(lowered);
    return wgs__fail(WGS_EUNSUPPORTED, "'%s' accepts no SPIR-V (CL_DEVICE_IL_VERSION is '%s')%s",
                     dev->info.name, ilv, uses ? "; the module was lowered and is valid, but has "
                                                 "nowhere to go" : "");
  }
  wgs_program_t *p = calloc(1, sizeof *p);
  if (!p) {
    wgs_spirv_free(lowered);
    return wgs__fail(WGS_ENOMEM, "out of memory");
  }
  p->ops = &wgs__opencl_ops;
  p->dev = dev;
  p->refs = 1;
  p->holds_dev = 1;
  wgs__cl_dev_retain(dev);
  cl_int err;
  p->prog = clCreateProgramWithIL(dev->ctx, il, n * sizeof *il, &err);
  wgs_spirv_free(lowered);
  if (err != CL_SUCCESS) {
    wgs__cl_program_release(p);
    return wgs__cl_fail("clCreateProgramWithIL", err);
  }
  err = clBuildProgram(p->prog, 1, &dev->device, options ? options : "", NULL, NULL);
  p->log = build_log(p->prog, dev->device);
  if (err != CL_SUCCESS) {
    rc = wgs__fail(WGS_EBUILD, "SPIR-V program build failed on '%s' (%s); build log:\n",
                   dev->info.name, wgs_opencl_error_name(err));
    wgs__fail_append(p->log && *p->log ? p->log : "(the driver gave no log)");
    wgs__cl_program_release(p);
    return rc;
  }
  *out = p;
  return WGS_OK;
}


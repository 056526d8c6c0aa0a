/* CUDA backend: kernel handles (a symbol or a CUfunction, with arguments by index) and buffers
 * of the one API (wgsync.h). */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* ---- kernels and buffers of the one API (wgsync.h) on a CUDA device ------------------------ */

#define CUDA_MAX_ARGS 64
/* A kernel symbol or a CUfunction, with the arguments wgs_kernel_set_arg gave (copies), so that
 * wgs_launch passes them as cudaLaunchKernel / cuLaunchKernel take them. */
typedef struct {
  WGS__OBJECT_HEAD;
  kernel_ref kr;
  unsigned nargs;                      /* 1 + the highest index set */
  unsigned char *value[CUDA_MAX_ARGS]; /* NULL: not set */
  size_t shared_bytes;                 /* dynamic shared memory (a NULL value's size) */
} cuda_kernel;
typedef struct {
  WGS__BUFFER_HEAD; /* ops, device, size (src/device.h) */
  void *ptr;
} cuda_buffer;

static int kernel_wrap(wgs_device_t *dev, const void *sym, CUfunction fn, const char *who,
                       wgs_kernel_t **out)
{
  if (wgs__head(dev)->ops != &wgs__cuda_ops)
    return wgs__fail(WGS_EINVAL, "%s: the device is not a CUDA device (open \"cuda:N\")", who);
  cuda_kernel *k = (cuda_kernel *)calloc(1, sizeof *k);
  if (!k)
    return wgs__fail(WGS_ENOMEM, "%s: out of memory", who);
  k->ops = &wgs__cuda_ops;
  k->dev = dev;
  wgs__cuda_dev_retain(dev);
  k->kr.sym = sym;
  k->kr.fn = fn;
  k->kr.who = "wgs_launch";
  k->kr.name = NULL;
  *out = (wgs_kernel_t *)(void *)k;
  return WGS_OK;
}

extern "C" int wgs_kernel_cuda(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(kernel);
  return kernel_wrap(dev, kernel, NULL, "wgs_kernel_cuda", out);
}

extern "C" int wgs_kernel_cuda_symbol(wgs_device_t *dev, const void *kernel, wgs_kernel_t **out)
{
  return wgs_kernel_cuda(dev, kernel, out);
}

extern "C" int wgs_kernel_cuda_function(wgs_device_t *dev, CUfunction fn, wgs_kernel_t **out)
{
  WGS__REQUIRE(out);
  *out = NULL;
  WGS__REQUIRE(dev);
  WGS__REQUIRE(fn);
  if (wgs__load_driver() != WGS_OK)
    return WGS_EBACKEND;
  return kernel_wrap(dev, NULL, fn, "wgs_kernel_cuda_function", out);
}

/* The tools' kernels as a program (wgs_tools_program): the device owns it, and its kernels are
 * the ones nvcc compiled into this library (cuda_tools.cu), found by their OpenCL names. */
typedef struct {
  WGS__OBJECT_HEAD;
  int checked;
  char log[256];
} cuda_tools_program;

#ifndef WGS_CUDA_ARCHS
#define WGS_CUDA_ARCHS "?"
#endif

int wgs__cuda_tools_program(wgs_device_t *dev, int checked, wgs_program_t **out)
{
  wgs__cuda_device *d = (wgs__cuda_device *)(void *)dev;
  if (!d->tools[checked]) {
    int rc = wgs__use_device(d->ordinal);
    if (rc != WGS_OK)
      return rc;
    const char *names;
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, wgs__cuda_tools_kernel("wgs_micro", checked, &names));
    if (e != cudaSuccess) { /* most often: no image for this GPU's architecture */
      cudaGetLastError();
      return wgs__fail(WGS_EBACKEND, "wgs_tools_program: '%s' (%s) cannot run the kernels of "
                                     "libwgsync_cuda: %s (%s); they are compiled for "
                                     "architecture(s) %s: rebuild with "
                                     "-DWGSYNC_CUDA_ARCHITECTURES naming this GPU's",
                       d->info.name, d->info.device_version, cudaGetErrorName(e),
                       cudaGetErrorString(e), WGS_CUDA_ARCHS);
    }
    cuda_tools_program *p = (cuda_tools_program *)calloc(1, sizeof *p);
    if (!p)
      return wgs__fail(WGS_ENOMEM, "wgs_tools_program: out of memory");
    p->ops = &wgs__cuda_ops;
    p->dev = dev; /* no reference: the device holds the program */
    p->checked = checked;
    snprintf(p->log, sizeof p->log, "compiled into libwgsync_cuda by nvcc %d.%d for "
             "architecture(s) %s, %s (at most 32 registers); this GPU runs the sm_%d image",
             __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, WGS_CUDA_ARCHS,
             checked ? "checked (WGS_CHECKED=1)" : "unchecked", a.binaryVersion);
    d->tools[checked] = (wgs_program_t *)(void *)p;
  }
  *out = d->tools[checked];
  return WGS_OK;
}

void wgs__cuda_program_release(wgs_program_t *prog)
{
  (void)prog; /* the only programs are the tools', which their device owns */
}

const char *wgs__cuda_program_build_log(const wgs_program_t *prog)
{
  return ((const cuda_tools_program *)(const void *)prog)->log;
}

int wgs__cuda_kernel_create(wgs_program_t *prog, const char *name, wgs_kernel_t **out)
{
  const cuda_tools_program *p = (const cuda_tools_program *)(const void *)prog;
  const char *names;
  const void *sym = wgs__cuda_tools_kernel(name, p->checked, &names);
  if (!sym)
    return wgs__fail(WGS_ENOKERNEL, "no kernel named '%s' in the tools program; it has: %s", name,
                     names);
  int rc = kernel_wrap(p->dev, sym, NULL, "wgs_kernel_create", out);
  if (rc == WGS_OK)
    ((cuda_kernel *)(void *)*out)->kr.name = name; /* (a static name: the table's) */
  return rc;
}

/* The table's kernel_resources: the function's attributes, through the runtime for a symbol and
 * the driver for a CUfunction. */
int wgs__cuda_kernel_resources(wgs_kernel_t *pk, wgs_kernel_resources *out)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  int rc = wgs__use_device(((wgs__cuda_device *)(void *)k->dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  if (k->kr.sym) {
    cudaFuncAttributes a;
    CU(cudaFuncGetAttributes(&a, k->kr.sym), "cudaFuncGetAttributes");
    out->max_local_size = (size_t)a.maxThreadsPerBlock;
    out->local_mem_bytes = a.sharedSizeBytes;
    out->private_mem_bytes = a.localSizeBytes;
    out->registers = a.numRegs;
    return WGS_OK;
  }
  static const CUfunction_attribute attr[4] = {
      CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
      CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_NUM_REGS};
  int v[4];
  for (int i = 0; i < 4; i++) {
    CUresult r = wgs__cuda_drv.func_attribute(&v[i], attr[i], k->kr.fn);
    if (r != CUDA_SUCCESS)
      return wgs__cu_fail("cuFuncGetAttribute", r);
  }
  out->max_local_size = (size_t)v[0];
  out->local_mem_bytes = (uint64_t)v[1];
  out->private_mem_bytes = (uint64_t)v[2];
  out->registers = v[3];
  return WGS_OK;
}

void wgs__cuda_kernel_release(wgs_kernel_t *pk)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  for (unsigned i = 0; i < CUDA_MAX_ARGS; i++)
    free(k->value[i]);
  wgs__cuda_dev_release(k->dev);
  free(k);
}

int wgs__cuda_kernel_set_arg(wgs_kernel_t *pk, unsigned index, size_t size, const void *value)
{
  cuda_kernel *k = (cuda_kernel *)(void *)pk;
  if (index >= CUDA_MAX_ARGS)
    return wgs__fail(WGS_ELIMIT, "wgs_kernel_set_arg: index %u (CUDA kernels take at most %u "
                                 "arguments through wgsync)", index, CUDA_MAX_ARGS);
  if (!value) { /* as OpenCL's __local argument: the launch's dynamic shared memory */
    const wgs_device_info *in = &wgs__head(k->dev)->info;
    if (size > in->local_mem_bytes)
      return wgs__fail(WGS_ELIMIT, "argument %u: %zu bytes of dynamic shared memory, but '%s' "
                                   "has %llu per block", index, size, in->name,
                       (unsigned long long)in->local_mem_bytes);
    k->shared_bytes = size;
    return WGS_OK;
  }
  if (size == 0 || size > 4096)
    return wgs__fail(WGS_EINVAL, "wgs_kernel_set_arg: argument %u of %zu bytes (expected 1 to "
                                 "4096, the kernel parameter's size)", index, size);
  unsigned char *v = (unsigned char *)malloc(size);
  if (!v)
    return wgs__fail(WGS_ENOMEM, "wgs_kernel_set_arg: out of memory");
  memcpy(v, value, size);
  free(k->value[index]);
  k->value[index] = v;
  if (index + 1 > k->nargs)
    k->nargs = index + 1;
  return WGS_OK;
}

int wgs__cuda_kernel_set_arg_buffer(wgs_kernel_t *k, unsigned index, wgs_buffer_t *pb)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  if (((wgs__cuda_device *)(void *)b->dev)->ordinal !=
      ((wgs__cuda_device *)(void *)wgs__object(k)->dev)->ordinal)
    return wgs__fail(WGS_EINVAL, "argument %u: the buffer is on another CUDA device than the "
                                 "kernel", index);
  return wgs__cuda_kernel_set_arg(k, index, sizeof b->ptr, &b->ptr);
}

/* The table's launch (src/device.h): the core checked the devices and holds the lock. On the
 * legacy default stream; launches on a stream of your own: wgs_cuda_launch. */
static int table_describe(wgs_state_t *st, void *what, wgs_launch_config *cfg, wgs__launch_ctx *c)
{
  cuda_kernel *k = (cuda_kernel *)what;
  unsigned state_arg = cfg->state_arg;
  unsigned n = k->nargs > state_arg ? k->nargs : state_arg + 1;
  if (n > CUDA_MAX_ARGS)
    return wgs__fail(WGS_EINVAL, "wgs_launch: state_arg %u (the kernel takes at most %u "
                                 "arguments)", state_arg, (unsigned)CUDA_MAX_ARGS);
  for (unsigned i = 0; i < n; i++)
    if (i != state_arg && !k->value[i])
      return wgs__fail(WGS_EINVAL, "wgs_launch: kernel argument %u was never set "
                                   "(wgs_kernel_set_arg; argument %u is the state)", i, state_arg);
  /* (the state's slot of the values is replaced at the enqueue; describe fills in the state) */
  cs(st)->table = wgs__cuda_launch_args{NULL, k->kr, (void **)k->value, n, k->shared_bytes, 0, NULL};
  return wgs__cuda_launch_via.describe(st, &cs(st)->table, cfg, c);
}
static int table_enqueue(wgs_state_t *st, void *what, const wgs_launch_config *cfg,
                         const wgs__launch_ctx *c, const wgs__launch_plan *p, int *captured)
{
  (void)what;
  return wgs__cuda_launch_via.enqueue(st, &cs(st)->table, cfg, c, p, captured);
}
const wgs__launch_via wgs__cuda_launch = {table_describe, table_enqueue};

int wgs__cuda_buffer_create(wgs_device_t *dev, size_t bytes, wgs_buffer_t **out)
{
  int rc = wgs__use_device(((wgs__cuda_device *)(void *)dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  void *ptr = NULL;
  CU(cudaMalloc(&ptr, bytes), "cudaMalloc(buffer)");
  cuda_buffer *b = (cuda_buffer *)calloc(1, sizeof *b);
  if (!b) {
    cudaFree(ptr);
    return wgs__fail(WGS_ENOMEM, "wgs_buffer_create: out of memory");
  }
  b->ops = &wgs__cuda_ops;
  b->dev = dev;
  wgs__cuda_dev_retain(dev);
  b->ptr = ptr;
  b->bytes = bytes;
  *out = (wgs_buffer_t *)(void *)b;
  return WGS_OK;
}

void wgs__cuda_buffer_release(wgs_buffer_t *pb)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  cudaFree(b->ptr);
  wgs__cuda_dev_release(b->dev);
  free(b);
}

static int cuda_buffer_copy(wgs_buffer_t *pb, size_t off, size_t bytes, void *host, int to_device)
{
  cuda_buffer *b = (cuda_buffer *)(void *)pb;
  /* (the core checked the range) */
  int rc = wgs__use_device(((wgs__cuda_device *)(void *)b->dev)->ordinal);
  if (rc != WGS_OK)
    return rc;
  /* (the legacy default stream: ordered after the launches wgs_launch made) */
  CU(to_device ? cudaMemcpy((char *)b->ptr + off, host, bytes, cudaMemcpyHostToDevice)
               : cudaMemcpy(host, (char *)b->ptr + off, bytes, cudaMemcpyDeviceToHost),
     to_device ? "cudaMemcpy(buffer write)" : "cudaMemcpy(buffer read)");
  return WGS_OK;
}
int wgs__cuda_buffer_write(wgs_buffer_t *b, size_t off, size_t bytes, const void *src)
{
  return cuda_buffer_copy(b, off, bytes, (void *)src, 1);
}
int wgs__cuda_buffer_read(wgs_buffer_t *b, size_t off, size_t bytes, void *dst)
{
  return cuda_buffer_copy(b, off, bytes, dst, 0);
}

extern "C" void *wgs_buffer_cuda_ptr(const wgs_buffer_t *b)
{
  return b && wgs__object(b)->ops == &wgs__cuda_ops ? ((const cuda_buffer *)(const void *)b)->ptr
                                                    : NULL;
}

